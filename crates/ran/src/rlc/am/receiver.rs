//! The receiving side of an AM entity: placing data PDUs in the reception window,
//! reassembly in order, t-Reordering, and building status reports (TS 36.322 §5.1.3.2,
//! §5.2.3; the rules and their deviations from ns-3 are in the [`super`] module doc).

use super::super::pdu::give_back;
use super::{AmEntity, Body, DataPdu, Pdu, RxSlot, Sdu, StatusPdu};
use mmtsim_engine::SimTime;

impl AmEntity {
    /// Whether t-StatusProhibit is running at `now`.
    pub(super) fn status_prohibited(&self, now: SimTime) -> bool {
        self.status_prohibit_timer.is_some_and(|t| now < t)
    }

    /// Size of a status PDU with `nacks` NACK_SNs: D/C + CPT(3) + ACK_SN + E1, then
    /// NACK_SN + E1 + E2 per NACK, padded to bytes (TS 36.322 §6.2.1.6).
    pub(super) fn status_bytes(&self, nacks: usize) -> u32 {
        let sn = self.sn_bits as u32;
        (5 + sn + nacks as u32 * (sn + 2)).div_ceil(8)
    }

    /// Whether PDU `sn` has been completely received (everything below VR(R) has).
    pub(super) fn is_complete(&self, sn: u64) -> bool {
        if sn < self.vr_r {
            return true;
        }
        matches!(
            self.rx_window.get((sn - self.vr_r) as usize),
            Some(RxSlot::Complete(_))
        )
    }

    /// The status PDU for an opportunity of `budget` bytes, or `None` if even an empty one
    /// does not fit.
    pub(super) fn build_status(&self, budget: u32) -> Option<Pdu> {
        if budget < self.status_bytes(0) {
            return None;
        }
        let mut nacks = Vec::new();
        let mut sn = self.vr_r;
        while sn < self.vr_ms {
            if self.status_bytes(nacks.len() + 1) > budget {
                break;
            }
            if !self.is_complete(sn) {
                nacks.push(sn);
            }
            sn += 1;
        }
        // ACK_SN: the first SN not reported as missing that is not complete.
        while sn < self.vr_ms && self.is_complete(sn) {
            sn += 1;
        }
        Some(Pdu {
            bytes: self.status_bytes(nacks.len()),
            body: Body::AmStatus(StatusPdu { ack_sn: sn, nacks }),
        })
    }

    /// §5.1.3.2.2 and §5.1.3.2.3.
    pub(super) fn receive_data(&mut self, now: SimTime, d: DataPdu, delivered: &mut Vec<Sdu>) {
        self.stats.pdus_received += 1;
        if d.poll {
            self.status_requested = true;
        }
        let x = d.sn;
        if x < self.vr_r || x >= self.vr_r + self.window {
            self.stats.pdus_discarded += 1;
            give_back(&self.pool, d.pieces);
            return;
        }
        let idx = (x - self.vr_r) as usize;
        let (from, to) = (d.so, d.so + d.len);
        let first_part = |d: DataPdu| {
            if d.is_segment() {
                RxSlot::Partial {
                    pieces: d.pieces,
                    total: d.total,
                    got: vec![(from, to)],
                }
            } else {
                RxSlot::Complete(d.pieces)
            }
        };
        // A PDU that is not placed, or a segment whose slot keeps its own handle, is let go
        // here: `spare` takes its list to the pool.
        let mut spare = None;
        let placed = if idx >= self.rx_window.len() {
            // Beyond the window's end (in order, usually right at it): the gap before it
            // missing, then the PDU's own slot built in place, neither first written as
            // missing and then overwritten nor built apart and copied in (a wide reload of
            // narrow stores just made, which the CPU cannot forward).
            if idx > self.rx_window.len() {
                self.rx_window.resize(idx, RxSlot::Missing);
            }
            self.rx_window
                .extend(std::iter::once_with(|| first_part(d)));
            true
        } else {
            let slot = &mut self.rx_window[idx];
            match slot {
                RxSlot::Complete(_) => {
                    spare = Some(d.pieces);
                    false
                }
                RxSlot::Missing => {
                    *slot = first_part(d);
                    true
                }
                RxSlot::Partial { pieces, total, got } => {
                    let covered = got.iter().any(|&(a, b)| a <= from && to <= b);
                    if !covered {
                        insert_range(got, from, to);
                        if got[..] == [(0, *total)] {
                            *slot = RxSlot::Complete(pieces.clone());
                        }
                    }
                    spare = Some(d.pieces);
                    !covered
                }
            }
        };
        if let Some(p) = spare {
            give_back(&self.pool, p);
        }
        if !placed {
            self.stats.pdus_discarded += 1;
            return;
        }
        if x >= self.vr_h {
            self.vr_h = x + 1;
        }
        while self.vr_ms < self.vr_h && self.is_complete(self.vr_ms) {
            self.vr_ms += 1;
        }
        if x == self.vr_r {
            let discarded = self.stats.rx_sdus_discarded;
            while let Some(RxSlot::Complete(pieces)) = self.rx_window.front() {
                self.reassembler.push(pieces, delivered, &mut self.stats);
                if let Some(RxSlot::Complete(pieces)) = self.rx_window.pop_front() {
                    give_back(&self.pool, pieces);
                }
                self.vr_r += 1;
            }
            debug_assert_eq!(
                discarded, self.stats.rx_sdus_discarded,
                "AM reassembly met a gap"
            );
            self.vr_ms = self.vr_ms.max(self.vr_r);
        }
        debug_assert_eq!(self.rx_window.len() as u64, self.vr_h - self.vr_r);
        if self.reordering_timer.is_some() && self.vr_x <= self.vr_r {
            self.reordering_timer = None;
        }
        if self.reordering_timer.is_none() && self.vr_h > self.vr_r {
            self.reordering_timer = Some(now + self.t_reordering);
            self.vr_x = self.vr_h;
        }
    }

    /// §5.1.3.2.4, plus the status trigger of §5.2.3.
    pub(super) fn reordering_expired(&mut self, now: SimTime) {
        self.stats.reordering_expiries += 1;
        let mut ms = self.vr_x.max(self.vr_ms);
        while ms < self.vr_h && self.is_complete(ms) {
            ms += 1;
        }
        self.vr_ms = ms;
        if self.vr_h > self.vr_ms {
            self.reordering_timer = Some(now + self.t_reordering);
            self.vr_x = self.vr_h;
        } else {
            self.reordering_timer = None;
        }
        self.status_requested = true;
    }
}

/// Adds byte range `[from, to)` to a sorted list of disjoint ranges, merging overlaps and
/// neighbours.
fn insert_range(got: &mut Vec<(u32, u32)>, from: u32, to: u32) {
    got.push((from, to));
    got.sort_unstable();
    let mut merged: Vec<(u32, u32)> = Vec::with_capacity(got.len());
    for &(a, b) in got.iter() {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    *got = merged;
}
