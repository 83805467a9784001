//! The core network and scripted handovers end to end: forwarding through the UPF's
//! tunnels, the path switch, Xn forwarding, and routes that follow a UE's attachment.
//! Expected values are worked out from the topology's delays and the flows' rates.
//!
//! Common setup: two gNB sites A (0, 0, 10 m) and B (30, 0, 10 m) with the 2017 preset,
//! interference off, fading off; one static UE half-way (15 m from both feet: LOS to both
//! in UMi, which is LOS with certainty below 18 m, and the same path loss to both, so the
//! radio part of every delay is the same before and after a handover). A server is 10 ms
//! from a router; the router is 1 ms from A and 5 ms from B.

use super::common::*;

/// The two-site network; `extra` adds links, `[core]`, `[[events]]` and flows.
fn two_sites(duration: &str, extra: &str) -> String {
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
rate = "100Gbps"
[[links]]
between = ["router", "A"]
delay = "1ms"
rate = "100Gbps"
[[links]]
between = ["router", "B"]
delay = "5ms"
rate = "100Gbps"

[ran]
preset = "mmwave-2017"
interference = false
[ran.channel]
fading = false

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

{extra}
"#
    )
}

const XN: &str = r#"
[[links]]
name = "xn"
between = ["A", "B"]
delay = "2ms"
rate = "100Gbps"
"#;

const HANDOVER_AT_1S: &str = r#"
[[events]]
at = "1s"
handover = { ue = "ue", to = "B" }
"#;

/// 50 Mbit/s of 1500-byte datagrams (one every 240 µs, the first at 0) to the UE,
/// stopping at 1.5 s, so every datagram has arrived by the end of a 2 s run.
const CBR_DOWN: &str = r#"
[[flows]]
name = "down"
protocol = "udp"
from = "server"
to = "ue"
stop = "1.5s"
app = { kind = "cbr", rate = "50Mbps" }
"#;

/// (arrival time s, one-way delay ms) of every datagram of flow 0.
fn owd(out: &mmtsim_world::RunOutput) -> Vec<(f64, f64)> {
    let t = column_f64(out, "owd", "t_ns");
    let d = column_f64(out, "owd", "owd_us");
    t.iter()
        .zip(d)
        .map(|(&t, d)| (t * 1e-9, d * 1e-3))
        .collect()
}

fn min_owd(v: &[(f64, f64)], from_s: f64, to_s: f64) -> f64 {
    v.iter()
        .filter(|e| e.0 >= from_s && e.0 < to_s)
        .map(|e| e.1)
        .fold(f64::INFINITY, f64::min)
}

/// Datagrams in the UPF's old tunnel when the path switches at T = 1 s: those that left
/// the router (UPF) before T and reach A at or after T. Datagram k leaves the server at
/// 0.24·k ms and the router at 10 ms + 0.12 µs later (one transmission at 100 Gbit/s),
/// reaching A 1 ms + 0.12 µs after that: 988.99976 ≤ 0.24·k < 989.99988 ms gives
/// k = 4121 … 4124, four datagrams.
const IN_OLD_TUNNEL: u64 = 4;

#[test]
fn a_path_switch_forwards_the_old_tunnel_over_xn() {
    let s = two_sites(
        "2s",
        &format!("[core]\nupf = \"router\"\n{XN}{HANDOVER_AT_1S}{CBR_DOWN}"),
    );
    let out = run_toml(&s);
    let core = &out.summary["core"];
    assert_eq!(core["upf"], "router");
    assert_eq!(core["path_switches"], 1);
    assert_eq!(core["xn_forwarded"], IN_OLD_TUNNEL);
    assert_eq!(core["xn_dropped"], 0);
    let f = flow(&out, 0);
    // RLC AM recovers what the MAC reset lost; Xn forwarding loses nothing.
    assert_eq!(f["datagrams_lost"], 0, "{f}");
    let ue = &out.summary["ues"][0];
    assert_eq!(ue["serving_cell"], "B");
    assert_eq!(ue["cell_switches"], 1);
    // Both cells carried the flow: A for the first second, B for the next half.
    let dl = |c: usize| cell_dl_mbps(&out, c);
    assert!(dl(0) > 0.0 && dl(1) > 0.0, "A {} B {}", dl(0), dl(1));
    // Datagram k reaches A at 11 ms + 0.24·k ms (+ 0.24 µs): k = 0 … 4120 arrive before
    // the switch and go out through A's radio; of the 6250 sent before 1.5 s the other
    // 2129 (the 4 forwarded over Xn among them) go out through B's. Equal datagrams at
    // equal MCS make equal blocks, so the cells' bytes stand in that ratio.
    let want = 4121.0 / 2129.0;
    assert!(
        (dl(0) / dl(1) - want).abs() < 0.005,
        "A {} B {}",
        dl(0),
        dl(1)
    );
}

#[test]
fn without_an_xn_link_the_old_tunnel_is_lost_and_counted() {
    let s = two_sites(
        "2s",
        &format!("[core]\nupf = \"router\"\n{HANDOVER_AT_1S}{CBR_DOWN}"),
    );
    let out = run_toml(&s);
    assert_eq!(out.summary["core"]["xn_dropped"], IN_OLD_TUNNEL);
    assert_eq!(out.summary["core"]["xn_forwarded"], 0);
    assert_eq!(flow(&out, 0)["datagrams_lost"], IN_OLD_TUNNEL);
}

#[test]
fn after_the_switch_the_downlink_takes_the_new_sites_path() {
    // Before: server → router → A, 10 + 1 ms of wire; after: 10 + 5 ms through B. The
    // radio part is the same at both sites, so the minimum one-way delay rises by 4 ms.
    for with_core in [true, false] {
        let core = if with_core {
            "[core]\nupf = \"router\"\n"
        } else {
            ""
        };
        let s = two_sites("2s", &format!("{core}{XN}{HANDOVER_AT_1S}{CBR_DOWN}"));
        let out = run_toml(&s);
        let v = owd(&out);
        let before = min_owd(&v, 0.1, 1.0);
        let after = min_owd(&v, 1.1, 1.5);
        assert!(
            (after - before - 4.0).abs() < 0.25,
            "core {with_core}: min OWD {before:.3} ms before, {after:.3} ms after"
        );
        assert!(before > 11.0 && before < 12.0, "{before}");
    }
}

#[test]
fn the_upf_anchors_traffic_even_off_the_shortest_path() {
    // The server also has a 1 ms link straight to site A, and the UPF hangs 10 ms off the
    // server and 1 ms off A. Without a core the flow takes the direct link both ways;
    // with the UPF every packet goes through it: server → UPF → A downlink and A → UPF →
    // server uplink, 11 ms each way instead of 1. The minimum RTT rises by 2·(11 − 1) = 20 ms.
    let net = |core: &str| {
        format!(
            r#"
[simulation]
duration = "2s"
[[nodes]]
name = "server"
[[nodes]]
name = "upf"
[[links]]
between = ["server", "A"]
delay = "1ms"
rate = "10Gbps"
[[links]]
between = ["server", "upf"]
delay = "10ms"
rate = "10Gbps"
[[links]]
between = ["upf", "A"]
delay = "1ms"
rate = "10Gbps"
{core}
[ran]
preset = "mmwave-2017"
[ran.channel]
fading = false
[[ran.gnbs]]
name = "A"
position_m = [0, 0, 10]
[[ran.ues]]
name = "ue"
position_m = [10, 0, 1.5]
[[flows]]
from = "server"
to = "ue"
app = {{ kind = "rate", rate = "20Mbps" }}
"#
        )
    };
    let direct = run_toml(&net(""));
    let anchored = run_toml(&net("[core]\nupf = \"upf\""));
    let rtt = |o: &mmtsim_world::RunOutput| flow(o, 0)["rtt_min_ms"].as_f64().unwrap();
    let gap = rtt(&anchored) - rtt(&direct);
    assert!(
        (gap - 20.0).abs() < 0.25,
        "min RTT {} vs {}",
        rtt(&anchored),
        rtt(&direct)
    );
    assert_eq!(anchored.summary["core"]["path_switches"], 0);
}

#[test]
fn a_handover_without_a_core_reroutes_the_uplink_too() {
    // The UE sends to the server: through A (1 + 10 ms of wire) before the switch,
    // through B (5 + 10 ms) after it.
    let up = r#"
[[flows]]
name = "up"
protocol = "udp"
from = "ue"
to = "server"
stop = "1.5s"
app = { kind = "cbr", rate = "20Mbps" }
"#;
    let s = two_sites("2s", &format!("{HANDOVER_AT_1S}{up}"));
    let out = run_toml(&s);
    let v = owd(&out);
    let (before, after) = (min_owd(&v, 0.1, 1.0), min_owd(&v, 1.1, 1.5));
    assert!((after - before - 4.0).abs() < 0.25, "{before} → {after}");
    assert_eq!(flow(&out, 0)["datagrams_lost"], 0);
    // The ran table names the serving cell: A (0) before, B (1) after.
    let cell = column_f64(&out, "ran", "cell");
    let t = column_f64(&out, "ran", "t_ns");
    for (c, t) in cell.iter().zip(t) {
        assert_eq!(*c, f64::from(u8::from(t >= 1e9)), "t = {t} ns");
    }
}

#[test]
fn events_and_core_are_checked() {
    let base = two_sites("2s", CBR_DOWN);
    let e = load_error(&format!("{base}[core]\nupf = \"A\"\n"));
    assert!(
        e.contains("core.upf") && e.contains("\"A\" is a gNB or UE"),
        "{e}"
    );
    // A UPF no site can reach: every UE packet would be lost.
    let island = base.replace("[ran]", "[[nodes]]\nname = \"island\"\n[ran]");
    let e = load_error(&format!("{island}[core]\nupf = \"island\"\n"));
    assert!(
        e.contains("core.upf") && e.contains("no path of links"),
        "{e}"
    );
    let e = load_error(&format!("{base}[core]\nupf = \"nowhere\"\n"));
    assert!(e.contains("core.upf") && e.contains("not defined"), "{e}");
    let e = load_error(&format!(
        "{base}[[events]]\nat = \"1s\"\nhandover = {{ ue = \"ue\", to = \"C\" }}\n"
    ));
    assert!(
        e.contains("events[0].handover.to") && e.contains("cell \"C\""),
        "{e}"
    );
    let e = load_error(&format!(
        "{base}[[events]]\nat = \"1s\"\nhandover = {{ ue = \"me\", to = \"B\" }}\n"
    ));
    assert!(
        e.contains("events[0].handover.ue") && e.contains("UE \"me\""),
        "{e}"
    );
    let e = load_error(&format!("{base}[[events]]\nat = \"1s\"\n"));
    assert!(e.contains("events[0]") && e.contains("no action"), "{e}");
}

#[test]
fn packets_with_no_route_after_a_handover_are_counted_in_the_summary() {
    // Site B has no wired link: once the UE is handed over to it, nothing reaches the UE.
    let isolated = |extra: &str| {
        two_sites("2s", &format!("{extra}{CBR_DOWN}")).replace(
            "[[links]]\nbetween = [\"router\", \"B\"]\ndelay = \"5ms\"\nrate = \"100Gbps\"\n",
            "",
        )
    };
    let stay = run_toml(&isolated(""));
    assert!(stay.summary.get("unroutable_packets").is_none());
    assert_eq!(flow(&stay, 0)["datagrams_lost"], 0);
    let out = run_toml(&isolated(HANDOVER_AT_1S));
    let dropped = out.summary["unroutable_packets"].as_u64().unwrap();
    let lost = flow(&out, 0)["datagrams_lost"].as_u64().unwrap();
    // Every lost datagram found no route: at least datagrams 4167 … 6249, which leave the
    // server at or after 1 s and before 1.5 s, plus those still on the wire at 1 s.
    assert!(
        dropped >= 2083 && dropped == lost,
        "{dropped} unroutable, {lost} lost"
    );
}

#[test]
fn an_event_after_the_end_does_not_happen_and_the_summary_says_so() {
    // A run shortened below its events' times (`--set simulation.duration=…`) still runs.
    let out = run_toml(&two_sites("0.5s", &format!("{HANDOVER_AT_1S}{CBR_DOWN}")));
    assert_eq!(out.summary["ues"][0]["cell_switches"], 0);
    let notices = out.summary["notices"].as_array().unwrap();
    assert!(
        notices
            .iter()
            .any(|n| n.as_str().unwrap().starts_with("events[0] at 1.000 s")),
        "{notices:?}"
    );
}

#[test]
fn a_handover_to_the_serving_cell_does_nothing_and_says_so() {
    let out = run_toml(&two_sites(
        "0.5s",
        &format!("[[events]]\nat = \"0.2s\"\nhandover = {{ ue = \"ue\", to = \"A\" }}\n{CBR_DOWN}"),
    ));
    assert_eq!(out.summary["ues"][0]["cell_switches"], 0);
    let notices = out.summary["notices"].as_array().unwrap();
    assert!(
        notices
            .iter()
            .any(|n| n.as_str().unwrap().contains("ue is already served by A")),
        "{notices:?}"
    );
}
