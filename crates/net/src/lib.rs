//! The network layer of mmtsim: what happens to a packet between two transport endpoints.
//!
//! - [`direction`]: downlink or uplink, the one encoding of a radio direction.
//! - [`packet`]: the packet record and its parsed transport headers.
//! - [`queue`]: queue disciplines: drop-tail (bytes or packets) and CoDel (RFC 8289).
//! - [`loss`]: random loss processes: Bernoulli and Gilbert–Elliott.
//! - [`linkview`]: the read-only per-UE radio view cross-layer transport code consults.
//! - [`link`]: one direction of a point-to-point link: a queue, a transmitter whose rate is
//!   constant or follows a trace, propagation delay and wire impairments.
//! - [`trace`]: trace-driven capacity (CSV of time and rate, Mahimahi delivery
//!   opportunities), import and export.
//! - [`pcap`]: opt-in capture points writing pcap files with synthesized headers.
//!
//! The layer is sans-IO: a link is told "a packet arrived at time t" or "your transmission
//! finished at time t" and answers with the times of its next actions; the world turns
//! those into events. Packets are referred to by [`link::PacketRef`] indices into the
//! world's packet arena, so queues never move packet bodies.
#![warn(missing_docs)]

pub mod checksum;
pub mod cptp;
pub mod direction;
pub mod link;
pub mod linkview;
pub mod loss;
pub mod packet;
pub mod pcap;
pub mod queue;
pub mod text;
pub mod trace;

pub use direction::Direction;
pub use packet::{FlowId, NodeId, Packet, Transport};
