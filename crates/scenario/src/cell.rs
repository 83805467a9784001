//! Each cell's radio configuration: the `[ran]` table's radio keys, overridden per gNB.
//!
//! ```toml
//! [ran]
//! preset = "nr-fr2"            # every cell's default
//! [[ran.gnbs]]
//! name = "macro"
//! preset = "lte-2ghz"          # this cell: an LTE-like 2 GHz carrier
//! rbs = 50
//! channel_model = "uma"
//! scheduler = "pf"
//! ```
//!
//! A gNB's `preset`, `rbs`, `scheduler` and `channel_model` replace the `[ran]` values for
//! its cell; everything else radio (HARQ, report delays when given, shadowing, fading,
//! blockage, indoor loss, LOS mode) is RAN-wide. The report delays' defaults follow each
//! cell's own slot length, and the carrier frequency and beamforming gain of a cell's
//! links come from its own preset. `rbs` given in `[ran]` applies to the cells that use
//! the `[ran]` preset; a gNB with its own preset takes its own `rbs` or the preset's.

use crate::ran::{Gnb, Ran};
use crate::validate::Errs;
use mmtsim_channel::link::{LinkParams, LosMode};
use mmtsim_channel::pathloss::{O2iKind, PathLossModel};
use mmtsim_engine::SimTime;
use mmtsim_ran::config::CellRadio;
use mmtsim_ran::mac::scheduler::SchedulerKind;
use mmtsim_ran::phy::numerology::{self, Numerology};

/// The numerology of gNB `g`'s cell; errors name the key that is wrong.
pub fn numerology(r: &Ran, i: usize, g: &Gnb) -> Result<Numerology, (String, String)> {
    let (preset, key) = match &g.preset {
        Some(p) => (p.as_str(), format!("ran.gnbs[{i}].preset")),
        None => (r.preset.as_str(), "ran.preset".to_string()),
    };
    let Some(num) = numerology::preset(preset) else {
        return Err((
            key,
            format!(
                "unknown preset \"{preset}\"; known: {}",
                numerology::PRESETS.join(", ")
            ),
        ));
    };
    let (rbs, key) = match (g.rbs, &g.preset) {
        (Some(n), _) => (Some(n), format!("ran.gnbs[{i}].rbs")),
        (None, None) => (r.rbs, "ran.rbs".to_string()),
        (None, Some(_)) => (None, String::new()),
    };
    match rbs {
        None => Ok(num),
        Some(n) => num.with_rbs(n).map_err(|m| (key, format!("{n}: {m}"))),
    }
}

fn scheduler_name<'a>(r: &'a Ran, g: &'a Gnb) -> &'a str {
    g.scheduler.as_deref().unwrap_or(&r.scheduler)
}

fn model_name<'a>(r: &'a Ran, g: &'a Gnb) -> &'a str {
    g.channel_model.as_deref().unwrap_or(&r.channel.model)
}

/// Checks every gNB's radio keys (the `[ran]` defaults are checked with the table).
pub(crate) fn validate(r: &Ran, errs: &mut Errs) {
    for (i, g) in r.gnbs.iter().enumerate() {
        if g.preset.is_some() || g.rbs.is_some() {
            if let Err(e) = numerology(r, i, g) {
                errs.push(e);
            }
        }
        if let Some(s) = &g.scheduler {
            if SchedulerKind::from_name(s).is_none() {
                errs.push((
                    format!("ran.gnbs[{i}].scheduler"),
                    format!(
                        "unknown scheduler \"{s}\"; known: {}",
                        SchedulerKind::NAMES.join(", ")
                    ),
                ));
            }
        }
        if let Some(m) = &g.channel_model {
            if PathLossModel::from_name(m).is_none() {
                errs.push((
                    format!("ran.gnbs[{i}].channel_model"),
                    format!(
                        "unknown path-loss model \"{m}\"; known: {}",
                        PathLossModel::NAMES.join(", ")
                    ),
                ));
            }
        }
    }
}

/// The radio configuration of gNB `g`'s cell (validated scenario).
pub(crate) fn radio(r: &Ran, i: usize, g: &Gnb, los_mode: LosMode) -> Result<CellRadio, String> {
    let num = numerology(r, i, g).map_err(|(p, m)| format!("{p}: {m}"))?;
    let slot = num.slot;
    let link = LinkParams {
        model: PathLossModel::from_name(model_name(r, g)).ok_or("unknown path-loss model")?,
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
        scheduler: SchedulerKind::from_name(scheduler_name(r, g)).ok_or("unknown scheduler")?,
        harq: r.harq,
        link,
        numerology: num,
    })
}
