"""The fidelity check of real-time emulation (python/mmtsim/kernel/emulated.py): the real
Linux CUBIC, Reno and BBR through `mmtsim emulate` on the blockage trace and on the
single-UE mmWave scenario, against mmtsim's CUBIC, NewReno and BBR simulated on the same
scenario. Every row must hold: mean goodput within 10 %, the same shape of goodput, RTT
and cwnd, and an emulation that kept to the wall clock.

Runtime: six kernel runs of 9 to 15 s plus set-up, about two minutes (root only; CI runs
it as root).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mmtsim.kernel import emulated as E
from mmtsim.kernel import netns

_MISSING = netns.missing_privileges()
needs_root = pytest.mark.skipif(bool(_MISSING), reason="emulation needs "
                                + "; ".join(_MISSING) + " (CI runs these as root)")


def test_bins_are_means_over_fixed_windows():
    t = np.array([0.1, 0.2, 0.6, 1.4, 1.6])
    v = np.array([1.0, 3.0, 10.0, 4.0, 8.0])
    b = E._bins(t, v, 0.0, 2.0, 0.5)
    # [0, .5): mean(1, 3) = 2; [.5, 1): 10; [1, 1.5): 4; [1.5, 2): 8.
    assert b.tolist() == [2.0, 10.0, 4.0, 8.0]
    # An empty bin is NaN, not zero.
    assert math.isnan(E._bins(t, v, 0.0, 3.0, 0.5)[4])


def test_shape_holds_for_series_that_rise_and_fall_together():
    a = np.array([1.0, 2.0, 3.0, 2.0, 1.0, 5.0])
    assert E.same_shape(a, 2 * a + 1)["holds"]
    assert E.same_shape(a, 2 * a + 1)["correlation"] == pytest.approx(1.0)
    # Opposite movements fail.
    assert not E.same_shape(a, -a + 10)["holds"]


def test_two_flat_series_have_the_same_shape_whatever_their_noise():
    a = np.array([100.0, 101.0, 99.0, 100.0])
    b = np.array([200.0, 199.0, 201.0, 200.0])  # anti-correlated noise, both within 1 %
    s = E.same_shape(a, b)
    assert s["flat"] and s["holds"]


def test_a_shift_within_the_allowed_lag_is_the_same_shape():
    a = np.array([1.0, 1.0, 5.0, 1.0, 1.0, 1.0, 3.0, 1.0, 1.0])
    late = np.roll(a, 2)  # the same peaks two bins later
    assert E.same_shape(a, late)["correlation"] < 0.5
    s = E.same_shape(a, late, max_lag_bins=2)
    assert s["holds"] and s["lag_bins"] == -2 and s["correlation"] == pytest.approx(1.0)
    # Beyond the allowed shift it is not.
    assert not E.same_shape(a, np.roll(a, 3), max_lag_bins=2)["holds"]


def test_slow_start_exit_is_the_first_finite_ssthresh_and_says_how():
    inf = E.INFINITE_SSTHRESH
    # HyStart: ssthresh set to cwnd (8905) with nothing retransmitted.
    s = {"snd_ssthresh": [inf, inf, 8905, 8905, 9023], "total_retrans": [0, 0, 0, 0, 116],
         "t_ns": [0, 10, 20, 30, 40]}
    assert E.slow_start_exit(s) == {"segments": 8905, "t_ns": 20, "by": "hystart"}
    # A loss first: the first finite ssthresh comes with retransmissions.
    s = {"snd_ssthresh": [inf, 12789, 8957], "total_retrans": [0, 2533, 6496], "t_ns": [0, 10, 20]}
    assert E.slow_start_exit(s) == {"segments": 12789, "t_ns": 10, "by": "loss"}
    # Never left slow start.
    assert E.slow_start_exit({"snd_ssthresh": [inf, inf], "total_retrans": [0, 0], "t_ns": [0, 1]}) is None


def test_the_exit_cell_names_both_exits_and_the_pairing():
    e = {"kernel": {"segments": 8905, "t_ns": 1, "by": "hystart"}, "paired": True, "mmtsim_own_segments": 8200}
    assert E._exit_cell(e) == "8905 hystart / 8200 (paired)"
    assert E._exit_cell({"kernel": None, "paired": False, "mmtsim_own_segments": None}) == "— / —"


def test_the_paired_simulated_run_leaves_slow_start_at_the_kernels_window():
    # The kernel left by HyStart at 3000 segments: mmtsim's run (HyStart off) sets its
    # first finite ssthresh there. Its own HyStart, unpaired, exits elsewhere.
    case = E.CASES["mmwave"]
    paired = E.run_mmtsim(case, "cubic", 0.02, 1448, {"segments": 3000, "t_ns": 0, "by": "hystart"})
    assert paired["slow_start_exit_segments"] == 3000
    own = E.run_mmtsim(case, "cubic", 0.02, 1448)
    assert own["slow_start_exit_segments"] not in (None, 3000)


def test_ensemble_windows_spread_evenly_around_the_kernels():
    # 1000 segments ± 5 % in 5 steps: 950, 975, 1000, 1025, 1050.
    assert E.ensemble_windows(1000, size=5, spread=0.05) == [950, 975, 1000, 1025, 1050]
    # The default: 25 windows from 0.95 to 1.05 of the kernel's, its own in the middle.
    w = E.ensemble_windows(1754)
    assert len(w) == 25 and w[0] == round(1754 * 0.95) and w[-1] == round(1754 * 1.05)
    assert w[12] == 1754
    # Small windows stay at 2 segments or more, without duplicates.
    assert E.ensemble_windows(2, size=5, spread=0.5) == [2, 3]


def test_the_member_reported_is_the_nearest_that_holds_else_the_closest_in_shape():
    def row(holds, *r):
        return {"holds": holds, "shape": {w: {"correlation": c} for w, c in zip("abc", r)}}

    windows = [90, 95, 100, 105, 110]
    rows = [row(True, 1, 1, 1), row(False, 1, 0.2, 1), row(False, 1, 0.1, 1),
            row(True, 1, 0.9, 1), row(False, 1, 1, 0.3)]
    # Held: 90 and 105; 105 is nearer the kernel's 100.
    assert E.pick_member(rows, windows, 100) == 3
    # None held: the highest weakest correlation wins. Weakest per member: 0.2, 0.1, 0.9,
    # 0.3, and None (no correlation) counts as the lowest: the third, at 105.
    rows = [dict(r, holds=False) for r in rows[1:]] + [row(False, None, 1, 1)]
    assert E.pick_member(rows, [95, 100, 105, 110, 115], 100) == 2


def test_a_cwnd_held_at_four_segments_for_200_ms_is_a_probe_rtt_episode():
    mss = 1000
    t = np.arange(0.0, 1.0, 0.01)
    cwnd = np.full(len(t), 500_000.0)
    cwnd[30:51] = 4 * mss  # 0.30 to 0.50 s at 4 segments: PROBE_RTT's 200 ms
    # A slow start after a timeout passes 1, 2, 4 segments in three 20 ms rounds: not one.
    cwnd[70:72], cwnd[72:74], cwnd[74:76] = mss, 2 * mss, 4 * mss
    assert E.probe_rtt_episodes(t, cwnd, mss) == [[pytest.approx(0.30), pytest.approx(0.51)]]
    # Held to the last sample: the episode ends there.
    cwnd[80:] = 4 * mss
    assert E.probe_rtt_episodes(t, cwnd, mss)[-1] == [pytest.approx(0.80), pytest.approx(0.99)]


def test_the_bins_an_episode_overlaps_are_masked():
    # Bins of 0.5 s from 1.0: [1, 1.5), [1.5, 2), [2, 2.5), [2.5, 3).
    m = E.bins_touching([[1.9, 2.1]], 1.0, 3.0, 0.5)
    assert m.tolist() == [False, True, True, False]
    assert not E.bins_touching([], 1.0, 3.0, 0.5).any()


def test_a_probe_rtt_on_one_side_only_is_left_out_of_bbrs_shapes():
    # Both sides move alike through two dips (the blockages); mmtsim alone probes at
    # 10 s. Left in, that one bin lowers every correlation (0.94 to 0.87 here).
    case = E.CASES["blockage"]
    mss, lo = 1000, 0.0
    t = np.arange(lo, lo + case.duration_s, 0.01)
    base = np.where(((t >= 5) & (t < 6)) | ((t >= 12) & (t < 13)), 2.5e6, 5e6)
    k_cwnd = base * (1 + 0.1 * np.sin(t))  # the kernel's wobble
    s_cwnd = base.copy()
    s_cwnd[(t >= 10.0) & (t < 10.25)] = 4 * mss
    side = lambda cw: {"goodput": (t, cw / 1e4), "rtt": (t, 20 + cw / 1e6), "cwnd": (t, cw)}  # noqa: E731
    k = {**side(k_cwnd), "start_s": lo, "mss": mss, "retransmits": 0, "rtos": 0,
         "emulation": {"lag": {"episodes": 0}}, "kernel": "test"}
    s = {**side(s_cwnd), "retransmits": 0, "rtos": 0}
    bbr = E.compare(case, "bbr", k, s)
    assert bbr["probe_rtt"]["kernel"] == [] and len(bbr["probe_rtt"]["mmtsim"]) == 1
    assert bbr["probe_rtt"]["bins_left_out"] == 1 and bbr["shape"]["cwnd"]["holds"]
    # Other congestion controls have no PROBE_RTT: the same dip counts against them.
    cubic = E.compare(case, "cubic", k, s)
    assert cubic["probe_rtt"]["bins_left_out"] == 0
    assert cubic["shape"]["cwnd"]["correlation"] < bbr["shape"]["cwnd"]["correlation"]


def test_bbrs_rtt_on_the_mmwave_case_is_shown_but_does_not_decide_the_row():
    # The kernel holds a standing queue in line of sight, its RTT swinging about 44 ms
    # throughout; mmtsim's is at the floor, then 48 in the shadow. Goodput and cwnd agree.
    case = E.CASES["mmwave"]
    t = np.arange(0.0, case.duration_s, 0.01)
    shadow = t >= 4.0
    gp = np.where(shadow, 2400.0, 2900.0) + 20 * np.sin(3 * t)
    cwnd = np.where(shadow, 15.5e6, 16.5e6) + 1e5 * np.sin(3 * t)
    k_rtt = 44.0 + 6 * np.sin(1.3 * t)
    s_rtt = np.where(shadow, 48.0, 23.6) + np.cos(5 * t)
    k = {"goodput": (t, gp), "rtt": (t, k_rtt), "cwnd": (t, cwnd), "start_s": 0.0, "mss": 1448,
         "retransmits": 0, "rtos": 0, "emulation": {"lag": {"episodes": 0}}, "kernel": "test"}
    s = {"goodput": (t, gp), "rtt": (t, s_rtt), "cwnd": (t, cwnd), "retransmits": 0, "rtos": 0}
    bbr = E.compare(case, "bbr", k, s)
    assert not bbr["shape"]["rtt"]["holds"] and not bbr["shape"]["rtt"]["judged"]
    assert bbr["same_shape"] and bbr["holds"]
    assert "(not judged)" in E._r_cell(bbr["shape"]["rtt"])
    # The same series fail any other congestion control, and BBR on the other case.
    assert not E.compare(case, "reno", k, s)["holds"]
    assert not E.compare(E.CASES["blockage"], "bbr", k, s)["holds"]


def test_a_kernel_run_that_fell_behind_is_run_again_and_a_disagreement_is_not(tmp_path, monkeypatch):
    t = np.arange(0.0, 15.0, 0.01)
    series = {"goodput": (t, 700 + 50 * np.sin(t)), "rtt": (t, 80 + 5 * np.sin(t)),
              "cwnd": (t, 2e6 + 1e5 * np.sin(t))}
    runs = []

    def kernel(episodes, goodput_scale):
        def run(case, cc, wd):
            e = episodes[min(len(runs), len(episodes) - 1)]
            runs.append(wd)
            gp = (t, series["goodput"][1] * goodput_scale)
            return {**series, "goodput": gp, "start_s": 0.0, "mss": 1448, "retransmits": 0,
                    "rtos": 0, "slow_start_exit": None, "kernel": "test",
                    "emulation": {"lag": {"episodes": e, "turns": {"p99_us": 10.0}}}}
        return run

    sim = {**series, "retransmits": 0, "rtos": 0, "slow_start_exit_segments": None}
    monkeypatch.setattr(E, "run_mmtsim", lambda *a, **k: sim)
    # Behind once, then on time: the second run is the one compared.
    monkeypatch.setattr(E, "run_kernel", kernel([1, 0], 1.0))
    [row] = E.check(["blockage"], ["reno"], tmp_path / "a")
    assert len(runs) == 2 and runs[1].name == "retry1" and runs[1].is_dir()
    assert row["holds"] and row["kernel_attempts"] == 2
    assert "(kernel run 2)" in E.markdown([row])
    # Always behind: 1 + LAG_RETRIES runs, then the row fails on it.
    runs.clear()
    monkeypatch.setattr(E, "run_kernel", kernel([1], 1.0))
    [row] = E.check(["blockage"], ["reno"], tmp_path / "b")
    assert len(runs) == 1 + E.LAG_RETRIES and not row["holds"] and not row["emulation_kept_time"]
    # On time but 30 % apart: measured once, and it fails.
    runs.clear()
    monkeypatch.setattr(E, "run_kernel", kernel([0], 0.7))
    [row] = E.check(["blockage"], ["reno"], tmp_path / "c")
    assert len(runs) == 1 and not row["holds"] and row["kernel_attempts"] == 1


def test_too_few_bins_say_nothing_and_fail():
    assert not E.same_shape(np.array([1.0, 2.0]), np.array([1.0, 2.0]))["holds"]


@needs_root
def test_kernel_tcp_through_the_emulation_matches_simulated_tcp(tmp_path):
    rows = E.check(["blockage", "mmwave"], ["cubic", "reno", "bbr"], tmp_path)
    print("\n" + E.markdown(rows))
    assert len(rows) == 6
    for r in rows:
        assert r["emulation_kept_time"], f"{r['case']}/{r['cc']}: the emulation fell behind: {r['emulation']['lag']}"
        assert r["goodput_within_tolerance"], (
            f"{r['case']}/{r['cc']}: kernel {r['kernel_goodput_mbps']:.1f} vs mmtsim "
            f"{r['mmtsim_goodput_mbps']:.1f} Mbit/s")
        assert r["same_shape"], f"{r['case']}/{r['cc']}: {r['shape']}"
