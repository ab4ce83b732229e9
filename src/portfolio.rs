//! `--engine auto`: list scheduling for the incumbent and the bounds, then the
//! exact engines chosen by instance size, all sharing one incumbent and keeping
//! the best bound. Every decision is logged and noted in the result.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::bounds::{Bounds, lower_bounds};
use crate::instance::Instance;
use crate::milp::MilpOptions;
use crate::solve::{Deadline, SolveOptions, SolveResult, Status, StepAside};

/// Largest node graph (over tiling choices) handed to the exact engines.
pub const EXACT_MAX_NODES: u64 = 5_000;

/// Largest node graph for which the SAT engine gets all the remaining time.
pub const SAT_ALL_NODES: u64 = 500;

/// The largest node count any tiling choice gives.
pub fn max_nodes(inst: &Instance) -> u64 {
    (0..inst.graph.n_ops() as u32)
        .map(|op| {
            inst.usable_tilings(op)
                .map(|t| u64::from(inst.library.tilings[t as usize].n_nodes))
                .max()
                .unwrap_or(0)
        })
        .sum()
}

/// Combines two results for the same instance: the better schedule (makespans
/// compared exactly, u128), the larger bound (both are proven), notes, internal
/// errors and step-aside reasons of both.
pub fn merge(a: SolveResult, b: SolveResult) -> SolveResult {
    let (mut best, mut other) = match (a.makespan, b.makespan) {
        (Some(x), Some(y)) if y < x => (b, a),
        (None, Some(_)) => (b, a),
        _ => (a, b),
    };
    best.carry_flags(&mut other);
    if best.status == Status::Infeasible || other.status == Status::Infeasible {
        if best.makespan.is_some() {
            // A proof of infeasibility next to a legal schedule is an engine bug.
            best.internal(
                "contradictory verdicts between engines (infeasible and a legal schedule)",
            );
        } else {
            let (mut inf, mut rest) = if best.status == Status::Infeasible {
                (best, other)
            } else {
                (other, best)
            };
            inf.carry_flags(&mut rest);
            inf.notes.extend(rest.notes);
            return inf;
        }
    }
    let (lb, src) = if other.lower_bound > best.lower_bound {
        (other.lower_bound, other.bound_source.clone())
    } else {
        (best.lower_bound, best.bound_source.clone())
    };
    match best.makespan {
        Some(m) => best.raise_bound(u64::try_from(m).map_or(lb, |m| lb.min(m)), &src),
        None => {
            best.lower_bound = lb;
            best.bound_source = src;
        }
    }
    if best.engine != other.engine && !best.engine.contains(&other.engine) {
        best.engine = format!("{}+{}", best.engine, other.engine);
    }
    best.notes.extend(other.notes);
    best
}

/// The portfolio.
pub fn solve(inst: &Instance, opts: &SolveOptions, mopts: &MilpOptions) -> SolveResult {
    let t0 = Instant::now();
    let deadline = Deadline::after(opts.time_limit);
    let bounds = lower_bounds(inst);
    let mut r = run(inst, opts, mopts, &deadline, &bounds);
    r.wall_seconds = t0.elapsed().as_secs_f64();
    r
}

fn note(r: &mut SolveResult, s: String) {
    log::info!("auto: {s}");
    r.notes.push(format!("auto: {s}"));
}

fn run(
    inst: &Instance,
    opts: &SolveOptions,
    mopts: &MilpOptions,
    deadline: &Deadline,
    bounds: &Bounds,
) -> SolveResult {
    let nodes = max_nodes(inst);
    if !inst.ops_without_usable_tiling().is_empty() || nodes > EXACT_MAX_NODES {
        let mut r = crate::list::solve_with_bounds(inst, opts, bounds);
        if nodes > EXACT_MAX_NODES {
            note(
                &mut r,
                format!(
                    "up to {nodes} nodes (> {EXACT_MAX_NODES}): list scheduling only, exact engines skipped"
                ),
            );
        }
        r.engine = "auto(list)".into();
        return r;
    }

    // 1. Incumbent: list scheduling on a small share of the time, cut short
    // when it stalls. Larger instances may use more list time: the exact
    // engines rarely beat a good incumbent there, and their proofs need a
    // tight one.
    let frac = (0.05 + nodes as f64 / 4000.0).min(0.3);
    let share = (opts.time_limit.as_secs_f64() * frac).clamp(0.02, 30.0);
    let list_opts = SolveOptions {
        time_limit: Duration::from_secs_f64(share),
        list_patience: Some(crate::list::INCUMBENT_PATIENCE),
        ..opts.clone()
    };
    let t_list = Instant::now();
    let mut inc = crate::list::solve_with_bounds(inst, &list_opts, bounds);
    let msg = match inc.makespan {
        Some(m) => format!(
            "incumbent {m} from list scheduling in {:.2} s (at most {share:.2} s; it stops when it stalls)",
            t_list.elapsed().as_secs_f64()
        ),
        None => "list scheduling found no schedule: the exact engines decide".to_string(),
    };
    note(&mut inc, msg);
    if inc.status == Status::Optimal {
        note(&mut inc, "the incumbent meets the lower bound: done".into());
        inc.engine = "auto(list)".into();
        return inc;
    }

    // 2. Exact engines on the same incumbent. SAT first (clause learning proves
    //    job-shop-like instances far faster than the MILP); with two threads or
    //    more the MILP runs beside it and the results are merged.
    let r = if opts.threads >= 2 {
        note(
            &mut inc,
            format!(
                "{nodes} nodes: SAT and MILP side by side ({} threads)",
                opts.threads
            ),
        );
        // The first engine to settle the instance (a proof) stops the other.
        let flag = Arc::new(AtomicBool::new(false));
        let shared = deadline.with_cancel(flag.clone());
        let settled = |r: &SolveResult| {
            if matches!(r.status, Status::Optimal | Status::Infeasible) {
                flag.store(true, Ordering::Relaxed);
            }
        };
        let (sat, milp) = std::thread::scope(|s| {
            let inc_sat = inc.clone();
            let inc_milp = inc.clone();
            let (d_sat, d_milp) = (&shared, &shared);
            let h_sat = s.spawn(|| {
                let r = crate::sat::search_certified(
                    inst,
                    d_sat,
                    bounds,
                    inc_sat,
                    None,
                    opts.memory_limit_mib,
                    opts.certify.as_deref(),
                );
                settled(&r);
                r
            });
            // One thread each: HiGHS would otherwise take all `threads` beside SAT.
            let milp_opts = SolveOptions {
                threads: 1,
                ..opts.clone()
            };
            let h_milp = s.spawn(move || {
                let r = crate::milp::search(inst, &milp_opts, mopts, d_milp, bounds, inc_milp);
                settled(&r);
                r
            });
            (h_sat.join(), h_milp.join())
        });
        // A panicking engine thread is an internal error, never dropped
        // silently (the CLI's panic hook ends the process first; library
        // callers get it here).
        let panicked = |p: Box<dyn std::any::Any + Send>, which: &str| {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".into());
            format!("the {which} engine thread panicked: {msg}")
        };
        match (sat, milp) {
            (Ok(a), Ok(b)) => merge(a, b),
            (Ok(mut a), Err(p)) => {
                a.internal(panicked(p, "MILP"));
                a
            }
            (Err(p), Ok(mut b)) => {
                b.internal(panicked(p, "SAT"));
                b
            }
            (Err(p), Err(q)) => {
                inc.internal(panicked(p, "SAT"));
                inc.internal(panicked(q, "MILP"));
                inc
            }
        }
    } else if let Err(why) = crate::sat::fits(inst, inc.makespan, opts.memory_limit_mib) {
        // Long horizons: the order encoding grows with time, the continuous-time
        // MILP does not. It gets most of the time; list scheduling the rest.
        let milp_deadline = deadline.share(0.6);
        note(
            &mut inc,
            format!(
                "{why}: MILP engine (its model chosen by horizon) on {:.1} s (one thread)",
                milp_deadline.remaining().as_secs_f64()
            ),
        );
        crate::milp::search(inst, opts, mopts, &milp_deadline, bounds, inc)
    } else {
        // Up to SAT_ALL_NODES nodes the SAT engine gets all the remaining time;
        // beyond, half of it, and list scheduling the rest.
        let sat_deadline = if nodes <= SAT_ALL_NODES {
            deadline.clone()
        } else {
            deadline.share(0.5)
        };
        // A first probe that is still undecided at half the time rarely ends
        // well (the encoding is too hard to start on): the search hands the
        // rest back to list scheduling from the incumbent.
        let first_answer_by = sat_deadline.at_share(0.5);
        note(
            &mut inc,
            format!(
                "{nodes} nodes: SAT engine on {:.1} s (one thread; it gives up at half of that \
                 when no probe has been answered)",
                sat_deadline.remaining().as_secs_f64()
            ),
        );
        let mut r = crate::sat::search_certified(
            inst,
            &sat_deadline,
            bounds,
            inc,
            Some(first_answer_by),
            opts.memory_limit_mib,
            opts.certify.as_deref(),
        );
        // SAT stepped aside (its encoding over the memory budget or beyond its
        // horizon, or the deadline came while it was built): the MILP on a
        // share of what is left, then list scheduling below.
        if let Some(why) = r.stepped_aside.clone()
            && why != StepAside::DeadlineDuringEncoding
            && deadline.remaining() > Duration::from_millis(500)
        {
            let milp_deadline = deadline.share(0.6);
            note(
                &mut r,
                format!(
                    "SAT stepped aside ({why}): MILP engine on {:.1} s (one thread)",
                    milp_deadline.remaining().as_secs_f64()
                ),
            );
            r = crate::milp::search(inst, opts, mopts, &milp_deadline, bounds, r);
        }
        r
    };
    let mut r = r;
    // Time left and no proof (e.g. an instance too large for the encodings):
    // list scheduling improves the incumbent until the limit.
    if r.status == Status::Feasible && deadline.remaining() > Duration::from_millis(500) {
        // From the best schedule so far, so the list engine's improvement
        // passes start where the exact engine stopped.
        let rest = SolveOptions {
            time_limit: deadline.remaining(),
            start: r.schedule.clone().map(Arc::new),
            ..opts.clone()
        };
        let more = crate::list::solve_with_bounds(inst, &rest, bounds);
        let before = r.makespan;
        r = merge(r, more);
        let shown = |m: Option<u128>| m.map_or("none".to_string(), |m| m.to_string());
        let msg = format!(
            "no proof yet: list scheduling used the rest of the time (makespan {} -> {})",
            shown(before),
            shown(r.makespan)
        );
        note(&mut r, msg);
    }
    r.engine = format!("auto({})", r.engine);
    r
}
