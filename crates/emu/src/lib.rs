//! mmtsim's real-time link emulator: the same link model as the simulator, driven by the
//! wall clock and fed by real packets.
//!
//! ```text
//!  netns "snd"                         mmtsim-emu                          netns "rcv"
//!  kernel TCP ─► tun(snd) ─► read ─► [forward LinkModel] ─► Pipe ─► write ─► tun(rcv) ─► kernel TCP
//!             ◄─ tun(snd) ◄─ write ◄─ Pipe ◄─ [reverse LinkModel] ◄─ read ◄─ tun(rcv) ◄─
//! ```
//!
//! The crate keeps three jobs apart so that a future real-time mode (real applications
//! through mmtsim's simulated RAN) can replace any one of them:
//!
//! - [`link`]: the *model* of one direction, sans-IO: "a packet of n bytes arrives at model
//!   time t" → "it reaches the far end at t'" or "it is dropped". It reuses
//!   `mmtsim-net`'s [`TraceServer`](mmtsim_net::trace::TraceServer) so that service over
//!   a rate trace (CSV fluid or Mahimahi opportunities) is exactly the simulator's, and
//!   counts a packet's bytes as the simulator does (the IP packet, headers included).
//! - [`clock`]: where model time 0 lies on the wall clock: at the first TCP SYN
//!   (parsed from its IPv4 header), so a trace starts when the connection does.
//! - [`tun`]: TUN devices (`IFF_TUN | IFF_NO_PI`, so a read is exactly one IP packet).
//! - [`forwarder`]: the real-time loop: polls both TUN fds, offers packets to the models,
//!   holds them until their departure instant, writes them out and measures how late.
//! - [`stats`]: counters and lateness percentiles, written as JSON.
//! - [`rawpcap`]: a pcap file of the real IP packets crossing the TUN devices, headers only.
//! - [`realflows`]: per-connection records of real TCP flows (goodput bins, RTT,
//!   retransmissions) from the packets where they enter and leave the simulation.
//! - [`args`]: command-line parsing of the `mmtsim-emu` binary.
//!
//! # Simplifications
//! - A packet's arrival time is when the loop reads it from the TUN fd, not when the kernel
//!   queued it; the difference (scheduling and syscall latency, typically a few µs) adds
//!   to the path delay.
//! - Departures are as precise as the host's timers: the loop sleeps until shortly before
//!   a departure and spins the rest; the lateness it measures is reported, not corrected.
//! - No loss, reordering or duplication impairments, no CoDel: drop-tail only.
#![warn(missing_docs)]

pub mod args;
pub mod clock;
pub mod forwarder;
pub mod link;
pub mod rawpcap;
pub mod realflows;
pub mod stats;
pub mod tun;
