//! `--set key.path=value` overrides, applied to the parsed tree before type checking, so
//! an override is validated exactly like the file.
//!
//! The path uses dots for tables and numbers for array indices (`flows.0.cc`,
//! `links.1.queue.limit`); `links[1]` is accepted too. The value is read as a TOML value
//! (`true`, `3`, `0.5`, `"x"`, `{ kind = "bulk" }`); anything that is not valid TOML is
//! taken as a string, so `--set simulation.duration=10s` works without quotes.

/// Applies one `key.path=value` override.
pub fn apply(tree: &mut toml::Value, assignment: &str) -> Result<(), String> {
    let (path, raw) = assignment
        .split_once('=')
        .ok_or_else(|| "expected key.path=value".to_string())?;
    let path = path.trim();
    if path.is_empty() {
        return Err("the key path is empty".into());
    }
    let value = parse_value(raw.trim());
    let parts: Vec<String> = path
        .replace('[', ".")
        .replace(']', "")
        .split('.')
        .map(str::to_string)
        .collect();
    let mut cur = tree;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let so_far = parts[..=i].join(".");
        cur = match cur {
            toml::Value::Table(t) => {
                if last {
                    t.insert(part.clone(), value);
                    return Ok(());
                }
                t.entry(part.clone())
                    .or_insert_with(|| toml::Value::Table(toml::Table::new()))
            }
            toml::Value::Array(a) => {
                let idx: usize = part
                    .parse()
                    .map_err(|_| format!("`{so_far}`: `{part}` is not an index into a list"))?;
                let len = a.len();
                let slot = a.get_mut(idx).ok_or_else(|| {
                    format!("`{so_far}`: index {idx} is out of range (the list has {len} entries)")
                })?;
                if last {
                    *slot = value;
                    return Ok(());
                }
                slot
            }
            _ => {
                return Err(format!(
                    "`{}` is a value, not a table or list",
                    parts[..i].join(".")
                ))
            }
        };
    }
    Ok(())
}

fn parse_value(raw: &str) -> toml::Value {
    toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> toml::Value {
        toml::from_str::<toml::Table>(
            "[simulation]\nduration = \"1s\"\n[[flows]]\ncc = \"cubic\"\n",
        )
        .map(toml::Value::Table)
        .unwrap()
    }

    #[test]
    fn sets_nested_keys_and_list_entries() {
        let mut t = tree();
        apply(&mut t, "simulation.duration=10s").unwrap();
        apply(&mut t, "flows.0.cc=newreno").unwrap();
        apply(&mut t, "flows[0].count=3").unwrap();
        assert_eq!(t["simulation"]["duration"].as_str(), Some("10s"));
        assert_eq!(t["flows"][0]["cc"].as_str(), Some("newreno"));
        assert_eq!(t["flows"][0]["count"].as_integer(), Some(3));
    }

    #[test]
    fn reports_bad_paths() {
        let mut t = tree();
        assert!(apply(&mut t, "flows.3.cc=x")
            .unwrap_err()
            .contains("out of range"));
        assert!(apply(&mut t, "simulation.duration.x=1")
            .unwrap_err()
            .contains("not a table"));
        assert!(apply(&mut t, "novalue")
            .unwrap_err()
            .contains("key.path=value"));
    }
}
