//! Helpers shared by the world's integration tests.
#![allow(dead_code)]

use mmtsim_scenario::{load_str, Format, Loaded};
use mmtsim_world::{run, RunControl, RunOutput};
use std::path::Path;

pub fn load(toml: &str) -> Loaded {
    load_str(toml, Format::Toml, "test.toml", Path::new("."), &[]).unwrap_or_else(|e| panic!("{e}"))
}

pub fn run_toml(toml: &str) -> RunOutput {
    run(&load(toml), &RunControl::default()).expect("run")
}

pub fn run_seed(toml: &str, seed: u64) -> RunOutput {
    run(
        &load(toml),
        &RunControl {
            seed: Some(seed),
            ..Default::default()
        },
    )
    .expect("run")
}

pub fn flow(out: &RunOutput, i: usize) -> &serde_json::Value {
    &out.summary["flows"][i]
}

/// A dumbbell: server — bottleneck — client, with `extra` appended (flows, options).
pub fn dumbbell(
    rate: &str,
    one_way_delay: &str,
    queue: &str,
    duration: &str,
    extra: &str,
) -> String {
    dumbbell_with(rate, one_way_delay, queue, duration, "", extra)
}

/// [`dumbbell`] with extra keys for the bottleneck link (`link_extra`, TOML lines).
pub fn dumbbell_with(
    rate: &str,
    one_way_delay: &str,
    queue: &str,
    duration: &str,
    link_extra: &str,
    extra: &str,
) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
seed = 1

[[nodes]]
name = "server"
[[nodes]]
name = "client"

[[links]]
name = "bottleneck"
between = ["server", "client"]
rate = "{rate}"
delay = "{one_way_delay}"
queue = {queue}
{link_extra}

{extra}
"#
    )
}
