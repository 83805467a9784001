//! The `[ran.handover]` table: measurement-based handover — its keys with their defaults,
//! their checks and their resolution into [`HandoverConfig`]. Every key is optional; the
//! defaults are [`HandoverConfig::default`]'s, whose sources are documented there, and
//! `algorithm = "none"` (the default) leaves every run as it was without the table.

use mmtsim_ran::rrc::{Algorithm, DynamicTtt, HandoverConfig};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::units::Duration;
use crate::validate::Errs;

/// Largest filterCoefficient: TS 38.331 FilterCoefficient ends at fc19.
pub const MAX_FILTER_K: u8 = 19;
/// Largest |offset_db| and hysteresis_db: TS 38.331's a3-Offset spans −15 to 15 dB and
/// Hysteresis 0 to 15 dB (both in 0.5 dB steps; any value in range is taken here).
pub const MAX_OFFSET_DB: f64 = 15.0;
/// Largest number of rows of the `measurements` table (a typo guard on memory).
pub const MAX_LOG_ROWS: usize = 100_000_000;

/// Measurement-based handover (default: off).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoverTable {
    /// "none" (default: only scripted handovers), "a3" (event A3 on filtered RSRP,
    /// intra-frequency) or "threshold" (serving SINR below `sinr_threshold_db` and a
    /// cell `hysteresis_db` better).
    #[serde(default)]
    pub algorithm: Option<String>,
    /// How often each UE measures every cell (default 40ms; down to one slot).
    #[serde(default)]
    pub measurement_period: Option<Duration>,
    /// L3 filterCoefficient k, a = 1/2^(k/4), 0 = no filtering (TS 38.331 §5.5.3.2;
    /// default 4).
    #[serde(default)]
    pub filter_k: Option<u8>,
    /// A3 offset, dB (default 3).
    #[serde(default)]
    pub offset_db: Option<f64>,
    /// Hysteresis, dB (default 1).
    #[serde(default)]
    pub hysteresis_db: Option<f64>,
    /// Time-to-trigger (default 160ms).
    #[serde(default)]
    pub ttt: Option<Duration>,
    /// A dynamic time-to-trigger instead of `ttt`: from `max` when the candidate's SINR
    /// is at most `diff_min_db` better than the serving cell's down to `min` from
    /// `diff_max_db` better (ns-3 mmWave's DYNAMIC_TTT; default: none).
    #[serde(default)]
    pub dynamic_ttt: Option<DynamicTttTable>,
    /// Threshold algorithm: serving SINR below which a handover is considered, dB
    /// (default −5; a value above any SINR, with hysteresis_db = 5 and ttt = "0s", is
    /// ns-3 mmWave's THRESHOLD mode).
    #[serde(default)]
    pub sinr_threshold_db: Option<f64>,
    /// Measurement report's delay, UE to source (default 1ms).
    #[serde(default)]
    pub report_delay: Option<Duration>,
    /// Handover command's delay, source to UE (default 1ms).
    #[serde(default)]
    pub command_delay: Option<Duration>,
    /// One-way Xn delay between sites with no wired link between them (default 5ms;
    /// sites joined by a link use its delay).
    #[serde(default)]
    pub xn_delay: Option<Duration>,
    /// Interruption: UE detached from the source to served by the target (default 50ms,
    /// TS 36.133 §5.1.2.1.2).
    #[serde(default)]
    pub interruption: Option<Duration>,
    /// Random access on the target fails below this downlink SINR, dB (default −8).
    #[serde(default)]
    pub rach_min_sinr_db: Option<f64>,
    /// T304: handover failure declared this long after the command (default 100ms).
    #[serde(default)]
    pub t304: Option<Duration>,
    /// From a failure to service after RRC re-establishment (default 100ms).
    #[serde(default)]
    pub reestablishment_delay: Option<Duration>,
    /// Unacknowledged PDCP SDUs are sent again through the target (default true).
    #[serde(default)]
    pub lossless: Option<bool>,
    /// Write the `measurements` table: one row per UE and cell every this many
    /// measurement instants (default 0: no table).
    #[serde(default)]
    pub log_measurements_every: Option<u32>,
    /// Rows of the `measurements` table at most (default 1000000).
    #[serde(default)]
    pub log_measurements_max_rows: Option<usize>,
}

/// ns-3 mmWave's dynamic time-to-trigger; every key defaults to ns-3's value.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DynamicTttTable {
    /// Shortest TTT (default 25ms).
    #[serde(default)]
    pub min: Option<Duration>,
    /// Longest TTT (default 150ms).
    #[serde(default)]
    pub max: Option<Duration>,
    /// SINR advantage at and below which the TTT is `max`, dB (default 3).
    #[serde(default)]
    pub diff_min_db: Option<f64>,
    /// SINR advantage at and above which the TTT is `min`, dB (default 20).
    #[serde(default)]
    pub diff_max_db: Option<f64>,
}

/// The table's values, ns-3's where a key is missing.
pub fn dynamic_ttt(d: &DynamicTttTable) -> DynamicTtt {
    let n = DynamicTtt::NS3;
    DynamicTtt {
        min: d.min.map_or(n.min, |x| x.time()),
        max: d.max.map_or(n.max, |x| x.time()),
        diff_min_db: d.diff_min_db.unwrap_or(n.diff_min_db),
        diff_max_db: d.diff_max_db.unwrap_or(n.diff_max_db),
    }
}

/// Checks the table; every error names its key and value.
pub fn validate(h: &HandoverTable, errs: &mut Errs) {
    let p = |k: &str| format!("ran.handover.{k}");
    if let Some(a) = &h.algorithm {
        if Algorithm::from_name(a).is_none() {
            errs.push((
                p("algorithm"),
                format!(
                    "unknown algorithm \"{a}\"; known: {}",
                    Algorithm::NAMES.join(", ")
                ),
            ));
        }
    }
    for (k, v) in [
        ("measurement_period", h.measurement_period),
        ("t304", h.t304),
    ] {
        if v.is_some_and(|d| d.0 == 0) {
            errs.push((p(k), "must be longer than zero".into()));
        }
    }
    if let Some(k) = h.filter_k {
        if k > MAX_FILTER_K {
            errs.push((p("filter_k"), format!("{k}: expected 0 to {MAX_FILTER_K}")));
        }
    }
    if let Some(o) = h.offset_db {
        if !o.is_finite() || o.abs() > MAX_OFFSET_DB {
            errs.push((
                p("offset_db"),
                format!("{o}: expected −{MAX_OFFSET_DB} to {MAX_OFFSET_DB} dB"),
            ));
        }
    }
    if let Some(o) = h.hysteresis_db {
        if !o.is_finite() || !(0.0..=MAX_OFFSET_DB).contains(&o) {
            errs.push((
                p("hysteresis_db"),
                format!("{o}: expected 0 to {MAX_OFFSET_DB} dB"),
            ));
        }
    }
    for (k, v) in [
        ("sinr_threshold_db", h.sinr_threshold_db),
        ("rach_min_sinr_db", h.rach_min_sinr_db),
    ] {
        if let Some(x) = v.filter(|x| !x.is_finite()) {
            errs.push((p(k), format!("{x}: expected a finite number of dB")));
        }
    }
    if let Some(d) = &h.dynamic_ttt {
        if h.ttt.is_some() {
            errs.push((
                p("dynamic_ttt"),
                "set either ttt (fixed) or dynamic_ttt, not both".into(),
            ));
        }
        validate_dynamic_ttt(d, &p("dynamic_ttt"), errs);
    }
    if let Some(n) = h.log_measurements_max_rows.filter(|&n| n > MAX_LOG_ROWS) {
        errs.push((
            p("log_measurements_max_rows"),
            format!("{n}: at most {MAX_LOG_ROWS}"),
        ));
    }
}

/// Checks a dynamic time-to-trigger table at `key` (e.g. "ran.handover.dynamic_ttt").
pub fn validate_dynamic_ttt(d: &DynamicTttTable, key: &str, errs: &mut Errs) {
    let r = dynamic_ttt(d);
    if r.min > r.max {
        errs.push((
            format!("{key}.min"),
            format!(
                "{} s is longer than max ({} s): expected min ≤ max",
                r.min.secs_f64(),
                r.max.secs_f64()
            ),
        ));
    }
    if !(r.diff_min_db.is_finite() && r.diff_max_db.is_finite()) || r.diff_min_db >= r.diff_max_db {
        errs.push((
            format!("{key}.diff_min_db"),
            format!(
                "{} and diff_max_db {}: expected finite numbers with diff_min_db < diff_max_db",
                r.diff_min_db, r.diff_max_db
            ),
        ));
    }
}

/// The resolved configuration (call after [`validate`] passed).
pub fn resolve(h: &HandoverTable) -> HandoverConfig {
    let d = HandoverConfig::default();
    let t = |v: Option<Duration>, def| v.map_or(def, |x| x.time());
    HandoverConfig {
        algorithm: h
            .algorithm
            .as_deref()
            .and_then(Algorithm::from_name)
            .unwrap_or(d.algorithm),
        measurement_period: t(h.measurement_period, d.measurement_period),
        filter_k: h.filter_k.unwrap_or(d.filter_k),
        offset_db: h.offset_db.unwrap_or(d.offset_db),
        hysteresis_db: h.hysteresis_db.unwrap_or(d.hysteresis_db),
        ttt: t(h.ttt, d.ttt),
        dynamic_ttt: h.dynamic_ttt.as_ref().map(dynamic_ttt),
        sinr_threshold_db: h.sinr_threshold_db.unwrap_or(d.sinr_threshold_db),
        report_delay: t(h.report_delay, d.report_delay),
        command_delay: t(h.command_delay, d.command_delay),
        xn_default_delay: t(h.xn_delay, d.xn_default_delay),
        interruption: t(h.interruption, d.interruption),
        rach_min_sinr_db: h.rach_min_sinr_db.unwrap_or(d.rach_min_sinr_db),
        t304: t(h.t304, d.t304),
        reestablishment_delay: t(h.reestablishment_delay, d.reestablishment_delay),
        lossless: h.lossless.unwrap_or(d.lossless),
        measurement_log_every: h.log_measurements_every.unwrap_or(d.measurement_log_every),
        measurement_log_rows: h
            .log_measurements_max_rows
            .unwrap_or(d.measurement_log_rows),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(toml_text: &str) -> HandoverTable {
        toml::from_str(toml_text).expect("parses")
    }

    fn errors(toml_text: &str) -> Vec<(String, String)> {
        let mut e = Errs::new();
        validate(&parse(toml_text), &mut e);
        e
    }

    #[test]
    fn an_empty_table_is_off_with_the_documented_defaults() {
        let c = resolve(&parse(""));
        assert_eq!(c, HandoverConfig::default());
        assert_eq!(c.algorithm, Algorithm::None);
    }

    #[test]
    fn keys_resolve_with_their_units() {
        let c = resolve(&parse(
            "algorithm = \"a3\"\nttt = \"320ms\"\nmeasurement_period = \"125us\"\nfilter_k = 0\noffset_db = 2.5\nxn_delay = \"3ms\"\nlossless = false\n",
        ));
        assert_eq!(c.algorithm, Algorithm::A3);
        assert_eq!(c.ttt, mmtsim_engine::SimTime::from_ms(320));
        assert_eq!(c.measurement_period, mmtsim_engine::SimTime::from_us(125));
        assert_eq!(c.filter_k, 0);
        assert_eq!(c.offset_db, 2.5);
        assert_eq!(c.xn_default_delay, mmtsim_engine::SimTime::from_ms(3));
        assert!(!c.lossless);
        assert_eq!(c.dynamic_ttt, None);
        let c = resolve(&parse("dynamic_ttt = { max = \"200ms\" }\n"));
        assert_eq!(
            c.dynamic_ttt,
            Some(DynamicTtt {
                max: mmtsim_engine::SimTime::from_ms(200),
                ..DynamicTtt::NS3
            })
        );
    }

    #[test]
    fn bad_values_name_their_key_and_value() {
        for (text, key, value) in [
            ("algorithm = \"a4\"", "ran.handover.algorithm", "\"a4\""),
            (
                "measurement_period = \"0s\"",
                "ran.handover.measurement_period",
                "zero",
            ),
            ("t304 = \"0s\"", "ran.handover.t304", "zero"),
            ("filter_k = 20", "ran.handover.filter_k", "20"),
            ("offset_db = 16.0", "ran.handover.offset_db", "16"),
            ("hysteresis_db = -1.0", "ran.handover.hysteresis_db", "-1"),
            (
                "sinr_threshold_db = nan",
                "ran.handover.sinr_threshold_db",
                "NaN",
            ),
            (
                "log_measurements_max_rows = 100000001",
                "ran.handover.log_measurements_max_rows",
                "100000001",
            ),
        ] {
            let e = errors(text);
            assert_eq!(e.len(), 1, "{text}: {e:?}");
            assert_eq!(e[0].0, key, "{text}");
            assert!(e[0].1.contains(value), "{text}: {}", e[0].1);
        }
    }
}
