//! The cross-layer link view: what the radio access network tells transport code.
//!
//! The RAN owns one view per UE and updates it every slot; transport code that is
//! cross-layer by design (X-TCP, the receive-window controller, pull-based proxies) reads
//! it through the [`LinkView`] trait, which lives here, below both layers, so that `ran`
//! and `transport` never depend on each other. The view is read-only for transport code
//! and holds only this: recent grants (TBS, MCS, symbols, slot duration, time), the current
//! SINR and the RLC buffer occupancy. It is kept that small on purpose: this trait is the
//! only place where one layer reads another's state.

use mmtsim_engine::SimTime;

/// One transport block granted to the UE, as the MAC scheduled it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grant {
    /// Start of the slot the grant is for.
    pub time: SimTime,
    /// Transport block size, bytes (after CRC, i.e. MAC payload).
    pub tbs_bytes: u32,
    /// Modulation and coding scheme index.
    pub mcs: u8,
    /// OFDM symbols the transport block occupies.
    pub symbols: u16,
    /// Duration of the slot (subframe) the symbols belong to.
    pub slot: SimTime,
    /// Share of the slot's data resources (data symbols × bandwidth) the grant holds, in
    /// (0, 1]: allocated symbols / data symbols for a TDMA frame, allocated resource blocks /
    /// all resource blocks for OFDMA.
    pub share: f64,
    /// Long-run fraction of slots in which the grant's direction may be scheduled at all, in
    /// (0, 1]: 1 for FDD and dynamic TDD (any slot may go wholly to one direction), the
    /// direction's share of the pattern for fixed TDD (uplink of DDDSU: 1/5).
    pub duty: f64,
}

impl Grant {
    /// The rate this grant's modulation and coding would give the UE over all of the
    /// data resources its direction has in the long run: TBS·8 · duty / (slot · share),
    /// bit/s. Zero for an empty grant.
    ///
    /// Without the duty factor a fixed-TDD uplink would be rated at its rate *during* an
    /// uplink slot: five times what DDDSU's uplink carries, and a window sized from it
    /// overflows the UE's RLC buffer by the same factor.
    pub fn resource_rate_bps(&self) -> f64 {
        let t = self.slot.secs_f64() * self.share;
        if t > 0.0 {
            self.tbs_bytes as f64 * 8.0 * self.duty / t
        } else {
            0.0
        }
    }
}

pub use crate::direction::Direction;

/// Read-only per-UE link state exported by the RAN.
pub trait LinkView {
    /// Grants of the last few slots in `dir`, oldest first (a bounded history; at least
    /// every grant of the last 100 ms is kept).
    fn grants(&self, dir: Direction) -> &[Grant];
    /// Most recent SINR estimate of the UE's serving link, dB.
    fn sinr_db(&self) -> f64;
    /// Bytes waiting in the RLC transmission buffer for `dir` (new data plus
    /// retransmissions): the UE's buffer for uplink, the gNB's for downlink.
    fn rlc_buffer_bytes(&self, dir: Direction) -> u64;
}

/// The rate the link offers the UE in `dir`: the mean over the grants in
/// `(now − window, now]` of each grant's [`Grant::resource_rate_bps`] — its transport block
/// over the time of the resources it occupies, scaled to the slot's whole data region —
/// bit/s. A grant sized to a small buffer therefore gives the same rate as a full one at
/// the same MCS, and slots without a grant do not count, so a small window does not starve
/// its own estimate. With no grant in the window, the most recent grant's rate; `None` if
/// there has been no grant at all.
pub fn offered_rate_bps(
    view: &dyn LinkView,
    dir: Direction,
    now: SimTime,
    window: SimTime,
) -> Option<f64> {
    let from = now.saturating_sub(window);
    let rate = |g: &Grant| g.resource_rate_bps();
    let (mut sum, mut n) = (0.0, 0u32);
    let mut latest = None;
    for g in view.grants(dir).iter().rev() {
        if g.time > now || g.slot == SimTime::ZERO || g.share <= 0.0 {
            continue;
        }
        latest.get_or_insert_with(|| rate(g));
        if g.time <= from {
            break;
        }
        sum += rate(g);
        n += 1;
    }
    if n > 0 {
        Some(sum / n as f64)
    } else {
        latest
    }
}

/// [`offered_rate_bps`] of one direction, kept between calls: recomputed only when the
/// instant or the grant history changed. Transport code reads the view once per ACK or
/// segment, and a transport block delivers a dozen of those at one instant.
#[derive(Clone, Debug, Default)]
pub struct OfferedRate {
    /// (instant, number of grants, newest grant's time) of the last computation.
    key: Option<(SimTime, usize, SimTime)>,
    rate_bps: Option<f64>,
}

impl OfferedRate {
    /// Brings the estimate up to `now` from `view` and returns it (the last known one when
    /// the window holds no grant; `None` before the first grant).
    pub fn update(
        &mut self,
        view: &dyn LinkView,
        dir: Direction,
        now: SimTime,
        window: SimTime,
    ) -> Option<f64> {
        let grants = view.grants(dir);
        let key = (
            now,
            grants.len(),
            grants.last().map_or(SimTime::ZERO, |g| g.time),
        );
        if self.key != Some(key) {
            self.key = Some(key);
            if let Some(r) = offered_rate_bps(view, dir, now, window) {
                self.rate_bps = Some(r);
            }
        }
        self.rate_bps
    }

    /// The current estimate, bit/s.
    pub fn rate_bps(&self) -> Option<f64> {
        self.rate_bps
    }
}

/// TCP payload bytes that `rate_bps` of transport blocks carries in `rtt`: the rate scaled
/// by the payload share MSS / (MSS + `header_bytes`) of a segment's transport-block bytes,
/// times the RTT. The window X-TCP and the receive-window controller set.
pub fn payload_bdp_bytes(rate_bps: f64, mss: u32, header_bytes: u32, rtt: SimTime) -> f64 {
    let share = mss as f64 / (mss + header_bytes) as f64;
    rate_bps * share * rtt.secs_f64() / 8.0
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(Vec<Grant>);
    impl LinkView for Fixed {
        fn grants(&self, _dir: Direction) -> &[Grant] {
            &self.0
        }
        fn sinr_db(&self) -> f64 {
            10.0
        }
        fn rlc_buffer_bytes(&self, _dir: Direction) -> u64 {
            0
        }
    }

    fn grant(time_us: u64, tbs_bytes: u32) -> Grant {
        Grant {
            time: SimTime::from_us(time_us),
            tbs_bytes,
            mcs: 10,
            symbols: 22,
            slot: SimTime::from_us(100),
            share: 1.0,
            duty: 1.0,
        }
    }

    #[test]
    fn a_partial_grant_is_scaled_to_the_whole_data_region() {
        // 4 of 22 data symbols carrying 2,000 B in a 100 µs slot: the MCS gives
        // 2,000·8 / (100 µs · 4/22) = 880 Mbit/s over the whole data region.
        let g = Grant {
            symbols: 4,
            share: 4.0 / 22.0,
            duty: 1.0,
            ..grant(100, 2_000)
        };
        assert!((g.resource_rate_bps() - 880e6).abs() < 1.0);
        // 10 of 50 resource blocks over all data symbols of a 1 ms TTI: 5,000·8 / (1 ms · 0.2)
        // = 200 Mbit/s.
        let g = Grant {
            symbols: 12,
            share: 10.0 / 50.0,
            duty: 1.0,
            slot: SimTime::from_ms(1),
            ..grant(100, 5_000)
        };
        assert!((g.resource_rate_bps() - 200e6).abs() < 1e-3);
        // An empty share carries no rate and is skipped by the estimate.
        let g0 = Grant {
            share: 0.0,
            duty: 1.0,
            ..grant(100, 5_000)
        };
        assert_eq!(g0.resource_rate_bps(), 0.0);
        assert!(offered_rate_bps(
            &Fixed(vec![g0]),
            Direction::Uplink,
            SimTime::from_ms(1),
            SimTime::from_ms(10)
        )
        .is_none());
    }

    #[test]
    fn offered_rate_averages_the_grants_in_the_window() {
        // 12,500 B per 100 µs slot until 40 ms (1 Gbit/s), then 6,250 B (500 Mbit/s) every
        // other slot from 40 to 50 ms. At 50 ms the 10 ms window sees only the latter: the
        // skipped slots do not count, so 500 Mbit/s.
        let mut g: Vec<Grant> = (1..=400).map(|i| grant(100 * i, 12_500)).collect();
        g.extend((201..=250).map(|i| grant(200 * i, 6_250)));
        let v = Fixed(g);
        let r = offered_rate_bps(
            &v,
            Direction::Uplink,
            SimTime::from_ms(50),
            SimTime::from_ms(10),
        )
        .unwrap();
        assert!((r - 500e6).abs() < 1.0, "{r}");
        // A 20 ms window at 50 ms: 100 grants at 1 Gbit/s (30–40 ms) and 50 at 500 Mbit/s
        // → (100·1e9 + 50·5e8)/150 = 833.33 Mbit/s.
        let r = offered_rate_bps(
            &v,
            Direction::Uplink,
            SimTime::from_ms(50),
            SimTime::from_ms(20),
        )
        .unwrap();
        assert!((r - 2.5e9 / 3.0).abs() < 1.0, "{r}");
        // No grant in the window → the most recent grant's rate.
        let r = offered_rate_bps(
            &v,
            Direction::Uplink,
            SimTime::from_ms(70),
            SimTime::from_ms(10),
        )
        .unwrap();
        assert!((r - 500e6).abs() < 1.0, "{r}");
        // No grant at all → no estimate.
        assert!(offered_rate_bps(
            &Fixed(vec![]),
            Direction::Uplink,
            SimTime::from_ms(70),
            SimTime::from_ms(10)
        )
        .is_none());
    }

    #[test]
    fn the_kept_estimate_follows_new_grants_and_new_instants() {
        // 12,500 B per 100 µs slot up to 10 ms: 1 Gbit/s.
        let mut v = Fixed((1..=100).map(|i| grant(100 * i, 12_500)).collect());
        let mut r = OfferedRate::default();
        let w = SimTime::from_ms(10);
        let now = SimTime::from_ms(10);
        assert!((r.update(&v, Direction::Uplink, now, w).unwrap() - 1e9).abs() < 1.0);
        // A new grant at the same instant (a slot handled between two ACKs) is taken in:
        // 100 grants at 1 Gbit/s and one at 0.5 Gbit/s in (0, 10 ms] → (100e9 + 5e8)/101.
        v.0.push(grant(10_000, 6_250));
        let got = r.update(&v, Direction::Uplink, now, w).unwrap();
        assert!((got - (100e9 + 5e8) / 101.0).abs() < 1.0, "{got}");
        // Later, with no grant in the window: the most recent grant's rate.
        let got = r
            .update(&v, Direction::Uplink, SimTime::from_ms(30), w)
            .unwrap();
        assert!((got - 5e8).abs() < 1.0, "{got}");
        assert_eq!(r.rate_bps(), Some(got));
    }

    #[test]
    fn payload_bdp_by_hand() {
        // 1 Gbit/s of transport blocks, 1400 B of payload per 1460 B, 20 ms:
        // 1e9 · 1400/1460 · 0.02 / 8 = 2,397,260.27 B.
        let b = payload_bdp_bytes(1e9, 1400, 60, SimTime::from_ms(20));
        assert!((b - 2_397_260.27).abs() < 0.01, "{b}");
    }
}
