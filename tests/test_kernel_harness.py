"""The kernel reference harness end to end: the real Linux TCP stack through mmtsim-emu,
beside mmtsim on the same scenario (python/mmtsim/kernel, docs/kernel-harness.md).

Needs root, /dev/net/tun and iproute2's `ip netns` (CI runs as root); without them the
tests that need them are skipped with the reason. The forwarder binary is
target/release/mmtsim-emu (scripts/setup.sh builds it) or $MMTSIM_EMU.

Runtime: each kernel run takes its scenario's duration plus about half a second; the
whole file runs in about five minutes on two cores.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mmtsim.kernel import KernelUnavailable, check_prerequisites, emu_binary
from mmtsim.kernel.compare import compare, outage_decisions
from mmtsim.kernel.harness import Side, run_kernel, run_mmtsim, time_weighted_mean
from mmtsim.kernel.scenario import list_cases, load_case


def _why_unavailable() -> str | None:
    try:
        check_prerequisites()
    except KernelUnavailable as e:
        return str(e)
    return None


UNAVAILABLE = _why_unavailable()
needs_kernel = pytest.mark.skipif(UNAVAILABLE is not None, reason=f"kernel harness unavailable: {UNAVAILABLE}")

#: The constant-rate run's forwarder must keep its schedule to this p99 lateness, µs (the
#: single saturated flow is the forwarder's easiest case; it measures under 25 µs).
FORWARDER_P99_US = 500

#: Payload share of a full-sized packet: MSS 1448 B of a 1500 B IP packet (20 B IPv4,
#: 20 B TCP, 12 B timestamps option). Goodput at a saturated link = rate × this.
PAYLOAD_SHARE = 1448 / 1500
GOODPUT_TOLERANCE = 0.10

#: Pairs that disagreed on Linux 6.18 (HZ = 250) after the loss-recovery work, with the
#: mechanism measured (docs/kernel-harness.md, "Remaining differences").
_TIMER_WHEEL = ("Linux's RTO is a timer-wheel timer: at HZ = 250 a 404 ms timeout armed at "
                "the tail loss probe fires up to 32 ms (8 jiffies) late, so whether it fires "
                "before the ACKs resume at 3.72 s in the 2nd outage varies from run to run "
                "(kernel '-' or 'R'); mmtsim's exact timer fires at 3.675 s")
_UNDO_THEN_RECOVERY = ("both stacks undo the 3rd outage's RTO at 4.92 s and then enter a fast "
                       "recovery; the 10 ms cwnd sample at 4.96 s sees mmtsim after PRR's cut "
                       "(R) and the kernel before it (U)")
KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {
    ("back-to-back", "cubic"): _UNDO_THEN_RECOVERY + "; " + _TIMER_WHEEL,
    ("back-to-back", "bbr"): _TIMER_WHEEL,
    ("cellular", "cubic"): ("HyStart's delay test ties in mmtsim: the Mahimahi trace serves whole "
                            "milliseconds, so the round minimum is exactly delay_min + 4 ms "
                            "(25 000 us vs 21 000 us) and Linux's strict '>' does not fire; the "
                            "kernel's microsecond host jitter breaks the tie and exits at cwnd "
                            "151 (0.12 s). With a 1 us offset mmtsim gives 84.7 Mbit/s, 133 "
                            "retransmits, no RTO (kernel 84.4, 146-159)"),
    ("cellular", "reno"): ("not yet explained: kernel goodput 67.1 in one run and 79.4 in two, "
                           "mmtsim 67.6; the kernel's tail probe leaves at ~3.07 s and its RTO "
                           "fires at 3.30 s inside the fade, mmtsim's last pre-fade ACK is a "
                           "40 ms delayed ACK (61 ms RTT sample at 3.06 s), its probe leaves at "
                           "~3.11 s and the RTO would fire after the fade"),
    ("outage-1s-overflow", "reno"): ("kernel run-to-run variance: 75.5 Mbit/s in one run, 68.1 "
                                     "in another (forwarder p99 lateness 442 us), mmtsim 77.2"),
    ("outage-2s-overflow", "reno"): ("kernel run-to-run variance: 65.0-65.2 Mbit/s in three runs, "
                                     "54.8 in a fourth; mmtsim 66.4"),
    ("rtt-10ms", "cubic"): ("kernel run-to-run variance: undid both timeouts in most runs, "
                            "kept a reduction in two; mmtsim undoes"),
    ("outage-2s-deep", "reno"): ("kernel run-to-run variance: Reno's RTT in the 32 MB queue "
                                 "is about 2 s, so its RTO (SRTT + 200 ms) ends right at the "
                                 "outage; the kernel timed out (and undid it) in two of seven "
                                 "runs, mmtsim does not"),
    ("rtt-10ms", "reno"): ("kernel run-to-run variance: undid in most runs, kept the "
                           "reduction in one; mmtsim undoes"),
    ("rtt-10ms", "bbr"): ("kernel run-to-run variance: undid in two of four runs; mmtsim "
                          "undoes (the timer-wheel rounding of the 2nd outage's RTO)"),
}


def _cases() -> list[str]:
    return [c for c in list_cases() if c != "constant-100"]


# ---- without root: the pieces that need no namespaces ---------------------------------


def test_trace_set_is_complete_and_valid():
    names = set(list_cases())
    for required in ("blockage-50", "outage-250ms-overflow", "outage-1s-overflow", "outage-1s-deep",
                     "outage-2s-overflow", "outage-2s-deep", "back-to-back", "cellular",
                     "rtt-10ms", "rtt-80ms", "constant-100"):
        assert required in names
    c = load_case("outage-1s-deep")
    # Derived from the scenario file: 10 ms one-way, 32 MB queue, 1 Gbit/s reverse.
    assert (c.delay_ns, c.limit_bytes, c.rev_rate_bps, c.mss_bytes) == (10_000_000, 32_000_000, 10**9, 1448)
    assert c.outages() == [(2.5, 3.5)]
    args = c.emu_args()
    assert args[args.index("--delay-ns") + 1] == "10000000"
    assert args[args.index("--limit-bytes") + 1] == "32000000"
    assert args[args.index("--judge-until-ns") + 1] == "8000000000"  # duration = "8s"
    assert load_case("back-to-back").outages() == [(2.5, 3.0), (3.2, 3.7), (3.9, 4.9)]
    assert load_case("rtt-80ms").base_rtt_s == pytest.approx(0.08)


def test_time_weighted_mean_holds_each_sample_until_the_next():
    # 10 for 1 s, 40 for 3 s (until end = 4): (10 + 120) / 4.
    assert time_weighted_mean([0.0, 1.0], [10.0, 40.0], 4.0) == pytest.approx(32.5)
    assert time_weighted_mean([], [], 1.0) is None


def test_undo_decision_from_windows():
    case = load_case("outage-1s-deep")  # outage [2.5, 3.5), base RTT 20 ms
    w = [(t / 100, 1_000_000, None) for t in range(0, 300)]  # pre-RTO window 1 MB
    undone = Side(0, [], None, 0, 1, [2.9], w + [(t / 100, 1_000_000, None) for t in range(300, 800)])
    reduced = Side(0, [], None, 0, 1, [2.9], w + [(t / 100, 14_480, 700_000) for t in range(300, 800)])
    none = Side(0, [], None, 0, 0, [], w)
    assert outage_decisions(undone, case)[0]["decision"] == "undo"
    d = outage_decisions(reduced, case)[0]
    assert (d["decision"], d["pre_cwnd"], d["post_cwnd"]) == ("reduced", 1_000_000, 14_480)
    # Post sample: 3 base RTTs after the outage end (3.5 s + 60 ms).
    assert d["post_t_s"] == pytest.approx(3.56)
    assert outage_decisions(none, case)[0]["decision"] == "no-rto"


def test_forwarder_bad_arguments_exit_2():
    try:
        exe = str(emu_binary())
    except KernelUnavailable as e:
        pytest.fail(str(e))
    r = subprocess.run([exe, "--tun-snd", "a", "--tun-rcv", "b", "--rate-bps", "12Mbps"],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert "--rate-bps `12Mbps`" in r.stderr
    r = subprocess.run([exe, "--tun-snd", "a", "--tun-rcv", "b", "--delay-ns", "0", "--rev-rate-bps", "1",
                        "--trace", "/nonexistent.csv"], capture_output=True, text=True)
    assert r.returncode == 2 and "/nonexistent.csv" in r.stderr


def test_kernel_compare_cli_refuses_an_unknown_case(tmp_path):
    r = subprocess.run([sys.executable, "-m", "mmtsim", "kernel-compare", "--traces", "no-such-case",
                        "--out", str(tmp_path / "o")], capture_output=True, text=True)
    assert r.returncode == 2
    assert "mmtsim: kernel-compare:" in r.stderr


# ---- as root: the real stack ----------------------------------------------------------


@needs_kernel
def test_constant_rate_kernel_goodput_equals_the_link_rate(tmp_path_factory):
    case = load_case("constant-100")
    # Like every pair of the trace set, a run during which the host stalled the forwarder
    # is run again (CI of 2026-11-29: one run's p99 lateness was 3.7 ms, max 17.7 ms, while
    # its goodput was within 3 %); three late runs in a row still fail below.
    side, emu = _kernel_run(case, "cubic", tmp_path_factory, FORWARDER_P99_US)
    # Past slow start (from 1 s), a saturated link delivers rate × payload share.
    bins = side.goodput_bins_mbps[10:]
    steady = sum(bins) / len(bins)
    expected = case.rate_bps / 1e6 * PAYLOAD_SHARE
    assert steady == pytest.approx(expected, rel=0.03), (steady, expected)
    # The forwarder is not the bottleneck and keeps time.
    lat = emu["lateness"]
    assert lat["p99_us"] < FORWARDER_P99_US, lat
    assert emu["forward"]["max_packet_bytes"] <= 1500, "offload super-packets reached the forwarder"
    assert emu["forward"]["before_clock_packets"] == 0 and emu["reverse"]["before_clock_packets"] == 0
    assert emu["forward"]["write_errors"] == 0
    # Every departure (written, or refused by the kernel) is either judged (a lateness
    # sample) or after the run (unjudged).
    departures = sum(emu[d]["forwarded_packets"] + emu[d]["write_errors"] for d in ("forward", "reverse"))
    assert lat["samples"] + emu["unjudged_departures"] == departures
    # Clean-up: our namespaces are gone.
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert f"mmtsim-snd-{os.getpid()}" not in listed


#: The kernel varies from run to run on the harness (timer-wheel rounding at HZ = 250, host
#: jitter): over four full runs on a quiet machine, reno's goodput on the overflowing outages
#: moved by up to 20 %, and 1–3 pairs outside KNOWN_DIFFERENCES changed their undo
#: decision (rtt-10ms cubic and bbr, back-to-back bbr). So the test asks two things:
#: - the pairs whose outcome was the same in every run agree one by one: CUBIC and BBR
#:   in the deep-queue outages (every timeout spurious: both stacks undo), the
#:   quarter-second outage (the tail loss probe saves a timeout), the blockage and the 80 ms
#:   path. (Reno's 2 s RTT in the deep queue puts its RTO right at the outage's length: the
#:   kernel times out in some runs and not in others.)
#: - over the 30 pairs of the set (the constant-rate case is checked on its own) at least
#:   MIN_AGREEING agree — 25 in the best of seven runs, 23 in the worst, when the kernel
#:   kept the reduction on all three rtt-10ms pairs — and the median goodput difference
#:   stays within MEDIAN_BOUND.
#: Losing undo or RACK-TLP breaks the first at once and costs about eight pairs of the second.
#: A stable pair is still one sample of the kernel: blockage-50 with Reno gave 145.3 and
#: 146.1 Mbit/s in two full runs and 132.4 in a third (fresh-clone CI of 2026-11-28), and
#: 145.5-153.8 in six runs of its own, one more run that day disagreeing too; mmtsim 148.0
#: each time. So a stable pair that disagrees is measured again, up to STABLE_RETRIES
#: times. mmtsim's side is deterministic, so a real regression disagrees every time.
STABLE_PAIRS = {(case, cc) for case in ("outage-250ms-overflow", "blockage-50", "rtt-80ms")
                for cc in ("cubic", "reno", "bbr")} | {
    (case, cc) for case in ("outage-1s-deep", "outage-2s-deep") for cc in ("cubic", "bbr")}
MIN_AGREEING = 20
STABLE_RETRIES = 2
MEDIAN_BOUND = 0.03
#: The forwarder must keep its schedule to this p99 lateness for a run to count, µs.
LATENESS_P99_US = 1000
#: A pair whose forwarder is still late after three tries measured the machine, not TCP:
#: it is reported and left out of the judgement (and out of MIN_AGREEING's count). The
#: test judges only while at most this share of the set, and of the stable pairs, is left
#: out; beyond it, it fails as unable to judge. On a quiet machine no pair is late (each
#: stays under 25 us at p99); a fresh clone of 2026-11-29, on a host whose speed varied
#: twofold within minutes, had six pairs late three times in a row (p99 2.0-5.8 ms, two
#: of them in the cellular case, one stable pair), with every other pair agreeing as
#: before. Only departures within the run count (`--judge-until-ns`): after it, a deep
#: queue drains for seconds and the closed sender answers each ACK with a reset; those
#: bursts of 40-byte resets put the forwarder 5-50 ms behind (Reno and BBR in the 1 s
#: deep-queue outage, CI of 2026-11-25) and measure nothing the comparison uses.
MAX_LATE_SHARE = 1 / 3


def _kernel_run(case, cc, tmp_path_factory, p99_bound_us=LATENESS_P99_US):
    """One kernel run of the pair. A run during which the forwarder fell behind (p99
    lateness at or over `p99_bound_us`) measured the machine, not TCP: it is run again
    (twice at most) before being judged."""
    for _attempt in range(3):
        work = tmp_path_factory.mktemp(f"{case.name}-{cc}")
        kernel, emu = run_kernel(case, cc, work)
        if emu["lateness"]["p99_us"] < p99_bound_us:
            break
    return kernel, emu


@pytest.fixture(scope="module")
def comparison(tmp_path_factory):
    """Every (case, algorithm) pair of the trace set, kernel and mmtsim, compared. A stable
    pair that disagrees is measured again, up to STABLE_RETRIES times, and judged on the
    last run; the earlier ones are kept in the row as `first_try`."""
    rows = []
    for case_name in _cases():
        case = load_case(case_name)
        for cc in ("cubic", "reno", "bbr"):
            kernel, emu = _kernel_run(case, cc, tmp_path_factory)
            sim = run_mmtsim(case, cc)
            row = compare(case, cc, kernel, sim, emu)
            tries = []
            stable = (case_name, cc) in STABLE_PAIRS
            while stable and not _agrees(row) and len(tries) < STABLE_RETRIES:
                tries.append(_line(row).strip())
                kernel, emu = _kernel_run(case, cc, tmp_path_factory)
                row = compare(case, cc, kernel, sim, emu)
            if tries:
                row["first_try"] = " | ".join(tries)
            rows.append(row)
    return rows


def _line(row) -> str:
    k, m = row["kernel"], row["mmtsim"]
    dec = lambda side: " ".join(o["decision"] for o in side["outages"]) or "n/a"  # noqa: E731
    return (f"{row['case']:>22} {row['cc']:>5}: goodput {k['goodput_mbps']:.1f} / "
            f"{m['goodput_mbps']:.1f} Mbit/s ({100 * row['goodput_rel_diff']:+.1f} %), RTOs "
            f"{k['rtos']}/{m['rtos']}, undo {dec(k)} / {dec(m)}")


def _agrees(row) -> bool:
    return abs(row["goodput_rel_diff"]) <= GOODPUT_TOLERANCE and row["same_undo_decisions"]


@needs_kernel
def test_kernel_and_mmtsim_agree_on_the_trace_set(comparison):
    """Goodput within 10 % and the same per-outage undo decisions: pair by pair where the
    kernel is steady, over the whole set where it varies (see STABLE_PAIRS)."""
    print("\n" + "\n".join(_line(r) for r in comparison))
    assert len(comparison) == 3 * len(_cases())
    late = [(r["case"], r["cc"], r["forwarder"]["lateness"]) for r in comparison
            if r["forwarder"]["lateness"]["p99_us"] >= LATENESS_P99_US]
    late_stable = [(c, cc) for c, cc, _ in late if (c, cc) in STABLE_PAIRS]
    assert (len(late) <= MAX_LATE_SHARE * len(comparison)
            and len(late_stable) <= MAX_LATE_SHARE * len(STABLE_PAIRS)), \
        f"the forwarder fell behind in too many pairs to judge (the machine was busy): {late}"
    print(f"left out, the forwarder late: {late}")
    left_out = {(c, cc) for c, cc, _ in late}
    comparison = [r for r in comparison if (r["case"], r["cc"]) not in left_out]
    retried = [f"{r['first_try']}  ->  {_line(r).strip()}" for r in comparison if "first_try" in r]
    print("stable pairs measured again: " + ("\n".join(retried) or "none"))
    unsteady = [_line(r) for r in comparison
                if (r["case"], r["cc"]) in STABLE_PAIRS and not _agrees(r)]
    assert not unsteady, "pairs that always agreed disagree:\n" + "\n".join(unsteady)
    agreeing = sum(_agrees(r) for r in comparison)
    others = [_line(r) for r in comparison
              if not _agrees(r) and (r["case"], r["cc"]) not in KNOWN_DIFFERENCES]
    print(f"{agreeing} of {len(comparison)} pairs agree; beyond the known differences:\n"
          + "\n".join(others))
    assert agreeing >= MIN_AGREEING - len(late), "\n".join(others)
    diffs = sorted(abs(r["goodput_rel_diff"]) for r in comparison)
    assert diffs[len(diffs) // 2] <= MEDIAN_BOUND, diffs
