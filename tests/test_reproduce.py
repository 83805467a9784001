"""`mmtsim reproduce`: reduced versions of the X-TCP paper's two studies, with the direction
of each finding they can show, and the pieces they are built from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import cli


def test_recovery_time_by_hand():
    from mmtsim.reproduce import recovery_time_s

    # 100 ms bins from t = 0: 0 Mbit/s before 15.0 s, then 1000, 2000, 2000, 2000, ...
    # The first 0.5 s window (5 bins) after 15.0 s covers 15.0–15.5 s and averages
    # (1000 + 4·2000)/5 = 1800 ≥ 1800: it ends at 15.5 s, 0.5 s after 15.0 s.
    t = [k / 10 for k in range(200)]
    g = [0.0] * 150 + [1000.0] + [2000.0] * 49
    assert recovery_time_s(t, g, 15.0, 1800.0) == pytest.approx(0.5)
    # Never reaching the target: None.
    assert recovery_time_s(t, g, 15.0, 2500.0) is None


def test_per_run_match_keeps_the_matching_rows_in_order():
    """``_per_run(summary, **match)`` filters before making dicts: the same rows, in the
    same order, as filtering the dicts of the whole table."""
    import types

    import polars as pl

    from mmtsim.reproductions.common import _per_run

    per_run = pl.DataFrame({"run_id": ["a", "a", "b", "b", "c"],
                            "metric": ["goodput_mbps", "rtos", "goodput_mbps", "rtos",
                                       "goodput_mbps"],
                            "value": [1.0, 2.0, None, 4.0, 5.0]})
    summary = types.SimpleNamespace(per_run=per_run)
    every = _per_run(summary)
    assert every == per_run.to_dicts()
    assert _per_run(summary, metric="goodput_mbps") == [
        r for r in every if r["metric"] == "goodput_mbps"]


def test_outage_series_without_rtt_samples_draws_the_same_run():
    """The Fig. 4 runs record no per-ACK RTT samples (memory); ``metrics.rtt`` only chooses
    what is recorded, so goodput, cwnd, ssthresh and the RTOs are those of the run with
    every sample."""
    import numpy as np

    import mmtsim
    from mmtsim.reproductions.common import HERE
    from mmtsim.reproductions.xtcp_outage import OUTAGE_TCP, _outage_series

    sets = OUTAGE_TCP["ns3"]
    s = _outage_series("newreno", "ns3", "10s")
    full = mmtsim.run(HERE / "xtcp-outage.toml", seed=1,
                      overrides={"flows.0.cc": "newreno", **sets, "simulation.duration": "10s"})
    assert full.table("rtt").height > 0
    g, c = full.table("goodput"), full.table("cwnd")
    assert np.array_equal(s["goodput"], g["goodput_mbps"].to_numpy())
    assert np.array_equal(s["t_cwnd"], c["t_s"].to_numpy())
    assert np.array_equal(s["cwnd"], c["cwnd_bytes"].to_numpy() / 1400)
    ss = c["ssthresh_bytes"].fill_null(np.nan).to_numpy().astype(float) / 1400
    assert np.array_equal(s["ssthresh"], ss, equal_nan=True)
    assert s["rtos"] == full.summary["flows"][0]["rto_times_s"] and s["rtos"]


def test_outage_series_are_read_from_the_sweep_run_of_seed_1(tmp_path):
    """Fig. 4 draws seed 1 of each group, which the study's sweep has just run: the series
    read from that run's folder are those of simulating it again, bit for bit, and a
    folder whose sweep lacks the run is simulated (and with no sweep at all)."""
    import numpy as np

    from mmtsim.reproduce import reproduce
    from mmtsim.reproductions.common import _sweep_run
    from mmtsim.reproductions.xtcp_outage import _outage_series

    out = tmp_path / "outage"
    # 10 s: past the outage at 8-9 s, so the two TCP variants' runs differ.
    reproduce("xtcp-outage", out=out, runs=1, duration="10s", progress=False)
    assert (out / "figures" / "fig4-goodput.png").exists()
    series = {}
    for cc, tcp in (("newreno", "ns3"), ("xtcp", "linux")):
        folder = _sweep_run(out, f"cc={cc},tcp={tcp}", 1)
        assert folder is not None and folder.parent == out / "runs"
        got = _outage_series(cc, tcp, "10s", out)
        fresh = _outage_series(cc, tcp, "10s")
        assert set(got) == set(fresh)
        for k in got:
            if k == "rtos":
                assert got[k] == fresh[k]
            else:
                assert np.array_equal(got[k], fresh[k], equal_nan=True), (cc, tcp, k)
                assert len(got[k]) > 0
        series[cc, tcp] = got
    # The variant matters: NewReno under Linux's rule is another run.
    linux = _outage_series("newreno", "linux", "10s", out)
    assert not np.array_equal(linux["cwnd"], series["newreno", "ns3"]["cwnd"])
    # Seed 2 was not run; an unknown group has no run; a folder without a sweep has none.
    assert _sweep_run(out, "cc=xtcp,tcp=linux", 2) is None
    assert _sweep_run(out, "cc=vegas,tcp=linux", 1) is None
    assert _sweep_run(tmp_path, "cc=xtcp,tcp=linux", 1) is None


@pytest.mark.parametrize("name,runs,expected", [("xtcp-outage", 3, 30), ("xtcp-random", 2, 24)])
def test_the_sweep_files_expand_to_the_paper_design(name, runs, expected, tmp_path):
    from mmtsim.reproduce import REPRODUCTIONS, _sweep_toml
    from mmtsim.sweep import load_sweep

    f = tmp_path / "s.toml"
    f.write_text(_sweep_toml(REPRODUCTIONS[name].sweep(runs, None)))
    plan = load_sweep(f)
    # outage: 5 algorithms × 2 TCP variants (Linux, ns-3's timeout rule) × 3 seeds; random:
    # 3 mixes × 2 rates × 2 seeds × 2 trajectories.
    assert len(plan.runs) == expected
    if name == "xtcp-random":
        assert {r.replicate for r in plan.runs} == {"as-is", "swapped"}


def test_outage_reduced_recovery_and_the_ns3_timeout_rule(tmp_path):
    """One channel realisation per algorithm and TCP variant, full length.

    - X-TCP is back at 90 % of R_app within 2 s of LOS returning, no later than any other
      algorithm (Fig. 4).
    - ns-3's timeout rule (every backed-off timeout recomputes ssthresh from the
      one-segment flight: 2 segments) makes NewReno the lowest and lower than under Linux's
      rule: the paper's mechanism for its slow NewReno. X-TCP resets its window from the
      radio on the first ACK, so the rule itself does not touch it; the ns-3 variant also
      runs the RFC 6298 RTO and none of Linux's RACK-TLP, F-RTO and undo, which move the
      timing of its timeouts and leave X-TCP within 2 % (0.6 % on this channel).
    X-TCP's rank in Table II is not asserted: under Linux's TCP CUBIC and X-TCP end within
    about 1 % of each other (the report's findings say which is ahead).
    The provenance names no temporary path."""
    out = tmp_path / "outage"
    r = cli("reproduce", "xtcp-outage", "--runs", "1", "--out", str(out), "--no-timeseries",
            "--quiet")
    assert r.returncode == 0, r.stderr
    rep = json.loads((out / "reproduction.json").read_text())
    linux, ns3 = rep["numbers"]["table_ii"], rep["numbers"]["table_ii_ns3"]
    rec = {cc: v["recovery_s"][0] for cc, v in linux.items()}
    assert rec["xtcp"] is not None and rec["xtcp"] <= 2.0, rec
    assert all(v is None or v >= rec["xtcp"] for v in rec.values()), rec
    t3 = {cc: v["mmtsim"][0] for cc, v in ns3.items()}
    assert min(t3, key=t3.get) == "newreno", t3
    assert t3["newreno"] < linux["newreno"]["mmtsim"][0]
    assert t3["xtcp"] == pytest.approx(linux["xtcp"]["mmtsim"][0], rel=0.02)
    html = (out / "report.html").read_text()
    assert "Table II" in html and "1225.2" in html  # the paper's number beside ours
    assert "ns-3&#39;s timeout rule" in html  # escaped by the template
    assert "X-TCP has the highest mean throughput" in r.stdout
    manifest = json.loads((out / "sweep.json").read_text())
    assert manifest["sweep_file"] == "sweep.toml"
    assert manifest["base"] == "mmtsim/reproductions/xtcp-outage.toml"
    for f in ("sweep.json", "report.html", "reproduction.json"):
        assert f".{out.name}." not in (out / f).read_text(), f


def test_random_reduced_xtcp_keeps_rtt_and_rlc_below_cubic(tmp_path):
    """One seed (and its swapped twin), 10 s: with R_app = 2 Gbit/s X-TCP's mean RTT and RLC
    buffer occupancy are below CUBIC's (Fig. 3a, 3b); at 1 Gbit/s the throughputs are
    equal (Fig. 3c: the cell is not saturated)."""
    out = tmp_path / "random"
    r = cli("reproduce", "xtcp-random", "--runs", "1", "--duration", "10s", "--out", str(out),
            "--no-timeseries", "--quiet")
    assert r.returncode == 0, r.stderr
    fig3 = json.loads((out / "reproduction.json").read_text())["numbers"]["fig3"]
    x, c = fig3["xtcp/2G/xtcp"], fig3["cubic/2G/cubic"]
    assert x["rtt_mean_ms"][0] < c["rtt_mean_ms"][0]
    assert x["rlc_ul_mean_bytes"][0] < c["rlc_ul_mean_bytes"][0]
    x1, c1 = fig3["xtcp/1G/xtcp"], fig3["cubic/1G/cubic"]
    assert x1["goodput_mbps"][0] == pytest.approx(c1["goodput_mbps"][0], rel=0.05)
    # Each flavour of the mixed group is there, with n = 2 runs (seed 1 and its swap).
    assert fig3["mixed/2G/xtcp"]["goodput_mbps"][2] == 2
    assert (out / "figures" / "fig3-bars.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("args,msg", [
    (["nonsense"], "unknown reproduction"),
    (["xtcp-outage", "--runs", "0"], "runs"),
    (["xtcp-outage", "--duration", "soon"], "--duration"),
    (["xtcp-outage", "--workers", "2", "--dask", "tcp://x:1"], "exclude"),
    ([], "needs a NAME"),
    (["xtcp-outage", "--list"], "takes no NAME"),
])
def test_bad_arguments_exit_2_and_write_nothing(args, msg, tmp_path):
    out = tmp_path / "o"
    r = cli("reproduce", *args, "--out", str(out), "--quiet")
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert msg in r.stderr
    assert not out.exists()


def test_list_names_every_reproduction_with_its_paper_and_runs():
    """``--list`` has one line per registered study: its name, its default run count and
    a title naming the seed paper (or, for measured-5g, the dataset)."""
    from mmtsim.reproduce import REPRODUCTIONS

    r = cli("reproduce", "--list")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert [ln.split()[0] for ln in lines] == list(REPRODUCTIONS)
    for ln, rep in zip(lines, REPRODUCTIONS.values()):
        assert ln.split()[1] == str(rep.default_runs)
        # measured-5g studies measured datasets, not a seed paper: its title names them.
        assert "seed 00" in ln or (rep.name == "measured-5g" and "5Gophers" in ln)
