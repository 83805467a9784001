"""PNG figures of a run folder: goodput, RTT, cwnd and queue occupancy over time."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402

from .results import RunResult  # noqa: E402

# Time series longer than this are thinned for drawing (the data files keep every sample).
MAX_POINTS = 20_000


def _thin(df: pl.DataFrame) -> pl.DataFrame:
    if df.height <= MAX_POINTS:
        return df
    return df.gather_every(df.height // MAX_POINTS + 1)


def plot_run(run_dir: Path, out_dir: Path | None = None) -> list[Path]:
    """Writes goodput.png, rtt.png, cwnd.png, queue.png and overview.png; returns the paths."""
    res = RunResult.read(run_dir)
    out_dir = out_dir or run_dir / "plots"
    out_dir.mkdir(parents=True, exist_ok=True)
    names = {f["id"]: f["name"] for f in res.summary["flows"]}
    links = {l["id"]: f"{l['name']} ({l['direction']})" for l in res.summary["links"]}
    panels = [
        ("goodput", "goodput_mbps", "goodput (Mbit/s)", "flow", names),
        ("rtt", "rtt_ms", "RTT (ms)", "flow", names),
        ("cwnd", "cwnd_bytes", "cwnd (MB)", "flow", names),
        ("queue", "bytes", "queue (kB)", "link", links),
    ]
    scale = {"cwnd_bytes": 1e-6, "bytes": 1e-3}
    files = []
    fig_all, axes = plt.subplots(len(panels), 1, figsize=(9, 2.6 * len(panels)), sharex=True)
    for ax_all, (table, col, label, key, labels) in zip(axes, panels):
        df = res.table(table)
        fig, ax = plt.subplots(figsize=(9, 3.2))
        for target in (ax, ax_all):
            drawn = False
            for k in sorted(df[key].unique().to_list()):
                d = _thin(df.filter(pl.col(key) == k))
                if table == "queue" and d[col].max() == 0:
                    continue  # idle link directions only clutter the figure
                y = d[col].to_numpy() * scale.get(col, 1.0)
                style = dict(lw=0.8) if table != "rtt" else dict(lw=0, marker=".", ms=1.5)
                target.plot(d["t_s"].to_numpy(), y, label=labels.get(k, str(k)), **style)
                drawn = True
            target.set_ylabel(label)
            target.grid(alpha=0.3)
            if drawn:
                target.legend(loc="upper right", fontsize=7, markerscale=4)
            else:
                target.text(0.5, 0.5, "no data", transform=target.transAxes, ha="center")
        ax.set_xlabel("time (s)")
        fig.tight_layout()
        path = out_dir / f"{table}.png"
        fig.savefig(path, dpi=120)
        plt.close(fig)
        files.append(path)
    axes[-1].set_xlabel("time (s)")
    fig_all.tight_layout()
    path = out_dir / "overview.png"
    fig_all.savefig(path, dpi=110)
    plt.close(fig_all)
    files.append(path)
    return files
