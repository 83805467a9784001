"""`mmtsim keys`: every scenario key with type, unit, default and description."""

from __future__ import annotations

import json

from conftest import cli

import mmtsim._core as core
from mmtsim.keys import scenario_keys


def leaf_paths(schema: dict) -> set[str]:
    """Independent walk: the dotted paths of the scenario's top-level tables' own keys."""
    defs = schema["$defs"]
    out = set()
    for top, node in schema["properties"].items():
        ref = node.get("$ref") or node.get("items", {}).get("$ref") or next(
            (a["$ref"] for a in node.get("anyOf", []) if "$ref" in a), None)
        if ref is None:
            out.add(top)
            continue
        d = defs[ref.rsplit("/", 1)[-1]]
        sep = "[]." if node.get("type") == "array" else "."
        for k in d.get("properties", {}):
            out.add(f"{top}{sep}{k}")
    return out


def by_path(paths: list[str]) -> set[str]:
    return set(paths)


def test_every_key_is_listed_once_with_its_facts():
    keys = scenario_keys()
    paths = [k.path for k in keys]
    assert len(paths) == len(set(paths)), "a key listed twice"
    # Every key of every top-level table is listed, itself or through the keys of its table.
    for p in leaf_paths(json.loads(core.schema())):
        assert p in by_path(paths) or any(q.startswith(p + ".") for q in paths), p
    by = {k.path: k for k in keys}
    # By hand from the scenario model: min_rto is a duration of default 200 ms.
    k = by["flows[].tcp.min_rto"]
    assert (k.type, k.default, k.unit) == ("duration", "200ms", "ns/us/ms/s/min")
    assert k.description.startswith("Minimum RTO")
    assert by["flows[].tcp.rto_ssthresh"].type == '"linux" | "ns3"'
    assert by["links[].rate"].unit == "bps/kbps/Mbps/Gbps"
    assert by["metrics.sample_budget"].default == "1000000"
    assert all(k.description for k in keys), [k.path for k in keys if not k.description]


def test_prefix_filters_and_unknown_prefix_is_exit_2():
    assert {k.path for k in scenario_keys("flows.tcp")} == {
        k.path for k in scenario_keys() if k.path.startswith("flows[].tcp.")}
    r = cli("keys", "flws")
    assert r.returncode == 2 and "'flws'" in r.stderr and "did you mean 'flows'" in r.stderr
    r = cli("keys", "ran.rlc")
    assert r.returncode == 0 and "ran.rlc.t_reordering" in r.stdout
