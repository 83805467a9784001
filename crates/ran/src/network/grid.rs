//! A cell's slot grid: its slot boundaries are the multiples of its slot duration from
//! the start of the run ([TS38211 §4.3.2]: slots follow one another without gaps, so a
//! cell that has been idle resumes on the grid it left).

use mmtsim_engine::SimTime;

/// The first boundary at or after `t`.
#[inline]
pub(super) fn align(t: SimTime, slot: SimTime) -> SimTime {
    let s = slot.ns();
    SimTime::from_ns(t.ns().div_ceil(s) * s)
}

/// `b <= align(t, slot)` for a boundary `b`, without a division: the boundaries at or
/// before `t`'s first boundary are exactly those before `t + slot`, as no two boundaries
/// lie within one slot.
#[inline]
pub(super) fn boundary_by(b: SimTime, t: SimTime, slot: SimTime) -> bool {
    debug_assert_eq!(b.ns() % slot.ns(), 0, "{b:?} is no slot boundary");
    b < t + slot
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn align_by_hand() {
        let slot = SimTime::from_ns(125_000);
        assert_eq!(align(SimTime::ZERO, slot), SimTime::ZERO);
        assert_eq!(align(SimTime::from_ns(1), slot), slot);
        assert_eq!(align(slot, slot), slot);
        assert_eq!(
            align(SimTime::from_ns(250_001), slot),
            SimTime::from_ns(375_000)
        );
    }

    #[test]
    fn boundary_by_hand() {
        let slot = SimTime::from_ns(1_000_000);
        let t = SimTime::from_ns(2_500_000);
        // t's first boundary is 3 ms: 2 ms and 3 ms are by it, 4 ms is not.
        assert!(boundary_by(SimTime::from_ns(2_000_000), t, slot));
        assert!(boundary_by(SimTime::from_ns(3_000_000), t, slot));
        assert!(!boundary_by(SimTime::from_ns(4_000_000), t, slot));
        // On a boundary, t is its own first boundary.
        let t = SimTime::from_ns(3_000_000);
        assert!(boundary_by(SimTime::from_ns(3_000_000), t, slot));
        assert!(!boundary_by(SimTime::from_ns(4_000_000), t, slot));
    }

    proptest::proptest! {
        /// The comparison without division answers as comparing with the aligned time.
        #[test]
        fn boundary_by_is_comparison_with_align(
            slot_ns in 1u64..2_000_000,
            k in 0u64..1_000_000,
            t_ns in 0u64..2_000_000_000_000,
            t_on_grid: bool,
        ) {
            let slot = SimTime::from_ns(slot_ns);
            let b = SimTime::from_ns(k * slot_ns);
            // A time on the grid is its own first boundary, the edge of the comparison.
            let t = SimTime::from_ns(if t_on_grid { t_ns / slot_ns * slot_ns } else { t_ns });
            proptest::prop_assert_eq!(boundary_by(b, t, slot), b <= align(t, slot));
            // Near t, where the two answers change.
            let near = align(t, slot);
            for b in [near.saturating_sub(slot), near, near + slot] {
                proptest::prop_assert_eq!(boundary_by(b, t, slot), b <= align(t, slot));
            }
        }
    }
}
