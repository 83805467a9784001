//! Round-trip time estimation and the retransmission timeout: RFC 6298, or Linux's
//! variant of it ([`RtoEstimator`], Linux by default).
//!
//! # RFC 6298 ([`RtoEstimator::Rfc6298`], ns-3's estimator)
//! - First sample R: SRTT = R, RTTVAR = R/2 (§2.2).
//! - Later samples R': RTTVAR = (1 − β)·RTTVAR + β·|SRTT − R'|, then SRTT = (1 − α)·SRTT +
//!   α·R', with α = 1/8, β = 1/4 (§2.3).
//! - RTO = SRTT + max(G, K·RTTVAR), K = 4 (§2.2/2.3), then clamped to
//!   `[min_rto, max_rto]` (§2.4–2.5).
//! - Before the first sample RTO = 1 s (§2.1).
//! - Backoff: each expiry doubles the RTO up to `max_rto` (§5.5); a new sample after the
//!   backoff recomputes it from SRTT/RTTVAR (§5.7).
//!
//! Choices where the RFC leaves room, and why:
//! - `min_rto` defaults to 200 ms, Linux's `TCP_RTO_MIN`, instead of the RFC's 1 s; the
//!   seed studies also use 1 s (ns-3's default), which is a configuration value.
//! - `max_rto` defaults to 60 s, the RFC's lower bound for a maximum and ns-3's cap (Linux
//!   uses 120 s).
//! - The clock granularity G is 1 µs: the simulator's timestamps tick in µs.
//! - The estimator runs in integer nanoseconds; the divisions by 8 and 4 round down.
//! - Linux's further refinements (mdev gain /8 on decreasing RTT, per-window rttvar
//!   maximum) are not modelled: the RFC estimator is what the studies' ns-3 used.
//! - The minimum RTT is a running minimum over the connection (Linux's windowed filter has
//!   a 300 s window, longer than almost every simulated flow).
//!
//! # Linux ([`RtoEstimator::Linux`]; `tcp_rtt_estimator`, `tcp_set_rto` in
//! `net/ipv4/tcp_input.c`)
//! - The same SRTT gain 1/8. The deviation `mdev` (kept as 4·mdev) has gain 1/4 when the
//!   sample is above SRTT and 1/32 when below (a falling RTT barely moves it).
//! - `rttvar` is the largest `mdev` of the current window of data, but never below
//!   `min_rto`; at each new window it decays a quarter of the way towards that window's
//!   maximum (`mdev_max`, which restarts from `min_rto`).
//! - RTO = SRTT + rttvar, rounded up to the next millisecond (one jiffy at HZ = 1000),
//!   capped at `max_rto`: at least SRTT + `min_rto`, where RFC 6298 gives
//!   max(`min_rto`, SRTT + 4·RTTVAR). The first sample R gives SRTT = R and
//!   rttvar = max(2R, `min_rto`).
//! - Arithmetic in integer microseconds, as the kernel's.

use mmtsim_engine::SimTime;

/// Which RTO estimator a connection runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RtoEstimator {
    /// Linux's `tcp_rtt_estimator` / `tcp_set_rto` (default).
    #[default]
    Linux,
    /// RFC 6298 as written (ns-3's `RttMeanDeviation` with its defaults).
    Rfc6298,
}

/// Linux's estimator state, µs (`srtt_us` is 8·SRTT, `mdev_us` 4·mdev, as in the kernel).
#[derive(Clone, Copy, Debug, Default)]
struct LinuxRtt {
    srtt8_us: u64,
    mdev4_us: u64,
    mdev_max_us: u64,
    rttvar_us: u64,
    /// SND.NXT when the current window of data began (`rtt_seq`).
    rtt_seq: u64,
    /// The minimum RTO in µs (Linux `tcp_rto_min_us`).
    rto_min_us: u64,
}

/// Initial RTO before any sample (RFC 6298 §2.1).
pub const INITIAL_RTO: SimTime = SimTime::from_secs(1);
/// RTO once data starts after a handshake whose SYN or SYN-ACK was lost and that gave no RTT
/// sample (RFC 6298 §5.7; Linux `TCP_TIMEOUT_FALLBACK`).
pub const FALLBACK_RTO: SimTime = SimTime::from_secs(3);
/// Clock granularity G (µs timestamp clock).
pub const CLOCK_GRANULARITY: SimTime = SimTime::from_us(1);

/// RFC 6298 estimator with backoff.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<SimTime>,
    rttvar: SimTime,
    min_rtt: SimTime,
    latest: SimTime,
    min_rto: SimTime,
    max_rto: SimTime,
    /// RTO before the first sample: [`INITIAL_RTO`], or [`FALLBACK_RTO`] after SYN loss.
    initial_rto: SimTime,
    /// Number of consecutive backoffs (RFC 6298 §5.5).
    backoff: u32,
    mode: RtoEstimator,
    linux: LinuxRtt,
    /// [`Self::base_rto`], kept current: the RTO is read several times per ACK (timer
    /// re-arm, probe timeout, idle check) and changes only with a sample.
    base: SimTime,
}

impl RttEstimator {
    /// A fresh estimator with the given RTO bounds.
    pub fn new(min_rto: SimTime, max_rto: SimTime) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: SimTime::ZERO,
            min_rtt: SimTime::NEVER,
            latest: SimTime::ZERO,
            min_rto,
            max_rto,
            initial_rto: INITIAL_RTO,
            backoff: 0,
            mode: RtoEstimator::Rfc6298,
            linux: LinuxRtt {
                rto_min_us: min_rto.ns() / 1_000,
                ..LinuxRtt::default()
            },
            base: INITIAL_RTO.max(min_rto).min(max_rto),
        }
    }

    /// The same with the given estimator.
    pub fn with_estimator(mut self, mode: RtoEstimator) -> Self {
        self.mode = mode;
        self.base = self.compute_base_rto();
        self
    }

    /// Feeds one RTT measurement taken when SND.UNA = `snd_una` and SND.NXT = `snd_nxt`
    /// (Linux's estimator tracks windows of data); clears the backoff.
    pub fn on_sample_at(&mut self, r: SimTime, snd_una: u64, snd_nxt: u64) {
        if self.mode == RtoEstimator::Rfc6298 {
            self.on_sample(r);
            return;
        }
        self.latest = r;
        self.min_rtt = self.min_rtt.min(r);
        let m = r.ns() / 1_000;
        let rto_min = self.linux.rto_min_us;
        let l = &mut self.linux;
        if self.srtt.is_none() {
            l.srtt8_us = m << 3;
            l.mdev4_us = m << 1;
            l.rttvar_us = l.mdev4_us.max(rto_min);
            l.mdev_max_us = l.rttvar_us;
            l.rtt_seq = snd_nxt;
        } else {
            let err = m as i64 - (l.srtt8_us >> 3) as i64;
            l.srtt8_us = (l.srtt8_us as i64 + err).max(1) as u64;
            let d = err.abs() - (l.mdev4_us >> 2) as i64;
            // A sample below SRTT moves mdev with gain 1/32 instead of 1/4 (the shift is
            // computed, not branched on: the sign of err is a coin toss per ACK).
            let d = d >> (3 * ((err < 0) & (d > 0)) as u32);
            l.mdev4_us = (l.mdev4_us as i64 + d).max(0) as u64;
            if l.mdev4_us > l.mdev_max_us {
                l.mdev_max_us = l.mdev4_us;
                l.rttvar_us = l.rttvar_us.max(l.mdev_max_us);
            }
            if snd_una > l.rtt_seq {
                if l.mdev_max_us < l.rttvar_us {
                    l.rttvar_us -= (l.rttvar_us - l.mdev_max_us) >> 2;
                }
                l.rtt_seq = snd_nxt;
                l.mdev_max_us = rto_min;
            }
        }
        self.srtt = Some(SimTime::from_us((l.srtt8_us >> 3).max(1)));
        self.rttvar = SimTime::from_us(l.rttvar_us / 4);
        self.backoff = 0;
        self.base = self.compute_base_rto();
    }

    /// The handshake lost a SYN or SYN-ACK and gave no sample: data starts with a 3 s RTO
    /// and no backoff (RFC 6298 §5.7, as Linux `tcp_init_metrics`).
    pub fn use_fallback_rto(&mut self) {
        self.initial_rto = FALLBACK_RTO;
        self.backoff = 0;
        self.base = self.compute_base_rto();
    }

    /// Feeds one RTT measurement; clears the backoff (§5.7).
    pub fn on_sample(&mut self, r: SimTime) {
        self.latest = r;
        self.min_rtt = self.min_rtt.min(r);
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = SimTime(r.0 / 2);
            }
            Some(srtt) => {
                let err = srtt.0.abs_diff(r.0);
                // RTTVAR = 3/4 RTTVAR + 1/4 |SRTT − R'| (uses the old SRTT).
                self.rttvar = SimTime((3 * self.rttvar.0 + err) / 4);
                // SRTT = 7/8 SRTT + 1/8 R'.
                self.srtt = Some(SimTime((7 * srtt.0 + r.0) / 8));
            }
        }
        self.backoff = 0;
        self.base = self.compute_base_rto();
    }

    /// The base RTO (without backoff), clamped to the bounds.
    #[inline]
    pub fn base_rto(&self) -> SimTime {
        self.base
    }

    fn compute_base_rto(&self) -> SimTime {
        if self.mode == RtoEstimator::Linux && self.srtt.is_some() {
            let us = (self.linux.srtt8_us >> 3) + self.linux.rttvar_us;
            return SimTime::from_ms(us.div_ceil(1_000)).min(self.max_rto);
        }
        let raw = match self.srtt {
            None => self.initial_rto,
            Some(srtt) => srtt + CLOCK_GRANULARITY.max(SimTime(4 * self.rttvar.0)),
        };
        raw.max(self.min_rto).min(self.max_rto)
    }

    /// The current RTO including backoff.
    #[inline]
    pub fn rto(&self) -> SimTime {
        let base = self.base;
        if self.backoff == 0 {
            return base;
        }
        let factor = 1u64.checked_shl(self.backoff.min(32)).unwrap_or(u64::MAX);
        SimTime(base.0.saturating_mul(factor)).min(self.max_rto)
    }

    /// Doubles the RTO after an expiry (§5.5).
    pub fn back_off(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff += 1;
        }
    }

    /// Clears the backoff (new data acknowledged).
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }

    /// Smoothed RTT, if any sample was taken.
    pub fn srtt(&self) -> Option<SimTime> {
        self.srtt
    }
    /// RTT variation.
    pub fn rttvar(&self) -> SimTime {
        self.rttvar
    }
    /// Minimum RTT seen ([`SimTime::NEVER`] before the first sample).
    pub fn min_rtt(&self) -> SimTime {
        self.min_rtt
    }
    /// The latest sample.
    pub fn latest(&self) -> SimTime {
        self.latest
    }
    /// Consecutive backoffs so far.
    pub fn backoff_count(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(SimTime::from_ms(200), SimTime::from_secs(60))
    }

    fn linux() -> RttEstimator {
        est().with_estimator(RtoEstimator::Linux)
    }

    #[test]
    fn linux_rto_is_srtt_plus_at_least_the_minimum() {
        // First sample 100 ms: SRTT 100, rttvar = max(2·100, 200) = 200 → RTO 300 ms.
        let mut e = linux();
        e.on_sample_at(SimTime::from_ms(100), 1, 1001);
        assert_eq!(e.rto(), SimTime::from_ms(300));
        // A LAN: R = 1 ms → rttvar = max(2, 200) = 200 → RTO 201 ms (RFC 6298: 200 ms).
        let mut e = linux();
        e.on_sample_at(SimTime::from_ms(1), 1, 1001);
        assert_eq!(e.rto(), SimTime::from_ms(201));
        // R = 150 ms: rttvar = max(300, 200) = 300 → RTO 450 ms (RFC: 150 + 4·75 = 450).
        let mut e = linux();
        e.on_sample_at(SimTime::from_ms(150), 1, 1001);
        assert_eq!(e.rto(), SimTime::from_ms(450));
    }

    #[test]
    fn linux_mdev_gain_is_a_quarter_above_srtt_and_a_thirty_second_below() {
        // srtt8 = 800 ms·… in µs: after R1 = 100 ms, srtt8 = 800 000, mdev4 = 200 000.
        // R2 = 200 ms in the same window: err = 200 000 − 100 000 = 100 000;
        // srtt8 = 900 000 (SRTT 112.5 ms); mdev4 += 100 000 − 200 000/4 = 50 000 → 250 000;
        // above mdev_max (200 000) → rttvar 250 000; RTO = 112 500 + 250 000 µs → 363 ms.
        let mut e = linux();
        e.on_sample_at(SimTime::from_ms(100), 1, 1001);
        e.on_sample_at(SimTime::from_ms(200), 1, 1001);
        assert_eq!(e.srtt(), Some(SimTime::from_us(112_500)));
        assert_eq!(e.rto(), SimTime::from_ms(363));
        // R3 = 12.5 ms, below: err = 12 500 − 112 500 = −100 000; srtt8 = 800 000;
        // |err| − mdev4/4 = 100 000 − 62 500 = 37 500, >> 3 = 4 687 → mdev4 254 687
        // (the RFC would add 37 500 · 1 = the quarter-gain step).
        e.on_sample_at(SimTime::from_us(12_500), 1, 1001);
        assert_eq!(e.srtt(), Some(SimTime::from_ms(100)));
        // rttvar = mdev_max = 254 687 → RTO = 100 000 + 254 687 µs → 355 ms.
        assert_eq!(e.rto(), SimTime::from_ms(355));
        // A new window (SND.UNA 2001 past rtt_seq 1001), steady 100 ms: err 0, mdev4 loses
        // a quarter (254 687 − 63 671 = 191 016). The window that ended peaked at rttvar
        // itself, so nothing decays; mdev_max restarts from 200 000: RTO still 355 ms.
        e.on_sample_at(SimTime::from_ms(100), 2001, 3001);
        assert_eq!(e.rto(), SimTime::from_ms(355));
        // The next window (SND.UNA 4001 past 3001): mdev4 191 016 − 47 754 = 143 262, below
        // that window's maximum 200 000; rttvar decays a quarter of the way down to it:
        // 254 687 − (54 687 >> 2 = 13 671) = 241 016 → RTO 341 016 µs → 342 ms.
        e.on_sample_at(SimTime::from_ms(100), 4001, 5001);
        assert_eq!(e.rto(), SimTime::from_ms(342));
    }

    #[test]
    fn initial_rto_is_one_second() {
        assert_eq!(est().rto(), SimTime::from_secs(1));
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        // R = 100 ms: SRTT = 100, RTTVAR = 50, RTO = 100 + 4*50 = 300 ms.
        let mut e = est();
        e.on_sample(SimTime::from_ms(100));
        assert_eq!(e.srtt(), Some(SimTime::from_ms(100)));
        assert_eq!(e.rttvar(), SimTime::from_ms(50));
        assert_eq!(e.rto(), SimTime::from_ms(300));
    }

    #[test]
    fn second_sample_follows_the_rfc_update_order() {
        // R1 = 100 ms, R2 = 200 ms: RTTVAR = 3/4*50 + 1/4*|100-200| = 62.5 ms,
        // SRTT = 7/8*100 + 1/8*200 = 112.5 ms, RTO = 112.5 + 250 = 362.5 ms.
        let mut e = est();
        e.on_sample(SimTime::from_ms(100));
        e.on_sample(SimTime::from_ms(200));
        assert_eq!(e.rttvar(), SimTime::from_us(62_500));
        assert_eq!(e.srtt(), Some(SimTime::from_us(112_500)));
        assert_eq!(e.rto(), SimTime::from_us(362_500));
    }

    #[test]
    fn small_rtt_is_clamped_to_min_rto() {
        // R = 10 ms: SRTT + 4 RTTVAR = 30 ms < 200 ms minimum.
        let mut e = est();
        e.on_sample(SimTime::from_ms(10));
        assert_eq!(e.rto(), SimTime::from_ms(200));
        let mut e1 = RttEstimator::new(SimTime::from_secs(1), SimTime::from_secs(60));
        e1.on_sample(SimTime::from_ms(10));
        assert_eq!(e1.rto(), SimTime::from_secs(1));
    }

    #[test]
    fn backoff_doubles_up_to_the_maximum_and_a_sample_clears_it() {
        let mut e = est();
        e.on_sample(SimTime::from_ms(10)); // RTO 200 ms
        let mut seen = vec![];
        for _ in 0..12 {
            e.back_off();
            seen.push(e.rto().0 / 1_000_000);
        }
        // 400, 800, 1600, ..., 51200 ms, then the 60 s cap.
        assert_eq!(
            seen,
            [400, 800, 1600, 3200, 6400, 12800, 25600, 51200, 60000, 60000, 60000, 60000]
        );
        e.on_sample(SimTime::from_ms(10));
        assert_eq!(e.rto(), SimTime::from_ms(200));
    }

    #[test]
    fn syn_loss_without_a_sample_falls_back_to_three_seconds() {
        // RFC 6298 §5.7: after two SYN timeouts (1 s, then 2 s backed off) data starts with
        // RTO = 3 s, not the backed-off 4 s; the first sample replaces it.
        let mut e = est();
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), SimTime::from_secs(4));
        e.use_fallback_rto();
        assert_eq!(e.rto(), SimTime::from_secs(3));
        e.on_sample(SimTime::from_ms(100));
        assert_eq!(e.rto(), SimTime::from_ms(300));
    }

    #[test]
    fn min_rtt_is_the_running_minimum() {
        let mut e = est();
        for ms in [30, 20, 25, 40] {
            e.on_sample(SimTime::from_ms(ms));
        }
        assert_eq!(e.min_rtt(), SimTime::from_ms(20));
        assert_eq!(e.latest(), SimTime::from_ms(40));
    }
}
