//! PHY abstraction: numerology presets, MCS tables, TBS, block error and AMC.
//!
//! No waveform is simulated. A slot's resources are counted ([`numerology`]), an allocation's
//! bits follow from the MCS ([`mcs`]) and the TBS rule ([`tbs`]), the MCS follows from the
//! SINR through the 10 % TBLER thresholds of ns-3 mmWave's error models ([`amc`]), and a TB
//! is lost with a probability given by a waterfall anchored on those thresholds, with Chase
//! combining over HARQ retransmissions ([`bler`]). Reference: `phy-ran.md` §1, §6–§8 and
//! `mcs_tables.json`; each module lists its simplifications.
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
