//! The SAT engine's policy: the time shares of its descent and of its
//! choice search, in one place, each with its reason. The measurements
//! behind the values are in results/policy.md.

use std::time::Duration;

/// What the makespan descent (`descent`) decides by.
pub struct DescentPolicy {
    /// Most time the window net's destructive bound takes when a probe
    /// first runs out of time (at most `window_bound_share` of what is
    /// left).
    pub window_bound_time: Duration,
    pub window_bound_share: f64,
    /// Time each probed makespan's windows may spend shaving once the
    /// descent escalated: the last probe's time within these limits, and at
    /// most `window_shave_share` of what is left.
    pub window_shave_least: Duration,
    pub window_shave_most: Duration,
    pub window_shave_share: f64,
    /// Where lazy cuts take the encoding over the memory budget, it is
    /// built again for the makespans still asked when their horizon is at
    /// most this share of the encoding's (its order variables and clauses
    /// shrink with the windows; the cuts and what the solver learned are
    /// lost): a descent far below its first horizon goes on instead of
    /// stopping.
    pub reencode_share: f64,
}

/// The descent's policy.
pub const DESCENT: DescentPolicy = DescentPolicy {
    window_bound_time: Duration::from_secs(5),
    window_bound_share: 0.1,
    window_shave_least: Duration::from_millis(20),
    window_shave_most: Duration::from_secs(2),
    window_shave_share: 0.05,
    reencode_share: 0.75,
};

/// What the choice search (`choices`) decides by, beside its options
/// (`choices::ChoiceOptions`, which the caller sets per pass).
pub struct ChoicePolicy {
    /// Proposals at one level after which the early level pass hands its
    /// time back (`Pass::EarlyLevels`): where levels hold few choices it
    /// proves what the searches below the incumbent do not; where they
    /// hold many, the bound climbs slowly and the descent proves more.
    pub early_level_choices: usize,
    /// Answers' time of the first choice at a level over the shared
    /// encoding: it is the likeliest to hold a schedule, and left
    /// undecided on a slower moment it sends the pass through the level.
    pub first_at_level: u32,
    /// Least and most time of the window net's check of a choice: half an
    /// answer's time within these. Where propagation alone refutes nothing
    /// it shaves, which with the memory timetables refutes much of what is
    /// left, and costs its time on every choice it does not refute.
    pub net_time: (Duration, Duration),
    /// Most time the shared encoding's memory triples take up front.
    pub triples_time: Duration,
    /// Most bytes of the shared encoding: beyond, choices are decided alone
    /// (a smaller encoding answers faster).
    pub shared_budget: u64,
}

/// The choice search's policy.
pub const CHOICES: ChoicePolicy = ChoicePolicy {
    early_level_choices: 150,
    first_at_level: 4,
    net_time: (Duration::from_millis(10), Duration::from_millis(400)),
    triples_time: Duration::from_secs(1),
    shared_budget: 256 << 20,
};
