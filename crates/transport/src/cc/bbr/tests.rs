//! The synthetic path of these tests: RTprop = 2^14 µs = 16.384 ms and MSS = 1000 B.
//! A "round of d" is d one-segment ACKs spaced RTprop/d apart, each carrying a
//! delivery-rate sample of d segments over RTprop, so BtlBw = d·2^24/2^14 = 1024·d in
//! Linux units and the BDP is exactly d segments: bdp(bw, gain) = ceil(d·gain/256).
//! Every pacing rate on this path is between 150 000 B/s and 2 MB/s, so a burst
//! (`tso_segs_goal`) is 2 segments: ~1 ms of the rate is under 2 segments, and the rate
//! is above `bbr_min_tso_rate`. The quantisation budget is therefore + 3·2 = 6.
use super::*;
use crate::cc::{CcParams, Controller};
use crate::tcp::rate::RateSample;

const RTT_US: u64 = 16_384;
const MSS: u32 = 1000;

/// One ACK of the synthetic path.
#[derive(Clone, Copy)]
struct Ack {
    /// Time since the previous ACK, µs.
    dt_us: u64,
    acked: u32,
    /// Delivery-rate sample: (segments, interval µs).
    rate: Option<(u64, u64)>,
    rtt_us: Option<u64>,
    in_flight: u32,
    /// Defaults to `in_flight + acked`.
    prior_in_flight: Option<u32>,
    losses: u32,
    /// Pacing holds the next segment back this long, µs.
    edt_us: u64,
}

impl Default for Ack {
    fn default() -> Self {
        Ack {
            dt_us: 1024,
            acked: 1,
            rate: Some((16, RTT_US)),
            rtt_us: Some(RTT_US),
            in_flight: 16,
            prior_in_flight: None,
            losses: 0,
            edt_us: 0,
        }
    }
}

/// Builds the sample of `a` at `now` with the connection's running totals.
fn sample(now: SimTime, a: &Ack, delivered: u64, lost: u64) -> AckSample {
    let mut s = AckSample::simple(now, a.acked, a.rtt_us.map(SimTime::from_us));
    s.srtt = Some(SimTime::from_us(RTT_US));
    s.mss = MSS;
    s.delivered = delivered;
    s.lost = lost;
    s.losses = a.losses;
    s.in_flight = a.in_flight;
    s.prior_in_flight = a.prior_in_flight.unwrap_or(a.in_flight + a.acked);
    s.next_departure = now + SimTime::from_us(a.edt_us);
    s.rate = a.rate.map(|(d, i)| RateSample {
        delivered: d,
        interval: SimTime::from_us(i),
        app_limited: false,
        acked_sacked: a.acked,
        is_retrans: false,
    });
    s
}

/// BBR driven directly, ACK by ACK.
struct Path {
    b: Bbr,
    w: Window,
    now: SimTime,
    delivered: u64,
    lost: u64,
    /// ACKs so far.
    n: u64,
}

impl Path {
    fn new(seed: u64) -> Self {
        let mut b = Bbr::new(BbrParams { seed });
        let mut w = Window::new(10);
        b.init(&mut w, SimTime::ZERO);
        Path {
            b,
            w,
            now: SimTime::ZERO,
            delivered: 0,
            lost: 0,
            n: 0,
        }
    }

    fn ack(&mut self, a: Ack) {
        self.now += SimTime::from_us(a.dt_us);
        self.delivered += a.acked as u64;
        self.lost += a.losses as u64;
        self.n += 1;
        let s = sample(self.now, &a, self.delivered, self.lost);
        assert!(self.b.cong_control(&mut self.w, &s), "BBR owns the window");
    }

    /// A round of `d` (module comment) with `in_flight` left after each ACK.
    fn round(&mut self, d: u32, in_flight: u32) {
        for _ in 0..d {
            self.ack(Ack {
                dt_us: RTT_US / d as u64,
                rate: Some((d as u64, RTT_US)),
                in_flight,
                ..Ack::default()
            });
        }
    }

    /// STARTUP at 16 segments per RTprop until PROBE_BW. Round starts fall on ACKs
    /// 1, 17, 33, 49 (a sample of 16 has prior_delivered = n − 16 ≥ the previous
    /// round's start): the first sets full_bw, the next three count "no 25 % growth",
    /// so ACK 49 fills the pipe; in-flight 16 ≤ inflight(bw, 1) = 16 + 6 = 22 ends
    /// DRAIN on the same ACK. Returns right at the PROBE_BW entry (t = 49·1024 µs).
    fn to_probe_bw(seed: u64) -> Path {
        let mut p = Path::new(seed);
        for _ in 0..3 {
            p.round(16, 16);
        }
        p.ack(Ack::default());
        assert_eq!(p.b.mode(), BbrMode::ProbeBw);
        assert_eq!(p.n, 49);
        p
    }
}

/// PROBE_BW cwnd target at bw 16384 (BDP 16) with the one-segment ACK-aggregation
/// allowance these evenly spaced ACKs earn (each ACK comes exactly when the epoch
/// expects one, so the epoch restarts and extra_acked = the ACK's 1 segment):
/// 2·16 + 1 + 6 = 39 → 40 (even), + 2 in phase 0 = 42.
fn probe_bw_target(b: &Bbr) -> u32 {
    if b.cycle_idx() == 0 {
        42
    } else {
        40
    }
}

#[test]
fn constants_are_linux_values() {
    // 256·2885/1000 + 1 = 739 (2.887), 256·1000/2885 = 88 (0.344), 5/4 → 320, 3/4 → 192.
    assert_eq!((HIGH_GAIN, DRAIN_GAIN, CWND_GAIN), (739, 88, 512));
    assert_eq!(PACING_GAIN, [320, 192, 256, 256, 256, 256, 256, 256]);
    assert_eq!(FULL_BW_THRESH, 320);
}

#[test]
fn minmax_keeps_the_windowed_maximum() {
    // Linux win_minmax with a 10-round window, worked sample by sample.
    let mut m = MinMax::default();
    m.reset(0, 0);
    // t=1: 100 ≥ best → reset: all three = (1, 100).
    assert_eq!(m.running_max(10, 1, 100), 100);
    // t=2: 50, dt = 1 ≤ win/4 = 2: no sub-window change.
    assert_eq!(m.running_max(10, 2, 50), 100);
    // t=4: 60, dt = 3 > 2 with 2nd == 1st: 2nd = 3rd = (4, 60).
    assert_eq!(m.running_max(10, 4, 60), 100);
    // t=7: 40, dt = 6 > win/2 = 5 with 3rd == 2nd: 3rd = (7, 40).
    assert_eq!(m.running_max(10, 7, 40), 100);
    // t=12: 30, dt = 11 > 10: the best expires, (4, 60) is promoted.
    assert_eq!(m.running_max(10, 12, 30), 60);
    // t=15: 30 ≥ 3rd → 3rd = (15, 30); dt = 11 from (4, 60): (7, 40) is promoted.
    assert_eq!(m.running_max(10, 15, 30), 40);
    // t=18: 10; dt = 11 from (7, 40): (15, 30) is promoted.
    assert_eq!(m.running_max(10, 18, 10), 30);
    // A new maximum resets everything.
    assert_eq!(m.running_max(10, 19, 500), 500);
    // Nothing left in the window (t − t of 3rd > 10) also resets, to the new sample.
    assert_eq!(m.running_max(10, 40, 7), 7);
}

#[test]
fn startup_doubles_cwnd_per_round_and_paces_at_high_gain() {
    let mut p = Path::new(0);
    assert_eq!(p.w.ssthresh, INFINITE_SSTHRESH);
    // No rate before the first ACK: init does not know the MSS (module docs).
    assert_eq!(p.b.pacing_rate(), None);
    // Round of 8: every ACK adds its segment while cwnd < target
    // = ceil(8·739/256) + 3 = 24 + 3 = 27 → 28: 10 → 18.
    p.round(8, 10);
    assert_eq!(p.w.cwnd, 18);
    assert_eq!(p.b.mode(), BbrMode::Startup);
    assert_eq!(p.b.pacing_gain(), HIGH_GAIN);
    assert_eq!(p.b.cwnd_gain(), HIGH_GAIN);
    // The first ACK started the rate from high_gain·cwnd/SRTT: bw = 10·2^24/16384 =
    // 10240; 10240·1000·739 >> 8 = 29 560 000; ·990 000 >> 24 = 1 744 294 B/s
    // (≈ 10 000 B/16.384 ms · 2.887 · 0.99). The samples (bw 8192) are below it, and
    // before the pipe is full the rate never decreases.
    assert_eq!(p.b.pacing_rate(), Some(Rate::bps(1_744_294 * 8)));
    // Round of 16: target = ceil(16·739/256) + 3 = 47 + 3 = 50: 18 → 34.
    p.round(16, 10);
    assert_eq!(p.w.cwnd, 34);
    // bw 16384: 16384·1000·739 >> 8 = 47 296 000; ·990 000 >> 24 = 2 790 870 B/s.
    assert_eq!(p.b.pacing_rate(), Some(Rate::bps(2_790_870 * 8)));
    // cwnd stops at the target: two more rounds of 16 → 50, not 66.
    p.round(16, 10);
    assert_eq!(p.w.cwnd, 50);
    assert_eq!(p.b.min_rtt(), Some(SimTime::from_us(RTT_US)));
}

#[test]
fn full_pipe_needs_three_rounds_without_25_percent_growth() {
    let mut p = Path::new(0);
    // Each round: 16 ACKs 1024 µs apart whose samples say 16 segments over `interval`,
    // so bw = 16·2^24/interval = 268 435 456/interval.
    let round = |p: &mut Path, interval_us: u64| {
        for _ in 0..16 {
            p.ack(Ack {
                rate: Some((16, interval_us)),
                in_flight: 40,
                ..Ack::default()
            });
        }
    };
    // bw 13107 (interval 20480): full_bw = 13107.
    round(&mut p, 20_480);
    // bw 16382 (interval 16386) < 13107·320 >> 8 = 16383: one round without growth.
    round(&mut p, 16_386);
    assert_eq!(p.b.full_bw_cnt, 1);
    // bw 16384 ≥ 16383: growth, the count restarts from full_bw = 16384.
    round(&mut p, RTT_US);
    assert_eq!((p.b.full_bw_cnt, p.b.full_bw), (0, 16_384));
    // Three rounds below 16384·320 >> 8 = 20480: full at the third round start.
    round(&mut p, RTT_US);
    round(&mut p, RTT_US);
    assert_eq!(p.b.mode(), BbrMode::Startup);
    assert_eq!(p.w.ssthresh, INFINITE_SSTHRESH);
    p.ack(Ack {
        in_flight: 40,
        ..Ack::default()
    });
    assert!(p.b.full_bw_reached());
    assert_eq!(p.b.mode(), BbrMode::Drain);
    // DRAIN sets ssthresh = inflight(bw, 1) = 16 + 6 = 22.
    assert_eq!(p.w.ssthresh, 22);
    assert_eq!(
        (p.b.pacing_gain(), p.b.cwnd_gain()),
        (DRAIN_GAIN, HIGH_GAIN)
    );
    // Full pipe: the rate may now fall, to 16384·1000·88 >> 8 = 5 632 000;
    // ·990 000 >> 24 = 332 336 B/s.
    assert_eq!(p.b.pacing_rate(), Some(Rate::bps(332_336 * 8)));
    // 23 in flight > 22: still draining.
    p.ack(Ack {
        in_flight: 23,
        ..Ack::default()
    });
    assert_eq!(p.b.mode(), BbrMode::Drain);
    // Still 23 in flight, but pacing holds the next segment 1024 µs, during which
    // bw·1024 µs >> 24 = 16384·1024 >> 24 = 1 segment leaves: 22 in the network at
    // the departure time → PROBE_BW.
    p.ack(Ack {
        in_flight: 23,
        edt_us: 1024,
        ..Ack::default()
    });
    assert_eq!(p.b.mode(), BbrMode::ProbeBw);
    assert_ne!(p.b.cycle_idx(), 1, "never starts in the 3/4 phase");
    assert_eq!(p.b.cwnd_gain(), CWND_GAIN);
    // cwnd snaps from the STARTUP target (50) down to the PROBE_BW one:
    // 2·16 + extra_acked + 6, rounded up to even, + 2 in phase 0. (Here the ACKs came
    // faster than the lower early samples said, which counts as ACK aggregation.)
    let phase0 = if p.b.cycle_idx() == 0 { 2 } else { 0 };
    let expected = ((32 + p.b.extra_acked() + 6 + 1) & !1) + phase0;
    assert!(p.b.extra_acked() > 1);
    assert_eq!(p.w.cwnd, expected);
    assert!(expected < 50);
}

#[test]
fn probe_bw_start_phase_is_random_but_never_the_drain_phase() {
    // Linux: cycle_idx = 7 − U{0..6}, then advance: the start phase is one of
    // {2, …, 7, 0}, uniformly; never 1 (gain 3/4). 700 seeds: 100 expected per phase,
    // σ = √(700·(1/7)·(6/7)) ≈ 9.3, so each count lies within ±30 (> 3σ).
    let mut counts = [0u32; 8];
    for seed in 0..700 {
        let p = Path::to_probe_bw(seed);
        counts[p.b.cycle_idx() as usize] += 1;
    }
    assert_eq!(counts[1], 0);
    for (i, c) in counts.iter().enumerate().filter(|(i, _)| *i != 1) {
        assert!((70..=130).contains(c), "phase {i}: {c} of 700");
    }
    // Deterministic: the same seed gives the same phase.
    assert_eq!(
        Path::to_probe_bw(42).b.cycle_idx(),
        Path::to_probe_bw(42).b.cycle_idx()
    );
}

#[test]
fn probe_bw_cycles_gains_with_linux_phase_rules() {
    let mut p = Path::to_probe_bw(3);
    assert_eq!(p.w.cwnd, probe_bw_target(&p.b));
    // Gain-1 phases last until delivered_mstamp − cycle_mstamp > min_rtt = 16384 µs:
    // with ACKs 1024 µs apart that is the 17th ACK of the phase (16·1024 is not >).
    let mut guard = 0;
    while p.b.cycle_idx() != 0 {
        let idx = p.b.cycle_idx();
        assert_eq!(p.b.pacing_gain(), PACING_GAIN[idx as usize]);
        for k in 1..=17 {
            p.ack(Ack {
                in_flight: 16,
                ..Ack::default()
            });
            let expect = if k < 17 { idx } else { (idx + 1) % 8 };
            assert_eq!(p.b.cycle_idx(), expect, "ACK {k} of phase {idx}");
        }
        guard += 1;
        assert!(guard < 8);
    }
    // Phase 0, gain 5/4: cwnd gets the +2, and the phase outlasts min_rtt until the
    // packets in flight at the departure time reach inflight(bw, 5/4) =
    // ceil(16·320/256) + 6 = 26 (even), + 2 = 28. At gain > 1 the departing burst of
    // 2 segments counts: prior_in_flight 25 → 27 < 28.
    assert_eq!(p.b.pacing_gain(), 320);
    for _ in 0..40 {
        p.ack(Ack {
            prior_in_flight: Some(25),
            ..Ack::default()
        });
        assert_eq!(p.b.cycle_idx(), 0);
        assert_eq!(p.w.cwnd, 42);
    }
    // 16384·1000·320 >> 8 = 20 480 000; ·990 000 >> 24 = 1 208 496 B/s.
    assert_eq!(p.b.pacing_rate(), Some(Rate::bps(1_208_496 * 8)));
    // prior_in_flight 26 → 28 ≥ 28: next phase.
    p.ack(Ack {
        prior_in_flight: Some(26),
        ..Ack::default()
    });
    assert_eq!(p.b.cycle_idx(), 1);
    assert_eq!(p.w.cwnd, 40);
    // Phase 1, gain 3/4, ends early once in-flight ≤ inflight(bw, 1) = 16 + 6 = 22
    // (a gain below 1 does not count the departing segment): 23 stays, 22 ends it,
    // only two ACKs (2048 µs) into the phase.
    p.ack(Ack {
        prior_in_flight: Some(23),
        ..Ack::default()
    });
    assert_eq!(p.b.cycle_idx(), 1);
    assert_eq!(p.b.pacing_gain(), 192);
    p.ack(Ack {
        prior_in_flight: Some(22),
        ..Ack::default()
    });
    assert_eq!(p.b.cycle_idx(), 2);
    assert_eq!(p.b.pacing_gain(), BBR_UNIT);
    // Losses end a 5/4 phase that lasted min_rtt even below its in-flight target.
    while p.b.cycle_idx() != 0 {
        p.ack(Ack::default());
    }
    for _ in 0..16 {
        p.ack(Ack {
            prior_in_flight: Some(16),
            ..Ack::default()
        });
    }
    assert_eq!(p.b.cycle_idx(), 0);
    p.ack(Ack {
        prior_in_flight: Some(16),
        losses: 1,
        ..Ack::default()
    });
    assert_eq!(p.b.cycle_idx(), 1);
}

#[test]
fn probe_rtt_every_10_s_at_4_segments_for_200_ms_and_a_round() {
    let mut p = Path::to_probe_bw(5);
    // min_rtt 16384 µs was taken by the first ACK (t = 1024 µs). Later samples of
    // 17 ms never beat it, so the filter expires at the first ACK after 10.001024 s:
    // ACKs come every 1024 µs, i.e. ACK 9767 at 10.001408 s.
    let busy = Ack {
        rtt_us: Some(17_000),
        in_flight: 30,
        ..Ack::default()
    };
    let mut cwnd_before = p.w.cwnd;
    while p.b.mode() == BbrMode::ProbeBw {
        cwnd_before = p.w.cwnd;
        p.ack(busy);
        assert!(!p.b.request_app_limited() || p.b.mode() == BbrMode::ProbeRtt);
    }
    assert_eq!(p.n, 9767);
    assert_eq!(p.now, SimTime::from_us(10_001_408));
    assert_eq!(p.b.mode(), BbrMode::ProbeRtt);
    assert_eq!(p.w.cwnd, 4);
    assert_eq!(p.b.prior_cwnd, cwnd_before, "cwnd saved for the restore");
    // The expired filter takes the current sample.
    assert_eq!(p.b.min_rtt(), Some(SimTime::from_us(17_000)));
    assert!(p.b.request_app_limited());
    assert_eq!((p.b.pacing_gain(), p.b.cwnd_gain()), (BBR_UNIT, BBR_UNIT));
    // In-flight still above 4: the 200 ms have not started.
    for _ in 0..10 {
        p.ack(Ack {
            in_flight: 10,
            ..busy
        });
        assert_eq!(p.w.cwnd, 4);
    }
    assert_eq!(p.b.probe_rtt_done_stamp, None);
    // In-flight 4: hold until 200 ms later and one round (16 ACKs here) have passed.
    // The emptied queue shows the 16.384 ms RTprop again.
    let quiet = Ack {
        in_flight: 4,
        ..Ack::default()
    };
    p.ack(quiet);
    let t1 = p.now;
    assert_eq!(p.b.probe_rtt_done_stamp, Some(t1 + SimTime::from_ms(200)));
    // First ACK after t1 + 200 ms: 200/1.024 = 195.3 → the 196th.
    for k in 1..=196 {
        p.ack(quiet);
        let expect = if k < 196 {
            BbrMode::ProbeRtt
        } else {
            BbrMode::ProbeBw
        };
        assert_eq!(p.b.mode(), expect, "ACK {k} after in-flight reached 4");
    }
    let t_exit = p.now;
    assert_eq!(t_exit, t1 + SimTime::from_us(196 * 1024));
    assert_eq!(p.b.min_rtt(), Some(SimTime::from_us(RTT_US)));
    // cwnd restored to max(4, prior_cwnd), then the PROBE_BW rule min(cwnd + 1, target).
    assert_eq!(
        p.w.cwnd,
        (cwnd_before + 1).min(probe_bw_target(&p.b)),
        "restored"
    );
    // The exit ACK was still processed in PROBE_RTT (Linux marks it app-limited too).
    assert!(p.b.request_app_limited());
    p.ack(busy);
    assert!(!p.b.request_app_limited());
    // The next PROBE_RTT: 10 s after the exit (min_rtt_stamp = exit time), at the first
    // ACK after t_exit + 10 s: 10 000/1.024 = 9765.6 → the 9766th ACK after the exit.
    let mut k = 1;
    while p.b.mode() != BbrMode::ProbeRtt {
        p.ack(busy);
        k += 1;
    }
    assert_eq!(k, 9766);
    assert_eq!(p.now, t_exit + SimTime::from_us(9766 * 1024));
}

#[test]
fn recovery_conserves_packets_for_a_round_then_restores_cwnd() {
    let mut p = Path::to_probe_bw(11);
    let target = probe_bw_target(&p.b);
    assert_eq!(p.w.cwnd, target);
    // Entering recovery: ssthresh stays (22, set by DRAIN); cwnd is saved.
    let ss = p.b.ssthresh(&p.w);
    assert_eq!(ss, 22);
    assert_eq!(p.b.prior_cwnd, target);
    p.b.set_state(&mut p.w, CaState::Recovery);
    // First ACK in recovery: 2 lost, 1 delivered, 30 left in flight. Losses come off
    // first (target − 2), then packet conservation: cwnd = in_flight + acked = 31.
    // Its sample (16 segments) has prior_delivered = 50 − 16 < 49: no round start.
    p.ack(Ack {
        losses: 2,
        in_flight: 30,
        ..Ack::default()
    });
    assert_eq!(p.w.cwnd, 31);
    assert!(p.b.packet_conservation);
    // Same round: cwnd = max(cwnd, in_flight + acked) = max(31, 32 + 1) = 33.
    p.ack(Ack {
        in_flight: 32,
        ..Ack::default()
    });
    assert_eq!(p.w.cwnd, 33);
    // A sample of 1 segment: prior_delivered = 52 − 1 = 51 ≥ 50 (the round began at
    // recovery entry, delivered = 50): the round ends, conservation stops and cwnd
    // slow-starts towards the target: min(33 + 1, target).
    p.ack(Ack {
        rate: Some((1, RTT_US)),
        in_flight: 31,
        ..Ack::default()
    });
    assert!(!p.b.packet_conservation);
    assert_eq!(p.w.cwnd, 34);
    // Recovery ends: the saved cwnd comes back, capped by the target.
    p.b.set_state(&mut p.w, CaState::Open);
    p.ack(Ack::default());
    assert_eq!(p.w.cwnd, target);
    assert_eq!(p.w.ssthresh, 22, "BBR never cuts ssthresh on loss");
}

#[test]
fn rto_keeps_ssthresh_and_restores_cwnd_through_the_controller() {
    let mut c = Controller::new(&CcParams::Bbr(BbrParams { seed: 11 }), 10, SimTime::ZERO);
    let mut clock = (SimTime::ZERO, 0u64);
    let ack = |c: &mut Controller, clock: &mut (SimTime, u64), a: Ack| {
        clock.0 += SimTime::from_us(a.dt_us);
        clock.1 += a.acked as u64;
        c.on_ack(&sample(clock.0, &a, clock.1, 0));
    };
    let metric = |c: &Controller, name: &str| {
        c.metrics()
            .into_iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
            .unwrap()
    };
    // Same trajectory as Path::to_probe_bw(11).
    for _ in 0..49 {
        ack(&mut c, &mut clock, Ack::default());
    }
    assert_eq!(metric(&c, "mode"), 2.0, "PROBE_BW");
    assert!(c.owns_window());
    let target = probe_bw_target(&Path::to_probe_bw(11).b);
    assert_eq!((c.cwnd(), c.ssthresh()), (target, 22));
    // RTO with nothing left in flight: ssthresh() only saves cwnd; cwnd = 0 + 1.
    c.on_rto(clock.0, 0, 50, 100);
    assert_eq!((c.cwnd(), c.ssthresh()), (1, 22));
    assert_eq!(metric(&c, "prior_cwnd"), target as f64);
    // In Loss, cwnd grows by what each ACK delivers (full pipe: min(cwnd + acked,
    // target)), and never below 4 — no cong_avoid, no PRR: 1 → max(2, 4) = 4, 5, 6.
    for k in 4..=6 {
        ack(
            &mut c,
            &mut clock,
            Ack {
                in_flight: k,
                ..Ack::default()
            },
        );
        assert_eq!(c.cwnd(), k);
    }
    // The episode ends: no cwnd = ssthresh for an algorithm owning the window (Linux
    // tcp_end_cwnd_reduction returns early), cwnd stays 6 ...
    c.exit_recovery(clock.0);
    assert_eq!(c.cwnd(), 6);
    // ... and BBR restores its saved cwnd on the next ACK.
    ack(&mut c, &mut clock, Ack::default());
    assert_eq!(c.cwnd(), target);
    // No slow start after idle either (Linux skips it with cong_control).
    c.restart_after_idle(SimTime::from_secs(5), SimTime::from_secs(1), 10);
    assert_eq!((c.cwnd(), c.ssthresh()), (target, 22));
}

#[test]
fn rto_feeds_the_policer_detector_and_resets_full_bw() {
    let mut p = Path::to_probe_bw(2);
    assert!(!p.b.lt_is_sampling);
    p.b.set_state(&mut p.w, CaState::Loss);
    assert!(p.b.lt_is_sampling, "an RTO is a loss: LT sampling starts");
    assert!(p.b.round_start);
    assert_eq!(p.b.full_bw, 0);
    assert_eq!(p.b.prev_ca_state, CaState::Loss);
}

#[test]
fn policer_is_detected_from_two_consistent_lossy_intervals() {
    let mut p = Path::to_probe_bw(7);
    // Round starts are ACKs n ≡ 1 (mod 16); every ACK n ≡ 0 (mod 16) reports 4 losses,
    // i.e. 4 of 20 segments per round are lost (20 % ≥ 50/256 = 19.5 %). ACK n comes at
    // n·1024 µs.
    let step = |p: &mut Path| {
        let losses = if (p.n + 1).is_multiple_of(16) { 4 } else { 0 };
        p.ack(Ack {
            losses,
            ..Ack::default()
        });
    };
    while p.n < 64 {
        step(&mut p);
    }
    // ACK 64: first loss → sampling starts: delivered 64, lost 4, at 65 ms (65.536).
    assert!(p.b.lt_is_sampling);
    assert_eq!(
        (
            p.b.lt_last_delivered,
            p.b.lt_last_lost,
            p.b.lt_last_stamp_ms
        ),
        (64, 4, 65)
    );
    // Round starts 65, 81, 97, 113 make 4 rounds; the loss at ACK 128 closes the
    // interval: lost 20 − 4 = 16, delivered 128 − 64 = 64 (16·256 ≥ 50·64), over
    // 131 − 65 = 66 ms (131.072 ms): bw = 64·2^24/66 000 = 16268.
    while p.n < 128 {
        step(&mut p);
    }
    assert_eq!(p.b.lt_bw, 16_268);
    assert!(!p.b.lt_use_bw());
    // Second interval, ACK 192 at 196.608 ms: 64 delivered in 196 − 131 = 65 ms →
    // 64·2^24/65 000 = 16519. |16519 − 16268| = 251; 251·256 ≤ 32·16268: consistent
    // → policed: lt_bw = (16519 + 16268) >> 1 = 16393, pacing gain 1.
    while p.n < 192 {
        step(&mut p);
    }
    assert!(p.b.lt_use_bw());
    assert_eq!(p.b.lt_bw, 16_393);
    assert_eq!(p.b.pacing_gain(), BBR_UNIT);
    // Pace at lt_bw: 16393·1000·256 >> 8 = 16 393 000; ·990 000 >> 24 = 967 327 B/s.
    assert_eq!(p.b.pacing_rate(), Some(Rate::bps(967_327 * 8)));
    // Use lt_bw for 48 round starts in PROBE_BW (ACKs 193, 209, …, 193 + 47·16 = 945),
    // whatever the gain cycle says, then go back to gain cycling.
    while p.n < 944 {
        p.ack(Ack::default());
        assert!(p.b.lt_use_bw());
        assert_eq!(p.b.pacing_gain(), BBR_UNIT);
    }
    p.ack(Ack::default());
    assert!(!p.b.lt_use_bw());
    assert_eq!(p.b.lt_bw, 0);
    assert_eq!(p.b.pacing_gain(), PACING_GAIN[p.b.cycle_idx() as usize]);
}

#[test]
fn burst_goal_is_a_millisecond_of_the_pacing_rate() {
    let mut b = Bbr::new(BbrParams { seed: 0 });
    b.mss = 1448;
    let goal = |b: &mut Bbr, rate: u64| {
        b.pacing_rate_bytes = rate;
        b.tso_segs_goal()
    };
    // 96 Mbit/s of payload = 12 000 000 B/s: >> 10 = 11 718 B = 8 segments of 1448.
    assert_eq!(goal(&mut b, 12_000_000), 8);
    // 1 MB/s: 976 B is no whole segment; above 150 000 B/s (1.2 Mbit/s) at least 2.
    assert_eq!(goal(&mut b, 1_000_000), 2);
    // Below 1.2 Mbit/s one segment.
    assert_eq!(goal(&mut b, 149_999), 1);
    // 1 GB/s: 976 562 B, capped at 65 536 − 1 − 320 = 65 215 B = 45 segments.
    assert_eq!(goal(&mut b, 1_000_000_000), 45);
    // The budget: 3 bursts, even: 336 + 24 = 360; in STARTUP no phase bonus.
    b.pacing_rate_bytes = 12_000_000;
    assert_eq!(b.quantization_budget(336), 360);
    assert_eq!(b.quantization_budget(337), 362);
}

#[test]
fn ack_aggregation_raises_the_cwnd_target_once_the_pipe_is_full() {
    let mut p = Path::to_probe_bw(3);
    let target = probe_bw_target(&p.b);
    assert_eq!(p.b.extra_acked(), 1);
    // 9216 µs of silence, then one ACK for 9 segments. The epoch expected
    // bw·9216 µs = 16384·9216 >> 24 = 9 segments and had 1: it restarts at this ACK,
    // which alone counts 9 "extra" segments. Target = 32 + 9 + 6 = 47 → 48 (+2 in
    // phase 0) = target + 8, and cwnd = min(cwnd + 9, that).
    p.ack(Ack {
        dt_us: 9216,
        acked: 9,
        ..Ack::default()
    });
    assert_eq!(p.b.extra_acked(), 9);
    assert_eq!(p.w.cwnd, target + 8);
}

#[test]
fn tx_start_after_idle_blocks_probe_rtt_until_data_is_delivered() {
    let mut p = Path::to_probe_bw(1);
    p.b.cwnd_event(
        &mut p.w,
        CwndEvent::TxStart {
            idle: SimTime::from_secs(11),
        },
        p.now + SimTime::from_secs(11),
    );
    assert!(p.b.idle_restart);
    // 11 s later the min_rtt filter has expired, but an ACK without a valid sample
    // (nothing delivered) keeps the restart flag, so PROBE_RTT does not start; the
    // expired filter still takes the ACK's RTT sample.
    p.ack(Ack {
        dt_us: 11_000_000,
        acked: 0,
        rate: None,
        rtt_us: Some(20_000),
        ..Ack::default()
    });
    assert!(p.b.idle_restart);
    assert_eq!(p.b.mode(), BbrMode::ProbeBw);
    assert_eq!(p.b.min_rtt(), Some(SimTime::from_us(20_000)));
}
