"""Parameter sweeps: a grid of scenarios × seeds × paired replicates, run in parallel.

``mmtsim sweep SWEEP --out DIR [--workers N] [--dask ADDRESS]`` and :func:`sweep` expand a
sweep file into runs, check every one of them before running any, and write each finished
run into ``DIR/runs/<run_id>/`` (layout: below, and ``notes/sweep_layout.md``).

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
anything is written (exit code 2, each message naming the sweep-file key): unknown keys,
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
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Any

from . import _core, _toml
from .results import RunResult

#: Axis names that would collide with the other columns of a run row.
RESERVED_AXIS_NAMES = ("seed", "replicate", "run_id", "group_id")
#: Shown in full; beyond this many, the rest are counted.
_MAX_ERRORS = 20


class SweepFileError(ValueError):
    """A sweep file that cannot be run; one line per problem, each naming its key."""


class SweepBusyError(RuntimeError):
    """Another sweep invocation holds the output folder's lock."""


@dataclass(frozen=True)
class PlannedRun:
    """One run of a sweep (an entry of ``sweep.json``'s ``runs``)."""

    run_id: str
    group: dict[str, Any]
    group_id: str
    seed: int
    replicate: str | None
    overrides: list[str]
    scenario_sha256: str

    def entry(self) -> dict[str, Any]:
        """The run's entry in ``sweep.json`` (and the identifying part of params.json)."""
        return {"run_id": self.run_id, "group": self.group, "group_id": self.group_id,
                "seed": self.seed, "replicate": self.replicate, "overrides": self.overrides}


@dataclass
class SweepPlan:
    """A checked, expanded sweep file."""

    sweep_file: Path
    #: The base scenario's absolute path, or the inline ``[base]`` table.
    base: str | dict
    group_keys: list[str]
    runs: list[PlannedRun]
    #: (text, format, origin, base_dir) of the base scenario, as ``_core`` takes them.
    source: tuple[str, str, str, str]

    def manifest(self) -> dict[str, Any]:
        """The contents of ``sweep.json``."""
        return {"mmtsim_version": _core.__version__, "sweep_file": str(self.sweep_file),
                "base": self.base, "group_keys": self.group_keys,
                "runs": [r.entry() for r in self.runs]}


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
# Reading and checking the sweep file

_TOP_KEYS = {"description", "base", "seeds", "set", "axes", "replicates"}
_KEY_AXIS_KEYS = {"name", "key", "values", "labels"}
_VARIANT_AXIS_KEYS = {"name", "variants"}
_VARIANT_KEYS = {"label", "set"}
_REPLICATE_KEYS = {"name", "set"}


def _q(k: str) -> str:
    """A key as it is written in a dotted sweep-file path: ``set."flows.0.cc"``."""
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def _norm_path(key: str) -> tuple[str, ...]:
    """``links[1].rate`` → ("links", "1", "rate"), as the override parser splits it."""
    return tuple(key.strip().replace("[", ".").replace("]", "").split("."))


def _kind(v: Any) -> str:
    return {dict: "a table", list: "a list", str: "a string", bool: "a boolean",
            int: "an integer", float: "a number"}.get(type(v), type(v).__name__)


@dataclass
class _Entry:
    """A set of overrides with the sweep-file key that holds them."""

    where: str  # e.g. axes[1].variants[0].set
    items: dict[str, Any]
    overrides: list[str]


class _Checker:
    def __init__(self, path: Path):
        self.path = path
        self.errors: list[str] = []

    def err(self, where: str, msg: str) -> None:
        self.errors.append(f"{where}: {msg}")

    def raise_if_any(self) -> None:
        if self.errors:
            lines = self.errors[:_MAX_ERRORS]
            if len(self.errors) > _MAX_ERRORS:
                lines.append(f"... and {len(self.errors) - _MAX_ERRORS} more")
            raise SweepFileError(f"{self.path}:\n" + "\n".join(f"  {e}" for e in lines))

    def unknown(self, where: str, table: dict, allowed: set[str]) -> None:
        for k in table:
            if k not in allowed:
                self.err(f"{where}{'.' if where else ''}{_q(k)}",
                         f"unknown key; expected one of {', '.join(sorted(allowed))}")

    def label(self, where: str, v: Any, what: str) -> str | None:
        if not isinstance(v, str) or not v.strip():
            self.err(where, f"expected a non-empty string as the {what}, got {_kind(v)}")
            return None
        if "," in v or "=" in v:
            self.err(where, f"{json.dumps(v)}: the {what} may not contain ',' or '=' "
                            "(they separate the parts of group_id)")
            return None
        return v

    def set_table(self, where: str, v: Any) -> _Entry | None:
        if not isinstance(v, dict):
            self.err(where, f"expected a table of \"key.path\" = value, got {_kind(v)}")
            return None
        ovr = []
        ok = True
        for k, x in v.items():
            kw = f"{where}.{_q(k)}"
            if not k.strip() or "=" in k:
                self.err(kw, "a key path must be non-empty and may not contain '='")
                ok = False
                continue
            if _norm_path(k) == ("simulation", "seed") or (
                    _norm_path(k) == ("simulation",) and isinstance(x, dict) and "seed" in x):
                self.err(kw, "the seed comes from `seeds`; a sweep may not set simulation.seed")
                ok = False
                continue
            try:
                ovr.append(f"{k.strip()}={_toml.value(x, k)}")
            except _toml.TomlValueError as e:
                self.err(kw, str(e))
                ok = False
        return _Entry(where, v, ovr) if ok else None


def _read_sweep_file(path: Path) -> dict:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise SweepFileError(f"{path}: cannot read the sweep file: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise SweepFileError(f"{path}: not valid TOML: {e}") from None


def _base_source(c: _Checker, doc: dict) -> tuple[tuple[str, str, str, str], str | dict] | None:
    if "base" not in doc:
        c.err("base", "missing; give the base scenario: base = \"scenario.toml\" "
                      "(relative to the sweep file) or a [base] table")
        return None
    b = doc["base"]
    sweep_dir = c.path.parent
    if isinstance(b, str):
        p = Path(b)
        if not p.is_absolute():
            p = sweep_dir / p
        p = Path(os.path.normpath(p.absolute()))
        try:
            text = p.read_text()
        except OSError as e:
            c.err("base", f"{json.dumps(b)}: cannot read the scenario file {p}: {e.strerror}")
            return None
        fmt = "json" if p.suffix == ".json" else "toml"
        return (text, fmt, str(p), str(p.parent)), str(p)
    if isinstance(b, dict):
        try:
            text = _toml.document(b)
        except _toml.TomlValueError as e:
            c.errors.append(f"base.{e}")
            return None
        return (text, "toml", f"{c.path} [base]", str(sweep_dir.absolute())), b
    c.err("base", f"expected a file path (string) or a [base] table, got {_kind(b)}")
    return None


def _seeds(c: _Checker, doc: dict) -> list[int]:
    if "seeds" not in doc:
        c.err("seeds", "missing; give seeds = N (seeds 1..N) or a list of seeds")
        return []
    s = doc["seeds"]
    if isinstance(s, int) and not isinstance(s, bool):
        if s < 1:
            c.err("seeds", f"{s}: expected at least 1 (seeds = N runs seeds 1..N)")
            return []
        return list(range(1, s + 1))
    if isinstance(s, list):
        if not s:
            c.err("seeds", "empty list; give at least one seed")
            return []
        out, seen = [], set()
        for i, x in enumerate(s):
            if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < 2**64:
                c.err(f"seeds[{i}]", f"{x!r}: expected an integer from 0 to 2**64-1")
            elif x in seen:
                c.err(f"seeds[{i}]", f"seed {x} is listed twice")
            else:
                seen.add(x)
                out.append(x)
        return out
    c.err("seeds", f"expected a count N (seeds 1..N) or a list of seeds, got {_kind(s)} {s!r}")
    return []


@dataclass
class _Axis:
    name: str
    where: str
    #: (label, group value, entry) per point of the axis.
    points: list[tuple[str, Any, _Entry]]


def _value_label(v: Any) -> tuple[str, Any] | None:
    """(label text, group value) of a key-axis value without explicit labels."""
    if isinstance(v, str):
        return v, v
    if isinstance(v, (bool, int, float)):
        return _toml.value(v, ""), v
    return None


def _axis(c: _Checker, i: int, a: Any, names: set[str]) -> _Axis | None:
    where = f"axes[{i}]"
    if not isinstance(a, dict):
        c.err(where, f"expected a table ([[axes]]), got {_kind(a)}")
        return None
    n_err = len(c.errors)
    name = c.label(f"{where}.name", a.get("name"), "axis name") if "name" in a else None
    if "name" not in a:
        c.err(f"{where}.name", "missing; every axis needs a name")
    elif name is not None:
        if name in RESERVED_AXIS_NAMES:
            c.err(f"{where}.name", f"{json.dumps(name)} is reserved: "
                                   f"{', '.join(RESERVED_AXIS_NAMES)} are other columns of a run")
        elif name in names:
            c.err(f"{where}.name", f"duplicate axis name {json.dumps(name)}")
        names.add(name)
    has_key, has_var = "key" in a, "variants" in a
    if has_key == has_var:
        c.err(where, "give either key + values (one key path) or variants (labelled sets), "
                     "not " + ("both" if has_key else "neither"))
        return None
    points: list[tuple[str, Any, _Entry]] = []
    seen: dict[str, int] = {}
    if has_key:
        c.unknown(where, a, _KEY_AXIS_KEYS)
        key = a["key"]
        if not isinstance(key, str) or not key.strip() or "=" in key:
            c.err(f"{where}.key", "expected a key path such as \"flows.0.cc\"")
            return None
        if _norm_path(key) == ("simulation", "seed"):
            c.err(f"{where}.key",
                  "the seed comes from `seeds`; a sweep may not set simulation.seed")
            return None
        if "values" not in a:
            c.err(f"{where}.values", "missing; list the values of the key")
            return None
        values = a["values"]
        if not isinstance(values, list) or not values:
            c.err(f"{where}.values", "expected a non-empty list of values"
                  if isinstance(values, list) else f"expected a list, got {_kind(values)}")
            return None
        labels = a.get("labels")
        if labels is not None and (not isinstance(labels, list) or len(labels) != len(values)):
            c.err(f"{where}.labels", f"expected a list of {len(values)} labels, one per value")
            return None
        for j, v in enumerate(values):
            vw = f"{where}.values[{j}]"
            if labels is not None:
                lab = c.label(f"{where}.labels[{j}]", labels[j], "label")
                gv = lab
            else:
                lv = _value_label(v)
                if lv is None:
                    c.err(vw, f"{_kind(v)} value needs a label: add labels = [...] to the axis")
                    continue
                lab, gv = lv
                if "," in lab or "=" in lab:
                    c.err(vw, f"{json.dumps(lab)} contains ',' or '=', which separate the parts "
                              "of group_id: add labels = [...] to the axis")
                    continue
            if lab is None:
                continue
            if lab in seen:
                c.err(vw if labels is None else f"{where}.labels[{j}]",
                      f"duplicate {'value' if labels is None else 'label'} {json.dumps(lab)} "
                      f"(also at index {seen[lab]})")
                continue
            seen[lab] = j
            e = c.set_table(vw, {key: v})
            if e is not None:
                e.where = vw
                points.append((lab, gv, e))
    else:
        c.unknown(where, a, _VARIANT_AXIS_KEYS)
        variants = a["variants"]
        if not isinstance(variants, list) or not variants:
            c.err(f"{where}.variants", "expected a non-empty list of { label = ..., set = {...} }")
            return None
        points.extend((lab, lab, e) for lab, e in _named_sets(
            c, f"{where}.variants", variants, "label", "variant", _VARIANT_KEYS,
            "{ label = ..., set = {...} }"))
    if len(c.errors) > n_err or name is None:
        return None
    return _Axis(name, where, points)


def _replicates(c: _Checker, doc: dict) -> list[tuple[str, _Entry]] | None:
    """None when the file has no replicates."""
    if "replicates" not in doc:
        return None
    reps = doc["replicates"]
    if not isinstance(reps, list) or not reps:
        c.err("replicates", "expected a non-empty list of [[replicates]] (or leave it out)")
        return []
    return _named_sets(c, "replicates", reps, "name", "replicate", _REPLICATE_KEYS,
                       "([[replicates]])")


def _named_sets(c: _Checker, where: str, items: list, name_key: str, what: str,
                keys, table_hint: str) -> list[tuple[str, _Entry]]:
    """Checks a list of ``{<name_key> = ..., set = {...}}`` tables (axis variants,
    replicates): each a table of known keys with a unique name and a valid ``set``.
    Returns (name, entry) for the good ones; the errors name the offending key."""
    out, seen = [], {}
    kind = "label" if name_key == "label" else f"{what} {name_key}"
    for i, r in enumerate(items):
        w = f"{where}[{i}]"
        if not isinstance(r, dict):
            c.err(w, f"expected a table {table_hint}, got {_kind(r)}")
            continue
        c.unknown(w, r, keys)
        if name_key not in r:
            c.err(f"{w}.{name_key}", f"missing; every {what} needs a {name_key}")
            continue
        name = c.label(f"{w}.{name_key}", r[name_key], kind)
        if name is None:
            continue
        if name in seen:
            c.err(f"{w}.{name_key}", f"duplicate {kind} {json.dumps(name)} "
                                     f"(also {where.rsplit('.', 1)[-1]}[{seen[name]}])")
            continue
        seen[name] = i
        if "set" not in r:
            c.err(f"{w}.set", f"missing; give the keys this {what} sets (set = {{}} for none)")
            continue
        e = c.set_table(f"{w}.set", r["set"])
        if e is not None:
            out.append((name, e))
    return out


def _validate(source, overrides: list[str]) -> dict:
    """The resolved scenario, exactly as ``mmtsim.validate`` computes it (with the base
    directory of the sweep's base, which a dict given to ``mmtsim.validate`` lacks)."""
    text, fmt, origin, base_dir = source
    return json.loads(_core.validate(text, fmt, origin, base_dir, overrides))


def _indent(msg: str) -> str:
    return msg.replace("\n", "\n    ")


def _check_alone(c: _Checker, source, common: list[str], e: _Entry) -> None:
    """Validates one entry on the base (plus the common `set`), naming the entry."""
    try:
        _validate(source, common + e.overrides)
    except _core.ScenarioError as err:
        hint = ""
        if any(isinstance(v, dict) and "." not in k for k, v in e.items.items()):
            hint = ("\n    (to set one nested key, quote its whole path: "
                    "\"flows.0.cc\" = ..., not flows.0.cc = ...)")
        c.err(e.where, f"{', '.join(e.overrides) or '(no keys)'}:\n    {_indent(str(err))}{hint}")


def _check_overlaps(c: _Checker, entries: list[tuple[str, set[tuple[str, ...]]]]) -> None:
    """Two entries (set, axes, replicates) may not set the same key or one inside another:
    which one wins would depend on their order."""
    for a in range(len(entries)):
        for b in range(a + 1, len(entries)):
            wa, ka = entries[a]
            wb, kb = entries[b]
            for x in sorted(ka):
                for y in sorted(kb):
                    n = min(len(x), len(y))
                    if x[:n] == y[:n]:
                        c.err(wb, f"sets {'.'.join(y)}, which {wa} sets too"
                                  + ("" if x == y else f" ({'.'.join(x)})"))


def canonical_json(v: Any) -> str:
    """The canonical JSON the run id hashes: sorted keys, no spaces, ASCII."""
    return json.dumps(v, sort_keys=True, separators=(",", ":"))


def run_id_of(resolved: dict, seed: int, version: str | None = None) -> str:
    """The run id of a resolved scenario and a seed (see the module doc)."""
    doc = {"scenario": resolved, "seed": seed,
           "version": _core.__version__ if version is None else version}
    return hashlib.sha256(canonical_json(doc).encode()).hexdigest()[:16]


def load_sweep(sweep_file: str | os.PathLike) -> SweepPlan:
    """Reads, checks and expands a sweep file. Raises :class:`SweepFileError`."""
    path = Path(os.path.normpath(Path(sweep_file).absolute()))
    doc = _read_sweep_file(path)
    c = _Checker(path)
    c.unknown("", doc, _TOP_KEYS)
    if "description" in doc and not isinstance(doc["description"], str):
        c.err("description", f"expected a string, got {_kind(doc['description'])}")
    based = _base_source(c, doc)
    seeds = _seeds(c, doc)
    common = c.set_table("set", doc["set"]) if "set" in doc else _Entry("set", {}, [])
    axes: list[_Axis] = []
    raw_axes = doc.get("axes", [])
    if not isinstance(raw_axes, list) or ("axes" in doc and not raw_axes):
        c.err("axes", "expected a non-empty list of [[axes]] (or leave it out)")
        raw_axes = []
    names: set[str] = set()
    for i, a in enumerate(raw_axes):
        ax = _axis(c, i, a, names)
        if ax is not None:
            axes.append(ax)
    reps = _replicates(c, doc)
    c.raise_if_any()
    assert based is not None and common is not None
    source, base_desc = based

    # Each piece on its own, so that a bad key path or value is reported at its key.
    try:
        _validate(source, [])
    except _core.ScenarioError as err:
        c.err("base", f"the base scenario is invalid:\n    {_indent(str(err))}")
        c.raise_if_any()
    if common.items:
        _check_alone(c, source, [], common)
        c.raise_if_any()
    for ax in axes:
        for _, _, e in ax.points:
            _check_alone(c, source, common.overrides, e)
    for _, e in reps or []:
        _check_alone(c, source, common.overrides, e)
    keysets = [("set", {_norm_path(k) for k in common.items})]
    keysets += [(ax.where, {_norm_path(k) for _, _, e in ax.points for k in e.items})
                for ax in axes]
    if reps:
        keysets.append(("replicates", {_norm_path(k) for _, e in reps for k in e.items}))
    _check_overlaps(c, keysets)
    c.raise_if_any()

    # The whole grid: every combination validated before anything runs.
    runs: list[PlannedRun] = []
    by_sha: dict[str, str] = {}
    version = _core.__version__
    rep_list: list[tuple[str | None, _Entry | None]] = (
        [(name, e) for name, e in reps] if reps else [(None, None)])
    for combo in product(*(ax.points for ax in axes)):
        group = {ax.name: gv for ax, (_, gv, _) in zip(axes, combo)}
        group_id = ",".join(f"{ax.name}={lab}" for ax, (lab, _, _) in zip(axes, combo)) or "base"
        grid_ovr = common.overrides + [o for _, _, e in combo for o in e.overrides]
        resolved_by_rep = []
        for rep, rep_entry in rep_list:
            ovr = grid_ovr + (rep_entry.overrides if rep_entry is not None else [])
            # Named by the sweep-file entries that make the run, then by the run.
            parts = [e.where for _, _, e in combo] + ([rep_entry.where] if rep_entry else [])
            what = (" + ".join(parts) or "base") + f" (run {group_id}" + (
                f", replicate {rep})" if rep is not None else ")")
            try:
                resolved = _validate(source, ovr)
            except _core.ScenarioError as err:
                c.err(what, f"the combination is invalid:\n    {_indent(str(err))}")
                continue
            sha = hashlib.sha256(canonical_json(resolved).encode()).hexdigest()
            # Seeds are distinct, so two run ids collide exactly when the scenarios do.
            if sha in by_sha:
                c.err(what, f"resolves to the same scenario as {by_sha[sha]}: their results "
                            "could not be told apart (two entries give equal values)")
                continue
            by_sha[sha] = what
            resolved_by_rep.append((rep, ovr, resolved, sha))
        for seed in seeds:
            for rep, ovr, resolved, sha in resolved_by_rep:
                rid = run_id_of(resolved, seed, version)
                runs.append(PlannedRun(rid, group, group_id, seed, rep, ovr, sha))
    c.raise_if_any()
    return SweepPlan(path, base_desc, [ax.name for ax in axes], runs, source)


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
