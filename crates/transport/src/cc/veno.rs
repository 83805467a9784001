//! TCP Veno as Linux implements it (`net/ipv4/tcp_veno.c`), after Fu & Liew, "TCP Veno:
//! TCP enhancement for transmission over wireless access networks", IEEE JSAC 21(2), 2003.
//!
//! Veno is Reno whose two decisions look at Vegas's backlog estimate
//! `N = cwnd·(RTT − baseRTT)/RTT` (segments the flow keeps queued):
//! - RTT bookkeeping: every sample becomes `vrtt = rtt_us + 1`; `baseRTT` = min since init,
//!   `minRTT` = min since the previous `cong_avoid` call (Linux resets it on **every** call,
//!   so it is in effect the latest ACK's sample), `cntrtt` counts samples and, unlike
//!   Vegas, is never reset (the reset is commented out in Linux): only the first three
//!   samples of the connection fall back to Reno.
//! - On each `cong_avoid` (Open state, window-limited): `target = (cwnd·baseRTT << 1)/minRTT`
//!   and `diff = (cwnd << 1) − target` = 2N in half-segment fixed point
//!   (`V_PARAM_SHIFT` = 1); β = 3 segments = 6 in that unit.
//! - Growth: slow start as `tcp_slow_start`; then, if `diff < β` (not congested), Reno's
//!   +1 segment per cwnd segments ACKed (`tcp_cong_avoid_ai`); if congested, +1 only every
//!   **other** RTT: when `snd_cwnd_cnt` reaches cwnd the counter restarts and cwnd grows on
//!   alternate occasions (`inc` toggles). cwnd stays within [2, clamp].
//! - Loss (`ssthresh`): with the last `diff < β` the loss is taken as random (wireless):
//!   `max(cwnd·4/5, 2)`; otherwise congestive: `max(cwnd/2, 2)`.
//! - Veno runs only in Open (`set_state`; other states use Reno), and
//!   `CA_EVENT_TX_START` (sending after idle) re-initialises it, `baseRTT` included.
//!
//! Host differences and simplifications: RTT samples are the sender's (TSecr echo or Karn)
//! rather than Linux's `ca_rtt_us`; an ACK without a sample leaves `minRTT` at 0x7fffffff,
//! which makes `target` 0 and the state "congested" for that ACK, exactly as in Linux.
//! `cntrtt` keeps Linux's u16 width (it wraps after 65 536 samples, giving three more Reno
//! ACKs). No `undo_cwnd`. ns-3's `TcpVeno` resets `cntRtt` every call, so its additive
//! increase is plain NewReno (reference notes §14.2); Linux's is modelled here.

use super::newreno::NewReno;
use super::vegas::{rtt_us, NO_RTT_US};
use super::{AckSample, CaState, CongestionControl, CwndEvent, Window};
use mmtsim_engine::SimTime;

/// Fixed-point shift of Veno's `diff` and β (Linux `V_PARAM_SHIFT`).
const V_PARAM_SHIFT: u32 = 1;

/// Veno parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct VenoParams {
    /// Backlog (segments) at or above which the path counts as congested (Linux: the
    /// constant `beta = 3 << V_PARAM_SHIFT`, i.e. 3 segments).
    pub beta: u32,
}

impl Default for VenoParams {
    fn default() -> Self {
        VenoParams { beta: 3 }
    }
}

/// TCP Veno state (Linux `struct veno`).
#[derive(Clone, Debug)]
pub struct Veno {
    /// β in half segments (`beta << V_PARAM_SHIFT`).
    beta_half: u32,
    /// Veno active (Open state) (Linux `doing_veno_now`).
    doing_veno_now: bool,
    /// RTT samples since init (Linux `cntrtt`, u16, never reset).
    cntrtt: u16,
    /// Min `rtt_us + 1` since the previous `cong_avoid`, µs (Linux `minrtt`).
    minrtt_us: u32,
    /// Min `rtt_us + 1` since init, µs (Linux `basertt`).
    basertt_us: u32,
    /// Grow on the next full window while congested (Linux `inc`).
    inc: bool,
    /// Backlog estimate 2N in half segments (Linux `diff`).
    diff: u32,
}

impl Veno {
    /// A Veno instance.
    pub fn new(p: VenoParams) -> Self {
        let mut v = Veno {
            beta_half: p.beta << V_PARAM_SHIFT,
            doing_veno_now: false,
            cntrtt: 0,
            minrtt_us: NO_RTT_US,
            basertt_us: NO_RTT_US,
            inc: true,
            diff: 0,
        };
        v.reinit();
        v
    }

    /// Linux `tcp_veno_init` (the struct is zeroed once at socket creation, so `cntrtt`
    /// and `diff` survive a re-init).
    fn reinit(&mut self) {
        self.basertt_us = NO_RTT_US;
        self.inc = true;
        self.enable();
    }

    /// Linux `veno_enable`.
    fn enable(&mut self) {
        self.doing_veno_now = true;
        self.minrtt_us = NO_RTT_US;
    }

    /// Backlog estimate N = cwnd·(RTT − baseRTT)/RTT of the latest computation, segments.
    pub fn backlog(&self) -> f64 {
        self.diff as f64 / (1u32 << V_PARAM_SHIFT) as f64
    }

    /// True if the latest backlog estimate says the path is congested (N ≥ β).
    pub fn congested(&self) -> bool {
        self.diff >= self.beta_half
    }
}

impl CongestionControl for Veno {
    fn name(&self) -> &'static str {
        "veno"
    }

    fn init(&mut self, _w: &mut Window, _now: SimTime) {
        self.reinit();
    }

    fn pkts_acked(&mut self, _w: &mut Window, s: &AckSample) {
        let Some(rtt) = s.rtt else { return };
        let vrtt = rtt_us(rtt) + 1;
        self.basertt_us = self.basertt_us.min(vrtt);
        self.minrtt_us = self.minrtt_us.min(vrtt);
        self.cntrtt = self.cntrtt.wrapping_add(1);
    }

    fn cong_avoid(&mut self, w: &mut Window, s: &AckSample) {
        if !self.doing_veno_now {
            NewReno.cong_avoid(w, s);
            return;
        }
        if !s.cwnd_limited {
            return;
        }
        if self.cntrtt <= 2 {
            // Not enough samples yet to estimate the backlog.
            NewReno.cong_avoid(w, s);
        } else {
            let target =
                ((w.cwnd as u64 * self.basertt_us as u64) << V_PARAM_SHIFT) / self.minrtt_us as u64;
            self.diff = (w.cwnd << V_PARAM_SHIFT).wrapping_sub(target as u32);
            let mut acked = s.acked;
            if w.in_slow_start() {
                acked = w.slow_start(acked);
            }
            if acked > 0 {
                if self.diff < self.beta_half {
                    // Not congested: Reno, +1 per RTT.
                    let cwnd = w.cwnd;
                    w.cong_avoid_ai(cwnd, acked);
                } else if w.cwnd_cnt >= w.cwnd {
                    // Congested: +1 every other RTT.
                    if self.inc && w.cwnd < w.cwnd_clamp {
                        w.cwnd += 1;
                        self.inc = false;
                    } else {
                        self.inc = true;
                    }
                    w.cwnd_cnt = 0;
                } else {
                    w.cwnd_cnt += acked;
                }
            }
            w.cwnd = w.cwnd.clamp(2, w.cwnd_clamp.max(2));
        }
        self.minrtt_us = NO_RTT_US;
    }

    fn ssthresh(&mut self, w: &Window) -> u32 {
        if self.diff < self.beta_half {
            // Backlog below β: the loss is probably not congestion; cut by 1/5 only.
            (w.cwnd * 4 / 5).max(2)
        } else {
            (w.cwnd >> 1).max(2)
        }
    }

    fn set_state(&mut self, _w: &mut Window, state: CaState) {
        if state == CaState::Open {
            self.enable();
        } else {
            self.doing_veno_now = false;
        }
    }

    fn cwnd_event(&mut self, _w: &mut Window, ev: CwndEvent, _now: SimTime) {
        if matches!(ev, CwndEvent::TxStart { .. }) {
            self.reinit();
        }
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        let base = if self.basertt_us == NO_RTT_US {
            f64::NAN
        } else {
            self.basertt_us as f64
        };
        vec![
            ("base_rtt_us", base),
            ("backlog", self.backlog()),
            ("congested", self.congested() as u8 as f64),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::vegas::harness::Flow;
    use super::super::CcParams;
    use super::*;

    fn veno() -> CcParams {
        CcParams::Veno(VenoParams::default())
    }

    /// A flow at `cwnd` in congestion avoidance (ssthresh cwnd/2) past its first three
    /// samples, with baseRTT = 20 000 µs + 1 and cwnd_cnt = 0.
    fn flow_in_ca(cwnd: u32) -> Flow {
        let mut f = Flow::new(&veno(), cwnd);
        f.c.w.ssthresh = cwnd / 2;
        for _ in 0..3 {
            f.ack(1, 20_000, SimTime::from_us(100));
        }
        f.c.w.cwnd_cnt = 0;
        assert_eq!(f.c.cwnd(), cwnd);
        f
    }

    #[test]
    fn slow_start_doubles_per_round() {
        // The first three samples use Reno, the rest Veno's slow start: both +1 per ACK.
        let mut f = Flow::new(&veno(), 10);
        f.round(20_000);
        assert_eq!(f.c.cwnd(), 20);
        f.round(20_000);
        assert_eq!(f.c.cwnd(), 40);
    }

    #[test]
    fn uncongested_growth_is_reno_one_segment_per_rtt() {
        // RTT = baseRTT: target = (100·20001·2)/20001 = 200, diff = 200 − 200 = 0 < 6.
        // tcp_cong_avoid_ai(100, 1): +1 after 100 ACKs.
        let mut f = flow_in_ca(100);
        for _ in 0..99 {
            f.ack(1, 20_000, SimTime::from_us(200));
        }
        assert_eq!(f.c.cwnd(), 100);
        f.ack(1, 20_000, SimTime::from_us(200));
        assert_eq!(f.c.cwnd(), 101);
        assert_eq!(f.c.metrics()[1], ("backlog", 0.0));
    }

    #[test]
    fn congested_growth_is_one_segment_every_other_rtt() {
        // RTT 22 ms: vrtt 22001, target = 100·20001·2/22001 = 4000200/22001 = 181 (181.8),
        // diff = 200 − 181 = 19 ≥ 6 ⇒ congested (N = 9.5 segments).
        // snd_cwnd_cnt counts ACKs while < cwnd; the ACK that finds it ≥ cwnd restarts it
        // without adding its own: +1 on the 101st ACK (inc: 1 → 0), nothing on the 102nd
        // after that (inc: 0 → 1), +1 again 102 ACKs later.
        let mut f = flow_in_ca(100);
        for _ in 0..100 {
            f.ack(1, 22_000, SimTime::from_us(200));
        }
        assert_eq!(f.c.cwnd(), 100);
        f.ack(1, 22_000, SimTime::from_us(200));
        assert_eq!(f.c.cwnd(), 101);
        assert_eq!(f.c.metrics()[1], ("backlog", 9.5));
        // After the reset the counter must reach 101 (101 ACKs), then the 102nd toggles.
        for _ in 0..102 {
            f.ack(1, 22_000, SimTime::from_us(200));
        }
        assert_eq!(f.c.cwnd(), 101, "no growth in the in-between round");
        // cwnd 101, diff = 202 − (101·20001·2/22001 = 183.6 → 183) = 19: still congested.
        for _ in 0..101 {
            f.ack(1, 22_000, SimTime::from_us(200));
        }
        assert_eq!(f.c.cwnd(), 101);
        f.ack(1, 22_000, SimTime::from_us(200));
        assert_eq!(f.c.cwnd(), 102);
    }

    #[test]
    fn backlog_threshold_is_three_segments() {
        // cwnd 100, baseRTT 20001. diff = 200 − 4000200/vrtt:
        //   rtt 20600 µs (vrtt 20601): 4000200/20601 = 194 (194.2) → diff 6 = β ⇒ congested
        //   rtt 20500 µs (vrtt 20501): 4000200/20501 = 195 (195.1) → diff 5 < β ⇒ not
        for (rtt, congested) in [(20_600, 1.0), (20_500, 0.0)] {
            let mut f = flow_in_ca(100);
            f.ack(1, rtt, SimTime::from_us(200));
            assert_eq!(f.c.metrics()[2], ("congested", congested), "rtt {rtt}");
        }
    }

    #[test]
    fn loss_cut_depends_on_the_backlog() {
        // Not congested: 100·4/5 = 80. Congested: 100/2 = 50. Tiny window: max(2·4/5 = 1, 2).
        let mut f = flow_in_ca(100);
        f.ack(1, 20_000, SimTime::from_us(200));
        f.c.enter_recovery(f.nxt);
        assert_eq!(f.c.ssthresh(), 80);

        let mut f = flow_in_ca(100);
        f.ack(1, 22_000, SimTime::from_us(200));
        f.c.enter_recovery(f.nxt);
        assert_eq!(f.c.ssthresh(), 50);

        let mut v = Veno::new(VenoParams::default());
        assert_eq!(v.ssthresh(&Window::new(2)), 2);
    }

    #[test]
    fn rto_cuts_by_the_backlog_rule_and_reno_runs_in_loss() {
        // Congested at the time of the RTO: ssthresh = 100/2 = 50, cwnd 1; in Loss Veno is
        // off, so Reno slow start: +1 per ACK regardless of the (high) RTT.
        let mut f = flow_in_ca(100);
        f.ack(1, 22_000, SimTime::from_us(200));
        f.c.on_rto(f.now, 0, f.una, f.nxt);
        assert_eq!((f.c.cwnd(), f.c.ssthresh()), (1, 50));
        f.ack(1, 40_000, SimTime::from_ms(1));
        f.ack(1, 40_000, SimTime::from_ms(1));
        assert_eq!(f.c.cwnd(), 3);
    }

    #[test]
    fn first_three_samples_use_reno_and_min_rtt_is_per_ack() {
        // cntrtt is 1 and 2 at the first two ACKs (≤ 2 ⇒ Reno, no backlog computed) and 3
        // at the third, where Veno starts. A third sample far above baseRTT shows it:
        // target = 100·20001·2/40001 = 4000200/40001 = 100, diff = 200 − 100 = 100, N = 50.
        // The next ACK at baseRTT sees only its own sample (minRTT is reset on every call):
        // N = 0.
        let mut f = Flow::new(&veno(), 100);
        f.c.w.ssthresh = 50;
        f.ack(1, 20_000, SimTime::from_us(200));
        f.ack(1, 20_000, SimTime::from_us(200));
        assert_eq!(f.c.metrics()[1], ("backlog", 0.0));
        f.ack(1, 40_000, SimTime::from_us(200));
        assert_eq!(f.c.metrics()[1], ("backlog", 50.0));
        f.ack(1, 20_000, SimTime::from_us(200));
        assert_eq!(f.c.metrics()[1], ("backlog", 0.0));
    }
}
