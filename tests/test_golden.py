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


@pytest.mark.parametrize("name", sorted(STORED))
def test_example_figures_unchanged(name: str):
    now = figures(EXAMPLES / f"{name}.toml")
    want = STORED[name]
    assert now["tables"] == want["tables"]
    # Field by field, so a failure names the figure that moved.
    for key in sorted(set(want["summary"]) | set(now["summary"])):
        assert now["summary"].get(key) == want["summary"].get(key), key
