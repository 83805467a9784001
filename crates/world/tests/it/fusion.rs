//! Hop fusion (`run/fusion.rs`) changes nothing but speed: a whole run (`run`, which
//! fuses hops over transit nodes) and the same run driven by a `Stepper` (which never
//! fuses) give the same summary and tables, bit for bit, on random transit topologies;
//! and at a UPF across handovers (here, and on random runs in `late_admission.rs`).

use super::common::*;
use mmtsim_world::RunOutput;
use proptest::prelude::*;

/// Runs `toml` both ways (`common.rs`); the fused run's output.
fn both_ways(toml: &str) -> RunOutput {
    whole_against_stepped(&load(toml))
}

/// Link `name` between `a` and `b` with the given rate (Mbit/s), delay (µs), queue
/// limit (kB) and extra keys.
fn link(
    name: &str,
    a: &str,
    b: &str,
    mbps: u32,
    delay_us: u32,
    limit_kb: u32,
    extra: &str,
) -> String {
    format!(
        "[[links]]\nname = \"{name}\"\nbetween = [\"{a}\", \"{b}\"]\nrate = \"{mbps}Mbps\"\n\
         delay = \"{delay_us}us\"\nqueue = {{ limit = \"{limit_kb}kB\" }}\n{extra}\n"
    )
}

#[test]
fn the_one_ue_path_fuses_both_directions_and_changes_nothing() {
    // gNB — core — server (examples/mmwave-2017.toml): data and ACKs each cross the core.
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/mmwave-2017.toml");
    let text = std::fs::read_to_string(path).expect("example");
    let text = text.replace("duration = \"10s\"", "duration = \"1500ms\"");
    let out = both_ways(&text);
    let segments = out.summary["flows"][0]["segments_sent"]
        .as_u64()
        .expect("segments sent");
    // Each data segment and its ACK (one per segment: no delayed ACKs here) cross the
    // core once: two fused hops per segment, less the few of the handshake and any
    // packet that waited behind an unfused one.
    assert!(
        out.fused_hops as f64 > 1.9 * segments as f64,
        "{} hops for {segments} segments",
        out.fused_hops
    );
}

#[test]
fn a_router_with_three_neighbours_fuses_only_onto_links_with_one_feeder() {
    let toml = format!(
        "[simulation]\nduration = \"2s\"\nseed = 3\n[[nodes]]\nname = \"s\"\n[[nodes]]\nname = \"r\"\n\
         [[nodes]]\nname = \"c\"\n[[nodes]]\nname = \"d\"\n{}{}{}\
         [[flows]]\nfrom = \"s\"\nto = \"c\"\ncc = \"cubic\"\n[[flows]]\nfrom = \"d\"\nto = \"c\"\ncc = \"newreno\"\n",
        link("a", "s", "r", 100, 5000, 200, ""),
        link("b", "r", "c", 20, 5000, 100, ""),
        link("e", "d", "r", 100, 3000, 200, ""),
    );
    // Link b towards c has two inputs (from s and from d): fusing either could reorder
    // them, so the data segments are not fused. The ACKs from c are: r's links towards
    // s and towards d each have c's link as their only input.
    let out = both_ways(&toml);
    let segments: u64 = (0..2)
        .map(|i| {
            out.summary["flows"][i]["segments_sent"]
                .as_u64()
                .expect("sent")
        })
        .sum();
    assert!(out.fused_hops > 0, "no ACK fused");
    assert!(
        (out.fused_hops as f64) < 1.2 * segments as f64,
        "{} hops fused for {segments} segments: data fused too",
        out.fused_hops
    );
}

#[test]
fn packets_left_unfused_keep_later_ones_off_the_next_link() {
    // server — g2 — n — g1 — edge, a UE on each cell. From g2's side, n takes packets
    // for `edge` ahead (a fixed node beyond g1) but not those for ue1 (a UE, with g2's
    // site behind n): while one of those is on the wire, later packets for `edge` must
    // wait their turn, or they would enter the link to g1 before it. At HANDOVER ue1 is
    // handed over to g2: packets for it then turn back at n, which they could not do had
    // n passed them on ahead.
    let scenario = r#"
[simulation]
duration = "1500ms"
seed = 4
[[nodes]]
name = "server"
[[nodes]]
name = "n"
[[nodes]]
name = "edge"
[[links]]
between = ["server", "g2"]
delay = "2ms"
rate = "1Gbps"
[[links]]
between = ["g2", "n"]
delay = "1ms"
rate = "1Gbps"
[[links]]
name = "n-g1"
between = ["n", "g1"]
delay = "1ms"
rate = "300Mbps"
queue = { limit = "150kB" }
[[links]]
between = ["g1", "edge"]
delay = "1ms"
rate = "1Gbps"
[ran]
preset = "mmwave-2017"
area = { min_m = [-50, -50], max_m = [250, 50] }
[[ran.gnbs]]
name = "g1"
position_m = [0, 0, 10]
[[ran.gnbs]]
name = "g2"
position_m = [200, 0, 10]
[[ran.ues]]
name = "ue1"
position_m = [20, 10, 1.5]
gnb = "g1"
[[ran.ues]]
name = "ue2"
position_m = [180, 10, 1.5]
gnb = "g2"
[[events]]
at = "HANDOVER"
handover = { ue = "ue1", to = "g2" }
[[flows]]
from = "server"
to = "edge"
cc = "cubic"
count = 2
[[flows]]
from = "server"
to = "ue1"
cc = "cubic"
[[flows]]
from = "ue2"
to = "edge"
cc = "newreno"
"#;
    for at in ["500ms", "900ms", "1100ms"] {
        let out = both_ways(&scenario.replace("HANDOVER", at));
        assert!(out.fused_hops > 0, "nothing fused");
    }
}

/// The three-site line of `common.rs` behind a UPF, 1.5 s: the walkers at `speed_mps`,
/// one scripted handover at 700 ms if `scripted`, `interruption_ms` as there.
fn behind_a_upf(speed_mps: f64, scripted: bool, interruption_ms: Option<u32>) -> String {
    line_of_cells(&Line {
        duration_ms: 1500,
        core: true,
        xn: false,
        lossless: true,
        speed_mps,
        buffer_kb: 1500,
        site_delay_ns: 1_000_000,
        sample_us: 1000,
        scripted_ms: scripted.then_some(700),
        outage_ms: 0,
        interruption_ms,
    })
}

/// Packets the UPF sent toward the sites (the links `router-A`, `-B`, `-C`, forward).
fn sent_to_sites(out: &RunOutput) -> u64 {
    out.summary["links"]
        .as_array()
        .expect("links")
        .iter()
        .filter(|l| l["name"] != "server-router" && l["direction"] == "forward")
        .map(|l| l["tx_packets"].as_u64().expect("tx_packets"))
        .sum()
}

#[test]
fn without_handovers_the_upf_takes_every_downlink_packet_ahead() {
    // The UPF (the router) is the only node a packet crosses without ending there, and it
    // has four neighbours: every fused hop is a downlink packet put into its tunnel at the
    // UPF ahead of its arrival. With no handover, every packet the UPF sends toward a
    // site is one, and a few more that reach the UPF in the last microseconds and are
    // still being sent at the end (1.2 µs a packet at 10 Gbit/s).
    let out = both_ways(&behind_a_upf(1e-4, false, None));
    assert_eq!(handovers_in(&out), 0);
    let down = sent_to_sites(&out);
    assert!(
        out.fused_hops >= down && out.fused_hops <= down + 10,
        "{} fused hops for {down} downlink packets",
        out.fused_hops
    );
}

#[test]
fn handovers_change_tunnels_under_packets_taken_ahead_and_nothing_else() {
    // The walkers' handovers and a scripted one: a packet for a UE in a handover, or one
    // a scripted handover may overtake, waits on the server's link, and those behind it
    // with it; the rest are fused. The results are those of the stepped run.
    let out = both_ways(&behind_a_upf(30.0, true, None));
    assert!(handovers_in(&out) >= 3, "{} handovers", handovers_in(&out));
    let core = &out.summary["core"];
    assert!(core["path_switches"].as_u64().unwrap() >= 3, "{core}");
    let down = sent_to_sites(&out);
    assert!(
        out.fused_hops > 0 && out.fused_hops < down,
        "{} fused hops for {down} downlink packets",
        out.fused_hops
    );
}

#[test]
fn a_handover_quicker_than_the_way_to_the_upf_leaves_nothing_fused() {
    // With no interruption, a handover decided as a packet leaves the server may switch
    // the path 2 ms later (report and command, 1 ms each), before the packet reaches the
    // UPF (10 ms): the UPF cannot know the tunnel ahead, and nothing else in this network
    // can be fused.
    let out = both_ways(&behind_a_upf(30.0, true, Some(0)));
    assert_eq!(out.fused_hops, 0);
    assert!(handovers_in(&out) >= 3, "{} handovers", handovers_in(&out));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Server — router — client, and a second router in line on some cases: random
    /// rates (either link may be the bottleneck, with tail drops at the router), delays,
    /// queue limits, random loss, duplication and reordering on the link beyond the router,
    /// TCP flows both ways, a UDP flow, and random sampling intervals.
    #[test]
    fn fused_runs_equal_unfused_runs(
        seed in 0u64..1000,
        r1 in 5u32..400, r2 in 5u32..400, r3 in 5u32..400,
        d1 in 1u32..20_000, d2 in 1u32..20_000, d3 in 1u32..5_000,
        q1 in 20u32..400, q2 in 20u32..400,
        two_routers in any::<bool>(),
        loss in prop_oneof![Just(0.0), 0.0001f64..0.02],
        impair in prop_oneof![Just(0.0), 0.001f64..0.02],
        up in any::<bool>(),
        udp in any::<bool>(),
        sample_us in 500u32..20_000,
        cc in prop_oneof![Just("cubic"), Just("newreno"), Just("bbr")],
        side in 0u8..3,
    ) {
        let beyond = format!(
            "loss = {{ kind = \"bernoulli\", p = {loss} }}\n\
             impairments = {{ duplicate = {impair}, reorder = {impair}, reorder_delay = \"700us\" }}"
        );
        let mut links = link("a", "server", "r1", r1, d1, q1, "");
        let last = if two_routers {
            links += &link("m", "r1", "r2", r3, d3, q2, "");
            "r2"
        } else {
            "r1"
        };
        links += &link("b", last, "client", r2, d2, q2, &beyond);
        let mut flows = format!(
            "[[flows]]\nfrom = \"server\"\nto = \"client\"\ncc = \"{cc}\"\ncount = 2\n"
        );
        if up {
            flows += "[[flows]]\nfrom = \"client\"\nto = \"server\"\ncc = \"cubic\"\nstart = \"300ms\"\n";
        }
        if udp {
            flows += "[[flows]]\nprotocol = \"udp\"\nfrom = \"server\"\nto = \"client\"\n\
                      app = { kind = \"cbr\", rate = \"3Mbps\" }\n";
        }
        // A third neighbour of r1 on some cases, so that r1 fuses by the flows' routes:
        // it sends to the client (two inputs onto r1's link towards the client, one onto
        // its link towards the server), or the server sends to it (the other way round).
        let mut side_node = "";
        if side > 0 {
            side_node = "[[nodes]]\nname = \"side\"\n";
            links += &link("sl", "side", "r1", r1, d3, q1, "");
            flows += if side == 1 {
                "[[flows]]\nfrom = \"side\"\nto = \"client\"\ncc = \"newreno\"\n"
            } else {
                "[[flows]]\nfrom = \"server\"\nto = \"side\"\ncc = \"cubic\"\nstart = \"100ms\"\n"
            };
        }
        let r2_node = if two_routers { "[[nodes]]\nname = \"r2\"\n" } else { "" };
        let toml = format!(
            "[simulation]\nduration = \"1500ms\"\nseed = {seed}\n[metrics]\nsample_interval = \"{sample_us}us\"\n\
             [[nodes]]\nname = \"server\"\n[[nodes]]\nname = \"r1\"\n{r2_node}\
             [[nodes]]\nname = \"client\"\n{side_node}{links}{flows}"
        );
        let out = both_ways(&toml);
        prop_assert!(out.fused_hops > 0, "nothing fused");
    }
}
