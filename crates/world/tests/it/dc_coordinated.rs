//! Coordinated dual connectivity end to end (`[ran.dual_connectivity] mode =
//! "coordinated"`): the fall-back to LTE when every mmWave cell is in outage and the
//! return, their instants worked out from the geometry, the report period and the X2
//! delay; TCP through the outage with and without dual connectivity; the secondary-cell
//! handover after the dynamic time-to-trigger of the SINR gap.
//!
//! Setup: a server 10 ms from the LTE site "lte" (lte-2ghz, UMa, 25 m mast at (420, 30));
//! mmWave site "m1" (the 2017 preset at 28 GHz, 10 m high) at the origin, 2 ms of wire
//! from "lte" (the X2 delay); NYU path loss with geometric LOS, no fading, no shadowing,
//! no interference. The UE (1.5 m high, 8.5 m below the mmWave antennas) walks along the
//! x axis at 20 m/s from x0 = 380.01 m. The mmWave SNR is 30 dBm plus 30.1 dB (64×16
//! array) plus 79.0 dB (kTB over 1 GHz, NF 5 dB) minus PL = 139.1 − PL: in LOS (61.4 + 20·log10 d) at
//! 400 m, 25.5 dB; in NLOS (72 + 29.2·log10 d) at 400 m, −8.9 dB, at 425 m, −9.6 dB:
//! below −5 dB wherever the UE is shadowed.
//!
//! PDCP t-Reordering is 20 ms: after a switch the new leg's new SDUs overtake those
//! forwarded over X2, and the UE's PDCP waits for them.
//!
//! A box 0.2 m thick and 2 m high across the path at x = 400 m blocks m1's line while the
//! UE is inside it (x ≥ 400 m) and behind it until 1.5 + 8.5·(x − 400.2)/x ≥ 2, i.e.
//! x > 400.2·8.5/8 = 425.2125 m.

use super::common::*;

const MS: u64 = 1_000_000;
const US: u64 = 1_000;

fn scenario(dual: &str, ue_extra: &str, flows: &str, duration: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
seed = 1
[[nodes]]
name = "server"
[[links]]
between = ["server", "lte"]
delay = "10ms"
rate = "10Gbps"
[[links]]
between = ["lte", "m1"]
delay = "2ms"
rate = "10Gbps"
[ran]
preset = "mmwave-2017"
interference = false
pdcp_t_reordering = "20ms"
[ran.channel]
fading = false
shadowing = false
los = "geometric"
[ran.dual_connectivity]
{dual}
[[ran.obstacles]]
min_m = [400.0, -0.5, 0.0]
max_m = [400.2, 0.5, 2.0]
[[ran.gnbs]]
name = "lte"
position_m = [420, 30, 25]
preset = "lte-2ghz"
channel_model = "uma"
[[ran.gnbs]]
name = "m1"
position_m = [0, 0, 10]
[[ran.ues]]
name = "ue"
position_m = [380.01, 0, 1.5]
mobility = {{ kind = "linear", velocity_mps = [20, 0, 0] }}
{ue_extra}
{flows}
"#
    )
}

const DC: &str = "mode = \"coordinated\"";
const DC_UE: &str = "gnb = \"lte\"\nsecondary = \"m1\"";

const CBR_20M: &str = r#"
[[flows]]
protocol = "udp"
from = "server"
to = "ue"
stop = "2.9s"
app = { kind = "cbr", rate = "20Mbps" }
"#;

/// Rows of the `handovers` table: (t_ns, from, to, kind).
fn handovers(out: &mmtsim_world::RunOutput) -> Vec<(u64, u32, u32, u32)> {
    let t = u64s(out, "handovers", "t_ns");
    let from = u32s(out, "handovers", "from");
    let to = u32s(out, "handovers", "to");
    let kind = u32s(out, "handovers", "kind");
    (0..t.len())
        .map(|i| (t[i], from[i], to[i], kind[i]))
        .collect()
}

#[test]
fn every_mmwave_cell_in_outage_falls_back_to_lte_and_returns_past_the_shadow() {
    // Shadow from x = 400 m: t = (400 − 380.01)/20 = 0.9995 s; the first report instant
    // (every 1.6 ms from 0) at or after it is 625 · 1.6 ms = 1.0 s (x = 400.01 m, inside
    // the box: NLOS, −8.9 dB < −5 dB); the report reaches the anchor 2 ms later (the
    // wire lte–m1): switch to LTE at 1.002 s. LOS again past x = 425.2125 m:
    // t = 45.2025/20 = 2.260125 s; next report instant ⌈2.260125/0.0016⌉ = 1413 →
    // 2.2608 s (25 dB ≥ −3 dB): back at 2.2628 s.
    let out = run_toml(&scenario(DC, DC_UE, CBR_20M, "3s"));
    let h = handovers(&out);
    // Cells: lte = 0, m1 = 1; kinds: switch_to_lte = 4, switch_to_mmwave = 5.
    assert_eq!(
        h,
        vec![(1002 * MS, 1, 0, 4), (2_262_800 * US, 0, 1, 5)],
        "{h:?}"
    );
    let ue = &out.summary["ues"][0];
    assert_eq!(ue["dc_switches"], 2);
    assert_eq!(ue["handovers"], 0);
    assert_eq!(ue["serving_cell"], "lte");
    assert_eq!(ue["secondary_cell"], "m1");
    // Both legs carried data; nothing was lost (the mmWave leg's buffer went to LTE).
    assert!(cell_dl_mbps(&out, 0) > 0.0 && cell_dl_mbps(&out, 1) > 0.0);
    let f = flow(&out, 0);
    assert_eq!(f["datagrams_lost"], 0, "{f}");
}

#[test]
fn without_coordination_the_same_walk_uses_the_per_sdu_rule_and_records_no_switch() {
    let out = run_toml(&scenario("", DC_UE, CBR_20M, "3s"));
    assert!(handovers(&out).is_empty());
    assert_eq!(out.summary["ues"][0]["dc_switches"], 0);
}

/// A TCP flow writing at 30 Mbit/s from 0 until 2.9 s.
const TCP_30M: &str = r#"
[[flows]]
name = "down"
from = "server"
to = "ue"
stop = "2.9s"
app = { kind = "rate", rate = "30Mbps" }
"#;

#[test]
fn dual_connectivity_keeps_tcp_going_through_an_outage_of_every_mmwave_cell() {
    // The shadow of m1 lasts from 0.9995 s to 2.26 s. Dually connected, the flow's data
    // goes over LTE meanwhile (the LTE cell's peak, 66 Mbit/s, is above 30 Mbit/s): the
    // goodput inside the shadow is the application's rate and no retransmission timer
    // fires. Served by m1 alone, nothing gets through in the shadow and the sender times
    // out (its RTO, at least 200 ms, is shorter than the 1.26 s shadow).
    let dc = run_toml(&scenario(DC, DC_UE, TCP_30M, "3s"));
    let sc = run_toml(&scenario("", "gnb = \"m1\"", TCP_30M, "3s"));
    let (g_dc, g_sc) = (
        mean_goodput(&dc, 0, 1.1, 2.2),
        mean_goodput(&sc, 0, 1.1, 2.2),
    );
    let (f_dc, f_sc) = (flow(&dc, 0), flow(&sc, 0));
    assert!(
        g_dc > 0.95 * 30.0 && g_dc < 1.05 * 30.0,
        "DC goodput in the shadow {g_dc}"
    );
    assert_eq!(f_dc["rtos"], 0, "{f_dc}");
    assert_eq!(g_sc, 0.0, "single connectivity in the shadow");
    assert!(f_sc["rtos"].as_u64().unwrap() >= 1, "{f_sc}");
    // Timeouts in the shadow only: from its start, one RTO (≥ 200 ms) and one backed off.
    let rto_times: Vec<f64> = f_sc["rto_times_s"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert!(
        rto_times.iter().all(|&t| t > 0.9995 + 0.2 && t < 2.26),
        "{rto_times:?}"
    );
    // Dually connected, the UE got everything the application wrote (2.9 s at 30 Mbit/s
    // of payload, less at most what is in flight at the end: one RTT's worth).
    let t_dc = f_dc["bytes_delivered"].as_f64().unwrap();
    let written = 30e6 / 8.0 * 2.9;
    assert!(
        t_dc > written - 30e6 / 8.0 * 0.03 && t_dc <= written,
        "{t_dc}"
    );
}

/// Two mmWave sites, m1 at the origin and m2 at (200, 0), 10 m high; the LTE anchor at
/// (100, 30, 25), 2 ms of wire from m1 and 3 ms from m2; no wire between m1 and m2, whose
/// X2 delay is then the table's `x2_delay`, 4 ms. The UE stands still at (x, 0, 1.5),
/// its mmWave leg on m1.
fn two_mmwave(x_m: f64, flows: &str) -> String {
    format!(
        r#"
[simulation]
duration = "1s"
seed = 1
[[nodes]]
name = "server"
[[links]]
between = ["server", "lte"]
delay = "10ms"
rate = "10Gbps"
[[links]]
between = ["lte", "m1"]
delay = "2ms"
rate = "10Gbps"
[[links]]
between = ["lte", "m2"]
delay = "3ms"
rate = "10Gbps"
[ran]
preset = "mmwave-2017"
interference = false
pdcp_t_reordering = "20ms"
[ran.channel]
fading = false
shadowing = false
los = "geometric"
[ran.dual_connectivity]
mode = "coordinated"
x2_delay = "4ms"
[[ran.gnbs]]
name = "lte"
position_m = [100, 30, 25]
preset = "lte-2ghz"
channel_model = "uma"
[[ran.gnbs]]
name = "m1"
position_m = [0, 0, 10]
[[ran.gnbs]]
name = "m2"
position_m = [200, 0, 10]
[[ran.ues]]
name = "ue"
position_m = [{x_m}, 0, 1.5]
gnb = "lte"
secondary = "m1"
{flows}
"#
    )
}

#[test]
fn a_better_mmwave_cell_takes_the_leg_after_the_dynamic_ttt_of_the_sinr_gap() {
    // At x = 130 m, both in LOS with the same power and gains: the SINR gap is the
    // path-loss difference 20·log10(d1/d2), d = √(Δx² + 8.5²): 5.33 dB. The first report
    // (t = 0) reaches the anchor at max(2, 3) = 3 ms; TTT = 150 − 125·(Δ − 3)/17 ms
    // (132.9 ms), unchanged by later reports (same gap). At T = 3 ms + TTT the handover:
    // X2 anchor→m1 2 ms, m1→m2 and back 2 × 4 ms, command over LTE 1 ms, then 52 ms of
    // random access: m2 serves the leg at T + 63 ms.
    let x = 130.0_f64;
    let (d1, d2) = (
        (x * x + 8.5_f64 * 8.5).sqrt(),
        ((200.0 - x).powi(2) + 8.5_f64 * 8.5).sqrt(),
    );
    let gap_db = 20.0 * (d1 / d2).log10();
    assert!((gap_db - 5.33).abs() < 0.01, "{gap_db}");
    let ttt_ns = 150e6 - 125e6 * (gap_db - 3.0) / 17.0;
    let want_ns = 3e6 + ttt_ns + 63e6;
    let out = run_toml(&two_mmwave(x, &CBR_20M.replace("2.9s", "0.9s")));
    let h = handovers(&out);
    // Cells: lte 0, m1 1, m2 2; kind secondary_handover = 6.
    assert_eq!(h.len(), 1, "{h:?}");
    assert_eq!((h[0].1, h[0].2, h[0].3), (1, 2, 6));
    assert!(
        (h[0].0 as f64 - want_ns).abs() < 1e3,
        "at {} ns, want {want_ns}",
        h[0].0
    );
    let int_ms = f64s(&out, "handovers", "interruption_ms")[0];
    assert!((int_ms - 52.0).abs() < 1e-9, "{int_ms}");
    let ue = &out.summary["ues"][0];
    assert_eq!(ue["secondary_handovers"], 1);
    assert_eq!(ue["secondary_cell"], "m2");
    assert_eq!(ue["serving_cell"], "lte", "no change of the anchor");
    // The leg's data went on through m2, none lost (the 52 ms of interruption queue in
    // the leg's RLC, and what m1 held was forwarded).
    assert!(cell_dl_mbps(&out, 2) > 0.0);
    assert_eq!(flow(&out, 0)["datagrams_lost"], 0);
}

#[test]
fn a_nearer_cell_only_just_better_is_not_taken_before_the_longest_ttt() {
    // At x = 101 m the gap is 20·log10(101.36/99.36) = 0.17 dB < 3 dB: TTT 150 ms,
    // served at 3 + 150 + 63 = 216 ms.
    let out = run_toml(&two_mmwave(101.0, CBR_20M));
    let h = handovers(&out);
    assert_eq!(h, vec![(216 * MS, 1, 2, 6)], "{h:?}");
}

#[test]
fn bad_dual_connectivity_keys_name_key_and_value() {
    let base = two_mmwave(130.0, CBR_20M);
    for (from, to, key, value) in [
        (
            "mode = \"coordinated\"",
            "mode = \"fast\"",
            "ran.dual_connectivity.mode",
            "\"fast\"",
        ),
        (
            "x2_delay = \"4ms\"",
            "x2_delay = \"4ms\"\noutage_threshold_db = inf",
            "ran.dual_connectivity.outage_threshold_db",
            "inf",
        ),
        (
            "x2_delay = \"4ms\"",
            "x2_delay = \"4ms\"\ndynamic_ttt = { diff_min_db = 25.0 }",
            "ran.dual_connectivity.dynamic_ttt.diff_min_db",
            "25",
        ),
    ] {
        let e = load_error(&base.replace(from, to));
        assert!(e.contains(key) && e.contains(value), "{to}: {e}");
    }
}

/// The train example and its documented hard-handover override.
const TRAIN: &str = include_str!("../../../../examples/train-dc.toml");
const TRAIN_HH: &str = "ran.ues.0={ name = \"train\", position_m = [450, 0, 3], gnb = \"g2\", \
                        mobility = { kind = \"linear\", velocity_mps = [30, 0, 0] } }";

#[test]
fn the_train_example_loads_with_and_without_dual_connectivity() {
    let load = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        mmtsim_scenario::load_str(
            TRAIN,
            mmtsim_scenario::Format::Toml,
            "train-dc.toml",
            std::path::Path::new("."),
            &sets,
        )
        .unwrap_or_else(|e| panic!("{e}"))
    };
    // 50 ms of each: the UE starts dually connected (LTE anchor, mmWave g2) or on g2 alone.
    let short = "simulation.duration=50ms";
    let ctl = mmtsim_world::RunControl::default();
    let dc = mmtsim_world::run(&load(&[short]), &ctl).expect("run");
    let ue = &dc.summary["ues"][0];
    assert_eq!(
        (ue["serving_cell"].as_str(), ue["secondary_cell"].as_str()),
        (Some("lte"), Some("g2"))
    );
    let hh = mmtsim_world::run(&load(&[short, TRAIN_HH]), &ctl).expect("run");
    let ue = &hh.summary["ues"][0];
    assert_eq!(
        (ue["serving_cell"].as_str(), ue["secondary_cell"].as_str()),
        (Some("g2"), None)
    );
}

#[test]
fn a_secondary_added_mid_run_takes_the_data_at_the_first_report_after() {
    // The walk of the first test, the UE on LTE alone until a scripted add_secondary of
    // m1 at 0.5 s (x = 390 m, LOS, about 25 dB). The first report instant after it is
    // ⌈0.5/0.0016⌉ = 313 → 0.5008 s; the report reaches the anchor 2 ms later: the data
    // switch to m1 at 0.5028 s, and leave it at 1.002 s in the shadow as before.
    let events = "[[events]]\nat = \"0.5s\"\nadd_secondary = { ue = \"ue\", cell = \"m1\" }\n";
    let s = scenario(DC, "gnb = \"lte\"", &format!("{CBR_20M}{events}"), "1.5s");
    let h = handovers(&run_toml(&s));
    assert_eq!(
        h,
        vec![(502_800 * US, 0, 1, 5), (1002 * MS, 1, 0, 4)],
        "{h:?}"
    );
}
