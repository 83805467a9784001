//! Hop fusion: a packet crossing a transit node goes onto the node's outgoing link as soon
//! as its arrival at the node is known, without an event at the node.
//!
//! A *transit node* only forwards: it is no flow's endpoint, no UE, no cell's site, not the
//! core network's UPF (whose downlink into the tunnels is fused by the rule of
//! `upf_fusion.rs`, with the conditions below). A packet may be fused from its incoming
//! link direction A onto the outgoing one B when B has no other input than A, for either
//! of two reasons:
//! - the node has exactly two wired neighbours, joined both ways (the `core` router
//!   between a gNB and a remote host, for instance): a packet that arrives over one of its
//!   links leaves over the other (a shortest path never turns back);
//! - the routes never change in the run (no core network's tunnels, at most one cell, so
//!   no handover) and the forwarding tables take every flow's packets, both ways, onto B
//!   from A alone (the `core` router of the ten-UE example, with three neighbours: the
//!   uplink's packets from the gNB each go on to one server, which nothing else sends to).
//!
//! When a packet goes onto the wire of A, its arrival `t` at the node is known, and every
//! packet B receives before `t` has already been handed to B. B then takes the packet at
//! once, with the outcome it would have at `t` ([`mmtsim_net::link::LinkDir::enqueue_ahead`]),
//! and the queue B shows at any instant leaves out the packets still to arrive. This
//! saves one event per packet and transit node: on the one-UE path (gNB — core — remote
//! host) two of the five events per data segment and its ACK.
//!
//! A packet is fused only if all of these hold; otherwise it travels A's wire and is
//! forwarded at its arrival as always:
//! - B is served in closed form (constant rate, drop-tail); A keeps order (no reordering
//!   or duplication impairment); neither is captured;
//! - A's wire holds no unfused packet (that one would reach B first);
//! - B's queue admits it at `t` (a refusal is counted at its own instant, the usual way);
//! - the node's table sends it onto B towards its target; and if that target is a UE,
//!   every cell's site lies beyond B (a UE's route follows its serving site, which may
//!   change at a handover before `t`; routes between fixed nodes never change);
//! - `t` lies within the current step ([`super::Sim::horizon`]);
//! - the run has no mmCPTP download (their plug-ins read link queues), and it is a whole
//!   run ([`super::run`]), not one driven step by step from outside: an emulation injects
//!   packets at nodes of its choosing and at the clock's instant, which fusion would move.
//!
//! Results are those of the unfused run: B's admissions, serialisation times, wire losses
//! (its own random stream, drawn in the same order), arrivals and counters are the same,
//! and a fused hop counts as an event ([`mmtsim_engine::EventQueue::count_ahead`]), so the
//! event count does not change either. One thing may differ: B's arrival event may be
//! scheduled earlier than without fusion, and among normal-class events at one nanosecond
//! the earlier-scheduled runs first. That would change a result only if another event
//! fell on exactly that nanosecond and touched the same state; the property test of
//! `tests/it/fusion.rs` (fused whole runs against unfused stepped runs of random transit
//! topologies, some with a third neighbour) and every shipped example's golden figures
//! find none. The hazard is real: a variant that also fused the packets held behind an
//! unfused one, once it had arrived, changed such an order in one of those tests
//! (`packets_left_unfused_keep_later_ones_off_the_next_link`).

use super::upf_fusion::{self, UpfAhead};
use super::Sim;
use crate::topology::Hop;
use mmtsim_engine::ids::{CellId, LinkId, NodeId};
use mmtsim_engine::SimTime;
use mmtsim_net::link::{Delivery, LinkOutput, PacketRef};
use mmtsim_net::Direction;

/// The one link direction that feeds a transit node's outgoing link direction.
#[derive(Clone, Copy, Debug)]
pub(super) struct Feeder {
    /// The incoming link direction whose packets alone go onto the outgoing one.
    from: LinkId,
    /// Every cell's site is reached over the outgoing link: packets for UEs may be fused.
    to_every_site: bool,
}

/// The fusion of a run that fuses hops (kept apart from the world's other state, which
/// a run without transit nodes then finds as it was).
#[derive(Debug)]
pub(super) struct Fusion {
    /// For each outgoing link direction of a transit node, its one feeder, if it has one.
    feeder: Vec<Option<Feeder>>,
    /// Fusion at the UPF for packets to UEs (`upf_fusion.rs`), if it applies.
    pub(super) upf: Option<UpfAhead>,
    /// A fused hop's link output, apart from the world's, which is being read then.
    out: LinkOutput,
    /// Hops fused so far.
    pub(super) hops: u64,
}

/// What feeds a link direction, as far as the flows' routes tell.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fed {
    Nothing,
    By(LinkId),
    Several,
}

/// For each wired link direction, the incoming link directions the flows' packets reach
/// it from (either way along each flow: data and ACKs), by following the forwarding
/// tables. Radio hops end a trace at a UE or continue it at the single cell's site.
fn traced_feeders(sim: &Sim, site: Option<NodeId>) -> Vec<Fed> {
    let wired = sim.topology.wired();
    let mut fed = vec![Fed::Nothing; wired.len()];
    let n = sim.node_ue.len();
    for f in &sim.flows {
        for (from, to) in [(f.src, f.dst), (f.dst, f.src)] {
            let (mut at, mut came) = (from, None::<LinkId>);
            for _ in 0..=n {
                if at == to {
                    break;
                }
                match sim.fwd.next(at, to) {
                    Hop::Link(l) => {
                        if let Some(a) = came {
                            let e = &mut fed[l.index()];
                            *e = match *e {
                                Fed::Nothing => Fed::By(a),
                                Fed::By(b) if b == a => Fed::By(a),
                                _ => Fed::Several,
                            };
                        }
                        came = Some(l);
                        at = wired[l.index()].1;
                    }
                    Hop::Radio(_, Direction::Uplink) => {
                        came = None;
                        match site {
                            Some(s) => at = s,
                            None => break,
                        }
                    }
                    Hop::Radio(_, Direction::Downlink) | Hop::Unreachable => break,
                }
            }
        }
    }
    fed
}

/// Whether packets of link direction `a` may be taken over the node it leads to onto `b`
/// ahead of their arrival: neither link is captured, `a` keeps its packets' order and `b`
/// can take packets ahead of its own wire.
fn may_fuse(sim: &Sim, a: LinkId, b: LinkId) -> bool {
    let (la, lb) = (&sim.links[a.index()], &sim.links[b.index()]);
    la.capture.is_none() && lb.capture.is_none() && la.dir.keeps_order() && lb.dir.takes_ahead()
}

/// Plans the fusion of this run's hops (module doc): the fusion, and each link that
/// feeds it marked (`LinkState::feeds_fusion`), if any hop may be fused.
pub(super) fn plan(sim: &mut Sim) {
    if let Some((fusion, feeds)) = fusion_of(sim) {
        for (ls, on) in sim.links.iter_mut().zip(feeds) {
            ls.feeds_fusion = on;
        }
        sim.fusion = Some(fusion);
    }
}

/// Which hops of this run may be fused: the fusion and, for each link direction, whether
/// some of its packets may be handed on ahead of arrival. `None`: no hop may.
fn fusion_of(sim: &Sim) -> Option<(Box<Fusion>, Vec<bool>)> {
    if !sim.cptp_flows.is_empty() {
        return None;
    }
    let n = sim.node_ue.len();
    // Nodes that do more than forward.
    let mut busy = vec![false; n];
    for f in &sim.flows {
        busy[f.src.index()] = true;
        busy[f.dst.index()] = true;
    }
    for (i, u) in sim.node_ue.iter().enumerate() {
        busy[i] |= u.is_some();
    }
    if let Some(ran) = &sim.ran {
        for c in 0..ran.cells() {
            busy[ran.cell_node(CellId::from_index(c)).index()] = true;
        }
    }
    if let Some(core) = &sim.core {
        busy[core.upf().index()] = true;
    }
    // Routes that never change: no core network's tunnels, at most one cell (no
    // handover, no dual connectivity). Then the flows' routes tell each link's feeders.
    let fixed = sim.core.is_none() && sim.ran.as_ref().is_none_or(|r| r.cells() <= 1);
    let traced = fixed.then(|| {
        let site = sim
            .ran
            .as_ref()
            .filter(|r| r.cells() == 1)
            .map(|r| r.cell_node(CellId::from_index(0)));
        traced_feeders(sim, site)
    });
    let wired = sim.topology.wired();
    let mut ins: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut outs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (l, &(from, to)) in wired.iter().enumerate() {
        outs[from.index()].push(l);
        ins[to.index()].push(l);
    }
    let mut feeds = vec![false; wired.len()];
    let mut feeder = vec![None; wired.len()];
    for node in 0..n {
        if busy[node] {
            continue;
        }
        let from: Vec<NodeId> = ins[node].iter().map(|&l| wired[l].0).collect();
        let to: Vec<NodeId> = outs[node].iter().map(|&l| wired[l].1).collect();
        // Two distinct neighbours, each joined both ways: a packet arriving from one
        // leaves towards the other (a shortest path never turns back), whatever the flows.
        let two_way = from.len() == 2
            && to.len() == 2
            && from[0] != from[1]
            && to.contains(&from[0])
            && to.contains(&from[1]);
        for &b in &outs[node] {
            let a = if two_way {
                *ins[node]
                    .iter()
                    .find(|&&i| wired[i].0 != wired[b].1)
                    .expect("two distinct neighbours")
            } else {
                match traced.as_ref().map(|t| t[b]) {
                    Some(Fed::By(a)) => a.index(),
                    _ => continue,
                }
            };
            if may_fuse(sim, LinkId::from_index(a), LinkId::from_index(b)) {
                let link = LinkId::from_index(b);
                let to_every_site = sim.ran.as_ref().is_none_or(|ran| {
                    (0..ran.cells()).all(|c| {
                        let site = ran.cell_node(CellId::from_index(c));
                        sim.fwd.next(NodeId::from_index(node), site) == Hop::Link(link)
                    })
                });
                feeds[a] = true;
                feeder[b] = Some(Feeder {
                    from: LinkId::from_index(a),
                    to_every_site,
                });
            }
        }
    }
    // The UPF, downlink (`upf_fusion.rs`): its links toward the sites, fed by one link.
    let mut upf = None;
    if let Some((toward, ahead)) = upf_fusion::plan(sim) {
        let a = ahead.from;
        for b in toward.into_iter().filter(|&b| may_fuse(sim, a, b)) {
            feeds[a.index()] = true;
            feeder[b.index()] = Some(Feeder {
                from: a,
                to_every_site: false,
            });
        }
        upf = feeds[a.index()].then_some(ahead);
    }
    if !feeds.contains(&true) {
        return None;
    }
    let fusion = Box::new(Fusion {
        feeder,
        upf,
        out: LinkOutput::default(),
        hops: 0,
    });
    Some((fusion, feeds))
}

impl Sim {
    /// The output of the hop being fused.
    fn ahead_out(&self) -> &LinkOutput {
        &self.fusion.as_deref().expect("fusing").out
    }

    /// The deliveries in `lout` of link `l`, which feeds fusion (handed over at `now`):
    /// each fused onto the transit node's next link if it may be, else onto `l`'s wire.
    #[inline(never)]
    pub(super) fn fuse_or_put(&mut self, now: SimTime, l: LinkId) {
        for i in 0..self.lout.delivered.len() {
            let d = self.lout.delivered[i];
            if !self.fuse_hop(now, l, d) {
                self.put_delivery(l, d);
            }
        }
    }

    /// Packet `id` was taken ahead by the next link: counted as the hop's event; it
    /// entered the tunnel to `tunnel`, if any, at the node.
    #[inline]
    fn fused(&mut self, id: u32, tunnel: Option<NodeId>) {
        self.fusion.as_deref_mut().expect("fusing").hops += 1;
        self.q.count_ahead();
        if let Some(end) = tunnel {
            self.pkts[id as usize].tunnel = Some(end);
        }
    }

    /// Delivery `d` of link `a`, which feeds fusion, (handed over at `now`) goes straight
    /// onto the transit node's outgoing link, if it may (module doc). False: nothing
    /// changed.
    pub(super) fn fuse_hop(&mut self, now: SimTime, a: LinkId, d: Delivery) -> bool {
        if d.held || d.duplicate || d.at > self.horizon || !self.links[a.index()].wire.is_empty() {
            return false;
        }
        let node = self.links[a.index()].to;
        let id = d.pkt.0;
        let (dst, tunnel, size) = {
            let p = &self.pkts[id as usize];
            (p.dst, p.tunnel, p.size_bytes)
        };
        // The target `forward` would route towards at the node (which is no tunnel end
        // and no destination; at the UPF, a packet for a UE enters the UE's tunnel).
        let (target, enters) = match (tunnel, &self.core) {
            (Some(end), _) => (end, false),
            (None, Some(core)) if self.node_ue[dst.index()].is_some() => {
                if node != core.upf() {
                    (core.upf(), false)
                } else {
                    match self.tunnel_end_ahead(now, dst, d.at) {
                        Some(end) => (end, true),
                        None => return false,
                    }
                }
            }
            (None, _) => (dst, false),
        };
        if target == node {
            return false;
        }
        let Hop::Link(b) = self.fwd.next(node, target) else {
            return false;
        };
        let fusion = self.fusion.as_deref().expect("fusing");
        match fusion.feeder[b.index()] {
            Some(Feeder {
                from,
                to_every_site,
            }) if from == a && (to_every_site || self.node_ue[target.index()].is_none()) => {}
            _ => return false,
        }
        if self.links[b.index()].dir.is_direct() {
            // One outcome, known now: no link output to fill and read back.
            let Some(at) = self.links[b.index()]
                .dir
                .enqueue_ahead_direct(now, d.at, size)
            else {
                return false;
            };
            self.fused(id, enters.then_some(target));
            self.put_delivery(b, Delivery::plain(PacketRef(id), at));
            return true;
        }
        let fusion = self.fusion.as_deref_mut().expect("fusing");
        if !self.links[b.index()]
            .dir
            .enqueue_ahead(now, d.at, PacketRef(id), size, &mut fusion.out)
        {
            return false;
        }
        self.fused(id, enters.then_some(target));
        for i in 0..self.ahead_out().dropped.len() {
            let (p, _) = self.ahead_out().dropped[i];
            self.drop_packet(p.0);
        }
        for i in 0..self.ahead_out().delivered.len() {
            let e = self.ahead_out().delivered[i];
            self.put_delivery(b, e);
        }
        let fusion = self.fusion.as_deref_mut().expect("fusing");
        fusion.out.dropped.clear();
        fusion.out.delivered.clear();
        true
    }
}
