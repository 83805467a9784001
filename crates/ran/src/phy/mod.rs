//! PHY abstraction: numerology presets, MCS tables, TBS, block error and AMC.
//!
//! No waveform is simulated. A slot's resources are counted ([`numerology`]), an allocation's
//! bits follow from the MCS ([`mcs`]) and the TBS rule ([`tbs`]), the MCS follows from the
//! SINR through the 10 % TBLER thresholds of ns-3 mmWave's error models ([`amc`]), and a TB
//! is lost with a probability given by a waterfall anchored on those thresholds, with Chase
//! combining over HARQ retransmissions ([`bler`]). References: [NS3-MMW-V1],
//! [NS3-MMW-HEAD], [TS38214 §5.1.3] and [TS36213 §7.1.7], cited per module; each module lists its
//! simplifications.
//!
//! Typical use by the MAC: `let num = numerology::preset("mmwave-2017")?; let amc =
//! Amc::new(&num);` then per slot `amc.ul_mcs(sinr)` / `amc.dl_mcs(sinr)`,
//! `num.tbs_bytes(mcs, units)`, and at reception `bler::tb_error_prob(&num, &amc, mcs,
//! tb_bytes, &sinrs)` compared with a draw from the caller's `SimRng`.

pub mod amc;
pub mod bler;
pub mod mcs;
pub mod numerology;
pub mod tbs;
