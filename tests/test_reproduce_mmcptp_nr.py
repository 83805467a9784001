"""`mmtsim reproduce mmcptp-nr-single|mmcptp-nr-multi` (seed 004, Sec. VIII-A): the scenes,
the sweep designs, the mmcptp arm's spelling, Jain's index by hand, and both studies run at
a tiny size with their analysis numbers checked against the runs they come from."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from conftest import FakeSummary, cli

from mmtsim.reproductions import mmcptp_nr as nr


def test_jain_index_of_app_over_mac_by_hand():
    from mmtsim.stats import jain_index

    # UE1: 40 of 50 Mbit/s → 0.8; UE2: 10 of 20 → 0.5.
    # J = (0.8 + 0.5)² / (2 · (0.64 + 0.25)) = 1.69 / 1.78 = 0.949438...
    xs = [nr.jain_x(40.0, 50.0), nr.jain_x(10.0, 20.0)]
    assert xs == [pytest.approx(0.8), pytest.approx(0.5)]
    assert jain_index(xs) == pytest.approx(1.69 / 1.78)
    # Equal shares: 1; one UE with nothing: 1/n.
    assert jain_index([0.9, 0.9]) == pytest.approx(1.0)
    assert jain_index([0.9, 0.0]) == pytest.approx(0.5)
    # No MAC throughput (a UE that decoded nothing): x undefined.
    assert nr.jain_x(0.0, 0.0) is None and nr.jain_x(1.0, None) is None


@pytest.mark.parametrize("scene", [1, 2, 7])
def test_scene_buildings_follow_table_ii_and_keep_the_los_lines_clear(scene):
    b = nr.draw_buildings(scene)
    assert len(b) == nr.N_BUILDINGS == 15
    x0, x1, y0, y1 = nr.AREA_M
    rects = []
    for e in b:
        (ax, ay, az), (bx, by, bz) = e["min_m"], e["max_m"]
        assert x0 <= ax < bx <= x1 and y0 <= ay < by <= y1 and az == 0.0
        assert 30.0 <= bz <= 40.0
        # Sides within 10-40 m (rounding of the corners to 0.1 m aside).
        assert 9.9 <= bx - ax <= 40.1 and 9.9 <= by - ay <= 40.1
        rects.append((ax, ay, bx, by))
        for a, c in nr.KEEP_CLEAR:
            assert nr._seg_rect_distance(a, c, (ax, ay, bx, by)) >= nr.CLEAR_M
    for i, p in enumerate(rects):
        for q in rects[i + 1:]:
            gap = max(q[0] - p[2], p[0] - q[2], q[1] - p[3], p[1] - q[3])
            assert gap >= nr.GAP_M - 1e-9, (p, q)
    # Deterministic and distinct per scene.
    assert nr.draw_buildings.__wrapped__(scene) == b
    assert nr.draw_buildings(scene + 100) != b


def test_seg_rect_distance_by_hand():
    # A horizontal segment 3 m below a 10 m square; one crossing it.
    assert nr._seg_rect_distance([0, 0], [20, 0], (5, 3, 15, 13)) == pytest.approx(3.0)
    assert nr._seg_rect_distance([0, 8], [20, 8], (5, 3, 15, 13)) == 0.0


@pytest.mark.parametrize("scene", [1, 3])
def test_outages_alternate_with_los_in_periods_of_01_to_2_s(scene):
    o = nr.draw_outages(scene)
    assert o, "10 s of 0.1-2 s periods holds at least two"
    t_los = 0  # LOS first
    for e in o:
        start, dur = nr._ms(e["start"]), nr._ms(e["duration"])
        assert 100 <= start - t_los <= 2000  # the LOS period before it
        assert 1 <= dur <= 2000 and start + dur <= 10_000
        t_los = start + dur
    assert 0.0 < nr.outage_share(o, 10.0) < 1.0
    # By hand: outages 1-2 s and 5-5.5 s of 10 s → 0.15.
    assert nr.outage_share([{"start": "1000ms", "duration": "1000ms"},
                            {"start": "5000ms", "duration": "500ms"}], 10.0) == 0.15


@pytest.mark.parametrize("name", ["single", "multi"])
def test_the_packaged_scenarios_hold_scene_1(name):
    doc = tomllib.loads((nr.HERE / f"mmcptp-nr-{name}.toml").read_text())
    assert doc["ran"]["buildings"] == nr.draw_buildings(1)
    assert doc["ran"]["ues"][1]["outages"] == nr.draw_outages(1)
    assert doc["ran"]["preset"] == "lte-2ghz" and doc["ran"]["scheduler"] == "pf"


def test_the_mmcptp_arm_is_the_readmes_spelling():
    s = nr.transport_set("mmcptp", [0, 1])
    for i in (0, 1):
        assert s[f"flows.{i}.protocol"] == "mmcptp"
        assert s[f"flows.{i}.cc"] == "cubic"
        assert s[f"flows.{i}.mmcptp"] == {"proxy": "proxy", "pull": "periodic",
                                          "period": "5ms", "pull_buffer": "auto",
                                          "cache": "64MB"}
    assert nr.transport_set("newreno", [0]) == {"flows.0.cc": "newreno"}
    assert nr.flow_entity("dl", "mmcptp") == "dl.leg2" and nr.flow_entity("dl", "cubic") == "dl"


def test_the_ns3_stack_is_ns3_3_33s_defaults_on_every_flow():
    assert nr.stack_set("mmtsim", [0, 1]) == {}
    s = nr.stack_set("ns3", [0, 1])
    assert s["ran.rlc"] == {"mode": "um", "buffer": "10KiB"}
    for i in (0, 1):
        t = s[f"flows.{i}.tcp"]
        assert (t["mss"], t["snd_buf"], t["rcv_buf"], t["min_rto"]) == ("536B", "128KiB",
                                                                       "128KiB", "1s")
    # Both stacks validate on both scenarios.
    from mmtsim.api import validate

    for name, flows in [("single", [0]), ("multi", [0, 1])]:
        for st in nr.STACKS:
            validate(nr.HERE / f"mmcptp-nr-{name}.toml", overrides=nr.stack_set(st, flows))


@pytest.mark.parametrize("name,per_scene", [("mmcptp-nr-single", 2 * 3),
                                            ("mmcptp-nr-multi", 3)])
def test_the_sweep_files_expand_to_the_paper_design(name, per_scene, tmp_path):
    from mmtsim.reproduce import REPRODUCTIONS, _sweep_toml
    from mmtsim.sweep import load_sweep

    f = tmp_path / "s.toml"
    f.write_text(_sweep_toml(REPRODUCTIONS[name].sweep(2, None)))
    plan = load_sweep(f)
    # single: 2 models × 3 RB counts × transports × 2 stacks × 2 scenes; multi: 3 RB
    # counts × transports × 2 stacks × 2 scenes.
    assert len(plan.runs) == per_scene * len(nr.transports()) * 2 * 2
    assert {r.group["stack"] for r in plan.runs} == {"mmtsim", "ns3"}
    assert {r.replicate for r in plan.runs} == {"scene-1", "scene-2"}
    assert {r.group["transport"] for r in plan.runs} == set(nr.transports())
    assert {r.group["rbs"] for r in plan.runs} == {25, 50, 100}
    if "mmcptp" not in nr.transports():
        # Without mmCPTP in the simulator the arm is left out, not failed.
        assert set(nr.transports()) == {"newreno", "cubic"}


def _summary(run: Path) -> dict:
    return json.loads((run / "summary.json").read_text())


def test_single_tiny_runs_report_and_numbers_from_the_runs(tmp_path):
    out = tmp_path / "single"
    r = cli("reproduce", "mmcptp-nr-single", "--runs", "2", "--duration", "3s", "--out",
            str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    html = (out / "report.html").read_text()
    assert "the paper&#39;s findings, checked" in html or "the paper's findings, checked" in html
    assert "Fig. 9-like" in html and "CUBIC above NewReno" in r.stdout
    rep = json.loads((out / "reproduction.json").read_text())
    assert rep["findings"], "the findings table is there"
    # The table's mean is the mean of the runs' own goodputs.
    manifest = json.loads((out / "sweep.json").read_text())
    for model, rbs, t, st in [("m1", 50, "cubic", "mmtsim"), ("m4", 100, "newreno", "ns3")]:
        vals = [_summary(out / "runs" / e["run_id"]) for e in manifest["runs"]
                if e["group"] == {"model": model, "rbs": rbs, "transport": t, "stack": st}]
        assert len(vals) == 2
        g = [next(f["goodput_mbps"] for f in s["flows"] if f["name"] == "dl") for s in vals]
        assert all(s["sim_seconds"] == pytest.approx(3.0) for s in vals)
        mean, _half, n = rep["numbers"][st]["throughput_mbps"][f"{model}/{rbs}"][t]
        assert n == 2 and mean == pytest.approx(sum(g) / 2)
    for st in nr.STACKS:
        assert (out / "figures" / f"fig9-bars-{st}.png").read_bytes()[:4] == b"\x89PNG"
        assert (out / "figures" / f"mmcptp-nr-single-timeseries-{st}.png").exists()


def test_multi_tiny_runs_jain_index_from_the_runs(tmp_path):
    from mmtsim.stats import jain_index

    out = tmp_path / "multi"
    r = cli("reproduce", "mmcptp-nr-multi", "--runs", "2", "--duration", "3s", "--out",
            str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    html = (out / "report.html").read_text()
    assert "Table III" in html and "0.7828" in html  # the paper's number beside ours
    rep = json.loads((out / "reproduction.json").read_text())
    assert any("fairness index" in f["statement"] for f in rep["findings"])
    manifest = json.loads((out / "sweep.json").read_text())
    for rbs, t, st in [(25, "newreno", "mmtsim"), (100, "cubic", "ns3")]:
        js = []
        for e in manifest["runs"]:
            if e["group"] != {"rbs": rbs, "transport": t, "stack": st}:
                continue
            s = _summary(out / "runs" / e["run_id"])
            good = {f["name"]: f["goodput_mbps"] for f in s["flows"]}
            mac = {u["name"]: u["decoded_mbps"]["dl"] for u in s["ues"]}
            js.append(jain_index([good["dl1"] / mac["ue1"], good["dl2"] / mac["ue2"]]))
        jm, _jh, n = rep["numbers"][st]["jfi"][f"{rbs}/{t}"]["mmtsim"]
        assert n == 2 and jm == pytest.approx(sum(js) / 2)
        assert rep["numbers"][st]["jfi"][f"{rbs}/{t}"]["paper"] == nr.NR_TABLE_III[t][rbs]
    for st in nr.STACKS:
        assert (out / "figures" / f"fig10-bars-{st}.png").read_bytes()[:4] == b"\x89PNG"


def _scale(t, rbs, scene):
    """Synthetic goodput: CUBIC 1.25×, mmCPTP 2× NewReno's RB share, plus 0.1 per scene."""
    return {"newreno": 1.0, "cubic": 1.25, "mmcptp": 2.0}[t] * rbs / 5 + 0.1 * scene


def test_the_mmcptp_analysis_on_synthetic_runs(tmp_path, monkeypatch):
    """The analysis' mmCPTP branches, which a simulator without mmCPTP never runs: gains
    are ratios of the means over paired scenes, read from each arm's end-to-end flow (an
    mmCPTP flow's leg2), and the findings follow them."""
    monkeypatch.setattr(nr, "transports", lambda: list(nr.TRANSPORTS))
    s = FakeSummary()
    for st in nr.STACKS:
        for model in ("m1", "m4"):
            for rbs in nr.RBS:
                for t in nr.TRANSPORTS:
                    for k in (1, 2, 3):
                        g = _scale(t, rbs, k) * (0.75 if model == "m1" and t == "mmcptp"
                                                 else 1.0)
                        s.add({"model": model, "rbs": rbs, "transport": t, "stack": st},
                              f"scene-{k}",
                              {("flow", nr.flow_entity("dl", t), "goodput_mbps"): g,
                               # a decoy: the mmCPTP flow's server leg is not the goodput
                               ("flow", "dl.leg1", "goodput_mbps"): 999.0})
    findings, sections, numbers = nr.SINGLE.analyse(tmp_path, s)
    g = numbers["mmtsim"]["gains"]["m4"]["newreno"][100]
    # Means over scenes 1-3 at 100 RBs: mmCPTP 40.2, NewReno 20.2.
    assert g == pytest.approx(40.2 / 20.2)
    assert numbers["ns3"]["gains"]["m1"]["cubic"][25] == pytest.approx(
        0.75 * (2 * 5 + 0.2) / (1.25 * 5 + 0.2))
    by = {f.statement: f.holds for f in findings}
    assert by["[mmtsim] model 4 (outages): mmCPTP's throughput above newreno's at every RB "
              "count"] is True
    assert by["[ns3] model 1 (driving): CUBIC above NewReno at every RB count"] is True
    # Gains rise with the RBs here (the scene offset weighs less at more RBs).
    assert by["[mmtsim] model 4 (outages): mmCPTP gains (ratio > 1), more with more RBs"] is True
    assert by["[mmtsim] the gains are larger with the emulated outages (model 4) than "
              "driving (model 1)"] is True
    assert (tmp_path / "figures" / "fig9-bars-ns3.png").exists()

    m = FakeSummary()
    for st in nr.STACKS:
        for rbs in nr.RBS:
            for t in nr.TRANSPORTS:
                for k in (1, 2, 3):
                    ue2 = _scale(t, rbs, k)
                    ue1 = rbs / 2 - (1.0 if t == "mmcptp" else 0.0)
                    m.add({"rbs": rbs, "transport": t, "stack": st}, f"scene-{k}",
                          {("flow", nr.flow_entity("dl1", t), "goodput_mbps"): ue1,
                           ("flow", nr.flow_entity("dl2", t), "goodput_mbps"): ue2,
                           ("ue", "ue1", "decoded_mbps.dl"): ue1 / 0.9,
                           ("ue", "ue2", "decoded_mbps.dl"): ue2 / 0.8})
    findings, sections, numbers = nr.MULTI.analyse(tmp_path, m)
    # x = (0.9, 0.8) in every run: J = 1.7² / (2 · 1.45) = 2.89 / 2.9.
    assert numbers["ns3"]["jfi"]["50/mmcptp"]["mmtsim"][0] == pytest.approx(2.89 / 2.9)
    assert numbers["mmtsim"]["ue2_gains"]["cubic"][100] == pytest.approx(40.2 / 25.2)
    by = {f.statement: f.holds for f in findings}
    assert by["[mmtsim] UE2 (outages): mmCPTP's throughput above newreno's at every RB "
              "count"] is True
    assert by["[mmtsim] UE1 (static LOS): mmCPTP gets less than the TCPs"] is True
    assert by["[ns3] mmCPTP's fairness index at least CUBIC's (within 0.005)"] is True
