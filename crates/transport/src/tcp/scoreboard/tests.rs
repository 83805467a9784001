//! Scoreboard unit and property tests.

use super::*;
use crate::tcp::rack::Delivery;
use proptest::prelude::*;

/// A delivery note nobody reads (these tests check the scoreboard's own counters).
fn nn() -> Delivery {
    Delivery::new(SimTime::ZERO, SimTime::NEVER, None, 0)
}

/// RACK state whose most recently sent delivered segment left at `xmit_ms` and ended at
/// `end`, with RTT `rtt_ms`.
fn rack_at(xmit_ms: u64, end: u64, rtt_ms: u64) -> crate::tcp::rack::RackState {
    let mut r = crate::tcp::rack::RackState::new(3);
    r.xmit_time = SimTime::from_ms(xmit_ms);
    r.end_seq = end;
    r.rtt = SimTime::from_ms(rtt_ms);
    r
}

#[test]
fn rack_marks_earlier_sends_lost_after_rtt_plus_window_and_catches_lost_retransmissions() {
    // Segments 1, 101, 201, 301 sent at 0 ms, 401 at 30 ms. 1 is retransmitted at 10 ms;
    // 301 is SACKed. The RACK segment left at 20 ms (RTT 5 ms); now 40 ms.
    let mut sb = board(4, 100);
    sb.push(401, 100, SimTime::from_ms(30), RateStamp::default());
    sb.mark_head_lost();
    let i = sb.next_retransmit().unwrap();
    sb.on_retransmit(i, SimTime::from_ms(10), RateStamp::default());
    sb.apply_sack(&[sack(301, 401)], &mut RateSampler::default(), &mut nn());
    // Window 50 ms: every candidate waits. Retransmission of 1: sent 10 ms, 30 ms ago,
    // 55 − 30 = 25 ms left; 101 and 201: 40 ms ago, 15 ms left. The longest wait: 25 ms.
    let pass = sb.rack_detect_loss(
        &rack_at(20, 301, 5),
        SimTime::from_ms(50),
        SimTime::from_ms(40),
    );
    assert_eq!(
        pass,
        rack::RackPass {
            newly_lost: 0,
            retrans_lost: 0,
            wait: SimTime::from_ms(25)
        }
    );
    // Window 0: the retransmission (10 ms < 20 ms) is lost again and must go once more;
    // 101 and 201 are lost; 301 is SACKed; 401 left after the RACK segment.
    let pass = sb.rack_detect_loss(&rack_at(20, 301, 5), SimTime::ZERO, SimTime::from_ms(40));
    assert_eq!(
        (pass.newly_lost, pass.retrans_lost, pass.wait),
        (3, 1, SimTime::ZERO)
    );
    assert_eq!((sb.lost_out, sb.retrans_out), (3, 0));
    assert_eq!(sb.next_retransmit(), Some(0));
    assert!(!sb.segs[4].lost());
    sb.check_invariants();
    // A second pass finds nothing new and has dropped the stale retransmission entry.
    let pass = sb.rack_detect_loss(&rack_at(20, 301, 5), SimTime::ZERO, SimTime::from_ms(41));
    assert_eq!(pass.newly_lost, 0);
    assert_eq!(sb.rack_tracked_retransmissions(), 0);
}

#[test]
fn a_timeout_with_rack_spares_segments_sent_within_the_last_rack_rtt() {
    // 1..301 sent at 0 ms, 401 at 95 ms; RTO at 100 ms with RACK.rtt 20 ms: 401 left 5 ms
    // ago and may still arrive; the head is marked whatever its age.
    let mut sb = board(4, 100);
    sb.push(401, 100, SimTime::from_ms(95), RateStamp::default());
    assert_eq!(
        sb.mark_lost_on_timeout(SimTime::from_ms(100), SimTime::from_ms(20)),
        4
    );
    assert!(!sb.segs[4].lost());
    assert_eq!(sb.in_flight(), 1);
    sb.check_invariants();
}

#[test]
fn undo_clears_lost_marks_but_keeps_retransmissions_in_flight() {
    let mut sb = board(4, 100);
    sb.mark_all_lost();
    let i = sb.next_retransmit().unwrap();
    sb.on_retransmit(i, SimTime::from_ms(1), RateStamp::default());
    // Four lost, one retransmitted: pipe 4 − 4 + 1 = 1. Undo: three marks cleared, the
    // retransmitted head stays LOST|RETRANS: pipe 4 − 1 + 1 = 4.
    assert_eq!(sb.unmark_lost(), 3);
    assert_eq!((sb.lost_out, sb.retrans_out, sb.in_flight()), (1, 1, 4));
    assert_eq!(sb.next_retransmit(), None);
    sb.check_invariants();
}

fn board(n: u64, len: u32) -> Scoreboard {
    let mut sb = Scoreboard::default();
    for k in 0..n {
        sb.push(1 + k * len as u64, len, SimTime::ZERO, RateStamp::default());
    }
    sb
}

fn sack(a: u64, b: u64) -> SackBlock {
    SackBlock { start: a, end: b }
}

#[test]
fn three_sacked_segments_above_mark_the_hole_lost() {
    // Segments of 100 B at 1, 101, 201, 301, 401. Segment 1 lost; 101..401 SACKed.
    let mut sb = board(5, 100);
    let mut r = RateSampler::default();
    sb.apply_sack(&[sack(101, 301)], &mut r, &mut nn());
    // Two SACKed segments (200 B ≤ (3−1)·100 B): not yet lost.
    assert_eq!(sb.mark_lost_rfc6675(3, 100), 0);
    sb.apply_sack(&[sack(101, 401)], &mut r, &mut nn());
    // Three SACKed segments above seq 1: lost. Pipe = 5 − (3 + 1) + 0 = 1.
    assert_eq!(sb.mark_lost_rfc6675(3, 100), 1);
    assert_eq!(sb.in_flight(), 1);
    assert_eq!(sb.next_retransmit(), Some(0));
    let _ = sb.on_retransmit(0, SimTime::from_ms(1), RateStamp::default());
    // The retransmission is in flight: pipe = 5 − 4 + 1 = 2.
    assert_eq!(sb.in_flight(), 2);
    assert_eq!(sb.next_retransmit(), None);
    sb.check_invariants();
}

#[test]
fn sacked_bytes_rule_counts_partial_segments() {
    // RFC 6675: more than (DupThresh−1)·SMSS bytes SACKed above → lost, even with
    // fewer than DupThresh segments. SMSS 100; two SACKed segments of 150 B = 300 > 200.
    let mut sb = Scoreboard::default();
    sb.push(1, 100, SimTime::ZERO, RateStamp::default());
    sb.push(101, 150, SimTime::ZERO, RateStamp::default());
    sb.push(251, 150, SimTime::ZERO, RateStamp::default());
    sb.apply_sack(&[sack(101, 401)], &mut RateSampler::default(), &mut nn());
    assert_eq!(sb.mark_lost_rfc6675(3, 100), 1);
}

#[test]
fn cumulative_ack_clears_flags_and_counts_karn_samples() {
    let mut sb = board(4, 100);
    let mut r = RateSampler::default();
    sb.mark_head_lost();
    let i = sb.next_retransmit().unwrap();
    sb.on_retransmit(i, SimTime::from_ms(5), RateStamp::default());
    let c = sb.cum_ack(201, &mut r, &mut nn());
    assert_eq!((c.newly_delivered, c.removed), (2, 2));
    // Segment 1 was retransmitted (no Karn sample); segment 101 was not.
    assert_eq!(c.karn_sent_at, Some(SimTime::ZERO));
    assert_eq!((sb.lost_out, sb.retrans_out, sb.packets_out), (0, 0, 2));
    sb.check_invariants();
}

#[test]
fn rto_marks_everything_unsacked_lost_and_forgets_retransmissions() {
    let mut sb = board(4, 100);
    let mut r = RateSampler::default();
    sb.apply_sack(&[sack(201, 301)], &mut r, &mut nn());
    sb.mark_head_lost();
    let i = sb.next_retransmit().unwrap();
    sb.on_retransmit(i, SimTime::from_ms(1), RateStamp::default());
    sb.mark_all_lost();
    assert_eq!((sb.lost_out, sb.retrans_out, sb.sacked_out), (3, 0, 1));
    assert_eq!(sb.in_flight(), 0);
    sb.check_invariants();
}

#[test]
fn reno_dupacks_open_the_pipe_for_limited_transmit() {
    let mut sb = board(10, 100);
    sb.reno_dupack();
    sb.reno_dupack();
    assert_eq!(sb.in_flight(), 8);
}

/// RFC 6675 `IsLost()` over the whole board: every segment not SACKed with at least
/// `dupthresh` SACKed segments, or more than (dupthresh − 1)·mss SACKed bytes, above it.
fn is_lost_everywhere(sb: &mut Scoreboard, dupthresh: u32, mss: u32) -> u32 {
    let mut newly = 0;
    for i in 0..sb.segs.len() {
        let above = sb.segs.iter().skip(i + 1).filter(|s| s.sacked());
        let (n, bytes) = above.fold((0u32, 0u64), |(n, b), s| (n + 1, b + s.len as u64));
        let s = sb.segs[i];
        if !s.sacked()
            && !s.lost()
            && (n >= dupthresh || bytes > (dupthresh as u64 - 1) * mss as u64)
        {
            sb.mark_lost_at(i);
            newly += 1;
        }
    }
    newly
}

proptest! {
    /// Random SACKs, losses, retransmissions and ACKs keep the counters equal to the
    /// flags, and the pipe never exceeds what is outstanding plus retransmissions.
    #[test]
    fn counters_match_flags(ops in proptest::collection::vec((0u8..5, 0u64..20, 0u64..20), 1..60)) {
        let mut sb = board(20, 100);
        let mut r = RateSampler::default();
        let mut una = 1u64;
        for (op, a, b) in ops {
            match op {
                0 => { let (x, y) = (a.min(b), a.max(b)); sb.apply_sack(&[sack(1 + x * 100, 1 + y * 100)], &mut r, &mut nn()); }
                1 => { sb.mark_lost_rfc6675(3, 100); }
                2 => { if let Some(i) = sb.next_retransmit() { sb.on_retransmit(i, SimTime::ZERO, RateStamp::default()); } }
                3 => { let ack = (1 + a * 100).max(una); sb.cum_ack(ack, &mut r, &mut nn()); una = ack; }
                _ => { sb.mark_all_lost(); }
            }
            sb.check_invariants();
            prop_assert!(sb.in_flight() <= sb.packets_out + sb.retrans_out);
        }
    }

    /// The incremental marking equals RFC 6675 `IsLost()` applied to every segment
    /// afresh (the rule written out directly below), under random sends, SACKs,
    /// retransmissions, cumulative ACKs and timeouts.
    #[test]
    fn incremental_marking_equals_the_rule(ops in proptest::collection::vec((0u8..6, 0u64..40, 0u64..40), 1..80)) {
        let mut fast = board(20, 100);
        let mut slow = board(20, 100);
        let mut r = RateSampler::default();
        let mut una = 1u64;
        for (op, a, b) in ops {
            let top = fast.segs.back().map_or(una, |s| s.end());
            for sb in [&mut fast, &mut slow] {
                match op {
                    0 => { let (x, y) = (a.min(b), a.max(b)); sb.apply_sack(&[sack(1 + x * 100, 1 + y * 100)], &mut r, &mut nn()); }
                    1 => { if let Some(i) = sb.next_retransmit() { sb.on_retransmit(i, SimTime::ZERO, RateStamp::default()); } }
                    2 => { let ack = (1 + a * 100).max(una).min(top); sb.cum_ack(ack, &mut r, &mut nn()); }
                    3 => { for k in 0..(a % 5) { sb.push(top + k * 100, 100, SimTime::ZERO, RateStamp::default()); } }
                    4 if a % 4 == 0 => { sb.mark_all_lost(); }
                    _ => {}
                }
            }
            if op == 2 { una = (1 + a * 100).max(una).min(top); }
            let n_fast = fast.mark_lost_rfc6675(3, 100);
            let n_slow = is_lost_everywhere(&mut slow, 3, 100);
            let flags = |sb: &Scoreboard| sb.segs.iter().map(|s| (s.seq, s.flags)).collect::<Vec<_>>();
            prop_assert_eq!(flags(&fast), flags(&slow));
            prop_assert_eq!(n_fast, n_slow);
            fast.check_invariants();
        }
    }
}

proptest! {
    /// SACK marking, with its skip of blocks inside ranges already SACKed, equals the
    /// definition: after each ACK the SACKed segments are those SACKed before plus every
    /// segment wholly inside one of its blocks, and the counts returned are of the newly
    /// marked ones. Blocks are random (unaligned, repeated, overlapping, up to four per
    /// ACK), among cumulative ACKs and timeouts.
    #[test]
    fn sack_marking_equals_the_definition(
        ops in proptest::collection::vec(
            (0u8..4, proptest::collection::vec((0u64..2_000, 0u64..400), 1..5)), 1..60)
    ) {
        let mut sb = board(20, 100);
        let mut r = RateSampler::default();
        let mut una = 1u64;
        for (op, raw) in ops {
            match op {
                0 | 1 => {
                    let blocks: Vec<SackBlock> =
                        raw.iter().map(|&(a, l)| sack(1 + a, 1 + a + l)).collect();
                    let before: Vec<(u64, bool)> =
                        sb.segs.iter().map(|s| (s.seq, s.sacked())).collect();
                    let (mut n, mut b) = (0u32, 0u64);
                    let expected: Vec<(u64, bool)> = sb
                        .segs
                        .iter()
                        .map(|s| {
                            let inside = blocks.iter().any(|k| k.start <= s.seq && s.end() <= k.end);
                            if inside && !s.sacked() {
                                n += 1;
                                b += s.len as u64;
                            }
                            (s.seq, s.sacked() || inside)
                        })
                        .collect();
                    let got = sb.apply_sack(&blocks, &mut r, &mut nn());
                    let after: Vec<(u64, bool)> =
                        sb.segs.iter().map(|s| (s.seq, s.sacked())).collect();
                    prop_assert_eq!(after, expected, "before {:?}", before);
                    prop_assert_eq!(got, (n, b));
                }
                2 => {
                    // Cumulative ACKs fall on segment boundaries.
                    let ack = (1 + raw[0].0 / 100 * 100).max(una).min(2_001);
                    sb.cum_ack(ack, &mut r, &mut nn());
                    una = ack;
                }
                _ => { sb.mark_all_lost(); }
            }
            sb.check_invariants();
        }
    }
}
