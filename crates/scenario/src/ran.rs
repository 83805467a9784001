//! The `[ran]` table: cells, UEs, buildings, channel, radio stack — its model, its checks
//! and its resolution into [`mmtsim_ran::config::RanConfig`].
//!
//! gNBs and UEs are nodes: their names join the `[[nodes]]` names (links connect a gNB to
//! the core; flows start or end at a UE). Positions and sizes are plain numbers in metres
//! (the `_m` suffix), speeds in metres per second (`_mps`).

use crate::units::{Duration, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

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
    /// Age of the uplink buffer status the scheduler sees (default: L1/L2 latency + UL
    /// scheduling delay, 3 slots).
    #[serde(default)]
    pub bsr_delay: Option<Duration>,
    /// Channel update interval (default 1ms).
    #[serde(default = "default_channel_update")]
    pub channel_update: Duration,
    /// Downlink interference from the other gNBs (default true).
    #[serde(default = "yes")]
    pub interference: bool,
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
}

fn default_preset() -> String {
    "mmwave-2017".into()
}
fn default_scheduler() -> String {
    "rr".into()
}
fn default_channel_update() -> Duration {
    Duration(1_000_000)
}
fn yes() -> bool {
    true
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
}

/// A UE.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ue {
    /// Unique node name.
    pub name: String,
    /// Serving gNB (default: the first).
    #[serde(default)]
    pub gnb: Option<String>,
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

// ----- checks -----

use crate::validate::Errs;
use mmtsim_channel::geometry::{Aabb, Vec3};
use mmtsim_channel::mobility::MobilitySpec;
use mmtsim_channel::pathloss::PathLossModel;
use mmtsim_channel::sinr_trace::SinrTrace;
use mmtsim_engine::SimTime;
use mmtsim_ran::mac::scheduler::SchedulerKind;
use mmtsim_ran::phy::numerology::{self, Numerology};
use std::collections::BTreeMap;
use std::path::Path;

/// Largest number of random obstacles (a typo guard: placement is quadratic).
pub const MAX_RANDOM_OBSTACLES: usize = 10_000;
/// Largest number of UEs.
pub const MAX_UES: usize = 10_000;

fn vec3(a: [f64; 3]) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
}

fn finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// The area as a box spanning every height.
pub fn area_box(a: &Area) -> Option<Aabb> {
    Aabb::new(
        Vec3::new(a.min_m[0], a.min_m[1], -1e9),
        Vec3::new(a.max_m[0], a.max_m[1], 1e9),
    )
    .ok()
}

/// The numerology of the `[ran]` table (preset and RB count).
pub fn numerology_of(r: &Ran) -> Result<Numerology, (String, String)> {
    let Some(num) = numerology::preset(&r.preset) else {
        return Err((
            "ran.preset".into(),
            format!(
                "unknown preset \"{}\"; known: {}",
                r.preset,
                numerology::PRESETS.join(", ")
            ),
        ));
    };
    match r.rbs {
        None => Ok(num),
        Some(n) => num
            .with_rbs(n)
            .map_err(|m| ("ran.rbs".into(), format!("{n}: {m}"))),
    }
}

/// The mobility of UE `u` as the channel crate models it.
pub fn mobility_spec(u: &Ue, area: Option<&Area>) -> MobilitySpec {
    let pos = vec3(u.position_m);
    match &u.mobility {
        None | Some(MobilityTable::Static {}) => MobilitySpec::Static { pos },
        Some(MobilityTable::Linear { velocity_mps }) => MobilitySpec::Linear {
            start: pos,
            velocity: vec3(*velocity_mps),
        },
        Some(MobilityTable::Waypoints {
            points_m,
            speed_mps,
            pauses,
        }) => {
            let mut points = vec![pos];
            points.extend(points_m.iter().map(|p| vec3(*p)));
            let mut p: Vec<SimTime> = vec![SimTime::ZERO];
            if pauses.is_empty() {
                p.extend(points_m.iter().map(|_| SimTime::ZERO));
            } else {
                p.extend(pauses.iter().map(|d| d.time()));
            }
            MobilitySpec::Waypoints {
                points,
                speed_mps: *speed_mps,
                pauses: p,
            }
        }
        Some(MobilityTable::RandomWalk {
            speed_mps,
            interval,
        }) => MobilitySpec::RandomWalk {
            start: pos,
            speed_min_mps: speed_mps[0],
            speed_max_mps: speed_mps[1],
            interval: interval.time(),
            area: area
                .and_then(area_box)
                .unwrap_or(Aabb { min: pos, max: pos }),
        },
    }
}

/// The loaded SINR traces, by UE index.
pub type SinrTraces = BTreeMap<usize, SinrTrace>;

/// Checks the `[ran]` table; `node_names` are the `[[nodes]]` names (gNB and UE names must
/// differ from them). Returns the loaded SINR traces.
pub fn validate(
    r: &Ran,
    node_names: &[&str],
    duration: SimTime,
    base_dir: &Path,
    errs: &mut Errs,
) -> SinrTraces {
    let mut traces = SinrTraces::new();
    if let Err(e) = numerology_of(r) {
        errs.push(e);
    }
    crate::cell::validate(r, errs);
    if SchedulerKind::from_name(&r.scheduler).is_none() {
        errs.push((
            "ran.scheduler".into(),
            format!(
                "unknown scheduler \"{}\"; known: {}",
                r.scheduler,
                SchedulerKind::NAMES.join(", ")
            ),
        ));
    }
    if r.channel_update.0 == 0 {
        errs.push((
            "ran.channel_update".into(),
            "must be longer than zero".into(),
        ));
    }
    let area = match &r.area {
        Some(a) => {
            if !finite(&a.min_m)
                || !finite(&a.max_m)
                || a.min_m[0] >= a.max_m[0]
                || a.min_m[1] >= a.max_m[1]
            {
                errs.push((
                    "ran.area".into(),
                    format!("min_m {:?} and max_m {:?}: expected finite numbers with min < max on x and y", a.min_m, a.max_m),
                ));
                None
            } else {
                area_box(a)
            }
        }
        None => None,
    };
    // RLC.
    if let Some(m) = &r.rlc.mode {
        if m != "am" && m != "um" {
            errs.push((
                "ran.rlc.mode".into(),
                format!("\"{m}\": expected \"am\" or \"um\""),
            ));
        }
    }
    for (k, v) in [
        ("t_poll_retransmit", r.rlc.t_poll_retransmit),
        ("t_reordering", r.rlc.t_reordering),
        ("t_status_prohibit", r.rlc.t_status_prohibit),
    ] {
        if v.is_some_and(|d| d.0 == 0) {
            errs.push((format!("ran.rlc.{k}"), "must be longer than zero".into()));
        }
    }
    // Channel.
    let c = &r.channel;
    if PathLossModel::from_name(&c.model).is_none() {
        errs.push((
            "ran.channel.model".into(),
            format!(
                "unknown path-loss model \"{}\"; known: {}",
                c.model,
                PathLossModel::NAMES.join(", ")
            ),
        ));
    }
    if let Some(l) = &c.los {
        if l != "geometric" && l != "stochastic" {
            errs.push((
                "ran.channel.los".into(),
                format!("\"{l}\": expected \"geometric\" or \"stochastic\""),
            ));
        }
    }
    if let Some(o) = &c.o2i {
        if o != "low" && o != "high" {
            errs.push((
                "ran.channel.o2i".into(),
                format!("\"{o}\": expected \"low\" or \"high\""),
            ));
        }
    }
    // Boxes: valid, and no two overlap.
    let mut boxes: Vec<(String, Aabb)> = Vec::new();
    for (kind, list) in [("buildings", &r.buildings), ("obstacles", &r.obstacles)] {
        for (i, b) in list.iter().enumerate() {
            let p = format!("ran.{kind}[{i}]");
            match (finite(&b.min_m) && finite(&b.max_m))
                .then(|| Aabb::new(vec3(b.min_m), vec3(b.max_m)))
            {
                Some(Ok(bx)) if (0..3).all(|k| b.min_m[k] < b.max_m[k]) => {
                    if let Some((other, _)) = boxes.iter().find(|(_, o)| o.overlaps(&bx)) {
                        errs.push((p.clone(), format!("overlaps {other}: buildings and obstacles may not overlap")));
                    }
                    if let Some(a) = &area {
                        if !a.footprint_overlaps(&bx) {
                            errs.push((p.clone(), "lies entirely outside ran.area".into()));
                        }
                    }
                    boxes.push((p, bx));
                }
                _ => errs.push((
                    p,
                    format!("min_m {:?} / max_m {:?}: expected finite corners with min < max on every axis", b.min_m, b.max_m),
                )),
            }
        }
    }
    if let Some(ro) = &r.random_obstacles {
        let p = "ran.random_obstacles";
        if area.is_none() {
            errs.push((p.into(), "needs ran.area to place the obstacles in".into()));
        }
        if ro.count > MAX_RANDOM_OBSTACLES {
            errs.push((
                format!("{p}.count"),
                format!("{}: at most {MAX_RANDOM_OBSTACLES}", ro.count),
            ));
        }
        for (k, v) in [("side_m", ro.side_m), ("height_m", ro.height_m)] {
            if !finite(&v) || v[0] <= 0.0 || v[0] > v[1] {
                errs.push((
                    format!("{p}.{k}"),
                    format!("{v:?}: expected [min, max] with 0 < min ≤ max"),
                ));
            }
        }
        if !(ro.clearance_m.is_finite() && ro.clearance_m >= 0.0) {
            errs.push((
                format!("{p}.clearance_m"),
                format!("{}: expected a non-negative number", ro.clearance_m),
            ));
        }
    }
    // Names.
    let mut names: BTreeMap<&str, String> = node_names
        .iter()
        .enumerate()
        .map(|(i, n)| (*n, format!("nodes[{i}]")))
        .collect();
    if r.gnbs.is_empty() {
        errs.push((
            "ran.gnbs".into(),
            "no gNBs defined: a RAN needs at least one".into(),
        ));
    }
    let mut gnb_index = BTreeMap::new();
    for (i, g) in r.gnbs.iter().enumerate() {
        let p = format!("ran.gnbs[{i}]");
        if g.name.trim().is_empty() {
            errs.push((format!("{p}.name"), "empty name".into()));
        } else if let Some(o) = names.insert(g.name.as_str(), p.clone()) {
            errs.push((
                format!("{p}.name"),
                format!("\"{}\" is already the name of {o}", g.name),
            ));
        }
        gnb_index.insert(g.name.as_str(), i);
        if !finite(&g.position_m) {
            errs.push((
                format!("{p}.position_m"),
                "expected finite coordinates".into(),
            ));
        } else if let Some((b, _)) = boxes.iter().find(|(_, b)| b.contains(vec3(g.position_m))) {
            errs.push((
                format!("{p}.position_m"),
                format!("{:?} is inside {b}", g.position_m),
            ));
        }
    }
    if r.ues.len() > MAX_UES {
        errs.push((
            "ran.ues".into(),
            format!("{} UEs: at most {MAX_UES}", r.ues.len()),
        ));
    }
    for (i, u) in r.ues.iter().enumerate() {
        let p = format!("ran.ues[{i}]");
        if u.name.trim().is_empty() {
            errs.push((format!("{p}.name"), "empty name".into()));
        } else if let Some(o) = names.insert(u.name.as_str(), p.clone()) {
            errs.push((
                format!("{p}.name"),
                format!("\"{}\" is already the name of {o}", u.name),
            ));
        }
        if let Some(g) = &u.gnb {
            if !gnb_index.contains_key(g.as_str()) {
                errs.push((
                    format!("{p}.gnb"),
                    format!(
                        "gNB \"{g}\" is not defined (defined: {})",
                        r.gnbs
                            .iter()
                            .map(|g| g.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
        if !finite(&u.position_m) {
            errs.push((
                format!("{p}.position_m"),
                "expected finite coordinates".into(),
            ));
            continue;
        }
        if let Some((b, _)) = boxes.iter().find(|(_, b)| b.contains(vec3(u.position_m))) {
            errs.push((
                format!("{p}.position_m"),
                format!("{:?} is inside {b}", u.position_m),
            ));
        }
        if matches!(u.mobility, Some(MobilityTable::RandomWalk { .. })) && area.is_none() {
            errs.push((
                format!("{p}.mobility"),
                "a random walk needs ran.area to walk in".into(),
            ));
        }
        if let Some(MobilityTable::Waypoints {
            points_m, pauses, ..
        }) = &u.mobility
        {
            if !pauses.is_empty() && pauses.len() != points_m.len() {
                errs.push((
                    format!("{p}.mobility.pauses"),
                    format!(
                        "{} pauses for {} points: give one per point or none",
                        pauses.len(),
                        points_m.len()
                    ),
                ));
                continue;
            }
        }
        let spec = mobility_spec(u, r.area.as_ref());
        if let Err(m) = spec.validate() {
            errs.push((format!("{p}.mobility"), m));
        } else if let Some(a) = &area {
            if !spec.stays_within(a, duration) {
                errs.push((
                    format!("{p}.mobility"),
                    "the UE's path leaves ran.area during the run".into(),
                ));
            }
        }
        for (k, o) in u.outages.iter().enumerate() {
            if o.duration.0 == 0 {
                errs.push((
                    format!("{p}.outages[{k}].duration"),
                    "must be longer than zero".into(),
                ));
            }
        }
        if let Some(f) = &u.sinr_trace {
            let path = base_dir.join(f);
            match std::fs::read_to_string(&path) {
                Err(e) => errs.push((
                    format!("{p}.sinr_trace"),
                    format!("cannot read {}: {e}", path.display()),
                )),
                Ok(t) => match SinrTrace::parse_csv(&t) {
                    Ok(tr) if tr.kind() != mmtsim_channel::sinr_trace::TraceKind::SinrDb => errs.push((
                        format!("{p}.sinr_trace"),
                        format!("{}: expected a `time_s,sinr_db` trace (rate traces are not supported here)", path.display()),
                    )),
                    Ok(tr) => {
                        traces.insert(i, tr);
                    }
                    Err(m) => errs.push((
                        format!("{p}.sinr_trace"),
                        format!("{}: {m}", path.display()),
                    )),
                },
            }
        }
    }
    traces
}

// ----- resolution -----

use mmtsim_channel::link::LosMode;
use mmtsim_engine::ids::{CellId, NodeId};
use mmtsim_engine::RngStreams;
use mmtsim_ran::config::{CellConfig, RanConfig, UeConfig};
use mmtsim_ran::pdcp::PdcpConfig;
use mmtsim_ran::rlc::{RlcConfig, RlcMode};

/// Builds the RAN configuration. gNB `i` is world node `first_node + i`, UE `j` is node
/// `first_node + gnbs + j`. Random obstacles are drawn from the run's seed (stream
/// "ran/layout"), which is why this runs at build time and can fail.
pub fn ran_config(
    r: &Ran,
    traces: &SinrTraces,
    first_node: u32,
    duration: SimTime,
    rng: &RngStreams,
) -> Result<RanConfig, String> {
    let mut rlc = RlcConfig::default();
    if r.rlc.mode.as_deref() == Some("um") {
        rlc.mode = RlcMode::Um;
    }
    if let Some(b) = r.rlc.buffer {
        rlc.max_tx_buffer_bytes = b.0;
    }
    if let Some(t) = r.rlc.t_poll_retransmit {
        rlc.t_poll_retransmit = t.time();
    }
    if let Some(t) = r.rlc.t_reordering {
        rlc.t_reordering = t.time();
    }
    if let Some(t) = r.rlc.t_status_prohibit {
        rlc.t_status_prohibit = t.time();
    }
    if r.rlc.codel {
        rlc.codel = Some(Default::default());
    }
    let mut boxes: Vec<Aabb> = r
        .buildings
        .iter()
        .chain(&r.obstacles)
        .map(|b| Aabb {
            min: vec3(b.min_m),
            max: vec3(b.max_m),
        })
        .collect();
    if let (Some(ro), Some(mut area)) = (&r.random_obstacles, r.area.as_ref().and_then(area_box)) {
        // The area is unbounded in height; obstacles stand on the ground (z = 0).
        area.min.z = 0.0;
        let mut keep: Vec<(Vec3, Vec3)> = r
            .gnbs
            .iter()
            .map(|g| (vec3(g.position_m), vec3(g.position_m)))
            .collect();
        for u in &r.ues {
            let spec = mobility_spec(u, r.area.as_ref());
            let mut m =
                mmtsim_channel::mobility::Mobility::new(&spec, rng.stream("ran/layout/probe"));
            // Keep the UE's whole path clear: sample it every 100 ms.
            let mut prev = m.position(SimTime::ZERO);
            let step = SimTime::from_ms(100);
            let mut t = step;
            while t <= duration + step {
                let p = m.position(t);
                keep.push((prev, p));
                prev = p;
                t += step;
            }
        }
        let mut lrng = rng.stream("ran/layout");
        let placed = mmtsim_channel::layout::random_obstacles(
            &mut lrng,
            &area,
            ro.count,
            (ro.side_m[0], ro.side_m[1]),
            (ro.height_m[0], ro.height_m[1]),
            &keep,
            ro.clearance_m,
        )
        .map_err(|m| format!("ran.random_obstacles: {m}"))?;
        boxes.extend(placed);
    }
    let los_mode = match r.channel.los.as_deref() {
        Some("stochastic") => LosMode::Stochastic,
        Some(_) => LosMode::Geometric,
        None if boxes.is_empty() => LosMode::Stochastic,
        None => LosMode::Geometric,
    };
    // One cell per gNB site, each with its own radio configuration.
    let cells = r
        .gnbs
        .iter()
        .enumerate()
        .map(|(i, g)| {
            Ok(CellConfig {
                name: g.name.clone(),
                node: NodeId(first_node + i as u32),
                position: vec3(g.position_m),
                radio: crate::cell::radio(r, i, g, los_mode)
                    .map_err(|m| format!("ran.gnbs[{i}]: {m}"))?,
            })
        })
        .collect::<Result<Vec<CellConfig>, String>>()?;
    let ues = r
        .ues
        .iter()
        .enumerate()
        .map(|(j, u)| UeConfig {
            name: u.name.clone(),
            node: NodeId(first_node + cells.len() as u32 + j as u32),
            cell: CellId::from_index(
                u.gnb
                    .as_ref()
                    .and_then(|g| r.gnbs.iter().position(|x| &x.name == g))
                    .unwrap_or(0),
            ),
            mobility: mobility_spec(u, r.area.as_ref()),
            indoor: u.indoor,
            outages: u
                .outages
                .iter()
                .map(|o| (o.start.time(), o.start.time() + o.duration.time()))
                .collect(),
            sinr_trace: traces.get(&j).cloned(),
        })
        .collect();
    Ok(RanConfig {
        rlc,
        pdcp: PdcpConfig::default(),
        channel_update: r.channel_update.time(),
        interference: r.interference,
        boxes,
        cells,
        ues,
    })
}
