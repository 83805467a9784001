"""A self-contained HTML report of a sweep folder: summary tables, bar charts with 95 %
confidence intervals, (RTT, throughput) ellipses, a few time series, the runs left out and,
when published numbers are given, a "paper vs mmtsim" table.

Self-contained means one file: figures are inlined as base64 PNG (``data:`` URIs), the style
sheet is inline, and nothing refers to a local file or the network, so the report can be
mailed or attached to an issue as it is.

Paper numbers (``paper=``, or ``DIR/paper.json`` when it exists) map
``"<group_id>/<metric>"`` or ``"<group_id>/<entity>/<metric>"`` to the published value; a
value is a number or ``{"value": number, "source": "Fig. 3", ...}``. The nested form
``{"<group_id>": {"<metric>" or "<entity>/<metric>": value}}`` is accepted too. A key without
an entity names a run-level metric (``jain_goodput``, ``goodput_total_mbps``) or a metric
that exactly one entity of the group has; otherwise the row says which entities to choose
from. The relative difference is (mmtsim − paper) / |paper| (undefined when the paper value
is 0); "in CI" says whether the paper value lies inside mmtsim's 95 % interval.
"""

from __future__ import annotations

import base64
import json
import math
import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, ClassVar, Mapping

from .summarize import (FEW_RUNS, MAIN_FLOW_METRICS, MAIN_UE_METRICS, METHOD, RUN_ENTITY,
                        SweepError, SweepSummary, compute, fmt_row, fmt_value, write)


class PaperError(ValueError):
    """The paper numbers are not in the expected form."""


# ---------------------------------------------------------------------------------------
# The pieces of a report, as data; templates/_parts.html.j2 writes them as HTML.


@dataclass(frozen=True)
class Table:
    """A table: header cells and rows of cells (any value; written with ``str``)."""

    header: list[Any]
    rows: list[list[Any]]
    cls: str = ""
    kind: ClassVar[str] = "table"


@dataclass(frozen=True)
class Image:
    """A figure inlined as a base64 PNG."""

    alt: str
    png_base64: str
    kind: ClassVar[str] = "image"


@dataclass(frozen=True)
class Note:
    """A paragraph in the small grey type of remarks."""

    text: str
    kind: ClassVar[str] = "note"


@dataclass(frozen=True)
class Section:
    """A heading (``<h{level}>``) and the tables, figures and notes under it."""

    title: str
    parts: list[Table | Image | Note] = field(default_factory=list)
    level: int = 3
    anchor: str | None = None


def image(fig, alt: str) -> Image:
    """The matplotlib figure as an inlined PNG; closes it."""
    from .figures import png_bytes

    return Image(alt, base64.b64encode(png_bytes(fig)).decode("ascii"))


@cache
def _env():
    import jinja2

    # Every value is escaped (autoescape), whatever the template's file name.
    return jinja2.Environment(loader=jinja2.PackageLoader("mmtsim", "templates"),
                              autoescape=True, undefined=jinja2.StrictUndefined)


# ---------------------------------------------------------------------------------------
# Paper numbers


def load_paper(paper: Mapping | str | os.PathLike | None, sweep_dir: Path) -> dict[str, Any]:
    """The flat {"group_id/[entity/]metric": value} table (empty when there is none)."""
    if paper is None:
        default = sweep_dir / "paper.json"
        if not default.is_file():
            return {}
        paper = default
    if not isinstance(paper, Mapping):
        try:
            paper = json.loads(Path(paper).read_text())
        except OSError as e:
            raise PaperError(f"{paper}: cannot read the paper numbers: {e.strerror}") from None
        except json.JSONDecodeError as e:
            raise PaperError(f"{paper}: not valid JSON: {e}") from None
        if not isinstance(paper, Mapping):
            raise PaperError("paper numbers: expected a JSON object")
    flat: dict[str, Any] = {}
    for k, v in paper.items():
        if isinstance(v, Mapping) and "value" not in v:
            for k2, v2 in v.items():
                flat[f"{k}/{k2}"] = v2
        else:
            flat[str(k)] = v
    return flat


def paper_comparison(summary: SweepSummary, paper: Mapping[str, Any]) -> list[dict]:
    """One row per paper number: key, group_id, entity, metric, paper, source, n, mean,
    ci95_low, ci95_high, rel_diff, in_ci, note."""
    rows_by_key: dict[tuple[str, str], list[dict]] = {}
    for r in summary.metrics.iter_rows(named=True):
        rows_by_key.setdefault((r["group_id"], r["metric"]), []).append(r)
    group_ids = sorted((g for g, _ in summary.groups), key=len, reverse=True)
    out = []
    for key, value in paper.items():
        source = None
        if isinstance(value, Mapping):
            source = value.get("source")
            value = value.get("value")
        row = {"key": key, "group_id": None, "entity": None, "metric": None, "paper": None,
               "source": source, "n": None, "mean": None, "ci95_low": None, "ci95_high": None,
               "rel_diff": None, "in_ci": None, "note": ""}
        out.append(row)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            row["note"] = f"paper value {value!r} is not a number"
            continue
        row["paper"] = float(value)
        gid = next((g for g in group_ids if key.startswith(g + "/")), None)
        if gid is None:
            row["note"] = "no group of this sweep matches the key"
            continue
        row["group_id"] = gid
        rest = key[len(gid) + 1:]
        entity, _, metric = rest.rpartition("/")
        row["metric"] = metric
        cands = rows_by_key.get((gid, metric), [])
        if entity:
            cands = [c for c in cands if c["entity"] == entity]
        else:
            run_level = [c for c in cands if c["entity_kind"] == "run"]
            cands = run_level or cands
        if not cands:
            row["entity"] = entity or None
            row["note"] = "mmtsim has no such metric in this group"
            continue
        if len(cands) > 1:
            row["entity"] = entity or None
            names = ", ".join(f"{c['entity_kind']} {c['entity']}" for c in cands)
            row["note"] = f"ambiguous; name the entity ({names})"
            continue
        m = cands[0]
        row.update(entity=m["entity"] if m["entity_kind"] != "run" else RUN_ENTITY, n=m["n"],
                   mean=m["mean"], ci95_low=m["ci95_low"], ci95_high=m["ci95_high"])
        if row["paper"] != 0 and m["mean"] is not None:
            row["rel_diff"] = (m["mean"] - row["paper"]) / abs(row["paper"])
        if m["ci95_low"] is not None:
            row["in_ci"] = m["ci95_low"] <= row["paper"] <= m["ci95_high"]
    return out


def fmt_rel(x: float | None) -> str:
    """A relative difference as a signed percentage ("+12.3 %"); "-" when undefined."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{100 * x:+.1f} %"


# ---------------------------------------------------------------------------------------
# The report


def _group_blocks(summary: SweepSummary) -> list[dict]:
    """Per group: its id, a line of counts and totals, and its flow and UE tables."""
    look = {(r["group_id"], r["entity_kind"], r["entity"], r["metric"]): r
            for r in summary.metrics.iter_rows(named=True)}
    blocks = []
    ok_count: dict[str, int] = {}
    for r in summary.ok_runs:
        ok_count[r.group_id] = ok_count.get(r.group_id, 0) + 1
    for gid, group in summary.groups:
        left_out = sum(1 for r in summary.runs if r.group_id == gid and r.status != "ok")
        head = f"{ok_count.get(gid, 0)} runs" + (f", {left_out} left out" if left_out else "")
        jain = look.get((gid, "run", RUN_ENTITY, "jain_goodput"))
        total = look.get((gid, "run", RUN_ENTITY, "goodput_total_mbps"))
        if total:
            head += f"; total goodput {fmt_row(total)} Mbit/s"
        if jain:
            head += f"; Jain's index {fmt_row(jain)}"
        tables = []
        for kind, columns, title in (("flow", MAIN_FLOW_METRICS, "flow"),
                                     ("ue", MAIN_UE_METRICS, "UE")):
            ents = list(dict.fromkeys(e for (g, k, e, _m) in look if g == gid and k == kind))
            if ents:
                rows = [[e, *(fmt_row(look.get((gid, kind, e, m))) for m, _ in columns)]
                        for e in ents]
                tables.append(Table([title, *[h for _, h in columns]], rows))
        blocks.append({"id": gid, "head": head, "tables": tables})
    return blocks


def _paper_table(rows: list[dict]) -> Table:
    table = []
    for r in rows:
        ci = ("-" if r["ci95_low"] is None else
              f"[{fmt_value(r['ci95_low'])}, {fmt_value(r['ci95_high'])}]")
        if r["n"] == 1:
            ci = "n=1, no interval"
        elif r["n"] is not None and r["n"] < FEW_RUNS and r["ci95_low"] is not None:
            ci += f" (only n={r['n']})"
        in_ci = "-" if r["in_ci"] is None else ("yes" if r["in_ci"] else "no")
        table.append([r["group_id"] or r["key"], r["entity"] or "-", r["metric"] or "-",
                      fmt_value(r["paper"]), fmt_value(r["mean"]), ci, fmt_rel(r["rel_diff"]),
                      in_ci, r["n"] if r["n"] is not None else "-", r["source"] or "", r["note"]])
    return Table(["group", "entity", "metric", "paper", "mmtsim", "mmtsim 95 % CI",
                  "difference", "in CI", "n", "source", "note"], table)


def _failed_table(summary: SweepSummary) -> Table | None:
    bad = summary.failed_runs
    if not bad:
        return None
    rows = [[r.run_id, r.group_id, r.seed, r.replicate, r.status,
             f"{r.error_type or ''}: {r.error or ''}" if (r.error_type or r.error) else ""]
            for r in bad]
    return Table(["run", "group", "seed", "replicate", "status", "error"], rows, "bad")


def _base(base: Any) -> str:
    """The base scenario: its path, or an inline table shortened to one line."""
    if base is None:
        return "-"
    if isinstance(base, str):
        return base
    text = json.dumps(base, sort_keys=True)
    return text if len(text) <= 200 else text[:197] + "..."


def _ellipses(summary: SweepSummary) -> dict | None:
    from .figures import ellipse_figure

    if not summary.ellipses.height:
        return None
    e0 = summary.ellipses.row(0, named=True)
    cols = ["group_id", "flow", "n", "mean_x", "mean_y", "semi_major", "semi_minor",
            "angle_deg"]
    rows = [[fmt_value(v) if isinstance(v, float) else ("-" if v is None else v) for v in r]
            for r in summary.ellipses.select(cols).iter_rows()]
    return {"sigmas": f"{e0['sigmas']:g}",
            "covariance": ("maximum likelihood, divided by n" if e0["ddof"] == 0
                           else "divided by n − 1"),
            "image": image(ellipse_figure(summary.ellipses, summary.per_run), "ellipses"),
            "table": Table(["group", "flow", "n", "RTT per-ACK mean ms", "goodput Mbit/s",
                            "semi-major", "semi-minor", "angle °"], rows)}


def _all_metrics(summary: SweepSummary) -> Table:
    rows = [[r["group_id"], r["entity_kind"], r["entity"], r["metric"], r["n"],
             fmt_value(r["mean"]), fmt_value(r["std"]),
             ("n=1, no interval" if r["n"] == 1 else "-") if r["ci95_low"] is None
             else f"[{fmt_value(r['ci95_low'])}, {fmt_value(r['ci95_high'])}]"
             + (f" (only n={r['n']})" if r["n"] < FEW_RUNS else "")]
            for r in summary.metrics.iter_rows(named=True)]
    return Table(["group", "kind", "entity", "metric", "n", "mean", "std", "95 % CI"], rows)


def render(summary: SweepSummary, paper: Mapping[str, Any] | None = None,
           timeseries: int = 4, extra: list[Section] = ()) -> str:
    """The report of a computed sweep summary, as HTML text (``templates/report.html.j2``).
    ``extra`` (e.g. a reproduction's findings and figures) goes right after the summary
    tables."""
    from .figures import STANDARD_BARS, bar_figure, representative_runs, timeseries_figure

    sw = summary.sweep
    info = [["mmtsim version", sw.get("mmtsim_version", "-")],
            ["sweep file", sw.get("sweep_file", "-")], ["base scenario", _base(sw.get("base"))],
            ["group keys", ", ".join(summary.group_keys) or "-"],
            ["groups", len(summary.groups)], ["runs used", len(summary.ok_runs)],
            ["runs left out", len(summary.failed_runs)]]
    kinds = set(summary.metrics["entity_kind"].unique().to_list())
    metrics_present = set(summary.metrics["metric"].unique().to_list())
    bars = [image(bar_figure(summary.metrics, metric, kind, per_run=summary.per_run),
                  f"{metric} per group")
            for kind, metric in STANDARD_BARS if kind in kinds and metric in metrics_present]
    series = []
    for r in representative_runs(summary, limit=timeseries):
        fig = timeseries_figure(summary.path / r.path, title=f"{r.group_id}, seed {r.seed}")
        series.append(Section(f"{r.group_id}, seed {r.seed} (run {r.run_id})",
                              [image(fig, f"time series of run {r.run_id}")]))
    return _env().get_template("report.html.j2").render(
        title=f"mmtsim sweep report: {summary.path.name}", info=Table(["", ""], info),
        method=METHOD, groups=_group_blocks(summary),
        paper=_paper_table(paper_comparison(summary, paper)) if paper else None,
        extra=list(extra), bars=bars, ellipses=_ellipses(summary), timeseries=series,
        failed=_failed_table(summary), all_metrics=_all_metrics(summary))


def report(path: str | os.PathLike, out: str | os.PathLike | None = None,
           paper: Mapping | str | os.PathLike | None = None, timeseries: int = 4) -> Path:
    """Writes the HTML report of the sweep folder ``path`` to ``out`` (default
    ``path/report.html``) and the summary tables to ``path/summary/``; returns ``out``.

    ``paper``: published numbers (a dict or a JSON file; default ``path/paper.json`` if it
    exists), see the module doc. ``timeseries``: how many runs' time series to show."""
    path = Path(path)
    summary = compute(path)
    numbers = load_paper(paper, path)
    write(summary)
    out = Path(out) if out is not None else path / "report.html"
    if out.is_dir():
        raise SweepError(f"{out} is a folder; give the report's file name")
    text = render(summary, numbers, timeseries=timeseries)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(text)
    tmp.replace(out)
    return out
