"""The mmtsim command's subcommands and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import EXAMPLES, cli


def test_version():
    r = cli("--version")
    assert r.returncode == 0 and r.stdout.startswith("mmtsim ")


def test_validate_ok(small_toml: Path):
    r = cli("validate", str(small_toml))
    assert r.returncode == 0
    assert "ok (2 nodes, 1 links, 1 flows, 2s)" in r.stdout


def test_run_prints_a_summary_and_quiet_does_not(small_toml: Path, tmp_path: Path):
    r = cli("run", str(small_toml), "--out", str(tmp_path / "a"), "--seed", "5")
    assert r.returncode == 0
    assert "seed 5" in r.stdout and "cubic" in r.stdout
    r = cli("run", str(small_toml), "--out", str(tmp_path / "b"), "--quiet")
    assert r.returncode == 0 and r.stdout == ""
    s = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert s["seed"] == 5 and s["scenario"]["simulation"]["seed"] == 5


def test_plot_of_a_non_run_folder_fails_cleanly(tmp_path: Path):
    r = cli("plot", str(tmp_path))
    assert r.returncode == 2 and "not an mmtsim run folder" in r.stderr


def test_schema_is_json_and_describes_the_scenario(tmp_path: Path):
    r = cli("schema", "--out", str(tmp_path / "s.json"))
    assert r.returncode == 0
    schema = json.loads((tmp_path / "s.json").read_text())
    assert set(schema["required"]) == {"simulation", "nodes", "links", "flows"}
    assert schema["properties"]["simulation"]
    # The unit types carry patterns an editor can check.
    import re

    defs = schema.get("$defs", schema.get("definitions"))
    pat = re.compile(defs["Duration"]["pattern"])
    assert pat.match("10ms") and not pat.match("10 ms") and not pat.match("10")
    assert re.match(defs["Rate"]["pattern"], "1Gbps")
    assert re.match(defs["Size"]["pattern"], "1.4kB")


def test_bench_list_and_unknown():
    r = cli("bench", "--list")
    assert r.returncode == 0 and "cubic-1g-60s" in r.stdout
    r = cli("bench", "--only", "nope")
    assert r.returncode == 2 and "unknown benchmark" in r.stderr


def test_usage_errors_exit_2():
    assert cli().returncode == 2
    assert cli("frobnicate").returncode == 2
    r = cli("run", str(EXAMPLES / "blockage.toml"))
    assert r.returncode == 2 and "--out" in r.stderr


def test_run_prints_each_split_flows_end_to_end_line(tmp_path: Path):
    """A relayed flow's line gives the relay's sojourn; an mmCPTP download's, whose proxy
    keeps a cache rather than a relay buffer, stops at the end-to-end delay."""
    r = cli("run", str(EXAMPLES / "mmcptp-blockage.toml"), "--out", str(tmp_path / "a"),
            "--set", "simulation.duration=2s")
    assert r.returncode == 0, r.stderr
    lines = {ln.split(":")[0]: ln for ln in r.stdout.splitlines() if ": split at " in ln}
    assert set(lines) == {"itcp", "mmcptp"}, r.stdout
    assert "the relay held a byte" in lines["itcp"]
    assert lines["mmcptp"].endswith(" ms") and "relay held" not in lines["mmcptp"]
