//! HyStart slow-start exit (Ha & Rhee, "Taming the elephants", 2011) as in Linux
//! `tcp_cubic.c`: a helper used by CUBIC, not an algorithm of its own.
//!
//! Two detectors run while cwnd ≥ `low_window` (16) in slow start:
//! - ACK train: ACKs arriving no more than 2 ms apart stretch from the start of the round
//!   beyond `delay_min/2` (unpaced; `delay_min` when paced) → exit.
//! - Delay increase: the minimum RTT of the first 8 samples of a round exceeds `delay_min`
//!   by more than clamp(delay_min/8, 4 ms, 16 ms) → exit.
//!
//! Exit means ssthresh = cwnd. A round starts when SND.UNA passes the `end_seq` recorded at
//! the previous round start (SND.NXT then). Linux's `hystart_ack_delay` term (a GSO-size
//! dependent allowance, zero without a pacing rate) is not modelled; with pacing on it is at
//! most 1 ms.

use super::AckSample;
use mmtsim_engine::SimTime;

/// HyStart parameters (Linux module parameters).
#[derive(Clone, Debug, PartialEq)]
pub struct HyStartParams {
    /// Only run at or above this cwnd (`hystart_low_window`, 16).
    pub low_window: u32,
    /// ACK-train spacing (`hystart_ack_delta_us`, 2 ms).
    pub ack_delta: SimTime,
    /// Use the ACK-train detector.
    pub ack_train: bool,
    /// Use the delay detector.
    pub delay: bool,
}

impl Default for HyStartParams {
    fn default() -> Self {
        HyStartParams {
            low_window: 16,
            ack_delta: SimTime::from_ms(2),
            ack_train: true,
            delay: true,
        }
    }
}

/// `HYSTART_MIN_SAMPLES`.
const MIN_SAMPLES: u32 = 8;
/// `HYSTART_DELAY_MIN`, µs.
const DELAY_MIN_US: u64 = 4_000;
/// `HYSTART_DELAY_MAX`, µs.
const DELAY_MAX_US: u64 = 16_000;

/// HyStart round state.
#[derive(Clone, Debug)]
pub struct HyStart {
    /// Parameters.
    pub params: HyStartParams,
    /// Slow-start exit found in this slow start.
    pub found: bool,
    round_start: SimTime,
    last_ack: SimTime,
    end_seq: u64,
    curr_rtt_us: u64,
    sample_cnt: u32,
}

impl HyStart {
    /// Fresh state.
    pub fn new(params: HyStartParams) -> Self {
        HyStart {
            params,
            found: false,
            round_start: SimTime::ZERO,
            last_ack: SimTime::ZERO,
            end_seq: 0,
            curr_rtt_us: u64::MAX,
            sample_cnt: 0,
        }
    }

    /// Linux `bictcp_hystart_reset`.
    pub fn reset_round(&mut self, now: SimTime, snd_nxt: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_nxt;
        self.curr_rtt_us = u64::MAX;
        self.sample_cnt = 0;
    }

    /// Linux `hystart_update`; returns true when slow start should end.
    pub fn update(&mut self, s: &AckSample, delay_us: u64, delay_min_us: u64) -> bool {
        if s.snd_una > self.end_seq {
            self.reset_round(s.now, s.snd_nxt);
        }
        if self.params.ack_train && s.now.saturating_sub(self.last_ack) <= self.params.ack_delta {
            self.last_ack = s.now;
            let mut threshold_us = delay_min_us;
            if !s.paced {
                threshold_us >>= 1;
            }
            if s.now.saturating_sub(self.round_start).ns() / 1_000 > threshold_us {
                self.found = true;
                return true;
            }
        }
        if self.params.delay {
            self.curr_rtt_us = self.curr_rtt_us.min(delay_us);
            if self.sample_cnt < MIN_SAMPLES {
                self.sample_cnt += 1;
            } else if self.curr_rtt_us
                > delay_min_us + (delay_min_us >> 3).clamp(DELAY_MIN_US, DELAY_MAX_US)
            {
                self.found = true;
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(now_us: u64, una: u64, nxt: u64) -> AckSample {
        let mut s = AckSample::simple(SimTime::from_us(now_us), 1, None);
        s.snd_una = una;
        s.snd_nxt = nxt;
        s
    }

    #[test]
    fn delay_detector_fires_when_round_min_exceeds_threshold() {
        // delay_min 20 ms: threshold = 20 + clamp(2.5, 4, 16) = 24 ms. ACKs 10 ms apart so
        // the ACK-train detector stays quiet.
        let mut h = HyStart::new(HyStartParams::default());
        h.reset_round(SimTime::ZERO, 100);
        let mut t = 0;
        // 8 samples of 24.5 ms are counted, the 9th compares: 24.5 > 24 → exit.
        for i in 0..8 {
            t += 10_000;
            assert!(!h.update(&sample(t, 50, 100), 24_500, 20_000), "sample {i}");
        }
        t += 10_000;
        assert!(h.update(&sample(t, 50, 100), 24_500, 20_000));
    }

    #[test]
    fn delay_detector_quiet_below_threshold() {
        let mut h = HyStart::new(HyStartParams {
            ack_train: false,
            ..Default::default()
        });
        h.reset_round(SimTime::ZERO, 100);
        for i in 0..50 {
            assert!(!h.update(&sample(i * 10_000, 50, 100), 23_900, 20_000));
        }
    }

    #[test]
    fn ack_train_fires_after_half_the_min_delay() {
        // delay_min 20 ms, unpaced: threshold 10 ms. ACKs every 1 ms from the round start:
        // the one at 11 ms (> 10 ms) ends slow start.
        let mut h = HyStart::new(HyStartParams {
            delay: false,
            ..Default::default()
        });
        h.reset_round(SimTime::ZERO, 1_000);
        for ms in 1..=10 {
            assert!(
                !h.update(&sample(ms * 1_000, 10, 1_000), 20_000, 20_000),
                "at {ms} ms"
            );
        }
        assert!(h.update(&sample(11_000, 10, 1_000), 20_000, 20_000));
    }
}
