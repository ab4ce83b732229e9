//! The exact SAT engine (varisat): "is there a schedule with makespan <= T?" as
//! CNF in the order encoding, with lazy core and memory cuts, solved
//! incrementally while T descends from the list scheduler's incumbent. Every
//! UNSAT answer proves a lower bound; every SAT answer is a schedule, validated
//! before it is kept. The encoding and its exactness arguments: models/sat.md.

pub mod certify;
pub mod choices;
pub mod context;
pub mod disjunctive;
pub mod encode;
pub mod engine;
pub mod holds;
pub mod lns;
pub mod lns_windows;
pub mod model;
pub mod policy;
pub mod windows;

mod descent;

pub use descent::Policy;
use descent::{Descent, Flow, Probing};

use std::time::{Duration, Instant};

use crate::instance::Instance;
use crate::schedule::Schedule;
use crate::solve::{BudgetStage, NoteKind, SolveOptions, SolveResult, Status, StepAside};
use crate::stop::{Deadline, instant_after};
use policy::DESCENT;

use crate::certificate::{Certificate, Certifier};
use certify::NotCertified;
use encode::{
    Answer, BYTES_PER_CLAUSE, BYTES_PER_LIT, Decoded, EncodeStop, Encoder, LITS_PER_CLAUSE, Limits,
    Points, estimate, estimate_bytes, event_points,
};
use model::{Model, candidates_of_every_op};

const ENGINE: &str = "sat";

/// Largest time, in the model's time units, the encoding represents: it
/// computes in i64 with sums of up to three heads, tails and durations, all at
/// most the horizon. Longer horizons (e.g. durations near 2^63) step aside
/// (`StepAside::HorizonBeyondEngine`) for the other engines.
pub const MAX_TIME: u64 = 1 << 60;

/// The up-front estimate (`encode::estimate_bytes`) overshoots what the
/// build counts by 1.1-1.8x on the calibration instances (results/sat-budget.md):
/// an encoding is refused before it is built only when the estimate passes
/// this multiple of the budget. Otherwise the build counts the real clauses,
/// literals and variables and stops at the budget itself (the hard limit).
pub const ESTIMATE_SLACK: u128 = 2;

/// The encoding's memory budget in bytes for `--memory-limit` (MiB).
pub fn budget_bytes(memory_limit_mib: u64) -> u64 {
    memory_limit_mib.saturating_mul(1 << 20)
}

/// Most clauses a budget allows (at the average clause size).
fn clause_cap(budget: u64) -> u128 {
    u128::from(budget)
        / (u128::from(BYTES_PER_CLAUSE) + LITS_PER_CLAUSE * u128::from(BYTES_PER_LIT))
}

/// Why the SAT engine declines to encode an instance: the typed reason (for
/// the portfolio) and a sentence (for the notes).
#[derive(Clone, Debug)]
pub struct Declined {
    pub why: StepAside,
    pub message: String,
}

impl std::fmt::Display for Declined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Converts a decoded model into a schedule in the crate's node numbering, with
/// core ids by interval partitioning (`schedule::assign_cores`: at most
/// CoreNum nodes run at any instant, so no more than CoreNum cores are needed).
pub fn to_schedule(m: &Model, d: &Decoded) -> Schedule {
    let inst = m.inst;
    let lib = &inst.library;
    let mut choice = Vec::with_capacity(m.op_slots.len());
    let mut start = Vec::new();
    let mut nodes = Vec::new();
    for &s in &d.slot_of_op {
        let sl = &m.slots[s as usize];
        choice.push(sl.tiling);
        for v in sl.first..sl.first + sl.n {
            // Starts are capped at u64::MAX / g in the encoding (models/sat.md 1.7).
            start.push(d.start[v as usize].saturating_mul(m.g));
            nodes.push(v);
        }
    }
    let dur = |i: usize| lib.node_dur[m.nodes[nodes[i] as usize].lib as usize];
    let core_type = |i: usize| m.nodes[nodes[i] as usize].core as usize;
    Schedule::with_cores(inst, choice, start, dur, core_type)
}

/// The encoding of `m` for makespans up to `tmax` units, planned (`plan`)
/// and built within `budget` bytes by `end` (and `deadline`'s cancel flag),
/// with one-core orders as `orders` says (`Orders::Propagated` only where
/// nothing assumes the order literals);
/// `None` where the plan declines it or the build stops: the neighbourhood
/// searches and the choice search treat both alike.
fn encode_within<'m, 'a>(
    m: &'m Model<'a>,
    tmax: u64,
    budget: u64,
    end: impl Into<crate::stop::Stop>,
    deadline: &Deadline,
    orders: encode::Orders,
) -> Option<Encoder<'m, 'a>> {
    let pts = plan(m, u128::from(tmax), budget).ok()?;
    let limits = Limits {
        max_bytes: budget,
        deadline: Some(end.into()),
        cancel: deadline.cancel.clone(),
    };
    let mut enc = Encoder::build_with(m, tmax, pts, limits, orders).ok()?;
    enc.use_propagators(encode::Lazy::ALL);
    Some(enc)
}

/// The time points of an encoding for horizon `tmax` (in time units) that
/// stays within the memory budget (`budget` bytes): every instant, or when that
/// is too large, the event points (sums of durations); the error says why
/// neither fits, typed. `TMIN_SAT_POINTS=dense|events` forces one or the other
/// (for tests and diagnosis: both must give the same answers).
fn plan(m: &Model, tmax: u128, budget: u64) -> Result<Points, Declined> {
    let g = m.g;
    if m.horizon > MAX_TIME || tmax > u128::from(MAX_TIME) {
        let horizon = tmax.max(u128::from(m.horizon)) * u128::from(g);
        return Err(Declined {
            why: StepAside::HorizonBeyondEngine {
                horizon,
                max: u128::from(MAX_TIME) * u128::from(g),
            },
            message: format!(
                "horizon {horizon} beyond the SAT encoding (at most {MAX_TIME} time units of {g})"
            ),
        });
    }
    let tmax = tmax as u64;
    let over = |bytes: u128, what: String| Declined {
        why: StepAside::OverMemoryBudget {
            estimated_mib: u64::try_from(bytes >> 20).unwrap_or(u64::MAX),
            budget_mib: budget >> 20,
            stage: BudgetStage::Estimate,
        },
        message: format!(
            "instance too large for the SAT encoding ({what}: estimated {} MiB, more than \
             {ESTIMATE_SLACK} times the memory budget of {} MiB; --memory-limit)",
            bytes >> 20,
            budget >> 20
        ),
    };
    let forced = std::env::var("TMIN_SAT_POINTS").ok();
    let dense_clauses = estimate(m, tmax, &Points::every());
    let dense = estimate_bytes(m, tmax, &Points::every());
    let within = |bytes: u128| bytes <= ESTIMATE_SLACK * u128::from(budget);
    let fits = within(dense);
    if forced.as_deref() != Some("events") && (fits || forced.as_deref() == Some("dense")) {
        return if fits {
            Ok(Points::every())
        } else {
            Err(over(
                dense,
                format!("{dense_clauses} clauses for horizon {tmax} in units of {g}"),
            ))
        };
    }
    // Each node needs an order literal per point of its window: more points
    // than the clause cap / nodes cannot fit (this also bounds the work below).
    let cap = (ESTIMATE_SLACK * clause_cap(budget) / m.nodes.len().max(1) as u128)
        .min(usize::MAX as u128) as usize;
    let Some(pts) = event_points(m, tmax, cap, forced.is_none()) else {
        return Err(over(
            dense,
            format!(
                "{dense_clauses} clauses for horizon {tmax} in units of {g}; event points do not \
                 compress it enough"
            ),
        ));
    };
    let n_pts = pts.len();
    let pts = Points::from_sorted(pts);
    let est = estimate_bytes(m, tmax, &pts);
    if !within(est) {
        return Err(over(
            est,
            format!(
                "{} clauses over {n_pts} event points up to horizon {tmax} in units of {g}",
                estimate(m, tmax, &pts)
            ),
        ));
    }
    Ok(pts)
}

/// Whether the SAT engine can encode the search below `incumbent` within
/// `memory_limit_mib` (the portfolio asks before choosing it: long horizons
/// and large encodings go to the MILP instead).
pub fn fits(
    inst: &Instance,
    incumbent: Option<u128>,
    memory_limit_mib: u64,
) -> Result<(), Declined> {
    fits_bytes(inst, incumbent, budget_bytes(memory_limit_mib))
}

/// `fits` for a budget in bytes (the neighbourhood search asks with its own).
pub fn fits_bytes(inst: &Instance, incumbent: Option<u128>, budget: u64) -> Result<(), Declined> {
    let m = Model::new(inst, &candidates_of_every_op(inst));
    let tmax = match incumbent {
        Some(ms) => ms.saturating_sub(1) / u128::from(m.g),
        None => u128::from(m.horizon),
    };
    plan(&m, tmax, budget).map(|_| ())
}

/// No incumbent yet, and tilings proven never schedulable: list scheduling
/// again with them masked out (`ListOptions::excluded`; its tiling repair walks
/// only choices that may work), on a share of the time. Without an incumbent
/// the encoding spans the serial horizon, where models are hard to find.
fn list_without(
    inst: &Instance,
    never: &[(u32, u64)],
    deadline: &Deadline,
    bounds: &crate::bounds::Bounds,
    mut res: SolveResult,
) -> SolveResult {
    // The pruned tilings as a mask: the list engine never chooses them (no
    // copy of the instance).
    let mut excluded = vec![false; inst.library.tilings.len()];
    for &(t, _) in never {
        excluded[t as usize] = true;
    }
    let opts = SolveOptions {
        time_limit: deadline.remaining().mul_f64(0.25),
        cancel: deadline.cancel.clone(),
        ..SolveOptions::default()
    };
    let lopts = crate::list::ListOptions {
        patience: Some(crate::list::INCUMBENT_PATIENCE),
        excluded: Some(std::sync::Arc::new(excluded)),
    };
    let t = Instant::now();
    let r = crate::list::solve_with_bounds(inst, &opts, &lopts, bounds);
    let Some(schedule) = r.schedule else {
        res.note(format!(
            "list scheduling without the pruned tilings: no schedule either ({:.2} s)",
            t.elapsed().as_secs_f64()
        ));
        return res;
    };
    let engine = res.engine.clone();
    match SolveResult::found(inst, schedule, res.lower_bound, &res.bound_source, &engine) {
        Ok(mut found) => {
            found.take_history(&mut res);
            found.note_as(
                NoteKind::Incumbent,
                format!(
                    "list scheduling without the pruned tilings: makespan {} in {:.2} s",
                    found.makespan.unwrap_or(0),
                    t.elapsed().as_secs_f64()
                ),
            );
            found
        }
        Err(e) => {
            res.internal(format!("list schedule rejected by the validator: {e}"));
            res
        }
    }
}

/// The exact search from an incumbent result (a legal schedule, or none) and the
/// instance's lower bounds: the portfolio calls this with a shared incumbent.
/// Returns the better of the incumbent and what the search proves and finds.
/// With `policy.first_answer_by`, the search gives up at that instant when
/// the solver has not answered a single probe yet (an encoding too hard to
/// even start on: the caller has better uses for the time); the encoding's
/// build stops then too. With `policy.hand_back_when_stuck` it also hands
/// back when a probe below the top runs out of its share. The encoding stays
/// within `memory_limit_mib` (MiB): over it, or at the deadline while it is
/// built, the search hands the incumbent back with
/// `SolveResult::stepped_aside` set.
/// Bytes of the SAT model (before any clause) per candidate node, rounded
/// up from the measured 947 MiB peak at 2x10^7 candidate nodes.
const MODEL_BYTES_PER_NODE: u64 = 48;

pub fn search(
    inst: &Instance,
    deadline: &Deadline,
    bounds: &crate::bounds::Bounds,
    res: SolveResult,
    policy: Policy,
    memory_limit_mib: u64,
) -> SolveResult {
    let events = crate::events::Events::default();
    let out = Outputs {
        certify: None,
        events: &events,
    };
    search_certified(inst, deadline, bounds, res, policy, memory_limit_mib, out)
}

/// Where a search's answers go besides its result: the certificates of
/// its UNSAT answers (`--certify`), and each better schedule to the
/// solve's events as found.
#[derive(Clone, Copy)]
pub struct Outputs<'x> {
    pub certify: Option<&'x Certifier>,
    pub events: &'x crate::events::Events,
}

/// What `candidate_tilings` leaves: the candidates per op with the result so
/// far, or the instance proven infeasible.
enum Candidates {
    Kept(Vec<Vec<u32>>, SolveResult),
    Infeasible(SolveResult),
}

/// Share of the SAT engine's time for the probes of `candidate_tilings`
/// (tilings whose subgraph may have no legal schedule even alone): an
/// unanswered probe keeps its tiling, which claims nothing.
const PRUNING_SHARE: f64 = 0.2;

/// The candidate tilings of every op: dominated ones dropped (prep::dominance)
/// and those refuted in their neighbourhoods (`bounds.nogoods`, §1.2), then
/// those whose subgraph has no legal schedule even alone (a SAT probe at
/// the horizon sum of its durations) pruned; without an incumbent, list
/// scheduling runs again without them. An op left without a candidate makes
/// the instance infeasible (the result says which op).
fn candidate_tilings(
    inst: &Instance,
    deadline: &Deadline,
    bounds: &crate::bounds::Bounds,
    mut res: SolveResult,
    budget: u64,
    certify: Option<&Certifier>,
) -> Candidates {
    let n_ops = inst.graph.n_ops();
    let mut cand = bounds.nogoods.candidates(inst);
    let usable: usize = (0..n_ops as u32)
        .map(|o| inst.usable_tilings(o).count())
        .sum();
    let kept: usize = cand.iter().map(Vec::len).sum();
    let refuted = bounds.nogoods.refuted.len();
    if kept + refuted < usable {
        res.note_as(
            NoteKind::Pruned,
            format!(
                "{} of {usable} usable tilings dropped as dominated",
                usable - kept - refuted
            ),
        );
    }
    let peaks = crate::list::tiling::serial_peaks(inst);
    let mut pruned = 0;
    let mut never: Vec<(u32, u64)> = Vec::new();
    // A probe's answer is its tiling's (the op alone, nothing around it):
    // asked once per library tiling, however many ops share it; all of
    // them within `PRUNING_SHARE` of the time, the rest kept undecided.
    let probing = deadline.share(PRUNING_SHARE);
    let mut answers: std::collections::HashMap<u32, Option<bool>> = Default::default();
    for (op, ops_cand) in cand.iter_mut().enumerate() {
        let risky: Vec<u32> = ops_cand
            .iter()
            .copied()
            .filter(|&t| peaks[t as usize] > 1_000_000)
            .collect();
        for t in risky {
            let answer = match answers.get(&t) {
                Some(&a) => a,
                None if probing.expired() => None,
                None => {
                    let a = alone_feasible(inst, op, t, &probing, budget, certify, &mut res);
                    answers.insert(t, a);
                    a
                }
            };
            match answer {
                Some(false) => {
                    pruned += 1;
                    ops_cand.retain(|&x| x != t);
                    let o = &inst.graph.ops[op];
                    let horizon = inst.library.tilings[t as usize]
                        .nodes()
                        .map(|v| inst.library.node_dur[v as usize])
                        .fold(0u64, u64::saturating_add);
                    never.push((t, horizon));
                    let tiling = inst.library.tilings[t as usize].id;
                    res.note_as(
                        NoteKind::Unschedulable {
                            op: o.id,
                            tiling,
                            proven: true,
                        },
                        format!(
                            "op {} tiling {tiling}: no legal schedule even alone (UNSAT at horizon {horizon}): pruned",
                            o.id
                        ),
                    );
                }
                Some(true) => {}
                None => log::info!("sat: pruning probe of op {op} tiling {t} undecided"),
            }
        }
        if ops_cand.is_empty() {
            let o = &inst.graph.ops[op];
            let mut r =
                SolveResult::without_schedule(Status::Infeasible, 0, "none (infeasible)", ENGINE);
            for n in res.notes {
                r.notes.push(n);
            }
            r.note_as(NoteKind::NoTilingForOp { op: o.id }, format!(
                "infeasible: op {} (type {}, shape {}) has no tiling whose subgraph can be scheduled \
                 even alone under the memory rule (each proven UNSAT at the horizon sum of durations; \
                 models/sat.md)",
                o.id, o.op_type, o.shape
            ));
            return Candidates::Infeasible(r);
        }
    }
    if pruned > 0 {
        res.note(format!("{pruned} tilings pruned as never schedulable"));
        if res.makespan.is_none() {
            res = list_without(inst, &never, deadline, bounds, res);
        }
    }
    Candidates::Kept(cand, res)
}

/// The encoding for makespans up to `tmax_wide` (time units): every instant
/// or event points within the memory budget (`plan`), built in interruptible
/// steps (by the deadline, or `first_answer_by`). `None` when the engine steps
/// aside (over the budget, beyond its horizon, the deadline during the build:
/// `res` says why); otherwise the encoder, `tmax`, and the note's suffix on
/// event points.
fn build_encoding<'m, 'a>(
    m: &'m Model<'a>,
    tmax_wide: u128,
    budget: u64,
    deadline: &Deadline,
    first_answer_by: Option<Instant>,
    res: &mut SolveResult,
) -> Option<(Encoder<'m, 'a>, u64, &'static str)> {
    let g = m.g;
    let pts = match plan(m, tmax_wide, budget) {
        Ok(p) => p,
        Err(d) => {
            let note = format!("{d}: list scheduling result");
            res.step_aside(d.why, note);
            return None;
        }
    };
    // plan() checked tmax <= MAX_TIME.
    let tmax = tmax_wide as u64;
    // Over event points, optimal makespans are points too (models/sat.md 1.6):
    // bounds may jump to the next point.
    let pts_every = pts.is_every();
    let points_note = if pts_every {
        ""
    } else {
        res.note(format!(
            "time compressed to {} event points (sums of durations) of {} instants",
            pts.count(0, tmax as i64),
            tmax + 1
        ));
        "; optimal makespans are sums of durations (event points)"
    };
    let t_build = Instant::now();
    let limits = Limits {
        max_bytes: budget,
        deadline: Some(
            first_answer_by
                .map_or(deadline.end, |by| by.min(deadline.end))
                .into(),
        ),
        cancel: deadline.cancel.clone(),
    };
    let enc = match Encoder::build_within(m, tmax, pts, limits) {
        Ok(e) => e,
        Err(EncodeStop::OverBudget { bytes }) => {
            res.step_aside(
                StepAside::OverMemoryBudget {
                    estimated_mib: bytes >> 20,
                    budget_mib: budget >> 20,
                    stage: BudgetStage::Build,
                },
                format!(
                    "encoding over the memory budget: stopped after {:.3} s at about {} MiB \
                     (budget {} MiB; --memory-limit): list scheduling result",
                    t_build.elapsed().as_secs_f64(),
                    bytes >> 20,
                    budget >> 20
                ),
            );
            return None;
        }
        Err(EncodeStop::Deadline) => {
            res.step_aside(
                StepAside::DeadlineDuringEncoding,
                format!(
                    "deadline during encoding: stopped after {:.3} s: list scheduling result",
                    t_build.elapsed().as_secs_f64()
                ),
            );
            return None;
        }
    };
    let kind = NoteKind::Encoding {
        clauses: enc.stats.clauses as u64,
        event_points: !pts_every,
    };
    res.note_as(
        kind,
        format!(
            "encoding: {} nodes over {} candidate tilings, makespans <= {} (units of {g}): \
         {} variables, {} clauses, built in {:.3} s",
            m.nodes.len(),
            m.slots.len(),
            tmax,
            enc.stats.vars,
            enc.stats.clauses,
            t_build.elapsed().as_secs_f64()
        ),
    );
    Some((enc, tmax, points_note))
}

/// Whether the SAT model (before any clause) may be built: within the
/// memory budget (`MODEL_BYTES_PER_NODE` a candidate node) and with time
/// left; otherwise the engine steps aside, `res` saying why.
fn model_within_budget(
    inst: &Instance,
    cand: &[Vec<u32>],
    budget: u64,
    deadline: &Deadline,
    res: &mut SolveResult,
) -> bool {
    let model_nodes: u64 = cand
        .iter()
        .flatten()
        .map(|&t| u64::from(inst.library.tilings[t as usize].n_nodes))
        .sum();
    let model_bytes = model_nodes.saturating_mul(MODEL_BYTES_PER_NODE);
    if model_bytes > budget {
        res.step_aside(
            StepAside::OverMemoryBudget {
                estimated_mib: model_bytes >> 20,
                budget_mib: budget >> 20,
                stage: BudgetStage::Model,
            },
            format!(
                "the SAT model of {model_nodes} candidate nodes alone would take about {} MiB \
                 (budget {} MiB; --memory-limit): list scheduling result",
                model_bytes >> 20,
                budget >> 20
            ),
        );
        return false;
    }
    if deadline.expired() {
        res.step_aside(
            StepAside::DeadlineDuringEncoding,
            "time limit reached before the SAT model was built: list scheduling result",
        );
        return false;
    }
    true
}

/// What the descent leaves for the result.
struct Found {
    best: Option<Schedule>,
    /// The proven bound, in time units.
    lo: u64,
    lb_source: String,
    /// UNSAT at the horizon itself, undisturbed: no schedule exists.
    settled_infeasible: bool,
    tmax: u64,
}

/// Raises `res`'s bound to `lo` time units (saturating down keeps a bound a
/// bound; never above a legal makespan).
fn raise_to(res: &mut SolveResult, lo: u64, g: u64, src: &str) {
    let b = lo.saturating_mul(g);
    match res.makespan {
        Some(ms) => res.raise_bound(u64::try_from(ms).map_or(b, |ms| b.min(ms)), src),
        None => {
            if b > res.lower_bound {
                res.lower_bound = b;
                res.bound_source = src.to_string();
            }
        }
    }
}

/// The search's result: its best schedule through the validator (the
/// incumbent's notes kept), with the bound it proved; or infeasible when the
/// horizon itself was refuted.
fn search_result(
    inst: &Instance,
    bounds: &crate::bounds::Bounds,
    g: u64,
    mut res: SolveResult,
    f: Found,
) -> SolveResult {
    let lb0 = bounds.best.value;
    if let Some(s) = f.best {
        let mut r = match SolveResult::found(inst, s, 0, "none", ENGINE) {
            Ok(r) => r,
            Err(e) => {
                res.internal(e.to_string());
                return res;
            }
        };
        r.lower_bound = 0;
        let ms = r.makespan.unwrap_or(0);
        r.raise_bound(
            u64::try_from(ms).map_or(lb0, |ms| lb0.min(ms)),
            &bounds.best.source,
        );
        r.take_history(&mut res);
        r.note("best schedule: SAT model");
        res = r;
    }
    if res.makespan.is_some() {
        raise_to(&mut res, f.lo, g, &f.lb_source);
    } else if f.settled_infeasible {
        let mut r =
            SolveResult::without_schedule(Status::Infeasible, 0, "none (infeasible)", ENGINE);
        r.take_history(&mut res);
        r.note(format!(
            "infeasible: no schedule with makespan <= {} (the horizon: every legal schedule \
             compacts to one within the sum of durations; models/sat.md)",
            u128::from(f.tmax) * u128::from(g)
        ));
        return r;
    } else {
        raise_to(&mut res, f.lo, g, &f.lb_source);
    }
    res
}

/// `search`, and with `certify` (`--certify DIR`) every UNSAT answer it rests
/// on (tilings pruned as never schedulable, each probe that raised the bound)
/// is written as a CNF and a proof (sat/certify.rs), each with a note.
pub fn search_certified(
    inst: &Instance,
    deadline: &Deadline,
    bounds: &crate::bounds::Bounds,
    mut res: SolveResult,
    policy: Policy,
    memory_limit_mib: u64,
    out: Outputs<'_>,
) -> SolveResult {
    let Outputs { certify, events } = out;
    let budget = budget_bytes(memory_limit_mib);

    // 2. Candidate tilings: dominated ones dropped, then those that cannot be
    //    scheduled even alone (memory) pruned by the solver.
    let cand = match candidate_tilings(inst, deadline, bounds, res, budget, certify) {
        Candidates::Kept(cand, r) => {
            res = r;
            cand
        }
        Candidates::Infeasible(r) => return r,
    };

    // 3. The model and its encoding for makespans below the incumbent. The
    //    model alone takes tens of bytes a candidate node (947 MiB peak at
    //    2x10^7 candidate nodes) and its building is not interruptible: it is
    //    built only within the budget and with time left.
    if !model_within_budget(inst, &cand, budget, deadline, &mut res) {
        return res;
    }
    let incumbent = res.makespan;
    let mut m = Model::new(inst, &cand);
    m.forbid(&bounds.nogoods);
    let g = m.g;
    // The incumbent step may have proven more than the starting bounds.
    let (lb0, lb_source) = if res.lower_bound > bounds.best.value {
        (res.lower_bound, res.bound_source.clone())
    } else {
        (bounds.best.value, bounds.best.source.clone())
    };
    let lo = lb0.div_ceil(g);
    let tmax_wide: u128 = match incumbent {
        Some(ms) => ms.saturating_sub(1) / u128::from(g),
        None => u128::from(m.horizon),
    };
    if g > 1 {
        res.note(format!("time unit {g} (gcd of all durations)"));
    }
    if incumbent.is_some() && tmax_wide < u128::from(lo) {
        // No multiple of g lies between the bound and the incumbent.
        raise_to(
            &mut res,
            tmax_wide as u64 + 1,
            g,
            "optimal makespans are multiples of the time unit",
        );
        return res;
    }
    let Some((mut enc, tmax, mut points_note)) = build_encoding(
        &m,
        tmax_wide,
        budget,
        deadline,
        policy.first_answer_by,
        &mut res,
    ) else {
        return res;
    };
    // The window net (not under --certify: certified CNFs hold the encoding
    // alone): propagated windows under every probed makespan; its shaving
    // and destructive bound once a probe runs out of time (`Descent::escalate`).
    let with_windows = |enc: &mut Encoder| {
        if certify.is_none()
            && let Some(wn) = windows::WindowNet::new(&m)
        {
            enc.use_windows(wn);
        }
        if certify.is_none() {
            enc.use_propagators(encode::Lazy::ALL);
        }
    };
    with_windows(&mut enc);
    // The search ends early enough to free the encoding before the deadline
    // (a tenth more than now: lazy cuts add clauses).
    let deadline = &Deadline {
        end: deadline
            .end
            .checked_sub(enc.drop_time().mul_f64(1.1))
            .unwrap_or(deadline.end),
        ..deadline.clone()
    };

    // 4. Galloping descent: probe T = hi + 1 - step below the incumbent, the step
    //    doubling after each SAT answer (a better schedule) and bisecting after an
    //    UNSAT answer (a proven bound); probes other than T = hi get a share of the
    //    time, and when one runs out the descent goes on one unit at a time
    //    (the solver keeps what it learned). The last probe, T = hi = lo, is
    //    the proof.
    let cx = Probing {
        inst,
        m: &m,
        deadline,
        policy,
        certify,
        g,
        lb0,
        incumbent,
        budget,
        progress: crate::solve::Progress::new(false, events.clone()),
    };
    let mut d = Descent::new(lo, tmax, deadline);
    while d.lo <= d.hi {
        let Some((t, low)) = d.next_probe(&enc) else {
            continue;
        };
        let answered = d.best.is_some() || d.last_unsat.is_some();
        let stop = d.probe_stop(t, low, answered, &cx);
        // Once escalated, each makespan's windows (when it is first probed)
        // are shaved on a share like the last probe's time.
        let share = if d.escalated {
            d.last_probe
                .clamp(DESCENT.window_shave_least, DESCENT.window_shave_most)
                .min(deadline.remaining().mul_f64(DESCENT.window_shave_share))
        } else {
            Duration::ZERO
        };
        enc.makespan_le_shaved(t as i64, share);
        let t1 = Instant::now();
        let answer = enc.decide(t as i64, &[], stop);
        if !matches!(answer, Answer::Interrupted | Answer::OverBudget) {
            d.last_probe = t1.elapsed();
        }
        let flow = match answer {
            Answer::Sat(model) => d.on_sat(&model, t, t1, &cx),
            Answer::Unsat => d.on_unsat(&mut enc, t, low, t1, &cx, &mut res),
            Answer::OverBudget if d.may_reencode(&enc, &cx) => {
                let cut_at = enc.bytes_estimate();
                let (last_stats, last_tmax) = (enc.stats, enc.tmax);
                drop(enc);
                match build_encoding(&m, u128::from(d.hi), budget, deadline, None, &mut res) {
                    Some((fresh, _, note)) => {
                        enc = fresh;
                        with_windows(&mut enc);
                        // A bound that jumped between event points keeps its
                        // reason whatever the new encoding's points.
                        if !note.is_empty() {
                            points_note = note;
                        }
                        log::info!(
                            "sat: lazy cuts took the encoding to about {} MiB: encoded again \
                             for makespans <= {}",
                            cut_at >> 20,
                            cx.time(d.hi)
                        );
                        d.reencoded += 1;
                        continue;
                    }
                    // The step-aside note says why.
                    None => {
                        d.over_budget = true;
                        let found =
                            d.finish(last_stats, last_tmax, &cx, lb_source, points_note, &mut res);
                        return search_result(inst, bounds, g, res, found);
                    }
                }
            }
            Answer::OverBudget => d.on_over_budget(&enc, &cx, &mut res),
            Answer::Interrupted => {
                let flow = d.on_interrupted(t, low, answered, t1, &cx, &mut res);
                // Escalate only a search that goes on (one that gives up
                // hands its time to others), and on a probe that decides the
                // bound (the top one, a bound probe): a galloping probe below
                // the top that runs long is a model hard to find, which the
                // window net's bound does not help.
                if flow == Flow::Go && !d.escalated && (t == d.hi || low) {
                    d.escalate(&mut enc, &cx);
                }
                flow
            }
        };
        if flow == Flow::Stop {
            break;
        }
    }
    // 5. The result: the best schedule, validated, with the proven bound.
    let found = d.finish(enc.stats, enc.tmax, &cx, lb_source, points_note, &mut res);
    search_result(inst, bounds, g, res, found)
}

/// Whether op `op` with tiling `t` alone (no other op) has a legal schedule:
/// `Some(false)` is a proof that no instance schedule can use the tiling.
/// Encodings over a quarter of the budget are not tried (`None`).
fn alone_feasible(
    inst: &Instance,
    op: usize,
    t: u32,
    deadline: &Deadline,
    budget: u64,
    certify: Option<&Certifier>,
    res: &mut SolveResult,
) -> Option<bool> {
    let mut cand: Vec<Vec<u32>> = vec![Vec::new(); inst.graph.n_ops()];
    cand[op] = vec![t];
    let m = Model::new(inst, &cand);
    let stop = deadline.at_share(0.1);
    match context::decide_restriction(&m, stop.into(), deadline.cancel.clone(), budget / 4)? {
        (true, _) => Some(true),
        (false, enc) => {
            if let Some(c) = certify {
                let o = &inst.graph.ops[op];
                let tid = inst.library.tilings[t as usize].id;
                let probe = Probe {
                    tag: format!("op{}-tiling{tid}-alone", o.id),
                    claim: format!(
                        "op {} with tiling {tid} has no legal schedule even alone (within the \
                         horizon {} of its own durations): the tiling is pruned, for every op \
                         of type {} and shape {} (the same subgraph)",
                        o.id,
                        u128::from(m.horizon) * u128::from(m.g),
                        o.op_type,
                        o.shape
                    ),
                    bound: None,
                    infeasible: false,
                };
                certify_answer(&enc, inst, c, probe, deadline.at_share(0.1), res);
            }
            Some(false)
        }
    }
}

/// What a certificate claims (sat/certify.rs): its file tag, the claim in
/// the instance's time, the bound it proves, and whether it is the
/// infeasibility proof.
struct Probe {
    tag: String,
    claim: String,
    bound: Option<u64>,
    infeasible: bool,
}

/// Certifies the UNSAT answer `enc` just gave (`Encoder::certify`) and
/// records it, with a note either way. A fresh solver that finds the clause
/// set satisfiable means the search's answer was wrong: an internal error
/// (exit 70), never a bound reported as certified.
fn certify_answer(
    enc: &Encoder,
    inst: &Instance,
    c: &Certifier,
    probe: Probe,
    stop: Instant,
    res: &mut SolveResult,
) {
    let (cnf, proof) = c.paths(&probe.tag);
    let comments = certify::comments(&inst.name, &probe.claim, &proof);
    let t = Instant::now();
    match enc.certify(&comments, &cnf, &proof, stop) {
        Ok((vars, clauses)) => {
            let seconds = t.elapsed().as_secs_f64();
            res.note(format!(
                "certificate: {}{}: {} ({vars} variables, {clauses} clauses) and {}, \
                 proof solve in {seconds:.3} s",
                probe.claim,
                probe
                    .bound
                    .map_or(String::new(), |b| format!(" (lower bound {b})")),
                cnf.display(),
                proof.display()
            ));
            c.record(Certificate {
                claim: probe.claim,
                bound: probe.bound,
                infeasible: probe.infeasible,
                cnf,
                proof,
                vars,
                clauses,
                seconds,
            });
        }
        Err(NotCertified::Satisfiable) => res.internal(format!(
            "SAT engine: \"{}\" was answered UNSAT, but a fresh solver finds its clause set \
             satisfiable ({})",
            probe.claim,
            NotCertified::Satisfiable
        )),
        Err(e @ NotCertified::Io(_)) => res.note_as(
            NoteKind::WriteFailed,
            format!("not certified: {}: {e}", probe.claim),
        ),
        Err(e) => res.note(format!("not certified: {}: {e}", probe.claim)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::parse_reader;

    fn inst(text: &str) -> Instance {
        parse_reader(text.as_bytes(), "inline.txt").unwrap()
    }

    /// Two chained nodes of `d` on one core: horizon 2 units of `d`.
    fn chain(d: u64) -> Instance {
        inst(&format!(
            "SetSocInfo([[0,1]],[])\nAddOpInfo(1,1,0,[[1,2]],[[1,0,{d}],[2,0,{d}]],[])\n\
             GetInferenceScheResult([],[[1,1,1]])"
        ))
    }

    /// An UNSAT answer at `lo - 1` units proves `lo` units: in time, `lo`
    /// times the unit (models/sat.md §1.3), and no more than a makespan
    /// found (which it then proves optimal).
    #[test]
    fn a_bound_in_units_is_a_bound_in_time() {
        let mut r = SolveResult::without_schedule(Status::Unknown, 3, "before", ENGINE);
        raise_to(&mut r, 2, 5, "units");
        assert_eq!((r.lower_bound, r.bound_source.as_str()), (10, "units"));
        raise_to(&mut r, 1, 5, "lower");
        assert_eq!(r.lower_bound, 10, "a bound never falls");
        let i = chain(5);
        let g = crate::graph::NodeGraph::new(&i, vec![0]).unwrap();
        let s = Schedule {
            choice: vec![0],
            start: vec![0, 5],
            core: vec![0, 0],
        };
        assert_eq!(s.makespan(&g), 10);
        let mut r = SolveResult::found(&i, s, 0, "none", ENGINE).unwrap();
        raise_to(&mut r, 3, 5, "units");
        assert_eq!((r.lower_bound, r.status), (10, Status::Optimal));
    }

    /// The time points: every instant where that fits the budget, the
    /// event points (sums of durations: here 0, d, 2d) where the instants
    /// would not, and a typed refusal beyond the representable horizon.
    #[test]
    fn every_instant_where_it_fits_else_the_event_points() {
        let small = chain(3);
        let m = Model::new(&small, &candidates_of_every_op(&small));
        assert!(plan(&m, 2, 1 << 20).unwrap().is_every());
        // Durations 10^9 and 1: the gcd is 1, so 2 x 10^9 instants, but
        // only a few sums of durations.
        let wide = inst(
            "SetSocInfo([[0,1]],[])\nAddOpInfo(1,1,0,[[1,2]],[[1,0,1000000000],[2,0,1]],[])\n\
             GetInferenceScheResult([],[[1,1,1]])",
        );
        let m = Model::new(&wide, &candidates_of_every_op(&wide));
        assert_eq!(m.g, 1);
        let p = plan(&m, m.horizon as u128, 64 << 20).unwrap();
        assert!(!p.is_every());
        assert!(p.count(0, m.horizon as i64) <= 4);
        // Beyond MAX_TIME units: the engine steps aside, typed.
        let huge = inst(
            "SetSocInfo([[0,1]],[])\nAddOpInfo(1,1,0,[[1,2]],[[1,0,2305843009213693952],[2,0,1]],[])\n\
             GetInferenceScheResult([],[[1,1,1]])",
        );
        let m = Model::new(&huge, &candidates_of_every_op(&huge));
        let e = plan(&m, m.horizon as u128, 64 << 20).unwrap_err();
        assert!(
            matches!(e.why, StepAside::HorizonBeyondEngine { .. }),
            "{}",
            e.message
        );
    }
}
