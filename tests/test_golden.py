"""Every shipped example gives the figures stored in `golden/examples.json`.

The core is being rebuilt in steps that must not change any result; this test is the
check of that promise (see `golden_figures.py` for what is stored and when it may be
rewritten).
"""

from __future__ import annotations

import json

import pytest

from golden_figures import EXAMPLES, GOLDEN, figures

STORED = json.loads(GOLDEN.read_text())


def test_every_example_has_stored_figures():
    assert set(STORED) == {p.stem for p in EXAMPLES.glob("*.toml")}


def moved(want, now, path="") -> list[str]:
    """Paths of the stored figures that `now` does not reproduce exactly. Keys that
    `now` has and the store does not are new outputs, not moves."""
    if isinstance(want, dict):
        if not isinstance(now, dict):
            return [path or "(top)"]
        out = []
        for k, v in want.items():
            out += moved(v, now[k], f"{path}.{k}") if k in now else [f"{path}.{k} (gone)"]
        return out
    if isinstance(want, list):
        if not isinstance(now, list) or len(now) != len(want):
            return [f"{path} (length)"]
        return [m for i, (a, b) in enumerate(zip(want, now)) for m in moved(a, b, f"{path}[{i}]")]
    return [] if want == now else [f"{path}: {want!r} -> {now!r}"]


def test_moved_names_changes_and_allows_additions():
    want = {"a": 1, "b": [{"c": 2.5}], "t": {"x": "h"}}
    assert moved(want, {"a": 1, "b": [{"c": 2.5, "new": 0}], "t": {"x": "h", "y": "g"}}) == []
    assert moved(want, {"a": 1, "b": [{"c": 2.6}], "t": {"x": "h"}}) == [".b[0].c: 2.5 -> 2.6"]
    assert moved(want, {"b": [], "t": {}}) == [".a (gone)", ".b (length)", ".t.x (gone)"]


@pytest.mark.parametrize("name", sorted(STORED))
def test_example_figures_unchanged(name: str):
    now = figures(EXAMPLES / f"{name}.toml")
    assert moved(STORED[name], now) == []
