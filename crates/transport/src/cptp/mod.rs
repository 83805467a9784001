//! mmCPTP, the pull-based cross-layer transport of Rahman et al. [MMCPTP §IV–VII]: a proxy near
//! the user caches the content it reads over TCP from the server, and a plug-in at the
//! base station *pulls* packets from the proxy as its per-UE pull buffer empties into the
//! radio's lower layer, so the radio never waits for a sender to probe.
//!
//! | role | what it does | module |
//! |---|---|---|
//! | UE | requests the content, reorders, acknowledges to the BS | [`ue`] |
//! | BS plug-in | pull buffer per UE; periodic or threshold pulls; pushes into RLC (or a wired last hop's queue) by buffer status; SACKs to the proxy; retransmits to the UE; NACK at a handover | [`bs`] |
//! | proxy | cache fed by the server's TCP connection; pull counter; recovery towards the BS; re-routing after a NACK | [`proxy`] |
//! | messages | layout and sizes | [`wire`] |
//!
//! The server's side is an ordinary TCP connection from the server to the proxy, opened
//! when the proxy's HTTP request reaches the server; the world joins it to the proxy as
//! a relay's first leg (`world/src/run/cptp.rs`).
//!
//! Simplifications, each against the paper's text:
//! - Name resolution (§VI ¶1: the UE "resolves Y.URL ... to a nearby proxy using the
//!   resolution server") is not modelled: the scenario names the proxy.
//! - The content is fetched from the server unless the scenario says it is at the proxy
//!   already (`preloaded`, §VI ¶1 "if the content is present locally"); nothing is
//!   kept between downloads.
//! - One pull buffer per download, not per UE (§VI ¶2 "per-UE pull buffer"): a UE with
//!   two mmCPTP downloads has two buffers.
//! - The pull counter is carried as an absolute edge (§VI ¶2 "a counter is initialized
//!   ... decremented ... incremented with every new pull"): the same counter, robust to
//!   a lost pull.
//! - The proxy frees cached bytes as the pulls confirm delivery to the UE (§VI ¶2 "with
//!   every new pull request the proxy can clear the corresponding number of bytes").
//! - After the proxy's NACK-driven re-route (§VI ¶3) the proxy never fails; the paper's
//!   re-initiation of a session with the server is not modelled.
//! - The NACK is acknowledged by the proxy (NACK-ACK) and sent again until it is; the
//!   paper's NACK (§V "Error recovery", §VI ¶3) has no acknowledgement, but a lost one
//!   would stall the download.
//! - Retransmission timers at the proxy and the BS (RFC 6298 estimators) are ours; the
//!   paper names SACKs, NACKs and ACKs but no timer (§V "Error recovery").
//! - With dual connectivity the plug-in sits at the primary cell's site and pushes into
//!   the split bearer; its buffer status is the UE's whole RLC backlog.
#![allow(clippy::module_inception)]

pub mod bs;
pub mod proxy;
pub mod set;
pub mod ue;
pub mod wire;

#[cfg(test)]
mod tests;
