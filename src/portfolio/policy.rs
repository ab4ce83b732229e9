//! The portfolio's policy: every size threshold and time share `--engine
//! auto` decides by, in one place, each with its reason. The measurements
//! behind the values are in results/policy.md; a change to a value is
//! measured there (`scripts/bench-ab` on the memtight, jsplib and medium sets of instances/sets).

use std::time::Duration;

use crate::engine::IncumbentShare;
use crate::stop::Deadline;

/// What the portfolio decides by.
pub struct Policy {
    /// Largest node graph (over tiling choices) handed to the exact
    /// engines; above it, list scheduling alone (their encodings and models
    /// outgrow memory and time there).
    pub exact_max_nodes: u64,
    /// Largest node graph for which the SAT engine gets all the remaining
    /// time (above it, part goes to list scheduling and the MILP).
    pub sat_all_nodes: u64,
    /// Largest node graph for which the time-window neighbourhood search
    /// runs where the whole SAT encoding does not fit: it improves mid-size
    /// memory-tight schedules, and found nothing on thousands of nodes,
    /// where list scheduling uses the time better.
    pub window_lns_nodes: u64,
    /// The time-window search's share where it runs instead of the whole
    /// encoding: it stops earlier on a stall it cannot kick, and list
    /// scheduling gets the rest.
    pub window_lns_share: f64,
    /// The incumbent step: list scheduling on a share of the time that
    /// grows with the instance (the exact engines rarely beat a good
    /// incumbent on large instances, and their proofs need a tight one).
    pub incumbent: IncumbentShare,
    /// The choice search's share of the time left, below the incumbent.
    pub choice_share: f64,
    /// An incumbent within this fraction above the bound has the level
    /// enumeration run before the SAT round (`memory_round`): near the
    /// bound it climbs the levels faster than the round's probes below the
    /// incumbent are answered.
    pub levels_near: f64,
    /// Near the bound (`levels_near`), the share of the time left for a
    /// SAT round before the level enumeration: its first probe, one unit
    /// below the incumbent over every tiling choice at once, proves an
    /// optimal incumbent where a choice the enumeration leaves undecided
    /// holds its level.
    pub near_probe_share: f64,
    /// Where the level enumeration follows a SAT round, the share of the
    /// round's time after which a round with no probe answered hands back
    /// (else a half): the enumeration needs the time.
    pub first_answer_before_levels: f64,
    /// The early level pass runs where the incumbent is within this
    /// fraction above the bound.
    pub early_levels_near: f64,
    /// Largest node graph the choice search runs on: beyond it no choice
    /// is decided in its time, which list scheduling and the MILP use
    /// better.
    pub choice_nodes: u64,
    /// The level enumeration's share of what the time-window search leaves.
    pub levels_share: f64,
    /// The neighbourhood search's share of what a SAT round hands back (the
    /// choice search gets the rest).
    pub lns_after_share: f64,
    /// The neighbourhood search's share of the SAT engine's time before its
    /// round, where memory binds (it stops earlier when neighbourhoods stop
    /// paying).
    pub lns_first_share: f64,
    /// The first SAT round on core orders: a first answer within this share
    /// of the time left (at least `first_answer_least`, at most half),
    /// else the tabu search gets its turn.
    pub first_answer_share: f64,
    pub first_answer_least: Duration,
    /// The depth-first search at the bound (models/bnb.md) runs first where
    /// some memory type's least area fills at least this share of its
    /// capacity up to the bound: there it may leave almost no memory free,
    /// which keeps it narrow (the lanes family: 1.0; memtight at most 0.75,
    /// medium at most 0.26, where it finds nothing the list engine does not).
    pub bnb_packed: f64,
    /// Largest node graph it runs on (it finds no packing in its time on
    /// the lanes family's 400 nodes and more).
    pub bnb_nodes: u64,
    /// Its share of the time left.
    pub bnb_share: f64,
    /// It runs for this long first (at most its share), then the natural
    /// choice is decided at the bound's level
    /// (`pipeline::steps::natural_at_bound`) on `natural_share` of the
    /// time left, at most `natural_time` (of the thread's CPU, at most
    /// twice that on the wall clock: on a machine loaded twice over, a
    /// wall-clock budget left lanes-150-m2's answer undecided), then it
    /// runs again on its share:
    /// in the lanes family the fastest tilings fill memory exactly, and the
    /// depth-first search finds their packing on some seeds only, where on
    /// others it finds a packing in a fraction of a second that the natural
    /// choice's answer needs seconds for
    /// (results/archive/lanes-ab-natural-probe.md).
    pub bnb_first_time: Duration,
    pub natural_share: f64,
    pub natural_time: Duration,
}

/// `--engine auto`'s policy.
pub(super) const POLICY: Policy = Policy {
    exact_max_nodes: 5_000,
    sat_all_nodes: 500,
    window_lns_nodes: 1_000,
    window_lns_share: 0.8,
    // 5 % of the time plus 1 % per 40 nodes, at most 30 %, 20 ms to 30 s;
    // cut short when list scheduling stalls.
    incumbent: IncumbentShare {
        seconds: |limit, nodes| {
            let frac = (0.05 + nodes as f64 / 4000.0).min(0.3);
            (limit * frac).clamp(0.02, 30.0)
        },
        patience: Some(crate::list::INCUMBENT_PATIENCE),
    },
    choice_share: 0.4,
    levels_near: 0.06,
    near_probe_share: 0.2,
    first_answer_before_levels: 0.25,
    early_levels_near: 0.1,
    choice_nodes: 1_000,
    levels_share: 0.7,
    lns_after_share: 0.5,
    lns_first_share: 0.15,
    first_answer_share: 0.02,
    first_answer_least: Duration::from_secs(1),
    bnb_packed: 0.9,
    bnb_nodes: 400,
    bnb_share: 0.5,
    bnb_first_time: Duration::from_secs(1),
    natural_share: 0.1,
    natural_time: Duration::from_secs(4),
};

impl Policy {
    /// The first SAT round's time for a first answer, within `deadline`.
    pub fn first_answer_time(&self, deadline: &Deadline) -> Duration {
        let left = deadline.remaining();
        left.mul_f64(self.first_answer_share)
            .max(self.first_answer_least)
            .min(left / 2)
    }
}
