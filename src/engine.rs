//! One engine interface. Every engine (list scheduling, SAT, MILP, and the
//! portfolio that composes them) implements [`Engine`]: it gets one search
//! context (the instance, its proven bounds, a deadline that also carries the
//! portfolio's cancel flag, the shared options) and an incumbent result (a
//! validated schedule or none, and a proven bound), and returns the better of
//! the incumbent and what it found and proved.
//!
//! [`solve`] runs an engine alone: the incumbent step (list scheduling on the
//! engine's share of the time, [`Engine::incumbent_share`]), the engine's
//! search, and list scheduling for whatever time an unfinished search leaves.
//! `tmin solve` and `tmin bench` both come here through [`run`], so a bench line
//! says what `tmin solve` would have said with the same settings.
//!
//! A fourth engine is one module implementing the trait plus one line in
//! [`EngineChoice::engine`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::bounds::{Bounds, lower_bounds};
use crate::instance::Instance;
use crate::list::ListOptions;
use crate::list::priority::Rule;
use crate::local::Effort;
use crate::milp::MilpOptions;
use crate::sat::choices::{LevelRefutations, Pass, Proven};
use crate::solve::{Deadline, NoteKind, SolveOptions, SolveResult, Status};

/// What every engine searches from.
pub struct Context<'a> {
    pub inst: &'a Instance,
    /// The combinatorial bounds (computed once per solve).
    pub bounds: &'a Bounds,
    /// Refutations the choice enumeration made at the levels of the bound,
    /// for its later passes in the same solve.
    pub at_levels: &'a LevelRefutations,
    /// When to hand back; cancelled early when another engine settled the
    /// instance (the portfolio's flag).
    pub deadline: Deadline,
    /// Seed, threads, progress, memory budget, certificates, warm start.
    pub opts: &'a SolveOptions,
}

impl<'a> Context<'a> {
    /// The same context with another deadline.
    pub fn with_deadline(&self, deadline: Deadline) -> Context<'a> {
        Context { deadline, ..*self }
    }
}

/// How much of the time an engine run alone gives its incumbent step.
#[derive(Clone, Copy, Debug)]
pub struct IncumbentShare {
    /// Seconds of list scheduling for a time limit (s) and a largest node count.
    pub seconds: fn(limit: f64, nodes: u64) -> f64,
    /// Stop early after this many non-improving passes (`None`: use it all).
    pub patience: Option<usize>,
}

/// An engine: a search that improves an incumbent within a deadline.
pub trait Engine: Sync {
    /// The name results carry ("list", "sat", "milp", "auto").
    fn name(&self) -> &'static str;

    /// Searches from `incumbent` (a result whose schedule, if any, passed the
    /// validator, and whose bound is proven) until `ctx.deadline`. Returns a
    /// result at least as good: never a worse schedule, never a smaller bound.
    /// A settled incumbent (optimal or infeasible) is handed back at once.
    fn search(&self, ctx: &Context, incumbent: SolveResult) -> SolveResult;

    /// The incumbent step when the engine runs alone; `None`: the engine
    /// builds its own first schedule (list scheduling itself).
    fn incumbent_share(&self) -> Option<IncumbentShare> {
        None
    }

    /// Whether the engine's runs go through [`incumbent`] (through
    /// [`solve_in`] with an incumbent share, or calling it itself as the
    /// portfolio does): that step computes the window net's bound.
    fn runs_incumbent_step(&self) -> bool {
        self.incumbent_share().is_some()
    }
}

/// Runs `engine` alone on `inst` within `opts.time_limit`.
pub fn solve(engine: &dyn Engine, inst: &Instance, opts: &SolveOptions) -> SolveResult {
    let t0 = Instant::now();
    let deadline = Deadline::after(opts.time_limit);
    let mut bounds = lower_bounds(inst);
    if let Err(e) = crate::tmax::start_limit(inst) {
        // Beyond the start times any engine writes: the combinatorial
        // bounds hold (they saturate downwards), nothing else is claimed.
        let mut r = SolveResult::without_schedule(
            Status::Unknown,
            bounds.best.value,
            &bounds.best.source,
            engine.name(),
        );
        r.note(e.msg);
        r.wall_seconds = t0.elapsed().as_secs_f64();
        return r;
    }
    if engine.name() != "greedy" {
        // Engines with an incumbent step get the window net's bound there,
        // capped by the incumbent (`incumbent`); list scheduling alone gets
        // it here, to know when to stop.
        let windows = opts.certify.is_none() && !engine.runs_incumbent_step();
        // Certified proofs rest on the encoding alone: no refuted choices
        // (uncertified SAT answers) under `--certify`.
        let refute = opts.certify.is_none().then_some(opts.memory_limit_mib);
        if let Some(mib) = refute {
            refute_choices(inst, &mut bounds, &deadline, mib);
        }
        strengthen(inst, &mut bounds, &deadline, windows, refute);
    }
    let at_levels = LevelRefutations::default();
    let ctx = Context {
        inst,
        bounds: &bounds,
        at_levels: &at_levels,
        deadline,
        opts,
    };
    let mut r = solve_in(engine, &ctx);
    // The engine asked for answers for the result, also where its incumbent
    // step settled the instance before its own search ran.
    if !r.engine.starts_with(engine.name()) {
        r.engine = engine.name().to_string();
    }
    note_refuted(inst, &bounds.nogoods, &mut r);
    r.wall_seconds = t0.elapsed().as_secs_f64();
    r
}

/// Most refuted tilings named one by one in a result's notes.
const REFUTED_NOTES: usize = 10;

/// The refuted tiling choices in the result's notes: each refuted tiling (up
/// to `REFUTED_NOTES`) as proven unschedulable, then the counts.
fn note_refuted(inst: &Instance, ng: &crate::prep::nogoods::TilingNogoods, r: &mut SolveResult) {
    if ng.is_empty() {
        return;
    }
    for &(op, t) in ng.refuted.iter().take(REFUTED_NOTES) {
        let o = &inst.graph.ops[op as usize];
        let tiling = inst.library.tilings[t as usize].id;
        r.note_as(
            NoteKind::Unschedulable {
                op: o.id,
                tiling,
                proven: true,
            },
            format!(
                "op {} tiling {tiling}: no legal schedule beside its neighbouring ops (refuted)",
                o.id
            ),
        );
    }
    if ng.refuted.len() > REFUTED_NOTES {
        r.note(format!(
            "... and {} more refuted tilings",
            ng.refuted.len() - REFUTED_NOTES
        ));
    }
    r.note_as(NoteKind::Pruned, ng.summary());
}

/// The bounds every engine starts from: the combinatorial ones, the
/// tiling-choice relaxation (models/bounds.md §6) and, with `windows`, the
/// window net's destructive bound (§7), on at most 15 % of the time (2 s
/// at most). The window net is left out under `--certify` (its bound rests
/// on no SAT answer, and the SAT engine's certified proofs should carry the
/// bounds they can) and where the incumbent step computes it
/// (`window_bound`, capped by the incumbent's makespan).
pub fn strengthen(
    inst: &Instance,
    bounds: &mut Bounds,
    deadline: &Deadline,
    windows: bool,
    refute: Option<u64>,
) {
    // The 2 s cap is an effort of this thread's CPU time (src/stop.rs):
    // a loaded machine refutes what a quiet one does, within the share.
    let share = deadline
        .share(STRENGTHEN_SHARE)
        .capped_effort(Duration::from_secs(2));
    if let Some(b) = tiling_choice_bound(inst, bounds, &share, refute) {
        bounds.add(b);
    }
    if !windows {
        return;
    }
    // The window net's cheap levels (propagation, a round or two of
    // shaving); exact engines escalate it themselves where probes are hard.
    let quick = share.capped(WINDOW_BOUND_QUICK);
    if let Some(b) =
        crate::sat::windows::bound(inst, &bounds.nogoods, bounds.best.value, None, &quick)
    {
        bounds.add(b);
    }
}

/// Tiling choices refuted on small sub-instances (models/sat.md §1.2,
/// `sat::context`), on at most 5 % of the time (0.5 s at most): every later
/// bound and the SAT engine range over what is left. When tilings are
/// refuted, the combinatorial bounds are computed again over the rest.
pub fn refute_choices(inst: &Instance, bounds: &mut Bounds, deadline: &Deadline, memory_mib: u64) {
    let share = deadline.share(REFUTE_SHARE).capped_effort(REFUTE_TIME);
    let budget = crate::sat::budget_bytes(memory_mib) / 8;
    let cand = crate::prep::dominance::candidates_of_every_op(inst);
    let ng = crate::sat::context::refute(inst, cand, &share, budget);
    if ng.is_empty() {
        return;
    }
    log::info!("{}", ng.summary());
    if let Some(cand) = &ng.cand {
        let over = crate::bounds::lower_bounds_over(inst, Some(cand));
        for (h, x) in bounds.op_head.iter_mut().zip(&over.op_head) {
            *h = (*h).max(*x);
        }
        for (q, x) in bounds.op_tail.iter_mut().zip(&over.op_tail) {
            *q = (*q).max(*x);
        }
        if over.best.value > bounds.best.value {
            bounds.add(crate::bounds::Bound {
                value: over.best.value,
                source: format!("{}, refuted tilings left out", over.best.source),
            });
        }
    }
    bounds.nogoods = ng;
}

/// The tiling-choice relaxation (models/bounds.md §6). With `refute` (the
/// memory limit in MiB; `None` under `--certify`), its optimal choices are
/// checked too: while one has an op neighbourhood
/// without a legal schedule (`sat::context::refute_choice`), those
/// combinations are cut (kept in `bounds.nogoods`, for every later bound
/// and engine) and the relaxation is solved again, at most
/// `CHOICE_ROUNDS` times.
pub fn tiling_choice_bound(
    inst: &Instance,
    bounds: &mut Bounds,
    deadline: &Deadline,
    refute: Option<u64>,
) -> Option<crate::bounds::Bound> {
    let t = Instant::now();
    let budget = crate::sat::budget_bytes(refute.unwrap_or(0)) / 8;
    // Checks stop at 80 % of the time: the relaxation's last solve and the
    // bounds after it (the window net's quick levels, 40 ms) keep the rest.
    let checks = deadline.share(CHECKS_SHARE);
    // Cuts do not change the candidates.
    let cands = bounds.nogoods.candidates(inst);
    let mut last = None;
    for _ in 0..CHOICE_ROUNDS {
        let Some((b, choice)) = crate::milp::aggregate::solve(inst, bounds, deadline) else {
            break;
        };
        last = Some(b);
        let Some(choice) = choice.filter(|_| refute.is_some()) else {
            break;
        };
        // A set of ops without a choice left proves the instance infeasible
        // (the relaxation would have no solution): the engines prove that
        // themselves. A set found again (the relaxation did not cut it) ends
        // the loop too.
        let sets: Vec<Vec<(u32, u32)>> =
            crate::sat::context::refute_choice(inst, &choice, &checks, budget)
                .into_iter()
                .filter(|s| s.iter().any(|&(o, _)| cands[o as usize].len() > 1))
                .filter(|s| !bounds.nogoods.sets.contains(s))
                .collect();
        if sets.is_empty() {
            break;
        }
        bounds.nogoods.sets.extend(sets);
    }
    if !bounds.nogoods.sets.is_empty() {
        bounds.nogoods.seconds += t.elapsed().as_secs_f64();
        log::info!("{}", bounds.nogoods.summary());
    }
    last
}

/// Shares of the time of `strengthen` and, of that, of the checks of
/// `tiling_choice_bound`: hard-o25-s2's two combinations refuted there (the
/// bound 166 -> 171, and choices the searches would spend their answers on
/// without a schedule) take 0.29 s on a quiet machine; at 10 s with a
/// tenth and a half (0.5 s) a slower moment lost them on 4 runs of 21, and
/// the run with them (2026-11-27).
const STRENGTHEN_SHARE: f64 = 0.15;
const CHECKS_SHARE: f64 = 0.8;

/// Most times `tiling_choice_bound` solves the relaxation.
const CHOICE_ROUNDS: usize = 50;

/// Share of the time `refute_choices` takes, and at most this long: on
/// the memory-tight set every refutation that raised a bound came within
/// 0.2 s, while passes that refute nothing useful run to their limit.
const REFUTE_SHARE: f64 = 0.05;
const REFUTE_TIME: Duration = Duration::from_millis(500);

/// The window net's time in the starting bounds and the incumbent step:
/// its cheap levels (propagation, a round of shaving). The SAT engine
/// shaves further when its probes get hard (`sat::Descent::escalate`).
const WINDOW_BOUND_QUICK: Duration = Duration::from_millis(40);

/// Every bound tmin proves without search, within `limit`: the combinatorial
/// bounds (also over the tilings refutation leaves), the tiling-choice
/// relaxation and the window net (`tmin bound`, `check --bound`,
/// `score`'s fallback T_min).
pub fn proven_bounds(inst: &Instance, limit: Duration) -> Bounds {
    let mut b = lower_bounds(inst);
    if crate::tmax::start_limit(inst).is_err() {
        // The searches below range over start times tmin writes; beyond
        // them only the combinatorial bounds hold.
        return b;
    }
    let deadline = Deadline::after(limit);
    let mib = SolveOptions::default().memory_limit_mib;
    refute_choices(inst, &mut b, &deadline, mib);
    if let Some(x) = tiling_choice_bound(inst, &mut b, &deadline, Some(mib)) {
        b.add(x);
    }
    if let Some(x) = crate::sat::windows::bound(inst, &b.nogoods, b.best.value, None, &deadline) {
        b.add(x);
    }
    b
}

/// [`solve`] within a given context.
pub fn solve_in(engine: &dyn Engine, ctx: &Context) -> SolveResult {
    let Some(share) = engine.incumbent_share() else {
        let none = SolveResult::without_schedule(
            Status::Unknown,
            ctx.bounds.best.value,
            &ctx.bounds.best.source,
            engine.name(),
        );
        return engine.search(ctx, none);
    };
    // A settled incumbent goes to the engine too: it hands it back at once
    // (saying so where a user asked it for something, e.g. a model export).
    let r = engine.search(ctx, incumbent(ctx, share));
    list_for_the_rest(ctx, r)
}

/// The incumbent step, written once: list scheduling on the share of the time
/// the engine asks for. An op without a usable tiling settles the instance
/// (infeasible); a schedule that meets the lower bound settles it too.
pub fn incumbent(ctx: &Context, share: IncumbentShare) -> SolveResult {
    let limit = ctx.deadline.remaining().as_secs_f64();
    // Not capped by the limit: even a zero limit gets the few milliseconds
    // of a first schedule (the output reserve covers them).
    let secs = (share.seconds)(limit, crate::portfolio::max_nodes(ctx.inst)).max(0.0);
    let t = Instant::now();
    let list = ListEngine {
        options: ListOptions {
            patience: share.patience,
            ..ListOptions::default()
        },
    };
    let mut r = list.run(ctx, Duration::from_secs_f64(secs), ctx.opts.start.clone());
    let msg = match r.makespan {
        Some(m) => format!(
            "incumbent {m} from list scheduling in {:.2} s (at most {secs:.2} s)",
            t.elapsed().as_secs_f64()
        ),
        None if r.status == Status::Infeasible => {
            "list scheduling: no op may be left without a tiling".to_string()
        }
        None => "list scheduling found no schedule: the exact engine decides".to_string(),
    };
    r.note_as(NoteKind::Incumbent, msg);
    // The core orders first: a better incumbent caps the window net's
    // search, and often settles the instance with the bound it had.
    let (r, _) = sequence_search(ctx, r, Effort::QUICK);
    let mut r = window_bound(ctx, r);
    if r.status == Status::Optimal {
        r.note("the incumbent meets the lower bound: done");
    }
    r
}

/// The window net's destructive bound (models/bounds.md §7) between the
/// proven bound and the incumbent's makespan, on at most
/// `WINDOW_BOUND_QUICK`: computed after list scheduling so that an incumbent
/// that already meets the combinatorial bounds costs nothing, and the search
/// never refutes makespans the incumbent has. Not under `--certify`.
fn window_bound(ctx: &Context, mut r: SolveResult) -> SolveResult {
    if r.status.is_settled() || ctx.opts.certify.is_some() {
        return r;
    }
    let t = Instant::now();
    let quick = ctx.deadline.share(0.1).capped(WINDOW_BOUND_QUICK);
    let lo = r.lower_bound.max(ctx.bounds.best.value);
    if let Some(b) =
        crate::sat::windows::bound(ctx.inst, &ctx.bounds.nogoods, lo, r.makespan, &quick)
    {
        log::info!(
            "window net: bound {} in {:.3} s",
            b.value,
            t.elapsed().as_secs_f64()
        );
        r.raise_bound(b.value, &b.source);
    }
    r
}

/// The incumbent's core orders improved by tabu search (local.rs) on the
/// share of the time `effort` gives (the incumbent step: a twentieth, 3 s at
/// most); the search gives up earlier when `effort` runs out without a new
/// best. Returns the result and whether the search stopped well before its
/// share (a tenth or more of it left): it gave up, having searched around
/// the schedule it hands over.
pub fn sequence_search(ctx: &Context, r: SolveResult, effort: Effort) -> (SolveResult, bool) {
    let t = Instant::now();
    let share = effort.budget(ctx.deadline.remaining());
    let r = improve_orders(ctx, r, effort, t, share);
    (r, t.elapsed() < share.mul_f64(0.9))
}

fn improve_orders(
    ctx: &Context,
    r: SolveResult,
    effort: Effort,
    t: Instant,
    share: std::time::Duration,
) -> SolveResult {
    let Some(s) = r.schedule.as_ref() else {
        return r;
    };
    if r.status.is_settled() {
        return r;
    }
    let seed = ctx.opts.seed.wrapping_add(effort.give_up_after as u64);
    let Some(better) = crate::local::improve(ctx.inst, s, r.lower_bound, t + share, seed, effort)
    else {
        return r;
    };
    let before = r.makespan;
    let engine = r.engine.clone();
    let mut r = with_improvement(ctx, r, better, "tabu search", &engine);
    if r.makespan < before {
        r.note(format!(
            "core orders by tabu search: makespan {} -> {} in {:.2} s",
            before.unwrap_or(0),
            r.makespan.unwrap_or(0),
            t.elapsed().as_secs_f64()
        ));
    }
    r
}

/// `r` with an improver's schedule, validated (`SolveResult::found`) and
/// merged with the incumbent's bound and notes; a schedule the validator
/// rejects is an internal error of `what`, never output.
fn with_improvement(
    ctx: &Context,
    mut r: SolveResult,
    better: crate::schedule::Schedule,
    what: &str,
    engine: &str,
) -> SolveResult {
    let (lb, src) = (r.lower_bound, r.bound_source.clone());
    // Named after the engine that found it (merge joins the names): a
    // schedule the SAT engine's searches found is not list scheduling's.
    match SolveResult::found(ctx.inst, better, lb, &src, engine) {
        Ok(more) => crate::portfolio::merge(r, more),
        Err(e) => {
            r.internal(format!("{what}: {}", e.message));
            r
        }
    }
}

/// The best schedule improved by the SAT engine's large-neighbourhood
/// search on `share` of the time left: over one encoding with assumptions
/// (sat/lns.rs) where the whole encoding fits, else over time windows with an
/// encoding per neighbourhood (sat/lns_windows.rs); the result keeps its
/// bound (the search's UNSAT answers concern neighbourhoods, not the
/// instance). `round` numbers the calls of one solve: each draws its
/// neighbourhoods from a stream of its own, so that a second call from the
/// same schedule does not repeat the first one's.
pub fn neighbourhood_search(ctx: &Context, r: SolveResult, share: f64, round: u64) -> SolveResult {
    large_neighbourhoods(ctx, r, share, round, false)
}

/// The large-neighbourhood search over time windows only, whatever the
/// whole encoding's size: each neighbourhood's encoding is small (at most
/// 128 MiB), so a second thread may run it beside a whole encoding (its note
/// calls it a second chain).
pub fn window_search(ctx: &Context, r: SolveResult, share: f64, round: u64) -> SolveResult {
    large_neighbourhoods(ctx, r, share, round, true)
}

fn large_neighbourhoods(
    ctx: &Context,
    r: SolveResult,
    share: f64,
    round: u64,
    windows_only: bool,
) -> SolveResult {
    let Some(s) = r.schedule.as_ref() else {
        return r;
    };
    if r.status.is_settled() || ctx.deadline.expired() {
        return r;
    }
    let t = Instant::now();
    let deadline = ctx.deadline.share(share);
    let budget = crate::sat::budget_bytes(ctx.opts.memory_limit_mib);
    // One encoding for every neighbourhood where it fits; else one small
    // encoding per neighbourhood, over time windows.
    let whole = !windows_only && crate::sat::lns::whole_fits(ctx.inst, s, budget);
    let (kind, improve): (&str, crate::sat::lns::Improve) = if whole {
        ("orders", crate::sat::lns::improve)
    } else if windows_only {
        (
            "time windows, a second chain",
            crate::sat::lns_windows::improve,
        )
    } else {
        ("time windows", crate::sat::lns_windows::improve)
    };
    let seed = crate::rng::SplitMix64::stream(ctx.opts.seed, round).next_u64();
    let (better, stats) = improve(
        ctx.inst,
        &ctx.bounds.nogoods,
        s,
        r.lower_bound,
        &deadline,
        seed,
        budget,
    );
    let before = r.makespan;
    let mut r = match better {
        Some(better) => with_improvement(ctx, r, better, "neighbourhood search", "sat"),
        None => r,
    };
    r.note(format!(
        "large-neighbourhood search ({kind}): makespan {} -> {} in {:.2} s ({} neighbourhoods \
         improved, {} exhausted, {} out of time{}{}; up to {} ops freed)",
        before.unwrap_or(0),
        r.makespan.unwrap_or(0),
        t.elapsed().as_secs_f64(),
        stats.improved,
        stats.exhausted,
        stats.timed_out,
        if stats.sideways > 0 {
            format!(", {} sideways", stats.sideways)
        } else {
            String::new()
        },
        if stats.kicks > 0 {
            format!(", {} kicks", stats.kicks)
        } else {
            String::new()
        },
        stats.max_freed
    ));
    r
}

/// The choice-driven search (sat/choices.rs, models/sat.md §10) on `share`
/// of the time left: whole tiling choices from the relaxation, each decided
/// by the SAT engine with every op fixed, below the incumbent or at the
/// bound's level (`pass`). Its schedule (validated) and its bound (the
/// enumeration's, when higher) are merged.
pub fn choice_search(ctx: &Context, r: SolveResult, share: f64, pass: Pass) -> SolveResult {
    if r.status.is_settled() || ctx.deadline.expired() {
        return r;
    }
    let t = Instant::now();
    let deadline = ctx.deadline.share(share);
    let budget = crate::sat::budget_bytes(ctx.opts.memory_limit_mib);
    // Answers get more time when there is more: an eightieth of the share
    // at first (at least the default), up to an eighth. (With a fortieth and
    // a quarter, hard-o25-s3 spent its 120 s of 300 on 6 choices, none
    // decided, 2026-11-25.) The early level pass hands back where a choice
    // stays undecided in an eighth of its time, whatever the share: the
    // searches after it need the rest.
    let span = deadline.remaining();
    let base = crate::sat::choices::ChoiceOptions::default();
    let opts = crate::sat::choices::ChoiceOptions {
        first_sub_time: (span / 80).max(base.first_sub_time),
        max_sub_time: if pass == Pass::EarlyLevels {
            span / 8
        } else {
            (span / 8).max(base.max_sub_time)
        },
        // A second an answer of a choice encoded alone, but at most an
        // eighth of the share (short runs keep several choices).
        alone_sub_time: base.alone_sub_time.min(span / 8),
        // Below the incumbent, an eighth of the share (at least 8 s)
        // without progress hands the time back: answers that slow come
        // faster from the neighbourhood search, and the level enumeration
        // needs the time (hard-o12-s4, 300 s: 120 s of the choice search
        // for 132 -> 119, gaps of 26-38 s between its steps, 2026-11-25).
        // At 4 s it cut proofs short at 20 s (hard-o12-s6, hard-o25-s1).
        idle: if pass.at_levels() {
            base.idle
        } else {
            (span / 8).max(Duration::from_secs(8))
        },
        pass,
        ..base
    };
    let out = crate::sat::choices::search(
        ctx.inst,
        ctx.bounds,
        Proven {
            lb: r.lower_bound,
            at_levels: ctx.at_levels,
        },
        r.schedule.as_ref(),
        &deadline,
        budget,
        &opts,
    );
    if out.infeasible && r.schedule.is_none() {
        let mut inf =
            SolveResult::without_schedule(Status::Infeasible, 0, "none (infeasible)", &r.engine);
        inf.notes = r.notes;
        inf.note(format!(
            "infeasible: each of the {} tiling choices the relaxation leaves has no schedule at \
             its horizon (every legal schedule compacts to one within the sum of its durations; \
             models/sat.md §10)",
            out.stats.tried
        ));
        return inf;
    }
    let before = r.makespan;
    let mut r = match out.schedule {
        Some(better) => with_improvement(ctx, r, better, "choice search", "sat"),
        None => r,
    };
    if let Some(b) = &out.bound {
        r.raise_bound(b.value, &b.source);
    }
    let st = &out.stats;
    let shown = |m: Option<u128>| m.map_or("none".to_string(), |m| m.to_string());
    r.note(format!(
        "choice search{}: makespan {} -> {} in {:.2} s ({} tiling choices from the relaxation, \
         {}: {} improvements, {} refuted{}, {} undecided at {:.2} s each{})",
        match pass {
            Pass::Below => "",
            Pass::Levels => " at the bound's level",
            Pass::EarlyLevels => " at the bound's level (early pass)",
        },
        shown(before),
        shown(r.makespan),
        t.elapsed().as_secs_f64(),
        st.tried,
        if st.shared {
            "under assumptions in one encoding"
        } else {
            "each encoded alone"
        },
        st.improved,
        st.refuted,
        // The net checks choices at the level only (below the incumbent the
        // encoding's cores refute faster).
        if pass.at_levels() {
            format!(" ({} by the window net alone)", st.net_refuted)
        } else {
            String::new()
        },
        st.skipped,
        st.sub_time,
        if st.resumed > 0 {
            format!("; {} answers went on where the last stopped", st.resumed)
        } else {
            String::new()
        }
    ));
    r
}

/// Time left and no proof (an engine that stepped aside, a search that gave
/// up): list scheduling improves the best schedule until the deadline, so
/// the time is never returned unused.
pub fn list_for_the_rest(ctx: &Context, r: SolveResult) -> SolveResult {
    if r.status.is_settled() || ctx.deadline.remaining() <= Duration::from_millis(500) {
        return r;
    }
    let t = Instant::now();
    let before = r.makespan;
    let start = r.schedule.clone().map(Arc::new).or(ctx.opts.start.clone());
    let more = ListEngine::default().run(ctx, ctx.deadline.remaining(), start);
    let mut r = crate::portfolio::merge(r, more);
    let shown = |m: Option<u128>| m.map_or("none".to_string(), |m| m.to_string());
    let msg = format!(
        "no proof yet: list scheduling used the remaining {:.2} s (makespan {} -> {})",
        t.elapsed().as_secs_f64(),
        shown(before),
        shown(r.makespan)
    );
    r.note_as(NoteKind::ListForTheRest, msg);
    r
}

/// List scheduling (list/): the fast engine, and every other engine's
/// incumbent step.
#[derive(Clone, Debug, Default)]
pub struct ListEngine {
    pub options: ListOptions,
}

impl ListEngine {
    /// One run of `time_limit` from an optional warm start.
    fn run(
        &self,
        ctx: &Context,
        time_limit: Duration,
        start: Option<Arc<crate::schedule::Schedule>>,
    ) -> SolveResult {
        let opts = SolveOptions {
            time_limit,
            start,
            ..ctx.opts.clone()
        };
        crate::list::solve_with_bounds(ctx.inst, &opts, &self.options, ctx.bounds)
    }
}

impl Engine for ListEngine {
    fn name(&self) -> &'static str {
        "list"
    }
    fn search(&self, ctx: &Context, incumbent: SolveResult) -> SolveResult {
        if incumbent.status.is_settled() {
            return incumbent;
        }
        let start = incumbent
            .schedule
            .clone()
            .map(Arc::new)
            .or(ctx.opts.start.clone());
        let r = self.run(ctx, ctx.deadline.remaining(), start);
        if incumbent.schedule.is_none() && incumbent.notes.is_empty() {
            return r;
        }
        crate::portfolio::merge(incumbent, r)
    }
}

/// One pass of one priority rule (`--engine greedy --rule R`): a baseline.
#[derive(Clone, Copy, Debug)]
pub struct GreedyEngine(pub Rule);

impl Engine for GreedyEngine {
    fn name(&self) -> &'static str {
        "greedy"
    }
    fn search(&self, ctx: &Context, _incumbent: SolveResult) -> SolveResult {
        crate::list::greedy(ctx.inst, &ctx.deadline, ctx.bounds, self.0)
    }
}

/// The SAT engine (sat/): order encoding, lazy memory cuts, probes on the
/// makespan.
#[derive(Clone, Copy, Debug, Default)]
pub struct SatEngine {
    /// Give up at this share of the time when no probe has been answered
    /// (the portfolio's setting; `None` when SAT runs alone).
    pub first_answer_share: Option<f64>,
    /// Hand back when a probe below the top runs out of its share (the
    /// portfolio's setting: the tabu search then gets a turn).
    pub hand_back_when_stuck: bool,
    /// No bound probes from below (`sat::Policy::bound_probes`): the
    /// portfolio's setting where core orders decide the schedule.
    pub no_bound_probes: bool,
}

impl Engine for SatEngine {
    fn name(&self) -> &'static str {
        "sat"
    }
    fn search(&self, ctx: &Context, incumbent: SolveResult) -> SolveResult {
        if incumbent.status.is_settled() {
            return incumbent;
        }
        let policy = crate::sat::Policy {
            first_answer_by: self.first_answer_share.map(|f| ctx.deadline.at_share(f)),
            hand_back_when_stuck: self.hand_back_when_stuck,
            bound_probes: !self.no_bound_probes,
        };
        crate::sat::search_certified(
            ctx.inst,
            &ctx.deadline,
            ctx.bounds,
            incumbent,
            policy,
            ctx.opts.memory_limit_mib,
            ctx.opts.certify.as_deref(),
        )
    }
    fn incumbent_share(&self) -> Option<IncumbentShare> {
        // A twentieth of the time, capped at a millisecond per node (at
        // least 50 ms): proofs need the time, and the search itself improves
        // the incumbent.
        Some(IncumbentShare {
            seconds: |limit, nodes| (limit * 0.05).min((nodes as f64 * 0.001).max(0.05)),
            patience: Some(crate::list::INCUMBENT_PATIENCE),
        })
    }
}

/// The MILP engine (milp/): tiling combinations solved with HiGHS.
#[derive(Clone, Debug, Default)]
pub struct MilpEngine {
    pub options: MilpOptions,
}

impl Engine for MilpEngine {
    fn name(&self) -> &'static str {
        "milp"
    }
    fn search(&self, ctx: &Context, incumbent: SolveResult) -> SolveResult {
        crate::milp::search(
            ctx.inst,
            ctx.opts,
            &self.options,
            &ctx.deadline,
            ctx.bounds,
            incumbent,
        )
    }
    fn incumbent_share(&self) -> Option<IncumbentShare> {
        // A five-hundredth of the time, 50-500 ms, without patience: the
        // MILP improves incumbents slowly, so a better MIP start pays.
        Some(IncumbentShare {
            seconds: |limit, _| (limit * 0.002).clamp(0.05, 0.5),
            patience: None,
        })
    }
}

/// Which engine `--engine` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineChoice {
    Auto,
    List,
    Milp,
    Sat,
    /// One pass of one priority rule.
    Greedy(Rule),
}

impl EngineChoice {
    /// The `--engine` value (the greedy rule is not part of it).
    pub fn name(self) -> &'static str {
        match self {
            EngineChoice::Auto => "auto",
            EngineChoice::List => "list",
            EngineChoice::Milp => "milp",
            EngineChoice::Sat => "sat",
            EngineChoice::Greedy(_) => "greedy",
        }
    }

    /// The engine (the registry: one line per engine).
    pub fn engine(self, mopts: &MilpOptions) -> Box<dyn Engine> {
        match self {
            EngineChoice::Auto => Box::new(crate::portfolio::Portfolio {
                milp: mopts.clone(),
            }),
            EngineChoice::List => Box::new(ListEngine::default()),
            EngineChoice::Milp => Box::new(MilpEngine {
                options: mopts.clone(),
            }),
            EngineChoice::Sat => Box::new(SatEngine::default()),
            EngineChoice::Greedy(rule) => Box::new(GreedyEngine(rule)),
        }
    }
}

/// Time kept back from the engines for what follows them: the final
/// validation in `SolveResult::found`, the node graph and `write_schedule`,
/// and the summary. Measured at 10^6 nodes (`tmin gen --ops 10000 --nodes
/// 100-100 --seed 1`, three runs, results/sat-budget.md): validation 160-205
/// ns a node, node graph and writing 96-158 ns a node, the summary nothing
/// to speak of; the reserve is three times 350 ns a node, plus 20 ms.
pub fn output_reserve(nodes: u64) -> Duration {
    const MEASURED_NS_PER_NODE: u64 = 350;
    Duration::from_millis(20) + Duration::from_nanos(nodes.saturating_mul(3 * MEASURED_NS_PER_NODE))
}

/// What the engines get when the whole command must end by `end`: what is
/// left, less the reserve for validating and writing.
pub fn engine_budget(inst: &Instance, end: Instant) -> Duration {
    let reserve = output_reserve(crate::portfolio::max_nodes(inst));
    end.saturating_duration_since(Instant::now())
        .saturating_sub(reserve)
}

/// Runs the chosen engine alone (what `tmin solve` and `tmin bench` run).
pub fn run(
    inst: &Instance,
    engine: EngineChoice,
    opts: &SolveOptions,
    mopts: &MilpOptions,
) -> SolveResult {
    solve(engine.engine(mopts).as_ref(), inst, opts)
}
