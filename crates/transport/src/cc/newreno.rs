//! NewReno window arithmetic: Linux `reno` (`net/ipv4/tcp_cong.c`).
//!
//! - Slow start (cwnd < ssthresh): +1 segment per segment delivered, stopping at ssthresh;
//!   the leftover of the ACK continues in congestion avoidance (`tcp_slow_start`).
//! - Congestion avoidance: +1 segment after cwnd segments delivered, remainder kept
//!   (`tcp_cong_avoid_ai`), i.e. RFC 5681's "one SMSS per RTT" with exact packet counting
//!   (appropriate byte counting, RFC 3465, with L unbounded as in Linux).
//! - No growth unless the window is the limit (`tcp_is_cwnd_limited`, RFC 7661's spirit).
//! - Loss: ssthresh = max(cwnd / 2, 2) — Linux halves **cwnd**, where RFC 5681 eq. 4 halves
//!   FlightSize; they agree whenever the sender is window-limited.
//!
//! The NewReno part proper — the recovery point and partial-ACK retransmissions of RFC
//! 6582 — lives in the TCP sender, because it is loss recovery, not window arithmetic.
//!
//! Differences from ns-3's `TcpNewReno`: ns-3 increments once per ACK whatever the number
//! of segments it covers, and computes ssthresh from bytes in flight.

use super::{AckSample, CongestionControl, Window};

/// Linux reno.
#[derive(Clone, Copy, Debug, Default)]
pub struct NewReno;

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn cong_avoid(&mut self, w: &mut Window, s: &AckSample) {
        let Some(acked) = w.reno_slow_start(s).filter(|&a| a > 0) else {
            return;
        };
        let cwnd = w.cwnd;
        w.cong_avoid_ai(cwnd, acked);
    }

    fn ssthresh(&mut self, w: &Window) -> u32 {
        (w.cwnd >> 1).max(2)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::ack;
    use super::super::{CcParams, Controller};
    use super::*;
    use mmtsim_engine::SimTime;

    #[test]
    fn slow_start_doubles_per_round() {
        // IW 10: one round of 10 ACKs → 20, another of 20 → 40.
        let mut c = Controller::new(&CcParams::NewReno, 10, SimTime::ZERO);
        for _ in 0..10 {
            ack(&mut c, 1);
        }
        assert_eq!(c.cwnd(), 20);
        for _ in 0..20 {
            ack(&mut c, 1);
        }
        assert_eq!(c.cwnd(), 40);
    }

    #[test]
    fn congestion_avoidance_adds_one_segment_per_round() {
        // ssthresh = cwnd = 20: after 20 ACKs cwnd = 21, after 21 more 22.
        let mut c = Controller::new(&CcParams::NewReno, 20, SimTime::ZERO);
        c.w.ssthresh = 20;
        for _ in 0..19 {
            ack(&mut c, 1);
        }
        assert_eq!(c.cwnd(), 20);
        ack(&mut c, 1);
        assert_eq!(c.cwnd(), 21);
        for _ in 0..21 {
            ack(&mut c, 1);
        }
        assert_eq!(c.cwnd(), 22);
    }

    #[test]
    fn loss_halves_and_recovery_exit_settles_at_ssthresh() {
        let mut c = Controller::new(&CcParams::NewReno, 41, SimTime::ZERO);
        c.enter_recovery(1000);
        // 41 >> 1 = 20.
        assert_eq!(c.ssthresh(), 20);
        c.set_cwnd(25); // PRR's value during recovery
        c.exit_recovery(SimTime::ZERO);
        assert_eq!(c.cwnd(), 20);
    }

    #[test]
    fn ssthresh_never_below_two() {
        let mut c = Controller::new(&CcParams::NewReno, 3, SimTime::ZERO);
        c.enter_recovery(10);
        assert_eq!(c.ssthresh(), 2);
    }

    #[test]
    fn rto_sets_cwnd_to_one_and_reduces_ssthresh_once_per_episode() {
        let mut c = Controller::new(&CcParams::NewReno, 40, SimTime::ZERO);
        c.on_rto(SimTime::ZERO, 0, 100, 500);
        assert_eq!((c.cwnd(), c.ssthresh()), (1, 20));
        // A second RTO before SND.UNA reaches 500 (backed-off retransmission lost too):
        // ssthresh is not cut again (RFC 5681 §3.1 / Linux tcp_enter_loss).
        c.on_rto(SimTime::ZERO, 0, 100, 500);
        assert_eq!((c.cwnd(), c.ssthresh()), (1, 20));
        // Slow start resumes in the Loss state.
        ack(&mut c, 1);
        assert_eq!(c.cwnd(), 2);
    }

    #[test]
    fn no_growth_when_not_cwnd_limited() {
        let mut c = Controller::new(&CcParams::NewReno, 10, SimTime::ZERO);
        let mut s = AckSample::simple(SimTime::ZERO, 1, None);
        s.cwnd_limited = false;
        c.on_ack(&s);
        assert_eq!(c.cwnd(), 10);
    }
}
