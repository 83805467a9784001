"""`mmtsim reproduce mateo-handover|mateo-square` (seed 002, Figs. 3-6): the measures worked
by hand (handover episodes, recovery against the capacity, the CDF gap), the packaged
scenarios against the paper's settings and the examples' geometry, the sweep designs, and
both studies run at a tiny size with their numbers checked against the runs they come
from and the directions that hold at that size."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from conftest import EXAMPLES, cli

from mmtsim.reproductions import mateo_square as sq
from mmtsim.reproductions import mateo_street as st


def test_handover_episodes_group_handovers_closer_than_the_gap():
    # 1.0, 1.2, 1.6 are each < 0.5 s from the previous one: one episode; 2.5 and 9 alone.
    assert st.handover_episodes([9.0, 1.2, 1.0, 2.5, 1.6]) == [(1.0, 1.6), (2.5, 2.5),
                                                               (9.0, 9.0)]
    assert st.handover_episodes([]) == []
    # Exactly the gap apart: two episodes.
    assert st.handover_episodes([1.0, 1.5]) == [(1.0, 1.0), (1.5, 1.5)]


def test_episode_recovery_and_drop_by_hand():
    # 100 ms bins over 4 s, capacity 1000 throughout; the flow runs at 1000, falls to 0 at
    # 1.0-1.3 s, 400 at 1.3-1.6 s, and is back at 1000 from 1.6 s.
    t = [0.1 * i for i in range(40)]
    cap = [1000.0] * 40
    g = [1000.0] * 40
    for i in range(10, 13):
        g[i] = 0.0
    for i in range(13, 16):
        g[i] = 400.0
    eps = st.episode_recoveries(t, g, cap, [(1.0, 1.1)], end_s=4.0)
    assert len(eps) == 1
    e = eps[0]
    # Drop: the 0.2 s windows starting at 1.0 and 1.1 s hold only zeros → ratio 0.
    assert e["drop"] == pytest.approx(1.0)
    # Recovery (80 % of 1000 over 0.2 s): windows from 1.1 s; [1.5, 1.7) = (400 + 1000)/2
    # = 700 < 800, [1.6, 1.8) = 1000: its end 1.8 s is 0.7 s after the last handover.
    assert e["recovery_s"] == pytest.approx(0.7) and e["censored_s"] is None
    # A next episode at 1.5 s comes first: not recovered, censored at 0.4 s.
    eps = st.episode_recoveries(t, g, cap, [(1.0, 1.1), (1.5, 1.5)], end_s=4.0)
    assert eps[0]["recovery_s"] is None and eps[0]["censored_s"] == pytest.approx(0.4)
    rec, share, drop = st.run_recovery(eps)
    # The second episode (1.5 s): the window [1.6, 1.8) recovers at 1.8 s → 0.3 s.
    assert eps[1]["recovery_s"] == pytest.approx(0.3)
    assert rec == pytest.approx(0.3) and share == 0.5
    # Its drop: windows from 1.5 s to 2.0 s, lowest (400 + 1000)/2 = 700 → 0.3.
    assert eps[1]["drop"] == pytest.approx(0.3)
    assert drop == pytest.approx((1.0 + 0.3) / 2)
    # During an outage (capacity 0) nothing counts as recovered.
    zero = [0.0] * 40
    e = st.episode_recoveries(t, zero, zero, [(1.0, 1.0)], end_s=4.0)[0]
    assert e["recovery_s"] is None and e["drop"] is None
    assert st.run_recovery([]) == (None, None, None)


def test_paired_greater():
    # Paired differences 1, 2, 3: mean 2, the 95 % interval (t = 4.303) 2 ± 2.48 contains 0.
    assert st.paired_greater({1: 2, 2: 4, 3: 6}, {1: 1, 2: 2, 3: 3}) is False
    assert st.paired_greater({1: 11, 2: 12, 3: 13}, {1: 1, 2: 2, 3: 3}) is True
    # A deterministic arm: identical differences, judged by their sign beyond 1 % of b.
    assert st.paired_greater({1: 110.0, 2: 110.0}, {1: 100.0, 2: 100.0}) is True
    assert st.paired_greater({1: 100.5, 2: 100.5}, {1: 100.0, 2: 100.0}) is False
    assert st.paired_greater({1: 1.0}, {2: 0.0}) is None


def test_cdf_distance_by_hand():
    # [0, 0, 0, 1] vs [0, 1, 1, 1]: at 0 the CDFs are 0.75 and 0.25 → 0.5.
    assert sq.cdf_distance([0, 0, 0, 1], [0, 1, 1, 1]) == pytest.approx(0.5)
    assert sq.cdf_distance([5, 5], [5]) == 0.0
    assert sq.cdf_distance([], [1]) is None
    assert sq.packets(14_000) == 10.0


def _toml(path: Path) -> dict:
    return tomllib.loads(path.read_text())


@pytest.mark.parametrize("name,example", [("mateo-handover", "street-handover"),
                                          ("mateo-square", "square-10ues")])
def test_packaged_scenarios_are_the_examples_with_the_papers_settings(name, example):
    doc = _toml(st.HERE / f"{name}.toml")
    ex = _toml(EXAMPLES / f"{example}.toml")
    # The examples' geometry, cells, handover and traffic.
    for k in ("gnbs", "ues", "obstacles"):
        assert doc["ran"][k] == ex["ran"][k]
    assert doc["links"] == ex["links"] and doc["simulation"] == ex["simulation"]
    assert doc["ran"]["preset"] == "mmwave-2017"  # 28 GHz, 1 GHz, 30 dBm
    ho = doc["ran"]["handover"]
    assert (ho["algorithm"], ho["ttt"], ho["offset_db"], ho["hysteresis_db"],
            ho["filter_k"]) == ("a3", "200us", 0.0, 0.0, 0)
    # Sec. III-A: RLC 7 MB, RTO 200 ms on every flow; ns-3 mmWave's timers.
    from mmtsim.reproductions.paper import MATEO_RLC_BUFFER_MB, MATEO_RTO_MS, MATEO_TTT_US

    assert doc["ran"]["rlc"]["buffer"] == f"{MATEO_RLC_BUFFER_MB:g}MB"
    assert ho["ttt"] == f"{MATEO_TTT_US:g}us"
    assert all(f["tcp"]["min_rto"] == f"{MATEO_RTO_MS:g}ms" for f in doc["flows"])
    assert doc["ran"]["rlc"] == {"mode": "am", "buffer": "7MB", "t_poll_retransmit": "4ms",
                                 "t_reordering": "2ms", "t_status_prohibit": "1ms"}
    assert doc["ran"]["channel"] == {"fading": True}
    assert len(doc["flows"]) == len(ex["flows"])
    for f, e in zip(doc["flows"], ex["flows"]):
        assert f["tcp"] == {"min_rto": "200ms"}
        assert {k: v for k, v in f.items() if k != "tcp"} == e


def _ov(run) -> dict:
    """A planned run's overrides ("key=TOML value") as a dict."""
    out = {}
    for o in run.overrides:
        k, v = o.split("=", 1)
        out[k] = tomllib.loads(f"v = {v}")["v"]
    return out


def test_the_sweep_files_expand_to_the_designs(tmp_path):
    from mmtsim.reproduce import REPRODUCTIONS, _sweep_toml
    from mmtsim.sweep import load_sweep

    f = tmp_path / "h.toml"
    f.write_text(_sweep_toml(REPRODUCTIONS["mateo-handover"].sweep(3, None)))
    plan = load_sweep(f)
    # channel × (cubic, yeah on each TCP stack; udp once) × seeds
    assert len(plan.runs) == 2 * 5 * 3
    labels = {"cubic", "yeah", "cubic-ns3", "yeah-ns3", "udp"}
    assert {(r.group["channel"], r.group["cc"]) for r in plan.runs} == {
        (c, a) for c in ("fading", "static") for a in labels}
    udp = next(r for r in plan.runs if r.group["cc"] == "udp")
    assert _ov(udp)["flows"] == [st.UDP_FLOW]
    assert _ov(udp)["ran.handover.log_measurements_every"] == 0
    ns3 = next(r for r in plan.runs if r.group["cc"] == "yeah-ns3")
    assert _ov(ns3)["flows.0.cc"] == "yeah"
    assert _ov(ns3)["flows.0.tcp.rto_ssthresh"] == "ns3"
    assert "flows.0.tcp.rto_ssthresh" not in _ov(
        next(r for r in plan.runs if r.group["cc"] == "yeah"))
    assert st.parse_cc_label("cubic-ns3") == ("cubic", "ns3")
    assert st.parse_cc_label("yeah") == ("yeah", "linux")

    f = tmp_path / "s.toml"
    f.write_text(_sweep_toml(REPRODUCTIONS["mateo-square"].sweep(2, "5s")))
    plan = load_sweep(f)
    assert len(plan.runs) == 2 * 2 * 2 * 2 * 2  # channel × tcp × ue0 × cc × seeds
    for r in plan.runs:
        o = _ov(r)
        assert all((o.get(f"flows.{i}.tcp.rto_ssthresh") == "ns3") is (r.group["tcp"] == "ns3")
                   for i in range(10))
        assert o["simulation.duration"] == "5s"
        assert o["ran.channel.fading"] is (r.group["channel"] == "fading")
        assert all(o[f"flows.{i}.cc"] == r.group["cc"] for i in range(10))
        assert (o.get("flows.0.stop") == "1ns") is (r.group["ue0"] == "without")
    # Both arms of both studies validate.
    from mmtsim.api import validate

    validate(st.HERE / "mateo-handover.toml", overrides={"flows": [st.UDP_FLOW]})
    validate(st.HERE / "mateo-square.toml", overrides={**sq.cc_set("yeah"),
                                                       **sq.UE0_ARMS["without"]})


def _summary(run: Path) -> dict:
    return json.loads((run / "summary.json").read_text())


def _runs(out: Path, group: dict) -> list[dict]:
    manifest = json.loads((out / "sweep.json").read_text())
    return [_summary(out / "runs" / e["run_id"]) for e in manifest["runs"]
            if e["group"] == group]


def test_handover_tiny_runs_numbers_from_the_runs(tmp_path):
    out = tmp_path / "ho"
    r = cli("reproduce", "mateo-handover", "--runs", "2", "--duration", "5s", "--out",
            str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    html = (out / "report.html").read_text()
    assert "Fig. 3-like" in html and "Fig. 3(b)-like" in html
    rep = json.loads((out / "reproduction.json").read_text())
    assert len(rep["findings"]) == 3 * len(st.ARMS) == 12
    for arm in st.ARMS:
        ch, tcp = arm.split("/")
        good = {}
        for cc in (*st.CCS, "udp"):
            label = cc if cc == "udp" else st.cc_label(cc, tcp)
            runs = _runs(out, {"channel": ch, "cc": label})
            assert len(runs) == 2 and all(s["sim_seconds"] == pytest.approx(5.0)
                                          for s in runs)
            good[cc] = [s["flows"][0]["goodput_mbps"] for s in runs]
        for cc in st.CCS:
            mean, _h, n = rep["numbers"][arm][cc]["goodput_mbps"]
            assert n == 2 and mean == pytest.approx(sum(good[cc]) / 2)
            # Utilisation: each run's goodput over the UDP run's of its seed; TCP's payload
            # per packet equals UDP's, so it cannot beat the capacity by much.
            u, _h, _n = rep["numbers"][arm][cc]["utilisation"]
            assert u == pytest.approx(sum(a / b for a, b in zip(good[cc], good["udp"])) / 2)
            assert 0.0 <= u <= 1.05
        assert rep["numbers"][arm]["udp_goodput_mbps"][0] == pytest.approx(
            sum(good["udp"]) / 2)
    # The static channel is deterministic: both seeds give the same run.
    s = _runs(out, {"channel": "static", "cc": "cubic"})
    assert s[0]["flows"][0]["bytes_delivered"] == s[1]["flows"][0]["bytes_delivered"]
    # Direction that holds even at 5 s: with fading, the UE hops between the APs far more
    # often than on the static channel (the ping-pong the module doc describes).
    hf = rep["numbers"]["fading/linux"]["cubic"]["handovers"][0]
    hs = rep["numbers"]["static/linux"]["cubic"]["handovers"][0]
    assert hf > 10 * max(hs, 1)
    for stem in ("fig3-bars", "fig3c-goodput", "fig3b-cells-fading", "fig3b-cells-static"):
        assert (out / "figures" / f"{stem}.png").read_bytes()[:4] == b"\x89PNG"


def test_square_tiny_runs_numbers_from_the_runs(tmp_path):
    from mmtsim.api import read_run

    out = tmp_path / "sq"
    r = cli("reproduce", "mateo-square", "--runs", "2", "--duration", "5s", "--out",
            str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    rep = json.loads((out / "reproduction.json").read_text())
    assert len(rep["findings"]) == 8 * len(st.ARMS) == 32
    html = (out / "report.html").read_text()
    assert "Figs. 5-6-like" in html
    for arm in st.ARMS:
        ch, tcp = arm.split("/")
        for cc in sq.CCS:
            runs = _runs(out, {"channel": ch, "tcp": tcp, "ue0": "with", "cc": cc})
            retx = {f["name"]: f["retransmits"] for s in runs for f in s["flows"]}
            assert len(runs) == 2
            for fl in sq.SQUARE_FLOWS:
                m = sum(next(f["retransmits"] for f in s["flows"] if f["name"] == fl)
                        for s in runs) / 2
                assert rep["numbers"][arm]["retransmits"][cc][fl] == pytest.approx(m)
            assert set(retx) == set(sq.SQUARE_FLOWS)
            # Without UE0 its flow sends nothing; the others still deliver.
            for s in _runs(out, {"channel": ch, "tcp": tcp, "ue0": "without", "cc": cc}):
                fl = {f["name"]: f for f in s["flows"]}
                assert fl["ue0-ftp"]["bytes_delivered"] == 0
                assert fl["ue0-ftp"]["segments_sent"] == 0
                assert fl["ue4-video"]["bytes_delivered"] > 0
        # UE4 walks near ap2 (the paper's AP4): the AP serving it most.
        assert rep["numbers"][arm]["rlc"]["ue4_ap"] == ["ap2"]
    # The RLC means are those of UE4's samples at its AP, run by run.
    manifest = json.loads((out / "sweep.json").read_text())
    e = next(e for e in manifest["runs"]
             if e["group"] == {"channel": "static", "tcp": "linux", "ue0": "with",
                               "cc": "cubic"})
    ap, samples = sq.ue4_rlc_samples(read_run(out / "runs" / e["run_id"]))
    assert ap == "ap2" and samples.size > 0
    mean, _h, n = rep["numbers"]["static/linux"]["rlc"]["ue4_mean_bytes"]["with/cubic"]
    assert n == 2 and mean == pytest.approx(float(samples.mean()))
    # Direction at this size, static channel: UE0's 500 Mbit/s reaches UE0 with both.
    for cc in sq.CCS:
        for s in _runs(out, {"channel": "static", "tcp": "ns3", "ue0": "with", "cc": cc}):
            g = next(f["goodput_mbps"] for f in s["flows"] if f["name"] == "ue0-ftp")
            assert g == pytest.approx(500.0, rel=0.05)
    for stem in ("fig5-fading-linux", "fig6-static-ns3", "fig4-cells-static"):
        assert (out / "figures" / f"{stem}.png").read_bytes()[:4] == b"\x89PNG"
