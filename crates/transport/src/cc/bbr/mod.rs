//! BBR v1: Bottleneck Bandwidth and Round-trip propagation time (Linux
//! `net/ipv4/tcp_bbr.c`; Cardwell et al., "BBR: Congestion-Based Congestion Control",
//! ACM Queue 14(5), 2016).
//!
//! BBR models the path by two numbers, both measured from ACKs:
//! - **BtlBw**: a windowed maximum of delivery-rate samples over 10 packet-timed round trips
//!   (Linux's `minmax` filter, `MinMax`), in packets per µs scaled by 2^24 (`BW_SCALE`).
//! - **RTprop**: the minimum RTT seen in the last 10 s.
//!
//! and sets pacing rate = `pacing_gain`·BtlBw·99 % and cwnd = `cwnd_gain`·BtlBw·RTprop (the
//! BDP) plus a small quantum, through four modes:
//! - **STARTUP**: gains 2/ln 2 (`bbr_high_gain` = 739/256) until the pipe is full: three
//!   round starts in a row without 25 % growth of BtlBw. Before that the pacing rate only
//!   ever grows.
//! - **DRAIN**: pacing gain 1/high_gain (88/256) until the packets in the network fall to
//!   one BDP (+ quantum); ssthresh is set to that value on entry, as Linux does.
//! - **PROBE_BW**: cwnd gain 2 and the eight-phase pacing-gain cycle 5/4, 3/4, 1 ×6; a phase
//!   lasts one RTprop, except that 5/4 continues until in-flight reaches 5/4 BDP (or a loss)
//!   and 3/4 ends as soon as in-flight is down to one BDP. The cycle starts at a random phase
//!   other than 3/4.
//! - **PROBE_RTT**: entered when RTprop has not been refreshed for 10 s; cwnd is capped at 4
//!   segments until 200 ms and one round trip have passed with in-flight ≤ 4, then the
//!   previous cwnd is restored and the flow returns to PROBE_BW (or STARTUP if the pipe was
//!   never full). In this mode the sender marks its flight application-limited so the low
//!   rate samples do not drag BtlBw down ([`CongestionControl::request_app_limited`]).
//!
//! Also as in Linux: the long-term ("LT") bandwidth sampler that detects token-bucket
//! policers (two consecutive ≥ 4-round intervals with ≥ 50/256 loss and bandwidths within
//! 1/8 or 4 kbit/s → pace at their average with gain 1 for 48 rounds); the ACK-aggregation
//! allowance (`extra_acked`, max over two 5-round buckets, at most 100 ms of BtlBw) added to
//! the cwnd target once the pipe is full; packet conservation during the first round of
//! fast recovery (cwnd = in-flight + delivered) and the restore of the pre-recovery cwnd on
//! exit; losses subtracted from cwnd on every ACK. BBR does not cut ssthresh on loss:
//! `ssthresh()` saves cwnd (`bbr_save_cwnd`) and returns the current ssthresh.
//!
//! BBR owns the whole window on every ACK through [`CongestionControl::cong_control`]
//! (Linux's `cong_control` hook): the sender runs no PRR and no `cong_avoid` for it, skips
//! the cwnd = ssthresh settlement at the end of recovery and the restart after idle, and
//! paces at [`CongestionControl::pacing_rate`] whatever the flow's `pacing` option says.
//!
//! # Integer arithmetic kept from Linux
//! Bandwidth in packets/µs << 24, gains in 1/256, BDP = ceil(bw·min_rtt·gain), pacing rate in
//! payload bytes/s = bw·mss·gain·(10^6/100·99) >> 24, full-pipe threshold `full_bw·320 >> 8`,
//! LT loss test `lost << 8 ≥ 50·delivered`, LT bandwidth over whole milliseconds.
//!
//! # Deviations and simplifications
//! - **Bursts**: Linux sends a paced flow in TSO/GSO bursts of `bbr_tso_segs_goal`
//!   segments (~1 ms of the pacing rate, at least 2 above 1.2 Mbit/s; e.g. 8 at 96 Mbit/s).
//!   The goal is computed from the pacing rate alone, so it applies with software GSO too
//!   (the kernel harness's TUN devices), and BBR budgets for it: the quantisation budget
//!   is cwnd + 3 bursts (one in the sending qdisc, one in the NIC, one in the receiver's
//!   ACK engine, in Linux's words), rounded up to an even number, + 2 in PROBE_BW phase 0,
//!   and the 5/4 phase counts one burst as about to leave. Both use Linux's goal here; the
//!   sender still emits one segment per pacing slot, so the bursts themselves (up to
//!   `goal` back-to-back packets every `goal` slots) are not reproduced.
//! - **Random start phase**: the transport crate has no RNG of its own, so the draw
//!   `get_random_u32_below(7)` is replaced by a SplitMix64 sequence seeded from
//!   [`BbrParams::seed`] mixed with the time `init` is called (so flows created at
//!   different instants differ even with the default seed). The caller should give
//!   each flow its own seed (e.g. derived from the run seed and the flow id) for
//!   independent phase sequences; the result is deterministic either way.
//! - **Initial pacing rate**: `init` runs when the sender is created (Linux: once the
//!   handshake is done) and does not know the MSS, so no rate is requested until the first
//!   ACK; then the rate starts, as in Linux, from high_gain·cwnd/SRTT (1 ms if no RTT was
//!   measured). Linux does not pace the first 10 segments either (`tcp_update_skb_after_send`),
//!   so the initial window leaves unpaced in both. For the same reason RTprop starts unknown
//!   (Linux copies `tcp_min_rtt` of the handshake); the first ACK's RTT sample sets it.
//! - **Clocks**: mode timers (10 s RTprop window, 200 ms PROBE_RTT) compare nanosecond
//!   times instead of jiffies; rate, BDP and cycle-length arithmetic use microseconds as
//!   Linux does.
//! - `rate_sample.is_ack_delayed` is taken as false: Linux sets it only for an ACK of a lone
//!   sub-MSS segment, which the sender does not track.
//! - `CA_EVENT_TX_START` counts as application-limited: the sender fires it only when
//!   nothing is outstanding, i.e. at the start or after the application ran out of data
//!   (Linux also starts connections with `tp->app_limited` set).
//! - `set_state(Loss)` feeds the LT sampler the delivered/lost counts of the latest ACK;
//!   segments marked lost by the RTO itself enter `tp->lost` at the next ACK.
//! - `extra_acked` saturates at 65535 segments where Linux's u16 field would wrap; no
//!   `sk_max_pacing_rate` cap.
//!
//! # Layout
//! The state machine and window/pacing decisions are here; `model.rs` updates the model on
//! every ACK, `lt_bw.rs` detects policers, `minmax.rs` is the windowed max filter and
//! `sample.rs` holds what BBR reads from an ACK.

mod lt_bw;
mod minmax;
mod model;
mod sample;
#[cfg(test)]
mod tests;

use super::{AckSample, CaState, CongestionControl, CwndEvent, Window, INFINITE_SSTHRESH};
use minmax::MinMax;
use mmtsim_engine::{Rate, SimTime};
use sample::{ca_rank, splitmix64, us_delta, Rs};

/// Bandwidth scale: rates are packets per µs << 24 (`BW_SCALE`).
const BW_SCALE: u32 = 24;
/// `BW_UNIT` = 2^24.
const BW_UNIT: u64 = 1 << BW_SCALE;
/// Gains are fractions of 256 (`BBR_SCALE`).
const BBR_SCALE: u32 = 8;
/// `BBR_UNIT`: a gain of 1.0.
pub const BBR_UNIT: u32 = 1 << BBR_SCALE;
/// Phases of the PROBE_BW gain cycle (`CYCLE_LEN`).
const CYCLE_LEN: u32 = 8;
/// Window of the max-bandwidth filter, round trips (`bbr_bw_rtts` = CYCLE_LEN + 2).
const BW_RTTS: u32 = CYCLE_LEN + 2;
/// Window of the min-RTT filter (`bbr_min_rtt_win_sec` = 10 s).
const MIN_RTT_WIN: SimTime = SimTime::from_secs(10);
/// Least time at 4 packets in PROBE_RTT (`bbr_probe_rtt_mode_ms` = 200).
const PROBE_RTT_MODE: SimTime = SimTime::from_ms(200);
/// Pace about 1 % below the estimate (`bbr_pacing_margin_percent`).
const PACING_MARGIN_PERCENT: u64 = 1;
/// STARTUP gain 2/ln 2 (`bbr_high_gain` = 256·2885/1000 + 1 = 739).
pub const HIGH_GAIN: u32 = BBR_UNIT * 2885 / 1000 + 1;
/// DRAIN pacing gain 1/high_gain (`bbr_drain_gain` = 256·1000/2885 = 88).
pub const DRAIN_GAIN: u32 = BBR_UNIT * 1000 / 2885;
/// PROBE_BW cwnd gain (`bbr_cwnd_gain` = 2.0).
pub const CWND_GAIN: u32 = BBR_UNIT * 2;
/// PROBE_BW pacing-gain cycle (`bbr_pacing_gain[]`): 5/4, 3/4, then 1 six times.
pub const PACING_GAIN: [u32; CYCLE_LEN as usize] = [
    BBR_UNIT * 5 / 4,
    BBR_UNIT * 3 / 4,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
];
/// The start phase is drawn over this many phases (`bbr_cycle_rand`).
const CYCLE_RAND: u32 = 7;
/// Least cwnd, and the cwnd of PROBE_RTT (`bbr_cwnd_min_target`).
const CWND_MIN_TARGET: u32 = 4;
/// Growth that still counts as "more bandwidth" in STARTUP (`bbr_full_bw_thresh` = 1.25).
const FULL_BW_THRESH: u32 = BBR_UNIT * 5 / 4;
/// Rounds without that growth that mean the pipe is full (`bbr_full_bw_cnt`).
const FULL_BW_CNT: u32 = 3;
/// Least rounds in an LT sampling interval (`bbr_lt_intvl_min_rtts`).
const LT_INTVL_MIN_RTTS: u32 = 4;
/// LT interval is lossy above lost/delivered = 50/256 ≈ 20 % (`bbr_lt_loss_thresh`).
const LT_LOSS_THRESH: u64 = 50;
/// Two LT intervals agree within 1/8 (`bbr_lt_bw_ratio`) ...
const LT_BW_RATIO: u64 = BBR_UNIT as u64 / 8;
/// ... or within 4 kbit/s = 500 B/s (`bbr_lt_bw_diff`).
const LT_BW_DIFF: u64 = 4000 / 8;
/// Rounds to keep using the LT (policed) rate (`bbr_lt_bw_max_rtts`).
const LT_BW_MAX_RTTS: u32 = 48;
/// Gain of the ACK-aggregation allowance (`bbr_extra_acked_gain` = 1.0).
const EXTRA_ACKED_GAIN: u32 = BBR_UNIT;
/// Rounds per `extra_acked` bucket (`bbr_extra_acked_win_rtts`).
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
/// ACK epoch restarts past this many packets (`bbr_ack_epoch_acked_reset_thresh` = 2^20).
const ACK_EPOCH_ACKED_RESET_THRESH: u32 = 1 << 20;
/// The aggregation allowance is at most this much BtlBw (`bbr_extra_acked_max_us`).
const EXTRA_ACKED_MAX_US: u64 = 100_000;
/// Linux `TCP_INIT_CWND`.
const TCP_INIT_CWND: u32 = 10;
/// `sk_pacing_shift`: a TSO/GSO burst may hold 2^-10 s (~1 ms) of the pacing rate.
const PACING_SHIFT: u32 = 10;
/// Below this pacing rate a burst is one segment, above it at least two
/// (`bbr_min_tso_rate` = 1.2 Mbit/s, compared in bytes/s).
const MIN_TSO_RATE_BYTES: u64 = 1_200_000 / 8;
/// Largest GSO burst in bytes: `GSO_LEGACY_MAX_SIZE` − 1 − `MAX_TCP_HEADER` (64 KiB less
/// 320 B of header room on x86-64).
const GSO_MAX_BURST_BYTES: u64 = 65_536 - 1 - 320;
/// Most segments in a burst (`bbr_tso_segs_goal` caps at 0x7F).
const TSO_SEGS_MAX: u32 = 0x7F;

/// Parameters. Linux's `tcp_bbr.c` has no module parameters: every constant is fixed, and
/// so it is here; only the seed of the start-phase draw is chosen by the caller.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BbrParams {
    /// Seed of the PROBE_BW start-phase draws (Linux: `get_random_u32_below`). Mixed with
    /// the time of `init`; give each flow its own for independent phase sequences.
    pub seed: u64,
}

/// BBR's state machine (`enum bbr_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BbrMode {
    /// Ramp up the sending rate rapidly to fill the pipe.
    Startup,
    /// Drain the queue created in STARTUP.
    Drain,
    /// Pace around the estimated bandwidth, cycling the gain to probe and share.
    ProbeBw,
    /// Cut in-flight to 4 packets to measure the propagation RTT.
    ProbeRtt,
}

/// BBR v1.
#[derive(Clone, Debug)]
pub struct Bbr {
    params: BbrParams,
    /// State of the start-phase draws (SplitMix64 counter).
    rng_state: u64,
    mode: BbrMode,
    /// The connection's CA state as last reported through `set_state`.
    ca_state: CaState,
    /// CA state on the previous ACK that delivered data (`prev_ca_state`).
    prev_ca_state: CaState,
    /// RTprop, µs; `u32::MAX` until the first RTT sample (`min_rtt_us`).
    min_rtt_us: u32,
    /// When RTprop was last taken (`min_rtt_stamp`).
    min_rtt_stamp: SimTime,
    /// End of PROBE_RTT's 200 ms at 4 packets, once in-flight got there.
    probe_rtt_done_stamp: Option<SimTime>,
    /// A round trip has passed at 4 packets in PROBE_RTT.
    probe_rtt_round_done: bool,
    /// Max-bandwidth filter, packets/µs << 24, over round counts.
    bw: MinMax,
    /// Packet-timed rounds so far (`rtt_cnt`).
    rtt_cnt: u32,
    /// `tp->delivered` that ends the current round.
    next_rtt_delivered: u64,
    /// Start of the current gain-cycle phase (a `delivered_mstamp`).
    cycle_mstamp: SimTime,
    packet_conservation: bool,
    round_start: bool,
    idle_restart: bool,
    lt_is_sampling: bool,
    /// Rounds in the LT interval, or rounds spent using `lt_bw`.
    lt_rtt_cnt: u32,
    lt_use_bw: bool,
    /// LT bandwidth estimate, packets/µs << 24.
    lt_bw: u32,
    lt_last_delivered: u64,
    /// LT interval start, whole ms of `delivered_mstamp`.
    lt_last_stamp_ms: u64,
    lt_last_lost: u64,
    /// Current gains, 1/256.
    pacing_gain: u32,
    cwnd_gain: u32,
    full_bw_reached: bool,
    full_bw_cnt: u32,
    /// Index in [`PACING_GAIN`].
    cycle_idx: u32,
    has_seen_rtt: bool,
    /// cwnd to restore after recovery or PROBE_RTT (`bbr->prior_cwnd`), segments.
    prior_cwnd: u32,
    /// Bandwidth when STARTUP last saw 25 % growth, packets/µs << 24.
    full_bw: u32,
    ack_epoch_mstamp: SimTime,
    /// Most segments ACKed beyond BtlBw·time in an epoch, per 5-round bucket.
    extra_acked: [u32; 2],
    ack_epoch_acked: u32,
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    // Socket fields Linux reads, as of the latest ACK.
    /// `tp->delivered`.
    delivered: u64,
    /// `tp->lost`.
    lost: u64,
    /// `tp->delivered_mstamp`: time of the latest delivery (or flight start).
    delivered_mstamp: SimTime,
    /// `mss_cache`, bytes.
    mss: u32,
    /// `srtt_us >> 3`, if any RTT was measured.
    srtt_us: Option<u64>,
    /// `sk_pacing_rate`, payload bytes per second; 0 until the first ACK.
    pacing_rate_bytes: u64,
    /// PROBE_RTT asks for the flight to be marked application-limited.
    app_limited_request: bool,
}

impl Bbr {
    /// A BBR instance; [`CongestionControl::init`] starts it.
    pub fn new(p: BbrParams) -> Self {
        let mut b = Bbr {
            params: p,
            rng_state: 0,
            mode: BbrMode::Startup,
            ca_state: CaState::Open,
            prev_ca_state: CaState::Open,
            min_rtt_us: u32::MAX,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            bw: MinMax::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            cycle_mstamp: SimTime::ZERO,
            packet_conservation: false,
            round_start: false,
            idle_restart: false,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0,
            lt_last_delivered: 0,
            lt_last_stamp_ms: 0,
            lt_last_lost: 0,
            pacing_gain: 0,
            cwnd_gain: 0,
            full_bw_reached: false,
            full_bw_cnt: 0,
            cycle_idx: 0,
            has_seen_rtt: false,
            prior_cwnd: 0,
            full_bw: 0,
            ack_epoch_mstamp: SimTime::ZERO,
            extra_acked: [0; 2],
            ack_epoch_acked: 0,
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            delivered: 0,
            lost: 0,
            delivered_mstamp: SimTime::ZERO,
            mss: 1448,
            srtt_us: None,
            pacing_rate_bytes: 0,
            app_limited_request: false,
        };
        b.seed_rng(SimTime::ZERO);
        b
    }

    /// Current mode.
    pub fn mode(&self) -> BbrMode {
        self.mode
    }
    /// Index of the current PROBE_BW phase in [`PACING_GAIN`].
    pub fn cycle_idx(&self) -> u32 {
        self.cycle_idx
    }
    /// Current pacing gain, 1/256.
    pub fn pacing_gain(&self) -> u32 {
        self.pacing_gain
    }
    /// Current cwnd gain, 1/256.
    pub fn cwnd_gain(&self) -> u32 {
        self.cwnd_gain
    }
    /// STARTUP has found the pipe full.
    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }
    /// The policer (LT) rate is in use.
    pub fn lt_use_bw(&self) -> bool {
        self.lt_use_bw
    }
    /// RTprop, if measured.
    pub fn min_rtt(&self) -> Option<SimTime> {
        (self.min_rtt_us != u32::MAX).then(|| SimTime::from_us(self.min_rtt_us as u64))
    }
    /// Bandwidth estimate in use, segments per second.
    pub fn bw_segments_per_sec(&self) -> f64 {
        self.bw() as f64 * 1e6 / BW_UNIT as f64
    }

    // ----- the path model -----

    fn seed_rng(&mut self, now: SimTime) {
        self.rng_state = splitmix64(self.params.seed ^ splitmix64(now.ns()));
    }

    /// Uniform draw in [0, n) (Linux `get_random_u32_below`), from a SplitMix64 sequence.
    fn rand_below(&mut self, n: u32) -> u32 {
        self.rng_state = self.rng_state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let z = splitmix64(self.rng_state);
        // Lemire's multiply-shift on the high 32 bits.
        (((z >> 32) * n as u64) >> 32) as u32
    }

    /// Windowed max bandwidth (`bbr_max_bw`).
    fn max_bw(&self) -> u32 {
        self.bw.get()
    }

    /// Bandwidth in use (`bbr_bw`): the policed LT rate or the windowed max.
    fn bw(&self) -> u32 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    /// Max ACK aggregation of the last 5–10 rounds (`bbr_extra_acked`).
    fn extra_acked(&self) -> u32 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    /// `bbr_rate_bytes_per_sec`: payload bytes per second at `rate` (packets/µs << 24)
    /// times `gain`, 1 % below.
    fn rate_bytes_per_sec(&self, rate: u64, gain: u32) -> u64 {
        let mut r = rate as u128 * self.mss as u128;
        r *= gain as u128;
        r >>= BBR_SCALE;
        r *= (1_000_000 / 100 * (100 - PACING_MARGIN_PERCENT)) as u128;
        (r >> BW_SCALE).min(u64::MAX as u128) as u64
    }

    /// `bbr_init_pacing_rate_from_rtt`: high_gain · cwnd / SRTT (1 ms without an RTT).
    fn init_pacing_rate_from_rtt(&mut self, w: &Window) {
        let rtt_us = match self.srtt_us {
            Some(r) => {
                self.has_seen_rtt = true;
                r.max(1)
            }
            None => 1_000,
        };
        // Linux hands the u64 quotient to a u32 parameter.
        let bw = (w.cwnd as u64 * BW_UNIT / rtt_us).min(u32::MAX as u64);
        self.pacing_rate_bytes = self.rate_bytes_per_sec(bw, HIGH_GAIN);
    }

    /// `bbr_set_pacing_rate`: before the pipe is full the rate only grows.
    fn set_pacing_rate(&mut self, w: &Window, bw: u32, gain: u32) {
        let rate = self.rate_bytes_per_sec(bw as u64, gain);
        if !self.has_seen_rtt && (self.srtt_us.is_some() || self.pacing_rate_bytes == 0) {
            self.init_pacing_rate_from_rtt(w);
        }
        if self.full_bw_reached || rate > self.pacing_rate_bytes {
            self.pacing_rate_bytes = rate;
        }
    }

    /// `bbr_save_cwnd`: remember the last good cwnd to restore after recovery/PROBE_RTT.
    fn save_cwnd(&mut self, cwnd: u32) {
        if ca_rank(self.prev_ca_state) < ca_rank(CaState::Recovery)
            && self.mode != BbrMode::ProbeRtt
        {
            self.prior_cwnd = cwnd;
        } else {
            // Recovery or PROBE_RTT have cut cwnd for now: keep the larger one.
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    /// `bbr_bdp`: ceil(bw · min_rtt · gain) packets; TCP_INIT_CWND before any RTT sample.
    fn bdp(&self, bw: u32, gain: u32) -> u32 {
        if self.min_rtt_us == u32::MAX {
            return TCP_INIT_CWND;
        }
        let w = bw as u64 * self.min_rtt_us as u64;
        // Round up to avoid a negative feedback loop.
        ((w as u128 * gain as u128) >> BBR_SCALE)
            .div_ceil(BW_UNIT as u128)
            .min(u32::MAX as u128) as u32
    }

    /// `bbr_tso_segs_goal`: segments per TSO/GSO burst, ~1 ms of the pacing rate
    /// (`pacing_rate >> sk_pacing_shift`), at least `bbr_min_tso_segs`. Linux computes it
    /// from the pacing rate alone, "ignoring driver provided sk_gso_max_size", so it is
    /// the same on every device, software GSO included (module docs).
    fn tso_segs_goal(&self) -> u32 {
        let min_segs = if self.pacing_rate_bytes < MIN_TSO_RATE_BYTES {
            1
        } else {
            2
        };
        let bytes = (self.pacing_rate_bytes >> PACING_SHIFT).min(GSO_MAX_BURST_BYTES);
        let segs = (bytes / self.mss.max(1) as u64).max(min_segs);
        (segs as u32).min(TSO_SEGS_MAX)
    }

    /// `bbr_quantization_budget`: room for three bursts (one in the qdisc, one in the
    /// device, one at the receiver), rounded to even, + 2 in the 5/4 phase.
    fn quantization_budget(&self, cwnd: u32) -> u32 {
        let mut cwnd = cwnd.saturating_add(3 * self.tso_segs_goal());
        // Round up to even, so that delayed ACKs (one per two segments) keep flowing.
        cwnd = cwnd.saturating_add(1) & !1;
        // Let the 5/4 phase get in-flight above BDP even when the BDP is tiny.
        if self.mode == BbrMode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2;
        }
        cwnd
    }

    /// `bbr_inflight`: BDP at `gain` plus the quantisation budget.
    fn inflight(&self, bw: u32, gain: u32) -> u32 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// `bbr_packets_in_net_at_edt`: packets still in the network when the next segment may
    /// leave (`s.next_departure`), counting that segment when in-flight is being raised.
    fn packets_in_net_at_edt(&self, s: &AckSample, inflight_now: u32) -> u64 {
        let interval_us = us_delta(s.next_departure.max(s.now), s.now);
        let interval_delivered = (self.bw() as u64 * interval_us) >> BW_SCALE;
        let mut inflight_at_edt = inflight_now as u64;
        if self.pacing_gain > BBR_UNIT {
            inflight_at_edt += self.tso_segs_goal() as u64;
        }
        inflight_at_edt.saturating_sub(interval_delivered)
    }

    /// `bbr_ack_aggregation_cwnd`: extra cwnd for ACK aggregation, once the pipe is full.
    fn ack_aggregation_cwnd(&self) -> u32 {
        if EXTRA_ACKED_GAIN == 0 || !self.full_bw_reached {
            return 0;
        }
        let max_aggr_cwnd = self.bw() as u64 * EXTRA_ACKED_MAX_US / BW_UNIT;
        let aggr_cwnd = (EXTRA_ACKED_GAIN as u64 * self.extra_acked() as u64) >> BBR_SCALE;
        aggr_cwnd.min(max_aggr_cwnd) as u32
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: returns the cwnd and whether packet
    /// conservation decides it.
    fn set_cwnd_to_recover_or_restore(
        &mut self,
        w: &Window,
        s: &AckSample,
        acked: u32,
    ) -> (u32, bool) {
        let (prev, state) = (self.prev_ca_state, self.ca_state);
        let mut cwnd = w.cwnd;
        // An ACK for P packets should release at most 2P: first deduct the losses.
        if s.losses > 0 {
            cwnd = (cwnd as i64 - s.losses as i64).max(1) as u32;
        }
        if state == CaState::Recovery && prev != CaState::Recovery {
            // First round of recovery: packet conservation, and the round starts now.
            self.packet_conservation = true;
            self.next_rtt_delivered = s.delivered;
            cwnd = s.in_flight + acked;
        } else if ca_rank(prev) >= ca_rank(CaState::Recovery)
            && ca_rank(state) < ca_rank(CaState::Recovery)
        {
            // Recovery (or loss) is over: restore the cwnd saved when it began.
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(s.in_flight + acked), true);
        }
        (cwnd, false)
    }

    /// `bbr_set_cwnd`: slow-start towards the target, or snap down to it once the pipe is
    /// full; at least 4 segments, and at most 4 in PROBE_RTT.
    fn set_cwnd(&mut self, w: &mut Window, s: &AckSample, acked: u32, bw: u32, gain: u32) {
        let mut cwnd = w.cwnd;
        if acked > 0 {
            let (c, conserving) = self.set_cwnd_to_recover_or_restore(w, s, acked);
            cwnd = c;
            if !conserving {
                let mut target = self.bdp(bw, gain);
                target = target.saturating_add(self.ack_aggregation_cwnd());
                target = self.quantization_budget(target);
                if self.full_bw_reached {
                    cwnd = cwnd.saturating_add(acked).min(target);
                } else if cwnd < target || s.delivered < TCP_INIT_CWND as u64 {
                    cwnd = cwnd.saturating_add(acked);
                }
                cwnd = cwnd.max(CWND_MIN_TARGET);
            }
        }
        w.cwnd = cwnd.min(w.cwnd_clamp);
        if self.mode == BbrMode::ProbeRtt {
            w.cwnd = w.cwnd.min(CWND_MIN_TARGET);
        }
    }

    // ----- gain cycling and modes -----

    /// `bbr_is_next_cycle_phase`.
    fn is_next_cycle_phase(&self, s: &AckSample, rs: &Rs) -> bool {
        let is_full_length =
            us_delta(self.delivered_mstamp, self.cycle_mstamp) > self.min_rtt_us as u64;
        if self.pacing_gain == BBR_UNIT {
            return is_full_length;
        }
        let inflight = self.packets_in_net_at_edt(s, rs.prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            // Probe until in-flight reaches gain·BDP, unless that does not fit (losses).
            return is_full_length
                && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain) as u64);
        }
        // Drain phase: stop early once the queue we added is gone.
        is_full_length || inflight <= self.inflight(bw, BBR_UNIT) as u64
    }

    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) & (CYCLE_LEN - 1);
        self.cycle_mstamp = self.delivered_mstamp;
    }

    fn update_cycle_phase(&mut self, s: &AckSample, rs: &Rs) {
        if self.mode == BbrMode::ProbeBw && self.is_next_cycle_phase(s, rs) {
            self.advance_cycle_phase();
        }
    }

    fn reset_startup_mode(&mut self) {
        self.mode = BbrMode::Startup;
    }

    /// `bbr_reset_probe_bw_mode`: random start phase, never the 3/4 one.
    fn reset_probe_bw_mode(&mut self) {
        self.mode = BbrMode::ProbeBw;
        self.cycle_idx = CYCLE_LEN - 1 - self.rand_below(CYCLE_RAND);
        self.advance_cycle_phase();
    }

    fn reset_mode(&mut self) {
        if !self.full_bw_reached {
            self.reset_startup_mode();
        } else {
            self.reset_probe_bw_mode();
        }
    }

    // ----- long-term (policer) bandwidth -----

    // ----- the model update of one ACK -----
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    /// `bbr_init`.
    fn init(&mut self, w: &mut Window, now: SimTime) {
        self.prior_cwnd = 0;
        w.ssthresh = INFINITE_SSTHRESH;
        self.rtt_cnt = 0;
        self.next_rtt_delivered = self.delivered;
        self.prev_ca_state = CaState::Open;
        self.ca_state = CaState::Open;
        self.packet_conservation = false;
        self.probe_rtt_done_stamp = None;
        self.probe_rtt_round_done = false;
        self.min_rtt_us = u32::MAX;
        self.min_rtt_stamp = now;
        self.bw.reset(self.rtt_cnt, 0);
        self.has_seen_rtt = false;
        // No pacing rate yet: the MSS is only known from the first ACK (module docs).
        self.pacing_rate_bytes = 0;
        self.round_start = false;
        self.idle_restart = false;
        self.full_bw_reached = false;
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.cycle_mstamp = SimTime::ZERO;
        self.cycle_idx = 0;
        self.reset_lt_bw_sampling();
        self.reset_startup_mode();
        self.ack_epoch_mstamp = now;
        self.ack_epoch_acked = 0;
        self.extra_acked_win_rtts = 0;
        self.extra_acked_win_idx = 0;
        self.extra_acked = [0; 2];
        self.seed_rng(now);
    }

    /// Never called: [`Self::cong_control`] owns the window on every ACK.
    fn cong_avoid(&mut self, _w: &mut Window, _s: &AckSample) {}

    /// `bbr_undo_cwnd`: a spurious slow-down restarts full-pipe detection and the
    /// long-term (policer) sampling; the window stays as BBR set it.
    fn undo_cwnd(&mut self, w: &mut Window) -> u32 {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.reset_lt_bw_sampling();
        w.cwnd
    }

    /// `bbr_ssthresh`: save cwnd for the restore; ssthresh stays as it is.
    fn ssthresh(&mut self, w: &Window) -> u32 {
        self.save_cwnd(w.cwnd);
        w.ssthresh
    }

    /// `bbr_set_state`: an RTO ends the round, restarts full-pipe detection and counts as a
    /// loss for the policer detector.
    fn set_state(&mut self, _w: &mut Window, state: CaState) {
        self.ca_state = state;
        if state == CaState::Loss {
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0;
            self.round_start = true;
            let rs = Rs {
                losses: 1,
                ..Rs::default()
            };
            self.lt_bw_sampling(&rs);
        }
    }

    /// `bbr_cwnd_event`: restarting from idle.
    fn cwnd_event(&mut self, w: &mut Window, ev: CwndEvent, now: SimTime) {
        if let CwndEvent::TxStart { .. } = ev {
            // Linux tcp_rate_skb_sent: a flight that starts from nothing restarts the
            // delivery clock.
            self.delivered_mstamp = now;
            self.idle_restart = true;
            self.ack_epoch_mstamp = now;
            self.ack_epoch_acked = 0;
            // Restarting app-limited: pace at the estimate, no need for more speed.
            if self.mode == BbrMode::ProbeBw {
                let bw = self.bw();
                self.set_pacing_rate(w, bw, BBR_UNIT);
            } else if self.mode == BbrMode::ProbeRtt {
                self.check_probe_rtt_done(w, now);
            }
        }
    }

    /// `bbr_main`: update the model, then the pacing rate and cwnd.
    fn cong_control(&mut self, w: &mut Window, s: &AckSample) -> bool {
        // The socket fields Linux reads, as tcp_ack / tcp_rate_gen leave them.
        self.mss = s.mss;
        self.delivered = s.delivered;
        self.lost = s.lost;
        if s.acked > 0 {
            self.delivered_mstamp = s.now;
        }
        self.srtt_us = s.srtt.map(|r| r.ns() / 1_000);
        self.app_limited_request = false;

        let rs = Rs::from_ack(s);
        self.update_model(w, s, &rs);
        let bw = self.bw();
        self.set_pacing_rate(w, bw, self.pacing_gain);
        self.set_cwnd(w, s, rs.acked_sacked, bw, self.cwnd_gain);
        true
    }

    fn request_app_limited(&self) -> bool {
        self.app_limited_request
    }

    fn pacing_rate(&self) -> Option<Rate> {
        (self.pacing_rate_bytes > 0).then(|| Rate::bps(self.pacing_rate_bytes.saturating_mul(8)))
    }

    fn sets_pacing_rate(&self) -> bool {
        true
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        let mode = match self.mode {
            BbrMode::Startup => 0.0,
            BbrMode::Drain => 1.0,
            BbrMode::ProbeBw => 2.0,
            BbrMode::ProbeRtt => 3.0,
        };
        vec![
            ("mode", mode),
            ("bw_segments_per_s", self.bw_segments_per_sec()),
            (
                "min_rtt_ms",
                self.min_rtt().map_or(f64::NAN, |r| r.secs_f64() * 1e3),
            ),
            ("pacing_gain", self.pacing_gain as f64 / BBR_UNIT as f64),
            ("cwnd_gain", self.cwnd_gain as f64 / BBR_UNIT as f64),
            ("cycle_idx", self.cycle_idx as f64),
            ("full_bw_reached", self.full_bw_reached as u8 as f64),
            ("lt_use_bw", self.lt_use_bw as u8 as f64),
            ("pacing_rate_bps", self.pacing_rate_bytes as f64 * 8.0),
            ("round_count", self.rtt_cnt as f64),
            ("prior_cwnd", self.prior_cwnd as f64),
            ("extra_acked", self.extra_acked() as f64),
        ]
    }
}
