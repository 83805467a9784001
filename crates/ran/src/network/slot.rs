//! One slot of one cell: deliveries of decoded blocks, per-leg housekeeping (HARQ
//! feedback, RLC and PDCP timers, channel update, buffer-status snapshot), scheduling,
//! and whether the cell must run again.

use super::{Ran, RanOutput, Ue};
use crate::rlc::{Rlc, Sdu};
use mmtsim_engine::ids::{CellId, NodeId, UeId};
use mmtsim_engine::SimTime;
use mmtsim_net::Direction;

impl Ran {
    /// Runs slot `now` of cell `c` if the world's event is the current one (stale events are
    /// ignored). Returns the time of the cell's next slot event, if it needs one.
    pub fn slot(&mut self, now: SimTime, c: CellId, out: &mut RanOutput) -> Option<SimTime> {
        let ci = c.index();
        if self.cells[ci].scheduled != Some(now) {
            return None;
        }
        self.cells[ci].scheduled = None;
        self.cells[ci].last_slot = Some(now);
        let len = self.cells[ci].radio.slot;
        self.cells[ci].activity.begin(now, len);
        self.deliver_due(now, c, out);
        // A copy, not the cell's own list: other cells' interference (full-buffer beams)
        // reads the list while this slot runs.
        let mut legs = std::mem::take(&mut self.slot_legs);
        legs.clear();
        legs.extend_from_slice(&self.cells[ci].legs);
        for &(u, l) in &legs {
            self.housekeeping(now, u, l, out);
        }
        self.schedule(now, c, &legs);
        for &(u, l) in &legs {
            for side in 0..2 {
                self.sdus.clear();
                let ue = &mut self.ues[u.index()];
                ue.legs[l].rlc[side].take_dropped(&mut self.sdus);
                // A dropped SDU is lost for good: a handover must not send it again.
                for s in &self.sdus {
                    ue.pdcp_tx[side].forget(s.count);
                }
                out.dropped.extend(self.sdus.iter().map(|s| s.id));
            }
        }
        let mut busy = !self.cells[ci].deliveries.is_empty();
        let mut next_timer = SimTime::NEVER;
        for &(u, l) in &legs {
            let ue = &mut self.ues[u.index()];
            let leg = &ue.legs[l];
            let rlc = &leg.rlc;
            if l == 0 {
                ue.view.rlc_bytes = [rlc[0].tx_buffer_bytes(), rlc[1].tx_buffer_bytes()];
                ue.view.sinr_db = leg.sinr[Direction::Downlink.index()];
            }
            let pending = |r: &Rlc| {
                let b = r.buffer_status(now);
                b.new_bytes + b.retx_bytes + b.status_bytes > 0
            };
            busy |= pending(&rlc[0])
                || pending(&rlc[1])
                || !leg.harq[0].is_idle()
                || !leg.harq[1].is_idle();
            for t in [
                rlc[0].next_timer(),
                rlc[1].next_timer(),
                ue.pdcp_rx[0].next_timer(),
                ue.pdcp_rx[1].next_timer(),
            ] {
                next_timer = next_timer.min(t.unwrap_or(SimTime::NEVER));
            }
        }
        self.slot_legs = legs;
        let radio = &self.cells[ci].radio;
        let next = if busy {
            now + radio.slot
        } else if next_timer != SimTime::NEVER {
            radio.align(next_timer.max(now + radio.slot))
        } else {
            return None;
        };
        self.cells[ci].scheduled = Some(next);
        Some(next)
    }

    /// Where uplink data of UE `u` received on leg `l` by cell `c` leaves the RAN: the
    /// receiving cell's site on the primary leg, the primary cell's site (where the split
    /// bearer's PDCP is) on the secondary leg.
    fn uplink_site(&self, c: CellId, u: UeId, l: usize) -> NodeId {
        if l == 0 {
            self.cells[c.index()].node
        } else {
            self.cells[self.ues[u.index()].legs[0].cell.index()].node
        }
    }

    /// Hands decoded blocks due by `now` to the receiving RLC and PDCP.
    fn deliver_due(&mut self, now: SimTime, c: CellId, out: &mut RanOutput) {
        let ci = c.index();
        while self.cells[ci]
            .deliveries
            .front()
            .is_some_and(|d| d.at <= now)
        {
            let mut dv = self.cells[ci].deliveries.pop_front().expect("checked");
            let site = self.uplink_site(c, dv.ue, dv.leg);
            let ue = &mut self.ues[dv.ue.index()];
            self.sdus.clear();
            for pdu in dv.pdus.drain(..) {
                ue.legs[dv.leg]
                    .rlc_rx(dv.dir)
                    .receive_pdu(now, pdu, &mut self.sdus);
            }
            self.pdu_lists.give(dv.pdus);
            Self::up(
                now,
                ue,
                dv.dir,
                &mut self.sdus,
                &mut self.pdcp_out,
                site,
                out,
            );
        }
    }

    /// In-order RLC SDUs of direction `d` go through PDCP and out of the RAN; uplink
    /// leaves at `site`.
    fn up(
        now: SimTime,
        ue: &mut Ue,
        d: Direction,
        sdus: &mut Vec<Sdu>,
        pdcp_out: &mut Vec<Sdu>,
        site: NodeId,
        out: &mut RanOutput,
    ) {
        let node = match d {
            Direction::Downlink => ue.node,
            Direction::Uplink => site,
        };
        pdcp_out.clear();
        let rx = &mut ue.pdcp_rx[d.index()];
        for s in sdus.drain(..) {
            rx.receive(now, s.count, s, pdcp_out);
        }
        out.delivered
            .extend(pdcp_out.drain(..).map(|s| (s.id, node)));
    }

    /// HARQ feedback, RLC and PDCP timers, channel update and the BSR snapshot of UE
    /// `u`'s leg `l`.
    fn housekeeping(&mut self, now: SimTime, u: UeId, l: usize, out: &mut RanOutput) {
        let ui = u.index();
        let c = self.ues[ui].legs[l].cell;
        let site = self.uplink_site(c, u, l);
        let cell = &self.cells[c.index()];
        let (bsr_delay, slot) = (cell.radio.bsr_delay, cell.radio.slot);
        {
            let ue = &mut self.ues[ui];
            for d in Direction::BOTH {
                let f = ue.legs[l].harq[d.index()].feedback(now);
                ue.stats.harq_failures[d.index()] += f.dropped as u64;
            }
            for side in 0..2 {
                if ue.legs[l].rlc[side].next_timer().is_some_and(|t| t <= now) {
                    self.sdus.clear();
                    ue.legs[l].rlc[side].on_timer(now, &mut self.sdus);
                    // The end at `side` receives the direction it does not transmit.
                    let received = Direction::BOTH[side].reverse();
                    Self::up(
                        now,
                        ue,
                        received,
                        &mut self.sdus,
                        &mut self.pdcp_out,
                        site,
                        out,
                    );
                }
            }
            for d in Direction::BOTH {
                if ue.pdcp_rx[d.index()].next_timer().is_some_and(|t| t <= now) {
                    self.pdcp_out.clear();
                    ue.pdcp_rx[d.index()].on_timer(now, &mut self.pdcp_out);
                    let node = match d {
                        Direction::Downlink => ue.node,
                        Direction::Uplink => site,
                    };
                    out.delivered
                        .extend(self.pdcp_out.drain(..).map(|s| (s.id, node)));
                }
            }
        }
        if now >= self.ues[ui].next_channel {
            self.update_channel(u, now);
        }
        let leg = &mut self.ues[ui].legs[l];
        let b = leg.rlc_tx(Direction::Uplink).buffer_status(now);
        leg.bsr_hist
            .push_back((now, b.new_bytes + b.retx_bytes + b.status_bytes));
        let horizon = now.saturating_sub(bsr_delay + slot);
        while leg.bsr_hist.len() > 1 && leg.bsr_hist[1].0 <= horizon {
            leg.bsr_hist.pop_front();
        }
        // Grants older than every snapshot can no longer be discounted from any report.
        let oldest = leg.bsr_hist.front().map_or(now, |e| e.0);
        while leg.ul_granted.front().is_some_and(|&(t, _)| t < oldest) {
            leg.ul_granted.pop_front();
        }
    }
}
