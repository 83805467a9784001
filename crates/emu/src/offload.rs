//! Linux TUN offloads, sans-IO: splitting the TCP super-packets a sending kernel hands
//! over, and merging consecutive TCP segments into one super-packet for the receiving
//! kernel.
//!
//! A TUN device opened with `IFF_VNET_HDR` ([`crate::tun::Tun::create_with_offload`])
//! carries a `struct virtio_net_hdr` [VIRTIO-NET-HDR] before every packet, in both
//! directions, and the loop can tell the kernel (`TUNSETOFFLOAD` [LINUX-TUN]) that it
//! completes checksums and segments TCP itself. Then:
//!
//! - **Reads.** The sending kernel skips its own segmentation and hands over a TCP
//!   super-packet of up to 64 kB in one read: one IPv4 header and one TCP header whose
//!   total length covers the whole payload, the header saying `gso_type` TCPV4 and the
//!   segment payload size `gso_size`. Every TCP packet, large or not, also comes with its
//!   checksum only begun (`NEEDS_CSUM`: the pseudo-header sum sits in the checksum field;
//!   the sum over `csum_start..` is ours to finish). The simulation's RLC and links need
//!   MTU-sized packets with real checksums, so [`Segmenter`] does what the device would
//!   have: it cuts the payload into `gso_size` pieces, each with a copy of the headers
//!   (options kept), its own IPv4 total length, identification (+1 per segment) and
//!   header checksum [RFC791 §3.1], its own sequence number, FIN and PSH on the last
//!   piece only, CWR on the first only, and a full TCP checksum [RFC9293 §3.1]. This is
//!   the rule of the kernel's own software segmentation [LINUX-TCP-OFFLOAD].
//! - **Writes.** Each write runs the receiving kernel's IP and TCP input in the writer's
//!   thread. [`Coalescer`] merges consecutive in-order segments of one connection into
//!   one super-packet, one write and one pass of TCP input, the way GRO does for a NIC
//!   [LINUX-TCP-OFFLOAD]. It follows GRO's rule so the receiver
//!   sees the same thing it would from GRO: same 4-tuple, contiguous sequence numbers,
//!   the same payload size (the last may be shorter), the same IP header except length,
//!   identification and checksum, the same TCP header and options except the sequence
//!   number and PSH, no SYN, FIN, RST or URG, CWR only on the first, a segment with PSH
//!   or a short one ends the merge, and at most 65,535 bytes of IPv4 packet. The
//!   super-packet keeps the first segment's headers with PSH from the last; its header
//!   says TCPV4, `gso_size` = the segment payload size, and `NEEDS_CSUM` with the
//!   pseudo-header sum in the TCP checksum field, which is how the kernel itself
//!   describes a TCP super-packet (`virtio_net_hdr_to_skb`, include/linux/virtio_net.h;
//!   `tun_get_user`, drivers/net/tun.c) [LINUX-TUN]. The payload bytes are exactly those
//!   of the segments, in order.
//!
//! # Checksums on writes
//! A packet written alone carries a zero header (no GSO, flags 0) and its bytes as they
//! are: the checksums the segmenter computed are complete, so the receiving kernel checks
//! them as it would a NIC's packet without checksum offload, and a packet the loop got
//! wrong is dropped there rather than accepted. (`DATA_VALID` would not skip that check:
//! a TUN device ignores the flag on writes [LINUX-TUN].) A super-packet is marked
//! `NEEDS_CSUM` with the pseudo-header sum in place, as the kernel marks its own: the
//! receiving kernel takes it as verified (`CHECKSUM_PARTIAL`), and should it forward the
//! packet instead, its segmentation finishes each segment's checksum.
//!
//! # Byte order
//! The header's 16-bit fields are little-endian: the device is switched to that order
//! (`TUNSETVNETLE` [LINUX-TUN]) when it is opened, whatever the host's.
//!
//! # Simplifications
//! - IPv4 only: IPv6 and UDP super-packets (`TCPV6`, `UDP`, `UDP_L4`) are refused and
//!   counted; the device does not advertise them, so the kernel never sends them. IPv6
//!   packets without GSO pass through (their checksum completed if asked).
//! - The coalescer trusts its input's checksums (the segmenter made them): a segment with
//!   a wrong TCP checksum merged into a super-packet would not be caught by the receiver.
//! - A super-packet read is taken as the kernel builds it: the IPv4 total length equal to
//!   the bytes read, no IP fragment; BIG TCP (IPv4 packets above 64 kB) is refused.

use std::fmt;

use mmtsim_net::checksum::{self, fold, internet_checksum, ones_complement_add};

#[cfg(test)]
mod tests;

/// Bytes of `struct virtio_net_hdr` without `num_buffers` [VIRTIO-NET-HDR], the size set
/// with `TUNSETVNETHDRSZ` (also the kernel's default for `IFF_VNET_HDR`).
pub const VNET_HDR_BYTES: usize = 10;
/// Flag: the checksum at `csum_start + csum_offset` is only begun (pseudo-header sum);
/// the one's-complement sum from `csum_start` to the end must finish it [VIRTIO-NET-HDR].
pub const VNET_HDR_F_NEEDS_CSUM: u8 = 1;
/// Flag (reads only): the kernel already validated the checksum [VIRTIO-NET-HDR].
pub const VNET_HDR_F_DATA_VALID: u8 = 2;
/// `gso_type`: an ordinary packet [VIRTIO-NET-HDR].
pub const VNET_HDR_GSO_NONE: u8 = 0;
/// `gso_type`: an IPv4 TCP super-packet [VIRTIO-NET-HDR].
pub const VNET_HDR_GSO_TCPV4: u8 = 1;
/// `gso_type` bit: the super-packet carries CWR, to be set on its first segment only
/// [VIRTIO-NET-HDR].
pub const VNET_HDR_GSO_ECN: u8 = 0x80;
/// Longest IPv4 packet: the total length field is 16 bits [RFC791 §3.1].
pub const MAX_IPV4_PACKET_BYTES: usize = 65_535;
/// A read buffer that holds any frame of an offload device: the header and the longest
/// IPv4 packet.
pub const MAX_FRAME_BYTES: usize = VNET_HDR_BYTES + MAX_IPV4_PACKET_BYTES;

/// IANA protocol number of TCP [RFC791 §3.1].
const IPPROTO_TCP: u8 = 6;
/// TCP flag bits in byte 13 of the header [RFC9293 §3.1].
const TCP_FIN: u8 = 0x01;
const TCP_SYN: u8 = 0x02;
const TCP_RST: u8 = 0x04;
const TCP_PSH: u8 = 0x08;
const TCP_URG: u8 = 0x20;
const TCP_CWR: u8 = 0x80;
/// Offset of the checksum in the TCP header [RFC9293 §3.1].
const TCP_CSUM_OFFSET: usize = 16;
/// Longest IPv4 plus TCP header: 60 bytes each (4-bit lengths in 32-bit words).
const MAX_HEADERS_BYTES: usize = 120;

/// The `struct virtio_net_hdr` in front of every packet of an offload device
/// [VIRTIO-NET-HDR].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VnetHdr {
    /// `VNET_HDR_F_*` bits.
    pub flags: u8,
    /// `VNET_HDR_GSO_*`, with [`VNET_HDR_GSO_ECN`] possibly or-ed in.
    pub gso_type: u8,
    /// Bytes of headers (a hint on reads: the kernel puts its linear part there).
    pub hdr_len: u16,
    /// Payload bytes of each segment of a super-packet.
    pub gso_size: u16,
    /// Where the checksummed range starts, bytes from the IP header.
    pub csum_start: u16,
    /// Where the checksum lies, bytes from `csum_start`.
    pub csum_offset: u16,
}

impl VnetHdr {
    /// Decodes the first [`VNET_HDR_BYTES`] of `bytes` (little-endian fields); `None` if
    /// shorter.
    pub fn decode(bytes: &[u8]) -> Option<VnetHdr> {
        let b = bytes.get(..VNET_HDR_BYTES)?;
        let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        Some(VnetHdr {
            flags: b[0],
            gso_type: b[1],
            hdr_len: u16_at(2),
            gso_size: u16_at(4),
            csum_start: u16_at(6),
            csum_offset: u16_at(8),
        })
    }

    /// The header's bytes (little-endian fields).
    pub fn encode(&self) -> [u8; VNET_HDR_BYTES] {
        let mut b = [0u8; VNET_HDR_BYTES];
        b[0] = self.flags;
        b[1] = self.gso_type;
        b[2..4].copy_from_slice(&self.hdr_len.to_le_bytes());
        b[4..6].copy_from_slice(&self.gso_size.to_le_bytes());
        b[6..8].copy_from_slice(&self.csum_start.to_le_bytes());
        b[8..10].copy_from_slice(&self.csum_offset.to_le_bytes());
        b
    }
}

/// Why a frame read from an offload device was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Shorter than the virtio-net header.
    ShortFrame,
    /// A GSO type other than TCPV4 (UDP, IPv6 TCP, or unknown): the raw `gso_type`.
    GsoType(u8),
    /// A TCPV4 super-packet whose bytes are not one well-formed, unfragmented IPv4 TCP
    /// packet, or whose `gso_size` is 0.
    NotTcpV4,
    /// `NEEDS_CSUM` with a checksum position outside the packet.
    ChecksumRange,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::ShortFrame => write!(f, "frame shorter than the virtio-net header"),
            Refusal::GsoType(t) => write!(f, "unsupported GSO type {t:#04x}"),
            Refusal::NotTcpV4 => write!(f, "TCPV4 super-packet that is not IPv4 TCP"),
            Refusal::ChecksumRange => write!(f, "checksum position outside the packet"),
        }
    }
}

/// Unfolded sum of the TCP pseudo-header [RFC9293 §3.1] of a segment of `tcp_bytes`
/// (TCP header plus payload, at most an IPv4 packet's 65 535) under the IPv4 header `ip`.
fn pseudo_header_sum(ip: &[u8], tcp_bytes: usize) -> u64 {
    let addr = |at: usize| [ip[at], ip[at + 1], ip[at + 2], ip[at + 3]];
    checksum::pseudo_header_sum(addr(12), addr(16), IPPROTO_TCP, tcp_bytes as u16)
}

/// Writes the IPv4 header checksum of `ip` (the header only) [RFC791 §3.1].
fn set_ipv4_checksum(ip: &mut [u8]) {
    ip[10..12].fill(0);
    let c = internet_checksum(ip);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
}

/// Writes the full TCP checksum of the IPv4 TCP packet `p` with an IPv4 header of
/// `ip_hl` bytes.
fn set_tcp_checksum(p: &mut [u8], ip_hl: usize) {
    let at = ip_hl + TCP_CSUM_OFFSET;
    p[at..at + 2].fill(0);
    let acc = ones_complement_add(pseudo_header_sum(&p[..ip_hl], p.len() - ip_hl), &p[ip_hl..]);
    p[at..at + 2].copy_from_slice(&(!fold(acc)).to_be_bytes());
}

fn be16(p: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([p[at], p[at + 1]])
}

fn be32(p: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([p[at], p[at + 1], p[at + 2], p[at + 3]])
}

/// IPv4 and TCP header lengths of `p` if it is one whole IPv4 TCP packet: version 4,
/// total length equal to the bytes, not a fragment (neither MF nor an offset), headers
/// within the bytes [RFC791 §3.1] [RFC9293 §3.1].
fn tcpv4_headers(p: &[u8]) -> Option<(usize, usize)> {
    if p.len() < 40 || p[0] >> 4 != 4 || p[9] != IPPROTO_TCP {
        return None;
    }
    let ip_hl = usize::from(p[0] & 0x0f) * 4;
    if ip_hl < 20 || usize::from(be16(p, 2)) != p.len() || be16(p, 6) & 0x3fff != 0 {
        return None;
    }
    let tcp_hl = usize::from(*p.get(ip_hl + 12)? >> 4) * 4;
    if tcp_hl < 20 || ip_hl + tcp_hl > p.len() {
        return None;
    }
    Some((ip_hl, tcp_hl))
}

/// Counters of a [`Segmenter`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SegmentStats {
    /// Frames offered.
    pub frames: u64,
    /// TCPV4 super-packets split.
    pub super_packets: u64,
    /// Packets handed on: segments of super-packets and packets without GSO.
    pub packets_out: u64,
    /// Packets without GSO whose `NEEDS_CSUM` checksum was completed.
    pub checksums_completed: u64,
    /// Frames refused (dropped).
    pub refused: u64,
    /// Longest IP packet read, bytes (above the MTU only if the kernel sent a
    /// super-packet).
    pub max_packet_bytes: usize,
}

/// Turns frames read from an offload device into MTU-sized IP packets with complete
/// checksums. It works in the caller's buffer: nothing is allocated or copied beyond
/// the headers.
#[derive(Debug, Default)]
pub struct Segmenter {
    stats: SegmentStats,
}

impl Segmenter {
    /// A segmenter with zero counters.
    pub fn new() -> Segmenter {
        Segmenter::default()
    }

    /// The counters so far.
    pub fn stats(&self) -> SegmentStats {
        self.stats
    }

    /// [`segment`](Self::segment) of a frame as read: header, then packet.
    pub fn segment_frame(
        &mut self,
        frame: &mut [u8],
        out: &mut impl FnMut(&[u8]),
    ) -> Result<usize, Refusal> {
        let Some(hdr) = VnetHdr::decode(frame) else {
            self.stats.frames += 1;
            self.stats.refused += 1;
            return Err(Refusal::ShortFrame);
        };
        self.segment(&hdr, &mut frame[VNET_HDR_BYTES..], out)
    }

    /// Hands `out` the IP packets that `packet`, read with the header `hdr`, stands for,
    /// in order, and returns how many: the packet itself (its checksum completed if
    /// `NEEDS_CSUM`) without GSO, its segments for TCPV4. `packet` is rewritten in place
    /// (each segment's headers are written over the end of the payload before it, which
    /// was already handed on). A refused frame hands nothing on and is counted.
    pub fn segment(
        &mut self,
        hdr: &VnetHdr,
        packet: &mut [u8],
        out: &mut impl FnMut(&[u8]),
    ) -> Result<usize, Refusal> {
        self.stats.frames += 1;
        self.stats.max_packet_bytes = self.stats.max_packet_bytes.max(packet.len());
        let r = match hdr.gso_type & !VNET_HDR_GSO_ECN {
            VNET_HDR_GSO_NONE => complete_checksum(hdr, packet).map(|completed| {
                self.stats.checksums_completed += u64::from(completed);
                out(packet);
                1
            }),
            VNET_HDR_GSO_TCPV4 => {
                let n = split_tcpv4(usize::from(hdr.gso_size), packet, out);
                if n.is_ok() {
                    self.stats.super_packets += 1;
                }
                n
            }
            _ => Err(Refusal::GsoType(hdr.gso_type)),
        };
        match r {
            Ok(n) => self.stats.packets_out += n as u64,
            Err(_) => self.stats.refused += 1,
        }
        r
    }
}

/// Finishes a `NEEDS_CSUM` checksum of any protocol: the sum from `csum_start` to the end,
/// the begun value in the field included, complemented into the field. A result of 0 is
/// written 0xffff, its one's-complement equal, since 0 means "no checksum" to UDP
/// (RFC 768). True if there was one to finish.
fn complete_checksum(hdr: &VnetHdr, packet: &mut [u8]) -> Result<bool, Refusal> {
    if hdr.flags & VNET_HDR_F_NEEDS_CSUM == 0 {
        return Ok(false);
    }
    let start = usize::from(hdr.csum_start);
    let at = start + usize::from(hdr.csum_offset);
    if at + 2 > packet.len() || start % 2 != 0 {
        return Err(Refusal::ChecksumRange);
    }
    let c = internet_checksum(&packet[start..]);
    let c = if c == 0 { 0xffff } else { c };
    packet[at..at + 2].copy_from_slice(&c.to_be_bytes());
    Ok(true)
}

/// Splits the IPv4 TCP super-packet `packet` into segments of `gso_size` payload bytes,
/// handing each to `out`; returns how many.
fn split_tcpv4(
    gso_size: usize,
    packet: &mut [u8],
    out: &mut impl FnMut(&[u8]),
) -> Result<usize, Refusal> {
    let (ip_hl, tcp_hl) = tcpv4_headers(packet).ok_or(Refusal::NotTcpV4)?;
    if gso_size == 0 {
        return Err(Refusal::NotTcpV4);
    }
    let hl = ip_hl + tcp_hl;
    let mut headers = [0u8; MAX_HEADERS_BYTES];
    headers[..hl].copy_from_slice(&packet[..hl]);
    let id0 = be16(&headers, 4);
    let seq0 = be32(&headers, ip_hl + 4);
    let flags0 = headers[ip_hl + 13];
    let payload = packet.len() - hl;
    let segments = payload.div_ceil(gso_size).max(1);
    for i in 0..segments {
        // Segment i's payload starts at hl + i·gso_size; its headers go in the hl bytes
        // before, the end of segment i−1, already handed on.
        let start = i * gso_size;
        let end = (hl + (i + 1) * gso_size).min(packet.len());
        let seg = &mut packet[start..end];
        seg[..hl].copy_from_slice(&headers[..hl]);
        let seg_bytes = seg.len() as u16;
        seg[2..4].copy_from_slice(&seg_bytes.to_be_bytes());
        seg[4..6].copy_from_slice(&id0.wrapping_add(i as u16).to_be_bytes());
        set_ipv4_checksum(&mut seg[..ip_hl]);
        let seq = seq0.wrapping_add((i * gso_size) as u32);
        seg[ip_hl + 4..ip_hl + 8].copy_from_slice(&seq.to_be_bytes());
        let mut flags = flags0;
        if i + 1 < segments {
            flags &= !(TCP_FIN | TCP_PSH);
        }
        if i > 0 {
            flags &= !TCP_CWR;
        }
        seg[ip_hl + 13] = flags;
        set_tcp_checksum(seg, ip_hl);
        out(seg);
    }
    Ok(segments)
}

/// Counters of a [`Coalescer`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoalesceStats {
    /// Packets offered.
    pub packets: u64,
    /// Frames emitted (each one write).
    pub frames: u64,
    /// Frames that are super-packets (two segments or more).
    pub super_frames: u64,
    /// Segments carried in super-packets.
    pub merged_segments: u64,
    /// Longest IP packet emitted, bytes.
    pub max_packet_bytes: usize,
}

/// The super-packet being built.
#[derive(Clone, Copy, Debug)]
struct Pending {
    ip_hl: usize,
    tcp_hl: usize,
    /// Payload bytes of the first segment: every other one has as many, or fewer if last.
    segment_payload: usize,
    next_seq: u32,
    segments: u32,
    /// A short segment or one with PSH joined: nothing more may.
    closed: bool,
    last_psh: bool,
}

/// Merges consecutive in-order TCP segments of one connection, offered in the order they
/// are to be written to one device, into super-packets; emits every frame (header, then
/// packet) ready to write. See the module documentation for the rule.
///
/// Offer a turn's packets with [`push`](Self::push), then [`flush`](Self::flush): a
/// segment is held until the next packet or the flush says whether more joins it.
#[derive(Debug)]
pub struct Coalescer {
    /// The frame being built (or the one being emitted): header, then IP packet.
    buf: Vec<u8>,
    pending: Option<Pending>,
    max_packet_bytes: usize,
    stats: CoalesceStats,
}

impl Default for Coalescer {
    fn default() -> Self {
        Coalescer::new()
    }
}

impl Coalescer {
    /// A coalescer of super-packets up to the longest IPv4 packet.
    pub fn new() -> Coalescer {
        Coalescer::with_max_packet_bytes(MAX_IPV4_PACKET_BYTES)
    }

    /// A coalescer of super-packets up to `max_packet_bytes` of IP packet (at most
    /// [`MAX_IPV4_PACKET_BYTES`]).
    pub fn with_max_packet_bytes(max_packet_bytes: usize) -> Coalescer {
        Coalescer {
            buf: Vec::with_capacity(MAX_FRAME_BYTES),
            pending: None,
            max_packet_bytes: max_packet_bytes.min(MAX_IPV4_PACKET_BYTES),
            stats: CoalesceStats::default(),
        }
    }

    /// The counters so far.
    pub fn stats(&self) -> CoalesceStats {
        self.stats
    }

    /// True while a segment is held.
    pub fn is_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// Offers `packet` (an IP packet with complete checksums) as the next to write. Frames
    /// it completes are handed to `emit`, in order.
    pub fn push(&mut self, packet: &[u8], emit: &mut impl FnMut(&[u8])) {
        self.stats.packets += 1;
        let Some((ip_hl, tcp_hl)) = tcpv4_headers(packet) else {
            self.flush(emit);
            self.emit_alone(packet, emit);
            return;
        };
        let payload = packet.len() - ip_hl - tcp_hl;
        if let Some(p) = self.pending {
            if self.joins(&p, packet, ip_hl, tcp_hl, payload) {
                self.buf.extend_from_slice(&packet[ip_hl + tcp_hl..]);
                let psh = packet[ip_hl + 13] & TCP_PSH != 0;
                self.pending = Some(Pending {
                    next_seq: p.next_seq.wrapping_add(payload as u32),
                    segments: p.segments + 1,
                    closed: psh || payload < p.segment_payload,
                    last_psh: psh,
                    ..p
                });
                return;
            }
            self.flush(emit);
        }
        let flags = packet[ip_hl + 13];
        if payload == 0 || flags & (TCP_SYN | TCP_FIN | TCP_RST | TCP_URG | TCP_PSH) != 0 {
            // Nothing may join it (GRO's rule): no need to hold it.
            self.emit_alone(packet, emit);
            return;
        }
        self.buf.clear();
        self.buf.extend_from_slice(&[0u8; VNET_HDR_BYTES]);
        self.buf.extend_from_slice(packet);
        self.pending = Some(Pending {
            ip_hl,
            tcp_hl,
            segment_payload: payload,
            next_seq: be32(packet, ip_hl + 4).wrapping_add(payload as u32),
            segments: 1,
            closed: false,
            last_psh: false,
        });
    }

    /// Emits the held super-packet or segment, if any: the end of a turn.
    pub fn flush(&mut self, emit: &mut impl FnMut(&[u8])) {
        let Some(p) = self.pending.take() else {
            return;
        };
        if p.segments > 1 {
            self.finish_super_packet(&p);
            self.stats.super_frames += 1;
            self.stats.merged_segments += u64::from(p.segments);
        }
        // A single segment stays as it came, after a zero header.
        self.emit_buf(emit);
    }

    /// True if the segment `packet` may join the pending super-packet `p`.
    fn joins(
        &self,
        p: &Pending,
        packet: &[u8],
        ip_hl: usize,
        tcp_hl: usize,
        payload: usize,
    ) -> bool {
        if p.closed
            || ip_hl != p.ip_hl
            || tcp_hl != p.tcp_hl
            || payload == 0
            || payload > p.segment_payload
            || self.buf.len() - VNET_HDR_BYTES + payload > self.max_packet_bytes
            || be32(packet, ip_hl + 4) != p.next_seq
        {
            return false;
        }
        let first = &self.buf[VNET_HDR_BYTES..VNET_HDR_BYTES + ip_hl + tcp_hl];
        // IPv4: all but total length (2..4), identification (4..6) and checksum (10..12).
        let ip_same = first[..2] == packet[..2]
            && first[6..10] == packet[6..10]
            && first[12..ip_hl] == packet[12..ip_hl];
        let (f, c) = (&first[ip_hl..], &packet[ip_hl..ip_hl + tcp_hl]);
        // TCP: all but the sequence number (4..8), the checksum (16..18) and PSH; CWR may
        // only be on the first segment.
        let flags_ok = c[13] & (TCP_SYN | TCP_FIN | TCP_RST | TCP_URG | TCP_CWR) == 0
            && (f[13] ^ c[13]) & !(TCP_PSH | TCP_CWR) == 0;
        let tcp_same = f[..4] == c[..4]
            && f[8..13] == c[8..13]
            && f[14..16] == c[14..16]
            && f[18..] == c[18..];
        ip_same && flags_ok && tcp_same
    }

    /// Turns the merged segments in `buf` into one super-packet: the first's headers with
    /// the whole length, a new IPv4 checksum, PSH of the last, the pseudo-header sum in
    /// the TCP checksum, and the header describing it.
    fn finish_super_packet(&mut self, p: &Pending) {
        let packet = &mut self.buf[VNET_HDR_BYTES..];
        let (ip_hl, len) = (p.ip_hl, packet.len());
        packet[2..4].copy_from_slice(&(len as u16).to_be_bytes());
        set_ipv4_checksum(&mut packet[..ip_hl]);
        if p.last_psh {
            packet[ip_hl + 13] |= TCP_PSH;
        }
        let cwr = packet[ip_hl + 13] & TCP_CWR != 0;
        let begun = fold(pseudo_header_sum(&packet[..ip_hl], len - ip_hl));
        let at = ip_hl + TCP_CSUM_OFFSET;
        packet[at..at + 2].copy_from_slice(&begun.to_be_bytes());
        let hdr = VnetHdr {
            flags: VNET_HDR_F_NEEDS_CSUM,
            gso_type: VNET_HDR_GSO_TCPV4 | if cwr { VNET_HDR_GSO_ECN } else { 0 },
            hdr_len: (ip_hl + p.tcp_hl) as u16,
            gso_size: p.segment_payload as u16,
            csum_start: ip_hl as u16,
            csum_offset: TCP_CSUM_OFFSET as u16,
        };
        self.buf[..VNET_HDR_BYTES].copy_from_slice(&hdr.encode());
    }

    /// Emits `packet` on its own after a zero header (nothing held).
    fn emit_alone(&mut self, packet: &[u8], emit: &mut impl FnMut(&[u8])) {
        debug_assert!(self.pending.is_none());
        self.buf.clear();
        self.buf.extend_from_slice(&[0u8; VNET_HDR_BYTES]);
        self.buf.extend_from_slice(packet);
        self.emit_buf(emit);
    }

    fn emit_buf(&mut self, emit: &mut impl FnMut(&[u8])) {
        self.stats.frames += 1;
        let packet_bytes = self.buf.len() - VNET_HDR_BYTES;
        self.stats.max_packet_bytes = self.stats.max_packet_bytes.max(packet_bytes);
        emit(&self.buf);
        self.buf.clear();
    }
}
