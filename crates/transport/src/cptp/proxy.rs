//! The proxy [MMCPTP §VI]: it holds the content it read from the server's TCP connection
//! (the cache), sends packets towards the UE as the BS pulls them, recovers losses on the
//! proxy–BS path, and re-routes after a handover NACK.
//!
//! - Pull counter: `edge − next`, where `edge` is the highest pull edge of this session.
//!   Each pull raises it by the packets it asks for, each new packet sent lowers it by one;
//!   the proxy sends a new packet only while it is positive (retransmissions are of
//!   packets already counted). Carrying the edge rather than the increment makes a lost
//!   pull harmless: the next one carries the same credit.
//! - Cache: bytes read from the server not yet confirmed delivered to the UE. A pull's
//!   `delivered` frees them (the paper frees "the corresponding number of bytes" with
//!   every pull). A full cache stops reading from the TCP connection, whose window then
//!   closes on the server.
//! - Losses between proxy and BS: a SACK (or a pull's `received` and ranges) names what
//!   reached the BS; a hole below what the BS holds is sent again, at most once per two
//!   path round trips (the smallest echoed send-to-confirmation time). A SACK also
//!   comes when credit is outstanding and nothing arrives (the BS's probe, `bs.rs`):
//!   then every unconfirmed packet is a hole. The paper states only that SACKs are
//!   used; the probe is ours, needed when the last packets of a burst are lost.
//! - Handover: a NACK from the source BS names the first packet the UE lacks; the proxy
//!   opens a new session from there (its packets reach the target BS, which allocates a
//!   new pull buffer on the first of them) and forgets the old session's credit.
//! - The initiating packet: a session starts with one packet sent without a pull, on
//!   which the BS allocates its pull buffer [MMCPTP §VI ¶1]. Until the session's first
//!   pull arrives it is sent again after 20 ms, doubling (ours: the paper does not say
//!   what happens if it is lost).
//! - Host egress: the caller may cap how many packets one call sends
//!   ([`Proxy::set_budget`]), as a host's socket is held back while its interface queue
//!   is full (TCP Small Queues, [TSQ §tcp_small_queue_check]); a pull asking for a whole
//!   buffer at once would otherwise overflow the proxy's own egress queue. The paper is
//!   silent on pacing.

use super::set::PacketSet;
use super::wire::{CptpHeader, Msg, Ranges};
use mmtsim_engine::SimTime;
use std::collections::VecDeque;

/// The proxy's settings.
#[derive(Clone, Copy, Debug)]
pub struct ProxyConfig {
    /// Payload bytes per packet.
    pub packet_bytes: u32,
    /// Most bytes the cache holds.
    pub cache_bytes: u64,
    /// How long the proxy waits for the server to answer its HTTP request.
    pub request_timeout: SimTime,
}

/// The proxy's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProxyStats {
    /// Pulls received.
    pub pulls: u64,
    /// SACKs received.
    pub sacks: u64,
    /// Handover NACKs received.
    pub nacks: u64,
    /// New data packets sent.
    pub sent: u64,
    /// Data packets sent again.
    pub retransmits: u64,
    /// Of those, after a probe of the BS (nothing had arrived there) or for want of a
    /// session's first pull.
    pub timeouts: u64,
    /// HTTP requests sent to the server.
    pub http_requests: u64,
    /// Failures reported to the UE.
    pub failures: u64,
}

/// The proxy of one download.
#[derive(Clone, Debug)]
pub struct Proxy {
    cfg: ProxyConfig,
    session: u16,
    /// The session's initiating packet has been sent.
    started: bool,
    /// Bytes read from the server so far.
    cached_end: u64,
    /// The content's length, once known (a file; unknown for endless content).
    content_bytes: Option<u64>,
    /// Packets below this are confirmed delivered to the UE (their bytes are freed).
    delivered: u64,
    /// Next new packet.
    next: u64,
    /// Highest pull edge of this session.
    edge: u64,
    /// Every packet below this reached the BS (this session).
    received: u64,
    /// Packets above `received` that reached the BS.
    held: PacketSet,
    /// Last send time of each packet in `[received, next)`.
    sent_at: VecDeque<SimTime>,
    /// Smallest echoed round trip to the BS.
    min_rtt: SimTime,
    /// The HTTP request is waiting for the server's answer until this instant.
    http_deadline: SimTime,
    /// The server answered (its connection reached the proxy).
    server_open: bool,
    /// Packets the current call may still send.
    budget: u64,
    /// The UE's request arrived (nothing is sent before).
    requested: bool,
    /// The session's initiating packet is sent again at this instant (NEVER once a pull
    /// of the session arrived).
    init_at: SimTime,
    init_backoff: u32,
    /// Counters.
    pub stats: ProxyStats,
}

/// Wait for the first pull of a session before the initiating packet is sent again.
pub const INIT_RETRY: SimTime = SimTime::from_ms(20);

/// Microseconds of `t`, wrapping, as the wire's time field carries them.
pub fn ts_of(t: SimTime) -> u32 {
    (t.ns() / 1_000) as u32
}

impl Proxy {
    /// A proxy with nothing cached.
    pub fn new(cfg: ProxyConfig) -> Self {
        Proxy {
            cfg,
            session: 0,
            started: false,
            cached_end: 0,
            content_bytes: None,
            delivered: 0,
            next: 0,
            edge: 0,
            received: 0,
            held: PacketSet::default(),
            sent_at: VecDeque::new(),
            min_rtt: SimTime::NEVER,
            http_deadline: SimTime::NEVER,
            server_open: false,
            budget: u64::MAX,
            requested: false,
            init_at: SimTime::NEVER,
            init_backoff: 0,
            stats: ProxyStats::default(),
        }
    }

    /// The current session.
    pub fn session(&self) -> u16 {
        self.session
    }
    /// The next new packet.
    pub fn next_packet(&self) -> u64 {
        self.next
    }
    /// The highest pull edge of this session (the proxy never sends a new packet at or
    /// above it, except a session's initiating packet).
    pub fn edge(&self) -> u64 {
        self.edge
    }
    /// Bytes in the cache (read from the server, not yet confirmed delivered).
    pub fn cache_occupancy(&self) -> u64 {
        self.cached_end - self.freed_bytes()
    }
    /// Bytes the cache can still take.
    pub fn cache_room(&self) -> u64 {
        self.cfg.cache_bytes.saturating_sub(self.cache_occupancy())
    }
    /// The cache's size, bytes.
    pub fn cache_bytes(&self) -> u64 {
        self.cfg.cache_bytes
    }
    /// The content's length, if known.
    pub fn content_length(&self) -> Option<u64> {
        self.content_bytes
    }
    /// Bytes read from the server.
    pub fn cached_end(&self) -> u64 {
        self.cached_end
    }

    fn freed_bytes(&self) -> u64 {
        (self.delivered * self.cfg.packet_bytes as u64).min(self.cached_end)
    }

    /// Caps the packets the following calls send (new and again) at `packets`.
    pub fn set_budget(&mut self, packets: u64) {
        self.budget = packets;
    }

    /// True if new packets wait only for the budget: credit and cached data are there.
    pub fn blocked_by_budget(&self) -> bool {
        self.budget == 0 && self.next < self.edge && self.packet_len(self.next).is_some()
    }

    /// Sends what the credit, the cache and the budget allow now (after the budget was
    /// raised).
    pub fn resume(&mut self, now: SimTime, out: &mut Vec<Out>) {
        self.send_new(now, out);
    }

    /// The content is `bytes` long (the server's response says so).
    pub fn set_content_length(&mut self, bytes: u64) {
        self.content_bytes = Some(bytes);
    }

    /// Payload of packet `n`, if the cache holds all of it.
    fn packet_len(&self, n: u64) -> Option<u32> {
        let p = self.cfg.packet_bytes as u64;
        let start = n * p;
        let end = match self.content_bytes {
            Some(total) if start >= total => return None,
            Some(total) => (start + p).min(total),
            None => start + p,
        };
        (end <= self.cached_end).then_some((end - start) as u32)
    }

    /// The content is in the cache before any request, whole (`bytes` long): no server
    /// is asked [MMCPTP §VI ¶1, "if the content is present locally at the proxy, it is
    /// retrieved using pull"].
    pub fn preload(&mut self, bytes: u64) {
        self.server_open = true;
        self.content_bytes = Some(bytes);
        self.cached_end = bytes;
    }

    /// The UE's request arrived: ask the server (again, if it has not answered), or
    /// start sending what the cache holds.
    pub fn on_request(&mut self, now: SimTime, out: &mut Vec<Out>) {
        self.requested = true;
        if self.server_open {
            self.send_new(now, out);
            return;
        }
        if self.http_deadline != SimTime::NEVER {
            return;
        }
        self.stats.http_requests += 1;
        self.http_deadline = now + self.cfg.request_timeout;
        out.push(Out::ToServer(self.hdr(0, Msg::HttpRequest)));
    }

    /// The server's connection reached the proxy: the HTTP request was answered.
    pub fn on_server_open(&mut self) {
        self.server_open = true;
        self.http_deadline = SimTime::NEVER;
    }

    /// `bytes` more were read from the server.
    pub fn on_server_bytes(&mut self, now: SimTime, bytes: u64, out: &mut Vec<Out>) {
        self.cached_end += bytes;
        self.send_new(now, out);
    }

    fn hdr(&self, ts_us: u32, msg: Msg) -> CptpHeader {
        CptpHeader {
            session: self.session,
            ts_us,
            msg,
        }
    }

    fn send(&mut self, now: SimTime, n: u64, retx: bool, out: &mut Vec<Out>) {
        let len = self.packet_len(n).expect("only cached packets are sent");
        let i = (n - self.received) as usize;
        if i == self.sent_at.len() {
            self.sent_at.push_back(now);
        } else {
            self.sent_at[i] = now;
        }
        self.budget = self.budget.saturating_sub(1);
        if retx {
            self.stats.retransmits += 1;
        } else {
            self.stats.sent += 1;
        }
        out.push(Out::ToUe(self.hdr(ts_of(now), Msg::Data { n, len, retx })));
    }

    /// Sends the new packets the pull counter and the cache allow.
    fn send_new(&mut self, now: SimTime, out: &mut Vec<Out>) {
        if !self.requested {
            return;
        }
        if !self.started && self.packet_len(self.next).is_some() {
            // The initiating packet: the BS allocates its pull buffer on it.
            self.started = true;
            self.edge = self.edge.max(self.next + 1);
            self.init_backoff = 0;
            self.init_at = now + INIT_RETRY;
        }
        while self.budget > 0 && self.next < self.edge && self.packet_len(self.next).is_some() {
            let n = self.next;
            self.next += 1;
            self.send(now, n, false, out);
        }
    }

    /// Takes the BS's view: every packet below `received` and those in `sacked` reached
    /// it; `echo` is the newest data packet's send time it saw.
    fn confirm(&mut self, now: SimTime, received: u64, sacked: &Ranges, echo: u32) {
        if received > self.received && received <= self.next {
            let k = (received - self.received) as usize;
            self.sent_at.drain(..k.min(self.sent_at.len()));
            self.received = received;
            self.held.drop_below(received);
        }
        for r in sacked.as_slice() {
            if r.end <= self.next {
                self.held.insert(r.start.max(self.received), r.end);
            }
        }
        // The echo is the newest data packet the BS saw; the smallest such delay is the
        // path's round trip (an echo older than 2 s, e.g. across a wrap, is ignored).
        let sample = ts_of(now).wrapping_sub(echo);
        if echo != 0 && sample < 2_000_000 {
            self.min_rtt = self.min_rtt.min(SimTime::from_us(sample as u64));
        }
    }

    /// Sends again the holes below `top` (the highest packet the BS holds, or all that
    /// was sent), each at most once per two path round trips.
    fn repair(&mut self, now: SimTime, top: Option<u64>, out: &mut Vec<Out>) {
        let Some(top) = top else {
            return;
        };
        let rtt = if self.min_rtt == SimTime::NEVER {
            SimTime::from_ms(10)
        } else {
            self.min_rtt
        };
        let guard = (rtt + rtt).max(SimTime::from_ms(1));
        for n in self.received..top.min(self.next) {
            if self.held.contains(n) {
                continue;
            }
            let i = (n - self.received) as usize;
            if self.budget > 0 && now.saturating_sub(self.sent_at[i]) >= guard {
                self.send(now, n, true, out);
            }
        }
    }

    /// A pull from the BS.
    pub fn on_pull(&mut self, now: SimTime, h: &CptpHeader, out: &mut Vec<Out>) {
        let Msg::Pull {
            edge,
            delivered,
            received,
            sacked,
        } = h.msg
        else {
            return;
        };
        if h.session != self.session {
            return;
        }
        self.stats.pulls += 1;
        self.init_at = SimTime::NEVER;
        self.edge = self.edge.max(edge);
        self.delivered = self.delivered.max(delivered.min(self.next));
        self.confirm(now, received, &sacked, h.ts_us);
        let top = self.held.highest_end();
        self.repair(now, top, out);
        self.send_new(now, out);
    }

    /// A SACK from the BS: something it should hold is missing.
    pub fn on_sack(&mut self, now: SimTime, h: &CptpHeader, out: &mut Vec<Out>) {
        let Msg::Sack { received, sacked } = h.msg else {
            return;
        };
        if h.session != self.session {
            return;
        }
        self.stats.sacks += 1;
        let probe = sacked.as_slice().is_empty();
        self.confirm(now, received, &sacked, h.ts_us);
        // Everything sent and unconfirmed for two round trips is lost: the holes below
        // what the BS holds and, after a probe, the tail.
        let before = self.stats.retransmits;
        self.repair(now, Some(self.next), out);
        if probe {
            self.stats.timeouts += u64::from(self.stats.retransmits > before);
        }
    }

    /// The source BS's NACK at a handover: resume from `delivered` in a new session.
    pub fn on_nack(&mut self, now: SimTime, h: &CptpHeader, out: &mut Vec<Out>) {
        let Msg::Nack { delivered } = h.msg else {
            return;
        };
        // Every NACK is acknowledged to its sender, also one sent again.
        out.push(Out::ToBs(CptpHeader {
            session: h.session,
            ts_us: 0,
            msg: Msg::NackAck { delivered },
        }));
        if h.session != self.session {
            return;
        }
        self.stats.nacks += 1;
        self.session = self.session.wrapping_add(1);
        self.delivered = self.delivered.max(delivered.min(self.next));
        self.next = self.delivered;
        self.edge = self.next;
        self.received = self.next;
        self.held.clear();
        self.sent_at.clear();
        self.started = false;
        self.send_new(now, out);
    }

    /// The proxy's next deadline: the HTTP request's.
    pub fn next_deadline(&self) -> SimTime {
        self.http_deadline.min(self.init_at)
    }

    /// A deadline passed.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Out>) {
        if self.http_deadline <= now {
            // The server did not answer: tell the UE, which may ask again.
            self.http_deadline = SimTime::NEVER;
            self.stats.failures += 1;
            out.push(Out::ToUe(self.hdr(0, Msg::Fail)));
        }
        if self.init_at <= now {
            // No pull yet: the initiating packet (the session's first) may be lost.
            self.init_backoff += 1;
            self.init_at = now + SimTime(INIT_RETRY.ns() << self.init_backoff.min(6));
            let first = self.received;
            if first < self.next {
                self.stats.timeouts += 1;
                self.send(now, first, true, out);
            }
        }
    }
}

/// What an mmCPTP endpoint sends, and towards whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Out {
    /// Towards the UE (data through the BS; FAIL).
    ToUe(CptpHeader),
    /// Towards the proxy (pull, SACK, NACK from the BS; the UE's request).
    ToProxy(CptpHeader),
    /// Towards the BS (the UE's ACKs; the proxy's NACK-ACK to the NACK's sender).
    ToBs(CptpHeader),
    /// Towards the server (the HTTP request).
    ToServer(CptpHeader),
}
