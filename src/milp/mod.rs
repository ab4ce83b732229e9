//! The exact MILP engine (HiGHS through good_lp). Being written: see issue 4.

use std::path::PathBuf;

use crate::instance::Instance;
use crate::solve::{SolveOptions, SolveResult};

/// Which formulation to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formulation {
    /// Pick by horizon and size, and log why.
    Auto,
    /// Binaries x[v,t] for start times.
    TimeIndexed,
    /// Start variables and ordering binaries between conflicting nodes.
    Disjunctive,
}

/// MILP-specific options.
#[derive(Clone, Debug)]
pub struct MilpOptions {
    pub formulation: Formulation,
    /// Write .lp/.mps models here.
    pub export_dir: Option<PathBuf>,
}

impl Default for MilpOptions {
    fn default() -> Self {
        MilpOptions {
            formulation: Formulation::Auto,
            export_dir: None,
        }
    }
}

/// Solves with the MILP engine (list scheduling gives the incumbent).
pub fn solve(inst: &Instance, opts: &SolveOptions, _mopts: &MilpOptions) -> SolveResult {
    let mut r = crate::list::solve(inst, opts);
    r.note("MILP engine not yet available: list scheduling result");
    r
}
