"""Aggregation of a sweep folder: mean and 95 % confidence interval of every summary metric
per group, Jain's fairness index, and the 2-σ (RTT, throughput) ellipses.

Input: the folder ``mmtsim sweep`` writes (``sweep.json``, ``runs/<run_id>/``,
``failed/<run_id>.json``; the layout is described in the module doc of ``sweep.py``,
"Run identity and the output folder"). ``sweep.json`` lists the runs of the sweep; a listed
run counts when its folder ``runs/<run_id>/`` holds ``params.json`` and ``summary.json``.
Runs listed in ``failed/`` and runs not finished yet ("missing") are listed in the output
and left out of every statistic. Run folders that ``sweep.json`` does not list (left over from an earlier
sweep file written into the same folder) are ignored. A ``sweep.json`` without a ``runs``
list falls back to the ``params.json`` files found under ``runs/``.

Per run, the metrics are read from ``summary.json`` (see ``results.py`` and the README,
"Outputs"); an entity is one of

- ``flow``: every numeric field of ``summary["flows"][i]`` (except ``id``), keyed by the flow
  name;
- ``ue`` / ``cell``: every numeric field of ``summary["ues"][i]`` / ``summary["cells"][i]``;
  nested per-direction values become ``decoded_mbps.dl``, ``decoded_mbps.ul``, …;
- ``link``: every numeric field of ``summary["links"][i]``, keyed ``<name>/<direction>``;
- ``run`` (entity ``all``): ``jain_goodput`` (Jain's index of the goodputs of all the flows
  of the run, whatever bottleneck they share — a sweep that wants fairness per bottleneck
  puts one bottleneck in its scenario), ``goodput_total_mbps`` (sum over flows),
  ``events`` and ``wall_seconds`` (the latter depends on the machine and its load).

Booleans, strings and lists (``rto_times_s``) are not metrics. A value that is ``null`` in a
run (an RTT of a flow that never got an ACK, the completion time of a bulk flow) does not
count: ``n`` is the number of runs that have the value, and a metric no run has is left out.

Per group (``group_id``), each metric gets n, mean, sample standard deviation and the
Student-t 95 % interval (``stats.mean_ci``; n = 1: std and interval null). Per group and
flow, the ellipse of the per-run points (x = ``rtt_mean_ms``, y = ``goodput_mbps``) is the
2-σ contour of their maximum-likelihood covariance (``stats.cov_ellipse``; seed 002, Fig. 2).

Outputs, in ``DIR/summary/`` (each file written whole, then renamed into place):

- ``metrics.parquet`` / ``metrics.csv``: group_id, <group columns>, entity_kind, entity,
  metric, n, mean, std, ci95_low, ci95_high;
- ``per_run.parquet``: group_id, <group columns>, run_id, seed, replicate, entity_kind,
  entity, metric, value — the values the statistics are made of;
- ``ellipses.parquet`` / ``ellipses.csv``: group_id, <group columns>, flow, x_metric,
  y_metric, n, mean_x, mean_y, cov_xx, cov_xy, cov_yy, semi_major, semi_minor, angle_deg,
  sigmas, ddof;
- ``runs.csv``: run_id, group_id, seed, replicate, status (ok / failed / missing /
  unreadable), error_type, error.

A group column is named after its grid axis, or ``group.<axis>`` when the axis name is one
of the fixed column names above. Its type is the axis values' type when they all share one
(integer, float, boolean, string), otherwise string.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from . import stats

#: Entity kinds in the order tables list them.
ENTITY_KINDS = ("run", "flow", "ue", "cell", "link")
#: The entity of the run-level metrics.
RUN_ENTITY = "all"
#: The ellipse axes (seed 002, Fig. 2: throughput against RTT).
ELLIPSE_X, ELLIPSE_Y = "rtt_mean_ms", "goodput_mbps"
_RESERVED = {
    "group_id", "entity_kind", "entity", "metric", "n", "mean", "std", "ci95_low", "ci95_high",
    "run_id", "seed", "replicate", "value", "flow", "x_metric", "y_metric", "mean_x", "mean_y",
    "cov_xx", "cov_xy", "cov_yy", "semi_major", "semi_minor", "angle_deg", "sigmas", "ddof",
    "status", "error_type", "error",
}


class SweepError(ValueError):
    """The folder is not a sweep folder, or has nothing to summarize."""


@dataclass
class RunRecord:
    """One run listed by ``sweep.json``."""

    run_id: str
    group_id: str
    group: dict
    seed: int | None
    replicate: str | None  # the replicate's name (sweep.py), None without replicates
    status: str  # ok, failed, missing, unreadable
    error_type: str | None = None
    error: str | None = None
    summary: dict | None = field(default=None, repr=False)

    @property
    def path(self) -> str:
        return f"runs/{self.run_id}"


@dataclass
class SweepSummary:
    """Everything ``summarize`` computes; the frames are polars DataFrames."""

    path: Path
    sweep: dict
    group_keys: list[str]
    group_columns: dict[str, str]  # axis -> column name
    groups: list[tuple[str, dict]]  # (group_id, group) in sweep order
    runs: list[RunRecord]
    metrics: Any
    per_run: Any
    ellipses: Any
    ignored_run_dirs: list[str]

    @property
    def ok_runs(self) -> list[RunRecord]:
        return [r for r in self.runs if r.status == "ok"]

    @property
    def failed_runs(self) -> list[RunRecord]:
        """Runs that did not contribute: failed, unreadable or not (yet) run."""
        return [r for r in self.runs if r.status != "ok"]


# ---------------------------------------------------------------------------------------
# Reading the sweep folder


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text())
    except OSError as e:
        raise SweepError(f"{path}: cannot read {what}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise SweepError(f"{path}: {what} is not valid JSON: {e}") from None


def _group_label(group: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in group.items())


def _record(entry: Any, where: str) -> RunRecord:
    if not isinstance(entry, dict) or not isinstance(entry.get("run_id"), str) \
            or not entry["run_id"]:
        raise SweepError(f"{where}: each run needs a \"run_id\" string, got {entry!r:.200}")
    group = entry.get("group") or {}
    if not isinstance(group, dict):
        raise SweepError(f"{where}: run {entry['run_id']}: \"group\" must be an object")
    gid = entry.get("group_id")
    if not isinstance(gid, str):
        gid = _group_label(group)
    return RunRecord(entry["run_id"], gid, group, entry.get("seed"), entry.get("replicate"),
                     "missing")


def _check_folder(path: Path) -> None:
    if not path.exists():
        raise SweepError(f"{path}: no such folder")
    if not path.is_dir():
        raise SweepError(f"{path} is not a folder; give the folder `mmtsim sweep` wrote")
    if (path / "sweep.json").is_file():
        return
    if not any(path.iterdir()):
        raise SweepError(f"{path} is empty: not a sweep folder (no sweep.json)")
    if (path / "summary.json").exists():
        raise SweepError(f"{path} is a run folder, not a sweep folder (no sweep.json); "
                         "summarize reads the folder `mmtsim sweep` writes")
    raise SweepError(f"{path} is not a sweep folder (no sweep.json)")


def load_runs(path: str | os.PathLike) -> tuple[dict, list[RunRecord], list[str]]:
    """(sweep.json, the runs it lists with their status and summary, ignored run folders)."""
    path = Path(path)
    _check_folder(path)
    sweep = _read_json(path / "sweep.json", "sweep.json")
    if not isinstance(sweep, dict):
        raise SweepError(f"{path / 'sweep.json'}: expected a JSON object")
    runs_dir, failed_dir = path / "runs", path / "failed"
    if "runs" in sweep:
        if not isinstance(sweep["runs"], list):
            raise SweepError(f"{path / 'sweep.json'}: \"runs\" must be a list")
        records = [_record(e, str(path / "sweep.json")) for e in sweep["runs"]]
    else:
        found = sorted(runs_dir.glob("*/params.json")) if runs_dir.is_dir() else []
        found += sorted(failed_dir.glob("*.json")) if failed_dir.is_dir() else []
        records = [_record(_read_json(p, "run parameters"), str(p)) for p in found]
    seen: set[str] = set()
    unique = []
    for r in records:
        if r.run_id not in seen:  # a run listed twice counts once
            seen.add(r.run_id)
            unique.append(r)
    records = unique
    if not records:
        raise SweepError(f"{path}: sweep.json lists no runs")
    for r in records:
        run_dir = runs_dir / r.run_id
        if (run_dir / "params.json").is_file():
            try:
                r.summary = json.loads((run_dir / "summary.json").read_text())
                if not isinstance(r.summary, dict):
                    raise ValueError("summary.json is not a JSON object")
                r.status = "ok"
            except (OSError, ValueError) as e:
                r.status, r.error_type, r.error = "unreadable", type(e).__name__, str(e)
            continue
        failed = failed_dir / f"{r.run_id}.json"
        if failed.is_file():
            r.status = "failed"
            try:
                info = json.loads(failed.read_text())
                r.error_type, r.error = info.get("error_type"), info.get("error")
            except (OSError, ValueError) as e:
                r.error_type, r.error = "unreadable failure record", str(e)
    ignored = []
    if runs_dir.is_dir():
        ignored = sorted(p.name for p in runs_dir.iterdir()
                         if p.is_dir() and not p.name.startswith(".") and p.name not in seen)
    return sweep, records, ignored


# ---------------------------------------------------------------------------------------
# Metrics of one run


def _numeric(v: Any) -> bool:
    return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))


def _fields(obj: dict, prefix: str = "") -> Iterator[tuple[str, float | None]]:
    """Numeric fields of a summary entry (nested objects flattened with dots)."""
    for k, v in obj.items():
        if not prefix and k == "id":
            continue
        if isinstance(v, dict):
            yield from _fields(v, f"{prefix}{k}.")
        elif _numeric(v):
            yield f"{prefix}{k}", None if v is None else float(v)


def run_metrics(summary: dict) -> list[tuple[str, str, str, float | None]]:
    """(entity_kind, entity, metric, value) of every metric of one run's summary."""
    out: list[tuple[str, str, str, float | None]] = []
    flows = summary.get("flows") or []
    goodputs = [f.get("goodput_mbps") for f in flows]
    present = [g for g in goodputs if g is not None]
    out.append(("run", RUN_ENTITY, "jain_goodput", stats.jain_index(present)))
    out.append(("run", RUN_ENTITY, "goodput_total_mbps", math.fsum(present) if present else None))
    for k in ("events", "wall_seconds"):
        if _numeric(summary.get(k)) and summary.get(k) is not None:
            out.append(("run", RUN_ENTITY, k, float(summary[k])))
    for kind, key in (("flow", "flows"), ("ue", "ues"), ("cell", "cells"), ("link", "links")):
        names: set[str] = set()
        for i, entry in enumerate(summary.get(key) or []):
            if not isinstance(entry, dict):
                continue
            ident = entry.get("id", i)
            name = str(entry.get("name") or f"{kind}{ident}")
            if kind == "link" and entry.get("direction"):
                name = f"{name}/{entry['direction']}"
            if name in names:  # two entities of one name: keep them apart
                name = f"{name}#{ident}"
            names.add(name)
            out.extend((kind, name, m, v) for m, v in _fields(entry))
    return out


# ---------------------------------------------------------------------------------------
# Aggregation


def _replicate(v: Any) -> str | None:
    return None if v is None else str(v)


def _group_columns(keys: list[str]) -> dict[str, str]:
    return {k: (f"group.{k}" if k in _RESERVED else k) for k in keys}


def _group_dtype(values: list[Any]):
    import polars as pl

    vals = [v for v in values if v is not None]
    if vals and all(isinstance(v, bool) for v in vals):
        return pl.Boolean, vals
    if vals and all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        return pl.Int64, vals
    if vals and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        return pl.Float64, vals
    return pl.String, vals


def _group_frame(groups: list[tuple[str, dict]], keys: list[str], cols: dict[str, str]):
    """One row per group: group_id and the typed group columns."""
    import polars as pl

    data: dict[str, Any] = {"group_id": [g for g, _ in groups]}
    schema: dict[str, Any] = {"group_id": pl.String}
    for k in keys:
        values = [grp.get(k) for _, grp in groups]
        dtype, _ = _group_dtype(values)
        if dtype == pl.String:
            values = [None if v is None else v if isinstance(v, str) else json.dumps(v)
                      for v in values]
        elif dtype == pl.Float64:
            values = [None if v is None else float(v) for v in values]
        data[cols[k]] = values
        schema[cols[k]] = dtype
    return pl.DataFrame(data, schema=schema)


def compute(path: str | os.PathLike, ellipse_ddof: int = 0) -> SweepSummary:
    """Reads a sweep folder and computes every table (writes nothing)."""
    import polars as pl

    path = Path(path)
    sweep, runs, ignored = load_runs(path)
    ok = [r for r in runs if r.status == "ok"]
    if not ok:
        counts = {s: sum(r.status == s for r in runs) for s in ("failed", "missing", "unreadable")}
        detail = ", ".join(f"{v} {k}" for k, v in counts.items() if v)
        raise SweepError(f"{path}: no finished runs to summarize ({detail}; see {path / 'failed'})")
    keys = list(sweep.get("group_keys") or [])
    for r in runs:
        keys.extend(k for k in r.group if k not in keys)
    cols = _group_columns(keys)
    groups: list[tuple[str, dict]] = []
    for r in runs:
        if r.group_id not in {g for g, _ in groups}:
            groups.append((r.group_id, r.group))
    gframe = _group_frame(groups, keys, cols)
    group_order = {g: i for i, (g, _) in enumerate(groups)}

    # Per-run values, in a stable order: group (sweep order), then run order.
    pr: dict[str, list] = {k: [] for k in ("group_id", "run_id", "seed", "replicate",
                                            "entity_kind", "entity", "metric", "value")}
    for r in sorted(ok, key=lambda r: group_order[r.group_id]):
        for kind, entity, metric, value in run_metrics(r.summary):
            pr["group_id"].append(r.group_id)
            pr["run_id"].append(r.run_id)
            pr["seed"].append(r.seed if isinstance(r.seed, int) and r.seed >= 0 else None)
            pr["replicate"].append(_replicate(r.replicate))
            pr["entity_kind"].append(kind)
            pr["entity"].append(entity)
            pr["metric"].append(metric)
            pr["value"].append(value)
    per_run = pl.DataFrame(pr, schema={
        "group_id": pl.String, "run_id": pl.String, "seed": pl.UInt64, "replicate": pl.String,
        "entity_kind": pl.String, "entity": pl.String, "metric": pl.String, "value": pl.Float64,
    })

    # Aggregate in Python (a sweep has thousands of values, not millions) so that the
    # arithmetic is exactly that of stats.mean_ci.
    buckets: dict[tuple[str, str, str, str], list] = {}
    for g, kind, entity, metric, value in zip(pr["group_id"], pr["entity_kind"], pr["entity"],
                                              pr["metric"], pr["value"]):
        buckets.setdefault((g, kind, entity, metric), []).append(value)
    first_entity: dict[tuple[str, str], int] = {}
    first_metric: dict[str, int] = {}
    for _, kind, entity, metric in buckets:
        first_entity.setdefault((kind, entity), len(first_entity))
        first_metric.setdefault(metric, len(first_metric))
    order = sorted(buckets, key=lambda b: (group_order[b[0]], ENTITY_KINDS.index(b[1]),
                                           first_entity[(b[1], b[2])], first_metric[b[3]]))
    rows: dict[str, list] = {k: [] for k in ("group_id", "entity_kind", "entity", "metric", "n",
                                              "mean", "std", "ci95_low", "ci95_high")}
    for key in order:
        ci = stats.mean_ci(buckets[key])
        if ci.n == 0:
            continue
        for col, v in zip(("group_id", "entity_kind", "entity", "metric", "n", "mean", "std",
                           "ci95_low", "ci95_high"), (*key, ci.n, ci.mean, ci.std, ci.ci_low,
                                                       ci.ci_high)):
            rows[col].append(v)
    metrics = pl.DataFrame(rows, schema={
        "group_id": pl.String, "entity_kind": pl.String, "entity": pl.String, "metric": pl.String,
        "n": pl.Int64, "mean": pl.Float64, "std": pl.Float64, "ci95_low": pl.Float64,
        "ci95_high": pl.Float64,
    })

    # Ellipses: per group and flow, the per-run (RTT, goodput) points.
    ell: dict[str, list] = {k: [] for k in ("group_id", "flow", "x_metric", "y_metric", "n",
                                             "mean_x", "mean_y", "cov_xx", "cov_xy", "cov_yy",
                                             "semi_major", "semi_minor", "angle_deg", "sigmas",
                                             "ddof")}
    for (g, kind, entity, metric) in order:
        if kind != "flow" or metric != ELLIPSE_X or (g, kind, entity, ELLIPSE_Y) not in buckets:
            continue
        e = stats.cov_ellipse(buckets[(g, kind, entity, ELLIPSE_X)],
                              buckets[(g, kind, entity, ELLIPSE_Y)], ddof=ellipse_ddof)
        for col, v in (("group_id", g), ("flow", entity), ("x_metric", ELLIPSE_X),
                       ("y_metric", ELLIPSE_Y), ("n", e.n), ("mean_x", e.mean_x),
                       ("mean_y", e.mean_y), ("cov_xx", e.cov_xx), ("cov_xy", e.cov_xy),
                       ("cov_yy", e.cov_yy), ("semi_major", e.semi_major),
                       ("semi_minor", e.semi_minor), ("angle_deg", e.angle_deg),
                       ("sigmas", e.sigmas), ("ddof", e.ddof)):
            ell[col].append(v)
    f64 = pl.Float64
    ellipses = pl.DataFrame(ell, schema={
        "group_id": pl.String, "flow": pl.String, "x_metric": pl.String, "y_metric": pl.String,
        "n": pl.Int64, "mean_x": f64, "mean_y": f64, "cov_xx": f64, "cov_xy": f64, "cov_yy": f64,
        "semi_major": f64, "semi_minor": f64, "angle_deg": f64, "sigmas": f64, "ddof": pl.Int64,
    })

    def with_groups(df):
        # group_id, group columns, then the rest, in df's row order.
        joined = df.with_row_index("_row").join(gframe, on="group_id", how="left").sort("_row")
        return joined.select(["group_id", *cols.values(),
                              *[c for c in df.columns if c != "group_id"]])

    return SweepSummary(path, sweep, keys, cols, groups, runs, with_groups(metrics),
                        with_groups(per_run), with_groups(ellipses), ignored)


# ---------------------------------------------------------------------------------------
# Writing and printing


def write(summary: SweepSummary) -> Path:
    """Writes the tables into ``DIR/summary/``; returns that folder."""
    import polars as pl

    out = summary.path / "summary"
    out.mkdir(exist_ok=True)
    runs = pl.DataFrame(
        {
            "run_id": [r.run_id for r in summary.runs],
            "group_id": [r.group_id for r in summary.runs],
            "seed": [r.seed if isinstance(r.seed, int) and r.seed >= 0 else None
                     for r in summary.runs],
            "replicate": [_replicate(r.replicate) for r in summary.runs],
            "status": [r.status for r in summary.runs],
            "error_type": [r.error_type for r in summary.runs],
            "error": [r.error for r in summary.runs],
        },
        schema={"run_id": pl.String, "group_id": pl.String, "seed": pl.UInt64,
                "replicate": pl.String, "status": pl.String, "error_type": pl.String,
                "error": pl.String},
    )
    files = [
        (summary.metrics, "metrics.parquet"), (summary.metrics, "metrics.csv"),
        (summary.per_run, "per_run.parquet"),
        (summary.ellipses, "ellipses.parquet"), (summary.ellipses, "ellipses.csv"),
        (runs, "runs.csv"),
    ]
    for df, name in files:
        tmp = out / f".{name}.tmp"
        if name.endswith(".parquet"):
            df.write_parquet(tmp)
        else:
            df.write_csv(tmp)
        tmp.replace(out / name)
    return out


def summarize(path: str | os.PathLike, write_files: bool = True):
    """Summarizes the sweep folder ``path``: returns the metrics table (polars DataFrame;
    columns in the module doc) and, unless ``write_files=False``, writes ``DIR/summary/``.

    Raises ``SweepError`` (a ``ValueError``) when ``path`` is not a sweep folder or has no
    finished run."""
    s = compute(path)
    if write_files:
        write(s)
    return s.metrics


#: Below this many runs an interval is shown with a warning beside it: with n − 1 < 4
#: degrees of freedom t_{0.975} exceeds 2.78 (12.7 at n = 2), so the interval is wide, and it
#: rests wholly on the normality of the per-run values, which so few runs cannot check.
FEW_RUNS = 5


def fmt_value(mean: float | None, lo: float | None = None, hi: float | None = None,
              n: int | None = None) -> str:
    """"12.3 ± 0.4" (the half-width of the interval), "-" when absent. With the number of
    runs ``n``: "12.3 (n=1, no interval)" for one run, "12.3 ± 8.1 (only n=3)" below
    ``FEW_RUNS``. Nothing is clipped: an interval reaching below zero is shown as computed."""
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "-"

    def f(x: float) -> str:
        a = abs(x)
        if a >= 1000:
            return f"{x:.0f}"
        if a >= 100:
            return f"{x:.1f}"
        if a >= 1 or a == 0:
            return f"{x:.2f}"
        return f"{x:.3g}"

    if n == 1:
        return f"{f(mean)} (n=1, no interval)"
    if lo is None or hi is None:
        return f(mean)
    text = f"{f(mean)} ± {f((hi - lo) / 2)}"
    if n is not None and n < FEW_RUNS:
        text += f" (only n={n})"
    return text


def fmt_row(v: dict | None) -> str:
    """:func:`fmt_value` of a row of the metrics table (mean, interval, n), "-" if absent."""
    if not v:
        return "-"
    return fmt_value(v["mean"], v["ci95_low"], v["ci95_high"], v["n"])


#: The sentence every table of means carries.
METHOD = ("mean ± half-width of the 95 % confidence interval over the runs of each group: "
          "Student t, x̄ ± t(0.975, n − 1) · s / √n with the sample standard deviation s "
          "(n − 1 in its denominator); \"n=1, no interval\": a single run; \"only n=k\": "
          f"fewer than {FEW_RUNS} runs, so the interval is wide and rests on the assumption "
          "that the per-run values are normal; nothing is clipped")


#: Columns of the printed tables: (entity kind, metric, header).
MAIN_FLOW_METRICS = (
    ("goodput_mbps", "goodput Mbit/s"), ("rtt_mean_ms", "RTT per-ACK mean ms"),
    ("srtt_time_mean_ms", "SRTT time mean ms"),
    ("rtt_p95_ms", "RTT p95 ms"), ("retransmits", "retx"), ("rtos", "RTOs"),
)
MAIN_UE_METRICS = (
    ("decoded_mbps.dl", "DL Mbit/s"), ("decoded_mbps.ul", "UL Mbit/s"),
    ("sinr_dl_mean_db", "SINR DL dB"), ("los_fraction", "LOS fraction"),
)


def _lookup(summary: SweepSummary) -> dict[tuple[str, str, str, str], dict]:
    return {(r["group_id"], r["entity_kind"], r["entity"], r["metric"]): r
            for r in summary.metrics.iter_rows(named=True)}


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in
                      enumerate(zip(r, widths))).rstrip() for r in rows]


def format_summary(summary: SweepSummary) -> str:
    """A readable text table of the main metrics per group, and the runs left out."""
    look = _lookup(summary)
    lines: list[str] = []
    ok_per_group: dict[str, int] = {}
    for r in summary.ok_runs:
        ok_per_group[r.group_id] = ok_per_group.get(r.group_id, 0) + 1
    for gid, _ in summary.groups:
        left_out = sum(1 for r in summary.runs if r.group_id == gid and r.status != "ok")
        head = f"{gid}: {ok_per_group.get(gid, 0)} runs"
        if left_out:
            head += f" ({left_out} left out)"
        jain = look.get((gid, "run", RUN_ENTITY, "jain_goodput"))
        if jain:
            head += f", Jain index {fmt_row(jain)}"
        lines.append(head)
        for kind, columns, title in (("flow", MAIN_FLOW_METRICS, "flow"),
                                     ("ue", MAIN_UE_METRICS, "UE")):
            entities = []
            for (g, k, e, _m) in look:
                if g == gid and k == kind and e not in entities:
                    entities.append(e)
            if not entities:
                continue
            rows = [[f"  {title}", *[h for _, h in columns]]]
            for e in entities:
                row = [f"  {e}"]
                for m, _ in columns:
                    v = look.get((gid, kind, e, m))
                    row.append(fmt_row(v))
                rows.append(row)
            lines.extend(_table(rows))
        lines.append("")
    lines.append(METHOD)
    bad = summary.failed_runs
    if bad:
        lines.append(f"{len(bad)} runs left out:")
        for r in bad:
            why = f": {r.error_type}: {r.error}" if r.error_type or r.error else ""
            lines.append(f"  {r.status} {r.run_id} ({r.group_id}, seed {r.seed}){why}")
    if summary.ignored_run_dirs:
        lines.append(f"{len(summary.ignored_run_dirs)} run folders not listed in sweep.json "
                     "were ignored")
    return "\n".join(lines)
