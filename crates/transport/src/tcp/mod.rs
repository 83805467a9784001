//! A sans-IO TCP for simulation: one data sender and one data receiver per flow.
//!
//! Read these before editing: RFC 9293 (TCP), RFC 5681 (congestion control), RFC 6298
//! (RTO), RFC 2018 (SACK), RFC 6675 (SACK-based recovery), RFC 6582 (NewReno), RFC 6937
//! (PRR), RFC 7323 (timestamps, window scaling), RFC 3042 (limited transmit).
//!
//! # What is modelled
//! - Three-way handshake with MSS, window-scale, SACK-permitted and timestamp options;
//!   SYN retransmission with backoff.
//! - Byte sequence space (64-bit, never wraps); payload per segment = `mss` bytes (the
//!   "segment size" of the studies: 1400 B or 14 kB), options not subtracted.
//! - Cumulative ACKs and SACK; SACK-based loss detection (RFC 6675 `IsLost`), fast
//!   retransmit on DupThresh = 3 duplicate ACKs, limited transmit (through the pipe, as in
//!   Linux), PRR (RFC 6937, Linux's variant) during fast recovery. Without SACK: NewReno
//!   (RFC 6582) recovery point and partial-ACK retransmission, duplicate ACKs counted as
//!   SACKs for the pipe as Linux does.
//! - RTO per RFC 6298 (see [`rtt`]): exponential backoff, go-back-N of everything not
//!   SACKed after a timeout (Linux `tcp_enter_loss`), slow start from cwnd = 1.
//! - Timestamps (RFC 7323) give an RTT sample on every ACK that advances SND.UNA (TSecr
//!   echo; µs clock); without them, Karn's rule: the send time of the newest newly ACKed
//!   segment, and no sample at all from an ACK that covers a retransmission. A handshake
//!   that lost its SYN and gave no sample starts data with a 3 s RTO (RFC 6298 §5.7), and
//!   after more than one SYN retransmission with cwnd = 1 (Linux).
//! - No segment is cut to fit the peer's window (sender-side silly-window avoidance),
//!   except by a window probe into a partly open window.
//! - Advertised window from the receive buffer minus out-of-order data, with window
//!   scaling; by default the receiving application reads immediately. Optionally
//!   ([`rcv_window::ReadMode::Explicit`]) it reads only when told to
//!   ([`receiver::TcpReceiver::app_read`]), so unread data fills the buffer and the window
//!   closes, chosen with Linux's receiver-side silly-window avoidance and reopened by a
//!   window update when a read lets it double ([`rcv_window`]). Optionally capped by a
//!   receive-window controller that follows the UE's downlink radio rate ([`rwnd`]).
//! - Zero-window probing ([RFC9293 §3.8.6.1]): when the window cannot take the next
//!   segment and nothing is in flight, the persist timer probes one RTO later, then after
//!   2·RTO, 4·RTO, … (at most the maximum RTO; counted from the probe, or from its answer
//!   when that still shows a closed window) with a zero-length segment below SND.UNA,
//!   which the receiver ACKs with its window; into a partly open window it sends what
//!   fits. Probing never aborts the connection (Linux's does after `tcp_retries2`
//!   unanswered probes) and never changes cwnd or ssthresh ([LINUX-PERSIST]; see
//!   `sender/persist.rs`).
//! - Delayed ACKs (off by default as in the studies): an ACK for every second full-sized
//!   segment or after `delack_timeout`; immediate ACKs for out-of-order data and for
//!   segments that fill a hole (RFC 5681 §4.2).
//! - Pacing (optional): the algorithm's rate, or Linux's default 200 % (slow start) / 120 %
//!   (congestion avoidance) of cwnd·MSS/SRTT.
//! - Slow start after idle (RFC 5681 §4.1 / Linux `tcp_slow_start_after_idle`, on by
//!   default): after an idle period longer than the RTO the window restarts from
//!   min(cwnd, IW), halved per idle RTO as Linux's `tcp_cwnd_restart`.
//! - Delivery-rate sampling ([`rate`]) for every ACK.
//! - Linux's loss recovery beyond the RFC 6675 core, each behind the switch Linux has for it
//!   ([`LossRecoveryConfig`], Linux's defaults on):
//!   - RACK-TLP (RFC 8985, [`rack`]): time-based loss marking, lost retransmissions
//!     detected without a timeout, and the tail loss probe;
//!   - D-SACK (RFC 2883): the receiver reports duplicates in the first SACK block;
//!   - undo of spurious reductions ([`undo`]): a timeout or fast recovery whose
//!     retransmissions were unnecessary — shown by timestamps (RFC 3522, Eifel), by F-RTO
//!     (RFC 5682, Linux's SACK-enhanced variant) or by D-SACKs accounting for every
//!     retransmission (Linux's `undo_retrans`, the idea of RFC 3708) — is reverted: cwnd
//!     by the algorithm's `undo_cwnd`, ssthresh back to its value before the reduction.
//!
//! # Not modelled
//! ECN and the CWR state it drives (CWR is entered only by a tail loss probe's repair);
//! SACK reneging; the adaptive duplicate-ACK threshold of the non-RACK path (`reordering`
//! is tracked but only RACK reads it); receive-side window growth (`rcv_ssthresh`) and
//! buffer autotuning; Nagle (TCP_NODELAY, as ns-3 and the studies); FIN/close; PAWS; urgent
//! data.

pub mod rack;
pub mod rate;
pub mod rcv_window;
pub mod receiver;
pub mod rtt;
pub mod rwnd;
pub mod scoreboard;
pub mod sender;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_cc_calls;
#[cfg(test)]
mod tests_handshake;
#[cfg(test)]
mod tests_loss;
#[cfg(test)]
mod tests_persist;
#[cfg(test)]
mod tests_receiver;
#[cfg(test)]
mod tests_recovery;
#[cfg(test)]
mod tests_sending;
pub mod undo;

use crate::cc::CcParams;
use mmtsim_engine::SimTime;
use mmtsim_net::packet::TS_TICK_NS;

/// Configuration of one TCP flow (both ends).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Payload bytes per full segment.
    pub mss: u32,
    /// Initial window, segments (RFC 6928: 10).
    pub initial_cwnd: u32,
    /// Initial slow-start threshold, segments; `None`: unbounded (RFC 5681 §3.1). Set
    /// before the congestion control's `init`, as Linux applies a route's `ssthresh`
    /// metric (`tcp_init_metrics` before `tcp_init_congestion_control`), so an algorithm
    /// that resets it there (BBR) still does.
    pub initial_ssthresh: Option<u32>,
    /// Use SACK (RFC 2018); off → NewReno recovery.
    pub sack: bool,
    /// Use timestamps (RFC 7323).
    pub timestamps: bool,
    /// Delayed ACKs at the receiver.
    pub delayed_ack: bool,
    /// Delayed-ACK timer (Linux's minimum, 40 ms, by default).
    pub delack_timeout: SimTime,
    /// Minimum RTO.
    pub min_rto: SimTime,
    /// Maximum RTO.
    pub max_rto: SimTime,
    /// Receive buffer, bytes (bounds the advertised window).
    pub rcv_buf: u64,
    /// Send buffer, bytes (how far ahead of SND.UNA the application may write).
    pub snd_buf: u64,
    /// Pace transmissions.
    pub pacing: bool,
    /// Restart the window after idle periods longer than the RTO.
    pub slow_start_after_idle: bool,
    /// Duplicate-ACK threshold (3).
    pub dupthresh: u32,
    /// Cap the receiver's advertised window at the downlink grant rate × rtt_min
    /// ([`rwnd`]); only for a receiver on a UE with a RAN.
    pub rwnd_control: Option<rwnd::RwndParams>,
    /// How a timeout sets ssthresh (Linux by default).
    pub rto_ssthresh: crate::cc::RtoSsthresh,
    /// Linux's loss-recovery mechanisms beyond RFC 6675 (all on by default).
    pub loss_recovery: LossRecoveryConfig,
    /// How the RTO is computed from RTT samples (Linux's estimator by default).
    pub rto_estimator: rtt::RtoEstimator,
    /// Congestion control.
    pub cc: CcParams,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1400,
            initial_cwnd: 10,
            initial_ssthresh: None,
            sack: true,
            timestamps: true,
            delayed_ack: false,
            delack_timeout: SimTime::from_ms(40),
            min_rto: SimTime::from_ms(200),
            max_rto: SimTime::from_secs(60),
            rcv_buf: 64 << 20,
            snd_buf: 64 << 20,
            pacing: false,
            slow_start_after_idle: true,
            dupthresh: 3,
            rwnd_control: None,
            rto_ssthresh: crate::cc::RtoSsthresh::Linux,
            loss_recovery: LossRecoveryConfig::default(),
            rto_estimator: rtt::RtoEstimator::Linux,
            cc: CcParams::default_for("cubic").expect("cubic is built in"),
        }
    }
}

/// Linux's loss-recovery switches, named after its sysctls (`Documentation/networking/
/// ip-sysctl.rst`), with Linux's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LossRecoveryConfig {
    /// `tcp_frto`: 0 off; 1 or 2 F-RTO (RFC 5682) after a timeout — Linux runs the
    /// SACK-enhanced variant whenever SACK is on, whichever of the two is set. Default 2.
    pub frto: u8,
    /// `tcp_recovery` bits: 0x1 RACK loss detection, 0x2 static reordering window,
    /// 0x4 no duplicate-ACK threshold shortcut. Default 0x1. RACK needs SACK.
    pub recovery: u8,
    /// `tcp_early_retrans`: 3 or 4 send tail loss probes (RFC 8985 TLP); 0–2 do not.
    /// Default 3. TLP needs SACK.
    pub early_retrans: u8,
    /// `tcp_dsack`: the receiver reports duplicate segments (RFC 2883). Default on.
    pub dsack: bool,
    /// Undo spurious window reductions (no Linux switch: Linux always may). Default on.
    pub undo: bool,
}

impl Default for LossRecoveryConfig {
    fn default() -> Self {
        LossRecoveryConfig {
            frto: 2,
            recovery: rack::RACK_LOSS_DETECTION,
            early_retrans: 3,
            dsack: true,
            undo: true,
        }
    }
}

impl LossRecoveryConfig {
    /// Everything off: the RFC 5681/6675/6582 core alone, as ns-3's TCP of the seed
    /// studies' era (3.27–3.29) had it.
    pub const CLASSIC: LossRecoveryConfig = LossRecoveryConfig {
        frto: 0,
        recovery: 0,
        early_retrans: 0,
        dsack: false,
        undo: false,
    };

    /// RACK marks losses (needs SACK).
    #[inline]
    pub fn rack(&self, sack: bool) -> bool {
        sack && self.recovery & rack::RACK_LOSS_DETECTION != 0
    }

    /// Tail loss probes are sent (needs SACK).
    #[inline]
    pub fn tlp(&self, sack: bool) -> bool {
        sack && matches!(self.early_retrans, 3 | 4)
    }
}

/// Timestamp clock reading (RFC 7323 TSval) at `now`, 1 µs ticks, wrapping at 2^32.
pub fn ts_ticks(now: SimTime) -> u32 {
    (now.ns() / TS_TICK_NS) as u32
}

/// Smallest window-scale shift that lets `buf` bytes be advertised (RFC 7323 §2.3: ≤ 14).
///
/// `buf >> s ≤ 65 535` exactly when `buf < 2^(16 + s)`, i.e. when `buf >> 16 < 2^s`:
/// the smallest such `s` is the bit length of `buf >> 16`. (Every data segment's header
/// asks, so this is a count of leading zeros rather than a loop of up to 14 shifts.)
#[inline]
pub fn wscale_for(buf: u64) -> u8 {
    ((u64::BITS - (buf >> 16).leading_zeros()) as u8).min(14)
}
