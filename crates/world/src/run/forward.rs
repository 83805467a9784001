//! Moving packets: the forwarding decision at a node (its table, the core network's
//! tunnels), wired links and their wires, the radio hand-offs, capture points.

use super::{Ev, Sim};
use crate::topology::Hop;
use mmtsim_engine::ids::{CellId, LinkId, NodeId, UeId};
use mmtsim_engine::queue::CLASS_EARLY;
use mmtsim_engine::SimTime;
use mmtsim_net::link::{Delivery, PacketRef};
use mmtsim_net::packet::{Packet, HOT_BYTES};
use mmtsim_net::Direction;

impl Sim {
    // ----- radio -----

    pub(super) fn slot(&mut self, now: SimTime, c: CellId) {
        let Some(ran) = self.ran.as_mut() else {
            return;
        };
        let mut out = std::mem::take(&mut self.rout);
        let next = ran.slot(now, c, &mut out);
        let site = ran.cell_node(c);
        if let Some(t) = next {
            self.q.schedule_in_class(t, CLASS_EARLY, Ev::Slot(c));
        }
        if self.lazy.is_some() {
            self.after_late_slot(now, c);
        }
        for i in 0..out.dropped.len() {
            self.drop_packet(out.dropped[i] as u32);
        }
        out.dropped.clear();
        // The SDUs' records waited in RLC buffers and are usually out of cache: each is
        // asked for `PREFETCH_AHEAD` SDUs before it is handled.
        for &(next, _) in out.delivered.iter().take(PREFETCH_AHEAD) {
            prefetch(&self.pkts[next as usize]);
        }
        for i in 0..out.delivered.len() {
            let (id, node) = out.delivered[i];
            if let Some(&(next, _)) = out.delivered.get(i + PREFETCH_AHEAD) {
                prefetch(&self.pkts[next as usize]);
            }
            let pkt = id as u32;
            // Uplink leaves the radio at a site; with a core it enters the tunnel to the UPF.
            if let Some(core) = &self.core {
                if self.node_ue[node.index()].is_none() && self.pkts[pkt as usize].dst != node {
                    self.pkts[pkt as usize].tunnel = Some(core.upf());
                }
            }
            self.forward(now, pkt, node);
        }
        out.delivered.clear();
        self.rout = out;
        if !self.cptp_flows.is_empty() {
            // mmCPTP's plug-in reads RLC's buffer status every MAC scheduling interval.
            self.cptp_slot(now, site);
        }
    }

    /// True if `pkt` is an mmCPTP data packet from its proxy that the plug-in at `node`
    /// (`None`: the UE's serving site, on the way into the radio) takes.
    fn cptp_takes(&self, pkt: u32, node: Option<NodeId>) -> bool {
        let p = &self.pkts[pkt as usize];
        if !matches!(
            p.transport,
            mmtsim_net::packet::Transport::Cptp(mmtsim_net::cptp::CptpHeader {
                msg: mmtsim_net::cptp::Msg::Data { .. },
                ..
            })
        ) {
            return false;
        }
        match &self.flows[p.flow.index()].kind {
            crate::build::FlowKind::Cptp(c) if c.proxy_node == p.src => match (c.access, node) {
                (crate::build::Access::Ran(_), None) => true,
                (crate::build::Access::Wired { node: at, .. }, Some(n)) => at == n,
                _ => false,
            },
            _ => false,
        }
    }

    /// Packet `pkt` takes the radio hop of `ue` in direction `dir` (an mmCPTP data packet
    /// from its proxy goes to the plug-in at the serving site instead).
    fn radio(&mut self, now: SimTime, pkt: u32, ue: UeId, dir: Direction) {
        if dir == Direction::Downlink && !self.cptp_flows.is_empty() && self.cptp_takes(pkt, None) {
            let site = self.topology.site_of(ue);
            return self.cptp_at_bs(now, pkt, site);
        }
        self.radio_enqueue(now, pkt, ue, dir);
    }

    /// Packet `pkt` enters the radio of `ue` in direction `dir`.
    pub(super) fn radio_enqueue(&mut self, now: SimTime, pkt: u32, ue: UeId, dir: Direction) {
        let size = self.pkts[pkt as usize].size_bytes;
        let ran = self
            .ran
            .as_mut()
            .expect("radio routes exist only with a RAN");
        match ran.enqueue(now, ue, dir, pkt as u64, size) {
            Err(()) => self.drop_packet(pkt),
            Ok(Some((c, t))) => self.q.schedule_in_class(t, CLASS_EARLY, Ev::Slot(c)),
            Ok(None) => {}
        }
    }

    // ----- packets -----

    pub(super) fn arrive(&mut self, now: SimTime, pkt: u32, link: LinkId) {
        let (reverse, capture, to) = {
            let ls = &self.links[link.index()];
            (ls.reverse, ls.capture, ls.to)
        };
        if reverse {
            if let Some(c) = capture {
                self.capture(c, now, pkt);
            }
        }
        self.forward(now, pkt, to);
    }

    pub(super) fn wire_head(&mut self, now: SimTime, l: LinkId) {
        let li = l.index();
        self.links[li].wire_event_pending = false;
        let mut now = now;
        loop {
            while let Some(&(t, pkt)) = self.links[li].wire.front() {
                if t > now {
                    break;
                }
                self.links[li].wire.pop_front();
                // The record of the packet after the next: the next one's was usually
                // asked for at the arrival before this, and a wire's arrivals are mostly
                // one per event with other work between them, so one ahead came too late.
                if let Some(&(_, next)) = self.links[li].wire.get(1) {
                    prefetch(&self.pkts[next as usize]);
                }
                self.arrive(now, pkt, l);
            }
            let ls = &self.links[li];
            let Some(&(t, _)) = ls.wire.front() else {
                break;
            };
            if ls.wire_event_pending {
                break;
            }
            // Nothing else is due before the next packet on this wire: deliver it now
            // rather than through the heap.
            if self.advance_inline(t) {
                now = t;
                continue;
            }
            // Or it waits for late admission (`lazy.rs`).
            if self.waits_late(l, t, now) {
                break;
            }
            self.links[li].wire_event_pending = true;
            self.q.schedule(t, Ev::WireHead(l));
            break;
        }
    }

    /// A record for `p`: a free one if any, else a new one. Inlined, so that the caller's
    /// record is built in place rather than on the stack and copied in (160 bytes a segment).
    #[inline]
    pub(super) fn alloc(&mut self, p: Packet) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.pkts[i as usize] = p;
                i
            }
            None => {
                self.pkts.push(p);
                (self.pkts.len() - 1) as u32
            }
        }
    }

    fn capture(&mut self, c: usize, now: SimTime, pkt: u32) {
        if let Err(e) = self.captures[c].write(now, &self.pkts[pkt as usize]) {
            self.io_error.get_or_insert(e.to_string());
        }
    }

    /// Packet `pkt` is at `node`: deliver it, or send it on its next hop.
    pub(super) fn forward(&mut self, now: SimTime, pkt: u32, node: NodeId) {
        // Only the destination, tunnel and size are needed on the way; the whole record (a
        // few hundred bytes with its TCP header) is copied once, at delivery.
        let (dst, tunnel) = {
            let p = &self.pkts[pkt as usize];
            (p.dst, p.tunnel)
        };
        if self.cptp_hosts.get(node.index()).copied().unwrap_or(false)
            && self.cptp_takes(pkt, Some(node))
        {
            return self.cptp_at_bs(now, pkt, node);
        }
        let target = match tunnel {
            Some(end) if end == node => return self.tunnel_exit(now, pkt, node),
            Some(end) => end,
            None if dst == node => {
                self.deliver(now, pkt);
                return;
            }
            None => match &self.core {
                None => dst,
                // Downlink to a UE goes through the UPF, which tunnels it to the UE's site.
                Some(core) => match self.node_ue[dst.index()] {
                    Some(ue) if node == core.upf() => {
                        let end = core.tunnel_end(ue);
                        self.pkts[pkt as usize].tunnel = Some(end);
                        return self.forward(now, pkt, node);
                    }
                    Some(_) => core.upf(),
                    None => dst,
                },
            },
        };
        match self.fwd.next(node, target) {
            Hop::Link(l) => self.send_on_link(now, pkt, l),
            Hop::Radio(ue, dir) => self.radio(now, pkt, ue, dir),
            Hop::Unreachable => {
                self.unroutable += 1;
                self.drop_packet(pkt);
            }
        }
    }

    #[cold]
    /// `pkt` reached the far end of its tunnel at `node`: the UPF (uplink: routed on from
    /// here) or a gNB site (downlink: to the radio if the site still serves the UE, else
    /// over Xn to the site that does, or dropped without an Xn link).
    fn tunnel_exit(&mut self, now: SimTime, pkt: u32, node: NodeId) {
        self.pkts[pkt as usize].tunnel = None;
        let dst = self.pkts[pkt as usize].dst;
        let core = self.core.as_mut().expect("tunnels exist only with a core");
        if node == core.upf() {
            return self.forward(now, pkt, node);
        }
        let ue = self.node_ue[dst.index()].expect("downlink tunnels lead to UEs");
        let serving = self.topology.site_of(ue);
        if serving == node {
            return self.radio(now, pkt, ue, Direction::Downlink);
        }
        match self.topology.direct_link(node, serving) {
            Some(xn) => {
                core.stats.xn_forwarded += 1;
                self.pkts[pkt as usize].tunnel = Some(serving);
                self.send_on_link(now, pkt, xn);
            }
            None => {
                core.stats.xn_dropped += 1;
                self.drop_packet(pkt);
            }
        }
    }

    #[inline]
    pub(super) fn send_on_link(&mut self, now: SimTime, pkt: u32, l: LinkId) {
        let li = l.index();
        let size_bytes = self.pkts[pkt as usize].size_bytes;
        let (reverse, capture) = (self.links[li].reverse, self.links[li].capture);
        if !reverse {
            if let Some(c) = capture {
                self.capture(c, now, pkt);
            }
        }
        if self.links[li].dir.is_direct() {
            // One outcome, known now: no link output to fill and read back.
            match self.links[li].dir.enqueue_direct(now, size_bytes) {
                Some(at) => {
                    let d = Delivery::plain(PacketRef(pkt), at);
                    if !self.links[li].feeds_fusion || !self.fuse_hop(now, l, d) {
                        self.put_delivery(l, d);
                    }
                }
                None => self.drop_packet(pkt),
            }
            return;
        }
        self.links[li]
            .dir
            .enqueue(now, PacketRef(pkt), size_bytes, &mut self.lout);
        self.link_output(now, l);
    }

    pub(super) fn link_output(&mut self, now: SimTime, l: LinkId) {
        // Read in place (nothing below writes `lout`): moving the whole output out and back
        // for the one delivery a packet usually makes cost more than the delivery.
        for i in 0..self.lout.dropped.len() {
            let (p, _) = self.lout.dropped[i];
            self.drop_packet(p.0);
        }
        self.lout.dropped.clear();
        if !self.links[l.index()].feeds_fusion {
            for i in 0..self.lout.delivered.len() {
                let d = self.lout.delivered[i];
                self.put_delivery(l, d);
            }
        } else {
            self.fuse_or_put(now, l);
        }
        self.lout.delivered.clear();
        if let Some(t) = self.lout.tx_done_at.take() {
            self.q.schedule(t, Ev::TxDone(l));
        }
    }

    /// Delivery `d` of link `l` goes onto the link's wire (or, held back by the
    /// reordering impairment, arrives by an event of its own).
    #[inline(always)]
    pub(super) fn put_delivery(&mut self, l: LinkId, d: Delivery) {
        let id = if d.duplicate {
            self.alloc_copy(d.pkt.0)
        } else {
            d.pkt.0
        };
        let late = self.lazy.is_some() && self.admit_late(self.q.now(), l, id, d.at);
        let ls = &mut self.links[l.index()];
        let in_order = ls.wire.back().is_none_or(|&(t, _)| t <= d.at);
        if !d.held && in_order {
            ls.wire.push_back((d.at, id));
            if !ls.wire_event_pending && !late {
                ls.wire_event_pending = true;
                let head = ls.wire.front().expect("just pushed").0;
                self.q.schedule(head, Ev::WireHead(l));
            }
        } else {
            // Held back by the reordering impairment: overtaken by later packets.
            let slot = match self.held_free.pop() {
                Some(i) => {
                    self.held[i as usize] = (id, l);
                    i
                }
                None => {
                    self.held.push((id, l));
                    (self.held.len() - 1) as u32
                }
            };
            self.q.schedule(d.at, Ev::Arrive(slot));
        }
    }
}

/// How many packets ahead a loop over a batch of packets asks for their records: enough
/// to cover a miss to memory while the packets before it are handled, few enough that the
/// lines are still in cache when their turn comes.
pub(super) const PREFETCH_AHEAD: usize = 4;

/// Asks the CPU to bring `p`'s record into cache: a packet that has crossed a wire of a
/// few milliseconds, or waited in an RLC buffer, is usually out of it, and the next
/// packet on a wire or out of a slot is handled soon. Only the record's first
/// [`HOT_BYTES`] are asked for (two cache lines): they hold every field forwarding and a
/// data segment's delivery read, and the SACK blocks after them only some ACKs use. A
/// hint only: it changes no result.
#[inline(always)]
pub(super) fn prefetch(p: &Packet) {
    let at = (p as *const Packet).cast::<u8>();
    let mut off = 0;
    while off < HOT_BYTES {
        mmtsim_engine::prefetch::prefetch_line(at.wrapping_add(off));
        off += 64;
    }
}
