"""Figures of runs and sweeps (matplotlib, Agg backend): time series of a run, bar charts of
a metric per group with 95 % confidence intervals, and (RTT, throughput) ellipse plots.

Each ``*_figure`` function returns a matplotlib ``Figure``; ``save`` writes it as PNG and SVG,
``png_bytes`` encodes it for inlining (``report.py``). ``write_figures`` draws the standard
set of a sweep folder into ``DIR/summary/figures/``.

- Time series (``timeseries_figure``): goodput, RTT samples, cwnd of each flow; with a RAN,
  also the RLC buffer (DL and UL), the downlink SINR and the line-of-sight periods of each UE
  (columns of the ``ran`` table; ``results.py`` documents the tables). Long series are thinned
  for drawing, as in ``plot.py``; the data files keep every sample.
- Bars (``bar_figure``): one bar per group and entity, height the mean over the runs, error
  bar the Student-t 95 % interval (none when a group has a single run: the interval is
  undefined), and the per-run values as dots so that the spread is visible.
- Ellipses (``ellipse_figure``): per group and flow, the per-run (mean RTT, goodput) points
  and their 2-σ covariance ellipse (``stats.cov_ellipse``). As in seed 002's Fig. 2 the RTT
  axis is reversed by default (lower RTT to the right, so better is top right).
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Iterable

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402

from . import stats  # noqa: E402
from .plot import _thin  # noqa: E402
from .plot_cells import periods as _los_periods  # noqa: E402
from .results import RunResult  # noqa: E402
from .summarize import ELLIPSE_X, ELLIPSE_Y, FEW_RUNS  # noqa: E402

#: Metrics drawn as bar charts by ``write_figures``: (entity kind, metric).
STANDARD_BARS = (
    ("flow", "goodput_mbps"), ("flow", "rtt_mean_ms"), ("flow", "srtt_time_mean_ms"),
    ("flow", "rtt_p95_ms"),
    ("flow", "retransmits"), ("run", "jain_goodput"),
)
#: Axis labels of the metrics that have a known unit.
LABELS = {
    "goodput_mbps": "goodput (Mbit/s)", "rtt_mean_ms": "RTT, mean of per-ACK samples (ms)",
    "srtt_time_mean_ms": "SRTT, time-weighted mean (ms)",
    "rtt_p95_ms": "RTT p95 (ms)",
    "rtt_min_ms": "min RTT (ms)", "retransmits": "retransmissions", "rtos": "RTOs",
    "jain_goodput": "Jain's index of goodput", "goodput_total_mbps": "total goodput (Mbit/s)",
}


def save(fig, base: str | os.PathLike, formats: Iterable[str] = ("png", "svg"),
         dpi: int = 120) -> list[Path]:
    """Writes ``fig`` to ``base.png`` and ``base.svg`` (or ``formats``); closes it."""
    base = Path(base)
    base.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in formats:
        path = base.with_name(f"{base.name}.{ext}")
        fig.savefig(path, dpi=dpi, format=ext)
        paths.append(path)
    plt.close(fig)
    return paths


def png_bytes(fig, dpi: int = 100) -> bytes:
    """The figure as PNG bytes; closes it."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    plt.close(fig)
    return buf.getvalue()


# ---------------------------------------------------------------------------------------
# Time series of one run


def timeseries_figure(run: RunResult | str | os.PathLike, title: str | None = None,
                      flows: Iterable[int] | None = None):
    """Goodput, RTT, cwnd per flow and, with a RAN, RLC buffer, SINR and LOS per UE."""
    res = run if isinstance(run, RunResult) else RunResult.read(Path(run))
    s = res.summary
    names = {f["id"]: f["name"] for f in s["flows"]}
    keep = set(flows) if flows is not None else set(names)
    has_ran = "ran" in res.table_names() and res.table("ran").height > 0
    ues = {u["id"]: u["name"] for u in s.get("ues") or []}
    panels = [("goodput", "goodput_mbps", "goodput (Mbit/s)", 1.0),
              ("rtt", "rtt_ms", "RTT per ACK (ms)", 1.0),
              ("cwnd", "cwnd_bytes", "cwnd (MB)", 1e-6)]
    n = len(panels) + (3 if has_ran else 0)
    fig, axes = plt.subplots(n, 1, figsize=(9, 2.2 * n), sharex=True, squeeze=False)
    axes = axes[:, 0]
    for ax, (table, col, label, scale) in zip(axes, panels):
        df = res.table(table)
        drawn = False
        for k in sorted(df["flow"].unique().to_list()):
            if k not in keep:
                continue
            d = _thin(df.filter(pl.col("flow") == k))
            style = dict(lw=0, marker=".", ms=1.5) if table == "rtt" else dict(lw=0.8)
            ax.plot(d["t_s"].to_numpy(), d[col].to_numpy() * scale, label=names.get(k, str(k)),
                    **style)
            drawn = True
        ax.set_ylabel(label)
        if drawn and len(keep) <= 12:
            ax.legend(loc="upper right", fontsize=6, markerscale=4, ncol=2)
        elif not drawn:
            ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center")
    if has_ran:
        ran = res.table("ran")
        ax_rlc, ax_sinr, ax_los = axes[len(panels):]
        ue_ids = sorted(ran["ue"].unique().to_list())
        for i, u in enumerate(ue_ids):
            d = _thin(ran.filter(pl.col("ue") == u))
            t = d["t_s"].to_numpy()
            label = ues.get(u, f"ue {u}")
            color = f"C{i % 10}"
            dl, ul = d["rlc_dl_bytes"].to_numpy(), d["rlc_ul_bytes"].to_numpy()
            if dl.max(initial=0) > 0:
                ax_rlc.plot(t, dl * 1e-3, lw=0.8, color=color, label=f"{label} DL")
            if ul.max(initial=0) > 0:
                ax_rlc.plot(t, ul * 1e-3, lw=0.8, ls="--", color=color, label=f"{label} UL")
            ax_sinr.plot(t, d["sinr_dl_db"].to_numpy(), lw=0.8, color=color, label=label)
            full = ran.filter(pl.col("ue") == u)  # LOS periods from every sample
            spans = _los_periods(full["t_s"].to_numpy(), full["los"].to_numpy())
            ax_los.broken_barh(spans, (i - 0.35, 0.7), color=color)
        ax_rlc.set_ylabel("RLC buffer (kB)")
        ax_sinr.set_ylabel("SINR DL (dB)")
        ax_los.set_ylabel("LOS")
        ax_los.set_yticks(range(len(ue_ids)), [ues.get(u, str(u)) for u in ue_ids], fontsize=6)
        ax_los.set_ylim(-0.6, len(ue_ids) - 0.4)
        for ax in (ax_rlc, ax_sinr):
            if ax.lines:
                ax.legend(loc="upper right", fontsize=6, ncol=3)
    for ax in axes:
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(title or f"{s.get('name') or 'run'} (seed {s.get('seed')})", fontsize=10)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------
# Sweep figures


def bar_figure(metrics: pl.DataFrame, metric: str, entity_kind: str = "flow",
               entities: Iterable[str] | None = None, per_run: pl.DataFrame | None = None,
               title: str | None = None):
    """Mean of ``metric`` per group (x) and entity (one bar each), with 95 % CI error bars.

    ``metrics`` is the table of ``summarize``; ``per_run`` (optional) adds the run values."""
    d = metrics.filter((pl.col("metric") == metric) & (pl.col("entity_kind") == entity_kind))
    if entities is not None:
        d = d.filter(pl.col("entity").is_in(list(entities)))
    groups = list(dict.fromkeys(metrics["group_id"].to_list()))
    ents = list(dict.fromkeys(d["entity"].to_list()))
    width_in = max(5.0, 1.1 * len(groups) * max(1, len(ents)) ** 0.5 + 2)
    fig, ax = plt.subplots(figsize=(width_in, 3.6))
    width = 0.8 / max(1, len(ents))
    for j, e in enumerate(ents):
        xs, ys, lo, hi = [], [], [], []
        for i, g in enumerate(groups):
            row = d.filter((pl.col("group_id") == g) & (pl.col("entity") == e))
            if row.height == 0:
                continue
            r = row.row(0, named=True)
            x = i - 0.4 + width * (j + 0.5)
            xs.append(x)
            ys.append(r["mean"])
            # No error bar where the interval is undefined (a single run).
            lo.append(0.0 if r["ci95_low"] is None else r["mean"] - r["ci95_low"])
            hi.append(0.0 if r["ci95_high"] is None else r["ci95_high"] - r["mean"])
            if r["n"] < FEW_RUNS:
                # Few runs: say so on the bar (the interval, if any, is drawn unclipped).
                ax.annotate(f"n={r['n']}", (x, r["mean"]), textcoords="offset points",
                            xytext=(0, 3), ha="center", fontsize=7, color="C3")
            if per_run is not None:
                v = per_run.filter((pl.col("group_id") == g) & (pl.col("entity") == e)
                                   & (pl.col("entity_kind") == entity_kind)
                                   & (pl.col("metric") == metric))["value"].drop_nulls().to_list()
                ax.plot([x] * len(v), v, ls="", marker="o", ms=2.5, color="k", alpha=0.6, zorder=3)
        ax.bar(xs, ys, width * 0.9, yerr=[lo, hi], capsize=3, label=e, color=f"C{j % 10}",
               error_kw=dict(lw=0.9))
    ax.set_xticks(range(len(groups)), groups, rotation=20 if len(groups) > 3 else 0, ha="right"
                  if len(groups) > 3 else "center", fontsize=8)
    ax.set_ylabel(LABELS.get(metric, metric))
    ax.set_title(title or f"{LABELS.get(metric, metric)}: mean and 95 % CI", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    if len(ents) > 1 and len(ents) <= 12:
        ax.legend(fontsize=7, ncol=2)
    if not ents:
        ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center")
    fig.tight_layout()
    return fig


def ellipse_figure(ellipses: pl.DataFrame, per_run: pl.DataFrame | None = None,
                   flows: Iterable[str] | None = None, invert_rtt: bool = True,
                   title: str | None = None):
    """Per group (colour) and flow (marker): the runs' (mean RTT, goodput) points and
    their 2-σ covariance ellipse."""
    e = ellipses if flows is None else ellipses.filter(pl.col("flow").is_in(list(flows)))
    groups = list(dict.fromkeys(e["group_id"].to_list()))
    flow_names = list(dict.fromkeys(e["flow"].to_list()))
    markers = "osD^v<>phX*"
    fig, ax = plt.subplots(figsize=(7, 5))
    for row in e.iter_rows(named=True):
        color = f"C{groups.index(row['group_id']) % 10}"
        marker = markers[flow_names.index(row["flow"]) % len(markers)]
        label = row["group_id"] if len(flow_names) == 1 else f"{row['group_id']} · {row['flow']}"
        if per_run is not None:
            pts = per_run.filter((pl.col("group_id") == row["group_id"])
                                 & (pl.col("entity_kind") == "flow")
                                 & (pl.col("entity") == row["flow"]))
            x = pts.filter(pl.col("metric") == row["x_metric"]).select("run_id", "value")
            y = pts.filter(pl.col("metric") == row["y_metric"]).select("run_id", "value")
            xy = x.join(y, on="run_id", suffix="_y").drop_nulls()
            ax.plot(xy["value"].to_numpy(), xy["value_y"].to_numpy(), ls="", marker=marker,
                    ms=4, color=color, alpha=0.5)
        if row["mean_x"] is None:
            continue
        ax.plot([row["mean_x"]], [row["mean_y"]], marker=marker, ms=8, color=color, mec="k",
                ls="", label=label)
        ell = stats.Ellipse(**{k: row[k] for k in (
            "n", "mean_x", "mean_y", "cov_xx", "cov_xy", "cov_yy", "semi_major", "semi_minor",
            "angle_deg", "sigmas", "ddof")})
        xs, ys = ell.points()
        ax.plot(xs, ys, color=color, lw=1.2)
    xm = e["x_metric"][0] if e.height else ELLIPSE_X
    ym = e["y_metric"][0] if e.height else ELLIPSE_Y
    ax.set_xlabel(LABELS.get(xm, xm) + (" (reversed: lower is right)" if invert_rtt else ""))
    ax.set_ylabel(LABELS.get(ym, ym))
    if invert_rtt:
        ax.invert_xaxis()
    ax.set_title(title or "runs and 2-σ ellipses of (RTT, goodput) per group and flow", fontsize=10)
    ax.grid(alpha=0.3)
    if ax.lines:
        handles = [h for h in ax.get_legend_handles_labels()[0]]
        if handles and len(handles) <= 16:
            ax.legend(fontsize=7)
    else:
        ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center")
    fig.tight_layout()
    return fig



def representative_runs(summary, per_group: int = 1, limit: int = 6) -> list:
    """The runs whose time series a report shows: the first ``per_group`` finished runs
    (lowest seed, then replicate name) of each group, at most ``limit`` in all."""
    chosen = []
    for gid, _ in summary.groups:
        runs = sorted((r for r in summary.ok_runs if r.group_id == gid),
                      key=lambda r: (r.seed if isinstance(r.seed, int) else 0,
                                     "" if r.replicate is None else str(r.replicate)))
        chosen.extend(runs[:per_group])
    return chosen[:limit]


def sweep_figures(summary) -> list[tuple[str, object]]:
    """(name, figure) of the standard figures of a ``summarize.SweepSummary``."""
    figs = []
    kinds = set(summary.metrics["entity_kind"].unique().to_list())
    for kind, metric in STANDARD_BARS:
        if kind in kinds and summary.metrics.filter(pl.col("metric") == metric).height:
            figs.append((f"bar_{metric}", bar_figure(summary.metrics, metric, kind,
                                                     per_run=summary.per_run)))
    if summary.ellipses.height:
        figs.append(("ellipses", ellipse_figure(summary.ellipses, summary.per_run)))
    return figs


def write_figures(path: str | os.PathLike, out_dir: str | os.PathLike | None = None,
                  formats: Iterable[str] = ("png", "svg"), timeseries: int = 6,
                  summary=None) -> list[Path]:
    """Draws the standard figures of the sweep folder ``path`` (bars, ellipses, and the time
    series of up to ``timeseries`` runs, one per group) into ``out_dir``
    (default ``path/summary/figures``); returns the files written. ``summary``: the
    ``summarize.compute(path)`` result, if already at hand."""
    from .summarize import compute

    if summary is None:
        summary = compute(path)
    out = Path(out_dir) if out_dir is not None else Path(path) / "summary" / "figures"
    files: list[Path] = []
    for name, fig in sweep_figures(summary):
        files += save(fig, out / name, formats)
    for r in representative_runs(summary, limit=timeseries):
        fig = timeseries_figure(Path(path) / r.path, title=f"{r.group_id}, seed {r.seed}")
        files += save(fig, out / f"timeseries_{r.run_id}", formats)
    return files
