//! Trace-driven link capacity: a bottleneck whose rate changes over time.
//!
//! A [`RateTrace`] is an immutable capacity schedule; a [`TraceServer`] serves packets
//! FIFO over it and tells when each one has been fully carried. The queue itself lives
//! elsewhere: its owner calls [`TraceServer::serve`] when a packet reaches the head of
//! the queue, with `start = max(arrival, previous finish)`.
//!
//! # Formats
//!
//! **CSV (piecewise-constant rate).** After optional blank lines and `#` comments, a
//! header names exactly two columns, `time_s` and one of `rate_bps`, `rate_kbps`,
//! `rate_mbps` or `rate_gbps` (in either order). Each row `t_i, r_i` says that rate `r_i`
//! holds on `[t_i, t_{i+1})`; the last rate holds forever, or until the period ends if
//! the trace was made periodic with [`RateTrace::with_period`]. The first row is at time
//! 0, times strictly increase, rates are finite and non-negative, and a rate of 0 is an
//! outage. Blank lines and lines starting with `#` are ignored anywhere; any other
//! malformed line is rejected with a [`TraceError`] naming the line.
//!
//! **Mahimahi (delivery opportunities).** The packet-delivery trace format of Mahimahi
//! (Netravali et al., "Mahimahi: Accurate Record-and-Replay for HTTP", USENIX ATC 2015):
//! one integer millisecond timestamp per line, each a chance to deliver one packet's
//! worth of bytes. Timestamps never decrease; a repeated timestamp is several
//! opportunities in the same millisecond. As in Mahimahi's link emulator, the trace
//! loops: after its last line it starts again with its base time advanced by the last
//! timestamp, so the period is the last timestamp, which must be positive. Opportunity
//! `i` of cycle `k` therefore lies at `k * last + t_i`.
//!
//! # Service semantics
//!
//! Piecewise traces serve a packet as a fluid: it finishes at the earliest instant by
//! which the integral of the rate since its start reaches its size in bits, rounded up
//! to the next nanosecond. All capacity arithmetic is done in integer units of
//! `rate_bps * ns` (10^-9 bit) in `u128`, so exact inputs give exact results.
//!
//! Mahimahi traces follow Mahimahi's link queue: each opportunity carries up to 1500
//! bytes, drawn from packets in FIFO order. A packet uses the unused opportunities at or
//! after its start, as many as its size needs, and finishes at the opportunity that
//! carries its last byte. Bytes an opportunity has left over after a packet finishes can
//! carry the next packet only if that packet was already waiting, which here means it
//! starts at exactly that opportunity's time; otherwise they are wasted, because the
//! link had nothing to send when the opportunity came.
//!
//! # Simplifications
//!
//! - CSV times are rounded to the nearest nanosecond and rates to the nearest bit/s.
//!   Numbers are parsed as exact decimals (no binary floating point), with at most 36
//!   significant digits.
//! - The fluid model lets a packet's bits flow at whatever rate is in force; there is no
//!   per-packet framing, and a packet may straddle rate changes and outages.
//! - Rounding a finish up to the next nanosecond wastes the sub-nanosecond remainder of
//!   capacity between the exact finish and the rounded one (less than one nanosecond's
//!   worth per packet).
//! - Capacity not used while the link is idle is lost; the link does not bank credit.
//! - A Mahimahi opportunity carries 1500 bytes, the IP MTU. Mahimahi's own link queue
//!   uses 1504 (its maximum TUN payload, 4 bytes more than the MTU); the TUN device is
//!   not modelled here, so one opportunity per millisecond is exactly 12 Mbit/s.
//! - Mahimahi's millisecond timestamps are taken as exact instants; Mahimahi's own event
//!   loop has millisecond granularity and OS scheduling jitter, which are not modelled.
//! - A zero-byte packet finishes at its start and uses no capacity.
//! - Exports ([`RateTrace::to_csv`], [`RateTrace::to_mahimahi`]) write every row or
//!   opportunity up to `until`, so `until` must be a finite horizon. A CSV export does
//!   not repeat: its last row holds forever, as in any CSV trace.

use std::fmt::{self, Write as _};

use mmtsim_engine::{Rate, SimTime};

mod parse;
mod serve;
#[cfg(test)]
mod tests;

use parse::*;
pub use serve::TraceServer;

const NS_PER_S: u64 = 1_000_000_000;
const NS_PER_MS: u64 = 1_000_000;
/// Capacity is integrated in `rate_bps * ns`, i.e. in units of 10^-9 bit, which keeps
/// every product of an integer rate and an integer duration exact.
const NBITS_PER_BYTE: u128 = 8 * NS_PER_S as u128;
/// Bytes one Mahimahi delivery opportunity carries.
const OPPORTUNITY_BYTES: u64 = 1500;
/// A CSV export of a Mahimahi trace uses 1 ms bins; one opportunity in a bin is this rate.
const OPPORTUNITY_PER_MS_BPS: u64 = OPPORTUNITY_BYTES * 8 * 1_000;

/// Recognised rate columns and the power of ten that turns their unit into bit/s.
const RATE_COLUMNS: [(&str, i64); 4] = [
    ("rate_bps", 0),
    ("rate_kbps", 3),
    ("rate_mbps", 6),
    ("rate_gbps", 9),
];

/// A problem found while reading or building a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceError {
    /// 1-based line of the input the problem is on, if it is on one line.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl TraceError {
    fn at(line: usize, message: impl Into<String>) -> Self {
        TraceError {
            line: Some(line),
            message: message.into(),
        }
    }

    fn whole(message: impl Into<String>) -> Self {
        TraceError {
            line: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for TraceError {}

/// An immutable link-capacity schedule: piecewise-constant rates (from CSV or
/// [`RateTrace::constant`]) or Mahimahi delivery opportunities.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateTrace {
    schedule: Schedule,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Schedule {
    Piecewise(Piecewise),
    Mahimahi(Mahimahi),
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Piecewise {
    /// Segment `i` starts at `starts_ns[i]` (within a period); `starts_ns[0] == 0`.
    starts_ns: Vec<u64>,
    rates_bps: Vec<u64>,
    /// Capacity from the start of a period to the start of each segment, precomputed so
    /// that `capacity_bytes` needs one binary search rather than a walk.
    prefix_nbits: Vec<u128>,
    period: Option<Period>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Period {
    len_ns: u64,
    cycle_nbits: u128,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Mahimahi {
    /// Opportunity times within one cycle, non-decreasing; the last one is the period.
    opps_ns: Vec<u64>,
}

impl Mahimahi {
    fn period_ns(&self) -> u64 {
        *self
            .opps_ns
            .last()
            .expect("a Mahimahi trace has opportunities")
    }

    fn time_ns(&self, cycle: u64, idx: usize) -> u128 {
        cycle as u128 * self.period_ns() as u128 + self.opps_ns[idx] as u128
    }

    /// Opportunities strictly before `x_ns`.
    fn count_before(&self, x_ns: u64) -> u128 {
        let period = self.period_ns();
        let n = self.opps_ns.len() as u128;
        // Opportunities of one cycle that lie strictly before `offset` into it.
        let in_cycle = |offset: u64| self.opps_ns.partition_point(|&o| o < offset) as u128;
        let (q, r) = (x_ns / period, x_ns % period);
        if q == 0 {
            return in_cycle(r);
        }
        // Cycles overlap at their boundaries (the last opportunity of cycle q-1 sits at
        // q * period, where cycle q starts), so cycle q-1 is counted on its own.
        let previous = if r > 0 { n } else { in_cycle(period) };
        (q as u128 - 1) * n + previous + in_cycle(r)
    }

    /// Every opportunity in time order, looping forever; yields `(cycle, time_ns)`.
    fn opportunities(&self) -> impl Iterator<Item = (u64, u128)> + '_ {
        (0u64..).flat_map(move |cycle| {
            (0..self.opps_ns.len()).map(move |idx| (cycle, self.time_ns(cycle, idx)))
        })
    }
}

impl Piecewise {
    fn from_rows(starts_ns: Vec<u64>, rates_bps: Vec<u64>) -> Self {
        let mut prefix_nbits = Vec::with_capacity(starts_ns.len());
        let mut acc: u128 = 0;
        for i in 0..starts_ns.len() {
            prefix_nbits.push(acc);
            if let Some(&next) = starts_ns.get(i + 1) {
                acc = acc.saturating_add(rates_bps[i] as u128 * (next - starts_ns[i]) as u128);
            }
        }
        Piecewise {
            starts_ns,
            rates_bps,
            prefix_nbits,
            period: None,
        }
    }

    fn last(&self) -> usize {
        self.starts_ns.len() - 1
    }

    /// End of segment `seg` within its period; `None` if it lasts forever.
    fn seg_end_ns(&self, seg: usize) -> Option<u64> {
        match self.starts_ns.get(seg + 1) {
            Some(&next) => Some(next),
            None => self.period.map(|p| p.len_ns),
        }
    }

    fn split(&self, x_ns: u64) -> (u64, u64) {
        match self.period {
            Some(p) => (x_ns / p.len_ns, x_ns % p.len_ns),
            None => (0, x_ns),
        }
    }

    /// Capacity over `[0, x_ns)`.
    fn cum_nbits(&self, x_ns: u64) -> u128 {
        let (cycle, offset) = self.split(x_ns);
        let seg = self.starts_ns.partition_point(|&s| s <= offset) - 1;
        let within = self.prefix_nbits[seg]
            .saturating_add(self.rates_bps[seg] as u128 * (offset - self.starts_ns[seg]) as u128);
        let cycle_nbits = self.period.map_or(0, |p| p.cycle_nbits);
        (cycle as u128)
            .saturating_mul(cycle_nbits)
            .saturating_add(within)
    }

    /// Every segment in time order, looping over periods; yields
    /// `(start_ns, end_ns or None if unbounded, rate_bps)`.
    fn segments(&self) -> impl Iterator<Item = (u128, Option<u128>, u64)> + '_ {
        let cycles = if self.period.is_some() { u64::MAX } else { 1 };
        let len_ns = self.period.map_or(0, |p| p.len_ns as u128);
        (0..cycles).flat_map(move |cycle| {
            let base = cycle as u128 * len_ns;
            (0..self.starts_ns.len()).map(move |seg| {
                (
                    base + self.starts_ns[seg] as u128,
                    self.seg_end_ns(seg).map(|e| base + e as u128),
                    self.rates_bps[seg],
                )
            })
        })
    }
}

impl RateTrace {
    /// A link of constant capacity `rate` forever.
    pub fn constant(rate: Rate) -> Self {
        RateTrace {
            schedule: Schedule::Piecewise(Piecewise::from_rows(vec![0], vec![rate.as_bps()])),
        }
    }

    /// Parses a piecewise-constant CSV trace (format in the module docs).
    pub fn from_csv(text: &str) -> Result<Self, TraceError> {
        let mut columns: Option<(usize, i64)> = None;
        let mut starts_ns: Vec<u64> = Vec::new();
        let mut rates_bps: Vec<u64> = Vec::new();
        for (idx, raw) in text.lines().enumerate() {
            let line_no = idx + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            let Some((time_col, rate_pow10)) = columns else {
                columns = Some(parse_header(&fields, line_no)?);
                continue;
            };
            if fields.len() != 2 {
                return Err(TraceError::at(
                    line_no,
                    format!("expected 2 fields, found {}: `{line}`", fields.len()),
                ));
            }
            let time_text = fields[time_col];
            let rate_text = fields[1 - time_col];
            let t_ns = parse_scaled(time_text, 9)
                .map_err(|e| TraceError::at(line_no, e.describe("time_s", time_text)))?;
            let rate_bps = parse_scaled(rate_text, rate_pow10)
                .map_err(|e| TraceError::at(line_no, e.describe("rate", rate_text)))?;
            match starts_ns.last() {
                None if t_ns != 0 => {
                    return Err(TraceError::at(
                        line_no,
                        format!("the first row must be at time 0, found `{time_text}`"),
                    ));
                }
                Some(&prev) if t_ns <= prev => {
                    return Err(TraceError::at(
                        line_no,
                        format!(
                            "times must strictly increase: `{time_text}` s is not after {} s",
                            fmt_secs(prev)
                        ),
                    ));
                }
                _ => {}
            }
            starts_ns.push(t_ns);
            rates_bps.push(rate_bps);
        }
        if columns.is_none() {
            return Err(TraceError::whole(
                "empty CSV trace: no header line; expected a header `time_s,rate_<unit>` \
                 (unit bps, kbps, mbps or gbps) and one row per rate change",
            ));
        }
        if starts_ns.is_empty() {
            return Err(TraceError::whole("CSV trace has a header but no data rows"));
        }
        Ok(RateTrace {
            schedule: Schedule::Piecewise(Piecewise::from_rows(starts_ns, rates_bps)),
        })
    }

    /// Parses a Mahimahi delivery-opportunity trace (format in the module docs).
    /// Blank lines are skipped.
    pub fn from_mahimahi(text: &str) -> Result<Self, TraceError> {
        let mut opps_ns: Vec<u64> = Vec::new();
        let mut last_line = 0;
        for (idx, raw) in text.lines().enumerate() {
            let line_no = idx + 1;
            let line = raw.trim();
            if line.is_empty() {
                continue;
            }
            if !line.bytes().all(|b| b.is_ascii_digit()) {
                return Err(TraceError::at(
                    line_no,
                    format!("`{line}` is not a non-negative integer millisecond timestamp"),
                ));
            }
            let ns = line
                .parse::<u64>()
                .ok()
                .and_then(|ms| ms.checked_mul(NS_PER_MS))
                .ok_or_else(|| {
                    TraceError::at(line_no, format!("timestamp `{line}` ms is too large"))
                })?;
            if let Some(&prev) = opps_ns.last() {
                if ns < prev {
                    return Err(TraceError::at(
                        line_no,
                        format!(
                            "timestamps must not decrease: {line} ms is before {} ms",
                            prev / NS_PER_MS
                        ),
                    ));
                }
            }
            opps_ns.push(ns);
            last_line = line_no;
        }
        match opps_ns.last() {
            None => Err(TraceError::whole("empty Mahimahi trace")),
            Some(0) => Err(TraceError::at(
                last_line,
                "the last timestamp sets the period and must be positive",
            )),
            Some(_) => Ok(RateTrace {
                schedule: Schedule::Mahimahi(Mahimahi { opps_ns }),
            }),
        }
    }

    /// Makes a piecewise trace repeat every `period`: the last row's rate then holds
    /// only until `period`, and the schedule starts again. The period must be later than
    /// the last row; calling this again replaces the period. Mahimahi traces already
    /// repeat (with the period set by their last timestamp) and are rejected.
    pub fn with_period(self, period: SimTime) -> Result<Self, TraceError> {
        let mut pw =
            match self.schedule {
                Schedule::Piecewise(pw) => pw,
                Schedule::Mahimahi(_) => return Err(TraceError::whole(
                    "a Mahimahi trace already repeats with the period set by its last timestamp",
                )),
            };
        let last = pw.last();
        let last_start_ns = pw.starts_ns[last];
        if period.ns() <= last_start_ns {
            return Err(TraceError::whole(format!(
                "period {} s must be later than the last row at {} s",
                fmt_secs(period.ns()),
                fmt_secs(last_start_ns)
            )));
        }
        let cycle_nbits = pw.prefix_nbits[last]
            .saturating_add(pw.rates_bps[last] as u128 * (period.ns() - last_start_ns) as u128);
        pw.period = Some(Period {
            len_ns: period.ns(),
            cycle_nbits,
        });
        Ok(RateTrace {
            schedule: Schedule::Piecewise(pw),
        })
    }

    /// Writes the schedule on `[0, until)` as CSV with header `time_s,rate_bps`, one row
    /// per rate change (equal consecutive rates merged; periodic traces unrolled). A
    /// Mahimahi trace becomes 1 ms bins, each at `opportunities * 1500 * 8 bit / 1 ms`.
    /// There is always a row at time 0. The output is linear in the number of rows
    /// before `until`, so `until` must be finite.
    pub fn to_csv(&self, until: SimTime) -> String {
        let mut out = String::from("time_s,rate_bps\n");
        let mut last_rate: Option<u64> = None;
        let mut push = |out: &mut String, t_ns: u128, rate_bps: u64| {
            if last_rate != Some(rate_bps) {
                let _ = writeln!(out, "{},{rate_bps}", fmt_secs(t_ns as u64));
                last_rate = Some(rate_bps);
            }
        };
        // Row 0 is always written, so an empty horizon still gives a valid trace.
        let until_ns = until.ns().max(1) as u128;
        match &self.schedule {
            Schedule::Piecewise(pw) => {
                if let Some(rate) = self.is_constant() {
                    push(&mut out, 0, rate.as_bps());
                    return out;
                }
                for (start_ns, _, rate_bps) in pw.segments() {
                    if start_ns >= until_ns {
                        break;
                    }
                    push(&mut out, start_ns, rate_bps);
                }
            }
            Schedule::Mahimahi(mm) => {
                let ms = NS_PER_MS as u128;
                let mut next_bin: u128 = 0;
                let mut opps = mm.opportunities().map(|(_, t)| t).peekable();
                while let Some(&t_ns) = opps.peek() {
                    let bin = t_ns / ms;
                    if bin * ms >= until_ns {
                        break;
                    }
                    if bin > next_bin {
                        push(&mut out, next_bin * ms, 0);
                    }
                    let mut count: u64 = 0;
                    while opps.peek().is_some_and(|&t| t / ms == bin) {
                        opps.next();
                        count += 1;
                    }
                    push(&mut out, bin * ms, count * OPPORTUNITY_PER_MS_BPS);
                    next_bin = bin + 1;
                }
                if next_bin * ms < until_ns {
                    push(&mut out, next_bin * ms, 0);
                }
            }
        }
        out
    }

    /// Writes the schedule on `[0, until]` as a Mahimahi trace: for a piecewise trace,
    /// one line (the floor of the time in ms) each time the capacity accumulated since 0
    /// reaches another multiple of 1500 bytes; for a Mahimahi trace, its opportunities
    /// cycle by cycle, stopping before a cycle that starts at or after `until`, so that
    /// the output reproduces the trace exactly when `until` is a multiple of its period.
    /// A trace with no capacity before `until` gives an empty string (which
    /// [`RateTrace::from_mahimahi`] rejects). The output is linear in the number of
    /// opportunities, so `until` must be finite.
    pub fn to_mahimahi(&self, until: SimTime) -> String {
        let mut out = String::new();
        let until_ns = until.ns() as u128;
        match &self.schedule {
            Schedule::Mahimahi(mm) => {
                let period_ns = mm.period_ns() as u128;
                for (cycle, t_ns) in mm.opportunities() {
                    if t_ns > until_ns || cycle as u128 * period_ns >= until_ns {
                        break;
                    }
                    let _ = writeln!(out, "{}", t_ns / NS_PER_MS as u128);
                }
            }
            Schedule::Piecewise(pw) => {
                if pw.period.is_some_and(|p| p.cycle_nbits == 0) {
                    return out;
                }
                let per_opp_nbits = OPPORTUNITY_BYTES as u128 * NBITS_PER_BYTE;
                // Capacity gathered towards the next opportunity, always < per_opp_nbits.
                let mut filled_nbits: u128 = 0;
                for (start_ns, end_ns, rate_bps) in pw.segments() {
                    if start_ns > until_ns {
                        break;
                    }
                    let rate = rate_bps as u128;
                    let seg_nbits = end_ns.map(|e| rate * (e - start_ns));
                    let horizon_nbits = rate * (until_ns - start_ns);
                    let mut need_nbits = per_opp_nbits - filled_nbits;
                    loop {
                        if seg_nbits.is_some_and(|s| need_nbits > s) {
                            break;
                        }
                        if rate == 0 || need_nbits > horizon_nbits {
                            return out;
                        }
                        // Crossing at start + need/rate; the floor of that in ms only
                        // depends on its integer part, as start is whole.
                        let t_ns = start_ns + need_nbits / rate;
                        let _ = writeln!(out, "{}", t_ns / NS_PER_MS as u128);
                        need_nbits = need_nbits.saturating_add(per_opp_nbits);
                    }
                    if let Some(s) = seg_nbits {
                        filled_nbits = per_opp_nbits - (need_nbits - s);
                    }
                }
            }
        }
        out
    }

    /// Bytes the link could carry in `[from, to)`, rounded down. For a Mahimahi trace,
    /// 1500 bytes per opportunity at a time `t` with `from <= t < to`. Zero if
    /// `to <= from`; saturates at `u64::MAX`.
    pub fn capacity_bytes(&self, from: SimTime, to: SimTime) -> u64 {
        if to <= from {
            return 0;
        }
        let bytes = match &self.schedule {
            Schedule::Piecewise(pw) => {
                (pw.cum_nbits(to.ns()) - pw.cum_nbits(from.ns())) / NBITS_PER_BYTE
            }
            Schedule::Mahimahi(mm) => {
                (mm.count_before(to.ns()) - mm.count_before(from.ns())) * OPPORTUNITY_BYTES as u128
            }
        };
        u64::try_from(bytes).unwrap_or(u64::MAX)
    }

    /// Mean capacity over `[from, to)`, rounded to the nearest bit/s; `Rate(0)` if
    /// `to <= from`.
    pub fn mean_rate(&self, from: SimTime, to: SimTime) -> Rate {
        if to <= from {
            return Rate(0);
        }
        let nbits = match &self.schedule {
            Schedule::Piecewise(pw) => pw.cum_nbits(to.ns()) - pw.cum_nbits(from.ns()),
            Schedule::Mahimahi(mm) => (mm.count_before(to.ns()) - mm.count_before(from.ns()))
                .saturating_mul(OPPORTUNITY_BYTES as u128 * NBITS_PER_BYTE),
        };
        // nbits are rate_bps * ns, so dividing by the span in ns gives bit/s.
        let span_ns = (to.ns() - from.ns()) as u128;
        let bps = nbits.saturating_add(span_ns / 2) / span_ns;
        Rate(u64::try_from(bps).unwrap_or(u64::MAX))
    }

    /// `Some(rate)` if the capacity is `rate` at every instant (a piecewise trace whose
    /// rows all have the same rate); `None` otherwise, and always for Mahimahi traces,
    /// whose capacity comes in discrete opportunities.
    pub fn is_constant(&self) -> Option<Rate> {
        match &self.schedule {
            Schedule::Piecewise(pw) => {
                let first = pw.rates_bps[0];
                pw.rates_bps
                    .iter()
                    .all(|&r| r == first)
                    .then_some(Rate(first))
            }
            Schedule::Mahimahi(_) => None,
        }
    }
}
