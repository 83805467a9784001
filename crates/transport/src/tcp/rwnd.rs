//! A receive-window controller for downlink TCP at a UE: the receiver advertises the
//! bandwidth-delay product its radio link offers instead of its free buffer.
//!
//! The downlink counterpart of X-TCP that seed 000 cites: the UE knows the rate its
//! downlink grants give and can measure the path's minimum RTT, so it caps the window it
//! advertises at rwnd = ê_datarate · rtt_min, which holds the sender (whatever its
//! congestion control) to what the radio link carries and keeps the gNB's RLC buffer from
//! filling.
//!
//! - ê_datarate: the mean rate of the downlink grants over the last `window`, each grant
//!   scaled to the slot's data region ([`mmtsim_net::linkview::offered_rate_bps`]), times the TCP-payload share
//!   MSS / (MSS + `header_bytes`) — the same estimate X-TCP makes of its uplink.
//! - rtt_min: the minimum over data segments of now − TSecr (RFC 7323 timestamps; the
//!   sender echoes the TSval of the newest ACK it has seen, so this is the time from an ACK
//!   leaving the receiver to the data it released arriving — Linux's receiver-side
//!   `tcp_rcv_rtt_measure_ts`). The controller therefore needs timestamps; scenario
//!   validation refuses it without them.
//! - The advertised window is min(free buffer, max(rwnd, 2 MSS)). Two segments at least, so
//!   that a receiver with delayed ACKs never waits for its timer. The right edge never
//!   moves left (RFC 9293 §3.8.6): a smaller rwnd takes effect as data arrives.
//! - Until both a grant and an RTT sample exist the receiver offers no more than it already
//!   has (the SYN-ACK's window), so the first data segment — which brings both — sets the
//!   window before the free buffer (64 MiB by default) could be offered.
//!
//! Simplifications: no λ/ε branch (the paper specifies none for the receiver); the view is
//! read on every data segment.

use mmtsim_engine::SimTime;
use mmtsim_net::linkview::{payload_bdp_bytes, Direction, LinkView, OfferedRate};

/// Parameters of the controller.
#[derive(Clone, Debug, PartialEq)]
pub struct RwndParams {
    /// Averaging window of the grant rate.
    pub window: SimTime,
    /// Header bytes per segment between TCP payload and the transport block (X-TCP's 60:
    /// TCP 20 + 12 timestamp option, IP 20, PDCP 3, RLC 3, MAC 2).
    pub header_bytes: u32,
}

impl Default for RwndParams {
    fn default() -> Self {
        RwndParams {
            window: SimTime::from_ms(10),
            header_bytes: 60,
        }
    }
}

/// State of the controller.
#[derive(Clone, Debug)]
pub struct RwndControl {
    p: RwndParams,
    rate: OfferedRate,
    rtt_min_us: Option<u32>,
}

impl RwndControl {
    /// A controller with no estimate yet.
    pub fn new(p: RwndParams) -> Self {
        RwndControl {
            p,
            rate: OfferedRate::default(),
            rtt_min_us: None,
        }
    }

    /// Reads the downlink grants of the UE's view.
    pub fn link_view(&mut self, view: &dyn LinkView, now: SimTime) {
        self.rate
            .update(view, Direction::Downlink, now, self.p.window);
    }

    /// A receiver-side RTT sample from a data segment: `now_ticks` − `tsecr`, µs ticks.
    /// A zero TSecr carries no echo (RFC 7323 §3.2).
    pub fn on_timestamp_echo(&mut self, now_ticks: u32, tsecr: u32) {
        if tsecr == 0 {
            return;
        }
        let rtt = now_ticks.wrapping_sub(tsecr);
        // An echo from the future (wrap or a stale value) is not a sample.
        if rtt >= 1 << 31 {
            return;
        }
        self.rtt_min_us = Some(self.rtt_min_us.map_or(rtt, |m| m.min(rtt)));
    }

    /// Minimum receiver-side RTT so far.
    pub fn rtt_min(&self) -> Option<SimTime> {
        self.rtt_min_us.map(|u| SimTime::from_us(u as u64))
    }

    /// The window to advertise, bytes, for segments of `mss`: max(ê_datarate · payload
    /// share · rtt_min, 2·mss); `None` until a grant and an RTT sample exist.
    pub fn window_bytes(&self, mss: u32) -> Option<u64> {
        let (rate, rtt_us) = (self.rate.rate_bps()?, self.rtt_min_us?);
        let rtt = SimTime::from_us(rtt_us as u64);
        let bytes = payload_bdp_bytes(rate, mss, self.p.header_bytes, rtt);
        Some((bytes as u64).max(2 * mss as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mmtsim_net::linkview::Grant;

    struct View(Vec<Grant>);
    impl LinkView for View {
        fn grants(&self, d: Direction) -> &[Grant] {
            if d == Direction::Downlink {
                &self.0
            } else {
                &[]
            }
        }
        fn sinr_db(&self) -> f64 {
            20.0
        }
        fn rlc_buffer_bytes(&self, _d: Direction) -> u64 {
            0
        }
    }

    #[test]
    fn window_is_grant_rate_times_rtt_min() {
        let mut c = RwndControl::new(RwndParams::default());
        assert_eq!(c.window_bytes(1400), None);
        // Downlink grants of half the data region carrying 6,250 B per 100 µs slot:
        // 6,250·8 / (100 µs · 0.5) = 1 Gbit/s over the whole region.
        let v = View(
            (1..=100)
                .map(|i| Grant {
                    time: SimTime::from_us(100 * i),
                    tbs_bytes: 6_250,
                    mcs: 20,
                    symbols: 11,
                    slot: SimTime::from_us(100),
                    share: 0.5,
                    duty: 1.0,
                })
                .collect(),
        );
        c.link_view(&v, SimTime::from_ms(10));
        assert_eq!(c.window_bytes(1400), None, "no RTT sample yet");
        // Echoes of 30 ms and 20 ms (µs ticks): rtt_min 20 ms.
        c.on_timestamp_echo(1_030_000, 1_000_000);
        c.on_timestamp_echo(2_020_000, 2_000_000);
        c.on_timestamp_echo(3_000_000, 0);
        assert_eq!(c.rtt_min(), Some(SimTime::from_ms(20)));
        // 1e9 · 1400/1460 · 0.020 / 8 = 2,397,260.27 B → 2,397,260.
        assert_eq!(c.window_bytes(1400), Some(2_397_260));
        // A tiny rate still leaves two segments.
        let slow = View(vec![Grant {
            tbs_bytes: 10,
            share: 1.0,
            duty: 1.0,
            ..v.0[0]
        }]);
        let mut c2 = RwndControl::new(RwndParams::default());
        c2.link_view(&slow, SimTime::from_ms(1));
        c2.on_timestamp_echo(20_000, 1);
        assert_eq!(c2.window_bytes(1400), Some(2800));
    }

    #[test]
    fn wrapped_or_future_echoes_are_ignored() {
        let mut c = RwndControl::new(RwndParams::default());
        // The clock wrapped between the ACK and the data: 5 − (2^32 − 10) = 15 µs.
        c.on_timestamp_echo(5, u32::MAX - 9);
        assert_eq!(c.rtt_min(), Some(SimTime::from_us(15)));
        // An echo ahead of the clock is not a sample.
        c.on_timestamp_echo(100, 200);
        assert_eq!(c.rtt_min(), Some(SimTime::from_us(15)));
    }
}
