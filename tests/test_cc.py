"""Standalone congestion control from Python: expected values from the algorithms'
definitions (Linux reno and cubic, RFC 5681 / RFC 9438)."""

from __future__ import annotations

import pytest

from mmtsim.cc import CongestionControl, algorithms


def test_algorithms_listed():
    assert set(algorithms()) >= {"newreno", "cubic"}


def test_newreno_slow_start_and_avoidance():
    cc = CongestionControl("newreno", mss=1000, initial_cwnd=10)
    for _ in range(10):
        cc.on_ack(now=0.1, acked=1, rtt=0.02)
    assert cc.cwnd == 20 and cc.cwnd_bytes == 20_000  # +1 per segment in slow start
    cc.on_loss(now=0.2)
    assert cc.ssthresh == 10 and cc.state == "recovery"  # max(cwnd/2, 2)
    cc.exit_recovery(now=0.3)
    assert cc.cwnd == 10 and cc.state == "open"
    for _ in range(10):  # congestion avoidance: +1 per cwnd ACKs
        cc.on_ack(now=0.4, acked=1, rtt=0.02)
    assert cc.cwnd == 11
    cc.on_rto(now=1.0)
    assert (cc.cwnd, cc.ssthresh) == (1, 5)  # 11 >> 1 = 5


def test_cubic_reduction_uses_linux_beta():
    cc = CongestionControl("cubic", initial_cwnd=90, hystart=False)
    cc.on_loss(now=1.0)
    assert cc.ssthresh == 90 * 717 // 1024 == 63
    m = dict(cc.metrics())
    assert m["w_max"] == 90


def test_cubic_window_follows_the_cubic_function():
    # W_max = 500, β·W_max = 350; ACKs of one window spread over each 50 ms RTT.
    c = 410 / 1024
    cc = CongestionControl("cubic", initial_cwnd=500, hystart=False)
    cc.on_ack(now=0.5, acked=1, rtt=0.05)  # sets the minimum delay (50 ms)
    cc.on_loss(now=1.0)
    cc.exit_recovery(now=1.0)
    w_max = 500
    k = ((w_max - cc.cwnd) / c) ** (1 / 3)
    t = 1.0
    checked = 0
    while t < 1.0 + 12.0:
        n = cc.cwnd
        for _ in range(n):
            t += 0.05 / n
            cc.on_ack(now=t, acked=1, rtt=0.05)
        elapsed = t - 1.0
        if elapsed > 0.5:
            # Linux aims at W(t + min_rtt); TCP-friendly region is on but below W_cubic here
            # once t > ~1 s at this W_max; tolerate 2 % of W_max for discretisation.
            w = c * (elapsed + 0.05 - k) ** 3 + w_max
            assert cc.cwnd == pytest.approx(w, abs=0.02 * w_max + 2), f"t={elapsed:.2f}"
            checked += 1
    assert checked > 100


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown congestion control"):
        CongestionControl("vegass")
    with pytest.raises(ValueError, match="hystart is a CUBIC option"):
        CongestionControl("newreno", hystart=True)
    cc = CongestionControl("newreno")
    with pytest.raises(ValueError, match="now = -1"):
        cc.on_ack(now=-1.0)
    with pytest.raises(ValueError, match="rtt = NaN"):
        cc.on_ack(now=1.0, rtt=float("nan"))


# --------------------------------------------------------------------------------------
# BBR (Linux tcp_bbr.c) driven with delivery-rate samples.
#
# The synthetic path: RTprop = 2^14 µs = 16.384 ms, MSS = 1000 B. Round r is one ACK at
# r·RTprop that acknowledges the d segments the path delivered in that round trip and
# carries the sample "d segments over 16.384 ms"; prior_delivered is then the total before
# the ACK, as Linux's sampler computes it for a flight sent after the previous ACK. In
# Linux units (packets/µs << 24) the bandwidth is d·2^24/2^14 = 1024·d exactly and
# bw·RTprop = d segments, so:
#   bdp(bw, gain)   = ceil(d·gain/256)
#   target cwnd     = bdp + 3 (quantisation, no TSO), rounded up to even
#   pacing (B/s)    = ((bw·mss·gain) >> 8)·990 000 >> 24   (1 % below bw·gain)
# STARTUP gains are 739/256 = 2.887 (2/ln 2), DRAIN's pacing gain is 88/256.
# --------------------------------------------------------------------------------------

RTPROP = 0.016384


def bbr_mode(cc):
    return {0.0: "startup", 1.0: "drain", 2.0: "probe_bw", 3.0: "probe_rtt"}[
        dict(cc.metrics())["mode"]
    ]


def bbr_pacing_bps(bw, gain, mss=1000):
    """Linux bbr_rate_bytes_per_sec, in bit/s (the definition, not the code under test)."""
    return ((((bw * mss * gain) >> 8) * 990_000) >> 24) * 8


def test_bbr_startup_drain_probe_bw_from_rate_samples():
    cc = CongestionControl("bbr", mss=1000, initial_cwnd=10)
    assert cc.pacing_rate_bps is None  # no rate before the first ACK (MSS unknown)

    def round_ack(r, d, in_flight, t=None, rtt=RTPROP):
        cc.on_ack(now=t if t is not None else r * RTPROP, acked=d, rtt=rtt, srtt=RTPROP,
                  in_flight=in_flight, rate_delivered=d, rate_interval=RTPROP)

    # The quantisation budget adds three send bursts of bbr_tso_segs_goal segments: the
    # pacing rate >> 10 (about 1 ms of it) in segments, at least 2 above 1.2 Mbit/s.
    #
    # Round 1: the initial window, d = 10 → bw 10240. The first ACK starts the rate from
    # high_gain·cwnd/SRTT = 10·2^24/16384 = 10240 too: 10240·1000·739 >> 8 = 29 560 000;
    # ·990 000 >> 24 = 1 744 294 B/s (burst: 1703 B → 1 segment, floor 2). cwnd < target
    # ceil(10·739/256) = 29 + 3·2 = 35 → 36: 10 + 10 = 20.
    round_ack(1, 10, in_flight=0)
    assert bbr_mode(cc) == "startup" and cc.owns_window
    assert cc.pacing_rate_bps == 1_744_294 * 8 == bbr_pacing_bps(10240, 739)
    assert cc.cwnd == 20

    # Round 2: d = 20 → max bw 20480; pacing = 2.887 · max bw · 0.99:
    # 20480·1000·739 >> 8 = 59 120 000; ·990 000 >> 24 = 3 488 588 B/s
    # (≈ 2.885 · 20 000 B / 16.384 ms · 0.99 = 3.4865 MB/s; burst 3406 B → 3 segments).
    # cwnd 20 < ceil(20·739/256) = 58 + 9 = 67 → 68: 20 + 20 = 40. bw grew ≥ 25 % over
    # round 1 (20480 ≥ 10240·320/256 = 12800).
    round_ack(2, 20, in_flight=0)
    assert cc.pacing_rate_bps == 3_488_588 * 8 == bbr_pacing_bps(20480, 739)
    assert cc.pacing_rate_bps == pytest.approx(2.885 * 20 * 1000 / RTPROP * 0.99 * 8, rel=1e-3)
    assert cc.cwnd == 40

    # Round 3: d = 40 → bw 40960 ≥ 20480·1.25 = 25600: growth, full_bw = 40960.
    # pacing 40960·1000·739 >> 8 = 118 240 000; ·990 000 >> 24 = 6 977 176 B/s.
    # Burst 6 977 176 >> 10 = 6813 B → 6 segments: target = ceil(40·739/256) = 116, + 3·6 =
    # 134; cwnd 40 + 40 = 80.
    round_ack(3, 40, in_flight=0)
    assert cc.pacing_rate_bps == 6_977_176 * 8 == bbr_pacing_bps(40960, 739)
    assert cc.cwnd == 80
    assert dict(cc.metrics())["round_count"] == 3  # every ACK so far started a round

    # Round 4 in two ACKs of 20. The first, half an RTT after round 3, carries no sample
    # (Linux's sampler drops intervals shorter than the min RTT): BBR counts rounds only on
    # ACKs with a sample, so no round starts; cwnd 80 < 134 → 100. The second carries
    # "40 over RTprop" with prior_delivered = 70 (delivered after round 3) ≥ next round's
    # start (70): a round start without 25 % growth (40960 < 51200) → full_bw_cnt 1.
    # cwnd 100 < 134 → 120.
    cc.on_ack(now=3.5 * RTPROP, acked=20, rtt=RTPROP, srtt=RTPROP, in_flight=60)
    assert dict(cc.metrics())["round_count"] == 3
    assert cc.cwnd == 100
    cc.on_ack(now=4 * RTPROP, acked=20, rtt=RTPROP, srtt=RTPROP, in_flight=80,
              prior_delivered=70, rate_interval=RTPROP)
    assert cc.delivered == 110 and dict(cc.metrics())["round_count"] == 4
    assert cc.cwnd == 120

    # Round 5: second round without growth (full_bw_cnt 2). The pipe is not yet full, so
    # below the target (120 < 134) STARTUP adds the whole ACK: 120 + 40 = 160 (Linux
    # bbr_set_cwnd only caps at the target once the pipe is full).
    round_ack(5, 40, in_flight=80)
    assert bbr_mode(cc) == "startup" and cc.cwnd == 160
    assert cc.ssthresh == 2**31 - 1

    # Round 6: third round start without 25 % growth → full pipe → DRAIN; ssthresh =
    # inflight(bw, 1) = 40 + 3·6 = 58 (Linux sets it in bbr_check_drain, before this ACK
    # lowers the pacing rate, so the burst is still STARTUP's 6). The rate may now fall:
    # 40960·1000·88 >> 8 = 14 080 000; ·990 000 >> 24 = 830 841 B/s.
    round_ack(6, 40, in_flight=80)
    assert bbr_mode(cc) == "drain"
    assert dict(cc.metrics())["full_bw_reached"] == 1.0
    assert cc.ssthresh == 58
    assert cc.pacing_rate_bps == 830_841 * 8 == bbr_pacing_bps(40960, 88)
    # DRAIN ends once in flight ≤ inflight(bw, 1) at DRAIN's rate: 830 841 >> 10 = 811 B,
    # under a segment, so the floor of 2: 40 + 6 = 46 (pacing holds nothing back:
    # next_departure = now). 54 > 46 drains on; 44 ≤ 46 ends it.
    round_ack(7, 40, in_flight=54)
    assert bbr_mode(cc) == "drain"
    round_ack(8, 40, in_flight=44)
    assert bbr_mode(cc) == "probe_bw"
    assert dict(cc.metrics())["cwnd_gain"] == 2.0


def test_bbr_probe_rtt_after_ten_seconds_without_a_new_min_rtt():
    cc = CongestionControl("bbr", mss=1000, initial_cwnd=10, seed=7)
    total = 0

    def ack(t, d, in_flight, rtt, app_limited=False):
        nonlocal total
        total += d
        cc.on_ack(now=t, acked=d, rtt=rtt, srtt=rtt, in_flight=in_flight, rate_delivered=d,
                  rate_interval=RTPROP, rate_app_limited=app_limited)

    # STARTUP as above with d = 10, 20, 40, 40, 40, 40; the sixth ACK fills the pipe and,
    # with 40 in flight ≤ inflight(bw, 1) = 44, ends DRAIN at once. The min RTT, 16.384 ms,
    # is taken at t = 16.384 ms; later samples are 20 ms (queueing) and never refresh it.
    for r, d in enumerate([10, 20, 40, 40, 40, 40], start=1):
        ack(r * RTPROP, d, in_flight=40, rtt=RTPROP if r == 1 else 0.020)
    assert bbr_mode(cc) == "probe_bw"
    assert dict(cc.metrics())["min_rtt_ms"] == pytest.approx(16.384)
    # 10 s after the min RTT was taken (16.384 ms + 10 s) the filter has not expired yet...
    ack(10.016, 40, in_flight=40, rtt=0.020)
    assert bbr_mode(cc) == "probe_bw" and cc.cwnd > 4
    cwnd_before = cc.cwnd
    # ...one ms later it has: PROBE_RTT, cwnd = 4 (bbr_cwnd_min_target), the expired min
    # RTT is replaced by this ACK's 20 ms, and BBR asks for its flight to be marked
    # application-limited. Pacing gain 1: 40960·1000·256 >> 8 = 40 960 000; ·990 000 >> 24
    # = 2 416 992 B/s.
    ack(10.017, 40, in_flight=40, rtt=0.020)
    assert bbr_mode(cc) == "probe_rtt"
    assert cc.cwnd == 4
    assert cc.app_limited_requested
    assert dict(cc.metrics())["min_rtt_ms"] == pytest.approx(20.0)
    assert cc.pacing_rate_bps == 2_416_992 * 8 == bbr_pacing_bps(40960, 256)
    assert dict(cc.metrics())["prior_cwnd"] == cwnd_before  # bbr_save_cwnd, for the exit
    # In flight down to 4: PROBE_RTT holds 200 ms (until 10.25 s) and one round.
    ack(10.05, 36, in_flight=4, rtt=0.020, app_limited=True)
    assert bbr_mode(cc) == "probe_rtt" and cc.cwnd == 4
    ack(10.2, 4, in_flight=4, rtt=0.020, app_limited=True)
    assert bbr_mode(cc) == "probe_rtt" and cc.cwnd == 4  # a round, but < 200 ms
    ack(10.3, 4, in_flight=4, rtt=0.020, app_limited=True)
    # A round start after 10.25 s: back to PROBE_BW (the pipe was full), cwnd restored from
    # the saved value. Linux marks the flight app-limited before it checks for the exit, so
    # the request still stands on this ACK; it is gone on the next.
    assert bbr_mode(cc) == "probe_bw"
    assert cc.cwnd > 4 and cc.app_limited_requested
    ack(10.32, 4, in_flight=4, rtt=0.020)
    assert bbr_mode(cc) == "probe_bw" and not cc.app_limited_requested


# --------------------------------------------------------------------------------------
# X-TCP (seed 000, Algorithm 1): cwnd = ê_datarate·rtt_min, or λ·ê_datarate·rtt_min when
# the SINR is below 0 dB. Defaults: header_bytes = 60 (payload share 1400/1460 at MSS
# 1400), λ = 0.85. Grants are constant, so any averaging of them gives the same rate.
# --------------------------------------------------------------------------------------

# 12 500 B in every 100 µs slot from 0.1 ms to 100 ms: 12 500·8/100 µs = 1 Gbit/s.
GRANTS_1G = [(k * 1e-4, 12_500, 28, 14, 1e-4) for k in range(1, 1001)]


def test_xtcp_window_is_the_grant_rate_times_rtt_min():
    cc = CongestionControl("xtcp", mss=1400, initial_cwnd=10)
    cc.set_link_view(GRANTS_1G, sinr_db=10.0)
    cc.on_ack(now=0.1, acked=1, rtt=0.020)
    # 1e9 · 1400/1460 · 0.020 / 8 = 2 397 260.3 B → floor(/1400) = floor(1712.33) = 1712.
    assert cc.cwnd == 1712
    assert cc.pacing_rate_bps is None and not cc.owns_window


def test_xtcp_low_sinr_takes_the_lambda_branch():
    cc = CongestionControl("xtcp", mss=1400, initial_cwnd=10)
    cc.set_link_view(GRANTS_1G, sinr_db=-3.0)
    cc.on_ack(now=0.1, acked=1, rtt=0.020)
    # 0.85 · 2 397 260.3 B = 2 037 671.2 B → floor(/1400) = floor(1455.48) = 1455.
    assert cc.cwnd == 1455


def test_xtcp_rates_a_partial_grant_over_the_whole_data_region():
    # 2 of 22 data symbols carrying 1136 B every 100 µs: 1136·8 / (100 µs · 2/22)
    # = 999.68 Mbit/s; 999.68e6 · 1400/1460 · 0.020 / 8 = 2 396 493 B → floor(/1400) = 1711.
    grants = [(k * 1e-4, 1136, 28, 2, 1e-4, 2 / 22) for k in range(1, 1001)]
    cc = CongestionControl("xtcp", mss=1400, initial_cwnd=10)
    cc.set_link_view(grants, sinr_db=10.0)
    cc.on_ack(now=0.1, acked=1, rtt=0.020)
    assert cc.cwnd == 1711
    for bad in (0.0, 1.5, float("nan")):
        with pytest.raises(ValueError, match=r"grants\[0\]\.share"):
            cc.set_link_view([(0.0, 100, 1, 1, 1e-4, bad)], sinr_db=1.0)
    with pytest.raises(ValueError, match=r"grants\[0\]: expected a tuple"):
        cc.set_link_view([(0.0, 100)], sinr_db=1.0)


def test_xtcp_without_an_uplink_view_keeps_its_initial_window():
    cc = CongestionControl("xtcp", mss=1400, initial_cwnd=10)
    for k in range(20):
        cc.on_ack(now=0.1 + k * 1e-3, acked=1, rtt=0.020)
    assert cc.cwnd == 10
    # Grants of the other direction are no uplink estimate either.
    cc.set_link_view(GRANTS_1G, sinr_db=10.0, direction="downlink")
    cc.on_ack(now=0.2, acked=1, rtt=0.020)
    assert cc.cwnd == 10


# --------------------------------------------------------------------------------------
# Every algorithm through a scripted life, and the restart after idle.
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", algorithms())
def test_every_algorithm_survives_a_scripted_connection(name):
    mss = 1400
    cc = CongestionControl(name, mss=mss, initial_cwnd=10)
    cc.set_link_view(GRANTS_1G, sinr_db=5.0, rlc_buffer_bytes=20_000)
    t, una, nxt = 0.0, 0, 10 * mss
    windows = []

    def acks(n, losses_first=0, rtt=0.020):
        nonlocal t, una, nxt
        for k in range(n):
            t += 0.001
            una = min(una + mss, nxt)
            nxt = max(nxt, una + cc.cwnd * mss)
            in_flight = (nxt - una) // mss
            sample = min(cc.delivered + 1, 10)
            cc.on_ack(now=t, acked=1, rtt=rtt + 0.0001 * (k % 7), in_flight=in_flight,
                      losses=losses_first if k == 0 else 0, rate_delivered=sample,
                      rate_interval=0.020, snd_una=una, snd_nxt=nxt,
                      next_departure=t + 0.0005)
            windows.append(cc.cwnd)

    acks(60)
    cc.on_loss(now=t, snd_nxt=nxt)
    assert cc.state == "recovery"
    acks(5, losses_first=1)
    cc.exit_recovery(now=t)
    assert cc.state == "open"
    acks(30)
    cc.on_rto(now=t + 0.3, in_flight=0, snd_una=una, snd_nxt=nxt)
    t += 0.3
    assert cc.state == "loss" and cc.cwnd >= 1
    windows.append(cc.cwnd)
    acks(10)
    cc.exit_recovery(now=t)
    cc.on_tx_start(now=t + 1.0, idle=1.0, rto=0.2)
    t += 1.0
    windows.append(cc.cwnd)
    acks(10)
    assert min(windows) >= 1
    assert cc.ssthresh >= 1
    assert cc.delivered == 115 and cc.lost == 1
    # Only BBR sets its own pacing rate and owns the window (Linux cong_control).
    assert (cc.pacing_rate_bps is not None) == (name == "bbr")
    assert cc.owns_window == (name == "bbr")


def test_restart_after_idle_halves_per_idle_rto():
    # Linux tcp_cwnd_restart: restart = min(initial_cwnd, cwnd) = 10; cwnd 40 is halved
    # once per RTO of idle beyond the first: idle 0.35 s, RTO 0.2 s → 0.15 s > 0 → 20,
    # then −0.05 s: stop. ssthresh = max(ssthresh, ¾·cwnd) stays infinite.
    cc = CongestionControl("newreno", initial_cwnd=10)
    for _ in range(30):
        cc.on_ack(now=0.1, acked=1, rtt=0.02)
    assert cc.cwnd == 40
    cc.on_tx_start(now=0.5, idle=0.35, rto=0.2)
    assert cc.cwnd == 20
    # Idle 1 s: 20 → 10 (restart reached, never below it).
    cc.on_tx_start(now=2.0, idle=1.0, rto=0.2)
    assert cc.cwnd == 10
    # Idle shorter than the RTO: nothing happens.
    cc.on_tx_start(now=2.1, idle=0.1, rto=0.2)
    assert cc.cwnd == 10


def test_bbr_is_exempt_from_the_restart_after_idle():
    cc = CongestionControl("bbr", mss=1000, initial_cwnd=10)
    for r, d in enumerate([10, 20, 40], start=1):
        cc.on_ack(now=r * RTPROP, acked=d, rtt=RTPROP, rate_delivered=d,
                  rate_interval=RTPROP)
    assert cc.cwnd == 80
    cc.on_tx_start(now=2.0, idle=1.0, rto=0.2)  # Linux skips tcp_cwnd_restart for BBR
    assert cc.cwnd == 80


# --------------------------------------------------------------------------------------
# Bad input.
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda cc: cc.on_ack(now=1.0, rate_delivered=1, rate_interval=-0.01),
         "rate_interval = -0.01: expected a positive"),
        (lambda cc: cc.on_ack(now=1.0, rate_delivered=1, rate_interval=0.0),
         "rate_interval = 0: expected a positive"),
        (lambda cc: cc.on_ack(now=1.0, rate_delivered=1, rate_interval=float("nan")),
         "rate_interval = NaN"),
        (lambda cc: cc.on_ack(now=1.0, rate_delivered=1), "rate_delivered .* rate_interval"),
        (lambda cc: cc.on_ack(now=1.0, rate_interval=0.01), "rate_interval needs"),
        (lambda cc: cc.on_ack(now=1.0, rate_app_limited=True), "rate_app_limited"),
        (lambda cc: cc.on_ack(now=1.0, acked=1, rate_delivered=5, rate_interval=0.01),
         "rate_delivered = 5: more than the 1 segments"),
        (lambda cc: cc.on_ack(now=1.0, acked=4, rate_delivered=3, prior_delivered=2,
                              rate_interval=0.01), "disagree"),
        (lambda cc: cc.on_ack(now=1.0, acked=-1), "acked = -1"),
        (lambda cc: cc.on_ack(now=1.0, in_flight=-2), "in_flight = -2"),
        (lambda cc: cc.on_ack(now=1.0, losses=-1), "losses = -1"),
        (lambda cc: cc.on_ack(now=1.0, srtt=float("inf")), "srtt = inf"),
        (lambda cc: cc.on_ack(now=1.0, snd_una=10, snd_nxt=5), "snd_una = 10 is beyond"),
        (lambda cc: cc.on_ack(now=float("nan")), "now = NaN"),
        (lambda cc: cc.on_rto(now=1.0, in_flight=-1), "in_flight = -1"),
        (lambda cc: cc.on_tx_start(now=1.0, idle=-1.0), "idle = -1"),
        (lambda cc: cc.set_link_view(GRANTS_1G, sinr_db=10.0, direction="sideways"),
         'direction = "sideways"'),
        (lambda cc: cc.set_link_view(GRANTS_1G, sinr_db=float("nan")), "sinr_db = NaN"),
        (lambda cc: cc.set_link_view([(0.0, 100, 10, 14, 0.0)], sinr_db=1.0),
         r"grants\[0\].slot_s = 0"),
        (lambda cc: cc.set_link_view([(0.1, 100, 10, 14, 1e-4), (0.05, 100, 10, 14, 1e-4)],
                                     sinr_db=1.0), r"grants\[1\].time_s = 0.05: earlier"),
        (lambda cc: cc.set_link_view([(0.1, 100, 300, 14, 1e-4)], sinr_db=1.0),
         r"grants\[0\].mcs = 300"),
        (lambda cc: cc.set_link_view([(0.1, -5, 10, 14, 1e-4)], sinr_db=1.0),
         r"grants\[0\].tbs_bytes = -5"),
        (lambda cc: cc.set_link_view(GRANTS_1G, sinr_db=1.0, rlc_buffer_bytes=-1),
         "rlc_buffer_bytes = -1"),
    ],
)
def test_bad_event_arguments_name_the_argument(call, message):
    for name in ("bbr", "xtcp", "cubic"):
        cc = CongestionControl(name)
        before = (cc.cwnd, cc.ssthresh, cc.delivered)
        with pytest.raises(ValueError, match=message):
            call(cc)
        assert (cc.cwnd, cc.ssthresh, cc.delivered) == before  # nothing half-applied


def test_time_and_totals_must_not_go_backwards():
    cc = CongestionControl("bbr")
    cc.on_ack(now=1.0, acked=5)
    with pytest.raises(ValueError, match="now = 0.5: earlier than the previous event at 1"):
        cc.on_ack(now=0.5)
    with pytest.raises(ValueError, match="now = 0.5"):
        cc.on_loss(now=0.5)
    with pytest.raises(ValueError, match="delivered = 3: below the 5 segments"):
        cc.on_ack(now=1.1, acked=1, delivered=3)
    cc.on_ack(now=1.2, acked=1, losses=2)
    assert (cc.delivered, cc.lost) == (6, 2)
    with pytest.raises(ValueError, match="lost = 1: below the 2"):
        cc.on_ack(now=1.3, lost=1)
    # seed is BBR's option only; a view for an algorithm that ignores it is fine.
    with pytest.raises(ValueError, match="seed is a BBR option"):
        CongestionControl("cubic", seed=1)
    nr = CongestionControl("newreno")
    nr.set_link_view(GRANTS_1G, sinr_db=10.0)
    nr.on_ack(now=0.1, acked=1, rtt=0.02)
    assert nr.cwnd == 11


def test_undo_restores_the_window_and_ssthresh_in_linux_order():
    # NewReno from cwnd 100: a fast recovery leaves cwnd = ssthresh = 50; 100 ACKs of
    # congestion avoidance add one segment (after 50 of them) -> 51. An RTO then saves
    # prior_cwnd 51 and prior_ssthresh = tcp_current_ssthresh = max(50, 51/2 + 51/4 =
    # 25 + 12) = 50, cuts ssthresh to 51 >> 1 = 25 and cwnd to in_flight + 1 = 1. Undo:
    # cwnd = max(1, 51) = 51 (tcp_reno_undo_cwnd), ssthresh = max(25, 50) = 50, Open.
    cc = CongestionControl("newreno", mss=1000, initial_cwnd=100)
    cc.on_loss(now=0.0)
    cc.exit_recovery(now=0.01)  # ssthresh 50, cwnd 50
    for k in range(100):
        cc.on_ack(now=0.02 + k * 1e-4, acked=1, rtt=0.02)
    assert (cc.cwnd, cc.ssthresh) == (51, 50)
    cc.on_rto(now=1.0)
    assert (cc.cwnd, cc.ssthresh, cc.state) == (1, 25, "loss")
    assert cc.prior_ssthresh == 50
    cc.undo(now=1.5)
    assert (cc.cwnd, cc.ssthresh, cc.state) == (51, 50, "open")


def test_undo_of_a_fast_recovery_and_algorithms_that_keep_their_window():
    # CUBIC: loss at cwnd 100 -> ssthresh 70 (beta 717/1024); undo -> cwnd 100, ssthresh
    # back to prior_ssthresh = max(inf, 75): the infinite initial ssthresh.
    cc = CongestionControl("cubic", mss=1000, initial_cwnd=100, hystart=False)
    cc.on_loss(now=0.0)
    assert cc.ssthresh == 70
    cc.undo(now=0.05)
    assert cc.cwnd == 100 and cc.state == "open"
    assert cc.ssthresh == cc.prior_ssthresh and cc.ssthresh > 10**9
    # BBR keeps whatever cwnd it has (bbr_undo_cwnd returns snd_cwnd).
    b = CongestionControl("bbr", mss=1000, initial_cwnd=10)
    b.on_rto(now=0.0)
    before = b.cwnd
    b.undo(now=0.1)
    assert b.cwnd == before and b.state == "open"
