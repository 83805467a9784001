use super::super::{PduKind, RlcMode};
use super::*;
use mmtsim_engine::SimRng;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};

fn ms(t: u64) -> SimTime {
    SimTime::from_ms(t)
}

/// ns-3 defaults without a buffer limit.
fn cfg() -> RlcConfig {
    RlcConfig {
        max_tx_buffer_bytes: 0,
        ..RlcConfig::default()
    }
}

fn opportunity(e: &mut AmEntity, now: SimTime, bytes: u32) -> Vec<Pdu> {
    let mut out = Vec::new();
    e.tx_opportunity(now, bytes, &mut out);
    assert!(out.iter().map(Pdu::bytes).sum::<u32>() <= bytes);
    out
}

fn receive(e: &mut AmEntity, now: SimTime, pdus: Vec<Pdu>) -> Vec<u64> {
    let mut d = Vec::new();
    for p in pdus {
        e.receive_pdu(now, p, &mut d);
    }
    d.iter().map(|s| s.id).collect()
}

// ---------------------------------------------------------------- (3) segmentation

#[test]
fn concatenation_and_segmentation_worked_by_hand() {
    let mut a = AmEntity::new(&cfg());
    for (id, b) in [(0, 100), (1, 200), (2, 300)] {
        a.send_sdu(ms(0), Sdu::new(id, b)).unwrap();
    }
    // Grant 250: avail = 250 − 4 = 246. SDU0 (100) fits with 146 > 2 left and more SDUs
    // queued → LI (2 B), avail = 246 − 100 − 2 = 144. SDU1 (200) > 144 → cut at 144,
    // last element. PDU = 4 + 2 + 100 + 144 = 250, header 6.
    let p = opportunity(&mut a, ms(0), 250);
    assert_eq!(p.len(), 1);
    assert_eq!(
        (p[0].bytes(), p[0].header_bytes(), p[0].elements()),
        (250, 6, 2)
    );
    assert_eq!((p[0].sn(), p[0].kind()), (Some(0), PduKind::AmData));
    // 56 B of SDU1 + 300 B of SDU2 left.
    assert_eq!(a.tx_buffer_bytes(), 356);
    // New bytes for the BSR: 356 + 4 (fixed) + 2 (one LI for two elements).
    assert_eq!(a.buffer_status(ms(0)).new_bytes, 362);
    // Grant 400: avail 396. SDU1 rest (56): 340 > 2 left, SDU2 queued → LI 2 B,
    // avail = 396 − 58 = 338. SDU2 (300) is the last SDU → whole, no LI.
    // PDU = 4 + 2 + 56 + 300 = 362.
    let p = opportunity(&mut a, ms(0), 400);
    assert_eq!(p.len(), 1);
    assert_eq!(
        (p[0].bytes(), p[0].header_bytes(), p[0].sn()),
        (362, 6, Some(1))
    );
    assert_eq!(a.tx_buffer_bytes(), 0);

    // Four SDUs 10, 20, 30, 40 in a 1000-byte grant: LIs cost 2, 1, 2 bytes (12 bits
    // each, packed in pairs) = li_bytes(4) = 5; PDU = 4 + 5 + 100 = 109.
    for (id, b) in [(3, 10), (4, 20), (5, 30), (6, 40)] {
        a.send_sdu(ms(0), Sdu::new(id, b)).unwrap();
    }
    let p = opportunity(&mut a, ms(0), 1000);
    assert_eq!(p.len(), 1);
    assert_eq!(
        (p[0].bytes(), p[0].header_bytes(), p[0].elements()),
        (109, 9, 4)
    );

    // The "≤ 2 bytes left" rule: SDUs of 100 and 100 in a grant of 106: avail 102,
    // 102 − 100 = 2 ≤ 2 → SDU7 is the last element, the PDU is 104 bytes and 2 bytes of
    // the grant stay unused (an LI of 2 B would leave no room for data).
    a.send_sdu(ms(0), Sdu::new(7, 100)).unwrap();
    a.send_sdu(ms(0), Sdu::new(8, 100)).unwrap();
    let p = opportunity(&mut a, ms(0), 106);
    assert_eq!(p.len(), 1);
    assert_eq!((p[0].bytes(), p[0].elements()), (104, 1));
    // Too small for a header and one byte: nothing.
    assert!(opportunity(&mut a, ms(0), 4).is_empty());
    // Grant 5: one byte of SDU8.
    let p = opportunity(&mut a, ms(0), 5);
    assert_eq!((p[0].bytes(), a.tx_buffer_bytes()), (5, 99));
}

#[test]
fn sdus_longer_than_the_li_limit_end_the_pdu() {
    // An element > 2047 B cannot have an LI, so it is the last one even if more fits:
    // SDU 3000 + SDU 100 in a grant of 10 000 → PDU 1 = 4 + 3000, PDU 2 = 4 + 100.
    let mut a = AmEntity::new(&cfg());
    a.send_sdu(ms(0), Sdu::new(0, 3000)).unwrap();
    a.send_sdu(ms(0), Sdu::new(1, 100)).unwrap();
    assert_eq!(a.buffer_status(ms(0)).new_bytes, 3100 + 2 * 4 + 2);
    let p = opportunity(&mut a, ms(0), 10_000);
    assert_eq!(
        p.iter().map(Pdu::bytes).collect::<Vec<_>>(),
        vec![3004, 104]
    );
}

#[test]
fn retransmission_is_resegmented_with_per_segment_headers() {
    let mut a = AmEntity::new(&cfg());
    let mut b = AmEntity::new(&cfg());
    for (id, n) in [(0, 100), (1, 200), (2, 300)] {
        a.send_sdu(ms(0), Sdu::new(id, n)).unwrap();
    }
    // Grant 612: avail 608; LIs 2 + 1 → header 4 + 3 = 7; PDU 607.
    let lost = opportunity(&mut a, ms(0), 612);
    assert_eq!((lost[0].bytes(), lost[0].header_bytes()), (607, 7));
    // The PDU is lost; t-PollRetransmit (20 ms) expires with both buffers empty, so the
    // PDU is considered for retransmission: 607 bytes wait.
    a.on_timer(ms(20), &mut Vec::new());
    assert_eq!(a.buffer_status(ms(20)).retx_bytes, 607);
    // Grant 250 from offset 0: with 1 element header 4, max data 246 ≥ 100 (SDU0 whole);
    // with 2 elements header 6, max data 244 < 300 → segment of 244 bytes, 250 total.
    let s1 = opportunity(&mut a, ms(20), 250);
    assert_eq!(s1.len(), 1);
    assert_eq!(
        (s1[0].kind(), s1[0].bytes(), s1[0].header_bytes()),
        (PduKind::AmSegment, 250, 6)
    );
    // Poll: t-PollRetransmit has just expired.
    assert!(s1[0].has_poll());
    // Left: bytes 244..600 overlap SDU1 (rest 56) and SDU2 (300): 4 + 2 + 356 = 362.
    assert_eq!(a.buffer_status(ms(20)).retx_bytes, 362);
    assert_eq!(a.tx_buffer_bytes(), 362);
    let s2 = opportunity(&mut a, ms(20), 400);
    assert_eq!(
        (s2[0].kind(), s2[0].bytes(), s2[0].header_bytes()),
        (PduKind::AmSegment, 362, 6)
    );
    // Last retransmission with empty buffers: poll.
    assert!(s2[0].has_poll());
    assert_eq!(a.tx_buffer_bytes(), 0);
    assert_eq!(a.stats().pdus_retx, 2);
    // The receiver reassembles the PDU from its two segments, in any order.
    assert_eq!(receive(&mut b, ms(21), s2), Vec::<u64>::new());
    assert_eq!(receive(&mut b, ms(21), s1), vec![0, 1, 2]);
    // Its status acknowledges SN 0: ACK_SN 1, no NACK, 2 bytes.
    let st = opportunity(&mut b, ms(21), 100);
    assert_eq!(st[0].status(), Some((1, &[][..])));
    assert_eq!(st[0].bytes(), 2);
    receive(&mut a, ms(22), st);
    assert_eq!((a.unacked_pdus(), a.next_timer()), (0, None));
}

// ---------------------------------------------------------------- (2) buffer limit

#[test]
fn full_buffer_refuses_and_counts_exactly() {
    let mut a = AmEntity::new(&RlcConfig {
        max_tx_buffer_bytes: 3000,
        ..RlcConfig::default()
    });
    for id in 0..3 {
        a.send_sdu(ms(0), Sdu::new(id, 1000)).unwrap();
    }
    // 3000 + 1000 > 3000: refused, and handed back unchanged.
    assert_eq!(a.send_sdu(ms(0), Sdu::new(3, 1000)), Err(Sdu::new(3, 1000)));
    assert_eq!(a.tx_buffer_bytes(), 3000);
    // Sending 500 bytes of SDU0 (grant 504 = 4 + 500) frees 500: a 500-byte SDU fits
    // exactly (2500 + 500 = 3000), one more byte does not.
    opportunity(&mut a, ms(1), 504);
    assert_eq!(a.tx_buffer_bytes(), 2500);
    a.send_sdu(ms(1), Sdu::new(4, 500)).unwrap();
    assert_eq!(a.send_sdu(ms(1), Sdu::new(5, 1)), Err(Sdu::new(5, 1)));
    let s = a.stats();
    assert_eq!((s.sdus_in, s.sdus_dropped, s.bytes_dropped), (6, 2, 1001));
}

#[test]
fn nothing_is_lost_silently() {
    // Lossless, immediate air: after every step, every SDU offered is delivered, refused
    // or still queued at the transmitter (a partly sent SDU counts as queued).
    let mut rng = SimRng::seed_from_u64(7);
    let mut a = AmEntity::new(&RlcConfig {
        max_tx_buffer_bytes: 20_000,
        ..RlcConfig::default()
    });
    let mut b = AmEntity::new(&cfg());
    let mut delivered = Vec::new();
    for step in 0..3000u64 {
        let now = SimTime::from_us(125 * step);
        for _ in 0..rng.random_range(0..6) {
            let id = a.stats().sdus_in;
            let _ = a.send_sdu(now, Sdu::new(id, rng.random_range(1..=2500)));
        }
        let pdus = opportunity(&mut a, now, rng.random_range(5..=6000));
        for p in pdus {
            b.receive_pdu(now, p, &mut delivered);
        }
        let st = opportunity(&mut b, now, 100);
        receive(&mut a, now, st);
        let s = a.stats();
        assert_eq!(
            s.sdus_in,
            b.stats().sdus_delivered + s.sdus_dropped + a.sdus_queued() as u64
        );
    }
    assert!(a.stats().sdus_dropped > 0, "the test must exercise drops");
    // Delivered in order, without the refused ones.
    assert!(delivered.windows(2).all(|w| w[0].id < w[1].id));
}

// ---------------------------------------------------------------- (4) timers

#[test]
fn status_prohibit_limits_status_frequency() {
    // A sends one 100-byte SDU per ms, each PDU polls; B's t-StatusProhibit is 10 ms.
    // B: status at 0 ms (ACK_SN 1), then prohibited until 10 ms although every PDU
    // polls; at 10 ms the timer has expired → status (ACK_SN 11: SNs 0..=10 received);
    // at 20 ms → ACK_SN 21. Three statuses in 0..=20 ms instead of 21.
    let mut a = AmEntity::new(&cfg());
    let mut b = AmEntity::new(&cfg());
    let mut statuses = Vec::new();
    for t in 0..=20 {
        let now = ms(t);
        a.send_sdu(now, Sdu::new(t, 100)).unwrap();
        let p = opportunity(&mut a, now, 1000);
        assert!(p[0].has_poll());
        assert_eq!(receive(&mut b, now, p), vec![t]);
        if b.next_timer().is_some_and(|d| d <= now) {
            b.on_timer(now, &mut Vec::new());
        }
        if t == 5 {
            assert_eq!(b.buffer_status(now).status_bytes, 0);
            assert_eq!(b.next_timer(), Some(ms(10)));
        }
        for s in opportunity(&mut b, now, 1000) {
            statuses.push((t, s.status().unwrap().0));
            receive(&mut a, now, vec![s]);
        }
    }
    assert_eq!(statuses, vec![(0, 1), (10, 11), (20, 21)]);
    assert_eq!(b.stats().status_sent, 3);
    assert_eq!(a.unacked_pdus(), 0);
}

#[test]
fn poll_retransmit_recovers_a_lost_poll() {
    let mut a = AmEntity::new(&cfg());
    let mut b = AmEntity::new(&cfg());
    a.send_sdu(ms(0), Sdu::new(0, 100)).unwrap();
    // t = 0: SN 0, 104 bytes, polls; t-PollRetransmit runs until 0 + 20 ms. Lost.
    let lost = opportunity(&mut a, ms(0), 1000);
    assert!(lost[0].has_poll());
    assert_eq!(a.next_timer(), Some(ms(20)));
    a.on_timer(ms(20) - SimTime(1), &mut Vec::new());
    assert_eq!(a.buffer_status(ms(20)).retx_bytes, 0);
    // t = 20 ms: expiry with both buffers empty → SN 0 (104 B) waits for retransmission.
    a.on_timer(ms(20), &mut Vec::new());
    assert_eq!(a.stats().poll_retransmit_expiries, 1);
    assert_eq!(a.buffer_status(ms(20)).retx_bytes, 104);
    let re = opportunity(&mut a, ms(20), 1000);
    assert_eq!(
        (re[0].sn(), re[0].bytes(), re[0].kind()),
        (Some(0), 104, PduKind::AmData)
    );
    assert!(re[0].has_poll());
    // The poll restarted the timer: 20 + 20 = 40 ms.
    assert_eq!(a.next_timer(), Some(ms(40)));
    assert_eq!(receive(&mut b, ms(21), re), vec![0]);
    let st = opportunity(&mut b, ms(21), 1000);
    receive(&mut a, ms(22), st);
    // ACK_SN 1 > POLL_SN 0: timer stopped, SN 0 acknowledged.
    assert_eq!(
        (a.next_timer(), a.unacked_pdus(), a.tx_buffer_bytes()),
        (None, 0, 0)
    );
}

#[test]
fn reordering_timer_reports_a_gap() {
    let mut a = AmEntity::new(&cfg());
    let mut b = AmEntity::new(&RlcConfig {
        t_status_prohibit: ms(1),
        ..cfg()
    });
    // Three SDUs of 100 B in three 104-byte grants: SN 0, 1, 2. SN 1 is lost.
    let mut p = Vec::new();
    for id in 0..3 {
        a.send_sdu(ms(0), Sdu::new(id, 100)).unwrap();
        p.extend(opportunity(&mut a, ms(0), 104));
    }
    let sn2 = p.pop().unwrap();
    let _lost = p.pop().unwrap();
    // t = 1 ms: SN 0 → delivered, VR(R) = 1. SN 2 → VR(H) = 3 > VR(R): t-Reordering
    // starts, expiring at 1 + 10 = 11 ms, VR(X) = 3.
    assert_eq!(receive(&mut b, ms(1), p), vec![0]);
    assert_eq!(receive(&mut b, ms(1), vec![sn2]), Vec::<u64>::new());
    // The poll's status reports nothing missing yet: ACK_SN = VR(MS) = 1.
    let st = opportunity(&mut b, ms(1), 100);
    assert_eq!(st[0].status(), Some((1, &[][..])));
    receive(&mut a, ms(2), st);
    assert_eq!(b.next_timer(), Some(ms(11)));
    b.on_timer(ms(11) - SimTime(1), &mut Vec::new());
    assert_eq!(b.buffer_status(ms(11) - SimTime(1)).status_bytes, 0);
    // t = 11 ms: VR(MS) = first SN ≥ VR(X) = 3 not received = 3; status triggered:
    // NACK 1, ACK_SN 3, ceil((15 + 12)/8) = 4 bytes.
    b.on_timer(ms(11), &mut Vec::new());
    assert_eq!(b.stats().reordering_expiries, 1);
    assert_eq!(b.buffer_status(ms(11)).status_bytes, 4);
    let st = opportunity(&mut b, ms(11), 100);
    assert_eq!(st[0].status(), Some((3, &[1u64][..])));
    assert_eq!(st[0].bytes(), 4);
    // A: SN 1 waits for retransmission (104 B), SN 2 is acknowledged.
    receive(&mut a, ms(12), st);
    assert_eq!(
        (a.buffer_status(ms(12)).retx_bytes, a.unacked_pdus()),
        (104, 2)
    );
    let re = opportunity(&mut a, ms(12), 104);
    assert_eq!(receive(&mut b, ms(13), re), vec![1, 2]);
}

#[test]
fn a_list_acknowledged_while_the_receiver_holds_it_comes_back_to_the_shared_pool() {
    // The gap of `reordering_timer_reports_a_gap`, with both ends on one pool. SN 2 is
    // acknowledged while B still holds it above the gap, so A cannot take its list back;
    // B hands it back once SN 1 arrives and SN 2 is reassembled. With a pool per end that
    // list was lost and A's next PDU allocated a new one.
    let pool = SharedPool::default();
    let mut a = AmEntity::with_pool(&cfg(), pool.clone());
    let mut b = AmEntity::with_pool(
        &RlcConfig {
            t_status_prohibit: ms(1),
            ..cfg()
        },
        pool.clone(),
    );
    let mut p = Vec::new();
    for id in 0..3 {
        a.send_sdu(ms(0), Sdu::new(id, 100)).unwrap();
        p.extend(opportunity(&mut a, ms(0), 104));
    }
    let sn2 = p.pop().unwrap();
    drop(p.pop());
    assert_eq!(receive(&mut b, ms(1), p), vec![0]);
    assert_eq!(receive(&mut b, ms(1), vec![sn2]), Vec::<u64>::new());
    b.on_timer(ms(11), &mut Vec::new());
    let st = opportunity(&mut b, ms(11), 100);
    assert_eq!(st[0].status(), Some((3, &[1u64][..])));
    // SN 0's list comes back (B reassembled it and let go); SN 2's is still B's.
    receive(&mut a, ms(12), st);
    assert_eq!(pool.borrow().free_lists(), 1);
    let re = opportunity(&mut a, ms(12), 104);
    assert_eq!(receive(&mut b, ms(13), re), vec![1, 2]);
    // B let go of SN 2 last: its list is back. SN 1's comes with the next status.
    assert_eq!(pool.borrow().free_lists(), 2);
    b.on_timer(ms(13), &mut Vec::new());
    let st = opportunity(&mut b, ms(14), 100);
    assert_eq!(st[0].status(), Some((3, &[][..])));
    receive(&mut a, ms(15), st);
    assert_eq!(pool.borrow().free_lists(), 3);
}

// ---------------------------------------------------------------- (1) lossy air

/// Two AM entities over an "air" that loses whole transport blocks with probability
/// `loss` and delays the others by 1 to 1 + `reorder` slots (HARQ-like reordering).
fn run_lossy(seed: u64, loss: f64, n: u64, reorder: u64, cfg: RlcConfig) -> (Vec<u64>, AmEntity) {
    let mut rng = SimRng::seed_from_u64(seed);
    let mut ends = [AmEntity::new(&cfg), AmEntity::new(&cfg)];
    let slot = SimTime::from_us(125);
    // (arrival, sequence, receiving end, PDUs)
    let mut air: Vec<(SimTime, u64, usize, Vec<Pdu>)> = Vec::new();
    let mut seq = 0;
    let mut next_id = 0;
    let mut delivered = Vec::new();
    let mut at_a = Vec::new();
    for step in 0..400_000u64 {
        let now = SimTime(slot.ns() * step);
        for _ in 0..rng.random_range(0..4) {
            if next_id < n {
                ends[0]
                    .send_sdu(now, Sdu::new(next_id, rng.random_range(1..=3000)))
                    .unwrap();
                next_id += 1;
            }
        }
        air.sort_by_key(|x| (x.0, x.1));
        while air.first().is_some_and(|x| x.0 <= now) {
            let (_, _, to, pdus) = air.remove(0);
            let sink = if to == 1 { &mut delivered } else { &mut at_a };
            for p in pdus {
                ends[to].receive_pdu(now, p, sink);
            }
        }
        for (i, e) in ends.iter_mut().enumerate() {
            if e.next_timer().is_some_and(|t| t <= now) {
                e.on_timer(now, if i == 1 { &mut delivered } else { &mut at_a });
            }
        }
        for (i, e) in ends.iter_mut().enumerate() {
            let mut tb = Vec::new();
            e.tx_opportunity(now, rng.random_range(8..=4000), &mut tb);
            if !tb.is_empty() && rng.random::<f64>() >= loss {
                let delay = 1 + rng.random_range(0..=reorder);
                air.push((SimTime(now.ns() + delay * slot.ns()), seq, 1 - i, tb));
                seq += 1;
            }
        }
        let a = &ends[0];
        if next_id == n && a.tx_buffer_bytes() == 0 && a.unacked_pdus() == 0 {
            break;
        }
    }
    assert!(at_a.is_empty(), "B sent no data");
    let [a, _] = ends;
    (delivered.iter().map(|s| s.id).collect(), a)
}

proptest! {
    // No regression files: this crate keeps no proptest-regressions directory.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(40) })]
    #[test]
    fn lossy_air_delivers_every_sdu_once_in_order(
        seed: u64,
        loss_pct in 10u32..=30,
        n in 1u64..250,
        reorder in 0u64..=3,
        fast_timers: bool,
        sn_bits in prop::sample::select(vec![4u8, 6, 10]),
    ) {
        // sn_bits 4 and 6 (windows of 8 and 32 PDUs) make the window stall.
        let base = if fast_timers { RlcConfig::mmwave_tcp_2017() } else { cfg() };
        let cfg = RlcConfig { sn_bits, ..base };
        prop_assert_eq!(cfg.mode, RlcMode::Am);
        let (ids, a) = run_lossy(seed, loss_pct as f64 / 100.0, n, reorder, cfg);
        prop_assert_eq!(ids, (0..n).collect::<Vec<_>>());
        // The transmitter drained: nothing queued, nothing to retransmit, all acked.
        prop_assert_eq!(a.tx_buffer_bytes(), 0);
        prop_assert_eq!(a.unacked_pdus(), 0);
        let bs = a.buffer_status(SimTime::NEVER);
        prop_assert_eq!((bs.new_bytes, bs.retx_bytes), (0, 0));
        prop_assert_eq!(a.stats().sdus_dropped, 0);
    }
}

#[test]
fn lossy_air_at_30_percent_needs_retransmissions() {
    let (ids, a) = run_lossy(1, 0.3, 300, 3, cfg());
    assert_eq!(ids, (0..300).collect::<Vec<_>>());
    assert!(a.stats().pdus_retx > 0);
}
