//! Serialisation time at a constant rate, kept for the last packet size.
//!
//! A packet of `b` bytes takes `⌈8 b · 10⁹ / rate⌉` ns (`Rate::tx_time`), a 64-bit
//! division. A link direction carries mostly one size (full segments one way, ACKs the
//! other), so a constant-rate transmitter keeps the last size's time and divides only
//! when the size changes. The times are those of `Rate::tx_time`, bit for bit.

use mmtsim_engine::{Rate, SimTime};

/// The serialisation times of one constant-rate transmitter.
#[derive(Clone, Copy, Debug)]
pub(super) struct SerialTime {
    rate: Rate,
    /// The last size asked for and its time.
    last: (u32, SimTime),
}

impl SerialTime {
    pub(super) fn new(rate: Rate) -> SerialTime {
        SerialTime {
            rate,
            last: (0, rate.tx_time(0)),
        }
    }

    /// The rate it serves at.
    pub(super) fn rate(&self) -> Rate {
        self.rate
    }

    /// Time to serialise `bytes`.
    #[inline]
    pub(super) fn of(&mut self, bytes: u32) -> SimTime {
        if self.last.0 != bytes {
            self.last = (bytes, self.rate.tx_time(bytes as u64));
        }
        self.last.1
    }
}

/// Packet sizes for tests of a transmitter's times: runs of ACK and full-segment sizes,
/// zero, and any other size, in any order.
#[cfg(test)]
pub(super) fn mixed_sizes() -> impl proptest::strategy::Strategy<Value = Vec<u32>> {
    proptest::collection::vec(
        proptest::prop_oneof![
            proptest::strategy::Just(0u32),
            proptest::strategy::Just(66),
            proptest::strategy::Just(1500),
            1u32..70_000,
        ],
        1..60,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_1500_byte_packet_at_1_gbps_takes_12_us_each_time() {
        // 1500 B · 8 bit/B / 10⁹ bit/s = 12 µs; a 66-byte ACK 528 ns.
        let mut s = SerialTime::new(Rate::gbps(1));
        assert_eq!(s.of(1500), SimTime::from_us(12));
        assert_eq!(s.of(1500), SimTime::from_us(12));
        assert_eq!(s.of(66), SimTime::from_ns(528));
        assert_eq!(s.of(1500), SimTime::from_us(12));
    }

    proptest::proptest! {
        /// Any sequence of sizes, repeated or not, gets the rate's own time for each.
        #[test]
        fn each_size_gets_the_rates_time(
            rate_bps in 1u64..100_000_000_000,
            sizes in mixed_sizes(),
        ) {
            let rate = Rate::bps(rate_bps);
            let mut s = SerialTime::new(rate);
            for b in sizes {
                proptest::prop_assert_eq!(s.of(b), rate.tx_time(b as u64));
            }
        }
    }
}
