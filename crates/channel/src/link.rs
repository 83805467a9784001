//! One gNB–UE link: path loss, LOS state, shadowing, O2I penetration, blockage and fading
//! combined into one gain process advanced in time.
//!
//! The received power is `rx_dbm = tx_dbm + gain_db` with
//!
//! ```text
//! gain_db = bf_gain − pathloss − shadowing − o2i − blockage + fading
//! ```
//!
//! (every term in dB; shadowing, O2I and blockage are losses, fading is a gain with unit mean
//! power). [`LinkChannel::update`] is called about once per millisecond per UE–gNB pair; it
//! allocates nothing and draws at most a handful of random numbers.
//!
//! # LOS state
//! - [`LosMode::Geometric`]: the scenario decides LOS from its buildings and passes
//!   `Some(los)` every update (ns-3 mmWave `BuildingsObstaclePropagationLossModel` /
//!   `MmWave3gppBuildingsPropagationLossModel`, re-evaluated on every call).
//! - [`LosMode::Stochastic`]: the link compares a uniform variable u with the model's LOS
//!   probability at the current distance (TR 38.901 §7.6.3.3: "comparing a realization of a
//!   spatially consistent random variable with the LOS probability"). u is re-drawn each time the
//!   horizontal gNB→UE vector has moved by the LOS-state correlation distance (50 m, TR 38.901
//!   Table 7.6.3.1-2) since the last draw, and kept in between. So a static UE keeps its state
//!   (as ns-3, where the state is cached per node pair), a UE moving at constant distance keeps it
//!   for 50 m, and a UE approaching or leaving the gNB changes state when the probability
//!   crosses u, without flickering. For NYU, u selects among LOS / NLOS / outage
//!   (u < p_LOS → LOS, u < p_LOS + p_NLOS → NLOS, else outage with 500 dB loss), using the 3-D
//!   distance as ns-3 v1 does.
//!
//! # Large-scale terms
//! - Shadowing ([`crate::shadowing`]): σ and decorrelation distance of the model and state
//!   (O2I links: 7 dB / 7 m, TR 38.901 Table 7.5-6), updated with the horizontal displacement;
//!   a fresh draw whenever the state changes (TR 38.901 §7.4.4, ns-3).
//! - O2I ([`crate::pathloss::O2i`]): drawn once per link when the UE is indoor; the LOS
//!   probability then uses the outdoor distance d2D − d2D-in (TR 38.901 §7.4.2).
//! - Blockage ([`crate::blockage`]): model A on the direct path direction.
//!
//! # Deviations from ns-3 mmWave
//! - ns-3 v1's NYU model draws the state and the shadowing once per link and never updates them
//!   ([NS3-MMW-V1] `MmWavePropagationLossModel`); here both evolve with the UE's motion as
//!   described above. A static UE behaves like ns-3.
//! - ns-3 v1 applies no shadowing with the buildings (geometric) model: set `shadowing: false`
//!   to reproduce that.
//! - Fading: see [`crate::fading`] for how the flat Rician/Rayleigh process differs from ns-3
//!   v1's 20-path beamformed channel.

use crate::blockage::{Blockage, BlockageParams};
use crate::budget::beamforming_gain_db;
use crate::fading::{doppler_hz, Fading};
use crate::geometry::Vec3;
use crate::pathloss::{
    nyu_state_probabilities, O2i, O2iKind, PathLossModel, NYU_OUTAGE_LOSS_DB, O2I_DECORRELATION_M,
    O2I_SHADOW_SIGMA_DB,
};
use crate::shadowing::Shadowing;
use mmtsim_engine::{SimRng, SimTime};
use rand::Rng;

/// How a link's LOS/NLOS condition is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LosMode {
    /// From the scenario's buildings: the caller passes `Some(los)` to every update.
    Geometric,
    /// From the model's LOS probability with spatial consistency (the caller passes `None`).
    Stochastic,
}

impl LosMode {
    /// Names accepted by [`LosMode::from_name`].
    pub const NAMES: &'static [&'static str] = &["geometric", "stochastic"];

    /// The mode called `s`.
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "geometric" => Some(LosMode::Geometric),
            "stochastic" => Some(LosMode::Stochastic),
            _ => None,
        }
    }
}

/// Configuration of one link's channel.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkParams {
    /// Path-loss model.
    pub model: PathLossModel,
    /// Carrier frequency, Hz.
    pub fc_hz: f64,
    /// Log-normal shadowing on.
    pub shadowing: bool,
    /// Small-scale fading on (off: the fading term is exactly 0 dB).
    pub fading: bool,
    /// Beamforming gain added to every sample, dB (e.g. [`beamforming_gain_db`]`(64, 16)`).
    pub bf_gain_db: f64,
    /// Blockage model A, if on.
    pub blockage: Option<BlockageParams>,
    /// Building type when the UE is indoor (O2I penetration), `None` for an outdoor UE.
    pub o2i: Option<O2iKind>,
    /// How LOS is decided.
    pub los_mode: LosMode,
}

impl Default for LinkParams {
    /// ns-3 mmWave v1 style: NYU at 28 GHz, 64×16 ideal array gain (30.1 dB), stochastic LOS,
    /// shadowing and fading on, no blockage, outdoor UE.
    fn default() -> Self {
        LinkParams {
            model: PathLossModel::Nyu,
            fc_hz: 28e9,
            shadowing: true,
            fading: true,
            bf_gain_db: beamforming_gain_db(64, 16),
            blockage: None,
            o2i: None,
            los_mode: LosMode::Stochastic,
        }
    }
}

/// The state of one link at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinkSample {
    /// Total gain, dB: bf_gain − pathloss − shadowing − o2i − blockage + fading;
    /// rx_dbm = tx_dbm + gain_db.
    pub gain_db: f64,
    /// Median path loss of the current state, dB (500 dB in NYU outage).
    pub pathloss_db: f64,
    /// Shadowing loss, dB (0 when off).
    pub shadowing_db: f64,
    /// Fading gain, dB (0 when off).
    pub fading_db: f64,
    /// Blockage loss, dB (0 when off).
    pub blockage_db: f64,
    /// O2I penetration loss, dB (0 for an outdoor UE).
    pub o2i_db: f64,
    /// Line of sight (false in NLOS and in NYU outage).
    pub los: bool,
}

/// The propagation condition of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinkState {
    /// Line of sight.
    Los,
    /// Non line of sight.
    Nlos,
    /// NYU outage (no usable path; 500 dB loss).
    Outage,
}

/// One gNB–UE link's large- and small-scale state, advanced in time.
#[derive(Clone, Debug)]
pub struct LinkChannel {
    /// Path-loss model.
    model: PathLossModel,
    /// Carrier, Hz.
    fc_hz: f64,
    /// Beamforming gain, dB.
    bf_gain_db: f64,
    /// Shadowing on.
    shadowing_on: bool,
    /// Fading on.
    fading_on: bool,
    /// This link's random stream.
    rng: SimRng,
    /// Shadowing process (unused when off).
    shadow: Shadowing,
    /// Fading process (unused when off).
    fading: Fading,
    /// Rician K in LOS, dB.
    k_los_db: f64,
    /// Rician K in NLOS, dB (−∞ = Rayleigh).
    k_nlos_db: f64,
    /// Blockage state, if on.
    blockage: Option<Blockage>,
    /// O2I penetration, if the UE is indoor.
    o2i: Option<O2i>,
    /// Uniform variable the stochastic LOS state compares with the LOS probability.
    los_u: f64,
    /// Horizontal distance moved since `los_u` was drawn, m.
    los_travel_m: f64,
    /// Current state; `None` before the first update.
    state: Option<LinkState>,
    /// Time of the previous update.
    last_t: SimTime,
    /// Horizontal gNB→UE vector at the previous update, m.
    last_rel: (f64, f64),
    /// The previous sample.
    last: LinkSample,
    /// What the last positions gave that depends on them alone.
    at: AtPositions,
}

/// The terms of an update that depend on the two positions alone, kept while neither
/// moves (a static UE's links ask for the same ones at every update): the thresholds the
/// stochastic state's uniform variable is compared with, and the path loss in each state.
/// Keyed on the positions' exact bits, so a kept value is the one computed again.
#[derive(Clone, Copy, Debug)]
struct AtPositions {
    key: Option<[[u64; 3]; 2]>,
    /// (P(LOS), P(LOS) + P(NLOS)); the second is +∞ for models without an outage state.
    thresholds: Option<(f64, f64)>,
    /// Path loss, dB, by LOS (`[NLOS, LOS]`).
    loss_db: [Option<f64>; 2],
}

impl AtPositions {
    const NONE: AtPositions = AtPositions {
        key: None,
        thresholds: None,
        loss_db: [None; 2],
    };

    /// The positions are `gnb` and `ue`: what was kept for others is forgotten.
    fn at(&mut self, gnb: Vec3, ue: Vec3) {
        let key = [gnb.bits(), ue.bits()];
        if self.key != Some(key) {
            *self = AtPositions::NONE;
            self.key = Some(key);
        }
    }
}

impl LinkChannel {
    /// A new link; everything random comes from `rng`, which the link owns from now on.
    pub fn new(p: &LinkParams, mut rng: SimRng) -> LinkChannel {
        assert!(
            p.fc_hz > 0.0,
            "carrier frequency must be positive, got {} Hz",
            p.fc_hz
        );
        let o2i = p.o2i.map(|k| O2i::draw(k, p.fc_hz, &mut rng));
        let blockage = p
            .blockage
            .as_ref()
            .map(|b| Blockage::new(b, p.fc_hz, &mut rng));
        let fading = Fading::new(&mut rng);
        let los_u = rng.random();
        LinkChannel {
            model: p.model,
            fc_hz: p.fc_hz,
            bf_gain_db: p.bf_gain_db,
            shadowing_on: p.shadowing,
            fading_on: p.fading,
            rng,
            shadow: Shadowing::off(),
            fading,
            k_los_db: p.model.rician_k_db(),
            k_nlos_db: f64::NEG_INFINITY,
            blockage,
            o2i,
            los_u,
            los_travel_m: 0.0,
            state: None,
            last_t: SimTime::ZERO,
            last_rel: (0.0, 0.0),
            last: LinkSample::default(),
            at: AtPositions::NONE,
        }
    }

    /// Overrides the Rician K-factors used in LOS and NLOS, dB (`f64::NEG_INFINITY` =
    /// Rayleigh). Defaults: the model's mean LOS K (9 dB) and Rayleigh in NLOS. A K in NLOS
    /// models the milder effective fading seen through narrow aligned beams.
    pub fn set_k_factors_db(&mut self, k_los_db: f64, k_nlos_db: f64) {
        self.k_los_db = k_los_db;
        self.k_nlos_db = k_nlos_db;
        if let Some(s) = self.state {
            self.fading.set_k_factor_db(self.k_for(s));
        }
    }

    /// Advances the link to `now` (non-decreasing) with the current positions and UE speed.
    /// `geometric_los` is `Some(los)` when the scenario decides LOS from buildings
    /// ([`LosMode::Geometric`]) and `None` for the stochastic LOS model.
    pub fn update(
        &mut self,
        now: SimTime,
        gnb: Vec3,
        ue: Vec3,
        ue_speed_mps: f64,
        geometric_los: Option<bool>,
    ) -> LinkSample {
        let first = self.state.is_none();
        debug_assert!(
            first || now >= self.last_t,
            "link updated backwards in time: {now} < {}",
            self.last_t
        );
        let rel = (ue.x - gnb.x, ue.y - gnb.y);
        let (dt_s, dx_m) = if first {
            (0.0, 0.0)
        } else {
            let (ex, ey) = (rel.0 - self.last_rel.0, rel.1 - self.last_rel.1);
            (
                now.saturating_sub(self.last_t).secs_f64(),
                (ex * ex + ey * ey).sqrt(),
            )
        };
        self.last_t = now;
        self.last_rel = rel;
        self.at.at(gnb, ue);

        // 1. LOS state.
        let state = match geometric_los {
            Some(true) => LinkState::Los,
            Some(false) => LinkState::Nlos,
            None => self.stochastic_state(first, dx_m, gnb, ue),
        };
        let changed = self.state != Some(state);
        self.state = Some(state);
        let los = state == LinkState::Los;

        // 2. Shadowing: fresh on a new link or a state change, else correlated update.
        if self.shadowing_on {
            if changed {
                let (sigma, d_cor) = if self.o2i.is_some() {
                    (O2I_SHADOW_SIGMA_DB, O2I_DECORRELATION_M)
                } else {
                    (
                        self.model.shadow_sigma_db_at(self.fc_hz, los),
                        self.model.decorrelation_m(los),
                    )
                };
                self.shadow.redraw(sigma, d_cor, &mut self.rng);
            } else {
                self.shadow.advance(dx_m, &mut self.rng);
            }
        }

        // 3. Fading: the K-factor follows the state; the diffuse process runs on.
        if self.fading_on {
            if changed {
                self.fading.set_k_factor_db(self.k_for(state));
            }
            if dt_s > 0.0 {
                let fd = doppler_hz(ue_speed_mps, self.fc_hz);
                self.fading.advance(dt_s, fd, &mut self.rng);
            }
        }

        // 4. Blockage.
        let blockage_db = match &mut self.blockage {
            Some(b) => b.update(now, gnb, ue, &mut self.rng),
            None => 0.0,
        };

        // 5. Sum up.
        let pathloss_db = match state {
            LinkState::Outage => NYU_OUTAGE_LOSS_DB,
            _ => *self.at.loss_db[los as usize]
                .get_or_insert_with(|| self.model.loss_db(self.fc_hz, gnb, ue, los)),
        };
        let shadowing_db = if self.shadowing_on {
            self.shadow.value_db()
        } else {
            0.0
        };
        let fading_db = if self.fading_on {
            self.fading.gain_db()
        } else {
            0.0
        };
        let o2i_db = self.o2i.as_ref().map_or(0.0, |o| o.loss_db());
        let gain_db =
            self.bf_gain_db - pathloss_db - shadowing_db - o2i_db - blockage_db + fading_db;
        self.last = LinkSample {
            gain_db,
            pathloss_db,
            shadowing_db,
            fading_db,
            blockage_db,
            o2i_db,
            los,
        };
        self.last
    }

    /// The stochastic state: re-draw u after moving the LOS-state correlation distance, then
    /// compare it with the state probabilities at the current distance.
    fn stochastic_state(&mut self, first: bool, dx_m: f64, gnb: Vec3, ue: Vec3) -> LinkState {
        if !first {
            self.los_travel_m += dx_m;
            if self.los_travel_m >= self.model.los_state_decorrelation_m() {
                self.los_u = self.rng.random();
                self.los_travel_m = 0.0;
            }
        }
        let (model, o2i) = (self.model, &self.o2i);
        let (los, los_or_nlos) = *self.at.thresholds.get_or_insert_with(|| {
            let (dx, dy, dz) = (ue.x - gnb.x, ue.y - gnb.y, ue.z - gnb.z);
            let d2d = (dx * dx + dy * dy).sqrt();
            match model {
                PathLossModel::Nyu => {
                    // ns-3 v1 evaluates the NYU probabilities at the 3-D distance.
                    let p = nyu_state_probabilities((d2d * d2d + dz * dz).sqrt());
                    (p.los, p.los + p.nlos)
                }
                m => {
                    let d_out = d2d - o2i.as_ref().map_or(0.0, |o| o.d2d_in_m());
                    (m.los_probability(d_out.max(0.0), ue.z), f64::INFINITY)
                }
            }
        });
        let u = self.los_u;
        if u < los {
            LinkState::Los
        } else if u < los_or_nlos {
            LinkState::Nlos
        } else {
            LinkState::Outage
        }
    }

    /// K-factor for a state, dB.
    fn k_for(&self, s: LinkState) -> f64 {
        if s == LinkState::Los {
            self.k_los_db
        } else {
            self.k_nlos_db
        }
    }

    /// Current state (`None` before the first update).
    pub fn state(&self) -> Option<LinkState> {
        self.state
    }

    /// The sample returned by the last update.
    pub fn last_sample(&self) -> LinkSample {
        self.last
    }

    /// The link's O2I penetration, if the UE is indoor.
    pub fn o2i(&self) -> Option<&O2i> {
        self.o2i.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::db_to_lin;
    use crate::pathloss::O2iKind;
    use rand::SeedableRng;

    fn v(x: f64, y: f64, z: f64) -> Vec3 {
        Vec3 { x, y, z }
    }

    fn rng(seed: u64) -> SimRng {
        SimRng::seed_from_u64(seed)
    }

    fn plain(model: PathLossModel) -> LinkParams {
        LinkParams {
            model,
            fc_hz: 28e9,
            shadowing: false,
            fading: false,
            bf_gain_db: beamforming_gain_db(64, 16),
            blockage: None,
            o2i: None,
            los_mode: LosMode::Geometric,
        }
    }

    const MS: fn(u64) -> SimTime = SimTime::from_ms;

    #[test]
    fn deterministic_gain_without_random_terms() {
        // NYU 28 GHz at 100 m: LOS PL 101.40, NLOS 130.40; gain = 30.103 − PL.
        let mut l = LinkChannel::new(&plain(PathLossModel::Nyu), rng(1));
        let g = v(0.0, 0.0, 10.0);
        let u = v(100.0, 0.0, 10.0);
        let s = l.update(MS(0), g, u, 0.0, Some(true));
        assert!((s.gain_db - (30.103 - 101.40)).abs() < 0.001, "{s:?}");
        assert!(s.los && s.shadowing_db == 0.0 && s.fading_db == 0.0 && s.blockage_db == 0.0);
        let s = l.update(MS(1), g, u, 0.0, Some(false));
        assert!((s.gain_db - (30.103 - 130.40)).abs() < 0.001, "{s:?}");
        assert!(!s.los);
        assert_eq!(l.state(), Some(LinkState::Nlos));
    }

    #[test]
    fn terms_kept_for_a_position_are_forgotten_when_either_end_moves() {
        // UMi in stochastic mode, no random terms but the state: at every update the path
        // loss is the model's at this update's positions, and the state the one the LOS
        // probability there gives for the link's uniform variable. P(LOS) is high at 20 m
        // and low at 200 m; the end checks that this seed's walk saw both states.
        let mut p = plain(PathLossModel::Umi);
        p.los_mode = LosMode::Stochastic;
        let mut l = LinkChannel::new(&p, rng(3));
        let (g, far) = (v(0.0, 0.0, 10.0), v(0.0, 185.0, 10.0));
        let steps = [
            (g, 20.0),
            (g, 20.0),
            (g, 200.0),
            (g, 200.0),
            (g, 20.0),
            (far, 20.0),
        ];
        let mut states = Vec::new();
        for (i, (gnb, x)) in steps.into_iter().enumerate() {
            let ue = v(x, 0.0, 1.5);
            let s = l.update(MS(i as u64), gnb, ue, 0.0, None);
            // The variable this update compared (redrawn after the correlation distance).
            let u = l.los_u;
            let los = u < PathLossModel::Umi.los_probability(ue.dist2d(gnb), ue.z);
            assert_eq!(s.los, los, "step {i}");
            let loss = PathLossModel::Umi.loss_db(p.fc_hz, gnb, ue, los);
            assert_eq!(s.pathloss_db.to_bits(), loss.to_bits(), "step {i}");
            states.push(los);
        }
        // The walk did see both states, so a kept value that outlived its positions fails.
        let both = states.contains(&true) && states.contains(&false);
        assert!(both, "{states:?}");
    }

    #[test]
    fn gain_is_the_sum_of_its_terms() {
        let p = LinkParams {
            model: PathLossModel::Umi,
            shadowing: true,
            fading: true,
            blockage: Some(BlockageParams::outdoor()),
            o2i: Some(O2iKind::LowLoss),
            los_mode: LosMode::Stochastic,
            ..LinkParams::default()
        };
        let mut l = LinkChannel::new(&p, rng(2));
        for i in 0..2000u64 {
            let u = v(20.0 + 0.1 * i as f64, 5.0, 1.5);
            let s = l.update(MS(i), v(0.0, 0.0, 10.0), u, 10.0, None);
            let sum = p.bf_gain_db - s.pathloss_db - s.shadowing_db - s.o2i_db - s.blockage_db
                + s.fading_db;
            assert!((s.gain_db - sum).abs() < 1e-9);
            assert!(s.o2i_db > 0.0);
            assert_eq!(
                s.pathloss_db,
                PathLossModel::Umi.loss_db(28e9, v(0.0, 0.0, 10.0), u, s.los)
            );
        }
    }

    #[test]
    fn same_seed_same_samples() {
        let p = LinkParams {
            blockage: Some(BlockageParams::outdoor()),
            ..LinkParams::default()
        };
        let run = || {
            let mut l = LinkChannel::new(&p, rng(42));
            (0..500u64)
                .map(|i| {
                    l.update(
                        MS(i),
                        v(0.0, 0.0, 10.0),
                        v(30.0 + i as f64 * 0.01, 0.0, 1.5),
                        10.0,
                        None,
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn stochastic_los_fraction_follows_the_probability() {
        // 4000 independent links at d2D = 100 m. UMi p_LOS = 0.2310 (pathloss tests);
        // binomial SE sqrt(0.231·0.769/4000) = 0.0067, tolerance 0.03.
        // NYU at 3-D distance 200 m: p_LOS 0.0116, p_NLOS 0.2160, p_out 0.7724 (SE ≤ 0.0066).
        let n = 4000;
        let mut umi_los = 0;
        let (mut nyu_los, mut nyu_out) = (0, 0);
        for seed in 0..n {
            let mut p = plain(PathLossModel::Umi);
            p.los_mode = LosMode::Stochastic;
            let mut l = LinkChannel::new(&p, rng(seed));
            let s = l.update(MS(0), v(0.0, 0.0, 10.0), v(100.0, 0.0, 1.5), 0.0, None);
            umi_los += s.los as u32;
            p.model = PathLossModel::Nyu;
            let mut l = LinkChannel::new(&p, rng(seed + 1_000_000));
            let s = l.update(MS(0), v(0.0, 0.0, 10.0), v(200.0, 0.0, 10.0), 0.0, None);
            nyu_los += s.los as u32;
            if l.state() == Some(LinkState::Outage) {
                nyu_out += 1;
                assert_eq!(s.pathloss_db, NYU_OUTAGE_LOSS_DB);
            }
        }
        let f = |c: u32| c as f64 / n as f64;
        assert!((f(umi_los) - 0.2310).abs() < 0.03, "UMi {}", f(umi_los));
        assert!((f(nyu_los) - 0.0116).abs() < 0.01, "NYU LOS {}", f(nyu_los));
        assert!(
            (f(nyu_out) - 0.7724).abs() < 0.03,
            "NYU outage {}",
            f(nyu_out)
        );
    }

    #[test]
    fn stochastic_state_is_redrawn_only_after_the_correlation_distance() {
        // UE on a circle of radius 100 m around the gNB (constant distance, so constant p):
        // chord steps of 1.000001 m (the extra micrometre keeps the sum of 50 chords above
        // 50 m despite rounding). The state may change only when the accumulated travel
        // reaches 50 m, i.e. on steps 50, 100, 150, …
        let mut p = plain(PathLossModel::Umi);
        p.los_mode = LosMode::Stochastic;
        let r_m: f64 = 100.0;
        let dtheta = 2.0 * (1.000001 / (2.0 * r_m)).asin();
        let mut changes = 0;
        for seed in 0..20 {
            let mut l = LinkChannel::new(&p, rng(seed));
            let mut prev = None;
            for k in 0..2000u64 {
                let a = k as f64 * dtheta;
                let u = v(r_m * a.cos(), r_m * a.sin(), 1.5);
                let s = l.update(MS(k), v(0.0, 0.0, 10.0), u, 1.0, None);
                if let Some(p) = prev {
                    if p != s.los {
                        changes += 1;
                        assert!(k % 50 == 0, "state changed at step {k}");
                    }
                }
                prev = Some(s.los);
            }
        }
        // 20 links × 39 re-draws, each flipping with probability 2·0.231·0.769 = 0.355.
        assert!(changes > 100, "{changes}");
    }

    #[test]
    fn static_ue_keeps_its_stochastic_state() {
        let mut p = plain(PathLossModel::Nyu);
        p.los_mode = LosMode::Stochastic;
        for seed in 0..50 {
            let mut l = LinkChannel::new(&p, rng(seed));
            let first = l.update(MS(0), v(0.0, 0.0, 10.0), v(80.0, 0.0, 1.5), 0.0, None);
            for k in 1..200 {
                let s = l.update(MS(k), v(0.0, 0.0, 10.0), v(80.0, 0.0, 1.5), 0.0, None);
                assert_eq!(s, first);
            }
        }
    }

    #[test]
    fn shadowing_is_redrawn_on_state_change_and_correlated_otherwise() {
        // 3000 links (NYU 28 GHz, geometric): LOS at t = 0, then the UE moves 0.5 m.
        // (a) Still LOS: correlation exp(−0.5/10) = 0.9512 with the first value.
        // (b) Flipped to NLOS: independent draw with σ = 8.7 dB; correlation ≈ 0.
        // SE of a correlation estimate with 3000 pairs ≈ (1 − ρ²)/sqrt(3000): 0.002 for (a),
        // 0.018 for (b); σ estimates ±1.3 % (SE); tolerances ≥ 4 SE.
        let n = 3000;
        let mut first = Vec::new();
        let mut same = Vec::new();
        let mut flipped = Vec::new();
        let mut p = plain(PathLossModel::Nyu);
        p.shadowing = true;
        for seed in 0..n {
            let mut a = LinkChannel::new(&p, rng(seed));
            let mut b = LinkChannel::new(&p, rng(seed));
            let g = v(0.0, 0.0, 10.0);
            let s0 = a.update(MS(0), g, v(60.0, 0.0, 1.5), 1.0, Some(true));
            b.update(MS(0), g, v(60.0, 0.0, 1.5), 1.0, Some(true));
            first.push(s0.shadowing_db);
            same.push(
                a.update(MS(500), g, v(60.5, 0.0, 1.5), 1.0, Some(true))
                    .shadowing_db,
            );
            flipped.push(
                b.update(MS(500), g, v(60.5, 0.0, 1.5), 1.0, Some(false))
                    .shadowing_db,
            );
        }
        let sd = |x: &[f64]| (x.iter().map(|v| v * v).sum::<f64>() / x.len() as f64).sqrt();
        let corr = |x: &[f64], y: &[f64]| {
            x.iter().zip(y).map(|(a, b)| a * b).sum::<f64>() / x.len() as f64 / sd(x) / sd(y)
        };
        assert!(
            (sd(&first) / 5.8 - 1.0).abs() < 0.06,
            "σ LOS {}",
            sd(&first)
        );
        assert!(
            (sd(&flipped) / 8.7 - 1.0).abs() < 0.06,
            "σ NLOS {}",
            sd(&flipped)
        );
        assert!(
            (corr(&first, &same) - 0.9512).abs() < 0.01,
            "{}",
            corr(&first, &same)
        );
        assert!(
            corr(&first, &flipped).abs() < 0.08,
            "{}",
            corr(&first, &flipped)
        );
    }

    #[test]
    fn fading_is_off_static_or_unit_mean() {
        let mut p = plain(PathLossModel::Umi);
        p.fading = true;
        let (g, u) = (v(0.0, 0.0, 10.0), v(50.0, 0.0, 1.5));
        // Static UE: the fading value never changes.
        let mut l = LinkChannel::new(&p, rng(3));
        let f0 = l.update(MS(0), g, u, 0.0, Some(false)).fading_db;
        for k in 1..100 {
            assert_eq!(l.update(MS(k), g, u, 0.0, Some(false)).fading_db, f0);
        }
        // Moving UE (3 m/s at 28 GHz: f_D = 280 Hz, T_c = 1.25 ms), sampled every 10 ms
        // (ρ = e^−8 ≈ 0) in NLOS (Rayleigh): E[10^(F/10)] = 1 with SE 1/sqrt(20k) = 0.007.
        let mut l = LinkChannel::new(&p, rng(4));
        let n = 20_000u64;
        let mean = (0..n)
            .map(|k| db_to_lin(l.update(MS(10 * k), g, u, 3.0, Some(false)).fading_db))
            .sum::<f64>()
            / n as f64;
        assert!((mean - 1.0).abs() < 0.035, "{mean}");
    }

    #[test]
    fn blockage_and_o2i_enter_the_gain() {
        // gNB 100 m west, portrait self-blocking region (200°, 320°) rotated by bearing −60°
        // contains the arrival azimuth 180° → 30 dB; no non-self blockers.
        let mut p = plain(PathLossModel::Umi);
        p.blockage = Some(BlockageParams {
            num_blockers: 0,
            ue_bearing_deg: -60.0,
            ..BlockageParams::outdoor()
        });
        let (g, u) = (v(-100.0, 0.0, 10.0), v(0.0, 0.0, 1.5));
        let mut l = LinkChannel::new(&p, rng(5));
        let s = l.update(MS(0), g, u, 0.0, Some(true));
        assert_eq!(s.blockage_db, 30.0);
        // UMi LOS at 100 m: 103.38 dB → gain 30.103 − 103.38 − 30 = −103.28 dB.
        assert!((s.gain_db - (30.103 - 103.38 - 30.0)).abs() < 0.01, "{s:?}");
        // Indoor UE, high-loss building: o2i_db = PL_tw + 0.5·d_in + deviation, fixed per link.
        let mut p = plain(PathLossModel::Umi);
        p.o2i = Some(O2iKind::HighLoss);
        let mut l = LinkChannel::new(&p, rng(6));
        let o = *l.o2i().unwrap();
        let s1 = l.update(MS(0), g, u, 0.0, Some(false));
        let s2 = l.update(MS(1), g, v(1.0, 0.0, 1.5), 1.0, Some(false));
        assert_eq!(s1.o2i_db, o.loss_db());
        assert_eq!(s2.o2i_db, o.loss_db());
        assert!((o.mean_loss_db() - (37.95 + 0.5 * o.d2d_in_m())).abs() < 0.01);
    }

    #[test]
    fn o2i_links_use_the_o2i_shadowing_sigma() {
        // σ_SF = 7 dB for O2I whatever the state (SE of σ with 3000 draws: 1.3 %).
        let mut p = plain(PathLossModel::Uma);
        p.shadowing = true;
        p.o2i = Some(O2iKind::LowLoss);
        let x: Vec<f64> = (0..3000)
            .map(|seed| {
                let mut l = LinkChannel::new(&p, rng(seed));
                l.update(MS(0), v(0.0, 0.0, 25.0), v(80.0, 0.0, 1.5), 0.0, Some(true))
                    .shadowing_db
            })
            .collect();
        let sd = (x.iter().map(|v| v * v).sum::<f64>() / x.len() as f64).sqrt();
        assert!((sd / 7.0 - 1.0).abs() < 0.06, "{sd}");
    }

    /// Not a check: prints the cost of one `update` with every term on (blockage with 4
    /// blockers near the horizon so the diffraction formula runs). Run with
    /// `cargo test -p mmtsim-channel --release print_update_cost -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn print_update_cost() {
        let p = LinkParams {
            model: PathLossModel::Umi,
            blockage: Some(BlockageParams::outdoor()),
            o2i: Some(O2iKind::LowLoss),
            ..LinkParams::default()
        };
        let mut l = LinkChannel::new(&p, rng(1));
        let n = 1_000_000u64;
        let t0 = std::time::Instant::now();
        let mut acc = 0.0;
        for k in 0..n {
            let u = v(200.0 + 0.01 * (k % 10_000) as f64, 3.0, 9.0);
            acc += l.update(MS(k), v(0.0, 0.0, 10.0), u, 10.0, None).gain_db;
        }
        let ns = t0.elapsed().as_nanos() as f64 / n as f64;
        println!("LinkChannel::update: {ns:.0} ns/call (checksum {acc:.3})");
    }

    #[test]
    fn names() {
        for n in LosMode::NAMES {
            assert!(LosMode::from_name(n).is_some());
        }
        assert_eq!(LosMode::from_name("x"), None);
    }
}
