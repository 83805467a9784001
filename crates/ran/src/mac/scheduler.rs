//! Allocation of one slot's resource units among the (UE, direction) pairs with data.
//!
//! A *unit* is what the numerology allocates: an OFDM symbol over the whole band (TDMA,
//! the ns-3 mmWave flex-TTI scheduler) or a resource block over the slot (OFDMA, LTE).
//! HARQ retransmissions are served before this function is called; it shares what is left.
//!
//! - **Round robin** (ns-3 mmWave flex-TTI, `mmwave-flex-tti-mac-scheduler.cc`): the units
//!   are split equally among the candidates; a candidate that needs fewer units than its
//!   share gets what it needs and the rest is shared again among the others (water
//!   filling). Units that do not divide evenly go to candidates in a rotating order, so no
//!   UE is favoured across slots.
//! - **Proportional fair**: candidates in decreasing order of instantaneous rate over
//!   average served rate (EWMA kept by the caller); each takes what it needs in turn.
//! - **Max rate**: as proportional fair, ordered by instantaneous rate alone.
//!
//! Ties are broken by candidate order, so the result is deterministic.

/// Scheduling policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchedulerKind {
    /// Equal shares (water filling), rotating remainder.
    RoundRobin,
    /// Rate over average rate, greedy.
    ProportionalFair,
    /// Highest rate first, greedy.
    MaxRate,
}

impl SchedulerKind {
    /// Names accepted in scenario files.
    pub const NAMES: &'static [&'static str] = &["rr", "pf", "max-rate"];

    /// The policy called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "rr" => Some(SchedulerKind::RoundRobin),
            "pf" => Some(SchedulerKind::ProportionalFair),
            "max-rate" => Some(SchedulerKind::MaxRate),
            _ => None,
        }
    }
}

/// One candidate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// Units that would carry everything it has queued (≥ 1).
    pub need: u16,
    /// Bytes one unit carries at its MCS (instantaneous rate, for PF and max rate).
    pub bytes_per_unit: f64,
    /// Average served rate (bytes per slot, EWMA) for proportional fair.
    pub avg_bytes: f64,
}

/// A cell's slot allocator. Its working lists are kept between slots, so that the
/// scheduler allocates nothing in steady state; they carry nothing from one call to the
/// next.
#[derive(Clone, Debug, Default)]
pub struct Allocator {
    /// Candidate indices: the greedy order, or the water filling's open set.
    order: Vec<usize>,
    /// The water filling's candidates satisfied in one round.
    small: Vec<usize>,
}

impl Allocator {
    /// Splits `units` among `cands` into `out`: the units of each (0 = not served this
    /// slot). `rotation` (e.g. the slot number) rotates who gets the round-robin remainder.
    pub fn allocate(
        &mut self,
        kind: SchedulerKind,
        units: u16,
        cands: &[Candidate],
        rotation: usize,
        out: &mut Vec<u16>,
    ) {
        out.clear();
        out.resize(cands.len(), 0);
        if cands.is_empty() || units == 0 {
            return;
        }
        self.order.clear();
        self.order.extend(0..cands.len());
        match kind {
            SchedulerKind::RoundRobin => water_fill(
                units,
                cands,
                rotation,
                out,
                &mut self.order,
                &mut self.small,
            ),
            SchedulerKind::ProportionalFair | SchedulerKind::MaxRate => {
                let metric = |c: &Candidate| match kind {
                    SchedulerKind::MaxRate => c.bytes_per_unit,
                    // A candidate never served yet gets the highest priority.
                    _ => c.bytes_per_unit / c.avg_bytes.max(1e-9),
                };
                self.order.sort_by(|&a, &b| {
                    metric(&cands[b])
                        .total_cmp(&metric(&cands[a]))
                        .then(a.cmp(&b))
                });
                let mut left = units;
                for &i in &self.order {
                    let take = cands[i].need.min(left);
                    out[i] = take;
                    left -= take;
                    if left == 0 {
                        break;
                    }
                }
            }
        }
    }
}

/// Water filling over the candidates in `open` (all of them on entry); `small` is working
/// space.
fn water_fill(
    units: u16,
    cands: &[Candidate],
    rotation: usize,
    out: &mut [u16],
    open: &mut Vec<usize>,
    small: &mut Vec<usize>,
) {
    let mut left = units as u32;
    // Satisfy the small demands first; each round either satisfies someone or ends.
    loop {
        if open.is_empty() || left == 0 {
            return;
        }
        let share = left / open.len() as u32;
        small.clear();
        small.extend(
            open.iter()
                .copied()
                .filter(|&i| share > 0 && (cands[i].need as u32) <= share),
        );
        if small.is_empty() {
            break;
        }
        for &i in small.iter() {
            out[i] = cands[i].need;
            left -= cands[i].need as u32;
        }
        open.retain(|i| !small.contains(i));
    }
    // Everyone left needs more than the equal share: give the share, then the remainder
    // one unit each in rotating order.
    let share = left / open.len() as u32;
    let mut rem = left - share * open.len() as u32;
    for &i in open.iter() {
        out[i] = share as u16;
    }
    let start = rotation % open.len();
    for k in 0..open.len() {
        if rem == 0 {
            break;
        }
        let i = open[(start + k) % open.len()];
        if (out[i] as u32) < cands[i].need as u32 {
            out[i] += 1;
            rem -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh allocator's answer.
    fn allocate(
        kind: SchedulerKind,
        units: u16,
        cands: &[Candidate],
        rotation: usize,
        out: &mut Vec<u16>,
    ) {
        Allocator::default().allocate(kind, units, cands, rotation, out)
    }

    #[test]
    fn a_reused_allocator_answers_as_a_fresh_one() {
        // Calls of different sizes and policies in turn: the kept lists must not leak
        // from one call into the next.
        let calls: [(SchedulerKind, u16, Vec<Candidate>); 4] = [
            (
                SchedulerKind::RoundRobin,
                22,
                vec![c(3, 1.0, 1.0), c(100, 2.0, 1.0), c(7, 1.0, 1.0)],
            ),
            (
                SchedulerKind::ProportionalFair,
                10,
                vec![c(6, 4.0, 1.0), c(6, 1.0, 0.1)],
            ),
            (SchedulerKind::RoundRobin, 5, vec![c(1, 1.0, 1.0)]),
            (
                SchedulerKind::MaxRate,
                30,
                vec![
                    c(9, 1.0, 1.0),
                    c(9, 3.0, 1.0),
                    c(9, 2.0, 1.0),
                    c(9, 5.0, 1.0),
                ],
            ),
        ];
        let mut reused = Allocator::default();
        let (mut a, mut b) = (vec![], vec![]);
        for round in 0..2 {
            for (k, (kind, units, cands)) in calls.iter().enumerate() {
                reused.allocate(*kind, *units, cands, round + k, &mut a);
                allocate(*kind, *units, cands, round + k, &mut b);
                assert_eq!(a, b, "call {k} of round {round}");
            }
        }
    }

    fn c(need: u16, bpu: f64, avg: f64) -> Candidate {
        Candidate {
            need,
            bytes_per_unit: bpu,
            avg_bytes: avg,
        }
    }

    #[test]
    fn round_robin_splits_equally_among_saturated_ues() {
        // 22 symbols, two saturated UEs → 11 each.
        let mut out = vec![];
        allocate(
            SchedulerKind::RoundRobin,
            22,
            &[c(100, 1.0, 1.0), c(100, 5.0, 1.0)],
            0,
            &mut out,
        );
        assert_eq!(out, vec![11, 11]);
    }

    #[test]
    fn round_robin_gives_small_demands_what_they_need_and_shares_the_rest() {
        // 22 units; needs 2, 30, 30: share 7 ≥ 2 → first gets 2; 20 left for two → 10 each.
        let mut out = vec![];
        allocate(
            SchedulerKind::RoundRobin,
            22,
            &[c(2, 1.0, 1.0), c(30, 1.0, 1.0), c(30, 1.0, 1.0)],
            0,
            &mut out,
        );
        assert_eq!(out, vec![2, 10, 10]);
    }

    #[test]
    fn round_robin_rotates_the_remainder() {
        // 22 units among 3 saturated: 7 each, 1 left over → candidate (rotation mod 3).
        let cands = [c(50, 1.0, 1.0), c(50, 1.0, 1.0), c(50, 1.0, 1.0)];
        let mut out = vec![];
        for r in 0..3 {
            allocate(SchedulerKind::RoundRobin, 22, &cands, r, &mut out);
            let mut expect = vec![7, 7, 7];
            expect[r] = 8;
            assert_eq!(out, expect, "rotation {r}");
        }
    }

    #[test]
    fn max_rate_serves_the_best_channel_first() {
        let mut out = vec![];
        allocate(
            SchedulerKind::MaxRate,
            22,
            &[c(15, 1.0, 1.0), c(15, 3.0, 1.0)],
            0,
            &mut out,
        );
        assert_eq!(out, vec![7, 15]);
    }

    #[test]
    fn proportional_fair_prefers_the_least_served_relative_to_its_rate() {
        // Metrics: 3/6 = 0.5 and 1/1 = 1 → the second goes first.
        let mut out = vec![];
        allocate(
            SchedulerKind::ProportionalFair,
            22,
            &[c(15, 3.0, 6.0), c(15, 1.0, 1.0)],
            0,
            &mut out,
        );
        assert_eq!(out, vec![7, 15]);
    }

    #[test]
    fn never_allocates_more_than_available_or_needed() {
        let cands = [
            c(3, 1.0, 1.0),
            c(4, 2.0, 1.0),
            c(40, 3.0, 2.0),
            c(1, 0.5, 0.1),
        ];
        let mut out = vec![];
        for kind in [
            SchedulerKind::RoundRobin,
            SchedulerKind::ProportionalFair,
            SchedulerKind::MaxRate,
        ] {
            for units in [0u16, 1, 5, 22, 100] {
                allocate(kind, units, &cands, 7, &mut out);
                let total: u32 = out.iter().map(|&u| u as u32).sum();
                assert!(total <= units as u32, "{kind:?} {units}: {out:?}");
                for (o, c) in out.iter().zip(&cands) {
                    assert!(*o <= c.need, "{kind:?} {units}: {out:?}");
                }
                // Work conserving: if demand ≥ supply, everything is used.
                let demand: u32 = cands.iter().map(|c| c.need as u32).sum();
                assert_eq!(total, demand.min(units as u32), "{kind:?} {units}: {out:?}");
            }
        }
    }
}
