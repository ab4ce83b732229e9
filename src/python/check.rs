//! `tmin.check`: the validator on a schedule given as text, a file, rows
//! or a solve's result, with the rows each violation involves.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use super::instance::Instance;
use super::parse_error;
use super::solve::Result as SolveResult;
use crate::schedule::{Report, Row, Usage};

/// A schedule as a Python caller gives it.
pub(crate) enum ScheduleArg {
    /// The output format's text.
    Text(String),
    /// A file in the output format.
    File(PathBuf),
    /// `(op, tiling, node, start, core)` rows.
    Rows(Vec<Row>),
}

impl ScheduleArg {
    /// `str` is text, `os.PathLike` a file, a `Result` its schedule, any
    /// other sequence rows of five integers (tuples or lists).
    pub(crate) fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        if obj.is_instance_of::<PyString>() {
            return Ok(ScheduleArg::Text(obj.extract()?));
        }
        if obj.hasattr("__fspath__")? {
            return Ok(ScheduleArg::File(obj.extract()?));
        }
        if let Ok(r) = obj.cast::<SolveResult>() {
            return match r.get().rows() {
                Some(rows) => Ok(ScheduleArg::Rows(rows.to_vec())),
                None => Err(super::value_error(
                    "this result has no schedule (its status is unknown or infeasible)",
                )),
            };
        }
        if let Ok(rows) = obj.extract::<Vec<Row>>() {
            return Ok(ScheduleArg::Rows(rows));
        }
        let lists: Vec<Vec<u64>> = obj.extract().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err(
                "a schedule is its text (str), a file (os.PathLike), a solve's Result, or a \
                 sequence of (op, tiling, node, start, core) rows of non-negative integers",
            )
        })?;
        let mut rows = Vec::with_capacity(lists.len());
        for (k, l) in lists.iter().enumerate() {
            let small = |x: u64| u32::try_from(x).ok();
            match l.as_slice() {
                &[op, t, node, start, core] => {
                    match (small(op), small(t), small(node), small(core)) {
                        (Some(op), Some(t), Some(node), Some(core)) => {
                            rows.push((op, t, node, start, core))
                        }
                        _ => {
                            return Err(pyo3::exceptions::PyOverflowError::new_err(format!(
                                "row {k}: op, tiling, node and core ids are below 2^32"
                            )));
                        }
                    }
                }
                _ => {
                    return Err(super::value_error(format!(
                        "row {k} has {} numbers; a row is (op, tiling, node, start, core)",
                        l.len()
                    )));
                }
            }
        }
        Ok(ScheduleArg::Rows(rows))
    }

    /// The rows, parsed where the schedule is text (for the rows a
    /// violation involves).
    fn rows(&self) -> Result<std::borrow::Cow<'_, [Row]>, crate::error::InputError> {
        use std::borrow::Cow;
        Ok(match self {
            ScheduleArg::Rows(r) => Cow::Borrowed(r),
            ScheduleArg::Text(t) => {
                Cow::Owned(crate::schedule::parse_rows(t.as_bytes(), "<string>")?)
            }
            ScheduleArg::File(p) => Cow::Owned(crate::schedule::parse_rows(
                std::io::BufReader::new(crate::error::open_file(p)?),
                &p.display().to_string(),
            )?),
        })
    }

    /// The validator's report, as `tmin check` makes it (text and files
    /// are read as it reads them).
    pub(crate) fn report(
        &self,
        inst: &crate::instance::Instance,
        limit: usize,
    ) -> Result<Report, crate::error::InputError> {
        Ok(self.report_with_usage(inst, limit, false)?.0)
    }

    /// `report`, and with `usage` a legal schedule's `Usage` (`tmin check
    /// --usage`).
    fn report_with_usage(
        &self,
        inst: &crate::instance::Instance,
        limit: usize,
        usage: bool,
    ) -> Result<(Report, Option<Usage>), crate::error::InputError> {
        use crate::schedule::{check_outcome_with_usage, check_reader_with_usage};
        use std::io::BufReader;
        match self {
            ScheduleArg::Text(t) => {
                check_reader_with_usage(inst, t.as_bytes(), "<string>", limit, usage)
            }
            ScheduleArg::File(p) => check_reader_with_usage(
                inst,
                BufReader::new(crate::error::open_file(p)?),
                &p.display().to_string(),
                limit,
                usage,
            ),
            ScheduleArg::Rows(r) => Ok(check_outcome_with_usage(
                inst,
                crate::schedule::schedule_from_rows(inst, r, limit),
                limit,
                usage,
            )),
        }
    }

    /// The schedule, when it is legal; else its violations as one message.
    pub(crate) fn legal(
        &self,
        inst: &crate::instance::Instance,
    ) -> Result<std::result::Result<crate::schedule::Schedule, String>, crate::error::InputError>
    {
        let rows = self.rows()?;
        let read = crate::schedule::schedule_from_rows(inst, &rows, 5);
        Ok(crate::schedule::legal_schedule(inst, read, 5).map_err(|v| {
            format!(
                "not a legal schedule for this instance ({} violations; tmin.check lists \
                 them): {}",
                v.total(),
                v.kept_text()
            )
        }))
    }
}

/// One broken rule of a schedule.
#[pyclass(frozen, get_all, module = "tmin")]
pub(crate) struct Violation {
    /// The rule: `structure`, `core-id`, `precedence`, `core-overlap` or
    /// `memory` (docs/problem.md §4).
    kind: String,
    /// What is wrong, as `tmin check` says it.
    message: String,
    /// `(op id, node id)` of the nodes involved.
    nodes: Vec<(u32, u32)>,
    /// Indices (from 0) of the schedule rows naming those nodes.
    rows: Vec<usize>,
    /// The instant it happens, where it has one.
    time: Option<u128>,
}

#[pymethods]
impl Violation {
    fn __repr__(&self) -> String {
        format!("Violation({}: {})", self.kind, self.message)
    }
}

/// The validator's verdict on a schedule; true when it is legal.
#[pyclass(frozen, module = "tmin")]
pub(crate) struct Verdict {
    #[pyo3(get)]
    legal: bool,
    /// The latest end, when the rows form a complete schedule.
    #[pyo3(get)]
    makespan: Option<u128>,
    /// The first violations (at most `max_violations`).
    #[pyo3(get)]
    violations: Vec<Py<Violation>>,
    /// Every violation, counted.
    #[pyo3(get)]
    violation_count: usize,
    /// Rows read.
    #[pyo3(get)]
    rows: usize,
    counts: Vec<(&'static str, usize)>,
    /// With `bound=True`, of a legal schedule: the instance's best proven
    /// lower bound (`tmin.bound` within 2 s) and its source.
    #[pyo3(get)]
    lower_bound: Option<u64>,
    #[pyo3(get)]
    bound_source: Option<String>,
    /// The bound for the schedule's own tilings (or `lower_bound` where
    /// higher: it holds for them too) and its source: how far the
    /// schedule's order alone may be from the best with these tilings.
    #[pyo3(get)]
    tilings_lower_bound: Option<u64>,
    #[pyo3(get)]
    tilings_bound_source: Option<String>,
    /// With `usage=True`, of a legal schedule: `tmin check --usage --json`'s
    /// `"usage"` object.
    usage: Option<serde_json::Value>,
}

impl Verdict {
    fn gap_to(&self, bound: Option<u64>) -> Option<f64> {
        Some(crate::solve::gap(self.makespan?, u128::from(bound?)))
    }
}

#[pymethods]
impl Verdict {
    /// Violations per rule, every rule named.
    #[getter]
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, n) in &self.counts {
            d.set_item(k, n)?;
        }
        Ok(d)
    }

    fn __bool__(&self) -> bool {
        self.legal
    }

    /// Where a legal schedule's time goes, with `usage=True`: `{"memory":
    /// [{"type", "size", "peak", "held", "run", "past": {"in_op",
    /// "op_sinks", "join", "successor_wait"}}], "cores": [{"type",
    /// "cores", "busy"}], "chain": {"nodes", "ops", "start", "work",
    /// "wait_cores_busy", "wait_core_free"}}` (docs/cli.md, `tmin check
    /// --usage`); else None.
    #[getter]
    fn usage<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.usage
            .as_ref()
            .map(|u| super::json_to_py(py, u))
            .transpose()
    }

    /// `(makespan - lower_bound) / makespan`, with `bound=True` on a legal
    /// schedule (as `tmin check --bound` gives it).
    #[getter]
    fn gap(&self) -> Option<f64> {
        self.gap_to(self.lower_bound)
    }

    /// `(makespan - tilings_lower_bound) / makespan`: the most a better
    /// order with the same tilings could gain, as a share of the makespan.
    #[getter]
    fn tilings_gap(&self) -> Option<f64> {
        self.gap_to(self.tilings_lower_bound)
    }

    fn __repr__(&self) -> String {
        match (self.legal, self.makespan) {
            (true, Some(m)) => format!("Verdict(legal, makespan {m})"),
            _ => format!("Verdict(illegal, {} violations)", self.violation_count),
        }
    }
}

/// Checks `schedule` against every rule of docs/problem.md, as `tmin check`
/// does: `schedule` is the output format's text (`str`), a file
/// (`os.PathLike`), a solve's `Result`, or rows `(op, tiling, node, start,
/// core)`. A text that is not the format raises `ParseError`; a readable
/// schedule that breaks rules is an illegal `Verdict`, listing the first
/// `max_violations` with the rows they involve. With `bound`, a legal
/// schedule's verdict also holds the proven lower bounds, for the instance
/// and for its own tilings (`tmin check --bound`); with `usage`, where its
/// time goes (`tmin check --usage`).
#[pyfunction]
#[pyo3(signature = (instance, schedule, max_violations = 20, bound = false, usage = false))]
pub(crate) fn check(
    py: Python<'_>,
    instance: &Instance,
    schedule: &Bound<'_, PyAny>,
    max_violations: usize,
    bound: bool,
    usage: bool,
) -> PyResult<Verdict> {
    let arg = ScheduleArg::from_py(schedule)?;
    let inst = instance.inner.clone();
    let (rep, used, involved, bounds) = py
        .detach(|| -> Result<_, crate::error::InputError> {
            let (rep, used) = arg.report_with_usage(&inst, max_violations, usage)?;
            // The rows a violation names: only for an illegal schedule
            // (text is read again, its rows kept this time).
            let involved = if rep.is_legal() {
                Vec::new()
            } else {
                let rows = arg.rows()?;
                rep.violations
                    .kept
                    .iter()
                    .map(|v| {
                        (0..rows.len())
                            .filter(|&k| v.nodes.contains(&(rows[k].0, rows[k].2)))
                            .collect()
                    })
                    .collect()
            };
            // The same bounds as `tmin check --bound`.
            let bounds = bound
                .then(|| crate::pipeline::bounds::schedule_bounds(&inst, &rep))
                .flatten();
            Ok((rep, used, involved, bounds))
        })
        .map_err(|e| parse_error(py, &e))?;
    verdict(py, rep, involved, bounds, used.as_ref())
}

fn verdict(
    py: Python<'_>,
    rep: Report,
    involved: Vec<Vec<usize>>,
    bounds: Option<crate::bounds::ScheduleBounds>,
    usage: Option<&Usage>,
) -> PyResult<Verdict> {
    use crate::schedule::Rule;
    let violations = rep
        .violations
        .kept
        .iter()
        .zip(involved.into_iter().chain(std::iter::repeat(Vec::new())))
        .map(|(v, rows)| {
            Py::new(
                py,
                Violation {
                    kind: v.rule.name().to_string(),
                    message: v.message.clone(),
                    nodes: v.nodes.clone(),
                    rows,
                    time: v.time,
                },
            )
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(Verdict {
        legal: rep.is_legal(),
        makespan: rep.makespan,
        violations,
        violation_count: rep.violations.total(),
        rows: rep.rows,
        counts: Rule::ALL
            .iter()
            .map(|&r| (r.name(), rep.violations.count(r)))
            .collect(),
        lower_bound: bounds.as_ref().map(|b| b.instance.value),
        bound_source: bounds.as_ref().map(|b| b.instance.source.clone()),
        tilings_lower_bound: bounds.as_ref().map(|b| b.tilings.value),
        tilings_bound_source: bounds.map(|b| b.tilings.source),
        usage: usage.map(|u| crate::report::usage_json(u, crate::report::Wide::Exact)),
    })
}
