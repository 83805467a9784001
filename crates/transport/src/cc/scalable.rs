//! Scalable TCP (T. Kelly, "Scalable TCP: Improving Performance in Highspeed Wide Area
//! Networks", CCR 2003) as Linux implements it (`net/ipv4/tcp_scalable.c`).
//!
//! Scalable TCP is multiplicative-increase / multiplicative-decrease (MIMD): the window grows
//! by a fixed fraction a = 0.01 segment per segment acknowledged, so by about 1 % per RTT
//! whatever its size, and shrinks by b = 1/8 on loss. Recovery time after a loss is therefore
//! a constant number of RTTs (about ln(1/0.875)/ln(1.01) ≈ 13.4 RTTs), not proportional to
//! the window as with Reno.
//!
//! Linux arithmetic, kept here (window in segments):
//! - Slow start as Reno (`tcp_slow_start`), the leftover of an ACK continuing in congestion
//!   avoidance.
//! - Congestion avoidance: `tcp_cong_avoid_ai(min(cwnd, 100), acked)`: +1 segment per
//!   min(cwnd, 100) segments acknowledged, remainder kept. Below 100 segments this is Reno's
//!   +1 per RTT; above, +1 % per RTT (`TCP_SCALABLE_AI_CNT` = 100).
//! - No growth unless cwnd-limited (`tcp_is_cwnd_limited`).
//! - Loss: ssthresh = max(cwnd − (cwnd >> 3), 2) (`TCP_SCALABLE_MD_SCALE` = 3, so ×7/8 with
//!   the eighth rounded down: 1000 → 875, 7 → 7).
//!
//! Deviations from Linux: none in the window arithmetic. `undo_cwnd` (Linux
//! `tcp_reno_undo_cwnd`) has no caller in mmtsim (no D-SACK undo). The two constants are
//! compile-time `#define`s in Linux; here they are parameters whose defaults are Linux's.
//!
//! Differences from ns-3's `TcpScalable`: ns-3 uses AIFactor 50 (the value of Linux before
//! v4.x, which halved 100 "to account for delayed ACK"), drops the counter remainder
//! (`m_ackCnt = 0`) and computes ssthresh from bytes in flight, not cwnd. Setting
//! [`ScalableParams::ai_cnt`] = 50 reproduces the old constant.

use super::{AckSample, CongestionControl, Window};

/// Linux `TCP_SCALABLE_AI_CNT`: segments acknowledged per +1 segment once cwnd ≥ this
/// (a = 1/100 per ACKed segment, Kelly's recommended 0.01).
pub const TCP_SCALABLE_AI_CNT: u32 = 100;
/// Linux `TCP_SCALABLE_MD_SCALE`: on loss cwnd loses cwnd >> 3 (b = 1/8, Kelly's 0.125).
pub const TCP_SCALABLE_MD_SCALE: u32 = 3;

/// Scalable TCP parameters. Linux has no module parameters for Scalable TCP; these are its
/// two `#define`s, with Linux's values as defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalableParams {
    /// Segments acknowledged per +1 segment of cwnd at large windows (Linux
    /// `TCP_SCALABLE_AI_CNT`, default 100; ns-3 and Linux before 4.x used 50).
    pub ai_cnt: u32,
    /// The loss cut is cwnd >> `md_shift` (Linux `TCP_SCALABLE_MD_SCALE`, default 3 ⇒ ×0.875).
    pub md_shift: u32,
}

impl Default for ScalableParams {
    fn default() -> Self {
        ScalableParams {
            ai_cnt: TCP_SCALABLE_AI_CNT,
            md_shift: TCP_SCALABLE_MD_SCALE,
        }
    }
}

/// Scalable TCP. It keeps no state of its own: everything lives in the [`Window`].
#[derive(Clone, Debug)]
pub struct Scalable {
    p: ScalableParams,
}

impl Scalable {
    /// A Scalable TCP instance.
    pub fn new(p: ScalableParams) -> Self {
        Scalable { p }
    }
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    fn cong_avoid(&mut self, w: &mut Window, s: &AckSample) {
        let Some(acked) = w.reno_slow_start(s).filter(|&a| a > 0) else {
            return;
        };
        let ai = w.cwnd.min(self.p.ai_cnt);
        w.cong_avoid_ai(ai, acked);
    }

    fn ssthresh(&mut self, w: &Window) -> u32 {
        // A shift of 32 or more would drop nothing in Linux's u32 arithmetic.
        let cut = w.cwnd.checked_shr(self.p.md_shift).unwrap_or(0);
        (w.cwnd - cut).max(2)
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("ai_cnt", self.p.ai_cnt as f64),
            ("md_shift", self.p.md_shift as f64),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{ack, controller};
    use super::super::{CcParams, Controller};
    use super::*;
    use mmtsim_engine::SimTime;

    fn ctl(cwnd: u32, ssthresh: u32) -> Controller {
        controller(
            CcParams::Scalable(ScalableParams::default()),
            cwnd,
            ssthresh,
        )
    }

    #[test]
    fn slow_start_doubles_and_hands_the_leftover_to_congestion_avoidance() {
        // IW 10, infinite ssthresh: one round of 10 ACKs → 20.
        let mut c = ctl(10, crate::cc::INFINITE_SSTHRESH);
        for _ in 0..10 {
            ack(&mut c, 1);
        }
        assert_eq!(c.cwnd(), 20);
        // cwnd 8, ssthresh 10, a stretch ACK of 5: slow start to 10, leftover 3 goes to
        // tcp_cong_avoid_ai(min(10, 100) = 10, 3) → cwnd 10, cwnd_cnt 3.
        let mut c = ctl(8, 10);
        ack(&mut c, 5);
        assert_eq!((c.cwnd(), c.w.cwnd_cnt), (10, 3));
    }

    #[test]
    fn small_windows_grow_like_reno() {
        // cwnd 50 < 100: w = 50, so +1 after exactly 50 ACKed segments.
        let mut c = ctl(50, 50);
        for _ in 0..49 {
            ack(&mut c, 1);
        }
        assert_eq!(c.cwnd(), 50);
        ack(&mut c, 1);
        assert_eq!(c.cwnd(), 51);
    }

    #[test]
    fn large_windows_grow_one_percent_per_round() {
        // cwnd ≥ 100: +1 per 100 ACKed segments, remainder kept. One ACK per segment, a
        // round = cwnd ACKs:
        //   round 1: 1000 ACKs → +10, cnt 0   → 1010
        //   round 2: 1010 ACKs → +10, cnt 10  → 1020
        //   round 3: 1020 ACKs → cnt 10 + 1020 = 1030 → +10, cnt 30 → 1030
        let mut c = ctl(1000, 1000);
        let mut expected = [1010, 1020, 1030].into_iter();
        for _ in 0..3 {
            let n = c.cwnd();
            for _ in 0..n {
                ack(&mut c, 1);
            }
            assert_eq!(c.cwnd(), expected.next().unwrap());
        }
        assert_eq!(c.w.cwnd_cnt, 30);
        // Over many rounds the growth is geometric, ×1.01 per round (MIMD). Since the
        // remainder is kept, after k + 1 rounds cwnd = c₀ + ⌊(c₀ + … + c_k) / 100⌋, while the
        // real-valued recursion x_{k+1} = x₀ + (x₀ + … + x_k)/100 gives x_k = c₀·1.01^k. The
        // shortfall e_k = x_k − c_k obeys e_{k+1} < 1 + (e₀ + … + e_k)/100, so e_k < 1.01^(k−1)
        // and after 100 rounds e < 1.01^99 = 2.68 segments below 1000·1.01^100 = 2704.8.
        for _ in 0..97 {
            let n = c.cwnd();
            for _ in 0..n {
                ack(&mut c, 1);
            }
        }
        let ideal = 1000.0 * 1.01f64.powi(100);
        let got = c.cwnd() as f64;
        assert!(
            got <= ideal && got > ideal - 2.68,
            "cwnd {got} vs {ideal:.1}"
        );
    }

    #[test]
    fn stretch_ack_adds_several_segments() {
        // cwnd 200 (w = 100), one ACK of 250 segments: +2, remainder 50.
        let mut c = ctl(200, 200);
        ack(&mut c, 250);
        assert_eq!((c.cwnd(), c.w.cwnd_cnt), (202, 50));
    }

    #[test]
    fn loss_cuts_one_eighth() {
        // 1000 − (1000 >> 3) = 1000 − 125 = 875; 7 − (7 >> 3) = 7 − 0 = 7; 1 → max(1, 2) = 2.
        for (cwnd, ss) in [(1000, 875), (7, 7), (1, 2), (17, 15)] {
            let mut c = ctl(cwnd, cwnd);
            c.enter_recovery(100);
            assert_eq!(c.ssthresh(), ss, "cwnd {cwnd}");
        }
    }

    #[test]
    fn rto_sets_cwnd_to_one_and_ssthresh_to_seven_eighths() {
        let mut c = ctl(400, 400);
        c.on_rto(SimTime::from_secs(1), 0, 0, 1000);
        // 400 − 50 = 350.
        assert_eq!((c.cwnd(), c.ssthresh()), (1, 350));
        ack(&mut c, 1);
        assert_eq!(c.cwnd(), 2);
    }

    #[test]
    fn no_growth_when_not_cwnd_limited() {
        let mut c = ctl(200, 100);
        let mut s = AckSample::simple(SimTime::ZERO, 150, None);
        s.cwnd_limited = false;
        c.on_ack(&s);
        assert_eq!(c.cwnd(), 200);
    }

    #[test]
    fn old_linux_constant_is_a_parameter() {
        // ai_cnt 50: cwnd 200 grows +1 per 50 ACKed segments.
        let params = CcParams::Scalable(ScalableParams {
            ai_cnt: 50,
            ..Default::default()
        });
        let mut c = Controller::new(&params, 200, SimTime::ZERO);
        c.w.ssthresh = 200;
        ack(&mut c, 100);
        assert_eq!(c.cwnd(), 202);
    }
}
