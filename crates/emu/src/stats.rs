//! Counters of one run and the lateness of departures, reported as JSON.
//!
//! Lateness is how long after its model departure instant a packet was actually written
//! to the far TUN device: the emulator's own timing error, which adds to the path delay
//! the kernel sees. Percentiles use the nearest-rank definition (the smallest sample with
//! at least p % of the samples at or below it).

use serde_json::{json, Value};

/// Counters of one direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirStats {
    /// Packets read from the ingress TUN.
    pub rx_packets: u64,
    /// Bytes read from the ingress TUN (IP packets, headers included).
    pub rx_bytes: u64,
    /// Packets written to the egress TUN.
    pub forwarded_packets: u64,
    /// Bytes written to the egress TUN.
    pub forwarded_bytes: u64,
    /// Packets refused by the drop-tail queue.
    pub dropped_packets: u64,
    /// Bytes refused by the drop-tail queue.
    pub dropped_bytes: u64,
    /// Packets the link could never carry (a trace ending in a permanent outage).
    pub no_capacity_packets: u64,
    /// Packets read before the trace clock started (forwarded with the delay only).
    pub before_clock_packets: u64,
    /// Writes the kernel refused.
    pub write_errors: u64,
    /// Largest packet read, bytes (a check that no offload super-packets arrive).
    pub max_packet_bytes: u64,
}

impl DirStats {
    /// As a JSON object.
    pub fn to_json(&self) -> Value {
        json!({
            "rx_packets": self.rx_packets,
            "rx_bytes": self.rx_bytes,
            "forwarded_packets": self.forwarded_packets,
            "forwarded_bytes": self.forwarded_bytes,
            "dropped_packets": self.dropped_packets,
            "dropped_bytes": self.dropped_bytes,
            "no_capacity_packets": self.no_capacity_packets,
            "before_clock_packets": self.before_clock_packets,
            "write_errors": self.write_errors,
            "max_packet_bytes": self.max_packet_bytes,
        })
    }
}

/// Lateness samples of every departure, ns.
#[derive(Clone, Debug, Default)]
pub struct Lateness {
    samples_ns: Vec<u64>,
}

impl Lateness {
    /// Records one departure `late_ns` after its model instant.
    pub fn record(&mut self, late_ns: u64) {
        self.samples_ns.push(late_ns);
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.samples_ns.len()
    }

    /// True if nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.samples_ns.is_empty()
    }

    /// Nearest-rank percentile `p` in (0, 100], ns; `None` without samples.
    pub fn percentile_ns(&mut self, p: f64) -> Option<u64> {
        if self.samples_ns.is_empty() {
            return None;
        }
        self.samples_ns.sort_unstable();
        let n = self.samples_ns.len();
        let rank = ((p / 100.0) * n as f64).ceil().clamp(1.0, n as f64) as usize;
        Some(self.samples_ns[rank - 1])
    }

    /// p50, p99, max and count as JSON, in µs.
    pub fn to_json(&mut self) -> Value {
        let us = |v: Option<u64>| v.map(|ns| ns as f64 / 1e3);
        json!({
            "samples": self.len(),
            "p50_us": us(self.percentile_ns(50.0)),
            "p99_us": us(self.percentile_ns(99.0)),
            "p999_us": us(self.percentile_ns(99.9)),
            "max_us": us(self.percentile_ns(100.0)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let mut l = Lateness::default();
        assert_eq!(l.percentile_ns(50.0), None);
        for v in (1..=100).rev() {
            l.record(v);
        }
        // 100 samples 1..=100: p50 is the 50th smallest, p99 the 99th, max the 100th.
        assert_eq!(l.percentile_ns(50.0), Some(50));
        assert_eq!(l.percentile_ns(99.0), Some(99));
        assert_eq!(l.percentile_ns(100.0), Some(100));
        // With 3 samples p50 is the 2nd (ceil(1.5)).
        let mut s = Lateness::default();
        for v in [30, 10, 20] {
            s.record(v);
        }
        assert_eq!(s.percentile_ns(50.0), Some(20));
        let j = s.to_json();
        assert_eq!(j["max_us"], 0.03);
        assert_eq!(j["samples"], 3);
    }
}
