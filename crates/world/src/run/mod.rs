//! The event loop: dispatch, forwarding, transport and radio hand-offs, sampling; the
//! summary at the end of a run is `summary.rs`.

mod summary;

use crate::build::{build, FlowKind, FlowState, LinkState, RADIO};
use crate::output::{Column, ColumnData, RunOutput, Table};
use mmtsim_engine::metrics::Thinning;
use mmtsim_engine::queue::{CLASS_EARLY, CLASS_LATE};
use mmtsim_engine::{EventQueue, SimTime};
use mmtsim_net::link::{LinkOutput, PacketRef};
use mmtsim_net::linkview::Direction;
use mmtsim_net::packet::{Packet, TcpHeader, Transport, UdpHeader};
use mmtsim_net::pcap::PcapWriter;
use mmtsim_ran::network::{Ran, RanOutput};
use mmtsim_scenario::model::CwndRecording;
use mmtsim_scenario::Loaded;
use mmtsim_transport::tcp::sender::SenderState;
use serde_json::json;
use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Optional controls of a run.
#[derive(Clone, Debug, Default)]
pub struct RunControl {
    /// Seed overriding the scenario's.
    pub seed: Option<u64>,
    /// Updated with the simulated time (ns) as the run progresses.
    pub progress_ns: Option<Arc<AtomicU64>>,
    /// Set to stop the run early.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Folder for pcap files of links with `capture = true` (none: no capture).
    pub capture_dir: Option<PathBuf>,
}

/// Why a run did not complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// The cancel flag was set.
    Cancelled,
    /// Writing a capture file failed.
    Io(String),
    /// The scenario could not be built for this seed (e.g. random obstacles do not fit).
    Build(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Cancelled => f.write_str("the run was cancelled"),
            RunError::Io(m) => write!(f, "writing results failed: {m}"),
            RunError::Build(m) => write!(f, "cannot build the scenario: {m}"),
        }
    }
}
impl std::error::Error for RunError {}

#[derive(Clone, Copy, Debug)]
enum Ev {
    FlowStart(u32),
    /// The flow's application stops writing.
    FlowStop(u32),
    TxDone(u32),
    /// A packet that left the wire's FIFO order (reordering impairment) arrives.
    Arrive {
        pkt: u32,
        link: u32,
    },
    /// The packets at the head of a link's wire arrive.
    WireHead(u32),
    TcpTimer {
        flow: u32,
        receiver: bool,
    },
    AppWake(u32),
    UdpSend(u32),
    Sample,
    /// A slot of a cell.
    Slot(u32),
}

struct Sim {
    q: EventQueue<Ev>,
    end: SimTime,
    n_nodes: usize,
    links: Vec<LinkState>,
    route: Vec<u32>,
    pkts: Vec<Packet>,
    free: Vec<u32>,
    flows: Vec<FlowState>,
    hdrs: Vec<TcpHeader>,
    lout: LinkOutput,
    bin_ns: u64,
    sample: SimTime,
    cwnd_mode: CwndRecording,
    captures: Vec<PcapWriter<BufWriter<File>>>,
    io_error: Option<String>,
    q_link: Vec<u32>,
    q_t_ns: Vec<u64>,
    q_bytes: Vec<u64>,
    q_packets: Vec<u32>,
    q_drops: Vec<u64>,
    ran: Option<Ran>,
    rout: RanOutput,
    ue_names: Vec<String>,
    gnb_names: Vec<String>,
    rs: RanSeries,
}

/// The per-UE radio time series.
#[derive(Default)]
struct RanSeries {
    ue: Vec<u32>,
    t_ns: Vec<u64>,
    sinr_dl_db: Vec<f64>,
    sinr_ul_db: Vec<f64>,
    mcs_dl: Vec<f64>,
    mcs_ul: Vec<f64>,
    los: Vec<u32>,
    rlc_dl_bytes: Vec<u64>,
    rlc_ul_bytes: Vec<u64>,
    x_m: Vec<f64>,
    y_m: Vec<f64>,
}

/// Runs a validated scenario to its end.
pub fn run(loaded: &Loaded, ctl: &RunControl) -> Result<RunOutput, RunError> {
    let s = &loaded.scenario;
    let seed = ctl.seed.unwrap_or(s.simulation.seed);
    let b = build(loaded, seed).map_err(RunError::Build)?;
    let mut captures = Vec::new();
    if let Some(dir) = &ctl.capture_dir {
        if !b.captured_links.is_empty() {
            std::fs::create_dir_all(dir)
                .map_err(|e| RunError::Io(format!("{}: {e}", dir.display())))?;
        }
        for name in &b.captured_links {
            let path = dir.join(format!("{name}.pcap"));
            let f = File::create(&path)
                .map_err(|e| RunError::Io(format!("{}: {e}", path.display())))?;
            captures
                .push(PcapWriter::new(BufWriter::new(f)).map_err(|e| RunError::Io(e.to_string()))?);
        }
    }
    let mut sim = Sim {
        q: EventQueue::new(),
        end: s.simulation.duration.time(),
        n_nodes: b.nodes.len(),
        links: b.links,
        route: b.route,
        pkts: Vec::with_capacity(4096),
        free: Vec::new(),
        flows: b.flows,
        hdrs: Vec::with_capacity(64),
        lout: LinkOutput::default(),
        bin_ns: s.metrics.goodput_bin.0,
        sample: s.metrics.sample_interval.time(),
        cwnd_mode: s.metrics.cwnd,
        captures,
        io_error: None,
        q_link: vec![],
        q_t_ns: vec![],
        q_bytes: vec![],
        q_packets: vec![],
        q_drops: vec![],
        ran: b.ran,
        rout: RanOutput::default(),
        ue_names: b.ue_names,
        gnb_names: b.gnb_names,
        rs: RanSeries::default(),
    };
    for (i, f) in sim.flows.iter().enumerate() {
        sim.q.schedule(f.start, Ev::FlowStart(i as u32));
        if f.stop < sim.end {
            sim.q.schedule(f.stop, Ev::FlowStop(i as u32));
        }
    }
    sim.q
        .schedule_in_class(SimTime::ZERO, CLASS_LATE, Ev::Sample);

    let mut since_check = 0u32;
    while let Some(t) = sim.q.peek_time() {
        if t > sim.end {
            break;
        }
        let (now, ev) = sim.q.pop().expect("peeked");
        sim.dispatch(now, ev);
        since_check += 1;
        if since_check >= 1 << 16 {
            since_check = 0;
            if let Some(p) = &ctl.progress_ns {
                p.store(now.ns(), Ordering::Relaxed);
            }
            if ctl
                .cancel
                .as_ref()
                .is_some_and(|c| c.load(Ordering::Relaxed))
            {
                return Err(RunError::Cancelled);
            }
        }
    }
    if let Some(p) = &ctl.progress_ns {
        p.store(sim.end.ns(), Ordering::Relaxed);
    }
    for c in std::mem::take(&mut sim.captures) {
        if let Err(e) = c.into_inner() {
            sim.io_error.get_or_insert(e.to_string());
        }
    }
    if let Some(e) = sim.io_error.take() {
        return Err(RunError::Io(e));
    }
    Ok(sim.finish(loaded, seed, &b.nodes))
}

impl Sim {
    fn dispatch(&mut self, now: SimTime, ev: Ev) {
        match ev {
            Ev::TxDone(l) => {
                self.links[l as usize].dir.tx_done(now, &mut self.lout);
                self.link_output(l);
            }
            Ev::Arrive { pkt, link } => self.arrive(now, pkt, link),
            Ev::WireHead(l) => {
                self.links[l as usize].wire_event_pending = false;
                let mut now = now;
                loop {
                    while let Some(&(t, pkt)) = self.links[l as usize].wire.front() {
                        if t > now {
                            break;
                        }
                        self.links[l as usize].wire.pop_front();
                        self.arrive(now, pkt, l);
                    }
                    let ls = &self.links[l as usize];
                    let Some(&(t, _)) = ls.wire.front() else {
                        break;
                    };
                    if ls.wire_event_pending {
                        break;
                    }
                    // Nothing else is due before the next packet on this wire: deliver it
                    // now rather than through the heap. Strictly earlier than every pending
                    // event, so the order of events is exactly the heap's.
                    if t <= self.end && self.q.peek_time().is_none_or(|h| t < h) {
                        self.q.advance_to(t);
                        now = t;
                        continue;
                    }
                    self.links[l as usize].wire_event_pending = true;
                    self.q.schedule(t, Ev::WireHead(l));
                    break;
                }
            }
            Ev::TcpTimer { flow, receiver } => self.tcp_timer(now, flow, receiver),
            Ev::AppWake(f) => {
                if let FlowKind::Tcp {
                    app_wake_pending, ..
                } = &mut self.flows[f as usize].kind
                {
                    if *app_wake_pending == now {
                        *app_wake_pending = SimTime::NEVER;
                    }
                }
                self.service_app(now, f);
            }
            Ev::UdpSend(f) => self.udp_send(now, f),
            Ev::FlowStart(f) => self.flow_start(now, f),
            Ev::FlowStop(f) => {
                let fl = &mut self.flows[f as usize];
                fl.stopped = true;
                if let FlowKind::Tcp { sender, .. } = &mut fl.kind {
                    sender.stop_writing();
                }
            }
            Ev::Sample => self.take_sample(now),
            Ev::Slot(c) => self.slot(now, c),
        }
    }

    // ----- radio -----

    fn slot(&mut self, now: SimTime, c: u32) {
        let Some(ran) = self.ran.as_mut() else {
            return;
        };
        let mut out = std::mem::take(&mut self.rout);
        let next = ran.slot(now, c as usize, &mut out);
        if let Some(t) = next {
            self.q.schedule_in_class(t, CLASS_EARLY, Ev::Slot(c));
        }
        for id in out.dropped.drain(..) {
            self.free.push(id as u32);
        }
        for (id, node) in out.delivered.drain(..) {
            self.forward(now, id as u32, node);
        }
        self.rout = out;
    }

    /// Packet `pkt` takes radio hop `hop` (a route entry ≥ RADIO).
    fn radio(&mut self, now: SimTime, pkt: u32, hop: u32) {
        let ue = ((hop & !RADIO) >> 1) as usize;
        let dir = if hop & 1 == 1 {
            Direction::Uplink
        } else {
            Direction::Downlink
        };
        let size = self.pkts[pkt as usize].size_bytes;
        let ran = self
            .ran
            .as_mut()
            .expect("radio routes exist only with a RAN");
        match ran.enqueue(now, ue, dir, pkt as u64, size) {
            Err(()) => self.free.push(pkt),
            Ok(Some((c, t))) => self.q.schedule_in_class(t, CLASS_EARLY, Ev::Slot(c as u32)),
            Ok(None) => {}
        }
    }

    // ----- packets -----

    fn arrive(&mut self, now: SimTime, pkt: u32, link: u32) {
        let (reverse, capture, to) = {
            let ls = &self.links[link as usize];
            (ls.reverse, ls.capture, ls.to)
        };
        if reverse {
            if let Some(c) = capture {
                self.capture(c, now, pkt);
            }
        }
        self.forward(now, pkt, to);
    }

    fn alloc(&mut self, p: Packet) -> u32 {
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

    fn forward(&mut self, now: SimTime, pkt: u32, node: u32) {
        // Only the destination and size are needed on the way; the whole record (a few
        // hundred bytes with its TCP header) is copied once, at delivery.
        let (dst, size_bytes) = {
            let p = &self.pkts[pkt as usize];
            (p.dst, p.size_bytes)
        };
        if dst == node {
            let p = self.pkts[pkt as usize];
            self.free.push(pkt);
            self.deliver(now, &p);
            return;
        }
        let l = self.route[node as usize * self.n_nodes + dst as usize];
        debug_assert_ne!(l, u32::MAX, "validated scenarios route every flow");
        if l >= RADIO {
            self.radio(now, pkt, l);
            return;
        }
        let (reverse, capture) = (
            self.links[l as usize].reverse,
            self.links[l as usize].capture,
        );
        if !reverse {
            if let Some(c) = capture {
                self.capture(c, now, pkt);
            }
        }
        self.links[l as usize]
            .dir
            .enqueue(now, PacketRef(pkt), size_bytes, &mut self.lout);
        self.link_output(l);
    }

    fn link_output(&mut self, l: u32) {
        let mut out = std::mem::take(&mut self.lout);
        for (p, _) in out.dropped.drain(..) {
            self.free.push(p.0);
        }
        for d in out.delivered.drain(..) {
            let (p, at) = (d.pkt, d.at);
            let id = if d.duplicate {
                self.alloc(self.pkts[p.0 as usize])
            } else {
                p.0
            };
            let ls = &mut self.links[l as usize];
            let in_order = ls.wire.back().is_none_or(|&(t, _)| t <= at);
            if !d.held && in_order {
                ls.wire.push_back((at, id));
                if !ls.wire_event_pending {
                    ls.wire_event_pending = true;
                    let head = ls.wire.front().expect("just pushed").0;
                    self.q.schedule(head, Ev::WireHead(l));
                }
            } else {
                // Held back by the reordering impairment: overtaken by later packets.
                self.q.schedule(at, Ev::Arrive { pkt: id, link: l });
            }
        }
        if let Some(t) = out.tx_done_at.take() {
            self.q.schedule(t, Ev::TxDone(l));
        }
        self.lout = out;
    }

    /// Sends the TCP headers in `self.hdrs` of flow `f` into the network.
    fn emit_tcp(&mut self, now: SimTime, f: u32) {
        let mut hdrs = std::mem::take(&mut self.hdrs);
        let (src, dst) = (self.flows[f as usize].src, self.flows[f as usize].dst);
        for h in hdrs.drain(..) {
            let (a, b) = if h.from_receiver {
                (dst, src)
            } else {
                (src, dst)
            };
            let pkt = Packet {
                flow: f,
                src: a,
                dst: b,
                size_bytes: h.header_bytes() + h.payload_bytes,
                sent_at: now,
                enqueued_at: now,
                transport: Transport::Tcp(h),
            };
            let id = self.alloc(pkt);
            self.forward(now, id, a);
        }
        self.hdrs = hdrs;
    }

    fn deliver(&mut self, now: SimTime, p: &Packet) {
        let f = p.flow;
        match p.transport {
            Transport::Tcp(h) => {
                let fl = &mut self.flows[f as usize];
                let FlowKind::Tcp {
                    sender,
                    receiver,
                    file_size,
                    completed_at,
                    ..
                } = &mut fl.kind
                else {
                    unreachable!("TCP packet of a UDP flow")
                };
                if h.from_receiver {
                    if let (Some(u), Some(ran)) = (fl.src_ue, &self.ran) {
                        sender.read_link_view(ran.view(u), now);
                    }
                    sender.on_segment(now, &h, &mut self.hdrs);
                    self.emit_tcp(now, f);
                    self.arm(now, f, false);
                    self.service_app(now, f);
                } else {
                    if let (Some(u), Some(ran)) = (fl.dst_ue, &self.ran) {
                        if receiver.controls_window() {
                            receiver.read_link_view(ran.view(u), now);
                        }
                    }
                    let new = receiver.on_segment(now, &h, &mut self.hdrs);
                    let done = file_size.is_some_and(|s| fl.delivered + new >= s);
                    if done && completed_at.is_none() {
                        *completed_at = Some(now);
                    }
                    if new > 0 {
                        fl.record_delivery(now, new, self.bin_ns, self.end);
                    }
                    self.emit_tcp(now, f);
                    self.arm(now, f, true);
                }
            }
            Transport::Udp(h) => {
                let fl = &mut self.flows[f as usize];
                let new = match &mut fl.kind {
                    FlowKind::Udp { sink, owd, .. } => {
                        let new = sink.on_datagram(&h);
                        if new > 0 {
                            owd.record(now, now - p.sent_at);
                        }
                        new
                    }
                    FlowKind::Tcp { .. } => unreachable!("UDP packet of a TCP flow"),
                };
                if new > 0 {
                    fl.record_delivery(now, new, self.bin_ns, self.end);
                }
            }
        }
    }

    // ----- TCP timers and applications -----

    fn arm(&mut self, now: SimTime, f: u32, receiver: bool) {
        let Some((deadline, pending)) = self.flows[f as usize].kind.tcp_timer(receiver) else {
            return;
        };
        if deadline != SimTime::NEVER && deadline < *pending {
            *pending = deadline;
            self.q
                .schedule(deadline.max(now), Ev::TcpTimer { flow: f, receiver });
        }
    }

    fn tcp_timer(&mut self, now: SimTime, f: u32, receiver: bool) {
        let fired = self.flows[f as usize]
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

    fn service_app(&mut self, now: SimTime, f: u32) {
        if self.flows[f as usize].stopped {
            return;
        }
        let FlowKind::Tcp {
            sender,
            app,
            app_wake_pending,
            ..
        } = &mut self.flows[f as usize].kind
        else {
            return;
        };
        if sender.state() != SenderState::Established || !sender.app_limited() {
            return;
        }
        let cap = sender.snd_una().saturating_sub(1) + sender.config().snd_buf;
        let w = app.poll(now, cap);
        if w > sender.app_written() {
            sender.set_app_end(now, w, &mut self.hdrs);
        }
        if sender.app_limited() {
            if let Some(t) = app.next_write(now) {
                if t < *app_wake_pending {
                    *app_wake_pending = t;
                    self.q.schedule(t, Ev::AppWake(f));
                }
            }
        }
        self.emit_tcp(now, f);
        self.arm(now, f, false);
    }

    fn flow_start(&mut self, now: SimTime, f: u32) {
        match &mut self.flows[f as usize].kind {
            FlowKind::Tcp { sender, app, .. } => {
                let w = app.poll(now, u64::MAX);
                sender.set_app_end(now, w, &mut self.hdrs);
                sender.connect(now, &mut self.hdrs);
                self.emit_tcp(now, f);
                self.arm(now, f, false);
            }
            FlowKind::Udp { .. } => self.udp_send(now, f),
        }
    }

    fn udp_send(&mut self, now: SimTime, f: u32) {
        let fl = &mut self.flows[f as usize];
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
        };
        let next = now + interval;
        if next < fl.stop && next <= self.end {
            self.q.schedule(next, Ev::UdpSend(f));
        }
        let a = fl.src;
        let id = self.alloc(pkt);
        self.forward(now, id, a);
    }

    // ----- metrics -----

    fn take_sample(&mut self, now: SimTime) {
        if self.cwnd_mode == CwndRecording::Interval {
            for fl in &mut self.flows {
                if let FlowKind::Tcp { sender, .. } = &fl.kind {
                    if now >= fl.start && sender.state() == SenderState::Established {
                        fl.cwnd_t_ns.push(now.ns());
                        fl.cwnd_bytes.push(sender.cwnd_bytes());
                        fl.ssthresh_bytes.push(sender.ssthresh_bytes());
                        fl.inflight_bytes.push(sender.bytes_in_flight());
                        fl.rwnd_bytes.push(sender.peer_window_bytes());
                    }
                }
            }
        }
        for (i, l) in self.links.iter_mut().enumerate() {
            let occ = l.dir.queue_bytes(now);
            l.occupancy_sum += occ as u128;
            l.occupancy_samples += 1;
            l.occupancy_max = l.occupancy_max.max(occ);
            self.q_link.push(i as u32);
            self.q_t_ns.push(now.ns());
            self.q_bytes.push(occ);
            self.q_packets.push(l.dir.queue_packets(now) as u32);
            self.q_drops
                .push(l.dir.stats.tail_drops + l.dir.stats.aqm_drops);
        }
        if let Some(ran) = self.ran.as_mut() {
            for u in 0..ran.ues() {
                let s = ran.sample(u, now);
                let r = &mut self.rs;
                r.ue.push(u as u32);
                r.t_ns.push(now.ns());
                r.sinr_dl_db.push(s.sinr_dl_db);
                r.sinr_ul_db.push(s.sinr_ul_db);
                r.mcs_dl.push(s.mcs[0].map_or(f64::NAN, f64::from));
                r.mcs_ul.push(s.mcs[1].map_or(f64::NAN, f64::from));
                r.los.push(s.los as u32);
                r.rlc_dl_bytes.push(s.rlc_bytes[0]);
                r.rlc_ul_bytes.push(s.rlc_bytes[1]);
                r.x_m.push(s.position.x);
                r.y_m.push(s.position.y);
            }
        }
        let next = now + self.sample;
        if next <= self.end {
            self.q.schedule_in_class(next, CLASS_LATE, Ev::Sample);
        }
    }
}

impl FlowState {
    /// `bytes` reached the receiving application at `now`.
    fn record_delivery(&mut self, now: SimTime, bytes: u64, bin_ns: u64, end: SimTime) {
        self.delivered += bytes;
        if now <= self.stop {
            self.delivered_by_stop += bytes;
        }
        // Bins are [k·bin, (k+1)·bin); the run's last instant `end` belongs to the last bin.
        let last = end.ns().saturating_sub(1) / bin_ns;
        let b = (now.ns() / bin_ns).min(last) as usize;
        if self.bins.len() <= b {
            self.bins.resize(b + 1, 0);
        }
        self.bins[b] += bytes;
    }
}
