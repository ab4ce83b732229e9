//! Memory-frugal activity lists: ops one after another, in an order chosen so
//! that few memory holds stay open. The ordered and serial modes of the scheme
//! follow these lists when the priority rules trap memory.
//!
//! Holds across ops are what accumulate: the sinks of op `a` keep their memory
//! until every same-type source of every successor op has started. An order that
//! opens many ops whose successors come much later (breadth-first from all roots)
//! keeps all of those holds at once; the orders here avoid that.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::graph::NodeGraph;

use super::priority::key_of;

/// Ops in input order among those whose predecessors are done (Kahn's algorithm
/// with the smallest op index first). Input files tend to list ops in a sensible
/// order, so this is a cheap frugal baseline.
pub fn input_order(g: &NodeGraph) -> Vec<u32> {
    let n = g.n_ops();
    let mut indeg: Vec<u32> = (0..n as u32).map(|o| g.op_preds(o).len() as u32).collect();
    let mut heap: BinaryHeap<Reverse<u32>> = (0..n as u32)
        .filter(|&o| indeg[o as usize] == 0)
        .map(Reverse)
        .collect();
    let mut out = Vec::with_capacity(n);
    while let Some(Reverse(o)) = heap.pop() {
        out.push(o);
        for &b in g.op_succs(o) {
            indeg[b as usize] -= 1;
            if indeg[b as usize] == 0 {
                heap.push(Reverse(b));
            }
        }
    }
    out
}

/// Candidates scanned per step of the greedy order (the smallest indices first).
const SCAN: usize = 256;

/// Ops chosen greedily by memory: next is the ready op whose start releases the
/// most held memory (sinks of predecessors waiting only for it) net of the holds
/// its own sinks will keep, each relative to the type's size; ties by index.
pub fn memory_order(g: &NodeGraph) -> Vec<u32> {
    let n_ops = g.n_ops();
    let n_mem = g.inst.platform.mems.len();
    let caps: Vec<f64> = g
        .inst
        .platform
        .mems
        .iter()
        .map(|m| (m.size as f64).max(1.0))
        .collect();
    // Per op and type: m-sources, and the sink demand held while successors wait.
    let mut src = vec![0u32; n_ops * n_mem];
    let mut sink = vec![0f64; n_ops * n_mem];
    for op in 0..n_ops as u32 {
        let o = op as usize * n_mem;
        for v in g.sources(op) {
            for e in g.mems(v) {
                src[o + e.mem as usize] += 1;
            }
        }
        for v in g.sinks(op) {
            for e in g.mems(v) {
                sink[o + e.mem as usize] += e.amount as f64 / caps[e.mem as usize];
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
    let mut indeg: Vec<u32> = (0..n_ops as u32)
        .map(|o| g.op_preds(o).len() as u32)
        .collect();
    let mut ready: std::collections::BTreeSet<u32> = (0..n_ops as u32)
        .filter(|&o| indeg[o as usize] == 0)
        .collect();
    let mut out = Vec::with_capacity(n_ops);
    while !ready.is_empty() {
        let mut best: Option<(f64, u32)> = None;
        for &b in ready.iter().take(SCAN) {
            let mut score = 0.0;
            for &a in g.op_preds(b) {
                for m in 0..n_mem {
                    let k = a as usize * n_mem + m;
                    let mine = src[b as usize * n_mem + m];
                    if mine > 0 && pending[k] == mine {
                        score += sink[k];
                    }
                }
            }
            for m in 0..n_mem {
                if pending[b as usize * n_mem + m] > 0 {
                    score -= sink[b as usize * n_mem + m];
                }
            }
            if best.is_none_or(|(s, _)| score > s + 1e-12) {
                best = Some((score, b));
            }
        }
        let (_, b) = best.expect("ready is not empty");
        ready.remove(&b);
        out.push(b);
        for &a in g.op_preds(b) {
            for m in 0..n_mem {
                pending[a as usize * n_mem + m] -= src[b as usize * n_mem + m];
            }
        }
        for &c in g.op_succs(b) {
            indeg[c as usize] -= 1;
            if indeg[c as usize] == 0 {
                ready.insert(c);
            }
        }
    }
    out
}

/// Keys for an op order: ops in that order, each op's nodes in their own
/// topological order (earlier = higher key).
pub fn keys_for_op_order(g: &NodeGraph, ops: &[u32]) -> Vec<u64> {
    let lib = &g.inst.library;
    let n = g.n_nodes() as u64;
    let mut key = vec![0u64; g.n_nodes()];
    let mut r = 0u64;
    let mut indeg: Vec<u32> = Vec::new();
    let mut queue: Vec<u32> = Vec::new();
    for &o in ops {
        let t = g.choice[o as usize];
        let nodes = lib.tilings[t as usize].nodes();
        indeg.clear();
        indeg.extend(nodes.clone().map(|l| lib.preds(l).len() as u32));
        queue.clear();
        queue.extend(lib.sources(t).iter().copied());
        let mut h = 0;
        while h < queue.len() {
            let l = queue[h];
            h += 1;
            key[(g.op_base[o as usize] + l) as usize] = key_of((n - r) as f64);
            r += 1;
            for &s in lib.succs(nodes.start + l) {
                indeg[s as usize] -= 1;
                if indeg[s as usize] == 0 {
                    queue.push(s);
                }
            }
        }
    }
    key
}
