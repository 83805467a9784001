"""Reading, checking and expanding a sweep file into planned runs (``load_sweep``).

The format, the checks and the run identity are described in ``sweep.py``'s module doc.
The structure (types, known keys, required entries) is checked against the JSON Schema
``schemas/sweep.schema.json`` by ``jsonschema``, whose errors are put in the words of the
other checks: the key path, the value and what is expected. What needs more than a
schema stays here: labels that would break ``group_id``, reserved and duplicate names,
the seed set by a key, overlapping keys, and every key path and value, validated on the
base scenario with the same code as ``mmtsim.validate``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from itertools import product
from pathlib import Path
from typing import Any

from . import _core, _toml

#: Axis names that would collide with the other columns of a run row.
RESERVED_AXIS_NAMES = ("seed", "replicate", "run_id", "group_id")
#: Shown in full; beyond this many, the rest are counted.
_MAX_ERRORS = 20


class SweepFileError(ValueError):
    """A sweep file that cannot be run; one line per problem, each naming its key."""


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


# ---------------------------------------------------------------------------------------
# Reading and checking the sweep file

#: The keys of a variant axis (the schema allows a key axis's keys beside ``variants``).
_VARIANT_AXIS_KEYS = {"name", "variants"}


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

    def set_table(self, where: str, v: dict) -> _Entry | None:
        ovr = []
        ok = True
        for k, x in v.items():
            kw = f"{where}.{_q(k)}"
            if not k.strip():
                self.err(kw, "a key path must be non-empty")
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


@cache
def _schema() -> dict:
    """The JSON Schema of a sweep file's structure (``schemas/sweep.schema.json``)."""
    text = resources.files("mmtsim").joinpath("schemas", "sweep.schema.json").read_text()
    return json.loads(text)


def _where(path) -> str:
    """A jsonschema error path as a sweep-file key path: ``axes[0].variants[1].set``."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else f"{'.' if out else ''}{_q(p)}"
    return out


def _show(v: Any) -> str:
    text = json.dumps(v, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _explain(e) -> list[str]:
    """One jsonschema error in the words of the other checks: the key path, the value and
    what is expected (the schema's ``x-expected``, ``x-missing`` and ``x-message``)."""
    where, schema, value = _where(e.absolute_path), e.schema, e.instance
    sub = (lambda k: f"{where}.{_q(k)}" if where else _q(k))
    props = schema.get("properties", {})
    if e.validator == "additionalProperties":
        return [f"{sub(k)}: unknown key; expected one of {', '.join(sorted(props))}"
                for k in value if k not in props]
    if e.validator in ("required", "dependentRequired"):
        names = (e.validator_value if e.validator == "required" else
                 [d for k, deps in e.validator_value.items() if k in value for d in deps])
        return [f"{sub(k)}: missing; {props.get(k, {}).get('x-missing', 'required')}"
                for k in names if k not in value]
    expected = schema.get("x-expected")
    if e.validator == "oneOf" and "x-message" in schema:
        return [f"{where}: {schema['x-message']}"]
    if e.validator == "type":
        return [f"{where}: expected {expected or e.validator_value}, got {_kind(value)}"
                + ("" if isinstance(value, (dict, list)) else f" {_show(value)}")]
    if e.validator in ("minimum", "maximum") and schema.get("type") != "integer":
        side = "at least" if e.validator == "minimum" else "at most"
        return [f"{where}: {_show(value)}: expected {side} {e.validator_value}"]
    if e.validator == "minItems":
        return [f"{where}: expected {expected or 'a non-empty list'}"]
    return [f"{where}: {_show(value)}: expected {expected or e.message}"]


def _schema_errors(doc: dict) -> list[str]:
    """The structural errors of a sweep file, checked against its JSON Schema."""
    from jsonschema import Draft202012Validator

    out: list[str] = []
    for e in Draft202012Validator(_schema()).iter_errors(doc):
        out.extend(_explain(e))
    return out


def _read_sweep_file(path: Path) -> dict:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise SweepFileError(f"{path}: cannot read the sweep file: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise SweepFileError(f"{path}: not valid TOML: {e}") from None


def _base_source(c: _Checker, doc: dict) -> tuple[tuple[str, str, str, str], str | dict] | None:
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


def _seeds(c: _Checker, doc: dict) -> list[int]:
    """The seeds (the schema has checked their type and range); a list may not repeat one."""
    s = doc["seeds"]
    if isinstance(s, int):
        return list(range(1, s + 1))
    out: list[int] = []
    for i, x in enumerate(s):
        if x in out:
            c.err(f"seeds[{i}]", f"seed {x} is listed twice")
        else:
            out.append(x)
    return out


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


def _axis(c: _Checker, i: int, a: dict, names: set[str]) -> _Axis | None:
    """One axis (a table with a name and either key + values or variants: the schema has
    checked that): its labels, names and key paths."""
    where = f"axes[{i}]"
    n_err = len(c.errors)
    name = c.label(f"{where}.name", a["name"], "axis name")
    if name is not None:
        if name in RESERVED_AXIS_NAMES:
            c.err(f"{where}.name", f"{json.dumps(name)} is reserved: "
                                   f"{', '.join(RESERVED_AXIS_NAMES)} are other columns of a run")
        elif name in names:
            c.err(f"{where}.name", f"duplicate axis name {json.dumps(name)}")
        names.add(name)
    points: list[tuple[str, Any, _Entry]] = []
    seen: dict[str, int] = {}
    if "key" in a:
        key = a["key"]
        if not key.strip():
            c.err(f"{where}.key", "expected a key path such as \"flows.0.cc\"")
            return None
        if _norm_path(key) == ("simulation", "seed"):
            c.err(f"{where}.key",
                  "the seed comes from `seeds`; a sweep may not set simulation.seed")
            return None
        values = a["values"]
        labels = a.get("labels")
        if labels is not None and len(labels) != len(values):
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
        c.unknown(where, a, _VARIANT_AXIS_KEYS)  # values or labels beside variants
        points.extend((lab, lab, e) for lab, e in _named_sets(
            c, f"{where}.variants", a["variants"], "label", "variant"))
    if len(c.errors) > n_err or name is None:
        return None
    return _Axis(name, where, points)


def _replicates(c: _Checker, doc: dict) -> list[tuple[str, _Entry]] | None:
    """None when the file has no replicates."""
    if "replicates" not in doc:
        return None
    return _named_sets(c, "replicates", doc["replicates"], "name", "replicate")


def _named_sets(c: _Checker, where: str, items: list[dict], name_key: str,
                what: str) -> list[tuple[str, _Entry]]:
    """Checks a list of ``{<name_key> = ..., set = {...}}`` tables (axis variants,
    replicates; the schema has checked their keys): each needs a unique name and a valid
    ``set``. Returns (name, entry) for the good ones; the errors name the offending key."""
    out, seen = [], {}
    kind = "label" if name_key == "label" else f"{what} {name_key}"
    for i, r in enumerate(items):
        w = f"{where}[{i}]"
        name = c.label(f"{w}.{name_key}", r[name_key], kind)
        if name is None:
            continue
        if name in seen:
            c.err(f"{w}.{name_key}", f"duplicate {kind} {json.dumps(name)} "
                                     f"(also {where.rsplit('.', 1)[-1]}[{seen[name]}])")
            continue
        seen[name] = i
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
    # The structure first (types, known keys, required entries): the checks below rely on it.
    c.errors.extend(_schema_errors(doc))
    c.raise_if_any()
    based = _base_source(c, doc)
    seeds = _seeds(c, doc)
    common = c.set_table("set", doc["set"]) if "set" in doc else _Entry("set", {}, [])
    axes: list[_Axis] = []
    names: set[str] = set()
    for i, a in enumerate(doc.get("axes", [])):
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
