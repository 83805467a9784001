//! The `[ran.dual_connectivity]` table: how a dually connected UE's split bearer chooses
//! its leg — its keys with their defaults, their checks and their resolution into
//! [`DualConfig`]. `mode = "sinr"` (the default) keeps the per-SDU rule of
//! `Ran::split_leg` (the mmWave leg while its reported SINR supports an MCS), so a run
//! without the table is unchanged; `mode = "coordinated"` is the LTE anchor's coordinator
//! (fast switching and secondary-cell handover, `mmtsim_ran::rrc::dual`), whose defaults
//! are [`DualConfig::default`]'s, with their sources documented there.

use mmtsim_ran::rrc::dual::DualConfig;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::handover::{dynamic_ttt, validate_dynamic_ttt, DynamicTttTable};
use crate::units::Duration;
use crate::validate::Errs;

/// Names of the modes.
pub const MODES: [&str; 2] = ["sinr", "coordinated"];

/// Dual connectivity's leg choice (default: the per-SDU SINR rule).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DualTable {
    /// "sinr" (default: each new SDU takes the secondary leg while its reported SINR
    /// supports an MCS) or "coordinated" (the LTE anchor's coordinator: fall-back to LTE
    /// when every mmWave cell is in outage, secondary-cell handover; Polese et al. 2017).
    #[serde(default)]
    pub mode: Option<String>,
    /// How often the mmWave cells report each UE's SINR to the anchor (default 1.6ms).
    #[serde(default)]
    pub report_period: Option<Duration>,
    /// One-way X2 delay between sites with no wired link between them (default 1ms;
    /// sites joined by a link use its delay).
    #[serde(default)]
    pub x2_delay: Option<Duration>,
    /// Best mmWave SINR below which the UE falls back to LTE, dB (default −5).
    #[serde(default)]
    pub outage_threshold_db: Option<f64>,
    /// The UE returns to mmWave at outage_threshold_db + this, dB (default 2).
    #[serde(default)]
    pub switch_back_hysteresis_db: Option<f64>,
    /// Secondary-cell handover's time-to-trigger (default: ns-3 mmWave's dynamic TTT,
    /// 150ms at a 3 dB SINR gap down to 25ms at 20 dB).
    #[serde(default)]
    pub dynamic_ttt: Option<DynamicTttTable>,
    /// A better cell replaces a scheduled handover's target beyond this margin, dB
    /// (default 3).
    #[serde(default)]
    pub retarget_margin_db: Option<f64>,
    /// Secondary-cell handover command over LTE, one way (default 1ms).
    #[serde(default)]
    pub command_delay: Option<Duration>,
    /// The mmWave leg's interruption at a secondary-cell handover (default 52ms,
    /// TS 38.133 §6.1.1).
    #[serde(default)]
    pub secondary_interruption: Option<Duration>,
}

impl DualTable {
    /// Whether the coordinated mode is asked for.
    pub fn coordinated(&self) -> bool {
        self.mode.as_deref() == Some("coordinated")
    }
}

/// Checks the table; every error names its key and value. (With `[ran.handover]` on as
/// well, measurement-based handover moves the UEs without a secondary cell and the
/// coordinator the others: one scenario can compare the two.)
pub fn validate(t: &DualTable, errs: &mut Errs) {
    let p = |k: &str| format!("ran.dual_connectivity.{k}");
    if let Some(m) = &t.mode {
        if !MODES.contains(&m.as_str()) {
            errs.push((
                p("mode"),
                format!("unknown mode \"{m}\"; known: {}", MODES.join(", ")),
            ));
        }
    }
    if t.report_period.is_some_and(|d| d.0 == 0) {
        errs.push((p("report_period"), "must be longer than zero".into()));
    }
    if let Some(x) = t.outage_threshold_db.filter(|x| !x.is_finite()) {
        errs.push((
            p("outage_threshold_db"),
            format!("{x}: expected a finite number of dB"),
        ));
    }
    for (k, v) in [
        ("switch_back_hysteresis_db", t.switch_back_hysteresis_db),
        ("retarget_margin_db", t.retarget_margin_db),
    ] {
        if let Some(x) = v.filter(|x| !x.is_finite() || *x < 0.0) {
            errs.push((
                p(k),
                format!("{x}: expected a finite number of dB, at least 0"),
            ));
        }
    }
    if let Some(d) = &t.dynamic_ttt {
        validate_dynamic_ttt(d, &p("dynamic_ttt"), errs);
    }
}

/// The resolved configuration (call after [`validate`] passed): `None` for the SINR rule.
pub fn resolve(t: &DualTable) -> Option<DualConfig> {
    if !t.coordinated() {
        return None;
    }
    let d = DualConfig::default();
    let tm = |v: Option<Duration>, def| v.map_or(def, |x: Duration| x.time());
    Some(DualConfig {
        report_period: tm(t.report_period, d.report_period),
        x2_delay: tm(t.x2_delay, d.x2_delay),
        outage_threshold_db: t.outage_threshold_db.unwrap_or(d.outage_threshold_db),
        switch_back_hysteresis_db: t
            .switch_back_hysteresis_db
            .unwrap_or(d.switch_back_hysteresis_db),
        ttt: t.dynamic_ttt.as_ref().map_or(d.ttt, dynamic_ttt),
        retarget_margin_db: t.retarget_margin_db.unwrap_or(d.retarget_margin_db),
        command_delay: tm(t.command_delay, d.command_delay),
        secondary_interruption: tm(t.secondary_interruption, d.secondary_interruption),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mmtsim_engine::SimTime;

    fn parse(text: &str) -> DualTable {
        toml::from_str(text).expect("parses")
    }

    fn errors(text: &str) -> Vec<(String, String)> {
        let mut e = Errs::new();
        validate(&parse(text), &mut e);
        e
    }

    #[test]
    fn default_is_the_sinr_rule_and_coordinated_has_the_documented_defaults() {
        assert_eq!(resolve(&parse("")), None);
        assert_eq!(resolve(&parse("mode = \"sinr\"")), None);
        let c = resolve(&parse("mode = \"coordinated\"")).expect("on");
        assert_eq!(c.report_period, SimTime::from_us(1600));
        assert_eq!(c.x2_delay, SimTime::from_ms(1));
        assert_eq!(c.outage_threshold_db, -5.0);
        assert_eq!(c.switch_back_hysteresis_db, 2.0);
        assert_eq!(c.secondary_interruption, SimTime::from_ms(52));
        let c = resolve(&parse(
            "mode = \"coordinated\"\nreport_period = \"12.8ms\"\nx2_delay = \"500us\"\ndynamic_ttt = { min = \"10ms\" }",
        ))
        .expect("on");
        assert_eq!(c.report_period, SimTime::from_us(12_800));
        assert_eq!(c.x2_delay, SimTime::from_us(500));
        assert_eq!(c.ttt.min, SimTime::from_ms(10));
        assert_eq!(c.ttt.max, SimTime::from_ms(150));
    }

    #[test]
    fn bad_values_name_their_key_and_value() {
        for (text, key, value) in [
            (
                "mode = \"split\"",
                "ran.dual_connectivity.mode",
                "\"split\"",
            ),
            (
                "report_period = \"0s\"",
                "ran.dual_connectivity.report_period",
                "zero",
            ),
            (
                "outage_threshold_db = nan",
                "ran.dual_connectivity.outage_threshold_db",
                "NaN",
            ),
            (
                "switch_back_hysteresis_db = -1.0",
                "ran.dual_connectivity.switch_back_hysteresis_db",
                "-1",
            ),
            (
                "retarget_margin_db = -0.5",
                "ran.dual_connectivity.retarget_margin_db",
                "-0.5",
            ),
            (
                "dynamic_ttt = { min = \"200ms\" }",
                "ran.dual_connectivity.dynamic_ttt.min",
                "0.2 s",
            ),
        ] {
            let e = errors(text);
            assert_eq!(e.len(), 1, "{text}: {e:?}");
            assert_eq!(e[0].0, key, "{text}");
            assert!(e[0].1.contains(value), "{text}: {}", e[0].1);
        }
    }
}
