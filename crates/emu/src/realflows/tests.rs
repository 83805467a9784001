//! Tests of the real-flow records on hand-built IPv4/TCP packets. Expected values come
//! from the definitions in the module doc, worked out by hand in the comments.

use super::*;

const MS: u64 = 1_000_000;
const UE: ([u8; 4], u16) = ([10, 0, 0, 2], 40_000);
const SERVER: ([u8; 4], u16) = ([10, 0, 1, 1], 5_201);
/// 10.0.0.2 and 10.0.1.1 as 32-bit numbers.
const UE_IP: u32 = 0x0a00_0002;
const SERVER_IP: u32 = 0x0a00_0101;

/// A TCP segment to build: addresses, numbers, flags, payload length and timestamps.
#[derive(Clone, Copy)]
struct Tcp {
    src: ([u8; 4], u16),
    dst: ([u8; 4], u16),
    seq: u32,
    ack: Option<u32>,
    syn: bool,
    payload: u16,
    ts: Option<(u32, u32)>,
}

impl Tcp {
    /// UE → server, `payload` bytes from `seq`.
    fn up(seq: u32, payload: u16) -> Tcp {
        Tcp {
            src: UE,
            dst: SERVER,
            seq,
            ack: None,
            syn: false,
            payload,
            ts: None,
        }
    }

    /// Server → UE.
    fn down(seq: u32, payload: u16) -> Tcp {
        Tcp {
            src: SERVER,
            dst: UE,
            ..Tcp::up(seq, payload)
        }
    }

    fn ack(self, ack: u32) -> Tcp {
        Tcp {
            ack: Some(ack),
            ..self
        }
    }

    fn syn(self) -> Tcp {
        Tcp { syn: true, ..self }
    }

    fn ts(self, tsval: u32, tsecr: u32) -> Tcp {
        Tcp {
            ts: Some((tsval, tsecr)),
            ..self
        }
    }

    fn uplink(&self) -> bool {
        self.src == UE
    }

    /// The packet: a 20-byte IPv4 header, a 20-byte TCP header plus, with timestamps,
    /// NOP, NOP and the 10-byte option (Linux's layout), and zero payload bytes.
    fn bytes(&self) -> Vec<u8> {
        let tcp_len = 20 + if self.ts.is_some() { 12 } else { 0 };
        let total = 20 + tcp_len + self.payload as usize;
        let mut p = vec![0u8; total];
        p[0] = 0x45; // version 4, IHL 5 words
        p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        p[6] = 0x40; // DF, fragment offset 0
        p[8] = 64;
        p[9] = 6;
        p[12..16].copy_from_slice(&self.src.0);
        p[16..20].copy_from_slice(&self.dst.0);
        let t = &mut p[20..];
        t[0..2].copy_from_slice(&self.src.1.to_be_bytes());
        t[2..4].copy_from_slice(&self.dst.1.to_be_bytes());
        t[4..8].copy_from_slice(&self.seq.to_be_bytes());
        t[8..12].copy_from_slice(&self.ack.unwrap_or(0).to_be_bytes());
        t[12] = ((tcp_len / 4) as u8) << 4;
        t[13] = if self.syn { 0x02 } else { 0 } | if self.ack.is_some() { 0x10 } else { 0 };
        if let Some((tsval, tsecr)) = self.ts {
            t[20..22].copy_from_slice(&[1, 1]);
            t[22..24].copy_from_slice(&[8, 10]);
            t[24..28].copy_from_slice(&tsval.to_be_bytes());
            t[28..32].copy_from_slice(&tsecr.to_be_bytes());
        }
        p
    }
}

/// `seg` enters the simulation at `in_ms` and, unless `out_ms` is `None` (dropped),
/// leaves at `out_ms`, at the points of its direction.
fn cross(f: &mut RealFlows, in_ms: u64, out_ms: Option<u64>, seg: Tcp) {
    let (enter, leave) = if seg.uplink() {
        (Point::UeRead, Point::ServerWrite)
    } else {
        (Point::ServerRead, Point::UeWrite)
    };
    let p = seg.bytes();
    f.observe(in_ms * MS, enter, &p);
    if let Some(out) = out_ms {
        f.observe(out * MS, leave, &p);
    }
}

fn assert_close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-9, "{got:?} vs {want:?}");
    }
}

#[test]
fn goodput_bins_count_new_bytes_where_they_leave() {
    let mut f = RealFlows::new(100 * MS);
    // The SYN at 50 ms: the connection starts there; data begins at ISN + 1 = 1000.
    cross(&mut f, 50, Some(60), Tcp::up(999, 0).syn());
    cross(&mut f, 61, Some(70), Tcp::up(1000, 1000));
    cross(&mut f, 62, Some(99), Tcp::up(2000, 1000));
    cross(&mut f, 100, Some(150), Tcp::up(3000, 1000));
    cross(&mut f, 101, Some(250), Tcp::up(4000, 500));
    // The last packet observed (an ACK entering at 340 ms) ends the rows in bin 3.
    cross(&mut f, 340, None, Tcp::down(77, 0).ack(4500));

    let t = f.columns();
    assert_eq!(t.goodput.flow, vec![0; 4]);
    assert_close(&t.goodput.t_s, &[0.0, 0.1, 0.2, 0.3]);
    // Bin 0: 2000 B over the 50 ms after the start = 0.32 Mbit/s; bin 1: 1000 B over
    // 100 ms = 0.08; bin 2: 500 B = 0.04; bin 3: nothing.
    assert_close(&t.goodput.goodput_mbps, &[0.32, 0.08, 0.04, 0.0]);
    assert_eq!(t.flows.bytes, vec![3500]);
    assert_eq!(t.flows.packets, vec![5]);
    assert_eq!(t.flows.first_ns, vec![50 * MS]);
    assert_eq!(t.flows.last_ns, vec![250 * MS]);
    // 3500 B over 200 ms (50 to 250 ms) = 0.14 Mbit/s.
    let s = f.summary_json();
    assert!((s["flows"][0]["goodput_mbps"].as_f64().unwrap() - 0.14).abs() < 1e-9);
}

#[test]
fn a_retransmission_counts_once_and_its_bytes_do_not_count_twice() {
    let mut f = RealFlows::new(1_000 * MS);
    // No SYN seen: the first segment's start, 5000, is where data begins.
    cross(&mut f, 0, Some(10), Tcp::up(5000, 1000)); // A
    cross(&mut f, 1, None, Tcp::up(6000, 1000)); // B, dropped
    cross(&mut f, 2, Some(12), Tcp::up(7000, 1000)); // C: up to 8000 delivered, 3000 B
    cross(&mut f, 30, Some(40), Tcp::up(6000, 1000)); // B again: fills the hole, no bytes
    cross(&mut f, 31, Some(41), Tcp::up(5000, 1000)); // A again (spurious)
                                                      // 7500..9000 overlaps sent data but ends above it: new data, 1000 new bytes.
    cross(&mut f, 50, Some(60), Tcp::up(7500, 1500));

    let t = f.columns();
    assert_eq!(t.flows.retransmits, vec![2]);
    assert_eq!(t.flows.bytes, vec![4000]);
    assert_eq!(t.flows.packets, vec![6]);
    // One bin of 1 s from the start at 0: 4000 B = 0.032 Mbit/s.
    assert_close(&t.goodput.goodput_mbps, &[0.032]);
    let s = &f.summary_json()["flows"][0];
    assert_eq!(s["retransmitted_segments"], 2);
    assert_eq!(s["retransmitted_bytes"], 2000);
    assert_eq!(s["sent_payload_bytes"], 6500);
}

#[test]
fn rtt_from_timestamps_runs_from_data_entering_to_the_echo_leaving() {
    let mut f = RealFlows::new(100 * MS);
    cross(&mut f, 1, Some(21), Tcp::up(1000, 1000).ts(100, 7));
    // The echo of 100 leaves towards the UE at 42 ms: 41 ms.
    cross(&mut f, 22, Some(42), Tcp::down(1, 0).ack(2000).ts(500, 100));
    // A duplicate echo of 100 gives nothing.
    cross(&mut f, 43, Some(45), Tcp::down(1, 0).ack(2000).ts(501, 100));
    // Two segments share TSval 101; the first was seen at 50 ms: 45 ms.
    cross(&mut f, 50, Some(60), Tcp::up(2000, 1000).ts(101, 8));
    cross(&mut f, 51, Some(61), Tcp::up(3000, 1000).ts(101, 8));
    cross(&mut f, 70, Some(95), Tcp::down(1, 0).ack(4000).ts(502, 101));
    // 102 is never echoed; 103, seen at 61 ms, is echoed at 100 ms: 39 ms.
    cross(&mut f, 60, Some(70), Tcp::up(4000, 1000).ts(102, 9));
    cross(&mut f, 61, Some(71), Tcp::up(5000, 1000).ts(103, 9));
    cross(
        &mut f,
        80,
        Some(100),
        Tcp::down(1, 0).ack(6000).ts(503, 103),
    );
    // A late echo of 102 comes after 103's: nothing.
    cross(
        &mut f,
        81,
        Some(101),
        Tcp::down(1, 0).ack(6000).ts(504, 102),
    );

    let t = f.columns();
    assert_eq!(t.rtt.flow, vec![0, 0, 0]);
    assert_eq!(t.rtt.t_ns, vec![42 * MS, 95 * MS, 100 * MS]);
    assert_eq!(t.rtt.rtt_us, vec![41_000, 45_000, 39_000]);
    assert_eq!(f.summary_json()["flows"][0]["rtt_method"], "timestamps");
}

#[test]
fn rtt_from_seq_and_ack_follows_karn() {
    let mut f = RealFlows::new(100 * MS);
    let ack = |f: &mut RealFlows, out_ms: u64, a: u32| {
        cross(f, out_ms - 1, Some(out_ms), Tcp::down(1, 0).ack(a));
    };
    cross(&mut f, 0, Some(10), Tcp::up(1, 1000));
    cross(&mut f, 1, Some(11), Tcp::up(1001, 1000));
    ack(&mut f, 30, 1001); // 30 ms after the first segment
    ack(&mut f, 32, 2001); // 31 ms after the second
    ack(&mut f, 33, 2001); // a duplicate: nothing
    cross(&mut f, 40, Some(50), Tcp::up(2001, 1000));
    cross(&mut f, 41, Some(51), Tcp::up(3001, 1000));
    cross(&mut f, 100, Some(110), Tcp::up(2001, 1000)); // resent
    ack(&mut f, 130, 4001); // covers resent data: nothing
    cross(&mut f, 140, Some(150), Tcp::up(4001, 1000));
    ack(&mut f, 170, 5001); // 30 ms
                            // A delayed ACK of two segments: from the older one, 30 ms.
    cross(&mut f, 200, Some(210), Tcp::up(5001, 1000));
    cross(&mut f, 201, Some(211), Tcp::up(6001, 1000));
    ack(&mut f, 230, 7001);
    // Both resent; the first ACK covers only one of them, and neither gives a sample.
    cross(&mut f, 300, None, Tcp::up(7001, 1000));
    cross(&mut f, 301, None, Tcp::up(8001, 1000));
    cross(&mut f, 400, Some(410), Tcp::up(7001, 1000));
    cross(&mut f, 401, Some(411), Tcp::up(8001, 1000));
    ack(&mut f, 430, 8001);
    ack(&mut f, 431, 9001);
    cross(&mut f, 500, Some(510), Tcp::up(9001, 1000));
    ack(&mut f, 530, 10_001); // 30 ms

    let t = f.columns();
    assert_eq!(
        t.rtt.t_ns,
        [30, 32, 170, 230, 530].map(|ms| ms * MS).to_vec()
    );
    assert_eq!(t.rtt.rtt_us, vec![30_000, 31_000, 30_000, 30_000, 30_000]);
    assert_eq!(t.flows.retransmits, vec![3]);
    let s = &f.summary_json()["flows"][0];
    assert_eq!(s["rtt_method"], "seq_ack");
    assert_eq!(s["rtt_samples"], 5);
}

#[test]
fn sequence_numbers_wrap_around() {
    let mut f = RealFlows::new(1_000 * MS);
    // ISN 2^32 - 512: data begins at 2^32 - 511, and the second segment at
    // 2^32 - 511 + 1000 - 2^32 = 489 on the wire.
    cross(&mut f, 0, Some(1), Tcp::up(0xffff_fe00, 0).syn());
    cross(&mut f, 10, Some(20), Tcp::up(0xffff_fe01, 1000));
    cross(&mut f, 11, Some(21), Tcp::up(489, 1000));
    cross(&mut f, 12, Some(22), Tcp::up(1489, 1000));
    cross(&mut f, 39, Some(40), Tcp::down(1, 0).ack(489)); // first segment: 30 ms
    cross(&mut f, 50, Some(60), Tcp::up(489, 1000)); // resent across the wrap
    cross(&mut f, 79, Some(80), Tcp::down(1, 0).ack(2489)); // covers it: nothing
    cross(&mut f, 90, Some(95), Tcp::up(2489, 1000));
    cross(&mut f, 119, Some(120), Tcp::down(1, 0).ack(3489)); // 30 ms

    let t = f.columns();
    assert_eq!(t.flows.bytes, vec![4000]);
    assert_eq!(t.flows.retransmits, vec![1]);
    assert_eq!(t.rtt.rtt_us, vec![30_000, 30_000]);
}

#[test]
fn ipv6_udp_fragments_and_malformed_packets_are_skipped_and_counted_once() {
    let mut f = RealFlows::new(100 * MS);
    // IPv6 carrying TCP: 40-byte header, next header 6.
    let mut v6 = vec![0u8; 60];
    v6[0] = 0x60;
    v6[6] = 6;
    // IPv4 UDP.
    let mut udp = Tcp::up(1, 100).bytes();
    udp[9] = 17;
    // An IPv4 TCP fragment at offset 185 × 8 bytes.
    let mut frag = Tcp::up(1, 100).bytes();
    frag[6..8].copy_from_slice(&185u16.to_be_bytes());
    // An IPv4 TCP packet cut inside its TCP header.
    let cut = Tcp::up(1, 100).bytes()[..30].to_vec();
    for p in [&v6, &udp, &frag, &cut] {
        f.observe(0, Point::UeRead, p);
        f.observe(MS, Point::ServerWrite, p);
    }
    f.observe(2 * MS, Point::ServerRead, &udp);
    assert_eq!(f.flow_count(), 0);
    let s = f.summary_json();
    assert_eq!(s["ignored_packets"], 5);
    assert_eq!(s["ignored"]["not_ipv4"], 1);
    assert_eq!(s["ignored"]["not_tcp"], 2);
    assert_eq!(s["ignored"]["fragments"], 1);
    assert_eq!(s["ignored"]["malformed"], 1);
    assert_eq!(s["flows"], json!([]));
    assert_eq!(f.columns(), RealFlowTables::default());
}

#[test]
fn a_pure_ack_direction_is_no_flow_and_flows_number_in_order() {
    let mut f = RealFlows::new(100 * MS);
    // Handshake, then a download: only the server's direction carries payload.
    cross(&mut f, 0, Some(5), Tcp::up(99, 0).syn());
    cross(&mut f, 6, Some(10), Tcp::down(499, 0).syn().ack(100));
    cross(&mut f, 11, Some(15), Tcp::up(100, 0).ack(500));
    cross(&mut f, 16, Some(20), Tcp::down(500, 1000).ack(100));
    cross(&mut f, 21, Some(25), Tcp::up(100, 0).ack(1500));
    assert_eq!(f.flow_count(), 1);
    let t = f.columns();
    assert_eq!(t.flows.flow, vec![0]);
    assert_eq!(t.flows.src_ip, vec![SERVER_IP]);
    assert_eq!(t.flows.src_port, vec![5_201]);
    assert_eq!(t.flows.dst_ip, vec![UE_IP]);
    assert_eq!(t.flows.dst_port, vec![40_000]);
    assert_eq!(t.flows.uplink, vec![0]);
    assert_eq!(t.flows.first_ns, vec![0]); // the UE's SYN started the connection
                                           // The UE's ACK of 1500 measured the downlink flow's round trip, 16 → 25 ms.
    assert_eq!(t.rtt.rtt_us, vec![9_000]);
    // Later the UE sends data too: its direction becomes flow 1.
    cross(&mut f, 30, Some(35), Tcp::up(100, 200).ack(1500));
    let t = f.columns();
    assert_eq!(t.flows.flow, vec![0, 1]);
    assert_eq!(t.flows.uplink, vec![0, 1]);
    assert_eq!(t.flows.src_ip, vec![SERVER_IP, UE_IP]);
    assert_eq!(t.flows.bytes, vec![1000, 200]);
    // The server's direction entered twice (SYN-ACK, data), the UE's four times (SYN,
    // two ACKs, data).
    assert_eq!(t.flows.packets, vec![2, 4]);
}

#[test]
fn summary_json_reports_a_downlink_flow() {
    let mut f = RealFlows::new(10 * MS);
    cross(&mut f, 0, Some(5), Tcp::up(0, 0).syn().ts(1, 0));
    cross(
        &mut f,
        10,
        Some(15),
        Tcp::down(9_999, 0).syn().ack(1).ts(700, 1),
    );
    cross(&mut f, 16, Some(20), Tcp::up(1, 0).ack(10_000).ts(2, 700));
    cross(
        &mut f,
        21,
        Some(41),
        Tcp::down(10_000, 1448).ack(1).ts(701, 2),
    );
    // The echo of 701 leaves towards the server at 61 ms: 40 ms.
    cross(&mut f, 42, Some(61), Tcp::up(1, 0).ack(11_448).ts(3, 701));
    cross(
        &mut f,
        62,
        Some(81),
        Tcp::down(11_448, 1448).ack(1).ts(702, 3),
    );
    cross(&mut f, 82, Some(100), Tcp::up(1, 0).ack(12_896).ts(4, 702)); // 38 ms
    cross(
        &mut f,
        101,
        Some(120),
        Tcp::down(11_448, 1448).ack(1).ts(703, 4),
    ); // resent
    let mut udp = Tcp::down(1, 10).bytes();
    udp[9] = 17;
    f.observe(130 * MS, Point::ServerRead, &udp);

    let s = f.summary_json();
    assert_eq!(s["goodput_bin_ns"], 10 * MS);
    assert_eq!(s["ignored_packets"], 1);
    let fl = &s["flows"][0];
    assert_eq!(fl["flow"], 0);
    assert_eq!(fl["src_ip"], "10.0.1.1");
    assert_eq!(fl["src_port"], 5_201);
    assert_eq!(fl["dst_ip"], "10.0.0.2");
    assert_eq!(fl["dst_port"], 40_000);
    assert_eq!(fl["direction"], "downlink");
    assert_eq!(fl["bytes"], 2896);
    assert_eq!(fl["sent_payload_bytes"], 3 * 1448);
    assert_eq!(fl["packets"], 4); // SYN-ACK, two data segments, one resent
    assert_eq!(fl["retransmitted_segments"], 1);
    assert_eq!(fl["retransmitted_bytes"], 1448);
    assert_eq!(fl["start_s"], 0.0);
    assert!((fl["last_delivery_s"].as_f64().unwrap() - 0.081).abs() < 1e-12);
    // 2896 B over the 81 ms from the SYN to the last new byte delivered.
    let want = 2896.0 * 8.0 / 0.081 / 1e6;
    assert!((fl["goodput_mbps"].as_f64().unwrap() - want).abs() < 1e-9);
    assert_eq!(fl["rtt_method"], "timestamps");
    assert_eq!(fl["rtt_samples"], 2);
    // Samples 40 and 38 ms: the nearest-rank p50 of two is the smaller.
    assert_eq!(fl["rtt_p50_ms"], 38.0);
    assert_eq!(fl["rtt_mean_ms"], 39.0);
    assert_eq!(fl["rtt_pending_dropped"], 0);
    assert_eq!(s["flows"].as_array().unwrap().len(), 1);
}

#[test]
fn pending_rtt_entries_are_bounded() {
    let mut f = RealFlows::new(100 * MS);
    let extra = 5;
    let n = (RTT_PENDING_CAP + extra) as u32;
    for i in 0..n {
        f.observe(i as u64, Point::UeRead, &Tcp::up(1 + 100 * i, 100).bytes());
    }
    assert_eq!(f.summary_json()["flows"][0]["rtt_pending_dropped"], extra);
    // The first segments were forgotten: an ACK of the first one finds nothing.
    let ack = |a: u32| Tcp::down(1, 0).ack(a).bytes();
    f.observe(MS, Point::UeWrite, &ack(101));
    assert!(f.columns().rtt.rtt_us.is_empty());
    // The oldest one kept, segment 5, sent at 5 ns, gives a sample: 1 ms later.
    f.observe(MS + 5, Point::UeWrite, &ack(1 + 100 * 6));
    assert_eq!(f.columns().rtt.rtt_us, vec![1_000]);
}

#[test]
fn rtt_rows_stay_under_the_budget_while_the_summary_covers_every_sample() {
    // Ten segments, one every 10 ms, each ACKed (i + 1)·100 µs after it entered:
    // samples 100, 200, …, 1000 µs. Budget 4 (the engine's thinning): kept 0,1,2,3 →
    // halve to 0,2 (stride 2); 4, 6 kept → 0,2,4,6 → halve to 0,4 (stride 4); 8 kept →
    // samples 0, 4, 8, i.e. 100, 500 and 900 µs.
    let mut f = RealFlows::new(100 * MS).with_rtt_budget(4);
    const US: u64 = 1_000;
    for i in 0..10u64 {
        let (t0, back) = (10 * MS * i, 10 * MS * i + (i + 1) * 100 * US);
        let data = Tcp::up(1 + 1000 * i as u32, 1000).bytes();
        f.observe(t0, Point::UeRead, &data);
        f.observe(t0 + 50 * US, Point::ServerWrite, &data);
        let ack = Tcp::down(1, 0).ack(1 + 1000 * (i as u32 + 1)).bytes();
        f.observe(back - 10 * US, Point::ServerRead, &ack);
        f.observe(back, Point::UeWrite, &ack);
    }
    let t = f.columns();
    assert_eq!(t.rtt.rtt_us, vec![100, 500, 900]);
    assert_eq!(t.rtt.flow, vec![0, 0, 0]);
    let s = &f.summary_json()["flows"][0];
    // Count and mean over all ten: mean 550 µs. Median ⌈0.5·10⌉ = 5th smallest = 500 µs,
    // from the histogram of every sample (single-µs buckets below 1024 µs).
    assert_eq!(s["rtt_samples"], 10);
    assert_eq!(s["rtt_mean_ms"], 0.55);
    assert_eq!(s["rtt_p50_ms"], 0.5);
}
