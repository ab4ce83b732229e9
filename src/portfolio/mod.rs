//! `--engine auto`: list scheduling for the incumbent and the bounds, then the
//! exact engines chosen by instance size, all sharing one incumbent and keeping
//! the best bound. Every decision is logged and noted in the result.

mod policy;

use std::time::Duration;

use crate::engine::{Context, Engine};
use crate::instance::Instance;
use crate::list::engine::ListEngine;
use crate::milp::MilpOptions;
use crate::milp::engine::MilpEngine;
use crate::sat::choices::Pass;
use crate::sat::engine::SatEngine;
use crate::solve::{NoteKind, SolveOptions, SolveResult, StepAside};
use policy::POLICY;
pub use policy::Policy;

/// The portfolio (`--engine auto`): list scheduling for the incumbent, then
/// the exact engines through the [`Engine`] interface, chosen by size.
#[derive(Clone, Debug, Default)]
pub struct Portfolio {
    pub milp: MilpOptions,
}

/// The portfolio run alone (tests and library callers; `tmin solve` goes
/// through `registry::run`).
pub fn solve(inst: &Instance, opts: &SolveOptions, mopts: &MilpOptions) -> SolveResult {
    crate::pipeline::solve(
        &Portfolio {
            milp: mopts.clone(),
        },
        inst,
        opts,
    )
}

fn note(r: &mut SolveResult, s: String) {
    r.note(format!("auto: {s}"));
}

impl Engine for Portfolio {
    fn name(&self) -> &'static str {
        "auto"
    }

    fn runs_incumbent_step(&self) -> bool {
        true
    }

    fn certifies(&self) -> bool {
        true
    }

    fn exports_models(&self) -> bool {
        true
    }

    fn search(&self, ctx: &Context, inc: SolveResult) -> SolveResult {
        let inst = ctx.inst;
        let nodes = inst.max_nodes();
        let fresh = inc.schedule.is_none() && inc.notes.is_empty();
        if !inst.ops_without_usable_tiling().is_empty() || nodes > POLICY.exact_max_nodes {
            let mut r = ListEngine::default().search(ctx, inc);
            if nodes > POLICY.exact_max_nodes {
                note(
                    &mut r,
                    format!(
                        "up to {nodes} nodes (> {}): list scheduling only, exact engines skipped",
                        POLICY.exact_max_nodes
                    ),
                );
            }
            r.engine = "auto(list)".into();
            return r;
        }
        let inc = if fresh {
            crate::pipeline::steps::incumbent(ctx, POLICY.incumbent)
        } else {
            inc
        };
        if inc.status.is_settled() {
            let mut inc = inc;
            inc.engine = "auto(list)".into();
            return inc;
        }
        let (inc, settled_by) = packing_first(ctx, inc, nodes);
        if let Some(engine) = settled_by {
            let mut inc = inc;
            inc.engine = format!("auto({engine})");
            return inc;
        }
        let r = self.exact(ctx, nodes, inc);
        let mut r = crate::pipeline::steps::list_for_the_rest(ctx, r);
        r.engine = format!("auto({})", r.engine);
        r
    }
}

impl Portfolio {
    /// The exact engines on the incumbent. SAT first (clause learning proves
    /// job-shop-like instances far faster than the MILP); with two threads or
    /// more the MILP runs beside it and the results are merged.
    fn exact(&self, ctx: &Context, nodes: u64, mut inc: SolveResult) -> SolveResult {
        let (inst, opts, deadline) = (ctx.inst, ctx.opts, &ctx.deadline);
        let milp = MilpEngine {
            options: self.milp.clone(),
        };
        if opts.threads >= 2 {
            let beside = if second_chain(ctx, nodes) {
                "a second time-window neighbourhood search (the MILP engine would not enumerate \
                 the tiling combinations), then list scheduling"
            } else {
                "MILP"
            };
            note(
                &mut inc,
                format!(
                    "{nodes} nodes: SAT and {beside} side by side ({} threads)",
                    opts.threads
                ),
            );
            return side_by_side(ctx, &milp, inc, nodes);
        }
        // The whole encoding grows with the incumbent's makespan: where it
        // does not fit, the choice search (each choice encoded alone) first,
        // whose schedule often brings it within the budget, and the SAT
        // engine's rounds follow as where it fitted at once (results/policy.md).
        let mut fit = crate::sat::fits(inst, inc.makespan, opts.memory_limit_mib);
        let chosen = fit.is_err();
        if chosen {
            inc = choices_first(ctx, inc);
            fit = crate::sat::fits(inst, inc.makespan, opts.memory_limit_mib);
        }
        if let Err(why) = fit {
            // Long horizons or large encodings: the neighbourhood search over
            // time windows needs no whole encoding (each neighbourhood has a
            // small one of its own) and gets most of the time; the
            // continuous-time MILP, whose model does not grow with time, most
            // of the rest; list scheduling what is left.
            let msg = format!(
                "auto: {why}: {}the MILP engine (its model chosen by horizon; one thread)",
                windows_first(nodes)
            );
            inc.step_aside(why.why, msg);
            return without_whole_encoding(ctx, &milp, inc, nodes, 0);
        }
        // Up to POLICY.sat_all_nodes nodes the SAT engine gets all the remaining
        // time; beyond, half of it, and list scheduling the rest. A search
        // with no probe answered at half its time rarely ends well (the
        // encoding is too hard to start on): it hands the rest back.
        let sat_deadline = if nodes <= POLICY.sat_all_nodes {
            deadline.clone()
        } else {
            deadline.share(0.5)
        };
        // Rounds: SAT from the best schedule, handing back where models come
        // slowly (none answered within a short first share, or a probe below
        // the top undecided): there the incumbent is what is weak, and an
        // improver gets a turn, then SAT again from its schedule. Once the
        // improver finds nothing better, SAT keeps the rest of the time.
        //
        // Without memory demands core orders decide the schedule: the
        // improver is the tabu search on core orders with a longer effort
        // (it finds in under a second what SAT's descent needs tens of
        // seconds for), and a schedule it cannot improve is often optimal:
        // the last round keeps all its time for the proof (results/policy.md).
        //
        // With memory the tabu search's moves ignore the hold rule; the
        // improver is the SAT engine's own large-neighbourhood search (a few
        // ops' tilings and orders freed at a time, sat/lns.rs; it finds
        // models below schedules the full search cannot; results/policy.md). It
        // runs first, on a share of the time; then one SAT round, which gives
        // up at half its time with no probe answered (a quarter where the
        // choice enumeration follows); then the search again on the rest,
        // and list scheduling (which knows the hold rule) on whatever it
        // leaves.
        let sat_ctx = ctx.with_deadline(sat_deadline.clone());
        let orders_decide = !inst.demands_memory();
        // With memory, where the level enumeration follows a round that
        // hands back, the round hands back sooner.
        let levels_after = !orders_decide && choices_apply(&sat_ctx);
        let plan = if orders_decide {
            format!(
                "where no model comes within {:.1} s or a probe below the top runs out, the \
                 tabu search on core orders, then SAT again",
                POLICY.first_answer_time(&sat_deadline).as_secs_f64()
            )
        } else if levels_after {
            "the choice enumeration at the bound's level while its levels hold few choices, \
             then the choice search and the large-neighbourhood search; no probe answered at \
             a quarter of the time: the large-neighbourhood search again, then the choice \
             enumeration at the bound's level"
                .to_string()
        } else {
            "the large-neighbourhood search first; no probe answered at half the time: the \
             large-neighbourhood search again"
                .to_string()
        };
        note(
            &mut inc,
            format!(
                "{nodes} nodes: SAT engine on {:.1} s (one thread; {plan})",
                sat_deadline.remaining().as_secs_f64(),
            ),
        );
        let mut r = inc;
        if !orders_decide {
            // The full encoding's first models come slowly where memory is
            // tight: whole tiling choices first, then neighbourhoods, so
            // that its descent starts low. Before the choices below the
            // incumbent, the choices at the bound's levels while the levels
            // hold few (`sat::policy::ChoicePolicy::early_level_choices`), on all the
            // time, where the incumbent is near the bound (`early_levels`):
            // it proves what the last level pass, with the time left, did
            // not (results/policy.md).
            if !chosen {
                r = early_levels(&sat_ctx, r);
                r = choices_first(&sat_ctx, r);
            }
            r = crate::pipeline::steps::neighbourhood_search(
                &sat_ctx,
                r,
                POLICY.lns_first_share,
                0,
            );
        }
        r = if orders_decide {
            order_rounds(&sat_ctx, r)
        } else {
            memory_round(&sat_ctx, r, levels_after)
        };
        // SAT stepped aside (its encoding over the memory budget or beyond
        // its horizon, or the deadline came while it was built): as above,
        // the time-window neighbourhoods, the MILP on a share of what is
        // left, then list scheduling.
        if let Some(why) = resumable_step_aside(&r, deadline) {
            r.note_as(
                NoteKind::SteppedAside,
                format!(
                    "auto: SAT stepped aside ({why}): {}the MILP engine (one thread)",
                    windows_first(nodes)
                ),
            );
            r = without_whole_encoding(ctx, &milp, r, nodes, 2);
        }
        r
    }
}

/// Where memory is packed at the bound (`Policy::bnb_packed`, at most
/// `Policy::bnb_nodes` nodes): the depth-first search at the bound for
/// `Policy::bnb_first_time`, the natural choice decided at the bound's
/// level on `Policy::natural_share` of the time left (at most
/// `Policy::natural_time`), then the depth-first search again on
/// `Policy::bnb_share` of it. Each finds packings that the others, the SAT
/// engine's descent and list scheduling miss (results/policy.md,
/// results/archive/lanes-ab-natural-probe.md), and a schedule at the bound
/// is optimal. The engine that settled it, if one did.
fn packing_first(
    ctx: &Context,
    inc: SolveResult,
    nodes: u64,
) -> (SolveResult, Option<&'static str>) {
    if nodes > POLICY.bnb_nodes || !ctx.inst.demands_memory() {
        return (inc, None);
    }
    let p = crate::bnb::Problem::new(ctx.inst);
    let packed = p.memory_packing(inc.lower_bound);
    if packed < POLICY.bnb_packed {
        return (inc, None);
    }
    let depth_first = |inc: SolveResult, deadline: crate::stop::Deadline| {
        let t = std::time::Instant::now();
        let before = inc.makespan;
        let mut r = crate::bnb::engine_search(&ctx.with_deadline(deadline), &p, inc, true);
        let found = r.makespan != before;
        note(
            &mut r,
            format!(
                "memory packed at the bound ({:.0} % of a type's capacity): depth-first search \
                 at the bound for {:.2} s, {}",
                packed * 100.0,
                t.elapsed().as_secs_f64(),
                if found {
                    "found it"
                } else {
                    "no schedule at it"
                }
            ),
        );
        r.offer_to(&ctx.opts.events);
        r
    };
    let left = ctx.deadline.remaining();
    let first = ctx
        .deadline
        .capped(left.mul_f64(POLICY.bnb_share).min(POLICY.bnb_first_time));
    let inc = depth_first(inc, first);
    if inc.status.is_settled() {
        return (inc, Some("bnb"));
    }
    let natural = left.mul_f64(POLICY.natural_share).min(POLICY.natural_time);
    let inc = crate::pipeline::steps::natural_at_bound(ctx, inc, natural);
    if inc.status.is_settled() {
        return (inc, Some("sat"));
    }
    let r = depth_first(inc, ctx.deadline.share(POLICY.bnb_share));
    let settled = r.status.is_settled().then_some("bnb");
    (r, settled)
}

/// Why the SAT engine stepped aside, where the other searches can take over
/// from it: not when the deadline came during its build, and with more than
/// half a second left.
fn resumable_step_aside(r: &SolveResult, deadline: &crate::stop::Deadline) -> Option<StepAside> {
    r.stepped_aside
        .clone()
        .filter(|why| *why != StepAside::DeadlineDuringEncoding)
        .filter(|_| deadline.remaining() > Duration::from_millis(500))
}

/// Where the whole SAT encoding does not fit (or its build stepped aside):
/// the time-window neighbourhood search on up to `WINDOW_LNS_SHARE` of the
/// time left (at most `WINDOW_LNS_NODES` nodes), the choice enumeration at
/// the bound's level on `LEVELS_SHARE` of what it leaves (where it
/// applies), then the MILP engine on a share of what is left; list
/// scheduling what it leaves. `round` numbers the neighbourhood search's
/// call within the solve.
fn without_whole_encoding(
    ctx: &Context,
    milp: &MilpEngine,
    r: SolveResult,
    nodes: u64,
    round: u64,
) -> SolveResult {
    let r = windows_then_levels(ctx, r, nodes, round);
    milp.search(&ctx.with_deadline(ctx.deadline.share(0.6)), r)
}

/// The SAT engine's part of `without_whole_encoding`: the time-window
/// search, then the choice enumeration at the bound's level.
fn windows_then_levels(ctx: &Context, r: SolveResult, nodes: u64, round: u64) -> SolveResult {
    let r = if nodes <= POLICY.window_lns_nodes {
        crate::pipeline::steps::neighbourhood_search(ctx, r, POLICY.window_lns_share, round)
    } else {
        r
    };
    // Where the time-window search stalled early, the bound: whole choices
    // at its level (where the MILP engine cannot enumerate the tiling
    // combinations, the rest would otherwise go to list scheduling, which
    // gains nothing there; results/policy.md).
    choices(ctx, r, POLICY.levels_share, Pass::Levels)
}

/// Whether the second thread of `side_by_side` runs a time-window search
/// of its own before the MILP engine: where that engine would not
/// enumerate the tiling combinations it is list scheduling, and beside
/// the SAT engine's neighbourhoods a second chain of them, from the same
/// incumbent but drawn from another stream, finds what list scheduling
/// does not (the chains' ends spread widely by seed; results/policy.md).
fn second_chain(ctx: &Context, nodes: u64) -> bool {
    nodes <= POLICY.window_lns_nodes
        && crate::milp::too_large(ctx.inst, &ctx.bounds.nogoods.candidates(ctx.inst)).is_some()
}

/// The start of a note's plan for `without_whole_encoding`.
fn windows_first(nodes: u64) -> String {
    if nodes <= POLICY.window_lns_nodes {
        format!(
            "the large-neighbourhood search (until no kick leaves a stall, at most {:.0} % of \
             the time left), then ",
            POLICY.window_lns_share * 100.0
        )
    } else {
        String::new()
    }
}

/// The early level pass (whole tiling choices at the bound's levels, on all
/// the time while the levels hold few choices), where the incumbent is
/// within `Policy::early_levels_near` of the bound: farther, the levels
/// climb one by one towards an optimum far above the bound and the pass
/// spends the time the descent from the incumbent needs (results/policy.md).
fn early_levels(ctx: &Context, r: SolveResult) -> SolveResult {
    let near = r
        .makespan
        .is_some_and(|m| m as f64 <= r.lower_bound as f64 * (1.0 + POLICY.early_levels_near));
    if !near {
        return r;
    }
    choices(ctx, r, 1.0, Pass::EarlyLevels)
}

/// The choice-driven search (sat/choices.rs) on `CHOICE_SHARE` of the time
/// left, where memory binds and ops have a tiling choice (the instances it
/// was measured on; without memory the portfolio's rounds of SAT and the
/// tabu search on core orders are unchanged): the relaxation's least choices,
/// each decided with every op fixed, find the schedules that the searches
/// over every candidate at once miss (results/policy.md).
fn choices_first(ctx: &Context, r: SolveResult) -> SolveResult {
    choices(ctx, r, POLICY.choice_share, Pass::Below)
}

/// The choice-driven search on `share` of the time left, where it applies
/// (`choices_first`); at the levels (`pass`), the destructive enumeration
/// that raises the bound (models/sat.md §10.1).
fn choices(ctx: &Context, r: SolveResult, share: f64, pass: Pass) -> SolveResult {
    if !choices_apply(ctx) {
        return r;
    }
    crate::pipeline::steps::choice_search(ctx, r, share, pass)
}

/// SAT rounds where core orders decide the schedule: a round that gets no
/// model within its first share, or whose probe below the top runs out,
/// hands back to the tabu search on core orders, then SAT again from its
/// schedule; once the tabu search finds nothing better, or gives up before
/// its time, SAT keeps the rest.
fn order_rounds(ctx: &Context, mut r: SolveResult) -> SolveResult {
    let mut improver_helps = true;
    loop {
        let first_answer_share = if improver_helps {
            Some(
                POLICY.first_answer_time(&ctx.deadline).as_secs_f64()
                    / ctx.deadline.remaining().as_secs_f64().max(1e-9),
            )
        } else {
            None
        };
        let round = SatEngine {
            first_answer_share,
            hand_back_when_stuck: improver_helps,
            no_bound_probes: true,
        };
        r.handed_back = false;
        r = round.search(ctx, r);
        r.offer_to(&ctx.opts.events);
        if !improver_helps || !r.handed_back || r.status.is_settled() || ctx.deadline.expired() {
            return r;
        }
        let before = r.makespan;
        // A run that gave up before its time (its restarts found no new
        // best) has searched around the schedule it hands over: a next run
        // from there found nothing on any JSPLIB instance, so SAT keeps
        // the rest (results/policy.md).
        let stalled;
        (r, stalled) = crate::pipeline::steps::sequence_search(ctx, r, crate::local::Effort::LONG);
        r.offer_to(&ctx.opts.events);
        improver_helps = r.makespan < before && !stalled;
        if r.status.is_settled() {
            return r;
        }
    }
}

/// One SAT round where memory binds. The descent keeps going where it gets
/// stuck (descending by one unit: its proofs come that way); a round with
/// no probe answered at half its time (a quarter with `levels_after`)
/// hands the rest to the neighbourhood search, then to the choice
/// enumeration at the bound's level from its better incumbent. With
/// `levels_after` and an incumbent within `Policy::levels_near` of the
/// bound, a SAT round on `Policy::near_probe_share` of the time and the
/// enumeration come first.
fn memory_round(ctx: &Context, r: SolveResult, levels_after: bool) -> SolveResult {
    // Near the bound, the level enumeration before the round (and the
    // round after it with what it leaves): a few levels to climb, where
    // the round's probes below the incumbent go unanswered
    // (results/policy.md).
    let near = r
        .makespan
        .is_some_and(|m| m as f64 <= r.lower_bound as f64 * (1.0 + POLICY.levels_near));
    let mut r = r;
    if levels_after && near && !r.status.is_settled() {
        // First a short SAT round: one unit below the incumbent over every
        // tiling choice at once is what proves an optimal incumbent whose
        // bound the enumeration cannot raise (a choice it leaves undecided
        // holds the level; results/policy.md).
        let probe_ctx = ctx.with_deadline(ctx.deadline.share(POLICY.near_probe_share));
        let probe = SatEngine {
            first_answer_share: None,
            hand_back_when_stuck: false,
            no_bound_probes: false,
        };
        r.handed_back = false;
        r = probe.search(&probe_ctx, r);
        r.offer_to(&ctx.opts.events);
        r.handed_back = false;
        if !r.status.is_settled() && !ctx.deadline.expired() {
            r = choices(ctx, r, 1.0, Pass::Levels);
        }
    }
    if r.status.is_settled() || ctx.deadline.expired() {
        return r;
    }
    let round = SatEngine {
        first_answer_share: Some(if levels_after {
            POLICY.first_answer_before_levels
        } else {
            0.5
        }),
        hand_back_when_stuck: false,
        no_bound_probes: false,
    };
    r.handed_back = false;
    let mut r = round.search(ctx, r);
    r.offer_to(&ctx.opts.events);
    if r.handed_back && !r.status.is_settled() && !ctx.deadline.expired() {
        r = crate::pipeline::steps::neighbourhood_search(ctx, r, POLICY.lns_after_share, 1);
        r = choices(ctx, r, 1.0, Pass::Levels);
    }
    r
}

/// Whether the choice-driven search runs: memory demands, an op with a
/// tiling choice, at most `CHOICE_NODES` nodes.
fn choices_apply(ctx: &Context) -> bool {
    let cands = ctx.bounds.nogoods.candidates(ctx.inst);
    ctx.inst.demands_memory()
        && cands.iter().any(|c| c.len() > 1)
        && ctx.inst.max_nodes() <= POLICY.choice_nodes
}

/// SAT and MILP on the same incumbent in two threads; the first to settle the
/// instance (a proof) stops the other through the deadline's cancel flag.
fn side_by_side(ctx: &Context, milp: &MilpEngine, inc: SolveResult, nodes: u64) -> SolveResult {
    let (deadline, flag) = ctx.deadline.cancellable();
    let shared = ctx.with_deadline(deadline);
    let settled = |r: &SolveResult| {
        if r.status.is_settled() {
            flag.set();
        }
    };
    // One thread each: HiGHS would otherwise take all `threads` beside SAT.
    let milp_opts = SolveOptions {
        threads: 1,
        ..ctx.opts.clone()
    };
    let milp_ctx = Context {
        opts: &milp_opts,
        ..shared.with_deadline(shared.deadline.clone())
    };
    let (sat, milp_r) = std::thread::scope(|s| {
        let (inc_sat, inc_milp) = (inc.clone(), inc.clone());
        let (shared, milp_ctx, settled) = (&shared, &milp_ctx, &settled);
        let h_sat = s.spawn(move || {
            // Whole tiling choices first, as with one thread (where memory
            // binds: the early level pass, then below the incumbent); where
            // the whole encoding does not fit, this thread then runs the
            // time-window neighbourhood search instead.
            let inc_sat = early_levels(shared, inc_sat);
            let inc_sat = choices_first(shared, inc_sat);
            if inc_sat.status.is_settled() {
                settled(&inc_sat);
                return inc_sat;
            }
            let sat_fits =
                crate::sat::fits(shared.inst, inc_sat.makespan, shared.opts.memory_limit_mib);
            let mut r = if sat_fits.is_err() && nodes <= POLICY.window_lns_nodes {
                windows_then_levels(shared, inc_sat, nodes, 0)
            } else if choices_apply(shared) {
                // As with one thread: a round that answers nothing hands
                // its time to the neighbourhood search and the level
                // enumeration.
                memory_round(shared, inc_sat, true)
            } else {
                SatEngine::default().search(shared, inc_sat)
            };
            // As with one thread, where the encoding stepped aside: the
            // time-window search and the levels (an encoding that passes the
            // estimate and outgrows the budget while built would otherwise
            // leave the rest to list scheduling; results/policy.md).
            // (Beyond `WINDOW_LNS_NODES` and `CHOICE_NODES` neither runs:
            // the MILP thread has the instance.)
            let levels = choices_apply(shared);
            if let Some(why) = resumable_step_aside(&r, &shared.deadline)
                && (nodes <= POLICY.window_lns_nodes || levels)
            {
                let then = if levels {
                    "the choice enumeration at the bound's level"
                } else {
                    "nothing more in this thread"
                };
                r.note_as(
                    NoteKind::SteppedAside,
                    format!(
                        "auto: SAT stepped aside ({why}): {}{then}",
                        windows_first(nodes)
                    ),
                );
                r = windows_then_levels(shared, r, nodes, 2);
            }
            r.offer_to(&shared.opts.events);
            settled(&r);
            r
        });
        let h_milp = s.spawn(move || {
            let inc_milp = if second_chain(milp_ctx, nodes) {
                crate::pipeline::steps::window_search(
                    milp_ctx,
                    inc_milp,
                    POLICY.window_lns_share,
                    3,
                )
            } else {
                inc_milp
            };
            let r = milp.search(milp_ctx, inc_milp);
            r.offer_to(&milp_ctx.opts.events);
            settled(&r);
            r
        });
        (h_sat.join(), h_milp.join())
    });
    // A panicking engine thread is an internal error, never dropped silently
    // (the CLI's panic hook ends the process first; library callers get it here).
    let panicked = |p: Box<dyn std::any::Any + Send>, which: &str| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        format!("the {which} engine thread panicked: {msg}")
    };
    match (sat, milp_r) {
        (Ok(a), Ok(b)) => crate::solve::merge(a, b),
        (Ok(mut a), Err(p)) => {
            a.internal(panicked(p, "MILP"));
            a
        }
        (Err(p), Ok(mut b)) => {
            b.internal(panicked(p, "SAT"));
            b
        }
        (Err(p), Err(q)) => {
            let mut inc = inc;
            inc.internal(panicked(p, "SAT"));
            inc.internal(panicked(q, "MILP"));
            inc
        }
    }
}
