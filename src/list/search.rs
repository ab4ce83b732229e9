//! Passes of the scheme for one tiling choice: which mode, which keys, and
//! the improvement loops around them (forward-backward, sampling).
//!
//! Where memory cannot bind, every pass is an ordinary parallel pass. Where it
//! can, the searcher first builds a guide from a memory-frugal op order (its
//! serial schedule is the first incumbent, so a schedule exists before any
//! search), then tries parallel passes while they keep succeeding and falls
//! back to passes guarded by the guide, which cannot deadlock. Once a schedule
//! is known, the guide follows the best schedule's own start order: a legal
//! schedule's order is a guide (unless a zero-duration node starts with one
//! of its successors, models/list.md), and one close to a good schedule
//! leaves the guard the most room.

use crate::graph::NodeGraph;
use crate::schedule::Schedule;
use crate::solve::Progress;
use crate::stop::Deadline;

use super::Found;
use super::backward;
use super::frugal;
use super::justify;
use super::policy::POLICY;
use super::priority::{self, Paths, Rng, Rule, keys, perturb};
use super::sgs::{self, Deadlock, Guide, Mode, Model, Stop};
use super::tiling::OpPeaks;

/// The unguarded modes, tried in this order before a guarded pass: fewer ops
/// in flight deadlock less often and keep more parallelism than the guard.
#[derive(Clone, Copy)]
enum Free {
    Parallel,
    Reserve,
    Window(u32),
    /// The hand-over reserve, last and only until the searcher has a
    /// schedule: a first one where memory traps every other greedy mode,
    /// which the guarded pass alone may complete far from the optimum;
    /// later passes keep to the other modes (models/list.md, "Hand-over
    /// reserve", says why).
    HandOver,
}
const FREE_MODES: [Free; 5] = [
    Free::Parallel,
    Free::Reserve,
    Free::Window(8),
    Free::Window(2),
    Free::HandOver,
];

fn mode_name(m: Mode) -> String {
    match m {
        Mode::Parallel => "parallel".into(),
        Mode::HandOver => "hand-over reserving".into(),
        Mode::Window(k) => format!("window {k}"),
        Mode::Reserve(_) => "memory-reserving".into(),
        Mode::Guarded(_) => "guarded".into(),
    }
}

/// What the unguarded modes of one pass gave.
enum Unguarded {
    Found(u64),
    /// Every mode tried deadlocked (or none was worth trying).
    Deadlocked,
    /// The deadline passed, or a time overflowed.
    Stopped,
}

/// Per unguarded mode (`FREE_MODES`): passes that succeeded, deadlocked, and
/// were considered. Carried from one tiling choice to the next: whether
/// memory traps greedy passes changes little with a few tilings.
pub type FreeStats = [(usize, usize, usize); FREE_MODES.len()];

/// How far the insertion search moves a block of ops in the op order.
const OP_MOVE: usize = 8;

/// The insertion search's random stream where it runs in the deterministic
/// passes (costly graphs): a fixed one, so that those passes stay a function
/// of the graph.
const INSERTION_SEED: u64 = 0x696e_7365_7274;

/// Above this many nodes the static paths are not kept between rules.
const KEEP_PATHS_UP_TO: usize = 2_000_000;

/// Searches schedules for one tiling choice.
pub struct Searcher<'g, 'a> {
    g: &'g NodeGraph<'a>,
    md: Model<'g, 'a>,
    paths: Option<Paths>,
    guide: Option<Guide>,
    /// What the guide follows (for the notes).
    guide_kind: String,
    /// Both frugal orders ran out of memory serially (tried once).
    no_guide: bool,
    /// Whether a guide may come from a searched serial order where every
    /// greedy one traps memory (`search_serial_orders`).
    searched: bool,
    /// Per unguarded mode: (succeeded, deadlocked, asked).
    free_stats: FreeStats,
    /// A large graph where memory is the bottleneck (`with_costly`).
    costly: bool,
    /// Serial peaks of the ops' tilings (the reserving mode), when first needed.
    peaks: Option<OpPeaks>,
    pub best: Option<Found>,
    pub passes: usize,
    /// Passes whose parallel attempt deadlocked on memory.
    pub deadlocks: usize,
    pub last_deadlock: Option<Deadlock>,
    /// A pass was abandoned at the deadline.
    pub timed_out: bool,
    /// A pass other than a guide's serial one has produced a schedule.
    parallel_found: bool,
    /// The deadline of the first guarded pass while no parallel schedule is
    /// known (see `first_guarded_pass_until`).
    first_guarded: Option<Deadline>,
    /// The guide's serial order as keys, until `deterministic` has used it
    /// (kept only up to `KEEP_PATHS_UP_TO` nodes).
    guide_order: Option<Vec<u64>>,
    /// The memory-frugal op order, once `first_schedule` has computed it
    /// (the insertion search starts from it; O(ops x 256) to compute again).
    frugal_ops: Option<Vec<u32>>,
    /// The list of the shortest pass of forward-backward's rounds under the
    /// hold rule from the best schedule, where they found nothing shorter
    /// (`justify_from`): the kicks' base where the best schedule has no
    /// list of its own (`Found::list`: a warm start, another pass's
    /// schedule).
    kick_base: Option<Vec<u32>>,
}

/// Whether the insertion scheme's makespan `ms` comes within 5 % of `best`:
/// the test by which the insertion passes keep the time (the search's trial)
/// and judge tiling moves (`Run::insertion_competitive`, the tiling search).
pub(super) fn near_best(ms: u64, best: u64) -> bool {
    ms <= best.saturating_add(best / 20)
}

/// An op order with a block of one to four consecutive ops of `ops` moved by
/// up to `OP_MOVE` places, when the op edges allow it (`pos`: scratch, the
/// new positions).
fn block_move(g: &NodeGraph, ops: &[u32], pos: &mut [usize], rng: &mut Rng) -> Option<Vec<u32>> {
    let n_ops = ops.len();
    let len = 1 + rng.below_mod(4).min(n_ops - 1);
    let i = rng.below_mod(n_ops - len + 1);
    let j = i.saturating_sub(OP_MOVE) + rng.below_mod(2 * OP_MOVE + 1);
    let j = j.min(n_ops - len);
    if j == i {
        return None;
    }
    let mut next = ops.to_vec();
    let block: Vec<u32> = next.drain(i..i + len).collect();
    next.splice(j..j, block);
    for (k, &o) in next.iter().enumerate() {
        pos[o as usize] = k;
    }
    let moved = if j < i { j..i + len } else { i..j + len };
    let breaks = next[moved].iter().any(|&o| {
        g.op_preds(o)
            .iter()
            .any(|&a| pos[a as usize] > pos[o as usize])
            || g.op_succs(o)
                .iter()
                .any(|&b| pos[b as usize] < pos[o as usize])
    });
    (!breaks).then_some(next)
}

/// Nodes a kick of forward-backward under the hold rule moves at most
/// (`Searcher::justify_kicked`), each as `node_move` does.
const KICK_NODES: usize = 8;

/// Places a node moves by in the node-level descent (`node_move`): the
/// tries of one node by one to this many places.
const NODE_MOVE: usize = 64;

/// One node of a topological node list moved by up to `NODE_MOVE` places
/// in place, where its edges allow (`pos`: each node's index in `list`,
/// kept up to date). The move `(from, to)`, which `shift(list, pos, to,
/// from)` takes back; `None` (the list unchanged) where an edge refuses it.
fn node_move(
    g: &NodeGraph,
    list: &mut [u32],
    pos: &mut [usize],
    rng: &mut Rng,
) -> Option<(usize, usize)> {
    let n = list.len();
    let i = rng.below_mod(n);
    let k = 1 + rng.below_mod(NODE_MOVE);
    let j = if rng.below_mod(2) == 0 {
        i.checked_sub(k)?
    } else {
        Some(i + k).filter(|&j| j < n)?
    };
    let v = list[i];
    let mut free = true;
    if j < i {
        g.for_each_pred(v, |p| free &= pos[p as usize] < j);
    } else {
        g.for_each_succ(v, |s| free &= pos[s as usize] > j);
    }
    if !free {
        return None;
    }
    shift(list, pos, i, j);
    Some((i, j))
}

/// Each node's index in `list` (a permutation of the nodes).
pub(super) fn positions(list: &[u32]) -> Vec<usize> {
    let mut pos = vec![0usize; list.len()];
    for (k, &v) in list.iter().enumerate() {
        pos[v as usize] = k;
    }
    pos
}

/// Moves the node at `from` to `to`, the nodes between one place over.
fn shift(list: &mut [u32], pos: &mut [usize], from: usize, to: usize) {
    let (lo, hi) = (from.min(to), from.max(to));
    if to < from {
        list[lo..=hi].rotate_right(1);
    } else {
        list[lo..=hi].rotate_left(1);
    }
    for k in lo..=hi {
        pos[list[k] as usize] = k;
    }
}

/// The horizon of a search's pass from a schedule of makespan `ms`: some
/// room past it (a node that waits for a later one's release is placed once
/// that one is), within the cells.
fn room(ins: &super::insertion::Insertion, ms: u64) -> u64 {
    ms.saturating_add(ms / 16).min(ins.widest()).max(ms)
}

/// The latest end of an insertion pass's starts (all below its horizon).
fn ends(g: &NodeGraph, start: &[u64]) -> u64 {
    (0..g.n_nodes())
        .map(|v| start[v] + g.dur(v as u32))
        .max()
        .unwrap_or(0)
}

/// Makespan of a schedule built by the scheme, saturated at u64::MAX (only
/// used to compare schedules; the exact value is the schedule's own).
fn makespan_of(g: &NodeGraph, s: &Schedule) -> u64 {
    u64::try_from(s.makespan(g)).unwrap_or(u64::MAX)
}

impl<'g, 'a> Searcher<'g, 'a> {
    pub fn new(g: &'g NodeGraph<'a>) -> Self {
        Searcher {
            g,
            md: Model::new(g),
            paths: None,
            guide: None,
            guide_kind: String::new(),
            no_guide: false,
            searched: false,
            free_stats: FreeStats::default(),
            peaks: None,
            best: None,
            passes: 0,
            deadlocks: 0,
            last_deadlock: None,
            timed_out: false,
            parallel_found: false,
            first_guarded: None,
            guide_order: None,
            frugal_ops: None,
            kick_base: None,
            costly: false,
        }
        .with_costly()
    }

    /// Sets `costly`: a graph above `Policy::costly_free_nodes` nodes where
    /// memory binds and is the bottleneck (`tiling::memory_is_bottleneck`).
    /// Memory-packed instances are such graphs; where cores are the
    /// bottleneck the unguarded modes complete more often and the rules'
    /// passes do better.
    fn with_costly(mut self) -> Self {
        self.costly = self.g.n_nodes() > POLICY.costly_free_nodes
            && !self.md.memory_is_loose()
            && super::tiling::memory_is_bottleneck(self.g);
        self
    }

    /// Lets `first_schedule` search a serial order where every greedy one
    /// traps memory (`serial_search`): for the engine's first schedule,
    /// where it is the last way to one. Left off where many tiling choices
    /// are tried in turn (the tiling search and repair): there a choice
    /// without a greedy guide is passed over, its time better spent on the
    /// next one (results/policy.md).
    pub fn search_serial_orders(&mut self) {
        self.searched = true;
    }

    /// Lets the guarded pass that runs while only a serial schedule is known
    /// go on until `d` (a later deadline than the share a phase is given).
    /// On huge memory-tight graphs every unguarded mode deadlocks and a
    /// guarded pass takes 10-20 s at 10^7 nodes: cut at a phase's share it
    /// is lost work, and the answer stays the serial schedule (several
    /// times the bound); let through, it is the first parallel schedule.
    pub fn first_guarded_pass_until(&mut self, d: &Deadline) {
        self.first_guarded = Some(d.clone());
    }

    /// A searcher that starts with what earlier searches learned about the
    /// unguarded modes.
    pub fn with_stats(g: &'g NodeGraph<'a>, stats: FreeStats) -> Self {
        let mut s = Searcher::new(g);
        s.free_stats = stats;
        s
    }

    /// Hands the guide over (with what it follows), for a later search on
    /// the same tiling choice: building one is a serial pass.
    pub fn take_guide(&mut self) -> Option<(Guide, String)> {
        let gd = self.guide.take()?;
        Some((gd, std::mem::take(&mut self.guide_kind)))
    }

    /// Starts with a guide an earlier search on the same choice built.
    pub fn set_guide(&mut self, (gd, kind): (Guide, String)) {
        self.guide = Some(gd);
        self.guide_kind = kind;
    }

    /// What this search learned about the unguarded modes.
    pub fn free_stats(&self) -> FreeStats {
        self.free_stats
    }

    /// Whether memory can block a start on this graph (where it cannot,
    /// forward-backward under the hold rule does nothing: `justify_setup`).
    pub fn memory_binds(&self) -> bool {
        !self.md.memory_is_loose()
    }

    fn rule_keys(&mut self, rule: Rule) -> Vec<u64> {
        let g = self.g;
        let paths = self.paths.get_or_insert_with(|| Paths::new(g));
        let k = keys(g, paths, rule);
        // Huge graphs: 16 bytes a node are worth more than the second or so
        // it takes to recompute the paths for the next rule.
        if g.n_nodes() > KEEP_PATHS_UP_TO {
            self.paths = None;
        }
        k
    }

    /// Keeps `s` if it is the best so far; returns its makespan.
    fn consider(&mut self, s: Schedule, how: String) -> u64 {
        let ms = makespan_of(self.g, &s);
        if self.best.as_ref().is_none_or(|b| ms < b.makespan) {
            self.best = Some(Found {
                schedule: s,
                makespan: ms,
                how,
                list: None,
            });
            self.kick_base = None;
        }
        ms
    }

    /// Keeps an insertion pass's schedule of makespan `ms` when it is the
    /// best so far and passes the validator (the scheme's argument is
    /// tested, models/list.md; a schedule that failed would be an engine
    /// bug, logged and dropped instead of replacing a legal best).
    fn consider_checked(&mut self, s: Schedule, ms: u64, pass: usize) {
        let _ = self.consider_checked_as(s, ms, || format!("insertion pass {pass}"));
    }

    /// `consider_checked` with the schedule's description; whether `s` is
    /// now the best schedule.
    fn consider_checked_as(&mut self, s: Schedule, ms: u64, how: impl FnOnce() -> String) -> bool {
        if self.best.as_ref().is_some_and(|b| ms >= b.makespan) {
            return false;
        }
        let v = crate::schedule::check(self.g, &s, 1);
        if v.is_empty() {
            self.consider(s, how());
            true
        } else {
            log::error!("an insertion pass broke a rule: {:?}", v.kept);
            false
        }
    }

    /// A large graph where memory binds: see `Policy::costly_free_nodes`.
    fn costly(&self) -> bool {
        self.costly
    }

    fn reached(&self, target: u64) -> bool {
        self.best.as_ref().is_some_and(|b| b.makespan <= target)
    }

    /// Ensures a guide exists, building one from the memory-frugal op order
    /// (else the input op order, else a memory-blind schedule's start order
    /// fitted to memory node by node) the first time; its serial schedule is
    /// offered as a schedule. False when neither order fits memory serially
    /// (`last_deadlock` then names the op and memory type) or time ran out.
    pub fn first_schedule(&mut self, deadline: &Deadline) -> bool {
        if self.guide.is_some() {
            return true;
        }
        if self.no_guide {
            return false;
        }
        for kind in [
            "memory-frugal op order",
            "input op order",
            "memory-blind start order, fitted",
            "searched serial order",
        ] {
            let list = match kind {
                "memory-frugal op order" => frugal::memory_order(self.g, deadline).map(|ops| {
                    let list = frugal::node_list(self.g, &ops);
                    self.frugal_ops = Some(ops);
                    list
                }),
                "input op order" => Some(frugal::node_list(self.g, &frugal::input_order(self.g))),
                "searched serial order" => match self.searched_order(deadline) {
                    Some(list) => Some(list),
                    None if deadline.expired() => None,
                    None => continue,
                },
                _ => match self.blind_order_fitted(deadline) {
                    Some(list) => Some(list),
                    None if deadline.expired() => None,
                    // Every such order trapped memory: no guide from them.
                    None => continue,
                },
            };
            let Some(list) = list else {
                self.timed_out = true;
                return false;
            };
            match Guide::new(&self.md, &list, deadline) {
                Ok((gd, s)) => {
                    self.passes += 1;
                    if self.g.n_nodes() <= KEEP_PATHS_UP_TO {
                        self.guide_order = Some(priority::keys_from_starts(&s.start));
                    }
                    self.consider(s, format!("serial schedule of the {kind}"));
                    self.guide = Some(gd);
                    self.guide_kind = kind.to_string();
                    return true;
                }
                Err(Stop::Deadlock(d)) => {
                    log::debug!("serial pass of the {kind} ran out of memory: {d:?}");
                    self.last_deadlock = Some(d);
                }
                Err(Stop::Deadline) => {
                    self.timed_out = true;
                    return false;
                }
                // Serial passes are not paced: `Behind` cannot happen.
                Err(Stop::Overflow | Stop::Behind) => break,
            }
        }
        self.no_guide = true;
        false
    }

    /// A memory-blind schedule's start order fitted to memory
    /// (`frugal::fitted_order`), from the schedule on all the cores, then on
    /// half of them, then the input op order fitted the same way, then the
    /// schedule on a quarter and an eighth of the cores (fewer ops side by
    /// side), until one fits; on a share of the time left, and only with
    /// enough left (`Policy::fitted_share`, `fitted_least`): where all the
    /// cores trap memory, fewer of them often fit (results/policy.md).
    fn blind_order_fitted(&mut self, deadline: &Deadline) -> Option<Vec<u32>> {
        // About 45 bytes a node while fitting (pending counts per memory type,
        // ranks, the blind schedule): kept off 10^7-node graphs, whose passes
        // already use most of the 1 GiB the engine is held to. A first
        // schedule comes before them: with little time left the other tiling
        // choice's op orders, and the tiling repair, are the better bets.
        if self.g.n_nodes() > POLICY.fitted_max_nodes || deadline.remaining() < POLICY.fitted_least
        {
            return None;
        }
        let budget = deadline.share(POLICY.fitted_share);
        log::debug!(
            "fitted orders: {:.3} s of the {:.3} s left",
            budget.remaining().as_secs_f64(),
            deadline.remaining().as_secs_f64()
        );
        // 0: the input op order's node list as the ranking.
        for slow_down in [1, 2, 0, 4, 8] {
            if slow_down != 1 && budget.expired() {
                break;
            }
            let rank = if slow_down == 0 {
                let list = frugal::node_list(self.g, &frugal::input_order(self.g));
                let mut rank = vec![0u32; list.len()];
                for (k, &v) in list.iter().enumerate() {
                    rank[v as usize] = k as u32;
                }
                rank
            } else {
                frugal::blind_rank(self.g, slow_down)
            };
            if let Some(list) = frugal::fitted_order(self.g, &rank, &budget) {
                log::debug!("order fitted to memory from ranking {slow_down}");
                return Some(list);
            }
        }
        None
    }

    /// A serial order found by search (`serial_search`), where every greedy
    /// order trapped memory: on a share of the time left and at most
    /// `Policy::searched_steps` steps a node, on graphs of at most
    /// `Policy::fitted_max_nodes` nodes. (No least time left: where it is
    /// short, this is the last way to a schedule.)
    fn searched_order(&mut self, deadline: &Deadline) -> Option<Vec<u32>> {
        let n = self.g.n_nodes();
        if !self.searched || n > POLICY.fitted_max_nodes {
            return None;
        }
        let budget = deadline.share(POLICY.searched_share);
        let steps = POLICY.searched_steps.saturating_mul(n as u64 + 100);
        super::serial_search::searched_order(self.g, &budget, steps, n as u64)
    }

    /// Follows the best schedule's start order from now on (a guide unless
    /// a zero-duration node starts with one of its successors, models/list.md).
    fn guide_from_best(&mut self, deadline: &Deadline) {
        let Some(best) = &self.best else { return };
        let list = {
            let k = priority::keys_from_starts(&best.schedule.start);
            sgs::activity_list(self.g, &k)
        };
        let how = best.how.clone();
        // The old guide is not needed while the new one is built (8 bytes a
        // node, and a pass's worth while building); if the new one fails, a
        // frugal one is built again when a pass needs it.
        self.guide = None;
        match Guide::new(&self.md, &list, deadline) {
            Ok((gd, s)) => {
                self.guide = Some(gd);
                self.guide_kind = "best schedule's start order".into();
                self.consider(s, format!("serial order of {how}"));
            }
            Err(Stop::Deadline) => self.timed_out = true,
            Err(e) => log::debug!("the best schedule's start order is not a guide: {e:?}"),
        }
    }

    /// Whether an unguarded pass in mode `i` of `FREE_MODES` is worth
    /// trying: memory cannot bind, or that mode succeeds often enough (one
    /// in five) to pay for its deadlocked passes; the first few are always
    /// tried (the first only where deadlocks are costly,
    /// `Policy::costly_free_nodes`), `eager` ones (forward-backward: keys
    /// from a good schedule, which succeed far more often and gain most)
    /// every other time (every fourth where deadlocks are costly), the
    /// others every eighth.
    fn free_worth_it(&mut self, i: usize, eager: bool) -> bool {
        let (free_failures, eager_every) = if self.costly() { (1, 4) } else { (3, 2) };
        let (ok, failed, asked) = &mut self.free_stats[i];
        *asked += 1;
        *failed < free_failures
            || *failed <= 4 * *ok
            || (eager && asked.is_multiple_of(eager_every))
            || asked.is_multiple_of(8)
    }

    /// One pass with `key`: unguarded modes when worth it, else (or when they
    /// deadlock) guarded. Returns its makespan.
    pub fn offer(&mut self, key: &[u64], how: &str, deadline: &Deadline) -> Option<u64> {
        self.offer_as(key, how, false, false, deadline)
    }

    /// One pass of `rule` (dynamic keys when the rule has them).
    fn offer_rule(
        &mut self,
        rule: Rule,
        key: &[u64],
        how: &str,
        deadline: &Deadline,
    ) -> Option<u64> {
        self.offer_as(key, how, false, rule.is_dynamic(), deadline)
    }

    /// `offer`; `eager`: try the unguarded modes more often (see
    /// `free_worth_it`); `dynamic`: keys grow with what a start releases.
    fn offer_as(
        &mut self,
        key: &[u64],
        how: &str,
        eager: bool,
        dynamic: bool,
        deadline: &Deadline,
    ) -> Option<u64> {
        if deadline.expired() {
            return None;
        }
        self.passes += 1;
        match self.unguarded(key, how, eager, dynamic, deadline) {
            Unguarded::Found(ms) => Some(ms),
            Unguarded::Stopped => None,
            Unguarded::Deadlocked => self.guarded(key, how, dynamic, deadline),
        }
    }

    /// The unguarded modes worth trying (`free_worth_it`), in order, until
    /// one completes.
    fn unguarded(
        &mut self,
        key: &[u64],
        how: &str,
        eager: bool,
        dynamic: bool,
        deadline: &Deadline,
    ) -> Unguarded {
        let loose = self.md.memory_is_loose();
        let costly = self.costly();
        for (i, &free) in FREE_MODES.iter().enumerate() {
            if loose && i > 0 {
                break; // the parallel mode cannot deadlock
            }
            if costly && !eager && matches!(free, Free::Parallel) {
                continue; // `Policy::costly_free_nodes`
            }
            if matches!(free, Free::HandOver) && self.best.is_some() {
                continue; // a first schedule only (`Free::HandOver`)
            }
            if !loose && !self.free_worth_it(i, eager) {
                continue;
            }
            if matches!(free, Free::Reserve) && self.peaks.is_none() {
                self.peaks = Some(OpPeaks::new(self.g));
            }
            let mode = match free {
                Free::Parallel => Mode::Parallel,
                Free::HandOver => Mode::HandOver,
                Free::Reserve => Mode::Reserve(self.peaks.as_ref().expect("computed above")),
                Free::Window(k) => Mode::Window(k),
            };
            match sgs::run_keyed(&self.md, key, dynamic, mode, deadline) {
                Ok(s) => {
                    self.free_stats[i].0 += 1;
                    self.parallel_found = true;
                    let how = format!("pass {} ({how}, {})", self.passes, mode_name(mode));
                    return Unguarded::Found(self.consider(s, how));
                }
                Err(Stop::Deadlock(d)) => {
                    log::debug!(
                        "{} pass ({how}) deadlocked at t={} after {} starts (gave up: {})",
                        mode_name(mode),
                        d.time,
                        d.started,
                        d.gave_up
                    );
                    self.free_stats[i].1 += 1;
                    self.deadlocks += 1;
                    self.last_deadlock = Some(d);
                }
                Err(Stop::Behind) => {
                    // It could not end in time (`stop::Pace`): counted as a
                    // deadlock (the mode is then tried less often), and the
                    // next mode runs.
                    log::debug!("{} pass ({how}) stopped behind its pace", mode_name(mode));
                    self.free_stats[i].1 += 1;
                    self.deadlocks += 1;
                }
                Err(Stop::Deadline) => {
                    self.timed_out = true;
                    return Unguarded::Stopped;
                }
                Err(Stop::Overflow) => return Unguarded::Stopped,
            }
        }
        Unguarded::Deadlocked
    }

    /// A pass guarded by the guide (built first if needed): cannot deadlock.
    fn guarded(
        &mut self,
        key: &[u64],
        how: &str,
        dynamic: bool,
        deadline: &Deadline,
    ) -> Option<u64> {
        if !self.first_schedule(deadline) {
            return None;
        }
        let gd = self.guide.as_ref().expect("first_schedule built it");
        let t0 = std::time::Instant::now();
        let dl = match &self.first_guarded {
            Some(d) if !self.parallel_found => d,
            _ => deadline,
        };
        let res = sgs::run_keyed(&self.md, key, dynamic, Mode::Guarded(gd), dl);
        log::debug!(
            "guarded pass ({how}) in {:.2} s (peak RSS {:.0} MiB): {}",
            t0.elapsed().as_secs_f64(),
            crate::solve::peak_rss_mib().unwrap_or(0.0),
            match &res {
                Ok(s) => format!("makespan {}", s.makespan(self.g)),
                Err(e) => format!("{e:?}"),
            }
        );
        match res {
            Ok(s) => {
                self.parallel_found = true;
                let how = format!(
                    "pass {} ({how}, guarded by the {})",
                    self.passes, self.guide_kind
                );
                Some(self.consider(s, how))
            }
            Err(Stop::Deadline) => {
                self.timed_out = true;
                None
            }
            Err(e) => {
                // Cannot happen by the guide's argument; not fatal either.
                log::warn!("a guarded pass stopped: {e:?}");
                None
            }
        }
    }

    /// One pass per deterministic rule, each followed by forward-backward when
    /// it improved the best schedule. Where memory can bind, the guide's serial
    /// schedule comes first. The first rule's schedule is improved before the
    /// other rules run: on large graphs, where a pass takes seconds,
    /// forward-backward gains more than another rule.
    pub fn deterministic(&mut self, target: u64, deadline: &Deadline) {
        if !self.md.memory_is_loose() && !self.first_schedule(deadline) && self.timed_out {
            return;
        }
        if self.costly() {
            // `Policy::costly_free_nodes`: the guide's own order in the
            // unguarded modes first (a parallel schedule at the cost of a
            // pass where one completes), then the insertion search (on
            // memory-packed graphs its first pass is better than the
            // passes below reach: results/policy.md), then forward-backward
            // from the best schedule so far. The insertion search's first
            // lists run as long as a first guarded pass may only while no
            // parallel schedule is known (`first_guarded_pass_until`), and
            // where they fail they fail slowly: after a completed pass they
            // get the phase's share (results/policy.md, "Passes that cannot
            // end in time").
            if let Some(order) = &self.guide_order {
                let order = order.clone();
                self.passes += 1;
                let _ = self.unguarded(&order, "memory-frugal op order", false, false, deadline);
            }
            self.insertion_search(&mut Rng::new(INSERTION_SEED), target, true, deadline);
            if self.reached(target) || deadline.expired() {
                return;
            }
            self.forward_backward(8, target, deadline);
            if self.reached(target) || deadline.expired() {
                return;
            }
        }
        let mut skip = 0;
        if let Some(order) = self.guide_order.take() {
            self.rule_and_guide_order(Rule::ALL[0], &order, 8, true, target, deadline);
            if self.reached(target) || deadline.expired() {
                return;
            }
            skip = 1; // the first rule has run
        }
        for rule in Rule::ALL.into_iter().skip(skip) {
            let before = self.best.as_ref().map(|b| b.makespan);
            let k = self.rule_keys(rule);
            self.offer_rule(rule, &k, rule.name(), deadline);
            drop(k);
            if self.reached(target) || deadline.expired() {
                return;
            }
            if self.best.is_none() && self.no_guide {
                return; // the tiling choice is the problem, not the order
            }
            if self.best.as_ref().map(|b| b.makespan) < before || before.is_none() {
                self.forward_backward(8, target, deadline);
            }
        }
        // 16 bytes a node, recomputed if another rule is asked for.
        self.paths = None;
    }

    /// A rule's pass and the guide-order route (`guide_order_route`),
    /// cheapest-first: when the rule's unguarded passes complete, its
    /// forward-backward, then the route; when they all deadlock, the route
    /// before the rule's guarded pass (a guarded pass costs 2-3 unguarded
    /// ones, and from a guarded schedule forward-backward gains little).
    /// `rounds` of forward-backward after each; `guarded_too`: the rule's
    /// guarded pass also runs when its unguarded ones deadlock.
    fn rule_and_guide_order(
        &mut self,
        rule: Rule,
        order: &[u64],
        rounds: usize,
        guarded_too: bool,
        target: u64,
        deadline: &Deadline,
    ) {
        let k = self.rule_keys(rule);
        self.passes += 1;
        match self.unguarded(&k, rule.name(), false, rule.is_dynamic(), deadline) {
            Unguarded::Stopped => {}
            Unguarded::Found(_) => {
                drop(k);
                self.forward_backward(rounds, target, deadline);
                if !self.reached(target) && !deadline.expired() {
                    self.guide_order_route(order, rounds, target, deadline);
                }
            }
            Unguarded::Deadlocked => {
                self.guide_order_route(order, rounds, target, deadline);
                if !guarded_too || self.reached(target) || deadline.expired() {
                    return;
                }
                let before = self.best.as_ref().map(|b| b.makespan);
                self.guarded(&k, rule.name(), rule.is_dynamic(), deadline);
                drop(k);
                if self.best.as_ref().map(|b| b.makespan) < before
                    && !self.reached(target)
                    && !deadline.expired()
                {
                    self.forward_backward(rounds, target, deadline);
                }
            }
        }
    }

    /// A pass whose keys are the guide's own (memory-frugal) order, then
    /// forward-backward from *its* schedule, even when a rule's schedule is
    /// better: its ops run roughly in the frugal order, and the backward keys
    /// of such a schedule let unguarded passes through where the backward
    /// keys of a priority rule's schedule deadlock (measured: 1.26 x the bound
    /// instead of 1.9-2.0 on memory-tight graphs of 10-50 independent parts).
    fn guide_order_route(&mut self, k: &[u64], rounds: usize, target: u64, deadline: &Deadline) {
        let saved = self.best.take();
        // Forward-backward makes the guide follow the route's schedule; the
        // passes after the route get back the guide they had: a guide equal
        // to a good schedule's order leaves guarded passes no room (measured
        // at 10^6 nodes: every rule's guarded pass then returned the route's
        // schedule, 1.27 x the bound, where the frugal guide gives 1.14).
        let guide = self.guide.clone().map(|g| (g, self.guide_kind.clone()));
        self.offer(k, "memory-frugal op order", deadline);
        if self.best.is_some() && !deadline.expired() {
            self.forward_backward(rounds, target, deadline);
        }
        if let Some((g, kind)) = guide {
            self.set_guide((g, kind));
        }
        if let Some(s) = saved
            && self.best.as_ref().is_none_or(|b| s.makespan < b.makespan)
        {
            self.best = Some(s);
        }
    }

    /// When no schedule is known yet (a time share ran out before one), the
    /// cheapest way to one: the guide's serial schedule, or one pass.
    pub fn ensure_schedule(&mut self, deadline: &Deadline) {
        if self.best.is_some() {
            return;
        }
        self.timed_out = false;
        if !self.md.memory_is_loose() {
            self.first_schedule(deadline);
        }
        if self.best.is_none() && !self.no_guide {
            let k = self.rule_keys(Rule::Lrp);
            self.offer(&k, Rule::Lrp.name(), deadline);
        }
    }

    /// Exactly one pass of `rule` (the mode ladder, guarded last): the greedy
    /// baseline. (A guarded pass first builds its guide, whose serial
    /// schedule is kept in the rare case that it is better.)
    pub fn single(&mut self, rule: Rule, deadline: &Deadline) {
        let k = self.rule_keys(rule);
        // Every unguarded mode gets its one try.
        self.free_stats = FreeStats::default();
        self.offer_rule(rule, &k, rule.name(), deadline);
    }

    /// A quick evaluation of this tiling choice: the guide's serial schedule
    /// where memory can bind, one pass of `rule` (and the guide-order route
    /// where memory binds), two forward-backward rounds.
    pub fn quick(&mut self, rule: Rule, target: u64, deadline: &Deadline) {
        if !self.md.memory_is_loose() && !self.first_schedule(deadline) && self.timed_out {
            return;
        }
        if let Some(order) = self.guide_order.take() {
            // As the first phase does (a move judged by the rule's guarded
            // pass alone would lose to an incumbent the route found), with
            // fewer rounds and without the rule's guarded pass.
            self.rule_and_guide_order(rule, &order, 2, false, target, deadline);
            return;
        }
        let k = self.rule_keys(rule);
        self.offer_rule(rule, &k, rule.name(), deadline);
        if !self.reached(target) && !deadline.expired() {
            self.forward_backward(2, target, deadline);
        }
    }

    /// Up to `rounds` forward-backward improvements of the best schedule.
    pub fn forward_backward(&mut self, rounds: usize, target: u64, deadline: &Deadline) {
        for _ in 0..rounds {
            // The keys and the guide below cost a pass's worth of work before
            // the pass looks at the clock: none of it past the deadline.
            if deadline.expired() {
                return;
            }
            let Some(best) = &self.best else { return };
            let before = best.makespan;
            let back = backward::backward_keys(self.g, &best.schedule.start);
            // A guide that follows the best schedule deviates least from
            // keys derived from it; but building one is a serial pass plus a
            // sort (7 s at 10^7 nodes, half a guarded pass): on huge graphs
            // the guide at hand is kept.
            if !self.md.memory_is_loose()
                && (self.guide.is_none() || self.g.n_nodes() <= KEEP_PATHS_UP_TO)
            {
                self.guide_from_best(deadline);
            }
            self.offer_as(&back, "forward-backward", true, false, deadline);
            drop(back);
            if self.reached(target) || deadline.expired() {
                return;
            }
            // The best schedule's own start order: a left shift of it.
            let Some(best) = &self.best else { return };
            let starts = priority::keys_from_starts(&best.schedule.start);
            self.offer(&starts, "start-order compaction", deadline);
            if self.reached(target) || deadline.expired() {
                return;
            }
            // Stop when a round gains less than 0.1 %.
            if self
                .best
                .as_ref()
                .is_some_and(|b| b.makespan >= before - before / 1000)
            {
                return;
            }
        }
    }

    /// Local search over op orders, each decoded by the insertion scheme
    /// (`insertion.rs`) as the ops' nodes one op after another: from the
    /// memory-frugal and the input op order, a block of one to four ops
    /// moved by up to `OP_MOVE` places where the op edges allow, kept when
    /// the schedule is no longer; at a local optimum where it leads, a kick
    /// and another descent (models/list.md, "Insertion passes"). Until
    /// `deadline`, `target`, or the list policy's patience and trial
    /// (`Policy::insertion_*`). Without `kicks` it ends at its first local
    /// optimum (the exact engines' incumbent step, whose time is theirs).
    fn insertion_search(&mut self, rng: &mut Rng, target: u64, kicks: bool, deadline: &Deadline) {
        self.insertion_passes(Some((rng, kicks)), target, deadline);
    }

    /// The insertion search's first lists alone (the memory-frugal and the
    /// input op order), where memory can bind; the shorter one's makespan
    /// (kept as the best schedule when it is). A tiling choice's quick
    /// evaluation in the scheme the insertion search will search it in.
    pub fn insertion_firsts(&mut self, target: u64, deadline: &Deadline) -> Option<u64> {
        if self.md.memory_is_loose() {
            return None;
        }
        self.insertion_passes(None, target, deadline)
    }

    /// The insertion search (`search`: with its moves, and whether it
    /// kicks) or its first lists; the first lists' best makespan.
    fn insertion_passes(
        &mut self,
        search: Option<(&mut Rng, bool)>,
        target: u64,
        deadline: &Deadline,
    ) -> Option<u64> {
        let g = self.g;
        if g.n_nodes() > POLICY.insertion_max_nodes {
            return None;
        }
        let b = self.best.as_ref()?;
        // No schedule ends before the lower bound `target`.
        let least = target.min(b.makespan).max(1);
        let ins = super::insertion::Insertion::new(g, least)?;
        // The first lists may be far from the best schedule (a frugal
        // order's insertion schedule is often better than its serial one):
        // a horizon up to the serial makespan and never below the best one,
        // within the cells a pass may use. Where the best makespan does not
        // fit them (a serial first schedule on a huge graph), the widest
        // horizon they hold (at least `least`, which `Insertion::new`
        // checked): a pass that needs more fails.
        let total: u64 = (0..g.n_nodes() as u32)
            .map(|v| g.dur(v))
            .fold(0, u64::saturating_add);
        let horizon = total.max(b.makespan).min(ins.widest());
        // Op orders: the memory-frugal one, the input one.
        let mut cur: Option<(Vec<u32>, u64)> = None;
        let mut firsts: Vec<Vec<u32>> = Vec::new();
        if let Some(ops) = self
            .frugal_ops
            .clone()
            .or_else(|| frugal::memory_order(g, deadline))
        {
            firsts.push(ops);
        }
        firsts.push(frugal::input_order(g));
        let mut passes = 0usize;
        let mut improved = 0usize;
        let mut failed = 0usize;
        for ops in firsts {
            passes += 1;
            // While only a serial schedule is known, the first list may run
            // on as a first guarded pass would (`first_guarded_pass_until`):
            // cut at a phase's share it is lost work, and the answer stays
            // the serial schedule.
            let dl = match &self.first_guarded {
                Some(d) if !self.parallel_found => d,
                _ => deadline,
            };
            let t = std::time::Instant::now();
            let st = ins.pass(&frugal::node_list(g, &ops), horizon, dl);
            log::debug!(
                "insertion search: first list {passes} in {:.2} s: {}",
                t.elapsed().as_secs_f64(),
                st.as_ref().map_or("no schedule".into(), |st| format!(
                    "makespan {}",
                    ends(g, st)
                ))
            );
            if let Some(st) = st {
                let ms = ends(g, &st);
                if cur.as_ref().is_none_or(|c| ms < c.1) {
                    cur = Some((ops, ms));
                    self.consider_checked(ins.schedule(st), ms, passes);
                    self.parallel_found = true;
                }
            }
        }
        let Some((mut ops, mut ms)) = cur else {
            log::debug!("insertion search: no first list completes (horizon {horizon})");
            if let Some((rng, _)) = search
                && g.n_nodes() <= POLICY.node_descent_max_nodes
            {
                self.node_descent(&ins, horizon, rng, target, deadline);
            }
            return None;
        };
        let first = ms;
        let Some((rng, may_kick)) = search else {
            return Some(first);
        };
        let n_ops = ops.len();
        let mut pos = vec![0usize; n_ops];
        let t0 = std::time::Instant::now();
        let start_ms = ms;
        let mut stalled = 0usize;
        let mut patience = POLICY.insertion_patience;
        let (mut best_ops, mut best_ms) = (ops.clone(), ms);
        let mut kicks = 0usize;
        let list_best = self.best.as_ref().map_or(u64::MAX, |b| b.makespan);
        let trial = deadline.share(POLICY.insertion_trial_share);
        while !deadline.expired() && best_ms > target && n_ops > 1 {
            // Far behind the scheme's schedules after a fair try: their
            // sampling gets the time back.
            if (passes >= POLICY.insertion_trial || trial.expired())
                && !near_best(best_ms, list_best)
            {
                break;
            }
            if stalled >= patience {
                // A local optimum: where the search leads the scheme's
                // schedules, a kick (`insertion_kick_moves` block moves at
                // once from the search's best order) and a shorter descent
                // (iterated local search); else sampling gets the time.
                if !may_kick || best_ms > list_best {
                    break;
                }
                kicks += 1;
                ops.clone_from(&best_ops);
                for _ in 0..POLICY.insertion_kick_moves {
                    if let Some(next) = block_move(g, &ops, &mut pos, rng) {
                        ops = next;
                    }
                }
                passes += 1;
                let Some(st) = ins.pass(&frugal::node_list(g, &ops), room(&ins, best_ms), deadline)
                else {
                    failed += 1;
                    continue;
                };
                ms = ends(g, &st);
                if ms < best_ms {
                    improved += 1;
                    best_ms = ms;
                    best_ops.clone_from(&ops);
                    self.consider_checked(ins.schedule(st), ms, passes);
                }
                stalled = 0;
                patience = POLICY.insertion_kick_patience;
                continue;
            }
            stalled += 1;
            let Some(next) = block_move(g, &ops, &mut pos, rng) else {
                continue;
            };
            passes += 1;
            let Some(st) = ins.pass(&frugal::node_list(g, &next), room(&ins, ms), deadline) else {
                failed += 1;
                continue;
            };
            let m2 = ends(g, &st);
            if m2 <= ms {
                if m2 < ms {
                    stalled = 0;
                }
                ms = m2;
                ops = next;
                if m2 < best_ms {
                    improved += 1;
                    best_ms = m2;
                    best_ops.clone_from(&ops);
                    self.consider_checked(ins.schedule(st), m2, passes);
                }
            }
        }
        let ms = best_ms;
        log::debug!(
            "insertion search: {passes} passes ({failed} failed), {improved} improvements, {kicks} kicks, {start_ms} -> {ms} in {:.2} s",
            t0.elapsed().as_secs_f64()
        );
        Some(first)
    }

    /// Forward-backward improvement under the hold rule from the best
    /// schedule (`justify_from`).
    /// Nothing where the rounds have run from the best schedule
    /// (`justified`): they are deterministic.
    pub fn justify(&mut self, rounds: usize, target: u64, deadline: &Deadline) {
        if self.justified() {
            return;
        }
        let Some((ins, start)) = self.justify_setup(target) else {
            return;
        };
        self.justify_from(&ins, start, rounds, target, deadline);
    }

    /// `justify` (where it has not run from the best schedule), then until
    /// `deadline` or `target`: a kick of `kick_list` (the list whose pass
    /// gave the best schedule, or that of the rounds' shortest pass),
    /// `Policy::join_kick_share` of them join kicks (`joins::join_kick`:
    /// a join's early predecessor op later or its late one earlier, with
    /// their cones), the others one to `KICK_NODES` nodes moved by up to
    /// `NODE_MOVE` places (`node_move`: no edge crossed), an insertion pass
    /// of it with ties together (`Insertion::pass_of_starts`), and
    /// forward-backward from there (iterated local search). The list keeps
    /// the order of that pass, equal starts included, so that a kick
    /// changes only what it moves. Each shorter schedule goes to
    /// `progress`. Returns the number of kicks.
    pub fn justify_kicked(
        &mut self,
        rng: &mut Rng,
        rounds: usize,
        target: u64,
        deadline: &Deadline,
        progress: &Progress,
    ) -> usize {
        let Some((ins, start)) = self.justify_setup(target) else {
            return 0;
        };
        let g = self.g;
        if !self.justified() {
            self.justify_from(&ins, start, rounds, target, deadline);
        }
        let (mut kicks, mut better, mut failed) = (0usize, 0usize, 0usize);
        while !deadline.expired() && !self.reached(target) {
            // The list whose pass gave the best schedule: its own order,
            // ties included, so that a kick changes only what it moves.
            let (Some(ms), Some(mut list)) = (
                self.best.as_ref().map(|b| b.makespan),
                self.kick_list().cloned(),
            ) else {
                break;
            };
            // A join kick on `Policy::join_kick_share` of the kicks
            // (joins.rs), else node moves.
            let joined = rng.chance(POLICY.join_kick_share)
                && self.best.as_ref().is_some_and(|b| {
                    super::joins::join_kick(g, &b.schedule.start, &mut list, rng).is_some()
                });
            if !joined {
                let mut pos = positions(&list);
                for _ in 0..1 + rng.below_mod(KICK_NODES) {
                    let _ = node_move(g, &mut list, &mut pos, rng);
                }
            }
            kicks += 1;
            let Some(st) = ins.pass_of_starts(&list, room(&ins, ms), deadline) else {
                failed += 1;
                continue;
            };
            let first = ends(g, &st);
            if first < ms {
                self.keep_justified(&ins, st.clone(), list, || "justification kick".to_string());
            }
            self.justify_from(&ins, st, rounds, target, deadline);
            if self.best.as_ref().is_some_and(|b| b.makespan < ms) {
                better += 1;
                self.offer_best(progress);
            }
        }
        log::debug!("justification kicks: {kicks}, {failed} failed, {better} better");
        kicks
    }

    /// A schedule for this graph from `list` (a nearly legal start order,
    /// as one built from a schedule of a neighbouring tiling choice): its
    /// insertion pass with ties together (`Insertion::pass_of_starts`, else
    /// the plain pass) kept as the best when legal, then forward-backward
    /// under the hold rule from it (`justify_from`, `rounds` rounds without
    /// a shorter schedule). The best makespan after it; `None` where memory
    /// cannot bind, passes do not fit the graph, or no pass completes
    /// within twice `near` (the neighbour's makespan; less where the
    /// profiles would not fit `MAX_CELLS`).
    pub fn warm_pass(
        &mut self,
        list: &[u32],
        near: u64,
        rounds: usize,
        target: u64,
        deadline: &Deadline,
    ) -> Option<u64> {
        let ins = self.hold_insertion(target)?;
        let horizon = near.saturating_mul(2).min(ins.widest());
        if horizon < near {
            return None;
        }
        let st = ins
            .pass_of_starts(list, horizon, deadline)
            .or_else(|| ins.pass(list, horizon, deadline))?;
        self.keep_justified(&ins, st.clone(), list.to_vec(), || {
            "warm tiling move".to_string()
        });
        self.justify_from(&ins, st, rounds, target, deadline);
        self.best.as_ref().map(|b| b.makespan)
    }

    /// An insertion pass's schedule (`start`, from `list`) kept when it is
    /// the best so far and legal (`consider_checked_as`), with its list.
    fn keep_justified(
        &mut self,
        ins: &super::insertion::Insertion,
        start: Vec<u64>,
        list: Vec<u32>,
        how: impl FnOnce() -> String,
    ) {
        let ms = ends(self.g, &start);
        if self.consider_checked_as(ins.schedule(start), ms, how)
            && let Some(b) = &mut self.best
        {
            b.list = Some(list);
        }
    }

    /// Whether forward-backward's rounds under the hold rule have run from
    /// the best schedule: it came from them (it has its list), or they
    /// found nothing shorter (`kick_base`).
    fn justified(&self) -> bool {
        self.kick_list().is_some()
    }

    /// The kicks' base: the best schedule's own list, else `kick_base`.
    fn kick_list(&self) -> Option<&Vec<u32>> {
        (self.best.as_ref().and_then(|b| b.list.as_ref())).or(self.kick_base.as_ref())
    }

    /// The insertion scheme and the best schedule's starts, where memory
    /// can bind (forward-backward under the hold rule is for holds that
    /// wait on memory; the tiling search's evaluations call it wherever the
    /// start schedule is out of their reach) and passes fit the graph.
    fn justify_setup(
        &self,
        target: u64,
    ) -> Option<(super::insertion::Insertion<'g, 'a>, Vec<u64>)> {
        let b = self.best.as_ref()?;
        let ins = self.hold_insertion(target.min(b.makespan))?;
        Some((ins, b.schedule.start.clone()))
    }

    /// The insertion scheme for forward-backward under the hold rule, whose
    /// profiles fit a pass of horizon `least` (`Insertion::new`): only where
    /// memory can bind (the rounds are for holds that wait on memory) and
    /// passes fit the graph (`Policy::insertion_max_nodes`).
    fn hold_insertion(&self, least: u64) -> Option<super::insertion::Insertion<'g, 'a>> {
        if self.md.memory_is_loose() || self.g.n_nodes() > POLICY.insertion_max_nodes {
            return None;
        }
        super::insertion::Insertion::new(self.g, least.max(1))
    }

    /// Forward-backward improvement under the hold rule from the legal
    /// schedule `start`: right-justified (`justify::right_shift`: holds
    /// shortened from the left), then an insertion pass of its start order
    /// with ties together (`Insertion::pass_of_starts`), which places each
    /// node as early as it fits into the memory the shorter holds left free
    /// and no later than the shifted schedule (`insertion.rs`); again from
    /// that pass's schedule,
    /// shorter or not, until `rounds` rounds in a row find nothing shorter,
    /// a pass fails, `target` or `deadline`. Each schedule kept passes the
    /// validator (`consider_checked_as`). Where the rounds ran from the best
    /// schedule (not `justified` yet) and found nothing shorter, the list of
    /// their shortest pass becomes the kicks' base: without it a warm
    /// start that forward-backward does not shorten would get no kicks.
    fn justify_from(
        &mut self,
        ins: &super::insertion::Insertion,
        start: Vec<u64>,
        rounds: usize,
        target: u64,
        deadline: &Deadline,
    ) {
        let g = self.g;
        let mut cur = start;
        let start_ms = ends(g, &cur);
        let mut best_ms = start_ms;
        let t0 = std::time::Instant::now();
        let (mut round, mut stalled) = (0usize, 0usize);
        // The shortest pass that is not the best schedule: (makespan, list).
        let mut closest: Option<(u64, Vec<u32>)> = None;
        // A round begins only with the last one's time left (its setup, a
        // sort and the profiles, looks at no clock).
        let mut last = std::time::Duration::ZERO;
        while stalled < rounds && best_ms > target && deadline.remaining() > last {
            let t = std::time::Instant::now();
            let Some(shifted) = justify::right_shift(g, &cur, deadline) else {
                break;
            };
            // Equal starts (the shift lines many up) in the order they had.
            let keys = priority::keys_from_starts_then(&shifted, |v| cur[v]);
            let list = sgs::activity_list(g, &keys);
            round += 1;
            let Some(st) = ins.pass_of_starts(&list, room(ins, ends(g, &cur)), deadline) else {
                break;
            };
            let ms = ends(g, &st);
            if ms < best_ms {
                best_ms = ms;
                stalled = 0;
                self.keep_justified(ins, st.clone(), list, || {
                    format!("justification round {round}")
                });
            } else {
                stalled += 1;
                if closest.as_ref().is_none_or(|c| ms < c.0) {
                    closest = Some((ms, list));
                }
            }
            cur = st;
            last = t.elapsed();
        }
        if !self.justified() {
            self.kick_base = closest.map(|c| c.1);
        }
        log::trace!(
            "justification: {round} rounds, {start_ms} -> {best_ms} in {:.2} s",
            t0.elapsed().as_secs_f64()
        );
    }

    /// Where no op-contiguous list completes (every op's nodes in a row
    /// trap memory: holds that only a finer interleaving closes), a descent
    /// over node lists instead: from the best schedule's start order (an
    /// insertion pass of it is a left shift of it with insertion), one node
    /// moved by up to `NODE_MOVE` places where its edges allow, kept when
    /// the pass completes no longer; until `deadline`, `target`, or
    /// `Policy::node_patience` moves in a row without a shorter schedule;
    /// up to `Policy::node_descent_max_nodes` nodes.
    /// Each pass is legal when it completes (`insertion.rs`); the schedules
    /// kept are checked again (`consider_checked`).
    fn node_descent(
        &mut self,
        ins: &super::insertion::Insertion,
        horizon: u64,
        rng: &mut Rng,
        target: u64,
        deadline: &Deadline,
    ) {
        let g = self.g;
        let Some(best) = &self.best else { return };
        let mut list = sgs::activity_list(g, &priority::keys_from_starts(&best.schedule.start));
        let Some(st) = ins.pass_of_starts(&list, horizon, deadline) else {
            log::debug!("node descent: the best schedule's start order does not complete");
            return;
        };
        let t0 = std::time::Instant::now();
        let mut passes = 1usize;
        let start_ms = ends(g, &st);
        let mut ms = start_ms;
        self.consider_checked(ins.schedule(st), ms, passes);
        let mut pos = positions(&list);
        let (mut stalled, mut improved) = (0usize, 0usize);
        while !deadline.expired() && ms > target && stalled < POLICY.node_patience && list.len() > 1
        {
            stalled += 1;
            let Some((from, to)) = node_move(g, &mut list, &mut pos, rng) else {
                continue;
            };
            passes += 1;
            match ins
                .pass(&list, room(ins, ms), deadline)
                .map(|st| (ends(g, &st), st))
            {
                Some((m2, st)) if m2 <= ms => {
                    if m2 < ms {
                        improved += 1;
                        stalled = 0;
                        ms = m2;
                        self.consider_checked(ins.schedule(st), ms, passes);
                    }
                }
                _ => shift(&mut list, &mut pos, to, from),
            }
        }
        log::debug!(
            "node descent: {passes} passes, {improved} improvements, {start_ms} -> {ms} in {:.2} s",
            t0.elapsed().as_secs_f64()
        );
    }

    /// Offers the best schedule to the solve's events (`Progress::offer`).
    fn offer_best(&self, progress: &Progress) {
        if let Some(b) = &self.best {
            b.offer(self.g.inst, progress);
        }
    }

    /// Randomised sampling around the rules, with forward-backward on
    /// improvements; stops at the deadline, at `target`, or after `patience`
    /// passes in a row without a better makespan.
    pub fn sample(
        &mut self,
        rng: &mut Rng,
        target: u64,
        deadline: &Deadline,
        patience: usize,
        progress: &Progress,
    ) {
        // Every rule's keys cost 8 bytes a node: keep two rules on huge graphs.
        if deadline.expired() || self.reached(target) || patience == 0 {
            return; // the keys below cost a second or two at 10^7 nodes
        }
        let rules: &[Rule] = if self.g.n_nodes() > 2_000_000 {
            &Rule::ALL[..2]
        } else {
            &Rule::ALL
        };
        if !self.md.memory_is_loose() {
            // Forward-backward under the hold rule before the op-level
            // search and after it (models/list.md, "Right justification").
            // Kicks only where sampling has no patience of its own to keep;
            // there the op-level search gets `Policy::op_level_share` of the
            // time and forward-backward's kicks, which gain more, the rest
            // (results/archive/medium-tight-ab-justify.md).
            let kicks = patience == usize::MAX;
            self.justify(POLICY.justify_rounds, target, deadline);
            self.offer_best(progress);
            let op_level = if kicks {
                deadline.share(POLICY.op_level_share)
            } else {
                deadline.clone()
            };
            self.insertion_search(rng, target, kicks, &op_level);
            self.offer_best(progress);
            if kicks {
                let _ = self.justify_kicked(rng, POLICY.justify_rounds, target, deadline, progress);
            } else {
                self.justify(POLICY.justify_rounds, target, deadline);
            }
        }
        let base: Vec<Vec<u64>> = rules.iter().map(|&r| self.rule_keys(r)).collect();
        // 16 bytes a node; the keys are all sampling needs.
        self.paths = None;
        let mut stalled = 0;
        while !deadline.expired() && !self.reached(target) && stalled < patience {
            let r = rng.below_mod(base.len());
            let eps = 0.05 + 0.45 * rng.unit();
            let k = perturb(&base[r], eps, rng);
            let before = self.best.as_ref().map(|b| b.makespan);
            self.offer_rule(
                rules[r],
                &k,
                &format!("random {} eps {eps:.2}", rules[r].name()),
                deadline,
            );
            progress.tick(|| {
                let best = self.best.as_ref().map_or(0, |b| b.makespan);
                format!(
                    "list: {} passes, best {best}, bound {target}, gap {:.2}%",
                    self.passes,
                    100.0 * (best.saturating_sub(target)) as f64 / best.max(1) as f64
                )
            });
            if self.best.as_ref().map(|b| b.makespan) < before || before.is_none() {
                stalled = 0;
                self.forward_backward(3, target, deadline);
                self.offer_best(progress);
            } else {
                stalled += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{GenConfig, generate};

    /// Every op order `block_move` returns is a permutation of the ops that
    /// keeps every op edge forward (the insertion scheme's lists must be
    /// topological), and both outcomes occur on a dense op graph of several
    /// graphs: moves that are taken and moves that an edge refuses.
    #[test]
    fn block_moves_keep_the_op_edges_forward() {
        let cfg = GenConfig {
            seed: 3,
            ops: 60,
            graphs: 3,
            density: 2.0,
            ..GenConfig::default()
        };
        let made = generate(&cfg).expect("a generated instance");
        let g = NodeGraph::new(&made.instance, made.witness.choice.clone()).expect("a graph");
        let mut ops = frugal::input_order(&g);
        let mut pos = vec![0usize; ops.len()];
        let mut rng = Rng::new(7);
        let (mut taken, mut refused) = (0, 0);
        for _ in 0..2000 {
            let Some(next) = block_move(&g, &ops, &mut pos, &mut rng) else {
                refused += 1;
                continue;
            };
            let mut at = vec![usize::MAX; next.len()];
            for (k, &o) in next.iter().enumerate() {
                assert_eq!(at[o as usize], usize::MAX, "op {o} twice");
                at[o as usize] = k;
            }
            for a in 0..g.n_ops() as u32 {
                for &b in g.op_succs(a) {
                    assert!(
                        at[a as usize] < at[b as usize],
                        "op edge {a} -> {b} backwards"
                    );
                }
            }
            ops = next;
            taken += 1;
        }
        assert!(
            taken > 100 && refused > 100,
            "{taken} taken, {refused} refused"
        );
    }

    /// Forward-backward begun past its deadline leaves the search as it
    /// was: no pass, and the guide kept. (Rebuilding the guide from the best
    /// schedule drops the old one first; begun past the deadline, it then
    /// stopped at the clock with no guide, after tenths of a second of keys
    /// and serial pass on 10^6-node graphs.)
    #[test]
    fn forward_backward_past_its_deadline_leaves_the_search_as_it_was() {
        let cfg = GenConfig {
            seed: 5,
            ops: 200,
            tightness: 0.9,
            ..GenConfig::default()
        };
        let made = generate(&cfg).expect("a generated instance");
        let g = NodeGraph::new(&made.instance, made.witness.choice.clone()).expect("a graph");
        let mut s = Searcher::new(&g);
        assert!(!s.md.memory_is_loose(), "memory binds on this graph");
        // Above `DEADLINE_EVERY` events: a serial pass looks at the clock.
        assert!(g.n_nodes() > 1000, "{} nodes", g.n_nodes());
        s.deterministic(0, &Deadline::after(std::time::Duration::from_secs(600)));
        let before = (s.passes, s.best.as_ref().map(|b| b.makespan));
        assert!(
            before.1.is_some() && s.guide.is_some(),
            "a schedule and a guide"
        );
        let past = Deadline::after(std::time::Duration::ZERO);
        s.forward_backward(8, 0, &past);
        assert_eq!((s.passes, s.best.as_ref().map(|b| b.makespan)), before);
        assert!(s.guide.is_some() && !s.timed_out, "the guide kept");
    }

    /// Node moves keep a node list topological and `pos` its inverse, both
    /// outcomes occur (moves taken, moves an edge refuses), and `shift`
    /// back from the move's target undoes it.
    #[test]
    fn node_moves_keep_every_edge_forward_and_undo() {
        let cfg = GenConfig {
            seed: 4,
            ops: 40,
            graphs: 2,
            density: 2.0,
            ..GenConfig::default()
        };
        let made = generate(&cfg).expect("a generated instance");
        let g = NodeGraph::new(&made.instance, made.witness.choice.clone()).expect("a graph");
        let mut list = g.topo_order();
        let mut pos = positions(&list);
        let mut rng = Rng::new(11);
        let (mut taken, mut refused) = (0, 0);
        for round in 0..4000 {
            let before = list.clone();
            let Some((from, to)) = node_move(&g, &mut list, &mut pos, &mut rng) else {
                assert_eq!(list, before, "a refused move changes nothing");
                refused += 1;
                continue;
            };
            taken += 1;
            for (k, &v) in list.iter().enumerate() {
                assert_eq!(pos[v as usize], k, "pos is the inverse");
                g.for_each_succ(v, |w| {
                    assert!(pos[w as usize] > k, "edge {v} -> {w} backwards")
                });
            }
            if round % 2 == 0 {
                shift(&mut list, &mut pos, to, from);
                assert_eq!(list, before, "shift back undoes the move");
            }
        }
        assert!(
            taken > 100 && refused > 100,
            "{taken} taken, {refused} refused"
        );
    }

    /// The tilings of a SAT schedule of a memory-tight instance, each op
    /// fixed (tests/serial_search.rs): no op-contiguous list completes an
    /// insertion pass, and the insertion search then descends over node
    /// lists: its schedule passes the validator and is shorter than the
    /// insertion pass of the best schedule's start order, ties together
    /// (`pass_of_starts`), that it starts from.
    #[test]
    fn the_node_descent_shortens_where_no_op_list_completes() {
        let (inst, choice) = tight_sat_tilings();
        let g = NodeGraph::new(&inst, choice).expect("a graph");
        let long = Deadline::after(std::time::Duration::from_secs(600));
        let mut s = scheduled(&g, &long);
        assert_eq!(s.insertion_firsts(0, &long), None, "no op list completes");
        let ins = super::super::insertion::Insertion::new(&g, 1).expect("fits");
        let list = best_start_order(&s);
        let horizon = fitting_horizon(&g, &ins);
        let start_ms = ends(
            &g,
            &ins.pass_of_starts(&list, horizon, &long)
                .expect("the start order completes"),
        );
        s.insertion_search(
            &mut Rng::new(INSERTION_SEED),
            0,
            false,
            &Deadline::after(std::time::Duration::from_secs(3)),
        );
        let after = s.best.as_ref().expect("a schedule");
        assert!(
            after.makespan < start_ms,
            "{} against {start_ms}",
            after.makespan
        );
        assert!(crate::schedule::check(&g, &after.schedule, 10).is_empty());
    }

    /// A searcher of `g` with a schedule: the searched serial orders on,
    /// its deterministic passes run.
    fn scheduled<'g, 'a>(g: &'g NodeGraph<'a>, deadline: &Deadline) -> Searcher<'g, 'a> {
        let mut s = Searcher::new(g);
        s.search_serial_orders();
        s.deterministic(0, deadline);
        s.ensure_schedule(deadline);
        s
    }

    /// The node list of the searcher's best schedule's start order.
    fn best_start_order(s: &Searcher) -> Vec<u32> {
        let best = s.best.as_ref().expect("a schedule");
        sgs::activity_list(s.g, &priority::keys_from_starts(&best.schedule.start))
    }

    /// The total of the durations, halved until the insertion passes' cells
    /// hold it.
    fn fitting_horizon(g: &NodeGraph, ins: &super::super::insertion::Insertion) -> u64 {
        let mut horizon: u64 = (0..g.n_nodes() as u32).map(|v| g.dur(v)).sum();
        while !ins.fits(horizon) {
            horizon /= 2;
        }
        horizon
    }

    /// tests/data/tight-sat-tilings.txt with its one usable tiling an op.
    fn tight_sat_tilings() -> (crate::instance::Instance, Vec<u32>) {
        let path = format!(
            "{}/tests/data/tight-sat-tilings.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        let inst = crate::instance::parse_file(std::path::Path::new(&path)).expect("parses");
        let choice: Vec<u32> = (0..inst.graph.n_ops() as u32)
            .map(|o| inst.usable_tilings(o).next().expect("one tiling an op"))
            .collect();
        (inst, choice)
    }

    /// A warm start that forward-backward under the hold rule does not
    /// shorten (the best schedule of its own rounds, whose later rounds
    /// found nothing shorter) still gets kicks: the list of the rounds'
    /// shortest pass is their base. Without it the kicks had no list and
    /// the time went to random passes of the parallel scheme.
    #[test]
    fn kicks_start_from_a_warm_start_the_rounds_do_not_shorten() {
        let (inst, choice) = tight_sat_tilings();
        let g = NodeGraph::new(&inst, choice).expect("a graph");
        let long = Deadline::after(std::time::Duration::from_secs(600));
        let mut first = scheduled(&g, &long);
        first.justify(POLICY.justify_rounds, 0, &long);
        let warm = first.best.clone().expect("a schedule");
        let mut s = Searcher::new(&g);
        s.best = Some(warm.clone());
        s.justify(POLICY.justify_rounds, 0, &long);
        assert_eq!(
            s.best.as_ref().map(|b| b.makespan),
            Some(warm.makespan),
            "the rounds do not shorten it"
        );
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = seen.clone();
        let events = crate::events::Events::to(move |e| {
            if let crate::events::Event::Incumbent { makespan, .. } = e {
                sink.lock().expect("events").push(*makespan);
            }
        });
        let kicks = s.justify_kicked(
            &mut Rng::new(1),
            POLICY.justify_rounds,
            0,
            &Deadline::after(std::time::Duration::from_millis(200)),
            &Progress::new(false, events),
        );
        assert!(kicks > 0, "no kick");
        let best = s.best.as_ref().expect("a schedule");
        assert!(best.makespan <= warm.makespan);
        assert!(crate::schedule::check(&g, &best.schedule, 10).is_empty());
        // A kick that shortens the schedule offers it to the solve's events
        // at once (the first offer is never held back).
        let seen = seen.lock().expect("events").clone();
        assert_eq!(seen.is_empty(), best.makespan == warm.makespan, "{seen:?}");
        assert!(seen.iter().all(|&m| m >= u128::from(best.makespan)));
    }

    /// An insertion pass whose nodes wait looks at the deadline while it
    /// retries them, not only every `DEADLINE_EVERY` nodes of the list: the
    /// retries after each placement can cost far more than the list (up
    /// to `MAX_WAITING` nodes after every placement). Node 1 holds all of
    /// memory 0 until its successor 2 starts; node 3, listed before 2,
    /// cannot start while that hold is open, so it waits and is retried
    /// after 2 is placed. The list is shorter than `DEADLINE_EVERY`, so
    /// only the retries' look ends the pass.
    #[test]
    fn an_insertion_pass_with_waiting_nodes_stops_at_its_deadline() {
        let text = "SetSocInfo([[0,2]],[[0,10]])\n\
             AddOpInfo(1,1,0,[[1,2]],[[1,0,2],[2,0,2],[3,0,2]],[[1,0,10],[2,0,1],[3,0,5]])\n\
             GetInferenceScheResult([],[[1,1,1]])\n";
        let inst = crate::instance::parse_reader(text.as_bytes(), "f.txt").expect("parses");
        let g = NodeGraph::new(&inst, vec![0]).expect("a graph");
        let ins = super::super::insertion::Insertion::new(&g, 1).expect("fits");
        let list = [0, 2, 1];
        assert!(list.len() < super::super::profile::DEADLINE_EVERY);
        let long = Deadline::after(std::time::Duration::from_secs(600));
        let st = ins.pass(&list, 100, &long).expect("it completes");
        assert_eq!(st, vec![0, 2, 2], "3 waits for 2, which releases 1");
        let past = Deadline::after(std::time::Duration::ZERO);
        assert!(ins.pass(&list, 100, &past).is_none(), "it stops");
    }

    /// Two cores and `n` independent nodes of duration 1 (one op, one
    /// tiling): placed in turn, the k-th node walks the k / 2 busy units
    /// before its slot one step at a time (with one core the tree finds
    /// the slot at once: `MaxTree::first_fit`).
    fn two_core_walk(n: usize) -> (crate::instance::Instance, Vec<u32>) {
        let nodes: Vec<String> = (1..=n).map(|i| format!("[{i},0,1]")).collect();
        let text = format!(
            "SetSocInfo([[0,2]],[])\nAddOpInfo(1,1,0,[],[{}],[])\n\
             GetInferenceScheResult([],[[1,1,1]])\n",
            nodes.join(",")
        );
        let inst = crate::instance::parse_reader(text.as_bytes(), "walk.txt").expect("parses");
        (inst, vec![0])
    }

    /// A serial pass of fewer nodes than `DEADLINE_EVERY` looks at the
    /// clock by the steps of its placements' walks (`STEPS_BETWEEN_LOOKS`):
    /// here 1,000 placements walk about 250,000 steps, and a deadline
    /// already past ends the insertion pass and the right shift, which
    /// complete without one.
    #[test]
    fn serial_passes_look_at_the_clock_by_their_steps() {
        let n = 1000;
        assert!(
            n < super::super::profile::DEADLINE_EVERY,
            "the list alone never looks"
        );
        let (inst, choice) = two_core_walk(n);
        let g = NodeGraph::new(&inst, choice).expect("a graph");
        let list: Vec<u32> = (0..n as u32).collect();
        let ins = super::super::insertion::Insertion::new(&g, 1).expect("fits");
        let long = Deadline::after(std::time::Duration::from_secs(600));
        let past = Deadline::after(std::time::Duration::ZERO);
        let st = ins.pass(&list, n as u64, &long).expect("it completes");
        let packed: Vec<u64> = (0..n as u64).map(|i| i / 2).collect();
        assert_eq!(st, packed, "packed on the cores");
        assert!(ins.pass(&list, n as u64, &past).is_none(), "it stops");
        // Latest start first, every node walks from the end down to its
        // own slot: the same walk, backwards.
        let shifted = super::super::justify::right_shift(&g, &packed, &long);
        assert_eq!(
            shifted.as_deref(),
            Some(&packed[..]),
            "already right-justified"
        );
        assert!(
            super::super::justify::right_shift(&g, &packed, &past).is_none(),
            "it stops"
        );
    }
}
