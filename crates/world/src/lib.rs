//! The world: builds nodes, links and flows from a validated scenario, owns the event loop,
//! and hands back results as columns.
//!
//! # Event flow
//! ```text
//! FlowStart ─► TCP SYN / UDP first datagram
//! packet at node n ─► n is its destination? ─► transport endpoint ─► new packets
//!                   └► next-hop link: enqueue ─► TxDone ─► Arrive at the far node
//! TcpTimer (RTO, pacing, delayed ACK) · AppWake (application writes) · UdpSend · Sample
//! ```
//! Routing is static shortest-hop (ties: lower link index), computed once.
//! Packets live in an arena and travel as indices; events are a small `enum`.
#![warn(missing_docs)]

mod build;
mod core;
pub mod output;
mod run;
pub mod summary;
mod topology;

pub use output::{Column, ColumnData, RunOutput, Table};
pub use run::{run, ExternalCounts, RunControl, RunError, Stepper};
