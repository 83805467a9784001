//! mmCPTP's messages and their sizes on the wire [MMCPTP §V–VI].
//!
//! The paper names the messages (data, pull, SACK, NACK, ACK, the content request and its
//! failure) but gives no byte layout; this is ours. Every message rides in UDP over IPv4
//! (20 + 8 bytes) behind an 8-byte common header:
//!
//! | field | bytes | meaning |
//! |---|---|---|
//! | type | 1 | the message kind |
//! | flags | 1 | reserved (zero) |
//! | session | 2 | the proxy's session of this download, new after each handover NACK |
//! | content | 4 | the content's identity (the flow) |
//!
//! followed by the kind's own fields:
//!
//! | kind | fields (bytes) | total with IP and UDP |
//! |---|---|---|
//! | DATA | packet number 8, send time 4, payload | 48 + payload |
//! | PULL | edge 8, delivered 8, received 8, time echo 4, up to 4 SACK ranges × 16 | 64 + 16 k |
//! | SACK | received 8, time echo 4, up to 4 ranges × 16 | 48 + 16 k |
//! | NACK | delivered 8 | 44 |
//! | NACK-ACK (proxy → source BS) | delivered 8 | 44 |
//! | ACK (UE → BS) | cumulative 8, up to 4 ranges × 16 | 44 + 16 k |
//! | REQUEST (UE → proxy) | a 64-byte content name | 100 |
//! | HTTP request (proxy → server) | a 200-byte HTTP/1.1 GET | 236 |
//! | FAIL (proxy → UE) | — | 36 |
//!
//! Sequence numbers count packets, not bytes: the proxy cuts the content into packets of
//! `packet` bytes (the last one shorter), so packet `n` holds bytes `[n·P, (n+1)·P)`.
//! Ranges are half-open `[start, end)` in packet numbers.

use crate::packet::{IPV4_HEADER_BYTES, UDP_HEADER_BYTES};

/// Bytes of the common header every mmCPTP message carries.
pub const COMMON_BYTES: u32 = 8;
/// IPv4 + UDP + common header.
pub const BASE_BYTES: u32 = IPV4_HEADER_BYTES + UDP_HEADER_BYTES + COMMON_BYTES;
/// Bytes of a DATA message's own fields (packet number 8, send time 4).
pub const DATA_FIELDS_BYTES: u32 = 12;
/// Most ranges one message carries (as TCP's SACK option, RFC 2018 §3).
pub const MAX_RANGES: usize = 4;

/// A half-open range of packet numbers `[start, end)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Range {
    /// First packet of the range.
    pub start: u64,
    /// One past its last packet.
    pub end: u64,
}

/// Up to [`MAX_RANGES`] ranges, highest first (the most recent news first, as RFC 2018).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ranges {
    r: [Range; MAX_RANGES],
    n: u8,
}

impl Ranges {
    /// The valid ranges.
    pub fn as_slice(&self) -> &[Range] {
        &self.r[..self.n as usize]
    }
    /// Appends a range if there is room; false otherwise.
    pub fn push(&mut self, r: Range) -> bool {
        if (self.n as usize) < MAX_RANGES {
            self.r[self.n as usize] = r;
            self.n += 1;
            true
        } else {
            false
        }
    }
    /// True if `n` lies in one of the ranges.
    pub fn contains(&self, n: u64) -> bool {
        self.as_slice().iter().any(|r| r.start <= n && n < r.end)
    }
    fn wire_bytes(&self) -> u32 {
        16 * self.n as u32
    }
}

/// What a message is, with its own fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Msg {
    /// A data packet, proxy → BS (addressed to the UE) and BS → UE.
    Data {
        /// Packet number.
        n: u64,
        /// Payload bytes.
        len: u32,
        /// A retransmission (oracle metadata for counting; not a wire field).
        retx: bool,
    },
    /// BS → proxy: "you may send packets up to `edge` (exclusive)". The proxy's pull
    /// counter is `edge − next packet`; each pull raises it by `edge − previous edge`.
    Pull {
        /// The pull's right edge.
        edge: u64,
        /// Every packet below this reached the UE (the proxy may free them).
        delivered: u64,
        /// Every packet below this reached the BS.
        received: u64,
        /// Packets above `received` that reached the BS.
        sacked: Ranges,
    },
    /// BS → proxy: a gap in what the proxy sent reached the BS.
    Sack {
        /// Every packet below this reached the BS.
        received: u64,
        /// Packets above `received` that reached the BS.
        sacked: Ranges,
    },
    /// Source BS → proxy at a handover: every packet below `delivered` reached the UE;
    /// send the rest again towards the UE's new cell.
    Nack {
        /// First packet the UE has not acknowledged.
        delivered: u64,
    },
    /// Proxy → source BS: the NACK of this session arrived (the source stops sending it
    /// again). Ours: the paper's NACK has no acknowledgement, but a lost one would leave
    /// the download waiting for ever.
    NackAck {
        /// The NACK's `delivered`.
        delivered: u64,
    },
    /// UE → BS: what the UE holds.
    Ack {
        /// Every packet below this reached the UE.
        cumulative: u64,
        /// Packets above `cumulative` the UE holds.
        sacked: Ranges,
    },
    /// UE → proxy: the content request.
    Request,
    /// Proxy → server: the HTTP request that makes the server open its TCP connection.
    HttpRequest,
    /// Proxy → UE: the server did not answer the HTTP request.
    Fail,
}

/// An mmCPTP header, as a packet carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CptpHeader {
    /// The proxy's session (0 at the start, +1 at each handover NACK).
    pub session: u16,
    /// DATA: when the proxy sent it, µs of simulated time (wrapping); PULL and SACK: the
    /// echo of the newest data packet's, so the proxy measures its round trip.
    pub ts_us: u32,
    /// The message.
    pub msg: Msg,
}

impl CptpHeader {
    /// Size of the whole packet on the wire (IP, UDP, mmCPTP header and payload), bytes.
    pub fn wire_bytes(&self) -> u32 {
        BASE_BYTES
            + match &self.msg {
                Msg::Data { len, .. } => DATA_FIELDS_BYTES + len,
                Msg::Pull { sacked, .. } => 28 + sacked.wire_bytes(),
                Msg::Sack { sacked, .. } => 12 + sacked.wire_bytes(),
                Msg::Ack { sacked, .. } => 8 + sacked.wire_bytes(),
                Msg::Nack { .. } | Msg::NackAck { .. } => 8,
                Msg::Request => 64,
                Msg::HttpRequest => 200,
                Msg::Fail => 0,
            }
    }

    /// Payload bytes of a data packet (0 for control messages).
    pub fn payload_bytes(&self) -> u32 {
        match self.msg {
            Msg::Data { len, .. } => len,
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(msg: Msg) -> CptpHeader {
        CptpHeader {
            session: 0,
            ts_us: 0,
            msg,
        }
    }

    #[test]
    fn sizes_follow_the_layout() {
        // 20 IP + 8 UDP + 8 common = 36 before each kind's fields.
        assert_eq!(BASE_BYTES, 36);
        let data = h(Msg::Data {
            n: 0,
            len: 1400,
            retx: false,
        });
        assert_eq!(data.wire_bytes(), 36 + 8 + 4 + 1400);
        assert_eq!(h(Msg::Nack { delivered: 3 }).wire_bytes(), 44);
        assert_eq!(h(Msg::Fail).wire_bytes(), 36);
        let mut s = Ranges::default();
        s.push(Range { start: 5, end: 7 });
        s.push(Range { start: 9, end: 10 });
        let pull = h(Msg::Pull {
            edge: 10,
            delivered: 1,
            received: 2,
            sacked: s,
        });
        assert_eq!(pull.wire_bytes(), 36 + 28 + 32);
        assert_eq!(
            h(Msg::Ack {
                cumulative: 0,
                sacked: Ranges::default()
            })
            .wire_bytes(),
            44
        );
    }
}
