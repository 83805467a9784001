//! 12b: a lossless 100 Mbit/s bottleneck with a 1-BDP buffer is kept full.
//!
//! Capacity in goodput terms: each 1400-byte segment costs 1400 + 52 bytes on the wire
//! (20 IP + 20 TCP + 12 timestamp option), so the most a flow can deliver is
//! 100 Mbit/s × 1400/1452 = 96.42 Mbit/s. With a buffer of one BDP (100 Mbit/s × 20 ms =
//! 250 kB) a window halving (NewReno) or ×0.7 cut (CUBIC) never drains the queue, so after
//! slow start the link should stay busy: goodput ≥ 95 % of that capacity.

use super::common::*;

fn goodput_after(cc: &str, from_s: f64) -> (f64, f64) {
    let s = dumbbell(
        "100Mbps",
        "10ms",
        r#"{ limit = "250kB" }"#,
        "40s",
        &format!("[[flows]]\nfrom = \"server\"\nto = \"client\"\ncc = \"{cc}\"\n"),
    );
    let out = run_toml(&s);
    let (t, v) = (
        f64s(&out, "goodput", "t_s"),
        f64s(&out, "goodput", "goodput_mbps"),
    );
    let sel: Vec<f64> = t
        .iter()
        .zip(v)
        .filter(|(t, _)| **t >= from_s)
        .map(|(_, v)| *v)
        .collect();
    let mean = sel.iter().sum::<f64>() / sel.len() as f64;
    let link = &out.summary["links"][0];
    let util = link["tx_bytes"].as_f64().unwrap() * 8.0 / 40.0 / 100e6;
    (mean, util)
}

#[test]
fn newreno_fills_a_1_bdp_buffered_link() {
    let (g, util) = goodput_after("newreno", 5.0);
    eprintln!("newreno: goodput {g:.2} Mbit/s after 5 s (capacity {PAYLOAD_CAPACITY_MBPS:.2}), utilisation {util:.3}");
    assert!(
        g >= 0.95 * PAYLOAD_CAPACITY_MBPS,
        "newreno goodput {g:.2} Mbit/s"
    );
}

#[test]
fn cubic_fills_a_1_bdp_buffered_link() {
    let (g, util) = goodput_after("cubic", 5.0);
    eprintln!("cubic: goodput {g:.2} Mbit/s after 5 s (capacity {PAYLOAD_CAPACITY_MBPS:.2}), utilisation {util:.3}");
    assert!(
        g >= 0.95 * PAYLOAD_CAPACITY_MBPS,
        "cubic goodput {g:.2} Mbit/s"
    );
}

#[test]
fn a_stopped_bulk_flow_sends_nothing_new_and_a_later_flow_takes_the_link() {
    // Flow 0 runs 0–10 s, flow 1 starts at 10 s: after the stop (and the ~1 RTT drain of
    // what was in flight) the second flow has the link to itself.
    let s = dumbbell(
        "100Mbps",
        "10ms",
        r#"{ limit = "250kB" }"#,
        "20s",
        r#"
[[flows]]
from = "server"
to = "client"
stop = "10s"
[[flows]]
from = "server"
to = "client"
start = "10s"
"#,
    );
    let out = run_toml(&s);
    let f = u32s(&out, "goodput", "flow");
    let (t, v) = (
        f64s(&out, "goodput", "t_s"),
        f64s(&out, "goodput", "goodput_mbps"),
    );
    let late0: f64 = f
        .iter()
        .zip(t)
        .zip(v)
        .filter(|((f, t), _)| **f == 0 && **t >= 10.5)
        .map(|(_, v)| *v)
        .sum();
    assert_eq!(late0, 0.0, "flow 0 delivered after it stopped");
    let g1 = flow(&out, 1)["goodput_mbps"].as_f64().unwrap();
    assert!(g1 > 0.9 * PAYLOAD_CAPACITY_MBPS, "flow 1 {g1}");
    // Goodput of flow 0 is over its 10 s of activity, not the 20 s run.
    let g0 = flow(&out, 0)["goodput_mbps"].as_f64().unwrap();
    assert!(g0 > 0.9 * PAYLOAD_CAPACITY_MBPS, "flow 0 {g0}");
}
