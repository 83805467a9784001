//! Receiving applications that lag, zero windows, and flows split at a relay (split TCP),
//! end to end. Expected values come from the rates and buffers of each setup.

use super::common::*;

/// server — 10 ms, 100 Mbit/s — client, a 100-packet drop-tail queue, then `flow`.
fn path(duration: &str, flow: &str) -> String {
    dumbbell("100Mbps", "10ms", "{ limit_packets = 100 }", duration, flow)
}

/// server — 1 Gbit/s, `first_delay` — proxy — `second_rate`, 5 ms, a `queue_packets`
/// drop-tail queue — client, for 5 s, then `flow`.
fn split_path(first_delay: &str, second_rate: &str, queue_packets: u32, flow: &str) -> String {
    format!(
        r#"
[simulation]
duration = "5s"
[[nodes]]
name = "server"
[[nodes]]
name = "proxy"
[[nodes]]
name = "client"
[[links]]
between = ["server", "proxy"]
rate = "1Gbps"
delay = "{first_delay}"
[[links]]
between = ["proxy", "client"]
rate = "{second_rate}"
delay = "5ms"
queue = {{ limit_packets = {queue_packets} }}
{flow}
"#
    )
}

fn f64_of(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn a_slow_reader_sets_the_pace_and_closes_the_window() {
    // The application reads 20 Mbit/s of a 100 Mbit/s path through a 256 kB receive
    // buffer: the sender is held to the reader's rate by the window, not by losses.
    let out = run_toml(&path(
        "10s",
        r#"
[[flows]]
from = "server"
to = "client"
cc = "cubic"
read_rate = "20Mbps"
tcp = { rcv_buf = "256kB" }
"#,
    ));
    let f = flow(&out, 0);
    let goodput = f64_of(&f["goodput_mbps"]);
    // The reader starts at the first data (one RTT in) and then reads at 20 Mbit/s.
    assert!(goodput <= 20.0 && goodput > 19.5, "goodput {goodput}");
    assert_eq!(f["retransmits"], 0, "{f}");
    // Never more in flight than the receive buffer holds.
    let inflight = column_f64(&out, "cwnd", "inflight_bytes");
    let max = inflight.iter().cloned().fold(0.0, f64::max);
    assert!(max <= 256_000.0, "in flight {max}");
    // Held by the window, the sender keeps one window per round trip in flight, so the
    // window settles at the reader's rate times the RTT: 2.5 MB/s × 20–22 ms.
    let rwnd = column_f64(&out, "cwnd", "rwnd_bytes");
    let mut settled: Vec<f64> = rwnd[100..].to_vec(); // after the first second
    settled.sort_by(f64::total_cmp);
    let median = settled[settled.len() / 2];
    let (lo, hi) = (
        2.5e6 * f64_of(&f["rtt_min_ms"]) * 1e-3,
        2.5e6 * f64_of(&f["rtt_p95_ms"]) * 1e-3 + 2.0 * 1400.0,
    );
    assert!(
        median >= lo && median <= hi,
        "window {median} B, expected {lo}..{hi}"
    );
}

#[test]
fn a_reader_slower_than_a_segment_per_round_trip_meets_a_zero_window() {
    // At 1 Mbit/s the reader frees one 1400-byte segment every 11.2 ms, less than a round
    // trip (20 ms): the 64 kB buffer fills, the receiver advertises a zero window, and
    // every read that frees a segment's worth sends a window update.
    let out = run_toml(&path(
        "10s",
        r#"
[[flows]]
from = "server"
to = "client"
read_rate = "1Mbps"
tcp = { rcv_buf = "64kB" }
"#,
    ));
    let f = flow(&out, 0);
    let goodput = f64_of(&f["goodput_mbps"]);
    assert!(goodput <= 1.0 && goodput > 0.97, "goodput {goodput}");
    assert!(f64_of(&f["zero_window_acks"]) > 0.0, "{f}");
    assert!(f64_of(&f["window_updates"]) > 0.0, "{f}");
    assert_eq!(f["retransmits"], 0, "{f}");
    assert_eq!(f["rtos"], 0, "{f}");
}

#[test]
fn a_slow_reader_holds_the_sender_with_the_default_buffer_too() {
    // The default 64 MiB buffer takes a window scale of 11 (2 KiB units), more than one
    // 1400-byte segment per ACK: the window must still close. Whatever the sender sent
    // beyond what the 5 Mbit/s reader read fits in the buffer (plus one scale unit).
    let out = run_toml(&path(
        "10s",
        r#"
[[flows]]
from = "server"
to = "client"
read_rate = "5Mbps"
"#,
    ));
    let f = flow(&out, 0);
    let read = f64_of(&f["bytes_delivered"]);
    let sent = f64_of(&f["segments_sent"]) * 1400.0;
    assert!(
        sent <= read + 67_108_864.0 + 2048.0 + 1400.0,
        "sent {sent} B, the reader read {read} B"
    );
    assert!(f64_of(&f["zero_window_acks"]) > 0.0, "{f}");
    let goodput = f64_of(&f["goodput_mbps"]);
    assert!(goodput <= 5.0 && goodput > 4.9, "goodput {goodput}");
}

#[test]
fn a_split_flow_holds_at_most_the_relays_buffer_between_its_legs() {
    // server — 20 ms, 1 Gbit/s — proxy — 5 ms, 20 Mbit/s — client. The relay at the proxy
    // holds 200 kB; the second leg's bottleneck limits both legs (a 256 kB receive window
    // lets the first leg carry 256 kB per 40 ms round trip, 51 Mbit/s, were it not held
    // back). What the relay read and the client has not can be at most what the second
    // leg's sender holds unacknowledged, which the relay bounds by its buffer.
    let s = split_path(
        "20ms",
        "20Mbps",
        50,
        r#"
[[flows]]
name = "split"
from = "server"
to = "client"
cc = "cubic"
tcp = { rcv_buf = "256kB" }
relay = { node = "proxy", buffer = "200kB" }
"#,
    );
    let out = run_toml(&s);
    let (one, two) = (flow(&out, 0), flow(&out, 1));
    assert_eq!(one["name"], "split.leg1");
    assert_eq!(two["name"], "split.leg2");
    assert_eq!(one["to"], "proxy");
    assert_eq!(two["from"], "proxy");
    let (b1, b2) = (
        f64_of(&one["bytes_delivered"]),
        f64_of(&two["bytes_delivered"]),
    );
    assert!(b1 >= b2, "{b1} < {b2}");
    assert!(b1 - b2 <= 200_000.0, "the relay held {} bytes", b1 - b2);
    assert_eq!(one["relay"]["other_leg"], "split.leg2");
    assert_eq!(two["relay"]["leg"], 2);
    let held_max = f64_of(&two["relay"]["buffer_max_bytes"]);
    // The second leg is the bottleneck, so the relay runs full most of the time.
    assert!(
        held_max <= 200_000.0 && held_max > 150_000.0,
        "relay held at most {held_max}"
    );
    // The second leg runs at its bottleneck: 20 Mbit/s of 1500-byte packets carrying
    // 1400 bytes of payload (timestamps take 12 of the 40 header bytes: 1452 on the wire
    // per 1400 of payload), less its start-up.
    let g2 = f64_of(&two["goodput_mbps"]);
    let ceiling = 20.0 * 1400.0 / 1452.0;
    assert!(g2 <= ceiling && g2 > 0.9 * ceiling, "leg 2 goodput {g2}");
    // Each leg measures its own round trip: 2·20 ms and 2·5 ms plus serialisation.
    let rtt1 = f64_of(&one["rtt_min_ms"]);
    let rtt2 = f64_of(&two["rtt_min_ms"]);
    assert!((40.0..41.0).contains(&rtt1), "leg 1 min RTT {rtt1}");
    assert!((10.0..11.5).contains(&rtt2), "leg 2 min RTT {rtt2}");
}

#[test]
fn the_servers_acks_mean_reached_the_relay() {
    // A 1 MB file over a fast first leg (1 Gbit/s, 1 ms) and a slow second one (10 Mbit/s,
    // 5 ms) with a relay buffer larger than the file: the server is done once the relay
    // has the file, long before the client has it (split TCP's broken end-to-end
    // semantics). The client cannot have it sooner than 1 MB at 10 Mbit/s of payload
    // share 1400/1452: 0.83 s.
    let s = split_path(
        "1ms",
        "10Mbps",
        1000,
        r#"
[[flows]]
name = "file"
from = "server"
to = "client"
app = { kind = "file", size = "1MB" }
relay = { node = "proxy", buffer = "4MB" }
"#,
    );
    let out = run_toml(&s);
    let t1 = f64_of(&flow(&out, 0)["completion_time_s"]);
    let t2 = f64_of(&flow(&out, 1)["completion_time_s"]);
    assert!(t1 < 0.1, "first leg done at {t1} s");
    let least = 1e6 * 8.0 / (10e6 * 1400.0 / 1452.0);
    assert!(
        t2 > least && t2 < least + 0.3,
        "second leg done at {t2} s (at least {least})"
    );
    assert_eq!(f64_of(&flow(&out, 1)["bytes_delivered"]), 1e6);
}

#[test]
fn a_split_file_stopped_early_still_reaches_the_client_whole() {
    // The source application's stop time comes before the file has crossed the slow
    // second leg: the relay must still forward everything the first leg brought (the
    // whole file, written at the start), and the client get it all.
    let s = split_path(
        "1ms",
        "10Mbps",
        1000,
        r#"
[[flows]]
name = "file"
from = "server"
to = "client"
stop = "0.3s"
app = { kind = "file", size = "500kB" }
tcp = { rcv_buf = "1MB" }
relay = { node = "proxy", buffer = "100kB" }
"#,
    );
    let out = run_toml(&s);
    assert_eq!(f64_of(&flow(&out, 0)["bytes_delivered"]), 500_000.0);
    assert_eq!(f64_of(&flow(&out, 1)["bytes_delivered"]), 500_000.0);
    assert!(flow(&out, 1)["completion_time_s"].as_f64().is_some());
}

#[test]
fn relays_and_readers_are_checked() {
    let base = path("2s", "[[flows]]\nfrom = \"server\"\nto = \"client\"\n");
    let e = load_error(&format!("{base}relay = {{ node = \"nowhere\" }}\n"));
    assert!(
        e.contains("flows[0].relay.node") && e.contains("nowhere"),
        "{e}"
    );
    let e = load_error(&format!("{base}relay = {{ node = \"client\" }}\n"));
    assert!(
        e.contains("flows[0].relay.node") && e.contains("third node"),
        "{e}"
    );
    let e = load_error(&format!("{base}read_rate = \"0Mbps\"\n"));
    assert!(e.contains("flows[0].read_rate"), "{e}");
    let e = load_error(&format!("{base}relay = {{ node = \"server\" }}\n"));
    assert!(e.contains("flows[0].relay.node"), "{e}");
    // The second leg's own TCP table is checked like a flow's.
    let split = |extra: &str| {
        split_path(
            "1ms",
            "10Mbps",
            100,
            &format!("[[flows]]\nfrom = \"server\"\nto = \"client\"\n{extra}\n"),
        )
    };
    let e = load_error(&split(
        "relay = { node = \"proxy\", tcp = { mss = \"20B\", min_rto = \"0s\" } }",
    ));
    assert!(
        e.contains("flows[0].relay.tcp.mss") && e.contains("20B"),
        "{e}"
    );
    assert!(e.contains("flows[0].relay.tcp.min_rto"), "{e}");
    let e = load_error(&split("relay = { node = \"proxy\", cc = \"xtcp\" }"));
    assert!(
        e.contains("flows[0].relay.cc") && e.contains("X-TCP"),
        "{e}"
    );
    let e = load_error(&split(
        "cc = \"cubic\"\ntcp = { rwnd_control = true }\nrelay = { node = \"proxy\" }",
    ));
    assert!(
        e.contains("flows[0].tcp.rwnd_control") && e.contains("relay"),
        "{e}"
    );
}

#[test]
fn a_stalled_reader_sets_the_end_to_end_delay_to_the_buffers_over_its_rate() {
    // server — 1 ms, 1 Gbit/s — proxy — 5 ms, 1 Gbit/s — client, whose application reads
    // 8 Mbit/s (λ = 1 MB/s): the reader is the bottleneck, so every buffer on the way runs
    // full. What the server has sent and the client's application not read is then the
    // first leg's receive buffer (100 kB, in flight to it or unread by the relay), the
    // relay's 200 kB (which holds the second leg's unacknowledged bytes, in flight among
    // them) and what waits in the client's 100 kB receive buffer: all of it but the
    // second leg's bytes in flight, λ × 10 ms = 10 kB. By Little's law a byte takes
    // 390 kB / 1 MB/s = 0.39 s from the server to the client's application, of which
    // 200 kB / 1 MB/s = 0.2 s in the relay.
    let s = split_path(
        "1ms",
        "1Gbps",
        1000,
        r#"
[[flows]]
name = "split"
from = "server"
to = "client"
cc = "cubic"
read_rate = "8Mbps"
tcp = { rcv_buf = "100kB" }
relay = { node = "proxy", buffer = "200kB", tcp = { rcv_buf = "100kB" } }
"#,
    );
    let out = run_toml(&s);
    let (one, two) = (flow(&out, 0), flow(&out, 1));
    assert!(one["relay"]["end_to_end_delay_ms"].is_null(), "{one}");
    assert!(one["relay"]["sojourn_mean_ms"].is_null(), "{one}");
    let (mss, rate) = (1400.0, 1e6);
    // A receive buffer of 100 kB (71 segments) closes while less than 1/16 of it is free
    // (Linux's receiver silly-window avoidance) and the sender sends whole segments, so
    // each runs between 100 kB − 1/16 − 1 MSS and 100 kB; the relay is never more than a
    // segment short of full, as it reads whenever the second leg frees room. The first
    // 50 ms (filling the buffers at 1 Gbit/s) are below this in the integral.
    let (rcv, in_flight_2) = (100_000.0, rate * 0.010);
    let least = rcv - rcv / 16.0 - mss;
    let lo = (least + 200_000.0 - mss + least - in_flight_2) / rate * (4.95 / 5.0);
    let hi = (rcv + 200_000.0 + rcv - in_flight_2) / rate;
    let e2e = f64_of(&two["relay"]["end_to_end_delay_ms"]) * 1e-3;
    assert!(
        e2e >= lo && e2e <= hi,
        "end to end {e2e} s, expected {lo}..{hi}"
    );
    let sojourn = f64_of(&two["relay"]["sojourn_mean_ms"]) * 1e-3;
    let (lo, hi) = ((200_000.0 - mss) / rate * (4.95 / 5.0), 200_000.0 / rate);
    assert!(
        sojourn >= lo && sojourn <= hi,
        "relay sojourn {sojourn} s, expected {lo}..{hi}"
    );
    // Each leg's own RTT is its propagation (2 ms, 10 ms) and hardly more: the delay is
    // in the buffers, which no leg's RTT sees.
    assert!(f64_of(&one["rtt_mean_ms"]) < 3.0, "{one}");
    assert!(f64_of(&two["rtt_mean_ms"]) < 11.0, "{two}");
}

#[test]
fn a_file_queued_at_the_relay_waits_half_its_transfer_time_on_average() {
    // A 1 MB file over a fast first leg (1 Gbit/s, 1 ms) and a 10 Mbit/s second leg
    // (5 ms) with a relay buffer larger than the file: the whole file reaches the relay
    // within some 20 ms (slow start over a 2 ms round trip), then leaves it at the second
    // leg's payload rate R = 10 Mbit/s · 1400/1452 (a window of 10 segments already
    // covers that leg's 12.5 kB bandwidth-delay product, so it runs at R from its first
    // round trip, after its handshake, 10 ms). Byte x reaches the client about x/R after
    // the second leg starts, so the mean over the file is F/(2R) = 0.415 s, plus the
    // handshake and the first segment's trip (≤ 20 ms), less how late the server sent
    // it (≤ 20 ms). The run ends with the file delivered: Little's law is then exact.
    let s = split_path(
        "1ms",
        "10Mbps",
        1000,
        r#"
[[flows]]
name = "file"
from = "server"
to = "client"
app = { kind = "file", size = "1MB" }
relay = { node = "proxy", buffer = "4MB" }
"#,
    );
    let out = run_toml(&s);
    let two = flow(&out, 1);
    assert_eq!(f64_of(&two["bytes_delivered"]), 1e6);
    let rate = 10e6 / 8.0 * 1400.0 / 1452.0;
    let half = 1e6 / (2.0 * rate);
    let e2e = f64_of(&two["relay"]["end_to_end_delay_ms"]) * 1e-3;
    assert!(
        e2e >= half - 0.02 && e2e <= half + 0.02,
        "end to end {e2e} s, expected {half} ± 0.02 s"
    );
    // In the relay from its reading to the client's ACK: the same, plus that ACK's
    // return (5 ms), less the first leg's trip (1 ms).
    let sojourn = f64_of(&two["relay"]["sojourn_mean_ms"]) * 1e-3;
    assert!(
        sojourn >= half - 0.02 && sojourn <= half + 0.025,
        "relay sojourn {sojourn} s, expected {half} s"
    );
}
