//! The retransmission queue and SACK scoreboard of a TCP sender.
//!
//! Every transmitted, not yet cumulatively acknowledged segment has a record with the
//! flags Linux keeps in `TCP_SKB_CB(skb)->sacked`: SACKed, LOST, RETRANS (a retransmission
//! is in flight) and EVER_RETRANS. Counters follow Linux (`packets_out`, `sacked_out`,
//! `lost_out`, `retrans_out`) so that the pipe is Linux's `tcp_packets_in_flight`:
//! `packets_out − (sacked_out + lost_out) + retrans_out` — which is RFC 6675's `SetPipe()`
//! when LOST marks follow its `IsLost()` rule.
//!
//! Loss marking ([`Scoreboard::mark_lost_rfc6675`]) applies RFC 6675 `IsLost(seq)`: a
//! segment is lost when at least DupThresh SACKed segments, or more than
//! (DupThresh − 1)·SMSS SACKed bytes, lie above it. Without SACK, [`Scoreboard::reno_dupack`]
//! counts duplicate ACKs as SACKed segments, as Linux does (`tcp_add_reno_sack`), which is
//! what makes limited transmit (RFC 3042) fall out of the pipe arithmetic.
//!
//! Sequence numbers are 64-bit and never wrap. Segments are never re-segmented: a
//! retransmission resends the same byte range, so cumulative ACKs land on record
//! boundaries.
//!
//! RACK's time-based loss marking ([`rack`]) walks the outstanding segments in the order
//! they were (re)sent, as Linux's `tsorted_sent_queue`: never-retransmitted segments are
//! in sequence order, which is their send order, and retransmissions in flight are kept in
//! a queue of their own in retransmission order.
//!
//! Simplification: an undo (Linux `tcp_undo_cwnd_reduction` with `unmark_loss`) clears
//! the LOST mark of every segment except those whose retransmission is still in flight,
//! which stay LOST|RETRANS and so count once in the pipe; Linux counts such a segment
//! twice (its original and its retransmission) until the retransmission is acknowledged.

pub mod rack;
#[cfg(test)]
mod tests;

use super::rack::Delivery;
use super::rate::{RateSampler, RateStamp};
use mmtsim_engine::SimTime;
use mmtsim_net::packet::SackBlock;
use std::collections::VecDeque;

const SACKED: u8 = 1;
const LOST: u8 = 2;
const RETRANS: u8 = 4;
const EVER_RETRANS: u8 = 8;

/// One transmitted segment.
#[derive(Clone, Copy, Debug)]
pub struct Seg {
    /// First byte.
    pub seq: u64,
    /// Payload length.
    pub len: u32,
    /// Time of the latest (re)transmission.
    pub sent_at: SimTime,
    flags: u8,
    /// Delivery-rate stamp of the latest transmission.
    pub stamp: RateStamp,
}

impl Seg {
    /// One past the last byte.
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
    /// Ever retransmitted.
    pub fn ever_retransmitted(&self) -> bool {
        self.flags & EVER_RETRANS != 0
    }
    /// SACKed.
    pub fn sacked(&self) -> bool {
        self.flags & SACKED != 0
    }
    /// Marked lost.
    pub fn lost(&self) -> bool {
        self.flags & LOST != 0
    }
}

/// What a cumulative ACK removed.
#[derive(Clone, Copy, Debug, Default)]
pub struct CumAck {
    /// Segments newly acknowledged and not SACKed before.
    pub newly_delivered: u32,
    /// Bytes newly acknowledged and not SACKed before.
    pub newly_delivered_bytes: u64,
    /// Segments removed from the queue (SACKed or not).
    pub removed: u32,
    /// Send time of the most recently sent newly delivered (not SACKed before) segment that
    /// was never retransmitted, for an RTT sample without timestamps.
    pub karn_sent_at: Option<SimTime>,
    /// Some removed segment had been retransmitted: Karn's rule allows no sample from this
    /// ACK (Linux FLAG_RETRANS_DATA_ACKED).
    pub retrans_acked: bool,
}

/// The scoreboard.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    segs: VecDeque<Seg>,
    /// Segments sent and not cumulatively ACKed.
    pub packets_out: u32,
    /// Of those, SACKed.
    pub sacked_out: u32,
    /// Of those, marked lost.
    pub lost_out: u32,
    /// Retransmissions in flight.
    pub retrans_out: u32,
    /// Duplicate ACKs counted as SACKs when SACK is off.
    pub reno_sacked: u32,
    /// Bytes sent and not cumulatively ACKed.
    pub bytes_out: u64,
    /// Of those, SACKed bytes.
    pub sacked_bytes: u64,
    /// Of those, bytes marked lost.
    pub lost_bytes: u64,
    /// Bytes of retransmissions in flight.
    pub retrans_bytes: u64,
    /// Lowest index that may hold a segment to retransmit.
    retransmit_hint: usize,
    /// The SACKed segments as sorted, disjoint, non-adjacent byte ranges (segment-aligned):
    /// SACK processing and loss marking skip SACKed runs through it instead of walking
    /// them segment by segment on every ACK (the first SACK block spans most of the window
    /// during a recovery).
    sacked_iv: Vec<(u64, u64)>,
    /// Every segment not SACKed that starts below this is marked LOST. LOST marks are only
    /// removed by SACK or cumulative ACK, and the `IsLost` boundary only rises, so the
    /// marking pass never needs to look below it again (Linux keeps `lost_skb_hint` for
    /// the same reason).
    lost_below: u64,
    /// Retransmissions in flight, oldest first: (first byte, time of that retransmission).
    /// Entries go stale when their segment is ACKed, SACKed, marked lost again or
    /// retransmitted again; they are dropped lazily.
    rtx_order: VecDeque<(u64, SimTime)>,
    /// Every segment starting below this that was never retransmitted is SACKed or LOST
    /// (RACK's walk over original transmissions resumes here).
    rack_orig_from: u64,
}

impl Scoreboard {
    /// Segments in flight (Linux `tcp_packets_in_flight`).
    #[inline]
    pub fn in_flight(&self) -> u32 {
        (self.packets_out + self.retrans_out)
            .saturating_sub(self.sacked_out + self.lost_out + self.reno_sacked)
    }

    /// Bytes in flight, by the same rule.
    #[inline]
    pub fn bytes_in_flight(&self) -> u64 {
        (self.bytes_out + self.retrans_bytes).saturating_sub(self.sacked_bytes + self.lost_bytes)
    }

    /// True when nothing is outstanding.
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    /// The oldest outstanding segment.
    pub fn head(&self) -> Option<&Seg> {
        self.segs.front()
    }

    /// Records a new transmission.
    pub fn push(&mut self, seq: u64, len: u32, now: SimTime, stamp: RateStamp) {
        debug_assert!(
            self.segs.back().is_none_or(|s| s.end() == seq),
            "segments must be contiguous"
        );
        self.segs.push_back(Seg {
            seq,
            len,
            sent_at: now,
            flags: 0,
            stamp,
        });
        self.packets_out += 1;
        self.bytes_out += len as u64;
    }

    fn clear_flags(&mut self, i: usize, mask: u8) {
        let s = self.segs[i];
        let clear = s.flags & mask;
        if clear & SACKED != 0 {
            self.sacked_out -= 1;
            self.sacked_bytes -= s.len as u64;
        }
        if clear & LOST != 0 {
            self.lost_out -= 1;
            self.lost_bytes -= s.len as u64;
        }
        if clear & RETRANS != 0 {
            self.retrans_out -= 1;
            self.retrans_bytes -= s.len as u64;
        }
        self.segs[i].flags &= !mask;
    }

    /// One past the highest SACKed byte, or `una` when nothing is SACKed (Linux
    /// `tcp_highest_sack_seq`, the "forward-most ACK").
    #[inline]
    pub fn fack(&self, una: u64) -> u64 {
        self.sacked_iv.last().map_or(una, |r| r.1.max(una))
    }

    /// Removes everything below `ack`, feeding newly delivered segments to `rate` and `note`.
    pub fn cum_ack(&mut self, ack: u64, rate: &mut RateSampler, note: &mut Delivery) -> CumAck {
        let mut r = CumAck::default();
        while let Some(front) = self.segs.front() {
            if front.end() > ack {
                debug_assert!(
                    front.seq >= ack,
                    "ACK inside a segment: {} < {ack} < {}",
                    front.seq,
                    front.end()
                );
                break;
            }
            let s = *front;
            if s.flags & SACKED == 0 {
                r.newly_delivered += 1;
                r.newly_delivered_bytes += s.len as u64;
                rate.on_delivered(&s.stamp, s.sent_at, s.ever_retransmitted());
                note.note(s.seq, s.end(), s.sent_at, s.ever_retransmitted(), true);
                // A segment SACKed earlier arrived then, not now: timing it to this ACK
                // would add the time it waited for the hole below it.
                if !s.ever_retransmitted() {
                    r.karn_sent_at = Some(s.sent_at);
                }
            }
            r.retrans_acked |= s.ever_retransmitted();
            self.clear_flags(0, SACKED | LOST | RETRANS);
            self.packets_out -= 1;
            self.bytes_out -= s.len as u64;
            self.segs.pop_front();
            r.removed += 1;
        }
        self.retransmit_hint = self.retransmit_hint.saturating_sub(r.removed as usize);
        if let Some(front) = self.segs.front().map(|s| s.seq) {
            let k = self.sacked_iv.partition_point(|iv| iv.1 <= front);
            self.sacked_iv.drain(..k);
            if let Some(first) = self.sacked_iv.first_mut() {
                first.0 = first.0.max(front);
            }
        } else {
            self.sacked_iv.clear();
        }
        if r.removed > 0 {
            // Linux tcp_remove_reno_sacks: one ACKed segment filled the hole, the rest had
            // each produced a duplicate ACK.
            self.reno_sacked = self
                .reno_sacked
                .saturating_sub(r.removed - 1)
                .min(self.packets_out.saturating_sub(1));
        }
        r
    }

    /// Index of the first segment starting at or above `seq`.
    fn index_of(&self, seq: u64) -> usize {
        self.segs.partition_point(|s| s.seq < seq)
    }

    /// Marks segments covered by SACK blocks; returns (segments, bytes) newly SACKed.
    pub fn apply_sack(
        &mut self,
        blocks: &[SackBlock],
        rate: &mut RateSampler,
        note: &mut Delivery,
    ) -> (u32, u64) {
        let (mut n, mut b) = (0u32, 0u64);
        for blk in blocks {
            // A block inside a range already SACKed marks nothing. Receivers repeat their
            // recent blocks on every ACK [RFC2018 §4], so most blocks are such repeats:
            // the few ranges are searched instead of the window's segments.
            let r = self.sacked_iv.partition_point(|iv| iv.1 < blk.end);
            if self.sacked_iv.get(r).is_some_and(|iv| iv.0 <= blk.start) {
                continue;
            }
            // The segments wholly inside the block.
            let lo = self.index_of(blk.start);
            let hi = self.segs.partition_point(|s| s.end() <= blk.end);
            if lo >= hi {
                continue;
            }
            let (start, end) = (self.segs[lo].seq, self.segs[hi - 1].end());
            // Walk only the gaps between ranges already SACKed.
            let mut cur = start;
            let mut k = self.sacked_iv.partition_point(|iv| iv.1 <= start);
            while cur < end {
                if k < self.sacked_iv.len() && self.sacked_iv[k].0 <= cur {
                    cur = self.sacked_iv[k].1;
                    k += 1;
                    continue;
                }
                let gap_end = self.sacked_iv.get(k).map_or(end, |iv| iv.0.min(end));
                let mut i = self.index_of(cur);
                while i < hi && self.segs[i].seq < gap_end {
                    let s = self.segs[i];
                    debug_assert!(s.flags & SACKED == 0, "SACKed segment outside the ranges");
                    rate.on_delivered(&s.stamp, s.sent_at, s.ever_retransmitted());
                    note.note(s.seq, s.end(), s.sent_at, s.ever_retransmitted(), false);
                    self.clear_flags(i, LOST | RETRANS);
                    self.segs[i].flags |= SACKED;
                    self.sacked_out += 1;
                    self.sacked_bytes += s.len as u64;
                    n += 1;
                    b += s.len as u64;
                    i += 1;
                }
                cur = gap_end;
            }
            self.add_sacked_range(start, end);
        }
        (n, b)
    }

    /// Merges `[start, end)` into the SACKed ranges.
    fn add_sacked_range(&mut self, start: u64, end: u64) {
        let iv = &mut self.sacked_iv;
        // Ranges that overlap or touch [start, end).
        let a = iv.partition_point(|r| r.1 < start);
        let b = iv.partition_point(|r| r.0 <= end);
        if a == b {
            iv.insert(a, (start, end));
        } else {
            let merged = (start.min(iv[a].0), end.max(iv[b - 1].1));
            iv.splice(a..b, std::iter::once(merged));
        }
    }

    /// RFC 6675 `IsLost()` marking; returns the number of segments newly marked lost.
    ///
    /// The rule is monotone: a segment not SACKed is lost iff it lies below the boundary
    /// where, counting down from the top, DupThresh SACKed segments (or more than
    /// (DupThresh − 1)·SMSS SACKed bytes) have been passed. Segments not SACKed lie only
    /// between SACKed ranges, so the boundary is the start of the first range (from the
    /// top) at which the count is reached, and only the segments between the previous
    /// boundary and the new one need marking: a recovery costs O(window) in all rather
    /// than per ACK.
    pub fn mark_lost_rfc6675(&mut self, dupthresh: u32, mss: u32) -> u32 {
        let byte_thresh = (dupthresh.saturating_sub(1) as u64) * mss as u64;
        let (mut sacked_above, mut sacked_bytes_above) = (0u32, 0u64);
        let mut boundary = None;
        for &(a, b) in self.sacked_iv.iter().rev() {
            if b <= self.lost_below {
                break;
            }
            sacked_above += (self.index_of(b) - self.index_of(a)) as u32;
            sacked_bytes_above += b - a;
            if sacked_above >= dupthresh || sacked_bytes_above > byte_thresh {
                boundary = Some(a);
                break;
            }
        }
        let Some(bnd) = boundary.filter(|&b| b > self.lost_below) else {
            return 0;
        };
        let mut newly = 0;
        let mut i = self.index_of(self.lost_below);
        while i < self.segs.len() && self.segs[i].seq < bnd {
            if self.segs[i].flags & (SACKED | LOST) == 0 {
                self.mark_lost_at(i);
                newly += 1;
            }
            i += 1;
        }
        self.lost_below = bnd;
        newly
    }

    fn mark_lost_at(&mut self, i: usize) {
        let s = self.segs[i];
        if s.flags & LOST == 0 {
            self.segs[i].flags |= LOST;
            self.lost_out += 1;
            self.lost_bytes += s.len as u64;
        }
        self.retransmit_hint = self.retransmit_hint.min(i);
    }

    /// Marks the oldest outstanding segment lost (fast retransmit, NewReno partial ACK).
    pub fn mark_head_lost(&mut self) -> bool {
        match self.segs.front() {
            Some(s) if s.flags & (SACKED | LOST) == 0 => {
                self.mark_lost_at(0);
                true
            }
            Some(s) if s.flags & RETRANS != 0 && s.flags & SACKED == 0 => {
                // A partial ACK that stops at a segment already retransmitted once means
                // that retransmission was lost too (RFC 6582 §3.2 step 5 retransmits it).
                self.clear_flags(0, RETRANS);
                self.retransmit_hint = 0;
                true
            }
            _ => false,
        }
    }

    /// RTO without RACK: every segment not SACKed is lost and no retransmission is in
    /// flight any more ([`Self::mark_lost_on_timeout`] sparing nothing).
    pub fn mark_all_lost(&mut self) -> u32 {
        self.mark_lost_on_timeout(SimTime::ZERO, SimTime::ZERO)
    }

    /// Undo of a spurious reduction (Linux `tcp_undo_cwnd_reduction` with `unmark_loss`):
    /// segments marked lost are not; those whose retransmission is in flight keep their
    /// marks (see the module doc). Returns how many marks were cleared.
    pub fn unmark_lost(&mut self) -> u32 {
        let mut n = 0;
        for i in 0..self.segs.len() {
            if self.segs[i].flags & (LOST | RETRANS) == LOST {
                self.clear_flags(i, LOST);
                n += 1;
            }
        }
        let una = self.segs.front().map_or(0, |s| s.seq);
        self.lost_below = una;
        self.rack_orig_from = una;
        self.retransmit_hint = 0;
        n
    }

    /// One duplicate ACK without SACK: count it as a SACKed segment (bounded by what is
    /// outstanding).
    pub fn reno_dupack(&mut self) {
        self.reno_sacked = (self.reno_sacked + 1).min(self.packets_out.saturating_sub(1));
    }

    /// Clears the duplicate-ACK emulation (end of recovery).
    pub fn reno_reset(&mut self) {
        self.reno_sacked = 0;
    }

    /// Index of the first segment that is lost, not SACKed and not being retransmitted.
    pub fn next_retransmit(&mut self) -> Option<usize> {
        if self.lost_out <= self.retrans_out {
            // Every lost segment has a retransmission in flight (counts only include
            // LOST|RETRANS pairs: RETRANS is cleared whenever LOST is).
            return None;
        }
        let mut i = self.retransmit_hint;
        while i < self.segs.len() {
            let f = self.segs[i].flags;
            if f & LOST != 0 && f & (RETRANS | SACKED) == 0 {
                self.retransmit_hint = i;
                return Some(i);
            }
            i += 1;
        }
        self.retransmit_hint = self.segs.len();
        None
    }

    /// Records the retransmission of segment `i`; returns it.
    pub fn on_retransmit(&mut self, i: usize, now: SimTime, stamp: RateStamp) -> Seg {
        let s = &mut self.segs[i];
        debug_assert!(s.flags & LOST != 0);
        s.flags |= RETRANS | EVER_RETRANS;
        s.sent_at = now;
        s.stamp = stamp;
        let s = *s;
        self.retrans_out += 1;
        self.retrans_bytes += s.len as u64;
        self.rtx_order.push_back((s.seq, now));
        s
    }

    /// A tail loss probe resends the last segment (Linux `__tcp_retransmit_skb` without the
    /// RETRANS accounting of `tcp_retransmit_skb`): it is stamped and marked as ever
    /// retransmitted, but not counted as a retransmission in flight. Returns it.
    pub fn on_probe_retransmit(&mut self, now: SimTime, stamp: RateStamp) -> Option<Seg> {
        let s = self.segs.back_mut()?;
        s.flags |= EVER_RETRANS;
        s.sent_at = now;
        s.stamp = stamp;
        Some(*s)
    }

    /// Checks the counters against the flags (tests and debug builds).
    pub fn check_invariants(&self) {
        let mut c = (0u32, 0u32, 0u32, 0u64);
        for s in &self.segs {
            c.0 += (s.flags & SACKED != 0) as u32;
            c.1 += (s.flags & LOST != 0) as u32;
            c.2 += (s.flags & RETRANS != 0) as u32;
            c.3 += s.len as u64;
            assert!(
                !(s.flags & RETRANS != 0 && s.flags & LOST == 0),
                "RETRANS without LOST at {}",
                s.seq
            );
        }
        assert_eq!(self.packets_out as usize, self.segs.len());
        // The SACKed ranges are exactly the SACKed segments, merged.
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        for s in self.segs.iter().filter(|s| s.sacked()) {
            match ranges.last_mut() {
                Some(r) if r.1 == s.seq => r.1 = s.end(),
                _ => ranges.push((s.seq, s.end())),
            }
        }
        assert_eq!(ranges, self.sacked_iv, "SACKed ranges");
        assert_eq!(
            (
                self.sacked_out,
                self.lost_out,
                self.retrans_out,
                self.bytes_out
            ),
            c
        );
    }
}
