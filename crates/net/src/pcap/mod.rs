//! Opt-in packet capture: simulated packets written as a classic pcap file.
//!
//! A [`PcapWriter`] turns each [`Packet`] it is given into one pcap record holding an
//! Ethernet II frame with a synthesized IPv4 header and a TCP or UDP header, so that
//! Wireshark/tshark, tcptrace and similar tools can analyse a simulated flow as if it had
//! been captured on a real interface: sequence analysis, retransmissions, SACK, window
//! scaling, RTT from timestamps.
//!
//! # File format
//! Classic pcap (not pcapng), written little-endian: the nanosecond-resolution magic
//! `0xa1b23c4d`, version 2.4, time zone and accuracy 0, snapshot length 65535 and link
//! type 1 (`LINKTYPE_ETHERNET`). A record's time stamp is the simulated time plus a fixed
//! epoch, 2000-01-01 00:00:00 UTC ([`CAPTURE_EPOCH_SECS`]): time-of-day in a tool's
//! absolute time display reads as simulated time, and no packet gets the all-zero time
//! stamp that tcptrace takes for "unset" (it would drop a SYN sent at time 0 from the
//! connection's first-packet time).
//!
//! # What a record holds
//! Payload bytes do not exist in the simulator, so they are not stored: a record's
//! captured length covers only the Ethernet (14 B), IPv4 (20 B) and TCP (20 B plus
//! options) or UDP (8 B) headers, while its original length is `14 + size_bytes`, the
//! size the packet had on the simulated wire. Tools then report the payload as
//! "not captured" but use the IP total length for every length and sequence computation.
//! Checksums are computed as if the payload were all zero bytes, so a tool that is handed
//! the same frame padded with zeros to its original length finds every checksum correct.
//!
//! # Address, port and sequence-number plan
//! All functions below are pure, so a capture is a function of the simulation only.
//! - Node `n` has IPv4 address `10.0.0.0 + (n mod 16_777_214) + 1` ([`node_ipv4`]): node 0
//!   is 10.0.0.1, node 255 is 10.0.1.0. All nodes share the 10.0.0.0/8 network; the host
//!   part is never 0 (network) or all ones (broadcast). Addresses are unique for the first
//!   16,777,214 nodes.
//! - Node `n` has MAC address `02:00` followed by the four bytes of `n`, big-endian
//!   ([`node_mac`]): locally administered unicast, unique for every node. Frames go
//!   straight from the source node's MAC to the destination node's MAC; routers on the
//!   path are not shown.
//! - Flow `f` uses data-sender port `40000 + f mod 20000` and data-receiver port
//!   `20000 + (f / 20000) mod 20000` ([`flow_ports`]), for TCP and UDP alike. Flow 3 thus
//!   talks from port 40003 to port 20000, like clients with ephemeral ports connecting to
//!   one server port. The port pair is unique for the first 400,000,000 flows and never
//!   uses port 0. For TCP the data sender is the packet's `src` unless the header says
//!   `from_receiver`; UDP datagrams always go from the sender port to the receiver port
//!   (the simulator's UDP flows are one-way).
//! - The simulator's 64-bit sequence numbers start at 0 for the SYN in each direction.
//!   On the wire they become `ISN + seq mod 2^32`, where the initial sequence number
//!   ([`initial_sequence_number`]) is a fixed hash of the flow and the direction: captures
//!   are reproducible, the two directions use unrelated numbers, and ISNs spread over the
//!   whole 32-bit space so that analysis tools see sequence wraparound as they would in
//!   real traces. Acknowledgement numbers and SACK block edges refer to the peer's
//!   sequence space and are mapped with the peer's ISN.
//!
//! # Header details
//! - IPv4 (RFC 791): version 4, IHL 5 (no options), DSCP/ECN 0, total length =
//!   `size_bytes`, identification from a per-writer counter, DF set (so the identification
//!   carries no meaning, RFC 6864), TTL 64, protocol 6 or 17, correct header checksum
//!   (RFC 1071).
//! - TCP (RFC 9293): ports and numbers as above; flags SYN, ACK and FIN as the simulator
//!   sets them (PSH never: the simulator has no push semantics, and a constant flag keeps
//!   captures comparable); the acknowledgement field is zero when ACK is clear; window =
//!   `window_field`, already scaled as on the wire; urgent pointer 0; correct checksum.
//! - TCP options are laid out in the order Linux uses. SYN: MSS, SACK-permitted
//!   (RFC 2018), timestamps (RFC 7323), NOP, window scale (RFC 7323). Other segments:
//!   NOP, NOP, timestamps, NOP, NOP, SACK blocks. The simulator accounts for options as
//!   the sum of their lengths rounded up to a multiple of 4
//!   ([`TcpHeader::options_bytes`]), which leaves no room for some of the NOPs Linux
//!   inserts (timestamps followed by SACK blocks take 12 + 8k bytes, not 16 + 8k). The
//!   writer therefore spends the padding it has on aligning options the way Linux does,
//!   as far as it goes, and emits exactly `options_bytes()` bytes.
//! - UDP (RFC 768): ports as above, length `size_bytes - 20`, correct checksum (0xffff
//!   in place of a computed 0).
//!
//! # Simplifications
//! - No payload bytes; the snapshot is the headers only.
//! - No IP options, no fragmentation, no ECN, no VLAN tags, no Ethernet padding to the
//!   60-byte minimum frame and no frame check sequence.
//! - A TCP header can carry at most 40 bytes of options. The simulator's accounting
//!   allows more (timestamps plus four SACK blocks need 44), which no real stack sends
//!   (RFC 2018 §3 allows three blocks next to timestamps). Such a header is written with
//!   the trailing SACK blocks that do not fit left out, and its frame is shorter by the
//!   bytes they would have taken, so the capture stays a valid TCP stream.
//! - A packet whose `size_bytes` is smaller than its own headers is written with the
//!   header length as its IP total length. A packet larger than IPv4's 65535-byte limit
//!   cannot be written and yields an [`std::io::ErrorKind::InvalidInput`] error.
//!
//! # References
//! - pcap file format: the libpcap `pcap-savefile` manual page and the IETF draft
//!   "PCAP Capture File Format" (draft-ietf-opsawg-pcap).
//! - RFC 791 (IPv4), RFC 9293 (TCP), RFC 7323 (TCP window scale and timestamps),
//!   RFC 2018 (TCP selective acknowledgement), RFC 768 (UDP), RFC 1071 (Internet
//!   checksum), RFC 6864 (IPv4 identification).

use std::io::{self, Write};

use crate::checksum::{fold, internet_checksum, ones_complement_add, pseudo_header_sum};
use crate::packet::{
    FlowId, NodeId, Packet, TcpHeader, Transport, IPV4_HEADER_BYTES, TCP_HEADER_BYTES,
    UDP_HEADER_BYTES,
};
use mmtsim_engine::SimTime;

/// Magic number of a classic pcap file whose record time stamps carry nanoseconds.
pub const PCAP_MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// pcap link type of Ethernet II frames.
pub const LINKTYPE_ETHERNET: u32 = 1;
/// Snapshot length announced in the global header. Records are much shorter (headers
/// only); the value only tells readers the largest record to expect.
pub const SNAPLEN: u32 = 65_535;
/// Unix time of simulated time zero in the capture: 2000-01-01 00:00:00 UTC.
pub const CAPTURE_EPOCH_SECS: u32 = 946_684_800;
/// Ethernet II header: destination MAC, source MAC, EtherType.
pub const ETHERNET_HEADER_BYTES: u32 = 14;
/// Largest TCP options area: the 4-bit data offset counts at most 15 words of header.
pub const MAX_TCP_OPTIONS_BYTES: u32 = 40;
/// First data-sender port; flow `f` uses `SENDER_PORT_BASE + f mod PORTS_PER_BASE`.
pub const SENDER_PORT_BASE: u16 = 40_000;
/// First data-receiver port; flow `f` uses
/// `RECEIVER_PORT_BASE + (f / PORTS_PER_BASE) mod PORTS_PER_BASE`.
pub const RECEIVER_PORT_BASE: u16 = 20_000;
/// Size of each of the two port ranges.
pub const PORTS_PER_BASE: u32 = 20_000;

/// Length of the pcap global header.
const GLOBAL_HEADER_BYTES: usize = 24;
/// Length of a pcap record header.
const RECORD_HEADER_BYTES: usize = 16;
/// Number of usable host addresses in 10.0.0.0/8 (all but network and broadcast).
const IPV4_HOSTS: u32 = (1 << 24) - 2;
/// Largest value of the IPv4 total-length field.
const IPV4_MAX_TOTAL_LENGTH: u32 = 65_535;
const ETHERTYPE_IPV4: u16 = 0x0800;
const IP_PROTO_TCP: u8 = 6;
const IP_PROTO_UDP: u8 = 17;
const IP_TTL: u8 = 64;
/// IPv4 flags/fragment-offset word with only "don't fragment" set.
const IP_FLAG_DF: u16 = 0x4000;

// TCP option kinds (RFC 9293 §3.2, RFC 7323, RFC 2018).
const OPT_EOL: u8 = 0;
const OPT_NOP: u8 = 1;
const OPT_MSS: u8 = 2;
const OPT_WSCALE: u8 = 3;
const OPT_SACK_PERMITTED: u8 = 4;
const OPT_SACK: u8 = 5;
const OPT_TIMESTAMPS: u8 = 8;

// TCP flag bits in the 13th header byte.
const TCP_FIN: u8 = 0x01;
const TCP_SYN: u8 = 0x02;
const TCP_ACK: u8 = 0x10;

/// IPv4 address of node `node`: host number `(node mod 16_777_214) + 1` in 10.0.0.0/8.
///
/// Node 0 is 10.0.0.1, node 1 is 10.0.0.2, node 255 is 10.0.1.0 (a valid host inside a
/// /8). The host part is never all zeros or all ones. Unique for nodes below
/// 16,777,214; larger ids wrap around.
pub fn node_ipv4(node: NodeId) -> [u8; 4] {
    let host = node.0 % IPV4_HOSTS + 1;
    let [_, a, b, c] = host.to_be_bytes();
    [10, a, b, c]
}

/// MAC address of node `node`: `02:00` followed by `node` in big-endian order.
///
/// The first octet has the locally-administered bit set and the multicast bit clear, as
/// made-up unicast addresses should. Unique for every node id.
pub fn node_mac(node: NodeId) -> [u8; 6] {
    let [a, b, c, d] = node.0.to_be_bytes();
    [0x02, 0x00, a, b, c, d]
}

/// Ports of flow `flow`: `(data sender port, data receiver port)`.
///
/// The sender port is `40000 + flow mod 20000` (40000..=59999), the receiver port
/// `20000 + (flow / 20000) mod 20000` (20000..=39999). Flows 0..20000 therefore all reach
/// their receiver on port 20000 and are told apart by the sender port, which reads as
/// `40000 + flow`. The pair is unique for flows below 400,000,000 and never 0.
pub fn flow_ports(flow: FlowId) -> (u16, u16) {
    // Both offsets are below 20000, so the sums stay below 60000 and fit in a u16.
    let flow = flow.0;
    let sender = SENDER_PORT_BASE + (flow % PORTS_PER_BASE) as u16;
    let receiver = RECEIVER_PORT_BASE + (flow / PORTS_PER_BASE % PORTS_PER_BASE) as u16;
    (sender, receiver)
}

/// Initial sequence number of one direction of TCP flow `flow` (`from_receiver` selects
/// the receiver-to-sender direction).
///
/// A fixed mixing hash (the SplitMix64 finaliser) of `2 * flow + from_receiver`, upper 32
/// bits: deterministic, so captures are reproducible, yet spread over the whole sequence
/// space and unrelated between the two directions and between neighbouring flows.
pub fn initial_sequence_number(flow: FlowId, from_receiver: bool) -> u32 {
    let mut z = ((flow.0 as u64) << 1 | from_receiver as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 32) as u32
}

/// Writes simulated packets to a classic pcap file.
///
/// Every [`write`](Self::write) issues one `write_all` of a whole record, so wrap a file in
/// a [`std::io::BufWriter`] to avoid a system call per packet.
pub struct PcapWriter<W: Write> {
    out: W,
    /// Identification field of the next IPv4 header.
    next_ip_id: u16,
    packets: u64,
    /// Record being assembled; kept to reuse its allocation.
    buf: Vec<u8>,
}

impl<W: Write> PcapWriter<W> {
    /// Starts a capture on `out` by writing the pcap global header.
    pub fn new(mut out: W) -> io::Result<Self> {
        let mut header = [0u8; GLOBAL_HEADER_BYTES];
        header[0..4].copy_from_slice(&PCAP_MAGIC_NANOS.to_le_bytes());
        header[4..6].copy_from_slice(&2u16.to_le_bytes()); // version 2.4
        header[6..8].copy_from_slice(&4u16.to_le_bytes());
        // Bytes 8..16: time-zone offset and time-stamp accuracy, both 0.
        header[16..20].copy_from_slice(&SNAPLEN.to_le_bytes());
        header[20..24].copy_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        out.write_all(&header)?;
        Ok(PcapWriter {
            out,
            next_ip_id: 0,
            packets: 0,
            buf: Vec::with_capacity(RECORD_HEADER_BYTES + 128),
        })
    }

    /// Appends `pkt`, seen at simulated time `time`, as one record.
    ///
    /// Fails with [`io::ErrorKind::InvalidInput`] if the packet is larger than an IPv4
    /// datagram can be or `time` lies beyond pcap's 32-bit seconds (about 106 years of
    /// simulated time); nothing is written then. Otherwise fails only if the underlying
    /// writer does.
    pub fn write(&mut self, time: SimTime, pkt: &Packet) -> io::Result<()> {
        let ns = time.ns();
        let secs = u32::try_from(ns / 1_000_000_000)
            .ok()
            .and_then(|s| s.checked_add(CAPTURE_EPOCH_SECS))
            .ok_or_else(|| invalid_input("time does not fit pcap's 32-bit seconds"))?;
        let nanos = (ns % 1_000_000_000) as u32;

        self.buf.clear();
        self.buf.resize(RECORD_HEADER_BYTES, 0);
        let orig_len = encode_frame(&mut self.buf, pkt, self.next_ip_id)?;
        let incl_len = (self.buf.len() - RECORD_HEADER_BYTES) as u32;
        self.buf[0..4].copy_from_slice(&secs.to_le_bytes());
        self.buf[4..8].copy_from_slice(&nanos.to_le_bytes());
        self.buf[8..12].copy_from_slice(&incl_len.to_le_bytes());
        self.buf[12..16].copy_from_slice(&orig_len.to_le_bytes());
        self.out.write_all(&self.buf)?;

        self.next_ip_id = self.next_ip_id.wrapping_add(1);
        self.packets += 1;
        Ok(())
    }

    /// Flushes the capture and returns the underlying writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }

    /// Number of records written so far.
    pub fn packets_written(&self) -> u64 {
        self.packets
    }
}

fn invalid_input(msg: &'static str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

/// Appends the captured part of `pkt`'s Ethernet frame (all headers) to `buf` and returns
/// the frame's original length.
fn encode_frame(buf: &mut Vec<u8>, pkt: &Packet, ip_id: u16) -> io::Result<u32> {
    let src_ip = node_ipv4(pkt.src);
    let dst_ip = node_ipv4(pkt.dst);

    // Build the transport header first: its length (and, for an over-long TCP options
    // area, the bytes left out) decides the IP total length.
    let mut l4 = [0u8; (TCP_HEADER_BYTES + MAX_TCP_OPTIONS_BYTES) as usize];
    let (l4_len, proto, ip_total) = match &pkt.transport {
        Transport::Tcp(h) => {
            let (len, omitted) = encode_tcp_header(&mut l4, pkt.flow, h);
            let total = ip_total_length(pkt.size_bytes.saturating_sub(omitted), len)?;
            (len, IP_PROTO_TCP, total)
        }
        // mmCPTP rides in UDP; its own header is written as payload (zeros). An emulated
        // packet's bytes are not in the record: it is written as a UDP frame of its size.
        Transport::Udp(_) | Transport::Cptp(_) | Transport::External { .. } => {
            let len = UDP_HEADER_BYTES as usize;
            let total = ip_total_length(pkt.size_bytes, len)?;
            encode_udp_header(&mut l4, pkt.flow, total);
            (len, IP_PROTO_UDP, total)
        }
    };
    let l4 = &mut l4[..l4_len];

    // The checksum field sits at offset 16 in TCP and 6 in UDP; it is zero while summing.
    // The payload is all zeros and zero words leave a one's-complement sum unchanged, so
    // only its length enters the sum, through the pseudo-header's segment length.
    let segment_len = (ip_total - IPV4_HEADER_BYTES) as u16;
    let mut sum = pseudo_header_sum(src_ip, dst_ip, proto, segment_len);
    sum = ones_complement_add(sum, l4);
    let mut csum = !fold(sum);
    let csum_at = if proto == IP_PROTO_TCP {
        16
    } else {
        // RFC 768: a computed 0 is sent as all ones; 0 means "no checksum".
        if csum == 0 {
            csum = 0xffff;
        }
        6
    };
    l4[csum_at..csum_at + 2].copy_from_slice(&csum.to_be_bytes());

    // Ethernet II.
    buf.extend_from_slice(&node_mac(pkt.dst));
    buf.extend_from_slice(&node_mac(pkt.src));
    buf.extend_from_slice(&ETHERTYPE_IPV4.to_be_bytes());

    // IPv4 (RFC 791 §3.1), no options.
    let mut ip = [0u8; IPV4_HEADER_BYTES as usize];
    ip[0] = 0x45; // version 4, IHL 5 words
    ip[2..4].copy_from_slice(&(ip_total as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&ip_id.to_be_bytes());
    ip[6..8].copy_from_slice(&IP_FLAG_DF.to_be_bytes());
    ip[8] = IP_TTL;
    ip[9] = proto;
    ip[12..16].copy_from_slice(&src_ip);
    ip[16..20].copy_from_slice(&dst_ip);
    let ip_csum = internet_checksum(&ip);
    ip[10..12].copy_from_slice(&ip_csum.to_be_bytes());
    buf.extend_from_slice(&ip);

    buf.extend_from_slice(l4);
    Ok(ETHERNET_HEADER_BYTES + ip_total)
}

/// IP total length of a packet of simulated size `size_bytes` whose transport header is
/// `l4_len` bytes: the size, but never less than the headers it must hold.
fn ip_total_length(size_bytes: u32, l4_len: usize) -> io::Result<u32> {
    let total = size_bytes.max(IPV4_HEADER_BYTES + l4_len as u32);
    if total > IPV4_MAX_TOTAL_LENGTH {
        return Err(invalid_input("packet larger than an IPv4 datagram can be"));
    }
    Ok(total)
}

/// Writes the TCP header of `h` (checksum still zero) to the front of `out`. Returns its
/// length and the number of option bytes that `h.options_bytes()` accounts for but that
/// did not fit into the 40-byte options area.
fn encode_tcp_header(out: &mut [u8], flow: FlowId, h: &TcpHeader) -> (usize, u32) {
    let (sender_port, receiver_port) = flow_ports(flow);
    let (src_port, dst_port) = if h.from_receiver {
        (receiver_port, sender_port)
    } else {
        (sender_port, receiver_port)
    };
    let own_isn = initial_sequence_number(flow, h.from_receiver);
    let peer_isn = initial_sequence_number(flow, !h.from_receiver);

    let (opts, opts_len, omitted) = encode_tcp_options(h, peer_isn);
    let header_len = TCP_HEADER_BYTES as usize + opts_len;

    out[0..2].copy_from_slice(&src_port.to_be_bytes());
    out[2..4].copy_from_slice(&dst_port.to_be_bytes());
    out[4..8].copy_from_slice(&wire_seq(own_isn, h.seq).to_be_bytes());
    // RFC 9293 only defines the acknowledgement field when ACK is set; sending zero
    // otherwise is what stacks do and keeps analysers from flagging a "nonzero ACK".
    let ack = if h.flags.ack {
        wire_seq(peer_isn, h.ack)
    } else {
        0
    };
    out[8..12].copy_from_slice(&ack.to_be_bytes());
    out[12] = ((header_len / 4) as u8) << 4; // data offset in words; reserved bits 0
    let mut flags = 0;
    if h.flags.fin {
        flags |= TCP_FIN;
    }
    if h.flags.syn {
        flags |= TCP_SYN;
    }
    if h.flags.ack {
        flags |= TCP_ACK;
    }
    out[13] = flags;
    out[14..16].copy_from_slice(&h.window_field.to_be_bytes());
    out[16..20].fill(0); // checksum (filled in later) and urgent pointer
    out[20..header_len].copy_from_slice(&opts[..opts_len]);
    (header_len, omitted)
}

/// Maps an unwrapped 64-bit sequence number onto the wire: `isn + seq mod 2^32`.
fn wire_seq(isn: u32, seq: u64) -> u32 {
    isn.wrapping_add(seq as u32)
}

/// Lays out TCP options in the order Linux uses, spending the padding that
/// `options_bytes()` leaves on Linux's alignment NOPs where it suffices.
struct OptionWriter {
    buf: [u8; MAX_TCP_OPTIONS_BYTES as usize],
    len: usize,
    /// NOP bytes still available without exceeding the accounted length.
    spare: usize,
}

impl OptionWriter {
    /// Appends one option whose kind byte Linux places at `len % 4 == residue` (so that
    /// its 32-bit fields are aligned), preceded by the NOPs needed for that if the spare
    /// bytes allow; otherwise the option goes in unaligned, which is equally valid.
    fn option(&mut self, residue: usize, bytes: &[u8]) {
        let nops = (residue + 4 - self.len % 4) % 4;
        if nops <= self.spare {
            self.buf[self.len..self.len + nops].fill(OPT_NOP);
            self.len += nops;
            self.spare -= nops;
        }
        self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }
}

/// Encodes the options of `h` (SACK edges mapped with `peer_isn`). Returns the options
/// area, its length and the accounted option bytes left out because they exceed the
/// 40-byte limit.
fn encode_tcp_options(
    h: &TcpHeader,
    peer_isn: u32,
) -> ([u8; MAX_TCP_OPTIONS_BYTES as usize], usize, u32) {
    // Leave out trailing SACK blocks until the options fit, using the simulator's own
    // accounting for the length of what remains.
    let mut fitted = *h;
    while fitted.options_bytes() > MAX_TCP_OPTIONS_BYTES && fitted.sack_len > 0 {
        fitted.sack_len -= 1;
    }
    let target = fitted.options_bytes() as usize;
    let omitted = h.options_bytes() - fitted.options_bytes();

    let syn = fitted.syn_options;
    let mss = syn.map(|o| {
        let [hi, lo] = o.mss.to_be_bytes();
        [OPT_MSS, 4, hi, lo]
    });
    let sack_permitted = syn
        .filter(|o| o.sack_permitted)
        .map(|_| [OPT_SACK_PERMITTED, 2]);
    let timestamps = fitted.timestamps.map(|(tsval, tsecr)| {
        let mut ts = [OPT_TIMESTAMPS, 10, 0, 0, 0, 0, 0, 0, 0, 0];
        ts[2..6].copy_from_slice(&tsval.to_be_bytes());
        ts[6..10].copy_from_slice(&tsecr.to_be_bytes());
        ts
    });
    let wscale = syn.and_then(|o| o.wscale).map(|s| [OPT_WSCALE, 3, s]);
    let blocks = fitted.sack_blocks();
    let mut sack = [0u8; 2 + 8 * 4];
    let sack_len = if blocks.is_empty() {
        0
    } else {
        2 + 8 * blocks.len()
    };
    sack[0] = OPT_SACK;
    sack[1] = sack_len as u8;
    for (i, b) in blocks.iter().enumerate() {
        let at = 2 + 8 * i;
        sack[at..at + 4].copy_from_slice(&wire_seq(peer_isn, b.start).to_be_bytes());
        sack[at + 4..at + 8].copy_from_slice(&wire_seq(peer_isn, b.end).to_be_bytes());
    }

    // Linux's order, each option with the position (modulo 4) of its kind byte when
    // Linux aligns it.
    let options: [(usize, Option<&[u8]>); 5] = [
        (0, mss.as_ref().map(|o| &o[..])),
        (2, sack_permitted.as_ref().map(|o| &o[..])),
        (2, timestamps.as_ref().map(|o| &o[..])),
        (1, wscale.as_ref().map(|o| &o[..])),
        (2, (sack_len > 0).then_some(&sack[..sack_len])),
    ];
    // The simulator's accounting must be the plain sum of the option lengths rounded up
    // to whole words; the difference is the padding available for NOPs.
    let raw: usize = options.iter().filter_map(|(_, o)| o.map(<[u8]>::len)).sum();
    debug_assert!(target <= MAX_TCP_OPTIONS_BYTES as usize);
    debug_assert_eq!(target, raw.div_ceil(4) * 4, "options_bytes() disagrees");

    let mut w = OptionWriter {
        buf: [0; MAX_TCP_OPTIONS_BYTES as usize],
        len: 0,
        spare: target - raw,
    };
    for (residue, bytes) in options {
        if let Some(bytes) = bytes {
            w.option(residue, bytes);
        }
    }
    // Whatever padding the alignment did not use ends the list: an end-of-options byte
    // followed by zeros, which is all zeros (RFC 9293 §3.1).
    debug_assert_eq!(w.len + w.spare, target);
    w.buf[w.len..target].fill(OPT_EOL);
    (w.buf, target, omitted)
}

/// Writes the UDP header of flow `flow` (checksum still zero) to the front of `out`, for a
/// datagram whose IP total length is `ip_total`.
fn encode_udp_header(out: &mut [u8], flow: FlowId, ip_total: u32) {
    let (src_port, dst_port) = flow_ports(flow);
    // Equal to 8 + payload_bytes when size_bytes counts the IP and UDP headers, and
    // consistent with the IP total length in any case.
    let udp_len = (ip_total - IPV4_HEADER_BYTES) as u16;
    out[0..2].copy_from_slice(&src_port.to_be_bytes());
    out[2..4].copy_from_slice(&dst_port.to_be_bytes());
    out[4..6].copy_from_slice(&udp_len.to_be_bytes());
    out[6..8].fill(0);
}

#[cfg(test)]
mod tests;
