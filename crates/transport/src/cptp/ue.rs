//! The UE's end of mmCPTP [MMCPTP §VI]: it requests the content from the proxy, takes
//! data packets from its BS, hands bytes in order to the application, and acknowledges
//! what it holds to the BS.
//!
//! - ACKs: after every second new packet, at once for a packet out of order or already
//!   held, and otherwise after `ack_delay` (TCP's delayed-ACK rule, RFC 9293 §3.8.6.3,
//!   applied to packets). Each carries the cumulative point and up to four ranges.
//! - Request: sent at the flow's start; if neither data nor a FAIL come within
//!   `request_timeout`, or a FAIL comes, it is sent again, up to `retries` times; then the
//!   download has failed. The paper says only that "the UE can retry".

use super::set::PacketSet;
use super::wire::{CptpHeader, Msg};
use mmtsim_engine::SimTime;
use std::collections::BTreeMap;

/// The UE end's settings.
#[derive(Clone, Copy, Debug)]
pub struct UeConfig {
    /// Delay of an ACK for a single in-order packet.
    pub ack_delay: SimTime,
    /// How long a request waits for data or a FAIL.
    pub request_timeout: SimTime,
    /// Requests sent again after a FAIL or a timeout, at most.
    pub retries: u32,
}

/// The UE end's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UeStats {
    /// Requests sent (the first and the retries).
    pub requests: u64,
    /// FAILs received.
    pub fails: u64,
    /// ACKs sent.
    pub acks: u64,
    /// Data packets received that were already held.
    pub duplicates: u64,
    /// The download was given up (every retry failed).
    pub gave_up: bool,
}

/// The UE's end of one download.
#[derive(Clone, Debug)]
pub struct UeEnd {
    cfg: UeConfig,
    /// Every packet below this was delivered in order.
    cumulative: u64,
    /// Packets above `cumulative` held, with their lengths.
    ooo: BTreeMap<u64, u32>,
    held: PacketSet,
    /// New packets since the last ACK.
    unacked: u32,
    ack_at: SimTime,
    request_at: SimTime,
    retries_left: u32,
    got_data: bool,
    /// Counters.
    pub stats: UeStats,
}

impl UeEnd {
    /// A UE end that has not yet asked.
    pub fn new(cfg: UeConfig) -> Self {
        UeEnd {
            cfg,
            cumulative: 0,
            ooo: BTreeMap::new(),
            held: PacketSet::default(),
            unacked: 0,
            ack_at: SimTime::NEVER,
            request_at: SimTime::NEVER,
            retries_left: cfg.retries,
            got_data: false,
            stats: UeStats::default(),
        }
    }

    /// Packets delivered in order.
    pub fn cumulative(&self) -> u64 {
        self.cumulative
    }

    fn request(&mut self, now: SimTime, out: &mut Vec<CptpHeader>) {
        self.stats.requests += 1;
        self.request_at = now + self.cfg.request_timeout;
        out.push(CptpHeader {
            session: 0,
            ts_us: 0,
            msg: Msg::Request,
        });
    }

    /// The application asks for the content.
    pub fn start(&mut self, now: SimTime, out: &mut Vec<CptpHeader>) {
        self.request(now, out);
    }

    fn retry(&mut self, now: SimTime, out: &mut Vec<CptpHeader>) {
        if self.retries_left == 0 {
            self.request_at = SimTime::NEVER;
            self.stats.gave_up = true;
            return;
        }
        self.retries_left -= 1;
        self.request(now, out);
    }

    /// The proxy's FAIL.
    pub fn on_fail(&mut self, now: SimTime, out: &mut Vec<CptpHeader>) {
        self.stats.fails += 1;
        if !self.got_data {
            self.retry(now, out);
        }
    }

    fn ack(&mut self, out: &mut Vec<CptpHeader>) {
        self.unacked = 0;
        self.ack_at = SimTime::NEVER;
        self.stats.acks += 1;
        out.push(CptpHeader {
            session: 0,
            ts_us: 0,
            msg: Msg::Ack {
                cumulative: self.cumulative,
                sacked: self.held.to_ranges(),
            },
        });
    }

    /// A data packet; returns the bytes it delivered in order (ACKs go to `out`).
    pub fn on_data(&mut self, now: SimTime, h: &CptpHeader, out: &mut Vec<CptpHeader>) -> u64 {
        let Msg::Data { n, len, .. } = h.msg else {
            return 0;
        };
        if !self.got_data {
            self.got_data = true;
            self.request_at = SimTime::NEVER;
        }
        if n < self.cumulative || self.ooo.contains_key(&n) {
            self.stats.duplicates += 1;
            self.ack(out);
            return 0;
        }
        let mut bytes = 0;
        if n == self.cumulative {
            bytes += len as u64;
            self.cumulative += 1;
            while let Some(l) = self.ooo.remove(&self.cumulative) {
                bytes += l as u64;
                self.cumulative += 1;
            }
            self.held.drop_below(self.cumulative);
            self.unacked += 1;
            // Out-of-order data still held, or a hole just filled: tell the BS at once.
            if self.unacked >= 2 || !self.ooo.is_empty() || bytes > len as u64 {
                self.ack(out);
            } else if self.ack_at == SimTime::NEVER {
                self.ack_at = now + self.cfg.ack_delay;
            }
        } else {
            self.ooo.insert(n, len);
            self.held.insert(n, n + 1);
            self.ack(out);
        }
        bytes
    }

    /// The next deadline: a delayed ACK or the request's timeout.
    pub fn next_deadline(&self) -> SimTime {
        self.ack_at.min(self.request_at)
    }

    /// A deadline passed.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<CptpHeader>) {
        if self.ack_at <= now {
            self.ack(out);
        }
        if self.request_at <= now {
            self.retry(now, out);
        }
    }
}
