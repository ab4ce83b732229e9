//! The Python package `tmin` (built by maturin with `--features python`):
//! the library's own functions behind Python types, nothing computed twice.
//! Every value a Python caller gets came from the same code the CLI runs:
//! `Instance.read` the parser, `check` the validator, `solve` the registry's
//! engines through `pipeline::solve`, `score`, `gen` and `plot` their
//! modules; dictionaries are the CLI's `--json` objects.
//!
//! Long calls run without the GIL. `solve` runs its engines on a thread of
//! their own while the calling thread passes progress events to
//! `on_progress` and watches for Ctrl-C: an interrupt sets the solve's
//! cancel flag (`stop::Cancel`), which ends the search as the time limit
//! does, and the best schedule and bound so far are returned.

mod check;
mod instance;
mod solve;
mod tools;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::error::InputError;

pyo3::create_exception!(
    tmin,
    ParseError,
    pyo3::exceptions::PyValueError,
    "An instance or schedule text that does not follow the format: `file`, \
     `line` and `column` (from 1; 0 when the file could not be opened) locate \
     it, `message` says what was expected there."
);

pyo3::create_exception!(
    tmin,
    InternalError,
    pyo3::exceptions::PyRuntimeError,
    "A bug in tmin (please report it with the input): an engine's schedule \
     failed the validator, or a drawing failed."
);

/// The proof status of a solve.
#[pyclass(eq, eq_int, frozen, module = "tmin")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// A schedule whose makespan equals a proven lower bound.
    #[pyo3(name = "OPTIMAL")]
    Optimal,
    /// A legal schedule, not proven optimal.
    #[pyo3(name = "FEASIBLE")]
    Feasible,
    /// Proven: no legal schedule exists.
    #[pyo3(name = "INFEASIBLE")]
    Infeasible,
    /// No schedule and no proof within the limit.
    #[pyo3(name = "UNKNOWN")]
    Unknown,
}

#[pymethods]
impl Status {
    fn __str__(&self) -> &'static str {
        crate::solve::Status::from(*self).name()
    }
}

impl From<crate::solve::Status> for Status {
    fn from(s: crate::solve::Status) -> Self {
        use crate::solve::Status as S;
        match s {
            S::Optimal => Status::Optimal,
            S::Feasible => Status::Feasible,
            S::Infeasible => Status::Infeasible,
            S::Unknown => Status::Unknown,
        }
    }
}

impl From<Status> for crate::solve::Status {
    fn from(s: Status) -> Self {
        use crate::solve::Status as S;
        match s {
            Status::Optimal => S::Optimal,
            Status::Feasible => S::Feasible,
            Status::Infeasible => S::Infeasible,
            Status::Unknown => S::Unknown,
        }
    }
}

/// An input error as `ParseError`, with its position as attributes.
pub(crate) fn parse_error(py: Python<'_>, e: &InputError) -> PyErr {
    let err = ParseError::new_err(e.to_string());
    let v = err.value(py);
    let set = || -> PyResult<()> {
        v.setattr("file", &e.file)?;
        v.setattr("line", e.pos.line)?;
        v.setattr("column", e.pos.col)?;
        v.setattr("message", &e.msg)
    };
    match set() {
        Ok(()) => err,
        Err(other) => other,
    }
}

/// A bad argument, as Python's `ValueError`.
pub(crate) fn value_error(msg: impl Into<String>) -> PyErr {
    pyo3::exceptions::PyValueError::new_err(msg.into())
}

/// A JSON value (the CLI's `--json` objects) as Python objects.
pub(crate) fn json_to_py<'py>(
    py: Python<'py>,
    v: &serde_json::Value,
) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => pyo3::types::PyBool::new(py, *b).to_owned().into_any(),
        // Integers beyond u64 come as exact numbers (`report::Wide::Exact`).
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_u128()) {
            (Some(u), _, _) => u.into_pyobject(py)?.into_any(),
            (None, Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(a) => {
            let items = a
                .iter()
                .map(|x| json_to_py(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, json_to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// Optimal and bounded schedules for the minimum inference latency problem
/// (the Rust core of the `tmin` package).
#[pymodule]
#[pyo3(name = "_tmin")]
mod tmin_module {
    #[pymodule_export]
    use super::{InternalError, ParseError, Status};

    #[pymodule_export]
    use super::instance::{Graph, Instance};

    #[pymodule_export]
    use super::check::{Verdict, Violation, check};

    #[pymodule_export]
    use super::solve::{LowerBound, Result, bound, engines, solve};

    #[pymodule_export]
    use super::tools::{Generated, Score, generate, plot, score};

    #[pymodule_init]
    fn init(m: &pyo3::Bound<'_, pyo3::types::PyModule>) -> pyo3::PyResult<()> {
        use pyo3::types::PyModuleMethods;
        m.add("__version__", env!("CARGO_PKG_VERSION"))
    }
}
