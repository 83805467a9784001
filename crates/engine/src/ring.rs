//! A first-in first-out ring of small `Copy` records, for the queues every packet passes
//! through: the packets on a wire, a link's serialisation schedule, an RLC buffer's SDUs.
//!
//! It does what `std::collections::VecDeque` does for them, with a cheaper position: the
//! capacity is always a power of two, so a position wraps with a mask instead of the
//! compare-and-subtract `VecDeque` needs for any capacity, and a masked slot is known to
//! be inside the storage, so it is read without a bounds check. Like `VecDeque`, it grows
//! by doubling and never shrinks: memory follows the most ever buffered.
//!
//! Records are `Copy`, so the ring stores them in a plain `Vec<T>` whose free slots hold
//! copies of a stale record: no uninitialised memory and nothing to drop. The only
//! `unsafe` is the unchecked read and write of a masked slot, whose invariant (storage
//! length = `mask` + 1 whenever the ring holds a value) every constructor and `grow` keep.
//! The property test below holds every operation to `VecDeque`'s answer; debug builds
//! check each unchecked access's bounds too.
//!
//! Where it is used is measured, not assumed (BENCHMARKS.md, tenth round): for the wired
//! AQM queue and the UEs' grant and buffer-status histories it was no faster, and
//! `VecDeque` stayed.

/// A FIFO ring of `Copy` values with power-of-two capacity.
#[derive(Clone)]
pub struct Ring<T: Copy> {
    /// Storage; its length is the capacity (0 or a power of two).
    buf: Vec<T>,
    /// Capacity − 1 (0 while there is no storage).
    mask: usize,
    /// Slot of the front element.
    head: usize,
    len: usize,
}

/// The first capacity a ring takes.
const FIRST_CAPACITY: usize = 4;

impl<T: Copy> Default for Ring<T> {
    fn default() -> Self {
        Ring::new()
    }
}

impl<T: Copy + std::fmt::Debug> std::fmt::Debug for Ring<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Copy> Ring<T> {
    /// An empty ring; it allocates at the first push.
    pub const fn new() -> Ring<T> {
        Ring {
            buf: Vec::new(),
            mask: 0,
            head: 0,
            len: 0,
        }
    }

    /// Number of values held.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds nothing.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Values it can hold before it grows.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// The storage slot of the `i`-th value from the front (`i` < capacity).
    #[inline]
    fn slot(&self, i: usize) -> usize {
        // Capacity is 0 only while empty, and no caller asks for a slot then.
        (self.head + i) & self.mask
    }

    /// Appends `v` at the back.
    #[inline]
    pub fn push_back(&mut self, v: T) {
        if self.len == self.buf.len() {
            self.grow(v);
        }
        let s = self.slot(self.len);
        // SAFETY: after a grow the storage is not empty, and a slot is masked to below
        // its length.
        unsafe { *self.buf.get_unchecked_mut(s) = v };
        self.len += 1;
    }

    /// Doubles the capacity (or makes the first), the values moved to the start.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, filler: T) {
        let cap = (self.buf.len() * 2).max(FIRST_CAPACITY);
        let mut buf = Vec::with_capacity(cap);
        let (a, b) = self.as_slices();
        buf.extend_from_slice(a);
        buf.extend_from_slice(b);
        buf.resize(cap, filler);
        self.buf = buf;
        self.mask = cap - 1;
        self.head = 0;
    }

    /// Removes and returns the front value.
    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        // SAFETY: a ring holding values has storage; `head` is a masked slot.
        let v = unsafe { *self.buf.get_unchecked(self.head) };
        self.head = self.slot(1);
        self.len -= 1;
        Some(v)
    }

    /// The `i`-th value from the front.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        if i < self.len {
            // SAFETY: as in `pop_front`.
            Some(unsafe { self.buf.get_unchecked(self.slot(i)) })
        } else {
            None
        }
    }

    /// The front value.
    #[inline]
    pub fn front(&self) -> Option<&T> {
        self.get(0)
    }

    /// The back value.
    #[inline]
    pub fn back(&self) -> Option<&T> {
        self.len.checked_sub(1).and_then(|i| self.get(i))
    }

    /// Empties the ring (it keeps its capacity).
    pub fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
    }

    /// The values in order, as the two runs of storage they occupy (the second empty
    /// when they do not wrap).
    pub fn as_slices(&self) -> (&[T], &[T]) {
        if self.len == 0 {
            return (&[], &[]);
        }
        let end = self.head + self.len;
        if end <= self.buf.len() {
            (&self.buf[self.head..end], &[])
        } else {
            (&self.buf[self.head..], &self.buf[..end - self.buf.len()])
        }
    }

    /// The values from front to back.
    pub fn iter(&self) -> Iter<'_, T> {
        let (a, b) = self.as_slices();
        Iter {
            a: a.iter(),
            b: b.iter(),
        }
    }

    /// The number of leading values for which `pred` holds, the values being partitioned
    /// (every value for which it holds before every one for which it does not): a binary
    /// search, as `VecDeque::partition_point`.
    pub fn partition_point(&self, mut pred: impl FnMut(&T) -> bool) -> usize {
        let (a, b) = self.as_slices();
        if b.first().is_some_and(&mut pred) {
            a.len() + b.partition_point(pred)
        } else {
            a.partition_point(pred)
        }
    }
}

impl<T: Copy> std::ops::Index<usize> for Ring<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        self.get(i).expect("ring index out of bounds")
    }
}

/// The values of a ring from front to back: its two runs of storage in turn.
#[derive(Clone, Debug)]
pub struct Iter<'a, T> {
    a: std::slice::Iter<'a, T>,
    b: std::slice::Iter<'a, T>,
}

impl<'a, T> Iterator for Iter<'a, T> {
    type Item = &'a T;
    #[inline]
    fn next(&mut self) -> Option<&'a T> {
        self.a.next().or_else(|| self.b.next())
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.a.len() + self.b.len();
        (n, Some(n))
    }
}

impl<T> DoubleEndedIterator for Iter<'_, T> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        self.b.next_back().or_else(|| self.a.next_back())
    }
}

impl<T> ExactSizeIterator for Iter<'_, T> {}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    #[test]
    fn wraps_and_grows_in_order() {
        let mut r = Ring::new();
        assert_eq!(r.capacity(), 0);
        for i in 0..3 {
            r.push_back(i);
        }
        assert_eq!(r.capacity(), 4);
        assert_eq!(r.pop_front(), Some(0));
        assert_eq!(r.pop_front(), Some(1));
        // Slots 3, 0, 1: the values wrap past the end of the storage.
        for i in 3..6 {
            r.push_back(i);
        }
        assert_eq!(r.capacity(), 4);
        assert_eq!(r.as_slices(), (&[2, 3][..], &[4, 5][..]));
        // A fifth value doubles the capacity and unwraps them.
        r.push_back(6);
        assert_eq!(r.capacity(), 8);
        assert_eq!(r.as_slices(), (&[2, 3, 4, 5, 6][..], &[][..]));
        assert_eq!(r.iter().copied().collect::<Vec<_>>(), vec![2, 3, 4, 5, 6]);
        assert_eq!(
            r.iter().rev().copied().collect::<Vec<_>>(),
            vec![6, 5, 4, 3, 2]
        );
        assert_eq!((r[0], r[4], r.get(5)), (2, 6, None));
    }

    #[derive(Clone, Debug)]
    enum Op {
        Push(u16),
        PopFront,
        Clear,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => any::<u16>().prop_map(Op::Push),
            4 => Just(Op::PopFront),
            1 => Just(Op::Clear),
        ]
    }

    proptest! {
        /// Every operation answers as `VecDeque` does, after any sequence of operations
        /// (which wraps the ring and grows it at every fill).
        #[test]
        fn behaves_as_vecdeque(ops in prop::collection::vec(op(), 0..300), probe in 0usize..40) {
            let mut r: Ring<u16> = Ring::new();
            let mut d: VecDeque<u16> = VecDeque::new();
            for o in ops {
                match o {
                    Op::Push(v) => { r.push_back(v); d.push_back(v); }
                    Op::PopFront => prop_assert_eq!(r.pop_front(), d.pop_front()),
                    Op::Clear => { r.clear(); d.clear(); }
                }
                prop_assert_eq!(r.len(), d.len());
                prop_assert_eq!(r.is_empty(), d.is_empty());
                prop_assert_eq!(r.front(), d.front());
                prop_assert_eq!(r.back(), d.back());
                prop_assert_eq!(r.get(probe), d.get(probe));
                prop_assert!(r.capacity().is_power_of_two() || r.capacity() == 0);
            }
            prop_assert_eq!(r.iter().collect::<Vec<_>>(), d.iter().collect::<Vec<_>>());
            prop_assert_eq!(r.iter().rev().collect::<Vec<_>>(), d.iter().rev().collect::<Vec<_>>());
            prop_assert_eq!(r.iter().len(), d.len());
            // Sorted contents: the partition point of every threshold.
            let mut sorted: Vec<u16> = d.iter().copied().collect();
            sorted.sort_unstable();
            let mut r: Ring<u16> = Ring::new();
            // Pops first, so that the sorted values wrap.
            for _ in 0..probe % 5 { r.push_back(0); r.pop_front(); }
            for &v in &sorted { r.push_back(v); }
            let d: VecDeque<u16> = sorted.iter().copied().collect();
            for t in [0u16, 1, 1000, 30_000, u16::MAX] {
                prop_assert_eq!(r.partition_point(|&v| v < t), d.partition_point(|&v| v < t));
            }
        }
    }
}
