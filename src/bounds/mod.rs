//! The bounds layer: every lower-bound argument tmin proves without a
//! solver, each in its own file that opens with the section of
//! models/bounds.md proving it, and the data every engine starts from.
//!
//! - `combinatorial`: critical path, core loads, head-body-tail, Jackson's
//!   preemptive bound, memory areas (models/bounds.md §1-5), over `heads`
//!   (op heads and tails, intra-tiling paths, the one-resource bounds);
//! - `coupled`: core loads and memory areas coupled by the tiling choice
//!   (§5a), part of the combinatorial bounds;
//! - `energetic`: energetic reasoning (§8);
//! - `relaxation`: the tiling-choice relaxation's rows and their exact
//!   enumeration (§6; its MILP is `milp::aggregate`);
//! - `windows`, `theta`, `timetable`: the window net's propagation (§7; its
//!   destructive bound over a SAT model is `sat::windows`);
//! - `nogoods`: tiling choices refuted before search (models/sat.md §1.2;
//!   proven by `sat::context`).
//!
//! Where an argument needs a solver (the relaxation's MILP, refutation by
//! SAT, the window net over a model) its step lives with that solver, and
//! the pipeline that runs them all is `pipeline::bounds`; models/README.md
//! indexes every argument to its section, its code and its test.

pub mod combinatorial;
pub mod coupled;
pub mod energetic;
pub mod heads;
pub mod nogoods;
pub mod relaxation;
pub mod theta;
pub mod timetable;
pub mod windows;

use nogoods::TilingNogoods;

/// One named lower bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    pub value: u64,
    /// Which argument, e.g. "critical path", "core type 2 load".
    pub source: String,
}

/// What `check --bound` tells of a legal schedule (`tmin check`,
/// `tmin.check`; `pipeline::bounds::schedule_bounds`): the instance's best
/// proven bound, and the bound for the schedule's own tilings
/// (`combinatorial::ChoiceBounds::at_least`: the choice's own, or the
/// instance's where that is higher, as it holds for them too): how far the
/// schedule's order alone may be from the best with these tilings.
#[derive(Clone, Debug)]
pub struct ScheduleBounds {
    pub instance: Bound,
    pub tilings: Bound,
}

/// All bounds computed for an instance, and the best one.
#[derive(Clone, Debug)]
pub struct Bounds {
    pub all: Vec<Bound>,
    pub best: Bound,
    /// Per op: longest chain of ops that must run before it (sum of minimal
    /// critical paths), and after it.
    pub op_head: Vec<u64>,
    pub op_tail: Vec<u64>,
    /// Tiling choices refuted before search (models/sat.md §1.2): every bound
    /// after them ranges over what is left, and so do the exact engines.
    pub nogoods: TilingNogoods,
}

impl Bounds {
    /// Adds a bound proven elsewhere (e.g. the tiling-choice relaxation,
    /// models/bounds.md §6); it becomes the best when it is larger.
    pub fn add(&mut self, b: Bound) {
        if b.value > self.best.value {
            self.best = b.clone();
        }
        self.all.push(b);
    }
}
