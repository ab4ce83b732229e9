//! The fast engine: memory-aware list scheduling with tiling selection.
//!
//! For a tiling choice, passes of the schedule generation scheme (`sgs`) run with
//! several priority rules, then randomised sampling and forward-backward
//! improvement until the time limit; a pass that deadlocks on memory is retried
//! in narrower modes (op window, then serial). When both starting tiling
//! choices deadlock on every rung, a repair walk (`repair`) changes the tilings
//! of the ops that held memory until one choice can be scheduled. Tiling choices
//! are improved by local search with the scheme as evaluator (single moves, then
//! pairs; each choice evaluated once). Every schedule returned has passed the
//! validator (`SolveResult::found`).

pub mod backward;
pub mod frugal;
pub mod priority;
pub mod repair;
pub mod sgs;
pub mod tiling;

use std::time::Instant;

use crate::bounds::{Bounds, lower_bounds};
use crate::graph::NodeGraph;
use crate::instance::Instance;
use crate::solve::{Deadline, Progress, SolveOptions, SolveResult, Status};

use priority::{Paths, Rng, Rule, keys, perturb};
use sgs::{Deadlock, Mode, Model};
pub use tiling::{flexible_ops, initial_choice, lean_choice};

/// A schedule found for one tiling choice, with how it was found.
#[derive(Clone, Debug)]
pub struct Found {
    pub schedule: crate::schedule::Schedule,
    pub makespan: u64,
    pub how: String,
}

/// Makespan of a schedule built by the scheme (ends fit u64 by construction).
fn makespan_of(g: &NodeGraph, s: &crate::schedule::Schedule) -> u64 {
    (0..g.n_nodes())
        .map(|v| s.start[v] + g.dur[v])
        .max()
        .unwrap_or(0)
}

/// Which keys a rung uses: the pass's own, or a frugal op-after-op order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keys {
    Given,
    MemoryOrder,
    InputOrder,
}

/// The mode ladder: each rung starts fewer holders at once. The ordered rungs
/// cannot deadlock when the serial schedule in their order is legal.
const LADDER: [(Mode, Keys); 8] = [
    (Mode::Parallel, Keys::Given),
    (Mode::Window(8), Keys::Given),
    (Mode::Window(2), Keys::Given),
    (Mode::Ordered, Keys::Given),
    (Mode::Ordered, Keys::MemoryOrder),
    (Mode::Ordered, Keys::InputOrder),
    (Mode::Serial, Keys::MemoryOrder),
    (Mode::Serial, Keys::InputOrder),
];

/// The first ordered rung with the pass's own keys.
const ORDERED_RUNG: usize = 3;

fn rung_name(rung: usize) -> String {
    let (mode, keys) = LADDER[rung];
    let m = match mode {
        Mode::Parallel => "parallel".to_string(),
        Mode::Window(k) => format!("window {k}"),
        Mode::Ordered => "ordered".to_string(),
        Mode::Serial => "serial".to_string(),
    };
    match keys {
        Keys::Given => format!("{m} mode"),
        Keys::MemoryOrder => format!("{m} mode, memory-greedy op order"),
        Keys::InputOrder => format!("{m} mode, input op order"),
    }
}

/// Searches schedules for one tiling choice until `deadline` or until `target`
/// (a lower bound) is reached. `budget_passes` caps the passes (None = no cap).
pub struct Searcher<'g, 'a> {
    g: &'g NodeGraph<'a>,
    md: Model<'g, 'a>,
    paths: Paths,
    /// Frugal keys, computed when a pass first needs them.
    memory_keys: Option<Vec<u64>>,
    input_keys: Option<Vec<u64>>,
    pub best: Option<Found>,
    pub passes: usize,
    pub deadlocks: usize,
    pub last_deadlock: Option<Deadlock>,
    rung: usize,
}

impl<'g, 'a> Searcher<'g, 'a> {
    pub fn new(g: &'g NodeGraph<'a>) -> Self {
        let paths = Paths::new(g);
        Searcher {
            g,
            md: Model::new(g),
            paths,
            memory_keys: None,
            input_keys: None,
            best: None,
            passes: 0,
            deadlocks: 0,
            last_deadlock: None,
            rung: 0,
        }
    }

    /// Runs the scheme from rung `from` of the ladder down until a pass succeeds.
    fn run_ladder(
        &mut self,
        key: &[u64],
        from: usize,
    ) -> Result<(crate::schedule::Schedule, usize), Deadlock> {
        let mut last = None;
        for (i, &(mode, keys)) in LADDER.iter().enumerate().skip(from) {
            let k: &[u64] = match keys {
                Keys::Given => key,
                Keys::MemoryOrder => self.memory_keys.get_or_insert_with(|| {
                    frugal::keys_for_op_order(self.g, &frugal::memory_order(self.g))
                }),
                Keys::InputOrder => self.input_keys.get_or_insert_with(|| {
                    frugal::keys_for_op_order(self.g, &frugal::input_order(self.g))
                }),
            };
            let res = sgs::run(&self.md, k, mode);
            log::debug!(
                "{} pass done, peak RSS {:.0} MiB",
                rung_name(i),
                crate::solve::peak_rss_mib().unwrap_or(0.0)
            );
            match res {
                Ok(s) => return Ok((s, i)),
                Err(d) => {
                    log::debug!(
                        "{} pass deadlocked at t={} after {} starts",
                        rung_name(i),
                        d.time,
                        d.started
                    );
                    if d.overflow {
                        return Err(d);
                    }
                    // Frugal keys that did not help are not kept (8 bytes a node).
                    match keys {
                        Keys::MemoryOrder => self.memory_keys = None,
                        Keys::InputOrder => self.input_keys = None,
                        Keys::Given => {}
                    }
                    last = Some(d);
                }
            }
        }
        Err(last.expect("ladder is not empty"))
    }

    /// One pass (down the ladder from rung `from`); keeps the schedule if best.
    fn offer(&mut self, key: &[u64], how: &str, from: usize) -> Option<u64> {
        self.passes += 1;
        match self.run_ladder(key, from) {
            Ok((s, rung)) => {
                if rung > from {
                    self.deadlocks += 1;
                }
                self.rung = rung;
                let ms = makespan_of(self.g, &s);
                let better = self.best.as_ref().is_none_or(|b| ms < b.makespan);
                if better {
                    self.best = Some(Found {
                        schedule: s,
                        makespan: ms,
                        how: format!("pass {} ({how}, {})", self.passes, rung_name(rung)),
                    });
                }
                Some(ms)
            }
            Err(d) => {
                self.deadlocks += 1;
                self.last_deadlock = Some(d);
                None
            }
        }
    }

    /// One pass per deterministic rule, then forward-backward on the best. When
    /// the first rule finds nothing on any rung, the others are not tried: the
    /// tiling choice is the problem, not the order.
    pub fn deterministic(&mut self, target: u64, deadline: &Deadline) {
        for (i, rule) in Rule::ALL.into_iter().enumerate() {
            let k = keys(self.g, &self.paths, rule);
            let got = self.offer(&k, rule.name(), 0);
            if (i == 0 && got.is_none())
                || self.reached(target)
                || (deadline.expired() && self.best.is_some())
            {
                return;
            }
        }
        self.forward_backward(3, target, deadline);
    }

    fn reached(&self, target: u64) -> bool {
        self.best.as_ref().is_some_and(|b| b.makespan <= target)
    }

    /// Up to `rounds` forward-backward improvements of the best schedule.
    pub fn forward_backward(&mut self, rounds: usize, target: u64, deadline: &Deadline) {
        for _ in 0..rounds {
            let Some(best) = &self.best else { return };
            let before = best.makespan;
            let k = backward::backward_keys(self.g, &best.schedule.start);
            let starts = priority::keys_from_starts(&best.schedule.start, before);
            self.offer(&k, "forward-backward", 0);
            if self.reached(target) || deadline.expired() {
                return;
            }
            // The best schedule's own start order in ordered mode: legal by
            // construction (its serial version is), and often tighter.
            self.offer(&starts, "start-order compaction", ORDERED_RUNG);
            if self.reached(target) || deadline.expired() {
                return;
            }
            if self.best.as_ref().is_some_and(|b| b.makespan >= before) {
                return;
            }
        }
    }

    /// Randomised sampling around the rules, with forward-backward on
    /// improvements; stops at the deadline, at `target`, or after `patience`
    /// passes in a row without a better makespan.
    pub fn sample(
        &mut self,
        rng: &mut Rng,
        target: u64,
        deadline: &Deadline,
        patience: usize,
        progress: &Progress,
    ) {
        // Every rule's keys cost 8 bytes a node: keep two rules on huge graphs.
        let rules: &[Rule] = if self.g.n_nodes() > 2_000_000 {
            &Rule::ALL[..2]
        } else {
            &Rule::ALL
        };
        let base: Vec<Vec<u64>> = rules
            .iter()
            .map(|&r| keys(self.g, &self.paths, r))
            .collect();
        let mut done = 0;
        let mut stalled = 0;
        while !deadline.expired() && !self.reached(target) && stalled < patience {
            let r = rng.below(base.len());
            let eps = 0.05 + 0.45 * rng.unit();
            let k = perturb(&base[r], eps, rng);
            let before = self.best.as_ref().map(|b| b.makespan);
            // Mostly from the rung that worked last; now and then from the top.
            let from = if done % 4 == 0 { 0 } else { self.rung };
            self.offer(
                &k,
                &format!("random {} eps {eps:.2}", rules[r].name()),
                from,
            );
            done += 1;
            progress.tick(|| {
                let best = self.best.as_ref().map_or(0, |b| b.makespan);
                format!(
                    "list: {} passes, best {best}, bound {target}, gap {:.2}%",
                    self.passes,
                    100.0 * (best.saturating_sub(target)) as f64 / best.max(1) as f64
                )
            });
            if self.best.as_ref().map(|b| b.makespan) < before || before.is_none() {
                stalled = 0;
                self.forward_backward(3, target, deadline);
            } else {
                stalled += 1;
            }
        }
    }
}

/// Patience of the incumbent step of the exact engines and the portfolio
/// (`SolveOptions::list_patience`): small graphs stall within milliseconds;
/// large ones, or ones still improving, reach their time share.
pub const INCUMBENT_PATIENCE: usize = 200;

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

/// A given schedule as a `Found` on its graph; `None` when it does not fit the
/// graph or its makespan overflows u64 (the scheme works in u64).
fn found_from(g: &NodeGraph, schedule: &crate::schedule::Schedule, how: &str) -> Option<Found> {
    if schedule.start.len() != g.n_nodes() || schedule.choice != g.choice {
        return None;
    }
    let mut ms = 0u64;
    for v in 0..g.n_nodes() {
        ms = ms.max(schedule.start[v].checked_add(g.dur[v])?);
    }
    Some(Found {
        schedule: schedule.clone(),
        makespan: ms,
        how: how.into(),
    })
}

/// A 64-bit hash of a tiling choice (a collision only skips one evaluation).
fn fingerprint(choice: &[u32]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    choice.hash(&mut h);
    h.finish()
}

/// Evaluates one tiling choice quickly: the deterministic rules and a little
/// forward-backward. Returns the best found.
fn evaluate(inst: &Instance, choice: Vec<u32>, target: u64, deadline: &Deadline) -> Option<Found> {
    let g = NodeGraph::new(inst, choice).ok()?;
    let mut s = Searcher::new(&g);
    s.deterministic(target, deadline);
    s.best
}

/// The list-scheduling engine.
pub fn solve(inst: &Instance, opts: &SolveOptions) -> SolveResult {
    let t0 = Instant::now();
    let bounds = lower_bounds(inst);
    let mut r = solve_with_bounds(inst, opts, &bounds);
    r.wall_seconds = t0.elapsed().as_secs_f64();
    r
}

/// The engine with precomputed bounds (the exact engines call this for their incumbent).
pub fn solve_with_bounds(inst: &Instance, opts: &SolveOptions, bounds: &Bounds) -> SolveResult {
    const ENGINE: &str = "list";
    let deadline = Deadline::after(opts.time_limit);
    let lb = bounds.best.value;
    let bad = inst.ops_without_usable_tiling();
    if !bad.is_empty() {
        let mut r = SolveResult::without_schedule(Status::Infeasible, 0, "none", ENGINE);
        r.note(format!("infeasible: {}", inst.why_no_usable_tiling(bad[0])));
        return r;
    }
    let mut rng = Rng(opts.seed ^ 0x7431_6d69_6e00_0001);
    let progress = Progress::new(opts.progress);
    let mut notes: Vec<String> = Vec::new();

    // 1. Initial choice; if it cannot be scheduled, a memory-lean one.
    let mut choice = initial_choice(inst);
    let mut best: Option<Found> = None;
    let mut pass_seconds = 0.0;
    for (label, c) in [
        ("shortest-path tilings", choice.clone()),
        ("memory-lean tilings", lean_choice(inst)),
    ] {
        let t = Instant::now();
        let g = match NodeGraph::new(inst, c.clone()) {
            Ok(g) => g,
            Err(e) => {
                notes.push(e);
                continue;
            }
        };
        let mut s = Searcher::new(&g);
        s.deterministic(lb, &deadline);
        pass_seconds = t.elapsed().as_secs_f64() / s.passes.max(1) as f64;
        if s.deadlocks > 0 {
            notes.push(format!(
                "{label}: {} of {} passes deadlocked on memory and were retried in narrower modes",
                s.deadlocks, s.passes
            ));
        }
        if let Some(f) = s.best {
            choice = c;
            notes.push(format!("{label}: makespan {} by {}", f.makespan, f.how));
            best = Some(f);
            break;
        }
        if let Some(d) = &s.last_deadlock {
            let ids: Vec<String> = d
                .holding_ops
                .iter()
                .take(10)
                .map(|&o| inst.graph.ops[o as usize].id.to_string())
                .collect();
            notes.push(format!(
                "{label}: no schedule found; every mode deadlocked (at t={}, ops holding memory: {})",
                d.time,
                ids.join(", ")
            ));
        }
    }
    // A warm start (checked by the caller) replaces the scheme's schedule when
    // it is at least as good; the tiling search and sampling go on from it.
    if let Some(st) = &opts.start {
        let given = NodeGraph::new(inst, st.choice.clone())
            .ok()
            .and_then(|g| found_from(&g, st, "warm start"));
        match given {
            Some(f) if best.as_ref().is_none_or(|b| f.makespan <= b.makespan) => {
                notes.push(format!("warm start: makespan {}", f.makespan));
                choice = st.choice.clone();
                best = Some(f);
            }
            Some(f) => notes.push(format!(
                "warm start: makespan {}, list scheduling found better",
                f.makespan
            )),
            None => notes.push("warm start ignored: makespan beyond 2^64".into()),
        }
    }
    // No schedule from either choice: with tight memory the tilings are to
    // blame more often than the order, so walk the choices (half the time).
    let flexible = flexible_ops(inst);
    if best.is_none() && !flexible.is_empty() && !deadline.expired() {
        let t = Instant::now();
        let rep = repair::feasible_choice(
            inst,
            lean_choice(inst),
            &flexible,
            lb,
            &deadline.share(0.5),
            &mut rng,
            &progress,
        );
        match rep.found {
            Some((c, f)) => {
                notes.push(format!(
                    "tiling repair: makespan {} after {} tries ({} restarts, {:.2} s), by {}",
                    f.makespan,
                    rep.tries,
                    rep.restarts,
                    t.elapsed().as_secs_f64(),
                    f.how
                ));
                choice = c;
                best = Some(f);
            }
            None => notes.push(format!(
                "tiling repair: no schedulable choice in {} tries ({} restarts, {:.2} s; \
                 a longer --time-limit gives it more tries)",
                rep.tries,
                rep.restarts,
                t.elapsed().as_secs_f64()
            )),
        }
    }
    let Some(mut best) = best else {
        let mut r = SolveResult::without_schedule(Status::Unknown, lb, &bounds.best.source, ENGINE);
        for n in notes {
            r.note(n);
        }
        r.note("no legal schedule found by list scheduling (not a proof of infeasibility)");
        return r;
    };

    // 2. Tiling local search, when there is a choice and time for it.
    let patience = opts.list_patience.unwrap_or(usize::MAX);
    if !flexible.is_empty() && best.makespan > lb {
        let search = deadline.share(0.5);
        let mut moves = 0usize;
        let mut improved = 0usize;
        let mut stalled = 0usize;
        // (op, tiling) -> (moves that found no schedule at all, moves that did).
        let mut outcome: std::collections::HashMap<(u32, u32), (u32, u32)> =
            std::collections::HashMap::new();
        // Evaluation is deterministic: a choice seen before is not evaluated
        // again, and when draws keep hitting seen choices the neighbourhood is
        // exhausted (small instances: one op with two alternatives would
        // otherwise be evaluated thousands of times).
        let mut seen: std::collections::HashSet<u64> = std::collections::HashSet::new();
        seen.insert(fingerprint(&choice));
        let neighbourhood: usize = flexible
            .iter()
            .map(|&op| inst.usable_tilings(op).count() - 1)
            .sum();
        let mut repeats = 0usize;
        let mut width = 1usize;
        while !search.expired()
            && best.makespan > lb
            // Tiling moves change the graph: improvements come late, so the
            // search stops only when the later half of its moves found none.
            && stalled < patience.max(moves / 2)
            && search.remaining().as_secs_f64() > 2.0 * pass_seconds * 6.0
        {
            let mut cand = choice.clone();
            let (mut op, mut t) = (0, 0);
            for _ in 0..width {
                op = flexible[rng.below(flexible.len())];
                t = tiling::other_tiling(inst, op, choice[op as usize], &mut rng);
                cand[op as usize] = t;
            }
            if !seen.insert(fingerprint(&cand)) {
                repeats += 1;
                // Every single move seen: pairs of moves; every pair seen: done.
                if repeats > 4 * neighbourhood.saturating_pow(width as u32) + 20 {
                    if width == 2 {
                        break;
                    }
                    width = 2;
                    repeats = 0;
                }
                continue;
            }
            repeats = 0;
            moves += 1;
            progress.tick(|| {
                format!(
                    "list: tiling search, {moves} moves, best {}, bound {lb}",
                    best.makespan
                )
            });
            let found = evaluate(inst, cand.clone(), lb, &search);
            // Outcomes are attributed to a tiling only for single moves.
            if width == 1 {
                let o = outcome.entry((op, t)).or_default();
                if found.is_some() {
                    o.1 += 1;
                } else if !search.expired() {
                    o.0 += 1;
                }
            }
            if !matches!(&found, Some(f) if f.makespan < best.makespan) {
                stalled += 1;
            }
            if let Some(f) = found
                && f.makespan <= best.makespan
            {
                if f.makespan < best.makespan {
                    improved += 1;
                    stalled = 0;
                    width = 1;
                }
                choice = cand;
                best = f;
                best.how = format!("tiling move {moves}, {}", best.how);
            }
        }
        notes.push(format!(
            "tiling search: {moves} moves over {} flexible ops, {improved} improvements",
            flexible.len()
        ));
        // Tilings that never led to a schedule: report them (the exact engines
        // can prove whether they are infeasible).
        let mut never: Vec<(u32, u32, u32)> = outcome
            .iter()
            .filter(|&(_, &(fail, ok))| fail > 0 && ok == 0)
            .map(|(&(op, t), &(fail, _))| (op, t, fail))
            .collect();
        never.sort_unstable();
        for &(op, t, fail) in never.iter().take(10) {
            notes.push(format!(
                "op {} tiling {}: no legal schedule found with it ({fail} tries; memory)",
                inst.graph.ops[op as usize].id, inst.library.tilings[t as usize].id
            ));
        }
        if never.len() > 10 {
            notes.push(format!("... and {} more such tilings", never.len() - 10));
        }
    }

    // 3. Sampling and forward-backward on the final choice.
    if best.makespan > lb && !deadline.expired() {
        let g = NodeGraph::new(inst, choice.clone()).expect("built before");
        let mut s = Searcher::new(&g);
        s.best = Some(best.clone());
        s.forward_backward(3, lb, &deadline);
        s.sample(&mut rng, lb, &deadline, patience, &progress);
        notes.push(format!("sampling: {} passes", s.passes));
        if let Some(f) = s.best
            && f.makespan < best.makespan
        {
            best = f;
        }
    }

    log::debug!(
        "search done, peak RSS {:.0} MiB",
        crate::solve::peak_rss_mib().unwrap_or(0.0)
    );
    let mut r = match SolveResult::found(inst, best.schedule, lb, &bounds.best.source, ENGINE) {
        Ok(r) => r,
        Err(e) => {
            // An engine bug: never print the schedule. Report honestly.
            log::error!("{e}");
            let mut r =
                SolveResult::without_schedule(Status::Unknown, lb, &bounds.best.source, ENGINE);
            r.internal(e.to_string());
            return r;
        }
    };
    for n in notes {
        r.note(n);
    }
    r.note(format!("best schedule: {}", best.how));
    r
}
