//! A flow's state in a run (its transport endpoints, application and records), and
//! building it from the scenario's `[[flows]]`.

use super::LinkState;
use crate::topology::{Forwarding, Hop};
use mmtsim_apps::{AppKind, TcpApp};
use mmtsim_engine::ids::{FlowId, NodeId, UeId};
use mmtsim_engine::metrics::{DelayLog, Occupancy, Thinning};
use mmtsim_engine::{Rate, RngStreams, SimTime};
use mmtsim_net::packet::TcpHeader;
use mmtsim_ran::network::Ran;
use mmtsim_scenario::model::{App, CwndRecording, Flow, Protocol};
use mmtsim_scenario::{resolve, Scenario};
use mmtsim_transport::tcp::rcv_window::ReadMode;
use mmtsim_transport::tcp::receiver::TcpReceiver;
use mmtsim_transport::tcp::sender::TcpSender;
use mmtsim_transport::udp::{UdpSink, UdpSource};

// One per flow, so the size difference costs nothing; boxing TCP would add an indirection
// to every packet.
#[allow(clippy::large_enum_variant)]
pub(crate) enum FlowKind {
    Tcp {
        sender: TcpSender,
        receiver: TcpReceiver,
        /// The sending application; `None` for the second leg of a relayed flow, whose
        /// data are what the relay reads from the first.
        app: Option<TcpApp>,
        /// Earliest pending timer event of [sender, receiver].
        timer_pending: [SimTime; 2],
        app_wake_pending: SimTime,
        file_size: Option<u64>,
        completed_at: Option<SimTime>,
    },
    Udp {
        src: UdpSource,
        sink: UdpSink,
        owd: DelayLog,
    },
    /// An mmCPTP download's proxy → UE leg (boxed: one per download, rarely touched
    /// beside the TCP legs).
    Cptp(Box<super::cptp::CptpState>),
}

pub(crate) struct FlowState {
    pub name: String,
    /// The sending node's UE, if it is one (its radio view feeds the sender).
    pub src_ue: Option<UeId>,
    /// The receiving node's UE, if it is one (its view feeds a window controller).
    pub dst_ue: Option<UeId>,
    pub src: NodeId,
    pub dst: NodeId,
    pub start: SimTime,
    pub stop: SimTime,
    pub cc_name: &'static str,
    pub kind: FlowKind,
    /// The application stopped (its `stop` time passed).
    pub stopped: bool,
    pub delivered: u64,
    /// Bytes delivered up to the flow's stop time (what its goodput counts).
    pub delivered_by_stop: u64,
    pub bins: Vec<u64>,
    /// The goodput bin the latest delivery fell in, with its span `[from, to)` in ns: a
    /// delivery in the same span needs no division to find its bin.
    pub bin_now: (usize, u64, u64),
    pub cwnd_t_ns: Vec<u64>,
    pub cwnd_bytes: Vec<u64>,
    pub ssthresh_bytes: Vec<u64>,
    pub inflight_bytes: Vec<u64>,
    pub rwnd_bytes: Vec<u64>,
    /// How the receiving application reads, if not every byte at once.
    pub reader: Reader,
    /// A relayed flow's leg: the relay node, this leg (1: source → relay, 2: relay →
    /// destination) and the other leg.
    pub relay: Option<RelayLeg>,
    /// Sum, count and maximum of the sampled relay occupancy (second legs).
    pub relay_occupancy: Occupancy,
    /// Second legs: sum over every sample of the bytes in transit end to end, those the
    /// first leg's sender has sent at least once and this leg's receiving application
    /// has not read (the relayed flow's backlog; Little's law turns it into a delay).
    pub relay_backlog_sum: u128,
}

/// One leg of a flow split by a relay.
#[derive(Clone, Debug)]
pub(crate) struct RelayLeg {
    pub node: NodeId,
    pub leg: u8,
    pub peer: FlowId,
    /// Second leg: bytes the relay may hold (read from the first leg, not yet acknowledged
    /// on the second).
    pub buffer_bytes: u64,
    /// Second leg: the connection is open (the relay accepted the first leg's SYN).
    pub opened: bool,
}

/// How a TCP flow's receiving application reads.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Reader {
    /// Every in-order byte the moment it arrives.
    AtOnce,
    /// At a fixed rate, as a fluid server of the receive buffer: `clock` is the instant by
    /// which everything read so far would have been read at `rate`; `idle` says the buffer
    /// ran empty at the last read; `wake` is the pending read event, if any.
    Rate {
        rate: Rate,
        clock: SimTime,
        idle: bool,
        wake: SimTime,
    },
    /// The relay of a split flow reads, as its second leg has room.
    Relay,
}

fn app_kind(app: &App) -> (AppKind, Option<u64>) {
    match app {
        App::Bulk => (AppKind::Bulk, None),
        App::Rate { rate } => (AppKind::Rate { rate: rate.rate() }, None),
        App::File { size } => (AppKind::File { size: size.0 }, Some(size.0)),
        App::Onoff { rate, on, off } => (
            AppKind::OnOff {
                rate: rate.rate(),
                on: on.time(),
                off: off.time(),
            },
            None,
        ),
        App::Messages {
            size,
            interval,
            poisson,
        } => (
            AppKind::Messages {
                size: size.0,
                interval: interval.time(),
                poisson: *poisson,
            },
            None,
        ),
        App::Cbr { .. } => unreachable!("validated: cbr is UDP only"),
    }
}

/// What the flows of a run share while they are built.
struct Ctx<'a> {
    s: &'a Scenario,
    rng: &'a RngStreams,
    tcp_budget: usize,
    udp_budget: usize,
}

impl Ctx<'_> {
    /// A TCP connection of flow `f` (or of one of its legs) named `name`; `app` false for
    /// a relay's second leg, which has no application of its own.
    fn tcp(
        &self,
        f: &Flow,
        name: &str,
        start: SimTime,
        stop: SimTime,
        app: bool,
    ) -> (FlowKind, &'static str) {
        let mut cfg = resolve::tcp_config(f).expect("validated TCP configuration");
        if let mmtsim_transport::cc::CcParams::Bbr(p) = &mut cfg.cc {
            // Each flow draws its own PROBE_BW phases, reproducibly per run seed.
            use rand::RngCore;
            p.seed = self.rng.stream(&format!("flow/{name}/bbr")).next_u64();
        }
        let cc_name = cfg.cc.name();
        let log_changes = self.s.metrics.cwnd == CwndRecording::Change;
        let (app_kind, file_size) = app_kind(&f.app);
        let app = app.then(|| {
            TcpApp::new(
                app_kind,
                start,
                stop,
                cfg.mss as u64,
                self.rng.stream(&format!("flow/{name}/app")),
            )
        });
        let mut sender = TcpSender::new(cfg.clone(), log_changes, start);
        sender.log.rtt.keep = self.s.metrics.rtt;
        sender.log.rtt.set_budget(self.tcp_budget);
        if let Some(c) = &mut sender.log.cwnd {
            c.thinning = Thinning::new(self.tcp_budget);
        }
        let receiver = TcpReceiver::new(cfg);
        (
            FlowKind::Tcp {
                sender,
                receiver,
                app,
                timer_pending: [SimTime::NEVER; 2],
                app_wake_pending: SimTime::NEVER,
                file_size,
                completed_at: None,
            },
            cc_name,
        )
    }
}

#[allow(clippy::too_many_arguments)]
fn flow_state(
    name: String,
    src: NodeId,
    dst: NodeId,
    start: SimTime,
    stop: SimTime,
    (kind, cc_name): (FlowKind, &'static str),
    node_ue: &[Option<UeId>],
    reader: Reader,
    relay: Option<RelayLeg>,
) -> FlowState {
    let mut kind = kind;
    if !matches!(reader, Reader::AtOnce) {
        if let FlowKind::Tcp { receiver, .. } = &mut kind {
            receiver.set_read_mode(ReadMode::Explicit);
        }
    }
    FlowState {
        name,
        src_ue: node_ue[src.index()],
        dst_ue: node_ue[dst.index()],
        src,
        dst,
        start,
        stop,
        cc_name,
        kind,
        stopped: false,
        delivered: 0,
        delivered_by_stop: 0,
        bins: Vec::new(),
        bin_now: (0, 0, 0),
        cwnd_t_ns: vec![],
        cwnd_bytes: vec![],
        ssthresh_bytes: vec![],
        inflight_bytes: vec![],
        rwnd_bytes: vec![],
        reader,
        relay,
        relay_occupancy: Occupancy::default(),
        relay_backlog_sum: 0,
    }
}

/// The two legs of a flow split at a node (a relay, an mmCPTP proxy): the first from the
/// source to the node, read by the node into `buffer_bytes` (the relay's buffer, the
/// proxy's cache); the second from the node to the destination. Both count from the
/// flow's start, so the second leg's goodput is end to end.
struct SplitLegs {
    names: (String, String),
    /// (source, the splitting node, destination).
    nodes: (NodeId, NodeId, NodeId),
    /// (start, stop).
    times: (SimTime, SimTime),
    buffer_bytes: u64,
}

impl SplitLegs {
    fn push(
        self,
        flows: &mut Vec<FlowState>,
        kind1: (FlowKind, &'static str),
        kind2: (FlowKind, &'static str),
        reader2: Reader,
        node_ue: &[Option<UeId>],
    ) {
        let (one, two) = (
            FlowId::from_index(flows.len()),
            FlowId::from_index(flows.len() + 1),
        );
        let (src, node, dst) = self.nodes;
        let (start, stop) = self.times;
        let leg = |leg: u8, peer: FlowId| RelayLeg {
            node,
            leg,
            peer,
            buffer_bytes: self.buffer_bytes,
            opened: false,
        };
        let (n1, n2) = self.names;
        flows.push(flow_state(
            n1,
            src,
            node,
            start,
            stop,
            kind1,
            node_ue,
            Reader::Relay,
            Some(leg(1, two)),
        ));
        flows.push(flow_state(
            n2,
            node,
            dst,
            start,
            stop,
            kind2,
            node_ue,
            reader2,
            Some(leg(2, one)),
        ));
    }
}

/// The reader of a flow's receiving application.
fn reader_of(f: &Flow) -> Reader {
    match mmtsim_scenario::relay::read_rate(f) {
        Some(rate) => Reader::Rate {
            rate,
            clock: SimTime::ZERO,
            idle: true,
            wake: SimTime::NEVER,
        },
        None => Reader::AtOnce,
    }
}

pub(super) fn build_flows(
    s: &Scenario,
    rng: &RngStreams,
    node_index: &dyn Fn(&str) -> NodeId,
    forwarding: &Forwarding,
    links: &[LinkState],
    ran: Option<&Ran>,
    node_ue: &[Option<UeId>],
) -> Vec<FlowState> {
    let end = s.simulation.duration.time();
    // Each per-packet table's row budget is shared evenly by the flows that record it (a
    // relayed flow records two connections).
    let budget_of = |p: Protocol| {
        let n: u64 = s
            .flows
            .iter()
            // An mmCPTP download records one TCP connection (server → proxy).
            .filter(|f| f.protocol == p || (p == Protocol::Tcp && f.protocol == Protocol::Mmcptp))
            .map(|f| f.count as u64 * if f.relay.is_some() { 2 } else { 1 })
            .sum();
        if s.metrics.keep_all_samples {
            0
        } else {
            (s.metrics.sample_budget / n.max(1)).max(2) as usize
        }
    };
    let ctx = Ctx {
        s,
        rng,
        tcp_budget: budget_of(Protocol::Tcp),
        udp_budget: budget_of(Protocol::Udp),
    };
    let mut flows = Vec::new();
    for (fi, f) in s.flows.iter().enumerate() {
        for k in 0..f.count {
            let base = f.name.clone().unwrap_or_else(|| format!("flow{fi}"));
            let name = if f.count > 1 {
                format!("{base}#{k}")
            } else {
                base
            };
            let start = f.start.time();
            let stop = f.stop.map_or(end, |t| t.time()).min(end);
            let src = node_index(&f.from);
            let dst = node_index(&f.to);
            if let Some(r) = &f.relay {
                let node = node_index(&r.node);
                let leg1 = mmtsim_scenario::relay::first_leg(f, r);
                let leg2 = mmtsim_scenario::relay::second_leg(f, r);
                let (n1, n2) = (format!("{name}.leg1"), format!("{name}.leg2"));
                // The second leg keeps the flow's application kind only for its file size:
                // a file transfer completes when the destination has the whole file.
                let kind2 = ctx.tcp(&leg2, &n2, start, stop, false);
                let kind1 = ctx.tcp(&leg1, &n1, start, stop, true);
                let legs = SplitLegs {
                    names: (n1, n2),
                    nodes: (src, node, dst),
                    times: (start, stop),
                    buffer_bytes: r.buffer.0,
                };
                legs.push(&mut flows, kind1, kind2, reader_of(f), node_ue);
                continue;
            }
            if let Some(m) = &f.mmcptp {
                // The server's TCP connection to the proxy (read into its cache), and the
                // mmCPTP download from the proxy.
                let proxy = node_index(&m.proxy);
                let leg1 = mmtsim_scenario::mmcptp::server_leg(f, m);
                let (n1, n2) = (format!("{name}.leg1"), format!("{name}.leg2"));
                let kind1 = ctx.tcp(&leg1, &n1, start, stop, true);
                let state = super::cptp::download(
                    f,
                    m,
                    (src, proxy, dst),
                    FlowId::from_index(flows.len()),
                    &super::cptp::Paths {
                        end,
                        forwarding,
                        links,
                        ran,
                        node_ue,
                        node_index,
                    },
                );
                let legs = SplitLegs {
                    names: (n1, n2),
                    nodes: (src, proxy, dst),
                    times: (start, stop),
                    buffer_bytes: m.cache.0,
                };
                let kind2 = (FlowKind::Cptp(Box::new(state)), "mmcptp");
                legs.push(&mut flows, kind1, kind2, Reader::AtOnce, node_ue);
                continue;
            }
            let kind = match f.protocol {
                Protocol::Mmcptp => unreachable!("validated: an mmCPTP flow has its table"),
                Protocol::Tcp => ctx.tcp(f, &name, start, stop, true),
                Protocol::Udp => {
                    let App::Cbr { rate, payload } = &f.app else {
                        unreachable!("validated: UDP flows are cbr")
                    };
                    let rate = rate.map(|r| r.rate()).unwrap_or_else(|| {
                        match forwarding.next(src, dst) {
                            // Saturate the radio: the peak rate of the UE's serving cell.
                            Hop::Radio(ue, _) => {
                                let peak = ran.map_or(1e9, |r| {
                                    r.numerology(r.serving_cell(ue)).peak_rate_bps()
                                });
                                Rate(peak as u64)
                            }
                            Hop::Link(l) => links[l.index()].dir.rate_hint(),
                            Hop::Unreachable => unreachable!("validated: every flow is routed"),
                        }
                    });
                    let payload = payload.map_or(1472, |p| p.0 as u32);
                    (
                        FlowKind::Udp {
                            src: UdpSource::new(payload, rate),
                            sink: UdpSink::default(),
                            owd: {
                                let mut d = DelayLog::new(s.metrics.rtt);
                                d.set_budget(ctx.udp_budget);
                                d
                            },
                        },
                        "none",
                    )
                }
            };
            flows.push(flow_state(
                name,
                src,
                dst,
                start,
                stop,
                kind,
                node_ue,
                reader_of(f),
                None,
            ));
        }
    }
    flows
}

impl FlowKind {
    /// A TCP endpoint's next deadline and the slot holding its earliest pending timer
    /// event (`receiver` selects the end); `None` for UDP.
    pub(crate) fn tcp_timer(&mut self, receiver: bool) -> Option<(SimTime, &mut SimTime)> {
        let FlowKind::Tcp {
            sender,
            receiver: r,
            timer_pending,
            ..
        } = self
        else {
            return None;
        };
        let deadline = if receiver {
            r.next_deadline()
        } else {
            sender.next_deadline()
        };
        Some((deadline, &mut timer_pending[receiver as usize]))
    }

    /// A timer event of a TCP endpoint fired at `now`: forget it if it was the pending one,
    /// and let the endpoint act. False for UDP.
    pub(crate) fn fire_tcp_timer(
        &mut self,
        now: SimTime,
        receiver: bool,
        out: &mut Vec<TcpHeader>,
    ) -> bool {
        let FlowKind::Tcp {
            sender,
            receiver: r,
            timer_pending,
            ..
        } = self
        else {
            return false;
        };
        let pending = &mut timer_pending[receiver as usize];
        if *pending == now {
            *pending = SimTime::NEVER;
        }
        if receiver {
            r.on_timer(now, out);
        } else {
            sender.on_timer(now, out);
        }
        true
    }
}
