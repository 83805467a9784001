"""Every example scenario validates and runs (shortened), and its run folder plots."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from conftest import EXAMPLES, cli

SCENARIOS = sorted(EXAMPLES.glob("*.toml"))


PRESETS = ("mmwave-2017", "nr-fr2", "lte-2ghz")


def _load(name: str) -> dict:
    with open(EXAMPLES / name, "rb") as f:
        return tomllib.load(f)


def test_there_are_examples():
    assert {p.name for p in SCENARIOS} >= {"blockage.toml", "codel.toml"}
    # One example per RAN preset (the preset is read from the file, not from its name).
    presets = {_load(p.name).get("ran", {}).get("preset") for p in SCENARIOS}
    assert presets >= set(PRESETS), f"no example for {set(PRESETS) - presets}"


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
    # The radio panels exactly for the examples with a radio access network.
    assert (out / "plots" / "radio.png").exists() == ("ran" in _load(scenario.name))


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


def test_nr_fr2_edge_and_remote_min_rtt_differ_by_twice_the_extra_core_delay():
    import mmtsim

    res = mmtsim.run(EXAMPLES / "nr-fr2.toml", overrides=["simulation.duration=2s"])
    f = {x["name"]: x for x in res.summary["flows"]}
    edge, remote = f["edge-dl"]["rtt_min_ms"], f["remote-dl"]["rtt_min_ms"]
    # Wired round trips: edge 2·(1 + 0.5) = 3 ms, remote 2·(1 + 18.5) = 39 ms, so the gap
    # is 2·(18.5 − 0.5) = 36 ms. ue-edge and ue-remote are mirror images about the gNB
    # (same distance, LOS, MCS), so their radio parts share everything but the wait for a
    # slot of the right direction in the 5-slot DDDSU pattern: downlink data waits at most
    # 1 slot (only U interrupts the D slots), the uplink ACK at most 4 (for the next U).
    # The two radio parts therefore differ by at most 5 slots = 5·125 µs = 0.625 ms.
    assert abs((remote - edge) - 36.0) <= 0.625, (edge, remote)
    # Each minimum exceeds its wired round trip; the study's MEC server is at ≈ 4 ms and
    # its remote server at ≈ 40 ms, which the radio's ~1 ms keeps us near.
    assert 3.0 < edge < 5.0 and 39.0 < remote < 41.0, (edge, remote)


def test_nr_fr2_walker_goes_behind_the_truck_when_the_geometry_says():
    import mmtsim
    import polars as pl

    sc = _load("nr-fr2.toml")
    # LOS is geometric: only the walker's path matters, so one light flow keeps this fast.
    sc["simulation"]["duration"] = "12.5s"
    sc["flows"] = [{"name": "probe", "from": "ue-walk", "to": "edge",
                    "app": {"kind": "rate", "rate": "1Mbps"}}]
    res = mmtsim.run(sc)
    ran = res.table("ran").filter(pl.col("ue") == 2)  # ue-walk is the third UE
    # The ray gNB (0, 0, 10) → UE (x, -10, 1.5) is at height 10 − 8.5·f a fraction f of the
    # way; the truck (x 18…30, y -8…-6, z 0…4) blocks it once the point f = 0.8 (y = -8,
    # height 3.2 m < 4 m) has x = 0.8·x_ue ≥ 18, i.e. x_ue ≥ 22.5 m, reached at
    # t = (22.5 − 5) / 1.5 = 11.667 s; the ran table samples every 10 ms → 11.67 s.
    nlos = ran.filter(pl.col("los") == 0)["t_s"]
    assert nlos.len() > 0 and abs(nlos.min() - 11.67) < 0.015, nlos.head(3)
    # ... and it stays blocked to the end (x_ue ≤ 42.5 m keeps the ray inside the truck).
    assert ran.filter(pl.col("t_s") >= 11.67)["los"].max() == 0


# lte-2ghz peak rate per direction (FDD: each direction has its own carrier), worked from the
# preset's numbers (crates/ran/src/phy/numerology.rs, tbs.rs `Lte` rule):
#   REs per RB per TTI: 12 subcarriers · 11 data symbols − 12 CRS REs = 120.
#   100 RB: 12,000 REs; MCS 28 (Qm 6, ECR 0.92): 12,000·6·0.92 = 66,240 bits − 24 (TB CRC)
#     = 66,216; code blocks C = ceil(66,216 / 6,144) = 11, − 11·24 = 65,952 bits per 1 ms
#     TTI → 65,952,000 bit/s.
#   25 RB: 3,000 REs·6·0.92 = 16,560 − 24 = 16,536; C = ceil(2.69) = 3, − 72 = 16,464 bits
#     → 16,464,000 bit/s.
LTE_PEAK_BPS = {100: 65_952_000, 25: 16_464_000}


@pytest.mark.parametrize("rbs", sorted(LTE_PEAK_BPS))
def test_lte_downlink_goodput_is_at_most_the_peak_rate(rbs: int):
    import mmtsim
    import polars as pl

    res = mmtsim.run(EXAMPLES / "lte-2ghz.toml",
                     overrides=["simulation.duration=5s", f"ran.rbs={rbs}"])
    peak_mbps = LTE_PEAK_BPS[rbs] / 1e6
    cell_dl = res.summary["cells"][0]["throughput_mbps"]["dl"]
    goodput = sum(f["goodput_mbps"] for f in res.summary["flows"])
    # The cell cannot decode more than one full MCS-28 TB per TTI.
    assert cell_dl <= peak_mbps + 1e-9, (cell_dl, peak_mbps)
    # Every 1452-byte IP packet carries at most 1400 bytes of payload (52 bytes of TCP/IP
    # headers with timestamps), before any PDCP/RLC/MAC header: goodput ≤ peak·1400/1452
    # (100 RB: 63.59 Mbit/s; 25 RB: 15.87 Mbit/s).
    assert goodput <= peak_mbps * 1400 / 1452, (goodput, peak_mbps)
    # The downloads do saturate the carrier: both UEs are far above the MCS-28 threshold
    # (checked in the ran table), both flows are backlogged after their first RTTs (slow
    # start ≈ 10 RTTs of ~30 ms = 0.3 s of the 5 s), so the cell decodes ≥ 90 % of the peak.
    mcs = res.table("ran")["mcs_dl"].drop_nans().drop_nulls()
    assert (mcs == 28).mean() > 0.95
    assert cell_dl >= 0.9 * peak_mbps, (cell_dl, peak_mbps)


def test_street_hands_over_where_the_two_aps_are_equally_far():
    # street-handover: AP1 (x = 20 m) and AP2 (x = 40 m) stand alike on the far side, both
    # in line of sight of the walker at x = 30 m: their RSRPs cross there, whatever the
    # path-loss model, at t = (30 − 10)/1.5 = 13.333 s. The first measurement after it on
    # the 1.6 ms grid is 8334 × 1.6 ms = 13.3344 s; the 200 µs time-to-trigger has passed
    # at the next, 13.3360 s; then the report (1 ms), the preparation over the 1 ms Xn link
    # and back (2 ms), the command (1 ms) and the 50 ms interruption: AP2 serves the UE
    # from 13.3900 s. Behind the parked bus AP2 is lost and the walk ends on AP3.
    import mmtsim

    res = mmtsim.run(EXAMPLES / "street-handover.toml")
    hos = res.table("handovers").sort("t_s")
    names = {c["id"]: c["name"] for c in res.summary["cells"]}
    first = hos.row(0, named=True)
    assert (names[first["from"]], names[first["to"]]) == ("ap1", "ap2")
    assert first["t_s"] == pytest.approx(13.3900, abs=1e-6)
    assert first["success"]
    assert names[hos.row(-1, named=True)["to"]] == "ap3"
    assert res.summary["ues"][0]["serving_cell"] == "ap3"


def test_train_split_example_has_a_short_and_a_long_control_loop():
    # The header's round trips from the links' delays: the split flow's first leg is all
    # wire, 2 × 19 ms; its second leg 2 × (0.5 + 0.5) ms plus the radio; the end-to-end
    # flow 2 × 20 ms plus the radio (seed 003's remote server, ~40 ms).
    import mmtsim

    res = mmtsim.run(EXAMPLES / "train-split.toml", overrides={"simulation.duration": "2s"})
    leg1, leg2, e2e = res.summary["flows"]
    assert (leg1["name"], leg2["name"], e2e["name"]) == ("split.leg1", "split.leg2", "e2e")
    assert leg1["cc"] == leg2["cc"] == e2e["cc"]
    assert 38.0 <= leg1["rtt_min_ms"] < 38.5
    assert 2.0 <= leg2["rtt_min_ms"] < 10.0
    assert 40.0 <= e2e["rtt_min_ms"] < 48.0
    # The split flow's end-to-end delay is at least the one-way propagation, 20 ms.
    assert leg2["relay"]["end_to_end_delay_ms"] >= 20.0
