//! Unit tests of the TCP sender and receiver, driven through their sans-IO interfaces
//! with hand-built segments.
//!
//! Conventions of the fixtures:
//! - MSS = 1000 B, so segment k covers the bytes [1 + 1000·k, 1 + 1000·(k + 1)); [`seg`]
//!   gives its first byte and [`sent`] turns transmitted headers back into segment
//!   numbers.
//! - NewReno window arithmetic (Linux `reno`: exact packet counting) unless a test says
//!   otherwise, timestamps off, SACK on, MSS 1000 B, 64 MiB buffers.
//! - The RFC core alone: RACK-TLP, F-RTO, D-SACK and undo off
//!   ([`LossRecoveryConfig::CLASSIC`]) and the RFC 6298 RTO; `tests_recovery` tests the
//!   Linux mechanisms, still with the RFC 6298 RTO so the timings stay those worked here.
//! - The sender connects at t = 0 and the SYN-ACK arrives at t = 100 ms: the first RTT
//!   sample is R = 100 ms, so SRTT = 100 ms, RTTVAR = R/2 = 50 ms and
//!   RTO = SRTT + 4·RTTVAR = 300 ms (RFC 6298 §2.2; above the 200 ms minimum).
//! - The peer's SYN-ACK offers window scale 4; ACKs built here carry window field 65535,
//!   i.e. 65535·16 ≈ 1 MB, so the receive window never limits unless a test says so.
//!
//! Every expected value is derived by hand in the comment next to it.

use super::receiver::TcpReceiver;
use super::sender::{SenderState, TcpSender};
use super::{ts_ticks, LossRecoveryConfig, TcpConfig};
use crate::cc::bbr::BbrParams;
use crate::cc::{CaState, CcParams};
use mmtsim_engine::{Rate, SimTime};
use mmtsim_net::packet::{SackBlock, SynOptions, TcpFlags, TcpHeader};
use std::ops::Range;

pub(super) const MSS: u32 = 1000;
pub(super) const MSS64: u64 = MSS as u64;
/// Arrival time of the SYN-ACK (the SYN leaves at t = 0).
pub(super) const RTT: SimTime = SimTime::from_ms(100);
pub(super) const PEER_WSCALE: u8 = 4;
/// "Unlimited" application data.
pub(super) const BIG: u64 = 100_000_000;

pub(super) fn ms(x: u64) -> SimTime {
    SimTime::from_ms(x)
}

pub(super) fn us(x: u64) -> SimTime {
    SimTime::from_us(x)
}

/// First byte of segment `k`.
pub(super) fn seg(k: u64) -> u64 {
    1 + k * MSS64
}

pub(super) fn cfg() -> TcpConfig {
    TcpConfig {
        mss: MSS,
        timestamps: false,
        cc: CcParams::NewReno,
        loss_recovery: LossRecoveryConfig::CLASSIC,
        rto_estimator: super::rtt::RtoEstimator::Rfc6298,
        ..TcpConfig::default()
    }
}

pub(super) const ACK_ONLY: TcpFlags = TcpFlags {
    syn: false,
    ack: true,
    fin: false,
};

// ----- sender fixtures -----

pub(super) fn syn_ack(
    window_field: u16,
    wscale: Option<u8>,
    timestamps: Option<(u32, u32)>,
) -> TcpHeader {
    TcpHeader {
        from_receiver: true,
        seq: 0,
        ack: 1,
        flags: TcpFlags {
            syn: true,
            ack: true,
            fin: false,
        },
        window_field,
        timestamps,
        syn_options: Some(SynOptions {
            mss: MSS as u16,
            wscale,
            sack_permitted: true,
        }),
        ..Default::default()
    }
}

/// The fixtures' SYN-ACK: window 65535 (unscaled on a SYN-ACK), shift 4 for later ACKs;
/// with timestamps it carries TSval 7 and echoes the SYN's TSval, 0 (the SYN left at t = 0).
pub(super) fn default_syn_ack(c: &TcpConfig) -> TcpHeader {
    syn_ack(65_535, Some(PEER_WSCALE), c.timestamps.then_some((7, 0)))
}

/// A sender whose application wrote `app` bytes, that connected at t = 0 and received
/// `synack` at t = 100 ms. Returns it with what it sent on establishment.
pub(super) fn connect_with(
    c: TcpConfig,
    app: u64,
    synack: &TcpHeader,
) -> (TcpSender, Vec<TcpHeader>) {
    let mut s = TcpSender::new(c, false, SimTime::ZERO);
    let mut out = vec![];
    s.set_app_end(SimTime::ZERO, app, &mut out);
    s.connect(SimTime::ZERO, &mut out);
    assert_eq!(out.len(), 1, "the SYN only");
    out.clear();
    s.on_segment(RTT, synack, &mut out);
    assert_eq!(s.state(), SenderState::Established);
    s.check_invariants();
    (s, out)
}

/// An established sender with unlimited data, after the initial window went out at 100 ms.
pub(super) fn established_sender(c: TcpConfig) -> (TcpSender, Vec<TcpHeader>) {
    let sa = default_syn_ack(&c);
    connect_with(c, BIG, &sa)
}

/// A pure ACK from the receiver (window field 65535, no options).
pub(super) fn ack(n: u64) -> TcpHeader {
    TcpHeader {
        from_receiver: true,
        seq: 1,
        ack: n,
        flags: ACK_ONLY,
        window_field: 65_535,
        ..Default::default()
    }
}

/// A pure ACK with the timestamps option.
pub(super) fn ack_ts(n: u64, tsval: u32, tsecr: u32) -> TcpHeader {
    TcpHeader {
        timestamps: Some((tsval, tsecr)),
        ..ack(n)
    }
}

/// A pure ACK with SACK blocks, given in the order they appear in the option.
pub(super) fn ack_with_sack(n: u64, blocks: &[(u64, u64)]) -> TcpHeader {
    let mut h = ack(n);
    for (i, &(start, end)) in blocks.iter().enumerate() {
        h.sack[i] = SackBlock { start, end };
    }
    h.sack_len = blocks.len() as u8;
    h
}

pub(super) fn recv(s: &mut TcpSender, now: SimTime, h: &TcpHeader) -> Vec<TcpHeader> {
    let mut out = vec![];
    s.on_segment(now, h, &mut out);
    s.check_invariants();
    out
}

pub(super) fn timer(s: &mut TcpSender, now: SimTime) -> Vec<TcpHeader> {
    let mut out = vec![];
    s.on_timer(now, &mut out);
    s.check_invariants();
    out
}

/// The data segments in `out` as (segment number, retransmission); all must be full-sized.
pub(super) fn sent(out: &[TcpHeader]) -> Vec<(u64, bool)> {
    out.iter()
        .filter(|h| h.payload_bytes > 0)
        .map(|h| {
            assert_eq!(
                h.payload_bytes, MSS,
                "full-sized segment expected at {}",
                h.seq
            );
            assert_eq!((h.seq - 1) % MSS64, 0);
            ((h.seq - 1) / MSS64, h.retransmission)
        })
        .collect()
}

/// Segment `k` sent for the first time.
pub(super) fn new(k: u64) -> (u64, bool) {
    (k, false)
}

/// Segment `k` retransmitted.
pub(super) fn rtx(k: u64) -> (u64, bool) {
    (k, true)
}

pub(super) fn news(r: Range<u64>) -> Vec<(u64, bool)> {
    r.map(new).collect()
}

// ----- receiver fixtures -----

pub(super) fn syn(tsval: Option<u32>) -> TcpHeader {
    TcpHeader {
        from_receiver: false,
        seq: 0,
        ack: 1,
        flags: TcpFlags {
            syn: true,
            ack: false,
            fin: false,
        },
        window_field: 65_535,
        timestamps: tsval.map(|v| (v, 0)),
        syn_options: Some(SynOptions {
            mss: MSS as u16,
            wscale: Some(11),
            sack_permitted: true,
        }),
        ..Default::default()
    }
}

/// A receiver that got the SYN at t = 0 (TSval 0 with timestamps); the SYN-ACK is
/// returned too.
pub(super) fn established_receiver(c: TcpConfig) -> (TcpReceiver, TcpHeader) {
    let ts = c.timestamps;
    let mut r = TcpReceiver::new(c);
    let mut out = vec![];
    assert_eq!(
        r.on_segment(SimTime::ZERO, &syn(ts.then_some(0)), &mut out),
        0
    );
    assert_eq!(out.len(), 1);
    (r, out[0])
}

/// Data segment `k` from the sender.
pub(super) fn data(k: u64) -> TcpHeader {
    TcpHeader {
        from_receiver: false,
        seq: seg(k),
        ack: 1,
        payload_bytes: MSS,
        flags: ACK_ONLY,
        window_field: 65_535,
        ..Default::default()
    }
}

pub(super) fn data_ts(k: u64, tsval: u32) -> TcpHeader {
    TcpHeader {
        timestamps: Some((tsval, 0)),
        ..data(k)
    }
}

pub(super) fn data_rtx(k: u64) -> TcpHeader {
    TcpHeader {
        retransmission: true,
        ..data(k)
    }
}

/// Feeds `h` to the receiver: (bytes delivered in order, ACKs sent).
pub(super) fn deliver(r: &mut TcpReceiver, now: SimTime, h: &TcpHeader) -> (u64, Vec<TcpHeader>) {
    let mut out = vec![];
    let n = r.on_segment(now, h, &mut out);
    (n, out)
}

/// The SACK blocks of `h` as (start, end) pairs.
pub(super) fn blocks(h: &TcpHeader) -> Vec<(u64, u64)> {
    h.sack_blocks().iter().map(|b| (b.start, b.end)).collect()
}

// =====================================================================================
// 1. Handshake
// =====================================================================================

#[test]
fn test_closed_connect_sends_syn_with_options() {
    // Defaults: SACK and timestamps on, 64 MiB receive buffer.
    let c = TcpConfig {
        mss: MSS,
        ..TcpConfig::default()
    };
    let mut s = TcpSender::new(c, false, SimTime::ZERO);
    let mut out = vec![];
    s.connect(ms(5), &mut out);
    assert_eq!(s.state(), SenderState::SynSent);
    assert_eq!(out.len(), 1);
    let h = out[0];
    assert!(h.flags.syn && !h.flags.ack);
    // The SYN occupies sequence number 0 and carries no data.
    assert_eq!((h.seq, h.payload_bytes), (0, 0));
    // 64 MiB = 2^26 B: the smallest shift with 2^26 >> s ≤ 65535 is s = 11
    // (2^26 >> 10 = 65536 is one too many).
    assert_eq!(
        h.syn_options,
        Some(SynOptions {
            mss: 1000,
            wscale: Some(11),
            sack_permitted: true,
        })
    );
    // A SYN's window is never scaled (RFC 7323 §2.2): min(2^26, 65535).
    assert_eq!(h.window_field, 65_535);
    // TSval: the clock in 1 µs ticks, 5 ms → 5000; TSecr 0, nothing received yet.
    assert_eq!(h.timestamps, Some((5000, 0)));
    // The SYN is on the wire: RTO 1 s before any sample (RFC 6298 §2.1).
    assert_eq!(s.next_deadline(), ms(1005));
}

#[test]
fn test_closed_connect_without_sack_or_timestamps_omits_them() {
    let c = TcpConfig {
        sack: false,
        rcv_buf: 65_535,
        ..cfg()
    };
    let mut s = TcpSender::new(c, false, SimTime::ZERO);
    let mut out = vec![];
    s.connect(SimTime::ZERO, &mut out);
    let o = out[0].syn_options.unwrap();
    // 65535 fits the field unscaled: shift 0 (still offered, so the peer may scale).
    assert_eq!((o.mss, o.wscale, o.sack_permitted), (1000, Some(0), false));
    assert_eq!(out[0].timestamps, None);
}

#[test]
fn test_syn_sent_retransmits_syn_after_1s_then_2s() {
    let mut s = TcpSender::new(cfg(), false, SimTime::ZERO);
    let mut out = vec![];
    s.connect(SimTime::ZERO, &mut out);
    // RTO = 1 s before any RTT sample (RFC 6298 §2.1).
    assert_eq!(s.next_deadline(), ms(1000));
    assert!(timer(&mut s, ms(999)).is_empty());
    let out = timer(&mut s, ms(1000));
    assert_eq!(out.len(), 1);
    assert!(out[0].flags.syn && out[0].syn_options.is_some());
    // Backed off (RFC 6298 §5.5): 2 s after the retransmission, at 3 s.
    assert_eq!(s.next_deadline(), ms(3000));
    assert!(timer(&mut s, ms(2999)).is_empty());
    let out = timer(&mut s, ms(3000));
    assert!(out[0].flags.syn);
    // Doubled again: 4 s → 7 s.
    assert_eq!(s.next_deadline(), ms(7000));
    assert_eq!(s.stats.syn_retransmits, 2);
    assert_eq!(s.state(), SenderState::SynSent);
}

#[test]
fn test_syn_sent_syn_ack_window_is_not_scaled() {
    // The SYN-ACK offers shift 3 and window field 5000. A SYN-ACK's window is never
    // scaled (RFC 7323 §2.2): 5000 B = 5 segments although cwnd is 10 (scaled it would
    // be 40 000 B and all 10 would go).
    let sa = syn_ack(5000, Some(3), None);
    let (s, out) = connect_with(cfg(), BIG, &sa);
    assert_eq!(sent(&out), news(0..5));
    assert_eq!(s.snd_nxt(), seg(5));
}

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
fn test_syn_sent_rtt_sample_from_syn_exchange() {
    // No timestamps, SYN sent once: R = SYN-ACK arrival − SYN send = 100 ms.
    // SRTT = 100 ms, RTTVAR = 50 ms, RTO = 100 + 4·50 = 300 ms (RFC 6298 §2.2).
    let (s, _) = established_sender(cfg());
    assert_eq!(s.rtt().srtt(), Some(ms(100)));
    assert_eq!(s.rtt().rttvar(), ms(50));
    assert_eq!(s.rtt().rto(), ms(300));
    assert_eq!(s.log.rtt.us, [100_000]);
}

#[test]
fn test_syn_sent_rtt_sample_from_syn_ack_tsecr_after_syn_retransmission() {
    // The first SYN (TSval 0) is lost; the retransmission at 1 s carries TSval 1_000_000
    // and the SYN-ACK at 1.03 s echoes it: R = 1.03 s − 1 s = 30 ms, a valid sample
    // because the echo identifies the transmission (RFC 7323 §4, RFC 6298 §3).
    let c = TcpConfig {
        timestamps: true,
        ..cfg()
    };
    let mut s = TcpSender::new(c, false, SimTime::ZERO);
    let mut out = vec![];
    s.set_app_end(SimTime::ZERO, BIG, &mut out);
    s.connect(SimTime::ZERO, &mut out);
    let out = timer(&mut s, ms(1000));
    assert_eq!(out[0].timestamps, Some((1_000_000, 0)));
    let sa = syn_ack(65_535, Some(PEER_WSCALE), Some((55, 1_000_000)));
    let out = recv(&mut s, ms(1030), &sa);
    assert_eq!(s.rtt().srtt(), Some(ms(30)));
    // The sample clears the backoff (RFC 6298 §5.7): 30 + 4·15 = 90 ms → 200 ms minimum.
    assert_eq!(s.rtt().rto(), ms(200));
    // The handshake ACK echoes the SYN-ACK's TSval.
    assert_eq!(out[0].timestamps, Some((1_030_000, 55)));
}

#[test]
fn test_syn_sent_no_rtt_sample_after_syn_retransmission_without_timestamps() {
    // Karn: after a SYN retransmission the SYN-ACK may answer either SYN, so without
    // timestamps there is no sample (RFC 6298 §3).
    let mut s = TcpSender::new(cfg(), false, SimTime::ZERO);
    let mut out = vec![];
    s.set_app_end(SimTime::ZERO, BIG, &mut out);
    s.connect(SimTime::ZERO, &mut out);
    timer(&mut s, ms(1000));
    let out = recv(&mut s, ms(1100), &default_syn_ack(&cfg()));
    assert_eq!(s.rtt().srtt(), None);
    assert!(s.log.rtt.us.is_empty());
    // Data still starts: the initial window of 10 segments.
    assert_eq!(sent(&out), news(0..10));
}

#[test]
fn test_syn_sent_ignores_syn_ack_for_another_sequence() {
    // A SYN-ACK must acknowledge the SYN (ACK = ISS + 1 = 1, RFC 9293 §3.10.7.3).
    let mut s = TcpSender::new(cfg(), false, SimTime::ZERO);
    let mut out = vec![];
    s.connect(SimTime::ZERO, &mut out);
    let mut sa = default_syn_ack(&cfg());
    sa.ack = 5;
    assert!(recv(&mut s, RTT, &sa).is_empty());
    assert_eq!(s.state(), SenderState::SynSent);
}

// =====================================================================================
// 2. Initial window
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
// 3. Slow start
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
// 4. Duplicate ACKs: limited transmit and fast retransmit
// =====================================================================================
//
// Segment 0 of the initial window is lost; segments 1, 2, 3 arrive and each produces a
// duplicate ACK (with SACK: SACKing 1, 1–2, 1–3).

#[test]
fn test_disorder_limited_transmit_with_sack() {
    let (mut s, _) = established_sender(cfg());
    // Dup 1 SACKs segment 1: pipe = 10 − 1 SACKed = 9 < cwnd 10 → one new segment
    // (RFC 3042 through RFC 6675's pipe). A duplicate ACK does not grow cwnd (RFC 5681
    // §3.1: only ACKs of new data; Linux tcp_may_raise_cwnd needs FLAG_DATA_ACKED).
    let out = recv(&mut s, ms(200), &ack_with_sack(seg(0), &[(seg(1), seg(2))]));
    assert_eq!(sent(&out), [new(10)]);
    assert_eq!(s.cwnd_bytes(), 10_000);
    assert_eq!(s.cc().state(), CaState::Disorder);
    // Dup 2 SACKs segment 2: pipe = 11 − 2 = 9 → one more.
    let out = recv(&mut s, ms(201), &ack_with_sack(seg(0), &[(seg(1), seg(3))]));
    assert_eq!(sent(&out), [new(11)]);
    assert_eq!(s.cwnd_bytes(), 10_000);
    assert_eq!(s.stats.fast_recoveries, 0);
}

#[test]
fn test_disorder_limited_transmit_without_sack() {
    // Without SACK each duplicate ACK counts as one segment out of the network (Linux
    // tcp_add_reno_sack), so the pipe drops by one per duplicate.
    let c = TcpConfig {
        sack: false,
        ..cfg()
    };
    let (mut s, _) = established_sender(c);
    let out = recv(&mut s, ms(200), &ack(seg(0)));
    assert_eq!(sent(&out), [new(10)]);
    let out = recv(&mut s, ms(201), &ack(seg(0)));
    assert_eq!(sent(&out), [new(11)]);
    assert_eq!(s.cwnd_bytes(), 10_000);
    assert_eq!(s.cc().state(), CaState::Disorder);
    // The reported bytes in flight follow the same pipe: 12 sent − 2 duplicate ACKs.
    assert_eq!(s.bytes_in_flight(), 10_000);
}

#[test]
fn test_disorder_third_dupack_fast_retransmits_head() {
    for sack in [true, false] {
        let c = TcpConfig { sack, ..cfg() };
        let (mut s, _) = established_sender(c);
        let dup = |k: u64| {
            if sack {
                ack_with_sack(seg(0), &[(seg(1), seg(1 + k))])
            } else {
                ack(seg(0))
            }
        };
        recv(&mut s, ms(200), &dup(1));
        recv(&mut s, ms(201), &dup(2));
        assert_eq!(s.cc().state(), CaState::Disorder);
        // Third duplicate ACK (DupThresh = 3; with SACK also IsLost(seg 0): 3 SACKed
        // segments above it): fast retransmit of segment 0 (RFC 5681 §3.2, RFC 6675 §5).
        let out = recv(&mut s, ms(202), &dup(3));
        assert_eq!(sent(&out), [rtx(0)], "sack = {sack}");
        assert_eq!(s.cc().state(), CaState::Recovery);
        assert_eq!(s.stats.fast_recoveries, 1);
        // NewReno: ssthresh = max(cwnd / 2, 2) = 10 / 2 = 5 segments.
        assert_eq!(s.ssthresh_bytes(), 5_000);
        // PRR on this ACK: 12 sent, 3 SACKed (or duplicate-ACKed), 1 lost → pipe 8 >
        // ssthresh 5: sndcnt = ceil(1·5 / 10) − 0 = 1 → cwnd = 8 + 1 = 9 segments.
        assert_eq!(s.cwnd_bytes(), 9_000);
        assert_eq!(s.stats.retransmits, 1);
    }
}

// =====================================================================================
// 5. SACK-based recovery with PRR
// =====================================================================================

#[test]
fn test_recovery_sack_prr_worked_example() {
    // Segments 0 and 3 of the initial window (0..9, sent at 100 ms) are lost. The
    // receiver's ACKs arrive from 200 ms on, each SACKing the next segment that got
    // through, in the order the segments were sent.
    let (mut s, _) = established_sender(cfg());
    let a = |n: u64, blocks: &[(u64, u64)]| {
        let b: Vec<(u64, u64)> = blocks.iter().map(|&(x, y)| (seg(x), seg(y))).collect();
        ack_with_sack(seg(n), &b)
    };
    // A1, A2 (SACK 1, 1–2): limited transmit of 10 and 11 (see section 4).
    assert_eq!(sent(&recv(&mut s, ms(200), &a(0, &[(1, 2)]))), [new(10)]);
    assert_eq!(sent(&recv(&mut s, ms(201), &a(0, &[(1, 3)]))), [new(11)]);
    // A3 SACKs 4 (most recent block first, RFC 2018 §4). 1, 2, 4 SACKed: 3 above
    // segment 0 → IsLost(0) (RFC 6675); segment 3 has 1 above → not lost. Recovery:
    // RecoveryPoint = SND.NXT = seg(12), ssthresh = 10/2 = 5, prior_cwnd (RecoverFS) = 10.
    // PRR: prr_delivered = 1, pipe = 12 − (3 + 1) = 8 > 5:
    // sndcnt = ceil(1·5/10) − 0 = 1 → retransmit 0; cwnd = 9.
    let out = recv(&mut s, ms(202), &a(0, &[(4, 5), (1, 3)]));
    assert_eq!(sent(&out), [rtx(0)]);
    assert_eq!(s.cc().state(), CaState::Recovery);
    assert_eq!(s.cwnd_bytes(), 9_000);
    // The retransmission is in flight again: pipe = 12 − 4 + 1 = 9 segments.
    assert_eq!(s.bytes_in_flight(), 9_000);
    // A4 SACKs 5: segment 3 has 2 SACKed above → not lost yet. prr_delivered 2,
    // pipe = 12 − (4 + 1) + 1 = 8 > 5: ceil(2·5/10) − 1 = 0 → cwnd 8, nothing sent.
    let out = recv(&mut s, ms(203), &a(0, &[(4, 6), (1, 3)]));
    assert!(out.is_empty());
    assert_eq!(s.bytes_in_flight(), 8_000);
    // A5 SACKs 6: 3 SACKed above segment 3 → lost. prr_delivered 3,
    // pipe = 12 − (5 + 2) + 1 = 6 > 5: ceil(3·5/10) − 1 = 1 → retransmit 3 (holes in
    // sequence order: 0 first, then 3); cwnd 7.
    let out = recv(&mut s, ms(204), &a(0, &[(4, 7), (1, 3)]));
    assert_eq!(sent(&out), [rtx(3)]);
    assert_eq!(s.cwnd_bytes(), 7_000);
    // A6 SACKs 7: prr_delivered 4, pipe = 12 − 8 + 2 = 6 > 5: ceil(4·5/10) − 2 = 0.
    assert!(recv(&mut s, ms(205), &a(0, &[(4, 8), (1, 3)])).is_empty());
    // A7 SACKs 8: prr_delivered 5, pipe = 12 − 9 + 2 = 5 = ssthresh → reduction bound:
    // min(ssthresh − pipe = 0, max(5 − 2, 1)) = 0.
    assert!(recv(&mut s, ms(206), &a(0, &[(4, 9), (1, 3)])).is_empty());
    assert_eq!(s.cwnd_bytes(), 5_000);
    // A8 SACKs 9: prr_delivered 6, pipe 4: min(5 − 4, max(6 − 2, 1)) = 1 → new data 12
    // (no hole left to retransmit).
    assert_eq!(
        sent(&recv(&mut s, ms(207), &a(0, &[(4, 10), (1, 3)]))),
        [new(12)]
    );
    // A9 SACKs 10: prr_delivered 7, pipe = 13 − 11 + 2 = 4 → 1 → 13.
    assert_eq!(
        sent(&recv(&mut s, ms(208), &a(0, &[(4, 11), (1, 3)]))),
        [new(13)]
    );
    // A10 SACKs 11: prr_delivered 8, pipe = 14 − 12 + 2 = 4 → 1 → 14.
    assert_eq!(
        sent(&recv(&mut s, ms(209), &a(0, &[(4, 12), (1, 3)]))),
        [new(14)]
    );
    assert_eq!(s.cwnd_bytes(), 5_000);
    // A11: the retransmitted 0 arrives, ACK = seg(3) (1 and 2 were SACKed already):
    // 1 segment newly delivered, prr_delivered 9; pipe = 12 (3..14) − (8 + 1) + 1 = 4;
    // min(5 − 4, max(9 − 5, 1) + 1) = 1 (+1: SND.UNA advanced without new loss) → 15.
    // Still in recovery: SND.UNA < RecoveryPoint seg(12).
    let out = recv(&mut s, ms(302), &a(3, &[(4, 12)]));
    assert_eq!(sent(&out), [new(15)]);
    assert_eq!(s.cc().state(), CaState::Recovery);
    // A12: the retransmitted 3 arrives, ACK = seg(12) = RecoveryPoint: recovery ends
    // with cwnd = ssthresh = 5 (RFC 6675 §5 / Linux tcp_end_cwnd_reduction). Congestion
    // avoidance then adds 1/5 of a segment (cwnd_cnt 1 < 5): cwnd stays 5. Pipe = 4
    // (12..15) → one new segment.
    let out = recv(&mut s, ms(305), &ack(seg(12)));
    assert_eq!(s.cc().state(), CaState::Open);
    assert_eq!(s.cwnd_bytes(), 5_000);
    assert_eq!(s.ssthresh_bytes(), 5_000);
    assert_eq!(sent(&out), [new(16)]);
    assert_eq!(s.stats.retransmits, 2);
}

#[test]
fn test_recovery_sack_hole_needs_three_sacked_segments_above() {
    // IsLost (RFC 6675): a hole is lost once DupThresh (3) SACKed segments, or more than
    // (DupThresh − 1)·SMSS SACKed bytes, lie above it. Segment 0 lost, then 2 segments
    // SACKed in one ACK: 2 < 3 and 2000 B is not > 2000 B → not lost, no retransmission,
    // pipe = 10 − 2 = 8 → two new segments.
    let (mut s, _) = established_sender(cfg());
    let out = recv(&mut s, ms(200), &ack_with_sack(seg(0), &[(seg(1), seg(3))]));
    assert_eq!(sent(&out), news(10..12));
    assert_eq!(s.cc().state(), CaState::Disorder);
    // One ACK SACKing a third segment: lost → recovery and retransmission at once,
    // although only 2 duplicate ACKs have arrived.
    let out = recv(&mut s, ms(201), &ack_with_sack(seg(0), &[(seg(1), seg(4))]));
    assert_eq!(sent(&out), [rtx(0)]);
    assert_eq!(s.cc().state(), CaState::Recovery);
}

// =====================================================================================
// 6. NewReno recovery without SACK (RFC 6582)
// =====================================================================================

#[test]
fn test_recovery_newreno_partial_ack_retransmits_next_hole_and_full_ack_exits() {
    // Segments 0 and 5 of the initial window are lost; no SACK. Every other segment
    // produces a duplicate ACK (ACK = 1). PRR (Linux) shapes the window with
    // prior_cwnd = 10, ssthresh = 5 and pipe = packets_out − (lost + dupACKs) + retrans.
    let c = TcpConfig {
        sack: false,
        ..cfg()
    };
    let (mut s, _) = established_sender(c);
    let mut t = 200;
    // The next ACK, `ack(seg(n))`, 1 ms after the previous one.
    fn dup(s: &mut TcpSender, t: &mut u64, n: u64) -> Vec<(u64, bool)> {
        *t += 1;
        sent(&recv(s, ms(*t), &ack(seg(n))))
    }
    // D1, D2 (segments 1, 2): limited transmit of 10 and 11.
    assert_eq!(dup(&mut s, &mut t, 0), [new(10)]);
    assert_eq!(dup(&mut s, &mut t, 0), [new(11)]);
    // D3 (segment 3): fast retransmit; recover = SND.NXT = seg(12).
    // prr_delivered 1, pipe = 12 − (1 + 3) = 8: ceil(1·5/10) − 0 = 1.
    assert_eq!(dup(&mut s, &mut t, 0), [rtx(0)]);
    assert_eq!(
        s.bytes_in_flight(),
        9_000,
        "12 − (1 lost + 3 dupACKs) + 1 retransmitted"
    );
    // D4 (4): prr_delivered 2, pipe = 12 − 5 + 1 = 8: ceil(2·5/10) − 1 = 0.
    assert_eq!(dup(&mut s, &mut t, 0), []);
    // D5 (6): prr_delivered 3, pipe 7: ceil(3·5/10) − 1 = 1 → new 12.
    assert_eq!(dup(&mut s, &mut t, 0), [new(12)]);
    // D6 (7): prr_delivered 4, pipe = 13 − 7 + 1 = 7: ceil(4·5/10) − 2 = 0.
    assert_eq!(dup(&mut s, &mut t, 0), []);
    // D7 (8): prr_delivered 5, pipe 6: ceil(5·5/10) − 2 = 1 → 13.
    assert_eq!(dup(&mut s, &mut t, 0), [new(13)]);
    // D8 (9): prr_delivered 6, pipe = 14 − 9 + 1 = 6: ceil(6·5/10) − 3 = 0.
    assert_eq!(dup(&mut s, &mut t, 0), []);
    // D9 (10): prr_delivered 7, pipe 5 = ssthresh: min(0, …) = 0.
    assert_eq!(dup(&mut s, &mut t, 0), []);
    // D10 (11): prr_delivered 8, pipe 4: min(5 − 4, max(8 − 3, 1)) = 1 → 14.
    assert_eq!(dup(&mut s, &mut t, 0), [new(14)]);
    assert_eq!(s.cwnd_bytes(), 5_000);

    // Partial ACK (RFC 6582 §3.2 step 5): the retransmitted 0 arrives, ACK = seg(5)
    // (0..4). Stay in recovery and retransmit the first unacknowledged segment, 5, at
    // once. Linux tcp_remove_reno_sacks: the ACK filled one hole, the 4 other segments
    // had produced duplicate ACKs already, so it delivers max(5 − 10, 1) = 1 segment and
    // 10 − 4 = 6 duplicate ACKs stay counted. prr_delivered 9; segment 5 newly lost;
    // pipe = 10 (5..14) − (1 + 6) = 3: min(5 − 3, max(9 − 4, 1)) = 2 (no +1: a new loss)
    // → retransmit 5, then new 15.
    t += 100;
    let out = recv(&mut s, ms(t), &ack(seg(5)));
    assert_eq!(sent(&out), [rtx(5), new(15)]);
    assert_eq!(s.cc().state(), CaState::Recovery);
    assert_eq!(s.snd_una(), seg(5));
    // The retransmission of the new head restarted the RTO timer (RFC 6582 §3.2 step 5,
    // Linux tcp_xmit_retransmit_queue). The Karn rule forbids a sample from this ACK
    // (it acknowledges the retransmitted 0): RTO stays 300 ms.
    assert_eq!(s.next_deadline(), ms(t) + ms(300));

    // Duplicate ACKs for 12, 13, 14 (sent during recovery, arriving after the
    // retransmitted 0): each delivers 1, pipe stays 4 → one new segment each.
    // E12: prr_delivered 10, pipe = 11 − (1 + 7) + 1 = 4: min(1, max(10 − 6, 1)) = 1.
    assert_eq!(dup(&mut s, &mut t, 5), [new(16)]);
    assert_eq!(dup(&mut s, &mut t, 5), [new(17)]);
    assert_eq!(dup(&mut s, &mut t, 5), [new(18)]);

    // Full ACK: the retransmitted 5 arrives, ACK = seg(15) ≥ recover = seg(12). Recovery
    // ends, cwnd = ssthresh = 5 (RFC 6582 §3.2 step 6 option 2, Linux). The ACK delivers
    // max(10 − 9, 1) = 1 segment (the other 9 were duplicate-ACKed), so congestion
    // avoidance's cwnd_cnt reaches 1 < 5 and cwnd stays 5. Pipe = 4 (15..18) → one new.
    t += 100;
    let out = recv(&mut s, ms(t), &ack(seg(15)));
    assert_eq!(s.cc().state(), CaState::Open);
    assert_eq!(s.cwnd_bytes(), 5_000);
    assert_eq!(s.ssthresh_bytes(), 5_000);
    assert_eq!(sent(&out), [new(19)]);
    assert_eq!(s.bytes_in_flight(), 5_000);
}

// =====================================================================================
// 7. Retransmission timeout
// =====================================================================================

#[test]
fn test_established_rto_fires_at_last_ack_plus_rto() {
    let (mut s, _) = established_sender(cfg());
    // ACK of segment 0 at 200 ms: Karn sample 200 − 100 = 100 ms (segment 0, sent once at
    // 100 ms). RTTVAR = 3/4·50 + 1/4·0 = 37.5 ms, SRTT = 100 ms, RTO = 100 + 150 = 250 ms.
    // The timer restarts (RFC 6298 §5.3): 200 + 250 = 450 ms.
    let out = recv(&mut s, ms(200), &ack(seg(1)));
    assert_eq!(sent(&out), news(10..12));
    assert_eq!(s.rtt().rto(), ms(250));
    assert_eq!(s.next_deadline(), ms(450));
    assert!(timer(&mut s, ms(450) - SimTime(1)).is_empty());
    // Expiry: retransmit the earliest unacknowledged segment, 1 (RFC 6298 §5.4).
    let out = timer(&mut s, ms(450));
    assert_eq!(sent(&out), [rtx(1)]);
    assert_eq!(s.stats.rtos, 1);
    assert_eq!(s.log.rto_t_ns, [ms(450).ns()]);
    // cwnd = loss window = 1 (pipe 0 + 1, Linux tcp_enter_loss); NewReno ssthresh =
    // cwnd/2 = 11/2 = 5.
    assert_eq!(s.cwnd_bytes(), 1_000);
    assert_eq!(s.ssthresh_bytes(), 5_000);
    assert_eq!(s.cc().state(), CaState::Loss);
    // Backoff (RFC 6298 §5.5): RTO 500 ms, timer at 950 ms.
    assert_eq!(s.rtt().rto(), ms(500));
    assert_eq!(s.next_deadline(), ms(950));
    // No ACK: the second expiry doubles again to 1 s and retransmits 1 again; ssthresh is
    // not cut a second time in the same episode (Linux tcp_enter_loss).
    let out = timer(&mut s, ms(950));
    assert_eq!(sent(&out), [rtx(1)]);
    assert_eq!(s.rtt().rto(), ms(1000));
    assert_eq!(s.next_deadline(), ms(1950));
    assert_eq!((s.cwnd_bytes(), s.ssthresh_bytes()), (1_000, 5_000));
    assert_eq!(s.stats.rtos, 2);
}

#[test]
fn test_loss_go_back_n_skips_sacked_segments_and_karn_forbids_sample() {
    let (mut s, _) = established_sender(cfg());
    // 5 and 6 SACKed (2 segments: not enough for IsLost), pipe 8 → new 10, 11.
    let out = recv(&mut s, ms(200), &ack_with_sack(seg(0), &[(seg(5), seg(7))]));
    assert_eq!(sent(&out), news(10..12));
    // No new data ACKed: the timer keeps its start at 100 ms → 400 ms.
    assert_eq!(s.next_deadline(), ms(400));
    // RTO: every segment not SACKed is lost (Linux tcp_enter_loss); pipe 0, cwnd 1.
    let out = timer(&mut s, ms(400));
    assert_eq!(sent(&out), [rtx(0)]);
    assert_eq!(s.bytes_in_flight(), 1_000);
    assert_eq!(s.rtt().rto(), ms(600));
    let samples = s.log.rtt.us.len();
    // ACK of the retransmitted 0: Karn's rule, no RTT sample without timestamps, and the
    // backoff stays (RFC 6298 §5.7: only a new sample clears it; Linux likewise).
    // Slow start in Loss: cwnd 1 → 2 → retransmit 1, 2. Timer: 500 + 600 ms.
    let out = recv(&mut s, ms(500), &ack_with_sack(seg(1), &[(seg(5), seg(7))]));
    assert_eq!(sent(&out), [rtx(1), rtx(2)]);
    assert_eq!(s.log.rtt.us.len(), samples);
    assert_eq!(s.rtt().backoff_count(), 1);
    assert_eq!(s.next_deadline(), ms(1100));
    assert_eq!(s.cwnd_bytes(), 2_000);
    // ACK of 1 and 2: cwnd 4 → 3, 4, then 7, 8: 5 and 6 were SACKed and are skipped.
    let out = recv(&mut s, ms(600), &ack_with_sack(seg(3), &[(seg(5), seg(7))]));
    assert_eq!(sent(&out), [rtx(3), rtx(4), rtx(7), rtx(8)]);
    assert_eq!(s.log.rtt.us.len(), samples);
}

#[test]
fn test_loss_timestamps_give_rtt_sample_for_retransmission() {
    // With timestamps the ACK of a retransmission echoes the retransmission's TSval, so
    // it is a valid sample (RFC 6298 §3, RFC 7323 §4).
    let c = TcpConfig {
        timestamps: true,
        ..cfg()
    };
    let (mut s, _) = established_sender(c);
    let out = timer(&mut s, ms(400));
    // The retransmission carries TSval 400 ms = 400_000 µs ticks, TSecr 7 (SYN-ACK).
    assert_eq!(out[0].timestamps, Some((400_000, 7)));
    assert_eq!(s.rtt().rto(), ms(600));
    // ACK at 500 ms echoing 400_000: R = 100 ms. RTTVAR = 3/4·50 + 1/4·0 = 37.5 ms,
    // SRTT = 100 ms: RTO = 250 ms, backoff cleared; timer 500 + 250 = 750 ms.
    recv(&mut s, ms(500), &ack_ts(seg(1), 9, 400_000));
    assert_eq!(s.rtt().latest(), ms(100));
    assert_eq!(s.rtt().backoff_count(), 0);
    assert_eq!(s.rtt().rto(), ms(250));
    assert_eq!(s.next_deadline(), ms(750));
}

#[test]
fn test_recovery_fast_retransmit_restarts_rto_timer() {
    // Initial window sent at 100 ms → timer at 400 ms. Duplicate ACKs do not restart it;
    // retransmitting the head does (Linux tcp_xmit_retransmit_queue): 230 + 300 ms.
    let (mut s, _) = established_sender(cfg());
    recv(&mut s, ms(200), &ack_with_sack(seg(0), &[(seg(1), seg(2))]));
    recv(&mut s, ms(210), &ack_with_sack(seg(0), &[(seg(1), seg(3))]));
    assert_eq!(s.next_deadline(), ms(400));
    let out = recv(&mut s, ms(230), &ack_with_sack(seg(0), &[(seg(1), seg(4))]));
    assert_eq!(sent(&out), [rtx(0)]);
    assert_eq!(s.next_deadline(), ms(530));
}

#[test]
fn test_recovery_karn_no_sample_from_ack_of_retransmission() {
    // Without timestamps, an ACK that covers a retransmitted segment gives no sample
    // (Karn; Linux drops the sample when FLAG_RETRANS_DATA_ACKED), even though it also
    // covers segments sent once: those arrived long before and were waiting for the
    // hole, so now − their send time would overstate the RTT. Likewise segments SACKed
    // earlier are not newly acknowledged.
    for sack in [true, false] {
        let c = TcpConfig { sack, ..cfg() };
        let (mut s, _) = established_sender(c);
        for (k, t) in [(1, 200), (2, 201), (3, 202)] {
            let h = if sack {
                ack_with_sack(seg(0), &[(seg(1), seg(1 + k))])
            } else {
                ack(seg(0))
            };
            recv(&mut s, ms(t), &h);
        }
        assert_eq!(s.log.rtt.us, [100_000], "only the handshake sample");
        // 100 ms after the fast retransmit the ACK covers 0..3 (0 retransmitted, 1..3
        // sent once at 100 ms and SACKed or duplicate-ACKed by 202 ms).
        recv(&mut s, ms(302), &ack(seg(4)));
        assert_eq!(s.log.rtt.us, [100_000], "sack = {sack}");
    }
}

// =====================================================================================
// 8. Timestamps
// =====================================================================================

#[test]
fn test_established_rtt_sample_is_now_minus_tsecr() {
    let c = TcpConfig {
        timestamps: true,
        ..cfg()
    };
    let (mut s, out) = established_sender(c);
    // Data at 100 ms: TSval 100_000 ticks; TSecr = the SYN-ACK's TSval, 7.
    assert!(out.iter().all(|h| h.timestamps == Some((100_000, 7))));
    // ACK at 250 ms echoing 100_000: R = 250 − 100 = 150 ms (RFC 7323 §4.1).
    // RTTVAR = 3/4·50 + 1/4·|100 − 150| = 50 ms; SRTT = 7/8·100 + 1/8·150 = 106.25 ms.
    let out = recv(&mut s, ms(250), &ack_ts(seg(1), 900, 100_000));
    assert_eq!(s.rtt().latest(), ms(150));
    assert_eq!(s.rtt().srtt(), Some(us(106_250)));
    assert_eq!(s.rtt().rttvar(), ms(50));
    // The new segments echo the ACK's TSval (RFC 7323 §3.2).
    assert!(out.iter().all(|h| h.timestamps == Some((250_000, 900))));
    // An ACK that does not advance SND.UNA gives no sample (RFC 7323 §4.1, RTTM rule).
    let n = s.log.rtt.us.len();
    recv(
        &mut s,
        ms(260),
        &TcpHeader {
            timestamps: Some((910, 100_000)),
            ..ack_with_sack(seg(1), &[(seg(2), seg(3))])
        },
    );
    assert_eq!(s.log.rtt.us.len(), n);
}

#[test]
fn test_established_receiver_echoes_tsval_per_last_ack_sent() {
    let c = TcpConfig {
        timestamps: true,
        ..cfg()
    };
    let (mut r, sa) = established_receiver(c);
    // The SYN-ACK echoes the SYN's TSval (0) and carries the receiver's clock.
    assert_eq!(sa.timestamps, Some((0, 0)));
    // Segment 0 (SEG.SEQ 1 ≤ Last.ACK.sent 1): TS.Recent = 100, echoed.
    let (_, out) = deliver(&mut r, ms(10), &data_ts(0, 100));
    assert_eq!(out[0].timestamps, Some((10_000, 100)));
    // Segment 2 arrives out of order: SEG.SEQ 2001 > Last.ACK.sent 1001, so TS.Recent
    // keeps 100 (RFC 7323 §4.3): the echo measures the RTT up to the hole.
    let (_, out) = deliver(&mut r, ms(20), &data_ts(2, 300));
    assert_eq!(out[0].timestamps, Some((20_000, 100)));
    // Segment 1 fills the hole (SEG.SEQ 1001 ≤ 1001): TS.Recent = 400.
    let (_, out) = deliver(&mut r, ms(30), &data_ts(1, 400));
    assert_eq!(out[0].timestamps, Some((30_000, 400)));
    assert_eq!(out[0].ack, seg(3));
}

#[test]
fn test_established_receiver_delayed_ack_echoes_earliest_unacked_tsval() {
    // RFC 7323 §4.3: with delayed ACKs the echo is the TSval of the earliest segment not
    // yet acknowledged. Segment 0 (TSval 100) sets TS.Recent; segment 1 (SEG.SEQ 1001 >
    // Last.ACK.sent 1) does not, so the ACK of both echoes 100.
    let c = TcpConfig {
        timestamps: true,
        delayed_ack: true,
        ..cfg()
    };
    let (mut r, _) = established_receiver(c);
    assert!(deliver(&mut r, ms(10), &data_ts(0, 100)).1.is_empty());
    let (_, out) = deliver(&mut r, ms(11), &data_ts(1, 200));
    assert_eq!(out[0].timestamps, Some((11_000, 100)));
    assert_eq!(out[0].ack, seg(2));
}

// =====================================================================================
// 9. Receiver
// =====================================================================================

#[test]
fn test_listen_syn_gets_syn_ack_with_options() {
    let (r, sa) = established_receiver(cfg());
    assert!(sa.flags.syn && sa.flags.ack);
    assert_eq!((sa.seq, sa.ack), (0, 1));
    // 64 MiB buffer: shift 11 (see the SYN test); the SYN-ACK window is unscaled,
    // min(2^26, 65535).
    assert_eq!(sa.window_field, 65_535);
    assert_eq!(
        sa.syn_options,
        Some(SynOptions {
            mss: 1000,
            wscale: Some(11),
            sack_permitted: true,
        })
    );
    assert_eq!(sa.timestamps, None);
    assert_eq!(r.delivered_bytes(), 0);
}

#[test]
fn test_established_receiver_delivers_in_order_segments() {
    let (mut r, _) = established_receiver(cfg());
    for k in 0..3 {
        let (n, out) = deliver(&mut r, ms(10 + k), &data(k));
        // Each in-order segment hands its 1000 bytes to the application and, without
        // delayed ACKs, is acknowledged at once with ACK = its end.
        assert_eq!(n, 1000);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].ack, seg(k + 1));
        assert_eq!(out[0].sack_len, 0);
        // Window: 64 MiB, nothing out of order: 2^26 >> 11 = 32768.
        assert_eq!(out[0].window_field, 32_768);
    }
    assert_eq!(r.delivered_bytes(), 3000);
    assert_eq!(r.stats.segments, 3);
    assert_eq!(r.stats.acks_sent, 3);
}

#[test]
fn test_established_receiver_buffers_out_of_order_until_hole_filled() {
    let (mut r, _) = established_receiver(cfg());
    assert_eq!(deliver(&mut r, ms(10), &data(0)).0, 1000);
    // 2 and 3 above the hole at 1: nothing delivered, held out of order, immediate
    // duplicate ACKs (ACK 1001) SACKing the block.
    let (n, out) = deliver(&mut r, ms(11), &data(2));
    assert_eq!((n, out[0].ack), (0, seg(1)));
    assert_eq!(blocks(&out[0]), [(seg(2), seg(3))]);
    let (n, out) = deliver(&mut r, ms(12), &data(3));
    assert_eq!((n, out[0].ack), (0, seg(1)));
    assert_eq!(blocks(&out[0]), [(seg(2), seg(4))]);
    assert_eq!(r.ooo_bytes(), 2000);
    assert_eq!(r.stats.out_of_order, 2);
    // 1 fills the hole: 1, 2, 3 are delivered together (3000 B), ACK 4001, no SACK.
    let (n, out) = deliver(&mut r, ms(13), &data(1));
    assert_eq!((n, out[0].ack), (3000, seg(4)));
    assert_eq!(out[0].sack_len, 0);
    assert_eq!(r.ooo_bytes(), 0);
    assert_eq!(r.delivered_bytes(), 4000);
}

#[test]
fn test_established_receiver_sack_blocks_most_recent_first() {
    let (mut r, _) = established_receiver(cfg());
    deliver(&mut r, ms(10), &data(0));
    deliver(&mut r, ms(11), &data(2));
    deliver(&mut r, ms(12), &data(4));
    // RFC 2018 §4: the first block holds the segment that triggered the ACK, then the
    // most recently reported other blocks.
    let (_, out) = deliver(&mut r, ms(13), &data(6));
    assert_eq!(
        blocks(&out[0]),
        [(seg(6), seg(7)), (seg(4), seg(5)), (seg(2), seg(3))]
    );
    // 3 joins 2 and 4 into [2, 5): that block comes first, 6 after it; the old blocks for
    // 2 and 4 alone are subsets and are not repeated.
    let (_, out) = deliver(&mut r, ms(14), &data(3));
    assert_eq!(blocks(&out[0]), [(seg(2), seg(5)), (seg(6), seg(7))]);
    // 1 fills the first hole: ACK 5001 and only the block above the remaining hole.
    let (n, out) = deliver(&mut r, ms(15), &data(1));
    assert_eq!(n, 4000);
    assert_eq!(out[0].ack, seg(5));
    assert_eq!(blocks(&out[0]), [(seg(6), seg(7))]);
}

#[test]
fn test_established_receiver_sack_block_limit_with_and_without_timestamps() {
    // 40 bytes of options: 4 SACK blocks (2 + 4·8 = 34), or 3 beside timestamps
    // (10 + 2 + 3·8 = 36) (RFC 2018 §3).
    for (ts, limit) in [(true, 3), (false, 4)] {
        let c = TcpConfig {
            timestamps: ts,
            ..cfg()
        };
        let (mut r, _) = established_receiver(c);
        let mut last = vec![];
        for k in [2, 4, 6, 8, 10] {
            let h = if ts { data_ts(k, 1) } else { data(k) };
            last = deliver(&mut r, ms(k), &h).1;
        }
        let expect: Vec<(u64, u64)> = [10, 8, 6, 4]
            .iter()
            .take(limit)
            .map(|&k| (seg(k), seg(k + 1)))
            .collect();
        assert_eq!(blocks(&last[0]), expect, "timestamps = {ts}");
        assert!(last[0].options_bytes() <= 40);
    }
}

#[test]
fn test_established_receiver_delayed_ack_every_second_full_segment() {
    let c = TcpConfig {
        delayed_ack: true,
        ..cfg()
    };
    let (mut r, _) = established_receiver(c);
    // First full segment: held, timer 10 + 40 ms.
    let (n, out) = deliver(&mut r, ms(10), &data(0));
    assert_eq!((n, out.len()), (1000, 0));
    assert_eq!(r.next_deadline(), ms(50));
    // Second full segment: ACK now (RFC 5681 §4.2), timer cancelled.
    let (_, out) = deliver(&mut r, ms(20), &data(1));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, seg(2));
    assert_eq!(r.next_deadline(), SimTime::NEVER);
}

#[test]
fn test_established_receiver_delayed_ack_timer() {
    let c = TcpConfig {
        delayed_ack: true,
        ..cfg()
    };
    let (mut r, _) = established_receiver(c);
    assert!(deliver(&mut r, ms(30), &data(0)).1.is_empty());
    // delack_timeout 40 ms: nothing at 69.999… ms, the ACK at 70 ms.
    let mut out = vec![];
    r.on_timer(ms(70) - SimTime(1), &mut out);
    assert!(out.is_empty());
    r.on_timer(ms(70), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, seg(1));
    assert_eq!(r.next_deadline(), SimTime::NEVER);
}

#[test]
fn test_established_receiver_immediate_ack_for_out_of_order_and_hole_fill() {
    // With delayed ACKs on, out-of-order segments and segments that fill a hole are
    // acknowledged at once (RFC 5681 §4.2).
    let c = TcpConfig {
        delayed_ack: true,
        ..cfg()
    };
    let (mut r, _) = established_receiver(c);
    let (_, out) = deliver(&mut r, ms(10), &data(1));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, seg(0));
    let (n, out) = deliver(&mut r, ms(11), &data(0));
    assert_eq!(n, 2000);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, seg(2));
    // A duplicate is acknowledged at once too.
    let (_, out) = deliver(&mut r, ms(12), &data(0));
    assert_eq!(out.len(), 1);
}

#[test]
fn test_established_receiver_counts_duplicates_and_spurious_retransmissions() {
    let (mut r, _) = established_receiver(cfg());
    deliver(&mut r, ms(10), &data(0));
    deliver(&mut r, ms(11), &data(1));
    deliver(&mut r, ms(12), &data(3));
    // A retransmission of data already delivered: duplicate and spurious; still ACKed.
    let (n, out) = deliver(&mut r, ms(13), &data_rtx(0));
    assert_eq!((n, out.len(), out[0].ack), (0, 1, seg(2)));
    // An original transmission duplicated by the network: duplicate, not spurious.
    deliver(&mut r, ms(14), &data(1));
    // A retransmission of data held out of order: duplicate and spurious.
    deliver(&mut r, ms(15), &data_rtx(3));
    assert_eq!(r.stats.duplicates, 3);
    assert_eq!(r.stats.spurious_retransmits, 2);
    // A retransmission that fills the hole is needed: not counted.
    let (n, _) = deliver(&mut r, ms(16), &data_rtx(2));
    assert_eq!(n, 2000);
    assert_eq!((r.stats.duplicates, r.stats.spurious_retransmits), (3, 2));
}

#[test]
fn test_established_receiver_window_excludes_out_of_order_data() {
    // 100 000 B buffer: shift 1 (100 000 >> 1 = 50 000 ≤ 65 535).
    let c = TcpConfig {
        rcv_buf: 100_000,
        ..cfg()
    };
    let (mut r, sa) = established_receiver(c);
    assert_eq!(sa.window_field, 65_535);
    // Segment 1 out of order: free = 100 000 − 1000 = 99 000 B → field 49 500. (The
    // SYN-ACK's right edge, 1 + 65 535, is below 1 + 99 000: no constraint.)
    let (_, out) = deliver(&mut r, ms(10), &data(1));
    assert_eq!(out[0].window_field, 49_500);
    // Segment 0 fills the hole: all read by the application, 100 000 B → 50 000.
    let (_, out) = deliver(&mut r, ms(11), &data(0));
    assert_eq!(out[0].window_field, 50_000);
}

#[test]
fn test_established_receiver_scaled_window_never_moves_right_edge_left() {
    // 1 MiB buffer: shift 5 (2^20 >> 5 = 32768), so the window moves in 32-byte units.
    let c = TcpConfig {
        rcv_buf: 1 << 20,
        ..cfg()
    };
    let (mut r, _) = established_receiver(c);
    let edge = |h: &TcpHeader| h.ack + ((h.window_field as u64) << 5);
    // Segment 0: window 2^20 = 1 048 576 B (field 32768): right edge 1001 + 1 048 576
    // = 1 049 577.
    let (_, out) = deliver(&mut r, ms(10), &data(0));
    assert_eq!(edge(&out[0]), 1_049_577);
    // Segment 3 out of order: free = 1 047 576 B, but the edge may not recede: field
    // stays 32768, edge 1 049 577.
    let (_, out) = deliver(&mut r, ms(11), &data(3));
    assert_eq!(edge(&out[0]), 1_049_577);
    // Segment 1: RCV.NXT 2001, segment 3 still held (free 1 047 576 B). Keeping the edge
    // needs 1 049 577 − 2001 = 1 047 576 B = 32 736.75 units: rounded *up* to 32 737
    // (Linux tcp_select_window aligns the current window up), edge 2001 + 1 047 584 =
    // 1 049 585 ≥ 1 049 577. Rounding down would pull it back to 1 049 553.
    let (_, out) = deliver(&mut r, ms(12), &data(1));
    assert_eq!(out[0].window_field, 32_737);
    assert!(edge(&out[0]) >= 1_049_577);
}

#[test]
fn test_syn_received_syn_ack_window_is_honoured() {
    // 20 000 B buffer, shift 0: the SYN-ACK offers 20 000 B, right edge 1 + 20 000.
    let c = TcpConfig {
        rcv_buf: 20_000,
        ..cfg()
    };
    let (mut r, sa) = established_receiver(c);
    assert_eq!(sa.window_field, 20_000);
    // Segment 1 out of order: the free buffer is 19 000 B, but advertising it would move
    // the right edge from 20 001 back to 19 001 (RFC 9293 §3.8.6: do not shrink).
    let (_, out) = deliver(&mut r, ms(10), &data(1));
    assert_eq!(out[0].window_field, 20_000);
    // The sender may use the SYN-ACK's window: segment 19 (19 001..20 001) is inside it
    // and must be accepted.
    let (_, out) = deliver(&mut r, ms(11), &data(19));
    assert_eq!(r.stats.beyond_window, 0);
    assert_eq!(blocks(&out[0]), [(seg(19), seg(20)), (seg(1), seg(2))]);
}

#[test]
fn test_established_receiver_drops_segment_beyond_window() {
    // 4000 B buffer: window [1, 4001). Segment 4 starts at 4001, outside: dropped,
    // counted, and answered with an ACK (RFC 9293 §3.10.7.4). Segment 3 is inside.
    let c = TcpConfig {
        rcv_buf: 4000,
        ..cfg()
    };
    let (mut r, _) = established_receiver(c);
    let (n, out) = deliver(&mut r, ms(10), &data(4));
    assert_eq!((n, out.len(), out[0].ack), (0, 1, seg(0)));
    assert_eq!(r.stats.beyond_window, 1);
    assert_eq!(r.ooo_bytes(), 0);
    deliver(&mut r, ms(11), &data(3));
    assert_eq!(r.ooo_bytes(), 1000);
}

// =====================================================================================
// 10. Pacing
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

// =====================================================================================
// 11. Slow start after idle
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
// 12. Application-limited sending
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
fn test_ts_ticks_are_microseconds() {
    // The timestamp clock ticks in µs and wraps at 2^32.
    assert_eq!(ts_ticks(ms(1)), 1000);
    assert_eq!(ts_ticks(us((1 << 32) + 5)), 5);
}

// ----- handshake losses, silly-window avoidance, stopping -----

#[test]
fn test_syn_sent_lost_syns_give_a_3s_rto_and_one_segment_window() {
    // Two SYN timeouts (at 1 s and 3 s), SYN-ACK for the third SYN at 7.1 s. Without
    // timestamps Karn forbids a sample from a retransmitted SYN, so data starts with the
    // RFC 6298 §5.7 fallback RTO of 3 s (not the backed-off 4 s), and — more than one SYN
    // retransmission, as Linux's tcp_init_transfer counts — with cwnd = 1 segment.
    let mut s = TcpSender::new(cfg(), false, SimTime::ZERO);
    let mut out = vec![];
    s.set_app_end(SimTime::ZERO, BIG, &mut out);
    s.connect(SimTime::ZERO, &mut out);
    timer(&mut s, ms(1000));
    timer(&mut s, ms(3000));
    let mut out = vec![];
    s.on_segment(ms(7100), &default_syn_ack(&cfg()), &mut out);
    assert_eq!(s.state(), SenderState::Established);
    assert_eq!(s.rtt().srtt(), None);
    assert_eq!(s.rtt().rto(), ms(3000));
    assert_eq!(sent(&out), news(0..1));
    assert_eq!(s.next_deadline(), ms(7100 + 3000));
}

#[test]
fn test_syn_sent_one_lost_syn_keeps_the_initial_window() {
    // One SYN retransmission: Linux keeps the initial window (it cuts only after more than
    // one), and the RTO still falls back to 3 s for lack of a sample.
    let mut s = TcpSender::new(cfg(), false, SimTime::ZERO);
    let mut out = vec![];
    s.set_app_end(SimTime::ZERO, BIG, &mut out);
    s.connect(SimTime::ZERO, &mut out);
    timer(&mut s, ms(1000));
    let mut out = vec![];
    s.on_segment(ms(1100), &default_syn_ack(&cfg()), &mut out);
    assert_eq!(sent(&out), news(0..10));
    assert_eq!(s.rtt().rto(), ms(3000));
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
