//! One direction of a point-to-point link.
//!
//! ```text
//!  arrivals ──► [ queue (drop-tail / CoDel) ] ──► transmitter ──► wire (delay, loss,
//!                                                 rate: constant      duplication,
//!                                                 or trace)           reordering) ──► far node
//! ```
//!
//! The transmitter serialises one packet at a time at the link rate (constant, or following
//! a [`RateTrace`](crate::trace::RateTrace); a rate of zero is an outage during which
//! packets wait). When serialisation ends the packet goes on the wire: random loss (a
//! [`LossProcess`]) may remove it, it may be duplicated, and it arrives at the far node
//! `delay` later — plus `reorder_delay` for the packets chosen for reordering, which is how
//! later packets overtake it. Loss and impairments are drawn from the link's own named
//! random streams.

use crate::loss::{LossModel, LossProcess};
use crate::queue::{DropReason, Queue, QueueConfig, QueuedPacket};
use crate::trace::{RateTrace, TraceServer};
use mmtsim_engine::{Rate, SimRng, SimTime};
use rand::Rng;

/// Index of a packet in the world's packet arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PacketRef(pub u32);

/// Wire impairments besides loss.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Impairments {
    /// Random loss after serialisation.
    pub loss: Option<LossModel>,
    /// Probability that a packet is delivered twice.
    pub duplicate_p: f64,
    /// Probability that a packet is held back by `reorder_delay`.
    pub reorder_p: f64,
    /// Extra delay of reordered packets.
    pub reorder_delay: SimTime,
    /// Drop exactly these packets, counted from 0 in the order they finish serialisation
    /// (a deterministic loss pattern for experiments and tests). Sorted ascending.
    pub drop_packets: Vec<u64>,
}

/// Configuration of one link direction.
#[derive(Clone, Debug)]
pub struct LinkConfig {
    /// Transmission rate; a trace makes it time-varying.
    pub rate: RateTrace,
    /// One-way propagation delay.
    pub delay: SimTime,
    /// Queue in front of the transmitter.
    pub queue: QueueConfig,
    /// Wire impairments.
    pub impairments: Impairments,
    /// Largest packet, for CoDel's `maxpacket`.
    pub mtu_bytes: u32,
}

/// What a link asks the world to do after an input.
#[derive(Debug, Default)]
pub struct LinkOutput {
    /// Packets dropped, with why.
    pub dropped: Vec<(PacketRef, DropReason)>,
    /// Packets that will arrive at the far node, with their arrival time; `true` marks a
    /// duplicate the world must copy.
    pub delivered: Vec<(PacketRef, SimTime, bool)>,
    /// The transmitter finishes its current packet at this time: schedule a `tx_done`.
    pub tx_done_at: Option<SimTime>,
}

impl LinkOutput {
    /// Empties the output for reuse.
    pub fn clear(&mut self) {
        self.dropped.clear();
        self.delivered.clear();
        self.tx_done_at = None;
    }
}

/// Per-direction counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Packets that completed serialisation.
    pub tx_packets: u64,
    /// Bytes that completed serialisation.
    pub tx_bytes: u64,
    /// Tail drops at the queue.
    pub tail_drops: u64,
    /// AQM drops.
    pub aqm_drops: u64,
    /// Random wire losses.
    pub wire_losses: u64,
}

enum Transmitter {
    Constant(Rate),
    Trace(TraceServer),
}

/// One link direction: queue, transmitter, wire.
pub struct LinkDir {
    queue: Queue,
    tx: Transmitter,
    delay: SimTime,
    in_service: Option<QueuedPacket>,
    loss: Option<LossProcess>,
    impair: Impairments,
    impair_rng: SimRng,
    scratch: Vec<QueuedPacket>,
    /// Packets put on the wire so far (index for `drop_packets`).
    wire_index: u64,
    /// Next entry of `impair.drop_packets` to apply.
    drop_cursor: usize,
    /// Counters.
    pub stats: LinkStats,
}

impl LinkDir {
    /// A link direction; `loss_rng` and `impair_rng` are its own named streams.
    pub fn new(mut cfg: LinkConfig, loss_rng: SimRng, impair_rng: SimRng) -> Self {
        cfg.impairments.drop_packets.sort_unstable();
        cfg.impairments.drop_packets.dedup();
        let tx = match cfg.rate.is_constant() {
            Some(r) => Transmitter::Constant(r),
            None => Transmitter::Trace(TraceServer::new(cfg.rate)),
        };
        LinkDir {
            queue: Queue::new(&cfg.queue, cfg.mtu_bytes),
            tx,
            delay: cfg.delay,
            in_service: None,
            loss: cfg
                .impairments
                .loss
                .clone()
                .map(|m| LossProcess::new(m, loss_rng)),
            impair: cfg.impairments,
            impair_rng,
            scratch: Vec::new(),
            wire_index: 0,
            drop_cursor: 0,
            stats: LinkStats::default(),
        }
    }

    /// A packet of `size_bytes` arrives at the queue at `now`.
    #[inline]
    pub fn enqueue(&mut self, now: SimTime, pkt: PacketRef, size_bytes: u32, out: &mut LinkOutput) {
        let qp = QueuedPacket {
            pkt,
            size_bytes,
            enqueued_at: now,
        };
        if self.in_service.is_none() && self.queue.is_empty() {
            self.start(now, qp, out);
            return;
        }
        if !self.queue.enqueue(qp) {
            self.stats.tail_drops += 1;
            out.dropped.push((pkt, DropReason::TailDrop));
        }
    }

    fn start(&mut self, now: SimTime, qp: QueuedPacket, out: &mut LinkOutput) {
        let done = match &mut self.tx {
            Transmitter::Constant(r) => now + r.tx_time(qp.size_bytes as u64),
            Transmitter::Trace(s) => s.serve(now, qp.size_bytes as u64),
        };
        self.in_service = Some(qp);
        if done != SimTime::NEVER {
            out.tx_done_at = Some(done);
        }
    }

    /// The transmitter finished the packet in service at `now`.
    pub fn tx_done(&mut self, now: SimTime, out: &mut LinkOutput) {
        let qp = self
            .in_service
            .take()
            .expect("tx_done with nothing in service");
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += qp.size_bytes as u64;
        self.put_on_wire(now, qp, out);
        self.scratch.clear();
        let next = self.queue.dequeue(now, &mut self.scratch);
        for d in self.scratch.drain(..) {
            self.stats.aqm_drops += 1;
            out.dropped.push((d.pkt, DropReason::Aqm));
        }
        if let Some(n) = next {
            self.start(now, n, out);
        }
    }

    fn put_on_wire(&mut self, now: SimTime, qp: QueuedPacket, out: &mut LinkOutput) {
        let index = self.wire_index;
        self.wire_index += 1;
        if self.impair.drop_packets.get(self.drop_cursor) == Some(&index) {
            self.drop_cursor += 1;
            self.stats.wire_losses += 1;
            out.dropped.push((qp.pkt, DropReason::WireLoss));
            return;
        }
        if let Some(l) = &mut self.loss {
            if l.lose_next() {
                self.stats.wire_losses += 1;
                out.dropped.push((qp.pkt, DropReason::WireLoss));
                return;
            }
        }
        let mut at = now + self.delay;
        if self.impair.reorder_p > 0.0 && self.impair_rng.random::<f64>() < self.impair.reorder_p {
            at += self.impair.reorder_delay;
        }
        out.delivered.push((qp.pkt, at, false));
        if self.impair.duplicate_p > 0.0
            && self.impair_rng.random::<f64>() < self.impair.duplicate_p
        {
            out.delivered.push((qp.pkt, at, true));
        }
    }

    /// Bytes waiting in the queue (not counting the packet being serialised).
    pub fn queue_bytes(&self) -> u64 {
        self.queue.bytes()
    }

    /// Packets waiting in the queue.
    pub fn queue_packets(&self) -> usize {
        self.queue.len()
    }

    /// One-way propagation delay.
    pub fn delay(&self) -> SimTime {
        self.delay
    }

    /// A representative rate: the constant rate, or a trace's mean over its first minute.
    pub fn rate_hint(&self) -> Rate {
        match &self.tx {
            Transmitter::Constant(r) => *r,
            Transmitter::Trace(s) => s.trace().mean_rate(SimTime::ZERO, SimTime::from_secs(60)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mmtsim_engine::RngStreams;

    fn link(rate: Rate, delay_ms: u64, limit_bytes: Option<u64>) -> LinkDir {
        let s = RngStreams::new(1);
        LinkDir::new(
            LinkConfig {
                rate: RateTrace::constant(rate),
                delay: SimTime::from_ms(delay_ms),
                queue: QueueConfig {
                    limit_bytes,
                    limit_packets: None,
                    codel: None,
                },
                impairments: Impairments::default(),
                mtu_bytes: 1500,
            },
            s.stream("l"),
            s.stream("i"),
        )
    }

    #[test]
    fn back_to_back_packets_are_serialised_then_delayed() {
        // 12 Mbit/s: 1500 B = 1 ms. Three packets at t = 0 with 10 ms delay arrive at
        // 11, 12 and 13 ms.
        let mut l = link(Rate::mbps(12), 10, None);
        let mut out = LinkOutput::default();
        let mut arrivals = vec![];
        for i in 0..3 {
            l.enqueue(SimTime::ZERO, PacketRef(i), 1500, &mut out);
        }
        let mut next = out.tx_done_at.take();
        assert_eq!(l.queue_bytes(), 3000);
        while let Some(t) = next {
            l.tx_done(t, &mut out);
            arrivals.extend(out.delivered.drain(..).map(|(p, at, _)| (p.0, at)));
            next = out.tx_done_at.take();
        }
        assert_eq!(
            arrivals,
            vec![
                (0, SimTime::from_ms(11)),
                (1, SimTime::from_ms(12)),
                (2, SimTime::from_ms(13))
            ]
        );
    }

    #[test]
    fn listed_packets_are_dropped_exactly() {
        let s = RngStreams::new(1);
        let mut l = LinkDir::new(
            LinkConfig {
                rate: RateTrace::constant(Rate::mbps(12)),
                delay: SimTime::ZERO,
                queue: QueueConfig {
                    limit_bytes: None,
                    limit_packets: None,
                    codel: None,
                },
                impairments: Impairments {
                    drop_packets: vec![3, 1],
                    ..Default::default()
                },
                mtu_bytes: 1500,
            },
            s.stream("l"),
            s.stream("i"),
        );
        let mut out = LinkOutput::default();
        for i in 0..5 {
            l.enqueue(SimTime::ZERO, PacketRef(i), 1500, &mut out);
        }
        let mut next = out.tx_done_at.take();
        let mut delivered = vec![];
        while let Some(t) = next {
            l.tx_done(t, &mut out);
            delivered.extend(out.delivered.drain(..).map(|(p, _, _)| p.0));
            next = out.tx_done_at.take();
        }
        assert_eq!(delivered, vec![0, 2, 4]);
        assert_eq!(l.stats.wire_losses, 2);
    }

    #[test]
    fn full_queue_tail_drops_and_counts() {
        // One packet in service + 1500 B of queue: the third packet is dropped.
        let mut l = link(Rate::mbps(12), 0, Some(1500));
        let mut out = LinkOutput::default();
        for i in 0..3 {
            l.enqueue(SimTime::ZERO, PacketRef(i), 1500, &mut out);
        }
        assert_eq!(out.dropped, vec![(PacketRef(2), DropReason::TailDrop)]);
        assert_eq!(l.stats.tail_drops, 1);
    }
}
