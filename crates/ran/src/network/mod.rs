//! The radio access network of a run: cells on gNB sites, UEs, their bearers and channels,
//! advanced slot by slot, each cell at its own numerology.
//!
//! # Data path
//! Downlink: the world hands a packet to [`Ran::enqueue`] → PDCP (header) → the gNB's RLC
//! transmission buffer (drop-tail at the configured size) → at a slot of the serving cell
//! the scheduler grants units → the MCS chosen from the SINR the UE reported `cqi_delay`
//! ago gives the transport block size → RLC fills the block (status, retransmissions, new
//! data) → the block is decoded or not, drawn from the BLER at the SINR of *this*
//! transmission (soft combined with earlier ones) → a decoded block reaches the receiving
//! RLC one slot after the slot ends (decoding latency) → in-order SDUs → PDCP → back to
//! the world at the UE's node. Uplink is the mirror image, except that the scheduler sizes
//! grants from the UE's buffer status as it was `bsr_delay` ago, minus what it granted
//! since (scheduling request / buffer status report delay), and the UE's RLC fills the
//! granted block; uplink packets leave the RAN at the serving cell's site node.
//!
//! # Cells and association
//! Each cell has its own [`CellRadio`](crate::config::CellRadio): numerology (slot length,
//! bandwidth, TDD pattern, MCS table, TBS rule, HARQ processes), scheduler, report delays
//! and propagation model (carrier frequency). A UE is served by one cell at a time; which
//! one is run-time state behind [`Ran::serving_cell`]. Scripted events change it at once
//! with [`Ran::switch_serving`] (the bearer moves intact, no interruption);
//! measurement-based handover (`handover.rs`, decided by [`crate::rrc`]) takes the
//! procedure with its costs: detach, interruption, RLC re-establishment and PDCP
//! forwarding, random access on the target, and a failure path. The UE's bearer belongs to
//! the UE, not to a cell: its PDCP entities and one `Leg` per serving cell (RLC at both
//! ends, HARQ, reports); a second leg on a secondary cell makes a split bearer (dual
//! connectivity, [`Ran::add_secondary`]).
//!
//! # Time
//! A cell runs one event per slot while it has anything to do (data in either direction,
//! busy HARQ processes, blocks being decoded) and sleeps otherwise; RLC/PDCP timers wake
//! it at the first slot boundary at or after they expire, and new data wakes it at the
//! next slot boundary. Timers therefore have slot granularity (100 µs in the 2017
//! preset), as in ns-3 where RLC runs off the MAC's subframe indications [NS3-MMW-V1].
//!
//! # Channel
//! Each UE's position, LOS state (buildings, obstacles, and vehicles where they are at that
//! instant) and link gains are updated every `channel_update` (lazily, when its cell
//! runs or when metrics are sampled; so the fading's draws, and with them its
//! realisation, follow the traffic's timing: two runs of one seed whose traffic differs
//! see fading with the same statistics, not the same fading). Downlink SINR is the
//! serving cell's signal (ideal beam alignment, the link's `bf_gain_db`) over the UE's noise plus
//! the interference of the other cells on the same carrier, by the RAN's
//! [`Interference`] mode (`interference.rs`): none; every cell all the time without
//! antenna gain (`FullBufferOmni`, the default and the first version's model, a
//! pessimistic full load); every cell all the time with its beams toward its own UEs
//! (`FullBuffer`); or only the cells that sent downlink in the slot before, with the
//! beams they used and their share of the slot (`Active`). Beam gains are the TR 38.901
//! element pattern times the panel's array factor ([`mmtsim_channel::antenna`]), at the
//! interferer's gNB toward the UE and at the UE (its beam on its serving cell) toward the
//! interferer. The SINR of a channel update is what the UE reports (CQI, after
//! `cqi_delay`); in `Active` mode a block is decoded at the interference of its own slot.
//! Uplink SINR has no interference term (one UE per slot per cell, other cells' UEs
//! ignored). Forced outages give no signal at all.
//!
//! # Simplifications (against ns-3 mmWave [NS3-MMW-V1])
//! - One radio bearer per UE carries all its flows.
//! - Decoding latency is one slot for every preset; the HARQ feedback delay is the
//!   preset's.
//! - The DCI lead time (L1/L2 control latency) is folded into the CQI and BSR delays
//!   instead of scheduling grants ahead of the slot they are for.
//! - No MAC subheaders (ns-3 mmWave 2017 assumes 0 MAC header bytes too).

mod beams;
mod channel;
mod dual;
mod grid;
mod handover;
mod interference;
mod measure;
mod schedule;
mod slot;

pub use handover::{HandoverRecord, MeasurementLog, RrcEvent};
pub use measure::Measured;

use crate::config::{CellRadio, Interference, RanConfig};
use crate::mac::harq::Harq;
use crate::mac::scheduler::Candidate;
use crate::pdcp::{PdcpRx, PdcpTx};
use crate::phy::amc::{Amc, McsMemo};
use crate::phy::bler::TblerMemo;
use crate::phy::numerology::Numerology;
use crate::phy::tbs::TbsTable;
use crate::rlc::{Pdu, Rlc, RlcConfig, RlcStats, Sdu, SharedPool};
use crate::rrc::{Algorithm, HandoverKind};
use crate::view::UeView;
use beams::{BeamGains, BeamTable, Bearings};
use interference::{Activity, InterfererLink, PositionHistory};
use mmtsim_channel::antenna::PanelArray;
use mmtsim_channel::blockage::Outages;
use mmtsim_channel::budget::{db_to_lin, thermal_noise_dbm};
use mmtsim_channel::geometry::{Aabb, Vec3};
use mmtsim_channel::link::{LinkChannel, LosMode};
use mmtsim_channel::mobility::Mobility;
use mmtsim_channel::sinr_trace::SinrTrace;
use mmtsim_channel::vehicles::Traffic;
use mmtsim_engine::ids::{CellId, NodeId, UeId};
use mmtsim_engine::spares::Spares;
use mmtsim_engine::{RngStreams, SimRng, SimTime};
use mmtsim_net::{linkview::LinkView, Direction};
use std::collections::VecDeque;

/// SINR used for "no signal" (outage): far below any MCS threshold.
pub const NO_SIGNAL_DB: f64 = -300.0;

/// What a slot (or an enqueue) hands back to the world.
#[derive(Debug, Default)]
pub struct RanOutput {
    /// Packets that left the RAN: (packet id, node where they come out: the UE for
    /// downlink, the serving cell's site for uplink).
    pub delivered: Vec<(u64, NodeId)>,
    /// Packets an RLC buffer's AQM dropped from its head (the world frees them).
    pub dropped: Vec<u64>,
}

/// Counters of one UE, each `[downlink, uplink]`.
#[derive(Clone, Debug, Default)]
pub struct UeStats {
    /// Transport blocks sent (first transmissions).
    pub tbs: [u64; 2],
    /// HARQ retransmissions.
    pub harq_retx: [u64; 2],
    /// Blocks dropped after the last HARQ transmission failed.
    pub harq_failures: [u64; 2],
    /// Transmissions not decoded.
    pub tb_errors: [u64; 2],
    /// Transport-block bytes decoded.
    pub decoded_bytes: [u64; 2],
    /// SDUs (packets) refused by a full RLC buffer (downlink at the gNB, uplink at the UE).
    pub buffer_drops: [u64; 2],
    /// Blocks in HARQ processes discarded by a change of serving cell (MAC reset).
    pub harq_reset_drops: [u64; 2],
    /// Changes of serving cell.
    pub cell_switches: u64,
    /// Measurement-based handovers that failed (random access on the target).
    pub handover_failures: u64,
    /// RRC re-establishments after a failure.
    pub reestablishments: u64,
    /// Coordinated dual connectivity: fast switches between the LTE and mmWave legs.
    pub dc_switches: u64,
    /// Coordinated dual connectivity: secondary-cell (mmWave to mmWave) handovers.
    pub secondary_handovers: u64,
}

/// A sample of one UE's radio state, for the `ran` time series.
#[derive(Clone, Copy, Debug)]
pub struct UeSample {
    /// Downlink SINR, dB.
    pub sinr_dl_db: f64,
    /// Uplink SINR, dB.
    pub sinr_ul_db: f64,
    /// MCS of the last downlink / uplink block (None before the first).
    pub mcs: [Option<u8>; 2],
    /// Line of sight to the serving cell's antenna.
    pub los: bool,
    /// RLC transmission-buffer bytes [gNB (downlink), UE (uplink)].
    pub rlc_bytes: [u64; 2],
    /// Position.
    pub position: Vec3,
    /// Serving cell.
    pub cell: CellId,
    /// Downlink SINR at the secondary cell, dB (`None` without dual connectivity).
    pub sinr_dl_secondary_db: Option<f64>,
    /// The secondary cell (`None` without dual connectivity).
    pub secondary: Option<CellId>,
}

struct Delivery {
    at: SimTime,
    ue: UeId,
    /// The UE's leg the block was sent on (0: primary cell, 1: secondary).
    leg: usize,
    dir: Direction,
    pdus: Vec<Pdu>,
}

/// A cell's radio parameters as the slot loop uses them, resolved once.
struct Radio {
    num: Numerology,
    /// `num`'s transport block sizes, looked up by the scheduler.
    tbs: TbsTable,
    amc: Amc,
    scheduler: crate::mac::scheduler::SchedulerKind,
    harq_max_tx: u8,
    cqi_delay: SimTime,
    bsr_delay: SimTime,
    bf_gain_db: f64,
    /// The gNB's panel and the UE's (for the beam gains of interfering links).
    gnb_array: PanelArray,
    ue_array: PanelArray,
    los_geometric: bool,
    noise_ue_dbm: f64,
    /// `noise_ue_dbm` in mW (the sum of a downlink SINR starts from it).
    noise_ue_mw: f64,
    noise_gnb_dbm: f64,
    slot: SimTime,
}

impl Radio {
    fn new(r: &CellRadio) -> Radio {
        let num = r.numerology.clone();
        Radio {
            tbs: TbsTable::new(&num),
            amc: Amc::new(&num),
            scheduler: r.scheduler,
            harq_max_tx: if r.harq { num.harq_max_tx } else { 1 },
            cqi_delay: r.cqi_delay,
            bsr_delay: r.bsr_delay,
            bf_gain_db: r.link.bf_gain_db,
            gnb_array: PanelArray::of(num.gnb_antennas),
            ue_array: PanelArray::of(num.ue_antennas),
            los_geometric: r.link.los_mode == LosMode::Geometric,
            noise_ue_dbm: thermal_noise_dbm(num.bandwidth_hz, num.ue_noise_figure_db),
            noise_ue_mw: db_to_lin(thermal_noise_dbm(num.bandwidth_hz, num.ue_noise_figure_db)),
            noise_gnb_dbm: thermal_noise_dbm(num.bandwidth_hz, num.noise_figure_db),
            slot: num.slot,
            num,
        }
    }

    fn harq(&self) -> Harq {
        Harq::new(self.num.harq_processes, self.harq_max_tx)
    }

    /// The first slot boundary of this cell at or after `t`.
    fn align(&self, t: SimTime) -> SimTime {
        grid::align(t, self.slot)
    }

    /// `s <= self.align(t)` for a slot boundary `s`, without the division.
    #[inline]
    fn boundary_by(&self, s: SimTime, t: SimTime) -> bool {
        grid::boundary_by(s, t, self.slot)
    }
}

struct Cell {
    node: NodeId,
    position: Vec3,
    radio: Radio,
    /// The legs this cell serves: (UE, leg index in the UE's `legs`).
    legs: Vec<(UeId, usize)>,
    /// Time of the slot event the world holds for this cell, if any.
    scheduled: Option<SimTime>,
    /// Start of the last slot this cell ran (a slot never runs twice).
    last_slot: Option<SimTime>,
    deliveries: VecDeque<Delivery>,
    rng: SimRng,
    /// Decoded transport-block bytes, [DL, UL].
    bytes: [u64; 2],
    /// Downlink sent in the last two slots (for `Interference::Active`).
    activity: Activity,
    /// The beams it aimed at its UEs (for `Interference::Active`).
    beams: BeamTable,
}

/// One leg of a UE's radio connection: a cell serving the UE and what belongs to that
/// cell's link: the leg's RLC entities at both ends, its HARQ processes, channel reports
/// and grants. Leg 0 is the primary (master) cell's; leg 1, if any, the secondary's (dual
/// connectivity: a split bearer whose PDCP entity, at the master, feeds both legs,
/// TS 37.340 §4.2.2 [TS37340 §4.2.2]).
struct Leg {
    cell: CellId,
    /// RLC at `[gNB end, UE end]`: the transmitter of direction d is `rlc[d.index()]` (the
    /// gNB end transmits downlink); the receiver is the other end.
    rlc: [Rlc; 2],
    harq: [Harq; 2],
    los: bool,
    /// Current SINR [DL, UL], dB.
    sinr: [f64; 2],
    /// Downlink signal power at the last channel update, dBm; `None` when a trace or an
    /// outage sets the SINR instead of the channel.
    dl_signal_dbm: Option<f64>,
    /// The other cells' links to this leg's UE at the last channel update (the
    /// interference modes with beams: `Active`, `FullBuffer`).
    interferers: Vec<InterfererLink>,
    /// Per interferer (same order), the gains of its beams toward this leg's UE.
    beam_gains: Vec<BeamGains>,
    /// (time, DL SINR, UL SINR) of recent channel updates, for delayed reports.
    sinr_hist: VecDeque<(SimTime, f64, f64)>,
    /// (slot time, UE buffer status bytes) snapshots, for the delayed BSR.
    bsr_hist: VecDeque<(SimTime, u64)>,
    /// (slot time, bytes) of uplink grants, to discount what was already granted.
    ul_granted: VecDeque<(SimTime, u64)>,
    avg_bytes: [f64; 2],
    mcs: [Option<u8>; 2],
    /// The last block error probability of each direction's transmitter [DL, UL].
    tbler: [TblerMemo; 2],
    /// The last MCS chosen for each direction [DL, UL], by reported SINR.
    mcs_memo: [McsMemo; 2],
}

impl Leg {
    /// A leg to `cell` whose RLC entities draw on the UE's `pool` of element lists.
    fn new(cell: CellId, rlc: &RlcConfig, radio: &Radio, pool: &SharedPool) -> Leg {
        Leg {
            cell,
            rlc: Rlc::pair(rlc, pool),
            harq: [radio.harq(), radio.harq()],
            los: false,
            sinr: [NO_SIGNAL_DB; 2],
            dl_signal_dbm: None,
            interferers: Vec::new(),
            beam_gains: Vec::new(),
            sinr_hist: VecDeque::new(),
            bsr_hist: VecDeque::new(),
            ul_granted: VecDeque::new(),
            avg_bytes: [0.0; 2],
            mcs: [None; 2],
            tbler: [TblerMemo::default(); 2],
            mcs_memo: [McsMemo::default(); 2],
        }
    }
    fn rlc_tx(&mut self, d: Direction) -> &mut Rlc {
        &mut self.rlc[d.index()]
    }
    fn rlc_rx(&mut self, d: Direction) -> &mut Rlc {
        &mut self.rlc[d.reverse().index()]
    }
}

struct Ue {
    node: NodeId,
    mobility: Mobility,
    outages: Outages,
    trace: Option<SinrTrace>,
    /// The channel to every cell, by cell.
    chans: Vec<LinkChannel>,
    next_channel: SimTime,
    position: Vec3,
    /// Positions of the last two channel updates (beam targets of interferers).
    positions: PositionHistory,
    /// The bearings to and from each cell at `position` (interference).
    bearings: Bearings,
    /// The RLC PDU element lists of the UE's legs, kept across handovers, so that a new
    /// leg does not allocate its working set of lists again.
    pieces: SharedPool,
    /// `legs[0]`: the primary cell's; `legs[1]`: the secondary's, with dual connectivity.
    legs: Vec<Leg>,
    /// The bearer's PDCP entities, one per direction, shared by the legs.
    pdcp_tx: [PdcpTx; 2],
    pdcp_rx: [PdcpRx; 2],
    view: UeView,
    stats: UeStats,
}

/// The whole radio access network of a run.
pub struct Ran {
    channel_update: SimTime,
    interference: Interference,
    boxes: Vec<Aabb>,
    /// Vehicles on lanes: moving boxes.
    traffic: Traffic,
    cells: Vec<Cell>,
    ues: Vec<Ue>,
    // Scratch buffers reused every slot.
    sdus: Vec<Sdu>,
    pdcp_out: Vec<Sdu>,
    cands: Vec<Candidate>,
    cand_key: Vec<(UeId, usize, Direction, u8)>,
    rlc_cfg: RlcConfig,
    /// Link gain to each cell at the last channel update of a UE (scratch), dB.
    gains: Vec<f64>,
    alloc_out: Vec<u16>,
    /// The scheduler's working lists, kept between slots.
    allocator: crate::mac::scheduler::Allocator,
    /// Emptied PDU lists of delivered blocks, reused for new ones (no allocation per block;
    /// as many as blocks in flight, so none is dropped).
    pdu_lists: Spares<Pdu>,
    /// A measurement's received powers, LOS flags and interferer powers (`measure.rs`),
    /// kept for the next.
    measure_scratch: (Vec<f64>, Vec<bool>, Vec<f64>),
    /// The running cell's legs, copied at the start of its slot.
    slot_legs: Vec<(UeId, usize)>,
    /// Measurement-based handover, when on.
    ho: Option<handover::HoState>,
    /// Every change of serving cell (and failed attempt), in time order.
    ho_records: Vec<HandoverRecord>,
    /// Coordinated dual connectivity, when on (`dual.rs`).
    dual: Option<dual::DualState>,
}

impl Ran {
    /// Builds the RAN; every random process draws from a stream named after its cell or UE.
    pub fn new(cfg: &RanConfig, rng: &RngStreams) -> Ran {
        let cells: Vec<Cell> = cfg
            .cells
            .iter()
            .map(|c| Cell {
                node: c.node,
                position: c.position,
                radio: Radio::new(&c.radio),
                legs: Vec::new(),
                scheduled: None,
                last_slot: None,
                deliveries: VecDeque::new(),
                rng: rng.stream(&format!("ran/cell/{}/bler", c.name)),
                bytes: [0; 2],
                activity: Activity::new(),
                beams: BeamTable::default(),
            })
            .collect();
        let mut ran = Ran {
            channel_update: cfg.channel_update.max(SimTime::from_ns(1)),
            interference: cfg.interference,
            boxes: cfg.boxes.clone(),
            traffic: Traffic::new(cfg.vehicles.clone()),
            cells,
            ues: Vec::new(),
            sdus: Vec::new(),
            pdcp_out: Vec::new(),
            cands: Vec::new(),
            cand_key: Vec::new(),
            alloc_out: Vec::new(),
            allocator: Default::default(),
            pdu_lists: Spares::new(usize::MAX),
            measure_scratch: Default::default(),
            slot_legs: Vec::new(),
            rlc_cfg: cfg.rlc.clone(),
            gains: Vec::new(),
            ho: (cfg.handover.algorithm != Algorithm::None)
                .then(|| handover::HoState::new(&cfg.handover, cfg.cells.len(), cfg.ues.len())),
            ho_records: Vec::new(),
            dual: cfg
                .dual
                .as_ref()
                .map(|d| dual::DualState::new(d, cfg.cells.len(), cfg.ues.len())),
        };
        // Handover re-establishes RLC: PDCP keeps what the receivers may lack, to send it
        // again (lossless) or to free it (its packets are the world's); so do the
        // coordinated switches of dual connectivity.
        let retain = ran.ho.is_some() || ran.dual.is_some();
        let pdcp_tx = || {
            if retain {
                PdcpTx::retaining(&cfg.pdcp)
            } else {
                PdcpTx::new(&cfg.pdcp)
            }
        };
        for (i, u) in cfg.ues.iter().enumerate() {
            let chans = cfg
                .cells
                .iter()
                .map(|c| {
                    let mut p = c.radio.link.clone();
                    if !u.indoor {
                        p.o2i = None;
                    }
                    LinkChannel::new(
                        &p,
                        rng.stream(&format!("ran/ue/{}/link/{}", u.name, c.name)),
                    )
                })
                .collect();
            let id = UeId::from_index(i);
            let pieces = SharedPool::default();
            let mut legs = vec![Leg::new(
                u.cell,
                &cfg.rlc,
                &ran.cells[u.cell.index()].radio,
                &pieces,
            )];
            ran.cells[u.cell.index()].legs.push((id, 0));
            if let Some(c) = u.secondary.filter(|&c| c != u.cell) {
                legs.push(Leg::new(c, &cfg.rlc, &ran.cells[c.index()].radio, &pieces));
                ran.cells[c.index()].legs.push((id, 1));
            }
            let mut mobility = Mobility::new(
                &u.mobility,
                rng.stream(&format!("ran/ue/{}/mobility", u.name)),
            );
            // A trajectory does not depend on when it is queried, so asking for the start
            // here changes nothing later.
            let start = mobility.position(SimTime::ZERO);
            ran.ues.push(Ue {
                node: u.node,
                mobility,
                outages: Outages::new(u.outages.clone()),
                trace: u.sinr_trace.clone(),
                chans,
                next_channel: SimTime::ZERO,
                position: Vec3::default(),
                positions: PositionHistory::new(start),
                bearings: Default::default(),
                pieces,
                legs,
                pdcp_tx: [pdcp_tx(), pdcp_tx()],
                pdcp_rx: [PdcpRx::new(&cfg.pdcp), PdcpRx::new(&cfg.pdcp)],
                view: UeView::default(),
                stats: UeStats::default(),
            });
        }
        for u in 0..ran.ues.len() {
            ran.update_channel(UeId::from_index(u), SimTime::ZERO);
        }
        ran
    }

    /// The numerology of cell `c`.
    pub fn numerology(&self, c: CellId) -> &Numerology {
        &self.cells[c.index()].radio.num
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.cells.len()
    }

    /// True if cell `c` holds a slot event at or before its first slot boundary at or
    /// after `t`: then a packet entering its buffers at `t` or later wakes nothing
    /// ([`Self::enqueue`] returns no slot), so the world may admit such packets late, up
    /// to that slot (`run/lazy.rs` in the world).
    pub fn slot_due_by(&self, c: CellId, t: SimTime) -> bool {
        let cell = &self.cells[c.index()];
        cell.scheduled.is_some_and(|s| cell.radio.boundary_by(s, t))
    }

    /// Number of UEs.
    pub fn ues(&self) -> usize {
        self.ues.len()
    }

    /// The world node of cell `c`'s gNB site.
    pub fn cell_node(&self, c: CellId) -> NodeId {
        self.cells[c.index()].node
    }

    /// The world node of UE `ue`.
    pub fn ue_node(&self, ue: UeId) -> NodeId {
        self.ues[ue.index()].node
    }

    /// The cell serving UE `ue` now (with dual connectivity, the primary cell).
    pub fn serving_cell(&self, ue: UeId) -> CellId {
        self.ues[ue.index()].legs[0].cell
    }

    /// UE `ue`'s secondary cell, if it is dually connected.
    pub fn secondary_cell(&self, ue: UeId) -> Option<CellId> {
        self.ues[ue.index()].legs.get(1).map(|l| l.cell)
    }

    /// The cross-layer view of UE `ue`.
    pub fn view(&self, ue: UeId) -> &dyn LinkView {
        &self.ues[ue.index()].view
    }

    /// Whether UE `ue`'s view records its grants (on by default; the world turns it off
    /// for UEs none of whose endpoints reads them).
    pub fn keep_grants(&mut self, ue: UeId, on: bool) {
        self.ues[ue.index()].view.keep_grants(on);
    }

    /// Bytes waiting in UE `ue`'s RLC transmission buffers for direction `dir`, over all
    /// its legs, as they are now (the view's figure is as of the last slot).
    pub fn rlc_tx_bytes(&self, ue: UeId, dir: Direction) -> u64 {
        self.ues[ue.index()]
            .legs
            .iter()
            .map(|l| l.rlc[dir.index()].tx_buffer_bytes())
            .sum()
    }

    /// SDU bytes UE `ue`'s RLC transmission buffer for direction `dir` still takes (the
    /// primary leg's, which takes new SDUs unless a split sends them to the secondary).
    pub fn rlc_room_bytes(&self, ue: UeId, dir: Direction) -> u64 {
        self.ues[ue.index()].legs[0].rlc[dir.index()].sdu_room_bytes()
    }

    /// Counters of UE `ue`.
    pub fn ue_stats(&self, ue: UeId) -> &UeStats {
        &self.ues[ue.index()].stats
    }

    /// RLC counters of UE `ue`'s primary leg: [gNB end, UE end].
    pub fn rlc_stats(&self, ue: UeId) -> [&RlcStats; 2] {
        let l = &self.ues[ue.index()].legs[0];
        [l.rlc[0].stats(), l.rlc[1].stats()]
    }

    /// Decoded transport-block bytes of cell `c`, [DL, UL].
    pub fn cell_bytes(&self, c: CellId) -> [u64; 2] {
        self.cells[c.index()].bytes
    }

    /// A packet enters the RAN: downlink at the serving cell's gNB of `ue`, uplink at
    /// `ue`. Returns `Err(())` if the RLC buffer was full (the packet is dropped and
    /// counted), else the cell and time at which the world must run a slot, if it must
    /// schedule one.
    #[allow(clippy::result_unit_err)]
    pub fn enqueue(
        &mut self,
        now: SimTime,
        ue: UeId,
        dir: Direction,
        id: u64,
        bytes: u32,
    ) -> Result<Option<(CellId, SimTime)>, ()> {
        let d = dir.index();
        let leg = self.split_leg(ue, dir, now);
        let u = &mut self.ues[ue.index()];
        // Admission before numbering (see `PdcpTx::peek`): a refused packet takes no COUNT.
        let sdu = u.pdcp_tx[d].peek(id, bytes);
        if u.legs[leg].rlc_tx(dir).send_sdu(now, sdu).is_err() {
            u.stats.buffer_drops[d] += 1;
            return Err(());
        }
        u.pdcp_tx[d].commit();
        u.pdcp_tx[d].retain(sdu);
        u.pdcp_tx[d].release_received(u.pdcp_rx[d].rx_deliv());
        let c = u.legs[leg].cell;
        Ok(self.wake(c, now))
    }

    /// The leg a new PDCP SDU of UE `ue` in direction `dir` takes. With one leg, that one.
    /// With dual connectivity, fast switching as seed 003's LTE–mmWave setup uses it
    /// [SEED003]: the secondary (mmWave) leg while the SINR its scheduler knows supports
    /// some MCS, else the primary (LTE anchor) leg. A switch moves only new SDUs: those
    /// already in a leg's RLC buffer stay there.
    ///
    /// With coordinated dual connectivity (`dual.rs`) the coordinator's choice instead.
    fn split_leg(&self, ue: UeId, dir: Direction, now: SimTime) -> usize {
        let u = &self.ues[ue.index()];
        if u.legs.len() < 2 {
            return 0;
        }
        if let Some(l) = self.dual.as_ref().and_then(|d| d.active_leg(ue)) {
            return l;
        }
        let amc = &self.cells[u.legs[1].cell.index()].radio.amc;
        let sinr = self.reported_sinr(ue, 1, dir, now);
        let usable = match dir {
            Direction::Downlink => amc.dl_mcs(sinr).is_some(),
            Direction::Uplink => amc.ul_mcs(sinr).is_some(),
        };
        if usable {
            1
        } else {
            0
        }
    }

    /// UE `ue` becomes dually connected from `now`: cell `to` adds a secondary leg to its
    /// bearer (secondary node addition, TS 37.340 §10.2 [TS37340 §10.2]; a split bearer
    /// with new RLC entities at both ends of the new leg). The UE's primary cell and its
    /// leg are unchanged. Does nothing if `to` already serves the UE or the UE already has
    /// a secondary cell. Simplification: the secondary's node receives the split traffic
    /// from the master's PDCP, and returns uplink to it, with no X2/Xn delay.
    pub fn add_secondary(&mut self, now: SimTime, ue: UeId, to: CellId) {
        let u = &self.ues[ue.index()];
        if u.legs.len() > 1 || u.legs[0].cell == to {
            return;
        }
        let leg = Leg::new(to, &self.rlc_cfg, &self.cells[to.index()].radio, &u.pieces);
        self.cells[to.index()].legs.push((ue, 1));
        let u = &mut self.ues[ue.index()];
        u.legs.push(leg);
        u.next_channel = now;
        self.update_channel(ue, now);
    }

    /// Makes UE `ue` served by cell `to` from `now` (a handover's execution, or a scripted
    /// switch). Returns the slot event the world must schedule for the new cell, if any.
    ///
    /// What moves and what is reset, following the handover procedure's effect on the
    /// layers [TS38300 §9.2.3.2] with one simplification:
    /// - MAC is reset [TS38321 §5.12]: every HARQ process of both directions
    ///   is flushed, and the blocks in them are lost (counted in `harq_reset_drops`); RLC
    ///   AM recovers their contents by ARQ, RLC UM does not. The HARQ entity is rebuilt
    ///   with the new cell's number of processes and transmissions.
    /// - Channel-quality and buffer-status history is the old cell's, so it is cleared:
    ///   the new cell schedules from fresh reports.
    /// - Blocks already decoded by the old cell are still delivered (they were received
    ///   before the switch).
    /// - **Simplification:** the bearer (PDCP and RLC entities with their buffers and
    ///   state) moves with the UE intact, as if the source forwarded it to the target
    ///   with no delay, and the UE is never unserved. This is the scripted handover's
    ///   instant form; the measurement-based handover (`handover.rs`) re-establishes RLC
    ///   [TS38322 §5.1.2], sends PDCP SDUs again [TS38323 §5.1.2] and interrupts service.
    /// - The change is recorded in [`Ran::handover_records`] (kind "scripted").
    pub fn switch_serving(
        &mut self,
        now: SimTime,
        ue: UeId,
        to: CellId,
    ) -> Option<(CellId, SimTime)> {
        let from = self.ues[ue.index()].legs[0].cell;
        if from == to {
            return None;
        }
        debug_assert!(
            self.secondary_cell(ue) != Some(to),
            "validated: no handover to a UE's own secondary cell"
        );
        self.cells[from.index()]
            .legs
            .retain(|&(u, l)| (u, l) != (ue, 0));
        self.cells[to.index()].legs.push((ue, 0));
        let radio = &self.cells[to.index()].radio;
        let fresh = [radio.harq(), radio.harq()];
        let u = &mut self.ues[ue.index()];
        let leg = &mut u.legs[0];
        for d in Direction::BOTH {
            let i = d.index();
            u.stats.harq_reset_drops[i] += leg.harq[i].undecoded_blocks() as u64;
        }
        leg.harq = fresh;
        leg.cell = to;
        leg.sinr_hist.clear();
        leg.bsr_hist.clear();
        leg.ul_granted.clear();
        leg.avg_bytes = [0.0; 2];
        u.stats.cell_switches += 1;
        self.ho_records.push(HandoverRecord {
            at: now,
            ue,
            from,
            to,
            kind: HandoverKind::Scripted,
            interruption: SimTime::ZERO,
            forwarded_bytes: 0,
            success: true,
        });
        let u = &mut self.ues[ue.index()];
        // The new serving link's channel, now.
        u.next_channel = now;
        self.update_channel(ue, now);
        self.wake(to, now)
    }

    /// The one-way delay between the sites of every pair of cells, `[a · cells + b]`:
    /// zero between two cells of one site, `delay(a, b)` between sites joined by a wired
    /// link (Xn/X2), else `default`. Shared by the handover's Xn and the dual-connectivity
    /// coordinator's X2.
    fn site_delays(
        &self,
        delay: &dyn Fn(NodeId, NodeId) -> Option<SimTime>,
        default: SimTime,
    ) -> Vec<SimTime> {
        let nodes: Vec<NodeId> = self.cells.iter().map(|c| c.node).collect();
        let mut m = Vec::with_capacity(nodes.len() * nodes.len());
        for &a in &nodes {
            for &b in &nodes {
                m.push(if a == b {
                    SimTime::ZERO
                } else {
                    delay(a, b).unwrap_or(default)
                });
            }
        }
        m
    }

    /// Makes sure cell `c` runs a slot at the first boundary at or after `now`.
    fn wake(&mut self, c: CellId, now: SimTime) -> Option<(CellId, SimTime)> {
        let cell = &mut self.cells[c.index()];
        // Usually the cell's next slot is already due by `now`'s first boundary.
        if cell
            .scheduled
            .is_some_and(|s| cell.radio.boundary_by(s, now))
        {
            return None;
        }
        let mut t = cell.radio.align(now);
        if let Some(last) = cell.last_slot {
            t = t.max(last + cell.radio.slot);
        }
        match cell.scheduled {
            Some(s) if s <= t => None,
            _ => {
                cell.scheduled = Some(t);
                Some((c, t))
            }
        }
    }
}
