//! The runner's policy: the time shares of the bounds proven before every
//! search and of the steps written once, in one place, each with its
//! reason. The measurements behind the values are in results/policy.md.

use std::time::Duration;

/// What the runner decides by.
pub struct Policy {
    /// Share of the time `strengthen` takes (the relaxation, its checked
    /// choices, the window net), at most `strengthen_effort` of the
    /// thread's CPU time: the combinations refuted there raise the bound
    /// and spare the searches answers on choices without a schedule, and a
    /// smaller share lost them on a slower moment of the machine.
    pub strengthen_share: f64,
    pub strengthen_effort: Duration,
    /// Share of `strengthen`'s time the relaxation's choices are checked
    /// on: the last solve and the window net keep the rest.
    pub checks_share: f64,
    /// Most times `tiling_choice_bound` solves the relaxation.
    pub choice_rounds: usize,
    /// Share of the time `refute_choices` takes, and at most this effort:
    /// the refutations that raise a bound come early, while passes that
    /// refute nothing useful run to their limit.
    pub refute_share: f64,
    pub refute_effort: Duration,
    /// The window net's time in the starting bounds and the incumbent step
    /// (at most `window_share` of the time there): its cheap levels,
    /// propagation and a round of shaving. The SAT engine shaves further
    /// when its probes get hard (`sat::descent`).
    pub window_quick: Duration,
    pub window_share: f64,
    /// Time left below which an unfinished search does not hand what is
    /// left to list scheduling (`steps::list_for_the_rest`):
    /// `least_rest_floor` plus `least_rest_node` a node, at most
    /// `least_rest`: list scheduling from an incumbent keeps a deadline of a
    /// few microseconds a node, and on a hundred nodes the last 0.4 s of a
    /// one-second solve are hundreds of its passes, which a flat half
    /// second threw away (results/policy.md).
    pub least_rest: Duration,
    pub least_rest_floor: Duration,
    pub least_rest_node: Duration,
    /// The incumbent step's second run, where its share found no schedule
    /// for want of time: this share of the time left (`steps::incumbent`).
    /// An exact engine without an incumbent models the whole horizon, and
    /// the engines' own shares are small (the MILP's 0.05 s at 20 s).
    pub incumbent_retry: f64,
}

/// The runner's policy.
pub const POLICY: Policy = Policy {
    strengthen_share: 0.15,
    strengthen_effort: Duration::from_secs(2),
    checks_share: 0.8,
    choice_rounds: 50,
    refute_share: 0.05,
    refute_effort: Duration::from_millis(500),
    window_quick: Duration::from_millis(40),
    window_share: 0.1,
    least_rest: Duration::from_millis(500),
    least_rest_floor: Duration::from_millis(20),
    least_rest_node: Duration::from_micros(2),
    incumbent_retry: 0.25,
};

impl Policy {
    /// The least time left for `steps::list_for_the_rest` on a node graph
    /// of up to `nodes` nodes.
    pub fn least_rest_for(&self, nodes: u64) -> Duration {
        let per_node = self
            .least_rest_node
            .saturating_mul(u32::try_from(nodes).unwrap_or(u32::MAX));
        (self.least_rest_floor + per_node).min(self.least_rest)
    }
}
