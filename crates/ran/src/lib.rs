//! The radio access network: what happens to a packet between the core network and a UE.
//!
//! - [`phy`]: numerology presets, MCS tables, transport block size, block error, AMC.
//! - [`mac`]: HARQ, schedulers, scheduling requests, buffer status reports and grants.
//! - [`rlc`]: RLC AM and UM entities (segmentation, ARQ, buffers).
//! - [`pdcp`]: PDCP header overhead and in-order delivery.
//! - [`rrc`]: connected-mode mobility: measurement filtering, the handover decision and the
//!   handover procedure, as pure state machines.
//! - [`network`]: cells and UEs advanced slot by slot: the data path through all of the above.
//! - [`view`]: the per-UE cross-layer view transport code may read.
//! - [`config`]: the resolved configuration the scenario layer builds.
#![warn(missing_docs)]

pub mod config;
pub mod mac;
pub mod network;
pub mod pdcp;
pub mod phy;
pub mod rlc;
pub mod rrc;
pub mod view;
