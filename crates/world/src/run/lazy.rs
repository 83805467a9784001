//! Late admission into the radio: packets that reach a cell's site over its one wire are
//! taken into the cell's buffers just before the next event that could see them, rather
//! than each by an event of its own at its arrival.
//!
//! On the one-UE path the ACKs (uplink flows) or data (downlink flows) that reach the gNB
//! from the core arrive in bursts on the slot grid, interleaved within nanoseconds with
//! the other direction's packets at the remote host, so two in three of them went through
//! the event queue (BENCHMARKS.md, 2026-11-28 late); with many cells, every downlink
//! packet takes one such event at its site. An arrival at the site does one thing: the
//! packet enters a UE's PDCP and RLC transmit buffers (or is dropped there), which only
//! the cell's slot, the metric samples and the radio procedures read.
//!
//! # When it applies
//! A run ([`super::run`], not one driven step by step) with no mmCPTP download and no
//! dual connectivity (no UE with, or scripted to get, a secondary cell; no coordination),
//! and for each site that hosts one cell, is no flow's endpoint and has exactly one
//! incoming wired link direction, which keeps order, has a delay and is not captured.
//! Each such link is late on its own: packets from one wire enter in their order, and
//! those of different sites touch different UEs' buffers.
//!
//! # Which packets wait
//! A packet put on the wire waits only if, when it is put, its route at the site is the
//! radio of a UE the site serves (the end of its core tunnel, or the forwarding table's
//! radio hop), and the cell's next slot is due by its slot. Any other packet is *eager*:
//! it and those before it on the wire take the event queue, each at its own instant, as
//! without late admission. A UE's route at a site changes only when the UE attaches
//! elsewhere, in a radio procedure (a handover's detach, a re-establishment, a scripted
//! handover): then every packet on the wire of the site it left becomes eager, since
//! some may now be for Xn forwarding or a drop, which must happen at their instants.
//!
//! # Why results stay the same
//! A waiting packet due at `t` is admitted, with `t` as its time, before any event after
//! `t` that could observe or change what the admission touches:
//! - before every early-class event (a slot, handover and dual-connectivity procedures,
//!   scripted events), packets due strictly before its instant, since at one instant
//!   early events precede the arrival (before a cell's slot, only those of its own site:
//!   a slot reads only its own UEs' buffers);
//! - before every late-class event (the metric sample), packets due at or before it,
//!   since it follows the arrival;
//! - at the end of the run, packets due by the end.
//!
//! The normal-class events in between (wire arrivals elsewhere, TCP timers, application
//! wake-ups, link transmissions, flow starts) touch the site's UE buffers only through
//! uplink enqueues, which use the other direction's PDCP and RLC entities, and the cell's
//! wake-up, which does nothing while the cell's next slot is due by the packet's slot
//! ([`mmtsim_ran::network::Ran::slot_due_by`]). Admission is late only while that holds:
//! when a slot leaves the cell idle, or with its next slot later than the
//! next boundary, the link's waiting packets take the event queue again, each at its own
//! instant. Drops at a full buffer are counted in the same order per UE; the freed packet
//! record is reused by a later packet than before, which changes no result (records are
//! storage, not identity).
//!
//! The event count is kept: each distinct arrival instant admitted late on a link counts
//! as one event ([`mmtsim_engine::EventQueue::count_ahead`]), as its wire event did.
//! `tests/it/late_admission.rs` compares whole runs (late admission) with stepped runs
//! (never late) bit for bit, on fixed and random one-UE and multi-cell runs, with
//! handovers; `tests/it/stepping.rs` does the same on the shipped examples.

use super::forward::{prefetch, PREFETCH_AHEAD};
use super::{Ev, Sim};
use crate::build::Action;
use crate::topology::Hop;
use mmtsim_engine::ids::{CellId, LinkId, NodeId, UeId};
use mmtsim_engine::SimTime;

/// One site's wire whose packets may enter the radio late.
#[derive(Debug)]
struct LateLink {
    /// The site's incoming wired link direction.
    link: LinkId,
    /// The site's one cell.
    cell: CellId,
    /// The site.
    site: NodeId,
    /// Packets on the wire due at or before this instant are eager (module doc).
    eager_through: Option<SimTime>,
    /// The last instant admitted late (the event count counts each instant once).
    last: Option<SimTime>,
}

/// The late admission of a run.
#[derive(Debug)]
pub(super) struct Lazy {
    /// Indexed by `LinkState::late`.
    links: Vec<LateLink>,
    /// For each cell, the index in `links` of its site's wire, if it is late.
    by_cell: Vec<Option<u16>>,
    /// Sites that a UE left in the current radio procedure.
    left: Vec<NodeId>,
    /// Instants admitted late so far.
    pub(super) instants: u64,
}

/// Plans late admission for this run, if it applies to any site (module doc).
pub(super) fn plan(sim: &mut Sim) {
    if let Some(lazy) = late_links(sim) {
        for (i, z) in lazy.links.iter().enumerate() {
            sim.links[z.link.index()].late = u16::try_from(i).ok();
        }
        sim.lazy = Some(lazy);
    }
}

/// The late admission of this run, if any site's wire may take it.
fn late_links(sim: &Sim) -> Option<Box<Lazy>> {
    let ran = sim.ran.as_ref()?;
    let dual = ran.dual_coordinated()
        || (0..ran.ues()).any(|u| ran.secondary_cell(UeId::from_index(u)).is_some())
        || sim
            .events
            .iter()
            .any(|(_, a)| matches!(a, Action::AddSecondary { .. }));
    if dual || !sim.cptp_flows.is_empty() {
        return None;
    }
    let cells = ran.cells();
    let mut links = Vec::new();
    let mut by_cell = vec![None; cells];
    for (c, by) in by_cell.iter_mut().enumerate() {
        let cell = CellId::from_index(c);
        let site = ran.cell_node(cell);
        let shared = (0..cells).any(|d| d != c && ran.cell_node(CellId::from_index(d)) == site);
        if shared || sim.flows.iter().any(|f| f.src == site || f.dst == site) {
            continue;
        }
        let mut ins = sim
            .topology
            .wired()
            .iter()
            .enumerate()
            .filter(|(_, &(_, to))| to == site);
        let Some((l, _)) = ins.next() else {
            continue;
        };
        if ins.next().is_some() {
            continue;
        }
        let ls = &sim.links[l];
        if ls.capture.is_some() || !ls.dir.keeps_order() || ls.dir.delay() == SimTime::ZERO {
            continue;
        }
        let i = u16::try_from(links.len()).ok()?;
        *by = Some(i);
        links.push(LateLink {
            link: LinkId::from_index(l),
            cell,
            site,
            eager_through: None,
            last: None,
        });
    }
    if links.is_empty() {
        return None;
    }
    Some(Box::new(Lazy {
        links,
        by_cell,
        left: Vec::new(),
        instants: 0,
    }))
}

impl Sim {
    /// True if packet `pkt`, going onto link `l`'s wire at `now` to arrive at `at`, may
    /// be admitted late: the link is late, the packet is for the radio of a UE its site
    /// serves, and the cell's next slot is due by the packet's. Any other packet on a
    /// late link is eager (module doc).
    #[inline]
    pub(super) fn admit_late(&mut self, now: SimTime, l: LinkId, pkt: u32, at: SimTime) -> bool {
        let Some(i) = self.late_index(l) else {
            return false;
        };
        let site = self.lazy.as_deref().expect("planned").links[i].site;
        let p = &self.pkts[pkt as usize];
        let radio = match p.tunnel {
            Some(end) => {
                end == site
                    && self.node_ue[p.dst.index()].is_some_and(|u| self.topology.site_of(u) == site)
            }
            None => matches!(self.fwd.next(site, p.dst), Hop::Radio(..)),
        };
        if !radio {
            self.make_eager(i, now, at);
            return false;
        }
        self.late_holds(i, now)
    }

    /// A packet arriving at `at` on late link `i` is not for the radio: it, and those
    /// before it, take the event queue.
    #[cold]
    #[inline(never)]
    fn make_eager(&mut self, i: usize, now: SimTime, at: SimTime) {
        // Those waiting that are already due enter now (the caller schedules the wire's
        // next arrival).
        self.admit_link(i, now, false);
        self.lazy.as_deref_mut().expect("planned").links[i].eager_through = Some(at);
    }

    #[inline]
    fn late_index(&self, l: LinkId) -> Option<usize> {
        self.links[l.index()].late.map(usize::from)
    }

    /// The cell of late link `i` has its next slot due by the slot of any packet arriving
    /// at `now` or later.
    #[inline]
    fn late_holds(&self, i: usize, now: SimTime) -> bool {
        let (Some(lazy), Some(ran)) = (self.lazy.as_deref(), self.ran.as_ref()) else {
            return false;
        };
        ran.slot_due_by(lazy.links[i].cell, now)
    }

    /// True if link `l`'s next packet, due at `head`, waits without an event (so
    /// `wire_head` need not schedule one).
    #[inline]
    pub(super) fn waits_late(&self, l: LinkId, head: SimTime, now: SimTime) -> bool {
        let Some(i) = self.late_index(l) else {
            return false;
        };
        let eager = self.lazy.as_deref().expect("planned").links[i].eager_through;
        eager.is_none_or(|e| head > e) && self.late_holds(i, now)
    }

    /// Admits the packets waiting on every late link that are due before `now`
    /// (`at_now`: also those due at `now`).
    #[inline]
    pub(super) fn admit_waiting(&mut self, now: SimTime, at_now: bool) {
        let Some(n) = self.lazy.as_deref().map(|z| z.links.len()) else {
            return;
        };
        for i in 0..n {
            self.admit_link(i, now, at_now);
        }
    }

    /// Admits the packets waiting on cell `c`'s late link that are due before `now`: all a
    /// slot of the cell can see (it reads only its own UEs' buffers).
    #[inline]
    pub(super) fn admit_cell(&mut self, now: SimTime, c: CellId) {
        if let Some(i) = self.lazy.as_deref().and_then(|z| z.by_cell[c.index()]) {
            self.admit_link(usize::from(i), now, false);
        }
    }

    /// Admits the packets waiting on late link `i` that are due before `now` (`at_now`:
    /// also those due at `now`).
    fn admit_link(&mut self, i: usize, now: SimTime, at_now: bool) {
        let lazy = self.lazy.as_deref().expect("planned");
        let (l, mut last) = (lazy.links[i].link, lazy.links[i].last);
        #[cfg(debug_assertions)]
        let eager = lazy.links[i].eager_through;
        let li = l.index();
        let mut instants = 0;
        // The records of the packets about to be admitted have waited on the wire: asked
        // for ahead of their turn, as out of a slot (`forward.rs`).
        for k in 0..PREFETCH_AHEAD {
            match self.links[li].wire.get(k) {
                Some(&(t, p)) if t <= now => prefetch(&self.pkts[p as usize]),
                _ => break,
            }
        }
        while let Some(&(t, pkt)) = self.links[li].wire.front() {
            if t > now || (t == now && !at_now) {
                break;
            }
            #[cfg(debug_assertions)]
            debug_assert!(
                eager.is_none_or(|e| t > e),
                "an eager packet was left to wait"
            );
            self.links[li].wire.pop_front();
            if let Some(&(u, p)) = self.links[li].wire.get(PREFETCH_AHEAD - 1) {
                if u <= now {
                    prefetch(&self.pkts[p as usize]);
                }
            }
            if last != Some(t) {
                last = Some(t);
                instants += 1;
                self.q.count_ahead();
            }
            #[cfg(debug_assertions)]
            let pending = self.q.len();
            self.arrive(t, pkt, l);
            #[cfg(debug_assertions)]
            debug_assert_eq!(self.q.len(), pending, "a late admission scheduled an event");
        }
        let lazy = self.lazy.as_deref_mut().expect("planned");
        lazy.links[i].last = last;
        lazy.instants += instants;
    }

    /// After cell `c`'s slot at `now`: if its next slot is no longer due by the next
    /// boundary, its site's waiting packets take the event queue again.
    pub(super) fn after_late_slot(&mut self, now: SimTime, c: CellId) {
        let Some(i) = self
            .lazy
            .as_deref()
            .and_then(|z| z.by_cell[c.index()])
            .map(usize::from)
        else {
            return;
        };
        if !self.late_holds(i, now + SimTime::from_ns(1)) {
            self.hand_back(i, now);
        }
    }

    /// UE `ue` attaches to another site than `from` in a radio procedure: packets on
    /// `from`'s wire may no longer be for its radio ([`Sim::after_procedure`]).
    pub(super) fn late_site_left(&mut self, from: NodeId) {
        if let Some(lazy) = self.lazy.as_deref_mut() {
            lazy.left.push(from);
        }
    }

    /// After a radio procedure at `now` (which admitted what was due before it): every
    /// packet on the wire of a site a UE left becomes eager. (A procedure never makes a
    /// cell's next slot later: a slot event, once scheduled, happens; only the cell's own
    /// slot can leave it idle, which [`Sim::after_late_slot`] handles.)
    pub(super) fn after_procedure(&mut self, now: SimTime) {
        let Some(lazy) = self.lazy.as_deref_mut() else {
            return;
        };
        if lazy.left.is_empty() {
            return;
        }
        let mut left = std::mem::take(&mut lazy.left);
        for i in 0..lazy.links.len() {
            let z = &self.lazy.as_deref().expect("planned").links[i];
            if !left.contains(&z.site) {
                continue;
            }
            let back = self.links[z.link.index()].wire.back().map(|&(t, _)| t);
            if back.is_some() {
                self.lazy.as_deref_mut().expect("planned").links[i].eager_through = back;
            }
            self.hand_back(i, now);
        }
        left.clear();
        self.lazy.as_deref_mut().expect("planned").left = left;
    }

    /// Late link `i`'s waiting packets (none due before `now`) take the event queue.
    fn hand_back(&mut self, i: usize, now: SimTime) {
        let l = self.lazy.as_deref().expect("planned").links[i].link;
        let ls = &self.links[l.index()];
        if ls.wire_event_pending {
            return;
        }
        let Some(&(head, _)) = ls.wire.front() else {
            return;
        };
        debug_assert!(head >= now, "packets due before {now} were admitted");
        self.links[l.index()].wire_event_pending = true;
        self.q.schedule(head, Ev::WireHead(l));
    }
}
