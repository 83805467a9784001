//! A set of packet numbers above a cumulative point, as sorted disjoint ranges: what a
//! receiver holds out of order, and what a sender knows its peer holds.

use super::wire::{Range, Ranges, MAX_RANGES};

/// Sorted, disjoint, non-adjacent ranges of packet numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PacketSet {
    r: Vec<Range>,
}

impl PacketSet {
    /// Adds `[start, end)`; true if any of it was new.
    pub fn insert(&mut self, start: u64, end: u64) -> bool {
        if start >= end {
            return false;
        }
        let before = self.count();
        // First range that ends at or after `start` (touching merges).
        let i = self.r.partition_point(|x| x.end < start);
        let mut j = i;
        let (mut s, mut e) = (start, end);
        while j < self.r.len() && self.r[j].start <= e {
            s = s.min(self.r[j].start);
            e = e.max(self.r[j].end);
            j += 1;
        }
        self.r.splice(i..j, [Range { start: s, end: e }]);
        self.count() > before
    }

    /// True if `n` is in the set.
    pub fn contains(&self, n: u64) -> bool {
        let i = self.r.partition_point(|x| x.end <= n);
        i < self.r.len() && self.r[i].start <= n
    }

    /// Removes every number below `n`.
    pub fn drop_below(&mut self, n: u64) {
        let i = self.r.partition_point(|x| x.end <= n);
        self.r.drain(..i);
        if let Some(f) = self.r.first_mut() {
            f.start = f.start.max(n);
        }
    }

    /// If the lowest range starts at `n`, removes it and returns its end.
    pub fn take_from(&mut self, n: u64) -> Option<u64> {
        match self.r.first() {
            Some(f) if f.start <= n && n < f.end => {
                let e = f.end;
                self.r.remove(0);
                Some(e)
            }
            _ => None,
        }
    }

    /// One past the highest number, if any.
    pub fn highest_end(&self) -> Option<u64> {
        self.r.last().map(|x| x.end)
    }

    /// How many numbers the set holds.
    pub fn count(&self) -> u64 {
        self.r.iter().map(|x| x.end - x.start).sum()
    }

    /// The set's highest [`MAX_RANGES`] ranges, as a message carries them.
    pub fn to_ranges(&self) -> Ranges {
        let mut out = Ranges::default();
        for x in self.r.iter().rev().take(MAX_RANGES) {
            out.push(*x);
        }
        out
    }

    /// True if empty.
    pub fn is_empty(&self) -> bool {
        self.r.is_empty()
    }

    /// Removes everything.
    pub fn clear(&mut self) {
        self.r.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn merges_touching_and_overlapping() {
        let mut s = PacketSet::default();
        assert!(s.insert(5, 7));
        assert!(s.insert(9, 10));
        assert!(s.insert(7, 9)); // fills the gap: one range [5, 10)
        assert_eq!(s.to_ranges().as_slice(), &[Range { start: 5, end: 10 }]);
        assert!(!s.insert(6, 8));
        s.drop_below(6);
        assert_eq!(s.count(), 4);
        assert_eq!(s.take_from(6), Some(10));
        assert!(s.is_empty());
    }

    #[test]
    fn ranges_carry_the_highest_four_highest_first() {
        let mut s = PacketSet::default();
        for i in 0..6 {
            s.insert(10 * i, 10 * i + 2);
        }
        let r = s.to_ranges();
        assert_eq!(r.as_slice().len(), 4);
        assert_eq!(r.as_slice()[0], Range { start: 50, end: 52 });
        assert_eq!(r.as_slice()[3], Range { start: 20, end: 22 });
        assert!(r.contains(51) && !r.contains(52) && !r.contains(1));
    }

    proptest! {
        #[test]
        fn agrees_with_a_plain_set(ops in proptest::collection::vec((0u64..60, 1u64..6), 1..40), cut in 0u64..70) {
            let mut s = PacketSet::default();
            let mut plain = std::collections::BTreeSet::new();
            for (a, len) in ops {
                let new = (a..a + len).any(|n| !plain.contains(&n));
                prop_assert_eq!(s.insert(a, a + len), new);
                plain.extend(a..a + len);
            }
            for n in 0..70 {
                prop_assert_eq!(s.contains(n), plain.contains(&n));
            }
            s.drop_below(cut);
            plain.retain(|&n| n >= cut);
            prop_assert_eq!(s.count(), plain.len() as u64);
        }
    }
}
