//! The event loop: the events of a run and their dispatch. Packet forwarding (wired
//! links, tunnels, the radio) is `forward.rs`, transport endpoints and applications
//! `transport.rs`, sampled time series `sample.rs`, the summary at the end `summary.rs`.

mod cptp;
mod dual;
mod external;
mod forward;
mod fusion;
mod lazy;
mod mobility;
mod reader;
mod sample;
mod summary;
mod transport;
mod upf_fusion;

use crate::build::{build, Action, FlowKind, FlowState, LinkState};
use crate::core::Core;
use crate::output::RunOutput;
use crate::topology::{Forwarding, Topology};
pub use external::ExternalCounts;
use mmtsim_engine::ids::{CellId, FlowId, LinkId, NodeId, UeId};
use mmtsim_engine::queue::{CLASS_EARLY, CLASS_LATE};
use mmtsim_engine::spares::Spares;
use mmtsim_engine::{EventQueue, SimTime};
use mmtsim_net::link::LinkOutput;
use mmtsim_net::packet::{Packet, TcpHeader};
use mmtsim_net::pcap::PcapWriter;
use mmtsim_ran::network::{Ran, RanOutput};
use mmtsim_scenario::model::CwndRecording;
use mmtsim_scenario::Loaded;
use sample::RanSeries;
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

/// The events of a run. Ordering among events at one instant: scripted events and cell
/// slots use the early class (a handover at 5 s applies before any packet handled at
/// 5 s), sampling the late class, everything else the normal class in insertion order.
#[derive(Clone, Copy, Debug)]
enum Ev {
    FlowStart(FlowId),
    /// The flow's application stops writing.
    FlowStop(FlowId),
    TxDone(LinkId),
    /// A packet that left the wire's FIFO order (reordering impairment) arrives: the
    /// packet and its link are entry `.0` of `Sim::held`.
    Arrive(u32),
    /// The packets at the head of a link's wire arrive.
    WireHead(LinkId),
    TcpTimer {
        flow: FlowId,
        receiver: bool,
    },
    AppWake(FlowId),
    /// A receiving application that reads at a rate reads again.
    AppRead(FlowId),
    UdpSend(FlowId),
    Sample,
    /// A slot of a cell.
    Slot(CellId),
    /// The scenario's `[[events]]` entry with this index.
    Scripted(u32),
    /// A measurement instant of every UE (measurement-based handover).
    Measure,
    /// A deadline of a UE's handover procedure.
    Rrc(UeId),
    /// A step of coordinated dual connectivity (reports, decisions, X2 forwarding).
    Dual,
    /// A timer of one role of an mmCPTP download (`cptp.rs`: proxy, BS, UE, push tick).
    Cptp {
        flow: FlowId,
        role: u8,
    },
}

// An event fits in a register: handed to the queue by value, a larger one went through
// memory, written field by field and read back whole, a load the CPU cannot forward.
const _: () = assert!(std::mem::size_of::<Ev>() <= 8);

struct Sim {
    q: EventQueue<Ev>,
    end: SimTime,
    /// The latest instant the current step may reach (`Stepper::run_until`'s bound, at
    /// most the end). A shortcut that handles a future instant without the heap
    /// (`wire_head`) must stay within it, or a driver pacing the run to the wall clock
    /// would see the clock run ahead of its step.
    horizon: SimTime,
    links: Vec<LinkState>,
    topology: Topology,
    fwd: Forwarding,
    /// The UE each node is, if it is one.
    node_ue: Vec<Option<UeId>>,
    core: Option<Core>,
    events: Vec<(SimTime, Action)>,
    pkts: Vec<Packet>,
    free: Vec<u32>,
    /// Packets held back by a link's reordering impairment, each with its link, until
    /// its own `Ev::Arrive`; `held_free` lists the slots to reuse.
    held: Vec<(u32, LinkId)>,
    held_free: Vec<u32>,
    flows: Vec<FlowState>,
    hdrs: Vec<TcpHeader>,
    lout: LinkOutput,
    /// Hop fusion over transit nodes (`fusion.rs`), if this run may fuse any hop.
    fusion: Option<Box<fusion::Fusion>>,
    /// Late admission into a single cell's radio (`lazy.rs`), if this run may use it.
    lazy: Option<Box<lazy::Lazy>>,
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
    cell_names: Vec<String>,
    rs: RanSeries,
    /// Packets that reached a node with no route to their destination.
    unroutable: u64,
    /// `[[events]]` entries at or after the end of the run (they do not happen): (index,
    /// time).
    late_events: Vec<(usize, SimTime)>,
    /// Scripted events that found nothing to do, in words.
    event_notices: Vec<String>,
    /// The mmCPTP downloads (their second legs).
    cptp_flows: Vec<FlowId>,
    /// Nodes hosting an mmCPTP plug-in before a wired last hop.
    cptp_hosts: Vec<bool>,
    /// Scratch for the packets a plug-in pushes (kept to save an allocation per push).
    cptp_pushes: Vec<mmtsim_transport::cptp::bs::Push>,
    /// Emptied message lists of mmCPTP's roles, reused: a role builds one per packet it
    /// handles (the UE's ACK to every data packet), which used to allocate each time.
    cptp_hdrs: Spares<mmtsim_net::cptp::CptpHeader>,
    cptp_outs: Spares<mmtsim_transport::cptp::proxy::Out>,
    /// The bytes of an emulation's real packets (empty in a simulated run).
    ext: external::Payloads,
}

/// Runs a validated scenario to its end.
pub fn run(loaded: &Loaded, ctl: &RunControl) -> Result<RunOutput, RunError> {
    let mut stepper = Stepper::new(loaded, ctl)?;
    // A whole run may take hops over transit nodes ahead of time; a run driven in steps
    // from outside does not (`fusion.rs`).
    fusion::plan(&mut stepper.sim);
    // Likewise late admission into the radio (`lazy.rs`).
    lazy::plan(&mut stepper.sim);
    stepper.run_until(stepper.end())?;
    let end = stepper.end();
    stepper.sim.admit_waiting(end, true);
    stepper.finish()
}

/// A run advanced in steps: any sequence of `run_until` calls up to the end dispatches
/// the same events in the same order (a step only says where to pause). [`run`] is `new`,
/// `run_until(end)`, `finish`, except that it also fuses hops over transit nodes
/// (`fusion.rs`), which a `Stepper` never does; the results are the same. A driver that
/// feeds the run from outside (real time) pauses it at the wall clock's instant.
pub struct Stepper<'a> {
    sim: Sim,
    loaded: &'a Loaded,
    ctl: RunControl,
    seed: u64,
    nodes: Vec<String>,
    /// Events since the last look at the progress and cancel flags.
    since_check: u32,
}

impl<'a> Stepper<'a> {
    /// Builds the run: nothing is dispatched yet.
    pub fn new(loaded: &'a Loaded, ctl: &RunControl) -> Result<Self, RunError> {
        let (sim, seed, nodes) = build_sim(loaded, ctl)?;
        Ok(Stepper {
            sim,
            loaded,
            ctl: ctl.clone(),
            seed,
            nodes,
            since_check: 0,
        })
    }

    /// The scenario's end: events up to and including it are dispatched.
    pub fn end(&self) -> SimTime {
        self.sim.end
    }

    /// The instant of the next event to dispatch, if one is due by the end.
    pub fn next_event(&self) -> Option<SimTime> {
        self.sim.q.peek_time().filter(|&t| t <= self.sim.end)
    }

    /// Dispatches every event at or before `until` (and the end).
    pub fn run_until(&mut self, until: SimTime) -> Result<(), RunError> {
        let limit = until.min(self.sim.end);
        self.sim.horizon = limit;
        while let Some(t) = self.sim.q.peek_time() {
            if t > limit {
                break;
            }
            let (now, ev) = self.sim.q.pop().expect("peeked");
            self.sim.dispatch(now, ev);
            self.since_check += 1;
            if self.since_check >= 1 << 16 {
                self.since_check = 0;
                if let Some(p) = &self.ctl.progress_ns {
                    p.store(now.ns(), Ordering::Relaxed);
                }
                if self
                    .ctl
                    .cancel
                    .as_ref()
                    .is_some_and(|c| c.load(Ordering::Relaxed))
                {
                    return Err(RunError::Cancelled);
                }
            }
        }
        Ok(())
    }

    /// Ends the run where it stands: captures closed, summary and tables built.
    pub fn finish(self) -> Result<RunOutput, RunError> {
        let mut sim = self.sim;
        if let Some(p) = &self.ctl.progress_ns {
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
        Ok(sim.finish(self.loaded, self.seed, &self.nodes))
    }
}

/// The simulation of `loaded` with its first events scheduled; its seed and node names.
fn build_sim(loaded: &Loaded, ctl: &RunControl) -> Result<(Sim, u64, Vec<String>), RunError> {
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
        horizon: s.simulation.duration.time(),
        links: b.links,
        topology: b.topology,
        fwd: b.forwarding,
        node_ue: b.node_ue,
        core: b.core,
        events: b.events,
        pkts: Vec::with_capacity(4096),
        free: Vec::new(),
        flows: b.flows,
        hdrs: Vec::with_capacity(64),
        lout: LinkOutput::default(),
        held: Vec::new(),
        held_free: Vec::new(),
        fusion: None,
        lazy: None,
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
        cell_names: b.cell_names,
        rs: RanSeries::default(),
        unroutable: 0,
        late_events: Vec::new(),
        event_notices: Vec::new(),
        cptp_flows: Vec::new(),
        cptp_hosts: Vec::new(),
        cptp_pushes: Vec::new(),
        cptp_hdrs: Spares::new(cptp::LISTS_KEPT),
        cptp_outs: Spares::new(cptp::LISTS_KEPT),
        ext: external::Payloads::default(),
    };
    sim.cptp_hosts = vec![false; b.nodes.len()];
    if let Some(ran) = sim.ran.as_mut() {
        // Only cross-layer endpoints read a UE's grants; a UE without one keeps none.
        let mut reads = vec![false; ran.ues()];
        for f in &sim.flows {
            if let FlowKind::Tcp {
                sender, receiver, ..
            } = &f.kind
            {
                if let Some(u) = f.src_ue.filter(|_| sender.reads_link_view()) {
                    reads[u.index()] = true;
                }
                if let Some(u) = f.dst_ue.filter(|_| receiver.controls_window()) {
                    reads[u.index()] = true;
                }
            }
        }
        for (i, &r) in reads.iter().enumerate() {
            ran.keep_grants(UeId::from_index(i), r);
        }
    }
    for (i, f) in sim.flows.iter().enumerate() {
        if let FlowKind::Cptp(c) = &f.kind {
            sim.cptp_flows.push(FlowId::from_index(i));
            if let crate::build::Access::Wired { node, .. } = c.access {
                sim.cptp_hosts[node.index()] = true;
            }
        }
    }
    for (i, &(at, _)) in sim.events.iter().enumerate() {
        // A shortened run (`--set simulation.duration=…`) may end before an event: it does
        // not happen, and the summary says so.
        if at >= sim.end {
            sim.late_events.push((i, at));
        } else {
            sim.q
                .schedule_in_class(at, CLASS_EARLY, Ev::Scripted(i as u32));
        }
    }
    for (i, f) in sim.flows.iter().enumerate() {
        let id = FlowId::from_index(i);
        // A relay's second leg opens when its first leg's SYN reaches the relay; an mmCPTP
        // download starts with the UE's request, and its server's connection when the
        // proxy's HTTP request reaches the server.
        let cptp = matches!(f.kind, FlowKind::Cptp(_));
        let cptp_server = f.relay.as_ref().is_some_and(|r| {
            r.leg == 1 && matches!(sim.flows[r.peer.index()].kind, FlowKind::Cptp(_))
        });
        if cptp || (f.relay.as_ref().is_none_or(|r| r.leg == 1) && !cptp_server) {
            sim.q.schedule(f.start, Ev::FlowStart(id));
        }
        // A relay's second leg has no application to stop: it forwards all the first leg
        // brings, which stops with the flow's source.
        if f.stop < sim.end && f.relay.as_ref().is_none_or(|r| r.leg == 1) {
            sim.q.schedule(f.stop, Ev::FlowStop(id));
        }
    }
    sim.q
        .schedule_in_class(SimTime::ZERO, CLASS_LATE, Ev::Sample);
    sim.start_measurements();
    sim.start_dual();
    Ok((sim, seed, b.nodes))
}

impl Sim {
    /// An event at `t` the caller has in hand, not in the heap, runs now if it may: if it
    /// is strictly earlier than every pending event, the order of events is exactly the
    /// heap's, and if it lies within the step's horizon, a step never runs past its bound.
    /// Then the clock moves to `t` (counted as one event) and the caller handles it.
    #[inline]
    fn advance_inline(&mut self, t: SimTime) -> bool {
        let may = t <= self.horizon && self.q.peek_time().is_none_or(|h| t < h);
        if may {
            self.q.advance_to(t);
        }
        may
    }

    fn dispatch(&mut self, now: SimTime, ev: Ev) {
        match ev {
            Ev::TxDone(l) => {
                self.links[l.index()].dir.tx_done(now, &mut self.lout);
                self.link_output(now, l);
            }
            Ev::Arrive(slot) => {
                let (pkt, link) = self.held[slot as usize];
                self.held_free.push(slot);
                self.arrive(now, pkt, link)
            }
            Ev::WireHead(l) => self.wire_head(now, l),
            Ev::TcpTimer { flow, receiver } => self.tcp_timer(now, flow, receiver),
            Ev::AppWake(f) => self.app_wake(now, f),
            Ev::AppRead(f) => self.app_read_event(now, f),
            Ev::UdpSend(f) => self.udp_send(now, f),
            Ev::FlowStart(f) => self.flow_start(now, f),
            Ev::FlowStop(f) => {
                let fl = &mut self.flows[f.index()];
                fl.stopped = true;
                if let FlowKind::Tcp { sender, .. } = &mut fl.kind {
                    sender.stop_writing();
                }
            }
            // Packets admitted late (`lazy.rs`) enter the radio before any early-class
            // event after their instant, and before the late-class sample at or after it.
            Ev::Sample => {
                self.admit_waiting(now, true);
                self.take_sample(now)
            }
            Ev::Slot(c) => {
                // A slot reads only its own cell's buffers.
                self.admit_cell(now, c);
                self.slot(now, c)
            }
            Ev::Scripted(_) | Ev::Measure | Ev::Rrc(_) | Ev::Dual => {
                self.admit_waiting(now, false);
                self.procedure(now, ev);
                self.after_procedure(now);
            }
            Ev::Cptp { flow, role } => self.cptp_timer(now, flow, role),
        }
    }

    /// An early-class event of the radio's procedures: a scripted event, a measurement
    /// instant, a handover deadline, a step of dual connectivity.
    fn procedure(&mut self, now: SimTime, ev: Ev) {
        match ev {
            Ev::Scripted(i) => self.scripted(now, i as usize),
            Ev::Measure => self.measure(now),
            Ev::Rrc(ue) => self.rrc(now, ue),
            Ev::Dual => self.dual(now),
            _ => unreachable!("not a procedure's event"),
        }
    }

    /// Scripted event `i` of the scenario.
    fn scripted(&mut self, now: SimTime, i: usize) {
        let ran = self.ran.as_mut().expect("validated: events need a RAN");
        match self.events[i].1 {
            Action::Handover { ue, .. } if ran.in_handover(ue) => {
                self.event_notices.push(format!(
                    "events[{i}] at {:.3} s: {} is in a measurement-based handover: no scripted handover",
                    now.secs_f64(),
                    self.ue_names[ue.index()],
                ));
            }
            Action::Handover { ue, to } if ran.serving_cell(ue) == to => {
                self.event_notices.push(format!(
                    "events[{i}] at {:.3} s: {} is already served by {}: no handover",
                    now.secs_f64(),
                    self.ue_names[ue.index()],
                    self.cell_names[to.index()]
                ));
            }
            Action::Handover { ue, to } => self.handover(now, ue, to),
            Action::AddSecondary { ue, cell }
                if ran.secondary_cell(ue).is_some() || ran.serving_cell(ue) == cell =>
            {
                self.event_notices.push(format!(
                    "events[{i}] at {:.3} s: {} already has {} or a secondary cell: not added",
                    now.secs_f64(),
                    self.ue_names[ue.index()],
                    self.cell_names[cell.index()]
                ));
            }
            Action::AddSecondary { ue, cell } => ran.add_secondary(now, ue, cell),
        }
    }

    /// UE `ue` is served by cell `to` from `now`: the radio association changes, the
    /// forwarding tables follow the new attachment, and the core switches the UE's
    /// downlink tunnel to the new site.
    fn handover(&mut self, now: SimTime, ue: UeId, to: CellId) {
        let ran = self.ran.as_mut().expect("validated: handovers need a RAN");
        if let Some((c, t)) = ran.switch_serving(now, ue, to) {
            self.q.schedule_in_class(t, CLASS_EARLY, Ev::Slot(c));
        }
        let site: NodeId = ran.cell_node(to);
        self.attach_ue(now, ue, site);
        if let Some(core) = &mut self.core {
            core.path_switch(ue, site);
        }
    }

    /// UE `ue` is attached to `site` from `now`: the forwarding tables follow, and mmCPTP
    /// plug-ins at the site it left send their handover NACKs.
    fn attach_ue(&mut self, now: SimTime, ue: UeId, site: NodeId) {
        let from = self.topology.site_of(ue);
        if from != site {
            self.late_site_left(from);
        }
        self.topology.attach(ue, site);
        self.fwd = self.topology.forwarding();
        if !self.cptp_flows.is_empty() {
            self.cptp_left_site(now, ue);
        }
    }
}
