//! The coordinator of LTE–mmWave dual connectivity: the decisions the LTE anchor takes
//! for one dually connected UE from the mmWave cells' reports, as a pure state machine
//! (sans-IO: every call gets `now` and the report; `network/dual.rs` executes them).
//!
//! The scheme is Polese et al.'s fast switching with a local coordinator [POLESE-DC-2017],
//! with the rules and defaults of its reference implementation, ns-3 mmWave's
//! `LteEnbRrc` (`TriggerUeAssociationUpdate`, `TttBasedHandover`, `ComputeTtt`)
//! [NS3-MMW-ENB-RRC]. Every mmWave cell measures the UE's SINR every report period and
//! sends it to the anchor over X2; on each complete report:
//!
//! - **Outage → LTE.** If the *best* mmWave cell's SINR is below `outage_threshold_db`
//!   (every mmWave cell is unusable, not just the serving one) and the UE is on mmWave, it
//!   switches to LTE (fast switch: a path change in the anchor's PDCP, no random access,
//!   no core path switch); a pending secondary-cell handover is cancelled.
//! - **LTE → mmWave.** On LTE, once the best mmWave SINR is at least
//!   `outage_threshold_db` plus `switch_back_hysteresis_db` (−3 dB with the defaults): to the last mmWave cell, a
//!   fast switch back; to another, a secondary-cell handover to it. No time-to-trigger.
//! - **Secondary-cell handover.** On mmWave, when another mmWave cell is the best, a
//!   handover to it is scheduled after the dynamic time-to-trigger of the SINR gap
//!   ([`DynamicTtt`]), at once if the current cell is below the outage threshold. Later
//!   reports: the same target with the current cell now in outage → at once; the same
//!   target with a TTT ending earlier → the earlier end; another best cell more than
//!   `retarget_margin_db` above the scheduled target → rescheduled to it (or cancelled
//!   if the best is the current cell again); within that margin → kept, but cancelled
//!   if the best is the current cell.
//!
//! Simplifications: the report is the SINR of each mmWave cell's link to the UE as the
//! RAN computes it (ideal beam alignment; no sweep, measurement noise or filtering — ns-3's
//! default too, which however uses the SNR); no decision is taken while a secondary-cell
//! handover is being executed.

use super::DynamicTtt;
use mmtsim_engine::ids::CellId;
use mmtsim_engine::SimTime;

/// The resolved `[ran.dual_connectivity]` keys of the coordinated mode.
#[derive(Clone, Debug, PartialEq)]
pub struct DualConfig {
    /// How often every mmWave cell measures each UE and reports to the anchor (ns-3
    /// `UpdateSinrEstimatePeriod` and `CrtPeriod`, 1.6 ms: one full beam sweep
    /// [NS3-MMW-ENB-RRC]).
    pub report_period: SimTime,
    /// One-way X2 delay between two sites with no wired link between them (ns-3
    /// `X2LinkDelay`, 1 ms).
    pub x2_delay: SimTime,
    /// Best mmWave SINR below which the UE falls back to LTE, dB (ns-3
    /// `OutageThreshold`, −5 dB).
    pub outage_threshold_db: f64,
    /// How far above the outage threshold the best mmWave SINR must be to return, dB
    /// (ns-3's `OutageThreshold + 2`).
    pub switch_back_hysteresis_db: f64,
    /// The secondary-cell handover's time-to-trigger (ns-3 `DYNAMIC_TTT`, the default
    /// `SecondaryCellHandoverMode`).
    pub ttt: DynamicTtt,
    /// A new best cell replaces a scheduled target when it is this much better, dB
    /// (ns-3's 3 dB in `TttBasedHandover`).
    pub retarget_margin_db: f64,
    /// Handover command over the LTE link (RRC message, one way).
    pub command_delay: SimTime,
    /// The mmWave leg's interruption at a secondary-cell handover: from the command to
    /// the first data on the target (non-contention random access).
    pub secondary_interruption: SimTime,
}

/// TS 38.133 §6.1.1 [TS38133 §6.1.1]: NR handover interruption to a known target,
/// T_interrupt = T_search + T_IU + T_processing + T_Δ + T_margin = 0 + 10 + 20 + 20 + 2 ms
/// (T_IU at its shortest, one PRACH occasion period of 10 ms).
pub const NR_INTERRUPTION: SimTime = SimTime::from_ms(52);

impl Default for DualConfig {
    fn default() -> Self {
        DualConfig {
            report_period: SimTime::from_us(1600),
            x2_delay: SimTime::from_ms(1),
            outage_threshold_db: -5.0,
            switch_back_hysteresis_db: 2.0,
            ttt: DynamicTtt::NS3,
            retarget_margin_db: 3.0,
            command_delay: SimTime::from_ms(1),
            secondary_interruption: NR_INTERRUPTION,
        }
    }
}

/// What the coordinator decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Fast switch of the UE's data to the LTE leg.
    ToLte,
    /// Fast switch back to the mmWave leg on its current cell.
    ToMmwave,
    /// Secondary-cell handover of the mmWave leg to `to` (`from_lte`: the UE is on LTE
    /// and switches to mmWave once it is served by `to`).
    SecondaryHandover {
        /// The new mmWave cell.
        to: CellId,
        /// Whether the UE's data is on the LTE leg meanwhile.
        from_lte: bool,
    },
}

/// The coordinator's state for one UE.
#[derive(Clone, Debug)]
pub struct Coordinator {
    cfg: DualConfig,
    /// The UE's mmWave cell (its secondary leg's).
    current: CellId,
    on_lte: bool,
    /// A scheduled secondary-cell handover: (target, when).
    pending: Option<(CellId, SimTime)>,
    /// A secondary-cell handover is being executed.
    busy: bool,
}

impl Coordinator {
    /// A UE served on mmWave by `current`.
    pub fn new(cfg: &DualConfig, current: CellId) -> Coordinator {
        Coordinator {
            cfg: cfg.clone(),
            current,
            on_lte: false,
            pending: None,
            busy: false,
        }
    }

    /// A UE whose data is on the LTE leg (a secondary cell added while the anchor carried
    /// everything): it goes to `current` at the first report that allows it.
    pub fn on_lte_from_start(mut self) -> Coordinator {
        self.on_lte = true;
        self
    }

    /// Whether the UE's data goes through the LTE leg.
    pub fn on_lte(&self) -> bool {
        self.on_lte
    }

    /// The scheduled secondary-cell handover's instant, if any.
    pub fn deadline(&self) -> Option<SimTime> {
        self.pending.map(|(_, t)| t).filter(|_| !self.busy)
    }

    /// A complete report arrived at `now`: `report` has the SINR (dB) of every mmWave
    /// cell towards the UE. Returns what to do now.
    pub fn on_report(&mut self, now: SimTime, report: &[(CellId, f64)]) -> Option<Decision> {
        if self.busy || report.is_empty() {
            return None;
        }
        // The best cell; the first of equals, for determinism.
        let (best, best_db) = report
            .iter()
            .copied()
            .fold(report[0], |b, c| if c.1 > b.1 { c } else { b });
        let current_db = report
            .iter()
            .find(|c| c.0 == self.current)
            .map_or(f64::NEG_INFINITY, |c| c.1);
        let outage = self.cfg.outage_threshold_db;
        if self.on_lte {
            if best_db < outage + self.cfg.switch_back_hysteresis_db {
                return None;
            }
            if best == self.current {
                self.on_lte = false;
                return Some(Decision::ToMmwave);
            }
            self.busy = true;
            return Some(Decision::SecondaryHandover {
                to: best,
                from_lte: true,
            });
        }
        if best_db < outage {
            self.on_lte = true;
            self.pending = None;
            return Some(Decision::ToLte);
        }
        if best == self.current {
            // The current cell is the best again: whatever was scheduled is dropped.
            self.pending = None;
            return None;
        }
        let ttt = if current_db < outage {
            SimTime::ZERO
        } else {
            self.cfg.ttt.ttt(best_db - current_db)
        };
        match self.pending {
            None => self.pending = Some((best, now + ttt)),
            Some((target, at)) if target == best => {
                if now + ttt < at {
                    self.pending = Some((best, now + ttt));
                }
            }
            Some((target, _)) => {
                let target_db = report
                    .iter()
                    .find(|c| c.0 == target)
                    .map_or(f64::NEG_INFINITY, |c| c.1);
                if best_db > target_db + self.cfg.retarget_margin_db {
                    self.pending = Some((best, now + ttt));
                }
            }
        }
        self.due(now)
    }

    /// The scheduled handover, if its instant has come.
    pub fn due(&mut self, now: SimTime) -> Option<Decision> {
        match self.pending {
            Some((to, at)) if at <= now && !self.busy => {
                self.pending = None;
                self.busy = true;
                Some(Decision::SecondaryHandover {
                    to,
                    from_lte: false,
                })
            }
            _ => None,
        }
    }

    /// The secondary-cell handover to `cell` completed: the UE's mmWave cell is `cell`
    /// and its data is on mmWave.
    pub fn handover_done(&mut self, cell: CellId) {
        self.current = cell;
        self.busy = false;
        self.on_lte = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: CellId = CellId(1);
    const B: CellId = CellId(2);

    fn ms(x: u64) -> SimTime {
        SimTime::from_ms(x)
    }

    #[test]
    fn best_cell_in_outage_falls_back_and_returns_with_hysteresis() {
        let mut c = Coordinator::new(&DualConfig::default(), A);
        // −4.9 dB on the best cell is above −5: nothing.
        assert_eq!(c.on_report(ms(1), &[(A, -4.9), (B, -10.0)]), None);
        assert_eq!(
            c.on_report(ms(2), &[(A, -5.1), (B, -10.0)]),
            Some(Decision::ToLte)
        );
        assert!(c.on_lte());
        // Between −5 and −3 dB the UE stays on LTE (2 dB hysteresis).
        assert_eq!(c.on_report(ms(3), &[(A, -3.1), (B, -10.0)]), None);
        assert_eq!(
            c.on_report(ms(4), &[(A, -3.0), (B, -10.0)]),
            Some(Decision::ToMmwave)
        );
        assert!(!c.on_lte());
    }

    #[test]
    fn a_ue_starting_on_lte_goes_to_its_cell_at_the_first_usable_report() {
        let mut c = Coordinator::new(&DualConfig::default(), A).on_lte_from_start();
        assert!(c.on_lte());
        assert_eq!(c.on_report(ms(1), &[(A, -4.0)]), None);
        assert_eq!(c.on_report(ms(2), &[(A, 10.0)]), Some(Decision::ToMmwave));
    }

    #[test]
    fn serving_cell_in_outage_with_another_usable_is_a_handover_not_a_fallback() {
        let mut c = Coordinator::new(&DualConfig::default(), A);
        // A below −5 dB, B usable: TTT 0 → handover now.
        assert_eq!(
            c.on_report(ms(1), &[(A, -6.0), (B, 4.0)]),
            Some(Decision::SecondaryHandover {
                to: B,
                from_lte: false
            })
        );
        // Busy until done.
        assert_eq!(c.on_report(ms(2), &[(A, -20.0), (B, -20.0)]), None);
        c.handover_done(B);
        assert_eq!(
            c.on_report(ms(3), &[(A, -20.0), (B, -20.0)]),
            Some(Decision::ToLte)
        );
    }

    #[test]
    fn return_from_lte_to_another_cell_is_a_secondary_handover() {
        let mut c = Coordinator::new(&DualConfig::default(), A);
        assert_eq!(
            c.on_report(ms(1), &[(A, -9.0), (B, -8.0)]),
            Some(Decision::ToLte)
        );
        assert_eq!(
            c.on_report(ms(2), &[(A, -9.0), (B, 0.0)]),
            Some(Decision::SecondaryHandover {
                to: B,
                from_lte: true
            })
        );
    }

    #[test]
    fn dynamic_ttt_from_the_gap_then_shortened_retargeted_and_cancelled() {
        let mut c = Coordinator::new(&DualConfig::default(), A);
        // Gap 11.5 dB: 150 − 125 · (11.5 − 3) / 17 = 150 − 62.5 = 87.5 ms.
        assert_eq!(c.on_report(ms(10), &[(A, 5.0), (B, 16.5)]), None);
        assert_eq!(c.deadline(), Some(ms(10) + SimTime::from_us(87_500)));
        // Gap 20 dB at 20 ms: 25 ms → 45 ms, earlier: rescheduled.
        assert_eq!(c.on_report(ms(20), &[(A, 0.0), (B, 20.0)]), None);
        assert_eq!(c.deadline(), Some(ms(45)));
        // A gap of 1 dB would give 150 ms, later: kept.
        assert_eq!(c.on_report(ms(30), &[(A, 0.0), (B, 1.0)]), None);
        assert_eq!(c.deadline(), Some(ms(45)));
        // The current cell best again: cancelled.
        assert_eq!(c.on_report(ms(31), &[(A, 2.0), (B, 1.0)]), None);
        assert_eq!(c.deadline(), None);
        // Due at its instant.
        assert_eq!(c.on_report(ms(40), &[(A, 0.0), (B, 20.0)]), None);
        assert_eq!(c.due(ms(64)), None);
        assert_eq!(
            c.due(ms(65)),
            Some(Decision::SecondaryHandover {
                to: B,
                from_lte: false
            })
        );
    }

    #[test]
    fn a_third_cell_retargets_only_beyond_the_margin() {
        let cc = CellId(3);
        let mut c = Coordinator::new(&DualConfig::default(), A);
        assert_eq!(c.on_report(ms(0), &[(A, 0.0), (B, 5.0), (cc, 0.0)]), None);
        let first = c.deadline();
        // C 2 dB above B: within 3 dB, kept on B.
        assert_eq!(c.on_report(ms(1), &[(A, 0.0), (B, 5.0), (cc, 7.0)]), None);
        assert_eq!(c.deadline(), first);
        // C 4 dB above B: retargeted, TTT from C's gap of 9 dB: 150 − 125·6/17 ms.
        assert_eq!(c.on_report(ms(2), &[(A, 0.0), (B, 5.0), (cc, 9.0)]), None);
        let ttt_ns: f64 = 150e6 - 125e6 * 6.0 / 17.0;
        assert_eq!(
            c.deadline(),
            Some(ms(2) + SimTime::from_ns(ttt_ns.round() as u64))
        );
        assert_eq!(
            c.due(ms(2) + SimTime::from_ns(ttt_ns.round() as u64)),
            Some(Decision::SecondaryHandover {
                to: cc,
                from_lte: false
            })
        );
    }
}
