//! One schedule type for every engine, its text format (problem.md §5) and its
//! validator (problem.md §4).

mod check;
mod cores;
mod io;

pub use check::{Report, Rule, Violation, Violations, check, check_reader, memory_profile};
pub use cores::{CoreShortage, assign_cores};
pub use io::{ReadOutcome, read_schedule, read_schedule_until, write_schedule};

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
