"""PNG figures of a run folder (``mmtsim plot``): goodput, RTT, cwnd and queue occupancy
over time and, for a run with a radio access network, the radio state of each UE.

Files written into ``RUN/plots/``:

- ``goodput.png``, ``rtt.png``, ``cwnd.png``, ``queue.png``: one panel each, a line per
  flow (per link direction for the queue; idle directions are left out).
- ``radio.png`` (runs whose ``ran`` table has rows): goodput and RTT again, then per UE
  the SINR (dB), the MCS index, the RLC buffer (kB) and the line-of-sight state, on one
  time axis so that a drop in goodput lines up with the blockage that caused it. DL is a
  solid line, UL dashed in the same colour; UL is drawn only where it differs from DL
  (the presets give both directions the same SINR), the RLC buffer of a direction only
  when it ever holds data. The LOS panel has a row per UE with its NLOS periods shaded;
  with a single UE those periods are also shaded behind every other panel.
- ``cells.png`` (runs with more than one cell): each UE's SINR coloured by its serving
  cell, NLOS periods towards each cell shaded in a band of that cell's colour, handovers
  marked (``plot_cells.py``).
- ``overview.png``: every panel above, stacked on one time axis.

An emulation's run folder (``mmtsim emulate``) also has real flows, the connections of
real programs that crossed the simulated network: the goodput and RTT panels draw them
(``real_goodput``, ``real_rtt``) beside the scenario's simulated flows, each labelled
"real SRC:PORT→DST:PORT".

Each sample of the ``ran`` table holds until the next one (``results.py`` documents the
tables). Long series are thinned for drawing; the data files keep every sample.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from .plot_cells import cells_figure, periods  # noqa: E402
from .results import RunResult  # noqa: E402

# Time series longer than this are thinned for drawing (the data files keep every sample).
MAX_POINTS = 20_000
#: Flow and queue panels: (file/table, column, axis label, entity column, scale).
FLOW_PANELS = (
    ("goodput", "goodput_mbps", "goodput (Mbit/s)", "flow", 1.0),
    ("rtt", "rtt_ms", "RTT per ACK (ms)", "flow", 1.0),
    ("cwnd", "cwnd_bytes", "cwnd (MB)", "flow", 1e-6),
    ("queue", "bytes", "queue (kB)", "link", 1e-3),
)
#: Radio panels, in drawing order, and their axis labels.
RADIO_PANELS = {"sinr": "SINR (dB)", "mcs": "MCS index", "rlc": "RLC buffer (kB)",
                "los": "NLOS periods"}
_NLOS_COLOR = "0.55"


def _thin(df: pl.DataFrame) -> pl.DataFrame:
    if df.height <= MAX_POINTS:
        return df
    return df.gather_every(df.height // MAX_POINTS + 1)


# ---------------------------------------------------------------------------------------
# Radio series


@dataclass
class UeSeries:
    """What the radio panels draw for one UE (thinned for drawing, except ``nlos``)."""

    ue: int
    name: str
    t_s: np.ndarray
    #: Per direction ("dl", "ul"): SINR (dB), MCS index, RLC buffer (kB).
    sinr_db: dict[str, np.ndarray]
    mcs: dict[str, np.ndarray]
    rlc_kb: dict[str, np.ndarray]
    #: (start, length) in seconds of each period without line of sight, from every sample.
    nlos: list[tuple[float, float]]


def has_radio(res: RunResult) -> bool:
    """True when the run has a RAN: its ``ran`` table exists and has rows."""
    return "ran" in res.table_names() and res.table("ran").height > 0


def radio_series(res: RunResult) -> list[UeSeries]:
    """The per-UE series of the radio panels, in UE order (empty without a RAN)."""
    if not has_radio(res):
        return []
    ran = res.table("ran")
    names = {u["id"]: u["name"] for u in res.summary.get("ues") or []}
    out = []
    for u in sorted(ran["ue"].unique().to_list()):
        full = ran.filter(pl.col("ue") == u).sort("t_s")
        d = _thin(full)
        los = full["los"].to_numpy().astype(bool)
        out.append(UeSeries(
            ue=u, name=names.get(u, f"ue {u}"), t_s=d["t_s"].to_numpy(),
            sinr_db={x: d[f"sinr_{x}_db"].to_numpy() for x in ("dl", "ul")},
            mcs={x: d[f"mcs_{x}"].to_numpy() for x in ("dl", "ul")},
            rlc_kb={x: d[f"rlc_{x}_bytes"].to_numpy() * 1e-3 for x in ("dl", "ul")},
            nlos=periods(full["t_s"].to_numpy(), ~los)))
    return out


def _draw_radio(axes: dict, series: list[UeSeries]) -> None:
    """Draws the radio panels (``axes``: RADIO_PANELS key → Axes)."""
    for i, s in enumerate(series):
        color = f"C{i % 10}"
        for key, data, style in (("sinr", s.sinr_db, {}), ("mcs", s.mcs, {"ds": "steps-post"})):
            same = np.array_equal(data["dl"], data["ul"], equal_nan=True)
            axes[key].plot(s.t_s, data["dl"], lw=0.8, color=color,
                           label=f"{s.name}" if same else f"{s.name} DL", **style)
            if not same:
                axes[key].plot(s.t_s, data["ul"], lw=0.8, ls="--", color=color,
                               label=f"{s.name} UL", **style)
        for x, ls in (("dl", "-"), ("ul", "--")):
            if s.rlc_kb[x].max(initial=0) > 0:  # an unused direction only clutters
                axes["rlc"].plot(s.t_s, s.rlc_kb[x], lw=0.8, ls=ls, color=color,
                                 label=f"{s.name} {x.upper()}", ds="steps-post")
        axes["los"].broken_barh(s.nlos, (i - 0.35, 0.7), color=_NLOS_COLOR,
                                label="no line of sight" if i == 0 else None)
    los = axes["los"]
    los.set_yticks(range(len(series)), [s.name for s in series],
                   fontsize=7 if len(series) <= 6 else 6)
    los.set_ylim(len(series) - 0.4, -0.6)  # first UE on top, as in the legends
    los.legend(loc="upper left", bbox_to_anchor=(1.005, 1), fontsize=7, frameon=False)
    for key in ("sinr", "mcs", "rlc"):
        if not axes[key].lines:
            axes[key].text(0.5, 0.5, "no data", transform=axes[key].transAxes, ha="center")
    for key, label in RADIO_PANELS.items():
        axes[key].set_ylabel(label)


def _shade_nlos(axes, series: list[UeSeries]) -> None:
    """With one UE, its NLOS periods shaded behind every panel (with several, only the
    LOS panel says which UE is blocked when)."""
    if len(series) != 1:
        return
    for ax in axes:
        for start, length in series[0].nlos:
            ax.axvspan(start, start + length, color=_NLOS_COLOR, alpha=0.15, lw=0, zorder=0)


# ---------------------------------------------------------------------------------------
# Flow and queue panels


def _draw_flow_panel(ax, res: RunResult, panel) -> None:
    table, col, label, key, scale = panel
    df = res.table(table)
    if key == "flow":
        labels = {f["id"]: f["name"] for f in res.summary["flows"]}
    else:
        labels = {l["id"]: f"{l['name']} ({l['direction']})" for l in res.summary["links"]}
    drawn = False
    for k in sorted(df[key].unique().to_list()):
        d = _thin(df.filter(pl.col(key) == k))
        if table == "queue" and d[col].max() == 0:
            continue  # idle link directions only clutter the figure
        style = dict(lw=0, marker=".", ms=1.5) if table == "rtt" else dict(lw=0.8)
        ax.plot(d["t_s"].to_numpy(), d[col].to_numpy() * scale, label=labels.get(k, str(k)),
                **style)
        drawn = True
    drawn |= _draw_real_flows(ax, res, table, col, scale)
    ax.set_ylabel(label)
    if not drawn:
        ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center")


def real_flow_labels(res: RunResult) -> dict[int, str]:
    """"real SRC:PORT→DST:PORT" of each real flow of an emulation run (empty otherwise)."""
    if "real_flows" not in res.table_names():
        return {}
    return {r["flow"]: f"real {r['src']}:{r['src_port']}→{r['dst']}:{r['dst_port']}"
            for r in res.table("real_flows").iter_rows(named=True)}


def _draw_real_flows(ax, res: RunResult, table: str, col: str, scale: float) -> bool:
    """The real flows' lines of the goodput or RTT panel (``real_goodput``, ``real_rtt``),
    after the simulated flows' and in the same style; True if any was drawn."""
    name = f"real_{table}"
    if name not in res.table_names():
        return False
    df = res.table(name)
    labels = real_flow_labels(res)
    for k in sorted(df["flow"].unique().to_list()):
        d = _thin(df.filter(pl.col("flow") == k))
        style = dict(lw=0, marker=".", ms=1.5) if table == "rtt" else dict(lw=0.8)
        ax.plot(d["t_s"].to_numpy(), d[col].to_numpy() * scale,
                label=labels.get(k, f"real flow {k}"), **style)
    return df.height > 0


def _legends(axes) -> None:
    """Legends beside the panels, where they hide no data; long ones in two columns."""
    for ax in axes:
        ax.grid(alpha=0.3)
        if ax.lines and not ax.get_legend():
            n = len(ax.get_legend_handles_labels()[1])
            ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1), fontsize=7, markerscale=4,
                      ncol=1 if n <= 8 else 2, frameon=False)


def _stack(res: RunResult, flow_panels, series: list[UeSeries], height: float):
    """One figure: the flow panels then the radio panels, on one time axis."""
    ratios = [1.0] * len(flow_panels)
    if series:
        # The LOS panel needs a thin row per UE, not a full panel for one or two.
        ratios += [1.0] * (len(RADIO_PANELS) - 1) + [min(1.0, 0.25 + 0.1 * len(series))]
    wide = 2.2 if len(series) > 4 else 0  # room for two-column legends
    fig, axes = plt.subplots(len(ratios), 1, figsize=(10 + wide, height * sum(ratios)),
                             sharex=True, squeeze=False, gridspec_kw={"height_ratios": ratios})
    axes = list(axes[:, 0])
    for ax, panel in zip(axes, flow_panels):
        _draw_flow_panel(ax, res, panel)
    if series:
        _draw_radio(dict(zip(RADIO_PANELS, axes[len(flow_panels):])), series)
        _shade_nlos(axes, series)
    _legends(axes)
    axes[-1].set_xlabel("time (s)")
    fig.tight_layout()
    return fig


def radio_figure(res: RunResult):
    """Goodput and RTT, then SINR, MCS, RLC buffer and NLOS periods per UE (``None``
    without a RAN)."""
    series = radio_series(res)
    if not series:
        return None
    return _stack(res, FLOW_PANELS[:2], series, 2.0)


def overview_figure(res: RunResult):
    """Every panel: goodput, RTT, cwnd, queue and, with a RAN, the radio panels."""
    series = radio_series(res)
    return _stack(res, FLOW_PANELS, series, 2.0 if series else 2.6)


def plot_run(run_dir: Path, out_dir: Path | None = None) -> list[Path]:
    """Writes goodput.png, rtt.png, cwnd.png, queue.png, radio.png (with a RAN),
    cells.png (with several cells) and overview.png; returns the paths."""
    res = RunResult.read(run_dir)
    out_dir = out_dir or run_dir / "plots"
    out_dir.mkdir(parents=True, exist_ok=True)
    figures = [(p[0], _stack(res, [p], [], 3.2)) for p in FLOW_PANELS]
    radio = radio_figure(res)
    if radio is not None:
        figures.append(("radio", radio))
    cells = cells_figure(res)
    if cells is not None:
        figures.append(("cells", cells))
    figures.append(("overview", overview_figure(res)))
    files = []
    for name, fig in figures:
        path = out_dir / f"{name}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        files.append(path)
    return files
