//! The handover decision of one UE, evaluated at each of its measurement instants on the
//! L3-filtered measurements ([`super::measure`]).
//!
//! **Event A3** [TS38331 §5.5.4.4], neighbour becomes offset better than the serving
//! cell (SpCell). With Mn, Mp the filtered RSRP of the neighbour and of the serving cell
//! (dBm), Off the offset and Hys the hysteresis (dB):
//! - entering condition: Mn + Ofn + Ocn − Hys > Mp + Ofp + Ocp + Off;
//! - leaving condition: Mn + Ofn + Ocn + Hys < Mp + Ofp + Ocp + Off.
//!
//! **Simplification:** the frequency- and cell-specific offsets Ofn, Ocn, Ofp, Ocp are 0.
//! A neighbour joins the triggered cells when the entering condition holds at every
//! measurement during time-to-trigger, and leaves them when the leaving condition does
//! [TS38331 §5.5.4.1]; a neighbour newly triggered is reported, and the source decides a
//! handover to the best (highest Mn) of the newly triggered cells. A3 is intra-frequency:
//! only cells on the serving cell's carrier are neighbours (another carrier's RSRP is not
//! comparable: its path loss and bandwidth differ).
//!
//! **Threshold** (shaped like event A5, on SINR): the serving cell's filtered SINR is
//! below the threshold and the best other cell's (any carrier) exceeds it by more than
//! Hys, at every measurement during time-to-trigger; the target is the best cell at the
//! trigger. ns-3 mmWave's `THRESHOLD` handover mode [NS3-MMW-HEAD] hands over as soon as
//! the best cell's SINR exceeds the serving cell's by more than `HoSinrDifference` (5 dB):
//! this rule with a threshold above any SINR, Hys = 5 dB and TTT = 0.
//!
//! Time-to-trigger is checked at measurement instants: a condition first seen at t
//! triggers at the first measurement at or after t + TTT, so with a TTT that is a
//! multiple of the measurement period, exactly at t + TTT. With a dynamic TTT
//! ([`super::DynamicTtt`]) the TTT of an instant is taken from the candidate's filtered
//! SINR advantage over the serving cell then.

use super::{Algorithm, DynamicTtt, HandoverConfig};
use mmtsim_engine::ids::CellId;
use mmtsim_engine::SimTime;

/// One cell as a UE measured it (values L3-filtered).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellMeasurement {
    /// The cell.
    pub cell: CellId,
    /// Carrier frequency, Hz (A3 compares cells on one carrier).
    pub carrier_hz: f64,
    /// Filtered RSRP, dBm.
    pub rsrp_dbm: f64,
    /// Filtered downlink SINR, dB.
    pub sinr_db: f64,
    /// Whether the cell may become the UE's serving cell (not serving it now on any leg).
    pub eligible: bool,
}

/// The decision state of one UE.
#[derive(Clone, Debug)]
pub struct Trigger {
    algorithm: Algorithm,
    offset_db: f64,
    hysteresis_db: f64,
    ttt: SimTime,
    dynamic_ttt: Option<DynamicTtt>,
    sinr_threshold_db: f64,
    /// A3: per cell, since when the entering condition has held (untriggered cells).
    entering: Vec<Option<SimTime>>,
    /// A3: per cell, since when the leaving condition has held (triggered cells).
    leaving: Vec<Option<SimTime>>,
    /// A3: the cells in the triggered list.
    triggered: Vec<bool>,
    /// Threshold: since when its condition has held.
    below: Option<SimTime>,
}

impl Trigger {
    /// The state of a UE in a network of `cells` cells.
    pub fn new(cfg: &HandoverConfig, cells: usize) -> Trigger {
        Trigger {
            algorithm: cfg.algorithm,
            offset_db: cfg.offset_db,
            hysteresis_db: cfg.hysteresis_db,
            ttt: cfg.ttt,
            dynamic_ttt: cfg.dynamic_ttt,
            sinr_threshold_db: cfg.sinr_threshold_db,
            entering: vec![None; cells],
            leaving: vec![None; cells],
            triggered: vec![false; cells],
            below: None,
        }
    }

    /// Forgets every condition (the measurement configuration restarts with a new serving
    /// cell).
    pub fn reset(&mut self) {
        self.entering.iter_mut().for_each(|e| *e = None);
        self.leaving.iter_mut().for_each(|e| *e = None);
        self.triggered.iter_mut().for_each(|e| *e = false);
        self.below = None;
    }

    /// The measurements of instant `now`: `serving` is the serving cell's entry in
    /// `cells`. Returns the target of a handover the source decides on, if any.
    pub fn evaluate(
        &mut self,
        now: SimTime,
        serving: CellId,
        cells: &[CellMeasurement],
    ) -> Option<CellId> {
        let sp = cells.iter().find(|m| m.cell == serving)?;
        match self.algorithm {
            Algorithm::None => None,
            Algorithm::A3 => self.a3(now, sp, cells),
            Algorithm::Threshold => self.threshold(now, sp, cells),
        }
    }

    /// Whether a condition that has held since `since` has held for the TTT, the
    /// candidate being `delta_db` better in SINR than the serving cell now.
    fn held(&self, since: SimTime, now: SimTime, delta_db: f64) -> bool {
        let ttt = self.dynamic_ttt.map_or(self.ttt, |d| d.ttt(delta_db));
        now.saturating_sub(since) >= ttt
    }

    fn a3(
        &mut self,
        now: SimTime,
        sp: &CellMeasurement,
        cells: &[CellMeasurement],
    ) -> Option<CellId> {
        let mp = sp.rsrp_dbm;
        let mut best: Option<&CellMeasurement> = None;
        for m in cells {
            let n = m.cell.index();
            if !m.eligible || m.carrier_hz != sp.carrier_hz {
                self.entering[n] = None;
                self.leaving[n] = None;
                self.triggered[n] = false;
                continue;
            }
            let mn = m.rsrp_dbm;
            if !self.triggered[n] {
                if mn - self.hysteresis_db > mp + self.offset_db {
                    let since = *self.entering[n].get_or_insert(now);
                    if self.held(since, now, m.sinr_db - sp.sinr_db) {
                        self.triggered[n] = true;
                        self.entering[n] = None;
                        if best.is_none_or(|b| mn > b.rsrp_dbm) {
                            best = Some(m);
                        }
                    }
                } else {
                    self.entering[n] = None;
                }
            } else if mn + self.hysteresis_db < mp + self.offset_db {
                let since = *self.leaving[n].get_or_insert(now);
                if self.held(since, now, sp.sinr_db - m.sinr_db) {
                    self.triggered[n] = false;
                    self.leaving[n] = None;
                }
            } else {
                self.leaving[n] = None;
            }
        }
        best.map(|b| b.cell)
    }

    fn threshold(
        &mut self,
        now: SimTime,
        sp: &CellMeasurement,
        cells: &[CellMeasurement],
    ) -> Option<CellId> {
        let best =
            cells
                .iter()
                .filter(|m| m.eligible)
                .fold(None::<&CellMeasurement>, |b, m| match b {
                    Some(b) if b.sinr_db >= m.sinr_db => Some(b),
                    _ => Some(m),
                });
        let holds = best.is_some_and(|b| {
            sp.sinr_db < self.sinr_threshold_db && b.sinr_db > sp.sinr_db + self.hysteresis_db
        });
        if !holds {
            self.below = None;
            return None;
        }
        let since = *self.below.get_or_insert(now);
        let delta_db = best.map_or(0.0, |b| b.sinr_db - sp.sinr_db);
        if self.held(since, now, delta_db) {
            self.below = None;
            return best.map(|b| b.cell);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(algorithm: Algorithm, ttt_ms: u64) -> HandoverConfig {
        HandoverConfig {
            algorithm,
            offset_db: 3.0,
            hysteresis_db: 1.0,
            ttt: SimTime::from_ms(ttt_ms),
            sinr_threshold_db: 0.0,
            ..HandoverConfig::default()
        }
    }

    fn m(cell: usize, rsrp_dbm: f64, sinr_db: f64) -> CellMeasurement {
        CellMeasurement {
            cell: CellId::from_index(cell),
            carrier_hz: 28e9,
            rsrp_dbm,
            sinr_db,
            eligible: cell != 0,
        }
    }

    fn ms(t: u64) -> SimTime {
        SimTime::from_ms(t)
    }

    const SERVING: CellId = CellId(0);

    #[test]
    fn a3_enters_strictly_above_offset_plus_hysteresis() {
        // Off + Hys = 4 dB: a neighbour exactly 4 dB better does not enter (strict >),
        // 4.01 dB better does, at once with TTT = 0.
        let mut t = Trigger::new(&cfg(Algorithm::A3, 0), 2);
        assert_eq!(
            t.evaluate(ms(0), SERVING, &[m(0, -80.0, 0.0), m(1, -76.0, 0.0)]),
            None
        );
        assert_eq!(
            t.evaluate(ms(40), SERVING, &[m(0, -80.0, 0.0), m(1, -75.99, 0.0)]),
            Some(CellId(1))
        );
        // Triggered: not reported again while it stays triggered.
        assert_eq!(
            t.evaluate(ms(80), SERVING, &[m(0, -80.0, 0.0), m(1, -70.0, 0.0)]),
            None
        );
    }

    #[test]
    fn a3_needs_the_condition_at_every_measurement_during_ttt() {
        // TTT 100 ms, measurements every 40 ms from 0: entering at 0, 40, 80 and 120 ms
        // triggers at 120 ms (the first instant ≥ 0 + 100 ms); a miss at 80 ms restarts.
        let serving = m(0, -80.0, 0.0);
        let better = m(1, -70.0, 0.0);
        let worse = m(1, -78.0, 0.0);
        let mut t = Trigger::new(&cfg(Algorithm::A3, 100), 2);
        for at in [0, 40, 80] {
            assert_eq!(t.evaluate(ms(at), SERVING, &[serving, better]), None);
        }
        assert_eq!(
            t.evaluate(ms(120), SERVING, &[serving, better]),
            Some(CellId(1))
        );

        let mut t = Trigger::new(&cfg(Algorithm::A3, 100), 2);
        for (at, n) in [
            (0, better),
            (40, better),
            (80, worse),
            (120, better),
            (160, better),
        ] {
            assert_eq!(
                t.evaluate(ms(at), SERVING, &[serving, n]),
                None,
                "at {at} ms"
            );
        }
        assert_eq!(t.evaluate(ms(200), SERVING, &[serving, better]), None);
        assert_eq!(
            t.evaluate(ms(220), SERVING, &[serving, better]),
            Some(CellId(1))
        );
    }

    #[test]
    fn a3_leaves_below_offset_minus_hysteresis_and_can_trigger_again() {
        // Leaving: Mn + Hys < Mp + Off, i.e. Mn < Mp + 2 dB. At Mp + 2.5 dB the cell stays
        // triggered; at Mp + 1.9 dB it leaves, and re-entering reports it again.
        let serving = m(0, -80.0, 0.0);
        let mut t = Trigger::new(&cfg(Algorithm::A3, 0), 2);
        assert_eq!(
            t.evaluate(ms(0), SERVING, &[serving, m(1, -75.0, 0.0)]),
            Some(CellId(1))
        );
        assert_eq!(
            t.evaluate(ms(1), SERVING, &[serving, m(1, -77.5, 0.0)]),
            None
        );
        assert_eq!(
            t.evaluate(ms(2), SERVING, &[serving, m(1, -75.0, 0.0)]),
            None
        );
        assert_eq!(
            t.evaluate(ms(3), SERVING, &[serving, m(1, -78.1, 0.0)]),
            None
        );
        assert_eq!(
            t.evaluate(ms(4), SERVING, &[serving, m(1, -75.0, 0.0)]),
            Some(CellId(1))
        );
    }

    #[test]
    fn a3_picks_the_strongest_newly_triggered_cell_on_the_serving_carrier() {
        let serving = m(0, -80.0, 0.0);
        let other_carrier = CellMeasurement {
            carrier_hz: 2e9,
            ..m(3, -50.0, 20.0)
        };
        let mut t = Trigger::new(&cfg(Algorithm::A3, 0), 4);
        assert_eq!(
            t.evaluate(
                ms(0),
                SERVING,
                &[serving, m(1, -74.0, 0.0), m(2, -72.0, 0.0), other_carrier]
            ),
            Some(CellId(2))
        );
    }

    #[test]
    fn threshold_needs_low_serving_sinr_and_a_better_cell() {
        // Threshold 0 dB, Hys 1 dB: serving at −2 dB, best other at −0.5 dB (1.5 dB
        // better) triggers; at −1.5 dB (0.5 dB better) it does not; serving at +1 dB never.
        let mut t = Trigger::new(&cfg(Algorithm::Threshold, 0), 3);
        assert_eq!(
            t.evaluate(ms(0), SERVING, &[m(0, -80.0, 1.0), m(1, -70.0, 10.0)]),
            None
        );
        assert_eq!(
            t.evaluate(ms(1), SERVING, &[m(0, -80.0, -2.0), m(1, -70.0, -1.5)]),
            None
        );
        assert_eq!(
            t.evaluate(
                ms(2),
                SERVING,
                &[m(0, -80.0, -2.0), m(1, -90.0, -3.0), m(2, -70.0, -0.5)]
            ),
            Some(CellId(2))
        );
    }

    #[test]
    fn threshold_waits_for_ttt() {
        let mut t = Trigger::new(&cfg(Algorithm::Threshold, 80), 2);
        let low = [m(0, -80.0, -5.0), m(1, -70.0, 5.0)];
        assert_eq!(t.evaluate(ms(0), SERVING, &low), None);
        assert_eq!(t.evaluate(ms(40), SERVING, &low), None);
        assert_eq!(t.evaluate(ms(80), SERVING, &low), Some(CellId(1)));
    }

    #[test]
    fn dynamic_ttt_interpolates_between_its_bounds() {
        // 25 ms at Δ ≥ 20 dB, 150 ms at Δ ≤ 3 dB; at Δ = 11.5 dB, half-way:
        // 150 − 125·(8.5/17) = 87.5 ms.
        let d = DynamicTtt::NS3;
        assert_eq!(d.ttt(-5.0), ms(150));
        assert_eq!(d.ttt(3.0), ms(150));
        assert_eq!(d.ttt(11.5), SimTime::from_us(87_500));
        assert_eq!(d.ttt(20.0), ms(25));
        assert_eq!(d.ttt(40.0), ms(25));
    }

    #[test]
    fn a3_with_dynamic_ttt_triggers_sooner_for_a_much_better_cell() {
        // Measurements every 10 ms. A neighbour 25 dB better in SINR waits 25 ms: seen at
        // 0, triggered at 30 ms (the first instant ≥ 25 ms). One 4 dB better waits
        // 150 − 125·(1/17) = 142.6 ms: triggered at 150 ms.
        let c = HandoverConfig {
            dynamic_ttt: Some(DynamicTtt::NS3),
            ..cfg(Algorithm::A3, 1000)
        };
        let serving = m(0, -80.0, 0.0);
        for (sinr, expect_ms) in [(25.0, 30), (4.0, 150)] {
            let mut t = Trigger::new(&c, 2);
            let better = m(1, -70.0, sinr);
            let mut at = 0;
            while t.evaluate(ms(at), SERVING, &[serving, better]).is_none() {
                at += 10;
                assert!(at <= 1000, "never triggered");
            }
            assert_eq!(at, expect_ms, "Δ = {sinr} dB");
        }
    }

    #[test]
    fn none_never_decides() {
        let mut t = Trigger::new(&cfg(Algorithm::None, 0), 2);
        assert_eq!(
            t.evaluate(ms(0), SERVING, &[m(0, -120.0, -20.0), m(1, -60.0, 30.0)]),
            None
        );
    }
}
