//! The fast engine: memory-aware list scheduling with tiling selection.
//!
//! For a tiling choice, passes of the schedule generation scheme (`sgs`) run with
//! several priority rules, then randomised sampling and forward-backward
//! improvement until the time limit (`search`). Where memory can bind, a
//! memory-frugal serial schedule comes first and guards every later pass, so
//! passes cannot deadlock (`sgs::guide`). When neither frugal order fits memory
//! even serially, for both starting tiling choices, a repair walk (`repair`)
//! changes the tilings of the ops that held memory until one choice can be
//! scheduled. Tiling choices
//! are improved by local search with the scheme as evaluator (single moves, then
//! pairs; each choice evaluated once). Every schedule returned has passed the
//! validator (`SolveResult::found`).

pub mod backward;
pub mod frugal;
pub mod priority;
pub mod repair;
pub mod search;
pub mod sgs;
pub mod tiling;
pub mod tiling_search;

use std::time::Instant;

use crate::bounds::Bounds;
use crate::graph::NodeGraph;
use crate::instance::Instance;
use crate::solve::{Deadline, Note, NoteKind, Progress, SolveOptions, SolveResult, Status};

use priority::Rng;
pub use search::Searcher;
pub use tiling::{flexible_ops, initial_choice, lean_choice};

/// A schedule found for one tiling choice, with how it was found.
#[derive(Clone, Debug)]
pub struct Found {
    pub schedule: crate::schedule::Schedule,
    /// The makespan, saturated at u64::MAX (for comparisons; a makespan beyond
    /// u64 is exact in the schedule itself).
    pub makespan: u64,
    pub how: String,
}

/// The first phase's share of the time. On graphs of hundreds of
/// thousands of nodes a pass takes a good part of a second: a tiling move
/// (several passes) is then rarely evaluated in time, while the deterministic
/// rules and forward-backward still gain (measured at 10^6 nodes, 10 s: the
/// tiling search evaluated no move), so large graphs give that phase most of
/// the time.
fn deterministic_share(nodes: usize) -> f64 {
    if nodes > 300_000 { 0.7 } else { 0.35 }
}

/// The list engine's own knobs.
#[derive(Clone, Debug, Default)]
pub struct ListOptions {
    /// Stop early once this many sampling passes in a row brought no better
    /// makespan (tiling moves: this many, and at least as many as came before
    /// them). `None`: use the whole time limit. The incumbent step of the
    /// exact engines sets it: a few seconds of stalled sampling are better
    /// spent on proofs.
    pub patience: Option<usize>,
}

/// Patience of the incumbent step of the exact engines and the portfolio
/// (`ListOptions::patience`): small graphs stall within milliseconds;
/// large ones, or ones still improving, reach their time share.
pub const INCUMBENT_PATIENCE: usize = 200;

/// Forward-backward improvement of a given legal schedule (e.g. a SAT model,
/// whose start times are legal but rarely tight): returns a schedule with a
/// smaller makespan when one is found before `deadline`.
pub fn polish(
    inst: &Instance,
    schedule: &crate::schedule::Schedule,
    target: u64,
    deadline: &Deadline,
) -> Option<Found> {
    let g = NodeGraph::new(inst, schedule.choice.clone()).ok()?;
    let given = found_from(&g, schedule, "given")?;
    let ms = given.makespan;
    let mut s = Searcher::new(&g);
    s.best = Some(given);
    s.forward_backward(3, target, deadline);
    s.best.filter(|f| f.makespan < ms)
}

/// A given schedule as a `Found` on its graph; `None` when it does not fit the graph.
fn found_from(g: &NodeGraph, schedule: &crate::schedule::Schedule, how: &str) -> Option<Found> {
    if schedule.start.len() != g.n_nodes() || schedule.choice != g.choice {
        return None;
    }
    Some(Found {
        schedule: schedule.clone(),
        makespan: u64::try_from(schedule.makespan(g)).unwrap_or(u64::MAX),
        how: how.into(),
    })
}

/// Where a pass ran out of memory, in the input's ids.
fn stuck_note(inst: &Instance, d: &sgs::Deadlock) -> String {
    let ids: Vec<String> = d
        .holding_ops
        .iter()
        .take(10)
        .map(|&o| inst.graph.ops[o as usize].id.to_string())
        .collect();
    let more = if d.holding_ops.len() > 10 {
        format!(" and {} more", d.holding_ops.len() - 10)
    } else {
        String::new()
    };
    let what = match d.blocked {
        Some((op, m)) => format!(
            "even one node at a time, memory type {} ran out when op {} was next",
            inst.platform.mems[m as usize].id, inst.graph.ops[op as usize].id
        ),
        None => "every pass deadlocked on memory".to_string(),
    };
    format!(
        "{what} (at t={}, after {} starts; ops holding memory: {}{more})",
        d.time,
        d.started,
        ids.join(", ")
    )
}

/// The list-scheduling engine, run alone.
pub fn solve(inst: &Instance, opts: &SolveOptions) -> SolveResult {
    crate::engine::solve(&crate::engine::ListEngine::default(), inst, opts)
}

/// One pass of `rule` on the shortest-path tilings (the memory-lean ones when
/// those cannot be scheduled), in the first mode that succeeds: parallel,
/// memory-reserving, op windows, then guarded by the memory-frugal serial
/// order. No search: a baseline greedy to compare heuristics with.
pub fn greedy(
    inst: &Instance,
    deadline: &Deadline,
    bounds: &Bounds,
    rule: priority::Rule,
) -> SolveResult {
    let t0 = Instant::now();
    let engine = format!("greedy({})", rule.name());
    let lb = bounds.best.value;
    let bad = inst.ops_without_usable_tiling();
    if !bad.is_empty() {
        let mut r = SolveResult::without_schedule(Status::Infeasible, 0, "none", &engine);
        r.note_as(
            NoteKind::NoTilingForOp {
                op: inst.graph.ops[bad[0] as usize].id,
            },
            format!("infeasible: {}", inst.why_no_usable_tiling(bad[0])),
        );
        return r;
    }
    let mut last = None;
    for lean in [false, true] {
        let c = if lean {
            lean_choice(inst)
        } else {
            initial_choice(inst)
        };
        let Ok(g) = NodeGraph::new(inst, c) else {
            continue;
        };
        let mut s = Searcher::new(&g);
        s.single(rule, deadline);
        if let Some(f) = s.best {
            let mut r = match SolveResult::found(inst, f.schedule, lb, &bounds.best.source, &engine)
            {
                Ok(r) => r,
                Err(e) => {
                    let mut r = SolveResult::without_schedule(
                        Status::Unknown,
                        lb,
                        &bounds.best.source,
                        &engine,
                    );
                    r.internal(e.to_string());
                    return r;
                }
            };
            r.note(f.how);
            r.wall_seconds = t0.elapsed().as_secs_f64();
            return r;
        }
        last = s.last_deadlock;
    }
    let mut r = SolveResult::without_schedule(Status::Unknown, lb, &bounds.best.source, &engine);
    if let Some(d) = &last {
        r.note(format!("no schedule: {}", stuck_note(inst, d)));
    }
    r.wall_seconds = t0.elapsed().as_secs_f64();
    r
}

/// The engine with precomputed bounds (the exact engines call this for their incumbent).
pub fn solve_with_bounds(
    inst: &Instance,
    opts: &SolveOptions,
    lopts: &ListOptions,
    bounds: &Bounds,
) -> SolveResult {
    const ENGINE: &str = "list";
    let deadline = Deadline::after(opts.time_limit);
    let lb = bounds.best.value;
    let bad = inst.ops_without_usable_tiling();
    if !bad.is_empty() {
        let mut r = SolveResult::without_schedule(Status::Infeasible, 0, "none", ENGINE);
        r.note_as(
            NoteKind::NoTilingForOp {
                op: inst.graph.ops[bad[0] as usize].id,
            },
            format!("infeasible: {}", inst.why_no_usable_tiling(bad[0])),
        );
        return r;
    }
    let mut rng = Rng::new(opts.seed ^ 0x7431_6d69_6e00_0001);
    let progress = Progress::new(opts.progress);
    let mut notes: Vec<Note> = Vec::new();

    // 1. Initial choice; if it cannot be scheduled, a memory-lean one.
    let mut choice = initial_choice(inst);
    let mut best: Option<Found> = None;
    let mut pass_seconds = 0.0;
    let mut free_stats: search::FreeStats = Default::default();
    // The first phase's guide with its choice: sampling reuses it when the
    // tiling search keeps that choice (a serial pass saved, 7 s at 10^7).
    let mut kept_guide = None;
    for label in ["shortest-path tilings", "memory-lean tilings"] {
        if deadline.expired() {
            break;
        }
        // The lean choice only when the first one found nothing (it costs a
        // walk over the whole library).
        let c = if label.starts_with("shortest") {
            choice.clone()
        } else {
            lean_choice(inst)
        };
        let t = Instant::now();
        let g = match NodeGraph::new(inst, c.clone()) {
            Ok(g) => g,
            Err(e) => {
                notes.push(Note::info(e));
                continue;
            }
        };
        let mut s = Searcher::new(&g);
        // A share of the time: the tiling search and sampling gain more on
        // large graphs than the last rules; but a first schedule in any case,
        // and a first parallel one if a guarded pass can finish in time.
        s.first_guarded_pass_until(&deadline);
        s.deterministic(lb, &deadline.share(deterministic_share(g.n_nodes())));
        s.ensure_schedule(&deadline);
        free_stats = s.free_stats();
        pass_seconds = t.elapsed().as_secs_f64() / s.passes.max(1) as f64;
        if s.deadlocks > 0 {
            notes.push(Note::info(format!(
                "{label}: {} unguarded attempts deadlocked on memory in {} passes (the pass then went on in a narrower or guarded mode)",
                s.deadlocks, s.passes
            )));
        }
        if let Some(f) = s.best.take() {
            kept_guide = s.take_guide().map(|gd| (c.clone(), gd));
            choice = c;
            notes.push(Note::info(format!(
                "{label}: makespan {} by {}",
                f.makespan, f.how
            )));
            best = Some(f);
            break;
        }
        if let Some(d) = &s.last_deadlock {
            notes.push(Note::info(format!(
                "{label}: no schedule found; {}",
                stuck_note(inst, d)
            )));
        }
    }
    // A warm start (checked by the caller) replaces the scheme's schedule when
    // it is at least as good; the tiling search and sampling go on from it.
    if let Some(st) = &opts.start {
        let given = NodeGraph::new(inst, st.choice.clone())
            .ok()
            .and_then(|g| found_from(&g, st, "warm start"));
        match given {
            Some(f) if best.as_ref().is_none_or(|b| f.makespan <= b.makespan) => {
                notes.push(Note::info(format!("warm start: makespan {}", f.makespan)));
                choice = st.choice.clone();
                best = Some(f);
            }
            Some(f) => notes.push(Note::info(format!(
                "warm start: makespan {}, list scheduling found better",
                f.makespan
            ))),
            None => notes.push(Note::info(
                "warm start ignored: it does not fit the instance",
            )),
        }
    }
    // No schedule from either choice: with tight memory the tilings are to
    // blame more often than the order, so walk the choices (half the time).
    let flexible = flexible_ops(inst);
    if best.is_none() && !flexible.is_empty() && !deadline.expired() {
        let t = Instant::now();
        let rep = repair::feasible_choice(
            inst,
            lean_choice(inst),
            &flexible,
            &deadline.share(0.5),
            &mut rng,
            &progress,
        );
        match rep.found {
            Some((c, f)) => {
                notes.push(Note {
                    kind: NoteKind::TilingRepair { found: true },
                    text: format!(
                        "tiling repair: makespan {} after {} tries ({} restarts, {:.2} s), by {}",
                        f.makespan,
                        rep.tries,
                        rep.restarts,
                        t.elapsed().as_secs_f64(),
                        f.how
                    ),
                });
                choice = c;
                best = Some(f);
            }
            None => notes.push(Note {
                kind: NoteKind::TilingRepair { found: false },
                text: format!(
                    "tiling repair: no schedulable choice in {} tries ({} restarts, {:.2} s; \
                 a longer --time-limit gives it more tries)",
                    rep.tries,
                    rep.restarts,
                    t.elapsed().as_secs_f64()
                ),
            }),
        }
    }
    let Some(mut best) = best else {
        let mut r = SolveResult::without_schedule(Status::Unknown, lb, &bounds.best.source, ENGINE);
        r.notes.extend(notes);
        r.note("no legal schedule found by list scheduling (not a proof of infeasibility)");
        return r;
    };

    log::debug!("first phase done in {:.2} s", deadline.elapsed());
    // 2. Tiling local search, when there is a choice and time for it.
    let patience = lopts.patience.unwrap_or(usize::MAX);
    if !flexible.is_empty() && best.makespan > lb {
        let out = tiling_search::improve(
            inst,
            &flexible,
            (choice, best),
            lb,
            free_stats,
            patience,
            pass_seconds,
            &deadline.share(0.5),
            &mut rng,
            &progress,
        );
        (choice, best) = out.best;
        notes.extend(out.notes);
    }

    log::debug!("tiling search done at {:.2} s", deadline.elapsed());
    // 3. Sampling and forward-backward on the final choice.
    if best.makespan > lb && !deadline.expired() {
        let g = NodeGraph::new(inst, choice.clone()).expect("built before");
        let mut s = Searcher::with_stats(&g, free_stats);
        if let Some((c, gd)) = kept_guide.take()
            && c == choice
        {
            s.set_guide(gd);
        }
        s.best = Some(best.clone());
        s.forward_backward(3, lb, &deadline);
        s.sample(&mut rng, lb, &deadline, patience, &progress);
        notes.push(Note::info(format!("sampling: {} passes", s.passes)));
        if let Some(f) = s.best
            && f.makespan < best.makespan
        {
            best = f;
        }
    }

    log::debug!(
        "search done, peak RSS {:.0} MiB",
        crate::solve::peak_rss_mib().unwrap_or(0.0)
    );
    let mut r = match SolveResult::found(inst, best.schedule, lb, &bounds.best.source, ENGINE) {
        Ok(r) => r,
        Err(e) => {
            // An engine bug: never print the schedule. Report honestly.
            log::error!("{e}");
            let mut r =
                SolveResult::without_schedule(Status::Unknown, lb, &bounds.best.source, ENGINE);
            r.internal(e.to_string());
            return r;
        }
    };
    r.notes.extend(notes);
    r.note(format!("best schedule: {}", best.how));
    r
}
