//! The instance as pure data: platform, op library and op graph (problem.md §1 and §6).
//!
//! Storage is flat and compact because the published maximum is 10^7 nodes: every
//! library node lives in a few parallel arrays indexed by a `u32`, adjacency is CSR,
//! and types are dense `u8` indices into the platform tables.

mod parse;

pub use parse::{parse_file, parse_file_until, parse_reader, parse_reader_until};

use std::collections::HashMap;
use std::fmt;

use crate::error::Pos;

/// Dense index of a core type or memory type (position in the platform table).
pub type TypeIdx = u8;

/// A core type from `SetSocInfo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoreType {
    pub id: u32,
    pub count: u32,
}

/// A memory type from `SetSocInfo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemType {
    pub id: u32,
    pub size: u64,
}

/// The SoC: typed cores and typed memories. Core types with zero cores are kept
/// here (so error messages can name them) but count as missing (problem.md §6).
#[derive(Clone, Debug, Default)]
pub struct Platform {
    pub cores: Vec<CoreType>,
    pub mems: Vec<MemType>,
}

impl Platform {
    /// Each memory type's size, widened for sums of demands.
    pub fn mem_sizes(&self) -> Vec<u128> {
        self.mems.iter().map(|m| u128::from(m.size)).collect()
    }
    pub fn core_index(&self, id: u32) -> Option<TypeIdx> {
        self.cores
            .iter()
            .position(|c| c.id == id)
            .map(|i| i as TypeIdx)
    }
    pub fn mem_index(&self, id: u32) -> Option<TypeIdx> {
        self.mems
            .iter()
            .position(|m| m.id == id)
            .map(|i| i as TypeIdx)
    }
    /// First slot of each core type in a flat array of all cores, plus the total.
    pub fn core_offsets(&self) -> Vec<usize> {
        let mut off = Vec::with_capacity(self.cores.len() + 1);
        let mut acc = 0usize;
        for c in &self.cores {
            off.push(acc);
            acc += c.count as usize;
        }
        off.push(acc);
        off
    }
}

/// One memory demand of a node: dense memory type and a positive amount.
/// Several input entries for the same node and type are summed; zero entries are dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemDemand {
    pub mem: TypeIdx,
    pub amount: u64,
}

/// Why a tiling cannot be used on this platform (problem.md §6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unusable {
    MissingCoreType {
        node: u32,
        core_type: u32,
    },
    ZeroCores {
        node: u32,
        core_type: u32,
    },
    MissingMemType {
        node: u32,
        mem_type: u32,
    },
    TooMuchMemory {
        node: u32,
        mem_type: u32,
        demand: u128,
        size: u64,
    },
}

impl fmt::Display for Unusable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unusable::MissingCoreType { node, core_type } => write!(
                f,
                "node {node} runs on core type {core_type}, which SetSocInfo does not define"
            ),
            Unusable::ZeroCores { node, core_type } => write!(
                f,
                "node {node} runs on core type {core_type}, which has 0 cores"
            ),
            Unusable::MissingMemType { node, mem_type } => write!(
                f,
                "node {node} uses memory type {mem_type}, which SetSocInfo does not define"
            ),
            Unusable::TooMuchMemory {
                node,
                mem_type,
                demand,
                size,
            } => write!(
                f,
                "node {node} needs {demand} of memory type {mem_type}, whose size is {size}"
            ),
        }
    }
}

/// Marker stored as the core type of a node whose core type is missing.
pub const NO_CORE: TypeIdx = TypeIdx::MAX;

/// One `AddOpInfo` line: a subgraph. Its nodes are `first_node .. first_node + n_nodes`
/// in the library arrays; local index `i` is library node `first_node + i`.
#[derive(Clone, Debug)]
pub struct Tiling {
    pub op_type: u32,
    pub shape: u32,
    pub id: u32,
    pub first_node: u32,
    pub n_nodes: u32,
    /// Range into `Library::ends` of this tiling's sources (local indices).
    pub sources: (u32, u32),
    /// Range into `Library::ends` of this tiling's sinks (local indices).
    pub sinks: (u32, u32),
    /// Longest path through the subgraph (sum of durations, saturating).
    pub critical_path: u64,
    pub usable: Result<(), Unusable>,
    /// Where the `AddOpInfo` line starts.
    pub pos: Pos,
    /// When node ids are exactly `base, base+1, ...` in run-detail order, `Some(base)`;
    /// otherwise ids are found through `Library::id_index`.
    pub dense_ids: Option<u32>,
    /// Range into `Library::id_index` (sorted `(node id, local)` pairs) when not dense.
    pub id_index: (u32, u32),
}

impl Tiling {
    pub fn nodes(&self) -> std::ops::Range<u32> {
        self.first_node..self.first_node + self.n_nodes
    }
    pub fn is_usable(&self) -> bool {
        self.usable.is_ok()
    }
}

/// All `(OpType, Shape)` entries with their tilings.
#[derive(Clone, Debug)]
pub struct Group {
    pub op_type: u32,
    pub shape: u32,
    /// Library tiling indices, in input order.
    pub tilings: Vec<u32>,
}

/// The op library: every tiling's subgraph, stored flat.
#[derive(Clone, Debug, Default)]
pub struct Library {
    pub tilings: Vec<Tiling>,
    pub groups: Vec<Group>,
    pub group_of: HashMap<(u32, u32), u32>,
    /// Per library node: its NodeId, dense core type (or `NO_CORE`), duration.
    pub node_id: Vec<u32>,
    pub node_core: Vec<TypeIdx>,
    pub node_dur: Vec<u64>,
    /// CSR of intra-op successors and predecessors, as local indices.
    pub succ_off: Vec<u32>,
    pub succ: Vec<u32>,
    pub pred_off: Vec<u32>,
    pub pred: Vec<u32>,
    /// CSR of memory demands per node.
    pub mem_off: Vec<u32>,
    pub mem: Vec<MemDemand>,
    /// Sources and sinks of all tilings (local indices), ranges in `Tiling`.
    pub ends: Vec<u32>,
    /// Sorted `(node id, local index)` per tiling whose ids are not dense.
    pub id_index: Vec<(u32, u32)>,
}

impl Library {
    pub fn n_nodes(&self) -> usize {
        self.node_id.len()
    }
    #[inline]
    pub fn succs(&self, lib_node: u32) -> &[u32] {
        let i = lib_node as usize;
        &self.succ[self.succ_off[i] as usize..self.succ_off[i + 1] as usize]
    }
    #[inline]
    pub fn preds(&self, lib_node: u32) -> &[u32] {
        let i = lib_node as usize;
        &self.pred[self.pred_off[i] as usize..self.pred_off[i + 1] as usize]
    }
    #[inline]
    pub fn mems(&self, lib_node: u32) -> &[MemDemand] {
        let i = lib_node as usize;
        &self.mem[self.mem_off[i] as usize..self.mem_off[i + 1] as usize]
    }
    /// Demand of `lib_node` on dense memory type `m` (0 when none).
    #[inline]
    pub fn demand(&self, lib_node: u32, m: TypeIdx) -> u64 {
        self.mems(lib_node)
            .iter()
            .find(|d| d.mem == m)
            .map_or(0, |d| d.amount)
    }
    /// Work of tiling `t` per core type, into `into` (one entry per core
    /// type): the durations of its nodes on each, summed (saturating). Nodes
    /// naming a core type beyond `into` (an unusable tiling's) count nowhere.
    pub fn core_work(&self, t: u32, into: &mut [u64]) {
        into.fill(0);
        for v in self.tilings[t as usize].nodes() {
            if let Some(w) = into.get_mut(usize::from(self.node_core[v as usize])) {
                *w = w.saturating_add(self.node_dur[v as usize]);
            }
        }
    }
    /// Memory area of tiling `t` per memory type, into `into` (one entry
    /// per memory type): demand times duration over its nodes, summed
    /// (saturating: 10^4 nodes of demand near 2^53 and duration near 2^64
    /// pass 2^128). Demands naming a memory type beyond `into` count
    /// nowhere.
    pub fn mem_area(&self, t: u32, into: &mut [u128]) {
        into.fill(0);
        for v in self.tilings[t as usize].nodes() {
            let d = u128::from(self.node_dur[v as usize]);
            for md in self.mems(v) {
                if let Some(a) = into.get_mut(md.mem as usize) {
                    *a = a.saturating_add(u128::from(md.amount) * d);
                }
            }
        }
    }
    pub fn sources(&self, t: u32) -> &[u32] {
        let (a, b) = self.tilings[t as usize].sources;
        &self.ends[a as usize..b as usize]
    }
    pub fn sinks(&self, t: u32) -> &[u32] {
        let (a, b) = self.tilings[t as usize].sinks;
        &self.ends[a as usize..b as usize]
    }
    /// Fills `order` with tiling `t`'s local node indices in a topological order
    /// (Kahn's algorithm from the sources, first in first out). `indeg` is scratch.
    pub fn topo_order(&self, t: u32, order: &mut Vec<u32>, indeg: &mut Vec<u32>) {
        let nodes = self.tilings[t as usize].nodes();
        indeg.clear();
        indeg.extend(nodes.clone().map(|v| self.preds(v).len() as u32));
        order.clear();
        order.extend(self.sources(t).iter().copied());
        crate::dag::kahn_from(indeg, order, 0, |l| self.succs(nodes.start + l));
    }

    /// Local index of NodeId `node` in tiling `t`.
    pub fn local_of(&self, t: u32, node: u32) -> Option<u32> {
        let tl = &self.tilings[t as usize];
        match tl.dense_ids {
            Some(base) => {
                let l = node.checked_sub(base)?;
                (l < tl.n_nodes).then_some(l)
            }
            None => {
                let idx = &self.id_index[tl.id_index.0 as usize..tl.id_index.1 as usize];
                idx.binary_search_by_key(&node, |&(id, _)| id)
                    .ok()
                    .map(|k| idx[k].1)
            }
        }
    }
    /// The tiling with id `tiling_id` in group `g`.
    pub fn find_tiling(&self, g: u32, tiling_id: u32) -> Option<u32> {
        self.groups[g as usize]
            .tilings
            .iter()
            .copied()
            .find(|&t| self.tilings[t as usize].id == tiling_id)
    }
}

/// One op instance of the computation graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op {
    pub id: u32,
    pub op_type: u32,
    pub shape: u32,
    /// Library group `(op_type, shape)`.
    pub group: u32,
}

/// The computation graph: ops and op edges (CSR over op indices, deduplicated).
#[derive(Clone, Debug, Default)]
pub struct OpGraph {
    pub ops: Vec<Op>,
    pub succ_off: Vec<u32>,
    pub succ: Vec<u32>,
    pub pred_off: Vec<u32>,
    pub pred: Vec<u32>,
    /// `(op id, op index)` sorted by id.
    pub id_index: Vec<(u32, u32)>,
    /// Where `GetInferenceScheResult` starts.
    pub pos: Pos,
}

impl OpGraph {
    pub fn n_ops(&self) -> usize {
        self.ops.len()
    }
    pub fn succs(&self, op: u32) -> &[u32] {
        let i = op as usize;
        &self.succ[self.succ_off[i] as usize..self.succ_off[i + 1] as usize]
    }
    pub fn preds(&self, op: u32) -> &[u32] {
        let i = op as usize;
        &self.pred[self.pred_off[i] as usize..self.pred_off[i + 1] as usize]
    }
    /// Ops in a topological order (Kahn, first in first out from the ops
    /// without predecessors in index order). Complete: the parser rejects
    /// cyclic op graphs.
    pub fn topo_order(&self) -> Vec<u32> {
        let mut indeg: Vec<u32> = (0..self.n_ops() as u32)
            .map(|o| self.preds(o).len() as u32)
            .collect();
        crate::dag::kahn(&mut indeg, |o| self.succs(o))
    }
    pub fn index_of(&self, op_id: u32) -> Option<u32> {
        self.id_index
            .binary_search_by_key(&op_id, |&(id, _)| id)
            .ok()
            .map(|k| self.id_index[k].1)
    }
    /// Number of op edges.
    pub fn n_edges(&self) -> usize {
        self.succ.len()
    }
}

/// A parsed, checked instance.
#[derive(Clone, Debug, Default)]
pub struct Instance {
    /// File name for messages (`-` for stdin).
    pub name: String,
    pub platform: Platform,
    pub library: Library,
    pub graph: OpGraph,
    /// Non-fatal findings (unusable tilings dropped), one line each.
    pub warnings: Vec<String>,
}

impl Instance {
    /// The largest node count any tiling choice gives (0 where an op has
    /// no usable tiling).
    pub fn max_nodes(&self) -> u64 {
        (0..self.graph.n_ops() as u32)
            .map(|op| {
                self.usable_tilings(op)
                    .map(|t| u64::from(self.library.tilings[t as usize].n_nodes))
                    .max()
                    .unwrap_or(0)
            })
            .sum()
    }

    /// Usable tilings of op `op` (library indices).
    pub fn usable_tilings(&self, op: u32) -> impl Iterator<Item = u32> + '_ {
        let g = self.graph.ops[op as usize].group;
        self.library.groups[g as usize]
            .tilings
            .iter()
            .copied()
            .filter(|&t| self.library.tilings[t as usize].is_usable())
    }

    /// Ops that have no usable tiling: the instance is infeasible when this is not empty.
    pub fn ops_without_usable_tiling(&self) -> Vec<u32> {
        (0..self.graph.n_ops() as u32)
            .filter(|&op| self.usable_tilings(op).next().is_none())
            .collect()
    }

    /// A one-line explanation of why op `op` has no usable tiling.
    pub fn why_no_usable_tiling(&self, op: u32) -> String {
        let o = &self.graph.ops[op as usize];
        let g = &self.library.groups[o.group as usize];
        let reasons: Vec<String> = g
            .tilings
            .iter()
            .map(|&t| {
                let tl = &self.library.tilings[t as usize];
                match &tl.usable {
                    Ok(()) => format!("tiling {} is usable", tl.id),
                    Err(u) => format!("tiling {}: {u}", tl.id),
                }
            })
            .collect();
        format!(
            "op {} (type {}, shape {}) has no usable tiling: {}",
            o.id,
            o.op_type,
            o.shape,
            reasons.join("; ")
        )
    }

    /// The independent graphs: the weakly connected components of the op
    /// graph, each as its op indices in ascending order, in the order of
    /// their first ops. No op edge joins two of them.
    pub fn independent_graphs(&self) -> Vec<Vec<u32>> {
        let n = self.graph.n_ops();
        let mut label: Vec<u32> = vec![u32::MAX; n];
        let mut graphs: Vec<Vec<u32>> = Vec::new();
        let mut stack: Vec<u32> = Vec::new();
        for first in 0..n as u32 {
            if label[first as usize] != u32::MAX {
                continue;
            }
            let k = graphs.len() as u32;
            let mut ops = vec![first];
            label[first as usize] = k;
            stack.push(first);
            while let Some(o) = stack.pop() {
                for &x in self.graph.succs(o).iter().chain(self.graph.preds(o)) {
                    if label[x as usize] == u32::MAX {
                        label[x as usize] = k;
                        ops.push(x);
                        stack.push(x);
                    }
                }
            }
            ops.sort_unstable();
            graphs.push(ops);
        }
        graphs
    }

    /// The op edges between ops of `ops` (op indices, ascending), as pairs
    /// of positions in `ops`, in the order of `ops` and each op's successors.
    pub fn edges_among(&self, ops: &[u32]) -> Vec<(u32, u32)> {
        let local = |o: u32| ops.binary_search(&o).ok().map(|j| j as u32);
        ops.iter()
            .flat_map(|&a| self.graph.succs(a).iter().map(move |&b| (a, b)))
            .filter_map(|(a, b)| Some((local(a)?, local(b)?)))
            .collect()
    }

    /// The instance of the ops `ops` (op indices, ascending) and the op
    /// edges among them, on the same platform and library: op `ops[j]` is
    /// op `j` there, with its id.
    pub fn restricted_to(&self, ops: &[u32]) -> Instance {
        let pairs = self.edges_among(ops);
        let (succ_off, succ) = parse::csr(ops.len(), pairs.iter().copied());
        let (pred_off, pred) = parse::csr(ops.len(), pairs.iter().map(|&(a, b)| (b, a)));
        let op_list: Vec<Op> = ops.iter().map(|&o| self.graph.ops[o as usize]).collect();
        let id_index = parse::sorted_ids(&op_list);
        Instance {
            name: self.name.clone(),
            platform: self.platform.clone(),
            library: self.library.clone(),
            graph: OpGraph {
                ops: op_list,
                succ_off,
                succ,
                pred_off,
                pred,
                id_index,
                pos: self.graph.pos,
            },
            warnings: Vec::new(),
        }
    }

    /// Whether some usable tiling of some op demands memory (then memory
    /// may bind; without it the schedule is decided by core orders alone).
    pub fn demands_memory(&self) -> bool {
        let mut seen = vec![false; self.library.groups.len()];
        self.graph.ops.iter().any(|o| {
            let g = o.group as usize;
            if std::mem::replace(&mut seen[g], true) {
                return false;
            }
            self.library.groups[g].tilings.iter().any(|&t| {
                let tl = &self.library.tilings[t as usize];
                tl.is_usable()
                    && tl
                        .nodes()
                        .any(|v| self.library.mems(v).iter().any(|d| d.amount > 0))
            })
        })
    }

    /// Total nodes for a given tiling choice.
    pub fn nodes_for(&self, choice: &[u32]) -> u64 {
        choice
            .iter()
            .map(|&t| u64::from(self.library.tilings[t as usize].n_nodes))
            .sum()
    }
}
