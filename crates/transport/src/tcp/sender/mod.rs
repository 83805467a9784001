//! The data-sending end of a TCP connection.
//!
//! Inputs: segments from the receiver ([`TcpSender::on_segment`]), timer expiry
//! ([`TcpSender::on_timer`]) and application writes ([`TcpSender::set_app_end`]). Outputs:
//! headers appended to the caller's buffer. [`TcpSender::next_deadline`] tells when the
//! sender next needs the clock (RTO, SYN retransmission, tail loss probe, RACK reordering,
//! persist timer or pacing release).
//!
//! Per ACK the order is Linux's `tcp_ack()`: cumulative ACK and SACK processing (scoreboard,
//! delivery-rate sampling, RTT sample) → `pkts_acked` → loss detection and the state
//! machine (Open / Disorder / Recovery / Loss) → window growth or PRR → RTO re-arm →
//! transmission. See the module docs of [`crate::tcp`] for what is and is not modelled.
//!
//! Window growth is Linux's `tcp_cong_control`: the algorithm's `cong_control` hook first,
//! on every ACK while data was outstanding and in every state; if it takes the window over
//! (BBR), neither PRR nor `cong_avoid` runs. A rate the algorithm requests
//! (`pacing_rate()`) paces the flow even when the `pacing` option is off, as Linux BBR sets
//! `sk_pacing_status`; that rate counts payload bytes only, as Linux charges `skb->len`
//! against `sk_pacing_rate`. The sender's own default rate (pacing option on, algorithm
//! silent) keeps spacing segments by their wire size.
//!
//! The work is split by Linux's own layout: `ack.rs` is `tcp_ack` (what an ACK delivered),
//! `recovery.rs` is `tcp_fastretrans_alert` with the undo functions around it, and
//! `timers.rs` holds the retransmission timeout (`tcp_retransmit_timer`/`tcp_enter_loss`),
//! the tail loss probe and RACK's reordering timer, and `persist.rs` the zero-window
//! probing of the persist timer (`tcp_probe_timer`, `tcp_send_probe0`, `tcp_ack_probe`).

mod ack;
mod persist;
mod recovery;
mod timers;

use super::rack::{RackState, TlpState};
use super::rate::RateSampler;
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use super::undo::UndoState;
use super::{ts_ticks, wscale_for, TcpConfig};
use crate::cc::Controller;
use mmtsim_engine::metrics::{keep_even_rows, DelayLog, Thinning};
use mmtsim_engine::SimTime;
use mmtsim_net::packet::{SynOptions, TcpFlags, TcpHeader, TS_TICK_NS};

/// Connection state of the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SenderState {
    /// Not started.
    Closed,
    /// SYN sent, waiting for SYN-ACK.
    SynSent,
    /// Data transfer.
    Established,
}

/// Counters of one sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Data segments sent, retransmissions included.
    pub segments_sent: u64,
    /// Retransmitted data segments.
    pub retransmits: u64,
    /// Retransmission timeouts.
    pub rtos: u64,
    /// Fast-recovery episodes.
    pub fast_recoveries: u64,
    /// SYN retransmissions.
    pub syn_retransmits: u64,
    /// Reductions undone as spurious (timeouts and fast recoveries).
    pub undos: u64,
    /// Of those, timeouts undone (Linux `TCPLossUndo`).
    pub loss_undos: u64,
    /// Timeouts F-RTO found spurious (Linux `TCPSpuriousRTOs`).
    pub spurious_rtos: u64,
    /// ACKs carrying a D-SACK.
    pub dsacks: u64,
    /// Tail loss probes sent.
    pub tlp_probes: u64,
    /// Probes that repaired a loss (Linux `TCPLossProbeRecovery`).
    pub tlp_recoveries: u64,
    /// Zero-window probes sent by the persist timer (zero-length; Linux `TCPWinProbe`).
    pub persist_probes: u64,
    /// Persist-timer expiries that found part of the window open and sent new data into
    /// it (counted in `segments_sent` too).
    pub persist_data_probes: u64,
}

/// cwnd / ssthresh / in-flight samples, in bytes, recorded when cwnd or ssthresh changes,
/// under a row budget (see [`mmtsim_engine::metrics`]).
#[derive(Clone, Debug, Default)]
pub struct CwndLog {
    /// Which changes are kept.
    pub thinning: Thinning,
    /// Time, ns.
    pub t_ns: Vec<u64>,
    /// Congestion window, bytes.
    pub cwnd_bytes: Vec<u64>,
    /// Slow-start threshold, bytes (u64::MAX while infinite).
    pub ssthresh_bytes: Vec<u64>,
    /// Bytes in flight.
    pub inflight_bytes: Vec<u64>,
    /// Window the receiver advertised, bytes.
    pub rwnd_bytes: Vec<u64>,
}

/// What the sender records for metrics.
#[derive(Clone, Debug, Default)]
pub struct SenderLog {
    /// RTT samples.
    pub rtt: DelayLog,
    /// cwnd changes, if requested.
    pub cwnd: Option<CwndLog>,
    /// Time of every retransmission timeout, ns.
    pub rto_t_ns: Vec<u64>,
    /// Time of every undo of a spurious reduction, ns.
    pub undo_t_ns: Vec<u64>,
    /// Time-weighted integral of SRTT (ns · ns) since the first sample.
    srtt_area: u128,
    /// Time of the first RTT sample, ns.
    srtt_first_ns: u64,
    /// When SRTT last changed (the first sample's time before that).
    srtt_since: Option<SimTime>,
}

impl SenderLog {
    /// Mean of the smoothed RTT weighted by how long each value held, from the first RTT
    /// sample to `until`, ms. This is what sampling the kernel's `tcpi_rtt` at a fixed
    /// interval averages; the per-ACK mean of [`DelayLog`] under-weights the long RTTs of
    /// an outage, when few ACKs arrive.
    pub fn srtt_time_mean_ms(&self, srtt: Option<SimTime>, until: SimTime) -> Option<f64> {
        let (since, srtt) = (self.srtt_since?, srtt?);
        let first = SimTime(self.srtt_first_ns);
        let span = until.saturating_sub(first);
        if span == SimTime::ZERO {
            return Some(srtt.ns() as f64 * 1e-6);
        }
        let area = self.srtt_area + srtt.ns() as u128 * until.saturating_sub(since).ns() as u128;
        Some(area as f64 / span.ns() as f64 * 1e-6)
    }
}

/// TCP data sender.
pub struct TcpSender {
    cfg: TcpConfig,
    state: SenderState,
    snd_una: u64,
    snd_nxt: u64,
    /// One past the last byte the application has written (sequence space; data starts at 1).
    app_end: u64,
    snd_wnd: u64,
    peer_wscale: u8,
    sb: Scoreboard,
    rtt: RttEstimator,
    cc: Controller,
    rate: RateSampler,
    dupacks: u32,
    /// Recovery point (RFC 6582 `recover`, RFC 6675 `RecoveryPoint`, Linux `high_seq`).
    high_seq: u64,
    prr_delivered: u32,
    prr_out: u32,
    rto_deadline: SimTime,
    pacing_next: SimTime,
    pacing_blocked: bool,
    ts_recent: u32,
    syn_sent_at: SimTime,
    syn_retransmitted: bool,
    max_packets_out: u32,
    max_packets_seq: u64,
    is_cwnd_limited: bool,
    last_send: SimTime,
    last_logged: (u32, u32),
    /// Segments marked lost so far, re-losses of retransmissions included (Linux `tp->lost`).
    lost_total: u64,
    /// Undo bookkeeping.
    undo: UndoState,
    /// RACK clock and reordering window.
    rack: RackState,
    /// Tail loss probe state.
    tlp: TlpState,
    /// Consecutive timeouts without an ACK of new data (Linux `icsk_retransmits`).
    rto_retransmits: u32,
    /// F-RTO step 2b: this ACK's transmission sends new data, not retransmissions.
    send_new_only: bool,
    /// The persist timer (zero-window probing).
    persist: persist::PersistState,
    /// Counters.
    pub stats: SenderStats,
    /// Metric records.
    pub log: SenderLog,
}

impl TcpSender {
    /// A sender that will open its connection when [`TcpSender::connect`] is called.
    pub fn new(cfg: TcpConfig, log_cwnd_changes: bool, now: SimTime) -> Self {
        let ssthresh = cfg.initial_ssthresh.unwrap_or(crate::cc::INFINITE_SSTHRESH);
        let mut cc = Controller::with_ssthresh(&cfg.cc, cfg.initial_cwnd, ssthresh, now);
        cc.rto_ssthresh = cfg.rto_ssthresh;
        let rtt = RttEstimator::new(cfg.min_rto, cfg.max_rto).with_estimator(cfg.rto_estimator);
        TcpSender {
            state: SenderState::Closed,
            snd_una: 0,
            snd_nxt: 0,
            app_end: 1,
            snd_wnd: 65_535,
            peer_wscale: 0,
            sb: Scoreboard::default(),
            rtt,
            cc,
            rate: RateSampler::default(),
            dupacks: 0,
            high_seq: 0,
            prr_delivered: 0,
            prr_out: 0,
            rto_deadline: SimTime::NEVER,
            pacing_next: SimTime::ZERO,
            pacing_blocked: false,
            ts_recent: 0,
            syn_sent_at: SimTime::ZERO,
            syn_retransmitted: false,
            max_packets_out: 0,
            max_packets_seq: 0,
            is_cwnd_limited: false,
            last_send: now,
            last_logged: (0, 0),
            lost_total: 0,
            undo: UndoState::default(),
            rack: RackState::new(cfg.dupthresh),
            tlp: TlpState {
                deadline: SimTime::NEVER,
                ..TlpState::default()
            },
            rto_retransmits: 0,
            send_new_only: false,
            persist: persist::PersistState::default(),
            stats: SenderStats::default(),
            log: SenderLog {
                cwnd: log_cwnd_changes.then(CwndLog::default),
                ..Default::default()
            },
            cfg,
        }
    }

    // ----- observation -----

    /// Connection state.
    pub fn state(&self) -> SenderState {
        self.state
    }
    /// Congestion window, bytes.
    pub fn cwnd_bytes(&self) -> u64 {
        self.cc.cwnd() as u64 * self.cfg.mss as u64
    }
    /// Slow-start threshold, bytes (u64::MAX while infinite).
    pub fn ssthresh_bytes(&self) -> u64 {
        let s = self.cc.ssthresh();
        if s >= crate::cc::INFINITE_SSTHRESH {
            u64::MAX
        } else {
            s as u64 * self.cfg.mss as u64
        }
    }
    /// The window the receiver advertised last (SND.WND), bytes.
    pub fn peer_window_bytes(&self) -> u64 {
        self.snd_wnd
    }
    /// Bytes in flight (pipe).
    pub fn bytes_in_flight(&self) -> u64 {
        // Without SACK each counted duplicate ACK stands for one segment that left the
        // network, as in the segment pipe ([`Scoreboard::in_flight`]).
        self.sb
            .bytes_in_flight()
            .saturating_sub(self.sb.reno_sacked as u64 * self.cfg.mss as u64)
    }
    /// SND.UNA.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    /// SND.NXT.
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    /// The RTT estimator.
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    /// The congestion controller.
    pub fn cc(&self) -> &Controller {
        &self.cc
    }
    /// The configuration.
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    /// Bytes the application has written so far.
    pub fn app_written(&self) -> u64 {
        self.app_end - 1
    }
    /// True when every written byte is acknowledged.
    pub fn all_acked(&self) -> bool {
        self.state == SenderState::Established && self.snd_una >= self.app_end
    }
    /// Wants more application data now: everything written is sent and the window has room.
    pub fn app_limited(&self) -> bool {
        self.state == SenderState::Established && self.snd_nxt >= self.app_end
    }

    /// When the sender next needs [`TcpSender::on_timer`].
    pub fn next_deadline(&self) -> SimTime {
        let mut d = self
            .rto_deadline
            .min(self.tlp.deadline)
            .min(self.rack.reo_deadline)
            .min(self.persist.deadline);
        if self.pacing_blocked {
            d = d.min(self.pacing_next);
        }
        d
    }

    // ----- inputs -----

    /// Opens the connection: sends the SYN.
    pub fn connect(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        debug_assert_eq!(self.state, SenderState::Closed);
        self.state = SenderState::SynSent;
        self.send_syn(now, out);
    }

    fn send_syn(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.syn_sent_at = now;
        let mut h = self.header(now, 0, 0, false);
        h.flags = TcpFlags {
            syn: true,
            ack: false,
            fin: false,
        };
        h.syn_options = Some(SynOptions {
            mss: self.cfg.mss.min(u16::MAX as u32) as u16,
            wscale: Some(wscale_for(self.cfg.rcv_buf)),
            sack_permitted: self.cfg.sack,
        });
        h.window_field = self.cfg.rcv_buf.min(65_535) as u16;
        out.push(h);
        self.rto_deadline = now + self.rtt.rto();
    }

    /// The application stops: nothing beyond what was already sent will be sent (pending
    /// retransmissions still are).
    pub fn stop_writing(&mut self) {
        self.app_end = self.app_end.min(self.snd_nxt.max(1));
    }

    /// The application has written data up to total `written` bytes (monotone).
    pub fn set_app_end(&mut self, now: SimTime, written: u64, out: &mut Vec<TcpHeader>) {
        let end = written + 1;
        if end > self.app_end {
            self.app_end = end;
            if self.state == SenderState::Established {
                self.try_send(now, out);
            }
        }
    }

    /// True if the congestion control reads the grants of its UE's radio view (X-TCP).
    pub fn reads_link_view(&self) -> bool {
        self.cc.reads_link_view()
    }

    /// The radio view of the UE this sender runs on, read just before an ACK is processed
    /// (cross-layer congestion control such as X-TCP uses it; others ignore it).
    pub fn read_link_view(&mut self, view: &dyn mmtsim_net::linkview::LinkView, now: SimTime) {
        self.cc.link_view(view, now);
    }

    /// A segment from the receiver.
    pub fn on_segment(&mut self, now: SimTime, h: &TcpHeader, out: &mut Vec<TcpHeader>) {
        match self.state {
            SenderState::Closed => {}
            SenderState::SynSent => {
                if h.flags.syn && h.flags.ack && h.ack == 1 {
                    self.establish(now, h, out);
                }
            }
            SenderState::Established => {
                if h.flags.syn {
                    // Our handshake ACK was lost and the SYN-ACK repeated: ACK it again.
                    out.push(self.header(now, self.snd_nxt, 0, false));
                } else if h.flags.ack {
                    self.on_ack(now, h, out);
                }
            }
        }
    }

    fn establish(&mut self, now: SimTime, h: &TcpHeader, out: &mut Vec<TcpHeader>) {
        self.state = SenderState::Established;
        self.snd_una = 1;
        self.snd_nxt = 1;
        self.max_packets_seq = 1;
        let opts = h.syn_options.unwrap_or_default();
        self.peer_wscale = opts.wscale.unwrap_or(0).min(14);
        // The window of a SYN-ACK is never scaled (RFC 7323 §2.2).
        self.snd_wnd = h.window_field as u64;
        let sample = match (self.cfg.timestamps, h.timestamps) {
            (true, Some((tsval, tsecr))) => {
                self.ts_recent = tsval;
                Some(ticks_to_time(ts_ticks(now).wrapping_sub(tsecr)))
            }
            _ if !self.syn_retransmitted => Some(now - self.syn_sent_at),
            _ => None,
        };
        match sample {
            Some(r) => self.record_rtt(now, r),
            None => self.rtt.use_fallback_rto(),
        }
        if self.stats.syn_retransmits > 1 {
            // Linux tcp_init_transfer: after repeated SYN loss start from one segment
            // (RFC 5681 §3.1 asks for this after any SYN loss).
            self.cc.set_cwnd(1);
        }
        self.rto_deadline = SimTime::NEVER;
        self.last_send = now;
        // Complete the handshake, then send data.
        out.push(self.header(now, 1, 0, false));
        self.try_send(now, out);
    }

    // ----- transmission -----

    /// Pacing rate in bits per second and whether it counts header bytes too.
    fn pacing_rate_bps(&self) -> Option<(u64, bool)> {
        if let Some(r) = self.cc.pacing_rate() {
            // The algorithm's rate, payload only (Linux paces `skb->len`).
            return Some((r.as_bps().max(1), false));
        }
        if !self.cfg.pacing {
            return None;
        }
        // Linux tcp_update_pacing_rate: 200 % in slow start (cwnd < ssthresh/2), else 120 %.
        let srtt = self.rtt.srtt()?;
        let w = &self.cc.w;
        let ratio = if w.cwnd < w.ssthresh / 2 { 200 } else { 120 };
        let segs = w.cwnd.max(self.sb.packets_out) as u128;
        let bps = segs * self.cfg.mss as u128 * 8 * 1_000_000_000 * ratio
            / 100
            / srtt.ns().max(1) as u128;
        Some((bps.min(u64::MAX as u128).max(1) as u64, true))
    }

    fn try_send(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        if self.state != SenderState::Established {
            return;
        }
        self.pacing_blocked = false;
        let mut sent = 0u32;
        let mut cwnd_limited_now = false;
        loop {
            if self.sb.in_flight() >= self.cc.cwnd() {
                cwnd_limited_now = true;
                break;
            }
            let pacing = self.pacing_rate_bps();
            if pacing.is_some() && now < self.pacing_next {
                self.pacing_blocked = true;
                break;
            }
            let rtx = if self.send_new_only {
                None
            } else {
                self.sb.next_retransmit()
            };
            let (seq, len, retransmission) = if let Some(i) = rtx {
                let stamp = self.rate.on_send(now, self.sb.packets_out);
                let s = self.sb.on_retransmit(i, now, stamp);
                self.stats.retransmits += 1;
                self.undo.on_retransmit(ts_ticks(now));
                if i == 0 {
                    // Linux tcp_xmit_retransmit_queue: retransmitting the head restarts the
                    // timer, giving the retransmission a whole RTO (it may sit behind a
                    // queue the RTO estimate has not caught up with yet).
                    self.rto_deadline = now + self.rtt.rto();
                }
                (s.seq, s.len, true)
            } else {
                let wnd_end = self.snd_una + self.snd_wnd;
                let room = wnd_end.saturating_sub(self.snd_nxt);
                let avail = self.app_end.saturating_sub(self.snd_nxt);
                let len = (self.cfg.mss as u64).min(avail) as u32;
                if len == 0 {
                    self.rate.mark_app_limited(self.sb.in_flight());
                    break;
                }
                if len as u64 > room {
                    // Never cut a segment to fit the window (sender-side silly-window
                    // avoidance, RFC 9293 §3.8.6.2.1; Linux tcp_snd_wnd_test): wait for the
                    // window to open. An ACK will say so while data is in flight; with
                    // nothing in flight the persist timer asks (Linux
                    // tcp_check_probe_timer).
                    if self.sb.packets_out == 0 {
                        self.arm_persist(now);
                    }
                    break;
                }
                let seq = self.push_new_segment(now, len);
                (seq, len, false)
            };
            // Built in place at the end of `out` (see `TcpHeader::push_blank`).
            self.fill_header(TcpHeader::push_blank(out), now, seq, len, retransmission);
            if let Some((bps, with_headers)) = pacing {
                let header_bits = if with_headers {
                    out.last().expect("just pushed").header_bytes() as u128 * 8
                } else {
                    0
                };
                let bits = header_bits + len as u128 * 8;
                let dt = (bits * 1_000_000_000).div_ceil(bps as u128) as u64;
                self.pacing_next = self.pacing_next.max(now) + SimTime(dt);
            }
            self.stats.segments_sent += 1;
            self.prr_out += 1;
            self.last_send = now;
            sent += 1;
        }
        if sent > 0 || cwnd_limited_now {
            // Linux tcp_cwnd_validate: remember whether the window was the limit this round.
            if self.snd_una >= self.max_packets_seq {
                self.max_packets_out = self.sb.packets_out;
                self.max_packets_seq = self.snd_nxt;
                self.is_cwnd_limited = cwnd_limited_now;
            } else {
                self.max_packets_out = self.max_packets_out.max(self.sb.packets_out);
                self.is_cwnd_limited |= cwnd_limited_now;
            }
        }
        if sent > 0 && self.rto_deadline == SimTime::NEVER {
            self.rto_deadline = now + self.rtt.rto();
        }
        if sent > 0 {
            // Linux tcp_write_xmit: one loss probe per tail loss episode.
            self.schedule_loss_probe(now, false);
        }
    }

    /// Puts `len` new bytes at SND.NXT on the scoreboard and returns their first byte. The
    /// first segment after an idle period restarts the window (slow start after idle) and
    /// tells the algorithm transmission resumed (Linux `CA_EVENT_TX_START`).
    #[inline]
    fn push_new_segment(&mut self, now: SimTime, len: u32) -> u64 {
        if self.sb.packets_out == 0 {
            let idle = now.saturating_sub(self.last_send);
            let restart_rto = self.cfg.slow_start_after_idle.then(|| self.rtt.rto());
            let initial_cwnd = self.cfg.initial_cwnd;
            self.cc.tx_start(now, idle, restart_rto, initial_cwnd);
        }
        let stamp = self.rate.on_send(now, self.sb.packets_out);
        let seq = self.snd_nxt;
        self.sb.push(seq, len, now, stamp);
        self.snd_nxt += len as u64;
        seq
    }

    /// Linux `tcp_is_cwnd_limited`.
    fn cwnd_limited(&self) -> bool {
        if self.is_cwnd_limited {
            return true;
        }
        self.cc.w.in_slow_start() && self.cc.cwnd() < 2 * self.max_packets_out
    }

    fn header(&self, now: SimTime, seq: u64, len: u32, retransmission: bool) -> TcpHeader {
        let mut h = TcpHeader::default();
        self.fill_header(&mut h, now, seq, len, retransmission);
        h
    }

    /// Writes a data or pure-ACK segment's fields into a default header.
    #[inline]
    fn fill_header(
        &self,
        h: &mut TcpHeader,
        now: SimTime,
        seq: u64,
        len: u32,
        retransmission: bool,
    ) {
        let ws = wscale_for(self.cfg.rcv_buf);
        h.seq = seq;
        h.ack = 1;
        h.payload_bytes = len;
        h.flags = TcpFlags {
            syn: false,
            ack: true,
            fin: false,
        };
        h.window_field = (self.cfg.rcv_buf >> ws).min(65_535) as u16;
        h.timestamps = self.cfg.timestamps.then(|| (ts_ticks(now), self.ts_recent));
        h.retransmission = retransmission;
    }

    fn record_rtt(&mut self, now: SimTime, r: SimTime) {
        let before = self.rtt.srtt();
        self.rtt.on_sample_at(r, self.snd_una, self.snd_nxt);
        self.log.rtt.record(now, r);
        let l = &mut self.log;
        match (l.srtt_since, before) {
            (Some(since), Some(prev)) => {
                l.srtt_area += prev.ns() as u128 * now.saturating_sub(since).ns() as u128;
            }
            _ => l.srtt_first_ns = now.ns(),
        }
        l.srtt_since = Some(now);
    }

    /// Time-weighted mean SRTT up to `until`, ms (see [`SenderLog::srtt_time_mean_ms`]).
    pub fn srtt_time_mean_ms(&self, until: SimTime) -> Option<f64> {
        self.log.srtt_time_mean_ms(self.rtt.srtt(), until)
    }

    fn log_cwnd(&mut self, now: SimTime) {
        let cur = (self.cc.cwnd(), self.cc.ssthresh());
        if cur == self.last_logged {
            return;
        }
        self.last_logged = cur;
        let (cwnd, ssthresh, inflight, rwnd) = (
            self.cwnd_bytes(),
            self.ssthresh_bytes(),
            self.bytes_in_flight(),
            self.snd_wnd,
        );
        if let Some(l) = &mut self.log.cwnd {
            if !l.thinning.admit() {
                return;
            }
            l.t_ns.push(now.ns());
            l.cwnd_bytes.push(cwnd);
            l.ssthresh_bytes.push(ssthresh);
            l.inflight_bytes.push(inflight);
            l.rwnd_bytes.push(rwnd);
            if l.thinning.must_halve(l.t_ns.len()) {
                keep_even_rows(&mut l.t_ns);
                keep_even_rows(&mut l.cwnd_bytes);
                keep_even_rows(&mut l.ssthresh_bytes);
                keep_even_rows(&mut l.inflight_bytes);
                keep_even_rows(&mut l.rwnd_bytes);
            }
        }
    }

    /// Checks internal invariants (tests).
    pub fn check_invariants(&self) {
        self.sb.check_invariants();
        assert!(self.snd_una <= self.snd_nxt);
        assert!(self.snd_nxt <= self.app_end);
        // The persist timer runs only while nothing is in flight.
        assert!(!self.persist_armed() || self.sb.packets_out == 0);
    }
}

fn ticks_to_time(ticks: u32) -> SimTime {
    SimTime(ticks as u64 * TS_TICK_NS)
}
