//! Loss detection and the congestion state machine: Linux's `tcp_fastretrans_alert` with
//! `tcp_process_loss` (F-RTO, RFC 5682), the undo functions (`tcp_try_undo_recovery`,
//! `_partial`, `_dsack`, `_loss`, `tcp_undo_cwnd_reduction`), `tcp_identify_packet_loss`
//! (RACK, RFC 6675 or NewReno), `tcp_time_to_recover`, `tcp_enter_recovery`,
//! `tcp_try_keep_open` and the tail loss probe's `tcp_process_tlp_ack`.
//!
//! Like Linux, the machine runs only for "dubious" ACKs: ones that advance nothing, SACK,
//! D-SACK, or arrive outside the Open state (`tcp_ack_is_dubious`).
//!
//! Departures from Linux, each small:
//! - Without SACK, recovery ends when the recovery point is ACKed (RFC 6582), where
//!   Linux holds the Recovery state until something above it is ACKed.
//! - A partial undo while retransmissions are still in flight (Linux returns from
//!   `tcp_fastretrans_alert` without retransmitting on that ACK) does not hold back the
//!   retransmissions already marked.
//! - With every mechanism off ([`crate::tcp::LossRecoveryConfig::CLASSIC`]) the machine is
//!   the RFC 6675 / RFC 6582 one: duplicate-ACK threshold, `IsLost` marking, the head
//!   retransmitted on entry.

use super::TcpSender;
use crate::cc::CaState;
use crate::tcp::rack::TLP_MIN_SLACK;
use mmtsim_engine::SimTime;

/// What one ACK told the state machine (Linux's `flag` bits it reads).
#[derive(Clone, Copy, Debug)]
pub(super) struct AckFlags {
    /// SND.UNA advanced (`FLAG_SND_UNA_ADVANCED`).
    pub una_advanced: bool,
    /// SND.UNA before the ACK.
    pub prior_una: u64,
    /// New data was SACKed (`FLAG_DATA_SACKED`).
    pub data_sacked: bool,
    /// The ACK carried a D-SACK (`FLAG_DSACKING_ACK`).
    pub dsack: bool,
    /// Never-retransmitted data up to the recovery point was delivered
    /// (`FLAG_ORIG_SACK_ACKED`).
    pub orig_acked: bool,
    /// A duplicate ACK (`num_dupack` > 0).
    pub dupack: bool,
    /// The echoed timestamp, when timestamps are in use.
    pub tsecr: Option<u32>,
}

impl TcpSender {
    /// Linux `tcp_fastretrans_alert`; returns the segments newly marked lost.
    pub(super) fn fastretrans_alert(&mut self, now: SimTime, f: &AckFlags) -> u32 {
        let rack = self.cfg.loss_recovery.rack(self.cfg.sack);
        let mut newly_lost = 0;
        if self.cfg.sack && !rack && f.data_sacked {
            newly_lost += self.sb.mark_lost_rfc6675(self.cfg.dupthresh, self.cfg.mss);
        }
        let dubious =
            !f.una_advanced || f.data_sacked || f.dsack || self.cc.state() != CaState::Open;
        if !dubious {
            return newly_lost;
        }

        // D. Leave a finished fast recovery.
        match self.cc.state() {
            CaState::Open => self.undo.retrans_stamp = None,
            CaState::Recovery if self.snd_una >= self.high_seq => {
                self.sb.reno_reset();
                self.dupacks = 0;
                self.try_undo_recovery(now, f);
            }
            _ => {}
        }

        // E. Process the state.
        match self.cc.state() {
            CaState::Recovery => {
                if f.una_advanced && self.try_undo_partial(now, f) {
                    return newly_lost;
                }
                if self.try_undo_dsack(now) {
                    self.try_keep_open();
                }
                let (lost, _) = self.identify_packet_loss(now, f);
                newly_lost += lost;
                if self.cc.state() != CaState::Recovery {
                    if !self.time_to_recover() {
                        return newly_lost;
                    }
                    newly_lost += self.enter_recovery(now);
                }
                newly_lost
            }
            CaState::Loss => {
                self.process_loss(now, f);
                let (lost, retrans_lost) = self.identify_packet_loss(now, f);
                newly_lost += lost;
                if self.cc.state() == CaState::Open || retrans_lost > 0 {
                    newly_lost += self.open_state(now, f);
                }
                newly_lost
            }
            CaState::Open | CaState::Disorder | CaState::Cwr => {
                newly_lost + self.open_state(now, f)
            }
        }
    }

    /// The default branch of `tcp_fastretrans_alert`: no recovery under way (or a loss
    /// episode just reopened); enter fast recovery if loss is evident.
    fn open_state(&mut self, now: SimTime, f: &AckFlags) -> u32 {
        if matches!(self.cc.state(), CaState::Open | CaState::Disorder) {
            self.try_undo_dsack(now);
        }
        let (mut newly_lost, _) = self.identify_packet_loss(now, f);
        if !self.time_to_recover() {
            self.try_keep_open();
            return newly_lost;
        }
        newly_lost += self.enter_recovery(now);
        newly_lost
    }

    /// Linux `tcp_time_to_recover`: loss is proven, or (without RACK) the duplicate-ACK
    /// threshold is reached.
    fn time_to_recover(&self) -> bool {
        if self.sb.is_empty() {
            return false;
        }
        let rack = self.cfg.loss_recovery.rack(self.cfg.sack);
        (self.cfg.sack && self.sb.lost_out > 0) || (!rack && self.dupacks >= self.cfg.dupthresh)
    }

    /// Linux `tcp_enter_recovery`; without RACK the head is marked lost for the fast
    /// retransmit (RFC 6675 §5, RFC 6582 §3.2). Returns the segments newly marked lost.
    pub(super) fn enter_recovery(&mut self, _now: SimTime) -> u32 {
        let mut newly_lost = 0;
        if !self.cfg.loss_recovery.rack(self.cfg.sack) && self.sb.mark_head_lost() {
            newly_lost += 1;
        }
        self.high_seq = self.snd_nxt;
        self.undo.init(
            self.snd_una,
            self.sb.retrans_out,
            self.tlp.high_seq != 0 && self.tlp.retrans,
        );
        self.cc.enter_recovery(self.high_seq);
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.tlp.high_seq = 0;
        self.stats.fast_recoveries += 1;
        newly_lost
    }

    /// Linux `tcp_identify_packet_loss`: (segments newly lost, of which retransmissions).
    fn identify_packet_loss(&mut self, now: SimTime, f: &AckFlags) -> (u32, u32) {
        if self.sb.is_empty() {
            return (0, 0);
        }
        if !self.cfg.sack {
            // NewReno partial ACK (RFC 6582 §3.2 step 5): the next hole is lost.
            let partial = self.cc.state() == CaState::Recovery
                && f.una_advanced
                && self.snd_una < self.high_seq;
            return ((partial && self.sb.mark_head_lost()) as u32, 0);
        }
        if !self.cfg.loss_recovery.rack(true) || !self.rack.advanced {
            return (0, 0);
        }
        self.rack.advanced = false;
        let pass = self.rack_pass(now);
        if pass.wait > SimTime::ZERO {
            // Linux tcp_rack_mark_lost: wait for the rest with the reordering timer.
            self.rack.reo_deadline = now + pass.wait + TLP_MIN_SLACK;
        }
        (pass.newly_lost, pass.retrans_lost)
    }

    /// One RACK pass at `now` with the reordering window of the current state.
    pub(super) fn rack_pass(&mut self, now: SimTime) -> crate::tcp::scoreboard::rack::RackPass {
        let in_recovery = matches!(self.cc.state(), CaState::Recovery | CaState::Loss);
        let reo_wnd = self.rack.reo_wnd(
            in_recovery,
            self.sb.sacked_out,
            self.cfg.loss_recovery.recovery,
            self.rtt.min_rtt(),
            self.rtt.srtt().unwrap_or(SimTime::ZERO),
        );
        self.sb.rack_detect_loss(&self.rack, reo_wnd, now)
    }

    /// Linux `tcp_process_loss`: an ACK while recovering from a timeout.
    fn process_loss(&mut self, now: SimTime, f: &AckFlags) {
        let recovered = self.snd_una >= self.high_seq;
        if f.una_advanced && self.try_undo_loss(now, f.tsecr, false) {
            return;
        }
        if self.undo.frto {
            // RFC 5682 §3.1 step 3.b (SACK-enhanced): never-retransmitted data was
            // delivered, so not everything was lost: the timeout was spurious.
            if f.orig_acked && self.try_undo_loss(now, f.tsecr, true) {
                return;
            }
            if self.snd_nxt > self.high_seq {
                // Step 3.a: new data went out and the receiver reports a hole: real loss.
                if f.data_sacked || f.dupack {
                    self.undo.frto = false;
                }
            } else if f.una_advanced && !recovered {
                // Step 2.b: send new data (after the window update) to test the path.
                self.high_seq = self.snd_nxt;
                if self.app_end > self.snd_nxt
                    && self.snd_una + self.snd_wnd >= self.snd_nxt + self.cfg.mss as u64
                {
                    self.send_new_only = true;
                    return;
                }
                self.undo.frto = false;
            }
        }
        if recovered {
            // RFC 5682 step 2.a and the first part of 3.a: the episode is over.
            self.try_undo_recovery(now, f);
            self.sb.reno_reset();
            self.dupacks = 0;
        }
    }

    /// Linux `tcp_try_undo_recovery` at the end of an episode: undo if it was spurious,
    /// then leave it (settling at ssthresh after a fast recovery that was not undone).
    fn try_undo_recovery(&mut self, now: SimTime, f: &AckFlags) {
        let undone = self.cfg.loss_recovery.undo && self.undo.may_undo(f.tsecr);
        if undone {
            if self.cc.state() == CaState::Loss {
                self.stats.loss_undos += 1;
            }
            self.note_undo(now, false);
        } else if self.rack.reo_wnd_persist > 0 {
            self.rack.reo_wnd_persist -= 1;
        }
        // The window's side: the undo, then the end of the episode.
        self.cc.end_episode(now, undone);
    }

    /// Linux `tcp_try_undo_partial`: a partial ACK whose echo predates the first
    /// retransmission shows the hole was filled by a delayed original. Returns true when
    /// retransmissions are still in flight (nothing more is done for this ACK).
    fn try_undo_partial(&mut self, now: SimTime, f: &AckFlags) -> bool {
        if !(self.cfg.loss_recovery.undo
            && self.undo.marker.is_some()
            && self.undo.packet_delayed(f.tsecr))
        {
            return false;
        }
        let fack = self.sb.fack(self.snd_una);
        self.rack.check_reordering(f.prior_una, fack, self.cfg.mss);
        if self.sb.retrans_out > 0 {
            return true;
        }
        if !self.any_retrans_done() {
            self.undo.retrans_stamp = None;
        }
        self.undo_cwnd_reduction(now, true);
        self.try_keep_open();
        false
    }

    /// Linux `tcp_try_undo_dsack`: D-SACKs accounted for every retransmission.
    fn try_undo_dsack(&mut self, now: SimTime) -> bool {
        if self.cfg.loss_recovery.undo && self.undo.marker.is_some() && self.undo.retrans == 0 {
            self.rack.reo_wnd_persist =
                (self.rack.reo_wnd_persist + 1).min(crate::tcp::rack::RACK_RECOVERY_THRESH);
            self.undo_cwnd_reduction(now, false);
            return true;
        }
        false
    }

    /// Linux `tcp_try_undo_loss`: a timeout shown spurious by Eifel, D-SACKs or F-RTO.
    fn try_undo_loss(&mut self, now: SimTime, tsecr: Option<u32>, frto_undo: bool) -> bool {
        if !self.cfg.loss_recovery.undo || !(frto_undo || self.undo.may_undo(tsecr)) {
            return false;
        }
        self.undo_cwnd_reduction(now, true);
        self.stats.loss_undos += 1;
        if frto_undo {
            self.stats.spurious_rtos += 1;
        }
        self.rto_retransmits = 0;
        if frto_undo || self.cfg.sack {
            self.cc.set_ca_state(CaState::Open);
        }
        true
    }

    /// Linux `tcp_undo_cwnd_reduction`: the window and ssthresh return to their values
    /// before the reduction; with `unmark_loss` the lost marks go too.
    fn undo_cwnd_reduction(&mut self, now: SimTime, unmark_loss: bool) {
        self.cc.undo();
        self.note_undo(now, unmark_loss);
    }

    /// The sender's side of `tcp_undo_cwnd_reduction` (the window's is
    /// [`crate::cc::Controller::undo`]): the lost marks with `unmark_loss`, the undo
    /// marker, RACK's pass, the counts.
    fn note_undo(&mut self, now: SimTime, unmark_loss: bool) {
        if unmark_loss {
            self.sb.unmark_lost();
        }
        self.undo.marker = None;
        self.rack.advanced = true;
        self.stats.undos += 1;
        self.log.undo_t_ns.push(now.ns());
    }

    /// Linux `tcp_any_retrans_done`.
    fn any_retrans_done(&self) -> bool {
        self.sb.retrans_out > 0 || self.sb.head().is_some_and(|s| s.ever_retransmitted())
    }

    /// Linux `tcp_try_keep_open` (within `tcp_try_to_open`): Disorder while anything is
    /// SACKed, lost or retransmitted, else Open.
    pub(super) fn try_keep_open(&mut self) {
        if !self.any_retrans_done() {
            self.undo.retrans_stamp = None;
        }
        let left_out = self.sb.sacked_out + self.sb.lost_out + self.sb.reno_sacked;
        let target = if left_out > 0 || self.any_retrans_done() {
            CaState::Disorder
        } else {
            CaState::Open
        };
        if self.cc.state() != target {
            self.cc.set_ca_state(target);
            self.high_seq = self.snd_nxt;
        }
    }

    /// Linux `tcp_process_tlp_ack`, for an ACK at or above the probe's `tlp_high_seq`.
    pub(super) fn process_tlp_ack(
        &mut self,
        now: SimTime,
        ack: u64,
        f: &AckFlags,
        dsack_tlp: bool,
    ) {
        if !self.tlp.retrans || dsack_tlp {
            // A probe of new data, or the receiver had the original too: no loss.
            self.tlp.high_seq = 0;
        } else if ack > self.tlp.high_seq {
            // The probe's retransmission repaired a loss: reduce once.
            self.tlp.high_seq = 0;
            self.high_seq = self.snd_nxt;
            self.cc.tlp_reduction(now);
            self.try_keep_open();
            self.stats.tlp_recoveries += 1;
        } else if !(f.una_advanced || f.data_sacked) {
            // A pure duplicate ACK: the original and the probe both arrived.
            self.tlp.high_seq = 0;
        }
    }
}
