//! Delivery-rate sampling as in Linux `net/ipv4/tcp_rate.c` (Cheng et al.,
//! draft-cheng-iccrg-delivery-rate-estimation).
//!
//! Each transmitted segment is stamped with the connection's `delivered` count, the time
//! of the last delivery (`delivered_time`) and the send time of the first segment of the
//! current flight (`first_tx_time`). When an ACK delivers segments, the stamp of the most
//! recently sent one among them gives the sample:
//! `delivered = now.delivered − stamp.delivered` over
//! `interval = max(send_elapsed, ack_elapsed)`, where `send_elapsed` = its send time −
//! `first_tx_time` and `ack_elapsed` = now − `delivered_time`. Taking the larger of the two
//! keeps ACK compression from inflating the rate. Samples whose interval is shorter than
//! the minimum RTT are discarded, as Linux does. A sample is marked application-limited
//! when its segment was sent while the sender had run out of data.
//!
//! Counts are in segments (Linux packets).

use mmtsim_engine::SimTime;

/// Stamp stored with each transmitted segment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateStamp {
    /// Connection `delivered` when the segment was sent.
    pub delivered: u64,
    /// Connection `delivered_time` when the segment was sent.
    pub delivered_time: SimTime,
    /// Send time of the first segment of the flight.
    pub first_tx_time: SimTime,
    /// Sent while application-limited.
    pub app_limited: bool,
}

/// One delivery-rate sample (Linux `struct rate_sample`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateSample {
    /// Segments delivered over the interval.
    pub delivered: u64,
    /// Interval length.
    pub interval: SimTime,
    /// The sample may underestimate the path: the sender had no data to send.
    pub app_limited: bool,
    /// Segments delivered by this ACK.
    pub acked_sacked: u32,
    /// The newest delivered segment was a retransmission.
    pub is_retrans: bool,
}

impl RateSample {
    /// Delivery rate in bits per second for a segment size of `mss` bytes.
    pub fn rate_bps(&self, mss: u32) -> f64 {
        if self.interval.ns() == 0 {
            return 0.0;
        }
        self.delivered as f64 * mss as f64 * 8.0 / self.interval.secs_f64()
    }
}

/// Connection-level rate-sampling state.
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    /// Segments delivered so far (Linux `tp->delivered`).
    pub delivered: u64,
    delivered_time: SimTime,
    first_tx_time: SimTime,
    /// Non-zero while application-limited: the `delivered` count at which that ends.
    app_limited_until: u64,
    // Per-ACK accumulation.
    prior_delivered: u64,
    prior_time: Option<SimTime>,
    send_elapsed: SimTime,
    acked_now: u32,
    sample_app_limited: bool,
    sample_retrans: bool,
}

impl RateSampler {
    /// Stamp for a segment sent now; `packets_out` is the count before this send.
    pub fn on_send(&mut self, now: SimTime, packets_out: u32) -> RateStamp {
        if packets_out == 0 {
            self.first_tx_time = now;
            self.delivered_time = now;
        }
        RateStamp {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_tx_time: self.first_tx_time,
            app_limited: self.app_limited_until != 0,
        }
    }

    /// A segment sent at `sent_at` with `stamp` was delivered by the current ACK.
    pub fn on_delivered(&mut self, stamp: &RateStamp, sent_at: SimTime, retransmitted: bool) {
        self.delivered += 1;
        self.acked_now += 1;
        if self.prior_time.is_none() || stamp.delivered > self.prior_delivered {
            self.prior_delivered = stamp.delivered;
            self.prior_time = Some(stamp.delivered_time);
            self.sample_app_limited = stamp.app_limited;
            self.sample_retrans = retransmitted;
            self.send_elapsed = sent_at.saturating_sub(stamp.first_tx_time);
            // The next flight's first transmission is this segment's.
            self.first_tx_time = sent_at;
        }
    }

    /// Closes the ACK and returns its sample, if one is valid.
    pub fn finish_ack(&mut self, now: SimTime, min_rtt: Option<SimTime>) -> Option<RateSample> {
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        let acked = std::mem::take(&mut self.acked_now);
        if acked > 0 {
            self.delivered_time = now;
        }
        let prior_time = self.prior_time.take()?;
        let ack_elapsed = now.saturating_sub(prior_time);
        let interval = self.send_elapsed.max(ack_elapsed);
        if interval.ns() == 0 || min_rtt.is_some_and(|m| interval < m) {
            return None;
        }
        Some(RateSample {
            delivered: self.delivered - self.prior_delivered,
            interval,
            app_limited: self.sample_app_limited,
            acked_sacked: acked,
            is_retrans: self.sample_retrans,
        })
    }

    /// `delivered` when the newest segment this ACK delivered was sent (Linux
    /// `rs->prior_delivered`); meaningful only for an ACK that delivered something.
    pub fn prior_delivered(&self) -> u64 {
        self.prior_delivered
    }

    /// The sender ran out of data with `in_flight` segments outstanding (Linux
    /// `tcp_rate_check_app_limited`).
    pub fn mark_app_limited(&mut self, in_flight: u32) {
        self.app_limited_until = (self.delivered + in_flight as u64).max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steady_flight_measures_the_bottleneck_rate() {
        // Ten segments sent 1 ms apart from t = 0 (a 1 segment/ms bottleneck), each ACKed
        // 20 ms after it was sent. The ACK of segment k (sent at k ms) delivers it: the
        // sample spans from the first segment's delivery... for k ≥ 1 the interval is
        // max(send_elapsed, ack_elapsed) = 1 ms with 1 segment delivered → 1 seg/ms.
        let mut r = RateSampler::default();
        let mut stamps = vec![];
        for k in 0..10u64 {
            stamps.push((
                r.on_send(SimTime::from_ms(k), k as u32),
                SimTime::from_ms(k),
            ));
        }
        let mut samples = vec![];
        for (k, (st, sent)) in stamps.iter().enumerate() {
            r.on_delivered(st, *sent, false);
            samples.push(r.finish_ack(SimTime::from_ms(20 + k as u64), None));
        }
        // First ACK: stamp.delivered_time = 0, interval = max(0, 20 ms) = 20 ms, 1 segment.
        assert_eq!(samples[0].unwrap().interval, SimTime::from_ms(20));
        // Segment 1 was stamped with delivered 0 at time 0 too (nothing delivered yet):
        // interval = max(send 1 ms, ack 21 ms) = 21 ms, delivered = 2.
        let s1 = samples[1].unwrap();
        assert_eq!((s1.delivered, s1.interval), (2, SimTime::from_ms(21)));
        // All stamps were taken before the first delivery, so segment 9's sample spans
        // 29 ms for 10 segments.
        let s9 = samples[9].unwrap();
        assert_eq!((s9.delivered, s9.interval), (10, SimTime::from_ms(29)));
    }

    #[test]
    fn second_flight_uses_delivered_time() {
        // After the first delivery at 20 ms, a segment sent at 20 ms is stamped with
        // delivered = 1, delivered_time = 20 ms; its ACK at 40 ms gives 1 segment / 20 ms.
        let mut r = RateSampler::default();
        let st0 = r.on_send(SimTime::ZERO, 0);
        r.on_delivered(&st0, SimTime::ZERO, false);
        r.finish_ack(SimTime::from_ms(20), None);
        let st1 = r.on_send(SimTime::from_ms(20), 0);
        assert_eq!(st1.delivered, 1);
        r.on_delivered(&st1, SimTime::from_ms(20), false);
        let s = r.finish_ack(SimTime::from_ms(40), None).unwrap();
        assert_eq!((s.delivered, s.interval), (1, SimTime::from_ms(20)));
        assert!((s.rate_bps(1000) - 400_000.0).abs() < 1e-6);
    }

    #[test]
    fn app_limited_marks_samples_until_the_flight_is_delivered() {
        let mut r = RateSampler::default();
        r.mark_app_limited(2);
        let a = r.on_send(SimTime::ZERO, 0);
        assert!(a.app_limited);
        r.on_delivered(&a, SimTime::ZERO, false);
        assert!(
            r.finish_ack(SimTime::from_ms(10), None)
                .unwrap()
                .app_limited
        );
        // delivered 1 < until 2: still limited; after 3 deliveries it clears.
        for i in 0..2 {
            let s = r.on_send(SimTime::from_ms(10 + i), 0);
            r.on_delivered(&s, SimTime::from_ms(10 + i), false);
            r.finish_ack(SimTime::from_ms(30 + i), None);
        }
        assert!(!r.on_send(SimTime::from_ms(40), 0).app_limited);
    }

    #[test]
    fn interval_shorter_than_min_rtt_is_discarded() {
        let mut r = RateSampler::default();
        let st = r.on_send(SimTime::ZERO, 0);
        r.on_delivered(&st, SimTime::ZERO, false);
        assert!(r
            .finish_ack(SimTime::from_ms(5), Some(SimTime::from_ms(10)))
            .is_none());
    }
}
