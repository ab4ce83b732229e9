//! `tmin.score`, `tmin.gen`, `tmin.plot`: the study tools of the CLI.

use std::path::PathBuf;

use pyo3::prelude::*;

use super::check::ScheduleArg;
use super::instance::Instance;
use super::{InternalError, parse_error, value_error};
use crate::schedule::Row;

/// A schedule's score against the instance's T_min and T_max, as `tmin
/// score` gives it.
#[pyclass(frozen, get_all, module = "tmin")]
pub(crate) struct Score {
    legal: bool,
    /// The validated makespan (None when illegal).
    makespan: Option<u128>,
    /// Between `s_base` (at T_max or beyond, illegal) and `s_max` (at T_min).
    score: f64,
    t_min: u128,
    /// `optimal` or `bound`.
    t_min_kind: String,
    /// Where T_min comes from: `reference FILE:LINE` or `computed (SOURCE)`.
    t_min_source: String,
    t_max: u128,
    t_max_source: String,
    /// (makespan - T_min) / makespan (None when illegal).
    gap: Option<f64>,
    /// The lower bound for the schedule's own tilings, or T_min where higher
    /// (None when illegal).
    tilings_bound: Option<u128>,
    /// Its argument, or `T_min`.
    tilings_bound_source: Option<String>,
    /// (makespan - tilings_bound) / makespan: at most what the order loses.
    order_gap: Option<f64>,
    /// The first violations, as text (empty when legal).
    violations: Vec<String>,
    violation_count: usize,
}

#[pymethods]
impl Score {
    fn __repr__(&self) -> String {
        format!(
            "Score({:.2}, makespan {}, T_min {} ({}), T_max {})",
            self.score,
            self.makespan.map_or("-".into(), |m| m.to_string()),
            self.t_min,
            self.t_min_kind,
            self.t_max
        )
    }
}

/// Scores `schedule` (text, file, rows or a `Result`) as `tmin score`
/// does: its validated makespan T between T_min (a reference CSV or bench
/// folder's value for this instance's name, else the proven bound) and
/// T_max. An illegal schedule scores `s_base`. A legal makespan below
/// T_min raises `ValueError` (that T_min is not a bound).
#[pyfunction]
#[pyo3(signature = (
    instance, schedule, reference = None, t_max = None, s_base = 0.0, s_max = 100.0,
    max_violations = 5
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn score(
    py: Python<'_>,
    instance: &Instance,
    schedule: &Bound<'_, PyAny>,
    reference: Option<PathBuf>,
    t_max: Option<u128>,
    s_base: f64,
    s_max: f64,
    max_violations: usize,
) -> PyResult<Score> {
    use crate::score as sc;
    if !(s_base.is_finite() && s_max.is_finite() && s_base <= s_max) {
        return Err(value_error(format!(
            "s_base and s_max must be finite with s_base <= s_max, got {s_base} and {s_max}"
        )));
    }
    let arg = ScheduleArg::from_py(schedule)?;
    let inst = instance.inner.clone();
    let reference = match reference {
        Some(p) => Some(
            py.detach(|| sc::load_reference(&p))
                .map_err(|e| parse_error(py, &e))?,
        ),
        None => None,
    };
    // The reference's rows name instances by file name without `.txt`.
    let label = inst.name.clone();
    let scored = py.detach(|| -> std::result::Result<_, String> {
        let name = sc::instance_name(&label);
        let scale = sc::scale_for(&inst, &name, reference.as_ref(), t_max)?;
        let rep = arg.report(&inst, max_violations);
        let tilings = crate::bounds::combinatorial::ChoiceBounds::new(&inst);
        let at = sc::Scoring {
            instance_label: &label,
            heuristic: "python",
            schedule: "the schedule",
            scale: &scale,
            tilings: &tilings,
            s_base,
            s_max,
        };
        sc::score_report(rep, &at).map_err(|e| match e {
            sc::ScoreError::Input(e) => e.to_string(),
            sc::ScoreError::NotABound { message, .. } => message,
        })
    });
    let s = scored.map_err(value_error)?;
    Ok(Score {
        legal: s.legal,
        makespan: s.makespan,
        score: s.score,
        t_min: s.scale.t_min,
        t_min_kind: s.scale.kind.name().to_string(),
        t_min_source: s.scale.t_min_source.clone(),
        t_max: s.scale.t_max,
        t_max_source: s.scale.t_max_source.clone(),
        gap: s.gap(),
        tilings_bound: s.tilings_bound.as_ref().map(|b| b.value),
        tilings_bound_source: s.tilings_bound.as_ref().map(|b| b.source.clone()),
        order_gap: s.order_gap(),
        violations: s.violations.clone(),
        violation_count: s.violation_count,
    })
}

/// A generated instance with its witness schedule.
#[pyclass(frozen, module = "tmin")]
pub(crate) struct Generated {
    #[pyo3(get)]
    family: &'static str,
    #[pyo3(get)]
    seed: u64,
    /// The instance text (the input format), as `tmin gen -o` writes it.
    #[pyo3(get)]
    text: String,
    /// The witness: a legal schedule (an optimal one for `packed` and
    /// `lanes`) as rows.
    #[pyo3(get)]
    witness: Vec<Row>,
    #[pyo3(get)]
    witness_makespan: u128,
    /// The optimum where the family knows it by construction (`packed`,
    /// `lanes`), else None.
    #[pyo3(get)]
    optimum: Option<u64>,
    /// Each memory type's size.
    #[pyo3(get)]
    mem_sizes: Vec<u64>,
    instance: Py<Instance>,
}

#[pymethods]
impl Generated {
    /// The instance, parsed.
    #[getter]
    fn instance(&self, py: Python<'_>) -> Py<Instance> {
        self.instance.clone_ref(py)
    }

    fn __repr__(&self) -> String {
        format!(
            "Generated({} seed {}: {} nodes, witness {}{})",
            self.family,
            self.seed,
            self.witness.len(),
            self.witness_makespan,
            self.optimum
                .map_or(String::new(), |o| format!(", optimum {o}"))
        )
    }
}

/// The witness's rows under the instance it was built for.
fn witness_rows(
    inst: &crate::instance::Instance,
    s: &crate::schedule::Schedule,
) -> PyResult<(Vec<Row>, u128)> {
    let g = crate::graph::NodeGraph::new(inst, s.choice.clone()).map_err(InternalError::new_err)?;
    Ok((crate::schedule::rows_of(&g, s).collect(), s.makespan(&g)))
}

/// Generates an instance of `family` (`random`, `packed`, `lanes`) as `tmin
/// gen` does, with the same options (`tmin gen --help`: `--mem-factor` is
/// `mem_factor=`, `--nodes A-B` is `nodes=(A, B)`, `--cores 2,4` is
/// `cores=[2, 4]`); the same seed and options give the same instance. An
/// option that does not apply to the family raises `ValueError` naming it
/// as `tmin gen` does.
#[pyfunction]
#[pyo3(signature = (
    family = "random", *, seed = 1, ops = 20, op_types = 4, shapes = None, tilings = 3,
    nodes = (4, 8), width = 3, cores = None, mem_types = 2, tightness = None, graphs = 1,
    unusable = None, max_time = 10, density = 1.5, mem_factor = None, reach = None,
    interleave = None, lanes = None, joins = None, bind_cores = false
))]
#[allow(clippy::too_many_arguments)]
#[pyo3(name = "gen")]
pub(crate) fn generate(
    py: Python<'_>,
    family: &str,
    seed: u64,
    ops: u32,
    op_types: u32,
    shapes: Option<u32>,
    tilings: u32,
    nodes: (u32, u32),
    width: u32,
    cores: Option<Vec<u32>>,
    mem_types: u32,
    tightness: Option<f64>,
    graphs: u32,
    unusable: Option<f64>,
    max_time: u64,
    density: f64,
    mem_factor: Option<f64>,
    reach: Option<u32>,
    interleave: Option<u32>,
    lanes: Option<u32>,
    joins: Option<f64>,
    bind_cores: bool,
) -> PyResult<Generated> {
    use crate::generate::options::{Family, GenOptions, config};
    use crate::generate::{GenFamily, LanesError, PackedError};
    let fam = Family::from_name(family).ok_or_else(|| {
        value_error(format!(
            "family {family:?}: one of {}",
            Family::ALL.map(Family::name).join(", ")
        ))
    })?;
    let options = GenOptions {
        family: fam,
        seed,
        ops,
        op_types,
        shapes,
        tilings,
        nodes,
        width,
        cores,
        mem_types,
        tightness,
        graphs,
        unusable,
        max_time,
        density,
        mem_factor,
        reach,
        interleave,
        lanes,
        joins,
        bind_cores,
    };
    let cfg = config(&options).map_err(value_error)?;
    // (text, the instance the witness's rows are read under, witness,
    // optimum, memory sizes)
    let made = py.detach(|| -> std::result::Result<_, PyErr> {
        Ok(match &cfg {
            GenFamily::Random(c) => {
                let g = crate::generate::generate(c).map_err(value_error)?;
                (g.text, g.instance, g.witness, None, g.mem_sizes)
            }
            GenFamily::Lanes(c) => {
                let g = crate::generate::generate_lanes(c).map_err(|e| match e {
                    LanesError::Config(m) => value_error(m),
                    LanesError::Internal(m) => InternalError::new_err(m),
                })?;
                (g.text, g.instance, g.witness, Some(g.optimum), g.mem_sizes)
            }
            GenFamily::Packed(c) => {
                let mut out = Vec::new();
                let p = crate::generate::generate_packed(c, &mut out).map_err(|e| match e {
                    PackedError::Config(m) => value_error(m),
                    PackedError::Io(e) => InternalError::new_err(e.to_string()),
                    PackedError::Internal(m) => InternalError::new_err(m),
                })?;
                let text =
                    String::from_utf8(out).map_err(|e| InternalError::new_err(e.to_string()))?;
                (
                    text,
                    p.witness_instance,
                    p.witness,
                    Some(p.optimum),
                    p.mem_sizes,
                )
            }
        })
    })?;
    let (text, witness_inst, witness, optimum, mem_sizes) = made;
    let (rows, witness_makespan) = witness_rows(&witness_inst, &witness)?;
    drop(witness_inst);
    let name = format!("{}-s{seed}", fam.name());
    let parsed = py
        .detach(|| crate::instance::parse_reader(text.as_bytes(), &name))
        .map_err(|e| InternalError::new_err(format!("the generated text does not parse: {e}")))?;
    Ok(Generated {
        family: fam.name(),
        seed,
        text,
        witness: rows,
        witness_makespan,
        optimum,
        mem_sizes,
        instance: Py::new(py, Instance::new(parsed))?,
    })
}

/// Draws a legal schedule (text, file, rows or a `Result`) as SVG, as
/// `tmin plot` does: a Gantt chart and a memory profile per memory type
/// (the aggregated view per core type with `aggregate=True`, and always
/// above 10,000 nodes). Returns the SVG text; an illegal schedule raises
/// `ValueError` with its violations.
#[pyfunction]
#[pyo3(signature = (instance, schedule, title = None, aggregate = false))]
pub(crate) fn plot(
    py: Python<'_>,
    instance: &Instance,
    schedule: &Bound<'_, PyAny>,
    title: Option<String>,
    aggregate: bool,
) -> PyResult<String> {
    let arg = ScheduleArg::from_py(schedule)?;
    let inst = instance.inner.clone();
    let drawn = py.detach(|| -> Result<PyResult<String>, crate::error::InputError> {
        let sched = match arg.legal(&inst)? {
            Err(why) => return Ok(Err(value_error(why))),
            Ok(s) => s,
        };
        let g = match crate::graph::NodeGraph::new(&inst, sched.choice.clone()) {
            Ok(g) => g,
            Err(e) => return Ok(Err(InternalError::new_err(e))),
        };
        let opts = crate::plot::PlotOptions {
            aggregate: aggregate || g.n_nodes() > crate::plot::AGGREGATE_ABOVE,
            title: title.unwrap_or_else(|| inst.name.clone()),
        };
        Ok(crate::plot::schedule_svg(&g, &sched, &opts)
            .map_err(|e| InternalError::new_err(format!("{e:?}"))))
    });
    drawn.map_err(|e| parse_error(py, &e))?
}
