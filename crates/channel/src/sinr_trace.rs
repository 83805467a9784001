//! Trace-driven channel: a per-UE SINR (or rate) time series read from CSV, replacing the
//! propagation model.
//!
//! # Format
//! ```text
//! # comment lines and blank lines are ignored anywhere
//! time_s,sinr_db          <- header: names the value column (or `time_s,rate_bps`)
//! 0.000,18.5
//! 0.010,17.9
//! 1.250,-3.0
//! ```
//! - The header states what the second column is: `sinr_db` (dB) or `rate_bps` (bit/s, ≥ 0).
//! - Times are seconds ≥ 0, strictly increasing after rounding to whole nanoseconds.
//! - Values are finite numbers. At least one data row.
//! - Fields may be surrounded by spaces; `\r\n` line ends are accepted.
//!
//! Every error names the 1-based line number of the offending line.
//!
//! # Semantics
//! Step-wise constant (sample-and-hold): the value at time t is that of the last row with
//! time ≤ t. Before the first row the first value holds. Without looping the last value holds
//! forever; with [`SinrTrace::with_loop_period`] the trace repeats with the given period
//! (t is taken modulo the period; before the first row's time within a period the previous
//! period's last value holds). This is the usual way measured traces (e.g. Mahimahi-style
//! or ns-3 SINR dumps) are replayed.

use mmtsim_engine::SimTime;

/// What the value column of a trace holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TraceKind {
    /// Achievable rate, bit/s (`rate_bps` column).
    RateBps,
    /// SINR, dB (`sinr_db` column).
    SinrDb,
}

impl TraceKind {
    /// The CSV column name.
    pub fn column(&self) -> &'static str {
        match self {
            TraceKind::RateBps => "rate_bps",
            TraceKind::SinrDb => "sinr_db",
        }
    }
}

/// Largest accepted time, s: u64 nanoseconds end at 1.8·10¹⁰ s; keep a margin.
const MAX_TIME_S: f64 = 1.0e10;

/// A step-wise constant SINR or rate trace.
#[derive(Clone, Debug, PartialEq)]
pub struct SinrTrace {
    /// What the values are.
    kind: TraceKind,
    /// Sample times, strictly increasing, non-empty.
    times: Vec<SimTime>,
    /// Sample values (dB or bit/s), same length as `times`.
    values: Vec<f64>,
    /// Repeat period, if looping (greater than the last sample time).
    loop_period: Option<SimTime>,
}

impl SinrTrace {
    /// Parses a CSV trace (format in the module docs). The error names the line.
    pub fn parse_csv(text: &str) -> Result<SinrTrace, String> {
        let mut kind = None;
        let mut times: Vec<SimTime> = Vec::new();
        let mut values = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let n = i + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            let Some(k) = kind else {
                kind = Some(match fields.as_slice() {
                    ["time_s", "sinr_db"] => TraceKind::SinrDb,
                    ["time_s", "rate_bps"] => TraceKind::RateBps,
                    _ => {
                        return Err(format!(
                            "line {n}: expected the header `time_s,sinr_db` or `time_s,rate_bps`, found `{line}`"
                        ))
                    }
                });
                continue;
            };
            let [t_str, v_str] = fields.as_slice() else {
                return Err(format!(
                    "line {n}: expected two comma-separated fields `time_s,{}`, found `{line}`",
                    k.column()
                ));
            };
            let t: f64 = t_str
                .parse()
                .map_err(|_| format!("line {n}: time `{t_str}` is not a number"))?;
            if !t.is_finite() || !(0.0..=MAX_TIME_S).contains(&t) {
                return Err(format!(
                    "line {n}: time {t_str} s must be a finite number between 0 and {MAX_TIME_S:e} s"
                ));
            }
            let v: f64 = v_str
                .parse()
                .map_err(|_| format!("line {n}: {} `{v_str}` is not a number", k.column()))?;
            if !v.is_finite() {
                return Err(format!("line {n}: {} `{v_str}` must be finite", k.column()));
            }
            if k == TraceKind::RateBps && v < 0.0 {
                return Err(format!("line {n}: rate_bps {v_str} must not be negative"));
            }
            let ts = SimTime::from_secs_f64(t);
            if let Some(&prev) = times.last() {
                if ts <= prev {
                    return Err(format!(
                        "line {n}: time {t_str} s is not after the previous row's {prev}; times must strictly increase"
                    ));
                }
            }
            times.push(ts);
            values.push(v);
        }
        let Some(kind) = kind else {
            return Err(
                "line 1: empty trace: expected the header `time_s,sinr_db` or `time_s,rate_bps`"
                    .into(),
            );
        };
        if times.is_empty() {
            return Err(format!(
                "line {}: the trace has a header but no data rows",
                text.lines().count().max(1)
            ));
        }
        Ok(SinrTrace {
            kind,
            times,
            values,
            loop_period: None,
        })
    }

    /// A trace from samples `(time, value)` with strictly increasing times (non-empty).
    pub fn from_samples(kind: TraceKind, samples: &[(SimTime, f64)]) -> Result<SinrTrace, String> {
        if samples.is_empty() {
            return Err("a trace needs at least one sample".into());
        }
        for (i, w) in samples.windows(2).enumerate() {
            if w[1].0 <= w[0].0 {
                return Err(format!(
                    "sample {}: time {} is not after {}",
                    i + 1,
                    w[1].0,
                    w[0].0
                ));
            }
        }
        if let Some((i, _)) = samples.iter().enumerate().find(|(_, s)| !s.1.is_finite()) {
            return Err(format!("sample {i}: value must be finite"));
        }
        Ok(SinrTrace {
            kind,
            times: samples.iter().map(|s| s.0).collect(),
            values: samples.iter().map(|s| s.1).collect(),
            loop_period: None,
        })
    }

    /// The same trace repeating with `period`, which must exceed the last sample's time.
    pub fn with_loop_period(mut self, period: SimTime) -> Result<SinrTrace, String> {
        let last = *self
            .times
            .last()
            .expect("invariant: a trace is never empty");
        if period <= last {
            return Err(format!(
                "loop period {period} must be longer than the last sample time {last}"
            ));
        }
        self.loop_period = Some(period);
        Ok(self)
    }

    /// What the values are.
    pub fn kind(&self) -> TraceKind {
        self.kind
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Always false: a trace has at least one sample.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// The loop period, if looping.
    pub fn loop_period(&self) -> Option<SimTime> {
        self.loop_period
    }

    /// The trace value (dB or bit/s) in force at `t`.
    pub fn value_at(&self, t: SimTime) -> f64 {
        let t = match self.loop_period {
            Some(p) => SimTime::from_ns(t.ns() % p.ns()),
            None => t,
        };
        let i = self.times.partition_point(|&x| x <= t);
        if i > 0 {
            self.values[i - 1]
        } else if self.loop_period.is_some() {
            // Wrapped around: the previous period's last value still holds.
            *self
                .values
                .last()
                .expect("invariant: a trace is never empty")
        } else {
            self.values[0]
        }
    }

    /// SINR at `t`, dB. Panics if this is a rate trace (a wiring bug: check [`Self::kind`]).
    pub fn sinr_db_at(&self, t: SimTime) -> f64 {
        assert_eq!(
            self.kind,
            TraceKind::SinrDb,
            "sinr_db_at called on a rate_bps trace"
        );
        self.value_at(t)
    }

    /// Rate at `t`, bit/s. Panics if this is a SINR trace.
    pub fn rate_bps_at(&self, t: SimTime) -> f64 {
        assert_eq!(
            self.kind,
            TraceKind::RateBps,
            "rate_bps_at called on a sinr_db trace"
        );
        self.value_at(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> SimTime = SimTime::from_ms;

    #[test]
    fn parses_and_holds_values_stepwise() {
        let t = SinrTrace::parse_csv(
            "# measured\n\ntime_s, sinr_db\r\n0.5,18.5\n1.0 , -3\n# gap\n2.25,12.0\n",
        )
        .unwrap();
        assert_eq!(t.kind(), TraceKind::SinrDb);
        assert_eq!(t.len(), 3);
        assert_eq!(t.sinr_db_at(SimTime::ZERO), 18.5); // before the first row: first value
        assert_eq!(t.sinr_db_at(MS(500)), 18.5);
        assert_eq!(t.sinr_db_at(MS(999)), 18.5);
        assert_eq!(t.sinr_db_at(MS(1000)), -3.0); // a row takes effect at its own time
        assert_eq!(t.sinr_db_at(MS(2249)), -3.0);
        assert_eq!(t.sinr_db_at(MS(2250)), 12.0);
        assert_eq!(t.sinr_db_at(SimTime::from_secs(3600)), 12.0); // last value holds
    }

    #[test]
    fn rate_traces_are_marked_as_such() {
        let t = SinrTrace::parse_csv("time_s,rate_bps\n0,1e9\n0.1,0\n").unwrap();
        assert_eq!(t.kind(), TraceKind::RateBps);
        assert_eq!(t.rate_bps_at(MS(50)), 1e9);
        assert_eq!(t.rate_bps_at(MS(100)), 0.0);
    }

    #[test]
    #[should_panic(expected = "rate_bps trace")]
    fn asking_a_rate_trace_for_sinr_is_a_bug() {
        SinrTrace::parse_csv("time_s,rate_bps\n0,1e9\n")
            .unwrap()
            .sinr_db_at(MS(0));
    }

    #[test]
    fn looping_repeats_with_the_period() {
        // Rows at 0.1 s (5 dB) and 0.3 s (10 dB), period 0.5 s:
        // t = 0.05 → wrapped before the first row → previous period's last value 10;
        // t = 0.6 → 0.1 → 5; t = 0.85 → 0.35 → 10; t = 1.2 → 0.2 → 5.
        let t = SinrTrace::parse_csv("time_s,sinr_db\n0.1,5\n0.3,10\n")
            .unwrap()
            .with_loop_period(MS(500))
            .unwrap();
        assert_eq!(t.sinr_db_at(MS(50)), 10.0);
        assert_eq!(t.sinr_db_at(MS(600)), 5.0);
        assert_eq!(t.sinr_db_at(MS(850)), 10.0);
        assert_eq!(t.sinr_db_at(MS(1200)), 5.0);
        let err = SinrTrace::parse_csv("time_s,sinr_db\n0.1,5\n0.3,10\n")
            .unwrap()
            .with_loop_period(MS(300))
            .unwrap_err();
        assert!(err.contains("loop period"), "{err}");
    }

    #[test]
    fn rejects_bad_lines_naming_the_line() {
        let cases: &[(&str, &str)] = &[
            ("time,sinr\n0,1\n", "line 1: expected the header"),
            ("# c\n\ntime_s,snr_db\n", "line 3: expected the header"),
            (
                "time_s,sinr_db\n0,1\n0.1\n",
                "line 3: expected two comma-separated fields",
            ),
            ("time_s,sinr_db\n0,1,2\n", "line 2: expected two"),
            (
                "time_s,sinr_db\nabc,1\n",
                "line 2: time `abc` is not a number",
            ),
            (
                "time_s,sinr_db\n0,1\n\n1,x\n",
                "line 4: sinr_db `x` is not a number",
            ),
            ("time_s,sinr_db\n-1,1\n", "line 2: time -1 s must be"),
            ("time_s,sinr_db\nNaN,1\n", "line 2: time NaN s must be"),
            (
                "time_s,sinr_db\n0,inf\n",
                "line 2: sinr_db `inf` must be finite",
            ),
            (
                "time_s,sinr_db\n1,1\n1,2\n",
                "line 3: time 1 s is not after",
            ),
            (
                "time_s,sinr_db\n1,1\n0.5,2\n",
                "line 3: time 0.5 s is not after",
            ),
            // Two times equal after rounding to nanoseconds.
            (
                "time_s,sinr_db\n1.0000000001,1\n1.0000000002,2\n",
                "line 3: time",
            ),
            (
                "time_s,rate_bps\n0,-5\n",
                "line 2: rate_bps -5 must not be negative",
            ),
            ("time_s,sinr_db\n# only comments\n", "no data rows"),
            ("", "line 1: empty trace"),
        ];
        for (text, want) in cases {
            let err = SinrTrace::parse_csv(text).unwrap_err();
            assert!(err.contains(want), "{text:?}: got `{err}`, want `{want}`");
        }
    }

    #[test]
    fn from_samples_checks_order() {
        let ok = SinrTrace::from_samples(TraceKind::SinrDb, &[(MS(0), 1.0), (MS(5), 2.0)]).unwrap();
        assert_eq!(ok.sinr_db_at(MS(7)), 2.0);
        assert!(SinrTrace::from_samples(TraceKind::SinrDb, &[(MS(5), 1.0), (MS(5), 2.0)]).is_err());
        assert!(SinrTrace::from_samples(TraceKind::SinrDb, &[]).is_err());
        assert!(SinrTrace::from_samples(TraceKind::SinrDb, &[(MS(0), f64::NAN)]).is_err());
    }
}
