//! Properties of split TCP (I-TCP [ITCP-1995]) that any run must have, over random paths.
//!
//! 1. Exactly once, in order, through the relay: whatever the server–relay link, the
//!    relay–UE path and the radio lose, and across a handover, a file the server sends
//!    reaches the UE's application whole. A TCP receiver hands its application only the
//!    contiguous prefix of the byte stream, so "exactly once and in order" holds iff the
//!    bytes delivered equal the file size (a duplicate would overshoot, a hole stall below
//!    it), as in `reliability.rs`; here it must hold for both legs, and the relay must
//!    forward exactly what it read.
//! 2. The relay bounds memory: when the UE side stalls, the relay holds at most its
//!    buffer, the first leg's receive window closes, and the server is held back: what
//!    the relay has read exceeds what the UE has read by at most the buffer, at every
//!    instant.
//!
//! The case generator is seeded, so CI explores the same cases.

use super::common::*;
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Path {
    /// Bernoulli loss on the server–relay link, forward and reverse.
    loss_first: (f64, f64),
    /// Bernoulli loss on the relay–router link (the second leg's wired part).
    loss_second: (f64, f64),
    /// The radio without HARQ and with RLC in unacknowledged mode: a transport block that
    /// fails to decode loses the packets it carries.
    lossy_radio: bool,
    /// The UE's SINR every 20 ms, dB (then the last value holds): the AMC chooses from
    /// reports a few slots old, so a falling SINR fails blocks.
    sinr_db: Vec<f64>,
    /// When the UE is handed over from site A to site B, ms.
    handover_ms: u32,
    file_kb: u32,
    relay_buffer_kb: u32,
    cc: &'static str,
    relay_cc: &'static str,
}

fn path_strategy() -> impl Strategy<Value = Path> {
    (
        (0.0..0.04f64, 0.0..0.04f64, 0.0..0.04f64, 0.0..0.04f64),
        (
            any::<bool>(),
            proptest::collection::vec(-2.0..25.0f64, 100),
            20u32..400,
            20u32..600,
            prop_oneof![Just(20u32), Just(100), Just(4000)],
            prop_oneof![Just("newreno"), Just("cubic")],
            prop_oneof![Just("newreno"), Just("cubic"), Just("bbr")],
        ),
    )
        .prop_map(
            |(
                (l1f, l1r, l2f, l2r),
                (lossy_radio, sinr_db, handover_ms, file_kb, buf, cc, relay_cc),
            )| {
                Path {
                    loss_first: (l1f, l1r),
                    loss_second: (l2f, l2r),
                    lossy_radio,
                    sinr_db,
                    handover_ms,
                    file_kb,
                    relay_buffer_kb: buf,
                    cc,
                    relay_cc,
                }
            },
        )
}

/// server — 10 ms — relay — 1 ms — router — 1 ms / 5 ms — gNB sites A and B (Xn 2 ms
/// between them), the UE half-way between the sites at the SINR of `sinr.csv`
/// ([`sinr_trace`]) whichever site serves it; `[core]` at the
/// router, a scripted handover from A to B; a file from the server to the UE split at
/// the relay. The maximum RTO is capped at 2 s so that unlucky loss bursts cost seconds,
/// not minutes (the property is about bytes, not time).
/// The SINR trace of `p`.
fn sinr_trace(p: &Path) -> String {
    let mut t = String::from("time_s,sinr_db\n");
    for (k, v) in p.sinr_db.iter().enumerate() {
        t += &format!("{:.2},{v:.2}\n", k as f64 * 0.020);
    }
    t
}

fn scenario(p: &Path) -> String {
    let radio = if p.lossy_radio {
        "harq = false\nrlc = { mode = \"um\" }"
    } else {
        ""
    };
    format!(
        r#"
[simulation]
duration = "120s"

[metrics]
sample_interval = "100ms"

[[nodes]]
name = "server"
[[nodes]]
name = "relay"
[[nodes]]
name = "router"

[[links]]
between = ["server", "relay"]
delay = "10ms"
rate = "1Gbps"
loss = {{ kind = "bernoulli", p = {l1f} }}
reverse = {{ rate = "1Gbps", loss = {{ kind = "bernoulli", p = {l1r} }} }}
[[links]]
between = ["relay", "router"]
delay = "1ms"
rate = "1Gbps"
loss = {{ kind = "bernoulli", p = {l2f} }}
reverse = {{ rate = "1Gbps", loss = {{ kind = "bernoulli", p = {l2r} }} }}
[[links]]
between = ["router", "A"]
delay = "1ms"
rate = "100Gbps"
[[links]]
between = ["router", "B"]
delay = "5ms"
rate = "100Gbps"
[[links]]
between = ["A", "B"]
delay = "2ms"
rate = "100Gbps"

[core]
upf = "router"

[ran]
preset = "mmwave-2017"
{radio}

[[ran.gnbs]]
name = "A"
position_m = [0, 0, 10]
[[ran.gnbs]]
name = "B"
position_m = [30, 0, 10]

[[ran.ues]]
name = "ue"
position_m = [15, 0, 1.5]
gnb = "A"
sinr_trace = "sinr.csv"

[[events]]
at = "{handover}ms"
handover = {{ ue = "ue", to = "B" }}

[[flows]]
name = "file"
from = "server"
to = "ue"
cc = "{cc}"
app = {{ kind = "file", size = "{file_kb}kB" }}
tcp = {{ max_rto = "2s" }}
relay = {{ node = "relay", buffer = "{buf}kB", cc = "{relay_cc}", tcp = {{ max_rto = "2s" }} }}
"#,
        l1f = p.loss_first.0,
        l1r = p.loss_first.1,
        l2f = p.loss_second.0,
        l2r = p.loss_second.1,
        handover = p.handover_ms,
        cc = p.cc,
        relay_cc = p.relay_cc,
        file_kb = p.file_kb,
        buf = p.relay_buffer_kb,
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x6974_6370),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_byte_crosses_the_relay_exactly_once_in_order(p in path_strategy(), seed in 0u64..1_000_000) {
        let out = run_with_files(&scenario(&p), &[("sinr.csv", &sinr_trace(&p))], Some(seed));
        let (one, two) = (flow(&out, 0), flow(&out, 1));
        let size = p.file_kb as u64 * 1000;
        let n = |v: &serde_json::Value| v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"));
        // The relay read the whole file from the first leg, wrote exactly that into the
        // second, and the UE's application read exactly that.
        prop_assert_eq!(n(&one["bytes_delivered"]), size, "first leg, {:?}", p);
        prop_assert_eq!(n(&two["relay"]["forwarded_bytes"]), size, "forwarded, {:?}", p);
        prop_assert_eq!(n(&two["bytes_delivered"]), size, "second leg, {:?}", p);
        let t1 = one["completion_time_s"].as_f64();
        let t2 = two["completion_time_s"].as_f64();
        prop_assert!(t1.is_some() && t2.is_some(), "not completed: {:?} {:?} {:?}", t1, t2, p);
        // The server is done once the relay has the file, never after the UE is.
        prop_assert!(t1 <= t2, "{:?} > {:?}, {:?}", t1, t2, p);
        // The handover did happen (a path switch at the UPF).
        prop_assert_eq!(n(&out.summary["core"]["path_switches"]), 1, "{:?}", p);
    }
}

/// server — 1 Gbit/s, 5 ms — relay — 50 Mbit/s, 5 ms, stopping for 2 s at 1 s — client:
/// a bulk flow split at the relay, whose buffer is `buffer_kb`; the first leg's receive
/// buffer is 200 kB; goodput binned every 10 ms.
fn stalled(buffer_kb: u32) -> mmtsim_world::RunOutput {
    let trace = "time_s,rate_mbps\n0,50\n1,0\n3,50\n";
    let text = format!(
        r#"
[simulation]
duration = "4s"
[metrics]
goodput_bin = "10ms"
sample_interval = "10ms"
[[nodes]]
name = "server"
[[nodes]]
name = "relay"
[[nodes]]
name = "client"
[[links]]
between = ["server", "relay"]
delay = "5ms"
rate = "1Gbps"
[[links]]
between = ["relay", "client"]
delay = "5ms"
trace = {{ file = "outage.csv" }}
reverse = {{ rate = "50Mbps" }}
queue = {{ limit = "200kB" }}
[[flows]]
name = "bulk"
from = "server"
to = "client"
cc = "cubic"
tcp = {{ rcv_buf = "200kB" }}
relay = {{ node = "relay", buffer = "{buffer_kb}kB" }}
"#
    );
    run_with_files(&text, &[("outage.csv", trace)], None)
}

/// Flow `f`'s bytes delivered by the end of each goodput bin.
fn cumulative_delivered(out: &mmtsim_world::RunOutput, f: u32) -> Vec<f64> {
    let flows = u32s(out, "goodput", "flow");
    let mbps = column_f64(out, "goodput", "goodput_mbps");
    let bin_s = 0.010;
    let mut acc = 0.0;
    flows
        .iter()
        .zip(&mbps)
        .filter(|(g, _)| **g == f)
        .map(|(_, r)| {
            acc += r * 1e6 / 8.0 * bin_s;
            acc
        })
        .collect()
}

#[test]
fn a_stalled_ue_side_fills_the_relay_and_then_holds_the_server() {
    for buffer_kb in [20u32, 300, 2000] {
        let out = stalled(buffer_kb);
        let buffer = buffer_kb as f64 * 1000.0;
        let (one, two) = (flow(&out, 0), flow(&out, 1));
        // The relay never holds more than its buffer.
        let held_max = two["relay"]["buffer_max_bytes"].as_f64().unwrap();
        assert!(held_max <= buffer, "{buffer_kb} kB: held {held_max}");
        // What the relay read (the first leg's deliveries) less what the client read is
        // what the relay holds, less what the client has but the relay has not seen
        // acknowledged: at most the buffer, at the end of every bin. (Goodput bins are
        // bytes over the bin in Mbit/s; 1 byte of rounding per bin is allowed.)
        let (c1, c2) = (cumulative_delivered(&out, 0), cumulative_delivered(&out, 1));
        assert_eq!(c1.len(), c2.len());
        for (k, (a, b)) in c1.iter().zip(&c2).enumerate() {
            assert!(
                *a <= *b + buffer + (k + 1) as f64,
                "{buffer_kb} kB: at {} s the relay read {a} B, the client {b} B",
                (k + 1) as f64 * 0.010
            );
        }
        // Once the relay and the first leg's window are full (within 0.1 s of the stall
        // at 1 s: 200 kB + the buffer at 1 Gbit/s over a 10 ms round trip), the relay
        // reads nothing until the link returns at 3 s, and the server, held back by the
        // closed window, can have sent at most that window beyond what the relay read.
        let stalled_read: f64 = c1[299] - c1[110];
        assert!(
            stalled_read.abs() < 1.0,
            "{buffer_kb} kB: the relay read {stalled_read} B during the stall"
        );
        assert!(
            one["zero_window_acks"].as_u64().unwrap() > 0,
            "{buffer_kb} kB: {one}"
        );
        let t = column_f64(&out, "cwnd", "t_ns");
        let fl = u32s(&out, "cwnd", "flow");
        let inflight = column_f64(&out, "cwnd", "inflight_bytes");
        for ((t, f), b) in t.iter().zip(fl).zip(&inflight) {
            if *f == 0 {
                // 200 kB takes a window scale of 2: 3 bytes of rounding.
                assert!(
                    *b <= 200_000.0 + 3.0,
                    "{buffer_kb} kB: {b} B in flight at {} s",
                    t * 1e-9
                );
            }
        }
        // After the stall both legs carry the file on: the relay did not lose anything.
        assert!(c2.last().unwrap() > &c2[299], "{buffer_kb} kB: {two}");
    }
}
