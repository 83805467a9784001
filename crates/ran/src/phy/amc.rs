//! Adaptive modulation and coding: SINR → MCS for a target TB error rate of 10 %.
//!
//! ns-3 mmWave's AMC ([NS3-MMW-V1] `mmwave-amc.cc` `CreateCqiFeedbackWbTdma`, same shape in
//! [NS3-MMW-HEAD] and in 5G-LENA's `nr-amc.cc`, [NS3-LENA]) tries MCS 0, 1, 2, …
//! against its error model and keeps the last one whose TBLER is ≤ 0.1; if MCS 0 already
//! fails the UE reports CQI 0 and is not scheduled. With a flat channel that is a step
//! function of the SINR whose steps are the per-MCS 10 % thresholds. This module stores
//! those thresholds and reproduces the step function:
//!
//! * **UL** ([`Amc::ul_mcs`]): the gNB measures the UL SINR and uses the best MCS directly.
//! * **DL** ([`Amc::dl_mcs`]): the UE reports a CQI — the largest CQI whose spectral
//!   efficiency is ≤ that of its best MCS, or 15 when the best MCS is the highest — and the
//!   gNB maps it back to the largest MCS whose spectral efficiency is ≤ the CQI's (ns-3
//!   `GetMcsFromCqi`). For the 2017/LTE tables this quantises DL to even MCS 0, 2, …, 28;
//!   for NR table 1 to MCS 0, 2, 4, 6, 8, 11, 13, 15, 18, 20, 22, 24, 26, 28.
//!
//! Where the thresholds come from: they were computed for this project, not taken from a
//! publication and not measured by running ns-3. The error models were re-implemented from
//! the ns-3 source (MIESM over the LTE turbo-code curves, [NS3-MMW-V1]
//! `mmwave-mi-error-model.cc`; EESM over the NR LDPC curves, [NS3-MMW-HEAD]
//! `error-model/mmwave-eesm-*.cc`), every chunk or RB was given the same SINR, and the SINR
//! was swept in steps of 0.01 dB (MIESM) or 0.005 dB (EESM); a threshold is the lowest SINR
//! at which a first transmission has TBLER ≤ 0.1. The column names below are those of the
//! tables file the `mcs.rs` test reads.
//!
//! Thresholds per MCS table (flat SINR, first transmission):
//! * 2017 and LTE: the MIESM (LTE turbo-code curves) thresholds of ns3-mmwave v1 for the
//!   full-subframe TB (22 symbols), column `sinr_db_tbler10_full_subframe_tb`. ns-3's v1 DL
//!   probe uses the TB of the slot just received, which for a backlogged UE is the full
//!   subframe. For smaller TBs ns-3's thresholds differ by up to 0.7 dB (column
//!   `sinr_db_tbler10_1sym_tb`); we ignore that TB-size dependence. LTE reuses them because
//!   ns-3 LTE's MIESM curves and MCS table are the ones ns-3 mmWave v1 copied.
//! * NR table 1/2: the EESM (NR LDPC curves) thresholds of ns3-mmwave ≥ 4.0 / 5G-LENA for the
//!   AMC probe TB (12 symbols, full 200 MHz band), column `sinr_db_tbler10_amc_wideband`.
//!
//! Simplifications: one wideband SINR per UE (no per-chunk/RB SINR vector, so EESM/MIESM
//! averaging over frequency collapses to the SINR itself); the CQI report delay and period
//! are the MAC's business.

use super::mcs::{self, McsRow};
use super::numerology::{McsTableId, Numerology};
use mmtsim_engine::memo::LastValue;

/// ns3-mmwave v1 MIESM: SINR (dB) where a 22-symbol TB has TBLER 10 %, MCS 0…28
/// (computed, see the module doc; `ns3mmwave_v1_lte_mcs.rows[].sinr_db_tbler10_full_subframe_tb`).
pub const MIESM_2017_THRESHOLDS_DB: [f64; 29] = [
    -7.23, -6.25, -5.83, -4.47, -3.36, -2.32, -1.37, -0.33, 0.73, 1.63, 3.88, 3.92, 4.71, 5.70,
    6.57, 7.53, 8.52, 10.06, 10.49, 11.37, 12.38, 13.45, 14.41, 15.22, 16.20, 17.18, 18.12, 19.16,
    20.09,
];

/// ns3-mmwave ≥ 4.0 / 5G-LENA EESM, TS 38.214 MCS table 1: SINR (dB) for TBLER 10 % of the AMC
/// probe TB, MCS 0…28 (computed, see the module doc;
/// `ns3mmwave_eesm_T1.rows[].sinr_db_tbler10_amc_wideband`).
pub const EESM_T1_THRESHOLDS_DB: [f64; 29] = [
    -0.74, -0.37, 0.70, 1.54, 2.25, 2.89, 3.85, 4.33, 5.40, 5.75, 6.60, 7.09, 8.23, 8.78, 9.68,
    10.53, 11.08, 11.94, 12.55, 13.69, 14.25, 15.37, 16.02, 17.02, 18.01, 18.86, 19.93, 20.90,
    23.97,
];

/// Same for MCS table 2 (256QAM), MCS 0…27
/// (`ns3mmwave_eesm_T2.rows[].sinr_db_tbler10_amc_wideband`).
pub const EESM_T2_THRESHOLDS_DB: [f64; 28] = [
    -0.74, 0.70, 2.25, 3.85, 5.40, 7.09, 8.23, 8.78, 9.68, 10.53, 11.08, 12.55, 13.69, 14.25,
    15.37, 16.02, 17.02, 18.01, 18.86, 19.93, 21.17, 21.84, 22.75, 23.84, 24.75, 25.75, 26.75,
    27.50,
];

/// The 10 % thresholds of the error model that goes with MCS table `id`, indexed by MCS.
pub fn thresholds_db(id: McsTableId) -> &'static [f64] {
    match id {
        McsTableId::Ns3Mmwave2017 | McsTableId::Lte => &MIESM_2017_THRESHOLDS_DB,
        McsTableId::NrTable1 => &EESM_T1_THRESHOLDS_DB,
        McsTableId::NrTable2 => &EESM_T2_THRESHOLDS_DB,
    }
}

/// SINR → MCS/CQI mapping for one MCS table and its error model.
#[derive(Clone, Debug)]
pub struct Amc {
    table_id: McsTableId,
    rows: &'static [McsRow],
    cqi_rows: &'static [McsRow; 16],
    /// Non-decreasing in MCS (checked in [`Amc::for_table`]).
    thresholds_db: &'static [f64],
    /// The downlink MCS for each best MCS: the CQI round trip, worked out once (the
    /// scheduler asks for every UE with data in every slot).
    dl_of_best: [Option<u8>; 32],
}

impl Amc {
    /// The AMC of `num`'s MCS table.
    pub fn new(num: &Numerology) -> Amc {
        Amc::for_table(num.mcs_table)
    }

    /// The AMC of MCS table `id`.
    pub fn for_table(id: McsTableId) -> Amc {
        let mut amc = Amc {
            table_id: id,
            rows: mcs::table(id),
            cqi_rows: mcs::cqi_table(id),
            thresholds_db: thresholds_db(id),
            dl_of_best: [None; 32],
        };
        // The step-function search below relies on monotone thresholds (true of all tables).
        debug_assert_eq!(amc.rows.len(), amc.thresholds_db.len());
        debug_assert!(amc.thresholds_db.windows(2).all(|w| w[0] <= w[1]));
        assert!(
            amc.rows.len() <= amc.dl_of_best.len(),
            "MCS table longer than 32 rows"
        );
        for m in 0..=amc.max_mcs() {
            amc.dl_of_best[m as usize] = amc.mcs_for_cqi(amc.cqi_for_mcs(m));
        }
        amc
    }

    /// The MCS table this AMC maps to.
    pub fn table_id(&self) -> McsTableId {
        self.table_id
    }

    /// Highest MCS index.
    pub fn max_mcs(&self) -> u8 {
        (self.rows.len() - 1) as u8
    }

    /// SINR (dB, flat) at which a first transmission at `mcs` has TBLER = 10 %.
    ///
    /// # Panics
    /// If `mcs` is beyond the table.
    pub fn threshold_db(&self, mcs: u8) -> f64 {
        self.thresholds_db[mcs as usize]
    }

    /// Best MCS for SINR `sinr_db`: the highest MCS whose threshold is ≤ `sinr_db`, as ns-3's
    /// upward search finds it; `None` below MCS 0's threshold (or for a NaN SINR): not
    /// schedulable. Used as is for the uplink.
    pub fn ul_mcs(&self, sinr_db: f64) -> Option<u8> {
        // The thresholds are non-decreasing, so those passed are a prefix. `sinr_db >= t` is
        // false for a NaN SINR, which therefore passes none and maps to None.
        let passed = self.thresholds_db.partition_point(|&t| sinr_db >= t);
        passed.checked_sub(1).map(|m| m as u8)
    }

    /// Downlink MCS for SINR `sinr_db` after the CQI round trip (best MCS → CQI → MCS);
    /// `None` when the UE would report CQI 0.
    pub fn dl_mcs(&self, sinr_db: f64) -> Option<u8> {
        self.ul_mcs(sinr_db)
            .and_then(|m| self.dl_of_best[m as usize])
    }

    /// [`Self::dl_mcs`] (downlink) or [`Self::ul_mcs`] (uplink) of `sinr_db`, through
    /// `memo`: one transmitter's reported SINR changes only with its channel reports, and
    /// the scheduler asks every slot.
    pub fn mcs_memo(&self, downlink: bool, sinr_db: f64, memo: &mut McsMemo) -> Option<u8> {
        memo.get_or(sinr_db.to_bits(), || {
            if downlink {
                self.dl_mcs(sinr_db)
            } else {
                self.ul_mcs(sinr_db)
            }
        })
    }

    /// The CQI a UE reports at SINR `sinr_db` (0 = out of range).
    pub fn cqi(&self, sinr_db: f64) -> u8 {
        self.ul_mcs(sinr_db).map_or(0, |m| self.cqi_for_mcs(m))
    }

    /// CQI reported when `mcs` is the best MCS: 15 at the highest MCS, else the largest CQI
    /// whose spectral efficiency is ≤ the MCS's (ns-3 `CreateCqiFeedbackWbTdma`).
    pub fn cqi_for_mcs(&self, mcs: u8) -> u8 {
        if mcs == self.max_mcs() {
            return 15;
        }
        let se = self.rows[mcs as usize].se;
        let mut cqi = 0;
        while cqi < 15 && self.cqi_rows[cqi + 1].se <= se {
            cqi += 1;
        }
        cqi as u8
    }

    /// MCS the gNB schedules for reported CQI `cqi`: counting up from MCS 0 while the next
    /// MCS's spectral efficiency is ≤ the CQI's (ns-3 `GetMcsFromCqi`); `None` for CQI 0.
    ///
    /// # Panics
    /// If `cqi > 15`.
    pub fn mcs_for_cqi(&self, cqi: u8) -> Option<u8> {
        assert!(cqi <= 15, "CQI {cqi} out of 0..=15");
        if cqi == 0 {
            return None;
        }
        let se = self.cqi_rows[cqi as usize].se;
        let mut mcs = 0;
        while mcs < self.rows.len() - 1 && self.rows[mcs + 1].se <= se {
            mcs += 1;
        }
        Some(mcs as u8)
    }
}

/// The last MCS [`Amc::mcs_memo`] chose for one transmitter (of one direction, with one
/// cell's AMC), keyed on the exact bits of the SINR: the same answer as the search.
pub type McsMemo = LastValue<u64, Option<u8>>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::numerology::{preset, PRESETS};
    use proptest::prelude::*;

    fn amc(name: &str) -> Amc {
        Amc::new(&preset(name).unwrap())
    }

    proptest! {
        #[test]
        fn the_memo_gives_what_the_search_gives(
            calls in proptest::collection::vec((proptest::bool::ANY, 0usize..6), 1..60),
        ) {
            // SINRs that repeat, change, sit exactly on a threshold or one ulp below it,
            // and NaN (no MCS).
            let a = amc("nr-fr2");
            let t = a.threshold_db(10);
            let sinrs = [t, f64::from_bits(t.to_bits() - 1), 3.0, 30.0, -20.0, f64::NAN];
            let (mut dl, mut ul) = (McsMemo::default(), McsMemo::default());
            for (down, k) in calls {
                let s = sinrs[k];
                let (memo, want) = if down {
                    (&mut dl, a.dl_mcs(s))
                } else {
                    (&mut ul, a.ul_mcs(s))
                };
                prop_assert_eq!(a.mcs_memo(down, s, memo), want, "{} dB", s);
            }
        }
    }

    #[test]
    fn ul_mcs_switches_exactly_at_the_reference_thresholds() {
        // Spot values of the computed thresholds: MIESM (2017) and EESM (NR table 1).
        let a = amc("mmwave-2017");
        assert_eq!(a.ul_mcs(-7.24), None);
        assert_eq!(a.ul_mcs(-7.23), Some(0));
        assert_eq!(a.ul_mcs(-6.26), Some(0));
        assert_eq!(a.ul_mcs(-6.24), Some(1));
        assert_eq!(a.ul_mcs(3.87), Some(9));
        assert_eq!(a.ul_mcs(3.89), Some(10));
        assert_eq!(a.ul_mcs(3.93), Some(11));
        assert_eq!(a.ul_mcs(20.08), Some(27));
        assert_eq!(a.ul_mcs(20.10), Some(28));
        assert_eq!(a.ul_mcs(60.0), Some(28));
        let n = amc("nr-fr2");
        assert_eq!(n.ul_mcs(-0.75), None);
        assert_eq!(n.ul_mcs(-0.73), Some(0));
        assert_eq!(n.ul_mcs(23.96), Some(27));
        assert_eq!(n.ul_mcs(23.98), Some(28));
        // LTE uses the MIESM thresholds (documented choice).
        assert_eq!(amc("lte-2ghz").ul_mcs(-7.22), Some(0));

        // And ± 0.01 dB around every tabulated threshold of every preset.
        for name in PRESETS {
            let a = amc(name);
            for m in 0..=a.max_mcs() {
                let t = a.threshold_db(m);
                assert_eq!(a.ul_mcs(t + 0.01), Some(m), "{name} MCS {m} + 0.01 dB");
                let below = if m == 0 { None } else { Some(m - 1) };
                assert_eq!(a.ul_mcs(t - 0.01), below, "{name} MCS {m} − 0.01 dB");
            }
        }
    }

    #[test]
    fn below_mcs0_threshold_is_not_schedulable() {
        for name in PRESETS {
            let a = amc(name);
            let t0 = a.threshold_db(0);
            assert_eq!(a.ul_mcs(t0 - 0.001), None, "{name}");
            assert_eq!(a.dl_mcs(t0 - 0.001), None, "{name}");
            assert_eq!(a.cqi(t0 - 0.001), 0, "{name}");
            assert_eq!(a.ul_mcs(f64::NEG_INFINITY), None, "{name}");
            assert_eq!(a.ul_mcs(f64::NAN), None, "{name}");
            assert_eq!(a.mcs_for_cqi(0), None, "{name}");
        }
    }

    #[test]
    fn dl_2017_is_even_mcs_with_the_reference_step_function() {
        let a = amc("mmwave-2017");
        // Sweep −10…25 dB in 0.005 dB steps: only even MCS appear.
        for i in 0..7000 {
            let s = -10.0 + i as f64 * 0.005;
            if let Some(m) = a.dl_mcs(s) {
                assert_eq!(m % 2, 0, "DL MCS {m} at {s} dB");
            }
        }
        // The 2017 DL step function after CQI quantisation: MCS 0, 2, …, 28 from these SINRs.
        let steps = [
            -7.23, -5.83, -3.36, -1.37, 0.73, 3.88, 4.71, 6.57, 8.52, 10.49, 12.38, 14.41, 16.20,
            18.12, 20.09,
        ];
        for (k, s) in steps.iter().enumerate() {
            let m = 2 * k as u8;
            assert_eq!(a.dl_mcs(*s + 0.005), Some(m), "at {s} dB");
            let below = if m == 0 { None } else { Some(m - 2) };
            assert_eq!(a.dl_mcs(*s - 0.005), below, "just below {s} dB");
        }
        // CQI of the best MCS (the largest CQI whose SE ≤ the MCS's):
        // MCS 1 → 1, 16 → 9, 17 → 9, 28 → 15.
        assert_eq!(a.cqi_for_mcs(1), 1);
        assert_eq!(a.cqi_for_mcs(16), 9);
        assert_eq!(a.cqi_for_mcs(17), 9);
        assert_eq!(a.cqi_for_mcs(28), 15);
    }

    #[test]
    fn dl_nr_table1_quantisation_by_hand() {
        // CQI table 1 SEs (Qm·R/1024): CQI 2 = 0.2344 = MCS 0, 3 = 0.377 = MCS 2,
        // 4 = 0.6016 = MCS 4, 5 = 0.877 = MCS 6, 6 = 1.1758 = MCS 8, 7 = 1.4766 = MCS 11,
        // 8 = 1.9141 = MCS 13, 9 = 2.4062 = MCS 15, 10 = 2.7305 = MCS 18, 11 = 3.3223 = MCS 20,
        // 12 = 3.9023 = MCS 22, 13 = 4.5234 = MCS 24, 14 = 5.1152 = MCS 26, 15 = MCS 28.
        // So DL can only use those MCS; e.g. best MCS 10 (SE 1.3281) → CQI 6 → MCS 8, and
        // best MCS 17 (SE 2.5664 < 2.7305) → CQI 9 → MCS 15.
        let a = amc("nr-fr2");
        let allowed = [0u8, 2, 4, 6, 8, 11, 13, 15, 18, 20, 22, 24, 26, 28];
        for best in 0..=28u8 {
            let expect = *allowed.iter().filter(|&&m| m <= best).max().unwrap();
            let dl = a.dl_mcs(a.threshold_db(best)).unwrap();
            assert_eq!(dl, expect, "best MCS {best}");
        }
        assert_eq!(a.cqi_for_mcs(10), 6);
        assert_eq!(a.cqi_for_mcs(17), 9);
    }

    proptest! {
        #[test]
        fn mcs_is_monotone_in_sinr(a in -20.0f64..40.0, d in 0.0f64..20.0) {
            for name in PRESETS {
                let amc = amc(name);
                prop_assert!(amc.ul_mcs(a) <= amc.ul_mcs(a + d));
                prop_assert!(amc.dl_mcs(a) <= amc.dl_mcs(a + d));
                prop_assert!(amc.dl_mcs(a) <= amc.ul_mcs(a));
                prop_assert!(amc.cqi(a) <= amc.cqi(a + d));
            }
        }

        /// The searches worked out ahead give the definitions: UL the highest MCS whose
        /// threshold the SINR reaches (counted one by one), DL the CQI round trip.
        #[test]
        fn the_tabulated_mcs_are_the_definitions(s in -20.0f64..40.0) {
            for name in PRESETS {
                let amc = amc(name);
                let passed = (0..=amc.max_mcs()).filter(|&m| s >= amc.threshold_db(m)).count();
                prop_assert_eq!(amc.ul_mcs(s), (passed as u8).checked_sub(1));
                prop_assert_eq!(amc.dl_mcs(s), amc.mcs_for_cqi(amc.cqi(s)));
            }
        }
    }
}
