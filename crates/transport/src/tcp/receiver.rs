//! The data-receiving end of a TCP connection.
//!
//! - Reassembly: `rcv_nxt` plus a sorted list of out-of-order ranges. By default
//!   ([`ReadMode::AtOnce`]) in-order bytes go to the application at once, so only
//!   out-of-order data occupies the receive buffer; with [`ReadMode::Explicit`] they wait
//!   until the application reads them ([`TcpReceiver::app_read`]) and the window can close
//!   ([`super::rcv_window`]).
//! - SACK (RFC 2018 §4): the first block reports the range containing the most recently
//!   received segment, then the most recently reported other ranges; at most 3 blocks with
//!   timestamps (40 bytes of options), 4 without.
//! - D-SACK (RFC 2883, Linux `tcp_dsack`, on by default): a segment that brings nothing
//!   new is reported once, as the first block of the next ACK — the part below the
//!   cumulative ACK, or the whole segment when it duplicates out-of-order data; the other
//!   blocks follow, one fewer.
//! - Window: buffer minus out-of-order bytes, never moving the right edge left (RFC 9293
//!   §3.8.6 discourages shrinking), scaled by the shift offered in the SYN-ACK. With
//!   [`ReadMode::Explicit`], buffer minus unread and out-of-order bytes, chosen by Linux's
//!   silly-window avoidance ([`super::rcv_window::select_window_bytes`]); a read that lets
//!   the window at least double sends a window update at once (Linux `tcp_cleanup_rbuf`,
//!   [`super::rcv_window::window_update_due`]); data beyond the offered right edge, or any
//!   new data while the window is zero, is dropped and ACKed (Linux `tcp_data_queue`).
//!   The default mode keeps the window rule above unchanged (no silly-window avoidance: its
//!   window only shrinks by out-of-order data), so earlier results stay bit-identical.
//! - Zero-window probes ([RFC9293 §3.8.6.1]): a zero-length segment below the last
//!   acknowledged point (the sender's probe, SEG.SEQ = SND.UNA − 1) is old, and is answered
//!   with an ACK carrying the current window, at most one per 500 ms (Linux
//!   `tcp_validate_incoming` → `tcp_send_dupack`, rate-limited by `tcp_oow_rate_limited`
//!   with `tcp_invalid_ratelimit`'s default; [LINUX-RCVWND]).
//! - Timestamps (RFC 7323 §4.3): TS.Recent is taken from segments with
//!   SEG.SEQ ≤ Last.ACK.sent, so out-of-order arrivals do not shorten RTT samples.
//! - ACK policy (RFC 5681 §4.2): immediate ACKs for out-of-order data, duplicates and
//!   hole-filling segments; otherwise every segment, or every second full-sized segment
//!   with a `delack_timeout` timer when delayed ACKs are on.
//! - The handshake: SYN → SYN-ACK (repeated for a repeated SYN); data or an ACK completes it.
//! - Optionally ([`TcpConfig::rwnd_control`]) the advertised window is capped by the
//!   radio receive-window controller of [`super::rwnd`] (downlink to a UE).
//!
//! The receiver also keeps oracle counts a real one could not: how many retransmitted
//! segments carried nothing new (spurious retransmissions).

use super::rcv_window::{select_window_bytes, window_update_due, ReadMode};
use super::rwnd::RwndControl;
use super::{ts_ticks, wscale_for, TcpConfig};
use mmtsim_engine::SimTime;
use mmtsim_net::packet::{SackBlock, SynOptions, TcpFlags, TcpHeader};

/// Counters of one receiver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Data segments received.
    pub segments: u64,
    /// Segments that arrived above a hole.
    pub out_of_order: u64,
    /// Segments carrying no new byte.
    pub duplicates: u64,
    /// Retransmitted segments carrying no new byte (the retransmission was unnecessary).
    pub spurious_retransmits: u64,
    /// ACKs sent.
    pub acks_sent: u64,
    /// Segments discarded for lying beyond the window.
    pub beyond_window: u64,
    /// ACKs that carried a D-SACK block.
    pub dsacks_sent: u64,
    /// ACKs that advertised a zero window.
    pub zero_window_acks: u64,
    /// ACKs sent because an application read opened the window (Linux `tcp_cleanup_rbuf`).
    pub window_updates: u64,
    /// Zero-window probes (old zero-length segments) answered with an ACK.
    pub probe_acks: u64,
    /// Zero-window probes left unanswered by the 500 ms rate limit (Linux
    /// `TCPACKSkippedSeq`).
    pub probe_acks_skipped: u64,
}

/// Least time between two ACKs of old zero-length segments (Linux
/// `tcp_invalid_ratelimit`, default HZ/2).
const OLD_SEGMENT_ACK_INTERVAL: SimTime = SimTime::from_ms(500);

/// TCP data receiver.
pub struct TcpReceiver {
    cfg: TcpConfig,
    established: bool,
    syn_seen: bool,
    rcv_nxt: u64,
    /// Sorted, disjoint, non-adjacent out-of-order ranges above `rcv_nxt`.
    ooo: Vec<(u64, u64)>,
    ooo_bytes: u64,
    /// Most recently reported SACK blocks, most recent first.
    recent: Vec<SackBlock>,
    /// Duplicate to report in the next ACK (RFC 2883).
    dsack: Option<SackBlock>,
    wscale: u8,
    right_edge: u64,
    ts_recent: u32,
    last_ack_sent: u64,
    unacked_segments: u32,
    delack_deadline: SimTime,
    /// The radio receive-window controller, when configured.
    rwnd: Option<RwndControl>,
    /// How the application reads.
    read_mode: ReadMode,
    /// In-order bytes the application has not read yet (always 0 with `ReadMode::AtOnce`).
    unread_bytes: u64,
    /// The window last offered, bytes (Linux `rcv_wnd`).
    rcv_wnd_bytes: u64,
    /// The right edge as last advertised ([`ReadMode::Explicit`]): the committed edge
    /// rounded up to the window scale's unit; data up to it is accepted.
    adv_edge: u64,
    /// When an old zero-length segment was last ACKed (Linux `last_oow_ack_time`).
    last_old_segment_ack: Option<SimTime>,
    /// Counters.
    pub stats: ReceiverStats,
}

impl TcpReceiver {
    /// A receiver waiting for a SYN.
    pub fn new(cfg: TcpConfig) -> Self {
        let wscale = wscale_for(cfg.rcv_buf);
        let rwnd = cfg.rwnd_control.clone().map(RwndControl::new);
        TcpReceiver {
            rwnd,
            cfg,
            established: false,
            syn_seen: false,
            rcv_nxt: 0,
            ooo: Vec::new(),
            ooo_bytes: 0,
            recent: Vec::with_capacity(4),
            dsack: None,
            wscale,
            right_edge: 0,
            ts_recent: 0,
            last_ack_sent: 0,
            unacked_segments: 0,
            delack_deadline: SimTime::NEVER,
            read_mode: ReadMode::AtOnce,
            unread_bytes: 0,
            rcv_wnd_bytes: 0,
            adv_edge: 0,
            last_old_segment_ack: None,
            stats: ReceiverStats::default(),
        }
    }

    /// Sets how the application reads ([`ReadMode::AtOnce`] by default; set it before
    /// data flows). Switching to `AtOnce` hands the application whatever was waiting.
    pub fn set_read_mode(&mut self, mode: ReadMode) {
        if mode == ReadMode::AtOnce {
            self.unread_bytes = 0;
        }
        // `AtOnce` does not keep Linux's `rcv_wnd`; the window offered now is its value.
        self.rcv_wnd_bytes = self.right_edge.saturating_sub(self.rcv_nxt);
        self.read_mode = mode;
    }

    /// How the application reads.
    pub fn read_mode(&self) -> ReadMode {
        self.read_mode
    }

    /// Bytes received in order (and acknowledged or about to be) so far. With
    /// [`ReadMode::AtOnce`] the application has them all; see [`TcpReceiver::read_bytes`].
    pub fn delivered_bytes(&self) -> u64 {
        self.rcv_nxt.saturating_sub(1)
    }

    /// Bytes the application has read so far.
    pub fn read_bytes(&self) -> u64 {
        self.delivered_bytes() - self.unread_bytes
    }

    /// In-order bytes waiting for the application (0 with [`ReadMode::AtOnce`]).
    pub fn unread_bytes(&self) -> u64 {
        self.unread_bytes
    }

    /// The application reads up to `max_bytes` of the in-order data waiting
    /// ([`ReadMode::Explicit`]); returns the bytes read. If the read lets the window at
    /// least double, a window update is appended to `out` (Linux `tcp_cleanup_rbuf`,
    /// [`window_update_due`]). With [`ReadMode::AtOnce`] nothing ever waits: returns 0.
    pub fn app_read(&mut self, now: SimTime, max_bytes: u64, out: &mut Vec<TcpHeader>) -> u64 {
        let n = max_bytes.min(self.unread_bytes);
        if n == 0 {
            return 0;
        }
        self.unread_bytes -= n;
        let offered = self.right_edge.saturating_sub(self.rcv_nxt);
        if window_update_due(offered, self.cfg.rcv_buf, || self.wanted_window_bytes()) {
            self.stats.window_updates += 1;
            self.send_ack(now, out);
        }
        n
    }

    /// Bytes held out of order.
    pub fn ooo_bytes(&self) -> u64 {
        self.ooo_bytes
    }

    /// True if the receiver's window follows the radio link (it wants
    /// [`TcpReceiver::read_link_view`] before each segment).
    pub fn controls_window(&self) -> bool {
        self.rwnd.is_some()
    }

    /// The radio view of the UE this receiver runs on, read just before a segment is
    /// processed (only the receive-window controller uses it).
    pub fn read_link_view(&mut self, view: &dyn mmtsim_net::linkview::LinkView, now: SimTime) {
        if let Some(c) = &mut self.rwnd {
            c.link_view(view, now);
        }
    }

    /// The window the controller wants, bytes (`None` without a controller or before its
    /// first estimate).
    pub fn controlled_window_bytes(&self) -> Option<u64> {
        self.rwnd.as_ref()?.window_bytes(self.cfg.mss)
    }

    /// When the receiver next needs [`TcpReceiver::on_timer`].
    pub fn next_deadline(&self) -> SimTime {
        self.delack_deadline
    }

    /// A segment from the sender; returns the number of bytes newly received in order
    /// (they are the bytes just below the new `rcv_nxt`). With [`ReadMode::AtOnce`] the
    /// application has them at once; with [`ReadMode::Explicit`] they wait for
    /// [`TcpReceiver::app_read`], whose return value is then what the application got.
    pub fn on_segment(&mut self, now: SimTime, h: &TcpHeader, out: &mut Vec<TcpHeader>) -> u64 {
        if h.flags.syn {
            self.syn_seen = true;
            self.rcv_nxt = self.rcv_nxt.max(1);
            if let Some((tsval, _)) = h.timestamps {
                self.ts_recent = tsval;
            }
            let sa = self.syn_ack(now);
            // The SYN-ACK's window is an offer like any other: its right edge must not
            // recede either (Linux starts rcv_wnd from it).
            self.right_edge = self.right_edge.max(self.rcv_nxt + sa.window_field as u64);
            self.rcv_wnd_bytes = sa.window_field as u64;
            out.push(sa);
            // The SYN-ACK acknowledges up to rcv_nxt: TS.Recent follows the first data.
            self.last_ack_sent = self.rcv_nxt;
            return 0;
        }
        if !self.syn_seen {
            return 0;
        }
        self.established = true;
        if h.payload_bytes == 0 {
            // An old zero-length segment — the sender's zero-window probe, SND.UNA − 1 —
            // asks for the current window (Linux: below rcv_wup fails tcp_sequence and
            // gets a duplicate ACK). Pure ACKs at or above it need no answer.
            if h.seq < self.last_ack_sent {
                self.answer_old_segment(now, out);
            }
            return 0;
        }
        self.stats.segments += 1;
        let (s, e) = (h.seq, h.seq + h.payload_bytes as u64);
        if let Some((tsval, tsecr)) = h.timestamps {
            if s <= self.last_ack_sent {
                self.ts_recent = tsval;
            }
            if let Some(c) = &mut self.rwnd {
                c.on_timestamp_echo(ts_ticks(now), tsecr);
            }
        }
        let beyond_window = match self.read_mode {
            ReadMode::AtOnce => s >= self.rcv_nxt + self.window_bytes().max(1),
            // Linux tcp_data_queue: new data at or beyond the offered right edge is
            // dropped (with a zero window, any new data).
            ReadMode::Explicit => {
                e > self.rcv_nxt && s.max(self.rcv_nxt) >= self.right_edge.max(self.adv_edge)
            }
        };
        if beyond_window {
            self.stats.beyond_window += 1;
            self.send_ack(now, out);
            return 0;
        }
        let new_bytes = self.new_bytes_in(s, e);
        if new_bytes == 0 {
            self.stats.duplicates += 1;
            if h.retransmission {
                self.stats.spurious_retransmits += 1;
            }
            self.set_dsack(
                s,
                if s < self.rcv_nxt {
                    e.min(self.rcv_nxt)
                } else {
                    e
                },
            );
            self.send_ack(now, out);
            return 0;
        }
        if s < self.rcv_nxt {
            // Partly old: the part below RCV.NXT arrived twice.
            self.set_dsack(s, self.rcv_nxt);
        }
        let before = self.rcv_nxt;
        let had_hole = !self.ooo.is_empty();
        if s <= self.rcv_nxt {
            self.rcv_nxt = e;
            // Absorb out-of-order ranges that are now contiguous.
            let mut k = 0;
            while k < self.ooo.len() && self.ooo[k].0 <= self.rcv_nxt {
                let (a, b) = self.ooo[k];
                self.ooo_bytes -= b - a;
                self.rcv_nxt = self.rcv_nxt.max(b);
                k += 1;
            }
            self.ooo.drain(..k);
            if self.read_mode == ReadMode::Explicit {
                self.unread_bytes += self.rcv_nxt - before;
            }
            let nxt = self.rcv_nxt;
            self.recent.retain(|b| b.end > nxt);
            if had_hole {
                self.send_ack(now, out);
            } else {
                self.maybe_delay_ack(now, h.payload_bytes, out);
            }
        } else {
            self.stats.out_of_order += 1;
            let blk = self.insert_ooo(s, e);
            self.recent
                .retain(|b| !(b.start >= blk.start && b.end <= blk.end));
            self.recent.insert(0, blk);
            self.recent.truncate(4);
            self.send_ack(now, out);
        }
        self.rcv_nxt - before
    }

    fn set_dsack(&mut self, start: u64, end: u64) {
        if self.cfg.sack && self.cfg.loss_recovery.dsack && end > start {
            self.dsack = Some(SackBlock { start, end });
        }
    }

    /// Delayed-ACK timer.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        if now >= self.delack_deadline {
            self.send_ack(now, out);
        }
    }

    fn new_bytes_in(&self, s: u64, e: u64) -> u64 {
        let s = s.max(self.rcv_nxt);
        if e <= s {
            return 0;
        }
        let mut covered = 0;
        for &(a, b) in &self.ooo {
            if a >= e {
                break;
            }
            let (x, y) = (a.max(s), b.min(e));
            if y > x {
                covered += y - x;
            }
        }
        (e - s) - covered
    }

    /// Inserts [s, e) above rcv_nxt, merging; returns the merged range.
    fn insert_ooo(&mut self, s: u64, e: u64) -> SackBlock {
        let mut i = self.ooo.partition_point(|&(_, b)| b < s);
        let (mut a, mut b) = (s, e);
        let mut j = i;
        while j < self.ooo.len() && self.ooo[j].0 <= b {
            a = a.min(self.ooo[j].0);
            b = b.max(self.ooo[j].1);
            self.ooo_bytes -= self.ooo[j].1 - self.ooo[j].0;
            j += 1;
        }
        self.ooo.drain(i..j);
        self.ooo.insert(i, (a, b));
        self.ooo_bytes += b - a;
        i += 1;
        let _ = i;
        SackBlock { start: a, end: b }
    }

    fn maybe_delay_ack(&mut self, now: SimTime, payload: u32, out: &mut Vec<TcpHeader>) {
        if !self.cfg.delayed_ack {
            self.send_ack(now, out);
            return;
        }
        if payload >= self.cfg.mss {
            self.unacked_segments += 1;
        }
        if self.unacked_segments >= 2 {
            self.send_ack(now, out);
        } else if self.delack_deadline == SimTime::NEVER {
            self.delack_deadline = now + self.cfg.delack_timeout;
        }
    }

    /// The acceptance window of [`ReadMode::AtOnce`].
    fn window_bytes(&self) -> u64 {
        let free = self.cfg.rcv_buf.saturating_sub(self.ooo_bytes);
        free.max(self.right_edge.saturating_sub(self.rcv_nxt))
    }

    /// The window [`ReadMode::Explicit`] would like to offer now, before the right edge's
    /// rule: Linux's choice for the free buffer, capped by the radio controller if any.
    fn wanted_window_bytes(&self) -> u64 {
        let used = self.unread_bytes + self.ooo_bytes;
        let free = self.cfg.rcv_buf.saturating_sub(used);
        let w = select_window_bytes(
            free,
            self.cfg.rcv_buf,
            self.cfg.mss as u64,
            self.wscale,
            self.rcv_wnd_bytes,
        );
        match &self.rwnd {
            // Before its first estimate the controller offers nothing beyond what was
            // already offered (the caller keeps that).
            Some(c) => w.min(c.window_bytes(self.cfg.mss).unwrap_or(0)),
            None => w,
        }
    }

    /// An old zero-length segment: ACK it, at most once per `OLD_SEGMENT_ACK_INTERVAL`
    /// (Linux `tcp_oow_rate_limited`; data segments are never rate-limited).
    fn answer_old_segment(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        if let Some(t) = self.last_old_segment_ack {
            if now.saturating_sub(t) < OLD_SEGMENT_ACK_INTERVAL {
                self.stats.probe_acks_skipped += 1;
                return;
            }
        }
        self.last_old_segment_ack = Some(now);
        self.stats.probe_acks += 1;
        self.send_ack(now, out);
    }

    /// The window field of the next ACK with [`ReadMode::AtOnce`]; moves the right edge.
    fn window_field_at_once(&mut self) -> u64 {
        // The free buffer is scaled down, but the window already offered is scaled *up*
        // (Linux tcp_select_window aligns it to the scale unit): rounding it down would
        // move the right edge left by up to 2^wscale − 1 bytes (RFC 9293 §3.8.6).
        let mut free = self.cfg.rcv_buf.saturating_sub(self.ooo_bytes);
        if let Some(c) = &self.rwnd {
            // Before its first estimate the controller offers nothing beyond what was
            // already offered (the max below keeps that).
            free = free.min(c.window_bytes(self.cfg.mss).unwrap_or(0));
        }
        let offered = self.right_edge.saturating_sub(self.rcv_nxt);
        let field = (free >> self.wscale)
            .max(offered.div_ceil(1 << self.wscale))
            .min(65_535);
        self.right_edge = self.rcv_nxt + (field << self.wscale);
        field
    }

    /// The window field of the next ACK with [`ReadMode::Explicit`] (Linux
    /// `tcp_select_window`); moves the right edge.
    fn window_field_explicit(&mut self) -> u64 {
        let unit = 1u64 << self.wscale;
        let offered = self.right_edge.saturating_sub(self.rcv_nxt);
        let w = self.wanted_window_bytes();
        if (w >> self.wscale) << self.wscale < offered {
            // Never shrink: the edge already offered stays where it is. The field counts
            // scale units, so it is rounded up (as Linux's tcp_select_window aligns the
            // kept window up), and data up to that rounded edge is accepted; but the
            // committed edge stays exact, so the rounding never compounds from one ACK to
            // the next. (Rounding it into the edge at every ACK moved the edge right by up
            // to a unit per ACK: with 2 KiB units and an ACK per 1400-byte segment the
            // window never closed.)
            let field = offered.div_ceil(unit).min(65_535);
            self.rcv_wnd_bytes = offered;
            self.adv_edge = self.rcv_nxt + (field << self.wscale);
            return field;
        }
        let field = (w >> self.wscale).min(65_535);
        self.rcv_wnd_bytes = field << self.wscale;
        self.right_edge = self.rcv_nxt + self.rcv_wnd_bytes;
        self.adv_edge = self.right_edge;
        field
    }

    fn syn_ack(&self, now: SimTime) -> TcpHeader {
        TcpHeader {
            from_receiver: true,
            seq: 0,
            ack: 1,
            payload_bytes: 0,
            flags: TcpFlags {
                syn: true,
                ack: true,
                fin: false,
            },
            window_field: self.cfg.rcv_buf.min(65_535) as u16,
            timestamps: self.cfg.timestamps.then(|| (ts_ticks(now), self.ts_recent)),
            syn_options: Some(SynOptions {
                mss: self.cfg.mss.min(u16::MAX as u32) as u16,
                wscale: Some(self.wscale),
                sack_permitted: self.cfg.sack,
            }),
            ..Default::default()
        }
    }

    fn send_ack(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        let field = match self.read_mode {
            ReadMode::AtOnce => self.window_field_at_once(),
            ReadMode::Explicit => self.window_field_explicit(),
        };
        if field == 0 {
            self.stats.zero_window_acks += 1;
        }
        let h = TcpHeader::push_blank(out);
        h.from_receiver = true;
        h.seq = 1;
        h.ack = self.rcv_nxt;
        h.payload_bytes = 0;
        h.flags = TcpFlags {
            syn: false,
            ack: true,
            fin: false,
        };
        h.window_field = field as u16;
        h.timestamps = self.cfg.timestamps.then(|| (ts_ticks(now), self.ts_recent));
        if self.cfg.sack {
            let max_blocks = if self.cfg.timestamps { 3 } else { 4 };
            if let Some(d) = self.dsack.take() {
                h.sack[0] = d;
                h.sack_len = 1;
                self.stats.dsacks_sent += 1;
            }
            for b in self.recent.iter().take(max_blocks - h.sack_len as usize) {
                h.sack[h.sack_len as usize] = *b;
                h.sack_len += 1;
            }
        }
        self.stats.acks_sent += 1;
        self.last_ack_sent = self.rcv_nxt;
        self.unacked_segments = 0;
        self.delack_deadline = SimTime::NEVER;
    }
}
