"""Python values → TOML (mmtsim._toml, by tomli-w): what api.py, sweep.py and reproduce.py
rely on. Every expectation is checked by reading the text back with tomllib."""

import math
import tomllib
from pathlib import Path

import numpy as np
import pytest

from mmtsim import _toml


def read_value(text: str):
    return tomllib.loads(f"v = {text}")["v"]


def test_values_round_trip_on_one_line():
    v = {"a": [1, [2, 3], {"b": 'x\ny"'}], "c.d": 1.5, "e": [], "f": {}, "g": True}
    text = _toml.value(v, "k")
    assert "\n" not in text  # an override is one `key=value` string
    assert read_value(text) == v


def test_numpy_paths_nan_and_inf_become_plain_values():
    text = _toml.value({"i": np.int64(3), "x": np.float32(0.5), "p": Path("/tmp/t.csv"),
                        "arr": np.array([1, 2]), "nan": float("nan"), "ninf": -math.inf},
                       "k")
    got = read_value(text)
    assert got["i"] == 3 and got["x"] == 0.5 and got["p"] == "/tmp/t.csv"
    assert got["arr"] == [1, 2] and math.isnan(got["nan"]) and got["ninf"] == -math.inf


def test_a_list_of_long_tables_stays_inline():
    # tomli-w writes such a list as [[v]] sections at top level; an inline value must not.
    v = [{"name": "x" * 120, "n": 1}]
    assert read_value(_toml.value(v, "k")) == v


@pytest.mark.parametrize("v, where", [
    ({"a": [1, None]}, "k.a[1]: None"),
    ({"a": {1: 2}}, "k.a: keys must be strings"),
    ({"a": object()}, "k.a: a object cannot be written"),
])
def test_bad_values_are_refused_with_their_key_path(v, where):
    with pytest.raises(_toml.TomlValueError, match=None) as e:
        _toml.value(v, "k")
    assert str(e.value).startswith(where)


def test_document_round_trips():
    d = {"simulation": {"duration": "1s"}, "flows": [{"cc": "cubic", "app": {"kind": "bulk"}}],
         "set": {"flows.0.cc": "bbr"}}
    assert tomllib.loads(_toml.document(d)) == d
    with pytest.raises(_toml.TomlValueError, match="^flows\\[0\\].cc: None"):
        _toml.document({"flows": [{"cc": None}]})
