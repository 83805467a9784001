//! Time-correlated small-scale fading of one gNB–UE link, as a flat (wideband) power gain.
//!
//! # Model
//! The complex channel gain is the sum of a fixed specular part and a diffuse part,
//!
//! ```text
//! h(t) = sqrt(K/(K+1)) + sqrt(1/(K+1))·g(t),     g ~ CN(0, 1),   E|h|² = 1,
//! ```
//!
//! so |h|² is Rician with factor K in LOS and Rayleigh (K = 0) in NLOS, with unit mean power:
//! fading redistributes power in time but never changes the average link budget. The diffuse
//! part is a complex first-order Gauss–Markov process,
//!
//! ```text
//! g(t + Δt) = ρ·g(t) + sqrt(1 − ρ²)·w,   w ~ CN(0, 1),   ρ = exp(−Δt/T_c),
//! ```
//!
//! which has the autocorrelation E[g(t)·g*(t + τ)] = exp(−|τ|/T_c) for *any* sequence of update
//! intervals (the ρ of consecutive steps multiply), so the result does not depend on how often
//! the caller updates. The coherence time follows the Doppler frequency f_D = v·f_c/c:
//! T_c is chosen so that exp(−τ/T_c) crosses 0.5 at the same lag as Clarke's (Jakes')
//! autocorrelation J0(2π f_D τ), i.e. T_c = x½ / (2π·f_D·ln 2) = 0.349 / f_D with
//! J0(x½) = 0.5, x½ = 1.52114. (A first-order recursion with ρ = J0(2π f_D Δt) would
//! instead make the correlation depend on the update interval.)
//!
//! K-factors: the caller sets K from [TR38901 Table 7.5-6] (mean K = 9 dB for UMi and UMa LOS;
//! the spread σ_K is not drawn) and K = 0 (−∞ dB) in NLOS; see
//! `PathLossModel::rician_k_db`.
//!
//! # How this differs from ns-3 mmWave v1 ([NS3-MMW-V1] `MmWaveBeamforming`)
//! ns-3 v1 builds a 20-path channel (delays 0–50 ns, per-path Doppler factors 0.42–0.79)
//! from one of 100 pre-generated spatial-signature instances, projects it onto fixed
//! beamforming vectors, evaluates the gain *per 13.9 MHz chunk* (frequency selective over the
//! 1 GHz band), and re-draws the instance every 100 ms (`LongTermUpdatePeriod`). Differences:
//! - Here the gain is flat over the band. ns-3's error model averages mutual information over
//!   72 chunks that fade partly independently, so its *effective* SINR fluctuates much less
//!   than one chunk's; a flat Rayleigh process is therefore pessimistic in NLOS.
//! - With narrow, aligned beams the received power is dominated by one or a few clusters, so
//!   the effective fading after beamforming is milder than the omni-directional Rayleigh/
//!   Rician statistics suggest. A scenario can express that with a larger K (a K-factor in
//!   NLOS too), see `LinkChannel::set_k_factors_db`.
//! - There is no 100 ms re-draw of the spatial structure: the process is continuous in time.
//!   A static UE (v = 0) has f_D = 0 and a frozen fading value, as in ns-3 (where a static UE
//!   changes only at the 100 ms re-draws).
//! - The specular (LOS) component keeps a fixed phase instead of rotating at its own Doppler
//!   shift; with a flat channel that rotation would not change |h|² anyway.
//!
//! Cost: one exponential and two Gaussian draws (one Box–Muller pair) per update; no allocation.

use crate::shadowing::std_normal_pair;
use mmtsim_engine::SimRng;

/// Speed of light in vacuum, m/s (SI definition).
pub const SPEED_OF_LIGHT_MPS: f64 = 299_792_458.0;

/// x½: the first argument where Clarke's autocorrelation J0(x) equals 0.5 (computed by
/// bisection of the J0 power series; checked against `libm::j0` in the tests).
pub const CLARKE_HALF_CORRELATION_ARG: f64 = 1.521_144_057_668_765;

/// Maximum Doppler frequency f_D = v·f_c/c, Hz, for a UE at `speed_mps` and carrier `fc_hz`.
#[inline]
pub fn doppler_hz(speed_mps: f64, fc_hz: f64) -> f64 {
    speed_mps.abs() * fc_hz / SPEED_OF_LIGHT_MPS
}

/// Coherence time T_c of the exponential autocorrelation for Doppler `doppler_hz`, s:
/// x½ / (2π·f_D·ln 2). Infinite for a static channel (f_D = 0).
#[inline]
pub fn coherence_time_s(doppler_hz: f64) -> f64 {
    if doppler_hz <= 0.0 {
        f64::INFINITY
    } else {
        CLARKE_HALF_CORRELATION_ARG / (std::f64::consts::TAU * doppler_hz * std::f64::consts::LN_2)
    }
}

/// Correlation coefficient of the diffuse complex gain over `dt_s` seconds at Doppler
/// `doppler_hz`: exp(−Δt/T_c) = exp(−Δt·2π·f_D·ln 2 / x½).
#[inline]
pub fn correlation(dt_s: f64, doppler_hz: f64) -> f64 {
    if dt_s <= 0.0 || doppler_hz <= 0.0 {
        return 1.0;
    }
    (-dt_s * std::f64::consts::TAU * doppler_hz * std::f64::consts::LN_2
        / CLARKE_HALF_CORRELATION_ARG)
        .exp()
}

/// Lowest power gain reported, linear (−100 dB): keeps `gain_db` finite in the (probability
/// zero, but numerically possible) case g = −specular exactly.
const MIN_POWER_GAIN: f64 = 1e-10;

/// The fading state of one link: a Rician/Rayleigh power gain with unit mean, advanced in time.
#[derive(Clone, Debug)]
pub struct Fading {
    /// Diffuse part g, real component (g ~ CN(0,1): each component has variance 1/2).
    g_re: f64,
    /// Diffuse part g, imaginary component.
    g_im: f64,
    /// Specular amplitude sqrt(K/(K+1)).
    a_spec: f64,
    /// Diffuse amplitude sqrt(1/(K+1)).
    a_diff: f64,
}

impl Fading {
    /// A Rayleigh process (K = 0) started from its stationary distribution.
    pub fn new(rng: &mut SimRng) -> Self {
        let (x, y) = std_normal_pair(rng);
        Fading {
            g_re: x * std::f64::consts::FRAC_1_SQRT_2,
            g_im: y * std::f64::consts::FRAC_1_SQRT_2,
            a_spec: 0.0,
            a_diff: 1.0,
        }
    }

    /// Sets the Rician K-factor, dB (`f64::NEG_INFINITY` for Rayleigh). The diffuse state is
    /// kept, so a LOS↔NLOS change re-weights the same process instead of jumping.
    pub fn set_k_factor_db(&mut self, k_db: f64) {
        let k = if k_db == f64::NEG_INFINITY {
            0.0
        } else {
            10f64.powf(k_db / 10.0)
        };
        self.a_spec = (k / (k + 1.0)).sqrt();
        self.a_diff = (1.0 / (k + 1.0)).sqrt();
    }

    /// Advances the diffuse part by `dt_s` seconds at Doppler `doppler_hz`.
    pub fn advance(&mut self, dt_s: f64, doppler_hz: f64, rng: &mut SimRng) {
        let rho = correlation(dt_s, doppler_hz);
        if rho >= 1.0 {
            return;
        }
        // sqrt(1 − ρ²)·CN(0,1): each component N(0, (1 − ρ²)/2).
        let innov = ((1.0 - rho * rho) * 0.5).sqrt();
        let (x, y) = std_normal_pair(rng);
        self.g_re = rho * self.g_re + innov * x;
        self.g_im = rho * self.g_im + innov * y;
    }

    /// The diffuse complex gain g (re, im); E|g|² = 1.
    pub fn diffuse(&self) -> (f64, f64) {
        (self.g_re, self.g_im)
    }

    /// Power gain |h|², linear, mean 1.
    pub fn power_gain(&self) -> f64 {
        let re = self.a_spec + self.a_diff * self.g_re;
        let im = self.a_diff * self.g_im;
        (re * re + im * im).max(MIN_POWER_GAIN)
    }

    /// Power gain, dB (positive = constructive).
    pub fn gain_db(&self) -> f64 {
        10.0 * self.power_gain().log10()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn rng(seed: u64) -> SimRng {
        SimRng::seed_from_u64(seed)
    }

    #[test]
    fn half_correlation_constant_matches_clarke() {
        // J0(x½) = 0.5 by definition; the exponential model crosses 0.5 at the same lag.
        assert!((libm::j0(CLARKE_HALF_CORRELATION_ARG) - 0.5).abs() < 1e-12);
        let fd = doppler_hz(1.0, 28e9); // 28e9/299792458 = 93.398 Hz
        assert!((fd - 93.398).abs() < 1e-3, "{fd}");
        let tc = coherence_time_s(fd); // 0.349273/93.398 = 3.7396 ms
        assert!((tc - 3.7396e-3).abs() < 1e-6, "{tc}");
        let tau_half = tc * std::f64::consts::LN_2;
        assert!((correlation(tau_half, fd) - 0.5).abs() < 1e-12);
        assert!((libm::j0(std::f64::consts::TAU * fd * tau_half) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn static_channel_does_not_change() {
        let mut r = rng(1);
        let mut f = Fading::new(&mut r);
        let g = f.diffuse();
        f.advance(1.0, 0.0, &mut r);
        assert_eq!(f.diffuse(), g);
        assert_eq!(correlation(0.0, 100.0), 1.0);
    }

    #[test]
    fn fading_has_unit_mean_power_rayleigh_and_rician() {
        // Independent samples (Δt = 1 s at f_D = 93 Hz → ρ = exp(−267) = 0). Rayleigh power is
        // Exp(1): variance 1, SE of the mean with 100k samples = 0.0032; tolerance 0.015.
        // Rician K = 9 dB (7.943): var |h|² = (1 + 2K)/(K + 1)² = 16.89/79.98 = 0.211,
        // SE 0.0015; tolerance 0.01. P(|h|² < 0.1) for Rayleigh = 1 − e^−0.1 = 0.0952.
        for (k_db, tol) in [(f64::NEG_INFINITY, 0.015), (9.0, 0.01)] {
            let mut r = rng(2);
            let mut f = Fading::new(&mut r);
            f.set_k_factor_db(k_db);
            let n = 100_000;
            let mut sum = 0.0;
            let mut sum2 = 0.0;
            let mut deep = 0usize;
            for _ in 0..n {
                f.advance(1.0, 93.4, &mut r);
                let p = f.power_gain();
                sum += p;
                sum2 += p * p;
                deep += (p < 0.1) as usize;
            }
            let mean = sum / n as f64;
            let var = sum2 / n as f64 - mean * mean;
            assert!((mean - 1.0).abs() < tol, "K {k_db}: mean {mean}");
            if k_db == f64::NEG_INFINITY {
                assert!((var - 1.0).abs() < 0.05, "Rayleigh var {var}");
                let frac = deep as f64 / n as f64; // SE 0.0009
                assert!((frac - 0.0952).abs() < 0.005, "deep-fade fraction {frac}");
            } else {
                assert!((var - 0.211).abs() < 0.02, "Rician var {var}");
            }
        }
    }

    #[test]
    fn fading_has_the_configured_time_correlation() {
        // 1 m/s at 28 GHz: f_D = 93.398 Hz, T_c = 3.7396 ms. Steps of 0.25 ms, 400k steps
        // (100 s ≈ 26.7k coherence times). Expected Re E[g(t) g*(t+τ)] = exp(−τ/T_c):
        // τ = 1 ms → exp(−0.26741) = 0.7654; 3.7396 ms → exp(−1) = 0.3679; 8 ms →
        // exp(−2.1393) = 0.1177. SE ≈ sqrt(T_c/(duration)) ≈ 0.006–0.01; tolerance 0.035.
        let fd = doppler_hz(1.0, 28e9);
        let tc = coherence_time_s(fd);
        let dt = 0.25e-3;
        let mut r = rng(3);
        let mut f = Fading::new(&mut r);
        let n = 400_000;
        let mut re = Vec::with_capacity(n);
        let mut im = Vec::with_capacity(n);
        for _ in 0..n {
            f.advance(dt, fd, &mut r);
            let (a, b) = f.diffuse();
            re.push(a);
            im.push(b);
        }
        let power: f64 = (0..n).map(|i| re[i] * re[i] + im[i] * im[i]).sum::<f64>() / n as f64;
        assert!((power - 1.0).abs() < 0.05, "E|g|² {power}");
        for (lag_s, want) in [(1e-3, 0.7654), (tc, 0.3679), (8e-3, 0.1177)] {
            let k = (lag_s / dt).round() as usize;
            let m = n - k;
            let c: f64 = (0..m)
                .map(|i| re[i] * re[i + k] + im[i] * im[i + k])
                .sum::<f64>();
            let got = c / m as f64 / power;
            let exact = (-(k as f64 * dt) / tc).exp();
            assert!((exact - want).abs() < 0.002, "hand value {want} vs {exact}");
            assert!((got - want).abs() < 0.035, "lag {lag_s}: {got} vs {want}");
        }
    }

    #[test]
    fn k_factor_change_keeps_the_diffuse_state() {
        let mut r = rng(4);
        let mut f = Fading::new(&mut r);
        let g = f.diffuse();
        let p_rayleigh = f.power_gain();
        // Rayleigh: |h|² = |g|².
        assert!((p_rayleigh - (g.0 * g.0 + g.1 * g.1)).abs() < 1e-12);
        f.set_k_factor_db(9.0);
        assert_eq!(f.diffuse(), g);
        // K = 7.943: |sqrt(K/(K+1)) + sqrt(1/(K+1))·g|².
        let k = 10f64.powf(0.9);
        let re = (k / (k + 1.0)).sqrt() + (1.0 / (k + 1.0)).sqrt() * g.0;
        let im = (1.0 / (k + 1.0)).sqrt() * g.1;
        assert!((f.power_gain() - (re * re + im * im)).abs() < 1e-12);
    }
}
