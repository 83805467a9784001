"""The Python entry points: validate, run, read back."""

from __future__ import annotations

import json
import os
import shutil
import sys
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
        raw = path.read_bytes()
    except OSError as e:
        from .errors import describe_os_error

        raise _core.ScenarioError(
            f"cannot read the scenario file {describe_os_error(e, path)}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _core.ScenarioError(
            f"{path}: not a scenario file: byte {e.start} (0x{raw[e.start]:02x}) is not UTF-8 "
            "text; expected a TOML or JSON scenario") from None
    # Editors on some systems start UTF-8 files with a byte-order mark; TOML has no use for it.
    text = text.removeprefix("\ufeff")
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
        staging = open_staging(out)
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
            publish_staging(staging, out)
            staging = None
            result.path = out
        return result
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)


def open_staging(out: Path) -> Path:
    """A new staging folder beside the run folder ``out``, owned by this process: a run is
    written there and renamed into place whole (:func:`publish_staging`), so that a failed
    or killed run leaves no partial folder. Refuses an ``out`` that holds something other
    than a run folder."""
    if out.exists() and not (out / "summary.json").exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} exists and is not an mmtsim run folder; choose another --out")
    out.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_staging(out)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    (staging / STAGING_OWNER).write_text(f"{os.getpid()}\n")
    # mkdtemp makes the folder private (0700); a run folder gets the usual permissions.
    umask = os.umask(0)
    os.umask(umask)
    staging.chmod(0o777 & ~umask)
    return staging


def publish_staging(staging: Path, out: Path) -> None:
    """Renames a written staging folder to ``out``, replacing an earlier run folder there."""
    (staging / STAGING_OWNER).unlink()
    if out.exists():
        trash = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        out.rename(trash / "old")
        staging.rename(out)
        shutil.rmtree(trash, ignore_errors=True)
    else:
        staging.rename(out)


#: File in a staging folder naming the process that writes it.
STAGING_OWNER = ".owner-pid"


def _remove_stale_staging(out: Path) -> list[Path]:
    """Removes the staging folders (``.NAME.tmp-*``, ``.NAME.old-*``) that runs to ``out``
    left behind when they were killed (SIGKILL gives no chance to clean up), and says so on
    stderr. A folder whose writing process is still alive is left alone."""
    removed = []
    for pattern in (f".{out.name}.tmp-*", f".{out.name}.old-*"):
        for d in out.parent.glob(pattern):
            if not d.is_dir() or _owner_alive(d):
                continue
            shutil.rmtree(d, ignore_errors=True)
            removed.append(d)
    if removed:
        print(f"mmtsim: note: removed {len(removed)} unfinished folder(s) of an earlier run to "
              f"{out} that was killed: {', '.join(d.name for d in removed)}", file=sys.stderr)
    return removed


def _owner_alive(staging: Path) -> bool:
    try:
        pid = int((staging / STAGING_OWNER).read_text().strip())
    except (OSError, ValueError):
        return False  # no owner recorded: left by a killed run
    return pid == os.getpid() or pid_alive(pid)


def pid_alive(pid: int) -> bool:
    """True if process ``pid`` exists (signal 0; one we may not signal exists too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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
