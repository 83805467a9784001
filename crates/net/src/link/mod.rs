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
//!
//! A constant-rate drop-tail link is served in closed form: a FIFO at a fixed rate starts
//! each packet when the one before it ends, so at arrival its start, end of serialisation
//! and arrival at the far node are known — no event per packet for the transmitter. The
//! queue is then the packets whose start lies in the future; admission, wire loss and
//! impairments (drawn in the same FIFO order), drops and counters are those of the
//! event-driven transmitter, which remains for rate traces (outages need a packet to
//! wait for the rate to come back) and CoDel (it decides at dequeue). When a departure
//! and an arrival fall on the same instant, the departure counts first.
//! ([`fifo`]; it may also take a packet ahead of its arrival, for the world's hop fusion.)
//! Such a link without impairments is *direct* ([`LinkDir::is_direct`]): each packet has
//! exactly one outcome, its arrival or its refusal, which [`LinkDir::enqueue_direct`] and
//! [`LinkDir::enqueue_ahead_direct`] return without a [`LinkOutput`] (the same state and
//! counters; `tests.rs` compares the two paths on random arrivals).

mod fifo;
mod serial;

use crate::loss::{LossModel, LossProcess};
use crate::queue::{DropReason, Queue, QueueConfig, QueuedPacket};
use crate::trace::{RateTrace, TraceServer};
use fifo::Fifo;
use mmtsim_engine::{Rate, SimRng, SimTime};
use rand::Rng;
use serial::SerialTime;

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

/// A packet that will arrive at the far node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// The packet.
    pub pkt: PacketRef,
    /// Arrival time at the far node.
    pub at: SimTime,
    /// A duplicate the world must copy.
    pub duplicate: bool,
    /// Held back by the reordering impairment: later packets may arrive before it.
    pub held: bool,
}

impl Delivery {
    /// A packet arriving at `at` as sent: neither a duplicate nor held back.
    #[inline]
    pub fn plain(pkt: PacketRef, at: SimTime) -> Delivery {
        Delivery {
            pkt,
            at,
            duplicate: false,
            held: false,
        }
    }
}

/// What a link asks the world to do after an input.
#[derive(Debug, Default)]
pub struct LinkOutput {
    /// Packets dropped, with why.
    pub dropped: Vec<(PacketRef, DropReason)>,
    /// Packets that will arrive at the far node, in the order they leave the transmitter.
    pub delivered: Vec<Delivery>,
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
    Constant(SerialTime),
    Trace(TraceServer),
    /// Constant rate, drop-tail, served in closed form.
    Fifo(Fifo),
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
    /// No impairment of any kind (no loss process, no packet to drop, no reordering, no
    /// duplication): every packet reaches the far end `delay` after it left, and the
    /// wire's per-packet bookkeeping is skipped. Fixed when the link is made.
    clean: bool,
    /// Counters.
    pub stats: LinkStats,
}

impl LinkDir {
    /// A link direction; `loss_rng` and `impair_rng` are its own named streams.
    pub fn new(mut cfg: LinkConfig, loss_rng: SimRng, impair_rng: SimRng) -> Self {
        cfg.impairments.drop_packets.sort_unstable();
        cfg.impairments.drop_packets.dedup();
        let tx = match cfg.rate.is_constant() {
            Some(r) if cfg.queue.codel.is_none() => Transmitter::Fifo(Fifo::new(
                r,
                cfg.queue.limit_bytes.unwrap_or(u64::MAX),
                cfg.queue.limit_packets.unwrap_or(u32::MAX),
            )),
            Some(r) => Transmitter::Constant(SerialTime::new(r)),
            None => Transmitter::Trace(TraceServer::new(cfg.rate.clone())),
        };
        Self::with_transmitter(cfg, tx, loss_rng, impair_rng)
    }

    /// The same link served by a transmitter that finishes each packet in a `tx_done`
    /// event, whatever its configuration (the reference the closed form is tested against).
    pub fn event_driven(mut cfg: LinkConfig, loss_rng: SimRng, impair_rng: SimRng) -> Self {
        cfg.impairments.drop_packets.sort_unstable();
        cfg.impairments.drop_packets.dedup();
        let tx = match cfg.rate.is_constant() {
            Some(r) => Transmitter::Constant(SerialTime::new(r)),
            None => Transmitter::Trace(TraceServer::new(cfg.rate.clone())),
        };
        Self::with_transmitter(cfg, tx, loss_rng, impair_rng)
    }

    fn with_transmitter(
        cfg: LinkConfig,
        tx: Transmitter,
        loss_rng: SimRng,
        impair_rng: SimRng,
    ) -> Self {
        let i = &cfg.impairments;
        let clean = i.loss.is_none()
            && i.drop_packets.is_empty()
            && i.reorder_p == 0.0
            && i.duplicate_p == 0.0;
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
            clean,
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
        if matches!(self.tx, Transmitter::Fifo(_)) {
            match self.admit_closed_form(now, size_bytes) {
                Some(done) => self.put_on_wire(done, qp, out),
                None => out.dropped.push((pkt, DropReason::TailDrop)),
            }
            return;
        }
        if self.in_service.is_none() && self.queue.is_empty() {
            self.start(now, qp, out);
            return;
        }
        if !self.queue.enqueue(qp) {
            self.stats.tail_drops += 1;
            out.dropped.push((pkt, DropReason::TailDrop));
        }
    }

    /// A packet of `size_bytes` handed over at `now` that arrives at the queue at `at`
    /// (hop fusion: its arrival is already known). The link takes it, with the outcome it
    /// would have at `at`, if it is served in closed form and its queue admits it then;
    /// else it returns false and nothing changes, and the packet is to be enqueued at its
    /// arrival as usual. The caller guarantees that no packet arrives at this queue before
    /// `at` that it has not yet been given.
    pub fn enqueue_ahead(
        &mut self,
        now: SimTime,
        at: SimTime,
        pkt: PacketRef,
        size_bytes: u32,
        out: &mut LinkOutput,
    ) -> bool {
        if !matches!(self.tx, Transmitter::Fifo(_)) {
            return false;
        }
        let Some(done) = self.admit_ahead_closed_form(now, at, size_bytes) else {
            return false;
        };
        let qp = QueuedPacket {
            pkt,
            size_bytes,
            enqueued_at: at,
        };
        self.put_on_wire(done, qp, out);
        true
    }

    /// True if every packet the link takes has exactly one outcome, known when it is
    /// taken: served in closed form, with no impairment. Such a link may be fed through
    /// [`LinkDir::enqueue_direct`] and [`LinkDir::enqueue_ahead_direct`], which give that
    /// outcome without a [`LinkOutput`].
    pub fn is_direct(&self) -> bool {
        self.clean && matches!(self.tx, Transmitter::Fifo(_))
    }

    /// [`LinkDir::enqueue`] on a direct link ([`LinkDir::is_direct`]): the packet's arrival
    /// at the far node, or `None` if the queue refused it (counted as a tail drop). The
    /// same state and counters as `enqueue`, which would have output that one delivery
    /// or drop.
    #[inline]
    pub fn enqueue_direct(&mut self, now: SimTime, size_bytes: u32) -> Option<SimTime> {
        debug_assert!(self.is_direct());
        self.admit_closed_form(now, size_bytes)
            .map(|done| done + self.delay)
    }

    /// [`LinkDir::enqueue_ahead`] on a direct link: the packet's arrival at the far node if
    /// the link takes it ahead, else `None` and nothing changed.
    #[inline]
    pub fn enqueue_ahead_direct(
        &mut self,
        now: SimTime,
        at: SimTime,
        size_bytes: u32,
    ) -> Option<SimTime> {
        debug_assert!(self.is_direct());
        self.admit_ahead_closed_form(now, at, size_bytes)
            .map(|done| done + self.delay)
    }

    /// The closed-form transmitter, settled to `now`, takes a packet arriving now: its end
    /// of serialisation, or `None` if the queue refused it (counted as a tail drop).
    #[inline]
    fn admit_closed_form(&mut self, now: SimTime, size_bytes: u32) -> Option<SimTime> {
        let Transmitter::Fifo(f) = &mut self.tx else {
            unreachable!("only a closed-form link admits in closed form")
        };
        f.settle(now, &mut self.stats);
        let done = f.admit(now, size_bytes);
        if done.is_none() {
            self.stats.tail_drops += 1;
        }
        done
    }

    /// The closed-form transmitter, settled to `now`, takes a packet arriving at `at`
    /// ahead of its arrival: its end of serialisation, or `None` (nothing changed but the
    /// settling) if the queue would refuse it then.
    #[inline]
    fn admit_ahead_closed_form(
        &mut self,
        now: SimTime,
        at: SimTime,
        size_bytes: u32,
    ) -> Option<SimTime> {
        let Transmitter::Fifo(f) = &mut self.tx else {
            unreachable!("only a closed-form link admits in closed form")
        };
        f.settle(now, &mut self.stats);
        f.admit_ahead(at, size_bytes)
    }

    /// True if the link may take packets ahead of their arrival ([`LinkDir::enqueue_ahead`]):
    /// it is served in closed form.
    pub fn takes_ahead(&self) -> bool {
        matches!(self.tx, Transmitter::Fifo(_))
    }

    /// True if its packets reach the far node in the order they leave the transmitter,
    /// one copy each (no reordering or duplication impairment).
    pub fn keeps_order(&self) -> bool {
        self.impair.reorder_p == 0.0 && self.impair.duplicate_p == 0.0
    }

    fn start(&mut self, now: SimTime, qp: QueuedPacket, out: &mut LinkOutput) {
        let done = match &mut self.tx {
            Transmitter::Constant(s) => now + s.of(qp.size_bytes),
            Transmitter::Trace(s) => s.serve(now, qp.size_bytes as u64),
            Transmitter::Fifo(_) => unreachable!("the closed-form transmitter has no events"),
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

    /// `qp` leaves the transmitter at `now` (its end of serialisation).
    #[inline]
    fn put_on_wire(&mut self, now: SimTime, qp: QueuedPacket, out: &mut LinkOutput) {
        if self.clean {
            out.delivered
                .push(Delivery::plain(qp.pkt, now + self.delay));
        } else {
            self.put_on_impaired_wire(now, qp, out);
        }
    }

    /// [`Self::put_on_wire`] on a link with impairments: scheduled drops, random loss,
    /// reordering, duplication, in that order.
    #[inline(never)]
    fn put_on_impaired_wire(&mut self, now: SimTime, qp: QueuedPacket, out: &mut LinkOutput) {
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
        let held =
            self.impair.reorder_p > 0.0 && self.impair_rng.random::<f64>() < self.impair.reorder_p;
        if held {
            at += self.impair.reorder_delay;
        }
        let d = Delivery {
            pkt: qp.pkt,
            at,
            duplicate: false,
            held,
        };
        out.delivered.push(d);
        if self.impair.duplicate_p > 0.0
            && self.impair_rng.random::<f64>() < self.impair.duplicate_p
        {
            out.delivered.push(Delivery {
                duplicate: true,
                ..d
            });
        }
    }

    /// Bytes waiting in the queue at `now` (not counting the packet being serialised).
    pub fn queue_bytes(&mut self, now: SimTime) -> u64 {
        match &mut self.tx {
            Transmitter::Fifo(f) => {
                f.settle(now, &mut self.stats);
                f.waiting(now).0
            }
            _ => self.queue.bytes(),
        }
    }

    /// Bytes the queue still admits at `now` in packets of `packet_bytes` (what a host
    /// writing into this link may add without a tail drop).
    pub fn queue_room_bytes(&mut self, now: SimTime, packet_bytes: u32) -> u64 {
        let (limit_bytes, limit_packets) = match &self.tx {
            Transmitter::Fifo(f) => (f.limit_bytes, f.limit_packets),
            _ => self.queue.limits(),
        };
        let (bytes, packets) = (self.queue_bytes(now), self.queue_packets(now) as u64);
        let by_packets = (limit_packets as u64).saturating_sub(packets) * packet_bytes as u64;
        limit_bytes.saturating_sub(bytes).min(by_packets)
    }

    /// Packets waiting in the queue at `now`.
    pub fn queue_packets(&mut self, now: SimTime) -> usize {
        match &mut self.tx {
            Transmitter::Fifo(f) => {
                f.settle(now, &mut self.stats);
                f.waiting(now).1
            }
            _ => self.queue.len(),
        }
    }

    /// Brings the counters up to `now` (the closed-form transmitter counts a packet as
    /// transmitted when its serialisation ends, which no event marks).
    pub fn settle(&mut self, now: SimTime) {
        if let Transmitter::Fifo(f) = &mut self.tx {
            f.settle(now, &mut self.stats);
        }
    }

    /// One-way propagation delay.
    pub fn delay(&self) -> SimTime {
        self.delay
    }

    /// The highest rate over `[0, until)`: the constant rate, or for a trace the largest
    /// mean over a window of `window` (a Mahimahi trace's opportunities are 1 ms apart,
    /// so a window of a few ms gives its sustained peak).
    pub fn peak_rate(&self, until: SimTime, window: SimTime) -> Rate {
        match &self.tx {
            Transmitter::Constant(s) => s.rate(),
            Transmitter::Fifo(f) => f.rate(),
            Transmitter::Trace(s) => {
                let w = window.ns().max(1);
                let mut best = 0u64;
                let mut t = 0u64;
                while t < until.ns() {
                    let b = s.trace().capacity_bytes(SimTime(t), SimTime(t + w));
                    best = best.max(b);
                    t += w;
                }
                Rate((best as u128 * 8 * 1_000_000_000 / w as u128) as u64)
            }
        }
    }

    /// A representative rate: the constant rate, or a trace's mean over its first minute.
    pub fn rate_hint(&self) -> Rate {
        match &self.tx {
            Transmitter::Constant(s) => s.rate(),
            Transmitter::Trace(s) => s.trace().mean_rate(SimTime::ZERO, SimTime::from_secs(60)),
            Transmitter::Fifo(f) => f.rate(),
        }
    }
}

#[cfg(test)]
mod tests;
