//! mmCPTP downloads in the run [MMCPTP §VI–VII]: the messages between UE, BS plug-in, proxy and
//! server as packets on the network, the plug-in's place in the RAN (it takes the data
//! packets the proxy sends towards a UE at the UE's serving site, and pushes them into
//! the UE's RLC every slot as RLC's buffer status allows) or at the node before a wired
//! last hop (pushing into that link's queue every `push_interval`), the proxy's cache fed
//! by the server's TCP connection (read as a relay reads its first leg, `reader.rs`),
//! and the handover NACK when a UE leaves a site.
//!
//! The protocol's state machines are `mmtsim_transport::cptp`; this file moves their
//! messages and drives their timers (one pending event per role, kept lazily as TCP's).

use super::{Ev, Sim};
use crate::build::{Access, FlowKind};
use mmtsim_engine::ids::{FlowId, NodeId, UeId};
use mmtsim_engine::SimTime;
use mmtsim_net::cptp::{CptpHeader, Msg};
use mmtsim_net::packet::{Packet, Transport};
use mmtsim_net::Direction;
use mmtsim_transport::cptp::bs::{NackSender, PullBuffer};
use mmtsim_transport::cptp::proxy::{ts_of, Out};

/// The roles whose timers the world keeps: proxy, BS plug-in, UE, and the wired last
/// hop's push tick.
pub(super) const ROLE_PROXY: u8 = 0;
pub(super) const ROLE_BS: u8 = 1;
pub(super) const ROLE_UE: u8 = 2;
pub(super) const ROLE_TICK: u8 = 3;
/// The proxy's egress queue drained enough for it to send again.
pub(super) const ROLE_PROXY_TX: u8 = 4;
/// A source site's NACK is due to be sent again.
pub(super) const ROLE_NACK: u8 = 5;

/// The largest PDCP data PDU header of a data radio bearer (18-bit SN) [TS38323 §6.2.2].
const PDCP_HEADER_MAX_BYTES: u32 = 3;

/// Sessions are 16-bit and wrap: `a` is newer than `b` within half the space.
fn newer(a: u16, b: u16) -> bool {
    (a.wrapping_sub(b) as i16) > 0
}

/// Emptied message lists kept for reuse (`Sim::cptp_hdrs`, `cptp_outs`): a few cover
/// every nesting of the handlers, and a list given back beyond them is dropped.
pub(super) const LISTS_KEPT: usize = 8;

impl Sim {
    fn cptp(&mut self, f: FlowId) -> &mut crate::build::CptpState {
        match &mut self.flows[f.index()].kind {
            FlowKind::Cptp(c) => c,
            _ => unreachable!("an mmCPTP flow's second leg"),
        }
    }

    /// Sends one mmCPTP message of flow `f` from `from` to `to`.
    fn cptp_send(&mut self, now: SimTime, f: FlowId, from: NodeId, to: NodeId, h: CptpHeader) {
        let pkt = Packet {
            flow: f,
            src: from,
            dst: to,
            size_bytes: h.wire_bytes(),
            sent_at: now,
            enqueued_at: now,
            transport: Transport::Cptp(h),
            tunnel: None,
        };
        let id = self.alloc(pkt);
        self.forward(now, id, from);
    }

    /// The node whose plug-in serves the UE of flow `f` now.
    fn cptp_site(&self, f: FlowId) -> NodeId {
        let FlowKind::Cptp(c) = &self.flows[f.index()].kind else {
            unreachable!("an mmCPTP flow's second leg")
        };
        match c.access {
            Access::Ran(ue) => self.topology.site_of(ue),
            Access::Wired { node, .. } => node,
        }
    }

    /// The proxy's first link towards the UE (as `forward` routes: through the UPF with a
    /// core), if it is wired.
    fn cptp_proxy_egress(&self, f: FlowId) -> Option<mmtsim_engine::ids::LinkId> {
        let FlowKind::Cptp(c) = &self.flows[f.index()].kind else {
            return None;
        };
        let target = match (&self.core, c.access) {
            (Some(core), Access::Ran(ue)) if c.proxy_node == core.upf() => core.tunnel_end(ue),
            (Some(core), Access::Ran(_)) => core.upf(),
            _ => c.ue_node,
        };
        match self.fwd.next(c.proxy_node, target) {
            crate::topology::Hop::Link(l) => Some(l),
            _ => None,
        }
    }

    /// Sets the proxy's budget from the room in its egress queue (packets of its size).
    fn cptp_budget(&mut self, now: SimTime, f: FlowId) {
        let egress = self.cptp_proxy_egress(f);
        let wire = self.cptp(f).packet_bytes
            + mmtsim_net::cptp::BASE_BYTES
            + mmtsim_net::cptp::DATA_FIELDS_BYTES;
        let budget = match egress {
            Some(l) => self.links[l.index()].dir.queue_room_bytes(now, wire) / wire as u64,
            None => u64::MAX,
        };
        self.cptp(f).proxy.set_budget(budget);
    }

    /// Sends what the proxy produced; if its egress queue held it back, wakes it when the
    /// queue has drained by half.
    fn cptp_proxy_out(&mut self, now: SimTime, f: FlowId, mut outs: Vec<Out>) {
        let c = self.cptp(f);
        let (proxy, ue, server) = (c.proxy_node, c.ue_node, c.server);
        for o in outs.drain(..) {
            match o {
                Out::ToUe(h) => self.cptp_send(now, f, proxy, ue, h),
                Out::ToServer(h) => self.cptp_send(now, f, proxy, server, h),
                Out::ToProxy(_) | Out::ToBs(_) => unreachable!("the proxy sends to UE and server"),
            }
        }
        self.cptp_outs.give(outs);
        if self.cptp(f).proxy.blocked_by_budget() {
            if let Some(l) = self.cptp_proxy_egress(f) {
                let dir = &mut self.links[l.index()].dir;
                let wait = dir.rate_hint().tx_time(dir.queue_bytes(now) / 2);
                let t = now + wait.max(SimTime::from_us(1));
                let c = self.cptp(f);
                if c.timer_pending[ROLE_PROXY_TX as usize] == SimTime::NEVER {
                    c.timer_pending[ROLE_PROXY_TX as usize] = t;
                    self.q.schedule(
                        t,
                        Ev::Cptp {
                            flow: f,
                            role: ROLE_PROXY_TX,
                        },
                    );
                }
            }
        }
    }

    /// Sends what the UE produced: requests to the proxy, ACKs to its serving site.
    fn cptp_ue_out(&mut self, now: SimTime, f: FlowId, mut out: Vec<CptpHeader>) {
        let c = self.cptp(f);
        let (ue_node, proxy) = (c.ue_node, c.proxy_node);
        let site = self.cptp_site(f);
        for h in out.drain(..) {
            let to = if matches!(h.msg, Msg::Request) {
                proxy
            } else {
                site
            };
            self.cptp_send(now, f, ue_node, to, h);
        }
        self.cptp_hdrs.give(out);
    }

    /// The UE's application asks for the content (the download's start).
    pub(super) fn cptp_start(&mut self, now: SimTime, f: FlowId) {
        let mut out = self.cptp_hdrs.take();
        self.cptp(f).ue.start(now, &mut out);
        self.cptp_ue_out(now, f, out);
        self.cptp_arm(now, f);
    }

    /// The server's connection reached the proxy: the HTTP request was answered.
    pub(super) fn cptp_server_open(&mut self, now: SimTime, f: FlowId) {
        self.cptp(f).proxy.on_server_open();
        self.cptp_arm(now, f);
    }

    /// `bytes` more were read from the server into the proxy's cache.
    pub(super) fn cptp_cached(&mut self, now: SimTime, f: FlowId, bytes: u64) {
        self.cptp_budget(now, f);
        let mut outs = self.cptp_outs.take();
        self.cptp(f).proxy.on_server_bytes(now, bytes, &mut outs);
        self.cptp_proxy_out(now, f, outs);
        self.cptp_arm(now, f);
    }

    /// Bytes the proxy's cache can take.
    pub(super) fn cptp_cache_room(&self, f: FlowId) -> u64 {
        match &self.flows[f.index()].kind {
            FlowKind::Cptp(c) => c.proxy.cache_room(),
            _ => unreachable!("an mmCPTP flow's second leg"),
        }
    }

    /// A data packet from the proxy reached the plug-in at `node`; it takes it.
    pub(super) fn cptp_at_bs(&mut self, now: SimTime, pkt: u32, node: NodeId) {
        let p = self.pkts[pkt as usize];
        self.free.push(pkt);
        let Transport::Cptp(h) = p.transport else {
            unreachable!("checked by the caller")
        };
        let f = p.flow;
        let mut ctrl = self.cptp_hdrs.take();
        let c = self.cptp(f);
        let renew = match &c.bs {
            None => true,
            Some((at, b)) => {
                newer(h.session, b.session()) || (*at != node && h.session == b.session())
            }
        };
        if renew {
            // A new session (the download's start, or the proxy's re-route after a
            // handover): the plug-in allocates a pull buffer on its first packet.
            let Msg::Data { n, .. } = h.msg else { return };
            if let Some((_, old)) = c.bs.take() {
                add_stats(&mut c.bs_done, &old.stats);
            }
            c.bs = Some((node, PullBuffer::new(now, c.bs_cfg, h.session, n)));
        }
        let Some((at, b)) = &mut c.bs else { return };
        if *at != node || h.session != b.session() {
            // An older session's packet, or one reaching a node that no longer serves.
            return;
        }
        b.on_data(now, &h, &mut ctrl);
        b.maybe_pull(now, &mut ctrl);
        let proxy = c.proxy_node;
        for h in ctrl.drain(..) {
            self.cptp_send(now, f, node, proxy, h);
        }
        self.cptp_hdrs.give(ctrl);
        self.cptp_push(now, f);
    }

    /// The plug-in pushes what the lower layer has room for, then pulls if due.
    pub(super) fn cptp_push(&mut self, now: SimTime, f: FlowId) {
        let (access, target, c_packet_wire) = {
            let c = self.cptp(f);
            if c.bs.is_none() {
                return;
            }
            (
                c.access,
                c.push_target_bytes,
                c.packet_bytes + mmtsim_net::cptp::BASE_BYTES + mmtsim_net::cptp::DATA_FIELDS_BYTES,
            )
        };
        // The lower layer's buffer status: what waits there, and what its limit still
        // admits (pushing past a small RLC buffer would only lose packets to it).
        let (lower, limit_room) = match access {
            Access::Ran(ue) => self.ran.as_ref().map_or((0, u64::MAX), |r| {
                (
                    r.rlc_tx_bytes(ue, Direction::Downlink),
                    r.rlc_room_bytes(ue, Direction::Downlink),
                )
            }),
            Access::Wired { link, .. } => {
                let dir = &mut self.links[link.index()].dir;
                (
                    dir.queue_bytes(now),
                    dir.queue_room_bytes(now, c_packet_wire),
                )
            }
        };
        let room = target.saturating_sub(lower).min(limit_room);
        let mut pushes = std::mem::take(&mut self.cptp_pushes);
        let mut ctrl = self.cptp_hdrs.take();
        let c = self.cptp(f);
        let (node, b) = c.bs.as_mut().expect("checked");
        let node = *node;
        if room > 0 {
            // The room is in wire bytes: a packet costs its payload and its headers, and
            // in RLC its PDCP header too (at most 3 bytes, an 18-bit SN, [TS38323 §6.2.2]).
            let overhead = mmtsim_net::cptp::BASE_BYTES
                + mmtsim_net::cptp::DATA_FIELDS_BYTES
                + PDCP_HEADER_MAX_BYTES;
            b.push(now, room, overhead, &mut pushes);
        }
        b.maybe_pull(now, &mut ctrl);
        let (proxy, ue_node, session) = (c.proxy_node, c.ue_node, b.session());
        for h in ctrl.drain(..) {
            self.cptp_send(now, f, node, proxy, h);
        }
        self.cptp_hdrs.give(ctrl);
        for p in pushes.drain(..) {
            let h = CptpHeader {
                session,
                ts_us: ts_of(now),
                msg: Msg::Data {
                    n: p.n,
                    len: p.len,
                    retx: p.retx,
                },
            };
            let pkt = Packet {
                flow: f,
                src: node,
                dst: ue_node,
                size_bytes: h.wire_bytes(),
                sent_at: now,
                enqueued_at: now,
                transport: Transport::Cptp(h),
                tunnel: None,
            };
            let id = self.alloc(pkt);
            match access {
                Access::Ran(ue) => self.radio_enqueue(now, id, ue, Direction::Downlink),
                Access::Wired { link, .. } => self.send_on_link(now, id, link),
            }
        }
        self.cptp_pushes = pushes;
        self.cptp_arm(now, f);
    }

    /// After a slot of a cell: every mmCPTP plug-in serving a UE of that cell pushes.
    pub(super) fn cptp_slot(&mut self, now: SimTime, site: NodeId) {
        for i in 0..self.cptp_flows.len() {
            let f = self.cptp_flows[i];
            let here = matches!(&self.flows[f.index()].kind,
                FlowKind::Cptp(c) if c.bs.as_ref().is_some_and(|(n, _)| *n == site)
                    && matches!(c.access, Access::Ran(_)));
            if here {
                self.cptp_push(now, f);
            }
        }
    }

    /// UE `ue` left its site: each of its downloads' plug-in there sends the proxy a
    /// NACK with the first packet the UE lacks and releases its pull buffer.
    pub(super) fn cptp_left_site(&mut self, now: SimTime, ue: UeId) {
        for i in 0..self.cptp_flows.len() {
            let f = self.cptp_flows[i];
            let new_site = self.topology.site_of(ue);
            let c = self.cptp(f);
            if !matches!(c.access, Access::Ran(u) if u == ue) {
                continue;
            }
            let Some((node, b)) = c.bs.take_if(|(n, _)| *n != new_site) else {
                continue;
            };
            add_stats(&mut c.bs_done, &b.stats);
            c.nacks_sent += 1;
            let proxy = c.proxy_node;
            let nack = b.nack();
            c.nack_pending.push((node, NackSender::new(now, nack)));
            self.cptp_send(now, f, node, proxy, nack);
            self.cptp_arm(now, f);
        }
    }

    /// An mmCPTP message reached its destination.
    pub(super) fn cptp_deliver(&mut self, now: SimTime, p: &Packet) {
        let Transport::Cptp(h) = p.transport else {
            unreachable!("an mmCPTP packet")
        };
        let f = p.flow;
        match h.msg {
            Msg::Request => {
                self.cptp_budget(now, f);
                let mut outs = self.cptp_outs.take();
                self.cptp(f).proxy.on_request(now, &mut outs);
                self.cptp_proxy_out(now, f, outs);
            }
            Msg::HttpRequest => {
                let c = self.cptp(f);
                if !c.server_started {
                    c.server_started = true;
                    let leg = c.server_leg;
                    self.flow_start(now, leg);
                }
            }
            Msg::NackAck { .. } => {
                let c = self.cptp(f);
                c.nack_pending
                    .retain(|(at, s)| !(*at == p.dst && s.acked_by(&h)));
            }
            Msg::Pull { .. } | Msg::Sack { .. } | Msg::Nack { .. } => {
                self.cptp_budget(now, f);
                let mut outs = self.cptp_outs.take();
                let c = self.cptp(f);
                match h.msg {
                    Msg::Pull { .. } => c.proxy.on_pull(now, &h, &mut outs),
                    Msg::Sack { .. } => c.proxy.on_sack(now, &h, &mut outs),
                    _ => c.proxy.on_nack(now, &h, &mut outs),
                }
                // The NACK-ACK goes back to the site that sent the NACK.
                let proxy = c.proxy_node;
                let acks: Vec<CptpHeader> = outs
                    .iter()
                    .filter_map(|o| match o {
                        Out::ToBs(a) => Some(*a),
                        _ => None,
                    })
                    .collect();
                outs.retain(|o| !matches!(o, Out::ToBs(_)));
                for a in acks {
                    self.cptp_send(now, f, proxy, p.src, a);
                }
                self.cptp_proxy_out(now, f, outs);
                // A pull that confirmed delivery freed cache room: read more.
                let leg = self.cptp(f).server_leg;
                self.read_app(now, leg);
            }
            Msg::Data { .. } | Msg::Fail => {
                let mut out = self.cptp_hdrs.take();
                let c = self.cptp(f);
                let bytes = match h.msg {
                    Msg::Data { .. } => c.ue.on_data(now, &h, &mut out),
                    _ => {
                        c.ue.on_fail(now, &mut out);
                        0
                    }
                };
                if bytes > 0 {
                    let (bin, end) = (self.bin_ns, self.end);
                    self.flows[f.index()].record_delivery(now, bytes, bin, end);
                }
                self.cptp_ue_out(now, f, out);
            }
            Msg::Ack { .. } => {
                let c = self.cptp(f);
                match &mut c.bs {
                    Some((node, b)) if *node == p.dst => b.on_ack(now, &h),
                    // The UE's ACK reached a site it has left: nothing holds its data.
                    _ => return,
                }
                self.cptp_push(now, f);
            }
        }
        self.cptp_arm(now, f);
    }

    /// Keeps one pending timer event per role of flow `f` at or before its deadline, and
    /// the wired last hop's push tick while packets wait.
    pub(super) fn cptp_arm(&mut self, now: SimTime, f: FlowId) {
        let end = self.end;
        let c = self.cptp(f);
        let deadlines = [
            c.proxy.next_deadline(),
            c.bs.as_ref()
                .map_or(SimTime::NEVER, |(_, b)| b.next_deadline()),
            c.ue.next_deadline(),
            SimTime::NEVER,
            SimTime::NEVER,
            c.nack_pending
                .iter()
                .map(|(_, s)| s.next_deadline())
                .min()
                .unwrap_or(SimTime::NEVER),
        ];
        // At most one event per role (no allocation: this runs for every packet).
        let mut schedule = [(SimTime::NEVER, 0u8); 6];
        let mut k = 0;
        for (role, d) in deadlines.into_iter().enumerate() {
            if d != SimTime::NEVER && d < c.timer_pending[role] && d <= end {
                c.timer_pending[role] = d;
                schedule[k] = (d.max(now), role as u8);
                k += 1;
            }
        }
        if let (Access::Wired { interval, .. }, Some((_, b))) = (c.access, &c.bs) {
            if b.has_pending() && c.timer_pending[ROLE_TICK as usize] == SimTime::NEVER {
                c.timer_pending[ROLE_TICK as usize] = now + interval;
                schedule[k] = (now + interval, ROLE_TICK);
                k += 1;
            }
        }
        for &(t, role) in &schedule[..k] {
            self.q.schedule(t, Ev::Cptp { flow: f, role });
        }
    }

    /// A timer event of one role of flow `f`.
    pub(super) fn cptp_timer(&mut self, now: SimTime, f: FlowId, role: u8) {
        let c = self.cptp(f);
        if role == ROLE_TICK {
            c.timer_pending[ROLE_TICK as usize] = SimTime::NEVER;
            return self.cptp_push(now, f);
        }
        if role == ROLE_NACK {
            c.timer_pending[ROLE_NACK as usize] = SimTime::NEVER;
            let proxy = c.proxy_node;
            let again: Vec<_> = c
                .nack_pending
                .iter_mut()
                .filter_map(|(at, s)| s.on_timer(now).map(|h| (*at, h)))
                .collect();
            for (at, h) in again {
                self.cptp_send(now, f, at, proxy, h);
            }
            return self.cptp_arm(now, f);
        }
        if role == ROLE_PROXY_TX {
            c.timer_pending[ROLE_PROXY_TX as usize] = SimTime::NEVER;
            self.cptp_budget(now, f);
            let mut outs = self.cptp_outs.take();
            self.cptp(f).proxy.resume(now, &mut outs);
            self.cptp_proxy_out(now, f, outs);
            return self.cptp_arm(now, f);
        }
        let r = role as usize;
        if c.timer_pending[r] == now {
            c.timer_pending[r] = SimTime::NEVER;
        }
        match role {
            ROLE_PROXY => {
                if c.proxy.next_deadline() <= now {
                    let mut outs = Vec::new();
                    // A timer's retransmission is one packet: it goes whatever the queue.
                    c.proxy.set_budget(u64::MAX);
                    c.proxy.on_timer(now, &mut outs);
                    self.cptp_proxy_out(now, f, outs);
                }
            }
            ROLE_BS => {
                let Some((node, b)) = &mut c.bs else {
                    return;
                };
                if b.next_deadline() <= now {
                    let mut ctrl = Vec::new();
                    b.on_timer(now, &mut ctrl);
                    let (node, proxy) = (*node, c.proxy_node);
                    for h in ctrl.drain(..) {
                        self.cptp_send(now, f, node, proxy, h);
                    }
                    self.cptp_hdrs.give(ctrl);
                    // A retransmission the timer queued goes out now.
                    return self.cptp_push(now, f);
                }
            }
            ROLE_UE => {
                if c.ue.next_deadline() <= now {
                    let mut out = Vec::new();
                    c.ue.on_timer(now, &mut out);
                    self.cptp_ue_out(now, f, out);
                }
            }
            _ => unreachable!("the roles are proxy, BS, UE and tick"),
        }
        self.cptp_arm(now, f);
    }

    /// Samples the pull buffer's and the cache's occupancy.
    pub(super) fn cptp_sample(&mut self) {
        for i in 0..self.cptp_flows.len() {
            let f = self.cptp_flows[i];
            let c = self.cptp(f);
            let pull = c.bs.as_ref().map_or(0, |(_, b)| b.stored_bytes());
            let cache = c.proxy.cache_occupancy();
            c.pull_occupancy.record(pull);
            c.cache_occupancy.record(cache);
        }
    }
}

fn add_stats(a: &mut mmtsim_transport::cptp::bs::BsStats, b: &mmtsim_transport::cptp::bs::BsStats) {
    a.pulls += b.pulls;
    a.sacks += b.sacks;
    a.pushed += b.pushed;
    a.retransmits += b.retransmits;
    a.duplicates += b.duplicates;
    a.acks += b.acks;
}
