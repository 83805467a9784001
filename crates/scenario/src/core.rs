//! The `[core]` table (the mobile core network's user plane) and `[[events]]` (things
//! that happen at a scripted time), with their checks.
//!
//! ```toml
//! [core]
//! upf = "core"          # this node anchors every UE's traffic (TS 23.501 §5.8)
//!
//! [[events]]
//! at = "5s"
//! handover = { ue = "ue1", to = "gnb2" }
//! ```
//!
//! Without `[core]`, traffic to and from UEs follows shortest paths to the UE's serving
//! gNB, recomputed when the UE changes cell. With it, downlink traffic to a UE is routed
//! to the UPF node and tunnelled from there to the serving gNB site, uplink traffic is
//! tunnelled from the site to the UPF, and a handover switches the downlink tunnel's
//! path at the UPF (see `crates/world/src/core.rs`).

use crate::model::Scenario;
use crate::units::Duration;
use crate::validate::Errs;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The mobile core network's user plane.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Core {
    /// The `[[nodes]]` node acting as user plane function (UPF): the anchor every UE's
    /// traffic passes, tunnelled between it and the UE's serving gNB site.
    pub upf: String,
}

/// Something that happens at a scripted time. Exactly one action key is given.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Event {
    /// When it happens, from the start of the run.
    pub at: Duration,
    /// Hand a UE over to another cell.
    #[serde(default)]
    pub handover: Option<Handover>,
    /// Give a UE a secondary cell (dual connectivity).
    #[serde(default)]
    pub add_secondary: Option<AddSecondary>,
}

/// A scripted secondary-cell addition: from the event's time on the UE's bearer is split
/// between its serving cell and `cell` (see `[[ran.ues]] secondary`).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddSecondary {
    /// The UE (a `[[ran.ues]]` name).
    pub ue: String,
    /// The secondary cell: a cell's name, or a gNB's for its first cell.
    pub cell: String,
}

/// A scripted handover: the UE is served by `to` from the event's time on, and the core
/// network's downlink path to it is switched to `to`'s site.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Handover {
    /// The UE (a `[[ran.ues]]` name).
    pub ue: String,
    /// The target cell: a cell's name, or a gNB's for its first cell.
    pub to: String,
}

/// Checks `[core]` and `[[events]]` against the rest of the scenario.
pub(crate) fn validate(s: &Scenario, errs: &mut Errs) {
    if let Some(c) = &s.core {
        if !s.nodes.iter().any(|n| n.name == c.upf) {
            let radio = s.ran.as_ref().is_some_and(|r| {
                r.gnbs.iter().any(|g| g.name == c.upf) || r.ues.iter().any(|u| u.name == c.upf)
            });
            let plain: Vec<&str> = s.nodes.iter().map(|n| n.name.as_str()).collect();
            errs.push((
                "core.upf".into(),
                if radio {
                    format!(
                        "\"{}\" is a gNB or UE: the UPF must be one of [[nodes]] ({})",
                        c.upf,
                        plain.join(", ")
                    )
                } else {
                    format!(
                        "node \"{}\" is not defined (defined: {})",
                        c.upf,
                        plain.join(", ")
                    )
                },
            ));
        }
        if s.ran.is_none() {
            errs.push((
                "core".into(),
                "a core network needs UEs to serve: add a [ran] table or remove [core]".into(),
            ));
        }
    }
    for (i, e) in s.events.iter().enumerate() {
        let p = format!("events[{i}]");
        let (ue, cell, key) = match (&e.handover, &e.add_secondary) {
            (Some(h), None) => (&h.ue, &h.to, "handover"),
            (None, Some(a)) => (&a.ue, &a.cell, "add_secondary"),
            (None, None) => {
                errs.push((
                    p,
                    "no action: expected one of `handover`, `add_secondary`".into(),
                ));
                continue;
            }
            (Some(_), Some(_)) => {
                errs.push((
                    p,
                    "two actions: give one of `handover`, `add_secondary` per event".into(),
                ));
                continue;
            }
        };
        let Some(r) = &s.ran else {
            errs.push((
                format!("{p}.{key}"),
                format!("a {key} needs a [ran] table with UEs and gNBs"),
            ));
            continue;
        };
        let Some(u) = r.ues.iter().find(|u| &u.name == ue) else {
            let ues: Vec<&str> = r.ues.iter().map(|u| u.name.as_str()).collect();
            errs.push((
                format!("{p}.{key}.ue"),
                format!("UE \"{}\" is not defined (UEs: {})", ue, ues.join(", ")),
            ));
            continue;
        };
        let field = if key == "handover" { "to" } else { "cell" };
        let Some(target) = crate::cell::cell_index(r, cell) else {
            let cells: Vec<&str> = crate::cell::cells(r).iter().map(|c| c.name).collect();
            errs.push((
                format!("{p}.{key}.{field}"),
                format!(
                    "cell \"{}\" is not defined (cells: {})",
                    cell,
                    cells.join(", ")
                ),
            ));
            continue;
        };
        // A handover may not target a cell the UE holds as its secondary (its own
        // secondary, from the start or from any event): the role change is not modelled.
        if key == "handover" {
            let secondary_of_ue = u.secondary.iter().chain(
                s.events
                    .iter()
                    .filter_map(|e| e.add_secondary.as_ref())
                    .filter(|a| &a.ue == ue)
                    .map(|a| &a.cell),
            );
            let mut taken = secondary_of_ue.filter_map(|c| crate::cell::cell_index(r, c));
            if taken.any(|c| c == target) {
                errs.push((
                    format!("{p}.handover.to"),
                    format!(
                        "\"{cell}\" is a secondary cell of UE \"{ue}\": a handover to it (a role change) is not modelled"
                    ),
                ));
            }
        }
    }
}
