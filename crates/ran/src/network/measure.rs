//! What a UE measures of every cell for mobility [TS38331 §5.5.3]: RSRP and downlink
//! SINR, at the UE's position now, whether or not the cell serves it.
//!
//! - RSRP, dBm: the cell's transmit power plus the link gain (beamforming gain, path
//!   loss, shadowing, blockage, fading) [TS38215 §5.1.1]. **Simplification:** this is the
//!   total received power of the carrier, not normalised per resource element (RSRP
//!   proper is lower by 10·log10 of the resource elements; every cell of a preset has the
//!   same number, so comparisons on one carrier are unchanged).
//! - SINR, dB: that power over the UE's noise in the cell's bandwidth plus, unless
//!   `interference` is off, every other cell on the same carrier at full power with no
//!   array gain at either end (the `full-buffer-omni` rule of `interference.rs`).
//!   **Simplification:** under the beam-aware modes (`full-buffer`, `active`) the
//!   measured SINR still uses this rule, so it is not the SINR the data of a serving link
//!   sees; RSRP, which A3 compares, has no interference term.
//! - A forced outage of the UE (`outages`) gives no signal from any cell; buildings,
//!   obstacles and vehicles block LOS as on the data path.
//!
//! The measurement brings each link's channel state up to `now` ([`LinkChannel::update`]
//! is idempotent at one instant), so it shares the links' processes (LOS, shadowing,
//! fading, blockage) with the data path.
//!
//! [`LinkChannel::update`]: mmtsim_channel::link::LinkChannel::update

use super::{Ran, NO_SIGNAL_DB};
use crate::config::Interference;
use mmtsim_channel::budget::sinr_db;
use mmtsim_channel::geometry::line_of_sight;
use mmtsim_engine::ids::UeId;
use mmtsim_engine::SimTime;

/// One cell as measured by a UE, unfiltered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// Received power, dBm (see the module doc).
    pub rsrp_dbm: f64,
    /// Downlink SINR, dB.
    pub sinr_db: f64,
    /// Line of sight to the cell's antenna.
    pub los: bool,
}

impl Ran {
    /// Measures every cell at UE `u` at `now` into `out` (indexed by cell).
    pub(super) fn measure_cells(&mut self, u: UeId, now: SimTime, out: &mut Vec<Measured>) {
        out.clear();
        let ue = &mut self.ues[u.index()];
        let pos = ue.mobility.position(now);
        let speed = ue.mobility.speed_mps(now);
        // Kept between measurements: a measurement instant allocates nothing.
        let (mut rx, mut los, mut others) = std::mem::take(&mut self.measure_scratch);
        rx.clear();
        los.clear();
        let vehicles = self.traffic.boxes_at(now);
        for (g, ch) in ue.chans.iter_mut().enumerate() {
            let cell = &self.cells[g];
            let geo = cell.radio.los_geometric.then(|| {
                line_of_sight(cell.position, pos, &self.boxes)
                    && line_of_sight(cell.position, pos, vehicles)
            });
            let s = ch.update(now, cell.position, pos, speed, geo);
            rx.push(cell.radio.num.gnb_tx_power_dbm + s.gain_db);
            los.push(s.los);
        }
        let outage = ue.outages.active(now);
        for (g, &p) in rx.iter().enumerate() {
            let radio = &self.cells[g].radio;
            if outage {
                out.push(Measured {
                    rsrp_dbm: NO_SIGNAL_DB,
                    sinr_db: NO_SIGNAL_DB,
                    los: los[g],
                });
                continue;
            }
            others.clear();
            if self.interference != Interference::Off {
                let carrier = radio.num.carrier_hz;
                for (h, &q) in rx.iter().enumerate() {
                    let r = &self.cells[h].radio;
                    if h != g && r.num.carrier_hz == carrier {
                        // Another cell's beam points at its own UEs: no array gain here.
                        others.push(q - r.bf_gain_db);
                    }
                }
            }
            out.push(Measured {
                rsrp_dbm: p,
                sinr_db: sinr_db(p, &others, radio.noise_ue_dbm),
                los: los[g],
            });
        }
        self.measure_scratch = (rx, los, others);
    }
}
