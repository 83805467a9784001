//! The sender's timers: the SYN and data retransmission timeouts (RFC 6298; Linux
//! `tcp_retransmit_timer` → `tcp_enter_loss`), the tail loss probe (RFC 8985 §7; Linux
//! `tcp_schedule_loss_probe`, `tcp_send_loss_probe`) and RACK's reordering timer (Linux
//! `tcp_rack_reo_timeout`).
//!
//! Linux keeps these in one timer slot; here each has its own deadline, with the same
//! effect: a probe is never scheduled later than the RTO would fire, and sending a probe
//! restarts the RTO from now.

use super::TcpSender;
use crate::cc::CaState;
use crate::tcp::rack::probe_timeout;
use mmtsim_engine::SimTime;
use mmtsim_net::packet::TcpHeader;

impl TcpSender {
    /// Timer expiry check at `now`.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        // A probe due no later than the RTO holds the timer slot (Linux arms one or the
        // other), so it goes first.
        let probe_due = now >= self.tlp.deadline && self.tlp.deadline <= self.rto_deadline;
        if probe_due {
            self.send_loss_probe(now, out);
        } else if now >= self.rto_deadline {
            match self.state {
                super::SenderState::SynSent => {
                    self.stats.syn_retransmits += 1;
                    self.syn_retransmitted = true;
                    self.rtt.back_off();
                    self.send_syn(now, out);
                }
                super::SenderState::Established if !self.sb.is_empty() => self.on_rto(now, out),
                _ => self.rto_deadline = SimTime::NEVER,
            }
        } else if now >= self.rack.reo_deadline {
            self.reo_timeout(now, out);
        }
        // The persist timer runs only while nothing is in flight, when the others do not.
        if now >= self.persist.deadline {
            self.persist_timeout(now, out);
        }
        if self.pacing_blocked && now >= self.pacing_next {
            self.try_send(now, out);
        }
        self.log_cwnd(now);
    }

    fn on_rto(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.stats.rtos += 1;
        self.log.rto_t_ns.push(now.ns());
        let lr = self.cfg.loss_recovery;
        let new_recovery = matches!(
            self.cc.state(),
            CaState::Open | CaState::Disorder | CaState::Cwr
        );
        // Linux tcp_timeout_mark_lost counts newly lost segments and retransmissions lost
        // again. With RACK, segments sent within the last RACK RTT (other than the head)
        // are not declared lost yet; without it nothing is spared.
        let spare = if lr.rack(self.cfg.sack) {
            self.rack.rtt
        } else {
            SimTime::ZERO
        };
        self.lost_total += self.sb.mark_lost_on_timeout(now, spare) as u64;
        let loss_reopened = self.rto_retransmits == 0;
        let reduced = self.cc.enter_loss(
            now,
            self.sb.in_flight(),
            self.snd_una,
            self.snd_nxt,
            loss_reopened,
        );
        if reduced {
            let tlp_retrans = self.tlp.high_seq != 0 && self.tlp.retrans;
            self.undo
                .init(self.snd_una, self.sb.retrans_out, tlp_retrans);
        }
        self.high_seq = self.snd_nxt;
        self.dupacks = 0;
        self.tlp.high_seq = 0;
        self.tlp.deadline = SimTime::NEVER;
        self.rack.reo_deadline = SimTime::NEVER;
        // RFC 5682 §3.1 step 1: F-RTO unless a fast recovery was under way, except for
        // repeated timeouts of the same data (§3.2).
        self.undo.frto = lr.frto != 0 && (new_recovery || self.rto_retransmits > 0);
        self.rto_retransmits += 1;
        self.rtt.back_off();
        self.rto_deadline = now + self.rtt.rto();
        // Pacing must not hold back the retransmission of the head.
        self.pacing_next = now;
        self.try_send(now, out);
    }

    /// Linux `tcp_schedule_loss_probe`: arm the probe timer if a probe may be sent;
    /// `advancing_rto` when an ACK is about to restart the RTO (so the whole RTO bounds
    /// the probe), otherwise the RTO's remaining time does.
    #[inline]
    pub(super) fn schedule_loss_probe(&mut self, now: SimTime, advancing_rto: bool) -> bool {
        if !self.cfg.loss_recovery.tlp(self.cfg.sack)
            || self.sb.packets_out == 0
            || !matches!(self.cc.state(), CaState::Open | CaState::Cwr)
        {
            return false;
        }
        let rto_left = if advancing_rto {
            self.rtt.rto()
        } else if self.rto_deadline == SimTime::NEVER {
            SimTime::ZERO
        } else {
            self.rto_deadline.saturating_sub(now)
        };
        let pto = probe_timeout(
            self.rtt.srtt(),
            self.sb.packets_out,
            self.cfg.min_rto,
            rto_left,
        );
        self.tlp.deadline = now + pto;
        true
    }

    /// Linux `tcp_send_loss_probe`: one segment, new if the window allows, else the last
    /// one again, whatever cwnd says; at most one probe outstanding.
    fn send_loss_probe(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.tlp.deadline = SimTime::NEVER;
        if self.tlp.high_seq != 0 || self.state != super::SenderState::Established {
            return;
        }
        let avail = self.app_end.saturating_sub(self.snd_nxt);
        let room = (self.snd_una + self.snd_wnd).saturating_sub(self.snd_nxt);
        let len = (self.cfg.mss as u64).min(avail) as u32;
        let h = if len > 0 && len as u64 <= room {
            let stamp = self.rate.on_send(now, self.sb.packets_out);
            let seq = self.snd_nxt;
            self.sb.push(seq, len, now, stamp);
            self.snd_nxt += len as u64;
            self.tlp.retrans = false;
            self.header(now, seq, len, false)
        } else {
            let stamp = self.rate.on_send(now, self.sb.packets_out);
            let Some(s) = self.sb.on_probe_retransmit(now, stamp) else {
                return;
            };
            self.stats.retransmits += 1;
            self.tlp.retrans = true;
            self.header(now, s.seq, s.len, true)
        };
        out.push(h);
        self.stats.segments_sent += 1;
        self.stats.tlp_probes += 1;
        self.last_send = now;
        self.tlp.high_seq = self.snd_nxt;
        self.rto_deadline = now + self.rtt.rto();
    }

    /// Linux `tcp_rack_reo_timeout`: segments that waited out the reordering window are
    /// lost; the first such loss starts a fast recovery with one PRR step.
    fn reo_timeout(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.rack.reo_deadline = SimTime::NEVER;
        if self.sb.is_empty() {
            return;
        }
        let prior_in_flight = self.sb.in_flight();
        // Linux does not re-arm the timer here: the next ACK's pass does.
        let pass = self.rack_pass(now);
        self.lost_total += pass.newly_lost as u64;
        if self.sb.in_flight() != prior_in_flight {
            if self.cc.state() != CaState::Recovery {
                self.enter_recovery(now);
                if !self.cc.owns_window() {
                    self.prr(1, pass.newly_lost, false);
                }
            }
            self.try_send(now, out);
        }
    }
}
