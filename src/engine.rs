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

/// Runs `f` in a context over `inst`'s combinatorial bounds, without
/// refutations: an engine run on its own, as a library caller or a test does
/// it (`pipeline::solve` strengthens the bounds first).
pub fn with_plain_context<R>(
    inst: &Instance,
    opts: &SolveOptions,
    deadline: Deadline,
    f: impl FnOnce(&Context) -> R,
) -> R {
    let bounds = crate::bounds::combinatorial::lower_bounds(inst);
    let at_levels = LevelRefutations::default();
    f(&Context {
        inst,
        bounds: &bounds,
        at_levels: &at_levels,
        deadline,
        opts,
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::parse_reader;

    /// An engine that hands its incumbent back: what the trait gives an
    /// engine that states nothing but its name and search.
    struct Idle;

    impl Engine for Idle {
        fn name(&self) -> &'static str {
            "idle"
        }
        fn search(&self, _ctx: &Context, incumbent: SolveResult) -> SolveResult {
            incumbent
        }
    }

    /// The same with an incumbent step of its own.
    struct Stepped;

    impl Engine for Stepped {
        fn name(&self) -> &'static str {
            "stepped"
        }
        fn search(&self, _ctx: &Context, incumbent: SolveResult) -> SolveResult {
            incumbent
        }
        fn incumbent_share(&self) -> Option<IncumbentShare> {
            Some(IncumbentShare {
                seconds: |limit, _| limit / 2.0,
                patience: None,
            })
        }
    }

    /// The defaults are the cautious ones: the runner proves the bounds
    /// first, nothing is certified or exported, the setting is the name,
    /// and the incumbent step runs exactly when the engine asks for a share.
    #[test]
    fn the_defaults_of_an_engine() {
        let e = Idle;
        assert_eq!(e.setting(), "idle");
        assert!(e.wants_proven_bounds());
        assert!(!e.certifies() && !e.exports_models());
        assert!(e.incumbent_share().is_none() && !e.runs_incumbent_step());
        let s = Stepped;
        assert!(s.runs_incumbent_step());
        let share = s.incumbent_share().map(|sh| (sh.seconds)(10.0, 100));
        assert_eq!(share, Some(5.0));
    }

    /// `with_deadline` changes the deadline and nothing else.
    #[test]
    fn a_context_with_another_deadline_keeps_the_rest() {
        let text = include_str!("../instances/example1.txt");
        let inst = parse_reader(text.as_bytes(), "example1.txt").unwrap();
        let opts = SolveOptions::default();
        let far = Deadline::after(std::time::Duration::from_secs(60));
        with_plain_context(&inst, &opts, far, |ctx| {
            let near = ctx.with_deadline(Deadline::after(std::time::Duration::ZERO));
            assert!(near.deadline.expired() && !ctx.deadline.expired());
            assert!(std::ptr::eq(near.inst, ctx.inst) && std::ptr::eq(near.bounds, ctx.bounds));
            assert!(std::ptr::eq(near.at_levels, ctx.at_levels));
            assert!(std::ptr::eq(near.opts, ctx.opts));
        });
    }
}
