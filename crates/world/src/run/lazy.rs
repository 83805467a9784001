//! Late admission into the radio: packets that reach a single cell's site over its wire
//! are taken into the cell's buffers just before the next event that could see them,
//! rather than each by an event of its own at its arrival.
//!
//! On the one-UE path the ACKs (uplink flows) or data (downlink flows) that reach the gNB
//! from the core arrive in bursts on the slot grid, interleaved within nanoseconds with
//! the other direction's packets at the remote host, so two in three of them went through
//! the event queue (BENCHMARKS.md, 2026-11-28 late). An arrival at the site does one
//! thing: the packet enters a UE's PDCP and RLC transmit buffers (or is dropped there),
//! which only the cell's slot, the metric samples and the radio procedures read.
//!
//! # When it applies
//! A run ([`super::run`], not one driven step by step) with exactly one cell, no mmCPTP
//! download, and a site that is no flow's endpoint and has exactly one incoming wired
//! link direction, which keeps order, has a delay and is not captured. One cell means no
//! handover and no dual connectivity: a packet's route at the site is fixed. A packet put
//! on that wire whose route at the site is not the radio (it is for no UE) ends late
//! admission on the link for the rest of the run.
//!
//! # Why results stay the same
//! A packet due at `t` is admitted, with `t` as its time, before any event after `t`
//! that could observe or change what the admission touches:
//! - before every early-class event (the cell's slot, handover and dual-connectivity
//!   procedures, scripted events), packets due strictly before its instant, since at one
//!   instant early events precede the arrival;
//! - before every late-class event (the metric sample), packets due at or before it,
//!   since it follows the arrival;
//! - at the end of the run, packets due by the end.
//!
//! The normal-class events in between (wire arrivals elsewhere, TCP timers, application
//! wake-ups, link transmissions, flow starts) touch the site's UE buffers only through
//! uplink enqueues, which use the other direction's PDCP and RLC entities, and the cell's
//! wake-up, which does nothing while the cell's next slot is due by the packet's slot
//! ([`mmtsim_ran::network::Ran::slot_due_by`]). Admission is late only while that holds:
//! when a slot leaves the cell idle, or with its next slot later than the next boundary,
//! the link's waiting packets take the event queue again, each at its own instant. Drops
//! at a full buffer are counted in the same order; the freed packet record is reused by a
//! later packet than before, which changes no result (records are storage, not identity).
//!
//! The event count is kept: each distinct arrival instant admitted late counts as one
//! event ([`mmtsim_engine::EventQueue::count_ahead`]), as its wire event did.
//! `tests/it/late_admission.rs` compares whole runs (late admission) with stepped runs
//! (never late) bit for bit, on fixed and random one-UE runs; `tests/it/stepping.rs`
//! does the same on the shipped one-UE and ten-UE examples.

use super::{Ev, Sim};
use crate::topology::Hop;
use mmtsim_engine::ids::{CellId, LinkId};
use mmtsim_engine::SimTime;

/// The late admission of a run.
#[derive(Debug)]
pub(super) struct Lazy {
    /// The site's incoming wired link direction.
    link: LinkId,
    /// The single cell.
    cell: CellId,
    /// Late admission still applies to the link (a packet not for the radio ends it).
    on: bool,
    /// The last instant admitted late (the event count counts each instant once).
    last: Option<SimTime>,
    /// Instants admitted late so far.
    pub(super) instants: u64,
}

/// Late admission for this run, if it applies (module doc).
pub(super) fn plan(sim: &Sim) -> Option<Box<Lazy>> {
    let ran = sim.ran.as_ref()?;
    if ran.cells() != 1 || !sim.cptp_flows.is_empty() {
        return None;
    }
    let cell = CellId::from_index(0);
    let site = ran.cell_node(cell);
    if sim.flows.iter().any(|f| f.src == site || f.dst == site) {
        return None;
    }
    let mut ins = sim
        .topology
        .wired()
        .iter()
        .enumerate()
        .filter(|(_, &(_, to))| to == site);
    let (l, _) = ins.next()?;
    if ins.next().is_some() {
        return None;
    }
    let ls = &sim.links[l];
    if ls.capture.is_some() || !ls.dir.keeps_order() || ls.dir.delay() == SimTime::ZERO {
        return None;
    }
    Some(Box::new(Lazy {
        link: LinkId::from_index(l),
        cell,
        on: true,
        last: None,
        instants: 0,
    }))
}

impl Sim {
    /// True if packet `pkt`, going onto link `l`'s wire at `now`, may be admitted late:
    /// the link is the late one, its packets are for the radio, and the cell's next slot
    /// is due by the packet's. A packet for anything else ends late admission.
    #[inline]
    pub(super) fn admit_late(&mut self, now: SimTime, l: LinkId, pkt: u32) -> bool {
        let Some(lazy) = self.lazy.as_deref() else {
            return false;
        };
        if !lazy.on || lazy.link != l {
            return false;
        }
        let site = self.links[l.index()].to;
        let p = &self.pkts[pkt as usize];
        let radio = match p.tunnel {
            Some(end) => end == site && self.node_ue[p.dst.index()].is_some(),
            None => matches!(self.fwd.next(site, p.dst), Hop::Radio(..)),
        };
        if !radio {
            // Those waiting that are already due enter now (the caller schedules the
            // wire's next arrival); from here on the link's packets take the event queue.
            self.admit_waiting(now, false);
            self.lazy.as_deref_mut().expect("planned").on = false;
            return false;
        }
        self.late_holds(now)
    }

    /// The cell's next slot is due by the slot of any packet arriving at `now` or later.
    #[inline]
    fn late_holds(&self, now: SimTime) -> bool {
        let (Some(lazy), Some(ran)) = (self.lazy.as_deref(), self.ran.as_ref()) else {
            return false;
        };
        lazy.on && ran.slot_due_by(lazy.cell, now)
    }

    /// True if the late link's next packet waits without an event (so `wire_head` need
    /// not schedule one).
    #[inline]
    pub(super) fn waits_late(&self, l: LinkId, now: SimTime) -> bool {
        self.lazy.as_deref().is_some_and(|z| z.link == l) && self.late_holds(now)
    }

    /// Admits the packets waiting on the late link that are due before `now` (`at_now`:
    /// also those due at `now`).
    #[inline]
    pub(super) fn admit_waiting(&mut self, now: SimTime, at_now: bool) {
        if self.lazy.is_some() {
            self.admit_due(now, at_now);
        }
    }

    fn admit_due(&mut self, now: SimTime, at_now: bool) {
        let lazy = self.lazy.as_deref().expect("planned");
        let l = lazy.link;
        let li = l.index();
        let mut last = lazy.last;
        let mut instants = 0;
        while let Some(&(t, pkt)) = self.links[li].wire.front() {
            if t > now || (t == now && !at_now) {
                break;
            }
            self.links[li].wire.pop_front();
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
        lazy.last = last;
        lazy.instants += instants;
    }

    /// After the cell's slot at `now`: if its next slot is no longer due by the next
    /// boundary, the link's waiting packets take the event queue again.
    pub(super) fn after_late_slot(&mut self, now: SimTime) {
        let Some(l) = self.lazy.as_deref().map(|z| z.link) else {
            return;
        };
        let ls = &self.links[l.index()];
        if ls.wire_event_pending || ls.wire.is_empty() {
            return;
        }
        if self.late_holds(now + SimTime::from_ns(1)) {
            return;
        }
        let head = ls.wire.front().expect("not empty").0;
        debug_assert!(head >= now, "packets due before the slot were admitted");
        self.links[l.index()].wire_event_pending = true;
        self.q.schedule(head, Ev::WireHead(l));
    }
}
