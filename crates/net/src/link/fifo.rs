//! The closed-form transmitter of a constant-rate drop-tail link direction.
//!
//! A FIFO at a fixed rate starts each packet when the one before it ends, so a packet's
//! start and end of serialisation are known when it arrives: no event per packet. The
//! queue at an instant is the packets that have arrived by then and not yet started.
//!
//! A packet may be admitted *ahead* of its arrival: the world hands a link the packets of
//! a transit node's only incoming link as soon as their arrival at the node is known (hop
//! fusion, `world/src/run/fusion.rs`). That gives the same result as admitting it at its
//! arrival provided arrivals come in time order, because the state a packet arriving at
//! `t` finds — the packets that have not started by `t` — depends only on packets that
//! arrived before it. So admission looks at the packets not started by the arrival
//! instant, whatever the instant it is handled at, and the queue seen at an instant
//! leaves out the packets admitted ahead that have not arrived yet.
//!
//! Counters are those of the event-driven transmitter: a packet counts as transmitted
//! once its serialisation has ended by the instant the link is settled to.

use super::serial::SerialTime;
use super::LinkStats;
use crate::queue::droptail;
use mmtsim_engine::ring::Ring;
use mmtsim_engine::{Rate, SimTime};

/// One accepted packet not yet fully serialised.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// When it arrived (or will arrive) at the queue.
    arrival: SimTime,
    /// Start of its serialisation.
    start: SimTime,
    /// End of its serialisation.
    done: SimTime,
    bytes: u32,
    /// Bytes accepted before it, over the whole run (a running sum, so that the bytes of
    /// any run of entries is a difference).
    before: u64,
}

/// The closed-form transmitter of a constant-rate drop-tail link.
#[derive(Clone, Debug)]
pub(super) struct Fifo {
    tx: SerialTime,
    pub(super) limit_bytes: u64,
    pub(super) limit_packets: u32,
    /// Accepted packets not yet fully serialised, in FIFO order (arrivals, starts and ends
    /// all ascend). At most the front one is in service at any instant.
    sched: Ring<Entry>,
    /// Bytes ever accepted (those in `sched` are this less the front's `before`; a
    /// second running count, kept beside this one, cost a stalled wide load per packet).
    accepted_bytes: u64,
}

impl Fifo {
    pub(super) fn new(rate: Rate, limit_bytes: u64, limit_packets: u32) -> Fifo {
        Fifo {
            tx: SerialTime::new(rate),
            limit_bytes,
            limit_packets,
            sched: Ring::new(),
            accepted_bytes: 0,
        }
    }

    /// The rate it serves at.
    pub(super) fn rate(&self) -> Rate {
        self.tx.rate()
    }

    /// A packet of `bytes` arriving at `now`, the transmitter settled to `now`: its end
    /// of serialisation, or `None` if the queue refuses it. A packet that finds the
    /// transmitter idle is never refused.
    #[inline]
    pub(super) fn admit(&mut self, now: SimTime, bytes: u32) -> Option<SimTime> {
        let start = match self.sched.back() {
            Some(b) => {
                let (q_bytes, q_packets) = self.not_started_settled(now);
                if !self.admits(q_bytes, q_packets, bytes) {
                    return None;
                }
                b.done
            }
            None => now,
        };
        Some(self.accept(now, start, bytes))
    }

    /// [`Fifo::admit`] for a packet arriving at `at`, handed over ahead of its arrival: the
    /// transmitter is settled to an instant no later than `at`, and `at` is no earlier than
    /// any arrival before it.
    pub(super) fn admit_ahead(&mut self, at: SimTime, bytes: u32) -> Option<SimTime> {
        debug_assert!(self.sched.back().is_none_or(|b| b.arrival <= at));
        let start = match self.sched.back() {
            Some(b) if b.done > at => {
                let (q_bytes, q_packets) = self.not_started(at);
                if !self.admits(q_bytes, q_packets, bytes) {
                    return None;
                }
                b.done
            }
            _ => at,
        };
        Some(self.accept(at, start, bytes))
    }

    #[inline]
    fn admits(&self, q_bytes: u64, q_packets: usize, bytes: u32) -> bool {
        droptail::admits(
            q_bytes,
            q_packets,
            bytes,
            self.limit_bytes,
            self.limit_packets,
        )
    }

    /// Takes a packet arriving at `arrival`, starting at `start`: its end of serialisation.
    #[inline]
    fn accept(&mut self, arrival: SimTime, start: SimTime, bytes: u32) -> SimTime {
        let done = start + self.tx.of(bytes);
        self.sched.push_back(Entry {
            arrival,
            start,
            done,
            bytes,
            before: self.accepted_bytes,
        });
        self.accepted_bytes += bytes as u64;
        done
    }

    /// Retires the packets whose serialisation ended by `now`.
    #[inline]
    pub(super) fn settle(&mut self, now: SimTime, stats: &mut LinkStats) {
        while let Some(e) = self.sched.front() {
            if e.done > now {
                break;
            }
            let bytes = e.bytes as u64;
            self.sched.pop_front();
            stats.tx_packets += 1;
            stats.tx_bytes += bytes;
        }
    }

    /// Bytes accepted before entry `i` (all of them for `i` past the end).
    #[inline]
    fn before(&self, i: usize) -> u64 {
        self.sched.get(i).map_or(self.accepted_bytes, |e| e.before)
    }

    /// [`Fifo::not_started`] at `now` for a transmitter settled to `now`: every entry then
    /// ends after `now`, so at most the front has started (no search).
    #[inline]
    fn not_started_settled(&self, now: SimTime) -> (u64, usize) {
        match self.sched.front() {
            Some(f) if f.start <= now => (
                self.accepted_bytes - f.before - f.bytes as u64,
                self.sched.len() - 1,
            ),
            Some(f) => (self.accepted_bytes - f.before, self.sched.len()),
            None => (0, 0),
        }
    }

    /// (bytes, packets) accepted that start after `t`: all but those started by then.
    #[inline]
    fn not_started(&self, t: SimTime) -> (u64, usize) {
        let n = self.sched.len();
        // Usually none or only the front has started: no search.
        let started = match self.sched.front() {
            None => 0,
            Some(f) if f.start > t => 0,
            Some(_) if n == 1 || self.sched[1].start > t => 1,
            Some(_) => self.sched.partition_point(|e| e.start <= t),
        };
        (self.accepted_bytes - self.before(started), n - started)
    }

    /// (bytes, packets) waiting at `now` (after [`Fifo::settle`] to `now`): arrived by
    /// `now`, not started.
    pub(super) fn waiting(&self, now: SimTime) -> (u64, usize) {
        match self.sched.back() {
            // Nothing admitted ahead is still to arrive (the usual case).
            Some(b) if b.arrival <= now => self.not_started_settled(now),
            None => (0, 0),
            Some(_) => {
                let arrived = self.sched.partition_point(|e| e.arrival <= now);
                let started = self.sched.partition_point(|e| e.start <= now);
                if arrived <= started {
                    return (0, 0);
                }
                (
                    self.before(arrived) - self.before(started),
                    arrived - started,
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: fn(u64) -> SimTime = SimTime::from_us;

    /// 1 Mbit/s: a 125-byte packet takes 1 ms, 1000 µs.
    fn fifo(limit_packets: u32) -> Fifo {
        Fifo::new(Rate::mbps(1), u64::MAX, limit_packets)
    }

    #[test]
    fn packets_start_when_the_one_before_ends() {
        let mut f = fifo(10);
        let mut stats = LinkStats::default();
        assert_eq!(f.admit(US(0), 125), Some(US(1000)));
        // Arrives during the first one's serialisation: starts at 1000 µs.
        f.settle(US(400), &mut stats);
        assert_eq!(f.admit(US(400), 125), Some(US(2000)));
        // Arrives after the link went idle at 2000 µs: starts at once.
        f.settle(US(2500), &mut stats);
        assert_eq!((stats.tx_packets, stats.tx_bytes), (2, 250));
        assert_eq!(f.admit(US(2500), 125), Some(US(3500)));
        f.settle(US(2600), &mut stats);
        assert_eq!(f.waiting(US(2600)), (0, 0));
    }

    proptest::proptest! {
        /// Each packet ends its serialisation its own size's time after the one before
        /// (back to back), whatever sizes came before it: the kept time of the last size
        /// is never stale.
        #[test]
        fn back_to_back_packets_take_their_own_sizes_time(
            rate_bps in 1u64..100_000_000_000,
            sizes in crate::link::serial::mixed_sizes(),
        ) {
            let rate = Rate::bps(rate_bps);
            let mut f = Fifo::new(rate, u64::MAX, u32::MAX);
            let mut end = SimTime::ZERO;
            for b in sizes {
                end += rate.tx_time(b as u64);
                proptest::prop_assert_eq!(f.admit(SimTime::ZERO, b), Some(end));
            }
        }
    }

    #[test]
    fn admission_ahead_sees_the_queue_at_the_arrival() {
        // Fewer than 2 waiting packets admit one. Arrivals at 0, 100, 200, 300 and
        // 1100 µs: the one at 0 is served 0–1000 µs; those at 100 and 200 µs wait (one,
        // then two waiting); the one at 300 µs finds two waiting and is refused; at
        // 1100 µs the one of 100 µs is in service (1000–2000) and one waits: taken.
        let mut ahead = fifo(2);
        // All handed over at instant 0, ahead of their arrivals.
        let got: Vec<_> = [0, 100, 200, 300, 1100]
            .iter()
            .map(|&t| ahead.admit_ahead(US(t), 125))
            .collect();
        assert_eq!(
            got,
            vec![
                Some(US(1000)),
                Some(US(2000)),
                Some(US(3000)),
                None,
                Some(US(4000))
            ]
        );
        // The same packets, each admitted at its arrival after settling to it.
        let mut timely = fifo(2);
        let mut stats = LinkStats::default();
        let got2: Vec<_> = [0, 100, 200, 300, 1100]
            .iter()
            .map(|&t| {
                timely.settle(US(t), &mut stats);
                timely.admit(US(t), 125)
            })
            .collect();
        assert_eq!(got, got2);
    }

    #[test]
    fn the_queue_at_an_instant_leaves_out_packets_still_to_arrive() {
        let mut f = fifo(100);
        // Handed over at 0: arrivals at 0, 100, 200 and 5000 µs, 125 B each.
        for t in [0, 100, 200, 5000] {
            assert!(f.admit_ahead(US(t), 125).is_some());
        }
        let mut stats = LinkStats::default();
        // At 150 µs: the first in service, the one of 100 µs waits; 200 and 5000 µs
        // have not arrived.
        f.settle(US(150), &mut stats);
        assert_eq!(f.waiting(US(150)), (125, 1));
        // At 1500 µs: the second in service (1000–2000), the third waits.
        f.settle(US(1500), &mut stats);
        assert_eq!(f.waiting(US(1500)), (125, 1));
        // At 4000 µs: all three done, the fourth not yet arrived.
        f.settle(US(4000), &mut stats);
        assert_eq!(f.waiting(US(4000)), (0, 0));
        assert_eq!(stats.tx_packets, 3);
        // At 5000 µs it has arrived and is in service at once.
        f.settle(US(5000), &mut stats);
        assert_eq!(f.waiting(US(5000)), (0, 0));
    }

    #[test]
    fn a_long_queue_is_counted_by_its_running_sums() {
        // 1000 packets of growing size arrive at 0; at 10.5 ms ten have been served
        // (the first ten, 125 B each: 1 ms apiece), the eleventh is in service.
        let mut f = fifo(u32::MAX);
        for _ in 0..10 {
            f.admit(US(0), 125);
        }
        for k in 0..990u32 {
            f.admit(US(0), 100 + k);
        }
        let unsettled = f.clone();
        let mut stats = LinkStats::default();
        f.settle(US(10_500), &mut stats);
        assert_eq!(stats.tx_packets, 10);
        // Waiting: sizes 101..=1089 (989 packets), the one of 100 B in service.
        let want: u64 = (101..=1089u64).sum();
        assert_eq!(f.waiting(US(10_500)), (want, 989));
        // Admission ahead, without settling, sees the same queue at 10.5 ms.
        assert_eq!(unsettled.not_started(US(10_500)), (want, 989));
    }
}
