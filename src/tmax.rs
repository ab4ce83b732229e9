//! T_max: the reference "slow" makespan of the task book's score formula.
//!
//! Definition: the sum, over every op, of the total node duration of its slowest
//! usable tiling (the tiling whose nodes' durations add up to the most). It is the
//! makespan of running every node alone, one after the other, under that choice.
//!
//! What it guarantees: if the instance has any legal schedule S, it has one of
//! makespan at most T_max, so the optimum never exceeds it. Take S's tiling choice
//! and run its nodes one at a time in the order of their start times in S (ties in
//! any order that respects the edges). Edges hold because a node starts in S after
//! its predecessors started and ended. Memory is claimed only when a node starts, so
//! it suffices to look at starts: when v starts in the serial run, the holders are
//! nodes earlier in the order whose same-type successors have not all started; each
//! of them started in S no later than v and still held at v's start in S. So the
//! serial run holds a subset of what S holds at every start, within capacity, and
//! its makespan is the sum of S's durations, at most T_max.
//!
//! What it does not guarantee: that the serial run under the slowest tilings is
//! itself legal (a tiling may hold more memory than another), nor that T_max is a
//! tight or meaningful upper bound for heuristics (it is deliberately pessimistic:
//! any schedule with parallelism scores above S_base).

use crate::instance::Instance;

/// Sum over tilings' nodes of durations, exact.
fn tiling_work(inst: &Instance, t: u32) -> u128 {
    let lib = &inst.library;
    lib.tilings[t as usize]
        .nodes()
        .map(|v| u128::from(lib.node_dur[v as usize]))
        .sum()
}

/// T_max as defined above; `None` when some op has no usable tiling (the
/// instance is infeasible and has no score scale).
pub fn t_max(inst: &Instance) -> Option<u128> {
    let mut total: u128 = 0;
    for op in 0..inst.graph.n_ops() as u32 {
        let worst = inst
            .usable_tilings(op)
            .map(|t| tiling_work(inst, t))
            .max()?;
        total += worst;
    }
    Some(total)
}

/// Smallest and largest node counts over every choice of usable tilings
/// (`None` when some op has none).
pub fn node_range(inst: &Instance) -> Option<(u64, u64)> {
    let (mut lo, mut hi) = (0u64, 0u64);
    for op in 0..inst.graph.n_ops() as u32 {
        let sizes = inst
            .usable_tilings(op)
            .map(|t| u64::from(inst.library.tilings[t as usize].n_nodes));
        let (a, b) = sizes.fold(None, |acc: Option<(u64, u64)>, n| match acc {
            None => Some((n, n)),
            Some((a, b)) => Some((a.min(n), b.max(n))),
        })?;
        lo += a;
        hi += b;
    }
    Some((lo, hi))
}
