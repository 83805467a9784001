use super::parse::*;
use super::serve::*;
use super::*;
use proptest::prelude::*;

fn ms(x: u64) -> SimTime {
    SimTime::from_ms(x)
}
fn us(x: u64) -> SimTime {
    SimTime::from_us(x)
}

fn csv_err(text: &str) -> TraceError {
    RateTrace::from_csv(text).expect_err("trace should be rejected")
}

// ---- CSV parsing ----

#[test]
fn csv_parses_units_comments_and_blank_lines() {
    let t = RateTrace::from_csv(
        "# a comment\n\ntime_s, rate_mbps\n0, 8\n# another\n0.001, 16.5\n\n0.002,0\n",
    )
    .unwrap();
    // 8 Mbit/s for 1 ms = 8000 bit = 1000 B; 16.5 Mbit/s for 1 ms = 16 500 bit
    // = 2062.5 B; then outage. Total 3062.5 B, floored.
    assert_eq!(t.capacity_bytes(SimTime::ZERO, ms(10)), 3062);
    assert_eq!(t.is_constant(), None);
}

#[test]
fn csv_accepts_columns_in_either_order_and_all_units() {
    let a = RateTrace::from_csv("rate_kbps,time_s\n1.5,0\n").unwrap();
    assert_eq!(a.is_constant(), Some(Rate(1_500)));
    let b = RateTrace::from_csv("time_s,rate_gbps\n0,2.5\n").unwrap();
    assert_eq!(b.is_constant(), Some(Rate(2_500_000_000)));
    let c = RateTrace::from_csv("time_s,rate_bps\n0,1e3\n").unwrap();
    assert_eq!(c.is_constant(), Some(Rate(1_000)));
}

#[test]
fn csv_empty_or_headerless_inputs_are_rejected() {
    let e = csv_err("");
    assert_eq!(e.line, None);
    let e = csv_err("# only a comment\n\n");
    assert_eq!(e.line, None);
    let e = csv_err("time_s,rate_bps\n");
    assert_eq!(e.line, None);
    assert!(e.message.contains("no data rows"), "{e}");
}

#[test]
fn csv_missing_header_names_the_line() {
    let e = csv_err("# comment\n0,100\n1,200\n");
    assert_eq!(e.line, Some(2));
    assert!(e.message.contains("missing header"), "{e}");
}

#[test]
fn csv_unknown_header_column_names_the_line() {
    let e = csv_err("time_s,rate_foo\n0,1\n");
    assert_eq!(e.line, Some(1));
    assert!(e.message.contains("unknown column `rate_foo`"), "{e}");
    let e = csv_err("time_s,rate_bps,extra\n0,1,2\n");
    assert_eq!(e.line, Some(1));
    assert!(e.message.contains("exactly two columns"), "{e}");
    let e = csv_err("time_s,time_s\n0,1\n");
    assert_eq!(e.line, Some(1));
    let e = csv_err("rate_bps,rate_mbps\n0,1\n");
    assert_eq!(e.line, Some(1));
}

#[test]
fn csv_non_increasing_time_names_the_line() {
    let e = csv_err("time_s,rate_bps\n0,1\n0.5,2\n0.5,3\n");
    assert_eq!(e.line, Some(4));
    assert!(e.message.contains("strictly increase"), "{e}");
    let e = csv_err("time_s,rate_bps\n0,1\n0.5,2\n0.25,3\n");
    assert_eq!(e.line, Some(4));
}

#[test]
fn csv_negative_rate_names_the_line() {
    let e = csv_err("time_s,rate_bps\n0,1\n1,-5\n");
    assert_eq!(e.line, Some(3));
    assert!(e.message.contains("negative"), "{e}");
}

#[test]
fn csv_garbage_numbers_name_the_line() {
    for bad in ["abc", "1.2.3", "nan", "inf", "", "1e", "--1", "0x10"] {
        let e = csv_err(&format!("time_s,rate_bps\n0,1\n1,{bad}\n"));
        assert_eq!(e.line, Some(3), "{bad}: {e}");
        assert!(e.message.contains("not a number"), "{bad}: {e}");
    }
    let e = csv_err("time_s,rate_bps\n0,1\nx,1\n");
    assert_eq!(e.line, Some(3));
    let e = csv_err("time_s,rate_bps\n0,1\n1\n");
    assert_eq!(e.line, Some(3));
    assert!(e.message.contains("expected 2 fields"), "{e}");
    let e = csv_err("time_s,rate_bps\n0,1\n1,99999999999999999999\n");
    assert_eq!(e.line, Some(3));
    assert!(e.message.contains("too large"), "{e}");
}

#[test]
fn csv_not_starting_at_zero_names_the_line() {
    let e = csv_err("time_s,rate_bps\n\n0.5,1\n1,2\n");
    assert_eq!(e.line, Some(3));
    assert!(e.message.contains("time 0"), "{e}");
}

#[test]
fn error_display_includes_the_line() {
    let e = csv_err("time_s,rate_bps\n0,1\n1,-5\n");
    assert!(e.to_string().starts_with("line 3: "), "{e}");
}

#[test]
fn decimal_parsing_is_exact_and_rounds_to_nearest() {
    assert_eq!(parse_scaled("0.001", 9), Ok(1_000_000));
    assert_eq!(parse_scaled("0.0005", 9), Ok(500_000));
    assert_eq!(parse_scaled("1.5e-3", 9), Ok(1_500_000));
    assert_eq!(parse_scaled("+2", 0), Ok(2));
    assert_eq!(parse_scaled(".5", 0), Ok(1)); // half rounds up
    assert_eq!(parse_scaled("0.49", 0), Ok(0));
    assert_eq!(parse_scaled("-0", 0), Ok(0));
    assert_eq!(parse_scaled("1e-50", 0), Ok(0));
    assert_eq!(parse_scaled("18446744073709551615", 0), Ok(u64::MAX));
    assert_eq!(
        parse_scaled("18446744073709551616", 0),
        Err(NumError::TooLarge)
    );
    assert_eq!(parse_scaled("1e10000000", 0), Err(NumError::TooLarge));
    assert_eq!(parse_scaled("-1", 0), Err(NumError::Negative));
}

// ---- Mahimahi parsing ----

#[test]
fn mahimahi_parse_errors() {
    let e = RateTrace::from_mahimahi("").unwrap_err();
    assert_eq!(e.line, None);
    let e = RateTrace::from_mahimahi("\n\n").unwrap_err();
    assert_eq!(e.line, None);
    let e = RateTrace::from_mahimahi("1\n3\n2\n").unwrap_err();
    assert_eq!(e.line, Some(3));
    let e = RateTrace::from_mahimahi("1\nx\n").unwrap_err();
    assert_eq!(e.line, Some(2));
    let e = RateTrace::from_mahimahi("1\n-2\n").unwrap_err();
    assert_eq!(e.line, Some(2));
    let e = RateTrace::from_mahimahi("0\n0\n").unwrap_err();
    assert_eq!(e.line, Some(2));
    let e = RateTrace::from_mahimahi("99999999999999999\n").unwrap_err();
    assert_eq!(e.line, Some(1));
}

#[test]
fn mahimahi_cannot_take_a_period() {
    let t = RateTrace::from_mahimahi("1\n").unwrap();
    assert!(t.with_period(ms(5)).is_err());
}

// ---- Piecewise service ----

#[test]
fn constant_1_gbps_serves_1500_bytes_in_12_us_back_to_back() {
    let mut s = TraceServer::new(RateTrace::constant(Rate::gbps(1)));
    // 1500 B * 8 = 12 000 bit at 1e9 bit/s = 12 µs.
    assert_eq!(s.serve(SimTime::ZERO, 1500), us(12));
    // Back to back: each further packet adds 12 µs.
    assert_eq!(s.serve(us(12), 1500), us(24));
    assert_eq!(s.serve(us(24), 1500), us(36));
    // After idling until 100 µs, service restarts from the new start.
    assert_eq!(s.serve(us(100), 1500), us(112));
}

#[test]
fn finish_rounds_up_to_the_next_ns() {
    let mut s = TraceServer::new(RateTrace::constant(Rate::bps(3)));
    // 8 bit at 3 bit/s = 2.666... s -> 2 666 666 667 ns.
    assert_eq!(s.serve(SimTime::ZERO, 1), SimTime(2_666_666_667));
}

#[test]
fn packet_straddling_a_rate_increase() {
    let t = RateTrace::from_csv("time_s,rate_mbps\n0,8\n0.001,16\n").unwrap();
    let mut s = TraceServer::new(t);
    // Start 0.5 ms: 0.5 ms at 8 Mbit/s = 4000 bit; 12 000 - 4000 = 8000 bit remain,
    // at 16 Mbit/s that is 0.5 ms, so the finish is 1.5 ms.
    assert_eq!(s.serve(us(500), 1500), us(1500));
    // Next one entirely at 16 Mbit/s: 12 000 bit / 16e6 = 0.75 ms -> 2.25 ms.
    assert_eq!(s.serve(us(1500), 1500), us(2250));
}

#[test]
fn packet_straddling_a_rate_decrease() {
    let t = RateTrace::from_csv("time_s,rate_bps\n0,1000000000\n0.000006,100000000\n").unwrap();
    let mut s = TraceServer::new(t);
    // 6 µs at 1 Gbit/s = 6000 bit; the other 6000 bit at 100 Mbit/s take 60 µs:
    // finish at 66 µs.
    assert_eq!(s.serve(SimTime::ZERO, 1500), us(66));
}

#[test]
fn packet_spanning_several_segments() {
    let t = RateTrace::from_csv("time_s,rate_mbps\n0,1\n0.001,2\n0.002,4\n0.003,8\n").unwrap();
    let mut s = TraceServer::new(t);
    // Capacity per ms: 1000, 2000, 4000 bit, then 8000 bit/ms. 12 000 bit need the
    // first three ms (7000 bit) plus 5000 bit at 8 Mbit/s = 0.625 ms -> 3.625 ms.
    assert_eq!(s.serve(SimTime::ZERO, 1500), us(3625));
}

#[test]
fn outage_delays_a_straddling_packet_by_its_length() {
    let with_outage = RateTrace::from_csv("time_s,rate_mbps\n0,12\n1,0\n2,12\n").unwrap();
    let mut s = TraceServer::new(with_outage);
    // 12 000 bit at 12 Mbit/s = 1 ms. Starting at 0.9995 s, half is served before the
    // outage and half after it: 2.0005 s, against 1.0005 s without the outage.
    let start = SimTime(999_500_000);
    assert_eq!(s.serve(start, 1500), SimTime(2_000_500_000));
    let mut plain = TraceServer::new(RateTrace::constant(Rate::mbps(12)));
    assert_eq!(plain.serve(start, 1500), SimTime(1_000_500_000));
    // A packet starting inside the outage waits for it to end: 2.5 s + 1 ms.
    assert_eq!(
        s.serve(SimTime(2_500_000_000), 1500),
        SimTime(2_501_000_000)
    );
}

#[test]
fn packet_starting_inside_an_outage_waits_for_its_end() {
    let t = RateTrace::from_csv("time_s,rate_mbps\n0,12\n1,0\n2,12\n").unwrap();
    let mut s = TraceServer::new(t);
    // Starts at 1.2 s, nothing flows until 2 s, then 1 ms of service.
    assert_eq!(
        s.serve(SimTime(1_200_000_000), 1500),
        SimTime(2_001_000_000)
    );
}

#[test]
fn zero_rate_forever_never_finishes() {
    let t = RateTrace::from_csv("time_s,rate_mbps\n0,12\n0.001,0\n").unwrap();
    let mut s = TraceServer::new(t);
    // The first 1 ms carries exactly 1500 B, so the first packet just fits.
    assert_eq!(s.serve(SimTime::ZERO, 1500), ms(1));
    assert_eq!(s.serve(ms(1), 1), SimTime::NEVER);
    let mut z = TraceServer::new(RateTrace::constant(Rate(0)));
    assert_eq!(z.serve(SimTime::ZERO, 1), SimTime::NEVER);
    let mut zp = TraceServer::new(RateTrace::constant(Rate(0)).with_period(ms(1)).unwrap());
    assert_eq!(zp.serve(SimTime::ZERO, 1), SimTime::NEVER);
}

#[test]
fn zero_byte_packets_finish_at_their_start() {
    let mut s = TraceServer::new(RateTrace::constant(Rate(0)));
    assert_eq!(s.serve(ms(3), 0), ms(3));
}

#[test]
fn periodic_csv_wraps() {
    // On for 1 ms at 12 Mbit/s (1500 B), off for 1 ms, repeating every 2 ms.
    let t = RateTrace::from_csv("time_s,rate_mbps\n0,12\n0.001,0\n")
        .unwrap()
        .with_period(ms(2))
        .unwrap();
    let mut s = TraceServer::new(t.clone());
    assert_eq!(s.serve(SimTime::ZERO, 1500), ms(1));
    // 3000 B from 1 ms: off until 2 ms, 1500 B by 3 ms, off, 1500 B by 5 ms.
    assert_eq!(s.serve(ms(1), 3000), ms(5));
    // Far ahead, mid on-phase of period 500 (1000.5 ms): 0.5 ms gives 750 B, off
    // 1001-1002 ms, the other 750 B take 0.5 ms: 1002.5 ms.
    assert_eq!(s.serve(us(1_000_500), 1500), us(1_002_500));
    // A 15 000 B packet needs ten on-phases; from 0 the tenth ends at 19 ms.
    let mut big = TraceServer::new(t.clone());
    assert_eq!(big.serve(SimTime::ZERO, 15_000), ms(19));
    // Same from an on-phase start in a later period: 1004 ms + 19 ms.
    assert_eq!(big.serve(ms(1004), 15_000), ms(1023));
}

#[test]
fn with_period_must_exceed_the_last_row() {
    let t = RateTrace::from_csv("time_s,rate_mbps\n0,12\n0.001,0\n").unwrap();
    assert!(t.clone().with_period(ms(1)).is_err());
    assert!(t.clone().with_period(us(999)).is_err());
    assert!(t.with_period(SimTime(1_000_001)).is_ok());
    assert!(RateTrace::constant(Rate(1))
        .with_period(SimTime::ZERO)
        .is_err());
}

// ---- Mahimahi service ----

fn mm_133() -> RateTrace {
    RateTrace::from_mahimahi("1\n1\n3\n").unwrap()
}

#[test]
fn mahimahi_back_to_back_packets_and_wrap() {
    let mut s = TraceServer::new(mm_133());
    // Opportunities at 1, 1, 3 ms, then 4, 4, 6 ms, then 7, 7, 9 ms, ...
    assert_eq!(s.serve(SimTime::ZERO, 1500), ms(1));
    assert_eq!(s.serve(ms(1), 1500), ms(1)); // second opportunity at 1 ms
    assert_eq!(s.serve(ms(1), 1500), ms(3));
    assert_eq!(s.serve(ms(3), 1500), ms(4)); // first wrap: 3 + 1
    assert_eq!(s.serve(ms(4), 1500), ms(4));
    assert_eq!(s.serve(ms(4), 1500), ms(6)); // 3 + 3
    assert_eq!(s.serve(ms(6), 1500), ms(7)); // 6 + 1
}

#[test]
fn mahimahi_large_packets_use_several_opportunities() {
    let mut s = TraceServer::new(mm_133());
    // 3000 B = both opportunities at 1 ms.
    assert_eq!(s.serve(SimTime::ZERO, 3000), ms(1));
    let mut s = TraceServer::new(mm_133());
    // 9000 B = six opportunities: 1, 1, 3, 4, 4, 6 ms.
    assert_eq!(s.serve(SimTime::ZERO, 9000), ms(6));
    // 10 000 B from 6 ms: 7, 7, 9, 10, 10, 12, 13 ms carry 7 * 1500 = 10 500 B;
    // the last byte goes at 13 ms, leaving 500 B of it.
    assert_eq!(s.serve(ms(6), 10_000), ms(13));
    assert_eq!(s.serve(ms(13), 500), ms(13));
    // Cycle 4 has a second opportunity at 13 ms: 1 B, then its other 1499 B.
    assert_eq!(s.serve(ms(13), 1), ms(13));
    assert_eq!(s.serve(ms(13), 1499), ms(13));
    // Both 13 ms opportunities are used up; next is 15 ms.
    assert_eq!(s.serve(ms(13), 1), ms(15));
}

#[test]
fn mahimahi_huge_packet_skips_whole_cycles() {
    let mut s = TraceServer::new(mm_133());
    // 3 * 1000 + 1 opportunities: 1000 full cycles end at 3000 ms, the next
    // opportunity is 3000 + 1 ms.
    assert_eq!(s.serve(SimTime::ZERO, 1500 * 3001), ms(3001));
    // Then the second opportunity at 3001 ms is still free.
    assert_eq!(s.serve(ms(3001), 1500), ms(3001));
    // Exactly three cycles' worth from 0: nine opportunities, the last at 9 ms, not
    // the first of a fourth cycle.
    let mut s = TraceServer::new(mm_133());
    assert_eq!(s.serve(SimTime::ZERO, 13_500), ms(9));
    assert_eq!(s.serve(ms(9), 1500), ms(10));
}

#[test]
fn mahimahi_leftover_serves_only_a_waiting_packet() {
    let mut s = TraceServer::new(mm_133());
    // 1000 B leaves 500 B of the first 1 ms opportunity; a 500 B packet waiting at
    // 1 ms uses them.
    assert_eq!(s.serve(SimTime::ZERO, 1000), ms(1));
    assert_eq!(s.serve(ms(1), 500), ms(1));
    // The second 1 ms opportunity is still whole.
    assert_eq!(s.serve(ms(1), 1500), ms(1));
    assert_eq!(s.serve(ms(1), 1), ms(3));

    let mut s = TraceServer::new(mm_133());
    assert_eq!(s.serve(SimTime::ZERO, 1000), ms(1));
    // Idle until 1.5 ms: the 500 B left at 1 ms are lost; the other 1 ms
    // opportunity has passed too, so the next packet goes at 3 ms.
    assert_eq!(s.serve(us(1500), 500), ms(3));

    let mut s = TraceServer::new(mm_133());
    // A 1000 B packet waiting at 1 ms takes the 500 B leftover plus 500 B of the
    // second 1 ms opportunity.
    assert_eq!(s.serve(SimTime::ZERO, 1000), ms(1));
    assert_eq!(s.serve(ms(1), 1000), ms(1));
    assert_eq!(s.serve(ms(1), 1000), ms(1));
    assert_eq!(s.serve(ms(1), 1), ms(3));
}

#[test]
fn mahimahi_start_on_a_period_boundary_finds_the_last_opportunity() {
    // "0\n2\n": opportunities at 0, 2, 2, 4, 4, 6 ms ... (cycles share boundaries).
    let t = RateTrace::from_mahimahi("0\n2\n").unwrap();
    let mut s = TraceServer::new(t);
    assert_eq!(s.serve(us(1), 1500), ms(2));
    assert_eq!(s.serve(ms(2), 1500), ms(2));
    assert_eq!(s.serve(ms(2), 1500), ms(4));
    // Idle to exactly 8 ms: opportunities at 8 ms from cycles 3 and 4 are both left.
    assert_eq!(s.serve(ms(8), 1500), ms(8));
    assert_eq!(s.serve(ms(8), 1500), ms(8));
    assert_eq!(s.serve(ms(8), 1500), ms(10));
}

#[test]
fn mahimahi_far_start_after_many_cycles() {
    let mut s = TraceServer::new(mm_133());
    // 1 000 000 cycles of 3 ms: at 3 000 000.5 ms the next opportunities are at
    // 3 000 001 ms (twice).
    assert_eq!(s.serve(us(3_000_000_500), 1500), ms(3_000_001));
    assert_eq!(s.serve(ms(3_000_001), 1500), ms(3_000_001));
    assert_eq!(s.serve(ms(3_000_001), 1500), ms(3_000_003));
}

// ---- capacity and mean rate ----

#[test]
fn capacity_and_mean_rate_of_piecewise_traces() {
    let t = RateTrace::from_csv("time_s,rate_mbps\n0,8\n0.001,16\n").unwrap();
    // [0.5 ms, 1.5 ms): 4000 bit + 8000 bit = 12 000 bit = 1500 B, mean 12 Mbit/s.
    assert_eq!(t.capacity_bytes(us(500), us(1500)), 1500);
    assert_eq!(t.mean_rate(us(500), us(1500)), Rate::mbps(12));
    // [0, 1 ms) at 8 Mbit/s: 1000 B.
    assert_eq!(t.capacity_bytes(SimTime::ZERO, ms(1)), 1000);
    // 1 ns at 8 Mbit/s is 0.008 bit: rounds down to 0 B.
    assert_eq!(t.capacity_bytes(SimTime::ZERO, SimTime(1)), 0);
    assert_eq!(t.capacity_bytes(ms(2), ms(1)), 0);
    assert_eq!(t.mean_rate(ms(2), ms(1)), Rate(0));

    // Periodic: 12 Mbit/s for 1 ms of every 2 ms. [0.5 ms, 4.5 ms) holds on-time
    // 0.5 + 1 + 0.5 = 2 ms = 3000 B, a mean of 24 000 bit / 4 ms = 6 Mbit/s.
    let p = RateTrace::from_csv("time_s,rate_mbps\n0,12\n0.001,0\n")
        .unwrap()
        .with_period(ms(2))
        .unwrap();
    assert_eq!(p.capacity_bytes(us(500), us(4500)), 3000);
    assert_eq!(p.mean_rate(us(500), us(4500)), Rate::mbps(6));
    // 1 s holds 500 on-phases: 750 000 B.
    assert_eq!(
        p.capacity_bytes(SimTime::ZERO, SimTime::from_secs(1)),
        750_000
    );
}

#[test]
fn capacity_and_mean_rate_of_mahimahi_traces() {
    let t = mm_133();
    // [0, 3 ms) holds the two 1 ms opportunities; [0, 3 ms + 1 ns) also the 3 ms one.
    assert_eq!(t.capacity_bytes(SimTime::ZERO, ms(3)), 3000);
    assert_eq!(t.capacity_bytes(SimTime::ZERO, ms(3) + SimTime(1)), 4500);
    // [1 ms, 4 ms): 1, 1, 3 ms. [3 ms, 7 ms): 3, 4, 4, 6 ms.
    assert_eq!(t.capacity_bytes(ms(1), ms(4)), 4500);
    assert_eq!(t.capacity_bytes(ms(3), ms(7)), 6000);
    // Three opportunities per 3 ms period: 36 000 bit / 3 ms = 12 Mbit/s.
    assert_eq!(t.mean_rate(ms(1), ms(4)), Rate::mbps(12));
    // Two in [0, 3 ms): 24 000 bit / 3 ms = 8 Mbit/s.
    assert_eq!(t.mean_rate(SimTime::ZERO, ms(3)), Rate::mbps(8));
    // 1000 periods of 3 opportunities each.
    assert_eq!(t.capacity_bytes(us(500), ms(3000) + us(500)), 4_500_000);

    // "0\n2\n": opportunities 0, 2, 2, 4, 4, ... [0, 2 ms) holds only 0 ms;
    // [0, 2 ms + 1 ns) adds both 2 ms ones; [2 ms, 4 ms) holds the two at 2 ms.
    let z = RateTrace::from_mahimahi("0\n2\n").unwrap();
    assert_eq!(z.capacity_bytes(SimTime::ZERO, ms(2)), 1500);
    assert_eq!(z.capacity_bytes(SimTime::ZERO, ms(2) + SimTime(1)), 4500);
    assert_eq!(z.capacity_bytes(ms(2), ms(4)), 3000);
}

#[test]
fn is_constant() {
    assert_eq!(
        RateTrace::constant(Rate::mbps(5)).is_constant(),
        Some(Rate::mbps(5))
    );
    let same = RateTrace::from_csv("time_s,rate_bps\n0,7\n1,7\n").unwrap();
    assert_eq!(same.is_constant(), Some(Rate(7)));
    assert_eq!(mm_133().is_constant(), None);
    assert_eq!(RateTrace::from_mahimahi("1\n").unwrap().is_constant(), None);
}

// ---- export and round trips ----

#[test]
fn csv_round_trip() {
    let text = "time_s,rate_bps\n0,8000000\n0.0005,0\n1.25,16000000\n3,12345\n";
    let t = RateTrace::from_csv(text).unwrap();
    assert_eq!(t.to_csv(SimTime::from_secs(10)), text);
    assert_eq!(
        RateTrace::from_csv(&t.to_csv(SimTime::from_secs(10))).unwrap(),
        t
    );
    // Rows at or after `until` are dropped.
    assert_eq!(
        t.to_csv(SimTime::from_secs(1)),
        "time_s,rate_bps\n0,8000000\n0.0005,0\n"
    );
    // Other units are written in bit/s.
    let k = RateTrace::from_csv("time_s,rate_kbps\n0,1.5\n").unwrap();
    assert_eq!(k.to_csv(SimTime::from_secs(1)), "time_s,rate_bps\n0,1500\n");
}

#[test]
fn periodic_csv_export_unrolls_and_merges() {
    let t = RateTrace::from_csv("time_s,rate_mbps\n0,1\n0.001,2\n")
        .unwrap()
        .with_period(ms(3))
        .unwrap();
    // Periods start at 0, 3, 6 ms: 1 Mbit/s at 0, 3, 6; 2 Mbit/s at 1, 4, 7 ms.
    assert_eq!(
        t.to_csv(ms(8)),
        "time_s,rate_bps\n0,1000000\n0.001,2000000\n0.003,1000000\n\
         0.004,2000000\n0.006,1000000\n0.007,2000000\n"
    );
    let c = RateTrace::constant(Rate(5)).with_period(ms(1)).unwrap();
    assert_eq!(c.to_csv(SimTime::from_secs(1)), "time_s,rate_bps\n0,5\n");
}

#[test]
fn mahimahi_to_csv_uses_1_ms_bins() {
    // Bins: 0 ms: none; 1 ms: two (24 Mbit/s); 2 ms: none; 3 ms: one (12 Mbit/s);
    // 4 ms: two (from the wrap); 5 ms: none; 6 ms: one; until 7 ms.
    assert_eq!(
        mm_133().to_csv(ms(7)),
        "time_s,rate_bps\n0,0\n0.001,24000000\n0.002,0\n0.003,12000000\n\
         0.004,24000000\n0.005,0\n0.006,12000000\n"
    );
    // One opportunity every ms is a steady 12 Mbit/s.
    let every_ms = RateTrace::from_mahimahi("1\n").unwrap();
    assert_eq!(
        every_ms.to_csv(ms(100)),
        "time_s,rate_bps\n0,0\n0.001,12000000\n"
    );
    // Capacity carries over: 1 ms bins hold the same bytes as the opportunities.
    let csv = RateTrace::from_csv(&mm_133().to_csv(ms(30))).unwrap();
    assert_eq!(
        csv.capacity_bytes(SimTime::ZERO, ms(30)),
        mm_133().capacity_bytes(SimTime::ZERO, ms(30))
    );
}

#[test]
fn mahimahi_round_trip_over_whole_periods() {
    let text = "0\n1\n1\n3\n3\n7\n";
    let t = RateTrace::from_mahimahi(text).unwrap();
    // One period: the same text.
    assert_eq!(t.to_mahimahi(ms(7)), text);
    // Three periods: the same schedule, written out with a 21 ms period.
    let three = RateTrace::from_mahimahi(&t.to_mahimahi(ms(21))).unwrap();
    assert_eq!(
        t.to_mahimahi(ms(21)),
        "0\n1\n1\n3\n3\n7\n7\n8\n8\n10\n10\n14\n14\n15\n15\n17\n17\n21\n"
    );
    for (a, b) in [(0, 21), (0, 7), (3, 50), (7, 8), (20, 100)] {
        assert_eq!(
            three.capacity_bytes(ms(a), ms(b) + SimTime(1)),
            t.capacity_bytes(ms(a), ms(b) + SimTime(1)),
            "[{a}, {b}] ms"
        );
    }
    let mut s1 = TraceServer::new(t);
    let mut s3 = TraceServer::new(three);
    let mut now = SimTime::ZERO;
    for i in 0..200u64 {
        let bytes = 200 + (i * 977) % 3000;
        let f1 = s1.serve(now, bytes);
        assert_eq!(f1, s3.serve(now, bytes));
        now = f1 + SimTime((i % 3) * 400_000);
    }
}

#[test]
fn constant_12_mbps_to_mahimahi_is_one_opportunity_per_ms() {
    let t = RateTrace::constant(Rate::mbps(12));
    // 1500 B = 12 000 bit take exactly 1 ms at 12 Mbit/s: crossings at 1, 2, ... ms.
    let text = t.to_mahimahi(SimTime::from_secs(1));
    let lines: Vec<u64> = text.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(lines, (1..=1000).collect::<Vec<u64>>());
    // Read back, it repeats every 1000 ms; [0.5 ms, 5000.5 ms) holds 5000
    // opportunities: 5000 * 12 000 bit / 5 s = 12 Mbit/s.
    let back = RateTrace::from_mahimahi(&text).unwrap();
    assert_eq!(back.mean_rate(us(500), us(5_000_500)), Rate::mbps(12));
}

#[test]
fn piecewise_to_mahimahi_follows_accumulated_capacity() {
    // 6 Mbit/s for 3 ms, outage to 5 ms, 24 Mbit/s after. Crossings of 12 000 bit:
    // 2 ms; 4 ms would be in the outage, so at 5 ms + 6000/24e6 s = 5.25 ms (floor
    // 5); then every 0.5 ms: 5.75 (5), 6.25 (6), 6.75 (6), 7.25 (7), 7.75 (7), 8.25...
    let t = RateTrace::from_csv("time_s,rate_mbps\n0,6\n0.003,0\n0.005,24\n").unwrap();
    assert_eq!(t.to_mahimahi(ms(8)), "2\n5\n5\n6\n6\n7\n7\n");
    // A trace with no capacity writes nothing.
    assert_eq!(RateTrace::constant(Rate(0)).to_mahimahi(ms(10)), "");
    let off = RateTrace::constant(Rate(0)).with_period(ms(1)).unwrap();
    assert_eq!(off.to_mahimahi(ms(10)), "");
}

#[test]
fn periodic_to_mahimahi() {
    // 12 Mbit/s on 1 ms of every 2 ms: one opportunity at the end of each on-phase.
    let p = RateTrace::from_csv("time_s,rate_mbps\n0,12\n0.001,0\n")
        .unwrap()
        .with_period(ms(2))
        .unwrap();
    assert_eq!(p.to_mahimahi(ms(8)), "1\n3\n5\n7\n");
}

#[test]
fn fmt_secs_is_exact() {
    assert_eq!(fmt_secs(0), "0");
    assert_eq!(fmt_secs(500_000), "0.0005");
    assert_eq!(fmt_secs(2_000_000_000), "2");
    assert_eq!(fmt_secs(1_000_000_001), "1.000000001");
}

// ---- long traces stay fast ----

#[test]
fn long_mahimahi_trace_is_served_in_linear_time() {
    // 80 000 opportunities over 60 s (a few per ms, with gaps).
    let mut text = String::new();
    for i in 0..80_000u64 {
        let _ = writeln!(text, "{}", i * 60_000 / 80_000 + 1);
    }
    let t = RateTrace::from_mahimahi(&text).unwrap();
    let mut s = TraceServer::new(t);
    let mut now = SimTime::ZERO;
    let mut served = 0u64;
    // 2 000 000 packets: a run that walked the trace from the start each time would
    // take ~10^11 steps; the cursor keeps it to a couple of seconds.
    for i in 0..2_000_000u64 {
        let f = s.serve(now, 1000 + (i % 7) * 100);
        assert!(f >= now);
        served += 1;
        now = if i % 1000 == 0 { f + us(1234) } else { f };
    }
    assert_eq!(served, 2_000_000);
    // Average rate 80 000 * 12 000 bit / 60 s = 16 Mbit/s; ~2.6 GB take ~1300 s.
    assert!(now > SimTime::from_secs(1000), "{now}");
}

// ---- property tests ----

/// Opportunity-by-opportunity replay of Mahimahi's link queue loop, given packet
/// arrival times: each opportunity gives 1500 B to queued packets that arrived by
/// its time, in order, and unused bytes are dropped.
fn mahimahi_reference(opps_ms: &[u64], packets: &[(u64, u64)]) -> Vec<u64> {
    let period_ns = opps_ms.last().unwrap() * NS_PER_MS;
    let mut finishes = Vec::new();
    let mut next = 0; // next packet to dequeue
    let mut in_transit: Option<u64> = None;
    'cycles: for cycle in 0u64.. {
        for &o in opps_ms {
            let t = cycle * period_ns + o * NS_PER_MS;
            let mut left = OPPORTUNITY_BYTES;
            while left > 0 {
                let rem = match in_transit {
                    Some(r) => r,
                    None => {
                        if next < packets.len() && packets[next].0 <= t {
                            next += 1;
                            packets[next - 1].1
                        } else {
                            break;
                        }
                    }
                };
                let sent = rem.min(left);
                left -= sent;
                if rem == sent {
                    finishes.push(t);
                    in_transit = None;
                    if finishes.len() == packets.len() {
                        break 'cycles;
                    }
                } else {
                    in_transit = Some(rem - sent);
                }
            }
        }
    }
    finishes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn piecewise_finish_agrees_with_capacity(
        rows in prop::collection::vec(
            (
                1u64..2_000_000,
                prop_oneof![Just(0u64), 1u64..1_000, 1u64..20_000_000_000],
            ),
            1..8,
        ),
        period_tail in prop::option::of(1u64..3_000_000),
        packets in prop::collection::vec(
            (
                prop_oneof![Just(0u64), 0u64..4_000_000],
                prop_oneof![1u64..30_000, 1u64..3_000_000],
            ),
            1..60,
        ),
    ) {
        let mut text = String::from("time_s,rate_bps\n");
        let mut t_ns = 0;
        for &(dur_ns, rate_bps) in &rows {
            let _ = writeln!(text, "{},{rate_bps}", fmt_secs(t_ns));
            t_ns += dur_ns;
        }
        let last_start_ns = t_ns - rows.last().unwrap().0;
        let mut trace = RateTrace::from_csv(&text).unwrap();
        if let Some(tail) = period_tail {
            trace = trace.with_period(SimTime(last_start_ns + tail)).unwrap();
        }
        prop_assert_eq!(RateTrace::from_csv(&trace.to_csv(SimTime(t_ns))).unwrap()
            .capacity_bytes(SimTime::ZERO, SimTime(t_ns)),
            trace.capacity_bytes(SimTime::ZERO, SimTime(t_ns)));
        let mut server = TraceServer::new(trace.clone());
        let mut now = SimTime::ZERO;
        for &(gap_ns, bytes) in &packets {
            let start = now + SimTime(gap_ns);
            let finish = server.serve(start, bytes);
            if finish == SimTime::NEVER {
                prop_assert!(trace.capacity_bytes(start, SimTime(u64::MAX - 1)) < bytes);
                break;
            }
            prop_assert!(finish >= start);
            prop_assert!(trace.capacity_bytes(start, finish + SimTime(1)) >= bytes);
            // The stronger form: the fluid finish, rounded up, already holds it all.
            prop_assert!(trace.capacity_bytes(start, finish) >= bytes);
            if finish > start {
                prop_assert!(trace.capacity_bytes(start, finish - SimTime(1)) < bytes);
            }
            now = finish;
        }
    }

    #[test]
    fn mahimahi_server_matches_a_replay_of_mahimahi(
        steps in prop::collection::vec(0u64..3, 1..12),
        first in 0u64..3,
        packets in prop::collection::vec(
            (
                prop_oneof![Just(0u64), Just(1_000_000u64), 0u64..9_000_000],
                prop_oneof![
                    4 => 1u64..5000,
                    1 => 1u64..200_000,
                    1 => (1u64..100).prop_map(|k| k * OPPORTUNITY_BYTES),
                ],
            ),
            1..80,
        ),
    ) {
        let mut opps_ms = Vec::new();
        let mut t = first;
        for s in steps {
            t += s;
            opps_ms.push(t);
        }
        if *opps_ms.last().unwrap() == 0 {
            opps_ms.push(1);
        }
        let text: String = opps_ms.iter().map(|o| format!("{o}\n")).collect();
        let trace = RateTrace::from_mahimahi(&text).unwrap();
        // Arrivals: each packet arrives `gap` after the previous one arrived.
        let mut arrivals = Vec::new();
        let mut a = 0u64;
        for &(gap_ns, bytes) in &packets {
            a += gap_ns;
            arrivals.push((a, bytes));
        }
        let expected = mahimahi_reference(&opps_ms, &arrivals);
        let mut server = TraceServer::new(trace);
        let mut prev_finish = 0u64;
        for (i, &(arrival, bytes)) in arrivals.iter().enumerate() {
            let start = arrival.max(prev_finish);
            let finish = server.serve(SimTime(start), bytes).ns();
            prop_assert_eq!(finish, expected[i], "packet {}", i);
            prev_finish = finish;
        }
    }
}

#[test]
fn invisible_characters_are_shown_by_their_code_point() {
    let e = RateTrace::from_csv("\u{feff}time_s,rate_mbps\n0,10\n").unwrap_err();
    assert_eq!(e.line, Some(1));
    assert!(e.message.contains("`<U+FEFF>time_s`"), "{e}");
    assert!(e.message.contains("byte-order mark"), "{e}");
    let e = RateTrace::from_csv("time_s,rate_mbps\n0,1\u{200b}0\n").unwrap_err();
    assert_eq!(e.line, Some(2));
    assert!(e.message.contains("`1<U+200B>0`"), "{e}");
    assert!(e.message.contains("invisible"), "{e}");
    let e = RateTrace::from_csv("time_s,rate_mbps\n0,1\u{a0}0\n").unwrap_err();
    assert!(e.message.contains("`1<U+00A0>0`"), "{e}");
}
