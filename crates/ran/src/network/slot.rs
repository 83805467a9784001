//! One slot of one cell: deliveries of decoded blocks, per-UE housekeeping (HARQ
//! feedback, RLC and PDCP timers, channel update, buffer-status snapshot), scheduling,
//! and whether the cell must run again.

use super::{Bearer, Ran, RanOutput, Ue};
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
        self.deliver_due(now, c, out);
        let ues = std::mem::take(&mut self.cells[ci].ues);
        for &u in &ues {
            self.housekeeping(now, u, out);
        }
        self.schedule(now, c, &ues);
        for &u in &ues {
            for side in 0..2 {
                self.sdus.clear();
                self.ues[u.index()].bearer.rlc[side].take_dropped(&mut self.sdus);
                out.dropped.extend(self.sdus.iter().map(|s| s.id));
            }
        }
        let mut busy = !self.cells[ci].deliveries.is_empty();
        let mut next_timer = SimTime::NEVER;
        for &u in &ues {
            let ue = &mut self.ues[u.index()];
            let rlc = &ue.bearer.rlc;
            ue.view.rlc_bytes = [rlc[0].tx_buffer_bytes(), rlc[1].tx_buffer_bytes()];
            ue.view.sinr_db = ue.sinr[Direction::Downlink.index()];
            let pending = |r: &Rlc| {
                let b = r.buffer_status(now);
                b.new_bytes + b.retx_bytes + b.status_bytes > 0
            };
            busy |= pending(&rlc[0])
                || pending(&rlc[1])
                || !ue.harq[0].is_idle()
                || !ue.harq[1].is_idle();
            let b = &ue.bearer;
            for t in [
                b.rlc[0].next_timer(),
                b.rlc[1].next_timer(),
                b.pdcp_rx[0].next_timer(),
                b.pdcp_rx[1].next_timer(),
            ]
            .into_iter()
            .flatten()
            {
                next_timer = next_timer.min(t);
            }
        }
        self.cells[ci].ues = ues;
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

    /// Hands decoded blocks due by `now` to the receiving RLC and PDCP.
    fn deliver_due(&mut self, now: SimTime, c: CellId, out: &mut RanOutput) {
        let ci = c.index();
        while self.cells[ci]
            .deliveries
            .front()
            .is_some_and(|d| d.at <= now)
        {
            let dv = self.cells[ci].deliveries.pop_front().expect("checked");
            let ue = &mut self.ues[dv.ue.index()];
            self.sdus.clear();
            for pdu in dv.pdus {
                ue.bearer
                    .rlc_rx(dv.dir)
                    .receive_pdu(now, pdu, &mut self.sdus);
            }
            Self::up(
                now,
                ue,
                dv.dir,
                &mut self.sdus,
                &mut self.pdcp_out,
                self.cells[ci].node,
                out,
            );
        }
    }

    /// In-order RLC SDUs of direction `d` go through PDCP and out of the RAN; uplink
    /// leaves at `site` (the node of the cell that received it).
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
        let rx = &mut ue.bearer.pdcp_rx[d.index()];
        for s in sdus.drain(..) {
            rx.receive(now, s.count, s, pdcp_out);
        }
        out.delivered
            .extend(pdcp_out.drain(..).map(|s| (s.id, node)));
    }

    /// HARQ feedback, RLC and PDCP timers, channel update and the BSR snapshot of UE `u`.
    fn housekeeping(&mut self, now: SimTime, u: UeId, out: &mut RanOutput) {
        let ui = u.index();
        let cell = &self.cells[self.ues[ui].cell.index()];
        let (site, bsr_delay, slot) = (cell.node, cell.radio.bsr_delay, cell.radio.slot);
        {
            let ue = &mut self.ues[ui];
            for d in Direction::BOTH {
                let f = ue.harq[d.index()].feedback(now);
                ue.stats.harq_failures[d.index()] += f.dropped as u64;
            }
            for side in 0..2 {
                if ue.bearer.rlc[side].next_timer().is_some_and(|t| t <= now) {
                    self.sdus.clear();
                    ue.bearer.rlc[side].on_timer(now, &mut self.sdus);
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
                let Bearer { pdcp_rx, .. } = &mut ue.bearer;
                if pdcp_rx[d.index()].next_timer().is_some_and(|t| t <= now) {
                    self.pdcp_out.clear();
                    pdcp_rx[d.index()].on_timer(now, &mut self.pdcp_out);
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
        let ue = &mut self.ues[ui];
        let b = ue.bearer.rlc_tx(Direction::Uplink).buffer_status(now);
        ue.bsr_hist
            .push_back((now, b.new_bytes + b.retx_bytes + b.status_bytes));
        let horizon = now.saturating_sub(bsr_delay + slot);
        while ue.bsr_hist.len() > 1 && ue.bsr_hist[1].0 <= horizon {
            ue.bsr_hist.pop_front();
        }
        // Grants older than every snapshot can no longer be discounted from any report.
        let oldest = ue.bsr_hist.front().map_or(now, |e| e.0);
        while ue.ul_granted.front().is_some_and(|&(t, _)| t < oldest) {
            ue.ul_granted.pop_front();
        }
    }
}
