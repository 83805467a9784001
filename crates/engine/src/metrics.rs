//! Recorders shared by the layers' metrics.

use crate::time::SimTime;

/// Delay samples (RTTs, one-way delays): running count, sum and minimum always, and every
/// sample with its time when `keep` is set. Samples are stored in µs as `u32` (71 minutes
/// at most) to halve the memory of long runs.
#[derive(Clone, Debug)]
pub struct DelayLog {
    /// Keep every sample in `t_ns`/`us`.
    pub keep: bool,
    /// Time of each kept sample, ns.
    pub t_ns: Vec<u64>,
    /// Each kept sample, µs.
    pub us: Vec<u32>,
    /// Number of samples.
    pub count: u64,
    /// Sum of the samples, µs.
    pub sum_us: u64,
    /// Smallest sample, µs (`u32::MAX` before the first).
    pub min_us: u32,
}

impl DelayLog {
    /// An empty log.
    pub fn new(keep: bool) -> Self {
        DelayLog {
            keep,
            t_ns: Vec::new(),
            us: Vec::new(),
            count: 0,
            sum_us: 0,
            min_us: u32::MAX,
        }
    }

    /// Records `delay` measured at `now`.
    #[inline]
    pub fn record(&mut self, now: SimTime, delay: SimTime) {
        let us = (delay.ns() / 1_000).min(u32::MAX as u64) as u32;
        self.count += 1;
        self.sum_us += us as u64;
        self.min_us = self.min_us.min(us);
        if self.keep {
            self.t_ns.push(now.ns());
            self.us.push(us);
        }
    }

    /// Mean in ms, if any sample.
    pub fn mean_ms(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum_us as f64 / self.count as f64 / 1e3)
    }

    /// Minimum in ms, if any sample.
    pub fn min_ms(&self) -> Option<f64> {
        (self.count > 0).then(|| self.min_us as f64 / 1e3)
    }

    /// 95th percentile in ms (nearest rank: the ⌈0.95·n⌉-th smallest), if samples were kept.
    pub fn p95_ms(&self) -> Option<f64> {
        if self.us.is_empty() {
            return None;
        }
        let mut c = self.us.clone();
        let k = ((0.95 * c.len() as f64).ceil() as usize).clamp(1, c.len()) - 1;
        let (_, p, _) = c.select_nth_unstable(k);
        Some(*p as f64 / 1e3)
    }
}

impl Default for DelayLog {
    fn default() -> Self {
        DelayLog::new(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_follow_their_definitions() {
        let mut d = DelayLog::new(true);
        for ms in 1..=20u64 {
            d.record(SimTime::from_ms(ms), SimTime::from_ms(ms));
        }
        // Mean of 1..20 ms = 10.5 ms; ⌈0.95·20⌉ = 19th smallest = 19 ms.
        assert_eq!(d.mean_ms(), Some(10.5));
        assert_eq!(d.p95_ms(), Some(19.0));
        assert_eq!(d.min_ms(), Some(1.0));
    }

    #[test]
    fn without_samples_only_the_running_statistics_remain() {
        let mut d = DelayLog::new(false);
        d.record(SimTime::ZERO, SimTime::from_us(1500));
        d.record(SimTime::ZERO, SimTime::from_us(500));
        assert_eq!(
            (d.count, d.mean_ms(), d.min_ms(), d.p95_ms()),
            (2, Some(1.0), Some(0.5), None)
        );
        assert!(d.us.is_empty());
    }
}
