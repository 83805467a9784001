//! Coordinated LTE–mmWave dual connectivity in the RAN (`[ran.dual_connectivity] mode =
//! "coordinated"`): the mmWave cells' reports to the LTE anchor, the coordinator's
//! decisions ([`crate::rrc::dual`]) and their execution, after Polese et al.
//! [POLESE-DC-2017] as ns-3 mmWave implements it [NS3-MMW-ENB-RRC].
//!
//! A dually connected UE's primary leg (leg 0) is on the LTE anchor, which holds the
//! bearer's PDCP; its secondary leg (leg 1) is on one mmWave cell. All of the UE's new
//! PDCP SDUs, both directions, take one leg: the mmWave leg, or the LTE leg after a
//! fall-back. The steps:
//!
//! - **Reports.** Every `report_period` each UE measures every cell on its secondary
//!   cell's carrier (`measure.rs`: the SINR the UE would see from each, interference by
//!   the full-buffer-omni rule unless it is off; ns-3 reports the SNR); the complete
//!   report reaches the anchor after the largest X2 delay between those cells' sites and
//!   the anchor's (the wired link's delay, else `x2_delay`; zero within a site). The
//!   coordinator decides when the report arrives (ns-3 evaluates its table every
//!   `CrtPeriod`, the same period, on the latest reports: a constant phase shift).
//! - **Fast switch** (to LTE, or back to the same mmWave cell): new SDUs take the other
//!   leg from the decision. The RLC entities of the leg left are re-established (no more
//!   transmissions or decodings of their PDUs; HARQ flushed) and every PDCP SDU the
//!   receivers still lack is forwarded to the leg taken: downlink over X2 (into its RLC
//!   after the X2 delay between the two cells' sites), uplink at once (the UE holds both
//!   legs). No random access, no core path switch. Because all new SDUs follow one leg
//!   and each switch moves everything unreceived, the SDUs the receivers lack are always
//!   all in the leg left.
//! - **Secondary-cell handover** (mmWave → mmWave, the UE stays on the anchor):
//!   preparation X2 anchor→source and source→target→source, then the command over LTE
//!   (`command_delay`); at the command the mmWave leg leaves the source (MAC reset, RLC
//!   re-established, unreceived SDUs forwarded over X2 to the target if the data was on
//!   mmWave); after `secondary_interruption` (non-contention random access) the target
//!   serves it. No core path switch: downlink still enters at the anchor's site. From
//!   LTE, the UE switches its data to mmWave when the target serves it.
//!
//! Simplifications: the reports carry the measured SINR, without noise or filtering
//! (fast fading included, so a best SINR near a threshold can switch back and forth at
//! report pace, as ns-3's unfiltered default would); a scripted `add_secondary` joins the
//! coordination at the next report, with the data on LTE until the coordinator switches; a switch during
//! another's X2 forwarding forwards the SDUs still on their way again from the PDCP's copies.

use super::measure::Measured;
use super::HandoverRecord;
use super::{Leg, Ran, RanOutput};
use crate::rlc::{Rlc, Sdu};
use crate::rrc::dual::{Coordinator, Decision, DualConfig};
use crate::rrc::HandoverKind;
use mmtsim_engine::ids::{CellId, NodeId, UeId};
use mmtsim_engine::spares::Spares;
use mmtsim_engine::SimTime;
use mmtsim_net::Direction;

/// Downlink SDUs on their way over X2 to a leg of a UE.
struct Forward {
    at: SimTime,
    ue: UeId,
    leg: usize,
    sdus: Vec<Sdu>,
}

/// A complete report on its way to the anchor: (arrival, UE, SINR of each mmWave cell, dB).
type Report = (SimTime, UeId, Vec<(CellId, f64)>);

/// A secondary-cell handover being executed.
#[derive(Clone, Copy)]
struct ScgHandover {
    from: CellId,
    to: CellId,
    from_lte: bool,
    /// The command reaches the UE (the leg leaves the source).
    detach_at: SimTime,
    /// The target serves the leg.
    served_at: SimTime,
    detached: bool,
    forwarded_bytes: u64,
}

struct UeDual {
    coord: Coordinator,
    /// The leg new SDUs take.
    active: usize,
    handover: Option<ScgHandover>,
}

/// The RAN's dual-connectivity state.
pub(super) struct DualState {
    cfg: DualConfig,
    cells: usize,
    /// One-way X2 delay between the sites of two cells, `[a · cells + b]`.
    x2: Vec<SimTime>,
    ues: Vec<Option<UeDual>>,
    next_report: SimTime,
    /// Complete reports on their way to the anchor: (arrival, UE, SINR of each cell).
    reports: Vec<Report>,
    forwards: Vec<Forward>,
    /// Emptied report lists and the measurement list, kept so that a report allocates
    /// nothing.
    spare: Spares<(CellId, f64)>,
    meas: Vec<Measured>,
}

impl DualState {
    pub(super) fn new(cfg: &DualConfig, cells: usize, ues: usize) -> DualState {
        DualState {
            cfg: cfg.clone(),
            cells,
            x2: vec![cfg.x2_delay; cells * cells],
            ues: (0..ues).map(|_| None).collect(),
            next_report: SimTime::ZERO,
            reports: Vec::new(),
            forwards: Vec::new(),
            spare: Spares::new(usize::MAX),
            meas: Vec::new(),
        }
    }

    fn x2(&self, a: CellId, b: CellId) -> SimTime {
        self.x2[a.index() * self.cells + b.index()]
    }

    /// The leg UE `ue`'s new SDUs take, when it is coordinated.
    pub(super) fn active_leg(&self, ue: UeId) -> Option<usize> {
        self.ues[ue.index()].as_ref().map(|d| d.active)
    }
}

impl Ran {
    /// Whether the coordinated dual-connectivity mode is on.
    pub fn dual_coordinated(&self) -> bool {
        self.dual.is_some()
    }

    /// Sets the one-way X2 delay between the sites of every pair of cells (`None`: no
    /// wired link, `x2_delay` applies); zero between two cells of one site.
    pub fn set_x2_delays(&mut self, delay: impl Fn(NodeId, NodeId) -> Option<SimTime>) {
        if let Some(default) = self.dual.as_ref().map(|d| d.cfg.x2_delay) {
            let m = self.site_delays(&delay, default);
            if let Some(d) = &mut self.dual {
                d.x2 = m;
            }
        }
    }

    /// When the dual-connectivity coordination must run next ([`Ran::dual_step`]).
    pub fn dual_deadline(&self) -> Option<SimTime> {
        let d = self.dual.as_ref()?;
        let mut t = d.next_report;
        for r in &d.reports {
            t = t.min(r.0);
        }
        for f in &d.forwards {
            t = t.min(f.at);
        }
        for u in d.ues.iter().flatten() {
            if let Some(x) = u.coord.deadline() {
                t = t.min(x);
            }
            if let Some(h) = &u.handover {
                t = t.min(if h.detached { h.served_at } else { h.detach_at });
            }
        }
        Some(t)
    }

    /// Runs the coordination at `now`: forwarded SDUs landing, handover steps, reports
    /// taken and decisions executed. Returns the cells whose slot the world must
    /// schedule.
    pub fn dual_step(&mut self, now: SimTime, out: &mut RanOutput) -> Vec<(CellId, SimTime)> {
        let Some(mut d) = self.dual.take() else {
            return Vec::new();
        };
        let mut wakes = Vec::new();
        // SDUs at the end of their X2 trip.
        let mut i = 0;
        while i < d.forwards.len() {
            if d.forwards[i].at <= now {
                let f = d.forwards.swap_remove(i);
                wakes.extend(self.land(now, &f));
            } else {
                i += 1;
            }
        }
        // Handover steps and scheduled handovers.
        for u in 0..self.ues.len() {
            let ue = UeId::from_index(u);
            let Some(st) = d.ues[u].as_mut() else {
                continue;
            };
            if let Some(dec) = st.coord.due(now) {
                self.execute(&mut d, now, ue, dec, out, &mut wakes);
            }
            self.step_handover(&mut d, now, ue, out, &mut wakes);
        }
        // A report instant: every coordinated UE measures the mmWave cells.
        if now >= d.next_report {
            self.report(&mut d, now);
            d.next_report = now + d.cfg.report_period;
        }
        // Reports that reached the anchor, in arrival order.
        d.reports.sort_by_key(|r| (r.0, r.1));
        while d.reports.first().is_some_and(|r| r.0 <= now) {
            let (_, ue, mut rep) = d.reports.remove(0);
            let dec = d.ues[ue.index()]
                .as_mut()
                .and_then(|st| st.coord.on_report(now, &rep));
            rep.clear();
            d.spare.give(rep);
            if let Some(dec) = dec {
                self.execute(&mut d, now, ue, dec, out, &mut wakes);
            }
        }
        self.dual = Some(d);
        wakes
    }

    /// Every dually connected UE's report of the cells on its secondary cell's carrier.
    fn report(&mut self, d: &mut DualState, now: SimTime) {
        let mut meas = std::mem::take(&mut d.meas);
        for u in 0..self.ues.len() {
            let ue = UeId::from_index(u);
            if self.ues[u].legs.len() < 2 || self.ues[u].trace.is_some() {
                continue;
            }
            let anchor = self.ues[u].legs[0].cell;
            let secondary = self.ues[u].legs[1].cell;
            if d.ues[u].is_none() {
                // A secondary cell from the start takes the data at once (nothing is in
                // flight yet); one added later starts with everything on the LTE leg,
                // and the coordinator switches to it like any return from LTE.
                let coord = Coordinator::new(&d.cfg, secondary);
                let (coord, active) = if now == SimTime::ZERO {
                    (coord, 1)
                } else {
                    (coord.on_lte_from_start(), 0)
                };
                d.ues[u] = Some(UeDual {
                    coord,
                    active,
                    handover: None,
                });
            }
            let carrier = self.cells[secondary.index()].radio.num.carrier_hz;
            self.measure_cells(ue, now, &mut meas);
            let mut rep = d.spare.take();
            let mut delay = SimTime::ZERO;
            for (g, m) in meas.iter().enumerate() {
                let c = CellId::from_index(g);
                if c != anchor && self.cells[g].radio.num.carrier_hz == carrier {
                    rep.push((c, m.sinr_db));
                    delay = delay.max(d.x2(c, anchor));
                }
            }
            d.reports.push((now + delay, ue, rep));
        }
        d.meas = meas;
    }

    fn execute(
        &mut self,
        d: &mut DualState,
        now: SimTime,
        ue: UeId,
        dec: Decision,
        out: &mut RanOutput,
        wakes: &mut Vec<(CellId, SimTime)>,
    ) {
        let u = ue.index();
        let anchor = self.ues[u].legs[0].cell;
        let mmw = self.ues[u].legs[1].cell;
        match dec {
            Decision::ToLte | Decision::ToMmwave => {
                let (from, to, kind) = if dec == Decision::ToLte {
                    (1, 0, HandoverKind::SwitchToLte)
                } else {
                    (0, 1, HandoverKind::SwitchToMmwave)
                };
                let bytes = self.switch_leg(d, now, ue, from, to, out, wakes);
                let (a, b) = if from == 1 {
                    (mmw, anchor)
                } else {
                    (anchor, mmw)
                };
                self.ho_records.push(HandoverRecord {
                    at: now,
                    ue,
                    from: a,
                    to: b,
                    kind,
                    interruption: SimTime::ZERO,
                    forwarded_bytes: bytes,
                    success: true,
                });
                self.ues[u].stats.dc_switches += 1;
            }
            Decision::SecondaryHandover { to, from_lte } => {
                let prep = d.x2(anchor, mmw) + d.x2(mmw, to) + d.x2(to, mmw);
                let detach_at = now + prep + d.cfg.command_delay;
                let st = d.ues[u].as_mut().expect("coordinated");
                st.handover = Some(ScgHandover {
                    from: mmw,
                    to,
                    from_lte,
                    detach_at,
                    served_at: detach_at + d.cfg.secondary_interruption,
                    detached: false,
                    forwarded_bytes: 0,
                });
                self.step_handover(d, now, ue, out, wakes);
            }
        }
    }

    /// Steps UE `ue`'s secondary-cell handover if one of its instants has come.
    fn step_handover(
        &mut self,
        d: &mut DualState,
        now: SimTime,
        ue: UeId,
        out: &mut RanOutput,
        wakes: &mut Vec<(CellId, SimTime)>,
    ) {
        let u = ue.index();
        let Some(mut h) = d.ues[u].as_ref().and_then(|s| s.handover) else {
            return;
        };
        if !h.detached && now >= h.detach_at {
            // The command reached the UE: the mmWave leg leaves the source.
            discard_forwards(d, ue, 1);
            let cell = &mut self.cells[h.from.index()];
            cell.legs.retain(|&(v, l)| (v, l) != (ue, 1));
            cell.deliveries.retain(|x| (x.ue, x.leg) != (ue, 1));
            let radio = &self.cells[h.to.index()].radio;
            let fresh = Leg::new(h.to, &self.rlc_cfg, radio, &self.ues[u].pieces);
            let old = std::mem::replace(&mut self.ues[u].legs[1], fresh);
            let sdus = self.drain_leg(ue, old, out);
            if !h.from_lte {
                // Everything unreceived was on the mmWave leg: over X2 to the target.
                let at = now + d.x2(h.from, h.to);
                h.forwarded_bytes = self.forward(d, now, at, ue, 1, sdus, wakes);
            }
            h.detached = true;
        }
        if h.detached && now >= h.served_at {
            self.cells[h.to.index()].legs.push((ue, 1));
            let st = &mut self.ues[u];
            st.stats.cell_switches += 1;
            st.next_channel = now;
            self.update_channel(ue, now);
            wakes.extend(self.wake(h.to, now));
            self.ho_records.push(HandoverRecord {
                at: now,
                ue,
                from: h.from,
                to: h.to,
                kind: HandoverKind::SecondaryHandover,
                interruption: h.served_at.saturating_sub(h.detach_at),
                forwarded_bytes: h.forwarded_bytes,
                success: true,
            });
            self.ues[u].stats.secondary_handovers += 1;
            let st = d.ues[u].as_mut().expect("coordinated");
            st.coord.handover_done(h.to);
            st.handover = None;
            if h.from_lte {
                let bytes = self.switch_leg(d, now, ue, 0, 1, out, wakes);
                self.ho_records.push(HandoverRecord {
                    at: now,
                    ue,
                    from: self.ues[u].legs[0].cell,
                    to: h.to,
                    kind: HandoverKind::SwitchToMmwave,
                    interruption: SimTime::ZERO,
                    forwarded_bytes: bytes,
                    success: true,
                });
                self.ues[u].stats.dc_switches += 1;
            }
            return;
        }
        d.ues[u].as_mut().expect("coordinated").handover = Some(h);
    }

    /// Fast switch of UE `ue`'s data from leg `from` to leg `to`: new SDUs take `to`;
    /// `from`'s RLC entities are re-established and what the receivers lack goes to `to`.
    /// Returns the downlink bytes forwarded.
    #[allow(clippy::too_many_arguments)]
    fn switch_leg(
        &mut self,
        d: &mut DualState,
        now: SimTime,
        ue: UeId,
        from: usize,
        to: usize,
        out: &mut RanOutput,
        wakes: &mut Vec<(CellId, SimTime)>,
    ) -> u64 {
        discard_forwards(d, ue, from);
        let u = ue.index();
        let cell = self.ues[u].legs[from].cell;
        self.cells[cell.index()]
            .deliveries
            .retain(|x| (x.ue, x.leg) != (ue, from));
        let radio = &self.cells[cell.index()].radio;
        let fresh = Leg::new(cell, &self.rlc_cfg, radio, &self.ues[u].pieces);
        let old = std::mem::replace(&mut self.ues[u].legs[from], fresh);
        // The leg stays on its cell: keep what the cell's scheduler knows of the channel.
        let leg = &mut self.ues[u].legs[from];
        leg.los = old.los;
        leg.sinr = old.sinr;
        leg.dl_signal_dbm = old.dl_signal_dbm;
        leg.sinr_hist = old.sinr_hist.clone();
        let sdus = self.drain_leg(ue, old, out);
        let at = now + d.x2(cell, self.ues[u].legs[to].cell);
        d.ues[u].as_mut().expect("coordinated").active = to;
        self.forward(d, now, at, ue, to, sdus, wakes)
    }

    /// Takes what leg `old` held: its queue discipline's drops are freed; returns the PDCP
    /// SDUs the receivers lack, per direction (all of them are on this leg, see the module
    /// doc).
    fn drain_leg(&mut self, ue: UeId, old: Leg, out: &mut RanOutput) -> [Vec<Sdu>; 2] {
        let st = &mut self.ues[ue.index()];
        for dir in Direction::BOTH {
            st.stats.harq_reset_drops[dir.index()] +=
                old.harq[dir.index()].undecoded_blocks() as u64;
        }
        let mut rlc: [Rlc; 2] = old.rlc;
        let mut res: [Vec<Sdu>; 2] = [Vec::new(), Vec::new()];
        for dir in Direction::BOTH {
            let i = dir.index();
            let mut dropped = Vec::new();
            rlc[i].take_dropped(&mut dropped);
            for s in &dropped {
                st.pdcp_tx[i].forget(s.count);
                out.dropped.push(s.id);
            }
            let rx = &st.pdcp_rx[i];
            st.pdcp_tx[i].release_received(rx.rx_deliv());
            st.pdcp_tx[i].unreceived(|c| rx.has_received(c), &mut res[i]);
        }
        res
    }

    /// Puts the unreceived SDUs into leg `leg`: uplink at once, downlink at `at`.
    #[allow(clippy::too_many_arguments)]
    fn forward(
        &mut self,
        d: &mut DualState,
        now: SimTime,
        at: SimTime,
        ue: UeId,
        leg: usize,
        sdus: [Vec<Sdu>; 2],
        wakes: &mut Vec<(CellId, SimTime)>,
    ) -> u64 {
        let [dl, ul] = sdus;
        let st = &mut self.ues[ue.index()];
        for s in &ul {
            st.legs[leg]
                .rlc_tx(Direction::Uplink)
                .send_forwarded_sdu(now, *s);
        }
        if !ul.is_empty() {
            let c = st.legs[leg].cell;
            wakes.extend(self.wake(c, now));
        }
        let bytes = dl.iter().map(|s| s.bytes as u64).sum();
        if !dl.is_empty() {
            let f = Forward {
                at,
                ue,
                leg,
                sdus: dl,
            };
            if at <= now {
                wakes.extend(self.land(now, &f));
            } else {
                d.forwards.push(f);
            }
        }
        bytes
    }

    /// Forwarded downlink SDUs enter their leg's RLC.
    fn land(&mut self, now: SimTime, f: &Forward) -> Option<(CellId, SimTime)> {
        let leg = &mut self.ues[f.ue.index()].legs[f.leg];
        for s in &f.sdus {
            leg.rlc_tx(Direction::Downlink).send_forwarded_sdu(now, *s);
        }
        let c = leg.cell;
        let served = self.cells[c.index()].legs.contains(&(f.ue, f.leg));
        if served {
            self.wake(c, now)
        } else {
            None
        }
    }
}

/// Forgets UE `ue`'s SDUs on their way over X2 to leg `leg`, which is being left: they
/// are among those its PDCP still retains as unreceived, and go on with them.
fn discard_forwards(d: &mut DualState, ue: UeId, leg: usize) {
    d.forwards.retain(|f| (f.ue, f.leg) != (ue, leg));
}
