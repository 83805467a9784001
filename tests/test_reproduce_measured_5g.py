"""`mmtsim reproduce measured-5g`: the scene, the sweep design, the capacities by hand, and
the study at a small size with its numbers checked against the runs they come from."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from mmtsim import _core

from mmtsim.reproductions import measured_5g as m5g
from mmtsim.reproductions.common import HERE

ROOT = Path(__file__).resolve().parent.parent


def test_packaged_traces_are_the_shipped_ones():
    for p in sorted((ROOT / "examples" / "traces").glob("5gophers-*.csv")):
        assert (HERE / "traces" / p.name).read_bytes() == p.read_bytes(), p.name
    for stem, _, _ in m5g.TRACES.values():
        assert (HERE / "traces" / f"{stem}.csv").exists()
        assert (HERE / "traces" / f"{stem}-sinr.csv").exists()


def test_the_scene_has_both_modes_on_separate_paths():
    sc = tomllib.loads((HERE / "measured-5g.toml").read_text())
    links = sc["links"]
    # The sweep sets links.1's trace: it must be the measured last hop.
    assert links[1]["name"] == "measured" and links[1]["between"] == ["router", "client"]
    assert [f["name"] for f in sc["flows"]] == ["rate", "ran"]
    assert sc["ran"]["preset"] == "nr-fr2" and len(sc["ran"]["ues"]) == 1
    # The same bottleneck buffer in both modes.
    assert links[1]["queue"]["limit"] == sc["ran"]["rlc"]["buffer"] == "4MB"


def test_sweep_design():
    d = m5g._sweep(1, None)
    traces, ccs = d["axes"]
    assert [v["label"] for v in traces["variants"]] == ["verizon-drive", "sprint-drive", "walk"]
    assert "xtcp" not in [v["label"] for v in ccs["variants"]]
    assert len(ccs["variants"]) == len(_core.algorithms()) - 1  # every one but X-TCP
    for v in ccs["variants"]:
        assert v["set"]["flows.0.cc"] == v["set"]["flows.1.cc"] == v["label"]
    walk = traces["variants"][2]["set"]
    assert walk["simulation.duration"] == "603s"
    assert walk["ran.ues.0.sinr_trace"] == "traces/5gophers-walk-sinr.csv"
    # A shorter duration shortens every trace's run, never lengthens one.
    short = m5g._sweep(1, "200s")["axes"][0]["variants"]
    assert [v["set"]["simulation.duration"] for v in short] == ["126s", "126s", "200s"]


def test_capacity_and_nominal_rate_by_hand():
    # 10 Mbit/s for 1 s, 0 for 2 s, 30 Mbit/s held to the end at 5 s: 10 + 0 + 60 Mbit.
    assert m5g.capacity_bits([0, 1, 3], [10e6, 0, 30e6], 5.0) == pytest.approx(70e6)
    assert m5g.capacity_bits([0, 1, 3], [10e6, 0, 30e6], 2.0) == pytest.approx(10e6)
    # MCS 28's threshold gives the peak; just below MCS 0's threshold, nothing;
    # at MCS 0's: 1.23 Gbit/s × (2·120/1024) / (6·948/1024).
    assert m5g.nominal_ran_rate_bps(23.97) == pytest.approx(1.23e9)
    assert m5g.nominal_ran_rate_bps(-0.75) == 0.0
    assert m5g.nominal_ran_rate_bps(-0.74) == pytest.approx(1.23e9 * 240 / 5688)
    assert m5g.nominal_ran_rate_bps(-30.0) == 0.0


def test_study_at_a_small_size(tmp_path: Path, monkeypatch):
    from mmtsim.reproduce import reproduce

    monkeypatch.setattr(m5g, "CCS", ["cubic", "bbr", "vegas"])
    res = reproduce("measured-5g", out=tmp_path / "m", duration="20s", workers=1,
                    progress=False)
    assert res.sweep.n_failed == 0 and res.sweep.n_finished == 9
    assert (tmp_path / "m" / "report.html").exists()
    for t in m5g.TRACES:
        assert (tmp_path / "m" / "figures" / f"series-{t}.png").exists()
    numbers = json.loads((tmp_path / "m" / "reproduction.json").read_text())["numbers"]
    caps = numbers["capacity_mbps"]
    # The measured capacity of the Verizon drive's first 20 s, from the shipped trace.
    t, r = m5g.read_csv_trace(HERE / "traces" / "5gophers-verizon-drive.csv")
    assert caps["verizon-drive"]["rate"] == pytest.approx(sum(r[:20]) / 20)
    from mmtsim.summarize import compute

    summary = compute(tmp_path / "m")
    for run in summary.ok_runs:
        key = f"{run.group['trace']}/{run.group['cc']}"
        flows = {f["name"]: f for f in run.summary["flows"]}
        for mode in ("rate", "ran"):
            cell = numbers["cells"][key][mode]
            assert cell["goodput_mbps"] == flows[mode]["goodput_mbps"]
            assert cell["share_of_measured"] == pytest.approx(
                flows[mode]["goodput_mbps"] / caps[run.group["trace"]]["rate"])
        # Replayed as a rate: never more than the trace carries.
        assert numbers["cells"][key]["rate"]["share_of_measured"] <= 1.0
    # The walk starts with 12 s on 4G: its RAN flow has nothing in the first 12 s.
    walk = numbers["cells"]["walk/cubic"]
    assert walk["ran"]["goodput_mbps"] < walk["rate"]["goodput_mbps"]
    assert [f.holds for f in res.findings][:2] == [True, True]


def test_a_cells_figures_are_the_means_over_its_seeds():
    """The RAN path draws block decoding at random, so a cell run with two seeds reports
    each figure's mean over both (worked by hand)."""

    class Run:
        def __init__(self, goodputs, retx):
            self.group = {"trace": "walk", "cc": "cubic"}
            self.summary = {"sim_seconds": 603.0, "flows": [
                {"name": m, "goodput_mbps": g, "srtt_time_mean_ms": 20.0, "retransmits": r,
                 "rtos": 0} for m, g, r in zip(("rate", "ran"), goodputs, retx)]}

    class Summary:
        ok_runs = [Run((300.0, 200.0), (10, 7)), Run((300.0, 210.0), (10, 8))]

    c = m5g._cells(Summary())[("walk", "cubic")]
    assert c["_n"] == 2 and c["_sim_s"] == 603.0
    assert c["rate"]["goodput_mbps"] == 300.0 and c["ran"]["goodput_mbps"] == 205.0
    assert c["ran"]["retransmits"] == 7.5 and m5g._count(7.5) == "7.5"
    assert m5g._count(10.0) == "10"
