//! The network's graph and the forwarding tables computed from it.
//!
//! Nodes are joined by wired link directions and by radio attachments (a UE to the site
//! of its serving cell, both directions). Each node's forwarding table gives, for every
//! destination node, the next hop: a wired link direction, or the radio (downlink at a
//! site towards a UE it serves, uplink at a UE). Tables are shortest paths by hop count,
//! computed by a breadth-first search from every destination over reversed edges. Among
//! equally short routes a node takes the next hop through the neighbour the search
//! reached first; a node's edges are searched in the order they were added (wired link
//! directions by `LinkId`, then radio attachments by `UeId`), so runs are deterministic. They are recomputed whenever
//! an attachment changes (a UE changes serving cell); wired routes do not change in a run.
//!
//! Cost: O(nodes · (nodes + edges)) per computation, done at build time and at each
//! change of attachment.

use mmtsim_engine::ids::{LinkId, NodeId, UeId};
use mmtsim_net::Direction;
use std::collections::VecDeque;

/// Where a node sends a packet next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Hop {
    /// Onto a wired link direction.
    Link(LinkId),
    /// Over the radio: downlink to the UE from the site serving it, uplink from the UE.
    Radio(UeId, Direction),
    /// No route (the validated scenario routes every flow; tunnels may still ask).
    Unreachable,
}

/// The graph: wired link directions and radio attachments.
#[derive(Clone, Debug)]
pub(crate) struct Topology {
    nodes: usize,
    /// Wired link directions as (from, to), by `LinkId`.
    wired: Vec<(NodeId, NodeId)>,
    /// Each UE's (node, serving site node).
    attached: Vec<(NodeId, NodeId)>,
}

/// Next hops of every node towards every destination.
#[derive(Clone, Debug)]
pub(crate) struct Forwarding {
    nodes: usize,
    next: Vec<Hop>,
}

impl Forwarding {
    /// The next hop from `at` towards `dst`.
    #[inline]
    pub(crate) fn next(&self, at: NodeId, dst: NodeId) -> Hop {
        self.next[at.index() * self.nodes + dst.index()]
    }
}

impl Topology {
    pub(crate) fn new(nodes: usize) -> Topology {
        Topology {
            nodes,
            wired: Vec::new(),
            attached: Vec::new(),
        }
    }

    /// Adds the next wired link direction (its `LinkId` is the count so far).
    pub(crate) fn add_link(&mut self, from: NodeId, to: NodeId) -> LinkId {
        self.wired.push((from, to));
        LinkId::from_index(self.wired.len() - 1)
    }

    /// Adds the next UE (its `UeId` is the count so far), attached to `site`.
    pub(crate) fn add_ue(&mut self, ue_node: NodeId, site: NodeId) -> UeId {
        self.attached.push((ue_node, site));
        UeId::from_index(self.attached.len() - 1)
    }

    /// UE `ue` is now attached to `site`.
    pub(crate) fn attach(&mut self, ue: UeId, site: NodeId) {
        self.attached[ue.index()].1 = site;
    }

    /// The wired link directions as (from, to), by `LinkId`.
    pub(crate) fn wired(&self) -> &[(NodeId, NodeId)] {
        &self.wired
    }

    /// The site UE `ue` is attached to.
    pub(crate) fn site_of(&self, ue: UeId) -> NodeId {
        self.attached[ue.index()].1
    }

    /// The wired link direction from `a` to `b`, if they are neighbours (the first by id).
    pub(crate) fn direct_link(&self, a: NodeId, b: NodeId) -> Option<LinkId> {
        self.wired
            .iter()
            .position(|&e| e == (a, b))
            .map(LinkId::from_index)
    }

    /// Shortest-hop forwarding tables of every node.
    pub(crate) fn forwarding(&self) -> Forwarding {
        let n = self.nodes;
        // node -> (from, hop) over which `from` reaches it, in tie-break order.
        let mut in_edges: Vec<Vec<(NodeId, Hop)>> = vec![Vec::new(); n];
        for (i, &(from, to)) in self.wired.iter().enumerate() {
            in_edges[to.index()].push((from, Hop::Link(LinkId::from_index(i))));
        }
        for (j, &(ue, site)) in self.attached.iter().enumerate() {
            let id = UeId::from_index(j);
            in_edges[ue.index()].push((site, Hop::Radio(id, Direction::Downlink)));
            in_edges[site.index()].push((ue, Hop::Radio(id, Direction::Uplink)));
        }
        let mut next = vec![Hop::Unreachable; n * n];
        let mut dist = vec![u32::MAX; n];
        let mut q = VecDeque::with_capacity(n);
        for dst in 0..n {
            dist.fill(u32::MAX);
            dist[dst] = 0;
            q.clear();
            q.push_back(dst);
            while let Some(v) = q.pop_front() {
                for &(u, hop) in &in_edges[v] {
                    let u = u.index();
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v] + 1;
                        next[u * n + dst] = hop;
                        q.push_back(u);
                    }
                }
            }
        }
        Forwarding { nodes: n, next }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(t: &mut Topology, a: u32, b: u32) -> (LinkId, LinkId) {
        (
            t.add_link(NodeId(a), NodeId(b)),
            t.add_link(NodeId(b), NodeId(a)),
        )
    }

    /// server(0) ─ core(1) ─ siteA(2), core(1) ─ siteB(3), siteA(2) ─ siteB(3) (Xn);
    /// ue(4) served by siteA.
    fn two_sites() -> (Topology, [LinkId; 8], UeId) {
        let mut t = Topology::new(5);
        let (a, b) = both(&mut t, 0, 1);
        let (c, d) = both(&mut t, 1, 2);
        let (e, f) = both(&mut t, 1, 3);
        let (g, h) = both(&mut t, 2, 3);
        let ue = t.add_ue(NodeId(4), NodeId(2));
        (t, [a, b, c, d, e, f, g, h], ue)
    }

    #[test]
    fn downlink_goes_to_the_serving_site_then_over_the_radio() {
        let (t, l, ue) = two_sites();
        let f = t.forwarding();
        let to_ue = NodeId(4);
        assert_eq!(f.next(NodeId(0), to_ue), Hop::Link(l[0])); // server → core
        assert_eq!(f.next(NodeId(1), to_ue), Hop::Link(l[2])); // core → siteA
        assert_eq!(
            f.next(NodeId(2), to_ue),
            Hop::Radio(ue, Direction::Downlink)
        );
        // siteB reaches the UE through siteA over the Xn link (2 hops), not via the core (3).
        assert_eq!(f.next(NodeId(3), to_ue), Hop::Link(l[7]));
        // The UE sends everything up its radio.
        assert_eq!(f.next(to_ue, NodeId(0)), Hop::Radio(ue, Direction::Uplink));
        assert_eq!(f.next(to_ue, to_ue), Hop::Unreachable);
    }

    #[test]
    fn a_new_attachment_moves_the_routes_after_recomputing() {
        let (mut t, l, ue) = two_sites();
        t.attach(ue, NodeId(3));
        assert_eq!(t.site_of(ue), NodeId(3));
        let f = t.forwarding();
        let to_ue = NodeId(4);
        assert_eq!(f.next(NodeId(1), to_ue), Hop::Link(l[4])); // core → siteB now
        assert_eq!(
            f.next(NodeId(3), to_ue),
            Hop::Radio(ue, Direction::Downlink)
        );
        assert_eq!(f.next(NodeId(2), to_ue), Hop::Link(l[6])); // siteA → siteB (Xn)
    }

    #[test]
    fn ties_go_to_the_lower_link_id() {
        // Two parallel links 0 → 1: the first added wins in both directions.
        let mut t = Topology::new(2);
        let (a, b) = both(&mut t, 0, 1);
        let (_c, _d) = both(&mut t, 0, 1);
        let f = t.forwarding();
        assert_eq!(f.next(NodeId(0), NodeId(1)), Hop::Link(a));
        assert_eq!(f.next(NodeId(1), NodeId(0)), Hop::Link(b));
        assert_eq!(t.direct_link(NodeId(0), NodeId(1)), Some(a));
        assert_eq!(t.direct_link(NodeId(0), NodeId(0)), None);
    }
}
