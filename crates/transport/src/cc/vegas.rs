//! TCP Vegas as Linux implements it (`net/ipv4/tcp_vegas.c`, `tcp_vegas.h`), after Brakmo &
//! Peterson, "TCP Vegas: End to end congestion avoidance on a global internet", IEEE JSAC
//! 13(8), 1995.
//!
//! Window in segments, RTT in µs, Linux integer arithmetic kept:
//! - RTT bookkeeping ([`VegasRtt`], shared with YeAH as Linux shares `tcp_vegas.h`): every
//!   RTT sample becomes `vrtt = rtt_us + 1` (never 0); `baseRTT` = min of all samples since
//!   init, `minRTT` = min of the samples of the current round, `cntRTT` = their number.
//! - A round ends on the first ACK that acknowledges beyond `beg_snd_nxt` (SND.NXT when the
//!   round began); only then does Vegas decide, once per RTT. With `cntRTT` ≤ 2 (probably
//!   only delayed ACKs) it behaves like Reno for that ACK. Otherwise, with `rtt = minRTT`:
//!   `target = cwnd·baseRTT/rtt` and `diff = cwnd·(rtt − baseRTT)/baseRTT` (the paper's
//!   "Diff", in segments, integer).
//!   * slow start and `diff > γ` (γ = 1): leave slow start at the rate actually achieved,
//!     `cwnd = min(cwnd, target + 1)`, `ssthresh = min(ssthresh, cwnd)`;
//!   * slow start otherwise: `tcp_slow_start`;
//!   * congestion avoidance: `diff > β` (4) → cwnd − 1 and `ssthresh = min(ssthresh, cwnd)`;
//!     `diff < α` (2) → cwnd + 1; otherwise hold;
//!   * then cwnd is clamped to [2, clamp] and `ssthresh = tcp_current_ssthresh()`
//!     (≥ ¾·cwnd outside recovery); `cntRTT` and `minRTT` start afresh.
//! - Between decisions only slow start moves cwnd (+1 per segment ACKed), so slow start
//!   doubles cwnd **every RTT**, like Reno. This is Linux's deliberate departure from the
//!   paper, whose slow start grows only every other RTT (the module comment of
//!   `tcp_vegas.c` says so); we follow Linux.
//! - Vegas runs only in the Open state (`set_state`): Disorder, Recovery and Loss fall back
//!   to Reno (`tcp_reno_cong_avoid`). Returning to Open (and `CA_EVENT_TX_START`, i.e.
//!   sending after idle) restarts the round at the current SND.NXT, so the first decision
//!   uses only fresh samples; `TX_START` also forgets `baseRTT`.
//! - Loss: `ssthresh = max(cwnd/2, 2)` (`tcp_reno_ssthresh`).
//!
//! In equilibrium `diff` sits in [α, β]. Because `diff` divides by `baseRTT` while the
//! backlog is `cwnd·(rtt − baseRTT)/rtt`, the flow's standing queue is
//! `diff·baseRTT/rtt` ≤ `diff` < β + 1 segments.
//!
//! Host differences and simplifications:
//! - `set_state` carries no SND.NXT, so [`VegasRtt`] remembers the SND.NXT of the latest
//!   ACK it saw. Our sender calls `pkts_acked` before any state change of the same ACK, so
//!   the value equals what Linux reads at that moment.
//! - RTT samples are the sender's (TSecr echo or Karn), not Linux's `ca_rtt_us` (the
//!   most recently sent segment the ACK covers); with timestamps on they are the same.
//! - Integer widths are Linux's: `cntRTT` is a u16 and `diff` a u32 product
//!   `cwnd·(rtt − baseRTT)` that wraps beyond 2^32 (e.g. 10 000 segments with 430 ms of
//!   queueing delay) — kept on purpose so that results match the kernel.
//! - No `undo_cwnd` (the sender does not undo). ns-3's `TcpVegas` differs (reference notes
//!   §8.2): `diff = cwnd − target`, SRTT samples, and a loss response of
//!   `max(min(ssthresh, cwnd − 1), 2)` instead of halving.

use super::newreno::NewReno;
use super::{AckSample, CaState, CongestionControl, CwndEvent, Window};
use mmtsim_engine::SimTime;

/// "No sample yet" for `minRTT`/`baseRTT` (Linux initialises both to 0x7fffffff).
pub const NO_RTT_US: u32 = 0x7fff_ffff;

/// Vegas parameters (Linux module parameters, in segments).
#[derive(Clone, Debug, PartialEq)]
pub struct VegasParams {
    /// Lower bound on the segments the flow keeps queued (Linux `alpha`, default 2).
    pub alpha: u32,
    /// Upper bound on the segments the flow keeps queued (Linux `beta`, default 4).
    pub beta: u32,
    /// Slow-start exit threshold on `diff` (Linux `gamma`, default 1).
    pub gamma: u32,
}

impl Default for VegasParams {
    fn default() -> Self {
        VegasParams {
            alpha: 2,
            beta: 4,
            gamma: 1,
        }
    }
}

/// Linux `usecs` of an RTT sample, saturated so that `+ 1` cannot overflow.
pub(crate) fn rtt_us(rtt: SimTime) -> u32 {
    (rtt.ns() / 1_000).min(NO_RTT_US as u64 - 1) as u32
}

/// Vegas's per-round RTT bookkeeping (Linux `struct vegas` and the functions of
/// `tcp_vegas.h`), shared by Vegas and YeAH.
#[derive(Clone, Debug)]
pub struct VegasRtt {
    /// Do the Vegas computation this round (Linux `doing_vegas_now`).
    pub doing_vegas_now: bool,
    /// SND.NXT when the current round began (Linux `beg_snd_nxt`); the round ends on an ACK
    /// beyond it.
    pub beg_snd_nxt: u64,
    /// RTT samples taken this round (Linux `cntRTT`, u16).
    pub cnt_rtt: u16,
    /// Smallest `rtt_us + 1` of this round, µs (Linux `minRTT`; [`NO_RTT_US`] if none).
    pub min_rtt_us: u32,
    /// Smallest `rtt_us + 1` since init, µs (Linux `baseRTT`; [`NO_RTT_US`] if none).
    pub base_rtt_us: u32,
    /// SND.NXT carried by the latest ACK: what Linux reads from `tp->snd_nxt` when
    /// `set_state` re-enables Vegas.
    snd_nxt: u64,
}

impl Default for VegasRtt {
    fn default() -> Self {
        Self::new()
    }
}

impl VegasRtt {
    /// State after Linux `tcp_vegas_init` on a connection whose SND.NXT is 0.
    pub fn new() -> Self {
        let mut v = VegasRtt {
            doing_vegas_now: false,
            beg_snd_nxt: 0,
            cnt_rtt: 0,
            min_rtt_us: NO_RTT_US,
            base_rtt_us: NO_RTT_US,
            snd_nxt: 0,
        };
        v.init();
        v
    }

    /// Linux `tcp_vegas_init`: forget `baseRTT` and start a round.
    pub fn init(&mut self) {
        self.base_rtt_us = NO_RTT_US;
        self.enable();
    }

    /// Linux `vegas_enable`: start a fresh round at the current SND.NXT.
    pub fn enable(&mut self) {
        self.doing_vegas_now = true;
        self.beg_snd_nxt = self.snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt_us = NO_RTT_US;
    }

    /// Linux `tcp_vegas_pkts_acked`: fold one RTT sample in.
    pub fn pkts_acked(&mut self, s: &AckSample) {
        self.snd_nxt = s.snd_nxt;
        let Some(rtt) = s.rtt else { return };
        let vrtt = rtt_us(rtt) + 1;
        self.base_rtt_us = self.base_rtt_us.min(vrtt);
        self.min_rtt_us = self.min_rtt_us.min(vrtt);
        self.cnt_rtt = self.cnt_rtt.wrapping_add(1);
    }

    /// Linux `tcp_vegas_state`: Vegas only in Open.
    pub fn set_state(&mut self, state: CaState) {
        if state == CaState::Open {
            self.enable();
        } else {
            self.doing_vegas_now = false;
        }
    }

    /// Linux `tcp_vegas_cwnd_event`: restart from scratch when sending after idle.
    pub fn cwnd_event(&mut self, ev: CwndEvent) {
        if matches!(ev, CwndEvent::TxStart { .. }) {
            self.init();
        }
    }

    /// True if the ACK in `s` ends the current round (Linux `after(ack, beg_snd_nxt)`).
    pub fn round_ended(&self, s: &AckSample) -> bool {
        s.snd_una > self.beg_snd_nxt
    }

    /// Starts the next round at `snd_nxt` and forgets this round's samples.
    pub fn next_round(&mut self, snd_nxt: u64) {
        self.snd_nxt = self.snd_nxt.max(snd_nxt);
        self.beg_snd_nxt = snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt_us = NO_RTT_US;
    }
}

/// TCP Vegas state.
#[derive(Clone, Debug)]
pub struct Vegas {
    p: VegasParams,
    rtt: VegasRtt,
    /// Connection state as last reported by `set_state` (for `tcp_current_ssthresh`).
    ca_state: CaState,
    /// `diff` of the latest decision, segments (for traces).
    last_diff: u32,
}

impl Vegas {
    /// A Vegas instance.
    pub fn new(p: VegasParams) -> Self {
        Vegas {
            p,
            rtt: VegasRtt::new(),
            ca_state: CaState::Open,
            last_diff: 0,
        }
    }

    /// The RTT bookkeeping (for tests and traces).
    pub fn rtt_state(&self) -> &VegasRtt {
        &self.rtt
    }

    /// `diff` of the latest once-per-RTT decision, segments.
    pub fn diff(&self) -> u32 {
        self.last_diff
    }

    /// Linux `tcp_current_ssthresh`.
    fn current_ssthresh(&self, w: &Window) -> u32 {
        if matches!(self.ca_state, CaState::Recovery | CaState::Cwr) {
            w.ssthresh
        } else {
            w.ssthresh.max((w.cwnd >> 1) + (w.cwnd >> 2))
        }
    }

    /// The once-per-RTT decision, with `cntRTT` > 2.
    fn decide(&mut self, w: &mut Window, acked: u32) {
        let rtt = self.rtt.min_rtt_us;
        let base = self.rtt.base_rtt_us;
        // Window that would just fill the path at the rate actually achieved:
        // (cwnd / rtt) · baseRTT.
        let target = (w.cwnd as u64 * base as u64 / rtt as u64) as u32;
        // Segments queued beyond the path, in Linux's form (u32 product, /baseRTT).
        let diff = w.cwnd.wrapping_mul(rtt.wrapping_sub(base)) / base;
        self.last_diff = diff;
        if diff > self.p.gamma && w.in_slow_start() {
            // Too fast for slow start: settle at the achieved rate; +1 because the integer
            // division above rounds down.
            w.cwnd = w.cwnd.min(target.wrapping_add(1));
            w.ssthresh = w.ssthresh.min(w.cwnd);
        } else if w.in_slow_start() {
            w.slow_start(acked);
        } else if diff > self.p.beta {
            w.cwnd -= 1;
            w.ssthresh = w.ssthresh.min(w.cwnd);
        } else if diff < self.p.alpha {
            w.cwnd += 1;
        }
        w.cwnd = w.cwnd.clamp(2, w.cwnd_clamp.max(2));
        w.ssthresh = self.current_ssthresh(w);
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn init(&mut self, _w: &mut Window, _now: SimTime) {
        self.rtt.init();
        self.ca_state = CaState::Open;
    }

    fn pkts_acked(&mut self, _w: &mut Window, s: &AckSample) {
        self.rtt.pkts_acked(s);
    }

    fn cong_avoid(&mut self, w: &mut Window, s: &AckSample) {
        if !self.rtt.doing_vegas_now {
            NewReno.cong_avoid(w, s);
            return;
        }
        if self.rtt.round_ended(s) {
            if self.rtt.cnt_rtt <= 2 {
                // Too few samples to tell delayed-ACK noise from queueing: act as Reno.
                NewReno.cong_avoid(w, s);
            } else {
                self.decide(w, s.acked);
            }
            self.rtt.next_round(s.snd_nxt);
        } else if w.in_slow_start() {
            w.slow_start(s.acked);
        }
    }

    fn ssthresh(&mut self, w: &Window) -> u32 {
        (w.cwnd >> 1).max(2)
    }

    fn set_state(&mut self, _w: &mut Window, state: CaState) {
        self.ca_state = state;
        self.rtt.set_state(state);
    }

    fn cwnd_event(&mut self, _w: &mut Window, ev: CwndEvent, _now: SimTime) {
        self.rtt.cwnd_event(ev);
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        let us = |v: u32| if v == NO_RTT_US { f64::NAN } else { v as f64 };
        vec![
            ("base_rtt_us", us(self.rtt.base_rtt_us)),
            ("min_rtt_us", us(self.rtt.min_rtt_us)),
            ("diff", self.last_diff as f64),
            ("doing_vegas", self.rtt.doing_vegas_now as u8 as f64),
        ]
    }
}

/// A window-limited, ACK-clocked sender for unit tests of the delay-based algorithms:
/// sequence numbers count segments, every segment is ACKed on its own, and after each ACK
/// the sender fills the window (SND.NXT = SND.UNA + cwnd).
#[cfg(test)]
pub(crate) mod harness {
    use super::super::{AckSample, CcParams, Controller};
    use mmtsim_engine::SimTime;

    /// Segment size used by the harness, bytes.
    pub const MSS: u32 = 1000;

    pub struct Flow {
        pub c: Controller,
        pub una: u64,
        pub nxt: u64,
        pub now: SimTime,
    }

    impl Flow {
        /// `iw` segments sent at t = 1 s.
        pub fn new(params: &CcParams, iw: u32) -> Self {
            Flow {
                c: Controller::new(params, iw, SimTime::ZERO),
                una: 0,
                nxt: iw as u64,
                now: SimTime::from_secs(1),
            }
        }

        /// The sample of an ACK for `n` more segments with RTT `rtt_us` µs.
        pub fn sample(&self, n: u32, rtt_us: u64) -> AckSample {
            let mut s = AckSample::simple(self.now, n, Some(SimTime::from_us(rtt_us)));
            s.snd_una = self.una;
            s.snd_nxt = self.nxt;
            s.acked_bytes = n as u64 * MSS as u64;
            s.mss = MSS;
            s
        }

        /// One ACK for `n` segments, `dt` after the previous one, then fill the window.
        pub fn ack(&mut self, n: u32, rtt_us: u64, dt: SimTime) {
            self.now += dt;
            self.una += n as u64;
            let s = self.sample(n, rtt_us);
            self.c.on_ack(&s);
            self.nxt = self.nxt.max(self.una + self.c.cwnd() as u64);
        }

        /// One round trip: every segment outstanding now is ACKed, one by one, over one RTT.
        pub fn round(&mut self, rtt_us: u64) {
            let end = self.nxt;
            let n = (end - self.una).max(1);
            let dt = SimTime::from_ns(rtt_us * 1_000 / n);
            while self.una < end {
                self.ack(1, rtt_us, dt);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{CcParams, Controller};
    use super::harness::Flow;
    use super::*;

    fn vegas() -> CcParams {
        CcParams::Vegas(VegasParams::default())
    }

    /// A flow in congestion avoidance at `cwnd` segments (ssthresh cwnd/2 at first) with
    /// `baseRTT` = 20 000 µs + 1, whose last round's samples were all `rtt_us`; its next ACK
    /// ends that round and makes the Vegas decision.
    ///
    /// Round 1 (20 ms): its first ACK ends the initial round with one sample ⇒ Reno, and
    /// congestion avoidance leaves cwnd − 1 alone. Round 2: its first ACK decides on
    /// round 1's samples (minRTT = baseRTT ⇒ diff = 0 < α ⇒ +1 = cwnd); the rest of round 2
    /// are samples at `rtt_us`.
    fn flow_in_ca(cwnd: u32, rtt_us: u64) -> Flow {
        let mut f = Flow::new(&vegas(), cwnd - 1);
        f.c.w.ssthresh = cwnd / 2;
        f.round(20_000);
        assert_eq!(f.c.cwnd(), cwnd - 1);
        f.round(rtt_us);
        assert_eq!(f.c.cwnd(), cwnd, "between decisions cwnd holds");
        f
    }

    #[test]
    fn slow_start_doubles_every_rtt_without_queueing() {
        // Linux Vegas grows in slow start on every ACK (not every other RTT as in the
        // paper). Constant RTT ⇒ minRTT = baseRTT ⇒ diff = 0 ≤ γ: 10 → 20 → 40 → 80.
        let mut f = Flow::new(&vegas(), 10);
        for expected in [20, 40, 80] {
            f.round(20_000);
            assert_eq!(f.c.cwnd(), expected);
        }
        assert!(f.c.w.in_slow_start());
        // The round boundary is the first ACK beyond SND.NXT of the previous boundary.
        assert_eq!(f.c.metrics()[0], ("base_rtt_us", 20_001.0));
    }

    #[test]
    fn slow_start_ends_at_the_achieved_rate_when_diff_exceeds_gamma() {
        // Rounds at 20 ms: 10 → 20 → 40. The next round's samples are 25 ms; at its end
        // (first ACK of the round after) cwnd = 80 and, with vrtt = µs + 1:
        //   diff   = 80·(25001 − 20001)/20001 = 400000/20001 = 19 > γ = 1
        //   target = 80·20001/25001 = 1600080/25001 = 64 (64.0006)
        //   cwnd   = min(80, 64 + 1) = 65, ssthresh = min(∞, 65) = 65,
        //   then tcp_current_ssthresh = max(65, 32 + 16) = 65 ⇒ congestion avoidance.
        let mut f = Flow::new(&vegas(), 10);
        f.round(20_000);
        f.round(20_000);
        f.round(25_000); // cwnd 40 → 80 during this round; its samples are 25 ms
        assert_eq!(f.c.cwnd(), 80);
        f.ack(1, 25_000, SimTime::from_us(300)); // first ACK of the next round decides
        assert_eq!((f.c.cwnd(), f.c.ssthresh()), (65, 65));
        assert!(!f.c.w.in_slow_start());
    }

    #[test]
    fn congestion_avoidance_moves_one_segment_per_rtt_by_diff() {
        // cwnd 100, baseRTT 20001 µs, last round's samples at `rtt` (vrtt = rtt + 1).
        // diff = 100·(vrtt − 20001)/20001:
        //   rtt 20400 µs: 40000/20001 = 1 (1.9999) < α      → +1
        //   rtt 20600 µs: 60000/20001 = 2 (2.9999) ∈ [α, β] → hold
        //   rtt 21000 µs: 100000/20001 = 4 (4.9998) ≤ β     → hold
        //   rtt 21200 µs: 120000/20001 = 5 (5.9997) > β     → −1
        // ssthresh: round 2's decision (cwnd 99 → 100) set tcp_current_ssthresh =
        // max(50, (100>>1) + (100>>2)) = 75; afterwards max(75, 3/4 of 101, 100 or 99
        // = 75, 75, 73) = 75 (the −1 branch's min(ssthresh, cwnd) = min(75, 99) = 75 too).
        for (rtt, expected_cwnd, expected_diff) in [
            (20_400, 101, 1.0),
            (20_600, 100, 2.0),
            (21_000, 100, 4.0),
            (21_200, 99, 5.0),
        ] {
            let mut f = flow_in_ca(100, rtt);
            f.ack(1, rtt, SimTime::from_us(200));
            assert_eq!(f.c.cwnd(), expected_cwnd, "rtt {rtt}");
            assert_eq!(f.c.ssthresh(), 75, "rtt {rtt}");
            assert_eq!(f.c.metrics()[2], ("diff", expected_diff), "rtt {rtt}");
        }
    }

    #[test]
    fn repeated_rounds_settle_with_alpha_to_beta_segments_queued() {
        // A path whose BDP is 80 segments at a 20 ms base RTT: a window of cwnd ≥ 80 keeps
        // q = cwnd − 80 segments queued and the RTT becomes 20 ms·cwnd/80, so
        // vrtt − baseRTT = 250·(cwnd − 80) µs and diff = cwnd·250·(cwnd − 80)/20001:
        //   cwnd 80 → 0, +1; 81 → 20250/20001 = 1, +1; 82 → 41000/20001 = 2 = α: hold.
        // Vegas therefore settles with q = 2 segments queued, inside [α, β].
        let mut f = flow_in_ca(80, 20_000);
        for _ in 0..10 {
            let end = f.nxt;
            while f.una < end {
                let rtt = 20_000 * f.c.cwnd().max(80) as u64 / 80;
                f.ack(1, rtt, SimTime::from_us(250));
            }
        }
        assert_eq!(f.c.cwnd(), 82);
        assert_eq!(f.c.metrics()[2], ("diff", 2.0));
    }

    #[test]
    fn few_samples_fall_back_to_reno() {
        // cntRTT ≤ 2 at the round boundary: tcp_reno_cong_avoid (slow start +1 here).
        let mut c = Controller::new(&vegas(), 10, SimTime::ZERO);
        let mut s = AckSample::simple(SimTime::from_secs(1), 1, Some(SimTime::from_ms(20)));
        s.snd_una = 1;
        s.snd_nxt = 10;
        c.on_ack(&s);
        assert_eq!(c.cwnd(), 11);
    }

    #[test]
    fn loss_halves_and_vegas_restarts_after_recovery() {
        let mut f = flow_in_ca(100, 20_000);
        f.c.enter_recovery(f.nxt);
        // tcp_reno_ssthresh: 100 >> 1 = 50.
        assert_eq!(f.c.ssthresh(), 50);
        let v = f.c.metrics();
        assert_eq!(v[3], ("doing_vegas", 0.0));
        f.c.set_cwnd(60);
        // An ACK (delivering data) ends recovery: Vegas restarts its round at this ACK's
        // SND.NXT, so the next ACK (not beyond it) makes no decision and, in congestion
        // avoidance, leaves cwnd alone.
        f.una = f.nxt;
        let s = f.sample(1, 20_000);
        f.c.pkts_acked(&s);
        f.c.exit_recovery(f.now);
        assert_eq!(f.c.cwnd(), 50);
        assert_eq!(f.c.metrics()[3], ("doing_vegas", 1.0));
        f.c.cong_avoid(&s);
        assert_eq!(f.c.cwnd(), 50);
    }

    #[test]
    fn rto_sets_one_segment_and_reno_slow_start_in_loss() {
        let mut f = flow_in_ca(100, 20_000);
        f.c.on_rto(f.now, 0, f.una, f.nxt);
        // ssthresh = 100/2 = 50, cwnd = in-flight + 1 = 1; Vegas off in Loss, so every
        // ACK is Reno slow start: +1.
        assert_eq!((f.c.cwnd(), f.c.ssthresh()), (1, 50));
        f.ack(1, 20_000, SimTime::from_ms(1));
        f.ack(1, 20_000, SimTime::from_ms(1));
        assert_eq!(f.c.cwnd(), 3);
    }

    #[test]
    fn tx_start_after_idle_forgets_base_rtt() {
        let mut f = flow_in_ca(100, 20_000);
        assert_eq!(f.c.metrics()[0].1, 20_001.0);
        f.c.event(
            CwndEvent::TxStart {
                idle: SimTime::from_secs(2),
            },
            f.now,
        );
        assert!(f.c.metrics()[0].1.is_nan());
        f.ack(1, 30_000, SimTime::from_ms(1));
        assert_eq!(f.c.metrics()[0].1, 30_001.0);
    }
}
