//! Each cell's radio configuration: the `[ran]` table's radio keys, overridden per gNB
//! site and per cell.
//!
//! ```toml
//! [ran]
//! preset = "nr-fr2"            # every cell's default
//! [[ran.gnbs]]
//! name = "macro"
//! preset = "lte-2ghz"          # this site's one cell: an LTE-like 2 GHz carrier
//! rbs = 50
//! channel_model = "uma"
//! [[ran.gnbs]]
//! name = "site2"               # a site with two cells on two carriers
//! cells = [ { name = "site2-lte", preset = "lte-2ghz", channel_model = "uma" },
//!           { name = "site2-mmw" } ]
//! ```
//!
//! A gNB without `cells` has one cell with the gNB's name. A cell's `preset`, `rbs`,
//! `scheduler` and `channel_model` override its gNB's, which override `[ran]`'s;
//! everything else radio (HARQ, report delays when given, shadowing, fading, blockage,
//! indoor loss, LOS mode) is RAN-wide. The report delays' defaults follow each cell's own
//! slot length, and the carrier frequency and beamforming gain of a cell's links come from
//! its own preset. `rbs` goes with the preset it is given beside: a cell or gNB that sets
//! its own preset does not take an `rbs` from a level above it.

use crate::ran::{Gnb, Ran};
use crate::validate::Errs;
use mmtsim_channel::link::{LinkParams, LosMode};
use mmtsim_channel::pathloss::{O2iKind, PathLossModel};
use mmtsim_engine::SimTime;
use mmtsim_ran::config::CellRadio;
use mmtsim_ran::mac::scheduler::SchedulerKind;
use mmtsim_ran::phy::numerology::{self, Numerology};
use std::collections::BTreeMap;

/// One cell as the scenario gives it: its name, its site and its keys, resolved through
/// the gNB and `[ran]` levels.
#[derive(Clone, Debug)]
pub struct CellKeys<'a> {
    /// Cell name.
    pub name: &'a str,
    /// Index of its gNB site in `ran.gnbs`.
    pub site: usize,
    /// Key path of the cell (`ran.gnbs[i]` or `ran.gnbs[i].cells[k]`), for messages.
    pub path: String,
    /// (preset, the key path that set it).
    preset: (&'a str, String),
    /// (resource blocks, the key path that set them).
    rbs: Option<(u32, String)>,
    scheduler: &'a str,
    channel_model: &'a str,
}

/// A cell's own keys (or none, for a gNB's implicit cell).
#[derive(Clone, Copy, Default)]
struct Own<'a> {
    preset: Option<&'a str>,
    rbs: Option<u32>,
    scheduler: Option<&'a str>,
    channel_model: Option<&'a str>,
}

/// A cell of gNB `i` at key path `path`, its keys resolved through the gNB and `[ran]`.
fn resolve<'a>(r: &'a Ran, i: usize, path: String, name: &'a str, own: Own<'a>) -> CellKeys<'a> {
    let g: &'a Gnb = &r.gnbs[i];
    let gp = format!("ran.gnbs[{i}]");
    let own_rbs = own.rbs.map(|n| (n, format!("{path}.rbs")));
    let gnb_rbs = g.rbs.map(|n| (n, format!("{gp}.rbs")));
    let (preset, rbs) = match (own.preset, g.preset.as_deref()) {
        (Some(p), _) => ((p, format!("{path}.preset")), own_rbs),
        (None, Some(p)) => ((p, format!("{gp}.preset")), own_rbs.or(gnb_rbs)),
        (None, None) => (
            (r.preset.as_str(), "ran.preset".to_string()),
            own_rbs
                .or(gnb_rbs)
                .or(r.rbs.map(|n| (n, "ran.rbs".to_string()))),
        ),
    };
    CellKeys {
        name,
        site: i,
        path,
        preset,
        rbs,
        scheduler: own
            .scheduler
            .or(g.scheduler.as_deref())
            .unwrap_or(&r.scheduler),
        channel_model: own
            .channel_model
            .or(g.channel_model.as_deref())
            .unwrap_or(&r.channel.model),
    }
}

/// Every cell of the RAN, site by site, in `CellId` order.
pub fn cells(r: &Ran) -> Vec<CellKeys<'_>> {
    let mut out = Vec::new();
    for (i, g) in r.gnbs.iter().enumerate() {
        if g.cells.is_empty() {
            out.push(resolve(
                r,
                i,
                format!("ran.gnbs[{i}]"),
                &g.name,
                Own::default(),
            ));
        }
        for (k, c) in g.cells.iter().enumerate() {
            let own = Own {
                preset: c.preset.as_deref(),
                rbs: c.rbs,
                scheduler: c.scheduler.as_deref(),
                channel_model: c.channel_model.as_deref(),
            };
            out.push(resolve(
                r,
                i,
                format!("ran.gnbs[{i}].cells[{k}]"),
                &c.name,
                own,
            ));
        }
    }
    out
}

/// The cell a UE's `gnb` or a handover's `to` names: a cell by its name, or a gNB by its
/// name (its first cell).
pub fn cell_index(r: &Ran, name: &str) -> Option<usize> {
    let cells = cells(r);
    cells.iter().position(|c| c.name == name).or_else(|| {
        let site = r.gnbs.iter().position(|g| g.name == name)?;
        cells.iter().position(|c| c.site == site)
    })
}

/// The numerology of a cell; errors name the key that is wrong.
pub fn numerology(c: &CellKeys) -> Result<Numerology, (String, String)> {
    let (preset, key) = &c.preset;
    let Some(num) = numerology::preset(preset) else {
        return Err((
            key.clone(),
            format!(
                "unknown preset \"{preset}\"; known: {}",
                numerology::PRESETS.join(", ")
            ),
        ));
    };
    match &c.rbs {
        None => Ok(num),
        Some((n, key)) => num
            .with_rbs(*n)
            .map_err(|m| (key.clone(), format!("{n}: {m}"))),
    }
}

/// Checks every cell's radio keys and names (the `[ran]` defaults are checked with the
/// table); `node_names` are the `[[nodes]]` names.
pub(crate) fn validate(r: &Ran, node_names: &[&str], errs: &mut Errs) {
    let mut seen: BTreeMap<&str, String> = BTreeMap::new();
    for (i, g) in r.gnbs.iter().enumerate() {
        for (k, c) in g.cells.iter().enumerate() {
            let p = format!("ran.gnbs[{i}].cells[{k}].name");
            let taken = node_names.contains(&c.name.as_str())
                || r.gnbs
                    .iter()
                    .enumerate()
                    .any(|(j, o)| o.name == c.name && j != i)
                || r.ues.iter().any(|u| u.name == c.name);
            if taken {
                errs.push((p, format!("\"{}\" is already the name of a node", c.name)));
            } else if let Some(other) = seen.insert(c.name.as_str(), p.clone()) {
                errs.push((
                    p,
                    format!("cell name \"{}\" is used twice (also {other})", c.name),
                ));
            }
        }
    }
    let mut reported = std::collections::BTreeSet::new();
    for c in cells(r) {
        if c.preset.1 != "ran.preset" || c.rbs.as_ref().is_some_and(|(_, k)| k != "ran.rbs") {
            if let Err(e) = numerology(&c) {
                if reported.insert(e.clone()) {
                    errs.push(e);
                }
            }
        }
    }
    let mut check = |path: String, what: &str, name: &str, ok: bool, known: &[&str]| {
        if !ok {
            errs.push((
                path,
                format!("unknown {what} \"{name}\"; known: {}", known.join(", ")),
            ));
        }
    };
    for (i, g) in r.gnbs.iter().enumerate() {
        let levels = std::iter::once((
            format!("ran.gnbs[{i}]"),
            g.scheduler.as_deref(),
            g.channel_model.as_deref(),
        ))
        .chain(g.cells.iter().enumerate().map(|(k, c)| {
            (
                format!("ran.gnbs[{i}].cells[{k}]"),
                c.scheduler.as_deref(),
                c.channel_model.as_deref(),
            )
        }));
        for (p, sched, model) in levels {
            if let Some(s) = sched {
                check(
                    format!("{p}.scheduler"),
                    "scheduler",
                    s,
                    SchedulerKind::from_name(s).is_some(),
                    SchedulerKind::NAMES,
                );
            }
            if let Some(m) = model {
                check(
                    format!("{p}.channel_model"),
                    "path-loss model",
                    m,
                    PathLossModel::from_name(m).is_some(),
                    PathLossModel::NAMES,
                );
            }
        }
    }
}

/// The radio configuration of a cell (validated scenario).
pub(crate) fn radio(r: &Ran, c: &CellKeys, los_mode: LosMode) -> Result<CellRadio, String> {
    let mut num = numerology(c).map_err(|(p, m)| format!("{p}: {m}"))?;
    if let Some(p) = &r.tx_power_dbm {
        num.gnb_tx_power_dbm = p.gnb.unwrap_or(num.gnb_tx_power_dbm);
        num.ue_tx_power_dbm = p.ue.unwrap_or(num.ue_tx_power_dbm);
    }
    let slot = num.slot;
    let link = LinkParams {
        model: PathLossModel::from_name(c.channel_model).ok_or("unknown path-loss model")?,
        fc_hz: num.carrier_hz,
        shadowing: r.channel.shadowing,
        fading: r.channel.fading,
        bf_gain_db: mmtsim_channel::budget::beamforming_gain_db(num.gnb_antennas, num.ue_antennas),
        blockage: r.channel.blockage.then(Default::default),
        o2i: Some(if r.channel.o2i.as_deref() == Some("high") {
            O2iKind::HighLoss
        } else {
            O2iKind::LowLoss
        }),
        los_mode,
    };
    Ok(CellRadio {
        cqi_delay: r.cqi_delay.map_or(
            SimTime::from_ns(slot.ns() * num.l1l2_ctrl_slots as u64),
            |d| d.time(),
        ),
        bsr_delay: r.bsr_delay.map_or(
            SimTime::from_ns(slot.ns() * (num.l1l2_ctrl_slots + num.ul_sched_delay_slots) as u64),
            |d| d.time(),
        ),
        scheduler: SchedulerKind::from_name(c.scheduler).ok_or("unknown scheduler")?,
        harq: r.harq,
        link,
        numerology: num,
    })
}
