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
/// `Err`: the first graph without a schedule in its time, or a makespan
/// beyond 64 bits.
pub fn schedule(
    inst: &Instance,
    graphs: &[Vec<u32>],
    lopts: &ListOptions,
    seed: u64,
    deadline: &Deadline,
) -> Result<Found, String> {
    let mut parts: Vec<Part> = Vec::with_capacity(graphs.len());
    for (i, ops) in graphs.iter().enumerate() {
        if deadline.expired() {
            return Err(format!(
                "no time left for graph {} of {}",
                i + 1,
                graphs.len()
            ));
        }
        let sub = inst.restricted_to(ops);
        let share = deadline.remaining() / (graphs.len() - i) as u32;
        let opts = SolveOptions {
            time_limit: share.max(Duration::from_millis(1)),
            seed: seed.wrapping_add(i as u64),
            cancel: deadline.cancel.clone(),
            ..SolveOptions::default()
        };
        let bounds = crate::bounds::combinatorial::lower_bounds(&sub);
        let r = super::solve_with_bounds(&sub, &opts, lopts, &bounds);
        let Some(schedule) = r.schedule else {
            return Err(format!(
                "graph {} of {} (first op {}): no schedule alone",
                i + 1,
                graphs.len(),
                inst.graph.ops[ops[0] as usize].id
            ));
        };
        let gs = NodeGraph::new(&sub, schedule.choice.clone())?;
        let uses = uses(&gs, &schedule);
        // A hold released at 2^64 or later never ends in its profile.
        if uses.iter().any(|u| u.last().is_some_and(|s| s.1 != 0)) {
            return Err(format!("graph {}: a hold beyond 64 bits", i + 1));
        }
        let starts = (0..ops.len() as u32)
            .map(|j| gs.op_nodes(j).map(|w| schedule.start[w as usize]).collect())
            .collect();
        parts.push(Part {
            ops,
            uses,
            choice: schedule.choice,
            starts,
        });
    }
    let caps: Vec<u128> = (inst.platform.mems.iter().map(|m| u128::from(m.size)))
        .chain(inst.platform.cores.iter().map(|c| u128::from(c.count)))
        .collect();
    let mut used: Vec<Steps> = vec![Vec::new(); caps.len()];
    let mut offsets = Vec::with_capacity(parts.len());
    for p in &parts {
        // Past the deadline, at the end of what is placed (which fits).
        let o = if deadline.expired() {
            used.iter()
                .filter_map(|u| u.last())
                .map(|s| s.0)
                .max()
                .unwrap_or(0)
        } else {
            earliest_fit(&used, &p.uses, &caps)
        };
        for (u, add) in used.iter_mut().zip(&p.uses) {
            *u = sum(u, add, o);
        }
        offsets.push(o);
    }
    compose(inst, &parts, &offsets, graphs.len())
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

/// The level of `s` at `t`.
fn level_at(s: &Steps, t: u128) -> u128 {
    match s.partition_point(|p| p.0 <= t) {
        0 => 0,
        k => s[k - 1].1,
    }
}

/// `a` plus `b` shifted by `off`.
fn sum(a: &Steps, b: &Steps, off: u128) -> Steps {
    let mut ts: Vec<u128> = a.iter().map(|p| p.0).collect();
    ts.extend(b.iter().map(|p| p.0 + off));
    ts.sort_unstable();
    ts.dedup();
    let mut out: Steps = Vec::with_capacity(ts.len());
    for t in ts {
        let l = level_at(a, t) + t.checked_sub(off).map_or(0, |u| level_at(b, u));
        if out.last().is_none_or(|p| p.1 != l) {
            out.push((t, l));
        }
    }
    out
}

/// The least offset at which `add` fits beside `used` within `caps`. At a
/// conflict at time `t` (on the timeline of `used`), no offset that keeps
/// the same point of `add` inside the same step of `used` fits either, so
/// the next one tried moves that point to the step's end; past the end of
/// `used` everything fits (each part is legal alone).
fn earliest_fit(used: &[Steps], add: &[Steps], caps: &[u128]) -> u128 {
    let last = used
        .iter()
        .filter_map(|u| u.last())
        .map(|s| s.0)
        .max()
        .unwrap_or(0);
    let mut off: u128 = 0;
    'offsets: while off < last {
        for ((u, a), &cap) in used.iter().zip(add).zip(caps) {
            if let Some((t, next)) = conflict(u, a, off, cap) {
                off = off.saturating_add(next - t).min(last);
                continue 'offsets;
            }
        }
        return off;
    }
    last
}

/// The first instant `t` at which `u` plus `a` shifted by `off` exceeds
/// `cap`, with the end of `u`'s step there; `None`: no such instant.
fn conflict(u: &Steps, a: &Steps, off: u128, cap: u128) -> Option<(u128, u128)> {
    for (k, &(at, l)) in a.iter().enumerate() {
        if l == 0 {
            continue;
        }
        let (from, to) = (at + off, a.get(k + 1).map_or(u128::MAX, |p| p.0 + off));
        // The steps of `u` that meet [from, to).
        let mut i = u.partition_point(|p| p.0 <= from).saturating_sub(1);
        while i < u.len() && u[i].0 < to {
            let (t, level) = if u[i].0 < from { (from, u[i].1) } else { u[i] };
            if level + l > cap {
                let next = u.get(i + 1).map_or(u128::MAX, |p| p.0);
                return Some((t, next));
            }
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{Steps, earliest_fit, level_at, sum};

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
            assert_eq!(earliest_fit(&used, &add, &caps), least, "{used:?} {add:?}");
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
