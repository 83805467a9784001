"""mmtsim: fast packet-level simulation of transport protocols over 5G mmWave networks.

Quick use::

    import mmtsim
    res = mmtsim.run("examples/blockage.toml", seed=3, overrides=["flows.0.cc=newreno"])
    res.flows            # per-flow summary (polars DataFrame)
    res.table("rtt")     # every RTT sample (polars); res.table("rtt", pandas=True) for pandas

    res = mmtsim.sweep("examples/sweeps/sweep-cc.toml", "out/cc")   # grid x seeds, resumable

    with mmtsim.emulate("examples/mmwave-2017.toml") as em:     # real programs, root
        em.run_in_ue(["iperf3", "-c", em.server_addr, "-t", "8"])

Runs release the GIL: a ``concurrent.futures.ThreadPoolExecutor`` runs several at once.
Heavy dependencies (polars, pyarrow, matplotlib) are imported only when used.
"""

from __future__ import annotations

from . import _core
from ._core import Cancelled, MmtsimError, ScenarioError, SimulationError
from .api import read_run, run, validate
# Real-time emulation (root): ``with mmtsim.emulate("examples/mmwave-2017.toml") as em:``.
from .emulate import Emulation, EmulationUnavailable, emulate
# The function shadows its module's name on the package: ``mmtsim.sweep(...)`` runs a sweep;
# ``from mmtsim.sweep import load_sweep`` (or ``importlib.import_module``) reaches the module.
from .sweep import SweepFileError, SweepResult, sweep
# Same for summarize and report (modules summarize.py, report.py; they import polars and
# matplotlib only when called).
from .report import report
from .summarize import SweepError, summarize

__version__: str = _core.__version__
#: How the extension was built: "pgo" (profile-guided, ``scripts/pgo.sh``) or "plain".
__build__: str = _core.__build__

__all__ = [
    "Cancelled",
    "Emulation",
    "EmulationUnavailable",
    "MmtsimError",
    "ScenarioError",
    "SimulationError",
    "SweepFileError",
    "SweepResult",
    "SweepError",
    "emulate",
    "read_run",
    "report",
    "run",
    "sweep",
    "summarize",
    "validate",
    "__version__",
    "__build__",
]
