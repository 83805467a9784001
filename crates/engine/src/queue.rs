//! The event queue: a binary min-heap keyed by `(time, class, sequence)`.
//!
//! See the crate documentation for the ordering contract. The payload type is chosen by
//! the caller (the world uses a small plain enum), so dispatch is a `match`, never a boxed
//! closure, and no heap allocation happens per event once the heap has grown.
//!
//! The heap is written here rather than taken from `std::collections::BinaryHeap`: std's
//! `pop` swaps the last entry into the root in 8-byte pieces and then reads the root
//! back as one 16-byte key, a load the CPU cannot forward from those stores, which stalled
//! every pop (a few per cent of a whole run). Keys are unique (the sequence number), so
//! any correct heap pops the same order.

use crate::time::SimTime;

/// Priority class of ordinary events.
pub const CLASS_NORMAL: u8 = 128;
/// Priority class for events that must precede ordinary events of the same instant.
pub const CLASS_EARLY: u8 = 64;
/// Priority class for events that must follow ordinary events of the same instant
/// (periodic metric sampling, so a sample sees the state after that instant).
pub const CLASS_LATE: u8 = 192;

/// A place in the order of events, taken by [`EventQueue::reserve`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use = "a reservation is for an event to be scheduled or run inline"]
pub struct Reservation {
    key: u128,
}

impl Reservation {
    /// The instant reserved.
    pub fn time(self) -> SimTime {
        SimTime((self.key >> 64) as u64)
    }
}

#[derive(Clone, Copy)]
struct Entry<E> {
    key: u128,
    event: E,
}

/// A deterministic future-event list.
pub struct EventQueue<E> {
    /// A binary min-heap on `key`: `heap[i].key < heap[2i+1].key, heap[2i+2].key`.
    heap: Vec<Entry<E>>,
    /// Insertion counter; 56 bits are plenty (7e16 events).
    seq: u64,
    now: SimTime,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue at time zero.
    pub fn new() -> Self {
        EventQueue {
            heap: Vec::with_capacity(1024),
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
        let r = self.reserve(time, class);
        self.schedule_reserved(r, event);
    }

    /// Takes the place in the order of events that an event scheduled now at `time` in
    /// `class` would get, without scheduling it yet: [`Self::schedule_reserved`] later puts
    /// an event there, exactly as if it had been scheduled now. A reservation never used
    /// leaves a gap in the insertion counter, which changes no order. The world uses it to
    /// decide, after the rest of the instant's work, whether an event can run inline
    /// ([`Self::advance_to`]) instead of through the heap.
    ///
    /// Reserving in the past is a bug in the caller.
    #[inline]
    pub fn reserve(&mut self, time: SimTime, class: u8) -> Reservation {
        assert!(
            time >= self.now,
            "event scheduled in the past: at {time} while the clock reads {}",
            self.now
        );
        let key = Self::key(time, class, self.seq);
        self.seq += 1;
        Reservation { key }
    }

    /// Schedules `event` in the place `r` reserved.
    #[inline]
    pub fn schedule_reserved(&mut self, r: Reservation, event: E) {
        debug_assert!(
            r.time() >= self.now,
            "a reservation at {} used after the clock passed it ({})",
            r.time(),
            self.now
        );
        let key = r.key;
        // Sift up from a hole at the end: parents move down until the new key fits.
        let h = &mut self.heap;
        let mut pos = h.len();
        h.push(Entry { key, event });
        while pos > 0 {
            let parent = (pos - 1) / 2;
            if h[parent].key < key {
                break;
            }
            h[pos] = h[parent];
            pos = parent;
        }
        h[pos] = Entry { key, event };
    }

    /// Removes and returns the next event, advancing the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let last = self.heap.pop()?;
        let e = match self.heap.first() {
            None => last,
            Some(&root) => {
                self.refill_root(last);
                root
            }
        };
        let t = SimTime((e.key >> 64) as u64);
        self.now = t;
        self.popped += 1;
        Some((t, e.event))
    }

    /// The root has been taken: the smaller child moves up into the hole down to a leaf,
    /// then `last` (the entry taken off the end) sifts up from there. Fewer comparisons
    /// than sifting `last` down from the root, as it usually belongs near the bottom.
    #[inline]
    fn refill_root(&mut self, last: Entry<E>) {
        let h = &mut self.heap;
        let n = h.len();
        let mut pos = 0;
        let mut child = 1;
        while child < n {
            // The smaller child, chosen without a branch: which one it is, is a coin
            // toss the CPU would mispredict half the time. Past the end, `min` compares
            // the left child with itself (not smaller).
            child += (h[(child + 1).min(n - 1)].key < h[child].key) as usize;
            h[pos] = h[child];
            pos = child;
            child = 2 * pos + 1;
        }
        while pos > 0 {
            let parent = (pos - 1) / 2;
            if h[parent].key < last.key {
                break;
            }
            h[pos] = h[parent];
            pos = parent;
        }
        h[pos] = last;
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
        self.heap.first().map(|e| SimTime((e.key >> 64) as u64))
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
    fn a_reserved_place_orders_as_if_scheduled_when_reserved() {
        // "a" reserves its place first, "b" and "c" are scheduled at the same instant
        // after it, and "a" is put in the heap last: it still runs first.
        let mut q = EventQueue::new();
        let r = q.reserve(SimTime(5), CLASS_NORMAL);
        assert_eq!(r.time(), SimTime(5));
        q.schedule(SimTime(5), "b");
        q.schedule(SimTime(5), "c");
        q.schedule_reserved(r, "a");
        // A reservation never used changes the order of nothing.
        let _unused = q.reserve(SimTime(5), CLASS_NORMAL);
        q.schedule(SimTime(5), "d");
        let order: Vec<&str> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, ["a", "b", "c", "d"]);
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
        /// Any interleaving of schedules and pops gives the order of a sorted map keyed by
        /// (time, class, insertion): the reference the heap must match.
        #[test]
        fn interleaved_schedules_and_pops_follow_the_sorted_order(
            ops in proptest::collection::vec((0u64..40, 0usize..3, 0usize..3), 1..300)
        ) {
            let classes = [CLASS_EARLY, CLASS_NORMAL, CLASS_LATE];
            let mut q = EventQueue::new();
            let mut reference = std::collections::BTreeMap::new();
            let mut now = 0;
            for (i, &(dt, class, pops)) in ops.iter().enumerate() {
                q.schedule_in_class(SimTime(now + dt), classes[class], i);
                reference.insert((now + dt, classes[class], i), i);
                for _ in 0..pops {
                    let want = reference.pop_first().map(|((t, _, _), e)| (t, e));
                    let got = q.pop().map(|(t, e)| (t.0, e));
                    prop_assert_eq!(got, want);
                    if let Some((t, _)) = got {
                        now = t;
                    }
                }
                prop_assert_eq!(q.len(), reference.len());
                prop_assert_eq!(q.peek_time().map(|t| t.0), reference.keys().next().map(|k| k.0));
            }
            while let Some(((t, _, _), e)) = reference.pop_first() {
                prop_assert_eq!(q.pop().map(|(t, e)| (t.0, e)), Some((t, e)));
            }
            prop_assert!(q.pop().is_none());
        }

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
