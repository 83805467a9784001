//! mmCPTP downloads end to end [MMCPTP §VI–VII]: through a wired last hop (the paper's
//! trace-driven emulation) and through the RAN, with losses on every segment of the path
//! and across a handover. Expected values come from the definitions: every byte once and
//! in order, the pull buffer within its size, the proxy's cache within its size, the
//! goodput of a saturated last hop at its rate × payload share.

use super::common::*;

/// server — `server_delay` — proxy — 1 ms — bs — `last_rate`, 1 ms — ue; `extra[i]` goes
/// after link i's keys, `flow_extra` into the flow, `cptp_extra` into `[flows.mmcptp]`.
fn wired(
    duration: &str,
    server_delay: &str,
    last_rate: &str,
    extra: [&str; 3],
    flow_extra: &str,
    cptp_extra: &str,
) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
[[nodes]]
name = "server"
[[nodes]]
name = "proxy"
[[nodes]]
name = "bs"
[[nodes]]
name = "ue"
[[links]]
between = ["server", "proxy"]
delay = "{server_delay}"
rate = "10Gbps"
{e0}
[[links]]
between = ["proxy", "bs"]
delay = "1ms"
rate = "10Gbps"
{e1}
[[links]]
between = ["bs", "ue"]
delay = "1ms"
rate = "{last_rate}"
{e2}
[[flows]]
name = "dl"
from = "server"
to = "ue"
protocol = "mmcptp"
cc = "cubic"
{flow_extra}
[flows.mmcptp]
proxy = "proxy"
bs = "bs"
{cptp_extra}
"#,
        e0 = extra[0],
        e1 = extra[1],
        e2 = extra[2],
    )
}

fn u(v: &serde_json::Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// Payload share of a data packet: 1400 B behind 20 IP + 8 UDP + 8 common + 12 data
/// header bytes (`net::cptp`).
const PAYLOAD_SHARE: f64 = 1400.0 / 1448.0;

#[test]
fn a_wired_download_runs_at_the_last_hops_rate() {
    // Periodic and threshold pulls both keep a 100 Mbit/s last hop busy: goodput is the
    // link rate × the payload share, less the start (request, server's slow start) and
    // the tail of the 10 s.
    for pull in ["", "pull = \"threshold\""] {
        let out = run_toml(&wired("10s", "10ms", "100Mbps", ["", "", ""], "", pull));
        let g = flow(&out, 1)["goodput_mbps"].as_f64().unwrap();
        let ideal = 100.0 * PAYLOAD_SHARE;
        assert!(
            g > 0.95 * ideal && g <= ideal,
            "{pull}: {g} Mbit/s vs {ideal}"
        );
        let f = flow(&out, 1);
        assert_eq!(f["protocol"], "mmcptp");
        assert!(u(&f["pull_buffer_max_bytes"]) <= u(&f["pull_buffer_bytes"]));
        assert_eq!(
            u(&f["proxy_retransmits"]),
            0,
            "{pull}: nothing is lost: {f}"
        );
        assert!(u(&f["pulls"]) > 0);
    }
}

/// A 4 MB file over the wired path with random loss on the three links (forward, and
/// on the way back: ACKs, pulls, SACKs), run under `seed`.
fn lossy_file(seed: u64, p: f64) -> serde_json::Value {
    let loss = format!(
        "loss = {{ kind = \"bernoulli\", p = {p} }}\nreverse = {{ loss = {{ kind = \"bernoulli\", p = {p} }} }}"
    );
    let toml = wired(
        "20s",
        "5ms",
        "200Mbps",
        [&loss, &loss, &loss],
        "app = { kind = \"file\", size = \"4MB\" }",
        "",
    );
    let out = run_seed(&toml, seed);
    flow(&out, 1).clone()
}

#[test]
fn every_byte_reaches_the_ue_once_and_in_order_under_loss_on_every_segment() {
    // The UE counts only bytes it hands over in order; a byte delivered twice, or a hole
    // skipped, would make the count differ from the file's size.
    for seed in 1..=12 {
        let f = lossy_file(seed, 0.01);
        assert_eq!(u(&f["bytes_delivered"]), 4_000_000, "seed {seed}: {f}");
        assert!(f["completion_time_s"].as_f64().is_some(), "seed {seed}");
        assert!(u(&f["pull_buffer_max_bytes"]) <= u(&f["pull_buffer_bytes"]));
        // Losses between proxy and BS are repaired by the proxy, those on the last hop by
        // the BS.
        assert!(
            u(&f["proxy_retransmits"]) > 0 && u(&f["bs_retransmits"]) > 0,
            "seed {seed}: {f}"
        );
    }
}

#[test]
fn a_lost_http_request_is_reported_to_the_ue_which_asks_again() {
    // The first packet from the proxy to the server (the HTTP request) is dropped: the
    // proxy's request times out (1 s), it sends FAIL, the UE asks again, and the file
    // still arrives whole.
    let toml = wired(
        "10s",
        "5ms",
        "100Mbps",
        ["reverse = { impairments = { drop_packets = [0] } }", "", ""],
        "app = { kind = \"file\", size = \"1MB\" }",
        "",
    );
    let out = run_toml(&toml);
    let f = flow(&out, 1);
    assert_eq!(u(&f["failures"]), 1, "{f}");
    assert_eq!(u(&f["requests"]), 2, "{f}");
    assert_eq!(u(&f["bytes_delivered"]), 1_000_000);
    let t = f["completion_time_s"].as_f64().unwrap();
    assert!(t > 1.0, "the download waited for the failed request: {t} s");
}

#[test]
fn the_cache_bounds_the_proxy_and_holds_the_server_back_when_the_ue_stalls() {
    // A 10 Mbit/s last hop behind a 1 Gbit/s server path and a 1 MB cache: the proxy
    // never holds more than its cache, so the server's connection delivers at most the
    // UE's bytes plus the cache (and the pull buffer's share already counted in it).
    let toml = wired("5s", "5ms", "10Mbps", ["", "", ""], "", "cache = \"1MB\"");
    let out = run_toml(&toml);
    let (leg1, leg2) = (flow(&out, 0), flow(&out, 1));
    assert!(u(&leg2["cache_max_bytes"]) <= 1_000_000, "{leg2}");
    let (d1, d2) = (u(&leg1["bytes_delivered"]), u(&leg2["bytes_delivered"]));
    assert!(d1 <= d2 + 1_000_000, "server delivered {d1}, UE {d2}");
    assert!(
        u(&leg1["zero_window_acks"]) > 0,
        "the server's window closed: {leg1}"
    );
}

/// A two-cell RAN (two sites on a core, an Xn link) and a download to a UE handed over
/// from cell a to cell b at 1 s; `extra` goes into the flow.
fn ran_handover(extra: &str, link_extra: &str) -> String {
    format!(
        r#"
[simulation]
duration = "6s"
[[nodes]]
name = "server"
[[nodes]]
name = "proxy"
[[nodes]]
name = "upf"
[[links]]
between = ["server", "proxy"]
delay = "10ms"
rate = "10Gbps"
[[links]]
between = ["proxy", "upf"]
delay = "1ms"
rate = "10Gbps"
{link_extra}
[[links]]
between = ["upf", "a"]
delay = "1ms"
rate = "10Gbps"
[[links]]
between = ["upf", "b"]
delay = "1ms"
rate = "10Gbps"
[[links]]
between = ["a", "b"]
delay = "1ms"
rate = "10Gbps"
[core]
upf = "upf"
[ran]
preset = "lte-2ghz"
interference = false
[ran.channel]
fading = false
[[ran.gnbs]]
name = "a"
position_m = [0, 0, 10]
[[ran.gnbs]]
name = "b"
position_m = [40, 0, 10]
[[ran.ues]]
name = "ue"
position_m = [20, 5, 1.5]
gnb = "a"
[[events]]
at = "1s"
handover = {{ ue = "ue", to = "b" }}
[[flows]]
name = "dl"
from = "server"
to = "ue"
protocol = "mmcptp"
cc = "cubic"
{extra}
[flows.mmcptp]
proxy = "proxy"
"#
    )
}

#[test]
fn a_handover_nack_resumes_the_download_at_the_target_without_a_gap() {
    for seed in 1..=6 {
        let toml = ran_handover(
            "app = { kind = \"file\", size = \"12MB\" }",
            "loss = { kind = \"bernoulli\", p = 0.005 }",
        );
        let out = run_seed(&toml, seed);
        let f = flow(&out, 1);
        assert_eq!(
            u(&f["nacks"]),
            1,
            "seed {seed}: one handover, one NACK: {f}"
        );
        assert_eq!(u(&f["bytes_delivered"]), 12_000_000, "seed {seed}: {f}");
        assert!(f["completion_time_s"].as_f64().unwrap() > 1.0);
    }
}

#[test]
fn mmcptp_keeps_its_goodput_where_end_to_end_tcp_loses_it_to_core_loss() {
    // 0.5 % random loss between proxy and core: the end-to-end TCP flow halves its window
    // at each loss over its whole path, mmCPTP repairs them between proxy and BS and the
    // server's connection ends before the lossy link. Same file, cell and seed.
    let loss = "loss = { kind = \"bernoulli\", p = 0.005 }";
    let toml = ran_handover("app = { kind = \"file\", size = \"12MB\" }", loss);
    let cptp = run_seed(&toml, 1);
    let tcp = toml
        .replace("protocol = \"mmcptp\"", "")
        .replace("[flows.mmcptp]\nproxy = \"proxy\"", "");
    let tcp = run_seed(&tcp, 1);
    let (g_cptp, g_tcp) = (
        flow(&cptp, 1)["goodput_mbps"].as_f64().unwrap(),
        flow(&tcp, 0)["goodput_mbps"].as_f64().unwrap(),
    );
    assert!(
        g_cptp > 3.0 * g_tcp,
        "mmCPTP {g_cptp} vs TCP {g_tcp} Mbit/s"
    );
}

#[test]
fn the_plug_in_never_pushes_past_a_small_rlc_buffer() {
    // RLC UM with a 10 KiB buffer (ns-3's LTE default) at 100 RBs: the two-slot push-ahead
    // at the cell's peak rate (about 2 × 9 kB) is more than the buffer holds, so the
    // plug-in must read RLC's room too; a push past it would be refused and lost.
    let toml = ran_handover("", "").replace(
        "interference = false\n",
        "interference = false\nrbs = 100\nrlc = { mode = \"um\", buffer = \"10KiB\" }\n",
    );
    let out = run_toml(&toml);
    let ue = &out.summary["ues"][0];
    assert_eq!(u(&ue["rlc_buffer_drops"]["dl"]), 0, "{ue}");
    let f = flow(&out, 1);
    assert!(f["goodput_mbps"].as_f64().unwrap() > 20.0, "{f}");
}

#[test]
fn a_preloaded_proxy_serves_the_file_without_asking_the_server() {
    // The content is at the proxy: no HTTP request, the server's connection never opens,
    // and the 4 MB file takes its time at the last hop's rate (about 0.35 s at 100 Mbit/s
    // and the payload share) plus the request's and first pull's round trips; fetched
    // from a server 50 ms away, the same file waits for the server's TCP besides.
    let file = "app = { kind = \"file\", size = \"4MB\" }";
    let pre = run_toml(&wired(
        "5s",
        "50ms",
        "100Mbps",
        ["", "", ""],
        file,
        "preloaded = true",
    ));
    let fetched = run_toml(&wired("5s", "50ms", "100Mbps", ["", "", ""], file, ""));
    let (p, f) = (flow(&pre, 1), flow(&fetched, 1));
    assert_eq!(
        u(&flow(&pre, 0)["bytes_delivered"]),
        0,
        "the server is not asked"
    );
    assert_eq!(u(&p["bytes_delivered"]), 4_000_000);
    let (tp, tf) = (
        p["completion_time_s"].as_f64().unwrap(),
        f["completion_time_s"].as_f64().unwrap(),
    );
    let ideal = 4e6 * 8.0 / (100e6 * PAYLOAD_SHARE);
    assert!(
        tp > ideal && tp < ideal + 0.05,
        "preloaded {tp} s vs {ideal} s"
    );
    assert!(tf > tp + 0.1, "fetched {tf} s, preloaded {tp} s");
}
