//! RLC: acknowledged (AM) and unacknowledged (UM) mode entities.
//!
//! An RLC entity sits at one end of a radio bearer, between PDCP (which hands down SDUs) and
//! the MAC (which offers transmission opportunities and hands up received PDUs). Both modes
//! are sans-IO state machines: every call gets `now`, timers are pulled with
//! [`Rlc::next_timer`] and fired with [`Rlc::on_timer`].
//!
//! - [`am`]: acknowledged mode (ARQ with polling, status reports, retransmission and
//!   re-segmentation), the mode of ns-3 mmWave's TCP examples.
//! - [`um`]: unacknowledged mode (segmentation and reordering, no retransmission).
//!
//! What both modes share is in private submodules, its public part re-exported here
//! (`mmtsim_ran::rlc::{Sdu, Pdu, RlcConfig, …}`): `pdu` (SDUs, PDUs, the length-indicator
//! arithmetic), `config` (configuration and presets, counters, buffer status) and
//! `segmentation` (the transmission buffer with its segmentation and concatenation, and
//! reassembly). This file keeps [`Rlc`], the entity either mode sits behind.
//!
//! # Which RLC
//! ns-3 mmWave uses the LTE RLC of its (forked) LTE module, `lte-rlc-am.cc` /
//! `lte-rlc-um.cc`, which implement TS 36.322. We follow that entity, not NR RLC (TS 38.322):
//! a data PDU **concatenates** as many SDUs (or SDU segments) as fit in the opportunity, with
//! one length indicator per element but the last. NR RLC would put one SDU or segment per
//! PDU and let the MAC multiplex them; the header overhead differs (NR: 2–3 bytes per SDU,
//! LTE: 1.5 bytes per extra SDU plus one fixed header per PDU), which matters little for
//! transport results but is documented here so nobody has to guess.
//!
//! # Header sizes (TS 36.322 §6.2.1, as serialised by ns-3 `lte-rlc-am-header.cc`)
//! - AM data PDU: fixed part D/C, RF, P, FI(2), E + SN (`sn_bits`, 10 by default), padded to
//!   bytes (2 bytes), **plus** LSF + 15-bit segment offset (2 bytes). TS 36.322 carries the
//!   SO part only in re-segmented PDUs; ns-3 always writes it, so every AM data PDU has a
//!   4-byte fixed header, and so do we.
//! - UM data PDU: FI(2), E + SN (10 bits by default), padded: 2 bytes (ns-3 `lte-rlc-header.cc`).
//! - Each element of the data field but the last carries E + an 11-bit LI: 12 bits, packed
//!   in pairs, so k elements add `ceil(1.5·(k−1))` bytes ([`li_bytes`]). An element longer than
//!   2047 bytes (the 11-bit LI limit) can only be the last one of a PDU.
//! - AM status PDU: D/C, CPT(3), ACK_SN, E1, then E1 + E2 + NACK_SN per NACK, padded: with a
//!   10-bit SN, `ceil((15 + 12·nacks)/8)` bytes. No SOstart/SOend fields (ns-3 never sends
//!   them either): a partly received PDU is NACKed whole.
//!
//! # Concatenation rule (ns-3 `LteRlcAm::DoNotifyTxOpportunity`, same in `LteRlcUm`)
//! With `avail` = opportunity − fixed header, SDUs are taken from the head of the buffer:
//! an element that does not fit (or is longer than 2047 bytes) is cut (or placed whole) as
//! the last element; an element that fits is the last one if the buffer has no further SDU
//! or if at most 2 bytes would be left after it; otherwise it gets an LI (2 bytes for odd,
//! 1 byte for even element numbers) and the loop continues. The PDU therefore fills the
//! opportunity exactly or leaves at most 2 bytes unused.
//!
//! # Buffer limit and AQM
//! `max_tx_buffer_bytes` limits the *transmission* buffer (SDU bytes not yet sent, without
//! RLC headers): an arriving SDU is refused if buffer + SDU > limit (ns-3
//! `DoTransmitPdcpPdu`: accepted iff `txonBufferSize + size <= MaxTxBufferSize`). PDUs
//! awaiting acknowledgement or retransmission do not count against it. Optionally CoDel
//! (RFC 8289) runs on that buffer, judging each SDU's sojourn time (arrival to the moment
//! its first byte is put in a PDU) and dropping at the head; those drops are collected and
//! handed out by [`Rlc::take_dropped`]. ns-3's `EnableAQM` replaces the byte limit by the
//! CoDel queue's own limit; we keep both (use 0 for no byte limit).
//!
//! # Sequence numbers
//! Internally SNs are absolute `u64` counters; a PDU carries the absolute SN. Real PDUs
//! carry `SN mod 2^sn_bits` and the receiver reconstructs the rest from its window; as both
//! ends keep every SN inside the window (`2^(sn_bits−1)`), the two are equivalent, and the
//! absolute form removes every modular comparison. `sn_bits` still sets the window and the
//! header sizes.

pub mod am;
pub mod um;

mod config;
mod pdu;
mod segmentation;

pub use config::{BufferStatus, CodelParams, RlcConfig, RlcMode, RlcStats};
pub(crate) use pdu::SharedPool;
pub(crate) use pdu::{li_bytes, Body, Piece};
pub use pdu::{Pdu, PduKind, Sdu, LI_MAX_BYTES};
pub(crate) use segmentation::{Reassembler, TxQueue};

use mmtsim_engine::SimTime;

/// One RLC entity at one end of a radio bearer, both directions (AM: transmitter + receiver;
/// UM: the same API).
#[derive(Clone, Debug)]
pub enum Rlc {
    /// Acknowledged mode.
    Am(am::AmEntity),
    /// Unacknowledged mode.
    Um(um::UmEntity),
}

impl Rlc {
    /// An entity of `cfg.mode`.
    pub fn new(cfg: &RlcConfig) -> Rlc {
        match cfg.mode {
            RlcMode::Am => Rlc::Am(am::AmEntity::new(cfg)),
            RlcMode::Um => Rlc::Um(um::UmEntity::new(cfg)),
        }
    }

    /// The two ends of one bearer, of `cfg.mode`, sharing `pool`, a pool of PDU element
    /// lists ([`SharedPool`]: whichever end lets go of a list last hands it back).
    pub(crate) fn pair(cfg: &RlcConfig, pool: &SharedPool) -> [Rlc; 2] {
        match cfg.mode {
            RlcMode::Am => [
                Rlc::Am(am::AmEntity::with_pool(cfg, pool.clone())),
                Rlc::Am(am::AmEntity::with_pool(cfg, pool.clone())),
            ],
            RlcMode::Um => [
                Rlc::Um(um::UmEntity::with_pool(cfg, pool.clone())),
                Rlc::Um(um::UmEntity::with_pool(cfg, pool.clone())),
            ],
        }
    }

    /// PDCP hands down an SDU to transmit. `Err(sdu)` if it was dropped (buffer full);
    /// counted in stats.
    pub fn send_sdu(&mut self, now: SimTime, sdu: Sdu) -> Result<(), Sdu> {
        match self {
            Rlc::Am(e) => e.send_sdu(now, sdu),
            Rlc::Um(e) => e.send_sdu(now, sdu),
        }
    }

    /// PDCP hands down an SDU sent again at a handover (lossless data forwarding): taken
    /// whatever the buffer limit.
    pub fn send_forwarded_sdu(&mut self, now: SimTime, sdu: Sdu) {
        match self {
            Rlc::Am(e) => e.send_forwarded_sdu(now, sdu),
            Rlc::Um(e) => e.send_forwarded_sdu(now, sdu),
        }
    }

    /// What the MAC must report and serve now.
    pub fn buffer_status(&self, now: SimTime) -> BufferStatus {
        match self {
            Rlc::Am(e) => e.buffer_status(now),
            Rlc::Um(e) => e.buffer_status(now),
        }
    }

    /// Bytes in the transmission buffer (new SDU bytes + retransmission bytes): the "RLC
    /// buffer occupancy".
    pub fn tx_buffer_bytes(&self) -> u64 {
        match self {
            Rlc::Am(e) => e.tx_buffer_bytes(),
            Rlc::Um(e) => e.tx_buffer_bytes(),
        }
    }

    /// SDU bytes the transmission buffer still takes before its limit refuses an SDU
    /// (`u64::MAX` without a limit).
    pub fn sdu_room_bytes(&self) -> u64 {
        match self {
            Rlc::Am(e) => e.sdu_room_bytes(),
            Rlc::Um(e) => e.sdu_room_bytes(),
        }
    }

    /// A MAC transmission opportunity of `bytes`: builds PDUs (status first, then
    /// retransmissions, then new data) and appends them to `out`. Their sizes add up to at
    /// most `bytes`.
    pub fn tx_opportunity(&mut self, now: SimTime, bytes: u32, out: &mut Vec<Pdu>) {
        match self {
            Rlc::Am(e) => e.tx_opportunity(now, bytes, out),
            Rlc::Um(e) => e.tx_opportunity(now, bytes, out),
        }
    }

    /// A PDU from the peer entity arrived (data or status). In-order reassembled SDUs are
    /// appended to `delivered` (AM: each SDU exactly once, in order).
    pub fn receive_pdu(&mut self, now: SimTime, pdu: Pdu, delivered: &mut Vec<Sdu>) {
        match self {
            Rlc::Am(e) => e.receive_pdu(now, pdu, delivered),
            Rlc::Um(e) => e.receive_pdu(now, pdu, delivered),
        }
    }

    /// Earliest pending timer.
    pub fn next_timer(&self) -> Option<SimTime> {
        match self {
            Rlc::Am(e) => e.next_timer(),
            Rlc::Um(e) => e.next_timer(),
        }
    }

    /// Fires every timer due at `now`; SDUs they release are appended to `delivered`.
    pub fn on_timer(&mut self, now: SimTime, delivered: &mut Vec<Sdu>) {
        match self {
            Rlc::Am(e) => e.on_timer(now, delivered),
            Rlc::Um(e) => e.on_timer(now, delivered),
        }
    }

    /// Counters.
    pub fn stats(&self) -> &RlcStats {
        match self {
            Rlc::Am(e) => e.stats(),
            Rlc::Um(e) => e.stats(),
        }
    }

    /// Moves the SDUs CoDel dropped from the transmission buffer since the last call into
    /// `out` (the world frees their packets). Always empty without CoDel.
    pub fn take_dropped(&mut self, out: &mut Vec<Sdu>) {
        match self {
            Rlc::Am(e) => e.take_dropped(out),
            Rlc::Um(e) => e.take_dropped(out),
        }
    }

    /// SDUs in the transmission buffer (not yet completely put into PDUs).
    pub fn sdus_queued(&self) -> usize {
        match self {
            Rlc::Am(e) => e.sdus_queued(),
            Rlc::Um(e) => e.sdus_queued(),
        }
    }
}

#[cfg(test)]
mod tests;
