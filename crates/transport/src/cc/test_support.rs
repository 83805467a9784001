//! Helpers shared by the congestion-control unit tests: a controller with a given window
//! and threshold, a plain ACK, and reading one of an algorithm's metrics.

use super::{AckSample, CcParams, Controller};
use mmtsim_engine::SimTime;

/// A controller for `p` with `cwnd` segments and ssthresh `ssthresh`, at time zero.
pub fn controller(p: CcParams, cwnd: u32, ssthresh: u32) -> Controller {
    let mut c = Controller::new(&p, cwnd, SimTime::ZERO);
    c.w.ssthresh = ssthresh;
    c
}

/// One ACK at time zero delivering `n` segments with a 20 ms RTT sample.
pub fn ack(c: &mut Controller, n: u32) {
    c.on_ack(&AckSample::simple(
        SimTime::ZERO,
        n,
        Some(SimTime::from_ms(20)),
    ));
}

/// The algorithm metric `name` (panics if the algorithm has none of that name).
pub fn metric(c: &Controller, name: &str) -> f64 {
    c.metrics()
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no metric {name}"))
        .1
}
