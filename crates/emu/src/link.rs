//! One direction of an emulated link, as a sans-IO model: a drop-tail queue in front of a
//! transmitter whose rate is constant or follows a trace, then a propagation delay.
//!
//! It reproduces the accounting of `mmtsim-net`'s `LinkDir` (crates/net/src/link/mod.rs)
//! for a drop-tail link, so that the emulated link and the simulated one serve the same
//! packets at the same instants:
//!
//! - A packet's size is its IP packet (IPv4 header included, no link-layer framing): what a
//!   TUN device with `IFF_NO_PI` hands over, and mmtsim's `Packet::size_bytes`.
//! - The transmitter serves packets FIFO; a packet starts at `max(arrival, previous end of
//!   serialisation)` and, over a trace, ends when [`TraceServer::serve`] says. Since the
//!   queue is FIFO and drop-tail, every end of serialisation is known at arrival (the
//!   closed form mmtsim uses for constant links), so the model needs no timer of its own.
//! - The queue limit counts the bytes *waiting*, not the packet being serialised; a packet
//!   that finds the transmitter idle is never refused; a packet is refused if the waiting
//!   bytes plus its own would exceed the limit (`mmtsim_net::queue::droptail::admits`).
//! - When a departure and an arrival fall on the same instant, the departure counts first.
//! - The packet reaches the far end `delay` after its end of serialisation.
//!
//! Model time is nanoseconds since the link's clock origin (see [`crate::clock`]).

use std::collections::VecDeque;

use mmtsim_engine::{Rate, SimTime};
use mmtsim_net::queue::droptail;
use mmtsim_net::trace::{RateTrace, TraceServer};

/// How the transmitter's capacity is given.
pub enum Service {
    /// A constant rate.
    Constant(Rate),
    /// A rate trace (CSV piecewise or Mahimahi), served exactly as mmtsim serves it.
    Trace(TraceServer),
}

impl Service {
    /// A service over `trace`, constant if the trace is.
    pub fn from_trace(trace: RateTrace) -> Self {
        match trace.is_constant() {
            Some(rate) => Service::Constant(rate),
            None => Service::Trace(TraceServer::new(trace)),
        }
    }

    /// End of serialisation of `bytes` starting at `start_ns`; `None` if the capacity never
    /// suffices (a trace that ends in a permanent outage).
    fn serve(&mut self, start_ns: u64, bytes: u32) -> Option<u64> {
        let done = match self {
            Service::Constant(rate) if rate.as_bps() == 0 => return None,
            Service::Constant(rate) => SimTime(start_ns) + rate.tx_time(bytes as u64),
            Service::Trace(server) => server.serve(SimTime(start_ns), bytes as u64),
        };
        (done != SimTime::NEVER).then_some(done.ns())
    }
}

/// Configuration of one link direction.
pub struct LinkConfig {
    /// Transmitter capacity.
    pub service: Service,
    /// One-way propagation delay, ns.
    pub delay_ns: u64,
    /// Drop-tail limit on waiting bytes; `None` is unlimited.
    pub limit_bytes: Option<u64>,
}

/// What becomes of an offered packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Accepted: it reaches the far end at this model time (ns).
    Deliver {
        /// Arrival at the far end, ns of model time.
        at_ns: u64,
    },
    /// Refused by the drop-tail queue.
    TailDrop,
    /// The link's capacity never carries it (permanent outage).
    NoCapacity,
}

/// One link direction's queue and transmitter state.
pub struct LinkModel {
    service: Service,
    delay_ns: u64,
    limit_bytes: u64,
    /// Accepted packets not yet fully serialised: (start, end of serialisation, bytes), in
    /// FIFO order. At most the front one is in service at any instant.
    sched: VecDeque<(u64, u64, u32)>,
    /// Bytes in `sched`.
    sched_bytes: u64,
}

impl LinkModel {
    /// An idle link.
    pub fn new(cfg: LinkConfig) -> Self {
        LinkModel {
            service: cfg.service,
            delay_ns: cfg.delay_ns,
            limit_bytes: cfg.limit_bytes.unwrap_or(u64::MAX),
            sched: VecDeque::new(),
            sched_bytes: 0,
        }
    }

    /// A packet of `size_bytes` arrives at model time `now_ns`; arrivals must not go back
    /// in time.
    pub fn offer(&mut self, now_ns: u64, size_bytes: u32) -> Verdict {
        self.settle(now_ns);
        let start_ns = match self.sched.back() {
            // A packet that finds the transmitter idle is never refused.
            None => now_ns,
            Some(&(_, busy_until_ns, _)) => {
                let (bytes, packets) = self.waiting(now_ns);
                if !droptail::admits(bytes, packets, size_bytes, self.limit_bytes, u32::MAX) {
                    return Verdict::TailDrop;
                }
                busy_until_ns
            }
        };
        let Some(done_ns) = self.service.serve(start_ns, size_bytes) else {
            return Verdict::NoCapacity;
        };
        self.sched.push_back((start_ns, done_ns, size_bytes));
        self.sched_bytes += size_bytes as u64;
        Verdict::Deliver {
            at_ns: done_ns + self.delay_ns,
        }
    }

    /// One-way propagation delay, ns.
    pub fn delay_ns(&self) -> u64 {
        self.delay_ns
    }

    /// Bytes waiting at `now_ns` (not counting the packet being serialised).
    pub fn queue_bytes(&mut self, now_ns: u64) -> u64 {
        self.settle(now_ns);
        self.waiting(now_ns).0
    }

    /// Retires the packets whose serialisation ended by `now_ns` (departures first).
    fn settle(&mut self, now_ns: u64) {
        while let Some(&(_, done_ns, bytes)) = self.sched.front() {
            if done_ns > now_ns {
                break;
            }
            self.sched.pop_front();
            self.sched_bytes -= bytes as u64;
        }
    }

    /// (bytes, packets) waiting at `now_ns`, after `settle`: all but the one in service.
    fn waiting(&self, now_ns: u64) -> (u64, usize) {
        match self.sched.front() {
            Some(&(start_ns, _, bytes)) if start_ns <= now_ns => {
                (self.sched_bytes - bytes as u64, self.sched.len() - 1)
            }
            _ => (self.sched_bytes, self.sched.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn constant(rate_bps: u64, delay_ns: u64, limit_bytes: Option<u64>) -> LinkModel {
        LinkModel::new(LinkConfig {
            service: Service::Constant(Rate(rate_bps)),
            delay_ns,
            limit_bytes,
        })
    }

    fn traced(csv: &str, delay_ns: u64, limit_bytes: Option<u64>) -> LinkModel {
        LinkModel::new(LinkConfig {
            service: Service::from_trace(RateTrace::from_csv(csv).unwrap()),
            delay_ns,
            limit_bytes,
        })
    }

    #[test]
    fn a_1500_byte_packet_at_12_mbps_leaves_after_1_ms() {
        // 1500 B * 8 = 12 000 bit; at 12e6 bit/s that is 1 ms, then 10 ms of delay.
        let mut l = constant(12_000_000, 10 * MS, None);
        assert_eq!(l.offer(0, 1500), Verdict::Deliver { at_ns: 11 * MS });
    }

    #[test]
    fn back_to_back_packets_queue_behind_each_other() {
        // Three packets at t = 0: ends of serialisation at 1, 2, 3 ms.
        let mut l = constant(12_000_000, 10 * MS, None);
        let at: Vec<_> = (0..3).map(|_| l.offer(0, 1500)).collect();
        assert_eq!(
            at,
            [11, 12, 13]
                .map(|m| Verdict::Deliver { at_ns: m * MS })
                .to_vec()
        );
        // At 1.5 ms the first is gone, the second is in service, the third waits.
        assert_eq!(l.queue_bytes(3 * MS / 2), 1500);
        // A packet arriving after the link went idle starts at its arrival.
        assert_eq!(l.offer(20 * MS, 1500), Verdict::Deliver { at_ns: 31 * MS });
    }

    #[test]
    fn the_packet_that_would_exceed_the_limit_is_dropped() {
        // Limit 3000 B of waiting bytes. The first packet goes straight into service,
        // the next two wait (3000 B, exactly the limit), the fourth would make 4500.
        let mut l = constant(12_000_000, 0, Some(3000));
        for _ in 0..3 {
            assert!(matches!(l.offer(0, 1500), Verdict::Deliver { .. }));
        }
        assert_eq!(l.offer(0, 1500), Verdict::TailDrop);
        assert_eq!(l.offer(0, 1), Verdict::TailDrop);
        // At 1 ms the first has left (departures count first): 1500 B wait behind the
        // one now in service, so one full packet fits again.
        assert_eq!(l.offer(MS, 1500), Verdict::Deliver { at_ns: 4 * MS });
        assert_eq!(l.offer(MS, 1500), Verdict::TailDrop);
    }

    #[test]
    fn a_packet_finding_the_link_idle_is_accepted_whatever_the_limit() {
        let mut l = constant(12_000_000, 0, Some(0));
        assert_eq!(l.offer(0, 1500), Verdict::Deliver { at_ns: MS });
        assert_eq!(l.offer(0, 40), Verdict::TailDrop);
    }

    #[test]
    fn an_outage_holds_packets_until_the_rate_returns() {
        // 12 Mbit/s, outage [0.5 ms, 100 ms), 12 Mbit/s again. A packet at 0 gets half its
        // bits through by 0.5 ms and the other half in the 0.5 ms after 100 ms.
        let mut l = traced("time_s,rate_mbps\n0,12\n0.0005,0\n0.1,12\n", 5 * MS, None);
        assert_eq!(
            l.offer(0, 1500),
            Verdict::Deliver {
                at_ns: 100 * MS + MS / 2 + 5 * MS
            }
        );
        // The next one waits for it and follows 1 ms later.
        assert_eq!(
            l.offer(MS, 1500),
            Verdict::Deliver {
                at_ns: 101 * MS + MS / 2 + 5 * MS
            }
        );
    }

    #[test]
    fn a_permanent_outage_carries_nothing() {
        let mut l = traced("time_s,rate_mbps\n0,0\n", 0, None);
        assert_eq!(l.offer(0, 1500), Verdict::NoCapacity);
        let mut z = constant(0, 0, None);
        assert_eq!(z.offer(0, 1500), Verdict::NoCapacity);
    }

    #[test]
    fn mahimahi_opportunities_carry_1500_bytes_each() {
        // One opportunity every ms: a 1500 B packet at 0.2 ms leaves at the 1 ms one;
        // two 750 B packets queued together share the 2 ms one.
        let mut l = LinkModel::new(LinkConfig {
            service: Service::from_trace(RateTrace::from_mahimahi("1\n").unwrap()),
            delay_ns: 0,
            limit_bytes: None,
        });
        assert_eq!(l.offer(MS / 5, 1500), Verdict::Deliver { at_ns: MS });
        assert_eq!(l.offer(MS + 1, 750), Verdict::Deliver { at_ns: 2 * MS });
        assert_eq!(l.offer(MS + 2, 750), Verdict::Deliver { at_ns: 2 * MS });
    }
}
