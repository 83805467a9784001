//! Fixtures shared by the unit tests of the TCP sender and receiver, which drive them
//! through their sans-IO interfaces with hand-built segments: the tests themselves are in
//! the sibling `tests_*` modules (`tests_handshake`, `tests_sending`, `tests_loss`,
//! `tests_receiver`, `tests_recovery`, `tests_persist`).
//!
//! Conventions of the fixtures:
//! - MSS = 1000 B, so segment k covers the bytes [1 + 1000·k, 1 + 1000·(k + 1)); [`seg`]
//!   gives its first byte and [`sent`] turns transmitted headers back into segment
//!   numbers.
//! - NewReno window arithmetic (Linux `reno`: exact packet counting) unless a test says
//!   otherwise, timestamps off, SACK on, MSS 1000 B, 64 MiB buffers.
//! - The RFC core alone: RACK-TLP, F-RTO, D-SACK and undo off
//!   ([`LossRecoveryConfig::CLASSIC`]) and the RFC 6298 RTO; `tests_recovery` tests the
//!   Linux mechanisms, still with the RFC 6298 RTO so the timings stay those worked here.
//! - The sender connects at t = 0 and the SYN-ACK arrives at t = 100 ms: the first RTT
//!   sample is R = 100 ms, so SRTT = 100 ms, RTTVAR = R/2 = 50 ms and
//!   RTO = SRTT + 4·RTTVAR = 300 ms (RFC 6298 §2.2; above the 200 ms minimum).
//! - The peer's SYN-ACK offers window scale 4; ACKs built here carry window field 65535,
//!   i.e. 65535·16 ≈ 1 MB, so the receive window never limits unless a test says so.
//!
//! Every expected value is derived by hand in the comment next to it.

use super::receiver::TcpReceiver;
use super::sender::{SenderState, TcpSender};
use super::{LossRecoveryConfig, TcpConfig};
use crate::cc::CcParams;
use mmtsim_engine::SimTime;
use mmtsim_net::packet::{SackBlock, SynOptions, TcpFlags, TcpHeader};
use std::ops::Range;

pub(super) const MSS: u32 = 1000;
pub(super) const MSS64: u64 = MSS as u64;
/// Arrival time of the SYN-ACK (the SYN leaves at t = 0).
pub(super) const RTT: SimTime = SimTime::from_ms(100);
pub(super) const PEER_WSCALE: u8 = 4;
/// "Unlimited" application data.
pub(super) const BIG: u64 = 100_000_000;

pub(super) fn ms(x: u64) -> SimTime {
    SimTime::from_ms(x)
}

pub(super) fn us(x: u64) -> SimTime {
    SimTime::from_us(x)
}

/// First byte of segment `k`.
pub(super) fn seg(k: u64) -> u64 {
    1 + k * MSS64
}

pub(super) fn cfg() -> TcpConfig {
    TcpConfig {
        mss: MSS,
        timestamps: false,
        cc: CcParams::NewReno,
        loss_recovery: LossRecoveryConfig::CLASSIC,
        rto_estimator: super::rtt::RtoEstimator::Rfc6298,
        ..TcpConfig::default()
    }
}

pub(super) const ACK_ONLY: TcpFlags = TcpFlags {
    syn: false,
    ack: true,
    fin: false,
};

// ----- sender fixtures -----

pub(super) fn syn_ack(
    window_field: u16,
    wscale: Option<u8>,
    timestamps: Option<(u32, u32)>,
) -> TcpHeader {
    TcpHeader {
        from_receiver: true,
        seq: 0,
        ack: 1,
        flags: TcpFlags {
            syn: true,
            ack: true,
            fin: false,
        },
        window_field,
        timestamps,
        syn_options: Some(SynOptions {
            mss: MSS as u16,
            wscale,
            sack_permitted: true,
        }),
        ..Default::default()
    }
}

/// The fixtures' SYN-ACK: window 65535 (unscaled on a SYN-ACK), shift 4 for later ACKs;
/// with timestamps it carries TSval 7 and echoes the SYN's TSval, 0 (the SYN left at t = 0).
pub(super) fn default_syn_ack(c: &TcpConfig) -> TcpHeader {
    syn_ack(65_535, Some(PEER_WSCALE), c.timestamps.then_some((7, 0)))
}

/// A sender whose application wrote `app` bytes, that connected at t = 0 and received
/// `synack` at t = 100 ms. Returns it with what it sent on establishment.
pub(super) fn connect_with(
    c: TcpConfig,
    app: u64,
    synack: &TcpHeader,
) -> (TcpSender, Vec<TcpHeader>) {
    let mut s = TcpSender::new(c, false, SimTime::ZERO);
    let mut out = vec![];
    s.set_app_end(SimTime::ZERO, app, &mut out);
    s.connect(SimTime::ZERO, &mut out);
    assert_eq!(out.len(), 1, "the SYN only");
    out.clear();
    s.on_segment(RTT, synack, &mut out);
    assert_eq!(s.state(), SenderState::Established);
    s.check_invariants();
    (s, out)
}

/// An established sender with unlimited data, after the initial window went out at 100 ms.
pub(super) fn established_sender(c: TcpConfig) -> (TcpSender, Vec<TcpHeader>) {
    let sa = default_syn_ack(&c);
    connect_with(c, BIG, &sa)
}

/// A pure ACK from the receiver (window field 65535, no options).
pub(super) fn ack(n: u64) -> TcpHeader {
    TcpHeader {
        from_receiver: true,
        seq: 1,
        ack: n,
        flags: ACK_ONLY,
        window_field: 65_535,
        ..Default::default()
    }
}

/// A pure ACK with the timestamps option.
pub(super) fn ack_ts(n: u64, tsval: u32, tsecr: u32) -> TcpHeader {
    TcpHeader {
        timestamps: Some((tsval, tsecr)),
        ..ack(n)
    }
}

/// A pure ACK with SACK blocks, given in the order they appear in the option.
pub(super) fn ack_with_sack(n: u64, blocks: &[(u64, u64)]) -> TcpHeader {
    let mut h = ack(n);
    for (i, &(start, end)) in blocks.iter().enumerate() {
        h.sack[i] = SackBlock { start, end };
    }
    h.sack_len = blocks.len() as u8;
    h
}

pub(super) fn recv(s: &mut TcpSender, now: SimTime, h: &TcpHeader) -> Vec<TcpHeader> {
    let mut out = vec![];
    s.on_segment(now, h, &mut out);
    s.check_invariants();
    out
}

pub(super) fn timer(s: &mut TcpSender, now: SimTime) -> Vec<TcpHeader> {
    let mut out = vec![];
    s.on_timer(now, &mut out);
    s.check_invariants();
    out
}

/// The data segments in `out` as (segment number, retransmission); all must be full-sized.
pub(super) fn sent(out: &[TcpHeader]) -> Vec<(u64, bool)> {
    out.iter()
        .filter(|h| h.payload_bytes > 0)
        .map(|h| {
            assert_eq!(
                h.payload_bytes, MSS,
                "full-sized segment expected at {}",
                h.seq
            );
            assert_eq!((h.seq - 1) % MSS64, 0);
            ((h.seq - 1) / MSS64, h.retransmission)
        })
        .collect()
}

/// Segment `k` sent for the first time.
pub(super) fn new(k: u64) -> (u64, bool) {
    (k, false)
}

/// Segment `k` retransmitted.
pub(super) fn rtx(k: u64) -> (u64, bool) {
    (k, true)
}

pub(super) fn news(r: Range<u64>) -> Vec<(u64, bool)> {
    r.map(new).collect()
}

// ----- receiver fixtures -----

pub(super) fn syn(tsval: Option<u32>) -> TcpHeader {
    TcpHeader {
        from_receiver: false,
        seq: 0,
        ack: 1,
        flags: TcpFlags {
            syn: true,
            ack: false,
            fin: false,
        },
        window_field: 65_535,
        timestamps: tsval.map(|v| (v, 0)),
        syn_options: Some(SynOptions {
            mss: MSS as u16,
            wscale: Some(11),
            sack_permitted: true,
        }),
        ..Default::default()
    }
}

/// A receiver that got the SYN at t = 0 (TSval 0 with timestamps); the SYN-ACK is
/// returned too.
pub(super) fn established_receiver(c: TcpConfig) -> (TcpReceiver, TcpHeader) {
    let ts = c.timestamps;
    let mut r = TcpReceiver::new(c);
    let mut out = vec![];
    assert_eq!(
        r.on_segment(SimTime::ZERO, &syn(ts.then_some(0)), &mut out),
        0
    );
    assert_eq!(out.len(), 1);
    (r, out[0])
}

/// Data segment `k` from the sender.
pub(super) fn data(k: u64) -> TcpHeader {
    TcpHeader {
        from_receiver: false,
        seq: seg(k),
        ack: 1,
        payload_bytes: MSS,
        flags: ACK_ONLY,
        window_field: 65_535,
        ..Default::default()
    }
}

pub(super) fn data_ts(k: u64, tsval: u32) -> TcpHeader {
    TcpHeader {
        timestamps: Some((tsval, 0)),
        ..data(k)
    }
}

pub(super) fn data_rtx(k: u64) -> TcpHeader {
    TcpHeader {
        retransmission: true,
        ..data(k)
    }
}

/// Feeds `h` to the receiver: (bytes delivered in order, ACKs sent).
pub(super) fn deliver(r: &mut TcpReceiver, now: SimTime, h: &TcpHeader) -> (u64, Vec<TcpHeader>) {
    let mut out = vec![];
    let n = r.on_segment(now, h, &mut out);
    (n, out)
}

/// The SACK blocks of `h` as (start, end) pairs.
pub(super) fn blocks(h: &TcpHeader) -> Vec<(u64, u64)> {
    h.sack_blocks().iter().map(|b| (b.start, b.end)).collect()
}
