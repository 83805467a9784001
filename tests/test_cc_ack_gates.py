"""Standalone congestion control: the two per-ACK conditions the TCP sender applies, which
``on_ack`` now takes as ``una_advanced`` and ``data_outstanding`` (Linux
``tcp_may_raise_cwnd`` and ``tcp_ack``'s skip of ``tcp_cong_control`` with nothing
outstanding). Expected values from the definitions."""

from __future__ import annotations

from mmtsim.cc import CongestionControl


def test_only_acks_of_new_data_grow_the_window():
    cc = CongestionControl("newreno", mss=1000, initial_cwnd=10)
    # A SACK-only ACK delivering 2 segments: RFC 5681 §3.1 / Linux FLAG_DATA_ACKED, no growth.
    cc.on_ack(now=0.1, acked=2, rtt=0.02, una_advanced=False)
    assert cc.cwnd == 10
    # The same ACK advancing SND.UNA: slow start, +1 per segment delivered.
    cc.on_ack(now=0.1, acked=2, rtt=0.02)
    assert cc.cwnd == 12


def test_nothing_outstanding_skips_cong_control():
    rtprop = 0.016384
    cc = CongestionControl("bbr", mss=1000, initial_cwnd=10)
    cc.on_ack(now=rtprop, acked=10, rtt=rtprop, rate_delivered=10, rate_interval=rtprop,
              data_outstanding=False)
    # BBR's hook did not run: it has not taken the window, set no rate, left cwnd alone.
    assert (cc.cwnd, cc.owns_window, cc.pacing_rate_bps) == (10, False, None)
    # With data outstanding it runs: STARTUP grows cwnd by the 10 delivered, being below
    # its target (ceil(10·739/256) + 3·2 = 35, rounded up to even: 36), as in test_cc's
    # first round.
    cc.on_ack(now=rtprop, acked=10, rtt=rtprop, rate_delivered=10, rate_interval=rtprop)
    assert (cc.cwnd, cc.owns_window) == (20, True)
