//! Python bindings (`mmtsim._core`). This crate only converts: scenarios arrive as text,
//! results leave as a JSON summary plus numpy columns, errors become the exception
//! hierarchy below. Runs release the GIL, so a thread pool runs several in parallel, and
//! any Rust panic is caught and raised as `SimulationError` instead of aborting Python.

use mmtsim_engine::SimTime;
use mmtsim_net::linkview::{Direction, Grant, LinkView};
use mmtsim_net::trace::RateTrace;
use mmtsim_scenario::{Format, Loaded};
use mmtsim_transport::cc::{AckSample, CaState, CcParams, Controller};
use mmtsim_transport::tcp::rate::RateSample;
use mmtsim_world::{ColumnData, RunControl, RunError};
use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

mod cc;
mod emulate;

create_exception!(
    _core,
    MmtsimError,
    PyException,
    "Base class of every mmtsim error."
);
create_exception!(
    _core,
    ScenarioError,
    MmtsimError,
    "The scenario is invalid; nothing was run."
);
create_exception!(
    _core,
    SimulationError,
    MmtsimError,
    "The simulation stopped on an internal error (a bug)."
);
create_exception!(_core, Cancelled, MmtsimError, "The run was cancelled.");

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

/// Runs `f` without the GIL; a panic (a violated model invariant, i.e. a bug) becomes a
/// `SimulationError` instead of unwinding into Python.
fn guarded<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.detach(|| catch_unwind(AssertUnwindSafe(f)))
        .map_err(|p| {
            SimulationError::new_err(format!(
                "internal error (please report): {}",
                panic_message(p)
            ))
        })
}

/// Test hook: panics inside the same guard as `run`, to check that no panic reaches Python
/// as a crash.
#[pyfunction]
fn _panic_inside_guard(py: Python<'_>) -> PyResult<()> {
    guarded(py, || -> () {
        panic!("invariant violated at t = 1.5 s in test")
    })
}

fn format_of(f: &str) -> PyResult<Format> {
    match f {
        "toml" => Ok(Format::Toml),
        "json" => Ok(Format::Json),
        other => Err(PyValueError::new_err(format!(
            "format must be \"toml\" or \"json\", not {other:?}"
        ))),
    }
}

fn load(
    text: &str,
    format: &str,
    origin: &str,
    base_dir: &str,
    overrides: Vec<String>,
) -> PyResult<Loaded> {
    mmtsim_scenario::load_str(
        text,
        format_of(format)?,
        origin,
        Path::new(base_dir),
        &overrides,
    )
    .map_err(|e| ScenarioError::new_err(e.to_string()))
}

/// Validates a scenario; returns the resolved scenario as JSON text.
#[pyfunction]
#[pyo3(signature = (text, format="toml", origin="<string>", base_dir=".", overrides=vec![]))]
fn validate(
    text: &str,
    format: &str,
    origin: &str,
    base_dir: &str,
    overrides: Vec<String>,
) -> PyResult<String> {
    let l = load(text, format, origin, base_dir, overrides)?;
    Ok(serde_json::to_string(&l.scenario).expect("scenario serialises"))
}

/// Progress of a run, readable from another thread, with cancellation.
#[pyclass(frozen)]
struct Progress {
    sim_ns: Arc<AtomicU64>,
    cancel: Arc<AtomicBool>,
}

#[pymethods]
impl Progress {
    #[new]
    fn new() -> Self {
        Progress {
            sim_ns: Arc::new(AtomicU64::new(0)),
            cancel: Arc::new(AtomicBool::new(false)),
        }
    }
    /// Simulated seconds reached so far.
    #[getter]
    fn sim_seconds(&self) -> f64 {
        self.sim_ns.load(Ordering::Relaxed) as f64 * 1e-9
    }
    /// Asks the run to stop; it raises `Cancelled`.
    fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// Runs a scenario. Returns (summary JSON text, {table: {column: numpy array}}).
#[pyfunction]
#[pyo3(signature = (text, format="toml", origin="<string>", base_dir=".", overrides=vec![], seed=None, capture_dir=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    text: &str,
    format: &str,
    origin: &str,
    base_dir: &str,
    overrides: Vec<String>,
    seed: Option<u64>,
    capture_dir: Option<PathBuf>,
    progress: Option<Bound<'py, Progress>>,
) -> PyResult<(String, Bound<'py, PyDict>)> {
    let loaded = load(text, format, origin, base_dir, overrides)?;
    let ctl = RunControl {
        seed,
        progress_ns: progress.as_ref().map(|p| p.get().sim_ns.clone()),
        cancel: progress.as_ref().map(|p| p.get().cancel.clone()),
        capture_dir,
    };
    let result = guarded(py, || mmtsim_world::run(&loaded, &ctl))?;
    let out = match result {
        Err(RunError::Cancelled) => return Err(Cancelled::new_err("the run was cancelled")),
        Err(e) => return Err(SimulationError::new_err(e.to_string())),
        Ok(o) => o,
    };
    let tables = tables_dict(py, out.tables)?;
    Ok((out.summary.to_string(), tables))
}

/// Tables as {name: {column: numpy array}}.
fn tables_dict(py: Python<'_>, tables: Vec<mmtsim_world::Table>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for t in tables {
        let cols = PyDict::new(py);
        for c in t.columns {
            match c.data {
                ColumnData::U32(v) => cols.set_item(c.name, v.into_pyarray(py))?,
                ColumnData::U64(v) => cols.set_item(c.name, v.into_pyarray(py))?,
                ColumnData::F64(v) => cols.set_item(c.name, v.into_pyarray(py))?,
            }
        }
        d.set_item(t.name, cols)?;
    }
    Ok(d)
}

/// The JSON Schema of scenario files, as text.
#[pyfunction]
fn schema() -> String {
    serde_json::to_string_pretty(&mmtsim_scenario::json_schema()).expect("schema serialises")
}

/// Converts a capacity trace between formats ("csv", "mahimahi") up to `until_s` seconds.
#[pyfunction]
fn convert_trace(text: &str, from_format: &str, to_format: &str, until_s: f64) -> PyResult<String> {
    let trace = match from_format {
        "csv" => RateTrace::from_csv(text),
        "mahimahi" => RateTrace::from_mahimahi(text),
        o => {
            return Err(PyValueError::new_err(format!(
                "unknown trace format {o:?}: expected \"csv\" or \"mahimahi\""
            )))
        }
    }
    .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let max_s = mmtsim_scenario::units::Duration::MAX as f64 * 1e-9;
    if !(until_s.is_finite() && until_s > 0.0 && until_s <= max_s) {
        return Err(PyValueError::new_err(format!(
            "until = {until_s} s: expected a positive duration of at most {max_s} s"
        )));
    }
    let until = SimTime::from_secs_f64(until_s);
    if trace.capacity_bytes(SimTime::ZERO, until) == 0 {
        return Err(ScenarioError::new_err(format!(
            "the trace delivers nothing in its first {until_s} s (every rate is 0 there): \
             there is nothing to export; check the rate column and its unit"
        )));
    }
    // Both exports write a line per delivery opportunity or per millisecond bin at worst;
    // refuse what would not fit in memory instead of aborting.
    const MAX_LINES: u64 = 50_000_000;
    let lines = match (from_format, to_format) {
        (_, "mahimahi") => trace.capacity_bytes(SimTime::ZERO, until) / 1500,
        ("mahimahi", _) => until.ns() / 1_000_000,
        _ => 0,
    };
    if lines > MAX_LINES {
        return Err(PyValueError::new_err(format!(
            "exporting {until_s} s would write about {lines} lines (at most {MAX_LINES}); use a shorter --until"
        )));
    }
    match to_format {
        "csv" => Ok(trace.to_csv(until)),
        "mahimahi" => Ok(trace.to_mahimahi(until)),
        o => Err(PyValueError::new_err(format!(
            "unknown trace format {o:?}: expected \"csv\" or \"mahimahi\""
        ))),
    }
}

/// NR MCS table 1 (TS 38.214 Table 5.1.3.1-1) as the RAN uses it: per MCS 0…28, the
/// modulation order, the code rate and the EESM model's 10 % BLER SINR threshold (dB), so
/// that Python tools that map rates to SINRs read the simulator's table, not a copy.
#[pyfunction]
fn nr_mcs_table1() -> Vec<(u8, f64, f64)> {
    use mmtsim_ran::phy::{amc, mcs};
    mcs::NR_MCS_TABLE1
        .iter()
        .zip(amc::EESM_T1_THRESHOLDS_DB)
        .map(|(row, th)| (row.qm, row.code_rate, th))
        .collect()
}

/// Parses a duration such as "60s" (the scenario files' strict syntax) into seconds.
#[pyfunction]
fn parse_duration(text: &str) -> PyResult<f64> {
    mmtsim_scenario::units::Duration::parse(text)
        .map(|d| d.0 as f64 * 1e-9)
        .map_err(PyValueError::new_err)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // How the extension was built: "pgo" from scripts/pgo.sh, else "plain". Benchmark
    // figures depend on it (about 15 %), so `mmtsim bench` records it.
    m.add("__build__", option_env!("MMTSIM_BUILD").unwrap_or("plain"))?;
    m.add("MmtsimError", m.py().get_type::<MmtsimError>())?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("Cancelled", m.py().get_type::<Cancelled>())?;
    m.add_class::<Progress>()?;
    m.add_class::<cc::CongestionControl>()?;
    emulate::register(m)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(convert_trace, m)?)?;
    m.add_function(wrap_pyfunction!(cc::algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(parse_duration, m)?)?;
    m.add_function(wrap_pyfunction!(nr_mcs_table1, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_inside_guard, m)?)?;
    Ok(())
}
