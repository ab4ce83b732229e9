//! The derived node graph of problem.md §3, for one tiling choice per op.
//!
//! Node `v` of op `o` is `op_base[o] + local`. Intra-op adjacency is read from the
//! library (no copy); inter-op edges are kept as op edges: every sink of `a`
//! precedes every source of `b` for each op edge `(a, b)`, and algorithms iterate
//! them through `op_succs`/`op_preds` instead of materialising sinks x sources
//! pairs. Memory stays linear in the input size.

use crate::instance::{Instance, MemDemand, TypeIdx};

pub struct NodeGraph<'a> {
    pub inst: &'a Instance,
    /// Library tiling chosen for each op.
    pub choice: Vec<u32>,
    /// First node of each op; `op_base[n_ops]` is the node count.
    pub op_base: Vec<u32>,
    pub node_op: Vec<u32>,
    pub node_lib: Vec<u32>,
    pub core: Vec<TypeIdx>,
}

/// Largest node graph we index with `u32`.
pub const MAX_NODES: u64 = u32::MAX as u64 - 1;

impl<'a> NodeGraph<'a> {
    /// Expands `choice` (one library tiling per op, each of the op's own group).
    /// Fails when a tiling is not of its op's group, or when the graph would
    /// not fit `u32` node indices.
    pub fn new(inst: &'a Instance, choice: Vec<u32>) -> Result<Self, String> {
        assert_eq!(choice.len(), inst.graph.n_ops(), "one tiling per op");
        // A tiling of another group (op type and shape) would build a graph
        // of other nodes silently.
        for (o, &t) in inst.graph.ops.iter().zip(&choice) {
            if !inst.library.groups[o.group as usize].tilings.contains(&t) {
                return Err(format!(
                    "op {} (op type {}, shape {}) has no tiling of library index {t}",
                    o.id, o.op_type, o.shape
                ));
            }
        }
        let total = inst.nodes_for(&choice);
        if total > MAX_NODES {
            return Err(format!(
                "the chosen tilings give {total} nodes; at most {MAX_NODES} are supported"
            ));
        }
        let lib = &inst.library;
        let n = total as usize;
        let mut op_base = Vec::with_capacity(choice.len() + 1);
        let mut node_op = Vec::with_capacity(n);
        let mut node_lib = Vec::with_capacity(n);
        let mut core = Vec::with_capacity(n);
        for (op, &t) in choice.iter().enumerate() {
            op_base.push(node_op.len() as u32);
            let r = lib.tilings[t as usize].nodes();
            node_op.extend(std::iter::repeat_n(op as u32, r.len()));
            core.extend_from_slice(&lib.node_core[r.start as usize..r.end as usize]);
            node_lib.extend(r);
        }
        op_base.push(node_op.len() as u32);
        Ok(NodeGraph {
            inst,
            choice,
            op_base,
            node_op,
            node_lib,
            core,
        })
    }

    /// Duration of node `v` (read from the library: 8 bytes a node less than
    /// a copy, which matters at 10^7 nodes).
    #[inline]
    pub fn dur(&self, v: u32) -> u64 {
        self.inst.library.node_dur[self.node_lib[v as usize] as usize]
    }

    /// The nodes' memory-time per memory type (demand times duration) and
    /// their work per core type (durations), in one pass: the run areas and
    /// loads every schedule of this graph has.
    pub fn areas_and_loads(&self) -> (Vec<u128>, Vec<u128>) {
        let platform = &self.inst.platform;
        let mut area = vec![0u128; platform.mems.len()];
        let mut work = vec![0u128; platform.cores.len()];
        for v in 0..self.n_nodes() as u32 {
            let d = u128::from(self.dur(v));
            work[self.core[v as usize] as usize] += d;
            for e in self.mems(v) {
                area[e.mem as usize] += d * u128::from(e.amount);
            }
        }
        (area, work)
    }

    pub fn n_nodes(&self) -> usize {
        self.node_op.len()
    }
    pub fn n_ops(&self) -> usize {
        self.choice.len()
    }
    /// The nodes of op `op`.
    pub fn op_nodes(&self, op: u32) -> std::ops::Range<u32> {
        self.op_base[op as usize]..self.op_base[op as usize + 1]
    }
    /// `(OpId, NodeId)` of node `v`, as the input and output formats name it.
    pub fn label(&self, v: u32) -> (u32, u32) {
        let op = self.node_op[v as usize];
        (
            self.inst.graph.ops[op as usize].id,
            self.inst.library.node_id[self.node_lib[v as usize] as usize],
        )
    }
    /// The tiling id (as in the input) chosen for op `op`.
    pub fn tiling_id(&self, op: u32) -> u32 {
        self.inst.library.tilings[self.choice[op as usize] as usize].id
    }
    #[inline]
    pub fn mems(&self, v: u32) -> &'a [MemDemand] {
        self.inst.library.mems(self.node_lib[v as usize])
    }
    #[inline]
    pub fn demand(&self, v: u32, m: TypeIdx) -> u64 {
        self.inst.library.demand(self.node_lib[v as usize], m)
    }
    /// Intra-op successors of `v`.
    #[inline]
    pub fn intra_succs(&self, v: u32) -> impl Iterator<Item = u32> + 'a {
        let base = self.op_base[self.node_op[v as usize] as usize];
        self.inst
            .library
            .succs(self.node_lib[v as usize])
            .iter()
            .map(move |&l| base + l)
    }
    /// Intra-op predecessors of `v`.
    #[inline]
    pub fn intra_preds(&self, v: u32) -> impl Iterator<Item = u32> + 'a {
        let base = self.op_base[self.node_op[v as usize] as usize];
        self.inst
            .library
            .preds(self.node_lib[v as usize])
            .iter()
            .map(move |&l| base + l)
    }
    /// True when `v` has no intra-op successor (it then precedes the sources of
    /// every successor op).
    #[inline]
    pub fn is_sink(&self, v: u32) -> bool {
        self.inst
            .library
            .succs(self.node_lib[v as usize])
            .is_empty()
    }
    /// True when `v` has no intra-op predecessor.
    #[inline]
    pub fn is_source(&self, v: u32) -> bool {
        self.inst
            .library
            .preds(self.node_lib[v as usize])
            .is_empty()
    }
    pub fn op_succs(&self, op: u32) -> &'a [u32] {
        self.inst.graph.succs(op)
    }
    pub fn op_preds(&self, op: u32) -> &'a [u32] {
        self.inst.graph.preds(op)
    }
    /// Sources of op `op` (node indices).
    pub fn sources(&self, op: u32) -> impl Iterator<Item = u32> + 'a {
        let base = self.op_base[op as usize];
        self.inst
            .library
            .sources(self.choice[op as usize])
            .iter()
            .map(move |&l| base + l)
    }
    /// Sinks of op `op` (node indices).
    pub fn sinks(&self, op: u32) -> impl Iterator<Item = u32> + 'a {
        let base = self.op_base[op as usize];
        self.inst
            .library
            .sinks(self.choice[op as usize])
            .iter()
            .map(move |&l| base + l)
    }
    /// Calls `f` for every direct successor of `v` over both kinds of edges.
    /// Cost is the number of successors: use the op-level view in hot loops over sinks.
    pub fn for_each_succ(&self, v: u32, mut f: impl FnMut(u32)) {
        for w in self.intra_succs(v) {
            f(w);
        }
        if self.is_sink(v) {
            for &b in self.op_succs(self.node_op[v as usize]) {
                for w in self.sources(b) {
                    f(w);
                }
            }
        }
    }
    /// Calls `f` for every direct predecessor of `v` over both kinds of edges.
    pub fn for_each_pred(&self, v: u32, mut f: impl FnMut(u32)) {
        for w in self.intra_preds(v) {
            f(w);
        }
        if self.is_source(v) {
            for &a in self.op_preds(self.node_op[v as usize]) {
                for w in self.sinks(a) {
                    f(w);
                }
            }
        }
    }

    /// Nodes in a topological order, built at op level so that each op edge is
    /// visited once (ops in topological order, each op's nodes in its own order).
    pub fn topo_order(&self) -> Vec<u32> {
        let g = &self.inst.graph;
        let lib = &self.inst.library;
        let n_ops = self.n_ops();
        let ops = g.topo_order();
        debug_assert_eq!(ops.len(), n_ops, "op graph is acyclic after parsing");
        let mut order = Vec::with_capacity(self.n_nodes());
        let mut indeg: Vec<u32> = Vec::new();
        let mut local: Vec<u32> = Vec::new();
        for &o in &ops {
            lib.topo_order(self.choice[o as usize], &mut local, &mut indeg);
            let base = self.op_base[o as usize];
            order.extend(local.iter().map(|&l| base + l));
        }
        order
    }
}
