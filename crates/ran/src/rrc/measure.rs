//! Layer-3 filtering of a UE's measurements [TS38331 §5.5.3.2]:
//! F_n = (1 − a)·F_{n−1} + a·M_n with a = 1/2^(k/4), k the filterCoefficient; the first
//! measurement sets F_1 = M_1. Filtering is in dB (dBm for RSRP), as TS 38.331 filters
//! the reported quantity.
//!
//! Simplification: TS 38.331 asks the UE to adapt the filter so that its time
//! characteristics stay those of the nominal input period; here `a` applies per
//! measurement at the configured `measurement_period`, so a shorter period filters over a
//! shorter time.

/// The filter's weight of a new measurement: a = 1/2^(k/4).
pub fn filter_weight(k: u8) -> f64 {
    0.5f64.powf(k as f64 / 4.0)
}

/// One filtered quantity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct L3Filter {
    a: f64,
    value: Option<f64>,
}

impl L3Filter {
    /// A filter with filterCoefficient `k` (0: no filtering, F_n = M_n).
    pub fn new(k: u8) -> L3Filter {
        L3Filter {
            a: filter_weight(k),
            value: None,
        }
    }

    /// Takes measurement `m` and returns the filtered value.
    pub fn update(&mut self, m: f64) -> f64 {
        let f = match self.value {
            None => m,
            Some(prev) => (1.0 - self.a) * prev + self.a * m,
        };
        self.value = Some(f);
        f
    }

    /// The filtered value, if any measurement was taken.
    pub fn value(&self) -> Option<f64> {
        self.value
    }

    /// Forgets every measurement (a new serving cell restarts the measurement).
    pub fn reset(&mut self) {
        self.value = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_follows_the_definition() {
        // a = 2^(−k/4): k = 0 → 1, k = 4 → 1/2, k = 8 → 1/4, k = 1 → 2^(−0.25).
        assert_eq!(filter_weight(0), 1.0);
        assert_eq!(filter_weight(4), 0.5);
        assert_eq!(filter_weight(8), 0.25);
        assert!((filter_weight(1) - 0.840_896_415_253_714_5).abs() < 1e-15);
    }

    #[test]
    fn first_measurement_initialises_then_the_recursion_applies() {
        // k = 4, a = 1/2: −80, then −90 → −85, then −100 → −92.5.
        let mut f = L3Filter::new(4);
        assert_eq!(f.value(), None);
        assert_eq!(f.update(-80.0), -80.0);
        assert_eq!(f.update(-90.0), -85.0);
        assert_eq!(f.update(-100.0), -92.5);
        f.reset();
        assert_eq!(f.update(-70.0), -70.0);
    }

    #[test]
    fn k_zero_does_not_filter() {
        let mut f = L3Filter::new(0);
        f.update(-80.0);
        assert_eq!(f.update(-95.5), -95.5);
    }

    #[test]
    fn a_step_decays_geometrically() {
        // After a step from 0 to 10 dB, the gap to 10 shrinks by (1 − a) per measurement:
        // with k = 8 (a = 1/4) it is 10·(3/4)^n after n measurements.
        let mut f = L3Filter::new(8);
        f.update(0.0);
        let mut v = 0.0;
        for _ in 0..5 {
            v = f.update(10.0);
        }
        assert!((10.0 - v - 10.0 * 0.75f64.powi(5)).abs() < 1e-12);
    }
}
