//! The SAT engine behind the [`Engine`] interface.

use crate::engine::{Context, Engine, IncumbentShare};
use crate::solve::SolveResult;

/// The incumbent step of a search that improves its own incumbent: a
/// twentieth of the time, capped at a millisecond per node (at least 50
/// ms): proofs need the time, and the search itself improves the incumbent.
/// The SAT engine's, and `--engine bnb`'s.
pub const INCUMBENT_SHARE: IncumbentShare = IncumbentShare {
    seconds: |limit, nodes| (limit * 0.05).min((nodes as f64 * 0.001).max(0.05)),
    patience: Some(crate::list::INCUMBENT_PATIENCE),
};

/// The SAT engine (sat/): order encoding, lazy memory cuts, probes on the
/// makespan.
#[derive(Clone, Copy, Debug, Default)]
pub struct SatEngine {
    /// Give up at this share of the time when no probe has been answered
    /// (the portfolio's setting; `None` when SAT runs alone).
    pub first_answer_share: Option<f64>,
    /// Hand back when a probe below the top runs out of its share (the
    /// portfolio's setting: the tabu search then gets a turn).
    pub hand_back_when_stuck: bool,
    /// No bound probes from below (`sat::Policy::bound_probes`): the
    /// portfolio's setting where core orders decide the schedule.
    pub no_bound_probes: bool,
}

impl Engine for SatEngine {
    fn name(&self) -> &'static str {
        "sat"
    }
    fn search(&self, ctx: &Context, incumbent: SolveResult) -> SolveResult {
        if incumbent.status.is_settled() {
            return incumbent;
        }
        let policy = crate::sat::Policy {
            first_answer_by: self.first_answer_share.map(|f| ctx.deadline.at_share(f)),
            hand_back_when_stuck: self.hand_back_when_stuck,
            bound_probes: !self.no_bound_probes,
        };
        crate::sat::search_certified(
            ctx.inst,
            &ctx.deadline,
            ctx.bounds,
            incumbent,
            policy,
            ctx.opts.memory_limit_mib,
            crate::sat::Outputs {
                certify: ctx.opts.certify.as_deref(),
                events: &ctx.opts.events,
            },
        )
    }
    fn certifies(&self) -> bool {
        true
    }
    fn incumbent_share(&self) -> Option<IncumbentShare> {
        Some(INCUMBENT_SHARE)
    }
}
