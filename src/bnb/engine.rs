//! The depth-first search behind the [`Engine`] interface.

use crate::engine::{Context, Engine, IncumbentShare};
use crate::solve::SolveResult;

/// Largest node graph (over tiling choices) the search takes on: it finds
/// packings on hundreds of nodes and ends above list scheduling's makespans
/// from a thousand on (results/policy.md); above this, list scheduling
/// gets the time.
pub const MAX_NODES: u64 = 5_000;

/// `--engine bnb`: targets from the lower bound up, each a depth-first
/// search (models/bnb.md §6).
#[derive(Clone, Copy, Debug, Default)]
pub struct BnbEngine;

impl Engine for BnbEngine {
    fn name(&self) -> &'static str {
        "bnb"
    }
    fn search(&self, ctx: &Context, incumbent: SolveResult) -> SolveResult {
        if incumbent.status.is_settled() || !ctx.inst.ops_without_usable_tiling().is_empty() {
            return incumbent;
        }
        let nodes = ctx.inst.max_nodes();
        if nodes > MAX_NODES {
            let mut r = incumbent;
            r.note(format!(
                "bnb: {nodes} nodes, above its {MAX_NODES}: the search is left out (list \
                 scheduling uses the time)"
            ));
            return r;
        }
        let p = super::Problem::new(ctx.inst);
        super::engine_search(ctx, &p, incumbent, false)
    }
    /// As the SAT engine's (`sat::engine::INCUMBENT_SHARE`).
    fn incumbent_share(&self) -> Option<IncumbentShare> {
        Some(crate::sat::engine::INCUMBENT_SHARE)
    }
}
