//! TCP options (every combination's length, the Linux layout, what is left out when they
//! do not fit) and a round trip of arbitrary TCP headers through the writer and the
//! independent reader.

use super::*;
use proptest::prelude::*;

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
