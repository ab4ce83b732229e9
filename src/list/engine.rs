//! List scheduling and the one-pass greedy behind the [`Engine`] interface.

use std::sync::Arc;
use std::time::Duration;

use super::ListOptions;
use super::priority::Rule;
use crate::engine::{Context, Engine};
use crate::schedule::Schedule;
use crate::solve::{SolveOptions, SolveResult};

/// List scheduling (list/): the fast engine, and every other engine's
/// incumbent step.
#[derive(Clone, Debug, Default)]
pub struct ListEngine {
    pub options: ListOptions,
}

impl ListEngine {
    /// One run of `time_limit` from an optional warm start.
    pub fn run(
        &self,
        ctx: &Context,
        time_limit: Duration,
        start: Option<Arc<Schedule>>,
    ) -> SolveResult {
        let opts = SolveOptions {
            time_limit,
            start,
            // The context's flag: the caller's, or the portfolio's that
            // ends this run once another engine has settled the instance.
            cancel: ctx.deadline.cancel.clone(),
            ..ctx.opts.clone()
        };
        super::solve_with_bounds(ctx.inst, &opts, &self.options, ctx.bounds)
    }
}

impl Engine for ListEngine {
    fn name(&self) -> &'static str {
        "list"
    }
    fn search(&self, ctx: &Context, incumbent: SolveResult) -> SolveResult {
        if incumbent.status.is_settled() {
            return incumbent;
        }
        let start = incumbent
            .schedule
            .clone()
            .map(Arc::new)
            .or(ctx.opts.start.clone());
        let r = self.run(ctx, ctx.deadline.remaining(), start);
        if incumbent.schedule.is_none() && incumbent.notes.is_empty() {
            return r;
        }
        crate::solve::merge(incumbent, r)
    }
}

/// One pass of one priority rule (`--engine greedy --rule R`): a baseline.
#[derive(Clone, Copy, Debug)]
pub struct GreedyEngine(pub Rule);

impl Engine for GreedyEngine {
    fn name(&self) -> &'static str {
        "greedy"
    }
    /// `greedy` with the default rule (the name alone, as folders written
    /// before rules could be chosen say), `greedy --rule R` otherwise.
    fn setting(&self) -> String {
        if self.0 == Rule::default() {
            self.name().to_string()
        } else {
            format!("greedy --rule {}", self.0.name())
        }
    }
    fn search(&self, ctx: &Context, _incumbent: SolveResult) -> SolveResult {
        super::greedy(ctx.inst, &ctx.deadline, ctx.bounds, self.0)
    }
    fn wants_proven_bounds(&self) -> bool {
        false
    }
}
