//! Log-normal shadow fading with spatial correlation, and the Gaussian draws the channel uses.
//!
//! Model ([TR38901 §7.4.4], eq. 7.4-5, and Table 7.5-6; [NS3-3GPP]
//! `ThreeGppPropagationLossModel::GetShadowing`, [NS3-MMW-V2] `MmWave3gppPropagationLossModel`):
//! the shadowing S (dB, a *loss*: positive values weaken the link) is a zero-mean Gaussian with
//! standard deviation σ_SF whose autocorrelation over a horizontal displacement Δx is
//! R(Δx) = exp(−|Δx|/d_cor). After each displacement it is updated as the first-order
//! (Gauss–Markov) process
//!
//! ```text
//! S_new = R·S_old + sqrt(1 − R²)·σ·N(0,1),   R = exp(−Δx/d_cor)
//! ```
//!
//! which is exactly the exponential autocorrelation for any sequence of steps, because the
//! correlation coefficients of consecutive steps multiply: exp(−a)·exp(−b) = exp(−(a + b)).
//! A fresh, independent draw is made when the link is created or its LOS/NLOS condition changes
//! (the caller decides; see [`Shadowing::redraw`]).
//!
//! Simplifications:
//! - Like ns-3, the displacement is the change of the horizontal gNB→UE vector between two
//!   evaluations, so a static UE keeps its shadowing forever (no temporal decorrelation).
//! - Only a 1-D Markov process along the UE's path: moving away and coming back to the same
//!   spot does not reproduce the earlier value (a 2-D spatially consistent map would; neither
//!   TR 38.901 §7.4.4's update rule nor ns-3 keep one).

use mmtsim_engine::SimRng;
use rand::Rng;

/// One standard normal N(0, 1) draw (Box–Muller; the second value of the pair is discarded so
/// the draw count per call is fixed: exactly two uniforms).
#[inline]
pub fn std_normal(rng: &mut SimRng) -> f64 {
    std_normal_pair(rng).0
}

/// Two independent standard normal draws from two uniforms (Box–Muller transform).
#[inline]
pub fn std_normal_pair(rng: &mut SimRng) -> (f64, f64) {
    // 1 − U maps [0, 1) onto (0, 1], so ln never sees zero.
    let u1 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random();
    let r = (-2.0 * u1.ln()).sqrt();
    let (s, c) = (std::f64::consts::TAU * u2).sin_cos();
    (r * c, r * s)
}

/// Correlation coefficient between shadowing values `dx_m` apart for decorrelation distance
/// `d_cor_m`: exp(−|Δx|/d_cor). A non-positive `d_cor_m` means no correlation at all.
#[inline]
pub fn correlation(dx_m: f64, d_cor_m: f64) -> f64 {
    if d_cor_m <= 0.0 {
        if dx_m == 0.0 {
            1.0
        } else {
            0.0
        }
    } else {
        (-dx_m.abs() / d_cor_m).exp()
    }
}

/// A spatially correlated log-normal shadowing process (one per gNB–UE link).
#[derive(Clone, Debug)]
pub struct Shadowing {
    /// Standard deviation σ_SF, dB.
    sigma_db: f64,
    /// Decorrelation distance d_cor, m.
    d_cor_m: f64,
    /// Current value, dB of loss.
    value_db: f64,
}

impl Shadowing {
    /// A process with an independent first value S ~ N(0, σ²).
    pub fn new(sigma_db: f64, d_cor_m: f64, rng: &mut SimRng) -> Self {
        let mut s = Shadowing {
            sigma_db,
            d_cor_m,
            value_db: 0.0,
        };
        s.redraw(sigma_db, d_cor_m, rng);
        s
    }

    /// A process that is identically zero (shadowing switched off).
    pub fn off() -> Self {
        Shadowing {
            sigma_db: 0.0,
            d_cor_m: 0.0,
            value_db: 0.0,
        }
    }

    /// Starts afresh with new parameters and an independent draw (new link, or the LOS/NLOS
    /// condition changed: TR 38.901 does not correlate shadowing across conditions).
    pub fn redraw(&mut self, sigma_db: f64, d_cor_m: f64, rng: &mut SimRng) {
        debug_assert!(
            sigma_db >= 0.0,
            "shadowing sigma must be non-negative, got {sigma_db}"
        );
        self.sigma_db = sigma_db;
        self.d_cor_m = d_cor_m;
        self.value_db = sigma_db * std_normal(rng);
    }

    /// Moves the process by a horizontal displacement of `dx_m` metres and returns the new
    /// value, dB. No displacement leaves the value (and the random stream) untouched.
    pub fn advance(&mut self, dx_m: f64, rng: &mut SimRng) -> f64 {
        if dx_m > 0.0 && self.sigma_db > 0.0 {
            let r = correlation(dx_m, self.d_cor_m);
            // 1 − R² computed as −expm1(−2Δx/d) keeps precision for millimetre steps.
            let innov = if self.d_cor_m > 0.0 {
                (-(-2.0 * dx_m / self.d_cor_m).exp_m1()).sqrt()
            } else {
                1.0
            };
            self.value_db = r * self.value_db + innov * self.sigma_db * std_normal(rng);
        }
        self.value_db
    }

    /// Current shadowing loss, dB.
    pub fn value_db(&self) -> f64 {
        self.value_db
    }

    /// Standard deviation σ_SF, dB.
    pub fn sigma_db(&self) -> f64 {
        self.sigma_db
    }

    /// Decorrelation distance, m.
    pub fn decorrelation_m(&self) -> f64 {
        self.d_cor_m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn rng(seed: u64) -> SimRng {
        SimRng::seed_from_u64(seed)
    }

    /// Sample standard deviation and lag autocorrelations of a series.
    fn stats(x: &[f64], lags: &[usize]) -> (f64, f64, Vec<f64>) {
        let n = x.len() as f64;
        let mean = x.iter().sum::<f64>() / n;
        let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
        let acf = lags
            .iter()
            .map(|&k| {
                let m = x.len() - k;
                let c: f64 = (0..m).map(|i| (x[i] - mean) * (x[i + k] - mean)).sum();
                c / m as f64 / var
            })
            .collect();
        (mean, var.sqrt(), acf)
    }

    #[test]
    fn std_normal_has_zero_mean_and_unit_variance() {
        // 200k draws: the standard error of the mean is 1/sqrt(2e5) = 0.0022 and of the
        // variance sqrt(2/2e5) = 0.0032; tolerances are ≥ 4.5 standard errors.
        let mut r = rng(1);
        let x: Vec<f64> = (0..200_000).map(|_| std_normal(&mut r)).collect();
        let (mean, sd, _) = stats(&x, &[]);
        assert!(mean.abs() < 0.01, "mean {mean}");
        assert!((sd - 1.0).abs() < 0.0075, "sd {sd}");
        // P(|N| > 1.96) = 0.05; binomial SE sqrt(0.05·0.95/2e5) = 0.00049.
        let tail = x.iter().filter(|v| v.abs() > 1.96).count() as f64 / x.len() as f64;
        assert!((tail - 0.05).abs() < 0.0025, "tail {tail}");
    }

    #[test]
    fn shadowing_has_sigma_and_exponential_autocorrelation() {
        // UMi NLOS: σ = 7.82 dB, d_cor = 13 m; UE steps 1 m, 200k steps (fixed seed).
        // Per-step R = exp(−1/13) = 0.9260. Effective sample count for the variance:
        // N·(1 − R)/(1 + R) ≈ 200000·0.0740/1.926 ≈ 7.7k → relative SE of σ ≈ 1/sqrt(2·7.7k)
        // = 0.8 %; tolerance 4 %. Expected ACF at 5/13/26 m: exp(−5/13) = 0.6807,
        // exp(−1) = 0.3679, exp(−2) = 0.1353; Bartlett SE ≈ 0.006–0.009; tolerance 0.035.
        let mut r = rng(7);
        let mut s = Shadowing::new(7.82, 13.0, &mut r);
        let x: Vec<f64> = (0..200_000).map(|_| s.advance(1.0, &mut r)).collect();
        let (mean, sd, acf) = stats(&x, &[5, 13, 26]);
        // SE of the mean of an AR(1) series: σ·sqrt((1 + R)/((1 − R)·N)) = 7.82·0.0114 = 0.09 dB.
        assert!(mean.abs() < 0.45, "mean {mean}");
        assert!((sd / 7.82 - 1.0).abs() < 0.04, "sd {sd}");
        for (got, want) in acf.iter().zip([0.6807, 0.3679, 0.1353]) {
            assert!((got - want).abs() < 0.035, "acf {got} vs {want}");
        }
    }

    #[test]
    fn many_small_steps_compose_to_the_same_correlation() {
        // 1 ms steps at 10 m/s = 1 cm each; d_cor = 10 m. The correlation over 10 m
        // (1000 steps) must be exp(−1) = 0.3679 whatever the step size. 2M steps give
        // ~2000 decorrelation lengths → SE of the ACF ≈ 0.03; tolerance 0.1.
        let mut r = rng(11);
        let mut s = Shadowing::new(4.0, 10.0, &mut r);
        let x: Vec<f64> = (0..2_000_000).map(|_| s.advance(0.01, &mut r)).collect();
        let (_, sd, acf) = stats(&x, &[1000]);
        assert!((acf[0] - 0.3679).abs() < 0.1, "acf {}", acf[0]);
        assert!((sd / 4.0 - 1.0).abs() < 0.1, "sd {sd}");
    }

    #[test]
    fn no_displacement_means_no_change() {
        let mut r = rng(3);
        let mut s = Shadowing::new(5.8, 10.0, &mut r);
        let v = s.value_db();
        assert_eq!(s.advance(0.0, &mut r), v);
        assert_eq!(s.advance(0.0, &mut r), v);
        assert!(v != 0.0);
    }

    #[test]
    fn redraw_is_independent_of_the_old_value() {
        // Redraw after each step: successive values must be uncorrelated (|ACF(1)| small;
        // SE 1/sqrt(50k) = 0.0045, tolerance 0.03).
        let mut r = rng(5);
        let mut s = Shadowing::new(6.0, 50.0, &mut r);
        let x: Vec<f64> = (0..50_000)
            .map(|_| {
                s.advance(0.1, &mut r);
                s.redraw(6.0, 50.0, &mut r);
                s.value_db()
            })
            .collect();
        let (_, sd, acf) = stats(&x, &[1]);
        assert!(acf[0].abs() < 0.03, "acf {}", acf[0]);
        assert!((sd / 6.0 - 1.0).abs() < 0.03, "sd {sd}");
    }

    #[test]
    fn off_is_identically_zero() {
        let mut r = rng(1);
        let mut s = Shadowing::off();
        assert_eq!(s.advance(100.0, &mut r), 0.0);
    }
}
