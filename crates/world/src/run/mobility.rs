//! Measurement-based handover as the world sees it: the measurement instants of the RAN,
//! the steps of each UE's handover procedure, and what they change outside the radio
//! (the UE's attachment and forwarding tables at the detach, the core's path switch when
//! a cell serves the UE again). The decision and the radio side are the RAN's
//! (`mmtsim_ran::rrc`, `ran/src/network/handover.rs`).

use super::{Ev, Sim};
use mmtsim_engine::ids::UeId;
use mmtsim_engine::queue::CLASS_EARLY;
use mmtsim_engine::SimTime;
use mmtsim_ran::network::RrcEvent;

impl Sim {
    /// Gives the RAN the Xn delays (the wired link between two sites, if any) and
    /// schedules the first measurement instant.
    pub(super) fn start_measurements(&mut self) {
        let Some(ran) = self.ran.as_mut() else {
            return;
        };
        let (topology, links) = (&self.topology, &self.links);
        ran.set_xn_delays(|a, b| {
            topology
                .direct_link(a, b)
                .map(|l| links[l.index()].dir.delay())
        });
        if ran.measurement_period().is_some() {
            self.q
                .schedule_in_class(SimTime::ZERO, CLASS_EARLY, Ev::Measure);
        }
    }

    /// A measurement instant of every UE; procedures that start are stepped at their
    /// deadlines.
    pub(super) fn measure(&mut self, now: SimTime) {
        let Some(ran) = self.ran.as_mut() else {
            return;
        };
        let mut started = Vec::new();
        ran.measure_all(now, &mut started);
        for ue in started {
            if let Some(t) = ran.rrc_deadline(ue) {
                self.q.schedule_in_class(t, CLASS_EARLY, Ev::Rrc(ue));
            }
        }
        if let Some(p) = ran.measurement_period() {
            if now + p <= self.end {
                self.q.schedule_in_class(now + p, CLASS_EARLY, Ev::Measure);
            }
        }
    }

    /// A deadline of UE `ue`'s handover procedure.
    pub(super) fn rrc(&mut self, now: SimTime, ue: UeId) {
        let Some(ran) = self.ran.as_mut() else {
            return;
        };
        let mut out = std::mem::take(&mut self.rout);
        let mut events = Vec::new();
        if let Some((c, t)) = ran.rrc_step(now, ue, &mut out, &mut events) {
            self.q.schedule_in_class(t, CLASS_EARLY, Ev::Slot(c));
        }
        if let Some(t) = ran.rrc_deadline(ue) {
            self.q.schedule_in_class(t, CLASS_EARLY, Ev::Rrc(ue));
        }
        for i in 0..out.dropped.len() {
            self.drop_packet(out.dropped[i] as u32);
        }
        out.dropped.clear();
        debug_assert!(
            out.delivered.is_empty(),
            "a procedure step delivers nothing"
        );
        self.rout = out;
        for e in events {
            let ran = self.ran.as_ref().expect("checked");
            match e {
                // The UE's traffic goes to the target's site from now: what reaches the
                // source through the core's old tunnel is forwarded over Xn.
                RrcEvent::Detached { ue, to } => {
                    let site = ran.cell_node(to);
                    self.attach_ue(now, ue, site);
                }
                RrcEvent::Served { ue, cell } => {
                    let site = ran.cell_node(cell);
                    if self.topology.site_of(ue) != site {
                        self.attach_ue(now, ue, site);
                    }
                    if let Some(core) = &mut self.core {
                        core.path_switch(ue, site);
                    }
                }
            }
        }
    }
}
