//! Hop fusion at the core network's UPF, downlink: a packet for a UE that reaches the
//! UPF goes into the UE's tunnel and onto the link toward its serving site as soon as its
//! arrival at the UPF is known, as over a transit node (`fusion.rs`).
//!
//! What the UPF does with such a packet depends on one thing that changes during a run:
//! the far end of the UE's tunnel, which a path switch moves [TS23502 §4.9.1.2.2]. A path
//! switch happens only when a UE's handover ends (served by the target, or re-established)
//! or at a scripted handover. So a packet for UE `u` that arrives at the UPF at `t` may be
//! taken ahead at `now` when none can happen in `[now, t]`:
//! - `u` has no measurement-based handover under way, and `t − now` is less than the
//!   least time such a handover takes from its decision to its end (measurement report,
//!   command and interruption, [`mmtsim_ran::network::Ran::least_handover_time`]): one
//!   decided at `now` or later ends after `t`;
//! - no scripted handover falls in `[now, t]`.
//!
//! The packet then enters the tunnel of `now`, which is the tunnel of `t`.
//!
//! # When it applies
//! Besides the conditions of every fused hop (`fusion.rs`): the UPF is no flow's
//! endpoint, UE or site; every packet for a UE reaches it over one incoming link
//! direction A (the flows to UEs all come from beyond it: no flow from a UE to a UE),
//! and nothing else leaves it toward a site (no flow from a UE to a node behind a site).
//! Then A is the only input of the UPF's links toward the sites, whichever site a UE is
//! served by. Routes between fixed nodes never change, so A stays the one input.
//!
//! # Limitation
//! A packet that may not be taken ahead stays on A's wire, and every packet behind it
//! does too until it has arrived (`fusion.rs`): under traffic that never pauses for as
//! long as A's delay, one handover ends fusion at the UPF for the rest of the run. Taking
//! the packets behind it ahead once it has arrived would schedule their next arrival
//! events earlier than an unfused run does, which can reorder events at one nanosecond
//! (a test of `tests/it/fusion.rs` found such a case), so it is not done.

use super::Sim;
use crate::build::Action;
use crate::topology::Hop;
use mmtsim_engine::ids::{CellId, LinkId, NodeId, UeId};
use mmtsim_engine::SimTime;

/// What fusion at the UPF needs to know at each packet.
#[derive(Debug)]
pub(super) struct UpfAhead {
    /// The UPF's one input for packets to UEs.
    pub(super) from: LinkId,
    /// The least time from the decision of a measurement-based handover to its end (`None`:
    /// no such handovers).
    least: Option<SimTime>,
    /// The instants of the scripted handovers, in order.
    scripted: Vec<SimTime>,
}

/// Fusion at the UPF for this run, if it may apply: (its input A, the UPF's links toward
/// the sites, what each packet is checked against).
pub(super) fn plan(sim: &Sim) -> Option<(Vec<LinkId>, UpfAhead)> {
    let core = sim.core.as_ref()?;
    let ran = sim.ran.as_ref()?;
    let upf = core.upf();
    let sites: Vec<NodeId> = (0..ran.cells())
        .map(|c| ran.cell_node(CellId::from_index(c)))
        .collect();
    let is_ue = |n: NodeId| sim.node_ue[n.index()].is_some();
    if is_ue(upf) || sites.contains(&upf) {
        return None;
    }
    // The UPF's links toward the sites.
    let mut toward = Vec::new();
    for &s in &sites {
        let Hop::Link(b) = sim.fwd.next(upf, s) else {
            return None;
        };
        if !toward.contains(&b) {
            toward.push(b);
        }
    }
    let wired = sim.topology.wired();
    let mut from = None;
    for f in &sim.flows {
        if f.src == upf || f.dst == upf {
            return None;
        }
        for (src, dst) in [(f.src, f.dst), (f.dst, f.src)] {
            match (is_ue(src), is_ue(dst)) {
                (true, true) => return None,
                // Uplink: tunnelled to the UPF, then routed on: not toward a site.
                (true, false) => match sim.fwd.next(upf, dst) {
                    Hop::Link(b) if toward.contains(&b) => return None,
                    _ => {}
                },
                // Downlink: routed to the UPF; its last link is the input.
                (false, true) => {
                    let route = wired_route(sim, src, upf);
                    let &(_, a) = route.last()?;
                    if wired[a.index()].1 != upf || from.is_some_and(|x| x != a) {
                        return None;
                    }
                    from = Some(a);
                }
                // Between fixed nodes: must not leave the UPF toward a site.
                (false, false) => {
                    let route = wired_route(sim, src, dst);
                    if route
                        .iter()
                        .any(|&(at, l)| at == upf && toward.contains(&l))
                    {
                        return None;
                    }
                }
            }
        }
    }
    let mut scripted: Vec<SimTime> = sim
        .events
        .iter()
        .filter(|(_, a)| matches!(a, Action::Handover { .. }))
        .map(|&(t, _)| t)
        .collect();
    scripted.sort();
    Some((
        toward,
        UpfAhead {
            from: from?,
            least: ran.least_handover_time(),
            scripted,
        },
    ))
}

/// The wired hops of the route from `src` towards `dst`, each as (the node it leaves, its
/// link direction), up to `dst` or the first hop that is not a wired link.
fn wired_route(sim: &Sim, src: NodeId, dst: NodeId) -> Vec<(NodeId, LinkId)> {
    let wired = sim.topology.wired();
    let mut route = Vec::new();
    let mut at = src;
    while at != dst && route.len() < wired.len() {
        let Hop::Link(l) = sim.fwd.next(at, dst) else {
            break;
        };
        route.push((at, l));
        at = wired[l.index()].1;
    }
    route
}

impl UpfAhead {
    /// True if no path switch of UE `ue` can happen in `[now, at]` (module doc).
    fn tunnel_holds(
        &self,
        ran: &mmtsim_ran::network::Ran,
        ue: UeId,
        now: SimTime,
        at: SimTime,
    ) -> bool {
        if ran.in_handover(ue) {
            return false;
        }
        if self.least.is_some_and(|least| at >= now + least) {
            return false;
        }
        let next = self.scripted.partition_point(|&t| t < now);
        self.scripted.get(next).is_none_or(|&t| t > at)
    }
}

impl Sim {
    /// The far end, at `at`, of the tunnel a packet to `dst` (a UE) enters at the UPF, if
    /// it is known at `now` (`None`: it may change before `at`).
    #[inline(never)]
    pub(super) fn tunnel_end_ahead(
        &self,
        now: SimTime,
        dst: NodeId,
        at: SimTime,
    ) -> Option<NodeId> {
        let ue = self.node_ue[dst.index()]?;
        let ahead = self.fusion.as_deref()?.upf.as_ref()?;
        let (ran, core) = (self.ran.as_ref()?, self.core.as_ref()?);
        ahead
            .tunnel_holds(ran, ue, now, at)
            .then(|| core.tunnel_end(ue))
    }
}
