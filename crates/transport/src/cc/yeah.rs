//! YeAH-TCP ("Yet Another Highspeed TCP") as Linux implements it (`net/ipv4/tcp_yeah.c`),
//! after Baiocchi, Castellani & Vacirca, "YeAH-TCP: yet another highspeed TCP",
//! PFLDnet 2007.
//!
//! YeAH switches between a fast mode (Scalable TCP growth) and a slow mode (Reno growth)
//! from a Vegas-style estimate of its own queue, and drains that queue before it causes a
//! loss. Window in segments, RTT in µs, Linux constants and integer arithmetic:
//! - RTT bookkeeping is Vegas's ([`VegasRtt`]: `vrtt = rtt_us + 1`, `baseRTT`, per-round
//!   `minRTT` and `cntRTT`, round = first ACK beyond SND.NXT of the previous round), as
//!   Linux shares `tcp_vegas.h`. The Vegas `set_state`/`cwnd_event` hooks are used as is.
//! - Growth (window-limited ACKs only): `tcp_slow_start`; then in fast mode
//!   (`doing_reno_now == 0`) Scalable TCP, +1 per `min(cwnd, 100)` segments ACKed
//!   (`TCP_SCALABLE_AI_CNT`), else Reno, +1 per cwnd segments ACKed. YeAH grows in every
//!   connection state (it does not check Vegas's `doing_vegas_now`).
//! - Once per round, with `cntRTT` > 2 and `rtt = minRTT`: queue estimate
//!   `Q = cwnd·(rtt − baseRTT)/rtt` segments.
//!   * Slow mode when `Q > α` (`TCP_YEAH_ALPHA` = 80 segments) or the queueing delay
//!     `rtt − baseRTT > baseRTT/φ` (`TCP_YEAH_PHY` = 8). There, if `Q > α` and
//!     `cwnd > reno_count`, **precautionary decongestion**: cwnd −= min(Q/γ, cwnd/2^ε)
//!     (γ = `TCP_YEAH_GAMMA` = 1, ε = `TCP_YEAH_EPSILON` = 1), not below `reno_count`, and
//!     ssthresh = cwnd. `reno_count` (a Reno-competition estimate) is set to
//!     max(cwnd/2, 2) if it was ≤ 2, otherwise incremented; `doing_reno_now` counts the
//!     consecutive slow-mode rounds (capped at 0xffffff).
//!   * Fast mode otherwise: `fast_count` + 1 — past ζ (`TCP_YEAH_ZETA` = 50) it resets
//!     `reno_count` to 2 and itself to 0 — and `doing_reno_now` = 0.
//!   * `lastQ = Q`.
//! - Loss (`ssthresh`): if fewer than ρ (`TCP_YEAH_RHO` = 16) consecutive slow-mode
//!   rounds, remove the queue: reduction = max(min(lastQ, max(cwnd/2, 2)), cwnd/2^δ)
//!   (δ = `TCP_YEAH_DELTA` = 3, i.e. at least cwnd/8); otherwise (competing with Reno)
//!   halve: max(cwnd/2, 2). Then `fast_count` = 0, `reno_count` = max(reno_count/2, 2);
//!   ssthresh = max(cwnd − reduction, 2).
//! - `init` caps `snd_cwnd_clamp` at 0xffffffff/128 so that the arithmetic cannot overflow.
//!
//! Standing queue: a lone YeAH flow holds at most about α = 80 of its own segments in the
//! bottleneck queue at a round's end; one round after Q exceeds α it removes Q segments of
//! window (at most half), unless `reno_count` has grown to cwnd.
//!
//! Host differences and simplifications: RTT samples are the sender's (TSecr echo or Karn)
//! rather than Linux's `ca_rtt_us`; `set_state` learns SND.NXT from the latest ACK (see
//! [`VegasRtt`]); no `undo_cwnd`. ns-3's `TcpYeah` enters slow mode on any queueing delay
//! (integer division `1/phy` = 0), uses SRTT samples and byte-based ssthresh (reference
//! notes §10.2).

use super::vegas::{VegasRtt, NO_RTT_US};
use super::{AckSample, CaState, CongestionControl, CwndEvent, Window};
use mmtsim_engine::SimTime;

/// YeAH constants (Linux `#define`s of `tcp_yeah.c`; not module parameters there, exposed
/// here so that sweeps can vary them). `Default` gives Linux's values.
#[derive(Clone, Debug, PartialEq)]
pub struct YeahParams {
    /// Segments queued above which YeAH decongests (`TCP_YEAH_ALPHA`, 80).
    pub alpha: u32,
    /// Fraction 1/γ of the queue removed per decongestion (`TCP_YEAH_GAMMA`, 1).
    pub gamma: u32,
    /// log2 of the smallest fraction of cwnd removed on loss (`TCP_YEAH_DELTA`, 3).
    pub delta: u32,
    /// log2 of the largest fraction of cwnd removed by decongestion (`TCP_YEAH_EPSILON`, 1).
    pub epsilon: u32,
    /// Largest queueing delay for fast mode, as baseRTT/φ (`TCP_YEAH_PHY`, 8).
    pub phy: u32,
    /// Consecutive slow-mode rounds after which a loss halves (`TCP_YEAH_RHO`, 16).
    pub rho: u32,
    /// Fast-mode rounds after which `reno_count` resets (`TCP_YEAH_ZETA`, 50).
    pub zeta: u32,
    /// Scalable TCP's segments ACKed per +1 (`TCP_SCALABLE_AI_CNT`, 100).
    pub stcp_ai_cnt: u32,
}

impl Default for YeahParams {
    fn default() -> Self {
        YeahParams {
            alpha: 80,
            gamma: 1,
            delta: 3,
            epsilon: 1,
            phy: 8,
            rho: 16,
            zeta: 50,
            stcp_ai_cnt: 100,
        }
    }
}

/// Cap on `doing_reno_now` (Linux 0xffffff).
const DOING_RENO_MAX: u32 = 0x00ff_ffff;
/// Cap on cwnd set by `init` (Linux 0xffffffff/128).
const CWND_CLAMP_MAX: u32 = u32::MAX / 128;

/// YeAH state (Linux `struct yeah`).
#[derive(Clone, Debug)]
pub struct Yeah {
    p: YeahParams,
    vegas: VegasRtt,
    /// Queue estimate of the latest round, segments (Linux `lastQ`).
    last_q: u32,
    /// Consecutive slow-mode rounds; 0 = fast mode (Linux `doing_reno_now`).
    doing_reno_now: u32,
    /// Reno-competition estimate, segments (Linux `reno_count`).
    reno_count: u32,
    /// Fast-mode rounds since the last reset (Linux `fast_count`).
    fast_count: u32,
    /// Precautionary decongestions so far (for traces and tests; not in Linux).
    decongestions: u64,
}

impl Yeah {
    /// A YeAH instance.
    pub fn new(p: YeahParams) -> Self {
        Yeah {
            p,
            vegas: VegasRtt::new(),
            last_q: 0,
            doing_reno_now: 0,
            reno_count: 2,
            fast_count: 0,
            decongestions: 0,
        }
    }

    /// True in fast (Scalable) mode.
    pub fn fast_mode(&self) -> bool {
        self.doing_reno_now == 0
    }

    /// The once-per-round mode decision, with `cntRTT` > 2.
    fn decide(&mut self, w: &mut Window) {
        let rtt = self.vegas.min_rtt_us;
        let base = self.vegas.base_rtt_us;
        let queue_delay = rtt.wrapping_sub(base);
        // Segments of this flow in the queue: cwnd − cwnd·baseRTT/rtt.
        let queue = (w.cwnd as u64 * queue_delay as u64 / rtt as u64) as u32;
        if queue > self.p.alpha || queue_delay > base / self.p.phy {
            if queue > self.p.alpha && w.cwnd > self.reno_count {
                // Precautionary decongestion: give back the queue before it overflows.
                let reduction = (queue / self.p.gamma).min(w.cwnd >> self.p.epsilon);
                w.cwnd -= reduction;
                w.cwnd = w.cwnd.max(self.reno_count);
                w.ssthresh = w.cwnd;
                self.decongestions += 1;
            }
            if self.reno_count <= 2 {
                self.reno_count = (w.cwnd >> 1).max(2);
            } else {
                self.reno_count += 1;
            }
            self.doing_reno_now = (self.doing_reno_now + 1).min(DOING_RENO_MAX);
        } else {
            self.fast_count += 1;
            if self.fast_count > self.p.zeta {
                self.reno_count = 2;
                self.fast_count = 0;
            }
            self.doing_reno_now = 0;
        }
        self.last_q = queue;
    }
}

impl CongestionControl for Yeah {
    fn name(&self) -> &'static str {
        "yeah"
    }

    fn init(&mut self, w: &mut Window, _now: SimTime) {
        self.vegas.init();
        self.doing_reno_now = 0;
        self.last_q = 0;
        self.reno_count = 2;
        w.cwnd_clamp = w.cwnd_clamp.min(CWND_CLAMP_MAX);
    }

    fn pkts_acked(&mut self, _w: &mut Window, s: &AckSample) {
        self.vegas.pkts_acked(s);
    }

    fn cong_avoid(&mut self, w: &mut Window, s: &AckSample) {
        let Some(acked) = w.reno_slow_start(s) else {
            return;
        };
        if acked > 0 {
            let cnt = if self.fast_mode() {
                w.cwnd.min(self.p.stcp_ai_cnt)
            } else {
                w.cwnd
            };
            w.cong_avoid_ai(cnt, acked);
        }
        if self.vegas.round_ended(s) {
            if self.vegas.cnt_rtt > 2 {
                self.decide(w);
            }
            self.vegas.next_round(s.snd_nxt);
        }
    }

    fn ssthresh(&mut self, w: &Window) -> u32 {
        let reduction = if self.doing_reno_now < self.p.rho {
            self.last_q
                .min((w.cwnd >> 1).max(2))
                .max(w.cwnd >> self.p.delta)
        } else {
            (w.cwnd >> 1).max(2)
        };
        self.fast_count = 0;
        self.reno_count = (self.reno_count >> 1).max(2);
        (w.cwnd as i64 - reduction as i64).max(2) as u32
    }

    fn set_state(&mut self, _w: &mut Window, state: CaState) {
        self.vegas.set_state(state);
    }

    fn cwnd_event(&mut self, _w: &mut Window, ev: CwndEvent, _now: SimTime) {
        self.vegas.cwnd_event(ev);
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        let base = if self.vegas.base_rtt_us == NO_RTT_US {
            f64::NAN
        } else {
            self.vegas.base_rtt_us as f64
        };
        vec![
            ("queue", self.last_q as f64),
            ("doing_reno_now", self.doing_reno_now as f64),
            ("reno_count", self.reno_count as f64),
            ("fast_count", self.fast_count as f64),
            ("base_rtt_us", base),
            ("decongestions", self.decongestions as f64),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::vegas::harness::Flow;
    use super::super::{CcParams, Controller};
    use super::*;

    fn yeah() -> CcParams {
        CcParams::Yeah(YeahParams::default())
    }

    fn metric(f: &Flow, name: &str) -> f64 {
        f.c.metrics()
            .into_iter()
            .find(|(n, _)| *n == name)
            .unwrap()
            .1
    }

    /// A flow of `iw` segments in congestion avoidance (ssthresh iw/2), after one round at
    /// 20 ms (baseRTT 20001 µs) and one round whose samples are `rtt_us`; its next ACK
    /// decides on those samples.
    ///
    /// Round 1: its first ACK ends the initial round with one sample (no decision).
    /// Round 2: its first ACK decides on round 1 (Q = 0, no delay ⇒ fast mode); the rest
    /// are samples at `rtt_us`. Scalable growth: +1 per 100 ACKs in both rounds.
    fn flow(iw: u32, rtt_us: u64) -> Flow {
        let mut f = Flow::new(&yeah(), iw);
        f.c.w.ssthresh = iw / 2;
        f.round(20_000);
        f.round(rtt_us);
        f
    }

    #[test]
    fn slow_start_doubles_per_round() {
        let mut f = Flow::new(&yeah(), 10);
        for expected in [20, 40, 80] {
            f.round(20_000);
            assert_eq!(f.c.cwnd(), expected);
        }
    }

    #[test]
    fn fast_mode_grows_as_scalable_tcp() {
        // cwnd ≥ 100: +1 per 100 segments ACKed. Round 1: 500 ACKs ⇒ 505 (counter 0);
        // round 2: 505 ACKs ⇒ 510 (counter 5).
        let f = flow(500, 20_000);
        assert_eq!(f.c.cwnd(), 510);
        assert_eq!(metric(&f, "doing_reno_now"), 0.0);
        // cwnd < 100: min(cwnd, 100) = cwnd, Reno's rate. Round 1: 60 ACKs ⇒ 61;
        // round 2: 61 ACKs ⇒ 62 (counter 0 after 60, +1 at the 61st with w = 61).
        let f = flow(60, 20_000);
        assert_eq!(f.c.cwnd(), 62);
    }

    #[test]
    fn queueing_delay_above_base_rtt_over_8_selects_slow_mode() {
        // baseRTT 20001; base/8 = 2500. Round 2 at 22 500 µs: vrtt − base = 2500, not
        // > 2500 ⇒ fast. At 22 501 µs: 2501 ⇒ slow, with
        // Q = 510·2501/22502 = 1275510/22502 = 56 ≤ 80 ⇒ no decongestion, and
        // reno_count (2) := max(510/2, 2) = 255.
        let mut f = flow(500, 22_500);
        f.ack(1, 22_500, SimTime::from_us(100));
        assert_eq!(metric(&f, "doing_reno_now"), 0.0);
        assert_eq!(metric(&f, "fast_count"), 2.0);

        let mut f = flow(500, 22_501);
        f.ack(1, 22_501, SimTime::from_us(100));
        assert_eq!(f.c.cwnd(), 510);
        assert_eq!(metric(&f, "doing_reno_now"), 1.0);
        assert_eq!(metric(&f, "queue"), 56.0);
        assert_eq!(metric(&f, "reno_count"), 255.0);
        // Slow mode grows as Reno: the counter is at 6 (5 left from round 2, +1 by the
        // deciding ACK); with w = cwnd = 510 the next +1 comes after 504 more ACKs (in
        // fast mode, w = 100, it would have come after 94).
        for _ in 0..503 {
            f.ack(1, 22_501, SimTime::from_us(40));
        }
        assert_eq!(f.c.cwnd(), 510);
        f.ack(1, 22_501, SimTime::from_us(40));
        assert_eq!(f.c.cwnd(), 511);
        // The round that began at the deciding ACK (SND.UNA 1006, SND.NXT 1515) ends 510
        // ACKs after it, 6 ACKs from here: slow again (same delay), reno_count + 1.
        for _ in 0..5 {
            f.ack(1, 22_501, SimTime::from_us(40));
        }
        assert_eq!(metric(&f, "doing_reno_now"), 1.0);
        f.ack(1, 22_501, SimTime::from_us(40));
        assert_eq!(metric(&f, "doing_reno_now"), 2.0);
        assert_eq!(metric(&f, "reno_count"), 256.0);
    }

    #[test]
    fn decongests_only_when_the_queue_exceeds_alpha() {
        // cwnd 510 at the decision, baseRTT 20001:
        //   rtt 23 750 µs: Q = 510·3750/23751 = 1912500/23751 = 80 (80.5) — not > 80: slow
        //     mode (3750 > 2500) but no reduction;
        //   rtt 23 800 µs: Q = 510·3800/23801 = 1938000/23801 = 81 (81.4) > 80 and
        //     cwnd 510 > reno_count 2 ⇒ cwnd −= min(81/1, 510 >> 1) = 81 ⇒ 429,
        //     ssthresh = 429, reno_count = max(429 >> 1, 2) = 214.
        let mut f = flow(500, 23_750);
        f.ack(1, 23_750, SimTime::from_us(100));
        assert_eq!((f.c.cwnd(), metric(&f, "queue")), (510, 80.0));
        assert_eq!(metric(&f, "decongestions"), 0.0);

        let mut f = flow(500, 23_800);
        f.ack(1, 23_800, SimTime::from_us(100));
        assert_eq!((f.c.cwnd(), f.c.ssthresh()), (429, 429));
        assert_eq!(metric(&f, "queue"), 81.0);
        assert_eq!(metric(&f, "reno_count"), 214.0);
        assert_eq!(metric(&f, "decongestions"), 1.0);
    }

    #[test]
    fn decongestion_is_bounded_by_half_the_window_and_reno_count() {
        // Round 2 at 60 ms: Q = 510·40000/60001 = 339 (339.99) > 80: reduction =
        // min(339, 255) = 255 ⇒ cwnd 255.
        let mut f = flow(500, 60_000);
        f.ack(1, 60_000, SimTime::from_us(100));
        assert_eq!(f.c.cwnd(), 255);
        // Not below reno_count: with reno_count 400 (> 2, so it is then incremented),
        // cwnd = max(255, 400) = 400.
        let mut g = Yeah::new(YeahParams::default());
        g.reno_count = 400;
        g.vegas.base_rtt_us = 20_001;
        g.vegas.min_rtt_us = 60_001;
        let mut w = Window::new(510);
        g.decide(&mut w);
        assert_eq!((w.cwnd, w.ssthresh, g.reno_count), (400, 400, 401));
    }

    #[test]
    fn loss_removes_the_queue_estimate_within_bounds() {
        // After the decongestion above (cwnd 429, lastQ 81, reno_count 214, one slow
        // round < ρ): reduction = max(min(81, max(429/2, 2) = 214), 429 >> 3 = 53) = 81 ⇒
        // ssthresh = 429 − 81 = 348; reno_count = max(214 >> 1, 2) = 107; fast_count = 0.
        let mut f = flow(500, 23_800);
        f.ack(1, 23_800, SimTime::from_us(100));
        f.c.enter_recovery(f.nxt);
        assert_eq!(f.c.ssthresh(), 348);
        assert_eq!(metric(&f, "reno_count"), 107.0);
        assert_eq!(metric(&f, "fast_count"), 0.0);

        // Fast mode with no queue (lastQ 0): the minimum cut cwnd/8: 510 − 63 = 447.
        let mut f = flow(500, 20_000);
        f.ack(1, 20_000, SimTime::from_us(100));
        f.c.enter_recovery(f.nxt);
        assert_eq!(f.c.ssthresh(), 447);
    }

    #[test]
    fn sixteen_slow_rounds_mean_reno_competition_and_a_loss_halves() {
        // Slow mode at 22 501 µs (Q ≈ 56 < 80, no decongestion) round after round:
        // doing_reno_now counts the rounds; from ρ = 16 on a loss halves.
        let mut f = flow(500, 22_501);
        while metric(&f, "doing_reno_now") < 16.0 {
            f.ack(1, 22_501, SimTime::from_us(40));
        }
        assert_eq!(metric(&f, "doing_reno_now"), 16.0);
        let cwnd = f.c.cwnd();
        f.c.enter_recovery(f.nxt);
        assert_eq!(f.c.ssthresh(), cwnd - (cwnd >> 1));
    }

    #[test]
    fn fifty_one_fast_rounds_reset_reno_count() {
        // One slow round (22 501 µs) sets reno_count = 255 and leaves fast_count at 1
        // (round 2's decision was fast). Then rounds at 20 ms are fast: fast_count counts
        // them; while it is ≤ ζ = 50 reno_count stays, and the round that takes it to 51
        // resets reno_count to 2 and fast_count to 0.
        let mut f = flow(500, 22_501);
        f.ack(1, 22_501, SimTime::from_us(100));
        assert_eq!(metric(&f, "reno_count"), 255.0);
        assert_eq!(metric(&f, "fast_count"), 1.0);
        while metric(&f, "fast_count") < 50.0 {
            f.ack(1, 20_000, SimTime::from_us(40));
        }
        assert_eq!(metric(&f, "reno_count"), 255.0);
        while metric(&f, "fast_count") == 50.0 {
            f.ack(1, 20_000, SimTime::from_us(40));
        }
        assert_eq!(metric(&f, "fast_count"), 0.0);
        assert_eq!(metric(&f, "reno_count"), 2.0);
        assert_eq!(metric(&f, "doing_reno_now"), 0.0);
    }

    #[test]
    fn rto_uses_the_same_reduction_and_restarts_from_one_segment() {
        // Fast mode, lastQ 0, cwnd 510: ssthresh = 510 − (510 >> 3 = 63) = 447; cwnd 1;
        // slow start continues in Loss.
        let mut f = flow(500, 20_000);
        f.ack(1, 20_000, SimTime::from_us(100));
        f.c.on_rto(f.now, 0, f.una, f.nxt);
        assert_eq!((f.c.cwnd(), f.c.ssthresh()), (1, 447));
        f.ack(1, 20_000, SimTime::from_ms(1));
        assert_eq!(f.c.cwnd(), 2);
    }

    #[test]
    fn init_caps_the_window_clamp() {
        let c = Controller::new(&yeah(), 10, SimTime::ZERO);
        assert_eq!(c.w.cwnd_clamp, 0xffff_ffff / 128);
    }
}
