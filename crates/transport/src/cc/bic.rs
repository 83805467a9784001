//! BIC TCP (L. Xu, K. Harfoush, I. Rhee, "Binary Increase Congestion Control for Fast,
//! Long Distance Networks", INFOCOM 2004) as Linux implements it (`net/ipv4/tcp_bic.c`).
//!
//! BIC treats window growth as a search for the largest window the path takes: after a loss
//! at W_max it jumps towards the midpoint of [cwnd, W_max] (binary search), never by more
//! than S_max per RTT, and approaches W_max slowly; past W_max it probes "max probing" —
//! first slowly, then faster, then linearly.
//!
//! Linux arithmetic, kept here (window in segments, time in jiffies of 1 ms, HZ = 1000). The
//! algorithm sets `cnt`, the segments to acknowledge per +1 segment of cwnd, and grows with
//! `tcp_cong_avoid_ai(cnt, acked)`:
//! - cwnd ≤ `low_window` (14): `cnt = cwnd`, plain Reno (and no ACK-ratio scaling below).
//! - cwnd < W_max: `dist = (W_max − cwnd)/B` with B = `BICTCP_B` = 4;
//!   `dist > max_increment` (16) → `cnt = cwnd/16` (linear, +16 per RTT);
//!   `dist ≤ 1` → `cnt = cwnd·smooth_part/B` (smooth_part 20: +0.2 per RTT near W_max);
//!   else `cnt = cwnd/dist` (binary search: +(W_max − cwnd)/4 per RTT).
//! - cwnd ≥ W_max: below W_max + B → `cnt = cwnd·smooth_part/B`; below
//!   W_max + max_increment·(B−1) = W_max + 48 → `cnt = cwnd·(B−1)/(cwnd − W_max)` (slow start
//!   of max probing); else `cnt = cwnd/16` (linear).
//! - Before the first loss (W_max = 0) `cnt ≤ 20` (at least +5 % per RTT).
//! - Then `cnt = (cnt << 4)/delayed_ack`, at least 1, where `delayed_ack` is 16× an
//!   EWMA (gain 1/16) of the segments each ACK acknowledges, updated in `pkts_acked` in the
//!   Open state only: `delayed_ack += acked − delayed_ack/16`. It starts at 2·16 = 32. Note
//!   that with one segment per ACK it falls from 32 to 31 and stays there (31/16 rounds to 1,
//!   so the update adds 1 − 1 = 0): cnt is then scaled by 16/31, i.e. BIC grows about
//!   1.94× faster than the nominal rules above. That is Linux's behaviour and is kept.
//! - `cnt` is recomputed only when cwnd changed or more than HZ/32 jiffies passed since the
//!   last computation (`bictcp_update`).
//! - Loss: W_max = cwnd, or with fast convergence cwnd·(1024 + β)/2048 ≈ 0.9·cwnd when
//!   cwnd < the previous W_max; ssthresh = max(cwnd/2, 2) if cwnd ≤ low_window else
//!   max(cwnd·β/1024, 2) with β = 819 (≈ 0.8).
//! - RTO (Loss state): all BIC state is reset, W_max and the ACK ratio included.
//!
//! Deviations from Linux: `undo_cwnd` (Linux `tcp_reno_undo_cwnd`) has no caller in mmtsim.
//! `pkts_acked` receives the segments newly delivered (cumulatively ACKed **or SACKed**),
//! where Linux counts only cumulatively acknowledged ones; the difference only shows on the
//! first SACK of an episode, which arrives in the Open state, since later ones arrive in
//! Disorder/Recovery where the ratio is not updated. Products such as cwnd·smooth_part are
//! computed in 64 bits (equal to Linux below 2^32/20 segments). `max_increment` = 0 acts as 1
//! (Linux would divide by zero).
//!
//! Differences from ns-3's `TcpBic`: SmoothPart 5 (Linux 20), fast-convergence factor 0.8
//! (Linux 0.9), `<` instead of `≤` at low_window, no ACK-ratio scaling, a strict `>` in the
//! increment test with the counter remainder discarded, no HZ/32 rate limit, no reset on RTO,
//! and ssthresh from bytes in flight below low_window.

use super::{AckSample, CaState, CongestionControl, Window};
use mmtsim_engine::SimTime;

/// Linux `BICTCP_BETA_SCALE`: β is in 1/1024.
const BICTCP_BETA_SCALE: u32 = 1024;
/// Linux `BICTCP_B`: the binary-search step per RTT is (W_max − cwnd)/B.
const BICTCP_B: u32 = 4;
/// Linux `ACK_RATIO_SHIFT`: `delayed_ack` holds segments per ACK × 16.
const ACK_RATIO_SHIFT: u32 = 4;
/// Jiffies per second (HZ): 1000, the common Linux configuration.
const HZ: u32 = 1000;

/// BIC parameters (Linux module parameters of `tcp_bic.c`, with their defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct BicParams {
    /// Fast convergence: a loss below the previous W_max sets W_max ≈ 0.9·cwnd (default on).
    pub fast_convergence: bool,
    /// S_max, the largest increase per RTT in the binary search, segments (default 16).
    pub max_increment: u32,
    /// Up to this window BIC behaves like Reno, segments (default 14).
    pub low_window: u32,
    /// β in 1/1024 (default 819 ≈ 0.8): ssthresh = cwnd·β/1024 above low_window.
    pub beta: u32,
    /// Initial ssthresh, segments; 0 keeps the connection's (default 0).
    pub initial_ssthresh: u32,
    /// RTTs from W_max − B to W_max (default 20).
    pub smooth_part: u32,
}

impl Default for BicParams {
    fn default() -> Self {
        BicParams {
            fast_convergence: true,
            max_increment: 16,
            low_window: 14,
            beta: 819,
            initial_ssthresh: 0,
            smooth_part: 20,
        }
    }
}

/// BIC state (Linux `struct bictcp`) plus the connection state Linux reads from the socket.
#[derive(Clone, Debug)]
pub struct Bic {
    p: BicParams,
    /// Segments to acknowledge per +1 segment of cwnd (Linux `cnt`).
    cnt: u32,
    /// W_max, segments; 0 before the first loss (Linux `last_max_cwnd`).
    last_max_cwnd: u32,
    /// cwnd at the last `cnt` computation (Linux `last_cwnd`).
    last_cwnd: u32,
    /// Jiffy of the last `cnt` computation (Linux `last_time`).
    last_time: u32,
    /// Jiffy the current epoch began, 0 = none (Linux `epoch_start`; Linux records it but
    /// never reads it; it is kept for traces).
    epoch_start: u32,
    /// Segments per ACK × 16, EWMA with gain 1/16 (Linux `delayed_ack`).
    delayed_ack: u32,
    /// Connection state as last reported through `set_state` (Linux `icsk_ca_state`).
    state: CaState,
}

/// Linux `tcp_jiffies32` at HZ = 1000, 1-based so that 0 can mean "no epoch" (as in Linux,
/// where jiffies do not sit at 0).
fn jiffies(now: SimTime) -> u32 {
    (now.ns() / 1_000_000) as u32 + 1
}

impl Bic {
    /// A BIC instance.
    pub fn new(p: BicParams) -> Self {
        Bic {
            p,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            epoch_start: 0,
            delayed_ack: 2 << ACK_RATIO_SHIFT,
            state: CaState::Open,
        }
    }

    /// Linux `bictcp_reset`.
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.epoch_start = 0;
        self.delayed_ack = 2 << ACK_RATIO_SHIFT;
    }

    /// W_max, segments (0 before the first loss).
    pub fn w_max(&self) -> u32 {
        self.last_max_cwnd
    }

    /// Segments to acknowledge per +1 segment of cwnd, as last computed.
    pub fn cnt(&self) -> u32 {
        self.cnt
    }

    /// Segments per ACK, the EWMA BIC scales `cnt` by.
    pub fn ack_ratio(&self) -> f64 {
        self.delayed_ack as f64 / (1u32 << ACK_RATIO_SHIFT) as f64
    }

    /// Linux `bictcp_update`: recompute `cnt` for `cwnd` at jiffy `now_j`.
    fn update(&mut self, cwnd: u32, now_j: u32) {
        if self.last_cwnd == cwnd && (now_j.wrapping_sub(self.last_time) as i32) <= (HZ / 32) as i32
        {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now_j;
        if self.epoch_start == 0 {
            self.epoch_start = now_j;
        }

        // Reno below low_window: returns before the ACK-ratio scaling.
        if cwnd <= self.p.low_window {
            self.cnt = cwnd;
            return;
        }

        let (c, w_max) = (cwnd as u64, self.last_max_cwnd as u64);
        let (b, s_max, smooth) = (
            BICTCP_B as u64,
            self.p.max_increment.max(1) as u64,
            self.p.smooth_part as u64,
        );
        let cnt = if c < w_max {
            let dist = (w_max - c) / b;
            if dist > s_max {
                // Far below W_max: linear increase by S_max per RTT.
                c / s_max
            } else if dist <= 1 {
                // Next to W_max: creep.
                c * smooth / b
            } else {
                // Binary search: +dist per RTT.
                c / dist
            }
        } else if c < w_max + b {
            // Just above W_max: creep.
            c * smooth / b
        } else if c < w_max + s_max * (b - 1) {
            // Max probing, slow-start part: +(cwnd − W_max)/3 per RTT.
            c * (b - 1) / (c - w_max)
        } else {
            // Max probing, linear part.
            c / s_max
        };
        let mut cnt = cnt.min(u32::MAX as u64) as u32;
        // No loss yet: at least +5 % per RTT.
        if self.last_max_cwnd == 0 && cnt > 20 {
            cnt = 20;
        }
        // Divide by the measured segments per ACK.
        cnt = (((cnt as u64) << ACK_RATIO_SHIFT) / self.delayed_ack.max(1) as u64) as u32;
        self.cnt = cnt.max(1);
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }

    fn init(&mut self, w: &mut Window, _now: SimTime) {
        self.reset();
        self.state = CaState::Open;
        if self.p.initial_ssthresh != 0 {
            w.ssthresh = self.p.initial_ssthresh;
        }
    }

    fn pkts_acked(&mut self, _w: &mut Window, s: &AckSample) {
        if self.state == CaState::Open {
            // ratio = (15·ratio + sample)/16 in fixed point; never underflows since
            // delayed_ack ≥ delayed_ack >> 4.
            self.delayed_ack = self.delayed_ack + s.acked - (self.delayed_ack >> ACK_RATIO_SHIFT);
        }
    }

    fn cong_avoid(&mut self, w: &mut Window, s: &AckSample) {
        let Some(acked) = w.reno_slow_start(s).filter(|&a| a > 0) else {
            return;
        };
        self.update(w.cwnd, jiffies(s.now));
        let cnt = self.cnt;
        w.cong_avoid_ai(cnt, acked);
    }

    fn ssthresh(&mut self, w: &Window) -> u32 {
        self.epoch_start = 0;
        let cwnd = w.cwnd;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.p.fast_convergence {
            ((cwnd as u64 * (BICTCP_BETA_SCALE + self.p.beta) as u64)
                / (2 * BICTCP_BETA_SCALE) as u64) as u32
        } else {
            cwnd
        };
        if cwnd <= self.p.low_window {
            (cwnd >> 1).max(2)
        } else {
            ((cwnd as u64 * self.p.beta as u64 / BICTCP_BETA_SCALE as u64) as u32).max(2)
        }
    }

    fn set_state(&mut self, _w: &mut Window, state: CaState) {
        if state == CaState::Loss {
            self.reset();
        }
        self.state = state;
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("w_max", self.last_max_cwnd as f64),
            ("cnt", self.cnt as f64),
            ("ack_ratio", self.ack_ratio()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::controller;
    use super::super::{CcParams, Controller, INFINITE_SSTHRESH};
    use super::*;

    fn ctl(cwnd: u32, ssthresh: u32) -> Controller {
        controller(CcParams::Bic(BicParams::default()), cwnd, ssthresh)
    }

    /// `cnt` computed for `cwnd` with the given W_max and ACK ratio (×16).
    fn cnt_for(cwnd: u32, w_max: u32, delayed_ack: u32) -> u32 {
        let mut b = Bic::new(BicParams::default());
        b.last_max_cwnd = w_max;
        b.delayed_ack = delayed_ack;
        b.update(cwnd, 1000);
        b.cnt
    }

    #[test]
    fn cnt_in_every_region() {
        // With the initial ratio 32 (2 segments per ACK) the scaling is ×16/32 = ½.
        // Reno region: cwnd 14 ≤ low_window → cnt 14, not scaled.
        assert_eq!(cnt_for(14, 100, 32), 14);
        // Linear below W_max: W_max 1000, cwnd 500: dist = 500/4 = 125 > 16 →
        // 500/16 = 31 → 31·16/32 = 15.
        assert_eq!(cnt_for(500, 1000, 32), 15);
        // Binary search: W_max 100, cwnd 79: dist = 21/4 = 5 → 79/5 = 15 → 240/32 = 7.
        assert_eq!(cnt_for(79, 100, 32), 7);
        // Next to W_max: cwnd 97, dist = 3/4 = 0 ≤ 1 → 97·20/4 = 485 → 7760/32 = 242.
        assert_eq!(cnt_for(97, 100, 32), 242);
        // Just above W_max: cwnd 102 < 104 → 102·20/4 = 510 → 255.
        assert_eq!(cnt_for(102, 100, 32), 255);
        // Max probing: cwnd 110 < 100 + 48 → 110·3/10 = 33 → 528/32 = 16.
        assert_eq!(cnt_for(110, 100, 32), 16);
        // Linear above: cwnd 148 ≥ 148 → 148/16 = 9 → 144/32 = 4.
        assert_eq!(cnt_for(148, 100, 32), 4);
        // Before any loss (W_max 0): cwnd 500 is in the linear-above region, 500/16 = 31,
        // capped at 20 → 320/32 = 10.
        assert_eq!(cnt_for(500, 0, 32), 10);
        // One segment per ACK (ratio settles at 31): binary search at 79 → 15·16/31 = 7;
        // next to W_max at 97 → 485·16/31 = 7760/31 = 250.
        assert_eq!(cnt_for(79, 100, 31), 7);
        assert_eq!(cnt_for(97, 100, 31), 250);
        // A huge ratio cannot make cnt 0: linear-above at 148 is 9·16/400 = 0 → 1.
        assert_eq!(cnt_for(148, 100, 400), 1);
    }

    #[test]
    fn ack_ratio_ewma() {
        // Open state: delayed_ack += acked − delayed_ack/16.
        let mut c = ctl(100, INFINITE_SSTHRESH);
        let at = |ms| SimTime::from_ms(ms);
        // 32 + 1 − 2 = 31; then 31 + 1 − 1 = 31 for ever (one segment per ACK).
        c.on_ack(&AckSample::simple(at(1), 1, None));
        assert_eq!(c.metrics()[2], ("ack_ratio", 31.0 / 16.0));
        for i in 0..50 {
            c.on_ack(&AckSample::simple(at(2 + i), 1, None));
        }
        assert_eq!(c.metrics()[2], ("ack_ratio", 31.0 / 16.0));
        // An ACK of 2: 31 + 2 − 1 = 32.
        c.on_ack(&AckSample::simple(at(60), 2, None));
        assert_eq!(c.metrics()[2], ("ack_ratio", 2.0));
        // Not updated outside Open: 3 segments in Disorder leave it at 32.
        c.set_disorder(true);
        c.on_ack(&AckSample::simple(at(61), 3, None));
        assert_eq!(c.metrics()[2], ("ack_ratio", 2.0));
    }

    #[test]
    fn slow_start_then_reno_below_low_window() {
        // IW 10, one round of 10 ACKs → 20.
        let mut c = ctl(10, INFINITE_SSTHRESH);
        for i in 0..10 {
            c.on_ack(&AckSample::simple(SimTime::from_ms(i), 1, None));
        }
        assert_eq!(c.cwnd(), 20);
        // cwnd 8, ssthresh 10, stretch ACK of 5: slow start to 10, the 3 left over go to
        // tcp_cong_avoid_ai(cnt = 10, 3) (10 ≤ 14: Reno, cnt = cwnd) → cwnd_cnt 3.
        let mut c = ctl(8, 10);
        c.on_ack(&AckSample::simple(SimTime::from_ms(1), 5, None));
        assert_eq!((c.cwnd(), c.w.cwnd_cnt), (10, 3));
    }

    #[test]
    fn binary_search_after_a_loss_per_ack() {
        // cwnd 100 in congestion avoidance loses: W_max = 100, ssthresh = 100·819/1024 =
        // 81900/1024 = 79 (79.98). Recovery ends at cwnd 79; then one ACK per segment, the
        // first ACK taking the ratio 32 → 31. ACKs needed at each window (cnt = base·16/31,
        // dist = (100 − cwnd)/4):
        //   79: dist 5, 79/5 = 15 → 7      80: dist 5, 80/5 = 16 → 8
        //   81: dist 4, 81/4 = 20 → 10     82: dist 4, 20 → 10     83: dist 4, 20 → 10
        //   84: dist 4, 84/4 = 21 → 10     85: dist 3, 85/3 = 28 → 14
        //   86: 28 → 14   87: 29 → 14   88: 29 → 14   89: dist 2, 89/2 = 44 → 22
        // Reaching 85 takes 7 + 8 + 10·4 = 55 ACKs; 89 takes 55 + 14·4 = 111; 90 takes 133.
        let mut c = ctl(100, 100);
        c.enter_recovery(1000);
        assert_eq!(c.ssthresh(), 79);
        assert_eq!(c.metrics()[0], ("w_max", 100.0));
        c.exit_recovery(SimTime::from_secs(1));
        assert_eq!(c.cwnd(), 79);
        let mut t = SimTime::from_secs(1);
        let mut acks = 0;
        let mut feed = |c: &mut Controller, upto: u32| {
            while acks < upto {
                t += SimTime::from_us(250);
                c.on_ack(&AckSample::simple(t, 1, Some(SimTime::from_ms(20))));
                acks += 1;
            }
        };
        feed(&mut c, 6);
        assert_eq!(c.cwnd(), 79);
        feed(&mut c, 7);
        assert_eq!(c.cwnd(), 80);
        feed(&mut c, 54);
        assert_eq!(c.cwnd(), 84);
        feed(&mut c, 55);
        assert_eq!(c.cwnd(), 85);
        feed(&mut c, 110);
        assert_eq!(c.cwnd(), 88);
        feed(&mut c, 111);
        assert_eq!(c.cwnd(), 89);
        feed(&mut c, 132);
        assert_eq!(c.cwnd(), 89);
        feed(&mut c, 133);
        assert_eq!(c.cwnd(), 90);
    }

    #[test]
    fn cnt_is_kept_while_cwnd_is_unchanged_for_hz_over_32() {
        // cwnd 500, W_max 0, ratio 32: 500/16 = 31, capped at 20 → 320/32 = 10. With the
        // ratio then at 64 (two segments per ACK) the same window would give 320/64 = 5,
        // but bictcp_update keeps the old cnt while cwnd is unchanged and at most HZ/32 = 31
        // jiffies have passed; at 32 jiffies it recomputes.
        let mut b = Bic::new(BicParams::default());
        b.update(500, 100);
        assert_eq!(b.cnt(), 10);
        b.delayed_ack = 64;
        b.update(500, 131);
        assert_eq!(b.cnt(), 10);
        b.update(500, 132);
        assert_eq!(b.cnt(), 5);
        // A change of cwnd recomputes at once: 501/16 = 31 → 20 → 320/32 = 10.
        b.delayed_ack = 32;
        b.update(501, 133);
        assert_eq!(b.cnt(), 10);
    }

    #[test]
    fn loss_sets_ssthresh_and_w_max_with_fast_convergence() {
        let mut b = Bic::new(BicParams::default());
        // cwnd 100: W_max 100, ssthresh 79 (81900/1024 = 79.98).
        assert_eq!(b.ssthresh(&Window::new(100)), 79);
        assert_eq!(b.w_max(), 100);
        // cwnd 90 < W_max: W_max = 90·1843/2048 = 165870/2048 = 80 (80.99);
        // ssthresh = 90·819/1024 = 73710/1024 = 71 (71.98).
        assert_eq!(b.ssthresh(&Window::new(90)), 71);
        assert_eq!(b.w_max(), 80);
        // cwnd 14 ≤ low_window: halves, 7. cwnd 3 → max(1, 2) = 2.
        assert_eq!(b.ssthresh(&Window::new(14)), 7);
        assert_eq!(b.ssthresh(&Window::new(3)), 2);
        // Without fast convergence W_max is cwnd.
        let mut b = Bic::new(BicParams {
            fast_convergence: false,
            ..Default::default()
        });
        b.ssthresh(&Window::new(100));
        b.ssthresh(&Window::new(90));
        assert_eq!(b.w_max(), 90);
    }

    #[test]
    fn rto_resets_w_max_and_the_ack_ratio() {
        let mut c = ctl(100, 100);
        c.on_ack(&AckSample::simple(SimTime::from_ms(1), 1, None));
        c.on_rto(SimTime::from_secs(1), 0, 0, 1000);
        // ssthresh from cwnd 100 (79), then the Loss state resets BIC: W_max 0, ratio 2.
        assert_eq!((c.cwnd(), c.ssthresh()), (1, 79));
        assert_eq!(c.metrics()[0], ("w_max", 0.0));
        assert_eq!(c.metrics()[2], ("ack_ratio", 2.0));
        // Slow start resumes (the ratio is frozen outside Open).
        c.on_ack(&AckSample::simple(SimTime::from_secs(2), 1, None));
        assert_eq!(c.cwnd(), 2);
        assert_eq!(c.metrics()[2], ("ack_ratio", 2.0));
    }

    #[test]
    fn initial_ssthresh_parameter() {
        let params = CcParams::Bic(BicParams {
            initial_ssthresh: 50,
            ..Default::default()
        });
        let c = Controller::new(&params, 10, SimTime::ZERO);
        assert_eq!(c.ssthresh(), 50);
    }

    #[test]
    fn no_growth_when_not_cwnd_limited() {
        let mut c = ctl(100, 50);
        let mut s = AckSample::simple(SimTime::ZERO, 100, None);
        s.cwnd_limited = false;
        c.on_ack(&s);
        assert_eq!(c.cwnd(), 100);
    }
}
