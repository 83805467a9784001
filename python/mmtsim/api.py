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

from . import _core
from .results import RunResult

ScenarioLike = str | os.PathLike | Mapping[str, Any]


def _source(scenario: ScenarioLike) -> tuple[str, str, str, str]:
    """(text, format, origin, base_dir) of a path or a dict."""
    if isinstance(scenario, Mapping):
        return json.dumps(scenario), "json", "<dict>", os.getcwd()
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
        out = []
        for k, v in overrides.items():
            if isinstance(v, str):
                out.append(f"{k}={json.dumps(v)}")
            elif isinstance(v, bool):
                out.append(f"{k}={'true' if v else 'false'}")
            else:
                out.append(f"{k}={v}")
        return out
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
    _core.validate(text, fmt, origin, base, ovr)
    staging = None
    if out is not None:
        out = Path(out)
        if out.exists() and not (out / "summary.json").exists() and any(out.iterdir()):
            raise FileExistsError(f"{out} exists and is not an mmtsim run folder; choose another --out")
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        prog = _core.Progress()
        capture = str(staging / "pcap") if staging is not None else None
        t0 = time.perf_counter()
        summary_text, tables = _run_with_progress(
            text, fmt, origin, base, ovr, seed, capture, prog, progress
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


def _run_with_progress(text, fmt, origin, base, ovr, seed, capture, prog, show):
    if not show:
        return _core.run(text, fmt, origin, base, ovr, seed, capture, prog)
    box: dict[str, Any] = {}

    def work():
        try:
            box["result"] = _core.run(text, fmt, origin, base, ovr, seed, capture, prog)
        except BaseException as e:  # re-raised in the caller's thread
            box["error"] = e

    duration = json.loads(_core.validate(text, fmt, origin, base, ovr))["simulation"]["duration"]
    total = _seconds(duration)
    th = threading.Thread(target=work, daemon=True)
    th.start()
    bar = None
    t0 = time.monotonic()
    try:
        while th.is_alive():
            th.join(0.1)
            if bar is None and time.monotonic() - t0 > 1.0:
                from tqdm import tqdm

                bar = tqdm(total=round(total, 3), unit="sim s", desc="simulating", leave=False)
            if bar is not None:
                bar.n = round(min(prog.sim_seconds, total), 3)
                bar.refresh()
    except KeyboardInterrupt:
        prog.cancel()
        th.join()
        raise
    finally:
        if bar is not None:
            bar.close()
    if "error" in box:
        raise box["error"]
    return box["result"]


def _seconds(d: str) -> float:
    units = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}
    for u in sorted(units, key=len, reverse=True):
        if d.endswith(u):
            return float(d[: -len(u)]) * units[u]
    raise ValueError(d)


def read_run(path: str | os.PathLike) -> RunResult:
    """Reads a run folder written by ``run(..., out=...)`` or ``mmtsim run``."""
    return RunResult.read(Path(path))
