//! Real packets of an emulation inside a run: their bytes, where they enter and where
//! they leave.
//!
//! A real IP packet read from a TUN device becomes an ordinary packet record whose
//! transport is [`Transport::External`]: it names a slot of [`Payloads`], which holds the
//! bytes, so the record does not grow and a simulated run pays nothing. From its entry
//! node the packet is routed like any other (the UE's radio with PDCP, RLC, HARQ and the
//! scheduler; the core's tunnel; Xn at a handover; wired links), because those models
//! only read a record's size, addresses and tunnel. At its destination node, instead of
//! an endpoint, it joins the egress list, which the driver drains and writes out.
//!
//! Simplifications: the bytes are never read here (no header compression, no
//! ciphering), and the IP addresses inside them play no part in routing: a packet
//! injected at the UE goes to the emulation's server node and the other way round
//! (docs/design/emulation.md).

use super::{Sim, Stepper};
use mmtsim_engine::ids::{FlowId, NodeId};
use mmtsim_engine::SimTime;
use mmtsim_net::packet::{Packet, Transport};

/// The bytes of the real packets in flight, and what became of them.
#[derive(Debug, Default)]
pub(super) struct Payloads {
    bytes: Vec<Vec<u8>>,
    free: Vec<u32>,
    /// Packets that reached their destination: (instant, node, slot).
    egress: Vec<(SimTime, NodeId, u32)>,
    counts: ExternalCounts,
}

/// What became of the real packets of a run so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExternalCounts {
    /// Packets injected.
    pub injected: u64,
    /// Packets that reached their destination node.
    pub delivered: u64,
    /// Packets dropped on the way (a full RLC or link buffer, a HARQ failure without RLC
    /// AM, no route, no Xn link at a handover).
    pub dropped: u64,
    /// Copies made by a link's duplication impairment.
    pub duplicated: u64,
    /// Packets refused because they arrived after the end of the run.
    pub after_end: u64,
}

impl Payloads {
    fn store(&mut self, data: &[u8]) -> u32 {
        match self.free.pop() {
            Some(s) => {
                let b = &mut self.bytes[s as usize];
                b.clear();
                b.extend_from_slice(data);
                s
            }
            None => {
                self.bytes.push(data.to_vec());
                (self.bytes.len() - 1) as u32
            }
        }
    }

    fn release(&mut self, slot: u32) {
        self.free.push(slot);
    }
}

/// The flow a real packet is filed under: none of the scenario's (no endpoint reads it).
const NO_FLOW: u32 = u32::MAX;

impl Sim {
    /// Frees `pkt`, which was dropped on its way; a real packet's bytes go with it.
    pub(super) fn drop_packet(&mut self, pkt: u32) {
        if let Transport::External { slot } = self.pkts[pkt as usize].transport {
            self.ext.release(slot);
            self.ext.counts.dropped += 1;
        }
        self.free.push(pkt);
    }

    /// A second record of `pkt` (a link's duplication impairment); a real packet gets a
    /// copy of its bytes, so that each copy is written out once.
    pub(super) fn alloc_copy(&mut self, pkt: u32) -> u32 {
        let mut p = self.pkts[pkt as usize];
        if let Transport::External { slot } = p.transport {
            let data = std::mem::take(&mut self.ext.bytes[slot as usize]);
            let copy = self.ext.store(&data);
            self.ext.bytes[slot as usize] = data;
            self.ext.counts.duplicated += 1;
            p.transport = Transport::External { slot: copy };
        }
        self.alloc(p)
    }

    /// A real packet reached its destination `node` (its record is already freed).
    pub(super) fn deliver_external(&mut self, now: SimTime, node: NodeId, slot: u32) {
        self.ext.counts.delivered += 1;
        self.ext.egress.push((now, node, slot));
    }
}

impl Stepper<'_> {
    /// The node called `name` in the scenario (nodes, gNB sites, UEs).
    pub fn node_id(&self, name: &str) -> Option<NodeId> {
        self.nodes
            .iter()
            .position(|n| n == name)
            .map(NodeId::from_index)
    }

    /// The name of node `id`.
    pub fn node_name(&self, id: NodeId) -> &str {
        &self.nodes[id.index()]
    }

    /// True if `id` is a UE.
    pub fn is_ue(&self, id: NodeId) -> bool {
        self.sim
            .node_ue
            .get(id.index())
            .is_some_and(|u| u.is_some())
    }

    /// The instant of the last dispatched event.
    pub fn now(&self) -> SimTime {
        self.sim.q.now()
    }

    /// A real IP packet (`data`, headers included) enters the network at node `from` at
    /// `at` (or at the last dispatched event's instant if that is later, since the past
    /// cannot change), addressed to node `to`. Returns false, and injects nothing, at or
    /// after the end of the run.
    pub fn inject(&mut self, at: SimTime, from: NodeId, to: NodeId, data: &[u8]) -> bool {
        let sim = &mut self.sim;
        let at = at.max(sim.q.now());
        if at >= sim.end {
            sim.ext.counts.after_end += 1;
            return false;
        }
        let slot = sim.ext.store(data);
        sim.ext.counts.injected += 1;
        let pkt = Packet {
            flow: FlowId::from_index(NO_FLOW as usize),
            src: from,
            dst: to,
            size_bytes: data.len() as u32,
            sent_at: at,
            enqueued_at: at,
            transport: Transport::External { slot },
            tunnel: None,
        };
        let id = sim.alloc(pkt);
        sim.forward(at, id, from);
        true
    }

    /// Hands every real packet that reached its destination since the last call to `f`
    /// (arrival instant, node, bytes), in order of arrival, and forgets them.
    pub fn drain_egress(&mut self, mut f: impl FnMut(SimTime, NodeId, &[u8])) {
        let ext = &mut self.sim.ext;
        for i in 0..ext.egress.len() {
            let (t, node, slot) = ext.egress[i];
            f(t, node, &ext.bytes[slot as usize]);
            ext.free.push(slot);
        }
        ext.egress.clear();
    }

    /// Counts of the real packets so far.
    pub fn external_counts(&self) -> ExternalCounts {
        self.sim.ext.counts
    }

    /// Ends the run at `t` instead of the scenario's end (an emulation stopped early), so
    /// that the summary's rates are over the time that ran. Never before the last
    /// dispatched event, never after the scenario's end.
    pub fn end_at(&mut self, t: SimTime) {
        let t = t.max(self.sim.q.now());
        if t < self.sim.end {
            self.sim.end = t;
        }
    }
}
