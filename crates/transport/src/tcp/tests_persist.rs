//! Zero windows: a receiver whose application reads only when told to
//! ([`ReadMode::Explicit`]), its silly-window avoidance and window updates, and the
//! sender's persist timer — first each end driven by hand, then both back to back.
//!
//! Fixtures and conventions are those of [`super::tests`] (MSS 1000 B, timestamps off,
//! NewReno arithmetic, RFC 6298 RTO, the RFC core of loss recovery). Every expected value
//! is worked out in the comment beside it from the definitions: [RFC9293 §3.8.6], Linux
//! `__tcp_select_window`, `tcp_cleanup_rbuf`, `tcp_oow_rate_limited` ([LINUX-RCVWND]) and
//! `tcp_probe_timer`, `tcp_send_probe0`, `tcp_write_wakeup`, `tcp_ack_probe`
//! ([LINUX-PERSIST]).

use super::rcv_window::ReadMode;
use super::receiver::TcpReceiver;
use super::sender::TcpSender;
use super::tests::*;
use super::TcpConfig;
use crate::cc::CaState;
use mmtsim_engine::SimTime;
use mmtsim_net::packet::TcpHeader;
use std::collections::VecDeque;

/// A receive buffer of ten segments: no window scaling (10 000 ≤ 65 535).
const BUF: u64 = 10 * MSS64;

fn small_buffer() -> TcpConfig {
    TcpConfig {
        rcv_buf: BUF,
        ..cfg()
    }
}

/// A pure ACK of `n` advertising window field `field`.
fn ack_wnd(n: u64, field: u16) -> TcpHeader {
    TcpHeader {
        window_field: field,
        ..ack(n)
    }
}

/// The sender's zero-window probe when SND.UNA = `una`: zero-length, SEG.SEQ = una − 1.
fn probe(una: u64) -> TcpHeader {
    TcpHeader {
        seq: una - 1,
        payload_bytes: 0,
        ..data(0)
    }
}

/// True if `h` is a zero-window probe for SND.UNA = `una`.
fn is_probe(h: &TcpHeader, una: u64) -> bool {
    !h.from_receiver && h.payload_bytes == 0 && h.seq == una - 1
}

/// A receiver with a ten-segment buffer whose application reads only when told to.
fn explicit_receiver() -> TcpReceiver {
    let (mut r, sa) = established_receiver(small_buffer());
    // The SYN-ACK offers the whole buffer, unscaled: 10 000 B.
    assert_eq!(sa.window_field, 10_000);
    assert_eq!(sa.syn_options.unwrap().wscale, Some(0));
    r.set_read_mode(ReadMode::Explicit);
    r
}

/// Delivers segments `ks` at `now`; returns the window field of each ACK.
fn windows(r: &mut TcpReceiver, now: SimTime, ks: std::ops::Range<u64>) -> Vec<u16> {
    ks.map(|k| {
        let (_, out) = deliver(r, now, &data(k));
        assert_eq!(
            out.len(),
            1,
            "one immediate ACK per segment (delayed ACKs off)"
        );
        out[0].window_field
    })
    .collect()
}

// =====================================================================================
// 1. The receiver
// =====================================================================================

#[test]
fn a_reader_that_never_reads_closes_the_window_after_ten_segments() {
    let mut r = explicit_receiver();
    // Segment k leaves 10 000 − 1000·(k + 1) bytes free. While at least half the buffer
    // (5000) is free the last offer exceeds the free space, so the window is the free
    // space rounded down to whole MSS; below half, the free space is still ≥ one MSS and
    // ≥ 1/16 of the buffer (625) down to 1000, then 0 free is a zero window. The right
    // edge stays at 1 + 10 000 throughout (never moved left, never moved right).
    assert_eq!(
        windows(&mut r, ms(10), 0..10),
        [9_000, 8_000, 7_000, 6_000, 5_000, 4_000, 3_000, 2_000, 1_000, 0]
    );
    assert_eq!((r.unread_bytes(), r.read_bytes()), (BUF, 0));
    assert_eq!(r.delivered_bytes(), BUF);
    assert_eq!(r.stats.zero_window_acks, 1);
    // Segment 10 starts at the right edge: new data into a zero window is dropped and
    // ACKed with the window (Linux tcp_data_queue), nothing is buffered.
    let (n, out) = deliver(&mut r, ms(11), &data(10));
    assert_eq!((n, out.len()), (0, 1));
    assert_eq!((out[0].ack, out[0].window_field), (seg(10), 0));
    assert_eq!((r.stats.beyond_window, r.ooo_bytes()), (1, 0));
    assert_eq!(r.stats.zero_window_acks, 2);
}

#[test]
fn the_default_reader_reads_at_once_and_its_window_stays_open() {
    // ReadMode::AtOnce (the default): every in-order byte is read on arrival, so the
    // buffer holds nothing and every ACK offers the whole buffer.
    let (mut r, _) = established_receiver(small_buffer());
    assert_eq!(r.read_mode(), ReadMode::AtOnce);
    assert_eq!(windows(&mut r, ms(10), 0..10), [10_000; 10]);
    assert_eq!((r.unread_bytes(), r.read_bytes()), (0, BUF));
    let mut out = vec![];
    assert_eq!(r.app_read(ms(11), 5_000, &mut out), 0);
    assert!(out.is_empty());
    assert_eq!(r.stats.zero_window_acks, 0);
}

#[test]
fn a_zero_window_probe_is_acked_with_the_window_at_most_every_500_ms() {
    let mut r = explicit_receiver();
    windows(&mut r, ms(10), 0..10);
    // The probe: zero-length, SEG.SEQ = SND.UNA − 1 = 10 000, below the last ACK (10 001):
    // old, so it is answered at once with the current window, 0.
    let (_, out) = deliver(&mut r, ms(100), &probe(seg(10)));
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].ack, out[0].window_field), (seg(10), 0));
    // 499 ms later another old zero-length segment is within Linux's 500 ms rate limit
    // (tcp_invalid_ratelimit): no ACK. At 500 ms the limit has passed (elapsed < 500
    // is limited): ACKed.
    assert!(deliver(&mut r, ms(599), &probe(seg(10))).1.is_empty());
    assert_eq!(deliver(&mut r, ms(600), &probe(seg(10))).1.len(), 1);
    assert_eq!((r.stats.probe_acks, r.stats.probe_acks_skipped), (2, 1));
    // A pure ACK at RCV.NXT (not old) asks for nothing.
    let pure = TcpHeader {
        payload_bytes: 0,
        ..data(10)
    };
    assert!(deliver(&mut r, ms(2_000), &pure).1.is_empty());
    // Probes change neither the data nor the window: still 10 000 unread, window 0.
    assert_eq!(r.unread_bytes(), BUF);
    assert_eq!(r.stats.zero_window_acks, 3);
}

#[test]
fn reads_send_a_window_update_only_when_the_window_can_double_and_never_a_silly_one() {
    let mut r = explicit_receiver();
    windows(&mut r, ms(10), 0..10);
    let mut out = vec![];
    // The application reads 600 B: 600 free, below min(buffer/2, MSS) = 1000, so Linux's
    // window is still 0 (free < half the buffer and < one MSS): no update.
    assert_eq!(r.app_read(ms(20), 600, &mut out), 600);
    assert!(out.is_empty());
    // A probe sees the window still closed: the 600 bytes are not advertised.
    assert_eq!(
        deliver(&mut r, ms(30), &probe(seg(10))).1[0].window_field,
        0
    );
    // 400 B more: 1000 free. The window offered is 0 ≤ buffer/2 and 1000 can be offered
    // (unscaled: last offer 0 ≤ 1000 − 1000, so rounddown(1000, 1000)); 1000 ≥ 2·0:
    // window update (Linux tcp_cleanup_rbuf).
    assert_eq!(r.app_read(ms(40), 400, &mut out), 400);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].ack, out[0].window_field), (seg(10), 1_000));
    // 1000 B more (2000 free): offered 1000, 2·1000 ≤ 10 000; the window would be
    // rounddown(2000, 1000) = 2000 (last 1000 ≤ 2000 − 1000) ≥ 2·1000: update.
    out.clear();
    r.app_read(ms(50), 1_000, &mut out);
    assert_eq!(out[0].window_field, 2_000);
    // 500 B more (2500 free): the last offer 2000 is within one MSS below the free space
    // (2000 > 2500 − 1000) and is kept; 2000 < 2·2000: no update.
    out.clear();
    r.app_read(ms(60), 500, &mut out);
    assert!(out.is_empty());
    // 1500 B more (4000 free): 2000 ≤ 4000 − 1000 → 4000 ≥ 2·2000: update.
    r.app_read(ms(70), 1_500, &mut out);
    assert_eq!(out[0].window_field, 4_000);
    assert_eq!(r.stats.window_updates, 3);
    assert_eq!((r.read_bytes(), r.unread_bytes()), (4_000, 6_000));
    // Reading more than is waiting returns what there was.
    out.clear();
    assert_eq!(r.app_read(ms(80), 1_000_000, &mut out), 6_000);
    // Data the offered window admits is accepted: segment 10 in [10 001, 14 001).
    assert_eq!(deliver(&mut r, ms(90), &data(10)).0, MSS64);
    assert_eq!(r.stats.beyond_window, 0);
}

#[test]
fn a_scaled_buffer_reopens_only_when_a_sixteenth_of_it_is_free() {
    // 128 000 B buffer: shift 1 (128 000 >> 1 = 64 000 ≤ 65 535), unit 2 B. The SYN-ACK
    // offers 65 535 (unscaled), right edge 65 536.
    let c = TcpConfig {
        rcv_buf: 128_000,
        ..cfg()
    };
    let (mut r, sa) = established_receiver(c);
    assert_eq!(sa.syn_options.unwrap().wscale, Some(1));
    r.set_read_mode(ReadMode::Explicit);
    // Segment 0: 127 000 free, more than half: the free space aligned up to the unit,
    // 127 000 → field 63 500. Then each segment takes 1000 B from a right edge that stays
    // at 1001 + 127 000 = 128 001 (below half the buffer Linux would offer 0 once less
    // than 1/16, 8000 B, is free, but the offered edge is never moved left), so the
    // window is the free space down to 0 after 128 segments.
    let w = windows(&mut r, ms(10), 0..128);
    assert_eq!((w[0], w[120], w[127]), (63_500, 3_500, 0));
    let mut out = vec![];
    // 7000 B read: more than an MSS, but below 1/16 of the buffer (8000): still 0 —
    // no update, and a probe is told 0.
    r.app_read(ms(20), 7_000, &mut out);
    assert!(out.is_empty());
    assert_eq!(
        deliver(&mut r, ms(30), &probe(seg(128))).1[0].window_field,
        0
    );
    // 1000 B more: 8000 free, rounded down to the unit (8000): update, field 4000.
    r.app_read(ms(40), 1_000, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].window_field, 4_000);
}

// =====================================================================================
// 2. The sender
// =====================================================================================

/// The fixtures' sender (initial window 0..9 sent at 100 ms) after the ACK of all ten at
/// 200 ms advertising a zero window. R = 100 ms: SRTT 100 ms, RTTVAR = 3/4·50 + 1/4·0
/// = 37.5 ms, RTO = 100 + 4·37.5 = 250 ms. Slow start: cwnd 10 → 20 (the initial window
/// was cwnd-limited). Nothing is in flight and data waits: the persist timer starts,
/// due at 200 + 250 = 450 ms.
fn sender_facing_zero_window(c: TcpConfig) -> TcpSender {
    let (mut s, out) = established_sender(c);
    assert_eq!(sent(&out), news(0..10));
    assert!(recv(&mut s, ms(200), &ack_wnd(seg(10), 0)).is_empty());
    assert_eq!(s.rtt().rto(), ms(250));
    assert_eq!((s.cwnd_bytes(), s.ssthresh_bytes()), (20_000, u64::MAX));
    assert!(s.persist_armed());
    assert_eq!(s.next_deadline(), ms(450));
    s
}

#[test]
fn a_zero_window_stops_sending_and_unanswered_probes_go_at_rto_then_doubling() {
    let mut s = sender_facing_zero_window(cfg());
    assert!(timer(&mut s, ms(449)).is_empty());
    // Probe 1 at 450 ms: zero-length, SEG.SEQ = SND.UNA − 1 = seg(10) − 1. The backoff
    // becomes 1: the next probe 2·RTO = 500 ms later, at 950; then 4·RTO = 1000 ms later,
    // at 1950; then 8·RTO = 2000 ms later, at 3950.
    let mut at = vec![];
    for t in [450, 950, 1_950] {
        let out = timer(&mut s, ms(t));
        assert_eq!(out.len(), 1);
        assert!(is_probe(&out[0], seg(10)));
        at.push(s.next_deadline());
    }
    assert_eq!(at, [ms(950), ms(1_950), ms(3_950)]);
    // Probing is not a timeout and not a retransmission, and leaves the window alone.
    assert_eq!(s.stats.persist_probes, 3);
    assert_eq!((s.stats.segments_sent, s.stats.retransmits), (10, 0));
    assert_eq!((s.stats.rtos, s.stats.persist_data_probes), (0, 0));
    assert_eq!((s.cwnd_bytes(), s.ssthresh_bytes()), (20_000, u64::MAX));
    assert_eq!(s.cc().state(), CaState::Open);
    assert_eq!(s.rtt().rto(), ms(250));
}

#[test]
fn the_probe_interval_stops_doubling_at_the_maximum_rto() {
    let c = TcpConfig {
        max_rto: ms(1_000),
        ..cfg()
    };
    let mut s = sender_facing_zero_window(c);
    // RTO 250 ms: intervals 500, 1000, then min(2000, 1000) = 1000 ms.
    let mut at = vec![];
    for t in [450, 950, 1_950, 2_950] {
        assert_eq!(timer(&mut s, ms(t)).len(), 1);
        at.push(s.next_deadline());
    }
    assert_eq!(at, [ms(950), ms(1_950), ms(2_950), ms(3_950)]);
}

#[test]
fn the_probe_interval_starts_from_at_least_200_ms_whatever_the_minimum_rto() {
    // Minimum RTO 10 ms, and a peer that offers no window scaling, so window fields are
    // bytes. The ACKs of segments 0..9 arrive one by one at 200 ms, each with R = 100 ms
    // and a window ending at seg(10) (nothing new fits). RFC 6298: SRTT stays 100 ms,
    // RTTVAR = 50·(3/4)^10 ≈ 2.8 ms, RTO ≈ 100 + 11.3 = 111.3 ms, below 200 ms.
    let c = TcpConfig {
        min_rto: ms(10),
        ..cfg()
    };
    let (mut s, _) = connect_with(c, BIG, &syn_ack(65_535, Some(0), None));
    for k in 1..=10u64 {
        let field = (MSS64 * (10 - k)) as u16;
        assert!(recv(&mut s, ms(200), &ack_wnd(seg(k), field)).is_empty());
    }
    assert!(s.rtt().rto() > ms(111) && s.rtt().rto() < ms(112));
    // Linux tcp_probe0_base = max(RTO, TCP_RTO_MIN = 200 ms): first probe at 400 ms, the
    // next 2·200 ms later, at 800 ms.
    assert_eq!(s.next_deadline(), ms(400));
    assert_eq!(timer(&mut s, ms(400)).len(), 1);
    assert_eq!(s.next_deadline(), ms(800));
}

#[test]
fn an_ack_with_the_window_still_closed_restarts_the_timer_from_the_ack() {
    let mut s = sender_facing_zero_window(cfg());
    assert_eq!(timer(&mut s, ms(450)).len(), 1);
    assert_eq!(s.next_deadline(), ms(950));
    // The probe's ACK at 500 ms, window still 0 (Linux tcp_ack_probe): the timer restarts
    // from now with the current backoff, 500 + 2·250 = 1000 ms. Nothing is sent.
    assert!(recv(&mut s, ms(500), &ack_wnd(seg(10), 0)).is_empty());
    assert_eq!(s.next_deadline(), ms(1_000));
    // Probe 2 at 1000 ms; backoff 2: next 1000 + 4·250 = 2000 ms.
    assert_eq!(timer(&mut s, ms(1_000)).len(), 1);
    assert_eq!(s.next_deadline(), ms(2_000));
}

#[test]
fn a_window_update_stops_probing_and_transmission_resumes_with_cwnd_untouched() {
    let c = TcpConfig {
        slow_start_after_idle: false,
        ..cfg()
    };
    let mut s = sender_facing_zero_window(c);
    timer(&mut s, ms(450));
    timer(&mut s, ms(950));
    // At 1000 ms the window opens to field 320 (shift 4: 5120 B): five whole segments
    // fit (5000 ≤ 5120 < 6000). The timer stops; cwnd is still 20 segments, so the window
    // is the limit: 10..14 go out, and the RTO guards them: 1000 + 250 = 1250 ms.
    let out = recv(&mut s, ms(1_000), &ack_wnd(seg(10), 320));
    assert_eq!(sent(&out), news(10..15));
    assert!(!s.persist_armed());
    assert_eq!(s.next_deadline(), ms(1_250));
    assert_eq!((s.cwnd_bytes(), s.ssthresh_bytes()), (20_000, u64::MAX));
    assert_eq!(s.stats.persist_probes, 2);
}

#[test]
fn after_a_stall_longer_than_the_rto_slow_start_after_idle_restarts_the_window() {
    // The default slow start after idle: zero-length probes are not data, so the last
    // send was the initial window at 100 ms. At 1000 ms the idle time is 900 ms > RTO
    // (250 ms): Linux tcp_cwnd_restart from min(IW, cwnd) = 10: 20 halves to 10 after
    // one idle RTO (900 − 250 > 0), and 10 is not above 10: cwnd 10, ssthresh
    // max(∞, 3/4·20) = ∞. The window (five segments) is still the limit.
    let mut s = sender_facing_zero_window(cfg());
    timer(&mut s, ms(450));
    let out = recv(&mut s, ms(1_000), &ack_wnd(seg(10), 320));
    assert_eq!(sent(&out), news(10..15));
    assert_eq!((s.cwnd_bytes(), s.ssthresh_bytes()), (10_000, u64::MAX));
}

#[test]
fn a_partly_open_window_gets_as_much_new_data_as_fits() {
    // The ACK of all ten at 200 ms offers field 32 (shift 4: 512 B): less than a segment,
    // so nothing is sent and the persist timer starts (due 450 ms).
    let (mut s, _) = established_sender(cfg());
    assert!(recv(&mut s, ms(200), &ack_wnd(seg(10), 32)).is_empty());
    assert_eq!(s.next_deadline(), ms(450));
    // At 450 ms Linux tcp_write_wakeup sends the 512 B that fit, as new data; the RTO
    // then guards it (450 + 250 = 700 ms) and the probe state is cleared.
    let out = timer(&mut s, ms(450));
    assert_eq!(out.len(), 1);
    let h = out[0];
    assert_eq!(
        (h.seq, h.payload_bytes, h.retransmission),
        (seg(10), 512, false)
    );
    assert!(!s.persist_armed());
    assert_eq!(s.next_deadline(), ms(700));
    assert_eq!(
        (s.stats.persist_data_probes, s.stats.persist_probes),
        (1, 0)
    );
    assert_eq!(s.stats.segments_sent, 11);
    // Its ACK at 500 ms closes the window: nothing in flight, data waiting, the timer
    // starts again one RTO later. The sample R = 50 ms: SRTT = 7/8·100 + 1/8·50 =
    // 93.75 ms, RTTVAR = 3/4·37.5 + 1/4·|100 − 50| = 40.625 ms, RTO = 93.75 + 162.5 =
    // 256.25 ms: due at 756.25 ms.
    assert!(recv(&mut s, ms(500), &ack_wnd(seg(10) + 512, 0)).is_empty());
    assert_eq!(s.next_deadline(), us(756_250));
}

#[test]
fn the_timer_stops_when_nothing_is_left_to_send() {
    let mut s = sender_facing_zero_window(cfg());
    // The application stops writing: at 450 ms there is nothing to probe for.
    s.stop_writing();
    assert!(timer(&mut s, ms(450)).is_empty());
    assert!(!s.persist_armed());
    assert_eq!(s.next_deadline(), SimTime::NEVER);
}

// =====================================================================================
// 3. Back to back
// =====================================================================================

/// One-way delay of the wire between the two ends.
const ONE_WAY: SimTime = SimTime::from_ms(50);

/// A sender with unlimited data and a receiver reading only when told to, joined by a
/// lossless FIFO wire of [`ONE_WAY`] each way (unless a test drops a header).
struct Pair {
    s: TcpSender,
    r: TcpReceiver,
    now: SimTime,
    to_r: VecDeque<(SimTime, TcpHeader)>,
    to_s: VecDeque<(SimTime, TcpHeader)>,
    /// Every header the sender sent, with its time.
    from_s: Vec<(SimTime, TcpHeader)>,
    /// Every header the receiver sent, with its time.
    from_r: Vec<(SimTime, TcpHeader)>,
    /// Drop the receiver's next header.
    lose_next_from_r: bool,
}

impl Pair {
    /// Slow start after idle is off so that cwnd stays what the ACKs made it.
    fn new() -> Self {
        let c = TcpConfig {
            slow_start_after_idle: false,
            ..small_buffer()
        };
        let s = TcpSender::new(c.clone(), false, SimTime::ZERO);
        let mut r = TcpReceiver::new(c);
        r.set_read_mode(ReadMode::Explicit);
        let mut p = Pair {
            s,
            r,
            now: SimTime::ZERO,
            to_r: VecDeque::new(),
            to_s: VecDeque::new(),
            from_s: vec![],
            from_r: vec![],
            lose_next_from_r: false,
        };
        let mut out = vec![];
        p.s.set_app_end(SimTime::ZERO, BIG, &mut out);
        p.s.connect(SimTime::ZERO, &mut out);
        p.send_from_s(out);
        p
    }

    fn send_from_s(&mut self, out: Vec<TcpHeader>) {
        for h in out {
            self.from_s.push((self.now, h));
            self.to_r.push_back((self.now + ONE_WAY, h));
        }
    }

    fn send_from_r(&mut self, out: Vec<TcpHeader>) {
        for h in out {
            self.from_r.push((self.now, h));
            if std::mem::take(&mut self.lose_next_from_r) {
                continue;
            }
            self.to_s.push_back((self.now + ONE_WAY, h));
        }
    }

    /// Runs every arrival and timer up to `until`; at equal times arrivals at the sender
    /// go first, then arrivals at the receiver, then the sender's and the receiver's
    /// timers.
    fn run_until(&mut self, until: SimTime) {
        for _ in 0..100_000 {
            let at_s = self.to_s.front().map_or(SimTime::NEVER, |x| x.0);
            let at_r = self.to_r.front().map_or(SimTime::NEVER, |x| x.0);
            let (ts, tr) = (self.s.next_deadline(), self.r.next_deadline());
            let t = at_s.min(at_r).min(ts).min(tr);
            if t > until {
                self.now = until;
                return;
            }
            self.now = t;
            let mut out = vec![];
            if at_s == t {
                let (_, h) = self.to_s.pop_front().unwrap();
                self.s.on_segment(t, &h, &mut out);
                self.s.check_invariants();
                self.send_from_s(out);
            } else if at_r == t {
                let (_, h) = self.to_r.pop_front().unwrap();
                self.r.on_segment(t, &h, &mut out);
                self.send_from_r(out);
            } else if ts == t {
                self.s.on_timer(t, &mut out);
                self.s.check_invariants();
                self.send_from_s(out);
            } else {
                self.r.on_timer(t, &mut out);
                self.send_from_r(out);
            }
        }
        panic!("the run did not settle");
    }

    /// The application reads up to `bytes` now.
    fn read(&mut self, bytes: u64) -> u64 {
        let mut out = vec![];
        let n = self.r.app_read(self.now, bytes, &mut out);
        self.send_from_r(out);
        n
    }

    /// Times of the sender's zero-window probes.
    fn probe_times(&self) -> Vec<SimTime> {
        self.from_s
            .iter()
            .filter(|(_, h)| h.payload_bytes == 0 && h.seq + 1 == seg(10))
            .map(|&(t, _)| t)
            .collect()
    }

    /// Data segments the sender sent at `t`, as segment numbers.
    fn data_sent_at(&self, t: SimTime) -> Vec<(u64, bool)> {
        let hs: Vec<TcpHeader> = self
            .from_s
            .iter()
            .filter(|(at, _)| *at == t)
            .map(|&(_, h)| h)
            .collect();
        sent(&hs)
    }
}

/// Both ends at 2000 ms, the application having read nothing:
/// - 0: SYN; 50: SYN-ACK (window 10 000, shift 0); 100: established, R = 100 ms (SRTT 100,
///   RTTVAR 50, RTO 300 ms); segments 0..9 go out (cwnd 10, window 10 000).
/// - 150: the receiver ACKs each with windows 9000 … 1000, 0 (as in the first test).
/// - 200: ten ACKs, each with R = 100 ms: SRTT stays 100 ms, RTTVAR = 50·(3/4)^k,
///   RTO = 100 + 200·(3/4)^k → 250, 212.5, then below 200 from k = 3 (184.375): the
///   200 ms minimum. cwnd 10 → 20 (slow start; the first window was cwnd-limited). The
///   right edge stays at 10 001 = SND.NXT, so nothing new goes; after the tenth ACK
///   nothing is in flight: the persist timer starts, due 200 + 200 = 400 ms.
/// - 400: probe 1 (backoff 1); 450: the receiver ACKs it (window 0); 500: the ACK
///   restarts the timer from now, 500 + 2·200 = 900.
/// - 900: probe 2; 950: ACKed (950 − 450 = 500 ms, not below the 500 ms limit); 1000:
///   timer 1000 + 4·200 = 1800.
/// - 1800: probe 3; 1850: ACKed; 1900: timer 1900 + 8·200 = 3500.
fn pair_stalled_at_2s() -> Pair {
    let mut p = Pair::new();
    p.run_until(ms(2_000));
    assert_eq!(p.data_sent_at(ms(100)), news(0..10));
    let data_acks: Vec<u16> = p
        .from_r
        .iter()
        .filter(|(t, _)| *t == ms(150))
        .map(|(_, h)| h.window_field)
        .collect();
    assert_eq!(
        data_acks,
        [9_000, 8_000, 7_000, 6_000, 5_000, 4_000, 3_000, 2_000, 1_000, 0]
    );
    assert_eq!(p.s.rtt().rto(), ms(200));
    assert_eq!(p.probe_times(), [ms(400), ms(900), ms(1_800)]);
    assert_eq!(p.s.next_deadline(), ms(3_500));
    assert_eq!(p.r.stats.probe_acks, 3);
    assert_eq!(p.r.unread_bytes(), BUF);
    // Ten data segments, no timeout, no retransmission, the window untouched.
    assert_eq!((p.s.stats.segments_sent, p.s.stats.persist_probes), (10, 3));
    assert_eq!((p.s.stats.rtos, p.s.stats.retransmits), (0, 0));
    assert_eq!((p.s.cwnd_bytes(), p.s.ssthresh_bytes()), (20_000, u64::MAX));
    p
}

#[test]
fn back_to_back_a_full_buffer_stalls_the_sender_which_probes_until_answered() {
    pair_stalled_at_2s();
}

#[test]
fn back_to_back_a_read_sends_a_window_update_and_transmission_resumes() {
    let mut p = pair_stalled_at_2s();
    // 2000 ms: the application reads 5000 B. 5000 free is half the buffer, so Linux's
    // window is 5000 (unscaled, last offer 0 ≤ 5000 − 1000: rounddown to whole MSS);
    // offered 0, and 5000 ≥ 2·0: an update goes at once.
    assert_eq!(p.read(5_000), 5_000);
    let (t, h) = *p.from_r.last().unwrap();
    assert_eq!((t, h.ack, h.window_field), (ms(2_000), seg(10), 5_000));
    // 2050 ms: the update reaches the sender: the timer stops and five segments fit
    // (cwnd 20 is not the limit). 2100: the receiver ACKs them with 4000 … 1000, 0;
    // 2150: nothing is in flight again and the window is 0: the timer restarts, one RTO
    // (200 ms) later.
    p.run_until(ms(2_150));
    assert_eq!(p.data_sent_at(ms(2_050)), news(10..15));
    let acks: Vec<u16> = p
        .from_r
        .iter()
        .filter(|(t, _)| *t == ms(2_100))
        .map(|(_, h)| h.window_field)
        .collect();
    assert_eq!(acks, [4_000, 3_000, 2_000, 1_000, 0]);
    assert_eq!(p.s.next_deadline(), ms(2_350));
    assert_eq!((p.r.stats.window_updates, p.s.stats.persist_probes), (1, 3));
    assert_eq!((p.s.cwnd_bytes(), p.s.ssthresh_bytes()), (20_000, u64::MAX));
}

#[test]
fn back_to_back_a_lost_window_update_is_recovered_by_the_next_probe() {
    let mut p = pair_stalled_at_2s();
    // The same read at 2000 ms, but its window update is lost. The sender, still
    // believing the window closed, probes when its timer says: 3500 ms. 3550: the
    // receiver answers with the window it already offered, 5000 (last offer 5000 is
    // kept: 5000 > 5000 − 1000 and not above the free 5000); 3600: transmission resumes.
    p.lose_next_from_r = true;
    p.read(5_000);
    p.run_until(ms(3_600));
    assert_eq!(p.probe_times(), [ms(400), ms(900), ms(1_800), ms(3_500)]);
    let (t, h) = *p.from_r.last().unwrap();
    assert_eq!((t, h.window_field), (ms(3_550), 5_000));
    assert_eq!(p.data_sent_at(ms(3_600)), news(10..15));
    assert!(!p.s.persist_armed());
    assert_eq!(p.r.stats.window_updates, 1);
}

#[test]
fn back_to_back_freeing_less_than_an_mss_advertises_nothing() {
    let mut p = pair_stalled_at_2s();
    // 600 B read: below min(buffer/2, MSS) = 1000, so the window stays 0 and no update
    // goes. The probe at 3500 ms is answered with 0 at 3550; its ACK at 3600 restarts the
    // timer: backoff 4 (four probes), 3600 + 16·200 = 6800 ms. Nothing new was sent.
    assert_eq!(p.read(600), 600);
    assert_eq!(p.r.stats.window_updates, 0);
    p.run_until(ms(3_600));
    let (t, h) = *p.from_r.last().unwrap();
    assert_eq!((t, h.window_field), (ms(3_550), 0));
    assert_eq!(p.s.next_deadline(), ms(6_800));
    assert_eq!(p.s.stats.segments_sent, 10);
}
