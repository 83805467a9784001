//! `_core.Emulation`: a scenario run in real time between two TUN devices, with real
//! packets through its simulated network (`mmtsim_emu::realtime`). Python creates the
//! namespaces around the devices, runs `run()` in a thread, and calls `stop()` and
//! `finish()` when the user's command is done.

use crate::{guarded, load, tables_dict, SimulationError};
use mmtsim_emu::realtime::{resolve_ends, Config, Driver, Stopped};
use mmtsim_emu::tun::Tun;
use mmtsim_scenario::Loaded;
use mmtsim_world::{RunControl, RunOutput, Stepper};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

create_exception!(
    _core,
    LagExceeded,
    SimulationError,
    "The emulation fell behind the wall clock beyond its bound (strict mode)."
);

type Outcome = (RunOutput, serde_json::Value);

/// A scenario emulated in real time. The two TUN devices exist from construction until
/// the object is dropped.
#[pyclass(frozen)]
pub struct Emulation {
    loaded: Loaded,
    ue: String,
    server: String,
    seed: Option<u64>,
    cfg: Config,
    tuns: Mutex<Option<(Tun, Tun)>>,
    stop: Arc<AtomicBool>,
    outcome: Mutex<Option<Outcome>>,
}

#[pymethods]
impl Emulation {
    #[new]
    #[pyo3(signature = (text, format, origin, base_dir, overrides, seed, ue, server, ue_tun, server_tun,
                        max_lag_s=1e-3, strict=false, pcap=None, snaplen=128, duration_s=None,
                        background=false, lag_grace_s=0.1, cpu=None, offload=true,
                        server_pcap=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        text: &str,
        format: &str,
        origin: &str,
        base_dir: &str,
        mut overrides: Vec<String>,
        seed: Option<u64>,
        ue: Option<&str>,
        server: Option<&str>,
        ue_tun: &str,
        server_tun: &str,
        max_lag_s: f64,
        strict: bool,
        pcap: Option<PathBuf>,
        snaplen: u32,
        duration_s: Option<f64>,
        background: bool,
        lag_grace_s: f64,
        cpu: Option<usize>,
        offload: bool,
        server_pcap: Option<PathBuf>,
    ) -> PyResult<Self> {
        let positive = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(PyValueError::new_err(format!(
                    "{name}: expected a positive number of seconds, got {v}"
                )))
            }
        };
        positive("max_lag", max_lag_s)?;
        positive("lag_grace", lag_grace_s)?;
        if let Some(d) = duration_s {
            positive("duration", d)?;
            overrides.push(format!(
                "simulation.duration={}ns",
                (d * 1e9).round() as u64
            ));
        }
        if snaplen < 20 {
            return Err(PyValueError::new_err(format!(
                "snaplen: expected at least 20 bytes (an IPv4 header), got {snaplen}"
            )));
        }
        let mut loaded = load(text, format, origin, base_dir, overrides)?;
        let (ue, server) = resolve_ends(&loaded.scenario, ue, server)
            .map_err(|m| PyValueError::new_err(format!("{origin}: {m}")))?;
        if !background {
            loaded.scenario.flows.clear();
        }
        let cfg = Config {
            max_lag_ns: (max_lag_s * 1e9) as u64,
            lag_grace_ns: (lag_grace_s * 1e9) as u64,
            strict,
            pcap,
            server_pcap,
            snaplen,
            goodput_bin_ns: loaded.scenario.metrics.goodput_bin.0,
            // The simulator's per-packet tables' budget, whole for each real flow.
            rtt_budget: if loaded.scenario.metrics.keep_all_samples {
                0
            } else {
                loaded.scenario.metrics.sample_budget as usize
            },
            cpu,
        };
        let open = |name: &str| {
            let made = if offload {
                Tun::create_with_offload(name)
            } else {
                Tun::create(name)
            };
            made.map_err(|e| {
                pyo3::exceptions::PyOSError::new_err((
                    e.raw_os_error().unwrap_or(0),
                    format!("cannot create TUN device {name}: {e}"),
                ))
            })
        };
        let tuns = (open(ue_tun)?, open(server_tun)?);
        Ok(Emulation {
            loaded,
            ue,
            server,
            seed,
            cfg,
            tuns: Mutex::new(Some(tuns)),
            stop: Arc::new(AtomicBool::new(false)),
            outcome: Mutex::new(None),
        })
    }

    /// The emulated UE's node name.
    #[getter]
    fn ue_name(&self) -> &str {
        &self.ue
    }

    /// The server side's node name.
    #[getter]
    fn server_name(&self) -> &str {
        &self.server
    }

    /// Runs in real time (without the GIL) until `stop()` or the scenario's end.
    fn run(&self, py: Python<'_>) -> PyResult<()> {
        let (ue_tun, server_tun) = self
            .tuns
            .lock()
            .expect("not poisoned")
            .take()
            .ok_or_else(|| SimulationError::new_err("the emulation has already run"))?;
        let ctl = RunControl {
            seed: self.seed,
            ..RunControl::default()
        };
        let result = guarded(py, || -> Result<(Stopped, Outcome), String> {
            let stepper = Stepper::new(&self.loaded, &ctl).map_err(|e| e.to_string())?;
            let ue = stepper.node_id(&self.ue).expect("resolved");
            let server = stepper.node_id(&self.server).expect("resolved");
            let mut d = Driver::new(stepper, ue_tun, server_tun, ue, server, self.cfg.clone())
                .map_err(|e| format!("cannot start the emulation: {e}"))?;
            let stopped = d
                .run(&self.stop)
                .map_err(|e| format!("emulation failed: {e}"))?;
            let out = d.finish().map_err(|e| e.to_string())?;
            Ok((stopped, out))
        })?;
        match result {
            Err(m) => Err(SimulationError::new_err(m)),
            Ok((stopped, out)) => {
                let lag = out.1["lag"].clone();
                *self.outcome.lock().expect("not poisoned") = Some(out);
                if stopped == Stopped::Lag {
                    return Err(LagExceeded::new_err(format!(
                        "the emulation fell behind the wall clock by more than {} µs for longer \
                         than {} ms (strict): stopped; the run folder holds what ran",
                        lag["bound_us"], lag["grace_ms"]
                    )));
                }
                Ok(())
            }
        }
    }

    /// Asks `run()` to return; safe from any thread.
    fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// (summary JSON text, tables, emulation report JSON text) of the finished run.
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<(String, Bound<'py, PyDict>, String)> {
        let (out, report) = self
            .outcome
            .lock()
            .expect("not poisoned")
            .take()
            .ok_or_else(|| SimulationError::new_err("the emulation has not run (or failed)"))?;
        let tables = tables_dict(py, out.tables)?;
        Ok((out.summary.to_string(), tables, report.to_string()))
    }
}

/// Registers the class and its exception.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Emulation>()?;
    m.add("LagExceeded", m.py().get_type::<LagExceeded>())?;
    Ok(())
}
