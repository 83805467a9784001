//! The radio channel of each UE: position, LOS state and link gains towards the cells it
//! needs, turned into downlink and uplink SINR on each of its legs.

use super::{Ran, UeSample, NO_SIGNAL_DB};
use crate::config::Interference;
use mmtsim_channel::budget::{lin_to_db, sinr_db};
use mmtsim_channel::geometry::line_of_sight;
use mmtsim_engine::ids::UeId;
use mmtsim_engine::SimTime;
use mmtsim_net::Direction;

impl Ran {
    /// Brings UE `u`'s position, LOS state and SINRs up to `now` (idempotent).
    ///
    /// The link to a cell is evaluated when the cell serves the UE (on any leg) or, with
    /// interference on, shares a carrier with a cell that does: cells elsewhere in the
    /// spectrum are not computed at all. Each leg's downlink SINR counts the cells on its
    /// own carrier other than its own, as `interference.rs` describes.
    pub fn update_channel(&mut self, u: UeId, now: SimTime) {
        let ue = &mut self.ues[u.index()];
        if now < ue.next_channel && now != SimTime::ZERO {
            return;
        }
        let pos = ue.mobility.position(now);
        let speed = ue.mobility.speed_mps(now);
        ue.position = pos;
        ue.positions.push(now, pos);
        let carrier = |g: usize| self.cells[g].radio.num.carrier_hz;
        self.gains.clear();
        self.gains.resize(self.cells.len(), f64::NAN);
        let mut los = [false; 2];
        let vehicles = self.traffic.boxes_at(now);
        for (g, ch) in ue.chans.iter_mut().enumerate() {
            let leg = ue.legs.iter().position(|l| l.cell.index() == g);
            let needed = leg.is_some()
                || (self.interference != Interference::Off
                    && ue
                        .legs
                        .iter()
                        .any(|l| carrier(l.cell.index()) == carrier(g)));
            if !needed {
                continue;
            }
            let cell = &self.cells[g];
            let gp = cell.position;
            let geo = cell
                .radio
                .los_geometric
                .then(|| line_of_sight(gp, pos, &self.boxes) && line_of_sight(gp, pos, vehicles));
            let s = ch.update(now, gp, pos, speed, geo);
            self.gains[g] = s.gain_db;
            if let Some(l) = leg {
                los[l] = s.los;
            }
        }
        let outage = ue.outages.active(now);
        let legs = self.ues[u.index()].legs.len();
        for (l, &leg_los) in los.iter().enumerate().take(legs) {
            if matches!(
                self.interference,
                Interference::Active | Interference::FullBuffer
            ) {
                self.refresh_interferers(u, l);
            }
            let serving = self.ues[u.index()].legs[l].cell.index();
            let noise_mw = self.cells[serving].radio.noise_ue_mw;
            let noise_and_interference_mw = self.noise_and_interference_mw(u, l, now, noise_mw);
            let ue = &mut self.ues[u.index()];
            let radio = &self.cells[serving].radio;
            let gain = self.gains[serving];
            let signal_dbm = radio.num.gnb_tx_power_dbm + gain;
            // S / (N + Σ I) as `sinr_db` takes it, the sum already in milliwatts.
            let (mut dl, mut ul) = (
                signal_dbm - lin_to_db(noise_and_interference_mw),
                sinr_db(radio.num.ue_tx_power_dbm + gain, &[], radio.noise_gnb_dbm),
            );
            let mut dl_signal_dbm = Some(signal_dbm);
            if let Some(tr) = &ue.trace {
                dl = tr.sinr_db_at(now);
                ul = dl;
                dl_signal_dbm = None;
            }
            if outage {
                dl = NO_SIGNAL_DB;
                ul = NO_SIGNAL_DB;
                dl_signal_dbm = None;
            }
            let leg = &mut ue.legs[l];
            leg.los = leg_los;
            leg.sinr = [dl, ul];
            leg.dl_signal_dbm = dl_signal_dbm;
            leg.sinr_hist.push_back((now, dl, ul));
            let horizon = now.saturating_sub(radio.cqi_delay);
            while leg.sinr_hist.len() > 1 && leg.sinr_hist[1].0 <= horizon {
                leg.sinr_hist.pop_front();
            }
        }
        let ue = &mut self.ues[u.index()];
        ue.view.sinr_db = ue.legs[0].sinr[Direction::Downlink.index()];
        // Next update on the channel-update grid (and never twice at one instant).
        let step = self.channel_update.ns();
        ue.next_channel = SimTime::from_ns((now.ns() / step + 1) * step);
    }

    /// The downlink SINR a block sent to UE `u` on leg `l` in the slot starting at `now`
    /// is decoded at: with `Interference::Active`, the signal and noise of the latest
    /// channel update over the interference of this slot (the other cells' previous
    /// slots, see `interference.rs`); otherwise the SINR of the latest channel update.
    pub(super) fn decode_sinr_dl(&mut self, u: UeId, l: usize, now: SimTime) -> f64 {
        let leg = &self.ues[u.index()].legs[l];
        let Some(signal_dbm) = leg
            .dl_signal_dbm
            .filter(|_| self.interference == Interference::Active)
        else {
            return leg.sinr[Direction::Downlink.index()];
        };
        let noise_mw = self.cells[leg.cell.index()].radio.noise_ue_mw;
        signal_dbm - lin_to_db(self.noise_and_interference_mw(u, l, now, noise_mw))
    }

    /// The state of UE `u` at `now` for the time series (updates its channel first).
    pub fn sample(&mut self, u: UeId, now: SimTime) -> UeSample {
        self.update_channel(u, now);
        let ue = &self.ues[u.index()];
        let leg = &ue.legs[0];
        let rlc = &leg.rlc;
        UeSample {
            sinr_dl_db: leg.sinr[Direction::Downlink.index()],
            sinr_ul_db: leg.sinr[Direction::Uplink.index()],
            mcs: leg.mcs,
            los: leg.los,
            rlc_bytes: [rlc[0].tx_buffer_bytes(), rlc[1].tx_buffer_bytes()],
            position: ue.position,
            cell: leg.cell,
            sinr_dl_secondary_db: ue.legs.get(1).map(|l| l.sinr[Direction::Downlink.index()]),
            secondary: ue.legs.get(1).map(|l| l.cell),
        }
    }

    /// The SINR the scheduler of UE `u`'s leg `l` knows for direction `d`: the report
    /// from `cqi_delay` ago.
    pub(super) fn reported_sinr(&self, u: UeId, l: usize, d: Direction, now: SimTime) -> f64 {
        let leg = &self.ues[u.index()].legs[l];
        let at = now.saturating_sub(self.cells[leg.cell.index()].radio.cqi_delay);
        let pick = |e: &(SimTime, f64, f64)| match d {
            Direction::Downlink => e.1,
            Direction::Uplink => e.2,
        };
        let mut v = leg.sinr_hist.front().map_or(leg.sinr[d.index()], pick);
        for e in &leg.sinr_hist {
            if e.0 > at {
                break;
            }
            v = pick(e);
        }
        v
    }
}
