"""The handover outputs through the Python API: the ``handovers`` table with kinds as
names and success as booleans, the optional ``measurements`` table, the per-UE counts in
the summary, and both tables surviving a run folder's write and read."""

from __future__ import annotations

from pathlib import Path

import mmtsim

# Two sites 60 m apart; the UE walks from A towards B at 10 m/s (A3: one handover near
# x = 36.6 m, about 1.8 s); a scripted handover back to A at 3 s (the run ends before A3
# could take the UE to B again: 3 s + TTT + 56 ms).
WALK = """
[simulation]
duration = "3.1s"
seed = 1

[[nodes]]
name = "server"

[[links]]
between = ["server", "A"]
delay = "5ms"
rate = "10Gbps"
[[links]]
between = ["server", "B"]
delay = "5ms"
rate = "10Gbps"

[ran]
preset = "mmwave-2017"
interference = false
[ran.channel]
fading = false
los = "geometric"
[ran.handover]
algorithm = "a3"
filter_k = 0
measurement_period = "10ms"
ttt = "100ms"
log_measurements_every = 10

[[ran.gnbs]]
name = "A"
position_m = [0, 0, 10]
[[ran.gnbs]]
name = "B"
position_m = [60, 0, 10]

[[ran.ues]]
name = "ue"
position_m = [20, 0, 1.5]
gnb = "A"
mobility = { kind = "linear", velocity_mps = [10, 0, 0] }

[[events]]
at = "3s"
handover = { ue = "ue", to = "A" }

[[flows]]
from = "server"
to = "ue"
protocol = "udp"
app = { kind = "cbr", rate = "1Mbps" }
"""


def test_handovers_and_measurements_tables(tmp_path: Path):
    scen = tmp_path / "walk.toml"
    scen.write_text(WALK)
    res = mmtsim.run(scen, out=tmp_path / "run")
    h = res.table("handovers")
    assert h["kind"].to_list() == ["a3", "scripted"]
    assert h["success"].to_list() == [True, True]
    assert h["from"].to_list() == [0, 1] and h["to"].to_list() == [1, 0]
    assert h["interruption_ms"].to_list() == [50.0, 0.0]
    t = h["t_s"].to_list()
    assert 1.5 < t[0] < 2.5 and t[1] == 3.0
    ue = res.summary["ues"][0]
    assert (ue["handovers"], ue["handover_failures"], ue["reestablishments"]) == (2, 0, 0)
    m = res.table("measurements")
    # Every 10th instant of a 10 ms period over 3.1 s (0, 0.1, …, 3.1 s), two cells each.
    assert m.height == 32 * 2
    assert set(m["cell"].to_list()) == {0, 1}
    # No obstacle: the UE sees both cells at every logged measurement.
    assert m["los"].to_list() == [1] * m.height
    # cells.png marks both handovers where the table has them.
    from mmtsim.plot_cells import cells_figure

    lines = cells_figure(res).axes[0].lines
    marks = [ln for ln in lines if len(ln.get_xdata()) == 2
             and ln.get_xdata()[0] == ln.get_xdata()[1]]
    assert sorted(float(ln.get_xdata()[0]) for ln in marks) == t
    back = mmtsim.read_run(tmp_path / "run")
    assert back.table("handovers")["kind"].to_list() == ["a3", "scripted"]
    assert back.table("measurements").height == m.height


def test_a_run_without_handover_has_an_empty_handovers_table_and_no_measurements(tmp_path: Path):
    scen = tmp_path / "still.toml"
    scen.write_text(WALK.replace('algorithm = "a3"', 'algorithm = "none"')
                    .replace('[[events]]\nat = "3s"\nhandover = { ue = "ue", to = "A" }\n', ""))
    res = mmtsim.run(scen, out=tmp_path / "run")
    assert res.table("handovers").height == 0
    assert "measurements" not in res.table_names()
    assert mmtsim.read_run(tmp_path / "run").table("handovers").height == 0


def test_the_ran_table_names_the_secondary_cell(tmp_path: Path):
    # handover-split's UE "ue-car" has no secondary cell: -1 in every row; a secondary
    # cell added by a scripted add_secondary shows from its instant on.
    ex = Path(__file__).resolve().parent.parent / "examples" / "handover-split.toml"
    res = mmtsim.run(ex, overrides={"simulation.duration": "1s"})
    assert set(res.table("ran")["secondary_cell"].to_list()) == {-1}
    text = ex.read_text().replace(
        'handover = { ue = "ue-car", to = "lte" }',
        'add_secondary = { ue = "walker", cell = "lte" }').replace('at = "5s"', 'at = "0.5s"')
    scen = tmp_path / "dc.toml"
    scen.write_text(text)
    res = mmtsim.run(scen, overrides={"simulation.duration": "1s"})
    ran = res.table("ran")
    walker = {u["name"]: u["id"] for u in res.summary["ues"]}["walker"]
    lte = {c["name"]: c["id"] for c in res.summary["cells"]}["lte"]
    w = ran.filter(ran["ue"] == walker)
    before = w.filter(w["t_s"] < 0.5)["secondary_cell"].unique().to_list()
    after = w.filter(w["t_s"] >= 0.5)["secondary_cell"].unique().to_list()
    assert before == [-1] and after == [lte]
