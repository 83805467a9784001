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
        let Some(h) = &e.handover else {
            errs.push((p, "no action: expected one of `handover`".into()));
            continue;
        };
        let Some(r) = &s.ran else {
            errs.push((
                format!("{p}.handover"),
                "a handover needs a [ran] table with UEs and gNBs".into(),
            ));
            continue;
        };
        if !r.ues.iter().any(|u| u.name == h.ue) {
            let ues: Vec<&str> = r.ues.iter().map(|u| u.name.as_str()).collect();
            errs.push((
                format!("{p}.handover.ue"),
                format!("UE \"{}\" is not defined (UEs: {})", h.ue, ues.join(", ")),
            ));
        }
        if crate::cell::cell_index(r, &h.to).is_none() {
            let cells: Vec<&str> = crate::cell::cells(r).iter().map(|c| c.name).collect();
            errs.push((
                format!("{p}.handover.to"),
                format!(
                    "cell \"{}\" is not defined (cells: {})",
                    h.to,
                    cells.join(", ")
                ),
            ));
        }
    }
}
