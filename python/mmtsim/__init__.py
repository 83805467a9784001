"""mmtsim: fast packet-level simulation of transport protocols over 5G mmWave networks.

Quick use::

    import mmtsim
    res = mmtsim.run("examples/blockage.toml", seed=3, overrides=["flows.0.cc=newreno"])
    res.flows            # per-flow summary (polars DataFrame)
    res.table("rtt")     # every RTT sample (polars); res.table("rtt", pandas=True) for pandas

Runs release the GIL: a ``concurrent.futures.ThreadPoolExecutor`` runs several at once.
Heavy dependencies (polars, pyarrow, matplotlib) are imported only when used.
"""

from __future__ import annotations

from . import _core
from ._core import Cancelled, MmtsimError, ScenarioError, SimulationError
from .api import read_run, run, validate

__version__: str = _core.__version__

__all__ = [
    "Cancelled",
    "MmtsimError",
    "ScenarioError",
    "SimulationError",
    "read_run",
    "run",
    "validate",
    "__version__",
]
