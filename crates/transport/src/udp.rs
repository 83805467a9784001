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

/// A sink.
#[derive(Clone, Debug, Default)]
pub struct UdpSink {
    /// Payload bytes received.
    pub bytes: u64,
    /// Datagrams received (duplicates excluded).
    pub datagrams: u64,
    /// Duplicates received.
    pub duplicates: u64,
    highest: Option<u64>,
    seen_late: std::collections::BTreeSet<u64>,
}

impl UdpSink {
    /// A datagram arrived; returns the payload bytes newly received.
    pub fn on_datagram(&mut self, h: &UdpHeader) -> u64 {
        let fresh = match self.highest {
            None => {
                self.highest = Some(h.seq);
                true
            }
            Some(hi) if h.seq > hi => {
                for s in hi + 1..h.seq {
                    self.seen_late.insert(s);
                }
                self.highest = Some(h.seq);
                true
            }
            Some(_) => self.seen_late.remove(&h.seq),
        };
        if !fresh {
            self.duplicates += 1;
            return 0;
        }
        self.datagrams += 1;
        self.bytes += h.payload_bytes as u64;
        h.payload_bytes as u64
    }

    /// Datagrams lost so far (gaps in the numbering up to the highest received).
    pub fn lost(&self) -> u64 {
        self.seen_late.len() as u64
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
