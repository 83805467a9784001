//! Real-time emulation of a whole scenario: real IP packets from two TUN devices cross
//! the simulated network (the UE's radio, the core, the wired links) and are written out
//! at their simulated arrival instants, with the run paced to the wall clock.
//!
//! ```text
//!  UE namespace                     this loop (one thread)                 server side
//!  kernel ─► tun(UE) ─► read ─► inject at the UE node ─► … Stepper … ─► egress at the server node ─► write ─► tun(server)
//!        ◄─ tun(UE) ◄─ write ◄─ egress at the UE node ◄─ … Stepper … ◄─ inject at the server node ◄─ read ◄─
//! ```
//!
//! Simulated time 0 is the instant [`Driver::run`] starts: the RAN's slots, the channel
//! and any background flows of the scenario run from there, whatever the real
//! applications do. Each turn of the loop, with `t` the wall clock's simulated instant:
//!
//! 1. every event due at or before `t` is dispatched ([`Stepper::run_until`]);
//! 2. up to [`READ_BATCH`] packets are read from each device and injected at `t` (never
//!    earlier: the events before `t` have already happened, so an injection at `t` is
//!    causal), then the events they made due at `t` are dispatched;
//! 3. every packet that reached the UE or the server node is written to that side's
//!    device; its *lateness* is the wall time of the write minus its simulated arrival;
//! 4. the loop sleeps in `ppoll` on both devices until [`SPIN_NS`] before the next event
//!    and spins the rest, as the link forwarder does ([`crate::forwarder`]).
//!
//! **Lag.** Each turn that finds events due records how long after its instant the
//! oldest of them was dispatched. Lag above the bound for longer than the grace period
//! is a *lag episode*: it is reported as a warning with its figures, and with `strict`
//! the run stops. Time is never stretched to hide it.
//!
//! Percentiles of lateness and lag come from HDR histograms (3 significant digits), so
//! memory stays constant however long the emulation runs.
//!
//! # Simplifications
//! - A packet read in a turn enters the network at the turn's instant `t`, up to one turn
//!   (a few µs when busy) before the kernel handed it over: the same error as the
//!   forwarder's read time, in the other direction.
//! - With offloads (the default), the devices carry the virtio-net header: the sending
//!   kernel hands over TCP super-packets of up to 64 kB, split here into the segments it
//!   would have sent (each enters the network as one packet), and the segments of a
//!   connection that arrive in one turn are merged into one write ([`crate::offload`]);
//!   the receiving kernel sees the same bytes. One thread does everything.
//! - Routing ignores the IP addresses inside the bytes: whatever the UE's device gives
//!   goes to the server node and the other way round.

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use hdrhistogram::Histogram;
use mmtsim_engine::ids::NodeId;
use mmtsim_engine::SimTime;
use mmtsim_world::{Column, RunError, RunOutput, Stepper, Table};
use serde_json::{json, Value};

use crate::clock::monotonic_ns;
pub use crate::ends::resolve_ends;
use crate::forwarder::{set_timer_slack_1ns, SPIN_NS};
use crate::offload::{CoalesceStats, Coalescer, SegmentStats, Segmenter, MAX_FRAME_BYTES};
use crate::rawpcap::RawPcap;
use crate::realflows::{Point, RealFlowTables, RealFlows};
use crate::tun::Tun;

/// Packets read from one device per turn. Large, because a kernel sender in slow start
/// writes thousands of segments into the device in a few milliseconds (the device orphans
/// them, so TCP Small Queues do not hold the socket back) and the device drops what its
/// queue cannot hold; bounded, so that the run and the writes still get their turn.
pub const READ_BATCH: usize = 256;
/// Longest sleep, ns, so that a stop request is seen promptly.
const MAX_SLEEP_NS: u64 = 10_000_000;
/// Read buffer: a whole frame of an offload device (header and a 64 kB super-packet).
const READ_BUF_BYTES: usize = MAX_FRAME_BYTES;
/// Highest value the histograms hold, ns (one hour); larger values are clamped.
const HIST_MAX_NS: u64 = 3_600_000_000_000;

/// Settings of an emulation.
#[derive(Clone, Debug)]
pub struct Config {
    /// Lag above this is a problem, ns.
    pub max_lag_ns: u64,
    /// Lag above the bound for longer than this is reported (an episode), ns.
    pub lag_grace_ns: u64,
    /// Stop at the first lag episode.
    pub strict: bool,
    /// Where to write the pcap of the UE's device, if anywhere.
    pub pcap: Option<PathBuf>,
    /// Where to write the pcap of the server side's device, if anywhere.
    pub server_pcap: Option<PathBuf>,
    /// Bytes of each packet kept in the pcap.
    pub snaplen: u32,
    /// Bin of the real flows' goodput series, ns.
    pub goodput_bin_ns: u64,
    /// Most RTT rows kept per real flow (0: every sample); see `realflows`.
    pub rtt_budget: usize,
    /// Run the loop's thread on this CPU only (none: wherever the scheduler puts it).
    pub cpu: Option<usize>,
}

/// Why the loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// `stop` was set.
    Requested,
    /// The scenario's end was reached.
    End,
    /// A lag episode with `strict`.
    Lag,
}

impl Stopped {
    fn as_str(self) -> &'static str {
        match self {
            Stopped::Requested => "request",
            Stopped::End => "scenario end",
            Stopped::Lag => "lag bound (strict)",
        }
    }
}

/// One side of the emulation: its device and what was read from and written to it.
struct Side {
    tun: Tun,
    node: NodeId,
    read_packets: u64,
    read_bytes: u64,
    written_packets: u64,
    written_bytes: u64,
    write_errors: u64,
    max_read_bytes: u64,
    /// Lateness of writes to this side, ns.
    lateness: Histogram<u64>,
    /// With offloads: the device's super-packets split into MTU-sized packets on reads,
    /// and consecutive segments merged on writes (`crate::offload`).
    offload: Option<(Segmenter, Coalescer)>,
    /// Simulated arrival instants of the packets written this turn, ns, for lateness.
    turn_arrivals: Vec<u64>,
    /// The pcap of this device's packets, both ways, if one is written.
    pcap: Option<RawPcap>,
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, HIST_MAX_NS, 3).expect("valid bounds")
}

fn hist_json(h: &Histogram<u64>) -> Value {
    if h.is_empty() {
        return json!({"samples": 0, "p50_us": null, "p99_us": null, "p999_us": null, "max_us": null});
    }
    let us = |ns: u64| ns as f64 / 1e3;
    json!({
        "samples": h.len(),
        "p50_us": us(h.value_at_quantile(0.5)),
        "p99_us": us(h.value_at_quantile(0.99)),
        "p999_us": us(h.value_at_quantile(0.999)),
        "max_us": us(h.max()),
        "mean_us": h.mean() / 1e3,
    })
}

/// The emulation of one scenario between two devices.
pub struct Driver<'a> {
    stepper: Stepper<'a>,
    /// `sides[0]` is the UE's device, `sides[1]` the server's.
    sides: [Side; 2],
    cfg: Config,
    flows: RealFlows,
    /// Lag of the turns that found events due, ns.
    lag: Histogram<u64>,
    /// Wall instant (monotonic) from which lag has stayed above the bound.
    behind_since: Option<u64>,
    episodes: u64,
    longest_episode_ns: u64,
    warnings: Vec<String>,
    /// Monotonic and real-time clocks at simulated time 0.
    t0: u64,
    t0_realtime_ns: u64,
    stopped: Option<Stopped>,
    turns: u64,
    wall_s: f64,
}

impl<'a> Driver<'a> {
    /// A driver of `stepper` (nothing dispatched yet) between the UE's device and the
    /// server's, for the nodes `ue` and `server`.
    pub fn new(
        stepper: Stepper<'a>,
        ue_tun: Tun,
        server_tun: Tun,
        ue: NodeId,
        server: NodeId,
        cfg: Config,
    ) -> io::Result<Self> {
        let open = |path: &Option<PathBuf>| match path {
            Some(p) => RawPcap::create(p, cfg.snaplen).map(Some),
            None => Ok(None),
        };
        let (ue_pcap, server_pcap) = (open(&cfg.pcap)?, open(&cfg.server_pcap)?);
        let side = |tun: Tun, node, pcap| Side {
            offload: (tun.vnet_hdr_bytes() > 0).then(|| (Segmenter::new(), Coalescer::new())),
            tun,
            node,
            read_packets: 0,
            read_bytes: 0,
            written_packets: 0,
            written_bytes: 0,
            write_errors: 0,
            max_read_bytes: 0,
            lateness: histogram(),
            turn_arrivals: Vec::new(),
            pcap,
        };
        Ok(Driver {
            stepper,
            sides: [
                side(ue_tun, ue, ue_pcap),
                side(server_tun, server, server_pcap),
            ],
            flows: RealFlows::new(cfg.goodput_bin_ns).with_rtt_budget(cfg.rtt_budget),
            cfg,
            lag: histogram(),
            behind_since: None,
            episodes: 0,
            longest_episode_ns: 0,
            warnings: Vec::new(),
            t0: 0,
            t0_realtime_ns: 0,
            stopped: None,
            turns: 0,
            wall_s: 0.0,
        })
    }

    /// Runs until `stop` is set, the scenario ends, or (strict) a lag episode.
    pub fn run(&mut self, stop: &AtomicBool) -> io::Result<Stopped> {
        set_timer_slack_1ns();
        if let Some(cpu) = self.cfg.cpu {
            if let Err(e) = pin_to_cpu(cpu) {
                self.warnings
                    .push(format!("cannot pin the emulation to CPU {cpu}: {e}"));
            }
        }
        let mut buf = vec![0u8; READ_BUF_BYTES];
        let mut fds = [0, 1].map(|i| libc::pollfd {
            fd: self.sides[i].tun.fd(),
            events: libc::POLLIN,
            revents: 0,
        });
        self.t0_realtime_ns = realtime_ns();
        self.t0 = monotonic_ns();
        let end = self.stepper.end();
        let result = loop {
            if stop.load(Ordering::Relaxed) {
                break Ok(Stopped::Requested);
            }
            self.turns += 1;
            let t = SimTime::from_ns(monotonic_ns() - self.t0);
            if t >= end {
                if let Err(e) = self.dispatch(end) {
                    break Err(e);
                }
                self.write_egress();
                break Ok(Stopped::End);
            }
            if let Err(e) = self.dispatch(t) {
                break Err(e);
            }
            if self.lag_episode() && self.cfg.strict {
                break Ok(Stopped::Lag);
            }
            if let Err(e) = self.read_all(t, &mut buf) {
                break Err(e);
            }
            if let Err(e) = self.stepper.run_until(t) {
                break Err(io::Error::other(e.to_string()));
            }
            self.write_egress();
            if let Err(e) = self.wait(&mut fds) {
                break Err(e);
            }
        };
        self.wall_s = (monotonic_ns() - self.t0) as f64 / 1e9;
        if let Some(since) = self.behind_since.take() {
            self.close_episode(monotonic_ns() - since);
        }
        let stopped = result?;
        self.stopped = Some(stopped);
        Ok(stopped)
    }

    /// Dispatches the events due by `t` and records the lag of the oldest.
    fn dispatch(&mut self, t: SimTime) -> io::Result<()> {
        let due = self.stepper.next_event().filter(|&n| n <= t);
        self.stepper
            .run_until(t)
            .map_err(|e| io::Error::other(e.to_string()))?;
        if let Some(n) = due {
            let now = monotonic_ns();
            let lag = now.saturating_sub(self.t0 + n.ns());
            self.lag.saturating_record(lag.max(1));
            if lag > self.cfg.max_lag_ns {
                self.behind_since.get_or_insert(now);
            } else if let Some(since) = self.behind_since.take() {
                self.close_episode(now - since);
            }
        }
        Ok(())
    }

    /// True while lag has stayed above the bound for longer than the grace period.
    fn lag_episode(&self) -> bool {
        self.behind_since
            .is_some_and(|s| monotonic_ns() - s > self.cfg.lag_grace_ns)
    }

    fn close_episode(&mut self, length_ns: u64) {
        if length_ns > self.cfg.lag_grace_ns {
            self.episodes += 1;
            self.longest_episode_ns = self.longest_episode_ns.max(length_ns);
            if self.warnings.len() < 20 {
                self.warnings.push(format!(
                    "the emulation fell behind the wall clock by more than {:.3} ms for {:.1} ms \
                     ending {:.3} s into the run: packets then left late and the path looked slower \
                     than the scenario",
                    self.cfg.max_lag_ns as f64 / 1e6,
                    length_ns as f64 / 1e6,
                    (monotonic_ns() - self.t0) as f64 / 1e9,
                ));
            }
        }
    }

    /// Reads a batch from each device and injects it at `t` (an offload device's
    /// super-packets split into the segments the sender's kernel would have sent).
    fn read_all(&mut self, t: SimTime, buf: &mut [u8]) -> io::Result<()> {
        let Driver {
            stepper,
            sides,
            flows,
            t0_realtime_ns,
            ..
        } = self;
        for i in 0..2 {
            let (from, to) = (sides[i].node, sides[1 - i].node);
            let point = if i == 0 {
                Point::UeRead
            } else {
                Point::ServerRead
            };
            let mut pcap_error = None;
            let Side {
                tun,
                offload,
                pcap,
                read_packets,
                read_bytes,
                max_read_bytes,
                ..
            } = &mut sides[i];
            let mut take = |packet: &[u8]| {
                flows.observe(t.ns(), point, packet);
                if let Some(p) = pcap.as_mut() {
                    if let Err(e) = p.write(*t0_realtime_ns + t.ns(), packet) {
                        pcap_error.get_or_insert(e);
                    }
                }
                stepper.inject(t, from, to, packet);
            };
            for _ in 0..READ_BATCH {
                let Some(len) = tun.recv(buf)? else {
                    break;
                };
                *read_packets += 1;
                *read_bytes += len as u64;
                *max_read_bytes = (*max_read_bytes).max(len as u64);
                match offload {
                    // A refused frame (not IPv4 TCP or plain, malformed) is counted by the
                    // segmenter and dropped, as a device would.
                    Some((seg, _)) => {
                        let _ = seg.segment_frame(&mut buf[..len], &mut take);
                    }
                    None => take(&buf[..len]),
                }
            }
            if let Some(e) = pcap_error {
                return Err(e);
            }
        }
        Ok(())
    }

    /// Writes every packet that reached the UE or the server node to its device (on an
    /// offload device, consecutive segments of a connection merged into super-packets).
    fn write_egress(&mut self) {
        let Driver {
            stepper,
            sides,
            flows,
            t0,
            t0_realtime_ns,
            warnings,
            ..
        } = self;
        stepper.drain_egress(|at, node, bytes| {
            let i = if node == sides[0].node { 0 } else { 1 };
            let point = if i == 0 {
                Point::UeWrite
            } else {
                Point::ServerWrite
            };
            flows.observe(at.ns(), point, bytes);
            let s = &mut sides[i];
            if let Some(p) = &mut s.pcap {
                if let Err(e) = p.write(*t0_realtime_ns + at.ns(), bytes) {
                    if warnings.len() < 20 {
                        warnings.push(format!("writing the pcap failed: {e}"));
                    }
                    s.pcap = None;
                }
            }
            s.written_packets += 1;
            s.written_bytes += bytes.len() as u64;
            let Side {
                tun,
                offload,
                write_errors,
                turn_arrivals,
                lateness,
                ..
            } = s;
            match offload {
                Some((_, co)) => {
                    turn_arrivals.push(at.ns());
                    co.push(bytes, &mut |frame: &[u8]| {
                        send_counted(tun, write_errors, frame)
                    });
                }
                None => {
                    send_counted(tun, write_errors, bytes);
                    let late = monotonic_ns().saturating_sub(*t0 + at.ns());
                    lateness.saturating_record(late.max(1));
                }
            }
        });
        for s in sides.iter_mut() {
            let Side {
                tun,
                offload,
                write_errors,
                turn_arrivals,
                lateness,
                ..
            } = s;
            if let Some((_, co)) = offload {
                co.flush(&mut |frame: &[u8]| send_counted(tun, write_errors, frame));
                let now = monotonic_ns();
                for &at in turn_arrivals.iter() {
                    lateness.saturating_record(now.saturating_sub(*t0 + at).max(1));
                }
                turn_arrivals.clear();
            }
        }
    }

    /// Sleeps until shortly before the next event, or until input arrives.
    fn wait(&mut self, fds: &mut [libc::pollfd; 2]) -> io::Result<()> {
        let now = monotonic_ns() - self.t0;
        let next = self
            .stepper
            .next_event()
            .map_or(self.stepper.end().ns(), |n| n.ns());
        let sleep_ns = next
            .saturating_sub(now)
            .min(MAX_SLEEP_NS)
            .saturating_sub(SPIN_NS);
        let ts = libc::timespec {
            tv_sec: (sleep_ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (sleep_ns % 1_000_000_000) as libc::c_long,
        };
        for f in fds.iter_mut() {
            f.revents = 0;
        }
        // SAFETY: `fds` is a valid array of two pollfd; `ts` outlives the call; a null
        // signal mask keeps the current one.
        let n = unsafe { libc::ppoll(fds.as_mut_ptr(), 2, &ts, std::ptr::null()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::Interrupted {
                Ok(())
            } else {
                Err(e)
            };
        }
        for (i, f) in fds.iter().enumerate() {
            if f.revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0 {
                return Err(io::Error::other(format!(
                    "TUN device {} failed (poll events {:#x})",
                    self.sides[i].tun.name(),
                    f.revents
                )));
            }
        }
        Ok(())
    }

    /// Ends the run where it stands: the scenario's summary and tables (the run ends at
    /// the last simulated instant reached), the real flows' tables, and the report.
    pub fn finish(mut self) -> Result<(RunOutput, Value), RunError> {
        let reached = SimTime::from_ns((self.wall_s * 1e9) as u64);
        self.stepper.end_at(reached);
        for s in &mut self.sides {
            if let Some(p) = s.pcap.take() {
                if let Err(e) = p.finish() {
                    self.warnings.push(format!("writing the pcap failed: {e}"));
                }
            }
        }
        let report = self.report();
        let flows_json = self.flows.summary_json();
        let tables = self.flows.columns();
        let mut out = self.stepper.finish()?;
        out.summary["real_flows"] = flows_json;
        out.tables.extend(real_tables(tables));
        Ok((out, report))
    }

    fn report(&self) -> Value {
        let c = self.stepper.external_counts();
        let side = |s: &Side| {
            json!({
                "node": self.stepper.node_name(s.node),
                "device": s.tun.name(),
                "read_packets": s.read_packets,
                "read_bytes": s.read_bytes,
                "written_packets": s.written_packets,
                "written_bytes": s.written_bytes,
                "write_errors": s.write_errors,
                "largest_read_bytes": s.max_read_bytes,
                "lateness": hist_json(&s.lateness),
                "offload": s.offload.as_ref().map(|(seg, co)| offload_json(seg.stats(), co.stats())),
            })
        };
        let mut all = histogram();
        for s in &self.sides {
            all.add(&s.lateness).expect("same bounds");
        }
        json!({
            "ue": side(&self.sides[0]),
            "server": side(&self.sides[1]),
            "wall_seconds": self.wall_s,
            "started_unix_ns": self.t0_realtime_ns,
            "started_monotonic_ns": self.t0,
            "stopped_by": self.stopped.map(Stopped::as_str),
            "turns": self.turns,
            "packets": {
                "injected": c.injected,
                "delivered": c.delivered,
                "dropped": c.dropped,
                "duplicated": c.duplicated,
                "after_end": c.after_end,
            },
            "lateness": hist_json(&all),
            "lag": {
                "bound_us": self.cfg.max_lag_ns as f64 / 1e3,
                "grace_ms": self.cfg.lag_grace_ns as f64 / 1e6,
                "episodes": self.episodes,
                "longest_episode_ms": self.longest_episode_ns as f64 / 1e6,
                "turns": hist_json(&self.lag),
            },
            "kernel": kernel_release(),
            "cpu": self.cfg.cpu,
            "warnings": self.warnings,
            "deterministic": false,
            "note": "an emulation depends on the wall clock and the kernel: only its simulated \
                     parts (the channel's draws, background flows) follow the seed",
        })
    }
}

/// The real flows' tables under the names a run folder gives them: `real_flows`,
/// `real_goodput` and `real_rtt` (the last two shaped as the simulator's `goodput` and
/// `rtt`, so that a plot draws them the same way).
fn real_tables(t: RealFlowTables) -> Vec<Table> {
    let (u32c, u64c) = (Column::u32, Column::u64);
    let f = t.flows;
    vec![
        Table {
            name: "real_flows",
            columns: vec![
                u32c("flow", f.flow),
                u32c("src_ip", f.src_ip),
                u32c("src_port", f.src_port),
                u32c("dst_ip", f.dst_ip),
                u32c("dst_port", f.dst_port),
                u32c("uplink", f.uplink),
                u64c("bytes", f.bytes),
                u64c("packets", f.packets),
                u64c("retransmits", f.retransmits),
                u64c("first_ns", f.first_ns),
                u64c("last_ns", f.last_ns),
            ],
        },
        Table {
            name: "real_goodput",
            columns: vec![
                u32c("flow", t.goodput.flow),
                Column::f64("t_s", t.goodput.t_s),
                Column::f64("goodput_mbps", t.goodput.goodput_mbps),
            ],
        },
        Table {
            name: "real_rtt",
            columns: vec![
                u32c("flow", t.rtt.flow),
                u64c("t_ns", t.rtt.t_ns),
                u32c("rtt_us", t.rtt.rtt_us),
            ],
        },
    ]
}

/// Writes one frame; a refused write is counted, not fatal (the kernel takes a TUN write
/// whole or not at all, and a lost packet is what a real link would make of it).
fn send_counted(tun: &Tun, write_errors: &mut u64, frame: &[u8]) {
    if tun.send(frame).is_err() {
        *write_errors += 1;
    }
}

/// What the offloads of one device did.
fn offload_json(seg: SegmentStats, co: CoalesceStats) -> Value {
    json!({
        "frames_read": seg.frames,
        "super_packets_read": seg.super_packets,
        "packets_from_reads": seg.packets_out,
        "refused_frames": seg.refused,
        "largest_packet_read_bytes": seg.max_packet_bytes,
        "frames_written": co.frames,
        "super_packets_written": co.super_frames,
        "segments_merged": co.merged_segments,
    })
}

/// Restricts the calling thread to `cpu`.
fn pin_to_cpu(cpu: usize) -> io::Result<()> {
    // SAFETY: a zeroed cpu_set_t is an empty set; CPU_SET writes inside it (it checks the
    // index against the set's size); pid 0 is the calling thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if cpu >= 8 * std::mem::size_of::<libc::cpu_set_t>() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "no such CPU"));
        }
        libc::CPU_SET(cpu, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// `CLOCK_REALTIME` now, ns since the Unix epoch (pcap time stamps).
fn realtime_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The running kernel's release (`uname -r`).
pub fn kernel_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}
