//! The mobile core network's user plane: a UPF node that anchors every UE's traffic,
//! with a tunnel per UE to the gNB site serving it [TS23501 §5.8].
//!
//! - **Downlink.** A packet for a UE is routed to the UPF like any packet; there it
//!   enters the UE's tunnel, whose far end is the UE's serving site, and is routed to
//!   that site. The site takes it out of the tunnel and hands it to the radio.
//! - **Uplink.** A packet a UE sends leaves the radio at its serving site, enters a
//!   tunnel to the UPF, and is routed on from there to its destination.
//! - **Path switch** [TS23502 §4.9.1.2.2]. When a UE is handed over, the UPF's tunnel
//!   for it is switched to the target site at once (the path-switch signalling is not
//!   timed). Packets already in the old tunnel still reach the source site, which
//!   forwards them to the target over Xn [TS38300 §9.2.3.2.2] when the two sites are
//!   joined by a link (any wired link between two gNB sites is an Xn link), and drops
//!   them otherwise; both are counted.
//!
//! A tunnel adds no header bytes (GTP-U/UDP/IP overhead is not modelled) and no
//! processing delay at its ends.

use mmtsim_engine::ids::{NodeId, UeId};

/// Counters of the core network, for the summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CoreStats {
    /// Downlink packets that reached a site no longer serving their UE and were sent on
    /// over Xn.
    pub xn_forwarded: u64,
    /// Such packets dropped because the two sites have no Xn link.
    pub xn_dropped: u64,
    /// Path switches.
    pub path_switches: u64,
}

/// The user plane function and its tunnels.
#[derive(Clone, Debug)]
pub(crate) struct Core {
    upf: NodeId,
    /// Far end of each UE's downlink tunnel: its serving site, by `UeId`.
    tunnel: Vec<NodeId>,
    pub stats: CoreStats,
}

impl Core {
    /// A UPF at node `upf`; `sites[u]` is UE u's serving site at the start.
    pub(crate) fn new(upf: NodeId, sites: Vec<NodeId>) -> Core {
        Core {
            upf,
            tunnel: sites,
            stats: CoreStats::default(),
        }
    }

    /// The UPF's node.
    pub(crate) fn upf(&self) -> NodeId {
        self.upf
    }

    /// Where UE `ue`'s downlink tunnel ends now.
    pub(crate) fn tunnel_end(&self, ue: UeId) -> NodeId {
        self.tunnel[ue.index()]
    }

    /// From now on UE `ue`'s downlink is tunnelled to `site`.
    pub(crate) fn path_switch(&mut self, ue: UeId, site: NodeId) {
        if self.tunnel[ue.index()] != site {
            self.tunnel[ue.index()] = site;
            self.stats.path_switches += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_switch_moves_one_tunnel_and_is_counted_once() {
        let mut c = Core::new(NodeId(1), vec![NodeId(2), NodeId(2)]);
        assert_eq!(c.upf(), NodeId(1));
        c.path_switch(UeId(0), NodeId(3));
        assert_eq!(c.tunnel_end(UeId(0)), NodeId(3));
        assert_eq!(c.tunnel_end(UeId(1)), NodeId(2));
        // Switching to where the tunnel already ends is no switch.
        c.path_switch(UeId(0), NodeId(3));
        assert_eq!(c.stats.path_switches, 1);
    }
}
