//! Serial schedule generation with insertion under the hold rule.
//!
//! Nodes are placed one at a time in the order of a topological list, each at
//! the earliest time the profiles of the nodes placed before it allow; a later
//! node may land in a gap before an earlier one (insertion), so the schedule is
//! parallel although the list is serial. The parallel scheme (`sgs`) decides
//! at each instant which ready nodes start and can trap memory; this scheme
//! never revisits a placement.
//!
//! The hold rule enters through *open holds*. When a node `p` demanding type
//! `m` is placed while some same-type successor is not, its release time is
//! not known yet: `p` holds on `[start(p), horizon)`. When its last same-type
//! successor is placed, the hold is cut back to `[start(p), R(p, m))`, with
//! `R` the rule's release time (problem.md §4.4). A node with no same-type
//! successor holds `[start, end)` from the start. So at every moment the
//! memory profile is what the placed nodes hold, with open holds counted
//! until the horizon, and a placement fits when
//!
//! - its core type has a free core on `[t, t + dur)`;
//! - for every type it demands, the amount fits beside the profile on
//!   `[t, t + dur)` (no same-type successor) or on `[t, horizon)` (its own
//!   hold is open), where the holds it releases (it is the last same-type
//!   successor of a placed node `p`) count only up to `max(end(p), t, the
//!   other successors' starts)`.
//!
//! Both tests only grow easier as `t` grows for an open hold (the profile's
//! suffix maximum cannot rise with `t`), so the earliest `t` is found by
//! jumping past the last violating instant of each test in turn.
//!
//! Every placement keeps the profiles within the sizes at every instant
//! (the tests above; the profile of a type is never below what the placed
//! nodes hold under the rule, since an open hold is counted to the horizon
//! and cut back only to its release time once that is known), the list is
//! topological, and each node waits for its predecessors' ends: a completed
//! pass is a legal schedule (models/list.md, "Insertion passes"; checked by
//! the validator on every tiling choice of the corner instances,
//! tests/corners.rs, and by the caller before a schedule is kept).
//!
//! A list whose serial schedule is legal (a guide) leaves room for every
//! node: when a node is placed, the open holds are exactly what the serial
//! schedule holds at its start, releases included (so the suffix test holds
//! at the latest end so far, and the window test after it). Two exceptions
//! are handled on the way, the first only in part (one holder's successors,
//! not chains of joint starts): where
//! the serial schedule starts several successors of one holder at once (a
//! joint start) the node is placed together with the holder's other
//! unplaced successors at one instant (`place_jointly`); where a node needs
//! what a later node of the list releases at the same instant (equal starts
//! in a schedule's order), it waits and is tried again after each placement,
//! its open holds reserved at the horizon so that later nodes opening holds
//! of those types wait behind it. A pass fails when too many nodes wait, one
//! still waits at the end, a node fits nowhere below the horizon, or its
//! walks pass their budget (`STEP_BUDGET_PER_NODE`).
//!
//! A legal schedule's start order, whose equal starts (ties) are consecutive,
//! has its own pass (`pass_of_starts`): a node that cannot start at its
//! ready time alone is placed, alone or with the next nodes of the list, at
//! whichever instant is earliest. Its tie, placed together at the
//! schedule's start, always fits there (by induction every node so far
//! starts no later than in the schedule, so every hold and run the profiles
//! count from that instant on is one the schedule has at it), so the pass
//! completes and no node starts later than in the schedule, where ties
//! hold at most `LOOKAHEAD` + 1 nodes and no edge (models/list.md,
//! "Insertion passes"). The waiting above instead deadlocks there: a node
//! whose room a later node of its tie frees waits, its reservation holds
//! back that later node, and every node after waits behind both.
//!
//! Cost: O((n + w) log H + e) per pass for n nodes, e edges (op edges
//! counted once per op), horizon H and w retries of waiting nodes, with one
//! segment tree of H leaves per core and memory type; passes run only where
//! `MAX_CELLS` bounds those trees. Time is counted in units of the
//! durations' greatest common divisor (a 5-unit grid takes a fifth of the
//! leaves): every start is a sum of durations, so nothing is lost.

use crate::graph::NodeGraph;
use crate::instance::TypeIdx;
use crate::schedule::Schedule;
use crate::stop::Deadline;

pub use super::profile::MAX_CELLS;
use super::profile::{Looks, MaxTree, cells_fit, sizes_and_cores, unit_of, widest_horizon};

/// The static part of the scheme for one node graph.
pub struct Insertion<'g, 'a> {
    g: &'g NodeGraph<'a>,
    /// Per node, the first of its slots (one per memory type it demands, in
    /// `g.mems(v)` order, amounts above 0 only); `slot[n]` is the count.
    slot: Vec<u32>,
    /// Per slot: its memory type and amount.
    slot_mem: Vec<(TypeIdx, i64)>,
    /// Per slot of a node that is not a sink: its same-type intra successors.
    intra_pending: Vec<u32>,
    /// Per (op, type): the same-type sources of the op's successor ops.
    op_pending: Vec<u32>,
    n_types: usize,
    caps: Vec<i64>,
    cores: Vec<i64>,
    /// The greatest common divisor of the durations (1 when all are 0):
    /// profiles count time in these units. Exact: every placement is at a
    /// predecessor's end or just past a profile's step, both multiples.
    unit: u64,
}

/// A completed pass: start times, in node order.
pub type Starts = Vec<u64>;

impl<'g, 'a> Insertion<'g, 'a> {
    /// `None` when a size is 2^52 or more: a profile's i64 holds the size
    /// plus the reservations of at most `MAX_WAITING` (2^10) waiting nodes,
    /// each at most the size.
    /// Also `None` when a node demands more than a size (its tiling is
    /// unusable, problem.md §6), or when not even a pass of horizon `least` would fit
    /// `MAX_CELLS`: checked before anything a node is allocated, so that
    /// huge graphs cost one scan of the durations.
    pub fn new(g: &'g NodeGraph<'a>, least: u64) -> Option<Self> {
        let inst = g.inst;
        let n_types = inst.platform.mems.len();
        let n = g.n_nodes();
        let unit = unit_of(g);
        let profiles = (inst.platform.cores.len() + n_types) as u64;
        if !cells_fit(least, unit, profiles) {
            return None;
        }
        let (caps, cores) = sizes_and_cores(inst)?;
        let mut slot = Vec::with_capacity(n + 1);
        let mut slot_mem = Vec::new();
        for v in 0..n as u32 {
            slot.push(slot_mem.len() as u32);
            for e in g.mems(v) {
                if e.amount > 0 {
                    slot_mem.push((e.mem, i64::try_from(e.amount).ok()?));
                }
            }
        }
        slot.push(slot_mem.len() as u32);
        if slot_mem.iter().any(|&(m, a)| a > caps[m as usize]) {
            return None; // a tiling no schedule can run (problem.md §6)
        }
        let mut intra_pending = vec![0u32; slot_mem.len()];
        for v in 0..n as u32 {
            for s in slot[v as usize]..slot[v as usize + 1] {
                let m = slot_mem[s as usize].0;
                intra_pending[s as usize] =
                    g.intra_succs(v).filter(|&w| g.demand(w, m) > 0).count() as u32;
            }
        }
        let n_ops = g.n_ops();
        let mut src = vec![0u32; n_ops * n_types];
        for op in 0..n_ops as u32 {
            for v in g.sources(op) {
                for s in slot[v as usize]..slot[v as usize + 1] {
                    src[op as usize * n_types + slot_mem[s as usize].0 as usize] += 1;
                }
            }
        }
        let mut op_pending = vec![0u32; n_ops * n_types];
        for a in 0..n_ops as u32 {
            for &b in g.op_succs(a) {
                for m in 0..n_types {
                    op_pending[a as usize * n_types + m] += src[b as usize * n_types + m];
                }
            }
        }
        Some(Insertion {
            unit,
            g,
            slot,
            slot_mem,
            intra_pending,
            op_pending,
            n_types,
            caps,
            cores,
        })
    }

    /// A node's duration in the profiles' units.
    fn dur(&self, v: u32) -> u64 {
        self.g.dur(v) / self.unit
    }

    /// Whether a pass with this horizon stays within `MAX_CELLS` (each
    /// profile a tree over the next power of two above the horizon, in
    /// units of the durations' greatest common divisor).
    pub fn fits(&self, horizon: u64) -> bool {
        cells_fit(horizon, self.unit, self.profiles())
    }

    /// The largest horizon that `fits`.
    pub fn widest(&self) -> u64 {
        widest_horizon(self.unit, self.profiles())
    }

    /// The number of profiles a pass keeps: one a core type, one a memory
    /// type.
    fn profiles(&self) -> u64 {
        (self.cores.len() + self.n_types) as u64
    }

    /// Whether the hold of `v`'s slot `s` is open when `v` is placed: it has
    /// a same-type successor (none is placed before it in a topological list).
    fn open(&self, v: u32, s: usize) -> bool {
        if self.g.is_sink(v) {
            let op = self.g.node_op[v as usize] as usize;
            self.op_pending[op * self.n_types + self.slot_mem[s].0 as usize] > 0
        } else {
            self.intra_pending[s] > 0
        }
    }

    /// The slot of `v` for type `m`, if `v` demands it.
    fn slot_of(&self, v: u32, m: TypeIdx) -> Option<usize> {
        (self.slot[v as usize]..self.slot[v as usize + 1])
            .map(|s| s as usize)
            .find(|&s| self.slot_mem[s].0 == m)
    }

    /// `f(m, holder)` for each memory type `m` that `v` demands and each
    /// hold of `m` that waits for `v` among others (problem.md §4.4): the
    /// slot of an intra-op predecessor demanding `m`, and, where `v` is a
    /// source, the sinks' holds of each predecessor op, which all wait on
    /// one (op, type) count. What a placement of `v` may release, what it
    /// does release, and which nodes start jointly with it are read off
    /// these. Inlined: it runs in every placement's search and commit, where
    /// the closure's call showed in the passes' time.
    #[inline(always)]
    fn for_each_holder(&self, v: u32, mut f: impl FnMut(TypeIdx, Holder)) {
        let g = self.g;
        let vi = v as usize;
        for s in self.slot[vi] as usize..self.slot[vi + 1] as usize {
            let m = self.slot_mem[s].0;
            for p in g.intra_preds(v) {
                if let Some(slot) = self.slot_of(p, m) {
                    f(m, Holder::Intra { p, slot });
                }
            }
            if g.is_source(v) {
                for &op in g.op_preds(g.node_op[vi]) {
                    let key = op as usize * self.n_types + m as usize;
                    f(m, Holder::OpSinks { op, key });
                }
            }
        }
    }

    /// Places `list` (a topological order of every node) with every end at
    /// most `horizon`, or until `deadline` (looked at every
    /// `DEADLINE_EVERY` nodes of the list or `STEPS_BETWEEN_LOOKS` steps of
    /// the placements, whichever comes first, and before each round of
    /// retries while nodes wait). A node that fits nowhere yet (a later node of the
    /// list would release what it needs: equal starts in a schedule's order)
    /// waits, up to `MAX_WAITING` nodes at once, and is tried again after
    /// each placement. `None` when nodes still wait at the end, too many
    /// wait, the steps pass `STEP_BUDGET_PER_NODE`, or the horizon is too
    /// large (`fits`).
    pub fn pass(&self, list: &[u32], horizon: u64, deadline: &Deadline) -> Option<Starts> {
        self.run(list, horizon, deadline, false)
    }

    /// `pass` of a legal schedule's start order (equal starts consecutive):
    /// each node alone or with the next nodes of the list (its tie), at
    /// whichever instant is earliest (`place_tied`); it completes with no
    /// node later than in the schedule where each tie has at most
    /// `LOOKAHEAD` + 1 nodes and no edge (module doc). Any list is legal
    /// input: the passes it completes are legal schedules.
    pub fn pass_of_starts(
        &self,
        list: &[u32],
        horizon: u64,
        deadline: &Deadline,
    ) -> Option<Starts> {
        self.run(list, horizon, deadline, true)
    }

    fn run(&self, list: &[u32], horizon: u64, deadline: &Deadline, ties: bool) -> Option<Starts> {
        let g = self.g;
        if !self.fits(horizon) || list.len() != g.n_nodes() {
            return None;
        }
        let mut st = PassState::new(self, horizon / self.unit);
        // Nodes that wait, and whether each holds a reservation.
        let mut waiting: Vec<(u32, bool)> = Vec::new();
        let mut looks = Looks::paced(list.len(), deadline);
        // Whether the steps so far (the node at `pos` included, its retries
        // too) pass the budget at that position; logged when they do.
        let over = |pos: usize, steps: u64, waiting: usize| {
            let over = steps > STEP_BUDGET_PER_NODE.saturating_mul(pos as u64 + 1) + 10_000;
            if over {
                log::debug!(
                    "insertion pass: gave up on its step budget at position {pos} of {}, {waiting} waiting",
                    list.len()
                );
            }
            over
        };
        for (pos, &v) in list.iter().enumerate() {
            if looks.stop(pos, st.steps, deadline) || over(pos, st.steps, waiting.len()) {
                return None;
            }
            if st.start[v as usize] != UNPLACED {
                continue; // placed with a joint group
            }
            let placed = if ties {
                st.place_tied(self, v, &list[pos + 1..])
            } else {
                st.place(self, v) || st.place_jointly(self, v)
            };
            if !placed {
                if waiting.len() == MAX_WAITING {
                    return None;
                }
                let reserve = st.ready(self, v).is_some();
                if reserve {
                    st.reserve(self, v, 1);
                }
                waiting.push((v, reserve));
                continue;
            }
            // Each placement may release what a waiting node lacks. The
            // retries may cost more than the list itself (up to
            // `MAX_WAITING` nodes after every placement, from the first
            // again after each success): the deadline and the step budget
            // are looked at before each round.
            let mut i = 0;
            while i < waiting.len() {
                if i == 0 && (deadline.expired() || over(pos, st.steps, waiting.len())) {
                    return None;
                }
                let (w, reserved) = waiting[i];
                if reserved {
                    st.reserve(self, w, -1);
                }
                if st.start[w as usize] != UNPLACED
                    || st.place(self, w)
                    || st.place_jointly(self, w)
                {
                    waiting.remove(i);
                    i = 0;
                } else {
                    let reserve = st.ready(self, w).is_some();
                    if reserve {
                        st.reserve(self, w, 1);
                    }
                    waiting[i].1 = reserve;
                    i += 1;
                }
            }
        }
        if !waiting.is_empty() {
            return None;
        }
        let mut start = st.start;
        for s in &mut start {
            *s *= self.unit;
        }
        Some(start)
    }

    /// A schedule (cores assigned) from a completed pass.
    pub fn schedule(&self, start: Starts) -> Schedule {
        let g = self.g;
        Schedule::with_cores(
            g.inst,
            g.choice.clone(),
            start,
            |v| g.dur(v as u32),
            |v| usize::from(g.core[v]),
        )
    }
}

/// Steps (`PassState::steps`: the placements' walks, retries of waiting
/// nodes included) a pass may have taken by each position of its list, per
/// position so far, beyond a fixed 10,000. Where memory keeps many nodes
/// waiting, each retry walks the profiles up to the horizon and fails, and
/// such a pass spends its steps early in the list: it ends on this budget
/// instead of running to its deadline. Passes that complete on the
/// benchmark sets stay well within it at every position
/// (results/shapes-engines.md, "The insertion passes' step budget").
const STEP_BUDGET_PER_NODE: u64 = 256;

/// Nodes a pass lets wait for a later placement at once.
const MAX_WAITING: usize = 1024;
const _: () = assert!(
    MAX_WAITING <= 1 << 10,
    "the profiles' i64 bound (Insertion::new)"
);

const UNPLACED: u64 = u64::MAX;

/// The profiles and counters of one pass.
struct PassState {
    horizon: u64,
    /// Leaves: one past the horizon (a node of duration 0 may start there).
    h: usize,
    mem: Vec<MaxTree>,
    core: Vec<MaxTree>,
    start: Vec<u64>,
    /// Per slot: same-type intra successors not placed yet.
    intra_left: Vec<u32>,
    /// Per (op, type): same-type sources of successor ops not placed yet.
    op_left: Vec<u32>,
    /// Latest start of a same-type successor placed so far, per slot and
    /// per (op, type).
    slot_last: Vec<u64>,
    op_last: Vec<u64>,
    /// Per op: sinks not placed yet, and the latest end of those placed.
    sinks_left: Vec<u32>,
    op_end: Vec<u64>,
    /// Holds the node being placed releases, taken off the profiles from
    /// `from` on while its instant is searched. Empty but from a search
    /// that found an instant (`search_to_commit`) to the commit after it.
    releases: Vec<Release>,
    /// Steps of the placements' walks so far (`profile::Looks`).
    steps: u64,
    /// While a joint placement is tried: what to undo.
    log: Option<Vec<Undo>>,
}

/// Adds `d` on `[l, r)` of a pass's profile over `h` cells: where the range
/// runs to the last cell (a hold open until the horizon, or released from
/// some instant on), on every cell from `l` on (`MaxTree::add_from`), so
/// that every add covering the last cell is one of those and the cells past
/// it hold what it holds (models/list.md, "The adds that run to the
/// horizon").
fn add_until(tree: &mut MaxTree, l: usize, r: usize, h: usize, d: i64) {
    if r == h {
        if l < h {
            tree.add_from(l, d);
        }
    } else {
        tree.range_add(l, r, d);
    }
}

/// A hold the node being placed releases: its slot, type and amount, and
/// the instant from which the search counts it as gone (its fixed part, or
/// the node's ready time if later).
#[derive(Clone, Copy)]
struct Release {
    slot: usize,
    mem: usize,
    from: usize,
    amount: i64,
}

/// A hold that waits for a node among others (`Insertion::for_each_holder`).
#[derive(Clone, Copy)]
enum Holder {
    /// An intra-op predecessor `p`'s hold, in its slot.
    Intra { p: u32, slot: usize },
    /// The holds of predecessor op `op`'s sinks, counted together at `key`
    /// (op, type) of `op_left` and `op_last`.
    OpSinks { op: u32, key: usize },
}

/// One change a joint placement may have to undo.
enum Undo {
    /// A profile add: (core profile, type, from, to, amount).
    Add(bool, usize, usize, usize, i64),
    /// A node placed.
    Start(u32),
    /// A same-type intra successor placed: the slot's pending count, and
    /// its latest successor start before.
    Intra(usize, u64),
    /// A same-type source of a successor op placed: the (op, type) pending
    /// count, and its latest successor start before.
    OpSucc(usize, u64),
    /// A sink placed: the op's sinks left, and its latest sink end before.
    Sink(usize, u64),
}

/// Nodes after a node that a pass of a schedule's start order tries to
/// place with it (its tie); a larger tie may make the pass fail or start a
/// node later than the schedule (legal still).
const LOOKAHEAD: usize = 16;
/// Largest group a joint placement forms.
const MAX_GROUP: usize = 32;

impl PassState {
    fn new(ins: &Insertion, horizon: u64) -> Self {
        let g = ins.g;
        let h = horizon as usize + 1;
        PassState {
            horizon,
            h,
            mem: (0..ins.n_types).map(|_| MaxTree::new(h)).collect(),
            // A type of one core is where a placement's window crosses many
            // busy stretches (one machine's timeline): there its tree keeps
            // the runs `first_fit` needs; elsewhere walks are short and the
            // runs' upkeep on every add would cost more than it saves
            // (results/shapes-engines.md).
            core: ins
                .cores
                .iter()
                .map(|&c| {
                    if c == 1 {
                        MaxTree::with_fit(h)
                    } else {
                        MaxTree::new(h)
                    }
                })
                .collect(),
            start: vec![UNPLACED; g.n_nodes()],
            intra_left: ins.intra_pending.clone(),
            op_left: ins.op_pending.clone(),
            slot_last: vec![0; ins.slot_mem.len()],
            op_last: vec![0; g.n_ops() * ins.n_types],
            sinks_left: (0..g.n_ops() as u32)
                .map(|o| g.sinks(o).count() as u32)
                .collect(),
            op_end: vec![0; g.n_ops()],
            releases: Vec::new(),
            steps: 0,
            log: None,
        }
    }

    /// When `v`'s predecessors are all placed, the earliest instant it may
    /// start; `None` otherwise.
    fn ready(&self, ins: &Insertion, v: u32) -> Option<u64> {
        let g = ins.g;
        let mut ready = 0u64;
        for p in g.intra_preds(v) {
            let s = self.start[p as usize];
            if s == UNPLACED {
                return None;
            }
            ready = ready.max(s + ins.dur(p));
        }
        if g.is_source(v) {
            for &a in g.op_preds(g.node_op[v as usize]) {
                if self.sinks_left[a as usize] > 0 {
                    return None;
                }
                ready = ready.max(self.op_end[a as usize]);
            }
        }
        Some(ready)
    }

    /// Places `v` at the earliest instant that fits below the horizon; false
    /// (nothing changed) when its predecessors are not all placed or no
    /// instant fits.
    fn place(&mut self, ins: &Insertion, v: u32) -> bool {
        match self.search_to_commit(ins, v) {
            Some(t) => {
                self.commit(ins, v, t);
                true
            }
            None => false,
        }
    }

    /// `earliest`, for a commit at the instant found: the holds `v`
    /// releases stay off the profiles from where the search took them off
    /// (in `releases`), and the commit adds back only the part before their
    /// release time, two adds to the horizon fewer a release. Under a
    /// trial (`log`) they go back at once: the search's adds are not logged.
    fn search_to_commit(&mut self, ins: &Insertion, v: u32) -> Option<u64> {
        if self.log.is_some() {
            self.earliest(ins, v)
        } else {
            self.search(ins, v)
        }
    }

    /// The earliest instant `v` fits at below the horizon, when its
    /// predecessors are all placed.
    fn earliest(&mut self, ins: &Insertion, v: u32) -> Option<u64> {
        let t = self.search(ins, v)?;
        self.restore_releases();
        Some(t)
    }

    /// Puts back on the profiles what `search` took off for the releases
    /// left in `releases`, and forgets them.
    fn restore_releases(&mut self) {
        let h = self.h;
        for r in self.releases.drain(..) {
            add_until(&mut self.mem[r.mem], r.from, h, h, r.amount);
        }
    }

    /// `earliest`, leaving the holds `v` releases off the profiles from
    /// their `from` on (in `releases`) where it finds an instant; nothing
    /// changed where it finds none.
    fn search(&mut self, ins: &Insertion, v: u32) -> Option<u64> {
        let g = ins.g;
        let vi = v as usize;
        let d = ins.dur(v);
        if self.start[vi] != UNPLACED {
            return None;
        }
        let ready = self.ready(ins, v)?;
        if ready.saturating_add(d) > self.horizon {
            return None;
        }
        let slots = ins.slot[vi] as usize..ins.slot[vi + 1] as usize;
        // The holds this placement releases, counted as gone from
        // max(their fixed part, ready) on during the search.
        let h = self.h;
        let mut releases = std::mem::take(&mut self.releases);
        releases.clear();
        let mut push = |m: TypeIdx, p: u32, slot: usize, last: u64| {
            let fixed = self.release_time(ins, p, last);
            releases.push(Release {
                slot,
                mem: m as usize,
                from: fixed.max(ready) as usize,
                amount: ins.slot_mem[slot].1,
            });
        };
        ins.for_each_holder(v, |m, holder| match holder {
            Holder::Intra { p, slot } => {
                if self.intra_left[slot] == 1 {
                    push(m, p, slot, self.slot_last[slot]);
                }
            }
            Holder::OpSinks { op, key } => {
                if self.op_left[key] == 1 {
                    for p in g.sinks(op) {
                        if let Some(slot) = ins.slot_of(p, m) {
                            push(m, p, slot, self.op_last[key]);
                        }
                    }
                }
            }
        });
        self.releases = releases;
        for r in &self.releases {
            add_until(&mut self.mem[r.mem], r.from, h, h, -r.amount);
        }
        let ct = usize::from(g.core[vi]);
        let mut t = ready;
        let placed = loop {
            self.steps += 1;
            let before = t;
            for s in slots.clone() {
                let (m, a) = ins.slot_mem[s];
                let thr = ins.caps[m as usize] - a;
                let tu = t as usize;
                let hit = if ins.open(v, s) {
                    self.mem[m as usize].last_above(tu, h, thr)
                } else if d > 0 {
                    self.mem[m as usize].last_above(tu, tu + d as usize, thr)
                } else {
                    None
                };
                if let Some(x) = hit {
                    t = x as u64 + 1;
                }
            }
            // Where the window from t is busy: past its last busy cell, and
            // where the tree keeps runs, on to the first start with a core
            // free throughout at once (a walk window by window takes a step
            // per busy stretch).
            if d > 0
                && let Some(x) =
                    self.core[ct].last_above(t as usize, (t + d) as usize, ins.cores[ct] - 1)
            {
                if self.core[ct].fits() {
                    match self.core[ct].first_fit(x + 1, d as usize, ins.cores[ct]) {
                        Some(p) => t = p as u64,
                        None => break false,
                    }
                } else {
                    t = x as u64 + 1;
                }
            }
            if t + d > self.horizon {
                break false;
            }
            if t == before {
                break true;
            }
        };
        if !placed {
            self.restore_releases();
        }
        placed.then_some(t)
    }

    /// Reserves (`sign` 1) or frees (-1) the open holds of a node that waits
    /// for memory, at the horizon's last instant: later nodes of the list
    /// that would open holds of the same types wait behind it instead of
    /// taking the room its turn needs.
    fn reserve(&mut self, ins: &Insertion, v: u32, sign: i64) {
        let vi = v as usize;
        for s in ins.slot[vi] as usize..ins.slot[vi + 1] as usize {
            if ins.open(v, s) {
                let (m, a) = ins.slot_mem[s];
                add_until(
                    &mut self.mem[m as usize],
                    self.h - 1,
                    self.h,
                    self.h,
                    sign * a,
                );
            }
        }
    }

    /// The profile of memory type `i`, or of core type `i` when `core`.
    fn profile(&mut self, core: bool, i: usize) -> &mut MaxTree {
        if core {
            &mut self.core[i]
        } else {
            &mut self.mem[i]
        }
    }

    /// Adds `d` on `[l, r)` of a profile (memory type, or core type when
    /// `core`), logged when a joint placement may be undone.
    fn add(&mut self, core: bool, i: usize, l: usize, r: usize, d: i64) {
        let h = self.h;
        add_until(self.profile(core, i), l, r, h, d);
        if let Some(log) = &mut self.log {
            log.push(Undo::Add(core, i, l, r, d));
        }
    }

    /// Places `v` at `t` (no test) and releases the holds it ends; after
    /// `search_to_commit` found `t`, the holds in `releases` are off the
    /// profiles from their `from` on already, and each release adds back
    /// the part before its release time instead.
    fn commit(&mut self, ins: &Insertion, v: u32, t: u64) {
        debug_assert!(self.releases.is_empty() || self.log.is_none());
        let mut searched_off = std::mem::take(&mut self.releases);
        let g = ins.g;
        let vi = v as usize;
        let op = g.node_op[vi] as usize;
        let d = ins.dur(v);
        let h = self.h;
        let ct = usize::from(g.core[vi]);
        let slots = ins.slot[vi] as usize..ins.slot[vi + 1] as usize;
        self.start[vi] = t;
        if let Some(log) = &mut self.log {
            log.push(Undo::Start(v));
        }
        let tu = t as usize;
        if d > 0 {
            self.add(true, ct, tu, tu + d as usize, 1);
        }
        // Releases: v is the last same-type successor of these holders.
        ins.for_each_holder(v, |m, holder| match holder {
            Holder::Intra { p, slot } => {
                if let Some(log) = &mut self.log {
                    log.push(Undo::Intra(slot, self.slot_last[slot]));
                }
                self.slot_last[slot] = self.slot_last[slot].max(t);
                self.intra_left[slot] -= 1;
                if self.intra_left[slot] == 0 {
                    let last = self.slot_last[slot];
                    self.release(ins, &mut searched_off, p, slot, m, last);
                }
            }
            Holder::OpSinks { op, key } => {
                if let Some(log) = &mut self.log {
                    log.push(Undo::OpSucc(key, self.op_last[key]));
                }
                self.op_last[key] = self.op_last[key].max(t);
                self.op_left[key] -= 1;
                if self.op_left[key] == 0 {
                    for p in g.sinks(op) {
                        if let Some(slot) = ins.slot_of(p, m) {
                            let last = self.op_last[key];
                            self.release(ins, &mut searched_off, p, slot, m, last);
                        }
                    }
                }
            }
        });
        // Its own holds: open until its same-type successors are placed.
        for s in slots {
            let (m, a) = ins.slot_mem[s];
            let to = if ins.open(v, s) { h } else { tu + d as usize };
            self.add(false, m as usize, tu, to, a);
        }
        if g.is_sink(v) {
            if let Some(log) = &mut self.log {
                log.push(Undo::Sink(op, self.op_end[op]));
            }
            self.sinks_left[op] -= 1;
            self.op_end[op] = self.op_end[op].max(t + d);
        }
        // What the search took off for a hold this placement did not end
        // (none: both find the same holds) goes back.
        self.releases = searched_off;
        self.restore_releases();
    }

    /// Holder `p`'s release time by the rule (problem.md §4.4) with its
    /// latest same-type successor starting at `last`: its end or `last`,
    /// whichever is later.
    fn release_time(&self, ins: &Insertion, p: u32, last: u64) -> u64 {
        (self.start[p as usize] + ins.dur(p)).max(last)
    }

    /// Cuts the hold of `p`'s slot `ps` (type `m`) back to `[.., r)`, `r`
    /// its release time with its last same-type successor at `last`: off
    /// the profile from `r` on, or, where the search took it off from its
    /// `from` on already (in `searched_off`), back on over `[from, r)`.
    fn release(
        &mut self,
        ins: &Insertion,
        searched_off: &mut Vec<Release>,
        p: u32,
        ps: usize,
        m: TypeIdx,
        last: u64,
    ) {
        let (r, a, m) = (
            self.release_time(ins, p, last) as usize,
            ins.slot_mem[ps].1,
            m as usize,
        );
        match searched_off.iter().position(|x| x.slot == ps && x.mem == m) {
            Some(i) => {
                let x = searched_off.swap_remove(i);
                if r > x.from {
                    self.add(false, m, x.from, r, a);
                }
            }
            None => self.add(false, m, r, self.h, -a),
        }
    }

    /// Undoes the logged changes back to `mark`.
    fn undo(&mut self, mark: usize) {
        let mut log = self.log.take().expect("a joint placement logs");
        while log.len() > mark {
            match log.pop().expect("above mark") {
                Undo::Add(core, i, l, r, d) => {
                    let h = self.h;
                    add_until(self.profile(core, i), l, r, h, -d);
                }
                Undo::Start(v) => self.start[v as usize] = UNPLACED,
                Undo::Intra(ps, last) => {
                    self.intra_left[ps] += 1;
                    self.slot_last[ps] = last;
                }
                Undo::OpSucc(k, last) => {
                    self.op_left[k] += 1;
                    self.op_last[k] = last;
                }
                Undo::Sink(op, end) => {
                    self.sinks_left[op] += 1;
                    self.op_end[op] = end;
                }
            }
        }
        self.log = Some(log);
    }

    /// Places `v` together with the other unplaced same-type successors of
    /// the holders it would release, all at one instant (the joint start of
    /// problem.md §4.4: a holder of all of a type hands over to several
    /// successors at once). The earliest instant from their ready times on
    /// where, with all of them placed, every profile stays within its size;
    /// false (nothing changed) when a member is not ready or none fits.
    fn place_jointly(&mut self, ins: &Insertion, v: u32) -> bool {
        let group = self.joint_group(ins, v);
        group.len() >= 2 && self.place_group(ins, &group)
    }

    /// `v` and the other unplaced same-type successors of the holders it
    /// would release (sorted, without repeats).
    fn joint_group(&self, ins: &Insertion, v: u32) -> Vec<u32> {
        let g = ins.g;
        let mut group = vec![v];
        let mut unplaced = |w: u32, m: TypeIdx| {
            if g.demand(w, m) > 0 && self.start[w as usize] == UNPLACED {
                group.push(w);
            }
        };
        ins.for_each_holder(v, |m, holder| match holder {
            Holder::Intra { p, .. } => g.intra_succs(p).for_each(|w| unplaced(w, m)),
            Holder::OpSinks { op, key } => {
                if self.op_left[key] > 1 {
                    for &b in g.op_succs(op) {
                        g.sources(b).for_each(|w| unplaced(w, m));
                    }
                }
            }
        });
        group.sort_unstable();
        group.dedup();
        group
    }

    /// `v` placed in a schedule's start order: alone or with the next `k`
    /// unplaced nodes of the list for `k` from 1 to `LOOKAHEAD`, whichever
    /// fits earliest (alone, then the smaller group, among equal instants);
    /// the groups are tried only where `v` alone cannot start at its ready
    /// time. False (nothing changed) where none fits. In a schedule's start
    /// order the nodes after `v` that start with it are its tie: placed
    /// together at its start they fit (models/list.md, "Insertion passes"),
    /// where alone it may fit only later, or nowhere. (`place_jointly`'s
    /// group is not tried: it may take nodes that start later in the
    /// schedule, whose holds would then be in the way of the nodes between.)
    fn place_tied(&mut self, ins: &Insertion, v: u32, rest: &[u32]) -> bool {
        let Some(ready) = self.ready(ins, v) else {
            return false;
        };
        let alone = self.search_to_commit(ins, v);
        if alone == Some(ready) {
            self.commit(ins, v, ready);
            return true;
        }
        self.restore_releases();
        let mut best: Option<(u64, usize)> = alone.map(|t| (t, 1));
        let mut group = vec![v];
        for &w in rest {
            if group.len() > LOOKAHEAD {
                break;
            }
            if self.start[w as usize] != UNPLACED {
                continue;
            }
            if self.ready(ins, w).is_none() {
                break;
            }
            group.push(w);
            let before = best.map_or(u64::MAX, |b| b.0);
            if let Some(t) = self.group_instant(ins, &group, before, false) {
                best = Some((t, group.len()));
            }
        }
        let Some((t, k)) = best else {
            return false;
        };
        for &w in &group[..k] {
            self.commit(ins, w, t);
        }
        true
    }

    /// Places every node of `group` at one instant (`group_instant`); false
    /// (nothing changed) where none fits.
    fn place_group(&mut self, ins: &Insertion, group: &[u32]) -> bool {
        self.group_instant(ins, group, u64::MAX, true).is_some()
    }

    /// The earliest instant, from the ready times of `group` on, at which
    /// every profile stays within its size with all of them placed there;
    /// `None` when a member is not ready, the group is larger than
    /// `MAX_GROUP`, or no instant below the horizon and `before` fits. Tried
    /// by placing and undoing; with `keep`, the group stays placed at the
    /// instant found.
    fn group_instant(
        &mut self,
        ins: &Insertion,
        group: &[u32],
        before: u64,
        keep: bool,
    ) -> Option<u64> {
        let nt = ins.n_types;
        if group.len() > MAX_GROUP {
            return None;
        }
        let mut t = 0u64;
        for &w in group {
            t = t.max(self.ready(ins, w)?);
        }
        self.log = Some(Vec::new());
        let h = self.h;
        let found = loop {
            if t >= before
                || group
                    .iter()
                    .any(|&w| t.saturating_add(ins.dur(w)) > self.horizon)
            {
                break None;
            }
            for &w in group {
                self.commit(ins, w, t);
            }
            // The last instant some profile is over its size, from t on.
            let tu = t as usize;
            let mut over: Option<usize> = None;
            for m in 0..nt {
                over = over.max(self.mem[m].last_above(tu, h, ins.caps[m]));
            }
            for (c, &count) in ins.cores.iter().enumerate() {
                over = over.max(self.core[c].last_above(tu, h, count));
            }
            if over.is_some() || !keep {
                self.undo(0);
            }
            match over {
                None => break Some(t),
                Some(x) => t = x as u64 + 1,
            }
        };
        self.log = None;
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{GenConfig, generate};

    /// The value of cell `x` of `tree` is `want`.
    fn cell_is(tree: &MaxTree, x: usize, want: i64) -> bool {
        tree.last_above(x, x + 1, want - 1).is_some() && tree.last_above(x, x + 1, want).is_none()
    }

    /// Compares every profile cell below the horizon with what the placed
    /// nodes hold and run there, recomputed from their starts: a hold ends
    /// at the rule's release time once every same-type successor is placed
    /// and runs to the horizon before.
    fn check(ins: &Insertion, st: &PassState) {
        let g = ins.g;
        let placed = |v: u32| st.start[v as usize] != UNPLACED;
        let (mut mem, mut core) = (
            vec![vec![0i64; st.h]; ins.n_types],
            vec![vec![0i64; st.h]; ins.cores.len()],
        );
        for v in (0..g.n_nodes() as u32).filter(|&v| placed(v)) {
            let (s, d) = (st.start[v as usize] as usize, ins.dur(v) as usize);
            core[usize::from(g.core[v as usize])][s..s + d]
                .iter_mut()
                .for_each(|c| *c += 1);
            for k in ins.slot[v as usize] as usize..ins.slot[v as usize + 1] as usize {
                let (m, a) = ins.slot_mem[k];
                let (mut end, mut open) = (s + d, false);
                g.for_each_succ(v, |w| {
                    if g.demand(w, m) > 0 {
                        if placed(w) {
                            end = end.max(st.start[w as usize] as usize);
                        } else {
                            open = true;
                        }
                    }
                });
                let end = if open { st.h } else { end };
                mem[m as usize][s..end].iter_mut().for_each(|c| *c += a);
            }
        }
        for (trees, want, what) in [(&st.mem, &mem, "memory"), (&st.core, &core, "core")] {
            for (i, (tree, cells)) in trees.iter().zip(want).enumerate() {
                for (x, &c) in cells.iter().enumerate() {
                    assert!(cell_is(tree, x, c), "{what} type {i}, cell {x}: want {c}");
                }
            }
        }
    }

    /// The lemma on profiles (models/list.md) made exact: after every
    /// placement of a pass, alone or joint, each profile is what the placed
    /// nodes hold and run, open holds to the horizon. It fails if a
    /// placement adds back a released hold's search-time removal one cell
    /// short or one cell long.
    #[test]
    fn the_profiles_are_what_the_placed_nodes_hold() {
        let mut placements = 0;
        for seed in 1..=30 {
            let cfg = GenConfig {
                seed,
                ops: 10,
                nodes_min: 2,
                nodes_max: 6,
                graphs: 2,
                mem_types: 2,
                tightness: 1.0,
                ..GenConfig::default()
            };
            let generated = generate(&cfg).expect("generator");
            let g = NodeGraph::new(&generated.instance, generated.witness.choice.clone())
                .expect("graph");
            let keys = crate::list::priority::keys_from_starts(&generated.witness.start);
            let list = crate::list::sgs::activity_list(&g, &keys);
            let horizon = u64::try_from(generated.witness_makespan).unwrap() * 2;
            let ins = Insertion::new(&g, horizon).expect("profiles");
            let mut st = PassState::new(&ins, horizon / ins.unit);
            for &v in &list {
                if st.start[v as usize] != UNPLACED {
                    continue;
                }
                if !(st.place(&ins, v) || st.place_jointly(&ins, v)) {
                    break;
                }
                check(&ins, &st);
                placements += 1;
            }
        }
        assert!(placements > 500, "{placements} placements checked");
    }
}
