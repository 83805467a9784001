//! Transport-block error probability from SINR, with HARQ soft combining.
//!
//! # Model
//! ns-3 mmWave computes a TB's error probability from link-level curves: MIESM over the LTE
//! turbo-code curves in v1.x ([NS3-MMW-V1] `mmwave-mi-error-model.cc`) and EESM over the NR
//! LDPC curves from v4.0 on ([NS3-MMW-HEAD] `error-model/mmwave-eesm-*.cc`). This crate keeps
//! only the SINR at which each MCS reaches TBLER 10 % (computed from those models, see
//! `amc.rs`), not the curves' coefficient tables, so this module uses a **parametric
//! waterfall** anchored on those thresholds:
//!
//! `TBLER(mcs, γ) = Q(z₁₀ + (γ − γ₁₀(mcs)) / σ)`
//!
//! with γ the effective SINR in dB, γ₁₀ the 10 % threshold of [`Amc::threshold_db`], Q the
//! Gaussian tail function, z₁₀ = Q⁻¹(0.1) = 1.28155 (so TBLER is exactly 10 % at the
//! threshold) and σ chosen so that TBLER falls from 10 % to 1 % over [`WATERFALL_DB`] = 1 dB:
//! σ = 1 dB / (Q⁻¹(0.01) − Q⁻¹(0.1)) = 1 / (2.32635 − 1.28155) = 0.957 dB. 1 dB per decade
//! is typical of turbo/LDPC TB curves of a few code blocks at these block lengths; ns-3's
//! curves for many-code-block TBs are steeper, its single small-CB curves shallower.
//!
//! # HARQ combining
//! `sinr_db` lists the SINR of each transmission of the TB so far (the current one last).
//! The effective SINR is the **Chase-combining** sum of the linear SINRs,
//! γ_eff = 10·log10(Σ 10^(γᵢ/10)) — two equal transmissions gain 3.01 dB. ns-3 models
//! incremental redundancy (MIESM: code-bit-weighted MI accumulation with the curve of a
//! lower effective code rate; EESM-IR: SINR accumulation *and* a lower-rate curve), which
//! gains more than Chase, especially at high code rates; Chase is therefore a conservative
//! (pessimistic) bound on ns-3's retransmission success. As in ns-3 (`mmwave-spectrum-phy.cc`
//! draws U(0,1) ≤ TBLER at each reception), the value returned is used as an independent
//! per-attempt probability, not conditioned on the earlier failures.
//!
//! # Simplifications against ns-3
//! * No frequency selectivity: the caller passes one wideband SINR per transmission, so the
//!   MIESM/EESM averaging over chunks/RBs is the identity.
//! * No TB-size dependence: the thresholds are those of the AMC's reference TB (see
//!   `amc.rs`); ns-3's per-TB code-block segmentation moves the 10 % point by up to
//!   ~0.7 dB between a 1-symbol and a 22-symbol TB (MIESM). `tb_bytes` is accepted for a
//!   future size-aware model and for symmetry with ns-3's interface, and is unused now.
//! * One slope for all MCS.
//!
//! [`Amc::threshold_db`]: super::amc::Amc::threshold_db

use super::amc::Amc;
use super::numerology::Numerology;
use mmtsim_engine::memo::LastValue;

/// SINR distance, dB, over which TBLER falls from 10 % to 1 % (slope of the waterfall).
pub const WATERFALL_DB: f64 = 1.0;

/// Q⁻¹(0.1): standard-normal quantile with tail probability 10 %.
const Z_TBLER_10: f64 = 1.281_551_565_544_600_4;
/// Q⁻¹(0.01): standard-normal quantile with tail probability 1 %.
const Z_TBLER_1: f64 = 2.326_347_874_040_840_8;

/// Standard deviation of the waterfall in dB: `WATERFALL_DB / (z₁ − z₁₀)` ≈ 0.957 dB.
pub const WATERFALL_SIGMA_DB: f64 = WATERFALL_DB / (Z_TBLER_1 - Z_TBLER_10);

/// Gaussian tail function Q(z) = P(N(0,1) > z).
pub fn q_function(z: f64) -> f64 {
    0.5 * libm::erfc(z / std::f64::consts::SQRT_2)
}

/// First-transmission TBLER of an MCS whose 10 % threshold is `threshold_db`, at effective
/// SINR `sinr_eff_db`. 1 for a NaN SINR.
pub fn waterfall_tbler(threshold_db: f64, sinr_eff_db: f64) -> f64 {
    if sinr_eff_db.is_nan() {
        return 1.0;
    }
    q_function(waterfall_z(threshold_db, sinr_eff_db))
}

/// The standard-normal argument of the waterfall: TBLER = Q(z).
fn waterfall_z(threshold_db: f64, sinr_eff_db: f64) -> f64 {
    Z_TBLER_10 + (sinr_eff_db - threshold_db) / WATERFALL_SIGMA_DB
}

/// Chase-combined SINR, dB, of transmissions with SINRs `sinr_db`: 10·log10 Σ 10^(γᵢ/10).
/// A single transmission is returned unchanged (no dB → linear → dB round trip).
///
/// # Panics
/// If `sinr_db` is empty: a TB that was never transmitted has no error probability.
pub fn chase_combined_sinr_db(sinr_db: &[f64]) -> f64 {
    match sinr_db {
        [] => panic!("chase_combined_sinr_db: no transmission"),
        [one] => *one,
        many => {
            10.0 * many
                .iter()
                .map(|s| 10f64.powf(s / 10.0))
                .sum::<f64>()
                .log10()
        }
    }
}

/// Probability that a TB at `mcs` fails to decode after the transmissions whose SINRs are
/// `sinr_db` (each in dB, the current one last), combined as described in the module doc.
///
/// `num` and `tb_bytes` are not used by the present model (see the module doc); `amc`
/// supplies the threshold of `mcs`.
///
/// # Panics
/// If `sinr_db` is empty or `mcs` is beyond the AMC's table.
pub fn tb_error_prob(num: &Numerology, amc: &Amc, mcs: u8, tb_bytes: u32, sinr_db: &[f64]) -> f64 {
    debug_assert_eq!(num.mcs_table, amc.table_id(), "AMC of another MCS table");
    let _ = tb_bytes;
    waterfall_tbler(amc.threshold_db(mcs), chase_combined_sinr_db(sinr_db))
}

/// Standard-normal arguments z for which Q(z) is certainly in (0, 2⁻⁵³]: Q(8.5) =
/// 9.5e−18, a twelfth of 2⁻⁵³ = 1.1e−16 (room for any rounding of `erfc`), and below
/// z = 37 (x = z/√2 < 26.2) `erfc` is a normal number, far from underflowing to zero.
const Z_BELOW_GRID: std::ops::Range<f64> = 8.5..37.0;

/// Whether a TB at `mcs` after the transmissions with SINRs `sinr_db` decodes, given the
/// uniform draw `u`: exactly `u >= tb_error_prob(…)`, for `u` a multiple of 2⁻⁵³ in
/// [0, 1) (what `rand`'s standard `f64` draw gives).
///
/// Most blocks are sent well above their MCS's threshold (the highest MCS at a high SINR),
/// where the error probability is below the draw's grid: then `u >= p` holds exactly when
/// `u > 0`, and the Gaussian tail need not be computed (`erfc` is a tenth of a ten-UE
/// cell's time).
#[allow(clippy::too_many_arguments)]
pub fn tb_decoded(
    num: &Numerology,
    amc: &Amc,
    mcs: u8,
    tb_bytes: u32,
    sinr_db: &[f64],
    u: f64,
    memo: &mut TblerMemo,
) -> bool {
    debug_assert_eq!(num.mcs_table, amc.table_id(), "AMC of another MCS table");
    debug_assert_eq!(u * (1u64 << 53) as f64, (u * (1u64 << 53) as f64).floor());
    let _ = tb_bytes;
    let (threshold_db, sinr_eff_db) = (amc.threshold_db(mcs), chase_combined_sinr_db(sinr_db));
    // A NaN SINR gives a NaN z, never in the range: it takes the general path below.
    if Z_BELOW_GRID.contains(&waterfall_z(threshold_db, sinr_eff_db)) {
        return u > 0.0;
    }
    // What `tb_error_prob` gives, from the combined SINR already computed.
    u >= tbler_memo(memo, threshold_db, sinr_eff_db)
}

/// The last error probability [`tb_decoded`] computed for one transmitter, keyed on the
/// exact bits of its inputs (the MCS's threshold and the effective SINR). A transmitter's
/// SINR changes only at its channel updates (downlink with `Active` interference: with its
/// neighbours' slots) and its MCS with it, so the blocks of one update, one every slot or
/// so, ask for the same value: it is computed once (an `erfc`, a tenth of a ten-UE cell's
/// time before this memo). Equal inputs give equal bits, so results are those of
/// computing it each time.
pub type TblerMemo = LastValue<(u64, u64), f64>;

/// [`waterfall_tbler`] of `threshold_db` and `sinr_eff_db` through `memo`.
fn tbler_memo(memo: &mut TblerMemo, threshold_db: f64, sinr_eff_db: f64) -> f64 {
    memo.get_or((threshold_db.to_bits(), sinr_eff_db.to_bits()), || {
        waterfall_tbler(threshold_db, sinr_eff_db)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::numerology::{preset, PRESETS};
    use proptest::prelude::*;

    #[test]
    fn quantiles_are_right() {
        // Q(1.28155) = 0.1 and Q(2.32635) = 0.01 by definition of the constants; Q(0) = ½.
        assert!((q_function(Z_TBLER_10) - 0.1).abs() < 1e-12);
        assert!((q_function(Z_TBLER_1) - 0.01).abs() < 1e-12);
        assert!((q_function(0.0) - 0.5).abs() < 1e-15);
        // σ = 1 / (2.326348 − 1.281552) = 1 / 1.044796 = 0.957125 dB.
        assert!((WATERFALL_SIGMA_DB - 0.957_125).abs() < 1e-5);
    }

    #[test]
    fn tbler_is_ten_percent_at_every_threshold_and_one_percent_a_waterfall_later() {
        for name in PRESETS {
            let n = preset(name).unwrap();
            let amc = Amc::new(&n);
            for mcs in 0..=n.max_mcs() {
                let t = amc.threshold_db(mcs);
                let tb = n.tbs_bytes(mcs, n.units_per_slot);
                let p = tb_error_prob(&n, &amc, mcs, tb, &[t]);
                assert!((p - 0.1).abs() < 1e-12, "{name} MCS {mcs}: {p}");
                let p1 = tb_error_prob(&n, &amc, mcs, tb, &[t + WATERFALL_DB]);
                assert!((p1 - 0.01).abs() < 1e-12, "{name} MCS {mcs}: {p1}");
            }
        }
        // Spot check with a literal computed MIESM threshold: 2017 MCS 28 at 20.09 dB.
        let n = preset("mmwave-2017").unwrap();
        let amc = Amc::new(&n);
        assert!((tb_error_prob(&n, &amc, 28, 39_187, &[20.09]) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn tbler_decreases_with_sinr_from_one_to_zero() {
        let n = preset("nr-fr2").unwrap();
        let amc = Amc::new(&n);
        let mut prev = 1.0;
        for i in 0..=400 {
            let s = -10.0 + i as f64 * 0.1;
            let p = tb_error_prob(&n, &amc, 10, 1000, &[s]);
            assert!(p <= prev, "not decreasing at {s} dB");
            assert!((0.0..=1.0).contains(&p));
            prev = p;
        }
        // MCS 10's threshold is 6.60 dB: 10 dB below it the TB is lost, 10 dB above it is not.
        assert!(tb_error_prob(&n, &amc, 10, 1000, &[-3.4]) > 0.999_999);
        assert!(tb_error_prob(&n, &amc, 10, 1000, &[16.6]) < 1e-20);
        assert_eq!(tb_error_prob(&n, &amc, 10, 1000, &[f64::NEG_INFINITY]), 1.0);
        assert_eq!(tb_error_prob(&n, &amc, 10, 1000, &[f64::NAN]), 1.0);
    }

    #[test]
    fn a_retransmission_lowers_the_error_probability() {
        let n = preset("mmwave-2017").unwrap();
        let amc = Amc::new(&n);
        let t = amc.threshold_db(20);
        let first = tb_error_prob(&n, &amc, 20, 23_426, &[t]);
        let second = tb_error_prob(&n, &amc, 20, 23_426, &[t, t]);
        // Chase: two equal transmissions → +10·log10(2) = 3.0103 dB → z = 1.28155 +
        // 3.0103/0.957125 = 4.4267 → Q ≈ 4.8e-6.
        let expect = q_function(Z_TBLER_10 + 10.0 * 2f64.log10() / WATERFALL_SIGMA_DB);
        assert!((second - expect).abs() < 1e-15);
        assert!(second < 1e-5 && second < first);
        // Even a retransmission in a deep fade (−20 dB) helps a little, never hurts.
        let faded = tb_error_prob(&n, &amc, 20, 23_426, &[t, t - 20.0]);
        assert!(faded < first);
        // Chase of 10 dB and 10 dB = 13.01 dB; of 0 dB and 0 dB and 0 dB = 4.77 dB.
        assert!((chase_combined_sinr_db(&[10.0, 10.0]) - 13.0103).abs() < 1e-4);
        assert!((chase_combined_sinr_db(&[0.0, 0.0, 0.0]) - 4.7712).abs() < 1e-4);
    }

    #[test]
    fn below_the_grid_the_error_probability_is_positive_and_at_most_one_step_of_the_draw() {
        // `tb_decoded`'s short cut rests on 0 < Q(z) ≤ 2⁻⁵³ over `Z_BELOW_GRID`: checked
        // on a sweep of a million points, both ends included.
        let step = 2f64.powi(-53);
        let (lo, hi) = (Z_BELOW_GRID.start, Z_BELOW_GRID.end);
        for i in 0..=1_000_000 {
            let z = lo + (hi - lo) * i as f64 / 1e6;
            let p = q_function(z);
            assert!(p > 0.0 && p <= step, "Q({z}) = {p:e}");
        }
        // No SINR (NaN): the block is lost whatever the draw, as TBLER = 1 says.
        let n = preset("nr-fr2").unwrap();
        let amc = Amc::new(&n);
        for u in [0.0, 0.5, 1.0 - step] {
            assert!(!tb_decoded(
                &n,
                &amc,
                10,
                1000,
                &[f64::NAN],
                u,
                &mut TblerMemo::default()
            ));
        }
        // Tables of the normal tail: Q(8.5) = 9.4795e−18, Q(37) = 5.7256e−300.
        assert!((q_function(8.5) / 9.4795e-18 - 1.0).abs() < 1e-4);
        assert!((q_function(37.0) / 5.7256e-300 - 1.0).abs() < 1e-4);
    }

    #[test]
    #[should_panic(expected = "no transmission")]
    fn no_transmission_is_a_bug() {
        let _ = chase_combined_sinr_db(&[]);
    }

    proptest! {
        #[test]
        fn a_block_decodes_when_the_draw_is_at_least_its_error_probability(
            s in -30.0f64..80.0,
            again in proptest::option::of(-30.0f64..80.0),
            mcs in 0u8..=27,
            k in prop_oneof![Just(0u64), Just(1), Just(2), 0u64..(1 << 53)],
        ) {
            // The draw on rand's grid of 2⁻⁵³, its smallest steps included.
            let u = k as f64 * 2f64.powi(-53);
            let sinrs: Vec<f64> = std::iter::once(s).chain(again).collect();
            for name in PRESETS {
                let n = preset(name).unwrap();
                let amc = Amc::new(&n);
                let mcs = mcs.min(n.max_mcs());
                let p = tb_error_prob(&n, &amc, mcs, 1000, &sinrs);
                prop_assert_eq!(tb_decoded(&n, &amc, mcs, 1000, &sinrs, u, &mut TblerMemo::default()), u >= p, "{} MCS {} p {:e}", name, mcs, p);
            }
        }

        #[test]
        fn the_memo_gives_what_computing_afresh_gives(
            // Indices into a few thresholds and SINRs, so that inputs repeat, change one at
            // a time, and come back (NaN and a SINR one ulp off included).
            calls in proptest::collection::vec((0usize..3, 0usize..5), 1..60),
        ) {
            let thresholds = [4.0, 6.6, 20.09];
            let near = f64::from_bits(8.0f64.to_bits() + 1);
            let sinrs = [8.0, near, 30.0, -5.0, f64::NAN];
            let mut memo = TblerMemo::default();
            for (t, s) in calls {
                let (t, s) = (thresholds[t], sinrs[s]);
                let want = waterfall_tbler(t, s);
                prop_assert_eq!(tbler_memo(&mut memo, t, s).to_bits(), want.to_bits(), "{} dB, {} dB", t, s);
            }
        }

        #[test]
        fn error_probability_is_monotone(
            s in -30.0f64..50.0,
            d in 0.0f64..10.0,
            extra in -30.0f64..50.0,
            mcs in 0u8..=27,
        ) {
            for name in PRESETS {
                let n = preset(name).unwrap();
                let amc = Amc::new(&n);
                let p = tb_error_prob(&n, &amc, mcs, 1000, &[s]);
                prop_assert!((0.0..=1.0).contains(&p));
                // Better SINR, never worse.
                prop_assert!(tb_error_prob(&n, &amc, mcs, 1000, &[s + d]) <= p);
                // Another transmission, never worse.
                prop_assert!(tb_error_prob(&n, &amc, mcs, 1000, &[extra, s]) <= p);
                // Higher MCS at the same SINR, never better.
                if mcs < n.max_mcs() {
                    prop_assert!(tb_error_prob(&n, &amc, mcs + 1, 1000, &[s]) >= p);
                }
            }
        }
    }
}
