//! RACK's loss-detection pass over the scoreboard (RFC 8985 §6.2 step 5; Linux
//! `tcp_rack_detect_loss`).
//!
//! A segment is a candidate when it was sent before the RACK segment (earlier, or at the
//! same time with a lower end) and is neither SACKed nor already marked lost without a
//! retransmission in flight. A candidate is lost when `RACK.rtt + reo_wnd` has passed
//! since it was sent; otherwise it waits, and the pass returns the longest wait, for the
//! reordering timer. A lost retransmission loses its RETRANS mark (it is LOST again and
//! will be retransmitted again), as Linux's `tcp_mark_skb_lost` does.
//!
//! Originals are walked in sequence order from `rack_orig_from`, retransmissions in their
//! own send order; each walk stops at the first segment sent after the RACK segment, so a
//! pass costs what it marks plus the candidates still waiting.

use super::{Scoreboard, LOST, RETRANS, SACKED};
use crate::tcp::rack::{sent_after, RackState};
use mmtsim_engine::SimTime;

/// What one pass found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RackPass {
    /// Segments newly marked lost (originals and retransmissions).
    pub newly_lost: u32,
    /// Of those, retransmissions lost again (Linux `FLAG_LOST_RETRANS`).
    pub retrans_lost: u32,
    /// Longest time a candidate still has to wait (zero: none waits).
    pub wait: SimTime,
}

impl Scoreboard {
    /// Linux `tcp_rack_detect_loss` at `now` with reordering window `reo_wnd`.
    pub fn rack_detect_loss(
        &mut self,
        rack: &RackState,
        reo_wnd: SimTime,
        now: SimTime,
    ) -> RackPass {
        let mut pass = RackPass::default();
        let deadline = rack.rtt + reo_wnd;
        let before_rack =
            |sent_at: SimTime, end: u64| sent_after(rack.xmit_time, sent_at, rack.end_seq, end);

        // Retransmissions in flight, oldest first.
        let mut k = 0;
        while k < self.rtx_order.len() {
            let (seq, at) = self.rtx_order[k];
            let i = self.index_of(seq);
            let live = i < self.segs.len()
                && self.segs[i].seq == seq
                && self.segs[i].sent_at == at
                && self.segs[i].flags & (RETRANS | SACKED) == RETRANS;
            if !live {
                if k == 0 {
                    self.rtx_order.pop_front();
                } else {
                    k += 1;
                }
                continue;
            }
            let s = self.segs[i];
            if !before_rack(s.sent_at, s.end()) {
                break;
            }
            let elapsed = now.saturating_sub(s.sent_at);
            if elapsed >= deadline {
                self.clear_flags(i, RETRANS);
                self.retransmit_hint = self.retransmit_hint.min(i);
                pass.newly_lost += 1;
                pass.retrans_lost += 1;
                if k == 0 {
                    self.rtx_order.pop_front();
                } else {
                    self.rtx_order.remove(k);
                }
            } else {
                pass.wait = pass.wait.max(deadline - elapsed);
                k += 1;
            }
        }

        // Original transmissions, in sequence (= send) order.
        let mut i = self.index_of(self.rack_orig_from);
        let mut settled = true;
        while i < self.segs.len() {
            let s = self.segs[i];
            if s.flags & (SACKED | LOST) != 0 {
                if settled {
                    self.rack_orig_from = s.end();
                }
                i += 1;
                continue;
            }
            if !before_rack(s.sent_at, s.end()) {
                break;
            }
            let elapsed = now.saturating_sub(s.sent_at);
            if elapsed >= deadline {
                self.mark_lost_at(i);
                pass.newly_lost += 1;
                if settled {
                    self.rack_orig_from = s.end();
                }
            } else {
                // Later candidates were sent later still: they wait longer.
                pass.wait = pass.wait.max(deadline - elapsed);
                settled = false;
            }
            i += 1;
        }
        pass
    }

    /// A retransmission timeout as Linux's `tcp_timeout_mark_lost` with RACK: every
    /// segment not SACKed is lost, except that segments (re)sent within the last
    /// `rack_rtt` — other than the oldest — may still be on their way and are left alone.
    /// Returns the segments newly marked lost plus retransmissions lost again.
    pub fn mark_lost_on_timeout(&mut self, now: SimTime, rack_rtt: SimTime) -> u32 {
        let mut newly = 0;
        let mut first_left: Option<u64> = None;
        for i in 0..self.segs.len() {
            let s = self.segs[i];
            if s.flags & SACKED != 0 {
                continue;
            }
            if i != 0 && now.saturating_sub(s.sent_at) < rack_rtt {
                first_left.get_or_insert(s.seq);
                continue;
            }
            if s.flags & RETRANS != 0 {
                self.clear_flags(i, RETRANS);
                newly += 1;
            }
            if s.flags & LOST == 0 {
                self.mark_lost_at(i);
                newly += 1;
            }
        }
        let top = self.segs.back().map_or(0, |s| s.end());
        let bound = first_left.unwrap_or(top);
        self.lost_below = bound.max(self.segs.front().map_or(0, |s| s.seq));
        self.rack_orig_from = self.lost_below;
        self.reno_sacked = 0;
        self.retransmit_hint = 0;
        if first_left.is_none() {
            // No retransmission is in flight any more.
            self.rtx_order.clear();
        }
        newly
    }

    /// Number of retransmissions in flight that RACK still tracks (tests).
    #[cfg(test)]
    pub fn rack_tracked_retransmissions(&self) -> usize {
        self.rtx_order.len()
    }
}
