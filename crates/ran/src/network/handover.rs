//! Measurement-based handover in the RAN: each UE's measurements at its measurement
//! instants, the decision ([`crate::rrc::trigger`]), and the execution of the procedure
//! ([`crate::rrc::procedure`]) on the UE's primary leg, with its costs:
//!
//! - **Detach** (the UE gets the handover command): the source stops serving the UE; its
//!   MAC is reset (HARQ processes flushed, blocks being decoded for the UE discarded) and
//!   the leg's RLC entities at both ends are re-established [TS38322 §5.1.2]: buffers
//!   discarded, state variables and timers reset. PDCP is re-established for an AM
//!   bearer [TS38323 §5.1.2]: with `lossless` the SDUs the receiving PDCP lacks (those the
//!   source has not had acknowledged, and those buffered at the source) are put into the
//!   new RLC entities with their COUNTs, downlink as data forwarded to the target
//!   [TS38300 §9.2.3.2.2], uplink as the UE's retransmission; without `lossless` they are
//!   lost (the world frees their packets). The UE's traffic reaching the source's site
//!   from now on follows the world's Xn forwarding to the target's site.
//! - **Interruption**: no cell schedules the UE (its leg is in no cell's list).
//! - **Served**: the target takes the leg and schedules it from fresh reports; the world
//!   switches the core's path.
//! - **Failure**: random access fails when the target's downlink SINR is below
//!   `rach_min_sinr_db`; after T304 and the re-establishment delay the UE is served by
//!   the best cell then (highest RSRP among those whose SINR passes the same test), with
//!   the same re-establishment of RLC and PDCP; if no cell passes, it tries again after
//!   another re-establishment delay.
//!
//! Simplifications: the forwarded SDUs are in the target's buffer from the detach (the
//! target schedules nothing before the interruption ends; an Xn delay longer than the
//! interruption is not added to them); a radio link failure is declared only when a
//! handover fails (no T310 on a serving link that fades away); UEs driven by an SINR trace
//! are not measured; a UE's secondary cell is never a target.

use super::measure::Measured;
use super::{Leg, Ran, RanOutput};
use crate::rlc::{Rlc, Sdu};
use crate::rrc::measure::L3Filter;
use crate::rrc::procedure::{Procedure, Step};
use crate::rrc::trigger::{CellMeasurement, Trigger};
use crate::rrc::{Algorithm, HandoverConfig, HandoverKind};
use mmtsim_engine::ids::{CellId, NodeId, UeId};
use mmtsim_engine::SimTime;
use mmtsim_net::Direction;

/// One change (or attempted change) of a UE's serving cell: a row of the `handovers`
/// table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandoverRecord {
    /// When it completed (or failed).
    pub at: SimTime,
    /// The UE.
    pub ue: UeId,
    /// The cell it left.
    pub from: CellId,
    /// The cell it went to (or tried to).
    pub to: CellId,
    /// What triggered it.
    pub kind: HandoverKind,
    /// How long no cell served the UE (zero for a scripted handover).
    pub interruption: SimTime,
    /// Downlink PDCP SDU bytes (headers included) the source forwarded.
    pub forwarded_bytes: u64,
    /// Whether the UE reached `to`.
    pub success: bool,
}

/// What the world must do after a step of a UE's procedure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RrcEvent {
    /// The UE left its serving cell for `to` (its traffic goes to `to`'s site from now).
    Detached {
        /// The UE.
        ue: UeId,
        /// The target cell.
        to: CellId,
    },
    /// The UE is served by `cell` from now (the core's path switches to its site).
    Served {
        /// The UE.
        ue: UeId,
        /// Its new serving cell.
        cell: CellId,
    },
}

/// Rows of the `measurements` table, one per UE, cell and logged measurement instant.
#[derive(Clone, Debug, Default)]
pub struct MeasurementLog {
    /// Measurement time, ns.
    pub t_ns: Vec<u64>,
    /// UE index.
    pub ue: Vec<u32>,
    /// Cell index.
    pub cell: Vec<u32>,
    /// Measured RSRP, dBm.
    pub rsrp_dbm: Vec<f64>,
    /// Measured SINR, dB.
    pub sinr_db: Vec<f64>,
    /// L3-filtered RSRP, dBm.
    pub rsrp_filtered_dbm: Vec<f64>,
    /// Line of sight to the cell (1) or not (0).
    pub los: Vec<u32>,
}

/// The mobility state of one UE.
struct UeRrc {
    rsrp: Vec<L3Filter>,
    sinr: Vec<L3Filter>,
    trigger: Trigger,
    procedure: Procedure,
    /// Measurement instants so far (for thinning the log).
    instants: u64,
    /// Downlink bytes forwarded at the current procedure's detach.
    forwarded_bytes: u64,
}

/// The RAN's handover state.
pub(super) struct HoState {
    cfg: HandoverConfig,
    /// One-way Xn delay between the sites of two cells, `[from · cells + to]`.
    xn: Vec<SimTime>,
    ues: Vec<UeRrc>,
    log: MeasurementLog,
    scratch: Vec<Measured>,
    cms: Vec<CellMeasurement>,
}

impl HoState {
    pub(super) fn new(cfg: &HandoverConfig, cells: usize, ues: usize) -> HoState {
        HoState {
            cfg: cfg.clone(),
            xn: vec![cfg.xn_default_delay; cells * cells],
            ues: (0..ues)
                .map(|_| UeRrc {
                    rsrp: vec![L3Filter::new(cfg.filter_k); cells],
                    sinr: vec![L3Filter::new(cfg.filter_k); cells],
                    trigger: Trigger::new(cfg, cells),
                    procedure: Procedure::new(cfg),
                    instants: 0,
                    forwarded_bytes: 0,
                })
                .collect(),
            log: MeasurementLog::default(),
            scratch: Vec::new(),
            cms: Vec::new(),
        }
    }
}

impl Ran {
    /// The measurement period when measurement-based handover is on.
    pub fn measurement_period(&self) -> Option<SimTime> {
        self.ho.as_ref().map(|h| h.cfg.measurement_period)
    }

    /// Sets the one-way Xn delay between the sites of every pair of cells: `delay(a, b)`
    /// for sites `a` ≠ `b` (`None`: no wired link, the configured default applies); zero
    /// between two cells of one site.
    pub fn set_xn_delays(&mut self, delay: impl Fn(NodeId, NodeId) -> Option<SimTime>) {
        if let Some(default) = self.ho.as_ref().map(|h| h.cfg.xn_default_delay) {
            let m = self.site_delays(&delay, default);
            if let Some(h) = &mut self.ho {
                h.xn = m;
            }
        }
    }

    /// The least time from a UE with no measurement-based handover under way to the end
    /// of one (when the core switches its path): a decision takes at least the
    /// measurement report, the command and the interruption (the Xn preparation may add
    /// to it, [`crate::rrc::procedure`]). `None` with measurement-based handover off:
    /// such a UE is then never handed over but by a scripted event.
    pub fn least_handover_time(&self) -> Option<SimTime> {
        self.ho
            .as_ref()
            .map(|h| h.cfg.report_delay + h.cfg.command_delay + h.cfg.interruption)
    }

    /// Whether UE `ue` is in a measurement-based handover (decided, not yet served).
    pub fn in_handover(&self, ue: UeId) -> bool {
        self.ho
            .as_ref()
            .is_some_and(|h| !h.ues[ue.index()].procedure.is_idle())
    }

    /// When UE `ue`'s procedure must be stepped next ([`Ran::rrc_step`]).
    pub fn rrc_deadline(&self, ue: UeId) -> Option<SimTime> {
        self.ho
            .as_ref()
            .and_then(|h| h.ues[ue.index()].procedure.deadline())
    }

    /// The changes of serving cell so far, in time order.
    pub fn handover_records(&self) -> &[HandoverRecord] {
        &self.ho_records
    }

    /// Takes the rows of the `measurements` table.
    pub fn take_measurement_log(&mut self) -> MeasurementLog {
        self.ho
            .as_mut()
            .map(|h| std::mem::take(&mut h.log))
            .unwrap_or_default()
    }

    /// A measurement instant of every UE: measures, filters, logs, and decides. Returns
    /// the UEs whose procedure started (the world steps them at [`Ran::rrc_deadline`]).
    pub fn measure_all(&mut self, now: SimTime, started: &mut Vec<UeId>) {
        let Some(mut h) = self.ho.take() else {
            return;
        };
        let mut meas = std::mem::take(&mut h.scratch);
        let kind = match h.cfg.algorithm {
            Algorithm::Threshold => HandoverKind::Threshold,
            _ => HandoverKind::A3,
        };
        for u in 0..self.ues.len() {
            let ue = UeId::from_index(u);
            // A dually connected UE under the coordinator is moved by it (`dual.rs`).
            if self.ues[u].trace.is_some() || (self.dual.is_some() && self.ues[u].legs.len() > 1) {
                continue;
            }
            self.measure_cells(ue, now, &mut meas);
            let serving = self.serving_cell(ue);
            let secondary = self.secondary_cell(ue);
            let r = &mut h.ues[u];
            r.instants += 1;
            let log = h.cfg.measurement_log_every > 0
                && (r.instants - 1) % h.cfg.measurement_log_every as u64 == 0;
            h.cms.clear();
            for (g, m) in meas.iter().enumerate() {
                let rsrp = r.rsrp[g].update(m.rsrp_dbm);
                let sinr = r.sinr[g].update(m.sinr_db);
                let cell = CellId::from_index(g);
                h.cms.push(CellMeasurement {
                    cell,
                    carrier_hz: self.cells[g].radio.num.carrier_hz,
                    rsrp_dbm: rsrp,
                    sinr_db: sinr,
                    eligible: cell != serving && Some(cell) != secondary,
                });
                if log && h.log.t_ns.len() < h.cfg.measurement_log_rows {
                    h.log.t_ns.push(now.ns());
                    h.log.ue.push(u as u32);
                    h.log.cell.push(g as u32);
                    h.log.rsrp_dbm.push(m.rsrp_dbm);
                    h.log.sinr_db.push(m.sinr_db);
                    h.log.rsrp_filtered_dbm.push(rsrp);
                    h.log.los.push(m.los as u32);
                }
            }
            if !r.procedure.is_idle() {
                continue;
            }
            if let Some(target) = r.trigger.evaluate(now, serving, &h.cms) {
                let n = self.cells.len();
                let xn = h.xn[serving.index() * n + target.index()];
                r.procedure.decide(now, serving, target, kind, xn);
                started.push(ue);
            }
        }
        h.scratch = meas;
        self.ho = Some(h);
    }

    /// Steps UE `ue`'s procedure at `now` (its deadline; otherwise nothing happens).
    /// Packets lost to the step go to `out.dropped`; what the world must do goes to
    /// `events`. Returns the slot event the world must schedule for the serving cell.
    pub fn rrc_step(
        &mut self,
        now: SimTime,
        ue: UeId,
        out: &mut RanOutput,
        events: &mut Vec<RrcEvent>,
    ) -> Option<(CellId, SimTime)> {
        let mut h = self.ho.take()?;
        let u = ue.index();
        let min_sinr = h.cfg.rach_min_sinr_db;
        let mut meas = std::mem::take(&mut h.scratch);
        let mut measured = false;
        let step = h.ues[u].procedure.step(now, |target| {
            self.measure_cells(ue, now, &mut meas);
            measured = true;
            meas[target.index()].sinr_db >= min_sinr
        });
        let mut wake = None;
        // A handover that ends, served or failed, is one row of the handovers table.
        if let Some(
            Step::Served {
                source,
                target,
                kind,
                interruption,
            }
            | Step::Failed {
                source,
                target,
                kind,
                interruption,
            },
        ) = &step
        {
            self.ho_records.push(HandoverRecord {
                at: now,
                ue,
                from: *source,
                to: *target,
                kind: *kind,
                interruption: *interruption,
                forwarded_bytes: h.ues[u].forwarded_bytes,
                success: matches!(step, Some(Step::Served { .. })),
            });
        }
        match step {
            None => {}
            Some(Step::Detach { source, target }) => {
                let fwd = self.reestablish_leg(now, ue, Some(source), target, h.cfg.lossless, out);
                h.ues[u].forwarded_bytes = fwd;
                events.push(RrcEvent::Detached { ue, to: target });
            }
            Some(Step::Served { target, .. }) => {
                h.ues[u].trigger.reset();
                wake = self.attach_leg(now, ue, target, true);
                events.push(RrcEvent::Served { ue, cell: target });
            }
            Some(Step::Failed { .. }) => {
                self.ues[u].stats.handover_failures += 1;
            }
            Some(Step::Reestablish {
                source,
                interruption,
            }) => {
                if !measured {
                    self.measure_cells(ue, now, &mut meas);
                }
                let secondary = self.secondary_cell(ue);
                let best = meas
                    .iter()
                    .enumerate()
                    .filter(|&(g, m)| {
                        m.sinr_db >= min_sinr && Some(CellId::from_index(g)) != secondary
                    })
                    .fold(None::<(usize, f64)>, |b, (g, m)| match b {
                        Some((_, r)) if r >= m.rsrp_dbm => b,
                        _ => Some((g, m.rsrp_dbm)),
                    });
                match best {
                    None => h.ues[u].procedure.link_failure(now, source),
                    Some((g, _)) => {
                        let cell = CellId::from_index(g);
                        let fwd = self.reestablish_leg(now, ue, None, cell, h.cfg.lossless, out);
                        self.ho_records.push(HandoverRecord {
                            at: now,
                            ue,
                            from: source,
                            to: cell,
                            kind: HandoverKind::Reestablishment,
                            interruption,
                            forwarded_bytes: fwd,
                            success: true,
                        });
                        h.ues[u].trigger.reset();
                        self.ues[u].stats.reestablishments += 1;
                        wake = self.attach_leg(now, ue, cell, cell != source);
                        events.push(RrcEvent::Served { ue, cell });
                    }
                }
            }
        }
        h.scratch = meas;
        self.ho = Some(h);
        wake
    }

    /// The UE's primary leg leaves `source` (if it is still in that cell's list) and is
    /// re-established towards `target`: MAC reset, fresh RLC entities at both ends, and
    /// the PDCP SDUs the receivers lack put into them (`lossless`) or dropped. Returns
    /// the downlink bytes put into the new gNB-end entity.
    fn reestablish_leg(
        &mut self,
        now: SimTime,
        ue: UeId,
        source: Option<CellId>,
        target: CellId,
        lossless: bool,
        out: &mut RanOutput,
    ) -> u64 {
        let u = ue.index();
        if let Some(s) = source {
            let cell = &mut self.cells[s.index()];
            cell.legs.retain(|&(v, l)| (v, l) != (ue, 0));
            // Blocks decoded by the source but not yet handed up are lost with its MAC;
            // their SDUs are among those the receivers lack.
            cell.deliveries.retain(|d| (d.ue, d.leg) != (ue, 0));
        }
        let radio = &self.cells[target.index()].radio;
        let fresh = Leg::new(target, &self.rlc_cfg, radio, &self.ues[u].pieces);
        let ue_state = &mut self.ues[u];
        let old = std::mem::replace(&mut ue_state.legs[0], fresh);
        for d in Direction::BOTH {
            ue_state.stats.harq_reset_drops[d.index()] +=
                old.harq[d.index()].undecoded_blocks() as u64;
        }
        let mut old_rlc: [Rlc; 2] = old.rlc;
        let mut sdus: Vec<Sdu> = Vec::new();
        let mut forwarded = 0;
        for d in Direction::BOTH {
            let i = d.index();
            // The transmitting entity's queue-discipline drops are decided losses.
            sdus.clear();
            old_rlc[i].take_dropped(&mut sdus);
            for s in &sdus {
                ue_state.pdcp_tx[i].forget(s.count);
                out.dropped.push(s.id);
            }
            sdus.clear();
            let rx = &ue_state.pdcp_rx[i];
            ue_state.pdcp_tx[i].release_received(rx.rx_deliv());
            ue_state.pdcp_tx[i].unreceived(|c| rx.has_received(c), &mut sdus);
            if lossless {
                let leg = &mut ue_state.legs[0];
                for s in &sdus {
                    leg.rlc_tx(d).send_forwarded_sdu(now, *s);
                }
                if d == Direction::Downlink {
                    forwarded = sdus.iter().map(|s| s.bytes as u64).sum();
                }
            } else {
                for s in &sdus {
                    ue_state.pdcp_tx[i].forget(s.count);
                    out.dropped.push(s.id);
                }
            }
        }
        forwarded
    }

    /// Cell `cell` serves UE `ue`'s primary leg from `now` (`switched`: a change of
    /// serving cell, counted).
    fn attach_leg(
        &mut self,
        now: SimTime,
        ue: UeId,
        cell: CellId,
        switched: bool,
    ) -> Option<(CellId, SimTime)> {
        let u = ue.index();
        let leg = &mut self.ues[u].legs[0];
        if leg.cell != cell {
            let radio = &self.cells[cell.index()].radio;
            leg.cell = cell;
            leg.harq = [radio.harq(), radio.harq()];
        }
        self.cells[cell.index()].legs.push((ue, 0));
        let st = &mut self.ues[u];
        st.stats.cell_switches += switched as u64;
        st.next_channel = now;
        self.update_channel(ue, now);
        self.wake(cell, now)
    }
}
