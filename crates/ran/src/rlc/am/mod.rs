//! RLC acknowledged mode (TS 36.322 §5.1.3, §5.2, §5.4), following ns-3 mmWave's
//! `lte-rlc-am.cc` (the LTE module of the ns-3 mmWave fork) where the two differ.
//!
//! Read first: TS 36.322 §5.1.3.1 (transmit operations, VT(A)/VT(S)/VT(MS)), §5.1.3.2
//! (receive operations, VR(R)/VR(H)/VR(MS)/VR(X), t-Reordering), §5.2.1 (retransmission),
//! §5.2.2 (polling, t-PollRetransmit), §5.2.3 (status reporting, t-StatusProhibit). Header
//! sizes and the concatenation rule are in the [`super`] module doc.
//!
//! # Transmitter
//! - A transmission opportunity is filled in priority order (§5.1.3.1.1): the status PDU
//!   (if triggered and t-StatusProhibit is not running), then PDUs waiting for
//!   retransmission in SN order, then new PDUs while VT(S) < VT(MS).
//! - A retransmission that does not fit is re-segmented (§5.2.1): the segment carries the
//!   4-byte fixed header plus LIs for the data-field elements it overlaps. The rest waits for
//!   the next opportunity (the ns-3 fork re-segments the same way).
//! - Polling (§5.2.2.1, ns-3 conditions): a new PDU polls when PDU_WITHOUT_POLL ≥ pollPDU,
//!   BYTE_WITHOUT_POLL ≥ pollByte, both buffers are empty after it, the window is stalled,
//!   or t-PollRetransmit has just expired; a retransmission polls on the last three. With
//!   the ns-3 defaults (pollPDU 1, pollByte 50) every new PDU polls. A poll sets
//!   POLL_SN = VT(S) − 1 and (re)starts t-PollRetransmit.
//! - A status report stops t-PollRetransmit if ACK_SN > POLL_SN; SNs below ACK_SN not
//!   NACKed are acknowledged, NACKed ones are considered for retransmission.
//! - t-PollRetransmit expiry (ns-3 behaviour, a liberal reading of §5.2.2.3): if both
//!   buffers are empty or the window is stalled, **every** PDU not yet acknowledged is
//!   considered for retransmission (TS 36.322 requires only one); the next PDU polls.
//! - maxRetxThreshold is only counted ([`RlcStats::max_retx_reached`]), as in ns-3: no
//!   radio link failure. The retransmission count increments each time a PDU is considered
//!   for retransmission (NACK or poll expiry).
//!
//! # Receiver
//! - Data PDUs inside VR(R) ≤ SN < VR(MR) are placed; duplicate byte ranges are dropped;
//!   complete PDUs from VR(R) on are reassembled and delivered in order (§5.1.3.2.3). Byte
//!   segments of the PDU at VR(R) are only delivered once that PDU is complete (TS 36.322
//!   allows delivering its in-sequence leading segments earlier; ns-3 does not either).
//! - t-Reordering per §5.1.3.2.3/§5.1.3.2.4 (VR(X) compared with ≤ because SNs are absolute).
//! - A status report is triggered by any received poll (ns-3; TS 36.322 delays it while the
//!   polled SN is beyond VR(MS)) and by t-Reordering expiry. It NACKs every SN in
//!   [VR(R), VR(MS)) not completely received, as many as fit in the opportunity, and
//!   ACK_SN is the first SN not reported that is not complete (ns-3 `DoNotifyTxOpportunity`).
//!
//! # Deviations from ns-3
//! - ns-3 builds one RLC PDU per MAC opportunity (status, or one retransmission, or one new
//!   PDU); here one opportunity is filled with as many PDUs as fit, in the order above.
//! - ns-3 reports a fixed 4-byte status size in its BSR; we report the size the status PDU
//!   would have with the current NACK count.
//! - No ReportBufferStatusTimer: the MAC reads [`AmEntity::buffer_status`] when it needs it.

use super::pdu::{give_back, Pieces, SharedPool};
use super::{
    li_bytes, Body, BufferStatus, Pdu, Piece, Reassembler, RlcConfig, RlcStats, Sdu, TxQueue,
};
use mmtsim_engine::SimTime;
use std::collections::{BTreeSet, VecDeque};
use std::rc::Rc;

/// An AM data PDU or PDU segment as it crosses the air.
#[derive(Clone, Debug)]
pub(crate) struct DataPdu {
    /// Absolute sequence number.
    pub(crate) sn: u64,
    /// Poll bit.
    pub(crate) poll: bool,
    /// First data-field byte carried (segment offset).
    pub(crate) so: u32,
    /// Data-field bytes carried.
    pub(crate) len: u32,
    /// Size of the PDU's whole data field.
    pub(crate) total: u32,
    /// All elements of the PDU's data field (shared with the transmitter's copy).
    pub(crate) pieces: Pieces,
}

impl DataPdu {
    pub(crate) fn is_segment(&self) -> bool {
        self.so != 0 || self.len != self.total
    }

    /// Data-field elements this PDU (segment) carries bytes of.
    pub(crate) fn elements(&self) -> usize {
        overlapping(&self.pieces, self.so, self.so + self.len).len()
    }
}

/// An AM status PDU.
#[derive(Clone, Debug)]
pub(crate) struct StatusPdu {
    /// First SN not acknowledged and not NACKed.
    pub(crate) ack_sn: u64,
    /// SNs reported missing, ascending.
    pub(crate) nacks: Vec<u64>,
}

/// The elements of `pieces` overlapping data-field bytes `[from, to)`.
fn overlapping(pieces: &[Piece], from: u32, to: u32) -> &[Piece] {
    let start = pieces.partition_point(|p| p.pdu_offset + p.len <= from);
    let end = pieces.partition_point(|p| p.pdu_offset < to);
    &pieces[start..end.max(start)]
}

/// Where a transmitted PDU stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TxState {
    /// Positively acknowledged (kept only until VT(A) passes it).
    Acked,
    /// Waiting for (the rest of) a retransmission.
    Retx,
    /// Sent, waiting for a status report.
    Sent,
}

/// A PDU of the transmitting window.
#[derive(Clone, Debug)]
struct TxSlot {
    /// Data-field elements; dropped once acknowledged.
    pieces: Option<Pieces>,
    /// Data-field size, bytes.
    data_bytes: u32,
    /// Header of the whole PDU, bytes.
    header_bytes: u32,
    state: TxState,
    /// Times the PDU was considered for retransmission.
    retx_count: u32,
    /// Data-field bytes already resent in the current retransmission (re-segmentation).
    resend_offset: u32,
    /// First transmission (for the retransmission HOL delay).
    first_tx: SimTime,
}

/// A PDU of the receiving window.
#[derive(Clone, Debug)]
enum RxSlot {
    /// All bytes received.
    Complete(Pieces),
    /// Nothing received.
    Missing,
    /// Some byte segments received: sorted, disjoint, non-adjacent ranges.
    Partial {
        pieces: Pieces,
        total: u32,
        got: Vec<(u32, u32)>,
    },
}

/// An RLC AM entity: transmitter and receiver of one end of a bearer.
#[derive(Clone, Debug)]
pub struct AmEntity {
    /// AM_Window_Size, SNs.
    window: u64,
    sn_bits: u8,
    /// Fixed data PDU header, bytes (4 with a 10-bit SN).
    fixed_header: u32,
    t_poll_retransmit: SimTime,
    t_reordering: SimTime,
    t_status_prohibit: SimTime,
    poll_pdu: u32,
    poll_byte: u64,
    max_retx: u32,

    // ---- transmitter ----
    txq: TxQueue,
    /// VT(A): first SN not positively acknowledged.
    vt_a: u64,
    /// VT(S): SN of the next new PDU.
    vt_s: u64,
    /// PDUs VT(A) ≤ SN < VT(S), indexed by SN − VT(A).
    tx_window: VecDeque<TxSlot>,
    /// SNs waiting for retransmission.
    retx_queue: BTreeSet<u64>,
    /// Bytes (headers included) of what waits for retransmission.
    retx_bytes: u64,
    poll_sn: u64,
    pdu_without_poll: u32,
    byte_without_poll: u64,
    /// t-PollRetransmit expired since the last poll.
    poll_retransmit_expired: bool,
    /// t-PollRetransmit deadline.
    poll_timer: Option<SimTime>,

    // ---- receiver ----
    /// VR(R): first SN not completely received (lower window edge).
    vr_r: u64,
    /// VR(H): highest SN received + 1.
    vr_h: u64,
    /// VR(MS): highest ACK_SN a status may report.
    vr_ms: u64,
    /// VR(X): SN following the one that started t-Reordering.
    vr_x: u64,
    /// PDUs VR(R) ≤ SN < VR(H), indexed by SN − VR(R).
    rx_window: VecDeque<RxSlot>,
    reassembler: Reassembler,
    /// A status report has been triggered and not sent yet.
    status_requested: bool,
    /// t-Reordering deadline.
    reordering_timer: Option<SimTime>,
    /// t-StatusProhibit deadline.
    status_prohibit_timer: Option<SimTime>,

    /// Element lists both ends of the bearer have finished with, for new PDUs.
    pool: SharedPool,
    stats: RlcStats,
}

impl AmEntity {
    /// An entity configured by `cfg` (its `mode` is not checked), with a pool of its own.
    pub fn new(cfg: &RlcConfig) -> Self {
        Self::with_pool(cfg, SharedPool::default())
    }

    /// An entity configured by `cfg` that shares `pool` with its peer (see [`SharedPool`]).
    pub(crate) fn with_pool(cfg: &RlcConfig, pool: SharedPool) -> Self {
        cfg.validate();
        AmEntity {
            window: cfg.window(),
            sn_bits: cfg.sn_bits,
            // D/C, RF, P, FI(2), E + SN padded to bytes, then LSF + SO(15) (always written
            // by ns-3): 4 bytes with a 10-bit SN.
            fixed_header: (6 + cfg.sn_bits as u32).div_ceil(8) + 2,
            t_poll_retransmit: cfg.t_poll_retransmit,
            t_reordering: cfg.t_reordering,
            t_status_prohibit: cfg.t_status_prohibit,
            poll_pdu: cfg.poll_pdu,
            poll_byte: cfg.poll_byte,
            max_retx: cfg.max_retx,
            txq: TxQueue::new(cfg),
            vt_a: 0,
            vt_s: 0,
            tx_window: VecDeque::new(),
            retx_queue: BTreeSet::new(),
            retx_bytes: 0,
            poll_sn: 0,
            pdu_without_poll: 0,
            byte_without_poll: 0,
            poll_retransmit_expired: false,
            poll_timer: None,
            vr_r: 0,
            vr_h: 0,
            vr_ms: 0,
            vr_x: 0,
            rx_window: VecDeque::new(),
            reassembler: Reassembler::default(),
            status_requested: false,
            reordering_timer: None,
            status_prohibit_timer: None,
            pool,
            stats: RlcStats::default(),
        }
    }

    /// See [`super::Rlc::send_sdu`].
    pub fn send_sdu(&mut self, now: SimTime, sdu: Sdu) -> Result<(), Sdu> {
        self.txq.push(now, sdu, &mut self.stats)
    }

    /// See [`super::Rlc::send_forwarded_sdu`].
    pub fn send_forwarded_sdu(&mut self, now: SimTime, sdu: Sdu) {
        self.txq.push_forwarded(now, sdu, &mut self.stats)
    }

    /// See [`super::Rlc::buffer_status`].
    pub fn buffer_status(&self, now: SimTime) -> BufferStatus {
        let status_bytes = if self.status_requested && !self.status_prohibited(now) {
            let missing = (self.vr_r..self.vr_ms)
                .filter(|&sn| !self.is_complete(sn))
                .count();
            self.status_bytes(missing) as u64
        } else {
            0
        };
        let retx_hol = self.retx_queue.first().map_or(SimTime::ZERO, |&sn| {
            now.saturating_sub(self.tx_window[(sn - self.vt_a) as usize].first_tx)
        });
        BufferStatus {
            new_bytes: self.txq.estimate_bytes(self.fixed_header),
            retx_bytes: self.retx_bytes,
            status_bytes,
            hol_delay: self.txq.hol_delay(now).max(retx_hol),
        }
    }

    /// See [`super::Rlc::tx_buffer_bytes`].
    pub fn tx_buffer_bytes(&self) -> u64 {
        self.txq.bytes() + self.retx_bytes
    }

    /// See [`super::Rlc::sdu_room_bytes`].
    pub fn sdu_room_bytes(&self) -> u64 {
        self.txq.room_bytes()
    }

    /// PDUs sent and not yet positively acknowledged (VT(S) − VT(A)).
    pub fn unacked_pdus(&self) -> u64 {
        self.vt_s - self.vt_a
    }

    /// See [`super::Rlc::sdus_queued`].
    pub fn sdus_queued(&self) -> usize {
        self.txq.len()
    }

    /// See [`super::Rlc::take_dropped`].
    pub fn take_dropped(&mut self, out: &mut Vec<Sdu>) {
        self.txq.take_dropped(out);
    }

    /// See [`super::Rlc::stats`].
    pub fn stats(&self) -> &RlcStats {
        &self.stats
    }

    /// See [`super::Rlc::tx_opportunity`].
    pub fn tx_opportunity(&mut self, now: SimTime, bytes: u32, out: &mut Vec<Pdu>) {
        let mut budget = bytes;
        if self.status_requested && !self.status_prohibited(now) {
            if let Some(pdu) = self.build_status(budget) {
                budget -= pdu.bytes;
                self.status_requested = false;
                if self.t_status_prohibit > SimTime::ZERO {
                    self.status_prohibit_timer = Some(now + self.t_status_prohibit);
                }
                self.stats.status_sent += 1;
                self.stats.bytes_sent += pdu.bytes as u64;
                out.push(pdu);
            }
        }
        while budget > self.fixed_header {
            let Some(&sn) = self.retx_queue.first() else {
                break;
            };
            let Some(pdu) = self.retransmit(now, sn, budget) else {
                break;
            };
            budget -= pdu.bytes;
            out.push(pdu);
        }
        while budget > self.fixed_header
            && !self.txq.is_empty()
            && self.vt_s < self.vt_a + self.window
        {
            let Some(bytes) = self.new_pdu(now, budget, out) else {
                break;
            };
            budget -= bytes;
        }
    }

    /// See [`super::Rlc::receive_pdu`].
    pub fn receive_pdu(&mut self, now: SimTime, pdu: Pdu, delivered: &mut Vec<Sdu>) {
        match pdu.body {
            Body::AmData(d) => self.receive_data(now, d, delivered),
            Body::AmStatus(s) => self.receive_status(&s),
            Body::UmData(_) => {
                panic!("an RLC AM entity received a UM PDU: the two ends of the bearer disagree on the mode")
            }
        }
    }

    /// See [`super::Rlc::next_timer`]. t-StatusProhibit is reported only while a status
    /// report waits for it (its expiry changes the buffer status).
    pub fn next_timer(&self) -> Option<SimTime> {
        // Asked of every leg in every slot: plain comparisons, not an iterator chain.
        let prohibit = self.status_prohibit_timer.filter(|_| self.status_requested);
        earliest(earliest(self.poll_timer, self.reordering_timer), prohibit)
    }

    /// See [`super::Rlc::on_timer`]. AM timers never release SDUs.
    pub fn on_timer(&mut self, now: SimTime, _delivered: &mut Vec<Sdu>) {
        if self.poll_timer.is_some_and(|t| t <= now) {
            self.poll_timer = None;
            self.stats.poll_retransmit_expiries += 1;
            self.poll_retransmit_expired = true;
            if (self.txq.is_empty() && self.retx_queue.is_empty()) || self.window_stalled() {
                for idx in 0..self.tx_window.len() {
                    self.consider_for_retx(idx);
                }
            }
        }
        // Terminates: a restart sets VR(X) = VR(H), and the next expiry moves VR(MS) to
        // VR(H) at least, so it does not restart again.
        while self.reordering_timer.is_some_and(|t| t <= now) {
            self.reordering_expired(now);
        }
        if self.status_prohibit_timer.is_some_and(|t| t <= now) {
            self.status_prohibit_timer = None;
        }
    }

    // ---------------------------------------------------------------- transmitter

    fn window_stalled(&self) -> bool {
        self.vt_s >= self.vt_a + self.window
    }

    /// Builds a new PDU from the transmission buffer into at most `budget` bytes
    /// (`budget > fixed_header`), appended to `out`, and returns its size; `None` if CoDel
    /// emptied the buffer. It is built in `out` itself: a PDU built apart is copied in
    /// wide loads over the narrow stores that built it, which the CPU cannot forward.
    fn new_pdu(&mut self, now: SimTime, budget: u32, out: &mut Vec<Pdu>) -> Option<u32> {
        let mut pieces = self.pool.borrow_mut().take();
        let list = Rc::get_mut(&mut pieces).expect("a list from the pool has no other holder");
        let data = self
            .txq
            .fill(now, budget - self.fixed_header, list, &mut self.stats);
        if data == 0 {
            give_back(&self.pool, pieces);
            return None;
        }
        let header = self.fixed_header + li_bytes(list.len());
        let sn = self.vt_s;
        self.vt_s += 1;
        self.tx_window.push_back(TxSlot {
            pieces: Some(pieces.clone()),
            data_bytes: data,
            header_bytes: header,
            state: TxState::Sent,
            retx_count: 0,
            resend_offset: 0,
            first_tx: now,
        });
        self.pdu_without_poll += 1;
        self.byte_without_poll += data as u64;
        let poll = self.pdu_without_poll >= self.poll_pdu
            || self.byte_without_poll >= self.poll_byte
            || (self.txq.is_empty() && self.retx_queue.is_empty())
            || self.window_stalled()
            || self.poll_retransmit_expired;
        if poll {
            self.set_poll(now);
        }
        let bytes = header + data;
        debug_assert!(bytes <= budget);
        self.stats.pdus_sent += 1;
        self.stats.bytes_sent += bytes as u64;
        out.extend(std::iter::once_with(|| Pdu {
            bytes,
            body: Body::AmData(DataPdu {
                sn,
                poll,
                so: 0,
                len: data,
                total: data,
                pieces,
            }),
        }));
        Some(bytes)
    }

    /// Retransmits PDU `sn` (or as much of it as fits in `budget`). `None` if not even one
    /// byte of it fits.
    fn retransmit(&mut self, now: SimTime, sn: u64, budget: u32) -> Option<Pdu> {
        let idx = (sn - self.vt_a) as usize;
        let fixed = self.fixed_header;
        let slot = &self.tx_window[idx];
        debug_assert_eq!(slot.state, TxState::Retx);
        let pieces = slot
            .pieces
            .clone()
            .expect("a PDU waiting for retransmission keeps its data field");
        let so = slot.resend_offset;
        let total = slot.data_bytes;
        let (len, header) = if so == 0 && slot.header_bytes + total <= budget {
            (total, slot.header_bytes)
        } else {
            segment_fit(&pieces, so, budget, fixed)?
        };
        self.retx_bytes -= remaining_size(slot, fixed);
        let slot = &mut self.tx_window[idx];
        if so + len == total {
            slot.state = TxState::Sent;
            slot.resend_offset = 0;
            self.retx_queue.remove(&sn);
        } else {
            slot.resend_offset = so + len;
            self.retx_bytes += remaining_size(slot, fixed);
        }
        let poll = (self.txq.is_empty() && self.retx_queue.is_empty())
            || self.window_stalled()
            || self.poll_retransmit_expired;
        if poll {
            self.set_poll(now);
        }
        let bytes = header + len;
        self.stats.pdus_sent += 1;
        self.stats.pdus_retx += 1;
        self.stats.bytes_sent += bytes as u64;
        Some(Pdu {
            bytes,
            body: Body::AmData(DataPdu {
                sn,
                poll,
                so,
                len,
                total,
                pieces,
            }),
        })
    }

    /// §5.2.2.1: a poll was included in a PDU just built.
    fn set_poll(&mut self, now: SimTime) {
        self.poll_retransmit_expired = false;
        self.pdu_without_poll = 0;
        self.byte_without_poll = 0;
        self.poll_sn = self.vt_s - 1;
        self.poll_timer = Some(now + self.t_poll_retransmit);
    }

    /// §5.2.1: PDU at `idx` (of the window) is considered for retransmission, unless it is
    /// acknowledged or already waiting.
    fn consider_for_retx(&mut self, idx: usize) {
        let slot = &mut self.tx_window[idx];
        if slot.state != TxState::Sent {
            return;
        }
        slot.state = TxState::Retx;
        slot.resend_offset = 0;
        slot.retx_count += 1;
        if slot.retx_count == self.max_retx {
            self.stats.max_retx_reached += 1;
        }
        self.retx_bytes += (slot.header_bytes + slot.data_bytes) as u64;
        self.retx_queue.insert(self.vt_a + idx as u64);
    }

    fn mark_acked(&mut self, idx: usize) {
        let fixed = self.fixed_header;
        let slot = &mut self.tx_window[idx];
        match slot.state {
            TxState::Acked => return,
            TxState::Retx => {
                self.retx_bytes -= remaining_size(slot, fixed);
                self.retx_queue.remove(&(self.vt_a + idx as u64));
            }
            TxState::Sent => {}
        }
        slot.state = TxState::Acked;
        if let Some(p) = slot.pieces.take() {
            give_back(&self.pool, p);
        }
    }

    /// §5.2.2.2 and §5.2.1: a status report from the peer.
    fn receive_status(&mut self, s: &StatusPdu) {
        self.stats.status_received += 1;
        if self.poll_timer.is_some() && self.poll_sn < s.ack_sn {
            self.poll_timer = None;
        }
        let upper = s.ack_sn.min(self.vt_s);
        let mut nacks = s.nacks.iter().copied().peekable();
        let mut sn = self.vt_a;
        while sn < upper {
            while nacks.next_if(|&n| n < sn).is_some() {}
            let idx = (sn - self.vt_a) as usize;
            if nacks.peek() == Some(&sn) {
                self.consider_for_retx(idx);
            } else {
                self.mark_acked(idx);
            }
            sn += 1;
        }
        while self
            .tx_window
            .front()
            .is_some_and(|s| s.state == TxState::Acked)
        {
            self.tx_window.pop_front();
            self.vt_a += 1;
        }
    }
}

/// Size of what is left to retransmit of a PDU as one PDU (segment), headers included.
fn remaining_size(slot: &TxSlot, fixed_header: u32) -> u64 {
    if slot.resend_offset == 0 {
        return (slot.header_bytes + slot.data_bytes) as u64;
    }
    let pieces = slot
        .pieces
        .as_deref()
        .expect("a PDU waiting for retransmission keeps its data field");
    let k = overlapping(pieces, slot.resend_offset, slot.data_bytes).len();
    (fixed_header + li_bytes(k) + slot.data_bytes - slot.resend_offset) as u64
}

/// Longest segment starting at data-field byte `so` that fits in `budget` bytes with its
/// header (fixed part + LIs of the elements it overlaps). Returns (data bytes, header bytes),
/// or `None` if not even one byte fits.
fn segment_fit(pieces: &[Piece], so: u32, budget: u32, fixed_header: u32) -> Option<(u32, u32)> {
    let start = pieces.partition_point(|p| p.pdu_offset + p.len <= so);
    let mut best = None;
    for (i, p) in pieces[start..].iter().enumerate() {
        let header = fixed_header + li_bytes(i + 1);
        if header >= budget {
            break;
        }
        let max_data = budget - header;
        // This element occupies [begin, end) of the segment.
        let begin = p.pdu_offset.max(so) - so;
        let end = p.pdu_offset + p.len - so;
        if max_data <= begin {
            break;
        }
        if max_data >= end {
            best = Some((end, header));
        } else {
            best = Some((max_data, header));
            break;
        }
    }
    best
}

/// The earlier of two optional instants.
#[inline]
fn earliest(a: Option<SimTime>, b: Option<SimTime>) -> Option<SimTime> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

mod receiver;

#[cfg(test)]
mod tests;
