//! Summary metrics and time series against their definitions.

use super::common::*;

fn udp(start: &str, duration: &str, link_extra: &str) -> mmtsim_world::RunOutput {
    // 12 Mbit/s link, CBR at 6 Mbit/s: 1500 B datagrams (1472 B payload) every 2 ms.
    run_toml(&dumbbell_with(
        "12Mbps",
        "1ms",
        r#"{ limit_packets = 100 }"#,
        duration,
        link_extra,
        &format!(
            "[[flows]]\nprotocol = \"udp\"\nfrom = \"server\"\nto = \"client\"\nstart = \"{start}\"\napp = {{ kind = \"cbr\", rate = \"6Mbps\" }}\n"
        ),
    ))
}

fn goodput_series(out: &mmtsim_world::RunOutput) -> Vec<(f64, f64)> {
    let (t, v) = (
        f64s(out, "goodput", "t_s"),
        f64s(out, "goodput", "goodput_mbps"),
    );
    t.iter().copied().zip(v.iter().copied()).collect()
}

#[test]
fn partial_bins_are_divided_by_the_part_covered() {
    // Start at 0.05 s, end at 1.05 s, 100 ms bins: the first bin covers 50 ms, the last
    // 50 ms. Datagrams leave every 2 ms from 0.05 s and arrive 2 ms later (1 ms delay,
    // 1 ms serialisation): at 0.052, 0.054, … A full bin [t, t + 0.1) holds 50 arrivals of
    // 1472 B = 5.888 Mbit/s; the first, [0.05, 0.1), holds 24 (0.052…0.098); the last,
    // [1.0, 1.05] with the run's final instant included, holds 26 (1.000…1.050).
    let out = udp("50ms", "1050ms", "");
    let s = goodput_series(&out);
    assert_eq!(s.len(), 11);
    let per_50ms = |n: f64| n * 1472.0 * 8.0 / 0.05 / 1e6;
    for (i, (t, v)) in s.iter().enumerate() {
        let expected = match i {
            0 => per_50ms(24.0),
            10 => per_50ms(26.0),
            _ => per_50ms(25.0),
        };
        assert!(
            (v - expected).abs() < 1e-9,
            "bin {i} at {t}: {v} vs {expected}"
        );
    }
    // The bins add up to every byte delivered, including those delivered at t = end.
    let widths = [0.05, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.05];
    let sum: f64 = s
        .iter()
        .zip(widths)
        .map(|((_, v), w)| v * 1e6 / 8.0 * w)
        .sum();
    let delivered = flow(&out, 0)["bytes_delivered"].as_f64().unwrap();
    assert!((sum - delivered).abs() < 1.0, "{sum} vs {delivered}");
}

#[test]
fn goodput_of_a_stopped_flow_counts_only_its_active_time() {
    // A 20 MB buffer lets a NewReno flow queue far more than it can deliver by its stop at
    // 1 s; what drains afterwards is not part of its goodput, which cannot exceed the
    // 100 Mbit/s link's payload capacity (96.42 Mbit/s).
    let text = dumbbell(
        "100Mbps",
        "10ms",
        r#"{ limit = "20MB" }"#,
        "5s",
        "[[flows]]\nfrom = \"server\"\nto = \"client\"\ncc = \"newreno\"\nstop = \"1s\"\n",
    );
    let out = run_toml(&text);
    let f = flow(&out, 0);
    let g = f["goodput_mbps"].as_f64().unwrap();
    assert!(g <= 100.0 * 1400.0 / 1452.0, "goodput {g}");
    assert!(
        f["bytes_delivered"].as_f64().unwrap() * 8.0 / 1e6 > g,
        "drained bytes are still delivered"
    );
}

#[test]
fn rtt_samples_can_be_switched_off_without_losing_the_summary() {
    let base = dumbbell(
        "50Mbps",
        "10ms",
        r#"{ limit = "100kB" }"#,
        "3s",
        "[[flows]]\nfrom = \"server\"\nto = \"client\"\n",
    );
    let on = run_toml(&base);
    let off = run_toml(&format!("{base}\n[metrics]\nrtt = false\n"));
    assert_eq!(off.table("rtt").unwrap().column("t_ns").unwrap().len(), 0);
    let (a, b) = (flow(&on, 0), flow(&off, 0));
    assert_eq!(a["rtt_samples"], b["rtt_samples"]);
    assert_eq!(a["rtt_mean_ms"], b["rtt_mean_ms"]);
    assert_eq!(a["rtt_min_ms"], b["rtt_min_ms"]);
    assert!(b["rtt_p95_ms"].is_null(), "a percentile needs the samples");
}

/// Per-packet tables obey `metrics.sample_budget`, shared by the flows recording them: two
/// flows and a budget of 200 rows leave each flow at most 100 RTT rows and at least 50
/// (halving keeps at least half), evenly spread (one stride per flow); the summary still
/// counts every sample, its mean and minimum are exact, and its p95 lies within the
/// histogram's 1/512 of the exact value (`keep_all_samples`). Change-recorded cwnd rows obey
/// the same budget; the summary carries one notice per thinned table.
#[test]
fn per_packet_tables_obey_the_row_budget() {
    let base = dumbbell(
        "50Mbps",
        "10ms",
        r#"{ limit = "100kB" }"#,
        "3s",
        "[[flows]]\nfrom = \"server\"\nto = \"client\"\ncount = 2\n",
    );
    let all = run_toml(&format!(
        "{base}\n[metrics]\ncwnd = \"change\"\nkeep_all_samples = true\n"
    ));
    let thin = run_toml(&format!(
        "{base}\n[metrics]\ncwnd = \"change\"\nsample_budget = 200\n"
    ));
    for id in 0..2u32 {
        let rows = |out: &mmtsim_world::RunOutput, table: &str| {
            u32s(out, table, "flow")
                .iter()
                .filter(|&&f| f == id)
                .count()
        };
        let (a, b) = (flow(&all, id as usize), flow(&thin, id as usize));
        let samples = a["rtt_samples"].as_u64().unwrap() as usize;
        assert!(
            samples > 400,
            "the test needs more samples than the budget: {samples}"
        );
        assert_eq!(rows(&all, "rtt"), samples);
        let kept = rows(&thin, "rtt");
        assert!((50..=100).contains(&kept), "{kept} rows kept of {samples}");
        let stride = b["rtt_rows_stride"].as_u64().unwrap() as usize;
        assert_eq!(kept, samples.div_ceil(stride), "every {stride}th sample");
        let (cwnd_thin, cwnd_all) = (rows(&thin, "cwnd"), rows(&all, "cwnd"));
        assert!(
            cwnd_thin <= 100 && cwnd_all > 100,
            "{cwnd_thin} of {cwnd_all} cwnd rows"
        );
        assert_eq!(a["rtt_samples"], b["rtt_samples"]);
        assert_eq!(a["rtt_mean_ms"], b["rtt_mean_ms"]);
        assert_eq!(a["rtt_min_ms"], b["rtt_min_ms"]);
        let (pa, pb) = (
            a["rtt_p95_ms"].as_f64().unwrap(),
            b["rtt_p95_ms"].as_f64().unwrap(),
        );
        assert!(
            pb <= pa && pa - pb <= pa / 512.0 + 1e-3,
            "p95 {pb} vs exact {pa}"
        );
    }
    let notices = thin.summary["notices"].as_array().unwrap();
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert!(notices[0].as_str().unwrap().starts_with("rtt: "));
    assert!(all.summary["notices"].as_array().unwrap().is_empty());
}

#[test]
fn udp_loss_and_delay_summary() {
    // 1 % Bernoulli loss: datagrams lost = sent − received, and the one-way delay is the
    // 1 ms propagation plus 1 ms serialisation of 1500 B at 12 Mbit/s.
    let out = udp("0s", "10s", r#"loss = { kind = "bernoulli", p = 0.01 }"#);
    let f = flow(&out, 0);
    let sent = f["datagrams_sent"].as_u64().unwrap();
    let received = f["datagrams_received"].as_u64().unwrap();
    assert_eq!(f["datagrams_lost"].as_u64().unwrap(), sent - received);
    let loss = 1.0 - received as f64 / sent as f64;
    assert!((loss - 0.01).abs() < 0.004, "loss {loss}");
    assert!((f["owd_min_ms"].as_f64().unwrap() - 2.0).abs() < 1e-3);
}
