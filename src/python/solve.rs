//! `tmin.solve`, `tmin.bound`, `tmin.engines`: the registry's engines
//! through `pipeline::solve`, as `tmin solve` runs them, and the proven
//! bounds of `tmin bound`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use pyo3::prelude::*;

use super::check::ScheduleArg;
use super::instance::Instance;
use super::{InternalError, Status, json_to_py, parse_error, value_error};
use crate::schedule::Row;

/// The proven lower bounds of an instance, valid for every tiling choice.
#[pyclass(frozen, get_all, module = "tmin", name = "Bound")]
pub(crate) struct LowerBound {
    /// The best bound.
    value: u64,
    /// The argument it rests on (models/bounds.md).
    source: String,
    /// Every bound computed, `(source, value)`.
    bounds: Vec<(String, u64)>,
}

#[pymethods]
impl LowerBound {
    fn __repr__(&self) -> String {
        format!("Bound({} ({}))", self.value, self.source)
    }
}

/// A time limit in seconds (`stop::time_limit`; `float("inf")` too means
/// no limit), or the `ValueError` naming the argument.
fn seconds(name: &str, s: f64) -> PyResult<Duration> {
    // (`f64::min` would also turn NaN into a limit.)
    let finite = if s == f64::INFINITY {
        crate::stop::NO_LIMIT_SECS
    } else {
        s
    };
    crate::stop::time_limit(finite).ok_or_else(|| {
        value_error(format!(
            "{name} must be a non-negative number of seconds, got {s}"
        ))
    })
}

/// The lower bounds `tmin bound` computes: the combinatorial bounds, the
/// tiling-choice relaxation and the window net within `time_limit` seconds
/// (0: the combinatorial bounds only).
#[pyfunction]
#[pyo3(signature = (instance, time_limit = 5.0))]
pub(crate) fn bound(py: Python<'_>, instance: &Instance, time_limit: f64) -> PyResult<LowerBound> {
    let limit = seconds("time_limit", time_limit)?;
    let inst = instance.inner.clone();
    let b = py.detach(|| crate::pipeline::bounds::proven_bounds(&inst, limit));
    Ok(LowerBound {
        value: b.best.value,
        source: b.best.source.clone(),
        bounds: b.all.iter().map(|x| (x.source.clone(), x.value)).collect(),
    })
}

/// The engines `solve` offers (`tmin solve --engine`), with their help.
#[pyfunction]
pub(crate) fn engines() -> Vec<(&'static str, &'static str)> {
    crate::registry::Registry::default()
        .engines()
        .iter()
        .map(|r| (r.name, r.help))
        .collect()
}

/// What a solve found: a legal schedule (checked by the validator), the
/// best proven lower bound, and the status they prove.
#[pyclass(frozen, module = "tmin")]
pub(crate) struct Result {
    #[pyo3(get)]
    status: Status,
    /// The schedule's makespan (None without a schedule).
    #[pyo3(get)]
    makespan: Option<u128>,
    /// The best proven lower bound.
    #[pyo3(get)]
    lower_bound: u64,
    /// The argument the bound rests on.
    #[pyo3(get)]
    bound_source: String,
    /// (makespan - lower_bound) / makespan, as `tmin solve` reports it.
    #[pyo3(get)]
    gap: Option<f64>,
    /// The engine, and its steps that ran.
    #[pyo3(get)]
    engine: String,
    /// Seconds the solve took.
    #[pyo3(get)]
    seconds: f64,
    /// What the engines said (why a search stopped, what was refuted).
    #[pyo3(get)]
    notes: Vec<String>,
    /// Whether Ctrl-C (or an exception in `on_progress`) ended the search
    /// before its time limit.
    #[pyo3(get)]
    interrupted: bool,
    /// The schedule's rows, op by op (`schedule::rows_of`).
    rows: Option<Vec<Row>>,
}

impl Result {
    /// The schedule's rows, when there is one.
    pub(crate) fn rows(&self) -> Option<&[Row]> {
        self.rows.as_deref()
    }
}

#[pymethods]
impl Result {
    /// The schedule as `(op, tiling, node, start, core)` rows, op by op
    /// (None without a schedule).
    #[getter]
    fn schedule(&self) -> Option<Vec<Row>> {
        self.rows().map(<[Row]>::to_vec)
    }

    /// The schedule in the output format `[[OpId,Tiling,NodeId,Start,CoreId],...]`
    /// (None without one), as `tmin solve -o` writes it.
    fn schedule_text(&self) -> PyResult<Option<String>> {
        let Some(rows) = self.rows() else {
            return Ok(None);
        };
        let mut out = Vec::new();
        crate::schedule::write_rows(rows.iter().copied(), &mut out)
            .map_err(|e| InternalError::new_err(e.to_string()))?;
        String::from_utf8(out)
            .map(Some)
            .map_err(|e| InternalError::new_err(e.to_string()))
    }

    fn __repr__(&self) -> String {
        match self.makespan {
            Some(m) => format!(
                "Result({}, makespan {m}, lower bound {})",
                crate::solve::Status::from(self.status).name(),
                self.lower_bound
            ),
            None => format!(
                "Result({}, no schedule, lower bound {})",
                crate::solve::Status::from(self.status).name(),
                self.lower_bound
            ),
        }
    }
}

/// Solves `instance` with `engine` (`engines()` lists them; `auto` is the
/// portfolio) within `time_limit` seconds, as `tmin solve` does: the result
/// has a legal schedule (checked by the validator) or none, the best
/// proven lower bound and the status they prove.
///
/// `start` is a legal schedule to improve on (text, file, rows or a
/// `Result`; an illegal one raises `ValueError`). `memory_limit` is the
/// exact engines' model budget in MiB. `on_progress(event)` is called in
/// this thread with each better schedule and each higher bound as found,
/// then the result: the dicts of `tmin solve --progress` (`event` is
/// `incumbent`, `bound` or `result`). Ctrl-C (KeyboardInterrupt) ends the
/// search as the time limit would and returns the best found so far
/// (`interrupted` is then true); an exception raised by `on_progress` ends
/// it too and is raised once the engines have stopped. The GIL is released
/// while the engines run.
#[pyfunction]
#[pyo3(signature = (
    instance, engine = "auto", time_limit = 5.0, threads = 1, seed = 1, start = None,
    memory_limit = crate::solve::DEFAULT_MEMORY_LIMIT_MIB, on_progress = None, rule = "release"
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve(
    py: Python<'_>,
    instance: &Instance,
    engine: &str,
    time_limit: f64,
    threads: usize,
    seed: u64,
    start: Option<&Bound<'_, PyAny>>,
    memory_limit: u64,
    on_progress: Option<Py<PyAny>>,
    rule: &str,
) -> PyResult<Result> {
    let t0 = Instant::now();
    let limit = seconds("time_limit", time_limit)?;
    if threads == 0 {
        return Err(value_error("threads must be at least 1"));
    }
    if memory_limit == 0 {
        return Err(value_error("memory_limit must be at least 1 MiB"));
    }
    let rule = <crate::list::priority::Rule as clap::ValueEnum>::from_str(rule, true)
        .map_err(|_| value_error(format!("rule {rule:?}: no such priority rule")))?;
    let options = crate::registry::EngineOptions {
        rule,
        ..Default::default()
    };
    let choice = crate::registry::Registry::default()
        .choose(engine, options)
        .ok_or_else(|| {
            let names: Vec<_> = engines().iter().map(|e| e.0).collect();
            value_error(format!(
                "engine {engine:?}: no such engine (one of {})",
                names.join(", ")
            ))
        })?;
    let inst = instance.inner.clone();
    let start = match start {
        None => None,
        Some(obj) => {
            let arg = ScheduleArg::from_py(obj)?;
            match py.detach(|| arg.legal(&inst)) {
                Err(e) => return Err(parse_error(py, &e)),
                Ok(Err(why)) => return Err(value_error(format!("start: {why}"))),
                Ok(Ok(s)) => Some(Arc::new(s)),
            }
        }
    };
    let end = crate::stop::instant_after(t0, limit);
    let cancel = crate::stop::Cancel::new();
    let (tx, rx) = std::sync::mpsc::channel::<serde_json::Value>();
    let events = match &on_progress {
        Some(_) => {
            let tx = std::sync::Mutex::new(tx);
            crate::events::Events::to(move |e| {
                if let Ok(tx) = tx.lock() {
                    let _ = tx.send(crate::report::event_json(e, crate::report::Wide::Exact));
                }
            })
        }
        None => crate::events::Events::default(),
    };
    let opts = crate::solve::SolveOptions {
        time_limit: crate::pipeline::engine_budget(&inst, end),
        seed,
        threads,
        progress: false,
        events,
        start,
        memory_limit_mib: memory_limit,
        certify: None,
        cancel: Some(cancel.clone()),
    };
    let mut interrupted = false;
    let mut raised: Option<PyErr> = None;
    let r = std::thread::scope(|s| -> PyResult<crate::solve::SolveResult> {
        let (inst, opts, rx) = (&inst, &opts, std::sync::Mutex::new(rx));
        let worker = s.spawn(move || crate::pipeline::solve(choice.engine().as_ref(), inst, opts));
        // This thread passes events on and watches for Ctrl-C until the
        // engines return; it waits without the GIL.
        loop {
            let finished = worker.is_finished();
            let got = py.detach(|| {
                let rx = rx.lock().ok()?;
                if finished {
                    rx.try_recv().ok()
                } else {
                    rx.recv_timeout(Duration::from_millis(50)).ok()
                }
            });
            if let Some(ev) = got {
                if let (Some(f), None) = (&on_progress, &raised) {
                    let called = json_to_py(py, &ev).and_then(|d| f.call1(py, (d,)));
                    if let Err(e) = called {
                        // Ctrl-C while the callback ran is Ctrl-C.
                        if !e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
                            raised = Some(e);
                        }
                        interrupted = true;
                        cancel.set();
                    }
                }
                continue;
            }
            if finished {
                break;
            }
            if let Err(e) = py.check_signals() {
                interrupted = true;
                cancel.set();
                if !e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
                    raised.get_or_insert(e);
                }
            }
        }
        worker
            .join()
            .map_err(|_| InternalError::new_err("the solve's thread panicked"))
    })?;
    if let Some(e) = raised {
        return Err(e);
    }
    if let Some(e) = &r.internal_error {
        return Err(InternalError::new_err(e.clone()));
    }
    let seconds = t0.elapsed().as_secs_f64();
    if let Some(f) = &on_progress {
        let d = json_to_py(
            py,
            &crate::report::result_event_json(&r, seconds, crate::report::Wide::Exact),
        )?;
        f.call1(py, (d,))?;
    }
    let mut notes: Vec<String> = r.notes.iter().map(|n| n.text.clone()).collect();
    if interrupted {
        notes.push("interrupted (Ctrl-C): the best schedule and bound so far".into());
    }
    let gap = r.gap();
    let rows = match &r.schedule {
        Some(s) => {
            let g = crate::graph::NodeGraph::new(&inst, s.choice.clone())
                .map_err(InternalError::new_err)?;
            Some(crate::schedule::rows_of(&g, s).collect())
        }
        None => None,
    };
    Ok(Result {
        status: r.status.into(),
        makespan: r.makespan,
        lower_bound: r.lower_bound,
        bound_source: r.bound_source.clone(),
        gap,
        engine: r.engine.clone(),
        seconds,
        notes,
        interrupted,
        rows,
    })
}
