//! Scenario files: TOML (or JSON) → a typed, completely validated [`Scenario`].
//!
//! Loading happens in three steps, and nothing runs unless all succeed:
//! 1. parse the text into a tree and apply `--set key.path=value` overrides;
//! 2. deserialize into the typed model ([`model`]): unknown keys (with the nearest valid
//!    key suggested), wrong types, missing fields and malformed quantities ([`units`]) are
//!    reported with their key path;
//! 3. check what types cannot express ([`validate`]): positive durations and rates,
//!    probabilities in [0, 1], references to defined nodes, a route for every flow,
//!    readable and well-formed trace files.
//!
//! Every message names the file, the key path, the offending value and what was expected.
//! The JSON Schema for editors ([`json_schema`]) is generated from the same types.
#![warn(missing_docs)]

pub mod cell;
pub mod core;
pub mod mmcptp;
pub mod model;
pub mod overrides;
mod positional;
pub mod ran;
pub mod relay;
pub mod resolve;
pub mod units;
pub mod validate;

pub use model::Scenario;
use std::fmt;
use std::path::{Path, PathBuf};

/// Input formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// TOML (scenario files).
    Toml,
    /// JSON (Python dictionaries arrive this way).
    Json,
}

/// Everything wrong with a scenario; each entry is one complete message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// One line per problem: `origin: key.path: message`.
    pub messages: Vec<String>,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.messages.join("\n"))
    }
}
impl std::error::Error for ScenarioError {}

impl ScenarioError {
    fn one(origin: &str, path: &str, msg: impl fmt::Display) -> Self {
        let path = if path.is_empty() || path == "." {
            "(top level)"
        } else {
            path
        };
        ScenarioError {
            messages: vec![format!("{origin}: {path}: {msg}")],
        }
    }
}

/// A scenario with where it came from.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The validated scenario.
    pub scenario: Scenario,
    /// Directory that relative paths (traces) are resolved against.
    pub base_dir: PathBuf,
    /// File name or "<dict>", for messages.
    pub origin: String,
    /// The resolved trace of each link direction that has one, by (link index, reverse).
    pub traces: resolve::Traces,
    /// The SINR trace of each UE that has one, by UE index.
    pub sinr_traces: ran::SinrTraces,
}

/// Loads and validates a scenario file.
pub fn load_file(path: &Path, overrides: &[String]) -> Result<Loaded, ScenarioError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
        messages: vec![format!("{origin}: cannot read the scenario file: {e}")],
    })?;
    let format = if path.extension().is_some_and(|e| e == "json") {
        Format::Json
    } else {
        Format::Toml
    };
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    load_str(&text, format, &origin, &base, overrides)
}

/// Loads and validates scenario text.
pub fn load_str(
    text: &str,
    format: Format,
    origin: &str,
    base_dir: &Path,
    overrides: &[String],
) -> Result<Loaded, ScenarioError> {
    let mut tree: toml::Value = match format {
        Format::Toml => toml::from_str::<toml::Table>(text)
            .map(toml::Value::Table)
            .map_err(|e| {
                let line = e.span().map(|s| text[..s.start].matches('\n').count() + 1);
                let at = line.map_or(String::new(), |l| format!(" (line {l})"));
                ScenarioError {
                    messages: vec![format!("{origin}: not valid TOML{at}: {}", e.message())],
                }
            })?,
        Format::Json => {
            let v: serde_json::Value = serde_json::from_str(text).map_err(|e| ScenarioError {
                messages: vec![format!("{origin}: not valid JSON (line {}): {e}", e.line())],
            })?;
            json_to_toml(&v, "").map_err(|(p, m)| ScenarioError::one(origin, &p, m))?
        }
    };
    for o in overrides {
        overrides::apply(&mut tree, o).map_err(|m| ScenarioError {
            messages: vec![format!("{origin}: --set {o}: {m}")],
        })?;
    }
    positional::refuse_arrays_for_tables(&tree, "")
        .map_err(|(p, m)| ScenarioError::one(origin, &p, m))?;
    let scenario: Scenario = serde_path_to_error::deserialize(tree).map_err(|e| {
        let path = e.path().to_string();
        let msg = suggest(e.inner().message());
        ScenarioError::one(origin, &path, msg)
    })?;
    let (traces, sinr_traces) =
        validate::validate(&scenario, base_dir).map_err(|errs| ScenarioError {
            messages: errs
                .into_iter()
                .map(|(p, m)| format!("{origin}: {p}: {m}"))
                .collect(),
        })?;
    Ok(Loaded {
        scenario,
        base_dir: base_dir.to_path_buf(),
        origin: origin.to_string(),
        traces,
        sinr_traces,
    })
}

fn json_to_toml(v: &serde_json::Value, path: &str) -> Result<toml::Value, (String, String)> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => {
            return Err((
                path.to_string(),
                "null is not allowed; leave the key out instead".into(),
            ))
        }
        J::Bool(b) => toml::Value::Boolean(*b),
        J::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        J::String(s) => toml::Value::String(s.clone()),
        J::Array(a) => toml::Value::Array(
            a.iter()
                .enumerate()
                .map(|(i, x)| json_to_toml(x, &format!("{path}[{i}]")))
                .collect::<Result<_, _>>()?,
        ),
        J::Object(m) => {
            let mut t = toml::Table::new();
            for (k, x) in m {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                t.insert(k.clone(), json_to_toml(x, &p)?);
            }
            toml::Value::Table(t)
        }
    })
}

/// Adds "did you mean" to serde's unknown-field / unknown-variant messages.
fn suggest(msg: &str) -> String {
    let Some(rest) = msg
        .strip_prefix("unknown field `")
        .or_else(|| msg.strip_prefix("unknown variant `"))
    else {
        return msg.to_string();
    };
    let Some(end) = rest.find('`') else {
        return msg.to_string();
    };
    let bad = &rest[..end];
    let candidates: Vec<&str> = rest[end + 1..].split('`').skip(1).step_by(2).collect();
    let best = candidates
        .iter()
        .map(|c| (strsim::damerau_levenshtein(bad, c), *c))
        .min()
        .filter(|(d, c)| *d <= 2.max(c.len() / 3));
    match best {
        Some((_, c)) => format!("{msg}; did you mean `{c}`?"),
        None => msg.to_string(),
    }
}

/// The JSON Schema of scenario files.
pub fn json_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(Scenario)).expect("schemas serialise")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestion_picks_the_nearest_key() {
        let m = suggest(
            "unknown field `rat`, expected one of `name`, `between`, `delay`, `rate`, `trace`",
        );
        assert!(m.ends_with("did you mean `rate`?"), "{m}");
        let m = suggest("unknown field `zzzzzz`, expected `name` or `rate`");
        assert!(!m.contains("did you mean"), "{m}");
    }

    #[test]
    fn schema_mentions_every_top_level_section() {
        let s = json_schema().to_string();
        for k in ["simulation", "nodes", "links", "flows", "Duration", "Rate"] {
            assert!(s.contains(k), "{k} missing");
        }
    }
}
