//! RRC mobility in connected mode: measurements, the handover decision and the handover
//! procedure, as pure state machines (sans-IO: every call gets `now`, nothing here knows
//! cells, channels or events). `network/handover.rs` drives them from the RAN.
//!
//! - [`measure`]: layer-3 filtering of measurements [TS38331 §5.5.3.2].
//! - [`trigger`]: the handover decision: event A3 with hysteresis and time-to-trigger
//!   [TS38331 §5.5.4.4], or an SINR threshold (which includes ns-3 mmWave's threshold
//!   handover [NS3-MMW-HEAD] as a special case).
//! - [`dual`]: the LTE anchor's coordinator of dual connectivity (fast switches,
//!   secondary-cell handover) [POLESE-DC-2017].
//! - [`procedure`]: the timeline of one handover [TS38300 §9.2.3.2]: measurement report,
//!   preparation over Xn, handover command, detach and interruption, random access on the
//!   target, and on failure the radio link failure and re-establishment.
//!
//! [`HandoverConfig`] gathers the scenario's `[ran.handover]` keys, resolved.
//!
//! # Simplifications (each said again where it applies)
//! - Cell-specific and frequency-specific offsets (Ofn, Ocn, Ofp, Ocp) are zero: one
//!   `offset_db` (Off) and one `hysteresis_db` (Hys) for every cell pair.
//! - Measurement gaps, beam sweeping and SSB timing are not modelled: a UE measures every
//!   cell at every measurement instant.
//! - Time-to-trigger is fixed, or dynamic as in ns-3 mmWave's `DYNAMIC_TTT` handover mode
//!   [NS3-MMW-HEAD] (the multi-connectivity work the seed papers' simulations build on):
//!   [`DynamicTtt`], re-evaluated at each measurement instant.

pub mod dual;
pub mod measure;
pub mod procedure;
pub mod trigger;

use mmtsim_engine::SimTime;

/// Which rule starts a handover.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Algorithm {
    /// No measurement-based handover: the serving cell changes only by scripted events.
    None,
    /// Event A3: a neighbour on the serving cell's carrier becomes `offset_db` better
    /// (filtered RSRP) than the serving cell, with hysteresis, for time-to-trigger.
    A3,
    /// The serving cell's filtered SINR is below `sinr_threshold_db` and the best other
    /// cell's is at least `hysteresis_db` above the serving one's, for time-to-trigger.
    Threshold,
}

impl Algorithm {
    /// Scenario names, in the order of the variants.
    pub const NAMES: [&'static str; 3] = ["none", "a3", "threshold"];

    /// The algorithm called `s` in a scenario.
    pub fn from_name(s: &str) -> Option<Algorithm> {
        match s {
            "none" => Some(Algorithm::None),
            "a3" => Some(Algorithm::A3),
            "threshold" => Some(Algorithm::Threshold),
            _ => None,
        }
    }
}

/// Why a UE changed (or tried to change) serving cell: the `kind` of a handover record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandoverKind {
    /// Event A3 triggered it.
    A3,
    /// The SINR threshold triggered it.
    Threshold,
    /// A scenario's `[[events]]` handover.
    Scripted,
    /// RRC re-establishment after a radio link failure.
    Reestablishment,
    /// Dual connectivity: fast switch of the UE's data to the LTE leg (`from` the
    /// mmWave cell, `to` the anchor).
    SwitchToLte,
    /// Dual connectivity: fast switch back to the mmWave leg.
    SwitchToMmwave,
    /// Dual connectivity: the mmWave leg moves to another mmWave cell.
    SecondaryHandover,
}

impl HandoverKind {
    /// The name in the `handovers` table's `kind` column (its code is the index).
    pub const NAMES: [&'static str; 7] = [
        "a3",
        "threshold",
        "scripted",
        "reestablishment",
        "switch_to_lte",
        "switch_to_mmwave",
        "secondary_handover",
    ];

    /// Index into [`HandoverKind::NAMES`].
    pub fn code(self) -> u32 {
        match self {
            HandoverKind::A3 => 0,
            HandoverKind::Threshold => 1,
            HandoverKind::Scripted => 2,
            HandoverKind::Reestablishment => 3,
            HandoverKind::SwitchToLte => 4,
            HandoverKind::SwitchToMmwave => 5,
            HandoverKind::SecondaryHandover => 6,
        }
    }
}

/// A time-to-trigger that shrinks as the candidate gets better: with Δ the candidate's
/// filtered SINR minus the serving cell's (dB), TTT = `max` for Δ ≤ `diff_min_db`, `min`
/// for Δ ≥ `diff_max_db`, and linear in Δ between (ns-3 mmWave `LteEnbRrc::ComputeTtt`,
/// defaults 25 ms, 150 ms, 3 dB, 20 dB [NS3-MMW-HEAD]).
///
/// Simplification: ns-3 fixes the TTT from Δ when the condition first holds; here it is
/// taken from the Δ of each measurement instant, so a candidate that improves triggers
/// sooner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DynamicTtt {
    /// Shortest TTT (large Δ).
    pub min: SimTime,
    /// Longest TTT (small Δ).
    pub max: SimTime,
    /// Δ at and below which the TTT is `max`, dB.
    pub diff_min_db: f64,
    /// Δ at and above which the TTT is `min`, dB.
    pub diff_max_db: f64,
}

impl DynamicTtt {
    /// ns-3 mmWave's defaults (`MinDynTttValue`, `MaxDynTttValue`, `MinDiffValue`,
    /// `MaxDiffValue`).
    pub const NS3: DynamicTtt = DynamicTtt {
        min: SimTime::from_ms(25),
        max: SimTime::from_ms(150),
        diff_min_db: 3.0,
        diff_max_db: 20.0,
    };

    /// The TTT for an SINR advantage of `delta_db`.
    pub fn ttt(&self, delta_db: f64) -> SimTime {
        if delta_db <= self.diff_min_db {
            return self.max;
        }
        if delta_db >= self.diff_max_db {
            return self.min;
        }
        let frac = (delta_db - self.diff_min_db) / (self.diff_max_db - self.diff_min_db);
        let span = self.max.saturating_sub(self.min).ns() as f64;
        self.max
            .saturating_sub(SimTime::from_ns((frac * span).round() as u64))
    }
}

/// The resolved `[ran.handover]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct HandoverConfig {
    /// The decision rule.
    pub algorithm: Algorithm,
    /// Measurement period of every UE (each measurement is one L3 filter input).
    pub measurement_period: SimTime,
    /// filterCoefficient k: a = 1/2^(k/4); 0 disables filtering [TS38331 §5.5.3.2].
    pub filter_k: u8,
    /// A3 offset Off, dB.
    pub offset_db: f64,
    /// Hysteresis Hys, dB (A3 and threshold).
    pub hysteresis_db: f64,
    /// Time-to-trigger.
    pub ttt: SimTime,
    /// A dynamic time-to-trigger instead of `ttt`.
    pub dynamic_ttt: Option<DynamicTtt>,
    /// Threshold algorithm: serving SINR below which a handover is considered, dB.
    pub sinr_threshold_db: f64,
    /// Measurement report to the source gNB (uplink RRC message, one way).
    pub report_delay: SimTime,
    /// Handover command (RRCReconfiguration) to the UE (downlink RRC message, one way).
    pub command_delay: SimTime,
    /// Xn delay between two sites without a wired link between them, one way.
    pub xn_default_delay: SimTime,
    /// Interruption: from the UE leaving the source to its first data on the target.
    pub interruption: SimTime,
    /// Random access on the target fails below this downlink SINR, dB.
    pub rach_min_sinr_db: f64,
    /// T304: how long the UE tries the target before declaring handover failure.
    pub t304: SimTime,
    /// From the failure to the UE being served again after RRC re-establishment.
    pub reestablishment_delay: SimTime,
    /// Lossless: unacknowledged PDCP SDUs are sent again through the target.
    pub lossless: bool,
    /// Rows of the `measurements` table kept: every `measurement_log_every`-th
    /// measurement instant of each UE (0: no table).
    pub measurement_log_every: u32,
    /// Largest number of rows of the `measurements` table.
    pub measurement_log_rows: usize,
}

/// TS 36.133 §5.1.2.1.2 [TS36133 §5.1.2.1.2]: E-UTRAN intra-frequency handover
/// interruption T_interrupt = T_search + T_IU + 20 ms, with T_search = 0 for a known
/// target cell and T_IU (the wait for the first PRACH occasion) up to 30 ms: 50 ms at most.
pub const DEFAULT_INTERRUPTION: SimTime = SimTime::from_ms(50);

impl Default for HandoverConfig {
    fn default() -> Self {
        HandoverConfig {
            algorithm: Algorithm::None,
            // TS 38.331 §5.5.3.2 defines filterCoefficient for a 200 ms input period;
            // mmWave links change far faster, so the default measures every 40 ms, one
            // SSB burst period's multiple a UE can keep up with (a choice of this model).
            measurement_period: SimTime::from_ms(40),
            // TS 38.331 filterCoefficient default fc4 [TS38331 §6.3.2].
            filter_k: 4,
            offset_db: 3.0,
            hysteresis_db: 1.0,
            ttt: SimTime::from_ms(160),
            dynamic_ttt: None,
            sinr_threshold_db: -5.0,
            report_delay: SimTime::from_ms(1),
            command_delay: SimTime::from_ms(1),
            xn_default_delay: SimTime::from_ms(5),
            interruption: DEFAULT_INTERRUPTION,
            // Qout: the level at which the radio link cannot be reliably received (10 %
            // PDCCH BLER, TS 38.133 §8.1 [TS38133 §8.1]); the SINR for it depends on the
            // receiver, −8 dB is the model's choice, below the lowest MCS of every preset.
            rach_min_sinr_db: -8.0,
            t304: SimTime::from_ms(100),
            reestablishment_delay: SimTime::from_ms(100),
            lossless: true,
            measurement_log_every: 0,
            measurement_log_rows: 1_000_000,
        }
    }
}
