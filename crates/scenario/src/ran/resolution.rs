//! The resolution of the `[ran]` table into the RAN's configuration ([`ran_config`]), and
//! the conversions it shares with the checks: the numerology of the preset, a UE's
//! mobility, the area as a box.

use super::checks::SinrTraces;
use super::{Area, BoxSpec, MobilityTable, Ran, Ue, VehicleLane};
use mmtsim_channel::geometry::{Aabb, Vec3};
use mmtsim_channel::link::LosMode;
use mmtsim_channel::mobility::MobilitySpec;
use mmtsim_channel::vehicles::Lane;
use mmtsim_engine::ids::{CellId, NodeId};
use mmtsim_engine::{RngStreams, SimTime};
use mmtsim_ran::config::{CellConfig, RanConfig, UeConfig};
use mmtsim_ran::pdcp::PdcpConfig;
use mmtsim_ran::phy::numerology::{self, Numerology};
use mmtsim_ran::rlc::{RlcConfig, RlcMode};

pub(super) fn vec3(a: [f64; 3]) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
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
        .flat_map(box_row)
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
        None if boxes.is_empty() && r.vehicles.is_empty() => LosMode::Stochastic,
        None => LosMode::Geometric,
    };
    // The cells of every gNB site, each with its own radio configuration, on its site's
    // node.
    let cells = crate::cell::cells(r)
        .iter()
        .map(|c| {
            Ok(CellConfig {
                name: c.name.to_string(),
                node: NodeId(first_node + c.site as u32),
                position: vec3(r.gnbs[c.site].position_m),
                radio: crate::cell::radio(r, c, los_mode)
                    .map_err(|m| format!("{}: {m}", c.path))?,
            })
        })
        .collect::<Result<Vec<CellConfig>, String>>()?;
    let ues = r
        .ues
        .iter()
        .enumerate()
        .map(|(j, u)| UeConfig {
            name: u.name.clone(),
            node: NodeId(first_node + r.gnbs.len() as u32 + j as u32),
            cell: CellId::from_index(
                u.gnb
                    .as_ref()
                    .and_then(|g| crate::cell::cell_index(r, g))
                    .unwrap_or(0),
            ),
            secondary: u
                .secondary
                .as_ref()
                .and_then(|c| crate::cell::cell_index(r, c))
                .map(CellId::from_index),
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
        pdcp: match r.pdcp_sn_bits {
            18 => PdcpConfig::nr(r.pdcp_t_reordering.time()),
            _ => PdcpConfig {
                t_reordering: r.pdcp_t_reordering.time(),
                ..PdcpConfig::default()
            },
        },
        channel_update: r.channel_update.time(),
        interference: r.interference.mode(),
        boxes,
        vehicles: r.vehicles.iter().map(lane).collect(),
        cells,
        ues,
        handover: super::handover::resolve(&r.handover),
        dual: super::dual::resolve(&r.dual_connectivity),
    })
}

/// The boxes a `[[ran.buildings]]` or `[[ran.obstacles]]` entry stands for: itself, or the
/// row its `repeat` makes of it.
pub fn box_row(b: &BoxSpec) -> Vec<Aabb> {
    let first = Aabb {
        min: vec3(b.min_m),
        max: vec3(b.max_m),
    };
    match &b.repeat {
        Some(r) => mmtsim_channel::layout::row(first, vec3(r.step_m), r.count),
        None => vec![first],
    }
}

/// The lane a `[[ran.vehicles]]` entry describes, its defaults filled in.
pub fn lane(v: &VehicleLane) -> Lane {
    let (from, to) = (vec3(v.from_m), vec3(v.to_m));
    let length = (to - from).norm();
    Lane {
        from,
        to,
        vehicle_m: v.size_m,
        count: v.count,
        spacing_m: v.spacing_m.unwrap_or(length / v.count.max(1) as f64),
        offset_m: v.offset_m.unwrap_or(v.size_m[0]),
        speed_mps: v.speed_mps,
    }
}
