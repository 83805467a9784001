//! The real-time loop: packets read from one TUN device go through that direction's
//! [`LinkModel`] and are written to the other device at their model departure instant.
//!
//! One thread serves both directions. Each turn it writes every packet whose instant has
//! come, then waits for input with `ppoll` until shortly before the next departure
//! ([`SPIN_NS`]), and spins (polling without blocking) for the rest, because a sleeping
//! thread wakes up tens of µs late while a spinning one does not. Timer slack is set to
//! 1 ns (`PR_SET_TIMERSLACK`) so that a sleep ends when asked. Departures of one
//! direction are FIFO (drop-tail service, constant delay), so each direction's pending
//! packets form a queue ordered by departure and only its head is ever due.
//!
//! The loop measures its own lateness: the wall time of each write minus the departure
//! instant the model gave. It does not correct for it. Departures at or after the end of
//! the measured run ([`Forwarder::judge_lateness_until`]) are counted but not judged:
//! after a sender stops, a deep queue drains for seconds and the closed socket answers
//! every ACK that still reaches it with a reset, so hundreds of 40-byte resets can be
//! due within a few µs of each other — faster than the receiver's stack takes them —
//! which says nothing about the run the harness measures.

use std::collections::VecDeque;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{json, Value};

use crate::clock::{monotonic_ns, TraceClock};
use crate::link::{LinkModel, Verdict};
use crate::stats::{DirStats, Lateness};
use crate::tun::Tun;

/// Spin instead of sleeping when the next departure is this close, ns.
pub const SPIN_NS: u64 = 60_000;
/// Longest sleep, ns, so that a stop request or the wall-time limit is seen promptly.
const MAX_SLEEP_NS: u64 = 10_000_000;
/// Packets read from one device per turn, so that departures are never starved by input.
const READ_BATCH: usize = 32;
/// Read buffer: larger than any packet a TUN device can hand over.
const READ_BUF_BYTES: usize = 65_536;

/// One direction: its model, the packets it holds and its counters.
struct Direction {
    model: LinkModel,
    /// Accepted packets and their departure instants (wall ns), in departure order.
    pending: VecDeque<(u64, Vec<u8>)>,
    stats: DirStats,
    lateness: Lateness,
}

impl Direction {
    fn new(model: LinkModel) -> Self {
        Direction {
            model,
            pending: VecDeque::new(),
            stats: DirStats::default(),
            lateness: Lateness::default(),
        }
    }

    fn hold(&mut self, due_ns: u64, packet: Vec<u8>) {
        // Keeps the pending queue ordered even if a packet accepted before the clock
        // started (delay only) would be due after one accepted after it.
        let due_ns = self
            .pending
            .back()
            .map_or(due_ns, |&(last, _)| due_ns.max(last));
        self.pending.push_back((due_ns, packet));
    }

    fn report_json(&mut self) -> Value {
        let mut v = self.stats.to_json();
        v["lateness"] = self.lateness.to_json();
        v
    }
}

/// The emulator: two TUN devices and the two directions between them.
pub struct Forwarder {
    /// `tuns[0]` is the sender's side (forward ingress), `tuns[1]` the receiver's.
    tuns: [Tun; 2],
    /// `dirs[0]` forward (tuns[0] → tuns[1]), `dirs[1]` reverse.
    dirs: [Direction; 2],
    clock: TraceClock,
    pool: Vec<Vec<u8>>,
    all_lateness: Lateness,
    /// Departures whose model instant is at or after this (ns) are not judged.
    lateness_until_ns: Option<u64>,
    /// Departures written after `lateness_until_ns`, not in the lateness samples.
    unjudged_departures: u64,
    started_ns: u64,
    ended_ns: u64,
}

impl Forwarder {
    /// A forwarder between `snd` (forward ingress) and `rcv`.
    pub fn new(snd: Tun, rcv: Tun, forward: LinkModel, reverse: LinkModel) -> Self {
        Forwarder {
            tuns: [snd, rcv],
            dirs: [Direction::new(forward), Direction::new(reverse)],
            clock: TraceClock::default(),
            pool: Vec::new(),
            all_lateness: Lateness::default(),
            lateness_until_ns: None,
            unjudged_departures: 0,
            started_ns: 0,
            ended_ns: 0,
        }
    }

    /// Judges the lateness of departures whose model instant is before `until_ns` only
    /// (the end of the measured run); later ones are counted as unjudged.
    pub fn judge_lateness_until(&mut self, until_ns: u64) {
        self.lateness_until_ns = Some(until_ns);
    }

    /// Runs until `stop` is set or the wall clock passes `until_ns` (monotonic).
    pub fn run(&mut self, stop: &AtomicBool, until_ns: Option<u64>) -> io::Result<()> {
        set_timer_slack_1ns();
        self.started_ns = monotonic_ns();
        let mut buf = vec![0u8; READ_BUF_BYTES];
        let mut fds = [
            libc::pollfd {
                fd: self.tuns[0].fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: self.tuns[1].fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        loop {
            let now = monotonic_ns();
            if stop.load(Ordering::Relaxed) || until_ns.is_some_and(|u| now >= u) {
                break;
            }
            self.write_due(now);
            let next_due = self
                .dirs
                .iter()
                .filter_map(|d| d.pending.front().map(|&(due, _)| due))
                .min();
            let wait_ns =
                next_due.map_or(MAX_SLEEP_NS, |d| d.saturating_sub(now).min(MAX_SLEEP_NS));
            let sleep_ns = wait_ns.saturating_sub(SPIN_NS);
            let ts = libc::timespec {
                tv_sec: (sleep_ns / 1_000_000_000) as libc::time_t,
                tv_nsec: (sleep_ns % 1_000_000_000) as libc::c_long,
            };
            fds[0].revents = 0;
            fds[1].revents = 0;
            // SAFETY: `fds` is a valid array of two pollfd; `ts` outlives the call; a
            // null signal mask means the current one is kept.
            let n = unsafe { libc::ppoll(fds.as_mut_ptr(), 2, &ts, std::ptr::null()) };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            for (side, revents) in fds.map(|fd| fd.revents).into_iter().enumerate() {
                if revents & libc::POLLIN != 0 {
                    self.read_from(side, &mut buf)?;
                }
                if revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0 {
                    return Err(io::Error::other(format!(
                        "TUN device {} failed (poll events {:#x})",
                        self.tuns[side].name(),
                        revents
                    )));
                }
            }
        }
        self.ended_ns = monotonic_ns();
        Ok(())
    }

    /// Reads up to [`READ_BATCH`] packets from `tuns[side]` into direction `side`.
    fn read_from(&mut self, side: usize, buf: &mut [u8]) -> io::Result<()> {
        for _ in 0..READ_BATCH {
            let Some(len) = self.tuns[side].recv(buf)? else {
                return Ok(());
            };
            let now = monotonic_ns();
            let packet = &buf[..len];
            let dir = &mut self.dirs[side];
            dir.stats.rx_packets += 1;
            dir.stats.rx_bytes += len as u64;
            dir.stats.max_packet_bytes = dir.stats.max_packet_bytes.max(len as u64);
            let due_ns = match self.clock.observe(now, packet) {
                None => {
                    dir.stats.before_clock_packets += 1;
                    now + dir.model_delay_ns()
                }
                Some(model_now) => match dir.model.offer(model_now, len as u32) {
                    Verdict::Deliver { at_ns } => {
                        // The clock has started: `wall_ns` is defined.
                        self.clock.wall_ns(at_ns).unwrap_or(now)
                    }
                    Verdict::TailDrop => {
                        dir.stats.dropped_packets += 1;
                        dir.stats.dropped_bytes += len as u64;
                        continue;
                    }
                    Verdict::NoCapacity => {
                        dir.stats.no_capacity_packets += 1;
                        continue;
                    }
                },
            };
            let mut owned = self.pool.pop().unwrap_or_default();
            owned.clear();
            owned.extend_from_slice(packet);
            dir.hold(due_ns, owned);
        }
        Ok(())
    }

    /// Writes every packet whose departure instant is at or before `now`.
    fn write_due(&mut self, now: u64) {
        for side in 0..2 {
            let egress = &self.tuns[1 - side];
            let dir = &mut self.dirs[side];
            while dir.pending.front().is_some_and(|&(due, _)| due <= now) {
                let (due, packet) = dir.pending.pop_front().expect("front exists");
                let late_ns = monotonic_ns().saturating_sub(due);
                match egress.send(&packet) {
                    Ok(()) => {
                        dir.stats.forwarded_packets += 1;
                        dir.stats.forwarded_bytes += packet.len() as u64;
                    }
                    Err(_) => dir.stats.write_errors += 1,
                }
                // Packets forwarded before the clock started have no model instant: they
                // belong to the run's start and are judged.
                let after_run = self
                    .lateness_until_ns
                    .zip(self.clock.model_ns(due))
                    .is_some_and(|(until, model)| model >= until);
                if after_run {
                    self.unjudged_departures += 1;
                } else {
                    dir.lateness.record(late_ns);
                    self.all_lateness.record(late_ns);
                }
                self.pool.push(packet);
            }
        }
    }

    /// The run's report.
    pub fn report(&mut self) -> Value {
        json!({
            "tun_snd": self.tuns[0].name(),
            "tun_rcv": self.tuns[1].name(),
            "started_monotonic_ns": self.started_ns,
            "ended_monotonic_ns": self.ended_ns,
            "trace_origin_monotonic_ns": self.clock.origin_ns(),
            "forward": self.dirs[0].report_json(),
            "reverse": self.dirs[1].report_json(),
            "lateness": self.all_lateness.to_json(),
            "unjudged_departures": self.unjudged_departures,
        })
    }
}

impl Direction {
    fn model_delay_ns(&self) -> u64 {
        self.model.delay_ns()
    }
}

/// Asks the kernel to end our sleeps as close to the requested instant as it can
/// (the default slack of a normal thread is 50 µs).
pub fn set_timer_slack_1ns() {
    // SAFETY: PR_SET_TIMERSLACK takes an unsigned long and touches no memory of ours.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
}

/// Runs the calling thread as SCHED_FIFO at `priority`.
pub fn set_realtime_priority(priority: i32) -> io::Result<()> {
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: `param` is a valid sched_param; pid 0 is the calling thread.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
