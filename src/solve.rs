//! What every engine returns: one `SolveResult` with its proof status.
//!
//! A result that carries a schedule can only be built through `SolveResult::found`,
//! which runs the validator first: an engine bug yields an internal error, never
//! an illegal schedule on the user's screen.
//!
//! What callers decide on is typed: `SolveResult::internal_error` (an engine
//! bug: the CLI exits 70) and `SolveResult::stepped_aside` (why an exact
//! engine handed back before its search was done: the portfolio moves on).
//! Notes are for people only; nothing searches their text.

use std::fmt;
use std::time::{Duration, Instant};

use crate::graph::NodeGraph;
use crate::instance::Instance;
use crate::schedule::{Schedule, check};

/// Proof status of a result: a bound is reported only when it is proven.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The schedule's makespan equals a proven lower bound.
    Optimal,
    /// A legal schedule, with a proven lower bound below its makespan.
    Feasible,
    /// Proven: no legal schedule exists.
    Infeasible,
    /// No schedule found and no proof of infeasibility.
    Unknown,
}

impl Status {
    /// Optimal or infeasible: nothing left to search.
    pub fn is_settled(self) -> bool {
        matches!(self, Status::Optimal | Status::Infeasible)
    }
    pub fn name(self) -> &'static str {
        match self {
            Status::Optimal => "optimal",
            Status::Feasible => "feasible",
            Status::Infeasible => "infeasible",
            Status::Unknown => "unknown",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Default `SolveOptions::memory_limit_mib` (`--memory-limit`).
pub const DEFAULT_MEMORY_LIMIT_MIB: u64 = 512;

/// Options shared by all engines (each engine's own knobs live in its own
/// options: `list::ListOptions`, `milp::MilpOptions`).
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// Wall-clock budget for the whole solve, from the call (any value: a limit
    /// beyond what an `Instant` represents means no limit).
    pub time_limit: Duration,
    pub seed: u64,
    pub threads: usize,
    /// Print progress lines on stderr.
    pub progress: bool,
    /// Where each better schedule and each higher bound goes as it is
    /// found (`--progress FILE|-`; nowhere by default).
    pub events: crate::events::Events,
    /// A legal schedule to start from (`--start`): the list engine takes it as
    /// its first incumbent, so every engine's search begins at or below it.
    pub start: Option<std::sync::Arc<Schedule>>,
    /// Memory budget in MiB for the exact engines' models: the SAT encoding
    /// (clauses in the solver and the encoder's own copy) is never built
    /// beyond it; over it the engine steps aside (`StepAside::OverMemoryBudget`).
    pub memory_limit_mib: u64,
    /// `--certify DIR`: the SAT engine writes a CNF and a proof for each
    /// UNSAT answer its bound rests on (sat/certify.rs); `None`: nothing
    /// written (the default: certificates cost a second solve and disk).
    pub certify: Option<std::sync::Arc<crate::certificate::Certifier>>,
    /// A caller's flag that ends the solve early, as the time limit does
    /// (the best schedule and bound so far are returned): Ctrl-C in the
    /// Python package. `None`: only the time limit ends it.
    pub cancel: Option<crate::stop::Cancel>,
}

impl SolveOptions {
    /// The solve's deadline: `time_limit` from now, ended early by `cancel`.
    pub fn deadline(&self) -> crate::stop::Deadline {
        crate::stop::Deadline::after(self.time_limit).with_cancel(self.cancel.clone())
    }
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            time_limit: Duration::from_secs(5),
            seed: 1,
            threads: 1,
            progress: false,
            events: crate::events::Events::default(),
            start: None,
            memory_limit_mib: DEFAULT_MEMORY_LIMIT_MIB,
            certify: None,
            cancel: None,
        }
    }
}

/// Why an exact engine handed its incumbent back before its search was done
/// (not the time limit, not a proof): the portfolio moves on to another
/// engine. Typed, so callers never search note text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepAside {
    /// The makespans to search lie beyond the times the engine represents
    /// exactly (`horizon`: the largest makespan it would have to encode).
    HorizonBeyondEngine { horizon: u128, max: u128 },
    /// The model would exceed the memory budget (`--memory-limit`), found at
    /// `stage`.
    OverMemoryBudget {
        estimated_mib: u64,
        budget_mib: u64,
        stage: BudgetStage,
    },
    /// The deadline (or the portfolio's cancel flag) came while the model was
    /// being built.
    DeadlineDuringEncoding,
    /// The model is too large for the engine in another respect (e.g. more
    /// tiling combinations than the MILP enumerates).
    TooLarge,
}

/// When an exact engine found its model over the memory budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BudgetStage {
    /// Estimated before anything was built (refused up front).
    Estimate,
    /// The model's nodes alone, before any clause.
    Model,
    /// Counted while the encoding was built (the build stopped).
    Build,
    /// Lazy cuts added during the search took it over.
    LazyCuts,
}

impl fmt::Display for StepAside {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepAside::HorizonBeyondEngine { horizon, max } => write!(
                f,
                "horizon {horizon} beyond what the engine represents exactly (at most {max} time units)"
            ),
            StepAside::OverMemoryBudget {
                estimated_mib,
                budget_mib,
                ..
            } => write!(
                f,
                "encoding over the memory budget (about {estimated_mib} MiB, budget {budget_mib} MiB; \
                 --memory-limit)"
            ),
            StepAside::DeadlineDuringEncoding => f.write_str("deadline during encoding"),
            StepAside::TooLarge => f.write_str("model too large for the engine"),
        }
    }
}

/// What a note is about: callers and tests decide on the kind (and the data
/// it carries), never on the wording, which is for people.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoteKind {
    /// What an engine did or decided (time shares, passes, which rule won).
    Info,
    /// Where the first schedule came from (the incumbent step).
    Incumbent,
    /// The time an unfinished search left went to list scheduling.
    ListForTheRest,
    /// An exact model as built: its size, and whether time was compressed
    /// to event points (sums of durations) instead of every instant.
    Encoding { clauses: u64, event_points: bool },
    /// An exact engine stepped aside (`SolveResult::stepped_aside` says why).
    SteppedAside,
    /// Tilings left out: dominated, or proven never schedulable.
    Pruned,
    /// No legal schedule with this tiling of this op (ids as in the input):
    /// proven (an exact engine: the tiling is never schedulable, even alone)
    /// or only not found (list scheduling).
    Unschedulable { op: u32, tiling: u32, proven: bool },
    /// Infeasible: this op (id as in the input) has no tiling that can be
    /// used or scheduled.
    NoTilingForOp { op: u32 },
    /// List scheduling's tiling repair (after both starting tiling choices
    /// deadlocked): whether it found a schedulable choice.
    TilingRepair { found: bool },
    /// `--certify`: whether the reported bound (or the infeasibility) rests
    /// on certificates written for it.
    Certificate { certified: bool },
    /// An exact search handed its time back early: no probe answered by the
    /// time it was given for a first answer, or (when asked to) a probe
    /// below the top ran out of its share; the portfolio then tries other
    /// means.
    GaveUp,
    /// A file the command was asked to write (a `--certify` certificate, an
    /// `--export-model` model) could not be written; the text names it. The
    /// CLI reports the result, then exits 74.
    WriteFailed,
    /// An engine bug (also in `SolveResult::internal_error`).
    Internal,
}

impl NoteKind {
    /// The kind's name in JSON output.
    pub fn name(&self) -> &'static str {
        match self {
            NoteKind::Info => "info",
            NoteKind::Incumbent => "incumbent",
            NoteKind::ListForTheRest => "list-for-the-rest",
            NoteKind::Encoding { .. } => "encoding",
            NoteKind::SteppedAside => "stepped-aside",
            NoteKind::Pruned => "pruned",
            NoteKind::Unschedulable { .. } => "unschedulable",
            NoteKind::NoTilingForOp { .. } => "no-tiling-for-op",
            NoteKind::TilingRepair { .. } => "tiling-repair",
            NoteKind::Certificate { .. } => "certificate",
            NoteKind::GaveUp => "gave-up",
            NoteKind::WriteFailed => "write-failed",
            NoteKind::Internal => "internal",
        }
    }
}

/// A note: a kind to decide on and a text for people.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub kind: NoteKind,
    pub text: String,
}

impl Note {
    pub fn info(text: impl Into<String>) -> Self {
        Note {
            kind: NoteKind::Info,
            text: text.into(),
        }
    }
}

impl From<String> for Note {
    fn from(text: String) -> Self {
        Note::info(text)
    }
}

impl From<&str> for Note {
    fn from(text: &str) -> Self {
        Note::info(text)
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Why `SolveResult::found` refused a schedule (always an engine bug, except
/// where an engine documents a numeric limit, e.g. the MILP's memory precision).
#[derive(Clone, Debug)]
pub struct Rejected {
    pub message: String,
    /// The validator's findings, when the schedule broke rules.
    pub violations: Option<crate::schedule::Violations>,
}

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// The outcome of a solve.
#[derive(Clone, Debug)]
pub struct SolveResult {
    pub status: Status,
    pub schedule: Option<Schedule>,
    /// The schedule's makespan: u128, because start + ExecTime may exceed u64
    /// (problem.md §6) while every start fits.
    pub makespan: Option<u128>,
    /// A proven lower bound on the optimal makespan (0 when nothing is known).
    pub lower_bound: u64,
    /// Which argument proves `lower_bound`.
    pub bound_source: String,
    pub engine: String,
    pub wall_seconds: f64,
    /// Notes: decisions taken, which pass won, why a fallback happened; each
    /// with a kind (`NoteKind`) for callers, and a text for people.
    pub notes: Vec<Note>,
    /// An engine bug (a schedule the validator rejected, contradictory
    /// verdicts, a panicking engine thread): the CLI reports it and exits 70.
    pub internal_error: Option<String>,
    /// Why an exact engine stepped aside before its search was done.
    pub stepped_aside: Option<StepAside>,
    /// The last search handed its time back before its deadline (it gave
    /// up: no probe answered by its first-answer time, or stuck below the
    /// top where asked to hand back; `NoteKind::GaveUp` says which). Set by
    /// the search; a caller that composes searches clears it before each.
    pub handed_back: bool,
}

impl SolveResult {
    /// Offers what the result holds to `events`: its makespan (its schedule
    /// passed the validator in `found`) and its bound.
    pub fn offer_to(&self, events: &crate::events::Events) {
        if !events.listening() {
            return;
        }
        if self.lower_bound > 0 {
            events.bound(self.lower_bound, &self.bound_source);
        }
        if let (Some(ms), Some(_)) = (self.makespan, &self.schedule) {
            events.incumbent(ms, &self.engine, String::new);
        }
    }

    /// A result with a legal schedule. Fails (an engine bug) when the schedule
    /// breaks any rule, naming the first violations.
    pub fn found(
        inst: &Instance,
        schedule: Schedule,
        lower_bound: u64,
        bound_source: &str,
        engine: &str,
    ) -> Result<Self, Rejected> {
        let plain = |message: String| Rejected {
            message,
            violations: None,
        };
        if schedule.choice.len() != inst.graph.n_ops() {
            return Err(plain(format!(
                "engine {engine} produced a schedule with {} tiling choices for {} ops",
                schedule.choice.len(),
                inst.graph.n_ops()
            )));
        }
        let g = NodeGraph::new(inst, schedule.choice.clone())
            .map_err(|e| plain(format!("engine {engine}: {e}")))?;
        if schedule.start.len() != g.n_nodes() || schedule.core.len() != g.n_nodes() {
            return Err(plain(format!(
                "engine {engine} produced a schedule of {} starts for {} nodes",
                schedule.start.len(),
                g.n_nodes()
            )));
        }
        let bad = check(&g, &schedule, 5);
        log::debug!(
            "validated, peak RSS {:.0} MiB",
            peak_rss_mib().unwrap_or(0.0)
        );
        if !bad.is_empty() {
            let lines: Vec<String> = bad.kept.iter().map(|v| v.to_string()).collect();
            return Err(Rejected {
                message: format!(
                    "engine {engine} produced an illegal schedule ({} violations): {}",
                    bad.total(),
                    lines.join("; ")
                ),
                violations: Some(bad),
            });
        }
        let makespan = schedule.makespan(&g);
        if u128::from(lower_bound) > makespan {
            return Err(plain(format!(
                "engine {engine}: lower bound {lower_bound} ({bound_source}) exceeds a legal makespan {makespan}"
            )));
        }
        Ok(SolveResult {
            status: if u128::from(lower_bound) == makespan {
                Status::Optimal
            } else {
                Status::Feasible
            },
            schedule: Some(schedule),
            makespan: Some(makespan),
            lower_bound,
            bound_source: bound_source.to_string(),
            engine: engine.to_string(),
            wall_seconds: 0.0,
            notes: Vec::new(),
            internal_error: None,
            stepped_aside: None,
            handed_back: false,
        })
    }

    /// A result without a schedule: `Infeasible` (proven) or `Unknown`.
    pub fn without_schedule(
        status: Status,
        lower_bound: u64,
        bound_source: &str,
        engine: &str,
    ) -> Self {
        assert!(matches!(status, Status::Infeasible | Status::Unknown));
        SolveResult {
            status,
            schedule: None,
            makespan: None,
            lower_bound,
            bound_source: bound_source.to_string(),
            engine: engine.to_string(),
            wall_seconds: 0.0,
            notes: Vec::new(),
            internal_error: None,
            stepped_aside: None,
            handed_back: false,
        }
    }

    /// Relative gap `(makespan - bound) / makespan`, when a schedule exists.
    pub fn gap(&self) -> Option<f64> {
        self.makespan.map(|m| gap(m, u128::from(self.lower_bound)))
    }

    /// Raises the lower bound (keeps the larger) and updates the status. A
    /// bound above the makespan would be an engine bug: recorded as an
    /// internal error, never reported as a bound.
    pub fn raise_bound(&mut self, bound: u64, source: &str) {
        if bound > self.lower_bound {
            if let Some(m) = self.makespan
                && u128::from(bound) > m
            {
                self.internal(format!(
                    "a lower bound {bound} ({source}) above a legal makespan {m}"
                ));
                return;
            }
            self.lower_bound = bound;
            self.bound_source = source.to_string();
        }
        if self.makespan == Some(u128::from(self.lower_bound)) {
            self.status = Status::Optimal;
        }
    }

    /// Adds a note of kind `Info`.
    pub fn note(&mut self, s: impl Into<String>) {
        self.note_as(NoteKind::Info, s);
    }

    /// Adds a note of the given kind.
    pub fn note_as(&mut self, kind: NoteKind, s: impl Into<String>) {
        let text = s.into();
        log::info!("{text}");
        self.notes.push(Note { kind, text });
    }

    /// Whether a note of a kind matching `f` was made.
    pub fn has_note(&self, f: impl Fn(&NoteKind) -> bool) -> bool {
        self.notes.iter().any(|n| f(&n.kind))
    }

    /// Records an engine bug (typed: the CLI exits 70 on it), also as a note.
    pub fn internal(&mut self, e: impl Into<String>) {
        let e = e.into();
        log::error!("internal error: {e}");
        self.notes.push(Note {
            kind: NoteKind::Internal,
            text: format!("internal error: {e}"),
        });
        self.internal_error = Some(match self.internal_error.take() {
            Some(before) => format!("{before}; {e}"),
            None => e,
        });
    }

    /// Takes over `other`'s internal errors (combined with ours) and its
    /// step-aside reason when we have none; notes are left to the caller.
    pub fn carry_flags(&mut self, other: &mut SolveResult) {
        if let Some(e) = other.internal_error.take() {
            self.internal_error = Some(match self.internal_error.take() {
                Some(mine) if mine != e => format!("{mine}; {e}"),
                Some(mine) => mine,
                None => e,
            });
        }
        if self.stepped_aside.is_none() {
            self.stepped_aside = other.stepped_aside.take();
        }
        self.handed_back |= other.handed_back;
    }

    /// Takes over `from`'s history: its notes (before this result's own)
    /// and its flags (`carry_flags`). For a result built anew from an
    /// earlier one, so that nothing the earlier one recorded is lost.
    pub fn take_history(&mut self, from: &mut SolveResult) {
        let mut notes = std::mem::take(&mut from.notes);
        notes.append(&mut self.notes);
        self.notes = notes;
        self.carry_flags(from);
    }

    /// Notes that the search hands its time back (`handed_back`).
    pub fn hand_back(&mut self, note: impl Into<String>) {
        self.note_as(NoteKind::GaveUp, note);
        self.handed_back = true;
    }

    /// Records why an exact engine stepped aside (typed), with a note.
    pub fn step_aside(&mut self, why: StepAside, note: impl Into<String>) {
        self.note_as(NoteKind::SteppedAside, note);
        self.stepped_aside = Some(why);
    }
}

/// Relative gap `(makespan - bound) / makespan` (0 when the makespan is 0 or
/// meets the bound), exact for makespans beyond u64: the one definition of a
/// gap, used by `solve`, `check --bound`, `score` and `bench`.
pub fn gap(makespan: u128, bound: u128) -> f64 {
    let b = bound.min(makespan);
    if makespan == 0 {
        0.0
    } else {
        (makespan - b) as f64 / makespan as f64
    }
}

/// Peak resident memory of this process so far, in MiB (Linux; None elsewhere).
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Progress lines on stderr, at most one a second, only when enabled (a
/// terminal, or `--progress`): long runs show they are alive without cluttering
/// piped output. And the engine's better schedules offered to the solve's
/// `Events` as they are found (validated first, which costs a pass over the
/// graph: at most two a second, and at most a tenth of the time; the
/// result offers the last).
pub struct Progress {
    enabled: bool,
    start: Instant,
    last: std::cell::Cell<Instant>,
    events: crate::events::Events,
    /// When the next offer may be validated.
    next_offer: std::cell::Cell<Option<Instant>>,
}

/// Least time between two schedules a `Progress` validates for its events,
/// and the least multiple of a validation's time.
const OFFER_EVERY: Duration = Duration::from_millis(500);
const OFFER_SPACING: u32 = 10;
/// Largest graph whose schedules are validated for an offer mid-search
/// (about 0.2 s at 10^6 nodes, results/sat-budget.md; at 10^7 a validation
/// near the deadline would pass the time limit): above, only the results of
/// whole steps, validated anyway, reach the events.
const OFFER_MAX_NODES: usize = 1 << 20;

impl Progress {
    pub fn new(enabled: bool, events: crate::events::Events) -> Self {
        let now = Instant::now();
        Progress {
            enabled,
            start: now,
            last: std::cell::Cell::new(now),
            events,
            next_offer: std::cell::Cell::new(None),
        }
    }
    /// Prints `line()` if a second has passed since the last line.
    pub fn tick(&self, line: impl FnOnce() -> String) {
        if self.enabled && self.last.get().elapsed() >= Duration::from_secs(1) {
            self.last.set(Instant::now());
            // A failed write to stderr (closed, full) must not end the solve.
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "[{:>7.1} s] {}",
                self.start.elapsed().as_secs_f64(),
                line()
            );
        }
    }

    /// Whether a schedule of `nodes` nodes and `makespan` would be offered
    /// now.
    fn wants(&self, nodes: usize, makespan: u128) -> bool {
        self.events.listening()
            && nodes <= OFFER_MAX_NODES
            && self.next_offer.get().is_none_or(|t| Instant::now() >= t)
            && self.events.would_take(makespan)
    }

    /// Offers schedule `s` of `inst` (its makespan `makespan`, found by
    /// `engine`'s `step`) to the events, if anyone listens, it beats what
    /// they saw and its turn has come (`OFFER_EVERY`, `OFFER_SPACING`):
    /// after the validator passes it. Costs nothing else where nobody
    /// listens (it is called on every improvement).
    pub fn offer(
        &self,
        inst: &Instance,
        s: &Schedule,
        makespan: u128,
        engine: &str,
        step: impl FnOnce() -> String,
    ) {
        if !self.wants(s.start.len(), makespan) {
            return;
        }
        let t = Instant::now();
        let legal = NodeGraph::new(inst, s.choice.clone())
            .is_ok_and(|g| s.makespan(&g) == makespan && check(&g, s, 1).is_empty());
        let took = t.elapsed();
        self.next_offer
            .set(Some(Instant::now() + OFFER_EVERY.max(took * OFFER_SPACING)));
        if legal {
            self.events.incumbent(makespan, engine, step);
        }
    }
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
    // Engine names joined once each, the better result's first.
    for name in other.engine.split('+').filter(|n| !n.is_empty()) {
        if best.engine.is_empty() {
            best.engine = name.to_string();
        } else if !best.engine.split('+').any(|n| n == name) {
            best.engine = format!("{}+{}", best.engine, name);
        }
    }
    // Results of threads that started from one incumbent share its notes:
    // those once.
    let shared = best
        .notes
        .iter()
        .zip(&other.notes)
        .take_while(|(a, b)| a == b)
        .count();
    best.notes.extend(other.notes.into_iter().skip(shared));
    best
}

#[cfg(test)]
mod tests {
    use super::{SolveResult, Status, merge};

    fn unknown(engine: &str) -> SolveResult {
        SolveResult::without_schedule(Status::Unknown, 0, "none", engine)
    }

    #[test]
    fn merged_engine_names_appear_once_each() {
        let r = merge(unknown("sat"), unknown("sat+list"));
        assert_eq!(r.engine, "sat+list");
        let r = merge(merge(r, unknown("list")), unknown("milp+sat"));
        assert_eq!(r.engine, "sat+list+milp");
        assert_eq!(merge(unknown(""), unknown("list")).engine, "list");
    }

    /// Threads that started from one incumbent carry its notes: the merged
    /// result has them once, then each thread's own; notes that differ
    /// early are all kept.
    #[test]
    fn merged_notes_keep_a_shared_start_once() {
        let with = |texts: &[&str]| {
            let mut r = unknown("sat");
            for t in texts {
                r.note(t.to_string());
            }
            r
        };
        let texts = |r: &SolveResult| r.notes.iter().map(|n| n.text.clone()).collect::<Vec<_>>();
        let r = merge(with(&["x", "y", "a"]), with(&["x", "y", "b", "c"]));
        assert_eq!(texts(&r), ["x", "y", "a", "b", "c"]);
        let r = merge(with(&["x", "a"]), with(&["y", "x"]));
        assert_eq!(texts(&r), ["x", "a", "y", "x"]);
    }

    /// A result built anew from an earlier one keeps its notes and flags:
    /// the portfolio's rounds decide on `handed_back`.
    #[test]
    fn a_new_result_takes_the_history_of_the_old() {
        let mut old = unknown("sat");
        old.note("first");
        old.hand_back("given up");
        old.internal("a bug");
        let mut new = unknown("sat");
        new.note("second");
        new.take_history(&mut old);
        let texts: Vec<&str> = new.notes.iter().map(|n| n.text.as_str()).collect();
        assert_eq!(
            texts[..3],
            ["first", "given up", "internal error: a bug"][..]
        );
        assert_eq!(texts.last(), Some(&"second"));
        assert!(new.handed_back);
        assert!(new.internal_error.is_some());
        // And a merge carries it too.
        let mut handed = unknown("sat");
        handed.hand_back("given up");
        assert!(merge(unknown("list"), handed).handed_back);
    }
}
