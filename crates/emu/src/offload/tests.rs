//! Hand-built packets through the segmenter and the coalescer; checksums verified by a
//! plain 16-bit one's-complement sum written here independently of the module's.

use super::*;

const SRC: [u8; 4] = [10, 201, 0, 1];
const DST: [u8; 4] = [10, 201, 0, 2];
const MSS: usize = 1448;
/// NOP, NOP, timestamps (kind 8, length 10): Linux's usual 12 bytes of options.
fn ts_option(tsval: u32) -> Vec<u8> {
    let mut o = vec![1, 1, 8, 10];
    o.extend_from_slice(&tsval.to_be_bytes());
    o.extend_from_slice(&7u32.to_be_bytes());
    o
}

/// The payload byte at stream offset `x`: depends on the offset, so misplaced bytes show.
fn pattern(x: u32) -> u8 {
    (x.wrapping_mul(2_654_435_761) >> 24) as u8
}

#[derive(Clone)]
struct Seg {
    id: u16,
    tos: u8,
    src_port: u16,
    seq: u32,
    ack: u32,
    flags: u8,
    window: u16,
    options: Vec<u8>,
    payload: Vec<u8>,
}

const ACK: u8 = 0x10;

fn seg(seq: u32, len: usize) -> Seg {
    Seg {
        id: 100,
        tos: 0,
        src_port: 40_000,
        seq,
        ack: 555,
        flags: ACK,
        window: 512,
        options: ts_option(1),
        payload: (0..len as u32)
            .map(|i| pattern(seq.wrapping_add(i)))
            .collect(),
    }
}

/// Plain one's-complement sum of 16-bit big-endian words, folded at every step.
fn ref_sum(data: &[u8]) -> u16 {
    let mut s: u32 = 0;
    let mut i = 0;
    while i < data.len() {
        let hi = u32::from(data[i]) << 8;
        let lo = data.get(i + 1).map_or(0, |&b| u32::from(b));
        s += hi | lo;
        s = (s & 0xffff) + (s >> 16);
        i += 2;
    }
    s as u16
}

fn ref_pseudo(p: &[u8]) -> Vec<u8> {
    let ihl = usize::from(p[0] & 15) * 4;
    let mut v = p[12..20].to_vec();
    v.extend_from_slice(&[0, 6]);
    v.extend_from_slice(&((p.len() - ihl) as u16).to_be_bytes());
    v
}

fn ip_ok(p: &[u8]) -> bool {
    ref_sum(&p[..usize::from(p[0] & 15) * 4]) == 0xffff
}

fn tcp_ok(p: &[u8]) -> bool {
    let ihl = usize::from(p[0] & 15) * 4;
    let mut v = ref_pseudo(p);
    v.extend_from_slice(&p[ihl..]);
    ref_sum(&v) == 0xffff
}

/// An IPv4 TCP packet with correct checksums.
fn build(s: &Seg) -> Vec<u8> {
    let thl = 20 + s.options.len();
    assert_eq!(thl % 4, 0);
    let len = 20 + thl + s.payload.len();
    let mut p = vec![0u8; len];
    p[0] = 0x45;
    p[1] = s.tos;
    p[2..4].copy_from_slice(&(len as u16).to_be_bytes());
    p[4..6].copy_from_slice(&s.id.to_be_bytes());
    p[6] = 0x40; // DF
    p[8] = 64;
    p[9] = 6;
    p[12..16].copy_from_slice(&SRC);
    p[16..20].copy_from_slice(&DST);
    let c = !ref_sum(&p[..20]);
    p[10..12].copy_from_slice(&c.to_be_bytes());
    let t = &mut p[20..];
    t[0..2].copy_from_slice(&s.src_port.to_be_bytes());
    t[2..4].copy_from_slice(&5201u16.to_be_bytes());
    t[4..8].copy_from_slice(&s.seq.to_be_bytes());
    t[8..12].copy_from_slice(&s.ack.to_be_bytes());
    t[12] = ((thl / 4) as u8) << 4;
    t[13] = s.flags;
    t[14..16].copy_from_slice(&s.window.to_be_bytes());
    t[20..thl].copy_from_slice(&s.options);
    t[thl..].copy_from_slice(&s.payload);
    let mut v = ref_pseudo(&p);
    v.extend_from_slice(&p[20..]);
    let c = !ref_sum(&v);
    p[36..38].copy_from_slice(&c.to_be_bytes());
    assert!(ip_ok(&p) && tcp_ok(&p));
    p
}

/// What the kernel leaves in the checksum field of a packet with `NEEDS_CSUM`: the
/// pseudo-header sum, folded, not complemented.
fn begin_checksum(p: &mut [u8]) {
    let c = ref_sum(&ref_pseudo(p));
    p[36..38].copy_from_slice(&c.to_be_bytes());
}

fn partial_hdr(gso_type: u8, gso_size: u16) -> VnetHdr {
    VnetHdr {
        flags: VNET_HDR_F_NEEDS_CSUM,
        gso_type,
        hdr_len: 52,
        gso_size,
        csum_start: 20,
        csum_offset: 16,
    }
}

fn collect_segments(sg: &mut Segmenter, hdr: &VnetHdr, p: &mut [u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let n = sg.segment(hdr, p, &mut |s| out.push(s.to_vec())).unwrap();
    assert_eq!(n, out.len());
    out
}

fn seq_of(p: &[u8]) -> u32 {
    u32::from_be_bytes(p[24..28].try_into().unwrap())
}

#[test]
fn vnet_header_is_little_endian_both_ways() {
    let h = VnetHdr {
        flags: 1,
        gso_type: 0x81,
        hdr_len: 0x0102,
        gso_size: 0x0304,
        csum_start: 0x0506,
        csum_offset: 0x0708,
    };
    let b = h.encode();
    assert_eq!(b, [1, 0x81, 2, 1, 4, 3, 6, 5, 8, 7]);
    assert_eq!(VnetHdr::decode(&b), Some(h));
    assert_eq!(VnetHdr::decode(&b[..9]), None);
}

#[test]
fn super_packet_splits_into_mss_segments() {
    // 3 full segments and a short one; sequence number and identification wrap.
    let seq0 = u32::MAX - 2000;
    let mut s = seg(seq0, 3 * MSS + 100);
    s.id = 0xfffe;
    s.flags = ACK | 0x08 | 0x01 | 0x80; // ACK PSH FIN CWR
    let whole = build(&s);
    let mut p = whole.clone();
    begin_checksum(&mut p);
    let mut sg = Segmenter::new();
    let hdr = partial_hdr(VNET_HDR_GSO_TCPV4 | VNET_HDR_GSO_ECN, MSS as u16);
    let segs = collect_segments(&mut sg, &hdr, &mut p);
    assert_eq!(segs.len(), 4);
    let mut payload = Vec::new();
    for (i, g) in segs.iter().enumerate() {
        let last = i == 3;
        let want_len = 52 + if last { 100 } else { MSS };
        assert_eq!(g.len(), want_len, "segment {i}");
        assert_eq!(usize::from(u16::from_be_bytes([g[2], g[3]])), want_len);
        assert_eq!(
            u16::from_be_bytes([g[4], g[5]]),
            0xfffeu16.wrapping_add(i as u16)
        );
        assert_eq!(seq_of(g), seq0.wrapping_add((i * MSS) as u32));
        let flags = g[33];
        assert_eq!(flags & 0x10, 0x10, "ACK everywhere");
        assert_eq!(flags & 0x09 != 0, last, "FIN and PSH on the last only");
        assert_eq!(flags & 0x09 == 0x09, last);
        assert_eq!(flags & 0x80 != 0, i == 0, "CWR on the first only");
        assert_eq!(&g[40..52], &ts_option(1)[..], "options kept");
        assert_eq!(&g[..2], &whole[..2]);
        assert_eq!(&g[6..10], &whole[6..10]);
        assert_eq!(&g[12..24], &whole[12..24]);
        assert_eq!(&g[28..33], &whole[28..33]);
        assert!(ip_ok(g), "IPv4 checksum of segment {i}");
        assert!(tcp_ok(g), "TCP checksum of segment {i}");
        payload.extend_from_slice(&g[52..]);
    }
    assert_eq!(payload, s.payload);
    let st = sg.stats();
    assert_eq!(st.frames, 1);
    assert_eq!(st.super_packets, 1);
    assert_eq!(st.packets_out, 4);
    assert_eq!(st.max_packet_bytes, whole.len());
}

#[test]
fn super_packet_of_exact_multiple_and_of_one_segment() {
    let mut sg = Segmenter::new();
    let hdr = partial_hdr(VNET_HDR_GSO_TCPV4, MSS as u16);
    let mut p = build(&seg(1, 2 * MSS));
    let segs = collect_segments(&mut sg, &hdr, &mut p);
    assert_eq!(segs.iter().map(Vec::len).collect::<Vec<_>>(), [52 + MSS; 2]);
    let mut p = build(&seg(1, 10));
    let segs = collect_segments(&mut sg, &hdr, &mut p);
    assert_eq!(segs.len(), 1);
    assert!(tcp_ok(&segs[0]) && ip_ok(&segs[0]));
}

#[test]
fn begun_checksum_is_completed_without_gso() {
    // Odd payload length: the last byte is padded.
    let whole = build(&seg(77, 333));
    let mut p = whole.clone();
    begin_checksum(&mut p);
    assert!(!tcp_ok(&p));
    let mut sg = Segmenter::new();
    let segs = collect_segments(&mut sg, &partial_hdr(VNET_HDR_GSO_NONE, 0), &mut p);
    assert_eq!(segs, [whole]);
    assert_eq!(sg.stats().checksums_completed, 1);
}

#[test]
fn packet_without_flags_passes_unchanged() {
    let mut frame = VnetHdr::default().encode().to_vec();
    frame.extend_from_slice(&build(&seg(5, 40)));
    // Bytes that are not IP at all pass too: not ours to judge without GSO.
    let mut junk = VnetHdr::default().encode().to_vec();
    junk.extend_from_slice(&[0x60, 1, 2, 3]);
    let mut sg = Segmenter::new();
    for f in [frame, junk] {
        let mut got = Vec::new();
        let mut copy = f.clone();
        assert_eq!(
            sg.segment_frame(&mut copy, &mut |s| got.push(s.to_vec())),
            Ok(1)
        );
        assert_eq!(got, [f[VNET_HDR_BYTES..].to_vec()]);
    }
    assert_eq!(sg.stats().checksums_completed, 0);
}

#[test]
fn other_gso_types_and_malformed_frames_are_refused() {
    let mut sg = Segmenter::new();
    let mut never = |_: &[u8]| panic!("nothing may be handed on");
    let tcp = build(&seg(1, 3000));
    for t in [3u8, 4, 5, 4 | VNET_HDR_GSO_ECN, 9] {
        let mut p = tcp.clone();
        let r = sg.segment(&partial_hdr(t, MSS as u16), &mut p, &mut never);
        assert_eq!(r, Err(Refusal::GsoType(t)));
    }
    let mut zero = tcp.clone();
    let r = sg.segment(&partial_hdr(VNET_HDR_GSO_TCPV4, 0), &mut zero, &mut never);
    assert_eq!(r, Err(Refusal::NotTcpV4));
    let mut udp = tcp.clone();
    udp[9] = 17;
    let r = sg.segment(&partial_hdr(VNET_HDR_GSO_TCPV4, 1448), &mut udp, &mut never);
    assert_eq!(r, Err(Refusal::NotTcpV4));
    let mut truncated = tcp[..2000].to_vec(); // total length says more
    let r = sg.segment(
        &partial_hdr(VNET_HDR_GSO_TCPV4, 1448),
        &mut truncated,
        &mut never,
    );
    assert_eq!(r, Err(Refusal::NotTcpV4));
    let mut short = tcp[..30].to_vec();
    let r = sg.segment(&partial_hdr(VNET_HDR_GSO_NONE, 0), &mut short, &mut never);
    assert_eq!(r, Err(Refusal::ChecksumRange));
    assert_eq!(
        sg.segment_frame(&mut [0u8; 9], &mut never),
        Err(Refusal::ShortFrame)
    );
    assert_eq!(sg.stats().refused, 10);
    assert_eq!(sg.stats().packets_out, 0);
}

/// Frames emitted for `packets`, pushed in order then flushed.
fn coalesce(c: &mut Coalescer, packets: &[Vec<u8>]) -> Vec<(VnetHdr, Vec<u8>)> {
    let mut out = Vec::new();
    let mut emit = |f: &[u8]| out.push((VnetHdr::decode(f).unwrap(), f[VNET_HDR_BYTES..].to_vec()));
    for p in packets {
        c.push(p, &mut emit);
    }
    c.flush(&mut emit);
    out
}

/// A stream of `n` segments from `seq0`, the last `last_len` bytes, identifications
/// counting up as a sender's do.
fn stream(seq0: u32, n: usize, last_len: usize) -> Vec<Seg> {
    let mut seq = seq0;
    (0..n)
        .map(|i| {
            let len = if i + 1 == n { last_len } else { MSS };
            let mut s = seg(seq, len);
            s.id = 100 + i as u16;
            seq = seq.wrapping_add(len as u32);
            s
        })
        .collect()
}

#[test]
fn contiguous_segments_become_one_super_packet_that_splits_back() {
    let mut segs = stream(u32::MAX - 5000, 6, 500);
    segs[5].flags |= 0x08; // PSH on the last
    let packets: Vec<Vec<u8>> = segs.iter().map(build).collect();
    let mut c = Coalescer::new();
    let frames = coalesce(&mut c, &packets);
    assert_eq!(frames.len(), 1);
    let (h, p) = &frames[0];
    assert_eq!(
        *h,
        VnetHdr {
            flags: VNET_HDR_F_NEEDS_CSUM,
            gso_type: VNET_HDR_GSO_TCPV4,
            hdr_len: 52,
            gso_size: MSS as u16,
            csum_start: 20,
            csum_offset: 16,
        }
    );
    assert_eq!(p.len(), 52 + 5 * MSS + 500);
    assert_eq!(usize::from(u16::from_be_bytes([p[2], p[3]])), p.len());
    assert!(ip_ok(p));
    assert_eq!(&p[4..6], &packets[0][4..6], "identification of the first");
    assert_eq!(seq_of(p), segs[0].seq);
    assert_eq!(p[33], ACK | 0x08, "PSH of the last");
    // The checksum field holds the pseudo-header sum: finishing it as the kernel would
    // (complement of the sum from csum_start) gives a valid checksum.
    assert_eq!(u16::from_be_bytes([p[36], p[37]]), ref_sum(&ref_pseudo(p)));
    let mut done = p.clone();
    let c16 = !ref_sum(&done[20..]);
    done[36..38].copy_from_slice(&c16.to_be_bytes());
    assert!(tcp_ok(&done));
    let payload: Vec<u8> = segs.iter().flat_map(|s| s.payload.clone()).collect();
    assert_eq!(&p[52..], &payload[..]);
    // Segmenting it again gives back the very packets.
    let mut again = p.clone();
    let back = collect_segments(&mut Segmenter::new(), h, &mut again);
    assert_eq!(back, packets);
    let st = c.stats();
    assert_eq!(
        (st.packets, st.frames, st.super_frames, st.merged_segments),
        (6, 1, 1, 6)
    );
    assert_eq!(st.max_packet_bytes, p.len());
}

#[test]
fn a_lone_segment_and_other_packets_go_out_unchanged_in_order() {
    let lone = build(&seg(10, 100));
    let pure_ack = build(&seg(20, 0));
    let mut v6 = vec![0x60u8; 48];
    v6[4..6].copy_from_slice(&8u16.to_be_bytes());
    let mut syn = seg(30, 0);
    syn.flags = 0x02;
    let syn = build(&syn);
    let packets = vec![lone, pure_ack, v6, syn];
    let frames = coalesce(&mut Coalescer::new(), &packets);
    assert_eq!(frames.len(), 4);
    for ((h, p), want) in frames.iter().zip(&packets) {
        assert_eq!(
            *h,
            VnetHdr::default(),
            "zero header: no GSO, checksums complete"
        );
        assert_eq!(p, want);
    }
}

/// Payload sizes of the frames `segs` coalesce into.
fn merged_sizes(segs: &[Seg]) -> Vec<usize> {
    let packets: Vec<Vec<u8>> = segs.iter().map(build).collect();
    coalesce(&mut Coalescer::new(), &packets)
        .iter()
        .map(|(h, p)| {
            let payload = p.len() - 52;
            if h.gso_type == VNET_HDR_GSO_NONE {
                assert_eq!(h.flags, 0);
            } else {
                assert_eq!(usize::from(h.gso_size), MSS.min(payload));
            }
            payload
        })
        .collect()
}

#[test]
fn merging_stops_where_gro_would() {
    let base = stream(1000, 4, MSS);
    assert_eq!(merged_sizes(&base), [4 * MSS]);
    type Change = Box<dyn Fn(&mut Vec<Seg>)>;
    let cases: Vec<(&str, Change, Vec<usize>)> = vec![
        (
            "sequence gap",
            Box::new(|s| s[2].seq += 1),
            vec![2 * MSS, MSS, MSS],
        ),
        (
            "other connection",
            Box::new(|s| s[1].src_port += 1),
            vec![MSS, MSS, 2 * MSS],
        ),
        (
            "other ACK",
            Box::new(|s| s[2].ack += 1),
            vec![2 * MSS, MSS, MSS],
        ),
        (
            "other window",
            Box::new(|s| s[3].window += 1),
            vec![3 * MSS, MSS],
        ),
        (
            "next timestamp",
            Box::new(|s| s[2..].iter_mut().for_each(|g| g.options = ts_option(2))),
            vec![2 * MSS, 2 * MSS],
        ),
        (
            "other TOS (CE)",
            Box::new(|s| s[1].tos = 3),
            vec![MSS, MSS, 2 * MSS],
        ),
        (
            "PSH ends it",
            Box::new(|s| s[1].flags |= 0x08),
            vec![2 * MSS, 2 * MSS],
        ),
        (
            "PSH on the first",
            Box::new(|s| s[0].flags |= 0x08),
            vec![MSS, 3 * MSS],
        ),
        (
            "FIN alone",
            Box::new(|s| s[2].flags |= 0x01),
            vec![2 * MSS, MSS, MSS],
        ),
        (
            "RST alone",
            Box::new(|s| s[0].flags |= 0x04),
            vec![MSS, 3 * MSS],
        ),
        (
            "URG alone",
            Box::new(|s| s[3].flags |= 0x20),
            vec![3 * MSS, MSS],
        ),
        (
            "CWR after the first",
            Box::new(|s| s[2].flags |= 0x80),
            vec![2 * MSS, 2 * MSS],
        ),
        (
            "short one ends it",
            Box::new(|s| {
                s[1].payload.truncate(700);
                s[2..].iter_mut().for_each(|g| g.seq -= (MSS - 700) as u32);
            }),
            vec![MSS + 700, 2 * MSS],
        ),
        (
            "a larger one starts anew",
            Box::new(|s| {
                s[0].payload.truncate(1000);
                s[1..].iter_mut().for_each(|g| g.seq -= (MSS - 1000) as u32);
            }),
            vec![1000, 3 * MSS],
        ),
    ];
    for (what, change, want) in cases {
        let mut s = base.clone();
        change(&mut s);
        assert_eq!(merged_sizes(&s), want, "{what}");
    }
    // Identifications need not count up: the receiving TCP never sees them.
    let mut s = base.clone();
    s[2].id = 9;
    assert_eq!(merged_sizes(&s), [4 * MSS]);
}

#[test]
fn cwr_on_the_first_segment_marks_the_super_packet_ecn() {
    let mut segs = stream(1, 3, MSS);
    segs[0].flags |= 0x80;
    let packets: Vec<Vec<u8>> = segs.iter().map(build).collect();
    let frames = coalesce(&mut Coalescer::new(), &packets);
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0].0.gso_type, VNET_HDR_GSO_TCPV4 | VNET_HDR_GSO_ECN);
    let mut p = frames[0].1.clone();
    let back = collect_segments(&mut Segmenter::new(), &frames[0].0, &mut p);
    assert_eq!(back, packets);
}

#[test]
fn super_packets_stay_within_the_ipv4_length() {
    // 45 full segments and 52 bytes of headers fit in 65,535 bytes; 46 do not.
    let segs = stream(1, 50, MSS);
    let packets: Vec<Vec<u8>> = segs.iter().map(build).collect();
    let mut c = Coalescer::new();
    let frames = coalesce(&mut c, &packets);
    let sizes: Vec<usize> = frames.iter().map(|(_, p)| p.len()).collect();
    assert_eq!(sizes, [52 + 45 * MSS, 52 + 5 * MSS]);
    assert!(sizes[0] <= MAX_IPV4_PACKET_BYTES);
    let mut small = Coalescer::with_max_packet_bytes(52 + 2 * MSS);
    assert_eq!(coalesce(&mut small, &packets[..5]).len(), 3);
}

#[test]
fn flush_without_anything_held_emits_nothing() {
    let mut c = Coalescer::new();
    c.flush(&mut |_| panic!("nothing held"));
    let p = build(&seg(1, MSS));
    c.push(&p, &mut |_| panic!("a full segment is held"));
    assert!(c.is_pending());
    let mut n = 0;
    c.flush(&mut |_| n += 1);
    assert_eq!(n, 1);
    assert!(!c.is_pending());
}
