//! Congestion control: one interface, many algorithms.
//!
//! # Shape
//! The window lives in a [`Window`] owned by the connection, in **segments**, exactly like
//! Linux's `snd_cwnd`/`snd_ssthresh`/`snd_cwnd_cnt`: algorithms ported from
//! `net/ipv4/tcp_*.c` keep their integer arithmetic. An algorithm implements
//! [`CongestionControl`], whose hooks mirror Linux's `tcp_congestion_ops`; it owns only its
//! own state. Loss detection, RTO, PRR and RTT estimation live in the TCP sender.
//!
//! [`Controller`] ties a window to an algorithm and makes the hook calls of Linux's TCP in
//! Linux's order (per ACK `tcp_cong_control`; `tcp_enter_recovery`, `tcp_enter_loss`, the
//! undo and the end of an episode, the restart after idle). Those sequences live in one
//! place, [`call_order`], which the TCP sender and the standalone API (Rust and Python:
//! create one, feed explicit ACK / loss / RTO events, read `cwnd` and `ssthresh`) both
//! call.

pub mod bbr;
pub mod bic;
pub mod call_order;
#[cfg(test)]
pub(crate) mod call_trace;
pub mod cubic;
pub mod highspeed;
pub mod htcp;
pub mod hybla;
pub mod hystart;
pub mod illinois;
pub mod newreno;
pub mod scalable;
#[cfg(test)]
mod test_support;
pub mod vegas;
pub mod veno;
pub mod westwood;
pub mod xtcp;
pub mod yeah;

pub use call_order::{AckWindow, Controller};
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

    /// The opening Linux's `tcp_reno_cong_avoid` shares with the modules modelled on it:
    /// nothing unless the window is the limit (`tcp_is_cwnd_limited`), then slow start.
    /// Returns the ACKed packets left for congestion avoidance (possibly 0), or `None` if
    /// the window must not grow.
    pub fn reno_slow_start(&mut self, s: &AckSample) -> Option<u32> {
        if !s.cwnd_limited {
            return None;
        }
        Some(if self.in_slow_start() {
            self.slow_start(s.acked)
        } else {
            s.acked
        })
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
    /// Sender maximum segment size, bytes (Linux `mss_cache`).
    pub mss: u32,
    /// Segments in flight once this ACK's SACK and loss marking are done, as Linux's
    /// `cong_control` sees `tcp_packets_in_flight()`.
    pub in_flight: u32,
    /// Segments delivered (cumulatively ACKed or SACKed) over the connection's life, this
    /// ACK included (Linux `tp->delivered`).
    pub delivered: u64,
    /// Segments marked lost over the connection's life (Linux `tp->lost`).
    pub lost: u64,
    /// Segments newly marked lost while processing this ACK (Linux `rate_sample.losses`).
    pub losses: u32,
    /// Earliest time pacing lets the next segment leave (Linux `tcp_wstamp_ns`); `now` when
    /// nothing holds it back.
    pub next_departure: SimTime,
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
            mss: 1448,
            in_flight: 0,
            delivered: 0,
            lost: 0,
            losses: 0,
            next_departure: now,
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
    /// Cross-layer algorithms (X-TCP) read the UE's radio view here, just before
    /// `pkts_acked`, on every ACK of a flow whose sender has one. Nothing else crosses
    /// layers.
    fn link_view(&mut self, _view: &dyn mmtsim_net::linkview::LinkView, _now: SimTime) {}
    /// `true` for an algorithm whose `link_view` reads the view's grants. The RAN keeps a
    /// UE's grant history only while some endpoint on it reads it (keeping it cost up to a
    /// tenth of a run with ten UEs), so an algorithm that overrides `link_view` to read
    /// grants must say so here.
    fn reads_link_view(&self) -> bool {
        false
    }
    /// Linux `cong_control`: the algorithm sets cwnd (and its pacing rate) itself from this
    /// ACK, in every CA state. Called on every ACK while data was outstanding, after loss
    /// detection and the state machine, with `in_flight`, `losses` and `lost` filled in.
    /// Return `true` when the algorithm took over the window for this ACK: the caller then
    /// runs neither `cong_avoid` nor PRR. The default leaves the window to them.
    fn cong_control(&mut self, _w: &mut Window, _s: &AckSample) -> bool {
        false
    }
    /// Asked after `cong_control`: `true` makes the sender mark the data now in flight as
    /// application-limited, so the delivery-rate samples it produces are flagged (Linux: a
    /// `cong_control` module writing `tp->app_limited`, as BBR does in PROBE_RTT).
    fn request_app_limited(&self) -> bool {
        false
    }
    /// Pacing rate the algorithm wants, if it sets its own, in bits per second of
    /// **payload** (Linux `sk_pacing_rate` is charged `skb->len`, headers excluded). A
    /// `Some` paces the flow even when its `pacing` option is off (Linux: such an algorithm
    /// sets `sk_pacing_status`).
    fn pacing_rate(&self) -> Option<Rate> {
        None
    }
    /// Whether [`Self::pacing_rate`] can ever answer `Some`: an algorithm that overrides it
    /// must say so here. The controller asks once, so that a flow whose algorithm never
    /// paces does not call it on every ACK and every transmission.
    fn sets_pacing_rate(&self) -> bool {
        false
    }
    /// Algorithm-specific values for tracing: (name, value) pairs.
    fn metrics(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
    /// The window to return to when a reduction proves spurious (Linux `undo_cwnd`); the
    /// default is `tcp_reno_undo_cwnd`: max(cwnd, prior_cwnd).
    fn undo_cwnd(&mut self, w: &mut Window) -> u32 {
        w.cwnd.max(w.prior_cwnd)
    }
}

/// Parameters of every algorithm, resolved from a scenario or Python.
#[derive(Clone, Debug, PartialEq)]
pub enum CcParams {
    /// RFC 5681/6582 NewReno with Linux `reno` window arithmetic.
    NewReno,
    /// CUBIC (RFC 9438, Linux `tcp_cubic.c`).
    Cubic(cubic::CubicParams),
    /// BIC (Linux `tcp_bic.c`).
    Bic(bic::BicParams),
    /// HighSpeed TCP (RFC 3649, Linux `tcp_highspeed.c`).
    HighSpeed(highspeed::HighSpeedParams),
    /// Scalable TCP (Linux `tcp_scalable.c`).
    Scalable(scalable::ScalableParams),
    /// H-TCP (Linux `tcp_htcp.c`).
    Htcp(htcp::HtcpParams),
    /// Hybla (Linux `tcp_hybla.c`).
    Hybla(hybla::HyblaParams),
    /// TCP Illinois (Linux `tcp_illinois.c`).
    Illinois(illinois::IllinoisParams),
    /// TCP Vegas (Linux `tcp_vegas.c`).
    Vegas(vegas::VegasParams),
    /// TCP Veno (Linux `tcp_veno.c`).
    Veno(veno::VenoParams),
    /// Westwood+ (Linux `tcp_westwood.c`).
    Westwood(westwood::WestwoodParams),
    /// YeAH (Linux `tcp_yeah.c`).
    Yeah(yeah::YeahParams),
    /// BBR v1 (Linux `tcp_bbr.c`).
    Bbr(bbr::BbrParams),
    /// X-TCP (seed 000, Algorithm 1): cwnd from the UE's uplink grants × rtt_min.
    Xtcp(xtcp::XtcpParams),
}

impl CcParams {
    /// Builds the algorithm.
    pub fn build(&self) -> Box<dyn CongestionControl> {
        match self {
            CcParams::NewReno => Box::new(newreno::NewReno),
            CcParams::Cubic(p) => Box::new(cubic::Cubic::new(p.clone())),
            CcParams::Bic(p) => Box::new(bic::Bic::new(p.clone())),
            CcParams::HighSpeed(p) => Box::new(highspeed::HighSpeed::new(p.clone())),
            CcParams::Scalable(p) => Box::new(scalable::Scalable::new(p.clone())),
            CcParams::Htcp(p) => Box::new(htcp::Htcp::new(p.clone())),
            CcParams::Hybla(p) => Box::new(hybla::Hybla::new(p.clone())),
            CcParams::Illinois(p) => Box::new(illinois::Illinois::new(p.clone())),
            CcParams::Vegas(p) => Box::new(vegas::Vegas::new(p.clone())),
            CcParams::Veno(p) => Box::new(veno::Veno::new(p.clone())),
            CcParams::Westwood(p) => Box::new(westwood::Westwood::new(p.clone())),
            CcParams::Yeah(p) => Box::new(yeah::Yeah::new(p.clone())),
            CcParams::Bbr(p) => Box::new(bbr::Bbr::new(p.clone())),
            CcParams::Xtcp(p) => Box::new(xtcp::Xtcp::new(p.clone())),
        }
    }

    /// The algorithm's name.
    pub fn name(&self) -> &'static str {
        match self {
            CcParams::NewReno => "newreno",
            CcParams::Cubic(_) => "cubic",
            CcParams::Bic(_) => "bic",
            CcParams::HighSpeed(_) => "highspeed",
            CcParams::Scalable(_) => "scalable",
            CcParams::Htcp(_) => "htcp",
            CcParams::Hybla(_) => "hybla",
            CcParams::Illinois(_) => "illinois",
            CcParams::Vegas(_) => "vegas",
            CcParams::Veno(_) => "veno",
            CcParams::Westwood(_) => "westwood",
            CcParams::Yeah(_) => "yeah",
            CcParams::Bbr(_) => "bbr",
            CcParams::Xtcp(_) => "xtcp",
        }
    }

    /// Default parameters of the algorithm called `name`.
    pub fn default_for(name: &str) -> Option<CcParams> {
        match name {
            "newreno" => Some(CcParams::NewReno),
            "cubic" => Some(CcParams::Cubic(cubic::CubicParams::default())),
            "bic" => Some(CcParams::Bic(bic::BicParams::default())),
            "highspeed" => Some(CcParams::HighSpeed(highspeed::HighSpeedParams::default())),
            "scalable" => Some(CcParams::Scalable(scalable::ScalableParams::default())),
            "htcp" => Some(CcParams::Htcp(htcp::HtcpParams::default())),
            "hybla" => Some(CcParams::Hybla(hybla::HyblaParams::default())),
            "illinois" => Some(CcParams::Illinois(illinois::IllinoisParams::default())),
            "vegas" => Some(CcParams::Vegas(vegas::VegasParams::default())),
            "veno" => Some(CcParams::Veno(veno::VenoParams::default())),
            "westwood" => Some(CcParams::Westwood(westwood::WestwoodParams::default())),
            "yeah" => Some(CcParams::Yeah(yeah::YeahParams::default())),
            "bbr" => Some(CcParams::Bbr(bbr::BbrParams::default())),
            "xtcp" => Some(CcParams::Xtcp(xtcp::XtcpParams::default())),
            _ => None,
        }
    }

    /// Every algorithm name.
    pub const NAMES: &'static [&'static str] = &[
        "newreno",
        "cubic",
        "bic",
        "highspeed",
        "scalable",
        "htcp",
        "hybla",
        "illinois",
        "vegas",
        "veno",
        "westwood",
        "yeah",
        "bbr",
        "xtcp",
    ];
}

/// How a retransmission timeout sets ssthresh.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RtoSsthresh {
    /// Linux `tcp_enter_loss`: once per loss episode, by the algorithm's `ssthresh` from
    /// the window before the episode's first timeout; timeouts that back off inside the
    /// episode leave it alone. Default.
    #[default]
    Linux,
    /// ns-3 from 3.27 on (`TcpSocketBase::ReTxTimeout`): every timeout, backed-off ones
    /// included, asks the algorithm for ssthresh again, from the flight before that timeout.
    /// After the first timeout of an outage that flight is the one retransmitted segment,
    /// so the second timeout leaves every algorithm at its floor (2 segments), and the
    /// algorithm's loss state (W_max) follows the collapsed window. (ns-3's guard meant to
    /// skip backed-off timeouts never fires: the head's retransmitted flag is cleared just
    /// before it is tested.)
    Ns3,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_x_tcp_reads_the_radio_view() {
        // The RAN keeps a UE's grants only for an algorithm that says it reads them; of the
        // shipped ones only X-TCP does (its `link_view` is the only override).
        for name in CcParams::NAMES {
            let cc = CcParams::default_for(name).expect("a known name").build();
            assert_eq!(cc.reads_link_view(), *name == "xtcp", "{name}");
        }
    }

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
