//! The event queue: a binary heap keyed by `(time, class, sequence)`.
//!
//! See the crate documentation for the ordering contract. The payload type is chosen by
//! the caller (the world uses a small plain enum), so dispatch is a `match`, never a boxed
//! closure, and no heap allocation happens per event once the heap has grown.

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Priority class of ordinary events.
pub const CLASS_NORMAL: u8 = 128;
/// Priority class for events that must precede ordinary events of the same instant.
pub const CLASS_EARLY: u8 = 64;
/// Priority class for events that must follow ordinary events of the same instant
/// (periodic metric sampling, so a sample sees the state after that instant).
pub const CLASS_LATE: u8 = 192;

struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: invert so the smallest key pops first.
        other.key.cmp(&self.key)
    }
}

/// A deterministic future-event list.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    /// Insertion counter; 56 bits are plenty (7e16 events).
    seq: u64,
    now: SimTime,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue at time zero.
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            seq: 0,
            now: SimTime::ZERO,
            popped: 0,
        }
    }

    fn key(time: SimTime, class: u8, seq: u64) -> u128 {
        ((time.0 as u128) << 64) | ((class as u128) << 56) | (seq as u128 & ((1u128 << 56) - 1))
    }

    /// Schedules `event` at `time` in the normal class.
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: E) {
        self.schedule_in_class(time, CLASS_NORMAL, event)
    }

    /// Schedules `event` at `time` in priority class `class` (lower runs first).
    ///
    /// Scheduling in the past is a bug in the caller.
    #[inline]
    pub fn schedule_in_class(&mut self, time: SimTime, class: u8, event: E) {
        assert!(
            time >= self.now,
            "event scheduled in the past: at {time} while the clock reads {}",
            self.now
        );
        let key = Self::key(time, class, self.seq);
        self.seq += 1;
        self.heap.push(Entry { key, event });
    }

    /// Removes and returns the next event, advancing the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let e = self.heap.pop()?;
        let t = SimTime((e.key >> 64) as u64);
        self.now = t;
        self.popped += 1;
        Some((t, e.event))
    }

    /// Advances the clock to `t` for an event that never entered the heap (the world's
    /// propagation FIFOs deliver their next packet this way when nothing else is due
    /// first). Counts as one processed event, so run statistics do not depend on it.
    ///
    /// The caller guarantees `now ≤ t <` the time of every pending event: then handling it
    /// here is exactly what popping it would have done.
    #[inline]
    pub fn advance_to(&mut self, t: SimTime) {
        debug_assert!(
            t >= self.now,
            "advance to {t} before the clock {}",
            self.now
        );
        debug_assert!(
            self.peek_time().is_none_or(|p| t < p),
            "advance to {t} past a pending event"
        );
        self.now = t;
        self.popped += 1;
    }

    /// Counts one event handled ahead of its instant without the heap (the world's hop
    /// fusion takes a packet over a transit node when its arrival there becomes known), so
    /// that run statistics do not depend on it. The clock does not move.
    #[inline]
    pub fn count_ahead(&mut self) {
        self.popped += 1;
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| SimTime((e.key >> 64) as u64))
    }

    /// The current simulated time (the time of the last popped event).
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Number of events popped so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn same_time_events_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        for i in 0..10 {
            q.schedule(SimTime(5), i);
        }
        let order: Vec<i32> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, (0..10).collect::<Vec<_>>());
    }

    #[test]
    fn class_orders_same_instant_events() {
        let mut q = EventQueue::new();
        q.schedule_in_class(SimTime(7), CLASS_LATE, "late");
        q.schedule(SimTime(7), "normal");
        q.schedule_in_class(SimTime(7), CLASS_EARLY, "early");
        q.schedule(SimTime(6), "before");
        let order: Vec<&str> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, ["before", "early", "normal", "late"]);
    }

    #[test]
    #[should_panic(expected = "in the past")]
    fn scheduling_in_the_past_panics() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), ());
        q.pop();
        q.schedule(SimTime(9), ());
    }

    proptest! {
        /// Popped times never decrease, and ties come out in insertion order.
        #[test]
        fn pops_are_sorted_by_time_then_insertion(times in proptest::collection::vec(0u64..50, 1..200)) {
            let mut q = EventQueue::new();
            for (i, t) in times.iter().enumerate() {
                q.schedule(SimTime(*t), i);
            }
            let mut last = (0u64, 0usize);
            let mut first = true;
            while let Some((t, i)) = q.pop() {
                prop_assert_eq!(t.0, times[i]);
                if !first {
                    prop_assert!((t.0, i) > last);
                }
                last = (t.0, i);
                first = false;
            }
        }
    }
}
