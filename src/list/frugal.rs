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
use crate::stop::Deadline;

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
    // Per op and type: what its own sinks will hold, relative to the size,
    // where its successors have sources of that type. Fixed while the op is
    // unplaced (`pending` of an op changes only when its successors are
    // placed, after it), so computed once.
    let own: Vec<f64> = (0..n_ops * n_mem)
        .map(|k| {
            if pending[k] > 0 {
                sink[k] as f64 / scale[k % n_mem]
            } else {
                0.0
            }
        })
        .collect();
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
                if release[m] > 0 {
                    score += release[m] as f64 / scale[m];
                }
                score -= own[bo + m];
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

/// Ready nodes tried per step of `fitted_order` before it gives up.
const FIT_TRIES: usize = 64;

/// The serial order closest to `rank` (a node ranking, e.g. a memory-blind
/// schedule's start order) that fits memory under the hold rule: one node at
/// a time, the ready node (all predecessors placed) of smallest rank whose
/// start fits beside the holds open, after the holds that start releases (it
/// is their holder's last unplaced successor demanding that type). Ranks that
/// interleave ops, as a packed schedule does, keep memory near that
/// schedule's peak where op-by-op orders trap it. `None` when none of the
/// `FIT_TRIES` best-ranked ready nodes fits (the order trapped memory, or a
/// joint start would be needed) or `deadline` passes.
/// O(n log n + n * FIT_TRIES * (preds per node) * types) time, O(n * types) memory.
pub fn fitted_order(g: &NodeGraph, rank: &[u32], deadline: &Deadline) -> Option<Vec<u32>> {
    let n = g.n_nodes();
    let n_mem = g.inst.platform.mems.len();
    let caps: Vec<u128> = g
        .inst
        .platform
        .mems
        .iter()
        .map(|m| u128::from(m.size))
        .collect();
    // pending[v * n_mem + m]: unplaced successors of v demanding m;
    // npred[v]: unplaced predecessors.
    let mut pending = vec![0u32; n * n_mem];
    let mut npred = vec![0u32; n];
    for v in 0..n as u32 {
        g.for_each_succ(v, |z| {
            npred[z as usize] += 1;
            for e in g.mems(z) {
                pending[v as usize * n_mem + e.mem as usize] += 1;
            }
        });
    }
    let mut held = vec![0u128; n_mem];
    let mut freed = vec![0u128; n_mem];
    let mut ready: std::collections::BinaryHeap<Reverse<(u32, u32)>> = (0..n as u32)
        .filter(|&v| npred[v as usize] == 0)
        .map(|v| Reverse((rank[v as usize], v)))
        .collect();
    let mut skipped: Vec<Reverse<(u32, u32)>> = Vec::with_capacity(FIT_TRIES);
    let mut out = Vec::with_capacity(n);
    while !ready.is_empty() {
        if out.len() % 1024 == 1023 && deadline.expired() {
            return None;
        }
        let mut chosen = None;
        while let Some(e) = ready.pop() {
            let v = e.0.1;
            release_of(g, v, n_mem, &pending, &mut freed);
            let fits = g.mems(v).iter().all(|d| {
                let m = d.mem as usize;
                held[m] - freed[m] + u128::from(d.amount) <= caps[m]
            });
            if fits {
                chosen = Some(v);
                break;
            }
            skipped.push(e);
            if skipped.len() == FIT_TRIES {
                break;
            }
        }
        ready.extend(skipped.drain(..));
        let Some(v) = chosen else {
            log::debug!(
                "fitted order: no ready node fits after {} of {n} nodes",
                out.len()
            );
            return None;
        };
        out.push(v);
        // `freed` is v's release (computed last, for v).
        for m in 0..n_mem {
            held[m] -= freed[m];
        }
        g.for_each_pred(v, |u| {
            for e in g.mems(v) {
                pending[u as usize * n_mem + e.mem as usize] -= 1;
            }
        });
        for e in g.mems(v) {
            if pending[v as usize * n_mem + e.mem as usize] > 0 {
                held[e.mem as usize] += u128::from(e.amount);
            }
        }
        g.for_each_succ(v, |z| {
            npred[z as usize] -= 1;
            if npred[z as usize] == 0 {
                ready.push(Reverse((rank[z as usize], z)));
            }
        });
    }
    Some(out)
}

/// What starting `v` releases, per memory type: the demand of each
/// predecessor `u` (placed, holding) for which `v` is the last unplaced
/// successor demanding that type.
fn release_of(g: &NodeGraph, v: u32, n_mem: usize, pending: &[u32], freed: &mut [u128]) {
    freed.iter_mut().for_each(|x| *x = 0);
    g.for_each_pred(v, |u| {
        for e in g.mems(v) {
            let m = e.mem as usize;
            if pending[u as usize * n_mem + m] == 1 {
                freed[m] += u128::from(g.demand(u, e.mem));
            }
        }
    });
}

/// Each node's rank in the start order of a memory-blind schedule: list
/// scheduling in topological order (ops in input order among the ready ones)
/// on the real cores divided by `slow_down`, memory ignored. That order runs
/// ops side by side the way a packed schedule does; fewer cores run fewer
/// side by side (fewer holds open at once).
pub fn blind_rank(g: &NodeGraph, slow_down: u32) -> Vec<u32> {
    // Core counts up to 2^20 a type are declared; a schedule needs at most
    // one core per node.
    let cores: Vec<u32> = g
        .inst
        .platform
        .cores
        .iter()
        .map(|c| (c.count / slow_down).min(g.n_nodes() as u32).max(1))
        .collect();
    let s = crate::generate::list_schedule(g, &g.topo_order(), &cores, false);
    let mut order: Vec<u32> = (0..g.n_nodes() as u32).collect();
    order.sort_unstable_by_key(|&v| (s.start[v as usize], v));
    let mut rank = vec![0u32; order.len()];
    for (k, &v) in order.iter().enumerate() {
        rank[v as usize] = k as u32;
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Ops 1 and 3 (one node each, both ready at once, in graphs of their
    /// own) release nothing; op 1's sink will hold its memory until op 2
    /// (a source of the same type) starts, op 3 holds nothing past its
    /// node. The order takes op 3 first (the score subtracts the holds an
    /// op's sinks will keep, fixed while the op is unplaced), then the
    /// graph of ops 1 and 2 in order; with the edge from op 3 instead, op
    /// 1 first.
    #[test]
    fn the_op_whose_sinks_will_not_hold_goes_first() {
        let lib = "SetSocInfo([[0,1]],[[0,10]])\n\
                   AddOpInfo(1,1,0,[],[[1,0,1]],[[1,0,4]])\n";
        for (ops, edges, want) in [
            ("[[1,1,1],[2,1,1],[3,1,1]]", "[[1,2]]", vec![2, 0, 1]),
            ("[[1,1,1],[2,1,1],[3,1,1]]", "[[3,2]]", vec![0, 2, 1]),
        ] {
            let text = format!("{lib}GetInferenceScheResult({edges},{ops})\n");
            let inst = crate::instance::parse_reader(text.as_bytes(), "f.txt").expect("parses");
            let g = NodeGraph::new(&inst, vec![0; 3]).expect("a graph");
            let long = Deadline::after(Duration::from_secs(600));
            assert_eq!(memory_order(&g, &long), Some(want), "{edges}");
        }
    }
}
