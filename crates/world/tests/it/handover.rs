//! Measurement-based handover end to end: the A3 instant worked out from the path-loss
//! formula, time-to-trigger against a short blockage (ping-pong), lossless forwarding
//! under TCP, the failure path, and bad `[ran.handover]` input.
//!
//! Common setup: gNB sites A at (0, 0, 10 m) and B at (L, 0, 10 m), the 2017 preset at
//! 28 GHz, the NYU path-loss model with geometric LOS, no fading, no shadowing, no
//! interference, so a cell's RSRP is P_tx + G_bf − 61.4 − 20·log10(d3D) dB in LOS
//! ([AKDENIZ-2014] 28 GHz LOS: α = 61.4 dB, β = 2) and both cells have the same P_tx and
//! G_bf. The UE (1.5 m high, 8.5 m below the antennas) walks along the x axis at v m/s.
//! A server is 10 ms from a router (the UPF), the router 1 ms from A and 5 ms from B,
//! and an Xn link of 2 ms joins A and B.

use super::common::*;

/// Height of the antennas above the UE, m.
const DH_M: f64 = 8.5;

struct Walk {
    l_m: f64,
    x0_m: f64,
    v_mps: f64,
    duration: &'static str,
}

fn scenario(w: &Walk, handover: &str, ran_extra: &str, ue_extra: &str, flows: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
seed = 1

[[nodes]]
name = "server"
[[nodes]]
name = "router"

[[links]]
between = ["server", "router"]
delay = "10ms"
rate = "10Gbps"
[[links]]
between = ["router", "A"]
delay = "1ms"
rate = "10Gbps"
[[links]]
between = ["router", "B"]
delay = "5ms"
rate = "10Gbps"
[[links]]
name = "xn"
between = ["A", "B"]
delay = "2ms"
rate = "10Gbps"

[core]
upf = "router"

[ran]
preset = "mmwave-2017"
interference = false
{ran_extra}
[ran.channel]
fading = false
los = "geometric"

[ran.handover]
{handover}

[[ran.gnbs]]
name = "A"
position_m = [0, 0, 10]
[[ran.gnbs]]
name = "B"
position_m = [{l}, 0, 10]

[[ran.ues]]
name = "ue"
position_m = [{x0}, 0, 1.5]
gnb = "A"
mobility = {{ kind = "linear", velocity_mps = [{v}, 0, 0] }}
{ue_extra}

{flows}
"#,
        duration = w.duration,
        l = w.l_m,
        x0 = w.x0_m,
        v = w.v_mps,
    )
}

const CBR_1M: &str = r#"
[[flows]]
name = "down"
protocol = "udp"
from = "server"
to = "ue"
app = { kind = "cbr", rate = "1Mbps" }
"#;

/// Where the UE's distances to A and B have the ratio `r` = dA/dB > 1: with
/// dA² = x² + h², dB² = (L − x)² + h², dA² = r²·dB² is
/// (1 − r²)·x² + 2·r²·L·x − r²·L² + (1 − r²)·h² = 0; the root between L/2 and L.
fn crossing_m(l: f64, r: f64) -> f64 {
    let r2 = r * r;
    let (a, b, c) = (
        1.0 - r2,
        2.0 * r2 * l,
        -r2 * l * l + (1.0 - r2) * DH_M * DH_M,
    );
    let x = (-b + (b * b - 4.0 * a * c).sqrt()) / (2.0 * a);
    assert!(x > l / 2.0 && x < l, "root {x} outside (L/2, L)");
    x
}

/// The A3 entering condition Mn − Hys > Mp + Off with equal powers is
/// 20·log10(dA/dB) > Off + Hys. Returns the first measurement instant (period `p_ms`,
/// from 0) at which it holds, ns.
fn first_a3_instant_ns(w: &Walk, off_plus_hys_db: f64, p_ms: u64) -> u64 {
    let x = crossing_m(w.l_m, 10f64.powf(off_plus_hys_db / 20.0));
    let t_s = (x - w.x0_m) / w.v_mps;
    let k = t_s / (p_ms as f64 * 1e-3);
    assert!(
        (k - k.round()).abs() > 1e-6,
        "crossing on a measurement instant: ill-posed"
    );
    k.ceil() as u64 * p_ms * 1_000_000
}

fn handovers(out: &mmtsim_world::RunOutput) -> Vec<(u64, u32, u32, u32, f64, u64, u32)> {
    let t = u64s(out, "handovers", "t_ns");
    let from = u32s(out, "handovers", "from");
    let to = u32s(out, "handovers", "to");
    let kind = u32s(out, "handovers", "kind");
    let int = f64s(out, "handovers", "interruption_ms");
    let fwd = u64s(out, "handovers", "forwarded_bytes");
    let ok = u32s(out, "handovers", "success");
    (0..t.len())
        .map(|i| (t[i], from[i], to[i], kind[i], int[i], fwd[i], ok[i]))
        .collect()
}

const MS: u64 = 1_000_000;

#[test]
fn a3_hands_over_once_where_the_path_loss_says_after_ttt() {
    // L = 200 m, from x = 20 m at 10 m/s; Off 3 dB + Hys 1 dB: dA/dB > 10^(4/20) = 1.5849
    // at x ≈ 122.8 m, t ≈ 10.28 s; no filtering (k = 0), measurements every 10 ms, TTT
    // 100 ms. Served by B report 1 ms + Xn 2·2 ms + command 1 ms + interruption 50 ms
    // after the trigger.
    let w = Walk {
        l_m: 200.0,
        x0_m: 20.0,
        v_mps: 10.0,
        duration: "12s",
    };
    let ho = r#"algorithm = "a3"
offset_db = 3.0
hysteresis_db = 1.0
ttt = "100ms"
filter_k = 0
measurement_period = "10ms"
report_delay = "1ms"
command_delay = "1ms"
interruption = "50ms"
"#;
    let out = run_toml(&scenario(&w, ho, "", "", CBR_1M));
    let trigger = first_a3_instant_ns(&w, 4.0, 10) + 100 * MS;
    let h = handovers(&out);
    assert_eq!(h.len(), 1, "{h:?}");
    let (t, from, to, kind, int, _, ok) = h[0];
    assert_eq!((from, to, kind, ok), (0, 1, 0, 1));
    assert_eq!(
        t,
        trigger + (1 + 4 + 1 + 50) * MS,
        "trigger at {trigger} ns"
    );
    assert_eq!(int, 50.0);
    let ue = &out.summary["ues"][0];
    assert_eq!(ue["handovers"], 1);
    assert_eq!(ue["handover_failures"], 0);
    assert_eq!(ue["serving_cell"], "B");
}

#[test]
fn the_a3_instant_moves_with_the_offset() {
    // Off 6 dB + Hys 0: dA/dB > 10^(6/20) = 1.9953; same walk, TTT 0 and a 40 ms period.
    let w = Walk {
        l_m: 200.0,
        x0_m: 20.0,
        v_mps: 10.0,
        duration: "14s",
    };
    let ho = r#"algorithm = "a3"
offset_db = 6.0
hysteresis_db = 0.0
ttt = "0s"
filter_k = 0
measurement_period = "40ms"
xn_delay = "3ms"
"#;
    // `xn_delay` applies only between sites without a wired link: A and B have one (2 ms).
    let out = run_toml(&scenario(&w, ho, "", "", CBR_1M));
    let trigger = first_a3_instant_ns(&w, 6.0, 40);
    let h = handovers(&out);
    assert_eq!(h.len(), 1, "{h:?}");
    // Defaults: report 1 ms, command 1 ms, interruption 50 ms.
    assert_eq!(h[0].0, trigger + (1 + 4 + 1 + 50) * MS);
}

/// The walk of the blockage tests: L = 200 m, from x = 30.05 m at 10 m/s for 2 s (to
/// 50.05 m, always nearer A). A box 0.2 m thick and 2 m high across the path at x = 40 m shadows
/// A's line (from 10 m high) while the UE is at 40.2 m < x ≤ 8.5·40.2/8 = 42.71 m, about
/// 0.25 s; then A is NLOS (NYU NLOS at 41 m: 119 dB) and B LOS (at 159 m: 105 dB), B
/// about 14 dB better; before and after, A is LOS and about 11 dB better.
fn blockage_walk(ttt: &str) -> String {
    let w = Walk {
        l_m: 200.0,
        x0_m: 30.05,
        v_mps: 10.0,
        duration: "2s",
    };
    let ho = format!(
        "algorithm = \"a3\"\nttt = \"{ttt}\"\nfilter_k = 0\nmeasurement_period = \"10ms\"\n"
    );
    let obstacle = r#"[[ran.obstacles]]
min_m = [40.0, -0.5, 0.0]
max_m = [40.2, 0.5, 2.0]
"#;
    scenario(&w, &ho, obstacle, "", CBR_1M)
}

#[test]
fn a_ttt_longer_than_a_blockage_suppresses_the_ping_pong() {
    // TTT 0: A3 triggers in the shadow, the UE goes to B, and back to A once the shadow
    // ends: two handovers. TTT 320 ms > 0.25 s of shadow: none.
    let h = handovers(&run_toml(&blockage_walk("0s")));
    assert_eq!(
        h.iter().map(|e| (e.1, e.2, e.6)).collect::<Vec<_>>(),
        vec![(0, 1, 1), (1, 0, 1)],
        "{h:?}"
    );
    // The first trigger is at the first 10 ms instant in the shadow: at 1.01 s the UE is
    // inside the box (x = 40.15 m: both links blocked, A nearer), at 1.02 s at 40.25 m in
    // A's shadow; served 1 + 2·2 + 1 + 50 = 56 ms later. Back to A at the first instant
    // past x = 42.71 m (t = 1.27 s, x = 42.75 m), served at 1.326 s.
    assert_eq!(h[0].0, 1020 * MS + 56 * MS);
    assert_eq!(h[1].0, 1270 * MS + 56 * MS);
    let h = handovers(&run_toml(&blockage_walk("320ms")));
    assert!(h.is_empty(), "{h:?}");
}

/// L = 60 m, from x = 20 m at 10 m/s for 4 s: A3 (Off 3, Hys 1, TTT 100 ms, k = 0, 10 ms
/// period) triggers once, near x = 36.6 m.
fn tcp_walk(handover: &str, flows: &str) -> String {
    let w = Walk {
        l_m: 60.0,
        x0_m: 20.0,
        v_mps: 10.0,
        duration: "4s",
    };
    scenario(&w, handover, "[ran.rlc]\nbuffer = \"10MB\"\n", "", flows)
}

const A3_FAST: &str = r#"algorithm = "a3"
ttt = "100ms"
filter_k = 0
measurement_period = "10ms"
"#;

/// TCP at an application rate of 50 Mbit/s for 3 s to the UE (no congestion anywhere).
const TCP_50M: &str = r#"
[[flows]]
name = "down"
from = "server"
to = "ue"
stop = "3s"
app = { kind = "rate", rate = "50Mbps" }
"#;

#[test]
fn lossless_handover_costs_tcp_no_retransmission() {
    let base = run_toml(&tcp_walk("algorithm = \"none\"", TCP_50M));
    let lossless = run_toml(&tcp_walk(A3_FAST, TCP_50M));
    let lossy = run_toml(&tcp_walk(&format!("{A3_FAST}lossless = false\n"), TCP_50M));
    assert!(handovers(&base).is_empty());
    for out in [&lossless, &lossy] {
        let h = handovers(out);
        assert_eq!(h.len(), 1, "{h:?}");
        assert_eq!((h[0].1, h[0].2, h[0].6), (0, 1, 1));
    }
    // The source had unacknowledged data at the detach: some was forwarded.
    assert!(handovers(&lossless)[0].5 > 0);
    assert_eq!(handovers(&lossy)[0].5, 0);
    let (b, l, x) = (flow(&base, 0), flow(&lossless, 0), flow(&lossy, 0));
    assert_eq!(b["retransmits"], 0, "{b}");
    assert_eq!(l["retransmits"], b["retransmits"], "{l}");
    assert_eq!(l["rtos"], 0, "{l}");
    // No segment reached the receiver twice (it would have sent a D-SACK).
    assert_eq!(l["dsacks_sent"], 0, "{l}");
    // Everything the application wrote arrived, exactly as without a handover.
    assert_eq!(l["bytes_delivered"], b["bytes_delivered"]);
    // Without forwarding, what the source held is lost and TCP must repair it.
    assert!(x["retransmits"].as_u64().unwrap() > 0, "{x}");
}

#[test]
fn a_blocked_target_fails_the_handover_and_the_ue_reestablishes() {
    // The A3 walk of `tcp_walk`, with a forced outage of the UE covering its random
    // access: trigger at T (hand-computed), detach at T + 6 ms, RACH at T + 56 ms inside
    // the outage [T + 16 ms, T + 76 ms): failure when T304 (100 ms) expires, T + 106 ms;
    // re-establishment 100 ms later at T + 206 ms, to B (the stronger cell there, the
    // outage over). The failure row is at the failed random access, T + 56 ms.
    let w = Walk {
        l_m: 60.0,
        x0_m: 20.0,
        v_mps: 10.0,
        duration: "4s",
    };
    let t = first_a3_instant_ns(&w, 4.0, 10) + 100 * MS;
    let start_ms = t / MS + 16;
    let outage = format!("outages = [{{ start = \"{start_ms}ms\", duration = \"60ms\" }}]");
    let out = run_toml(&scenario(&w, A3_FAST, "", &outage, CBR_1M));
    let h = handovers(&out);
    assert_eq!(h.len(), 2, "{h:?}");
    // (t, from, to, kind, interruption_ms, forwarded, success)
    assert_eq!(
        (h[0].0, h[0].1, h[0].2, h[0].3, h[0].6),
        (t + 56 * MS, 0, 1, 0, 0)
    );
    assert_eq!(h[0].4, 100.0);
    assert_eq!(
        (h[1].0, h[1].1, h[1].2, h[1].3, h[1].6),
        (t + 206 * MS, 0, 1, 3, 1)
    );
    assert_eq!(h[1].4, 200.0);
    let ue = &out.summary["ues"][0];
    assert_eq!(ue["handover_failures"], 1);
    assert_eq!(ue["reestablishments"], 1);
    assert_eq!(ue["handovers"], 0);
    assert_eq!(ue["serving_cell"], "B");
}

#[test]
fn measurements_are_logged_when_asked_and_bounded() {
    let w = Walk {
        l_m: 60.0,
        x0_m: 20.0,
        v_mps: 10.0,
        duration: "1s",
    };
    // Every 5th instant of a 10 ms period over 1 s: instants 0, 50, …, 1000 ms (21), two
    // cells each: 42 rows; capped at 30.
    let ho = "algorithm = \"a3\"\nmeasurement_period = \"10ms\"\nlog_measurements_every = 5\n";
    let out = run_toml(&scenario(&w, ho, "", "", CBR_1M));
    assert_eq!(u64s(&out, "measurements", "t_ns").len(), 42);
    let t = u64s(&out, "measurements", "t_ns");
    assert_eq!((t[0], t[2], t[41]), (0, 50 * MS, 1000 * MS));
    let rsrp = f64s(&out, "measurements", "rsrp_dbm");
    // At t = 0 the UE is 20 m from A and 40 m from B (LOS both, 8.5 m lower): the RSRP
    // difference is 20·log10(dB/dA).
    let (da, db) = (
        (20f64.powi(2) + DH_M * DH_M).sqrt(),
        (40f64.powi(2) + DH_M * DH_M).sqrt(),
    );
    assert!((rsrp[0] - rsrp[1] - 20.0 * (db / da).log10()).abs() < 1e-9);
    // No obstacle: both cells in LOS at every measurement.
    assert!(u32s(&out, "measurements", "los").iter().all(|&l| l == 1));
    let capped = run_toml(&scenario(
        &w,
        &format!("{ho}log_measurements_max_rows = 30\n"),
        "",
        "",
        CBR_1M,
    ));
    assert_eq!(u64s(&capped, "measurements", "t_ns").len(), 30);
    // Without logging there is no table.
    let off = run_toml(&scenario(&w, "algorithm = \"a3\"", "", "", CBR_1M));
    assert!(off.table("measurements").is_none());
}

#[test]
fn bad_handover_keys_name_key_and_value() {
    let w = Walk {
        l_m: 60.0,
        x0_m: 20.0,
        v_mps: 10.0,
        duration: "1s",
    };
    for (ho, key, value) in [
        ("algorithm = \"a4\"", "ran.handover.algorithm", "a4"),
        ("filter_k = 25", "ran.handover.filter_k", "25"),
        (
            "measurement_period = \"0ms\"",
            "ran.handover.measurement_period",
            "zero",
        ),
        ("hysteresis_db = -2.0", "ran.handover.hysteresis_db", "-2"),
        ("offset_db = 40.0", "ran.handover.offset_db", "40"),
        ("tt = \"1ms\"", "tt", "unknown field"),
    ] {
        let e = load_error(&scenario(&w, ho, "", "", CBR_1M));
        assert!(e.contains(key) && e.contains(value), "{ho}: {e}");
    }
}

#[test]
fn the_threshold_rule_hands_over_where_the_serving_sinr_crosses_it() {
    // Serving SINR in LOS without interference: P_tx + G_bf − (61.4 + 20·log10 dA) − N,
    // with the 2017 preset's P_tx, 64 × 16 array gain and thermal noise over its
    // bandwidth with its noise figure (kT = −174 dBm/Hz at 290 K). Threshold 35 dB, Hys 1 dB, k = 0, TTT 40 ms, 10 ms
    // period: the rule holds once SINR_A < 35 dB (B is then about 6 dB better, so the
    // hysteresis part holds already); served 56 ms after the trigger.
    let num = mmtsim_ran::phy::numerology::preset("mmwave-2017").expect("preset");
    let gain_db = 10.0 * ((num.gnb_antennas * num.ue_antennas) as f64).log10();
    let noise_dbm = -174.0 + 10.0 * num.bandwidth_hz.log10() + num.ue_noise_figure_db;
    let budget_db = num.gnb_tx_power_dbm + gain_db - noise_dbm;
    let thr_db = 35.0;
    // 20·log10(dA) = budget − 61.4 − thr; x = sqrt(dA² − h²).
    let da = 10f64.powf((budget_db - 61.4 - thr_db) / 20.0);
    let x = (da * da - DH_M * DH_M).sqrt();
    let w = Walk {
        l_m: 200.0,
        x0_m: 20.0,
        v_mps: 10.0,
        duration: "13s",
    };
    assert!(x > 100.0 && x < 150.0, "x = {x}");
    let (db, hys) = (((200.0 - x) * (200.0 - x) + DH_M * DH_M).sqrt(), 1.0);
    assert!(
        20.0 * (da / db).log10() > hys,
        "B is not yet better by Hys at the threshold"
    );
    let t_s = (x - w.x0_m) / w.v_mps;
    let k = t_s / 0.01;
    assert!((k - k.round()).abs() > 1e-6);
    let trigger = k.ceil() as u64 * 10 * MS + 40 * MS;
    let ho = format!(
        "algorithm = \"threshold\"\nsinr_threshold_db = {thr_db}\nhysteresis_db = {hys}\nttt = \"40ms\"\nfilter_k = 0\nmeasurement_period = \"10ms\"\n"
    );
    let out = run_toml(&scenario(&w, &ho, "", "", CBR_1M));
    let h = handovers(&out);
    assert_eq!(h.len(), 1, "{h:?}");
    assert_eq!((h[0].1, h[0].2, h[0].3, h[0].6), (0, 1, 1, 1));
    assert_eq!(h[0].0, trigger + 56 * MS);
}

#[test]
fn handovers_are_deterministic_with_random_channels() {
    // Fading and shadowing on: same scenario and seed, same handovers and flow figures.
    let w = Walk {
        l_m: 60.0,
        x0_m: 10.0,
        v_mps: 10.0,
        duration: "4s",
    };
    let s = scenario(&w, A3_FAST, "", "", TCP_50M)
        .replace("fading = false", "fading = true\nshadowing = true");
    let (a, b) = (run_toml(&s), run_toml(&s));
    assert!(!handovers(&a).is_empty());
    assert_eq!(handovers(&a), handovers(&b));
    assert_eq!(a.summary["flows"], b.summary["flows"]);
    assert_eq!(a.summary["ues"], b.summary["ues"]);
}

#[test]
fn a_target_shadowed_at_random_access_fails_and_the_ue_reestablishes_past_the_obstacle() {
    // The A3 walk of the first test (L = 200 m, from 20 m at 10 m/s; trigger T
    // hand-computed), with RACH needing 20 dB: B in LOS has about 40 dB there, in NYU NLOS
    // about 12 dB. A box 1.6 m high (0.1 m above the UE) and 0.2 m thick across the path
    // at s0 ahead of the UE shadows B's line (from 10 m high) for the UE at
    // x ≥ (8.5·s0 − 0.1·L)/8.4 until it reaches the box; s0 is chosen so that this starts
    // half-way between the detach (T + 6 ms) and the random access (T + 56 ms): the
    // trigger sees B in LOS, the random access does not. Failure at T304 (T + 106 ms),
    // re-establishment at T + 206 ms, 2 m past the detach and past the box: B in LOS again.
    let w = Walk {
        l_m: 200.0,
        x0_m: 20.0,
        v_mps: 10.0,
        duration: "12s",
    };
    let t = first_a3_instant_ns(&w, 4.0, 10) + 100 * MS;
    let x_at = |ns: u64| w.x0_m + w.v_mps * ns as f64 * 1e-9;
    let (x_detach, x_rach) = (x_at(t + 6 * MS), x_at(t + 56 * MS));
    let x_start = (x_detach + x_rach) / 2.0;
    let s0 = (8.4 * x_start + 0.1 * w.l_m) / 8.5;
    assert!(
        x_rach < s0 && x_at(t + 206 * MS) > s0 + 0.2,
        "geometry: s0 = {s0}"
    );
    let obstacle = format!(
        "[[ran.obstacles]]\nmin_m = [{s0}, -0.5, 0.0]\nmax_m = [{}, 0.5, 1.6]\n",
        s0 + 0.2
    );
    let ho = format!("{A3_FAST}rach_min_sinr_db = 20.0\n");
    let out = run_toml(&scenario(&w, &ho, &obstacle, "", CBR_1M));
    let h = handovers(&out);
    assert_eq!(h.len(), 2, "{h:?}");
    assert_eq!(
        (h[0].0, h[0].1, h[0].2, h[0].3, h[0].6),
        (t + 56 * MS, 0, 1, 0, 0)
    );
    assert_eq!(h[0].4, 100.0);
    assert_eq!(
        (h[1].0, h[1].1, h[1].2, h[1].3, h[1].6),
        (t + 206 * MS, 0, 1, 3, 1)
    );
    assert_eq!(h[1].4, 200.0);
    // Without the obstacle the same handover succeeds at T + 56 ms.
    let clear = handovers(&run_toml(&scenario(&w, &ho, "", "", CBR_1M)));
    assert_eq!(clear.len(), 1);
    assert_eq!((clear[0].0, clear[0].6), (t + 56 * MS, 1));
}

#[test]
fn a_scripted_handover_during_a_measured_one_is_skipped_and_said() {
    // The L = 60 m A3 walk: trigger at 1.84 s (x* = 37.37 m reached at 1.7365 s, first
    // 10 ms instant 1.74 s, + TTT), detach at 1.846 s, served at 1.896 s. A scripted
    // handover at 1.87 s falls inside the interruption: it does not happen.
    let w = Walk {
        l_m: 60.0,
        x0_m: 20.0,
        v_mps: 10.0,
        duration: "3s",
    };
    let t = first_a3_instant_ns(&w, 4.0, 10) + 100 * MS;
    assert_eq!(t, 1840 * MS);
    let events = "[[events]]\nat = \"1.87s\"\nhandover = { ue = \"ue\", to = \"A\" }\n";
    let out = run_toml(&scenario(&w, A3_FAST, "", "", &format!("{CBR_1M}{events}")));
    let h = handovers(&out);
    assert_eq!(h.len(), 1, "{h:?}");
    assert_eq!(h[0].0, 1896 * MS);
    let notices = out.summary["notices"].to_string();
    assert!(
        notices.contains("events[0]") && notices.contains("measurement-based handover"),
        "{notices}"
    );
}
