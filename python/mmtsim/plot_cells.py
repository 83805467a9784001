"""``cells.png``: the SINR of each UE coloured by the cell serving it, with the periods
without line of sight to each cell shaded in that cell's colour, and the handovers marked —
the view of a multi-cell run that Mateo et al. draw for their street ([SEED002 Fig. 3(b)]:
"the colored backgrounds represent NLoS periods to the corresponding APs; the color of the
SINR profile represents the AP to which the UE is currently attached").

Drawn for runs with more than one cell. The serving cell and its SINR come from the ``ran``
table (every sample; for a dually connected UE, its secondary cell and that leg's SINR:
the mmWave leg, which the coordinator moves between cells); the NLOS periods towards every cell need the ``measurements`` table
(``ran.handover.log_measurements_every``), whose ``los`` column says, at each measurement,
whether the UE sees each cell; without it only the serving cell's NLOS periods (the ``ran``
table's ``los``) are shaded. The background is split in one horizontal band per cell, so
that overlapping NLOS periods of different cells stay readable. Up to ``MAX_UES`` UEs are
drawn, in UE order.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from .results import RunResult  # noqa: E402

#: At most this many UEs get a panel.
MAX_UES = 10


def periods(t, flag) -> list[tuple[float, float]]:
    """(start, length) of the intervals where ``flag`` is true, each sample holding until the
    next one (the last for one more sampling interval). Also the radio panels' NLOS bars."""
    spans = []
    start = None
    for i in range(len(t)):
        if flag[i] and start is None:
            start = t[i]
        elif not flag[i] and start is not None:
            spans.append((start, t[i] - start))
            start = None
    if start is not None:
        end = t[-1] + (t[-1] - t[-2] if len(t) > 1 else 0.0)
        spans.append((start, end - start))
    return spans


def has_cells(res: RunResult) -> bool:
    """True when the run has a RAN with more than one cell."""
    return (len(res.summary.get("cells") or []) > 1 and "ran" in res.table_names()
            and res.table("ran").height > 0)


def cells_figure(res: RunResult):
    """The figure, or ``None`` for a run with at most one cell."""
    if not has_cells(res):
        return None
    cells = {c["id"]: c["name"] for c in res.summary["cells"]}
    colours = {c: f"C{k % 10}" for k, c in enumerate(sorted(cells))}
    ues = {u["id"]: u["name"] for u in res.summary.get("ues") or []}
    ran = res.table("ran")
    meas = (res.table("measurements") if "measurements" in res.table_names() else None)
    if meas is not None and ("los" not in meas.columns or meas.height == 0):
        meas = None
    hos = res.table("handovers") if "handovers" in res.table_names() else None
    ids = sorted(ran["ue"].unique().to_list())[:MAX_UES]
    fig, axes = plt.subplots(len(ids), 1, figsize=(11, 2.4 * len(ids)), sharex=True,
                             squeeze=False)
    n_cells = len(cells)
    for ax, u in zip(axes[:, 0], ids):
        d = ran.filter(pl.col("ue") == u).sort("t_s")
        t = d["t_s"].to_numpy()
        sinr = d["sinr_dl_db"].to_numpy()
        primary = cell = d["cell"].to_numpy()
        if "secondary_cell" in d.columns:
            # A dually connected UE: the line follows its secondary (mmWave) leg.
            sec = d["secondary_cell"].to_numpy()
            on = sec >= 0
            cell = np.where(on, sec, cell)
            sinr = np.where(on, d["sinr_dl_secondary_db"].to_numpy(), sinr)
        # Backgrounds: band k of the panel's height is cell k's NLOS periods.
        for k, c in enumerate(sorted(cells)):
            if meas is not None:
                m = meas.filter((pl.col("ue") == u) & (pl.col("cell") == c)).sort("t_s")
                mt = m["t_s"].to_numpy()
                spans = periods(mt, ~m["los"].to_numpy().astype(bool))
            else:
                # The `ran` table's LOS is the primary cell's.
                serving_nlos = (primary == c) & ~d["los"].to_numpy().astype(bool)
                spans = periods(t, serving_nlos)
            lo, hi = k / n_cells, (k + 1) / n_cells
            for start, length in spans:
                ax.axvspan(start, start + length, ymin=lo, ymax=hi, color=colours[c],
                           alpha=0.22, lw=0, zorder=0)
        # The SINR, one segment per serving period, in the serving cell's colour.
        cuts = np.flatnonzero(np.diff(cell)) + 1
        bounds = [0, *cuts.tolist(), len(t)]
        seen = set()
        for a, b in zip(bounds, bounds[1:]):
            c = int(cell[a])
            stop = min(b + 1, len(t))  # join each segment to the next
            ax.plot(t[a:stop], sinr[a:stop], lw=0.9, color=colours.get(c, "k"),
                    label=f"served by {cells.get(c, c)}" if c not in seen else None)
            seen.add(c)
        if hos is not None and hos.height > 0:
            h = hos.filter(pl.col("ue") == u)
            for row in h.iter_rows(named=True):
                ok = bool(row.get("success", True))
                ax.axvline(row["t_s"], color="k" if ok else "r", lw=0.6,
                           ls="-" if ok else "--", zorder=1)
        ax.set_ylabel(f"{ues.get(u, f'ue {u}')}\nSINR (dB)")
        ax.grid(alpha=0.3)
    # One legend: the serving colours and what the bands mean.
    handles = [plt.Line2D([], [], color=colours[c], lw=2, label=f"{cells[c]}")
               for c in sorted(cells)]
    handles.append(matplotlib.patches.Patch(color="0.6", alpha=0.3,
                                            label="band k: no LOS to cell k"))
    handles.append(plt.Line2D([], [], color="k", lw=0.6, label="handover"))
    handles.append(plt.Line2D([], [], color="r", lw=0.6, ls="--", label="failed handover"))
    axes[0, 0].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.005, 1),
                      fontsize=7, frameon=False, title="cell (line: serving)",
                      title_fontsize=7)
    axes[-1, 0].set_xlabel("time (s)")
    fig.tight_layout()
    return fig
