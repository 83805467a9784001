//! Simulated time and the physical units shared by every layer.
//!
//! Time is an integer count of nanoseconds since the start of the run. `u64` nanoseconds
//! cover 584 years, far beyond any simulation. Rates are integer bits per second, sizes
//! integer bytes; conversions between them round *up* to the next nanosecond, so a
//! transmission never finishes earlier than the physics allows.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in simulated time, in nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    /// The start of the run.
    pub const ZERO: SimTime = SimTime(0);
    /// A time later than any event of a run; used as "never".
    pub const NEVER: SimTime = SimTime(u64::MAX);

    /// From nanoseconds.
    pub const fn from_ns(ns: u64) -> Self {
        SimTime(ns)
    }
    /// From microseconds.
    pub const fn from_us(us: u64) -> Self {
        SimTime(us * 1_000)
    }
    /// From milliseconds.
    pub const fn from_ms(ms: u64) -> Self {
        SimTime(ms * 1_000_000)
    }
    /// From whole seconds.
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s * 1_000_000_000)
    }
    /// From (possibly fractional) seconds, rounded to the nearest nanosecond.
    pub fn from_secs_f64(s: f64) -> Self {
        SimTime((s * 1e9).round() as u64)
    }
    /// Nanoseconds.
    pub const fn ns(self) -> u64 {
        self.0
    }
    /// Seconds as `f64` (for reporting only).
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// `self - earlier`, or zero if `earlier` is later.
    pub fn saturating_sub(self, earlier: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(earlier.0))
    }
}

impl Add for SimTime {
    type Output = SimTime;
    fn add(self, rhs: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(rhs.0))
    }
}
impl AddAssign for SimTime {
    fn add_assign(&mut self, rhs: SimTime) {
        self.0 = self.0.saturating_add(rhs.0);
    }
}
impl Sub for SimTime {
    type Output = SimTime;
    fn sub(self, rhs: SimTime) -> SimTime {
        debug_assert!(self.0 >= rhs.0, "SimTime subtraction went negative");
        SimTime(self.0 - rhs.0)
    }
}
impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.secs_f64())
    }
}

/// A size in bytes.
pub type Bytes = u64;

/// A data rate in bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    /// From bits per second.
    pub const fn bps(bps: u64) -> Self {
        Rate(bps)
    }
    /// From megabits per second.
    pub const fn mbps(mbps: u64) -> Self {
        Rate(mbps * 1_000_000)
    }
    /// From gigabits per second.
    pub const fn gbps(gbps: u64) -> Self {
        Rate(gbps * 1_000_000_000)
    }
    /// Bits per second.
    pub const fn as_bps(self) -> u64 {
        self.0
    }
    /// Time to serialise `bytes` at this rate, rounded up to the next nanosecond.
    /// A zero rate takes forever ([`SimTime::NEVER`]).
    pub fn tx_time(self, bytes: Bytes) -> SimTime {
        if self.0 == 0 {
            return SimTime::NEVER;
        }
        let bits = bytes as u128 * 8 * 1_000_000_000;
        SimTime(div_ceil_wide(bits, self.0) as u64)
    }
    /// Bytes this rate carries in `dt` (rounded down).
    pub fn bytes_in(self, dt: SimTime) -> Bytes {
        div_wide(self.0 as u128 * dt.0 as u128, 8_000_000_000) as u64
    }
}

/// `n / d` for a 128-bit `n`, through a 64-bit division when `n` fits in 64 bits — nearly
/// always on the per-packet path (a segment's bit·ns is about 10^13). A 128-bit division
/// is a library call several times slower than the CPU's 64-bit one; the quotient is the
/// same either way.
#[inline]
pub fn div_wide(n: u128, d: u64) -> u128 {
    match u64::try_from(n) {
        Ok(n64) => (n64 / d) as u128,
        Err(_) => n / d as u128,
    }
}

/// `n.div_ceil(d)` for a 128-bit `n`, as [`div_wide`].
#[inline]
pub fn div_ceil_wide(n: u128, d: u64) -> u128 {
    match u64::try_from(n) {
        Ok(n64) => n64.div_ceil(d) as u128,
        Err(_) => n.div_ceil(d as u128),
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}bps", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_of_a_1500_byte_packet_at_1_gbps_is_12_us() {
        // 1500 B * 8 bit/B / 1e9 bit/s = 12 µs exactly.
        assert_eq!(Rate::gbps(1).tx_time(1500), SimTime::from_us(12));
    }

    proptest::proptest! {
        /// The 64-bit paths give the 128-bit quotients, on both sides of 2^64.
        #[test]
        fn wide_division_matches_128_bit(n in proptest::prelude::any::<u128>(),
                                         small in 0u64..=u64::MAX, d in 1u64..=u64::MAX) {
            for n in [n, small as u128, u64::MAX as u128 + (small as u128 & 0xff)] {
                proptest::prop_assert_eq!(div_wide(n, d), n / d as u128);
                proptest::prop_assert_eq!(div_ceil_wide(n, d), n.div_ceil(d as u128));
            }
        }
    }

    #[test]
    fn tx_time_rounds_up() {
        // 1 byte at 3 bit/s = 8/3 s = 2.666..., rounded up to the next ns.
        assert_eq!(Rate::bps(3).tx_time(1), SimTime(2_666_666_667));
    }

    #[test]
    fn zero_rate_never_finishes() {
        assert_eq!(Rate::bps(0).tx_time(1), SimTime::NEVER);
    }

    #[test]
    fn bytes_in_is_inverse_of_tx_time_for_exact_values() {
        // 100 Mbit/s for 1 ms = 100_000 bit = 12_500 B.
        assert_eq!(Rate::mbps(100).bytes_in(SimTime::from_ms(1)), 12_500);
    }
}
