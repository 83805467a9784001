//! H-TCP as Linux implements it (`net/ipv4/tcp_htcp.c`; Leith & Shorten, "H-TCP: TCP for
//! high-speed and long-distance networks", PFLDnet 2004, and "H-TCP: TCP congestion control
//! for high bandwidth-delay product paths", draft-leith-tcp-htcp-06).
//!
//! Time is in jiffies of 1 ms (HZ = 1000), RTTs in jiffies, α ×128 and β ×128, as in Linux:
//! - **α from the time since the last congestion event**, Δ = now − `last_cong`, where
//!   `last_cong` is the end of the last recovery (it is set when a reduction starts and
//!   re-armed when the connection returns to Open). For Δ ≤ 1 s the factor is 1 (Reno);
//!   beyond, with δ = Δ − 1 s in seconds, factor = 1 + 10δ + (δ/2)², computed as
//!   `1 + (10·d + (d/2)²/HZ)/HZ` with d in jiffies (u32, as in Linux).
//!   RTT scaling (`use_rtt_scaling`): factor ← factor · minRTT/100 ms, computed as
//!   `(factor·8) / clamp(8·HZ/(10·minRTT), 4, 80)`, at least 1 — so paths shorter than
//!   100 ms grow more slowly, longer ones faster (at most ×2, at least ×0.1).
//!   α = 2·factor·(1 − β) (`2·factor·(128 − β)`), keeping the average window after a cut
//!   that of a Reno flow with the same factor. α is recomputed after every window increase
//!   and at every loss.
//! - **Adaptive β from the RTT ratio** (at loss): β = minRTT/maxRTT clamped to
//!   [0.5, 0.8] (`BETA_MIN` 64, `BETA_MAX` 102, `(minRTT << 7)/maxRTT` stored in a u8 as
//!   in Linux), so a flow backs off just enough to drain the queue it built. β stays 0.5 for
//!   the first loss (`modeswitch` is set only by one) and whenever minRTT ≤ 10 ms. After each
//!   loss maxRTT fades towards minRTT: maxRTT ← minRTT + 0.95·(maxRTT − minRTT).
//!   minRTT is the smallest per-ACK RTT sample; maxRTT grows only in the Open state, and only
//!   by samples at most 20 ms above it (spikes are ignored).
//! - **Bandwidth switch** (`use_bandwidth_switch`): the throughput achieved in Open/Disorder
//!   is measured once per ≥ minRTT over ≥ cwnd − α segments, `Bi = packets·HZ/elapsed`
//!   (packets per second), smoothed as (3·Bi + cur)/4 and reset to the current value within
//!   3 minRTTs of a backoff; maxB is its maximum. At a loss, if 5·maxB is outside
//!   [4, 6]·(maxB at the previous loss) — throughput changed by more than 20 % — β = 0.5 and
//!   the RTT-ratio mode is suspended for one loss (`modeswitch` = 0).
//! - Congestion avoidance: `if (snd_cwnd_cnt·α) >> 7 ≥ cwnd` then cwnd += 1, counter = 0 and
//!   α is recomputed; else the counter grows by the segments this ACK delivered (recorded by
//!   `pkts_acked` while Open; 1 otherwise, Linux's `ca->pkts_acked = 1`). The test comes
//!   before the addition, so at α = 1 an increase takes cwnd + 1 ACKs.
//! - Slow start: Linux `tcp_slow_start`, the leftover beyond ssthresh dropped.
//! - ssthresh = max((cwnd·β) >> 7, 2), after the β and α updates.
//! - `set_state`: entering CWR/Recovery/Loss saves the undo values and sets `last_cong` =
//!   now; returning to Open after that sets `last_cong` = now again.
//!
//! Deviations from Linux:
//! - The hooks `ssthresh` and `set_state` carry no clock here; the module keeps the time of
//!   the latest hook that did (`pkts_acked`, `cong_avoid`, `cwnd_event`). For fast recovery
//!   and for the return to Open that is the ACK being processed, as in Linux. For an RTO the
//!   `ssthresh` call (which recomputes α) sees the time of the last ACK rather than of the
//!   timeout; `last_cong` itself is set at the timeout (the `CwndEvent::Loss` that precedes
//!   `set_state(Loss)` carries it).
//! - Jiffies are 1-based (`now/1 ms + 1`) so that 0 keeps Linux's meaning "no undo state";
//!   Linux's jiffies never sit at 0. Throughput timing starts at `lasttime` = 0 as Linux's
//!   `memset`, so the first rate sample (discarded within 3 minRTTs of start anyway) is
//!   taken over the time since the start of the run.
//! - No `undo_cwnd`: the TCP sender does not undo spurious reductions. The `undo_*` values are
//!   saved as in Linux (and `undo_last_cong` still decides whether returning to Open re-arms
//!   `last_cong`), but nothing restores them.
//!
//! Differences from ns-3's `TcpHtcp`: ns-3 adds α in bytes per ACK, has no RTT scaling and no
//! β clamp, and its throughput-change test uses an integer ratio that is 0 unless the
//! throughput at least doubled (see the reference notes).

use super::{AckSample, CaState, CongestionControl, CwndEvent, Window};
use mmtsim_engine::SimTime;

/// `ALPHA_BASE`: α = 1.0 ×128.
const ALPHA_BASE: u32 = 1 << 7;
/// `BETA_MIN`: β = 0.5 ×128.
const BETA_MIN: u8 = 1 << 6;
/// `BETA_MAX`: β = 102/128 ≈ 0.797 (Linux's "0.8").
const BETA_MAX: u8 = 102;
/// Jiffies per second (HZ) — 1000, the common Linux configuration.
const HZ: u32 = 1000;

/// H-TCP parameters (Linux module parameters).
#[derive(Clone, Debug, PartialEq)]
pub struct HtcpParams {
    /// Scale α by minRTT/100 ms (Linux `use_rtt_scaling`, default on).
    pub use_rtt_scaling: bool,
    /// Fall back to β = 0.5 when throughput changes by more than 20 % between losses
    /// (Linux `use_bandwidth_switch`, default on).
    pub use_bandwidth_switch: bool,
}

impl Default for HtcpParams {
    fn default() -> Self {
        HtcpParams {
            use_rtt_scaling: true,
            use_bandwidth_switch: true,
        }
    }
}

/// H-TCP state (Linux `struct htcp`).
#[derive(Clone, Debug)]
pub struct Htcp {
    p: HtcpParams,
    /// α ×128.
    alpha: u32,
    /// β ×128.
    beta: u8,
    /// The RTT-ratio β is in use (set by a loss with stable throughput).
    modeswitch: bool,
    /// Segments delivered by the current ACK, recorded while Open (u16 as in Linux).
    pkts_acked: u16,
    /// Segments delivered since the last throughput sample.
    packetcount: u32,
    /// Minimum RTT, jiffies (0 = none yet).
    min_rtt: u32,
    /// Maximum RTT, jiffies.
    max_rtt: u32,
    /// End of the last congestion event, jiffies.
    last_cong: u32,
    undo_last_cong: u32,
    undo_max_rtt: u32,
    undo_old_max_b: u32,
    /// Throughput: minimum, maximum and smoothed estimate, packets per second.
    min_b: u32,
    max_b: u32,
    /// maxB at the previous loss.
    old_max_b: u32,
    bi: u32,
    /// Start of the current throughput sample, jiffies.
    lasttime: u32,
    /// Connection state as last reported by `set_state`.
    state: CaState,
    /// Time of the latest hook that carried one (see the module doc).
    now: SimTime,
}

/// 1-based jiffies, wrapping at 2^32 like Linux's 32-bit jiffies.
fn jiffies(now: SimTime) -> u32 {
    (now.ns() / 1_000_000 + 1) as u32
}

/// Linux `usecs_to_jiffies` for HZ = 1000: rounds up.
fn us_to_jiffies(us: u64) -> u32 {
    us.div_ceil(1_000_000 / HZ as u64) as u32
}

/// Linux `between(seq1, seq2, seq3)`: seq2 ≤ seq1 ≤ seq3 in wrapping u32 arithmetic.
fn between(seq1: u32, seq2: u32, seq3: u32) -> bool {
    seq3.wrapping_sub(seq2) >= seq1.wrapping_sub(seq2)
}

impl Htcp {
    /// An H-TCP instance.
    pub fn new(p: HtcpParams) -> Self {
        Htcp {
            p,
            alpha: ALPHA_BASE,
            beta: BETA_MIN,
            modeswitch: false,
            pkts_acked: 1,
            packetcount: 0,
            min_rtt: 0,
            max_rtt: 0,
            last_cong: jiffies(SimTime::ZERO),
            undo_last_cong: 0,
            undo_max_rtt: 0,
            undo_old_max_b: 0,
            min_b: 0,
            max_b: 0,
            old_max_b: 0,
            bi: 0,
            lasttime: 0,
            state: CaState::Open,
            now: SimTime::ZERO,
        }
    }

    /// Current α, segments per RTT.
    pub fn alpha(&self) -> f64 {
        self.alpha as f64 / 128.0
    }
    /// Current β (fraction of cwnd kept on loss).
    pub fn beta(&self) -> f64 {
        self.beta as f64 / 128.0
    }

    fn cong_time(&self) -> u32 {
        jiffies(self.now).wrapping_sub(self.last_cong)
    }

    /// Linux `htcp_reset`: a reduction starts now.
    fn reset(&mut self) {
        self.undo_last_cong = self.last_cong;
        self.undo_max_rtt = self.max_rtt;
        self.undo_old_max_b = self.old_max_b;
        self.last_cong = jiffies(self.now);
    }

    /// Linux `measure_rtt` with one RTT sample in jiffies.
    fn measure_rtt(&mut self, rtt: u32) {
        if self.min_rtt > rtt || self.min_rtt == 0 {
            self.min_rtt = rtt;
        }
        if self.state == CaState::Open {
            if self.max_rtt < self.min_rtt {
                self.max_rtt = self.min_rtt;
            }
            // Samples far above the current maximum are taken as spikes, not queueing.
            if self.max_rtt < rtt && rtt <= self.max_rtt + 20 {
                self.max_rtt = rtt;
            }
        }
    }

    /// Linux `htcp_beta_update`.
    fn beta_update(&mut self, min_rtt: u32, max_rtt: u32) {
        if self.p.use_bandwidth_switch {
            let max_b = self.max_b;
            let old_max_b = self.old_max_b;
            self.old_max_b = self.max_b;
            if !between(
                max_b.wrapping_mul(5),
                old_max_b.wrapping_mul(4),
                old_max_b.wrapping_mul(6),
            ) {
                self.beta = BETA_MIN;
                self.modeswitch = false;
                return;
            }
        }
        if self.modeswitch && min_rtt > 10 && max_rtt != 0 {
            // Stored in a u8 before clamping, as in Linux.
            let b = ((min_rtt << 7) / max_rtt) as u8;
            self.beta = b.clamp(BETA_MIN, BETA_MAX);
        } else {
            self.beta = BETA_MIN;
            self.modeswitch = true;
        }
    }

    /// Linux `htcp_alpha_update`.
    fn alpha_update(&mut self) {
        let min_rtt = self.min_rtt;
        let mut factor: u32 = 1;
        let mut diff = self.cong_time();
        if diff > HZ {
            diff -= HZ;
            let half = diff / 2;
            factor = 1 + diff
                .wrapping_mul(10)
                .wrapping_add(half.wrapping_mul(half) / HZ)
                / HZ;
        }
        if self.p.use_rtt_scaling && min_rtt != 0 {
            let scale = ((HZ << 3) / (10 * min_rtt)).clamp(1 << 2, 10 << 3);
            factor = (factor << 3) / scale;
            if factor == 0 {
                factor = 1;
            }
        }
        self.alpha = 2u32
            .wrapping_mul(factor)
            .wrapping_mul(128 - self.beta as u32);
        if self.alpha == 0 {
            self.alpha = ALPHA_BASE;
        }
    }

    /// Linux `htcp_param_update`, at a congestion event.
    fn param_update(&mut self) {
        let (min_rtt, max_rtt) = (self.min_rtt, self.max_rtt);
        self.beta_update(min_rtt, max_rtt);
        self.alpha_update();
        // Slowly fading memory of maxRTT, for route changes.
        if min_rtt > 0 && max_rtt > min_rtt {
            self.max_rtt = min_rtt + ((max_rtt - min_rtt) * 95) / 100;
        }
    }

    /// Linux `measure_achieved_throughput` (the part after the RTT sample).
    fn measure_throughput(&mut self, cwnd: u32, acked: u32) {
        let now = jiffies(self.now);
        if !matches!(self.state, CaState::Open | CaState::Disorder) {
            self.packetcount = 0;
            self.lasttime = now;
            return;
        }
        self.packetcount = self.packetcount.wrapping_add(acked);
        let alpha_segs = (self.alpha >> 7).max(1);
        let elapsed = now.wrapping_sub(self.lasttime);
        if self.packetcount >= cwnd.wrapping_sub(alpha_segs)
            && elapsed >= self.min_rtt
            && self.min_rtt > 0
        {
            let cur_bi = self.packetcount.wrapping_mul(HZ) / elapsed;
            if self.cong_time() / self.min_rtt <= 3 {
                // Just after a backoff: restart the estimate.
                self.min_b = cur_bi;
                self.max_b = cur_bi;
                self.bi = cur_bi;
            } else {
                self.bi = (3u32.wrapping_mul(self.bi).wrapping_add(cur_bi)) / 4;
                if self.bi > self.max_b {
                    self.max_b = self.bi;
                }
                if self.min_b > self.max_b {
                    self.min_b = self.max_b;
                }
            }
            self.packetcount = 0;
            self.lasttime = now;
        }
    }
}

impl CongestionControl for Htcp {
    fn name(&self) -> &'static str {
        "htcp"
    }

    fn init(&mut self, _w: &mut Window, now: SimTime) {
        let p = self.p.clone();
        *self = Htcp::new(p);
        self.now = now;
        self.last_cong = jiffies(now);
    }

    fn pkts_acked(&mut self, w: &mut Window, s: &AckSample) {
        self.now = s.now;
        if self.state == CaState::Open {
            self.pkts_acked = s.acked as u16;
        }
        if let Some(rtt) = s.rtt {
            let us = rtt.ns() / 1_000;
            if us > 0 {
                self.measure_rtt(us_to_jiffies(us));
            }
        }
        if self.p.use_bandwidth_switch {
            self.measure_throughput(w.cwnd, s.acked);
        }
    }

    fn cong_avoid(&mut self, w: &mut Window, s: &AckSample) {
        self.now = s.now;
        if !s.cwnd_limited {
            return;
        }
        if w.in_slow_start() {
            w.slow_start(s.acked);
        } else {
            // cwnd += α/cwnd per segment, in whole segments.
            if (w.cwnd_cnt.wrapping_mul(self.alpha) >> 7) >= w.cwnd {
                if w.cwnd < w.cwnd_clamp {
                    w.cwnd += 1;
                }
                w.cwnd_cnt = 0;
                self.alpha_update();
            } else {
                w.cwnd_cnt = w.cwnd_cnt.wrapping_add(self.pkts_acked as u32);
            }
            self.pkts_acked = 1;
        }
    }

    fn ssthresh(&mut self, w: &Window) -> u32 {
        self.param_update();
        ((w.cwnd.wrapping_mul(self.beta as u32)) >> 7).max(2)
    }

    /// `htcp_cwnd_undo`: the reduction never happened, so neither did the congestion event
    /// that restarted the clock and the RTT and throughput memories; then Reno's undo.
    fn undo_cwnd(&mut self, w: &mut Window) -> u32 {
        if self.undo_last_cong != 0 {
            self.last_cong = self.undo_last_cong;
            self.max_rtt = self.undo_max_rtt;
            self.old_max_b = self.undo_old_max_b;
            self.undo_last_cong = 0;
        }
        w.cwnd.max(w.prior_cwnd)
    }

    fn set_state(&mut self, _w: &mut Window, state: CaState) {
        match state {
            CaState::Open => {
                if self.undo_last_cong != 0 {
                    // The reduction is over: Δ counts from here.
                    self.last_cong = jiffies(self.now);
                    self.undo_last_cong = 0;
                }
            }
            CaState::Cwr | CaState::Recovery | CaState::Loss => self.reset(),
            CaState::Disorder => {}
        }
        self.state = state;
    }

    fn cwnd_event(&mut self, _w: &mut Window, _ev: CwndEvent, now: SimTime) {
        self.now = now;
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("alpha", self.alpha()),
            ("beta", self.beta()),
            ("min_rtt_ms", self.min_rtt as f64),
            ("max_rtt_ms", self.max_rtt as f64),
            ("max_b_pps", self.max_b as f64),
            ("modeswitch", self.modeswitch as u8 as f64),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{controller, metric};
    use super::super::{CcParams, Controller};
    use super::*;

    fn ack_at(t: SimTime, acked: u32, rtt_ms: u64) -> AckSample {
        AckSample::simple(t, acked, Some(SimTime::from_ms(rtt_ms)))
    }

    fn ctl(p: HtcpParams, cwnd: u32, ssthresh: u32) -> Controller {
        controller(CcParams::Htcp(p), cwnd, ssthresh)
    }

    /// A loss episode at `t`: recovery entered and left on the same ACK time.
    fn loss(c: &mut Controller, t: SimTime) -> u32 {
        // The ACK that reveals the loss (no RTT sample, nothing delivered in order).
        c.pkts_acked(&AckSample::simple(t, 0, None));
        c.enter_recovery(u64::MAX);
        let ss = c.ssthresh();
        c.pkts_acked(&AckSample::simple(t, 0, None));
        c.exit_recovery(t);
        ss
    }

    #[test]
    fn constants_and_initial_state_match_linux() {
        let h = Htcp::new(HtcpParams::default());
        // α = 1.0 (128), β = 0.5 (64); BETA_MAX = 102 = 0.797.
        assert_eq!((h.alpha, h.beta, BETA_MAX), (128, 64, 102));
        assert!(between(5, 4, 6) && between(4, 4, 6) && !between(7, 4, 6));
        // usecs_to_jiffies rounds up: 20000 µs → 20, 20001 µs → 21.
        assert_eq!((us_to_jiffies(20_000), us_to_jiffies(20_001)), (20, 21));
    }

    #[test]
    fn slow_start_drops_the_leftover_beyond_ssthresh() {
        // cwnd 10, ssthresh 12, one ACK of 5: 10 + 5 capped at 12, nothing carried over.
        let mut c = ctl(HtcpParams::default(), 10, 12);
        c.on_ack(&ack_at(SimTime::from_ms(1), 5, 20));
        assert_eq!((c.cwnd(), c.w.cwnd_cnt), (12, 0));
    }

    #[test]
    fn reno_phase_takes_cwnd_plus_one_acks_per_increase() {
        // Within 1 s of the last congestion event factor = 1; minRTT 20 ms: scale =
        // 8000/200 = 40, factor = 8/40 = 0 → 1; α = 2·1·(128 − 64) = 128 (1.0).
        // CA test before the addition: ACK k sees cnt = k − 1, so cwnd 10 → 11 on ACK 11
        // (10·128 >> 7 = 10 ≥ 10), then 11 → 12 after 12 more ACKs (ACK 23).
        let mut c = ctl(HtcpParams::default(), 10, 10);
        let mut t = SimTime::from_ms(1);
        let mut grew_at = vec![];
        for k in 1..=23 {
            let before = c.cwnd();
            c.on_ack(&ack_at(t, 1, 20));
            if c.cwnd() > before {
                grew_at.push(k);
            }
            t += SimTime::from_ms(1);
        }
        assert_eq!(grew_at, vec![11, 23]);
        assert_eq!(metric(&c, "alpha"), 1.0);
    }

    #[test]
    fn alpha_grows_with_time_since_congestion() {
        // Δ = 3 s after the start (last_cong at init): d = 3000 − 1000 = 2000 jiffies,
        // factor = 1 + (10·2000 + (1000·1000)/1000)/1000 = 1 + 21000/1000 = 22
        // (the closed form 1 + 10·2 + (2/2)² = 22).
        // Without RTT scaling: α = 2·22·(128 − 64) = 2816 (22 segments per RTT).
        let p = HtcpParams {
            use_rtt_scaling: false,
            use_bandwidth_switch: false,
        };
        let mut c = ctl(p, 100, 100);
        c.w.cwnd_cnt = 100; // next ACK increases cwnd and recomputes α
        c.on_ack(&ack_at(SimTime::from_ms(3000), 1, 20));
        assert_eq!(c.cwnd(), 101);
        assert_eq!(metric(&c, "alpha"), 22.0);
        // CA at α = 22: increase when cnt·2816 >> 7 = 22·cnt ≥ 101 → cnt ≥ 5, checked before
        // adding: ACKs 1…5 raise cnt to 5, ACK 6 increases. Δ is still ≈ 3 s: α stays 22.
        for k in 1..=5 {
            c.on_ack(&ack_at(SimTime::from_ms(3000 + k), 1, 20));
        }
        assert_eq!(c.cwnd(), 101);
        c.on_ack(&ack_at(SimTime::from_ms(3006), 1, 20));
        assert_eq!(c.cwnd(), 102);
    }

    #[test]
    fn rtt_scaling_scales_the_factor_by_min_rtt_over_100ms() {
        // Same Δ = 3 s (factor 22) with RTT scaling:
        // minRTT 20 ms: scale = 8000/(10·20) = 40, factor = 22·8/40 = 4.4 → 4, α = 2·4·64 = 512;
        // minRTT 100 ms: scale = 8, factor = 22, α = 2816;
        // minRTT 400 ms: scale = 8000/4000 = 2 → clamped to 4 (×2 at most), factor 44,
        // α = 2·44·64 = 5632.
        for (rtt_ms, alpha) in [(20, 512.0), (100, 2816.0), (400, 5632.0)] {
            let p = HtcpParams {
                use_rtt_scaling: true,
                use_bandwidth_switch: false,
            };
            let mut c = ctl(p, 100, 100);
            c.w.cwnd_cnt = 100;
            c.on_ack(&ack_at(SimTime::from_ms(3000), 1, rtt_ms));
            assert_eq!(metric(&c, "alpha"), alpha / 128.0, "minRTT {rtt_ms} ms");
        }
    }

    #[test]
    fn beta_follows_min_over_max_rtt_from_the_second_loss() {
        let p = HtcpParams {
            use_rtt_scaling: false,
            use_bandwidth_switch: false,
        };
        let mut c = ctl(p, 100, 100);
        // RTT samples 60, 70, 80, 90, 100 ms in Open: minRTT 60, maxRTT climbs by steps of
        // ≤ 20 ms to 100. A 200 ms spike (> maxRTT + 20) is ignored.
        for (i, r) in [60, 70, 80, 90, 100, 200].into_iter().enumerate() {
            let mut s = ack_at(SimTime::from_ms(10 + i as u64), 1, r);
            s.cwnd_limited = false;
            c.on_ack(&s);
        }
        assert_eq!(
            (metric(&c, "min_rtt_ms"), metric(&c, "max_rtt_ms")),
            (60.0, 100.0)
        );
        // First loss: modeswitch is off → β = 0.5, modeswitch on; ssthresh = 100·64 >> 7 = 50.
        // maxRTT fades: 60 + (40·95)/100 = 98.
        let ss = loss(&mut c, SimTime::from_ms(100));
        assert_eq!(ss, 50);
        assert_eq!(metric(&c, "max_rtt_ms"), 98.0);
        // Second loss at cwnd 100: β = (60 << 7)/98 = 7680/98 = 78.37 → 78 (0.609);
        // ssthresh = 100·78 >> 7 = 7800/128 = 60.9 → 60. maxRTT: 60 + 38·95/100 = 96.
        c.set_cwnd(100);
        let ss = loss(&mut c, SimTime::from_ms(200));
        assert_eq!(metric(&c, "beta"), 78.0 / 128.0);
        assert_eq!(ss, 60);
        assert_eq!(metric(&c, "max_rtt_ms"), 96.0);
    }

    #[test]
    fn beta_is_clamped_and_short_paths_keep_one_half() {
        let p = HtcpParams {
            use_rtt_scaling: false,
            use_bandwidth_switch: false,
        };
        // minRTT 90, maxRTT 100, faded to 90 + 10·95/100 = 99 by the first loss; at the
        // second β = 90·128/99 = 116.4 → 116 → clamped to 102.
        let mut c = ctl(p.clone(), 100, 100);
        c.on_ack(&ack_at(SimTime::from_ms(1), 1, 90));
        c.on_ack(&ack_at(SimTime::from_ms(2), 1, 100));
        loss(&mut c, SimTime::from_ms(10));
        c.set_cwnd(100);
        let ss = loss(&mut c, SimTime::from_ms(20));
        // ssthresh = 100·102 >> 7 = 10200/128 = 79.7 → 79.
        assert_eq!((metric(&c, "beta"), ss), (102.0 / 128.0, 79));
        // minRTT 10 ms (not > 10 jiffies): β stays 0.5 whatever maxRTT.
        let mut c = ctl(p, 100, 100);
        c.on_ack(&ack_at(SimTime::from_ms(1), 1, 10));
        c.on_ack(&ack_at(SimTime::from_ms(2), 1, 12));
        loss(&mut c, SimTime::from_ms(10));
        c.set_cwnd(100);
        assert_eq!(loss(&mut c, SimTime::from_ms(20)), 50);
    }

    #[test]
    fn throughput_is_measured_per_min_rtt_and_a_change_resets_beta() {
        let p = HtcpParams {
            use_rtt_scaling: false,
            use_bandwidth_switch: true,
        };
        // minRTT 50 ms, cwnd 50 (α = 1: a sample needs ≥ 49 segments and ≥ 50 jiffies),
        // one segment ACKed per ms, not cwnd-limited so cwnd stays 50.
        let mut c = ctl(p, 50, 50);
        let mut t_ms = 0;
        fn run(c: &mut Controller, t_ms: &mut u64, until_ms: u64, acked: u32) {
            while *t_ms < until_ms {
                *t_ms += 1;
                let mut s = ack_at(SimTime::from_ms(*t_ms), acked, 50);
                s.cwnd_limited = false;
                c.on_ack(&s);
            }
        }
        // Jiffies are t_ms + 1 and lasttime starts at 0: the first sample is at t = 49 ms
        // (jiffies 50, 49 packets, 50 jiffies elapsed): 49·1000/50 = 980 pkt/s; within
        // 3 minRTTs of the start (50/50 = 1 ≤ 3) it resets minB = maxB = Bi = 980. Then every
        // 50 ms: 50 packets in 50 jiffies = 1000 pkt/s; until cong_time/minRTT > 3 (jiffies
        // ≥ 201) they also reset; afterwards Bi = (3·Bi + 1000)/4 stays 1000.
        run(&mut c, &mut t_ms, 1000, 1);
        assert_eq!(metric(&c, "max_b_pps"), 1000.0);
        // First loss: old_maxB was 0 → 5·1000 ∉ [0, 0] → β = 0.5, modeswitch stays off.
        assert_eq!(loss(&mut c, SimTime::from_ms(t_ms)), 25);
        assert_eq!(metric(&c, "modeswitch"), 0.0);
        // Same rate again: within 20 % → the RTT-ratio branch; modeswitch was off → β = 0.5
        // and modeswitch on.
        c.set_cwnd(50);
        run(&mut c, &mut t_ms, 2000, 1);
        loss(&mut c, SimTime::from_ms(t_ms));
        assert_eq!(metric(&c, "modeswitch"), 1.0);
        // The rate doubles (two segments per ACK, 2000 pkt/s): 5·2000 = 10000 ∉ [4000, 6000]
        // → β = 0.5 and modeswitch off again.
        c.set_cwnd(50);
        run(&mut c, &mut t_ms, 3000, 2);
        // (After the loss lasttime = the loss time; 50 ms later 100 packets in 50 jiffies:
        // 100·1000/50 = 2000, and the smoothed value stays there.)
        assert_eq!(metric(&c, "max_b_pps"), 2000.0);
        assert_eq!(loss(&mut c, SimTime::from_ms(t_ms)), 25);
        assert_eq!(metric(&c, "modeswitch"), 0.0);
    }

    #[test]
    fn bandwidth_switch_thresholds_are_plus_minus_twenty_percent() {
        // Directly on the rule: old maxB 1000; maxB 1200 (5·1200 = 6000 ≤ 6000) keeps the
        // ratio mode, 1201 (6005) leaves it; 800 (4000 ≥ 4000) keeps, 799 (3995) leaves.
        for (max_b, keeps) in [(1200, true), (1201, false), (800, true), (799, false)] {
            let mut h = Htcp::new(HtcpParams::default());
            h.modeswitch = true;
            h.old_max_b = 1000;
            h.max_b = max_b;
            h.beta_update(60, 100);
            // Kept: β = 60·128/100 = 76; left: β = 64 and modeswitch off.
            let expected = if keeps { (76, true) } else { (64, false) };
            assert_eq!((h.beta, h.modeswitch), expected, "maxB {max_b}");
            assert_eq!(h.old_max_b, max_b);
        }
    }

    #[test]
    fn last_congestion_is_the_end_of_recovery() {
        let p = HtcpParams {
            use_rtt_scaling: false,
            use_bandwidth_switch: false,
        };
        let mut c = ctl(p, 100, 100);
        c.on_ack(&ack_at(SimTime::from_ms(1), 1, 20));
        // Loss detected at 5 s, recovery ends at 5.5 s.
        c.pkts_acked(&AckSample::simple(SimTime::from_ms(5000), 0, None));
        c.enter_recovery(1000);
        c.pkts_acked(&AckSample::simple(SimTime::from_ms(5500), 0, None));
        c.exit_recovery(SimTime::from_ms(5500));
        // An increase at 7.5 s: Δ = 2 s from 5.5 s → d = 1000, factor = 1 + (10000 + 250)/1000
        // = 11 (1 + 10·1 + 0.5² = 11.25); β = 0.5 → α = 2·11·64 = 1408. Had Δ counted from
        // the detection (2.5 s) the factor would be 1 + (15000 + 562)/1000 = 16.
        c.w.cwnd_cnt = 1000;
        c.on_ack(&ack_at(SimTime::from_ms(7500), 1, 20));
        assert_eq!(metric(&c, "alpha"), 11.0);
    }

    #[test]
    fn rto_cuts_with_beta_and_restarts_the_congestion_clock() {
        let p = HtcpParams {
            use_rtt_scaling: false,
            use_bandwidth_switch: false,
        };
        let mut c = ctl(p, 80, 80);
        c.on_ack(&ack_at(SimTime::from_ms(1), 1, 20));
        // RTO at 4 s: ssthresh = 80·64 >> 7 = 40, cwnd = 1; last_cong = 4 s.
        c.on_rto(SimTime::from_ms(4000), 0, 0, 100);
        assert_eq!((c.cwnd(), c.ssthresh()), (1, 40));
        // Slow start in Loss: 1 → 2 with one ACK.
        c.on_ack(&ack_at(SimTime::from_ms(4100), 1, 20));
        assert_eq!(c.cwnd(), 2);
        c.exit_recovery(SimTime::from_ms(4100));
        // Back in Open, last_cong re-armed at 4.1 s: an increase at 4.6 s has Δ < 1 s → α = 1.
        c.w.ssthresh = 2;
        c.w.cwnd_cnt = 2;
        c.on_ack(&ack_at(SimTime::from_ms(4600), 1, 20));
        assert_eq!((c.cwnd(), metric(&c, "alpha")), (3, 1.0));
    }
}
