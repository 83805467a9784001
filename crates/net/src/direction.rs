//! The direction of a radio transmission, the one encoding every layer uses.
//!
//! Per-direction state is kept in two-element arrays indexed by [`Direction::index`]
//! (downlink 0, uplink 1), so "[DL, UL]" reads the same in every table and struct.

/// Direction of a radio transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// gNB → UE.
    Downlink,
    /// UE → gNB.
    Uplink,
}

impl Direction {
    /// Both directions, in index order: downlink, then uplink.
    pub const BOTH: [Direction; 2] = [Direction::Downlink, Direction::Uplink];

    /// Position in a `[downlink, uplink]` array.
    #[inline]
    pub fn index(self) -> usize {
        match self {
            Direction::Downlink => 0,
            Direction::Uplink => 1,
        }
    }

    /// The other direction.
    #[inline]
    pub fn reverse(self) -> Direction {
        match self {
            Direction::Downlink => Direction::Uplink,
            Direction::Uplink => Direction::Downlink,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Direction;

    #[test]
    fn both_is_in_index_order_and_reverse_swaps() {
        for (i, d) in Direction::BOTH.into_iter().enumerate() {
            assert_eq!(d.index(), i);
            assert_ne!(d.reverse(), d);
            assert_eq!(d.reverse().reverse(), d);
        }
    }
}
