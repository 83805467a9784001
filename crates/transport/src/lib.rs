//! The transport layer of mmtsim.
//!
//! - [`tcp`]: a sans-IO TCP: the data [`tcp::sender::TcpSender`] and
//!   [`tcp::receiver::TcpReceiver`], with SACK (RFC 2018) and SACK-based loss recovery
//!   (RFC 6675), NewReno recovery (RFC 6582) when SACK is off, PRR (RFC 6937), RTO
//!   (RFC 6298), timestamps (RFC 7323), window scaling, delayed ACKs, pacing and Linux's
//!   delivery-rate sampling.
//! - [`cc`]: congestion control behind one interface, usable inside a connection or alone.
//! - [`udp`]: a constant-rate UDP source and its sink, the capacity reference.
//!
//! Endpoints never perform I/O: every input carries `now`, outputs are headers appended to
//! a caller-supplied buffer, and each endpoint reports its next deadline.
#![warn(missing_docs)]

pub mod cc;
pub mod cptp;
pub mod tcp;
pub mod udp;
