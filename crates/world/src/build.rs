//! Building a world from a validated scenario.

use mmtsim_apps::{AppKind, TcpApp};
use mmtsim_engine::metrics::{DelayLog, Thinning};
use mmtsim_engine::{Rate, RngStreams, SimTime};
use mmtsim_net::link::{Impairments, LinkConfig, LinkDir};
use mmtsim_net::packet::TcpHeader;
use mmtsim_net::trace::RateTrace;
use mmtsim_ran::network::Ran;
use mmtsim_scenario::model::{App, CwndRecording, Protocol};
use mmtsim_scenario::{resolve, Loaded};
use mmtsim_transport::tcp::receiver::TcpReceiver;
use mmtsim_transport::tcp::sender::TcpSender;
use mmtsim_transport::udp::{UdpSink, UdpSource};
use std::collections::VecDeque;

/// One link direction and where it leads.
pub(crate) struct LinkState {
    pub dir: LinkDir,
    pub to: u32,
    pub name: String,
    pub reverse: bool,
    /// Index into the world's capture writers, if this link is captured.
    pub capture: Option<usize>,
    pub rate_desc: String,
    /// Packets propagating on the wire in arrival order (constant delay keeps them FIFO),
    /// so the event queue holds one event per link instead of one per packet.
    pub wire: std::collections::VecDeque<(SimTime, u32)>,
    /// A `WireHead` event for this link is scheduled.
    pub wire_event_pending: bool,
    /// Sum, count and maximum of the sampled queue occupancy (bytes).
    pub occupancy_sum: u128,
    pub occupancy_samples: u64,
    pub occupancy_max: u64,
}

// One per flow, so the size difference costs nothing; boxing TCP would add an indirection
// to every packet.
#[allow(clippy::large_enum_variant)]
pub(crate) enum FlowKind {
    Tcp {
        sender: TcpSender,
        receiver: TcpReceiver,
        app: TcpApp,
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
}

pub(crate) struct FlowState {
    pub name: String,
    /// UE index of the sending node, if it is a UE (its radio view feeds the sender).
    pub src_ue: Option<usize>,
    /// UE index of the receiving node, if it is a UE (its view feeds a window controller).
    pub dst_ue: Option<usize>,
    pub src: u32,
    pub dst: u32,
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
    pub cwnd_t_ns: Vec<u64>,
    pub cwnd_bytes: Vec<u64>,
    pub ssthresh_bytes: Vec<u64>,
    pub inflight_bytes: Vec<u64>,
    pub rwnd_bytes: Vec<u64>,
}

/// Route entries at or above this value are radio hops: `RADIO | ue << 1 | uplink`.
pub(crate) const RADIO: u32 = 1 << 31;

pub(crate) struct Built {
    pub nodes: Vec<String>,
    /// The radio access network, if the scenario has one.
    pub ran: Option<Ran>,
    /// UE names, by UE index.
    pub ue_names: Vec<String>,
    /// gNB names, by cell index.
    pub gnb_names: Vec<String>,
    pub links: Vec<LinkState>,
    /// route[node * n + dst] = link-direction index, or u32::MAX.
    pub route: Vec<u32>,
    pub flows: Vec<FlowState>,
    pub captured_links: Vec<String>,
}

fn link_rate_desc(rate: Option<resolve::DirSettings<'_>>) -> String {
    match rate {
        Some(d) => match (d.rate, d.trace) {
            (Some(r), _) => r.to_string(),
            (_, Some(t)) => format!("trace:{}", t.file.display()),
            _ => "?".into(),
        },
        None => "?".into(),
    }
}

pub(crate) fn build(l: &Loaded, seed: u64) -> Result<Built, String> {
    let s = &l.scenario;
    let rng = RngStreams::new(seed);
    let nodes: Vec<String> = s.node_names().into_iter().map(String::from).collect();
    let index: std::collections::BTreeMap<&str, u32> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i as u32))
        .collect();
    let node_index = |name: &str| *index.get(name).expect("validated node reference");
    let mut link_from: Vec<u32> = Vec::new();

    let mut links = Vec::new();
    let mut captured_links = Vec::new();
    for (li, link) in s.links.iter().enumerate() {
        let name = link
            .name
            .clone()
            .unwrap_or_else(|| format!("{}-{}", link.between[0], link.between[1]));
        let ends = [node_index(&link.between[0]), node_index(&link.between[1])];
        let capture = link.capture.then(|| {
            captured_links.push(name.clone());
            captured_links.len() - 1
        });
        for reverse in [false, true] {
            let d = resolve::direction(link, reverse);
            let rate = match (d.rate, l.traces.get(&(li, reverse))) {
                (_, Some(t)) => t.clone(),
                (Some(r), None) => RateTrace::constant(Rate(r.0)),
                (None, None) => unreachable!("validated: every direction has a rate or a trace"),
            };
            let imp = d.impairments.cloned().unwrap_or_default();
            let cfg = LinkConfig {
                rate,
                delay: link.delay.time(),
                queue: resolve::queue_config(d.queue),
                impairments: Impairments {
                    loss: d.loss.map(resolve::loss_model),
                    duplicate_p: imp.duplicate,
                    reorder_p: imp.reorder,
                    reorder_delay: imp.reorder_delay.time(),
                    drop_packets: imp.drop_packets.clone(),
                },
                mtu_bytes: link.mtu.map_or(1500, |m| m.0 as u32),
            };
            let tag = if reverse { "rev" } else { "fwd" };
            let dir = LinkDir::new(
                cfg,
                rng.stream(&format!("link/{name}/{tag}/loss")),
                rng.stream(&format!("link/{name}/{tag}/impair")),
            );
            link_from.push(if reverse { ends[1] } else { ends[0] });
            links.push(LinkState {
                dir,
                to: if reverse { ends[0] } else { ends[1] },
                name: name.clone(),
                reverse,
                capture,
                rate_desc: link_rate_desc(Some(resolve::direction(link, reverse))),
                wire: VecDeque::new(),
                wire_event_pending: false,
                occupancy_sum: 0,
                occupancy_samples: 0,
                occupancy_max: 0,
            });
        }
    }

    // Static shortest-hop routes: a BFS from every destination over reversed edges,
    // O(nodes · (nodes + links)). Ties go to the link direction found first (lower index).
    let n = nodes.len();
    let mut route = vec![u32::MAX; n * n];
    let mut in_edges: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n]; // node -> (from, link dir)
    for (i, ls) in links.iter().enumerate() {
        in_edges[ls.to as usize].push((link_from[i], i as u32));
    }
    let (mut ran, mut ue_names, mut gnb_names) = (None, Vec::new(), Vec::new());
    if let Some(r) = &s.ran {
        let cfg = mmtsim_scenario::ran::ran_config(
            r,
            &l.sinr_traces,
            s.nodes.len() as u32,
            s.simulation.duration.time(),
            &rng,
        )?;
        for (j, u) in cfg.ues.iter().enumerate() {
            let g = cfg.gnbs[u.gnb].node;
            // Downlink: gNB → UE; uplink: UE → gNB.
            in_edges[u.node as usize].push((g, RADIO | (j as u32) << 1));
            in_edges[g as usize].push((u.node, RADIO | (j as u32) << 1 | 1));
        }
        ue_names = cfg.ues.iter().map(|u| u.name.clone()).collect();
        gnb_names = cfg.gnbs.iter().map(|g| g.name.clone()).collect();
        ran = Some(Ran::new(&cfg, &rng));
    }
    let mut dist = vec![u32::MAX; n];
    let mut q = VecDeque::with_capacity(n);
    for dst in 0..n {
        dist.fill(u32::MAX);
        dist[dst] = 0;
        q.clear();
        q.push_back(dst);
        while let Some(v) = q.pop_front() {
            for &(u, ld) in &in_edges[v] {
                let u = u as usize;
                if dist[u] == u32::MAX {
                    dist[u] = dist[v] + 1;
                    route[u * n + dst] = ld;
                    q.push_back(u);
                }
            }
        }
    }

    let end = s.simulation.duration.time();
    // Each per-packet table's row budget is shared evenly by the flows that record it.
    let budget_of = |p: Protocol| {
        let n: u64 = s
            .flows
            .iter()
            .filter(|f| f.protocol == p)
            .map(|f| f.count as u64)
            .sum();
        if s.metrics.keep_all_samples {
            0
        } else {
            (s.metrics.sample_budget / n.max(1)).max(2) as usize
        }
    };
    let (tcp_budget, udp_budget) = (budget_of(Protocol::Tcp), budget_of(Protocol::Udp));
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
            let (kind, cc_name) = match f.protocol {
                Protocol::Tcp => {
                    let mut cfg = resolve::tcp_config(f).expect("validated TCP configuration");
                    if let mmtsim_transport::cc::CcParams::Bbr(p) = &mut cfg.cc {
                        // Each flow draws its own PROBE_BW phases, reproducibly per run seed.
                        use rand::RngCore;
                        p.seed = rng.stream(&format!("flow/{name}/bbr")).next_u64();
                    }
                    let cc_name = cfg.cc.name();
                    let log_changes = s.metrics.cwnd == CwndRecording::Change;
                    let (app_kind, file_size) = match &f.app {
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
                    };
                    let app = TcpApp::new(
                        app_kind,
                        start,
                        stop,
                        cfg.mss as u64,
                        rng.stream(&format!("flow/{name}/app")),
                    );
                    let mut sender = TcpSender::new(cfg.clone(), log_changes, start);
                    sender.log.rtt.keep = s.metrics.rtt;
                    sender.log.rtt.set_budget(tcp_budget);
                    if let Some(c) = &mut sender.log.cwnd {
                        c.thinning = Thinning::new(tcp_budget);
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
                Protocol::Udp => {
                    let App::Cbr { rate, payload } = &f.app else {
                        unreachable!("validated: UDP flows are cbr")
                    };
                    let first_link = route[src as usize * n + dst as usize];
                    let rate = rate.map(|r| r.rate()).unwrap_or_else(|| {
                        if first_link >= RADIO {
                            // Saturate the radio: its peak rate.
                            let peak = ran.as_ref().map_or(1e9, |r| r.numerology().peak_rate_bps());
                            Rate(peak as u64)
                        } else {
                            links[first_link as usize].dir.rate_hint()
                        }
                    });
                    let payload = payload.map_or(1472, |p| p.0 as u32);
                    (
                        FlowKind::Udp {
                            src: UdpSource::new(payload, rate),
                            sink: UdpSink::default(),
                            owd: {
                                let mut d = DelayLog::new(s.metrics.rtt);
                                d.set_budget(udp_budget);
                                d
                            },
                        },
                        "none",
                    )
                }
            };
            let first_ue = s.nodes.len() + s.ran.as_ref().map_or(0, |r| r.gnbs.len());
            let src_ue = (src as usize >= first_ue).then(|| src as usize - first_ue);
            let dst_ue = (dst as usize >= first_ue).then(|| dst as usize - first_ue);
            flows.push(FlowState {
                name,
                src_ue,
                dst_ue,
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
                cwnd_t_ns: vec![],
                cwnd_bytes: vec![],
                ssthresh_bytes: vec![],
                inflight_bytes: vec![],
                rwnd_bytes: vec![],
            });
        }
    }
    Ok(Built {
        nodes,
        ran,
        ue_names,
        gnb_names,
        links,
        route,
        flows,
        captured_links,
    })
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
