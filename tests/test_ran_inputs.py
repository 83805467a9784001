"""Every [ran] key is validated like the foundation's: a bad value gives
one clear message naming the file and the key path, exit code 2, and nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import cli

RAN = """
[simulation]
duration = "1s"
seed = 1

[[nodes]]
name = "server"

[[links]]
between = ["gnb", "server"]
delay = "5ms"
rate = "10Gbps"

[ran]
preset = "mmwave-2017"
area = { min_m = [-100, -100], max_m = [100, 100] }

[[ran.gnbs]]
name = "gnb"
position_m = [0, 0, 10]

[[ran.ues]]
name = "ue"
position_m = [20, 0, 1.5]

[[ran.buildings]]
min_m = [30, 30, 0]
max_m = [40, 40, 20]

[[flows]]
from = "server"
to = "ue"
"""

CASES = [
    ("unknown-preset", ('preset = "mmwave-2017"', 'preset = "mmwave-2018"'),
     ["ran.preset", 'unknown preset "mmwave-2018"', "mmwave-2017, nr-fr2, lte-2ghz"]),
    ("rbs-on-a-non-lte-preset", ('preset = "mmwave-2017"', 'preset = "mmwave-2017"\nrbs = 50'),
     ["ran.rbs", "50"]),
    ("lte-with-odd-rbs", ('preset = "mmwave-2017"', 'preset = "lte-2ghz"\nrbs = 33'),
     ["ran.rbs", "33"]),
    ("unknown-scheduler", ('preset = "mmwave-2017"', 'preset = "mmwave-2017"\nscheduler = "fair"'),
     ["ran.scheduler", 'unknown scheduler "fair"', "rr, pf, max-rate"]),
    ("overlapping-buildings", ('max_m = [40, 40, 20]\n', 'max_m = [40, 40, 20]\n\n[[ran.buildings]]\nmin_m = [35, 35, 0]\nmax_m = [45, 45, 10]\n'),
     ["ran.buildings[1]", "overlaps ran.buildings[0]"]),
    ("inverted-building", ("min_m = [30, 30, 0]", "min_m = [50, 30, 0]"),
     ["ran.buildings[0]", "min < max"]),
    ("ue-path-leaves-the-area", ('position_m = [20, 0, 1.5]', 'position_m = [20, 0, 1.5]\nmobility = { kind = "linear", velocity_mps = [200, 0, 0] }'),
     ["ran.ues[0].mobility", "leaves ran.area"]),
    ("ue-inside-a-building", ('position_m = [20, 0, 1.5]', 'position_m = [35, 35, 1.5]'),
     ["ran.ues[0].position_m", "inside ran.buildings[0]"]),
    ("unknown-gnb", ('position_m = [20, 0, 1.5]', 'position_m = [20, 0, 1.5]\ngnb = "gnb2"'),
     ["ran.ues[0].gnb", 'no cell or gNB is called "gnb2"']),
    ("ue-name-clashes-with-a-node", ('name = "ue"', 'name = "server"'),
     ["ran.ues[0].name", '"server" is already the name of nodes[0]']),
    ("unknown-pathloss-model", ('preset = "mmwave-2017"', 'preset = "mmwave-2017"\nchannel = { model = "friis" }'),
     ["ran.channel.model", 'unknown path-loss model "friis"']),
    ("unknown-rlc-mode", ('preset = "mmwave-2017"', 'preset = "mmwave-2017"\nrlc = { mode = "tm" }'),
     ["ran.rlc.mode", '"tm"']),
    ("unknown-interference-mode", ('preset = "mmwave-2017"', 'preset = "mmwave-2017"\ninterference = "partial"'),
     ["ran.interference", '"partial"', '"active", "full-buffer", "full-buffer-omni", "off", true or false']),
    ("interference-as-number", ('preset = "mmwave-2017"', 'preset = "mmwave-2017"\ninterference = 1'),
     ["ran.interference", "1", '"active"']),
    ("zero-channel-update", ('preset = "mmwave-2017"', 'preset = "mmwave-2017"\nchannel_update = "0s"'),
     ["ran.channel_update", "longer than zero"]),
    ("pdcp-sn-length-not-in-38323", ('preset = "mmwave-2017"', 'preset = "mmwave-2017"\npdcp_sn_bits = 16'),
     ["ran.pdcp_sn_bits", "16", "12 or 18"]),
    ("random-walk-without-area", ('area = { min_m = [-100, -100], max_m = [100, 100] }\n', ''),
     []),
    ("waypoint-pauses-mismatch", ('position_m = [20, 0, 1.5]', 'position_m = [20, 0, 1.5]\nmobility = { kind = "waypoints", points_m = [[30, 0, 1.5]], speed_mps = 1, pauses = ["1s", "2s"] }'),
     ["ran.ues[0].mobility.pauses", "2 pauses for 1 points"]),
    ("unknown-ue-key", ('position_m = [20, 0, 1.5]', 'position_m = [20, 0, 1.5]\nspeed = 3'),
     ["ran.ues[0]", "unknown field `speed`"]),
    ("missing-sinr-trace", ('position_m = [20, 0, 1.5]', 'position_m = [20, 0, 1.5]\nsinr_trace = "nope.csv"'),
     ["ran.ues[0].sinr_trace", "cannot read", "nope.csv"]),
]
# The area case needs a random walk to be an error; build it explicitly.
CASES[-4] = ("random-walk-without-area",
             (('area = { min_m = [-100, -100], max_m = [100, 100] }\n', ''),
              ('position_m = [20, 0, 1.5]', 'position_m = [20, 0, 1.5]\nmobility = { kind = "random_walk", speed_mps = [1, 2], interval = "1s" }')),
             ["ran.ues[0].mobility", "needs ran.area"])
# Cells with their own radio, several per site, dual connectivity, PDCP reordering.
CASES += [
    ("unknown-cell-preset", ('position_m = [0, 0, 10]', 'position_m = [0, 0, 10]\npreset = "wifi"'),
     ["ran.gnbs[0].preset", 'unknown preset "wifi"']),
    ("unknown-cell-scheduler", ('position_m = [0, 0, 10]', 'position_m = [0, 0, 10]\ncells = [{ name = "c1", scheduler = "fifo" }]'),
     ["ran.gnbs[0].cells[0].scheduler", 'unknown scheduler "fifo"']),
    ("cell-named-like-a-node", ('position_m = [0, 0, 10]', 'position_m = [0, 0, 10]\ncells = [{ name = "server" }]'),
     ["ran.gnbs[0].cells[0].name", '"server"']),
    ("secondary-is-the-serving-cell", ('position_m = [20, 0, 1.5]', 'position_m = [20, 0, 1.5]\nsecondary = "gnb"'),
     ["ran.ues[0].secondary", "serving cell"]),
    ("unknown-secondary", ('position_m = [20, 0, 1.5]', 'position_m = [20, 0, 1.5]\nsecondary = "gnb9"'),
     ["ran.ues[0].secondary", '"gnb9"']),
    ("pdcp-reordering-negative", ('preset = "mmwave-2017"', 'preset = "mmwave-2017"\npdcp_t_reordering = "-1ms"'),
     ["ran.pdcp_t_reordering", "-1ms"]),
    ("handover-to-unknown-cell", ('to = "ue"\n', 'to = "ue"\n[[events]]\nat = "0.5s"\nhandover = { ue = "ue", to = "gnb9" }\n'),
     ["events[0].handover.to", 'cell "gnb9"']),
    ("add-secondary-unknown-ue", ('to = "ue"\n', 'to = "ue"\n[[events]]\nat = "0.5s"\nadd_secondary = { ue = "ue9", cell = "gnb" }\n'),
     ["events[0].add_secondary.ue", 'UE "ue9"']),
    ("upf-is-a-gnb", ('to = "ue"\n', 'to = "ue"\n[core]\nupf = "gnb"\n'),
     ["core.upf", '"gnb" is a gNB or UE']),
]
# Rows of obstacles and lanes of vehicles.
LANE = '\n[[ran.vehicles]]\nfrom_m = [-50, 5, 0]\nto_m = [50, 5, 0]\nsize_m = [10, 2, 3]\nspeed_mps = 10\n'
CASES += [
    ("row-of-no-boxes", ("max_m = [40, 40, 20]\n", "max_m = [40, 40, 20]\nrepeat = { count = 0, step_m = [20, 0, 0] }\n"),
     ["ran.buildings[0].repeat.count", "0", "1 to 10000"]),
    ("row-step-smaller-than-a-box", ("max_m = [40, 40, 20]\n", "max_m = [40, 40, 20]\nrepeat = { count = 3, step_m = [5, 0, 0] }\n"),
     ["ran.buildings[0]", "copy 1 of its row", "overlaps ran.buildings[0]"]),
    ("lane-not-along-an-axis", ("max_m = [40, 40, 20]\n", "max_m = [40, 40, 20]\n" + LANE.replace("[50, 5, 0]", "[50, 9, 0]")),
     ["ran.vehicles[0]", "[50.0, 9.0, 0.0]", "parallel to the x or the y axis"]),
    ("too-many-vehicles-for-the-lane", ("max_m = [40, 40, 20]\n", "max_m = [40, 40, 20]\n" + LANE + "count = 11\nspacing_m = 10\n"),
     ["ran.vehicles[0]", "11 vehicles", "do not fit"]),
    ("vehicle-reversing", ("max_m = [40, 40, 20]\n", "max_m = [40, 40, 20]\n" + LANE.replace("speed_mps = 10", "speed_mps = -3")),
     ["ran.vehicles[0]", "-3", "speed"]),
]
# Measurement-based handover ([ran.handover]).
CASES += [
    ("handover-unknown-algorithm", ('preset = "mmwave-2017"\n', 'preset = "mmwave-2017"\nhandover = { algorithm = "a4" }\n'),
     ["ran.handover.algorithm", '"a4"', "none, a3, threshold"]),
    ("handover-filter-k-too-large", ('preset = "mmwave-2017"\n', 'preset = "mmwave-2017"\nhandover = { filter_k = 20 }\n'),
     ["ran.handover.filter_k", "20", "0 to 19"]),
    ("handover-zero-measurement-period", ('preset = "mmwave-2017"\n', 'preset = "mmwave-2017"\nhandover = { measurement_period = "0s" }\n'),
     ["ran.handover.measurement_period", "longer than zero"]),
    ("handover-negative-hysteresis", ('preset = "mmwave-2017"\n', 'preset = "mmwave-2017"\nhandover = { hysteresis_db = -1.0 }\n'),
     ["ran.handover.hysteresis_db", "-1", "0 to 15"]),
    ("handover-ttt-without-unit", ('preset = "mmwave-2017"\n', 'preset = "mmwave-2017"\nhandover = { ttt = 100 }\n'),
     ["ran.handover.ttt", "bare number has no unit"]),
]
# Dual connectivity's leg choice ([ran.dual_connectivity]).
CASES += [
    ("dual-unknown-mode", ('preset = "mmwave-2017"\n', 'preset = "mmwave-2017"\ndual_connectivity = { mode = "split" }\n'),
     ["ran.dual_connectivity.mode", '"split"', "sinr, coordinated"]),
    ("dual-zero-report-period", ('preset = "mmwave-2017"\n', 'preset = "mmwave-2017"\ndual_connectivity = { mode = "coordinated", report_period = "0ms" }\n'),
     ["ran.dual_connectivity.report_period", "longer than zero"]),
    ("dual-negative-hysteresis", ('preset = "mmwave-2017"\n', 'preset = "mmwave-2017"\ndual_connectivity = { switch_back_hysteresis_db = -2.0 }\n'),
     ["ran.dual_connectivity.switch_back_hysteresis_db", "-2"]),
    ("dual-x2-delay-without-unit", ('preset = "mmwave-2017"\n', 'preset = "mmwave-2017"\ndual_connectivity = { x2_delay = 1 }\n'),
     ["ran.dual_connectivity.x2_delay", "bare number has no unit"]),
    ("dual-unknown-key", ('preset = "mmwave-2017"\n', 'preset = "mmwave-2017"\ndual_connectivity = { outage_db = -5.0 }\n'),
     ["ran.dual_connectivity", "outage_db"]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_ran_key_is_rejected(tmp_path: Path, case):
    _, repl, fragments = case
    text = RAN
    for old, new in (repl if isinstance(repl[0], tuple) else [repl]):
        assert old in text, f"test setup: {old!r} not in the base scenario"
        text = text.replace(old, new, 1)
    scen = tmp_path / "bad.toml"
    scen.write_text(text)
    out = tmp_path / "out"
    r = cli("run", str(scen), "--out", str(out), "--quiet")
    assert r.returncode == 2, r.stderr
    assert fragments, "every case names what it expects"
    for f in fragments:
        assert f in r.stderr, f"{f!r} not in:\n{r.stderr}"
    assert not out.exists()


def test_the_base_ran_scenario_is_valid(tmp_path: Path):
    scen = tmp_path / "ok.toml"
    scen.write_text(RAN)
    r = cli("validate", str(scen))
    assert r.returncode == 0, r.stderr


def test_sinr_trace_drives_the_channel(tmp_path: Path):
    (tmp_path / "s.csv").write_text("time_s,sinr_db\n0,25\n0.5,-20\n")
    scen = tmp_path / "t.toml"
    scen.write_text(RAN.replace('position_m = [20, 0, 1.5]', 'position_m = [20, 0, 1.5]\nsinr_trace = "s.csv"'))
    out = tmp_path / "out"
    r = cli("run", str(scen), "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    import mmtsim
    ran = mmtsim.read_run(out).table("ran")
    early = ran.filter(ran["t_s"] < 0.5)["sinr_dl_db"]
    late = ran.filter(ran["t_s"] > 0.5)["sinr_dl_db"]
    assert (early == 25).all() and (late == -20).all()
