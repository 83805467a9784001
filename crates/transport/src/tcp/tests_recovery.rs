//! Linux's loss recovery beyond RFC 6675, driven by hand: F-RTO, Eifel, D-SACK undo,
//! RACK and the tail loss probe, with the fixtures and conventions of [`super::tests`]
//! (MSS 1000 B, SYN-ACK at 100 ms: SRTT 100 ms, RTO 300 ms; NewReno arithmetic).
//!
//! Every expected value is worked out in the comment beside it from the mechanisms'
//! definitions (RFC 5682, RFC 3522, RFC 2883, RFC 8985; Linux `tcp_input.c`).

use super::rack::RACK_LOSS_DETECTION;
use super::tests::*;
use super::{LossRecoveryConfig, TcpConfig};
use crate::cc::CaState;
use mmtsim_engine::SimTime;

/// Linux's defaults without the tail loss probe, which would fire before the RTO these
/// tests wait for.
fn no_tlp() -> LossRecoveryConfig {
    LossRecoveryConfig {
        early_retrans: 0,
        ..LossRecoveryConfig::default()
    }
}

fn with(lr: LossRecoveryConfig, timestamps: bool) -> TcpConfig {
    TcpConfig {
        loss_recovery: lr,
        timestamps,
        ..cfg()
    }
}

/// Initial window 0..9 at 100 ms; ACK of 0 at 200 ms (R = 100 ms: RTO 250 ms, cwnd 11,
/// so 10 and 11 go out); then an outage: the RTO fires at 200 + 250 = 450 ms with
/// cwnd 11, ssthresh ∞ → ssthresh max(11/2, 2) = 5, cwnd 1, and retransmits 1.
fn sender_after_outage_rto(c: TcpConfig) -> super::sender::TcpSender {
    let ts = c.timestamps;
    let (mut s, _) = established_sender(c);
    let a = if ts {
        ack_ts(seg(1), 9, 100_000)
    } else {
        ack(seg(1))
    };
    assert_eq!(sent(&recv(&mut s, ms(200), &a)), news(10..12));
    assert_eq!(s.next_deadline(), ms(450));
    assert_eq!(sent(&timer(&mut s, ms(450))), [rtx(1)]);
    assert_eq!((s.cwnd_bytes(), s.ssthresh_bytes()), (1_000, 5_000));
    assert_eq!(s.cc().state(), CaState::Loss);
    s
}

#[test]
fn frto_declares_an_outage_timeout_spurious_when_original_data_is_acked() {
    let mut s = sender_after_outage_rto(with(no_tlp(), false));
    // 500 ms: the original of 1 (queued behind the outage) is ACKed. It was
    // retransmitted, so it proves nothing; SND.NXT = recovery point, so F-RTO step 2b:
    // the recovery point moves to SND.NXT (12) and new data goes instead of
    // retransmissions. Slow start in Loss: cwnd 1 → 2, nothing in flight (everything
    // marked lost) → 12 and 13.
    assert_eq!(sent(&recv(&mut s, ms(500), &ack(seg(2)))), news(12..14));
    assert_eq!((s.cwnd_bytes(), s.cc().state()), (2_000, CaState::Loss));
    // 501 ms: 2, sent once and below the recovery point, is ACKed: step 3b, the timeout
    // was spurious. Undo (Linux tcp_try_undo_loss): cwnd = max(cwnd, prior_cwnd) =
    // max(2, 11) = 11, ssthresh back to its value before the timeout (∞), Open, lost
    // marks cleared. Then the ACK grows cwnd as usual: slow start 11 → 12; in flight 3..13
    // = 11 segments → one new segment, 14.
    assert_eq!(sent(&recv(&mut s, ms(501), &ack(seg(3)))), [new(14)]);
    assert_eq!(s.cc().state(), CaState::Open);
    assert_eq!((s.cwnd_bytes(), s.ssthresh_bytes()), (12_000, u64::MAX));
    assert_eq!(
        (s.stats.undos, s.stats.loss_undos, s.stats.spurious_rtos),
        (1, 1, 1)
    );
    assert_eq!(s.log.undo_t_ns, [ms(501).ns()]);
}

#[test]
fn frto_keeps_the_reduction_when_the_new_data_reveals_a_hole() {
    let mut s = sender_after_outage_rto(with(no_tlp(), false));
    assert_eq!(sent(&recv(&mut s, ms(500), &ack(seg(2)))), news(12..14));
    // 560 ms: a duplicate ACK SACKing 12 — the new data arrived, 2..11 did not (the queue
    // overflowed during the outage). Step 3a: the loss was real; F-RTO ends, the
    // conventional recovery goes on. In flight: 12 out − 1 SACKed − 10 lost = 1 < cwnd 2,
    // so the first lost segment, 2, is retransmitted.
    let out = recv(
        &mut s,
        ms(560),
        &ack_with_sack(seg(2), &[(seg(12), seg(13))]),
    );
    assert_eq!(sent(&out), [rtx(2)]);
    assert_eq!((s.cwnd_bytes(), s.ssthresh_bytes()), (2_000, 5_000));
    assert_eq!(s.cc().state(), CaState::Loss);
    assert_eq!(s.stats.undos, 0);
}

#[test]
fn eifel_undoes_a_timeout_whose_ack_echoes_the_original() {
    // Timestamps only (F-RTO off). The original of 1 left at 100 ms with TSval 100 000;
    // the retransmission at 450 ms carries 450 000 and starts retrans_stamp.
    let lr = LossRecoveryConfig {
        frto: 0,
        ..no_tlp()
    };
    let mut s = sender_after_outage_rto(with(lr, true));
    // 500 ms: ACK of 1 echoing 100 000 < 450 000: the original arrived (RFC 3522), the
    // timeout was spurious. cwnd max(1, 11) = 11, ssthresh ∞, Open; slow start 11 → 12;
    // in flight 2..11 = 10 → 12 and 13 go out.
    let out = recv(&mut s, ms(500), &ack_ts(seg(2), 10, 100_000));
    assert_eq!(sent(&out), news(12..14));
    assert_eq!((s.cwnd_bytes(), s.ssthresh_bytes()), (12_000, u64::MAX));
    assert_eq!(s.cc().state(), CaState::Open);
    assert_eq!(
        (s.stats.undos, s.stats.loss_undos, s.stats.spurious_rtos),
        (1, 1, 0)
    );

    // The same ACK without undo (the RFC core): Loss, slow start 1 → 2, go-back-N 2, 3.
    let mut s = sender_after_outage_rto(with(LossRecoveryConfig::CLASSIC, true));
    let out = recv(&mut s, ms(500), &ack_ts(seg(2), 10, 100_000));
    assert_eq!(sent(&out), [rtx(2), rtx(3)]);
    assert_eq!((s.cwnd_bytes(), s.ssthresh_bytes()), (2_000, 5_000));
}

#[test]
fn a_real_loss_during_an_outage_is_not_undone() {
    // The original of 1 was lost (the queue overflowed): the ACK echoes the
    // retransmission's TSval 450 000, not earlier than retrans_stamp → no undo; Loss goes
    // on: cwnd 1 → 2, retransmit 2 and 3.
    let lr = LossRecoveryConfig {
        frto: 0,
        ..no_tlp()
    };
    let mut s = sender_after_outage_rto(with(lr, true));
    let out = recv(&mut s, ms(550), &ack_ts(seg(2), 10, 450_000));
    assert_eq!(sent(&out), [rtx(2), rtx(3)]);
    assert_eq!((s.cwnd_bytes(), s.ssthresh_bytes()), (2_000, 5_000));
    assert_eq!(s.cc().state(), CaState::Loss);
    assert_eq!(s.stats.undos, 0);
}

#[test]
fn a_dsacked_fast_retransmission_is_undone() {
    // Four segments (0..3) at 100 ms; 0 is delayed, not lost.
    let c = with(no_tlp(), false);
    let sa = default_syn_ack(&c);
    let (mut s, out) = connect_with(c, 4 * MSS64, &sa);
    assert_eq!(sent(&out), news(0..4));
    // 200, 201 ms: 1 then 1..2 SACKed. RACK: 0 was sent before them, but with fewer than
    // three SACKed segments and no reordering seen the window is min_rtt/4 = 25 ms: wait.
    recv(&mut s, ms(200), &ack_with_sack(seg(0), &[(seg(1), seg(2))]));
    recv(&mut s, ms(201), &ack_with_sack(seg(0), &[(seg(1), seg(3))]));
    assert_eq!(s.cc().state(), CaState::Disorder);
    // 202 ms: three SACKed → window 0: 0 is lost (102 ms since it was sent ≥ RACK.rtt
    // 102 ms). Recovery: ssthresh 10/2 = 5; PRR with nothing in flight sends
    // min(max(1 − 0, 1), 5 − 0) = 1: the retransmission of 0.
    let out = recv(&mut s, ms(202), &ack_with_sack(seg(0), &[(seg(1), seg(4))]));
    assert_eq!(sent(&out), [rtx(0)]);
    assert_eq!(s.cc().state(), CaState::Recovery);
    assert_eq!(s.ssthresh_bytes(), 5_000);
    // 250 ms: the delayed original arrives; everything is ACKed. No timestamps and one
    // retransmission unaccounted for: recovery ends without undo, cwnd = ssthresh = 5.
    recv(&mut s, ms(250), &ack(seg(4)));
    assert_eq!((s.cc().state(), s.cwnd_bytes()), (CaState::Open, 5_000));
    // 302 ms: the retransmission arrives as a duplicate; the receiver D-SACKs it (first
    // block below the cumulative ACK, RFC 2883). Every retransmission of the episode is
    // now shown unnecessary (undo_retrans 1 → 0): undo, cwnd = max(5, prior_cwnd 10) = 10,
    // ssthresh back to ∞ (Linux tcp_try_undo_dsack).
    recv(&mut s, ms(302), &ack_with_sack(seg(4), &[(seg(0), seg(1))]));
    assert_eq!((s.cwnd_bytes(), s.ssthresh_bytes()), (10_000, u64::MAX));
    assert_eq!((s.stats.undos, s.stats.dsacks), (1, 1));
}

#[test]
fn a_tail_loss_is_repaired_by_the_probe_without_a_timeout() {
    // Ten segments, the last two lost. Linux's defaults (TLP on).
    let c = with(LossRecoveryConfig::default(), false);
    let sa = default_syn_ack(&c);
    let (mut s, out) = connect_with(c, 10 * MSS64, &sa);
    assert_eq!(sent(&out), news(0..10));
    // 200 ms: 0..7 ACKed at once: R = 100 ms (RTO 250 ms), slow start 10 → 18, nothing
    // left to send. Two segments out: PTO = 2·SRTT + 2 ms = 202 ms < RTO → probe at 402 ms
    // (the RTO would fire at 450 ms).
    recv(&mut s, ms(200), &ack(seg(8)));
    assert_eq!(s.next_deadline(), ms(402));
    // The probe: no new data, so the last segment again.
    assert_eq!(sent(&timer(&mut s, ms(402))), [rtx(9)]);
    assert_eq!(s.stats.tlp_probes, 1);
    // 502 ms: it is SACKed. RACK: 8 was sent (100 ms) before the probe (402 ms) and
    // 402 ms ≥ RACK.rtt 100 ms + 25 ms have passed: lost. Fast recovery (ssthresh 9):
    // PRR with nothing in flight sends one segment, the retransmission of 8.
    let out = recv(
        &mut s,
        ms(502),
        &ack_with_sack(seg(8), &[(seg(9), seg(10))]),
    );
    assert_eq!(sent(&out), [rtx(8)]);
    assert_eq!(s.cc().state(), CaState::Recovery);
    // 602 ms: all ACKed; recovery ends at ssthresh 18/2 = 9 without a single timeout.
    recv(&mut s, ms(602), &ack(seg(10)));
    assert_eq!((s.cwnd_bytes(), s.ssthresh_bytes()), (9_000, 9_000));
    assert_eq!((s.stats.rtos, s.stats.fast_recoveries), (0, 1));
}

#[test]
fn without_tlp_the_same_tail_loss_needs_the_timeout() {
    let c = with(no_tlp(), false);
    let sa = default_syn_ack(&c);
    let (mut s, _) = connect_with(c, 10 * MSS64, &sa);
    recv(&mut s, ms(200), &ack(seg(8)));
    // Only the RTO is armed: 200 + 250 ms; it retransmits 8.
    assert_eq!(s.next_deadline(), ms(450));
    assert_eq!(sent(&timer(&mut s, ms(450))), [rtx(8)]);
    assert_eq!(s.stats.rtos, 1);
}

#[test]
fn receiver_reports_duplicates_as_dsack_first_blocks() {
    let c = with(LossRecoveryConfig::default(), false);
    let (mut r, _) = established_receiver(c.clone());
    deliver(&mut r, ms(1), &data(0));
    // 0 again: below the cumulative ACK (1001) → first block [1, 1001).
    let (_, acks) = deliver(&mut r, ms(2), &data_rtx(0));
    assert_eq!(blocks(&acks[0]), [(seg(0), seg(1))]);
    // 2 out of order, then 2 again: the D-SACK lies inside the second block.
    let (_, acks) = deliver(&mut r, ms(3), &data(2));
    assert_eq!(blocks(&acks[0]), [(seg(2), seg(3))]);
    let (_, acks) = deliver(&mut r, ms(4), &data_rtx(2));
    assert_eq!(blocks(&acks[0]), [(seg(2), seg(3)), (seg(2), seg(3))]);
    // Reported once: the next ACK carries only the ordinary block.
    let (_, acks) = deliver(&mut r, ms(5), &data(4));
    assert_eq!(blocks(&acks[0]), [(seg(4), seg(5)), (seg(2), seg(3))]);
    assert_eq!(r.stats.dsacks_sent, 2);

    // tcp_dsack = 0: duplicates are ACKed without a D-SACK.
    let lr = LossRecoveryConfig {
        dsack: false,
        ..LossRecoveryConfig::default()
    };
    let (mut r, _) = established_receiver(with(lr, false));
    deliver(&mut r, ms(1), &data(0));
    let (_, acks) = deliver(&mut r, ms(2), &data_rtx(0));
    assert!(blocks(&acks[0]).is_empty());
}

#[test]
fn rack_needs_sack_and_tlp_needs_sack() {
    let lr = LossRecoveryConfig::default();
    assert_eq!(lr.recovery, RACK_LOSS_DETECTION);
    assert!(lr.rack(true) && !lr.rack(false));
    assert!(lr.tlp(true) && !lr.tlp(false));
    assert!(!LossRecoveryConfig::CLASSIC.rack(true));
    assert!(!LossRecoveryConfig::CLASSIC.tlp(true));
    let _ = SimTime::ZERO;
}
