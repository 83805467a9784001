//! The checks of the `[ran]` table ([`validate`]): every error names its key path, and the
//! SINR traces the table names are loaded here. Also the limits they enforce.

use super::resolution::{area_box, box_row, lane, mobility_spec, numerology_of, vec3};
use super::{MobilityTable, Ran};
use crate::validate::Errs;
use mmtsim_channel::geometry::Aabb;
use mmtsim_channel::pathloss::PathLossModel;
use mmtsim_channel::sinr_trace::SinrTrace;
use mmtsim_engine::SimTime;
use mmtsim_ran::mac::scheduler::SchedulerKind;
use std::collections::BTreeMap;
use std::path::Path;

/// Largest number of random obstacles (a typo guard: placement is quadratic).
pub const MAX_RANDOM_OBSTACLES: usize = 10_000;
/// Largest number of boxes in one row of obstacles, or of vehicles on one lane.
pub const MAX_ROW_BOXES: usize = 10_000;
/// Largest number of UEs.
pub const MAX_UES: usize = 10_000;

fn finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
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
    if let Some(p) = &r.tx_power_dbm {
        for (k, v) in [("gnb", p.gnb), ("ue", p.ue)] {
            if let Some(v) = v.filter(|v| !(v.is_finite() && (-30.0..=60.0).contains(v))) {
                errs.push((
                    format!("ran.tx_power_dbm.{k}"),
                    format!("{v}: expected -30 to 60 dBm"),
                ));
            }
        }
    }
    if let Err(e) = numerology_of(r) {
        errs.push(e);
    }
    crate::cell::validate(r, node_names, errs);
    super::handover::validate(&r.handover, errs);
    super::dual::validate(&r.dual_connectivity, errs);
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
    if !matches!(r.pdcp_sn_bits, 12 | 18) {
        errs.push((
            "ran.pdcp_sn_bits".into(),
            format!(
                "{}: expected 12 or 18 (the SN lengths of TS 38.323 §6.2.2)",
                r.pdcp_sn_bits
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
    // Boxes: valid, and no two overlap (the copies of a row included).
    let mut boxes: Vec<(String, Aabb)> = Vec::new();
    for (kind, list) in [("buildings", &r.buildings), ("obstacles", &r.obstacles)] {
        for (i, b) in list.iter().enumerate() {
            let p = format!("ran.{kind}[{i}]");
            if let Some(rep) = &b.repeat {
                if rep.count == 0 || rep.count > MAX_ROW_BOXES {
                    errs.push((
                        format!("{p}.repeat.count"),
                        format!("{}: expected 1 to {MAX_ROW_BOXES}", rep.count),
                    ));
                    continue;
                }
                if !finite(&rep.step_m) {
                    errs.push((
                        format!("{p}.repeat.step_m"),
                        format!("{:?}: expected finite numbers", rep.step_m),
                    ));
                    continue;
                }
            }
            match (finite(&b.min_m) && finite(&b.max_m))
                .then(|| Aabb::new(vec3(b.min_m), vec3(b.max_m)))
            {
                Some(Ok(_)) if (0..3).all(|k| b.min_m[k] < b.max_m[k]) => {
                    let row = box_row(b);
                    let copies = row.len();
                    for (k, bx) in row.into_iter().enumerate() {
                        let name = if copies > 1 {
                            format!("{p} (copy {k} of its row)")
                        } else {
                            p.clone()
                        };
                        if let Some((other, _)) = boxes.iter().find(|(_, o)| o.overlaps(&bx)) {
                            errs.push((p.clone(), format!("{name} overlaps {other}: buildings and obstacles may not overlap")));
                            break;
                        }
                        if let Some(a) = &area {
                            if !a.footprint_overlaps(&bx) {
                                errs.push((p.clone(), format!("{name} lies entirely outside ran.area")));
                                break;
                            }
                        }
                        boxes.push((name, bx));
                    }
                }
                _ => errs.push((
                    p,
                    format!("min_m {:?} / max_m {:?}: expected finite corners with min < max on every axis", b.min_m, b.max_m),
                )),
            }
        }
    }
    for (i, v) in r.vehicles.iter().enumerate() {
        let p = format!("ran.vehicles[{i}]");
        if v.count > MAX_ROW_BOXES {
            errs.push((
                format!("{p}.count"),
                format!("{}: at most {MAX_ROW_BOXES}", v.count),
            ));
        } else if !(finite(&v.from_m) && finite(&v.to_m) && finite(&v.size_m)) {
            errs.push((
                p,
                format!(
                    "from_m {:?} / to_m {:?} / size_m {:?}: expected finite numbers",
                    v.from_m, v.to_m, v.size_m
                ),
            ));
        } else if let Err(m) = lane(v).check() {
            errs.push((p, m));
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
        if let Some(c) = &u.secondary {
            match crate::cell::cell_index(r, c) {
                None => errs.push((
                    format!("{p}.secondary"),
                    format!("no cell or gNB is called \"{c}\""),
                )),
                Some(i)
                    if i == u
                        .gnb
                        .as_deref()
                        .and_then(|g| crate::cell::cell_index(r, g))
                        .unwrap_or(0) =>
                {
                    errs.push((
                        format!("{p}.secondary"),
                        format!(
                            "\"{c}\" is the UE's serving cell: a secondary cell must be another"
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
        if let Some(g) = &u.gnb {
            if crate::cell::cell_index(r, g).is_none() {
                let cells: Vec<&str> = crate::cell::cells(r).iter().map(|c| c.name).collect();
                errs.push((
                    format!("{p}.gnb"),
                    format!(
                        "no cell or gNB is called \"{g}\" (cells: {})",
                        cells.join(", ")
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
