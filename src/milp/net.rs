//! The time network both formulations are built on, for one tiling choice.
//!
//! Points `0..n` are the nodes of the `NodeGraph`; points `n..` are junctions,
//! one per op with a predecessor op: every sink of a predecessor op precedes
//! the junction, which precedes every source of the op (a zero-length point
//! with no resource). This keeps op edges linear in size instead of
//! materialising sinks x sources pairs. Durations are divided by their common
//! divisor `scale` (exact: see `models/milp.md`). Heads and tails are the
//! longest paths, strengthened per core type by the work that must precede
//! (follow) a point on that type.

use crate::bounds::heads::{Item, head_body_tail, jackson_preemptive};
use crate::graph::NodeGraph;
use crate::instance::TypeIdx;
use crate::prep::unit::gcd;

/// A square bit matrix: `get(v, u)` is "u is a strict ancestor of v".
pub(super) struct Bits {
    words: usize,
    data: Vec<u64>,
}

impl Bits {
    fn new(n: usize) -> Self {
        let words = n.div_ceil(64);
        Bits {
            words,
            data: vec![0; words * n],
        }
    }
    #[inline]
    pub(super) fn get(&self, row: usize, col: usize) -> bool {
        self.data[row * self.words + col / 64] >> (col % 64) & 1 == 1
    }
    #[inline]
    fn set(&mut self, row: usize, col: usize) {
        self.data[row * self.words + col / 64] |= 1 << (col % 64);
    }
    fn or_row(&mut self, dst: usize, src: usize) {
        let w = self.words;
        let (a, b) = if dst < src {
            let (x, y) = self.data.split_at_mut(src * w);
            (&mut x[dst * w..dst * w + w], &y[..w])
        } else {
            let (x, y) = self.data.split_at_mut(dst * w);
            (&mut y[..w], &x[src * w..src * w + w])
        };
        for (p, q) in a.iter_mut().zip(b) {
            *p |= *q;
        }
    }
}

/// Where a holder's memory hold is extended to (problem.md §4.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Target {
    /// An intra-op successor that uses the same memory type.
    Node(u32),
    /// The latest start of the sources of a successor op that use the type
    /// (index into `MemType::aggs`).
    Agg(u32),
}

/// A node that holds memory of one type.
#[derive(Clone, Debug)]
pub(super) struct Holder {
    pub v: u32,
    pub demand: u64,
    pub targets: Vec<Target>,
}

/// The sources of one op that use one memory type.
#[derive(Clone, Debug)]
pub(super) struct Agg {
    pub op: u32,
    pub sources: Vec<u32>,
}

/// Holders of one memory type.
#[derive(Clone, Debug)]
pub(super) struct MemType {
    pub m: TypeIdx,
    pub cap: u64,
    pub holders: Vec<Holder>,
    pub aggs: Vec<Agg>,
}

pub(super) struct Net<'g, 'a> {
    pub g: &'g NodeGraph<'a>,
    /// Time unit: every duration is a multiple of it.
    pub scale: u64,
    /// Real nodes.
    pub n: usize,
    /// Real nodes and junctions.
    pub n_points: usize,
    /// Scaled durations (0 for junctions).
    pub p: Vec<i64>,
    pub succ: Vec<Vec<u32>>,
    pub pred: Vec<Vec<u32>>,
    /// The op of each junction (`junction_op[j - n]`).
    pub junction_op: Vec<u32>,
    pub topo: Vec<u32>,
    /// `anc.get(v, u)`: u is a strict ancestor of v.
    pub anc: Bits,
    /// Earliest start and least time from the end to the makespan.
    pub head: Vec<i64>,
    pub tail: Vec<i64>,
    /// Core type of each real node.
    pub core: Vec<TypeIdx>,
    pub core_count: Vec<u32>,
    pub mems: Vec<MemType>,
}

/// Largest real node count the MILP engine builds a network for.
pub const MAX_NODES: usize = 3000;

/// Longest durations fit i64 arithmetic only when their sum does (and HiGHS's
/// f64 resolves one unit).
pub(super) const MAX_SCALED_SUM: u64 = 1 << 40;

/// Why a network is not built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum NetError {
    TooManyNodes {
        n: usize,
    },
    /// Scaled durations sum beyond `MAX_SCALED_SUM`.
    TooLong {
        sum: u64,
        scale: u64,
    },
    Cycle,
}

/// A point's name (`Net::label`), written when displayed.
#[derive(Clone, Copy)]
pub(super) struct Label<'n, 'g, 'a> {
    net: &'n Net<'g, 'a>,
    v: u32,
}

impl std::fmt::Display for Label<'_, '_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (net, v) = (self.net, self.v as usize);
        if v < net.n {
            let (o, n) = net.g.label(self.v);
            write!(f, "{o}_{n}")
        } else {
            let op = net.junction_op[v - net.n] as usize;
            write!(f, "J{}", net.g.inst.graph.ops[op].id)
        }
    }
}

impl std::fmt::Display for NetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NetError::TooManyNodes { n } => {
                write!(f, "{n} nodes: the MILP engine handles at most {MAX_NODES}")
            }
            NetError::TooLong { sum, scale } => write!(
                f,
                "durations sum to {sum} time units (after dividing by {scale}): too long for a MILP"
            ),
            NetError::Cycle => f.write_str("the node graph has a cycle"),
        }
    }
}

impl<'g, 'a> Net<'g, 'a> {
    /// A point's name in exported models: `OpId_NodeId`, or `J<OpId>` for an
    /// op's junction point. Formatted when displayed: a model keeps names
    /// only for exports, and a pair's rows would otherwise format two names
    /// each for nothing.
    pub(super) fn label(&self, v: u32) -> Label<'_, 'g, 'a> {
        Label { net: self, v }
    }

    /// Builds the network; fails when it is too large for a MILP.
    pub(super) fn new(g: &'g NodeGraph<'a>) -> Result<Self, NetError> {
        let n = g.n_nodes();
        if n > MAX_NODES {
            return Err(NetError::TooManyNodes { n });
        }
        let scale = (0..n as u32).fold(0, |a, v| gcd(a, g.dur(v))).max(1);
        let mut sum: u64 = 0;
        for v in 0..n as u32 {
            sum = sum.saturating_add(g.dur(v) / scale);
        }
        if sum > MAX_SCALED_SUM {
            return Err(NetError::TooLong { sum, scale });
        }
        let mut p: Vec<i64> = (0..n as u32).map(|v| (g.dur(v) / scale) as i64).collect();
        let mut succ: Vec<Vec<u32>> = vec![Vec::new(); n];
        for v in 0..n as u32 {
            succ[v as usize].extend(g.intra_succs(v));
        }
        let mut junction_op = Vec::new();
        for b in 0..g.n_ops() as u32 {
            if g.op_nodes(b).is_empty() {
                continue;
            }
            let preds: Vec<u32> = g
                .op_preds(b)
                .iter()
                .copied()
                .filter(|&a| !g.op_nodes(a).is_empty())
                .collect();
            if preds.is_empty() {
                continue;
            }
            let j = (n + junction_op.len()) as u32;
            junction_op.push(b);
            p.push(0);
            let mut js: Vec<u32> = g.sources(b).collect();
            js.sort_unstable();
            succ.push(js);
            for a in preds {
                for u in g.sinks(a) {
                    succ[u as usize].push(j);
                }
            }
        }
        let n_points = succ.len();
        for s in succ.iter_mut() {
            s.sort_unstable();
            s.dedup();
        }
        let mut pred: Vec<Vec<u32>> = vec![Vec::new(); n_points];
        for (u, s) in succ.iter().enumerate() {
            for &w in s {
                pred[w as usize].push(u as u32);
            }
        }
        // Topological order (Kahn).
        let mut indeg: Vec<u32> = pred.iter().map(|x| x.len() as u32).collect();
        let mut topo: Vec<u32> = (0..n_points as u32)
            .filter(|&v| indeg[v as usize] == 0)
            .collect();
        let mut h = 0;
        while h < topo.len() {
            let u = topo[h];
            h += 1;
            for &w in &succ[u as usize] {
                indeg[w as usize] -= 1;
                if indeg[w as usize] == 0 {
                    topo.push(w);
                }
            }
        }
        if topo.len() != n_points {
            return Err(NetError::Cycle);
        }
        let mut anc = Bits::new(n_points);
        for &v in &topo {
            for &u in &pred[v as usize] {
                anc.set(v as usize, u as usize);
                anc.or_row(v as usize, u as usize);
            }
        }
        let inst = g.inst;
        let core_count: Vec<u32> = inst.platform.cores.iter().map(|c| c.count).collect();
        let mut net = Net {
            g,
            scale,
            n,
            n_points,
            p,
            succ,
            pred,
            junction_op,
            topo,
            anc,
            head: Vec::new(),
            tail: Vec::new(),
            core: g.core.clone(),
            core_count,
            mems: Vec::new(),
        };
        net.heads_tails();
        net.mems = net.memory_types();
        Ok(net)
    }

    /// True when `u` must start before `v` starts (a path from u to v).
    #[inline]
    pub(super) fn precedes(&self, u: u32, v: u32) -> bool {
        self.anc.get(v as usize, u as usize)
    }

    /// `max over h of h + ceil(W(h)/k)` for work that must finish before a
    /// point (heads) or start after it (tails, passed as heads): the
    /// head-body-tail bound with every tail 0 (models/bounds.md).
    fn head_body(items: &[Item], k: u32) -> i64 {
        let b = head_body_tail(items, u128::from(k.max(1)));
        i64::try_from(b).unwrap_or(i64::MAX)
    }

    fn heads_tails(&mut self) {
        let np = self.n_points;
        let n_types = self.core_count.len();
        let mut head = vec![0i64; np];
        let mut items: Vec<Vec<Item>> = vec![Vec::new(); n_types];
        for &v in &self.topo {
            let vi = v as usize;
            let mut h = 0i64;
            for &u in &self.pred[vi] {
                h = h.max(head[u as usize] + self.p[u as usize]);
            }
            // Work on one core type that must finish before v starts.
            for it in items.iter_mut() {
                it.clear();
            }
            for u in 0..self.n {
                if self.p[u] > 0 && self.anc.get(vi, u) {
                    items[self.core[u] as usize].push(Item {
                        head: head[u] as u64,
                        work: self.p[u] as u64,
                        tail: 0,
                    });
                }
            }
            for (c, it) in items.iter_mut().enumerate() {
                if !it.is_empty() {
                    h = h.max(Self::head_body(it, self.core_count[c]));
                }
            }
            head[vi] = h;
        }
        let mut tail = vec![0i64; np];
        for &v in self.topo.iter().rev() {
            let vi = v as usize;
            let mut q = 0i64;
            for &w in &self.succ[vi] {
                q = q.max(self.p[w as usize] + tail[w as usize]);
            }
            for it in items.iter_mut() {
                it.clear();
            }
            for w in 0..self.n {
                if self.p[w] > 0 && self.anc.get(w, vi) {
                    items[self.core[w] as usize].push(Item {
                        head: tail[w] as u64,
                        work: self.p[w] as u64,
                        tail: 0,
                    });
                }
            }
            for (c, it) in items.iter_mut().enumerate() {
                if !it.is_empty() {
                    q = q.max(Self::head_body(it, self.core_count[c]));
                }
            }
            tail[vi] = q;
        }
        self.head = head;
        self.tail = tail;
    }

    fn memory_types(&self) -> Vec<MemType> {
        let g = self.g;
        let inst = g.inst;
        let mut out = Vec::new();
        for (mi, mt) in inst.platform.mems.iter().enumerate() {
            let m = mi as TypeIdx;
            let mut aggs: Vec<Agg> = Vec::new();
            let mut agg_of_op: Vec<Option<u32>> = vec![None; g.n_ops()];
            let mut holders = Vec::new();
            for v in 0..self.n as u32 {
                let d = g.demand(v, m);
                if d == 0 {
                    continue;
                }
                let mut targets: Vec<Target> = g
                    .intra_succs(v)
                    .filter(|&y| g.demand(y, m) > 0)
                    .map(Target::Node)
                    .collect();
                if g.is_sink(v) {
                    for &b in g.op_succs(g.node_op[v as usize]) {
                        let slot = &mut agg_of_op[b as usize];
                        if slot.is_none() {
                            let sources: Vec<u32> =
                                g.sources(b).filter(|&y| g.demand(y, m) > 0).collect();
                            if sources.is_empty() {
                                continue;
                            }
                            *slot = Some(aggs.len() as u32);
                            aggs.push(Agg { op: b, sources });
                        }
                        if let Some(a) = *slot {
                            targets.push(Target::Agg(a));
                        }
                    }
                }
                // A zero-length node without targets holds nothing.
                if self.p[v as usize] == 0 && targets.is_empty() {
                    continue;
                }
                holders.push(Holder {
                    v,
                    demand: d,
                    targets,
                });
            }
            if !holders.is_empty() {
                out.push(MemType {
                    m,
                    cap: mt.size,
                    holders,
                    aggs,
                });
            }
        }
        out
    }

    /// Latest start of every point under horizon `h` (scaled).
    pub(super) fn latest(&self, h: i64) -> Vec<i64> {
        (0..self.n_points)
            .map(|v| h - self.tail[v] - self.p[v])
            .collect()
    }

    /// Real nodes of core type `c` with a positive duration.
    pub(super) fn on_core(&self, c: usize) -> Vec<u32> {
        (0..self.n as u32)
            .filter(|&v| self.core[v as usize] as usize == c && self.p[v as usize] > 0)
            .collect()
    }

    /// The nodes a target stands for.
    pub(super) fn target_nodes(mt: &MemType, t: Target) -> Vec<u32> {
        match t {
            Target::Node(y) => vec![y],
            Target::Agg(a) => mt.aggs[a as usize].sources.clone(),
        }
    }

    /// A lower bound (scaled time) on the makespan of this tiling choice:
    /// longest path with heads and tails, per core type load, head-body-tail
    /// and (one core) Jackson's preemptive schedule, per memory type area.
    /// See `models/milp.md`.
    pub(super) fn lower_bound(&self) -> i64 {
        let mut best = 0i64;
        for v in 0..self.n_points {
            best = best.max(self.head[v] + self.p[v] + self.tail[v]);
        }
        for (c, &k) in self.core_count.iter().enumerate() {
            let nodes = self.on_core(c);
            if nodes.is_empty() || k == 0 {
                continue;
            }
            let items: Vec<Item> = nodes
                .iter()
                .map(|&v| Item {
                    head: self.head[v as usize] as u64,
                    work: self.p[v as usize] as u64,
                    tail: self.tail[v as usize] as u64,
                })
                .collect();
            best =
                best.max(i64::try_from(head_body_tail(&items, u128::from(k))).unwrap_or(i64::MAX));
            if k == 1 {
                best = best.max(jackson_preemptive(&items) as i64);
            }
        }
        for mt in &self.mems {
            if mt.cap == 0 {
                continue;
            }
            let area: u128 = mt
                .holders
                .iter()
                .map(|h| u128::from(h.demand) * self.p[h.v as usize] as u128)
                .sum();
            let b = area.div_ceil(u128::from(mt.cap));
            best = best.max(i64::try_from(b).unwrap_or(i64::MAX));
        }
        best
    }
}
