//! The resolved configuration of a radio access network, built by the scenario layer.
//!
//! A RAN is a set of cells, each on one gNB site (a world node), each with its own radio
//! configuration ([`CellRadio`]: carrier, bandwidth, numerology, MCS table, scheduler,
//! HARQ, report delays, propagation model), so a 2 GHz LTE-like cell and 28 GHz mmWave
//! cells can serve in one run. What is not per cell is RAN-wide: the UEs' bearer
//! configuration (RLC, PDCP), the channel-update grid, whether other cells interfere, and
//! the buildings, obstacles and vehicles.

use crate::mac::scheduler::SchedulerKind;
use crate::pdcp::PdcpConfig;
use crate::phy::numerology::Numerology;
use crate::rlc::RlcConfig;
use crate::rrc::HandoverConfig;
use mmtsim_channel::geometry::{Aabb, Vec3};
use mmtsim_channel::link::LinkParams;
use mmtsim_channel::mobility::MobilitySpec;
use mmtsim_channel::sinr_trace::SinrTrace;
use mmtsim_channel::vehicles::Lane;
use mmtsim_engine::ids::{CellId, NodeId};
use mmtsim_engine::SimTime;

/// Everything needed to build the RAN of a run.
#[derive(Clone, Debug)]
pub struct RanConfig {
    /// RLC entity configuration (both ends of every bearer).
    pub rlc: RlcConfig,
    /// PDCP configuration.
    pub pdcp: PdcpConfig,
    /// Interval between channel (position, LOS, gain) updates.
    pub channel_update: SimTime,
    /// How other cells on the serving cell's carrier interfere with the downlink.
    pub interference: Interference,
    /// Buildings and obstacles (LOS is blocked by any of them).
    pub boxes: Vec<Aabb>,
    /// Lanes of moving vehicles, which block LOS where they are at each channel update.
    pub vehicles: Vec<Lane>,
    /// The cells, by [`CellId`].
    pub cells: Vec<CellConfig>,
    /// The UEs, by `UeId`.
    pub ues: Vec<UeConfig>,
    /// Measurement-based handover (algorithm "none": off).
    pub handover: HandoverConfig,
    /// Coordinated LTE–mmWave dual connectivity (`None`: a secondary leg takes new SDUs
    /// while its reported SINR supports an MCS, `Ran::split_leg`).
    pub dual: Option<crate::rrc::dual::DualConfig>,
}

/// How other cells on a UE's serving carrier interfere with its downlink (see the
/// `# Channel` section of [`crate::network`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interference {
    /// No interference: SINR is the signal over the noise.
    Off,
    /// Every other cell on the carrier transmits in every slot at full power, received
    /// without any array gain at either end (0 dBi): the model before beams existed, and
    /// what a scenario's `interference = true` means.
    FullBufferOmni,
    /// Every other cell on the carrier transmits in every slot at full power, its beam
    /// toward its own UEs (each an equal share of the time), seen through the victim UE's
    /// beam toward its serving cell.
    FullBuffer,
    /// A cell interferes only in the slots it sends downlink data, with the beams of the
    /// UEs it sent to, each weighted by its share of the slot's resources.
    Active,
}

impl Interference {
    /// The scenario names of the modes, in [`Interference::from_name`]'s order.
    pub const NAMES: &'static [&'static str] =
        &["active", "full-buffer", "full-buffer-omni", "off"];

    /// The mode called `s`.
    pub fn from_name(s: &str) -> Option<Interference> {
        match s {
            "active" => Some(Interference::Active),
            "full-buffer" => Some(Interference::FullBuffer),
            "full-buffer-omni" => Some(Interference::FullBufferOmni),
            "off" => Some(Interference::Off),
            _ => None,
        }
    }
}

/// The radio configuration of one cell.
#[derive(Clone, Debug)]
pub struct CellRadio {
    /// Frame, MCS table, TBS rule, HARQ and power defaults.
    pub numerology: Numerology,
    /// Scheduling policy.
    pub scheduler: SchedulerKind,
    /// HARQ retransmissions on (off = one transmission per block).
    pub harq: bool,
    /// Age of the SINR the downlink MCS is chosen from (CQI report delay).
    pub cqi_delay: SimTime,
    /// Age of the uplink buffer status the scheduler sees (SR/BSR delay).
    pub bsr_delay: SimTime,
    /// Propagation model of the links between this cell and every UE.
    pub link: LinkParams,
}

/// One cell.
#[derive(Clone, Debug)]
pub struct CellConfig {
    /// Name (with one cell per site, the site's node name).
    pub name: String,
    /// The world node of the cell's gNB site.
    pub node: NodeId,
    /// Antenna position.
    pub position: Vec3,
    /// Radio configuration.
    pub radio: CellRadio,
}

/// One UE.
#[derive(Clone, Debug)]
pub struct UeConfig {
    /// Name (also the node name).
    pub name: String,
    /// World node.
    pub node: NodeId,
    /// The cell serving it at the start of the run.
    pub cell: CellId,
    /// A secondary cell from the start (dual connectivity), if any.
    pub secondary: Option<CellId>,
    /// Motion.
    pub mobility: MobilitySpec,
    /// Indoor UE (O2I penetration loss applies).
    pub indoor: bool,
    /// Forced outage windows: no signal at all inside them.
    pub outages: Vec<(SimTime, SimTime)>,
    /// Trace-driven SINR instead of the channel model.
    pub sinr_trace: Option<SinrTrace>,
}
