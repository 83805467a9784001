//! The two halves of framing shared by AM and UM: the transmission buffer ([`TxQueue`]:
//! byte limit, CoDel, and the segmentation and concatenation of SDUs into a data field by
//! the rule of the [`super`] module doc) and the receiver's reassembly of SDUs from the
//! pieces of data fields ([`Reassembler`]).

use super::pdu::{li_bytes, li_cost, Piece, Sdu, LI_MAX_BYTES};
use super::{RlcConfig, RlcStats};
use mmtsim_engine::ring::Ring;
use mmtsim_engine::SimTime;
use mmtsim_net::queue::codel::{CoDel, CoDelQueue};

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
    sdus: Ring<QueuedSdu>,
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
    /// SDUs dropped by CoDel, waiting for [`Rlc::take_dropped`](super::Rlc::take_dropped).
    dropped: Vec<Sdu>,
}

impl TxQueue {
    /// SDU bytes the buffer still takes before its limit refuses one (no limit: all).
    pub(crate) fn room_bytes(&self) -> u64 {
        if self.limit_bytes == 0 {
            u64::MAX
        } else {
            self.limit_bytes.saturating_sub(self.bytes)
        }
    }

    pub(crate) fn new(cfg: &RlcConfig) -> Self {
        TxQueue {
            sdus: Ring::new(),
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
    #[inline(always)]
    pub(crate) fn push(&mut self, now: SimTime, sdu: Sdu, stats: &mut RlcStats) -> Result<(), Sdu> {
        // The fields go over in registers: an `Sdu` passed whole goes through memory,
        // written field by field by the caller and read back here in one wide load, which
        // the CPU cannot forward from those stores (a stall on every packet).
        if self.push_fields(now, sdu.id, sdu.bytes, sdu.count, stats) {
            Ok(())
        } else {
            Err(sdu)
        }
    }

    /// [`Self::push`] of the SDU `id` of `bytes` with PDCP COUNT `count`: true if taken.
    fn push_fields(
        &mut self,
        now: SimTime,
        id: u64,
        bytes: u32,
        count: u32,
        stats: &mut RlcStats,
    ) -> bool {
        assert!(bytes > 0, "RLC got an empty SDU (id {id})");
        stats.sdus_in += 1;
        if self.limit_bytes > 0 && self.bytes + bytes as u64 > self.limit_bytes {
            stats.sdus_dropped += 1;
            stats.bytes_dropped += bytes as u64;
            return false;
        }
        if let Some(c) = &mut self.codel {
            c.observe_packet(bytes as u64);
        }
        self.bytes += bytes as u64;
        self.long_sdus += (bytes > LI_MAX_BYTES) as u64;
        self.sdus.push_back(QueuedSdu {
            sdu: Sdu { id, bytes, count },
            arrival: now,
        });
        true
    }

    /// Appends an SDU whatever the buffer limit: PDCP data sent again by a handover
    /// (the source's buffer and unacknowledged PDUs together may exceed one buffer, and
    /// lossless handover must not lose them to the limit).
    pub(crate) fn push_forwarded(&mut self, now: SimTime, sdu: Sdu, stats: &mut RlcStats) {
        let limit = std::mem::replace(&mut self.limit_bytes, 0);
        let r = self.push(now, sdu, stats);
        self.limit_bytes = limit;
        debug_assert!(r.is_ok(), "no limit, no refusal");
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
