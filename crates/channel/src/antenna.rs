//! Antenna arrays and beams: the gain of an array whose beam is steered at one direction,
//! seen from another direction. Used for the beam gain of interfering links; the serving
//! link keeps the ideal-alignment convention of [`crate::budget`].
//!
//! # Model
//! An array is a uniform planar array (UPA) of `rows` × `columns` elements at half a
//! wavelength, each element with the TR 38.901 single-element pattern
//! [TR38901 §7.3, Table 7.3-1]:
//!
//! ```text
//! A_V(θ) = −min(12·((θ − 90°)/θ_3dB)², SLA_V)      θ_3dB = 65°, SLA_V = 30 dB
//! A_H(φ) = −min(12·(φ/φ_3dB)², A_max)              φ_3dB = 65°, A_max = 30 dB
//! A(θ, φ) = −min(−(A_V(θ) + A_H(φ)), A_max)
//! ```
//!
//! (θ the zenith angle, 90° = horizontal; φ the azimuth off the panel's broadside). The
//! beam is the matched (conjugate) beamformer steered at the target direction (φ0, θ0),
//! as in the array model of [TR38901 §7.3] with one panel; its array factor toward
//! (φ, θ), relative to its peak, is
//!
//! ```text
//! F = F_N(ψ_h) · F_M(ψ_v),   F_K(ψ) = sin²(K·ψ/2) / (K²·sin²(ψ/2))   (F_K(0) = 1)
//! ψ_h = π·sin θ·sin(φ − φ0)        (N columns: phase step between columns)
//! ψ_v = π·(cos θ − cos θ0)         (M rows)
//! ```
//!
//! and the beam's gain toward (φ, θ), dB, is
//!
//! ```text
//! G = 10·log10(M·N) + [A(θ, φ − φ0) − A(θ0, 0)] + 10·log10(F)
//! ```
//!
//! so that toward its own target the beam has exactly the ideal array gain 10·log10(M·N)
//! that [`crate::budget::beamforming_gain_db`] gives every serving link: the signal side
//! of a link is unchanged, and only directions off the beam see the pattern.
//!
//! # Simplifications
//! - The panel turns with the beam: its broadside faces the beam's azimuth φ0, its
//!   columns are horizontal, no mechanical tilt. Sites have no sector orientation in a
//!   scenario and every serving link already assumes ideal alignment whatever the UE's
//!   bearing (an idealised multi-panel site whose panel nearest the UE serves it). A
//!   panel behind the beam is 30 dB down (the element's front-to-back ratio A_max).
//! - The element's maximum directional gain (8 dBi in Table 7.3-1) and its loss toward
//!   the beam's own elevation are folded into the ideal-gain convention: the pattern is
//!   taken relative to the beam's own direction, `A(θ0, 0)`.
//! - One polarisation, no coupling between elements, and an ideal array factor: its
//!   nulls are exact (the gain there is −∞ dB, i.e. no power at all).
//! - An array of one element is omnidirectional (0 dB everywhere): the single antennas
//!   of the 2 GHz preset have no pattern, as their links have no beamforming gain.
//! - The element count of a preset becomes a near-square panel ([`PanelArray::of`]):
//!   8×8 for 64 elements, 4×4 for 16.

use crate::budget::{db_to_lin, lin_to_db};
use crate::geometry::Vec3;

/// Half-power beamwidth of the element, both planes, degrees [TR38901 §7.3, Table 7.3-1].
pub const ELEMENT_BEAMWIDTH_DEG: f64 = 65.0;

/// Front-to-back ratio A_max and side-lobe level SLA_V of the element, dB
/// [TR38901 §7.3, Table 7.3-1].
pub const ELEMENT_SIDE_LOBE_DB: f64 = 30.0;

/// The direction of one point seen from another.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bearing {
    /// Azimuth, degrees, counter-clockwise from +x (the x–y plane is the ground).
    pub azimuth_deg: f64,
    /// Zenith angle, degrees: 0 straight up, 90 horizontal, 180 straight down.
    pub zenith_deg: f64,
}

impl Bearing {
    /// The direction of `to` seen from `from`. Two equal points give the horizontal
    /// direction along +x (no direction exists; the caller never asks for it).
    pub fn between(from: Vec3, to: Vec3) -> Bearing {
        let (dx, dy, dz) = (to.x - from.x, to.y - from.y, to.z - from.z);
        let r = (dx * dx + dy * dy + dz * dz).sqrt();
        if r == 0.0 {
            return Bearing {
                azimuth_deg: 0.0,
                zenith_deg: 90.0,
            };
        }
        Bearing {
            azimuth_deg: dy.atan2(dx).to_degrees(),
            zenith_deg: (dz / r).clamp(-1.0, 1.0).acos().to_degrees(),
        }
    }

    /// The exact bits of both angles: a key for values computed from this direction,
    /// which hold while neither angle changes in any bit.
    pub fn bits(self) -> [u64; 2] {
        [self.azimuth_deg.to_bits(), self.zenith_deg.to_bits()]
    }
}

/// The element pattern A(θ, φ) relative to its maximum, dB (≤ 0): `zenith_deg` θ,
/// `azimuth_deg` φ off the panel's broadside [TR38901 §7.3, Table 7.3-1].
pub fn element_pattern_db(zenith_deg: f64, azimuth_deg: f64) -> f64 {
    let phi = wrap_deg(azimuth_deg);
    let a_v =
        -(12.0 * ((zenith_deg - 90.0) / ELEMENT_BEAMWIDTH_DEG).powi(2)).min(ELEMENT_SIDE_LOBE_DB);
    let a_h = -(12.0 * (phi / ELEMENT_BEAMWIDTH_DEG).powi(2)).min(ELEMENT_SIDE_LOBE_DB);
    -(-(a_v + a_h)).min(ELEMENT_SIDE_LOBE_DB)
}

/// An angle in degrees brought into [−180°, 180°].
fn wrap_deg(a: f64) -> f64 {
    let w = (a + 180.0).rem_euclid(360.0) - 180.0;
    if w == -180.0 {
        180.0
    } else {
        w
    }
}

/// The normalised array factor of `k` elements at phase step `psi` (radians):
/// sin²(kψ/2) / (k²·sin²(ψ/2)), 1 on the main lobe and its grating lobes (ψ a multiple
/// of 2π).
///
/// Computed as (U_{k−1}(cos(ψ/2)) / k)², U the Chebyshev polynomial of the second kind,
/// by its three-term recurrence: sin(kx)/sin(x) = U_{k−1}(cos x) is the same function
/// (the Dirichlet kernel) with one cosine instead of two sines and no quotient that
/// vanishes on the main lobe. It agrees with the quotient of sines to within k²·10⁻¹⁵
/// (a test below checks both forms).
fn array_factor(k: u32, psi: f64) -> f64 {
    if k <= 1 {
        return 1.0;
    }
    let c = (psi / 2.0).cos();
    // U_0 = 1, U_1 = 2c, U_{n+1} = 2c·U_n − U_{n−1}.
    let (mut prev, mut u) = (1.0, 2.0 * c);
    for _ in 2..k {
        (prev, u) = (u, 2.0 * c * u - prev);
    }
    let r = u / k as f64;
    r * r
}

/// A uniform planar array of `rows` (vertical) × `columns` (horizontal) elements at half a
/// wavelength, each with the TR 38.901 element pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PanelArray {
    /// Elements along the vertical, M.
    pub rows: u32,
    /// Elements along the horizontal, N.
    pub columns: u32,
}

impl PanelArray {
    /// The near-square panel of `elements` elements: the rows are the largest divisor of
    /// `elements` not above its square root (64 → 8×8, 16 → 4×4, 32 → 4×8, 1 → 1×1).
    /// A prime count becomes one row.
    pub fn of(elements: u32) -> PanelArray {
        let n = elements.max(1);
        let mut rows = (n as f64).sqrt().floor() as u32;
        while rows > 1 && !n.is_multiple_of(rows) {
            rows -= 1;
        }
        let rows = rows.max(1);
        PanelArray {
            rows,
            columns: n / rows,
        }
    }

    /// Number of elements.
    pub fn elements(&self) -> u32 {
        self.rows * self.columns
    }

    /// Peak (ideal-alignment) gain, dB: 10·log10(M·N).
    pub fn peak_gain_db(&self) -> f64 {
        lin_to_db(self.elements() as f64)
    }

    /// Gain toward `toward` of the beam steered at `beam`, relative to the peak gain, dB:
    /// 0 toward the beam's own direction (see the module doc for the formula).
    pub fn relative_gain_db(&self, beam: Bearing, toward: Bearing) -> f64 {
        self.relative_gain_steered_db(&self.steer(beam), &Sighting::new(toward))
    }

    /// Gain toward `toward` of the beam steered at `beam`, dB.
    pub fn gain_db(&self, beam: Bearing, toward: Bearing) -> f64 {
        self.peak_gain_db() + self.relative_gain_db(beam, toward)
    }

    /// This array's beam steered at `bearing`, with the terms of the gain formula that
    /// depend on the beam alone.
    pub fn steer(&self, bearing: Bearing) -> SteeredBeam {
        SteeredBeam {
            bearing,
            array: *self,
            peak_db: self.peak_gain_db(),
            cos_zenith: bearing.zenith_deg.to_radians().cos(),
            element_db: element_pattern_db(bearing.zenith_deg, 0.0),
        }
    }

    /// [`Self::relative_gain_db`] of a beam and a direction whose own terms are already
    /// computed: the same operations on the same values, so the same result to the bit.
    pub fn relative_gain_steered_db(&self, beam: &SteeredBeam, toward: &Sighting) -> f64 {
        if self.elements() == 1 {
            return 0.0;
        }
        let (element_db, af) = self.pattern_and_factor(beam, toward);
        element_db + lin_to_db(af)
    }

    /// [`Self::gain_steered_db`] as a power ratio: M·N · 10^(ΔA/10) · F. The same
    /// formula without the logarithm of F, so equal to 10^(G/10) up to rounding (a few
    /// units in the last place), for sums of interference powers in milliwatts.
    pub fn gain_steered_lin(&self, beam: &SteeredBeam, toward: &Sighting) -> f64 {
        if self.elements() == 1 {
            return 1.0;
        }
        let (element_db, af) = self.pattern_and_factor(beam, toward);
        self.elements() as f64 * db_to_lin(element_db) * af
    }

    /// The two factors of a beam's gain toward a direction off its peak: the element
    /// pattern relative to the beam's own direction, A(θ, φ − φ0) − A(θ0, 0), dB, and
    /// the array factor F (linear).
    fn pattern_and_factor(&self, beam: &SteeredBeam, toward: &Sighting) -> (f64, f64) {
        debug_assert_eq!(beam.array, *self, "a beam steered by another array");
        let off_az = toward.bearing.azimuth_deg - beam.bearing.azimuth_deg;
        let element = element_pattern_db(toward.bearing.zenith_deg, off_az) - beam.element_db;
        let psi_h = std::f64::consts::PI * toward.sin_zenith * off_az.to_radians().sin();
        let psi_v = std::f64::consts::PI * (toward.cos_zenith - beam.cos_zenith);
        (
            element,
            array_factor(self.columns, psi_h) * array_factor(self.rows, psi_v),
        )
    }

    /// [`Self::gain_db`] of a beam and a direction whose own terms are already computed.
    pub fn gain_steered_db(&self, beam: &SteeredBeam, toward: &Sighting) -> f64 {
        beam.peak_db + self.relative_gain_steered_db(beam, toward)
    }
}

/// A beam of an array steered at a direction, with what the gain formula needs of the
/// beam alone (its peak gain, cos θ0 and the element pattern A(θ0, 0)), computed once for
/// a beam whose gain is asked toward many directions ([`PanelArray::steer`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteeredBeam {
    /// Where the beam points.
    pub bearing: Bearing,
    array: PanelArray,
    peak_db: f64,
    cos_zenith: f64,
    element_db: f64,
}

/// A direction with the sine and cosine of its zenith angle, computed once for a
/// direction toward which many beams' gains are asked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sighting {
    /// The direction.
    pub bearing: Bearing,
    sin_zenith: f64,
    cos_zenith: f64,
}

impl Sighting {
    /// `bearing` with its zenith angle's sine and cosine.
    pub fn new(bearing: Bearing) -> Sighting {
        let th = bearing.zenith_deg.to_radians();
        Sighting {
            bearing,
            sin_zenith: th.sin(),
            cos_zenith: th.cos(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(azimuth_deg: f64, zenith_deg: f64) -> Bearing {
        Bearing {
            azimuth_deg,
            zenith_deg,
        }
    }

    fn close(a: f64, e: f64, tol: f64) {
        assert!((a - e).abs() <= tol, "{a} vs {e}");
    }

    #[test]
    fn bearings_from_coordinates() {
        let o = Vec3 {
            x: 0.0,
            y: 0.0,
            z: 10.0,
        };
        // 100 m east and 8.5 m down: azimuth 0, zenith 90 + atan(8.5/100) = 94.858°.
        let e = Bearing::between(
            o,
            Vec3 {
                x: 100.0,
                y: 0.0,
                z: 1.5,
            },
        );
        close(e.azimuth_deg, 0.0, 1e-12);
        close(e.zenith_deg, 94.858, 1e-3);
        // North-west and level: azimuth 135°, zenith 90°.
        let nw = Bearing::between(
            o,
            Vec3 {
                x: -5.0,
                y: 5.0,
                z: 10.0,
            },
        );
        close(nw.azimuth_deg, 135.0, 1e-12);
        close(nw.zenith_deg, 90.0, 1e-12);
    }

    #[test]
    fn element_pattern_of_table_7_3_1() {
        // Boresight: 0 dB. Half the 65° beamwidth off in one plane: −12·(1/2)² = −3 dB.
        close(element_pattern_db(90.0, 0.0), 0.0, 1e-12);
        close(element_pattern_db(90.0, 32.5), -3.0, 1e-12);
        close(element_pattern_db(122.5, 0.0), -3.0, 1e-12);
        close(element_pattern_db(57.5, -32.5), -6.0, 1e-12);
        // Behind the panel: −min(12·(180/65)², 30) = −30 dB (front-to-back ratio), also
        // when the azimuth is given as −180° or 540°.
        close(element_pattern_db(90.0, 180.0), -30.0, 1e-12);
        close(element_pattern_db(90.0, -180.0), -30.0, 1e-12);
        close(element_pattern_db(90.0, 540.0), -30.0, 1e-12);
        // The sum of the two cuts is capped at A_max: 65° off in both planes would be −24 dB
        // (−12 − 12); 90° off in azimuth and 65° in zenith: −23.006 − 12 → capped at −30.
        close(element_pattern_db(155.0, 65.0), -24.0, 1e-12);
        close(element_pattern_db(155.0, 90.0), -30.0, 1e-12);
    }

    #[test]
    fn panel_shapes() {
        assert_eq!(
            PanelArray::of(64),
            PanelArray {
                rows: 8,
                columns: 8
            }
        );
        assert_eq!(
            PanelArray::of(16),
            PanelArray {
                rows: 4,
                columns: 4
            }
        );
        assert_eq!(
            PanelArray::of(32),
            PanelArray {
                rows: 4,
                columns: 8
            }
        );
        assert_eq!(
            PanelArray::of(7),
            PanelArray {
                rows: 1,
                columns: 7
            }
        );
        assert_eq!(
            PanelArray::of(1),
            PanelArray {
                rows: 1,
                columns: 1
            }
        );
    }

    #[test]
    fn boresight_gain_is_the_ideal_array_gain() {
        // 8×8: 10·log10(64) = 18.062 dB toward the beam's own target, wherever it points.
        let a = PanelArray::of(64);
        for beam in [b(0.0, 90.0), b(-123.0, 97.0), b(45.0, 120.0)] {
            close(a.gain_db(beam, beam), 18.0618, 1e-4);
            close(a.relative_gain_db(beam, beam), 0.0, 1e-12);
        }
        // One element: omnidirectional.
        let one = PanelArray::of(1);
        close(one.gain_db(b(0.0, 90.0), b(180.0, 30.0)), 0.0, 0.0);
    }

    #[test]
    fn half_power_edge_of_the_horizontal_beam() {
        // 8 columns, horizontal beam. The classic half-power point of a uniform array is
        // x = Nψ/2 = 1.39156 (sin x / x = 1/√2, the large-N limit); at N = 8 the exact
        // factor there is ψ = 0.347890, sin(ψ/2) = 0.173069, sin(4ψ) = 0.983980 →
        // F = 0.968219/(64·0.029953) = 0.50507 → −2.9665 dB.
        // Direction: sin(φ) = ψ/π = 0.110736 → φ = 6.3578°; the element costs
        // −12·(6.3578/65)² = −0.11481 dB there; total −3.0813 dB.
        let a = PanelArray::of(64);
        let phi = (0.347890_f64 / std::f64::consts::PI).asin().to_degrees();
        close(phi, 6.3578, 1e-4);
        let g = a.relative_gain_db(b(0.0, 90.0), b(phi, 90.0));
        close(g, -3.0813, 1e-3);
    }

    #[test]
    fn first_side_lobe_and_null() {
        // 8 columns: near the first side lobe, 8ψ/2 = 3π/2 → ψ = 3π/8, F = 1/(64·sin²(3π/16))
        // = 1/(64·0.308658) = 0.050622 → −12.9566 dB. There sin φ = 3/8, φ = 22.0243°,
        // element −12·(22.0243/65)² = −1.37768 dB: total −14.3343 dB.
        let a = PanelArray::of(64);
        let phi = (3.0_f64 / 8.0).asin().to_degrees();
        close(
            a.relative_gain_db(b(10.0, 90.0), b(10.0 + phi, 90.0)),
            -14.3343,
            1e-3,
        );
        // First null, 8ψ/2 = π → sin φ = 1/4: no power at all.
        let null = (0.25_f64).asin().to_degrees();
        assert!(a.relative_gain_db(b(0.0, 90.0), b(null, 90.0)) < -150.0);
        // The vertical cut: 8 rows, beam at θ0 = 95°; toward θ with cos θ − cos θ0 = 3/8
        // (ψ_v = 3π/8, F = 0.050622): θ = acos(cos 95° + 0.375) = acos(0.287844) = 73.2711°.
        // Element: −12·((73.2711 − 90)/65)² − (−12·(5/65)²) = −0.794861 + 0.071006.
        let th = (95f64.to_radians().cos() + 0.375).acos().to_degrees();
        close(th, 73.2711, 1e-4);
        close(
            a.relative_gain_db(b(0.0, 95.0), b(0.0, th)),
            -12.9566 - 0.794861 + 0.071006,
            1e-3,
        );
    }

    #[test]
    fn a_steered_beam_gives_the_direct_gain_to_the_bit() {
        // The precomputed terms must be the very values the direct formula computes: any
        // reordering of the arithmetic would change the last bit somewhere on this grid.
        for array in [PanelArray::of(64), PanelArray::of(16), PanelArray::of(32)] {
            for (az0, zen0) in [(0.0, 90.0), (-123.4, 97.3), (45.0, 120.0), (179.9, 91.0)] {
                let beam = array.steer(b(az0, zen0));
                for k in 0..200 {
                    let toward = b(-180.0 + 1.83 * k as f64, 60.0 + 0.31 * k as f64);
                    let seen = Sighting::new(toward);
                    let direct = array.peak_gain_db() + {
                        let off_az = toward.azimuth_deg - az0;
                        let element = element_pattern_db(toward.zenith_deg, off_az)
                            - element_pattern_db(zen0, 0.0);
                        let (th, th0) = (toward.zenith_deg.to_radians(), zen0.to_radians());
                        let psi_h = std::f64::consts::PI * th.sin() * off_az.to_radians().sin();
                        let psi_v = std::f64::consts::PI * (th.cos() - th0.cos());
                        element
                            + lin_to_db(
                                array_factor(array.columns, psi_h)
                                    * array_factor(array.rows, psi_v),
                            )
                    };
                    let got = array.gain_steered_db(&beam, &seen);
                    assert_eq!(got.to_bits(), direct.to_bits(), "{array:?} {k}");
                    assert_eq!(got.to_bits(), array.gain_db(b(az0, zen0), toward).to_bits());
                }
            }
        }
    }

    #[test]
    fn the_array_factor_is_the_quotient_of_sines() {
        // sin²(kψ/2) / (k²·sin²(ψ/2)) straight from its definition, for the panel sizes of
        // the presets and a prime row, over two periods of ψ (away from ψ = 0 mod 2π,
        // where the quotient is 0/0 and the factor is 1).
        assert_eq!(array_factor(8, 0.0), 1.0);
        assert_eq!(array_factor(4, 2.0 * std::f64::consts::PI), 1.0);
        assert_eq!(array_factor(1, 0.7), 1.0);
        for k in [2u32, 4, 8, 16, 61] {
            for i in 1..2000 {
                let psi =
                    -2.0 * std::f64::consts::PI + 4.0 * std::f64::consts::PI * i as f64 / 2000.0;
                if (psi / 2.0).sin().abs() < 1e-3 {
                    continue;
                }
                let q = (k as f64 * psi / 2.0).sin() / (k as f64 * (psi / 2.0).sin());
                let want = q * q;
                let got = array_factor(k, psi);
                // The recurrence's rounding grows as k² near the main lobe.
                let tol = 1e-15 * (k * k) as f64;
                assert!((got - want).abs() <= tol, "k {k}, ψ {psi}: {got} vs {want}");
            }
        }
    }

    #[test]
    fn the_linear_gain_is_the_gain_in_db_as_a_ratio() {
        // Toward its own target a beam has exactly M·N; at the horizontal cut's first null
        // (8ψ/2 = π, sin φ = 1/4) nothing; a single element is omnidirectional. Elsewhere
        // 10^(G/10) of the dB formula, to rounding.
        let a = PanelArray::of(64);
        let beam = a.steer(b(10.0, 90.0));
        assert_eq!(
            a.gain_steered_lin(&beam, &Sighting::new(b(10.0, 90.0))),
            64.0
        );
        let null = 10.0 + 0.25f64.asin().to_degrees();
        assert!(a.gain_steered_lin(&beam, &Sighting::new(b(null, 90.0))) < 1e-20);
        let one = PanelArray::of(1);
        let seen = Sighting::new(b(100.0, 60.0));
        assert_eq!(one.gain_steered_lin(&one.steer(b(0.0, 90.0)), &seen), 1.0);
        for array in [PanelArray::of(64), PanelArray::of(16), PanelArray::of(32)] {
            for (az0, zen0) in [(0.0, 90.0), (-123.4, 97.3), (45.0, 120.0)] {
                let beam = array.steer(b(az0, zen0));
                for k in 0..200 {
                    let seen = Sighting::new(b(-180.0 + 1.83 * k as f64, 60.0 + 0.31 * k as f64));
                    let want = 10f64.powf(array.gain_steered_db(&beam, &seen) / 10.0);
                    let got = array.gain_steered_lin(&beam, &seen);
                    assert!(
                        (got - want).abs() <= 1e-13 * want,
                        "{array:?} {k}: {got} vs {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn behind_the_panel_is_the_front_to_back_ratio() {
        // Straight behind a horizontal beam: ψ_h = π·sin(180°) = 0 (the array factor of a
        // planar array is symmetric front to back), so only the element's −30 dB separates
        // the back from the main lobe.
        let a = PanelArray::of(16);
        close(
            a.relative_gain_db(b(30.0, 90.0), b(210.0, 90.0)),
            -30.0,
            1e-9,
        );
    }
}
