//! Python bindings (`mmtsim._core`). This crate only converts: scenarios arrive as text,
//! results leave as a JSON summary plus numpy columns, errors become the exception
//! hierarchy below. Runs release the GIL, so a thread pool runs several in parallel, and
//! any Rust panic is caught and raised as `SimulationError` instead of aborting Python.

use mmtsim_engine::SimTime;
use mmtsim_net::trace::RateTrace;
use mmtsim_scenario::{Format, Loaded};
use mmtsim_transport::cc::{AckSample, CaState, CcParams, Controller};
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
    let tables = PyDict::new(py);
    for t in out.tables {
        let cols = PyDict::new(py);
        for c in t.columns {
            match c.data {
                ColumnData::U32(v) => cols.set_item(c.name, v.into_pyarray(py))?,
                ColumnData::U64(v) => cols.set_item(c.name, v.into_pyarray(py))?,
                ColumnData::F64(v) => cols.set_item(c.name, v.into_pyarray(py))?,
            }
        }
        tables.set_item(t.name, cols)?;
    }
    Ok((out.summary.to_string(), tables))
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
    .map_err(|e| ScenarioError::new_err(format!("trace: {e}")))?;
    let max_s = mmtsim_scenario::units::Duration::MAX as f64 * 1e-9;
    if !(until_s.is_finite() && until_s > 0.0 && until_s <= max_s) {
        return Err(PyValueError::new_err(format!(
            "until = {until_s} s: expected a positive duration of at most {max_s} s"
        )));
    }
    let until = SimTime::from_secs_f64(until_s);
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

/// Parses a duration such as "60s" (the scenario files' strict syntax) into seconds.
#[pyfunction]
fn parse_duration(text: &str) -> PyResult<f64> {
    mmtsim_scenario::units::Duration::parse(text)
        .map(|d| d.0 as f64 * 1e-9)
        .map_err(PyValueError::new_err)
}

/// A congestion-control algorithm driven by explicit events (standalone use).
#[pyclass(unsendable)]
struct CongestionControl {
    c: Controller,
    mss: u32,
}

fn secs(t: f64, what: &str) -> PyResult<SimTime> {
    if t.is_finite() && t >= 0.0 {
        Ok(SimTime::from_secs_f64(t))
    } else {
        Err(PyValueError::new_err(format!(
            "{what} = {t}: expected a non-negative number of seconds"
        )))
    }
}

#[pymethods]
impl CongestionControl {
    #[new]
    #[pyo3(signature = (name, mss=1400, initial_cwnd=10, hystart=None))]
    fn new(name: &str, mss: u32, initial_cwnd: u32, hystart: Option<bool>) -> PyResult<Self> {
        let mut p = CcParams::default_for(name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "unknown congestion control {name:?}; known: {}",
                CcParams::NAMES.join(", ")
            ))
        })?;
        if mss == 0 || initial_cwnd == 0 {
            return Err(PyValueError::new_err(
                "mss and initial_cwnd must be positive",
            ));
        }
        match (&mut p, hystart) {
            (CcParams::Cubic(c), Some(h)) => c.hystart = h.then(Default::default),
            (_, Some(_)) => {
                return Err(PyValueError::new_err(format!(
                    "hystart is a CUBIC option; {name:?} has none"
                )))
            }
            _ => {}
        }
        Ok(CongestionControl {
            c: Controller::new(&p, initial_cwnd, SimTime::ZERO),
            mss,
        })
    }

    /// One ACK at `now` (s) delivering `acked` segments, with an optional RTT sample (s).
    #[pyo3(signature = (now, acked=1, rtt=None, cwnd_limited=true, in_flight=0))]
    fn on_ack(
        &mut self,
        now: f64,
        acked: u32,
        rtt: Option<f64>,
        cwnd_limited: bool,
        in_flight: u32,
    ) -> PyResult<()> {
        let now = secs(now, "now")?;
        let rtt = rtt.map(|r| secs(r, "rtt")).transpose()?;
        let mut s = AckSample::simple(now, acked, rtt);
        s.cwnd_limited = cwnd_limited;
        s.prior_in_flight = in_flight;
        s.acked_bytes = acked as u64 * self.mss as u64;
        self.c.on_ack(&s);
        Ok(())
    }

    /// Loss detected by duplicate ACKs / SACK: enter fast recovery (ssthresh is cut; the
    /// window stays until `exit_recovery`, as PRR would take it down gradually).
    fn on_loss(&mut self, now: f64) -> PyResult<()> {
        let _ = secs(now, "now")?;
        self.c.enter_recovery(0);
        Ok(())
    }

    /// Fast recovery ends: cwnd = ssthresh.
    fn exit_recovery(&mut self, now: f64) -> PyResult<()> {
        self.c.exit_recovery(secs(now, "now")?);
        Ok(())
    }

    /// Retransmission timeout with `in_flight` segments still counted in flight.
    #[pyo3(signature = (now, in_flight=0))]
    fn on_rto(&mut self, now: f64, in_flight: u32) -> PyResult<()> {
        self.c.on_rto(secs(now, "now")?, in_flight, 0, 0);
        Ok(())
    }

    /// Congestion window, segments.
    #[getter]
    fn cwnd(&self) -> u32 {
        self.c.cwnd()
    }
    /// Slow-start threshold, segments (2147483647 = infinite).
    #[getter]
    fn ssthresh(&self) -> u32 {
        self.c.ssthresh()
    }
    /// Congestion window, bytes.
    #[getter]
    fn cwnd_bytes(&self) -> u64 {
        self.c.cwnd() as u64 * self.mss as u64
    }
    /// Slow-start threshold, bytes (None while infinite).
    #[getter]
    fn ssthresh_bytes(&self) -> Option<u64> {
        (self.c.ssthresh() < mmtsim_transport::cc::INFINITE_SSTHRESH)
            .then(|| self.c.ssthresh() as u64 * self.mss as u64)
    }
    /// "open", "disorder", "cwr", "recovery" or "loss".
    #[getter]
    fn state(&self) -> &'static str {
        match self.c.state() {
            CaState::Open => "open",
            CaState::Disorder => "disorder",
            CaState::Cwr => "cwr",
            CaState::Recovery => "recovery",
            CaState::Loss => "loss",
        }
    }
    /// Algorithm name.
    #[getter]
    fn name(&self) -> &'static str {
        self.c.name()
    }
    /// Algorithm-specific state (e.g. CUBIC's w_max and K).
    fn metrics(&self) -> Vec<(&'static str, f64)> {
        self.c.metrics()
    }
    fn __repr__(&self) -> String {
        format!(
            "CongestionControl({:?}, cwnd={}, ssthresh={}, state={:?})",
            self.c.name(),
            self.c.cwnd(),
            self.c.ssthresh(),
            self.state()
        )
    }
}

/// Names of the congestion-control algorithms.
#[pyfunction]
fn algorithms() -> Vec<&'static str> {
    CcParams::NAMES.to_vec()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MmtsimError", m.py().get_type::<MmtsimError>())?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("Cancelled", m.py().get_type::<Cancelled>())?;
    m.add_class::<Progress>()?;
    m.add_class::<CongestionControl>()?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(convert_trace, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(parse_duration, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_inside_guard, m)?)?;
    Ok(())
}
