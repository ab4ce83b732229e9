//! The independent graphs each scheduled alone, then packed in time.
//!
//! Each graph's own schedule (the list engine on the graph alone) is kept
//! whole and shifted: graph by graph, to the earliest offset at which its
//! held memory of each type and its running nodes of each core type, added
//! to those of the graphs placed before, stay within the capacities at
//! every instant. Legal wherever each graph's own schedule is: no op edge
//! joins two graphs (`Instance::independent_graphs`), so a shift keeps
//! precedence; a node's hold ends at its own end or a successor's start
//! (problem.md §4.4), both inside its graph, so a graph's holds shift with
//! it and the sums checked are the memory held at each instant; the core
//! counts are checked the same way and core ids assigned afresh
//! (`Schedule::with_cores`). One after another (each at the previous one's
//! end) always fits, so the packing never fails. The validator checks the
//! whole as every schedule.
//!
//! The list engine's way to a schedule where every pass over the whole
//! traps memory but each graph alone can be scheduled (30 copies of a
//! memory-tight instance: every order the passes and the searched serial
//! order try opens ops of several copies at once, results/policy.md).

use std::collections::HashMap;
use std::time::Duration;

use crate::graph::NodeGraph;
use crate::instance::Instance;
use crate::schedule::{Schedule, end, memory_profile};
use crate::solve::SolveOptions;
use crate::stop::Deadline;

use super::{Found, ListOptions};

/// A step function of time: `(t, level from t on)`, `t` increasing, level
/// 0 before the first step and after the last (which has level 0).
type Steps = Vec<(u128, u128)>;

/// One graph's schedule with what it uses over time.
struct Part<'i> {
    ops: &'i [u32],
    /// Its tiling choice and, per op, its nodes' starts (in the tiling's
    /// node order): the graph's own instance is dropped once it is read.
    choice: Vec<u32>,
    starts: Vec<Vec<u64>>,
    /// Per resource (the memory types, then the core types): its use.
    uses: Vec<Steps>,
}

/// Schedules each graph of `graphs` (op index lists, as
/// `Instance::independent_graphs` gives them) alone on an equal share of
/// the time left (what one leaves goes to the next), then packs them.
/// `Err`: the first graph without a schedule in its time (after a second
/// try), or a time beyond 64 bits.
pub fn schedule(
    inst: &Instance,
    graphs: &[Vec<u32>],
    lopts: &ListOptions,
    seed: u64,
    deadline: &Deadline,
) -> Result<Found, String> {
    // Graphs alike (the same groups in op order, the same op edges between
    // them: the same instance up to op ids) are scheduled once. Each graph
    // of its own on an equal share of the time left, stopping where its
    // sampling stalls (the incumbent step's patience: most graphs are
    // small and leave most of their share to the others); a graph without
    // a schedule in its share is tried again, once every graph had its
    // turn, on an equal share of what is left then.
    let lopts = ListOptions {
        patience: Some(super::INCUMBENT_PATIENCE),
        ..lopts.clone()
    };
    let signatures: Vec<Signature> = graphs.iter().map(|ops| signature(inst, ops)).collect();
    let mut first_alike: HashMap<&Signature, usize> = HashMap::new();
    let like: Vec<usize> = (0..graphs.len())
        .map(|i| *first_alike.entry(&signatures[i]).or_insert(i))
        .collect();
    let mut done: Vec<Option<Part>> = (0..graphs.len()).map(|_| None).collect();
    for round in 0..2 {
        let todo: Vec<usize> = (0..graphs.len())
            .filter(|&i| like[i] == i && done[i].is_none())
            .collect();
        for (k, &i) in todo.iter().enumerate() {
            if deadline.expired() {
                break;
            }
            let share = deadline.remaining() / (todo.len() - k) as u32;
            let seed = seed.wrapping_add((i + round * graphs.len()) as u64);
            done[i] = alone(inst, &graphs[i], &lopts, seed, share, deadline)?;
        }
    }
    let mut parts: Vec<Part> = Vec::with_capacity(graphs.len());
    for (i, ops) in graphs.iter().enumerate() {
        let Some(p) = &done[like[i]] else {
            return Err(format!(
                "graph {} of {} (first op {}): no schedule alone in its time",
                i + 1,
                graphs.len(),
                inst.graph.ops[ops[0] as usize].id
            ));
        };
        parts.push(Part {
            ops,
            choice: p.choice.clone(),
            starts: p.starts.clone(),
            uses: p.uses.clone(),
        });
    }
    let caps: Vec<u128> = (inst.platform.mems.iter().map(|m| u128::from(m.size)))
        .chain(inst.platform.cores.iter().map(|c| u128::from(c.count)))
        .collect();
    let mut used: Vec<Steps> = vec![Vec::new(); caps.len()];
    let mut offsets = Vec::with_capacity(parts.len());
    // The end of what is placed: past the deadline the rest go there, one
    // after another (which fits), without adding up their use.
    let mut end_all: u128 = 0;
    for p in &parts {
        let length = p.uses.iter().filter_map(|u| u.last()).map(|s| s.0).max();
        let o = if deadline.expired() {
            end_all
        } else {
            let o = earliest_fit(&used, &p.uses, &caps, deadline);
            for (u, add) in used.iter_mut().zip(&p.uses) {
                *u = sum(u, add, o);
            }
            o
        };
        end_all = end_all.max(o + length.unwrap_or(0));
        offsets.push(o);
    }
    compose(inst, &parts, &offsets, graphs.len())
}

/// What makes two graphs alike: their ops' groups in op order and their
/// op edges between local indices (`Instance::edges_among`, as
/// `Instance::restricted_to` builds its graph from).
type Signature = (Vec<u32>, Vec<(u32, u32)>);

fn signature(inst: &Instance, ops: &[u32]) -> Signature {
    let groups = ops
        .iter()
        .map(|&o| inst.graph.ops[o as usize].group)
        .collect();
    (groups, inst.edges_among(ops))
}

/// Graph `ops` scheduled alone on `share` of the time (within
/// `deadline`): `None` where no schedule came; `Err` where a hold of its
/// schedule lasts beyond 64 bits.
fn alone<'i>(
    inst: &Instance,
    ops: &'i [u32],
    lopts: &ListOptions,
    seed: u64,
    share: Duration,
    deadline: &Deadline,
) -> Result<Option<Part<'i>>, String> {
    let sub = inst.restricted_to(ops);
    let opts = SolveOptions {
        time_limit: share.max(Duration::from_millis(1)),
        seed,
        cancel: deadline.cancel.clone(),
        ..SolveOptions::default()
    };
    let bounds = crate::bounds::combinatorial::lower_bounds(&sub);
    let r = super::solve_with_bounds(&sub, &opts, lopts, &bounds);
    let Some(schedule) = r.schedule else {
        return Ok(None);
    };
    let gs = NodeGraph::new(&sub, schedule.choice.clone())?;
    let uses = uses(&gs, &schedule);
    // A hold released at 2^64 or later never ends in its profile.
    if uses.iter().any(|u| u.last().is_some_and(|s| s.1 != 0)) {
        return Err("a hold beyond 64 bits".to_string());
    }
    let starts = (0..ops.len() as u32)
        .map(|j| gs.op_nodes(j).map(|w| schedule.start[w as usize]).collect())
        .collect();
    Ok(Some(Part {
        ops,
        uses,
        choice: schedule.choice,
        starts,
    }))
}

/// The whole schedule of the parts at their offsets.
fn compose(
    inst: &Instance,
    parts: &[Part],
    offsets: &[u128],
    n_graphs: usize,
) -> Result<Found, String> {
    let mut choice = vec![0u32; inst.graph.n_ops()];
    for p in parts {
        for (j, &o) in p.ops.iter().enumerate() {
            choice[o as usize] = p.choice[j];
        }
    }
    let g = NodeGraph::new(inst, choice.clone())?;
    let mut start = vec![0u64; g.n_nodes()];
    let mut makespan: u128 = 0;
    for (p, &off) in parts.iter().zip(offsets) {
        for (&o, starts) in p.ops.iter().zip(&p.starts) {
            // The same tiling in both graphs: its nodes in the same order.
            for (v, &s) in g.op_nodes(o).zip(starts) {
                let s = u64::try_from(off + u128::from(s)).map_err(|_| "a start beyond 64 bits")?;
                start[v as usize] = s;
                makespan = makespan.max(end(s, g.dur(v)));
            }
        }
    }
    let makespan = u64::try_from(makespan).map_err(|_| "a makespan beyond 64 bits")?;
    let schedule = Schedule::with_cores(
        inst,
        choice,
        start,
        |v| g.dur(v as u32),
        |v| g.core[v] as usize,
    );
    Ok(Found {
        schedule,
        makespan,
        how: format!("the {n_graphs} independent graphs, each scheduled alone, packed in time"),
        list: None,
    })
}

/// What graph schedule `s` (on its node graph `g`) uses over time: the
/// memory held of each type (the validator's own profile), then the nodes
/// running on each core type (ends before starts at one instant, as the
/// validator counts).
fn uses(g: &NodeGraph, s: &Schedule) -> Vec<Steps> {
    let platform = &g.inst.platform;
    let mut out: Vec<Steps> = (0..platform.mems.len())
        .map(|m| memory_profile(g, s, m as crate::instance::TypeIdx))
        .collect();
    for c in 0..platform.cores.len() {
        let mut ev: Vec<(u128, i64)> = Vec::new();
        for v in 0..g.n_nodes() as u32 {
            if g.core[v as usize] as usize == c && g.dur(v) > 0 {
                ev.push((u128::from(s.start[v as usize]), 1));
                ev.push((end(s.start[v as usize], g.dur(v)), -1));
            }
        }
        ev.sort_unstable();
        let mut level: i64 = 0;
        let mut steps: Steps = Vec::new();
        for (t, d) in ev {
            level += d;
            let l = level as u128;
            match steps.last_mut() {
                Some(last) if last.0 == t => last.1 = l,
                Some(last) if last.1 == l => {}
                _ => steps.push((t, l)),
            }
        }
        out.push(steps);
    }
    out
}

/// `a` plus `b` shifted by `off` (a merge of the two, linear).
fn sum(a: &Steps, b: &Steps, off: u128) -> Steps {
    let mut out: Steps = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    let (mut la, mut lb) = (0u128, 0u128);
    while i < a.len() || j < b.len() {
        let t = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => x.0.min(y.0 + off),
            (Some(x), None) => x.0,
            (None, Some(y)) => y.0 + off,
            (None, None) => break,
        };
        if a.get(i).is_some_and(|x| x.0 == t) {
            la = a[i].1;
            i += 1;
        }
        if b.get(j).is_some_and(|y| y.0 + off == t) {
            lb = b[j].1;
            j += 1;
        }
        if out.last().is_none_or(|p| p.1 != la + lb) {
            out.push((t, la + lb));
        }
    }
    out
}

/// The least offset at which `add` fits beside `used` within `caps`, or
/// the end of `used` (where everything fits: each part is legal alone)
/// once `deadline` has passed. At an offset where a step of `add` over
/// `[from, to)` meets steps of `used` too high beside it, every offset
/// that leaves its start before the end `e` of the last such step keeps
/// that overlap, so the next one tried is `off + e - from`.
fn earliest_fit(used: &[Steps], add: &[Steps], caps: &[u128], deadline: &Deadline) -> u128 {
    let last = used
        .iter()
        .filter_map(|u| u.last())
        .map(|s| s.0)
        .max()
        .unwrap_or(0);
    let mut off: u128 = 0;
    let mut tries = 0u32;
    'offsets: while off < last {
        tries += 1;
        if tries.is_multiple_of(256) && deadline.expired() {
            return last;
        }
        for ((u, a), &cap) in used.iter().zip(add).zip(caps) {
            if let Some(skip) = conflict(u, a, off, cap) {
                off = off.saturating_add(skip).min(last);
                continue 'offsets;
            }
        }
        return off;
    }
    last
}

/// Where `u` plus `a` shifted by `off` exceeds `cap`: for the first step of
/// `a` that meets such a step of `u`, the distance from its start to the
/// end of the last such step of `u` it meets; `None`: it fits.
fn conflict(u: &Steps, a: &Steps, off: u128, cap: u128) -> Option<u128> {
    for (k, &(at, l)) in a.iter().enumerate() {
        if l == 0 {
            continue;
        }
        let (from, to) = (at + off, a.get(k + 1).map_or(u128::MAX, |p| p.0 + off));
        // The steps of `u` that meet [from, to), the last too high.
        let mut i = u.partition_point(|p| p.0 <= from).saturating_sub(1);
        let mut high_end = None;
        while i < u.len() && u[i].0 < to {
            if u[i].1 + l > cap {
                high_end = Some(u.get(i + 1).map_or(u128::MAX, |p| p.0));
            }
            i += 1;
        }
        if let Some(e) = high_end {
            return Some(e - from);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{Steps, earliest_fit, sum};
    use crate::stop::Deadline;

    /// The level of `s` at `t`.
    fn level_at(s: &Steps, t: u128) -> u128 {
        match s.partition_point(|p| p.0 <= t) {
            0 => 0,
            k => s[k - 1].1,
        }
    }

    /// A random step function over `[0, 12)` with levels up to 3, ending at 0.
    fn steps(rng: &mut crate::rng::SplitMix64) -> Steps {
        let mut s: Steps = Vec::new();
        let mut t = rng.below(3) as u128;
        while t < 12 {
            let l = rng.below(4) as u128;
            if s.last().is_none_or(|p| p.1 != l) {
                s.push((t, l));
            }
            t += 1 + rng.below(3) as u128;
        }
        if s.last().is_some_and(|p| p.1 != 0) {
            s.push((t, 0));
        }
        s
    }

    /// Whether `add` shifted by `off` fits beside `used` under `cap` at every
    /// integer instant (the steps change at integers only).
    fn fits(used: &[Steps], add: &[Steps], caps: &[u128], off: u128) -> bool {
        (0..64u128).all(|t| {
            used.iter().zip(add).zip(caps).all(|((u, a), &c)| {
                level_at(u, t) + t.checked_sub(off).map_or(0, |x| level_at(a, x)) <= c
            })
        })
    }

    /// The offset search returns the least offset that fits (the skip
    /// argument of models/list.md, "Independent graphs packed in time"),
    /// against every offset tried in turn, on two resources at once; and
    /// `sum` adds the shifted steps pointwise.
    #[test]
    fn the_offset_search_finds_the_least_fitting_offset() {
        let mut rng = crate::rng::SplitMix64::new(7);
        let caps = [4u128, 5];
        let mut skipped = 0;
        for _ in 0..2000 {
            let add: Vec<Steps> = (0..2).map(|_| steps(&mut rng)).collect();
            if add
                .iter()
                .zip(&caps)
                .any(|(a, &c)| a.iter().any(|p| p.1 > c))
            {
                continue;
            }
            let mut used: Vec<Steps> = vec![Vec::new(); 2];
            for _ in 0..3 {
                let extra: Vec<Steps> = (0..2).map(|_| steps(&mut rng)).collect();
                let o = rng.below(4) as u128;
                if fits(&used, &extra, &caps, o) {
                    used = used.iter().zip(&extra).map(|(u, e)| sum(u, e, o)).collect();
                }
            }
            let least = (0..64u128).find(|&o| fits(&used, &add, &caps, o)).unwrap();
            let forever = Deadline::after(std::time::Duration::from_secs(3600));
            assert_eq!(
                earliest_fit(&used, &add, &caps, &forever),
                least,
                "{used:?} {add:?}"
            );
            skipped += usize::from(least > 0);
            for (u, e) in used.iter().zip(&add) {
                let s = sum(u, e, 3);
                for t in 0..64u128 {
                    let want = level_at(u, t) + t.checked_sub(3).map_or(0, |x| level_at(e, x));
                    assert_eq!(level_at(&s, t), want);
                }
            }
        }
        assert!(skipped > 100, "{skipped} cases needed an offset");
    }
}
