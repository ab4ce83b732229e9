//! The engine choice and the time budget of one solve, shared by `tmin solve`
//! and `tmin bench`: both run exactly this code path, so a bench line says what
//! `tmin solve` would have said with the same settings.

use std::time::{Duration, Instant};

use crate::instance::Instance;
use crate::list::priority::Rule;
use crate::milp::MilpOptions;
use crate::solve::{SolveOptions, SolveResult};

/// Which engine `--engine` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineChoice {
    Auto,
    List,
    Milp,
    Sat,
    /// One pass of one priority rule.
    Greedy(Rule),
}

impl EngineChoice {
    /// The `--engine` value (the greedy rule is not part of it).
    pub fn name(self) -> &'static str {
        match self {
            EngineChoice::Auto => "auto",
            EngineChoice::List => "list",
            EngineChoice::Milp => "milp",
            EngineChoice::Sat => "sat",
            EngineChoice::Greedy(_) => "greedy",
        }
    }
}

/// Time kept back from the engines for what follows them: the final
/// validation in `SolveResult::found`, the node graph and `write_schedule`,
/// and the summary. Measured at 10^6 nodes (`tmin gen --ops 10000 --nodes
/// 100-100 --seed 1`, three runs, results/sat-budget.md): validation 160-205
/// ns a node, node graph and writing 96-158 ns a node, the summary nothing
/// to speak of; the reserve is three times 350 ns a node, plus 20 ms.
pub fn output_reserve(nodes: u64) -> Duration {
    const MEASURED_NS_PER_NODE: u64 = 350;
    Duration::from_millis(20) + Duration::from_nanos(nodes.saturating_mul(3 * MEASURED_NS_PER_NODE))
}

/// What the engines get when the whole command must end by `end`: what is
/// left, less the reserve for validating and writing.
pub fn engine_budget(inst: &Instance, end: Instant) -> Duration {
    let reserve = output_reserve(crate::portfolio::max_nodes(inst));
    end.saturating_duration_since(Instant::now())
        .saturating_sub(reserve)
}

/// Runs the chosen engine.
pub fn run(
    inst: &Instance,
    engine: EngineChoice,
    opts: &SolveOptions,
    mopts: &MilpOptions,
) -> SolveResult {
    match engine {
        EngineChoice::Auto => crate::portfolio::solve(inst, opts, mopts),
        EngineChoice::List => crate::list::solve(inst, opts),
        EngineChoice::Milp => crate::milp::solve(inst, opts, mopts),
        EngineChoice::Sat => crate::sat::solve(inst, opts),
        EngineChoice::Greedy(rule) => crate::list::greedy(inst, opts, rule),
    }
}
