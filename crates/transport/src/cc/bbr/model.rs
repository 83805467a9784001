//! BBR's model update on every ACK (Linux `bbr_update_model`): bandwidth, ACK
//! aggregation, the gain cycle, the full-pipe and DRAIN checks, the min-RTT filter and
//! PROBE_RTT, the gains.

use super::sample::Rs;
use super::*;

impl Bbr {
    /// `bbr_update_bw`: round counting and the max-bandwidth filter.
    pub(super) fn update_bw(&mut self, rs: &Rs) {
        self.round_start = false;
        if rs.delivered < 0 || rs.interval_us <= 0 {
            return;
        }
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = self.delivered;
            self.rtt_cnt = self.rtt_cnt.wrapping_add(1);
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(rs);
        let bw = (rs.delivered as u128 * BW_UNIT as u128 / rs.interval_us as u128)
            .min(u32::MAX as u128) as u32;
        // App-limited samples only count when they beat the model.
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.running_max(BW_RTTS, self.rtt_cnt, bw);
        }
    }

    /// `bbr_update_ack_aggregation`.
    pub(super) fn update_ack_aggregation(&mut self, w: &Window, rs: &Rs) {
        if EXTRA_ACKED_GAIN == 0 || rs.acked_sacked == 0 || rs.delivered < 0 || rs.interval_us <= 0
        {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1F);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch_us = us_delta(self.delivered_mstamp, self.ack_epoch_mstamp);
        let mut expected_acked = self.bw() as u64 * epoch_us / BW_UNIT;
        // A slow ACK stream, or a very old epoch, starts a new epoch.
        if self.ack_epoch_acked as u64 <= expected_acked
            || self.ack_epoch_acked + rs.acked_sacked >= ACK_EPOCH_ACKED_RESET_THRESH
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = self.delivered_mstamp;
            expected_acked = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked).min(0xFFFFF);
        let extra = (self.ack_epoch_acked as u64 - expected_acked)
            .min(w.cwnd as u64)
            .min(u16::MAX as u64) as u32;
        if extra > self.extra_acked[self.extra_acked_win_idx] {
            self.extra_acked[self.extra_acked_win_idx] = extra;
        }
    }

    /// `bbr_check_full_bw_reached`: three rounds without 25 % growth.
    pub(super) fn check_full_bw_reached(&mut self, rs: &Rs) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let bw_thresh = (self.full_bw as u64 * FULL_BW_THRESH as u64) >> BBR_SCALE;
        if self.max_bw() as u64 >= bw_thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    /// `bbr_check_drain`: STARTUP → DRAIN when full, DRAIN → PROBE_BW when drained.
    pub(super) fn check_drain(&mut self, w: &mut Window, s: &AckSample) {
        if self.mode == BbrMode::Startup && self.full_bw_reached {
            self.mode = BbrMode::Drain;
            w.ssthresh = self.inflight(self.max_bw(), BBR_UNIT);
        }
        if self.mode == BbrMode::Drain
            && self.packets_in_net_at_edt(s, s.in_flight)
                <= self.inflight(self.max_bw(), BBR_UNIT) as u64
        {
            self.reset_probe_bw_mode();
        }
    }

    /// `bbr_check_probe_rtt_done`.
    pub(super) fn check_probe_rtt_done(&mut self, w: &mut Window, now: SimTime) {
        match self.probe_rtt_done_stamp {
            Some(done) if now > done => {}
            _ => return,
        }
        // Wait a while until the next PROBE_RTT.
        self.min_rtt_stamp = now;
        w.cwnd = w.cwnd.max(self.prior_cwnd);
        self.reset_mode();
    }

    /// `bbr_update_min_rtt`: the 10 s RTprop filter and PROBE_RTT.
    pub(super) fn update_min_rtt(&mut self, w: &mut Window, s: &AckSample, rs: &Rs) {
        let filter_expired = s.now > self.min_rtt_stamp + MIN_RTT_WIN;
        // `is_ack_delayed` is always false here (module docs).
        if rs.rtt_us >= 0 && ((rs.rtt_us as u64) < self.min_rtt_us as u64 || filter_expired) {
            self.min_rtt_us = rs.rtt_us.min(u32::MAX as i64 - 1) as u32;
            self.min_rtt_stamp = s.now;
        }
        if filter_expired && !self.idle_restart && self.mode != BbrMode::ProbeRtt {
            self.mode = BbrMode::ProbeRtt;
            self.save_cwnd(w.cwnd);
            self.probe_rtt_done_stamp = None;
        }
        if self.mode == BbrMode::ProbeRtt {
            // Ignore the low-rate samples of this mode.
            self.app_limited_request = true;
            // Hold in-flight at the minimum for max(200 ms, one round).
            if self.probe_rtt_done_stamp.is_none() && s.in_flight <= CWND_MIN_TARGET {
                self.probe_rtt_done_stamp = Some(s.now + PROBE_RTT_MODE);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = self.delivered;
            } else if self.probe_rtt_done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(w, s.now);
                }
            }
        }
        // The restart after idle ends with the first ACK that delivers data.
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    pub(super) fn update_gains(&mut self) {
        let (p, c) = match self.mode {
            BbrMode::Startup => (HIGH_GAIN, HIGH_GAIN),
            // Slow down to drain, keep cwnd.
            BbrMode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            BbrMode::ProbeBw => (
                if self.lt_use_bw {
                    BBR_UNIT
                } else {
                    PACING_GAIN[self.cycle_idx as usize]
                },
                CWND_GAIN,
            ),
            BbrMode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
        self.pacing_gain = p;
        self.cwnd_gain = c;
    }

    pub(super) fn update_model(&mut self, w: &mut Window, s: &AckSample, rs: &Rs) {
        self.update_bw(rs);
        self.update_ack_aggregation(w, rs);
        self.update_cycle_phase(s, rs);
        self.check_full_bw_reached(rs);
        self.check_drain(w, s);
        self.update_min_rtt(w, s, rs);
        self.update_gains();
    }
}
