//! mmtsim's real-time emulation, in two modes. The *link* mode (the `mmtsim-emu` binary,
//! used by the kernel harness) replays one link model between two TUN devices. The
//! *scenario* mode ([`realtime`], driven from Python's `mmtsim emulate`) runs a whole
//! scenario paced to the wall clock, with real packets through its simulated RAN, core
//! and links.
//!
//! ```text
//!  netns "snd"                         mmtsim-emu                          netns "rcv"
//!  kernel TCP ─► tun(snd) ─► read ─► [forward LinkModel] ─► Pipe ─► write ─► tun(rcv) ─► kernel TCP
//!             ◄─ tun(snd) ◄─ write ◄─ Pipe ◄─ [reverse LinkModel] ◄─ read ◄─ tun(rcv) ◄─
//! ```
//!
//! The link mode keeps its jobs apart, and the scenario mode reuses the clock, TUN and
//! timing pieces:
//!
//! - [`link`]: the *model* of one direction, sans-IO: "a packet of n bytes arrives at model
//!   time t" → "it reaches the far end at t'" or "it is dropped". It reuses
//!   `mmtsim-net`'s [`TraceServer`](mmtsim_net::trace::TraceServer) so that service over
//!   a rate trace (CSV fluid or Mahimahi opportunities) is exactly the simulator's, and
//!   counts a packet's bytes as the simulator does (the IP packet, headers included).
//! - [`clock`]: where model time 0 lies on the wall clock: at the first TCP SYN
//!   (parsed from its IPv4 header), so a trace starts when the connection does.
//! - [`tun`]: TUN devices (`IFF_TUN | IFF_NO_PI`, so a read is exactly one IP packet),
//!   optionally with the virtio-net header and the TCP segmentation offloads.
//! - [`offload`]: sans-IO splitting of the TCP super-packets an offload device hands over
//!   and merging of consecutive segments into super-packets to write.
//! - [`forwarder`]: the real-time loop: polls both TUN fds, offers packets to the models,
//!   holds them until their departure instant, writes them out and measures how late.
//! - [`stats`]: counters and lateness percentiles, written as JSON.
//! - [`ends`]: which scenario nodes the scenario mode's two devices stand for.
//! - [`realtime`]: the scenario mode's loop: a `mmtsim_world::Stepper` paced to the wall
//!   clock, packets injected at the UE and server nodes, lateness and lag measured.
//! - [`rawpcap`]: a pcap file of the real IP packets crossing the TUN devices, headers only.
//! - [`realflows`]: per-connection records of real TCP flows (goodput bins, RTT,
//!   retransmissions) from the packets where they enter and leave the simulation.
//! - [`args`]: command-line parsing of the `mmtsim-emu` binary.
//!
//! # Simplifications of the link mode
//! - A packet's arrival time is when the loop reads it from the TUN fd, not when the kernel
//!   queued it; the difference (scheduling and syscall latency, typically a few µs) adds
//!   to the path delay.
//! - Departures are as precise as the host's timers: the loop sleeps until shortly before
//!   a departure and spins the rest; the lateness it measures is reported, not corrected.
//! - No loss, reordering or duplication impairments, no CoDel: drop-tail only.
#![warn(missing_docs)]

pub mod args;
pub mod clock;
pub mod ends;
pub mod forwarder;
pub mod link;
pub mod offload;
pub mod rawpcap;
pub mod realflows;
pub mod realtime;
pub mod stats;
pub mod tun;
