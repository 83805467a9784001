//! X-TCP: cross-layer congestion control for uplink TCP over mmWave (seed 000,
//! Algorithm 1).
//!
//! On every ACK the algorithm
//! 1. takes the RTT sample ê_rtt and keeps its minimum rtt_min;
//! 2. reads from the UE's radio view ([`LinkView`]) the data rate the uplink grants
//!    offer, ê_datarate, and the SINR Γ;
//! 3. sets cwnd ← ê_datarate · rtt_min if Γ ≥ 0 dB and ê_rtt ≤ rtt_min + ε, and
//!    cwnd ← λ · ê_datarate · rtt_min otherwise (λ = 0.85, ε = 10 ms in the paper).
//!
//! # The data-rate estimate
//! The paper computes, from each grant's MCS and allocated OFDM symbols, the transport
//! block size — "the number of bytes that can be actually transmitted in each resource" —
//! and divides by the duration of the UE's slot, which in its variable-TTI frame is the
//! time of the symbols allocated to the UE. Here each grant's rate is its TBS·8 over the
//! time of the resources it occupies, scaled to the slot's data region
//! ([`Grant::resource_rate_bps`](mmtsim_net::linkview::Grant::resource_rate_bps)): a
//! grant of 4 of 22 data symbols counts as 22/4 times its TBS per slot. The rate thus
//! depends on the channel (MCS) and not on how full the UE's buffer was when the grant was
//! sized, so a window that keeps the RLC buffer nearly empty does not talk its own
//! estimate down. ê_datarate is the mean of these rates over the grants of the last
//! `window` (default 10 ms; [`offered_rate_bps`](mmtsim_net::linkview::offered_rate_bps)), scaled by the share of a transport
//! block that is TCP payload: MSS / (MSS + `header_bytes`), where `header_bytes` (default
//! 60) counts TCP (20 + 12 timestamp option), IP (20), PDCP (3), RLC (3) and MAC (2)
//! headers. When the window holds no grant — a window of one segment is granted once per
//! RTT, longer than the averaging window — the most recent grant (up to 100 ms old) is the
//! estimate; before the first grant the window stays at its initial value (1 MSS, as in
//! the paper). A one-segment grant at MCS 28 thus lifts the window to the whole link's
//! rate × rtt_min on the first ACK.
//!
//! The estimate is what the whole data region would carry. With one UE in the cell that is
//! the link's rate, less the symbols the downlink (the flow's own ACKs) takes from the
//! TDD frame; with n UEs sharing a cell each X-TCP flow sees the whole cell's rate, not its
//! share, and the queue that builds is what the λ branch (RTT > rtt_min + ε) answers.
//! This is the paper's design ("X-TCP may be unfair to TCP CUBIC"), kept as is.

//! # Loss and timeouts
//! The paper sets cwnd on every ACK and says nothing of loss. Here:
//! - fast recovery keeps the sender's PRR (the window is not set during Recovery, as for
//!   every algorithm), with ssthresh = max(2, λ·ê_datarate·rtt_min);
//! - after an RTO the window restarts at 1 segment and the first ACK resets it from the
//!   radio estimate: this is what lets X-TCP refill the link at once after an outage
//!   (the paper's Fig. 4).
//!
//! # Deviations
//! - The paper's ns-3 module read the rate from the UE's MAC directly; here it comes
//!   through the read-only [`LinkView`] the RAN exports (the project's single
//!   cross-layer interface).
//! - The estimate is not defined by the paper beyond the sentences quoted above; the
//!   averaging window and the header count are our choices, both configurable. The
//!   paper divides by slot time; we divide by the time of the data region (control
//!   symbols excluded: 22 of 24 in the 2017 frame), because control symbols never carry
//!   the UE's data: dividing by the whole slot would set cwnd 24/22 = 9 % above what the
//!   link can carry and keep that excess queued in the RLC buffer.

use super::{AckSample, CongestionControl, Window};
use mmtsim_engine::SimTime;
use mmtsim_net::linkview::{payload_bdp_bytes, Direction, LinkView, OfferedRate};

/// X-TCP parameters (defaults: the paper's Table I and our documented choices).
#[derive(Clone, Debug, PartialEq)]
pub struct XtcpParams {
    /// Scaling factor λ when the SINR is below 0 dB or the RTT exceeds rtt_min + ε.
    pub lambda: f64,
    /// RTT margin ε.
    pub epsilon: SimTime,
    /// Averaging window of the grant rate.
    pub window: SimTime,
    /// Header bytes per segment between TCP payload and the transport block.
    pub header_bytes: u32,
    /// SINR threshold of the λ branch, dB (the paper: 0 dB).
    pub sinr_threshold_db: f64,
}

impl Default for XtcpParams {
    fn default() -> Self {
        XtcpParams {
            lambda: 0.85,
            epsilon: SimTime::from_ms(10),
            window: SimTime::from_ms(10),
            header_bytes: 60,
            sinr_threshold_db: 0.0,
        }
    }
}

/// X-TCP state.
#[derive(Clone, Debug)]
pub struct Xtcp {
    p: XtcpParams,
    /// ê_datarate of the grants (transport-block rate, before header scaling), bit/s.
    grant_rate: OfferedRate,
    sinr_db: f64,
    rtt_min: Option<SimTime>,
    /// The λ branch was taken on the last update.
    reduced: bool,
    /// The flow has read a radio view at least once.
    has_view: bool,
    /// Segment size of the last ACK sample.
    mss: u32,
    /// The last target and what it was computed from (rate bits, rtt_min, mss, λ
    /// branch): the ACKs of one transport block share them, and the float chain was a
    /// twentieth of an X-TCP run.
    memo: Option<(TargetKey, Option<u32>)>,
}

/// What X-TCP's window target is computed from: (rate bits, rtt_min, mss, λ branch).
type TargetKey = (u64, SimTime, u32, bool);

impl Xtcp {
    /// X-TCP with `p`.
    pub fn new(p: XtcpParams) -> Self {
        Xtcp {
            p,
            grant_rate: OfferedRate::default(),
            sinr_db: f64::NEG_INFINITY,
            rtt_min: None,
            reduced: false,
            has_view: false,
            mss: 1400,
            memo: None,
        }
    }

    /// cwnd in segments for rate × rtt_min (× λ when `reduced`), at least 1.
    fn target(&mut self, mss: u32, reduced: bool) -> Option<u32> {
        let (rate, rtt) = (self.grant_rate.rate_bps()?, self.rtt_min?);
        let key = (rate.to_bits(), rtt, mss, reduced);
        if let Some((_, t)) = self.memo.filter(|(k, _)| *k == key) {
            return t;
        }
        let k = if reduced { self.p.lambda } else { 1.0 };
        let bytes = k * payload_bdp_bytes(rate, mss, self.p.header_bytes, rtt);
        // `as` truncates toward zero and saturates, so for every float (negative and NaN
        // included) it gives what `floor` then `as` gives.
        let t = Some(((bytes / mss.max(1) as f64) as u32).max(1));
        self.memo = Some((key, t));
        t
    }
}

impl CongestionControl for Xtcp {
    fn name(&self) -> &'static str {
        "xtcp"
    }

    fn reads_link_view(&self) -> bool {
        true
    }

    fn link_view(&mut self, view: &dyn LinkView, now: SimTime) {
        self.has_view = true;
        self.sinr_db = view.sinr_db();
        self.grant_rate
            .update(view, Direction::Uplink, now, self.p.window);
    }

    fn pkts_acked(&mut self, _w: &mut Window, s: &AckSample) {
        self.mss = s.mss;
        if let Some(r) = s.rtt {
            self.rtt_min = Some(self.rtt_min.map_or(r, |m| m.min(r)));
        }
    }

    fn cong_avoid(&mut self, w: &mut Window, s: &AckSample) {
        let Some(rtt_min) = self.rtt_min else { return };
        // Without an RTT sample on this ACK, judge congestion by the smoothed RTT.
        let rtt = s.rtt.or(s.srtt).unwrap_or(rtt_min);
        let reduced = self.sinr_db < self.p.sinr_threshold_db || rtt > rtt_min + self.p.epsilon;
        if let Some(t) = self.target(s.mss, reduced) {
            self.reduced = reduced;
            w.cwnd = t.min(w.cwnd_clamp);
        }
    }

    fn ssthresh(&mut self, w: &Window) -> u32 {
        // The paper defines no loss reaction; PRR takes the window towards the λ target.
        self.target(self.mss, true)
            .map_or((w.cwnd / 2).max(2), |t| t.max(2))
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("datarate_bps", self.grant_rate.rate_bps().unwrap_or(0.0)),
            ("sinr_db", self.sinr_db),
            (
                "rtt_min_ms",
                self.rtt_min.map_or(f64::NAN, |r| r.secs_f64() * 1e3),
            ),
            ("lambda_branch", self.reduced as u8 as f64),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{CcParams, Controller};
    use mmtsim_net::linkview::Grant;

    struct View {
        grants: Vec<Grant>,
        sinr_db: f64,
    }
    impl LinkView for View {
        fn grants(&self, d: Direction) -> &[Grant] {
            if d == Direction::Uplink {
                &self.grants
            } else {
                &[]
            }
        }
        fn sinr_db(&self) -> f64 {
            self.sinr_db
        }
        fn rlc_buffer_bytes(&self, _d: Direction) -> u64 {
            0
        }
    }

    /// Grants of `tbs` bytes in every 100 µs slot up to `until_us`.
    fn view(tbs: u32, until_us: u64, sinr_db: f64) -> View {
        let slot = SimTime::from_us(100);
        View {
            grants: (1..=until_us / 100)
                .map(|i| Grant {
                    time: SimTime::from_us(100 * i),
                    tbs_bytes: tbs,
                    mcs: 28,
                    symbols: 22,
                    slot,
                    share: 1.0,
                    duty: 1.0,
                })
                .collect(),
            sinr_db,
        }
    }

    fn ack(now: SimTime, rtt_ms: u64) -> AckSample {
        let mut s = AckSample::simple(now, 1, Some(SimTime::from_ms(rtt_ms)));
        s.mss = 1400;
        s
    }

    #[test]
    fn starts_at_one_segment_and_jumps_to_rate_times_rtt_min() {
        let mut c = Controller::new(&CcParams::Xtcp(XtcpParams::default()), 1, SimTime::ZERO);
        assert_eq!(c.cwnd(), 1);
        // 12,500 B per 100 µs slot = 1 Gbit/s of transport blocks. Payload share
        // 1400/(1400+60) = 0.958904…; rtt_min 20 ms → 1e9·0.958904·0.02/8 = 2,397,260 B
        // → floor(2,397,260/1400) = 1712 segments.
        let now = SimTime::from_ms(50);
        let v = view(12_500, 50_000, 20.0);
        c.link_view(&v, now);
        c.on_ack(&ack(now, 20));
        assert_eq!(c.cwnd(), 1712);
    }

    #[test]
    fn low_sinr_or_queueing_takes_the_lambda_branch() {
        let now = SimTime::from_ms(50);
        // λ = 0.85: 0.85 · 2,397,260 = 2,037,671 B → 1455 segments.
        for (sinr, rtt2) in [(-1.0, 20), (20.0, 31)] {
            let mut c = Controller::new(&CcParams::Xtcp(XtcpParams::default()), 1, SimTime::ZERO);
            let v = view(12_500, 50_000, sinr);
            c.link_view(&v, now);
            c.on_ack(&ack(now, 20));
            // Second ACK: RTT 31 ms > rtt_min 20 + ε 10 → reduced, even at high SINR.
            c.on_ack(&ack(now, rtt2));
            assert_eq!(c.cwnd(), 1455, "sinr {sinr}, rtt {rtt2}");
        }
        // RTT exactly rtt_min + ε is not congestion.
        let mut c = Controller::new(&CcParams::Xtcp(XtcpParams::default()), 1, SimTime::ZERO);
        c.link_view(&view(12_500, 50_000, 20.0), now);
        c.on_ack(&ack(now, 20));
        c.on_ack(&ack(now, 30));
        assert_eq!(c.cwnd(), 1712);
    }

    #[test]
    fn the_window_follows_every_change_of_rate_rtt_min_and_branch() {
        // ACKs that go back and forth between the inputs: each window is the formula's
        // for the inputs of its own ACK (1 Gbit/s and 20 ms give 1712, see above).
        // 2 Gbit/s: 2·2,397,260.27 = 4,794,520.5 B → 3424; rtt_min 15 ms at 2 Gbit/s:
        // 3,595,890.4 B → 2568; its λ branch 0.85 · 3,595,890.4 = 3,056,506.8 B → 2183.
        // 1 Gbit/s at rtt_min 15 ms: 1,797,945.2 B → 1284.
        let mut c = Controller::new(&CcParams::Xtcp(XtcpParams::default()), 1, SimTime::ZERO);
        // (bytes per slot of the grants, instant in ms, RTT of the ACK in ms, window).
        let steps = [
            (12_500, 50, 20, 1712),
            (12_500, 50, 31, 1455),
            (12_500, 50, 20, 1712),
            (25_000, 60, 20, 3424),
            (25_000, 60, 15, 2568),
            (25_000, 60, 26, 2183),
            (25_000, 60, 15, 2568),
            (12_500, 70, 15, 1284),
        ];
        for (tbs, at_ms, rtt, want) in steps {
            let now = SimTime::from_ms(at_ms);
            c.link_view(&view(tbs, at_ms * 1000, 20.0), now);
            c.on_ack(&ack(now, rtt));
            assert_eq!(
                c.cwnd(),
                want,
                "{tbs} B per slot at {at_ms} ms, RTT {rtt} ms"
            );
        }
    }

    #[test]
    fn after_an_rto_the_first_ack_restores_the_radio_window() {
        let now = SimTime::from_ms(50);
        let mut c = Controller::new(&CcParams::Xtcp(XtcpParams::default()), 1, SimTime::ZERO);
        let v = view(12_500, 50_000, 20.0);
        c.link_view(&v, now);
        c.on_ack(&ack(now, 20));
        c.on_rto(now, 0, 0, 100);
        assert_eq!(c.cwnd(), 1);
        c.link_view(&v, now);
        c.on_ack(&ack(now, 20));
        assert_eq!(c.cwnd(), 1712);
    }

    #[test]
    fn grants_sized_to_a_small_buffer_give_the_same_window() {
        // Every slot grants 2 of 22 data symbols carrying 12,500·2/22 = 1136 B (a buffer
        // that is nearly empty): scaled to the data region that is 1136·8·22/(2·100 µs)
        // = 999.68 Mbit/s → 1e9-scale window 0.99968·2,397,260 = 2,396,493 B → 1711
        // segments, the same link as the full grants of the first test up to the TBS
        // rounding.
        let now = SimTime::from_ms(50);
        let mut v = view(1136, 50_000, 20.0);
        for g in &mut v.grants {
            g.symbols = 2;
            g.share = 2.0 / 22.0;
        }
        let mut c = Controller::new(&CcParams::Xtcp(XtcpParams::default()), 1, SimTime::ZERO);
        c.link_view(&v, now);
        c.on_ack(&ack(now, 20));
        assert_eq!(c.cwnd(), 1711);
    }

    #[test]
    fn a_fixed_tdd_uplink_is_rated_at_its_share_of_slots() {
        // The same grants as the first test, but in the one uplink slot of a DDDSU pattern
        // (duty 1/5): the link carries a fifth of 1 Gbit/s, so the window is
        // floor(0.2 · 2,397,260 / 1400) = floor(342.47) = 342 segments, not 1712.
        let now = SimTime::from_ms(50);
        let mut v = view(12_500, 50_000, 20.0);
        for g in &mut v.grants {
            g.duty = 0.2;
        }
        let mut c = Controller::new(&CcParams::Xtcp(XtcpParams::default()), 1, SimTime::ZERO);
        c.link_view(&v, now);
        c.on_ack(&ack(now, 20));
        assert_eq!(c.cwnd(), 342);
    }
}
