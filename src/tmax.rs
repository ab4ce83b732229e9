//! T_max, the reference "slow" makespan of the task book's score formula,
//! and the latest start any instance needs: both rest on compaction
//! (models/bounds.md §9).
//!
//! Definition: T_max is the sum, over every op, of the total node duration
//! of its slowest usable tiling (the tiling whose nodes' durations add up to
//! the most).
//!
//! What it guarantees: if the instance has a legal schedule S, it has one of
//! makespan at most T_max, so the optimum never exceeds it. Remove from S
//! every stretch of time where no node of positive duration runs, moving
//! everything after it earlier by its length (models/bounds.md §9,
//! compaction). Every run keeps its length and every pair of events keeps
//! its order (events that fall inside a removed stretch meet at its start),
//! so every rule holds as in S, and memory at each instant is what S held at
//! a matching instant. In the result some node runs at every instant before
//! the makespan, so the makespan is at most the sum of S's durations, at
//! most T_max. (Running S's nodes one at a time in their start order is not
//! an argument: where starts tie, a holder released in S by a successor
//! starting with `v` is still held when `v` starts in such a run.)
//!
//! What it does not guarantee: that a schedule under the slowest tilings is
//! legal (a tiling may hold more memory than another), nor that T_max is a
//! tight or meaningful upper bound for heuristics (it is deliberately
//! pessimistic: any schedule with parallelism scores above S_base).
//!
//! The latest start: in the compacted schedule a node `v` ends by the
//! makespan, at most the sum of the durations of the chosen tilings, so it
//! starts at most that sum less its own duration. tmin writes start times
//! in 64 bits (problem.md §6); an instance whose compacted schedules might
//! need a later start is refused where it would be solved or bounded
//! (`start_limit`), rather than proven infeasible for want of bits.

use crate::error::InputError;
use crate::instance::Instance;

/// Per library group (`(OpType, Shape)`), over its usable tilings: the
/// most work (sum of durations, exact), and the most of a tiling's work
/// less its shortest node (tilings with nodes only); `None` without a
/// usable tiling. Ops of one group share these, so each is computed once.
struct GroupWork {
    slowest: Option<u128>,
    latest: Option<u128>,
}

fn group_work(inst: &Instance) -> Vec<GroupWork> {
    let lib = &inst.library;
    lib.groups
        .iter()
        .map(|g| {
            let mut w = GroupWork {
                slowest: None,
                latest: None,
            };
            for &t in g
                .tilings
                .iter()
                .filter(|&&t| lib.tilings[t as usize].is_usable())
            {
                let durs = lib.tilings[t as usize]
                    .nodes()
                    .map(|v| u128::from(lib.node_dur[v as usize]));
                let (work, shortest) = durs
                    .fold((0u128, None), |(s, m): (u128, Option<u128>), d| {
                        (s + d, Some(m.map_or(d, |m| m.min(d))))
                    });
                w.slowest = Some(w.slowest.map_or(work, |x| x.max(work)));
                if let Some(p) = shortest {
                    w.latest = Some(w.latest.map_or(work - p, |x| x.max(work - p)));
                }
            }
            w
        })
        .collect()
}

/// T_max as defined above; `None` when some op has no usable tiling (the
/// instance is infeasible and has no score scale).
pub fn t_max(inst: &Instance) -> Option<u128> {
    t_max_of(inst, &group_work(inst))
}

fn t_max_of(inst: &Instance, groups: &[GroupWork]) -> Option<u128> {
    inst.graph
        .ops
        .iter()
        .map(|o| groups[o.group as usize].slowest)
        .sum()
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

/// The latest start a compacted legal schedule of `inst` may need: the
/// most, over every node `v` of a usable tiling, of T_max less its op's
/// slowest work, plus its tiling's work, less `v`'s duration (0 without
/// nodes or usable tilings).
pub fn latest_start(inst: &Instance) -> u128 {
    let groups = group_work(inst);
    let Some(total) = t_max_of(inst, &groups) else {
        return 0;
    };
    inst.graph
        .ops
        .iter()
        .filter_map(|o| {
            let g = &groups[o.group as usize];
            Some(total - g.slowest? + g.latest?)
        })
        .max()
        .unwrap_or(0)
}

/// Refuses (a located input error naming the limit) an instance whose
/// compacted schedules may need a start beyond 2^64 - 1: no engine could
/// write such a schedule, and an exact engine searching only the starts it
/// can write would prove infeasibility falsely.
pub fn start_limit(inst: &Instance) -> Result<(), InputError> {
    let latest = latest_start(inst);
    if latest <= u128::from(u64::MAX) {
        return Ok(());
    }
    Err(InputError::new(
        &inst.name,
        inst.graph.pos,
        format!(
            "a schedule of this instance may need start times up to {latest} (the durations of \
             its slowest tilings add up to {}), beyond {} = 2^64 - 1, the largest start time tmin \
             writes (problem.md §6)",
            t_max(inst).unwrap_or(0),
            u64::MAX
        ),
    ))
}
