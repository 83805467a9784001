//! Frame numerology presets: how much radio resource a cell has per scheduling interval and
//! how it is divided.
//!
//! A [`Numerology`] is a plain value describing one carrier: slot length, symbols and
//! resource blocks per slot, which resource unit the scheduler hands out ([`Allocation`]), the
//! duplexing ([`Duplex`]), the MCS table and TBS rule, the HARQ configuration and the link
//! budget inputs (powers, noise figures, array sizes). Three presets exist ([`PRESETS`]):
//!
//! * **`mmwave-2017`** — the ns-3 mmWave v1.x frame used by the X-TCP paper (2017)
//!   ([NS3-MMW-V1] `mmwave-phy-mac-common.cc` defaults): 28 GHz,
//!   72 chunks × 13.889 MHz ≈ 1 GHz, 48 subcarriers per chunk, 100 µs subframes of 24 OFDM
//!   symbols of which 1 DL + 1 UL are control, so 22 data symbols; 864 reference subcarriers
//!   per symbol leave 2592 data REs per symbol. The flex-TTI scheduler is TDMA: each UE gets
//!   whole symbols over the whole band ([`Allocation::Symbols`]), and every subframe's data
//!   symbols are split between DL and UL on the fly ([`Duplex::DynamicTdd`]). MCS table: the
//!   29-row LTE-like table with ns-3's effective code rates; TBS: ns-3's formula (`tbs.rs`). HARQ:
//!   20 processes, 4 transmissions. 30 dBm at both ends, noise figure 5 dB, 8×8 gNB and 4×4 UE
//!   arrays. Worked out from these defaults (our arithmetic): MCS 28 over the 22 data symbols
//!   gives a 39,187-byte TB per subframe, 3.135 Gbit/s for the whole cell, shared by DL, UL
//!   and all UEs; the X-TCP paper's "3.2 Gbit/s" ([SEED000 Sec. IV-A]) is this figure
//!   within 2 % (no combination of the defaults gives exactly 3.2).
//! * **`nr-fr2`** — NR numerology µ = 3 ([TS38211 §4.2, §4.3]: 120 kHz, 125 µs slot, 14
//!   symbols), 400 MHz = 264 RB ([TS38101-2 Table 5.3.2-1]), MCS table 1 and the exact TBS of
//!   [TS38214 §5.1.3.2].
//!   Choices (ours, documented on [`preset`]): 1 DL + 1 UL control symbol per slot as in
//!   ns-3 mmWave ≥ 2020, so 12 data symbols of which one carries DMRS; OFDMA by RB; TDD
//!   pattern DDDSU with the special slot counted as DL.
//! * **`lte-2ghz`** — LTE FDD at 2 GHz, 1 ms TTI of 14 symbols with a 3-symbol control
//!   region, 100 RB by default (6…100 via [`Numerology::with_rbs`]), the same LTE-like MCS
//!   table as `mmwave-2017` (it is the ns-3 LTE table), 8 HARQ processes with an 8 ms RTT.
//!
//! # Simplifications
//! * The special slot of a TDD pattern is a full DL slot (real DDDSU loses a guard period and
//!   a few UL symbols in S).
//! * Control symbols are pure overhead of fixed size; PDCCH/PUCCH blocking, SRS, PBCH/SSB and
//!   CSI-RS overheads are not modelled.
//! * One spatial layer everywhere (no SU-MIMO): the antenna counts only feed the
//!   beamforming gain of the channel model.
//! * [`Numerology::harq_feedback_delay`] is one value for both directions.

use mmtsim_engine::SimTime;

use super::{mcs, tbs};

/// How a carrier's time is shared between downlink and uplink.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Duplex {
    /// ns-3 mmWave 2017 flex-TTI: every slot's data symbols split between DL and UL by the
    /// scheduler
    DynamicTdd,
    /// fixed per-slot pattern, repeated
    Tdd(Vec<SlotKind>),
    /// separate, equal DL and UL carriers
    Fdd,
}

/// Direction of a slot in a fixed TDD pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlotKind {
    /// The slot's data symbols carry downlink (gNB → UE) data.
    Downlink,
    /// The slot's data symbols carry uplink (UE → gNB) data.
    Uplink,
}

/// The resource unit the scheduler hands out within one slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Allocation {
    /// TDMA: the unit is one OFDM symbol over the whole band
    Symbols,
    /// OFDMA: the unit is one resource block over all data symbols of the slot
    ResourceBlocks,
}

/// Which MCS table (and with it which error-model thresholds and CQI table) a carrier uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum McsTableId {
    /// ns-3 mmWave v1.x: 29 LTE-like rows with ns-3's effective code rates (MIESM era).
    Ns3Mmwave2017,
    /// TS 38.214 Table 5.1.3.1-1 (64QAM), with the ns-3 mmWave/5G-LENA EESM T1 thresholds.
    NrTable1,
    /// TS 38.214 Table 5.1.3.1-2 (256QAM), with the EESM T2 thresholds.
    NrTable2,
    /// LTE: the same rows and thresholds as [`McsTableId::Ns3Mmwave2017`], which are ns-3's
    /// LTE table and LTE MIESM curves (see `mcs.rs`).
    Lte,
}

/// How a transport block size follows from MCS and allocated resources (see `tbs.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TbsRule {
    /// ns-3 mmWave v1.x `GetTbSizeFromMcsSymbols` ([NS3-MMW-V1]): REs·Qm·ECR − CRCs.
    Ns3Mmwave2017,
    /// [TS38214 §5.1.3.2], exact (quantisation, small-TBS table, LDPC segmentation).
    Ts38214,
    /// LTE approximation: the ns-3 formula on LTE's RE count (CRS removed); see `tbs.rs`.
    Lte,
}

/// One carrier's frame structure, resources, HARQ timing and link-budget inputs.
///
/// Built by [`preset`]; the fields are public so a scenario can override them, in which case
/// the caller is responsible for keeping them consistent (e.g. `data_symbols` =
/// `symbols_per_slot − dl_ctrl_symbols − ul_ctrl_symbols`).
#[derive(Clone, Debug, PartialEq)]
pub struct Numerology {
    /// Name of the preset this was built from (one of [`PRESETS`]).
    pub preset: &'static str,
    /// Carrier centre frequency, Hz.
    pub carrier_hz: f64,
    /// Occupied (mmWave) or channel (LTE, NR) bandwidth, Hz.
    pub bandwidth_hz: f64,
    /// Subcarrier spacing, Hz (2017: 13.889 MHz / 48 ≈ 289.35 kHz).
    pub subcarrier_spacing_hz: f64,
    /// Scheduling interval: 2017 100 µs subframe, NR µ=3 125 µs slot, LTE 1 ms TTI.
    pub slot: SimTime,
    /// OFDM symbols per slot, control included.
    pub symbols_per_slot: u16,
    /// Downlink control symbols at the start of each slot.
    pub dl_ctrl_symbols: u16,
    /// Uplink control symbols at the end of each slot.
    pub ul_ctrl_symbols: u16,
    /// symbols_per_slot − control: the symbols that carry data (DMRS included).
    pub data_symbols: u16,
    /// Resource blocks over the band (2017: 1 "RB" of 72 chunks).
    pub rbs: u32,
    /// Data REs of one symbol over the whole band, after per-symbol reference subcarriers
    /// (2017: 72·48 − 864 = 2592; NR and LTE: 12·rbs). Invariant: a multiple of `rbs`.
    pub data_re_per_symbol: u32,
    /// Reference-signal REs per RB per transport block that are *not* already removed from
    /// `data_re_per_symbol`: NR one DMRS symbol (N_DMRS^PRB = 12, TS 38.214 §5.1.3.2), LTE
    /// cell-specific RS of 2 antenna ports outside the control region (12), 2017: 0.
    pub slot_ref_re_per_rb: u32,
    /// What one scheduling unit is.
    pub allocation: Allocation,
    /// Units per slot: `Symbols` → `data_symbols`; `ResourceBlocks` → `rbs`.
    pub units_per_slot: u16,
    /// DL/UL sharing of the carrier.
    pub duplex: Duplex,
    /// MCS table (and thereby AMC thresholds and CQI table).
    pub mcs_table: McsTableId,
    /// Transport block size rule.
    pub tbs_rule: TbsRule,
    /// HARQ processes per UE and direction (2017: 20).
    pub harq_processes: u8,
    /// Maximum transmissions of one TB, first included (2017: 4).
    pub harq_max_tx: u8,
    /// TB end → ACK/NACK known at the scheduler (decode latency + L1/L2).
    pub harq_feedback_delay: SimTime,
    /// DCI sent this many slots before the data slot (2017: 2).
    pub l1l2_ctrl_slots: u8,
    /// Extra UL scheduling delay, slots (2017: 1).
    pub ul_sched_delay_slots: u8,
    /// gNB/eNB transmit power, dBm, spread over the whole band.
    pub gnb_tx_power_dbm: f64,
    /// UE transmit power, dBm, spread over the whole band.
    pub ue_tx_power_dbm: f64,
    /// Noise figure of the gNB/eNB receiver (uplink), dB.
    pub noise_figure_db: f64,
    /// Noise figure of the UE receiver (downlink), dB.
    pub ue_noise_figure_db: f64,
    /// gNB array elements (2017: 64 = 8×8).
    pub gnb_antennas: u32,
    /// UE array elements (2017: 16 = 4×4).
    pub ue_antennas: u32,
}

/// Names accepted by [`preset`].
pub const PRESETS: &[&str] = &["mmwave-2017", "nr-fr2", "lte-2ghz"];

/// ns-3 mmWave v1 `ChunkWidth` ([NS3-MMW-V1] `MmWavePhyMacCommon`), Hz.
const NS3_V1_CHUNK_WIDTH_HZ: f64 = 13.889e6;
/// ns-3 mmWave v1 chunks (`ChunkPerRB` 72 × `ResourceBlockNum` 1).
const NS3_V1_CHUNKS: u32 = 72;
/// ns-3 mmWave v1 subcarriers per chunk.
const NS3_V1_SC_PER_CHUNK: u32 = 48;
/// ns-3 mmWave v1 `m_numRefScPerSym`: reference subcarriers in every data symbol.
const NS3_V1_REF_SC_PER_SYMBOL: u32 = 864;

/// FR2 maximum transmission bandwidth configuration at 120 kHz, [TS38101-2 Table 5.3.2-1]:
/// (N_RB, channel bandwidth Hz).
const NR_FR2_120KHZ_RBS: &[(u32, f64)] = &[(32, 50e6), (66, 100e6), (132, 200e6), (264, 400e6)];
/// FR2 at 60 kHz, same table: (N_RB, channel bandwidth Hz).
const NR_FR2_60KHZ_RBS: &[(u32, f64)] = &[(66, 50e6), (132, 100e6), (264, 200e6)];
/// LTE transmission bandwidth configurations, TS 36.101 Table 5.6-1: (N_RB, channel Hz).
const LTE_RBS: &[(u32, f64)] = &[
    (6, 1.4e6),
    (15, 3e6),
    (25, 5e6),
    (50, 10e6),
    (75, 15e6),
    (100, 20e6),
];

/// The preset called `name`, or `None` if `name` is not in [`PRESETS`].
///
/// Choices beyond what the references fix, per preset:
///
/// * `mmwave-2017`: `harq_feedback_delay` = 300 µs = ns-3's TB decode latency (100 µs, after
///   which the UE queues the ACK/NACK) + the 2-subframe L1/L2 control latency of that
///   message (`mmwave-ue-phy.cc` `ReceiveLteDlHarqFeedback`); UE noise figure 5 dB (hard-set
///   in ns-3 v1), like the gNB.
/// * `nr-fr2`: 1 DL + 1 UL control symbol per slot and one DMRS symbol ([NS3-MMW-HEAD]
///   keeps 1+1 control symbols), so TS 38.214 sees N_symb^sh = 12 with
///   N_DMRS^PRB = 12 and N_oh = 0; OFDMA by RB (5G-LENA style) so that the TS 38.214
///   per-PRB formula applies directly; TDD pattern DDDSU (a common FR2 pattern, period 5
///   slots = 625 µs) with S counted as a full DL slot; 16 HARQ processes (the Rel-15
///   maximum, TS 38.331 `nrofHARQ-ProcessesForPDSCH`) and 4 transmissions; HARQ feedback
///   delay 100 µs decode + 2 slots L1/L2 = 350 µs, L1/L2 2 slots and UL delay 1 slot as in
///   ns-3 mmWave ([NS3-MMW-V1]); 30 dBm at gNB and UE and 5 dB noise figures ([NS3-MMW-V1],
///   [NS3-MMW-HEAD] defaults); 8×8 gNB and 4×4 UE arrays as in 2017.
/// * `lte-2ghz`: 20 MHz, 100 RB; 3 control symbols, 11 data symbols in both directions (for
///   the UL this is close to PUSCH's 14 − 2 DMRS − 1 SRS); MCS table = the ns-3 LTE-like
///   table (not TS 38.214 table 1) because ns-3 LTE's own AMC and MIESM curves use it, so its
///   thresholds are the MIESM ones (see `amc.rs`); TBS see `tbs.rs`; OFDMA by RB; FDD; 8 HARQ
///   processes, 4 transmissions, 8 ms HARQ RTT = 1 ms TB + 4 ms until the ACK/NACK sent in
///   subframe n+4 is known + 3 slots of L1/L2 (DCI decided 3 ms before the data);
///   UL: grant in n, PUSCH in n+4 → `l1l2_ctrl_slots` 3 + `ul_sched_delay_slots` 1;
///   eNB 46 dBm (3GPP macro cell, 20 MHz), UE 23 dBm (power class 3), noise figure eNB 5 dB
///   and UE 9 dB (ns-3 LTE defaults); 1 antenna each (no beamforming gain at 2 GHz).
pub fn preset(name: &str) -> Option<Numerology> {
    match name {
        "mmwave-2017" => Some(mmwave_2017()),
        "nr-fr2" => Some(nr_fr2()),
        "lte-2ghz" => Some(lte_2ghz()),
        _ => None,
    }
}

fn mmwave_2017() -> Numerology {
    let symbols_per_slot = 24;
    let data_symbols = symbols_per_slot - 1 - 1;
    Numerology {
        preset: "mmwave-2017",
        carrier_hz: 28e9,
        bandwidth_hz: NS3_V1_CHUNKS as f64 * NS3_V1_CHUNK_WIDTH_HZ,
        subcarrier_spacing_hz: NS3_V1_CHUNK_WIDTH_HZ / NS3_V1_SC_PER_CHUNK as f64,
        slot: SimTime::from_us(100),
        symbols_per_slot,
        dl_ctrl_symbols: 1,
        ul_ctrl_symbols: 1,
        data_symbols,
        rbs: 1,
        data_re_per_symbol: NS3_V1_SC_PER_CHUNK * NS3_V1_CHUNKS - NS3_V1_REF_SC_PER_SYMBOL,
        slot_ref_re_per_rb: 0,
        allocation: Allocation::Symbols,
        units_per_slot: data_symbols,
        duplex: Duplex::DynamicTdd,
        mcs_table: McsTableId::Ns3Mmwave2017,
        tbs_rule: TbsRule::Ns3Mmwave2017,
        harq_processes: 20,
        harq_max_tx: 4,
        harq_feedback_delay: SimTime::from_us(100 + 2 * 100),
        l1l2_ctrl_slots: 2,
        ul_sched_delay_slots: 1,
        gnb_tx_power_dbm: 30.0,
        ue_tx_power_dbm: 30.0,
        noise_figure_db: 5.0,
        ue_noise_figure_db: 5.0,
        gnb_antennas: 64,
        ue_antennas: 16,
    }
}

fn nr_fr2() -> Numerology {
    let rbs = 264;
    let symbols_per_slot = 14;
    let data_symbols = symbols_per_slot - 1 - 1;
    use SlotKind::{Downlink as D, Uplink as U};
    Numerology {
        preset: "nr-fr2",
        carrier_hz: 28e9,
        bandwidth_hz: 400e6,
        subcarrier_spacing_hz: 120e3,
        slot: SimTime::from_us(125),
        symbols_per_slot,
        dl_ctrl_symbols: 1,
        ul_ctrl_symbols: 1,
        data_symbols,
        rbs,
        data_re_per_symbol: 12 * rbs,
        slot_ref_re_per_rb: 12,
        allocation: Allocation::ResourceBlocks,
        units_per_slot: rbs as u16,
        // D D D S U with S counted as DL.
        duplex: Duplex::Tdd(vec![D, D, D, D, U]),
        mcs_table: McsTableId::NrTable1,
        tbs_rule: TbsRule::Ts38214,
        harq_processes: 16,
        harq_max_tx: 4,
        harq_feedback_delay: SimTime::from_us(100 + 2 * 125),
        l1l2_ctrl_slots: 2,
        ul_sched_delay_slots: 1,
        gnb_tx_power_dbm: 30.0,
        ue_tx_power_dbm: 30.0,
        noise_figure_db: 5.0,
        ue_noise_figure_db: 5.0,
        gnb_antennas: 64,
        ue_antennas: 16,
    }
}

fn lte_2ghz() -> Numerology {
    let rbs = 100;
    let symbols_per_slot = 14;
    let data_symbols = symbols_per_slot - 3;
    Numerology {
        preset: "lte-2ghz",
        carrier_hz: 2e9,
        bandwidth_hz: 20e6,
        subcarrier_spacing_hz: 15e3,
        slot: SimTime::from_ms(1),
        symbols_per_slot,
        dl_ctrl_symbols: 3,
        ul_ctrl_symbols: 0,
        data_symbols,
        rbs,
        data_re_per_symbol: 12 * rbs,
        slot_ref_re_per_rb: 12,
        allocation: Allocation::ResourceBlocks,
        units_per_slot: rbs as u16,
        duplex: Duplex::Fdd,
        mcs_table: McsTableId::Lte,
        tbs_rule: TbsRule::Lte,
        harq_processes: 8,
        harq_max_tx: 4,
        harq_feedback_delay: SimTime::from_ms(4),
        l1l2_ctrl_slots: 3,
        ul_sched_delay_slots: 1,
        gnb_tx_power_dbm: 46.0,
        ue_tx_power_dbm: 23.0,
        noise_figure_db: 5.0,
        ue_noise_figure_db: 9.0,
        gnb_antennas: 1,
        ue_antennas: 1,
    }
}

impl Duplex {
    /// Direction of slot number `slot_index` (counted from the start of the run) under a fixed
    /// pattern; `None` when any slot may carry either direction (dynamic TDD) or both (FDD).
    pub fn slot_kind(&self, slot_index: u64) -> Option<SlotKind> {
        match self {
            Duplex::Tdd(pattern) if !pattern.is_empty() => {
                Some(pattern[(slot_index % pattern.len() as u64) as usize])
            }
            _ => None,
        }
    }

    /// Long-run fraction of slots in which direction `kind` may transmit: 1 for FDD (own
    /// carrier) and dynamic TDD (any slot may be given entirely to one direction), the share
    /// of the pattern for fixed TDD.
    pub fn share(&self, kind: SlotKind) -> f64 {
        match self {
            Duplex::Tdd(pattern) if !pattern.is_empty() => {
                pattern.iter().filter(|&&k| k == kind).count() as f64 / pattern.len() as f64
            }
            Duplex::Tdd(_) => 0.0,
            Duplex::DynamicTdd | Duplex::Fdd => 1.0,
        }
    }
}

impl Numerology {
    /// The same numerology with `rbs` resource blocks (and the matching bandwidth).
    ///
    /// LTE (`TbsRule::Lte`): 6/15/25/50/75/100 RB = 1.4/3/5/10/15/20 MHz (TS 36.101).
    /// NR (`TbsRule::Ts38214`): the FR2 configurations of TS 38.101-2 at the preset's
    /// subcarrier spacing (120 kHz: 32/66/132/264 RB = 50/100/200/400 MHz; 60 kHz:
    /// 66/132/264 RB = 50/100/200 MHz). The 2017 frame is one fixed 1 GHz "RB": error.
    pub fn with_rbs(self, rbs: u32) -> Result<Numerology, String> {
        let options: &[(u32, f64)] = match self.tbs_rule {
            TbsRule::Lte => LTE_RBS,
            TbsRule::Ts38214 if self.subcarrier_spacing_hz == 120e3 => NR_FR2_120KHZ_RBS,
            TbsRule::Ts38214 if self.subcarrier_spacing_hz == 60e3 => NR_FR2_60KHZ_RBS,
            _ => {
                return Err(format!(
                    "preset {}: the number of resource blocks is fixed ({}); \
                     with_rbs({rbs}) is not supported",
                    self.preset, self.rbs
                ))
            }
        };
        let Some(&(_, bandwidth_hz)) = options.iter().find(|(n, _)| *n == rbs) else {
            let allowed: Vec<String> = options.iter().map(|(n, _)| n.to_string()).collect();
            return Err(format!(
                "preset {}: {rbs} resource blocks is not a standard bandwidth; expected one of {}",
                self.preset,
                allowed.join(", ")
            ));
        };
        let re_per_rb_symbol = self.data_re_per_symbol / self.rbs;
        let units_per_slot = match self.allocation {
            Allocation::Symbols => self.units_per_slot,
            Allocation::ResourceBlocks => rbs as u16,
        };
        Ok(Numerology {
            rbs,
            bandwidth_hz,
            data_re_per_symbol: re_per_rb_symbol * rbs,
            units_per_slot,
            ..self
        })
    }

    /// Highest MCS index of the numerology's table.
    pub fn max_mcs(&self) -> u8 {
        (mcs::table(self.mcs_table).len() - 1) as u8
    }

    /// Transport block size in bytes of `units` resource units at `mcs` (see `tbs.rs`).
    pub fn tbs_bytes(&self, mcs: u8, units: u16) -> u32 {
        tbs::tb_bytes(self, mcs, units)
    }

    /// Smallest number of units (at most `units_per_slot`) whose TB at `mcs` holds `bytes`;
    /// `units_per_slot` if even the whole slot is too small, 0 for `bytes == 0`.
    ///
    /// Binary search: the TBS is non-decreasing in the units except for dips of a few CRC
    /// bits where a code-block boundary is crossed, so the answer always covers `bytes` and is
    /// minimal except possibly within such a dip.
    pub fn units_for_bytes(&self, mcs: u8, bytes: u32) -> u16 {
        tbs::smallest_units(self.units_per_slot, bytes, |u| self.tbs_bytes(mcs, u))
    }

    /// Peak rate of one direction, bit/s: all units of every slot at the highest MCS. For FDD
    /// this is per carrier; for fixed TDD it is the rate *during* slots of one direction (see
    /// [`Numerology::peak_rate_dl_bps`] for the long-run share); for dynamic TDD it is the
    /// whole cell's capacity given to one direction.
    pub fn peak_rate_bps(&self) -> f64 {
        let bits = self.tbs_bytes(self.max_mcs(), self.units_per_slot) as f64 * 8.0;
        bits / self.slot.secs_f64()
    }

    /// Long-run downlink peak rate: [`Numerology::peak_rate_bps`] × the DL share of the
    /// duplex pattern.
    pub fn peak_rate_dl_bps(&self) -> f64 {
        self.peak_rate_bps() * self.duplex.share(SlotKind::Downlink)
    }

    /// Long-run uplink peak rate: [`Numerology::peak_rate_bps`] × the UL share of the duplex
    /// pattern.
    pub fn peak_rate_ul_bps(&self) -> f64 {
        self.peak_rate_bps() * self.duplex.share(SlotKind::Uplink)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_preset_exists_and_is_consistent() {
        for name in PRESETS {
            let n = preset(name).expect("listed preset must build");
            assert_eq!(&n.preset, name);
            assert_eq!(
                n.data_symbols,
                n.symbols_per_slot - n.dl_ctrl_symbols - n.ul_ctrl_symbols,
                "{name}"
            );
            assert_eq!(n.data_re_per_symbol % n.rbs, 0, "{name}");
            let units = match n.allocation {
                Allocation::Symbols => n.data_symbols as u32,
                Allocation::ResourceBlocks => n.rbs,
            };
            assert_eq!(n.units_per_slot as u32, units, "{name}");
            assert!(n.harq_max_tx >= 1 && n.harq_processes >= 1, "{name}");
        }
        assert!(preset("wifi").is_none());
    }

    #[test]
    fn mmwave_2017_frame_matches_reference_section_1_1() {
        let n = preset("mmwave-2017").unwrap();
        // [NS3-MMW-V1] defaults: 24 symbols − 1 DL ctrl − 1 UL ctrl = 22 data symbols per
        // 100 µs subframe.
        assert_eq!(n.data_symbols, 22);
        assert_eq!(n.units_per_slot, 22);
        assert_eq!(n.slot, SimTime::from_us(100));
        // 48 × 72 − 864 = 3456 − 864 = 2592 data REs per symbol.
        assert_eq!(n.data_re_per_symbol, 2592);
        // 72 × 13.889 MHz = 1000.008 MHz; 13.889 MHz / 48 = 289.354 kHz.
        assert!((n.bandwidth_hz - 1.000008e9).abs() < 1.0);
        assert!((n.subcarrier_spacing_hz - 289_354.17).abs() < 0.01);
        assert_eq!((n.harq_processes, n.harq_max_tx), (20, 4));
        assert_eq!(n.max_mcs(), 28);
        assert_eq!(n.duplex, Duplex::DynamicTdd);
    }

    #[test]
    fn mmwave_2017_peak_rate_is_3_135_gbps() {
        let n = preset("mmwave-2017").unwrap();
        // The peak rate from the [NS3-MMW-V1] defaults and TBS formula, step by step:
        // 1. data REs per symbol 48·72 − 864 = 2592
        // 2. data symbols 24 − 1 − 1 = 22 → 57,024 REs per subframe
        // 3. MCS 28: Qm 6, ECR 0.92 → 57,024 · 6 · 0.92 = 314,772.48 bits
        // 4. − 24 (TB CRC) → 314,748 (floor); C = ceil(314,748 / 6144) = 52 code blocks,
        //    − 52·24 = 1,248 → 313,500 bits → 39,187 bytes (integer /8)
        // 5. 39,187 · 8 bit / 100 µs = 3,134,960,000 bit/s ≈ 3.135 Gbit/s
        assert_eq!(n.tbs_bytes(28, 22), 39_187);
        assert_eq!(tbs::tb_bits(&n, 28, 22), 313_500);
        assert!((n.peak_rate_bps() - 3_134_960_000.0).abs() < 1.0);
        // Dynamic TDD: either direction may take the whole subframe.
        assert_eq!(n.peak_rate_dl_bps(), n.peak_rate_bps());
        assert_eq!(n.peak_rate_ul_bps(), n.peak_rate_bps());
    }

    #[test]
    fn nr_fr2_frame_and_peak_rate_by_hand() {
        let n = preset("nr-fr2").unwrap();
        // µ = 3: 1 ms / 2^3 = 125 µs; 14 − 1 − 1 = 12 data symbols; 400 MHz → 264 RB.
        assert_eq!(n.slot, SimTime::from_us(125));
        assert_eq!(n.data_symbols, 12);
        assert_eq!((n.rbs, n.units_per_slot), (264, 264));
        assert_eq!(n.max_mcs(), 28);
        // [TS38214 §5.1.3.2] worked by hand: 264 PRB, 12 symbols incl. one
        // DMRS symbol, MCS 28 → 192,624 bits = 24,078 bytes per slot.
        assert_eq!(n.tbs_bytes(28, 264), 24_078);
        // 192,624 bit / 125 µs = 1,540,992,000 bit/s.
        assert!((n.peak_rate_bps() - 1_540_992_000.0).abs() < 1.0);
        // DDDSU with S as DL: DL 4/5, UL 1/5 of the slots.
        // DL 1,540,992,000 · 0.8 = 1,232,793,600; UL · 0.2 = 308,198,400.
        assert!((n.peak_rate_dl_bps() - 1_232_793_600.0).abs() < 1.0);
        assert!((n.peak_rate_ul_bps() - 308_198_400.0).abs() < 1.0);
        assert_eq!(n.duplex.slot_kind(3), Some(SlotKind::Downlink));
        assert_eq!(n.duplex.slot_kind(4), Some(SlotKind::Uplink));
        assert_eq!(n.duplex.slot_kind(9), Some(SlotKind::Uplink));
        assert_eq!(n.duplex.slot_kind(10), Some(SlotKind::Downlink));
    }

    #[test]
    fn lte_peak_rates_by_hand() {
        let n = preset("lte-2ghz").unwrap();
        assert_eq!(n.data_symbols, 11);
        assert_eq!(n.max_mcs(), 28);
        // 100 RB: REs = 100 · (12·11 − 12 CRS) = 12,000; MCS 28: · 6 · 0.92 = 66,240;
        // − 24 = 66,216; C = ceil(66,216 / 6144) = 11 → − 264 = 65,952 bits = 8,244 bytes
        // per 1 ms → 65,952,000 bit/s per carrier (FDD: same in UL on its own carrier).
        assert_eq!(n.tbs_bytes(28, 100), 8_244);
        assert!((n.peak_rate_bps() - 65_952_000.0).abs() < 1e-6);
        assert_eq!(n.peak_rate_ul_bps(), n.peak_rate_bps());
        // 25 RB: 3,000 REs · 6 · 0.92 = 16,560 − 24 = 16,536; C = 3 → − 72 = 16,464 bits
        // = 2,058 bytes → 16,464,000 bit/s.
        let n25 = preset("lte-2ghz").unwrap().with_rbs(25).unwrap();
        assert_eq!(n25.bandwidth_hz, 5e6);
        assert_eq!((n25.units_per_slot, n25.data_re_per_symbol), (25, 300));
        assert!((n25.peak_rate_bps() - 16_464_000.0).abs() < 1e-6);
        // 50 RB: 6,000 · 6 · 0.92 = 33,120 − 24 = 33,096; C = ceil(5.39) = 6 → − 144
        // = 32,952 bits = 4,119 bytes → 32,952,000 bit/s.
        let n50 = preset("lte-2ghz").unwrap().with_rbs(50).unwrap();
        assert!((n50.peak_rate_bps() - 32_952_000.0).abs() < 1e-6);
    }

    #[test]
    fn with_rbs_rejects_what_is_not_a_standard_bandwidth() {
        let err = preset("lte-2ghz").unwrap().with_rbs(37).unwrap_err();
        assert!(err.contains("6, 15, 25, 50, 75, 100"), "{err}");
        assert!(preset("mmwave-2017").unwrap().with_rbs(2).is_err());
        let nr = preset("nr-fr2").unwrap().with_rbs(66).unwrap();
        assert_eq!(
            (nr.rbs, nr.units_per_slot, nr.bandwidth_hz),
            (66, 66, 100e6)
        );
        assert!(preset("nr-fr2").unwrap().with_rbs(100).is_err());
    }

    #[test]
    fn units_for_bytes_is_the_smallest_covering_allocation() {
        for name in PRESETS {
            let n = preset(name).unwrap();
            for mcs in [0, 9, 17, n.max_mcs()] {
                for bytes in [1u32, 100, 1500, 10_000, 50_000] {
                    let u = n.units_for_bytes(mcs, bytes);
                    assert!(u >= 1 && u <= n.units_per_slot);
                    if u < n.units_per_slot {
                        assert!(n.tbs_bytes(mcs, u) >= bytes, "{name} mcs {mcs} {bytes} B");
                    }
                    if u > 1 {
                        assert!(
                            n.tbs_bytes(mcs, u - 1) < bytes,
                            "{name} mcs {mcs} {bytes} B"
                        );
                    }
                }
            }
            assert_eq!(n.units_for_bytes(0, 0), 0);
        }
    }
}
