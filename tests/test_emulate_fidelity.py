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
