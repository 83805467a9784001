//! What BBR reads from an ACK (the fields of Linux's `rate_sample`) and small helpers
//! shared by its model and state machine.

use crate::cc::{AckSample, CaState};
use mmtsim_engine::SimTime;

/// The parts of Linux's `rate_sample` BBR reads, built from an [`AckSample`].
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Rs {
    /// Packets delivered over the sample interval; −1 if the ACK gave no valid sample.
    pub(super) delivered: i64,
    /// Sample interval, µs; −1 if none.
    pub(super) interval_us: i64,
    /// `tp->delivered` when the newest delivered packet was sent.
    pub(super) prior_delivered: u64,
    pub(super) is_app_limited: bool,
    /// Packets newly (S)ACKed by this ACK.
    pub(super) acked_sacked: u32,
    /// Packets newly marked lost while processing this ACK.
    pub(super) losses: u32,
    /// RTT sample of this ACK, µs; −1 if none.
    pub(super) rtt_us: i64,
    /// Packets in flight before this ACK.
    pub(super) prior_in_flight: u32,
}

impl Rs {
    pub(super) fn from_ack(s: &AckSample) -> Self {
        let mut rs = Rs {
            delivered: -1,
            interval_us: -1,
            acked_sacked: s.acked,
            losses: s.losses,
            rtt_us: s.rtt.map_or(-1, |r| (r.ns() / 1_000) as i64),
            prior_in_flight: s.prior_in_flight,
            ..Rs::default()
        };
        if let Some(r) = s.rate {
            rs.delivered = r.delivered as i64;
            rs.interval_us = (r.interval.ns() / 1_000) as i64;
            rs.prior_delivered = s.delivered.saturating_sub(r.delivered);
            rs.is_app_limited = r.app_limited;
        }
        rs
    }
}

/// Linux's CA-state order (`TCP_CA_Open` = 0 … `TCP_CA_Loss` = 4), which BBR compares.
pub(super) fn ca_rank(s: CaState) -> u8 {
    match s {
        CaState::Open => 0,
        CaState::Disorder => 1,
        CaState::Cwr => 2,
        CaState::Recovery => 3,
        CaState::Loss => 4,
    }
}

/// Linux `tcp_stamp_us_delta`: `t1 − t0` in µs, never negative.
pub(super) fn us_delta(t1: SimTime, t0: SimTime) -> u64 {
    t1.saturating_sub(t0).ns() / 1_000
}

/// SplitMix64 finaliser (Steele, Lea, Flood 2014): a fixed, well-mixed 64-bit hash.
pub(super) fn splitmix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
