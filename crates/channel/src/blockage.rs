//! Blockage: 3GPP TR 38.901 §7.6.4.1 blockage model A (self-blocking by the user's body plus
//! moving non-self blockers), and forced outage windows.
//!
//! # Model A ([TR38901 §7.6.4.1], Tables 7.6.4.1-1…4; [NS3-MMW-V2] `CalAttenuationOfBlockage`)
//! - **Self-blocking**: a rectangular angular region in the UT's local frame (portrait:
//!   φ′_sb = 260°, x_sb = 120°, θ′_sb = 100°, y_sb = 80°; landscape: 40°, 160°, 110°, 75°).
//!   A path arriving inside it loses [`SELF_BLOCKING_LOSS_DB`] = 30 dB.
//! - **Non-self blocking**: K_block = 4 regions in global coordinates, centre φ_k ~ U(0°, 360°),
//!   θ_k = 90°, widths x_k ~ U(5°, 15°), y_k = 5°, at r = 10 m from the UT (UMi/UMa; InH:
//!   x_k ~ U(15°, 45°), y_k ~ U(5°, 15°), r = 2 m, see [`BlockageParams::indoor`]). A path with
//!   |φ_AOA − φ_k| < x_k and |θ_ZOA − θ_k| < y_k loses
//!   L = −20·log10(1 − (F_A1 + F_A2)(F_Z1 + F_Z2)) (knife-edge diffraction, eq. 7.6-22…27, signs
//!   of Table 7.6.4.1-3); about 9.8 dB at the centre of a 10°×5° blocker at 28 GHz.
//! - **Consistency**: each centre is a uniform variable with autocorrelation
//!   R(Δx, Δt) = exp(−(|Δx|/d_corr + |Δt|/t_corr)), t_corr = d_corr/v_blocker (eq. 7.6-28;
//!   d_corr = 10 m outdoor, 5 m O2I/InH). It is generated as φ_k = 360°·Φ(g_k), with g_k a
//!   Gauss–Markov process having exactly that exponential correlation and Φ the normal CDF.
//!
//! # Simplifications and deviations
//! - mmtsim has no clusters: blockage applies to the **direct gNB→UE direction** (the
//!   direction an aligned beam points to), in LOS and NLOS alike. TR 38.901 attenuates every
//!   cluster separately; the strongest cluster of an NLOS link does not in general arrive from
//!   the gNB's direction.
//! - The UT frame is the global frame rotated by a fixed bearing (`ue_bearing_deg`; 0 = aligned,
//!   as ns3-mmwave V2 which compares cluster angles in global coordinates directly). No tilt.
//! - The uniform obtained from Φ(g) has a correlation slightly below that of g
//!   ((6/π)·asin(ρ/2) instead of ρ, at most 0.018 lower). ns3-mmwave V2 applies an empirical
//!   polynomial correction measured at the time since the channel was created; this code keeps
//!   the exact exponential on g so the correlation does not depend on the update interval.
//! - Angle differences are wrapped to (−180°, 180°] (ns3-mmwave compares raw [0°, 360°]
//!   values, so a blocker centred near 0° never covers arrivals near 360°).
//! - The blocker widths x_k, y_k are drawn once per link; TR 38.901 leaves their time
//!   evolution open and ns3-mmwave also draws them once.
//! - Model B (geometric screens) is not implemented.
//!
//! # Outages
//! [`Outages`] are forced "no signal at all" windows (the X-TCP outage scenario's 1 s gap),
//! applied by the cell on top of any channel model.

use crate::fading::SPEED_OF_LIGHT_MPS;
use crate::geometry::Vec3;
use crate::shadowing::{std_normal, std_normal_pair};
use mmtsim_engine::{SimRng, SimTime};
use rand::Rng;

/// Attenuation of a path inside the self-blocking region, dB (TR 38.901 §7.6.4.1 step c).
pub const SELF_BLOCKING_LOSS_DB: f64 = 30.0;

/// How the user holds the device (TR 38.901 Table 7.6.4.1-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SelfBlockingMode {
    /// Landscape (e.g. video, gaming): φ′ 40°, x 160°, θ′ 110°, y 75°.
    Landscape,
    /// Portrait (one hand, e.g. browsing): φ′ 260°, x 120°, θ′ 100°, y 80°.
    Portrait,
}

/// A rectangular angular region in the UT frame, degrees.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelfBlockingRegion {
    /// Centre azimuth φ′_sb, degrees.
    pub phi_deg: f64,
    /// Azimuth span x_sb, degrees.
    pub x_deg: f64,
    /// Centre zenith θ′_sb, degrees.
    pub theta_deg: f64,
    /// Zenith span y_sb, degrees.
    pub y_deg: f64,
}

impl SelfBlockingMode {
    /// The region of this mode (TR 38.901 Table 7.6.4.1-1).
    pub fn region(&self) -> SelfBlockingRegion {
        match self {
            SelfBlockingMode::Portrait => SelfBlockingRegion {
                phi_deg: 260.0,
                x_deg: 120.0,
                theta_deg: 100.0,
                y_deg: 80.0,
            },
            SelfBlockingMode::Landscape => SelfBlockingRegion {
                phi_deg: 40.0,
                x_deg: 160.0,
                theta_deg: 110.0,
                y_deg: 75.0,
            },
        }
    }
}

/// Self-blocking loss, dB, of a path arriving from azimuth `phi_local_deg` and zenith
/// `theta_local_deg` in the UT frame: 30 dB if |φ′ − φ′_sb| < x_sb/2 and |θ′ − θ′_sb| < y_sb/2,
/// else 0.
pub fn self_blocking_db(mode: SelfBlockingMode, phi_local_deg: f64, theta_local_deg: f64) -> f64 {
    let r = mode.region();
    if wrap_deg(phi_local_deg - r.phi_deg).abs() < r.x_deg / 2.0
        && (theta_local_deg - r.theta_deg).abs() < r.y_deg / 2.0
    {
        SELF_BLOCKING_LOSS_DB
    } else {
        0.0
    }
}

/// Non-self-blocking loss, dB, of one blocker (TR 38.901 eq. 7.6-22…27, Table 7.6.4.1-3) for a
/// path arriving `d_phi_deg` = φ_AOA − φ_k and `d_theta_deg` = θ_ZOA − θ_k away from the
/// blocker's centre; blocker spans `x_k_deg` × `y_k_deg`, at `r_m` from the UT; wavelength
/// `wavelength_m`. Zero outside |Δφ| < x_k, |Δθ| < y_k.
pub fn non_self_blocking_db(
    d_phi_deg: f64,
    d_theta_deg: f64,
    x_k_deg: f64,
    y_k_deg: f64,
    r_m: f64,
    wavelength_m: f64,
) -> f64 {
    if d_phi_deg.abs() >= x_k_deg || d_theta_deg.abs() >= y_k_deg {
        return 0.0;
    }
    let k = std::f64::consts::PI / wavelength_m * r_m;
    // F = atan(±(π/2)·sqrt((π/λ)·r·(1/cos(angle) − 1)))/π; angles in degrees here.
    let f = |angle_deg: f64, sign: f64| {
        let a = angle_deg.to_radians();
        let s = (k * (1.0 / a.cos() - 1.0)).max(0.0).sqrt();
        (sign * std::f64::consts::FRAC_PI_2 * s).atan() / std::f64::consts::PI
    };
    // Table 7.6.4.1-3: the edge beyond which the arrival lies gets "−", every other "+".
    let sign_a1 = if x_k_deg / 2.0 < d_phi_deg { -1.0 } else { 1.0 };
    let sign_a2 = if d_phi_deg <= -x_k_deg / 2.0 {
        -1.0
    } else {
        1.0
    };
    let sign_z1 = if y_k_deg / 2.0 < d_theta_deg {
        -1.0
    } else {
        1.0
    };
    let sign_z2 = if d_theta_deg <= -y_k_deg / 2.0 {
        -1.0
    } else {
        1.0
    };
    let fa = f(d_phi_deg - x_k_deg / 2.0, sign_a1) + f(d_phi_deg + x_k_deg / 2.0, sign_a2);
    let fz = f(d_theta_deg - y_k_deg / 2.0, sign_z1) + f(d_theta_deg + y_k_deg / 2.0, sign_z2);
    -20.0 * (1.0 - fa * fz).log10()
}

/// Wraps an angle difference to (−180°, 180°].
#[inline]
fn wrap_deg(a: f64) -> f64 {
    let w = a.rem_euclid(360.0);
    if w > 180.0 {
        w - 360.0
    } else {
        w
    }
}

/// Standard normal CDF Φ(g) = erfc(−g/√2)/2.
#[inline]
fn normal_cdf(g: f64) -> f64 {
    0.5 * libm::erfc(-g * std::f64::consts::FRAC_1_SQRT_2)
}

/// Parameters of blockage model A for one link. [`Default`] is the UMi/UMa outdoor set with a
/// portrait-mode user and ns3-mmwave V2's defaults (4 blockers moving at 1 m/s).
#[derive(Clone, Debug, PartialEq)]
pub struct BlockageParams {
    /// Self-blocking mode, or `None` for no self-blocking.
    pub self_blocking: Option<SelfBlockingMode>,
    /// Number of non-self blockers K_block (TR 38.901: 4; may be raised for dense crowds).
    pub num_blockers: u32,
    /// Range of the uniform azimuth span x_k, degrees (outdoor 5–15).
    pub blocker_width_deg: (f64, f64),
    /// Range of the uniform zenith span y_k, degrees (outdoor 5–5, i.e. fixed 5).
    pub blocker_height_deg: (f64, f64),
    /// UT–blocker distance r, m (outdoor 10).
    pub blocker_distance_m: f64,
    /// Blocker speed v, m/s: t_corr = d_corr / v; 0 = blockers move only with the UE
    /// (ns3-mmwave V2 `BlockerSpeed` default 1).
    pub blocker_speed_mps: f64,
    /// Spatial correlation distance d_corr of the blocker centres, m (Table 7.6.4.1-4:
    /// 10 outdoor LOS/NLOS, 5 O2I and InH).
    pub corr_distance_m: f64,
    /// Bearing of the UT's local x axis, degrees counter-clockwise from global x (east).
    pub ue_bearing_deg: f64,
}

impl Default for BlockageParams {
    fn default() -> Self {
        BlockageParams::outdoor()
    }
}

impl BlockageParams {
    /// UMi/UMa/RMa blockers (Table 7.6.4.1-2), portrait self-blocking, d_corr 10 m, 1 m/s.
    pub fn outdoor() -> Self {
        BlockageParams {
            self_blocking: Some(SelfBlockingMode::Portrait),
            num_blockers: 4,
            blocker_width_deg: (5.0, 15.0),
            blocker_height_deg: (5.0, 5.0),
            blocker_distance_m: 10.0,
            blocker_speed_mps: 1.0,
            corr_distance_m: 10.0,
            ue_bearing_deg: 0.0,
        }
    }

    /// InH blockers (Table 7.6.4.1-2): x_k 15–45°, y_k 5–15°, r = 2 m; d_corr 5 m.
    pub fn indoor() -> Self {
        BlockageParams {
            blocker_width_deg: (15.0, 45.0),
            blocker_height_deg: (5.0, 15.0),
            blocker_distance_m: 2.0,
            corr_distance_m: 5.0,
            ..BlockageParams::outdoor()
        }
    }
}

/// One non-self blocker.
#[derive(Clone, Copy, Debug)]
struct Blocker {
    /// Latent Gaussian whose CDF value is the centre azimuth / 360°.
    latent: f64,
    /// Azimuth span x_k, degrees.
    x_deg: f64,
    /// Zenith span y_k, degrees.
    y_deg: f64,
}

/// Zenith centre θ_k of every non-self blocker, degrees (Table 7.6.4.1-2).
const BLOCKER_THETA_DEG: f64 = 90.0;

/// The blockage state of one link (model A), advanced with the UE's motion and time.
#[derive(Clone, Debug)]
pub struct Blockage {
    /// Parameters.
    params: BlockageParams,
    /// Carrier wavelength λ = c/f_c, m.
    wavelength_m: f64,
    /// The K non-self blockers (allocated once).
    blockers: Vec<Blocker>,
    /// Time and UE horizontal position at the previous update.
    last: Option<(SimTime, f64, f64)>,
}

impl Blockage {
    /// Draws the blockers of a new link at carrier `fc_hz`.
    pub fn new(params: &BlockageParams, fc_hz: f64, rng: &mut SimRng) -> Self {
        let uniform = |rng: &mut SimRng, (lo, hi): (f64, f64)| lo + (hi - lo) * rng.random::<f64>();
        let blockers = (0..params.num_blockers)
            .map(|_| Blocker {
                latent: std_normal(rng),
                x_deg: uniform(rng, params.blocker_width_deg),
                y_deg: uniform(rng, params.blocker_height_deg),
            })
            .collect();
        Blockage {
            params: params.clone(),
            wavelength_m: SPEED_OF_LIGHT_MPS / fc_hz,
            blockers,
            last: None,
        }
    }

    /// Moves the blockers to time `now` (non-decreasing) for a UE at `ue`, and returns the
    /// blockage loss of the gNB→UE direction, dB.
    pub fn update(&mut self, now: SimTime, gnb: Vec3, ue: Vec3, rng: &mut SimRng) -> f64 {
        if let Some((t0, x0, y0)) = self.last {
            let dx = ((ue.x - x0).powi(2) + (ue.y - y0).powi(2)).sqrt();
            let dt_s = now.saturating_sub(t0).secs_f64();
            let d = self.params.corr_distance_m;
            // |Δx|/d_corr + |Δt|/t_corr with t_corr = d_corr/v.
            let e = if d > 0.0 {
                (dx + dt_s * self.params.blocker_speed_mps) / d
            } else {
                f64::INFINITY
            };
            if e > 0.0 {
                let rho = (-e).exp();
                let innov = (-(-2.0 * e).exp_m1()).sqrt();
                // Both values of each Box–Muller pair are used: two blockers per pair.
                for pair in self.blockers.chunks_mut(2) {
                    let (n0, n1) = std_normal_pair(rng);
                    pair[0].latent = rho * pair[0].latent + innov * n0;
                    if let Some(b) = pair.get_mut(1) {
                        b.latent = rho * b.latent + innov * n1;
                    }
                }
            }
        }
        self.last = Some((now, ue.x, ue.y));
        self.loss_db(gnb, ue)
    }

    /// Blockage loss of the gNB→UE direction with the blockers where they are now, dB.
    pub fn loss_db(&self, gnb: Vec3, ue: Vec3) -> f64 {
        let (phi, theta) = arrival_angles_deg(gnb, ue);
        let mut loss = match self.params.self_blocking {
            Some(mode) => self_blocking_db(mode, phi - self.params.ue_bearing_deg, theta),
            None => 0.0,
        };
        for (k, b) in self.blockers.iter().enumerate() {
            let d_theta = theta - BLOCKER_THETA_DEG;
            if d_theta.abs() >= b.y_deg {
                continue; // the common case for short links: the path passes above the blockers
            }
            let d_phi = wrap_deg(phi - self.blocker_azimuth_deg(k));
            loss += non_self_blocking_db(
                d_phi,
                d_theta,
                b.x_deg,
                b.y_deg,
                self.params.blocker_distance_m,
                self.wavelength_m,
            );
        }
        loss
    }

    /// Current centre azimuth φ_k of blocker `k`, degrees in [0, 360).
    pub fn blocker_azimuth_deg(&self, k: usize) -> f64 {
        (360.0 * normal_cdf(self.blockers[k].latent)).rem_euclid(360.0)
    }

    /// Number of non-self blockers.
    pub fn num_blockers(&self) -> usize {
        self.blockers.len()
    }
}

/// Azimuth (degrees, from global x, counter-clockwise) and zenith (degrees from vertical) at
/// which the direct path from `gnb` arrives at `ue`, i.e. the direction from the UE to the gNB.
pub fn arrival_angles_deg(gnb: Vec3, ue: Vec3) -> (f64, f64) {
    let (dx, dy, dz) = (gnb.x - ue.x, gnb.y - ue.y, gnb.z - ue.z);
    let d = (dx * dx + dy * dy + dz * dz).sqrt();
    let phi = dy.atan2(dx).to_degrees();
    let theta = if d > 0.0 {
        (dz / d).clamp(-1.0, 1.0).acos().to_degrees()
    } else {
        90.0
    };
    (phi, theta)
}

/// Forced outage windows `[start, end)`: while one is active the cell has no signal at all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outages {
    /// Sorted, non-overlapping, non-empty half-open windows.
    windows: Vec<(SimTime, SimTime)>,
}

impl Outages {
    /// Outages from windows `(start, end)`, each active for start ≤ t < end. Windows may come
    /// in any order and overlap (they are merged); empty ones (start == end) are dropped.
    ///
    /// Panics if a window ends before it starts (the scenario layer validates this first).
    pub fn new(mut windows: Vec<(SimTime, SimTime)>) -> Self {
        for &(s, e) in &windows {
            assert!(s <= e, "outage window ends ({e}) before it starts ({s})");
        }
        windows.retain(|&(s, e)| s < e);
        windows.sort_unstable();
        let mut merged: Vec<(SimTime, SimTime)> = Vec::with_capacity(windows.len());
        for (s, e) in windows {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        Outages { windows: merged }
    }

    /// No outages.
    pub fn none() -> Self {
        Outages::default()
    }

    /// True while `t` is inside a window (start ≤ t < end).
    pub fn active(&self, t: SimTime) -> bool {
        // Index of the first window starting after t; the one before it may contain t.
        let i = self.windows.partition_point(|&(s, _)| s <= t);
        i > 0 && t < self.windows[i - 1].1
    }

    /// The first instant after `t` at which [`Outages::active`] changes, if any.
    pub fn next_change_after(&self, t: SimTime) -> Option<SimTime> {
        let i = self.windows.partition_point(|&(s, _)| s <= t);
        if i > 0 && t < self.windows[i - 1].1 {
            return Some(self.windows[i - 1].1);
        }
        self.windows.get(i).map(|&(s, _)| s)
    }

    /// The merged windows.
    pub fn windows(&self) -> &[(SimTime, SimTime)] {
        &self.windows
    }

    /// True if there are no windows.
    pub fn is_empty(&self) -> bool {
        self.windows.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn v(x: f64, y: f64, z: f64) -> Vec3 {
        Vec3 { x, y, z }
    }

    #[test]
    fn self_blocking_is_30_db_inside_and_0_outside() {
        use SelfBlockingMode::*;
        // Portrait: azimuth 260 ± 60 → (200°, 320°), zenith 100 ± 40 → (60°, 140°).
        assert_eq!(self_blocking_db(Portrait, 260.0, 100.0), 30.0);
        assert_eq!(self_blocking_db(Portrait, 201.0, 61.0), 30.0);
        assert_eq!(self_blocking_db(Portrait, 319.0, 139.0), 30.0);
        assert_eq!(self_blocking_db(Portrait, 199.0, 100.0), 0.0);
        assert_eq!(self_blocking_db(Portrait, 321.0, 100.0), 0.0);
        assert_eq!(self_blocking_db(Portrait, 260.0, 59.0), 0.0);
        assert_eq!(self_blocking_db(Portrait, 260.0, 141.0), 0.0);
        // Same direction written as a negative angle: −100° ≡ 260°.
        assert_eq!(self_blocking_db(Portrait, -100.0, 100.0), 30.0);
        // Landscape: azimuth 40 ± 80 → (−40°, 120°), zenith 110 ± 37.5 → (72.5°, 147.5°).
        assert_eq!(self_blocking_db(Landscape, -39.0, 90.0), 30.0); // wraps through 0°
        assert_eq!(self_blocking_db(Landscape, 330.0, 90.0), 30.0);
        assert_eq!(self_blocking_db(Landscape, 119.0, 147.0), 30.0);
        assert_eq!(self_blocking_db(Landscape, 121.0, 90.0), 0.0);
        assert_eq!(self_blocking_db(Landscape, 0.0, 72.0), 0.0);
    }

    #[test]
    fn self_blocking_through_a_link() {
        // gNB 100 m west of the UE (arrival azimuth 180°), 8.5 m higher: zenith
        // 90° − atan(8.5/100) = 85.14°. Portrait, bearing 0: φ′ = 180° is outside (200°, 320°)
        // → 0 dB. Bearing −60°: φ′ = 240° is inside → 30 dB.
        let mut p = BlockageParams {
            num_blockers: 0,
            ..BlockageParams::outdoor()
        };
        let mut r = SimRng::seed_from_u64(1);
        let (g, u) = (v(-100.0, 0.0, 10.0), v(0.0, 0.0, 1.5));
        let (phi, theta) = arrival_angles_deg(g, u);
        assert!(
            (phi - 180.0).abs() < 1e-9 && (theta - 85.142).abs() < 1e-3,
            "{phi} {theta}"
        );
        assert_eq!(
            Blockage::new(&p, 28e9, &mut r).update(SimTime::ZERO, g, u, &mut r),
            0.0
        );
        p.ue_bearing_deg = -60.0;
        assert_eq!(
            Blockage::new(&p, 28e9, &mut r).update(SimTime::ZERO, g, u, &mut r),
            30.0
        );
        p.self_blocking = None;
        assert_eq!(
            Blockage::new(&p, 28e9, &mut r).update(SimTime::ZERO, g, u, &mut r),
            0.0
        );
    }

    #[test]
    fn non_self_blocker_diffraction_loss() {
        // 28 GHz: λ = 299792458/28e9 = 0.0107069 m; r = 10 m → (π/λ)·r = 2934.18.
        // Blocker 10° × 5°, arrival at its centre: A1 = −5°, A2 = 5°, Z1 = −2.5°, Z2 = 2.5°,
        // all signs "+".
        //   F_A: 1/cos 5° − 1 = 0.0038198 → ·2934.18 = 11.2079 → sqrt 3.3478 → ·π/2 = 5.2588
        //        → atan 1.38289 → /π = 0.44019;   F_A1 + F_A2 = 0.88037
        //   F_Z: 1/cos 2.5° − 1 = 0.00095257 → 2.79502 → 1.67183 → 2.62613 → 1.20698
        //        → 0.38419;                       F_Z1 + F_Z2 = 0.76839
        //   L = −20·log10(1 − 0.88037·0.76839) = −20·log10(0.32354) = 9.80 dB.
        let lambda = SPEED_OF_LIGHT_MPS / 28e9;
        let l = non_self_blocking_db(0.0, 0.0, 10.0, 5.0, 10.0, lambda);
        assert!((l - 9.80).abs() < 0.01, "{l}");
        // Arrival 7.5° off centre (beyond the x_k/2 = 5° edge): A1 = 2.5° with "−",
        // A2 = 12.5° with "+": F_A1 = −0.38419; F_A2: 1/cos 12.5° − 1 = 0.024295 → 71.286
        //   → 8.4431 → 13.2625 → 1.49552 → 0.47604; F_A1 + F_A2 = 0.09185;
        //   L = −20·log10(1 − 0.09185·0.76839) = −20·log10(0.92942) = 0.636 dB.
        let l = non_self_blocking_db(7.5, 0.0, 10.0, 5.0, 10.0, lambda);
        assert!((l - 0.636).abs() < 0.005, "{l}");
        // Symmetric in Δφ, zero outside |Δφ| < x_k or |Δθ| < y_k.
        let l2 = non_self_blocking_db(-7.5, 0.0, 10.0, 5.0, 10.0, lambda);
        assert!((l2 - 0.636).abs() < 0.005, "{l2}");
        assert_eq!(
            non_self_blocking_db(10.0, 0.0, 10.0, 5.0, 10.0, lambda),
            0.0
        );
        assert_eq!(non_self_blocking_db(0.0, 5.0, 10.0, 5.0, 10.0, lambda), 0.0);
        // Loss falls off monotonically from the centre outwards along azimuth.
        let mut prev = f64::INFINITY;
        for i in 0..100 {
            let l = non_self_blocking_db(i as f64 * 0.0999, 0.0, 10.0, 5.0, 10.0, lambda);
            assert!(l <= prev + 1e-12 && l >= 0.0, "{i}: {l} > {prev}");
            prev = l;
        }
    }

    #[test]
    fn blockers_only_block_paths_near_the_horizon() {
        // θ_k = 90°, y_k = 5°: a path is affected only if its zenith is within (85°, 95°).
        // UE at 1.5 m, gNB at 10 m, 50 m away: zenith 90° − atan(8.5/50) = 80.35° → never.
        let p = BlockageParams {
            self_blocking: None,
            num_blockers: 64,
            ..BlockageParams::outdoor()
        };
        let mut r = SimRng::seed_from_u64(2);
        let mut b = Blockage::new(&p, 28e9, &mut r);
        for i in 0..1000u64 {
            let l = b.update(
                SimTime::from_ms(100 * i),
                v(50.0, 0.0, 10.0),
                v(0.0, 0.0, 1.5),
                &mut r,
            );
            assert_eq!(l, 0.0);
        }
        // Same height: zenith 90°; with 64 blockers of 5–15° some block sometimes.
        let mut blocked = 0;
        for i in 0..1000u64 {
            let l = b.update(
                SimTime::from_ms(100 * i),
                v(50.0, 0.0, 1.5),
                v(0.0, 0.0, 1.5),
                &mut r,
            );
            blocked += (l > 0.0) as u32;
        }
        assert!(blocked > 0);
    }

    #[test]
    fn blocker_centres_are_uniform_and_time_correlated() {
        // Blocker speed 1 m/s, d_corr 10 m → t_corr = 10 s. Sampled every 1 s for 40k s with a
        // static UE: the latent g has correlation exp(−0.1) = 0.9048 per step; the centre
        // uniform U = Φ(g) has lag-1 correlation (6/π)·asin(0.9048/2) = (6/π)·0.46948 = 0.8966,
        // and at 10 s (6/π)·asin(e^−1/2) = (6/π)·0.18499 = 0.3533 (target exp(−1) = 0.3679).
        // Uniform marginal: mean 0.5, variance 1/12 = 0.08333.
        // SEs (N_eff ≈ 40k·(1−ρ)/(1+ρ) ≈ 2k): mean 0.0065, ACF(10 s) ≈ 0.02; tolerances 4–5 SE.
        let p = BlockageParams {
            self_blocking: None,
            num_blockers: 1,
            ..BlockageParams::outdoor()
        };
        let mut r = SimRng::seed_from_u64(3);
        let mut b = Blockage::new(&p, 28e9, &mut r);
        let n = 40_000usize;
        let u: Vec<f64> = (0..n)
            .map(|i| {
                b.update(
                    SimTime::from_secs(i as u64),
                    v(100.0, 0.0, 10.0),
                    v(0.0, 0.0, 1.5),
                    &mut r,
                );
                b.blocker_azimuth_deg(0) / 360.0
            })
            .collect();
        let mean = u.iter().sum::<f64>() / n as f64;
        let var = u.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
        let acf = |k: usize| {
            (0..n - k)
                .map(|i| (u[i] - mean) * (u[i + k] - mean))
                .sum::<f64>()
                / (n - k) as f64
                / var
        };
        assert!((mean - 0.5).abs() < 0.03, "mean {mean}");
        assert!((var - 1.0 / 12.0).abs() < 0.006, "var {var}");
        assert!((acf(1) - 0.8966).abs() < 0.02, "acf1 {}", acf(1));
        assert!((acf(10) - 0.3533).abs() < 0.08, "acf10 {}", acf(10));
        // With no time and no motion nothing moves.
        let before = b.blocker_azimuth_deg(0);
        let t = SimTime::from_secs(n as u64 - 1);
        b.update(t, v(100.0, 0.0, 10.0), v(0.0, 0.0, 1.5), &mut r);
        assert_eq!(b.blocker_azimuth_deg(0), before);
    }

    #[test]
    fn outages_are_active_exactly_in_their_windows() {
        let s = SimTime::from_ms;
        let o = Outages::new(vec![
            (s(5000), s(6000)),
            (s(1000), s(2000)),
            (s(1500), s(2500)),
            (s(3000), s(3000)),
        ]);
        // Overlapping [1000, 2000) and [1500, 2500) merge; the empty [3000, 3000) is dropped.
        assert_eq!(o.windows(), &[(s(1000), s(2500)), (s(5000), s(6000))]);
        assert!(!o.active(SimTime::ZERO));
        assert!(!o.active(SimTime::from_ns(999_999_999)));
        assert!(o.active(s(1000))); // start is inclusive
        assert!(o.active(s(2000)));
        assert!(o.active(SimTime::from_ns(2_499_999_999)));
        assert!(!o.active(s(2500))); // end is exclusive
        assert!(!o.active(s(3000)));
        assert!(o.active(s(5000)));
        assert!(!o.active(s(6000)));
        assert!(!o.active(SimTime::NEVER));
        assert_eq!(o.next_change_after(SimTime::ZERO), Some(s(1000)));
        assert_eq!(o.next_change_after(s(1200)), Some(s(2500)));
        assert_eq!(o.next_change_after(s(2500)), Some(s(5000)));
        assert_eq!(o.next_change_after(s(7000)), None);
        assert!(!Outages::none().active(s(1)));
        assert!(Outages::none().is_empty());
    }

    #[test]
    #[should_panic(expected = "before it starts")]
    fn outage_ending_before_start_is_a_bug() {
        Outages::new(vec![(SimTime::from_ms(2), SimTime::from_ms(1))]);
    }
}
