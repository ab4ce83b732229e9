//! Memory-frugal activity lists: ops one after another, in an order chosen so
//! that few memory holds stay open. The ordered and serial modes of the scheme
//! follow these lists when the priority rules trap memory.
//!
//! Holds across ops are what accumulate: the sinks of op `a` keep their memory
//! until every same-type source of every successor op has started. An order that
//! opens many ops whose successors come much later (breadth-first from all roots)
//! keeps all of those holds at once; the orders here avoid that.

use std::cmp::Reverse;
use std::collections::HashSet;

use super::serial_memory::SerialMemory;
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
/// `None` when `deadline` passes first.
///
/// What an op's start releases is kept up to date instead of recomputed at
/// each scan: the sinks of `a` hold type `m` until the last of its successor
/// ops with `m`-sources starts, so they are released by a successor `c` exactly
/// when `c` is the only such successor left unplaced (counted per edge, as the
/// holds are: with a repeated edge `a -> c` no single start of `c` is counted
/// as releasing them). Each (op, type) reaches one successor left once, so
/// the upkeep is O(op edges * types) in all and a scanned candidate costs
/// O(types). O(ops * SCAN * types + op edges * types).
pub fn memory_order(g: &NodeGraph, deadline: &Deadline) -> Option<Vec<u32>> {
    let n_ops = g.n_ops();
    let n_mem = g.inst.platform.mems.len();
    let caps: Vec<u128> = g.inst.platform.mem_sizes();
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
    // Per op and type: the op edges to successors with m-sources still
    // unplaced (while positive, the op's sinks hold type m), and what the
    // start of each op releases (see above).
    let mut left = vec![0u32; n_ops * n_mem];
    for a in 0..n_ops as u32 {
        for &b in g.op_succs(a) {
            for m in 0..n_mem {
                if src[b as usize * n_mem + m] > 0 {
                    left[a as usize * n_mem + m] += 1;
                }
            }
        }
    }
    let mut placed = vec![false; n_ops];
    let mut release = vec![0u128; n_ops * n_mem];
    // The successor of `a` left with m-sources, when only one is left.
    let last_left = |a: u32, m: usize, placed: &[bool]| {
        g.op_succs(a)
            .iter()
            .copied()
            .find(|&c| !placed[c as usize] && src[c as usize * n_mem + m] > 0)
    };
    for a in 0..n_ops as u32 {
        for m in 0..n_mem {
            let k = a as usize * n_mem + m;
            if left[k] == 1 {
                let c = last_left(a, m, &placed).expect("one successor left");
                release[c as usize * n_mem + m] += sink[k];
            }
        }
    }
    // Per op and type: what its own sinks will hold, relative to the size,
    // where its successors have sources of that type. Fixed while the op is
    // unplaced, so computed once.
    let own: Vec<f64> = (0..n_ops * n_mem)
        .map(|k| {
            if left[k] > 0 {
                sink[k] as f64 / scale[k % n_mem]
            } else {
                0.0
            }
        })
        .collect();
    let score_of = |o: usize, release: &[u128]| {
        let mut score = 0.0;
        for m in 0..n_mem {
            let r = release[o * n_mem + m];
            if r > 0 {
                score += r as f64 / scale[m];
            }
            score -= own[o * n_mem + m];
        }
        score
    };
    // What a scan reads of each candidate, kept together: its graph and
    // score, and per type its serial peak less what its start releases (it
    // fits where the memory held plus that is within the size).
    let comp = components(g);
    let mut cand: Vec<(u32, f64)> = (0..n_ops)
        .map(|o| (comp[o], score_of(o, &release)))
        .collect();
    let mut need: Vec<i128> = (0..n_ops * n_mem)
        .map(|k| peak_table.of((k / n_mem) as u32)[k % n_mem] as i128 - release[k] as i128)
        .collect();
    let caps: Vec<i128> = caps.iter().map(|&c| c as i128).collect();
    let mut focus = u32::MAX;
    let mut held = vec![0i128; n_mem];
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
            let (c, score) = cand[b as usize];
            let need = &need[bo..bo + n_mem];
            let fits = (0..n_mem).all(|m| held[m] + need[m] <= caps[m]);
            let here = c == focus;
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
        placed[b as usize] = true;
        focus = cand[b as usize].0;
        let bo = b as usize * n_mem;
        for &a in g.op_preds(b) {
            for m in 0..n_mem {
                let k = a as usize * n_mem + m;
                if src[bo + m] > 0 {
                    left[k] -= 1;
                    if left[k] == 0 {
                        held[m] -= sink[k] as i128;
                    } else if left[k] == 1 {
                        // None where the edge left is another to `b`.
                        if let Some(c) = last_left(a, m, &placed) {
                            let c = c as usize;
                            release[c * n_mem + m] += sink[k];
                            need[c * n_mem + m] -= sink[k] as i128;
                            cand[c].1 = score_of(c, &release);
                        }
                    }
                }
            }
        }
        for m in 0..n_mem {
            if left[bo + m] > 0 {
                held[m] += sink[bo + m] as i128;
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
/// Largest joint start `fitted_order` tries (the scheme's serial pass tries
/// groups of at most 64 list nodes).
const MAX_JOINT: usize = 64;
/// Most backjumps of one `fitted_order` (besides at most `2n` starts undone).
const MAX_JUMPS: usize = 10_000;

/// The serial order closest to `rank` (a node ranking, e.g. a memory-blind
/// schedule's start order) that fits memory under the hold rule, one *move*
/// at a time: the ready node (all predecessors placed) of smallest rank that
/// fits beside the holds open, after the holds its start releases (it is
/// their holder's last unplaced successor demanding that type), or, where it
/// does not fit alone, its *joint start* with the other unplaced successors
/// demanding type `m` of a predecessor `u` holding `m` (all of them ready):
/// started together they release `u` at once, as a packed schedule's
/// successors starting at one instant do (models/list.md, "Interleaved ops").
/// A move's nodes are consecutive in the list. Ranks that interleave ops,
/// as a packed schedule does, keep memory near that schedule's peak where
/// op-by-op orders trap it. Where none of the `FIT_TRIES` best-ranked ready
/// nodes has a move that fits, a *backjump*: the moves are undone back to
/// the latest node holding a type the best-ranked one lacks, which then
/// waits until that one has started (models/list.md, "Backjumps"). `None`
/// when `MAX_JUMPS` backjumps or `2n` starts undone do not get past the
/// traps, no holder can be blamed, or `deadline` passes.
/// O(n log n + n * FIT_TRIES * (preds per node) * types) time for single
/// starts, and per joint start tried O(MAX_JOINT * preds * types); O(n *
/// types) memory.
pub fn fitted_order(g: &NodeGraph, rank: &[u32], deadline: &Deadline) -> Option<Vec<u32>> {
    let mut f = SerialMemory::new(g);
    let n = g.n_nodes();
    let mut ready: std::collections::BinaryHeap<Reverse<(u32, u32)>> = (0..n as u32)
        .filter(|&v| f.npred(v) == 0)
        .map(|v| Reverse((rank[v as usize], v)))
        .collect();
    let mut skipped: Vec<Reverse<(u32, u32)>> = Vec::with_capacity(FIT_TRIES);
    let mut out: Vec<u32> = Vec::with_capacity(n);
    // Where each move begins in `out`; each placed node's position.
    let mut moves: Vec<u32> = Vec::new();
    let mut pos = vec![0u32; n];
    let mut undone = 0usize;
    let mut jumps = 0usize;
    // The node each held-back node waits for (`NONE`: not held back).
    const NONE: u32 = u32::MAX;
    let mut wait_for = vec![NONE; n];
    let mut looked = 0usize;
    let mut tried = HashSet::new();
    while out.len() < n {
        looked += 1;
        if looked.is_multiple_of(1024) && deadline.expired() {
            log::debug!(
                "fitted order: out of time after {} of {n} nodes, {jumps} backjumps",
                out.len()
            );
            return None;
        }
        let mut chosen = None;
        let mut first = None;
        while let Some(e) = ready.pop() {
            let v = e.0.1;
            // Stale entries: placed (a joint start's other nodes) or no
            // longer ready (undone by a backjump; pushed again when ready).
            if f.is_placed(v) || f.npred(v) > 0 {
                continue;
            }
            skipped.push(e);
            // The node a trap is blamed for: the best-ranked ready one, held
            // back or not. For a held-back one the holder blamed is often
            // none, which ends a ranking whose traps chain at once instead
            // of after 2n starts undone (models/list.md, "Backjumps").
            first.get_or_insert(v);
            // Held back by a backjump until the node it blocked has started.
            let w = wait_for[v as usize];
            if w != NONE && !f.is_placed(w) {
                continue;
            }
            if f.fits_alone(v) {
                // Placed now: its entry is not needed again.
                skipped.pop();
                chosen = Some(vec![v]);
                break;
            }
            if let Some(group) = joint_start(&f, v, &mut tried) {
                chosen = Some(group);
                break;
            }
            if skipped.len() == FIT_TRIES {
                break;
            }
        }
        // The chosen nodes among them are skipped when popped again.
        ready.extend(skipped.drain(..));
        let Some(group) = chosen else {
            log::debug!(
                "fitted order: no ready node fits after {} of {n} nodes",
                out.len()
            );
            // Backjump: undo the moves back to the latest holder of a type
            // the best-ranked ready node lacks, which then waits for it.
            // (A ready node exists while nodes are unplaced.)
            let v0 = first?;
            if jumps >= MAX_JUMPS || undone > 2 * n {
                log::debug!(
                    "fitted order: gave up after {jumps} backjumps, {undone} starts undone"
                );
                return None;
            }
            let Some(h) = blame(&mut f, v0, &out) else {
                log::debug!("fitted order: no holder to blame after {jumps} backjumps");
                return None;
            };
            jumps += 1;
            while out.len() > pos[h as usize] as usize {
                let start = moves.pop().expect("a move") as usize;
                for &v in out[start..].iter().rev() {
                    f.unplace(v, |_| {});
                    ready.push(Reverse((rank[v as usize], v)));
                }
                undone += out.len() - start;
                out.truncate(start);
            }
            wait_for[h as usize] = v0;
            tried.clear();
            continue;
        };
        moves.push(out.len() as u32);
        for &v in &group {
            pos[v as usize] = out.len() as u32;
            out.push(v);
            f.place(v, |z| ready.push(Reverse((rank[z as usize], z))));
        }
        tried.clear();
    }
    if jumps > 0 {
        log::debug!("fitted order: {jumps} backjumps, {undone} starts undone");
    }
    Some(out)
}

/// A joint start with `v` that fits: for a predecessor `u` holding a type
/// `m` that `v` demands, every unplaced successor of `u` demanding `m`,
/// when all are ready, at most `MAX_JOINT` and within the cores of each
/// type (`SerialMemory::fits_jointly`). `tried`: the groups judged since
/// the last start (holders with the same pending successors, e.g. the sinks
/// of one op, give one group).
fn joint_start(f: &SerialMemory, v: u32, tried: &mut HashSet<Vec<u32>>) -> Option<Vec<u32>> {
    let g = f.graph();
    let mut holders = Vec::new();
    g.for_each_pred(v, |u| {
        for e in g.mems(v) {
            let p = f.pending(u, e.mem as usize) as usize;
            // p: the group's size, v included (at 1, v alone releases u).
            if (2..=MAX_JOINT).contains(&p) {
                holders.push((u, e.mem));
            }
        }
    });
    holders.sort_unstable();
    holders.dedup();
    let mut group = Vec::new();
    for (u, m) in holders {
        if !f.release_group(u, Some(m), &mut group) {
            continue;
        }
        if !tried.insert(group.clone()) {
            continue;
        }
        if f.fits_jointly(&group, &f.hand_overs(&group)) {
            return Some(group);
        }
    }
    None
}

/// The latest placed node of `out` that holds a type `v` (ready) lacks
/// to start alone.
fn blame(f: &mut SerialMemory, v: u32, out: &[u32]) -> Option<u32> {
    let g = f.graph();
    let lacks = f.lacks(v);
    let mut preds = Vec::new();
    g.for_each_pred(v, |u| preds.push(u));
    out.iter().rev().copied().find(|&u| {
        !preds.contains(&u)
            && g.mems(u).iter().any(|e| {
                let m = e.mem as usize;
                lacks.contains(&m) && f.pending(u, m) > 0
            })
    })
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

    /// Op 1's node holds 6 of memory 0 (size 10) until both nodes of op 2
    /// (5 each) have started: either alone does not fit beside the hold
    /// (6 + 5), both at once do (the hold ends as they start: 5 + 5). The
    /// fitted order starts them jointly, consecutively in the list, and the
    /// scheme's serial pass accepts it; on one core, or with a third node
    /// of op 2 (5 + 5 + 5), no move fits.
    #[test]
    fn a_hold_whose_successors_fit_only_together_ends_at_their_joint_start() {
        use crate::list::sgs::{Guide, Model};
        let long = Deadline::after(Duration::from_secs(600));
        for (cores, op2, fits) in [
            (2, "[[1,0,1],[2,0,1]],[[1,0,5],[2,0,5]]", true),
            (1, "[[1,0,1],[2,0,1]],[[1,0,5],[2,0,5]]", false),
            (
                3,
                "[[1,0,1],[2,0,1],[3,0,1]],[[1,0,5],[2,0,5],[3,0,5]]",
                false,
            ),
        ] {
            let text = format!(
                "SetSocInfo([[0,{cores}]],[[0,10]])\n\
                 AddOpInfo(1,1,0,[],[[1,0,1]],[[1,0,6]])\n\
                 AddOpInfo(2,2,0,[],{op2})\n\
                 GetInferenceScheResult([[1,2]],[[1,1,1],[2,2,2]])\n"
            );
            let inst = crate::instance::parse_reader(text.as_bytes(), "j.txt").expect("parses");
            let g = NodeGraph::new(&inst, vec![0, 1]).expect("a graph");
            let rank: Vec<u32> = (0..g.n_nodes() as u32).collect();
            let list = fitted_order(&g, &rank, &long);
            assert_eq!(list.is_some(), fits, "{cores} cores, {op2}");
            if let Some(list) = list {
                assert_eq!(list, vec![0, 1, 2]);
                let (_, s) = Guide::new(&Model::new(&g), &list, &long).expect("a guide");
                assert!(crate::schedule::check(&g, &s, 5).is_empty());
                assert_eq!((s.start[1], s.start[2]), (1, 1));
            }
        }
    }

    /// Memory 10. Op 1's node (5) holds until ops 3 and 4 (5 each) start,
    /// op 2's (5) until op 5 (1), which also follows op 3. In node order
    /// the greedy starts ops 1 and 2 (10 held) and is trapped: op 3 alone
    /// needs 15, ops 3 and 4 together 15, op 5 is not ready. The backjump
    /// undoes op 2, the latest holder of the type op 3 lacks, and holds it
    /// back until op 3 has started: ops 1, 3, 4, 2, 5, which the serial
    /// pass accepts.
    #[test]
    fn a_trap_is_undone_back_to_the_holder_that_closed_it() {
        use crate::list::sgs::{Guide, Model};
        let text = "SetSocInfo([[0,2]],[[0,10]])\n\
                    AddOpInfo(1,1,0,[],[[1,0,1]],[[1,0,5]])\n\
                    AddOpInfo(2,2,0,[],[[1,0,1]],[[1,0,5]])\n\
                    AddOpInfo(3,3,0,[],[[1,0,1]],[[1,0,5]])\n\
                    AddOpInfo(4,4,0,[],[[1,0,1]],[[1,0,5]])\n\
                    AddOpInfo(5,5,0,[],[[1,0,1]],[[1,0,1]])\n\
                    GetInferenceScheResult([[1,3],[1,4],[2,5],[3,5]],\
                    [[1,1,1],[2,2,2],[3,3,3],[4,4,4],[5,5,5]])\n";
        let inst = crate::instance::parse_reader(text.as_bytes(), "b.txt").expect("parses");
        let g = NodeGraph::new(&inst, (0..5).collect()).expect("a graph");
        let long = Deadline::after(Duration::from_secs(600));
        let list = fitted_order(&g, &[0, 1, 2, 3, 4], &long).expect("a list");
        assert_eq!(list, vec![0, 2, 3, 1, 4]);
        let (_, s) = Guide::new(&Model::new(&g), &list, &long).expect("a guide");
        assert!(crate::schedule::check(&g, &s, 5).is_empty());
    }

    /// `memory_order` keeps what each op's start releases up to date
    /// (module doc of the function: released by a successor exactly when it
    /// is the only one with sources of that type left unplaced). Replayed
    /// here from scratch at every step, on generated instances with one to
    /// four graphs, one to three memory types and drawn tiling choices: the
    /// ready ops in their order (latest enabled first), the first `SCAN`
    /// ranked by (in the focus graph, fits, score), each release and hold
    /// recomputed from the placed ops; every op of the order is the best so
    /// ranked.
    #[test]
    fn the_memory_order_ranks_as_if_recomputed_at_every_step() {
        use crate::generate::{GenConfig, generate};
        let mut checked = 0;
        for seed in 1..=24u64 {
            let mut rng = crate::rng::SplitMix64::new(seed);
            let cfg = GenConfig {
                seed,
                ops: 20 + rng.below(50) as u32,
                graphs: 1 + rng.below(4) as u32,
                mem_types: 1 + rng.below(3) as u32,
                density: 0.5 + rng.below(5) as f64 * 0.5,
                tightness: 0.3 + rng.below(8) as f64 * 0.1,
                ..GenConfig::default()
            };
            let made = generate(&cfg).expect("a generated instance");
            let inst = &made.instance;
            let choice: Vec<u32> = (0..inst.graph.n_ops() as u32)
                .map(|o| {
                    let ts: Vec<u32> = inst.usable_tilings(o).collect();
                    ts[rng.below_mod(ts.len())]
                })
                .collect();
            let g = NodeGraph::new(inst, choice).expect("a graph");
            let long = Deadline::after(Duration::from_secs(600));
            let order = memory_order(&g, &long).expect("in time");
            let (n_ops, n_mem) = (g.n_ops(), inst.platform.mems.len());
            let caps: Vec<u128> = inst.platform.mem_sizes();
            let scale: Vec<f64> = caps.iter().map(|&c| (c as f64).max(1.0)).collect();
            let peaks = crate::list::tiling::OpPeaks::new(&g);
            let comp = components(&g);
            let src = |o: u32, m: usize| {
                g.sources(o)
                    .flat_map(|v| g.mems(v))
                    .filter(|e| e.mem as usize == m)
                    .count()
            };
            let sink = |o: u32, m: usize| -> u128 {
                g.sinks(o)
                    .flat_map(|v| g.mems(v))
                    .filter(|e| e.mem as usize == m)
                    .map(|e| u128::from(e.amount))
                    .sum()
            };
            // Successors of `a` with m-sources other than `c` still unplaced.
            let others_left = |a: u32, m: usize, c: u32, placed: &[bool]| {
                g.op_succs(a)
                    .iter()
                    .any(|&d| d != c && !placed[d as usize] && src(d, m) > 0)
            };
            let mut placed = vec![false; n_ops];
            let mut stamp = vec![0u64; n_ops];
            let mut focus = u32::MAX;
            for (step, &chosen) in order.iter().enumerate() {
                let held: Vec<u128> = (0..n_mem)
                    .map(|m| {
                        (0..n_ops as u32)
                            .filter(|&a| placed[a as usize])
                            .filter(|&a| others_left(a, m, u32::MAX, &placed))
                            .map(|a| sink(a, m))
                            .sum()
                    })
                    .collect();
                let mut ready: Vec<u32> = (0..n_ops as u32)
                    .filter(|&o| !placed[o as usize])
                    .filter(|&o| g.op_preds(o).iter().all(|&a| placed[a as usize]))
                    .collect();
                ready.sort_by_key(|&o| (Reverse(stamp[o as usize]), o));
                let mut best: Option<((bool, bool, f64), u32)> = None;
                for &c in ready.iter().take(SCAN) {
                    let mut score = 0.0;
                    let mut fits = true;
                    for m in 0..n_mem {
                        let release: u128 = g
                            .op_preds(c)
                            .iter()
                            .filter(|&&a| src(c, m) > 0 && !others_left(a, m, c, &placed))
                            .map(|&a| sink(a, m))
                            .sum();
                        fits &= held[m] - release + peaks.of(c)[m] <= caps[m];
                        if release > 0 {
                            score += release as f64 / scale[m];
                        }
                        if g.op_succs(c).iter().any(|&d| src(d, m) > 0) {
                            score -= sink(c, m) as f64 / scale[m];
                        }
                    }
                    let rank = (comp[c as usize] == focus, fits, score);
                    let better = best.is_none_or(|((h, f, s), _)| rank > (h, f, s + 1e-12));
                    if better {
                        best = Some((rank, c));
                    }
                }
                assert_eq!(Some(chosen), best.map(|b| b.1), "seed {seed}, step {step}");
                placed[chosen as usize] = true;
                focus = comp[chosen as usize];
                for &c in g.op_succs(chosen) {
                    stamp[c as usize] = step as u64 + 1;
                }
                checked += 1;
            }
        }
        assert!(checked > 500, "{checked} steps checked");
    }
}
