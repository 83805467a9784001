//! HighSpeed TCP (RFC 3649) as Linux implements it (`net/ipv4/tcp_highspeed.c`).
//!
//! HighSpeed TCP replaces Reno's fixed AIMD constants with functions of the window w (in
//! segments): per RTT w grows by a(w) and on loss it shrinks by b(w)·w. Up to
//! Low_Window = 38 segments a(w) = 1, b(w) = 0.5 (standard TCP). Above, RFC 3649 defines
//! - b(w) = (High_Decrease − 0.5)·(ln w − ln Low_Window)/(ln High_Window − ln Low_Window) + 0.5
//!   with High_Window = 83000 and High_Decrease = 0.1;
//! - a(w) = w²·p(w)·2·b(w)/(2 − b(w)), where p(w) is the loss rate at which the HighSpeed
//!   response function w = 0.12/p^0.835 gives w, p(w) ≈ 0.078/w^1.2.
//!
//! Implementations use the RFC's Appendix B table instead of evaluating these. Linux keeps a
//! 72-row table [`HSTCP_AIMD_VALS`] of (upper cwnd bound W_i, md_i) where row i covers
//! W_{i−1} < cwnd ≤ W_i, with a = i + 1 and md_i = ⌊256·b(W_i)⌋; above the last bound
//! (89053 segments) the last row applies. The unit tests check every row against the two
//! formulas above. Linux's table has 72 rows, not 73: ns-3 (and, by the formulas, the
//! RFC's table) continue with a row (94717, a = 73, b ≈ 0.09; a(94717) = 72.95), which Linux
//! leaves out, so Linux never goes beyond a = 72, b = 24/256.
//!
//! Linux arithmetic, kept here (window in segments):
//! - `init`: row index `ai` = 0; `snd_cwnd_clamp` ≤ 0xffffffff/128 so that cwnd·md fits in
//!   32 bits.
//! - `cong_avoid`: nothing unless cwnd-limited; in slow start (cwnd < ssthresh)
//!   `tcp_slow_start(acked)` and the leftover of the ACK is **dropped** (Linux ignores the
//!   return value here); in congestion avoidance `ai` first walks up while
//!   cwnd > W_ai (and ai < 71) or down while cwnd ≤ W_{ai−1}, then
//!   `snd_cwnd_cnt += ai + 1` and, if `snd_cwnd_cnt ≥ cwnd`, cwnd += 1 and
//!   `snd_cwnd_cnt −= cwnd`. **The number of segments the ACK covers is not used**: each
//!   congestion-avoidance call adds a(w)/w at most once, and at most one segment per ACK.
//! - `ssthresh` = max(cwnd − ⌊cwnd·md_ai / 256⌋, 2), with `ai` as last set in congestion
//!   avoidance. A loss in slow start that was never preceded by congestion avoidance
//!   therefore halves (ai = 0), whatever the window; and `ai` is not reset by an RTO, so it
//!   keeps its old value until the next congestion-avoidance ACK walks it down.
//!
//! Deviations from Linux: none in the window arithmetic (cwnd·md is computed in 64 bits,
//! which equals Linux's 32-bit result within the clamp). `undo_cwnd` has no caller in mmtsim.
//!
//! Differences from ns-3's `TcpHighSpeed`: ns-3 looks a(w), b(w) up from the current window
//! (no hysteresis index), has a 73rd bucket (≤ 94717, a = 73, b = 0.09) and a boundary typo
//! (53667 for 53677), multiplies the increase by the segments acknowledged, and computes
//! ssthresh from bytes in flight with the double-valued b(w).

use super::{AckSample, CongestionControl, Window};

/// One row of Linux's `hstcp_aimd_vals`: the row applies while cwnd ≤ `cwnd`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AimdVal {
    /// Upper bound of the row's window range, segments (RFC 3649 Appendix B's w).
    pub cwnd: u32,
    /// Multiplicative decrease b(w) in 1/256 (⌊256·b(w)⌋).
    pub md: u32,
}

const fn row(cwnd: u32, md: u32) -> AimdVal {
    AimdVal { cwnd, md }
}

/// Linux `hstcp_aimd_vals`, from RFC 3649 Appendix B (w where a(w) reaches i + 1) with b(w)
/// in 1/256, rounded down. Row i has a(w) = i + 1 segments per RTT.
pub const HSTCP_AIMD_VALS: [AimdVal; 72] = [
    row(38, 128), // a = 1, b = 0.50
    row(118, 112),
    row(221, 104),
    row(347, 98),
    row(495, 93),
    row(663, 89),
    row(851, 86),
    row(1058, 83),
    row(1284, 81),
    row(1529, 78), // a = 10
    row(1793, 76),
    row(2076, 74),
    row(2378, 72),
    row(2699, 71),
    row(3039, 69),
    row(3399, 68),
    row(3778, 66),
    row(4177, 65),
    row(4596, 64),
    row(5036, 62), // a = 20
    row(5497, 61),
    row(5979, 60),
    row(6483, 59),
    row(7009, 58),
    row(7558, 57),
    row(8130, 56),
    row(8726, 55),
    row(9346, 54),
    row(9991, 53),
    row(10661, 52), // a = 30
    row(11358, 52),
    row(12082, 51),
    row(12834, 50),
    row(13614, 49),
    row(14424, 48),
    row(15265, 48),
    row(16137, 47),
    row(17042, 46),
    row(17981, 45),
    row(18955, 45), // a = 40
    row(19965, 44),
    row(21013, 43),
    row(22101, 43),
    row(23230, 42),
    row(24402, 41),
    row(25618, 41),
    row(26881, 40),
    row(28193, 39),
    row(29557, 39),
    row(30975, 38), // a = 50
    row(32450, 38),
    row(33986, 37),
    row(35586, 36),
    row(37253, 36),
    row(38992, 35),
    row(40808, 35),
    row(42707, 34),
    row(44694, 33),
    row(46776, 33),
    row(48961, 32), // a = 60
    row(51258, 32),
    row(53677, 31),
    row(56230, 30),
    row(58932, 30),
    row(61799, 29),
    row(64851, 28),
    row(68113, 28),
    row(71617, 27),
    row(75401, 26),
    row(79517, 26), // a = 70
    row(84035, 25),
    row(89053, 24), // a = 72, b = 0.09375
];

/// Linux `HSTCP_AIMD_MAX`.
const HSTCP_AIMD_MAX: usize = HSTCP_AIMD_VALS.len();

/// Linux `hstcp_init`: cwnd never exceeds 0xffffffff/128 so that cwnd·md (md ≤ 128) fits in
/// a u32.
pub const HSTCP_CWND_CLAMP: u32 = 0xffff_ffff / 128;

/// HighSpeed TCP parameters. Linux `tcp_highspeed.c` has no module parameters (the RFC's
/// Low_Window, High_Window, High_P and High_Decrease are baked into the table).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HighSpeedParams {}

/// HighSpeed TCP state (Linux `struct hstcp`).
#[derive(Clone, Debug)]
pub struct HighSpeed {
    /// Row of [`HSTCP_AIMD_VALS`] in use: W_{ai−1} < cwnd ≤ W_ai after the last
    /// congestion-avoidance update (Linux `ai`).
    ai: usize,
}

impl HighSpeed {
    /// A HighSpeed TCP instance.
    pub fn new(_p: HighSpeedParams) -> Self {
        HighSpeed { ai: 0 }
    }

    /// Current a(w): segments added per RTT.
    pub fn a(&self) -> u32 {
        self.ai as u32 + 1
    }

    /// Current b(w) in 1/256.
    pub fn md(&self) -> u32 {
        HSTCP_AIMD_VALS[self.ai].md
    }

    /// Moves `ai` to the row covering `cwnd` (Linux keeps the walk incremental because it
    /// usually moves by at most one row).
    fn update_ai(&mut self, cwnd: u32) {
        if cwnd > HSTCP_AIMD_VALS[self.ai].cwnd {
            while cwnd > HSTCP_AIMD_VALS[self.ai].cwnd && self.ai < HSTCP_AIMD_MAX - 1 {
                self.ai += 1;
            }
        } else {
            while self.ai > 0 && cwnd <= HSTCP_AIMD_VALS[self.ai - 1].cwnd {
                self.ai -= 1;
            }
        }
    }
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }

    fn init(&mut self, w: &mut Window, _now: mmtsim_engine::SimTime) {
        self.ai = 0;
        w.cwnd_clamp = w.cwnd_clamp.min(HSTCP_CWND_CLAMP);
    }

    fn cong_avoid(&mut self, w: &mut Window, s: &AckSample) {
        if !s.cwnd_limited {
            return;
        }
        if w.in_slow_start() {
            // Linux ignores tcp_slow_start's leftover here.
            w.slow_start(s.acked);
            return;
        }
        self.update_ai(w.cwnd);
        if w.cwnd < w.cwnd_clamp {
            // cwnd += a(w)/cwnd, once per ACK whatever it covers.
            w.cwnd_cnt += self.a();
            if w.cwnd_cnt >= w.cwnd {
                w.cwnd_cnt -= w.cwnd;
                w.cwnd += 1;
            }
        }
    }

    fn ssthresh(&mut self, w: &Window) -> u32 {
        let cut = (w.cwnd as u64 * self.md() as u64) >> 8;
        (w.cwnd - cut as u32).max(2)
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("ai", self.ai as f64),
            ("a", self.a() as f64),
            ("b", self.md() as f64 / 256.0),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{ack, controller};
    use super::super::{CcParams, Controller, INFINITE_SSTHRESH};
    use super::*;
    use mmtsim_engine::SimTime;

    // RFC 3649 parameters.
    const LOW_WINDOW: f64 = 38.0;
    const HIGH_WINDOW: f64 = 83000.0;
    const HIGH_DECREASE: f64 = 0.1;

    /// RFC 3649: b(w).
    fn b(w: f64) -> f64 {
        (HIGH_DECREASE - 0.5) * (w.ln() - LOW_WINDOW.ln()) / (HIGH_WINDOW.ln() - LOW_WINDOW.ln())
            + 0.5
    }
    /// RFC 3649: a(w) = w²·p(w)·2·b(w)/(2 − b(w)), p(w) = 0.078/w^1.2.
    fn a(w: f64) -> f64 {
        let p = 0.078 / w.powf(1.2);
        w * w * p * 2.0 * b(w) / (2.0 - b(w))
    }

    fn ctl(cwnd: u32, ssthresh: u32) -> Controller {
        controller(
            CcParams::HighSpeed(HighSpeedParams::default()),
            cwnd,
            ssthresh,
        )
    }

    #[test]
    fn table_rows_follow_the_rfc_formulas() {
        // Every row: bounds strictly increase; md = ⌊256·b(W)⌋; the RFC's a(W) at the row's
        // bound is the row's a = i + 1 to within 0.05 (Appendix B lists the w at which
        // a(w) reaches each integer). Row 0 is Low_Window itself: b = 0.5 exactly, a = 1
        // by definition (standard TCP).
        assert_eq!(HSTCP_AIMD_VALS.len(), 72);
        assert_eq!(HSTCP_AIMD_VALS[0], row(38, 128));
        for (i, r) in HSTCP_AIMD_VALS.iter().enumerate() {
            if i > 0 {
                assert!(
                    r.cwnd > HSTCP_AIMD_VALS[i - 1].cwnd,
                    "row {i} not increasing"
                );
                let ai = a(r.cwnd as f64);
                assert!(
                    (ai - (i + 1) as f64).abs() < 0.05,
                    "row {i}: a({}) = {ai:.3}, table a = {}",
                    r.cwnd,
                    i + 1
                );
            }
            let md = (256.0 * b(r.cwnd as f64)).floor() as u32;
            assert_eq!(r.md, md, "row {i}: b({}) = {:.4}", r.cwnd, b(r.cwnd as f64));
        }
    }

    #[test]
    fn a_few_rows_by_hand() {
        // w = 118: ln 118 − ln 38 = 4.7707 − 3.6376 = 1.1331; ln 83000 − ln 38 = 11.3266 −
        // 3.6376 = 7.6890; b = −0.4·1.1331/7.6890 + 0.5 = 0.44105; 256·b = 112.9 → 112.
        // p = 0.078/118^1.2 = 0.078/306.33 = 2.5463e-4; a = 13924·2.5463e-4·0.88210/1.55895
        // = 2.006 → a = 2 for the row ending at 118 (row 1).
        assert_eq!(HSTCP_AIMD_VALS[1], row(118, 112));
        assert!((b(118.0) - 0.44105).abs() < 1e-4);
        assert!((a(118.0) - 2.006).abs() < 1e-3);
        // w = 1529: b = −0.4·(7.3324 − 3.6376)/7.6890 + 0.5 = 0.30779; 256·b = 78.79 → 78,
        // row 9 (a = 10).
        assert_eq!(HSTCP_AIMD_VALS[9], row(1529, 78));
        assert!((b(1529.0) - 0.30779).abs() < 1e-4);
        // w = 89053 (last row, a = 72): b = −0.4·(11.3971 − 3.6376)/7.6890 + 0.5 = 0.09634;
        // 256·b = 24.66 → 24.
        assert_eq!(HSTCP_AIMD_VALS[71], row(89053, 24));
        assert!((b(89053.0) - 0.09634).abs() < 1e-4);
    }

    #[test]
    fn init_clamps_cwnd() {
        // 0xffffffff / 128 = 33554431.
        let c = ctl(10, INFINITE_SSTHRESH);
        assert_eq!(c.w.cwnd_clamp, 33_554_431);
    }

    #[test]
    fn slow_start_drops_the_leftover() {
        // IW 10: one round of 10 ACKs → 20.
        let mut c = ctl(10, INFINITE_SSTHRESH);
        for _ in 0..10 {
            ack(&mut c, 1);
        }
        assert_eq!(c.cwnd(), 20);
        // cwnd 8, ssthresh 10, ACK of 5: cwnd 10, and the 3 left over are not counted.
        let mut c = ctl(8, 10);
        ack(&mut c, 5);
        assert_eq!((c.cwnd(), c.w.cwnd_cnt), (10, 0));
    }

    #[test]
    fn below_low_window_it_is_reno() {
        // cwnd 38 ≤ W_0 = 38: a = 1, +1 after 38 ACKs.
        let mut c = ctl(38, 38);
        for _ in 0..37 {
            ack(&mut c, 1);
        }
        assert_eq!(c.cwnd(), 38);
        ack(&mut c, 1);
        assert_eq!(c.cwnd(), 39);
        // At 39 the row is 1 (38 < 39 ≤ 118): a = 2 per ACK, +1 once cnt ≥ 39 → 20 ACKs
        // (cnt 40 − 39 = 1 left).
        for _ in 0..19 {
            ack(&mut c, 1);
        }
        assert_eq!(c.cwnd(), 39);
        ack(&mut c, 1);
        assert_eq!((c.cwnd(), c.w.cwnd_cnt), (40, 1));
    }

    #[test]
    fn congestion_avoidance_adds_a_of_w_per_round() {
        // cwnd 1000: 851 < 1000 ≤ 1058 → row 7, a = 8. cnt grows 8 per ACK:
        //   125 ACKs: cnt 1000 ≥ 1000 → cwnd 1001, cnt 0;
        //   at 1001: 125 ACKs give 1000 < 1001, the 126th 1008 → cwnd 1002, cnt 7.
        let mut c = ctl(1000, 1000);
        for _ in 0..124 {
            ack(&mut c, 1);
        }
        assert_eq!(c.cwnd(), 1000);
        ack(&mut c, 1);
        assert_eq!((c.cwnd(), c.w.cwnd_cnt), (1001, 0));
        for _ in 0..125 {
            ack(&mut c, 1);
        }
        assert_eq!(c.cwnd(), 1001);
        ack(&mut c, 1);
        assert_eq!((c.cwnd(), c.w.cwnd_cnt), (1002, 7));
        assert_eq!(c.metrics()[1], ("a", 8.0));
        // Over ten rounds of cwnd ACKs each (one ACK per segment) cwnd grows by a per round,
        // less a fraction of a segment per round because cwnd rises within the round: a = 8
        // up to 1058 (seven rounds, 1002 → 1058), then row 8, a = 9, for the last three
        // (→ 1085); the in-round growth costs at most a few segments over the ten rounds.
        for _ in 0..10 {
            let n = c.cwnd();
            for _ in 0..n {
                ack(&mut c, 1);
            }
        }
        let got = c.cwnd();
        assert!((1081..=1085).contains(&got), "cwnd {got}");
    }

    #[test]
    fn acked_count_is_ignored_in_congestion_avoidance() {
        // A stretch ACK of 100 segments at cwnd 1000 (a = 8) adds 8 to cnt, like an ACK of 1.
        let mut c = ctl(1000, 1000);
        ack(&mut c, 100);
        assert_eq!((c.cwnd(), c.w.cwnd_cnt), (1000, 8));
    }

    #[test]
    fn loss_cuts_by_b_of_w_from_the_last_congestion_avoidance_row() {
        // After one CA ACK at cwnd 1000 the row is 7 (md 83): 1000·83 = 83000, >> 8 = 324
        // (83000/256 = 324.2); ssthresh = 1000 − 324 = 676.
        let mut c = ctl(1000, 1000);
        ack(&mut c, 1);
        c.enter_recovery(100);
        assert_eq!(c.ssthresh(), 676);
        // Back in CA at 676 the row walks down to 6 (663 < 676 ≤ 851): a = 7, md 86.
        c.exit_recovery(SimTime::ZERO);
        assert_eq!(c.cwnd(), 676);
        ack(&mut c, 1);
        assert_eq!(c.w.cwnd_cnt, 7);
        // 676·86 = 58136, >> 8 = 227; 676 − 227 = 449.
        c.enter_recovery(200);
        assert_eq!(c.ssthresh(), 449);
    }

    #[test]
    fn derived_cuts_at_other_rows() {
        // cwnd 118 (row 1, md 112): 118·112 = 13216 >> 8 = 51 → 67.
        // cwnd 53677 (row 61, md 31): 53677·31 = 1663987 >> 8 = 6499 → 47178.
        // cwnd 200000 (beyond the table: last row, md 24): 4800000 >> 8 = 18750 → 181250.
        for (cwnd, ss) in [(118, 67), (53_677, 47_178), (200_000, 181_250)] {
            let mut c = ctl(cwnd, cwnd);
            ack(&mut c, 1);
            c.enter_recovery(1);
            assert_eq!(c.ssthresh(), ss, "cwnd {cwnd}");
        }
    }

    #[test]
    fn a_loss_in_slow_start_before_any_congestion_avoidance_halves() {
        // A slow-start ACK takes cwnd 1000 → 1001 but leaves ai at 0 (only congestion
        // avoidance moves it): 1001·128 = 128128, >> 8 = 500 (500.5); 1001 − 500 = 501.
        let mut c = ctl(1000, INFINITE_SSTHRESH);
        ack(&mut c, 1);
        assert_eq!(c.cwnd(), 1001);
        c.enter_recovery(100);
        assert_eq!(c.ssthresh(), 501);
    }

    #[test]
    fn rto_sets_cwnd_to_one_and_keeps_the_row() {
        // Row 7 at cwnd 1000 (md 83) → ssthresh 676, cwnd 1.
        let mut c = ctl(1000, 1000);
        ack(&mut c, 1);
        c.on_rto(SimTime::from_secs(1), 0, 0, 5000);
        assert_eq!((c.cwnd(), c.ssthresh()), (1, 676));
        // ai is not reset (no set_state in Linux): still a = 8 until CA walks it down.
        assert_eq!(c.metrics()[1], ("a", 8.0));
        // Slow start resumes; the leftover-free slow start gives 1 → 2.
        ack(&mut c, 1);
        assert_eq!(c.cwnd(), 2);
    }

    #[test]
    fn no_growth_when_not_cwnd_limited() {
        let mut c = ctl(1000, 500);
        let mut s = AckSample::simple(SimTime::ZERO, 1, None);
        s.cwnd_limited = false;
        c.on_ack(&s);
        assert_eq!((c.cwnd(), c.w.cwnd_cnt), (1000, 0));
    }
}
