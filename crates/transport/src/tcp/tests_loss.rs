//! Loss recovery's RFC core, with the Linux refinements of [`super::tests_recovery`] off:
//! duplicate ACKs (limited transmit, fast retransmit), SACK-based recovery shaped by PRR
//! (RFC 6675, RFC 6937), NewReno recovery without SACK (RFC 6582), and the retransmission
//! timeout with its backoff, go-back-N and Karn's rule (RFC 6298).
//!
//! Fixtures and conventions are those of [`super::tests`] (MSS 1000 B, SYN-ACK at
//! 100 ms: SRTT 100 ms, RTO 300 ms; NewReno arithmetic). Every expected value is worked
//! out in the comment beside it.

use super::sender::TcpSender;
use super::tests::*;
use super::TcpConfig;
use crate::cc::CaState;
use mmtsim_engine::SimTime;

// =====================================================================================
// Duplicate ACKs: limited transmit and fast retransmit
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
// SACK-based recovery with PRR
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
    // A1, A2 (SACK 1, 1–2): limited transmit of 10 and 11 (see the duplicate ACKs above).
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
// NewReno recovery without SACK (RFC 6582)
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
// Retransmission timeout
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
