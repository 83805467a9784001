"""The Python entry points: validate, run, read back."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Iterable, Mapping

from . import _core, _toml
from .results import RunResult

ScenarioLike = str | os.PathLike | Mapping[str, Any]


def _source(scenario: ScenarioLike) -> tuple[str, str, str, str]:
    """(text, format, origin, base_dir) of a path or a dict."""
    if isinstance(scenario, Mapping):
        try:
            return _toml.document(scenario), "toml", "<dict>", os.getcwd()
        except _toml.TomlValueError as e:
            raise _core.ScenarioError(f"<dict>: {e}") from None
    if not isinstance(scenario, (str, os.PathLike)):
        raise TypeError(
            f"scenario must be a path or a dict, not {type(scenario).__name__}"
        )
    path = Path(scenario)
    try:
        text = path.read_text()
    except OSError as e:
        raise _core.ScenarioError(f"{path}: cannot read the scenario file: {e.strerror}") from None
    fmt = "json" if path.suffix == ".json" else "toml"
    return text, fmt, str(path), str(path.parent)


def _overrides(overrides: Iterable[str] | Mapping[str, Any] | None) -> list[str]:
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        try:
            return [f"{k}={_toml.value(v, str(k))}" for k, v in overrides.items()]
        except _toml.TomlValueError as e:
            raise _core.ScenarioError(f"overrides: {e}") from None
    if isinstance(overrides, str):
        raise TypeError("overrides must be a list of 'key.path=value' strings or a dict")
    return [str(o) for o in overrides]


def validate(scenario: ScenarioLike, overrides=None) -> dict:
    """Validates a scenario; returns the resolved scenario (defaults filled in).

    Raises ``ScenarioError`` with one line per problem."""
    text, fmt, origin, base = _source(scenario)
    return json.loads(_core.validate(text, fmt, origin, base, _overrides(overrides)))


def _check_seed(seed) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError(f"seed = {seed!r}: expected an integer from 0 to 2**64-1")
    return seed


def run(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    overrides=None,
    out: str | os.PathLike | None = None,
    progress: bool = False,
) -> RunResult:
    """Runs a scenario (a TOML/JSON path or a dict).

    ``overrides``: ``["key.path=value", ...]`` or ``{"key.path": value}``.
    ``out``: if given, the run folder (summary.json, Parquet tables, pcap/) is written
    there atomically. ``progress``: show a progress bar for runs longer than about a
    second. The GIL is released while the simulation runs."""
    text, fmt, origin, base = _source(scenario)
    seed = _check_seed(seed)
    ovr = _overrides(overrides)
    # Validate first: bad input must not create any output.
    resolved = json.loads(_core.validate(text, fmt, origin, base, ovr))
    staging = None
    if out is not None:
        out = Path(out)
        if out.exists() and not (out / "summary.json").exists() and any(out.iterdir()):
            raise FileExistsError(f"{out} exists and is not an mmtsim run folder; choose another --out")
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
        # mkdtemp makes the folder private (0700); a run folder gets the usual permissions.
        umask = os.umask(0)
        os.umask(umask)
        staging.chmod(0o777 & ~umask)
    try:
        prog = _core.Progress()
        capture = str(staging / "pcap") if staging is not None else None
        total = _core.parse_duration(resolved["simulation"]["duration"])
        t0 = time.perf_counter()
        summary_text, tables = _run_with_progress(
            text, fmt, origin, base, ovr, seed, capture, prog, progress, total
        )
        wall = time.perf_counter() - t0
        summary = json.loads(summary_text)
        summary["wall_seconds"] = wall
        summary["mmtsim_version"] = _core.__version__
        result = RunResult(summary, tables)
        if staging is not None:
            result._write_into(staging)
            if out.exists():
                trash = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
                out.rename(trash / "old")
                staging.rename(out)
                shutil.rmtree(trash, ignore_errors=True)
            else:
                staging.rename(out)
            staging = None
            result.path = out
        return result
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)


def _run_with_progress(text, fmt, origin, base, ovr, seed, capture, prog, show, total):
    """Runs in a worker thread so that the main thread stays responsive: it draws the
    progress bar, and Ctrl-C cancels the run (the simulation holds no GIL).

    Completion is signalled by an Event rather than observed with ``Thread.join``: a join
    interrupted by KeyboardInterrupt can report a live thread as finished, and an
    interpreter that exits while the worker is still inside the extension aborts."""
    box: dict[str, Any] = {}
    done = threading.Event()

    def work():
        try:
            box["result"] = _core.run(text, fmt, origin, base, ovr, seed, capture, prog)
        except BaseException as e:  # re-raised in the caller's thread
            box["error"] = e
        finally:
            done.set()

    th = threading.Thread(target=work, name="mmtsim-run")
    th.start()
    bar = None
    t0 = time.monotonic()
    try:
        while not done.wait(0.1):
            if show and bar is None and time.monotonic() - t0 > 1.0:
                from tqdm import tqdm

                # Start from where the run already is, so the rate shown is simulated seconds
                # per wall second from here on, not one huge first step.
                bar = tqdm(total=round(total, 3), initial=round(min(prog.sim_seconds, total), 3),
                           unit="sim s", desc="simulating", leave=False)
            if bar is not None:
                bar.n = round(min(prog.sim_seconds, total), 3)
                bar.refresh()
    except KeyboardInterrupt:
        prog.cancel()
        while True:
            try:
                done.wait()
                break
            except KeyboardInterrupt:
                continue
        raise
    finally:
        if bar is not None:
            bar.close()
    if "error" in box:
        raise box["error"]
    return box["result"]


def read_run(path: str | os.PathLike) -> RunResult:
    """Reads a run folder written by ``run(..., out=...)`` or ``mmtsim run``."""
    return RunResult.read(Path(path))
