"""Every example scenario validates and runs (shortened), and its run folder plots."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import EXAMPLES, cli

SCENARIOS = sorted(EXAMPLES.glob("*.toml"))


def test_there_are_examples():
    assert {p.name for p in SCENARIOS} >= {"blockage.toml", "codel.toml"}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_example_runs_and_plots(scenario: Path, tmp_path: Path):
    assert cli("validate", str(scenario)).returncode == 0
    out = tmp_path / scenario.stem
    r = cli("run", str(scenario), "--out", str(out), "--set", "simulation.duration=3s")
    assert r.returncode == 0, r.stderr
    assert "goodput Mbit/s" in r.stdout
    r = cli("plot", str(out))
    assert r.returncode == 0, r.stderr
    for name in ("goodput", "rtt", "cwnd", "queue", "overview"):
        png = out / "plots" / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_blockage_example_shows_the_blockage(tmp_path: Path):
    import mmtsim

    res = mmtsim.run(EXAMPLES / "blockage.toml", overrides=["simulation.duration=8s"])
    g = res.table("goodput")
    for flow in (0, 1):
        d = g.filter(g["flow"] == flow)
        los = d.filter((d["t_s"] >= 2) & (d["t_s"] < 5))["goodput_mbps"].mean()
        blocked = d.filter((d["t_s"] >= 5.1) & (d["t_s"] < 6))["goodput_mbps"].mean()
        # Line of sight: close to 1 Gbit/s; blocked: at most the 50 Mbit/s the trace allows.
        assert los > 800 and blocked <= 50 * 1400 / 1452 + 1


def test_codel_keeps_delay_low(tmp_path: Path):
    import mmtsim

    res = mmtsim.run(EXAMPLES / "codel.toml", overrides=["simulation.duration=10s"])
    f = {x["name"]: x for x in res.summary["flows"]}
    # CoDel holds sojourn near its 5 ms target: RTT stays near 40 ms + 5 ms while the
    # 10 MB drop-tail buffer lets it grow by hundreds of ms.
    assert f["codel#0"]["rtt_p95_ms"] < 60
    assert f["droptail#0"]["rtt_p95_ms"] > 200
