//! Serving packets over a trace: [`TraceServer`] finds when each packet at the head of
//! the queue has been fully carried (fluid service of CSV traces, Mahimahi's delivery
//! opportunities).

use super::*;

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
