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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    /// True if this segment travels from the data receiver to the data sender.
    pub from_receiver: bool,
    /// Sequence number of the first payload byte (64-bit, unwrapped; SYN occupies seq 0
    /// and data starts at 1).
    pub seq: u64,
    /// Cumulative acknowledgement (valid when `flags.ack`).
    pub ack: u64,
    /// Payload length in bytes.
    pub payload_bytes: u32,
    /// Control flags.
    pub flags: TcpFlags,
    /// Window field as it appears on the wire (already right-shifted by the scale).
    pub window_field: u16,
    /// Timestamps option (RFC 7323): TSval and TSecr in simulator ticks (see
    /// [`TS_TICK_NS`]).
    pub timestamps: Option<(u32, u32)>,
    /// SACK blocks; the first `sack_len` entries are valid.
    pub sack: [SackBlock; 4],
    /// Number of valid SACK blocks.
    pub sack_len: u8,
    /// SYN options (only on SYN segments).
    pub syn_options: Option<SynOptions>,
    /// True if this data segment is a retransmission (oracle metadata, not on the wire).
    pub retransmission: bool,
}

/// One timestamp-clock tick: 1 µs. Linux moved its TCP timestamp clock to 1 ms ticks long
/// ago and offers µs ticks as an option; µs keeps RTT samples from timestamps precise at
/// the sub-millisecond RTTs of edge servers.
pub const TS_TICK_NS: u64 = 1_000;

impl TcpHeader {
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

/// A packet in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Flow this packet belongs to.
    pub flow: FlowId,
    /// Source node.
    pub src: NodeId,
    /// Destination node.
    pub dst: NodeId,
    /// Size on the wire, IP header included, in bytes.
    pub size_bytes: u32,
    /// When the packet entered the network (for one-way delay).
    pub sent_at: SimTime,
    /// When the packet entered its current queue (for CoDel sojourn time).
    pub enqueued_at: SimTime,
    /// Transport header.
    pub transport: Transport,
    /// The far end of the core network's tunnel (GTP-U between a gNB site and the user
    /// plane function, TS 23.501 §5.8 [TS23501]) while the packet travels inside it:
    /// forwarding then routes towards this node instead of `dst`. No header bytes are
    /// added. `None` outside a tunnel.
    pub tunnel: Option<NodeId>,
}
