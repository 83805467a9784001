//! What the downlink interference model remembers so that it computes each gain and
//! power once: the bearings between a UE and every cell, the beams each cell has aimed
//! at its UEs, and per victim leg the gain and power of each interfering beam.
//!
//! # Why
//! In `Interference::Active` every downlink block sums the power of every beam the
//! other cells used in the slot before (see `interference.rs`). With 100 UEs in 10 cells
//! that is some 20 million (victim, beam) terms per simulated second, and each term needs
//! the beam's array gain toward the victim (eight trigonometric functions and two
//! logarithms, TR 38.901 §7.3 [TR38901 §7.3]) and its power in milliwatts (a `pow`).
//! A beam's direction changes only when the UE it serves moves, and the victim's
//! direction only when the victim moves, so almost every term was computed before.
//! Of a gain's functions, three and a logarithm depend on the beam alone or on the
//! direction alone: they are computed when the beam is aimed (a steered beam) or the
//! victim moves (a sighting), and a pair's gain costs a sine, two cosines (the array
//! factor as a Chebyshev polynomial, `antenna.rs`) and the element pattern's `10^(x/10)`.
//!
//! A term's power is the product, in linear units, of the link's power at 0 dBi (mW,
//! converted at a channel update of the victim that changed it), the beam's gain toward
//! the victim (a ratio, once per direction of the beam) and the beam's share of the
//! slot. The share changes from slot to slot (with full buffers two terms in three meet
//! a share other than the one before), so a power summed in dBm needed a `10^(dBm/10)`
//! for almost every term: a product needs none. The product equals `10^((P + G + s)/10)`
//! of the dB sum to rounding (a few units in the last place of a milliwatt value).
//!
//! # How results stay the same
//! Every remembered value is keyed on the exact bits of what it was computed from:
//! - a cell's beam toward a UE on the UE's position (the bearing is recomputed when
//!   any coordinate changes);
//! - each new direction of a cell's beam gets a stamp unique within the cell, so a
//!   victim's remembered gain holds exactly while the stamp it was computed for does.
//!
//! A remembered value is therefore the one the formula would give again, and a run's
//! results are those of computing every term afresh (tests below check each memo
//! against the direct computation).

use mmtsim_channel::antenna::{Bearing, PanelArray, Sighting, SteeredBeam};
use mmtsim_channel::budget::db_to_lin;
use mmtsim_channel::geometry::Vec3;
use mmtsim_engine::ids::UeId;
use mmtsim_engine::memo::LastValue;

/// The bearings between a UE and each cell at the UE's position (a static UE asks for
/// the same ones at every channel update): by cell, (the UE seen from the cell, with the
/// trigonometry of its gain terms, and the cell seen from the UE). Cells do not move.
#[derive(Clone, Debug, Default)]
pub(super) struct Bearings {
    /// The position they hold for, bit for bit.
    at: Option<[u64; 3]>,
    by_cell: Vec<Option<(Sighting, Bearing)>>,
}

impl Bearings {
    /// The UE is at `pos`: what was computed elsewhere is forgotten.
    pub(super) fn at(&mut self, pos: Vec3, cells: usize) {
        if self.at != Some(pos.bits()) || self.by_cell.len() != cells {
            self.at = Some(pos.bits());
            self.by_cell.clear();
            self.by_cell.resize(cells, None);
        }
    }

    /// The bearings between cell `g` at `cell` and the UE at `ue` (the position of the
    /// last [`Self::at`]).
    pub(super) fn get(&mut self, g: usize, cell: Vec3, ue: Vec3) -> (Sighting, Bearing) {
        *self.by_cell[g].get_or_insert_with(|| {
            (
                Sighting::new(Bearing::between(cell, ue)),
                Bearing::between(ue, cell),
            )
        })
    }
}

/// One downlink transmission of a cell, as the other cells' UEs see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Beam {
    /// The beam's entry in its cell's [`BeamTable`].
    pub(super) entry: u32,
    /// Stamp of the beam's direction, unique within the cell.
    pub(super) stamp: u64,
    /// The cell's array steered from the cell toward the UE it served.
    pub(super) steered: SteeredBeam,
    /// Share of the slot's resource units (0..=1).
    pub(super) share: f64,
}

/// A cell's beam toward one UE: where the UE was when it was aimed and the beam steered
/// there (`None`: not yet).
#[derive(Clone, Copy, Debug)]
struct Aim {
    at: Option<([u64; 3], SteeredBeam)>,
    stamp: u64,
}

impl Aim {
    /// An entry for a UE the cell has not aimed at yet: `aim` fills it in as for a UE
    /// that moved.
    const UNAIMED: Aim = Aim { at: None, stamp: 0 };
}

/// The beams a cell has aimed, one entry per UE it ever sent to (entries are never
/// reused, so a cell's table grows with the UEs it served, not with time).
#[derive(Clone, Debug, Default)]
pub(super) struct BeamTable {
    /// By UE: its entry, if the cell ever sent to it.
    entry_of: Vec<Option<u32>>,
    aims: Vec<Aim>,
    /// The last stamp given (stamps start at 1: 0 is "no gain remembered").
    stamp: u64,
}

impl BeamTable {
    /// The cell at `cell`, with `array`, sends to UE `u` at `ue` on `share` of the slot's
    /// units.
    pub(super) fn aim(
        &mut self,
        u: UeId,
        array: &PanelArray,
        cell: Vec3,
        ue: Vec3,
        share: f64,
    ) -> Beam {
        let ui = u.index();
        if self.entry_of.len() <= ui {
            self.entry_of.resize(ui + 1, None);
        }
        let e = match self.entry_of[ui] {
            Some(e) => e as usize,
            None => {
                self.entry_of[ui] = Some(self.aims.len() as u32);
                self.aims.push(Aim::UNAIMED);
                self.aims.len() - 1
            }
        };
        let a = &mut self.aims[e];
        let steered = match a.at {
            Some((at, steered)) if at == ue.bits() => steered,
            _ => {
                self.stamp += 1;
                let steered = array.steer(Bearing::between(cell, ue));
                a.at = Some((ue.bits(), steered));
                a.stamp = self.stamp;
                steered
            }
        };
        Beam {
            entry: e as u32,
            stamp: a.stamp,
            steered,
            share,
        }
    }
}

/// What a victim leg remembers of one interfering beam: its gain toward the victim
/// (a power ratio) and the stamp of the beam direction it is for (0: none).
#[derive(Clone, Copy, Debug)]
struct Term {
    stamp: u64,
    gain: f64,
}

const NO_TERM: Term = Term {
    stamp: 0,
    gain: f64::NAN,
};

/// One interferer's beams as one victim leg sees them, for the victim's current
/// direction from the interferer, by the beam's entry in the interferer's [`BeamTable`].
#[derive(Clone, Debug, Default)]
pub(super) struct BeamGains {
    terms: Vec<Term>,
    /// The UE's own side: the gain of its beam toward the interferer, by the bits of both
    /// bearings, which change only when the UE moves or changes cell.
    ue_side: LastValue<([u64; 2], [u64; 2]), f64>,
    /// The link's power through the UE's beam at 0 dBi at the gNB, mW, by its dBm bits:
    /// the same at every update of a link whose ends and random terms stood still.
    base: LastValue<u64, f64>,
}

impl BeamGains {
    /// The victim moved (or the interferer changed): no gain holds any more.
    pub(super) fn forget_beams(&mut self) {
        self.terms.clear();
    }

    /// The power at the victim of `beam` from an interferer with `array`, mW: `base_mw`
    /// (the link at 0 dBi at the gNB) times the beam's gain toward `toward` (the victim
    /// seen from the interferer) times its share of the slot.
    pub(super) fn power_mw(
        &mut self,
        array: &PanelArray,
        beam: &Beam,
        toward: &Sighting,
        base_mw: f64,
    ) -> f64 {
        let e = beam.entry as usize;
        if self.terms.len() <= e {
            self.terms.resize(e + 1, NO_TERM);
        }
        let t = &mut self.terms[e];
        if t.stamp != beam.stamp {
            t.stamp = beam.stamp;
            t.gain = array.gain_steered_lin(&beam.steered, toward);
        }
        base_mw * t.gain * beam.share
    }

    /// `dbm` in milliwatts.
    pub(super) fn base_mw(&mut self, dbm: f64) -> f64 {
        self.base.get_or(dbm.to_bits(), || db_to_lin(dbm))
    }

    /// The gain of the UE's `array`, its beam steered at `beam`, toward `toward`.
    pub(super) fn ue_gain(&mut self, array: &PanelArray, beam: Bearing, toward: Bearing) -> f64 {
        self.ue_side
            .get_or((beam.bits(), toward.bits()), || array.gain_db(beam, toward))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mmtsim_channel::budget::lin_to_db;

    /// A UE at `x` on the x axis, 1.5 m up.
    fn p(x: f64) -> Vec3 {
        Vec3 { x, y: 0.0, z: 1.5 }
    }

    /// A cell at `x` on the x axis, 10 m up.
    fn site(x: f64) -> Vec3 {
        Vec3 { x, y: 0.0, z: 10.0 }
    }

    #[test]
    fn remembered_bearings_follow_the_ue() {
        // A cell 100 m east of the UE at 10 m: the UE sees it at azimuth 0°, the cell sees
        // the UE at 180°. After the UE moves to 100 m west of the cell, at 0° and 180°
        // swapped; back at the start, the first pair again.
        let cell = site(100.0);
        let mut m = Bearings::default();
        for (x, from_cell, from_ue) in [(0.0, 180.0, 0.0), (200.0, 0.0, 180.0), (0.0, 180.0, 0.0)] {
            m.at(p(x), 2);
            let (toward, to_cell) = m.get(1, cell, p(x));
            assert_eq!(toward.bearing.azimuth_deg, from_cell, "UE at x = {x}");
            assert_eq!(to_cell.azimuth_deg, from_ue, "UE at x = {x}");
            assert_eq!(
                (toward, to_cell),
                (
                    Sighting::new(Bearing::between(cell, p(x))),
                    Bearing::between(p(x), cell)
                )
            );
        }
    }

    #[test]
    fn a_beam_is_restamped_exactly_when_its_ue_moves() {
        let cell = site(0.0);
        let mut t = BeamTable::default();
        let array = PanelArray::of(64);
        let (u1, u2) = (UeId::from_index(1), UeId::from_index(4));
        let a = t.aim(u1, &array, cell, p(50.0), 0.5);
        // The beam points at the UE, on half the slot.
        assert_eq!(a.steered, array.steer(Bearing::between(cell, p(50.0))));
        assert_eq!(a.share, 0.5);
        // Same position, other share: same direction and stamp.
        let b = t.aim(u1, &array, cell, p(50.0), 1.0);
        assert_eq!((b.entry, b.stamp, b.share), (a.entry, a.stamp, 1.0));
        // Another UE: its own entry and stamp.
        let c = t.aim(u2, &array, cell, p(-50.0), 1.0);
        assert_ne!(c.entry, a.entry);
        assert_ne!(c.stamp, a.stamp);
        // The first UE moves by a nanometre: a new stamp for its entry.
        let d = t.aim(u1, &array, cell, p(50.0 + 1e-9), 1.0);
        assert_eq!(d.entry, a.entry);
        assert!(d.stamp != a.stamp && d.stamp != c.stamp);
        assert_eq!(d.steered.bearing, Bearing::between(cell, p(50.0 + 1e-9)));
    }

    #[test]
    fn remembered_powers_are_the_computed_ones() {
        let cell = site(0.0);
        let array = PanelArray::of(64);
        let mut table = BeamTable::default();
        let mut memo = BeamGains::default();
        let toward = Bearing::between(cell, p(-80.0));
        let seen = Sighting::new(toward);
        let base_dbm = -70.25;
        let base_mw = db_to_lin(base_dbm);
        // The base power in mW is the conversion of the dBm it is asked for, kept or not.
        for dbm in [base_dbm, base_dbm, -60.0, base_dbm, base_dbm + 1e-12] {
            assert_eq!(
                memo.base_mw(dbm).to_bits(),
                db_to_lin(dbm).to_bits(),
                "{dbm}"
            );
        }
        // Five UEs, some moving, with changing shares, over rounds: every power is exactly
        // base × gain × share with the gain of the beam's current direction, and that is
        // 10^((base + gain + share)/10), all in dB, to rounding.
        for round in 0..6 {
            for k in 0..5u32 {
                let x = 20.0 + 15.0 * k as f64 + if k % 2 == 1 { round as f64 } else { 0.0 };
                let share = [1.0, 0.5, 0.3][(round + k as usize) % 3];
                let beam = table.aim(UeId::from_index(k as usize), &array, cell, p(x), share);
                let direct = array.steer(Bearing::between(cell, p(x)));
                let want = base_mw * array.gain_steered_lin(&direct, &seen) * share;
                let got = memo.power_mw(&array, &beam, &seen, base_mw);
                assert_eq!(got.to_bits(), want.to_bits(), "round {round}, UE {k}");
                let in_db =
                    db_to_lin(base_dbm + array.gain_db(direct.bearing, toward) + lin_to_db(share));
                assert!((got - in_db).abs() <= 1e-13 * in_db, "{got} vs {in_db}");
            }
            if round == 3 {
                // The victim moved: gains are computed again, toward its new direction.
                memo.forget_beams();
            }
        }
    }
}
