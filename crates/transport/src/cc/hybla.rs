//! TCP Hybla as Linux implements it (`net/ipv4/tcp_hybla.c`; Caini & Firrincieli,
//! "TCP Hybla: a TCP enhancement for heterogeneous networks", Int. J. Satellite Commun.
//! Netw. 22(5), 2004).
//!
//! Hybla makes the window grow per unit of *time* as a reference connection with RTT0 would,
//! whatever the flow's own RTT: with ρ = RTT/RTT0 (RTT0 = 25 ms, module parameter `rtt0`),
//! slow start adds 2^ρ − 1 segments per ACK and congestion avoidance ρ²/cwnd.
//! - ρ comes from the **smoothed** RTT, in 1/8 units like Linux's `srtt_us` (which holds
//!   8·SRTT in µs): `rho_3ls = max(8·SRTT_µs / (rtt0·1000), 8)` = ρ·8, at least 1.0;
//!   `rho = rho_3ls >> 3`; `rho2_7ls = rho_3ls² << 1` = ρ²·128. It is recomputed only when
//!   the SRTT drops below the smallest SRTT seen so far, so ρ follows the minimum SRTT.
//! - Increments are in 1/128 segment (`snd_cwnd_cents` keeps the fraction), one increment per
//!   `cong_avoid` call — per ACK, however many segments it covers, as in Linux.
//!   - Slow start: `inc = 2^min(ρ_int, 16) · F[ρ_frac] − 128` with F = 128·2^(k/8) for the
//!     eighths k of ρ (128, 139, 152, 165, 181, 197, 215, 234); cwnd capped at ssthresh.
//!   - Congestion avoidance: `inc = rho2_7ls / cwnd`; if below one segment,
//!     `snd_cwnd_cnt` counts the ACK. When `inc` is exactly 0 (cwnd > 128ρ²) the window grows
//!     by one per cwnd ACKs, like Reno. The integer division makes growth coarser than ρ²/W
//!     for windows between 64ρ² and 128ρ² (e.g. at ρ = 1, cwnd 100: 1/128 per ACK, one
//!     segment per 128 ACKs instead of 100).
//! - Hybla acts only in the Open state; in Disorder, Recovery and Loss the window follows
//!   Reno (`tcp_reno_cong_avoid`). ssthresh on loss is Reno's: max(cwnd/2, 2).
//! - `init` sets the window clamp to 65535 segments, as Linux.
//!
//! Deviations from Linux:
//! - Linux's `hybla_init` runs after the handshake, with the SYN/SYN-ACK SRTT, and sets
//!   cwnd = ρ (e.g. 1 segment on paths under 50 ms, 24 on a 600 ms satellite path), replacing
//!   the initial window. mmtsim builds the controller before the handshake, when no SRTT
//!   exists, so the configured initial window is kept (set `initial_cwnd` to ρ to reproduce
//!   Linux) and ρ is computed from the first SRTT that `cong_avoid` sees.
//! - `rho_3ls` and `rho2_7ls` use 64-bit arithmetic (Linux's 32-bit `rho_3ls²` would wrap only
//!   for SRTTs above ≈ 145 s).
//! - No `undo_cwnd` (the sender does not undo).
//!
//! Differences from ns-3's `TcpHybla`: ns-3 uses RTT0 = 50 ms, ρ from the minimum RTT in
//! floating point, and does not set cwnd = ρ at start (see the reference notes).

use super::newreno::NewReno;
use super::{AckSample, CaState, CongestionControl, Window};
use mmtsim_engine::SimTime;

/// 128·2^(k/8), k = 0…7: the fractional part of 2^ρ in 1/128 (Linux `hybla_fraction`).
const FRACTIONS: [u32; 8] = [128, 139, 152, 165, 181, 197, 215, 234];
/// Window clamp set by Linux's `hybla_init`.
const HYBLA_CWND_CLAMP: u32 = 65_535;

/// Hybla parameters (Linux module parameters).
#[derive(Clone, Debug, PartialEq)]
pub struct HyblaParams {
    /// Reference RTT, ms (Linux `rtt0`, default 25).
    pub rtt0_ms: u32,
}

impl Default for HyblaParams {
    fn default() -> Self {
        HyblaParams { rtt0_ms: 25 }
    }
}

/// Hybla state (Linux `struct hybla`).
#[derive(Clone, Debug)]
pub struct Hybla {
    p: HyblaParams,
    /// Hybla rules apply (state Open); otherwise Reno.
    hybla_en: bool,
    /// Fractional window increments, 1/128 segment.
    snd_cwnd_cents: u32,
    /// ρ, integer part.
    rho: u32,
    /// ρ², integer part.
    rho2: u32,
    /// ρ·8.
    rho_3ls: u32,
    /// ρ²·128.
    rho2_7ls: u32,
    /// Smallest SRTT seen, µs ×8 (None until the first SRTT).
    minrtt_us8: Option<u64>,
}

/// SRTT in Linux's `srtt_us` representation: µs ×8.
fn srtt_us8(srtt: SimTime) -> u64 {
    srtt.ns() * 8 / 1_000
}

impl Hybla {
    /// A Hybla instance.
    pub fn new(p: HyblaParams) -> Self {
        Hybla {
            p,
            hybla_en: true,
            snd_cwnd_cents: 0,
            rho: 0,
            rho2: 0,
            rho_3ls: 0,
            rho2_7ls: 0,
            minrtt_us8: None,
        }
    }

    /// ρ = RTT/RTT0 as Linux holds it (eighths).
    pub fn rho(&self) -> f64 {
        self.rho_3ls as f64 / 8.0
    }

    /// Linux `hybla_recalc_param` from an SRTT in µs ×8.
    fn recalc(&mut self, srtt_us8: u64) {
        let rho_3ls = (srtt_us8 / (self.p.rtt0_ms.max(1) as u64 * 1_000)).max(8);
        self.rho_3ls = rho_3ls.min(u32::MAX as u64) as u32;
        self.rho = self.rho_3ls >> 3;
        self.rho2_7ls = ((rho_3ls * rho_3ls) << 1).min(u32::MAX as u64) as u32;
        self.rho2 = self.rho2_7ls >> 7;
    }
}

impl CongestionControl for Hybla {
    fn name(&self) -> &'static str {
        "hybla"
    }

    fn init(&mut self, w: &mut Window, _now: SimTime) {
        let p = self.p.clone();
        *self = Hybla::new(p);
        w.cwnd_clamp = HYBLA_CWND_CLAMP;
        w.cwnd = w.cwnd.min(w.cwnd_clamp);
        // No SRTT yet (see the module doc): ρ = 1 until the first one.
        self.recalc(0);
    }

    fn cong_avoid(&mut self, w: &mut Window, s: &AckSample) {
        // ρ follows the smallest SRTT.
        if let Some(srtt) = s.srtt {
            let v = srtt_us8(srtt);
            if self.minrtt_us8.is_none_or(|m| v < m) {
                self.recalc(v);
                self.minrtt_us8 = Some(v);
            }
        }
        if !s.cwnd_limited {
            return;
        }
        if !self.hybla_en {
            NewReno.cong_avoid(w, s);
            return;
        }
        if self.rho == 0 {
            self.recalc(s.srtt.map_or(0, srtt_us8));
        }
        let rho_fractions = self.rho_3ls - (self.rho << 3);
        let slow_start = w.in_slow_start();
        let increment = if slow_start {
            // 2^ρ − 1 in 1/128: 2^int · 2^frac − 1.
            (1u32 << self.rho.min(16)) * FRACTIONS[rho_fractions as usize] - 128
        } else {
            // ρ²/W in 1/128.
            let inc = self.rho2_7ls / w.cwnd.max(1);
            if inc < 128 {
                w.cwnd_cnt += 1;
            }
            inc
        };
        let odd = increment % 128;
        w.cwnd += increment >> 7;
        self.snd_cwnd_cents += odd;
        while self.snd_cwnd_cents >= 128 {
            w.cwnd += 1;
            self.snd_cwnd_cents -= 128;
            w.cwnd_cnt = 0;
        }
        // No fractional increment at all (cwnd > 128ρ²): one segment per window, like Reno.
        if increment == 0 && odd == 0 && w.cwnd_cnt >= w.cwnd {
            w.cwnd += 1;
            w.cwnd_cnt = 0;
        }
        if slow_start {
            w.cwnd = w.cwnd.min(w.ssthresh);
        }
        w.cwnd = w.cwnd.min(w.cwnd_clamp);
    }

    fn ssthresh(&mut self, w: &Window) -> u32 {
        // Linux tcp_reno_ssthresh.
        (w.cwnd >> 1).max(2)
    }

    fn set_state(&mut self, _w: &mut Window, state: CaState) {
        self.hybla_en = state == CaState::Open;
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("rho", self.rho()),
            ("rho2", self.rho2_7ls as f64 / 128.0),
            (
                "min_srtt_ms",
                self.minrtt_us8.map_or(f64::NAN, |v| v as f64 / 8_000.0),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{controller, metric};
    use super::super::{CcParams, Controller};
    use super::*;

    fn ack(srtt_ms: u64, acked: u32) -> AckSample {
        AckSample::simple(SimTime::from_ms(1), acked, Some(SimTime::from_ms(srtt_ms)))
    }

    fn ctl(cwnd: u32, ssthresh: u32) -> Controller {
        controller(CcParams::Hybla(HyblaParams::default()), cwnd, ssthresh)
    }

    #[test]
    fn rho_in_eighths_from_srtt() {
        let mut h = Hybla::new(HyblaParams::default());
        // 20 ms: 8·20000/25000 = 6.4 → 6 → raised to 8 (ρ ≥ 1): ρ = 1, ρ² = 2·64/128 = 1.
        h.recalc(srtt_us8(SimTime::from_ms(20)));
        assert_eq!((h.rho_3ls, h.rho, h.rho2_7ls, h.rho2), (8, 1, 128, 1));
        // 60 ms: 480000/25000 = 19.2 → 19 (ρ = 2.375): rho = 2, ρ²·128 = 19²·2 = 722 (5.64).
        h.recalc(srtt_us8(SimTime::from_ms(60)));
        assert_eq!((h.rho_3ls, h.rho, h.rho2_7ls, h.rho2), (19, 2, 722, 5));
        // 100 ms: 800000/25000 = 32 (ρ = 4): ρ²·128 = 32²·2 = 2048 (16).
        h.recalc(srtt_us8(SimTime::from_ms(100)));
        assert_eq!((h.rho_3ls, h.rho, h.rho2_7ls, h.rho2), (32, 4, 2048, 16));
    }

    #[test]
    fn fraction_table_is_two_to_the_eighths() {
        for (k, f) in FRACTIONS.iter().enumerate() {
            let exact = 128.0 * 2f64.powf(k as f64 / 8.0);
            assert!((*f as f64 - exact).abs() < 1.0, "k {k}: {f} vs {exact}");
        }
    }

    #[test]
    fn init_sets_the_window_clamp() {
        let c = ctl(10, u32::MAX);
        assert_eq!((c.w.cwnd_clamp, c.cwnd()), (65_535, 10));
    }

    #[test]
    fn slow_start_adds_two_to_the_rho_minus_one_per_ack() {
        // SRTT 60 ms, ρ = 19/8 = 2.375: inc = 2²·F[3] − 128 = 4·165 − 128 = 532/128 = 4.156
        // segments per ACK (exact 2^2.375 − 1 = 4.187). Per ACK +4, cents += 20; cents pass
        // 128 at the 7th ACK (140 → +1, 12 left). 10 ACKs: 10 + 40 + 1 = 51, cents 72.
        let mut c = ctl(10, 1000);
        for _ in 0..10 {
            c.on_ack(&ack(60, 1));
        }
        assert_eq!(c.cwnd(), 51);
        // One increment per ACK whatever it covers: an ACK of 5 segments adds 4 as well
        // (cents 92).
        c.on_ack(&ack(60, 5));
        assert_eq!(c.cwnd(), 55);
        // Capped at ssthresh.
        let mut c = ctl(10, 12);
        c.on_ack(&ack(60, 1));
        assert_eq!(c.cwnd(), 12);
    }

    #[test]
    fn slow_start_on_a_short_path_is_standard() {
        // ρ = 1: inc = 2·128 − 128 = 128, +1 per ACK.
        let mut c = ctl(10, 1000);
        for _ in 0..10 {
            c.on_ack(&ack(20, 1));
        }
        assert_eq!(c.cwnd(), 20);
        assert_eq!(metric(&c, "rho"), 1.0);
    }

    #[test]
    fn congestion_avoidance_adds_rho_squared_over_cwnd() {
        // ρ = 4 (SRTT 100 ms), cwnd 200: inc = 2048/200 = 10 (ρ²/W = 0.08 → 10.24/128).
        // cents +10 per ACK: the 13th ACK makes 130 → 201 (2 left); inc stays 10 up to
        // cwnd 204 (2048/204 = 10.04): 202 at ACK 26 (cents 4), 203 at 39 (6), 204 at 52
        // (8), and 8 + 12·10 = 128 → 205 at ACK 64.
        let mut c = ctl(200, 200);
        let mut grew_at = vec![];
        for k in 1..=64 {
            let before = c.cwnd();
            c.on_ack(&ack(100, 1));
            if c.cwnd() > before {
                grew_at.push(k);
            }
        }
        assert_eq!(grew_at, vec![13, 26, 39, 52, 64]);
        assert_eq!(c.cwnd(), 205);
    }

    #[test]
    fn integer_division_slows_rho_one_between_64_and_128_segments() {
        // ρ = 1, cwnd 100: inc = 128/100 = 1 → one segment per 128 ACKs (Reno: 100).
        let mut c = ctl(100, 100);
        for _ in 0..127 {
            c.on_ack(&ack(20, 1));
        }
        assert_eq!(c.cwnd(), 100);
        c.on_ack(&ack(20, 1));
        assert_eq!(c.cwnd(), 101);
    }

    #[test]
    fn zero_increment_falls_back_to_one_segment_per_window() {
        // ρ = 1, cwnd 200 > 128: inc = 0; snd_cwnd_cnt counts ACKs and cwnd grows by one when
        // it reaches cwnd: at the 200th ACK.
        let mut c = ctl(200, 200);
        for _ in 0..199 {
            c.on_ack(&ack(20, 1));
        }
        assert_eq!((c.cwnd(), c.w.cwnd_cnt), (200, 199));
        c.on_ack(&ack(20, 1));
        assert_eq!((c.cwnd(), c.w.cwnd_cnt), (201, 0));
    }

    #[test]
    fn rho_follows_the_minimum_srtt_only() {
        // SRTT 100 ms then 200 ms: ρ stays 4 (200 > 100); then 60 ms lowers it to 2.375.
        let mut c = ctl(10, 1000);
        c.on_ack(&ack(100, 1));
        c.on_ack(&ack(200, 1));
        assert_eq!(metric(&c, "rho"), 4.0);
        c.on_ack(&ack(60, 1));
        assert_eq!(metric(&c, "rho"), 2.375);
        // The window grew by 2^4 − 1 = 15 (inc = 16·128 − 128 = 1920) twice, then by 532/128:
        // 10 + 15 + 15 + 4 = 44.
        assert_eq!(c.cwnd(), 44);
    }

    #[test]
    fn loss_halves_and_outside_open_growth_is_reno() {
        let mut c = ctl(100, 100);
        c.on_ack(&ack(100, 1));
        c.enter_recovery(1000);
        // Reno: 100 >> 1 = 50.
        assert_eq!(c.ssthresh(), 50);
        c.exit_recovery(SimTime::from_ms(1));
        assert_eq!(c.cwnd(), 50);
        // Disorder: Reno congestion avoidance, +1 per 50 ACKs (Hybla at ρ = 4 would add
        // 2048/50 = 40/128 per ACK, one segment per 3.2 ACKs).
        c.set_disorder(true);
        for _ in 0..49 {
            c.on_ack(&ack(100, 1));
        }
        assert_eq!(c.cwnd(), 50);
        c.on_ack(&ack(100, 1));
        assert_eq!(c.cwnd(), 51);
        // Back in Open, Hybla again: cwnd 51, inc = 2048/51 = 40 per ACK on top of the 20
        // cents left by the very first ACK (2048/100 = 20; Linux keeps them across the loss
        // too): 60, 100, 140 → 52 at the third ACK.
        c.set_disorder(false);
        c.on_ack(&ack(100, 1));
        c.on_ack(&ack(100, 1));
        assert_eq!(c.cwnd(), 51);
        c.on_ack(&ack(100, 1));
        assert_eq!(c.cwnd(), 52);
    }

    #[test]
    fn rto_slow_starts_like_reno_until_open() {
        let mut c = ctl(100, 1000);
        c.on_ack(&ack(100, 1)); // ρ = 4, slow start: 100 + 15 = 115
        assert_eq!(c.cwnd(), 115);
        c.on_rto(SimTime::from_ms(500), 0, 0, 100);
        // Reno ssthresh 115 >> 1 = 57, cwnd 1.
        assert_eq!((c.cwnd(), c.ssthresh()), (1, 57));
        // In Loss, Reno slow start: +acked per ACK (Hybla would add 15 per ACK).
        c.on_ack(&ack(100, 2));
        assert_eq!(c.cwnd(), 3);
        c.exit_recovery(SimTime::from_ms(600));
        c.on_ack(&ack(100, 1));
        assert_eq!(c.cwnd(), 18);
    }
}
