//! The backward half of forward-backward improvement (justification).
//!
//! Given a schedule, schedule the reversed graph (successors first) with the
//! parallel scheme on cores only, latest-ending nodes first. Reverse ends give a
//! right-justified order; the next forward pass uses it as its priority, and the
//! forward pass alone (with the full memory rule) decides legality.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::graph::NodeGraph;

use super::priority::key_of;

/// Forward-pass keys from the backward schedule of `start` (higher = earlier).
pub fn backward_keys(g: &NodeGraph, start: &[u64]) -> Vec<u64> {
    let n = g.n_nodes();
    let n_ops = g.n_ops();
    let cores: Vec<u32> = g.inst.platform.cores.iter().map(|c| c.count).collect();
    // Reverse readiness: intra successors, and for sinks the sources of successor ops.
    let mut succ_left: Vec<u32> = (0..n as u32)
        .map(|v| g.intra_succs(v).count() as u32)
        .collect();
    let op_src: Vec<u32> = (0..n_ops as u32)
        .map(|b| g.sources(b).count() as u32)
        .collect();
    let mut rev_wait: Vec<u32> = (0..n_ops as u32)
        .map(|a| g.op_succs(a).iter().map(|&b| op_src[b as usize]).sum())
        .collect();
    let fwd_end: Vec<u64> = (0..n)
        .map(|v| start[v].saturating_add(g.dur(v as u32)))
        .collect();
    let mut ready: Vec<BinaryHeap<(u64, Reverse<u32>)>> =
        (0..cores.len()).map(|_| BinaryHeap::new()).collect();
    let mut ready_zero: BinaryHeap<(u64, Reverse<u32>)> = BinaryHeap::new();
    let push = |v: u32,
                ready: &mut Vec<BinaryHeap<(u64, Reverse<u32>)>>,
                ready_zero: &mut BinaryHeap<(u64, Reverse<u32>)>| {
        let item = (fwd_end[v as usize], Reverse(v));
        if g.dur(v) == 0 {
            ready_zero.push(item);
        } else {
            ready[g.core[v as usize] as usize].push(item);
        }
    };
    for op in 0..n_ops as u32 {
        if rev_wait[op as usize] == 0 {
            for v in g.sinks(op) {
                push(v, &mut ready, &mut ready_zero);
            }
        }
    }
    let mut free: Vec<u32> = cores.clone();
    let mut running: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::new();
    let mut rev_end = vec![0u64; n];
    let mut done = 0usize;
    let mut t = 0u64;
    loop {
        // Start what fits at t.
        while let Some((_, Reverse(v))) = ready_zero.pop() {
            running.push(Reverse((t, v)));
        }
        for c in 0..cores.len() {
            while free[c] > 0 {
                let Some((_, Reverse(v))) = ready[c].pop() else {
                    break;
                };
                free[c] -= 1;
                running.push(Reverse((t.saturating_add(g.dur(v)), v)));
            }
        }
        let Some(&Reverse((next, _))) = running.peek() else {
            break;
        };
        t = next;
        while let Some(&Reverse((e, v))) = running.peek() {
            if e != t {
                break;
            }
            running.pop();
            done += 1;
            rev_end[v as usize] = e;
            if g.dur(v) > 0 {
                free[g.core[v as usize] as usize] += 1;
            }
            for p in g.intra_preds(v) {
                succ_left[p as usize] -= 1;
                if succ_left[p as usize] == 0 {
                    push(p, &mut ready, &mut ready_zero);
                }
            }
            if g.is_source(v) {
                for &a in g.op_preds(g.node_op[v as usize]) {
                    rev_wait[a as usize] -= 1;
                    if rev_wait[a as usize] == 0 {
                        for s in g.sinks(a) {
                            if succ_left[s as usize] == 0 {
                                push(s, &mut ready, &mut ready_zero);
                            }
                        }
                    }
                }
            }
        }
    }
    debug_assert_eq!(done, n, "the reversed graph is acyclic");
    // Latest start = T - reverse end: a larger reverse end means an earlier start.
    rev_end.iter().map(|&e| key_of(1.0 + e as f64)).collect()
}
