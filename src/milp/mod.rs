//! The exact MILP engine (HiGHS).
//!
//! 1. List scheduling gives the incumbent (`list::solve_with_bounds`), the
//!    combinatorial bounds the first lower bound.
//! 2. Tiling combinations are enumerated (after removing exactly dominated
//!    tilings), each gets its own lower bound (`Net::lower_bound`), and those
//!    below the incumbent are solved best bound first, sharing the incumbent.
//! 3. Each combination is one MILP: time-indexed or disjunctive (chosen by
//!    size under `Formulation::Auto`), warm-started from the incumbent when it
//!    belongs to that combination, otherwise asked for a strictly better
//!    schedule (horizon = incumbent - 1).
//! 4. The lower bound reported is max(combinatorial bound, min over tiling
//!    combinations still open of their bound), where an open combination's
//!    bound is the larger of its own combinatorial bound and HiGHS's dual
//!    bound. Every decoded schedule passes the validator.
//!
//! The formulations are documented in `models/milp.md`.

pub mod aggregate;
mod disjunctive;
pub mod engine;
pub mod highs;
mod model;
mod net;
mod time_indexed;

use std::path::{Path, PathBuf};

use crate::bounds::Bounds;
use crate::bounds::combinatorial::lower_bounds;
use crate::graph::NodeGraph;
use crate::instance::Instance;
use crate::list::Searcher;
use crate::schedule::Schedule;
use crate::solve::{Note, NoteKind, SolveOptions, SolveResult, Status, StepAside};
use crate::stop::Deadline;

use disjunctive::Disjunctive;
use highs::{Params, RunStatus};
use model::{Ctx, Formulated, to_schedule};
use net::Net;
use time_indexed::TimeIndexed;

pub use net::MAX_NODES;

/// Which formulation to build (`--model`; the doc of each variant is its
/// help).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Formulation {
    /// Pick by horizon and size, and log why.
    Auto,
    /// Binaries x[v,t] for start times.
    TimeIndexed,
    /// Start variables and ordering binaries between conflicting nodes.
    Disjunctive,
}

/// MILP-specific options.
#[derive(Clone, Debug)]
pub struct MilpOptions {
    pub formulation: Formulation,
    /// Write .lp/.mps models here.
    pub export_dir: Option<PathBuf>,
}

impl Default for MilpOptions {
    fn default() -> Self {
        MilpOptions {
            formulation: Formulation::Auto,
            export_dir: None,
        }
    }
}

const ENGINE: &str = "milp";

/// Most tiling combinations enumerated and bounded one by one.
pub const MAX_COMBINATIONS: u64 = 1024;

/// Under `Auto`, the time-indexed model is used up to this many binaries.
const TIME_INDEXED_MAX_BINARIES: u64 = 8_000;

/// A tiling combination: one library tiling per op, and its lower bound
/// (u128: a bound in time units times the unit may pass u64).
#[derive(Clone, Debug)]
struct Combo {
    choice: Vec<u32>,
    bound: u128,
    /// Closed: solved, pruned by the bound, or shown to hold no better schedule.
    closed: bool,
    /// A list pass has run on it.
    listed: bool,
}

/// True when every memory size, in units of the gcd of the size and its
/// demands, is at most 10^6: HiGHS's tolerances then resolve one unit.
fn memory_is_precise(inst: &Instance) -> bool {
    let lib = &inst.library;
    let mut g: Vec<u64> = inst.platform.mems.iter().map(|m| m.size).collect();
    for d in &lib.mem {
        let k = d.mem as usize;
        g[k] = crate::prep::unit::gcd(g[k], d.amount);
    }
    inst.platform
        .mems
        .iter()
        .zip(&g)
        .all(|(m, &gk)| gk == 0 || m.size / gk <= 1_000_000)
}

/// The exact search from an incumbent result (a legal schedule, or none) and
/// the instance's lower bounds, within `deadline`: the portfolio calls this
/// with a shared incumbent. Returns the better of the incumbent and what the
/// search proves and finds (the incumbent's notes first).
pub fn search(
    inst: &Instance,
    opts: &SolveOptions,
    mopts: &MilpOptions,
    deadline: &Deadline,
    bounds: &Bounds,
    inc: SolveResult,
) -> SolveResult {
    if inc.status.is_settled() {
        let mut inc = inc;
        if let Some(dir) = &mopts.export_dir {
            inc.note(format!(
                "--export-model {}: no MILP model was built, nothing written (settled before the MILP)",
                dir.display()
            ));
        }
        return inc;
    }
    let mut inc = inc;
    if deadline.expired() {
        // Counting the tiling combinations looks at no clock (about 0.2 s
        // at 10^5 ops): with no time left, the incumbent.
        inc.note("milp: no time left after the incumbent step (the MILP did not run)");
        return inc;
    }
    // The given bounds: computing them again took a fifth of a second and
    // more on instances with a few memory types, past a short deadline.
    let mut e = Engine::new(inst, opts, mopts, bounds.clone(), true);
    e.deadline = deadline.clone();
    e.floor = inc.lower_bound;
    e.floor_source = inc.bound_source.clone();
    if let (Some(s), Some(m)) = (inc.schedule.clone(), inc.makespan) {
        e.best = Some(s);
        e.best_makespan = m;
        e.best_how = format!("incumbent from {}", inc.engine);
    }
    let mut r = e.exact();
    r.take_history(&mut inc);
    r
}

/// Where an offered schedule comes from: only a MILP solution may break the
/// memory rule for a documented reason (sizes beyond the solver's precision).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum From {
    List,
    Milp,
}

/// What became of a MILP solution offered as a schedule.
#[derive(Clone, Copy)]
struct Offered {
    /// It passed the validator.
    legal: bool,
    /// It beat the incumbent.
    improved: bool,
}

/// The engine's bugs into the typed field (`Engine::bug` noted them already).
fn record_bugs(r: &mut SolveResult, bugs: Vec<String>) {
    for b in bugs {
        r.internal_error = Some(match r.internal_error.take() {
            Some(x) => format!("{x}; {b}"),
            None => b,
        });
    }
}

/// Why the engine would not enumerate the tiling combinations of `per_op`
/// (each op's candidate tilings) and fall back to list scheduling.
pub enum TooLarge {
    /// More than `MAX_COMBINATIONS` (`None`: more than 2^64).
    Combinations(Option<u64>),
    /// A combination with more than `MAX_NODES` nodes.
    Nodes(u64),
}

/// `None` where the engine enumerates the combinations of `per_op` and solves
/// each (the portfolio asks before it spends a thread on it).
pub fn too_large(inst: &Instance, per_op: &[Vec<u32>]) -> Option<TooLarge> {
    let product: Option<u64> = per_op
        .iter()
        .try_fold(1u64, |a, t| a.checked_mul(t.len() as u64));
    if product.is_none_or(|p| p > MAX_COMBINATIONS) {
        return Some(TooLarge::Combinations(product));
    }
    let max_nodes = per_op
        .iter()
        .map(|ts| {
            ts.iter()
                .map(|&t| u64::from(inst.library.tilings[t as usize].n_nodes))
                .max()
                .unwrap_or(0)
        })
        .sum::<u64>();
    (max_nodes > MAX_NODES as u64).then_some(TooLarge::Nodes(max_nodes))
}

/// `x` in words: the exact count when it fits u64, "more than 2^64" otherwise.
fn count_text(x: Option<u64>) -> String {
    x.map_or_else(|| "more than 2^64".to_string(), |x| x.to_string())
}

/// The engine without the list-scheduling incumbent (no warm start, no
/// cutoff): every schedule comes from a MILP solution. For tests of the
/// formulations.
#[doc(hidden)]
pub fn solve_cold(inst: &Instance, opts: &SolveOptions, mopts: &MilpOptions) -> SolveResult {
    let t0 = std::time::Instant::now();
    let mut r = Engine::new(inst, opts, mopts, lower_bounds(inst), false).cold();
    r.wall_seconds = t0.elapsed().as_secs_f64();
    r
}

struct Engine<'a> {
    inst: &'a Instance,
    opts: &'a SolveOptions,
    mopts: &'a MilpOptions,
    deadline: Deadline,
    bounds: Bounds,
    best: Option<Schedule>,
    /// The best makespan (u128::MAX without a schedule); u128: ends may pass u64.
    best_makespan: u128,
    best_how: String,
    notes: Vec<Note>,
    /// Engine bugs seen (typed in the result: the CLI exits 70).
    bugs: Vec<String>,
    /// Why the engine stepped aside, if it did.
    stepped: Option<StepAside>,
    /// Models written by `--export-model`.
    exported: usize,
    /// Start from the list scheduler's incumbent.
    warm: bool,
    /// A HiGHS run was abandoned (it overran its limit): start no more.
    abandoned: bool,
    /// A lower bound proven elsewhere (the portfolio's incumbent result).
    floor: u64,
    floor_source: String,
}

impl<'a> Engine<'a> {
    fn new(
        inst: &'a Instance,
        opts: &'a SolveOptions,
        mopts: &'a MilpOptions,
        bounds: Bounds,
        warm: bool,
    ) -> Self {
        Engine {
            inst,
            opts,
            mopts,
            deadline: opts.deadline(),
            bounds,
            best: None,
            best_makespan: u128::MAX,
            best_how: String::new(),
            notes: Vec::new(),
            bugs: Vec::new(),
            stepped: None,
            exported: 0,
            warm,
            abandoned: false,
            floor: 0,
            floor_source: String::new(),
        }
    }

    fn note(&mut self, s: String) {
        self.note_as(NoteKind::Info, s);
    }

    fn note_as(&mut self, kind: NoteKind, s: String) {
        log::info!("{s}");
        if self.opts.progress {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "milp: {s}");
        }
        self.notes.push(Note { kind, text: s });
    }

    /// An engine bug: noted, and typed in the result (`internal_error`).
    fn bug(&mut self, e: String) {
        log::error!("{e}");
        self.notes.push(Note {
            kind: NoteKind::Internal,
            text: format!("internal error: {e}"),
        });
        self.bugs.push(e);
    }

    /// Without the list-scheduling incumbent (`solve_cold`): every schedule
    /// comes from a MILP solution.
    fn cold(mut self) -> SolveResult {
        let inst = self.inst;
        if let Some(&op) = inst.ops_without_usable_tiling().first() {
            let mut r = SolveResult::without_schedule(Status::Infeasible, 0, "none", ENGINE);
            r.note_as(
                NoteKind::NoTilingForOp {
                    op: inst.graph.ops[op as usize].id,
                },
                format!("infeasible: {}", inst.why_no_usable_tiling(op)),
            );
            return r;
        }
        self.note("cold start: no list-scheduling incumbent".into());
        self.exact()
    }

    /// Enumerates and solves the tiling combinations.
    fn exact(mut self) -> SolveResult {
        let inst = self.inst;
        // 2. Tiling combinations.
        // Undominated tilings less those refuted (models/sat.md §1.2).
        let per_op: Vec<Vec<u32>> = self.bounds.nogoods.candidates(inst);
        // Exact counts (checked products): a saturated count printed 2^64 - 1.
        let usable: Option<u64> = (0..inst.graph.n_ops() as u32)
            .map(|op| inst.usable_tilings(op).count() as u64)
            .try_fold(1u64, |a, b| a.checked_mul(b));
        if let Some(why) = too_large(inst, &per_op) {
            self.note(match why {
                TooLarge::Combinations(product) => format!(
                    "{} tiling combinations (after dominance; {} before): more than \
                     {MAX_COMBINATIONS}, too many to enumerate; falling back to list scheduling \
                     and the combinatorial bound",
                    count_text(product),
                    count_text(usable)
                ),
                TooLarge::Nodes(max_nodes) => format!(
                    "up to {max_nodes} nodes: more than the {MAX_NODES} the MILP engine takes; \
                     falling back to list scheduling and the combinatorial bound"
                ),
            });
            self.stepped = Some(StepAside::TooLarge);
            return self.fallback();
        }
        let usable = count_text(usable);
        let mut combos = self.enumerate(&per_op);
        // No combination with a refuted combination in it has a legal
        // schedule. When that leaves none, the instance is infeasible, and
        // the MILP proves it on the combinations themselves.
        let ng = &self.bounds.nogoods;
        let refuted = |c: &Combo| {
            ng.combinations()
                .any(|k| k.iter().all(|&(o, t)| c.choice[o as usize] == t))
        };
        if combos.iter().any(|c| !refuted(c)) {
            combos.retain(|c| !refuted(c));
        }
        if combos.is_empty() {
            // A combination could not be built (reported in a note).
            return self.fallback();
        }
        combos.sort_by_key(|c| c.bound);
        self.note(format!(
            "{} tiling combination(s) ({usable} before dominance); bounds {}..{}",
            combos.len(),
            combos.first().map_or(0, |c| c.bound),
            combos.last().map_or(0, |c| c.bound),
        ));

        // 3. Without an incumbent, quick list passes over every combination
        //    first (a fifth of the time at most): any schedule prunes.
        if self.warm && self.best.is_none() {
            let budget = self.deadline.share(0.2);
            for combo in combos.iter_mut() {
                if budget.expired() {
                    break;
                }
                self.list_pass(combo, &budget);
            }
        }
        // 4. Solve them best bound first: in a first pass each open
        //    combination gets an equal share of the time left, in a second
        //    pass the open ones get all of it, in turn.
        for pass in 0..2 {
            let open: Vec<usize> = (0..combos.len())
                .filter(|&k| {
                    let c = &combos[k];
                    !c.closed && (self.best.is_none() || c.bound < self.best_makespan)
                })
                .collect();
            for (i, &k) in open.iter().enumerate() {
                let combo = &mut combos[k];
                if self.best.is_some() && combo.bound >= self.best_makespan {
                    combo.closed = true;
                    continue;
                }
                let remaining = self.deadline.remaining().as_secs_f64();
                if remaining < 0.2 || self.abandoned {
                    break;
                }
                let budget = if pass == 0 {
                    (remaining / (open.len() - i) as f64).max(remaining.min(1.0))
                } else {
                    remaining
                };
                self.solve_combo(k, combo, budget);
            }
        }
        self.finish(combos)
    }

    /// A quick list-scheduling pass on one combination (once).
    fn list_pass(&mut self, combo: &mut Combo, deadline: &Deadline) {
        if combo.listed || !self.warm {
            return;
        }
        combo.listed = true;
        if self.best.as_ref().is_some_and(|b| b.choice == combo.choice) {
            return;
        }
        let Ok(g) = NodeGraph::new(self.inst, combo.choice.clone()) else {
            return;
        };
        let mut se = Searcher::new(&g);
        se.deterministic(u64::try_from(combo.bound).unwrap_or(u64::MAX), deadline);
        if let Some(f) = se.best
            && u128::from(f.makespan) < self.best_makespan
        {
            let _ = self.offer(
                f.schedule,
                From::List,
                "list scheduling on a tiling combination",
            );
        }
    }

    /// No MILP: the incumbent is handed back as it is; the caller's
    /// `engine::list_for_the_rest` gives the time left to list scheduling.
    fn fallback(self) -> SolveResult {
        self.finish(Vec::new())
    }

    fn enumerate(&mut self, per_op: &[Vec<u32>]) -> Vec<Combo> {
        let n_ops = per_op.len();
        let mut idx = vec![0usize; n_ops];
        let mut out = Vec::new();
        loop {
            let choice: Vec<u32> = (0..n_ops).map(|o| per_op[o][idx[o]]).collect();
            match NodeGraph::new(self.inst, choice.clone()) {
                Ok(g) => match Net::new(&g) {
                    Ok(net) => {
                        let b = u128::from(net.lower_bound().max(0) as u64) * u128::from(net.scale);
                        out.push(Combo {
                            choice,
                            bound: b.max(u128::from(self.bounds.best.value)),
                            closed: false,
                            listed: false,
                        });
                    }
                    Err(e) => {
                        self.stepped = Some(match e {
                            net::NetError::TooLong { sum, scale } => {
                                StepAside::HorizonBeyondEngine {
                                    horizon: u128::from(sum) * u128::from(scale),
                                    max: u128::from(net::MAX_SCALED_SUM) * u128::from(scale),
                                }
                            }
                            _ => StepAside::TooLarge,
                        });
                        self.note(format!("tiling combination not modelled: {e}"));
                        return Vec::new();
                    }
                },
                Err(e) => {
                    self.note(format!("tiling combination not modelled: {e}"));
                    return Vec::new();
                }
            }
            // Next combination (mixed radix).
            let mut o = 0;
            while o < n_ops {
                idx[o] += 1;
                if idx[o] < per_op[o].len() {
                    break;
                }
                idx[o] = 0;
                o += 1;
            }
            if o == n_ops {
                return out;
            }
        }
    }

    /// Offers a schedule; keeps it when it is legal and better. Ok(improved)
    /// when legal, Err when the validator rejected it.
    fn offer(&mut self, s: Schedule, from: From, how: &str) -> Result<bool, ()> {
        match SolveResult::found(self.inst, s.clone(), 0, "none", ENGINE) {
            Ok(r) => {
                let Some(m) = r.makespan else {
                    self.bug("a validated schedule without a makespan".into());
                    return Err(());
                };
                if m < self.best_makespan {
                    self.best_makespan = m;
                    self.best = Some(s);
                    self.best_how = how.to_string();
                    return Ok(true);
                }
                Ok(false)
            }
            Err(e) => {
                // Never keep the schedule. Memory sizes beyond the solver's
                // precision explain a memory violation (models/milp.md,
                // section 9); anything else is an engine bug.
                let only_memory = e.violations.as_ref().is_some_and(|v| {
                    v.count(crate::schedule::Rule::Memory) > 0
                        && v.count(crate::schedule::Rule::Memory) == v.total()
                });
                let numeric = from == From::Milp && !memory_is_precise(self.inst) && only_memory;
                if numeric {
                    log::warn!("{e}");
                    self.notes.push(Note::info(format!(
                        "a MILP solution was rejected by the validator: memory sizes \
                         exceed the solver's precision ({e})"
                    )));
                } else {
                    self.bug(e.to_string());
                }
                Err(())
            }
        }
    }

    /// Solves one combination within `budget` seconds, in one HiGHS run:
    /// restarting it with the tighter horizon after each improvement
    /// measured no better (results/policy.md).
    fn solve_combo(&mut self, rank: usize, combo: &mut Combo, budget: f64) {
        let inst = self.inst;
        // A quick list pass on this combination may improve the incumbent.
        let quick = self.deadline.share(0.05);
        self.list_pass(combo, &quick);
        let g = NodeGraph::new(inst, combo.choice.clone()).expect("built before");
        let net = Net::new(&g).expect("built before");
        if self.deadline.remaining().as_secs_f64() >= 0.2 {
            self.attempt(rank, combo, &net, budget);
        }
    }

    /// One MILP run on a combination under the current incumbent.
    /// The horizon (scaled) and MIP start of a combination: the incumbent's
    /// own combination keeps it as start; others must beat it; without an
    /// incumbent, a bound no schedule needs to exceed. Removing idle gaps
    /// keeps a schedule legal (models/milp.md), so some optimal schedule ends
    /// by `cap` = sum(p) + number of points: no horizon goes beyond it (an
    /// incumbent with long idle gaps, e.g. ends beyond u64, would otherwise
    /// give a horizon beyond i64 and f64).
    fn horizon(&self, net: &Net, cap: i64, own: bool) -> (i64, Option<Vec<i64>>) {
        let s = net.scale;
        let s128 = u128::from(s);
        let Some(b) = self.best.as_ref() else {
            return (cap, None);
        };
        let inc = self.best_makespan / s128;
        if own && inc <= cap as u128 {
            let st: Vec<i64> = b.start.iter().map(|&x| (x / s) as i64).collect();
            (inc as i64, Some(st))
        } else if own {
            (cap, None)
        } else {
            (
                (self.best_makespan.saturating_sub(1) / s128).min(cap as u128) as i64,
                None,
            )
        }
    }

    /// Window propagation on a combination (models/milp.md): closes it when
    /// no schedule fits the horizon `h`, and raises its bound to the least
    /// horizon the propagation does not refute (a destructive bound: a refuted
    /// horizon has no schedule, nor has any shorter one). Returns the scaled
    /// bound, or `None` when the combination is closed.
    fn tighten_by_windows(
        &mut self,
        label: &str,
        combo: &mut Combo,
        net: &Net,
        h: i64,
        lb_scaled: i64,
    ) -> Option<i64> {
        let s128 = u128::from(net.scale);
        let time = |x: i64| x.max(0) as u128 * s128;
        if Ctx::new(net, h, lb_scaled).is_none() {
            self.note(format!(
                "{label}: no schedule within horizon {} (window propagation)",
                time(h)
            ));
            combo.closed = true;
            return None;
        }
        let (mut lo, mut hi) = (lb_scaled.min(h), h);
        while lo < hi && !self.deadline.expired() {
            let mid = lo + (hi - lo) / 2;
            if Ctx::new(net, mid, lb_scaled.min(mid)).is_some() {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let lb_scaled = lb_scaled.max(lo);
        if time(lb_scaled) > combo.bound {
            combo.bound = time(lb_scaled);
            self.note(format!(
                "{label}: window propagation refutes every horizon below {}",
                combo.bound
            ));
            if self.best.is_some() && combo.bound >= self.best_makespan {
                combo.closed = true;
                return None;
            }
        }
        Some(lb_scaled)
    }

    /// The formulation for a combination: as asked, or (`auto`) the
    /// disjunctive model when only one-core types can bind (its strength;
    /// memory and multi-core types are weak flows there), else the
    /// time-indexed one while it stays within `TIME_INDEXED_MAX_BINARIES`.
    fn formulation(&self, ctx: &Ctx, net: &Net, label: &str, h: i64) -> Formulation {
        let s = net.scale;
        let ti_size = time_indexed::size_estimate(ctx);
        match self.mopts.formulation {
            Formulation::Auto => {
                // Memory and multi-core types are flows in the disjunctive
                // model (weak); one-core types are its strength.
                let cumulative = net.mems.iter().any(|mt| ctx.memory_may_bind(mt))
                    || net
                        .core_count
                        .iter()
                        .enumerate()
                        .any(|(c, &k)| k > 1 && ctx.cores_may_bind(&net.on_core(c), k));
                let (f, why) = if !cumulative {
                    (
                        Formulation::Disjunctive,
                        "only one-core types can bind".to_string(),
                    )
                } else if ti_size <= TIME_INDEXED_MAX_BINARIES {
                    (
                        Formulation::TimeIndexed,
                        format!(
                            "memory or multi-core types bind and it needs {ti_size} binaries \
                             (at most {TIME_INDEXED_MAX_BINARIES})"
                        ),
                    )
                } else {
                    (
                        Formulation::Disjunctive,
                        format!(
                            "the time-indexed model would need {ti_size} binaries \
                             (more than {TIME_INDEXED_MAX_BINARIES})"
                        ),
                    )
                };
                log::info!(
                    "{label}: {} model chosen: {why} (horizon {h} units of {s})",
                    if f == Formulation::TimeIndexed {
                        "time-indexed"
                    } else {
                        "disjunctive"
                    }
                );
                f
            }
            f => f,
        }
    }

    /// What a HiGHS run concludes for its combination: closed (solved,
    /// infeasible within the horizon) or open with the dual bound.
    /// `offered`: whether HiGHS's solution became a legal schedule, and
    /// whether it improved the incumbent; `h` and `scale`: the horizon and the
    /// time unit of the model.
    fn conclude(
        &mut self,
        label: &str,
        combo: &mut Combo,
        res: &highs::RunResult,
        offered: Offered,
        (h, scale): (i64, u64),
    ) {
        let Offered { legal, improved } = offered;
        let time = |x: i64| x.max(0) as u128 * u128::from(scale);
        let dual = res
            .dual_bound
            .map(|d| (d - 1e-6 * d.abs().max(1.0)).ceil() as i64);
        match res.status {
            // An optimum we could not turn into a legal schedule leaves the
            // combination open, with the dual bound.
            RunStatus::Optimal if !legal => {
                if let Some(d) = dual {
                    let d = time(d.min(h + 1));
                    combo.bound = combo.bound.max(d);
                }
                self.note(format!(
                    "{label}: HiGHS's optimum was rejected; the combination stays open \
                     with bound {}",
                    combo.bound
                ));
            }
            RunStatus::Optimal => {
                combo.closed = true;
                self.note(format!(
                    "{label}: solved in {:.2} s, {}",
                    res.seconds,
                    if improved {
                        format!("new best {}", self.best_makespan)
                    } else {
                        "nothing better than the incumbent".to_string()
                    }
                ));
            }
            RunStatus::Infeasible => {
                combo.closed = true;
                self.note(format!(
                    "{label}: no schedule with makespan <= {} ({:.2} s)",
                    time(h),
                    res.seconds
                ));
            }
            RunStatus::Limit => {
                if let Some(d) = dual {
                    // Schedules beyond the horizon are outside the model.
                    let d = time(d.min(h + 1));
                    combo.bound = combo.bound.max(d);
                }
                self.note(format!(
                    "{label}: stopped at the time limit after {:.2} s; bound {}{}",
                    res.seconds,
                    combo.bound,
                    if improved {
                        format!(", new best {}", self.best_makespan)
                    } else {
                        String::new()
                    }
                ));
            }
            RunStatus::Error(code) => {
                self.note(format!(
                    "{label}: HiGHS ended with model status {code}: nothing concluded"
                ));
            }
        }
        if self.best.is_some() && combo.bound >= self.best_makespan {
            combo.closed = true;
        }
    }

    fn attempt(&mut self, rank: usize, combo: &mut Combo, net: &Net, budget: f64) {
        let s = net.scale;
        let s128 = u128::from(s);
        // Net::new keeps scaled sums within MAX_SCALED_SUM: these fit i64.
        let cap = net.p.iter().sum::<i64>() + net.n_points as i64;
        let lb_scaled = combo.bound.div_ceil(s128).min(cap as u128 + 1) as i64;
        let label = format!("combination {} (bound {})", rank + 1, combo.bound);
        let own = self.best.as_ref().is_some_and(|b| b.choice == combo.choice);
        if self.best.is_some() && combo.bound >= self.best_makespan {
            combo.closed = true;
            return;
        }
        let (h, start) = self.horizon(net, cap, own);
        let time = |x: i64| x.max(0) as u128 * s128;
        let Some(lb_scaled) = self.tighten_by_windows(&label, combo, net, h, lb_scaled) else {
            return;
        };
        let label = format!("combination {} (bound {})", rank + 1, combo.bound);
        let Some(ctx) = Ctx::new(net, h, lb_scaled) else {
            self.note(format!("{label}: no schedule within horizon {}", time(h)));
            combo.closed = true;
            return;
        };
        let form = self.formulation(&ctx, net, &label, h);
        let names = self.mopts.export_dir.is_some();
        let built: Result<Box<dyn Formulated + '_>, disjunctive::NoModel> = match form {
            Formulation::TimeIndexed => Ok(Box::new(TimeIndexed::build(&ctx, names))),
            _ => Disjunctive::build(&ctx, names, &self.deadline)
                .map(|d| Box::new(d) as Box<dyn Formulated + '_>),
        };
        let model = match built {
            Ok(model) => model,
            Err(disjunctive::NoModel::NoSchedule) => {
                self.note(format!(
                    "{label}: two nodes can be ordered neither way within the horizon"
                ));
                combo.closed = true;
                return;
            }
            Err(disjunctive::NoModel::Deadline) => {
                self.note(format!(
                    "{label}: the deadline came while the disjunctive model was built; abandoned"
                ));
                self.abandoned = true;
                return;
            }
        };
        let form_name = if form == Formulation::TimeIndexed {
            "time-indexed"
        } else {
            "disjunctive"
        };
        let mp = model.milp();
        if mp.infeasible {
            self.note(format!(
                "{label}: no schedule within horizon {} (a constraint without free variables fails)",
                time(h)
            ));
            combo.closed = true;
            return;
        }
        self.note(format!(
            "{label}: {form_name} model, {} columns ({} integer), {} rows, {} nonzeros, \
             horizon {} (time unit {s})",
            mp.n_cols(),
            mp.n_integer(),
            mp.n_rows(),
            mp.n_nonzeros(),
            time(h)
        ));
        if let Some(dir) = self.mopts.export_dir.clone() {
            self.export(&dir, rank, form_name, mp);
        }
        let x0 = start.as_ref().map(|st| model.start(st));
        if let Some(x) = &x0 {
            let viol = mp.violation(x);
            if viol > 1e-6 {
                log::debug!(
                    "{label}: the MIP start violates the model by {viol} (flows are completed by HiGHS)"
                );
            }
        }
        let params = Params {
            // A small margin: HiGHS checks its clock between LP iterations.
            time_limit: (budget.min(self.deadline.remaining().as_secs_f64()) - 0.1).max(0.0),
            threads: self.opts.threads,
            seed: self.opts.seed,
            abs_gap: 0.99,
            cancel: self.deadline.cancel.clone(),
        };
        // Abandoned at the deadline at the latest: a step that does not
        // look at the clock must not take the command past its limit.
        let res = match highs::run_watched(mp, x0, &params, self.deadline.end) {
            Ok(Some(r)) => r,
            Ok(None) => {
                self.abandoned = true;
                if self.deadline.cancelled() {
                    self.note(format!("{label}: stopped, another engine finished first"));
                } else if self.deadline.expired() {
                    self.note(format!(
                        "{label}: HiGHS was still running at the deadline (in a step that does \
                         not check the clock) and was abandoned"
                    ));
                } else {
                    self.note(format!(
                        "{label}: HiGHS overran its time limit by more than {} s (a step that \
                         does not check the clock) and was abandoned; no further MILP runs",
                        highs::GRACE
                    ));
                }
                return;
            }
            Err(e) => {
                self.note(format!("{label}: HiGHS failed: {e}"));
                return;
            }
        };
        let mut improved = false;
        // Whether HiGHS's best solution became a legal schedule.
        let mut legal = true;
        if let Some(x) = &res.values {
            match model.decode(x).and_then(|st| to_schedule(net, &st)) {
                Ok(sched) => {
                    match self.offer(sched, From::Milp, &format!("MILP ({form_name}) on {label}")) {
                        Ok(b) => improved = b,
                        Err(()) => legal = false,
                    }
                }
                Err(e) => {
                    legal = false;
                    self.bug(format!("{label}: MILP decoding failed: {e}"));
                }
            }
        }
        self.conclude(&label, combo, &res, Offered { legal, improved }, (h, s));
    }

    fn export(&mut self, dir: &Path, rank: usize, form: &str, mp: &highs::Milp) {
        if let Err(e) = std::fs::create_dir_all(dir) {
            self.note_as(
                NoteKind::WriteFailed,
                format!("cannot create {}: {e}", dir.display()),
            );
            return;
        }
        let stem = Path::new(&self.inst.name)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .filter(|s| !s.is_empty() && s != "-")
            .unwrap_or_else(|| "model".into());
        for ext in ["lp", "mps"] {
            let p = dir.join(format!("{stem}-c{}-{form}.{ext}", rank + 1));
            match highs::write_model(mp, &p) {
                Ok(()) => {
                    self.exported += 1;
                    self.note(format!("model written to {}", p.display()))
                }
                // The message names the file.
                Err(e) => self.note_as(NoteKind::WriteFailed, e),
            }
        }
    }

    /// The result: status and bound from the combinations' states.
    fn finish(mut self, mut combos: Vec<Combo>) -> SolveResult {
        if let Some(dir) = &self.mopts.export_dir
            && self.exported == 0
        {
            let msg = format!(
                "--export-model {}: no MILP model was built, nothing written",
                dir.display()
            );
            self.note(msg);
        }
        // Bounds are u64 in results: saturating down keeps a bound a bound.
        let sat64 = |b: u128| u64::try_from(b).unwrap_or(u64::MAX);
        let global = self.bounds.best.value;
        let (global, global_source) = if self.floor > global {
            (self.floor, self.floor_source.clone())
        } else {
            (global, self.bounds.best.source.clone())
        };
        if self.best.is_some() {
            for c in combos.iter_mut() {
                c.closed |= c.bound >= self.best_makespan;
            }
        }
        let all_closed = !combos.is_empty() && combos.iter().all(|c| c.closed);
        let open_min = combos.iter().filter(|c| !c.closed).map(|c| c.bound).min();
        let (bound, source) = if combos.is_empty() {
            (u128::from(global), global_source.clone())
        } else if all_closed {
            (
                self.best_makespan,
                format!(
                    "MILP (HiGHS): all {} tiling combination(s) closed",
                    combos.len()
                ),
            )
        } else {
            let m = open_min.unwrap_or(0);
            if m > u128::from(global) {
                (
                    m,
                    format!(
                        "MILP (HiGHS): least bound over {} open tiling combination(s)",
                        combos.iter().filter(|c| !c.closed).count()
                    ),
                )
            } else {
                (u128::from(global), global_source.clone())
            }
        };
        let notes = std::mem::take(&mut self.notes);
        let bugs = std::mem::take(&mut self.bugs);
        let stepped = self.stepped.take();
        let mut r = match self.best.take() {
            Some(s) => {
                let bound = sat64(bound.min(self.best_makespan));
                match SolveResult::found(self.inst, s, bound, &source, ENGINE) {
                    Ok(r) => r,
                    Err(e) => {
                        let mut r = SolveResult::without_schedule(
                            Status::Unknown,
                            global,
                            &global_source,
                            ENGINE,
                        );
                        r.notes.extend(notes);
                        record_bugs(&mut r, bugs);
                        r.internal(e.to_string());
                        return r;
                    }
                }
            }
            None => {
                if all_closed {
                    let mut r =
                        SolveResult::without_schedule(Status::Infeasible, 0, "none", ENGINE);
                    r.note(format!(
                        "infeasible: none of the {} tiling combination(s) has a legal schedule \
                         within a horizon every legal schedule meets (proved by window \
                         propagation or HiGHS; the memory-release rule of problem.md §4.4 deadlocks \
                         them)",
                        combos.len()
                    ));
                    r.notes.extend(notes);
                    record_bugs(&mut r, bugs);
                    return r;
                }
                SolveResult::without_schedule(Status::Unknown, sat64(bound), &source, ENGINE)
            }
        };
        r.notes.extend(notes);
        record_bugs(&mut r, bugs);
        r.stepped_aside = stepped;
        if r.schedule.is_some() {
            let how = std::mem::take(&mut self.best_how);
            r.note(format!("best schedule: {how}"));
        }
        r
    }
}
