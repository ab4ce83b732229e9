//! One schedule type for every engine, its text format (problem.md §5) and its
//! validator (problem.md §4).

mod check;
mod cores;
mod io;
mod usage;

pub use check::{
    Report, Rule, Violation, Violations, check, check_outcome, check_outcome_with_usage,
    check_reader, check_reader_with_usage, legal_schedule, memory_profile,
};
pub use cores::{CoreShortage, assign_cores};
pub use io::{
    ReadOutcome, Row, parse_rows, read_schedule, read_schedule_until, rows_of, schedule_from_rows,
    write_rows, write_schedule,
};
pub use usage::{Chain, CoreUse, MemoryUse, Past, Usage, usage};

use crate::graph::NodeGraph;

/// A complete schedule: a tiling per op, and per node of the resulting node graph
/// a start time and a core id within the node's core type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Library tiling chosen for each op.
    pub choice: Vec<u32>,
    /// Indexed by node of `NodeGraph::new(inst, choice)`.
    pub start: Vec<u64>,
    pub core: Vec<u32>,
}

impl Schedule {
    /// A schedule of an engine that keeps at most `CoreNum` nodes of a
    /// type running at each instant: its tiling choice and starts, with core
    /// ids by interval colouring (`assign_cores`). `dur(i)` and `core_type(i)`
    /// describe start `i`. A shortage of cores would be the engine's bug:
    /// every node then keeps core 0 and the validator rejects the schedule
    /// (an internal error, never output).
    pub fn with_cores(
        inst: &crate::instance::Instance,
        choice: Vec<u32>,
        start: Vec<u64>,
        dur: impl Fn(usize) -> u64,
        core_type: impl Fn(usize) -> usize,
    ) -> Schedule {
        let counts: Vec<u32> = inst.platform.cores.iter().map(|c| c.count).collect();
        let core =
            assign_cores(&start, dur, core_type, &counts).unwrap_or_else(|_| vec![0; start.len()]);
        Schedule {
            choice,
            start,
            core,
        }
    }

    /// The latest end, in u128 because start + ExecTime may exceed u64 (problem.md §6).
    pub fn makespan(&self, g: &NodeGraph) -> u128 {
        (0..g.n_nodes())
            .map(|v| end(self.start[v], g.dur(v as u32)))
            .max()
            .unwrap_or(0)
    }
}

/// End of a node that starts at `start` and runs `dur`, without overflow.
#[inline]
pub fn end(start: u64, dur: u64) -> u128 {
    u128::from(start) + u128::from(dur)
}

/// Per op of `g`, the latest end of its sinks under `start` (one start per
/// node); `None` for an op without nodes (an empty tiling).
pub fn op_ends(g: &NodeGraph, start: &[u64]) -> Vec<Option<u128>> {
    (0..g.n_ops() as u32)
        .map(|op| g.sinks(op).map(|v| end(start[v as usize], g.dur(v))).max())
        .collect()
}
