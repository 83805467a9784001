//! Packets as the network layer sees them.
//!
//! A packet carries its wire size (headers included) and a parsed transport header; there
//! is no payload data, only its length. Transport protocols build the headers; links,
//! queues and capture points read `size_bytes` and, for pcap, the header fields.
//!
//! Sequence and acknowledgement numbers are 64-bit and never wrap inside the simulator;
//! capture points map them onto the 32-bit wire space (`isn + seq mod 2^32`).

use mmtsim_engine::SimTime;

pub use mmtsim_engine::ids::{FlowId, NodeId};

/// IPv4 header length without options (RFC 791).
pub const IPV4_HEADER_BYTES: u32 = 20;
/// TCP header length without options (RFC 9293).
pub const TCP_HEADER_BYTES: u32 = 20;
/// UDP header length (RFC 768).
pub const UDP_HEADER_BYTES: u32 = 8;

/// TCP SACK block: bytes `[start, end)` received above the cumulative ACK (RFC 2018).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    /// First byte of the block.
    pub start: u64,
    /// One past the last byte of the block.
    pub end: u64,
}

/// TCP control flags the simulator uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpFlags {
    /// Synchronise sequence numbers.
    pub syn: bool,
    /// The acknowledgement field is valid.
    pub ack: bool,
    /// Sender has finished.
    pub fin: bool,
}

/// Options carried on a SYN or SYN-ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SynOptions {
    /// Maximum segment size the sender of the SYN accepts (RFC 9293 §3.7.1).
    pub mss: u16,
    /// Window-scale shift, if offered (RFC 7323 §2).
    pub wscale: Option<u8>,
    /// SACK-permitted (RFC 2018 §2).
    pub sack_permitted: bool,
}

/// A TCP segment header, parsed.
///
/// `repr(C)` keeps the fields in this order: what every segment's handling reads (the
/// numbers, length, timestamps and flags) comes first, and the SACK blocks, which only
/// some acknowledgements carry, last, so that inside a [`Packet`] record a data segment's
/// fields share the record's first two cache lines (see [`Packet`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct TcpHeader {
    /// Sequence number of the first payload byte (64-bit, unwrapped; SYN occupies seq 0
    /// and data starts at 1).
    pub seq: u64,
    /// Cumulative acknowledgement (valid when `flags.ack`).
    pub ack: u64,
    /// Payload length in bytes.
    pub payload_bytes: u32,
    /// Timestamps option (RFC 7323): TSval and TSecr in simulator ticks (see
    /// [`TS_TICK_NS`]).
    pub timestamps: Option<(u32, u32)>,
    /// Window field as it appears on the wire (already right-shifted by the scale).
    pub window_field: u16,
    /// Control flags.
    pub flags: TcpFlags,
    /// True if this segment travels from the data receiver to the data sender.
    pub from_receiver: bool,
    /// Number of valid SACK blocks.
    pub sack_len: u8,
    /// True if this data segment is a retransmission (oracle metadata, not on the wire).
    pub retransmission: bool,
    /// SYN options (only on SYN segments).
    pub syn_options: Option<SynOptions>,
    /// SACK blocks; the first `sack_len` entries are valid.
    pub sack: [SackBlock; 4],
}

/// One timestamp-clock tick: 1 µs. Linux moved its TCP timestamp clock to 1 ms ticks long
/// ago and offers µs ticks as an option; µs keeps RTT samples from timestamps precise at
/// the sub-millisecond RTTs of edge servers.
pub const TS_TICK_NS: u64 = 1_000;

/// The default header, kept in memory: [`TcpHeader::push_blank`] copies it. `Default`
/// stays derived rather than copying this: where a caller overwrites fields of a default
/// header, the compiler leaves out the derived zeroes but not a copy (one UE uplink: 0.2 %
/// more instructions). A test keeps the two equal.
static BLANK: TcpHeader = TcpHeader {
    seq: 0,
    ack: 0,
    payload_bytes: 0,
    timestamps: None,
    window_field: 0,
    flags: TcpFlags {
        syn: false,
        ack: false,
        fin: false,
    },
    from_receiver: false,
    sack_len: 0,
    retransmission: false,
    syn_options: None,
    sack: [SackBlock { start: 0, end: 0 }; 4],
};

impl TcpHeader {
    /// Appends a default header to `out` and returns it, to be filled in place. A header
    /// built apart and pushed (a default one too) is assembled on the stack in narrow
    /// stores and copied in wide loads, which the CPU cannot forward from those stores: a
    /// stall of some tens of cycles on every segment. Copied from memory written long
    /// before, it is not.
    #[inline]
    pub fn push_blank(out: &mut Vec<TcpHeader>) -> &mut TcpHeader {
        out.extend_from_slice(std::slice::from_ref(&BLANK));
        out.last_mut().expect("just pushed")
    }

    /// Length of the TCP options this header carries on the wire, padded to 4 bytes.
    pub fn options_bytes(&self) -> u32 {
        let mut n = 0;
        if let Some(o) = self.syn_options {
            n += 4; // MSS
            if o.wscale.is_some() {
                n += 3;
            }
            if o.sack_permitted {
                n += 2;
            }
        }
        if self.timestamps.is_some() {
            n += 10;
        }
        if self.sack_len > 0 {
            n += 2 + 8 * self.sack_len as u32;
        }
        n.div_ceil(4) * 4
    }

    /// Size of IP + TCP headers (with options) in bytes.
    pub fn header_bytes(&self) -> u32 {
        IPV4_HEADER_BYTES + TCP_HEADER_BYTES + self.options_bytes()
    }

    /// The valid SACK blocks.
    pub fn sack_blocks(&self) -> &[SackBlock] {
        &self.sack[..self.sack_len as usize]
    }
}

/// A UDP datagram header, parsed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UdpHeader {
    /// Datagram sequence number assigned by the source (for loss accounting).
    pub seq: u64,
    /// Payload length in bytes.
    pub payload_bytes: u32,
}

/// Transport header of a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// A TCP segment.
    Tcp(TcpHeader),
    /// A UDP datagram.
    Udp(UdpHeader),
    /// An mmCPTP message (it rides in UDP; `crate::cptp` gives its layout).
    Cptp(crate::cptp::CptpHeader),
    /// A real IP packet of an emulation: its bytes are held outside the record, in the
    /// emulation's payload slab at `slot`, and no model reads them (the record's size is
    /// the packet's length, headers included).
    External {
        /// Index of the packet's bytes in the emulation's payload slab.
        slot: u32,
    },
}

/// Bytes at the start of a [`Packet`] record that hold every field a data segment's
/// handling reads (forwarding, queues, TCP delivery): what a prefetch of a record brings.
pub const HOT_BYTES: usize = 96;

/// A packet in flight.
///
/// `repr(C)` keeps the fields in this order: forwarding reads the destination, the tunnel
/// and the size at every hop, and the record has usually waited in a buffer or on a wire
/// long enough to leave the cache, so they come first, on one cache line with the TCP
/// sequence numbers; a data segment's whole handling then touches two of the record's
/// three lines (the compiler's own order put the tunnel and the destination at opposite
/// ends). The layout changes no result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Packet {
    /// Destination node.
    pub dst: NodeId,
    /// The far end of the core network's tunnel (GTP-U between a gNB site and the user
    /// plane function, TS 23.501 §5.8 [TS23501]) while the packet travels inside it:
    /// forwarding then routes towards this node instead of `dst`. No header bytes are
    /// added. `None` outside a tunnel.
    pub tunnel: Option<NodeId>,
    /// Size on the wire, IP header included, in bytes.
    pub size_bytes: u32,
    /// Flow this packet belongs to.
    pub flow: FlowId,
    /// Source node.
    pub src: NodeId,
    /// When the packet entered the network (for one-way delay).
    pub sent_at: SimTime,
    /// When the packet entered its current queue (for CoDel sojourn time).
    pub enqueued_at: SimTime,
    /// Transport header.
    pub transport: Transport,
}

#[cfg(test)]
mod layout {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// The fields a data segment's handling reads lie within the record's first 96 bytes
    /// (two cache lines wherever a 160-byte record starts in the slab, which is on a
    /// 32-byte boundary), the SACK blocks after them.
    #[test]
    fn a_data_segment_is_read_from_the_first_two_cache_lines() {
        assert_eq!(size_of::<Packet>(), 160);
        let p = Packet {
            dst: NodeId(0),
            tunnel: None,
            size_bytes: 0,
            flow: FlowId(0),
            src: NodeId(0),
            sent_at: SimTime::ZERO,
            enqueued_at: SimTime::ZERO,
            transport: Transport::Tcp(TcpHeader::default()),
        };
        let Transport::Tcp(h) = &p.transport else {
            unreachable!("built as TCP")
        };
        let tcp = (h as *const TcpHeader as usize) - (&p as *const Packet as usize);
        let hot_end = [
            offset_of!(Packet, dst) + 4,
            offset_of!(Packet, tunnel) + size_of::<Option<NodeId>>(),
            offset_of!(Packet, size_bytes) + 4,
            offset_of!(Packet, enqueued_at) + 8,
            tcp + offset_of!(TcpHeader, retransmission) + 1,
            tcp + offset_of!(TcpHeader, syn_options) + size_of::<Option<SynOptions>>(),
        ]
        .into_iter()
        .max()
        .expect("fields");
        assert!(hot_end <= HOT_BYTES, "hot fields end at {hot_end}");
        assert!(tcp + offset_of!(TcpHeader, sack) >= HOT_BYTES);
    }

    #[test]
    fn a_blank_header_is_the_default_one() {
        let mut out = vec![TcpHeader {
            seq: 7,
            ..TcpHeader::default()
        }];
        let h = TcpHeader::push_blank(&mut out);
        assert_eq!(*h, TcpHeader::default());
        h.seq = 9;
        assert_eq!(out.len(), 2);
        assert_eq!((out[0].seq, out[1].seq), (7, 9));
    }
}
