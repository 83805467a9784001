//! Hop fusion: a packet crossing a transit node goes onto the node's outgoing link as soon
//! as its arrival at the node is known, without an event at the node.
//!
//! A *transit node* only forwards: it is no flow's endpoint, no UE, no cell's site, not the
//! core network's UPF, and it has exactly two wired neighbours, joined both ways (the
//! `core` router between a gNB and a remote host, for instance). A packet that arrives
//! over one of its links leaves over the other (a shortest path never turns back), and
//! that outgoing link direction has no other input. So when a packet goes onto the wire of
//! the incoming link A, its arrival `t` at the node is known, and every packet the outgoing
//! link B receives before `t` has already been handed to B. B then takes the packet at
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
//! topologies) and every shipped example's golden figures find none.

use super::Sim;
use crate::topology::Hop;
use mmtsim_engine::ids::{CellId, LinkId, NodeId};
use mmtsim_engine::SimTime;
use mmtsim_net::link::{Delivery, LinkOutput, PacketRef};

/// Where a link direction's packets are handed on to ahead of their arrival.
#[derive(Clone, Copy, Debug)]
pub(super) struct Onward {
    /// The transit node's other link direction.
    link: LinkId,
    /// Every cell's site is reached over it: packets for UEs may be fused too.
    to_every_site: bool,
}

/// The fusion of a run that fuses hops (kept apart from the world's other state, which
/// a run without transit nodes then finds as it was).
#[derive(Debug)]
pub(super) struct Fusion {
    /// For each link direction, where its packets are handed on to ahead of their arrival.
    onward: Vec<Option<Onward>>,
    /// A fused hop's link output, apart from the world's, which is being read then.
    out: LinkOutput,
    /// Hops fused so far.
    pub(super) hops: u64,
}

/// For each link direction, where its packets are handed on to ahead of their arrival (the
/// other link of a transit node), if anywhere. `None`: no hop of this run can be fused.
pub(super) fn plan(sim: &Sim) -> Option<Box<Fusion>> {
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
    let wired = sim.topology.wired();
    let mut ins: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut outs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (l, &(from, to)) in wired.iter().enumerate() {
        outs[from.index()].push(l);
        ins[to.index()].push(l);
    }
    let mut fuse = vec![None; wired.len()];
    for node in 0..n {
        if busy[node] || ins[node].len() != 2 || outs[node].len() != 2 {
            continue;
        }
        let from: Vec<NodeId> = ins[node].iter().map(|&l| wired[l].0).collect();
        let to: Vec<NodeId> = outs[node].iter().map(|&l| wired[l].1).collect();
        // Two distinct neighbours, each joined both ways.
        if from[0] == from[1] || !(to.contains(&from[0]) && to.contains(&from[1])) {
            continue;
        }
        for &a in &ins[node] {
            let back = wired[a].0;
            let b = *outs[node]
                .iter()
                .find(|&&o| wired[o].1 != back)
                .expect("two distinct neighbours");
            let (la, lb) = (&sim.links[a], &sim.links[b]);
            if la.capture.is_none()
                && lb.capture.is_none()
                && la.dir.keeps_order()
                && lb.dir.takes_ahead()
            {
                let link = LinkId::from_index(b);
                let to_every_site = sim.ran.as_ref().is_none_or(|ran| {
                    (0..ran.cells()).all(|c| {
                        let site = ran.cell_node(CellId::from_index(c));
                        sim.fwd.next(NodeId::from_index(node), site) == Hop::Link(link)
                    })
                });
                fuse[a] = Some(Onward {
                    link,
                    to_every_site,
                });
            }
        }
    }
    if fuse.iter().all(Option::is_none) {
        return None;
    }
    Some(Box::new(Fusion {
        onward: fuse,
        out: LinkOutput::default(),
        hops: 0,
    }))
}

impl Sim {
    /// The output of the hop being fused.
    fn ahead_out(&self) -> &LinkOutput {
        &self.fusion.as_deref().expect("fusing").out
    }

    /// The deliveries in `lout` of link `l` (handed over at `now`): each fused onto the
    /// transit node's next link if it may be, else onto `l`'s wire.
    #[inline(never)]
    pub(super) fn fuse_or_put(&mut self, now: SimTime, l: LinkId) {
        for i in 0..self.lout.delivered.len() {
            let d = self.lout.delivered[i];
            if !self.fuse_hop(now, l, d) {
                self.put_delivery(l, d);
            }
        }
    }

    /// Delivery `d` of link `a` (handed over at `now`) goes straight onto the transit
    /// node's outgoing link, if it may (module doc). False: nothing changed.
    fn fuse_hop(&mut self, now: SimTime, a: LinkId, d: Delivery) -> bool {
        let Some(Onward {
            link: b,
            to_every_site,
        }) = self.fusion.as_ref().and_then(|f| f.onward[a.index()])
        else {
            return false;
        };
        if d.held || d.duplicate || d.at > self.horizon || !self.links[a.index()].wire.is_empty() {
            return false;
        }
        let node = self.links[a.index()].to;
        let id = d.pkt.0;
        let (dst, tunnel, size) = {
            let p = &self.pkts[id as usize];
            (p.dst, p.tunnel, p.size_bytes)
        };
        // The target `forward` would route towards at the node (which is no tunnel end,
        // no UPF and no destination).
        let target = match (tunnel, &self.core) {
            (Some(end), _) => end,
            (None, Some(core)) if self.node_ue[dst.index()].is_some() => core.upf(),
            (None, _) => dst,
        };
        if target == node
            || (self.node_ue[target.index()].is_some() && !to_every_site)
            || self.fwd.next(node, target) != Hop::Link(b)
        {
            return false;
        }
        let fusion = self.fusion.as_deref_mut().expect("fusing");
        if !self.links[b.index()]
            .dir
            .enqueue_ahead(now, d.at, PacketRef(id), size, &mut fusion.out)
        {
            return false;
        }
        fusion.hops += 1;
        self.q.count_ahead();
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
