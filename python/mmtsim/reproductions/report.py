"""A finished reproduction's HTML report (``DIR/report.html``).

The sweep's summary report (:func:`mmtsim.report.render`, with the paper's values next to
ours where the study has them) with, on top, the study's title, the paper's findings
checked against our numbers, the known modelling differences, and the study's own
sections (tables and figures of its analysis and time series).
"""

from __future__ import annotations

from pathlib import Path

from ..report import Note, Section, Table, render
from .common import Finding, Reproduction


def write_report(out: Path, summary, rep: Reproduction, findings: list[Finding],
                 sections: list[Section]) -> Path:
    """Writes ``out/report.html`` (whole, then renamed into place); returns its path."""
    find_rows = [[f.statement, f.paper, f.ours,
                  {True: "yes", False: "NO", None: "-"}[f.holds]] for f in findings]
    checked = [Table(["finding", "paper", "mmtsim", "holds"], find_rows)]
    if rep.notes:
        checked.append(Note(f"Known modelling differences: {rep.notes}"))
    extra = [Section(rep.title, level=2, anchor="reproduction"),
             Section("the paper's findings, checked", checked), *sections]
    # The sweep keeps no per-ACK RTT samples: the time series are the separate runs above.
    html = render(summary, rep.paper or None, timeseries=0, extra=extra)
    report_path = out / "report.html"
    tmp = out / ".report.html.tmp"
    tmp.write_text(html)
    tmp.replace(report_path)
    return report_path
