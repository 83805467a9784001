//! 12e: the retransmission timer per RFC 6298 through a 2 s outage.
//!
//! A 5 Mbit/s application over a 20 Mbit/s path keeps the queue empty, so RTT samples
//! are the constant 20 ms path RTT (plus serialisation): SRTT + 4·RTTVAR stays far below
//! the minimum RTO, and RTO = min_rto exactly. The forward link stops for 2 s at t = 5 s
//! (the trace rate is 0; packets wait in the queue, as in an RLC buffer). Then:
//! - the first timeout fires one RTO after the last ACK that advanced SND.UNA (§5.3:
//!   the timer restarts on every such ACK);
//! - each later timeout fires after twice the previous interval (§5.5 backoff);
//! - once the link returns, ACKs flow again and the application's rate is restored.
//!
//! Tail loss probes are off here (`early_retrans = 0`): they would take the first
//! timeout's place (see `recovery.rs`).

use super::common::*;

fn outage_run(min_rto: &str, max_rto: &str, outage_s: f64) -> mmtsim_world::RunOutput {
    outage_scenario(
        outage_s,
        "",
        r#"app = { kind = "rate", rate = "5Mbps" }"#,
        // RFC 6298 alone: its estimator, and no tail loss probe ahead of the first timeout.
        &format!(
            r#"tcp = {{ min_rto = "{min_rto}", max_rto = "{max_rto}", early_retrans = 0, rto_estimator = "rfc6298" }}"#
        ),
        "1MB",
    )
}

fn last_sample_before(out: &mmtsim_world::RunOutput, t_s: f64) -> f64 {
    u64s(out, "rtt", "t_ns")
        .iter()
        .map(|&x| x as f64 * 1e-9)
        .filter(|&x| x < t_s)
        .fold(0.0, f64::max)
}

fn rto_times(out: &mmtsim_world::RunOutput) -> Vec<f64> {
    flow(out, 0)["rto_times_s"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

#[test]
fn first_timeout_is_min_rto_after_the_last_ack_and_backoff_doubles() {
    let out = outage_run("200ms", "60s", 2.0);
    let last_ack = last_sample_before(&out, 5.5);
    let rtos = rto_times(&out);
    eprintln!("last ACK {last_ack:.6} s, RTOs at {rtos:?}");
    // Outage 5–7 s: RTOs at T, T + 0.4, T + 1.2 with T = last ACK + 0.2; the next one
    // (T + 2.8 ≈ 8.0 s) is pre-empted by ACKs arriving from 7.0 s on.
    assert_eq!(rtos.len(), 3, "{rtos:?}");
    let tol = 1e-6;
    assert!(
        (rtos[0] - (last_ack + 0.2)).abs() < tol,
        "first RTO {} vs {}",
        rtos[0],
        last_ack + 0.2
    );
    assert!((rtos[1] - rtos[0] - 0.4).abs() < tol);
    assert!((rtos[2] - rtos[1] - 0.8).abs() < tol);
}

#[test]
fn a_one_second_minimum_is_honoured() {
    let out = outage_run("1s", "60s", 2.0);
    let last_ack = last_sample_before(&out, 5.5);
    let rtos = rto_times(&out);
    // T = last ACK + 1 s ≈ 6.0 s; the next (T + 2 s ≈ 8.0 s) comes after the link returns.
    assert_eq!(rtos.len(), 1, "{rtos:?}");
    assert!((rtos[0] - (last_ack + 1.0)).abs() < 1e-6);
}

#[test]
fn backoff_stops_at_the_maximum_rto() {
    // 6 s outage, max RTO 1 s: intervals 0.4, 0.8, then 1.0 s each.
    let out = outage_run("200ms", "1s", 6.0);
    let rtos = rto_times(&out);
    let gaps: Vec<f64> = rtos.windows(2).map(|w| w[1] - w[0]).collect();
    eprintln!("gaps {gaps:?}");
    assert!(gaps.len() >= 5);
    for (i, g) in gaps.iter().enumerate() {
        let expected = [0.4, 0.8].get(i).copied().unwrap_or(1.0);
        assert!((g - expected).abs() < 1e-6, "gap {i}: {g} vs {expected}");
    }
}

#[test]
fn the_flow_recovers_its_rate_after_the_outage() {
    let out = outage_run("200ms", "60s", 2.0);
    let (t, v) = (
        f64s(&out, "goodput", "t_s"),
        f64s(&out, "goodput", "goodput_mbps"),
    );
    let mean = |a: f64, b: f64| {
        let s: Vec<f64> = t
            .iter()
            .zip(v)
            .filter(|(t, _)| **t >= a && **t < b)
            .map(|(_, v)| *v)
            .collect();
        s.iter().sum::<f64>() / s.len() as f64
    };
    // Nothing is delivered during the outage (bins fully inside 5.1–6.9 s)…
    assert!(mean(5.1, 6.9) < 1e-9);
    // …and from one second after it the 5 Mbit/s application rate is back (within 5 %).
    let after = mean(8.0, 20.0);
    assert!(
        (after - 5.0).abs() < 0.25,
        "goodput after the outage {after:.3} Mbit/s"
    );
}

/// `tcp.rto_ssthresh`: a bulk NewReno flow meets a 2 s outage and times out at least twice
/// inside it. Both rules set ssthresh at the first timeout to half the window before it.
/// Linux (default) keeps that through the backed-off timeouts; ns-3 (3.27 on) asks again at
/// each one, from the one-segment window then: max(1/2, 2) = 2 segments, which is what
/// leaves ns-3's NewReno crawling in congestion avoidance after the link returns.
#[test]
fn ssthresh_after_backed_off_timeouts_linux_versus_ns3() {
    let run_mode = |mode: &str| {
        outage_scenario(
            2.0,
            "[metrics]\ncwnd = \"change\"",
            "",
            &format!(r#"tcp = {{ mss = "1000B", rto_ssthresh = "{mode}" }}"#),
            "100kB",
        )
    };
    for (mode, ns3) in [("linux", false), ("ns3", true)] {
        let out = run_mode(mode);
        let rtos: Vec<f64> = rto_times(&out)
            .into_iter()
            .filter(|&t| t > 5.0 && t < 7.0)
            .collect();
        assert!(rtos.len() >= 2, "{mode}: timeouts in the outage {rtos:?}");
        let t = u64s(&out, "cwnd", "t_ns");
        let cwnd = u64s(&out, "cwnd", "cwnd_bytes");
        let ss = u64s(&out, "cwnd", "ssthresh_bytes");
        let first_ns = (rtos[0] * 1e9).round() as u64;
        let last_ns = (rtos[rtos.len() - 1] * 1e9).round() as u64;
        let before = t.iter().rposition(|&x| x < first_ns).unwrap();
        let after_first = t.iter().rposition(|&x| x <= first_ns).unwrap();
        let after_last = t.iter().rposition(|&x| x <= last_ns).unwrap();
        let first = (cwnd[before] / 1000 / 2).max(2) * 1000;
        assert_eq!(
            ss[after_first], first,
            "{mode}: cwnd before {}",
            cwnd[before]
        );
        let last = if ns3 { 2 * 1000 } else { first };
        assert_eq!(
            ss[after_last], last,
            "{mode}: after the backed-off timeouts"
        );
    }
}
