//! The timeline of one UE's handover [TS38300 §9.2.3.2], from the source's decision to
//! the UE being served again, as a state machine the RAN steps at its deadlines.
//!
//! ```text
//! trigger t0 ─ report_delay ─▶ decision at the source ─ 2·Xn ─▶ target admitted
//!   ─ command_delay ─▶ UE gets the command and leaves the source (detach, t1)
//!   ─ interruption ─▶ random access on the target (t2 = t1 + interruption):
//!       SINR ≥ rach_min_sinr_db: served by the target from t2 (success)
//!       else: handover failure when T304 expires (max(t2, t1 + T304)), radio link
//!             failure, RRC re-establishment: served by the best cell
//!             `reestablishment_delay` later
//! ```
//! Between t1 and being served again no cell schedules the UE. The preparation is the
//! Handover Request and its acknowledgement over Xn (one Xn delay each way); the
//! measurement report and the command are one RRC message each, of fixed delay.
//!
//! Simplifications: the RRC messages are never lost and take fixed delays (no HARQ or
//! scheduling of signalling); admission control always accepts; the RACH outcome is
//! decided once, at t2, from the target's SINR then (no preamble retransmissions within
//! T304); T304 is started at the command, as TS 38.331 does, and a T304 shorter than
//! the interruption makes the failure known at t2.

use super::{HandoverConfig, HandoverKind};
use mmtsim_engine::ids::CellId;
use mmtsim_engine::SimTime;

/// Where a UE's procedure stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Phase {
    /// No handover under way.
    Idle,
    /// The source decided; the UE gets the command at `command_at`.
    Preparing {
        /// Serving cell when the handover was decided.
        source: CellId,
        /// Target cell.
        target: CellId,
        /// What triggered it.
        kind: HandoverKind,
        /// When the command reaches the UE (it detaches).
        command_at: SimTime,
    },
    /// The UE left the source at `detached_at`; random access on the target at `rach_at`.
    Interrupted {
        /// The cell the UE left.
        source: CellId,
        /// Target cell.
        target: CellId,
        /// What triggered it.
        kind: HandoverKind,
        /// When the UE left the source.
        detached_at: SimTime,
        /// When random access on the target completes (or fails).
        rach_at: SimTime,
    },
    /// The handover failed; the UE is served again after re-establishment at `at`.
    Reestablishing {
        /// The cell the UE left.
        source: CellId,
        /// When the UE left the source.
        detached_at: SimTime,
        /// When re-establishment completes.
        at: SimTime,
    },
}

/// What a step asks the RAN to do.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Step {
    /// The UE leaves `source` for `target`: no cell serves it from now.
    Detach {
        /// The cell the UE leaves.
        source: CellId,
        /// The cell it goes to.
        target: CellId,
    },
    /// Random access on `target` succeeded: it serves the UE from now.
    Served {
        /// The cell the UE left.
        source: CellId,
        /// The new serving cell.
        target: CellId,
        /// What triggered the handover.
        kind: HandoverKind,
        /// How long no cell served the UE.
        interruption: SimTime,
    },
    /// Random access on `target` failed (handover failure, then radio link failure).
    Failed {
        /// The cell the UE left.
        source: CellId,
        /// The cell it could not reach.
        target: CellId,
        /// What triggered the handover.
        kind: HandoverKind,
        /// From detach to the failure.
        interruption: SimTime,
    },
    /// Re-establishment completes: the RAN picks the cell that serves the UE from now.
    Reestablish {
        /// The cell the UE left.
        source: CellId,
        /// How long no cell served the UE.
        interruption: SimTime,
    },
}

/// The procedure of one UE.
#[derive(Clone, Debug)]
pub struct Procedure {
    phase: Phase,
    report_delay: SimTime,
    command_delay: SimTime,
    interruption: SimTime,
    t304: SimTime,
    reestablishment_delay: SimTime,
}

impl Procedure {
    /// An idle procedure with `cfg`'s delays.
    pub fn new(cfg: &HandoverConfig) -> Procedure {
        Procedure {
            phase: Phase::Idle,
            report_delay: cfg.report_delay,
            command_delay: cfg.command_delay,
            interruption: cfg.interruption,
            t304: cfg.t304,
            reestablishment_delay: cfg.reestablishment_delay,
        }
    }

    /// The current phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// No handover under way.
    pub fn is_idle(&self) -> bool {
        self.phase == Phase::Idle
    }

    /// The UE is served by no cell (between detach and success or re-establishment).
    pub fn is_detached(&self) -> bool {
        matches!(
            self.phase,
            Phase::Interrupted { .. } | Phase::Reestablishing { .. }
        )
    }

    /// At `now` the UE's measurement report for `target` is sent; the sites of `source`
    /// and `target` are `xn` apart (one way). Ignored unless idle.
    pub fn decide(
        &mut self,
        now: SimTime,
        source: CellId,
        target: CellId,
        kind: HandoverKind,
        xn: SimTime,
    ) {
        if !self.is_idle() {
            return;
        }
        self.phase = Phase::Preparing {
            source,
            target,
            kind,
            command_at: now + self.report_delay + xn + xn + self.command_delay,
        };
    }

    /// The UE loses its serving cell at `now` with no handover under way (radio link
    /// failure detected by the RAN): re-establishment completes `reestablishment_delay`
    /// later. Ignored unless idle.
    pub fn link_failure(&mut self, now: SimTime, source: CellId) {
        if self.is_idle() {
            self.phase = Phase::Reestablishing {
                source,
                detached_at: now,
                at: now + self.reestablishment_delay,
            };
        }
    }

    /// When [`Procedure::step`] must run next.
    pub fn deadline(&self) -> Option<SimTime> {
        match self.phase {
            Phase::Idle => None,
            Phase::Preparing { command_at, .. } => Some(command_at),
            Phase::Interrupted { rach_at, .. } => Some(rach_at),
            Phase::Reestablishing { at, .. } => Some(at),
        }
    }

    /// Advances the procedure at its deadline `now` (else does nothing). `rach_ok` tells
    /// whether random access on a cell succeeds now.
    pub fn step(&mut self, now: SimTime, rach_ok: impl FnOnce(CellId) -> bool) -> Option<Step> {
        if self.deadline() != Some(now) {
            return None;
        }
        match self.phase {
            Phase::Idle => None,
            Phase::Preparing {
                source,
                target,
                kind,
                ..
            } => {
                self.phase = Phase::Interrupted {
                    source,
                    target,
                    kind,
                    detached_at: now,
                    rach_at: now + self.interruption,
                };
                Some(Step::Detach { source, target })
            }
            Phase::Interrupted {
                source,
                target,
                kind,
                detached_at,
                ..
            } => {
                if rach_ok(target) {
                    self.phase = Phase::Idle;
                    return Some(Step::Served {
                        source,
                        target,
                        kind,
                        interruption: now - detached_at,
                    });
                }
                let failed_at = now.max(detached_at + self.t304);
                self.phase = Phase::Reestablishing {
                    source,
                    detached_at,
                    at: failed_at + self.reestablishment_delay,
                };
                Some(Step::Failed {
                    source,
                    target,
                    kind,
                    interruption: failed_at - detached_at,
                })
            }
            Phase::Reestablishing {
                source,
                detached_at,
                ..
            } => {
                self.phase = Phase::Idle;
                Some(Step::Reestablish {
                    source,
                    interruption: now - detached_at,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t: u64) -> SimTime {
        SimTime::from_ms(t)
    }

    fn cfg() -> HandoverConfig {
        HandoverConfig {
            report_delay: ms(1),
            command_delay: ms(2),
            interruption: ms(50),
            t304: ms(100),
            reestablishment_delay: ms(300),
            ..HandoverConfig::default()
        }
    }

    const A: CellId = CellId(0);
    const B: CellId = CellId(1);

    #[test]
    fn a_successful_handover_follows_the_timeline() {
        // Trigger at 1000 ms, Xn 5 ms: command at 1000 + 1 + 2·5 + 2 = 1013 ms; RACH at
        // 1013 + 50 = 1063 ms; 50 ms without service.
        let mut p = Procedure::new(&cfg());
        p.decide(ms(1000), A, B, HandoverKind::A3, ms(5));
        assert_eq!(p.deadline(), Some(ms(1013)));
        assert!(!p.is_detached());
        assert_eq!(p.step(ms(1012), |_| true), None, "not its deadline");
        assert_eq!(
            p.step(ms(1013), |_| true),
            Some(Step::Detach {
                source: A,
                target: B
            })
        );
        assert!(p.is_detached());
        assert_eq!(p.deadline(), Some(ms(1063)));
        assert_eq!(
            p.step(ms(1063), |c| c == B),
            Some(Step::Served {
                source: A,
                target: B,
                kind: HandoverKind::A3,
                interruption: ms(50)
            })
        );
        assert!(p.is_idle());
        assert_eq!(p.deadline(), None);
    }

    #[test]
    fn no_handover_ends_sooner_than_its_report_command_and_interruption() {
        // The bound `Ran::least_handover_time` gives the UPF: from the decision to the UE
        // being served again (by the target, or after a failure by re-establishment) takes
        // at least report + command + interruption, whatever the Xn delay, the RACH outcome
        // or T304 (here also shorter than the interruption).
        for (xn, t304, interruption) in [(0, 100, 50), (5, 100, 50), (0, 10, 50), (0, 100, 0)] {
            for rach_ok in [true, false] {
                let c = HandoverConfig {
                    t304: ms(t304),
                    interruption: ms(interruption),
                    ..cfg()
                };
                let least = c.report_delay + c.command_delay + c.interruption;
                let mut p = Procedure::new(&c);
                p.decide(ms(100), A, B, HandoverKind::A3, ms(xn));
                let mut served = None;
                while let Some(t) = p.deadline() {
                    match p.step(t, |_| rach_ok) {
                        Some(Step::Served { .. }) => {
                            served = Some(t);
                            break;
                        }
                        Some(Step::Reestablish { .. }) => {
                            // The RAN serves the UE at this step (or tries again later).
                            served = Some(t);
                            break;
                        }
                        _ => {}
                    }
                }
                let served = served.expect("the procedure ends");
                assert!(
                    served >= ms(100) + least,
                    "xn {xn}, T304 {t304}, interruption {interruption}, RACH {rach_ok}: {served}"
                );
            }
        }
    }

    #[test]
    fn a_failed_random_access_waits_for_t304_then_reestablishes() {
        // Detach at 13 ms, RACH fails at 63 ms, T304 expires at 113 ms: failure after
        // 100 ms; re-establishment 300 ms later, at 413 ms: 400 ms without service.
        let mut p = Procedure::new(&cfg());
        p.decide(ms(0), A, B, HandoverKind::Threshold, ms(5));
        p.step(ms(13), |_| true);
        assert_eq!(
            p.step(ms(63), |_| false),
            Some(Step::Failed {
                source: A,
                target: B,
                kind: HandoverKind::Threshold,
                interruption: ms(100)
            })
        );
        assert!(p.is_detached());
        assert_eq!(p.deadline(), Some(ms(413)));
        assert_eq!(
            p.step(ms(413), |_| true),
            Some(Step::Reestablish {
                source: A,
                interruption: ms(400)
            })
        );
        assert!(p.is_idle());
    }

    #[test]
    fn a_second_decision_during_a_handover_is_ignored() {
        let mut p = Procedure::new(&cfg());
        p.decide(ms(0), A, B, HandoverKind::A3, ms(0));
        p.decide(ms(1), A, CellId(2), HandoverKind::A3, ms(0));
        assert_eq!(
            p.phase(),
            Phase::Preparing {
                source: A,
                target: B,
                kind: HandoverKind::A3,
                command_at: ms(3)
            }
        );
    }
}
