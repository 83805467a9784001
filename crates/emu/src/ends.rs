//! The two ends of an emulation: which scenario nodes the UE's device and the server's
//! device stand for, resolved from the scenario and the user's choices, with errors that
//! name the option and the value.

use mmtsim_scenario::Scenario;

/// The UE and server nodes of an emulation, by name. `ue` is the node whose device the
/// command uses: a UE of the scenario's RAN, or any node of a scenario without one
/// (default: the first UE). `server` is any other node (default: the far end of the UE's
/// first flow). Errors name the option and the value.
pub fn resolve_ends(
    s: &Scenario,
    ue: Option<&str>,
    server: Option<&str>,
) -> Result<(String, String), String> {
    let nodes = s.node_names();
    let ues: Vec<&str> = s
        .ran
        .as_ref()
        .map(|r| r.ues.iter().map(|u| u.name.as_str()).collect())
        .unwrap_or_default();
    let ue = match ue {
        Some(u) if ues.contains(&u) || (ues.is_empty() && nodes.contains(&u)) => u.to_string(),
        Some(u) if ues.is_empty() => {
            return Err(format!(
                "--ue `{u}`: no such node (nodes: {})",
                nodes.join(", ")
            ))
        }
        Some(u) => {
            return Err(format!(
                "--ue `{u}`: not a UE of the scenario (its UEs: {})",
                ues.join(", ")
            ))
        }
        None => match ues.first() {
            Some(u) => u.to_string(),
            None => {
                return Err(
                    "the scenario has no RAN UE: name the node that runs the command with --ue"
                        .into(),
                )
            }
        },
    };
    let server = match server {
        Some(n) if n == ue => return Err(format!("--server `{n}`: it is the emulated UE")),
        Some(n) if nodes.contains(&n) => n.to_string(),
        Some(n) => {
            return Err(format!(
                "--server `{n}`: no such node (nodes: {})",
                nodes.join(", ")
            ))
        }
        None => {
            let peer = s.flows.iter().find_map(|f| {
                if f.from == ue {
                    Some(f.to.clone())
                } else if f.to == ue {
                    Some(f.from.clone())
                } else {
                    None
                }
            });
            match peer {
                Some(p) => p,
                None => {
                    return Err(format!(
                    "no flow of the scenario links {ue} to a server node: name one with --server"
                ))
                }
            }
        }
    };
    Ok((ue, server))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(text: &str) -> Scenario {
        mmtsim_scenario::load_str(
            text,
            mmtsim_scenario::Format::Toml,
            "t.toml",
            std::path::Path::new("."),
            &[],
        )
        .unwrap_or_else(|e| panic!("{e}"))
        .scenario
    }

    const WIRED: &str = r#"
        [simulation]
        duration = "1s"
        [[nodes]]
        name = "a"
        [[nodes]]
        name = "b"
        [[links]]
        between = ["a", "b"]
        rate = "1Gbps"
        delay = "1ms"
        [[flows]]
        from = "b"
        to = "a"
    "#;

    #[test]
    fn the_ends_default_to_the_ue_and_its_flows_peer() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/mmwave-2017.toml");
        let s = mmtsim_scenario::load_file(&path, &[]).unwrap().scenario;
        assert_eq!(
            resolve_ends(&s, None, None).unwrap(),
            ("ue1".to_string(), "server".to_string())
        );
        assert_eq!(
            resolve_ends(&s, Some("ue1"), Some("core")).unwrap().1,
            "core"
        );
        let e = resolve_ends(&s, Some("server"), None).unwrap_err();
        assert!(e.contains("--ue `server`") && e.contains("ue1"), "{e}");
        let e = resolve_ends(&s, None, Some("nowhere")).unwrap_err();
        assert!(e.contains("--server `nowhere`"), "{e}");
        let e = resolve_ends(&s, None, Some("ue1")).unwrap_err();
        assert!(e.contains("it is the emulated UE"), "{e}");
    }

    #[test]
    fn without_a_ran_the_ue_is_named_and_may_be_any_node() {
        let s = scenario(WIRED);
        let e = resolve_ends(&s, None, None).unwrap_err();
        assert!(e.contains("--ue"), "{e}");
        assert_eq!(
            resolve_ends(&s, Some("a"), None).unwrap(),
            ("a".to_string(), "b".to_string())
        );
        assert!(resolve_ends(&s, Some("c"), None)
            .unwrap_err()
            .contains("no such node"));
    }
}
