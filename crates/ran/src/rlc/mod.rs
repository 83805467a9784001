//! RLC: acknowledged (AM) and unacknowledged (UM) mode entities.
//!
//! An RLC entity sits at one end of a radio bearer, between PDCP (which hands down SDUs) and
//! the MAC (which offers transmission opportunities and hands up received PDUs). Both modes
//! are sans-IO state machines: every call gets `now`, timers are pulled with
//! [`Rlc::next_timer`] and fired with [`Rlc::on_timer`].
//!
//! - [`am`]: acknowledged mode (ARQ with polling, status reports, retransmission and
//!   re-segmentation), the mode of ns-3 mmWave's TCP examples.
//! - [`um`]: unacknowledged mode (segmentation and reordering, no retransmission).
//!
//! # Which RLC
//! ns-3 mmWave uses the LTE RLC of its (forked) LTE module, `lte-rlc-am.cc` /
//! `lte-rlc-um.cc`, which implement TS 36.322. We follow that entity, not NR RLC (TS 38.322):
//! a data PDU **concatenates** as many SDUs (or SDU segments) as fit in the opportunity, with
//! one length indicator per element but the last. NR RLC would put one SDU or segment per
//! PDU and let the MAC multiplex them; the header overhead differs (NR: 2–3 bytes per SDU,
//! LTE: 1.5 bytes per extra SDU plus one fixed header per PDU), which matters little for
//! transport results but is documented here so nobody has to guess.
//!
//! # Header sizes (TS 36.322 §6.2.1, as serialised by ns-3 `lte-rlc-am-header.cc`)
//! - AM data PDU: fixed part D/C, RF, P, FI(2), E + SN (`sn_bits`, 10 by default), padded to
//!   bytes (2 bytes), **plus** LSF + 15-bit segment offset (2 bytes). TS 36.322 carries the
//!   SO part only in re-segmented PDUs; ns-3 always writes it, so every AM data PDU has a
//!   4-byte fixed header, and so do we.
//! - UM data PDU: FI(2), E + SN (10 bits by default), padded: 2 bytes (ns-3 `lte-rlc-header.cc`).
//! - Each element of the data field but the last carries E + an 11-bit LI: 12 bits, packed
//!   in pairs, so k elements add `ceil(1.5·(k−1))` bytes ([`li_bytes`]). An element longer than
//!   2047 bytes (the 11-bit LI limit) can only be the last one of a PDU.
//! - AM status PDU: D/C, CPT(3), ACK_SN, E1, then E1 + E2 + NACK_SN per NACK, padded: with a
//!   10-bit SN, `ceil((15 + 12·nacks)/8)` bytes. No SOstart/SOend fields (ns-3 never sends
//!   them either): a partly received PDU is NACKed whole.
//!
//! # Concatenation rule (ns-3 `LteRlcAm::DoNotifyTxOpportunity`, same in `LteRlcUm`)
//! With `avail` = opportunity − fixed header, SDUs are taken from the head of the buffer:
//! an element that does not fit (or is longer than 2047 bytes) is cut (or placed whole) as
//! the last element; an element that fits is the last one if the buffer has no further SDU
//! or if at most 2 bytes would be left after it; otherwise it gets an LI (2 bytes for odd,
//! 1 byte for even element numbers) and the loop continues. The PDU therefore fills the
//! opportunity exactly or leaves at most 2 bytes unused.
//!
//! # Buffer limit and AQM
//! `max_tx_buffer_bytes` limits the *transmission* buffer (SDU bytes not yet sent, without
//! RLC headers): an arriving SDU is refused if buffer + SDU > limit (ns-3
//! `DoTransmitPdcpPdu`: accepted iff `txonBufferSize + size <= MaxTxBufferSize`). PDUs
//! awaiting acknowledgement or retransmission do not count against it. Optionally CoDel
//! (RFC 8289) runs on that buffer, judging each SDU's sojourn time (arrival to the moment
//! its first byte is put in a PDU) and dropping at the head; those drops are collected and
//! handed out by [`Rlc::take_dropped`]. ns-3's `EnableAQM` replaces the byte limit by the
//! CoDel queue's own limit; we keep both (use 0 for no byte limit).
//!
//! # Sequence numbers
//! Internally SNs are absolute `u64` counters; a PDU carries the absolute SN. Real PDUs
//! carry `SN mod 2^sn_bits` and the receiver reconstructs the rest from its window; as both
//! ends keep every SN inside the window (`2^(sn_bits−1)`), the two are equivalent, and the
//! absolute form removes every modular comparison. `sn_bits` still sets the window and the
//! header sizes.

pub mod am;
pub mod um;

use mmtsim_engine::SimTime;
use std::collections::VecDeque;

/// CoDel parameters of the RLC transmission buffer: the wired queues' type (RFC 8289
/// defaults: target 5 ms, interval 100 ms).
pub use mmtsim_net::queue::codel::CoDelParams as CodelParams;
use mmtsim_net::queue::codel::{CoDel, CoDelQueue};

/// Largest length indicator, bytes: the LI field has 11 bits (TS 36.322 §6.2.2.5).
pub const LI_MAX_BYTES: u32 = 2047;

/// An upper-layer packet as RLC sees it: an opaque handle (the world's packet index) and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sdu {
    /// The world's packet index (opaque to RLC).
    pub id: u64,
    /// Size in bytes, PDCP header included.
    pub bytes: u32,
    /// PDCP COUNT of the packet, carried through RLC untouched (0 if PDCP is not used).
    pub count: u32,
}

impl Sdu {
    /// An SDU with PDCP COUNT 0.
    pub const fn new(id: u64, bytes: u32) -> Sdu {
        Sdu {
            id,
            bytes,
            count: 0,
        }
    }
}

/// One element of a data PDU's data field: bytes `[sdu_offset, sdu_offset + len)` of an SDU.
///
/// The simulator's stand-in for the payload bytes and the FI/LI fields: the receiver learns
/// SDU boundaries from it exactly as from the framing info and length indicators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Piece {
    /// The SDU's id.
    pub(crate) id: u64,
    /// The SDU's PDCP COUNT.
    pub(crate) count: u32,
    /// Full size of the SDU, bytes.
    pub(crate) sdu_bytes: u32,
    /// Offset of this piece inside the SDU, bytes.
    pub(crate) sdu_offset: u32,
    /// Length of this piece, bytes (> 0).
    pub(crate) len: u32,
    /// Offset of this piece inside the PDU's data field, bytes.
    pub(crate) pdu_offset: u32,
}

/// What crosses the air inside a MAC transport block. Opaque to the MAC except for its size.
#[derive(Clone, Debug)]
pub struct Pdu {
    /// Size on the air, RLC header included, bytes.
    bytes: u32,
    body: Body,
}

/// The content of a PDU, per mode.
#[derive(Clone, Debug)]
pub(crate) enum Body {
    AmData(am::DataPdu),
    AmStatus(am::StatusPdu),
    UmData(um::DataPdu),
}

/// What kind of PDU a [`Pdu`] is (for tests and traces; the MAC needs only the size).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PduKind {
    /// AM data PDU carrying a whole data field.
    AmData,
    /// AM data PDU segment (part of a re-segmented retransmission).
    AmSegment,
    /// AM status PDU.
    AmStatus,
    /// UM data PDU.
    UmData,
}

impl Pdu {
    /// Size on the air, RLC header included, bytes.
    pub fn bytes(&self) -> u32 {
        self.bytes
    }

    /// The PDU's kind.
    pub fn kind(&self) -> PduKind {
        match &self.body {
            Body::AmData(d) if d.is_segment() => PduKind::AmSegment,
            Body::AmData(_) => PduKind::AmData,
            Body::AmStatus(_) => PduKind::AmStatus,
            Body::UmData(_) => PduKind::UmData,
        }
    }

    /// RLC header bytes (for a status PDU: the whole PDU).
    pub fn header_bytes(&self) -> u32 {
        match &self.body {
            Body::AmData(d) => self.bytes - d.len,
            Body::AmStatus(_) => self.bytes,
            Body::UmData(d) => self.bytes - d.data_bytes(),
        }
    }

    /// Sequence number of a data PDU.
    pub fn sn(&self) -> Option<u64> {
        match &self.body {
            Body::AmData(d) => Some(d.sn),
            Body::AmStatus(_) => None,
            Body::UmData(d) => Some(d.sn),
        }
    }

    /// Whether an AM data PDU carries the poll bit.
    pub fn has_poll(&self) -> bool {
        matches!(&self.body, Body::AmData(d) if d.poll)
    }

    /// ACK_SN and NACK_SNs of an AM status PDU.
    pub fn status(&self) -> Option<(u64, &[u64])> {
        match &self.body {
            Body::AmStatus(s) => Some((s.ack_sn, &s.nacks)),
            _ => None,
        }
    }

    /// Number of SDUs or SDU segments in a data PDU's data field.
    pub fn elements(&self) -> usize {
        match &self.body {
            Body::AmData(d) => d.elements(),
            Body::AmStatus(_) => 0,
            Body::UmData(d) => d.pieces.len(),
        }
    }
}

/// RLC mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RlcMode {
    /// Acknowledged mode.
    #[default]
    Am,
    /// Unacknowledged mode.
    Um,
}

/// Configuration of an RLC entity. [`Default`] is the ns-3 mmWave fork's AM defaults
/// ([NS3-MMW-V1] `lte-rlc-am.cc` attributes).
#[derive(Clone, Debug, PartialEq)]
pub struct RlcConfig {
    /// AM or UM.
    pub mode: RlcMode,
    /// Transmission buffer limit in SDU bytes (0 = unlimited). An SDU is refused if
    /// buffer + SDU > limit. ns-3 mmWave fork: AM 1 MiB, UM 10 KiB.
    pub max_tx_buffer_bytes: u64,
    /// t-PollRetransmit (TS 36.322 §7.3), AM only. ns-3: 20 ms.
    pub t_poll_retransmit: SimTime,
    /// t-Reordering (TS 36.322 §7.3), AM and UM receivers. ns-3: 10 ms.
    pub t_reordering: SimTime,
    /// t-StatusProhibit (TS 36.322 §7.3), AM only. ns-3: 10 ms.
    pub t_status_prohibit: SimTime,
    /// pollPDU: poll after this many new PDUs (ns-3: 1, i.e. every PDU).
    pub poll_pdu: u32,
    /// pollByte: poll after this many new data-field bytes (ns-3: 50).
    pub poll_byte: u64,
    /// maxRetxThreshold: only counted in [`RlcStats::max_retx_reached`], as in ns-3 (no
    /// radio link failure). ns-3: 5.
    pub max_retx: u32,
    /// SN length in bits; window = 2^(sn_bits−1). LTE AM/UM and ns-3: 10 (window 512).
    pub sn_bits: u8,
    /// CoDel on the transmission buffer (ns-3 fork `EnableAQM`, default off).
    pub codel: Option<CodelParams>,
}

impl Default for RlcConfig {
    fn default() -> Self {
        RlcConfig {
            mode: RlcMode::Am,
            // ns-3 mmWave fork `LteRlcAm::MaxTxBufferSize` = 1024·1024 ([NS3-MMW-V1]).
            max_tx_buffer_bytes: 1024 * 1024,
            t_poll_retransmit: SimTime::from_ms(20),
            t_reordering: SimTime::from_ms(10),
            t_status_prohibit: SimTime::from_ms(10),
            poll_pdu: 1,
            poll_byte: 50,
            max_retx: 5,
            sn_bits: 10,
            codel: None,
        }
    }
}

impl RlcConfig {
    /// ns-3 `LteRlcUm` defaults: UM, 10 KiB buffer, t-Reordering 10 ms, 10-bit SN.
    pub fn um_default() -> Self {
        RlcConfig {
            mode: RlcMode::Um,
            max_tx_buffer_bytes: 10 * 1024,
            ..RlcConfig::default()
        }
    }

    /// The overrides of ns-3 mmWave's 2017 `mmwave-tcp-building-example.cc` (the X-TCP era):
    /// AM, t-PollRetransmit 4 ms, t-Reordering 2 ms, t-StatusProhibit 1 ms, 20 MiB buffer.
    pub fn mmwave_tcp_2017() -> Self {
        RlcConfig {
            max_tx_buffer_bytes: 20 * 1024 * 1024,
            t_poll_retransmit: SimTime::from_ms(4),
            t_reordering: SimTime::from_ms(2),
            t_status_prohibit: SimTime::from_ms(1),
            ..RlcConfig::default()
        }
    }

    /// Window size in SNs, 2^(sn_bits−1) (TS 36.322 §7.2: 512 for a 10-bit SN).
    pub fn window(&self) -> u64 {
        1u64 << (self.sn_bits - 1)
    }

    fn validate(&self) {
        assert!(
            (2..=32).contains(&self.sn_bits),
            "RlcConfig.sn_bits must be in 2..=32, got {}",
            self.sn_bits
        );
    }
}

/// Counters of one RLC entity (transmitter and receiver sides).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RlcStats {
    /// SDUs offered by PDCP (accepted or not).
    pub sdus_in: u64,
    /// SDUs dropped by the transmitter: buffer full at arrival or CoDel.
    pub sdus_dropped: u64,
    /// Bytes of the dropped SDUs.
    pub bytes_dropped: u64,
    /// SDUs delivered up by the receiver.
    pub sdus_delivered: u64,
    /// Bytes of the delivered SDUs.
    pub bytes_delivered: u64,
    /// Data PDUs (and AM PDU segments) sent, retransmissions included.
    pub pdus_sent: u64,
    /// Of which retransmissions (AM).
    pub pdus_retx: u64,
    /// Status PDUs sent (AM).
    pub status_sent: u64,
    /// Status PDUs received (AM).
    pub status_received: u64,
    /// All PDU bytes sent (headers and status PDUs included).
    pub bytes_sent: u64,
    /// AM PDUs whose retransmission count reached `max_retx` (counted once per PDU).
    pub max_retx_reached: u64,
    /// SDUs dropped by CoDel (also in `sdus_dropped`).
    pub codel_drops: u64,
    /// Data PDUs received from the peer.
    pub pdus_received: u64,
    /// Received data PDUs discarded (duplicate or outside the window).
    pub pdus_discarded: u64,
    /// SDUs the receiver discarded because some of their bytes never arrived (UM).
    pub rx_sdus_discarded: u64,
    /// t-PollRetransmit expiries (AM).
    pub poll_retransmit_expiries: u64,
    /// t-Reordering expiries.
    pub reordering_expiries: u64,
}

/// BSR content: what the MAC must report / serve, bytes including RLC headers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferStatus {
    /// New data: SDU bytes waiting plus the headers of the PDU(s) that would carry them.
    pub new_bytes: u64,
    /// PDUs waiting for retransmission, headers included (AM).
    pub retx_bytes: u64,
    /// Size of the status PDU waiting to be sent, if allowed now (AM).
    pub status_bytes: u64,
    /// Head-of-line delay: age of the oldest SDU waiting for its first transmission, or of
    /// the oldest PDU waiting for retransmission (since its first transmission), if older.
    pub hol_delay: SimTime,
}

/// One RLC entity at one end of a radio bearer, both directions (AM: transmitter + receiver;
/// UM: the same API).
#[derive(Clone, Debug)]
pub enum Rlc {
    /// Acknowledged mode.
    Am(am::AmEntity),
    /// Unacknowledged mode.
    Um(um::UmEntity),
}

impl Rlc {
    /// An entity of `cfg.mode`.
    pub fn new(cfg: &RlcConfig) -> Rlc {
        match cfg.mode {
            RlcMode::Am => Rlc::Am(am::AmEntity::new(cfg)),
            RlcMode::Um => Rlc::Um(um::UmEntity::new(cfg)),
        }
    }

    /// PDCP hands down an SDU to transmit. `Err(sdu)` if it was dropped (buffer full);
    /// counted in stats.
    pub fn send_sdu(&mut self, now: SimTime, sdu: Sdu) -> Result<(), Sdu> {
        match self {
            Rlc::Am(e) => e.send_sdu(now, sdu),
            Rlc::Um(e) => e.send_sdu(now, sdu),
        }
    }

    /// What the MAC must report and serve now.
    pub fn buffer_status(&self, now: SimTime) -> BufferStatus {
        match self {
            Rlc::Am(e) => e.buffer_status(now),
            Rlc::Um(e) => e.buffer_status(now),
        }
    }

    /// Bytes in the transmission buffer (new SDU bytes + retransmission bytes): the "RLC
    /// buffer occupancy".
    pub fn tx_buffer_bytes(&self) -> u64 {
        match self {
            Rlc::Am(e) => e.tx_buffer_bytes(),
            Rlc::Um(e) => e.tx_buffer_bytes(),
        }
    }

    /// A MAC transmission opportunity of `bytes`: builds PDUs (status first, then
    /// retransmissions, then new data) and appends them to `out`. Their sizes add up to at
    /// most `bytes`.
    pub fn tx_opportunity(&mut self, now: SimTime, bytes: u32, out: &mut Vec<Pdu>) {
        match self {
            Rlc::Am(e) => e.tx_opportunity(now, bytes, out),
            Rlc::Um(e) => e.tx_opportunity(now, bytes, out),
        }
    }

    /// A PDU from the peer entity arrived (data or status). In-order reassembled SDUs are
    /// appended to `delivered` (AM: each SDU exactly once, in order).
    pub fn receive_pdu(&mut self, now: SimTime, pdu: Pdu, delivered: &mut Vec<Sdu>) {
        match self {
            Rlc::Am(e) => e.receive_pdu(now, pdu, delivered),
            Rlc::Um(e) => e.receive_pdu(now, pdu, delivered),
        }
    }

    /// Earliest pending timer.
    pub fn next_timer(&self) -> Option<SimTime> {
        match self {
            Rlc::Am(e) => e.next_timer(),
            Rlc::Um(e) => e.next_timer(),
        }
    }

    /// Fires every timer due at `now`; SDUs they release are appended to `delivered`.
    pub fn on_timer(&mut self, now: SimTime, delivered: &mut Vec<Sdu>) {
        match self {
            Rlc::Am(e) => e.on_timer(now, delivered),
            Rlc::Um(e) => e.on_timer(now, delivered),
        }
    }

    /// Counters.
    pub fn stats(&self) -> &RlcStats {
        match self {
            Rlc::Am(e) => e.stats(),
            Rlc::Um(e) => e.stats(),
        }
    }

    /// Moves the SDUs CoDel dropped from the transmission buffer since the last call into
    /// `out` (the world frees their packets). Always empty without CoDel.
    pub fn take_dropped(&mut self, out: &mut Vec<Sdu>) {
        match self {
            Rlc::Am(e) => e.take_dropped(out),
            Rlc::Um(e) => e.take_dropped(out),
        }
    }

    /// SDUs in the transmission buffer (not yet completely put into PDUs).
    pub fn sdus_queued(&self) -> usize {
        match self {
            Rlc::Am(e) => e.sdus_queued(),
            Rlc::Um(e) => e.sdus_queued(),
        }
    }
}

/// Length-indicator bytes of a data field with `elements` elements: 12 bits (E + LI) per
/// element but the last, packed in pairs (TS 36.322 §6.2.1.4).
pub(crate) fn li_bytes(elements: usize) -> u32 {
    if elements <= 1 {
        0
    } else {
        (3 * (elements as u32 - 1)).div_ceil(2)
    }
}

/// Cost of the LI of element number `k` (1-based): the first of a pair takes 2 bytes, the
/// second the remaining 1 (ns-3 `LteRlcAmHeader::PushExtensionBit`).
fn li_cost(k: usize) -> u32 {
    if k % 2 == 1 {
        2
    } else {
        1
    }
}

/// An SDU waiting in the transmission buffer.
#[derive(Clone, Copy, Debug)]
struct QueuedSdu {
    sdu: Sdu,
    /// Arrival time (for sojourn time and HOL delay).
    arrival: SimTime,
}

/// The transmission buffer shared by AM and UM: SDUs waiting for (the rest of) their first
/// transmission, the byte limit, CoDel and the concatenation rule.
#[derive(Clone, Debug)]
pub(crate) struct TxQueue {
    sdus: VecDeque<QueuedSdu>,
    /// Bytes of the head SDU already put into PDUs.
    head_offset: u32,
    /// The head SDU has passed CoDel (it is being segmented).
    head_admitted: bool,
    /// SDU bytes not yet put into PDUs.
    bytes: u64,
    /// Queued SDUs longer than [`LI_MAX_BYTES`] (each ends a PDU).
    long_sdus: u64,
    /// Limit on `bytes` (0 = none).
    limit_bytes: u64,
    /// CoDel on the buffer; its `maxpacket` is the largest SDU seen.
    codel: Option<CoDel>,
    /// SDUs dropped by CoDel, waiting for [`Rlc::take_dropped`].
    dropped: Vec<Sdu>,
}

impl TxQueue {
    pub(crate) fn new(cfg: &RlcConfig) -> Self {
        TxQueue {
            sdus: VecDeque::new(),
            head_offset: 0,
            head_admitted: false,
            bytes: 0,
            long_sdus: 0,
            limit_bytes: cfg.max_tx_buffer_bytes,
            codel: cfg.codel.map(|p| CoDel::new(p, 0)),
            dropped: Vec::new(),
        }
    }

    /// Appends an SDU unless the buffer limit refuses it.
    pub(crate) fn push(&mut self, now: SimTime, sdu: Sdu, stats: &mut RlcStats) -> Result<(), Sdu> {
        assert!(sdu.bytes > 0, "RLC got an empty SDU (id {})", sdu.id);
        stats.sdus_in += 1;
        if self.limit_bytes > 0 && self.bytes + sdu.bytes as u64 > self.limit_bytes {
            stats.sdus_dropped += 1;
            stats.bytes_dropped += sdu.bytes as u64;
            return Err(sdu);
        }
        if let Some(c) = &mut self.codel {
            c.observe_packet(sdu.bytes as u64);
        }
        self.bytes += sdu.bytes as u64;
        self.long_sdus += (sdu.bytes > LI_MAX_BYTES) as u64;
        self.sdus.push_back(QueuedSdu { sdu, arrival: now });
        Ok(())
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.sdus.is_empty()
    }

    /// SDU bytes not yet put into PDUs.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    pub(crate) fn len(&self) -> usize {
        self.sdus.len()
    }

    /// Age of the head SDU.
    pub(crate) fn hol_delay(&self, now: SimTime) -> SimTime {
        self.sdus
            .front()
            .map_or(SimTime::ZERO, |q| now.saturating_sub(q.arrival))
    }

    /// Bytes to send the whole buffer, headers included, assuming one PDU (plus one more per
    /// SDU longer than the LI limit, which must end a PDU) with `fixed_header` bytes each.
    pub(crate) fn estimate_bytes(&self, fixed_header: u32) -> u64 {
        if self.sdus.is_empty() {
            return 0;
        }
        self.bytes + fixed_header as u64 * (1 + self.long_sdus) + li_bytes(self.sdus.len()) as u64
    }

    pub(crate) fn take_dropped(&mut self, out: &mut Vec<Sdu>) {
        out.append(&mut self.dropped);
    }

    /// Fills a data field of at most `avail` bytes (opportunity minus the fixed header)
    /// with SDUs from the head, by the concatenation rule of the module doc. Appends the
    /// elements to `pieces` (which must be empty) and returns the data-field size; the PDU
    /// header is then `fixed + li_bytes(pieces.len())` and the PDU fits in `avail + fixed`.
    pub(crate) fn fill(
        &mut self,
        now: SimTime,
        mut avail: u32,
        pieces: &mut Vec<Piece>,
        stats: &mut RlcStats,
    ) -> u32 {
        debug_assert!(pieces.is_empty());
        let mut data = 0u32;
        while avail > 0 && self.admit_head(now, stats) {
            let head = self.sdus[0].sdu;
            let rem = head.bytes - self.head_offset;
            let mut piece = Piece {
                id: head.id,
                count: head.count,
                sdu_bytes: head.bytes,
                sdu_offset: self.head_offset,
                len: rem,
                pdu_offset: data,
            };
            if rem > avail || rem > LI_MAX_BYTES {
                // Cut to fit (or a long element): it must be the last element.
                piece.len = rem.min(avail);
                pieces.push(piece);
                data += piece.len;
                self.consume(piece.len);
                break;
            }
            let last = avail - rem <= 2 || self.sdus.len() == 1;
            pieces.push(piece);
            data += rem;
            self.consume(rem);
            if last {
                break;
            }
            // avail − rem > 2 ≥ LI cost, so this cannot underflow and leaves avail > 0.
            avail -= rem + li_cost(pieces.len());
        }
        data
    }

    /// Removes `n` bytes from the head SDU.
    fn consume(&mut self, n: u32) {
        self.head_offset += n;
        self.bytes -= n as u64;
        let head = self.sdus[0].sdu;
        if self.head_offset == head.bytes {
            self.sdus.pop_front();
            self.long_sdus -= (head.bytes > LI_MAX_BYTES) as u64;
            self.head_offset = 0;
            self.head_admitted = false;
        }
    }

    /// Makes sure the head SDU may be transmitted: runs CoDel when a fresh SDU reaches the
    /// head (or on an empty buffer, which ends a dropping episode as RFC 8289's `dequeue`
    /// does). Returns false if the buffer is (or became) empty.
    fn admit_head(&mut self, now: SimTime, stats: &mut RlcStats) -> bool {
        if self.head_admitted || self.head_offset > 0 {
            return true;
        }
        if let Some(mut c) = self.codel.take() {
            c.dequeue(&mut CodelHeads { q: self, stats }, now);
            self.codel = Some(c);
        }
        self.head_admitted = !self.sdus.is_empty();
        self.head_admitted
    }

    fn drop_head(&mut self, stats: &mut RlcStats) {
        debug_assert_eq!(self.head_offset, 0, "CoDel never drops a partly sent SDU");
        let q = self.sdus.pop_front().expect("drop_head on an empty buffer");
        self.bytes -= q.sdu.bytes as u64;
        self.long_sdus -= (q.sdu.bytes > LI_MAX_BYTES) as u64;
        stats.codel_drops += 1;
        stats.sdus_dropped += 1;
        stats.bytes_dropped += q.sdu.bytes as u64;
        self.dropped.push(q.sdu);
    }
}

/// The transmission buffer's head as CoDel sees it (CoDel itself is taken out meanwhile).
struct CodelHeads<'a> {
    q: &'a mut TxQueue,
    stats: &'a mut RlcStats,
}

impl CoDelQueue for CodelHeads<'_> {
    fn head(&self) -> Option<(SimTime, u64)> {
        let h = self.q.sdus.front()?;
        Some((h.arrival, self.q.bytes - h.sdu.bytes as u64))
    }
    fn drop_head(&mut self) {
        self.q.drop_head(self.stats);
    }
}

/// Rebuilds SDUs from the pieces of data fields processed in SN order.
///
/// A piece continues the SDU in progress only if it has the same id and starts where the
/// previous piece ended; anything else abandons the SDU in progress, and a piece that does
/// not start an SDU is discarded (TS 36.322 §5.1.2.2.3 / §5.1.3.2.3: "discard … RLC SDU
/// segments that cannot be reassembled"). In AM nothing is ever missing.
#[derive(Clone, Debug, Default)]
pub(crate) struct Reassembler {
    /// SDU in progress: id and the next byte expected.
    current: Option<(u64, u32)>,
    /// Last SDU counted as discarded (an SDU is counted once however many pieces it loses).
    last_discarded: Option<u64>,
}

impl Reassembler {
    pub(crate) fn push(
        &mut self,
        pieces: &[Piece],
        delivered: &mut Vec<Sdu>,
        stats: &mut RlcStats,
    ) {
        for p in pieces {
            let continues =
                matches!(self.current, Some((id, next)) if id == p.id && next == p.sdu_offset);
            if !continues {
                if let Some((id, _)) = self.current.take() {
                    self.discard(id, stats);
                }
                if p.sdu_offset != 0 {
                    self.discard(p.id, stats);
                    continue;
                }
            }
            let next = p.sdu_offset + p.len;
            if next == p.sdu_bytes {
                self.current = None;
                delivered.push(Sdu {
                    id: p.id,
                    bytes: p.sdu_bytes,
                    count: p.count,
                });
                stats.sdus_delivered += 1;
                stats.bytes_delivered += p.sdu_bytes as u64;
            } else {
                self.current = Some((p.id, next));
            }
        }
    }

    fn discard(&mut self, id: u64, stats: &mut RlcStats) {
        if self.last_discarded != Some(id) {
            self.last_discarded = Some(id);
            stats.rx_sdus_discarded += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn li_bytes_packs_12_bit_fields_in_pairs() {
        // k elements carry k−1 fields of 12 bits: 0, 12, 24, 36, 48 bits → 0, 2, 3, 5, 6 bytes.
        assert_eq!(
            (1..=5).map(li_bytes).collect::<Vec<_>>(),
            vec![0, 2, 3, 5, 6]
        );
        // The incremental costs used while filling add up to the same totals.
        let mut sum = 0;
        for k in 1..20 {
            sum += li_cost(k);
            assert_eq!(sum, li_bytes(k + 1));
        }
    }

    #[test]
    fn presets_carry_the_documented_numbers() {
        let d = RlcConfig::default();
        assert_eq!(d.window(), 512);
        assert_eq!(d.max_tx_buffer_bytes, 1_048_576);
        let x = RlcConfig::mmwave_tcp_2017();
        assert_eq!(x.t_poll_retransmit, SimTime::from_ms(4));
        assert_eq!(x.t_reordering, SimTime::from_ms(2));
        assert_eq!(x.t_status_prohibit, SimTime::from_ms(1));
        assert_eq!(x.max_tx_buffer_bytes, 20 * 1_048_576);
        assert_eq!(RlcConfig::um_default().max_tx_buffer_bytes, 10_240);
    }

    fn codel_um() -> Rlc {
        Rlc::new(&RlcConfig {
            max_tx_buffer_bytes: 0,
            codel: Some(CodelParams::default()),
            ..RlcConfig::um_default()
        })
    }

    /// One 1000-byte SDU per opportunity: UM header 2 + 1000 (0 ≤ 2 bytes left → last).
    fn send_one(r: &mut Rlc, now: SimTime) -> u64 {
        let mut out = Vec::new();
        r.tx_opportunity(now, 1002, &mut out);
        assert_eq!(out.len(), 1);
        r.stats().codel_drops
    }

    #[test]
    fn codel_drops_once_sojourn_stays_above_target_for_an_interval() {
        // 1000 SDUs of 1000 B arrive at t = 0, so the sojourn of the SDU at the head is the
        // time of the opportunity. RFC 8289 with target 5 ms, interval 100 ms:
        let mut r = codel_um();
        for id in 0..1000 {
            r.send_sdu(SimTime::ZERO, Sdu::new(id, 1000)).unwrap();
        }
        let t = SimTime::from_ms;
        // 10 ms: sojourn 10 ≥ 5 ms → first_above_time = 110 ms, no drop.
        assert_eq!(send_one(&mut r, t(10)), 0);
        // 109 ms: still before first_above_time.
        assert_eq!(send_one(&mut r, t(109)), 0);
        // 110 ms: drop (count 1), next drop at 110 + 100/√1 = 210 ms.
        assert_eq!(send_one(&mut r, t(110)), 1);
        assert_eq!(send_one(&mut r, t(209)), 1);
        // 210 ms: second drop (count 2), next at 210 + 100/√2 = 280.71 ms.
        assert_eq!(send_one(&mut r, t(210)), 2);
        assert_eq!(send_one(&mut r, t(280)), 2);
        // 281 ms: third drop (count 3), next at 280.71 + 100/√3 = 338.45 ms.
        assert_eq!(send_one(&mut r, t(281)), 3);
        assert_eq!(send_one(&mut r, t(338)), 3);
        assert_eq!(send_one(&mut r, t(339)), 4);
        // The dropped SDUs are the heads at those instants: ids 2, 5, 8, 11 (one SDU is sent
        // after each drop, one before).
        let mut dropped = Vec::new();
        r.take_dropped(&mut dropped);
        assert_eq!(
            dropped.iter().map(|s| s.id).collect::<Vec<_>>(),
            vec![2, 5, 8, 11]
        );
        let s = r.stats();
        assert_eq!((s.sdus_dropped, s.bytes_dropped), (4, 4000));
        // Conservation: 1000 in = 4 dropped + 9 sent whole + the rest still queued.
        assert_eq!(r.sdus_queued(), 1000 - 4 - 9);
    }

    #[test]
    fn codel_leaves_a_short_sojourn_alone() {
        let mut r = codel_um();
        for id in 0..100 {
            r.send_sdu(SimTime::from_ms(1000), Sdu::new(id, 1000))
                .unwrap();
        }
        // Every SDU waited 4 ms < 5 ms target.
        for _ in 0..100 {
            send_one(&mut r, SimTime::from_ms(1004));
        }
        assert_eq!(r.stats().codel_drops, 0);
        assert_eq!(r.tx_buffer_bytes(), 0);
    }
}
