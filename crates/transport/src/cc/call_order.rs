//! The congestion-control side of a TCP connection: [`Controller`] keeps the window, the
//! congestion-avoidance state and what an undo restores, and calls the algorithm's hooks
//! in Linux's order.

use super::{
    AckSample, CaState, CcParams, CongestionControl, CwndEvent, RtoSsthresh, Window,
    INFINITE_SSTHRESH,
};
use mmtsim_engine::{Rate, SimTime};

/// A window driven by an algorithm through the Linux call sequence.
pub struct Controller {
    /// The window (segments).
    pub w: Window,
    cc: Box<dyn CongestionControl>,
    state: CaState,
    /// Segments acknowledged when the current loss episode began is over (SND.UNA ≥ this).
    episode_end: u64,
    /// The algorithm has taken over the window through `cong_control` (Linux decides by the
    /// presence of the hook; here the first `true` it returns marks it).
    owns_window: bool,
    /// When a timeout recomputes ssthresh.
    pub rto_ssthresh: RtoSsthresh,
    /// ssthresh to restore on undo (Linux `prior_ssthresh`); 0: nothing to restore.
    prior_ssthresh: u32,
}

impl Controller {
    /// A controller with `initial_cwnd` segments, initialised at `now`.
    pub fn new(params: &CcParams, initial_cwnd: u32, now: SimTime) -> Self {
        let mut w = Window::new(initial_cwnd.max(1));
        let mut cc = params.build();
        cc.init(&mut w, now);
        Controller {
            w,
            cc,
            state: CaState::Open,
            episode_end: 0,
            owns_window: false,
            rto_ssthresh: RtoSsthresh::Linux,
            prior_ssthresh: 0,
        }
    }

    /// The algorithm's name.
    pub fn name(&self) -> &'static str {
        self.cc.name()
    }
    /// Congestion window, segments.
    pub fn cwnd(&self) -> u32 {
        self.w.cwnd
    }
    /// Slow-start threshold, segments.
    pub fn ssthresh(&self) -> u32 {
        self.w.ssthresh
    }
    /// Current state.
    pub fn state(&self) -> CaState {
        self.state
    }
    /// Pacing rate requested by the algorithm (payload bits per second).
    pub fn pacing_rate(&self) -> Option<Rate> {
        self.cc.pacing_rate()
    }
    /// True once the algorithm has taken over the window through `cong_control`.
    pub fn owns_window(&self) -> bool {
        self.owns_window
    }
    /// The algorithm asks for the data in flight to be marked application-limited.
    pub fn request_app_limited(&self) -> bool {
        self.cc.request_app_limited()
    }
    /// Algorithm-specific trace values.
    pub fn metrics(&self) -> Vec<(&'static str, f64)> {
        self.cc.metrics()
    }

    /// One ACK that delivered data: [`Self::pkts_acked`], then [`Self::cong_control`] and,
    /// unless the algorithm took the window over, [`Self::cong_avoid`].
    pub fn on_ack(&mut self, s: &AckSample) {
        self.pkts_acked(s);
        if !self.cong_control(s) {
            self.cong_avoid(s);
        }
    }

    /// Linux `tcp_cong_control`'s hook, in every state; true if the algorithm set the
    /// window itself (then the caller must not apply `cong_avoid` or PRR for this ACK).
    pub fn cong_control(&mut self, s: &AckSample) -> bool {
        let took = self.cc.cong_control(&mut self.w, s);
        self.owns_window |= took;
        took
    }

    /// Per-ACK bookkeeping, in every state (Linux calls it before updating the state).
    pub fn pkts_acked(&mut self, s: &AckSample) {
        self.cc.pkts_acked(&mut self.w, s);
    }

    /// Window growth, unless PRR owns the window (Recovery) or nothing was delivered.
    pub fn cong_avoid(&mut self, s: &AckSample) {
        if matches!(
            self.state,
            CaState::Open | CaState::Disorder | CaState::Loss
        ) && s.acked > 0
        {
            self.cc.cong_avoid(&mut self.w, s);
        }
    }

    /// Linux `tcp_current_ssthresh`: in a reduction, ssthresh; otherwise at least ¾ cwnd.
    pub fn current_ssthresh(&self) -> u32 {
        if matches!(self.state, CaState::Recovery | CaState::Cwr) {
            self.w.ssthresh
        } else {
            self.w.ssthresh.max((self.w.cwnd >> 1) + (self.w.cwnd >> 2))
        }
    }

    /// Linux `tcp_cwnd_restart` after `idle` with retransmission timeout `rto`: the window
    /// restarts from min(cwnd, `initial_cwnd`), halved per idle RTO but not below that.
    /// Not applied to an algorithm that owns the window (Linux
    /// `tcp_slow_start_after_idle_check` returns early when `cong_control` is set).
    pub fn restart_after_idle(&mut self, idle: SimTime, rto: SimTime, initial_cwnd: u32) {
        if self.owns_window {
            return;
        }
        self.w.ssthresh = self.current_ssthresh();
        let restart = initial_cwnd.min(self.w.cwnd);
        let mut cwnd = self.w.cwnd;
        let mut delta = idle.ns() as i128 - rto.ns() as i128;
        while delta > 0 && cwnd > restart {
            cwnd >>= 1;
            delta -= rto.ns() as i128;
        }
        self.w.cwnd = cwnd.max(restart);
    }

    /// Moves between Open and Disorder (duplicate ACKs without inferred loss).
    pub fn set_disorder(&mut self, disorder: bool) {
        let target = if disorder {
            CaState::Disorder
        } else {
            CaState::Open
        };
        if matches!(self.state, CaState::Open | CaState::Disorder) && self.state != target {
            self.cc.set_state(&mut self.w, target);
            self.state = target;
        }
    }

    /// ssthresh an undo would restore (Linux `prior_ssthresh`).
    pub fn prior_ssthresh(&self) -> u32 {
        self.prior_ssthresh
    }

    /// Fast recovery begins; `high_seq` is the recovery point (SND.NXT now).
    pub fn enter_recovery(&mut self, high_seq: u64) {
        // Linux tcp_enter_recovery: remember the pre-reduction ssthresh unless a reduction
        // is already under way.
        self.prior_ssthresh = if matches!(self.state, CaState::Recovery | CaState::Cwr) {
            0
        } else {
            self.current_ssthresh()
        };
        self.w.prior_cwnd = self.w.cwnd;
        self.w.ssthresh = self.cc.ssthresh(&self.w);
        self.w.cwnd_cnt = 0;
        self.cc.set_state(&mut self.w, CaState::Recovery);
        self.state = CaState::Recovery;
        self.episode_end = high_seq;
    }

    /// PRR (or a test) sets the window during recovery.
    pub fn set_cwnd(&mut self, cwnd: u32) {
        self.w.cwnd = cwnd.clamp(1, self.w.cwnd_clamp);
    }

    /// Recovery or loss episode is over (SND.UNA passed the recovery point). After a fast
    /// recovery that was not `undone` the window settles at ssthresh (Linux
    /// `tcp_end_cwnd_reduction`); an algorithm that owns the window keeps it (Linux returns
    /// early when `cong_control` is set): it only hears the state change.
    pub fn end_recovery(&mut self, now: SimTime, undone: bool) {
        if self.state == CaState::Recovery && !self.owns_window {
            if self.w.ssthresh < INFINITE_SSTHRESH && !undone {
                self.w.cwnd = self.w.ssthresh;
            }
            self.cc.cwnd_event(&mut self.w, CwndEvent::CompleteCwr, now);
        }
        self.set_ca_state(CaState::Open);
    }

    /// [`Self::end_recovery`] of a reduction that was not undone.
    pub fn exit_recovery(&mut self, now: SimTime) {
        self.end_recovery(now, false);
    }

    /// Moves to `state` without touching the window (Linux `tcp_set_ca_state`).
    pub fn set_ca_state(&mut self, state: CaState) {
        if self.state != state {
            self.cc.set_state(&mut self.w, state);
            self.state = state;
        }
    }

    /// The reduction in progress was spurious (Linux `tcp_undo_cwnd_reduction`): cwnd from
    /// the algorithm's `undo_cwnd`, ssthresh back up to `prior_ssthresh`. Nothing changes
    /// when no ssthresh was saved (a reduction entered during another).
    pub fn undo(&mut self) {
        if self.prior_ssthresh == 0 {
            return;
        }
        let cwnd = self.cc.undo_cwnd(&mut self.w);
        self.w.cwnd = cwnd.clamp(1, self.w.cwnd_clamp);
        if self.prior_ssthresh > self.w.ssthresh {
            self.w.ssthresh = self.prior_ssthresh;
        }
    }

    /// A tail loss probe repaired a loss: one reduction, at once (Linux
    /// `tcp_process_tlp_ack`: `tcp_init_cwnd_reduction`, CWR, `tcp_end_cwnd_reduction`).
    /// The caller then reopens the state (`tcp_try_keep_open`).
    pub fn tlp_reduction(&mut self, now: SimTime) {
        self.w.prior_cwnd = self.w.cwnd;
        self.w.ssthresh = self.cc.ssthresh(&self.w);
        self.w.cwnd_cnt = 0;
        self.set_ca_state(CaState::Cwr);
        if !self.owns_window {
            if self.w.ssthresh < INFINITE_SSTHRESH {
                self.w.cwnd = self.w.ssthresh;
            }
            self.cc.cwnd_event(&mut self.w, CwndEvent::CompleteCwr, now);
        }
    }

    /// Retransmission timeout. `in_flight` is the segments still in flight after everything
    /// outstanding was marked lost (normally 0); `snd_una`/`snd_nxt` delimit the episode;
    /// `loss_reopened` is Linux's third case of a new episode: still in Loss, but an undo
    /// or an ACK of new data has cleared the timeout count since the last timeout.
    /// Returns true when this timeout reduced ssthresh (a new episode, or every timeout
    /// under [`RtoSsthresh::Ns3`]).
    pub fn enter_loss(
        &mut self,
        now: SimTime,
        in_flight: u32,
        snd_una: u64,
        snd_nxt: u64,
        loss_reopened: bool,
    ) -> bool {
        let first_in_episode = matches!(self.state, CaState::Open | CaState::Disorder)
            || snd_una >= self.episode_end
            || (self.state == CaState::Loss && loss_reopened);
        let reduce = first_in_episode || self.rto_ssthresh == RtoSsthresh::Ns3;
        if reduce {
            self.prior_ssthresh = self.current_ssthresh();
            self.w.prior_cwnd = self.w.cwnd;
            self.w.ssthresh = self.cc.ssthresh(&self.w);
            self.cc.cwnd_event(&mut self.w, CwndEvent::Loss, now);
        }
        self.w.cwnd = in_flight + 1;
        self.w.cwnd_cnt = 0;
        self.cc.set_state(&mut self.w, CaState::Loss);
        self.state = CaState::Loss;
        self.episode_end = snd_nxt;
        reduce
    }

    /// [`Self::enter_loss`] for a timeout that is not a reopened loss episode (the
    /// standalone API's retransmission timeout).
    pub fn on_rto(&mut self, now: SimTime, in_flight: u32, snd_una: u64, snd_nxt: u64) {
        self.enter_loss(now, in_flight, snd_una, snd_nxt, false);
    }

    /// Hands the sender's radio view to the algorithm (cross-layer algorithms only read it).
    pub fn link_view(&mut self, view: &dyn mmtsim_net::linkview::LinkView, now: SimTime) {
        self.cc.link_view(view, now);
    }

    /// Reports an event to the algorithm.
    pub fn event(&mut self, ev: CwndEvent, now: SimTime) {
        self.cc.cwnd_event(&mut self.w, ev, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns3_recomputes_ssthresh_at_every_backed_off_timeout() {
        // cwnd 100, nothing left in flight after each timeout. First timeout: Reno
        // max(100/2, 2) = 50, BIC 100·819/1024 = 79 (β = 0.8) under both rules. The
        // retransmission times out again in the same episode: Linux keeps 50 / 79; ns-3
        // asks again with the one-segment window: Reno max(1/2, 2) = 2, BIC below its low
        // window of 14 falls back to max(1/2, 2) = 2.
        for (cc, mode, first, second) in [
            ("newreno", RtoSsthresh::Linux, 50, 50),
            ("newreno", RtoSsthresh::Ns3, 50, 2),
            ("bic", RtoSsthresh::Linux, 79, 79),
            ("bic", RtoSsthresh::Ns3, 79, 2),
        ] {
            let mut c = Controller::new(&CcParams::default_for(cc).unwrap(), 100, SimTime::ZERO);
            c.rto_ssthresh = mode;
            c.on_rto(SimTime::from_ms(300), 0, 1, 140_001);
            assert_eq!((c.ssthresh(), c.cwnd()), (first, 1), "{cc} {mode:?}");
            c.on_rto(SimTime::from_ms(900), 0, 1, 140_001);
            assert_eq!(
                (c.ssthresh(), c.cwnd()),
                (second, 1),
                "{cc} {mode:?}, backed off"
            );
        }
    }
}
