//! Where a legal schedule's time goes (`tmin check --usage`): how long each
//! memory type is held against how long its nodes run, how busy each core
//! type is, and the waits of the schedule's critical chain.
//!
//! The chain is the schedule's own account of its makespan. Start from a
//! node that ends last and step back to a predecessor that ends last until a
//! node has none. Each step's node starts at or after that predecessor's end
//! (precedence), so the makespan is the first node's start plus, over the
//! chain, every node's run and every node's wait `start - ready`, where
//! `ready` is the latest end of its predecessors: the sum telescopes. A wait
//! with every core of the node's type busy is the cores'; a wait with one
//! free is memory's or the order's (nothing else holds a ready node back).
//!
//! Held memory is what the nodes run plus, per node, its amount times
//! `R - end` (its release after its end, problem.md §4.4): `held = run +
//! past`. `Past` splits that second part by what set `R`. A same-type
//! successor inside the op: `in_op`. Otherwise (a sink) the latest-starting
//! same-type source of a successor op `b`, which starts no earlier than
//! every sink of every predecessor op of `b` ends; so with `A` the end of the
//! node's own op (its last sink) and `J` the latest end of `b`'s predecessor
//! ops, `end <= A <= J <= R`, and `R - end` is `A - end` (`op_sinks`: the
//! op's other sinks), `J - A` (`join`: another predecessor op of `b` ends
//! later) and `R - J` (`successor_wait`: `b` was ready and waited for cores,
//! memory or the order).

use crate::graph::NodeGraph;
use crate::instance::TypeIdx;

use super::check::sources_latest;
use super::{Schedule, end, memory_profile, op_ends};

/// One memory type's use over `[0, makespan)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryUse {
    /// The type's id, as in the input.
    pub id: u32,
    pub size: u64,
    /// The most held at an instant.
    pub peak: u128,
    /// The held amount integrated over time (problem.md §4 rule 4: from a
    /// node's start until its release).
    pub held: u128,
    /// The part of `held` while the nodes run: demand times duration.
    pub run: u128,
    /// The rest of `held`, by what kept each hold open (module comment).
    pub past: Past,
}

/// Held memory past its nodes' ends, by cause (module comment); the four add
/// up to `held - run`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Past {
    /// Until a same-type successor inside the node's op starts.
    pub in_op: u128,
    /// A sink's, until its op's last sink ends.
    pub op_sinks: u128,
    /// From there until the successor op's other predecessor ops end.
    pub join: u128,
    /// From there until that successor op's source starts.
    pub successor_wait: u128,
}

impl Past {
    pub fn total(&self) -> u128 {
        self.in_op + self.op_sinks + self.join + self.successor_wait
    }
}

/// One core type's use over `[0, makespan)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoreUse {
    /// The type's id, as in the input.
    pub id: u32,
    pub cores: u32,
    /// The durations of its nodes, added up.
    pub busy: u128,
}

/// The schedule's critical chain (module comment):
/// `start + work + wait_cores_busy + wait_core_free` is the makespan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chain {
    pub nodes: usize,
    /// Ops with a node on the chain.
    pub ops: usize,
    /// The start of its first node (one without predecessors).
    pub start: u128,
    /// Its nodes' durations.
    pub work: u128,
    /// Waits of its nodes while every core of their type was busy.
    pub wait_cores_busy: u128,
    /// Waits of its nodes while a core of their type was free.
    pub wait_core_free: u128,
}

/// What `usage` finds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Usage {
    pub makespan: u128,
    pub memory: Vec<MemoryUse>,
    pub cores: Vec<CoreUse>,
    pub chain: Chain,
}

/// The use of a legal schedule `s` of graph `g` (the validator's hold rule,
/// `memory_profile`, for the memory).
pub fn usage(g: &NodeGraph, s: &Schedule) -> Usage {
    let platform = &g.inst.platform;
    let (run, load) = g.areas_and_loads();
    let op_end: Vec<u128> = op_ends(g, &s.start)
        .into_iter()
        .map(|e| e.unwrap_or(0))
        .collect();
    let memory = platform
        .mems
        .iter()
        .zip(run)
        .enumerate()
        .map(|(m, (t, run))| {
            let steps = memory_profile(g, s, m as TypeIdx);
            let held = steps.windows(2).map(|w| w[0].1 * (w[1].0 - w[0].0)).sum();
            MemoryUse {
                id: t.id,
                size: t.size,
                peak: steps.iter().map(|p| p.1).max().unwrap_or(0),
                held,
                run,
                past: past(g, s, m as TypeIdx, &op_end),
            }
        })
        .collect();
    let busy = busy_steps(g, s);
    let cores = platform
        .cores
        .iter()
        .zip(load)
        .map(|(t, busy)| CoreUse {
            id: t.id,
            cores: t.count,
            busy,
        })
        .collect();
    Usage {
        makespan: s.makespan(g),
        memory,
        cores,
        chain: chain(g, s, &busy),
    }
}

/// Type `m`'s held memory past its nodes' ends, by cause (module comment).
fn past(g: &NodeGraph, s: &Schedule, m: TypeIdx, op_end: &[u128]) -> Past {
    let src_latest = sources_latest(g, s, m);
    let mut p = Past::default();
    for v in 0..g.n_nodes() as u32 {
        let d = u128::from(g.demand(v, m));
        if d == 0 {
            continue;
        }
        let e = end(s.start[v as usize], g.dur(v));
        let intra = g
            .intra_succs(v)
            .filter(|&w| g.demand(w, m) > 0)
            .map(|w| u128::from(s.start[w as usize]))
            .max()
            .unwrap_or(0);
        let op = g.node_op[v as usize];
        let cross = if g.is_sink(v) {
            g.op_succs(op)
                .iter()
                .filter_map(|&b| src_latest[b as usize].map(|t| (u128::from(t), b)))
                .max()
        } else {
            None
        };
        match cross {
            Some((r, b)) if r > e && r >= intra => {
                let a = op_end[op as usize];
                let j = g
                    .op_preds(b)
                    .iter()
                    .map(|&x| op_end[x as usize])
                    .max()
                    .unwrap_or(0);
                // end <= A <= J <= R in a legal schedule; clamped all the same.
                let a = a.clamp(e, r);
                let j = j.clamp(a, r);
                p.op_sinks += (a - e) * d;
                p.join += (j - a) * d;
                p.successor_wait += (r - j) * d;
            }
            _ if intra > e => p.in_op += (intra - e) * d,
            _ => {}
        }
    }
    p
}

/// Per core type, the number of its nodes running as steps `(t, from t on)`
/// in increasing `t` (zero-duration nodes occupy nothing).
fn busy_steps(g: &NodeGraph, s: &Schedule) -> Vec<Vec<(u128, u32)>> {
    let mut events: Vec<Vec<(u128, i64)>> = vec![Vec::new(); g.inst.platform.cores.len()];
    for v in 0..g.n_nodes() as u32 {
        if g.dur(v) > 0 {
            let from = s.start[v as usize];
            let e = &mut events[g.core[v as usize] as usize];
            e.push((u128::from(from), 1));
            e.push((end(from, g.dur(v)), -1));
        }
    }
    events
        .into_iter()
        .map(|mut e| {
            e.sort_unstable();
            let mut out: Vec<(u128, u32)> = Vec::new();
            let mut running = 0i64;
            for (t, d) in e {
                running += d;
                match out.last_mut() {
                    Some(last) if last.0 == t => last.1 = running as u32,
                    _ => out.push((t, running as u32)),
                }
            }
            out
        })
        .collect()
}

/// How much of `[from, to)` a step function `steps` (as `busy_steps`
/// builds) spends at `cores` or more.
fn full_within(steps: &[(u128, u32)], cores: u32, from: u128, to: u128) -> u128 {
    let first = steps.partition_point(|p| p.0 <= from).saturating_sub(1);
    let mut full = 0;
    for (k, &(t, n)) in steps.iter().enumerate().skip(first) {
        if t >= to {
            break;
        }
        let next = steps.get(k + 1).map_or(to, |p| p.0.min(to));
        if n >= cores && next > from {
            full += next - t.max(from);
        }
    }
    full
}

fn chain(g: &NodeGraph, s: &Schedule, busy: &[Vec<(u128, u32)>]) -> Chain {
    let end_of = |v: u32| end(s.start[v as usize], g.dur(v));
    let Some(mut v) = (0..g.n_nodes() as u32).max_by_key(|&v| end_of(v)) else {
        return Chain::default();
    };
    let mut c = Chain::default();
    let mut ops: Vec<u32> = Vec::new();
    loop {
        c.nodes += 1;
        c.work += u128::from(g.dur(v));
        ops.push(g.node_op[v as usize]);
        let mut last: Option<u32> = None;
        g.for_each_pred(v, |p| {
            if last.is_none_or(|l| end_of(p) > end_of(l)) {
                last = Some(p);
            }
        });
        let start = u128::from(s.start[v as usize]);
        let Some(p) = last else {
            c.start = start;
            break;
        };
        let ready = end_of(p);
        if start > ready {
            let ct = g.core[v as usize] as usize;
            let cores = g.inst.platform.cores[ct].count;
            let full = full_within(&busy[ct], cores, ready, start);
            c.wait_cores_busy += full;
            c.wait_core_free += start - ready - full;
        }
        v = p;
    }
    ops.sort_unstable();
    ops.dedup();
    c.ops = ops.len();
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `full_within` against a unit-by-unit count on a step function with
    /// steps at, inside and beyond the windows asked.
    #[test]
    fn full_within_counts_each_instant_at_capacity() {
        let steps = [(0u128, 1u32), (3, 2), (5, 1), (6, 2), (9, 0)];
        let level = |t: u128| steps.iter().rev().find(|p| p.0 <= t).map_or(0, |p| p.1);
        for from in 0..12u128 {
            for to in from..12 {
                let by_unit = (from..to).filter(|&t| level(t) >= 2).count() as u128;
                assert_eq!(full_within(&steps, 2, from, to), by_unit, "[{from}, {to})");
            }
        }
    }
}
