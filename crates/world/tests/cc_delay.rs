//! End to end: Vegas, Veno, Westwood+ and YeAH (`cc/{vegas,veno,westwood,yeah}.rs`) on a
//! lossless 100 Mbit/s bottleneck, 20 ms RTT, 1-BDP (250 kB) drop-tail buffer.
//!
//! - **Goodput**: a 1400-byte segment costs 1452 bytes on the wire (20 IP + 20 TCP + 12
//!   timestamp option), so a flow can deliver at most 100 Mbit/s × 1400/1452 = 96.42 Mbit/s.
//!   After convergence (from 10 s on) every algorithm must reach 90 % of that.
//! - **Standing queue** (delay-based algorithms only), from the forward queue samples
//!   (every 10 ms; bytes waiting, the packet being sent not included; one segment = 1452
//!   bytes):
//!   * Vegas holds its Linux `diff = cwnd·(minRTT − baseRTT)/baseRTT` in [α, β] = [2, 4]
//!     segments (integer, so the real value is below β + 1). Its queue
//!     `cwnd·(minRTT − baseRTT)/minRTT` is smaller than diff, so the least-delayed segment
//!     of a round found at most β segments waiting. A sample at another instant can see one
//!     more (ACK/departure phase: the next segment arrives just before one leaves), and
//!     one more if a +1 of cwnd is not yet visible to the estimate (it lags one RTT).
//!     Bound: max ≤ β + 2 segments. Since diff ≥ α once it holds, the mean stays
//!     ≥ α − 1 segments.
//!   * YeAH decongests when its queue estimate exceeds α = `TCP_YEAH_ALPHA` = 80 segments.
//!     The estimate `Q = cwnd·(minRTT − baseRTT)/minRTT` is the waiting queue (plus the
//!     fraction of the segment in service) seen by the round's least-delayed segment,
//!     truncated; those segments were sent one RTT before the decision. The previous
//!     decision saw Q ≤ 80 (else it would have decongested), so the deciding one sees
//!     81–82 (Reno adds one segment per round); at the decision the queue itself can be
//!     one more round of growth ahead, plus one segment for the ACK/departure phase of the
//!     sample. Every precautionary decongestion must therefore start from a queue in
//!     [α − 2, α + 4] segments (−2: the 10 ms sample may precede the deciding round's
//!     growth by one round and catch the low phase). What YeAH does **not** guarantee on
//!     this path: its Reno-competition estimate `reno_count` starts at cwnd/2 and grows by
//!     one segment per slow-mode round, and a lone flow here is in slow mode whenever its
//!     queueing delay exceeds baseRTT/8 = 2.5 ms ≈ 21.5 segments, i.e. for most of every
//!     climb from 21 to 80 segments (~60 rounds). After a couple of decongestion cycles
//!     `reno_count` ≥ cwnd, decongestion is blocked (`cwnd > reno_count` fails) and the
//!     queue climbs like Reno's until the buffer overflows; the loss halves `reno_count`
//!     and the cycle restarts. The test asserts exactly that: queues above α + 4 (where a
//!     decongestion would have fired had it not been blocked) occur only in episodes that
//!     end in a tail drop.
//! - **Fairness** (two flows of one algorithm, same path, 60 s, goodputs over the last
//!   30 s): Jain's index ≥ 0.9 for Veno, Westwood+ and YeAH. Not for Vegas: a Vegas flow
//!   settles where *its own* diff is in [α, β], so a flow that overestimates baseRTT
//!   takes more than its share — the known Vegas baseRTT-error unfairness (Low, Peterson &
//!   Wang, "Understanding Vegas: a duality model", J. ACM 49(2), 2002; Hengartner, Bolliger
//!   & Gross, "TCP Vegas revisited", INFOCOM 2000). Here the second flow's first segments
//!   wait behind the first flow's initial window, so its baseRTT is ~1.2 ms too high and it
//!   ends with about twice the other's rate. The Vegas test therefore asserts the
//!   equilibrium of each flow against its own baseRTT, the direction of the imbalance and
//!   the link utilisation.

// `common.rs` carries its own `#![allow(dead_code)]`.
#[path = "it/common.rs"]
mod common;

use common::*;
use mmtsim_world::RunOutput;

/// Bytes one full segment occupies in the queue (1400 + 52 header bytes).
const SEG_WIRE_BYTES: f64 = 1452.0;
/// Payload bytes per segment (the scenario default MSS).
const MSS_BYTES: f64 = 1400.0;
/// From this time on the flows are converged (Vegas drains its slow-start overshoot at one
/// segment per RTT: ~150 segments in ~4 s).
const CONVERGED_S: f64 = 10.0;
/// Vegas α, β (Linux module defaults).
const VEGAS_ALPHA: f64 = 2.0;
const VEGAS_BETA: f64 = 4.0;
/// `TCP_YEAH_ALPHA`, segments.
const YEAH_ALPHA: f64 = 80.0;

fn run(cc: &str, flows: usize, duration_s: u32) -> RunOutput {
    let f = format!("[[flows]]\nfrom = \"server\"\nto = \"client\"\ncc = \"{cc}\"\n");
    let s = dumbbell(
        "100Mbps",
        "10ms",
        r#"{ limit = "250kB" }"#,
        &format!("{duration_s}s"),
        &f.repeat(flows),
    );
    run_toml(&s)
}

/// Forward bottleneck queue samples from `from_s` on: (time s, segments, cumulative drops).
fn queue(out: &RunOutput, from_s: f64) -> Vec<(f64, f64, u64)> {
    let link = u32s(out, "queue", "link");
    let t = u64s(out, "queue", "t_ns");
    let b = u64s(out, "queue", "bytes");
    let d = u64s(out, "queue", "drops");
    (0..t.len())
        .filter(|&i| link[i] == 0 && t[i] as f64 >= from_s * 1e9)
        .map(|i| (t[i] as f64 / 1e9, b[i] as f64 / SEG_WIRE_BYTES, d[i]))
        .collect()
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    s / n as f64
}

/// One flow: goodput after convergence ≥ 90 % of the payload capacity. Returns the run.
fn fills_the_link(cc: &str) -> RunOutput {
    let out = run(cc, 1, 30);
    let g = mean_goodput(&out, 0, CONVERGED_S, f64::INFINITY);
    let q = queue(&out, CONVERGED_S);
    let qmean = mean(q.iter().map(|s| s.1));
    let qmax = q.iter().map(|s| s.1).fold(0.0, f64::max);
    eprintln!(
        "{cc}: goodput {g:.2} Mbit/s = {:.1} % of {PAYLOAD_CAPACITY_MBPS:.2}; queue mean \
         {qmean:.1} max {qmax:.0} segments; tail drops {}",
        100.0 * g / PAYLOAD_CAPACITY_MBPS,
        out.summary["links"][0]["tail_drops"]
    );
    assert!(
        g >= 0.9 * PAYLOAD_CAPACITY_MBPS,
        "{cc}: goodput {g:.2} Mbit/s below 90 % of {PAYLOAD_CAPACITY_MBPS:.2}"
    );
    out
}

/// Two flows, 60 s: (goodputs over the last 30 s, Jain's index). Also checks that the link
/// stays ≥ 90 % used.
fn two_flows(cc: &str) -> (RunOutput, [f64; 2], f64) {
    let out = run(cc, 2, 60);
    let g = [
        mean_goodput(&out, 0, 30.0, f64::INFINITY),
        mean_goodput(&out, 1, 30.0, f64::INFINITY),
    ];
    let j = jain(&g);
    eprintln!(
        "{cc} ×2: goodput {:.2} + {:.2} Mbit/s ({:.1} % of capacity), Jain {j:.3}",
        g[0],
        g[1],
        100.0 * (g[0] + g[1]) / PAYLOAD_CAPACITY_MBPS
    );
    assert!(
        g[0] + g[1] >= 0.9 * PAYLOAD_CAPACITY_MBPS,
        "{cc}: aggregate goodput {:.2}",
        g[0] + g[1]
    );
    (out, g, j)
}

#[test]
fn vegas_fills_the_link_keeping_alpha_to_beta_segments_queued() {
    let out = fills_the_link("vegas");
    let q = queue(&out, CONVERGED_S);
    let qmax = q.iter().map(|s| s.1).fold(0.0, f64::max);
    let qmean = mean(q.iter().map(|s| s.1));
    assert!(
        qmax <= VEGAS_BETA + 2.0,
        "Vegas queue reached {qmax:.1} segments (bound β + 2 = {})",
        VEGAS_BETA + 2.0
    );
    assert!(
        qmean >= VEGAS_ALPHA - 1.0,
        "Vegas queue mean {qmean:.2} segments below α − 1"
    );
}

#[test]
fn vegas_two_flows_each_hold_their_own_alpha_beta_backlog() {
    let (out, g, _) = two_flows("vegas");
    // Each flow's Vegas quantities, rebuilt from the recorded samples:
    //   baseRTT: the flow's smallest data RTT (its first `rtt` row is the SYN/SYN-ACK
    //     exchange, which Vegas never sees), + 1 µs as in Linux;
    //   minRTT: the smallest RTT of the last 30 s (+ 1 µs) — steady in equilibrium;
    //   cwnd: mean of the 10 ms cwnd samples over the last 30 s, segments.
    // Linux's integer diff ∈ [α, β] ⇔ the real value ∈ [α, β + 1).
    let fl = u32s(&out, "rtt", "flow");
    let t = u64s(&out, "rtt", "t_ns");
    let r = u32s(&out, "rtt", "rtt_us");
    let cf = u32s(&out, "cwnd", "flow");
    let ct = u64s(&out, "cwnd", "t_ns");
    let cw = u64s(&out, "cwnd", "cwnd_bytes");
    let mut base = [0.0; 2];
    for f in 0..2u32 {
        let rows: Vec<usize> = (0..r.len()).filter(|&i| fl[i] == f).collect();
        base[f as usize] = rows.iter().skip(1).map(|&i| r[i]).min().unwrap() as f64 + 1.0;
        let min_late = rows
            .iter()
            .filter(|&&i| t[i] >= 30_000_000_000)
            .map(|&i| r[i])
            .min()
            .unwrap() as f64
            + 1.0;
        let cwnd = mean(
            (0..cw.len())
                .filter(|&i| cf[i] == f && ct[i] >= 30_000_000_000)
                .map(|i| cw[i] as f64 / MSS_BYTES),
        );
        let b = base[f as usize];
        let diff = cwnd * (min_late - b) / b;
        eprintln!(
            "vegas ×2 flow {f}: baseRTT {b:.0} µs, minRTT {min_late:.0} µs, cwnd {cwnd:.1}, \
             diff {diff:.2}"
        );
        assert!(
            (VEGAS_ALPHA..VEGAS_BETA + 1.0).contains(&diff),
            "flow {f}: diff {diff:.2} outside [α, β + 1)"
        );
    }
    // The flow with the larger baseRTT estimate is the one with the larger share.
    assert_eq!(
        base[1] > base[0],
        g[1] > g[0],
        "bases {base:?} goodputs {g:?}"
    );
}

#[test]
fn veno_fills_the_link() {
    fills_the_link("veno");
}

#[test]
fn veno_two_flows_share_fairly() {
    let (_, _, j) = two_flows("veno");
    assert!(j >= 0.9, "Jain {j:.3}");
}

#[test]
fn westwood_fills_the_link() {
    fills_the_link("westwood");
}

#[test]
fn westwood_two_flows_share_fairly() {
    let (_, _, j) = two_flows("westwood");
    assert!(j >= 0.9, "Jain {j:.3}");
}

#[test]
fn yeah_fills_the_link_and_decongests_when_the_queue_exceeds_alpha() {
    let out = fills_the_link("yeah");
    let q = queue(&out, CONVERGED_S);
    // 50 samples = 500 ms: longer than a loss episode's drain (detection ~1 RTT, PRR and
    // the drain of a halved window ~2 RTTs, RTT ≤ 40 ms).
    let quiet = |i: usize| i >= 50 && q[i + 1].2 == q[i - 50].2;
    // Precautionary decongestion: the queue falls by ≥ 10 segments in one 10 ms interval
    // with no tail drop in the last 500 ms (otherwise the queue moves by about one segment
    // per RTT). Consecutive falling intervals are one event.
    let mut events = Vec::new();
    let mut i = 50;
    while i + 1 < q.len() {
        if quiet(i) && q[i].1 - q[i + 1].1 >= 10.0 {
            // The queue just before the decision (the previous sample covers a decision
            // that fell right before q[i]).
            events.push((q[i].0, q[i].1.max(q[i - 1].1)));
            while i + 1 < q.len() && quiet(i) && q[i].1 - q[i + 1].1 >= 10.0 {
                i += 1;
            }
        }
        i += 1;
    }
    eprintln!("yeah: decongestions (t s, queue before, segments): {events:.1?}");
    assert!(events.len() >= 3, "only {} decongestions", events.len());
    for (t, before) in &events {
        assert!(
            (YEAH_ALPHA - 2.0..=YEAH_ALPHA + 4.0).contains(before),
            "decongestion at {t:.2} s from {before:.1} segments, not within [α − 2, α + 4]"
        );
    }
    // Queues above α + 4 segments: only in episodes that end with a tail drop — the ones
    // where cwnd ≤ reno_count blocked the decongestion. An episode starts when the queue
    // exceeds α + 4 and ends when it is back at α or below (hysteresis: a climbing queue
    // wobbles by a segment from sample to sample).
    let time_above = q.iter().filter(|s| s.1 > YEAH_ALPHA + 4.0).count();
    let mut episodes = 0;
    let mut i = 0;
    while i < q.len() {
        if q[i].1 <= YEAH_ALPHA + 4.0 {
            i += 1;
            continue;
        }
        let start = i;
        while i < q.len() && q[i].1 > YEAH_ALPHA {
            i += 1;
        }
        // An episode still open when the run ends cannot be judged.
        if i < q.len() {
            episodes += 1;
            let drops_before = q[start.saturating_sub(1)].2;
            let drops_after = q[(i + 50).min(q.len() - 1)].2;
            assert!(
                drops_after > drops_before,
                "queue above α + 4 from {:.2} s to {:.2} s without a tail drop",
                q[start].0,
                q[i - 1].0
            );
        }
    }
    eprintln!(
        "yeah: {episodes} loss-terminated episodes above α + 4; {:.0} % of the time",
        100.0 * time_above as f64 / q.len() as f64
    );
}

#[test]
fn yeah_two_flows_share_fairly() {
    let (_, _, j) = two_flows("yeah");
    assert!(j >= 0.9, "Jain {j:.3}");
}
