//! CUBIC (RFC 9438) as Linux implements it (`net/ipv4/tcp_cubic.c`).
//!
//! Window in segments; time in jiffies of 1 ms (HZ = 1000) and CUBIC's 1/1024 s units,
//! with Linux's fixed-point constants:
//! - β = 717/1024 ≈ 0.7002 (`beta`), C = 410/1024 ≈ 0.4004 (`bic_scale` 41 × 10);
//! - K = cbrt(cube_factor · (W_max − cwnd)) in 1/1024 s, `cube_factor` = 2^40 / 410;
//! - target = origin ± (410 · |t − K|³) >> 40 with t = time since the epoch start plus the
//!   minimum delay, so the window aims at W(t + RTT) (RFC 9438 §4.2);
//! - `cnt` = ACKed segments per +1 cwnd: cwnd / (target − cwnd), or 100·cwnd when at or
//!   above target; at most 20 before the first loss (5 % per RTT); never below 2 (at most
//!   1.5× per RTT, RFC 9438 §4.2's clamp);
//! - TCP-friendly region (RFC 9438 §4.3): a Reno estimate `tcp_cwnd` grows by one per
//!   `cwnd·15/8` ACKed segments (α = 3(1−β)/(1+β) with Linux's integer `beta_scale` = 15);
//!   when above cwnd it caps `cnt`;
//! - fast convergence (RFC 9438 §4.7): on loss below the previous W_max, W_max =
//!   cwnd·(1024+717)/2048;
//! - ssthresh = max(cwnd·717/1024, 2) (RFC 9438 §4.6 with cwnd in place of flight size);
//! - the update runs at most once per jiffy and is skipped while cwnd is unchanged for
//!   less than HZ/32;
//! - after an idle period the epoch start shifts by the idle time (`CA_EVENT_TX_START`);
//! - an RTO (Loss state) resets all CUBIC and HyStart state, W_max included.
//!
//! Deviations from Linux: the cube root is exact (integer floor of the real root) where
//! Linux uses a 64-entry table plus one Newton step (≈0.2 % average error); there is no
//! `undo_cwnd` (the sender does not undo spurious reductions). Differences from ns-3's
//! `TcpCubic` are in the reference notes (ns-3 uses double-precision time, adds at most one
//! segment per ACK and clamps HyStart's delay threshold differently).

use super::{AckSample, CaState, CongestionControl, CwndEvent, Window};
use crate::cc::hystart::{HyStart, HyStartParams};
use mmtsim_engine::SimTime;

/// `BICTCP_BETA_SCALE`.
const BETA_SCALE: u64 = 1024;
/// `BICTCP_HZ`: CUBIC's time unit is 2^-10 s.
const BICTCP_HZ: u32 = 10;
/// Jiffies per second (HZ) — 1000, the common Linux configuration.
const HZ: u64 = 1000;

/// CUBIC parameters (Linux module parameters).
#[derive(Clone, Debug, PartialEq)]
pub struct CubicParams {
    /// β in 1/1024 (Linux `beta`, default 717 ≈ 0.7).
    pub beta: u32,
    /// C in 1/10240 (Linux `bic_scale`, default 41 ⇒ C ≈ 0.4).
    pub bic_scale: u32,
    /// Fast convergence (default on).
    pub fast_convergence: bool,
    /// TCP-friendly region (default on).
    pub tcp_friendliness: bool,
    /// HyStart (default on) and its parameters.
    pub hystart: Option<HyStartParams>,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams {
            beta: 717,
            bic_scale: 41,
            fast_convergence: true,
            tcp_friendliness: true,
            hystart: Some(HyStartParams::default()),
        }
    }
}

/// CUBIC state (Linux `struct bictcp`).
#[derive(Clone, Debug)]
pub struct Cubic {
    p: CubicParams,
    cube_rtt_scale: u64,
    cube_factor: u64,
    beta_scale: u64,
    cnt: u32,
    last_max_cwnd: u32,
    last_cwnd: u32,
    last_time: u64,
    bic_origin_point: u32,
    bic_k: u64,
    /// Minimum delay, µs (0 = none yet).
    delay_min_us: u64,
    /// Epoch start in jiffies (0 = no epoch; Linux uses 0 as "unset", and so do we by
    /// keeping jiffies 1-based).
    epoch_start: u64,
    ack_cnt: u32,
    tcp_cwnd: u32,
    hystart: HyStart,
}

fn jiffies(now: SimTime) -> u64 {
    // 1-based so that 0 can mean "no epoch", as in Linux where jiffies never sit at 0 for long.
    now.ns() / 1_000_000 + 1
}

/// Integer cube root, floor.
fn cbrt_floor(a: u64) -> u64 {
    if a == 0 {
        return 0;
    }
    let mut x = (a as f64).cbrt().round() as u64;
    while x > 0 && x.saturating_mul(x).saturating_mul(x) > a {
        x -= 1;
    }
    while (x + 1).saturating_mul(x + 1).saturating_mul(x + 1) <= a {
        x += 1;
    }
    x
}

impl Cubic {
    /// A CUBIC instance.
    pub fn new(p: CubicParams) -> Self {
        let cube_rtt_scale = p.bic_scale as u64 * 10;
        let cube_factor = (1u64 << (10 + 3 * BICTCP_HZ)) / cube_rtt_scale;
        let beta = p.beta as u64;
        let beta_scale = 8 * (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta);
        let hystart = HyStart::new(p.hystart.clone().unwrap_or_default());
        Cubic {
            p,
            cube_rtt_scale,
            cube_factor,
            beta_scale,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            bic_origin_point: 0,
            bic_k: 0,
            delay_min_us: 0,
            epoch_start: 0,
            ack_cnt: 0,
            tcp_cwnd: 0,
            hystart,
        }
    }

    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.bic_origin_point = 0;
        self.bic_k = 0;
        self.delay_min_us = 0;
        self.epoch_start = 0;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.hystart.found = false;
    }

    /// Linux `bictcp_update`: recompute `cnt`.
    fn update(&mut self, cwnd: u32, acked: u32, now: SimTime) {
        let now_j = jiffies(now);
        self.ack_cnt = self.ack_cnt.wrapping_add(acked);
        if self.last_cwnd == cwnd && now_j.saturating_sub(self.last_time) <= HZ / 32 {
            return;
        }
        // The cubic function updates cnt at most once per jiffy.
        if !(self.epoch_start != 0 && now_j == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = now_j;
            if self.epoch_start == 0 {
                self.epoch_start = now_j;
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    self.bic_k = 0;
                    self.bic_origin_point = cwnd;
                } else {
                    self.bic_k = cbrt_floor(self.cube_factor * (self.last_max_cwnd - cwnd) as u64);
                    self.bic_origin_point = self.last_max_cwnd;
                }
            }
            // t in 1/1024 s: (jiffies since epoch + delay_min in jiffies) << 10 / HZ.
            let delay_min_j = self.delay_min_us.div_ceil(1_000_000 / HZ);
            let t = ((now_j - self.epoch_start + delay_min_j) << BICTCP_HZ) / HZ;
            let offs = t.abs_diff(self.bic_k);
            let delta = ((self.cube_rtt_scale as u128 * offs as u128 * offs as u128 * offs as u128)
                >> (10 + 3 * BICTCP_HZ)) as u64;
            let origin = self.bic_origin_point as u64;
            let bic_target = if t < self.bic_k {
                origin.saturating_sub(delta)
            } else {
                origin + delta
            };
            let cwnd64 = cwnd as u64;
            self.cnt = if bic_target > cwnd64 {
                (cwnd64 / (bic_target - cwnd64)).min(u32::MAX as u64) as u32
            } else {
                100 * cwnd
            };
            // Before the first loss, grow by at most 5 % per RTT.
            if self.last_max_cwnd == 0 && self.cnt > 20 {
                self.cnt = 20;
            }
        }
        if self.p.tcp_friendliness {
            let delta = (cwnd as u64 * self.beta_scale) >> 3;
            let delta = delta.max(1);
            while self.ack_cnt as u64 > delta {
                self.ack_cnt -= delta as u32;
                self.tcp_cwnd += 1;
            }
            if self.tcp_cwnd > cwnd {
                let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
                self.cnt = self.cnt.min(max_cnt);
            }
        }
        self.cnt = self.cnt.max(2);
    }

    /// W_max (segments), for tests and traces.
    pub fn w_max(&self) -> u32 {
        self.last_max_cwnd
    }
    /// K in seconds, for tests and traces.
    pub fn k_secs(&self) -> f64 {
        self.bic_k as f64 / 1024.0
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn init(&mut self, _w: &mut Window, _now: SimTime) {
        self.reset();
        self.hystart.reset_round(SimTime::ZERO, 0);
    }

    fn pkts_acked(&mut self, w: &mut Window, s: &AckSample) {
        let Some(rtt) = s.rtt else { return };
        // Discard delay samples right after a window reduction.
        if self.epoch_start != 0 && jiffies(s.now).saturating_sub(self.epoch_start) < HZ {
            return;
        }
        let delay_us = (rtt.ns() / 1_000).max(1);
        if self.delay_min_us == 0 || self.delay_min_us > delay_us {
            self.delay_min_us = delay_us;
        }
        if self.p.hystart.is_some()
            && !self.hystart.found
            && w.in_slow_start()
            && w.cwnd >= self.hystart.params.low_window
            && self.hystart.update(s, delay_us, self.delay_min_us)
        {
            w.ssthresh = w.cwnd;
        }
    }

    fn cong_avoid(&mut self, w: &mut Window, s: &AckSample) {
        let Some(acked) = w.reno_slow_start(s).filter(|&a| a > 0) else {
            return;
        };
        self.update(w.cwnd, acked, s.now);
        let cnt = self.cnt;
        w.cong_avoid_ai(cnt, acked);
    }

    fn ssthresh(&mut self, w: &Window) -> u32 {
        self.epoch_start = 0;
        let beta = self.p.beta as u64;
        self.last_max_cwnd = if w.cwnd < self.last_max_cwnd && self.p.fast_convergence {
            ((w.cwnd as u64 * (BETA_SCALE + beta)) / (2 * BETA_SCALE)) as u32
        } else {
            w.cwnd
        };
        ((w.cwnd as u64 * beta / BETA_SCALE) as u32).max(2)
    }

    fn set_state(&mut self, _w: &mut Window, state: CaState) {
        if state == CaState::Loss {
            self.reset();
            self.hystart.found = false;
        }
    }

    fn cwnd_event(&mut self, _w: &mut Window, ev: CwndEvent, now: SimTime) {
        if let CwndEvent::TxStart { idle } = ev {
            // Application-limited idle time does not count in t.
            let now_j = jiffies(now);
            let delta = idle.ns() / 1_000_000;
            if self.epoch_start != 0 && delta > 0 {
                self.epoch_start = (self.epoch_start + delta).min(now_j);
            }
        }
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("w_max", self.last_max_cwnd as f64),
            ("k_s", self.k_secs()),
            ("cnt", self.cnt as f64),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::{CcParams, Controller};
    use super::*;

    #[test]
    fn constants_match_linux() {
        let c = Cubic::new(CubicParams::default());
        // 2^40 / 410 = 2681735677 (integer division).
        assert_eq!(c.cube_factor, 2_681_735_677);
        // 8 * (1024 + 717) / 3 / (1024 - 717) = 13928 / 3 / 307 = 4642 / 307 = 15.
        assert_eq!(c.beta_scale, 15);
    }

    #[test]
    fn cube_root_is_exact_floor() {
        assert_eq!(cbrt_floor(0), 0);
        assert_eq!(cbrt_floor(26), 2);
        assert_eq!(cbrt_floor(27), 3);
        assert_eq!(cbrt_floor(1_000_000_000_000), 10_000);
        assert_eq!(cbrt_floor(999_999_999_999), 9_999);
    }

    #[test]
    fn loss_sets_ssthresh_to_beta_cwnd_and_w_max() {
        // cwnd 90: ssthresh = 90*717/1024 = 63 (64530/1024 = 63.0), W_max = 90.
        let mut c = Cubic::new(CubicParams::default());
        let w = Window::new(90);
        assert_eq!(c.ssthresh(&w), 63);
        assert_eq!(c.w_max(), 90);
        // Next loss at 80 < W_max with fast convergence: W_max = 80*1741/2048 = 68.
        let w = Window::new(80);
        assert_eq!(c.ssthresh(&w), 56); // 80*717/1024 = 56.01
        assert_eq!(c.w_max(), 68);
    }

    #[test]
    fn k_matches_the_closed_form() {
        // W_max − cwnd = 30 segments: K = cbrt(30 / 0.40039) s = 4.2159 s
        // (cube_factor·30 = 80452070310, cbrt = 4317.1 units of 1/1024 s).
        let mut c = Cubic::new(CubicParams::default());
        c.last_max_cwnd = 100;
        c.update(70, 1, SimTime::from_secs(5));
        let k = c.k_secs();
        let expected = (30.0f64 / (410.0 / 1024.0)).cbrt();
        assert!(
            (k - expected).abs() < 1.0 / 1024.0 + 1e-9,
            "K {k} vs {expected}"
        );
    }

    /// Drives the controller with one ACK per segment, the ACKs of a round spread over an
    /// RTT, and returns (time since loss, cwnd) pairs.
    fn drive_after_loss(w_max: u32, rtt_ms: u64, secs: u64) -> Vec<(f64, u32)> {
        let params = CcParams::Cubic(CubicParams {
            hystart: None,
            fast_convergence: false,
            tcp_friendliness: false,
            ..Default::default()
        });
        let mut c = Controller::new(&params, w_max, SimTime::ZERO);
        let rtt = SimTime::from_ms(rtt_ms);
        // Establish delay_min with one ACK, then lose at t0.
        c.w.ssthresh = w_max;
        let t0 = SimTime::from_secs(2);
        c.on_ack(&AckSample::simple(SimTime::from_secs(1), 1, Some(rtt)));
        c.enter_recovery(0);
        c.exit_recovery(t0);
        let mut out = vec![];
        let mut t = t0;
        let end = t0 + SimTime::from_secs(secs);
        while t < end {
            let n = c.cwnd() as u64;
            let step = SimTime(rtt.ns() / n);
            for _ in 0..n {
                t += step;
                c.on_ack(&AckSample::simple(t, 1, Some(rtt)));
            }
            out.push(((t - t0).secs_f64(), c.cwnd()));
        }
        out
    }

    #[test]
    fn window_after_loss_follows_the_cubic_function() {
        // W_max = 1000 segments, RTT 20 ms. After the loss cwnd = 717 (β·W_max) and
        // W(t) = C (t − K)^3 + W_max with C = 0.4004, K = cbrt((1000 − 717)/C) = 8.907 s.
        // Linux aims at W(t + RTT) each RTT, so compare cwnd at t with W(t + RTT) and allow
        // 2 % of W_max for the per-ACK discretisation (+1 per cnt ACKs) and the 1 ms jiffy.
        let w_max = 1000u32;
        let c = 410.0 / 1024.0;
        let k = ((w_max as f64 - 717.0) / c).cbrt();
        let samples = drive_after_loss(w_max, 20, 14);
        let mut checked = 0;
        for (t, cwnd) in samples {
            if t < 0.2 {
                continue;
            }
            let expected = c * (t + 0.02 - k).powi(3) + w_max as f64;
            assert!(
                (cwnd as f64 - expected).abs() <= 0.02 * w_max as f64,
                "t = {t:.3}s: cwnd {cwnd} vs W(t) {expected:.1}"
            );
            checked += 1;
        }
        assert!(checked > 500);
    }

    #[test]
    fn first_epoch_before_any_loss_grows_at_most_5_percent_per_rtt() {
        // No loss yet (W_max = 0) and out of slow start: cnt is clamped to 20, so a window
        // of 100 grows by 100/20 = 5 segments per RTT.
        let params = CcParams::Cubic(CubicParams {
            hystart: None,
            tcp_friendliness: false,
            ..Default::default()
        });
        let mut c = Controller::new(&params, 100, SimTime::ZERO);
        c.w.ssthresh = 100;
        let mut t = SimTime::from_secs(1);
        for _ in 0..100 {
            t += SimTime::from_us(200);
            c.on_ack(&AckSample::simple(t, 1, Some(SimTime::from_ms(20))));
        }
        assert_eq!(c.cwnd(), 105);
    }

    #[test]
    fn rto_resets_w_max() {
        let params = CcParams::Cubic(CubicParams::default());
        let mut c = Controller::new(&params, 100, SimTime::ZERO);
        c.on_rto(SimTime::from_secs(1), 0, 0, 10);
        assert_eq!((c.cwnd(), c.ssthresh()), (1, 70)); // 100*717/1024 = 70.02
    }
}
