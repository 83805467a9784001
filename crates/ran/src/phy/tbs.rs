//! Transport block size: how many bits one allocation carries at one MCS.
//!
//! Three rules ([`TbsRule`]):
//!
//! * **`Ns3Mmwave2017`** — ns-3 mmWave v1.x `MmWaveAmc::GetTbSizeFromMcsSymbols`
//!   ([NS3-MMW-V1] `mmwave-amc.cc`): `TB = trunc(REs·Qm·ECR − 24)`; if `TB > 6144`, another
//!   24 CRC bits per code block, `C = ceil(TB/6144)`, are removed. The MAC then uses `TB div 8`
//!   bytes. The floating-point operations are done in ns-3's order, `(REs·Qm)·ECR`, so the
//!   results agree bit for bit with ns-3 (checked for every MCS and 1…24 symbols against
//!   exact rational arithmetic when this was written; a test checks the TB sizes worked
//!   out by hand for 1 and 22 symbols).
//! * **`Ts38214`** — [TS38214 §5.1.3.2] exactly: N′_RE = 12·N_symb^sh −
//!   N_DMRS^PRB − N_oh^PRB, N_RE = min(156, N′_RE)·n_PRB, N_info = N_RE·R·Qm·v, then the
//!   quantisation and either the small-TBS table (N_info ≤ 3824) or the LDPC-segmentation
//!   formula. All arithmetic is done in integers on N_info·2048 (R = x/1024 with x a
//!   multiple of ½ in every table), so there is no rounding error.
//! * **`Lte`** — an approximation, *not* the TS 36.213 TBS table: the `Ns3Mmwave2017`
//!   arithmetic (CRC 24 bits per TB and per 6144-bit code block) applied to LTE's data REs,
//!   12 subcarriers × 11 data symbols − 12 CRS REs (2 antenna ports, outside the control
//!   region) = 120 REs per RB per TTI. With the LTE-like MCS table this gives 65,952 bits at
//!   MCS 28 over 100 RB, about 12 % below the 75,376 bits of [TS36213 Table 7.1.7.2.1-1] (I_TBS 26),
//!   whose values do not shrink with the control region; ours is what 3 control symbols actually
//!   leave at code rate 0.92.
//!
//! What an allocation of `units` means ([`Allocation`]):
//! * `Symbols`: `units` OFDM symbols over all `rbs` RBs; the per-TB reference REs
//!   (`slot_ref_re_per_rb`, e.g. one DMRS symbol) are paid once per TB.
//! * `ResourceBlocks`: `units` RBs over all `data_symbols` symbols.
//!
//! Simplifications: one spatial layer; no TB size cap (ns-3's 0x7FFF-byte cap is not
//! enforced by its scheduler either: the check is commented out in [NS3-MMW-V1]); NR
//! N_oh^PRB = 0 (the `nrTBS`/TS 38.214 default when `xOverhead` is not configured).

use super::mcs;
use super::numerology::{Allocation, Numerology, TbsRule};

/// CRC bits per transport block and per code block (TS 36.212 §5.1.1 / TS 38.212 §7.2.1;
/// ns-3 `m_crcLen`).
pub const CRC_BITS: u32 = 24;

/// Largest code block of the ns-3 v1 formula, bits (LTE turbo code Z = 6144, TS 36.212
/// §5.1.2; ns-3 `cbSize`).
pub const NS3_MAX_CB_BITS: u32 = 6144;

/// TS 38.214 Table 5.1.3.2-1: TBS for N_info ≤ 3824 (93 values, bits).
pub const TS38214_TBS_TABLE: [u32; 93] = [
    24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184,
    192, 208, 224, 240, 256, 272, 288, 304, 320, 336, 352, 368, 384, 408, 432, 456, 480, 504, 528,
    552, 576, 608, 640, 672, 704, 736, 768, 808, 848, 888, 928, 984, 1032, 1064, 1128, 1160, 1192,
    1224, 1256, 1288, 1320, 1352, 1416, 1480, 1544, 1608, 1672, 1736, 1800, 1864, 1928, 2024, 2088,
    2152, 2216, 2280, 2408, 2472, 2536, 2600, 2664, 2728, 2792, 2856, 2976, 3104, 3240, 3368, 3496,
    3624, 3752, 3824,
];

/// TB size in bits by the ns-3 mmWave v1 formula for `data_re` resource elements at
/// modulation order `qm` and effective code rate `ecr`; 0 if not even the TB CRC fits.
pub fn ns3_v1_tb_bits(data_re: u64, qm: u8, ecr: f64) -> u32 {
    // ns-3: `int tbSize = rscElement*Qm*Rcode - m_crcLen;` (truncation toward zero).
    let raw = (data_re as f64 * qm as f64) * ecr - CRC_BITS as f64;
    if raw.is_nan() || raw < 1.0 {
        return 0;
    }
    let mut tb = raw as u64;
    if tb > NS3_MAX_CB_BITS as u64 {
        // ns-3 divides by 6144 (not 6144 − 24 as TS 36.212 would) and removes one CRC per
        // code block from the TB.
        let c = tb.div_ceil(NS3_MAX_CB_BITS as u64);
        tb -= c * CRC_BITS as u64;
    }
    tb.min(u32::MAX as u64) as u32
}

/// TBS in bits by TS 38.214 §5.1.3.2 for `n_prb` PRBs of `n_symb_sh` symbols (DMRS
/// included), `n_dmrs_prb` DMRS REs and `n_oh_prb` overhead REs per PRB, modulation order
/// `qm`, code rate `r_x2048`/2048 and `layers` layers. 0 if there are no data REs.
pub fn ts38214_tb_bits(
    n_prb: u32,
    n_symb_sh: u16,
    n_dmrs_prb: u32,
    n_oh_prb: u32,
    qm: u8,
    r_x2048: u32,
    layers: u8,
) -> u32 {
    // Step 1: REs. N'_RE = 12·N_symb − N_DMRS − N_oh, capped at 156 per PRB.
    let n_re_prime = (12 * n_symb_sh as u64).saturating_sub(n_dmrs_prb as u64 + n_oh_prb as u64);
    let n_re = n_re_prime.min(156) * n_prb as u64;
    // Step 2: N_info = N_RE·R·Qm·v, held exactly as num = N_info·2048.
    let num = n_re * r_x2048 as u64 * qm as u64 * layers as u64;
    if num == 0 {
        return 0;
    }
    const SCALE_LOG2: i64 = 11; // num = N_info · 2^11
    if num <= 3824 << SCALE_LOG2 {
        // Step 3: n = max(3, floor(log2 N_info) − 6); N'_info = max(24, 2^n·floor(N_info/2^n)).
        let log2_n_info = floor_log2(num) - SCALE_LOG2;
        let n = (log2_n_info - 6).max(3) as u32;
        let n_info_q = ((num >> (n as i64 + SCALE_LOG2)) << n).max(24);
        // The table ends at 3824 ≥ N'_info, so an entry always exists.
        return *TS38214_TBS_TABLE
            .iter()
            .find(|&&t| t as u64 >= n_info_q)
            .expect("N'_info <= 3824 = last entry of Table 5.1.3.2-1");
    }
    // Step 4: n = floor(log2(N_info − 24)) − 5;
    // N'_info = max(3840, 2^n·round((N_info − 24)/2^n)), round half up.
    let m = num - (24 << SCALE_LOG2); // (N_info − 24)·2^11
    let n = (floor_log2(m) - SCALE_LOG2 - 5) as u32; // N_info > 3824 ⇒ n ≥ 6
    let shift = n as i64 + SCALE_LOG2;
    let rounded = (m + (1 << (shift - 1))) >> shift;
    let n_info_q = (rounded << n).max(3840);
    let tbs = if r_x2048 <= 512 {
        // R ≤ 1/4: C = ceil((N'_info + 24)/3816).
        let c = (n_info_q + 24).div_ceil(3816);
        8 * c * (n_info_q + 24).div_ceil(8 * c) - 24
    } else if n_info_q > 8424 {
        let c = (n_info_q + 24).div_ceil(8424);
        8 * c * (n_info_q + 24).div_ceil(8 * c) - 24
    } else {
        8 * (n_info_q + 24).div_ceil(8) - 24
    };
    tbs.min(u32::MAX as u64) as u32
}

fn floor_log2(x: u64) -> i64 {
    debug_assert!(x > 0);
    63 - x.leading_zeros() as i64
}

/// Data REs of `units` resource units under the numerology's allocation (for the ns-3-style
/// rules), with the per-TB reference REs removed.
fn data_re(num: &Numerology, units: u16) -> u64 {
    let units = units as u64;
    let per_tb_ref = num.slot_ref_re_per_rb as u64;
    match num.allocation {
        Allocation::Symbols => {
            (num.data_re_per_symbol as u64 * units).saturating_sub(per_tb_ref * num.rbs as u64)
        }
        Allocation::ResourceBlocks => {
            let per_rb_symbol = (num.data_re_per_symbol / num.rbs) as u64;
            units * (per_rb_symbol * num.data_symbols as u64).saturating_sub(per_tb_ref)
        }
    }
}

/// TB size in bits of `units` units at `mcs` under `num`'s rule.
///
/// # Panics
/// If `mcs` is beyond the numerology's MCS table (a scheduler bug).
pub fn tb_bits(num: &Numerology, mcs: u8, units: u16) -> u32 {
    let rows = mcs::table(num.mcs_table);
    let row = rows.get(mcs as usize).unwrap_or_else(|| {
        panic!(
            "MCS {mcs} beyond table {:?} (max {})",
            num.mcs_table,
            rows.len() - 1
        )
    });
    if units == 0 {
        return 0;
    }
    match num.tbs_rule {
        TbsRule::Ns3Mmwave2017 | TbsRule::Lte => {
            ns3_v1_tb_bits(data_re(num, units), row.qm, row.code_rate)
        }
        TbsRule::Ts38214 => {
            let (n_prb, n_symb) = match num.allocation {
                Allocation::Symbols => (num.rbs, units),
                Allocation::ResourceBlocks => (units as u32, num.data_symbols),
            };
            // Exact for the 3GPP tables (R×2048 is an integer); rounded for others.
            let r_x2048 = (row.code_rate * 2048.0).round() as u32;
            ts38214_tb_bits(n_prb, n_symb, num.slot_ref_re_per_rb, 0, row.qm, r_x2048, 1)
        }
    }
}

/// TB size in bytes (`tb_bits / 8`, rounded down as ns-3's scheduler does).
pub fn tb_bytes(num: &Numerology, mcs: u8, units: u16) -> u32 {
    tb_bits(num, mcs, units) / 8
}

/// Smallest number of units, at most `units_per_slot`, whose TB holds `bytes` by
/// `tb(units)`; `units_per_slot` if even the whole slot is too small, 0 for `bytes == 0`.
/// (See [`Numerology::units_for_bytes`] for why a binary search is right.)
pub(crate) fn smallest_units(units_per_slot: u16, bytes: u32, tb: impl Fn(u16) -> u32) -> u16 {
    if bytes == 0 {
        return 0;
    }
    let (mut lo, mut hi) = (1u16, units_per_slot);
    if tb(hi) < bytes {
        return hi;
    }
    // Invariant: tb(hi) >= bytes.
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if tb(mid) >= bytes {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    hi
}

/// Every TB size of one numerology, bytes, by (MCS, units): the scheduler asks for them
/// several times per candidate per slot, and the 3GPP procedure behind each is dozens of
/// operations. Built once per cell from [`tb_bytes`], so it gives exactly its values.
#[derive(Clone, Debug)]
pub struct TbsTable {
    /// `units_per_slot + 1` entries per MCS, units 0 included.
    bytes: Vec<u32>,
    units_per_slot: u16,
}

impl TbsTable {
    /// The table of `num`.
    pub fn new(num: &Numerology) -> TbsTable {
        let u = num.units_per_slot;
        let bytes = (0..=num.max_mcs())
            .flat_map(|mcs| (0..=u).map(move |units| tb_bytes(num, mcs, units)))
            .collect();
        TbsTable {
            bytes,
            units_per_slot: u,
        }
    }

    /// [`tb_bytes`] of `units` at `mcs`.
    #[inline]
    pub fn tb_bytes(&self, mcs: u8, units: u16) -> u32 {
        self.bytes[mcs as usize * (self.units_per_slot as usize + 1) + units as usize]
    }

    /// [`Numerology::units_for_bytes`], from the table.
    pub fn units_for_bytes(&self, mcs: u8, bytes: u32) -> u16 {
        smallest_units(self.units_per_slot, bytes, |u| self.tb_bytes(mcs, u))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::numerology::preset;

    #[test]
    fn the_table_holds_every_size_of_the_procedure() {
        for name in crate::phy::numerology::PRESETS {
            let n = preset(name).unwrap();
            let t = TbsTable::new(&n);
            for mcs in 0..=n.max_mcs() {
                for units in 0..=n.units_per_slot {
                    assert_eq!(t.tb_bytes(mcs, units), tb_bytes(&n, mcs, units), "{name}");
                }
                for bytes in [0u32, 1, 100, 1500, 10_000, 50_000, 10_000_000] {
                    assert_eq!(t.units_for_bytes(mcs, bytes), n.units_for_bytes(mcs, bytes));
                }
            }
        }
    }

    #[test]
    fn mmwave_2017_mcs28_full_subframe_is_313500_bits() {
        let n = preset("mmwave-2017").unwrap();
        // [NS3-MMW-V1] formula: 2592·22·6·0.92 = 314,772.48; −24 → 314,748; C = ceil(314,748/6144) = 52;
        // −52·24 = −1,248 → 313,500 bits; /8 → 39,187 bytes.
        assert_eq!(tb_bits(&n, 28, 22), 313_500);
        assert_eq!(tb_bytes(&n, 28, 22), 39_187);
    }

    #[test]
    fn mmwave_2017_tbs_by_the_section_7_1_formula() {
        let n = preset("mmwave-2017").unwrap();
        // MCS 0, 1 symbol: 2592·2·0.08 = 414.72; −24 = 390.72 → 390 bits (≤ 6144, one CB)
        // → 48 bytes.
        assert_eq!(tb_bits(&n, 0, 1), 390);
        assert_eq!(tb_bytes(&n, 0, 1), 48);
        // MCS 10, 5 symbols: 12,960 REs·4·0.30 = 15,552; −24 = 15,528; C = ceil(2.53) = 3;
        // −72 → 15,456 bits = 1,932 bytes.
        assert_eq!(tb_bits(&n, 10, 5), 15_456);
        assert_eq!(tb_bytes(&n, 10, 5), 1_932);
        // MCS 28, 1 symbol: 2592·6·0.92 = 14,307.84; −24 = 14,283.84 → 14,283; C = 3;
        // −72 → 14,211 bits = 1,776 bytes.
        assert_eq!(tb_bits(&n, 28, 1), 14_211);
        assert_eq!(tb_bytes(&n, 28, 1), 1_776);
        // MCS 16, 22 symbols: 57,024·4·0.60 = 136,857.6; −24 → 136,833; C = ceil(22.27) = 23;
        // −552 → 136,281 bits = 17,035 bytes.
        assert_eq!(tb_bits(&n, 16, 22), 136_281);
        assert_eq!(tb_bytes(&n, 16, 22), 17_035);
        // Nothing allocated, nothing sent.
        assert_eq!(tb_bits(&n, 28, 0), 0);
    }

    /// TS 38.214 for one layer, R given as R×1024 (integer tables).
    fn nr1(n_prb: u32, n_symb: u16, qm: u8, r_x1024: u32) -> u32 {
        ts38214_tb_bits(n_prb, n_symb, 12, 0, qm, 2 * r_x1024, 1)
    }

    #[test]
    fn ts38214_large_tbs_worked_examples() {
        // 264 PRB, 12 symbols incl. one DMRS symbol (N_DMRS = 12), MCS 28 (Qm 6, R 948/1024):
        // N'_RE = 144 − 12 = 132; N_RE = 34,848; N_info = 34,848·948/1024·6 = 193,569.75;
        // N_info − 24 = 193,545.75, floor(log2) = 17 → n = 12;
        // round(193,545.75/4096 = 47.25) = 47 → N'_info = 192,512;
        // R > 1/4 and N'_info > 8424: C = ceil(192,536/8424) = 23;
        // TBS = 8·23·ceil(192,536/184) − 24 = 184·1047 − 24 = 192,624.
        assert_eq!(nr1(264, 12, 6, 948), 192_624);
        // The standard maximum: 273 PRB, 4 layers, 256QAM R 948/1024, N_RE capped at 156:
        // N_info = 42,588·948/1024·8·4 = 1,261,669.5; −24 → floor(log2) = 20 → n = 15;
        // round(1,261,645.5/32,768 = 38.50) = 39 → 1,277,952; C = ceil(1,277,976/8424) = 152;
        // TBS = 1216·ceil(1,277,976/1216) − 24 = 1216·1051 − 24 = 1,277,992.
        assert_eq!(ts38214_tb_bits(273, 14, 0, 0, 8, 2 * 948, 4), 1_277_992);
        // R ≤ 1/4 branch: 264 PRB, 12 symbols, MCS 0 (Qm 2, R 120/1024):
        // N_info = 34,848·120/1024·2 = 8,167.5; −24 = 8,143.5 → floor(log2) = 12 → n = 7;
        // round(8,143.5/128 = 63.62) = 64 → N'_info = 8,192; C = ceil(8,216/3816) = 3;
        // TBS = 24·ceil(8,216/24) − 24 = 24·343 − 24 = 8,208.
        assert_eq!(nr1(264, 12, 2, 120), 8_208);
        // N'_info ≤ 8424 branch: 30 PRB, MCS 10 (Qm 4, R 340/1024): N_RE = 3,960;
        // N_info = 3,960·340/1024·4 = 5,259.375; −24 = 5,235.375 → n = 7;
        // round(40.90) = 41 → 5,248; TBS = 8·ceil(5,272/8) − 24 = 5,248.
        assert_eq!(nr1(30, 12, 4, 340), 5_248);
    }

    #[test]
    fn ts38214_small_tbs_table_worked_by_hand() {
        // 10 PRB, 12 symbols incl. DMRS → N_RE = 1,320; MCS 9 (Qm 2, R 679/1024):
        // N_info = 1,320·679/1024·2 = 1,750.546875 ≤ 3824; floor(log2) = 10 → n = max(3, 4) = 4;
        // N'_info = 16·floor(1,750.55/16) = 16·109 = 1,744; smallest table entry ≥ 1,744
        // (…, 1736, 1800, …) → 1,800.
        assert_eq!(nr1(10, 12, 2, 679), 1_800);
        // 4 PRB, MCS 10 (Qm 4, R 340/1024): N_RE = 528; N_info = 701.25; floor(log2) = 9 →
        // n = 3; N'_info = 8·87 = 696 → next entry ≥ 696 (672, 704) → 704.
        assert_eq!(nr1(4, 12, 4, 340), 704);
        // 1 PRB, MCS 0: N_info = 132·120/1024·2 = 30.94; n = 3; 8·floor(3.87) = 24 → 24.
        assert_eq!(nr1(1, 12, 2, 120), 24);
        // A PRB that only carries DMRS has no data REs.
        assert_eq!(nr1(10, 1, 6, 948), 0);
    }

    #[test]
    fn nr_fr2_preset_uses_ts38214_per_rb() {
        let n = preset("nr-fr2").unwrap();
        // All 264 RB at MCS 28 is the worked example: 192,624 bits = 24,078 bytes.
        assert_eq!(tb_bits(&n, 28, 264), 192_624);
        // 10 RB at MCS 9 is the small-table case above: 1,800 bits = 225 bytes.
        assert_eq!(tb_bytes(&n, 9, 10), 225);
    }

    #[test]
    fn tbs_grows_with_units_and_mcs_up_to_crc_steps() {
        for name in crate::phy::numerology::PRESETS {
            let n = preset(name).unwrap();
            for mcs in 0..=n.max_mcs() {
                let mut prev = 0;
                for u in 1..=n.units_per_slot {
                    let b = tb_bits(&n, mcs, u);
                    // ns-3 rule: crossing a 6144-bit code-block boundary can cost up to 2·24
                    // bits; TS 38.214 never shrinks.
                    assert!(b + 48 >= prev, "{name} mcs {mcs} units {u}: {b} < {prev}");
                    prev = b;
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "MCS 29 beyond table")]
    fn mcs_beyond_table_is_a_bug() {
        let n = preset("mmwave-2017").unwrap();
        let _ = tb_bits(&n, 29, 1);
    }
}
