//! The static side of the depth-first search (models/bnb.md §1): every
//! candidate tiling's nodes numbered once ("candidate nodes"), the op graph
//! without the ops whose candidate is the empty tiling, tails, hold slots
//! with their initial counts of successors, and the least area and work
//! each op can bring.

use crate::instance::{Instance, TypeIdx};

/// The instance as the search reads it.
pub struct Problem<'a> {
    pub inst: &'a Instance,
    /// Per op: its candidate tilings (`prep::dominance`); one empty tiling
    /// makes the op *void* (no nodes, no edges through it: problem.md §6).
    pub cands: Vec<Vec<u32>>,
    pub void: Vec<bool>,
    /// Op neighbours that are not void.
    pub opreds: Vec<Vec<u32>>,
    pub osuccs: Vec<Vec<u32>>,
    /// First candidate node of each (op, candidate), and one past the last
    /// of each op (`cbase[o][k]`, `k = cands[o].len()` the end).
    pub cbase: Vec<Vec<u32>>,
    /// Per candidate node: op, library node, first candidate node of its
    /// tiling (local index = node - first).
    pub c_op: Vec<u32>,
    pub c_lib: Vec<u32>,
    pub c_first: Vec<u32>,
    /// Longest path from a node's start to the end of the graph, with each
    /// op after it at its quickest candidate (a lower bound on what remains
    /// once the node starts).
    pub tail: Vec<u128>,
    /// Per op: the least tail of its sources over its candidates.
    pub optail: Vec<u128>,
    /// Hold slots: node `v`'s demands are slots `hold_off[v]..hold_off[v+1]`
    /// in the order of `Library::mems`.
    pub hold_off: Vec<u32>,
    /// Per slot: successors that keep the hold open before any op after the
    /// node has a tiling: intra-op successors demanding the type, plus one
    /// for each successor op some candidate of which has a source demanding
    /// it (that op's choice then sets the true count).
    pub pending0: Vec<u32>,
    /// Per (op, memory type): whether some candidate has a source demanding
    /// the type (the unit counted in `pending0`).
    pub unit: Vec<Vec<bool>>,
    /// Per (op, candidate): memory area `sum d * p` per type and work
    /// `sum p` per core type.
    pub area: Vec<Vec<Vec<u128>>>,
    pub work: Vec<Vec<Vec<u128>>>,
    /// Per (op, type): the least of `area` (and `work`) over the op's
    /// candidates, 0 for a void op; and their sums over the ops, per type.
    pub least_area: Vec<Vec<u128>>,
    pub least_work: Vec<Vec<u128>>,
    pub total_least_area: Vec<u128>,
    pub total_least_work: Vec<u128>,
}

/// Per op, the least entry of each type over the op's candidates' vectors
/// (0 where the op has none), and the sums of those over the ops.
fn least(per_op: &[Vec<Vec<u128>>], n_types: usize) -> (Vec<Vec<u128>>, Vec<u128>) {
    let mut total = vec![0u128; n_types];
    let least = per_op
        .iter()
        .map(|cands| {
            (0..n_types)
                .map(|i| {
                    let l = cands.iter().map(|a| a[i]).min().unwrap_or(0);
                    total[i] += l;
                    l
                })
                .collect()
        })
        .collect();
    (least, total)
}

impl<'a> Problem<'a> {
    pub fn new(inst: &'a Instance) -> Problem<'a> {
        let lib = &inst.library;
        let n_ops = inst.graph.n_ops();
        let n_mem = inst.platform.mems.len();
        let n_core = inst.platform.cores.len();
        let cands = crate::prep::dominance::candidates_of_every_op(inst);
        let void: Vec<bool> = cands
            .iter()
            .map(|c| c.len() == 1 && lib.tilings[c[0] as usize].n_nodes == 0)
            .collect();
        let keep = |ns: &[u32]| -> Vec<u32> {
            ns.iter().copied().filter(|&o| !void[o as usize]).collect()
        };
        let opreds: Vec<Vec<u32>> = (0..n_ops as u32)
            .map(|o| keep(inst.graph.preds(o)))
            .collect();
        let osuccs: Vec<Vec<u32>> = (0..n_ops as u32)
            .map(|o| keep(inst.graph.succs(o)))
            .collect();
        let mut cbase = Vec::with_capacity(n_ops);
        let (mut c_op, mut c_lib, mut c_first) = (Vec::new(), Vec::new(), Vec::new());
        for (o, cs) in cands.iter().enumerate() {
            let mut b = Vec::with_capacity(cs.len() + 1);
            for &t in cs {
                let first = c_op.len() as u32;
                b.push(first);
                for l in lib.tilings[t as usize].nodes() {
                    c_op.push(o as u32);
                    c_lib.push(l);
                    c_first.push(first);
                }
            }
            b.push(c_op.len() as u32);
            cbase.push(b);
        }
        let n = c_op.len();
        let mut unit = vec![vec![false; n_mem]; n_ops];
        let mut area = Vec::with_capacity(n_ops);
        let mut work = Vec::with_capacity(n_ops);
        for (o, cs) in cands.iter().enumerate() {
            let mut ar = Vec::with_capacity(cs.len());
            let mut wk = Vec::with_capacity(cs.len());
            for &t in cs {
                let mut a = vec![0u128; n_mem];
                let mut w = vec![0u128; n_core];
                let tl = &lib.tilings[t as usize];
                for v in tl.nodes() {
                    let p = u128::from(lib.node_dur[v as usize]);
                    if let Some(x) = w.get_mut(usize::from(lib.node_core[v as usize])) {
                        *x += p;
                    }
                    for d in lib.mems(v) {
                        a[usize::from(d.mem)] += p * u128::from(d.amount);
                    }
                }
                for &s in lib.sources(t) {
                    for d in lib.mems(tl.first_node + s) {
                        unit[o][usize::from(d.mem)] = true;
                    }
                }
                ar.push(a);
                wk.push(w);
            }
            area.push(ar);
            work.push(wk);
        }
        let mut hold_off = Vec::with_capacity(n + 1);
        let mut pending0 = Vec::new();
        hold_off.push(0);
        for v in 0..n {
            let (o, l, first) = (c_op[v] as usize, c_lib[v], c_first[v]);
            let t_first = l - (v as u32 - first);
            let sink = lib.succs(l).is_empty();
            for d in lib.mems(l) {
                let mut k = lib
                    .succs(l)
                    .iter()
                    .filter(|&&s| lib.demand(t_first + s, d.mem) > 0)
                    .count() as u32;
                if sink {
                    k += osuccs[o]
                        .iter()
                        .filter(|&&b| unit[b as usize][usize::from(d.mem)])
                        .count() as u32;
                }
                pending0.push(k);
            }
            hold_off.push(pending0.len() as u32);
        }
        let (least_area, total_least_area) = least(&area, n_mem);
        let (least_work, total_least_work) = least(&work, n_core);
        let mut p = Problem {
            inst,
            cands,
            void,
            opreds,
            osuccs,
            cbase,
            c_op,
            c_lib,
            c_first,
            tail: vec![0; n],
            optail: vec![0; n_ops],
            hold_off,
            pending0,
            unit,
            area,
            work,
            least_area,
            least_work,
            total_least_area,
            total_least_work,
        };
        p.compute_tails();
        p
    }

    /// The least memory area over the capacity `T` gives, for the type
    /// where it is largest (1.0: no memory may ever be left free at `T`).
    pub fn memory_packing(&self, target: u64) -> f64 {
        let mems = &self.inst.platform.mems;
        (0..mems.len())
            .map(|m| {
                let area = self.total_least_area[m];
                let cap = u128::from(mems[m].size) * u128::from(target);
                if cap == 0 {
                    0.0
                } else {
                    area as f64 / cap as f64
                }
            })
            .fold(0.0, f64::max)
    }

    pub fn n_nodes(&self) -> usize {
        self.c_op.len()
    }

    /// Whether none of models/bnb.md §5's reasons for missing a schedule
    /// applies: no node of duration 0, and each op's candidates agree on
    /// which memory types some source demands (so a ready op's
    /// predecessors are held exactly as its tiling will hold them).
    pub fn is_plain(&self) -> bool {
        let lib = &self.inst.library;
        let n_mem = self.inst.platform.mems.len();
        (0..self.n_nodes() as u32).all(|v| self.dur(v) > 0)
            && (0..self.cands.len()).all(|o| {
                (0..self.cands[o].len() as u32).all(|k| {
                    (0..n_mem).all(|m| {
                        self.ends(o as u32, k, false)
                            .any(|s| lib.demand(self.c_lib[s as usize], m as TypeIdx) > 0)
                            == self.unit[o][m]
                    })
                })
            })
    }

    pub fn dur(&self, v: u32) -> u64 {
        self.inst.library.node_dur[self.c_lib[v as usize] as usize]
    }

    pub fn core(&self, v: u32) -> TypeIdx {
        self.inst.library.node_core[self.c_lib[v as usize] as usize]
    }

    /// The candidate node of local index `l` in the tiling `v` belongs to.
    fn sibling(&self, v: u32, l: u32) -> u32 {
        self.c_first[v as usize] + l
    }

    /// Local index of `v` in its tiling.
    pub fn local(&self, v: u32) -> u32 {
        v - self.c_first[v as usize]
    }

    /// Intra-op successors of `v` as candidate nodes.
    pub fn succs(&self, v: u32) -> impl Iterator<Item = u32> + '_ {
        let lib = &self.inst.library;
        lib.succs(self.c_lib[v as usize])
            .iter()
            .map(move |&l| self.sibling(v, l))
    }

    /// Intra-op predecessors of `v` as candidate nodes.
    pub fn preds(&self, v: u32) -> impl Iterator<Item = u32> + '_ {
        let lib = &self.inst.library;
        lib.preds(self.c_lib[v as usize])
            .iter()
            .map(move |&l| self.sibling(v, l))
    }

    /// The sources (or sinks) of candidate `k` of op `o`, as candidate nodes.
    pub fn ends(&self, o: u32, k: u32, sinks: bool) -> impl Iterator<Item = u32> + '_ {
        let lib = &self.inst.library;
        let t = self.cands[o as usize][k as usize];
        let first = self.cbase[o as usize][k as usize];
        let ends = if sinks { lib.sinks(t) } else { lib.sources(t) };
        ends.iter().map(move |&l| first + l)
    }

    /// Tails in reverse topological order of the ops, each tiling's nodes
    /// in reverse topological order within it.
    fn compute_tails(&mut self) {
        let inst = self.inst;
        let lib = &inst.library;
        let order = inst.graph.topo_order();
        let (mut topo, mut indeg) = (Vec::new(), Vec::new());
        for &o in order.iter().rev() {
            if self.void[o as usize] {
                continue;
            }
            let after = self.osuccs[o as usize]
                .iter()
                .map(|&b| self.optail[b as usize])
                .max()
                .unwrap_or(0);
            let mut best = u128::MAX;
            for k in 0..self.cands[o as usize].len() {
                let t = self.cands[o as usize][k];
                let first = self.cbase[o as usize][k];
                lib.topo_order(t, &mut topo, &mut indeg);
                for &l in topo.iter().rev() {
                    let v = first + l;
                    let within = self
                        .succs(v)
                        .map(|s| self.tail[s as usize])
                        .max()
                        .unwrap_or(after);
                    let within = if lib.succs(self.c_lib[v as usize]).is_empty() {
                        after
                    } else {
                        within
                    };
                    self.tail[v as usize] = u128::from(self.dur(v)) + within;
                }
                let src = self
                    .ends(o, k as u32, false)
                    .map(|s| self.tail[s as usize])
                    .max()
                    .unwrap_or(0);
                best = best.min(src);
            }
            self.optail[o as usize] = if best == u128::MAX { 0 } else { best };
        }
    }
}
