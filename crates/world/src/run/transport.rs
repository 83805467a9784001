//! Transport endpoints and applications of the flows: sending segments and datagrams,
//! delivering them to the endpoints, TCP timers, the applications' writes.

use super::{Ev, Sim};
use crate::build::{FlowKind, Reader};
use mmtsim_engine::ids::FlowId;
use mmtsim_engine::queue::{Reservation, CLASS_NORMAL};
use mmtsim_engine::SimTime;
use mmtsim_net::packet::{Packet, Transport, UdpHeader};
use mmtsim_transport::tcp::sender::SenderState;

impl Sim {
    /// Sends the TCP headers in `self.hdrs` of flow `f` into the network.
    pub(super) fn emit_tcp(&mut self, now: SimTime, f: FlowId) {
        let mut hdrs = std::mem::take(&mut self.hdrs);
        let (src, dst) = (self.flows[f.index()].src, self.flows[f.index()].dst);
        for h in hdrs.iter() {
            let (a, b) = if h.from_receiver {
                (dst, src)
            } else {
                (src, dst)
            };
            let size_bytes = h.header_bytes() + h.payload_bytes;
            // Written into a free record field by field, the header copied straight into
            // the record's own (a free record usually held a segment): a record built
            // elsewhere and moved in is read back in wide loads from the narrow stores
            // that built it, which the CPU cannot forward (a tenth of a wired run).
            let id = match self.free.pop() {
                Some(i) => {
                    let p = &mut self.pkts[i as usize];
                    p.flow = f;
                    p.src = a;
                    p.dst = b;
                    p.size_bytes = size_bytes;
                    p.sent_at = now;
                    p.enqueued_at = now;
                    p.tunnel = None;
                    match &mut p.transport {
                        Transport::Tcp(slot) => *slot = *h,
                        other => *other = Transport::Tcp(*h),
                    }
                    i
                }
                None => self.alloc(Packet {
                    flow: f,
                    src: a,
                    dst: b,
                    size_bytes,
                    sent_at: now,
                    enqueued_at: now,
                    transport: Transport::Tcp(*h),
                    tunnel: None,
                }),
            };
            self.forward(now, id, a);
        }
        hdrs.clear();
        self.hdrs = hdrs;
    }

    /// Packet `pkt` reached its destination: its endpoint takes it, and its record is
    /// freed. TCP headers are read in place (a record is a few hundred bytes; copying it
    /// out per delivery cost more than the lookup).
    pub(super) fn deliver(&mut self, now: SimTime, pkt: u32) {
        let p = &self.pkts[pkt as usize];
        let f = p.flow;
        let Transport::Tcp(h) = &p.transport else {
            let p = self.pkts[pkt as usize];
            self.free.push(pkt);
            return self.deliver_other(now, &p);
        };
        let fl = &mut self.flows[f.index()];
        let FlowKind::Tcp {
            sender, receiver, ..
        } = &mut fl.kind
        else {
            unreachable!("TCP packet of a UDP flow")
        };
        if h.from_receiver {
            if let (Some(u), Some(ran)) = (fl.src_ue, &self.ran) {
                sender.read_link_view(ran.view(u), now);
            }
            sender.on_segment(now, h, &mut self.hdrs);
            self.free.push(pkt);
            self.emit_tcp(now, f);
            self.arm(now, f, false);
            self.service_app(now, f);
        } else {
            if let (Some(u), Some(ran)) = (fl.dst_ue, &self.ran) {
                if receiver.controls_window() {
                    receiver.read_link_view(ran.view(u), now);
                }
            }
            let new = receiver.on_segment(now, h, &mut self.hdrs);
            let syn = h.flags.syn;
            self.free.push(pkt);
            let reads_at_once = matches!(fl.reader, Reader::AtOnce);
            if reads_at_once && new > 0 {
                fl.record_delivery(now, new, self.bin_ns, self.end);
            }
            // A relay opens its second leg when the first leg's SYN reaches it.
            let open = syn
                .then(|| fl.relay.as_ref().filter(|r| r.leg == 1).map(|r| r.peer))
                .flatten();
            self.emit_tcp(now, f);
            self.arm(now, f, true);
            if let Some(two) = open {
                self.open_relay_leg(now, two);
            }
            if !reads_at_once {
                self.read_app(now, f);
            }
        }
    }

    /// Delivery of a packet that is not TCP (its record already freed).
    fn deliver_other(&mut self, now: SimTime, p: &Packet) {
        let f = p.flow;
        match p.transport {
            Transport::Tcp(_) => unreachable!("TCP is delivered in place"),
            Transport::Cptp(_) => self.cptp_deliver(now, p),
            Transport::External { slot } => self.deliver_external(now, p.dst, slot),
            Transport::Udp(h) => {
                let fl = &mut self.flows[f.index()];
                let new = match &mut fl.kind {
                    FlowKind::Udp { sink, owd, .. } => {
                        let new = sink.on_datagram(&h);
                        if new > 0 {
                            owd.record(now, now - p.sent_at);
                        }
                        new
                    }
                    FlowKind::Tcp { .. } | FlowKind::Cptp(_) => {
                        unreachable!("UDP packet of a TCP or mmCPTP flow")
                    }
                };
                if new > 0 {
                    fl.record_delivery(now, new, self.bin_ns, self.end);
                }
            }
        }
    }

    // ----- TCP timers and applications -----

    pub(super) fn arm(&mut self, now: SimTime, f: FlowId, receiver: bool) {
        let Some((deadline, pending)) = self.flows[f.index()].kind.tcp_timer(receiver) else {
            return;
        };
        if deadline != SimTime::NEVER && deadline < *pending {
            *pending = deadline;
            self.q
                .schedule(deadline.max(now), Ev::TcpTimer { flow: f, receiver });
        }
    }

    pub(super) fn tcp_timer(&mut self, now: SimTime, f: FlowId, receiver: bool) {
        let fired = self.flows[f.index()]
            .kind
            .fire_tcp_timer(now, receiver, &mut self.hdrs);
        if !fired {
            return;
        }
        self.emit_tcp(now, f);
        self.arm(now, f, receiver);
        if !receiver {
            self.service_app(now, f);
        }
    }

    pub(super) fn service_app(&mut self, now: SimTime, f: FlowId) {
        if let Some(wake) = self.write_app(now, f) {
            self.q.schedule_reserved(wake, Ev::AppWake(f));
        }
    }

    /// The application's next write is due: it writes, and while nothing else is due
    /// before its following write, that one is handled here too, without the heap
    /// ([`Sim::advance_inline`], as a wire's next arrival in `wire_head`): an application
    /// writing at a rate its TCP keeps up with writes every few microseconds, a heap entry
    /// each. The wake's place in the order of events is reserved before the write's
    /// packets and timers are scheduled, as if it had been scheduled then, so a wake that
    /// does go through the heap keeps its place among same-instant events.
    pub(super) fn app_wake(&mut self, now: SimTime, f: FlowId) {
        let mut now = now;
        loop {
            if let FlowKind::Tcp {
                app_wake_pending, ..
            } = &mut self.flows[f.index()].kind
            {
                if *app_wake_pending == now {
                    *app_wake_pending = SimTime::NEVER;
                }
            }
            let Some(wake) = self.write_app(now, f) else {
                return;
            };
            let t = wake.time();
            if self.advance_inline(t) {
                now = t;
                continue;
            }
            return self.q.schedule_reserved(wake, Ev::AppWake(f));
        }
    }

    /// The application writes what it has by `now` and TCP sends what it can; returns the
    /// reserved place of the application's next wake-up, if one is due that is not already
    /// scheduled (the caller schedules it, or runs it inline).
    fn write_app(&mut self, now: SimTime, f: FlowId) -> Option<Reservation> {
        // A relay's second leg: its ACKs free room for the relay to read from the first.
        if let Some(r) = self.flows[f.index()].relay.as_ref().filter(|r| r.leg == 2) {
            let one = r.peer;
            self.read_app(now, one);
            return None;
        }
        if self.flows[f.index()].stopped {
            return None;
        }
        let FlowKind::Tcp {
            sender,
            app: Some(app),
            app_wake_pending,
            ..
        } = &mut self.flows[f.index()].kind
        else {
            return None;
        };
        // Polled on an ACK or a timer before its pending wake-up, an application writes
        // nothing (`TcpApp::idle_before`), and TCP has already sent and armed what it
        // could: nothing to do.
        if sender.state() != SenderState::Established
            || !sender.app_limited()
            || app.idle_before(*app_wake_pending, now)
        {
            return None;
        }
        let cap = sender.snd_una().saturating_sub(1) + sender.config().snd_buf;
        let w = app.poll(now, cap);
        if w > sender.app_written() {
            sender.set_app_end(now, w, &mut self.hdrs);
        }
        let mut wake = None;
        if sender.app_limited() {
            if let Some(t) = app.next_write(now) {
                if t < *app_wake_pending {
                    *app_wake_pending = t;
                    wake = Some(self.q.reserve(t, CLASS_NORMAL));
                }
            }
        }
        self.emit_tcp(now, f);
        self.arm(now, f, false);
        wake
    }

    pub(super) fn flow_start(&mut self, now: SimTime, f: FlowId) {
        match &mut self.flows[f.index()].kind {
            FlowKind::Tcp {
                sender,
                app: Some(app),
                ..
            } => {
                let w = app.poll(now, u64::MAX);
                sender.set_app_end(now, w, &mut self.hdrs);
                sender.connect(now, &mut self.hdrs);
                self.emit_tcp(now, f);
                self.arm(now, f, false);
            }
            FlowKind::Tcp { app: None, .. } => {}
            FlowKind::Udp { .. } => self.udp_send(now, f),
            FlowKind::Cptp(_) => self.cptp_start(now, f),
        }
    }

    pub(super) fn udp_send(&mut self, now: SimTime, f: FlowId) {
        let fl = &mut self.flows[f.index()];
        if now >= fl.stop {
            return;
        }
        let FlowKind::Udp { src, .. } = &mut fl.kind else {
            return;
        };
        let h: UdpHeader = src.next_datagram();
        let (wire, interval) = (src.wire_bytes(), src.interval());
        let pkt = Packet {
            flow: f,
            src: fl.src,
            dst: fl.dst,
            size_bytes: wire,
            sent_at: now,
            enqueued_at: now,
            transport: Transport::Udp(h),
            tunnel: None,
        };
        let next = now + interval;
        if next < fl.stop && next <= self.end {
            self.q.schedule(next, Ev::UdpSend(f));
        }
        let a = fl.src;
        let id = self.alloc(pkt);
        self.forward(now, id, a);
    }
}
