//! Local search over tiling choices, with the scheme as evaluator.
//!
//! Moves: one op to another of its tilings (then pairs of ops, once every
//! single move was seen), or one group-wide move: every op of one (type,
//! shape) that uses tiling t switches to t'. Ops of a group share their
//! tilings, and whether a tiling's holds leave room is mostly its own
//! property, so on large graphs (thousands of ops per group) single moves
//! rarely change anything and group moves are most of the draws. Each choice
//! is evaluated once (fingerprints); the search stops when the later half of
//! its moves found nothing, at `patience`, or when the time left cannot pay
//! for another evaluation.

use std::collections::{HashMap, HashSet};

use crate::bounds::combinatorial::ChoiceBounds;
use crate::graph::NodeGraph;
use crate::instance::Instance;
use crate::solve::{Note, NoteKind, Progress};
use crate::stop::Deadline;

use super::priority::{Rng, Rule};
use super::search::{FreeStats, near_best};
use super::{Found, Searcher, tiling};

/// Evaluations in a window of the insertion passes' test (`improve`).
const INSERTION_WINDOW: usize = 20;

/// Forward-backward rounds under the hold rule without a shorter schedule
/// after which an evaluation stops (`evaluate`).
const JUSTIFY_ROUNDS: usize = 2;

/// What the search found and what to tell the user.
pub struct Outcome {
    pub best: (Vec<u32>, Found),
    pub notes: Vec<Note>,
    /// Warm moves kept at the best makespan (not shorter).
    pub sideways: usize,
}

/// A 64-bit hash of a tiling choice (a collision only skips one evaluation).
fn fingerprint(choice: &[u32]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    choice.hash(&mut h);
    h.finish()
}

/// What an evaluation found: the schedule, the quick evaluation's makespan
/// (before forward-backward under the hold rule), the insertion passes',
/// and whether memory can bind on the choice (else forward-backward under
/// the hold rule does nothing).
struct Evaluation {
    found: Option<Found>,
    quick: Option<u64>,
    by_insertion: Option<u64>,
    memory_binds: bool,
}

/// Evaluates one tiling choice quickly: the first rule and forward-backward,
/// and with `insertion` the insertion search's first lists (where memory can
/// bind), whose makespan comes second. With `justify_near`, where that comes
/// within 5 % of it, forward-backward under the hold rule too
/// (`Searcher::justify` with `JUSTIFY_ROUNDS`).
fn evaluate(
    inst: &Instance,
    choice: Vec<u32>,
    target: u64,
    justify_near: Option<u64>,
    insertion: bool,
    stats: &mut FreeStats,
    deadline: &Deadline,
) -> Evaluation {
    let t0 = std::time::Instant::now();
    let Ok(g) = NodeGraph::new(inst, choice) else {
        return Evaluation {
            found: None,
            quick: None,
            by_insertion: None,
            memory_binds: false,
        };
    };
    let mut s = Searcher::with_stats(&g, *stats);
    let t1 = t0.elapsed().as_secs_f64();
    s.quick(Rule::Lrp, target, deadline);
    let by_insertion = if insertion {
        s.insertion_firsts(target, deadline)
    } else {
        None
    };
    let quick = s.best.as_ref().map(|b| b.makespan);
    if let (Some(q), Some(near)) = (quick, justify_near)
        && near_best(q, near)
    {
        s.justify(JUSTIFY_ROUNDS, target, deadline);
    }
    *stats = s.free_stats();
    log::debug!(
        "tiling move evaluated in {:.2} s ({t1:.2} s setup, {} passes): {:?}",
        t0.elapsed().as_secs_f64(),
        s.passes,
        s.best.as_ref().map(|b| b.makespan)
    );
    Evaluation {
        memory_binds: s.memory_binds(),
        found: s.best,
        quick,
        by_insertion,
    }
}

/// A candidate choice `width` random tiling changes away from `choice`; a
/// group move changes every flexible op of the group that shares the moved
/// op's tiling. Returns it with the last op moved and its new tiling.
fn draw_move(
    tl: &tiling::Tilings,
    flexible: &[u32],
    choice: &[u32],
    width: usize,
    group_move: bool,
    rng: &mut Rng,
) -> (Vec<u32>, u32, u32) {
    let inst = tl.inst;
    let mut cand = choice.to_vec();
    let (mut op, mut t) = (0, 0);
    for _ in 0..width {
        op = flexible[rng.below_mod(flexible.len())];
        let from = choice[op as usize];
        t = tiling::other_tiling(tl, op, from, rng);
        cand[op as usize] = t;
        if group_move {
            let group = inst.graph.ops[op as usize].group;
            for &o in flexible {
                if inst.graph.ops[o as usize].group == group && choice[o as usize] == from {
                    cand[o as usize] = t;
                }
            }
        }
    }
    (cand, op, t)
}

/// Tilings that never led to a schedule in single-op moves, as typed notes
/// (the first ten; the exact engines can prove whether they are infeasible).
fn never_scheduled(inst: &Instance, outcome: &HashMap<(u32, u32), (u32, u32)>) -> Vec<Note> {
    let mut notes = Vec::new();
    let mut never: Vec<(u32, u32, u32)> = outcome
        .iter()
        .filter(|&(_, &(fail, ok))| fail > 0 && ok == 0)
        .map(|(&(op, t), &(fail, _))| (op, t, fail))
        .collect();
    never.sort_unstable();
    for &(op, t, fail) in never.iter().take(10) {
        let (op, tiling) = (
            inst.graph.ops[op as usize].id,
            inst.library.tilings[t as usize].id,
        );
        notes.push(Note {
            kind: NoteKind::Unschedulable {
                op,
                tiling,
                proven: false,
            },
            text: format!(
                "op {op} tiling {tiling}: no legal schedule found with it ({fail} tries; memory)"
            ),
        });
    }
    if never.len() > 10 {
        notes.push(Note::info(format!(
            "... and {} more such tilings",
            never.len() - 10
        )));
    }
    notes
}

/// Improves `start` (a choice and its schedule) by tiling moves until
/// `deadline`. `pass_seconds`: the time one pass took on the start choice;
/// `insertion`: choices are also evaluated by insertion passes.
#[allow(clippy::too_many_arguments)]
pub fn improve(
    tl: &tiling::Tilings,
    flexible: &[u32],
    start: (Vec<u32>, Found),
    lb: u64,
    mut insertion: bool,
    mut stats: FreeStats,
    patience: usize,
    pass_seconds: f64,
    deadline: &Deadline,
    rng: &mut Rng,
    progress: &Progress,
) -> Outcome {
    let inst = tl.inst;
    let (mut choice, mut best) = start;
    // Where memory binds and the start schedule is shorter than a quick
    // evaluation of its own choice reaches (a warm start, such as a
    // schedule of forward-backward under the hold rule, 10-20 % below what
    // the passes reach), hardly a move would be kept: moves whose
    // quick evaluation comes within 5 % of that one's are judged after
    // forward-backward under the hold rule too, as the search on the final
    // choice will start from them.
    let mut quick_best = best.makespan;
    let mut justified_from = None;
    if best.makespan > lb && deadline.remaining().as_secs_f64() > 2.0 * pass_seconds * 4.0 {
        let own = evaluate(
            inst,
            choice.clone(),
            lb,
            None,
            insertion,
            &mut stats,
            deadline,
        );
        if let Some(q) = own.quick
            && q > best.makespan
            && own.memory_binds
        {
            quick_best = q;
            justified_from = Some(best.makespan);
        }
        // A start that its own choice's evaluation beats (a poor warm
        // start): the search goes on from the better schedule.
        if let Some(f) = own.found
            && f.makespan < best.makespan
        {
            best = f;
        }
    }
    let mut moves = 0usize;
    let mut improved = 0usize;
    let mut stalled = 0usize;
    // (op, tiling) -> (moves that found no schedule at all, moves that did).
    let mut outcome: HashMap<(u32, u32), (u32, u32)> = HashMap::new();
    let mut seen: HashSet<u64> = HashSet::new();
    seen.insert(fingerprint(&choice));
    let neighbourhood: usize = flexible.iter().map(|&op| tl.of(op).count() - 1).sum();
    let groups = {
        let mut g: Vec<u32> = flexible
            .iter()
            .map(|&op| inst.graph.ops[op as usize].group)
            .collect();
        g.sort_unstable();
        g.dedup();
        g.len()
    };
    // Group moves: half the draws, nearly all when groups hold many ops.
    let group_moves_in_8 = if flexible.len() > 64 * groups { 7 } else { 4 };
    let mut repeats = 0usize;
    let mut width = 1usize;
    let (mut insertion_evals, mut insertion_close) = (0usize, false);
    // An evaluation is a few passes (the first rule, forward-backward).
    while !deadline.expired()
        && best.makespan > lb
        // Tiling moves change the graph: improvements come late, so the
        // search stops only when the later half of its moves found none.
        && stalled < patience.max(moves / 2)
        && deadline.remaining().as_secs_f64() > 2.0 * pass_seconds * 4.0
    {
        let group_move = rng.below_mod(8) < group_moves_in_8;
        let (cand, op, t) = draw_move(tl, flexible, &choice, width, group_move, rng);
        if !seen.insert(fingerprint(&cand)) {
            repeats += 1;
            // Every single move seen: pairs of moves; every pair seen: done.
            if repeats > 4 * neighbourhood.saturating_pow(width as u32) + 20 {
                if width == 2 {
                    break;
                }
                width = 2;
                repeats = 0;
            }
            continue;
        }
        repeats = 0;
        moves += 1;
        progress.tick(|| {
            format!(
                "list: tiling search, {moves} moves, best {}, bound {lb}",
                best.makespan
            )
        });
        let Evaluation {
            found,
            quick,
            by_insertion,
            ..
        } = evaluate(
            inst,
            cand.clone(),
            lb,
            justified_from.map(|_| quick_best),
            insertion,
            &mut stats,
            deadline,
        );
        if insertion {
            // Insertion passes stop judging the moves once a window of
            // them never came within 5 % of the best schedule: there they
            // only slow the evaluations (small graphs, where the parallel
            // scheme's first moves soon pass them).
            insertion_evals += 1;
            if by_insertion.is_some_and(|m| near_best(m, quick_best)) {
                insertion_close = true;
            }
            if insertion_evals == INSERTION_WINDOW {
                insertion = insertion_close;
                (insertion_evals, insertion_close) = (0, false);
            }
        }
        // Outcomes are attributed to a tiling only for single-op moves.
        if width == 1 && !group_move {
            let o = outcome.entry((op, t)).or_default();
            if found.is_some() {
                o.1 += 1;
            } else if !deadline.expired() {
                o.0 += 1;
            }
        }
        if !matches!(&found, Some(f) if f.makespan < best.makespan) {
            stalled += 1;
        }
        if let Some(f) = found
            && f.makespan <= best.makespan
        {
            if f.makespan < best.makespan {
                improved += 1;
                stalled = 0;
                width = 1;
            }
            choice = cand;
            quick_best = quick.unwrap_or(f.makespan);
            best = f;
            best.how = format!("tiling move {moves}, {}", best.how);
            best.offer(inst, progress);
        }
    }
    let mut notes = vec![Note::info(format!(
        "tiling search: {moves} moves over {} flexible ops, {improved} improvements",
        flexible.len()
    ))];
    if let Some(from) = justified_from {
        notes.push(Note::info(format!(
            "tiling search: from a schedule ({from}) shorter than its choice's quick \
             evaluation ({quick_best} at the end), moves judged after forward-backward \
             under the hold rule"
        )));
    }
    notes.extend(never_scheduled(inst, &outcome));
    Outcome {
        best: (choice, best),
        notes,
        sideways: 0,
    }
}

/// Forward-backward rounds without a shorter schedule after which a warm
/// move's evaluation stops (`warm_moves`). One rather than two or four:
/// more moves judged in the same time weigh more than the later rounds'
/// refinement of one (results/medium-tight-ab.md,
/// results/archive/medium-tight-ab-two-rounds.md).
const WARM_ROUNDS: usize = 1;

/// Draws in a row, per flexible op, that their tilings' bound skips before
/// `warm_moves` gives up: every move left is then at least as long as the
/// best schedule (or the draws keep missing the few that are not).
const BOUNDED_DRAWS: usize = 20;

/// Moves drawn for each one judged (`warm_moves`, `draw_warm_move`). Where the
/// best schedule is near its own tilings' bound, only a move that lowers
/// that bound (the binding resource's load, the choice's critical path)
/// can be kept, and uniform draws mostly leave it alone. A draw's bound
/// takes linear time, a judged move several insertion passes, so a few
/// draws cost little beside it (results/archive/medium-tight-ab-drawn-moves.md).
const DRAWS_PER_MOVE: usize = 8;

/// Of `draws` random moves from `choice` (one flexible op to another of its
/// tilings), the one whose tilings' quick bound is lowest among those
/// below `best` (the first drawn among equals): its op, its choice and that
/// bound; and how many draws the bound ruled out. No schedule with a
/// move's tilings ends before their own bound, so a move whose bound is
/// not below the best makespan has nothing to keep.
fn draw_warm_move(
    tl: &tiling::Tilings,
    flexible: &[u32],
    choice: &[u32],
    bounds: &ChoiceBounds,
    best: u64,
    draws: usize,
    rng: &mut Rng,
) -> (Option<(u32, Vec<u32>, u64)>, usize) {
    let mut pick: Option<(u32, Vec<u32>, u64)> = None;
    let mut ruled_out = 0;
    for _ in 0..draws {
        let op = flexible[rng.below_mod(flexible.len())];
        let t = tiling::other_tiling(tl, op, choice[op as usize], rng);
        if t == choice[op as usize] {
            continue;
        }
        let mut next = choice.to_vec();
        next[op as usize] = t;
        let v = bounds.quick(&next).best.value;
        if v >= best {
            ruled_out += 1;
        } else if pick.as_ref().is_none_or(|p| v < p.2) {
            pick = Some((op, next, v));
        }
    }
    (pick, ruled_out)
}

/// Tiling moves judged from the best schedule (`warm_moves`), where memory
/// can bind: one op to another of its tilings, the new graph's nodes
/// listed in the best schedule's start order (the moved op's nodes where
/// its old nodes began, in a topological order of their own), an insertion
/// pass of that list and forward-backward under the hold rule from it
/// (`Searcher::warm_pass`); kept when not longer (a tie walks on from the
/// new choice). A quick evaluation builds each choice's schedule from
/// nothing, far above where forward-backward takes that choice (measured:
/// results/archive/medium-tight-ab-warm-moves.md), so it cannot judge moves
/// near a schedule forward-backward made; this one starts next to that
/// schedule. Until `deadline` or `lb`; the best choice and schedule
/// (each kept schedule passed the validator, and went to `progress` when
/// shorter), a note, and how many moves were kept at the same makespan.
#[allow(clippy::too_many_arguments)]
pub fn warm_moves(
    tl: &tiling::Tilings,
    flexible: &[u32],
    start: (Vec<u32>, Found),
    lb: u64,
    mut stats: FreeStats,
    deadline: &Deadline,
    rng: &mut Rng,
    progress: &Progress,
) -> Outcome {
    let inst = tl.inst;
    let (choice, mut best) = start;
    // The graph of the best schedule's choice, kept from move to move.
    let Ok(mut g1) = NodeGraph::new(inst, choice.clone()) else {
        return Outcome {
            best: (choice, best),
            notes: Vec::new(),
            sideways: 0,
        };
    };
    let (mut moves, mut kept) = (0usize, 0usize);
    let choice_bounds = ChoiceBounds::new(inst);
    // Draws skipped by their tilings' bound: in all, and since the last move.
    let (mut bounded, mut bounded_run) = (0usize, 0usize);
    // Where memory cannot bind, forward-backward under the hold rule does
    // nothing and a move has nothing to be judged by.
    let binds = {
        // The moves are judged against the start after forward-backward
        // too, else the first would be kept for the rounds alone.
        let mut s = Searcher::with_stats(&g1, stats);
        s.best = Some(best.clone());
        s.justify(super::policy::POLICY.justify_rounds, lb, deadline);
        stats = s.free_stats();
        if let Some(f) = s.best.take()
            && f.makespan < best.makespan
        {
            best = f;
            best.offer(inst, progress);
        }
        s.memory_binds()
    };
    let first = best.makespan;
    // A move that keeps the makespan is kept too: where memory binds, many
    // moves end at the best makespan (the moved op is off the schedule's
    // critical chain), and the moves go on from the new choice, a walk over
    // choices of that makespan instead of the same neighbourhood drawn
    // again.
    let mut sideways = 0usize;
    while binds && !flexible.is_empty() && !deadline.expired() && best.makespan > lb {
        let (pick, ruled_out) = draw_warm_move(
            tl,
            flexible,
            &g1.choice,
            &choice_bounds,
            best.makespan,
            DRAWS_PER_MOVE,
            rng,
        );
        bounded += ruled_out;
        let Some((op, next, _)) = pick else {
            bounded_run += ruled_out;
            if bounded_run > BOUNDED_DRAWS * flexible.len() {
                break;
            }
            continue;
        };
        bounded_run = 0;
        let Ok(g2) = NodeGraph::new(inst, next) else {
            continue;
        };
        moves += 1;
        let list = spliced_list(&g1, &g2, &best.schedule.start, op);
        let mut s = Searcher::with_stats(&g2, stats);
        let ms = s.warm_pass(&list, best.makespan, WARM_ROUNDS, lb, deadline);
        stats = s.free_stats();
        let found = s.best.take();
        drop(s);
        let Some((ms, f)) = ms.zip(found) else {
            continue;
        };
        let shorter = ms < best.makespan;
        if ms <= best.makespan {
            sideways += usize::from(!shorter);
            kept += 1;
            best = f;
            best.how = format!("warm tiling move {moves}, {}", best.how);
            g1 = g2;
            if shorter {
                best.offer(inst, progress);
            }
        }
    }
    let notes = if moves + bounded > 0 {
        vec![Note::info(format!(
            "warm tiling moves: {moves} moves judged from the best schedule, {kept} kept, \
             {bounded} skipped by their tilings' bound, {first} -> {} ({sideways} of them at the same makespan)",
            best.makespan
        ))]
    } else {
        Vec::new()
    };
    Outcome {
        best: (g1.choice.clone(), best),
        notes,
        sideways,
    }
}

/// The nodes of `g2` (the choice of `g1` with `op` moved to another tiling)
/// in the order of `start` (a schedule of `g1`): every other op's nodes at
/// their starts there, `op`'s new nodes from where its old ones began, one
/// after another in a topological order.
fn spliced_list(g1: &NodeGraph, g2: &NodeGraph, start: &[u64], op: u32) -> Vec<u32> {
    let mut key = vec![0u64; g2.n_nodes()];
    for o in 0..g2.n_ops() as u32 {
        if o != op {
            for (v1, v2) in g1.op_nodes(o).zip(g2.op_nodes(o)) {
                key[v2 as usize] = start[v1 as usize];
            }
        }
    }
    let from = g1
        .op_nodes(op)
        .map(|v| start[v as usize])
        .min()
        .unwrap_or(0);
    let moved = g2
        .topo_order()
        .into_iter()
        .filter(|&v| g2.node_op[v as usize] == op);
    for (k, v) in moved.enumerate() {
        key[v as usize] = from + k as u64;
    }
    super::sgs::activity_list(g2, &super::priority::keys_from_starts(&key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{generate, memory_tight};

    /// A tiny memory-tight instance of `seed` (16 ops of 4-8 nodes), its
    /// initial choice, that choice's quick evaluation (None where it traps
    /// memory) and the free-slot statistics after it.
    fn warm_case(seed: u64) -> (Instance, Vec<u32>, Option<Found>, FreeStats) {
        let inst = generate(&memory_tight(seed, 16, (4, 8)))
            .expect("an instance")
            .instance;
        let choice = tiling::initial_choice(&tiling::Tilings::without(&inst, None));
        let long = Deadline::after(std::time::Duration::from_secs(60));
        let mut stats = FreeStats::default();
        let found = evaluate(&inst, choice.clone(), 0, None, true, &mut stats, &long).found;
        (inst, choice, found, stats)
    }

    /// `start` after `rounds` rounds of forward-backward on its choice.
    fn justified(inst: &Instance, choice: &[u32], start: &Found, rounds: usize) -> Found {
        let g = NodeGraph::new(inst, choice.to_vec()).expect("a graph");
        let mut s = Searcher::new(&g);
        s.best = Some(start.clone());
        s.justify(
            rounds,
            0,
            &Deadline::after(std::time::Duration::from_secs(60)),
        );
        s.best.expect("a schedule")
    }

    /// With `justify_near`, a choice whose quick evaluation comes within
    /// 5 % of it is judged after forward-backward under the hold rule: on a
    /// memory-tight instance the schedule found is shorter than the quick
    /// evaluation's and legal; without it, the quick evaluation's schedule
    /// is what is found.
    #[test]
    fn a_near_choice_is_judged_after_forward_backward_under_the_hold_rule() {
        let inst = generate(&memory_tight(3, 12, (4, 8)))
            .expect("an instance")
            .instance;
        let choice = tiling::initial_choice(&tiling::Tilings::without(&inst, None));
        let deadline = Deadline::after(std::time::Duration::from_secs(60));
        let eval = |near| {
            let mut stats = FreeStats::default();
            evaluate(&inst, choice.clone(), 0, near, true, &mut stats, &deadline)
        };
        let plain = eval(None);
        let quick = plain.quick.expect("a schedule");
        assert_eq!(plain.found.as_ref().map(|f| f.makespan), Some(quick));
        let judged = eval(Some(quick));
        assert_eq!(judged.quick, Some(quick), "the same quick evaluation");
        let found = judged.found.expect("a schedule");
        assert!(found.makespan < quick, "{} against {quick}", found.makespan);
        let g = NodeGraph::new(&inst, choice.clone()).expect("a graph");
        assert!(crate::schedule::check(&g, &found.schedule, 10).is_empty());
        let far = eval(Some(quick * 100 / 106));
        assert_eq!(
            far.found.map(|f| f.makespan),
            Some(quick),
            "not near: not judged"
        );
    }

    /// A start schedule longer than what its own choice's evaluation
    /// reaches (here: a legal schedule delayed as a whole) is not kept:
    /// the search returns the evaluation's schedule, even with no move
    /// (`patience` 0).
    #[test]
    fn a_start_its_own_evaluation_beats_is_replaced() {
        let inst = generate(&memory_tight(3, 12, (4, 8)))
            .expect("an instance")
            .instance;
        let tl = tiling::Tilings::without(&inst, None);
        let choice = tiling::initial_choice(&tl);
        let deadline = Deadline::after(std::time::Duration::from_secs(60));
        let mut stats = FreeStats::default();
        let found = evaluate(&inst, choice.clone(), 0, None, true, &mut stats, &deadline)
            .found
            .expect("a schedule");
        let g = NodeGraph::new(&inst, choice.clone()).expect("a graph");
        // Every start later by 100: the holds move with their nodes, so
        // the schedule stays legal, 100 longer.
        let mut late = found.clone();
        late.schedule.start.iter_mut().for_each(|s| *s += 100);
        late.makespan += 100;
        assert!(crate::schedule::check(&g, &late.schedule, 10).is_empty());
        let out = improve(
            &tl,
            &tiling::flexible_ops(&tl),
            (choice.clone(), late),
            0,
            true,
            FreeStats::default(),
            0,
            0.0,
            &deadline,
            &mut Rng::new(1),
            &crate::solve::Progress::new(false, crate::events::Events::default()),
        );
        let (c, f) = out.best;
        assert_eq!(c, choice);
        assert!(
            f.makespan <= found.makespan,
            "{} against {}",
            f.makespan,
            found.makespan
        );
        assert!(crate::schedule::check(&g, &f.schedule, 10).is_empty());
    }

    /// Tiling moves judged from the best schedule end legal, no longer
    /// than where forward-backward alone takes the start, and on memory-
    /// tight instances below it, on another choice: what they keep is the
    /// tiling's doing, not the rounds'. Their improvements reach the
    /// solve's events (`--progress`) as they are found.
    #[test]
    fn warm_tiling_moves_go_below_forward_backward_alone() {
        let mut below = 0;
        for seed in [3, 6] {
            let (inst, choice, start, stats) = warm_case(seed);
            let Some(start) = start else {
                continue; // its quick evaluation traps memory
            };
            let tl = tiling::Tilings::without(&inst, None);
            let alone = justified(
                &inst,
                &choice,
                &start,
                super::super::policy::POLICY.justify_rounds,
            )
            .makespan;
            let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
            let sink = seen.clone();
            let events = crate::events::Events::to(move |e| {
                if let crate::events::Event::Incumbent { makespan, .. } = e {
                    sink.lock().expect("events").push(*makespan);
                }
            });
            let out = warm_moves(
                &tl,
                &tiling::flexible_ops(&tl),
                (choice.clone(), start.clone()),
                0,
                stats,
                &Deadline::after(std::time::Duration::from_secs(1)),
                &mut Rng::new(seed),
                &crate::solve::Progress::new(false, events),
            );
            let (c, f) = out.best;
            // Every improvement is offered as it is found (the first one
            // at once; later ones at most every half second).
            let seen = seen.lock().expect("events").clone();
            if f.makespan < start.makespan {
                assert!(
                    seen.first()
                        .is_some_and(|&m| m < u128::from(start.makespan)),
                    "seed {seed}: no incumbent offered ({seen:?})"
                );
            }
            assert!(seen.iter().all(|&m| m >= u128::from(f.makespan)));
            let g2 = NodeGraph::new(&inst, c.clone()).expect("a graph");
            assert!(crate::schedule::check(&g2, &f.schedule, 10).is_empty());
            assert_eq!(f.schedule.choice, c);
            assert!(
                f.makespan <= alone,
                "seed {seed}: {} above {alone}",
                f.makespan
            );
            if f.makespan < alone && c != choice {
                below += 1;
            }
        }
        assert!(below > 0, "no move went below forward-backward alone");
    }

    /// Warm moves keep a choice of the same makespan as well as a shorter
    /// one: from the start after forward-backward, what they end on is legal
    /// and never longer, and on these memory-tight seeds some move that
    /// ties is kept (a rule that keeps only shorter moves fails here).
    #[test]
    fn moves_of_the_same_makespan_are_kept() {
        let mut sideways = 0;
        for seed in [3, 5, 6, 8] {
            let (inst, choice, start, stats) = warm_case(seed);
            let Some(start) = start else {
                continue; // its quick evaluation traps memory
            };
            let tl = tiling::Tilings::without(&inst, None);
            let from = justified(
                &inst,
                &choice,
                &start,
                super::super::policy::POLICY.justify_rounds,
            );
            let out = warm_moves(
                &tl,
                &tiling::flexible_ops(&tl),
                (choice.clone(), start),
                0,
                stats,
                &Deadline::after(std::time::Duration::from_secs(1)),
                &mut Rng::new(seed),
                &crate::solve::Progress::new(false, crate::events::Events::default()),
            );
            let (c, f) = out.best;
            let g2 = NodeGraph::new(&inst, c.clone()).expect("a graph");
            assert!(crate::schedule::check(&g2, &f.schedule, 10).is_empty());
            assert_eq!(f.schedule.choice, c);
            assert!(f.makespan <= from.makespan, "seed {seed}: longer");
            sideways += out.sideways;
        }
        assert!(sideways > 0, "no move of the same makespan kept");
    }

    /// A move drawn is the lowest of its draws by its tilings' bound,
    /// below the best makespan: over many draws the moves judged have a
    /// lower bound than single draws give, each is one op to another of
    /// its tilings, and none is at or above the best makespan.
    #[test]
    fn drawn_moves_lower_their_tilings_bound() {
        let inst = generate(&memory_tight(4, 24, (4, 8)))
            .expect("an instance")
            .instance;
        let tl = tiling::Tilings::without(&inst, None);
        let choice = tiling::initial_choice(&tl);
        let flexible = tiling::flexible_ops(&tl);
        let bounds = ChoiceBounds::new(&inst);
        let own = bounds.quick(&choice).best.value;
        let mut sums = [0u64; 2];
        for (k, draws) in [1, DRAWS_PER_MOVE].into_iter().enumerate() {
            let mut rng = Rng::new(7);
            for _ in 0..300 {
                let (pick, _) =
                    draw_warm_move(&tl, &flexible, &choice, &bounds, u64::MAX, draws, &mut rng);
                let (op, next, v) = pick.expect("a move");
                assert_eq!(bounds.quick(&next).best.value, v);
                assert!(
                    next.iter()
                        .zip(&choice)
                        .enumerate()
                        .all(|(o, (a, b))| (a == b) != (o == op as usize))
                );
                sums[k] += v;
            }
        }
        assert!(sums[1] < sums[0], "{sums:?}");
        // Below the choice's own bound: every move kept lowers it.
        let mut rng = Rng::new(8);
        let (mut picked, mut ruled_out) = (0, 0);
        for _ in 0..300 {
            let (pick, r) = draw_warm_move(
                &tl,
                &flexible,
                &choice,
                &bounds,
                own,
                DRAWS_PER_MOVE,
                &mut rng,
            );
            ruled_out += r;
            if let Some((_, _, v)) = pick {
                assert!(v < own);
                picked += 1;
            }
        }
        assert!(
            picked > 0 && ruled_out > 0,
            "{picked} picked, {ruled_out} ruled out"
        );
    }
}
