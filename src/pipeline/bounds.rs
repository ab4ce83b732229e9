//! The bounds every search starts from, proven before it (models/bounds.md
//! §6-7, models/sat.md §1.2): tiling choices refuted on small
//! sub-instances, the tiling-choice relaxation with its own choices checked,
//! the window net; and `proven_bounds`, all of them within a time limit
//! (`tmin bound`, `check --bound`, `score`).

use std::time::{Duration, Instant};

use crate::bounds::combinatorial::lower_bounds;
use crate::bounds::{Bounds, ScheduleBounds};
use crate::instance::Instance;
use crate::solve::SolveOptions;
use crate::stop::Deadline;

use super::policy::POLICY;

/// The bounds every engine starts from: the combinatorial ones, the
/// tiling-choice relaxation (models/bounds.md §6) and, with `windows`, the
/// window net's destructive bound (§7), on a share of the time
/// (`Policy::strengthen_share`, at most `strengthen_effort`). The window net is left out under `--certify` (its bound rests
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
        .share(POLICY.strengthen_share)
        .capped_effort(POLICY.strengthen_effort);
    if let Some(b) = tiling_choice_bound(inst, bounds, &share, refute) {
        bounds.add(b);
    }
    if !windows {
        return;
    }
    // The window net's cheap levels (propagation, a round or two of
    // shaving); exact engines escalate it themselves where probes are hard.
    let quick = share.capped(POLICY.window_quick);
    if let Some(b) =
        crate::sat::windows::bound(inst, &bounds.nogoods, bounds.best.value, None, &quick)
    {
        bounds.add(b);
    }
}

/// Tiling choices refuted on small sub-instances (models/sat.md §1.2,
/// `sat::context`), on a share of the time (`Policy::refute_share`, at most
/// `refute_effort`): every later
/// bound and the SAT engine range over what is left. When tilings are
/// refuted, the combinatorial bounds are computed again over the rest.
pub fn refute_choices(inst: &Instance, bounds: &mut Bounds, deadline: &Deadline, memory_mib: u64) {
    let share = deadline
        .share(POLICY.refute_share)
        .capped_effort(POLICY.refute_effort);
    let budget = crate::sat::budget_bytes(memory_mib) / 8;
    let cand = crate::prep::dominance::candidates_of_every_op(inst);
    let ng = crate::sat::context::refute(inst, cand, &share, budget);
    if ng.is_empty() {
        return;
    }
    log::info!("{}", ng.summary());
    if let Some(cand) = &ng.cand {
        let over = crate::bounds::combinatorial::lower_bounds_over(inst, Some(cand));
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
/// `Policy::choice_rounds` times.
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
    let checks = deadline.share(POLICY.checks_share);
    // Cuts do not change the candidates.
    let cands = bounds.nogoods.candidates(inst);
    let mut last = None;
    for _ in 0..POLICY.choice_rounds {
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

/// `ScheduleBounds` of the schedule `rep` judged, when it is legal: the
/// instance's bounds as `tmin bound` computes them, the relaxation on at
/// most 2 s (`proven_bounds`).
pub fn schedule_bounds(inst: &Instance, rep: &crate::schedule::Report) -> Option<ScheduleBounds> {
    let choice = rep.choice.as_ref().filter(|_| rep.is_legal())?;
    let instance = proven_bounds(inst, Duration::from_secs(2)).best;
    let tilings =
        crate::bounds::combinatorial::ChoiceBounds::new(inst).at_least(choice, instance.clone());
    Some(ScheduleBounds { instance, tilings })
}
