//! Search steps written once, which the runner and the portfolio compose:
//! the incumbent step (list scheduling, then the core orders), the window
//! net's bound capped by the incumbent, order and neighbourhood searches,
//! the choice search, and list scheduling for the time left.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::policy::POLICY;
use crate::engine::{Context, IncumbentShare};
use crate::list::ListOptions;
use crate::list::engine::ListEngine;
use crate::local::Effort;
use crate::sat::choices::{NaturalVerdict, Pass, Proven};
use crate::solve::{NoteKind, SolveResult, Status};

/// Graphs up to this many nodes get their incumbent step's first schedule
/// even where no time is left (a node graph and a pass of 10^5 nodes take
/// milliseconds).
const UNCAPPED_FIRST_NODES: u64 = 100_000;

/// The incumbent step, written once: list scheduling on the share of the time
/// the engine asks for. An op without a usable tiling settles the instance
/// (infeasible); a schedule that meets the lower bound settles it too.
pub fn incumbent(ctx: &Context, share: IncumbentShare) -> SolveResult {
    let limit = ctx.deadline.remaining().as_secs_f64();
    // Not capped by the limit up to `UNCAPPED_FIRST_NODES` nodes: even a
    // zero limit gets the few milliseconds of a first schedule there (the
    // output reserve covers them). Above, a node graph alone takes longer
    // (about a second at 10^7 nodes), and the limit caps the step.
    let secs = (share.seconds)(limit, ctx.inst.max_nodes()).max(0.0);
    let secs = if ctx.inst.max_nodes() <= UNCAPPED_FIRST_NODES {
        secs
    } else {
        secs.min(limit)
    };
    let t = Instant::now();
    let list = ListEngine {
        options: ListOptions {
            patience: share.patience,
            ..ListOptions::default()
        },
    };
    let mut r = list.run(ctx, Duration::from_secs_f64(secs), ctx.opts.start.clone());
    // No schedule in the share: where it found none for want of time (it
    // used its share; not an instance without a usable tiling), once more
    // on `Policy::incumbent_retry` of the time left: an exact engine
    // without an incumbent models the whole horizon, where list scheduling
    // with a little more time often finds a schedule (the test below).
    // Where it returned early it tried every way it has, as on instances
    // the exact engines prove infeasible, which a second run would only
    // keep waiting.
    let mut secs = secs;
    let used_its_share = t.elapsed().as_secs_f64() >= 0.9 * secs;
    if r.makespan.is_none()
        && r.status != Status::Infeasible
        && used_its_share
        && !ctx.deadline.expired()
    {
        let again = ctx.deadline.remaining().as_secs_f64() * POLICY.incumbent_retry;
        if again > secs {
            log::info!("incumbent step: no schedule in {secs:.2} s; again with {again:.2} s");
            let r2 = list.run(ctx, Duration::from_secs_f64(again), ctx.opts.start.clone());
            if r2.makespan.is_some() {
                r = r2;
            }
            secs += again;
        }
    }
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
    r.offer_to(&ctx.opts.events);
    // The core orders first: a better incumbent caps the window net's
    // search, and often settles the instance with the bound it had.
    let (r, _) = sequence_search(ctx, r, Effort::QUICK);
    let mut r = window_bound(ctx, r);
    if r.status == Status::Optimal {
        r.note("the incumbent meets the lower bound: done");
    }
    r.offer_to(&ctx.opts.events);
    r
}

/// The window net's destructive bound (models/bounds.md §7) between the
/// proven bound and the incumbent's makespan, on at most
/// `Policy::window_quick`: computed after list scheduling so that an incumbent
/// that already meets the combinatorial bounds costs nothing, and the search
/// never refutes makespans the incumbent has. Not under `--certify`.
fn window_bound(ctx: &Context, mut r: SolveResult) -> SolveResult {
    if r.status.is_settled() || ctx.opts.certify.is_some() {
        return r;
    }
    let t = Instant::now();
    let quick = ctx
        .deadline
        .share(POLICY.window_share)
        .capped(POLICY.window_quick);
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
        Ok(more) => {
            if let Some(ms) = more.makespan {
                ctx.opts.events.incumbent(ms, engine, || what.to_string());
            }
            crate::solve::merge(r, more)
        }
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
    r.offer_to(&ctx.opts.events);
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
    // at first (at least the default), up to an eighth (larger shares spent
    // the time on a few choices, none decided). The early level pass hands back where a choice
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
        // needs the time; a shorter idle time cut proofs short
        // (results/policy.md).
        idle: if pass.at_levels() {
            base.idle
        } else {
            (span / 8).max(Duration::from_secs(8))
        },
        pass,
        events: ctx.opts.events.clone(),
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
        let mut r = r;
        inf.take_history(&mut r);
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
    r.offer_to(&ctx.opts.events);
    r
}

/// The natural choice (each op's tiling of the shortest critical path)
/// decided at the bound's level (`sat::choices::natural_at_level`) on
/// `time` of this thread's CPU, at most twice that on the wall clock (the
/// same work on a loaded machine, within bounds): a schedule there is
/// optimal; a refutation joins the level refutations that the level
/// passes start from (models/sat.md §10.1).
pub fn natural_at_bound(ctx: &Context, r: SolveResult, time: Duration) -> SolveResult {
    if r.status.is_settled() || ctx.deadline.expired() {
        return r;
    }
    let t = Instant::now();
    let level = r.lower_bound;
    let verdict = crate::sat::choices::natural_at_level(
        ctx.inst,
        ctx.bounds,
        level,
        r.schedule.as_ref(),
        &ctx.deadline.capped(time * 2).capped_effort(time),
        crate::sat::budget_bytes(ctx.opts.memory_limit_mib),
        &ctx.opts.events,
    );
    let (mut r, what) = match verdict {
        NaturalVerdict::Schedule(s) => (
            with_improvement(ctx, r, s, "the natural choice at the bound", "sat"),
            "a schedule there",
        ),
        NaturalVerdict::Refuted(set) => {
            let mut kept = ctx.at_levels.from(level);
            kept.push((set, level));
            ctx.at_levels.keep(kept, level);
            (r, "no schedule there")
        }
        NaturalVerdict::Open => (r, "undecided"),
    };
    r.note(format!(
        "the natural choice (each op's tiling of the shortest critical path) at the bound's \
         level {level}: {what} in {:.2} s",
        t.elapsed().as_secs_f64()
    ));
    r.offer_to(&ctx.opts.events);
    r
}

/// Time left and no proof (an engine that stepped aside, a search that gave
/// up): list scheduling improves the best schedule until the deadline, so
/// the time is never returned unused.
pub fn list_for_the_rest(ctx: &Context, r: SolveResult) -> SolveResult {
    let least = POLICY.least_rest_for(ctx.inst.max_nodes());
    if r.status.is_settled() || ctx.deadline.remaining() <= least {
        return r;
    }
    let t = Instant::now();
    let before = r.makespan;
    let start = r.schedule.clone().map(Arc::new).or(ctx.opts.start.clone());
    let more = ListEngine::default().run(ctx, ctx.deadline.remaining(), start);
    let mut r = crate::solve::merge(r, more);
    let shown = |m: Option<u128>| m.map_or("none".to_string(), |m| m.to_string());
    let msg = format!(
        "no proof yet: list scheduling used the remaining {:.2} s (makespan {} -> {})",
        t.elapsed().as_secs_f64(),
        shown(before),
        shown(r.makespan)
    );
    r.note_as(NoteKind::ListForTheRest, msg);
    r.offer_to(&ctx.opts.events);
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::SolveOptions;
    use crate::stop::Deadline;

    /// With 0.2 s left on a small instance (far above its least rest, below
    /// the largest), the rest goes to list scheduling: from no schedule to
    /// a legal one.
    #[test]
    fn the_rest_of_a_short_solve_goes_to_list_scheduling() {
        let text = include_str!("../../instances/example1.txt");
        let inst = crate::instance::parse_reader(text.as_bytes(), "example1.txt").unwrap();
        assert!(POLICY.least_rest_for(inst.max_nodes()) < Duration::from_millis(100));
        assert_eq!(POLICY.least_rest_for(u64::MAX), POLICY.least_rest);
        let opts = SolveOptions::default();
        let deadline = Deadline::after(Duration::from_millis(200));
        crate::engine::with_plain_context(&inst, &opts, deadline, |ctx| {
            let none = SolveResult::without_schedule(Status::Unknown, 0, "none", "test");
            let r = list_for_the_rest(ctx, none);
            let s = r.schedule.as_ref().expect("a schedule from the rest");
            let g = crate::graph::NodeGraph::new(&inst, s.choice.clone()).unwrap();
            assert!(crate::schedule::check(&g, s, 5).is_empty());
        });
    }

    /// Where the incumbent step's share finds no schedule, a second run on
    /// `Policy::incumbent_retry` of the time left does: on
    /// tests/data/tight-sat-tilings.txt (no greedy serial order fits memory,
    /// and a searched one takes more than a first schedule's milliseconds)
    /// a share of no time finds none, and without the second run the step
    /// ends without an incumbent.
    #[test]
    fn an_incumbent_step_without_a_schedule_runs_again() {
        let path = format!(
            "{}/tests/data/tight-sat-tilings.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        let inst = crate::instance::parse_file(std::path::Path::new(&path)).expect("parses");
        let opts = SolveOptions::default();
        let deadline = Deadline::after(Duration::from_secs(20));
        crate::engine::with_plain_context(&inst, &opts, deadline, |ctx| {
            let none = IncumbentShare {
                seconds: |_, _| 0.0,
                patience: Some(crate::list::INCUMBENT_PATIENCE),
            };
            // The share alone: no schedule.
            let list = ListEngine {
                options: ListOptions::default(),
            };
            let alone = list.run(ctx, Duration::ZERO, None);
            assert!(alone.makespan.is_none(), "{:?}", alone.notes);
            // It says that the limit, not the instance, stopped it.
            let last = alone.notes.last().map_or("", |n| n.text.as_str());
            assert!(last.contains("a longer limit may find one"), "{last}");
            let r = incumbent(ctx, none);
            let s = r.schedule.as_ref().expect("a schedule from the second run");
            let g = crate::graph::NodeGraph::new(&inst, s.choice.clone()).unwrap();
            assert!(crate::schedule::check(&g, s, 5).is_empty());
            assert!(u128::from(r.lower_bound) <= r.makespan.unwrap());
        });
    }
}
