//! One ACK, in the order of Linux's `tcp_ack()`: cumulative ACK and SACK processing
//! (scoreboard, delivery-rate sampling, RACK's clock, D-SACK accounting), the RTT sample,
//! `pkts_acked`, the tail-loss-probe check, loss detection and the state machine
//! ([`super::recovery`]), window growth or PRR, timers, the persist timer's check of the
//! window ([`super::persist`]), transmission. The calls into congestion control are the
//! sequences of [`crate::cc::call_order`].

use super::recovery::AckFlags;
use super::{ticks_to_time, TcpSender};
use crate::cc::{AckSample, AckWindow, CaState};
use crate::tcp::rack::Delivery;
use crate::tcp::ts_ticks;
use crate::tcp::undo::is_dsack;
use mmtsim_engine::SimTime;
use mmtsim_net::packet::TcpHeader;

impl TcpSender {
    pub(super) fn on_ack(&mut self, now: SimTime, h: &TcpHeader, out: &mut Vec<TcpHeader>) {
        let ack = h.ack;
        if ack > self.snd_nxt || ack < self.snd_una {
            // Acknowledges unsent data, or an old ACK overtaken by newer ones.
            return;
        }
        if let Some((tsval, _)) = h.timestamps {
            self.ts_recent = tsval;
        }
        let tsecr = if self.cfg.timestamps {
            h.timestamps.map(|(_, e)| e)
        } else {
            None
        };
        self.snd_wnd = (h.window_field as u64) << self.peer_wscale;

        let prior_in_flight = self.sb.in_flight();
        let prior_packets_out = self.sb.packets_out;
        let prior_una = self.snd_una;
        let prior_reno_sacked = self.sb.reno_sacked;
        let prior_fack = self.sb.fack(prior_una);
        let lr = self.cfg.loss_recovery;

        // RFC 2883: a first block below the cumulative ACK or inside the second reports a
        // duplicate; it marks nothing and is set aside before SACK processing.
        let all_blocks = h.sack_blocks();
        let dsack = self.cfg.sack && is_dsack(all_blocks, ack);
        let blocks = if dsack { &all_blocks[1..] } else { all_blocks };

        // How long ago the echoed timestamp was sent: the RTT sample below, and (as a send
        // time) Linux's test for spurious retransmissions.
        let echo_age = tsecr.map(|e| ticks_to_time(ts_ticks(now).wrapping_sub(e)));
        let echo_time = echo_age.map(|a| now.saturating_sub(a));
        let mut note = Delivery::new(now, self.rtt.min_rtt(), echo_time, self.high_seq);
        let cum = self.sb.cum_ack(ack, &mut self.rate, &mut note);
        self.snd_una = ack;
        let una_advanced = ack > prior_una;
        if una_advanced {
            // Linux tcp_ack: an ACK of new data ends the run of timeouts.
            self.rto_retransmits = 0;
        }
        // Without SACK the segments this ACK covers that had each produced a duplicate ACK
        // were counted as delivered then: the ACK itself delivers max(acked − those, 1)
        // (Linux tcp_remove_reno_sacks), not every segment a second time.
        let (mut cum_delivered, mut cum_bytes) = (cum.newly_delivered, cum.newly_delivered_bytes);
        if !self.cfg.sack && prior_reno_sacked > 0 && cum_delivered > 0 {
            let d = cum_delivered.saturating_sub(prior_reno_sacked).max(1);
            let counted_before = cum_delivered - d;
            self.rate.delivered -= counted_before as u64;
            cum_bytes = cum_bytes.saturating_sub(counted_before as u64 * self.cfg.mss as u64);
            cum_delivered = d;
        }
        let (sacked_n, sacked_bytes) = if self.cfg.sack {
            self.sb.apply_sack(blocks, &mut self.rate, &mut note)
        } else {
            (0, 0)
        };
        if self.cfg.sack {
            self.rack.advance(&note);
            if let Some(low) = note.reord_low {
                self.rack.check_reordering(low, prior_fack, self.cfg.mss);
            }
        }
        let mut dsack_tlp = false;
        if dsack {
            let b = all_blocks[0];
            let dup_segs = (b.end.saturating_sub(b.start)).div_ceil(self.cfg.mss as u64) as u32;
            self.stats.dsacks += 1;
            self.rack.dsack_seen = true;
            self.undo.on_dsack(b.end, dup_segs.max(1));
            // Linux FLAG_DSACK_TLP: the D-SACK is for the probe's retransmission.
            dsack_tlp = self.tlp.retrans && self.tlp.high_seq != 0 && b.end == self.tlp.high_seq;
        }

        // Duplicate ACK (RFC 5681 §2, without the window condition: the receiver never
        // shrinks its right edge, and Linux ignores window changes here too). With SACK
        // only ACKs that SACK new data count (RFC 6675 §2), so duplicates of data the
        // receiver already had do not trigger a fast retransmit.
        let is_dup = !una_advanced
            && h.payload_bytes == 0
            && self.sb.packets_out > 0
            && (!self.cfg.sack || sacked_n > 0);
        let mut reno_delivered = 0;
        if una_advanced {
            self.dupacks = 0;
        } else if is_dup {
            self.dupacks += 1;
            // Without SACK a duplicate ACK stands for one segment that left the network
            // (Linux tcp_add_reno_sack). After an RTO that holds only for data sent beyond
            // the recovery point (Linux tcp_process_loss): below it, duplicate ACKs answer
            // go-back-N retransmissions the receiver already had.
            let counts = self.cc.state() != CaState::Loss || self.snd_nxt > self.high_seq;
            if !self.cfg.sack && counts {
                self.sb.reno_dupack();
                reno_delivered = 1;
                self.rate.delivered += 1;
            }
        }

        // RTT sample: TSecr echo (RFC 7323 RTTM) or Karn. Without timestamps an ACK that
        // covers a retransmitted segment gives no sample at all (RFC 6298 §3, Linux
        // FLAG_RETRANS_DATA_ACKED): it was sent when the retransmission filled the hole,
        // so timing it from an original transmission above the hole overstates the RTT.
        let rtt_sample = if una_advanced {
            match echo_age {
                Some(age) => Some(age),
                _ if cum.retrans_acked => None,
                _ => cum.karn_sent_at.map(|t| now - t),
            }
        } else {
            None
        };
        if let Some(r) = rtt_sample {
            self.record_rtt(now, r);
        }
        let min_rtt = (self.rtt.min_rtt() != SimTime::NEVER).then(|| self.rtt.min_rtt());
        let rate_sample = self.rate.finish_ack(now, min_rtt);

        let delivered = cum_delivered + sacked_n + reno_delivered;
        let mut sample = AckSample {
            now,
            acked: delivered,
            acked_bytes: cum_bytes + sacked_bytes,
            rtt: rtt_sample,
            min_rtt,
            srtt: self.rtt.srtt(),
            prior_in_flight,
            cwnd_limited: self.cwnd_limited(),
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            paced: self.cfg.pacing || self.cc.pacing_rate().is_some(),
            rate: rate_sample,
            mss: self.cfg.mss,
            // Filled in after loss detection, before `cong_control`.
            in_flight: 0,
            delivered: self.rate.delivered,
            lost: 0,
            losses: 0,
            next_departure: self.pacing_next.max(now),
        };
        self.cc.ack_delivered(&sample);
        if lr.rack(self.cfg.sack) {
            let prior_delivered = if delivered > 0 {
                self.rate.prior_delivered()
            } else {
                0
            };
            self.rack
                .update_reo_wnd(lr.recovery, prior_delivered, self.rate.delivered);
        }

        let flags = AckFlags {
            una_advanced,
            prior_una,
            data_sacked: sacked_n > 0,
            dsack,
            orig_acked: note.orig_acked,
            // Linux num_dupack: an ACK that advances nothing and carries no D-SACK.
            dupack: !una_advanced && h.payload_bytes == 0 && !dsack,
            tsecr,
        };
        if self.tlp.high_seq != 0 && ack >= self.tlp.high_seq {
            self.process_tlp_ack(now, ack, &flags, dsack_tlp);
        }
        let newly_lost = self.fastretrans_alert(now, &flags);

        self.lost_total += newly_lost as u64;
        sample.in_flight = self.sb.in_flight();
        sample.losses = newly_lost;
        sample.lost = self.lost_total;
        // Linux tcp_cong_control (crate::cc::call_order): the algorithm's own window, PRR in
        // fast recovery, or growth on an ACK of new data.
        let outstanding = prior_packets_out > 0;
        match self.cc.ack_window(&sample, outstanding, una_advanced) {
            AckWindow::Algorithm {
                mark_app_limited: true,
            } => self.rate.mark_app_limited(self.sb.in_flight()),
            AckWindow::Prr => self.prr(delivered, newly_lost, una_advanced),
            AckWindow::Algorithm { .. } | AckWindow::CongAvoid => {}
        }

        // RFC 6298 §5.2–5.3; a tail loss probe takes the timer's place when it may
        // (Linux tcp_set_xmit_timer).
        if una_advanced {
            self.rto_deadline = if self.sb.is_empty() {
                SimTime::NEVER
            } else {
                now + self.rtt.rto()
            };
            if !self.schedule_loss_probe(now, true) {
                self.tlp.deadline = SimTime::NEVER;
            }
        }
        if self.persist.deadline != SimTime::NEVER {
            // Nothing was in flight: the ACK answers a window probe, or updates the window
            // on its own (Linux tcp_ack → no_queue → tcp_ack_probe).
            self.ack_probe(now);
        }
        self.transmit_after_ack(now, out);
        self.log_cwnd(now);
    }

    /// PRR (RFC 6937) as Linux's `tcp_cwnd_reduction`.
    pub(super) fn prr(&mut self, newly_acked_sacked: u32, newly_lost: u32, una_advanced: bool) {
        if newly_acked_sacked == 0 {
            return;
        }
        self.prr_delivered += newly_acked_sacked;
        let in_flight = self.sb.in_flight() as i64;
        let ssthresh = self.cc.ssthresh() as i64;
        let prior_cwnd = self.cc.w.prior_cwnd.max(1) as u64;
        let delta = ssthresh - in_flight;
        let mut sndcnt = if delta < 0 {
            // Proportional reduction: ceil(prr_delivered · ssthresh / RecoverFS) − prr_out.
            let dividend = ssthresh as u64 * self.prr_delivered as u64 + prior_cwnd - 1;
            (dividend / prior_cwnd) as i64 - self.prr_out as i64
        } else {
            // Slow-start reduction bound.
            let mut s =
                (self.prr_delivered as i64 - self.prr_out as i64).max(newly_acked_sacked as i64);
            if una_advanced && newly_lost == 0 {
                s += 1;
            }
            s.min(delta)
        };
        // Force the fast retransmit on entering recovery.
        sndcnt = sndcnt.max(if self.prr_out > 0 { 0 } else { 1 });
        self.cc.set_cwnd((in_flight + sndcnt).max(1) as u32);
    }

    /// Linux `tcp_xmit_recovery` and the transmission that ends `tcp_ack`: in F-RTO's
    /// step 2b new data goes first, and if none could go the timeout is treated as real.
    fn transmit_after_ack(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        if self.send_new_only {
            self.try_send(now, out);
            self.send_new_only = false;
            if self.snd_nxt > self.high_seq {
                return;
            }
            self.undo.frto = false;
        }
        self.try_send(now, out);
    }
}
