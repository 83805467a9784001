//! Late admission into the radio (`run/lazy.rs`) changes nothing but speed: a whole run
//! (`run`, which admits the packets reaching a cell's site late) and the same run
//! driven by a `Stepper` (which never does) give the same summary and tables, bit for
//! bit, including the event count, on random variations of the one-UE example: either
//! direction, buffers small enough to drop at admission, outages that leave the cell
//! idle, samples that fall on arrival instants; and on random runs of three cells on a
//! line, with handovers (measured and scripted), with and without the core's tunnels and
//! Xn.

use super::common::*;
use mmtsim_scenario::{load_file, Loaded};
use mmtsim_world::RunOutput;
use proptest::prelude::*;
use std::path::Path;

fn one_ue(overrides: &[String]) -> Loaded {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/mmwave-2017.toml");
    load_file(&path, overrides).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `loaded` both ways (`common.rs`); the whole run's output. (A light load may leave
/// the cell idle between packets, and then a whole run admits nothing late either: the
/// tests that must see late admissions check `late_instants` themselves.)
fn both_ways(loaded: &Loaded) -> RunOutput {
    whole_against_stepped(loaded)
}

fn assert_some_late(out: &RunOutput) {
    assert!(out.late_instants > 0, "the whole run admitted nothing late");
}

fn drops(out: &RunOutput, dir: &str) -> u64 {
    out.summary["ues"][0]["rlc_buffer_drops"][dir]
        .as_u64()
        .expect("drops")
}

#[test]
fn a_downlink_into_a_small_buffer_drops_the_same_packets_late() {
    // 2 Gbit/s from the server into a 100 kB RLC buffer: the gNB's buffer overflows at
    // arrivals, which late admission handles after the arrivals' instants.
    let out = both_ways(&one_ue(&[
        "simulation.duration=\"1500ms\"".into(),
        "flows.0.from=\"server\"".into(),
        "flows.0.to=\"ue1\"".into(),
        "ran.rlc.buffer=\"100kB\"".into(),
    ]));
    assert!(drops(&out, "dl") > 0, "no drop at the gNB's buffer");
    assert_some_late(&out);
}

#[test]
fn busy_cells_admit_late_on_the_slot_and_sample_grid_both_ways() {
    // Both directions, each congestion control family, at 1 Gbit/s (the cell stays busy):
    // arrivals on slot and sample instants (see the property test's `on_grid`).
    for downlink in [false, true] {
        for cc in ["cubic", "newreno", "bbr"] {
            let mut o: Vec<String> = vec![
                "simulation.duration=\"500ms\"".into(),
                format!("flows.0.cc=\"{cc}\""),
                "flows.0.app.rate=\"1Gbps\"".into(),
                "links.0.delay=\"999997ns\"".into(),
                "links.0.rate=\"10000Gbps\"".into(),
                "links.1.rate=\"10000Gbps\"".into(),
                "metrics.sample_interval=\"1ms\"".into(),
            ];
            if downlink {
                o.push("flows.0.from=\"server\"".into());
                o.push("flows.0.to=\"ue1\"".into());
            }
            assert_some_late(&both_ways(&one_ue(&o)));
        }
    }
}

#[test]
fn an_outage_leaves_the_cell_idle_and_its_arrivals_take_the_queue_again() {
    // The UE's outage from 300 to 700 ms: the cell runs out of grants to give, goes idle,
    // and ACKs or retransmissions that reach the site meanwhile must wake it on time.
    let out = both_ways(&one_ue(&[
        "simulation.duration=\"1200ms\"".into(),
        "ran.ues.0.outages=[{ start = \"300ms\", duration = \"400ms\" }]".into(),
    ]));
    assert_some_late(&out);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    #[test]
    fn late_admission_gives_the_stepped_runs_results(
        downlink in any::<bool>(),
        cc in prop_oneof![Just("cubic"), Just("newreno"), Just("bbr")],
        rate_mbps in 50u32..2500,
        buffer_kb in 30u32..3000,
        core_delay_us in 1u32..3000,
        slots_delay in 1u64..30,
        sample_slots in 5u32..200,
        on_grid in any::<bool>(),
        outage_ms in prop_oneof![Just(0u32), 20u32..400],
        um in any::<bool>(),
    ) {
        let mut o: Vec<String> = vec![
            "simulation.duration=\"700ms\"".into(),
            format!("flows.0.cc=\"{cc}\""),
            format!("flows.0.app.rate=\"{rate_mbps}Mbps\""),
            format!("ran.rlc.buffer=\"{buffer_kb}kB\""),
        ];
        if on_grid {
            // At 10 Tbit/s a full segment takes 2 ns to send and an ACK 1 ns, and the
            // gNB–core delay is whole 100 µs slots less 3 ns, so a segment's round trip
            // from the site back to it (four crossings, two of each delay, the 10 ms one
            // included, each direction once) is whole slots: a
            // burst decoded at a slot reaches the site again on a slot and, with samples
            // every few slots, on sample instants, where the order of events at one
            // instant decides.
            o.push(format!("links.0.delay=\"{}ns\"", slots_delay * 100_000 - 3));
            o.push("links.0.rate=\"10000Gbps\"".into());
            o.push("links.1.rate=\"10000Gbps\"".into());
            o.push(format!("metrics.sample_interval=\"{}us\"", 100 * sample_slots));
        } else {
            o.push(format!("links.0.delay=\"{core_delay_us}us\""));
            o.push(format!("metrics.sample_interval=\"{}us\"", 97 * sample_slots));
        }
        if downlink {
            o.push("flows.0.from=\"server\"".into());
            o.push("flows.0.to=\"ue1\"".into());
        }
        if outage_ms > 0 {
            o.push(format!("ran.ues.0.outages=[{{ start = \"150ms\", duration = \"{outage_ms}ms\" }}]"));
        }
        if um {
            o.push("ran.rlc.mode=\"um\"".into());
        }
        both_ways(&one_ue(&o));
    }
}

#[test]
fn many_cells_admit_late_at_each_site_through_handovers() {
    // With and without the core's tunnels: the walking UEs hand over while packets for
    // them are on their old site's wire (dropped there without Xn, with the core).
    for core in [true, false] {
        let out = both_ways(&load(&line_of_cells(&Line {
            duration_ms: 1500,
            core,
            xn: false,
            lossless: true,
            speed_mps: 30.0,
            buffer_kb: 1500,
            site_delay_ns: 1_000_000,
            sample_us: 1000,
            scripted_ms: Some(700),
            outage_ms: 0,
            interruption_ms: None,
        })));
        assert_some_late(&out);
        assert!(handovers_in(&out) >= 3, "{} handovers", handovers_in(&out));
        if core {
            assert!(
                out.summary["core"]["xn_dropped"].as_u64().unwrap() > 0,
                "no packet was on an old site's wire at a handover"
            );
        }
    }
}

#[test]
fn sites_joined_by_xn_take_no_late_admission_and_the_third_still_does() {
    let out = both_ways(&load(&line_of_cells(&Line {
        duration_ms: 1200,
        core: true,
        xn: true,
        lossless: false,
        speed_mps: 30.0,
        buffer_kb: 300,
        site_delay_ns: 1_000_000,
        sample_us: 1000,
        scripted_ms: None,
        outage_ms: 0,
        interruption_ms: None,
    })));
    assert_some_late(&out);
    assert!(out.summary["core"]["xn_forwarded"].as_u64().unwrap() > 0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    #[test]
    fn late_admission_in_many_cells_gives_the_stepped_runs_results(
        core in any::<bool>(),
        xn in any::<bool>(),
        lossless in any::<bool>(),
        speed_mps in 10.0f64..60.0,
        buffer_kb in 30u32..3000,
        on_grid in any::<bool>(),
        slots in 1u64..30,
        site_delay_us in 1u64..3000,
        sample_slots in 5u32..200,
        scripted_ms in prop_oneof![Just(None), (50u32..700).prop_map(Some)],
        outage_ms in prop_oneof![Just(0u32), 20u32..400],
        interruption_ms in prop_oneof![Just(None), (0u32..15).prop_map(Some)],
    ) {
        // On the grid the router–site delay is whole 100 µs slots less 3 ns and samples
        // fall on slots, so arrivals meet slot and sample instants.
        let (site_delay_ns, sample_us) = if on_grid {
            (slots * 100_000 - 3, 100 * sample_slots)
        } else {
            (site_delay_us * 1000, 97 * sample_slots)
        };
        both_ways(&load(&line_of_cells(&Line {
            duration_ms: 800,
            core,
            xn,
            lossless,
            speed_mps,
            buffer_kb,
            site_delay_ns,
            sample_us,
            scripted_ms,
            outage_ms,
            interruption_ms,
        })));
    }
}

#[test]
fn the_shipped_square_runs_the_same_late() {
    // Four sites behind the UPF, ten UEs of which six walk, A3 handovers.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/square-10ues.toml");
    let loaded =
        load_file(&path, &["simulation.duration=\"3s\"".into()]).unwrap_or_else(|e| panic!("{e}"));
    let out = both_ways(&loaded);
    assert_some_late(&out);
}
