//! What every engine returns: one `SolveResult` with its proof status.
//!
//! A result that carries a schedule can only be built through `SolveResult::found`,
//! which runs the validator first: an engine bug yields an internal error, never
//! an illegal schedule on the user's screen.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::graph::NodeGraph;
use crate::instance::Instance;
use crate::schedule::{Schedule, check};

/// Proof status of a result (SPEC: never report a bound that is not a bound).
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

/// Options shared by all engines.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// Wall-clock budget for the whole solve.
    pub time_limit: Duration,
    pub seed: u64,
    pub threads: usize,
    /// Print progress lines on stderr.
    pub progress: bool,
    /// List scheduling stops early once this many sampling passes in a row
    /// brought no better makespan (tiling moves: this many, and at least as
    /// many as came before them). `None`: it uses the whole time limit. The exact engines set it for their incumbent step, where a
    /// few seconds of stalled sampling are better spent on proofs.
    pub list_patience: Option<usize>,
    /// A legal schedule to start from (`--start`): the list engine takes it as
    /// its first incumbent, so every engine's search begins at or below it.
    pub start: Option<std::sync::Arc<Schedule>>,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            time_limit: Duration::from_secs(5),
            seed: 1,
            threads: 1,
            progress: false,
            list_patience: None,
            start: None,
        }
    }
}

/// A wall-clock deadline, optionally cut short by a shared cancel flag (the
/// portfolio stops the other engines once one has a proof).
#[derive(Clone, Debug)]
pub struct Deadline {
    pub start: Instant,
    pub end: Instant,
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Deadline {
    pub fn after(d: Duration) -> Self {
        let start = Instant::now();
        Deadline {
            start,
            end: start + d,
            cancel: None,
        }
    }
    /// The same deadline, also ending when `flag` is set.
    pub fn with_cancel(&self, flag: Arc<AtomicBool>) -> Deadline {
        Deadline {
            cancel: Some(flag),
            ..self.clone()
        }
    }
    pub fn cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
    }
    pub fn expired(&self) -> bool {
        self.cancelled() || Instant::now() >= self.end
    }
    pub fn remaining(&self) -> Duration {
        if self.cancelled() {
            return Duration::ZERO;
        }
        self.end.saturating_duration_since(Instant::now())
    }
    pub fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }
    /// The share `frac` of the remaining time, as a deadline.
    pub fn share(&self, frac: f64) -> Deadline {
        let now = Instant::now();
        Deadline {
            start: now,
            end: now + self.remaining().mul_f64(frac.clamp(0.0, 1.0)),
            cancel: self.cancel.clone(),
        }
    }
}

/// The outcome of a solve.
#[derive(Clone, Debug)]
pub struct SolveResult {
    pub status: Status,
    pub schedule: Option<Schedule>,
    pub makespan: Option<u64>,
    /// A proven lower bound on the optimal makespan (0 when nothing is known).
    pub lower_bound: u64,
    /// Which argument proves `lower_bound`.
    pub bound_source: String,
    pub engine: String,
    pub wall_seconds: f64,
    /// Human notes: decisions taken, which pass won, why a fallback happened.
    pub notes: Vec<String>,
}

impl SolveResult {
    /// A result with a legal schedule. Fails (an engine bug) when the schedule
    /// breaks any rule, naming the first violations.
    pub fn found(
        inst: &Instance,
        schedule: Schedule,
        lower_bound: u64,
        bound_source: &str,
        engine: &str,
    ) -> Result<Self, String> {
        let g = NodeGraph::new(inst, schedule.choice.clone())?;
        let bad = check(&g, &schedule, 5);
        log::debug!(
            "validated, peak RSS {:.0} MiB",
            peak_rss_mib().unwrap_or(0.0)
        );
        if !bad.is_empty() {
            let lines: Vec<String> = bad.kept.iter().map(|v| v.to_string()).collect();
            return Err(format!(
                "engine {engine} produced an illegal schedule ({} violations): {}",
                bad.total(),
                lines.join("; ")
            ));
        }
        let ms = schedule.makespan(&g);
        let makespan = u64::try_from(ms)
            .map_err(|_| format!("engine {engine} produced a makespan beyond u64: {ms}"))?;
        if lower_bound > makespan {
            return Err(format!(
                "engine {engine}: lower bound {lower_bound} ({bound_source}) exceeds a legal makespan {makespan}"
            ));
        }
        Ok(SolveResult {
            status: if lower_bound == makespan {
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
        }
    }

    /// Relative gap `(makespan - bound) / makespan`, when a schedule exists.
    pub fn gap(&self) -> Option<f64> {
        self.makespan.map(|m| {
            if m == 0 {
                0.0
            } else {
                (m - self.lower_bound.min(m)) as f64 / m as f64
            }
        })
    }

    /// Raises the lower bound (keeps the larger) and updates the status.
    pub fn raise_bound(&mut self, bound: u64, source: &str) {
        if bound > self.lower_bound {
            if let Some(m) = self.makespan {
                assert!(bound <= m, "a lower bound above a legal makespan");
            }
            self.lower_bound = bound;
            self.bound_source = source.to_string();
        }
        if self.makespan == Some(self.lower_bound) {
            self.status = Status::Optimal;
        }
    }

    pub fn note(&mut self, s: impl Into<String>) {
        let s = s.into();
        log::info!("{s}");
        self.notes.push(s);
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
/// piped output.
pub struct Progress {
    enabled: bool,
    start: Instant,
    last: std::cell::Cell<Instant>,
}

impl Progress {
    pub fn new(enabled: bool) -> Self {
        let now = Instant::now();
        Progress {
            enabled,
            start: now,
            last: std::cell::Cell::new(now),
        }
    }
    /// Prints `line()` if a second has passed since the last line.
    pub fn tick(&self, line: impl FnOnce() -> String) {
        if self.enabled && self.last.get().elapsed() >= Duration::from_secs(1) {
            self.last.set(Instant::now());
            eprintln!("[{:>7.1} s] {}", self.start.elapsed().as_secs_f64(), line());
        }
    }
}
