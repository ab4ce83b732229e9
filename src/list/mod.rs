//! The fast engine: memory-aware list scheduling with tiling selection.
//!
//! For a tiling choice, passes of the schedule generation scheme (`sgs`) run with
//! several priority rules, then randomised sampling and forward-backward
//! improvement until the time limit (`search`); where memory can bind, a
//! search over op orders decoded by the serial scheme with insertion
//! (`insertion`) comes before the sampling. Where memory can bind, a
//! memory-frugal serial schedule comes first and guards every later pass, so
//! passes cannot deadlock (`sgs::guide`). When neither frugal order fits memory
//! even serially, for both starting tiling choices, a repair walk (`repair`)
//! changes the tilings of the ops that held memory until one choice can be
//! scheduled; as the last ways to a schedule, a searched serial order, and
//! where the instance has several independent graphs, each graph scheduled
//! alone and the graphs packed in time (`in_turn`). Tiling choices
//! are improved by local search with the scheme as evaluator (single moves, then
//! pairs; each choice evaluated once). Every schedule returned has passed the
//! validator (`SolveResult::found`).

pub mod backward;
pub mod engine;
pub mod frugal;
pub mod in_turn;
pub mod insertion;
mod joins;
pub mod justify;
pub mod policy;
pub mod priority;
mod profile;
pub mod repair;
pub mod search;
mod serial_memory;
pub mod serial_search;
pub mod sgs;
pub mod tiling;
pub mod tiling_search;

use std::time::Instant;

use crate::bounds::Bounds;
use crate::graph::NodeGraph;
use crate::instance::Instance;
use crate::solve::{Note, NoteKind, Progress, SolveOptions, SolveResult, Status};
use crate::stop::Deadline;

use policy::POLICY;
use priority::Rng;
pub use search::Searcher;
pub use tiling::{Tilings, flexible_ops, initial_choice, lean_choice};

/// A schedule found for one tiling choice, with how it was found.
#[derive(Clone, Debug)]
pub struct Found {
    pub schedule: crate::schedule::Schedule,
    /// The makespan, saturated at u64::MAX (for comparisons; a makespan beyond
    /// u64 is exact in the schedule itself).
    pub makespan: u64,
    pub how: String,
    /// The insertion list whose pass gave this schedule, where
    /// forward-backward under the hold rule kept it: the kicks' base
    /// (`Searcher::justify_kicked`: a kick moves a few nodes of it, so that
    /// the rest keeps the order, ties included, that gave the schedule).
    pub list: Option<Vec<u32>>,
}

impl Found {
    /// Offers this schedule of `inst` to the solve's events as the list
    /// engine's (`Progress::offer`: validated, where anyone listens).
    pub(crate) fn offer(&self, inst: &Instance, progress: &Progress) {
        let ms = u128::from(self.makespan);
        progress.offer(inst, &self.schedule, ms, ENGINE, || self.how.clone());
    }
}

/// The list engine's own knobs.
#[derive(Clone, Debug, Default)]
pub struct ListOptions {
    /// Library tilings not to choose (an exact engine proved them never
    /// schedulable), as a mask over `Library::tilings`; `None`: every usable one.
    pub excluded: Option<std::sync::Arc<Vec<bool>>>,
    /// Stop early once this many sampling passes in a row brought no better
    /// makespan (tiling moves: this many, and at least as many as came before
    /// them). `None`: use the whole time limit. The incumbent step of the
    /// exact engines sets it: a few seconds of stalled sampling are better
    /// spent on proofs.
    pub patience: Option<usize>,
}

/// Patience of the incumbent step of the exact engines and the portfolio
/// (`Policy::incumbent_patience`).
pub const INCUMBENT_PATIENCE: usize = POLICY.incumbent_patience;

/// Forward-backward improvement of a given legal schedule (e.g. a SAT model,
/// whose start times are legal but rarely tight): returns a schedule with a
/// smaller makespan when one is found before `deadline`.
pub fn polish(
    inst: &Instance,
    schedule: &crate::schedule::Schedule,
    target: u64,
    deadline: &Deadline,
) -> Option<Found> {
    let g = NodeGraph::new(inst, schedule.choice.clone()).ok()?;
    let given = found_from(&g, schedule, "given")?;
    let ms = given.makespan;
    let mut s = Searcher::new(&g);
    s.best = Some(given);
    s.forward_backward(3, target, deadline);
    s.best.filter(|f| f.makespan < ms)
}

/// A given schedule as a `Found` on its graph; `None` when it does not fit the graph.
fn found_from(g: &NodeGraph, schedule: &crate::schedule::Schedule, how: &str) -> Option<Found> {
    if schedule.start.len() != g.n_nodes() || schedule.choice != g.choice {
        return None;
    }
    Some(Found {
        schedule: schedule.clone(),
        makespan: u64::try_from(schedule.makespan(g)).unwrap_or(u64::MAX),
        how: how.into(),
        list: None,
    })
}

/// Where a pass ran out of memory, in the input's ids.
fn stuck_note(inst: &Instance, d: &sgs::Deadlock) -> String {
    let ids: Vec<String> = d
        .holding_ops
        .iter()
        .take(10)
        .map(|&o| inst.graph.ops[o as usize].id.to_string())
        .collect();
    let more = if d.holding_ops.len() > 10 {
        format!(" and {} more", d.holding_ops.len() - 10)
    } else {
        String::new()
    };
    let what = match d.blocked {
        Some((op, m)) => format!(
            "even one node at a time, memory type {} ran out when op {} was next",
            inst.platform.mems[m as usize].id, inst.graph.ops[op as usize].id
        ),
        None => "every pass deadlocked on memory".to_string(),
    };
    format!(
        "{what} (at t={}, after {} starts; ops holding memory: {}{more})",
        d.time,
        d.started,
        ids.join(", ")
    )
}

/// List scheduling alone, from the combinatorial bounds (the runner,
/// `pipeline::solve`, proves more bounds first).
pub fn solve(inst: &Instance, opts: &SolveOptions) -> SolveResult {
    let bounds = crate::bounds::combinatorial::lower_bounds(inst);
    solve_with_bounds(inst, opts, &ListOptions::default(), &bounds)
}

/// One pass of `rule` on the shortest-path tilings (the memory-lean ones when
/// those cannot be scheduled), in the first mode that succeeds: parallel,
/// memory-reserving, op windows, then guarded by the memory-frugal serial
/// order. No search: a baseline greedy to compare heuristics with.
pub fn greedy(
    inst: &Instance,
    deadline: &Deadline,
    bounds: &Bounds,
    rule: priority::Rule,
) -> SolveResult {
    let t0 = Instant::now();
    let engine = format!("greedy({})", rule.name());
    let lb = bounds.best.value;
    let bad = inst.ops_without_usable_tiling();
    if !bad.is_empty() {
        let mut r = SolveResult::without_schedule(Status::Infeasible, 0, "none", &engine);
        r.note_as(
            NoteKind::NoTilingForOp {
                op: inst.graph.ops[bad[0] as usize].id,
            },
            format!("infeasible: {}", inst.why_no_usable_tiling(bad[0])),
        );
        return r;
    }
    let mut last = None;
    for lean in [false, true] {
        // A node graph and a pass per choice: none once the time is up
        // (a node graph alone takes about a second at 10^7 nodes).
        if deadline.expired() {
            break;
        }
        let c = if lean {
            lean_choice(&Tilings::all(inst))
        } else {
            initial_choice(&Tilings::all(inst))
        };
        let Ok(g) = NodeGraph::new(inst, c) else {
            continue;
        };
        let mut s = Searcher::new(&g);
        s.single(rule, deadline);
        if let Some(f) = s.best {
            let mut r = match SolveResult::found(inst, f.schedule, lb, &bounds.best.source, &engine)
            {
                Ok(r) => r,
                Err(e) => {
                    let mut r = SolveResult::without_schedule(
                        Status::Unknown,
                        lb,
                        &bounds.best.source,
                        &engine,
                    );
                    r.internal(e.to_string());
                    return r;
                }
            };
            r.note(f.how);
            r.wall_seconds = t0.elapsed().as_secs_f64();
            return r;
        }
        last = s.last_deadlock;
    }
    let mut r = SolveResult::without_schedule(Status::Unknown, lb, &bounds.best.source, &engine);
    if let Some(d) = &last {
        r.note(format!("no schedule: {}", stuck_note(inst, d)));
    }
    r.wall_seconds = t0.elapsed().as_secs_f64();
    r
}

/// The engine with precomputed bounds (the exact engines call this for their
/// incumbent): a first schedule (both starting tiling choices, a warm start,
/// else the tiling repair), then the tiling search, then sampling and
/// forward-backward on the final choice.
pub fn solve_with_bounds(
    inst: &Instance,
    opts: &SolveOptions,
    lopts: &ListOptions,
    bounds: &Bounds,
) -> SolveResult {
    let bad = inst.ops_without_usable_tiling();
    if !bad.is_empty() {
        let mut r = SolveResult::without_schedule(Status::Infeasible, 0, "none", ENGINE);
        r.note_as(
            NoteKind::NoTilingForOp {
                op: inst.graph.ops[bad[0] as usize].id,
            },
            format!("infeasible: {}", inst.why_no_usable_tiling(bad[0])),
        );
        return r;
    }
    let tl = Tilings::without(inst, lopts.excluded.as_deref().map(|x| &x[..]));
    if let Some(&op) = tl.ops_without().first() {
        // Only a caller's mask can empty an op: no proof here.
        let mut r = SolveResult::without_schedule(Status::Unknown, 0, "none", ENGINE);
        r.note(format!(
            "op {}: every tiling excluded by the caller",
            inst.graph.ops[op as usize].id
        ));
        return r;
    }
    let mut run = Run {
        inst,
        tl,
        deadline: opts.deadline(),
        lb: bounds.best.value,
        rng: Rng::new(opts.seed ^ 0x7431_6d69_6e00_0001),
        progress: Progress::new(opts.progress, opts.events.clone()),
        notes: Vec::new(),
        choice: initial_choice(&tl),
        best: None,
        pass_seconds: 0.0,
        free_stats: Default::default(),
        kept_guide: None,
    };
    run.first_schedule(false);
    run.lean_alternative();
    if let Some(st) = &opts.start {
        run.warm_start(st);
    }
    let flexible = flexible_ops(&tl);
    if run.best.is_none() && !flexible.is_empty() && !run.deadline.expired() {
        run.repair(&flexible);
    }
    if run.best.is_none() && !run.deadline.expired() {
        run.last_ways(lopts);
    }
    if run.best.is_none() {
        let mut r =
            SolveResult::without_schedule(Status::Unknown, run.lb, &bounds.best.source, ENGINE);
        r.notes.extend(run.notes);
        if run.deadline.expired() {
            // Some ways to a first schedule (the other tiling choice, the
            // fitted and searched orders, the repair) may not have begun.
            r.note(
                "no legal schedule found by list scheduling before the time limit, which ended \
                 it before every way to a first schedule was tried: a longer limit may find one \
                 (not a proof of infeasibility)",
            );
        } else {
            r.note("no legal schedule found by list scheduling (not a proof of infeasibility)");
        }
        return r;
    }
    log::debug!("first phase done in {:.2} s", run.deadline.elapsed());
    run.offer_best();
    let patience = lopts.patience.unwrap_or(usize::MAX);
    run.tiling_search(&flexible, patience);
    run.offer_best();
    log::debug!("tiling search done at {:.2} s", run.deadline.elapsed());
    run.warm_moves(&flexible, patience);
    run.offer_best();
    run.sampling(patience);
    log::debug!(
        "search done, peak RSS {:.0} MiB",
        crate::solve::peak_rss_mib().unwrap_or(0.0)
    );
    run.finish(&bounds.best.source)
}

/// The engine's name in results.
const ENGINE: &str = "list";

/// The list engine's state from one phase to the next.
struct Run<'a> {
    inst: &'a Instance,
    /// The tilings it may choose.
    tl: Tilings<'a>,
    deadline: Deadline,
    lb: u64,
    rng: Rng,
    progress: Progress,
    notes: Vec<Note>,
    /// The tiling choice of `best` (or the next to try before there is one).
    choice: Vec<u32>,
    best: Option<Found>,
    pass_seconds: f64,
    free_stats: search::FreeStats,
    /// The first phase's guide with its choice: sampling reuses it when the
    /// tiling search keeps that choice (a serial pass saved, 7 s at 10^7).
    kept_guide: Option<(Vec<u32>, (sgs::Guide, String))>,
}

impl Run<'_> {
    /// The shortest-path tilings, else the memory-lean ones (a walk over the
    /// whole library, so only when the first found nothing): the scheme's
    /// deterministic passes on a share of the time, and a first schedule in
    /// any case.
    ///
    /// With `searched`, a guide may also come from a searched serial order
    /// (`Searcher::search_serial_orders`): the engine's last way to a
    /// schedule, after the tiling repair, where every greedy order traps
    /// memory. (Not first: a schedule it finds for the shortest-path tilings
    /// is a poor start where the memory-lean tilings' greedy guide leads the
    /// tiling search further; results/policy.md.)
    fn first_schedule(&mut self, searched: bool) {
        let inst = self.inst;
        for label in ["shortest-path tilings", "memory-lean tilings"] {
            if self.deadline.expired() {
                break;
            }
            let c = if label.starts_with("shortest") {
                self.choice.clone()
            } else {
                lean_choice(&self.tl)
            };
            let t = Instant::now();
            let g = match NodeGraph::new(inst, c.clone()) {
                Ok(g) => g,
                Err(e) => {
                    self.notes.push(Note::info(e));
                    continue;
                }
            };
            let mut s = Searcher::new(&g);
            if searched {
                s.search_serial_orders();
            }
            // A share of the time: the tiling search and sampling gain more
            // on large graphs than the last rules; but a first schedule in any
            // case, and a first parallel one if a guarded pass can finish.
            s.first_guarded_pass_until(&self.deadline);
            let share = self.deadline.share(POLICY.first_share(g.n_nodes()));
            s.deterministic(self.lb, &share);
            s.ensure_schedule(&self.deadline);
            self.free_stats = s.free_stats();
            self.pass_seconds = t.elapsed().as_secs_f64() / s.passes.max(1) as f64;
            if s.deadlocks > 0 {
                self.notes.push(Note::info(format!(
                    "{label}: {} unguarded attempts deadlocked on memory in {} passes (the pass then went on in a narrower or guarded mode)",
                    s.deadlocks, s.passes
                )));
            }
            if let Some(f) = s.best.take() {
                self.kept_guide = s.take_guide().map(|gd| (c.clone(), gd));
                self.choice = c;
                self.notes.push(Note::info(format!(
                    "{label}: makespan {} by {}",
                    f.makespan, f.how
                )));
                self.best = Some(f);
                return;
            }
            if let Some(d) = &s.last_deadlock {
                self.notes.push(Note::info(format!(
                    "{label}: no schedule found; {}",
                    stuck_note(inst, d)
                )));
            }
        }
    }

    /// The last ways to a first schedule: the searched serial order
    /// (`first_schedule(true)`); where the instance has several
    /// independent graphs, it on half the time left, then each graph
    /// scheduled alone and the graphs packed in time (`in_turn`): where
    /// every order over the whole traps memory, each graph alone may still
    /// fit.
    fn last_ways(&mut self, lopts: &ListOptions) {
        let graphs = self.inst.independent_graphs();
        if graphs.len() < 2 {
            self.first_schedule(true);
            return;
        }
        let half = self.deadline.share(0.5);
        let whole = std::mem::replace(&mut self.deadline, half);
        self.first_schedule(true);
        self.deadline = whole;
        if self.best.is_some() || self.deadline.expired() {
            return;
        }
        let t = Instant::now();
        let seed = self.rng.next_u64();
        match in_turn::schedule(self.inst, &graphs, lopts, seed, &self.deadline) {
            Ok(f) => {
                self.notes.push(Note::info(format!(
                    "makespan {} by {} ({:.2} s)",
                    f.makespan,
                    f.how,
                    t.elapsed().as_secs_f64()
                )));
                self.choice = f.schedule.choice.clone();
                self.best = Some(f);
            }
            Err(why) => self.notes.push(Note::info(format!(
                "the independent graphs packed in time: {why}"
            ))),
        }
    }

    /// Whether a step that builds the node graph and runs passes may begin:
    /// at least one first-phase pass's time left. The node graph, keys and
    /// guide cost a pass's worth of work before a pass looks at the clock,
    /// so a step begun with less overruns the deadline by that much
    /// (results/archive/lanes-large-ab-step-deadline.md); below that no pass
    /// of the step can end anyway.
    fn time_for_a_pass(&self) -> bool {
        !self.deadline.expired() && self.deadline.remaining().as_secs_f64() >= self.pass_seconds
    }

    /// Offers the best schedule to the solve's events (`Progress::offer`).
    fn offer_best(&self) {
        if let Some(b) = &self.best {
            b.offer(self.inst, &self.progress);
        }
    }

    /// Where memory is the bottleneck of the first phase's choice
    /// (`tiling::memory_is_bottleneck`), the memory-lean tilings get a first
    /// phase of their own (the same share of what is left) and the better
    /// schedule's choice is kept: lean tilings (less memory, longer nodes)
    /// pack where the shortest ones leave memory fragmented, and the tiling
    /// search's single moves do not get there (on memory-packed instances
    /// 1.98 x the optimum becomes 1.18 x; results/policy.md).
    fn lean_alternative(&mut self) {
        let inst = self.inst;
        let Some(before) = self.best.as_ref().map(|b| b.makespan) else {
            return;
        };
        if !self.time_for_a_pass() || before <= self.lb {
            return;
        }
        let bottleneck = NodeGraph::new(inst, self.choice.clone())
            .is_ok_and(|g| tiling::memory_is_bottleneck(&g));
        let lean = lean_choice(&self.tl);
        if !bottleneck || lean == self.choice {
            return;
        }
        let Ok(g) = NodeGraph::new(inst, lean.clone()) else {
            return;
        };
        let mut s = Searcher::with_stats(&g, self.free_stats);
        let share = self.deadline.share(POLICY.first_share(g.n_nodes()));
        s.deterministic(self.lb, &share);
        let Some(f) = s.best.take() else { return };
        self.notes.push(Note::info(format!(
            "memory-lean tilings (memory is the bottleneck): makespan {} by {}",
            f.makespan, f.how
        )));
        if f.makespan < before {
            self.kept_guide = s.take_guide().map(|gd| (lean.clone(), gd));
            self.choice = lean;
            self.best = Some(f);
        }
    }

    /// A warm start (checked by the caller) replaces the scheme's schedule
    /// when it is at least as good; the tiling search and sampling go on from it.
    fn warm_start(&mut self, st: &crate::schedule::Schedule) {
        let given = NodeGraph::new(self.inst, st.choice.clone())
            .ok()
            .and_then(|g| found_from(&g, st, "warm start"));
        match given {
            Some(f) if self.best.as_ref().is_none_or(|b| f.makespan <= b.makespan) => {
                self.notes
                    .push(Note::info(format!("warm start: makespan {}", f.makespan)));
                self.choice = st.choice.clone();
                self.best = Some(f);
            }
            Some(f) => self.notes.push(Note::info(format!(
                "warm start: makespan {}, list scheduling found better",
                f.makespan
            ))),
            None => self.notes.push(Note::info(
                "warm start ignored: it does not fit the instance",
            )),
        }
    }

    /// No schedule from either choice: with tight memory the tilings are to
    /// blame more often than the order, so walk the choices (half the time).
    fn repair(&mut self, flexible: &[u32]) {
        let t = Instant::now();
        let rep = repair::feasible_choice(
            &self.tl,
            lean_choice(&self.tl),
            flexible,
            &self.deadline.share(POLICY.repair_share),
            &mut self.rng,
            &self.progress,
        );
        let (found, text) = match rep.found {
            Some((c, f)) => {
                let text = format!(
                    "tiling repair: makespan {} after {} tries ({} restarts, {:.2} s), by {}",
                    f.makespan,
                    rep.tries,
                    rep.restarts,
                    t.elapsed().as_secs_f64(),
                    f.how
                );
                self.choice = c;
                self.best = Some(f);
                (true, text)
            }
            None => (
                false,
                format!(
                    "tiling repair: no schedulable choice in {} tries ({} restarts, {:.2} s; \
                     a longer --time-limit gives it more tries)",
                    rep.tries,
                    rep.restarts,
                    t.elapsed().as_secs_f64()
                ),
            ),
        };
        self.notes.push(Note {
            kind: NoteKind::TilingRepair { found },
            text,
        });
    }

    /// Tiling local search, when there is a choice and time for it.
    fn tiling_search(&mut self, flexible: &[u32], patience: usize) {
        if flexible.is_empty() || self.best.as_ref().is_none_or(|b| b.makespan <= self.lb) {
            return;
        }
        let insertion = self.insertion_competitive();
        let Some(best) = self.best.take() else { return };
        let out = tiling_search::improve(
            &self.tl,
            flexible,
            (std::mem::take(&mut self.choice), best),
            self.lb,
            insertion,
            self.free_stats,
            patience,
            self.pass_seconds,
            &self.deadline.share(POLICY.tiling_search_share),
            &mut self.rng,
            &self.progress,
        );
        let (choice, best) = out.best;
        self.choice = choice;
        self.best = Some(best);
        self.notes.extend(out.notes);
    }

    /// Tiling moves judged from the best schedule (`tiling_search::warm_moves`)
    /// on `Policy::warm_moves_share` of the time left, where the engine has
    /// the time to itself (`patience` unbounded: not the exact engines'
    /// incumbent step, which keeps its seconds for proofs), on graphs up to
    /// `Policy::costly_free_nodes` nodes (a move builds two node graphs
    /// before it looks at the clock).
    fn warm_moves(&mut self, flexible: &[u32], patience: usize) {
        if patience != usize::MAX
            || flexible.is_empty()
            || self.best.as_ref().is_none_or(|b| {
                b.makespan <= self.lb || b.schedule.start.len() > POLICY.costly_free_nodes
            })
            || !self.time_for_a_pass()
        {
            return;
        }
        let Some(best) = self.best.take() else { return };
        let out = tiling_search::warm_moves(
            &self.tl,
            flexible,
            (std::mem::take(&mut self.choice), best),
            self.lb,
            self.free_stats,
            &self.deadline.share(POLICY.warm_moves_share),
            &mut self.rng,
            &self.progress,
        );
        let (choice, best) = out.best;
        self.choice = choice;
        self.best = Some(best);
        self.notes.extend(out.notes);
    }

    /// Whether the insertion search's first lists (`Searcher::insertion_firsts`)
    /// end within 5 % of the best schedule on its choice, the one they
    /// replace when shorter: then the tiling search also evaluates choices
    /// by them. Where they end further above (op-contiguous lists that
    /// interleave ops less well than the parallel scheme) they would only
    /// slow its evaluations down; above `Policy::costly_free_nodes` nodes
    /// the first phase has run them already, and a tiling move is rarely
    /// evaluated in time.
    fn insertion_competitive(&mut self) -> bool {
        let Some(best) = &self.best else { return false };
        let Ok(g) = NodeGraph::new(self.inst, self.choice.clone()) else {
            return false;
        };
        if g.n_nodes() > POLICY.costly_free_nodes {
            return false;
        }
        let mut s = Searcher::with_stats(&g, self.free_stats);
        s.best = Some(best.clone());
        let Some(ms) = s.insertion_firsts(self.lb, &self.deadline) else {
            return false;
        };
        let competitive = search::near_best(ms, best.makespan);
        log::debug!(
            "insertion passes {ms} against {}: tiling moves evaluated by them too: {competitive}",
            best.makespan
        );
        if let Some(f) = s.best
            && self.best.as_ref().is_some_and(|b| f.makespan < b.makespan)
        {
            self.best = Some(f);
        }
        competitive
    }

    /// Sampling and forward-backward on the final choice.
    fn sampling(&mut self, patience: usize) {
        let Some(best) = &self.best else { return };
        if best.makespan <= self.lb || !self.time_for_a_pass() {
            return;
        }
        let g = NodeGraph::new(self.inst, self.choice.clone()).expect("built before");
        let mut s = Searcher::with_stats(&g, self.free_stats);
        if let Some((c, gd)) = self.kept_guide.take()
            && c == self.choice
        {
            s.set_guide(gd);
        }
        s.best = Some(best.clone());
        s.forward_backward(3, self.lb, &self.deadline);
        s.sample(
            &mut self.rng,
            self.lb,
            &self.deadline,
            patience,
            &self.progress,
        );
        self.notes
            .push(Note::info(format!("sampling: {} passes", s.passes)));
        if let Some(f) = s.best
            && self.best.as_ref().is_some_and(|b| f.makespan < b.makespan)
        {
            self.best = Some(f);
        }
    }

    /// The result: the best schedule through the validator (an engine bug
    /// yields an internal error, never the schedule), with the notes.
    fn finish(self, bound_source: &str) -> SolveResult {
        let best = self.best.expect("finish is called with a schedule");
        let how = best.how;
        let mut r =
            match SolveResult::found(self.inst, best.schedule, self.lb, bound_source, ENGINE) {
                Ok(r) => r,
                Err(e) => {
                    log::error!("{e}");
                    let mut r = SolveResult::without_schedule(
                        Status::Unknown,
                        self.lb,
                        bound_source,
                        ENGINE,
                    );
                    r.internal(e.to_string());
                    return r;
                }
            };
        r.notes.extend(self.notes);
        r.note(format!("best schedule: {how}"));
        r
    }
}
