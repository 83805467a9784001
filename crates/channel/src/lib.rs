//! The radio channel between gNBs and UEs: where things are and how much signal gets through.
//!
//! - [`geometry`]: 3-D points, boxes (buildings, obstacles) and segment–box tests: LOS.
//! - [`mobility`]: UE motion: static, waypoints with pauses, random walk, constant velocity.
//! - [`layout`]: scenario layouts: random non-overlapping obstacles from a seed.
//! - [`pathloss`]: NYU 28/73 GHz and 3GPP TR 38.901 UMi/UMa path loss, O2I penetration.
//! - [`shadowing`]: log-normal shadowing with spatial correlation.
//! - [`fading`]: time-correlated small-scale fading.
//! - [`vehicles`]: moving blockers (vehicles) driving along lanes.
//! - [`blockage`]: TR 38.901 §7.6.4 blockage (self and moving blockers) and forced outages.
//! - [`antenna`]: antenna arrays and beams: the gain of a steered beam in any direction.
//! - [`budget`]: thermal noise, noise figure, transmit power, beamforming gain.
//! - [`link`]: one gNB–UE link: the above combined into a gain process advanced in time.
//! - [`sinr_trace`]: a per-UE SINR (or rate) trace from CSV as an alternative channel.
#![warn(missing_docs)]

pub mod antenna;
pub mod blockage;
pub mod budget;
pub mod fading;
pub mod geometry;
pub mod layout;
pub mod link;
pub mod mobility;
pub mod pathloss;
pub mod shadowing;
pub mod sinr_trace;
pub mod vehicles;
