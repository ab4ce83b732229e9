//! The bounds every search starts from, proven before it (models/bounds.md
//! §6-7, models/sat.md §1.2): tiling choices refuted on small
//! sub-instances, the tiling-choice relaxation with its own choices checked,
//! the window net; and `proven_bounds`, all of them within a time limit
//! (`tmin bound`, `check --bound`, `score`).

use std::time::{Duration, Instant};

use crate::bounds::Bounds;
use crate::bounds::combinatorial::lower_bounds;
use crate::instance::Instance;
use crate::solve::SolveOptions;
use crate::stop::Deadline;

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
/// `tiling_choice_bound`: the combinations refuted there raise the bound and
/// spare the searches answers on choices without a schedule, and a smaller
/// share lost them at short limits on a slower moment of the machine.
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
pub(crate) const WINDOW_BOUND_QUICK: Duration = Duration::from_millis(40);

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
