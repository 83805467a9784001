"""`mmtsim reproduce zhang-urban` (seed 003, Fig. 4): the scene against the paper's
setup, its geometry worked out by hand, the sweep design, the analysis on synthetic runs,
and the study run at a tiny size with its numbers checked against the runs they come
from."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from conftest import FakeSummary, cli

from mmtsim.reproductions import zhang_urban as zu
from mmtsim.reproductions.paper import ZHANG_URBAN_SETUP


def _scene() -> dict:
    return tomllib.loads((zu.HERE / "zhang-urban.toml").read_text())


def test_the_scene_holds_the_papers_setup():
    doc = _scene()
    (gnb,) = doc["ran"]["gnbs"]
    assert gnb["position_m"][2] == ZHANG_URBAN_SETUP["gnb_height_m"] == 25.0
    assert doc["ran"]["scheduler"] == "rr"
    assert doc["ran"]["rlc"]["buffer"] == "1.5MB"
    assert doc["ran"]["channel"]["o2i"] == "low"
    ues = doc["ran"]["ues"]
    assert [u["name"] for u in ues] == [u for u, _, _ in zu.UES]
    # Indoor exactly the two indoor UEs; four, four and two per condition.
    assert {u["name"] for u in ues if u.get("indoor")} == {"in1", "in2"}
    assert {c: sum(1 for _, cc, _ in zu.UES if cc == c) for c in zu.CONDITIONS} == \
        ZHANG_URBAN_SETUP["ues"]
    # Flow i goes to UE i; in each pair of a condition one edge and one remote server.
    flows = doc["flows"]
    for f, (ue, cond, server) in zip(flows, zu.UES, strict=True):
        assert (f["to"], f["from"], f["name"]) == (ue, server, zu.flow_name(ue, server))
        assert f["tcp"] == {"mss": "1400B", "sack": True, "min_rto": "200ms",
                            "delayed_ack": False}
    for cond in zu.CONDITIONS:
        servers = [s for _, c, s in zu.UES if c == cond]
        assert servers.count("edge") == servers.count("remote")
    # Walking speed, the UE back and forth along one stretch.
    for u in ues:
        m = u["mobility"]
        assert m["kind"] == "waypoints" and m["speed_mps"] == 1.5
        assert {tuple(p) for p in m["points_m"]} | {tuple(u["position_m"])} == \
            {tuple(u["position_m"]), tuple(m["points_m"][0])}
    # Wired RTTs: 2 · (19.5 + 0.5) = 40 ms to the remote server, 2 · (1 + 0.5) = 3 ms edge.
    delay = {tuple(sorted(ln["between"])): float(ln["delay"].removesuffix("ms"))
             for ln in doc["links"]}
    assert 2 * (delay[("core", "remote")] + delay[("core", "gnb")]) == 40.0
    assert 2 * (delay[("core", "edge")] + delay[("core", "gnb")]) == 3.0


def _blocked(a, b, box) -> bool:
    """Whether the segment a–b passes through the interior of box (slab method)."""
    (lo, hi) = box
    t0, t1 = 0.0, 1.0
    for k in range(3):
        d = b[k] - a[k]
        if d == 0:
            if not lo[k] < a[k] < hi[k]:
                return False
            continue
        u, v = (lo[k] - a[k]) / d, (hi[k] - a[k]) / d
        t0, t1 = max(t0, min(u, v)), min(t1, max(u, v))
    return t0 < t1


def test_every_ue_keeps_its_condition_along_its_walk():
    doc = _scene()
    gnb = doc["ran"]["gnbs"][0]["position_m"]
    boxes = [(b["min_m"], b["max_m"]) for b in doc["ran"]["buildings"]]
    cond = {u: c for u, c, _ in zu.UES}
    for u in doc["ran"]["ues"]:
        a, b = u["position_m"], u["mobility"]["points_m"][0]
        for k in range(11):  # every 1.5 m of the 15 m stretch
            p = [a[i] + (b[i] - a[i]) * k / 10 for i in range(3)]
            nlos = any(_blocked(gnb, p, bx) for bx in boxes)
            assert nlos == (cond[u["name"]] != "LOS"), (u["name"], p)
            # 75-88 m from the gNB on the ground.
            assert 75.0 <= ((p[0] - gnb[0]) ** 2 + (p[1] - gnb[1]) ** 2) ** 0.5 <= 88.0


def test_segment_box_test_by_hand():
    box = ([0, 0, 0], [10, 10, 10])
    assert _blocked([-5, 5, 5], [15, 5, 5], box)
    assert not _blocked([-5, 5, 15], [15, 5, 15], box)  # above it
    assert not _blocked([-5, 0, 5], [15, 0, 5], box)  # grazing a face


def test_spread_and_requirement_by_hand():
    assert zu.spread([1.0, 2.0, 3.0]) == pytest.approx(1.0)
    assert zu.spread([5.0, 5.0]) == 0.0 and zu.spread([]) is None
    assert zu.meets_requirement(101.0, 9.9)
    assert not zu.meets_requirement(100.0, 5.0)  # not above 100 Mbit/s
    assert not zu.meets_requirement(500.0, 10.0)  # not below 10 ms


def test_the_sweep_runs_every_flow_on_each_algorithm(tmp_path):
    from mmtsim.reproduce import REPRODUCTIONS, _sweep_toml
    from mmtsim.sweep import load_sweep

    f = tmp_path / "s.toml"
    f.write_text(_sweep_toml(REPRODUCTIONS["zhang-urban"].sweep(3, "2s")))
    plan = load_sweep(f)
    assert len(plan.runs) == 4 * 3
    assert {r.group["cc"] for r in plan.runs} == set(zu.CCS) == {"newreno", "cubic",
                                                                 "highspeed", "bbr"}
    assert zu.cc_set("bbr") == {f"flows.{i}.cc": "bbr" for i in range(10)}


# -- the analysis on synthetic runs ------------------------------------------------------


_SINR = {"LOS": 40.0, "NLOS": 20.0, "indoor": 0.0}
#: The synthetic edge server's minimum RTT: BBR at 1.5 × it (LOS) is inside the 10 ms of
#: the grey area, at 1.9 × it (NLOS) outside.
EDGE_MIN_MS = 6.0


def _synthetic(gp_of, rtt_of) -> FakeSummary:
    from mmtsim.stats import jain_index

    s = FakeSummary()
    for cc in zu.CCS:
        for seed in (1, 2):
            v = {}
            gps = []
            for ue, cond, server in zu.UES:
                fl = zu.flow_name(ue, server)
                g = gp_of(cc, ue, cond, server)
                gps.append(g)
                r = rtt_of(cc, ue, cond, server)
                rmin = EDGE_MIN_MS if server == "edge" else 40.0
                v[("flow", fl, "goodput_mbps")] = g
                v[("flow", fl, "rtt_mean_ms")] = r
                v[("flow", fl, "rtt_min_ms")] = rmin
                v[("flow", fl, "final_cwnd_bytes")] = 2 * g * 1e6 / 8 * rmin / 1e3
                # SINR: the condition's value, ± 1 dB by seed (the same for every cc).
                v[("ue", ue, "sinr_dl_mean_db")] = _SINR[cond] + (1.0 if seed == 1 else -1.0)
            v[("run", "all", "goodput_total_mbps")] = sum(gps)
            v[("run", "all", "jain_goodput")] = jain_index(gps)
            s.add({"cc": cc}, None, v, seed=seed)
    return s


def _paper_like(cc, ue, cond, server):
    return {"LOS": 250.0, "NLOS": 200.0, "indoor": 30.0}[cond] * (
        1.0 if server == "edge" else (0.9 if cc == "newreno" else 0.97))


def _rtt_like(cc, ue, cond, server):
    base = EDGE_MIN_MS if server == "edge" else 40.0
    if cc == "bbr":
        return 1.5 * base if cond == "LOS" else 1.9 * base
    q = {"newreno": 20.0, "cubic": 40.0, "highspeed": 45.0}[cc]
    return base + q * {"LOS": 1.0, "NLOS": 1.5, "indoor": 3.0}[cond]


def test_the_analysis_on_paper_like_runs(tmp_path):
    """Runs built to behave as the paper says: every finding holds, and the numbers are
    the means of the runs."""
    findings, sections, numbers = zu.REPRODUCTION.analyse(
        tmp_path, _synthetic(_paper_like, _rtt_like))
    by = {f.statement: f.holds for f in findings}
    assert [h for h in by.values() if h is not None] and all(
        h for h in by.values() if h is not None), by
    assert by["average SINR: LOS > NLOS > indoor"] is True
    # BBR's LOS edge UEs at 9 ms and > 100 Mbit/s are the only ones in the grey area.
    assert by["only BBR's edge-server LOS UEs reach > 100 Mbit/s with < 10 ms"] is True
    # Remote UEs' goodputs differ by 7 % between NewReno and the rest, edge UEs' not at all.
    assert numbers["spread"]["edge"] == 0.0
    assert numbers["spread"]["remote"] == pytest.approx(0.07 / ((0.9 + 3 * 0.97) / 4))
    # SINR per condition: per seed the mean over UEs (41 and 39 dB for LOS), then over seeds.
    m, h, n = numbers["sinr_db"]["LOS"]
    assert (m, n) == (pytest.approx(40.0), 2) and h > 0
    # Cell goodput: the sum of the ten flows; Jain's index of the ten goodputs.
    from mmtsim.stats import jain_index

    gps = [_paper_like("cubic", u, c, s) for u, c, s in zu.UES]
    assert numbers["cell_goodput_mbps"]["cubic"][0] == pytest.approx(sum(gps))
    assert numbers["jain"]["cubic"][0] == pytest.approx(jain_index(gps))
    assert (tmp_path / "figures" / "fig4-scatter.png").exists()
    assert (tmp_path / "figures" / "per-ue-bars.png").exists()


def test_the_analysis_says_no_when_the_runs_disagree(tmp_path):
    """Runs against the paper: BBR at 3 × its minimum RTT, CUBIC's cell goodput 10 % below,
    NLOS UEs with a lower RTT than LOS ones."""
    def gp(cc, ue, cond, server):
        return _paper_like(cc, ue, cond, server) * (0.9 if cc == "cubic" else 1.0)

    def rtt(cc, ue, cond, server):
        base = EDGE_MIN_MS if server == "edge" else 40.0
        if cc == "bbr":
            return 3 * base
        return base + (10.0 if cond == "NLOS" else 30.0)

    findings, _, _ = zu.REPRODUCTION.analyse(tmp_path, _synthetic(gp, rtt))
    by = {f.statement: f.holds for f in findings}
    assert by["all algorithms reach the same cell goodput (within 5%)"] is False
    assert by["BBR: every UE's mean RTT at most 2 × its minimum RTT"] is False
    assert by["loss-based TCP: NLOS and indoor UEs have a higher RTT than LOS UEs (same "
              "server)"] is False
    assert by["only BBR's edge-server LOS UEs reach > 100 Mbit/s with < 10 ms"] is False
    # Not a statement of this scene: never judged.
    assert by["BBR has the best goodput with small buffers, with a latency comparable to "
              "loss-based TCP"] is None


# -- the study at a tiny size --------------------------------------------------------------


def _summary(run: Path) -> dict:
    return json.loads((run / "summary.json").read_text())


def test_tiny_reproduction_numbers_from_the_runs(tmp_path):
    from mmtsim.stats import jain_index

    out = tmp_path / "urban"
    r = cli("reproduce", "zhang-urban", "--runs", "2", "--duration", "3s", "--out",
            str(out), "--quiet", "--workers", "2")
    assert r.returncode == 0, r.stderr
    html = (out / "report.html").read_text()
    assert "Fig. 4-like" in html and "Average downlink SINR per channel condition" in html
    rep = json.loads((out / "reproduction.json").read_text())
    manifest = json.loads((out / "sweep.json").read_text())
    runs = {cc: [_summary(out / "runs" / e["run_id"]) for e in manifest["runs"]
                 if e["group"] == {"cc": cc}] for cc in zu.CCS}
    cond = {u: c for u, c, _ in zu.UES}
    for cc, sums in runs.items():
        assert len(sums) == 2
        for s in sums:
            assert s["sim_seconds"] == pytest.approx(3.0)
            # Every UE in its condition all the time; all flows on the algorithm.
            for u in s["ues"]:
                assert u["los_fraction"] == (1.0 if cond[u["name"]] == "LOS" else 0.0)
            assert {f["cc"] for f in s["flows"]} == {cc}
            sinr = {u["name"]: u["sinr_dl_mean_db"] for u in s["ues"]}
            # O2I adds PL_tw = 17.8 dB at 28 GHz plus 0.5 dB/m indoors: both indoor UEs
            # below every NLOS UE at the same range.
            assert max(sinr["in1"], sinr["in2"]) < min(sinr[f"nlos{k}"] for k in range(1, 5))
            for f in s["flows"]:
                # Minimum RTT: the wired 3 ms / 40 ms plus the radio's few slots.
                wired = 3.0 if f["from"] == "edge" else 40.0
                assert wired < f["rtt_min_ms"] < wired + 3.0
        # The table's numbers are the runs' own.
        for ue, _, server in zu.UES[:3]:
            g = [next(f["goodput_mbps"] for f in s["flows"]
                      if f["name"] == zu.flow_name(ue, server)) for s in sums]
            mean, _h, n = rep["numbers"]["goodput_mbps"][cc][ue]
            assert n == 2 and mean == pytest.approx(sum(g) / 2)
        js = [jain_index([f["goodput_mbps"] for f in s["flows"]]) for s in sums]
        assert rep["numbers"]["jain"][cc][0] == pytest.approx(sum(js) / 2)
        cells = [sum(f["goodput_mbps"] for f in s["flows"]) for s in sums]
        assert rep["numbers"]["cell_goodput_mbps"][cc][0] == pytest.approx(sum(cells) / 2)
    by = {f["statement"]: f["holds"] for f in rep["findings"]}
    # The directions a 3 s run shows already: SINR by condition, and BBR's edge LOS UEs
    # well below every loss-based algorithm's RTT.
    assert by["average SINR: LOS > NLOS > indoor"] is True
    rtt = rep["numbers"]["rtt_mean_ms"]
    for ue in ("los1", "los3"):
        assert rtt["bbr"][ue][0] < min(rtt[cc][ue][0] for cc in zu.LOSS_BASED)
    for name in ("fig4-scatter", "per-ue-bars", "timeseries"):
        assert (out / "figures" / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
