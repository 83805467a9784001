//! Recorders shared by the layers' metrics.
//!
//! # Row budget
//! Per-packet series (RTT per ACK, one-way delay per datagram, cwnd per change) would grow
//! with simulated time: a 1000 s run at 1 Gbit/s produces about 10^8 RTT samples. Each such
//! series therefore has a row budget ([`Thinning`]): when the kept rows reach it, every
//! other kept row is dropped and from then on only every 2nd, 4th, 8th … sample is kept
//! (systematic thinning with a doubling stride). The rows left are evenly spread over the
//! run, at most `budget` and at least `budget / 2` of them, and which rows they are depends
//! only on the sample order, so runs stay deterministic. Running statistics (count, mean,
//! minimum) always cover every sample; the 95th percentile of a thinned [`DelayLog`] comes
//! from a log-linear histogram of every sample ([`DelayHistogram`], relative error
//! < 0.2 %), exact to the microsecond below 1024 µs.

use crate::time::SimTime;

/// Systematic thinning of one series under a row budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thinning {
    /// Most rows kept; 0 keeps every sample.
    pub budget: usize,
    /// Every `stride`-th sample is kept (1 until the budget is first reached; a power of
    /// two, as it only ever doubles).
    pub stride: u64,
    /// Samples offered so far.
    pub seen: u64,
}

impl Thinning {
    /// Thinning under `budget` rows (0: none). A budget of 1 is raised to 2, the least
    /// that halving can keep.
    pub fn new(budget: usize) -> Self {
        Thinning {
            budget: if budget == 1 { 2 } else { budget },
            stride: 1,
            seen: 0,
        }
    }

    /// Counts one sample; true if it is to be kept.
    #[inline]
    pub fn admit(&mut self) -> bool {
        // `seen % stride` by a mask: a division per sample was a sixth of the cost of
        // recording an RTT.
        debug_assert!(self.stride.is_power_of_two());
        let keep = self.seen & (self.stride - 1) == 0;
        self.seen += 1;
        keep
    }

    /// After a push that left `kept` rows: true if the caller must now drop every other
    /// row (then the stride has doubled).
    #[inline]
    pub fn must_halve(&mut self, kept: usize) -> bool {
        if self.budget > 0 && kept >= self.budget {
            self.stride *= 2;
            true
        } else {
            false
        }
    }

    /// True once samples have been dropped.
    pub fn thinned(&self) -> bool {
        self.stride > 1
    }
}

impl Default for Thinning {
    fn default() -> Self {
        Thinning::new(0)
    }
}

/// A quantity sampled at regular instants (a queue's, a relay's, a cache's bytes): the sum
/// of the samples, their count and the largest; the mean over the samples is the time
/// average when the samples are evenly spaced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Occupancy {
    /// Sum of the samples.
    pub sum: u128,
    /// Samples taken.
    pub samples: u64,
    /// Largest sample.
    pub max: u64,
}

impl Occupancy {
    /// Takes one sample.
    #[inline]
    pub fn record(&mut self, v: u64) {
        self.sum += v as u128;
        self.samples += 1;
        self.max = self.max.max(v);
    }

    /// Mean of the samples (`None` without any).
    pub fn mean(&self) -> Option<f64> {
        (self.samples > 0).then(|| self.sum as f64 / self.samples as f64)
    }
}

/// Keeps the rows at even positions (0, 2, 4, …) of `v`: the samples whose index is a
/// multiple of the doubled stride.
pub fn keep_even_rows<T: Copy>(v: &mut Vec<T>) {
    let n = v.len().div_ceil(2);
    for i in 0..n {
        v[i] = v[2 * i];
    }
    v.truncate(n);
}

/// Log-linear histogram of µs values: exact below 2^10, then 512 buckets per power of two
/// (each at most 1/512 of its lower edge wide), up to `u32::MAX`: 12,288 counters.
#[derive(Clone, Debug)]
pub struct DelayHistogram {
    counts: Vec<u64>,
}

const SUB_BITS: u32 = 10;
const HALF: u64 = 1 << (SUB_BITS - 1);

impl DelayHistogram {
    fn new() -> Self {
        DelayHistogram {
            counts: vec![0; ((32 - SUB_BITS + 1) as usize + 1) * HALF as usize],
        }
    }

    #[inline]
    fn index(us: u32) -> usize {
        let v = us as u64;
        if v < 2 * HALF {
            return v as usize;
        }
        // v in [2^e, 2^(e+1)), e ≥ 10: keep its top 10 bits.
        let shift = (63 - v.leading_zeros()) - (SUB_BITS - 1);
        (shift as u64 * HALF + (v >> shift)) as usize
    }

    /// Lower edge of bucket `i`, µs.
    fn lower_edge(i: usize) -> u64 {
        let i = i as u64;
        if i < 2 * HALF {
            return i;
        }
        let shift = i / HALF - 1;
        (HALF + i % HALF) << shift
    }

    #[inline]
    fn add(&mut self, us: u32) {
        self.counts[Self::index(us)] += 1;
    }

    /// The lower edge of the bucket holding the `rank`-th smallest value (1-based), µs.
    fn value_at_rank(&self, rank: u64) -> u64 {
        let mut acc = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            acc += c;
            if acc >= rank {
                return Self::lower_edge(i);
            }
        }
        Self::lower_edge(self.counts.len() - 1)
    }
}

/// Delay samples (RTTs, one-way delays): running count, sum and minimum always, and the
/// samples with their times when `keep` is set, under a row budget ([`Thinning`]). Samples
/// are stored in µs as `u32` (71 minutes at most) to halve the memory of long runs.
#[derive(Clone, Debug)]
pub struct DelayLog {
    /// Keep samples in `t_ns`/`us`.
    pub keep: bool,
    /// Which samples are kept.
    pub thinning: Thinning,
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
    /// Every sample, once thinning has begun (built then from the samples, all still kept).
    hist: Option<Box<DelayHistogram>>,
}

impl DelayLog {
    /// An empty log without a row budget.
    pub fn new(keep: bool) -> Self {
        DelayLog {
            keep,
            thinning: Thinning::default(),
            t_ns: Vec::new(),
            us: Vec::new(),
            count: 0,
            sum_us: 0,
            min_us: u32::MAX,
            hist: None,
        }
    }

    /// Keeps at most `budget` rows (0: every sample).
    pub fn set_budget(&mut self, budget: usize) {
        self.thinning = Thinning::new(budget);
    }

    /// Records `delay` measured at `now`.
    #[inline]
    pub fn record(&mut self, now: SimTime, delay: SimTime) {
        let us = (delay.ns() / 1_000).min(u32::MAX as u64) as u32;
        self.count += 1;
        self.sum_us += us as u64;
        self.min_us = self.min_us.min(us);
        if !self.keep {
            return;
        }
        if let Some(h) = &mut self.hist {
            h.add(us);
        }
        if self.thinning.admit() {
            self.t_ns.push(now.ns());
            self.us.push(us);
            if self.thinning.must_halve(self.us.len()) {
                if self.hist.is_none() {
                    // Stride 1 so far: the kept samples are all the samples.
                    let mut h = Box::new(DelayHistogram::new());
                    self.us.iter().for_each(|&v| h.add(v));
                    self.hist = Some(h);
                }
                keep_even_rows(&mut self.t_ns);
                keep_even_rows(&mut self.us);
            }
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

    /// 95th percentile in ms: [`DelayLog::percentile_ms`] at 95.
    pub fn p95_ms(&self) -> Option<f64> {
        self.percentile_ms(95.0)
    }

    /// Percentile `p` (0 < p ≤ 100) in ms (nearest rank: the ⌈p/100·n⌉-th smallest), if
    /// samples were kept: exact while every sample is kept, from the histogram of every
    /// sample once thinned.
    pub fn percentile_ms(&self, p: f64) -> Option<f64> {
        let q = p / 100.0;
        if let Some(h) = &self.hist {
            let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
            return Some(h.value_at_rank(rank) as f64 / 1e3);
        }
        if self.us.is_empty() {
            return None;
        }
        let mut c = self.us.clone();
        let k = ((q * c.len() as f64).ceil() as usize).clamp(1, c.len()) - 1;
        let (_, v, _) = c.select_nth_unstable(k);
        Some(*v as f64 / 1e3)
    }
}

impl Default for DelayLog {
    fn default() -> Self {
        DelayLog::new(true)
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn occupancy_is_the_mean_and_the_largest_of_its_samples() {
        let mut o = super::Occupancy::default();
        assert_eq!(o.mean(), None);
        for v in [4, 0, 10, 2] {
            o.record(v);
        }
        // (4 + 0 + 10 + 2) / 4 = 4, largest 10.
        assert_eq!((o.mean(), o.max, o.samples), (Some(4.0), 10, 4));
    }

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

    #[test]
    fn thinning_keeps_every_stride_th_sample_under_the_budget() {
        // Budget 4, samples 0..10: kept 0,1,2,3 → halve to 0,2 (stride 2); 4 kept, 6 kept
        // → 0,2,4,6 → halve to 0,4 (stride 4); 8 kept → 0,4,8. Samples 1,3,5,7,9 dropped.
        let mut d = DelayLog::new(true);
        d.set_budget(4);
        for ms in 0..10u64 {
            d.record(SimTime::from_ms(ms), SimTime::from_us(ms));
        }
        assert_eq!(d.us, vec![0, 4, 8]);
        assert_eq!(d.t_ns, vec![0, 4_000_000, 8_000_000]);
        assert_eq!(d.thinning.stride, 4);
        assert_eq!(d.count, 10);
        // The running statistics still cover all ten: mean 4.5 µs, min 0.
        assert_eq!(d.mean_ms(), Some(0.0045));
        assert_eq!(d.min_ms(), Some(0.0));
    }

    #[test]
    fn a_thinned_log_takes_its_p95_from_every_sample() {
        // 1..=2000 µs, budget 100: ⌈0.95·2000⌉ = 1900th smallest = 1900 µs, which lies in
        // the bucket [1898, 1900) + … of width 2 (values 1024..2047 have shift 1), whose
        // lower edge is 1900.
        let mut d = DelayLog::new(true);
        d.set_budget(100);
        for us in 1..=2000u64 {
            d.record(SimTime::ZERO, SimTime::from_us(us));
        }
        assert!(d.us.len() <= 100 && d.us.len() >= 50, "{}", d.us.len());
        assert_eq!(d.p95_ms(), Some(1.9));
        // Median: ⌈0.5·2000⌉ = 1000th smallest = 1000 µs, below 1024 µs where buckets are
        // single values, so exact.
        assert_eq!(d.percentile_ms(50.0), Some(1.0));
    }

    #[test]
    fn percentiles_of_a_full_log_are_nearest_ranks() {
        // 1..=20 ms: ⌈0.5·20⌉ = 10th smallest = 10 ms; ⌈0.01·20⌉ = 1st = 1 ms; 100 → 20 ms.
        let mut d = DelayLog::new(true);
        for ms in (1..=20u64).rev() {
            d.record(SimTime::ZERO, SimTime::from_ms(ms));
        }
        assert_eq!(d.percentile_ms(50.0), Some(10.0));
        assert_eq!(d.percentile_ms(1.0), Some(1.0));
        assert_eq!(d.percentile_ms(100.0), Some(20.0));
        assert_eq!(DelayLog::new(true).percentile_ms(50.0), None);
    }

    #[test]
    fn histogram_buckets_are_contiguous_and_tight() {
        // Every value maps to a bucket whose lower edge is at most the value and within
        // 1/512 of it; bucket indices never decrease with the value.
        let mut last = 0;
        for v in (0u32..5000).chain([65_535, 1 << 20, 123_456_789, u32::MAX]) {
            let i = DelayHistogram::index(v);
            let lo = DelayHistogram::lower_edge(i);
            assert!(
                lo <= v as u64 && (v as u64 - lo) * 512 <= v as u64,
                "{v}: {lo}"
            );
            assert!(i >= last);
            last = i;
        }
        assert!(DelayHistogram::index(u32::MAX) < DelayHistogram::new().counts.len());
    }
}
