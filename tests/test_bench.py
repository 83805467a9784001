"""`mmtsim bench`: the named benchmarks exist, are valid scenarios, agree with the examples
they are taken from, and bad names fail cleanly. No benchmark is run here and no wall time
is asserted (speed is measured by `mmtsim bench`, see BENCHMARKS.md)."""

from __future__ import annotations

import json

import pytest

from conftest import EXAMPLES, cli

import mmtsim
from mmtsim import _core, bench
from mmtsim.cc import algorithms
from mmtsim.bench import BENCHMARKS, GROUPS

NEW = [
    "ran-1ue-ul-cubic-25s",
    "ran-10ues-mixed-10s",
    "xtcp-ran-1ue-ul-25s",
    "newreno-ran-1ue-ul-25s",
] + [f"{a}-1g-60s" for a in ("bic", "highspeed", "scalable", "htcp", "hybla", "illinois",
                             "vegas", "veno", "westwood", "yeah", "bbr")]


def test_list_shows_every_benchmark_and_group():
    r = cli("bench", "--list")
    assert r.returncode == 0, r.stderr
    listed = {line.split(":")[0] for line in r.stdout.splitlines()}
    for name in ["cubic-1g-60s", "newreno-1g-60s", "codel-4flows-100m-60s", *NEW]:
        assert name in listed, name
    for g in ("foundation", "cc", "ran"):
        assert f"group {g}" in listed, g


def test_every_algorithm_has_a_benchmark_running_that_algorithm():
    for algo in algorithms():
        name = f"{algo}-ran-1ue-ul-25s" if algo == "xtcp" else f"{algo}-1g-60s"
        assert name in BENCHMARKS, name
        assert name in GROUPS["cc"], name
        this = _resolved(name)
        assert [f["cc"] for f in this["flows"]] == [algo]
        # Its baseline is NewReno on the same path: same scenario but for the algorithm.
        base = BENCHMARKS[name].get("baseline")
        if algo != "newreno":
            assert base in GROUPS["cc"], name
            other = _resolved(base)
            assert [f["cc"] for f in other["flows"]] == ["newreno"]
            other["flows"][0]["cc"] = algo
            if other["flows"][0]["name"] == "newreno":
                other["flows"][0]["name"] = algo
            assert other == this, name


@pytest.mark.parametrize("name", list(BENCHMARKS))
def test_every_benchmark_scenario_validates(name: str):
    sc = _resolved(name)
    # The name ends with the simulated time ("…-60s"); UEs staying inside ran.area for that
    # long is part of validation.
    secs = float(name.rsplit("-", 1)[1].removesuffix("s"))
    assert _core.parse_duration(sc["simulation"]["duration"]) == pytest.approx(secs)


def _resolved(name: str) -> dict:
    """Benchmark ``name``'s scenario, validated (defaults filled in)."""
    return mmtsim.validate(*bench.source(name))


def _resolved_example(file: str, overrides: list[str]) -> dict:
    return mmtsim.validate(EXAMPLES / file, overrides=overrides)


def test_ran_single_ue_benchmark_is_the_example_at_2_mps_for_25_s():
    # BENCHMARKS.md's RAN measurement: examples/mmwave-2017.toml, 25 s, UE at 2 m/s.
    want = _resolved_example("mmwave-2017.toml", [
        "simulation.duration=25s", "ran.ues.0.mobility.velocity_mps=[2, 0, 0]"])
    got = _resolved("ran-1ue-ul-cubic-25s")
    assert got == want
    # The walk stays in the area: x from -40 to -40 + 2·25 = 10 m, inside [-100, 100].
    assert want["ran"]["area"]["max_m"][0] >= -40 + 2 * 25


def test_ten_ue_benchmark_is_the_ran_10ues_example():
    got = _resolved("ran-10ues-mixed-10s")
    assert got == _resolved_example("ran-10ues.toml", [])
    ran = got["ran"]
    assert len(ran["ues"]) == 10 and len(ran["gnbs"]) == 1 and ran["preset"] == "mmwave-2017"
    # Mixed traffic: uplink CUBIC and NewReno, downlink TCP, UDP, and walking UEs.
    ues = {u["name"] for u in ran["ues"]}
    kinds = {(f["protocol"], f["from"] in ues, f.get("cc")) for f in got["flows"]}
    assert {("tcp", True, "cubic"), ("tcp", True, "newreno"), ("tcp", False, "cubic")} <= kinds
    assert any(p == "udp" for p, _, _ in kinds)
    assert sum(u["mobility"] is not None for u in ran["ues"]) >= 2


def test_downlink_single_ue_benchmark_reverses_the_uplink_one():
    ul, dl = _resolved("ran-1ue-ul-cubic-25s"), _resolved("ran-1ue-dl-cubic-25s")
    assert (dl["flows"][0]["from"], dl["flows"][0]["to"]) == ("server", "ue1")
    dl["flows"][0]["from"], dl["flows"][0]["to"] = "ue1", "server"
    assert dl == ul


@pytest.mark.parametrize("traffic", ["full", "mixed"])
def test_hundred_ue_benchmark_is_100_ues_in_10_cells(traffic):
    got = _resolved(f"ran-100ues-10cells-{traffic}-10s")
    ran = got["ran"]
    assert len(ran["ues"]) == 100 and len(ran["gnbs"]) == 10 and len(got["flows"]) == 100
    assert ran["interference"] == "active" and ran["handover"]["algorithm"] == "a3"
    # Every UE starts on its nearest gNB (distance in the ground plane).
    sites = {g["name"]: g["position_m"] for g in ran["gnbs"]}
    for u in ran["ues"]:
        x, y = u["position_m"][:2]
        d = {n: (p[0] - x) ** 2 + (p[1] - y) ** 2 for n, p in sites.items()}
        assert d[u["gnb"]] == min(d.values()), u
    walkers = sum(u["mobility"] is not None for u in ran["ues"])
    assert walkers == 20
    udp = sum(f["protocol"] == "udp" for f in got["flows"])
    assert udp == (0 if traffic == "full" else 20)


def test_grid_is_deterministic_and_refuses_bad_sizes():
    from mmtsim.bench_grid import grid

    assert grid(25, 5) == grid(25, 5)
    assert grid(25, 5, seed=2) != grid(25, 5)
    # Five gNBs per row: 12 cells make three rows, 100 m apart.
    g = grid(3, 12)
    assert g["ran"]["area"]["max_m"] == [500.0, 300.0]
    assert g["ran"]["gnbs"][11]["position_m"] == [150.0, 250.0, 10.0]
    for bad in ((0, 1, "mixed"), (1, 0, "mixed"), (1, 1, "bulk")):
        with pytest.raises(ValueError, match="grid"):
            grid(*bad)


def test_scaling_group_spans_the_issue_points():
    names = GROUPS["scaling"]
    assert {f"scale-{n}ues-10cells-5s" for n in (10, 25, 50, 100, 200)} <= set(names)
    assert {f"scale-100ues-{c}cells-5s" for c in (1, 2, 5, 10, 20)} <= set(names)


def test_select_keeps_order_adds_groups_and_refuses_unknown_names():
    cc = bench.select([], ["cc"])
    assert cc == [n for n in BENCHMARKS if n in GROUPS["cc"]]
    # A group carries the baselines its members are compared with.
    for n in cc:
        assert BENCHMARKS[n].get("baseline", n) in cc
    assert bench.select(["bbr-1g-60s"], ["foundation"]) == [
        "cubic-1g-60s", "newreno-1g-60s", "codel-4flows-100m-60s", "bbr-1g-60s"]
    assert bench.select([], []) == list(BENCHMARKS)
    with pytest.raises(KeyError, match="unknown benchmark.*nope"):
        bench.select(["nope"], [])
    with pytest.raises(KeyError, match="unknown benchmark group.*nope"):
        bench.select([], ["nope"])


def test_relative_speed_is_the_ratio_of_simulated_seconds_per_wall_second():
    results = [
        {"name": "newreno-1g-60s", "sim_s_per_wall_s": 40.0},
        {"name": "bbr-1g-60s", "sim_s_per_wall_s": 10.0},
        {"name": "xtcp-ran-1ue-ul-25s", "sim_s_per_wall_s": 5.0},  # its baseline is absent
    ]
    bench.add_relative_speeds(results)
    # 10 / 40 = 0.25: four times slower than NewReno, past the 2× limit (ratio 0.5).
    assert results[1]["baseline"] == "newreno-1g-60s"
    assert results[1]["speed_vs_baseline"] == pytest.approx(0.25)
    assert results[1]["speed_vs_baseline"] < bench.SLOWER_LIMIT
    assert "speed_vs_baseline" not in results[0] and "speed_vs_baseline" not in results[2]


def test_group_run_prints_and_writes_the_ratio(tmp_path, monkeypatch, capsys):
    # The CLI wiring only: the runner is replaced by one that returns made-up speeds.
    from mmtsim import cli as cli_mod

    def fake(names, repeat=1):
        out = [{"name": n, "sim_s_per_wall_s": 30.0 if n.startswith("newreno") else 12.0,
                "events": 1e6, "events_per_s": 1e6, "peak_rss_mb": 50.0} for n in names]
        bench.add_relative_speeds(out)
        return {"benchmarks": out}

    monkeypatch.setattr(bench, "run_benchmarks", fake)
    out = tmp_path / "b.json"
    assert cli_mod.main(["bench", "--group", "cc", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    # 12 / 30 = 0.40 < 0.5: flagged.
    assert "bbr-1g-60s: 12.0 sim s/wall s" in text
    assert "0.40x the speed of newreno-1g-60s (more than 2x slower)" in text
    data = json.loads(out.read_text())
    assert data["groups"] == ["cc"]
    r = {b["name"]: b for b in data["benchmarks"]}
    assert r["bbr-1g-60s"]["speed_vs_baseline"] == pytest.approx(0.4)
    assert r["xtcp-ran-1ue-ul-25s"]["baseline"] == "newreno-ran-1ue-ul-25s"
    assert set(r) == set(GROUPS["cc"])


@pytest.mark.parametrize("args, words", [
    (["nope"], ["unknown benchmark(s) nope", "cubic-1g-60s"]),
    (["--only", "nope"], ["unknown benchmark(s) nope"]),
    (["--group", "nope"], ["unknown benchmark group(s) nope", "cc"]),
])
def test_unknown_names_exit_2_and_write_nothing(tmp_path, args, words):
    r = cli("bench", *args, cwd=tmp_path)
    assert r.returncode == 2
    for w in words:
        assert w in r.stderr, r.stderr
    assert not (tmp_path / "bench.json").exists()
    assert r.stdout == ""



def test_a_run_records_how_the_extension_was_built():
    # The figures depend on the build (profile-guided or not), so the results say which.
    out = bench.run_benchmarks(["codel-4flows-100m-60s"])
    assert out["build"] == mmtsim.__build__
    assert out["build"] in ("pgo", "plain")
    assert [r["name"] for r in out["benchmarks"]] == ["codel-4flows-100m-60s"]
    assert out["benchmarks"][0]["sim_s_per_wall_s"] > 0
