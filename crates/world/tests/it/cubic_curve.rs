//! 12d: after a loss, CUBIC's window follows W(t) = C·(t − K)³ + W_max (RFC 9438 §4.2).
//!
//! One packet is dropped (`drop_packets`) from a flow on a 100 Mbit/s, 20 ms path with a
//! buffer far larger than the window will get, so that loss is the only reduction in the
//! run. HyStart and fast convergence are off so that W_max is the window at the loss, and
//! the TCP-friendly region is off because at this small W_max its Reno estimate would
//! otherwise lead the cubic curve for the first seconds (RFC 9438 §4.3).
//! With C = 0.4004 and β = 0.7002 (Linux), K = cbrt(W_max·(1 − β)/C). Linux evaluates the
//! curve at t + min_rtt (it aims one RTT ahead), counted from the first ACK of the new
//! epoch, which is the end of recovery. The window can only follow the target as ACKs
//! return: once the queue has built up, the RTT exceeds the minimum the target allows for,
//! and the window trails the curve by its slope times the excess, W'(t)·(RTT(t) − min_rtt)
//! with W'(t) = 3C(t − K)². Tolerance: that lag plus 2 % of W(t) and 2 segments (per-ACK
//! increments of +1 per `cnt` ACKs, the 1 ms time granularity, the integer K).

use super::common::*;

#[test]
fn window_after_a_single_loss_follows_the_cubic_function() {
    let text = dumbbell_with(
        "100Mbps",
        "10ms",
        r#"{ limit = "20MB" }"#,
        "25s",
        "impairments = { drop_packets = [100] }",
        r#"
[metrics]
cwnd = "change"

[[flows]]
from = "server"
to = "client"
cc = { algorithm = "cubic", hystart = false, fast_convergence = false, tcp_friendliness = false }
"#,
    );
    let out = run_toml(&text);
    assert_eq!(flow(&out, 0)["fast_recoveries"].as_u64(), Some(1));
    let t = u64s(&out, "cwnd", "t_ns");
    let cw = u64s(&out, "cwnd", "cwnd_bytes");
    let ss = u64s(&out, "cwnd", "ssthresh_bytes");
    let mss = 1400.0;
    // Recovery entry: the first finite ssthresh = floor(W_max · 717 / 1024).
    let i_loss = ss.iter().position(|&s| s != u64::MAX).unwrap();
    let ssthresh = ss[i_loss] as f64 / mss;
    // Recovery exit: first record with cwnd == ssthresh after the entry.
    let i_exit = (i_loss..cw.len()).find(|&i| cw[i] == ss[i_loss]).unwrap();
    let t_exit = t[i_exit] as f64 * 1e-9;
    let beta = 717.0 / 1024.0;
    let c_const = 410.0 / 1024.0;
    let w_max = (ssthresh / beta).round();
    let k = (w_max * (1.0 - beta) / c_const).cbrt();
    eprintln!("W_max ≈ {w_max} segments, ssthresh {ssthresh}, K = {k:.3} s, recovery ends at {t_exit:.3} s");
    let min_rtt = 0.020;
    let (rt, rv) = (u64s(&out, "rtt", "t_ns"), u32s(&out, "rtt", "rtt_us"));
    let rtt_at = |t_ns: u64| {
        let i = rt.partition_point(|&x| x < t_ns).min(rt.len() - 1);
        rv[i] as f64 * 1e-6
    };
    let mut worst: f64 = 0.0;
    let mut n = 0;
    for i in i_exit..cw.len() {
        let tt = t[i] as f64 * 1e-9 - t_exit;
        if tt < 0.1 {
            continue;
        }
        let w = c_const * (tt + min_rtt - k).powi(3) + w_max;
        let got = cw[i] as f64 / mss;
        let err = (got - w).abs();
        let lag = 3.0 * c_const * (tt + min_rtt - k).powi(2) * (rtt_at(t[i]) - min_rtt).max(0.0);
        worst = worst.max((err - lag).max(0.0) / w);
        assert!(
            err <= lag + 0.02 * w + 2.0,
            "t = {tt:.3} s after the loss: cwnd {got} vs W(t) = {w:.1}"
        );
        n += 1;
    }
    eprintln!(
        "{n} window changes compared, worst error beyond the RTT lag {:.2} % of W(t)",
        worst * 100.0
    );
    assert!(n > 100);
}
