//! Link budget: thermal noise, beamforming gain, dB/linear conversion and SINR.
//!
//! References: [NS3-MMW-V1] `MmWaveSpectrumValueHelper` (`CreateNoisePowerSpectralDensity`:
//! kT = −174 dBm/Hz times the noise figure; `CreateTxPowerSpectralDensity`: the transmit
//! power spread evenly over the band), `MmWaveSpectrumPhy` (SINR per chunk) and
//! `MmWaveHelper` (the antenna arrays whose ideal gain is computed below).
//!
//! Simplifications:
//! - ns-3 computes SINR per 13.9 MHz chunk and hands the vector to its error model. With flat
//!   (frequency-non-selective) gains, as everything in this crate produces, every chunk has the
//!   same SINR, so one wideband value carries the same information.
//! - Beamforming gain is the upper bound of ideal single-path alignment, 10·log10(N_gNB·N_UE)
//!   (our bound: one path, both arrays steered exactly at each other). Real arrays over a
//!   multi-cluster channel achieve less; a scenario that wants to model that lowers
//!   `bf_gain_db` in its link parameters.

/// Thermal noise density kT at T0 = 290 K, dBm/Hz, as ns-3 uses it (`kT_dBm_Hz = -174.0` in
/// `MmWaveSpectrumValueHelper::CreateNoisePowerSpectralDensity`; exact kT is −173.98).
pub const THERMAL_NOISE_DBM_PER_HZ: f64 = -174.0;

/// Default transmit power of gNB and UE, dBm ([NS3-MMW-V1] and [NS3-MMW-HEAD] `TxPower`).
pub const DEFAULT_TX_POWER_DBM: f64 = 30.0;

/// Default noise figure of gNB and UE receivers, dB ([NS3-MMW-V1], [NS3-MMW-HEAD]).
pub const DEFAULT_NOISE_FIGURE_DB: f64 = 5.0;

/// gNB array elements of ns-3 mmWave v1 ([NS3-MMW-V1] `MmWaveHelper`, 8×8).
pub const MMW_V1_GNB_ANTENNAS: u32 = 64;

/// UE array elements of ns-3 mmWave v1 ([NS3-MMW-V1] `MmWaveHelper`, 4×4).
pub const MMW_V1_UE_ANTENNAS: u32 = 16;

/// Thermal noise power over `bandwidth_hz` at a receiver with `noise_figure_db`, dBm:
/// −174 dBm/Hz + 10·log10(B) + NF.
pub fn thermal_noise_dbm(bandwidth_hz: f64, noise_figure_db: f64) -> f64 {
    debug_assert!(
        bandwidth_hz > 0.0,
        "bandwidth must be positive, got {bandwidth_hz} Hz"
    );
    THERMAL_NOISE_DBM_PER_HZ + lin_to_db(bandwidth_hz) + noise_figure_db
}

/// Ideal single-path array gain of an `gnb_antennas` × `ue_antennas` link, dB:
/// 10·log10(N_gNB·N_UE) (both arrays steered exactly at each other: the upper bound).
pub fn beamforming_gain_db(gnb_antennas: u32, ue_antennas: u32) -> f64 {
    assert!(
        gnb_antennas > 0 && ue_antennas > 0,
        "antenna counts must be positive (gNB {gnb_antennas}, UE {ue_antennas})"
    );
    lin_to_db(gnb_antennas as f64 * ue_antennas as f64)
}

/// dB (or dBm) to linear (or mW): 10^(db/10).
#[inline]
pub fn db_to_lin(db: f64) -> f64 {
    10f64.powf(db / 10.0)
}

/// Linear (or mW) to dB (or dBm): 10·log10(x). Zero gives −∞.
#[inline]
pub fn lin_to_db(x: f64) -> f64 {
    10.0 * x.log10()
}

/// SINR in dB of a signal received at `signal_dbm`, with interferers received at
/// `interference_dbm` (each dBm) and noise power `noise_dbm` over the same bandwidth:
/// S / (N + Σ I), the sum taken in milliwatts.
pub fn sinr_db(signal_dbm: f64, interference_dbm: &[f64], noise_dbm: f64) -> f64 {
    let mut n_mw = db_to_lin(noise_dbm);
    for &i in interference_dbm {
        n_mw += db_to_lin(i);
    }
    // Subtracting in dB keeps precision when the signal is tiny (e.g. a 500 dB outage loss).
    signal_dbm - lin_to_db(n_mw)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn xtcp_noise_over_72_chunks_is_minus_79_dbm() {
        // 72 chunks × 13.889 MHz = 1.000008 GHz; 10·log10(1.000008e9) = 90.0000035 dB;
        // −174 + 90.0 + 5 (NF) = −79.0 dBm, the noise of the X-TCP link budget.
        let n = thermal_noise_dbm(72.0 * 13.889e6, 5.0);
        assert!(close(n, -79.0, 0.001), "{n}");
        // 100 MHz, NF 7 dB: −174 + 80 + 7 = −87 dBm.
        assert!(close(thermal_noise_dbm(100e6, 7.0), -87.0, 1e-9));
    }

    #[test]
    fn beamforming_gain_of_the_ns3_arrays() {
        // 10·log10(64·16) = 10·log10(1024) = 30.103 dB, the "30.1 dB" of the X-TCP link budget.
        assert!(close(beamforming_gain_db(64, 16), 30.103, 0.001));
        // HEAD default 8×8 / 2×2: 10·log10(256) = 24.082 dB.
        assert!(close(beamforming_gain_db(64, 4), 24.082, 0.001));
        // A single element on each side has no array gain.
        assert_eq!(beamforming_gain_db(1, 1), 0.0);
    }

    #[test]
    fn db_conversions_round_trip() {
        assert!(close(db_to_lin(30.0), 1000.0, 1e-9));
        assert!(close(db_to_lin(-3.0), 0.501187, 1e-6));
        assert!(close(lin_to_db(2.0), 3.0103, 1e-4));
        for db in [-120.0, -3.3, 0.0, 17.0, 60.0] {
            assert!(close(lin_to_db(db_to_lin(db)), db, 1e-9));
        }
    }

    #[test]
    fn sinr_without_interference_is_snr() {
        assert!(close(sinr_db(-60.0, &[], -79.0), 19.0, 1e-9));
    }

    #[test]
    fn sinr_with_interferers_sums_powers_linearly() {
        // One interferer equal to the noise doubles N: SNR − 10·log10(2) = 19 − 3.0103.
        assert!(close(sinr_db(-60.0, &[-79.0], -79.0), 19.0 - 3.0103, 1e-4));
        // Two interferers each 10 dB above noise: N + I = (1 + 10 + 10)·N → SNR − 13.222 dB.
        assert!(close(
            sinr_db(-60.0, &[-69.0, -69.0], -79.0),
            19.0 - 13.2222,
            1e-4
        ));
    }

    #[test]
    fn xtcp_snr_from_link_budget() {
        // The X-TCP link budget ([NS3-MMW-V1] defaults, [AKDENIZ-2014] path loss): with
        // 30 dBm TX, −79 dBm noise and 30.1 dB BF gain,
        // SNR = 30 + 30.1 − PL + 79 = 109 − PL + 30.1. At NYU 28 GHz LOS 50 m (PL 95.38 dB):
        // 109 − 95.38 + 30.10 = 43.72 dB.
        let noise = thermal_noise_dbm(72.0 * 13.889e6, DEFAULT_NOISE_FIGURE_DB);
        let g = beamforming_gain_db(MMW_V1_GNB_ANTENNAS, MMW_V1_UE_ANTENNAS);
        let snr = sinr_db(DEFAULT_TX_POWER_DBM + g - 95.38, &[], noise);
        assert!(close(snr, 43.72, 0.01), "{snr}");
    }
}
