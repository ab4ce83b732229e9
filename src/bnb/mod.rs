//! A depth-first search over start times (`--engine bnb`; models/bnb.md):
//! starts in time order, pruned by the memory left free and the core time
//! left idle against what a target makespan leaves. Where memory is packed
//! (the area bound near the optimum) the free memory it may waste is near
//! zero and the search is narrow: it finds the packings that list
//! scheduling and the SAT engine miss. It finds schedules; it proves no
//! bound (its class of schedules is not complete, models/bnb.md §5).

pub mod engine;
mod problem;
mod search;

use crate::instance::Instance;
use crate::schedule::Schedule;
use crate::stop::Deadline;
pub use problem::Problem;
pub use search::{Outcome, Search};

/// What one attempt at a target gave.
pub struct Attempt {
    /// A schedule of makespan at most the target (not yet validated).
    pub schedule: Option<Schedule>,
    /// Every branch was pruned (nothing proven, see the module doc).
    pub exhausted: bool,
    pub branches: u64,
}

/// Looks for a schedule of makespan at most `target` until `deadline` or
/// `max_branches` branches.
pub fn attempt(
    s: &mut Search,
    deadline: &Deadline,
    max_branches: u64,
    seed: Option<u64>,
    by_demand: bool,
) -> Attempt {
    let out = s.run(deadline, max_branches, seed, by_demand);
    let branches = s.branches;
    let p = s.problem();
    match out {
        Outcome::Found { start, choice } => Attempt {
            schedule: Some(to_schedule(p, &start, &choice)),
            exhausted: false,
            branches,
        },
        Outcome::Exhausted => Attempt {
            schedule: None,
            exhausted: true,
            branches,
        },
        Outcome::Stopped => Attempt {
            schedule: None,
            exhausted: false,
            branches,
        },
    }
}

/// The schedule in the crate's numbering: ops in order, each chosen
/// tiling's nodes in local order; cores by interval colouring.
fn to_schedule(p: &Problem, cstart: &[u64], k: &[u32]) -> Schedule {
    let inst: &Instance = p.inst;
    let lib = &inst.library;
    let mut choice = Vec::with_capacity(p.cands.len());
    let mut start = Vec::new();
    let mut nodes = Vec::new();
    for (o, cs) in p.cands.iter().enumerate() {
        let ki = k[o] as usize;
        choice.push(cs[ki]);
        for v in p.cbase[o][ki]..p.cbase[o][ki + 1] {
            start.push(cstart[v as usize]);
            nodes.push(v);
        }
    }
    let dur = |i: usize| lib.node_dur[p.c_lib[nodes[i] as usize] as usize];
    let core_type = |i: usize| usize::from(p.core(nodes[i]));
    Schedule::with_cores(inst, choice, start, dur, core_type)
}

/// The engine's loop (models/bnb.md §6): rounds of targets, each a
/// restart with the round's budget of branches; the lower bound alone where
/// `bound_only`, else also halfway to the incumbent and one below it. A
/// schedule found is validated and kept.
pub fn engine_search(
    ctx: &crate::engine::Context,
    p: &Problem,
    mut inc: crate::solve::SolveResult,
    bound_only: bool,
) -> crate::solve::SolveResult {
    let mut round: u64 = 0;
    let mut searches: Vec<Search> = Vec::new();
    // Targets whose search failed on every branch: another run repeats it.
    let mut exhausted: Vec<u64> = Vec::new();
    while !inc.status.is_settled() && !ctx.deadline.expired() {
        let lb = inc.lower_bound;
        let hi = inc.makespan.map_or(u64::MAX, |m| {
            u64::try_from(m.saturating_sub(1)).unwrap_or(u64::MAX)
        });
        let mut targets = vec![lb];
        if hi > lb && !bound_only {
            targets.push(lb + (hi - lb) / 2);
            targets.push(hi);
        }
        targets.retain(|t| !exhausted.contains(t));
        // A search (and its dead ends) lives as long as its target is one
        // of the round's.
        searches.retain(|s| targets.contains(&s.target()));
        if targets.is_empty() {
            break;
        }
        for target in targets {
            if ctx.deadline.expired() {
                break;
            }
            let s = match searches.iter().position(|s| s.target() == target) {
                Some(i) => &mut searches[i],
                None => {
                    searches.push(Search::new(p, target));
                    searches.last_mut().unwrap()
                }
            };
            let budget = 1024 * crate::rng::luby(round + 1);
            let seed = (round > 0).then(|| crate::rng::SplitMix64::stream(ctx.opts.seed, round).0);
            // Rounds alternate two orders of the start branches (by tail,
            // by demand): each finds packings the other misses
            // (results/policy.md).
            let a = attempt(s, &ctx.deadline, budget, seed, round % 2 == 1);
            log::debug!(
                "bnb: target {target}: {} after {} branches",
                if a.schedule.is_some() {
                    "found"
                } else if a.exhausted {
                    "exhausted"
                } else {
                    "stopped"
                },
                a.branches
            );
            log::debug!(
                "bnb: {} dead ends, {} hits, deepest {}",
                s.dead_ends(),
                s.memo_hits,
                s.deepest
            );
            if a.exhausted {
                exhausted.push(target);
            }
            if let Some(s) = a.schedule {
                match crate::solve::SolveResult::found(
                    ctx.inst,
                    s,
                    inc.lower_bound,
                    &inc.bound_source,
                    "bnb",
                ) {
                    Ok(r) => inc = crate::solve::merge(inc, r),
                    Err(e) => {
                        inc.internal(e.message);
                        return inc;
                    }
                }
                break;
            }
        }
        round += 1;
    }
    inc
}
