"""``mmtsim keys [PREFIX]``: every scenario key with its type, unit, default and meaning.

Walks the JSON Schema the scenario crate emits (``mmtsim schema``): tables become dotted
paths, arrays of tables ``flows[].cc``, a key whose value may be one of several tables
(``app``, ``cc``) lists the keys of each variant under it. Units come from the quantity
types (duration, rate, size). The description is the first sentence of the key's own doc.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any

from . import _core

#: Quantity types of the schema and the units they take.
UNITS = {"Duration": "ns/us/ms/s/min", "Rate": "bps/kbps/Mbps/Gbps",
         "Size": "B/kB/KiB/MB/MiB/GB/GiB"}


@dataclass(frozen=True)
class Key:
    path: str
    type: str
    unit: str
    default: str
    description: str


class UnknownPrefix(ValueError):
    """A prefix no key starts with (bad input: exit code 2)."""


def _first_sentence(text: str) -> str:
    text = " ".join((text or "").split())
    i = text.find(". ")
    while i >= 0 and text[max(0, i - 3):i] in ("i.e", "e.g"):
        i = text.find(". ", i + 1)
    return text if i < 0 else text[: i + 1]


def _default(node: dict) -> str:
    if "default" not in node or node["default"] is None:
        return "-"
    d = node["default"]
    return d if isinstance(d, str) else json.dumps(d)


class _Walker:
    def __init__(self, schema: dict):
        self.defs = schema.get("$defs", {})
        self.keys: list[Key] = []

    def resolve(self, node: dict) -> tuple[dict, str | None]:
        """The node behind a $ref (and the type name), an optional (`anyOf` with null)
        unwrapped."""
        name = None
        while True:
            if "$ref" in node:
                name = node["$ref"].rsplit("/", 1)[-1]
                node = {**self.defs[name], **{k: v for k, v in node.items() if k != "$ref"}}
                continue
            alts = node.get("anyOf")
            if alts and any(a.get("type") == "null" for a in alts):
                rest = [a for a in alts if a.get("type") != "null"]
                if len(rest) == 1:
                    node = {**rest[0], **{k: v for k, v in node.items() if k != "anyOf"}}
                    continue
            return node, name

    def type_of(self, node: dict, name: str | None) -> str:
        if name in UNITS:
            return name.lower()
        alts = node.get("oneOf") or node.get("anyOf")
        if alts and all("const" in a for a in alts):
            return " | ".join(json.dumps(a["const"]) for a in alts)
        t = node.get("type")
        if t == "array":
            item, iname = self.resolve(node.get("items", {}))
            return f"array of {self.type_of(item, iname)}"
        if isinstance(t, list):
            return " | ".join(x for x in t if x != "null")
        if alts:
            return " | ".join(self.type_of(*self.resolve(a)) for a in alts)
        return t or (name or "value")

    def walk(self, node: dict, path: str, desc: str = "", default: str = "-") -> None:
        node, name = self.resolve(node)
        desc = desc or node.get("description", "")
        props = node.get("properties")
        if props and node.get("type") == "object":
            for k in sorted(props):
                child = props[k]
                self.walk(child, f"{path}.{k}" if path else k, child.get("description", ""),
                          _default(child))
            return
        if node.get("type") == "array":
            item, _ = self.resolve(node.get("items", {}))
            if item.get("properties"):
                self.keys.append(Key(path, "array of tables", "", default, _first_sentence(desc)))
                self.walk(item, f"{path}[]")
                return
        alts = node.get("oneOf") or node.get("anyOf") or []
        tables = [self.resolve(a)[0] for a in alts]
        tables = [t for t in tables if t.get("properties")]
        self.keys.append(Key(path, self.type_of(node, name), UNITS.get(name or "", ""), default,
                             _first_sentence(desc)))
        seen = set()
        for t in tables:
            for k in sorted(t["properties"]):
                if (k not in seen) and not (k == "kind" and "const" in t["properties"][k]):
                    seen.add(k)
                    self.walk(t["properties"][k], f"{path}.{k}",
                              t["properties"][k].get("description", ""),
                              _default(t["properties"][k]))


def scenario_keys(prefix: str = "") -> list[Key]:
    """Every key of the scenario format whose path starts with ``prefix`` (``flows.tcp``
    matches ``flows[].tcp.*``)."""
    w = _Walker(json.loads(_core.schema()))
    w.walk(w.resolve(json.loads(_core.schema()))[0], "")
    keys = w.keys
    if not prefix:
        return keys
    norm = prefix.replace("[]", "").strip(".")
    out = [k for k in keys if k.path.replace("[]", "").startswith(norm)]
    if not out:
        names = sorted({k.path.replace("[]", "") for k in keys})
        near = difflib.get_close_matches(norm, names, n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        raise UnknownPrefix(f"keys {prefix!r}: no scenario key starts with it{hint} "
                            "(`mmtsim keys` lists them all)")
    return out


def format_keys(keys: list[Key]) -> str:
    rows = [("key", "type", "unit", "default", "description")] + [
        (k.path, k.type, k.unit, k.default, k.description) for k in keys]
    widths = [min(max(len(r[i]) for r in rows), cap) for i, cap in enumerate((34, 28, 22, 12))]

    def cut(s: str, w: int) -> str:
        return s if len(s) <= w else s[: w - 1] + "…"

    return "\n".join("  ".join(cut(r[i], widths[i]).ljust(widths[i]) for i in range(4))
                     + "  " + r[4] for r in rows)
