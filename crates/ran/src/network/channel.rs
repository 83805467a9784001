//! The radio channel of each UE: position, LOS state and link gains towards every cell,
//! turned into downlink and uplink SINR at the serving cell.

use super::{Ran, UeSample, NO_SIGNAL_DB};
use mmtsim_channel::budget::sinr_db;
use mmtsim_channel::geometry::line_of_sight;
use mmtsim_engine::ids::UeId;
use mmtsim_engine::SimTime;
use mmtsim_net::Direction;

impl Ran {
    /// Brings UE `u`'s position, LOS state and SINRs up to `now` (idempotent).
    pub fn update_channel(&mut self, u: UeId, now: SimTime) {
        let ue = &mut self.ues[u.index()];
        if now < ue.next_channel && now != SimTime::ZERO {
            return;
        }
        let pos = ue.mobility.position(now);
        let speed = ue.mobility.speed_mps(now);
        ue.position = pos;
        let serving = ue.cell.index();
        let carrier_hz = self.cells[serving].radio.num.carrier_hz;
        self.interf.clear();
        let mut serving_gain = NO_SIGNAL_DB;
        for (g, ch) in ue.chans.iter_mut().enumerate() {
            let cell = &self.cells[g];
            // Only cells on the serving carrier interfere; cells elsewhere in the spectrum
            // are not computed at all.
            let interferer =
                g != serving && self.interference && cell.radio.num.carrier_hz == carrier_hz;
            if g != serving && !interferer {
                continue;
            }
            let gp = cell.position;
            let geo = cell
                .radio
                .los_geometric
                .then(|| line_of_sight(gp, pos, &self.boxes));
            let s = ch.update(now, gp, pos, speed, geo);
            if g == serving {
                serving_gain = s.gain_db;
                ue.los = s.los;
            } else {
                // Another cell's beam points at its own UEs: no array gain towards us.
                self.interf
                    .push(cell.radio.num.gnb_tx_power_dbm + s.gain_db - cell.radio.bf_gain_db);
            }
        }
        let radio = &self.cells[serving].radio;
        let (mut dl, mut ul) = (
            sinr_db(
                radio.num.gnb_tx_power_dbm + serving_gain,
                &self.interf,
                radio.noise_ue_dbm,
            ),
            sinr_db(
                radio.num.ue_tx_power_dbm + serving_gain,
                &[],
                radio.noise_gnb_dbm,
            ),
        );
        if let Some(tr) = &ue.trace {
            dl = tr.sinr_db_at(now);
            ul = dl;
        }
        if ue.outages.active(now) {
            dl = NO_SIGNAL_DB;
            ul = NO_SIGNAL_DB;
        }
        ue.sinr = [dl, ul];
        ue.sinr_hist.push_back((now, dl, ul));
        let horizon = now.saturating_sub(radio.cqi_delay);
        while ue.sinr_hist.len() > 1 && ue.sinr_hist[1].0 <= horizon {
            ue.sinr_hist.pop_front();
        }
        ue.view.sinr_db = dl;
        // Next update on the channel-update grid (and never twice at one instant).
        let step = self.channel_update.ns();
        ue.next_channel = SimTime::from_ns((now.ns() / step + 1) * step);
    }

    /// The state of UE `u` at `now` for the time series (updates its channel first).
    pub fn sample(&mut self, u: UeId, now: SimTime) -> UeSample {
        self.update_channel(u, now);
        let ue = &self.ues[u.index()];
        let rlc = &ue.bearer.rlc;
        UeSample {
            sinr_dl_db: ue.sinr[Direction::Downlink.index()],
            sinr_ul_db: ue.sinr[Direction::Uplink.index()],
            mcs: ue.mcs,
            los: ue.los,
            rlc_bytes: [rlc[0].tx_buffer_bytes(), rlc[1].tx_buffer_bytes()],
            position: ue.position,
            cell: ue.cell,
        }
    }

    /// The SINR the scheduler of UE `u`'s cell knows for direction `d`: the report from
    /// `cqi_delay` ago.
    pub(super) fn reported_sinr(&self, u: UeId, d: Direction, now: SimTime) -> f64 {
        let ue = &self.ues[u.index()];
        let at = now.saturating_sub(self.cells[ue.cell.index()].radio.cqi_delay);
        let pick = |e: &(SimTime, f64, f64)| match d {
            Direction::Downlink => e.1,
            Direction::Uplink => e.2,
        };
        let mut v = ue.sinr_hist.front().map_or(ue.sinr[d.index()], pick);
        for e in &ue.sinr_hist {
            if e.0 > at {
                break;
            }
            v = pick(e);
        }
        v
    }
}
