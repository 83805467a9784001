use super::*;
use crate::packet::{SackBlock, SynOptions, TcpFlags, UdpHeader};
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Command;

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

// ----- Checksums -----

#[test]
fn rfc1071_numeric_example() {
    // RFC 1071 §3: the bytes 00 01 f2 03 f4 f5 f6 f7 add up to 0x2ddf0, which folds
    // to 0xddf2; the checksum is its complement.
    let bytes = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
    assert_eq!(fold(ones_complement_add(0, &bytes)), 0xddf2);
    assert_eq!(internet_checksum(&bytes), 0x220d);
    // An odd length is padded with a zero byte: 01 02 03 = 0x0102 + 0x0300.
    assert_eq!(fold(ones_complement_add(0, &[1, 2, 3])), 0x0402);
}

#[test]
fn ipv4_header_checksum_worked_example() {
    // 192.168.0.1 -> 192.168.0.199, UDP, total length 115, DF, TTL 64.
    // 4500 + 0073 + 0000 + 4000 + 4011 + c0a8 + 0001 + c0a8 + 00c7 = 0x2479c;
    // folded 0x479c + 0x2 = 0x479e; complement 0xb861.
    let mut header = [
        0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00,
        0x01, 0xc0, 0xa8, 0x00, 0xc7,
    ];
    assert_eq!(internet_checksum(&header), 0xb861);
    header[10..12].copy_from_slice(&0xb861u16.to_be_bytes());
    assert_eq!(internet_checksum(&header), 0);
    assert!(sums_to_all_ones(&header));
}

#[test]
fn first_record_has_the_hand_computed_ip_header() {
    let flow = handcrafted_flow();
    let r = single_record(&tcp_packet(FLOW, flow[0].1));
    // The SYN: 20 B IP + 20 B TCP + 20 B options = 60 B total, id 0, DF, TTL 64,
    // TCP, 10.0.0.2 -> 10.0.0.3. Sum: 4500 + 003c + 0000 + 4000 + 4006 + 0a00 + 0002
    // + 0a00 + 0003 = 0xd947, no carry; complement 0x26b8.
    let expected = [
        0x45, 0x00, 0x00, 0x3c, 0x00, 0x00, 0x40, 0x00, 0x40, 0x06, 0x26, 0xb8, 10, 0, 0, 2, 10, 0,
        0, 3,
    ];
    assert_eq!(r.frame[14..34], expected);
    // Ethernet: to 02:00:00:00:00:02 from 02:00:00:00:00:01, IPv4.
    assert_eq!(
        r.frame[..14],
        [2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00]
    );
    assert_eq!(r.frame.len(), 74);
    assert_eq!(r.orig_len, 74);
}

proptest! {
    #[test]
    fn a_header_including_its_checksum_sums_to_zero(mut header in any::<[u8; 20]>()) {
        header[10] = 0;
        header[11] = 0;
        let c = internet_checksum(&header);
        header[10..12].copy_from_slice(&c.to_be_bytes());
        prop_assert_eq!(internet_checksum(&header), 0);
        prop_assert!(sums_to_all_ones(&header));
    }
}

// ----- TCP options -----

fn all_option_combinations() -> Vec<TcpHeader> {
    let mut out = Vec::new();
    let mut syn_variants = vec![None];
    for wscale in [None, Some(0), Some(14)] {
        for sack_permitted in [false, true] {
            syn_variants.push(Some(SynOptions {
                mss: 1460,
                wscale,
                sack_permitted,
            }));
        }
    }
    for syn_options in syn_variants {
        for timestamps in [None, Some((0x0102_0304, 0xa0b0_c0d0))] {
            for sack_len in 0..=4u8 {
                let (sack, _) = sack(&[(10, 20), (30, 40), (50, 60), (70, 80)]);
                out.push(TcpHeader {
                    syn_options,
                    timestamps,
                    sack,
                    sack_len,
                    flags: TcpFlags {
                        syn: syn_options.is_some(),
                        ack: true,
                        fin: false,
                    },
                    ..TcpHeader::default()
                });
            }
        }
    }
    out
}

#[test]
fn option_lengths_match_options_bytes_for_every_combination() {
    let peer_isn = 0xffff_fff0; // SACK edges wrap around 2^32
    for h in all_option_combinations() {
        let (opts, len, omitted) = encode_tcp_options(&h, peer_isn);
        let accounted = h.options_bytes();
        let parsed = parse_options(&opts[..len]);
        let kept = parsed.sack.len();
        if accounted <= 40 {
            assert_eq!(len as u32, accounted, "{h:?}");
            assert_eq!(omitted, 0, "{h:?}");
            assert_eq!(kept, h.sack_len as usize);
        } else {
            // Only whole SACK blocks are left out, no more than needed to fit.
            let with = |k: usize| {
                TcpHeader {
                    sack_len: k as u8,
                    ..h
                }
                .options_bytes()
            };
            assert!(kept < h.sack_len as usize, "{h:?}");
            assert_eq!(len as u32, with(kept), "{h:?}");
            assert!(with(kept + 1) > 40, "{h:?}");
            assert_eq!(omitted, accounted - len as u32, "{h:?}");
        }
        let o = h.syn_options;
        assert_eq!(parsed.mss, o.map(|o| o.mss), "{h:?}");
        assert_eq!(parsed.wscale, o.and_then(|o| o.wscale), "{h:?}");
        assert_eq!(parsed.sack_permitted, o.is_some_and(|o| o.sack_permitted));
        assert_eq!(parsed.timestamps, h.timestamps, "{h:?}");
        let expected_sack: Vec<(u32, u32)> = h.sack_blocks()[..kept]
            .iter()
            .map(|b| {
                let wrap = |s: u64| ((peer_isn as u64 + s) % (1 << 32)) as u32;
                (wrap(b.start), wrap(b.end))
            })
            .collect();
        assert_eq!(parsed.sack, expected_sack, "{h:?}");
    }
}

#[test]
fn options_follow_the_linux_layout_where_the_padding_allows() {
    let syn = |wscale: Option<u8>, sack_permitted: bool, ts: bool| TcpHeader {
        syn_options: Some(SynOptions {
            mss: 0x05b4,
            wscale,
            sack_permitted,
        }),
        timestamps: ts.then_some((1, 2)),
        ..TcpHeader::default()
    };
    let enc = |h: TcpHeader| {
        let (o, len, _) = encode_tcp_options(&h, 0);
        o[..len].to_vec()
    };
    let ts = [8, 10, 0, 0, 0, 1, 0, 0, 0, 2];
    let mss = [2, 4, 0x05, 0xb4];
    // SYN, everything: MSS, SACK-permitted, timestamps, NOP, window scale (20 B).
    let mut full = mss.to_vec();
    full.extend([4, 2]);
    full.extend(ts);
    full.extend([1, 3, 3, 7]);
    assert_eq!(enc(syn(Some(7), true, true)), full);
    // Without timestamps: MSS, NOP, NOP, SACK-permitted, NOP, window scale (12 B).
    let mut no_ts = mss.to_vec();
    no_ts.extend([1, 1, 4, 2, 1, 3, 3, 7]);
    assert_eq!(enc(syn(Some(7), true, false)), no_ts);
    // Without SACK-permitted: MSS, NOP, NOP, timestamps, NOP, window scale (20 B).
    let mut no_sack = mss.to_vec();
    no_sack.extend([1, 1]);
    no_sack.extend(ts);
    no_sack.extend([1, 3, 3, 7]);
    assert_eq!(enc(syn(Some(7), false, true)), no_sack);
    // MSS alone.
    assert_eq!(enc(syn(None, false, false)), mss);

    // Data segment: NOP, NOP, timestamps (12 B).
    let data = TcpHeader {
        timestamps: Some((1, 2)),
        ..TcpHeader::default()
    };
    let mut nop_ts = vec![1, 1];
    nop_ts.extend(ts);
    assert_eq!(enc(data), nop_ts);
    // SACK alone: NOP, NOP, SACK (12 B).
    let (blocks, n) = sack(&[(0x0102_0304, 0x0506_0708)]);
    let sack_only = TcpHeader {
        sack: blocks,
        sack_len: n,
        ..TcpHeader::default()
    };
    assert_eq!(
        enc(sack_only),
        [1, 1, 5, 10, 1, 2, 3, 4, 5, 6, 7, 8].to_vec()
    );
    // Timestamps and SACK: 10 + 10 = 20 B accounted, no room for Linux's four NOPs.
    let both = TcpHeader {
        timestamps: Some((1, 2)),
        ..sack_only
    };
    let mut tight = ts.to_vec();
    tight.extend([5, 10, 1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(enc(both), tight);
}

#[test]
fn overlong_options_shorten_the_frame_by_the_omitted_block() {
    let (blocks, n) = sack(&[(1, 2), (3, 4), (5, 6), (7, 8)]);
    let h = TcpHeader {
        from_receiver: true,
        flags: ACK,
        timestamps: Some((1, 2)),
        sack: blocks,
        sack_len: n,
        ..TcpHeader::default()
    };
    let p = tcp_packet(FLOW, h);
    assert_eq!(p.size_bytes, 84); // 20 + 20 + 10 + 34 padded to 44
    let r = single_record(&p);
    assert_eq!(r.frame[46] >> 4, 14); // 20 + 36 bytes of TCP header
    assert_eq!(be16(&r.frame, 16), 76); // IP total length
    assert_eq!(r.orig_len, 14 + 76);
    assert!(transport_checksum_ok(&r.frame));
    assert_eq!(parse_options(&r.frame[54..]).sack.len(), 3);
}

// ----- Address plan, file and record headers -----

#[test]
fn address_and_port_plan() {
    assert_eq!(node_ipv4(NodeId(0)), [10, 0, 0, 1]);
    assert_eq!(node_ipv4(NodeId(1)), [10, 0, 0, 2]);
    assert_eq!(node_ipv4(NodeId(255)), [10, 0, 1, 0]);
    assert_eq!(node_ipv4(NodeId(16_777_213)), [10, 255, 255, 254]);
    assert_eq!(node_ipv4(NodeId(16_777_214)), [10, 0, 0, 1]);
    assert_eq!(
        node_ipv4(NodeId(u32::MAX)),
        node_ipv4(NodeId(u32::MAX % 16_777_214))
    );
    assert_eq!(node_mac(NodeId(0x0102_0304)), [2, 0, 1, 2, 3, 4]);
    assert_eq!(flow_ports(FlowId(0)), (40_000, 20_000));
    assert_eq!(flow_ports(FlowId(3)), (40_003, 20_000));
    assert_eq!(flow_ports(FlowId(19_999)), (59_999, 20_000));
    assert_eq!(flow_ports(FlowId(20_000)), (40_000, 20_001));
    // 4294967295 = 214748 * 20000 + 7295 and 214748 = 10 * 20000 + 14748.
    assert_eq!(flow_ports(FlowId(u32::MAX)), (47_295, 34_748));
    let mut owner = std::collections::HashMap::new();
    for f in (0..400_000_000).step_by(9_973).chain(0..50_000) {
        let first = *owner.entry(flow_ports(FlowId(f))).or_insert(f);
        assert_eq!(first, f, "flows {first} and {f} share ports");
    }
}

#[test]
fn initial_sequence_numbers_are_fixed_and_differ_by_direction() {
    // Pinned so that captures stay comparable between versions.
    assert_eq!(initial_sequence_number(FlowId(7), false), 1_789_515_284);
    assert_eq!(
        initial_sequence_number(FlowId(7), true),
        initial_sequence_number(FlowId(7), true)
    );
    let isns: std::collections::HashSet<u32> = (0..1000)
        .flat_map(|f| [false, true].map(|d| initial_sequence_number(FlowId(f), d)))
        .collect();
    assert_eq!(isns.len(), 2000);
}

#[test]
fn global_and_record_headers() {
    let p = udp_packet(FlowId(0), 0, 100);
    let mut w = PcapWriter::new(Vec::new()).unwrap();
    w.write(SimTime::from_ns(1_500_000_001), &p).unwrap();
    let file = w.into_inner().unwrap();
    assert_eq!(
        file[..24],
        [
            0x4d, 0x3c, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0,
            0
        ]
    );
    let r = &records(&file)[0];
    assert_eq!((r.secs, r.nanos), (946_684_801, 500_000_001));
    assert_eq!(r.frame.len(), 14 + 20 + 8);
    assert_eq!(r.orig_len, 14 + 128);
}

#[test]
fn unwritable_packets_are_rejected_without_output() {
    let mut w = PcapWriter::new(Vec::new()).unwrap();
    let big = udp_packet(FlowId(0), 0, 65_535 - 28 + 1);
    let e = w.write(SimTime::ZERO, &big).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    let late = SimTime::from_secs(u32::MAX as u64 - CAPTURE_EPOCH_SECS as u64 + 1);
    let e = w.write(late, &udp_packet(FlowId(0), 0, 1)).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    let largest = udp_packet(FlowId(0), 0, 65_535 - 28);
    w.write(late - SimTime::from_secs(1), &largest).unwrap();
    assert_eq!(w.packets_written(), 1);
    assert_eq!(records(&w.into_inner().unwrap()).len(), 1);
}

#[test]
fn identification_counts_packets_and_wraps() {
    let p = udp_packet(FlowId(0), 0, 10);
    let mut w = PcapWriter::new(Vec::new()).unwrap();
    for _ in 0..65_538 {
        w.write(SimTime::ZERO, &p).unwrap();
    }
    let file = w.into_inner().unwrap();
    let ids: Vec<u16> = records(&file).iter().map(|r| be16(&r.frame, 18)).collect();
    assert_eq!(ids[..3], [0, 1, 2]);
    assert_eq!(ids[65_535..], [65_535, 0, 1]);
}

#[test]
fn udp_datagram_fields() {
    let r = single_record(&udp_packet(FlowId(20_003), 9, 1201));
    let f = &r.frame;
    assert_eq!(f[14 + 9], 17);
    assert_eq!(be16(f, 16), 1229);
    assert_eq!(f[26..34], [10, 0, 0, 6, 10, 0, 0, 7]);
    assert_eq!(be16(f, 34), 40_003);
    assert_eq!(be16(f, 36), 20_001);
    assert_eq!(be16(f, 38), 1209);
    assert!(sums_to_all_ones(&f[14..34]));
    assert!(transport_checksum_ok(f));
}

#[test]
fn udp_checksum_zero_is_sent_as_all_ones() {
    // The length enters the sum twice (pseudo-header and UDP header), so some payload
    // length makes the computed checksum 0; RFC 768 then sends 0xffff.
    let found = (0..=65_507)
        .map(|n| single_record(&udp_packet(FlowId(1), 0, n)))
        .find(|r| be16(&r.frame, 40) == 0xffff)
        .expect("a payload length whose computed checksum is zero");
    assert!(transport_checksum_ok(&found.frame));
}

// ----- Round trip of arbitrary TCP headers -----

fn arb_tcp_header() -> impl Strategy<Value = TcpHeader> {
    let syn =
        prop::option::of((any::<u16>(), prop::option::of(0u8..=14), any::<bool>())).prop_map(|o| {
            o.map(|(mss, wscale, sack_permitted)| SynOptions {
                mss,
                wscale,
                sack_permitted,
            })
        });
    let blocks = prop::collection::vec((any::<u64>(), any::<u64>()), 0..=4);
    (
        (any::<bool>(), any::<u64>(), any::<u64>(), 0u32..=1448),
        (any::<[bool; 3]>(), any::<u16>()),
        (prop::option::of(any::<(u32, u32)>()), blocks, syn),
    )
        .prop_map(
            |((from_receiver, seq, ack, payload_bytes), (f, window_field), (ts, b, syn))| {
                let (sack, sack_len) = sack(&b);
                TcpHeader {
                    from_receiver,
                    seq,
                    ack,
                    payload_bytes,
                    flags: TcpFlags {
                        syn: f[0],
                        ack: f[1],
                        fin: f[2],
                    },
                    window_field,
                    timestamps: ts,
                    sack,
                    sack_len,
                    syn_options: syn,
                    retransmission: false,
                }
            },
        )
}

proptest! {
    #[test]
    fn tcp_headers_round_trip(
        h in arb_tcp_header(),
        flow in any::<u32>(),
        src in any::<u32>(),
        dst in any::<u32>(),
    ) {
        let (flow, src, dst) = (FlowId(flow), NodeId(src), NodeId(dst));
        let mut p = tcp_packet(flow, h);
        p.src = src;
        p.dst = dst;
        let r = single_record(&p);
        let f = &r.frame;
        let kept = (0..=h.sack_len)
            .rev()
            .find(|&k| TcpHeader { sack_len: k, ..h }.options_bytes() <= 40)
            .unwrap();
        let opts_len = TcpHeader { sack_len: kept, ..h }.options_bytes();
        let omitted = h.options_bytes() - opts_len;
        let ip_total = p.size_bytes - omitted;
        prop_assert_eq!(r.orig_len, 14 + ip_total);
        prop_assert_eq!(f.len() as u32, 14 + 20 + 20 + opts_len);

        prop_assert_eq!(&f[0..6], &node_mac(dst));
        prop_assert_eq!(&f[6..12], &node_mac(src));
        prop_assert_eq!(be16(f, 12), 0x0800);
        let ip = &f[14..34];
        prop_assert_eq!((ip[0], ip[1]), (0x45, 0));
        prop_assert_eq!(be16(ip, 2) as u32, ip_total);
        prop_assert_eq!(be16(ip, 6), 0x4000);
        prop_assert_eq!((ip[8], ip[9]), (64, 6));
        prop_assert_eq!(&ip[12..16], &node_ipv4(src));
        prop_assert_eq!(&ip[16..20], &node_ipv4(dst));
        prop_assert!(sums_to_all_ones(ip));

        let tcp = &f[34..];
        let (sport, rport) = flow_ports(flow);
        let ports = if h.from_receiver { (rport, sport) } else { (sport, rport) };
        prop_assert_eq!((be16(tcp, 0), be16(tcp, 2)), ports);
        let own = initial_sequence_number(flow, h.from_receiver) as u64;
        let peer = initial_sequence_number(flow, !h.from_receiver) as u64;
        let wrap = |isn: u64, s: u64| ((isn + s % (1 << 32)) % (1 << 32)) as u32;
        prop_assert_eq!(be32(tcp, 4), wrap(own, h.seq));
        prop_assert_eq!(be32(tcp, 8), if h.flags.ack { wrap(peer, h.ack) } else { 0 });
        prop_assert_eq!((tcp[12] >> 4) as u32 * 4, 20 + opts_len);
        prop_assert_eq!(tcp[12] & 0x0f, 0);
        let flags = h.flags.fin as u8 | (h.flags.syn as u8) << 1 | (h.flags.ack as u8) << 4;
        prop_assert_eq!(tcp[13], flags);
        prop_assert_eq!(be16(tcp, 14), h.window_field);
        prop_assert_eq!(be16(tcp, 18), 0);
        prop_assert!(transport_checksum_ok(f));

        let o = parse_options(&tcp[20..]);
        prop_assert_eq!(o.mss, h.syn_options.map(|o| o.mss));
        prop_assert_eq!(o.wscale, h.syn_options.and_then(|o| o.wscale));
        prop_assert_eq!(o.timestamps, h.timestamps);
        let sack: Vec<(u32, u32)> = h.sack_blocks()[..kept as usize]
            .iter()
            .map(|b| (wrap(peer, b.start), wrap(peer, b.end)))
            .collect();
        prop_assert_eq!(o.sack, sack);
    }
}

// ----- tshark -----

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

/// A capture file in the temporary directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, bytes: &[u8]) -> TempFile {
        let path =
            std::env::temp_dir().join(format!("mmtsim-pcap-{}-{name}.pcap", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn tshark_available() -> bool {
    let found = Command::new("tshark")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("tshark not found on PATH: skipping the tshark check");
    }
    found
}

/// Runs tshark on `file` with checksum validation and relative sequence numbers on and
/// returns one row of `fields` per frame (repeated fields joined with commas).
fn tshark_fields(file: &Path, fields: &[&str]) -> Vec<Vec<String>> {
    let mut cmd = Command::new("tshark");
    cmd.arg("-n").arg("-r").arg(file);
    for pref in [
        "ip.check_checksum:TRUE",
        "tcp.check_checksum:TRUE",
        "udp.check_checksum:TRUE",
        "tcp.relative_sequence_numbers:TRUE",
        "tcp.analyze_sequence_numbers:TRUE",
    ] {
        cmd.args(["-o", pref]);
    }
    cmd.args(["-T", "fields", "-E", "separator=/t", "-E", "occurrence=a"]);
    cmd.args(["-E", "aggregator=,"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("running tshark");
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let row: Vec<String> = l.split('\t').map(str::to_string).collect();
            assert_eq!(row.len(), fields.len(), "{l:?}");
            row
        })
        .collect()
}

fn column(rows: &[Vec<String>], i: usize) -> Vec<&str> {
    rows.iter().map(|r| r[i].as_str()).collect()
}

/// The same capture with every record padded with zero bytes to its original length:
/// exactly the frames the checksums were computed over, so tshark can verify them.
fn padded_to_original_length(file: &[u8]) -> Vec<u8> {
    let mut out = file[..24].to_vec();
    for r in records(file) {
        for v in [r.secs, r.nanos, r.orig_len, r.orig_len] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&r.frame);
        out.resize(out.len() + (r.orig_len as usize - r.frame.len()), 0);
    }
    out
}

#[test]
fn tshark_analyses_the_handcrafted_flow() {
    if !tshark_available() {
        return;
    }
    let flow = handcrafted_flow();
    let packets: Vec<_> = flow
        .iter()
        .map(|&(ms, h)| (SimTime::from_ms(ms), tcp_packet(FLOW, h)))
        .collect();
    let bytes = capture(&packets);
    let file = TempFile::new("tcp", &bytes);
    let rows = tshark_fields(
        &file.0,
        &[
            "tcp.seq",
            "tcp.ack",
            "tcp.len",
            "tcp.analysis.retransmission",
            "tcp.options.sack_le",
            "tcp.options.sack_re",
            "tcp.window_size_value",
            "tcp.window_size",
            "ip.checksum.status",
            "tcp.checksum.status",
            "_ws.expert.severity",
            "tcp.srcport",
            "tcp.dstport",
        ],
    );
    assert_eq!(rows.len(), flow.len());

    // Relative numbers are the simulator's own (SYN at 0, data from 1).
    let seq = [
        0, 0, 1, 1, 1001, 2001, 3001, 4001, 1, 1, 1, 1, 1001, 1, 5001, 1, 5002,
    ];
    assert_eq!(column(&rows, 0), seq.map(|s| s.to_string()));
    // The SYN's acknowledgement field is not meaningful; tshark versions differ in
    // whether they print it.
    let ack = [
        1, 1, 1, 1, 1, 1, 1, 1001, 1001, 1001, 1001, 1, 5001, 1, 5002, 2,
    ];
    assert_eq!(column(&rows, 1)[1..], ack.map(|a| a.to_string()));
    let len = [
        0, 0, 0, 1000, 1000, 1000, 1000, 1000, 0, 0, 0, 0, 1000, 0, 0, 0, 0,
    ];
    assert_eq!(column(&rows, 2), len.map(|l| l.to_string()));
    // Exactly frame 13, the resent second segment, is a retransmission.
    let rexmit: Vec<usize> = (0..rows.len()).filter(|&i| rows[i][3] == "1").collect();
    assert_eq!(rexmit, [12]);
    // SACK edges, relative to the data sender's ISN.
    let mut sack_le = vec![""; 17];
    let mut sack_re = vec![""; 17];
    sack_le[9..12].copy_from_slice(&["2001"; 3]);
    sack_re[9..12].copy_from_slice(&["3001", "4001", "5001"]);
    assert_eq!(column(&rows, 4), sack_le);
    assert_eq!(column(&rows, 5), sack_re);
    // Window scaling: never on a SYN, then field << 7 from the sender, << 9 from the
    // receiver (64240 and 65160 unscaled, 502 * 128 = 64256, 1000 * 512 = 512000).
    let window = [
        64240, 65160, 64256, 64256, 64256, 64256, 64256, 64256, 512000, 512000, 512000, 512000,
        64256, 512000, 64256, 512000, 64256,
    ];
    assert_eq!(column(&rows, 7), window.map(|w| w.to_string()));
    for (row, (_, h)) in rows.iter().zip(&flow) {
        assert_eq!(row[6], h.window_field.to_string());
    }
    // Checksum status 1 = good, 2 = unverified. The IP header is always captured
    // whole; tshark cannot verify a TCP checksum whose payload was not captured.
    assert!(column(&rows, 8).iter().all(|&s| s == "1"));
    let tcp_status: Vec<&str> = len
        .iter()
        .map(|&l| if l == 0 { "1" } else { "2" })
        .collect();
    assert_eq!(column(&rows, 9), tcp_status);
    // No expert info above "note" (severity 0x400000): no lost or unseen segments,
    // no malformed frames.
    for row in &rows {
        for s in row[10].split(',').filter(|s| !s.is_empty()) {
            assert!(s.parse::<u32>().unwrap() <= 0x40_0000, "{row:?}");
        }
    }
    let ports = ["40007", "20000"];
    for (row, (_, h)) in rows.iter().zip(&flow) {
        let (s, d) = if h.from_receiver { (1, 0) } else { (0, 1) };
        assert_eq!((row[11].as_str(), row[12].as_str()), (ports[s], ports[d]));
    }

    // Our own recomputation of every TCP checksum over the zero payload.
    for r in records(&bytes) {
        assert!(transport_checksum_ok(&r.frame));
    }
    // And tshark's, on the frames padded back to their full length.
    let padded = TempFile::new("tcp-padded", &padded_to_original_length(&bytes));
    let rows = tshark_fields(
        &padded.0,
        &["tcp.len", "ip.checksum.status", "tcp.checksum.status"],
    );
    assert_eq!(column(&rows, 0), len.map(|l| l.to_string()));
    assert!(column(&rows, 1).iter().all(|&s| s == "1"));
    assert!(column(&rows, 2).iter().all(|&s| s == "1"));
}

#[test]
fn tshark_reads_udp_datagrams() {
    if !tshark_available() {
        return;
    }
    let sizes = [0, 1, 1200];
    let packets: Vec<_> = sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            (
                SimTime::from_us(i as u64),
                udp_packet(FlowId(20_003), i as u64, n),
            )
        })
        .collect();
    let bytes = capture(&packets);
    let padded = TempFile::new("udp-padded", &padded_to_original_length(&bytes));
    let rows = tshark_fields(
        &padded.0,
        &[
            "udp.srcport",
            "udp.dstport",
            "udp.length",
            "ip.len",
            "ip.checksum.status",
            "udp.checksum.status",
        ],
    );
    assert_eq!(rows.len(), 3);
    for (row, n) in rows.iter().zip(sizes) {
        let expected = [40_003, 20_001, 8 + n, 28 + n, 1, 1].map(|v| v.to_string());
        assert_eq!(row[..], expected);
    }
}
