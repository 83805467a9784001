//! The resolved configuration of a radio access network, built by the scenario layer.

use crate::mac::scheduler::SchedulerKind;
use crate::pdcp::PdcpConfig;
use crate::phy::numerology::Numerology;
use crate::rlc::RlcConfig;
use mmtsim_channel::geometry::{Aabb, Vec3};
use mmtsim_channel::link::LinkParams;
use mmtsim_channel::mobility::MobilitySpec;
use mmtsim_channel::sinr_trace::SinrTrace;
use mmtsim_engine::SimTime;

/// Everything needed to build the RAN of a run.
#[derive(Clone, Debug)]
pub struct RanConfig {
    /// Frame, MCS table, TBS rule, HARQ and power defaults.
    pub numerology: Numerology,
    /// Scheduling policy of every cell.
    pub scheduler: SchedulerKind,
    /// RLC entity configuration (both ends of every bearer).
    pub rlc: RlcConfig,
    /// PDCP configuration.
    pub pdcp: PdcpConfig,
    /// HARQ retransmissions on (off = one transmission per block).
    pub harq: bool,
    /// Age of the SINR the downlink MCS is chosen from (CQI report delay).
    pub cqi_delay: SimTime,
    /// Age of the uplink buffer status the scheduler sees (SR/BSR delay).
    pub bsr_delay: SimTime,
    /// Interval between channel (position, LOS, gain) updates.
    pub channel_update: SimTime,
    /// Propagation model of every gNB–UE link.
    pub link: LinkParams,
    /// Other gNBs' downlink transmissions interfere (at full power, without beam alignment).
    pub interference: bool,
    /// Buildings and obstacles (LOS is blocked by any of them).
    pub boxes: Vec<Aabb>,
    /// The cells.
    pub gnbs: Vec<GnbConfig>,
    /// The UEs.
    pub ues: Vec<UeConfig>,
}

/// One gNB.
#[derive(Clone, Debug)]
pub struct GnbConfig {
    /// Name (also the node name).
    pub name: String,
    /// World node index.
    pub node: u32,
    /// Antenna position.
    pub position: Vec3,
}

/// One UE.
#[derive(Clone, Debug)]
pub struct UeConfig {
    /// Name (also the node name).
    pub name: String,
    /// World node index.
    pub node: u32,
    /// Index of the serving gNB in [`RanConfig::gnbs`].
    pub gnb: usize,
    /// Motion.
    pub mobility: MobilitySpec,
    /// Indoor UE (O2I penetration loss applies).
    pub indoor: bool,
    /// Forced outage windows: no signal at all inside them.
    pub outages: Vec<(SimTime, SimTime)>,
    /// Trace-driven SINR instead of the channel model.
    pub sinr_trace: Option<SinrTrace>,
}
