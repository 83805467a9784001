//! Zero windows: a receiver whose application reads only when told to
//! ([`ReadMode::Explicit`]), its silly-window avoidance, window updates and answers to
//! zero-window probes, driven by hand.
//!
//! Fixtures and conventions are those of [`super::tests`] (MSS 1000 B, timestamps off,
//! NewReno arithmetic, RFC 6298 RTO, the RFC core of loss recovery). Every expected value
//! is worked out in the comment beside it from the definitions: [RFC9293 §3.8.6], Linux
//! `__tcp_select_window`, `tcp_cleanup_rbuf`, `tcp_oow_rate_limited` ([LINUX-RCVWND]).

use super::rcv_window::ReadMode;
use super::receiver::TcpReceiver;
use super::tests::*;
use super::TcpConfig;
use mmtsim_engine::SimTime;
use mmtsim_net::packet::TcpHeader;

/// A receive buffer of ten segments: no window scaling (10 000 ≤ 65 535).
const BUF: u64 = 10 * MSS64;

fn small_buffer() -> TcpConfig {
    TcpConfig {
        rcv_buf: BUF,
        ..cfg()
    }
}

/// The sender's zero-window probe when SND.UNA = `una`: zero-length, SEG.SEQ = una − 1.
fn probe(una: u64) -> TcpHeader {
    TcpHeader {
        seq: una - 1,
        payload_bytes: 0,
        ..data(0)
    }
}

/// A receiver with a ten-segment buffer whose application reads only when told to.
fn explicit_receiver() -> TcpReceiver {
    let (mut r, sa) = established_receiver(small_buffer());
    // The SYN-ACK offers the whole buffer, unscaled: 10 000 B.
    assert_eq!(sa.window_field, 10_000);
    assert_eq!(sa.syn_options.unwrap().wscale, Some(0));
    r.set_read_mode(ReadMode::Explicit);
    r
}

/// Delivers segments `ks` at `now`; returns the window field of each ACK.
fn windows(r: &mut TcpReceiver, now: SimTime, ks: std::ops::Range<u64>) -> Vec<u16> {
    ks.map(|k| {
        let (_, out) = deliver(r, now, &data(k));
        assert_eq!(
            out.len(),
            1,
            "one immediate ACK per segment (delayed ACKs off)"
        );
        out[0].window_field
    })
    .collect()
}

// =====================================================================================
// 1. The receiver
// =====================================================================================

#[test]
fn a_reader_that_never_reads_closes_the_window_after_ten_segments() {
    let mut r = explicit_receiver();
    // Segment k leaves 10 000 − 1000·(k + 1) bytes free. While at least half the buffer
    // (5000) is free the last offer exceeds the free space, so the window is the free
    // space rounded down to whole MSS; below half, the free space is still ≥ one MSS and
    // ≥ 1/16 of the buffer (625) down to 1000, then 0 free is a zero window. The right
    // edge stays at 1 + 10 000 throughout (never moved left, never moved right).
    assert_eq!(
        windows(&mut r, ms(10), 0..10),
        [9_000, 8_000, 7_000, 6_000, 5_000, 4_000, 3_000, 2_000, 1_000, 0]
    );
    assert_eq!((r.unread_bytes(), r.read_bytes()), (BUF, 0));
    assert_eq!(r.delivered_bytes(), BUF);
    assert_eq!(r.stats.zero_window_acks, 1);
    // Segment 10 starts at the right edge: new data into a zero window is dropped and
    // ACKed with the window (Linux tcp_data_queue), nothing is buffered.
    let (n, out) = deliver(&mut r, ms(11), &data(10));
    assert_eq!((n, out.len()), (0, 1));
    assert_eq!((out[0].ack, out[0].window_field), (seg(10), 0));
    assert_eq!((r.stats.beyond_window, r.ooo_bytes()), (1, 0));
    assert_eq!(r.stats.zero_window_acks, 2);
}

#[test]
fn the_default_reader_reads_at_once_and_its_window_stays_open() {
    // ReadMode::AtOnce (the default): every in-order byte is read on arrival, so the
    // buffer holds nothing and every ACK offers the whole buffer.
    let (mut r, _) = established_receiver(small_buffer());
    assert_eq!(r.read_mode(), ReadMode::AtOnce);
    assert_eq!(windows(&mut r, ms(10), 0..10), [10_000; 10]);
    assert_eq!((r.unread_bytes(), r.read_bytes()), (0, BUF));
    let mut out = vec![];
    assert_eq!(r.app_read(ms(11), 5_000, &mut out), 0);
    assert!(out.is_empty());
    assert_eq!(r.stats.zero_window_acks, 0);
}

#[test]
fn a_zero_window_probe_is_acked_with_the_window_at_most_every_500_ms() {
    let mut r = explicit_receiver();
    windows(&mut r, ms(10), 0..10);
    // The probe: zero-length, SEG.SEQ = SND.UNA − 1 = 10 000, below the last ACK (10 001):
    // old, so it is answered at once with the current window, 0.
    let (_, out) = deliver(&mut r, ms(100), &probe(seg(10)));
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].ack, out[0].window_field), (seg(10), 0));
    // 499 ms later another old zero-length segment is within Linux's 500 ms rate limit
    // (tcp_invalid_ratelimit): no ACK. At 500 ms the limit has passed (elapsed < 500
    // is limited): ACKed.
    assert!(deliver(&mut r, ms(599), &probe(seg(10))).1.is_empty());
    assert_eq!(deliver(&mut r, ms(600), &probe(seg(10))).1.len(), 1);
    assert_eq!((r.stats.probe_acks, r.stats.probe_acks_skipped), (2, 1));
    // A pure ACK at RCV.NXT (not old) asks for nothing.
    let pure = TcpHeader {
        payload_bytes: 0,
        ..data(10)
    };
    assert!(deliver(&mut r, ms(2_000), &pure).1.is_empty());
    // Probes change neither the data nor the window: still 10 000 unread, window 0.
    assert_eq!(r.unread_bytes(), BUF);
    assert_eq!(r.stats.zero_window_acks, 3);
}

#[test]
fn reads_send_a_window_update_only_when_the_window_can_double_and_never_a_silly_one() {
    let mut r = explicit_receiver();
    windows(&mut r, ms(10), 0..10);
    let mut out = vec![];
    // The application reads 600 B: 600 free, below min(buffer/2, MSS) = 1000, so Linux's
    // window is still 0 (free < half the buffer and < one MSS): no update.
    assert_eq!(r.app_read(ms(20), 600, &mut out), 600);
    assert!(out.is_empty());
    // A probe sees the window still closed: the 600 bytes are not advertised.
    assert_eq!(
        deliver(&mut r, ms(30), &probe(seg(10))).1[0].window_field,
        0
    );
    // 400 B more: 1000 free. The window offered is 0 ≤ buffer/2 and 1000 can be offered
    // (unscaled: last offer 0 ≤ 1000 − 1000, so rounddown(1000, 1000)); 1000 ≥ 2·0:
    // window update (Linux tcp_cleanup_rbuf).
    assert_eq!(r.app_read(ms(40), 400, &mut out), 400);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].ack, out[0].window_field), (seg(10), 1_000));
    // 1000 B more (2000 free): offered 1000, 2·1000 ≤ 10 000; the window would be
    // rounddown(2000, 1000) = 2000 (last 1000 ≤ 2000 − 1000) ≥ 2·1000: update.
    out.clear();
    r.app_read(ms(50), 1_000, &mut out);
    assert_eq!(out[0].window_field, 2_000);
    // 500 B more (2500 free): the last offer 2000 is within one MSS below the free space
    // (2000 > 2500 − 1000) and is kept; 2000 < 2·2000: no update.
    out.clear();
    r.app_read(ms(60), 500, &mut out);
    assert!(out.is_empty());
    // 1500 B more (4000 free): 2000 ≤ 4000 − 1000 → 4000 ≥ 2·2000: update.
    r.app_read(ms(70), 1_500, &mut out);
    assert_eq!(out[0].window_field, 4_000);
    assert_eq!(r.stats.window_updates, 3);
    assert_eq!((r.read_bytes(), r.unread_bytes()), (4_000, 6_000));
    // Reading more than is waiting returns what there was.
    out.clear();
    assert_eq!(r.app_read(ms(80), 1_000_000, &mut out), 6_000);
    // Data the offered window admits is accepted: segment 10 in [10 001, 14 001).
    assert_eq!(deliver(&mut r, ms(90), &data(10)).0, MSS64);
    assert_eq!(r.stats.beyond_window, 0);
}

#[test]
fn a_scaled_buffer_reopens_only_when_a_sixteenth_of_it_is_free() {
    // 128 000 B buffer: shift 1 (128 000 >> 1 = 64 000 ≤ 65 535), unit 2 B. The SYN-ACK
    // offers 65 535 (unscaled), right edge 65 536.
    let c = TcpConfig {
        rcv_buf: 128_000,
        ..cfg()
    };
    let (mut r, sa) = established_receiver(c);
    assert_eq!(sa.syn_options.unwrap().wscale, Some(1));
    r.set_read_mode(ReadMode::Explicit);
    // Segment 0: 127 000 free, more than half: the free space aligned up to the unit,
    // 127 000 → field 63 500. Then each segment takes 1000 B from a right edge that stays
    // at 1001 + 127 000 = 128 001 (below half the buffer Linux would offer 0 once less
    // than 1/16, 8000 B, is free, but the offered edge is never moved left), so the
    // window is the free space down to 0 after 128 segments.
    let w = windows(&mut r, ms(10), 0..128);
    assert_eq!((w[0], w[120], w[127]), (63_500, 3_500, 0));
    let mut out = vec![];
    // 7000 B read: more than an MSS, but below 1/16 of the buffer (8000): still 0 —
    // no update, and a probe is told 0.
    r.app_read(ms(20), 7_000, &mut out);
    assert!(out.is_empty());
    assert_eq!(
        deliver(&mut r, ms(30), &probe(seg(128))).1[0].window_field,
        0
    );
    // 1000 B more: 8000 free, rounded down to the unit (8000): update, field 4000.
    r.app_read(ms(40), 1_000, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].window_field, 4_000);
}
