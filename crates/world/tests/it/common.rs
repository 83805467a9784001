//! Helpers shared by the world's integration tests.
#![allow(dead_code)]

use mmtsim_scenario::{load_str, Format, Loaded};
use mmtsim_world::{run, ColumnData, RunControl, RunOutput, Stepper};
use std::path::Path;

pub fn load(toml: &str) -> Loaded {
    load_str(toml, Format::Toml, "test.toml", Path::new("."), &[]).unwrap_or_else(|e| panic!("{e}"))
}

/// The validation error of a scenario that must not load.
pub fn load_error(toml: &str) -> String {
    match load_str(toml, Format::Toml, "test.toml", Path::new("."), &[]) {
        Ok(_) => panic!("the scenario loaded; expected a validation error"),
        Err(e) => e.to_string(),
    }
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

/// Downlink transport-block throughput of cell `c` over the run, Mbit/s.
pub fn cell_dl_mbps(out: &RunOutput, c: usize) -> f64 {
    out.summary["cells"][c]["throughput_mbps"]["dl"]
        .as_f64()
        .expect("a cell's downlink throughput")
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

/// Payload ceiling of the 100 Mbit/s dumbbells: each 1400-byte segment costs 1400 + 52
/// bytes on the wire (20 IP + 20 TCP + 12 timestamp option): 100 × 1400/1452 Mbit/s.
pub const PAYLOAD_CAPACITY_MBPS: f64 = 100.0 * 1400.0 / 1452.0;

/// Mean goodput (Mbit/s) of `flow` over the bins starting in [from_s, to_s).
pub fn mean_goodput(out: &RunOutput, flow: u32, from_s: f64, to_s: f64) -> f64 {
    let f = u32s(out, "goodput", "flow");
    let t = f64s(out, "goodput", "t_s");
    let v = f64s(out, "goodput", "goodput_mbps");
    let sel: Vec<f64> = (0..t.len())
        .filter(|&i| f[i] == flow && t[i] >= from_s && t[i] < to_s)
        .map(|i| v[i])
        .collect();
    assert!(!sel.is_empty(), "no goodput bins for flow {flow}");
    sel.iter().sum::<f64>() / sel.len() as f64
}

/// Jain's fairness index (Σx)²/(n·Σx²).
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}

/// Any numeric column of a result table, as f64.
pub fn column_f64(out: &RunOutput, table: &str, name: &str) -> Vec<f64> {
    match column(out, table, name) {
        ColumnData::F64(v) => v.clone(),
        ColumnData::U64(v) => v.iter().map(|&x| x as f64).collect(),
        ColumnData::U32(v) => v.iter().map(|&x| x as f64).collect(),
    }
}

/// Mean of column `name` of `table` over the rows with `t_ns` at or after `from_s`.
pub fn mean_since(out: &RunOutput, table: &str, name: &str, from_s: f64) -> f64 {
    let t = u64s(out, table, "t_ns");
    let v = column_f64(out, table, name);
    let sel: Vec<f64> = (0..t.len())
        .filter(|&i| t[i] as f64 * 1e-9 >= from_s)
        .map(|i| v[i])
        .collect();
    assert!(!sel.is_empty(), "no {table} rows after {from_s} s");
    sel.iter().sum::<f64>() / sel.len() as f64
}

/// A one-cell RAN scenario (2017 preset, gNB at (0, 0, 10 m), core 1 ms, server 10 ms
/// behind it, fading off, radio state sampled every 1 ms): `ran_extra` goes into `[ran]`, `rest` after it (UEs, buildings,
/// flows).
pub fn one_cell(duration: &str, ran_extra: &str, rest: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
seed = 1

[metrics]
sample_interval = "1ms"

[[nodes]]
name = "core"
[[nodes]]
name = "server"

[[links]]
between = ["gnb", "core"]
delay = "1ms"
rate = "100Gbps"

[[links]]
between = ["core", "server"]
delay = "10ms"
rate = "100Gbps"

[ran]
preset = "mmwave-2017"
{ran_extra}

[ran.channel]
fading = false

[[ran.gnbs]]
name = "gnb"
position_m = [0, 0, 10]
{rest}
"#
    )
}

/// [`one_cell`] with one static UE named "ue" 10 m from the gNB (LOS, ≈ 55 dB SNR with the
/// 2017 preset) ahead of `rest`.
pub fn one_ue_cell(duration: &str, ran_extra: &str, rest: &str) -> String {
    one_cell(
        duration,
        ran_extra,
        &format!("\n[[ran.ues]]\nname = \"ue\"\nposition_m = [10, 0, 1.5]\n{rest}"),
    )
}

/// One UE 10 m from the gNB whose SINR comes from the trace `sinr.csv` (see [`run_at_sinr`]),
/// 10 MB RLC buffers, then `flows`.
pub fn constant_sinr_cell(duration: &str, flows: &str) -> String {
    one_ue_cell(
        duration,
        "rlc = { buffer = \"10MB\" }",
        &format!("sinr_trace = \"sinr.csv\"\n{flows}"),
    )
}

/// Runs a [`constant_sinr_cell`] scenario with the SINR held at `sinr_db`.
pub fn run_at_sinr(toml: &str, sinr_db: f64) -> RunOutput {
    let trace = format!("time_s,sinr_db\n0,{sinr_db}\n");
    run_with_files(toml, &[("sinr.csv", &trace)], None)
}

/// A NewReno flow over a 20 Mbit/s, 10 ms link that stops for `outage_s` at t = 5 s;
/// `metrics`, `app` and `tcp` are TOML lines for those tables, `queue` the drop-tail limit.
pub fn outage_scenario(
    outage_s: f64,
    metrics: &str,
    app: &str,
    tcp: &str,
    queue: &str,
) -> mmtsim_world::RunOutput {
    let trace = format!("time_s,rate_mbps\n0,20\n5,0\n{},20\n", 5.0 + outage_s);
    let text = format!(
        r#"
[simulation]
duration = "20s"
{metrics}
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
between = ["a", "b"]
delay = "10ms"
trace = {{ file = "outage.csv" }}
reverse = {{ rate = "20Mbps" }}
queue = {{ limit = "{queue}" }}
[[flows]]
from = "a"
to = "b"
cc = "newreno"
{app}
{tcp}
"#
    );
    run_with_files(&text, &[("outage.csv", &trace)], None)
}

/// Asserts that two runs gave the same summary (but for the wall time) and the same
/// tables, bit for bit (a table's NaN, no sample, equals itself here, unlike under `==`).
pub fn assert_same_output(a: &RunOutput, b: &RunOutput) {
    let strip = |o: &RunOutput| {
        let mut v = o.summary.clone();
        v.as_object_mut().map(|m| m.remove("wall_seconds"));
        v
    };
    assert_eq!(strip(a), strip(b), "the summaries differ");
    let bits = |o: &RunOutput| -> Vec<(String, String, Vec<u64>)> {
        let mut v = Vec::new();
        for t in &o.tables {
            for c in &t.columns {
                let data = match &c.data {
                    ColumnData::U32(x) => x.iter().map(|&y| y as u64).collect(),
                    ColumnData::U64(x) => x.clone(),
                    ColumnData::F64(x) => x.iter().map(|y| y.to_bits()).collect(),
                };
                v.push((t.name.to_string(), c.name.to_string(), data));
            }
        }
        v
    };
    assert!(bits(a) == bits(b), "a table differs between the two runs");
}

/// What varies in [`line_of_cells`].
pub struct Line {
    pub duration_ms: u32,
    /// The router is the core's UPF (tunnels, path switches) rather than a plain router.
    pub core: bool,
    /// An Xn link between A and B (then neither site takes late admission).
    pub xn: bool,
    pub lossless: bool,
    pub speed_mps: f64,
    pub buffer_kb: u32,
    /// Router–site delay.
    pub site_delay_ns: u64,
    pub sample_us: u32,
    /// A scripted handover of the static UE on B to C at this instant.
    pub scripted_ms: Option<u32>,
    /// ue3's outage from 100 ms, this long (0: none): its cell may go idle.
    pub outage_ms: u32,
    /// The handover interruption, ms (`None`: the default 50 ms). With the report and
    /// command (1 ms each), a handover decided then may end within the 10 ms a packet
    /// takes from the server to the UPF, which then takes none ahead.
    pub interruption_ms: Option<u32>,
}

/// Three gNB sites A, B, C 40 m apart on a line, each 1 ms (or `site_delay_ns`) from a
/// router 10 ms from the server; A3 handovers every few hundred ms: ue0 and ue1 walk the
/// line in opposite directions (bulk downlink CUBIC, bulk uplink NewReno), ue2 sits on B
/// (50 Mbit/s of UDP down), ue3 on A (BBR down at 200 Mbit/s).
pub fn line_of_cells(o: &Line) -> String {
    let core = if o.core {
        "[core]\nupf = \"router\"\n"
    } else {
        ""
    };
    let xn = if o.xn {
        "[[links]]\nbetween = [\"A\", \"B\"]\ndelay = \"2ms\"\nrate = \"100Gbps\"\n"
    } else {
        ""
    };
    let scripted = o.scripted_ms.map_or(String::new(), |t| {
        format!("[[events]]\nat = \"{t}ms\"\nhandover = {{ ue = \"ue2\", to = \"C\" }}\n")
    });
    let interruption = o
        .interruption_ms
        .map_or(String::new(), |ms| format!("interruption = \"{ms}ms\"\n"));
    let outage = if o.outage_ms > 0 {
        format!(
            "outages = [{{ start = \"100ms\", duration = \"{}ms\" }}]",
            o.outage_ms
        )
    } else {
        String::new()
    };
    format!(
        r#"
[simulation]
duration = "{dur}ms"
seed = 3

[metrics]
sample_interval = "{sample}us"

[[nodes]]
name = "server"
[[nodes]]
name = "router"

[[links]]
between = ["server", "router"]
delay = "10ms"
rate = "10Gbps"
[[links]]
between = ["router", "A"]
delay = "{sd}ns"
rate = "10Gbps"
[[links]]
between = ["router", "B"]
delay = "{sd}ns"
rate = "10Gbps"
[[links]]
between = ["router", "C"]
delay = "{sd}ns"
rate = "10Gbps"
{xn}
{core}
[ran]
preset = "mmwave-2017"
interference = "active"

[ran.rlc]
buffer = "{buf}kB"

[ran.handover]
algorithm = "a3"
ttt = "20ms"
filter_k = 0
measurement_period = "5ms"
lossless = {lossless}
{interruption}
[[ran.gnbs]]
name = "A"
position_m = [0, 0, 10]
[[ran.gnbs]]
name = "B"
position_m = [40, 0, 10]
[[ran.gnbs]]
name = "C"
position_m = [80, 0, 10]

[[ran.ues]]
name = "ue0"
position_m = [14, 2, 1.5]
gnb = "A"
mobility = {{ kind = "waypoints", points_m = [[78, 2, 1.5]], speed_mps = {v} }}
[[ran.ues]]
name = "ue1"
position_m = [66, -2, 1.5]
gnb = "C"
mobility = {{ kind = "waypoints", points_m = [[2, -2, 1.5]], speed_mps = {v} }}
[[ran.ues]]
name = "ue2"
position_m = [40, 6, 1.5]
gnb = "B"
[[ran.ues]]
name = "ue3"
position_m = [3, 4, 1.5]
gnb = "A"
{outage}

[[flows]]
name = "down"
from = "server"
to = "ue0"
cc = "cubic"
[[flows]]
name = "up"
from = "ue1"
to = "server"
cc = "newreno"
[[flows]]
name = "udp"
protocol = "udp"
from = "server"
to = "ue2"
app = {{ kind = "cbr", rate = "50Mbps" }}
[[flows]]
name = "bbr"
from = "server"
to = "ue3"
cc = "bbr"
app = {{ kind = "rate", rate = "200Mbps" }}

{scripted}
"#,
        dur = o.duration_ms,
        sample = o.sample_us,
        sd = o.site_delay_ns,
        buf = o.buffer_kb,
        lossless = o.lossless,
        v = o.speed_mps,
    )
}

/// Handovers and re-establishments of the four UEs of [`line_of_cells`].
pub fn handovers_in(out: &RunOutput) -> u64 {
    (0..4)
        .map(|u| {
            let ue = &out.summary["ues"][u];
            ue["handovers"].as_u64().unwrap_or(0) + ue["reestablishments"].as_u64().unwrap_or(0)
        })
        .sum()
}

/// Runs `loaded` whole (`run`, which fuses hops and admits packets late) and driven by a
/// `Stepper` to its end (which does neither), checks that they agree bit for bit and that
/// the stepped run took nothing ahead; the whole run's output.
pub fn whole_against_stepped(loaded: &Loaded) -> RunOutput {
    let whole = run(loaded, &RunControl::default()).expect("runs");
    let mut s = Stepper::new(loaded, &RunControl::default()).expect("builds");
    s.run_until(s.end()).expect("runs");
    let plain = s.finish().expect("finishes");
    assert_eq!(plain.fused_hops, 0, "a stepped run fuses nothing");
    assert_eq!(plain.late_instants, 0, "a stepped run admits nothing late");
    assert_same_output(&whole, &plain);
    whole
}
