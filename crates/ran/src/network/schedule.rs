//! A cell's scheduler at one slot: HARQ retransmissions first, then new data per resource
//! pool by the cell's policy; transport blocks built from RLC and sent through HARQ with
//! a decoding outcome drawn from the BLER.

use super::{Delivery, Ran};
use crate::config::Interference;
use crate::mac::harq::Tb;
use crate::mac::scheduler::Candidate;
use crate::phy::bler::tb_decoded;
use crate::phy::numerology::{Allocation, Duplex, SlotKind};
use mmtsim_engine::ids::{CellId, UeId};
use mmtsim_engine::SimTime;
use mmtsim_net::linkview::Grant;
use mmtsim_net::Direction;
use rand::Rng;

/// Proportional-fair averaging constant, in slots (ns-3's PF uses a similar EWMA).
const PF_WINDOW_SLOTS: f64 = 100.0;

/// The shared pool of units, used for both directions (dynamic TDD).
const SHARED: usize = 2;

impl Ran {
    /// Bytes the scheduler of UE `u`'s leg `l` believes the leg has for direction `d`.
    fn demand(&self, u: UeId, l: usize, d: Direction, now: SimTime) -> u64 {
        let ue = &self.ues[u.index()].legs[l];
        match d {
            Direction::Downlink => {
                let b = ue.rlc[d.index()].buffer_status(now);
                b.new_bytes + b.retx_bytes + b.status_bytes
            }
            Direction::Uplink => {
                // The report the gNB has: the newest snapshot at least `bsr_delay` old. Its
                // slot's snapshot was taken before that slot's grant, so every grant from
                // the snapshot's slot on is already on its way and is discounted.
                let bsr_delay = self.cells[ue.cell.index()].radio.bsr_delay;
                if now < bsr_delay {
                    return 0;
                }
                let at = now.saturating_sub(bsr_delay);
                let Some(&(t_report, reported)) = ue.bsr_hist.iter().rev().find(|e| e.0 <= at)
                else {
                    return 0;
                };
                let granted: u64 = ue
                    .ul_granted
                    .iter()
                    .filter(|g| g.0 >= t_report)
                    .map(|g| g.1)
                    .sum();
                reported.saturating_sub(granted)
            }
        }
    }

    /// Units cell `c` has this slot: [DL pool, UL pool, shared pool].
    fn pools(&self, c: CellId, now: SimTime) -> [u16; 3] {
        let radio = &self.cells[c.index()].radio;
        let u = radio.num.units_per_slot;
        match &radio.num.duplex {
            Duplex::DynamicTdd => [0, 0, u],
            Duplex::Fdd => [u, u, 0],
            Duplex::Tdd(pattern) => {
                let i = (now.ns() / radio.slot.ns()) as usize % pattern.len().max(1);
                match pattern.get(i) {
                    Some(SlotKind::Uplink) => [0, u, 0],
                    _ => [u, 0, 0],
                }
            }
        }
    }

    pub(super) fn schedule(&mut self, now: SimTime, c: CellId, ues: &[(UeId, usize)]) {
        let mut pools = self.pools(c, now);
        let rotation = (now.ns() / self.cells[c.index()].radio.slot.ns()) as usize;
        let n = ues.len().max(1);
        let pool_of = |d: Direction, pools: &[u16; 3]| {
            if pools[SHARED] > 0 || (pools[0] == 0 && pools[1] == 0) {
                SHARED
            } else {
                d.index()
            }
        };
        // 1. HARQ retransmissions first, rotating which UE goes first.
        for k in 0..ues.len() {
            let (u, l) = ues[(rotation + k) % n];
            for d in Direction::BOTH {
                let p = pool_of(d, &pools);
                let di = d.index();
                while let Some((pid, units)) = self.ues[u.index()].legs[l].harq[di].next_retx() {
                    if units > pools[p] {
                        break;
                    }
                    pools[p] -= units;
                    let tb = self.ues[u.index()].legs[l].harq[di].take_retx(pid);
                    self.ues[u.index()].stats.harq_retx[di] += 1;
                    self.transmit(now, c, u, l, d, pid, tb);
                }
            }
        }
        // 2. New data, per pool.
        for p in 0..3 {
            if pools[p] == 0 {
                continue;
            }
            self.cands.clear();
            self.cand_key.clear();
            let radio = &self.cells[c.index()].radio;
            for &(u, l) in ues {
                for d in Direction::BOTH {
                    if pool_of(d, &pools) != p
                        || self.ues[u.index()].legs[l].harq[d.index()]
                            .free_process()
                            .is_none()
                    {
                        continue;
                    }
                    let bytes = self.demand(u, l, d, now);
                    if bytes == 0 {
                        continue;
                    }
                    let sinr = self.reported_sinr(u, l, d, now);
                    let memo = &mut self.ues[u.index()].legs[l].mcs_memo[d.index()];
                    let mcs = radio.amc.mcs_memo(d == Direction::Downlink, sinr, memo);
                    let Some(mcs) = mcs else { continue };
                    let need = radio
                        .tbs
                        .units_for_bytes(mcs, bytes.min(u32::MAX as u64) as u32)
                        .min(pools[p]);
                    let per_unit = radio.tbs.tb_bytes(mcs, 1).max(1) as f64;
                    self.cands.push(Candidate {
                        need,
                        bytes_per_unit: per_unit,
                        avg_bytes: self.ues[u.index()].legs[l].avg_bytes[d.index()],
                    });
                    self.cand_key.push((u, l, d, mcs));
                }
            }
            let mut alloc = std::mem::take(&mut self.alloc_out);
            self.allocator
                .allocate(radio.scheduler, pools[p], &self.cands, rotation, &mut alloc);
            let keys = std::mem::take(&mut self.cand_key);
            for (i, &(u, l, d, mcs)) in keys.iter().enumerate() {
                let units = alloc[i];
                let served = if units > 0 {
                    self.new_tb(now, c, u, l, d, mcs, units)
                } else {
                    0
                };
                let a = &mut self.ues[u.index()].legs[l].avg_bytes[d.index()];
                *a += (served as f64 - *a) / PF_WINDOW_SLOTS;
            }
            self.cand_key = keys;
            self.alloc_out = alloc;
        }
    }

    /// A first transmission of `units` at `mcs` for UE `u`'s leg `l` in direction `d`;
    /// returns the block size (0 if the transmitter had nothing to put in it).
    #[allow(clippy::too_many_arguments)]
    fn new_tb(
        &mut self,
        now: SimTime,
        c: CellId,
        u: UeId,
        l: usize,
        d: Direction,
        mcs: u8,
        units: u16,
    ) -> u32 {
        let radio = &self.cells[c.index()].radio;
        let num = &radio.num;
        let tbs = radio.tbs.tb_bytes(mcs, units);
        // A TDMA unit is a symbol over the band; an OFDMA unit a resource block over all
        // data symbols.
        let symbols = match num.allocation {
            Allocation::Symbols => units,
            Allocation::ResourceBlocks => num.data_symbols,
        };
        let share = units as f64 / num.units_per_slot as f64;
        let kind = match d {
            Direction::Uplink => SlotKind::Uplink,
            Direction::Downlink => SlotKind::Downlink,
        };
        let duty = num.duplex.share(kind);
        let slot = radio.slot;
        let mut pdus = self.pdu_lists.take();
        let ue = &mut self.ues[u.index()];
        if d == Direction::Uplink {
            ue.legs[l].ul_granted.push_back((now, tbs as u64));
        }
        ue.view.push_grant(
            d,
            Grant {
                time: now,
                tbs_bytes: tbs,
                mcs,
                symbols,
                slot,
                share,
                duty,
            },
        );
        let leg = &mut ue.legs[l];
        leg.rlc_tx(d).tx_opportunity(now, tbs, &mut pdus);
        if pdus.is_empty() {
            self.pdu_lists.give(pdus);
            return 0;
        }
        let Some(pid) = leg.harq[d.index()].free_process() else {
            unreachable!("candidates have a free HARQ process")
        };
        leg.mcs[d.index()] = Some(mcs);
        ue.stats.tbs[d.index()] += 1;
        self.transmit(now, c, u, l, d, pid, Tb::new(pdus, tbs, mcs, units));
        tbs
    }

    /// Sends `tb` (first transmission or retransmission) on HARQ process `pid` of UE
    /// `u`'s leg `l`.
    #[allow(clippy::too_many_arguments)]
    fn transmit(
        &mut self,
        now: SimTime,
        c: CellId,
        u: UeId,
        l: usize,
        d: Direction,
        pid: usize,
        mut tb: Tb,
    ) {
        let di = d.index();
        let sinr = match d {
            Direction::Downlink => self.decode_sinr_dl(u, l, now),
            Direction::Uplink => self.ues[u.index()].legs[l].sinr[di],
        };
        if d == Direction::Downlink && self.interference == Interference::Active {
            // This slot's beam toward the UE, for the interference other cells see next.
            let cell = &mut self.cells[c.index()];
            let share = tb.units as f64 / cell.radio.num.units_per_slot as f64;
            let beam = cell.beams.aim(
                u,
                &cell.radio.gnb_array,
                cell.position,
                self.ues[u.index()].position,
                share,
            );
            cell.activity.record(beam);
        }
        let cell = &mut self.cells[c.index()];
        let radio = &cell.radio;
        let draw = cell.rng.random::<f64>();
        let ue = &mut self.ues[u.index()];
        let decoded = tb_decoded(
            &radio.num,
            &radio.amc,
            tb.mcs,
            tb.tbs_bytes,
            tb.transmit(sinr),
            draw,
            &mut ue.legs[l].tbler[di],
        );
        let (slot, feedback_delay) = (radio.slot, radio.num.harq_feedback_delay);
        let end = now + slot;
        if decoded {
            ue.stats.decoded_bytes[di] += tb.tbs_bytes as u64;
            cell.bytes[di] += tb.tbs_bytes as u64;
            cell.deliveries.push_back(Delivery {
                at: end + slot,
                ue: u,
                leg: l,
                dir: d,
                pdus: std::mem::take(&mut tb.pdus),
            });
        } else {
            ue.stats.tb_errors[di] += 1;
        }
        ue.legs[l].harq[di].sent(pid, tb, decoded, end + feedback_delay);
    }
}
