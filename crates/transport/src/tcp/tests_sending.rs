//! How much the sender sends, and when, while nothing is lost: the initial window, slow
//! start (and no growth when application-limited), the peer's receive window (no runt
//! segment to fill it), pacing (by the pacing option and by an algorithm's own rate),
//! the window's restart after idle, and sending only what the application wrote.
//!
//! Fixtures and conventions are those of [`super::tests`] (MSS 1000 B, SYN-ACK at
//! 100 ms: SRTT 100 ms, RTO 300 ms; NewReno arithmetic). Every expected value is worked
//! out in the comment beside it.

use super::sender::TcpSender;
use super::tests::*;
use super::TcpConfig;
use crate::cc::bbr::BbrParams;
use crate::cc::{CaState, CcParams};
use mmtsim_engine::{Rate, SimTime};
use mmtsim_net::packet::TcpHeader;

// =====================================================================================
// Initial window
// =====================================================================================

#[test]
fn test_established_sends_initial_window_of_ten_segments() {
    let (mut s, out) = established_sender(cfg());
    // First the ACK that completes the handshake: seq 1, no payload.
    assert!(out[0].flags.ack && !out[0].flags.syn);
    assert_eq!((out[0].seq, out[0].payload_bytes), (1, 0));
    // Then RFC 6928's IW = 10 full segments at once: seq 1, 1001, …, 9001.
    assert_eq!(sent(&out), news(0..10));
    assert_eq!(out.len(), 11);
    assert_eq!(s.bytes_in_flight(), 10_000);
    assert_eq!(s.snd_nxt(), 10_001);
    // The RTO timer starts with the first transmission: 100 ms + 300 ms.
    assert_eq!(s.next_deadline(), ms(400));
    // Nothing more before an ACK: no timer action before the RTO, and more application
    // data waits for the window.
    assert!(timer(&mut s, ms(399)).is_empty());
    let mut o = vec![];
    s.set_app_end(ms(399), 2 * BIG, &mut o);
    assert!(o.is_empty());
}

#[test]
fn test_established_initial_window_limited_by_application_data() {
    // 3500 B written: two full segments and one of 500 B (no Nagle, TCP_NODELAY).
    let (s, out) = connect_with(cfg(), 3500, &default_syn_ack(&cfg()));
    let d: Vec<(u64, u32)> = out
        .iter()
        .filter(|h| h.payload_bytes > 0)
        .map(|h| (h.seq, h.payload_bytes))
        .collect();
    assert_eq!(d, [(1, 1000), (1001, 1000), (2001, 1000), (3001, 500)]);
    assert!(s.app_limited());
}

// =====================================================================================
// Slow start
// =====================================================================================

#[test]
fn test_established_slow_start_adds_one_segment_per_segment_acked() {
    // Linux tcp_slow_start / RFC 5681 §3.1 with packet counting: cwnd += segments ACKed.
    let (mut s, _) = established_sender(cfg());
    // ACK of segment 0: cwnd 10 → 11; 9 in flight → 2 new segments (10, 11).
    let out = recv(&mut s, ms(200), &ack(seg(1)));
    assert_eq!(s.cwnd_bytes(), 11_000);
    assert_eq!(sent(&out), news(10..12));
    // ACK of two segments (1, 2): 11 → 13; 11 − 2 = 9 in flight → 4 new (12..15).
    let out = recv(&mut s, ms(201), &ack(seg(3)));
    assert_eq!(s.cwnd_bytes(), 13_000);
    assert_eq!(sent(&out), news(12..16));
    // ACK of all 13 outstanding (3..15): 13 → 26, nothing in flight → 26 new (16..41).
    let out = recv(&mut s, ms(202), &ack(seg(16)));
    assert_eq!(s.cwnd_bytes(), 26_000);
    assert_eq!(sent(&out), news(16..42));
    assert_eq!(s.ssthresh_bytes(), u64::MAX);
    assert_eq!(s.cc().state(), CaState::Open);
}

#[test]
fn test_established_initial_ssthresh_ends_slow_start_where_set() {
    // initial_ssthresh 12 segments (RFC 5681 §3.1 lets it start below "arbitrarily
    // high"; Linux's route metric). ACK of segment 0: 10 → 11 (slow start). ACK of two
    // more (1, 2): slow start takes 11 → 12 = ssthresh, the second ACKed segment goes
    // to congestion avoidance: NewReno's counter 1 < cwnd 12, no growth. Sent so far
    // 0..11, ACKed 0..2: 9 in flight, so 12 − 9 = 3 new segments (12..14).
    let c = TcpConfig {
        initial_ssthresh: Some(12),
        ..cfg()
    };
    let (mut s, _) = established_sender(c);
    assert_eq!(s.ssthresh_bytes(), 12_000);
    recv(&mut s, ms(200), &ack(seg(1)));
    assert_eq!(s.cwnd_bytes(), 11_000);
    let out = recv(&mut s, ms(201), &ack(seg(3)));
    assert_eq!(s.cwnd_bytes(), 12_000);
    assert_eq!(sent(&out), news(12..15));
    assert_eq!(s.ssthresh_bytes(), 12_000);
    assert_eq!(s.cc().state(), CaState::Open);
}

#[test]
fn test_established_bbr_resets_an_initial_ssthresh_as_linux_does() {
    // Linux applies a route's ssthresh before the congestion control's init, and
    // bbr_init sets it back to TCP_INFINITE_SSTHRESH.
    let c = TcpConfig {
        initial_ssthresh: Some(12),
        cc: CcParams::Bbr(BbrParams::default()),
        ..cfg()
    };
    let (s, _) = established_sender(c);
    assert_eq!(s.ssthresh_bytes(), u64::MAX);
}

#[test]
fn test_established_app_limited_ack_does_not_grow_cwnd() {
    // 3 segments written, cwnd 10: the flight never fills the window. Linux
    // tcp_is_cwnd_limited in slow start: cwnd (10) < 2·max_packets_out (6) is false, so
    // the ACK does not grow cwnd (RFC 7661's spirit).
    let (mut s, out) = connect_with(cfg(), 3000, &default_syn_ack(&cfg()));
    assert_eq!(sent(&out), news(0..3));
    recv(&mut s, ms(200), &ack(seg(3)));
    assert_eq!(s.cwnd_bytes(), 10_000);
    assert!(s.all_acked());
}

// =====================================================================================
// The peer's receive window
// =====================================================================================

#[test]
fn test_established_receive_window_limits_sending() {
    let sa = syn_ack(5000, Some(3), None);
    let (mut s, _) = connect_with(cfg(), BIG, &sa);
    // ACK of segment 0 with field 750: SND.WND = 750 << 3 = 6000 B from SND.UNA = 1001,
    // right edge 7001. SND.NXT = 5001 → room 2000 B: segments 5 and 6, although cwnd
    // (10, not grown: the window, not cwnd, was the limit) and pipe (4) allow 6.
    let mut a = ack(seg(1));
    a.window_field = 750;
    let out = recv(&mut s, ms(200), &a);
    assert_eq!(sent(&out), news(5..7));
    assert_eq!(s.cwnd_bytes(), 10_000);
    // The window is full: more data written sends nothing.
    let mut o = vec![];
    s.set_app_end(ms(201), 2 * BIG, &mut o);
    assert!(o.is_empty());
}

#[test]
fn test_established_never_cuts_a_segment_to_fit_the_window() {
    // Window field 1500 << 3 = 12 000 B from SND.UNA = 1: room for 12 full segments, 10 are
    // sent (cwnd). ACK of segment 0 moves the right edge to 1001 + 12 000 = 13 001 with
    // SND.NXT = 10 001: room 3000 B → 3 segments would fit but cwnd 11, pipe 9 allows 2.
    // Then the ACK of segment 1 with 1350 << 3 = 10 800 B from 2001: right edge 12 801,
    // SND.NXT = 12 001, room 800 B while cwnd (12) and pipe (10) would allow two segments.
    // The 800 B are not filled with a runt segment (RFC 9293 §3.8.6.2.1).
    let sa = syn_ack(12_000, Some(3), None);
    let (mut s, out) = connect_with(cfg(), BIG, &sa);
    assert_eq!(sent(&out), news(0..10));
    let mut a = ack(seg(1));
    a.window_field = 1500;
    let out = recv(&mut s, ms(200), &a);
    assert_eq!(sent(&out), news(10..12));
    let mut a = ack(seg(2));
    a.window_field = 1350;
    let out = recv(&mut s, ms(201), &a);
    assert!(
        out.iter().all(|h| h.payload_bytes == 0),
        "no data segment fits whole"
    );
    assert_eq!(s.snd_nxt(), seg(12));
    // One more MSS of window (1475 << 3 = 11 800 B, right edge 13 801): segment 12 goes.
    let mut a = ack(seg(2));
    a.window_field = 1475;
    let out = recv(&mut s, ms(202), &a);
    assert_eq!(sent(&out), news(12..13));
}

// =====================================================================================
// Pacing
// =====================================================================================

#[test]
fn test_established_pacing_spaces_segments_by_wire_time() {
    let c = TcpConfig {
        pacing: true,
        ..cfg()
    };
    let (mut s, out) = established_sender(c);
    // SRTT 100 ms, cwnd 10 < ssthresh/2 → Linux's 200 %:
    // rate = 2 · 10 · 1000 B · 8 / 0.1 s = 1.6 Mb/s. A segment is 1000 B + 40 B of IPv4
    // and TCP headers = 8320 bits on the wire → 8320 / 1.6e6 s = 5.2 ms apart.
    assert_eq!(sent(&out), [new(0)]);
    let mut t = RTT;
    for k in 1..10 {
        let next = t + us(5200);
        assert_eq!(s.next_deadline(), next);
        assert!(timer(&mut s, next - SimTime(1)).is_empty());
        assert_eq!(sent(&timer(&mut s, next)), [new(k)]);
        t = next;
    }
    // The window is full; the next deadline is the RTO (100 + 300 ms).
    assert_eq!(s.next_deadline(), ms(400));
}

#[test]
fn test_established_no_pacing_before_rtt_sample() {
    // No timestamps and a retransmitted SYN: no RTT sample, so no pacing rate (Linux:
    // without SRTT the rate is unbounded): the initial window leaves at once.
    let c = TcpConfig {
        pacing: true,
        ..cfg()
    };
    let mut s = TcpSender::new(c.clone(), false, SimTime::ZERO);
    let mut out = vec![];
    s.set_app_end(SimTime::ZERO, BIG, &mut out);
    s.connect(SimTime::ZERO, &mut out);
    timer(&mut s, ms(1000));
    let out = recv(&mut s, ms(1100), &default_syn_ack(&c));
    assert_eq!(s.rtt().srtt(), None);
    assert_eq!(sent(&out), news(0..10));
}

/// The `cong_control` plumbing, with BBR as the algorithm that owns the window and sets the
/// pacing rate.
#[test]
fn the_algorithms_rate_paces_even_with_the_pacing_option_off() {
    let cfg = TcpConfig {
        mss: MSS,
        timestamps: false,
        pacing: false,
        cc: CcParams::Bbr(BbrParams::default()),
        ..TcpConfig::default()
    };
    let mut s = TcpSender::new(cfg, false, SimTime::ZERO);
    let mut out = vec![];
    s.set_app_end(SimTime::ZERO, 100_000_000, &mut out);
    s.connect(SimTime::ZERO, &mut out);
    out.clear();
    // SYN-ACK at 100 ms: SRTT = 100 ms. BBR asks no rate before its first ACK, so the
    // initial window leaves at once (Linux does not pace the first 10 segments either).
    let synack = syn_ack(65_535, Some(PEER_WSCALE), None);
    let t0 = SimTime::from_ms(100);
    s.on_segment(t0, &synack, &mut out);
    assert_eq!(out.iter().filter(|h| h.payload_bytes > 0).count(), 10);
    assert_eq!(s.cc().pacing_rate(), None);
    // The ACK of segment 0 at 200 ms: BBR's first cong_control starts the rate from
    // high_gain·cwnd/SRTT: bw = 10·2^24/100 000 µs = 1677; 1677·1000·739 >> 8 =
    // 4 840 949; ·990 000 >> 24 = 285 662 B/s of payload. cwnd becomes 11 (one more
    // delivered while tp->delivered < 10), so two segments may go: the first at once,
    // the second one segment's pacing time later, 1000 B · 8 / (285 662 · 8 bit/s)
    // = 3 500 641 ns (rounded up; headers are not charged against this rate).
    out.clear();
    let t1 = SimTime::from_ms(200);
    s.on_segment(t1, &ack(1 + MSS64), &mut out);
    assert!(s.cc().owns_window());
    assert_eq!(s.cc().pacing_rate(), Some(Rate::bps(285_662 * 8)));
    assert_eq!(s.cc().cwnd(), 11);
    let data: Vec<u64> = out
        .iter()
        .filter(|h| h.payload_bytes > 0)
        .map(|h| (h.seq - 1) / MSS as u64)
        .collect();
    assert_eq!(data, [10]);
    let release = t1 + SimTime(3_500_641);
    assert_eq!(s.next_deadline(), release);
    out.clear();
    s.on_timer(release - SimTime(1), &mut out);
    assert!(out.is_empty());
    s.on_timer(release, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].seq - 1) / MSS as u64, 11);
}

// =====================================================================================
// Slow start after idle
// =====================================================================================

/// cwnd grown to 40, then idle for `idle` after the last transmission (at 200 ms);
/// returns (cwnd, segments sent) when the application writes 70 more segments.
fn cwnd_after_idle(idle: SimTime, slow_start_after_idle: bool) -> (u64, usize) {
    // min_rto 1 s keeps the RTO at exactly 1 s: every sample is 100 ms, and
    // SRTT + 4·RTTVAR ≤ 300 ms < 1 s.
    let c = TcpConfig {
        min_rto: SimTime::from_secs(1),
        slow_start_after_idle,
        ..cfg()
    };
    let sa = default_syn_ack(&c);
    let (mut s, out) = connect_with(c, 30 * MSS64, &sa);
    assert_eq!(sent(&out), news(0..10));
    // ACK of 10 segments: cwnd 20 → 20 more (10..29) at 200 ms.
    assert_eq!(sent(&recv(&mut s, ms(200), &ack(seg(10)))), news(10..30));
    // ACK of those 20: cwnd 40, nothing left to send.
    assert!(recv(&mut s, ms(300), &ack(seg(30))).is_empty());
    assert_eq!(s.cwnd_bytes(), 40_000);
    assert_eq!(s.rtt().rto(), SimTime::from_secs(1));
    let mut out = vec![];
    s.set_app_end(ms(200) + idle, 100 * MSS64, &mut out);
    assert_eq!(
        s.ssthresh_bytes(),
        u64::MAX,
        "max(∞, ¾ cwnd) (tcp_current_ssthresh)"
    );
    (s.cwnd_bytes(), sent(&out).len())
}

#[test]
fn test_established_slow_start_after_idle_restarts_window() {
    // Linux tcp_cwnd_restart: restart = min(cwnd, IW) = 10; for each whole RTO of idle
    // time beyond the first, halve cwnd while above restart.
    // Idle = RTO exactly: not longer than the RTO → unchanged, 40 segments go.
    assert_eq!(cwnd_after_idle(SimTime::from_secs(1), true), (40_000, 40));
    // Idle = RTO + 1 ns: one halving → 20.
    assert_eq!(
        cwnd_after_idle(SimTime::from_secs(1) + SimTime(1), true),
        (20_000, 20)
    );
    // 1.5 RTO: 1.5 − 1 = 0.5 > 0 → 20; 0.5 − 1 < 0 → stop.
    assert_eq!(cwnd_after_idle(ms(1500), true), (20_000, 20));
    // 2.5 RTO: 40 → 20 (1.5 left) → 10 (0.5 left) = restart → stop.
    assert_eq!(cwnd_after_idle(ms(2500), true), (10_000, 10));
    // Never below the initial window however long the idle time.
    assert_eq!(cwnd_after_idle(SimTime::from_secs(100), true), (10_000, 10));
    // Disabled (sysctl tcp_slow_start_after_idle = 0): unchanged.
    assert_eq!(
        cwnd_after_idle(SimTime::from_secs(100), false),
        (40_000, 40)
    );
}

// =====================================================================================
// Application-limited sending
// =====================================================================================

#[test]
fn test_established_sends_only_what_the_application_wrote() {
    let (mut s, out) = connect_with(cfg(), 2500, &default_syn_ack(&cfg()));
    let d = |o: &[TcpHeader]| -> Vec<(u64, u32)> {
        o.iter()
            .filter(|h| h.payload_bytes > 0)
            .map(|h| (h.seq, h.payload_bytes))
            .collect()
    };
    // 2500 B: 1000 + 1000 + 500.
    assert_eq!(d(&out), [(1, 1000), (1001, 1000), (2001, 500)]);
    assert!(s.app_limited());
    assert_eq!(s.app_written(), 2500);
    // Writing the same total again releases nothing.
    let mut o = vec![];
    s.set_app_end(ms(150), 2500, &mut o);
    assert!(o.is_empty());
    // 5000 B in total: bytes 2501..5000 go at once (cwnd 10, 3 in flight).
    s.set_app_end(ms(150), 5000, &mut o);
    assert_eq!(d(&o), [(2501, 1000), (3501, 1000), (4501, 500)]);
    assert_eq!(s.snd_nxt(), 5001);
    // Everything ACKed.
    recv(&mut s, ms(250), &ack(5001));
    assert!(s.all_acked());
    // Nothing outstanding: no RTO timer (RFC 6298 §5.2).
    assert_eq!(s.next_deadline(), SimTime::NEVER);
}

#[test]
fn test_established_stop_writing_sends_nothing_new() {
    // The application stops after the initial window went out: ACKs no longer release new
    // segments, but a loss is still repaired.
    let (mut s, _) = established_sender(cfg());
    s.stop_writing();
    let out = recv(&mut s, ms(200), &ack(seg(1)));
    assert!(sent(&out).is_empty());
    assert_eq!(s.snd_nxt(), seg(10));
    // Three duplicate ACKs with SACK of segments 2..5: segment 1 is retransmitted.
    let mut all = vec![];
    for k in 3..6 {
        all.extend(sent(&recv(
            &mut s,
            ms(201),
            &ack_with_sack(seg(1), &[(seg(2), seg(k))]),
        )));
    }
    assert_eq!(all, vec![rtx(1)]);
}

#[test]
fn only_algorithms_that_declare_a_pacing_rate_set_one() {
    // The controller asks an algorithm once whether it ever sets a pacing rate and, if
    // not, never asks for the rate. Every algorithm runs 400 ACKs of a bulk flow (one
    // segment each, 1 ms apart, after the 100 ms handshake); one that answered a rate it
    // had not declared would be silently unpaced. BBR declares it and sets one from its
    // first ACK (the test above), so the check is not vacuous.
    for name in CcParams::NAMES {
        let cfg = TcpConfig {
            mss: MSS,
            timestamps: false,
            cc: CcParams::default_for(name).unwrap(),
            ..TcpConfig::default()
        };
        let mut s = TcpSender::new(cfg, false, SimTime::ZERO);
        let mut out = vec![];
        s.set_app_end(SimTime::ZERO, 100_000_000, &mut out);
        s.connect(SimTime::ZERO, &mut out);
        s.on_segment(ms(100), &syn_ack(65_535, Some(PEER_WSCALE), None), &mut out);
        let mut paced = false;
        for k in 1..=400u64 {
            s.on_segment(ms(100 + k), &ack(seg(k)), &mut out);
            let rate = s.cc().undeclared_pacing_rate();
            paced |= rate.is_some();
            assert!(
                rate.is_none() || s.cc().pacing_rate() == rate,
                "{name} set a pacing rate it did not declare"
            );
        }
        assert_eq!(paced, *name == "bbr", "{name}");
    }
}
