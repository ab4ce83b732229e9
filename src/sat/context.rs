//! Refuting tiling choices on small sub-instances (models/sat.md §1.2).
//!
//! Restricting a legal schedule to a set of ops gives a legal schedule of the
//! sub-instance those ops induce (their op edges only): precedence and cores
//! still hold, and every hold only shrinks (successors outside the set no
//! longer extend it). So when the sub-instance of an op with one tiling and
//! its neighbouring ops (each with every candidate) has no legal schedule, no
//! schedule of the instance uses that tiling; likewise for a pair of tilings
//! of two related ops (adjacent, or with a common neighbour op), with both
//! ops' neighbours. Each sub-instance is one
//! SAT call at its own horizon (§1.4). A tiling can be legal alone and still
//! be refuted here: its sinks hold memory until a successor op starts, and
//! no tiling of that successor fits beside them.

use std::cell::Cell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::MAX_TIME;
use super::encode::{Answer, Encoder, Limits, Points, estimate_bytes};
use super::model::Model;
use crate::bounds::nogoods::TilingNogoods;
use crate::instance::{Instance, OpGraph};
use crate::stop::Deadline;
use crate::stop::{CpuTimer, Stop};

/// Time of one check in the first round (sub-instances have tens of
/// nodes; most answer in a few milliseconds); each later round gives the
/// checks still undecided four times as much.
const FIRST_CHECK: Duration = Duration::from_millis(25);
const ROUNDS: usize = 3;

/// Least time the pass starts with: one check may overrun its stop by a few
/// milliseconds (the model is built before the encoding checks the clock),
/// and shorter limits belong to the engines.
const MIN_TIME: Duration = Duration::from_millis(20);

/// Time of one check of `refute_choice` (every op fixed: small encodings),
/// and of its second try where the first ran out of time: a first
/// refutation that raises a bound can take most of the shorter limit, and
/// a slower moment of the machine must not lose it (tests/aggregate_bound.rs
/// checks one such step).
const CHOICE_CHECK: Duration = Duration::from_millis(100);
const CHOICE_RETRY: Duration = Duration::from_millis(400);

/// Most combinations `refute_choice` returns a call (the relaxation is
/// solved again after each call).
const MAX_SETS: usize = 8;

/// Checks after which a pass that answers almost none gives up.
const GIVE_UP_AFTER: usize = 32;

/// Whether a pass gives up: after `GIVE_UP_AFTER` checks, fewer than one in
/// eight answered (sub-instances too large to encode or too slow: long
/// durations, large ops).
fn hopeless(decided: usize, tried: usize) -> bool {
    tried >= GIVE_UP_AFTER && decided * 8 < tried
}

/// Largest op count refutation is tried on: each check builds a model over
/// the instance's op graph (linear in the ops).
pub const MAX_OPS: usize = 5_000;

/// Whether the sub-instance given by `cand` (ops without candidates are
/// absent, with their op edges) has a legal schedule, decided at its own
/// horizon (models/sat.md §1.4), with the encoder that answered. `None`:
/// beyond the encoding's times or `max_bytes`, or undecided by `stop`.
pub(super) fn decide_restriction<'m, 'a>(
    m: &'m Model<'a>,
    stop: Stop,
    cancel: Option<crate::stop::Cancel>,
    max_bytes: u64,
) -> Option<(bool, Encoder<'m, 'a>)> {
    if m.horizon > MAX_TIME
        || estimate_bytes(m, m.horizon, &Points::every()) > u128::from(max_bytes)
    {
        return None;
    }
    let limits = Limits {
        max_bytes,
        deadline: Some(stop),
        cancel,
    };
    let mut enc = Encoder::build_within(m, m.horizon, Points::every(), limits).ok()?;
    match enc.decide(m.horizon as i64, &[], stop) {
        Answer::Sat(_) => Some((true, enc)),
        Answer::Unsat => Some((false, enc)),
        Answer::Interrupted | Answer::OverBudget => None,
    }
}

/// Op `op` and its predecessor and successor ops: its neighbourhood.
fn around(g: &OpGraph, op: u32) -> impl Iterator<Item = u32> + '_ {
    std::iter::once(op)
        .chain(g.preds(op).iter().copied())
        .chain(g.succs(op).iter().copied())
}

/// One check: whether the sub-instance `sub` (ops without candidates
/// absent) has a legal schedule, within `limit` and the deadline
/// (`decide_restriction`); `None`: undecided.
fn check(
    inst: &Instance,
    sub: &[Vec<u32>],
    deadline: &Deadline,
    limit: Duration,
    max_bytes: u64,
) -> Option<bool> {
    let cpu = CpuTimer::start();
    // The check's effort is its thread's CPU time (src/stop.rs): on a
    // loaded machine it decides what it would on a quiet one.
    let stop = deadline.stop_after(limit);
    let m = Model::new(inst, sub);
    let verdict =
        decide_restriction(&m, stop, deadline.cancel.clone(), max_bytes).map(|(sat, _)| sat);
    log::debug!(
        "refutation: {} nodes, {verdict:?} in {:.3} s (CPU)",
        m.nodes.len(),
        cpu.elapsed().as_secs_f64()
    );
    verdict
}

/// The tilings and related tiling pairs of `cand` (the undominated usable
/// tilings per op) that no legal schedule uses, proven by the deadline. An
/// op keeps at least one candidate: when every one is refuted the instance
/// is infeasible, which the SAT engine proves on its own. Whatever is proven
/// when the deadline comes is kept (each refutation stands alone).
pub fn refute(
    inst: &Instance,
    mut cand: Vec<Vec<u32>>,
    deadline: &Deadline,
    max_bytes: u64,
) -> TilingNogoods {
    let t0 = Instant::now();
    let n_ops = inst.graph.n_ops();
    let mut out = TilingNogoods::default();
    if n_ops > MAX_OPS || !inst.demands_memory() || deadline.remaining() < MIN_TIME {
        return out;
    }
    let g = &inst.graph;
    let around = |op: u32| around(g, op);
    // One check: `fixed` ops restricted to one tiling each, their neighbours
    // with every candidate left; `Some(false)` refutes the restriction.
    let mut sub: Vec<Vec<u32>> = vec![Vec::new(); n_ops];
    let mut decide = |cand: &[Vec<u32>], fixed: &[(u32, u32)], limit: Duration| -> Option<bool> {
        for &(op, _) in fixed {
            for o in around(op) {
                sub[o as usize].clone_from(&cand[o as usize]);
            }
        }
        for &(op, k) in fixed {
            sub[op as usize] = vec![k];
        }
        let verdict = check(inst, &sub, deadline, limit, max_bytes);
        for &(op, _) in fixed {
            for o in around(op) {
                sub[o as usize].clear();
            }
        }
        verdict
    };
    // A legal schedule found for a check stands until one of its ops loses
    // a candidate: `changed_at` stamps each op's last loss, `legal_at` each
    // check's answer. Checks out of time are tried again in the next round
    // with four times the time; the cheap ones decide most.
    let mut stamp = 0u64;
    let mut changed_at = vec![0u64; n_ops];
    let mut legal_at: HashMap<[(u32, u32); 2], u64> = HashMap::new();
    let related = related_ops(inst);
    // Single tilings of ops with small sub-instances first: they answer
    // within the first round's time (a few milliseconds), large ones mostly
    // run out of it, and the small ones hold most refutations (in op order
    // the small ones waited behind large checks that ran out of time;
    // results/policy.md).
    let size = |op: u32| -> u64 {
        around(op)
            .flat_map(|o| cand[o as usize].iter())
            .map(|&t| u64::from(inst.library.tilings[t as usize].n_nodes))
            .sum()
    };
    let mut by_size: Vec<u32> = (0..n_ops as u32).collect();
    by_size.sort_by_cached_key(|&op| size(op));
    let mut limit = FIRST_CHECK;
    // Instances whose sub-instances are nearly all too large to encode or
    // too slow (long durations, large ops) are given up early (`hopeless`).
    let (mut tried, mut decided) = (0usize, 0usize);
    'rounds: for _ in 0..ROUNDS {
        let mut undecided = 0usize;
        // Single tilings, until nothing changes: a refuted tiling narrows
        // its neighbours' sub-instances.
        let mut changed = true;
        while changed {
            changed = false;
            for &op in &by_size {
                for t in cand[op as usize].clone() {
                    if cand[op as usize].len() < 2 {
                        break;
                    }
                    if deadline.expired() || hopeless(decided, tried) {
                        break 'rounds;
                    }
                    let key = [(op, t), (op, t)];
                    if legal_at
                        .get(&key)
                        .is_some_and(|&at| around(op).all(|o| changed_at[o as usize] <= at))
                    {
                        continue;
                    }
                    tried += 1;
                    let verdict = decide(&cand, &[(op, t)], limit);
                    decided += usize::from(verdict.is_some());
                    match verdict {
                        Some(false) => {
                            cand[op as usize].retain(|&x| x != t);
                            out.refuted.push((op, t));
                            stamp += 1;
                            changed_at[op as usize] = stamp;
                            changed = true;
                        }
                        Some(true) => {
                            legal_at.insert(key, stamp);
                        }
                        None => undecided += 1,
                    }
                }
            }
        }
        // Pairs of related ops, both with a choice left.
        for &(a, b) in &related {
            if cand[a as usize].len() < 2 || cand[b as usize].len() < 2 {
                continue;
            }
            for ta in cand[a as usize].clone() {
                for tb in cand[b as usize].clone() {
                    if deadline.expired() || hopeless(decided, tried) {
                        break 'rounds;
                    }
                    let key = [(a, ta), (b, tb)];
                    if out.pairs.contains(&key)
                        || legal_at.get(&key).is_some_and(|&at| {
                            around(a)
                                .chain(around(b))
                                .all(|o| changed_at[o as usize] <= at)
                        })
                    {
                        continue;
                    }
                    tried += 1;
                    let verdict = decide(&cand, &key, limit);
                    decided += usize::from(verdict.is_some());
                    match verdict {
                        Some(false) => out.pairs.push(key),
                        Some(true) => {
                            legal_at.insert(key, stamp);
                        }
                        None => undecided += 1,
                    }
                }
            }
        }
        if undecided == 0 {
            break;
        }
        limit *= 4;
    }
    implied_by_pairs(&related, &mut cand, &mut out);
    out.seconds = t0.elapsed().as_secs_f64();
    if !out.refuted.is_empty() {
        out.cand = Some(cand);
    }
    out
}

/// Op neighbourhoods without a legal schedule under one tiling choice
/// (`choice[op]`, library tilings; models/bounds.md §6): each op's closed
/// neighbourhood with every op fixed to its choice, decided at its own
/// horizon; each one found is shrunk by deletion (an op whose removal keeps
/// it without a legal schedule is dropped) and returned as a combination no
/// legal schedule selects all of. At most `MAX_SETS` a call.
pub fn refute_choice(
    inst: &Instance,
    choice: &[u32],
    deadline: &Deadline,
    max_bytes: u64,
) -> Vec<Vec<(u32, u32)>> {
    let n_ops = inst.graph.n_ops();
    let mut out: Vec<Vec<(u32, u32)>> = Vec::new();
    if n_ops > MAX_OPS || !inst.demands_memory() || deadline.remaining() < MIN_TIME {
        return out;
    }
    let g = &inst.graph;
    let mut sub: Vec<Vec<u32>> = vec![Vec::new(); n_ops];
    // As in `refute`: checks that nearly all go unanswered end the pass.
    let (tried, decided) = (Cell::new(0usize), Cell::new(0usize));
    let mut infeasible = |ops: &[u32]| -> bool {
        tried.set(tried.get() + 1);
        for &o in ops {
            sub[o as usize] = vec![choice[o as usize]];
        }
        let cpu = CpuTimer::start();
        let mut verdict = check(inst, &sub, deadline, CHOICE_CHECK, max_bytes);
        if verdict.is_none() && cpu.elapsed() >= CHOICE_CHECK && deadline.remaining() > CHOICE_RETRY
        {
            verdict = check(inst, &sub, deadline, CHOICE_RETRY, max_bytes);
        }
        for &o in ops {
            sub[o as usize].clear();
        }
        decided.set(decided.get() + usize::from(verdict.is_some()));
        verdict == Some(false)
    };
    for op in 0..n_ops as u32 {
        if deadline.expired() || out.len() >= MAX_SETS || hopeless(decided.get(), tried.get()) {
            break;
        }
        let mut set: Vec<u32> = around(g, op).collect();
        set.sort_unstable();
        set.dedup();
        // Already cut: a combination found here lies inside it.
        if out
            .iter()
            .any(|c| c.iter().all(|(o, _)| set.binary_search(o).is_ok()))
            || !infeasible(&set)
        {
            continue;
        }
        let mut i = 0;
        while i < set.len() && set.len() > 1 && !deadline.expired() {
            let mut fewer = set.clone();
            fewer.remove(i);
            if infeasible(&fewer) {
                set = fewer;
            } else {
                i += 1;
            }
        }
        out.push(set.iter().map(|&o| (o, choice[o as usize])).collect());
    }
    out
}

/// The op pairs whose tiling pairs are checked: the two ends of an op edge
/// first, then two ops with a common successor op (both hold memory until it
/// starts) or a common predecessor (it holds until both have started). Each
/// pair once, `(a, b)` with `a < b` for siblings.
fn related_ops(inst: &Instance) -> Vec<(u32, u32)> {
    let g = &inst.graph;
    let n = g.n_ops() as u32;
    let mut out: Vec<(u32, u32)> = (0..n)
        .flat_map(|a| g.succs(a).iter().map(move |&b| (a, b)))
        .collect();
    let mut seen: std::collections::HashSet<(u32, u32)> =
        out.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
    for x in 0..n {
        for group in [g.preds(x), g.succs(x)] {
            for (i, &a) in group.iter().enumerate() {
                for &b in &group[i + 1..] {
                    let key = (a.min(b), a.max(b));
                    if a != b && seen.insert(key) {
                        out.push(key);
                    }
                }
            }
        }
    }
    out
}

/// A tiling whose every remaining partner in one related op forms a refuted
/// pair with it is refuted too (a schedule using it would use one of those
/// partners), until nothing changes; an op keeps at least one candidate.
fn implied_by_pairs(related: &[(u32, u32)], cand: &mut [Vec<u32>], out: &mut TilingNogoods) {
    if out.pairs.is_empty() {
        return;
    }
    let refuted: std::collections::HashSet<[(u32, u32); 2]> = out
        .pairs
        .iter()
        .flat_map(|&[a, b]| [[a, b], [b, a]])
        .collect();
    loop {
        let mut found = None;
        'scan: for &(a, b) in related {
            for (x, y) in [(a, b), (b, a)] {
                if cand[x as usize].len() < 2 {
                    continue;
                }
                for &tx in &cand[x as usize] {
                    if cand[y as usize]
                        .iter()
                        .all(|&ty| refuted.contains(&[(x, tx), (y, ty)]))
                    {
                        found = Some((x, tx));
                        break 'scan;
                    }
                }
            }
        }
        let Some((x, tx)) = found else {
            return;
        };
        cand[x as usize].retain(|&t| t != tx);
        out.refuted.push((x, tx));
    }
}
