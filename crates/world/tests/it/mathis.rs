//! 12c: NewReno without SACK under random loss against Mathis et al. (1997):
//! throughput ≈ (MSS / RTT) · sqrt(3 / (2p)).
//!
//! The path is fast (1 Gbit/s) so that the loss process, not the link, limits the flow and
//! the RTT stays at its propagation value (20 ms). Loss hits data packets only (the model
//! counts congestion events per packet sent). Three seeds are averaged so the comparison
//! does not hinge on one realisation.

use super::common::*;

fn newreno_goodput(p: f64, seed: u64) -> f64 {
    let extra = r#"
[[flows]]
from = "server"
to = "client"
cc = "newreno"
tcp = { sack = false }
"#;
    let loss = format!("loss = {{ kind = \"bernoulli\", p = {p} }}");
    let s = dumbbell_with(
        "1Gbps",
        "10ms",
        r#"{ limit = "10MB" }"#,
        "200s",
        &loss,
        extra,
    );
    let out = run_seed(&s, seed);
    flow(&out, 0)["goodput_mbps"].as_f64().unwrap()
}

fn mathis_mbps(p: f64) -> f64 {
    1400.0 * 8.0 / 0.020 * (3.0 / (2.0 * p)).sqrt() / 1e6
}

fn check(p: f64) {
    let g: f64 = (1..=3).map(|s| newreno_goodput(p, s)).sum::<f64>() / 3.0;
    let m = mathis_mbps(p);
    eprintln!(
        "p = {p}: mmtsim {g:.2} Mbit/s, Mathis {m:.2} Mbit/s, ratio {:.3}",
        g / m
    );
    assert!(
        (g / m - 1.0).abs() <= 0.25,
        "p = {p}: {g:.2} vs Mathis {m:.2}"
    );
}

#[test]
fn newreno_matches_mathis_at_0_1_percent_loss() {
    check(0.001);
}

#[test]
fn newreno_matches_mathis_at_1_percent_loss() {
    check(0.01);
}
