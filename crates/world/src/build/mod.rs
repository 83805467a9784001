//! Building a world from a validated scenario: nodes, wired links, the RAN and its
//! attachments, forwarding tables, the core network, scripted events and flows.
//!
//! Node identities follow the scenario: `[[nodes]]` in order, then the RAN's gNB sites,
//! then its UEs (`Scenario::node_names`). Link directions are numbered as they are read:
//! link k's forward direction is `LinkId(2k)`, its reverse `LinkId(2k + 1)`.

mod cptp;
mod flows;

pub(crate) use cptp::{Access, CptpState};

pub(crate) use flows::{FlowKind, FlowState, Reader};

use crate::core::Core;
use crate::topology::{Forwarding, Topology};
use mmtsim_engine::ids::{CellId, NodeId, UeId};
use mmtsim_engine::ring::Ring;
use mmtsim_engine::Rate;
use mmtsim_engine::{RngStreams, SimTime};
use mmtsim_net::link::{Impairments, LinkConfig, LinkDir};
use mmtsim_net::trace::RateTrace;
use mmtsim_ran::network::Ran;
use mmtsim_scenario::{resolve, Loaded};
use std::collections::BTreeMap;

/// One link direction and where it leads.
pub(crate) struct LinkState {
    pub dir: LinkDir,
    pub to: NodeId,
    pub name: String,
    pub reverse: bool,
    /// Index into the world's capture writers, if this link is captured.
    pub capture: Option<usize>,
    pub rate_desc: String,
    /// Packets propagating on the wire in arrival order (constant delay keeps them FIFO),
    /// so the event queue holds one event per link instead of one per packet.
    pub wire: Ring<(SimTime, u32)>,
    /// A `WireHead` event for this link is scheduled.
    pub wire_event_pending: bool,
    /// This link's index among the run's late-admission links, if its packets may enter
    /// the radio late (set by the run's plan, `run/lazy.rs`).
    pub late: Option<u16>,
    /// Some of this link's packets may be fused over the node it leads to (set by the
    /// run's plan, `run/fusion.rs`).
    pub feeds_fusion: bool,
    /// Sum, count and maximum of the sampled queue occupancy (bytes).
    pub occupancy: mmtsim_engine::metrics::Occupancy,
}

/// An action of the scenario's `[[events]]`, resolved to identities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// Hand `ue` over to cell `to`.
    Handover { ue: UeId, to: CellId },
    /// Give `ue` the secondary cell `cell`.
    AddSecondary { ue: UeId, cell: CellId },
}

pub(crate) struct Built {
    pub nodes: Vec<String>,
    /// The UE each node is, if it is one.
    pub node_ue: Vec<Option<UeId>>,
    /// The radio access network, if the scenario has one.
    pub ran: Option<Ran>,
    /// UE names, by UE.
    pub ue_names: Vec<String>,
    /// Cell names, by cell.
    pub cell_names: Vec<String>,
    pub links: Vec<LinkState>,
    pub topology: Topology,
    pub forwarding: Forwarding,
    /// The core network's user plane, if the scenario has one.
    pub core: Option<Core>,
    /// Scripted events, in the scenario's order.
    pub events: Vec<(SimTime, Action)>,
    pub flows: Vec<FlowState>,
    pub captured_links: Vec<String>,
}

fn link_rate_desc(rate: Option<resolve::DirSettings<'_>>) -> String {
    match rate {
        Some(d) => match (d.rate, d.trace) {
            (Some(r), _) => r.to_string(),
            (_, Some(t)) => format!("trace:{}", t.file.display()),
            _ => "?".into(),
        },
        None => "?".into(),
    }
}

pub(crate) fn build(l: &Loaded, seed: u64) -> Result<Built, String> {
    let s = &l.scenario;
    let rng = RngStreams::new(seed);
    let nodes: Vec<String> = s.node_names().into_iter().map(String::from).collect();
    let index: BTreeMap<&str, NodeId> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), NodeId::from_index(i)))
        .collect();
    let node_index = |name: &str| *index.get(name).expect("validated node reference");

    let mut topology = Topology::new(nodes.len());
    let mut links = Vec::new();
    let mut captured_links = Vec::new();
    for (li, link) in s.links.iter().enumerate() {
        let name = link
            .name
            .clone()
            .unwrap_or_else(|| format!("{}-{}", link.between[0], link.between[1]));
        let ends = [node_index(&link.between[0]), node_index(&link.between[1])];
        let capture = link.capture.then(|| {
            captured_links.push(name.clone());
            captured_links.len() - 1
        });
        for reverse in [false, true] {
            let d = resolve::direction(link, reverse);
            let rate = match (d.rate, l.traces.get(&(li, reverse))) {
                (_, Some(t)) => t.clone(),
                (Some(r), None) => RateTrace::constant(Rate(r.0)),
                (None, None) => unreachable!("validated: every direction has a rate or a trace"),
            };
            let imp = d.impairments.cloned().unwrap_or_default();
            let cfg = LinkConfig {
                rate,
                delay: link.delay.time(),
                queue: resolve::queue_config(d.queue),
                impairments: Impairments {
                    loss: d.loss.map(resolve::loss_model),
                    duplicate_p: imp.duplicate,
                    reorder_p: imp.reorder,
                    reorder_delay: imp.reorder_delay.time(),
                    drop_packets: imp.drop_packets.clone(),
                },
                mtu_bytes: link.mtu.map_or(1500, |m| m.0 as u32),
            };
            let tag = if reverse { "rev" } else { "fwd" };
            let dir = LinkDir::new(
                cfg,
                rng.stream(&format!("link/{name}/{tag}/loss")),
                rng.stream(&format!("link/{name}/{tag}/impair")),
            );
            let (from, to) = if reverse {
                (ends[1], ends[0])
            } else {
                (ends[0], ends[1])
            };
            topology.add_link(from, to);
            links.push(LinkState {
                dir,
                to,
                name: name.clone(),
                reverse,
                capture,
                rate_desc: link_rate_desc(Some(resolve::direction(link, reverse))),
                wire: Ring::new(),
                wire_event_pending: false,
                late: None,
                feeds_fusion: false,
                occupancy: Default::default(),
            });
        }
    }

    let mut node_ue = vec![None; nodes.len()];
    let (mut ran, mut ue_names, mut cell_names) = (None, Vec::new(), Vec::new());
    if let Some(r) = &s.ran {
        let cfg = mmtsim_scenario::ran::ran_config(
            r,
            &l.sinr_traces,
            s.nodes.len() as u32,
            s.simulation.duration.time(),
            &rng,
        )?;
        for u in &cfg.ues {
            let id = topology.add_ue(u.node, cfg.cells[u.cell.index()].node);
            node_ue[u.node.index()] = Some(id);
        }
        ue_names = cfg.ues.iter().map(|u| u.name.clone()).collect();
        cell_names = cfg.cells.iter().map(|c| c.name.clone()).collect();
        ran = Some(Ran::new(&cfg, &rng));
    }
    let forwarding = topology.forwarding();
    let core = s.core.as_ref().map(|c| {
        let sites = (0..ue_names.len())
            .map(|u| topology.site_of(UeId::from_index(u)))
            .collect();
        Core::new(node_index(&c.upf), sites)
    });
    let cell_index = |name: &str| {
        let r = s.ran.as_ref().expect("validated: handovers need a RAN");
        CellId::from_index(
            mmtsim_scenario::cell::cell_index(r, name).expect("validated cell reference"),
        )
    };
    let ue_index = |name: &str| {
        UeId::from_index(
            ue_names
                .iter()
                .position(|u| u == name)
                .expect("validated UE reference"),
        )
    };
    let events = s
        .events
        .iter()
        .map(|e| {
            let action = match (&e.handover, &e.add_secondary) {
                (Some(h), _) => Action::Handover {
                    ue: ue_index(&h.ue),
                    to: cell_index(&h.to),
                },
                (None, Some(a)) => Action::AddSecondary {
                    ue: ue_index(&a.ue),
                    cell: cell_index(&a.cell),
                },
                (None, None) => unreachable!("validated: every event has an action"),
            };
            (e.at.time(), action)
        })
        .collect();
    let flows = flows::build_flows(
        s,
        &rng,
        &node_index,
        &forwarding,
        &links,
        ran.as_ref(),
        &node_ue,
    );
    Ok(Built {
        nodes,
        node_ue,
        ran,
        ue_names,
        cell_names,
        links,
        topology,
        forwarding,
        core,
        events,
        flows,
        captured_links,
    })
}
