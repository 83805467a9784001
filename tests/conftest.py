"""Shared fixtures of the Python test suite (front end: CLI, API, results, examples)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Runs ``python -m mmtsim ARGS`` and captures its output."""
    return subprocess.run([sys.executable, "-m", "mmtsim", *args], capture_output=True,
                          text=True, cwd=cwd, check=False)


SMALL = """
[simulation]
duration = "2s"
seed = 1

[[nodes]]
name = "server"
[[nodes]]
name = "client"

[[links]]
between = ["server", "client"]
rate = "50Mbps"
delay = "10ms"
queue = { limit = "125kB" }

[[flows]]
from = "server"
to = "client"
cc = "cubic"
"""


def small_dict(duration="2s", cc="cubic", loss=None, capture=False, seed=1) -> dict:
    link = {"name": "bottleneck", "between": ["server", "client"], "rate": "50Mbps",
            "delay": "10ms", "queue": {"limit": "125kB"}, "capture": capture}
    if loss is not None:
        link["loss"] = {"kind": "bernoulli", "p": loss}
    return {
        "simulation": {"duration": duration, "seed": seed},
        "nodes": [{"name": "server"}, {"name": "client"}],
        "links": [link],
        "flows": [{"from": "server", "to": "client", "cc": cc}],
    }


@pytest.fixture
def small_toml(tmp_path: Path) -> Path:
    p = tmp_path / "small.toml"
    p.write_text(SMALL)
    return p


class _Rows:
    def __init__(self, rows):
        self.rows = rows

    def to_dicts(self):
        return self.rows


class FakeRun:
    def __init__(self, run_id, group, replicate, seed):
        self.run_id, self.group, self.replicate, self.seed = run_id, group, replicate, seed


class FakeSummary:
    """What the reproductions' analyses read of a sweep's summary, built by hand: the
    per-run rows and the ok runs, for analyses run on synthetic values."""

    def __init__(self):
        self.rows, self.ok_runs = [], []

    def add(self, group, replicate, values, seed=None):
        """One ok run of ``group``; ``values``: {(entity_kind, entity, metric): value}."""
        rid = f"r{len(self.ok_runs)}"
        self.ok_runs.append(FakeRun(rid, group, replicate, seed))
        for (kind, entity, metric), v in values.items():
            self.rows.append({"run_id": rid, "entity_kind": kind, "entity": entity,
                              "metric": metric, "value": v})

    @property
    def per_run(self):
        return _Rows(self.rows)
