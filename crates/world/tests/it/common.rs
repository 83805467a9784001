//! Helpers shared by the world's integration tests.
#![allow(dead_code)]

use mmtsim_scenario::{load_str, Format, Loaded};
use mmtsim_world::{run, ColumnData, RunControl, RunOutput};
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

/// Runs `toml` after writing `files` (name, contents) into a fresh folder that the
/// scenario's relative paths (traces) resolve against; the folder is removed afterwards.
pub fn run_with_files(toml: &str, files: &[(&str, &str)], seed: Option<u64>) -> RunOutput {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "mmtsim-it-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, contents) in files {
        std::fs::write(dir.join(name), contents).unwrap();
    }
    let loaded =
        load_str(toml, Format::Toml, "test.toml", &dir, &[]).unwrap_or_else(|e| panic!("{e}"));
    let out = run(
        &loaded,
        &RunControl {
            seed,
            ..Default::default()
        },
    )
    .expect("run");
    std::fs::remove_dir_all(&dir).ok();
    out
}

fn column<'a>(out: &'a RunOutput, table: &str, name: &str) -> &'a ColumnData {
    out.table(table)
        .unwrap_or_else(|| panic!("no table {table}"))
        .column(name)
        .unwrap_or_else(|| panic!("no column {table}.{name}"))
}

/// A float column of a result table.
pub fn f64s<'a>(out: &'a RunOutput, table: &str, name: &str) -> &'a [f64] {
    match column(out, table, name) {
        ColumnData::F64(v) => v,
        other => panic!("{table}.{name} is not f64: {other:?}"),
    }
}

/// A u64 column of a result table.
pub fn u64s<'a>(out: &'a RunOutput, table: &str, name: &str) -> &'a [u64] {
    match column(out, table, name) {
        ColumnData::U64(v) => v,
        other => panic!("{table}.{name} is not u64: {other:?}"),
    }
}

/// A u32 column of a result table.
pub fn u32s<'a>(out: &'a RunOutput, table: &str, name: &str) -> &'a [u32] {
    match column(out, table, name) {
        ColumnData::U32(v) => v,
        other => panic!("{table}.{name} is not u32: {other:?}"),
    }
}
