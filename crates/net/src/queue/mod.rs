//! Queues in front of a link transmitter.
//!
//! A [`Queue`] is a FIFO of packet references with a byte/packet limit enforced at enqueue
//! (tail drop) and an optional active queue management discipline run at dequeue:
//! - [`droptail`]: no AQM; only the limit.
//! - [`codel`]: CoDel (RFC 8289), which drops at the head when packets have waited longer
//!   than `target` for at least `interval`.
//!
//! Occupancy counts the packets *waiting*: the packet being serialised has left the queue,
//! as in Linux's qdisc backlog.

pub mod codel;
pub mod droptail;

use crate::link::PacketRef;
use mmtsim_engine::SimTime;
use std::collections::VecDeque;

/// A queued packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueuedPacket {
    /// The packet.
    pub pkt: PacketRef,
    /// Its size on the wire in bytes.
    pub size_bytes: u32,
    /// When it entered the queue.
    pub enqueued_at: SimTime,
}

/// Active queue management run at dequeue.
#[derive(Clone, Debug)]
pub enum Aqm {
    /// Plain FIFO.
    DropTail,
    /// CoDel state machine.
    CoDel(codel::CoDel),
}

/// Queue configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueConfig {
    /// Limit on waiting bytes (tail drop beyond it), if any.
    pub limit_bytes: Option<u64>,
    /// Limit on waiting packets (tail drop beyond it), if any.
    pub limit_packets: Option<u32>,
    /// CoDel parameters, or `None` for drop-tail.
    pub codel: Option<codel::CoDelParams>,
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The queue was full at arrival.
    TailDrop,
    /// The AQM dropped it at dequeue.
    Aqm,
    /// Random loss on the wire.
    WireLoss,
}

/// The head of a wired queue as CoDel sees it; drops go to `dropped`.
struct Heads<'a> {
    items: &'a mut VecDeque<QueuedPacket>,
    bytes: &'a mut u64,
    dropped: &'a mut Vec<QueuedPacket>,
}

impl codel::CoDelQueue for Heads<'_> {
    fn head(&self) -> Option<(SimTime, u64)> {
        self.items
            .front()
            .map(|p| (p.enqueued_at, *self.bytes - p.size_bytes as u64))
    }
    fn drop_head(&mut self) {
        let p = self
            .items
            .pop_front()
            .expect("CoDel drops only an existing head");
        *self.bytes -= p.size_bytes as u64;
        self.dropped.push(p);
    }
}

/// A FIFO with limits and optional AQM.
#[derive(Clone, Debug)]
pub struct Queue {
    items: VecDeque<QueuedPacket>,
    bytes: u64,
    limit_bytes: u64,
    limit_packets: u32,
    aqm: Aqm,
}

impl Queue {
    /// A queue from its configuration. `mtu_bytes` is CoDel's `maxpacket`.
    pub fn new(cfg: &QueueConfig, mtu_bytes: u32) -> Self {
        let aqm = match cfg.codel {
            Some(p) => Aqm::CoDel(codel::CoDel::new(p, mtu_bytes)),
            None => Aqm::DropTail,
        };
        Queue {
            items: VecDeque::new(),
            bytes: 0,
            limit_bytes: cfg.limit_bytes.unwrap_or(u64::MAX),
            limit_packets: cfg.limit_packets.unwrap_or(u32::MAX),
            aqm,
        }
    }

    /// Appends `p` unless that would exceed a limit; returns false on a tail drop.
    #[inline]
    pub fn enqueue(&mut self, p: QueuedPacket) -> bool {
        if !droptail::admits(
            self.bytes,
            self.items.len(),
            p.size_bytes,
            self.limit_bytes,
            self.limit_packets,
        ) {
            return false;
        }
        self.bytes += p.size_bytes as u64;
        self.items.push_back(p);
        true
    }

    /// Removes the head for transmission at `now`; packets the AQM drops on the way are
    /// appended to `dropped`.
    #[inline]
    pub fn dequeue(
        &mut self,
        now: SimTime,
        dropped: &mut Vec<QueuedPacket>,
    ) -> Option<QueuedPacket> {
        if let Aqm::CoDel(c) = &mut self.aqm {
            c.dequeue(
                &mut Heads {
                    items: &mut self.items,
                    bytes: &mut self.bytes,
                    dropped,
                },
                now,
            );
        }
        self.pop_head()
    }

    fn pop_head(&mut self) -> Option<QueuedPacket> {
        let p = self.items.pop_front()?;
        self.bytes -= p.size_bytes as u64;
        Some(p)
    }

    /// Waiting bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The limits: (bytes, packets).
    pub fn limits(&self) -> (u64, u32) {
        (self.limit_bytes, self.limit_packets)
    }

    /// Waiting packets.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True if nothing waits.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}
