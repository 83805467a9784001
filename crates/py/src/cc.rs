//! The standalone congestion control of `mmtsim.cc`: a [`Controller`] driven by explicit
//! events from Python, with every argument checked. Each event calls the sequence the TCP
//! sender calls for it (`mmtsim_transport::cc::call_order`), so the order of the hook calls
//! is written once, there; this file only converts arguments and keeps what a sender
//! would otherwise supply (running totals, RTTs, the radio view).

use super::*;

/// The largest time or duration accepted from Python, seconds: the scenario files' limit
/// (10^6 s), far beyond any meaningful use and safe from overflow when two are added.
const MAX_SECS: f64 = mmtsim_scenario::units::Duration::MAX as f64 * 1e-9;

pub(crate) fn secs(t: f64, what: &str) -> PyResult<SimTime> {
    if t.is_finite() && (0.0..=MAX_SECS).contains(&t) {
        Ok(SimTime::from_secs_f64(t))
    } else {
        Err(PyValueError::new_err(format!(
            "{what} = {t}: expected a non-negative number of seconds (at most {MAX_SECS})"
        )))
    }
}

/// A duration that must be at least one nanosecond (an interval, a slot).
pub(crate) fn positive_secs(t: f64, what: &str) -> PyResult<SimTime> {
    match secs(t, what) {
        Ok(d) if d > SimTime::ZERO => Ok(d),
        _ => Err(PyValueError::new_err(format!(
            "{what} = {t}: expected a positive number of seconds (at least 1 ns, at most \
             {MAX_SECS})"
        ))),
    }
}

/// A non-negative integer of at most `max`; `unit` names what it counts in the message.
pub(crate) fn count(v: i64, max: u64, what: &str, unit: &str) -> PyResult<u64> {
    match u64::try_from(v) {
        Ok(u) if u <= max => Ok(u),
        _ => Err(PyValueError::new_err(format!(
            "{what} = {v}: expected a number of {unit} between 0 and {max}"
        ))),
    }
}

pub(crate) fn count_u32(v: i64, what: &str, unit: &str) -> PyResult<u32> {
    count(v, u32::MAX as u64, what, unit).map(|u| u as u32)
}

pub(crate) fn direction_of(d: &str) -> PyResult<Direction> {
    match d {
        "uplink" => Ok(Direction::Uplink),
        "downlink" => Ok(Direction::Downlink),
        other => Err(PyValueError::new_err(format!(
            "direction = {other:?}: expected \"uplink\" or \"downlink\""
        ))),
    }
}

/// A radio view given from Python: fixed grants, SINR and RLC buffer of one direction (the
/// other direction has no grant and an empty buffer). The RAN's own view
/// (`mmtsim_ran::view::UeView`) changes every slot; this one changes when Python replaces it.
struct StaticView {
    dir: Direction,
    grants: Vec<Grant>,
    sinr_db: f64,
    rlc_buffer_bytes: u64,
}

impl LinkView for StaticView {
    fn grants(&self, dir: Direction) -> &[Grant] {
        if dir == self.dir {
            &self.grants
        } else {
            &[]
        }
    }
    fn sinr_db(&self) -> f64 {
        self.sinr_db
    }
    fn rlc_buffer_bytes(&self, dir: Direction) -> u64 {
        if dir == self.dir {
            self.rlc_buffer_bytes
        } else {
            0
        }
    }
}

/// A congestion-control algorithm driven by explicit events (standalone use). Besides the
/// controller it keeps what the TCP sender would otherwise supply: the connection's
/// delivered and lost totals, the minimum RTT, the last smoothed RTT and the radio view.
#[pyclass(unsendable)]
pub(crate) struct CongestionControl {
    c: Controller,
    mss: u32,
    initial_cwnd: u32,
    /// Segments delivered over the connection's life (Linux `tp->delivered`).
    delivered: u64,
    /// Segments marked lost over the connection's life (Linux `tp->lost`).
    lost: u64,
    min_rtt: Option<SimTime>,
    srtt: Option<SimTime>,
    /// Time of the latest event: events must come in time order.
    last_event: SimTime,
    view: Option<StaticView>,
}

impl CongestionControl {
    /// Checks that `now` (seconds) is a valid time not before the previous event.
    fn event_time(&self, now: f64) -> PyResult<SimTime> {
        let t = secs(now, "now")?;
        if t < self.last_event {
            return Err(PyValueError::new_err(format!(
                "now = {now}: earlier than the previous event at {} s (events must come in \
                 time order)",
                self.last_event.secs_f64()
            )));
        }
        Ok(t)
    }
}

#[pymethods]
impl CongestionControl {
    #[new]
    #[pyo3(signature = (name, mss=1400, initial_cwnd=10, hystart=None, seed=None))]
    fn new(
        name: &str,
        mss: i64,
        initial_cwnd: i64,
        hystart: Option<bool>,
        seed: Option<u64>,
    ) -> PyResult<Self> {
        let mut p = CcParams::default_for(name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "unknown congestion control {name:?}; known: {}",
                CcParams::NAMES.join(", ")
            ))
        })?;
        for (what, v, unit) in [
            ("mss", mss, "bytes"),
            ("initial_cwnd", initial_cwnd, "segments"),
        ] {
            if v <= 0 {
                return Err(PyValueError::new_err(format!(
                    "{what} = {v}: expected a positive number of {unit}"
                )));
            }
        }
        let mss = count_u32(mss, "mss", "bytes")?;
        let initial_cwnd = count_u32(initial_cwnd, "initial_cwnd", "segments")?;
        match (&mut p, hystart) {
            (CcParams::Cubic(c), Some(h)) => c.hystart = h.then(Default::default),
            (_, Some(_)) => {
                return Err(PyValueError::new_err(format!(
                    "hystart is a CUBIC option; {name:?} has none"
                )))
            }
            _ => {}
        }
        match (&mut p, seed) {
            (CcParams::Bbr(b), Some(s)) => b.seed = s,
            (_, Some(_)) => {
                return Err(PyValueError::new_err(format!(
                    "seed is a BBR option (its PROBE_BW start phase); {name:?} has none"
                )))
            }
            _ => {}
        }
        Ok(CongestionControl {
            c: Controller::new(&p, initial_cwnd, SimTime::ZERO),
            mss,
            initial_cwnd,
            delivered: 0,
            lost: 0,
            min_rtt: None,
            srtt: None,
            last_event: SimTime::ZERO,
            view: None,
        })
    }

    /// One ACK at `now` (s) delivering `acked` segments, as the sender processes it: the
    /// radio view (if one is set), then `Controller::ack` — `pkts_acked` (if data was
    /// delivered or an RTT measured), then Linux's `tcp_cong_control`: the algorithm's
    /// `cong_control` if `data_outstanding`, and unless it took the window over (BBR),
    /// `cong_avoid` if `una_advanced` (not in fast recovery, where PRR would own the
    /// window; PRR itself is the sender's and has no counterpart here).
    #[pyo3(signature = (
        now, acked=1, rtt=None, cwnd_limited=true, in_flight=0, *, prior_in_flight=None,
        srtt=None, min_rtt=None, delivered=None, lost=None, losses=0, rate_delivered=None,
        rate_interval=None, prior_delivered=None, rate_app_limited=false,
        rate_is_retrans=false, acked_bytes=None, snd_una=0, snd_nxt=0, paced=false,
        next_departure=None, una_advanced=true, data_outstanding=true
    ))]
    #[allow(clippy::too_many_arguments)]
    fn on_ack(
        &mut self,
        py: Python<'_>,
        now: f64,
        acked: i64,
        rtt: Option<f64>,
        cwnd_limited: bool,
        in_flight: i64,
        prior_in_flight: Option<i64>,
        srtt: Option<f64>,
        min_rtt: Option<f64>,
        delivered: Option<i64>,
        lost: Option<i64>,
        losses: i64,
        rate_delivered: Option<i64>,
        rate_interval: Option<f64>,
        prior_delivered: Option<i64>,
        rate_app_limited: bool,
        rate_is_retrans: bool,
        acked_bytes: Option<i64>,
        snd_una: i64,
        snd_nxt: i64,
        paced: bool,
        next_departure: Option<f64>,
        una_advanced: bool,
        data_outstanding: bool,
    ) -> PyResult<()> {
        // Validate everything before changing any state.
        const SEG: &str = "segments";
        let t = self.event_time(now)?;
        let acked = count_u32(acked, "acked", SEG)?;
        let rtt = rtt.map(|r| secs(r, "rtt")).transpose()?;
        let srtt = srtt.map(|r| secs(r, "srtt")).transpose()?;
        let min_rtt = min_rtt.map(|r| secs(r, "min_rtt")).transpose()?;
        let in_flight = count_u32(in_flight, "in_flight", SEG)?;
        let losses = count_u32(losses, "losses", SEG)?;
        let prior_in_flight = match prior_in_flight {
            Some(p) => count_u32(p, "prior_in_flight", SEG)?,
            None => in_flight.saturating_add(acked).saturating_add(losses),
        };
        let max = i64::MAX as u64;
        let delivered_total = match delivered {
            Some(d) => {
                let d = count(d, max, "delivered", SEG)?;
                if d < self.delivered {
                    return Err(PyValueError::new_err(format!(
                        "delivered = {d}: below the {} segments already delivered (it is \
                         the connection's total, this ACK included)",
                        self.delivered
                    )));
                }
                d
            }
            None => self.delivered + acked as u64,
        };
        let lost_total = match lost {
            Some(l) => {
                let l = count(l, max, "lost", SEG)?;
                if l < self.lost {
                    return Err(PyValueError::new_err(format!(
                        "lost = {l}: below the {} segments already marked lost (it is the \
                         connection's total)",
                        self.lost
                    )));
                }
                l
            }
            None => self.lost + losses as u64,
        };
        let rate = match rate_interval {
            None => {
                for (given, what) in [
                    (rate_delivered.is_some(), "rate_delivered"),
                    (prior_delivered.is_some(), "prior_delivered"),
                    (rate_app_limited, "rate_app_limited"),
                    (rate_is_retrans, "rate_is_retrans"),
                ] {
                    if given {
                        return Err(PyValueError::new_err(format!(
                            "{what} describes a delivery-rate sample: give its rate_interval \
                             (seconds) too"
                        )));
                    }
                }
                None
            }
            Some(i) => {
                let interval = positive_secs(i, "rate_interval")?;
                let within_total = |v: i64, what: &str| -> PyResult<u64> {
                    let v = count(v, max, what, SEG)?;
                    if v > delivered_total {
                        return Err(PyValueError::new_err(format!(
                            "{what} = {v}: more than the {delivered_total} segments the \
                             connection has delivered (delivered, this ACK included)"
                        )));
                    }
                    Ok(v)
                };
                let sample_delivered = match (rate_delivered, prior_delivered) {
                    (Some(d), None) => within_total(d, "rate_delivered")?,
                    (None, Some(p)) => delivered_total - within_total(p, "prior_delivered")?,
                    (Some(d), Some(p)) => {
                        let (d, p) = (
                            within_total(d, "rate_delivered")?,
                            within_total(p, "prior_delivered")?,
                        );
                        if d + p != delivered_total {
                            return Err(PyValueError::new_err(format!(
                                "rate_delivered = {d} and prior_delivered = {p} disagree: \
                                 their sum must be delivered = {delivered_total}"
                            )));
                        }
                        d
                    }
                    (None, None) => {
                        return Err(PyValueError::new_err(
                            "rate_interval needs rate_delivered (segments delivered over \
                             the interval) or prior_delivered",
                        ))
                    }
                };
                Some(RateSample {
                    delivered: sample_delivered,
                    interval,
                    app_limited: rate_app_limited,
                    acked_sacked: acked,
                    is_retrans: rate_is_retrans,
                })
            }
        };
        let acked_bytes = match acked_bytes {
            Some(b) => count(b, max, "acked_bytes", "bytes")?,
            None => acked as u64 * self.mss as u64,
        };
        let snd_una = count(snd_una, max, "snd_una", "bytes (a sequence number)")?;
        let snd_nxt = count(snd_nxt, max, "snd_nxt", "bytes (a sequence number)")?;
        if snd_una > snd_nxt {
            return Err(PyValueError::new_err(format!(
                "snd_una = {snd_una} is beyond snd_nxt = {snd_nxt}"
            )));
        }
        // As the sender: pacing that has already released the next segment means now.
        let next_departure = match next_departure {
            Some(d) => secs(d, "next_departure")?.max(t),
            None => t,
        };

        // Commit the running values the defaults come from.
        self.last_event = t;
        self.delivered = delivered_total;
        self.lost = lost_total;
        if let Some(m) = rtt.into_iter().chain(min_rtt).min() {
            self.min_rtt = Some(self.min_rtt.map_or(m, |old| old.min(m)));
        }
        self.srtt = srtt.or(rtt).or(self.srtt);
        let s = AckSample {
            now: t,
            acked,
            acked_bytes,
            rtt,
            min_rtt: self.min_rtt,
            srtt: self.srtt,
            prior_in_flight,
            cwnd_limited,
            snd_una,
            snd_nxt,
            paced: paced || self.c.pacing_rate().is_some(),
            rate,
            mss: self.mss,
            in_flight,
            delivered: delivered_total,
            lost: lost_total,
            losses,
            next_departure,
        };
        let (c, view) = (&mut self.c, self.view.as_ref());
        guarded(py, move || {
            // The run loop hands the sender its radio view just before each ACK.
            if let Some(v) = view {
                c.link_view(v, t);
            }
            // In fast recovery `ack` answers that PRR sets the window: the sender's job,
            // which a standalone window has no counterpart for, so the window stays.
            c.ack(&s, data_outstanding, una_advanced);
        })
    }

    /// Loss detected by duplicate ACKs / SACK: enter fast recovery (ssthresh is cut; the
    /// window stays until `exit_recovery`, as PRR would take it down gradually). `snd_nxt`
    /// is the recovery point (the highest sequence number sent).
    #[pyo3(signature = (now, snd_nxt=0))]
    fn on_loss(&mut self, py: Python<'_>, now: f64, snd_nxt: i64) -> PyResult<()> {
        let t = self.event_time(now)?;
        let high_seq = count(
            snd_nxt,
            i64::MAX as u64,
            "snd_nxt",
            "bytes (a sequence number)",
        )?;
        self.last_event = t;
        let c = &mut self.c;
        guarded(py, move || c.enter_recovery(high_seq))
    }

    /// Fast recovery (or the loss episode after an RTO) ends: cwnd = ssthresh, unless the
    /// algorithm owns the window (BBR restores its own). The sender's end of an episode
    /// without undo (`Controller::end_episode`).
    fn exit_recovery(&mut self, py: Python<'_>, now: f64) -> PyResult<()> {
        let t = self.event_time(now)?;
        self.last_event = t;
        let c = &mut self.c;
        guarded(py, move || c.end_episode(t, false))
    }

    /// The reduction under way (fast recovery or an RTO's loss episode) was spurious, as the
    /// sender learns from timestamps, F-RTO or D-SACKs: Linux's `tcp_undo_cwnd_reduction`
    /// (cwnd from the algorithm's `undo_cwnd`, ssthresh back up to the value saved before
    /// the reduction), then the Open state — after a fast recovery with the
    /// `CA_EVENT_COMPLETE_CWR` that ends it, as `tcp_try_undo_recovery` and
    /// `tcp_end_cwnd_reduction` do: the sender's end of an episode with undo
    /// (`Controller::end_episode`).
    fn undo(&mut self, py: Python<'_>, now: f64) -> PyResult<()> {
        let t = self.event_time(now)?;
        self.last_event = t;
        let c = &mut self.c;
        guarded(py, move || c.end_episode(t, true))
    }

    /// ssthresh an `undo` would restore (Linux `prior_ssthresh`: `tcp_current_ssthresh` just
    /// before the reduction), segments; 0 when nothing would be restored.
    #[getter]
    fn prior_ssthresh(&self) -> u32 {
        self.c.prior_ssthresh()
    }

    /// Retransmission timeout with `in_flight` segments still counted in flight; ssthresh is
    /// reduced once per loss episode, which lasts until `snd_una` reaches the `snd_nxt` of
    /// the RTO that began it.
    #[pyo3(signature = (now, in_flight=0, snd_una=0, snd_nxt=0))]
    fn on_rto(
        &mut self,
        py: Python<'_>,
        now: f64,
        in_flight: i64,
        snd_una: i64,
        snd_nxt: i64,
    ) -> PyResult<()> {
        let t = self.event_time(now)?;
        let in_flight = count_u32(in_flight, "in_flight", "segments")?;
        let seq = "bytes (a sequence number)";
        let snd_una = count(snd_una, i64::MAX as u64, "snd_una", seq)?;
        let snd_nxt = count(snd_nxt, i64::MAX as u64, "snd_nxt", seq)?;
        if snd_una > snd_nxt {
            return Err(PyValueError::new_err(format!(
                "snd_una = {snd_una} is beyond snd_nxt = {snd_nxt}"
            )));
        }
        self.last_event = t;
        let c = &mut self.c;
        guarded(py, move || c.on_rto(t, in_flight, snd_una, snd_nxt))
    }

    /// Transmission starts again after nothing was in flight for `idle` seconds (Linux
    /// `CA_EVENT_TX_START`). With `rto` (s), the window first restarts as Linux's
    /// `tcp_cwnd_restart` does when `idle > rto` (halved per idle RTO, not below
    /// `initial_cwnd`); algorithms that own the window (BBR) are exempt.
    #[pyo3(signature = (now, idle, rto=None))]
    fn on_tx_start(
        &mut self,
        py: Python<'_>,
        now: f64,
        idle: f64,
        rto: Option<f64>,
    ) -> PyResult<()> {
        let t = self.event_time(now)?;
        let idle = secs(idle, "idle")?;
        let rto = rto.map(|r| positive_secs(r, "rto")).transpose()?;
        self.last_event = t;
        let (c, initial_cwnd) = (&mut self.c, self.initial_cwnd);
        // The sender passes its RTO when slow start after idle is on; here `rto` says so.
        guarded(py, move || c.tx_start(t, idle, rto, initial_cwnd))
    }

    /// Sets the radio view the algorithm reads before every following ACK, as the sender
    /// does with its UE's view: `grants` of `direction`, oldest first, as tuples
    /// `(time_s, tbs_bytes, mcs, symbols, slot_s[, share[, duty]])` — `share` is the part of
    /// the slot's data resources the grant holds, (0, 1], default 1; `duty` the direction's
    /// long-run share of slots (1/5 for the uplink of DDDSU), default 1; the SINR (dB) and the RLC
    /// buffer (bytes). Algorithms that are not cross-layer ignore it.
    #[pyo3(signature = (grants, sinr_db, rlc_buffer_bytes=0, direction="uplink"))]
    fn set_link_view(
        &mut self,
        grants: Vec<Bound<'_, PyAny>>,
        sinr_db: f64,
        rlc_buffer_bytes: i64,
        direction: &str,
    ) -> PyResult<()> {
        let dir = direction_of(direction)?;
        if !sinr_db.is_finite() {
            return Err(PyValueError::new_err(format!(
                "sinr_db = {sinr_db}: expected a finite number of dB"
            )));
        }
        let rlc_buffer_bytes = count(
            rlc_buffer_bytes,
            i64::MAX as u64,
            "rlc_buffer_bytes",
            "bytes",
        )?;
        let mut out = Vec::with_capacity(grants.len());
        for (i, item) in grants.iter().enumerate() {
            let (time_s, tbs, mcs, symbols, slot_s, share, duty) = if let Ok(t) =
                item.extract::<(f64, i64, i64, i64, f64, f64, f64)>()
            {
                t
            } else if let Ok((a, b, c, d, e, f)) = item.extract::<(f64, i64, i64, i64, f64, f64)>()
            {
                (a, b, c, d, e, f, 1.0)
            } else {
                let (a, b, c, d, e) =
                    item.extract::<(f64, i64, i64, i64, f64)>().map_err(|_| {
                        PyValueError::new_err(format!(
                            "grants[{i}]: expected a tuple (time_s, tbs_bytes, mcs, \
                                 symbols, slot_s[, share[, duty]])"
                        ))
                    })?;
                (a, b, c, d, e, 1.0, 1.0)
            };
            if !(share > 0.0 && share <= 1.0) {
                return Err(PyValueError::new_err(format!(
                    "grants[{i}].share = {share}: expected a fraction in (0, 1]"
                )));
            }
            if !(duty > 0.0 && duty <= 1.0) {
                return Err(PyValueError::new_err(format!(
                    "grants[{i}].duty = {duty}: expected a fraction in (0, 1] (the direction's \
                     long-run share of slots)"
                )));
            }
            let g = Grant {
                time: secs(time_s, &format!("grants[{i}].time_s"))?,
                tbs_bytes: count_u32(tbs, &format!("grants[{i}].tbs_bytes"), "bytes")?,
                mcs: count(
                    mcs,
                    u8::MAX as u64,
                    &format!("grants[{i}].mcs"),
                    "MCS index",
                )? as u8,
                symbols: count(
                    symbols,
                    u16::MAX as u64,
                    &format!("grants[{i}].symbols"),
                    "OFDM symbols",
                )? as u16,
                slot: positive_secs(slot_s, &format!("grants[{i}].slot_s"))?,
                share,
                duty,
            };
            if let Some(prev) = out.last().map(|p: &Grant| p.time) {
                if g.time < prev {
                    return Err(PyValueError::new_err(format!(
                        "grants[{i}].time_s = {time_s}: earlier than the grant before it \
                         (grants come oldest first)"
                    )));
                }
            }
            out.push(g);
        }
        self.view = Some(StaticView {
            dir,
            grants: out,
            sinr_db,
            rlc_buffer_bytes,
        });
        Ok(())
    }

    /// Removes the radio view: following ACKs carry none.
    fn clear_link_view(&mut self) {
        self.view = None;
    }

    /// Congestion window, segments.
    #[getter]
    fn cwnd(&self) -> u32 {
        self.c.cwnd()
    }
    /// Slow-start threshold, segments (2147483647 = infinite).
    #[getter]
    fn ssthresh(&self) -> u32 {
        self.c.ssthresh()
    }
    /// Congestion window, bytes.
    #[getter]
    fn cwnd_bytes(&self) -> u64 {
        self.c.cwnd() as u64 * self.mss as u64
    }
    /// Slow-start threshold, bytes (None while infinite).
    #[getter]
    fn ssthresh_bytes(&self) -> Option<u64> {
        (self.c.ssthresh() < mmtsim_transport::cc::INFINITE_SSTHRESH)
            .then(|| self.c.ssthresh() as u64 * self.mss as u64)
    }
    /// Pacing rate the algorithm sets itself, bits per second of payload (None if it sets
    /// none: every algorithm but BBR, and BBR before its first ACK).
    #[getter]
    fn pacing_rate_bps(&self) -> Option<u64> {
        self.c.pacing_rate().map(|r| r.as_bps())
    }
    /// True once the algorithm has taken the window over through `cong_control` (BBR).
    #[getter]
    fn owns_window(&self) -> bool {
        self.c.owns_window()
    }
    /// True when the algorithm asks for the data now in flight to be marked
    /// application-limited (BBR in PROBE_RTT): the rate samples of that data should then be
    /// given with `rate_app_limited=True`.
    #[getter]
    fn app_limited_requested(&self) -> bool {
        self.c.request_app_limited()
    }
    /// Segments delivered so far: the connection total `on_ack` passes as `delivered`.
    #[getter]
    fn delivered(&self) -> u64 {
        self.delivered
    }
    /// Segments marked lost so far: the connection total `on_ack` passes as `lost`.
    #[getter]
    fn lost(&self) -> u64 {
        self.lost
    }
    /// "open", "disorder", "cwr", "recovery" or "loss".
    #[getter]
    fn state(&self) -> &'static str {
        match self.c.state() {
            CaState::Open => "open",
            CaState::Disorder => "disorder",
            CaState::Cwr => "cwr",
            CaState::Recovery => "recovery",
            CaState::Loss => "loss",
        }
    }
    /// Algorithm name.
    #[getter]
    fn name(&self) -> &'static str {
        self.c.name()
    }
    /// Algorithm-specific state (e.g. CUBIC's w_max and K, BBR's mode and bandwidth).
    fn metrics(&self) -> Vec<(&'static str, f64)> {
        self.c.metrics()
    }
    fn __repr__(&self) -> String {
        format!(
            "CongestionControl({:?}, cwnd={}, ssthresh={}, state={:?})",
            self.c.name(),
            self.c.cwnd(),
            self.c.ssthresh(),
            self.state()
        )
    }
}

/// Names of the congestion-control algorithms.
#[pyfunction]
pub(crate) fn algorithms() -> Vec<&'static str> {
    CcParams::NAMES.to_vec()
}
