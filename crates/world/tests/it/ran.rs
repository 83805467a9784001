//! The radio access network end to end: whole runs compared with numbers worked out by hand
//! from the 2017 frame's definition ([NS3-MMW-V1] defaults and TBS formula), the NYU path
//! loss ([AKDENIZ-2014] as ns-3 has it) and the computed 10 % MCS thresholds that
//! `crates/ran/src/phy/amc.rs` documents.
//!
//! Common setup: one gNB at (0, 0, 10 m), a core node 1 ms away, a server 10 ms behind it
//! (the X-TCP paper's core network); 2017 preset (22 data symbols of 2592 data REs per
//! 100 µs subframe, 28 GHz, NYU path loss, 30 dBm, 5 dB noise figure, 30.1 dB
//! beamforming gain → SNR = 109 − PL + 30.1 dB), fading off unless stated.

use super::common::*;

/// Transport block of the 2017 frame at `mcs` over all 22 data symbols, bytes (the
/// [NS3-MMW-V1] TBS formula, worked out by hand).
fn tb_22_bytes(mcs: u8) -> f64 {
    match mcs {
        2 => 1556.0,
        6 => 4255.0,
        8 => 6242.0,
        16 => 17035.0,
        24 => 31947.0,
        28 => 39187.0,
        _ => panic!("no reference TB for MCS {mcs}"),
    }
}

/// At very high SINR a saturating downlink UDP flow gets the preset's peak rate.
///
/// Arithmetic ([NS3-MMW-V1] formula): 2592 REs × 22 symbols × Qm 6 × ECR 0.92 = 314,772 bits;
/// −24 TB CRC → 314,748; 52 code blocks → −52·24 → 313,500 bits = 39,187 bytes per 100 µs
/// = 3.135 Gbit/s of transport blocks. The UE is 10 m from the gNB's foot: d3D = 13.45 m,
/// PL = 61.4 + 20·log10(13.45) = 84.0 dB, SNR = 109 − 84.0 + 30.1 = 55 dB ≫ 20.09 dB (MCS 28).
/// Of each 1500-byte IP packet (1472 B payload) the TB also carries 2 B PDCP and about
/// 1.5 B of RLC length indicator: payload share 1472 / 1503.5 → 3.069 Gbit/s of UDP payload,
/// less a few status reports in the uplink part of the frame.
#[test]
fn peak_rate_at_very_high_sinr() {
    let s = one_ue_cell(
        "2s",
        "",
        r#"

[[flows]]
protocol = "udp"
from = "server"
to = "ue"
app = { kind = "cbr", rate = "4Gbps" }
"#,
    );
    let out = run_toml(&s);
    let cell_dl = out.summary["cells"][0]["throughput_mbps"]["dl"]
        .as_f64()
        .unwrap();
    let peak_mbps = 39_187.0 * 8.0 / 100e-6 / 1e6;
    eprintln!("10a: cell DL {cell_dl:.1} Mbit/s of TBs, peak {peak_mbps:.1}");
    // The first 12 ms (link setup, first grants) and status reports cost < 1 %.
    assert!(cell_dl <= peak_mbps + 1e-6, "{cell_dl} > {peak_mbps}");
    assert!(
        cell_dl >= 0.99 * peak_mbps,
        "{cell_dl} < 99 % of {peak_mbps}"
    );
    let good = flow(&out, 0)["goodput_mbps"].as_f64().unwrap();
    let expect = peak_mbps * 1472.0 / 1503.5;
    eprintln!("10a: UDP goodput {good:.1} Mbit/s, expected ≈ {expect:.1}");
    assert!((good - expect).abs() / expect < 0.02, "{good} vs {expect}");
}

/// Saturated throughput against distance, behind a wall (NLOS): monotone, and at each
/// distance the MCS the 2017 downlink thresholds (after CQI quantisation) give for
/// SNR = 67.1 − 29.2·log10(d3D)
/// (NYU 28 GHz NLOS: α 72.0, β 2.92).
///
/// The distances put every SNR at least 1.1 dB above its MCS threshold, where the block
/// error rate is below 1 % (the AMC targets 10 % *at* the threshold, so a UE just above one
/// loses up to 10 % to HARQ retransmissions). Data first reaches the gNB 11 ms into the
/// 1 s run (server 10 ms + core 1 ms), so the cell carries TB rate × 0.989.
#[test]
fn throughput_follows_the_mcs_thresholds_over_distance() {
    // Downlink scheduled MCS steps (2017, after CQI quantisation): (threshold dB, MCS).
    let steps = [
        (-7.23, 0u8),
        (-5.83, 2),
        (-3.36, 4),
        (-1.37, 6),
        (0.73, 8),
        (3.88, 10),
        (4.71, 12),
        (6.57, 14),
        (8.52, 16),
        (10.49, 18),
        (12.38, 20),
        (14.41, 22),
        (16.20, 24),
        (18.12, 26),
        (20.09, 28),
    ];
    let mut last = f64::INFINITY;
    // Distances chosen so no SNR lies within 0.5 dB of a threshold.
    for (x, mcs_expected) in [
        (20.0f64, 28u8),
        (50.0, 24),
        (90.0, 16),
        (150.0, 8),
        (200.0, 6),
        (280.0, 2),
    ] {
        let d3 = (x.powi(2) + 8.5f64.powi(2)).sqrt();
        let snr = 109.0 - (72.0 + 29.2 * d3.log10()) + 30.103;
        let mcs = steps
            .iter()
            .rev()
            .find(|(t, _)| snr >= *t)
            .map(|s| s.1)
            .unwrap();
        assert_eq!(mcs, mcs_expected, "hand table at {x} m (SNR {snr:.2} dB)");
        let s = one_cell(
            "1s",
            "",
            &format!(
                r#"
[[ran.ues]]
name = "ue"
position_m = [{x}, 0, 1.5]

# A wall between gNB and UE, taller than both: the link is NLOS at every distance.
[[ran.buildings]]
min_m = [4, -500, 0]
max_m = [5, 500, 50]

[[flows]]
protocol = "udp"
from = "server"
to = "ue"
app = {{ kind = "cbr", rate = "4Gbps" }}
"#
            ),
        );
        let out = run_toml(&s);
        let dl = out.summary["cells"][0]["throughput_mbps"]["dl"]
            .as_f64()
            .unwrap();
        let margin = snr - steps.iter().find(|s| s.1 == mcs).unwrap().0;
        assert!(
            margin > 1.1,
            "{x} m is only {margin:.2} dB above its threshold"
        );
        let expect = tb_22_bytes(mcs) * 8.0 / 100e-6 / 1e6 * 0.989;
        eprintln!("10b: {x} m: SNR {snr:.2} dB → MCS {mcs}: {dl:.1} Mbit/s (expected {expect:.1})");
        assert!(
            (dl - expect).abs() / expect < 0.02,
            "{x} m: {dl} vs {expect}"
        );
        assert!(dl < last, "not monotone at {x} m");
        last = dl;
    }
}

/// A full RLC buffer drops and counts; every datagram is delivered or counted as a
/// buffer drop (the flow stops early so the buffers drain before the end).
#[test]
fn a_full_rlc_buffer_drops_and_counts() {
    let s = one_ue_cell(
        "1s",
        "[ran.rlc]\nbuffer = \"200kB\"",
        r#"

[[flows]]
protocol = "udp"
from = "server"
to = "ue"
stop = "0.5s"
app = { kind = "cbr", rate = "5Gbps" }
"#,
    );
    let out = run_toml(&s);
    let f = flow(&out, 0);
    let sent = f["datagrams_sent"].as_u64().unwrap();
    let got = f["datagrams_received"].as_u64().unwrap();
    let drops = out.summary["ues"][0]["rlc_buffer_drops"]["dl"]
        .as_u64()
        .unwrap();
    eprintln!("10d: sent {sent}, received {got}, RLC drops {drops}");
    // 5 Gbit/s offered into a 3.1 Gbit/s cell: about 38 % must be dropped.
    assert!(drops > sent / 4, "{drops} of {sent}");
    assert_eq!(
        sent,
        got + drops,
        "a datagram vanished without being counted"
    );
}

/// A UE walking past a building sees LOS → NLOS → LOS when geometry says so.
///
/// gNB at (0, 0, 10); building footprint x ∈ [−5, 5], y ∈ [10, 20], 30 m tall (above both
/// antennas, so only the footprint matters); UE on y = 30 from x = −40 at 5 m/s. The
/// gNB→UE line at height y = 10 has x_line = x·10/30, inside the footprint when |x| < 15
/// (at y = 20 the condition |x| < 7.5 is weaker). NLOS for x ∈ (−15, 15): t ∈ (5 s, 11 s).
#[test]
fn los_changes_at_the_geometric_instants() {
    let s = one_cell(
        "16s",
        "",
        r#"
[[ran.ues]]
name = "ue"
position_m = [-40, 30, 1.5]
mobility = { kind = "linear", velocity_mps = [5, 0, 0] }

[[ran.buildings]]
min_m = [-5, 10, 0]
max_m = [5, 20, 30]

[[flows]]
protocol = "udp"
from = "server"
to = "ue"
app = { kind = "cbr", rate = "1Mbps" }
"#,
    );
    let out = run_toml(&s);
    let t = u64s(&out, "ran", "t_ns");
    let los = u32s(&out, "ran", "los");
    let mut changes = vec![];
    for i in 1..t.len() {
        if los[i] != los[i - 1] {
            changes.push((t[i] as f64 * 1e-9, los[i]));
        }
    }
    eprintln!("10e: LOS changes {changes:?}");
    assert_eq!(los[0], 1);
    assert_eq!(changes.len(), 2, "{changes:?}");
    // Samples every 1 ms, channel updates every 1 ms: the change shows within 1 ms.
    assert!(
        (changes[0].0 - 5.0).abs() <= 0.0011 && changes[0].1 == 0,
        "{changes:?}"
    );
    assert!(
        (changes[1].0 - 11.0).abs() <= 0.0011 && changes[1].1 == 1,
        "{changes:?}"
    );
}

/// Bufferbloat. An uplink CUBIC flow in LOS with a 10 MB RLC buffer fills it: its RTT
/// rises far above the minimum (a full 10 MB at ≈3 Gbit/s is ≈27 ms of queue). A UDP flow
/// at 80 % of capacity leaves the buffer nearly empty and its one-way delay at the minimum.
#[test]
fn tcp_bloats_the_rlc_buffer_while_udp_at_80_percent_does_not() {
    let tcp = one_ue_cell(
        "6s",
        "[ran.rlc]\nbuffer = \"10MB\"",
        "\n[[flows]]\nfrom = \"ue\"\nto = \"server\"\ncc = \"cubic\"\n",
    );
    let out = run_toml(&tcp);
    let f = flow(&out, 0);
    let (mean, min) = (
        f["rtt_mean_ms"].as_f64().unwrap(),
        f["rtt_min_ms"].as_f64().unwrap(),
    );
    let rlc = mean_since(&out, "ran", "rlc_ul_bytes", 1.0);
    eprintln!(
        "10f: CUBIC RTT mean {mean:.2} ms, min {min:.2} ms; mean UE RLC buffer {:.0} kB",
        rlc / 1e3
    );
    assert!(mean > min + 10.0, "CUBIC RTT {mean} vs min {min}");
    assert!(rlc > 2e6, "RLC buffer mean {rlc} B");

    // 80 % of the 3.135 Gbit/s TB rate, in 1500-byte packets: 2.5 Gbit/s.
    let udp = one_ue_cell(
        "3s",
        "[ran.rlc]\nbuffer = \"10MB\"",
        "\n[[flows]]\nprotocol = \"udp\"\nfrom = \"ue\"\nto = \"server\"\napp = { kind = \"cbr\", rate = \"2.5Gbps\" }\n",
    );
    let out = run_toml(&udp);
    let f = flow(&out, 0);
    let (owd, owd_min) = (
        f["owd_mean_ms"].as_f64().unwrap(),
        f["owd_min_ms"].as_f64().unwrap(),
    );
    let rlc = mean_since(&out, "ran", "rlc_ul_bytes", 0.5);
    eprintln!(
        "10f: UDP 80 %: OWD mean {owd:.3} ms, min {owd_min:.3} ms; mean UE RLC buffer {:.1} kB",
        rlc / 1e3
    );
    assert!(owd < owd_min + 1.0, "UDP OWD {owd} vs min {owd_min}");
    assert!(rlc < 200e3, "RLC buffer mean {rlc} B");
}

/// Uplink and downlink flows of one UE run at once; together they stay within the
/// cell's 3.135 Gbit/s and each gets its rate when the sum fits.
#[test]
fn uplink_and_downlink_share_only_the_radio() {
    let flows = |rate_ul: &str, rate_dl: &str| {
        format!(
            r#"
[[flows]]
name = "up"
protocol = "udp"
from = "ue"
to = "server"
app = {{ kind = "cbr", rate = "{rate_ul}" }}

[[flows]]
name = "down"
protocol = "udp"
from = "server"
to = "ue"
app = {{ kind = "cbr", rate = "{rate_dl}" }}
"#
        )
    };
    // 1 + 1 Gbit/s fit: each flow gets its offered payload rate (1 Gbit/s of 1500-byte
    // packets carries 1472/1500 of it as payload).
    let out = run_toml(&one_ue_cell("2s", "", &flows("1Gbps", "1Gbps")));
    for i in 0..2 {
        let g = flow(&out, i)["goodput_mbps"].as_f64().unwrap();
        eprintln!("10g: {} {g:.1} Mbit/s", flow(&out, i)["name"]);
        assert!((g - 1000.0 * 1472.0 / 1500.0).abs() < 15.0, "flow {i}: {g}");
    }
    // Both saturating: the two directions split the frame and together use all of it.
    let out = run_toml(&one_ue_cell("2s", "", &flows("4Gbps", "4Gbps")));
    let c = &out.summary["cells"][0]["throughput_mbps"];
    let (dl, ul) = (c["dl"].as_f64().unwrap(), c["ul"].as_f64().unwrap());
    let peak = 39_187.0 * 8.0 / 100e-6 / 1e6;
    eprintln!(
        "10g: saturated: DL {dl:.1} + UL {ul:.1} = {:.1} of {peak:.1}",
        dl + ul
    );
    assert!(
        dl + ul <= peak + 1e-6 && dl + ul > 0.98 * peak,
        "{dl} + {ul}"
    );
    assert!(
        (dl - ul).abs() / (dl + ul) < 0.1,
        "round robin between directions: {dl} vs {ul}"
    );
}

/// Random obstacles stand on the ground and block: a UE walking 30 m along the lower edge of
/// a 40 m × 30 m area crowded with 25 obstacles taller than the gNB (10–15 m against its
/// 10 m) must lose line of sight somewhere in some of five layouts. (Obstacles standing at
/// the area's unbounded floor would never block: LOS fraction 1 for every seed.)
#[test]
fn random_obstacles_block_the_line_of_sight() {
    let toml = one_cell(
        "4s",
        r#"area = { min_m = [-20, -15], max_m = [20, 15] }
random_obstacles = { count = 25, side_m = [2, 4], height_m = [10, 15] }"#,
        r#"
[[ran.ues]]
name = "ue"
position_m = [-15, -13, 1.5]
mobility = { kind = "linear", velocity_mps = [7.5, 0, 0] }

[[flows]]
protocol = "udp"
from = "server"
to = "ue"
app = { kind = "cbr", rate = "10Mbps" }
"#,
    );
    let fractions: Vec<f64> = (1..=5)
        .map(|seed| {
            let out = run_seed(&toml, seed);
            out.summary["ues"][0]["los_fraction"].as_f64().unwrap()
        })
        .collect();
    eprintln!("LOS fractions over five layouts: {fractions:?}");
    assert!(fractions.iter().any(|&f| f < 1.0), "{fractions:?}");
}

#[test]
fn ran_tx_power_moves_the_sinr_by_the_same_decibels() {
    // Noise-limited (one cell, no fading): the downlink SINR is the gNB's power plus the
    // link's gain over the noise, so 10 dB less power is 10 dB less SINR; the uplink
    // follows the UE's power alike.
    let flows = "\n[[flows]]\nfrom = \"server\"\nto = \"ue\"\nprotocol = \"udp\"\napp = { kind = \"cbr\", rate = \"1Mbps\" }\n";
    let sinr = |extra: &str| {
        let out = run_toml(&one_ue_cell("200ms", extra, flows));
        let ue = &out.summary["ues"][0];
        ue["sinr_dl_mean_db"].as_f64().unwrap()
    };
    let base = sinr("");
    let lower = sinr("tx_power_dbm = { gnb = 20.0 }");
    assert!((base - lower - 10.0).abs() < 1e-6, "{base} vs {lower}");
}
