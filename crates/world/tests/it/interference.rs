//! Downlink interference between two cells on one carrier, checked against a hand
//! computation, and its effect on throughput.
//!
//! Geometry (no buildings, LOS everywhere, no fading, no shadowing: every gain is
//! deterministic): gNB g1 at (0, 0, 10) serves ue1 at (60, 0, 1.5); gNB g2 at
//! (−100, 10, 10) serves ue2 at (−40, 5, 1.5). Both cells run the 2017 preset (28 GHz,
//! 72 × 13.889 MHz, 30 dBm, NF 5 dB, 8×8 gNB and 4×4 UE panels) with TR 38.901 UMi path
//! loss and RLC UM (no status reports, so a loaded cell's every slot is all downlink).
//! g2 beams at ue2, which lies almost on the line from g2 to ue1; ue1 beams at g1, which
//! lies almost on its line to g2: the worst case of beam alignment.
//!
//! Hand computation (TR 38.901 formulas; the beam gains by summing the 64 and 16
//! elements' phasors one by one, e^{jπ(n·h + m·v)·(k − k0)}, not by the closed form the
//! code uses):
//! - noise N = −174 + 10·log10(72 · 13.889e6) + 5 = −79.0000 dBm;
//! - signal: d3D(g1, ue1) = 60.5991 m, PL = 32.4 + 21·log10(60.5991) + 20·log10(28)
//!   = 98.7749 dB (below the 1.68 km breakpoint), S = 30 + 10·log10(64·16) − 98.7749
//!   = −38.6719 dBm; SNR = 40.3280 dB;
//! - interferer link: d3D(g2, ue1) = 160.5374 m, PL = 107.6603 dB;
//! - g2's beam (at ue2: azimuth −4.7636°, zenith 98.0358°) toward ue1 (azimuth
//!   −3.5763°, zenith 93.0351°): 16.3472 dB of its 18.0618 dB peak;
//! - ue1's beam (at g1: azimuth 180°, zenith 81.9368°) toward g2 (azimuth 176.4237°,
//!   zenith 86.9649°): 11.5414 dB of its 12.0412 dB peak;
//! - I (g2 sending on every unit of the slot) = 30 − 107.6603 + 16.3472 + 11.5414
//!   = −49.7717 dBm → SINR = −38.6719 − 10·log10(10^−7.9 + 10^−4.97717) = 11.0946 dB;
//! - I without antenna gains (`interference = true`) = −77.6603 dBm → SINR 36.5964 dB.

use super::common::*;

const SNR_DB: f64 = 40.3280;
const SINR_BEAMS_DB: f64 = 11.0946;
const SINR_OMNI_DB: f64 = 36.5964;

/// The two-cell scenario; `mode` is the TOML value of `ran.interference`; `neighbour`
/// false leaves out g2, ue2 and their server altogether; `ue1_flow`/`ue2_flow` give each
/// UE a saturating UDP downlink (4 Gbit/s, above the 3.13 Gbit/s peak).
fn two_cells(mode: &str, neighbour: bool, ue1_flow: bool, ue2_flow: bool) -> String {
    let mut s = format!(
        r#"
[simulation]
duration = "300ms"
[metrics]
sample_interval = "10ms"
[[nodes]]
name = "s1"
{n2}
[[links]]
between = ["s1", "g1"]
delay = "1ms"
rate = "100Gbps"
{l2}
[ran]
preset = "mmwave-2017"
interference = {mode}
rlc = {{ mode = "um" }}
[ran.channel]
model = "umi"
los = "geometric"
fading = false
shadowing = false
[[ran.gnbs]]
name = "g1"
position_m = [0, 0, 10]
[[ran.ues]]
name = "ue1"
position_m = [60, 0, 1.5]
gnb = "g1"
"#,
        n2 = if neighbour {
            "[[nodes]]\nname = \"s2\""
        } else {
            ""
        },
        l2 = if neighbour {
            "[[links]]\nbetween = [\"s2\", \"g2\"]\ndelay = \"1ms\"\nrate = \"100Gbps\""
        } else {
            ""
        },
    );
    if neighbour {
        s += r#"
[[ran.gnbs]]
name = "g2"
position_m = [-100, 10, 10]
[[ran.ues]]
name = "ue2"
position_m = [-40, 5, 1.5]
gnb = "g2"
"#;
    }
    let flow = |from: &str, to: &str| {
        format!(
            "[[flows]]\nprotocol = \"udp\"\nfrom = \"{from}\"\nto = \"{to}\"\napp = {{ kind = \"cbr\", rate = \"4Gbps\" }}\n"
        )
    };
    if ue1_flow {
        s += &flow("s1", "ue1");
    }
    if ue2_flow && neighbour {
        s += &flow("s2", "ue2");
    }
    if !s.contains("[[flows]]") {
        // A scenario needs a flow: one on the wire that no radio carries.
        s += "[[flows]]\nprotocol = \"udp\"\nfrom = \"s1\"\nto = \"g1\"\napp = { kind = \"cbr\", rate = \"1Mbps\" }\n";
    }
    s
}

/// ue1's downlink SINR samples from 50 ms on (every cell's traffic has arrived).
fn ue1_sinr(out: &mmtsim_world::RunOutput) -> Vec<f64> {
    let t = u64s(out, "ran", "t_ns");
    let ue = u32s(out, "ran", "ue");
    let s = column_f64(out, "ran", "sinr_dl_db");
    (0..t.len())
        .filter(|&i| ue[i] == 0 && t[i] >= 50_000_000)
        .map(|i| s[i])
        .collect()
}

fn assert_all(v: &[f64], expected_db: f64, what: &str) {
    assert!(!v.is_empty());
    let (lo, hi) = v
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    println!(
        "{what}: ue1 SINR {lo:.4} to {hi:.4} dB over {} samples (hand: {expected_db})",
        v.len()
    );
    for &x in v {
        assert!(
            (x - expected_db).abs() < 0.01,
            "{what}: {x} dB, expected {expected_db}"
        );
    }
}

#[test]
fn two_cell_sinr_matches_the_hand_computation() {
    // Active: g2 loaded (every slot all downlink to ue2) → the beams' interference; g2
    // idle → nothing but noise.
    let loaded = run_toml(&two_cells("\"active\"", true, false, true));
    assert_all(
        &ue1_sinr(&loaded),
        SINR_BEAMS_DB,
        "active, neighbour loaded",
    );
    let idle = run_toml(&two_cells("\"active\"", true, false, false));
    assert_all(&ue1_sinr(&idle), SNR_DB, "active, neighbour idle");
    // Full buffer: g2 counts as sending to ue2 all the time, loaded or not.
    let fb = run_toml(&two_cells("\"full-buffer\"", true, false, false));
    assert_all(&ue1_sinr(&fb), SINR_BEAMS_DB, "full-buffer, neighbour idle");
    // The first version's model, by its boolean and by its name: no antenna gains.
    for mode in ["true", "\"full-buffer-omni\""] {
        let omni = run_toml(&two_cells(mode, true, false, false));
        assert_all(&ue1_sinr(&omni), SINR_OMNI_DB, mode);
    }
    for mode in ["false", "\"off\""] {
        let off = run_toml(&two_cells(mode, true, false, true));
        assert_all(&ue1_sinr(&off), SNR_DB, mode);
    }
}

#[test]
fn a_loaded_neighbour_lowers_throughput_and_off_is_no_neighbour() {
    let idle = run_toml(&two_cells("\"active\"", true, true, false));
    let loaded = run_toml(&two_cells("\"active\"", true, true, true));
    let (idle_mbps, loaded_mbps) = (cell_dl_mbps(&idle, 0), cell_dl_mbps(&loaded, 0));
    // At 40 dB SNR ue1 gets the top MCS; at 11 dB SINR far less (both cells send in
    // every slot, so ue1's every block sees g2's beam).
    assert!(
        loaded_mbps < 0.7 * idle_mbps,
        "loaded neighbour {loaded_mbps} Mbit/s vs idle {idle_mbps}"
    );
    println!("ue1's cell: {idle_mbps:.1} Mbit/s beside an idle neighbour, {loaded_mbps:.1} beside a loaded one");
    assert!(cell_dl_mbps(&loaded, 1) > 0.0);
    // Off: the loaded neighbour changes nothing for cell g1, bit for bit.
    let off = run_toml(&two_cells("\"off\"", true, true, true));
    let alone = run_toml(&two_cells("\"off\"", false, true, false));
    assert_eq!(cell_dl_mbps(&off, 0), cell_dl_mbps(&alone, 0));
    assert_eq!(off.summary["ues"][0], alone.summary["ues"][0]);
}

#[test]
fn results_do_not_depend_on_the_order_cells_run_in() {
    // The same two cells, listed g1 first or g2 first: the cells' slot events at one
    // instant run in the other order, and each UE's every counter is the same
    // (interference is the other cell's previous slot, whichever ran first). ue2's
    // 1 Gbit/s leaves g2's slots part full and part empty, so that its current and
    // previous slots differ.
    for mode in ["\"active\"", "\"full-buffer\""] {
        let saturating = "to = \"ue2\"\napp = { kind = \"cbr\", rate = \"4Gbps\" }";
        let a = two_cells(mode, true, true, true);
        assert!(a.contains(saturating));
        let a = a.replace(
            saturating,
            "to = \"ue2\"\napp = { kind = \"cbr\", rate = \"1Gbps\" }",
        );
        let g1 = "[[ran.gnbs]]\nname = \"g1\"\nposition_m = [0, 0, 10]\n";
        let g2 = "[[ran.gnbs]]\nname = \"g2\"\nposition_m = [-100, 10, 10]\n";
        assert!(a.contains(g1) && a.contains(g2));
        // The world runs cells at one instant in the order they first woke: the flows'
        // order. Swap both.
        let f1 = a.find("[[flows]]").expect("a flow");
        let f2 = a[f1 + 1..].find("[[flows]]").expect("two flows") + f1 + 1;
        let swapped = format!("{}{}{}", &a[..f1], &a[f2..], &a[f1..f2]);
        let b = swapped.replace(g1, "G1").replace(g2, g1).replace("G1", g2);
        let (ra, rb) = (run_toml(&a), run_toml(&b));
        assert_eq!(ra.summary["cells"][0]["name"], "g1");
        assert_eq!(rb.summary["cells"][0]["name"], "g2");
        assert_eq!(ra.summary["ues"], rb.summary["ues"], "{mode}");
        assert_eq!(cell_dl_mbps(&ra, 0), cell_dl_mbps(&rb, 1), "{mode}");
        assert_eq!(cell_dl_mbps(&ra, 1), cell_dl_mbps(&rb, 0), "{mode}");
    }
}

#[test]
fn a_misspelt_mode_is_refused_with_its_value() {
    let e = load_error(&two_cells("\"on\"", true, false, false));
    assert!(
        e.contains("ran.interference") && e.contains("\"on\"") && e.contains("full-buffer"),
        "{e}"
    );
}
