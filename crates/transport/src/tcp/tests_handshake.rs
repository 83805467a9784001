//! Connection setup and what it negotiates, on the sender's side: the SYN's options
//! (MSS, window scale, SACK-permitted, timestamps), SYN retransmission with its backoff
//! and its effect on the first RTO and the initial window, the unscaled SYN-ACK window,
//! and the RTT samples taken from the handshake and from the timestamps option.
//!
//! Fixtures and conventions are those of [`super::tests`] (MSS 1000 B, SYN-ACK at
//! 100 ms: SRTT 100 ms, RTO 300 ms; NewReno arithmetic). Every expected value is worked
//! out in the comment beside it.

use super::sender::{SenderState, TcpSender};
use super::tests::*;
use super::{ts_ticks, wscale_for, TcpConfig};
use mmtsim_engine::SimTime;
use mmtsim_net::packet::{SynOptions, TcpHeader};

// =====================================================================================
// SYN and SYN-ACK
// =====================================================================================

#[test]
fn test_closed_connect_sends_syn_with_options() {
    // Defaults: SACK and timestamps on, 64 MiB receive buffer.
    let c = TcpConfig {
        mss: MSS,
        ..TcpConfig::default()
    };
    let mut s = TcpSender::new(c, false, SimTime::ZERO);
    let mut out = vec![];
    s.connect(ms(5), &mut out);
    assert_eq!(s.state(), SenderState::SynSent);
    assert_eq!(out.len(), 1);
    let h = out[0];
    assert!(h.flags.syn && !h.flags.ack);
    // The SYN occupies sequence number 0 and carries no data.
    assert_eq!((h.seq, h.payload_bytes), (0, 0));
    // 64 MiB = 2^26 B: the smallest shift with 2^26 >> s ≤ 65535 is s = 11
    // (2^26 >> 10 = 65536 is one too many).
    assert_eq!(
        h.syn_options,
        Some(SynOptions {
            mss: 1000,
            wscale: Some(11),
            sack_permitted: true,
        })
    );
    // A SYN's window is never scaled (RFC 7323 §2.2): min(2^26, 65535).
    assert_eq!(h.window_field, 65_535);
    // TSval: the clock in 1 µs ticks, 5 ms → 5000; TSecr 0, nothing received yet.
    assert_eq!(h.timestamps, Some((5000, 0)));
    // The SYN is on the wire: RTO 1 s before any sample (RFC 6298 §2.1).
    assert_eq!(s.next_deadline(), ms(1005));
}

#[test]
fn test_closed_connect_without_sack_or_timestamps_omits_them() {
    let c = TcpConfig {
        sack: false,
        rcv_buf: 65_535,
        ..cfg()
    };
    let mut s = TcpSender::new(c, false, SimTime::ZERO);
    let mut out = vec![];
    s.connect(SimTime::ZERO, &mut out);
    let o = out[0].syn_options.unwrap();
    // 65535 fits the field unscaled: shift 0 (still offered, so the peer may scale).
    assert_eq!((o.mss, o.wscale, o.sack_permitted), (1000, Some(0), false));
    assert_eq!(out[0].timestamps, None);
}

#[test]
fn test_syn_sent_syn_ack_window_is_not_scaled() {
    // The SYN-ACK offers shift 3 and window field 5000. A SYN-ACK's window is never
    // scaled (RFC 7323 §2.2): 5000 B = 5 segments although cwnd is 10 (scaled it would
    // be 40 000 B and all 10 would go).
    let sa = syn_ack(5000, Some(3), None);
    let (s, out) = connect_with(cfg(), BIG, &sa);
    assert_eq!(sent(&out), news(0..5));
    assert_eq!(s.snd_nxt(), seg(5));
}

#[test]
fn test_syn_sent_ignores_syn_ack_for_another_sequence() {
    // A SYN-ACK must acknowledge the SYN (ACK = ISS + 1 = 1, RFC 9293 §3.10.7.3).
    let mut s = TcpSender::new(cfg(), false, SimTime::ZERO);
    let mut out = vec![];
    s.connect(SimTime::ZERO, &mut out);
    let mut sa = default_syn_ack(&cfg());
    sa.ack = 5;
    assert!(recv(&mut s, RTT, &sa).is_empty());
    assert_eq!(s.state(), SenderState::SynSent);
}

// =====================================================================================
// SYN retransmission
// =====================================================================================

#[test]
fn test_syn_sent_retransmits_syn_after_1s_then_2s() {
    let mut s = TcpSender::new(cfg(), false, SimTime::ZERO);
    let mut out = vec![];
    s.connect(SimTime::ZERO, &mut out);
    // RTO = 1 s before any RTT sample (RFC 6298 §2.1).
    assert_eq!(s.next_deadline(), ms(1000));
    assert!(timer(&mut s, ms(999)).is_empty());
    let out = timer(&mut s, ms(1000));
    assert_eq!(out.len(), 1);
    assert!(out[0].flags.syn && out[0].syn_options.is_some());
    // Backed off (RFC 6298 §5.5): 2 s after the retransmission, at 3 s.
    assert_eq!(s.next_deadline(), ms(3000));
    assert!(timer(&mut s, ms(2999)).is_empty());
    let out = timer(&mut s, ms(3000));
    assert!(out[0].flags.syn);
    // Doubled again: 4 s → 7 s.
    assert_eq!(s.next_deadline(), ms(7000));
    assert_eq!(s.stats.syn_retransmits, 2);
    assert_eq!(s.state(), SenderState::SynSent);
}

#[test]
fn test_syn_sent_lost_syns_give_a_3s_rto_and_one_segment_window() {
    // Two SYN timeouts (at 1 s and 3 s), SYN-ACK for the third SYN at 7.1 s. Without
    // timestamps Karn forbids a sample from a retransmitted SYN, so data starts with the
    // RFC 6298 §5.7 fallback RTO of 3 s (not the backed-off 4 s), and — more than one SYN
    // retransmission, as Linux's tcp_init_transfer counts — with cwnd = 1 segment.
    let mut s = TcpSender::new(cfg(), false, SimTime::ZERO);
    let mut out = vec![];
    s.set_app_end(SimTime::ZERO, BIG, &mut out);
    s.connect(SimTime::ZERO, &mut out);
    timer(&mut s, ms(1000));
    timer(&mut s, ms(3000));
    let mut out = vec![];
    s.on_segment(ms(7100), &default_syn_ack(&cfg()), &mut out);
    assert_eq!(s.state(), SenderState::Established);
    assert_eq!(s.rtt().srtt(), None);
    assert_eq!(s.rtt().rto(), ms(3000));
    assert_eq!(sent(&out), news(0..1));
    assert_eq!(s.next_deadline(), ms(7100 + 3000));
}

#[test]
fn test_syn_sent_one_lost_syn_keeps_the_initial_window() {
    // One SYN retransmission: Linux keeps the initial window (it cuts only after more than
    // one), and the RTO still falls back to 3 s for lack of a sample.
    let mut s = TcpSender::new(cfg(), false, SimTime::ZERO);
    let mut out = vec![];
    s.set_app_end(SimTime::ZERO, BIG, &mut out);
    s.connect(SimTime::ZERO, &mut out);
    timer(&mut s, ms(1000));
    let mut out = vec![];
    s.on_segment(ms(1100), &default_syn_ack(&cfg()), &mut out);
    assert_eq!(sent(&out), news(0..10));
    assert_eq!(s.rtt().rto(), ms(3000));
}

// =====================================================================================
// RTT samples: the handshake and timestamps
// =====================================================================================

#[test]
fn test_syn_sent_rtt_sample_from_syn_exchange() {
    // No timestamps, SYN sent once: R = SYN-ACK arrival − SYN send = 100 ms.
    // SRTT = 100 ms, RTTVAR = 50 ms, RTO = 100 + 4·50 = 300 ms (RFC 6298 §2.2).
    let (s, _) = established_sender(cfg());
    assert_eq!(s.rtt().srtt(), Some(ms(100)));
    assert_eq!(s.rtt().rttvar(), ms(50));
    assert_eq!(s.rtt().rto(), ms(300));
    assert_eq!(s.log.rtt.us, [100_000]);
}

#[test]
fn test_syn_sent_rtt_sample_from_syn_ack_tsecr_after_syn_retransmission() {
    // The first SYN (TSval 0) is lost; the retransmission at 1 s carries TSval 1_000_000
    // and the SYN-ACK at 1.03 s echoes it: R = 1.03 s − 1 s = 30 ms, a valid sample
    // because the echo identifies the transmission (RFC 7323 §4, RFC 6298 §3).
    let c = TcpConfig {
        timestamps: true,
        ..cfg()
    };
    let mut s = TcpSender::new(c, false, SimTime::ZERO);
    let mut out = vec![];
    s.set_app_end(SimTime::ZERO, BIG, &mut out);
    s.connect(SimTime::ZERO, &mut out);
    let out = timer(&mut s, ms(1000));
    assert_eq!(out[0].timestamps, Some((1_000_000, 0)));
    let sa = syn_ack(65_535, Some(PEER_WSCALE), Some((55, 1_000_000)));
    let out = recv(&mut s, ms(1030), &sa);
    assert_eq!(s.rtt().srtt(), Some(ms(30)));
    // The sample clears the backoff (RFC 6298 §5.7): 30 + 4·15 = 90 ms → 200 ms minimum.
    assert_eq!(s.rtt().rto(), ms(200));
    // The handshake ACK echoes the SYN-ACK's TSval.
    assert_eq!(out[0].timestamps, Some((1_030_000, 55)));
}

#[test]
fn test_syn_sent_no_rtt_sample_after_syn_retransmission_without_timestamps() {
    // Karn: after a SYN retransmission the SYN-ACK may answer either SYN, so without
    // timestamps there is no sample (RFC 6298 §3).
    let mut s = TcpSender::new(cfg(), false, SimTime::ZERO);
    let mut out = vec![];
    s.set_app_end(SimTime::ZERO, BIG, &mut out);
    s.connect(SimTime::ZERO, &mut out);
    timer(&mut s, ms(1000));
    let out = recv(&mut s, ms(1100), &default_syn_ack(&cfg()));
    assert_eq!(s.rtt().srtt(), None);
    assert!(s.log.rtt.us.is_empty());
    // Data still starts: the initial window of 10 segments.
    assert_eq!(sent(&out), news(0..10));
}

#[test]
fn test_established_rtt_sample_is_now_minus_tsecr() {
    let c = TcpConfig {
        timestamps: true,
        ..cfg()
    };
    let (mut s, out) = established_sender(c);
    // Data at 100 ms: TSval 100_000 ticks; TSecr = the SYN-ACK's TSval, 7.
    assert!(out.iter().all(|h| h.timestamps == Some((100_000, 7))));
    // ACK at 250 ms echoing 100_000: R = 250 − 100 = 150 ms (RFC 7323 §4.1).
    // RTTVAR = 3/4·50 + 1/4·|100 − 150| = 50 ms; SRTT = 7/8·100 + 1/8·150 = 106.25 ms.
    let out = recv(&mut s, ms(250), &ack_ts(seg(1), 900, 100_000));
    assert_eq!(s.rtt().latest(), ms(150));
    assert_eq!(s.rtt().srtt(), Some(us(106_250)));
    assert_eq!(s.rtt().rttvar(), ms(50));
    // The new segments echo the ACK's TSval (RFC 7323 §3.2).
    assert!(out.iter().all(|h| h.timestamps == Some((250_000, 900))));
    // An ACK that does not advance SND.UNA gives no sample (RFC 7323 §4.1, RTTM rule).
    let n = s.log.rtt.us.len();
    recv(
        &mut s,
        ms(260),
        &TcpHeader {
            timestamps: Some((910, 100_000)),
            ..ack_with_sack(seg(1), &[(seg(2), seg(3))])
        },
    );
    assert_eq!(s.log.rtt.us.len(), n);
}

#[test]
fn test_ts_ticks_are_microseconds() {
    // The timestamp clock ticks in µs and wraps at 2^32.
    assert_eq!(ts_ticks(ms(1)), 1000);
    assert_eq!(ts_ticks(us((1 << 32) + 5)), 5);
}

#[test]
fn test_window_scale_at_the_boundaries() {
    // RFC 7323 §2.3: the smallest shift s with buf >> s ≤ 65 535, at most 14. 65 535 B
    // needs none; 65 536 B needs 1 (32 768); 131 071 B still 1 (65 535); 131 072 B needs
    // 2; 6 MB (6 291 456 = 96 · 2^16) needs 7 (49 152); 2^30 B needs 14 (65 536 would
    // need 15: capped).
    for (buf, s) in [
        (0, 0),
        (65_535, 0),
        (65_536, 1),
        (131_071, 1),
        (131_072, 2),
        (6_291_456, 7),
        ((1 << 30) - 1, 14),
        (1 << 30, 14),
        (u64::MAX, 14),
    ] {
        assert_eq!(wscale_for(buf), s, "buf {buf}");
    }
}

proptest::proptest! {
    /// The shift is the definition's: the loop that shifts until the window fits.
    #[test]
    fn window_scale_is_the_smallest_shift_that_fits(buf in proptest::num::u64::ANY, small in 0u64..1 << 32) {
        for b in [buf, small] {
            let mut s = 0u8;
            while s < 14 && (b >> s) > 65_535 {
                s += 1;
            }
            proptest::prop_assert_eq!(wscale_for(b), s);
        }
    }
}
