//! The receiver: its SYN-ACK, in-order delivery and the out-of-order queue, SACK blocks
//! (order and how many fit), delayed and immediate ACKs, the timestamps it echoes,
//! duplicate and spurious-retransmission counts, and the window it advertises (free
//! buffer, scaling, never moving the right edge left, dropping data beyond it).
//!
//! Fixtures and conventions are those of [`super::tests`] (MSS 1000 B, timestamps off,
//! SACK on, 64 MiB buffers). Every expected value is worked out in the comment beside it.

use super::tests::*;
use super::TcpConfig;
use mmtsim_engine::SimTime;
use mmtsim_net::packet::{SynOptions, TcpHeader};

// =====================================================================================
// Handshake and in-order delivery
// =====================================================================================

#[test]
fn test_listen_syn_gets_syn_ack_with_options() {
    let (r, sa) = established_receiver(cfg());
    assert!(sa.flags.syn && sa.flags.ack);
    assert_eq!((sa.seq, sa.ack), (0, 1));
    // 64 MiB buffer: shift 11 (see the SYN test in `tests_handshake`); the SYN-ACK
    // window is unscaled, min(2^26, 65535).
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

// =====================================================================================
// Out-of-order data and SACK blocks
// =====================================================================================

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

// =====================================================================================
// Delayed ACKs
// =====================================================================================

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

// =====================================================================================
// Timestamps
// =====================================================================================

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
// Advertised window
// =====================================================================================

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
