use super::pdu::li_cost;
use super::*;

#[test]
fn li_bytes_packs_12_bit_fields_in_pairs() {
    // k elements carry k−1 fields of 12 bits: 0, 12, 24, 36, 48 bits → 0, 2, 3, 5, 6 bytes.
    assert_eq!(
        (1..=5).map(li_bytes).collect::<Vec<_>>(),
        vec![0, 2, 3, 5, 6]
    );
    // The incremental costs used while filling add up to the same totals.
    let mut sum = 0;
    for k in 1..20 {
        sum += li_cost(k);
        assert_eq!(sum, li_bytes(k + 1));
    }
}

#[test]
fn presets_carry_the_documented_numbers() {
    let d = RlcConfig::default();
    assert_eq!(d.window(), 512);
    assert_eq!(d.max_tx_buffer_bytes, 1_048_576);
    let x = RlcConfig::mmwave_tcp_2017();
    assert_eq!(x.t_poll_retransmit, SimTime::from_ms(4));
    assert_eq!(x.t_reordering, SimTime::from_ms(2));
    assert_eq!(x.t_status_prohibit, SimTime::from_ms(1));
    assert_eq!(x.max_tx_buffer_bytes, 20 * 1_048_576);
    assert_eq!(RlcConfig::um_default().max_tx_buffer_bytes, 10_240);
}

fn codel_um() -> Rlc {
    Rlc::new(&RlcConfig {
        max_tx_buffer_bytes: 0,
        codel: Some(CodelParams::default()),
        ..RlcConfig::um_default()
    })
}

/// One 1000-byte SDU per opportunity: UM header 2 + 1000 (0 ≤ 2 bytes left → last).
fn send_one(r: &mut Rlc, now: SimTime) -> u64 {
    let mut out = Vec::new();
    r.tx_opportunity(now, 1002, &mut out);
    assert_eq!(out.len(), 1);
    r.stats().codel_drops
}

#[test]
fn codel_drops_once_sojourn_stays_above_target_for_an_interval() {
    // 1000 SDUs of 1000 B arrive at t = 0, so the sojourn of the SDU at the head is the
    // time of the opportunity. RFC 8289 with target 5 ms, interval 100 ms:
    let mut r = codel_um();
    for id in 0..1000 {
        r.send_sdu(SimTime::ZERO, Sdu::new(id, 1000)).unwrap();
    }
    let t = SimTime::from_ms;
    // 10 ms: sojourn 10 ≥ 5 ms → first_above_time = 110 ms, no drop.
    assert_eq!(send_one(&mut r, t(10)), 0);
    // 109 ms: still before first_above_time.
    assert_eq!(send_one(&mut r, t(109)), 0);
    // 110 ms: drop (count 1), next drop at 110 + 100/√1 = 210 ms.
    assert_eq!(send_one(&mut r, t(110)), 1);
    assert_eq!(send_one(&mut r, t(209)), 1);
    // 210 ms: second drop (count 2), next at 210 + 100/√2 = 280.71 ms.
    assert_eq!(send_one(&mut r, t(210)), 2);
    assert_eq!(send_one(&mut r, t(280)), 2);
    // 281 ms: third drop (count 3), next at 280.71 + 100/√3 = 338.45 ms.
    assert_eq!(send_one(&mut r, t(281)), 3);
    assert_eq!(send_one(&mut r, t(338)), 3);
    assert_eq!(send_one(&mut r, t(339)), 4);
    // The dropped SDUs are the heads at those instants: ids 2, 5, 8, 11 (one SDU is sent
    // after each drop, one before).
    let mut dropped = Vec::new();
    r.take_dropped(&mut dropped);
    assert_eq!(
        dropped.iter().map(|s| s.id).collect::<Vec<_>>(),
        vec![2, 5, 8, 11]
    );
    let s = r.stats();
    assert_eq!((s.sdus_dropped, s.bytes_dropped), (4, 4000));
    // Conservation: 1000 in = 4 dropped + 9 sent whole + the rest still queued.
    assert_eq!(r.sdus_queued(), 1000 - 4 - 9);
}

#[test]
fn codel_leaves_a_short_sojourn_alone() {
    let mut r = codel_um();
    for id in 0..100 {
        r.send_sdu(SimTime::from_ms(1000), Sdu::new(id, 1000))
            .unwrap();
    }
    // Every SDU waited 4 ms < 5 ms target.
    for _ in 0..100 {
        send_one(&mut r, SimTime::from_ms(1004));
    }
    assert_eq!(r.stats().codel_drops, 0);
    assert_eq!(r.tx_buffer_bytes(), 0);
}
