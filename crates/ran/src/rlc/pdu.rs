//! What RLC exchanges with its neighbours: SDUs from and to PDCP, PDUs to and from the MAC
//! (with the pieces of SDUs their data fields carry), and the length-indicator arithmetic
//! of the LTE data PDU header (see the [`super`] module doc, "Header sizes").

use super::{am, um};

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
