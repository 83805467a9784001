"""`mmtsim reproduce mateo-buffer` and `mateo-blockage` (seed 002, Sec. III-A, Figs. 1-2):
the scene's geometry against the paper's NLOS durations, the analysis's pieces by hand, and
reduced versions of both studies with the direction of each finding they can show."""

from __future__ import annotations

import json
import tomllib

import pytest

from conftest import cli


def test_blocker_by_hand():
    from mmtsim.reproductions.mateo_blockage import blocker

    # Band y in [-48.3, -48]: the AP-UE segment (UE on y = -50) crosses it at fractions
    # 0.96 … 0.966. Hidden for x in [1.5, 1.875]: x' = f·x meets [a, b] iff 0.966·x >= a
    # and 0.96·x <= b, so a = 0.966 · 1.5 = 1.449, b = 0.96 · 1.875 = 1.8.
    b = blocker(1.5, 1.875, -48.3, -48.0, 3.0)
    assert b["min_m"] == pytest.approx([1.449, -48.3, 0.0])
    assert b["max_m"] == pytest.approx([1.8, -48.0, 3.0])
    # Mirrored: for x <= 0 the roles of the fractions swap.
    m = blocker(-1.875, -1.5, -48.3, -48.0, 3.0)
    assert m["min_m"][0] == pytest.approx(-1.8) and m["max_m"][0] == pytest.approx(-1.449)
    # Around x = 0 (the building): the far face (f = 0.76) bounds it, 0.76 · 9.75 = 7.41.
    w = blocker(-9.75, 9.75, -48.0, -38.0, 15.0)
    assert (w["min_m"][0], w["max_m"][0]) == pytest.approx((-7.41, 7.41))
    # The segment is 10 - 0.76 · 8.5 = 3.54 m high at the far face: a 3 m box misses it.
    with pytest.raises(ValueError, match="below the segment"):
        blocker(-9.75, 9.75, -48.0, -38.0, 3.0)


def test_the_walk_and_the_nlos_periods_are_the_papers():
    from mmtsim.reproductions.mateo_blockage import (BLOCKAGES, DURATION_S, nlos_intervals_s,
                                                     ue_x)

    # Static 2 s, 1.5 m/s for 21 s (31.5 m), static 2 s; 50 m from the AP mid-walk.
    assert DURATION_S == 25.0
    assert (ue_x(0.0), ue_x(2.0), ue_x(12.5), ue_x(23.0), ue_x(25.0)) == pytest.approx(
        (-15.75, -15.75, 0.0, 15.75, 15.75))
    total = {k: sum(b - a for a, b in nlos_intervals_s(k)) for k in BLOCKAGES}
    assert total == pytest.approx({"building": 13.0, "two": 8.0, "six": 1.5})
    assert [len(nlos_intervals_s(k)) for k in ("building", "two", "six")] == [1, 2, 6]


@pytest.mark.parametrize("kind", ["building", "two", "six"])
def test_the_simulated_los_follows_the_intended_nlos_periods(kind):
    """The simulator's own segment-box test, sampled every 1 ms (its channel update), finds
    NLOS exactly in the intervals the boxes were solved for (to one sample), and the UE
    summary's LOS share of the samples is 1 - (NLOS time)/25 s, to one sample per edge."""
    import numpy as np

    import mmtsim
    from mmtsim.reproductions.common import HERE
    from mmtsim.reproductions.mateo_blockage import nlos_intervals_s, obstacles

    # A 1 Mbit/s flow: the channel is what is checked, not TCP.
    res = mmtsim.run(HERE / "mateo-blockage.toml", seed=1, overrides={
        "ran.obstacles": obstacles(kind), "metrics.rtt": False, "metrics.sample_interval": "1ms",
        "flows.0.app": {"kind": "rate", "rate": "1Mbps"}})
    ran = res.table("ran")
    t = ran["t_s"].to_numpy()
    nlos = ~ran["los"].to_numpy().astype(bool)
    edges = np.flatnonzero(np.diff(nlos.astype(int)))
    starts = t[edges[nlos[edges + 1]] + 1]
    ends = t[edges[~nlos[edges + 1]] + 1]
    want = nlos_intervals_s(kind)
    assert len(starts) == len(ends) == len(want)
    for (a, b), s, e in zip(want, starts, ends):
        assert s == pytest.approx(a, abs=0.0011) and e == pytest.approx(b, abs=0.0011)
    los_share = res.summary["ues"][0]["los_fraction"]
    assert los_share == pytest.approx(1 - sum(b - a for a, b in want) / 25.0,
                                      abs=2 * len(want) * 0.001 / 25.0)


def test_packaged_scenarios_hold_the_one_building_case():
    from mmtsim.reproductions.common import HERE
    from mmtsim.reproductions.mateo_blockage import obstacles

    want = obstacles("building")
    for name, rlc, rto in [("mateo-blockage.toml", "7MB", "200ms"),
                           ("mateo-buffer.toml", "1MB", "1s")]:
        doc = tomllib.loads((HERE / name).read_text())
        got = doc["ran"]["obstacles"]
        assert len(got) == 1
        assert got[0]["min_m"] == pytest.approx(want[0]["min_m"])
        assert got[0]["max_m"] == pytest.approx(want[0]["max_m"])
        assert doc["ran"]["rlc"]["buffer"] == rlc
        assert doc["flows"][0]["tcp"]["min_rto"] == rto
        assert doc["ran"]["preset"] == "mmwave-2017"


def test_slow_start_share_and_recoveries_by_hand():
    from mmtsim.reproductions.mateo_blockage import recoveries_s, slow_start_share

    # Samples from 2 s on: cwnd < ssthresh in 1 of 4 (no ssthresh yet counts as slow start).
    t = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert slow_start_share(t, [1, 5, 10, 10, 3], [None, 8, 8, 8, None]) == pytest.approx(0.5)
    assert slow_start_share(t, [1, 10, 10, 10, 10], [None, 8, 8, 8, 8]) == 0.0
    # "two": LOS returns at 9 s and 20 s. 100 ms bins at 1000 Mbit/s, 3000 from 9.3 s on:
    # the 0.2 s window first reaches 2700 when it covers 9.3-9.5 s, 0.5 s after 9 s; the
    # second return at 20 s is reached at once (window 20.0-20.2 s: 0.2 s).
    tt = [k / 10 for k in range(250)]
    g = [1000.0 if 5.0 <= x < 9.3 else 3000.0 for x in tt]
    assert recoveries_s(tt, g, "two", 2700.0, 25.0) == pytest.approx([0.5, 0.2])
    # Never reaching the target before the next NLOS period (or the end): None.
    assert recoveries_s(tt, [1000.0] * 250, "two", 2700.0, 25.0) == [None, None]
    # A return too close to the end of a shortened run is not counted.
    assert recoveries_s(tt[:100], g[:100], "two", 2700.0, 10.0) == pytest.approx([0.5])


@pytest.mark.parametrize("name,runs,expected", [("mateo-buffer", 2, 18),
                                                ("mateo-blockage", 2, 42)])
def test_the_sweeps_expand_to_the_paper_design(name, runs, expected, tmp_path):
    from mmtsim.reproduce import REPRODUCTIONS, _sweep_toml
    from mmtsim.sweep import load_sweep

    f = tmp_path / "s.toml"
    f.write_text(_sweep_toml(REPRODUCTIONS[name].sweep(runs, None)))
    plan = load_sweep(f)
    # buffer: 3 settings x 3 blockage kinds x 2 seeds; blockage: 7 algorithms x 3 kinds x 2.
    assert len(plan.runs) == expected


def test_buffer_reduced_the_1mb_baseline_suffers(tmp_path):
    """One seed, 7 s (the first NLOS period of every kind begins): CUBIC with a 1 MB RLC
    buffer moves less than half what it moves with 7 MB. With 7 MB no timeout fires in
    this seed, so the two minimum RTOs give the same throughput: the minimum RTO matters
    only in runs with a timeout (a few seeds of the full study)."""
    out = tmp_path / "buffer"
    r = cli("reproduce", "mateo-buffer", "--runs", "1", "--duration", "7s", "--out", str(out),
            "--workers", "2", "--no-timeseries", "--quiet")
    assert r.returncode == 0, r.stderr
    nums = json.loads((out / "reproduction.json").read_text())["numbers"]
    tp = nums["throughput"]
    for kind in ("building", "two", "six"):
        one, seven = tp[f"1MB-1s/{kind}"]["mmtsim"][0], tp[f"7MB-1s/{kind}"]["mmtsim"][0]
        assert one < 0.5 * seven, (kind, one, seven)
        assert tp[f"7MB-200ms/{kind}"]["mmtsim"][0] == pytest.approx(seven, rel=1e-9)
        assert nums["rtos"][f"7MB-1s/{kind}"] == 0
    html = (out / "report.html").read_text()
    assert "persistently fails to reach" in html  # the paper's words beside ours
    assert (out / "figures" / "fig1-throughput.png").read_bytes()[:4] == b"\x89PNG"


def test_blockage_reduced_directions(tmp_path):
    """One seed, 7 s (the building's NLOS from 6 s, the first small building's from 5 s,
    the first obstacle at 4.5 s): YeAH keeps a lower RTT than CUBIC and Scalable under
    every kind of blockage, Scalable the highest of the loss-based; Vegas moves less than
    CUBIC. The overall ellipse of an algorithm pools its runs of the three kinds (n = 3)."""
    out = tmp_path / "blockage"
    r = cli("reproduce", "mateo-blockage", "--runs", "1", "--duration", "7s", "--out",
            str(out), "--workers", "2", "--no-timeseries", "--quiet")
    assert r.returncode == 0, r.stderr
    nums = json.loads((out / "reproduction.json").read_text())["numbers"]
    rtt, tp = nums["rtt_ms"], nums["throughput"]
    for kind in ("building", "two", "six"):
        assert rtt[f"yeah/{kind}"][0] < min(rtt[f"cubic/{kind}"][0], rtt[f"scalable/{kind}"][0])
        assert rtt[f"scalable/{kind}"][0] > max(rtt[f"cubic/{kind}"][0],
                                                rtt[f"newreno/{kind}"][0])
        assert tp[f"vegas/{kind}"][0] < tp[f"cubic/{kind}"][0]
    assert nums["ellipses"]["cubic/all"]["n"] == 3
    assert nums["ellipses"]["cubic/six"]["n"] == 1
    assert (out / "figures" / "fig2-ellipses.png").read_bytes()[:4] == b"\x89PNG"
    assert "Vegas has the lowest throughput" in (out / "report.html").read_text()
