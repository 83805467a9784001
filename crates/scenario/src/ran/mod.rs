//! The `[ran]` table: cells, UEs, buildings, channel, radio stack — its model, its checks
//! and its resolution into [`mmtsim_ran::config::RanConfig`].
//!
//! This file holds the model (the serde structures of the table and their defaults); the
//! checks ([`validate`], with the limits it enforces) are in `checks.rs`, the resolution
//! ([`ran_config`] and the conversions it shares with the checks: [`numerology_of`],
//! [`mobility_spec`], [`area_box`]) in `resolution.rs`. Both are re-exported here, so the
//! paths `mmtsim_scenario::ran::...` are those of a single module.
//!
//! gNBs and UEs are nodes: their names join the `[[nodes]]` names (links connect a gNB to
//! the core; flows start or end at a UE). Positions and sizes are plain numbers in metres
//! (the `_m` suffix), speeds in metres per second (`_mps`).

use crate::units::{Duration, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

mod checks;
pub mod dual;
pub mod handover;
mod resolution;

pub use checks::{validate, SinrTraces, MAX_RANDOM_OBSTACLES, MAX_UES};
pub use resolution::{area_box, box_row, lane, mobility_spec, numerology_of, ran_config};

/// The radio access network.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ran {
    /// Frame and PHY preset: "mmwave-2017" (ns-3 mmWave 2017, the X-TCP paper), "nr-fr2"
    /// or "lte-2ghz" (default "mmwave-2017").
    #[serde(default = "default_preset")]
    pub preset: String,
    /// Resource blocks (only "lte-2ghz": 6, 15, 25, 50, 75 or 100; default 100).
    #[serde(default)]
    pub rbs: Option<u32>,
    /// Transmit powers overriding every cell's preset: `{ gnb = 30.0, ue = 30.0 }`, dBm
    /// (each optional; presets: mmwave-2017 and nr-fr2 30/30, lte-2ghz 46/23).
    #[serde(default)]
    pub tx_power_dbm: Option<TxPower>,
    /// Scheduler: "rr" (round robin, default), "pf" (proportional fair) or "max-rate".
    #[serde(default = "default_scheduler")]
    pub scheduler: String,
    /// HARQ retransmissions (default true).
    #[serde(default = "yes")]
    pub harq: bool,
    /// Age of the SINR report the downlink MCS uses (default: the preset's L1/L2 control
    /// latency, 2 slots).
    #[serde(default)]
    pub cqi_delay: Option<Duration>,
    /// PDCP t-Reordering (TS 38.323 §5.2.2): how long a receiving PDCP entity waits for a
    /// missing COUNT before delivering past it; packets that arrive later are discarded.
    /// Matters when one bearer has two legs (dual connectivity). Default 0s, ns-3
    /// mmWave's LTE PDCP: a gap is released at once.
    #[serde(default)]
    pub pdcp_t_reordering: Duration,
    /// PDCP SN length in bits, 12 or 18 (TS 38.323 §6.2.2: 2- and 3-byte data PDU headers).
    /// The receiving window is 2^(bits−1) COUNTs: with t-Reordering, more packets than
    /// that in flight behind a gap (2048 at 12 bits: 22 ms at 1 Gbit/s of 1400-byte
    /// packets) put later packets outside the window. Default 12, ns-3 mmWave's LTE PDCP.
    #[serde(default = "default_pdcp_sn_bits")]
    pub pdcp_sn_bits: u8,
    /// Age of the uplink buffer status the scheduler sees (default: L1/L2 latency + UL
    /// scheduling delay, 3 slots).
    #[serde(default)]
    pub bsr_delay: Option<Duration>,
    /// Channel update interval (default 1ms).
    #[serde(default = "default_channel_update")]
    pub channel_update: Duration,
    /// Downlink interference from the other cells on the serving carrier: "active" (a
    /// cell interferes in the slots it transmits, with the beams of the UEs it sends to),
    /// "full-buffer" (every cell transmits all the time, beams toward its own UEs),
    /// "full-buffer-omni" (every cell all the time, no antenna gain at either end), "off";
    /// true = "full-buffer-omni", false = "off" (default true).
    #[serde(default = "interference_default")]
    pub interference: InterferenceKey,
    /// Rectangle UEs must stay in and where random obstacles are placed.
    #[serde(default)]
    pub area: Option<Area>,
    /// RLC configuration.
    #[serde(default)]
    pub rlc: RlcTable,
    /// Channel model.
    #[serde(default)]
    pub channel: ChannelTable,
    /// Base stations.
    pub gnbs: Vec<Gnb>,
    /// User equipment.
    pub ues: Vec<Ue>,
    /// Buildings (boxes blocking LOS).
    #[serde(default)]
    pub buildings: Vec<BoxSpec>,
    /// Small obstacles (boxes blocking LOS); may not overlap buildings or each other.
    #[serde(default)]
    pub obstacles: Vec<BoxSpec>,
    /// Random non-overlapping obstacles drawn from the run's seed.
    #[serde(default)]
    pub random_obstacles: Option<RandomObstacles>,
    /// Lanes of moving vehicles (cars, buses) that block the links they pass between.
    #[serde(default)]
    pub vehicles: Vec<VehicleLane>,
    /// Measurement-based handover (default: off, only scripted handovers).
    #[serde(default)]
    pub handover: handover::HandoverTable,
    /// How a dually connected UE's split bearer picks its leg (default: the per-SDU
    /// SINR rule; "coordinated": the LTE anchor's coordinator).
    #[serde(default)]
    pub dual_connectivity: dual::DualTable,
}

fn default_preset() -> String {
    "mmwave-2017".into()
}
fn default_scheduler() -> String {
    "rr".into()
}
fn default_pdcp_sn_bits() -> u8 {
    12
}
fn default_channel_update() -> Duration {
    Duration(1_000_000)
}
fn yes() -> bool {
    true
}
fn interference_default() -> InterferenceKey {
    InterferenceKey::Switch(true)
}

/// `ran.interference`: a mode by name, or the switch of the first version (true: every
/// other cell at full power without beams; false: off), kept as written so the resolved
/// scenario shows what the file said.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum InterferenceKey {
    /// true = "full-buffer-omni", false = "off".
    Switch(bool),
    /// A mode: "active", "full-buffer", "full-buffer-omni" or "off".
    Mode(InterferenceMode),
}

/// The interference modes by name.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum InterferenceMode {
    /// Cells interfere in the slots they transmit, with their beams.
    Active,
    /// Every cell transmits all the time, beams toward its own UEs.
    FullBuffer,
    /// Every cell transmits all the time, no antenna gain at either end.
    FullBufferOmni,
    /// No interference.
    Off,
}

impl InterferenceKey {
    /// The RAN's mode.
    pub fn mode(&self) -> mmtsim_ran::config::Interference {
        use mmtsim_ran::config::Interference as I;
        match self {
            InterferenceKey::Switch(true)
            | InterferenceKey::Mode(InterferenceMode::FullBufferOmni) => I::FullBufferOmni,
            InterferenceKey::Switch(false) | InterferenceKey::Mode(InterferenceMode::Off) => I::Off,
            InterferenceKey::Mode(InterferenceMode::Active) => I::Active,
            InterferenceKey::Mode(InterferenceMode::FullBuffer) => I::FullBuffer,
        }
    }
}

impl<'de> Deserialize<'de> for InterferenceKey {
    // Hand-written instead of `untagged` so that a misspelt mode is reported with its value
    // and the names expected, not as "did not match any variant".
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        const EXPECTED: &str =
            "\"active\", \"full-buffer\", \"full-buffer-omni\", \"off\", true or false";
        impl serde::de::Visitor<'_> for V {
            type Value = InterferenceKey;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(EXPECTED)
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<InterferenceKey, E> {
                Ok(InterferenceKey::Switch(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<InterferenceKey, E> {
                use mmtsim_ran::config::Interference as I;
                let mode = match I::from_name(v) {
                    Some(I::Active) => InterferenceMode::Active,
                    Some(I::FullBuffer) => InterferenceMode::FullBuffer,
                    Some(I::FullBufferOmni) => InterferenceMode::FullBufferOmni,
                    Some(I::Off) => InterferenceMode::Off,
                    None => return Err(E::invalid_value(serde::de::Unexpected::Str(v), &EXPECTED)),
                };
                Ok(InterferenceKey::Mode(mode))
            }
        }
        d.deserialize_any(V)
    }
}

/// An axis-aligned rectangle, metres.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Area {
    /// Lower-left corner [x, y], m.
    pub min_m: [f64; 2],
    /// Upper-right corner [x, y], m.
    pub max_m: [f64; 2],
}

/// A box (building or obstacle), metres.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BoxSpec {
    /// Lowest corner [x, y, z], m.
    pub min_m: [f64; 3],
    /// Highest corner [x, y, z], m.
    pub max_m: [f64; 3],
    /// What it is ("lamppost", "bus", "statue", …): a label for the reader, no effect.
    #[serde(default)]
    pub kind: Option<String>,
    /// Copies of the box in a row (lampposts every 20 m along a street): `count` boxes in
    /// all, the k-th moved by k·`step_m` (default: just this one).
    #[serde(default)]
    pub repeat: Option<Repeat>,
}

/// A row of identical boxes.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Repeat {
    /// Boxes in the row, the first included (≥ 1).
    pub count: usize,
    /// Offset between consecutive boxes [x, y, z], m.
    pub step_m: [f64; 3],
}

/// A lane of vehicles driving at a constant speed; a vehicle reaching `to_m` re-enters at
/// `from_m`, so the traffic is the same all run long.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VehicleLane {
    /// What drives on it ("car", "bus", …): a label, no effect.
    #[serde(default)]
    pub kind: Option<String>,
    /// Entry point of the lane's centre line [x, y, z] (z: road surface), m.
    pub from_m: [f64; 3],
    /// Exit point; the lane must be parallel to the x or the y axis, m.
    pub to_m: [f64; 3],
    /// Vehicle size [length, width, height], m.
    pub size_m: [f64; 3],
    /// Vehicles on the lane (default 1).
    #[serde(default = "one")]
    pub count: usize,
    /// Distance between the fronts of consecutive vehicles, m (default: the lane length
    /// divided by `count`, evenly spread).
    #[serde(default)]
    pub spacing_m: Option<f64>,
    /// How far past `from_m` the first vehicle's front is at t = 0, m (default: its
    /// length, so it starts wholly on the lane).
    #[serde(default)]
    pub offset_m: Option<f64>,
    /// Speed, m/s (0: parked).
    pub speed_mps: f64,
}

fn one() -> usize {
    1
}

/// Random obstacles (X-TCP Fig. 1).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RandomObstacles {
    /// How many.
    pub count: usize,
    /// Footprint side range [min, max], m.
    pub side_m: [f64; 2],
    /// Height range [min, max], m.
    pub height_m: [f64; 2],
    /// Minimum horizontal distance to the gNBs and to UE paths, m (default 2).
    #[serde(default = "two")]
    pub clearance_m: f64,
}

fn two() -> f64 {
    2.0
}

/// Transmit powers, dBm.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TxPower {
    /// Every gNB's (default: the preset's).
    #[serde(default)]
    pub gnb: Option<f64>,
    /// Every UE's (default: the preset's).
    #[serde(default)]
    pub ue: Option<f64>,
}

/// RLC settings (defaults: ns-3 mmWave's).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RlcTable {
    /// "am" (default) or "um".
    #[serde(default)]
    pub mode: Option<String>,
    /// Transmission buffer per entity (default 1MiB as ns-3 mmWave; "0B" = unlimited).
    #[serde(default)]
    pub buffer: Option<Size>,
    /// t-PollRetransmit (default 20ms).
    #[serde(default)]
    pub t_poll_retransmit: Option<Duration>,
    /// t-Reordering (default 10ms).
    #[serde(default)]
    pub t_reordering: Option<Duration>,
    /// t-StatusProhibit (default 10ms).
    #[serde(default)]
    pub t_status_prohibit: Option<Duration>,
    /// CoDel on the transmission buffer (default false).
    #[serde(default)]
    pub codel: bool,
}

/// Channel settings.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChannelTable {
    /// Path-loss model: "nyu" (default; NYU 28 GHz as in ns-3 mmWave 2017), "umi" or "uma"
    /// (TR 38.901).
    #[serde(default = "default_model")]
    pub model: String,
    /// "geometric" (LOS unless a building or obstacle is in the way; default when there are
    /// any) or "stochastic" (the model's LOS probability; default otherwise).
    #[serde(default)]
    pub los: Option<String>,
    /// Log-normal shadowing (default false, as ns-3's buildings-obstacle model).
    #[serde(default)]
    pub shadowing: bool,
    /// Small-scale fading (default true).
    #[serde(default = "yes")]
    pub fading: bool,
    /// TR 38.901 blockage model A (default false).
    #[serde(default)]
    pub blockage: bool,
    /// O2I penetration for indoor UEs: "low" (default) or "high".
    #[serde(default)]
    pub o2i: Option<String>,
}

fn default_model() -> String {
    "nyu".into()
}

impl Default for ChannelTable {
    fn default() -> Self {
        ChannelTable {
            model: default_model(),
            los: None,
            shadowing: false,
            fading: true,
            blockage: false,
            o2i: None,
        }
    }
}

/// A gNB.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Gnb {
    /// Unique node name.
    pub name: String,
    /// Antenna position [x, y, z], m.
    pub position_m: [f64; 3],
    /// This cell's PHY preset (default: `ran.preset`).
    #[serde(default)]
    pub preset: Option<String>,
    /// This cell's resource blocks (LTE preset; default: `ran.rbs` for cells on the
    /// `[ran]` preset, else the preset's).
    #[serde(default)]
    pub rbs: Option<u32>,
    /// This cell's scheduler (default: `ran.scheduler`).
    #[serde(default)]
    pub scheduler: Option<String>,
    /// Path-loss model of this cell's links (default: `ran.channel.model`).
    #[serde(default)]
    pub channel_model: Option<String>,
    /// The site's cells, each on its own carrier (default: one cell named after the
    /// gNB). A cell's keys override the gNB's, which override `[ran]`'s.
    #[serde(default)]
    pub cells: Vec<CellSpec>,
}

/// One cell of a gNB site with several (an LTE anchor beside a mmWave cell, say).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CellSpec {
    /// Unique cell name (UEs' `gnb` and handovers' `to` may name it).
    pub name: String,
    /// PHY preset (default: the gNB's, else `ran.preset`).
    #[serde(default)]
    pub preset: Option<String>,
    /// Resource blocks (LTE preset; default as for the gNB).
    #[serde(default)]
    pub rbs: Option<u32>,
    /// Scheduler (default: the gNB's, else `ran.scheduler`).
    #[serde(default)]
    pub scheduler: Option<String>,
    /// Path-loss model (default: the gNB's, else `ran.channel.model`).
    #[serde(default)]
    pub channel_model: Option<String>,
}

/// A UE.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ue {
    /// Unique node name.
    pub name: String,
    /// Serving cell at the start: a cell's name, or a gNB's for its first cell (default:
    /// the first gNB's first cell).
    #[serde(default)]
    pub gnb: Option<String>,
    /// A secondary cell from the start (dual connectivity: a split bearer whose new data
    /// take the secondary while its SINR supports an MCS, else the serving cell; default:
    /// none).
    #[serde(default)]
    pub secondary: Option<String>,
    /// Starting position [x, y, z], m.
    pub position_m: [f64; 3],
    /// Motion (default static).
    #[serde(default)]
    pub mobility: Option<MobilityTable>,
    /// Indoor UE: O2I penetration applies (default false).
    #[serde(default)]
    pub indoor: bool,
    /// Forced outages: no signal at all.
    #[serde(default)]
    pub outages: Vec<Outage>,
    /// SINR trace (CSV `time_s,sinr_db`, relative to the scenario file) instead of the
    /// channel model.
    #[serde(default)]
    pub sinr_trace: Option<PathBuf>,
}

/// A forced outage.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Outage {
    /// Start.
    pub start: Duration,
    /// Length.
    pub duration: Duration,
}

/// UE motion, starting at the UE's `position_m`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum MobilityTable {
    /// Does not move.
    Static {},
    /// Constant velocity [vx, vy, vz], m/s (e.g. a train at 108 km/h = 30 m/s).
    Linear {
        /// Velocity, m/s.
        velocity_mps: [f64; 3],
    },
    /// Walk to each point in turn at `speed_mps`, pausing at each arrival.
    Waypoints {
        /// Points [x, y, z], m.
        points_m: Vec<[f64; 3]>,
        /// Walking speed, m/s.
        speed_mps: f64,
        /// Pause at each point (default none); as many entries as points.
        #[serde(default)]
        pauses: Vec<Duration>,
    },
    /// Random walk inside `ran.area`: speed uniform in [min, max] and direction uniform,
    /// redrawn every `interval`.
    RandomWalk {
        /// Speed range [min, max], m/s.
        speed_mps: [f64; 2],
        /// Redraw interval.
        interval: Duration,
    },
}
