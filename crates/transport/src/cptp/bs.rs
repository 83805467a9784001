//! The BS plug-in's per-UE pull buffer [MMCPTP §V–VII]: allocated on the first packet of a
//! session, it pulls from the proxy what it can hold, pushes packets into the radio's
//! lower layer (RLC, or a wired last hop's queue) as that layer's buffer status allows,
//! keeps each packet until the UE acknowledges it, and sends again what the UE lacks.
//!
//! - Size and credit: the buffer holds packets `[base, edge)`, `base` being the first
//!   the UE has not acknowledged and `edge` the highest pull edge; a pull raises `edge` to
//!   `base + capacity`, so what the buffer holds — received, pushed or still on its way
//!   — never exceeds its capacity.
//! - Periodic pull: every `period` T, if the buffer can take more. Threshold pull: at
//!   every push opportunity (each MAC scheduling interval), if fewer than `threshold`
//!   packets are held or on their way [MMCPTP §V ¶2].
//! - Gaps from the proxy: the first arrival above a gap sends a SACK at once. While a
//!   pulled packet is missing (a hole, or credit outstanding) and nothing arrives for four pull-to-data round trips (at least 5 ms,
//!   doubling while nothing comes, at most 1 s), the BS probes with a SACK and a pull
//!   restating its edge: the proxy resends what it sent long ago and the BS lacks (the
//!   tail of a burst whose last packets were lost), and learns the credit of a pull that
//!   was lost. The probe is ours; the paper names only SACKs.
//! - UE ACKs (cumulative and ranges) free the buffer; a packet the UE lacks while it
//!   holds three or more later ones, or that a retransmission timer (RFC 6298 over the
//!   push-to-ACK times, as Karn) finds unacknowledged, is pushed again. The paper says
//!   the BS "performs re-transmissions if required"; the rule is ours.
//! - Pushes are in packet order: a missing packet holds back later ones until the
//!   proxy's retransmission fills it (the UE's RLC delivers in order anyway).

use super::set::PacketSet;
use super::wire::{CptpHeader, Msg, Ranges};
use crate::tcp::rtt::RttEstimator;
use mmtsim_engine::SimTime;
use std::collections::VecDeque;

/// How the plug-in pulls.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PullMode {
    /// Every `period`.
    Periodic {
        /// The pull period T.
        period: SimTime,
    },
    /// Whenever fewer than `packets` are held or on their way.
    Threshold {
        /// The threshold, packets.
        packets: u64,
    },
}

/// The plug-in's settings for one UE.
#[derive(Clone, Copy, Debug)]
pub struct BsConfig {
    /// Packets the pull buffer holds.
    pub capacity_packets: u64,
    /// How it pulls.
    pub pull: PullMode,
    /// Smallest retransmission timeout towards the UE.
    pub min_rto: SimTime,
}

/// The plug-in's counters (one pull buffer; the world adds them over sessions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BsStats {
    /// Pulls sent.
    pub pulls: u64,
    /// SACKs sent.
    pub sacks: u64,
    /// Packets pushed to the lower layer for the first time.
    pub pushed: u64,
    /// Packets pushed again (the UE lacked them).
    pub retransmits: u64,
    /// Data packets from the proxy that were already held (or acknowledged).
    pub duplicates: u64,
    /// ACKs from the UE.
    pub acks: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Slot {
    /// Pulled, not arrived.
    Missing,
    /// Arrived, not pushed.
    Held { len: u32 },
    /// In the lower layer or on its way to the UE.
    Pushed { len: u32, at: SimTime, retx: bool },
    /// The UE has it (above a packet it lacks).
    Acked,
}

/// A packet to push into the lower layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Push {
    /// Packet number.
    pub n: u64,
    /// Payload bytes.
    pub len: u32,
    /// A retransmission.
    pub retx: bool,
}

/// One UE's pull buffer at its serving BS, for one session of the proxy.
#[derive(Clone, Debug)]
pub struct PullBuffer {
    cfg: BsConfig,
    session: u16,
    base: u64,
    /// The UE's highest cumulative ACK to this buffer.
    ue_cum: u64,
    slots: VecDeque<Slot>,
    edge: u64,
    /// Every packet below this arrived from the proxy.
    received: u64,
    /// One past the highest packet that arrived.
    highest: u64,
    /// Next packet to push for the first time.
    push_next: u64,
    /// Packets to push again, lowest first.
    resend: VecDeque<u64>,
    /// Newest data send time seen (echoed to the proxy).
    echo: u32,
    next_pull: SimTime,
    /// When the oldest unanswered pull was sent (NEVER: none).
    pull_sent_at: SimTime,
    /// Smallest pull-to-first-data time.
    pull_rtt: SimTime,
    /// The probe for missing credit fires at this instant (NEVER: none due).
    probe_at: SimTime,
    probe_backoff: u32,
    rtt: RttEstimator,
    rto_at: SimTime,
    /// Counters.
    pub stats: BsStats,
}

impl PullBuffer {
    /// A pull buffer allocated on the session's first packet, `first` (which the caller
    /// then hands to [`Self::on_data`]).
    pub fn new(now: SimTime, cfg: BsConfig, session: u16, first: u64) -> Self {
        PullBuffer {
            cfg,
            session,
            base: first,
            ue_cum: 0,
            slots: VecDeque::new(),
            edge: first + 1,
            received: first,
            highest: first,
            push_next: first,
            resend: VecDeque::new(),
            echo: 0,
            next_pull: now,
            pull_sent_at: SimTime::NEVER,
            pull_rtt: SimTime::NEVER,
            probe_at: SimTime::NEVER,
            probe_backoff: 0,
            rtt: RttEstimator::new(cfg.min_rto, SimTime::from_secs(2)),
            rto_at: SimTime::NEVER,
            stats: BsStats::default(),
        }
    }

    /// The proxy session this buffer serves.
    pub fn session(&self) -> u16 {
        self.session
    }
    /// First packet the UE has not acknowledged, as far as its ACKs to this buffer say
    /// (0 before the first): what pulls and the NACK report as delivered. Not `base`,
    /// which starts at whatever packet allocated the buffer.
    pub fn delivered(&self) -> u64 {
        self.ue_cum
    }
    /// Packets held, pushed and unacknowledged, or on their way: `edge − base`.
    pub fn reserved_packets(&self) -> u64 {
        self.edge - self.base
    }
    /// The highest pull edge.
    pub fn edge(&self) -> u64 {
        self.edge
    }
    /// Bytes the buffer stores (arrived and not acknowledged by the UE).
    pub fn stored_bytes(&self) -> u64 {
        self.slots
            .iter()
            .map(|s| match s {
                Slot::Held { len } | Slot::Pushed { len, .. } => *len as u64,
                _ => 0,
            })
            .sum()
    }

    /// Moves `received` past every packet that has arrived.
    fn advance_received(&mut self) {
        while self.received < self.highest
            && self
                .slots
                .get((self.received - self.base) as usize)
                .is_some_and(|s| !matches!(s, Slot::Missing))
        {
            self.received += 1;
        }
    }

    fn slot(&mut self, n: u64) -> &mut Slot {
        let i = (n - self.base) as usize;
        while self.slots.len() <= i {
            self.slots.push_back(Slot::Missing);
        }
        &mut self.slots[i]
    }

    fn hdr(&self, msg: Msg) -> CptpHeader {
        CptpHeader {
            session: self.session,
            ts_us: self.echo,
            msg,
        }
    }

    fn sacked(&self) -> Ranges {
        // Only packets between `received` and `highest` can be held above a hole.
        let mut set = PacketSet::default();
        let from = (self.received + 1).saturating_sub(self.base) as usize;
        let to = (self.highest.saturating_sub(self.base) as usize).min(self.slots.len());
        for i in from..to {
            if !matches!(self.slots[i], Slot::Missing) {
                let n = self.base + i as u64;
                set.insert(n, n + 1);
            }
        }
        set.to_ranges()
    }

    /// A data packet from the proxy; false if it could not be taken (outside the
    /// buffer's window, or already there).
    pub fn on_data(&mut self, now: SimTime, h: &CptpHeader, out: &mut Vec<CptpHeader>) -> bool {
        let Msg::Data { n, len, .. } = h.msg else {
            return false;
        };
        if n < self.base || n >= self.base + self.cfg.capacity_packets.max(1) || n >= self.edge {
            self.stats.duplicates += 1;
            return false;
        }
        if !matches!(*self.slot(n), Slot::Missing) {
            self.stats.duplicates += 1;
            return false;
        }
        *self.slot(n) = Slot::Held { len };
        self.echo = h.ts_us;
        if self.pull_sent_at != SimTime::NEVER {
            self.pull_rtt = self.pull_rtt.min(now.saturating_sub(self.pull_sent_at));
            self.pull_sent_at = SimTime::NEVER;
        }
        self.probe_backoff = 0;
        let gap = n > self.highest;
        self.highest = self.highest.max(n + 1);
        self.advance_received();
        if gap && self.received < n {
            self.stats.sacks += 1;
            let sacked = self.sacked();
            out.push(self.hdr(Msg::Sack {
                received: self.received,
                sacked,
            }));
        }
        self.arm_probe(now);
        true
    }

    fn probe_timeout(&self) -> SimTime {
        let rtt = if self.pull_rtt == SimTime::NEVER {
            SimTime::from_ms(10)
        } else {
            self.pull_rtt
        };
        let base = SimTime(4 * rtt.ns()).max(SimTime::from_ms(5));
        SimTime(base.ns().saturating_mul(1 << self.probe_backoff.min(10)))
            .min(SimTime::from_secs(1))
    }

    /// The probe is due a timeout after now while pulled packets have not arrived.
    fn arm_probe(&mut self, now: SimTime) {
        self.probe_at = if self.received < self.edge {
            now + self.probe_timeout()
        } else {
            SimTime::NEVER
        };
    }

    /// Packets to push while the lower layer takes `room` more bytes, each packet costing
    /// its payload and `overhead` header bytes: retransmissions first, then new packets
    /// in order.
    pub fn push(&mut self, now: SimTime, mut room: u64, overhead: u32, out: &mut Vec<Push>) {
        while let Some(&n) = self.resend.front() {
            if n < self.base {
                self.resend.pop_front();
                continue;
            }
            let Slot::Pushed { len, .. } = *self.slot(n) else {
                self.resend.pop_front();
                continue;
            };
            let cost = (len + overhead) as u64;
            if cost > room {
                return;
            }
            room -= cost;
            self.resend.pop_front();
            *self.slot(n) = Slot::Pushed {
                len,
                at: now,
                retx: true,
            };
            self.stats.retransmits += 1;
            out.push(Push { n, len, retx: true });
        }
        while self.push_next < self.received {
            let n = self.push_next;
            let Slot::Held { len } = *self.slot(n) else {
                // Acknowledged before it was pushed (an older session's copy reached the
                // UE): skip it.
                self.push_next += 1;
                continue;
            };
            let cost = (len + overhead) as u64;
            if cost > room {
                break;
            }
            room -= cost;
            *self.slot(n) = Slot::Pushed {
                len,
                at: now,
                retx: false,
            };
            self.push_next += 1;
            self.stats.pushed += 1;
            out.push(Push {
                n,
                len,
                retx: false,
            });
        }
        if self.rto_at == SimTime::NEVER && self.push_next > self.base {
            self.rto_at = now + self.rtt.rto();
        }
    }

    /// An ACK from the UE.
    pub fn on_ack(&mut self, now: SimTime, h: &CptpHeader) {
        let Msg::Ack { cumulative, sacked } = h.msg else {
            return;
        };
        self.stats.acks += 1;
        self.ue_cum = self.ue_cum.max(cumulative);
        // The UE may hold packets this buffer never pushed (an older session's copies,
        // delivered after a handover): they are acknowledged all the same.
        let cumulative = cumulative.min(self.edge);
        let mut sample = None;
        while self.base < cumulative {
            if let Some(Slot::Pushed {
                at, retx: false, ..
            }) = self.slots.pop_front()
            {
                sample = Some(at);
            }
            self.base += 1;
        }
        self.received = self.received.max(self.base);
        self.highest = self.highest.max(self.base);
        self.push_next = self.push_next.max(self.base);
        // The UE may hold packets this buffer still missed (an older session's copies):
        // past them, what already arrived counts as received.
        self.advance_received();
        for r in sacked.as_slice() {
            for n in r.start.max(self.base)..r.end.min(self.push_next) {
                if let Slot::Pushed { at, retx, .. } = *self.slot(n) {
                    if !retx {
                        sample = sample.max(Some(at));
                    }
                }
                *self.slot(n) = Slot::Acked;
            }
        }
        if let Some(at) = sample {
            self.rtt.on_sample(now.saturating_sub(at));
        }
        // A packet the UE lacks below three it holds is lost (as TCP's DupThresh, RFC
        // 6675 §5): push it again, at most once per smoothed round trip. Only an ACK with
        // ranges says the UE holds anything above a hole; the scan stops at its highest.
        let top = sacked.as_slice().iter().map(|r| r.end).max().unwrap_or(0);
        if top > self.base {
            let guard = self.rtt.srtt().unwrap_or(self.rtt.rto());
            let mut above = 0;
            let last = ((top - self.base) as usize).min(self.slots.len());
            for i in (0..last).rev() {
                let n = self.base + i as u64;
                match self.slots[i] {
                    Slot::Acked => above += 1,
                    Slot::Pushed { at, .. }
                        if above >= 3
                            && now.saturating_sub(at) >= guard
                            && !self.resend.contains(&n) =>
                    {
                        self.resend.push_back(n);
                    }
                    _ => {}
                }
            }
        }
        self.resend.make_contiguous().sort_unstable();
        self.rto_at = if self.push_next > self.base {
            now + self.rtt.rto()
        } else {
            SimTime::NEVER
        };
    }

    /// A pull, if the mode says one is due now (periodic: the period has passed;
    /// threshold: too little is held or on its way).
    pub fn maybe_pull(&mut self, now: SimTime, out: &mut Vec<CptpHeader>) {
        let want = match self.cfg.pull {
            PullMode::Periodic { period } => {
                if now < self.next_pull {
                    return;
                }
                self.next_pull = now + period;
                true
            }
            PullMode::Threshold { packets } => self.reserved_packets() < packets,
        };
        let new_edge = self.base + self.cfg.capacity_packets;
        if want && new_edge > self.edge {
            self.edge = new_edge;
            self.stats.pulls += 1;
            if self.pull_sent_at == SimTime::NEVER {
                self.pull_sent_at = now;
            }
            if self.probe_at == SimTime::NEVER {
                self.arm_probe(now);
            }
            out.push(self.pull_msg());
        }
    }

    /// A pull restating the current edge, with what reached the UE and the BS.
    fn pull_msg(&self) -> CptpHeader {
        self.hdr(Msg::Pull {
            edge: self.edge,
            delivered: self.ue_cum,
            received: self.received,
            sacked: self.sacked(),
        })
    }

    /// The NACK the source BS sends the proxy when the UE leaves.
    pub fn nack(&self) -> CptpHeader {
        self.hdr(Msg::Nack {
            delivered: self.ue_cum,
        })
    }

    /// The plug-in's next deadline: the pull period or the retransmission timer.
    pub fn next_deadline(&self) -> SimTime {
        let pull = match self.cfg.pull {
            PullMode::Periodic { .. } => self.next_pull,
            PullMode::Threshold { .. } => SimTime::NEVER,
        };
        pull.min(self.rto_at).min(self.probe_at)
    }

    /// A deadline passed.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<CptpHeader>) {
        self.maybe_pull(now, out);
        if self.probe_at <= now {
            if self.received < self.edge {
                self.stats.sacks += 1;
                self.stats.pulls += 1;
                out.push(self.pull_msg());
                out.push(self.hdr(Msg::Sack {
                    received: self.received,
                    sacked: self.sacked(),
                }));
                self.probe_backoff += 1;
            }
            self.arm_probe(now);
        }
        if self.rto_at <= now {
            self.rto_at = SimTime::NEVER;
            let lost = (self.base..self.push_next)
                .find(|&n| matches!(self.slots[(n - self.base) as usize], Slot::Pushed { .. }));
            if let Some(n) = lost {
                self.rtt.back_off();
                if !self.resend.contains(&n) {
                    self.resend.push_front(n);
                }
                self.rto_at = now + self.rtt.rto();
            }
        }
    }

    /// True if packets wait to be pushed (new or again).
    pub fn has_pending(&self) -> bool {
        !self.resend.is_empty() || self.push_next < self.received
    }

    /// The ts echo a test can read.
    pub fn echo(&self) -> u32 {
        self.echo
    }
}

/// A source BS's NACK, sent again until the proxy acknowledges it: first after
/// [`NACK_RETRY`], doubling, at most every second.
#[derive(Clone, Copy, Debug)]
pub struct NackSender {
    nack: CptpHeader,
    next_at: SimTime,
    backoff: u32,
}

/// Wait for the proxy's NACK-ACK before the NACK is sent again.
pub const NACK_RETRY: SimTime = SimTime::from_ms(20);

impl NackSender {
    /// The NACK `nack`, sent at `now`.
    pub fn new(now: SimTime, nack: CptpHeader) -> Self {
        NackSender {
            nack,
            next_at: now + NACK_RETRY,
            backoff: 0,
        }
    }
    /// When it is sent again.
    pub fn next_deadline(&self) -> SimTime {
        self.next_at
    }
    /// The NACK to send again, if due.
    pub fn on_timer(&mut self, now: SimTime) -> Option<CptpHeader> {
        if now < self.next_at {
            return None;
        }
        self.backoff += 1;
        self.next_at =
            now + SimTime(NACK_RETRY.ns() << self.backoff.min(5)).min(SimTime::from_secs(1));
        Some(self.nack)
    }
    /// True if `ack` acknowledges this NACK.
    pub fn acked_by(&self, ack: &CptpHeader) -> bool {
        matches!((ack.msg, self.nack.msg), (Msg::NackAck { delivered: a }, Msg::Nack { delivered: b }) if a == b)
            && ack.session == self.nack.session
    }
}
