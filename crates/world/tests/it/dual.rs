//! Dual connectivity end to end: an LTE anchor (the UE's serving cell) and a mmWave
//! secondary cell share one split bearer; new data take the secondary while its SINR
//! supports an MCS (fast switching), else the anchor. Expected values come from each
//! cell's peak rate and the flows' rates.
//!
//! Setup: a server 10 ms from the LTE site "lte" (preset lte-2ghz, UMa, 25 m mast at the
//! origin), which is 1 ms from the mmWave site "mmw" (mmwave-2017, 10 m high); one UE 20 m
//! from the LTE mast. Fading and shadowing off.

use super::common::*;

fn dc(mmw_x: f64, ue_extra: &str, rest: &str) -> String {
    format!(
        r#"
[simulation]
duration = "1s"
[[nodes]]
name = "server"
[[links]]
between = ["server", "lte"]
delay = "10ms"
rate = "100Gbps"
[[links]]
between = ["lte", "mmw"]
delay = "1ms"
rate = "100Gbps"
[ran]
preset = "mmwave-2017"
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
position_m = [{mmw_x}, 0, 10]
[[ran.ues]]
name = "ue"
position_m = [20, 0, 1.5]
gnb = "lte"
{ue_extra}
{rest}
"#
    )
}

const UDP_500M: &str = r#"
[[flows]]
protocol = "udp"
from = "server"
to = "ue"
app = { kind = "cbr", rate = "500Mbps" }
"#;

#[test]
fn with_a_usable_mmwave_leg_the_split_bearer_sends_everything_there() {
    // The mmWave site is 10 m from the UE's foot: 55 dB of SINR, MCS 28. 500 Mbit/s is
    // eight times the LTE cell's 66 Mbit/s peak, yet the UE gets all of it: every datagram
    // goes over the secondary leg, none over the anchor.
    let out = run_toml(&dc(30.0, "secondary = \"mmw\"", UDP_500M));
    assert_eq!(
        cell_dl_mbps(&out, 0),
        0.0,
        "the LTE anchor carried downlink data"
    );
    let f = flow(&out, 0);
    let g = f["goodput_mbps"].as_f64().unwrap();
    // 500 Mbit/s at the IP level carries 1472/1500 of payload; the first 11 ms of the
    // second carry nothing yet (wire and PDCP/RLC/MAC set-up).
    let want = 500.0 * 1472.0 / 1500.0;
    assert!(
        g <= want && g > 0.98 * want,
        "goodput {g}, want about {want}"
    );
    assert_eq!(out.summary["ues"][0]["secondary_cell"], "mmw");
    assert_eq!(out.summary["ues"][0]["serving_cell"], "lte");
}

#[test]
fn without_a_usable_mmwave_leg_the_anchor_carries_everything() {
    // The mmWave site is 1 km away: about 110 dB of path loss more than the LTE link and
    // a SINR far below the lowest MCS's threshold, so the split keeps every datagram on
    // the anchor, whose 65.952 Mbit/s peak (TS 36.213 TBS, worked in numerology.rs) then
    // limits the UE.
    let out = run_toml(&dc(1000.0, "secondary = \"mmw\"", UDP_500M));
    assert_eq!(
        cell_dl_mbps(&out, 1),
        0.0,
        "the mmWave leg carried downlink data"
    );
    let lte = cell_dl_mbps(&out, 0);
    assert!(
        lte <= 65.952 + 1e-9 && lte > 0.97 * 65.952,
        "LTE cell {lte}"
    );
    let ran = column_f64(&out, "ran", "sinr_dl_secondary_db");
    assert!(
        ran.iter().all(|&s| s < -5.0),
        "secondary SINR {:?}",
        &ran[..3]
    );
}

/// 20 Mbit/s of 1500-byte datagrams (one every 600 µs, the first at 0) stopping at 1 s, a
/// secondary cell added at 0.5 s, PDCP t-Reordering `t_reordering`; a 1.2 s run.
fn added_mid_run(t_reordering: &str) -> mmtsim_world::RunOutput {
    let s = dc(
        30.0,
        "",
        r#"
[[flows]]
protocol = "udp"
from = "server"
to = "ue"
stop = "1s"
app = { kind = "cbr", rate = "20Mbps" }
[[events]]
at = "0.5s"
add_secondary = { ue = "ue", cell = "mmw" }
"#,
    )
    .replace("duration = \"1s\"", "duration = \"1.2s\"")
    .replace(
        "[ran.channel]",
        &format!("pdcp_t_reordering = \"{t_reordering}\"\n[ran.channel]"),
    );
    run_toml(&s)
}

#[test]
fn a_secondary_cell_added_mid_run_takes_the_new_data_from_then_on() {
    // Datagrams reach the LTE site 10 ms after they leave the server. Until the secondary
    // is added at 0.5 s they go out on LTE: k = 0 … 816 (10 ms + 0.6 k ms < 500 ms); from
    // then on over mmWave: the other 850 sent before 1 s. With a 20 ms
    // t-Reordering the UE's PDCP waits for the last LTE datagrams (LTE's 1 ms TTIs are
    // slower than the mmWave leg's 100 µs slots) and loses none.
    let out = added_mid_run("20ms");
    let f = flow(&out, 0);
    assert_eq!(f["datagrams_sent"], 1667);
    assert_eq!(f["datagrams_lost"], 0, "{f}");
    let (lte, mmw) = (cell_dl_mbps(&out, 0), cell_dl_mbps(&out, 1));
    assert!(lte > 0.0 && mmw > 0.0, "lte {lte} mmw {mmw}");
    // The legs' delays tell them apart: on LTE a block takes a 1 ms TTI and a TTI to
    // decode, so no datagram arrives sooner than 10 + 2 ms; on the mmWave leg a 100 µs
    // slot and one to decode (the split itself adds no delay in the model).
    let t = column_f64(&out, "owd", "t_ns");
    let d = column_f64(&out, "owd", "owd_us");
    let min = |from: f64, to: f64| {
        t.iter()
            .zip(&d)
            .filter(|(&t, _)| t >= from && t < to)
            .map(|(_, &d)| d * 1e-3)
            .fold(f64::INFINITY, f64::min)
    };
    let (before, after) = (min(0.0, 0.5e9), min(0.52e9, 1.0e9));
    assert!(before >= 12.0, "min one-way delay on LTE {before} ms");
    assert!(after < 10.6, "min one-way delay on mmWave {after} ms");
    let sec = column_f64(&out, "ran", "sinr_dl_secondary_db");
    let t = column_f64(&out, "ran", "t_ns");
    for (s, t) in sec.iter().zip(t) {
        assert_eq!(s.is_nan(), t < 5e8, "t = {t} ns: secondary SINR {s}");
    }
}

#[test]
fn without_reordering_time_the_slower_legs_stragglers_are_discarded() {
    // t-Reordering 0 (ns-3 mmWave's LTE PDCP): the first mmWave datagram after the switch
    // overtakes the LTE datagrams still on the air, the PDCP receive window moves past
    // them at once, and they arrive below it and are discarded (TS 38.323 §5.2.2.1). At
    // most the datagrams of one LTE delivery time can be caught so: ~10 ms / 0.6 ms.
    let lost = flow(&added_mid_run("0s"), 0)["datagrams_lost"]
        .as_u64()
        .unwrap();
    assert!((1..=17).contains(&lost), "{lost} lost");
}

#[test]
fn secondary_cells_are_checked() {
    let e = load_error(&dc(30.0, "secondary = \"lte\"", UDP_500M));
    assert!(
        e.contains("ran.ues[0].secondary") && e.contains("serving cell"),
        "{e}"
    );
    let e = load_error(&dc(30.0, "secondary = \"moon\"", UDP_500M));
    assert!(
        e.contains("ran.ues[0].secondary") && e.contains("\"moon\""),
        "{e}"
    );
    let e = load_error(&dc(
        30.0,
        "secondary = \"mmw\"",
        &format!(
            "{UDP_500M}[[events]]\nat = \"0.5s\"\nhandover = {{ ue = \"ue\", to = \"mmw\" }}\n"
        ),
    ));
    assert!(
        e.contains("events[0].handover.to") && e.contains("secondary cell"),
        "{e}"
    );
    let e = load_error(&dc(
        30.0,
        "",
        &format!("{UDP_500M}[[events]]\nat = \"0.5s\"\nadd_secondary = {{ ue = \"ue\", cell = \"x\" }}\nhandover = {{ ue = \"ue\", to = \"mmw\" }}\n"),
    ));
    assert!(e.contains("events[0]") && e.contains("two actions"), "{e}");
}
