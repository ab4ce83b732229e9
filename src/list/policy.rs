//! The list engine's policy: how it splits its time between its phases,
//! and when it gives up, in one place, each with its reason (models/list.md
//! describes the phases; results/policy.md the measurements).

use std::time::Duration;

/// What the list engine decides by.
pub struct Policy {
    /// The first phase's share of the time (the deterministic rules and
    /// forward-backward), `large_first_share` above `large_nodes` nodes: on
    /// graphs of hundreds of thousands of nodes a pass takes a good part of
    /// a second, a tiling move (several passes) is then rarely evaluated in
    /// time, while the first phase still gains.
    pub first_share: f64,
    pub large_first_share: f64,
    pub large_nodes: usize,
    /// The tiling repair's share of what is left when both starting tiling
    /// choices deadlocked.
    pub repair_share: f64,
    /// The tiling search's share of the time left after the first phase.
    /// Its quick evaluations gain little after the first seconds, where the
    /// warm moves after it judge a move at the level forward-backward takes
    /// it and still keep moves when their share ends (the measurements:
    /// results/archive/medium-tight-ab-drawn-moves.md).
    pub tiling_search_share: f64,
    /// The memory-blind order fitted to memory (a guide where no frugal
    /// order fits): at most this share of the time left, with at least
    /// `fitted_least` left (a first schedule comes before it), on graphs
    /// of at most `fitted_max_nodes` nodes (about 40 bytes a node while
    /// fitting).
    pub fitted_share: f64,
    pub fitted_least: Duration,
    pub fitted_max_nodes: usize,
    /// The searched serial order (a guide where neither a frugal nor a
    /// fitted order fits): at most this share of the time left and this
    /// many steps a node (plus 100), with the fitted orders' limits.
    pub searched_share: f64,
    pub searched_steps: u64,
    /// Patience of the incumbent step of the exact engines and the
    /// portfolio (`ListOptions::patience`): small graphs stall within
    /// milliseconds; large ones, or ones still improving, reach their time
    /// share.
    pub incumbent_patience: usize,
    /// Above this many nodes, where memory is the bottleneck (its area bound
    /// at least the core load bound: `Searcher::with_costly`), the parallel
    /// mode runs only with keys from a schedule (the memory-reserving mode
    /// makes the same starts while its reservations do not bind), and the
    /// first phase starts with the guide's order in the unguarded modes,
    /// then forward-backward from the best schedule so far: there a
    /// deadlocked parallel pass spends seconds trying every ready node at
    /// each instant nothing runs, and the rules' guarded passes from the
    /// serial guide end ten times above what forward-backward reaches, so
    /// that the first phase's share could end on the serial schedule
    /// (results/policy.md).
    pub costly_free_nodes: usize,
    /// The insertion search (`Searcher::insertion_search`, before sampling
    /// where memory can bind): it hands the time back to sampling after
    /// `insertion_patience` op moves in a row without a shorter schedule,
    /// or once it has had `insertion_trial` moves or `insertion_trial_share`
    /// of the time left while still more than 5 % above the parallel
    /// scheme's best (where op-contiguous lists interleave ops less well
    /// than the scheme's passes, results/policy.md).
    pub insertion_patience: usize,
    pub insertion_trial: usize,
    pub insertion_trial_share: f64,
    /// Where the insertion search's best is the engine's best when it
    /// stalls, it kicks its best op order (`insertion_kick_moves` block
    /// moves at once) and descends again with `insertion_kick_patience`,
    /// until the deadline (iterated local search): where it leads, its first
    /// descent stalls long before the deadline and the parallel scheme's
    /// sampling that had the rest found nothing shorter (results/policy.md).
    pub insertion_kick_moves: usize,
    pub insertion_kick_patience: usize,
    /// The node-level descent (`Searcher::node_descent`, where no
    /// op-contiguous list completes) stops after this many node moves in a
    /// row without a shorter schedule; it runs on graphs of up to
    /// `node_descent_max_nodes` nodes: each move costs a whole pass, and on
    /// larger graphs one node at a time gains too little in the time
    /// (results/policy.md, "Node lists").
    pub node_patience: usize,
    pub node_descent_max_nodes: usize,
    /// Forward-backward improvement under the hold rule
    /// (`Searcher::justify`) stops after this many rounds in a row without
    /// a shorter schedule (the rounds go on past a longer one: on the
    /// medium tight set a descent often falls after one).
    pub justify_rounds: usize,
    /// Where forward-backward's kicks follow the op-level insertion search
    /// in sampling (`Searcher::justify_kicked`), the op-level search's
    /// share of the time left: the kicks gain more (results/archive/medium-tight-ab-justify.md;
    /// the split itself is not tuned).
    pub op_level_share: f64,
    /// The share of those kicks that are join kicks (`joins.rs`: a whole
    /// op and its descendants later, or one and its ancestors earlier, so
    /// that a join's predecessors end closer together); the rest move a
    /// few nodes (results/tight-sides.md, "Join kicks").
    pub join_kick_share: f64,
    /// Where memory binds and the engine has the time to itself, the share
    /// of the time after the tiling search that goes to tiling moves judged
    /// from the best schedule (`tiling_search::warm_moves`) before sampling
    /// and forward-backward's kicks on the final choice, which gain less
    /// (results/archive/medium-tight-ab-warm-moves.md; the split is not tuned).
    pub warm_moves_share: f64,
    /// Insertion passes only up to this many nodes: a pass holds about 60
    /// bytes a node beside the graph (starts, slots, pending counts, the
    /// list), and at 3 x 10^6 nodes the whole command with a pass already
    /// peaks near 1 GB, the competition's memory (results/archive/lanes-large-ab-insertion-first.md).
    pub insertion_max_nodes: usize,
}

/// The list engine's policy.
pub const POLICY: Policy = Policy {
    first_share: 0.35,
    large_first_share: 0.7,
    large_nodes: 300_000,
    repair_share: 0.5,
    tiling_search_share: 0.25,
    fitted_share: 0.3,
    fitted_least: Duration::from_millis(500),
    fitted_max_nodes: 2_000_000,
    searched_share: 0.15,
    searched_steps: 100,
    incumbent_patience: 200,
    costly_free_nodes: 200_000,
    insertion_patience: 1000,
    insertion_trial: 300,
    insertion_trial_share: 0.25,
    insertion_kick_moves: 4,
    insertion_kick_patience: 300,
    node_patience: 5_000,
    node_descent_max_nodes: 5_000,
    justify_rounds: 8,
    op_level_share: 0.3,
    join_kick_share: 0.75,
    warm_moves_share: 0.7,
    insertion_max_nodes: 3_000_000,
};

impl Policy {
    /// The first phase's share for a graph of `nodes` nodes.
    pub fn first_share(&self, nodes: usize) -> f64 {
        if nodes > self.large_nodes {
            self.large_first_share
        } else {
            self.first_share
        }
    }
}
