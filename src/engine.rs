//! One engine interface. Every engine (list scheduling, the greedy baseline,
//! SAT, MILP, and the portfolio that composes them) implements [`Engine`]: it
//! gets one search context (the instance, its proven bounds, a deadline that
//! also carries the portfolio's cancel flag, the shared options) and an
//! incumbent result (a validated schedule or none, and a proven bound), and
//! returns the better of the incumbent and what it found and proved.
//!
//! This room imports no engine: each engine's implementation lives beside it
//! (`list::engine`, `sat::engine`, `milp::engine`, `portfolio`), the runner
//! that computes the bounds and runs an engine alone is `pipeline`, and the
//! list of engines `--engine` offers is `registry`, one line an engine.

use crate::bounds::Bounds;
use crate::bounds::nogoods::LevelRefutations;
use crate::instance::Instance;
use crate::solve::{SolveOptions, SolveResult};
use crate::stop::Deadline;

/// What every engine searches from.
pub struct Context<'a> {
    pub inst: &'a Instance,
    /// The combinatorial bounds (computed once per solve).
    pub bounds: &'a Bounds,
    /// Refutations the choice enumeration made at the levels of the bound,
    /// for its later passes in the same solve.
    pub at_levels: &'a LevelRefutations,
    /// When to hand back; cancelled early when another engine settled the
    /// instance (the portfolio's flag).
    pub deadline: Deadline,
    /// Seed, threads, progress, memory budget, certificates, warm start.
    pub opts: &'a SolveOptions,
}

impl<'a> Context<'a> {
    /// The same context with another deadline.
    pub fn with_deadline(&self, deadline: Deadline) -> Context<'a> {
        Context { deadline, ..*self }
    }
}

/// How much of the time an engine run alone gives its incumbent step.
#[derive(Clone, Copy, Debug)]
pub struct IncumbentShare {
    /// Seconds of list scheduling for a time limit (s) and a largest node count.
    pub seconds: fn(limit: f64, nodes: u64) -> f64,
    /// Stop early after this many non-improving passes (`None`: use it all).
    pub patience: Option<usize>,
}

/// An engine: a search that improves an incumbent within a deadline.
pub trait Engine: Sync {
    /// The name results carry ("list", "sat", "milp", "auto").
    fn name(&self) -> &'static str;

    /// The engine with the options that change its answers, as result
    /// folders record it: two runs of one setting are one experiment, and a
    /// bench folder holds one setting.
    fn setting(&self) -> String {
        self.name().to_string()
    }

    /// Searches from `incumbent` (a result whose schedule, if any, passed the
    /// validator, and whose bound is proven) until `ctx.deadline`. Returns a
    /// result at least as good: never a worse schedule, never a smaller bound.
    /// A settled incumbent (optimal or infeasible) is handed back at once.
    fn search(&self, ctx: &Context, incumbent: SolveResult) -> SolveResult;

    /// The incumbent step when the engine runs alone; `None`: the engine
    /// builds its own first schedule (list scheduling itself).
    fn incumbent_share(&self) -> Option<IncumbentShare> {
        None
    }

    /// Whether the engine's runs go through `pipeline::steps::incumbent`
    /// (through `pipeline::solve_in` with an incumbent share, or calling it
    /// itself as the portfolio does): that step computes the window net's
    /// bound.
    fn runs_incumbent_step(&self) -> bool {
        self.incumbent_share().is_some()
    }

    /// Whether the runner proves the bounds every search starts from
    /// before this engine runs (refuted tilings, the tiling-choice
    /// relaxation, the window net; `pipeline::bounds`). A one-pass baseline
    /// does not: its point is to cost one pass.
    fn wants_proven_bounds(&self) -> bool {
        true
    }

    /// Whether `--certify` can certify what the engine proves (its bounds
    /// rest on SAT answers it writes certificates for).
    fn certifies(&self) -> bool {
        false
    }

    /// Whether the engine builds MILP models `--export-model` can write.
    fn exports_models(&self) -> bool {
        false
    }
}
