//! Westwood+ as Linux implements it (`net/ipv4/tcp_westwood.c`), after Mascolo et al.,
//! "TCP Westwood: bandwidth estimation for TCP", MobiCom 2001, and Grieco & Mascolo,
//! "Performance evaluation and comparison of Westwood+, New Reno, and Vegas TCP congestion
//! control", ACM CCR 34(2), 2004.
//!
//! Window growth is plain Reno; what changes is the window after a loss, which is set from
//! an end-to-end bandwidth estimate instead of being halved. Linux units are kept: time in
//! jiffies of 1 ms (HZ = 1000), bandwidth in bytes per jiffy, integer arithmetic.
//! - Every ACK adds the bytes it delivered to `bk`. When more than `max(RTT, 50 ms)`
//!   (`TCP_WESTWOOD_RTT_MIN` = HZ/20) has passed since the sampling window opened, the
//!   sample `bk/Δt` goes through two cascaded 7/8 low-pass filters (`westwood_filter`):
//!   `bw_ns_est = (7·bw_ns_est + bk/Δt)/8`, `bw_est = (7·bw_est + bw_ns_est)/8` (the first
//!   sample fills both). This once-per-RTT sampling is what makes it Westwood**+**.
//! - `RTT` is the latest sample, rounded up to jiffies (`usecs_to_jiffies`); `rtt_min` is
//!   its running minimum, restarted from the next sample after an RTO.
//! - `BWE·RTTmin = max(bw_est·rtt_min/MSS, 2)` segments (`tcp_westwood_bw_rttmin`).
//! - Fast recovery: entering it halves as Reno (`.ssthresh = tcp_reno_ssthresh`); when the
//!   reduction completes (`CA_EVENT_COMPLETE_CWR`) ssthresh **and cwnd** become BWE·RTTmin.
//! - RTO (`CA_EVENT_LOSS`): ssthresh = BWE·RTTmin (cwnd restarts from one segment as for
//!   any algorithm) and `rtt_min` restarts.
//! - Before the first ACK the RTT is taken as 20 s (`TCP_WESTWOOD_INIT_RTT`), so no window
//!   closes until a real sample arrives.
//!
//! Simplification (accounting of delivered bytes): Linux counts `bk` from SND.UNA in the
//! header-prediction fast path and, in the slow path, counts each duplicate ACK as one MSS
//! and subtracts those MSSs from the cumulative ACK that later covers them
//! (`westwood_acked_count`). Our [`AckSample`] already says what each ACK delivered —
//! `acked_bytes`, SACKed segments included, each byte counted once — so `bk` adds
//! `acked_bytes` on every ACK. The totals per window agree with Linux whenever duplicate
//! ACKs each stand for one full segment; they differ only in which window a duplicate
//! ACK's bytes fall (Linux: when the dupACK arrives, at one MSS even for a short segment;
//! here: when the ACK reports the SACK). An ACK that delivers nothing and carries no RTT
//! sample does not reach the algorithm at all (`pkts_acked` is not called), where Linux
//! would count it as one MSS.
//!
//! `init` runs when our sender is created, one handshake RTT before Linux's
//! establishment-time `init`, so the first sampling window also spans the handshake (its
//! first bandwidth sample is lower by about one RTT's share; the filters absorb it).
//!
//! Order per ACK: as in the Linux tree of the reference notes, `tcp_in_ack_event` runs
//! after `tcp_clean_rtx_queue` (which calls `pkts_acked`), so the ACK's own RTT sample is
//! used for the window length and `rtt_min`. Older kernels ran the ACK event first (one ACK
//! of lag). Integer products are taken in 64 bits (Linux's u32 `bw_est·rtt_min` wraps
//! only beyond a 4 GB BDP). No `undo_cwnd`.
//!
//! ns-3's `TcpWestwoodPlus` differs in estimator (segments over SRTT every RTT), filter
//! (Tustin), and applies BWE·RTTmin at recovery entry (reference notes §9.2).

use super::newreno::NewReno;
use super::{AckSample, CongestionControl, CwndEvent, Window};
use mmtsim_engine::SimTime;

/// Jiffies per second (HZ), the common Linux configuration.
const HZ: u64 = 1000;
/// Shortest bandwidth-sampling window, jiffies (Linux `TCP_WESTWOOD_RTT_MIN` = HZ/20).
const TCP_WESTWOOD_RTT_MIN: u64 = HZ / 20;
/// RTT assumed before the first sample, jiffies (Linux `TCP_WESTWOOD_INIT_RTT` = 20·HZ).
const TCP_WESTWOOD_INIT_RTT: u64 = 20 * HZ;

/// Westwood+ parameters. Linux has no module parameters; the constants are exposed so that
/// sweeps can vary them.
#[derive(Clone, Debug, PartialEq)]
pub struct WestwoodParams {
    /// Shortest bandwidth-sampling window (Linux `TCP_WESTWOOD_RTT_MIN`, 50 ms).
    pub rtt_min_window: SimTime,
}

impl Default for WestwoodParams {
    fn default() -> Self {
        WestwoodParams {
            rtt_min_window: SimTime::from_ms(TCP_WESTWOOD_RTT_MIN * 1000 / HZ),
        }
    }
}

fn jiffies(t: SimTime) -> u64 {
    t.ns() / (1_000_000_000 / HZ)
}

/// Linux `usecs_to_jiffies`: rounds up.
fn rtt_jiffies(rtt: SimTime) -> u64 {
    (rtt.ns() / 1_000).div_ceil(1_000_000 / HZ)
}

/// Westwood+ state (Linux `struct westwood`).
#[derive(Clone, Debug)]
pub struct Westwood {
    /// Shortest sampling window, jiffies.
    win_min_j: u64,
    /// Lightly filtered bandwidth, bytes per jiffy (Linux `bw_ns_est`).
    bw_ns_est: u64,
    /// Bandwidth estimate, bytes per jiffy (Linux `bw_est`).
    bw_est: u64,
    /// Start of the current sampling window, jiffies (Linux `rtt_win_sx`).
    rtt_win_sx: u64,
    /// Bytes delivered in the current sampling window (Linux `bk`).
    bk: u64,
    /// Latest RTT sample, jiffies (Linux `rtt`).
    rtt_j: u64,
    /// Minimum RTT, jiffies (Linux `rtt_min`).
    rtt_min_j: u64,
    /// Take the next RTT as the new minimum (Linux `reset_rtt_min`).
    reset_rtt_min: bool,
    /// MSS of the latest ACK, bytes (Linux `mss_cache`).
    mss: u32,
}

impl Westwood {
    /// A Westwood+ instance.
    pub fn new(p: WestwoodParams) -> Self {
        let win_min_j = jiffies(p.rtt_min_window);
        let mut w = Westwood {
            win_min_j,
            bw_ns_est: 0,
            bw_est: 0,
            rtt_win_sx: 0,
            bk: 0,
            rtt_j: 0,
            rtt_min_j: 0,
            reset_rtt_min: true,
            mss: 1448,
        };
        w.reinit(SimTime::ZERO);
        w
    }

    /// Linux `tcp_westwood_init`.
    fn reinit(&mut self, now: SimTime) {
        self.bk = 0;
        self.bw_ns_est = 0;
        self.bw_est = 0;
        self.reset_rtt_min = true;
        self.rtt_min_j = TCP_WESTWOOD_INIT_RTT;
        self.rtt_j = TCP_WESTWOOD_INIT_RTT;
        self.rtt_win_sx = jiffies(now);
    }

    /// Bandwidth estimate, bytes per second.
    pub fn bw_est_bytes_per_s(&self) -> u64 {
        self.bw_est * HZ
    }

    /// Minimum RTT as Westwood+ sees it, in jiffies of 1 ms.
    pub fn rtt_min_ms(&self) -> u64 {
        self.rtt_min_j
    }

    /// Linux `tcp_westwood_bw_rttmin`: BWE·RTTmin in segments, at least 2.
    pub fn bw_rttmin(&self) -> u32 {
        let segs = self.bw_est * self.rtt_min_j / self.mss.max(1) as u64;
        segs.clamp(2, u32::MAX as u64) as u32
    }

    /// Linux `westwood_filter`.
    fn filter(&mut self, delta_j: u64) {
        let sample = self.bk / delta_j;
        if self.bw_ns_est == 0 && self.bw_est == 0 {
            self.bw_ns_est = sample;
            self.bw_est = sample;
        } else {
            self.bw_ns_est = (7 * self.bw_ns_est + sample) >> 3;
            self.bw_est = (7 * self.bw_est + self.bw_ns_est) >> 3;
        }
    }

    /// Linux `westwood_update_window`: close the sampling window if it is long enough.
    fn update_window(&mut self, now: SimTime) {
        let now_j = jiffies(now);
        let delta = now_j.saturating_sub(self.rtt_win_sx);
        if self.rtt_j != 0 && delta > self.rtt_j.max(self.win_min_j) {
            self.filter(delta);
            self.bk = 0;
            self.rtt_win_sx = now_j;
        }
    }

    /// Linux `update_rtt_min`.
    fn update_rtt_min(&mut self) {
        if self.reset_rtt_min {
            self.rtt_min_j = self.rtt_j;
            self.reset_rtt_min = false;
        } else {
            self.rtt_min_j = self.rtt_min_j.min(self.rtt_j);
        }
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn init(&mut self, _w: &mut Window, now: SimTime) {
        self.reinit(now);
    }

    fn pkts_acked(&mut self, _w: &mut Window, s: &AckSample) {
        // Linux tcp_westwood_pkts_acked: only positive samples.
        if let Some(rtt) = s.rtt {
            if rtt.ns() >= 1_000 {
                self.rtt_j = rtt_jiffies(rtt);
            }
        }
        // Linux tcp_westwood_ack (in_ack_event), with the delivered bytes of the sample
        // instead of the fast/slow-path accounting (see the module doc).
        self.mss = s.mss;
        self.update_window(s.now);
        self.bk += s.acked_bytes;
        self.update_rtt_min();
    }

    fn cong_avoid(&mut self, w: &mut Window, s: &AckSample) {
        NewReno.cong_avoid(w, s);
    }

    fn ssthresh(&mut self, w: &Window) -> u32 {
        (w.cwnd >> 1).max(2)
    }

    fn cwnd_event(&mut self, w: &mut Window, ev: CwndEvent, _now: SimTime) {
        match ev {
            CwndEvent::CompleteCwr => {
                w.ssthresh = self.bw_rttmin();
                w.cwnd = w.ssthresh.min(w.cwnd_clamp);
            }
            CwndEvent::Loss => {
                w.ssthresh = self.bw_rttmin();
                self.reset_rtt_min = true;
            }
            CwndEvent::TxStart { .. } => {}
        }
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("bw_est_bps", self.bw_est_bytes_per_s() as f64 * 8.0),
            ("rtt_min_ms", self.rtt_min_j as f64),
            ("bw_rttmin", self.bw_rttmin() as f64),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::{CcParams, Controller};
    use super::*;

    fn westwood() -> CcParams {
        CcParams::Westwood(WestwoodParams::default())
    }

    /// One ACK at `t_us` delivering `bytes` with RTT `rtt_us`, MSS 1000.
    fn ack(c: &mut Controller, t_us: u64, bytes: u64, rtt_us: Option<u64>) {
        let mut s = AckSample::simple(
            SimTime::from_us(t_us),
            bytes.div_ceil(1000) as u32,
            rtt_us.map(SimTime::from_us),
        );
        s.acked_bytes = bytes;
        s.mss = 1000;
        c.on_ack(&s);
    }

    /// 10 000 bytes every millisecond from t = 1 ms to `until_ms` with a 20 ms RTT: a
    /// delivery rate of 10 000 bytes per jiffy (80 Mbit/s).
    fn steady(c: &mut Controller, from_ms: u64, until_ms: u64) {
        for k in from_ms..=until_ms {
            ack(c, k * 1000, 10_000, Some(20_000));
        }
    }

    #[test]
    fn bandwidth_is_sampled_once_per_window_and_filtered_twice() {
        // init at t = 0 (rtt_win_sx = 0). The window closes when Δ > max(RTT = 20, 50),
        // i.e. at the ACK of t = 51 ms, before that ACK's bytes are added: ACKs 1..50
        // ⇒ bk = 500 000, sample = 500 000/51 = 9803 bytes/jiffy, which fills both
        // filters. Next close at 51 + 51 = 102 ms with ACKs 51..101 = 510 000 bytes:
        // sample = 10 000; bw_ns = (7·9803 + 10000)/8 = 78621/8 = 9827;
        // bw_est = (7·9803 + 9827)/8 = 78448/8 = 9806.
        let mut c = Controller::new(&westwood(), 10, SimTime::ZERO);
        steady(&mut c, 1, 50);
        assert_eq!(c.metrics()[0].1, 0.0, "no window closed before Δ > 50 ms");
        steady(&mut c, 51, 51);
        assert_eq!(c.metrics()[0].1, 9803.0 * 1000.0 * 8.0);
        steady(&mut c, 52, 102);
        assert_eq!(c.metrics()[0].1, 9806.0 * 1000.0 * 8.0);
        // rtt_min: the first ACK's own sample (20 ms) — after a reset it is taken as is.
        assert_eq!(c.metrics()[1].1, 20.0);
    }

    #[test]
    fn long_rtt_stretches_the_sampling_window() {
        // RTT 100 ms > 50 ms: the first window closes at Δ > 100, i.e. at t = 101 ms with
        // ACKs 1..100 = 1 000 000 bytes: 1 000 000/101 = 9900 bytes/jiffy.
        let mut c = Controller::new(&westwood(), 10, SimTime::ZERO);
        for k in 1..=100 {
            ack(&mut c, k * 1000, 10_000, Some(100_000));
        }
        assert_eq!(c.metrics()[0].1, 0.0);
        ack(&mut c, 101_000, 10_000, Some(100_000));
        assert_eq!(c.metrics()[0].1, 9900.0 * 8000.0);
    }

    #[test]
    fn rtt_is_rounded_up_to_jiffies() {
        // usecs_to_jiffies(19 001 µs) = 20 jiffies.
        let mut c = Controller::new(&westwood(), 10, SimTime::ZERO);
        ack(&mut c, 1000, 1000, Some(19_001));
        assert_eq!(c.metrics()[1].1, 20.0);
        ack(&mut c, 2000, 1000, Some(18_000));
        assert_eq!(c.metrics()[1].1, 18.0);
    }

    #[test]
    fn recovery_enters_as_reno_and_completes_at_bwe_times_rtt_min() {
        // Estimate as above: bw_est 9806 bytes/jiffy, rtt_min 20 jiffies, MSS 1000:
        // BWE·RTTmin = 9806·20/1000 = 196 segments (196.12).
        let mut c = Controller::new(&westwood(), 300, SimTime::ZERO);
        steady(&mut c, 1, 102);
        let cwnd = c.cwnd();
        c.enter_recovery(1);
        assert_eq!(c.ssthresh(), cwnd / 2, "tcp_reno_ssthresh at entry");
        c.set_cwnd(150);
        c.exit_recovery(SimTime::from_ms(103));
        assert_eq!((c.cwnd(), c.ssthresh()), (196, 196));
    }

    #[test]
    fn rto_sets_ssthresh_to_bwe_times_rtt_min_and_restarts_rtt_min() {
        let mut c = Controller::new(&westwood(), 300, SimTime::ZERO);
        steady(&mut c, 1, 102);
        c.on_rto(SimTime::from_ms(103), 0, 0, 100);
        assert_eq!((c.cwnd(), c.ssthresh()), (1, 196));
        // rtt_min restarts from the next sample, even a larger one.
        ack(&mut c, 104_000, 1000, Some(30_000));
        assert_eq!(c.metrics()[1].1, 30.0);
        // Reno slow start in Loss: cwnd 1 → 2.
        assert_eq!(c.cwnd(), 2);
    }

    #[test]
    fn without_an_estimate_the_floor_is_two_segments() {
        let mut c = Controller::new(&westwood(), 40, SimTime::ZERO);
        ack(&mut c, 1000, 1000, Some(20_000));
        c.on_rto(SimTime::from_ms(2), 0, 0, 10);
        assert_eq!(c.ssthresh(), 2);
    }

    #[test]
    fn sacked_bytes_count_when_reported() {
        // A duplicate ACK that SACKs 3 segments (acked_bytes 3000, no RTT sample) adds its
        // 3000 bytes to the window in which it arrives. (Linux would count that dupACK as
        // one MSS now and the other 2000 bytes with the cumulative ACK that later covers
        // the SACKed data: same total, different window.)
        // ACKs of 1000 bytes at 1..=50 ms plus the SACK at 30.5 ms: bk = 53 000 when the
        // window closes at 51 ms (Δ = 51 > 50): 53 000/51 = 1039 bytes/jiffy (1039.2).
        let mut c = Controller::new(&westwood(), 10, SimTime::ZERO);
        for k in 1..=50 {
            ack(&mut c, k * 1000, 1000, Some(20_000));
            if k == 30 {
                ack(&mut c, 30_500, 3000, None);
            }
        }
        ack(&mut c, 51_000, 1000, Some(20_000));
        assert_eq!(c.metrics()[0].1, 1039.0 * 8000.0);
    }

    #[test]
    fn growth_is_reno() {
        // Slow start: IW 10 + 10 ACKs = 20; congestion avoidance at 20: +1 after 20 ACKs.
        let mut c = Controller::new(&westwood(), 10, SimTime::ZERO);
        for k in 1..=10 {
            ack(&mut c, k * 100, 1000, Some(20_000));
        }
        assert_eq!(c.cwnd(), 20);
        c.w.ssthresh = 20;
        for k in 11..=29 {
            ack(&mut c, k * 100, 1000, Some(20_000));
        }
        assert_eq!(c.cwnd(), 20);
        ack(&mut c, 3000, 1000, Some(20_000));
        assert_eq!(c.cwnd(), 21);
    }
}
