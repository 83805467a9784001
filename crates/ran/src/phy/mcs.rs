//! MCS and CQI tables.
//!
//! Each MCS row gives the modulation order `qm`, the code rate the TBS rule uses
//! (`code_rate`) and the spectral efficiency the CQI ↔ MCS mapping compares (`se`).
//!
//! * [`McsTableId::Ns3Mmwave2017`] and [`McsTableId::Lte`]: the 29-row LTE-like table of
//!   ns-3 mmWave v1.x ([NS3-MMW-V1]): `qm` from `ModulationSchemeForMcs` (`mmwave-amc.cc`),
//!   `code_rate` = the effective code rate `McsEcrTable` of the MIESM error model
//!   (`mmwave-mi-error-model.cc`, used by `GetTbSizeFromMcsSymbols`), `se` =
//!   `SpectralEfficiencyForMcs` (`mmwave-amc.cc`, used only for CQI mapping). ns-3 mmWave
//!   copied these arrays from ns-3's LTE module (`lte-amc.cc`, `lte-mi-error-model.cc`), so
//!   the same rows serve the LTE preset. Note `se` ≠ `qm·code_rate` (MCS 28: 5.55 vs 5.52);
//!   both are kept as ns-3 has them.
//! * [`McsTableId::NrTable1`], [`McsTableId::NrTable2`]: [TS38214 Tables 5.1.3.1-1 and
//!   5.1.3.1-2], `code_rate` = R×1024 / 1024 exactly and `se` = Qm·R.
//!
//! CQI tables ([`cqi_table`], 16 entries, index 0 = "out of range"): for the ns-3/LTE MCS
//! table, [TS36213 Table 7.2.3-1] with ns-3's rounded spectral efficiencies
//! (`SpectralEfficiencyForCqi` in `mmwave-amc.cc`); for NR table 1/2, [TS38214 Tables
//! 5.2.2.1-2 and 5.2.2.1-3] with exact Qm·R.
//!
//! No table is loaded at run time; a test compares every constant here (and the TBS and
//! threshold tables of `tbs.rs` and `amc.rs`) with a machine-readable copy of the same
//! tables, `mcs_tables.json`, kept beside the checkout and not part of the repository; the
//! test is skipped where that file is absent.

use super::numerology::McsTableId;

/// One row of an MCS (or CQI) table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct McsRow {
    /// Modulation order: bits per modulation symbol (2 QPSK, 4 16QAM, 6 64QAM, 8 256QAM).
    pub qm: u8,
    /// Code rate used in the TBS rule (ns-3 2017: its effective code rate; NR: R×1024/1024).
    pub code_rate: f64,
    /// Spectral efficiency, bit per RE, used to map MCS ↔ CQI.
    pub se: f64,
}

/// Row of the ns-3 v1 table: (Qm, ECR, SE) written as ns-3 has them.
const fn ns3(qm: u8, ecr: f64, se: f64) -> McsRow {
    McsRow {
        qm,
        code_rate: ecr,
        se,
    }
}

/// Row of a 3GPP table from Qm and R×1024 (exact: x/1024 is a dyadic rational).
const fn nr(qm: u8, r_x1024: f64) -> McsRow {
    McsRow {
        qm,
        code_rate: r_x1024 / 1024.0,
        se: qm as f64 * r_x1024 / 1024.0,
    }
}

/// ns-3 mmWave v1.x (= ns-3 LTE) MCS table, 29 rows: Qm `ModulationSchemeForMcs`, ECR
/// `McsEcrTable`, SE `SpectralEfficiencyForMcs` (ns3-mmwave tag v1.0, `mmwave-amc.cc` and
/// `mmwave-mi-error-model.cc`; [NS3-MMW-V1]).
pub const NS3_V1_LTE_MCS: [McsRow; 29] = [
    ns3(2, 0.08, 0.15),
    ns3(2, 0.10, 0.19),
    ns3(2, 0.11, 0.23),
    ns3(2, 0.15, 0.31),
    ns3(2, 0.19, 0.38),
    ns3(2, 0.24, 0.49),
    ns3(2, 0.30, 0.60),
    ns3(2, 0.37, 0.74),
    ns3(2, 0.44, 0.88),
    ns3(2, 0.51, 1.03),
    ns3(4, 0.30, 1.18),
    ns3(4, 0.33, 1.33),
    ns3(4, 0.37, 1.48),
    ns3(4, 0.42, 1.70),
    ns3(4, 0.48, 1.91),
    ns3(4, 0.54, 2.16),
    ns3(4, 0.60, 2.41),
    ns3(6, 0.43, 2.57),
    ns3(6, 0.45, 2.73),
    ns3(6, 0.50, 3.03),
    ns3(6, 0.55, 3.32),
    ns3(6, 0.60, 3.61),
    ns3(6, 0.65, 3.90),
    ns3(6, 0.70, 4.21),
    ns3(6, 0.75, 4.52),
    ns3(6, 0.80, 4.82),
    ns3(6, 0.85, 5.12),
    ns3(6, 0.89, 5.33),
    ns3(6, 0.92, 5.55),
];

/// TS 38.214 Table 5.1.3.1-1 (MCS index table 1, up to 64QAM); indices 29–31 are reserved.
pub const NR_MCS_TABLE1: [McsRow; 29] = [
    nr(2, 120.0),
    nr(2, 157.0),
    nr(2, 193.0),
    nr(2, 251.0),
    nr(2, 308.0),
    nr(2, 379.0),
    nr(2, 449.0),
    nr(2, 526.0),
    nr(2, 602.0),
    nr(2, 679.0),
    nr(4, 340.0),
    nr(4, 378.0),
    nr(4, 434.0),
    nr(4, 490.0),
    nr(4, 553.0),
    nr(4, 616.0),
    nr(4, 658.0),
    nr(6, 438.0),
    nr(6, 466.0),
    nr(6, 517.0),
    nr(6, 567.0),
    nr(6, 616.0),
    nr(6, 666.0),
    nr(6, 719.0),
    nr(6, 772.0),
    nr(6, 822.0),
    nr(6, 873.0),
    nr(6, 910.0),
    nr(6, 948.0),
];

/// TS 38.214 Table 5.1.3.1-2 (MCS index table 2, up to 256QAM); indices 28–31 are reserved.
pub const NR_MCS_TABLE2: [McsRow; 28] = [
    nr(2, 120.0),
    nr(2, 193.0),
    nr(2, 308.0),
    nr(2, 449.0),
    nr(2, 602.0),
    nr(4, 378.0),
    nr(4, 434.0),
    nr(4, 490.0),
    nr(4, 553.0),
    nr(4, 616.0),
    nr(4, 658.0),
    nr(6, 466.0),
    nr(6, 517.0),
    nr(6, 567.0),
    nr(6, 616.0),
    nr(6, 666.0),
    nr(6, 719.0),
    nr(6, 772.0),
    nr(6, 822.0),
    nr(6, 873.0),
    nr(8, 682.5),
    nr(8, 711.0),
    nr(8, 754.0),
    nr(8, 797.0),
    nr(8, 841.0),
    nr(8, 885.0),
    nr(8, 916.5),
    nr(8, 948.0),
];

/// Placeholder for CQI 0 ("out of range"): nothing can be sent.
const CQI_OUT_OF_RANGE: McsRow = McsRow {
    qm: 0,
    code_rate: 0.0,
    se: 0.0,
};

/// LTE CQI table (TS 36.213 Table 7.2.3-1: Qm and R×1024) with the rounded spectral
/// efficiencies ns-3 compares against (`SpectralEfficiencyForCqi`, `mmwave-amc.cc` v1.0 and
/// `lte-amc.cc`).
pub const NS3_V1_LTE_CQI: [McsRow; 16] = [
    CQI_OUT_OF_RANGE,
    ns3(2, 78.0 / 1024.0, 0.15),
    ns3(2, 120.0 / 1024.0, 0.23),
    ns3(2, 193.0 / 1024.0, 0.38),
    ns3(2, 308.0 / 1024.0, 0.60),
    ns3(2, 449.0 / 1024.0, 0.88),
    ns3(2, 602.0 / 1024.0, 1.18),
    ns3(4, 378.0 / 1024.0, 1.48),
    ns3(4, 490.0 / 1024.0, 1.91),
    ns3(4, 616.0 / 1024.0, 2.41),
    ns3(6, 466.0 / 1024.0, 2.73),
    ns3(6, 567.0 / 1024.0, 3.32),
    ns3(6, 666.0 / 1024.0, 3.90),
    ns3(6, 772.0 / 1024.0, 4.52),
    ns3(6, 873.0 / 1024.0, 5.12),
    ns3(6, 948.0 / 1024.0, 5.55),
];

/// TS 38.214 Table 5.2.2.1-2 (CQI table 1, up to 64QAM).
pub const NR_CQI_TABLE1: [McsRow; 16] = [
    CQI_OUT_OF_RANGE,
    nr(2, 78.0),
    nr(2, 120.0),
    nr(2, 193.0),
    nr(2, 308.0),
    nr(2, 449.0),
    nr(2, 602.0),
    nr(4, 378.0),
    nr(4, 490.0),
    nr(4, 616.0),
    nr(6, 466.0),
    nr(6, 567.0),
    nr(6, 666.0),
    nr(6, 772.0),
    nr(6, 873.0),
    nr(6, 948.0),
];

/// TS 38.214 Table 5.2.2.1-3 (CQI table 2, up to 256QAM).
pub const NR_CQI_TABLE2: [McsRow; 16] = [
    CQI_OUT_OF_RANGE,
    nr(2, 78.0),
    nr(2, 193.0),
    nr(2, 449.0),
    nr(4, 378.0),
    nr(4, 490.0),
    nr(4, 616.0),
    nr(6, 466.0),
    nr(6, 567.0),
    nr(6, 666.0),
    nr(6, 772.0),
    nr(6, 873.0),
    nr(8, 711.0),
    nr(8, 797.0),
    nr(8, 885.0),
    nr(8, 948.0),
];

/// The MCS table `id`, indexed by MCS.
pub fn table(id: McsTableId) -> &'static [McsRow] {
    match id {
        McsTableId::Ns3Mmwave2017 | McsTableId::Lte => &NS3_V1_LTE_MCS,
        McsTableId::NrTable1 => &NR_MCS_TABLE1,
        McsTableId::NrTable2 => &NR_MCS_TABLE2,
    }
}

/// The CQI table that goes with MCS table `id`, indexed by CQI (0 = out of range).
pub fn cqi_table(id: McsTableId) -> &'static [McsRow; 16] {
    match id {
        McsTableId::Ns3Mmwave2017 | McsTableId::Lte => &NS3_V1_LTE_CQI,
        McsTableId::NrTable1 => &NR_CQI_TABLE1,
        McsTableId::NrTable2 => &NR_CQI_TABLE2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::amc::{self, Amc};
    use crate::phy::numerology::preset;
    use crate::phy::tbs;

    const ALL: [McsTableId; 4] = [
        McsTableId::Ns3Mmwave2017,
        McsTableId::NrTable1,
        McsTableId::NrTable2,
        McsTableId::Lte,
    ];

    #[test]
    fn tables_are_ordered_by_spectral_efficiency() {
        for id in ALL {
            let t = table(id);
            for w in t.windows(2) {
                // TS 38.214 table 1 itself dips once at the 16QAM → 64QAM switch (MCS 16:
                // 4·658/1024 = 2.5703, MCS 17: 6·438/1024 = 2.5664); nowhere by more.
                assert!(w[1].se >= w[0].se - 0.004, "{id:?}: {w:?}");
            }
            let c = cqi_table(id);
            for w in c.windows(2) {
                assert!(w[1].se > w[0].se, "{id:?}: {w:?}");
            }
            assert!(t.iter().all(|r| r.code_rate > 0.0 && r.code_rate < 1.0));
        }
    }

    #[test]
    fn nr_rows_are_exact_3gpp_values() {
        // TS 38.214 Table 5.1.3.1-1 MCS 28: 64QAM, R = 948/1024 → SE = 6·948/1024 = 5.5546875.
        let r = table(McsTableId::NrTable1)[28];
        assert_eq!((r.qm, r.code_rate * 1024.0, r.se), (6, 948.0, 5.5546875));
        // Table 5.1.3.1-2 MCS 20: 256QAM, R = 682.5/1024 → SE = 8·682.5/1024 = 5.33203125.
        let r = table(McsTableId::NrTable2)[20];
        assert_eq!((r.qm, r.code_rate * 1024.0, r.se), (8, 682.5, 5.33203125));
        // The 2017 MCS 28: 64QAM, ECR 0.92, SE table value 5.55
        // ([NS3-MMW-V1] `SpectralEfficiencyForMcs`).
        let r = table(McsTableId::Ns3Mmwave2017)[28];
        assert_eq!((r.qm, r.code_rate, r.se), (6, 0.92, 5.55));
    }

    // ---------------------------------------------------------------------------------
    // Check against the tables file (see the module doc), read at test time. A tiny JSON
    // reader lives here because the crate has no JSON dependency.

    // Strings, booleans and null are parsed but never inspected.
    #[allow(dead_code)]
    #[derive(Debug)]
    enum Json {
        Null,
        Bool(bool),
        Num(f64),
        Str(String),
        Arr(Vec<Json>),
        Obj(Vec<(String, Json)>),
    }

    impl Json {
        fn get(&self, key: &str) -> &Json {
            match self {
                Json::Obj(m) => {
                    &m.iter()
                        .find(|(k, _)| k == key)
                        .unwrap_or_else(|| panic!("JSON key {key} missing"))
                        .1
                }
                _ => panic!("JSON: not an object when looking up {key}"),
            }
        }
        fn arr(&self) -> &[Json] {
            match self {
                Json::Arr(v) => v,
                _ => panic!("JSON: not an array"),
            }
        }
        fn num(&self) -> f64 {
            match self {
                Json::Num(x) => *x,
                _ => panic!("JSON: not a number: {self:?}"),
            }
        }
        fn f(&self, key: &str) -> f64 {
            self.get(key).num()
        }
    }

    struct Parser<'a> {
        s: &'a [u8],
        i: usize,
    }

    impl Parser<'_> {
        fn ws(&mut self) {
            while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
                self.i += 1;
            }
        }
        fn eat(&mut self, c: u8) {
            self.ws();
            assert_eq!(
                self.s[self.i], c,
                "JSON: expected {} at {}",
                c as char, self.i
            );
            self.i += 1;
        }
        fn string(&mut self) -> String {
            self.eat(b'"');
            let mut out = Vec::new();
            while self.s[self.i] != b'"' {
                if self.s[self.i] == b'\\' {
                    self.i += 1;
                    let c = self.s[self.i];
                    if c == b'u' {
                        // Keep \uXXXX escapes verbatim: only keys and numbers matter here.
                        out.extend_from_slice(&self.s[self.i - 1..self.i + 5]);
                        self.i += 5;
                        continue;
                    }
                    out.push(match c {
                        b'n' => b'\n',
                        b't' => b'\t',
                        other => other,
                    });
                } else {
                    out.push(self.s[self.i]);
                }
                self.i += 1;
            }
            self.i += 1;
            String::from_utf8(out).expect("JSON string is UTF-8")
        }
        fn value(&mut self) -> Json {
            self.ws();
            match self.s[self.i] {
                b'{' => {
                    self.i += 1;
                    let mut m = Vec::new();
                    self.ws();
                    if self.s[self.i] == b'}' {
                        self.i += 1;
                        return Json::Obj(m);
                    }
                    loop {
                        let k = self.string();
                        self.eat(b':');
                        m.push((k, self.value()));
                        self.ws();
                        self.i += 1;
                        if self.s[self.i - 1] == b'}' {
                            return Json::Obj(m);
                        }
                    }
                }
                b'[' => {
                    self.i += 1;
                    let mut v = Vec::new();
                    self.ws();
                    if self.s[self.i] == b']' {
                        self.i += 1;
                        return Json::Arr(v);
                    }
                    loop {
                        v.push(self.value());
                        self.ws();
                        self.i += 1;
                        if self.s[self.i - 1] == b']' {
                            return Json::Arr(v);
                        }
                    }
                }
                b'"' => Json::Str(self.string()),
                b't' => {
                    self.i += 4;
                    Json::Bool(true)
                }
                b'f' => {
                    self.i += 5;
                    Json::Bool(false)
                }
                b'n' => {
                    self.i += 4;
                    Json::Null
                }
                _ => {
                    let start = self.i;
                    while self.i < self.s.len() && b"+-0123456789.eE".contains(&self.s[self.i]) {
                        self.i += 1;
                    }
                    let text = std::str::from_utf8(&self.s[start..self.i]).unwrap();
                    Json::Num(
                        text.parse()
                            .unwrap_or_else(|_| panic!("JSON number {text}")),
                    )
                }
            }
        }
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn constants_match_reference_json() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/reference/mcs_tables.json"
        );
        let Ok(text) = std::fs::read_to_string(path) else {
            eprintln!(
                "SKIPPED constants_match_reference_json: {path} not found \
                 (a fresh clone has no /work/shared)"
            );
            return;
        };
        let root = Parser {
            s: text.as_bytes(),
            i: 0,
        }
        .value();

        // --- ns-3 mmWave v1 LTE-like table, its thresholds, TB sizes and DL quantisation.
        let v1 = root.get("ns3mmwave_v1_lte_mcs").get("rows").arr();
        assert_eq!(v1.len(), NS3_V1_LTE_MCS.len());
        let n2017 = preset("mmwave-2017").unwrap();
        let amc2017 = Amc::new(&n2017);
        for (m, row) in v1.iter().enumerate() {
            let c = NS3_V1_LTE_MCS[m];
            assert_eq!(row.f("mcs"), m as f64);
            assert_eq!(row.f("Qm"), c.qm as f64, "v1 MCS {m}");
            assert_eq!(row.f("ecr_used_for_tb_size"), c.code_rate, "v1 MCS {m}");
            assert_eq!(row.f("se_table_value"), c.se, "v1 MCS {m}");
            assert_eq!(
                row.f("sinr_db_tbler10_full_subframe_tb"),
                amc::MIESM_2017_THRESHOLDS_DB[m],
                "v1 MCS {m}"
            );
            assert_eq!(
                row.f("tb_bytes_full_subframe_22sym"),
                n2017.tbs_bytes(m as u8, 22) as f64,
                "v1 MCS {m}"
            );
            assert_eq!(
                row.f("tb_bytes_1sym"),
                n2017.tbs_bytes(m as u8, 1) as f64,
                "v1 MCS {m}"
            );
            assert_eq!(
                row.f("dl_cqi_reported_when_this_is_best_mcs"),
                amc2017.cqi_for_mcs(m as u8) as f64,
                "v1 MCS {m}"
            );
            assert_eq!(
                row.f("dl_mcs_scheduled_after_cqi_quantisation"),
                amc2017.dl_mcs(amc::MIESM_2017_THRESHOLDS_DB[m]).unwrap() as f64,
                "v1 MCS {m}"
            );
        }
        let peak = root.get("x_tcp_peak_rate");
        assert_eq!(
            peak.f("data_re_per_symbol"),
            n2017.data_re_per_symbol as f64
        );
        assert_eq!(
            peak.f("data_symbols_per_subframe"),
            n2017.data_symbols as f64
        );
        assert_eq!(
            peak.f("tb_bits_after_crc"),
            tbs::tb_bits(&n2017, 28, 22) as f64
        );
        assert_eq!(peak.f("tb_bytes"), n2017.tbs_bytes(28, 22) as f64);
        assert!(close(
            peak.f("rate_gbps_ns3_tb"),
            n2017.peak_rate_bps() / 1e9,
            5e-4
        ));

        // --- TS 38.214 MCS tables and the EESM thresholds.
        for (key, id, thr) in [
            (
                "ts38214_mcs_table1_qam64",
                McsTableId::NrTable1,
                &amc::EESM_T1_THRESHOLDS_DB[..],
            ),
            (
                "ts38214_mcs_table2_qam256",
                McsTableId::NrTable2,
                &amc::EESM_T2_THRESHOLDS_DB[..],
            ),
        ] {
            let rows = root.get(key).get("rows").arr();
            let t = table(id);
            assert_eq!(rows.len(), t.len(), "{key}");
            assert_eq!(thr.len(), t.len(), "{key}");
            for (m, row) in rows.iter().enumerate() {
                assert_eq!(row.f("mcs"), m as f64);
                assert_eq!(row.f("Qm"), t[m].qm as f64, "{key} MCS {m}");
                assert_eq!(row.f("R_x1024"), t[m].code_rate * 1024.0, "{key} MCS {m}");
                assert!(
                    close(row.f("spectral_efficiency"), t[m].se, 5e-5),
                    "{key} MCS {m}"
                );
                assert_eq!(
                    row.get("ns3_eesm").f("sinr_db_tbler10_amc_wideband"),
                    thr[m],
                    "{key} MCS {m}"
                );
            }
        }
        for (key, thr) in [
            ("ns3mmwave_eesm_T1", &amc::EESM_T1_THRESHOLDS_DB[..]),
            ("ns3mmwave_eesm_T2", &amc::EESM_T2_THRESHOLDS_DB[..]),
        ] {
            let rows = root.get(key).get("rows").arr();
            assert_eq!(rows.len(), thr.len(), "{key}");
            for (m, row) in rows.iter().enumerate() {
                assert_eq!(
                    row.f("sinr_db_tbler10_amc_wideband"),
                    thr[m],
                    "{key} MCS {m}"
                );
            }
        }

        // --- CQI tables (index 0 is our "out of range" entry, not in the JSON).
        for (key, t) in [
            ("ts38214_cqi_table1", &NR_CQI_TABLE1),
            ("ts38214_cqi_table2", &NR_CQI_TABLE2),
        ] {
            let rows = root.get(key).get("rows").arr();
            assert_eq!(rows.len(), 15, "{key}");
            for row in rows {
                let c = row.f("cqi") as usize;
                assert_eq!(row.f("Qm"), t[c].qm as f64, "{key} CQI {c}");
                assert_eq!(row.f("R_x1024"), t[c].code_rate * 1024.0, "{key} CQI {c}");
                assert!(
                    close(row.f("spectral_efficiency"), t[c].se, 5e-5),
                    "{key} CQI {c}"
                );
            }
        }
        // The LTE CQI table has the same Qm and R as NR CQI table 1 (TS 36.213 7.2.3-1);
        // ns-3's SEs are those rounded to 2 decimals.
        for c in 1..16 {
            let (lte, nr1) = (NS3_V1_LTE_CQI[c], NR_CQI_TABLE1[c]);
            assert_eq!((lte.qm, lte.code_rate), (nr1.qm, nr1.code_rate), "CQI {c}");
            assert!(close(lte.se, nr1.se, 0.005 + 1e-9), "CQI {c}");
        }

        // --- TS 38.214 Table 5.1.3.2-1.
        let small = root.get("ts38214_tbs_table_small").get("values_bits").arr();
        assert_eq!(small.len(), tbs::TS38214_TBS_TABLE.len());
        for (j, v) in small.iter().enumerate() {
            assert_eq!(
                v.num(),
                tbs::TS38214_TBS_TABLE[j] as f64,
                "TBS table entry {j}"
            );
        }
    }
}
