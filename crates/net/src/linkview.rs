//! The cross-layer link view: what the radio access network tells transport code.
//!
//! The RAN owns one view per UE and updates it every slot; transport code that is
//! cross-layer by design (X-TCP, the receive-window controller, pull-based proxies) reads
//! it through the [`LinkView`] trait, which lives here, below both layers, so that `ran`
//! and `transport` never depend on each other. The view is read-only for transport code
//! and holds only what DESIGN.md names: recent grants (TBS, MCS, symbols, slot duration,
//! time), the current SINR and the RLC buffer occupancy.

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
    /// OFDM symbols allocated.
    pub symbols: u16,
    /// Duration of the slot (subframe) the symbols belong to.
    pub slot: SimTime,
}

/// Direction of a radio transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// gNB → UE.
    Downlink,
    /// UE → gNB.
    Uplink,
}

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

/// The rate the link offers the UE in `dir` while serving it: the mean over the grants in
/// `(now − window, now]` of each grant's TBS·8 / slot duration, bit/s. Slots without a
/// grant do not count (the UE had nothing to send, or another UE was served), so a small
/// window does not starve its own estimate. With no grant in the window, the most recent
/// grant's rate; `None` if there has been no grant at all.
pub fn offered_rate_bps(
    view: &dyn LinkView,
    dir: Direction,
    now: SimTime,
    window: SimTime,
) -> Option<f64> {
    let from = now.saturating_sub(window);
    let rate = |g: &Grant| g.tbs_bytes as f64 * 8.0 / g.slot.secs_f64();
    let (mut sum, mut n) = (0.0, 0u32);
    let mut latest = None;
    for g in view.grants(dir).iter().rev() {
        if g.time > now || g.slot == SimTime::ZERO {
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
        }
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
}
