//! Downlink interference: which other cells transmit in a UE's slot, where their beams
//! point, and the power each one puts into the UE's receiver.
//!
//! # Model
//! The downlink SINR of a leg is S / (N + Σ I) [`mmtsim_channel::budget::sinr_db`]: every
//! other cell on the leg's carrier is a candidate interferer with its own link to the UE
//! (path loss, LOS state, shadowing, blockage and fading of that link's channel). The link
//! gain carries the ideal array gain of the serving convention; for an interferer that is
//! replaced by the gain of the interferer's beam toward the UE and of the UE's beam toward
//! the interferer ([`mmtsim_channel::antenna`], TR 38.901 element pattern times the array
//! factor of the preset's panel, [TR38901 §7.3]):
//!
//! ```text
//! I = P_tx + (link gain − ideal array gain) + G_gNB(its beam → UE) + G_UE(UE's beam → it)
//! ```
//!
//! The UE's beam points at the leg's own cell; the UE's array is the leg's preset's.
//! The terms are multiplied in linear units (mW times gain ratio times share of the
//! slot) rather than added in dB: the same value to rounding, without a `10^(x/10)` per
//! term ([`super::beams`]).
//! How the interferer's beam and activity are chosen is the mode
//! ([`crate::config::Interference`]):
//! - `FullBufferOmni`: every other cell transmits all the time and both antenna gains
//!   are 0 dBi (`G_gNB = G_UE = 0`): the pessimistic full-load model of the first
//!   version, which a scenario's `interference = true` keeps.
//! - `FullBuffer`: every other cell transmits all the time; its time is shared equally
//!   among the UEs it serves (any leg), so its interference is the mean of its beams
//!   toward them. A cell that serves no UE points its beam at the victim (worst case).
//! - `Active`: a cell interferes only in the slots in which it sends downlink data,
//!   with the beam of each UE it sent to, weighted by that transmission's share of the
//!   slot's resource units (symbols or resource blocks): the interference averaged over
//!   the victim's slot and band, which is what a wideband SINR can hold. Uplink slots,
//!   and resources a cell leaves empty, put nothing into the downlink.
//!
//! # Ordering: the slot before
//! The world runs the slots of cells with aligned slots one after another at one
//! instant, so when one cell decodes a block another may not have scheduled its slot yet.
//! So that results do not depend on that order, the interference a UE sees at time `t`
//! is the activity each other cell recorded in its latest slot that *started before*
//! `t`, counted if that slot overlapped the victim slot's predecessor `[t − T, t)` (T the
//! victim's slot length). With equal numerologies this is exactly the neighbour's
//! previous slot: interference lags by one slot (100 µs in the 2017 preset, 125 µs in
//! `nr-fr2`), a delay well below the channel's update interval. Each cell keeps its
//! last two slots' activity, which is all that rule can ask for. Beam targets are the
//! positions the served UEs had when the interferer transmitted (full-buffer: at their
//! latest channel update before `t`), for the same reason.
//!
//! The SINR a UE reports (the CQI the MCS is chosen from, `reported_sinr`) is the one
//! computed at its channel updates, so it holds the interference present when it was
//! measured; a block's decoding in `Active` mode uses the interference at its own slot
//! (by the rule above), over the signal of the latest channel update.
//!
//! # Simplifications
//! - Downlink only: uplink SINR has no interference term (other cells' UEs are
//!   ignored), and a TDD neighbour's uplink slots cause no UE-to-UE interference.
//! - Cells on one carrier with different slot lengths: only the interferer's latest
//!   slot before `t` counts, not every slot overlapping the victim's.
//! - Interference is wideband: a neighbour using half its resource blocks adds half its
//!   power to the whole band, not its full power to half of it.
//! - Link gains, LOS and the UE's own beam are those of the UE's latest channel update
//!   (every `channel_update`); per slot only the other cells' activity and beams change.
//! - A UE on an SINR trace, or in a forced outage, takes the trace's (or no) SINR
//!   whatever its neighbours do.
//!
//! # Cost
//! In `Active` mode every downlink block sums, over each other cell, the power of each of
//! its beams at the UE. A beam's direction changes only when the UE it serves moves, and
//! the victim's direction only when the victim moves, so the gains and powers computed
//! once are remembered, keyed on their exact inputs ([`super::beams`]): results are those
//! of computing every term afresh.

use super::beams::{Beam, BeamGains};
use super::{Cell, Ran, Ue};
use crate::config::Interference;
use mmtsim_channel::antenna::{Bearing, Sighting};
use mmtsim_channel::budget::db_to_lin;
use mmtsim_channel::geometry::Vec3;
use mmtsim_engine::ids::UeId;
use mmtsim_engine::SimTime;

/// What a cell sent downlink in one of its slots.
#[derive(Clone, Debug)]
struct SlotActivity {
    /// Start of the slot (`NEVER` for a slot that has not happened).
    start: SimTime,
    /// Length of the slot.
    len: SimTime,
    /// One per downlink transmission.
    beams: Vec<Beam>,
}

/// A cell's downlink activity in its last two slots (what the ordering rule can ask for).
#[derive(Clone, Debug)]
pub(super) struct Activity {
    /// `[previous, latest]`.
    slots: [SlotActivity; 2],
}

impl Activity {
    pub(super) fn new() -> Activity {
        let idle = SlotActivity {
            start: SimTime::NEVER,
            len: SimTime::ZERO,
            beams: Vec::new(),
        };
        Activity {
            slots: [idle.clone(), idle],
        }
    }

    /// The cell starts a slot at `start`, `len` long.
    pub(super) fn begin(&mut self, start: SimTime, len: SimTime) {
        self.slots.swap(0, 1);
        let s = &mut self.slots[1];
        s.start = start;
        s.len = len;
        s.beams.clear();
    }

    /// The cell sends downlink on `beam` in this slot.
    pub(super) fn record(&mut self, beam: Beam) {
        self.slots[1].beams.push(beam);
    }

    /// The beams that interfere at `now` with a victim whose slots
    /// are `victim_slot` long:
    /// those of the latest slot that started before `now`, if it overlapped
    /// `[now − victim_slot, now)`.
    fn at(&self, now: SimTime, victim_slot: SimTime) -> &[Beam] {
        let s = if self.slots[1].start < now {
            &self.slots[1]
        } else if self.slots[0].start < now {
            &self.slots[0]
        } else {
            return &[];
        };
        if s.start + s.len > now.saturating_sub(victim_slot) {
            &s.beams
        } else {
            &[]
        }
    }
}

/// A UE's positions at its last two channel updates, for beam targets that must not
/// depend on whether its update at this instant has run yet.
#[derive(Clone, Copy, Debug)]
pub(super) struct PositionHistory {
    /// `[previous, latest]` (time, position).
    at: [(SimTime, Vec3); 2],
}

impl PositionHistory {
    /// A UE at `start` from time zero.
    pub(super) fn new(start: Vec3) -> PositionHistory {
        PositionHistory {
            at: [(SimTime::ZERO, start); 2],
        }
    }

    /// The UE is at `pos` at `now` (a channel update).
    pub(super) fn push(&mut self, now: SimTime, pos: Vec3) {
        if now > self.at[1].0 {
            self.at[0] = self.at[1];
        }
        self.at[1] = (now, pos);
    }

    /// The position of the latest update before `now` (at time zero: the start).
    fn before(&self, now: SimTime) -> Vec3 {
        if self.at[1].0 < now {
            self.at[1].1
        } else {
            self.at[0].1
        }
    }
}

/// An interfering cell's link to a UE's leg, fixed between two channel updates of the
/// UE: (cell index, its power at the UE through the UE's beam and without any gNB array
/// gain, mW; the UE's direction from the cell).
pub(super) type InterfererLink = (usize, f64, Sighting);

impl Ran {
    /// The noise and interference power at UE `u` on its leg `l` at `now`, mW: `noise_mw`
    /// plus each interferer's power, added as it is found, in the order
    /// [`sinr_db`](mmtsim_channel::budget::sinr_db) adds its list (noise first), without
    /// a list; `noise_mw` alone with interference off. Uses the link gains of the UE's latest channel update
    /// (with beams, through the leg's interfering links, which
    /// [`Ran::refresh_interferers`] brings up to that update).
    pub(super) fn noise_and_interference_mw(
        &mut self,
        u: UeId,
        l: usize,
        now: SimTime,
        noise_mw: f64,
    ) -> f64 {
        let mut total_mw = noise_mw;
        match self.interference {
            Interference::Off => {}
            Interference::FullBufferOmni => {
                self.each_omni(u, l, |_, dbm| total_mw += db_to_lin(dbm))
            }
            Interference::FullBuffer => {
                for (g, base_mw, toward) in &self.ues[u.index()].legs[l].interferers {
                    full_buffer(
                        &self.cells[*g],
                        &self.ues,
                        now,
                        *base_mw,
                        toward,
                        &mut total_mw,
                    );
                }
            }
            Interference::Active => {
                let cells = &self.cells;
                let leg = &mut self.ues[u.index()].legs[l];
                let victim_slot = cells[leg.cell.index()].radio.slot;
                for ((g, base_mw, toward), memo) in leg.interferers.iter().zip(&mut leg.beam_gains)
                {
                    let cell = &cells[*g];
                    for beam in cell.activity.at(now, victim_slot) {
                        total_mw += memo.power_mw(&cell.radio.gnb_array, beam, toward, *base_mw);
                    }
                }
            }
        }
        total_mw
    }

    /// Recomputes the interfering links of UE `u`'s leg `l` from its latest channel update
    /// (the modes with beams; in `Active` mode a block's decoding then only adds the beams
    /// of its slot): for every other cell g on the leg's carrier, its link's power through
    /// the UE's beam (pointed at the leg's own cell) and without any gNB array gain, and the
    /// UE's direction seen from g.
    pub(super) fn refresh_interferers(&mut self, u: UeId, l: usize) {
        let ui = u.index();
        // The previous update's links and memos, rewritten in place.
        let mut links = std::mem::take(&mut self.ues[ui].legs[l].interferers);
        let mut memos = std::mem::take(&mut self.ues[ui].legs[l].beam_gains);
        let mut bearings = std::mem::take(&mut self.ues[ui].bearings);
        let mut k = 0;
        let ue = &self.ues[ui];
        bearings.at(ue.position, self.cells.len());
        let own = ue.legs[l].cell.index();
        let ue_beam = bearings.get(own, self.cells[own].position, ue.position).1;
        let own = &self.cells[own];
        self.each_omni(u, l, |g, omni_dbm| {
            let cell = &self.cells[g];
            let (toward, to_cell) = bearings.get(g, cell.position, ue.position);
            // A memo stays valid while its interferer and the victim's direction from it do.
            let kept = links
                .get(k)
                .is_some_and(|&(og, _, ot)| og == g && ot.bearing.bits() == toward.bearing.bits());
            if k == memos.len() {
                memos.push(BeamGains::default());
            }
            let memo = &mut memos[k];
            if !kept {
                memo.forget_beams();
            }
            let dbm = omni_dbm + memo.ue_gain(&own.radio.ue_array, ue_beam, to_cell);
            let link = (g, memo.base_mw(dbm), toward);
            match links.get_mut(k) {
                Some(slot) => *slot = link,
                None => links.push(link),
            }
            k += 1;
        });
        links.truncate(k);
        memos.truncate(k);
        self.ues[ui].bearings = bearings;
        let leg = &mut self.ues[ui].legs[l];
        leg.interferers = links;
        leg.beam_gains = memos;
    }

    /// Calls `f(g, dBm)` for every other cell g on the carrier of UE `u`'s leg `l`, with
    /// the power of its link at 0 dBi at both ends: the serving convention's ideal array
    /// gain taken out.
    fn each_omni(&self, u: UeId, l: usize, mut f: impl FnMut(usize, f64)) {
        let ue = &self.ues[u.index()];
        let serving = ue.legs[l].cell.index();
        let carrier = self.cells[serving].radio.num.carrier_hz;
        for (g, cell) in self.cells.iter().enumerate() {
            if g == serving || cell.radio.num.carrier_hz != carrier {
                continue;
            }
            let r = &cell.radio;
            f(
                g,
                r.num.gnb_tx_power_dbm + ue.chans[g].last_sample().gain_db - r.bf_gain_db,
            );
        }
    }
}

/// The beams of cell `cell` transmitting all the time, its time shared equally among the
/// UEs it serves, each added to `total_mw`; a cell serving nobody aims at the victim (its
/// peak gain). `toward` is the victim's direction from the cell. Powers in mW.
fn full_buffer(
    cell: &Cell,
    ues: &[Ue],
    now: SimTime,
    base_mw: f64,
    toward: &Sighting,
    total_mw: &mut f64,
) {
    let array = &cell.radio.gnb_array;
    if cell.legs.is_empty() {
        *total_mw += base_mw * array.elements() as f64;
        return;
    }
    let share = 1.0 / cell.legs.len() as f64;
    for &(k, _) in &cell.legs {
        let beam = array.steer(Bearing::between(
            cell.position,
            ues[k.index()].positions.before(now),
        ));
        *total_mw += base_mw * array.gain_steered_lin(&beam, toward) * share;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: fn(u64) -> SimTime = SimTime::from_us;

    fn p(x: f64) -> Vec3 {
        Vec3 { x, y: 0.0, z: 1.5 }
    }

    /// A beam at azimuth `azimuth_deg` on `share` of a slot (entry and stamp are the
    /// beam table's business; here they only tell the two beams apart).
    fn beam(k: u32, azimuth_deg: f64, share: f64) -> Beam {
        Beam {
            entry: k,
            stamp: k as u64 + 1,
            steered: mmtsim_channel::antenna::PanelArray::of(64).steer(Bearing {
                azimuth_deg,
                zenith_deg: 95.0,
            }),
            share,
        }
    }

    #[test]
    fn the_slot_before_counts_whether_or_not_this_slot_has_run() {
        // A neighbour with 100 µs slots sent on a beam at azimuth 1° on 11 of 22 symbols
        // in its slot at 0, and at 2° on all in its slot at 100 µs.
        let (half, full) = (beam(0, 1.0, 0.5), beam(1, 2.0, 1.0));
        let mut a = Activity::new();
        assert!(a.at(US(0), US(100)).is_empty());
        a.begin(US(0), US(100));
        a.record(half);
        // A victim at 100 µs before the neighbour's slot at 100 µs has run...
        assert_eq!(a.at(US(100), US(100)), &[half]);
        a.begin(US(100), US(100));
        a.record(full);
        // ... and after: the same answer.
        assert_eq!(a.at(US(100), US(100)), &[half]);
        assert_eq!(a.at(US(200), US(100)), &[full]);
        // A neighbour that slept since: its last slot ended at 200 µs, before the victim's
        // previous slot [300, 400) µs began.
        assert!(a.at(US(400), US(100)).is_empty());
        // A victim with 125 µs slots at 250 µs: [125, 250) overlaps the slot at 100 µs.
        assert_eq!(a.at(US(250), US(125)), &[full]);
    }

    /// The two-cell geometry of the world's `it/interference.rs`, hand-computed there: g1
    /// at (0, 0, 10) serves ue1 at (60, 0, 1.5); g2 at (−100, 10, 10) serves ue2 at
    /// (−40, 5, 1.5) (or, `ue2_cell` 0, g1 serves it too); 2017 preset, UMi LOS, no
    /// fading or shadowing.
    fn two_cells(mode: Interference, ue2_cell: usize) -> Ran {
        use crate::config::{CellConfig, CellRadio, RanConfig, UeConfig};
        use crate::mac::scheduler::SchedulerKind;
        use crate::pdcp::PdcpConfig;
        use crate::phy::numerology::preset;
        use crate::rlc::RlcConfig;
        use mmtsim_channel::budget::beamforming_gain_db;
        use mmtsim_channel::link::{LinkParams, LosMode};
        use mmtsim_channel::mobility::MobilitySpec;
        use mmtsim_channel::pathloss::PathLossModel;
        use mmtsim_engine::ids::{CellId, NodeId};
        use mmtsim_engine::RngStreams;
        let v = |x: f64, y: f64, z: f64| Vec3 { x, y, z };
        let num = preset("mmwave-2017").expect("a preset");
        let radio = CellRadio {
            scheduler: SchedulerKind::RoundRobin,
            harq: true,
            cqi_delay: US(200),
            bsr_delay: US(300),
            link: LinkParams {
                model: PathLossModel::Umi,
                fc_hz: num.carrier_hz,
                shadowing: false,
                fading: false,
                bf_gain_db: beamforming_gain_db(num.gnb_antennas, num.ue_antennas),
                blockage: None,
                o2i: None,
                los_mode: LosMode::Geometric,
            },
            numerology: num,
        };
        let cell = |i: u32, name: &str, position: Vec3| CellConfig {
            name: name.into(),
            node: NodeId(i),
            position,
            radio: radio.clone(),
        };
        let ue = |i: u32, name: &str, c: usize, pos: Vec3| UeConfig {
            name: name.into(),
            node: NodeId(2 + i),
            cell: CellId::from_index(c),
            secondary: None,
            mobility: MobilitySpec::Static { pos },
            indoor: false,
            outages: Vec::new(),
            sinr_trace: None,
        };
        let cfg = RanConfig {
            rlc: RlcConfig::default(),
            pdcp: PdcpConfig::default(),
            channel_update: US(1000),
            interference: mode,
            boxes: Vec::new(),
            vehicles: Vec::new(),
            cells: vec![
                cell(0, "g1", v(0.0, 0.0, 10.0)),
                cell(1, "g2", v(-100.0, 10.0, 10.0)),
            ],
            ues: vec![
                ue(0, "ue1", 0, v(60.0, 0.0, 1.5)),
                ue(1, "ue2", ue2_cell, v(-40.0, 5.0, 1.5)),
            ],
            handover: Default::default(),
            dual: None,
        };
        Ran::new(&cfg, &RngStreams::new(1))
    }

    #[test]
    fn a_block_is_decoded_at_the_interference_of_its_own_slot() {
        // Hand values (it/interference.rs): ue1's SNR 40.3280 dB; with g2 sending to ue2
        // on the whole slot, 11.0946 dB.
        let mut ran = two_cells(Interference::Active, 1);
        let (ue1, ue2) = (UeId::from_index(0), UeId::from_index(1));
        let g2 = mmtsim_engine::ids::CellId::from_index(1);
        // 100 packets of 1400 B for ue2: more than one slot's 39,187-byte block.
        let mut wake = None;
        for id in 0..100 {
            wake = ran
                .enqueue(US(0), ue2, mmtsim_net::Direction::Downlink, id, 1400)
                .expect("room in the buffer")
                .or(wake);
        }
        assert_eq!(wake, Some((g2, US(0))));
        let mut out = super::super::RanOutput::default();
        ran.slot(US(0), g2, &mut out);
        assert_eq!(ran.ue_stats(ue2).tbs[0], 1);
        let close = |a: f64, e: f64| assert!((a - e).abs() < 0.01, "{a} vs {e}");
        // In g2's own slot, ue1 sees g2's slot before it: none.
        close(ran.decode_sinr_dl(ue1, 0, US(0)), 40.3280);
        // In the next slot, g2's slot at 0 (all 22 symbols to ue2).
        close(ran.decode_sinr_dl(ue1, 0, US(100)), 11.0946);
        // g2 did not run at 100 µs: at 200 µs nothing.
        close(ran.decode_sinr_dl(ue1, 0, US(200)), 40.3280);
        // The reported SINR of the update at 0 had no interference either; full buffer
        // counts g2 whether it sends or not.
        close(ran.ues[0].legs[0].sinr[0], 40.3280);
        let ran = two_cells(Interference::FullBuffer, 1);
        close(ran.ues[0].legs[0].sinr[0], 11.0946);
    }

    #[test]
    fn a_full_buffer_cell_serving_nobody_aims_at_the_victim() {
        // g2 serves nobody: its 8×8 beam's peak 10·log10(64) = 18.0618 dB toward ue1, so
        // I = 30 − 107.6603 + 18.0618 + 11.5414 = −48.0571 dBm (the hand values of
        // it/interference.rs) and SINR = −38.6719 − 10·log10(10^−7.9 + 10^−4.80571)
        // = 9.3816 dB.
        let ran = two_cells(Interference::FullBuffer, 0);
        let sinr = ran.ues[0].legs[0].sinr[0];
        assert!((sinr - 9.3816).abs() < 0.01, "{sinr}");
    }

    #[test]
    fn positions_before_an_instant() {
        let mut h = PositionHistory::new(p(0.0));
        assert_eq!(h.before(SimTime::ZERO), p(0.0));
        h.push(SimTime::ZERO, p(0.0));
        h.push(US(1000), p(1.0));
        assert_eq!(h.before(US(1000)), p(0.0));
        assert_eq!(h.before(US(1001)), p(1.0));
        // A second update at one instant replaces the first.
        h.push(US(1000), p(1.5));
        assert_eq!(h.before(US(1000)), p(0.0));
        assert_eq!(h.before(US(2000)), p(1.5));
    }
}
