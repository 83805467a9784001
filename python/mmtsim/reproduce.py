"""``mmtsim reproduce NAME``: the seed papers' studies, end to end — the driver.

Each reproduction is a sweep (:mod:`mmtsim.sweep`) over a packaged scenario
(``mmtsim/reproductions/*.toml``, the paper's stated parameters as defaults), followed by
the summary (:mod:`mmtsim.summarize`), the paper's figures redrawn from our runs, a list of
the paper's findings each checked against our numbers, and the HTML report with every
published number next to ours.

This module runs them: it picks the study by name, writes its sweep file, runs the sweep,
the summary and the study's analysis and time series, and writes the report and
``reproduction.json``. The studies themselves are in :mod:`mmtsim.reproductions`, one
module per study or pair of studies (that package's doc lists them, and
:data:`REPRODUCTIONS` below names each with its paper): seed 000 (X-TCP: ``xtcp-outage``,
``xtcp-random``), seed 002 (Mateo et al.: ``mateo-buffer``, ``mateo-blockage``,
``mateo-handover``, ``mateo-square``), seed 003 (Zhang et al.: ``zhang-train``,
``zhang-lte``, ``zhang-urban``), seed 004 (mmCPTP: ``mmcptp-nr-single``,
``mmcptp-nr-multi``, ``mmcptp-trace``, ``mmcptp-rtt``) and the measured 5G traces
(``measured-5g``). ``mmtsim reproduce --list`` prints them.

The paper's published numbers are in :mod:`mmtsim.reproductions.paper`, the report's
assembly in :mod:`mmtsim.reproductions.report`. The names this module has always offered
(``TABLE_II``, ``recovery_time_s``, ``Finding``, …) are imported here from there.

The sweep records no per-ACK RTT samples (``metrics.rtt = false``; the summary keeps mean
and minimum) to keep 1000-run sweeps fast; the time-series figures come from separate runs
of the first seed with every sample recorded. Nothing of Table I is changed to approach the
paper's numbers: where ours differ, the report and the findings say so.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _toml
from .reproductions import (mateo_blockage, mateo_square, mateo_street, measured_5g, mmcptp_nr,
                             mmcptp_trace, xtcp_outage, xtcp_random, zhang_lte, zhang_train,
                             zhang_urban)
from .reproductions.common import HERE, Finding, Reproduction
from .reproductions.paper import TABLE_II
from .reproductions.report import write_report
from .reproductions.xtcp_outage import (OUTAGE_LOS_BACK_S, OUTAGE_TCP, R_APP_OUTAGE_MBPS,
                                        RECOVERY_SHARE, XTCP_OUTAGE_CCS, recovery_time_s)
from .reproductions.xtcp_random import RANDOM_METRICS

__all__ = [
    "HERE", "OUTAGE_LOS_BACK_S", "OUTAGE_TCP", "RANDOM_METRICS", "RECOVERY_SHARE",
    "REPRODUCTIONS", "R_APP_OUTAGE_MBPS", "TABLE_II", "XTCP_OUTAGE_CCS", "Finding",
    "ReproduceError", "Reproduction", "ReproductionResult", "format_findings", "format_list",
    "recovery_time_s", "reproduce",
]


class ReproduceError(ValueError):
    """Bad arguments to a reproduction."""


def _sweep_toml(d: dict) -> str:
    """The sweep dict as TOML. Its ``set`` tables' key paths ("flows.0.cc") contain dots,
    so the writer quotes them, as the sweep format requires."""
    return _toml.document(d)


#: The studies ``mmtsim reproduce`` knows, by name.
REPRODUCTIONS: dict[str, Reproduction] = {r.name: r for r in (
    # Seed 000 (X-TCP): Table II / Fig. 4-5; Figs. 1-3.
    xtcp_outage.REPRODUCTION, xtcp_random.REPRODUCTION,
    # Seed 002 (Mateo et al.): Figs. 1-2 (mateo_blockage.py); Fig. 3 (mateo_street.py);
    # Figs. 4-6 (mateo_square.py).
    mateo_blockage.BUFFER, mateo_blockage.BLOCKAGE, mateo_street.HANDOVER, mateo_square.SQUARE,
    # Seed 003 (Zhang et al.): the train (zhang_train.py), its LTE twin and Table 1
    # (zhang_lte.py), the urban cell (zhang_urban.py).
    zhang_train.REPRODUCTION, zhang_lte.REPRODUCTION, zhang_urban.REPRODUCTION,
    # Seed 004 (mmCPTP): over LTE at 2 GHz, Figs. 9-10 and Table III (mmcptp_nr.py);
    # trace-driven, Figs. 12-13 and Table IV (mmcptp_trace.py).
    mmcptp_nr.SINGLE, mmcptp_nr.MULTI, mmcptp_trace.TRACE_REPRODUCTION,
    mmcptp_trace.RTT_REPRODUCTION,
    # Measured 5G traces (5Gophers 1.0) as rates and through the RAN (measured_5g.py).
    measured_5g.REPRODUCTION,
)}

# ---------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------


@dataclass
class ReproductionResult:
    name: str
    out: Path
    report: Path
    findings: list[Finding]
    numbers: dict
    sweep: Any


def reproduce(name: str, out: str | os.PathLike | None = None, runs: int | None = None,
              workers: int | None = None, dask: str | None = None,
              duration: str | None = None, progress: bool = True,
              timeseries: bool = True) -> ReproductionResult:
    """Runs reproduction ``name`` into ``out`` (default ``out/<name>``); returns its findings.

    ``runs``: seeds per group (default: the paper's 200 for ``xtcp-outage``, 10 for
    ``xtcp-random``). ``duration``: shorten every run (for quick checks; the paper's
    findings concern the full runs). Resumable like any sweep."""
    from .summarize import compute, write
    from .sweep import _write_json, sweep

    if name not in REPRODUCTIONS:
        raise ReproduceError(f"unknown reproduction {name!r}; known: "
                             + ", ".join(REPRODUCTIONS))
    rep = REPRODUCTIONS[name]
    if runs is None:
        runs = rep.default_runs
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise ReproduceError(f"runs = {runs!r}: expected a positive integer")
    out = Path(out) if out is not None else Path("out") / name
    text = _sweep_toml(rep.sweep(runs, duration))
    # The sweep file lives beside the folder while the sweep runs (the sweep refuses a
    # non-empty folder that is not yet a sweep), then is kept inside it for the record.
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=f".{out.name}.") as tmp:
        sweep_file = Path(tmp) / f"{name}.sweep.toml"
        sweep_file.write_text(text)
        res = sweep(sweep_file, out, workers=workers, dask=dask, progress=progress)
    (out / "sweep.toml").write_text(text)
    # Provenance names what a reader can find again: the sweep file kept in the folder and
    # the packaged scenario, not the temporary file the sweep ran from.
    manifest = json.loads((out / "sweep.json").read_text())
    manifest["sweep_file"] = "sweep.toml"
    manifest["base"] = f"mmtsim/reproductions/{rep.scenario}"
    _write_json(out / "sweep.json", manifest)
    summary = compute(out)
    write(summary)
    findings, sections, numbers = rep.analyse(out, summary)
    if timeseries:
        sections = sections + rep.timeseries(out, duration)
    report_path = write_report(out, summary, rep, findings, sections)
    (out / "reproduction.json").write_text(json.dumps({
        "name": name, "runs": runs, "duration": duration,
        "findings": [f.__dict__ for f in findings], "numbers": numbers,
        "finished": res.n_finished, "skipped": res.n_skipped, "failed": res.n_failed,
    }, indent=2, default=str) + "\n")
    return ReproductionResult(name, out, report_path, findings, numbers, res)


def _runs(n: int) -> str:
    return f"{n:>4} run" + ("s" if n != 1 else " ")


def format_list() -> str:
    """One line per reproduction: its name, default runs per group and title (the paper,
    its figures and tables)."""
    w = max(len(n) for n in REPRODUCTIONS)
    return "\n".join(f"{n.ljust(w)}  {_runs(r.default_runs)}  {r.title}"
                     for n, r in REPRODUCTIONS.items())


def format_findings(r: ReproductionResult) -> str:
    lines = [f"{r.name}: {r.sweep}", ""]
    w = max([len(f.statement) for f in r.findings] + [7])
    for f in r.findings:
        mark = {True: "yes", False: "NO ", None: " - "}[f.holds]
        lines.append(f"[{mark}] {f.statement.ljust(w)}  paper: {f.paper}")
        lines.append(f"      {'':{w}}  mmtsim: {f.ours}")
    lines.append("")
    lines.append(f"report: {r.report}")
    return "\n".join(lines)
