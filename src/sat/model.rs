//! The scheduling model the SAT engine encodes: every candidate tiling of every
//! op at once (a "superset" node graph whose nodes exist only when their tiling's
//! selector is true), in time units of `g`, the gcd of all durations, with
//! start windows from heads and tails valid for every tiling choice.
//!
//! The exactness arguments (gcd scaling, horizon, dominance) are in models/sat.md.

use crate::instance::{Instance, TypeIdx};
// The dominance rule lives in prep (one rule for every engine).
pub use crate::prep::dominance::{candidates, candidates_of_every_op};

/// One candidate (op, tiling): its nodes are `first .. first + n` of the model.
#[derive(Clone, Debug)]
pub struct Slot {
    pub op: u32,
    /// Library tiling index.
    pub tiling: u32,
    pub first: u32,
    pub n: u32,
}

/// One node of a candidate tiling, in scaled time units.
#[derive(Clone, Debug)]
pub struct Node {
    pub slot: u32,
    /// Library node index.
    pub lib: u32,
    pub dur: u64,
    pub core: TypeIdx,
    /// Earliest start in every schedule that selects this node's tiling.
    pub head: u64,
    /// Least time from this node's end to the makespan.
    pub tail: u64,
}

/// The model for a set of candidate tilings per op (ops with no candidate are
/// absent: they and their op edges are ignored).
pub struct Model<'a> {
    pub inst: &'a Instance,
    /// Time unit: every duration is a multiple of it.
    pub g: u64,
    /// Candidate slots of each op (a range into `slots`).
    pub op_slots: Vec<std::ops::Range<u32>>,
    pub slots: Vec<Slot>,
    pub nodes: Vec<Node>,
    /// Per op: least start of its sources and least time after its sinks (scaled).
    pub op_head: Vec<u64>,
    pub op_tail: Vec<u64>,
    /// Per op: least critical path over its candidates, and whether one is empty.
    pub min_cp: Vec<u64>,
    pub can_be_empty: Vec<bool>,
    /// Sum over ops of the largest total duration of a candidate (scaled, saturating):
    /// some optimal schedule of every tiling choice ends by then (models/sat.md).
    pub horizon: u64,
    /// Sets of slots no legal schedule selects all of (refuted tiling
    /// combinations, models/sat.md §1.2; `forbid`).
    pub nogoods: Vec<Vec<u32>>,
}

impl<'a> Model<'a> {
    pub fn new(inst: &'a Instance, cand: &[Vec<u32>]) -> Self {
        let lib = &inst.library;
        let n_ops = inst.graph.n_ops();
        assert_eq!(cand.len(), n_ops);
        let g = crate::prep::unit::duration_unit(lib, cand.iter().flatten().copied());
        let mut op_slots = Vec::with_capacity(n_ops);
        let mut slots = Vec::new();
        let mut nodes: Vec<Node> = Vec::new();
        let mut min_cp = vec![0u64; n_ops];
        let mut can_be_empty = vec![false; n_ops];
        let mut horizon = 0u64;
        for (op, ts) in cand.iter().enumerate() {
            let s0 = slots.len() as u32;
            let mut work_max = 0u64;
            for (k, &t) in ts.iter().enumerate() {
                let tl = &lib.tilings[t as usize];
                let slot = slots.len() as u32;
                slots.push(Slot {
                    op: op as u32,
                    tiling: t,
                    first: nodes.len() as u32,
                    n: tl.n_nodes,
                });
                let mut work = 0u64;
                for v in tl.nodes() {
                    let d = lib.node_dur[v as usize] / g;
                    work = work.saturating_add(d);
                    nodes.push(Node {
                        slot,
                        lib: v,
                        dur: d,
                        core: lib.node_core[v as usize],
                        head: 0,
                        tail: 0,
                    });
                }
                work_max = work_max.max(work);
                let cp = tl.critical_path / g;
                min_cp[op] = if k == 0 { cp } else { min_cp[op].min(cp) };
                if tl.n_nodes == 0 {
                    can_be_empty[op] = true;
                }
            }
            horizon = horizon.saturating_add(work_max);
            op_slots.push(s0..slots.len() as u32);
        }
        let mut m = Model {
            inst,
            g,
            op_slots,
            slots,
            nodes,
            op_head: vec![0; n_ops],
            op_tail: vec![0; n_ops],
            min_cp,
            can_be_empty,
            horizon,
            nogoods: Vec::new(),
        };
        m.heads_tails();
        m
    }

    /// Forbids the refuted combinations of `ng` whose tilings are all
    /// candidates here (models/sat.md §1.2): the encoding gets `¬y ∨ ... ∨ ¬y`
    /// for each.
    pub fn forbid(&mut self, ng: &crate::bounds::nogoods::TilingNogoods) {
        let slot_of = |&(op, t): &(u32, u32)| {
            self.op_slots[op as usize]
                .clone()
                .find(|&s| self.slots[s as usize].tiling == t)
        };
        let found: Vec<Vec<u32>> = ng
            .combinations()
            .filter_map(|c| c.iter().map(slot_of).collect::<Option<Vec<u32>>>())
            .collect();
        self.nogoods.extend(found);
    }

    /// Narrows every node's start window to `win(v)` = `[lo, hi]` (scaled)
    /// for an encoding of horizon `tmax`: heads and tails only grow, so the
    /// encoding then holds the schedules whose starts lie inside both the old
    /// and the new windows. A *neighbourhood*, not a relaxation: no answer
    /// over a narrowed model says anything about the instance's bound.
    pub fn narrow(&mut self, tmax: u64, win: impl Fn(u32) -> (u64, u64)) {
        for v in 0..self.nodes.len() {
            let (lo, hi) = win(v as u32);
            let nd = &mut self.nodes[v];
            nd.head = nd.head.max(lo);
            // Start <= hi is end + tail' <= tmax with tail' = tmax - hi - dur;
            // a window past the horizon leaves the tail as it was.
            if let Some(t) = tmax.checked_sub(hi).and_then(|x| x.checked_sub(nd.dur)) {
                nd.tail = nd.tail.max(t);
            }
        }
    }

    /// The window of `F` (an upper bound on the end of the op's sinks,
    /// models/sat.md §3.4) for horizon `tmax`: from the op's head and least
    /// critical path (or, when higher, the least over its tilings of their
    /// sinks' latest earliest end) to the latest end any of its sinks may
    /// have. `F` can always be the latest end of the selected sinks (or the
    /// low end, for an empty tiling: then the window keeps its low end 0),
    /// which lies inside, so the clip loses no schedule; it matters where
    /// windows were narrowed (`narrow`).
    pub fn end_window(&self, op: u32, tmax: i64) -> (i64, i64) {
        let ou = op as usize;
        let lo = if self.can_be_empty[ou] {
            0
        } else {
            (self.op_head[ou] + self.min_cp[ou]) as i64
        };
        let latest = self.op_slots[ou]
            .clone()
            .flat_map(|s| self.sinks(s))
            .map(|x| tmax - self.nodes[x as usize].tail as i64)
            .max()
            .unwrap_or(lo);
        let hi = (tmax - self.op_tail[ou] as i64).min(latest.max(lo));
        if self.can_be_empty[ou] {
            return (lo, hi);
        }
        // Every tiling ends no earlier than its sinks' earliest ends.
        let earliest = self.op_slots[ou]
            .clone()
            .map(|s| {
                self.sinks(s)
                    .map(|x| (self.nodes[x as usize].head + self.nodes[x as usize].dur) as i64)
                    .max()
                    .unwrap_or(lo)
            })
            .min()
            .unwrap_or(lo);
        (lo.max(earliest.min(hi)), hi)
    }

    /// The window of `G` (a lower bound on the start of the op's sources,
    /// at least every predecessor's `F`): from the earliest start any of its
    /// sources may have, up to the op's latest start (or, when lower, the
    /// most over its tilings of their sources' earliest latest start). `G`
    /// can always be the earliest start of the selected sources (any value up
    /// to the top for an empty tiling, whose window keeps its top).
    pub fn start_window(&self, op: u32, tmax: i64) -> (i64, i64) {
        let ou = op as usize;
        let (lo, hi) = if self.can_be_empty[ou] {
            (0, tmax)
        } else {
            (
                self.op_head[ou] as i64,
                tmax - (self.op_tail[ou] + self.min_cp[ou]) as i64,
            )
        };
        let earliest = self.op_slots[ou]
            .clone()
            .flat_map(|s| self.sources(s))
            .map(|y| self.nodes[y as usize].head as i64)
            .min()
            .unwrap_or(lo);
        let lo = lo.max(earliest.min(hi));
        if self.can_be_empty[ou] {
            return (lo, hi);
        }
        // Every tiling starts no later than its sources' latest starts.
        let latest = self.op_slots[ou]
            .clone()
            .map(|s| {
                self.sources(s)
                    .map(|y| {
                        let n = &self.nodes[y as usize];
                        tmax - (n.tail + n.dur) as i64
                    })
                    .min()
                    .unwrap_or(hi)
            })
            .max()
            .unwrap_or(hi);
        (lo, hi.min(latest.max(lo)))
    }

    pub fn present(&self, op: u32) -> bool {
        !self.op_slots[op as usize].is_empty()
    }

    /// Present successor ops of `op`.
    pub fn op_succs(&self, op: u32) -> impl Iterator<Item = u32> + '_ {
        self.inst
            .graph
            .succs(op)
            .iter()
            .copied()
            .filter(|&b| self.present(b))
    }
    pub fn op_preds(&self, op: u32) -> impl Iterator<Item = u32> + '_ {
        self.inst
            .graph
            .preds(op)
            .iter()
            .copied()
            .filter(|&a| self.present(a))
    }

    /// Whether op `op` has a single candidate (its selector is constant true).
    pub fn fixed(&self, op: u32) -> bool {
        self.op_slots[op as usize].len() == 1
    }

    /// Intra-tiling successors of model node `v` (model indices).
    pub fn intra_succs(&self, v: u32) -> impl Iterator<Item = u32> + '_ {
        let nd = &self.nodes[v as usize];
        let first = self.slots[nd.slot as usize].first;
        self.inst
            .library
            .succs(nd.lib)
            .iter()
            .map(move |&l| first + l)
    }
    pub fn is_sink(&self, v: u32) -> bool {
        self.inst
            .library
            .succs(self.nodes[v as usize].lib)
            .is_empty()
    }
    pub fn is_source(&self, v: u32) -> bool {
        self.inst
            .library
            .preds(self.nodes[v as usize].lib)
            .is_empty()
    }
    pub fn sinks(&self, slot: u32) -> impl Iterator<Item = u32> + '_ {
        let s = &self.slots[slot as usize];
        self.inst
            .library
            .sinks(s.tiling)
            .iter()
            .map(move |&l| s.first + l)
    }
    pub fn sources(&self, slot: u32) -> impl Iterator<Item = u32> + '_ {
        let s = &self.slots[slot as usize];
        self.inst
            .library
            .sources(s.tiling)
            .iter()
            .map(move |&l| s.first + l)
    }
    /// The nodes whose starts `x`'s hold of memory type `mt` lasts until
    /// (problem.md §4 rule 4): its intra-tiling successors demanding `mt`
    /// (slot `None`: they exist whenever `x` does) and, when `x` is a sink,
    /// the sources demanding `mt` of every candidate tiling of each successor
    /// op, with their slot. The one statement of the release rule's
    /// successors for the encoding's holds and the window net's timetables.
    pub fn mem_succs(&self, x: u32, mt: TypeIdx) -> impl Iterator<Item = (u32, Option<u32>)> + '_ {
        let cross = self
            .is_sink(x)
            .then(|| self.op_succs(self.op_of(x)))
            .into_iter()
            .flatten()
            .flat_map(move |b| self.op_slots[b as usize].clone())
            .flat_map(move |s| self.sources(s).map(move |y| (y, Some(s))));
        self.intra_succs(x)
            .map(|y| (y, None))
            .chain(cross)
            .filter(move |&(y, _)| self.demand(y, mt) > 0)
    }
    pub fn demand(&self, v: u32, m: TypeIdx) -> u64 {
        self.inst.library.demand(self.nodes[v as usize].lib, m)
    }
    pub fn op_of(&self, v: u32) -> u32 {
        self.slots[self.nodes[v as usize].slot as usize].op
    }

    /// The nodes of positive duration of each core type with one core
    /// (indexed by type; empty for the others): the sets the pair clauses,
    /// their estimate and the edge-finding propagator work on.
    pub fn one_core_groups(&self) -> Vec<Vec<u32>> {
        let cores = &self.inst.platform.cores;
        let mut by_type: Vec<Vec<u32>> = vec![Vec::new(); cores.len()];
        for (v, nd) in self.nodes.iter().enumerate() {
            if nd.dur > 0 && (nd.core as usize) < cores.len() && cores[nd.core as usize].count == 1
            {
                by_type[nd.core as usize].push(v as u32);
            }
        }
        by_type
    }

    /// Whether nodes `u` and `v` are never both selected: they belong to
    /// two tilings of one op.
    pub fn never_together(&self, u: u32, v: u32) -> bool {
        self.nodes[u as usize].slot != self.nodes[v as usize].slot && self.op_of(u) == self.op_of(v)
    }

    /// Op heads and tails over present ops (chains stop at ops that may be empty),
    /// then node windows from the longest intra-tiling paths.
    fn heads_tails(&mut self) {
        let order = self.inst.graph.topo_order();
        let (op_head, op_tail) =
            crate::bounds::heads::op_heads_tails(&self.inst.graph, &order, &self.min_cp, |o| {
                self.present(o) && !self.can_be_empty[o as usize]
            });
        self.op_head = op_head;
        self.op_tail = op_tail;
        let lib = &self.inst.library;
        let mut local: Vec<u32> = Vec::new();
        let mut indeg: Vec<u32> = Vec::new();
        for si in 0..self.slots.len() {
            let s = self.slots[si].clone();
            let tl = &lib.tilings[s.tiling as usize];
            let base = tl.first_node;
            lib.topo_order(s.tiling, &mut local, &mut indeg);
            let (oh, ot) = (self.op_head[s.op as usize], self.op_tail[s.op as usize]);
            for &l in &local {
                let v = (s.first + l) as usize;
                self.nodes[v].head = self.nodes[v].head.max(oh);
                let end = self.nodes[v].head.saturating_add(self.nodes[v].dur);
                for &x in lib.succs(base + l) {
                    let w = (s.first + x) as usize;
                    self.nodes[w].head = self.nodes[w].head.max(end);
                }
            }
            for &l in local.iter().rev() {
                let v = (s.first + l) as usize;
                let mut after = ot;
                for &x in lib.succs(base + l) {
                    let w = (s.first + x) as usize;
                    after = after.max(self.nodes[w].tail.saturating_add(self.nodes[w].dur));
                }
                self.nodes[v].tail = after;
            }
        }
    }
}
