//! The persist timer: probing a window too small for the next segment ([RFC9293 §3.8.6.1];
//! Linux `ICSK_TIME_PROBE0`, [LINUX-PERSIST]).
//!
//! - Armed (Linux `tcp_check_probe_timer`) when transmission stops because the peer's
//!   window cannot take the next segment, nothing is in flight and data is waiting; first
//!   expiry one RTO later (`tcp_probe0_base`: the current RTO, backoff included, but at
//!   least Linux's fixed `TCP_RTO_MIN`, 200 ms, even when a lower minimum RTO is
//!   configured).
//! - On expiry (`tcp_probe_timer` → `tcp_send_probe0` → `tcp_write_wakeup`): if part of the
//!   window is open, as much of the next segment as fits goes out as new data (the one
//!   case where a segment is cut to the window; the RTO then takes over); with a zero
//!   window a zero-length segment with SEG.SEQ = SND.UNA − 1 (`tcp_xmit_probe_skb`), which
//!   the receiver must ACK with its window. Each zero-length probe doubles the next
//!   interval (`icsk_backoff`, at most 15 doublings as `tcp_retries2`), capped at the
//!   maximum RTO (`tcp_probe0_when`).
//! - Every ACK while the timer runs (nothing in flight: Linux `tcp_ack` → `no_queue` →
//!   `tcp_ack_probe`): if the window now takes the next segment the timer stops and the
//!   backoff is cleared, and transmission resumes; otherwise the timer restarts from now
//!   with the current backoff.
//!
//! Probing touches neither cwnd nor ssthresh and is neither a timeout nor a
//! retransmission. Zero-length probes carry no data, so they do not count as sending for
//! slow start after idle: when a window reopens after a stall longer than the RTO, the
//! window restarts as after any idle period (Linux: `lsndtime` moves only with data, and
//! `tcp_ack_update_window` runs `tcp_slow_start_after_idle_check`).
//!
//! Departures from Linux: Linux aborts the connection after `tcp_retries2` (15)
//! unanswered probes, or at `TCP_USER_TIMEOUT`; here probing goes on for ever (a
//! simulated connection has nobody to report the error to, and RFC 9293 §3.8.6.1 lets a
//! sender probe indefinitely while the receiver answers). The backoff has its own counter
//! (Linux shares `icsk_backoff` with the RTO, which an ACK with an RTT sample has cleared
//! before a window can close with nothing in flight). The local-congestion branch of
//! `tcp_send_probe0` (a probe the host could not send) does not arise.

use super::TcpSender;
use mmtsim_engine::SimTime;
use mmtsim_net::packet::TcpHeader;

/// Most doublings of the probe interval (Linux: `icsk_backoff` grows while below
/// `tcp_retries2`, default 15).
const MAX_PROBE_BACKOFF: u32 = 15;

/// Least base of the probe interval (Linux `tcp_probe0_base` bounds the RTO by the
/// constant `TCP_RTO_MIN`, not by the route's `rto_min`).
const MIN_PROBE_BASE: SimTime = SimTime::from_ms(200);

/// Persist-timer state (Linux `ICSK_TIME_PROBE0` with `icsk_backoff`, `icsk_probes_out`).
#[derive(Clone, Copy, Debug)]
pub(super) struct PersistState {
    /// When the timer fires (`SimTime::NEVER` when not armed).
    pub deadline: SimTime,
    /// Doublings of the probe interval so far.
    pub backoff: u32,
    /// Zero-length probes sent since the last ACK (Linux `icsk_probes_out`; Linux would
    /// abort at `tcp_retries2`).
    pub unanswered: u32,
}

impl Default for PersistState {
    fn default() -> Self {
        PersistState {
            deadline: SimTime::NEVER,
            backoff: 0,
            unanswered: 0,
        }
    }
}

impl PersistState {
    fn stop(&mut self) {
        *self = PersistState::default();
    }
}

impl TcpSender {
    /// True while the persist timer runs.
    pub fn persist_armed(&self) -> bool {
        self.persist.deadline != SimTime::NEVER
    }

    /// Linux `tcp_check_probe_timer`: transmission stopped at the window with nothing in
    /// flight; start the timer unless it already runs.
    pub(super) fn arm_persist(&mut self, now: SimTime) {
        if self.persist.deadline == SimTime::NEVER {
            self.persist.deadline = now + self.probe_base().min(self.cfg.max_rto);
        }
    }

    /// Linux `tcp_probe0_base`: the current RTO, at least `MIN_PROBE_BASE`.
    fn probe_base(&self) -> SimTime {
        self.rtt.rto().max(MIN_PROBE_BASE)
    }

    /// Linux `tcp_probe0_when`: the base doubled per probe so far, at most the maximum RTO.
    fn probe_interval(&self) -> SimTime {
        let factor = 1u64.checked_shl(self.persist.backoff).unwrap_or(u64::MAX);
        SimTime(self.probe_base().ns().saturating_mul(factor)).min(self.cfg.max_rto)
    }

    /// True if the peer's window takes the next segment (Linux `tcp_snd_wnd_test` on the
    /// head of the send queue); false when there is nothing to send.
    fn window_takes_next_segment(&self) -> bool {
        let avail = self.app_end.saturating_sub(self.snd_nxt);
        let len = (self.cfg.mss as u64).min(avail);
        len > 0 && self.snd_nxt + len <= self.snd_una + self.snd_wnd
    }

    /// Linux `tcp_ack_probe`, for an ACK that arrived while the timer runs.
    pub(super) fn ack_probe(&mut self, now: SimTime) {
        self.persist.unanswered = 0;
        if self.snd_nxt >= self.app_end || self.window_takes_next_segment() {
            // The window opened (the transmission after this ACK sends), or there is
            // nothing left to send.
            self.persist.stop();
        } else {
            self.persist.deadline = now + self.probe_interval();
        }
    }

    /// Persist timer expiry (Linux `tcp_probe_timer` → `tcp_send_probe0`).
    pub(super) fn persist_timeout(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        let avail = self.app_end.saturating_sub(self.snd_nxt);
        if self.state != super::SenderState::Established || self.sb.packets_out > 0 || avail == 0 {
            self.persist.stop();
            return;
        }
        let room = (self.snd_una + self.snd_wnd).saturating_sub(self.snd_nxt);
        if room > 0 {
            // Linux tcp_write_wakeup: the window is open but smaller than the segment
            // (sender-side silly-window avoidance held it back); send what fits.
            let len = (self.cfg.mss as u64).min(avail).min(room) as u32;
            let seq = self.push_new_segment(now, len);
            out.push(self.header(now, seq, len, false));
            self.stats.segments_sent += 1;
            self.stats.persist_data_probes += 1;
            self.prr_out += 1;
            self.last_send = now;
            if self.rto_deadline == SimTime::NEVER {
                self.rto_deadline = now + self.rtt.rto();
            }
            // Data is in flight: the RTO guards it (Linux cancels the probe state).
            self.persist.stop();
            return;
        }
        // Linux tcp_xmit_probe_skb: an old sequence number, so the receiver must ACK.
        out.push(self.header(now, self.snd_una - 1, 0, false));
        self.stats.persist_probes += 1;
        self.persist.unanswered += 1;
        if self.persist.backoff < MAX_PROBE_BACKOFF {
            self.persist.backoff += 1;
        }
        self.persist.deadline = now + self.probe_interval();
    }
}
