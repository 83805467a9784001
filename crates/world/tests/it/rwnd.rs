//! The receive-window controller of a downlink TCP flow to a UE.
//!
//! One static UE at a constant 30 dB (SINR trace), 2017 preset, 10 MB RLC buffers,
//! downlink CUBIC from a server 11 ms away (RTT ≈ 22.8 ms). Without the controller CUBIC
//! fills the gNB's RLC buffer (the bufferbloat of 10f, downlink); with it the UE
//! advertises ≈ downlink grant rate × rtt_min and the buffer stays nearly empty while the
//! goodput is the same.

use super::common::*;
use mmtsim_world::RunOutput;

fn run(rwnd_control: bool) -> RunOutput {
    let toml = constant_sinr_cell(
        "5s",
        &format!(
            r#"
[[flows]]
from = "server"
to = "ue"
cc = "cubic"
tcp = {{ rwnd_control = {rwnd_control} }}
"#
        ),
    );
    run_at_sinr(&toml, 30.0)
}

/// The bounds, derived: the controller's estimate is the rate of the whole data region
/// (22 symbols of the 2017 subframe); the flow's ACKs take one uplink symbol of the same
/// dynamic-TDD frame (≈ 13 ACKs < 1 kB per subframe, one symbol carries ≈ 1.8 kB at MCS
/// 28), so the window exceeds goodput × rtt_min by ≈ 22/21 − 1 = 4.8 %, and that excess
/// stands in the gNB's RLC buffer. Both are asserted within 10 %. The uncontrolled flow
/// keeps megabytes queued (10f); the controlled one must not lose goodput for it.
#[test]
fn the_controller_keeps_the_gnb_buffer_empty_at_full_rate() {
    let free = run(false);
    let ctl = run(true);
    let (gf, gc) = (
        flow(&free, 0)["goodput_mbps"].as_f64().unwrap(),
        flow(&ctl, 0)["goodput_mbps"].as_f64().unwrap(),
    );
    let rtt_min_s = flow(&ctl, 0)["rtt_min_ms"].as_f64().unwrap() * 1e-3;
    let (rlc_free, rlc_ctl) = (
        mean_since(&free, "ran", "rlc_dl_bytes", 1.0),
        mean_since(&ctl, "ran", "rlc_dl_bytes", 1.0),
    );
    let rwnd = mean_since(&ctl, "cwnd", "rwnd_bytes", 1.0);
    let bdp = gc * 1e6 * rtt_min_s / 8.0;
    let (rtt_free, rtt_ctl) = (
        flow(&free, 0)["rtt_mean_ms"].as_f64().unwrap(),
        flow(&ctl, 0)["rtt_mean_ms"].as_f64().unwrap(),
    );
    eprintln!(
        "rwnd: goodput {gf:.1} → {gc:.1} Mbit/s; gNB RLC {:.0} kB → {:.0} kB; RTT {rtt_free:.2} → {rtt_ctl:.2} ms (min {:.2}); rwnd {:.0} kB vs goodput×rtt_min {:.0} kB",
        rlc_free / 1e3,
        rlc_ctl / 1e3,
        rtt_min_s * 1e3,
        rwnd / 1e3,
        bdp / 1e3
    );
    assert!(rlc_free > 2e6, "uncontrolled CUBIC bloats: {rlc_free} B");
    assert!((rwnd - bdp).abs() / bdp < 0.10, "rwnd {rwnd} vs {bdp}");
    assert!(rlc_ctl < 0.10 * bdp, "gNB RLC {rlc_ctl} B vs BDP {bdp} B");
    assert!(rtt_ctl < rtt_min_s * 1e3 * 1.10 + 1.0, "RTT {rtt_ctl} ms");
    assert!(gc > 0.95 * gf, "goodput {gc} vs {gf} uncontrolled");
}

#[test]
fn the_controller_needs_a_ue_receiver_and_timestamps() {
    let base = one_ue_cell(
        "1s",
        "",
        r#"

[[flows]]
from = "ue"
to = "server"
tcp = { rwnd_control = true, timestamps = false }
"#,
    );
    let err = load_error(&base);
    assert!(
        err.contains("flows[0].tcp.rwnd_control") && err.contains("must end at a UE"),
        "{err}"
    );
    assert!(err.contains("timestamps"), "{err}");
}
