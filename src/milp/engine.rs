//! The MILP engine behind the [`Engine`] interface.

use super::MilpOptions;
use crate::engine::{Context, Engine, IncumbentShare};
use crate::solve::SolveResult;

/// The MILP engine (milp/): tiling combinations solved with HiGHS.
#[derive(Clone, Debug, Default)]
pub struct MilpEngine {
    pub options: MilpOptions,
}

impl Engine for MilpEngine {
    fn name(&self) -> &'static str {
        "milp"
    }
    fn search(&self, ctx: &Context, incumbent: SolveResult) -> SolveResult {
        crate::milp::search(
            ctx.inst,
            ctx.opts,
            &self.options,
            &ctx.deadline,
            ctx.bounds,
            incumbent,
        )
    }
    fn exports_models(&self) -> bool {
        true
    }
    fn incumbent_share(&self) -> Option<IncumbentShare> {
        // A five-hundredth of the time, 50-500 ms, without patience: the
        // MILP improves incumbents slowly, so a better MIP start pays.
        Some(IncumbentShare {
            seconds: |limit, _| (limit * 0.002).clamp(0.05, 0.5),
            patience: None,
        })
    }
}
