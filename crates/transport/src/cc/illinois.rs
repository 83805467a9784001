//! TCP Illinois as Linux implements it (`net/ipv4/tcp_illinois.c`; Liu, Başar, Srikant,
//! "TCP-Illinois: a loss- and delay-based congestion control algorithm for high-speed
//! networks", Performance Evaluation 65(6–7), 2008).
//!
//! Illinois is loss-based — it grows until a loss and then cuts — but the *size* of the
//! additive increase α and of the multiplicative decrease β depend on the average queueing
//! delay `da` measured over the last RTT, relative to the largest queueing delay seen, `dm`:
//! - Delays are per-ACK RTT samples in µs (`ack_sample.rtt_us`), clamped to
//!   `RTT_MAX` = U32_MAX/1280 µs ≈ 3.36 s so that `dm·1280` fits in 32 bits. `base_rtt` and
//!   `max_rtt` are the minimum and maximum over the connection (never aged, as in Linux);
//!   `dm = max_rtt − base_rtt`, `da = mean(samples of the last RTT) − base_rtt`.
//! - α (×128, `ALPHA_SHIFT` = 7) ∈ [38, 1280] ≈ [0.3, 10] segments per RTT:
//!   `d1 = dm/100`; if `da ≤ d1` α = 10 — but once the delay has been above d1, only after
//!   `theta` = 5 consecutive low-delay RTTs (the RTTs in between keep the previous α);
//!   otherwise α = (dm−d1)·α_max / ((dm−d1) + (da−d1)·(α_max−α_min)/α_min), the paper's
//!   κ1/(κ2 + da) curve, integer arithmetic.
//! - β (×64, `BETA_SHIFT` = 6) ∈ [8, 32] = [1/8, 1/2]: 1/8 while `da ≤ dm/10`, 1/2 from
//!   `da ≥ 8·dm/10`, linear in between.
//! - α and β are recomputed once per RTT: on the first ACK whose cumulative ACK point is
//!   beyond `end_seq`, SND.NXT when the previous RTT's sampling began. While cwnd is below
//!   `win_thresh` = 15 segments they are Reno's, α = 1 and β = 1/2, whatever the delay.
//! - Slow start: Linux `tcp_slow_start`; the part of a stretch ACK beyond ssthresh is dropped
//!   (Illinois does not pass it on to congestion avoidance, unlike Reno).
//! - Congestion avoidance: `snd_cwnd_cnt` counts ACKed segments; when `cnt·α/128 ≥ cwnd`,
//!   cwnd grows by `(cnt·α/128)/cwnd` and the counter restarts — cwnd += α/cwnd per segment.
//!   The first ACK's segment count comes from `pkts_acked`; further `cong_avoid` calls before
//!   the next `pkts_acked` count one segment, exactly as Linux's `ca->acked = 1`.
//! - Loss: ssthresh = max(cwnd − cwnd·β/64, 2). An RTO (state Loss) resets α to 1, β to ½,
//!   the low-delay counters and the per-RTT sampling.
//!
//! Deviations from Linux:
//! - `rtt_reset` sets `end_seq = SND.NXT`, but `init` and `set_state` carry no sequence
//!   numbers here: `init` uses 0 (the first data ACK then starts the first RTT, as in
//!   Linux where `end_seq` is the handshake's SND.NXT) and `set_state(Loss)` uses the SND.NXT
//!   of the latest ACK seen, which can trail the real SND.NXT by the segments sent in reply
//!   to that ACK. The only effect is that the first post-RTO parameter update may come a few
//!   segments earlier; α/β are Reno's until cwnd reaches 15 again anyway.
//! - No `get_info` (the `metrics()` hook reports α, β, base/max RTT and the sample count).
//! - Integer widths follow Linux (`u16` sample counter and ACK count, `u8` low-delay counter,
//!   `u32` delay arithmetic), including their wrap-around; `end_seq` is a 64-bit sequence
//!   number as everywhere in mmtsim, so `after()` is a plain comparison.
//!
//! Differences from ns-3's `TcpIllinois` (see the reference notes): ns-3 compares the window
//! in bytes with `win_thresh`, measures delays in integer ms, and truncates the α-scaled ACK
//! counter so that α < 1 never grows the window.

use super::{AckSample, CaState, CongestionControl, Window};

/// `ALPHA_SHIFT`: α is kept ×2^7.
const ALPHA_SHIFT: u32 = 7;
/// `ALPHA_SCALE` = 1.0.
const ALPHA_SCALE: u32 = 1 << ALPHA_SHIFT;
/// `ALPHA_MIN` = 3·128/10 = 38 ≈ 0.3.
const ALPHA_MIN: u32 = (3 * ALPHA_SCALE) / 10;
/// `ALPHA_MAX` = 10.0.
const ALPHA_MAX: u32 = 10 * ALPHA_SCALE;
/// `ALPHA_BASE` = 1.0 (Reno).
const ALPHA_BASE: u32 = ALPHA_SCALE;
/// `RTT_MAX` = U32_MAX / ALPHA_MAX µs ≈ 3.36 s: keeps `dm·ALPHA_MAX` within 32 bits.
const RTT_MAX_US: u32 = u32::MAX / ALPHA_MAX;
/// `BETA_SHIFT`: β is kept ×2^6.
const BETA_SHIFT: u32 = 6;
/// `BETA_SCALE` = 1.0.
const BETA_SCALE: u32 = 1 << BETA_SHIFT;
/// `BETA_MIN` = 1/8.
const BETA_MIN: u32 = BETA_SCALE / 8;
/// `BETA_MAX` = 1/2.
const BETA_MAX: u32 = BETA_SCALE / 2;
/// `BETA_BASE` = `BETA_MAX` (Reno's ½).
const BETA_BASE: u32 = BETA_MAX;

/// Illinois parameters (Linux module parameters).
#[derive(Clone, Debug, PartialEq)]
pub struct IllinoisParams {
    /// Below this cwnd (segments) α and β are Reno's (Linux `win_thresh`, default 15).
    pub win_thresh: u32,
    /// Consecutive low-delay RTTs before α returns to its maximum (Linux `theta`, default 5).
    pub theta: u32,
}

impl Default for IllinoisParams {
    fn default() -> Self {
        IllinoisParams {
            win_thresh: 15,
            theta: 5,
        }
    }
}

/// Illinois state (Linux `struct illinois`).
#[derive(Clone, Debug)]
pub struct Illinois {
    p: IllinoisParams,
    /// Sum of the RTT samples of the current RTT, µs.
    sum_rtt_us: u64,
    /// Number of RTT samples in the current RTT (u16 as in Linux).
    cnt_rtt: u16,
    /// Minimum RTT ever, µs.
    base_rtt_us: u32,
    /// Maximum RTT ever, µs.
    max_rtt_us: u32,
    /// Right edge of the current RTT: SND.NXT when its sampling began.
    end_seq: u64,
    /// α ×128.
    alpha: u32,
    /// β ×64.
    beta: u32,
    /// Segments the current ACK delivered (from `pkts_acked`; u16 as in Linux).
    acked: u16,
    /// The average delay has been above `dm/100` since α was last at its maximum.
    rtt_above: bool,
    /// Consecutive RTTs with low average delay while `rtt_above`.
    rtt_low: u8,
    /// SND.NXT of the latest ACK seen (stands in for the socket's at `set_state`).
    last_snd_nxt: u64,
}

impl Illinois {
    /// An Illinois instance.
    pub fn new(p: IllinoisParams) -> Self {
        Illinois {
            p,
            sum_rtt_us: 0,
            cnt_rtt: 0,
            base_rtt_us: 0x7fff_ffff,
            max_rtt_us: 0,
            end_seq: 0,
            alpha: ALPHA_MAX,
            beta: BETA_BASE,
            acked: 0,
            rtt_above: false,
            rtt_low: 0,
            last_snd_nxt: 0,
        }
    }

    /// Current α, segments per RTT.
    pub fn alpha(&self) -> f64 {
        self.alpha as f64 / ALPHA_SCALE as f64
    }
    /// Current β (fraction of cwnd removed on loss).
    pub fn beta(&self) -> f64 {
        self.beta as f64 / BETA_SCALE as f64
    }

    /// Linux `rtt_reset`: a new RTT of sampling starts at `snd_nxt`.
    fn rtt_reset(&mut self, snd_nxt: u64) {
        self.end_seq = snd_nxt;
        self.cnt_rtt = 0;
        self.sum_rtt_us = 0;
    }

    /// Linux `alpha()`: α from the average (`da`) and maximum (`dm`) queueing delay, µs.
    fn compute_alpha(&mut self, da: u32, dm: u32) -> u32 {
        let d1 = dm / 100;
        if da <= d1 {
            if !self.rtt_above {
                return ALPHA_MAX;
            }
            // One good RTT is not enough to jump back to α_max: wait for `theta` of them.
            self.rtt_low = self.rtt_low.wrapping_add(1);
            if (self.rtt_low as u32) < self.p.theta {
                return self.alpha;
            }
            self.rtt_low = 0;
            self.rtt_above = false;
            return ALPHA_MAX;
        }
        self.rtt_above = true;
        let dm = dm - d1;
        let da = da - d1;
        // α = κ1 / (κ2 + da) rewritten so that everything stays in integers.
        dm.wrapping_mul(ALPHA_MAX)
            / dm.wrapping_add(da.wrapping_mul(ALPHA_MAX - ALPHA_MIN) / ALPHA_MIN)
    }

    /// Linux `beta()`: β from the average and maximum queueing delay, µs.
    fn compute_beta(da: u32, dm: u32) -> u32 {
        let d2 = dm / 10;
        if da <= d2 {
            return BETA_MIN;
        }
        let d3 = (8 * dm) / 10;
        if da >= d3 || d3 <= d2 {
            return BETA_MAX;
        }
        // Linear from (d2, β_min) to (d3, β_max); u32 wrapping as in Linux (the true
        // result is positive and small, so the wrapped intermediate gives it exactly).
        BETA_MIN
            .wrapping_mul(d3)
            .wrapping_sub(BETA_MAX.wrapping_mul(d2))
            .wrapping_add((BETA_MAX - BETA_MIN).wrapping_mul(da))
            / (d3 - d2)
    }

    /// Linux `update_params`, once per RTT.
    fn update_params(&mut self, cwnd: u32, snd_nxt: u64) {
        if cwnd < self.p.win_thresh {
            self.alpha = ALPHA_BASE;
            self.beta = BETA_BASE;
        } else if self.cnt_rtt > 0 {
            let dm = self.max_rtt_us.wrapping_sub(self.base_rtt_us);
            let avg = (self.sum_rtt_us / self.cnt_rtt as u64) as u32;
            let da = avg.wrapping_sub(self.base_rtt_us);
            self.alpha = self.compute_alpha(da, dm);
            self.beta = Self::compute_beta(da, dm);
        }
        self.rtt_reset(snd_nxt);
    }
}

impl CongestionControl for Illinois {
    fn name(&self) -> &'static str {
        "illinois"
    }

    fn init(&mut self, _w: &mut Window, _now: mmtsim_engine::SimTime) {
        let p = self.p.clone();
        *self = Illinois::new(p);
        self.rtt_reset(0);
    }

    fn pkts_acked(&mut self, _w: &mut Window, s: &AckSample) {
        self.acked = s.acked as u16;
        self.last_snd_nxt = s.snd_nxt;
        let Some(rtt) = s.rtt else { return };
        let rtt_us = (rtt.ns() / 1_000).min(RTT_MAX_US as u64) as u32;
        self.base_rtt_us = self.base_rtt_us.min(rtt_us);
        self.max_rtt_us = self.max_rtt_us.max(rtt_us);
        self.cnt_rtt = self.cnt_rtt.wrapping_add(1);
        self.sum_rtt_us += rtt_us as u64;
    }

    fn cong_avoid(&mut self, w: &mut Window, s: &AckSample) {
        self.last_snd_nxt = s.snd_nxt;
        // The once-per-RTT update runs whether or not the window is the limit.
        if s.snd_una > self.end_seq {
            self.update_params(w.cwnd, s.snd_nxt);
        }
        if !s.cwnd_limited {
            return;
        }
        if w.in_slow_start() {
            // Leftover beyond ssthresh is dropped, as in Linux.
            w.slow_start(s.acked);
        } else {
            w.cwnd_cnt = w.cwnd_cnt.wrapping_add(self.acked as u32);
            self.acked = 1;
            // cwnd += α/cwnd per segment, applied in whole segments.
            let delta = w.cwnd_cnt.wrapping_mul(self.alpha) >> ALPHA_SHIFT;
            if delta >= w.cwnd {
                w.cwnd = (w.cwnd + delta / w.cwnd).min(w.cwnd_clamp);
                w.cwnd_cnt = 0;
            }
        }
    }

    fn ssthresh(&mut self, w: &Window) -> u32 {
        let cut = ((w.cwnd as u64 * self.beta as u64) >> BETA_SHIFT) as u32;
        (w.cwnd - cut).max(2)
    }

    fn set_state(&mut self, _w: &mut Window, state: CaState) {
        if state == CaState::Loss {
            self.alpha = ALPHA_BASE;
            self.beta = BETA_BASE;
            self.rtt_low = 0;
            self.rtt_above = false;
            self.rtt_reset(self.last_snd_nxt);
        }
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("alpha", self.alpha()),
            ("beta", self.beta()),
            ("base_rtt_ms", self.base_rtt_us as f64 / 1e3),
            ("max_rtt_ms", self.max_rtt_us as f64 / 1e3),
            ("cnt_rtt", self.cnt_rtt as f64),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{controller, metric};
    use super::super::{CcParams, Controller};
    use super::*;
    use mmtsim_engine::SimTime;

    /// An ACK at `t_ms` delivering `acked` segments with RTT `rtt_ms`, cumulative ACK point
    /// `una` and SND.NXT `nxt`.
    fn ack(t_ms: u64, acked: u32, rtt_ms: u64, una: u64, nxt: u64) -> AckSample {
        let mut s = AckSample::simple(
            SimTime::from_ms(t_ms),
            acked,
            Some(SimTime::from_ms(rtt_ms)),
        );
        s.snd_una = una;
        s.snd_nxt = nxt;
        s
    }

    fn ctl(cwnd: u32, ssthresh: u32) -> Controller {
        controller(
            CcParams::Illinois(IllinoisParams::default()),
            cwnd,
            ssthresh,
        )
    }

    #[test]
    fn constants_match_linux() {
        // 3·128/10 = 38.4 → 38; 10·128 = 1280; (2^32 − 1)/1280 = 3355443.19 → 3355443 µs.
        assert_eq!((ALPHA_MIN, ALPHA_MAX, RTT_MAX_US), (38, 1280, 3_355_443));
        // 64/8 = 8 (0.125), 64/2 = 32 (0.5).
        assert_eq!((BETA_MIN, BETA_MAX), (8, 32));
        let i = Illinois::new(IllinoisParams::default());
        assert_eq!((i.alpha, i.beta), (ALPHA_MAX, BETA_BASE));
    }

    #[test]
    fn slow_start_drops_the_leftover_beyond_ssthresh() {
        // cwnd 10, ssthresh 12, one ACK of 5 segments: tcp_slow_start → min(15, 12) = 12,
        // and the 3 left over are not given to congestion avoidance (Reno would count them
        // in snd_cwnd_cnt).
        let mut c = ctl(10, 12);
        c.on_ack(&ack(1, 5, 20, 1, 100));
        assert_eq!((c.cwnd(), c.w.cwnd_cnt), (12, 0));
        // Well below ssthresh every delivered segment adds one: 10 + 4 + 6 = 20.
        let mut c = ctl(10, 100);
        c.on_ack(&ack(1, 4, 20, 1, 100));
        c.on_ack(&ack(2, 6, 20, 2, 100));
        assert_eq!(c.cwnd(), 20);
    }

    #[test]
    fn small_windows_grow_like_reno() {
        // cwnd 10 < win_thresh 15: the first ACK (snd_una 1 > end_seq 0) sets α = 1, β = ½.
        // Congestion avoidance: cnt += 1 per ACK, delta = cnt·128 >> 7 = cnt, and cwnd += 1
        // when cnt reaches cwnd: 10 ACKs → 11, then 11 more → 12.
        let mut c = ctl(10, 10);
        for k in 1..=10 {
            c.on_ack(&ack(k, 1, 20, k, 1000));
        }
        assert_eq!(metric(&c, "alpha"), 1.0);
        assert_eq!(c.cwnd(), 11);
        for k in 11..=21 {
            c.on_ack(&ack(k, 1, 20, k, 1000));
        }
        assert_eq!(c.cwnd(), 12);
        // Loss with β = ½: 12 − (12·32 >> 6) = 12 − 6 = 6.
        c.enter_recovery(1000);
        assert_eq!(c.ssthresh(), 6);
    }

    #[test]
    fn without_queueing_delay_alpha_is_ten_and_cwnd_grows_by_alpha_over_cwnd() {
        // cwnd 20 ≥ 15 and every RTT sample equal: dm = da = 0, d1 = 0, da ≤ d1 and the delay
        // was never high → α = 1280 (10); d2 = 0, da ≤ d2 → β = 8 (1/8).
        // CA per ACK: cnt += 1, delta = 10·cnt; cwnd grows by delta/cwnd = 1 once
        // 10·cnt ≥ cwnd, i.e. after ceil(cwnd/10) ACKs: cwnd 20 needs 2 ACKs, 21…26 need 3
        // each (2 + 6·3 = 20 ACKs reach 27).
        let mut c = ctl(20, 20);
        let mut cw = vec![];
        for k in 1..=20 {
            c.on_ack(&ack(k, 1, 20, k, 1000));
            cw.push(c.cwnd());
        }
        assert_eq!(metric(&c, "alpha"), 10.0);
        assert_eq!(metric(&c, "beta"), 0.125);
        assert_eq!(cw[1], 21); // after 2 ACKs
        assert_eq!(cw[4], 22); // after 5
        assert_eq!(c.cwnd(), 27);
        // Loss with β = 1/8: 27 − (27·8 >> 6) = 27 − 3 = 24.
        c.enter_recovery(1000);
        assert_eq!(c.ssthresh(), 24);
    }

    #[test]
    fn alpha_and_beta_follow_the_average_queueing_delay_once_per_rtt() {
        let mut c = ctl(100, 100);
        // ACK 1 (snd_una 1 > end_seq 0): sample 20 ms → base 20000 µs; update with dm = da = 0
        // → α = 10, β = 1/8; the next RTT ends when snd_una passes 2000.
        c.on_ack(&ack(1, 1, 20, 1, 2000));
        assert_eq!((metric(&c, "alpha"), metric(&c, "beta")), (10.0, 0.125));
        // Within the RTT: samples 40 and 20 ms. No update yet (snd_una ≤ 2000).
        c.on_ack(&ack(2, 1, 40, 1000, 2500));
        c.on_ack(&ack(3, 1, 20, 2000, 3000));
        assert_eq!(metric(&c, "alpha"), 10.0);
        // ACK 4 passes 2000 with a 30 ms sample (counted first, in pkts_acked):
        // mean = (40000 + 20000 + 30000)/3 = 30000 → da = 10000 µs; dm = 40000 − 20000 = 20000.
        // α: d1 = 200; dm' = 19800, da' = 9800;
        //    α = 19800·1280 / (19800 + 9800·1242/38) = 25344000 / (19800 + 320305)
        //      = 25344000 / 340105 = 74.5 → 74 (0.578).
        // β: d2 = 2000, d3 = 16000: (8·16000 − 32·2000 + 24·10000)/(16000 − 2000)
        //    = 304000/14000 = 21.7 → 21 (0.328).
        c.on_ack(&ack(4, 1, 30, 2001, 3000));
        assert_eq!(metric(&c, "alpha"), 74.0 / 128.0);
        assert_eq!(metric(&c, "beta"), 21.0 / 64.0);
        assert_eq!(metric(&c, "cnt_rtt"), 0.0);
        // Closed form of the paper, α = κ1/(κ2 + da) with κ1 = (dm−d1)·αmin·αmax/(αmax−αmin)
        // and κ2 = (dm−d1)·αmin/(αmax−αmin) − d1 (α in 1/128): agrees to the integer.
        let (amin, amax, dm, d1, da): (f64, f64, f64, f64, f64) =
            (38.0, 1280.0, 20000.0, 200.0, 10000.0);
        let k1 = (dm - d1) * amin * amax / (amax - amin);
        let k2 = (dm - d1) * amin / (amax - amin) - d1;
        assert!((k1 / (k2 + da) - 74.5).abs() < 0.5);
        // The window has not grown: snd_cwnd_cnt = 4 and 4·74 >> 7 = 2 < 100 (the first three
        // ACKs, at α = 10, gave 10, 20, 30 < 100).
        // Loss now: ssthresh = 100 − (100·21 >> 6) = 100 − 32 = 68.
        assert_eq!(c.cwnd(), 100);
        c.enter_recovery(3000);
        assert_eq!(c.ssthresh(), 68);
    }

    #[test]
    fn high_delay_gives_minimum_alpha_and_maximum_beta() {
        let mut c = ctl(100, 100);
        c.on_ack(&ack(1, 1, 20, 1, 2000));
        // A full RTT at the maximum delay: da = dm = 20000 µs.
        // α = 19800·1280 / (19800 + 19800·1242/38) = 25344000 / (19800 + 647147) = 38 (0.297);
        // β: da ≥ d3 = 16000 → 32 (0.5).
        c.on_ack(&ack(2, 1, 40, 2001, 4000));
        assert_eq!(metric(&c, "alpha"), 38.0 / 128.0);
        assert_eq!(metric(&c, "beta"), 0.5);
        // ACKs 1 and 2 left snd_cwnd_cnt = 2 (cwnd = ssthresh: congestion avoidance from the
        // start; 1·1280 >> 7 = 10 and 2·38 >> 7 = 0 are both < 100). With α = 38 the window
        // grows by one once cnt·38 >> 7 ≥ 100, i.e. cnt ≥ ceil(12800/38) = 337: after
        // 337 − 2 = 335 more ACKs. Their snd_una stays ≤ end_seq = 4000, so α stays 38.
        let mut n = 0;
        while c.cwnd() == 100 {
            n += 1;
            c.on_ack(&ack(2 + n, 1, 40, 2001 + n, 1_000_000));
            assert!(n < 1000);
        }
        assert_eq!(n, 335);
        assert_eq!(c.cwnd(), 101);
    }

    #[test]
    fn alpha_returns_to_max_only_after_theta_low_delay_rtts() {
        let mut c = ctl(100, 100);
        c.on_ack(&ack(1, 1, 20, 1, 10));
        // One congested RTT: α = 38 (see above), rtt_above set.
        c.on_ack(&ack(2, 1, 40, 11, 20));
        assert_eq!(metric(&c, "alpha"), 38.0 / 128.0);
        // RTTs at the base delay (da = 0 ≤ d1 = 200): the first theta − 1 = 4 keep α = 38,
        // the 5th restores α = 10. Each ACK below ends an RTT (snd_una passes the last
        // snd_nxt) and carries that RTT's only sample.
        for k in 0..4u64 {
            c.on_ack(&ack(3 + k, 1, 20, 21 + 10 * k, 30 + 10 * k));
            assert_eq!(metric(&c, "alpha"), 38.0 / 128.0, "low RTT {}", k + 1);
        }
        c.on_ack(&ack(7, 1, 20, 61, 70));
        assert_eq!(metric(&c, "alpha"), 10.0);
    }

    #[test]
    fn small_window_forces_reno_parameters_even_with_delay() {
        // cwnd 14 < 15: a congested RTT still yields α = 1, β = ½.
        let mut c = ctl(14, 14);
        c.on_ack(&ack(1, 1, 20, 1, 10));
        c.on_ack(&ack(2, 1, 40, 11, 20));
        assert_eq!((metric(&c, "alpha"), metric(&c, "beta")), (1.0, 0.5));
    }

    #[test]
    fn parameters_update_even_when_not_cwnd_limited() {
        let mut c = ctl(100, 100);
        let mut s = ack(1, 1, 20, 1, 10);
        s.cwnd_limited = false;
        c.on_ack(&s);
        let mut s = ack(2, 1, 40, 11, 20);
        s.cwnd_limited = false;
        c.on_ack(&s);
        assert_eq!(metric(&c, "alpha"), 38.0 / 128.0);
        assert_eq!(c.cwnd(), 100);
    }

    #[test]
    fn rto_cuts_with_current_beta_then_resets_to_reno() {
        let mut c = ctl(100, 100);
        c.on_ack(&ack(1, 1, 20, 1, 2000));
        c.on_ack(&ack(2, 1, 40, 1000, 2500));
        c.on_ack(&ack(3, 1, 20, 2000, 3000));
        c.on_ack(&ack(4, 1, 30, 2001, 3000));
        assert_eq!(metric(&c, "beta"), 21.0 / 64.0);
        // ssthresh uses β = 21 (100 − 32 = 68), cwnd = 0 in flight + 1; then set_state(Loss)
        // resets α = 1, β = ½.
        c.on_rto(SimTime::from_ms(500), 0, 2001, 3000);
        assert_eq!((c.cwnd(), c.ssthresh()), (1, 68));
        assert_eq!((metric(&c, "alpha"), metric(&c, "beta")), (1.0, 0.5));
        // The per-RTT sampling restarted at the last SND.NXT seen (3000): an ACK at 3000
        // does not update, one at 3001 does (cwnd 2 < 15 → α = 1, β = ½ again).
        c.on_ack(&ack(600, 1, 20, 3000, 3100));
        assert_eq!(metric(&c, "cnt_rtt"), 1.0);
        c.on_ack(&ack(601, 1, 20, 3001, 3200));
        assert_eq!(metric(&c, "cnt_rtt"), 0.0);
        // Slow start resumed: 1 + 1 + 1 = 3.
        assert_eq!(c.cwnd(), 3);
    }

    #[test]
    fn ssthresh_never_below_two() {
        let mut c = ctl(3, 3);
        c.enter_recovery(10);
        // 3 − (3·32 >> 6) = 3 − 1 = 2.
        assert_eq!(c.ssthresh(), 2);
        let mut c = ctl(2, 2);
        c.enter_recovery(10);
        assert_eq!(c.ssthresh(), 2);
    }
}
