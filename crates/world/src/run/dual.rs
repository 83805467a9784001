//! Coordinated dual connectivity as the world sees it: one chain of `Ev::Dual` events at
//! the RAN's coordination deadlines (report instants, reports reaching the anchor, X2
//! forwarding, secondary-cell handover steps). Nothing outside the radio changes: the
//! UE's primary cell, its site, the forwarding tables and the core's tunnel stay on the
//! LTE anchor (no core path switch). The decisions and their execution are the RAN's
//! (`mmtsim_ran::rrc::dual`, `ran/src/network/dual.rs`).

use super::{Ev, Sim};
use mmtsim_engine::queue::CLASS_EARLY;
use mmtsim_engine::SimTime;

impl Sim {
    /// Gives the RAN the X2 delays (the wired link between two sites, if any) and
    /// schedules the first coordination step.
    pub(super) fn start_dual(&mut self) {
        let Some(ran) = self.ran.as_mut() else {
            return;
        };
        if !ran.dual_coordinated() {
            return;
        }
        let (topology, links) = (&self.topology, &self.links);
        ran.set_x2_delays(|a, b| {
            topology
                .direct_link(a, b)
                .map(|l| links[l.index()].dir.delay())
        });
        self.q
            .schedule_in_class(SimTime::ZERO, CLASS_EARLY, Ev::Dual);
    }

    /// A coordination step; the next one is scheduled at the RAN's next deadline.
    pub(super) fn dual(&mut self, now: SimTime) {
        let Some(ran) = self.ran.as_mut() else {
            return;
        };
        let mut out = std::mem::take(&mut self.rout);
        for (c, t) in ran.dual_step(now, &mut out) {
            self.q.schedule_in_class(t, CLASS_EARLY, Ev::Slot(c));
        }
        for i in 0..out.dropped.len() {
            self.drop_packet(out.dropped[i] as u32);
        }
        out.dropped.clear();
        debug_assert!(
            out.delivered.is_empty(),
            "a coordination step delivers nothing"
        );
        self.rout = out;
        let ran = self.ran.as_ref().expect("checked above");
        if let Some(t) = ran.dual_deadline().filter(|&t| t <= self.end) {
            self.q.schedule_in_class(t.max(now), CLASS_EARLY, Ev::Dual);
        }
    }
}
