//! `tmin.Instance`: a parsed instance and the sizes `tmin info --json` shows.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::{json_to_py, parse_error};

/// A problem instance (docs/problem.md): platform, op library and
/// computation graph. Read with `Instance.read(path)` or
/// `Instance.parse(text)`; a text that does not follow the format raises
/// `ParseError` with its file, line and column.
#[pyclass(frozen, module = "tmin")]
pub(crate) struct Instance {
    pub(crate) inner: Arc<crate::instance::Instance>,
    info: serde_json::Value,
}

impl Instance {
    pub(crate) fn new(inst: crate::instance::Instance) -> Self {
        let info = crate::report::info_json(&inst);
        Instance {
            inner: Arc::new(inst),
            info,
        }
    }

    fn count(&self, key: &str) -> u64 {
        self.info[key].as_u64().unwrap_or(0)
    }

    fn pairs(&self, key: &str) -> Vec<(u64, u64)> {
        self.info[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|p| (p[0].as_u64().unwrap_or(0), p[1].as_u64().unwrap_or(0)))
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[pymethods]
impl Instance {
    /// Reads an instance file (the GIL is released while it is parsed).
    #[staticmethod]
    fn read(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let parsed = py.detach(|| crate::instance::parse_file(&path));
        parsed.map(Instance::new).map_err(|e| parse_error(py, &e))
    }

    /// Parses an instance from its text; `name` names it in errors and
    /// results.
    #[staticmethod]
    #[pyo3(signature = (text, name = "<string>"))]
    fn parse(py: Python<'_>, text: &str, name: &str) -> PyResult<Self> {
        let bytes = text.as_bytes();
        let parsed = py.detach(|| crate::instance::parse_reader(bytes, name));
        parsed.map(Instance::new).map_err(|e| parse_error(py, &e))
    }

    /// A job shop in the OR-Library format (as JSPLIB has them), as `tmin
    /// import jsp` converts it: each machine a core type with one core,
    /// each job's operations a chain of one-node ops.
    #[staticmethod]
    fn read_jsp(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let name = path.display().to_string();
        let parsed = py.detach(|| {
            let f = crate::error::open_file(&path)?;
            let js = crate::import::read_jsp(std::io::BufReader::new(f), &name)?;
            crate::instance::parse_reader(js.to_instance_text().as_bytes(), &name)
        });
        parsed.map(Instance::new).map_err(|e| parse_error(py, &e))
    }

    /// The instance's name: its path as given to `read`, or `name` of `parse`.
    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }

    /// `(core type id, core count)` per core type.
    #[getter]
    fn core_types(&self) -> Vec<(u64, u64)> {
        self.pairs("core_types")
    }

    /// `(memory type id, size)` per memory type.
    #[getter]
    fn mem_types(&self) -> Vec<(u64, u64)> {
        self.pairs("mem_types")
    }

    /// Ops of the computation graph.
    #[getter]
    fn ops(&self) -> u64 {
        self.count("ops")
    }

    /// Edges between ops.
    #[getter]
    fn op_edges(&self) -> u64 {
        self.count("op_edges")
    }

    /// Tilings in the library (all (op type, shape) groups).
    #[getter]
    fn tilings(&self) -> u64 {
        self.count("tilings")
    }

    /// Nodes of the graph with each op's smallest usable tiling.
    #[getter]
    fn nodes_min(&self) -> u64 {
        self.count("graph_nodes_min")
    }

    /// Nodes of the graph with each op's largest usable tiling.
    #[getter]
    fn nodes_max(&self) -> u64 {
        self.count("graph_nodes_max")
    }

    /// What the parser accepted with a warning (e.g. declared counts that
    /// differ from what follows).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.inner.warnings.clone()
    }

    /// Op ids, in the order of the input.
    #[getter]
    fn op_ids(&self) -> Vec<u32> {
        self.inner.graph.ops.iter().map(|o| o.id).collect()
    }

    /// The usable tiling ids of op `op` (its id), in library order.
    fn usable_tilings(&self, op: u32) -> PyResult<Vec<u32>> {
        let inst = &self.inner;
        let i = inst
            .graph
            .index_of(op)
            .ok_or_else(|| super::value_error(format!("the instance has no op {op}")))?;
        Ok(inst
            .usable_tilings(i)
            .map(|t| inst.library.tilings[t as usize].id)
            .collect())
    }

    /// The node graph of one tiling per op: `tilings` maps op ids to tiling
    /// ids; ops it leaves out take their first usable tiling.
    #[pyo3(signature = (tilings = None))]
    fn graph(&self, tilings: Option<std::collections::HashMap<u32, u32>>) -> PyResult<Graph> {
        let inst = &self.inner;
        let lib = &inst.library;
        let mut choice = Vec::with_capacity(inst.graph.n_ops());
        for (i, o) in inst.graph.ops.iter().enumerate() {
            let t = match tilings.as_ref().and_then(|m| m.get(&o.id)) {
                Some(&id) => lib
                    .find_tiling(o.group, id)
                    .ok_or_else(|| super::value_error(format!("op {} has no tiling {id}", o.id)))?,
                None => inst.usable_tilings(i as u32).next().ok_or_else(|| {
                    super::value_error(format!("op {} has no usable tiling", o.id))
                })?,
            };
            choice.push(t);
        }
        let g = crate::graph::NodeGraph::new(inst, choice).map_err(super::value_error)?;
        let n = g.n_nodes() as u32;
        let platform = &inst.platform;
        let mut graph = Graph {
            tilings: (0..g.n_ops() as u32)
                .map(|op| (inst.graph.ops[op as usize].id, g.tiling_id(op)))
                .collect(),
            nodes: Vec::with_capacity(n as usize),
            durations: Vec::with_capacity(n as usize),
            core_types: Vec::with_capacity(n as usize),
            memory: Vec::with_capacity(n as usize),
            succs: Vec::with_capacity(n as usize),
            preds: Vec::with_capacity(n as usize),
            cores: platform.cores.iter().map(|c| (c.id, c.count)).collect(),
            mem_sizes: platform.mems.iter().map(|m| (m.id, m.size)).collect(),
        };
        for v in 0..n {
            let (op, node) = g.label(v);
            graph
                .nodes
                .push((op, g.tiling_id(g.node_op[v as usize]), node));
            graph.durations.push(g.dur(v));
            graph
                .core_types
                .push(platform.cores[g.core[v as usize] as usize].id);
            graph.memory.push(
                g.mems(v)
                    .iter()
                    .map(|d| (platform.mems[d.mem as usize].id, d.amount))
                    .collect(),
            );
            let (mut s, mut p) = (Vec::new(), Vec::new());
            g.for_each_succ(v, |w| s.push(w));
            g.for_each_pred(v, |w| p.push(w));
            graph.succs.push(s);
            graph.preds.push(p);
        }
        Ok(graph)
    }

    /// Everything `tmin info --json` shows, as a dict.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        Ok(json_to_py(py, &self.info)?.cast_into::<PyDict>()?)
    }

    fn __repr__(&self) -> String {
        format!(
            "Instance({:?}: {} ops, {}-{} nodes, {} core types, {} memory types)",
            self.inner.name,
            self.ops(),
            self.nodes_min(),
            self.nodes_max(),
            self.inner.platform.cores.len(),
            self.inner.platform.mems.len()
        )
    }
}

/// The node graph of one tiling choice (`Instance.graph`): node `v` is
/// `nodes[v] = (op id, tiling id, node id)`, the first three numbers of its
/// schedule row. Edges are the problem's precedences, inside ops and along
/// op edges (each sink of an op before each source of its successors).
#[pyclass(frozen, get_all, module = "tmin")]
pub(crate) struct Graph {
    /// `{op id: tiling id}` of the choice.
    tilings: std::collections::HashMap<u32, u32>,
    nodes: Vec<(u32, u32, u32)>,
    /// ExecTime of each node.
    durations: Vec<u64>,
    /// The core type id each node runs on.
    core_types: Vec<u32>,
    /// `(memory type id, amount)` each node holds (docs/problem.md §4.4).
    memory: Vec<Vec<(u32, u64)>>,
    /// Direct successors and predecessors, as node indices.
    succs: Vec<Vec<u32>>,
    preds: Vec<Vec<u32>>,
    /// `{core type id: core count}`.
    cores: std::collections::HashMap<u32, u32>,
    /// `{memory type id: size}`.
    mem_sizes: std::collections::HashMap<u32, u64>,
}

#[pymethods]
impl Graph {
    fn __len__(&self) -> usize {
        self.nodes.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "Graph({} nodes, {} ops)",
            self.nodes.len(),
            self.tilings.len()
        )
    }
}
