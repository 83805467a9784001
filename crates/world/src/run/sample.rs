//! Sampled time series: cwnd per flow, queue occupancy per link, radio state per UE; and
//! the goodput bins a delivery lands in.

use super::Sim;
use crate::build::{FlowKind, FlowState};
use mmtsim_engine::ids::UeId;
use mmtsim_engine::queue::CLASS_LATE;
use mmtsim_engine::SimTime;
use mmtsim_scenario::model::CwndRecording;
use mmtsim_transport::tcp::sender::SenderState;

/// The `secondary_cell` of a UE without one (Python reads it as −1).
pub const NO_CELL: u32 = u32::MAX;

/// The per-UE radio time series.
#[derive(Default)]
pub(super) struct RanSeries {
    pub ue: Vec<u32>,
    pub t_ns: Vec<u64>,
    pub sinr_dl_db: Vec<f64>,
    pub sinr_ul_db: Vec<f64>,
    pub mcs_dl: Vec<f64>,
    pub mcs_ul: Vec<f64>,
    pub los: Vec<u32>,
    pub rlc_dl_bytes: Vec<u64>,
    pub rlc_ul_bytes: Vec<u64>,
    pub x_m: Vec<f64>,
    pub y_m: Vec<f64>,
    /// Serving cell.
    pub cell: Vec<u32>,
    /// Downlink SINR at the secondary cell (NaN without one).
    pub sinr_dl_secondary_db: Vec<f64>,
    /// Secondary cell ([`NO_CELL`] without one).
    pub secondary_cell: Vec<u32>,
}

impl Sim {
    pub(super) fn take_sample(&mut self, now: SimTime) {
        if self.cwnd_mode == CwndRecording::Interval {
            for fl in &mut self.flows {
                if let FlowKind::Tcp { sender, .. } = &fl.kind {
                    if now >= fl.start && sender.state() == SenderState::Established {
                        fl.cwnd_t_ns.push(now.ns());
                        fl.cwnd_bytes.push(sender.cwnd_bytes());
                        fl.ssthresh_bytes.push(sender.ssthresh_bytes());
                        fl.inflight_bytes.push(sender.bytes_in_flight());
                        fl.rwnd_bytes.push(sender.peer_window_bytes());
                    }
                }
            }
        }
        // A relay's occupancy: what it read from the first leg and the second has not had
        // acknowledged; and the relayed flow's backlog end to end: what the first leg's
        // sender has sent (SND.NXT − 1: sequence 0 is the SYN; retransmissions do not
        // advance it) and the destination's application has not read (also behind an
        // mmCPTP proxy, whose first leg is TCP too).
        for i in 0..self.flows.len() {
            let Some(r) = self.flows[i].relay.as_ref().filter(|r| r.leg == 2) else {
                continue;
            };
            let opened = r.opened;
            let sent_by_source = match &self.flows[r.peer.index()].kind {
                FlowKind::Tcp { sender, .. } => sender.snd_nxt().saturating_sub(1),
                _ => unreachable!("a relay's first leg is TCP"),
            };
            let fl = &mut self.flows[i];
            fl.relay_backlog_sum += sent_by_source.saturating_sub(fl.delivered) as u128;
            if let (true, FlowKind::Tcp { sender, .. }) = (opened, &fl.kind) {
                let written = sender.app_written();
                let held = written - sender.snd_una().saturating_sub(1).min(written);
                fl.relay_occupancy.record(held);
            }
        }
        self.cptp_sample();
        for (i, l) in self.links.iter_mut().enumerate() {
            let occ = l.dir.queue_bytes(now);
            l.occupancy.record(occ);
            self.q_link.push(i as u32);
            self.q_t_ns.push(now.ns());
            self.q_bytes.push(occ);
            self.q_packets.push(l.dir.queue_packets(now) as u32);
            self.q_drops
                .push(l.dir.stats.tail_drops + l.dir.stats.aqm_drops);
        }
        if let Some(ran) = self.ran.as_mut() {
            for u in 0..ran.ues() {
                let s = ran.sample(UeId::from_index(u), now);
                let r = &mut self.rs;
                r.ue.push(u as u32);
                r.t_ns.push(now.ns());
                r.sinr_dl_db.push(s.sinr_dl_db);
                r.sinr_ul_db.push(s.sinr_ul_db);
                r.mcs_dl.push(s.mcs[0].map_or(f64::NAN, f64::from));
                r.mcs_ul.push(s.mcs[1].map_or(f64::NAN, f64::from));
                r.los.push(s.los as u32);
                r.rlc_dl_bytes.push(s.rlc_bytes[0]);
                r.rlc_ul_bytes.push(s.rlc_bytes[1]);
                r.x_m.push(s.position.x);
                r.y_m.push(s.position.y);
                r.cell.push(s.cell.0);
                r.sinr_dl_secondary_db
                    .push(s.sinr_dl_secondary_db.unwrap_or(f64::NAN));
                r.secondary_cell.push(s.secondary.map_or(NO_CELL, |c| c.0));
            }
        }
        let next = now + self.sample;
        if next <= self.end {
            self.q
                .schedule_in_class(next, CLASS_LATE, super::Ev::Sample);
        }
    }
}

impl FlowState {
    /// `bytes` reached the receiving application at `now` (a file flow completes when the
    /// application has the whole file).
    pub(super) fn record_delivery(&mut self, now: SimTime, bytes: u64, bin_ns: u64, end: SimTime) {
        if let FlowKind::Tcp {
            file_size: Some(size),
            completed_at: completed_at @ None,
            ..
        } = &mut self.kind
        {
            if self.delivered + bytes >= *size {
                *completed_at = Some(now);
            }
        }
        if let FlowKind::Cptp(c) = &mut self.kind {
            if c.completed_at.is_none()
                && c.proxy
                    .content_length()
                    .is_some_and(|size| self.delivered + bytes >= size)
            {
                c.completed_at = Some(now);
            }
        }
        self.delivered += bytes;
        if now <= self.stop {
            self.delivered_by_stop += bytes;
        }
        // Bins are [k·bin, (k+1)·bin); the run's last instant `end` belongs to the last bin.
        let (mut b, from, to) = self.bin_now;
        if !(from..to).contains(&now.ns()) {
            let last = end.ns().saturating_sub(1) / bin_ns;
            let k = (now.ns() / bin_ns).min(last);
            let to = if k == last {
                u64::MAX
            } else {
                (k + 1) * bin_ns
            };
            b = k as usize;
            self.bin_now = (b, k * bin_ns, to);
        }
        if self.bins.len() <= b {
            self.bins.resize(b + 1, 0);
        }
        self.bins[b] += bytes;
    }
}
