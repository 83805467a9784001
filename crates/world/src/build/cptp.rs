//! An mmCPTP download's state in a run, and its settings resolved from the scenario
//! (`scenario/src/mmcptp.rs`): the pull buffer's size by the paper's rule, and how much
//! the plug-in keeps in the lower layer's buffer.

use super::LinkState;
use crate::topology::{Forwarding, Hop};
use mmtsim_engine::ids::{FlowId, LinkId, NodeId, UeId};
use mmtsim_engine::metrics::Occupancy;
use mmtsim_engine::SimTime;
use mmtsim_ran::network::Ran;
use mmtsim_scenario::mmcptp::{Mmcptp, PullBuffer as PullBufferSize, PullKind};
use mmtsim_scenario::model::{App, Flow};
use mmtsim_transport::cptp::bs::{BsConfig, BsStats, PullBuffer, PullMode};
use mmtsim_transport::cptp::proxy::{Proxy, ProxyConfig};
use mmtsim_transport::cptp::ue::{UeConfig, UeEnd};

/// Lower-layer buffer the plug-in keeps filled, in MAC scheduling intervals at the last
/// hop's peak rate: two, so a slot is never starved by the one-interval wait for the
/// next push (our choice; the paper pushes "based on the buffer status report").
pub(crate) const PUSH_AHEAD_INTERVALS: u64 = 2;
/// Smallest retransmission timeouts of the proxy and the plug-in: the RFC 6298 floor of
/// 1 s is for paths with unknown delay; these hops are within one operator's network.
pub(crate) const MIN_RTO: SimTime = SimTime::from_ms(10);
/// Delay of an ACK for one in-order packet at the UE (the delayed-ACK rule's timer,
/// shorter than TCP's 40 ms minimum since the BS, not a remote sender, waits on it).
pub(crate) const UE_ACK_DELAY: SimTime = SimTime::from_ms(1);

/// Where the plug-in runs.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Access {
    /// A RAN UE: the serving cell's site, reading RLC every slot.
    Ran(UeId),
    /// A wired last hop: the plug-in's node and its link towards the UE.
    Wired {
        node: NodeId,
        link: LinkId,
        interval: SimTime,
    },
}

/// One mmCPTP download (the flow's second leg, proxy → UE).
pub(crate) struct CptpState {
    pub server: NodeId,
    pub proxy_node: NodeId,
    pub ue_node: NodeId,
    pub access: Access,
    /// The server's TCP connection to the proxy (the flow's first leg).
    pub server_leg: FlowId,
    pub server_started: bool,
    pub proxy: Proxy,
    pub ue: UeEnd,
    /// The current pull buffer and the node holding it.
    pub bs: Option<(NodeId, PullBuffer)>,
    pub bs_cfg: BsConfig,
    /// Bytes the plug-in keeps in the lower layer.
    pub push_target_bytes: u64,
    pub pull_buffer_bytes: u64,
    pub packet_bytes: u32,
    /// Counters of pull buffers already released (handovers).
    pub bs_done: BsStats,
    pub nacks_sent: u64,
    /// NACKs waiting for the proxy's NACK-ACK, with the site that sent them.
    pub nack_pending: Vec<(NodeId, mmtsim_transport::cptp::bs::NackSender)>,
    /// The pending timer event of each role, by its index (`run/cptp.rs`): proxy, BS, UE,
    /// the wired last hop's push tick, the proxy's egress wake-up, NACKs sent again.
    pub timer_pending: [SimTime; 6],
    /// Sampled pull-buffer and cache occupancy, bytes.
    pub pull_occupancy: Occupancy,
    pub cache_occupancy: Occupancy,
    /// A file download: when the whole file reached the UE.
    pub completed_at: Option<SimTime>,
}

/// What a download's settings are resolved against: the network as built.
pub(crate) struct Paths<'a> {
    pub end: SimTime,
    pub forwarding: &'a Forwarding,
    pub links: &'a [LinkState],
    pub ran: Option<&'a Ran>,
    pub node_ue: &'a [Option<UeId>],
    pub node_index: &'a dyn Fn(&str) -> NodeId,
}

/// The state of flow `f`'s mmCPTP download (validated) between (server, proxy, UE), its
/// server's TCP connection being flow `server_leg`.
pub(crate) fn download(
    f: &Flow,
    m: &Mmcptp,
    (server, proxy, ue_node): (NodeId, NodeId, NodeId),
    server_leg: FlowId,
    p: &Paths,
) -> CptpState {
    let mss = mmtsim_scenario::resolve::tcp_config(f)
        .expect("validated TCP configuration")
        .mss;
    // Where the plug-in runs, the last hop's peak rate and the plug-in's interval.
    let (access, peak, interval) = match &m.bs {
        None => {
            let ue = p.node_ue[ue_node.index()].expect("validated: a RAN UE");
            let ran = p.ran.expect("validated: a RAN UE");
            let num = ran.numerology(ran.serving_cell(ue));
            (Access::Ran(ue), num.peak_rate_bps(), num.slot)
        }
        Some(b) => {
            let node = (p.node_index)(b);
            let Hop::Link(link) = p.forwarding.next(node, ue_node) else {
                unreachable!("validated: the plug-in's node has a link to the UE")
            };
            let interval = m.push_interval.time();
            let peak = p.links[link.index()]
                .dir
                .peak_rate(p.end, SimTime::from_ms(10))
                .as_bps() as f64;
            (
                Access::Wired {
                    node,
                    link,
                    interval,
                },
                peak,
                interval,
            )
        }
    };
    // The round trip from the proxy to the UE by propagation delays; the radio adds a
    // HARQ round trip for the data on the downlink and one for the UE's ACK on the
    // uplink, 8 slots each (8 TTIs in LTE, [TS36213 §8]), and the UE's delayed-ACK timer.
    let mut one_way = SimTime::ZERO;
    let mut radio = SimTime::ZERO;
    let mut at = proxy;
    for _ in 0..p.node_ue.len() {
        match p.forwarding.next(at, ue_node) {
            Hop::Link(l) => {
                one_way += p.links[l.index()].dir.delay();
                at = p.links[l.index()].to;
            }
            Hop::Radio(..) => {
                radio = SimTime(interval.ns() * 16) + UE_ACK_DELAY;
                break;
            }
            Hop::Unreachable => break,
        }
        if at == ue_node {
            break;
        }
    }
    let round_trip = one_way + one_way + radio;
    let mut state = cptp_state(
        m, mss, server, proxy, ue_node, access, server_leg, peak, interval, round_trip,
    );
    if let App::File { size } = &f.app {
        // The server's response names the content's length.
        state.proxy.set_content_length(size.0);
        if m.preloaded {
            state.proxy.preload(size.0);
        }
    }
    state
}

/// Resolves the settings of one download.
#[allow(clippy::too_many_arguments)]
fn cptp_state(
    m: &Mmcptp,
    mss: u32,
    server: NodeId,
    proxy_node: NodeId,
    ue_node: NodeId,
    access: Access,
    server_leg: FlowId,
    peak_rate_bps: f64,
    interval: SimTime,
    round_trip: SimTime,
) -> CptpState {
    let packet_bytes = m.packet.map_or(mss, |s| s.0 as u32);
    let p = packet_bytes as u64;
    // [MMCPTP §V ¶2]: "the buffer size should be the product of max-last-hop BW ×
    // periodicity". That rule counts a packet out of the buffer once pushed; ours keeps
    // it until the UE acknowledges it (§VI ¶2, "clear the buffer based on the received
    // ACKs"), and a pulled packet is reserved while it crosses from the proxy, so the
    // rate × period is extended by that round trip and the push-ahead: max rate ×
    // (T + proxy–UE round trip + push-ahead), the round trip being the propagation
    // delays plus, through a RAN, both directions' HARQ round trips and the UE's ACK
    // delay (`flows.rs`). At least two packets.
    let held = m.period.time() + round_trip + SimTime(interval.ns() * PUSH_AHEAD_INTERVALS);
    let pull_buffer_bytes = match m.pull_buffer {
        PullBufferSize::Size(s) => s.0,
        PullBufferSize::Auto => ((peak_rate_bps / 8.0 * held.secs_f64()) as u64).max(2 * p),
    };
    let capacity_packets = (pull_buffer_bytes / p).max(1);
    let pull = match m.pull {
        PullKind::Periodic => PullMode::Periodic {
            period: m.period.time(),
        },
        PullKind::Threshold => PullMode::Threshold {
            packets: ((capacity_packets as f64 * m.threshold).ceil() as u64).max(1),
        },
    };
    let push_target_bytes = ((peak_rate_bps / 8.0 * interval.secs_f64()) as u64
        * PUSH_AHEAD_INTERVALS)
        .max(2 * (p + 48));
    CptpState {
        server,
        proxy_node,
        ue_node,
        access,
        server_leg,
        server_started: false,
        proxy: Proxy::new(ProxyConfig {
            packet_bytes,
            cache_bytes: m.cache.0,
            request_timeout: m.request_timeout.time(),
        }),
        ue: UeEnd::new(UeConfig {
            ack_delay: UE_ACK_DELAY,
            // The UE waits twice the proxy's wait, so that the proxy's FAIL, not the UE's
            // own timer, reports a server that did not answer.
            request_timeout: SimTime(2 * m.request_timeout.0),
            retries: m.retries,
        }),
        bs: None,
        bs_cfg: BsConfig {
            capacity_packets,
            pull,
            min_rto: MIN_RTO,
        },
        push_target_bytes,
        pull_buffer_bytes,
        packet_bytes,
        bs_done: BsStats::default(),
        nacks_sent: 0,
        nack_pending: Vec::new(),
        timer_pending: [SimTime::NEVER; 6],
        pull_occupancy: Occupancy::default(),
        cache_occupancy: Occupancy::default(),
        completed_at: None,
    }
}
