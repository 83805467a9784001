//! What RLC exchanges with its neighbours: SDUs from and to PDCP, PDUs to and from the MAC
//! (with the pieces of SDUs their data fields carry), and the length-indicator arithmetic
//! of the LTE data PDU header (see the [`super`] module doc, "Header sizes").

use super::{am, um};
use mmtsim_engine::prefetch::prefetch_line;
use std::cell::RefCell;
use std::rc::Rc;

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
    pub(super) bytes: u32,
    pub(super) body: Body,
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
pub(super) fn li_cost(k: usize) -> u32 {
    if k % 2 == 1 {
        2
    } else {
        1
    }
}

/// A data PDU's elements, shared between the transmitter's copy (kept for ARQ) and the PDU
/// on its way to the peer. Counted without atomics: a run, and so its RAN, lives on one
/// thread, and the atomic count of an `Arc` cost a tenth of a busy cell's slot.
pub(crate) type Pieces = Rc<Vec<Piece>>;

/// Bytes before an `Rc`'s value: its strong and weak counts (the standard library's
/// layout today; were it to change, the prefetch below would only ask for the wrong line).
const RC_COUNTS: usize = 2 * std::mem::size_of::<usize>();
/// An element list's `Rc` allocation: the counts and the vector's header.
const RC_BOX: usize = RC_COUNTS + std::mem::size_of::<Vec<Piece>>();

/// Element lists no PDU holds any more, reused for new PDUs, so that building a PDU
/// allocates nothing in steady state.
#[derive(Debug, Default)]
pub(crate) struct PiecePool {
    free: Vec<Pieces>,
}

impl PiecePool {
    /// More unused lists than this are freed: a pool no bigger than a window needs.
    const MAX_FREE: usize = 1024;

    /// An empty list that nothing else holds, to be filled through `Rc::get_mut` (the
    /// elements written in place: filled elsewhere and copied in, the copy was a call to
    /// `memcpy` per PDU, 3 % of a ten-UE run).
    pub(crate) fn take(&mut self) -> Pieces {
        let Some(mut p) = self.free.pop() else {
            return Rc::new(Vec::new());
        };
        // The next list to be taken was handed back a while ago and has usually left the
        // cache: its counts and vector header are asked for now, a PDU before it is built
        // (the miss was 3 % of the 100-UE run's samples).
        if let Some(next) = self.free.last() {
            let start = Rc::as_ptr(next).cast::<u8>().wrapping_sub(RC_COUNTS);
            prefetch_line(start);
            prefetch_line(start.wrapping_add(RC_BOX - 1));
        }
        // Only unshared lists are pooled, and a pool is never cloned with its lists.
        Rc::get_mut(&mut p)
            .expect("a pooled list has no other holder")
            .clear();
        p
    }

    /// Lists waiting for reuse.
    #[cfg(test)]
    pub(crate) fn free_lists(&self) -> usize {
        self.free.len()
    }

    /// Takes `p` back if nothing else holds it (else only this holder lets go).
    pub(crate) fn recycle(&mut self, mut p: Pieces) {
        if self.free.len() < Self::MAX_FREE && Rc::get_mut(&mut p).is_some() {
            self.free.push(p);
        }
    }
}

/// The pool both ends of a bearer share. Whichever holder of a list lets go last hands it
/// back: in UM that is the receiver (once it has reassembled or discarded the PDU); in AM
/// usually the transmitter (when the PDU is acknowledged), but the receiver when it holds
/// a PDU above a gap that the peer's status report has already acknowledged. A pool of
/// each end's own lost every list of the second kind, and the transmitter allocated anew.
/// The RAN keeps one per UE, for all its legs, so that lists outlive a handover; a copy
/// of an entity shares its pool (a pool is not `Clone`, so its lists are never copied).
pub(crate) type SharedPool = Rc<RefCell<PiecePool>>;

/// Hands `p` back to `pool` if the caller is its last holder, else only lets go of it.
/// The count is read first, so a holder that is not the last leaves the pool alone.
#[inline]
pub(crate) fn give_back(pool: &SharedPool, p: Pieces) {
    if Rc::strong_count(&p) == 1 {
        pool.borrow_mut().recycle(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(id: u64) -> Piece {
        Piece {
            id,
            count: 0,
            sdu_bytes: 100,
            sdu_offset: 0,
            len: 100,
            pdu_offset: 100 * id as u32,
        }
    }

    #[test]
    fn a_list_comes_back_only_when_no_pdu_holds_it() {
        let mut pool = PiecePool::default();
        let mut a = pool.take();
        Rc::get_mut(&mut a)
            .expect("unshared")
            .extend([piece(0), piece(1)]);
        let in_flight = a.clone();
        // The PDU on its way still holds it: the transmitter lets go, nothing is pooled.
        pool.recycle(a);
        assert!(pool.free.is_empty());
        let addr = Rc::as_ptr(&in_flight);
        pool.recycle(in_flight);
        assert_eq!(pool.free.len(), 1);
        // The next PDU reuses that list, emptied, for its own content.
        let mut b = pool.take();
        assert_eq!(Rc::as_ptr(&b), addr);
        assert!(b.is_empty());
        Rc::get_mut(&mut b).expect("unshared").push(piece(7));
        assert_eq!(*b, vec![piece(7)]);
        assert!(pool.free.is_empty());
    }
}
