//! UDP: a constant-rate source and a counting sink, the capacity reference of a path.
//!
//! The source emits datagrams of `payload_bytes` every `(payload + headers)·8 / rate`
//! seconds, numbered from 0. The sink counts bytes and datagrams, infers losses from gaps in
//! the numbering (reordered datagrams are counted once) and records one-way delays.

use mmtsim_engine::{Rate, SimTime};
use mmtsim_net::packet::{UdpHeader, IPV4_HEADER_BYTES, UDP_HEADER_BYTES};

/// A constant-bit-rate source.
#[derive(Clone, Debug)]
pub struct UdpSource {
    /// Payload per datagram, bytes.
    pub payload_bytes: u32,
    /// Sending rate at the IP level (headers included).
    pub rate: Rate,
    next_seq: u64,
}

impl UdpSource {
    /// A source.
    pub fn new(payload_bytes: u32, rate: Rate) -> Self {
        UdpSource {
            payload_bytes,
            rate,
            next_seq: 0,
        }
    }
    /// Wire size of each datagram.
    pub fn wire_bytes(&self) -> u32 {
        self.payload_bytes + UDP_HEADER_BYTES + IPV4_HEADER_BYTES
    }
    /// Interval between datagrams.
    pub fn interval(&self) -> SimTime {
        self.rate.tx_time(self.wire_bytes() as u64)
    }
    /// The next datagram.
    pub fn next_datagram(&mut self) -> UdpHeader {
        let h = UdpHeader {
            seq: self.next_seq,
            payload_bytes: self.payload_bytes,
        };
        self.next_seq += 1;
        h
    }
    /// Datagrams sent.
    pub fn sent(&self) -> u64 {
        self.next_seq
    }
}

/// How far behind the highest sequence number a datagram may arrive and still be told
/// apart from a duplicate (datagrams). Older ones are counted as `too_late` and discarded.
pub const REORDER_WINDOW: u64 = 1 << 16;

/// A sink. Memory is bounded: a bitmap of the last [`REORDER_WINDOW`] sequence numbers.
#[derive(Clone, Debug)]
pub struct UdpSink {
    /// Payload bytes received.
    pub bytes: u64,
    /// Datagrams received (duplicates excluded).
    pub datagrams: u64,
    /// Duplicates received.
    pub duplicates: u64,
    /// Datagrams that arrived more than the reorder window behind the newest one.
    pub too_late: u64,
    highest: Option<u64>,
    /// Bit `s % W` is set when sequence number `s` (within the window) was received.
    seen: Vec<u64>,
}

impl Default for UdpSink {
    fn default() -> Self {
        UdpSink {
            bytes: 0,
            datagrams: 0,
            duplicates: 0,
            too_late: 0,
            highest: None,
            seen: vec![0; (REORDER_WINDOW / 64) as usize],
        }
    }
}

impl UdpSink {
    fn bit(&mut self, seq: u64) -> (&mut u64, u64) {
        let i = seq % REORDER_WINDOW;
        (&mut self.seen[(i / 64) as usize], 1 << (i % 64))
    }

    /// A datagram arrived; returns the payload bytes newly received.
    pub fn on_datagram(&mut self, h: &UdpHeader) -> u64 {
        match self.highest {
            Some(hi) if h.seq + REORDER_WINDOW <= hi => {
                self.too_late += 1;
                return 0;
            }
            Some(hi) if h.seq > hi => {
                // Numbers hi+1..=seq enter the window: clear the bits they inherit from
                // numbers one window older (at most one window's worth).
                let entering = (h.seq - hi).min(REORDER_WINDOW);
                for s in (h.seq + 1 - entering)..=h.seq {
                    let (w, b) = self.bit(s);
                    *w &= !b;
                }
                self.highest = Some(h.seq);
            }
            None => self.highest = Some(h.seq),
            Some(_) => {}
        }
        let (w, b) = self.bit(h.seq);
        if *w & b != 0 {
            self.duplicates += 1;
            return 0;
        }
        *w |= b;
        self.datagrams += 1;
        self.bytes += h.payload_bytes as u64;
        h.payload_bytes as u64
    }

    /// Datagrams not received up to the highest received (lost, or not yet arrived).
    pub fn lost(&self) -> u64 {
        self.highest.map_or(0, |hi| hi + 1 - self.datagrams)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cbr_interval_includes_headers() {
        // 1472 B payload + 28 B headers = 1500 B at 12 Mbit/s → 1 ms.
        let s = UdpSource::new(1472, Rate::mbps(12));
        assert_eq!(s.interval(), SimTime::from_ms(1));
    }

    #[test]
    fn sink_memory_is_bounded_and_very_late_datagrams_are_set_apart() {
        let mut k = UdpSink::default();
        k.on_datagram(&UdpHeader {
            seq: 0,
            payload_bytes: 1,
        });
        // A gap of ten million: the window slides, nothing grows.
        k.on_datagram(&UdpHeader {
            seq: 10_000_000,
            payload_bytes: 1,
        });
        assert_eq!(k.seen.len(), (REORDER_WINDOW / 64) as usize);
        assert_eq!(k.lost(), 10_000_001 - 2);
        // Within the window a late datagram still counts once…
        assert_eq!(
            k.on_datagram(&UdpHeader {
                seq: 10_000_000 - 5,
                payload_bytes: 1
            }),
            1
        );
        assert_eq!(
            k.on_datagram(&UdpHeader {
                seq: 10_000_000 - 5,
                payload_bytes: 1
            }),
            0
        );
        // …beyond it, it is set apart.
        assert_eq!(
            k.on_datagram(&UdpHeader {
                seq: 1,
                payload_bytes: 1
            }),
            0
        );
        assert_eq!((k.datagrams, k.duplicates, k.too_late), (3, 1, 1));
    }

    #[test]
    fn sequence_numbers_one_window_apart_are_not_duplicates() {
        let mut k = UdpSink::default();
        for seq in [0, REORDER_WINDOW, 2 * REORDER_WINDOW + 3] {
            assert_eq!(
                k.on_datagram(&UdpHeader {
                    seq,
                    payload_bytes: 1
                }),
                1,
                "seq {seq}"
            );
        }
        // A steady stream across several wraps has no duplicates either.
        let mut k = UdpSink::default();
        for seq in 0..3 * REORDER_WINDOW {
            k.on_datagram(&UdpHeader {
                seq,
                payload_bytes: 1,
            });
        }
        assert_eq!(
            (k.datagrams, k.duplicates, k.lost()),
            (3 * REORDER_WINDOW, 0, 0)
        );
    }

    #[test]
    fn sink_counts_gaps_reordering_and_duplicates() {
        let mut k = UdpSink::default();
        for seq in [0, 1, 3, 2, 2, 6] {
            k.on_datagram(&UdpHeader {
                seq,
                payload_bytes: 10,
            });
        }
        // 0,1,3,2,6 are fresh; the second 2 is a duplicate; 4 and 5 are missing.
        assert_eq!(
            (k.datagrams, k.duplicates, k.lost(), k.bytes),
            (5, 1, 2, 50)
        );
    }
}
