//! Tests of the pcap writer, by theme: [`headers`] (checksums, the address plan, file,
//! record, IPv4 and UDP headers), [`tcp`] (TCP options and a round trip of arbitrary TCP
//! headers) and [`tshark`] (Wireshark's reader on handcrafted flows, where installed).
//!
//! This file holds what they share: an independent reader of the files the writer
//! produces (records, checksums, TCP options), written apart from the writer's own code,
//! and builders of packets, of captures and of the handcrafted TCP flow that the IPv4
//! header and tshark tests both use.

use super::*;
use crate::packet::{SackBlock, SynOptions, TcpFlags, UdpHeader};

mod headers;
mod tcp;
mod tshark;

// ----- An independent reader for what the writer produces -----

struct Record {
    secs: u32,
    nanos: u32,
    orig_len: u32,
    frame: Vec<u8>,
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn records(file: &[u8]) -> Vec<Record> {
    assert_eq!(le32(file, 0), 0xa1b2_3c4d, "magic");
    let mut at = 24;
    let mut out = Vec::new();
    while at < file.len() {
        let incl = le32(file, at + 8) as usize;
        out.push(Record {
            secs: le32(file, at),
            nanos: le32(file, at + 4),
            orig_len: le32(file, at + 12),
            frame: file[at + 16..at + 16 + incl].to_vec(),
        });
        at += 16 + incl;
    }
    assert_eq!(at, file.len(), "records end exactly at the end of the file");
    out
}

/// RFC 1071 verification, written differently from the writer's arithmetic: bytes go
/// one at a time into a 16-bit register with an end-around carry after every addition.
/// Data that contains its correct checksum sums to 0xffff (negative zero).
fn sums_to_all_ones(data: &[u8]) -> bool {
    let mut sum: u32 = 0;
    for (i, &b) in data.iter().enumerate() {
        sum += if i % 2 == 0 {
            (b as u32) << 8
        } else {
            b as u32
        };
        if sum > 0xffff {
            sum -= 0xffff;
        }
    }
    sum == 0xffff
}

/// Checks the TCP/UDP checksum of a captured frame by rebuilding the pseudo-header and
/// the whole segment, its zero payload materialised byte by byte.
fn transport_checksum_ok(frame: &[u8]) -> bool {
    let ip = &frame[14..34];
    let segment_len = be16(ip, 2) as usize - 20;
    let mut data = Vec::new();
    data.extend_from_slice(&ip[12..20]); // source and destination address
    data.extend_from_slice(&[0, ip[9]]);
    data.extend_from_slice(&(segment_len as u16).to_be_bytes());
    data.extend_from_slice(&frame[34..]);
    data.resize(12 + segment_len, 0);
    sums_to_all_ones(&data)
}

#[derive(Debug, Default, PartialEq)]
struct Options {
    mss: Option<u16>,
    wscale: Option<u8>,
    sack_permitted: bool,
    timestamps: Option<(u32, u32)>,
    sack: Vec<(u32, u32)>,
}

fn parse_options(mut o: &[u8]) -> Options {
    let mut out = Options::default();
    while let Some(&kind) = o.first() {
        match kind {
            0 => {
                assert!(o.iter().all(|&b| b == 0), "only zeros after EOL");
                break;
            }
            1 => {
                o = &o[1..];
                continue;
            }
            _ => {}
        }
        let len = o[1] as usize;
        let body = &o[2..len];
        match (kind, len) {
            (2, 4) => out.mss = Some(be16(body, 0)),
            (3, 3) => out.wscale = Some(body[0]),
            (4, 2) => out.sack_permitted = true,
            (8, 10) => out.timestamps = Some((be32(body, 0), be32(body, 4))),
            (5, _) => {
                assert_eq!((len - 2) % 8, 0, "SACK length");
                out.sack = body.chunks(8).map(|c| (be32(c, 0), be32(c, 4))).collect();
            }
            _ => panic!("unexpected option kind {kind} length {len}"),
        }
        o = &o[len..];
    }
    out
}

// ----- Builders -----

const SENDER: NodeId = NodeId(1);
const RECEIVER: NodeId = NodeId(2);
const FLOW: FlowId = FlowId(7);
const ACK: TcpFlags = TcpFlags {
    syn: false,
    ack: true,
    fin: false,
};

fn tcp_packet(flow: FlowId, h: TcpHeader) -> Packet {
    let (src, dst) = if h.from_receiver {
        (RECEIVER, SENDER)
    } else {
        (SENDER, RECEIVER)
    };
    Packet {
        flow,
        src,
        dst,
        size_bytes: h.header_bytes() + h.payload_bytes,
        sent_at: SimTime::ZERO,
        enqueued_at: SimTime::ZERO,
        transport: Transport::Tcp(h),
        tunnel: None,
    }
}

fn udp_packet(flow: FlowId, seq: u64, payload_bytes: u32) -> Packet {
    Packet {
        flow,
        src: NodeId(5),
        dst: NodeId(6),
        size_bytes: IPV4_HEADER_BYTES + UDP_HEADER_BYTES + payload_bytes,
        sent_at: SimTime::ZERO,
        enqueued_at: SimTime::ZERO,
        transport: Transport::Udp(UdpHeader { seq, payload_bytes }),
        tunnel: None,
    }
}

fn sack(blocks: &[(u64, u64)]) -> ([SackBlock; 4], u8) {
    let mut out = [SackBlock::default(); 4];
    for (o, &(start, end)) in out.iter_mut().zip(blocks) {
        *o = SackBlock { start, end };
    }
    (out, blocks.len() as u8)
}

fn capture(packets: &[(SimTime, Packet)]) -> Vec<u8> {
    let mut w = PcapWriter::new(Vec::new()).unwrap();
    for (t, p) in packets {
        w.write(*t, p).unwrap();
    }
    assert_eq!(w.packets_written(), packets.len() as u64);
    w.into_inner().unwrap()
}

fn single_record(p: &Packet) -> Record {
    let mut r = records(&capture(&[(SimTime::ZERO, *p)]));
    assert_eq!(r.len(), 1);
    r.pop().unwrap()
}

// ----- A handcrafted TCP flow -----

/// The handcrafted flow: handshake with SYN options (sender window scale 7, receiver
/// 9), five 1000-byte segments of which the second is lost after the capture point,
/// three SACK-carrying duplicate ACKs, the retransmission, the cumulative ACK and a FIN
/// exchange. Times in ms.
fn handcrafted_flow() -> Vec<(u64, TcpHeader)> {
    let data = |ms: u64, seq: u64, retransmission: bool| {
        (
            ms,
            TcpHeader {
                seq,
                ack: 1,
                payload_bytes: 1000,
                flags: ACK,
                window_field: 502,
                timestamps: Some((1000 * ms as u32, 500)),
                retransmission,
                ..TcpHeader::default()
            },
        )
    };
    let ack = |ms: u64, ack: u64, blocks: &[(u64, u64)]| {
        let (sack, sack_len) = sack(blocks);
        (
            ms,
            TcpHeader {
                from_receiver: true,
                seq: 1,
                ack,
                flags: ACK,
                window_field: 1000,
                timestamps: Some((500 + ms as u32, 1000 * ms as u32)),
                sack,
                sack_len,
                ..TcpHeader::default()
            },
        )
    };
    let fin = TcpFlags { fin: true, ..ACK };
    vec![
        (
            0,
            TcpHeader {
                flags: TcpFlags {
                    syn: true,
                    ack: false,
                    fin: false,
                },
                window_field: 64240,
                timestamps: Some((0, 0)),
                syn_options: Some(SynOptions {
                    mss: 1460,
                    wscale: Some(7),
                    sack_permitted: true,
                }),
                ..TcpHeader::default()
            },
        ),
        (
            10,
            TcpHeader {
                from_receiver: true,
                ack: 1,
                flags: TcpFlags {
                    syn: true,
                    ack: true,
                    fin: false,
                },
                window_field: 65160,
                timestamps: Some((500, 0)),
                syn_options: Some(SynOptions {
                    mss: 1460,
                    wscale: Some(9),
                    sack_permitted: true,
                }),
                ..TcpHeader::default()
            },
        ),
        (
            20,
            TcpHeader {
                seq: 1,
                ack: 1,
                flags: ACK,
                window_field: 502,
                timestamps: Some((20_000, 510)),
                ..TcpHeader::default()
            },
        ),
        data(21, 1, false),
        data(21, 1001, false),
        data(21, 2001, false),
        data(22, 3001, false),
        data(22, 4001, false),
        ack(31, 1001, &[]),
        ack(32, 1001, &[(2001, 3001)]),
        ack(32, 1001, &[(2001, 4001)]),
        ack(33, 1001, &[(2001, 5001)]),
        data(33, 1001, true),
        ack(43, 5001, &[]),
        (
            44,
            TcpHeader {
                seq: 5001,
                ack: 1,
                flags: fin,
                window_field: 502,
                timestamps: Some((44_000, 543)),
                ..TcpHeader::default()
            },
        ),
        (
            54,
            TcpHeader {
                from_receiver: true,
                seq: 1,
                ack: 5002,
                flags: fin,
                window_field: 1000,
                timestamps: Some((554, 44_000)),
                ..TcpHeader::default()
            },
        ),
        (
            64,
            TcpHeader {
                seq: 5002,
                ack: 2,
                flags: ACK,
                window_field: 502,
                timestamps: Some((64_000, 554)),
                ..TcpHeader::default()
            },
        ),
    ]
}
