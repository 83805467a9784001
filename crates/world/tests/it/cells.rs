//! Cells with their own radio configuration in one run: an LTE-like 2 GHz cell beside a
//! 28 GHz mmWave cell, each checked against its own preset's peak rate worked out by hand,
//! and interference only between cells on one carrier.

use super::common::*;

/// A server 10 ms from a router joined to two sites: "lte" (preset lte-2ghz, UMa, 25 m
/// mast at the origin) and "mmw" (the `[ran]` preset mmwave-2017, at x = 200 m, 10 m
/// high). `ues` and `flows` follow.
fn lte_and_mmwave(extra_ran: &str, ues: &str) -> String {
    format!(
        r#"
[simulation]
duration = "1s"
[[nodes]]
name = "server"
[[nodes]]
name = "router"
[[links]]
between = ["server", "router"]
delay = "10ms"
rate = "100Gbps"
[[links]]
between = ["router", "lte"]
delay = "1ms"
rate = "100Gbps"
[[links]]
between = ["router", "mmw"]
delay = "1ms"
rate = "100Gbps"
[ran]
preset = "mmwave-2017"
{extra_ran}
[ran.channel]
fading = false
shadowing = false
[[ran.gnbs]]
name = "lte"
position_m = [0, 0, 25]
preset = "lte-2ghz"
channel_model = "uma"
[[ran.gnbs]]
name = "mmw"
position_m = [200, 0, 10]
{ues}
"#
    )
}

const TWO_UES: &str = r#"
[[ran.ues]]
name = "ue-lte"
position_m = [20, 0, 1.5]
gnb = "lte"
[[ran.ues]]
name = "ue-mmw"
position_m = [210, 0, 1.5]
gnb = "mmw"
[[flows]]
protocol = "udp"
from = "server"
to = "ue-lte"
app = { kind = "cbr", rate = "200Mbps" }
[[flows]]
protocol = "udp"
from = "server"
to = "ue-mmw"
app = { kind = "cbr", rate = "4Gbps" }
"#;

#[test]
fn an_lte_cell_and_a_mmwave_cell_each_reach_their_own_peak() {
    let out = run_toml(&lte_and_mmwave("", TWO_UES));
    // LTE, 100 RBs: an 8,244-byte block per 1 ms TTI = 65.952 Mbit/s (TS 36.213 TBS,
    // worked in numerology.rs). The first ~12 ms carry nothing (wire and scheduling).
    let lte = cell_dl_mbps(&out, 0);
    assert!(
        lte <= 65.952 + 1e-9 && lte > 0.97 * 65.952,
        "LTE cell {lte} Mbit/s"
    );
    // mmWave 2017 frame: a 39,187-byte block per 100 µs subframe = 3,134.96 Mbit/s.
    let mmw = cell_dl_mbps(&out, 1);
    let peak = 39_187.0 * 8.0 / 100e-6 / 1e6;
    assert!(
        mmw <= peak + 1e-6 && mmw > 0.97 * peak,
        "mmWave cell {mmw} Mbit/s"
    );
}

#[test]
fn cells_on_other_carriers_do_not_interfere() {
    // With interference on, the mmWave UE's SINR is the same with or without the 2 GHz
    // cell (another carrier); a second 28 GHz cell next to it does lower it.
    let alone = lte_and_mmwave("interference = true", TWO_UES);
    let out = run_toml(&alone);
    let sinr =
        |o: &mmtsim_world::RunOutput| o.summary["ues"][1]["sinr_dl_mean_db"].as_f64().unwrap();
    let off = run_toml(&lte_and_mmwave("interference = false", TWO_UES));
    assert_eq!(sinr(&out), sinr(&off));
    let with_neighbour = alone.replace(
        "[[ran.ues]]\nname = \"ue-lte\"",
        "[[ran.gnbs]]\nname = \"mmw2\"\nposition_m = [240, 0, 10]\n[[ran.ues]]\nname = \"ue-lte\"",
    );
    let with_neighbour = with_neighbour.replace(
        "[[links]]\nbetween = [\"router\", \"mmw\"]",
        "[[links]]\nbetween = [\"router\", \"mmw2\"]\ndelay = \"1ms\"\nrate = \"1Gbps\"\n[[links]]\nbetween = [\"router\", \"mmw\"]",
    );
    let n = run_toml(&with_neighbour);
    assert!(
        sinr(&n) < sinr(&out) - 3.0,
        "{} vs {}",
        sinr(&n),
        sinr(&out)
    );
}

#[test]
fn per_cell_keys_are_checked() {
    let e = load_error(
        &lte_and_mmwave("", TWO_UES).replace("preset = \"lte-2ghz\"", "preset = \"wifi\""),
    );
    assert!(
        e.contains("ran.gnbs[0].preset") && e.contains("\"wifi\""),
        "{e}"
    );
    let e = load_error(&lte_and_mmwave("", TWO_UES).replace(
        "channel_model = \"uma\"",
        "channel_model = \"moon\"\nscheduler = \"fifo\"\nrbs = 7",
    ));
    assert!(
        e.contains("ran.gnbs[0].channel_model") && e.contains("\"moon\""),
        "{e}"
    );
    assert!(
        e.contains("ran.gnbs[0].scheduler") && e.contains("\"fifo\""),
        "{e}"
    );
    assert!(e.contains("ran.gnbs[0].rbs") && e.contains('7'), "{e}");
}

#[test]
fn one_site_may_hold_an_lte_cell_and_a_mmwave_cell() {
    // Seed 003's co-located LTE anchor: one gNB site, two cells on two carriers. Each UE's
    // cell reaches its own preset's peak, as with two sites; a handover between the
    // site's cells changes the serving cell but not the site, so the core's tunnel stays.
    let s = r#"
[simulation]
duration = "1s"
[[nodes]]
name = "server"
[[links]]
between = ["server", "site"]
delay = "10ms"
rate = "100Gbps"
[core]
upf = "server"
[ran]
preset = "mmwave-2017"
[ran.channel]
fading = false
shadowing = false
[[ran.gnbs]]
name = "site"
position_m = [0, 0, 25]
cells = [
  { name = "site-lte", preset = "lte-2ghz", channel_model = "uma" },
  { name = "site-mmw" },
]
[[ran.ues]]
name = "ue-lte"
position_m = [20, 0, 1.5]
gnb = "site-lte"
[[ran.ues]]
name = "ue-mmw"
position_m = [-20, 0, 1.5]
gnb = "site-mmw"
[[flows]]
protocol = "udp"
from = "server"
to = "ue-lte"
app = { kind = "cbr", rate = "200Mbps" }
[[flows]]
protocol = "udp"
from = "server"
to = "ue-mmw"
app = { kind = "cbr", rate = "4Gbps" }
[[events]]
at = "0.5s"
handover = { ue = "ue-lte", to = "site-mmw" }
"#;
    let out = run_toml(s);
    let cells = &out.summary["cells"];
    assert_eq!(cells[0]["name"], "site-lte");
    assert_eq!(cells[1]["name"], "site-mmw");
    assert_eq!(cells[0]["site"], "site");
    assert_eq!(cells[1]["site"], "site");
    // The LTE cell served ue-lte for the first half second only: at most half its peak
    // over the run.
    let lte = cell_dl_mbps(&out, 0);
    assert!(
        lte <= 65.952 / 2.0 + 0.1 && lte > 0.45 * 65.952,
        "LTE cell {lte}"
    );
    // The mmWave cell carried ue-mmw all along (its 4 Gbit/s saturates it) and shared its
    // slots with ue-lte's 200 Mbit/s for the second half.
    let mmw = cell_dl_mbps(&out, 1);
    let peak = 39_187.0 * 8.0 / 100e-6 / 1e6;
    assert!(mmw <= peak + 1e-6 && mmw > 0.95 * peak, "mmWave cell {mmw}");
    assert_eq!(out.summary["ues"][0]["serving_cell"], "site-mmw");
    assert_eq!(out.summary["core"]["path_switches"], 0);
    assert_eq!(out.summary["core"]["xn_forwarded"], 0);
}

#[test]
fn cell_names_are_checked() {
    let s = lte_and_mmwave("", TWO_UES).replace(
        "name = \"mmw\"\nposition_m = [200, 0, 10]",
        "name = \"mmw\"\nposition_m = [200, 0, 10]\ncells = [{ name = \"router\" }, { name = \"x\", scheduler = \"fifo\" }, { name = \"x\" }]",
    );
    let e = load_error(&s);
    assert!(
        e.contains("ran.gnbs[1].cells[0].name") && e.contains("\"router\""),
        "{e}"
    );
    assert!(
        e.contains("ran.gnbs[1].cells[2].name") && e.contains("used twice"),
        "{e}"
    );
    assert!(
        e.contains("ran.gnbs[1].cells[1].scheduler") && e.contains("\"fifo\""),
        "{e}"
    );
    let e = load_error(&lte_and_mmwave("", TWO_UES).replace("gnb = \"lte\"", "gnb = \"nowhere\""));
    assert!(
        e.contains("ran.ues[0].gnb") && e.contains("\"nowhere\""),
        "{e}"
    );
}
