//! X-TCP on a radio link of constant quality (a constant SINR trace).
//!
//! One static UE, 2017 preset, uplink bulk TCP to a server 11 ms away (RTT ≈ 22.6 ms).

use super::common::*;
use mmtsim_scenario::{load_str, Format};
use mmtsim_world::{run, RunControl};
use std::path::Path;

fn scenario(cc: &str) -> String {
    constant_sinr_cell(
        "4s",
        &format!(
            r#"
[[flows]]
from = "ue"
to = "server"
cc = {cc}
tcp = {{ mss = "1400B", initial_cwnd = 1 }}
"#
        ),
    )
}

/// At 30 dB the window is the measured rate × rtt_min: cwnd within 10 % of goodput ×
/// rtt_min (goodput counts payload, and so does cwnd), and the UE's RLC buffer stays near
/// empty (a full BDP here is ≈ 2.9 Gbit/s × 22.8 ms ≈ 8 MB; CUBIC keeps megabytes queued,
/// see `ran::tcp_bloats_the_rlc_buffer_while_udp_at_80_percent_does_not`).
///
/// The bounds, derived: X-TCP's estimate is the rate of the whole data region (22 symbols
/// of the 2017 subframe), but the flow's own ACKs take downlink symbols from the same TDD
/// frame. At ≈ 2.9 Gbit/s with an ACK every 2 segments of 1400 B that is ≈ 13 ACKs
/// (< 1 kB) per 100 µs subframe, one symbol of ≈ 39 kB / 22 ≈ 1.8 kB at MCS 28, so the
/// uplink gets 21 of 22 symbols: the window exceeds goodput × rtt_min by ≈ 22/21 − 1 =
/// 4.8 %, and that excess is what stands in the RLC buffer (≈ 4.8 % of the BDP). The
/// assertions allow up to 10 % for both (the header share of 60 B per segment is an
/// approximation of the real overhead).
#[test]
fn cwnd_tracks_rate_times_rtt_min_and_the_rlc_buffer_stays_empty() {
    let out = run_at_sinr(&scenario("\"xtcp\""), 30.0);
    let f = flow(&out, 0);
    let good_bps = f["goodput_mbps"].as_f64().unwrap() * 1e6;
    let rtt_min_s = f["rtt_min_ms"].as_f64().unwrap() * 1e-3;
    let cwnd = mean_since(&out, "cwnd", "cwnd_bytes", 1.0);
    let bdp = good_bps * rtt_min_s / 8.0;
    let rlc = mean_since(&out, "ran", "rlc_ul_bytes", 1.0);
    let rtt_mean = f["rtt_mean_ms"].as_f64().unwrap();
    eprintln!(
        "6d: goodput {:.1} Mbit/s, rtt_min {:.2} ms, mean RTT {rtt_mean:.2} ms, cwnd {:.0} kB vs rate×rtt_min {:.0} kB, RLC {:.1} kB",
        good_bps / 1e6,
        rtt_min_s * 1e3,
        cwnd / 1e3,
        bdp / 1e3,
        rlc / 1e3
    );
    assert!((cwnd - bdp).abs() / bdp < 0.10, "cwnd {cwnd} vs {bdp}");
    assert!(rlc < 0.10 * bdp, "RLC buffer {rlc} B vs BDP {bdp} B");
    assert!(good_bps > 2.5e9, "the link is used: {good_bps}");
}

/// Below 0 dB the λ branch scales the window: with λ = 0.85 against λ = 1 (same channel,
/// same grants) the window and the goodput are 0.85 times as large.
#[test]
fn below_0_db_the_lambda_branch_scales_the_window() {
    let mut res = vec![];
    for cc in [
        "{ algorithm = \"xtcp\", lambda = 0.85 }",
        "{ algorithm = \"xtcp\", lambda = 1.0 }",
    ] {
        let out = run_at_sinr(&scenario(cc), -1.0);
        let cwnd = mean_since(&out, "cwnd", "cwnd_bytes", 1.0);
        let good = flow(&out, 0)["goodput_mbps"].as_f64().unwrap();
        eprintln!(
            "6d: SINR −1 dB, {cc}: cwnd {:.0} kB, goodput {good:.1} Mbit/s",
            cwnd / 1e3
        );
        res.push((cwnd, good));
    }
    let ratio = res[0].0 / res[1].0;
    eprintln!("6d: cwnd ratio {ratio:.3} (λ = 0.85)");
    assert!((ratio - 0.85).abs() < 0.05, "cwnd ratio {ratio}");
}

#[test]
fn xtcp_from_a_wired_host_fails_validation() {
    let bad = scenario("\"xtcp\"").replace(
        "from = \"ue\"\nto = \"server\"",
        "from = \"server\"\nto = \"ue\"",
    );
    let msg = load_error(&bad);
    assert!(
        msg.contains("flows[0].cc") && msg.contains("must start at a UE"),
        "{msg}"
    );
}

/// Regression: the shipped NR FR2 example with X-TCP on the walking UE's uplink
/// (1.5 MB RLC buffers, fixed TDD DDDSU). It used to stall for good: X-TCP rated the uplink
/// at its rate during an uplink slot (5× what DDDSU's uplink carries), its first window
/// (≈ 7.6 MB) overflowed the RLC buffer, and the ≈ 4400 refused packets had already taken
/// PDCP COUNTs; every later packet then lay outside the gNB's 2048-COUNT PDCP window and was
/// discarded, retransmissions included (≈ 2 Mbit/s, RTOs backing off). Now the uplink must
/// carry at least half what CUBIC carries on the same channel, with few timeouts.
#[test]
fn the_nr_fr2_example_uplink_does_not_stall_under_xtcp() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let text = std::fs::read_to_string(dir.join("nr-fr2.toml")).expect("example");
    let run_with = |cc: &str| {
        let sets = [
            format!("flows.2.cc={cc}"),
            "simulation.duration=5s".to_string(),
        ];
        let l = load_str(&text, Format::Toml, "nr-fr2.toml", &dir, &sets).expect("loads");
        run(&l, &RunControl::default()).expect("run")
    };
    let (x, c) = (run_with("xtcp"), run_with("cubic"));
    let (gx, gc) = (
        flow(&x, 2)["goodput_mbps"].as_f64().unwrap(),
        flow(&c, 2)["goodput_mbps"].as_f64().unwrap(),
    );
    let rtos = flow(&x, 2)["rtos"].as_u64().unwrap();
    eprintln!("nr-fr2 uplink: xtcp {gx:.1} Mbit/s ({rtos} RTOs), cubic {gc:.1} Mbit/s");
    assert!(gx > 0.5 * gc, "xtcp {gx} vs cubic {gc} Mbit/s");
    assert!(rtos <= 2, "{rtos} RTOs");
}
