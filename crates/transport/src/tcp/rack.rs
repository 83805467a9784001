//! RACK-TLP (RFC 8985) as Linux runs it (`net/ipv4/tcp_recovery.c`, `tcp_output.c`
//! `tcp_schedule_loss_probe` / `tcp_send_loss_probe`, `tcp_input.c` `tcp_process_tlp_ack`).
//!
//! **RACK** marks a segment lost by time rather than by counting duplicate ACKs: once a
//! segment sent *later* has been delivered (cumulatively ACKed or SACKed), an earlier one
//! still outstanding is lost when more than `RACK.rtt + reo_wnd` has passed since it was
//! sent. [`RackState::advance`] keeps the most recently *sent* delivered segment
//! (`RACK.xmit_time`, `RACK.end_seq`) and its RTT; the walk over the outstanding segments
//! lives with the scoreboard ([`super::scoreboard::Scoreboard::rack_detect_loss`]).
//!
//! The reordering window is Linux's `tcp_rack_reo_wnd`: zero while no reordering has been
//! seen and either the connection is in recovery or at least `reordering` segments are
//! SACKed (so RACK then behaves like the duplicate-ACK threshold); otherwise
//! min_rtt/4 × `reo_wnd_steps`, capped at SRTT. D-SACKs widen it one step per round trip
//! (`tcp_rack_update_reo_wnd`); after 16 recoveries without a D-SACK it falls back to one
//! step.
//!
//! **TLP** sends one probe when the connection, in Open or CWR with SACK, has heard no ACK
//! for a probe timeout PTO = 2·SRTT (+ 2 ms, or + the minimum RTO when a single segment is
//! outstanding, for a delayed ACK), bounded by the time left to the RTO. The probe is new
//! data when the window allows, else a retransmission of the last segment. When the ACK
//! reaches the probe's `tlp_high_seq`: a probe of new data, a D-SACK for the probe or a
//! pure duplicate ACK mean nothing was lost; otherwise the probe repaired a loss and the
//! window is reduced once (CWR, then settled at the new ssthresh).
//!
//! Simplifications:
//! - `RACK.rtt` is the RTT of the most recently sent delivered segment (RFC 8985 §6.2),
//!   where Linux keeps the RTT of the last segment its loop happened to visit.
//! - Linux's `tcp_check_sack_reordering` also raises `tp->reordering` (the duplicate-ACK
//!   threshold of the non-RACK path) up to `tcp_max_reordering`; we count reordering events
//!   (`reord_seen`) and raise `reordering` the same way, but keep it for RACK's choice of
//!   window and the RFC 6675 path only.
//! - The reordering timer and the probe timer are separate deadlines here; Linux shares
//!   one timer slot with the RTO. The RTO is re-armed from the probe as Linux does.

use mmtsim_engine::SimTime;

/// Linux `TCP_RACK_RECOVERY_THRESH`: recoveries before a widened window is forgotten.
pub const RACK_RECOVERY_THRESH: u8 = 16;
/// Linux `TCP_TIMEOUT_MIN` (2 jiffies at HZ = 1000): added to the probe timeout.
pub const TLP_MIN_SLACK: SimTime = SimTime::from_ms(2);
/// Linux `sysctl_tcp_max_reordering`.
pub const MAX_REORDERING: u32 = 300;
/// Linux `tcp_recovery` bit: RACK loss detection.
pub const RACK_LOSS_DETECTION: u8 = 0x1;
/// Linux `tcp_recovery` bit: never widen the reordering window on D-SACK.
pub const RACK_STATIC_REO_WND: u8 = 0x2;
/// Linux `tcp_recovery` bit: no zero window at `reordering` SACKed segments.
pub const RACK_NO_DUPTHRESH: u8 = 0x4;

/// What one ACK delivered, accumulated segment by segment by the scoreboard.
#[derive(Clone, Copy, Debug)]
pub struct Delivery {
    now: SimTime,
    min_rtt: SimTime,
    tsecr_ns: Option<SimTime>,
    high_seq: u64,
    /// The most recently sent delivered segment that may advance RACK: (sent_at, end).
    pub latest: Option<(SimTime, u64)>,
    /// A segment never retransmitted and ending at or below the recovery point was
    /// delivered (Linux `FLAG_ORIG_SACK_ACKED`: F-RTO's proof that not everything was lost).
    pub orig_acked: bool,
    /// Lowest start of a never-retransmitted segment delivered without having been SACKed
    /// before (a candidate for reordering below the highest SACK).
    pub reord_low: Option<u64>,
}

impl Delivery {
    /// An empty note for an ACK arriving at `now`. `tsecr_ns` is the echoed timestamp as a
    /// time (for Linux's `tcp_skb_spurious_retrans`), `high_seq` the recovery point.
    pub fn new(now: SimTime, min_rtt: SimTime, tsecr_ns: Option<SimTime>, high_seq: u64) -> Self {
        Delivery {
            now,
            min_rtt,
            tsecr_ns,
            high_seq,
            latest: None,
            orig_acked: false,
            reord_low: None,
        }
    }

    /// A segment [seq, end) sent (last) at `sent_at` was delivered by this ACK; `retrans`
    /// if it was ever retransmitted; `cumulative` if by the cumulative ACK.
    #[inline]
    pub fn note(&mut self, seq: u64, end: u64, sent_at: SimTime, retrans: bool, cumulative: bool) {
        if !retrans {
            if end <= self.high_seq {
                self.orig_acked = true;
            }
            self.reord_low = Some(self.reord_low.map_or(seq, |r| r.min(seq)));
        }
        if retrans {
            // tcp_rack_advance: a retransmitted segment delivered sooner than min_rtt after
            // its retransmission was the original, delayed: it says nothing of recent
            // sends. tcp_clean_rtx_queue also skips a cumulatively ACKed retransmission
            // whose echo predates it (tcp_skb_spurious_retrans).
            if self.now.saturating_sub(sent_at) < self.min_rtt {
                return;
            }
            if cumulative && self.tsecr_ns.is_some_and(|t| t < sent_at) {
                return;
            }
        }
        if self
            .latest
            .is_none_or(|(t, e)| sent_after(sent_at, t, end, e))
        {
            self.latest = Some((sent_at, end));
        }
    }
}

/// Linux `tcp_rack_sent_after`: sent later, or at the same time with a higher end.
#[inline]
pub fn sent_after(t1: SimTime, t2: SimTime, end1: u64, end2: u64) -> bool {
    t1 > t2 || (t1 == t2 && end1 > end2)
}

/// RACK's clock and reordering window.
#[derive(Clone, Debug)]
pub struct RackState {
    /// Send time of the most recently sent delivered segment (`RACK.xmit_time`).
    pub xmit_time: SimTime,
    /// Its end (`RACK.end_seq`).
    pub end_seq: u64,
    /// Its RTT (`RACK.rtt`).
    pub rtt: SimTime,
    /// A new delivery moved the clock since the last loss detection pass.
    pub advanced: bool,
    /// Multiplier of min_rtt/4 in the reordering window (`reo_wnd_steps`).
    pub reo_wnd_steps: u32,
    /// Recoveries left before a widened window falls back (`reo_wnd_persist`).
    pub reo_wnd_persist: u8,
    /// A D-SACK arrived since the window was last adjusted (`dsack_seen`).
    pub dsack_seen: bool,
    /// `tp->delivered` when the window was last widened (`last_delivered`).
    pub last_delivered: u64,
    /// Reordering events seen (`tp->reord_seen`).
    pub reord_seen: u32,
    /// Reordering degree, segments (`tp->reordering`; starts at `tcp_reordering` = 3).
    pub reordering: u32,
    /// Deadline of the reordering timer.
    pub reo_deadline: SimTime,
}

impl RackState {
    /// A fresh state; `reordering` is the initial duplicate-ACK threshold.
    pub fn new(reordering: u32) -> Self {
        RackState {
            xmit_time: SimTime::ZERO,
            end_seq: 0,
            rtt: SimTime::ZERO,
            advanced: false,
            reo_wnd_steps: 1,
            reo_wnd_persist: 0,
            dsack_seen: false,
            last_delivered: 0,
            reord_seen: 0,
            reordering,
            reo_deadline: SimTime::NEVER,
        }
    }

    /// Linux `tcp_rack_advance` with the latest delivery of one ACK.
    #[inline]
    pub fn advance(&mut self, d: &Delivery) {
        if let Some((sent_at, end)) = d.latest {
            self.advanced = true;
            self.rtt = d.now.saturating_sub(sent_at);
            if sent_after(sent_at, self.xmit_time, end, self.end_seq) {
                self.xmit_time = sent_at;
                self.end_seq = end;
            }
        }
    }

    /// Linux `tcp_check_sack_reordering`: a never-retransmitted segment starting at
    /// `low_seq` arrived below the highest SACKed sequence `fack`.
    #[inline]
    pub fn check_reordering(&mut self, low_seq: u64, fack: u64, mss: u32) {
        if low_seq >= fack {
            return;
        }
        let metric = fack - low_seq;
        if metric > self.reordering as u64 * mss as u64 {
            self.reordering = (metric.div_ceil(mss.max(1) as u64) as u32).min(MAX_REORDERING);
        }
        self.reord_seen += 1;
    }

    /// Linux `tcp_rack_reo_wnd`.
    pub fn reo_wnd(
        &self,
        in_recovery: bool,
        sacked_out: u32,
        recovery_flags: u8,
        min_rtt: SimTime,
        srtt: SimTime,
    ) -> SimTime {
        if self.reord_seen == 0 {
            if in_recovery {
                return SimTime::ZERO;
            }
            if sacked_out >= self.reordering && recovery_flags & RACK_NO_DUPTHRESH == 0 {
                return SimTime::ZERO;
            }
        }
        let base = if min_rtt == SimTime::NEVER {
            SimTime::ZERO
        } else {
            min_rtt
        };
        SimTime((base.ns() / 4) * self.reo_wnd_steps as u64).min(srtt)
    }

    /// Linux `tcp_rack_update_reo_wnd`, once per ACK with its rate sample's
    /// `prior_delivered` and the connection's `delivered`.
    #[inline]
    pub fn update_reo_wnd(&mut self, recovery_flags: u8, prior_delivered: u64, delivered: u64) {
        if recovery_flags & RACK_STATIC_REO_WND != 0 || prior_delivered == 0 {
            return;
        }
        // A D-SACK within a round trip of the last widening is not counted again.
        if prior_delivered < self.last_delivered {
            self.dsack_seen = false;
        }
        if self.dsack_seen {
            self.reo_wnd_steps = (self.reo_wnd_steps + 1).min(0xFF);
            self.dsack_seen = false;
            self.last_delivered = delivered;
            self.reo_wnd_persist = RACK_RECOVERY_THRESH;
        } else if self.reo_wnd_persist == 0 {
            self.reo_wnd_steps = 1;
        }
    }
}

/// Tail loss probe state.
#[derive(Clone, Copy, Debug, Default)]
pub struct TlpState {
    /// SND.NXT when the outstanding probe was sent (`tlp_high_seq`); 0 when none is.
    pub high_seq: u64,
    /// The outstanding probe was a retransmission (`tlp_retrans`).
    pub retrans: bool,
    /// When the probe timer fires (`SimTime::NEVER` when not armed).
    pub deadline: SimTime,
}

/// The probe timeout of Linux `tcp_schedule_loss_probe`: 2·SRTT plus 2 ms, or plus the
/// minimum RTO with a single segment outstanding (it may wait for a delayed ACK); 1 s
/// without an RTT sample; never later than `rto_left`.
#[inline]
pub fn probe_timeout(
    srtt: Option<SimTime>,
    packets_out: u32,
    min_rto: SimTime,
    rto_left: SimTime,
) -> SimTime {
    let pto = match srtt {
        Some(s) => {
            let slack = if packets_out == 1 {
                min_rto
            } else {
                TLP_MIN_SLACK
            };
            SimTime(2 * s.ns()) + slack
        }
        None => super::rtt::INITIAL_RTO,
    };
    if rto_left > SimTime::ZERO {
        pto.min(rto_left)
    } else {
        pto
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_ms(x)
    }

    #[test]
    fn probe_timeout_is_two_srtt_plus_slack_bounded_by_the_rto() {
        // SRTT 50 ms, 10 segments out: 2·50 + 2 = 102 ms; one segment: 2·50 + 200 = 300 ms,
        // but the RTO is due in 250 ms, so 250 ms; no sample yet: the initial 1 s.
        assert_eq!(probe_timeout(Some(ms(50)), 10, ms(200), ms(400)), ms(102));
        assert_eq!(probe_timeout(Some(ms(50)), 1, ms(200), ms(250)), ms(250));
        assert_eq!(
            probe_timeout(None, 3, ms(200), ms(0)),
            SimTime::from_secs(1)
        );
    }

    #[test]
    fn reordering_window_is_zero_in_recovery_until_reordering_is_seen() {
        // min_rtt 40 ms → one step is 10 ms; SRTT 30 ms caps the window.
        let mut r = RackState::new(3);
        assert_eq!(r.reo_wnd(true, 0, 1, ms(40), ms(30)), ms(0));
        assert_eq!(r.reo_wnd(false, 3, 1, ms(40), ms(30)), ms(0));
        assert_eq!(r.reo_wnd(false, 2, 1, ms(40), ms(30)), ms(10));
        // With TCP_RACK_NO_DUPTHRESH three SACKed segments do not zero it.
        assert_eq!(
            r.reo_wnd(false, 3, 1 | RACK_NO_DUPTHRESH, ms(40), ms(30)),
            ms(10)
        );
        r.check_reordering(1001, 5001, 1000);
        assert_eq!(r.reord_seen, 1);
        // 4000 B of reordering at MSS 1000 → degree 4.
        assert_eq!(r.reordering, 4);
        assert_eq!(r.reo_wnd(true, 0, 1, ms(40), ms(30)), ms(10));
        r.reo_wnd_steps = 5;
        assert_eq!(r.reo_wnd(true, 0, 1, ms(40), ms(30)), ms(30));
    }

    #[test]
    fn dsack_widens_the_window_once_per_round_trip() {
        let mut r = RackState::new(3);
        r.dsack_seen = true;
        r.update_reo_wnd(1, 10, 100);
        assert_eq!(
            (r.reo_wnd_steps, r.last_delivered, r.reo_wnd_persist),
            (2, 100, 16)
        );
        // A D-SACK for data sent before that widening (prior_delivered 50 < 100): ignored.
        r.dsack_seen = true;
        r.update_reo_wnd(1, 50, 120);
        assert_eq!(r.reo_wnd_steps, 2);
        // Static window: nothing changes.
        r.dsack_seen = true;
        r.update_reo_wnd(1 | RACK_STATIC_REO_WND, 130, 140);
        assert_eq!(r.reo_wnd_steps, 2);
    }

    #[test]
    fn advance_keeps_the_most_recently_sent_delivery_and_skips_ambiguous_retransmissions() {
        let mut r = RackState::new(3);
        // ACK at 100 ms delivers a segment sent at 60 ms (end 5001) and one sent at 40 ms.
        let mut d = Delivery::new(ms(100), ms(30), None, 0);
        d.note(4001, 5001, ms(60), false, false);
        d.note(1001, 2001, ms(40), false, false);
        r.advance(&d);
        assert_eq!((r.xmit_time, r.end_seq, r.rtt), (ms(60), 5001, ms(40)));
        // A retransmission sent 10 ms before the ACK (< min_rtt 30 ms) is ambiguous.
        let mut d = Delivery::new(ms(120), ms(30), None, 0);
        d.note(1, 1001, ms(110), true, false);
        assert!(d.latest.is_none());
        // Cumulatively ACKed retransmission whose echo (50 ms) predates it (70 ms): spurious.
        let mut d = Delivery::new(ms(120), ms(30), Some(ms(50)), 0);
        d.note(1, 1001, ms(70), true, true);
        assert!(d.latest.is_none());
    }

    #[test]
    fn only_never_retransmitted_segments_below_the_recovery_point_prove_orig_delivery() {
        let mut d = Delivery::new(ms(10), ms(1), None, 3001);
        d.note(1, 1001, ms(1), true, true);
        assert!(!d.orig_acked);
        d.note(3001, 4001, ms(1), false, false);
        assert!(!d.orig_acked, "above the recovery point");
        d.note(2001, 3001, ms(1), false, false);
        assert!(d.orig_acked);
        assert_eq!(d.reord_low, Some(2001));
    }
}
