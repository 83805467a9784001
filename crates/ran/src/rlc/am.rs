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

use super::{
    li_bytes, Body, BufferStatus, Pdu, Piece, Reassembler, RlcConfig, RlcStats, Sdu, TxQueue,
};
use mmtsim_engine::SimTime;
use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;

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
    pub(crate) pieces: Arc<[Piece]>,
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
    pieces: Option<Arc<[Piece]>>,
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
    Complete(Arc<[Piece]>),
    /// Nothing received.
    Missing,
    /// Some byte segments received: sorted, disjoint, non-adjacent ranges.
    Partial {
        pieces: Arc<[Piece]>,
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

    /// Reused buffer for building data fields.
    scratch: Vec<Piece>,
    stats: RlcStats,
}

impl AmEntity {
    /// An entity configured by `cfg` (its `mode` is not checked).
    pub fn new(cfg: &RlcConfig) -> Self {
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
            scratch: Vec::new(),
            stats: RlcStats::default(),
        }
    }

    /// See [`super::Rlc::send_sdu`].
    pub fn send_sdu(&mut self, now: SimTime, sdu: Sdu) -> Result<(), Sdu> {
        self.txq.push(now, sdu, &mut self.stats)
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
            let Some(pdu) = self.new_pdu(now, budget) else {
                break;
            };
            budget -= pdu.bytes;
            out.push(pdu);
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
        let prohibit = self.status_prohibit_timer.filter(|_| self.status_requested);
        [self.poll_timer, self.reordering_timer, prohibit]
            .into_iter()
            .flatten()
            .min()
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
    /// (`budget > fixed_header`). `None` if CoDel emptied the buffer.
    fn new_pdu(&mut self, now: SimTime, budget: u32) -> Option<Pdu> {
        self.scratch.clear();
        let data = self.txq.fill(
            now,
            budget - self.fixed_header,
            &mut self.scratch,
            &mut self.stats,
        );
        if data == 0 {
            return None;
        }
        let header = self.fixed_header + li_bytes(self.scratch.len());
        let pieces: Arc<[Piece]> = Arc::from(&self.scratch[..]);
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
        Some(Pdu {
            bytes,
            body: Body::AmData(DataPdu {
                sn,
                poll,
                so: 0,
                len: data,
                total: data,
                pieces,
            }),
        })
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
        slot.pieces = None;
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

    // ---------------------------------------------------------------- receiver

    fn status_prohibited(&self, now: SimTime) -> bool {
        self.status_prohibit_timer.is_some_and(|t| now < t)
    }

    /// Size of a status PDU with `nacks` NACK_SNs: D/C + CPT(3) + ACK_SN + E1, then
    /// NACK_SN + E1 + E2 per NACK, padded to bytes (TS 36.322 §6.2.1.6).
    fn status_bytes(&self, nacks: usize) -> u32 {
        let sn = self.sn_bits as u32;
        (5 + sn + nacks as u32 * (sn + 2)).div_ceil(8)
    }

    /// Whether PDU `sn` has been completely received (everything below VR(R) has).
    fn is_complete(&self, sn: u64) -> bool {
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
    fn build_status(&self, budget: u32) -> Option<Pdu> {
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
    fn receive_data(&mut self, now: SimTime, d: DataPdu, delivered: &mut Vec<Sdu>) {
        self.stats.pdus_received += 1;
        if d.poll {
            self.status_requested = true;
        }
        let x = d.sn;
        if x < self.vr_r || x >= self.vr_r + self.window {
            self.stats.pdus_discarded += 1;
            return;
        }
        let idx = (x - self.vr_r) as usize;
        if self.rx_window.len() <= idx {
            self.rx_window.resize(idx + 1, RxSlot::Missing);
        }
        let (from, to) = (d.so, d.so + d.len);
        let slot = &mut self.rx_window[idx];
        let placed = match slot {
            RxSlot::Complete(_) => false,
            RxSlot::Missing => {
                *slot = if d.is_segment() {
                    RxSlot::Partial {
                        pieces: d.pieces,
                        total: d.total,
                        got: vec![(from, to)],
                    }
                } else {
                    RxSlot::Complete(d.pieces)
                };
                true
            }
            RxSlot::Partial { pieces, total, got } => {
                if got.iter().any(|&(a, b)| a <= from && to <= b) {
                    false
                } else {
                    insert_range(got, from, to);
                    if got[..] == [(0, *total)] {
                        *slot = RxSlot::Complete(pieces.clone());
                    }
                    true
                }
            }
        };
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
                self.rx_window.pop_front();
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
    fn reordering_expired(&mut self, now: SimTime) {
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

#[cfg(test)]
mod tests {
    use super::super::{PduKind, RlcMode};
    use super::*;
    use mmtsim_engine::SimRng;
    use proptest::prelude::*;
    use rand::{Rng, SeedableRng};

    fn ms(t: u64) -> SimTime {
        SimTime::from_ms(t)
    }

    /// ns-3 defaults without a buffer limit.
    fn cfg() -> RlcConfig {
        RlcConfig {
            max_tx_buffer_bytes: 0,
            ..RlcConfig::default()
        }
    }

    fn opportunity(e: &mut AmEntity, now: SimTime, bytes: u32) -> Vec<Pdu> {
        let mut out = Vec::new();
        e.tx_opportunity(now, bytes, &mut out);
        assert!(out.iter().map(Pdu::bytes).sum::<u32>() <= bytes);
        out
    }

    fn receive(e: &mut AmEntity, now: SimTime, pdus: Vec<Pdu>) -> Vec<u64> {
        let mut d = Vec::new();
        for p in pdus {
            e.receive_pdu(now, p, &mut d);
        }
        d.iter().map(|s| s.id).collect()
    }

    // ---------------------------------------------------------------- (3) segmentation

    #[test]
    fn concatenation_and_segmentation_worked_by_hand() {
        let mut a = AmEntity::new(&cfg());
        for (id, b) in [(0, 100), (1, 200), (2, 300)] {
            a.send_sdu(ms(0), Sdu::new(id, b)).unwrap();
        }
        // Grant 250: avail = 250 − 4 = 246. SDU0 (100) fits with 146 > 2 left and more SDUs
        // queued → LI (2 B), avail = 246 − 100 − 2 = 144. SDU1 (200) > 144 → cut at 144,
        // last element. PDU = 4 + 2 + 100 + 144 = 250, header 6.
        let p = opportunity(&mut a, ms(0), 250);
        assert_eq!(p.len(), 1);
        assert_eq!(
            (p[0].bytes(), p[0].header_bytes(), p[0].elements()),
            (250, 6, 2)
        );
        assert_eq!((p[0].sn(), p[0].kind()), (Some(0), PduKind::AmData));
        // 56 B of SDU1 + 300 B of SDU2 left.
        assert_eq!(a.tx_buffer_bytes(), 356);
        // New bytes for the BSR: 356 + 4 (fixed) + 2 (one LI for two elements).
        assert_eq!(a.buffer_status(ms(0)).new_bytes, 362);
        // Grant 400: avail 396. SDU1 rest (56): 340 > 2 left, SDU2 queued → LI 2 B,
        // avail = 396 − 58 = 338. SDU2 (300) is the last SDU → whole, no LI.
        // PDU = 4 + 2 + 56 + 300 = 362.
        let p = opportunity(&mut a, ms(0), 400);
        assert_eq!(p.len(), 1);
        assert_eq!(
            (p[0].bytes(), p[0].header_bytes(), p[0].sn()),
            (362, 6, Some(1))
        );
        assert_eq!(a.tx_buffer_bytes(), 0);

        // Four SDUs 10, 20, 30, 40 in a 1000-byte grant: LIs cost 2, 1, 2 bytes (12 bits
        // each, packed in pairs) = li_bytes(4) = 5; PDU = 4 + 5 + 100 = 109.
        for (id, b) in [(3, 10), (4, 20), (5, 30), (6, 40)] {
            a.send_sdu(ms(0), Sdu::new(id, b)).unwrap();
        }
        let p = opportunity(&mut a, ms(0), 1000);
        assert_eq!(p.len(), 1);
        assert_eq!(
            (p[0].bytes(), p[0].header_bytes(), p[0].elements()),
            (109, 9, 4)
        );

        // The "≤ 2 bytes left" rule: SDUs of 100 and 100 in a grant of 106: avail 102,
        // 102 − 100 = 2 ≤ 2 → SDU7 is the last element, the PDU is 104 bytes and 2 bytes of
        // the grant stay unused (an LI of 2 B would leave no room for data).
        a.send_sdu(ms(0), Sdu::new(7, 100)).unwrap();
        a.send_sdu(ms(0), Sdu::new(8, 100)).unwrap();
        let p = opportunity(&mut a, ms(0), 106);
        assert_eq!(p.len(), 1);
        assert_eq!((p[0].bytes(), p[0].elements()), (104, 1));
        // Too small for a header and one byte: nothing.
        assert!(opportunity(&mut a, ms(0), 4).is_empty());
        // Grant 5: one byte of SDU8.
        let p = opportunity(&mut a, ms(0), 5);
        assert_eq!((p[0].bytes(), a.tx_buffer_bytes()), (5, 99));
    }

    #[test]
    fn sdus_longer_than_the_li_limit_end_the_pdu() {
        // An element > 2047 B cannot have an LI, so it is the last one even if more fits:
        // SDU 3000 + SDU 100 in a grant of 10 000 → PDU 1 = 4 + 3000, PDU 2 = 4 + 100.
        let mut a = AmEntity::new(&cfg());
        a.send_sdu(ms(0), Sdu::new(0, 3000)).unwrap();
        a.send_sdu(ms(0), Sdu::new(1, 100)).unwrap();
        assert_eq!(a.buffer_status(ms(0)).new_bytes, 3100 + 2 * 4 + 2);
        let p = opportunity(&mut a, ms(0), 10_000);
        assert_eq!(
            p.iter().map(Pdu::bytes).collect::<Vec<_>>(),
            vec![3004, 104]
        );
    }

    #[test]
    fn retransmission_is_resegmented_with_per_segment_headers() {
        let mut a = AmEntity::new(&cfg());
        let mut b = AmEntity::new(&cfg());
        for (id, n) in [(0, 100), (1, 200), (2, 300)] {
            a.send_sdu(ms(0), Sdu::new(id, n)).unwrap();
        }
        // Grant 612: avail 608; LIs 2 + 1 → header 4 + 3 = 7; PDU 607.
        let lost = opportunity(&mut a, ms(0), 612);
        assert_eq!((lost[0].bytes(), lost[0].header_bytes()), (607, 7));
        // The PDU is lost; t-PollRetransmit (20 ms) expires with both buffers empty, so the
        // PDU is considered for retransmission: 607 bytes wait.
        a.on_timer(ms(20), &mut Vec::new());
        assert_eq!(a.buffer_status(ms(20)).retx_bytes, 607);
        // Grant 250 from offset 0: with 1 element header 4, max data 246 ≥ 100 (SDU0 whole);
        // with 2 elements header 6, max data 244 < 300 → segment of 244 bytes, 250 total.
        let s1 = opportunity(&mut a, ms(20), 250);
        assert_eq!(s1.len(), 1);
        assert_eq!(
            (s1[0].kind(), s1[0].bytes(), s1[0].header_bytes()),
            (PduKind::AmSegment, 250, 6)
        );
        // Poll: t-PollRetransmit has just expired.
        assert!(s1[0].has_poll());
        // Left: bytes 244..600 overlap SDU1 (rest 56) and SDU2 (300): 4 + 2 + 356 = 362.
        assert_eq!(a.buffer_status(ms(20)).retx_bytes, 362);
        assert_eq!(a.tx_buffer_bytes(), 362);
        let s2 = opportunity(&mut a, ms(20), 400);
        assert_eq!(
            (s2[0].kind(), s2[0].bytes(), s2[0].header_bytes()),
            (PduKind::AmSegment, 362, 6)
        );
        // Last retransmission with empty buffers: poll.
        assert!(s2[0].has_poll());
        assert_eq!(a.tx_buffer_bytes(), 0);
        assert_eq!(a.stats().pdus_retx, 2);
        // The receiver reassembles the PDU from its two segments, in any order.
        assert_eq!(receive(&mut b, ms(21), s2), Vec::<u64>::new());
        assert_eq!(receive(&mut b, ms(21), s1), vec![0, 1, 2]);
        // Its status acknowledges SN 0: ACK_SN 1, no NACK, 2 bytes.
        let st = opportunity(&mut b, ms(21), 100);
        assert_eq!(st[0].status(), Some((1, &[][..])));
        assert_eq!(st[0].bytes(), 2);
        receive(&mut a, ms(22), st);
        assert_eq!((a.unacked_pdus(), a.next_timer()), (0, None));
    }

    // ---------------------------------------------------------------- (2) buffer limit

    #[test]
    fn full_buffer_refuses_and_counts_exactly() {
        let mut a = AmEntity::new(&RlcConfig {
            max_tx_buffer_bytes: 3000,
            ..RlcConfig::default()
        });
        for id in 0..3 {
            a.send_sdu(ms(0), Sdu::new(id, 1000)).unwrap();
        }
        // 3000 + 1000 > 3000: refused, and handed back unchanged.
        assert_eq!(a.send_sdu(ms(0), Sdu::new(3, 1000)), Err(Sdu::new(3, 1000)));
        assert_eq!(a.tx_buffer_bytes(), 3000);
        // Sending 500 bytes of SDU0 (grant 504 = 4 + 500) frees 500: a 500-byte SDU fits
        // exactly (2500 + 500 = 3000), one more byte does not.
        opportunity(&mut a, ms(1), 504);
        assert_eq!(a.tx_buffer_bytes(), 2500);
        a.send_sdu(ms(1), Sdu::new(4, 500)).unwrap();
        assert_eq!(a.send_sdu(ms(1), Sdu::new(5, 1)), Err(Sdu::new(5, 1)));
        let s = a.stats();
        assert_eq!((s.sdus_in, s.sdus_dropped, s.bytes_dropped), (6, 2, 1001));
    }

    #[test]
    fn nothing_is_lost_silently() {
        // Lossless, immediate air: after every step, every SDU offered is delivered, refused
        // or still queued at the transmitter (a partly sent SDU counts as queued).
        let mut rng = SimRng::seed_from_u64(7);
        let mut a = AmEntity::new(&RlcConfig {
            max_tx_buffer_bytes: 20_000,
            ..RlcConfig::default()
        });
        let mut b = AmEntity::new(&cfg());
        let mut delivered = Vec::new();
        for step in 0..3000u64 {
            let now = SimTime::from_us(125 * step);
            for _ in 0..rng.random_range(0..6) {
                let id = a.stats().sdus_in;
                let _ = a.send_sdu(now, Sdu::new(id, rng.random_range(1..=2500)));
            }
            let pdus = opportunity(&mut a, now, rng.random_range(5..=6000));
            for p in pdus {
                b.receive_pdu(now, p, &mut delivered);
            }
            let st = opportunity(&mut b, now, 100);
            receive(&mut a, now, st);
            let s = a.stats();
            assert_eq!(
                s.sdus_in,
                b.stats().sdus_delivered + s.sdus_dropped + a.sdus_queued() as u64
            );
        }
        assert!(a.stats().sdus_dropped > 0, "the test must exercise drops");
        // Delivered in order, without the refused ones.
        assert!(delivered.windows(2).all(|w| w[0].id < w[1].id));
    }

    // ---------------------------------------------------------------- (4) timers

    #[test]
    fn status_prohibit_limits_status_frequency() {
        // A sends one 100-byte SDU per ms, each PDU polls; B's t-StatusProhibit is 10 ms.
        // B: status at 0 ms (ACK_SN 1), then prohibited until 10 ms although every PDU
        // polls; at 10 ms the timer has expired → status (ACK_SN 11: SNs 0..=10 received);
        // at 20 ms → ACK_SN 21. Three statuses in 0..=20 ms instead of 21.
        let mut a = AmEntity::new(&cfg());
        let mut b = AmEntity::new(&cfg());
        let mut statuses = Vec::new();
        for t in 0..=20 {
            let now = ms(t);
            a.send_sdu(now, Sdu::new(t, 100)).unwrap();
            let p = opportunity(&mut a, now, 1000);
            assert!(p[0].has_poll());
            assert_eq!(receive(&mut b, now, p), vec![t]);
            if b.next_timer().is_some_and(|d| d <= now) {
                b.on_timer(now, &mut Vec::new());
            }
            if t == 5 {
                assert_eq!(b.buffer_status(now).status_bytes, 0);
                assert_eq!(b.next_timer(), Some(ms(10)));
            }
            for s in opportunity(&mut b, now, 1000) {
                statuses.push((t, s.status().unwrap().0));
                receive(&mut a, now, vec![s]);
            }
        }
        assert_eq!(statuses, vec![(0, 1), (10, 11), (20, 21)]);
        assert_eq!(b.stats().status_sent, 3);
        assert_eq!(a.unacked_pdus(), 0);
    }

    #[test]
    fn poll_retransmit_recovers_a_lost_poll() {
        let mut a = AmEntity::new(&cfg());
        let mut b = AmEntity::new(&cfg());
        a.send_sdu(ms(0), Sdu::new(0, 100)).unwrap();
        // t = 0: SN 0, 104 bytes, polls; t-PollRetransmit runs until 0 + 20 ms. Lost.
        let lost = opportunity(&mut a, ms(0), 1000);
        assert!(lost[0].has_poll());
        assert_eq!(a.next_timer(), Some(ms(20)));
        a.on_timer(ms(20) - SimTime(1), &mut Vec::new());
        assert_eq!(a.buffer_status(ms(20)).retx_bytes, 0);
        // t = 20 ms: expiry with both buffers empty → SN 0 (104 B) waits for retransmission.
        a.on_timer(ms(20), &mut Vec::new());
        assert_eq!(a.stats().poll_retransmit_expiries, 1);
        assert_eq!(a.buffer_status(ms(20)).retx_bytes, 104);
        let re = opportunity(&mut a, ms(20), 1000);
        assert_eq!(
            (re[0].sn(), re[0].bytes(), re[0].kind()),
            (Some(0), 104, PduKind::AmData)
        );
        assert!(re[0].has_poll());
        // The poll restarted the timer: 20 + 20 = 40 ms.
        assert_eq!(a.next_timer(), Some(ms(40)));
        assert_eq!(receive(&mut b, ms(21), re), vec![0]);
        let st = opportunity(&mut b, ms(21), 1000);
        receive(&mut a, ms(22), st);
        // ACK_SN 1 > POLL_SN 0: timer stopped, SN 0 acknowledged.
        assert_eq!(
            (a.next_timer(), a.unacked_pdus(), a.tx_buffer_bytes()),
            (None, 0, 0)
        );
    }

    #[test]
    fn reordering_timer_reports_a_gap() {
        let mut a = AmEntity::new(&cfg());
        let mut b = AmEntity::new(&RlcConfig {
            t_status_prohibit: ms(1),
            ..cfg()
        });
        // Three SDUs of 100 B in three 104-byte grants: SN 0, 1, 2. SN 1 is lost.
        let mut p = Vec::new();
        for id in 0..3 {
            a.send_sdu(ms(0), Sdu::new(id, 100)).unwrap();
            p.extend(opportunity(&mut a, ms(0), 104));
        }
        let sn2 = p.pop().unwrap();
        let _lost = p.pop().unwrap();
        // t = 1 ms: SN 0 → delivered, VR(R) = 1. SN 2 → VR(H) = 3 > VR(R): t-Reordering
        // starts, expiring at 1 + 10 = 11 ms, VR(X) = 3.
        assert_eq!(receive(&mut b, ms(1), p), vec![0]);
        assert_eq!(receive(&mut b, ms(1), vec![sn2]), Vec::<u64>::new());
        // The poll's status reports nothing missing yet: ACK_SN = VR(MS) = 1.
        let st = opportunity(&mut b, ms(1), 100);
        assert_eq!(st[0].status(), Some((1, &[][..])));
        receive(&mut a, ms(2), st);
        assert_eq!(b.next_timer(), Some(ms(11)));
        b.on_timer(ms(11) - SimTime(1), &mut Vec::new());
        assert_eq!(b.buffer_status(ms(11) - SimTime(1)).status_bytes, 0);
        // t = 11 ms: VR(MS) = first SN ≥ VR(X) = 3 not received = 3; status triggered:
        // NACK 1, ACK_SN 3, ceil((15 + 12)/8) = 4 bytes.
        b.on_timer(ms(11), &mut Vec::new());
        assert_eq!(b.stats().reordering_expiries, 1);
        assert_eq!(b.buffer_status(ms(11)).status_bytes, 4);
        let st = opportunity(&mut b, ms(11), 100);
        assert_eq!(st[0].status(), Some((3, &[1u64][..])));
        assert_eq!(st[0].bytes(), 4);
        // A: SN 1 waits for retransmission (104 B), SN 2 is acknowledged.
        receive(&mut a, ms(12), st);
        assert_eq!(
            (a.buffer_status(ms(12)).retx_bytes, a.unacked_pdus()),
            (104, 2)
        );
        let re = opportunity(&mut a, ms(12), 104);
        assert_eq!(receive(&mut b, ms(13), re), vec![1, 2]);
    }

    // ---------------------------------------------------------------- (1) lossy air

    /// Two AM entities over an "air" that loses whole transport blocks with probability
    /// `loss` and delays the others by 1 to 1 + `reorder` slots (HARQ-like reordering).
    fn run_lossy(
        seed: u64,
        loss: f64,
        n: u64,
        reorder: u64,
        cfg: RlcConfig,
    ) -> (Vec<u64>, AmEntity) {
        let mut rng = SimRng::seed_from_u64(seed);
        let mut ends = [AmEntity::new(&cfg), AmEntity::new(&cfg)];
        let slot = SimTime::from_us(125);
        // (arrival, sequence, receiving end, PDUs)
        let mut air: Vec<(SimTime, u64, usize, Vec<Pdu>)> = Vec::new();
        let mut seq = 0;
        let mut next_id = 0;
        let mut delivered = Vec::new();
        let mut at_a = Vec::new();
        for step in 0..400_000u64 {
            let now = SimTime(slot.ns() * step);
            for _ in 0..rng.random_range(0..4) {
                if next_id < n {
                    ends[0]
                        .send_sdu(now, Sdu::new(next_id, rng.random_range(1..=3000)))
                        .unwrap();
                    next_id += 1;
                }
            }
            air.sort_by_key(|x| (x.0, x.1));
            while air.first().is_some_and(|x| x.0 <= now) {
                let (_, _, to, pdus) = air.remove(0);
                let sink = if to == 1 { &mut delivered } else { &mut at_a };
                for p in pdus {
                    ends[to].receive_pdu(now, p, sink);
                }
            }
            for (i, e) in ends.iter_mut().enumerate() {
                if e.next_timer().is_some_and(|t| t <= now) {
                    e.on_timer(now, if i == 1 { &mut delivered } else { &mut at_a });
                }
            }
            for (i, e) in ends.iter_mut().enumerate() {
                let mut tb = Vec::new();
                e.tx_opportunity(now, rng.random_range(8..=4000), &mut tb);
                if !tb.is_empty() && rng.random::<f64>() >= loss {
                    let delay = 1 + rng.random_range(0..=reorder);
                    air.push((SimTime(now.ns() + delay * slot.ns()), seq, 1 - i, tb));
                    seq += 1;
                }
            }
            let a = &ends[0];
            if next_id == n && a.tx_buffer_bytes() == 0 && a.unacked_pdus() == 0 {
                break;
            }
        }
        assert!(at_a.is_empty(), "B sent no data");
        let [a, _] = ends;
        (delivered.iter().map(|s| s.id).collect(), a)
    }

    proptest! {
        // No regression files: this crate keeps no proptest-regressions directory.
        #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(40) })]
        #[test]
        fn lossy_air_delivers_every_sdu_once_in_order(
            seed: u64,
            loss_pct in 10u32..=30,
            n in 1u64..250,
            reorder in 0u64..=3,
            fast_timers: bool,
            sn_bits in prop::sample::select(vec![4u8, 6, 10]),
        ) {
            // sn_bits 4 and 6 (windows of 8 and 32 PDUs) make the window stall.
            let base = if fast_timers { RlcConfig::mmwave_tcp_2017() } else { cfg() };
            let cfg = RlcConfig { sn_bits, ..base };
            prop_assert_eq!(cfg.mode, RlcMode::Am);
            let (ids, a) = run_lossy(seed, loss_pct as f64 / 100.0, n, reorder, cfg);
            prop_assert_eq!(ids, (0..n).collect::<Vec<_>>());
            // The transmitter drained: nothing queued, nothing to retransmit, all acked.
            prop_assert_eq!(a.tx_buffer_bytes(), 0);
            prop_assert_eq!(a.unacked_pdus(), 0);
            let bs = a.buffer_status(SimTime::NEVER);
            prop_assert_eq!((bs.new_bytes, bs.retx_bytes), (0, 0));
            prop_assert_eq!(a.stats().sdus_dropped, 0);
        }
    }

    #[test]
    fn lossy_air_at_30_percent_needs_retransmissions() {
        let (ids, a) = run_lossy(1, 0.3, 300, 3, cfg());
        assert_eq!(ids, (0..300).collect::<Vec<_>>());
        assert!(a.stats().pdus_retx > 0);
    }
}
