"""What every reproduction is made of, and the helpers the studies' analyses share.

- :class:`Reproduction`: one study, as the driver (:mod:`mmtsim.reproduce`) runs it: its
  sweep design, its analysis of the finished sweep, its time-series figures, the paper's
  values for the report and the known modelling differences;
- :class:`Finding`: one of the paper's statements with our numbers and whether it holds;
- ``_common_set``: the settings every study's sweep applies (no per-ACK RTT samples, an
  optional shorter duration);
- ``_per_run``, ``_values``, ``_ci``, ``_fmt``: reading the per-run table of the summary,
  mean and 95 % interval, formatting.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..report import Section

#: The folder of the packaged scenario files (``mmtsim/reproductions/``).
HERE = Path(__file__).resolve().parent


@dataclass
class Finding:
    """One of the paper's statements, with our numbers."""

    statement: str
    paper: str
    ours: str
    holds: bool | None  # None: cannot be judged from this run set


@dataclass
class Reproduction:
    """One study, as the driver runs it."""

    name: str
    title: str
    scenario: str
    default_runs: int
    sweep: Callable[[int, str | None], dict]
    #: (findings, report sections, numbers) of a finished sweep.
    analyse: Callable[[Path, Any], tuple[list[Finding], list[Section], dict]]
    timeseries: Callable[[Path, str | None], list[Section]]
    paper: dict = field(default_factory=dict)
    #: Known modelling differences from the paper's setup, shown in the report.
    notes: str = ""


def _common_set(duration: str | None) -> dict:
    s: dict[str, Any] = {"metrics.rtt": False}
    if duration is not None:
        s["simulation.duration"] = duration
    return s


def _sweep_run(out: Path, group_id: str, seed: int) -> Path | None:
    """The folder of the finished run of group ``group_id`` with ``seed`` in the sweep last
    run into ``out`` (its manifest lists that sweep's runs; a folder resumed with another
    design may still hold runs of the old one), if there is one."""
    manifest = out / "sweep.json"
    if not manifest.exists():
        return None
    for r in json.loads(manifest.read_text()).get("runs", []):
        if r.get("group_id") == group_id and r.get("seed") == seed:
            folder = out / "runs" / r["run_id"]
            return folder if (folder / "params.json").exists() else None
    return None


def _per_run(summary, **match) -> list[dict]:
    """The per-run rows as dicts; with ``match`` ({column: value}) only the rows that match
    it. The match is applied to the frame first: the whole table is one Python dict per
    run and metric (18 000 for 200 runs of one UE), tens of MB held for a few rows."""
    df = summary.per_run
    if match:
        df = df.filter(**match)
    return df.to_dicts()


def _values(rows, **match) -> dict[str, float]:
    """{run_id: value} of the per-run rows matching ``match``."""
    out = {}
    for r in rows:
        if all(r.get(k) == v for k, v in match.items()) and r["value"] is not None:
            out[r["run_id"]] = r["value"]
    return out


def _ci(values) -> tuple[float | None, float | None, int]:
    from ..stats import mean_ci

    m = mean_ci(list(values))
    half = None if m.ci_high is None or m.mean is None else m.ci_high - m.mean
    return m.mean, half, m.n


def _fmt(mean, half, unit="") -> str:
    if mean is None:
        return "-"
    if half is None:
        return f"{mean:.1f}{unit}"
    return f"{mean:.1f} ± {half:.1f}{unit}"
