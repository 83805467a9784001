//! BBR's long-term bandwidth sampling: detecting a token-bucket policer from two
//! consistent lossy intervals and then pacing at its rate for a while (Linux
//! `bbr_lt_bw_sampling` and its helpers in `tcp_bbr.c`).

use super::sample::Rs;
use super::*;

impl Bbr {
    pub(super) fn reset_lt_bw_sampling_interval(&mut self) {
        self.lt_last_stamp_ms = self.delivered_mstamp.ns() / 1_000_000;
        self.lt_last_delivered = self.delivered;
        self.lt_last_lost = self.lost;
        self.lt_rtt_cnt = 0;
    }

    pub(super) fn reset_lt_bw_sampling(&mut self) {
        self.lt_bw = 0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_bw_sampling_interval();
    }

    /// `bbr_lt_bw_interval_done`: two consistent lossy intervals mean a policer.
    pub(super) fn lt_bw_interval_done(&mut self, bw: u32) {
        if self.lt_bw != 0 {
            let diff = bw.abs_diff(self.lt_bw) as u64;
            if diff * BBR_UNIT as u64 <= LT_BW_RATIO * self.lt_bw as u64
                || self.rate_bytes_per_sec(diff, BBR_UNIT) <= LT_BW_DIFF
            {
                // Average the two intervals and pace at it, gain 1, to avoid drops.
                self.lt_bw = ((bw as u64 + self.lt_bw as u64) >> 1) as u32;
                self.lt_use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_bw_sampling_interval();
    }

    /// `bbr_lt_bw_sampling`: detect token-bucket policers from lossy intervals.
    pub(super) fn lt_bw_sampling(&mut self, rs: &Rs) {
        if self.lt_use_bw {
            if self.mode == BbrMode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    // Stop using the policed rate; restart gain cycling.
                    self.reset_lt_bw_sampling();
                    self.reset_probe_bw_mode();
                }
            }
            return;
        }
        // Start at the first loss, once the policer has run out of tokens.
        if !self.lt_is_sampling {
            if rs.losses == 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval();
            self.lt_is_sampling = true;
        }
        // Running out of data would underestimate the rate.
        if rs.is_app_limited {
            self.reset_lt_bw_sampling();
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt_bw_sampling();
            return;
        }
        // End the interval at a loss, when the tokens are known to be exhausted.
        if rs.losses == 0 {
            return;
        }
        let lost = self.lost.saturating_sub(self.lt_last_lost);
        let delivered = self.delivered.saturating_sub(self.lt_last_delivered);
        if delivered == 0 || (lost << BBR_SCALE) < LT_LOSS_THRESH * delivered {
            return;
        }
        let t_ms = (self.delivered_mstamp.ns() / 1_000_000) as i64 - self.lt_last_stamp_ms as i64;
        if t_ms < 1 {
            return;
        }
        if t_ms as u64 >= u32::MAX as u64 / 1_000 {
            self.reset_lt_bw_sampling();
            return;
        }
        let bw = delivered as u128 * BW_UNIT as u128 / (t_ms as u128 * 1_000);
        self.lt_bw_interval_done(bw.min(u32::MAX as u128) as u32);
    }
}
