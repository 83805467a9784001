"""Parameter sweeps: a grid of scenarios × seeds × paired replicates, run in parallel.

``mmtsim sweep SWEEP --out DIR [--workers N] [--dask ADDRESS]`` and :func:`sweep` expand a
sweep file into runs, check every one of them before running any, and write each finished
run into ``DIR/runs/<run_id>/`` (layout: below, "Run identity and the output folder").

The sweep file (TOML)
---------------------

::

    description = "CUBIC vs BBR vs X-TCP uplink, two RLC buffers"   # free text, optional
    base = "../nr-fr2.toml"         # relative to this file (or an inline [base] table)
    seeds = 3                       # seeds 1, 2, 3; or a list: seeds = [7, 11, 13]
    set = { "simulation.duration" = "10s" }   # optional: applied to every run

    [[axes]]                        # a key axis: one key path, one run group per value
    name = "cc"
    key = "flows.2.cc"
    values = ["cubic", "bbr", "xtcp"]
    # labels = [...]                # optional, one per value; required for list/table values

    [[axes]]                        # a variant axis: labelled sets of keys
    name = "dl"
    variants = [
        { label = "cubic", set = { "flows.0.cc" = "cubic", "flows.1.cc" = "cubic" } },
        { label = "bbr",   set = { "flows.0.cc" = "bbr",   "flows.1.cc" = "bbr" } },
    ]

    [[replicates]]                  # optional, paired: every seed runs once per replicate
    name = "as-is"
    set = {}

    [[replicates]]
    name = "mirrored"
    set = { "ran.ues.0.position_m" = [-30, 8, 1.5], "ran.ues.1.position_m" = [30, 8, 1.5] }

- ``base`` (required): a scenario file path (TOML, or JSON by its ``.json`` suffix),
  relative to the sweep file; or an inline ``[base]`` table, whose relative paths (trace
  files) are relative to the sweep file too.
- ``seeds`` (required): ``N`` (≥ 1) means seeds 1..N; a list gives the seeds themselves
  (distinct integers from 0 to 2**64-1). The seed is passed as the run's master seed, so a
  key path may not set ``simulation.seed``.
- ``set``, ``axes[].variants[].set``, ``replicates[].set``: tables from a key path in the
  scenario override syntax (``flows.0.cc``, ``ran.ues.1.position_m``, ``links[2].rate``)
  to a TOML value. **Quote the key path**: an unquoted ``flows.0.cc = ...`` is a nested
  TOML table, which would replace ``flows`` as a whole. A value that is a table replaces
  that table as a whole (as ``--set`` does).
- ``axes`` (optional): the grid is the cartesian product of all axes, in file order (the
  first axis varies slowest). An axis has a ``name`` and either ``key`` + ``values``
  (+ optional ``labels``) or ``variants`` (each a ``label`` and a ``set``).
- ``replicates`` (optional): paired variations that are *not* part of the group: each
  adds one sample per seed to every group (e.g. the UE trajectories swapped).

Each run applies, in order, ``set``, each axis's keys, the replicate's keys. Checked before
anything is written by ``sweep_file.py`` (the structure against the JSON Schema
``schemas/sweep.schema.json``; exit code 2, each message naming the sweep-file key): unknown keys,
missing or empty entries, duplicate names, labels and values, labels containing ``,`` or
``=`` (they build ``group_id``), axis names ``seed``/``replicate``/``run_id``/``group_id``,
two entries setting the same key path (or one inside another), a bad key path or value
(each entry is validated alone on the base, then every expanded scenario is validated
with the same code as ``mmtsim.validate``), and two runs that resolve to the same
scenario and seed (e.g. ``"100Mbps"`` and ``"0.1Gbps"``) — their results could not be
told apart.

Run identity and the output folder
----------------------------------

- ``group`` = {axis name: label} (the label of a key-axis value is the value itself when
  it is a string, number or boolean and no ``labels`` are given); ``group_id`` =
  ``"name=label,name=label"`` in axis order, or ``"base"`` for a sweep without axes.
- ``run_id`` = the first 16 hex digits of the SHA-256 of the UTF-8 bytes of
  ``json.dumps({"scenario": resolved, "seed": seed, "version": mmtsim.__version__},
  sort_keys=True, separators=(",", ":"))``, where ``resolved`` is the validated scenario
  (``mmtsim.validate(base, overrides)``). ``scenario_sha256`` in ``params.json`` is the
  full SHA-256 of ``json.dumps(resolved, sort_keys=True, separators=(",", ":"))``. The
  contents of files a scenario names (traces) are not part of the id: edit a trace
  file in place and the old runs still count as done — delete them (or use a new name).
- ``DIR/sweep.json`` (written first, on every invocation, for the current sweep file),
  ``DIR/runs/<run_id>/`` (``summary.json`` and the Parquet tables — what
  ``mmtsim.run(..., out=...)`` writes — plus ``params.json``), ``DIR/failed/<run_id>.json``.
- A run is written into ``DIR/.staging/<run_id>.<random>/`` and renamed to
  ``DIR/runs/<run_id>`` when complete (``params.json`` included), so ``runs/`` only ever
  holds finished runs. A run counts as done when ``runs/<run_id>/params.json`` exists;
  those are skipped, so an interrupted sweep (Ctrl-C, SIGKILL, a lost node) loses nothing
  and repeats nothing. The rename is atomic against the process dying; files are not
  fsync'd, so a power loss can still leave a torn run folder.
- A run that raises is written to ``failed/<run_id>.json`` and the sweep goes on; the next
  invocation retries it (and removes the file when it succeeds).
- One sweep invocation per ``DIR`` at a time: it holds an ``flock`` on ``DIR/.lock`` and
  clears ``DIR/.staging`` (leftovers of a killed invocation) when it starts.
- Runs that ``sweep.json`` does not list (an earlier version of the sweep file) stay in
  ``runs/``; readers should go by ``sweep.json``.

Parallelism and determinism
---------------------------

Locally the runs go to a thread pool (``workers`` threads, default: all cores this
process may use); a run releases the GIL. With ``dask=ADDRESS`` each run is one task on a
``distributed`` cluster: a plain function of picklable arguments that reads trace files
and writes its run folder itself, so ``DIR`` and the scenario's files must be at the same
absolute paths on every worker (a shared filesystem), and the workers must have the same
mmtsim version (a mismatch fails the run with a message). A run's results depend only on
its scenario and seed, never on the worker count, the order, or the backend.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import _core
from .results import RunResult
# The sweep file's reading and checking; re-exported, as they were defined here first.
from .sweep_file import (RESERVED_AXIS_NAMES, PlannedRun, SweepFileError,  # noqa: F401
                         SweepPlan, canonical_json, load_sweep, run_id_of)


class SweepBusyError(RuntimeError):
    """Another sweep invocation holds the output folder's lock."""


@dataclass
class SweepResult:
    """What one invocation did. The id lists are in sweep order."""

    out: Path
    run_ids: list[str]
    finished: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    @property
    def n_finished(self) -> int:
        return len(self.finished)

    @property
    def n_skipped(self) -> int:
        return len(self.skipped)

    @property
    def n_failed(self) -> int:
        return len(self.failed)

    @property
    def ok(self) -> bool:
        """True when every run of the sweep is now in ``runs/``."""
        return not self.failed

    def __str__(self) -> str:
        return (f"{self.out}: {len(self.run_ids)} runs: {self.n_finished} finished, "
                f"{self.n_skipped} skipped (already done), {self.n_failed} failed")


# ---------------------------------------------------------------------------------------
# Running


def _write_json(path: Path, doc: Any) -> None:
    """Writes a JSON file whole: a temporary name beside it, then renamed into place."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc, indent=2) + "\n")
    tmp.replace(path)


def _simulate(task: dict, source: tuple[str, str, str, str], folder: Path, progress) -> float:
    """Runs one scenario and writes what ``mmtsim.run(..., out=folder)`` writes into
    ``folder``; returns the wall seconds. (The lower-level form of ``mmtsim.run``: it
    takes the scenario as text with its own base directory, which an inline base needs.)"""
    text, fmt, origin, base_dir = source
    capture = str(folder / "pcap")
    t0 = time.perf_counter()
    summary_text, tables = _core.run(text, fmt, origin, base_dir, task["overrides"],
                                     task["seed"], capture, progress)
    wall = time.perf_counter() - t0
    summary = json.loads(summary_text)
    summary["wall_seconds"] = wall
    summary["mmtsim_version"] = _core.__version__
    RunResult(summary, tables)._write_into(folder)
    return wall


def _failure_doc(task: dict, error_type: str, error: str) -> dict:
    p = task["params"]
    return {"run_id": task["run_id"], "group": p["group"], "group_id": p["group_id"],
            "seed": p["seed"], "replicate": p["replicate"], "overrides": p["overrides"],
            "error_type": error_type, "error": error}


def _record_failure(task: dict, error_type: str, error: str) -> dict:
    out = Path(task["out"])
    (out / "failed").mkdir(parents=True, exist_ok=True)
    _write_json(out / "failed" / f"{task['run_id']}.json", _failure_doc(task, error_type, error))
    return {"run_id": task["run_id"], "status": "failed", "error_type": error_type, "error": error}


def _execute(task: dict, source: tuple[str, str, str, str], progress=None) -> dict:
    """Runs one planned run and writes its folder (or its failure record) into the sweep
    folder ``task["out"]``. ``source``: the base scenario (text, format, origin, base
    directory). A plain function of plain data, so that a Dask worker can run it.
    Returns {"run_id", "status": "finished" | "skipped" | "failed", ...}."""
    out = Path(task["out"])
    rid = task["run_id"]
    final = out / "runs" / rid
    if (final / "params.json").exists():
        return {"run_id": rid, "status": "skipped"}
    staging = None
    try:
        if _core.__version__ != task["version"]:
            raise RuntimeError(f"this worker has mmtsim {_core.__version__}, the sweep was "
                               f"planned with {task['version']}: install the same version")
        (out / ".staging").mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f"{rid}.", dir=out / ".staging"))
        umask = os.umask(0)
        os.umask(umask)
        staging.chmod(0o777 & ~umask)
        wall = _simulate(task, source, staging, progress)
        _write_json(staging / "params.json", {**task["params"], "wall_seconds": wall})
        _publish(staging, final)
        staging = None
        (out / "failed" / f"{rid}.json").unlink(missing_ok=True)
        return {"run_id": rid, "status": "finished", "wall_seconds": wall}
    except _core.Cancelled:
        raise
    except Exception as e:  # noqa: BLE001 - every failure of a run is recorded, not raised
        return _record_failure(task, type(e).__name__, str(e))
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)


def _publish(staging: Path, final: Path) -> None:
    """Renames a complete run folder into ``runs/``. A directory rename is atomic, so
    ``runs/`` never shows a partial run."""
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        staging.rename(final)
        return
    except OSError:
        if not final.exists():
            raise
    if (final / "params.json").exists():
        return  # finished meanwhile by someone else: keep theirs (same scenario and seed)
    # Not a finished run (nothing of ours makes one): set it aside, then put ours in place.
    trash = Path(tempfile.mkdtemp(prefix="old.", dir=staging.parent))
    final.rename(trash / "old")
    staging.rename(final)
    shutil.rmtree(trash, ignore_errors=True)


def _default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _prepare_out(out: Path) -> None:
    if out.exists():
        if not out.is_dir():
            raise FileExistsError(f"{out} exists and is not a folder; choose another --out")
        if not (out / "sweep.json").exists() and any(out.iterdir()):
            raise FileExistsError(f"{out} exists and is not an mmtsim sweep folder "
                                  "(no sweep.json); choose another --out")


class _Lock:
    """An exclusive ``flock`` on ``OUT/.lock`` for the invocation's lifetime."""

    def __init__(self, out: Path):
        import fcntl

        self.fd = os.open(out / ".lock", os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.fd)
            raise SweepBusyError(f"{out} is being written by another mmtsim sweep; "
                                 "wait for it to end (or use another --out)") from None

    def release(self) -> None:
        os.close(self.fd)  # closing the descriptor releases the lock


def sweep(
    sweep_file: str | os.PathLike,
    out: str | os.PathLike,
    workers: int | None = None,
    dask: Any = None,
    progress: bool = True,
) -> SweepResult:
    """Runs every run of a sweep file that ``out`` does not hold yet (see the module doc).

    ``workers``: threads (default: all cores this process may use). ``dask``: a
    ``distributed`` scheduler address (or a ``distributed.Client``) to run on instead;
    ``out`` must then be on a filesystem the workers share. ``progress``: a progress bar
    over runs. Raises :class:`SweepFileError` (nothing written) for a bad sweep file;
    failed runs are not raised but listed in the result and in ``out/failed/``."""
    if workers is not None and dask is not None:
        raise ValueError("workers and dask exclude each other (a cluster has its own workers)")
    if workers is None:
        workers = _default_workers()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers = {workers!r}: expected a whole number of at least 1")
    plan = load_sweep(sweep_file)
    out = Path(os.path.normpath(Path(out).absolute()))
    _prepare_out(out)
    client, own_client = None, False
    if dask is not None:
        # Connect before writing anything: an unreachable scheduler leaves no trace.
        try:
            from distributed import Client
        except ImportError:
            raise ImportError("running on a Dask cluster needs the `distributed` package: "
                              "pip install 'mmtsim[cluster]'") from None
        own_client = not isinstance(dask, Client)
        client = Client(dask) if own_client else dask
    try:
        return _sweep_into(plan, out, workers, client, progress)
    finally:
        if own_client:
            client.close()


def _sweep_into(plan: SweepPlan, out: Path, workers: int, client, progress: bool) -> SweepResult:
    out.mkdir(parents=True, exist_ok=True)
    lock = _Lock(out)
    try:
        shutil.rmtree(out / ".staging", ignore_errors=True)  # leftovers of a killed invocation
        (out / "runs").mkdir(exist_ok=True)
        _write_json(out / "sweep.json", plan.manifest())
        status: dict[str, str] = {}
        todo = []
        for r in plan.runs:
            if (out / "runs" / r.run_id / "params.json").exists():
                status[r.run_id] = "skipped"
                (out / "failed" / f"{r.run_id}.json").unlink(missing_ok=True)
            else:
                todo.append(_task(r, out))
        if todo:
            if client is not None:
                _run_dask(todo, plan.source, client, progress, status)
            else:
                _run_threads(todo, plan.source, workers, progress, status)
        result = SweepResult(out, [r.run_id for r in plan.runs])
        lists = {"finished": result.finished, "skipped": result.skipped, "failed": result.failed}
        for r in plan.runs:
            # "skipped" from a worker: another process finished it since we looked.
            lists[status[r.run_id]].append(r.run_id)
        return result
    finally:
        try:
            (out / ".staging").rmdir()  # empty unless a run is still being written
        except OSError:
            pass
        lock.release()


def _task(r: PlannedRun, out: Path) -> dict:
    params = {**r.entry(), "scenario_sha256": r.scenario_sha256,
              "mmtsim_version": _core.__version__}
    return {"run_id": r.run_id, "out": str(out), "overrides": r.overrides, "seed": r.seed,
            "version": _core.__version__, "params": params}


def _bar(total: int, progress: bool):
    from tqdm import tqdm

    return tqdm(total=total, unit="run", desc="sweep", disable=not progress, smoothing=0.1)


def _note(bar, status: dict, res: dict) -> None:
    status[res["run_id"]] = res["status"]
    if res["status"] == "failed":
        bar.n_failed = getattr(bar, "n_failed", 0) + 1
        bar.set_postfix(failed=bar.n_failed, refresh=False)
    bar.update(1)


def _run_threads(tasks: list[dict], source, workers: int, progress: bool, status: dict) -> None:
    """A thread pool; a run releases the GIL. Ctrl-C cancels the running simulations and
    waits for their threads (the interpreter must not exit under a running extension)."""
    progs = {t["run_id"]: _core.Progress() for t in tasks}
    bar = _bar(len(tasks), progress)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers,
                                                 thread_name_prefix="mmtsim-sweep")
    futs = [pool.submit(_execute, t, source, progs[t["run_id"]]) for t in tasks]
    try:
        for f in concurrent.futures.as_completed(futs):
            _note(bar, status, f.result())
    except BaseException:
        for f in futs:
            f.cancel()
        for p in progs.values():
            p.cancel()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        bar.close()


def _run_dask(tasks: list[dict], source, client, progress: bool, status: dict) -> None:
    """One Dask task per run. The worker writes the run folder (or the failure record);
    a task that dies with its worker is recorded here. The base scenario's text is sent to
    the cluster once, not once per run."""
    import uuid

    from distributed import as_completed

    bar = _bar(len(tasks), progress)
    futs = {}
    # Keys unique to this invocation: a key equal to an earlier sweep's (same run id, other
    # --out) would hand back that sweep's result instead of running.
    tag = uuid.uuid4().hex[:8]
    try:
        [src] = client.scatter([source], hash=False)
        for t in tasks:
            f = client.submit(_execute, t, src, pure=False, key=f"mmtsim-run-{t['run_id']}-{tag}")
            futs[f] = t
        for f in as_completed(list(futs)):
            t = futs[f]
            try:
                res = f.result()
            except Exception as e:  # noqa: BLE001 - the worker died or the task was lost
                res = _record_failure(t, type(e).__name__, str(e))
            _note(bar, status, res)
    except BaseException:
        client.cancel(list(futs))
        raise
    finally:
        bar.close()
