//! BBR v1: Bottleneck Bandwidth and Round-trip propagation time (Linux
//! `net/ipv4/tcp_bbr.c`; Cardwell et al., "BBR: Congestion-Based Congestion Control",
//! ACM Queue 14(5), 2016).
//!
//! BBR models the path by two numbers, both measured from ACKs:
//! - **BtlBw**: a windowed maximum of delivery-rate samples over 10 packet-timed round trips
//!   (Linux's `minmax` filter, [`MinMax`]), in packets per µs scaled by 2^24 (`BW_SCALE`).
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
//!   `sk_max_pacing_rate` cap; `undo_cwnd` has no caller (the sender models no undo).

use super::{AckSample, CaState, CongestionControl, CwndEvent, Window, INFINITE_SSTHRESH};
use mmtsim_engine::{Rate, SimTime};

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

/// One sample of [`MinMax`]: time (here: round count) and value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct MinMaxSample {
    t: u32,
    v: u32,
}

/// Kathleen Nichols' windowed max tracker (Linux `lib/win_minmax.c`): the best, second and
/// third best values with non-decreasing times, spread over the window, in O(1) space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct MinMax {
    s: [MinMaxSample; 3],
}

impl MinMax {
    /// The windowed maximum.
    fn get(&self) -> u32 {
        self.s[0].v
    }

    /// Forget everything: `meas` at time `t` is the only sample.
    fn reset(&mut self, t: u32, meas: u32) -> u32 {
        let v = MinMaxSample { t, v: meas };
        self.s = [v; 3];
        meas
    }

    /// Linux `minmax_running_max` with window `win` (same unit as `t`).
    fn running_max(&mut self, win: u32, t: u32, meas: u32) -> u32 {
        let val = MinMaxSample { t, v: meas };
        if val.v >= self.s[0].v || val.t.wrapping_sub(self.s[2].t) > win {
            // A new maximum, or nothing left in the window.
            return self.reset(t, meas);
        }
        if val.v >= self.s[1].v {
            self.s[2] = val;
            self.s[1] = val;
        } else if val.v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwin_update(win, val)
    }

    /// Linux `minmax_subwin_update`: age the choices as time passes.
    fn subwin_update(&mut self, win: u32, val: MinMaxSample) -> u32 {
        let dt = val.t.wrapping_sub(self.s[0].t);
        if dt > win {
            // The best left the window: promote the 2nd and 3rd (the 2nd may be out too).
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = val;
            if val.t.wrapping_sub(self.s[0].t) > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = val;
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter window without a new best: take a 2nd choice from the 2nd quarter.
            self.s[2] = val;
            self.s[1] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            // Half a window: take a 3rd choice from the second half.
            self.s[2] = val;
        }
        self.s[0].v
    }
}

/// The parts of Linux's `rate_sample` BBR reads, built from an [`AckSample`].
#[derive(Clone, Copy, Debug, Default)]
struct Rs {
    /// Packets delivered over the sample interval; −1 if the ACK gave no valid sample.
    delivered: i64,
    /// Sample interval, µs; −1 if none.
    interval_us: i64,
    /// `tp->delivered` when the newest delivered packet was sent.
    prior_delivered: u64,
    is_app_limited: bool,
    /// Packets newly (S)ACKed by this ACK.
    acked_sacked: u32,
    /// Packets newly marked lost while processing this ACK.
    losses: u32,
    /// RTT sample of this ACK, µs; −1 if none.
    rtt_us: i64,
    /// Packets in flight before this ACK.
    prior_in_flight: u32,
}

impl Rs {
    fn from_ack(s: &AckSample) -> Self {
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
fn ca_rank(s: CaState) -> u8 {
    match s {
        CaState::Open => 0,
        CaState::Disorder => 1,
        CaState::Cwr => 2,
        CaState::Recovery => 3,
        CaState::Loss => 4,
    }
}

/// Linux `tcp_stamp_us_delta`: `t1 − t0` in µs, never negative.
fn us_delta(t1: SimTime, t0: SimTime) -> u64 {
    t1.saturating_sub(t0).ns() / 1_000
}

/// SplitMix64 finaliser (Steele, Lea, Flood 2014): a fixed, well-mixed 64-bit hash.
fn splitmix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
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

    fn reset_lt_bw_sampling_interval(&mut self) {
        self.lt_last_stamp_ms = self.delivered_mstamp.ns() / 1_000_000;
        self.lt_last_delivered = self.delivered;
        self.lt_last_lost = self.lost;
        self.lt_rtt_cnt = 0;
    }

    fn reset_lt_bw_sampling(&mut self) {
        self.lt_bw = 0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_bw_sampling_interval();
    }

    /// `bbr_lt_bw_interval_done`: two consistent lossy intervals mean a policer.
    fn lt_bw_interval_done(&mut self, bw: u32) {
        if self.lt_bw != 0 {
            let diff = bw.abs_diff(self.lt_bw) as u64;
            if diff * BBR_UNIT as u64 <= LT_BW_RATIO * self.lt_bw as u64
                || self.rate_bytes_per_sec(diff, BBR_UNIT) <= LT_BW_DIFF
            {
                // Average the two intervals and pace at it, gain 1, to avoid drops.
                self.lt_bw = ((bw as u64 + self.lt_bw as u64) >> 1) as u32;
                self.lt_use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_bw_sampling_interval();
    }

    /// `bbr_lt_bw_sampling`: detect token-bucket policers from lossy intervals.
    fn lt_bw_sampling(&mut self, rs: &Rs) {
        if self.lt_use_bw {
            if self.mode == BbrMode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    // Stop using the policed rate; restart gain cycling.
                    self.reset_lt_bw_sampling();
                    self.reset_probe_bw_mode();
                }
            }
            return;
        }
        // Start at the first loss, once the policer has run out of tokens.
        if !self.lt_is_sampling {
            if rs.losses == 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval();
            self.lt_is_sampling = true;
        }
        // Running out of data would underestimate the rate.
        if rs.is_app_limited {
            self.reset_lt_bw_sampling();
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt_bw_sampling();
            return;
        }
        // End the interval at a loss, when the tokens are known to be exhausted.
        if rs.losses == 0 {
            return;
        }
        let lost = self.lost.saturating_sub(self.lt_last_lost);
        let delivered = self.delivered.saturating_sub(self.lt_last_delivered);
        if delivered == 0 || (lost << BBR_SCALE) < LT_LOSS_THRESH * delivered {
            return;
        }
        let t_ms = (self.delivered_mstamp.ns() / 1_000_000) as i64 - self.lt_last_stamp_ms as i64;
        if t_ms < 1 {
            return;
        }
        if t_ms as u64 >= u32::MAX as u64 / 1_000 {
            self.reset_lt_bw_sampling();
            return;
        }
        let bw = delivered as u128 * BW_UNIT as u128 / (t_ms as u128 * 1_000);
        self.lt_bw_interval_done(bw.min(u32::MAX as u128) as u32);
    }

    // ----- the model update of one ACK -----

    /// `bbr_update_bw`: round counting and the max-bandwidth filter.
    fn update_bw(&mut self, rs: &Rs) {
        self.round_start = false;
        if rs.delivered < 0 || rs.interval_us <= 0 {
            return;
        }
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = self.delivered;
            self.rtt_cnt = self.rtt_cnt.wrapping_add(1);
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(rs);
        let bw = (rs.delivered as u128 * BW_UNIT as u128 / rs.interval_us as u128)
            .min(u32::MAX as u128) as u32;
        // App-limited samples only count when they beat the model.
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.running_max(BW_RTTS, self.rtt_cnt, bw);
        }
    }

    /// `bbr_update_ack_aggregation`.
    fn update_ack_aggregation(&mut self, w: &Window, rs: &Rs) {
        if EXTRA_ACKED_GAIN == 0 || rs.acked_sacked == 0 || rs.delivered < 0 || rs.interval_us <= 0
        {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1F);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch_us = us_delta(self.delivered_mstamp, self.ack_epoch_mstamp);
        let mut expected_acked = self.bw() as u64 * epoch_us / BW_UNIT;
        // A slow ACK stream, or a very old epoch, starts a new epoch.
        if self.ack_epoch_acked as u64 <= expected_acked
            || self.ack_epoch_acked + rs.acked_sacked >= ACK_EPOCH_ACKED_RESET_THRESH
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = self.delivered_mstamp;
            expected_acked = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked).min(0xFFFFF);
        let extra = (self.ack_epoch_acked as u64 - expected_acked)
            .min(w.cwnd as u64)
            .min(u16::MAX as u64) as u32;
        if extra > self.extra_acked[self.extra_acked_win_idx] {
            self.extra_acked[self.extra_acked_win_idx] = extra;
        }
    }

    /// `bbr_check_full_bw_reached`: three rounds without 25 % growth.
    fn check_full_bw_reached(&mut self, rs: &Rs) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let bw_thresh = (self.full_bw as u64 * FULL_BW_THRESH as u64) >> BBR_SCALE;
        if self.max_bw() as u64 >= bw_thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    /// `bbr_check_drain`: STARTUP → DRAIN when full, DRAIN → PROBE_BW when drained.
    fn check_drain(&mut self, w: &mut Window, s: &AckSample) {
        if self.mode == BbrMode::Startup && self.full_bw_reached {
            self.mode = BbrMode::Drain;
            w.ssthresh = self.inflight(self.max_bw(), BBR_UNIT);
        }
        if self.mode == BbrMode::Drain
            && self.packets_in_net_at_edt(s, s.in_flight)
                <= self.inflight(self.max_bw(), BBR_UNIT) as u64
        {
            self.reset_probe_bw_mode();
        }
    }

    /// `bbr_check_probe_rtt_done`.
    fn check_probe_rtt_done(&mut self, w: &mut Window, now: SimTime) {
        match self.probe_rtt_done_stamp {
            Some(done) if now > done => {}
            _ => return,
        }
        // Wait a while until the next PROBE_RTT.
        self.min_rtt_stamp = now;
        w.cwnd = w.cwnd.max(self.prior_cwnd);
        self.reset_mode();
    }

    /// `bbr_update_min_rtt`: the 10 s RTprop filter and PROBE_RTT.
    fn update_min_rtt(&mut self, w: &mut Window, s: &AckSample, rs: &Rs) {
        let filter_expired = s.now > self.min_rtt_stamp + MIN_RTT_WIN;
        // `is_ack_delayed` is always false here (module docs).
        if rs.rtt_us >= 0 && ((rs.rtt_us as u64) < self.min_rtt_us as u64 || filter_expired) {
            self.min_rtt_us = rs.rtt_us.min(u32::MAX as i64 - 1) as u32;
            self.min_rtt_stamp = s.now;
        }
        if filter_expired && !self.idle_restart && self.mode != BbrMode::ProbeRtt {
            self.mode = BbrMode::ProbeRtt;
            self.save_cwnd(w.cwnd);
            self.probe_rtt_done_stamp = None;
        }
        if self.mode == BbrMode::ProbeRtt {
            // Ignore the low-rate samples of this mode.
            self.app_limited_request = true;
            // Hold in-flight at the minimum for max(200 ms, one round).
            if self.probe_rtt_done_stamp.is_none() && s.in_flight <= CWND_MIN_TARGET {
                self.probe_rtt_done_stamp = Some(s.now + PROBE_RTT_MODE);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = self.delivered;
            } else if self.probe_rtt_done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(w, s.now);
                }
            }
        }
        // The restart after idle ends with the first ACK that delivers data.
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    fn update_gains(&mut self) {
        let (p, c) = match self.mode {
            BbrMode::Startup => (HIGH_GAIN, HIGH_GAIN),
            // Slow down to drain, keep cwnd.
            BbrMode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            BbrMode::ProbeBw => (
                if self.lt_use_bw {
                    BBR_UNIT
                } else {
                    PACING_GAIN[self.cycle_idx as usize]
                },
                CWND_GAIN,
            ),
            BbrMode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
        self.pacing_gain = p;
        self.cwnd_gain = c;
    }

    fn update_model(&mut self, w: &mut Window, s: &AckSample, rs: &Rs) {
        self.update_bw(rs);
        self.update_ack_aggregation(w, rs);
        self.update_cycle_phase(s, rs);
        self.check_full_bw_reached(rs);
        self.check_drain(w, s);
        self.update_min_rtt(w, s, rs);
        self.update_gains();
    }
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

#[cfg(test)]
mod tests {
    //! The synthetic path of these tests: RTprop = 2^14 µs = 16.384 ms and MSS = 1000 B.
    //! A "round of d" is d one-segment ACKs spaced RTprop/d apart, each carrying a
    //! delivery-rate sample of d segments over RTprop, so BtlBw = d·2^24/2^14 = 1024·d in
    //! Linux units and the BDP is exactly d segments: bdp(bw, gain) = ceil(d·gain/256).
    //! Every pacing rate on this path is between 150 000 B/s and 2 MB/s, so a burst
    //! (`tso_segs_goal`) is 2 segments: ~1 ms of the rate is under 2 segments, and the rate
    //! is above `bbr_min_tso_rate`. The quantisation budget is therefore + 3·2 = 6.
    use super::*;
    use crate::cc::{CcParams, Controller};
    use crate::tcp::rate::RateSample;

    const RTT_US: u64 = 16_384;
    const MSS: u32 = 1000;

    /// One ACK of the synthetic path.
    #[derive(Clone, Copy)]
    struct Ack {
        /// Time since the previous ACK, µs.
        dt_us: u64,
        acked: u32,
        /// Delivery-rate sample: (segments, interval µs).
        rate: Option<(u64, u64)>,
        rtt_us: Option<u64>,
        in_flight: u32,
        /// Defaults to `in_flight + acked`.
        prior_in_flight: Option<u32>,
        losses: u32,
        /// Pacing holds the next segment back this long, µs.
        edt_us: u64,
    }

    impl Default for Ack {
        fn default() -> Self {
            Ack {
                dt_us: 1024,
                acked: 1,
                rate: Some((16, RTT_US)),
                rtt_us: Some(RTT_US),
                in_flight: 16,
                prior_in_flight: None,
                losses: 0,
                edt_us: 0,
            }
        }
    }

    /// Builds the sample of `a` at `now` with the connection's running totals.
    fn sample(now: SimTime, a: &Ack, delivered: u64, lost: u64) -> AckSample {
        let mut s = AckSample::simple(now, a.acked, a.rtt_us.map(SimTime::from_us));
        s.srtt = Some(SimTime::from_us(RTT_US));
        s.mss = MSS;
        s.delivered = delivered;
        s.lost = lost;
        s.losses = a.losses;
        s.in_flight = a.in_flight;
        s.prior_in_flight = a.prior_in_flight.unwrap_or(a.in_flight + a.acked);
        s.next_departure = now + SimTime::from_us(a.edt_us);
        s.rate = a.rate.map(|(d, i)| RateSample {
            delivered: d,
            interval: SimTime::from_us(i),
            app_limited: false,
            acked_sacked: a.acked,
            is_retrans: false,
        });
        s
    }

    /// BBR driven directly, ACK by ACK.
    struct Path {
        b: Bbr,
        w: Window,
        now: SimTime,
        delivered: u64,
        lost: u64,
        /// ACKs so far.
        n: u64,
    }

    impl Path {
        fn new(seed: u64) -> Self {
            let mut b = Bbr::new(BbrParams { seed });
            let mut w = Window::new(10);
            b.init(&mut w, SimTime::ZERO);
            Path {
                b,
                w,
                now: SimTime::ZERO,
                delivered: 0,
                lost: 0,
                n: 0,
            }
        }

        fn ack(&mut self, a: Ack) {
            self.now += SimTime::from_us(a.dt_us);
            self.delivered += a.acked as u64;
            self.lost += a.losses as u64;
            self.n += 1;
            let s = sample(self.now, &a, self.delivered, self.lost);
            assert!(self.b.cong_control(&mut self.w, &s), "BBR owns the window");
        }

        /// A round of `d` (module comment) with `in_flight` left after each ACK.
        fn round(&mut self, d: u32, in_flight: u32) {
            for _ in 0..d {
                self.ack(Ack {
                    dt_us: RTT_US / d as u64,
                    rate: Some((d as u64, RTT_US)),
                    in_flight,
                    ..Ack::default()
                });
            }
        }

        /// STARTUP at 16 segments per RTprop until PROBE_BW. Round starts fall on ACKs
        /// 1, 17, 33, 49 (a sample of 16 has prior_delivered = n − 16 ≥ the previous
        /// round's start): the first sets full_bw, the next three count "no 25 % growth",
        /// so ACK 49 fills the pipe; in-flight 16 ≤ inflight(bw, 1) = 16 + 6 = 22 ends
        /// DRAIN on the same ACK. Returns right at the PROBE_BW entry (t = 49·1024 µs).
        fn to_probe_bw(seed: u64) -> Path {
            let mut p = Path::new(seed);
            for _ in 0..3 {
                p.round(16, 16);
            }
            p.ack(Ack::default());
            assert_eq!(p.b.mode(), BbrMode::ProbeBw);
            assert_eq!(p.n, 49);
            p
        }
    }

    /// PROBE_BW cwnd target at bw 16384 (BDP 16) with the one-segment ACK-aggregation
    /// allowance these evenly spaced ACKs earn (each ACK comes exactly when the epoch
    /// expects one, so the epoch restarts and extra_acked = the ACK's 1 segment):
    /// 2·16 + 1 + 6 = 39 → 40 (even), + 2 in phase 0 = 42.
    fn probe_bw_target(b: &Bbr) -> u32 {
        if b.cycle_idx() == 0 {
            42
        } else {
            40
        }
    }

    #[test]
    fn constants_are_linux_values() {
        // 256·2885/1000 + 1 = 739 (2.887), 256·1000/2885 = 88 (0.344), 5/4 → 320, 3/4 → 192.
        assert_eq!((HIGH_GAIN, DRAIN_GAIN, CWND_GAIN), (739, 88, 512));
        assert_eq!(PACING_GAIN, [320, 192, 256, 256, 256, 256, 256, 256]);
        assert_eq!(FULL_BW_THRESH, 320);
    }

    #[test]
    fn minmax_keeps_the_windowed_maximum() {
        // Linux win_minmax with a 10-round window, worked sample by sample.
        let mut m = MinMax::default();
        m.reset(0, 0);
        // t=1: 100 ≥ best → reset: all three = (1, 100).
        assert_eq!(m.running_max(10, 1, 100), 100);
        // t=2: 50, dt = 1 ≤ win/4 = 2: no sub-window change.
        assert_eq!(m.running_max(10, 2, 50), 100);
        // t=4: 60, dt = 3 > 2 with 2nd == 1st: 2nd = 3rd = (4, 60).
        assert_eq!(m.running_max(10, 4, 60), 100);
        // t=7: 40, dt = 6 > win/2 = 5 with 3rd == 2nd: 3rd = (7, 40).
        assert_eq!(m.running_max(10, 7, 40), 100);
        // t=12: 30, dt = 11 > 10: the best expires, (4, 60) is promoted.
        assert_eq!(m.running_max(10, 12, 30), 60);
        // t=15: 30 ≥ 3rd → 3rd = (15, 30); dt = 11 from (4, 60): (7, 40) is promoted.
        assert_eq!(m.running_max(10, 15, 30), 40);
        // t=18: 10; dt = 11 from (7, 40): (15, 30) is promoted.
        assert_eq!(m.running_max(10, 18, 10), 30);
        // A new maximum resets everything.
        assert_eq!(m.running_max(10, 19, 500), 500);
        // Nothing left in the window (t − t of 3rd > 10) also resets, to the new sample.
        assert_eq!(m.running_max(10, 40, 7), 7);
    }

    #[test]
    fn startup_doubles_cwnd_per_round_and_paces_at_high_gain() {
        let mut p = Path::new(0);
        assert_eq!(p.w.ssthresh, INFINITE_SSTHRESH);
        // No rate before the first ACK: init does not know the MSS (module docs).
        assert_eq!(p.b.pacing_rate(), None);
        // Round of 8: every ACK adds its segment while cwnd < target
        // = ceil(8·739/256) + 3 = 24 + 3 = 27 → 28: 10 → 18.
        p.round(8, 10);
        assert_eq!(p.w.cwnd, 18);
        assert_eq!(p.b.mode(), BbrMode::Startup);
        assert_eq!(p.b.pacing_gain(), HIGH_GAIN);
        assert_eq!(p.b.cwnd_gain(), HIGH_GAIN);
        // The first ACK started the rate from high_gain·cwnd/SRTT: bw = 10·2^24/16384 =
        // 10240; 10240·1000·739 >> 8 = 29 560 000; ·990 000 >> 24 = 1 744 294 B/s
        // (≈ 10 000 B/16.384 ms · 2.887 · 0.99). The samples (bw 8192) are below it, and
        // before the pipe is full the rate never decreases.
        assert_eq!(p.b.pacing_rate(), Some(Rate::bps(1_744_294 * 8)));
        // Round of 16: target = ceil(16·739/256) + 3 = 47 + 3 = 50: 18 → 34.
        p.round(16, 10);
        assert_eq!(p.w.cwnd, 34);
        // bw 16384: 16384·1000·739 >> 8 = 47 296 000; ·990 000 >> 24 = 2 790 870 B/s.
        assert_eq!(p.b.pacing_rate(), Some(Rate::bps(2_790_870 * 8)));
        // cwnd stops at the target: two more rounds of 16 → 50, not 66.
        p.round(16, 10);
        assert_eq!(p.w.cwnd, 50);
        assert_eq!(p.b.min_rtt(), Some(SimTime::from_us(RTT_US)));
    }

    #[test]
    fn full_pipe_needs_three_rounds_without_25_percent_growth() {
        let mut p = Path::new(0);
        // Each round: 16 ACKs 1024 µs apart whose samples say 16 segments over `interval`,
        // so bw = 16·2^24/interval = 268 435 456/interval.
        let round = |p: &mut Path, interval_us: u64| {
            for _ in 0..16 {
                p.ack(Ack {
                    rate: Some((16, interval_us)),
                    in_flight: 40,
                    ..Ack::default()
                });
            }
        };
        // bw 13107 (interval 20480): full_bw = 13107.
        round(&mut p, 20_480);
        // bw 16382 (interval 16386) < 13107·320 >> 8 = 16383: one round without growth.
        round(&mut p, 16_386);
        assert_eq!(p.b.full_bw_cnt, 1);
        // bw 16384 ≥ 16383: growth, the count restarts from full_bw = 16384.
        round(&mut p, RTT_US);
        assert_eq!((p.b.full_bw_cnt, p.b.full_bw), (0, 16_384));
        // Three rounds below 16384·320 >> 8 = 20480: full at the third round start.
        round(&mut p, RTT_US);
        round(&mut p, RTT_US);
        assert_eq!(p.b.mode(), BbrMode::Startup);
        assert_eq!(p.w.ssthresh, INFINITE_SSTHRESH);
        p.ack(Ack {
            in_flight: 40,
            ..Ack::default()
        });
        assert!(p.b.full_bw_reached());
        assert_eq!(p.b.mode(), BbrMode::Drain);
        // DRAIN sets ssthresh = inflight(bw, 1) = 16 + 6 = 22.
        assert_eq!(p.w.ssthresh, 22);
        assert_eq!(
            (p.b.pacing_gain(), p.b.cwnd_gain()),
            (DRAIN_GAIN, HIGH_GAIN)
        );
        // Full pipe: the rate may now fall, to 16384·1000·88 >> 8 = 5 632 000;
        // ·990 000 >> 24 = 332 336 B/s.
        assert_eq!(p.b.pacing_rate(), Some(Rate::bps(332_336 * 8)));
        // 23 in flight > 22: still draining.
        p.ack(Ack {
            in_flight: 23,
            ..Ack::default()
        });
        assert_eq!(p.b.mode(), BbrMode::Drain);
        // Still 23 in flight, but pacing holds the next segment 1024 µs, during which
        // bw·1024 µs >> 24 = 16384·1024 >> 24 = 1 segment leaves: 22 in the network at
        // the departure time → PROBE_BW.
        p.ack(Ack {
            in_flight: 23,
            edt_us: 1024,
            ..Ack::default()
        });
        assert_eq!(p.b.mode(), BbrMode::ProbeBw);
        assert_ne!(p.b.cycle_idx(), 1, "never starts in the 3/4 phase");
        assert_eq!(p.b.cwnd_gain(), CWND_GAIN);
        // cwnd snaps from the STARTUP target (50) down to the PROBE_BW one:
        // 2·16 + extra_acked + 6, rounded up to even, + 2 in phase 0. (Here the ACKs came
        // faster than the lower early samples said, which counts as ACK aggregation.)
        let phase0 = if p.b.cycle_idx() == 0 { 2 } else { 0 };
        let expected = ((32 + p.b.extra_acked() + 6 + 1) & !1) + phase0;
        assert!(p.b.extra_acked() > 1);
        assert_eq!(p.w.cwnd, expected);
        assert!(expected < 50);
    }

    #[test]
    fn probe_bw_start_phase_is_random_but_never_the_drain_phase() {
        // Linux: cycle_idx = 7 − U{0..6}, then advance: the start phase is one of
        // {2, …, 7, 0}, uniformly; never 1 (gain 3/4). 700 seeds: 100 expected per phase,
        // σ = √(700·(1/7)·(6/7)) ≈ 9.3, so each count lies within ±30 (> 3σ).
        let mut counts = [0u32; 8];
        for seed in 0..700 {
            let p = Path::to_probe_bw(seed);
            counts[p.b.cycle_idx() as usize] += 1;
        }
        assert_eq!(counts[1], 0);
        for (i, c) in counts.iter().enumerate().filter(|(i, _)| *i != 1) {
            assert!((70..=130).contains(c), "phase {i}: {c} of 700");
        }
        // Deterministic: the same seed gives the same phase.
        assert_eq!(
            Path::to_probe_bw(42).b.cycle_idx(),
            Path::to_probe_bw(42).b.cycle_idx()
        );
    }

    #[test]
    fn probe_bw_cycles_gains_with_linux_phase_rules() {
        let mut p = Path::to_probe_bw(3);
        assert_eq!(p.w.cwnd, probe_bw_target(&p.b));
        // Gain-1 phases last until delivered_mstamp − cycle_mstamp > min_rtt = 16384 µs:
        // with ACKs 1024 µs apart that is the 17th ACK of the phase (16·1024 is not >).
        let mut guard = 0;
        while p.b.cycle_idx() != 0 {
            let idx = p.b.cycle_idx();
            assert_eq!(p.b.pacing_gain(), PACING_GAIN[idx as usize]);
            for k in 1..=17 {
                p.ack(Ack {
                    in_flight: 16,
                    ..Ack::default()
                });
                let expect = if k < 17 { idx } else { (idx + 1) % 8 };
                assert_eq!(p.b.cycle_idx(), expect, "ACK {k} of phase {idx}");
            }
            guard += 1;
            assert!(guard < 8);
        }
        // Phase 0, gain 5/4: cwnd gets the +2, and the phase outlasts min_rtt until the
        // packets in flight at the departure time reach inflight(bw, 5/4) =
        // ceil(16·320/256) + 6 = 26 (even), + 2 = 28. At gain > 1 the departing burst of
        // 2 segments counts: prior_in_flight 25 → 27 < 28.
        assert_eq!(p.b.pacing_gain(), 320);
        for _ in 0..40 {
            p.ack(Ack {
                prior_in_flight: Some(25),
                ..Ack::default()
            });
            assert_eq!(p.b.cycle_idx(), 0);
            assert_eq!(p.w.cwnd, 42);
        }
        // 16384·1000·320 >> 8 = 20 480 000; ·990 000 >> 24 = 1 208 496 B/s.
        assert_eq!(p.b.pacing_rate(), Some(Rate::bps(1_208_496 * 8)));
        // prior_in_flight 26 → 28 ≥ 28: next phase.
        p.ack(Ack {
            prior_in_flight: Some(26),
            ..Ack::default()
        });
        assert_eq!(p.b.cycle_idx(), 1);
        assert_eq!(p.w.cwnd, 40);
        // Phase 1, gain 3/4, ends early once in-flight ≤ inflight(bw, 1) = 16 + 6 = 22
        // (a gain below 1 does not count the departing segment): 23 stays, 22 ends it,
        // only two ACKs (2048 µs) into the phase.
        p.ack(Ack {
            prior_in_flight: Some(23),
            ..Ack::default()
        });
        assert_eq!(p.b.cycle_idx(), 1);
        assert_eq!(p.b.pacing_gain(), 192);
        p.ack(Ack {
            prior_in_flight: Some(22),
            ..Ack::default()
        });
        assert_eq!(p.b.cycle_idx(), 2);
        assert_eq!(p.b.pacing_gain(), BBR_UNIT);
        // Losses end a 5/4 phase that lasted min_rtt even below its in-flight target.
        while p.b.cycle_idx() != 0 {
            p.ack(Ack::default());
        }
        for _ in 0..16 {
            p.ack(Ack {
                prior_in_flight: Some(16),
                ..Ack::default()
            });
        }
        assert_eq!(p.b.cycle_idx(), 0);
        p.ack(Ack {
            prior_in_flight: Some(16),
            losses: 1,
            ..Ack::default()
        });
        assert_eq!(p.b.cycle_idx(), 1);
    }

    #[test]
    fn probe_rtt_every_10_s_at_4_segments_for_200_ms_and_a_round() {
        let mut p = Path::to_probe_bw(5);
        // min_rtt 16384 µs was taken by the first ACK (t = 1024 µs). Later samples of
        // 17 ms never beat it, so the filter expires at the first ACK after 10.001024 s:
        // ACKs come every 1024 µs, i.e. ACK 9767 at 10.001408 s.
        let busy = Ack {
            rtt_us: Some(17_000),
            in_flight: 30,
            ..Ack::default()
        };
        let mut cwnd_before = p.w.cwnd;
        while p.b.mode() == BbrMode::ProbeBw {
            cwnd_before = p.w.cwnd;
            p.ack(busy);
            assert!(!p.b.request_app_limited() || p.b.mode() == BbrMode::ProbeRtt);
        }
        assert_eq!(p.n, 9767);
        assert_eq!(p.now, SimTime::from_us(10_001_408));
        assert_eq!(p.b.mode(), BbrMode::ProbeRtt);
        assert_eq!(p.w.cwnd, 4);
        assert_eq!(p.b.prior_cwnd, cwnd_before, "cwnd saved for the restore");
        // The expired filter takes the current sample.
        assert_eq!(p.b.min_rtt(), Some(SimTime::from_us(17_000)));
        assert!(p.b.request_app_limited());
        assert_eq!((p.b.pacing_gain(), p.b.cwnd_gain()), (BBR_UNIT, BBR_UNIT));
        // In-flight still above 4: the 200 ms have not started.
        for _ in 0..10 {
            p.ack(Ack {
                in_flight: 10,
                ..busy
            });
            assert_eq!(p.w.cwnd, 4);
        }
        assert_eq!(p.b.probe_rtt_done_stamp, None);
        // In-flight 4: hold until 200 ms later and one round (16 ACKs here) have passed.
        // The emptied queue shows the 16.384 ms RTprop again.
        let quiet = Ack {
            in_flight: 4,
            ..Ack::default()
        };
        p.ack(quiet);
        let t1 = p.now;
        assert_eq!(p.b.probe_rtt_done_stamp, Some(t1 + SimTime::from_ms(200)));
        // First ACK after t1 + 200 ms: 200/1.024 = 195.3 → the 196th.
        for k in 1..=196 {
            p.ack(quiet);
            let expect = if k < 196 {
                BbrMode::ProbeRtt
            } else {
                BbrMode::ProbeBw
            };
            assert_eq!(p.b.mode(), expect, "ACK {k} after in-flight reached 4");
        }
        let t_exit = p.now;
        assert_eq!(t_exit, t1 + SimTime::from_us(196 * 1024));
        assert_eq!(p.b.min_rtt(), Some(SimTime::from_us(RTT_US)));
        // cwnd restored to max(4, prior_cwnd), then the PROBE_BW rule min(cwnd + 1, target).
        assert_eq!(
            p.w.cwnd,
            (cwnd_before + 1).min(probe_bw_target(&p.b)),
            "restored"
        );
        // The exit ACK was still processed in PROBE_RTT (Linux marks it app-limited too).
        assert!(p.b.request_app_limited());
        p.ack(busy);
        assert!(!p.b.request_app_limited());
        // The next PROBE_RTT: 10 s after the exit (min_rtt_stamp = exit time), at the first
        // ACK after t_exit + 10 s: 10 000/1.024 = 9765.6 → the 9766th ACK after the exit.
        let mut k = 1;
        while p.b.mode() != BbrMode::ProbeRtt {
            p.ack(busy);
            k += 1;
        }
        assert_eq!(k, 9766);
        assert_eq!(p.now, t_exit + SimTime::from_us(9766 * 1024));
    }

    #[test]
    fn recovery_conserves_packets_for_a_round_then_restores_cwnd() {
        let mut p = Path::to_probe_bw(11);
        let target = probe_bw_target(&p.b);
        assert_eq!(p.w.cwnd, target);
        // Entering recovery: ssthresh stays (22, set by DRAIN); cwnd is saved.
        let ss = p.b.ssthresh(&p.w);
        assert_eq!(ss, 22);
        assert_eq!(p.b.prior_cwnd, target);
        p.b.set_state(&mut p.w, CaState::Recovery);
        // First ACK in recovery: 2 lost, 1 delivered, 30 left in flight. Losses come off
        // first (target − 2), then packet conservation: cwnd = in_flight + acked = 31.
        // Its sample (16 segments) has prior_delivered = 50 − 16 < 49: no round start.
        p.ack(Ack {
            losses: 2,
            in_flight: 30,
            ..Ack::default()
        });
        assert_eq!(p.w.cwnd, 31);
        assert!(p.b.packet_conservation);
        // Same round: cwnd = max(cwnd, in_flight + acked) = max(31, 32 + 1) = 33.
        p.ack(Ack {
            in_flight: 32,
            ..Ack::default()
        });
        assert_eq!(p.w.cwnd, 33);
        // A sample of 1 segment: prior_delivered = 52 − 1 = 51 ≥ 50 (the round began at
        // recovery entry, delivered = 50): the round ends, conservation stops and cwnd
        // slow-starts towards the target: min(33 + 1, target).
        p.ack(Ack {
            rate: Some((1, RTT_US)),
            in_flight: 31,
            ..Ack::default()
        });
        assert!(!p.b.packet_conservation);
        assert_eq!(p.w.cwnd, 34);
        // Recovery ends: the saved cwnd comes back, capped by the target.
        p.b.set_state(&mut p.w, CaState::Open);
        p.ack(Ack::default());
        assert_eq!(p.w.cwnd, target);
        assert_eq!(p.w.ssthresh, 22, "BBR never cuts ssthresh on loss");
    }

    #[test]
    fn rto_keeps_ssthresh_and_restores_cwnd_through_the_controller() {
        let mut c = Controller::new(&CcParams::Bbr(BbrParams { seed: 11 }), 10, SimTime::ZERO);
        let mut clock = (SimTime::ZERO, 0u64);
        let ack = |c: &mut Controller, clock: &mut (SimTime, u64), a: Ack| {
            clock.0 += SimTime::from_us(a.dt_us);
            clock.1 += a.acked as u64;
            c.on_ack(&sample(clock.0, &a, clock.1, 0));
        };
        let metric = |c: &Controller, name: &str| {
            c.metrics()
                .into_iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v)
                .unwrap()
        };
        // Same trajectory as Path::to_probe_bw(11).
        for _ in 0..49 {
            ack(&mut c, &mut clock, Ack::default());
        }
        assert_eq!(metric(&c, "mode"), 2.0, "PROBE_BW");
        assert!(c.owns_window());
        let target = probe_bw_target(&Path::to_probe_bw(11).b);
        assert_eq!((c.cwnd(), c.ssthresh()), (target, 22));
        // RTO with nothing left in flight: ssthresh() only saves cwnd; cwnd = 0 + 1.
        c.on_rto(clock.0, 0, 50, 100);
        assert_eq!((c.cwnd(), c.ssthresh()), (1, 22));
        assert_eq!(metric(&c, "prior_cwnd"), target as f64);
        // In Loss, cwnd grows by what each ACK delivers (full pipe: min(cwnd + acked,
        // target)), and never below 4 — no cong_avoid, no PRR: 1 → max(2, 4) = 4, 5, 6.
        for k in 4..=6 {
            ack(
                &mut c,
                &mut clock,
                Ack {
                    in_flight: k,
                    ..Ack::default()
                },
            );
            assert_eq!(c.cwnd(), k);
        }
        // The episode ends: no cwnd = ssthresh for an algorithm owning the window (Linux
        // tcp_end_cwnd_reduction returns early), cwnd stays 6 ...
        c.exit_recovery(clock.0);
        assert_eq!(c.cwnd(), 6);
        // ... and BBR restores its saved cwnd on the next ACK.
        ack(&mut c, &mut clock, Ack::default());
        assert_eq!(c.cwnd(), target);
        // No slow start after idle either (Linux skips it with cong_control).
        c.restart_after_idle(SimTime::from_secs(5), SimTime::from_secs(1), 10);
        assert_eq!((c.cwnd(), c.ssthresh()), (target, 22));
    }

    #[test]
    fn rto_feeds_the_policer_detector_and_resets_full_bw() {
        let mut p = Path::to_probe_bw(2);
        assert!(!p.b.lt_is_sampling);
        p.b.set_state(&mut p.w, CaState::Loss);
        assert!(p.b.lt_is_sampling, "an RTO is a loss: LT sampling starts");
        assert!(p.b.round_start);
        assert_eq!(p.b.full_bw, 0);
        assert_eq!(p.b.prev_ca_state, CaState::Loss);
    }

    #[test]
    fn policer_is_detected_from_two_consistent_lossy_intervals() {
        let mut p = Path::to_probe_bw(7);
        // Round starts are ACKs n ≡ 1 (mod 16); every ACK n ≡ 0 (mod 16) reports 4 losses,
        // i.e. 4 of 20 segments per round are lost (20 % ≥ 50/256 = 19.5 %). ACK n comes at
        // n·1024 µs.
        let step = |p: &mut Path| {
            let losses = if (p.n + 1).is_multiple_of(16) { 4 } else { 0 };
            p.ack(Ack {
                losses,
                ..Ack::default()
            });
        };
        while p.n < 64 {
            step(&mut p);
        }
        // ACK 64: first loss → sampling starts: delivered 64, lost 4, at 65 ms (65.536).
        assert!(p.b.lt_is_sampling);
        assert_eq!(
            (
                p.b.lt_last_delivered,
                p.b.lt_last_lost,
                p.b.lt_last_stamp_ms
            ),
            (64, 4, 65)
        );
        // Round starts 65, 81, 97, 113 make 4 rounds; the loss at ACK 128 closes the
        // interval: lost 20 − 4 = 16, delivered 128 − 64 = 64 (16·256 ≥ 50·64), over
        // 131 − 65 = 66 ms (131.072 ms): bw = 64·2^24/66 000 = 16268.
        while p.n < 128 {
            step(&mut p);
        }
        assert_eq!(p.b.lt_bw, 16_268);
        assert!(!p.b.lt_use_bw());
        // Second interval, ACK 192 at 196.608 ms: 64 delivered in 196 − 131 = 65 ms →
        // 64·2^24/65 000 = 16519. |16519 − 16268| = 251; 251·256 ≤ 32·16268: consistent
        // → policed: lt_bw = (16519 + 16268) >> 1 = 16393, pacing gain 1.
        while p.n < 192 {
            step(&mut p);
        }
        assert!(p.b.lt_use_bw());
        assert_eq!(p.b.lt_bw, 16_393);
        assert_eq!(p.b.pacing_gain(), BBR_UNIT);
        // Pace at lt_bw: 16393·1000·256 >> 8 = 16 393 000; ·990 000 >> 24 = 967 327 B/s.
        assert_eq!(p.b.pacing_rate(), Some(Rate::bps(967_327 * 8)));
        // Use lt_bw for 48 round starts in PROBE_BW (ACKs 193, 209, …, 193 + 47·16 = 945),
        // whatever the gain cycle says, then go back to gain cycling.
        while p.n < 944 {
            p.ack(Ack::default());
            assert!(p.b.lt_use_bw());
            assert_eq!(p.b.pacing_gain(), BBR_UNIT);
        }
        p.ack(Ack::default());
        assert!(!p.b.lt_use_bw());
        assert_eq!(p.b.lt_bw, 0);
        assert_eq!(p.b.pacing_gain(), PACING_GAIN[p.b.cycle_idx() as usize]);
    }

    #[test]
    fn burst_goal_is_a_millisecond_of_the_pacing_rate() {
        let mut b = Bbr::new(BbrParams { seed: 0 });
        b.mss = 1448;
        let goal = |b: &mut Bbr, rate: u64| {
            b.pacing_rate_bytes = rate;
            b.tso_segs_goal()
        };
        // 96 Mbit/s of payload = 12 000 000 B/s: >> 10 = 11 718 B = 8 segments of 1448.
        assert_eq!(goal(&mut b, 12_000_000), 8);
        // 1 MB/s: 976 B is no whole segment; above 150 000 B/s (1.2 Mbit/s) at least 2.
        assert_eq!(goal(&mut b, 1_000_000), 2);
        // Below 1.2 Mbit/s one segment.
        assert_eq!(goal(&mut b, 149_999), 1);
        // 1 GB/s: 976 562 B, capped at 65 536 − 1 − 320 = 65 215 B = 45 segments.
        assert_eq!(goal(&mut b, 1_000_000_000), 45);
        // The budget: 3 bursts, even: 336 + 24 = 360; in STARTUP no phase bonus.
        b.pacing_rate_bytes = 12_000_000;
        assert_eq!(b.quantization_budget(336), 360);
        assert_eq!(b.quantization_budget(337), 362);
    }

    #[test]
    fn ack_aggregation_raises_the_cwnd_target_once_the_pipe_is_full() {
        let mut p = Path::to_probe_bw(3);
        let target = probe_bw_target(&p.b);
        assert_eq!(p.b.extra_acked(), 1);
        // 9216 µs of silence, then one ACK for 9 segments. The epoch expected
        // bw·9216 µs = 16384·9216 >> 24 = 9 segments and had 1: it restarts at this ACK,
        // which alone counts 9 "extra" segments. Target = 32 + 9 + 6 = 47 → 48 (+2 in
        // phase 0) = target + 8, and cwnd = min(cwnd + 9, that).
        p.ack(Ack {
            dt_us: 9216,
            acked: 9,
            ..Ack::default()
        });
        assert_eq!(p.b.extra_acked(), 9);
        assert_eq!(p.w.cwnd, target + 8);
    }

    #[test]
    fn tx_start_after_idle_blocks_probe_rtt_until_data_is_delivered() {
        let mut p = Path::to_probe_bw(1);
        p.b.cwnd_event(
            &mut p.w,
            CwndEvent::TxStart {
                idle: SimTime::from_secs(11),
            },
            p.now + SimTime::from_secs(11),
        );
        assert!(p.b.idle_restart);
        // 11 s later the min_rtt filter has expired, but an ACK without a valid sample
        // (nothing delivered) keeps the restart flag, so PROBE_RTT does not start; the
        // expired filter still takes the ACK's RTT sample.
        p.ack(Ack {
            dt_us: 11_000_000,
            acked: 0,
            rate: None,
            rtt_us: Some(20_000),
            ..Ack::default()
        });
        assert!(p.b.idle_restart);
        assert_eq!(p.b.mode(), BbrMode::ProbeBw);
        assert_eq!(p.b.min_rtt(), Some(SimTime::from_us(20_000)));
    }
}
