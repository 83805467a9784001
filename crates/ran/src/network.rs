//! The radio access network of a run: cells (gNBs), UEs, their bearers and channels,
//! advanced slot by slot.
//!
//! # Data path
//! Downlink: the world hands a packet to [`Ran::enqueue`] → PDCP (header) → the gNB's RLC
//! transmission buffer (drop-tail at the configured size) → at a slot the scheduler grants
//! units → the MCS chosen from the SINR the UE reported `cqi_delay` ago gives the
//! transport block size → RLC fills the block (status, retransmissions, new data) → the
//! block is decoded or not, drawn from the BLER at the SINR of *this* transmission (soft
//! combined with earlier ones) → a decoded block reaches the receiving RLC one slot after
//! the slot ends (decoding latency) → in-order SDUs → PDCP → back to the world at the UE's
//! node. Uplink is the mirror image, except that the scheduler sizes grants from the UE's
//! buffer status as it was `bsr_delay` ago, minus what it granted since (scheduling
//! request / buffer status report delay), and the UE's RLC fills the granted block.
//!
//! # Time
//! A cell runs one event per slot while it has anything to do (data in either direction,
//! busy HARQ processes, blocks being decoded) and sleeps otherwise; RLC/PDCP timers wake
//! it at the first slot boundary at or after they expire, and new data wakes it at the
//! next slot boundary. Timers therefore have slot granularity (100 µs in the 2017
//! preset), as in ns-3 where RLC runs off the MAC's subframe indications.
//!
//! # Channel
//! Each UE's position, LOS state and link gains are updated every `channel_update`
//! (lazily, when its cell runs or when metrics are sampled). Downlink SINR is the serving
//! gNB's signal over the UE's noise plus, when `interference` is on, every other gNB at
//! full power with no beam alignment (their beams serve other UEs): a pessimistic
//! full-load assumption. Uplink SINR has no interference term (one UE per slot per cell,
//! other cells' UEs ignored). Forced outages give no signal at all.
//!
//! # Simplifications (against ns-3 mmWave)
//! - One radio bearer per UE carries all its flows.
//! - Decoding latency is one slot for every preset; the HARQ feedback delay is the
//!   preset's.
//! - The DCI lead time (L1/L2 control latency) is folded into the CQI and BSR delays
//!   instead of scheduling grants ahead of the slot they are for.
//! - No MAC subheaders (ns-3 mmWave 2017 assumes 0 MAC header bytes too).

use crate::config::RanConfig;
use crate::mac::harq::{Harq, Tb};
use crate::mac::scheduler::{allocate, Candidate, SchedulerKind};
use crate::pdcp::{PdcpRx, PdcpTx};
use crate::phy::amc::Amc;
use crate::phy::bler::tb_error_prob;
use crate::phy::numerology::{Allocation, Duplex, Numerology, SlotKind};
use crate::rlc::{Pdu, Rlc, RlcStats, Sdu};
use crate::view::UeView;
use mmtsim_channel::blockage::Outages;
use mmtsim_channel::budget::{sinr_db, thermal_noise_dbm};
use mmtsim_channel::geometry::{line_of_sight, Aabb, Vec3};
use mmtsim_channel::link::{LinkChannel, LosMode};
use mmtsim_channel::mobility::Mobility;
use mmtsim_channel::sinr_trace::SinrTrace;
use mmtsim_engine::{RngStreams, SimRng, SimTime};
use mmtsim_net::linkview::{Direction, Grant, LinkView};
use rand::Rng;
use std::collections::VecDeque;

/// SINR used for "no signal" (outage): far below any MCS threshold.
pub const NO_SIGNAL_DB: f64 = -300.0;

const DL: usize = 0;
const UL: usize = 1;

fn dir_of(d: usize) -> Direction {
    if d == DL {
        Direction::Downlink
    } else {
        Direction::Uplink
    }
}

/// What a slot (or an enqueue) hands back to the world.
#[derive(Debug, Default)]
pub struct RanOutput {
    /// Packets that left the RAN: (packet id, node where they come out: the UE for
    /// downlink, the gNB for uplink).
    pub delivered: Vec<(u64, u32)>,
    /// Packets an RLC buffer's AQM dropped from its head (the world frees them).
    pub dropped: Vec<u64>,
}

/// Counters of one UE.
#[derive(Clone, Debug, Default)]
pub struct UeStats {
    /// Transport blocks sent (first transmissions), [DL, UL].
    pub tbs: [u64; 2],
    /// HARQ retransmissions, [DL, UL].
    pub harq_retx: [u64; 2],
    /// Blocks dropped after the last HARQ transmission failed, [DL, UL].
    pub harq_failures: [u64; 2],
    /// Transmissions not decoded, [DL, UL].
    pub tb_errors: [u64; 2],
    /// Transport-block bytes decoded, [DL, UL].
    pub decoded_bytes: [u64; 2],
    /// SDUs (packets) refused by a full RLC buffer, [DL at the gNB, UL at the UE].
    pub buffer_drops: [u64; 2],
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
    /// Line of sight to the serving gNB.
    pub los: bool,
    /// RLC transmission-buffer bytes [gNB (downlink), UE (uplink)].
    pub rlc_bytes: [u64; 2],
    /// Position.
    pub position: Vec3,
}

struct Delivery {
    at: SimTime,
    ue: usize,
    dir: usize,
    pdus: Vec<Pdu>,
}

struct Cell {
    node: u32,
    ues: Vec<usize>,
    /// Time of the slot event the world holds for this cell, if any.
    scheduled: Option<SimTime>,
    /// Start of the last slot this cell ran (a slot never runs twice).
    last_slot: Option<SimTime>,
    deliveries: VecDeque<Delivery>,
    rng: SimRng,
    /// Decoded transport-block bytes, [DL, UL].
    bytes: [u64; 2],
}

struct Ue {
    node: u32,
    cell: usize,
    mobility: Mobility,
    outages: Outages,
    trace: Option<SinrTrace>,
    chans: Vec<LinkChannel>,
    next_channel: SimTime,
    position: Vec3,
    los: bool,
    /// Current SINR [DL, UL], dB.
    sinr: [f64; 2],
    /// (time, DL SINR, UL SINR) of recent channel updates, for delayed reports.
    sinr_hist: VecDeque<(SimTime, f64, f64)>,
    /// Bearer ends: [gNB, UE]. The transmitter of direction d is `rlc[d]`.
    rlc: [Rlc; 2],
    pdcp_tx: [PdcpTx; 2],
    pdcp_rx: [PdcpRx; 2],
    harq: [Harq; 2],
    /// (slot time, UE buffer status bytes) snapshots, for the delayed BSR.
    bsr_hist: VecDeque<(SimTime, u64)>,
    /// (slot time, bytes) of uplink grants, to discount what was already granted.
    ul_granted: VecDeque<(SimTime, u64)>,
    avg_bytes: [f64; 2],
    mcs: [Option<u8>; 2],
    view: UeView,
    stats: UeStats,
}

/// The whole radio access network of a run.
pub struct Ran {
    num: Numerology,
    amc: Amc,
    scheduler: SchedulerKind,
    harq_max_tx: u8,
    cqi_delay: SimTime,
    bsr_delay: SimTime,
    channel_update: SimTime,
    interference: bool,
    los_geometric: bool,
    bf_gain_db: f64,
    noise_ue_dbm: f64,
    noise_gnb_dbm: f64,
    boxes: Vec<Aabb>,
    gnb_pos: Vec<Vec3>,
    cells: Vec<Cell>,
    ues: Vec<Ue>,
    slot: SimTime,
    // Scratch buffers reused every slot.
    sdus: Vec<Sdu>,
    pdcp_out: Vec<Sdu>,
    cands: Vec<Candidate>,
    cand_key: Vec<(usize, usize, u8)>,
    alloc_out: Vec<u16>,
    interf: Vec<f64>,
}

/// Proportional-fair averaging constant, in slots (ns-3's PF uses a similar EWMA).
const PF_WINDOW_SLOTS: f64 = 100.0;

impl Ran {
    /// Builds the RAN; every random process draws from a stream named after its cell or UE.
    pub fn new(cfg: &RanConfig, rng: &RngStreams) -> Ran {
        let num = cfg.numerology.clone();
        let amc = Amc::new(&num);
        let noise_ue_dbm = thermal_noise_dbm(num.bandwidth_hz, num.ue_noise_figure_db);
        let noise_gnb_dbm = thermal_noise_dbm(num.bandwidth_hz, num.noise_figure_db);
        let cells: Vec<Cell> = cfg
            .gnbs
            .iter()
            .map(|g| Cell {
                node: g.node,
                ues: Vec::new(),
                scheduled: None,
                last_slot: None,
                deliveries: VecDeque::new(),
                rng: rng.stream(&format!("ran/cell/{}/bler", g.name)),
                bytes: [0; 2],
            })
            .collect();
        let mut ran = Ran {
            amc,
            scheduler: cfg.scheduler,
            harq_max_tx: if cfg.harq { num.harq_max_tx } else { 1 },
            cqi_delay: cfg.cqi_delay,
            bsr_delay: cfg.bsr_delay,
            channel_update: cfg.channel_update.max(SimTime::from_ns(1)),
            interference: cfg.interference,
            los_geometric: cfg.link.los_mode == LosMode::Geometric,
            bf_gain_db: cfg.link.bf_gain_db,
            noise_ue_dbm,
            noise_gnb_dbm,
            boxes: cfg.boxes.clone(),
            gnb_pos: cfg.gnbs.iter().map(|g| g.position).collect(),
            cells,
            ues: Vec::new(),
            slot: num.slot,
            sdus: Vec::new(),
            pdcp_out: Vec::new(),
            cands: Vec::new(),
            cand_key: Vec::new(),
            alloc_out: Vec::new(),
            interf: Vec::new(),
            num,
        };
        for (i, u) in cfg.ues.iter().enumerate() {
            let chans = cfg
                .gnbs
                .iter()
                .map(|g| {
                    let mut p = cfg.link.clone();
                    if !u.indoor {
                        p.o2i = None;
                    }
                    LinkChannel::new(
                        &p,
                        rng.stream(&format!("ran/ue/{}/link/{}", u.name, g.name)),
                    )
                })
                .collect();
            ran.cells[u.gnb].ues.push(i);
            ran.ues.push(Ue {
                node: u.node,
                cell: u.gnb,
                mobility: Mobility::new(
                    &u.mobility,
                    rng.stream(&format!("ran/ue/{}/mobility", u.name)),
                ),
                outages: Outages::new(u.outages.clone()),
                trace: u.sinr_trace.clone(),
                chans,
                next_channel: SimTime::ZERO,
                position: Vec3::default(),
                los: false,
                sinr: [NO_SIGNAL_DB; 2],
                sinr_hist: VecDeque::new(),
                rlc: [Rlc::new(&cfg.rlc), Rlc::new(&cfg.rlc)],
                pdcp_tx: [PdcpTx::new(&cfg.pdcp), PdcpTx::new(&cfg.pdcp)],
                pdcp_rx: [PdcpRx::new(&cfg.pdcp), PdcpRx::new(&cfg.pdcp)],
                harq: [
                    Harq::new(ran.num.harq_processes, ran.harq_max_tx),
                    Harq::new(ran.num.harq_processes, ran.harq_max_tx),
                ],
                bsr_hist: VecDeque::new(),
                ul_granted: VecDeque::new(),
                avg_bytes: [0.0; 2],
                mcs: [None; 2],
                view: UeView::default(),
                stats: UeStats::default(),
            });
        }
        for u in 0..ran.ues.len() {
            ran.update_channel(u, SimTime::ZERO);
        }
        ran
    }

    /// The numerology in use.
    pub fn numerology(&self) -> &Numerology {
        &self.num
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.cells.len()
    }

    /// Number of UEs.
    pub fn ues(&self) -> usize {
        self.ues.len()
    }

    /// The cross-layer view of UE `ue`.
    pub fn view(&self, ue: usize) -> &dyn LinkView {
        &self.ues[ue].view
    }

    /// Counters of UE `ue`.
    pub fn ue_stats(&self, ue: usize) -> &UeStats {
        &self.ues[ue].stats
    }

    /// RLC counters of UE `ue`'s bearer: [gNB end, UE end].
    pub fn rlc_stats(&self, ue: usize) -> [&RlcStats; 2] {
        [self.ues[ue].rlc[0].stats(), self.ues[ue].rlc[1].stats()]
    }

    /// Decoded transport-block bytes of cell `c`, [DL, UL].
    pub fn cell_bytes(&self, c: usize) -> [u64; 2] {
        self.cells[c].bytes
    }

    /// The first slot boundary at or after `t`.
    fn align(&self, t: SimTime) -> SimTime {
        let s = self.slot.ns();
        SimTime::from_ns(t.ns().div_ceil(s) * s)
    }

    /// A packet enters the RAN: downlink at the gNB of `ue`, uplink at `ue`. Returns
    /// `Err(())` if the RLC buffer was full (the packet is dropped and counted), else the
    /// time at which the world must run a slot of the UE's cell, if it must schedule one.
    #[allow(clippy::result_unit_err)]
    pub fn enqueue(
        &mut self,
        now: SimTime,
        ue: usize,
        dir: Direction,
        id: u64,
        bytes: u32,
    ) -> Result<Option<(usize, SimTime)>, ()> {
        let d = if dir == Direction::Downlink { DL } else { UL };
        let u = &mut self.ues[ue];
        // Admission before numbering (see `PdcpTx::peek`): a refused packet takes no COUNT.
        let sdu = u.pdcp_tx[d].peek(id, bytes);
        if u.rlc[d].send_sdu(now, sdu).is_err() {
            u.stats.buffer_drops[d] += 1;
            return Err(());
        }
        u.pdcp_tx[d].commit();
        let c = u.cell;
        Ok(self.wake(c, now))
    }

    /// Makes sure cell `c` runs a slot at the first boundary at or after `now`.
    fn wake(&mut self, c: usize, now: SimTime) -> Option<(usize, SimTime)> {
        let mut t = self.align(now);
        if let Some(last) = self.cells[c].last_slot {
            t = t.max(last + self.slot);
        }
        match self.cells[c].scheduled {
            Some(s) if s <= t => None,
            _ => {
                self.cells[c].scheduled = Some(t);
                Some((c, t))
            }
        }
    }

    /// Runs slot `now` of cell `c` if the world's event is the current one (stale events are
    /// ignored). Returns the time of the cell's next slot event, if it needs one.
    pub fn slot(&mut self, now: SimTime, c: usize, out: &mut RanOutput) -> Option<SimTime> {
        if self.cells[c].scheduled != Some(now) {
            return None;
        }
        self.cells[c].scheduled = None;
        self.cells[c].last_slot = Some(now);
        self.deliver_due(now, c, out);
        let ues = std::mem::take(&mut self.cells[c].ues);
        for &u in &ues {
            self.housekeeping(now, u, out);
        }
        self.schedule(now, c, &ues);
        for &u in &ues {
            for side in 0..2 {
                self.sdus.clear();
                self.ues[u].rlc[side].take_dropped(&mut self.sdus);
                out.dropped.extend(self.sdus.iter().map(|s| s.id));
            }
        }
        let mut busy = !self.cells[c].deliveries.is_empty();
        let mut next_timer = SimTime::NEVER;
        for &u in &ues {
            let ue = &mut self.ues[u];
            ue.view.rlc_bytes = [ue.rlc[0].tx_buffer_bytes(), ue.rlc[1].tx_buffer_bytes()];
            ue.view.sinr_db = ue.sinr[DL];
            let pending = |r: &Rlc| {
                let b = r.buffer_status(now);
                b.new_bytes + b.retx_bytes + b.status_bytes > 0
            };
            busy |= pending(&ue.rlc[0])
                || pending(&ue.rlc[1])
                || !ue.harq[0].is_idle()
                || !ue.harq[1].is_idle();
            for t in [
                ue.rlc[0].next_timer(),
                ue.rlc[1].next_timer(),
                ue.pdcp_rx[0].next_timer(),
                ue.pdcp_rx[1].next_timer(),
            ]
            .into_iter()
            .flatten()
            {
                next_timer = next_timer.min(t);
            }
        }
        self.cells[c].ues = ues;
        let next = if busy {
            now + self.slot
        } else if next_timer != SimTime::NEVER {
            self.align(next_timer.max(now + self.slot))
        } else {
            return None;
        };
        self.cells[c].scheduled = Some(next);
        Some(next)
    }

    /// Hands decoded blocks due by `now` to the receiving RLC and PDCP.
    fn deliver_due(&mut self, now: SimTime, c: usize, out: &mut RanOutput) {
        while self.cells[c]
            .deliveries
            .front()
            .is_some_and(|d| d.at <= now)
        {
            let dv = self.cells[c].deliveries.pop_front().expect("checked");
            let ue = &mut self.ues[dv.ue];
            self.sdus.clear();
            for pdu in dv.pdus {
                ue.rlc[1 - dv.dir].receive_pdu(now, pdu, &mut self.sdus);
            }
            Self::up(
                now,
                ue,
                dv.dir,
                &mut self.sdus,
                &mut self.pdcp_out,
                self.cells[c].node,
                out,
            );
        }
    }

    /// In-order RLC SDUs of direction `d` go through PDCP and out of the RAN.
    fn up(
        now: SimTime,
        ue: &mut Ue,
        d: usize,
        sdus: &mut Vec<Sdu>,
        pdcp_out: &mut Vec<Sdu>,
        gnb_node: u32,
        out: &mut RanOutput,
    ) {
        let node = if d == DL { ue.node } else { gnb_node };
        pdcp_out.clear();
        for s in sdus.drain(..) {
            ue.pdcp_rx[d].receive(now, s.count, s, pdcp_out);
        }
        out.delivered
            .extend(pdcp_out.drain(..).map(|s| (s.id, node)));
    }

    /// HARQ feedback, RLC and PDCP timers, channel update and the BSR snapshot of UE `u`.
    fn housekeeping(&mut self, now: SimTime, u: usize, out: &mut RanOutput) {
        let gnb_node = self.cells[self.ues[u].cell].node;
        {
            let ue = &mut self.ues[u];
            for d in [DL, UL] {
                let f = ue.harq[d].feedback(now);
                ue.stats.harq_failures[d] += f.dropped as u64;
            }
            for side in 0..2 {
                if ue.rlc[side].next_timer().is_some_and(|t| t <= now) {
                    self.sdus.clear();
                    ue.rlc[side].on_timer(now, &mut self.sdus);
                    // The receiver at `side` is the receiver of direction 1 − side.
                    Self::up(
                        now,
                        ue,
                        1 - side,
                        &mut self.sdus,
                        &mut self.pdcp_out,
                        gnb_node,
                        out,
                    );
                }
            }
            for d in [DL, UL] {
                if ue.pdcp_rx[d].next_timer().is_some_and(|t| t <= now) {
                    self.pdcp_out.clear();
                    ue.pdcp_rx[d].on_timer(now, &mut self.pdcp_out);
                    let node = if d == DL { ue.node } else { gnb_node };
                    out.delivered
                        .extend(self.pdcp_out.drain(..).map(|s| (s.id, node)));
                }
            }
        }
        if now >= self.ues[u].next_channel {
            self.update_channel(u, now);
        }
        let ue = &mut self.ues[u];
        let b = ue.rlc[1].buffer_status(now);
        ue.bsr_hist
            .push_back((now, b.new_bytes + b.retx_bytes + b.status_bytes));
        let horizon = now.saturating_sub(self.bsr_delay + self.slot);
        while ue.bsr_hist.len() > 1 && ue.bsr_hist[1].0 <= horizon {
            ue.bsr_hist.pop_front();
        }
        // Grants older than every snapshot can no longer be discounted from any report.
        let oldest = ue.bsr_hist.front().map_or(now, |e| e.0);
        while ue.ul_granted.front().is_some_and(|&(t, _)| t < oldest) {
            ue.ul_granted.pop_front();
        }
    }

    /// Brings UE `u`'s position, LOS state and SINRs up to `now` (idempotent).
    pub fn update_channel(&mut self, u: usize, now: SimTime) {
        let ue = &mut self.ues[u];
        if now < ue.next_channel && now != SimTime::ZERO {
            return;
        }
        let pos = ue.mobility.position(now);
        let speed = ue.mobility.speed_mps(now);
        ue.position = pos;
        let serving = ue.cell;
        self.interf.clear();
        let mut serving_gain = NO_SIGNAL_DB;
        for (g, ch) in ue.chans.iter_mut().enumerate() {
            if g != serving && !self.interference {
                continue;
            }
            let gp = self.gnb_pos[g];
            let geo = self
                .los_geometric
                .then(|| line_of_sight(gp, pos, &self.boxes));
            let s = ch.update(now, gp, pos, speed, geo);
            if g == serving {
                serving_gain = s.gain_db;
                ue.los = s.los;
            } else {
                // Another cell's beam points at its own UEs: no array gain towards us.
                self.interf
                    .push(self.num.gnb_tx_power_dbm + s.gain_db - self.bf_gain_db);
            }
        }
        let (mut dl, mut ul) = (
            sinr_db(
                self.num.gnb_tx_power_dbm + serving_gain,
                &self.interf,
                self.noise_ue_dbm,
            ),
            sinr_db(
                self.num.ue_tx_power_dbm + serving_gain,
                &[],
                self.noise_gnb_dbm,
            ),
        );
        if let Some(tr) = &ue.trace {
            dl = tr.sinr_db_at(now);
            ul = dl;
        }
        if ue.outages.active(now) {
            dl = NO_SIGNAL_DB;
            ul = NO_SIGNAL_DB;
        }
        ue.sinr = [dl, ul];
        ue.sinr_hist.push_back((now, dl, ul));
        let horizon = now.saturating_sub(self.cqi_delay);
        while ue.sinr_hist.len() > 1 && ue.sinr_hist[1].0 <= horizon {
            ue.sinr_hist.pop_front();
        }
        ue.view.sinr_db = dl;
        // Next update on the channel-update grid (and never twice at one instant).
        let step = self.channel_update.ns();
        ue.next_channel = SimTime::from_ns((now.ns() / step + 1) * step);
    }

    /// The SINR the scheduler knows for direction `d`: the report from `cqi_delay` ago.
    fn reported_sinr(&self, u: usize, d: usize, now: SimTime) -> f64 {
        let ue = &self.ues[u];
        let at = now.saturating_sub(self.cqi_delay);
        let mut v = ue
            .sinr_hist
            .front()
            .map_or(ue.sinr[d], |e| if d == DL { e.1 } else { e.2 });
        for e in &ue.sinr_hist {
            if e.0 > at {
                break;
            }
            v = if d == DL { e.1 } else { e.2 };
        }
        v
    }

    /// Bytes the scheduler believes UE `u` has for direction `d`.
    fn demand(&self, u: usize, d: usize, now: SimTime) -> u64 {
        let ue = &self.ues[u];
        if d == DL {
            let b = ue.rlc[0].buffer_status(now);
            b.new_bytes + b.retx_bytes + b.status_bytes
        } else {
            // The report the gNB has: the newest snapshot at least `bsr_delay` old. Its
            // slot's snapshot was taken before that slot's grant, so every grant from the
            // snapshot's slot on is already on its way and is discounted.
            if now < self.bsr_delay {
                return 0;
            }
            let at = now.saturating_sub(self.bsr_delay);
            let Some(&(t_report, reported)) = ue.bsr_hist.iter().rev().find(|e| e.0 <= at) else {
                return 0;
            };
            let granted: u64 = ue
                .ul_granted
                .iter()
                .filter(|g| g.0 >= t_report)
                .map(|g| g.1)
                .sum();
            reported.saturating_sub(granted)
        }
    }

    /// Units available this slot: [DL pool, UL pool, shared pool].
    fn pools(&self, now: SimTime) -> [u16; 3] {
        let u = self.num.units_per_slot;
        match &self.num.duplex {
            Duplex::DynamicTdd => [0, 0, u],
            Duplex::Fdd => [u, u, 0],
            Duplex::Tdd(pattern) => {
                let i = (now.ns() / self.slot.ns()) as usize % pattern.len().max(1);
                match pattern.get(i) {
                    Some(SlotKind::Uplink) => [0, u, 0],
                    _ => [u, 0, 0],
                }
            }
        }
    }

    fn schedule(&mut self, now: SimTime, c: usize, ues: &[usize]) {
        let mut pools = self.pools(now);
        let rotation = (now.ns() / self.slot.ns()) as usize;
        let n = ues.len().max(1);
        let pool_of = |d: usize, pools: &[u16; 3]| {
            if pools[2] > 0 || (pools[0] == 0 && pools[1] == 0) {
                2
            } else {
                d
            }
        };
        // 1. HARQ retransmissions first, rotating which UE goes first.
        for k in 0..ues.len() {
            let u = ues[(rotation + k) % n];
            for d in [DL, UL] {
                let p = pool_of(d, &pools);
                while let Some((pid, units)) = self.ues[u].harq[d].next_retx() {
                    if units > pools[p] {
                        break;
                    }
                    pools[p] -= units;
                    let tb = self.ues[u].harq[d].take_retx(pid);
                    self.ues[u].stats.harq_retx[d] += 1;
                    self.transmit(now, c, u, d, pid, tb);
                }
            }
        }
        // 2. New data, per pool.
        for p in 0..3 {
            if pools[p] == 0 {
                continue;
            }
            self.cands.clear();
            self.cand_key.clear();
            for &u in ues {
                for d in [DL, UL] {
                    if pool_of(d, &pools) != p || self.ues[u].harq[d].free_process().is_none() {
                        continue;
                    }
                    let bytes = self.demand(u, d, now);
                    if bytes == 0 {
                        continue;
                    }
                    let sinr = self.reported_sinr(u, d, now);
                    let mcs = if d == DL {
                        self.amc.dl_mcs(sinr)
                    } else {
                        self.amc.ul_mcs(sinr)
                    };
                    let Some(mcs) = mcs else { continue };
                    let need = self
                        .num
                        .units_for_bytes(mcs, bytes.min(u32::MAX as u64) as u32)
                        .min(pools[p]);
                    let per_unit = self.num.tbs_bytes(mcs, 1).max(1) as f64;
                    self.cands.push(Candidate {
                        need,
                        bytes_per_unit: per_unit,
                        avg_bytes: self.ues[u].avg_bytes[d],
                    });
                    self.cand_key.push((u, d, mcs));
                }
            }
            let mut alloc = std::mem::take(&mut self.alloc_out);
            allocate(self.scheduler, pools[p], &self.cands, rotation, &mut alloc);
            let keys = std::mem::take(&mut self.cand_key);
            for (i, &(u, d, mcs)) in keys.iter().enumerate() {
                let units = alloc[i];
                let served = if units > 0 {
                    self.new_tb(now, c, u, d, mcs, units)
                } else {
                    0
                };
                let a = &mut self.ues[u].avg_bytes[d];
                *a += (served as f64 - *a) / PF_WINDOW_SLOTS;
            }
            self.cand_key = keys;
            self.alloc_out = alloc;
        }
    }

    /// A first transmission of `units` at `mcs` for UE `u` in direction `d`; returns the
    /// block size (0 if the transmitter had nothing to put in it).
    fn new_tb(&mut self, now: SimTime, c: usize, u: usize, d: usize, mcs: u8, units: u16) -> u32 {
        let tbs = self.num.tbs_bytes(mcs, units);
        // A TDMA unit is a symbol over the band; an OFDMA unit a resource block over all
        // data symbols.
        let symbols = match self.num.allocation {
            Allocation::Symbols => units,
            Allocation::ResourceBlocks => self.num.data_symbols,
        };
        let share = units as f64 / self.num.units_per_slot as f64;
        let kind = if d == UL {
            SlotKind::Uplink
        } else {
            SlotKind::Downlink
        };
        let duty = self.num.duplex.share(kind);
        let ue = &mut self.ues[u];
        if d == UL {
            ue.ul_granted.push_back((now, tbs as u64));
        }
        ue.view.push_grant(
            dir_of(d),
            Grant {
                time: now,
                tbs_bytes: tbs,
                mcs,
                symbols,
                slot: self.slot,
                share,
                duty,
            },
        );
        let mut pdus = Vec::new();
        ue.rlc[d].tx_opportunity(now, tbs, &mut pdus);
        if pdus.is_empty() {
            return 0;
        }
        let Some(pid) = ue.harq[d].free_process() else {
            unreachable!("candidates have a free HARQ process")
        };
        ue.stats.tbs[d] += 1;
        ue.mcs[d] = Some(mcs);
        self.transmit(now, c, u, d, pid, Tb::new(pdus, tbs, mcs, units));
        tbs
    }

    /// Sends `tb` (first transmission or retransmission) on HARQ process `pid`.
    fn transmit(&mut self, now: SimTime, c: usize, u: usize, d: usize, pid: usize, mut tb: Tb) {
        let sinr = self.ues[u].sinr[d];
        let p_err = tb_error_prob(
            &self.num,
            &self.amc,
            tb.mcs,
            tb.tbs_bytes,
            tb.transmit(sinr),
        );
        let cell = &mut self.cells[c];
        let decoded = cell.rng.random::<f64>() >= p_err;
        let ue = &mut self.ues[u];
        let end = now + self.slot;
        if decoded {
            ue.stats.decoded_bytes[d] += tb.tbs_bytes as u64;
            cell.bytes[d] += tb.tbs_bytes as u64;
            cell.deliveries.push_back(Delivery {
                at: end + self.slot,
                ue: u,
                dir: d,
                pdus: std::mem::take(&mut tb.pdus),
            });
        } else {
            ue.stats.tb_errors[d] += 1;
        }
        ue.harq[d].sent(pid, tb, decoded, end + self.num.harq_feedback_delay);
    }

    /// The state of UE `u` at `now` for the time series (updates its channel first).
    pub fn sample(&mut self, u: usize, now: SimTime) -> UeSample {
        self.update_channel(u, now);
        let ue = &self.ues[u];
        UeSample {
            sinr_dl_db: ue.sinr[DL],
            sinr_ul_db: ue.sinr[UL],
            mcs: ue.mcs,
            los: ue.los,
            rlc_bytes: [ue.rlc[0].tx_buffer_bytes(), ue.rlc[1].tx_buffer_bytes()],
            position: ue.position,
        }
    }
}
