//! Join kicks: forward-backward's kicks aimed at the holds of joins.
//!
//! A sink holds its memory until the same-type sources of its op's
//! successors start (problem.md §4.4), and a successor op `b` starts no
//! earlier than the last of its predecessor ops ends. So where `b` joins
//! an op `a` that ends early with an op `l` that ends late, `a`'s sinks hold
//! while `l` still runs: in the medium tight set's schedules such joins
//! make a third to a half of the memory held past node ends
//! (`tmin check --usage`, results/tight-sides.md). Node kicks, which move
//! a few nodes by a few places, and right justification, which cannot move
//! `a` past its other successors, leave them alone.
//!
//! A join kick takes the start order of a schedule and moves a whole cone
//! by a random part `step` of the gap `end(l) - end(a)`:
//!
//! - *later*: the nodes of `a` among the first `k` of the list (those
//!   starting by `a`'s first start plus `step`) and their descendants among
//!   them, kept in their order, to position `k` (after the rest of the
//!   first `k`);
//! - *earlier*: the nodes of `l` after the first `k` (those starting before
//!   `l`'s first start less `step`) and their ancestors after them, kept in
//!   their order, to position `k` (before the rest).
//!
//! The list stays topological. Later: the moved set `X` is closed under
//! successors within the first `k`, so a node of the first `k` outside `X`
//! has no predecessor in `X`, and it only moves earlier relative to `X`;
//! a predecessor outside `X` of a node of `X` is itself in the first `k`
//! (it comes before its successor), outside `X`, so before `X` still; the
//! nodes after `k` do not move. Earlier: the mirror image (`X` closed under
//! predecessors after `k`). So the insertion pass of the kicked list is a
//! legal schedule when it completes (`insertion.rs`); the kick's pass and
//! forward-backward after it are kept only when legal and shorter, as for
//! node kicks.
//!
//! The join is drawn with weight `gap` times the early op's sinks' demand
//! (each in units of its type's size): about the memory-time its sinks
//! hold waiting for the late one (exactly that where `b`'s sources demand
//! every type the sinks do).

use super::priority::Rng;
use crate::graph::NodeGraph;

/// Which way a join kick moved its cone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum JoinKick {
    /// The early predecessor op and its descendants, later in the list.
    Later(u32),
    /// The late predecessor op and its ancestors, earlier.
    Earlier(u32),
}

/// One join kick of `list` (a topological order of `g`'s nodes, ideally
/// the start order of `start`, a schedule of `g`), as in the module
/// comment; `None` (the list unchanged) where no join has predecessors
/// ending apart or the cone drawn is empty.
pub(super) fn join_kick(
    g: &NodeGraph,
    start: &[u64],
    list: &mut [u32],
    rng: &mut Rng,
) -> Option<JoinKick> {
    let mems = &g.inst.platform.mems;
    let n_ops = g.n_ops() as u32;
    // Ends past 2^64 (possible for a schedule from elsewhere) saturate.
    let op_end: Vec<Option<u64>> = crate::schedule::op_ends(g, start)
        .into_iter()
        .map(|e| e.map(|e| u64::try_from(e).unwrap_or(u64::MAX)))
        .collect();
    let share = |o: u32| -> f64 {
        g.sinks(o)
            .flat_map(|v| g.mems(v).iter())
            .map(|e| e.amount as f64 / mems[e.mem as usize].size.max(1) as f64)
            .sum()
    };
    // (early op, late op, gap, weight) of every join.
    let mut joins: Vec<(u32, u32, u64, f64)> = Vec::new();
    let mut total = 0.0;
    for b in 0..n_ops {
        let preds = g.op_preds(b);
        let late = preds
            .iter()
            .filter_map(|&a| op_end[a as usize].map(|e| (e, a)))
            .max();
        let Some((j, late)) = late else { continue };
        for &a in preds {
            if let Some(e) = op_end[a as usize].filter(|&e| e < j) {
                let w = (j - e) as f64 * share(a);
                if w > 0.0 {
                    total += w;
                    joins.push((a, late, j - e, w));
                }
            }
        }
    }
    let mut x = rng.unit() * total;
    let &(early, late, gap, _) = joins
        .iter()
        .find(|c| {
            x -= c.3;
            x <= 0.0
        })
        .or(joins.last())?;
    let step = 1 + rng.below(gap);
    let first_start = |o: u32| g.sources(o).map(|v| start[v as usize]).min().unwrap_or(0);
    let pos = super::search::positions(list);
    if rng.chance(0.5) {
        let to = first_start(early).saturating_add(step);
        let k = list.partition_point(|&v| start[v as usize] <= to);
        let roots = g.sources(early).filter(|&v| pos[v as usize] < k);
        let in_cone = cone(g, roots, |v| pos[v as usize] < k, true);
        regroup(&mut list[..k], &in_cone, false).then_some(JoinKick::Later(early))
    } else {
        let from = first_start(late).saturating_sub(step);
        let k = list.partition_point(|&v| start[v as usize] < from);
        let roots = g.sinks(late).filter(|&v| pos[v as usize] >= k);
        let in_cone = cone(g, roots, |v| pos[v as usize] >= k, false);
        regroup(&mut list[k..], &in_cone, true).then_some(JoinKick::Earlier(late))
    }
}

/// Per node, whether it is in the cone of `roots`: the roots and, through
/// edges down (`down`: successors) or up, every node reached through nodes
/// `inside` accepts.
fn cone(
    g: &NodeGraph,
    roots: impl Iterator<Item = u32>,
    inside: impl Fn(u32) -> bool,
    down: bool,
) -> Vec<bool> {
    let mut in_cone = vec![false; g.n_nodes()];
    let mut stack: Vec<u32> = Vec::new();
    for v in roots {
        in_cone[v as usize] = true;
        stack.push(v);
    }
    while let Some(v) = stack.pop() {
        let mut reach = |w: u32| {
            if inside(w) && !in_cone[w as usize] {
                in_cone[w as usize] = true;
                stack.push(w);
            }
        };
        if down {
            g.for_each_succ(v, &mut reach);
        } else {
            g.for_each_pred(v, &mut reach);
        }
    }
    in_cone
}

/// Puts the nodes of `part` in `cone` first (`cone_first`) or last, each
/// group in its order; false where that changes nothing.
fn regroup(part: &mut [u32], cone: &[bool], cone_first: bool) -> bool {
    let (moved, rest): (Vec<u32>, Vec<u32>) = part.iter().partition(|&&v| cone[v as usize]);
    let next = if cone_first {
        [moved, rest].concat()
    } else {
        [rest, moved].concat()
    };
    if next == part {
        return false;
    }
    part.copy_from_slice(&next);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{GenConfig, generate};

    /// Each node's place in `list`, which must hold each node once.
    fn places(list: &[u32]) -> Vec<usize> {
        let mut at = vec![usize::MAX; list.len()];
        for (k, &v) in list.iter().enumerate() {
            assert_eq!(at[v as usize], usize::MAX, "node {v} twice");
            at[v as usize] = k;
        }
        at
    }

    /// On generated instances with joins (several graphs, dense op edges),
    /// from the witness's start order: every kicked list is a permutation
    /// that keeps every node edge forward (the module comment's argument;
    /// leaving the descendants or ancestors out of the cone breaks it),
    /// the chosen op moves the way the kick says (its first node later or
    /// earlier in the list), and both kinds occur.
    #[test]
    fn join_kicks_keep_the_list_topological_and_move_their_op() {
        let (mut later, mut earlier) = (0, 0);
        for seed in 1..=6 {
            let cfg = GenConfig {
                seed,
                ops: 40,
                graphs: 2,
                density: 2.0,
                ..GenConfig::default()
            };
            let made = generate(&cfg).expect("a generated instance");
            let g = NodeGraph::new(&made.instance, made.witness.choice.clone()).expect("a graph");
            let start = &made.witness.start;
            let mut order: Vec<u32> = (0..g.n_nodes() as u32).collect();
            order.sort_by_key(|&v| start[v as usize]);
            let mut rng = Rng::new(seed);
            for _ in 0..200 {
                let mut list = order.clone();
                let Some(kick) = join_kick(&g, start, &mut list, &mut rng) else {
                    continue;
                };
                let at = places(&list);
                for v in 0..g.n_nodes() as u32 {
                    g.for_each_succ(v, |w| {
                        assert!(at[v as usize] < at[w as usize], "edge {v} -> {w} backwards")
                    });
                }
                let was = places(&order);
                let moved = |o: u32| {
                    g.sources(o)
                        .chain(g.sinks(o))
                        .any(|v| at[v as usize] != was[v as usize])
                };
                match kick {
                    JoinKick::Later(o) => {
                        later += 1;
                        assert!(moved(o), "{kick:?}");
                        assert!(g.sources(o).all(|v| at[v as usize] >= was[v as usize]));
                    }
                    JoinKick::Earlier(o) => {
                        earlier += 1;
                        assert!(moved(o), "{kick:?}");
                        assert!(g.sinks(o).all(|v| at[v as usize] <= was[v as usize]));
                    }
                }
            }
        }
        assert!(
            later > 50 && earlier > 50,
            "{later} later, {earlier} earlier"
        );
    }
}
