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

/// Data rate the grants of `dir` in the window `(now − window, now]` carried, bits per
/// second of wall time: Σ TBS·8 / window. Slots with no grant count as zero, so the
/// estimate falls when the scheduler stops serving the UE.
pub fn granted_rate_bps(view: &dyn LinkView, dir: Direction, now: SimTime, window: SimTime) -> f64 {
    if window == SimTime::ZERO {
        return 0.0;
    }
    let from = now.saturating_sub(window);
    let bits: u64 = view
        .grants(dir)
        .iter()
        .filter(|g| g.time > from && g.time <= now)
        .map(|g| g.tbs_bytes as u64 * 8)
        .sum();
    bits as f64 / window.secs_f64()
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

    #[test]
    fn granted_rate_counts_only_the_window() {
        // Ten 100 µs slots each carrying 1250 B = 10 kbit → 100 kbit in 1 ms = 100 Mbit/s.
        let slot = SimTime::from_us(100);
        let g: Vec<Grant> = (1..=20)
            .map(|i| Grant {
                time: SimTime::from_us(100 * i),
                tbs_bytes: 1250,
                mcs: 10,
                symbols: 22,
                slot,
            })
            .collect();
        let v = Fixed(g);
        let r = granted_rate_bps(
            &v,
            Direction::Uplink,
            SimTime::from_us(2000),
            SimTime::from_ms(1),
        );
        assert!((r - 100e6).abs() < 1.0, "{r}");
    }
}
