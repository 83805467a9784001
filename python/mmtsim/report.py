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
import html
import json
import math
import os
from pathlib import Path
from typing import Any, Mapping

from .summarize import (FEW_RUNS, MAIN_FLOW_METRICS, MAIN_UE_METRICS, METHOD, RUN_ENTITY,
                        SweepError, SweepSummary, compute, fmt_row, fmt_value, write)

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.85em; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.6em; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
img { max-width: 100%; } .note { color: #666; font-size: 0.85em; }
.bad { color: #a00; } figure { margin: 1em 0; }
"""


class PaperError(ValueError):
    """The paper numbers are not in the expected form."""


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _img(fig, alt: str) -> str:
    from .figures import png_bytes

    data = base64.b64encode(png_bytes(fig)).decode("ascii")
    return f'<figure><img alt="{_e(alt)}" src="data:image/png;base64,{data}"></figure>'


def _html_table(header: list[str], rows: list[list[str]], cls: str = "") -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


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


def _main_tables(summary: SweepSummary) -> str:
    look = {(r["group_id"], r["entity_kind"], r["entity"], r["metric"]): r
            for r in summary.metrics.iter_rows(named=True)}
    parts = []
    ok_count: dict[str, int] = {}
    for r in summary.ok_runs:
        ok_count[r.group_id] = ok_count.get(r.group_id, 0) + 1
    for gid, group in summary.groups:
        left_out = sum(1 for r in summary.runs if r.group_id == gid and r.status != "ok")
        head = f"{ok_count.get(gid, 0)} runs" + (f", {left_out} left out" if left_out else "")
        jain = look.get((gid, "run", RUN_ENTITY, "jain_goodput"))
        total = look.get((gid, "run", RUN_ENTITY, "goodput_total_mbps"))
        if total:
            total_text = fmt_row(total)
            head += f"; total goodput {total_text} Mbit/s"
        if jain:
            head += f"; Jain's index {fmt_row(jain)}"
        parts.append(f"<h3>{_e(gid)}</h3><p>{_e(head)}</p>")
        for kind, columns, title in (("flow", MAIN_FLOW_METRICS, "flow"),
                                     ("ue", MAIN_UE_METRICS, "UE")):
            ents = list(dict.fromkeys(e for (g, k, e, _m) in look if g == gid and k == kind))
            if not ents:
                continue
            rows = []
            for e in ents:
                row = [e]
                for m, _ in columns:
                    v = look.get((gid, kind, e, m))
                    row.append(fmt_row(v))
                rows.append(row)
            parts.append(_html_table([title, *[h for _, h in columns]], rows))
    return "\n".join(parts)


def _paper_section(rows: list[dict]) -> str:
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
    return ("<h2 id=\"paper\">paper vs mmtsim</h2>"
            "<p class=\"note\">relative difference = (mmtsim − paper) / |paper|; "
            "mmtsim: mean and 95 % interval over the runs of the group.</p>"
            + _html_table(["group", "entity", "metric", "paper", "mmtsim", "mmtsim 95 % CI",
                           "difference", "in CI", "n", "source", "note"], table))


def _runs_section(summary: SweepSummary) -> str:
    bad = summary.failed_runs
    if not bad:
        return "<h2 id=\"failed\">runs left out</h2><p>none: every run of the sweep finished.</p>"
    rows = [[r.run_id, r.group_id, r.seed, r.replicate, r.status,
             f"{r.error_type or ''}: {r.error or ''}" if (r.error_type or r.error) else ""]
            for r in bad]
    return ("<h2 id=\"failed\">runs left out</h2>"
            "<p class=\"note\">failed (<code>failed/</code>), not run yet (missing) or "
            "unreadable; excluded from every statistic.</p>"
            + _html_table(["run", "group", "seed", "replicate", "status", "error"], rows, "bad"))


def _base(base: Any) -> str:
    """The base scenario: its path, or an inline table shortened to one line."""
    if base is None:
        return "-"
    if isinstance(base, str):
        return base
    text = json.dumps(base, sort_keys=True)
    return text if len(text) <= 200 else text[:197] + "..."


def render(summary: SweepSummary, paper: Mapping[str, Any] | None = None,
           timeseries: int = 4, extra_html: str = "") -> str:
    """The report of a computed sweep summary, as HTML text. ``extra_html`` (e.g. a
    reproduction's findings and figures) goes right after the summary tables."""
    from .figures import bar_figure, ellipse_figure, representative_runs, timeseries_figure
    from .figures import STANDARD_BARS

    sw = summary.sweep
    n_ok, n_bad = len(summary.ok_runs), len(summary.failed_runs)
    title = f"mmtsim sweep report: {summary.path.name}"
    parts = [f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{_e(title)}</title>"
             f"<style>{_CSS}</style></head><body><h1>{_e(title)}</h1>"]
    info = [["mmtsim version", sw.get("mmtsim_version", "-")],
            ["sweep file", sw.get("sweep_file", "-")], ["base scenario", _base(sw.get("base"))],
            ["group keys", ", ".join(summary.group_keys) or "-"],
            ["groups", len(summary.groups)], ["runs used", n_ok], ["runs left out", n_bad]]
    parts.append(_html_table(["", ""], [[a, b] for a, b in info]))
    parts.append(f"<p class=\"note\">Values are the {_e(METHOD)}. Runs are seeds × "
                 "replicates.</p>")
    parts.append("<h2 id=\"summary\">summary per group</h2>")
    parts.append(_main_tables(summary))
    if paper:
        parts.append(_paper_section(paper_comparison(summary, paper)))
    if extra_html:
        parts.append(extra_html)
    parts.append("<h2 id=\"bars\">metrics per group</h2>")
    kinds = set(summary.metrics["entity_kind"].unique().to_list())
    metrics_present = set(summary.metrics["metric"].unique().to_list())
    for kind, metric in STANDARD_BARS:
        if kind in kinds and metric in metrics_present:
            parts.append(_img(bar_figure(summary.metrics, metric, kind, per_run=summary.per_run),
                              f"{metric} per group"))
    if summary.ellipses.height:
        parts.append("<h2 id=\"ellipses\">RTT and throughput</h2>")
        e0 = summary.ellipses.row(0, named=True)
        parts.append(
            "<p class=\"note\">Each small marker is one run (mean RTT, goodput of a flow); the "
            f"contour is the {e0['sigmas']:g}-σ ellipse of the points' covariance "
            f"({'maximum likelihood, divided by n' if e0['ddof'] == 0 else 'divided by n − 1'}; "
            "seed 002, Fig. 2): its projection on any axis is the mean ± 2 standard deviations. "
            "The RTT axis is reversed: better is top right.</p>")
        parts.append(_img(ellipse_figure(summary.ellipses, summary.per_run), "ellipses"))
        cols = ["group_id", "flow", "n", "mean_x", "mean_y", "semi_major", "semi_minor",
                "angle_deg"]
        rows = [[fmt_value(v) if isinstance(v, float) else ("-" if v is None else v)
                 for v in r] for r in summary.ellipses.select(cols).iter_rows()]
        parts.append(_html_table(["group", "flow", "n", "RTT mean ms", "goodput Mbit/s",
                                  "semi-major", "semi-minor", "angle °"], rows))
    chosen = representative_runs(summary, limit=timeseries)
    if chosen:
        parts.append("<h2 id=\"timeseries\">time series</h2>"
                     "<p class=\"note\">the first run (lowest seed) of each group.</p>")
        for r in chosen:
            fig = timeseries_figure(summary.path / r.path, title=f"{r.group_id}, seed {r.seed}")
            parts.append(f"<h3>{_e(r.group_id)}, seed {_e(r.seed)} (run {_e(r.run_id)})</h3>"
                         + _img(fig, f"time series of run {r.run_id}"))
    parts.append(_runs_section(summary))
    parts.append("<h2 id=\"all\">all metrics</h2><details><summary>every metric of every "
                 "entity (n, mean, std, 95 % CI)</summary>")
    rows = [[r["group_id"], r["entity_kind"], r["entity"], r["metric"], r["n"],
             fmt_value(r["mean"]), fmt_value(r["std"]),
             ("n=1, no interval" if r["n"] == 1 else "-") if r["ci95_low"] is None
             else f"[{fmt_value(r['ci95_low'])}, {fmt_value(r['ci95_high'])}]"
             + (f" (only n={r['n']})" if r["n"] < FEW_RUNS else "")]
            for r in summary.metrics.iter_rows(named=True)]
    parts.append(_html_table(["group", "kind", "entity", "metric", "n", "mean", "std", "95 % CI"],
                             rows))
    parts.append("</details></body></html>")
    return "\n".join(parts)


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
