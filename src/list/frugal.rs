//! Memory-frugal activity lists: ops one after another, in an order chosen so
//! that few memory holds stay open. The ordered and serial modes of the scheme
//! follow these lists when the priority rules trap memory.
//!
//! Holds across ops are what accumulate: the sinks of op `a` keep their memory
//! until every same-type source of every successor op has started. An order that
//! opens many ops whose successors come much later (breadth-first from all roots)
//! keeps all of those holds at once; the orders here avoid that.

use std::cmp::Reverse;

use crate::graph::NodeGraph;
use crate::solve::Deadline;

/// Ops in input order among those whose predecessors are done (Kahn's algorithm,
/// smallest op index first), one independent graph after another. Input files
/// tend to list ops in a sensible order, so this is a cheap frugal baseline.
pub fn input_order(g: &NodeGraph) -> Vec<u32> {
    let n = g.n_ops();
    let comp = components(g);
    let mut indeg: Vec<u32> = (0..n as u32).map(|o| g.op_preds(o).len() as u32).collect();
    // Ready ops by (component, index); the focus component is drained first.
    let mut ready: std::collections::BTreeSet<(u32, u32)> = (0..n as u32)
        .filter(|&o| indeg[o as usize] == 0)
        .map(|o| (comp[o as usize], o))
        .collect();
    let mut out = Vec::with_capacity(n);
    let mut focus = 0u32;
    while !ready.is_empty() {
        let next = ready
            .range((focus, 0)..(focus, u32::MAX))
            .next()
            .or_else(|| ready.iter().next())
            .copied()
            .expect("ready is not empty");
        ready.remove(&next);
        let o = next.1;
        focus = next.0;
        out.push(o);
        for &b in g.op_succs(o) {
            indeg[b as usize] -= 1;
            if indeg[b as usize] == 0 {
                ready.insert((comp[b as usize], b));
            }
        }
    }
    out
}

/// Candidates scanned per step of the greedy order (the most recently enabled first).
const SCAN: usize = 256;

/// Ops chosen greedily by memory. Among the ready ops (at most `SCAN`, the most
/// recently enabled first), prefer one whose run fits next to the holds already
/// open (held after the releases its start causes, plus its own serial peak),
/// then the one releasing the most held memory net of the holds its sinks will
/// keep (relative to the sizes), then the most recently enabled (depth first).
/// Ops of the independent graph (weakly connected component) in progress come
/// first: finishing one graph before opening the next keeps their holds apart.
/// `None` when `deadline` passes first. O(ops * SCAN * (op edges per op) * types).
pub fn memory_order(g: &NodeGraph, deadline: &Deadline) -> Option<Vec<u32>> {
    let n_ops = g.n_ops();
    let n_mem = g.inst.platform.mems.len();
    let caps: Vec<u128> = g
        .inst
        .platform
        .mems
        .iter()
        .map(|m| u128::from(m.size))
        .collect();
    let scale: Vec<f64> = caps.iter().map(|&c| (c as f64).max(1.0)).collect();
    let peak_table = super::tiling::OpPeaks::new(g);
    // Per op and type: m-sources, and the sink demand held while successors wait.
    let mut src = vec![0u32; n_ops * n_mem];
    let mut sink = vec![0u128; n_ops * n_mem];
    for op in 0..n_ops as u32 {
        let o = op as usize * n_mem;
        for v in g.sources(op) {
            for e in g.mems(v) {
                src[o + e.mem as usize] += 1;
            }
        }
        for v in g.sinks(op) {
            for e in g.mems(v) {
                sink[o + e.mem as usize] += u128::from(e.amount);
            }
        }
    }
    // Pending m-sources of each op's successors (the sinks' holds wait for them).
    let mut pending = vec![0u32; n_ops * n_mem];
    for a in 0..n_ops as u32 {
        for &b in g.op_succs(a) {
            for m in 0..n_mem {
                pending[a as usize * n_mem + m] += src[b as usize * n_mem + m];
            }
        }
    }
    let comp = components(g);
    let mut focus = u32::MAX;
    let mut held = vec![0u128; n_mem];
    let mut release = vec![0u128; n_mem];
    let mut indeg: Vec<u32> = (0..n_ops as u32)
        .map(|o| g.op_preds(o).len() as u32)
        .collect();
    // Ready ops keyed by the step at which they became ready (latest first).
    let mut ready: std::collections::BTreeSet<ReadyEntry> = (0..n_ops as u32)
        .filter(|&o| indeg[o as usize] == 0)
        .map(|o| (Reverse(0), o))
        .collect();
    let mut out = Vec::with_capacity(n_ops);
    let mut step = 0u64;
    while !ready.is_empty() {
        step += 1;
        if step.is_multiple_of(256) && deadline.expired() {
            return None;
        }
        // ((in the focus graph, fits, score), ready-set entry)
        let mut best: Option<(Rank, ReadyEntry)> = None;
        for &(stamp, b) in ready.iter().take(SCAN) {
            let bo = b as usize * n_mem;
            release.iter_mut().for_each(|x| *x = 0);
            for &a in g.op_preds(b) {
                for m in 0..n_mem {
                    let k = a as usize * n_mem + m;
                    let mine = src[bo + m];
                    if mine > 0 && pending[k] == mine {
                        release[m] += sink[k];
                    }
                }
            }
            let peaks = peak_table.of(b);
            let fits = (0..n_mem).all(|m| held[m] - release[m] + peaks[m] <= caps[m]);
            let mut score = 0.0;
            for m in 0..n_mem {
                score += release[m] as f64 / scale[m];
                if pending[bo + m] > 0 {
                    score -= sink[bo + m] as f64 / scale[m];
                }
            }
            let here = comp[b as usize] == focus;
            let better = match &best {
                None => true,
                Some(((h, f, s), _)) => (here, fits, score) > (*h, *f, *s + 1e-12),
            };
            if better {
                best = Some(((here, fits, score), (stamp, b)));
            }
        }
        let (_, entry) = best.expect("ready is not empty");
        let b = entry.1;
        ready.remove(&entry);
        out.push(b);
        focus = comp[b as usize];
        let bo = b as usize * n_mem;
        for &a in g.op_preds(b) {
            for m in 0..n_mem {
                let k = a as usize * n_mem + m;
                if src[bo + m] > 0 {
                    pending[k] -= src[bo + m];
                    if pending[k] == 0 {
                        held[m] -= sink[k];
                    }
                }
            }
        }
        for m in 0..n_mem {
            if pending[bo + m] > 0 {
                held[m] += sink[bo + m];
            }
        }
        for &c in g.op_succs(b) {
            indeg[c as usize] -= 1;
            if indeg[c as usize] == 0 {
                ready.insert((Reverse(step), c));
            }
        }
    }
    Some(out)
}

/// How a candidate ranks in `memory_order`: in the focus graph, fits, score.
type Rank = (bool, bool, f64);
/// A ready op: the step it became ready (latest first), and its index.
type ReadyEntry = (Reverse<u64>, u32);

/// Weakly connected components of the op graph (union-find), as labels.
pub fn components(g: &NodeGraph) -> Vec<u32> {
    let n = g.n_ops();
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn find(p: &mut [u32], mut x: u32) -> u32 {
        while p[x as usize] != x {
            p[x as usize] = p[p[x as usize] as usize];
            x = p[x as usize];
        }
        x
    }
    for a in 0..n as u32 {
        for &b in g.op_succs(a) {
            let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
            if ra != rb {
                parent[ra.max(rb) as usize] = ra.min(rb);
            }
        }
    }
    (0..n as u32).map(|x| find(&mut parent, x)).collect()
}

/// The nodes of ops in `ops` order, each op's nodes in their own topological
/// order: a topological node list when `ops` is a topological op order.
pub fn node_list(g: &NodeGraph, ops: &[u32]) -> Vec<u32> {
    let lib = &g.inst.library;
    let mut list = Vec::with_capacity(g.n_nodes());
    let mut indeg: Vec<u32> = Vec::new();
    let mut local: Vec<u32> = Vec::new();
    for &o in ops {
        lib.topo_order(g.choice[o as usize], &mut local, &mut indeg);
        let base = g.op_base[o as usize];
        list.extend(local.iter().map(|&l| base + l));
    }
    list
}
