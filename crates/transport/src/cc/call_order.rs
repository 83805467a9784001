//! The congestion-control side of a TCP connection and the order in which TCP calls the
//! algorithm: [`Controller`] keeps the window, the congestion-avoidance state and what an
//! undo restores (Linux's `snd_cwnd`, `snd_ssthresh`, `prior_cwnd`, `prior_ssthresh`,
//! `icsk_ca_state`), and each of its sequences makes the hook calls of one Linux function,
//! in Linux's order. The TCP sender (`tcp::sender`) calls them where Linux does, and the
//! standalone `mmtsim.cc.CongestionControl` calls the very same functions with the inputs
//! Python gives, so a window computed alone follows the same path as one inside a run.
//!
//! # Per ACK (Linux `tcp_ack`)
//! Two steps, because loss detection and the state machine (`tcp_fastretrans_alert`, in the
//! sender) run between them:
//! 1. [`Controller::ack_delivered`]: the algorithm's `pkts_acked` (Linux calls it from
//!    `tcp_clean_rtx_queue`), in every state, for an ACK that delivered data or gave an
//!    RTT sample. A sender with a radio view has handed it over just before
//!    ([`Controller::link_view`]; the run loop does so before each segment from the peer).
//! 2. [`Controller::ack_window`]: Linux `tcp_cong_control`. The algorithm's `cong_control`
//!    first, only if data was outstanding before the ACK (`tcp_ack` skips it otherwise);
//!    when it took the window, its wish to flag the flight application-limited is passed
//!    on. Otherwise PRR in fast recovery (`tcp_cwnd_reduction`: the caller runs it, since
//!    it needs the scoreboard), or `cong_avoid` for an ACK that advanced SND.UNA
//!    (`tcp_may_raise_cwnd`) in the Open, Disorder and Loss states.
//!
//! [`Controller::ack`] is both steps with nothing between them: a standalone ACK.
//!
//! # Reductions
//! - Fast recovery: [`Controller::enter_recovery`] (`tcp_enter_recovery` with
//!   `tcp_init_cwnd_reduction`): `prior_ssthresh` = `tcp_current_ssthresh` unless a
//!   reduction is already under way, `prior_cwnd`, ssthresh from the algorithm's
//!   `ssthresh`, `set_state(Recovery)`. The sender enters once per episode (RFC 6582's
//!   `recover`, RFC 6675's `RecoveryPoint`); PRR then sets the window through
//!   [`Controller::set_cwnd`].
//! - Retransmission timeout: [`Controller::enter_loss`] (`tcp_enter_loss`): in a new loss
//!   episode `prior_ssthresh`, `prior_cwnd`, the algorithm's `ssthresh` and
//!   `CA_EVENT_LOSS`; then cwnd = in flight + 1 and `set_state(Loss)`. [`RtoSsthresh::Ns3`]
//!   reduces at every timeout instead (ns-3 from 3.27), for comparisons with ns-3 results.
//! - A tail loss probe that repaired a loss: [`Controller::tlp_reduction`]
//!   (`tcp_process_tlp_ack`: `tcp_init_cwnd_reduction`, CWR, `tcp_end_cwnd_reduction`).
//!
//! # Undo and the end of an episode
//! - [`Controller::undo`] is `tcp_undo_cwnd_reduction`: cwnd from the algorithm's
//!   `undo_cwnd` (Linux's `tcp_reno_undo_cwnd`, max(cwnd, prior_cwnd), unless the algorithm
//!   overrides it: H-TCP also restores its congestion clock, BBR keeps cwnd and restarts
//!   its full-pipe and long-term estimators), ssthresh back up to `prior_ssthresh`. The
//!   sender calls it alone for the undos inside an episode (`tcp_try_undo_partial`,
//!   `_dsack`, `_loss`), then sets the state it chooses ([`Controller::set_ca_state`]).
//! - [`Controller::end_episode`]: SND.UNA reached the recovery point (step D of
//!   `tcp_fastretrans_alert`, or `tcp_process_loss`): `tcp_try_undo_recovery`'s undo when
//!   the reduction proved spurious, then [`Controller::end_recovery`]: after a fast
//!   recovery the window settles at ssthresh unless undone and `CA_EVENT_COMPLETE_CWR`
//!   fires (`tcp_end_cwnd_reduction`); then the Open state.
//!
//! # Idle restart
//! [`Controller::tx_start`]: the first transmission with nothing in flight. After an idle
//! time longer than the RTO, with slow start after idle on, the window restarts
//! (`tcp_cwnd_restart`, from `tcp_slow_start_after_idle_check`); then `CA_EVENT_TX_START`.
//!
//! # An algorithm that owns the window
//! An algorithm with Linux's `cong_control` hook (BBR) answers `true` from
//! [`CongestionControl::cong_control`]; neither `cong_avoid` nor PRR then runs for that
//! ACK, and the controller skips what Linux skips when the hook is set: the cwnd = ssthresh
//! settlement and `CA_EVENT_COMPLETE_CWR` at the end of a reduction
//! (`tcp_end_cwnd_reduction`) and the restart after idle.
//!
//! # Simplifications
//! - Linux knows an algorithm owns the window by the presence of its hook; here the first
//!   `true` it returns tells, so until then it is treated as an algorithm without the hook.
//! - `pkts_acked` is skipped for an ACK that neither delivered data nor gave an RTT sample.
//! - `tcp_may_raise_cwnd` also lets SACKed progress grow the window when the measured
//!   reordering exceeds `tcp_reordering`; here only an ACK that advanced SND.UNA does.
//! - CWR never outlasts the call that enters it (no ECN; the tail loss probe's reduction
//!   ends at once), so PRR runs in Recovery only.
//! - At the end of a fast recovery Linux moves to Open (in `tcp_try_undo_recovery`) before
//!   `tcp_end_cwnd_reduction`; here the settlement and `CA_EVENT_COMPLETE_CWR` come first,
//!   then `set_state(Open)`.
//! - `enter_recovery` always asks the algorithm for a new ssthresh, where Linux keeps the
//!   current one during a reduction; the sender never enters fast recovery during one.
//! - `tcp_cwnd_restart`'s `CA_EVENT_CWND_RESTART` is not reported.

use super::{
    AckSample, CaState, CcParams, CongestionControl, CwndEvent, RtoSsthresh, Window,
    INFINITE_SSTHRESH,
};
use mmtsim_engine::{Rate, SimTime};

/// A window driven by an algorithm through the Linux call sequences.
pub struct Controller {
    /// The window (segments).
    pub w: Window,
    cc: Box<dyn CongestionControl>,
    /// The algorithm's [`CongestionControl::sets_pacing_rate`], asked once.
    sets_pacing_rate: bool,
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
    /// Tests only: every sequence called, with the state before it, when recording was on
    /// as the controller was made (see [`super::call_trace`]).
    #[cfg(test)]
    pub(crate) trace: Option<Vec<(super::call_trace::Call, super::call_trace::Snapshot)>>,
}

/// What set the window on an ACK: the branch Linux's `tcp_cong_control` took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckWindow {
    /// The algorithm set the window itself (`cong_control`).
    Algorithm {
        /// The algorithm asks for the data now in flight to be flagged application-limited
        /// (BBR in PROBE_RTT writing `tp->app_limited`).
        mark_app_limited: bool,
    },
    /// Fast recovery: PRR sets the window (`tcp_cwnd_reduction`); the caller runs it.
    Prr,
    /// `cong_avoid` ran if the ACK advanced SND.UNA and the state lets the window grow.
    CongAvoid,
}

impl Controller {
    /// A controller with `initial_cwnd` segments, initialised at `now`.
    pub fn new(params: &CcParams, initial_cwnd: u32, now: SimTime) -> Self {
        Self::with_ssthresh(params, initial_cwnd, INFINITE_SSTHRESH, now)
    }

    /// A controller with `initial_cwnd` segments and slow-start threshold
    /// `initial_ssthresh`, set before the algorithm's `init` (which may reset it).
    pub fn with_ssthresh(
        params: &CcParams,
        initial_cwnd: u32,
        initial_ssthresh: u32,
        now: SimTime,
    ) -> Self {
        let mut w = Window::new(initial_cwnd.max(1));
        w.ssthresh = initial_ssthresh;
        let mut cc = params.build();
        cc.init(&mut w, now);
        Controller {
            w,
            sets_pacing_rate: cc.sets_pacing_rate(),
            cc,
            state: CaState::Open,
            episode_end: 0,
            owns_window: false,
            rto_ssthresh: RtoSsthresh::Linux,
            prior_ssthresh: 0,
            #[cfg(test)]
            trace: super::call_trace::recording().then(Vec::new),
        }
    }

    /// Tests only: notes `call` and the state it starts from, if recording.
    #[cfg(test)]
    fn record(&mut self, call: super::call_trace::Call) {
        if self.trace.is_none() {
            return;
        }
        let before = super::call_trace::Snapshot::of(self);
        if let Some(trace) = &mut self.trace {
            trace.push((call, before));
        }
    }

    // ----- reading -----

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
    #[inline]
    pub fn pacing_rate(&self) -> Option<Rate> {
        if !self.sets_pacing_rate {
            return None;
        }
        self.cc.pacing_rate()
    }
    /// Tests only: the algorithm's own answer, whatever it declared.
    #[cfg(test)]
    pub(crate) fn undeclared_pacing_rate(&self) -> Option<Rate> {
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
    /// ssthresh an undo would restore (Linux `prior_ssthresh`).
    pub fn prior_ssthresh(&self) -> u32 {
        self.prior_ssthresh
    }

    /// Linux `tcp_current_ssthresh`: in a reduction, ssthresh; otherwise at least ¾ cwnd.
    pub fn current_ssthresh(&self) -> u32 {
        if matches!(self.state, CaState::Recovery | CaState::Cwr) {
            self.w.ssthresh
        } else {
            self.w.ssthresh.max((self.w.cwnd >> 1) + (self.w.cwnd >> 2))
        }
    }

    // ----- per ACK -----

    /// Hands the sender's radio view to the algorithm (cross-layer algorithms only read it),
    /// before the ACK it precedes.
    pub fn link_view(&mut self, view: &dyn mmtsim_net::linkview::LinkView, now: SimTime) {
        self.cc.link_view(view, now);
    }

    /// True if the algorithm reads the radio view's grants ([`super::CongestionControl::reads_link_view`]).
    pub fn reads_link_view(&self) -> bool {
        self.cc.reads_link_view()
    }

    /// First step of an ACK: `pkts_acked`, when the ACK delivered data (`s.acked`) or gave an
    /// RTT sample (`s.rtt`), in every state.
    #[inline]
    pub fn ack_delivered(&mut self, s: &AckSample) {
        #[cfg(test)]
        self.record(super::call_trace::Call::AckDelivered(*s));
        if s.acked > 0 || s.rtt.is_some() {
            self.pkts_acked(s);
        }
    }

    /// Second step of an ACK, after loss detection and the state machine (Linux
    /// `tcp_cong_control`): `cong_control` if `data_outstanding` before the ACK, else (or if
    /// the algorithm left the window alone) PRR in fast recovery, which the caller runs, or
    /// `cong_avoid` for an ACK that `una_advanced` (only ACKs of new data grow the window:
    /// RFC 5681 §3.1, Linux `tcp_may_raise_cwnd` and `FLAG_DATA_ACKED`).
    #[inline]
    pub fn ack_window(
        &mut self,
        s: &AckSample,
        data_outstanding: bool,
        una_advanced: bool,
    ) -> AckWindow {
        #[cfg(test)]
        self.record(super::call_trace::Call::AckWindow {
            s: *s,
            data_outstanding,
            una_advanced,
        });
        if data_outstanding && self.cong_control(s) {
            AckWindow::Algorithm {
                mark_app_limited: self.cc.request_app_limited(),
            }
        } else if self.state == CaState::Recovery {
            AckWindow::Prr
        } else {
            if una_advanced {
                self.cong_avoid(s);
            }
            AckWindow::CongAvoid
        }
    }

    /// A whole ACK with nothing between its two steps (standalone use):
    /// [`Self::ack_delivered`], then [`Self::ack_window`].
    pub fn ack(&mut self, s: &AckSample, data_outstanding: bool, una_advanced: bool) -> AckWindow {
        self.ack_delivered(s);
        self.ack_window(s, data_outstanding, una_advanced)
    }

    /// [`Self::ack`] of new data while data was outstanding: the common case, for tests and
    /// standalone Rust use.
    pub fn on_ack(&mut self, s: &AckSample) {
        self.ack(s, true, true);
    }

    /// The algorithm's `cong_control`; true if it set the window itself.
    pub(crate) fn cong_control(&mut self, s: &AckSample) -> bool {
        let took = self.cc.cong_control(&mut self.w, s);
        self.owns_window |= took;
        took
    }

    /// The algorithm's `pkts_acked`, unconditionally.
    pub(crate) fn pkts_acked(&mut self, s: &AckSample) {
        self.cc.pkts_acked(&mut self.w, s);
    }

    /// Window growth, unless PRR owns the window (Recovery, CWR) or nothing was delivered.
    pub(crate) fn cong_avoid(&mut self, s: &AckSample) {
        if matches!(
            self.state,
            CaState::Open | CaState::Disorder | CaState::Loss
        ) && s.acked > 0
        {
            self.cc.cong_avoid(&mut self.w, s);
        }
    }

    /// PRR (or a test) sets the window during recovery; the sender also starts from one
    /// segment after repeated SYN losses.
    pub fn set_cwnd(&mut self, cwnd: u32) {
        #[cfg(test)]
        self.record(super::call_trace::Call::SetCwnd(cwnd));
        self.w.cwnd = cwnd.clamp(1, self.w.cwnd_clamp);
    }

    // ----- states and reductions -----

    /// Moves to `state` without touching the window (Linux `tcp_set_ca_state`).
    pub fn set_ca_state(&mut self, state: CaState) {
        #[cfg(test)]
        self.record(super::call_trace::Call::SetCaState(state));
        self.change_state(state);
    }

    /// [`Self::set_ca_state`] inside another sequence.
    fn change_state(&mut self, state: CaState) {
        if self.state != state {
            self.cc.set_state(&mut self.w, state);
            self.state = state;
        }
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

    /// Fast recovery begins; `high_seq` is the recovery point (SND.NXT now).
    pub fn enter_recovery(&mut self, high_seq: u64) {
        #[cfg(test)]
        self.record(super::call_trace::Call::EnterRecovery { high_seq });
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
        #[cfg(test)]
        self.record(super::call_trace::Call::EnterLoss {
            now,
            in_flight,
            snd_una,
            snd_nxt,
            loss_reopened,
        });
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

    /// A tail loss probe repaired a loss: one reduction, at once (Linux
    /// `tcp_process_tlp_ack`: `tcp_init_cwnd_reduction`, CWR, `tcp_end_cwnd_reduction`).
    /// The caller then reopens the state (`tcp_try_keep_open`).
    pub fn tlp_reduction(&mut self, now: SimTime) {
        #[cfg(test)]
        self.record(super::call_trace::Call::TlpReduction { now });
        self.w.prior_cwnd = self.w.cwnd;
        self.w.ssthresh = self.cc.ssthresh(&self.w);
        self.w.cwnd_cnt = 0;
        self.change_state(CaState::Cwr);
        if !self.owns_window {
            if self.w.ssthresh < INFINITE_SSTHRESH {
                self.w.cwnd = self.w.ssthresh;
            }
            self.cc.cwnd_event(&mut self.w, CwndEvent::CompleteCwr, now);
        }
    }

    // ----- undo and the end of an episode -----

    /// The reduction in progress was spurious (Linux `tcp_undo_cwnd_reduction`): cwnd from
    /// the algorithm's `undo_cwnd`, ssthresh back up to `prior_ssthresh`. Nothing changes
    /// when no ssthresh was saved (a reduction entered during another).
    pub fn undo(&mut self) {
        #[cfg(test)]
        self.record(super::call_trace::Call::Undo);
        self.undo_window();
    }

    /// [`Self::undo`] inside another sequence.
    fn undo_window(&mut self) {
        if self.prior_ssthresh == 0 {
            return;
        }
        let cwnd = self.cc.undo_cwnd(&mut self.w);
        self.w.cwnd = cwnd.clamp(1, self.w.cwnd_clamp);
        if self.prior_ssthresh > self.w.ssthresh {
            self.w.ssthresh = self.prior_ssthresh;
        }
    }

    /// SND.UNA reached the recovery point of a fast recovery or a timeout's loss episode:
    /// with `undo` (the reduction proved spurious) [`Self::undo`] first, as
    /// `tcp_try_undo_recovery` does; then [`Self::end_recovery`].
    pub fn end_episode(&mut self, now: SimTime, undo: bool) {
        #[cfg(test)]
        self.record(super::call_trace::Call::EndEpisode { now, undo });
        if undo {
            self.undo_window();
        }
        self.end_recovery(now, undo);
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
        self.change_state(CaState::Open);
    }

    /// [`Self::end_recovery`] of a reduction that was not undone.
    pub fn exit_recovery(&mut self, now: SimTime) {
        self.end_recovery(now, false);
    }

    // ----- idle restart and events -----

    /// The first transmission at `now` after nothing was in flight for `idle`. With
    /// `restart_rto` (slow start after idle is on; the current RTO) an idle time longer than
    /// the RTO restarts the window first (Linux `tcp_cwnd_restart`); then the algorithm
    /// hears `CA_EVENT_TX_START`.
    pub fn tx_start(
        &mut self,
        now: SimTime,
        idle: SimTime,
        restart_rto: Option<SimTime>,
        initial_cwnd: u32,
    ) {
        #[cfg(test)]
        self.record(super::call_trace::Call::TxStart {
            now,
            idle,
            restart_rto,
            initial_cwnd,
        });
        if let Some(rto) = restart_rto.filter(|&rto| idle > rto) {
            self.restart_after_idle(idle, rto, initial_cwnd);
        }
        self.event(CwndEvent::TxStart { idle }, now);
    }

    /// Linux `tcp_cwnd_restart` after `idle` with retransmission timeout `rto`: the window
    /// restarts from min(cwnd, `initial_cwnd`), halved per idle RTO but not below that.
    /// Not applied to an algorithm that owns the window (Linux
    /// `tcp_slow_start_after_idle_check` returns early when `cong_control` is set).
    pub(crate) fn restart_after_idle(&mut self, idle: SimTime, rto: SimTime, initial_cwnd: u32) {
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

    /// Reports an event to the algorithm.
    pub(crate) fn event(&mut self, ev: CwndEvent, now: SimTime) {
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
