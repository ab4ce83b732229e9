//! Choice-driven search (models/sat.md §10): the tiling-choice relaxation
//! (models/bounds.md §6) proposes whole tiling choices, least relaxed
//! makespan first, and the SAT engine decides each with every op fixed to
//! its tiling: "a schedule of this choice with makespan below the best
//! one?". With one candidate per op the encoding holds a third of the nodes
//! and a ninth of the node pairs of the encoding over every candidate, so it
//! fits where that one does not (the 25-op memory-tight instances) and its
//! answers come faster.
//!
//! Each choice tried is excluded from the relaxation (at most `k - 1` of its
//! `k` tilings) before the next is proposed. A choice answered UNSAT at
//! `ub - 1` has no schedule below the incumbent `ub`; one left undecided is
//! *skipped* and tried again later with more time. This gives a lower bound
//! as well as schedules: an optimal schedule below the final incumbent uses
//! a choice that was skipped, or one still open to the relaxation, so the
//! optimum is at least the least of the incumbent, the relaxation's last
//! value and the least relaxed value of a skipped choice (the argument in
//! models/sat.md §10). When the relaxation has nothing left below the
//! incumbent and nothing is skipped, the incumbent is optimal.

use std::time::{Duration, Instant};

use super::encode::{Answer, EncodeStop, Encoder, Limits};
use super::lns::validated;
use super::model::Model;
use super::{plan, to_schedule};
use crate::bounds::{Bound, Bounds};
use crate::instance::Instance;
use crate::milp::aggregate::{Master, solve_without};
use crate::schedule::Schedule;
use crate::solve::{Deadline, instant_after};

/// How the search spends its time.
#[derive(Clone, Debug)]
pub struct ChoiceOptions {
    /// Time an answer of a choice gets at first; doubled each time the
    /// skipped choices are tried again, up to `max_sub_time`.
    pub first_sub_time: Duration,
    pub max_sub_time: Duration,
    /// Skipped choices held before they are tried again (with twice the
    /// time) instead of a new choice: the least relaxed choices are the
    /// likeliest to hold an optimum, and deciding them is what raises the
    /// bound.
    pub max_skipped: usize,
    /// Decisions in a row without a better schedule or a refuted choice
    /// after which the search hands the rest of its time back.
    pub patience: usize,
}

impl Default for ChoiceOptions {
    fn default() -> Self {
        ChoiceOptions {
            first_sub_time: Duration::from_millis(250),
            max_sub_time: Duration::from_secs(8),
            max_skipped: 6,
            patience: 10,
        }
    }
}

/// What the search did, for the notes.
#[derive(Clone, Debug, Default)]
pub struct ChoiceStats {
    /// Choices proposed by the relaxation.
    pub tried: usize,
    /// Better schedules found (each descent step counts).
    pub improved: usize,
    /// Choices with no schedule below the incumbent (UNSAT).
    pub refuted: usize,
    /// Choices still undecided at the end.
    pub skipped: usize,
    /// Seconds per choice at the end.
    pub sub_time: f64,
    /// Whether the search stopped on an encoding beyond the engine.
    pub too_large: bool,
}

/// What the search returns.
pub struct Outcome {
    /// A schedule better than the start (validated), if one was found.
    pub schedule: Option<Schedule>,
    /// The bound the enumeration proves, when above the starting one.
    pub bound: Option<Bound>,
    pub stats: ChoiceStats,
}

/// A choice's verdict at `ub - 1`.
enum Verdict {
    /// No schedule of this choice below `ub` (at the `ub` it was asked at).
    Refuted,
    Undecided,
    /// The choice's encoding is beyond the engine (horizon, memory budget):
    /// the others' would be too, and the search stops.
    TooLarge,
}

/// The search state shared by every decision.
struct Search<'a> {
    inst: &'a Instance,
    lb: u64,
    budget: u64,
    /// Best makespan so far (`u128::MAX`: none yet) and its schedule.
    ub: u128,
    best: Option<Schedule>,
    stats: ChoiceStats,
    /// Decisions since the last better schedule or refuted choice.
    fruitless: usize,
}

/// Choices from the relaxation, each decided with every op fixed, until
/// `deadline`; from the incumbent `start` (if any). `bounds` are the
/// proven bounds and refuted choices every engine starts from.
pub fn search(
    inst: &Instance,
    bounds: &Bounds,
    start: Option<&Schedule>,
    deadline: &Deadline,
    budget: u64,
    opts: &ChoiceOptions,
) -> Outcome {
    let ub = start.and_then(|s| validated(inst, s)).unwrap_or(u128::MAX);
    let mut s = Search {
        inst,
        lb: bounds.best.value,
        budget,
        ub,
        best: None,
        stats: ChoiceStats::default(),
        fruitless: 0,
    };
    let mut tried: Vec<Vec<(u32, u32)>> = Vec::new();
    // (relaxed value, choice) of each skipped choice.
    let mut skipped: Vec<(u64, Vec<u32>)> = Vec::new();
    let mut sub_time = opts.first_sub_time;
    // The relaxation's value over the choices not yet tried (None: unknown,
    // no bound from the enumeration).
    let mut open: Option<u64> = None;
    while !deadline.expired() && s.ub > u128::from(s.lb) && s.fruitless < opts.patience {
        let exhausted = open.is_some_and(|v| u128::from(v) >= s.ub);
        if exhausted || skipped.len() >= opts.max_skipped {
            if skipped.is_empty() {
                break; // proven: nothing below the incumbent is left
            }
            sub_time = (sub_time * 2)
                .max(Duration::from_millis(1))
                .min(opts.max_sub_time);
            let mut left = Vec::new();
            for (v, choice) in std::mem::take(&mut skipped) {
                if deadline.expired() || s.ub <= u128::from(v) || s.fruitless >= opts.patience {
                    // Out of time or patience, or no longer below the
                    // incumbent: such a choice needs no decision (its
                    // relaxed value bounds it).
                    if u128::from(v) < s.ub {
                        left.push((v, choice));
                    }
                    continue;
                }
                match s.decide(&choice, sub_time, deadline) {
                    Verdict::Refuted => {}
                    Verdict::Undecided => left.push((v, choice)),
                    Verdict::TooLarge => {
                        s.stats.too_large = true;
                        left.push((v, choice));
                    }
                }
            }
            skipped = left;
            if s.stats.too_large {
                break;
            }
            continue;
        }
        // Unsolved (no time left, an error): the last value still bounds
        // the choices not tried, a superset of those left.
        let Some(master) = solve_without(inst, bounds, &tried, deadline) else {
            break;
        };
        let (value, choice) = match master {
            Master::Exhausted => {
                open = Some(u64::MAX);
                continue;
            }
            Master::Value(b, choice) => (b.value, choice),
        };
        open = Some(value);
        if u128::from(value) >= s.ub {
            continue;
        }
        let Some(choice) = choice else {
            break; // not solved to optimality: no choice to decide
        };
        s.stats.tried += 1;
        tried.push(
            choice
                .iter()
                .enumerate()
                .map(|(o, &t)| (o as u32, t))
                .collect(),
        );
        match s.decide(&choice, sub_time, deadline) {
            Verdict::Refuted => {}
            Verdict::Undecided => skipped.push((value, choice)),
            Verdict::TooLarge => {
                skipped.push((value, choice));
                s.stats.too_large = true;
                break;
            }
        }
    }
    s.stats.skipped = skipped.len();
    s.stats.sub_time = sub_time.as_secs_f64();
    // The bound (module docs): the incumbent, the relaxation over what was
    // not tried, and the least skipped choice's relaxed value.
    let bound = open.map(|v| {
        let least_skipped = skipped.iter().map(|&(v, _)| v).min().unwrap_or(u64::MAX);
        let ub = u64::try_from(s.ub).unwrap_or(u64::MAX);
        v.min(least_skipped).min(ub)
    });
    let bound = bound.filter(|&b| b > s.lb).map(|value| Bound {
        value,
        source: format!(
            "tiling choices: each the relaxation puts below {value} has no schedule below the \
             incumbent (SAT, every op fixed; {} tried, {} refuted)",
            s.stats.tried, s.stats.refuted
        ),
    });
    Outcome {
        schedule: s.best,
        bound,
        stats: s.stats,
    }
}

impl Search<'_> {
    /// Decides `choice` below the incumbent within `time`, descending while
    /// it finds schedules: `Refuted` when it has none below the incumbent
    /// (as it then stands), else `Undecided`.
    fn decide(&mut self, choice: &[u32], time: Duration, deadline: &Deadline) -> Verdict {
        self.fruitless += 1;
        let t0 = Instant::now();
        // Each answer gets `time`: a choice that keeps giving better
        // schedules keeps its warm solver.
        let mut end = instant_after(t0, time).min(deadline.end);
        let cand: Vec<Vec<u32>> = choice.iter().map(|&t| vec![t]).collect();
        let m = Model::new(self.inst, &cand);
        let g = u128::from(m.g);
        // Makespans below the incumbent (any, without one: the choice's own
        // horizon holds some schedule if it has one, models/sat.md §1.4).
        let top = |ub: u128| {
            if ub == u128::MAX {
                Some(m.horizon)
            } else {
                u64::try_from((ub - 1) / g).ok()
            }
        };
        let Some(mut tmax) = top(self.ub) else {
            return Verdict::TooLarge;
        };
        if tmax > super::MAX_TIME || m.horizon > super::MAX_TIME {
            return Verdict::TooLarge;
        }
        let Ok(pts) = plan(&m, u128::from(tmax), self.budget) else {
            return Verdict::TooLarge;
        };
        let limits = Limits {
            max_bytes: self.budget,
            deadline: Some(end),
            cancel: deadline.cancel.clone(),
        };
        let mut enc = match Encoder::build_within(&m, tmax, pts, limits) {
            Ok(enc) => enc,
            Err(EncodeStop::OverBudget { .. }) => return Verdict::TooLarge,
            Err(EncodeStop::Deadline) => return Verdict::Undecided,
        };
        loop {
            match enc.decide(tmax as i64, &[], end) {
                Answer::Sat(d) => {
                    let mut sched = to_schedule(&m, &d);
                    let Some(mut ms) = validated(self.inst, &sched) else {
                        log::warn!("choices: a model failed the validator; choice skipped");
                        return Verdict::Undecided;
                    };
                    let lb_dl = Deadline {
                        start: t0,
                        end,
                        cancel: deadline.cancel.clone(),
                    };
                    if let Some(f) = crate::list::polish(self.inst, &sched, self.lb, &lb_dl)
                        && let Some(p) = validated(self.inst, &f.schedule)
                        && p < ms
                    {
                        sched = f.schedule;
                        ms = p;
                    }
                    log::debug!(
                        "choices: {} -> {ms} in {:.3} s",
                        if self.ub == u128::MAX {
                            "none".to_string()
                        } else {
                            self.ub.to_string()
                        },
                        t0.elapsed().as_secs_f64()
                    );
                    self.ub = ms;
                    self.best = Some(sched);
                    self.stats.improved += 1;
                    self.fruitless = 0;
                    if ms <= u128::from(self.lb) {
                        return Verdict::Refuted; // optimal: nothing below
                    }
                    end = instant_after(Instant::now(), time).min(deadline.end);
                    // A model's makespan is at most `tmax` units: the next
                    // probe is lower.
                    match top(ms) {
                        Some(t) => tmax = t.min(tmax.saturating_sub(1)),
                        None => return Verdict::Undecided,
                    }
                }
                Answer::Unsat => {
                    self.stats.refuted += 1;
                    self.fruitless = 0;
                    log::debug!(
                        "choices: no schedule below {} ({:.3} s)",
                        self.ub,
                        t0.elapsed().as_secs_f64()
                    );
                    return Verdict::Refuted;
                }
                Answer::Interrupted | Answer::OverBudget => return Verdict::Undecided,
            }
        }
    }
}
