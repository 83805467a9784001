"""12g: bad scenario input gives one clear message naming the file, the key path, the value
and what is expected; exit code 2; nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SMALL, cli

# (id, replacement applied to SMALL (old, new) or full text, expected fragments)
CASES = [
    ("unknown-top-level-key", ("[simulation]", "[simulaton]"),
     ["unknown field `simulaton`", "did you mean `simulation`?"]),
    ("unknown-link-key", ('rate = "50Mbps"', 'rat = "50Mbps"'),
     ["links[0]", "unknown field `rat`", "did you mean `rate`?"]),
    ("bare-number-without-unit", ('delay = "10ms"', "delay = 10"),
     ["links[0].delay", "bare number has no unit", '"10ms"']),
    ("space-in-quantity", ('rate = "50Mbps"', 'rate = "50 Mbps"'),
     ["links[0].rate", 'invalid rate "50 Mbps"', "bps, kbps, Mbps, Gbps"]),
    ("unknown-unit", ('delay = "10ms"', 'delay = "10sec"'),
     ["links[0].delay", 'unknown unit "sec"']),
    ("negative-duration", ('delay = "10ms"', 'delay = "-5ms"'),
     ["links[0].delay", 'invalid duration "-5ms"']),
    ("missing-field", ('delay = "10ms"\n', ""),
     ["links[0]", "missing field `delay`"]),
    ("wrong-type", ("seed = 1", 'seed = "one"'),
     ["simulation.seed", "invalid type"]),
    ("zero-duration", ('duration = "2s"', 'duration = "0s"'),
     ["simulation.duration", "longer than zero"]),
    ("zero-rate", ('rate = "50Mbps"', 'rate = "0Mbps"'),
     ["links[0].rate", "must be positive"]),
    ("undefined-flow-node", ('to = "client"', 'to = "clinet"'),
     ["flows[0].to", 'node "clinet" is not defined', "server, client"]),
    ("undefined-link-node", ('between = ["server", "client"]', 'between = ["server", "router"]'),
     ["links[0].between[1]", 'node "router" is not defined']),
    ("loss-probability-above-one", ('queue = { limit = "125kB" }',
                                   'queue = { limit = "125kB" }\nloss = { kind = "bernoulli", p = 1.5 }'),
     ["links[0].loss.p", "1.5 is not a probability"]),
    ("unknown-cc", ('cc = "cubic"', 'cc = "cubicc"'),
     ["flows[0].cc", 'unknown congestion control "cubicc"', 'did you mean "cubic"?']),
    ("mss-too-small", ('cc = "cubic"', 'cc = "cubic"\ntcp = { mss = "100B" }'),
     ["flows[0].tcp.mss", '"100B"', "536B to 65483B"]),
    ("flow-starts-after-end", ('cc = "cubic"', 'cc = "cubic"\nstart = "5s"'),
     ["flows[0].start", '"5s" is not before the end of the run']),
    ("udp-with-tcp-app", ('cc = "cubic"', 'protocol = "udp"'),
     ["flows[0].app.kind", 'UDP flow takes app kind "cbr"']),
    ("duplicate-node", ('name = "client"', 'name = "server"'),
     ["nodes[1].name", '"server" is defined twice']),
    ("unknown-app-kind", ('cc = "cubic"', 'cc = "cubic"\napp = { kind = "bulkk" }'),
     ["flows[0].app", "unknown variant `bulkk`", "did you mean `bulk`?"]),
    ("missing-trace-file", ('rate = "50Mbps"', 'trace = { file = "nope.csv" }\nreverse = { rate = "50Mbps" }'),
     ["links[0].trace.file", "cannot read", "nope.csv"]),
    ("invalid-toml", ("[simulation]", "[simulation"),
     ["not valid TOML (line 2)"]),
    ("queue-limit-zero", ('queue = { limit = "125kB" }', 'queue = { limit = "0B" }'),
     ["links[0].queue.limit", '"0B"', "must be positive"]),
    ("link-name-escaping-the-run-folder", ('between = ["server", "client"]',
                                           'name = "../../x"\nbetween = ["server", "client"]'),
     ["links[0].name", '"../../x"', "letters, digits"]),
    ("duplicate-flow-names", ('cc = "cubic"', 'cc = "cubic"\nname = "f"\n\n[[flows]]\nname = "f"\nfrom = "server"\nto = "client"'),
     ["flows[1].name", 'flow name "f" is already used by flows[0]']),
    ("mss-too-large", ('cc = "cubic"', 'cc = "cubic"\ntcp = { mss = "64KiB" }'),
     ["flows[0].tcp.mss", '"64KiB"', "536B to 65483B"]),
    ("goodput-bin-too-fine", ("seed = 1", 'seed = 1\n[metrics]\ngoodput_bin = "1ns"'),
     ["metrics.goodput_bin", "2000000000 bins", "at most 10000000"]),
    ("positional-array-for-a-table", ('[simulation]\nduration = "2s"\nseed = 1', 'simulation = ["2s", 1]'),
     ["simulation", "expected a table"]),
    ("duration-too-large", ('duration = "2s"', 'duration = "99999999999999min"'),
     ["simulation.duration", "too large (at most 1000000s)"]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_scenario_is_rejected_with_a_clear_message(tmp_path: Path, case):
    _, (old, new), fragments = case
    assert old in SMALL, f"test setup: {old!r} not in the base scenario"
    scen = tmp_path / "bad.toml"
    scen.write_text(SMALL.replace(old, new, 1))
    out = tmp_path / "out"
    r = cli("run", str(scen), "--out", str(out), "--quiet")
    assert r.returncode == 2, r.stderr
    assert str(scen) in r.stderr
    for f in fragments:
        assert f in r.stderr, f"{f!r} not in:\n{r.stderr}"
    assert not out.exists(), "a rejected scenario must not write anything"
    assert list(tmp_path.iterdir()) == [scen], "no staging folders left behind"
    # validate reports the same.
    v = cli("validate", str(scen))
    assert v.returncode == 2 and all(f in v.stderr for f in fragments)


def test_malformed_trace_file_names_the_line(tmp_path: Path):
    (tmp_path / "t.csv").write_text("time_s,rate_mbps\n0,10\n1,ten\n")
    scen = tmp_path / "s.toml"
    scen.write_text(SMALL.replace('rate = "50Mbps"', 'trace = { file = "t.csv" }\nreverse = { rate = "50Mbps" }'))
    r = cli("validate", str(scen))
    assert r.returncode == 2
    assert "links[0].trace.file" in r.stderr and "line 3" in r.stderr, r.stderr


def test_no_route_between_flow_nodes(tmp_path: Path):
    scen = tmp_path / "s.toml"
    text = SMALL.replace('[[links]]', '[[nodes]]\nname = "island"\n\n[[links]]', 1).replace('to = "client"', 'to = "island"')
    scen.write_text(text)
    r = cli("validate", str(scen))
    assert r.returncode == 2
    assert 'flows[0].to' in r.stderr and 'no path of links leads from "server" to "island"' in r.stderr


def test_bad_override_path_and_value(small_toml: Path, tmp_path: Path):
    r = cli("run", str(small_toml), "--out", str(tmp_path / "o"), "--set", "flows.3.cc=newreno")
    assert r.returncode == 2 and "--set flows.3.cc=newreno" in r.stderr and "index 3 is out of range" in r.stderr
    r = cli("run", str(small_toml), "--out", str(tmp_path / "o"), "--set", "simulation.duration=3 s")
    assert r.returncode == 2 and "simulation.duration" in r.stderr and 'invalid duration "3 s"' in r.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("args, fragment", [
    (["--seed", "abc"], "--seed 'abc': expected a whole number"),
    (["--seed", "-1"], "--seed -1: expected 0 to 2**64-1"),
    (["--set", "novalue"], "expected key.path=value"),
])
def test_bad_flags(small_toml: Path, tmp_path: Path, args, fragment):
    r = cli("run", str(small_toml), "--out", str(tmp_path / "o"), *args)
    assert r.returncode == 2 and fragment in r.stderr, r.stderr
    assert not (tmp_path / "o").exists()


def test_missing_scenario_file(tmp_path: Path):
    r = cli("validate", str(tmp_path / "missing.toml"))
    assert r.returncode == 2 and "cannot read the scenario file" in r.stderr


def test_python_api_raises_scenario_error():
    import mmtsim

    bad = {"simulation": {"duration": "1s"}, "nodes": [], "links": [], "flows": []}
    with pytest.raises(mmtsim.ScenarioError, match=r"<dict>: nodes: no nodes defined"):
        mmtsim.run(bad)
    with pytest.raises(ValueError, match="seed"):
        mmtsim.run({"simulation": {"duration": "1s"}}, seed=-3)
    with pytest.raises(TypeError, match="path or a dict"):
        mmtsim.run(42)
    with pytest.raises(mmtsim.ScenarioError, match=r"<dict>: simulation.duration: None is not allowed"):
        mmtsim.validate({"simulation": {"duration": None}})
    # A NaN reaches validation and is reported with its key path.
    from conftest import small_dict

    sc = small_dict()
    sc["links"][0]["loss"] = {"kind": "bernoulli", "p": float("nan")}
    with pytest.raises(mmtsim.ScenarioError, match=r"links\[0\]\.loss\.p: NaN is not a probability"):
        mmtsim.validate(sc)
    with pytest.raises(mmtsim.ScenarioError, match=r"overrides: x: a object cannot be written"):
        mmtsim.validate(small_dict(), overrides={"x": object()})


def test_trace_export_bounds(tmp_path: Path):
    (tmp_path / "c.csv").write_text("time_s,rate_gbps\n0,100\n")
    r = cli("trace", str(tmp_path / "c.csv"), str(tmp_path / "m"), "--from", "csv", "--to",
            "mahimahi", "--until", "60s")
    assert r.returncode == 2 and "use a shorter --until" in r.stderr
    r = cli("trace", str(tmp_path / "c.csv"), str(tmp_path / "m"), "--from", "csv", "--to",
            "mahimahi", "--until=-5s")
    assert r.returncode == 2 and "invalid duration" in r.stderr
    r = cli("trace", str(tmp_path / "c.csv"), str(tmp_path), "--from", "csv", "--to", "csv",
            "--until", "1s")
    assert r.returncode == 2 and "is a directory" in r.stderr
    assert not (tmp_path / "m").exists()
