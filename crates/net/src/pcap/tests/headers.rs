//! Checksums (RFC 1071, the IPv4 header's), the address and port plan, the file and record
//! headers, IPv4 identification, and UDP datagrams.

use super::*;
use proptest::prelude::*;

// ----- Checksums -----

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
