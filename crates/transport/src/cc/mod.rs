//! Congestion control: one interface, many algorithms.
//!
//! # Shape
//! The window lives in a [`Window`] owned by the connection, in **segments**, exactly like
//! Linux's `snd_cwnd`/`snd_ssthresh`/`snd_cwnd_cnt`: algorithms ported from
//! `net/ipv4/tcp_*.c` keep their integer arithmetic. An algorithm implements
//! [`CongestionControl`], whose hooks mirror Linux's `tcp_congestion_ops`; it owns only its
//! own state. Loss detection, RTO, PRR and RTT estimation live in the TCP sender.
//!
//! [`Controller`] ties a window to an algorithm and implements the generic call sequence
//! of Linux's `tcp_ack()`/`tcp_enter_loss()`; the TCP sender drives it, and it is also the
//! standalone API (Rust and Python): create one, feed explicit ACK / loss / RTO events, read
//! `cwnd` and `ssthresh`.
//!
//! # Call order (per ACK), fixed by [`Controller::on_ack`]
//! 1. `pkts_acked(sample)` — every ACK that delivers data, in every state (RTT bookkeeping,
//!    HyStart).
//! 2. `cong_avoid(sample)` — only in the Open, Disorder and Loss states; during fast
//!    recovery PRR in the sender owns the window.
//!
//! # Loss
//! - Entering fast recovery: [`Controller::enter_recovery`] saves `prior_cwnd`, sets
//!   `ssthresh = ssthresh()` of the algorithm, and moves to Recovery. The caller applies PRR
//!   through [`Controller::set_cwnd`]; [`Controller::exit_recovery`] sets cwnd = ssthresh.
//! - RTO: [`Controller::on_rto`] reduces ssthresh only once per loss episode (Linux
//!   `tcp_enter_loss`), fires [`CwndEvent::Loss`], sets cwnd = in-flight + 1 and the Loss state.
//!
//! The sender de-duplicates per-episode cuts: it calls `enter_recovery` once per recovery
//! episode (RFC 6582's `recover` / RFC 6675's `RecoveryPoint`).

pub mod cubic;
pub mod hystart;
pub mod newreno;

use mmtsim_engine::{Rate, SimTime};

/// Linux `TCP_INFINITE_SSTHRESH`.
pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// The congestion window and its companions, in segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Congestion window (Linux `snd_cwnd`), segments.
    pub cwnd: u32,
    /// Slow-start threshold (Linux `snd_ssthresh`), segments.
    pub ssthresh: u32,
    /// Fractional additive-increase counter (Linux `snd_cwnd_cnt`).
    pub cwnd_cnt: u32,
    /// Upper bound on cwnd (Linux `snd_cwnd_clamp`).
    pub cwnd_clamp: u32,
    /// cwnd when the current reduction began (Linux `prior_cwnd`).
    pub prior_cwnd: u32,
}

impl Window {
    /// A window of `cwnd` segments with infinite ssthresh.
    pub fn new(cwnd: u32) -> Self {
        Window {
            cwnd,
            ssthresh: INFINITE_SSTHRESH,
            cwnd_cnt: 0,
            cwnd_clamp: u32::MAX / 2,
            prior_cwnd: cwnd,
        }
    }

    /// Linux `tcp_in_slow_start`: cwnd < ssthresh.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Linux `tcp_slow_start`: grow by `acked` up to ssthresh; return the ACKed packets left
    /// over for congestion avoidance.
    pub fn slow_start(&mut self, acked: u32) -> u32 {
        let cwnd = self.cwnd.saturating_add(acked).min(self.ssthresh);
        let used = cwnd.saturating_sub(self.cwnd);
        self.cwnd = cwnd.min(self.cwnd_clamp);
        acked - used.min(acked)
    }

    /// Linux `tcp_cong_avoid_ai`: +1 segment per `w` ACKed packets, keeping the remainder.
    pub fn cong_avoid_ai(&mut self, w: u32, acked: u32) {
        let w = w.max(1);
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            self.cwnd += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            self.cwnd += delta;
        }
        self.cwnd = self.cwnd.min(self.cwnd_clamp);
    }
}

/// Linux congestion-avoidance states (`tcp_ca_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    /// Normal operation.
    Open,
    /// Duplicate ACKs or SACKs seen, no loss inferred yet.
    Disorder,
    /// Window reduced for ECN (unused: no ECN yet).
    Cwr,
    /// Fast recovery.
    Recovery,
    /// After an RTO.
    Loss,
}

/// Events Linux reports through `cwnd_event`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndEvent {
    /// First transmission after the connection had nothing in flight; carries the idle time.
    TxStart {
        /// How long nothing was in flight.
        idle: SimTime,
    },
    /// RTO loss (Linux `CA_EVENT_LOSS`).
    Loss,
    /// A window reduction finished (Linux `CA_EVENT_COMPLETE_CWR`).
    CompleteCwr,
}

/// One ACK's worth of information for the algorithm (Linux `ack_sample` plus the socket
/// fields modules read).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckSample {
    /// Time of the ACK.
    pub now: SimTime,
    /// Segments newly delivered (cumulatively ACKed or SACKed) by this ACK.
    pub acked: u32,
    /// Bytes newly delivered.
    pub acked_bytes: u64,
    /// RTT sample taken from this ACK, if any.
    pub rtt: Option<SimTime>,
    /// Minimum RTT of the connection so far.
    pub min_rtt: Option<SimTime>,
    /// Smoothed RTT.
    pub srtt: Option<SimTime>,
    /// Segments in flight before this ACK.
    pub prior_in_flight: u32,
    /// Linux `tcp_is_cwnd_limited()`.
    pub cwnd_limited: bool,
    /// Highest sequence number acknowledged (SND.UNA after the ACK).
    pub snd_una: u64,
    /// Next sequence number to send (SND.NXT).
    pub snd_nxt: u64,
    /// True if the connection paces its transmissions.
    pub paced: bool,
    /// Delivery-rate sample (Linux `rate_sample`), if the ACK produced one.
    pub rate: Option<crate::tcp::rate::RateSample>,
}

impl AckSample {
    /// A sample with only the fields every algorithm needs; the rest default.
    pub fn simple(now: SimTime, acked: u32, rtt: Option<SimTime>) -> Self {
        AckSample {
            now,
            acked,
            acked_bytes: 0,
            rtt,
            min_rtt: rtt,
            srtt: rtt,
            prior_in_flight: 0,
            cwnd_limited: true,
            snd_una: 0,
            snd_nxt: 0,
            paced: false,
            rate: None,
        }
    }
}

/// A congestion-control algorithm: the hooks of Linux's `tcp_congestion_ops`.
pub trait CongestionControl: Send {
    /// Name used in scenario files and reports.
    fn name(&self) -> &'static str;
    /// Called once before the first packet (Linux `init`).
    fn init(&mut self, _w: &mut Window, _now: SimTime) {}
    /// Every ACK that delivers data (Linux `pkts_acked`).
    fn pkts_acked(&mut self, _w: &mut Window, _s: &AckSample) {}
    /// Window growth (Linux `cong_avoid`).
    fn cong_avoid(&mut self, w: &mut Window, s: &AckSample);
    /// New ssthresh on loss (Linux `ssthresh`); may update internal state (e.g. W_max).
    fn ssthresh(&mut self, w: &Window) -> u32;
    /// The connection changes state (Linux `set_state`), before the window changes.
    fn set_state(&mut self, _w: &mut Window, _state: CaState) {}
    /// An event (Linux `cwnd_event`).
    fn cwnd_event(&mut self, _w: &mut Window, _ev: CwndEvent, _now: SimTime) {}
    /// Pacing rate the algorithm wants, if it sets its own.
    fn pacing_rate(&self) -> Option<Rate> {
        None
    }
    /// Algorithm-specific values for tracing: (name, value) pairs.
    fn metrics(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
}

/// Parameters of every algorithm, resolved from a scenario or Python.
#[derive(Clone, Debug, PartialEq)]
pub enum CcParams {
    /// RFC 5681/6582 NewReno with Linux `reno` window arithmetic.
    NewReno,
    /// CUBIC (RFC 9438, Linux `tcp_cubic.c`).
    Cubic(cubic::CubicParams),
}

impl CcParams {
    /// Builds the algorithm.
    pub fn build(&self) -> Box<dyn CongestionControl> {
        match self {
            CcParams::NewReno => Box::new(newreno::NewReno),
            CcParams::Cubic(p) => Box::new(cubic::Cubic::new(p.clone())),
        }
    }

    /// The algorithm's name.
    pub fn name(&self) -> &'static str {
        match self {
            CcParams::NewReno => "newreno",
            CcParams::Cubic(_) => "cubic",
        }
    }

    /// Default parameters of the algorithm called `name`.
    pub fn default_for(name: &str) -> Option<CcParams> {
        match name {
            "newreno" => Some(CcParams::NewReno),
            "cubic" => Some(CcParams::Cubic(cubic::CubicParams::default())),
            _ => None,
        }
    }

    /// Every algorithm name.
    pub const NAMES: &'static [&'static str] = &["newreno", "cubic"];
}

/// A window driven by an algorithm through the Linux call sequence.
pub struct Controller {
    /// The window (segments).
    pub w: Window,
    cc: Box<dyn CongestionControl>,
    state: CaState,
    /// Segments acknowledged when the current loss episode began is over (SND.UNA ≥ this).
    episode_end: u64,
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
    /// Pacing rate requested by the algorithm.
    pub fn pacing_rate(&self) -> Option<Rate> {
        self.cc.pacing_rate()
    }
    /// Algorithm-specific trace values.
    pub fn metrics(&self) -> Vec<(&'static str, f64)> {
        self.cc.metrics()
    }

    /// One ACK that delivered data: [`Self::pkts_acked`] then [`Self::cong_avoid`].
    pub fn on_ack(&mut self, s: &AckSample) {
        self.pkts_acked(s);
        self.cong_avoid(s);
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
    pub fn restart_after_idle(&mut self, idle: SimTime, rto: SimTime, initial_cwnd: u32) {
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

    /// Fast recovery begins; `high_seq` is the recovery point (SND.NXT now).
    pub fn enter_recovery(&mut self, high_seq: u64) {
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

    /// Recovery or loss episode is over (SND.UNA passed the recovery point).
    pub fn exit_recovery(&mut self, now: SimTime) {
        if self.state == CaState::Recovery && self.w.ssthresh < INFINITE_SSTHRESH {
            // Linux tcp_end_cwnd_reduction: settle at ssthresh.
            self.w.cwnd = self.w.ssthresh;
            self.cc.cwnd_event(&mut self.w, CwndEvent::CompleteCwr, now);
        }
        self.cc.set_state(&mut self.w, CaState::Open);
        self.state = CaState::Open;
    }

    /// Retransmission timeout. `in_flight` is the segments still in flight after everything
    /// outstanding was marked lost (normally 0); `snd_una`/`snd_nxt` delimit the episode.
    pub fn on_rto(&mut self, now: SimTime, in_flight: u32, snd_una: u64, snd_nxt: u64) {
        let first_in_episode =
            matches!(self.state, CaState::Open | CaState::Disorder) || snd_una >= self.episode_end;
        if first_in_episode {
            self.w.prior_cwnd = self.w.cwnd;
            self.w.ssthresh = self.cc.ssthresh(&self.w);
            self.cc.cwnd_event(&mut self.w, CwndEvent::Loss, now);
        }
        self.w.cwnd = in_flight + 1;
        self.w.cwnd_cnt = 0;
        self.cc.set_state(&mut self.w, CaState::Loss);
        self.state = CaState::Loss;
        self.episode_end = snd_nxt;
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
    fn slow_start_stops_at_ssthresh_and_returns_leftover() {
        // Linux tcp_slow_start: cwnd 8, ssthresh 10, 5 acked → cwnd 10, 3 left.
        let mut w = Window::new(8);
        w.ssthresh = 10;
        assert_eq!(w.slow_start(5), 3);
        assert_eq!(w.cwnd, 10);
    }

    #[test]
    fn cong_avoid_ai_adds_one_per_window_and_keeps_remainder() {
        // w = 4: +1 after 4 ACKed packets, remainder kept across calls.
        let mut w = Window::new(4);
        w.ssthresh = 4;
        for _ in 0..3 {
            w.cong_avoid_ai(4, 1);
        }
        assert_eq!(w.cwnd, 4);
        w.cong_avoid_ai(4, 1);
        assert_eq!(w.cwnd, 5);
        // A stretch ACK of 9 with w = 4: +2, remainder 1.
        let mut w2 = Window::new(4);
        w2.cong_avoid_ai(4, 9);
        assert_eq!((w2.cwnd, w2.cwnd_cnt), (6, 1));
    }
}
