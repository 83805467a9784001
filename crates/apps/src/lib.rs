//! Applications on top of TCP: each answers "how many bytes have been written by time t"
//! and "when will the next bytes be written".
//!
//! - **Bulk**: always has data (a full buffer).
//! - **Rate**: a full buffer capped at `rate` (R_app of the studies).
//! - **File**: `size` bytes written at the start; the flow reports its completion time.
//! - **On/off**: `rate` while on, nothing while off, repeating from the start.
//! - **Messages**: `size` bytes every `interval`, fixed or exponentially distributed.
//!
//! Rate-driven applications write in whole chunks of one segment (`chunk_bytes`), as an
//! application writing fixed-size buffers would, so TCP never sends runt segments because
//! of the application. A write never runs more than the send buffer ahead of the
//! acknowledged data: when the buffer is full the application is blocked and produces
//! nothing (the credit of a blocked interval is lost, not banked). Blocking is evaluated
//! when the application is polled, which the world does whenever TCP runs out of data,
//! except before the application's pending wake-up, where a poll could write nothing
//! ([`TcpApp::idle_before`]).

use mmtsim_engine::{Rate, SimRng, SimTime};
use rand::Rng;

/// What an application does.
#[derive(Clone, Debug, PartialEq)]
pub enum AppKind {
    /// Full buffer.
    Bulk,
    /// Full buffer capped at a rate.
    Rate {
        /// R_app.
        rate: Rate,
    },
    /// A file.
    File {
        /// Bytes.
        size: u64,
    },
    /// On/off source.
    OnOff {
        /// Rate while on.
        rate: Rate,
        /// On period.
        on: SimTime,
        /// Off period.
        off: SimTime,
    },
    /// Small messages.
    Messages {
        /// Bytes per message.
        size: u64,
        /// (Mean) interval.
        interval: SimTime,
        /// Exponential intervals.
        poisson: bool,
    },
}

/// An application instance feeding one TCP sender.
pub struct TcpApp {
    kind: AppKind,
    start: SimTime,
    stop: SimTime,
    chunk_bytes: u64,
    written: u64,
    /// Rate-driven apps: credit in bit·ns (bits × 10^9) not yet turned into a chunk.
    credit: u128,
    last: SimTime,
    next_message: SimTime,
    rng: SimRng,
}

/// "Practically infinite" data of a bulk source; far above anything a run can send.
pub const BULK_BYTES: u64 = 1 << 60;

impl TcpApp {
    /// An application active in [start, stop).
    pub fn new(
        kind: AppKind,
        start: SimTime,
        stop: SimTime,
        chunk_bytes: u64,
        rng: SimRng,
    ) -> Self {
        TcpApp {
            kind,
            start,
            stop,
            chunk_bytes: chunk_bytes.max(1),
            written: 0,
            credit: 0,
            last: start,
            next_message: start,
            rng,
        }
    }

    /// The kind.
    pub fn kind(&self) -> &AppKind {
        &self.kind
    }

    /// Total bytes written by `now`, never more than `cap` (SND.UNA + send buffer).
    pub fn poll(&mut self, now: SimTime, cap: u64) -> u64 {
        let now_c = now.min(self.stop);
        match self.kind {
            AppKind::Bulk => {
                if now >= self.start {
                    self.written = BULK_BYTES;
                }
            }
            AppKind::File { size } => {
                if now >= self.start {
                    self.written = size;
                }
            }
            AppKind::Rate { rate } => {
                let active = now_c.saturating_sub(self.last);
                self.accrue(rate, active.ns(), cap);
                self.last = self.last.max(now_c);
            }
            AppKind::OnOff { rate, on, off } => {
                let a = self.active_time(now_c, on, off) - self.active_time(self.last, on, off);
                self.accrue(rate, a, cap);
                self.last = self.last.max(now_c);
            }
            AppKind::Messages {
                size,
                interval,
                poisson,
            } => {
                while self.next_message <= now && self.next_message < self.stop {
                    self.written += size;
                    let gap = if poisson {
                        let u: f64 = self.rng.random::<f64>();
                        // libm's ln, not the platform's: the same bits on every machine.
                        SimTime(
                            (-libm::log(1.0 - u) * interval.ns() as f64)
                                .round()
                                .max(1.0) as u64,
                        )
                    } else {
                        interval
                    };
                    self.next_message += gap;
                }
            }
        }
        self.written
    }

    fn accrue(&mut self, rate: Rate, active_ns: u64, cap: u64) {
        self.credit += rate.as_bps() as u128 * active_ns as u128;
        let chunk_units = self.chunk_bytes as u128 * 8 * 1_000_000_000;
        // An application polled at its own wake-ups has one chunk of credit, or none when
        // polled in between (on an ACK): those two are told by comparison, the rest divided.
        // Divisions are the costly part of a poll, which comes every few microseconds.
        let chunks = if self.credit < chunk_units {
            0
        } else if self.credit < 2 * chunk_units {
            1
        } else {
            let whole = match u64::try_from(chunk_units) {
                Ok(d) => mmtsim_engine::time::div_wide(self.credit, d),
                Err(_) => self.credit / chunk_units,
            };
            whole as u64
        };
        self.credit -= chunks as u128 * chunk_units;
        let free = cap.saturating_sub(self.written);
        // More chunks than whole chunks of room (free / chunk_bytes), without the division:
        // k > ⌊free / c⌋ exactly when k·c > free.
        if chunks as u128 * self.chunk_bytes as u128 > free as u128 {
            // Blocked on a full send buffer: the excess is never produced.
            let room = free / self.chunk_bytes;
            self.written += room * self.chunk_bytes;
            self.credit = 0;
        } else {
            self.written += chunks * self.chunk_bytes;
        }
    }

    /// On-time elapsed in [start, t] for an on/off source.
    fn active_time(&self, t: SimTime, on: SimTime, off: SimTime) -> u64 {
        let e = t.saturating_sub(self.start).ns();
        let period = on.ns() + off.ns();
        (e / period) * on.ns() + (e % period).min(on.ns())
    }

    /// When the application next writes, if it ever does (the world polls then).
    pub fn next_write(&self, now: SimTime) -> Option<SimTime> {
        let t = match self.kind {
            AppKind::Bulk | AppKind::File { .. } => {
                if now < self.start {
                    self.start
                } else {
                    return None;
                }
            }
            AppKind::Rate { rate } => {
                let need =
                    (self.chunk_bytes as u128 * 8 * 1_000_000_000).saturating_sub(self.credit);
                now.max(self.last)
                    + SimTime(mmtsim_engine::time::div_ceil_wide(need, rate.as_bps()) as u64)
            }
            AppKind::OnOff { rate, on, off } => {
                let need =
                    (self.chunk_bytes as u128 * 8 * 1_000_000_000).saturating_sub(self.credit);
                let need_active = mmtsim_engine::time::div_ceil_wide(need, rate.as_bps()) as u64;
                let from = now.max(self.last);
                let target = self.active_time(from, on, off) + need_active;
                // Invert active_time: whole periods, then the remainder inside an on period.
                let period = on.ns() + off.ns();
                let (k, r) = (target / on.ns(), target % on.ns());
                let mut t = self.start + SimTime(k * period + r);
                if r == 0 && k > 0 {
                    // Exactly at the end of an on period.
                    t = self.start + SimTime((k - 1) * period + on.ns());
                }
                t.max(from)
            }
            AppKind::Messages { .. } => self.next_message.max(now),
        };
        (t < self.stop).then_some(t)
    }

    /// True if a poll at `now` can be left out: it would write nothing, and a later poll
    /// writes and leaves the same as if it had run. `wake` is the write time
    /// [`Self::next_write`] gave at a poll since which this application wrote nothing,
    /// still to come ([`SimTime::NEVER`]: none). A rate or on/off source's credit reaches
    /// one chunk exactly at `wake` (`next_write` inverts the accrual), grows by the same
    /// amount whether it is accrued in one piece or in several (on-time is a difference
    /// of cumulative on-times), and is lost to a full send buffer only when it holds a
    /// chunk; a message source writes, and draws its next interval, only at `wake`. Bulk
    /// and file sources have no wake-up.
    #[inline]
    pub fn idle_before(&self, wake: SimTime, now: SimTime) -> bool {
        !matches!(self.kind, AppKind::Bulk | AppKind::File { .. })
            && wake != SimTime::NEVER
            && now < wake
    }

    /// True once the application will never write again (file written, stop passed).
    pub fn finished(&self, now: SimTime) -> bool {
        match self.kind {
            AppKind::File { .. } => now >= self.start,
            AppKind::Bulk => false,
            _ => now >= self.stop,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mmtsim_engine::RngStreams;

    fn app(kind: AppKind) -> TcpApp {
        TcpApp::new(
            kind,
            SimTime::from_secs(1),
            SimTime::from_secs(100),
            1000,
            RngStreams::new(1).stream("a"),
        )
    }

    #[test]
    fn rate_app_writes_whole_chunks_at_its_rate() {
        // 8 Mbit/s = 1 MB/s = 1000 chunks of 1000 B per second.
        let mut a = app(AppKind::Rate {
            rate: Rate::mbps(8),
        });
        assert_eq!(a.poll(SimTime::from_secs(1), u64::MAX), 0);
        assert_eq!(a.poll(SimTime::from_ms(1500), u64::MAX), 500_000);
        // 1 chunk takes 1 ms: after 1.5 s + 0.4 ms nothing new; the next write is at 1.501 s.
        assert_eq!(a.poll(SimTime::from_us(1_500_400), u64::MAX), 500_000);
        assert_eq!(
            a.next_write(SimTime::from_us(1_500_400)),
            Some(SimTime::from_ms(1501))
        );
    }

    /// The accrual as first written, dividing every time: the reference for
    /// `accrue`'s comparisons.
    fn accrue_by_division(credit: &mut u128, written: &mut u64, chunk: u64, add: u128, cap: u64) {
        *credit += add;
        let units = chunk as u128 * 8 * 1_000_000_000;
        let chunks = (*credit / units) as u64;
        *credit -= chunks as u128 * units;
        let room = cap.saturating_sub(*written) / chunk;
        if chunks > room {
            *written += room * chunk;
            *credit = 0;
        } else {
            *written += chunks * chunk;
        }
    }

    proptest::proptest! {
        /// Polls at random instants with a random send-buffer cap (some exactly the
        /// room the new chunks need) write what dividing every time writes, byte for byte,
        /// and leave the same credit.
        #[test]
        fn rate_app_accrues_as_dividing_would(
            chunk in 1u64..10_000,
            rate_bps in 1u64..4_000_000_000,
            polls in proptest::collection::vec(
                (0u64..200_000, proptest::option::of(0u64..2_000_000)), 1..200),
        ) {
            let mut a = TcpApp::new(
                AppKind::Rate { rate: Rate::bps(rate_bps) },
                SimTime::ZERO,
                SimTime::from_secs(1000),
                chunk,
                RngStreams::new(1).stream("a"),
            );
            let units = chunk as u128 * 8 * 1_000_000_000;
            let (mut credit, mut written, mut t) = (0u128, 0u64, 0u64);
            for (dt, room) in polls {
                t += dt;
                let add = rate_bps as u128 * dt as u128;
                // `None`: room for exactly the chunks this poll brings.
                let fit = ((credit + add) / units) as u64 * chunk;
                let cap = written + room.unwrap_or(fit);
                accrue_by_division(&mut credit, &mut written, chunk, add, cap);
                proptest::prop_assert_eq!(a.poll(SimTime::from_ns(t), cap), written);
                proptest::prop_assert_eq!(a.credit, credit);
            }
        }

        /// A rate, on/off or message source polled at random instants (random
        /// send-buffer caps), with the polls that `idle_before` leaves out skipped, writes
        /// what it writes polled every time, at every poll that runs, and leaves the same
        /// credit; and a skipped poll is one that would have written nothing and asked for
        /// no earlier wake-up.
        #[test]
        fn polls_left_out_before_the_wake_change_nothing(
            kind in 0u8..4,
            chunk in 1u64..5_000,
            rate_bps in 1_000u64..4_000_000_000,
            on_us in 1u64..300,
            off_us in 1u64..300,
            polls in proptest::collection::vec(
                (0u64..100_000, proptest::option::of(0u64..50_000), proptest::bool::ANY),
                1..300),
        ) {
            let rate = Rate::bps(rate_bps);
            let kind = match kind {
                0 => AppKind::Rate { rate },
                1 => AppKind::OnOff {
                    rate,
                    on: SimTime::from_us(on_us),
                    off: SimTime::from_us(off_us),
                },
                k => AppKind::Messages {
                    size: chunk,
                    interval: SimTime::from_us(on_us),
                    poisson: k == 3,
                },
            };
            let make = || TcpApp::new(
                kind.clone(),
                SimTime::from_us(3),
                SimTime::from_secs(1000),
                chunk,
                RngStreams::new(1).stream("a"),
            );
            let (mut every, mut some) = (make(), make());
            // The pending wake-up, kept as the world keeps it: set when a poll's next
            // write is earlier, cleared once it has come. A poll at the wake's own instant
            // (`at_wake`: the next poll is there) may come before the wake-up itself.
            let mut wake = SimTime::NEVER;
            let mut t = SimTime::ZERO;
            for (dt, room, at_wake) in polls {
                t = if at_wake && wake != SimTime::NEVER {
                    wake
                } else {
                    t + SimTime::from_ns(dt)
                };
                let cap = every.written + room.unwrap_or(u64::MAX / 2);
                if wake < t {
                    wake = SimTime::NEVER;
                }
                let before = every.written;
                let w = every.poll(t, cap);
                if some.idle_before(wake, t) {
                    proptest::prop_assert_eq!(w, before, "a skipped poll would have written");
                    // Nor would it have asked for an earlier wake-up than the pending one.
                    if let Some(n) = every.next_write(t) {
                        proptest::prop_assert!(n >= wake, "{n:?} before {wake:?}");
                    }
                    continue;
                }
                proptest::prop_assert_eq!(some.poll(t, cap), w);
                proptest::prop_assert_eq!(some.credit, every.credit);
                proptest::prop_assert_eq!(some.next_message, every.next_message);
                if let Some(n) = some.next_write(t) {
                    proptest::prop_assert_eq!(Some(n), every.next_write(t));
                    wake = wake.min(n);
                }
            }
        }
    }

    #[test]
    fn idle_before_only_before_the_wake_of_a_source_that_has_one() {
        let a = app(AppKind::Rate {
            rate: Rate::mbps(8),
        });
        let ms = SimTime::from_ms;
        assert!(a.idle_before(ms(1001), ms(1000)));
        assert!(!a.idle_before(ms(1001), ms(1001)));
        assert!(!a.idle_before(SimTime::NEVER, ms(1000)));
        let on_off = app(AppKind::OnOff {
            rate: Rate::mbps(8),
            on: ms(10),
            off: ms(10),
        });
        assert!(on_off.idle_before(ms(1001), ms(1000)));
        assert!(!app(AppKind::Bulk).idle_before(ms(1001), ms(1000)));
        assert!(!app(AppKind::File { size: 1 }).idle_before(ms(1001), ms(1000)));
    }

    #[test]
    fn rate_app_polled_at_chunk_boundaries_writes_each_chunk_once() {
        // 8 Mbit/s, 1000-byte chunks: one chunk per millisecond from t = 1 s. Exactly one
        // and exactly two chunks of credit, and just short of one.
        let mut a = app(AppKind::Rate {
            rate: Rate::mbps(8),
        });
        assert_eq!(a.poll(SimTime::from_ms(1001), u64::MAX), 1000);
        assert_eq!(a.poll(SimTime::from_ms(1003), u64::MAX), 3000);
        assert_eq!(a.credit, 0);
        assert_eq!(a.poll(SimTime::from_ns(1_003_999_999), u64::MAX), 3000);
        assert_eq!(a.poll(SimTime::from_ms(1004), u64::MAX), 4000);
    }

    #[test]
    fn blocked_app_loses_its_credit() {
        let mut a = app(AppKind::Rate {
            rate: Rate::mbps(8),
        });
        // Cap 10 kB: after 1 s of credit (1 MB) only 10 kB are written.
        assert_eq!(a.poll(SimTime::from_secs(2), 10_000), 10_000);
        // The cap rises; 1 ms later one more chunk.
        assert_eq!(a.poll(SimTime::from_ms(2001), 1_000_000), 11_000);
    }

    #[test]
    fn onoff_counts_only_on_time() {
        // 8 Mbit/s on for 30 s, off for 2 s, from t = 1 s.
        let kind = AppKind::OnOff {
            rate: Rate::mbps(8),
            on: SimTime::from_secs(30),
            off: SimTime::from_secs(2),
        };
        let mut a = app(kind);
        // At 33 s: 30 s on + 2 s off elapsed → 30 MB.
        assert_eq!(a.poll(SimTime::from_secs(33), u64::MAX), 30_000_000);
        // During the off period the next write is when the next on period starts + 1 ms.
        let mut b = app(AppKind::OnOff {
            rate: Rate::mbps(8),
            on: SimTime::from_secs(30),
            off: SimTime::from_secs(2),
        });
        b.poll(SimTime::from_secs(32), u64::MAX);
        assert_eq!(
            b.next_write(SimTime::from_secs(32)),
            Some(SimTime::from_ms(33_001))
        );
    }

    #[test]
    fn messages_arrive_every_interval() {
        let mut a = app(AppKind::Messages {
            size: 200,
            interval: SimTime::from_ms(100),
            poisson: false,
        });
        // Messages at 1.0, 1.1, ..., 1.5 s → 6 by 1.5 s.
        assert_eq!(a.poll(SimTime::from_ms(1500), u64::MAX), 1200);
        assert_eq!(
            a.next_write(SimTime::from_ms(1500)),
            Some(SimTime::from_ms(1600))
        );
    }

    #[test]
    fn poisson_messages_have_the_requested_mean() {
        let mut a = TcpApp::new(
            AppKind::Messages {
                size: 1,
                interval: SimTime::from_ms(10),
                poisson: true,
            },
            SimTime::ZERO,
            SimTime::from_secs(1000),
            1,
            RngStreams::new(5).stream("m"),
        );
        // 1000 s / 10 ms = 100 000 messages expected; Poisson std = 316.
        let n = a.poll(SimTime::from_secs(1000), u64::MAX);
        assert!((n as f64 - 100_000.0).abs() < 1_600.0, "{n}");
    }

    #[test]
    fn bulk_and_file() {
        let mut b = app(AppKind::Bulk);
        assert_eq!(b.poll(SimTime::ZERO, u64::MAX), 0);
        assert_eq!(b.poll(SimTime::from_secs(1), u64::MAX), BULK_BYTES);
        let mut f = app(AppKind::File { size: 7_000_000 });
        assert_eq!(f.poll(SimTime::from_secs(2), u64::MAX), 7_000_000);
        assert!(f.finished(SimTime::from_secs(2)));
    }
}
