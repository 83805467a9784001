//! serde lets a struct be written as an array of its fields in order
//! (`simulation = ["5s", 7]`), which would side-step the unknown-key check and make
//! scenarios depend on field order. Tables of the model must be TOML tables; this pass
//! refuses an array wherever a table key of the model holds one.

/// Keys whose value is a table (or, for `cc`, a name or a table) everywhere in the model.
const TABLE_KEYS: &[&str] = &[
    "simulation",
    "metrics",
    "queue",
    "loss",
    "impairments",
    "reverse",
    "trace",
    "app",
    "cc",
    "tcp",
];

/// Walks the tree; `path` is the key path of `v`.
pub(crate) fn refuse_arrays_for_tables(
    v: &toml::Value,
    path: &str,
) -> Result<(), (String, String)> {
    match v {
        toml::Value::Table(t) => {
            for (k, x) in t {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                if TABLE_KEYS.contains(&k.as_str()) && x.is_array() {
                    return Err((
                        p,
                        "expected a table (`key = value` pairs), not an array".into(),
                    ));
                }
                refuse_arrays_for_tables(x, &p)?;
            }
        }
        toml::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                refuse_arrays_for_tables(x, &format!("{path}[{i}]"))?;
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_in_place_of_tables_are_refused_with_their_path() {
        let t: toml::Table = toml::from_str("simulation = [\"5s\", 7]").unwrap();
        let e = refuse_arrays_for_tables(&toml::Value::Table(t), "").unwrap_err();
        assert_eq!(e.0, "simulation");
        let t: toml::Table = toml::from_str("[[flows]]\ntcp = [\"800B\", 3]").unwrap();
        let e = refuse_arrays_for_tables(&toml::Value::Table(t), "").unwrap_err();
        assert_eq!(e.0, "flows[0].tcp");
        let ok: toml::Table =
            toml::from_str("[[flows]]\ntcp = { mss = \"800B\" }\nnodes = [\"a\"]").unwrap();
        assert!(refuse_arrays_for_tables(&toml::Value::Table(ok), "").is_ok());
    }
}
