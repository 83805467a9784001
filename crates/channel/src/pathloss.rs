//! Median path loss, LOS probability, shadowing parameters and O2I building penetration.
//!
//! Units: distances in m, carrier `fc_hz` in Hz (formulas use f_c in GHz), losses in dB.
//! Heights come from the `z` of the gNB and UE positions.
//!
//! # Models
//! - [`PathLossModel::Nyu`]: the NYU statistical model ([AKDENIZ-2014]) as ns-3
//!   mmWave v1 implements it ([NS3-MMW-V1] `MmWavePropagationLossModel`):
//!   PL = α + 10·β·log10(d3D) with the 28 GHz or 73 GHz (α, β, σ) table, and the three-state
//!   LOS/NLOS/outage probabilities
//!   ([`nyu_state_probabilities`]; outage = 500 dB, [`NYU_OUTAGE_LOSS_DB`]).
//! - [`PathLossModel::Umi`] / [`PathLossModel::Uma`]: [TR38901 Table 7.4.1-1] UMi-Street
//!   Canyon and UMa, LOS with the two-slope breakpoint model and NLOS = max(PL_LOS, PL′_NLOS);
//!   LOS probability of Table 7.4.2-1; σ_SF and decorrelation distances of Table 7.5-6.
//!   Same formulas as ns-3-dev `ThreeGppPropagationLossModel` ([NS3-3GPP]).
//! - [`PathLossModel::UmiOptionalNlos`] / [`PathLossModel::UmaOptionalNlos`]: the same LOS side with
//!   TR 38.901's optional single-slope NLOS formulas (σ_SF 8.2 / 7.8 dB).
//! - [`O2i`]: TR 38.901 §7.4.3 outdoor-to-indoor penetration, low-loss and high-loss buildings.
//!
//! # Simplifications and deviations
//! - NYU: ns-3 v1 aborts for carriers other than exactly 28 or 73 GHz; here the nearer table is
//!   used ([`nyu_table`]). The 1-m minimum distance below is ours (ns-3 only warns in the near
//!   field). NYU's measurements give no decorrelation distances; the UMi-SC values of TR 38.901
//!   Table 7.5-6 (10 m LOS, 13 m NLOS) are borrowed, and likewise UMi's Rician K-factor.
//! - NYU LOS probability: ns-3 evaluates it at the 3-D distance; [`PathLossModel::los_probability`]
//!   takes whatever distance it is given (the link passes the 3-D distance for NYU).
//! - UMa breakpoint: TR 38.901 draws the effective environment height h_E (1 m with probability
//!   1/(1 + C(d2D, h_UT)), else from {12, 15, …}); this *median* loss uses h_E = 1 m always, which
//!   is exact for h_UT < 13 m (C = 0) and is what ns3-mmwave V2 does for h_UT ≤ 18 m.
//! - Heights outside the models' validity range (h_UT 1.5–22.5 m) are clamped into it for the
//!   height terms and the breakpoint (so a UE placed at z = 0 does not produce a negative
//!   effective height); distances always use the true positions. d3D is floored at 1 m
//!   (log10 of a sub-metre distance is outside every model). 2-D distances below TR 38.901's
//!   10 m minimum are used as they are, like ns-3-dev does (it only logs).
//! - The breakpoint uses c = 3.0·10⁸ m/s as TR 38.901 Note 1 defines it (UMi 28 GHz,
//!   h_UT 1.5 m: 1680 m).

use crate::geometry::Vec3;
use crate::shadowing::std_normal;
use mmtsim_engine::SimRng;
use rand::Rng;

/// Propagation speed used by TR 38.901 in the breakpoint distance (Table 7.4.1-1 Note 1), m/s.
const C_TR38901_MPS: f64 = 3.0e8;

/// Path loss of the NYU model's outage state, dB (ns-3 mmWave v1 `MmWavePropagationLossModel`
/// returns `txPowerDbm − 500`).
pub const NYU_OUTAGE_LOSS_DB: f64 = 500.0;

/// Shadow-fading σ of O2I links, dB (TR 38.901 Table 7.5-6, UMi and UMa O2I column).
pub const O2I_SHADOW_SIGMA_DB: f64 = 7.0;

/// Shadow-fading decorrelation distance of O2I links, m (TR 38.901 Table 7.5-6, UMi/UMa O2I).
pub const O2I_DECORRELATION_M: f64 = 7.0;

/// Correlation distance of the LOS/NLOS state for spatial consistency, m (TR 38.901 Table
/// 7.6.3.1-2: 50 m for UMi, UMa and SMa; borrowed for NYU).
pub const LOS_STATE_DECORRELATION_M: f64 = 50.0;

/// One row pair of the NYU table ([AKDENIZ-2014] as [NS3-MMW-V1] has it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NyuParams {
    /// Carrier of the measurements, Hz.
    pub fc_hz: f64,
    /// LOS intercept α, dB.
    pub alpha_los_db: f64,
    /// LOS slope β (PL grows by 10·β dB per decade).
    pub beta_los: f64,
    /// LOS shadowing σ, dB.
    pub sigma_los_db: f64,
    /// NLOS intercept α, dB.
    pub alpha_nlos_db: f64,
    /// NLOS slope β.
    pub beta_nlos: f64,
    /// NLOS shadowing σ, dB.
    pub sigma_nlos_db: f64,
}

/// NYU 28 GHz table (Akdeniz 2014 as in ns-3 mmWave v1). The LOS intercept equals the 1-m
/// free-space loss at 28 GHz, 20·log10(4π·28e9/c) = 61.39 dB.
pub const NYU_28GHZ: NyuParams = NyuParams {
    fc_hz: 28e9,
    alpha_los_db: 61.4,
    beta_los: 2.0,
    sigma_los_db: 5.8,
    alpha_nlos_db: 72.0,
    beta_nlos: 2.92,
    sigma_nlos_db: 8.7,
};

/// NYU 73 GHz table (ns-3 mmWave v1).
pub const NYU_73GHZ: NyuParams = NyuParams {
    fc_hz: 73e9,
    alpha_los_db: 69.8,
    beta_los: 2.0,
    sigma_los_db: 5.8,
    alpha_nlos_db: 82.7,
    beta_nlos: 2.69,
    sigma_nlos_db: 7.7,
};

/// The NYU table for carrier `fc_hz`: the 28 GHz one below 50.5 GHz (the midpoint), else 73 GHz.
pub fn nyu_table(fc_hz: f64) -> &'static NyuParams {
    if fc_hz < 50.5e9 {
        &NYU_28GHZ
    } else {
        &NYU_73GHZ
    }
}

/// Probabilities of the NYU model's three states at distance `d_m` (sum to 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NyuStateProbabilities {
    /// P(LOS).
    pub los: f64,
    /// P(NLOS).
    pub nlos: f64,
    /// P(outage).
    pub outage: f64,
}

/// NYU state probabilities ([AKDENIZ-2014] as [NS3-MMW-V1] `MmWavePropagationLossModel` has them):
/// p_out = max(0, 1 − exp(−a_out·d + b_out)), p_LOS = (1 − p_out)·exp(−a_LOS·d),
/// p_NLOS = 1 − p_out − p_LOS, with a_out = 0.0334 m⁻¹, b_out = 5.2, a_LOS = 0.0149 m⁻¹.
pub fn nyu_state_probabilities(d_m: f64) -> NyuStateProbabilities {
    const A_OUT: f64 = 0.0334;
    const B_OUT: f64 = 5.2;
    const A_LOS: f64 = 0.0149;
    let d = d_m.max(0.0);
    let outage = (1.0 - (-A_OUT * d + B_OUT).exp()).max(0.0);
    let los = (1.0 - outage) * (-A_LOS * d).exp();
    NyuStateProbabilities {
        los,
        nlos: 1.0 - outage - los,
        outage,
    }
}

/// The large-scale propagation model of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathLossModel {
    /// NYU statistical model (Akdeniz 2014) as in ns-3 mmWave v1, 28 or 73 GHz table.
    Nyu,
    /// TR 38.901 UMa (h_BS nominally 25 m).
    Uma,
    /// TR 38.901 UMa with the optional NLOS formula 32.4 + 20·log10(fc) + 30·log10(d3D).
    UmaOptionalNlos,
    /// TR 38.901 UMi-Street Canyon (h_BS nominally 10 m).
    Umi,
    /// TR 38.901 UMi-SC with the optional NLOS formula 32.4 + 20·log10(fc) + 31.9·log10(d3D).
    UmiOptionalNlos,
}

impl PathLossModel {
    /// Names accepted by [`PathLossModel::from_name`] (scenario files use these).
    pub const NAMES: &'static [&'static str] = &[
        "nyu",
        "umi",
        "uma",
        "umi_optional_nlos",
        "uma_optional_nlos",
    ];

    /// The model called `s` (one of [`PathLossModel::NAMES`]).
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "nyu" => PathLossModel::Nyu,
            "umi" => PathLossModel::Umi,
            "uma" => PathLossModel::Uma,
            "umi_optional_nlos" => PathLossModel::UmiOptionalNlos,
            "uma_optional_nlos" => PathLossModel::UmaOptionalNlos,
            _ => return None,
        })
    }

    /// The scenario name of this model.
    pub fn name(&self) -> &'static str {
        match self {
            PathLossModel::Nyu => "nyu",
            PathLossModel::Umi => "umi",
            PathLossModel::Uma => "uma",
            PathLossModel::UmiOptionalNlos => "umi_optional_nlos",
            PathLossModel::UmaOptionalNlos => "uma_optional_nlos",
        }
    }

    /// Median path loss (no shadowing), dB, between `gnb` and `ue` at carrier `fc_hz`, in the
    /// LOS or NLOS condition. Never NLOS < LOS at the same geometry.
    pub fn loss_db(&self, fc_hz: f64, gnb: Vec3, ue: Vec3, los: bool) -> f64 {
        let (dx, dy, dz) = (ue.x - gnb.x, ue.y - gnb.y, ue.z - gnb.z);
        let d2d = (dx * dx + dy * dy).sqrt();
        let d3d = (dx * dx + dy * dy + dz * dz).sqrt().max(1.0);
        let fc_ghz = fc_hz * 1e-9;
        match self {
            PathLossModel::Nyu => {
                let t = nyu_table(fc_hz);
                let pl_los = t.alpha_los_db + 10.0 * t.beta_los * d3d.log10();
                if los {
                    pl_los
                } else {
                    // NLOS ≥ LOS holds for d ≥ 0.07 m (28 GHz) / 0.014 m (73 GHz); the max
                    // only documents the invariant.
                    (t.alpha_nlos_db + 10.0 * t.beta_nlos * d3d.log10()).max(pl_los)
                }
            }
            PathLossModel::Umi | PathLossModel::UmiOptionalNlos => {
                let h_ut = clamp_ut_height(ue.z);
                let h_bs = gnb.z;
                let pl_los = umi_los_db(fc_hz, d2d, d3d, h_bs, h_ut);
                if los {
                    return pl_los;
                }
                let pl_nlos = if *self == PathLossModel::Umi {
                    // PL′ = 35.3·log10(d3D) + 22.4 + 21.3·log10(fc) − 0.3·(h_UT − 1.5)
                    35.3 * d3d.log10() + 22.4 + 21.3 * fc_ghz.log10() - 0.3 * (h_ut - 1.5)
                } else {
                    32.4 + 20.0 * fc_ghz.log10() + 31.9 * d3d.log10()
                };
                pl_nlos.max(pl_los)
            }
            PathLossModel::Uma | PathLossModel::UmaOptionalNlos => {
                let h_ut = clamp_ut_height(ue.z);
                let h_bs = gnb.z;
                let pl_los = uma_los_db(fc_hz, d2d, d3d, h_bs, h_ut);
                if los {
                    return pl_los;
                }
                let pl_nlos = if *self == PathLossModel::Uma {
                    // PL′ = 13.54 + 39.08·log10(d3D) + 20·log10(fc) − 0.6·(h_UT − 1.5)
                    13.54 + 39.08 * d3d.log10() + 20.0 * fc_ghz.log10() - 0.6 * (h_ut - 1.5)
                } else {
                    32.4 + 20.0 * fc_ghz.log10() + 30.0 * d3d.log10()
                };
                pl_nlos.max(pl_los)
            }
        }
    }

    /// Shadow-fading σ, dB, in LOS or NLOS. For NYU this is the 28 GHz table (σ_LOS is 5.8 dB
    /// at both carriers; σ_NLOS is 7.7 dB at 73 GHz: use [`PathLossModel::shadow_sigma_db_at`]).
    pub fn shadow_sigma_db(&self, los: bool) -> f64 {
        self.shadow_sigma_db_at(NYU_28GHZ.fc_hz, los)
    }

    /// Shadow-fading σ, dB, at carrier `fc_hz` (only NYU depends on it).
    pub fn shadow_sigma_db_at(&self, fc_hz: f64, los: bool) -> f64 {
        match (self, los) {
            (PathLossModel::Nyu, true) => nyu_table(fc_hz).sigma_los_db,
            (PathLossModel::Nyu, false) => nyu_table(fc_hz).sigma_nlos_db,
            // TR 38.901 Table 7.4.1-1.
            (PathLossModel::Umi | PathLossModel::UmiOptionalNlos, true) => 4.0,
            (PathLossModel::Umi, false) => 7.82,
            (PathLossModel::UmiOptionalNlos, false) => 8.2,
            (PathLossModel::Uma | PathLossModel::UmaOptionalNlos, true) => 4.0,
            (PathLossModel::Uma, false) => 6.0,
            (PathLossModel::UmaOptionalNlos, false) => 7.8,
        }
    }

    /// Shadow-fading decorrelation distance, m (TR 38.901 Table 7.5-6; NYU borrows UMi-SC's).
    pub fn decorrelation_m(&self, los: bool) -> f64 {
        match (self, los) {
            (PathLossModel::Nyu | PathLossModel::Umi | PathLossModel::UmiOptionalNlos, true) => {
                10.0
            }
            (PathLossModel::Nyu | PathLossModel::Umi | PathLossModel::UmiOptionalNlos, false) => {
                13.0
            }
            (PathLossModel::Uma | PathLossModel::UmaOptionalNlos, true) => 37.0,
            (PathLossModel::Uma | PathLossModel::UmaOptionalNlos, false) => 50.0,
        }
    }

    /// Correlation distance of the LOS/NLOS state, m ([`LOS_STATE_DECORRELATION_M`]).
    pub fn los_state_decorrelation_m(&self) -> f64 {
        LOS_STATE_DECORRELATION_M
    }

    /// Mean Rician K-factor of LOS fast fading, dB (TR 38.901 Table 7.5-6: μ_K = 9 dB for UMi
    /// and UMa; NYU borrows UMi's). NLOS links are Rayleigh.
    pub fn rician_k_db(&self) -> f64 {
        9.0
    }

    /// Stochastic LOS probability at 2-D distance `d2d_m` (outdoor part) for a UE at height
    /// `ue_height_m`. TR 38.901 Table 7.4.2-1 for UMi/UMa; for NYU the LOS probability of
    /// [`nyu_state_probabilities`] at distance `d2d_m` (the height is not used).
    pub fn los_probability(&self, d2d_m: f64, ue_height_m: f64) -> f64 {
        let d = d2d_m.max(0.0);
        match self {
            PathLossModel::Nyu => nyu_state_probabilities(d).los,
            PathLossModel::Umi | PathLossModel::UmiOptionalNlos => {
                if d <= 18.0 {
                    1.0
                } else {
                    18.0 / d + (-d / 36.0).exp() * (1.0 - 18.0 / d)
                }
            }
            PathLossModel::Uma | PathLossModel::UmaOptionalNlos => {
                if d <= 18.0 {
                    return 1.0;
                }
                let c_prime = if ue_height_m <= 13.0 {
                    0.0
                } else {
                    // The table stops at 23 m; higher UEs keep the 23-m value.
                    ((ue_height_m.min(23.0) - 13.0) / 10.0).powf(1.5)
                };
                let base = 18.0 / d + (-d / 63.0).exp() * (1.0 - 18.0 / d);
                let high = 1.0 + c_prime * 1.25 * (d / 100.0).powi(3) * (-d / 150.0).exp();
                (base * high).min(1.0)
            }
        }
    }

    /// LOS breakpoint distance d′_BP, m, for TR 38.901 models (None for NYU):
    /// 4·h′_BS·h′_UT·f_c/c with h′ = h − 1 m.
    pub fn breakpoint_m(&self, fc_hz: f64, h_bs_m: f64, h_ut_m: f64) -> Option<f64> {
        match self {
            PathLossModel::Nyu => None,
            _ => Some(breakpoint_m(fc_hz, h_bs_m, clamp_ut_height(h_ut_m))),
        }
    }
}

/// UE height range of the UMi/UMa formulas, m (TR 38.901 Table 7.4.1-1: 1.5 ≤ h_UT ≤ 22.5).
fn clamp_ut_height(h: f64) -> f64 {
    h.clamp(1.5, 22.5)
}

/// d′_BP = 4·h′_BS·h′_UT·f_c/c, h′ = h − h_E with h_E = 1 m (TR 38.901 Table 7.4.1-1 Note 1).
fn breakpoint_m(fc_hz: f64, h_bs: f64, h_ut: f64) -> f64 {
    const H_E: f64 = 1.0;
    4.0 * (h_bs - H_E).max(0.0) * (h_ut - H_E).max(0.0) * fc_hz / C_TR38901_MPS
}

/// UMi-SC LOS: PL1 = 32.4 + 21·log10(d3D) + 20·log10(fc) up to d′_BP, then
/// PL2 = 32.4 + 40·log10(d3D) + 20·log10(fc) − 9.5·log10(d′_BP² + (h_BS − h_UT)²).
fn umi_los_db(fc_hz: f64, d2d: f64, d3d: f64, h_bs: f64, h_ut: f64) -> f64 {
    let f = 20.0 * (fc_hz * 1e-9).log10();
    let bp = breakpoint_m(fc_hz, h_bs, h_ut);
    if d2d <= bp {
        32.4 + 21.0 * d3d.log10() + f
    } else {
        let dh = h_bs - h_ut;
        32.4 + 40.0 * d3d.log10() + f - 9.5 * (bp * bp + dh * dh).log10()
    }
}

/// UMa LOS: PL1 = 28.0 + 22·log10(d3D) + 20·log10(fc) up to d′_BP, then
/// PL2 = 28.0 + 40·log10(d3D) + 20·log10(fc) − 9·log10(d′_BP² + (h_BS − h_UT)²).
fn uma_los_db(fc_hz: f64, d2d: f64, d3d: f64, h_bs: f64, h_ut: f64) -> f64 {
    let f = 20.0 * (fc_hz * 1e-9).log10();
    let bp = breakpoint_m(fc_hz, h_bs, h_ut);
    if d2d <= bp {
        28.0 + 22.0 * d3d.log10() + f
    } else {
        let dh = h_bs - h_ut;
        28.0 + 40.0 * d3d.log10() + f - 9.0 * (bp * bp + dh * dh).log10()
    }
}

/// Building type for outdoor-to-indoor penetration (TR 38.901 Table 7.4.3-2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum O2iKind {
    /// 70 % IRR glass / 30 % concrete, σ_P = 6.5 dB (commercial/office buildings).
    HighLoss,
    /// 30 % standard glass / 70 % concrete, σ_P = 4.4 dB (residential buildings).
    LowLoss,
}

impl O2iKind {
    /// Names accepted by [`O2iKind::from_name`].
    pub const NAMES: &'static [&'static str] = &["low_loss", "high_loss"];

    /// The building type called `s`.
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "low_loss" => Some(O2iKind::LowLoss),
            "high_loss" => Some(O2iKind::HighLoss),
            _ => None,
        }
    }

    /// Through-wall loss PL_tw, dB, at `fc_hz` (TR 38.901 Table 7.4.3-2):
    /// 5 − 10·log10(Σ p_i·10^(−L_i/10)), materials of Table 7.4.3-1 with f in GHz:
    /// standard glass 2 + 0.2f, IRR glass 23 + 0.3f (the value in ns-3-dev and ns3-mmwave;
    /// TR 38.901 v19 lists 25.4 + 0.11f), concrete 5 + 4f.
    pub fn wall_loss_db(&self, fc_hz: f64) -> f64 {
        let f = fc_hz * 1e-9;
        let glass = 2.0 + 0.2 * f;
        let irr_glass = 23.0 + 0.3 * f;
        let concrete = 5.0 + 4.0 * f;
        let lin = |l: f64| 10f64.powf(-l / 10.0);
        let mix = match self {
            O2iKind::LowLoss => 0.3 * lin(glass) + 0.7 * lin(concrete),
            O2iKind::HighLoss => 0.7 * lin(irr_glass) + 0.3 * lin(concrete),
        };
        5.0 - 10.0 * mix.log10()
    }

    /// Standard deviation σ_P of the penetration loss, dB (TR 38.901 Table 7.4.3-2).
    pub fn sigma_db(&self) -> f64 {
        match self {
            O2iKind::LowLoss => 4.4,
            O2iKind::HighLoss => 6.5,
        }
    }
}

/// Maximum of each of the two uniform draws whose minimum is the indoor 2-D distance, m
/// (TR 38.901 §7.4.3: d2D-in = min of two U(0, 25 m) for UMa and UMi).
pub const O2I_INDOOR_DISTANCE_MAX_M: f64 = 25.0;

/// Indoor loss per metre of indoor distance, dB/m (TR 38.901 §7.4.3: PL_in = 0.5·d2D-in).
pub const O2I_INDOOR_LOSS_DB_PER_M: f64 = 0.5;

/// The outdoor-to-indoor penetration of one indoor UE's link (TR 38.901 §7.4.3):
/// PL_O2I = PL_tw + 0.5·d2D-in + N(0, σ_P²), added to the outdoor path loss.
///
/// The indoor distance and the deviation are drawn once ([`O2i::draw`]) and then fixed: TR
/// 38.901 §7.6.3.3 makes them spatially consistent over 25 m / 10 m, far more than a UE moves
/// inside one building. Drawn per link here (the TR draws per UT); RMa (min of two U(0, 10))
/// and the "low-loss A" plywood mix are not modelled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct O2i {
    /// Building type.
    kind: O2iKind,
    /// Through-wall loss PL_tw at the link's carrier, dB.
    wall_loss_db: f64,
    /// Indoor 2-D distance d2D-in, m.
    d2d_in_m: f64,
    /// Drawn deviation N(0, σ_P²), dB.
    deviation_db: f64,
}

impl O2i {
    /// Draws the indoor distance (min of two U(0, 25 m)) and the deviation N(0, σ_P²).
    pub fn draw(kind: O2iKind, fc_hz: f64, rng: &mut SimRng) -> O2i {
        let a: f64 = rng.random::<f64>() * O2I_INDOOR_DISTANCE_MAX_M;
        let b: f64 = rng.random::<f64>() * O2I_INDOOR_DISTANCE_MAX_M;
        let deviation_db = kind.sigma_db() * std_normal(rng);
        O2i::with_values(kind, fc_hz, a.min(b), deviation_db)
    }

    /// A penetration with given indoor distance and deviation (deterministic scenarios, tests).
    pub fn with_values(kind: O2iKind, fc_hz: f64, d2d_in_m: f64, deviation_db: f64) -> O2i {
        O2i {
            kind,
            wall_loss_db: kind.wall_loss_db(fc_hz),
            d2d_in_m,
            deviation_db,
        }
    }

    /// Total penetration loss PL_tw + 0.5·d2D-in + deviation, dB.
    pub fn loss_db(&self) -> f64 {
        self.mean_loss_db() + self.deviation_db
    }

    /// Penetration loss without the random deviation, PL_tw + 0.5·d2D-in, dB.
    pub fn mean_loss_db(&self) -> f64 {
        self.wall_loss_db + O2I_INDOOR_LOSS_DB_PER_M * self.d2d_in_m
    }

    /// Building type.
    pub fn kind(&self) -> O2iKind {
        self.kind
    }

    /// Through-wall loss PL_tw, dB.
    pub fn wall_loss_db(&self) -> f64 {
        self.wall_loss_db
    }

    /// Indoor 2-D distance, m.
    pub fn d2d_in_m(&self) -> f64 {
        self.d2d_in_m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::SeedableRng;

    const FC28: f64 = 28e9;

    fn v(x: f64, y: f64, z: f64) -> Vec3 {
        Vec3 { x, y, z }
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn names_round_trip() {
        for n in PathLossModel::NAMES {
            assert_eq!(PathLossModel::from_name(n).unwrap().name(), *n);
        }
        assert_eq!(PathLossModel::from_name("NYU"), None);
        for n in O2iKind::NAMES {
            assert!(O2iKind::from_name(n).is_some());
        }
    }

    #[test]
    fn nyu_28ghz_worked_numbers() {
        // NYU 28 GHz ([AKDENIZ-2014] as [NS3-MMW-V1] has it), d = 3-D distance (both nodes
        // at the same height here).
        // LOS  = 61.4 + 20·log10(d):   50 m → 61.4 + 33.979 = 95.38;  100 → 101.40;
        //        150 → 61.4 + 43.522 = 104.92;  200 → 61.4 + 46.021 = 107.42.
        // NLOS = 72.0 + 29.2·log10(d): 50 → 72 + 49.610 = 121.61;  100 → 130.40;
        //        150 → 72 + 63.542 = 135.54;  200 → 72 + 67.190 = 139.19.
        // SNR = 109 − PL + 30.1 (30 dBm TX, −79 dBm noise, 64×16 ideal array):
        //        LOS 43.7 / 37.7 / 34.2 / 31.7;  NLOS 17.5 / 8.7 / 3.6 / −0.1.
        let cases = [
            (50.0, 95.38, 121.61, 43.7, 17.5),
            (100.0, 101.40, 130.40, 37.7, 8.7),
            (150.0, 104.92, 135.54, 34.2, 3.6),
            (200.0, 107.42, 139.19, 31.7, -0.1),
        ];
        let g = v(0.0, 0.0, 10.0);
        for (d, los, nlos, snr_los, snr_nlos) in cases {
            let u = v(d, 0.0, 10.0);
            let pl_l = PathLossModel::Nyu.loss_db(FC28, g, u, true);
            let pl_n = PathLossModel::Nyu.loss_db(FC28, g, u, false);
            assert!(close(pl_l, los, 0.01), "LOS {d}: {pl_l}");
            assert!(close(pl_n, nlos, 0.01), "NLOS {d}: {pl_n}");
            // The X-TCP link budget via budget.rs: 30 dBm + 30.1 dB − PL − (−79.0 dBm).
            let noise = crate::budget::thermal_noise_dbm(72.0 * 13.889e6, 5.0);
            let bf = crate::budget::beamforming_gain_db(64, 16);
            let snr_l = crate::budget::sinr_db(30.0 + bf - pl_l, &[], noise);
            let snr_n = crate::budget::sinr_db(30.0 + bf - pl_n, &[], noise);
            assert!(close(snr_l, snr_los, 0.06), "SNR LOS {d}: {snr_l}");
            assert!(close(snr_n, snr_nlos, 0.06), "SNR NLOS {d}: {snr_n}");
        }
    }

    #[test]
    fn nyu_73ghz_uses_its_own_table() {
        // 73 GHz, 100 m: LOS 69.8 + 40 = 109.8; NLOS 82.7 + 26.9·2 = 136.5.
        let (g, u) = (v(0.0, 0.0, 0.0), v(100.0, 0.0, 0.0));
        assert!(close(
            PathLossModel::Nyu.loss_db(73e9, g, u, true),
            109.8,
            1e-9
        ));
        assert!(close(
            PathLossModel::Nyu.loss_db(73e9, g, u, false),
            136.5,
            1e-9
        ));
        assert_eq!(PathLossModel::Nyu.shadow_sigma_db_at(73e9, false), 7.7);
        assert_eq!(PathLossModel::Nyu.shadow_sigma_db(false), 8.7);
    }

    #[test]
    fn nyu_state_probabilities_worked_numbers() {
        // NYU state probabilities: 50 m: p_out = max(0, 1 − e^(−1.67 + 5.2)) = 0,
        //   p_LOS = e^(−0.745) = 0.4747; 100 m: e^(−1.49) = 0.2254; 150 m: e^(−2.235) = 0.1070;
        // 200 m: p_out = 1 − e^(−6.68 + 5.2) = 1 − 0.2276 = 0.7724,
        //   p_LOS = 0.2276·e^(−2.98) = 0.2276·0.05079 = 0.01156, p_NLOS = 0.2160.
        let cases = [
            (50.0, 0.475, 0.525, 0.0),
            (100.0, 0.225, 0.775, 0.0),
            (150.0, 0.107, 0.893, 0.0),
            (200.0, 0.012, 0.216, 0.772),
        ];
        for (d, l, n, o) in cases {
            let p = nyu_state_probabilities(d);
            assert!(close(p.los, l, 0.001), "{d}: {p:?}");
            assert!(close(p.nlos, n, 0.001), "{d}: {p:?}");
            assert!(close(p.outage, o, 0.001), "{d}: {p:?}");
            assert!(close(PathLossModel::Nyu.los_probability(d, 1.5), l, 0.001));
        }
        // p_out starts at d = 5.2/0.0334 = 155.7 m.
        assert_eq!(nyu_state_probabilities(155.0).outage, 0.0);
        assert!(nyu_state_probabilities(157.0).outage > 0.0);
    }

    #[test]
    fn tr38901_examples_at_100m() {
        // [TR38901 Table 7.4.1-1], 28 GHz, h_UT 1.5 m;
        // 20·log10(28) = 28.943, 21.3·log10(28) = 30.824.
        // UMi (h_BS 10): d3D = sqrt(100² + 8.5²) = 100.361, log10 = 2.00156.
        //   LOS  = 32.4 + 21·2.00156 + 28.943 = 103.38
        //   NLOS = max(LOS, 35.3·2.00156 + 22.4 + 30.824) = 123.88
        // UMa (h_BS 25): d3D = sqrt(100² + 23.5²) = 102.724, log10 = 2.01167.
        //   LOS  = 28.0 + 22·2.01167 + 28.943 = 101.20
        //   NLOS = max(LOS, 13.54 + 39.08·2.01167 + 28.943) = 121.10
        let ue = v(100.0, 0.0, 1.5);
        let umi = v(0.0, 0.0, 10.0);
        let uma = v(0.0, 0.0, 25.0);
        assert!(close(
            PathLossModel::Umi.loss_db(FC28, umi, ue, true),
            103.38,
            0.01
        ));
        assert!(close(
            PathLossModel::Umi.loss_db(FC28, umi, ue, false),
            123.88,
            0.01
        ));
        assert!(close(
            PathLossModel::Uma.loss_db(FC28, uma, ue, true),
            101.20,
            0.01
        ));
        assert!(close(
            PathLossModel::Uma.loss_db(FC28, uma, ue, false),
            121.10,
            0.01
        ));
        // Optional NLOS: UMi 32.4 + 28.943 + 31.9·2.00156 = 125.19;
        //                UMa 32.4 + 28.943 + 30·2.01167 = 121.69.
        let p = PathLossModel::UmiOptionalNlos.loss_db(FC28, umi, ue, false);
        assert!(close(p, 125.19, 0.01), "{p}");
        let p = PathLossModel::UmaOptionalNlos.loss_db(FC28, uma, ue, false);
        assert!(close(p, 121.69, 0.01), "{p}");
    }

    #[test]
    fn breakpoint_distances() {
        // d′_BP = 4·(h_BS − 1)·(h_UT − 1)·f_c/c, c = 3e8 ([TR38901 Table 7.4.1-1], Note 1):
        // UMi: 4·9·0.5·28e9/3e8 = 18·93.333 = 1680 m; UMa: 4·24·0.5·93.333 = 4480 m.
        let umi = PathLossModel::Umi.breakpoint_m(FC28, 10.0, 1.5).unwrap();
        let uma = PathLossModel::Uma.breakpoint_m(FC28, 25.0, 1.5).unwrap();
        assert!(close(umi, 1680.0, 1e-6), "{umi}");
        assert!(close(uma, 4480.0, 1e-6), "{uma}");
        assert_eq!(PathLossModel::Nyu.breakpoint_m(FC28, 10.0, 1.5), None);
        // Beyond the breakpoint UMi switches to PL2. At d2D = 2000 m (d3D = 2000.018,
        // log10 = 3.30103): PL2 = 32.4 + 40·3.30103 + 28.943 − 9.5·log10(1680² + 8.5²)
        // = 32.4 + 132.041 + 28.943 − 9.5·6.45063 = 132.10 dB.
        let p = PathLossModel::Umi.loss_db(FC28, v(0.0, 0.0, 10.0), v(2000.0, 0.0, 1.5), true);
        assert!(close(p, 132.10, 0.01), "{p}");
        // Continuity at the breakpoint (both slopes meet there up to the d3D/d2D difference).
        let g = v(0.0, 0.0, 10.0);
        let below = PathLossModel::Umi.loss_db(FC28, g, v(1679.9, 0.0, 1.5), true);
        let above = PathLossModel::Umi.loss_db(FC28, g, v(1680.1, 0.0, 1.5), true);
        assert!((above - below).abs() < 0.01, "{below} {above}");
    }

    #[test]
    fn tr38901_los_probabilities() {
        // [TR38901 Table 7.4.2-1]: UMi 18/d + e^(−d/36)(1 − 18/d):
        //   50 m: 0.36 + 0.24935·0.64 = 0.5196; 100 m: 0.18 + 0.06218·0.82 = 0.2310;
        //   200 m: 0.09 + 0.003866·0.91 = 0.0935.
        // UMa (h_UT ≤ 13 m) 18/d + e^(−d/63)(1 − 18/d):
        //   50 m: 0.36 + 0.45222·0.64 = 0.6494; 100 m: 0.18 + 0.20448·0.82 = 0.3477;
        //   200 m: 0.09 + 0.04180·0.91 = 0.1280.
        let umi = PathLossModel::Umi;
        let uma = PathLossModel::Uma;
        for (d, pu, pa) in [
            (50.0, 0.5196, 0.6494),
            (100.0, 0.2310, 0.3477),
            (200.0, 0.0935, 0.1280),
        ] {
            assert!(close(umi.los_probability(d, 1.5), pu, 0.0005), "UMi {d}");
            assert!(close(uma.los_probability(d, 1.5), pa, 0.0005), "UMa {d}");
        }
        assert_eq!(umi.los_probability(18.0, 1.5), 1.0);
        assert_eq!(uma.los_probability(5.0, 1.5), 1.0);
        // UMa with a high UE: C′(23 m) = 1; at 100 m the factor is
        // 1 + 1.25·1·e^(−2/3) = 1 + 1.25·0.51342 = 1.64177 → 0.34767·1.64177 = 0.5708.
        assert!(close(uma.los_probability(100.0, 23.0), 0.5708, 0.0005));
    }

    #[test]
    fn shadowing_parameters() {
        use PathLossModel::*;
        assert_eq!(
            (Nyu.shadow_sigma_db(true), Nyu.shadow_sigma_db(false)),
            (5.8, 8.7)
        );
        assert_eq!(
            (Umi.shadow_sigma_db(true), Umi.shadow_sigma_db(false)),
            (4.0, 7.82)
        );
        assert_eq!(
            (Uma.shadow_sigma_db(true), Uma.shadow_sigma_db(false)),
            (4.0, 6.0)
        );
        assert_eq!(UmiOptionalNlos.shadow_sigma_db(false), 8.2);
        assert_eq!(UmaOptionalNlos.shadow_sigma_db(false), 7.8);
        assert_eq!(
            (Umi.decorrelation_m(true), Umi.decorrelation_m(false)),
            (10.0, 13.0)
        );
        assert_eq!(
            (Uma.decorrelation_m(true), Uma.decorrelation_m(false)),
            (37.0, 50.0)
        );
    }

    #[test]
    fn o2i_means_at_28ghz() {
        // Low loss: glass 2 + 5.6 = 7.6 dB, concrete 5 + 112 = 117 dB:
        //   5 − 10·log10(0.3·10^−0.76 + 0.7·10^−11.7) = 5 − 10·log10(0.052134) = 5 + 12.829
        //   = 17.83 dB.
        // High loss: IRR glass 23 + 8.4 = 31.4 dB: 5 − 10·log10(0.7·10^−3.14 + 0.3·10^−11.7)
        //   = 5 − 10·log10(5.0711e-4) = 5 + 32.949 = 37.95 dB ("38.0").
        assert!(close(O2iKind::LowLoss.wall_loss_db(FC28), 17.83, 0.01));
        assert!(close(O2iKind::HighLoss.wall_loss_db(FC28), 37.95, 0.01));
        // Plus 0.5 dB per indoor metre: high loss, d_in = 10 m, no deviation → 42.95 dB.
        let o = O2i::with_values(O2iKind::HighLoss, FC28, 10.0, 0.0);
        assert!(close(o.loss_db(), 42.95, 0.01));
        let o = O2i::with_values(O2iKind::LowLoss, FC28, 4.0, -1.5);
        assert!(close(o.loss_db(), 17.83 + 2.0 - 1.5, 0.01));
    }

    #[test]
    fn o2i_indoor_distance_and_deviation_statistics() {
        // d_in = min of two U(0, 25): mean 25/3 = 8.333 m (SD of d_in = 25/sqrt(18) = 5.89;
        // SE with 50k draws 0.026 m; tolerance 0.15 m). Deviation N(0, 6.5²): SD tolerance 2 %.
        let mut r = SimRng::seed_from_u64(9);
        let n = 50_000;
        let (mut sd, mut sdev2) = (0.0, 0.0);
        for _ in 0..n {
            let o = O2i::draw(O2iKind::HighLoss, FC28, &mut r);
            assert!((0.0..25.0).contains(&o.d2d_in_m()));
            sd += o.d2d_in_m();
            let dev = o.loss_db() - o.mean_loss_db();
            sdev2 += dev * dev;
        }
        let mean_d = sd / n as f64;
        let sigma = (sdev2 / n as f64).sqrt();
        assert!(close(mean_d, 25.0 / 3.0, 0.15), "{mean_d}");
        assert!(close(sigma / 6.5, 1.0, 0.02), "{sigma}");
    }

    proptest! {
        #[test]
        fn nlos_never_below_los(
            model in 0usize..5,
            fc_ghz in 6.0f64..100.0,
            x in -5000.0f64..5000.0,
            y in -5000.0f64..5000.0,
            h_bs in 3.0f64..35.0,
            h_ut in 0.0f64..30.0,
        ) {
            let m = PathLossModel::from_name(PathLossModel::NAMES[model]).unwrap();
            let g = v(0.0, 0.0, h_bs);
            let u = v(x, y, h_ut);
            let l = m.loss_db(fc_ghz * 1e9, g, u, true);
            let n = m.loss_db(fc_ghz * 1e9, g, u, false);
            prop_assert!(l.is_finite() && n.is_finite());
            prop_assert!(n >= l, "{:?}: NLOS {} < LOS {}", m, n, l);
        }

        #[test]
        fn los_probability_is_a_probability_and_decreasing_for_low_ues(
            model in 0usize..5, d in 0.0f64..5000.0, dd in 0.0f64..100.0,
        ) {
            let m = PathLossModel::from_name(PathLossModel::NAMES[model]).unwrap();
            let p = m.los_probability(d, 1.5);
            prop_assert!((0.0..=1.0).contains(&p));
            prop_assert!(m.los_probability(d + dd, 1.5) <= p + 1e-12);
        }
    }
}
