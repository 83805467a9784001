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

/// Serves packets FIFO over a trace. Stateful so that it is O(1) amortised per packet.
///
/// A cursor remembers where in the trace the previous packet finished, so each call
/// walks forward from there; a start in a later period, or far ahead, is located with
/// a galloping search, which costs O(log distance).
#[derive(Clone, Debug)]
pub struct TraceServer {
    trace: RateTrace,
    cursor: Cursor,
}

#[derive(Clone, Copy, Debug)]
enum Cursor {
    /// The segment the previous packet finished in.
    Piecewise { cycle: u64, seg: usize },
    /// The next opportunity not yet used, and the unused bytes of the last one used.
    Mahimahi {
        cycle: u64,
        idx: usize,
        leftover: Option<Leftover>,
    },
}

#[derive(Clone, Copy, Debug)]
struct Leftover {
    at_ns: u64,
    bytes: u64,
}

impl TraceServer {
    /// A server at time 0 that has served nothing yet.
    pub fn new(trace: RateTrace) -> Self {
        let cursor = match trace.schedule {
            Schedule::Piecewise(_) => Cursor::Piecewise { cycle: 0, seg: 0 },
            Schedule::Mahimahi(_) => Cursor::Mahimahi {
                cycle: 0,
                idx: 0,
                leftover: None,
            },
        };
        TraceServer { trace, cursor }
    }

    /// A packet of `bytes` starts service at `start` (callers guarantee start >= the
    /// finish time returned by the previous call). Returns when its last bit has been
    /// served, or [`SimTime::NEVER`] if the trace can never carry it (e.g. the rate is 0
    /// forever after `start`).
    ///
    /// Piecewise traces: the earliest `t` with `∫[start, t] rate >= 8 * bytes` bits,
    /// rounded up to the next nanosecond. Mahimahi traces: the time of the opportunity
    /// that carries the packet's last byte (see the module docs for leftover bytes).
    ///
    /// A start earlier than the previous finish is not rejected: a piecewise trace then
    /// serves the packet as if the link were free at `start`, while a Mahimahi trace
    /// never hands out an opportunity twice.
    pub fn serve(&mut self, start: SimTime, bytes: u64) -> SimTime {
        if bytes == 0 || start == SimTime::NEVER {
            return start;
        }
        let finish_ns = match (&self.trace.schedule, &mut self.cursor) {
            (Schedule::Piecewise(pw), Cursor::Piecewise { cycle, seg }) => {
                serve_piecewise(pw, cycle, seg, start.ns(), bytes)
            }
            (
                Schedule::Mahimahi(mm),
                Cursor::Mahimahi {
                    cycle,
                    idx,
                    leftover,
                },
            ) => serve_mahimahi(mm, cycle, idx, leftover, start.ns(), bytes),
            _ => unreachable!("the cursor is built for the trace it walks"),
        };
        match finish_ns {
            Some(ns) if ns < u64::MAX as u128 => SimTime(ns as u64),
            _ => SimTime::NEVER,
        }
    }

    /// The trace this server follows.
    pub fn trace(&self) -> &RateTrace {
        &self.trace
    }
}

/// Returns the exact finish in ns (possibly beyond `u64`), or `None` if never.
fn serve_piecewise(
    pw: &Piecewise,
    cycle: &mut u64,
    seg: &mut usize,
    start_ns: u64,
    bytes: u64,
) -> Option<u128> {
    let (start_cycle, offset_ns) = pw.split(start_ns);
    if start_cycle == *cycle && pw.starts_ns[*seg] <= offset_ns {
        *seg = last_at_or_before(&pw.starts_ns, *seg, offset_ns);
    } else {
        // A later period (or a caller that went back in time): search it from its start.
        *cycle = start_cycle;
        *seg = last_at_or_before(&pw.starts_ns, 0, offset_ns);
    }
    let len_ns = pw.period.map_or(0, |p| p.len_ns as u128);
    let mut need_nbits = bytes as u128 * NBITS_PER_BYTE;
    let mut t_ns = start_ns as u128;
    loop {
        let rate = pw.rates_bps[*seg] as u128;
        let base_ns = *cycle as u128 * len_ns;
        let Some(end_ns) = pw.seg_end_ns(*seg).map(|e| base_ns + e as u128) else {
            return (rate > 0).then(|| t_ns + need_nbits.div_ceil(rate));
        };
        // Fits in u128: both factors are below 2^64.
        let avail_nbits = rate * (end_ns - t_ns);
        if avail_nbits >= need_nbits {
            return Some(t_ns + need_nbits.div_ceil(rate));
        }
        need_nbits -= avail_nbits;
        t_ns = end_ns;
        if t_ns >= u64::MAX as u128 {
            return None;
        }
        *seg += 1;
        if *seg == pw.starts_ns.len() {
            // Only periodic traces get here: the last segment of the others is unbounded.
            let cycle_nbits = pw.period.map_or(0, |p| p.cycle_nbits);
            if cycle_nbits == 0 {
                return None;
            }
            *seg = 0;
            *cycle = cycle.checked_add(1)?;
            // Whole periods the packet spans are skipped in one step, so a huge packet
            // on a slow periodic trace does not walk every segment of every period.
            if need_nbits > cycle_nbits {
                let skip = (need_nbits - 1) / cycle_nbits;
                *cycle = cycle.checked_add(u64::try_from(skip).ok()?)?;
                need_nbits -= skip * cycle_nbits;
                t_ns = *cycle as u128 * len_ns;
            }
        }
    }
}

/// Returns the time in ns of the opportunity that carries the last byte.
fn serve_mahimahi(
    mm: &Mahimahi,
    cycle: &mut u64,
    idx: &mut usize,
    leftover: &mut Option<Leftover>,
    start_ns: u64,
    bytes: u64,
) -> Option<u128> {
    let mut remaining = bytes;
    // Leftover bytes are only usable by a packet that was already waiting when the
    // opportunity came, i.e. one that starts right as the previous one finished.
    if let Some(left) = leftover.take() {
        if left.at_ns == start_ns {
            let used = remaining.min(left.bytes);
            remaining -= used;
            if remaining == 0 {
                if left.bytes > used {
                    *leftover = Some(Leftover {
                        at_ns: start_ns,
                        bytes: left.bytes - used,
                    });
                }
                return Some(start_ns as u128);
            }
        }
    }

    // Move the cursor to the first unused opportunity at or after the start.
    if mm.time_ns(*cycle, *idx) < start_ns as u128 {
        let period_ns = mm.period_ns();
        // start_ns > 0 here. At an exact multiple of the period, the last opportunity of
        // the previous cycle is still at or after the start, so look there first.
        let (whole, rest) = (start_ns / period_ns, start_ns % period_ns);
        let (start_cycle, offset_ns) = if rest == 0 {
            (whole - 1, period_ns)
        } else {
            (whole, rest)
        };
        let from = if start_cycle == *cycle { *idx } else { 0 };
        *cycle = start_cycle;
        *idx = first_at_or_after(&mm.opps_ns, from, offset_ns);
    }

    let n = mm.opps_ns.len();
    let per_cycle_bytes = n as u128 * OPPORTUNITY_BYTES as u128;
    loop {
        let t_ns = mm.time_ns(*cycle, *idx);
        if t_ns >= u64::MAX as u128 {
            return None;
        }
        *idx += 1;
        if *idx == n {
            *idx = 0;
            *cycle = cycle.saturating_add(1);
        }
        if remaining <= OPPORTUNITY_BYTES {
            if remaining < OPPORTUNITY_BYTES {
                *leftover = Some(Leftover {
                    at_ns: t_ns as u64,
                    bytes: OPPORTUNITY_BYTES - remaining,
                });
            }
            return Some(t_ns);
        }
        remaining -= OPPORTUNITY_BYTES;
        // Whole cycles the packet spans are skipped in one step.
        if *idx == 0 && remaining as u128 > per_cycle_bytes {
            let skip = (remaining as u128 - 1) / per_cycle_bytes;
            *cycle = cycle.saturating_add(skip as u64);
            remaining -= (skip * per_cycle_bytes) as u64;
        }
    }
}

/// Largest `j >= from` with `sorted[j] <= x`, given `sorted[from] <= x`. Galloping
/// keeps the cost logarithmic in the distance moved, so short moves stay O(1).
fn last_at_or_before(sorted: &[u64], from: usize, x: u64) -> usize {
    let mut lo = from;
    let mut step = 1;
    loop {
        let probe = lo + step;
        if probe >= sorted.len() || sorted[probe] > x {
            let hi = probe.min(sorted.len());
            return lo + sorted[lo..hi].partition_point(|&s| s <= x) - 1;
        }
        lo = probe;
        step *= 2;
    }
}

/// Smallest `j >= from` with `sorted[j] >= x`, given that the last element is `>= x`.
fn first_at_or_after(sorted: &[u64], from: usize, x: u64) -> usize {
    if sorted[from] >= x {
        return from;
    }
    let mut lo = from;
    let mut step = 1;
    loop {
        let probe = lo + step;
        if probe >= sorted.len() || sorted[probe] >= x {
            let hi = probe.min(sorted.len());
            return lo + sorted[lo..hi].partition_point(|&s| s < x);
        }
        lo = probe;
        step *= 2;
    }
}

fn parse_header(fields: &[&str], line_no: usize) -> Result<(usize, i64), TraceError> {
    let expected = "expected a header naming `time_s` and one of `rate_bps`, `rate_kbps`, \
                    `rate_mbps`, `rate_gbps`";
    if fields
        .iter()
        .any(|f| parse_scaled(f, 0) != Err(NumError::Invalid))
    {
        return Err(TraceError::at(
            line_no,
            format!(
                "missing header: {expected}, found data `{}`",
                fields.join(",")
            ),
        ));
    }
    if fields.len() != 2 {
        return Err(TraceError::at(
            line_no,
            format!(
                "the header must name exactly two columns, found {}: `{}`",
                fields.len(),
                fields.join(",")
            ),
        ));
    }
    let mut time_col = None;
    let mut rate_pow10 = None;
    for (col, name) in fields.iter().enumerate() {
        if *name == "time_s" {
            if time_col.replace(col).is_some() {
                return Err(TraceError::at(
                    line_no,
                    format!("{expected}; found two `time_s`"),
                ));
            }
        } else if let Some(&(_, pow10)) = RATE_COLUMNS.iter().find(|(n, _)| n == name) {
            if rate_pow10.replace(pow10).is_some() {
                return Err(TraceError::at(
                    line_no,
                    format!("{expected}; found two rate columns"),
                ));
            }
        } else {
            return Err(TraceError::at(
                line_no,
                format!("unknown column {}: {expected}", quoted(name)),
            ));
        }
    }
    match (time_col, rate_pow10) {
        (Some(t), Some(p)) => Ok((t, p)),
        _ => Err(TraceError::at(
            line_no,
            format!("{expected}, found {}", quoted(&fields.join(","))),
        )),
    }
}

/// `text` in backticks with invisible characters spelled out ([`crate::text::visible`]),
/// and what they are after the closing quote.
fn quoted(text: &str) -> String {
    match crate::text::visible(text) {
        Some((shown, what)) => format!("`{shown}` ({what})"),
        None => format!("`{text}`"),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NumError {
    Invalid,
    Negative,
    TooLarge,
    TooPrecise,
}

impl NumError {
    fn describe(self, what: &str, text: &str) -> String {
        let text = quoted(text);
        match self {
            NumError::Invalid => format!("{what} {text} is not a number"),
            NumError::Negative => format!("{what} {text} is negative"),
            NumError::TooLarge => format!("{what} {text} is too large"),
            NumError::TooPrecise => format!("{what} {text} has more than 36 significant digits"),
        }
    }
}

/// Parses a decimal such as `12`, `0.0005`, `1.5e3` exactly and returns
/// `value * 10^pow10` rounded to the nearest integer (halves up). Doing this in integers
/// rather than through `f64` keeps e.g. `0.001` s at exactly 1 000 000 ns however large
/// the surrounding values are.
fn parse_scaled(text: &str, pow10: i64) -> Result<u64, NumError> {
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => {
            let exp_text = &body[at + 1..];
            let digits = exp_text.strip_prefix(['+', '-']).unwrap_or(exp_text);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(NumError::Invalid);
            }
            // Exponents this large are absurd for a trace; clamping keeps the arithmetic
            // below in range while still giving "too large" or zero.
            let magnitude = digits.parse::<i64>().unwrap_or(i64::MAX).min(10_000);
            let exp = if exp_text.starts_with('-') {
                -magnitude
            } else {
                magnitude
            };
            (&body[..at], exp)
        }
        None => (body, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_part.is_empty() && frac_part.is_empty()
        || !int_part.bytes().all(|b| b.is_ascii_digit())
        || !frac_part.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(NumError::Invalid);
    }
    let mut exp10 = exponent + pow10 - frac_part.len() as i64;
    let all_digits: String = format!("{int_part}{frac_part}");
    let significant = all_digits.trim_start_matches('0');
    let trimmed = significant.trim_end_matches('0');
    exp10 += (significant.len() - trimmed.len()) as i64;
    if trimmed.is_empty() {
        return Ok(0);
    }
    if negative {
        return Err(NumError::Negative);
    }
    if trimmed.len() > 36 {
        return Err(NumError::TooPrecise);
    }
    let digits: u128 = trimmed.parse().map_err(|_| NumError::Invalid)?;
    let value = if exp10 >= 0 {
        let scale = 10u128.checked_pow(exp10 as u32).ok_or(NumError::TooLarge)?;
        digits.checked_mul(scale).ok_or(NumError::TooLarge)?
    } else if -exp10 > 38 {
        // digits < 10^36, so the value is below 0.01 and rounds to zero.
        0
    } else {
        let scale = 10u128.pow((-exp10) as u32);
        let (q, r) = (digits / scale, digits % scale);
        q + u128::from(2 * r >= scale)
    };
    u64::try_from(value).map_err(|_| NumError::TooLarge)
}

/// Seconds with as many decimals as needed to be exact, e.g. `0.0005`, `2`.
fn fmt_secs(ns: u64) -> String {
    let (secs, frac_ns) = (ns / NS_PER_S, ns % NS_PER_S);
    if frac_ns == 0 {
        return secs.to_string();
    }
    let frac = format!("{frac_ns:09}");
    format!("{secs}.{}", frac.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_ms(x)
    }
    fn us(x: u64) -> SimTime {
        SimTime::from_us(x)
    }

    fn csv_err(text: &str) -> TraceError {
        RateTrace::from_csv(text).expect_err("trace should be rejected")
    }

    // ---- CSV parsing ----

    #[test]
    fn csv_parses_units_comments_and_blank_lines() {
        let t = RateTrace::from_csv(
            "# a comment\n\ntime_s, rate_mbps\n0, 8\n# another\n0.001, 16.5\n\n0.002,0\n",
        )
        .unwrap();
        // 8 Mbit/s for 1 ms = 8000 bit = 1000 B; 16.5 Mbit/s for 1 ms = 16 500 bit
        // = 2062.5 B; then outage. Total 3062.5 B, floored.
        assert_eq!(t.capacity_bytes(SimTime::ZERO, ms(10)), 3062);
        assert_eq!(t.is_constant(), None);
    }

    #[test]
    fn csv_accepts_columns_in_either_order_and_all_units() {
        let a = RateTrace::from_csv("rate_kbps,time_s\n1.5,0\n").unwrap();
        assert_eq!(a.is_constant(), Some(Rate(1_500)));
        let b = RateTrace::from_csv("time_s,rate_gbps\n0,2.5\n").unwrap();
        assert_eq!(b.is_constant(), Some(Rate(2_500_000_000)));
        let c = RateTrace::from_csv("time_s,rate_bps\n0,1e3\n").unwrap();
        assert_eq!(c.is_constant(), Some(Rate(1_000)));
    }

    #[test]
    fn csv_empty_or_headerless_inputs_are_rejected() {
        let e = csv_err("");
        assert_eq!(e.line, None);
        let e = csv_err("# only a comment\n\n");
        assert_eq!(e.line, None);
        let e = csv_err("time_s,rate_bps\n");
        assert_eq!(e.line, None);
        assert!(e.message.contains("no data rows"), "{e}");
    }

    #[test]
    fn csv_missing_header_names_the_line() {
        let e = csv_err("# comment\n0,100\n1,200\n");
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("missing header"), "{e}");
    }

    #[test]
    fn csv_unknown_header_column_names_the_line() {
        let e = csv_err("time_s,rate_foo\n0,1\n");
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("unknown column `rate_foo`"), "{e}");
        let e = csv_err("time_s,rate_bps,extra\n0,1,2\n");
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("exactly two columns"), "{e}");
        let e = csv_err("time_s,time_s\n0,1\n");
        assert_eq!(e.line, Some(1));
        let e = csv_err("rate_bps,rate_mbps\n0,1\n");
        assert_eq!(e.line, Some(1));
    }

    #[test]
    fn csv_non_increasing_time_names_the_line() {
        let e = csv_err("time_s,rate_bps\n0,1\n0.5,2\n0.5,3\n");
        assert_eq!(e.line, Some(4));
        assert!(e.message.contains("strictly increase"), "{e}");
        let e = csv_err("time_s,rate_bps\n0,1\n0.5,2\n0.25,3\n");
        assert_eq!(e.line, Some(4));
    }

    #[test]
    fn csv_negative_rate_names_the_line() {
        let e = csv_err("time_s,rate_bps\n0,1\n1,-5\n");
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("negative"), "{e}");
    }

    #[test]
    fn csv_garbage_numbers_name_the_line() {
        for bad in ["abc", "1.2.3", "nan", "inf", "", "1e", "--1", "0x10"] {
            let e = csv_err(&format!("time_s,rate_bps\n0,1\n1,{bad}\n"));
            assert_eq!(e.line, Some(3), "{bad}: {e}");
            assert!(e.message.contains("not a number"), "{bad}: {e}");
        }
        let e = csv_err("time_s,rate_bps\n0,1\nx,1\n");
        assert_eq!(e.line, Some(3));
        let e = csv_err("time_s,rate_bps\n0,1\n1\n");
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("expected 2 fields"), "{e}");
        let e = csv_err("time_s,rate_bps\n0,1\n1,99999999999999999999\n");
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("too large"), "{e}");
    }

    #[test]
    fn csv_not_starting_at_zero_names_the_line() {
        let e = csv_err("time_s,rate_bps\n\n0.5,1\n1,2\n");
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("time 0"), "{e}");
    }

    #[test]
    fn error_display_includes_the_line() {
        let e = csv_err("time_s,rate_bps\n0,1\n1,-5\n");
        assert!(e.to_string().starts_with("line 3: "), "{e}");
    }

    #[test]
    fn decimal_parsing_is_exact_and_rounds_to_nearest() {
        assert_eq!(parse_scaled("0.001", 9), Ok(1_000_000));
        assert_eq!(parse_scaled("0.0005", 9), Ok(500_000));
        assert_eq!(parse_scaled("1.5e-3", 9), Ok(1_500_000));
        assert_eq!(parse_scaled("+2", 0), Ok(2));
        assert_eq!(parse_scaled(".5", 0), Ok(1)); // half rounds up
        assert_eq!(parse_scaled("0.49", 0), Ok(0));
        assert_eq!(parse_scaled("-0", 0), Ok(0));
        assert_eq!(parse_scaled("1e-50", 0), Ok(0));
        assert_eq!(parse_scaled("18446744073709551615", 0), Ok(u64::MAX));
        assert_eq!(
            parse_scaled("18446744073709551616", 0),
            Err(NumError::TooLarge)
        );
        assert_eq!(parse_scaled("1e10000000", 0), Err(NumError::TooLarge));
        assert_eq!(parse_scaled("-1", 0), Err(NumError::Negative));
    }

    // ---- Mahimahi parsing ----

    #[test]
    fn mahimahi_parse_errors() {
        let e = RateTrace::from_mahimahi("").unwrap_err();
        assert_eq!(e.line, None);
        let e = RateTrace::from_mahimahi("\n\n").unwrap_err();
        assert_eq!(e.line, None);
        let e = RateTrace::from_mahimahi("1\n3\n2\n").unwrap_err();
        assert_eq!(e.line, Some(3));
        let e = RateTrace::from_mahimahi("1\nx\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        let e = RateTrace::from_mahimahi("1\n-2\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        let e = RateTrace::from_mahimahi("0\n0\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        let e = RateTrace::from_mahimahi("99999999999999999\n").unwrap_err();
        assert_eq!(e.line, Some(1));
    }

    #[test]
    fn mahimahi_cannot_take_a_period() {
        let t = RateTrace::from_mahimahi("1\n").unwrap();
        assert!(t.with_period(ms(5)).is_err());
    }

    // ---- Piecewise service ----

    #[test]
    fn constant_1_gbps_serves_1500_bytes_in_12_us_back_to_back() {
        let mut s = TraceServer::new(RateTrace::constant(Rate::gbps(1)));
        // 1500 B * 8 = 12 000 bit at 1e9 bit/s = 12 µs.
        assert_eq!(s.serve(SimTime::ZERO, 1500), us(12));
        // Back to back: each further packet adds 12 µs.
        assert_eq!(s.serve(us(12), 1500), us(24));
        assert_eq!(s.serve(us(24), 1500), us(36));
        // After idling until 100 µs, service restarts from the new start.
        assert_eq!(s.serve(us(100), 1500), us(112));
    }

    #[test]
    fn finish_rounds_up_to_the_next_ns() {
        let mut s = TraceServer::new(RateTrace::constant(Rate::bps(3)));
        // 8 bit at 3 bit/s = 2.666... s -> 2 666 666 667 ns.
        assert_eq!(s.serve(SimTime::ZERO, 1), SimTime(2_666_666_667));
    }

    #[test]
    fn packet_straddling_a_rate_increase() {
        let t = RateTrace::from_csv("time_s,rate_mbps\n0,8\n0.001,16\n").unwrap();
        let mut s = TraceServer::new(t);
        // Start 0.5 ms: 0.5 ms at 8 Mbit/s = 4000 bit; 12 000 - 4000 = 8000 bit remain,
        // at 16 Mbit/s that is 0.5 ms, so the finish is 1.5 ms.
        assert_eq!(s.serve(us(500), 1500), us(1500));
        // Next one entirely at 16 Mbit/s: 12 000 bit / 16e6 = 0.75 ms -> 2.25 ms.
        assert_eq!(s.serve(us(1500), 1500), us(2250));
    }

    #[test]
    fn packet_straddling_a_rate_decrease() {
        let t = RateTrace::from_csv("time_s,rate_bps\n0,1000000000\n0.000006,100000000\n").unwrap();
        let mut s = TraceServer::new(t);
        // 6 µs at 1 Gbit/s = 6000 bit; the other 6000 bit at 100 Mbit/s take 60 µs:
        // finish at 66 µs.
        assert_eq!(s.serve(SimTime::ZERO, 1500), us(66));
    }

    #[test]
    fn packet_spanning_several_segments() {
        let t = RateTrace::from_csv("time_s,rate_mbps\n0,1\n0.001,2\n0.002,4\n0.003,8\n").unwrap();
        let mut s = TraceServer::new(t);
        // Capacity per ms: 1000, 2000, 4000 bit, then 8000 bit/ms. 12 000 bit need the
        // first three ms (7000 bit) plus 5000 bit at 8 Mbit/s = 0.625 ms -> 3.625 ms.
        assert_eq!(s.serve(SimTime::ZERO, 1500), us(3625));
    }

    #[test]
    fn outage_delays_a_straddling_packet_by_its_length() {
        let with_outage = RateTrace::from_csv("time_s,rate_mbps\n0,12\n1,0\n2,12\n").unwrap();
        let mut s = TraceServer::new(with_outage);
        // 12 000 bit at 12 Mbit/s = 1 ms. Starting at 0.9995 s, half is served before the
        // outage and half after it: 2.0005 s, against 1.0005 s without the outage.
        let start = SimTime(999_500_000);
        assert_eq!(s.serve(start, 1500), SimTime(2_000_500_000));
        let mut plain = TraceServer::new(RateTrace::constant(Rate::mbps(12)));
        assert_eq!(plain.serve(start, 1500), SimTime(1_000_500_000));
        // A packet starting inside the outage waits for it to end: 2.5 s + 1 ms.
        assert_eq!(
            s.serve(SimTime(2_500_000_000), 1500),
            SimTime(2_501_000_000)
        );
    }

    #[test]
    fn packet_starting_inside_an_outage_waits_for_its_end() {
        let t = RateTrace::from_csv("time_s,rate_mbps\n0,12\n1,0\n2,12\n").unwrap();
        let mut s = TraceServer::new(t);
        // Starts at 1.2 s, nothing flows until 2 s, then 1 ms of service.
        assert_eq!(
            s.serve(SimTime(1_200_000_000), 1500),
            SimTime(2_001_000_000)
        );
    }

    #[test]
    fn zero_rate_forever_never_finishes() {
        let t = RateTrace::from_csv("time_s,rate_mbps\n0,12\n0.001,0\n").unwrap();
        let mut s = TraceServer::new(t);
        // The first 1 ms carries exactly 1500 B, so the first packet just fits.
        assert_eq!(s.serve(SimTime::ZERO, 1500), ms(1));
        assert_eq!(s.serve(ms(1), 1), SimTime::NEVER);
        let mut z = TraceServer::new(RateTrace::constant(Rate(0)));
        assert_eq!(z.serve(SimTime::ZERO, 1), SimTime::NEVER);
        let mut zp = TraceServer::new(RateTrace::constant(Rate(0)).with_period(ms(1)).unwrap());
        assert_eq!(zp.serve(SimTime::ZERO, 1), SimTime::NEVER);
    }

    #[test]
    fn zero_byte_packets_finish_at_their_start() {
        let mut s = TraceServer::new(RateTrace::constant(Rate(0)));
        assert_eq!(s.serve(ms(3), 0), ms(3));
    }

    #[test]
    fn periodic_csv_wraps() {
        // On for 1 ms at 12 Mbit/s (1500 B), off for 1 ms, repeating every 2 ms.
        let t = RateTrace::from_csv("time_s,rate_mbps\n0,12\n0.001,0\n")
            .unwrap()
            .with_period(ms(2))
            .unwrap();
        let mut s = TraceServer::new(t.clone());
        assert_eq!(s.serve(SimTime::ZERO, 1500), ms(1));
        // 3000 B from 1 ms: off until 2 ms, 1500 B by 3 ms, off, 1500 B by 5 ms.
        assert_eq!(s.serve(ms(1), 3000), ms(5));
        // Far ahead, mid on-phase of period 500 (1000.5 ms): 0.5 ms gives 750 B, off
        // 1001-1002 ms, the other 750 B take 0.5 ms: 1002.5 ms.
        assert_eq!(s.serve(us(1_000_500), 1500), us(1_002_500));
        // A 15 000 B packet needs ten on-phases; from 0 the tenth ends at 19 ms.
        let mut big = TraceServer::new(t.clone());
        assert_eq!(big.serve(SimTime::ZERO, 15_000), ms(19));
        // Same from an on-phase start in a later period: 1004 ms + 19 ms.
        assert_eq!(big.serve(ms(1004), 15_000), ms(1023));
    }

    #[test]
    fn with_period_must_exceed_the_last_row() {
        let t = RateTrace::from_csv("time_s,rate_mbps\n0,12\n0.001,0\n").unwrap();
        assert!(t.clone().with_period(ms(1)).is_err());
        assert!(t.clone().with_period(us(999)).is_err());
        assert!(t.with_period(SimTime(1_000_001)).is_ok());
        assert!(RateTrace::constant(Rate(1))
            .with_period(SimTime::ZERO)
            .is_err());
    }

    // ---- Mahimahi service ----

    fn mm_133() -> RateTrace {
        RateTrace::from_mahimahi("1\n1\n3\n").unwrap()
    }

    #[test]
    fn mahimahi_back_to_back_packets_and_wrap() {
        let mut s = TraceServer::new(mm_133());
        // Opportunities at 1, 1, 3 ms, then 4, 4, 6 ms, then 7, 7, 9 ms, ...
        assert_eq!(s.serve(SimTime::ZERO, 1500), ms(1));
        assert_eq!(s.serve(ms(1), 1500), ms(1)); // second opportunity at 1 ms
        assert_eq!(s.serve(ms(1), 1500), ms(3));
        assert_eq!(s.serve(ms(3), 1500), ms(4)); // first wrap: 3 + 1
        assert_eq!(s.serve(ms(4), 1500), ms(4));
        assert_eq!(s.serve(ms(4), 1500), ms(6)); // 3 + 3
        assert_eq!(s.serve(ms(6), 1500), ms(7)); // 6 + 1
    }

    #[test]
    fn mahimahi_large_packets_use_several_opportunities() {
        let mut s = TraceServer::new(mm_133());
        // 3000 B = both opportunities at 1 ms.
        assert_eq!(s.serve(SimTime::ZERO, 3000), ms(1));
        let mut s = TraceServer::new(mm_133());
        // 9000 B = six opportunities: 1, 1, 3, 4, 4, 6 ms.
        assert_eq!(s.serve(SimTime::ZERO, 9000), ms(6));
        // 10 000 B from 6 ms: 7, 7, 9, 10, 10, 12, 13 ms carry 7 * 1500 = 10 500 B;
        // the last byte goes at 13 ms, leaving 500 B of it.
        assert_eq!(s.serve(ms(6), 10_000), ms(13));
        assert_eq!(s.serve(ms(13), 500), ms(13));
        // Cycle 4 has a second opportunity at 13 ms: 1 B, then its other 1499 B.
        assert_eq!(s.serve(ms(13), 1), ms(13));
        assert_eq!(s.serve(ms(13), 1499), ms(13));
        // Both 13 ms opportunities are used up; next is 15 ms.
        assert_eq!(s.serve(ms(13), 1), ms(15));
    }

    #[test]
    fn mahimahi_huge_packet_skips_whole_cycles() {
        let mut s = TraceServer::new(mm_133());
        // 3 * 1000 + 1 opportunities: 1000 full cycles end at 3000 ms, the next
        // opportunity is 3000 + 1 ms.
        assert_eq!(s.serve(SimTime::ZERO, 1500 * 3001), ms(3001));
        // Then the second opportunity at 3001 ms is still free.
        assert_eq!(s.serve(ms(3001), 1500), ms(3001));
        // Exactly three cycles' worth from 0: nine opportunities, the last at 9 ms, not
        // the first of a fourth cycle.
        let mut s = TraceServer::new(mm_133());
        assert_eq!(s.serve(SimTime::ZERO, 13_500), ms(9));
        assert_eq!(s.serve(ms(9), 1500), ms(10));
    }

    #[test]
    fn mahimahi_leftover_serves_only_a_waiting_packet() {
        let mut s = TraceServer::new(mm_133());
        // 1000 B leaves 500 B of the first 1 ms opportunity; a 500 B packet waiting at
        // 1 ms uses them.
        assert_eq!(s.serve(SimTime::ZERO, 1000), ms(1));
        assert_eq!(s.serve(ms(1), 500), ms(1));
        // The second 1 ms opportunity is still whole.
        assert_eq!(s.serve(ms(1), 1500), ms(1));
        assert_eq!(s.serve(ms(1), 1), ms(3));

        let mut s = TraceServer::new(mm_133());
        assert_eq!(s.serve(SimTime::ZERO, 1000), ms(1));
        // Idle until 1.5 ms: the 500 B left at 1 ms are lost; the other 1 ms
        // opportunity has passed too, so the next packet goes at 3 ms.
        assert_eq!(s.serve(us(1500), 500), ms(3));

        let mut s = TraceServer::new(mm_133());
        // A 1000 B packet waiting at 1 ms takes the 500 B leftover plus 500 B of the
        // second 1 ms opportunity.
        assert_eq!(s.serve(SimTime::ZERO, 1000), ms(1));
        assert_eq!(s.serve(ms(1), 1000), ms(1));
        assert_eq!(s.serve(ms(1), 1000), ms(1));
        assert_eq!(s.serve(ms(1), 1), ms(3));
    }

    #[test]
    fn mahimahi_start_on_a_period_boundary_finds_the_last_opportunity() {
        // "0\n2\n": opportunities at 0, 2, 2, 4, 4, 6 ms ... (cycles share boundaries).
        let t = RateTrace::from_mahimahi("0\n2\n").unwrap();
        let mut s = TraceServer::new(t);
        assert_eq!(s.serve(us(1), 1500), ms(2));
        assert_eq!(s.serve(ms(2), 1500), ms(2));
        assert_eq!(s.serve(ms(2), 1500), ms(4));
        // Idle to exactly 8 ms: opportunities at 8 ms from cycles 3 and 4 are both left.
        assert_eq!(s.serve(ms(8), 1500), ms(8));
        assert_eq!(s.serve(ms(8), 1500), ms(8));
        assert_eq!(s.serve(ms(8), 1500), ms(10));
    }

    #[test]
    fn mahimahi_far_start_after_many_cycles() {
        let mut s = TraceServer::new(mm_133());
        // 1 000 000 cycles of 3 ms: at 3 000 000.5 ms the next opportunities are at
        // 3 000 001 ms (twice).
        assert_eq!(s.serve(us(3_000_000_500), 1500), ms(3_000_001));
        assert_eq!(s.serve(ms(3_000_001), 1500), ms(3_000_001));
        assert_eq!(s.serve(ms(3_000_001), 1500), ms(3_000_003));
    }

    // ---- capacity and mean rate ----

    #[test]
    fn capacity_and_mean_rate_of_piecewise_traces() {
        let t = RateTrace::from_csv("time_s,rate_mbps\n0,8\n0.001,16\n").unwrap();
        // [0.5 ms, 1.5 ms): 4000 bit + 8000 bit = 12 000 bit = 1500 B, mean 12 Mbit/s.
        assert_eq!(t.capacity_bytes(us(500), us(1500)), 1500);
        assert_eq!(t.mean_rate(us(500), us(1500)), Rate::mbps(12));
        // [0, 1 ms) at 8 Mbit/s: 1000 B.
        assert_eq!(t.capacity_bytes(SimTime::ZERO, ms(1)), 1000);
        // 1 ns at 8 Mbit/s is 0.008 bit: rounds down to 0 B.
        assert_eq!(t.capacity_bytes(SimTime::ZERO, SimTime(1)), 0);
        assert_eq!(t.capacity_bytes(ms(2), ms(1)), 0);
        assert_eq!(t.mean_rate(ms(2), ms(1)), Rate(0));

        // Periodic: 12 Mbit/s for 1 ms of every 2 ms. [0.5 ms, 4.5 ms) holds on-time
        // 0.5 + 1 + 0.5 = 2 ms = 3000 B, a mean of 24 000 bit / 4 ms = 6 Mbit/s.
        let p = RateTrace::from_csv("time_s,rate_mbps\n0,12\n0.001,0\n")
            .unwrap()
            .with_period(ms(2))
            .unwrap();
        assert_eq!(p.capacity_bytes(us(500), us(4500)), 3000);
        assert_eq!(p.mean_rate(us(500), us(4500)), Rate::mbps(6));
        // 1 s holds 500 on-phases: 750 000 B.
        assert_eq!(
            p.capacity_bytes(SimTime::ZERO, SimTime::from_secs(1)),
            750_000
        );
    }

    #[test]
    fn capacity_and_mean_rate_of_mahimahi_traces() {
        let t = mm_133();
        // [0, 3 ms) holds the two 1 ms opportunities; [0, 3 ms + 1 ns) also the 3 ms one.
        assert_eq!(t.capacity_bytes(SimTime::ZERO, ms(3)), 3000);
        assert_eq!(t.capacity_bytes(SimTime::ZERO, ms(3) + SimTime(1)), 4500);
        // [1 ms, 4 ms): 1, 1, 3 ms. [3 ms, 7 ms): 3, 4, 4, 6 ms.
        assert_eq!(t.capacity_bytes(ms(1), ms(4)), 4500);
        assert_eq!(t.capacity_bytes(ms(3), ms(7)), 6000);
        // Three opportunities per 3 ms period: 36 000 bit / 3 ms = 12 Mbit/s.
        assert_eq!(t.mean_rate(ms(1), ms(4)), Rate::mbps(12));
        // Two in [0, 3 ms): 24 000 bit / 3 ms = 8 Mbit/s.
        assert_eq!(t.mean_rate(SimTime::ZERO, ms(3)), Rate::mbps(8));
        // 1000 periods of 3 opportunities each.
        assert_eq!(t.capacity_bytes(us(500), ms(3000) + us(500)), 4_500_000);

        // "0\n2\n": opportunities 0, 2, 2, 4, 4, ... [0, 2 ms) holds only 0 ms;
        // [0, 2 ms + 1 ns) adds both 2 ms ones; [2 ms, 4 ms) holds the two at 2 ms.
        let z = RateTrace::from_mahimahi("0\n2\n").unwrap();
        assert_eq!(z.capacity_bytes(SimTime::ZERO, ms(2)), 1500);
        assert_eq!(z.capacity_bytes(SimTime::ZERO, ms(2) + SimTime(1)), 4500);
        assert_eq!(z.capacity_bytes(ms(2), ms(4)), 3000);
    }

    #[test]
    fn is_constant() {
        assert_eq!(
            RateTrace::constant(Rate::mbps(5)).is_constant(),
            Some(Rate::mbps(5))
        );
        let same = RateTrace::from_csv("time_s,rate_bps\n0,7\n1,7\n").unwrap();
        assert_eq!(same.is_constant(), Some(Rate(7)));
        assert_eq!(mm_133().is_constant(), None);
        assert_eq!(RateTrace::from_mahimahi("1\n").unwrap().is_constant(), None);
    }

    // ---- export and round trips ----

    #[test]
    fn csv_round_trip() {
        let text = "time_s,rate_bps\n0,8000000\n0.0005,0\n1.25,16000000\n3,12345\n";
        let t = RateTrace::from_csv(text).unwrap();
        assert_eq!(t.to_csv(SimTime::from_secs(10)), text);
        assert_eq!(
            RateTrace::from_csv(&t.to_csv(SimTime::from_secs(10))).unwrap(),
            t
        );
        // Rows at or after `until` are dropped.
        assert_eq!(
            t.to_csv(SimTime::from_secs(1)),
            "time_s,rate_bps\n0,8000000\n0.0005,0\n"
        );
        // Other units are written in bit/s.
        let k = RateTrace::from_csv("time_s,rate_kbps\n0,1.5\n").unwrap();
        assert_eq!(k.to_csv(SimTime::from_secs(1)), "time_s,rate_bps\n0,1500\n");
    }

    #[test]
    fn periodic_csv_export_unrolls_and_merges() {
        let t = RateTrace::from_csv("time_s,rate_mbps\n0,1\n0.001,2\n")
            .unwrap()
            .with_period(ms(3))
            .unwrap();
        // Periods start at 0, 3, 6 ms: 1 Mbit/s at 0, 3, 6; 2 Mbit/s at 1, 4, 7 ms.
        assert_eq!(
            t.to_csv(ms(8)),
            "time_s,rate_bps\n0,1000000\n0.001,2000000\n0.003,1000000\n\
             0.004,2000000\n0.006,1000000\n0.007,2000000\n"
        );
        let c = RateTrace::constant(Rate(5)).with_period(ms(1)).unwrap();
        assert_eq!(c.to_csv(SimTime::from_secs(1)), "time_s,rate_bps\n0,5\n");
    }

    #[test]
    fn mahimahi_to_csv_uses_1_ms_bins() {
        // Bins: 0 ms: none; 1 ms: two (24 Mbit/s); 2 ms: none; 3 ms: one (12 Mbit/s);
        // 4 ms: two (from the wrap); 5 ms: none; 6 ms: one; until 7 ms.
        assert_eq!(
            mm_133().to_csv(ms(7)),
            "time_s,rate_bps\n0,0\n0.001,24000000\n0.002,0\n0.003,12000000\n\
             0.004,24000000\n0.005,0\n0.006,12000000\n"
        );
        // One opportunity every ms is a steady 12 Mbit/s.
        let every_ms = RateTrace::from_mahimahi("1\n").unwrap();
        assert_eq!(
            every_ms.to_csv(ms(100)),
            "time_s,rate_bps\n0,0\n0.001,12000000\n"
        );
        // Capacity carries over: 1 ms bins hold the same bytes as the opportunities.
        let csv = RateTrace::from_csv(&mm_133().to_csv(ms(30))).unwrap();
        assert_eq!(
            csv.capacity_bytes(SimTime::ZERO, ms(30)),
            mm_133().capacity_bytes(SimTime::ZERO, ms(30))
        );
    }

    #[test]
    fn mahimahi_round_trip_over_whole_periods() {
        let text = "0\n1\n1\n3\n3\n7\n";
        let t = RateTrace::from_mahimahi(text).unwrap();
        // One period: the same text.
        assert_eq!(t.to_mahimahi(ms(7)), text);
        // Three periods: the same schedule, written out with a 21 ms period.
        let three = RateTrace::from_mahimahi(&t.to_mahimahi(ms(21))).unwrap();
        assert_eq!(
            t.to_mahimahi(ms(21)),
            "0\n1\n1\n3\n3\n7\n7\n8\n8\n10\n10\n14\n14\n15\n15\n17\n17\n21\n"
        );
        for (a, b) in [(0, 21), (0, 7), (3, 50), (7, 8), (20, 100)] {
            assert_eq!(
                three.capacity_bytes(ms(a), ms(b) + SimTime(1)),
                t.capacity_bytes(ms(a), ms(b) + SimTime(1)),
                "[{a}, {b}] ms"
            );
        }
        let mut s1 = TraceServer::new(t);
        let mut s3 = TraceServer::new(three);
        let mut now = SimTime::ZERO;
        for i in 0..200u64 {
            let bytes = 200 + (i * 977) % 3000;
            let f1 = s1.serve(now, bytes);
            assert_eq!(f1, s3.serve(now, bytes));
            now = f1 + SimTime((i % 3) * 400_000);
        }
    }

    #[test]
    fn constant_12_mbps_to_mahimahi_is_one_opportunity_per_ms() {
        let t = RateTrace::constant(Rate::mbps(12));
        // 1500 B = 12 000 bit take exactly 1 ms at 12 Mbit/s: crossings at 1, 2, ... ms.
        let text = t.to_mahimahi(SimTime::from_secs(1));
        let lines: Vec<u64> = text.lines().map(|l| l.parse().unwrap()).collect();
        assert_eq!(lines, (1..=1000).collect::<Vec<u64>>());
        // Read back, it repeats every 1000 ms; [0.5 ms, 5000.5 ms) holds 5000
        // opportunities: 5000 * 12 000 bit / 5 s = 12 Mbit/s.
        let back = RateTrace::from_mahimahi(&text).unwrap();
        assert_eq!(back.mean_rate(us(500), us(5_000_500)), Rate::mbps(12));
    }

    #[test]
    fn piecewise_to_mahimahi_follows_accumulated_capacity() {
        // 6 Mbit/s for 3 ms, outage to 5 ms, 24 Mbit/s after. Crossings of 12 000 bit:
        // 2 ms; 4 ms would be in the outage, so at 5 ms + 6000/24e6 s = 5.25 ms (floor
        // 5); then every 0.5 ms: 5.75 (5), 6.25 (6), 6.75 (6), 7.25 (7), 7.75 (7), 8.25...
        let t = RateTrace::from_csv("time_s,rate_mbps\n0,6\n0.003,0\n0.005,24\n").unwrap();
        assert_eq!(t.to_mahimahi(ms(8)), "2\n5\n5\n6\n6\n7\n7\n");
        // A trace with no capacity writes nothing.
        assert_eq!(RateTrace::constant(Rate(0)).to_mahimahi(ms(10)), "");
        let off = RateTrace::constant(Rate(0)).with_period(ms(1)).unwrap();
        assert_eq!(off.to_mahimahi(ms(10)), "");
    }

    #[test]
    fn periodic_to_mahimahi() {
        // 12 Mbit/s on 1 ms of every 2 ms: one opportunity at the end of each on-phase.
        let p = RateTrace::from_csv("time_s,rate_mbps\n0,12\n0.001,0\n")
            .unwrap()
            .with_period(ms(2))
            .unwrap();
        assert_eq!(p.to_mahimahi(ms(8)), "1\n3\n5\n7\n");
    }

    #[test]
    fn fmt_secs_is_exact() {
        assert_eq!(fmt_secs(0), "0");
        assert_eq!(fmt_secs(500_000), "0.0005");
        assert_eq!(fmt_secs(2_000_000_000), "2");
        assert_eq!(fmt_secs(1_000_000_001), "1.000000001");
    }

    // ---- long traces stay fast ----

    #[test]
    fn long_mahimahi_trace_is_served_in_linear_time() {
        // 80 000 opportunities over 60 s (a few per ms, with gaps).
        let mut text = String::new();
        for i in 0..80_000u64 {
            let _ = writeln!(text, "{}", i * 60_000 / 80_000 + 1);
        }
        let t = RateTrace::from_mahimahi(&text).unwrap();
        let mut s = TraceServer::new(t);
        let mut now = SimTime::ZERO;
        let mut served = 0u64;
        // 2 000 000 packets: a run that walked the trace from the start each time would
        // take ~10^11 steps; the cursor keeps it to a couple of seconds.
        for i in 0..2_000_000u64 {
            let f = s.serve(now, 1000 + (i % 7) * 100);
            assert!(f >= now);
            served += 1;
            now = if i % 1000 == 0 { f + us(1234) } else { f };
        }
        assert_eq!(served, 2_000_000);
        // Average rate 80 000 * 12 000 bit / 60 s = 16 Mbit/s; ~2.6 GB take ~1300 s.
        assert!(now > SimTime::from_secs(1000), "{now}");
    }

    // ---- property tests ----

    /// Opportunity-by-opportunity replay of Mahimahi's link queue loop, given packet
    /// arrival times: each opportunity gives 1500 B to queued packets that arrived by
    /// its time, in order, and unused bytes are dropped.
    fn mahimahi_reference(opps_ms: &[u64], packets: &[(u64, u64)]) -> Vec<u64> {
        let period_ns = opps_ms.last().unwrap() * NS_PER_MS;
        let mut finishes = Vec::new();
        let mut next = 0; // next packet to dequeue
        let mut in_transit: Option<u64> = None;
        'cycles: for cycle in 0u64.. {
            for &o in opps_ms {
                let t = cycle * period_ns + o * NS_PER_MS;
                let mut left = OPPORTUNITY_BYTES;
                while left > 0 {
                    let rem = match in_transit {
                        Some(r) => r,
                        None => {
                            if next < packets.len() && packets[next].0 <= t {
                                next += 1;
                                packets[next - 1].1
                            } else {
                                break;
                            }
                        }
                    };
                    let sent = rem.min(left);
                    left -= sent;
                    if rem == sent {
                        finishes.push(t);
                        in_transit = None;
                        if finishes.len() == packets.len() {
                            break 'cycles;
                        }
                    } else {
                        in_transit = Some(rem - sent);
                    }
                }
            }
        }
        finishes
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn piecewise_finish_agrees_with_capacity(
            rows in prop::collection::vec(
                (
                    1u64..2_000_000,
                    prop_oneof![Just(0u64), 1u64..1_000, 1u64..20_000_000_000],
                ),
                1..8,
            ),
            period_tail in prop::option::of(1u64..3_000_000),
            packets in prop::collection::vec(
                (
                    prop_oneof![Just(0u64), 0u64..4_000_000],
                    prop_oneof![1u64..30_000, 1u64..3_000_000],
                ),
                1..60,
            ),
        ) {
            let mut text = String::from("time_s,rate_bps\n");
            let mut t_ns = 0;
            for &(dur_ns, rate_bps) in &rows {
                let _ = writeln!(text, "{},{rate_bps}", fmt_secs(t_ns));
                t_ns += dur_ns;
            }
            let last_start_ns = t_ns - rows.last().unwrap().0;
            let mut trace = RateTrace::from_csv(&text).unwrap();
            if let Some(tail) = period_tail {
                trace = trace.with_period(SimTime(last_start_ns + tail)).unwrap();
            }
            prop_assert_eq!(RateTrace::from_csv(&trace.to_csv(SimTime(t_ns))).unwrap()
                .capacity_bytes(SimTime::ZERO, SimTime(t_ns)),
                trace.capacity_bytes(SimTime::ZERO, SimTime(t_ns)));
            let mut server = TraceServer::new(trace.clone());
            let mut now = SimTime::ZERO;
            for &(gap_ns, bytes) in &packets {
                let start = now + SimTime(gap_ns);
                let finish = server.serve(start, bytes);
                if finish == SimTime::NEVER {
                    prop_assert!(trace.capacity_bytes(start, SimTime(u64::MAX - 1)) < bytes);
                    break;
                }
                prop_assert!(finish >= start);
                prop_assert!(trace.capacity_bytes(start, finish + SimTime(1)) >= bytes);
                // The stronger form: the fluid finish, rounded up, already holds it all.
                prop_assert!(trace.capacity_bytes(start, finish) >= bytes);
                if finish > start {
                    prop_assert!(trace.capacity_bytes(start, finish - SimTime(1)) < bytes);
                }
                now = finish;
            }
        }

        #[test]
        fn mahimahi_server_matches_a_replay_of_mahimahi(
            steps in prop::collection::vec(0u64..3, 1..12),
            first in 0u64..3,
            packets in prop::collection::vec(
                (
                    prop_oneof![Just(0u64), Just(1_000_000u64), 0u64..9_000_000],
                    prop_oneof![
                        4 => 1u64..5000,
                        1 => 1u64..200_000,
                        1 => (1u64..100).prop_map(|k| k * OPPORTUNITY_BYTES),
                    ],
                ),
                1..80,
            ),
        ) {
            let mut opps_ms = Vec::new();
            let mut t = first;
            for s in steps {
                t += s;
                opps_ms.push(t);
            }
            if *opps_ms.last().unwrap() == 0 {
                opps_ms.push(1);
            }
            let text: String = opps_ms.iter().map(|o| format!("{o}\n")).collect();
            let trace = RateTrace::from_mahimahi(&text).unwrap();
            // Arrivals: each packet arrives `gap` after the previous one arrived.
            let mut arrivals = Vec::new();
            let mut a = 0u64;
            for &(gap_ns, bytes) in &packets {
                a += gap_ns;
                arrivals.push((a, bytes));
            }
            let expected = mahimahi_reference(&opps_ms, &arrivals);
            let mut server = TraceServer::new(trace);
            let mut prev_finish = 0u64;
            for (i, &(arrival, bytes)) in arrivals.iter().enumerate() {
                let start = arrival.max(prev_finish);
                let finish = server.serve(SimTime(start), bytes).ns();
                prop_assert_eq!(finish, expected[i], "packet {}", i);
                prev_finish = finish;
            }
        }
    }

    #[test]
    fn invisible_characters_are_shown_by_their_code_point() {
        let e = RateTrace::from_csv("\u{feff}time_s,rate_mbps\n0,10\n").unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("`<U+FEFF>time_s`"), "{e}");
        assert!(e.message.contains("byte-order mark"), "{e}");
        let e = RateTrace::from_csv("time_s,rate_mbps\n0,1\u{200b}0\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("`1<U+200B>0`"), "{e}");
        assert!(e.message.contains("invisible"), "{e}");
        let e = RateTrace::from_csv("time_s,rate_mbps\n0,1\u{a0}0\n").unwrap_err();
        assert!(e.message.contains("`1<U+00A0>0`"), "{e}");
    }
}
