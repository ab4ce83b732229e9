//! The schedule generation scheme with the real memory rule (problem.md §4.4).
//!
//! Time jumps from one completion to the next. At each instant the scheme starts
//! ready nodes in priority order while a core of their type is free and memory
//! allows. A node's memory hold ends only when all its same-type successors have
//! started, so starting a successor may *release* memory: the admission test uses
//! the net change (acquisitions minus the holds that this start releases). When
//! only a joint start of several successors releases a holder (the task book's
//! 1024 -> 512 + 512 case), the scheme starts that group at one instant.
//!
//! Modes (`Mode`), from most to least parallel:
//! - `Parallel`: every ready node that fits starts. Greedy starts can trap
//!   memory (holders whose successors cannot fit): the pass then reports a
//!   deadlock.
//! - `Window(k)`: parallel with at most k ops in flight; `Reserve`: parallel,
//!   admitting an op only when its serial memory peak fits beside what the
//!   ops in flight may still take. Both deadlock less often, not never.
//! - `Guarded(guide)`: parallel starts, but each start out of the guide's list
//!   order must keep the guide's serial completion feasible (`guide.rs`). Such a
//!   pass cannot deadlock: when nothing runs, the next node of the list fits.
//! - the serial pass that builds a guide (`Guide::new`): the list one node (or
//!   one joint group) at a time.
//!
//! # Cost
//!
//! Every pass, in every mode, is O((n + e) log n) for n nodes and e intra-op
//! edges plus op edges (each op edge is handled at op level, never as sinks x
//! sources); windows and reservations are tracked incrementally per op
//! admission and op completion, O(log n) each (ops wait in a queue, never
//! re-scanned), so they add no factor; measured flat from 10^4 to 10^7 nodes
//! in results/sgs-modes.md (`benches/sgs_modes.rs`):
//! each node enters a ready heap once and leaves it once per start or failed
//! try; failed tries are capped at `MEMORY_TRIES` per core type and instant
//! (and in the parallel mode, where a deadlock can only be told apart from a
//! blocked instant by trying every ready node, by a pass-wide budget of
//! `TRY_BUDGET_PER_NODE` tries per node); a guard test is O(log n) per memory
//! type (`profile.rs`); the guide's list position advances monotonically
//! (amortised O(1) with the skip array). Every pass checks the deadline every
//! `DEADLINE_EVERY` events, and within an exhaustive drain every
//! `TRIES_BETWEEN_LOOKS` failed tries, and gives up when it has passed; an
//! unguarded pass also when it cannot end in time at its pace so far
//! (`stop::Pace`, `Stop::Behind`).
//!
//! Inter-op holds are kept at op level: the sinks of op `a` that demand type m
//! all wait for the same set (the m-demanding sources of `a`'s successor ops), so
//! one counter per (op, type) replaces sinks x sources pairs.

pub mod guide;
pub mod profile;

mod admission;
mod lists;
mod starts;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::graph::NodeGraph;
use crate::instance::TypeIdx;
use crate::schedule::Schedule;
use crate::stop::{Deadline, Pace};

pub use guide::Guide;

use super::tiling::OpPeaks;

/// How a pass decides which ready nodes may start.
#[derive(Clone, Copy)]
pub enum Mode<'a> {
    /// Every ready node that fits, in priority order. Can deadlock on memory.
    Parallel,
    /// Parallel, with the hand-over reserve (`HandOver`, models/list.md):
    /// an op opens only where each binding memory type keeps room for the
    /// largest hand-over to a successor op still open. Can deadlock.
    HandOver,
    /// Parallel starts that keep the guide's serial completion feasible.
    Guarded(&'a Guide),
    /// Parallel, with at most this many ops in flight (started or admitted,
    /// not all nodes ended): fewer holders at once. Can deadlock, less often.
    Window(u32),
    /// Parallel, admitting an op only when the memory in use, the rest of
    /// what the ops in flight may still take (their serial peaks) and the
    /// new op's serial peak, less what its start releases, fit every size.
    /// Can deadlock (the serial peaks are estimates), rarely.
    Reserve(&'a OpPeaks),
}

/// Why a pass produced no schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Memory trapped the pass: nothing runs and nothing can start.
    Deadlock(Deadlock),
    /// A start time would not fit u64 (durations near 2^64).
    Overflow,
    /// The deadline passed before the pass finished.
    Deadline,
    /// An unguarded pass stopped before the deadline: at its pace so far it
    /// could not have ended in time (`stop::Pace`).
    Behind,
}

/// Where and why a pass got stuck.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deadlock {
    pub time: u128,
    pub started: usize,
    /// Ops holding memory when the pass got stuck (they are the ones to change).
    pub holding_ops: Vec<u32>,
    /// The op whose node could not start and the memory type it lacked (known
    /// for the serial pass of a guide: the list's next node).
    pub blocked: Option<(u32, TypeIdx)>,
    /// True when the parallel mode gave up on its try budget rather than
    /// proving that nothing could start.
    pub gave_up: bool,
}

/// Static tables for one node graph, shared by every pass over it.
pub struct Model<'g, 'a> {
    pub g: &'g NodeGraph<'a>,
    n_mem: usize,
    caps: Vec<u128>,
    /// Memory types whose total demand exceeds their size: only these can
    /// block a start (the others are never checked nor guarded).
    binding: Vec<bool>,
    /// First memory entry of each node (entries are `g.mems(v)` in order).
    ent_off: Vec<u32>,
    /// Per entry: number of intra-op successors demanding the same type.
    ent_wait0: Vec<u32>,
    /// Per op: `(type, pending m-sources of successor ops, sum of m-sink demands)`.
    opm_off: Vec<u32>,
    opm: Vec<(TypeIdx, u32, u64)>,
    /// Per `opm` entry: the most memory of its type that one successor op's
    /// sources take beyond the sinks' holds they hand over to (the op's
    /// hand-over need on that type; models/list.md, "Hand-over reserve").
    opm_need: Vec<u64>,
    /// Per op: number of sinks over all predecessor ops.
    op_wait0: Vec<u32>,
    core_count: Vec<u32>,
}

impl<'g, 'a> Model<'g, 'a> {
    pub fn new(g: &'g NodeGraph<'a>) -> Self {
        let inst = g.inst;
        let n = g.n_nodes();
        let n_ops = g.n_ops();
        let n_mem = inst.platform.mems.len();
        let caps: Vec<u128> = inst.platform.mem_sizes();
        let mut total = vec![0u128; n_mem];
        let mut ent_off = Vec::with_capacity(n + 1);
        let mut ent_wait0 = Vec::new();
        ent_off.push(0u32);
        for v in 0..n as u32 {
            for e in g.mems(v) {
                total[e.mem as usize] += u128::from(e.amount);
                let w = g.intra_succs(v).filter(|&s| g.demand(s, e.mem) > 0).count();
                ent_wait0.push(w as u32);
            }
            ent_off.push(ent_wait0.len() as u32);
        }
        // Per op and type: how many m-demanding sources each op has, and
        // the sum of their demands.
        let mut src_count: Vec<(TypeIdx, u32, u64)> = Vec::new();
        let mut per_op_src: Vec<(u32, u64)> = vec![(0, 0); n_mem];
        let mut src_off = Vec::with_capacity(n_ops + 1);
        for op in 0..n_ops as u32 {
            per_op_src.iter_mut().for_each(|c| *c = (0, 0));
            for v in g.sources(op) {
                for e in g.mems(v) {
                    let c = &mut per_op_src[e.mem as usize];
                    *c = (c.0 + 1, c.1.saturating_add(e.amount));
                }
            }
            src_off.push(src_count.len() as u32);
            for (m, &(c, d)) in per_op_src.iter().enumerate() {
                if c > 0 {
                    src_count.push((m as TypeIdx, c, d));
                }
            }
        }
        src_off.push(src_count.len() as u32);
        let mut opm_off = Vec::with_capacity(n_ops + 1);
        let mut opm = Vec::new();
        let mut sink_sum: Vec<u64> = vec![0; n_mem];
        let mut opm_need = Vec::new();
        let mut pending: Vec<u32> = vec![0; n_mem];
        // Per type: the largest source demand of one successor op.
        let mut most: Vec<u64> = vec![0; n_mem];
        for op in 0..n_ops as u32 {
            opm_off.push(opm.len() as u32);
            sink_sum.iter_mut().for_each(|c| *c = 0);
            for v in g.sinks(op) {
                for e in g.mems(v) {
                    sink_sum[e.mem as usize] = sink_sum[e.mem as usize].saturating_add(e.amount);
                }
            }
            pending.iter_mut().for_each(|c| *c = 0);
            most.iter_mut().for_each(|c| *c = 0);
            for &b in g.op_succs(op) {
                for &(m, c, d) in
                    &src_count[src_off[b as usize] as usize..src_off[b as usize + 1] as usize]
                {
                    pending[m as usize] += c;
                    most[m as usize] = most[m as usize].max(d);
                }
            }
            for m in 0..n_mem {
                if sink_sum[m] > 0 && pending[m] > 0 {
                    opm.push((m as TypeIdx, pending[m], sink_sum[m]));
                    opm_need.push(most[m].saturating_sub(sink_sum[m]));
                }
            }
        }
        opm_off.push(opm.len() as u32);
        let op_wait0 = (0..n_ops as u32)
            .map(|b| {
                g.op_preds(b)
                    .iter()
                    .map(|&a| g.sinks(a).count() as u32)
                    .sum()
            })
            .collect();
        Model {
            g,
            n_mem,
            binding: (0..n_mem).map(|m| total[m] > caps[m]).collect(),
            caps,
            ent_off,
            ent_wait0,
            opm_off,
            opm,
            opm_need,
            op_wait0,
            core_count: inst.platform.cores.iter().map(|c| c.count).collect(),
        }
    }

    /// True when memory can never block a start (every type's total demand fits).
    pub fn memory_is_loose(&self) -> bool {
        !self.binding.iter().any(|&b| b)
    }

    /// Whether entry `k` of `v` holds anything when `v` starts: a zero-length node
    /// with no same-type successor to wait for holds the empty interval [t, t).
    fn holds_at_start(&self, v: u32, k: usize) -> bool {
        let g = self.g;
        if g.dur(v) > 0 {
            return true;
        }
        let m = g.mems(v)[k].mem;
        self.ent_wait0[self.ent_off[v as usize] as usize + k] > 0
            || (g.is_sink(v) && self.opm_index(g.node_op[v as usize], m).is_some())
    }

    fn opm_index(&self, op: u32, m: TypeIdx) -> Option<usize> {
        let (a, b) = (
            self.opm_off[op as usize] as usize,
            self.opm_off[op as usize + 1] as usize,
        );
        (a..b).find(|&k| self.opm[k].0 == m)
    }

    fn entry(&self, v: u32, m: TypeIdx) -> Option<usize> {
        let a = self.ent_off[v as usize] as usize;
        self.g
            .mems(v)
            .iter()
            .position(|e| e.mem == m)
            .map(|k| a + k)
    }
}

const NOT_STARTED: u8 = 0;
const READY: u8 = 1;
const RUNNING: u8 = 2;
const ENDED: u8 = 3;

/// Failed tries per instant and ready heap on blocked nodes before moving on;
/// bounds the work per event when memory is tight and many nodes are ready.
const MEMORY_TRIES: usize = 32;
/// Largest joint group tried.
const MAX_GROUP: usize = 64;
/// Parallel mode: tries allowed per node over the whole pass in the
/// exhaustive drains (nothing running; beyond `MEMORY_TRIES` per event,
/// which only applies while something runs). A pass that spends it is
/// reported as a deadlock (`Deadlock::gave_up`): where memory traps the
/// greedy starts, each instant with nothing running tries every ready node,
/// and the budget is what such a pass costs before the next mode runs. The
/// passes that complete on the benchmark sets stay well within it
/// (results/shapes-engines.md, "The parallel pass's try budget").
const TRY_BUDGET_PER_NODE: usize = 16;
/// Events between two looks at the clock.
const DEADLINE_EVERY: u32 = 256;
/// Failed tries of one exhaustive drain between two looks at the clock: with
/// nothing running a single instant may try every ready node, hundreds of
/// thousands of them (seconds on a 10^6-node graph), and the time limit
/// must hold there too.
const TRIES_BETWEEN_LOOKS: usize = 4096;

/// Free cores of one type without a slot per declared core: ids never used yet
/// are `fresh..count`, released ones are on a stack.
struct Cores {
    count: u32,
    fresh: u32,
    released: Vec<u32>,
}

impl Cores {
    fn free(&self) -> usize {
        self.released.len() + (self.count - self.fresh) as usize
    }
    fn take(&mut self) -> u32 {
        if let Some(c) = self.released.pop() {
            return c;
        }
        assert!(self.fresh < self.count, "checked free core");
        self.fresh += 1;
        self.fresh - 1
    }
}

type Ready = BinaryHeap<(u64, Reverse<u32>)>;

const NONE: u32 = u32::MAX;
/// The last node of a waiting list (`NONE` in `next` means: not listed).
const END: u32 = u32::MAX - 1;

/// Op admission of the window mode. A ready node of an op not yet admitted
/// either admits it (a slot is free) or waits in its op's list; when an op's
/// last node ends, the waiting op with the highest key is admitted and its
/// nodes return to the ready heaps. O(1) per wait, O(log n) per admission.
struct Window<'m> {
    limit: u32,
    /// Reservation mode: the ops' serial peaks and the memory each op in
    /// flight holds now.
    peaks: Option<&'m OpPeaks>,
    held_by: std::collections::HashMap<u32, Vec<u128>>,
    in_flight: u32,
    /// Per op: 0 not admitted, 1 admitted, 2 all nodes ended.
    state: Vec<u8>,
    ended: Vec<u32>,
    /// Per op: first waiting node; per node: the next one.
    head: Vec<u32>,
    next: Vec<u32>,
    queue: BinaryHeap<(u64, Reverse<u32>)>,
}

impl<'m> Window<'m> {
    fn new(g: &NodeGraph, limit: u32, peaks: Option<&'m OpPeaks>) -> Self {
        Window {
            limit,
            peaks,
            held_by: std::collections::HashMap::new(),
            in_flight: 0,
            state: vec![0; g.n_ops()],
            ended: vec![0; g.n_ops()],
            head: vec![NONE; g.n_ops()],
            next: vec![NONE; g.n_nodes()],
            queue: BinaryHeap::new(),
        }
    }
    fn admit(&mut self, op: u32, n_mem: usize) {
        if self.state[op as usize] == 0 {
            self.state[op as usize] = 1;
            self.in_flight += 1;
            if self.peaks.is_some() {
                self.held_by.insert(op, vec![0; n_mem]);
            }
        }
    }
    /// Ops of `set` not yet admitted, counted (sets are small).
    fn new_ops(&self, g: &NodeGraph, set: &[u32]) -> u32 {
        let mut ops: Vec<u32> = set
            .iter()
            .map(|&v| g.node_op[v as usize])
            .filter(|&o| self.state[o as usize] == 0)
            .collect();
        ops.sort_unstable();
        ops.dedup();
        ops.len() as u32
    }
}

/// Why a set of nodes cannot start now.
enum Refusal {
    /// Cores or memory (this instant's state).
    Memory,
    /// The guard, until the guide's first unstarted position passes this one.
    Guard(usize),
}

/// The mutable state of one pass.
struct Pass<'m, 'g, 'a> {
    md: &'m Model<'g, 'a>,
    /// The pass's deadline (set by `execute`), looked at within long drains.
    deadline: Option<Deadline>,
    /// A drain found the deadline passed or the pass behind its pace
    /// (`time_stop`): the pass stops with it.
    stopped: Option<Stop>,
    /// Unguarded passes: the pace at which they can still end in time.
    pace: Option<Pace>,
    key: &'m [u64],
    state: Vec<u8>,
    pred_left: Vec<u32>,
    op_wait: Vec<u32>,
    ent_wait: Vec<u32>,
    /// Per entry: currently holding.
    held: Vec<bool>,
    opm_left: Vec<u32>,
    usage: Vec<u128>,
    start: Vec<u64>,
    core: Vec<u32>,
    cores: Vec<Cores>,
    running: BinaryHeap<Reverse<(u128, u32)>>,
    /// Ready nodes per core type, and zero-duration ones apart (they need no core).
    /// The serial pass keeps no heaps: it reads the list.
    ready: Vec<Ready>,
    ready_zero: Ready,
    n_started: usize,
    overflow: bool,
    /// The guard of a guarded pass, or the list of the serial pass.
    guard: Option<guide::Guard<'m>>,
    serial: Option<guide::Recorder<'m>>,
    /// Failed tries left (parallel mode, see `TRY_BUDGET_PER_NODE`).
    budget: usize,
    /// Guarded mode: ready nodes the guard refused, keyed by the list position
    /// the first unstarted one must pass before they are worth another try.
    parked: BinaryHeap<Reverse<(u32, u32)>>,
    /// Failed tries left at this instant, per ready heap (the zero-duration
    /// heap last).
    tries_left: Vec<usize>,
    gave_up: bool,
    // Scratch for group admission.
    opm_dec: Vec<u32>,
    /// Holder entries the set under test waits on, with how many members.
    touched_ent: Vec<(usize, u32)>,
    touched_opm: Vec<usize>,
    delta_acq: Vec<u128>,
    delta_rel: Vec<u128>,
    cores_need: Vec<u32>,
    blocked: Vec<(u64, Reverse<u32>)>,
    /// The memory type that failed the last `fits` (for deadlock reports).
    short_of: Option<TypeIdx>,
    /// With `short_of`: the usage of that type at or below which the set would
    /// fit (None: never, alone).
    short_thr: Option<u128>,
    /// A joint group tried by `try_groups_for` lacked cores (not memory).
    group_lacked_cores: bool,
    /// Memory parking: ready nodes that do not fit memory, per type, keyed by
    /// the usage at or below which they would (max-heap), with a generation
    /// tag; `mem_park[v]` is that tag while v is parked, else 0.
    mem_wait: Vec<BinaryHeap<(u128, u8, Reverse<u32>)>>,
    mem_park: Vec<u8>,
    /// Parked nodes that cannot fit alone whatever is released.
    mem_never: Vec<(u8, u32)>,
    park_gen: u8,
    stats: (usize, usize),
    window: Option<Window<'m>>,
    /// Dynamic keys (`run_dynamic`): each ready node's current key.
    dyn_key: Vec<u64>,
    /// Serial pass: the op and memory type that stopped it.
    blocked_at: Option<(u32, TypeIdx)>,
    /// Reservation mode and the hand-over reserve: the reservations are
    /// lifted at this instant (nothing runs, and with them nothing could
    /// start).
    lifted: bool,
    /// `Mode::HandOver` where memory binds: the hand-over reserve
    /// (`HandOver`, models/list.md).
    ho: Option<HandOver>,
}

/// The hand-over reserve of a `Mode::HandOver` pass: a start that opens an op and
/// releases nothing must leave, on every binding memory type, room for the
/// largest hand-over need among the ops started whose holds on that type
/// are not handed over yet, and for its own op's.
struct HandOver {
    /// Per memory type: those ops' hand-over needs (need -> how many).
    open: Vec<std::collections::BTreeMap<u64, u32>>,
    /// Per op: whether it has started.
    started: Vec<bool>,
}

impl HandOver {
    fn largest(&self, m: usize) -> u64 {
        self.open[m].keys().next_back().copied().unwrap_or(0)
    }
    fn add(&mut self, m: usize, need: u64) {
        *self.open[m].entry(need).or_insert(0) += 1;
    }
    fn remove(&mut self, m: usize, need: u64) {
        if let Some(c) = self.open[m].get_mut(&need) {
            *c -= 1;
            if *c == 0 {
                self.open[m].remove(&need);
            }
        }
    }
}

/// Runs one pass. `key[v]`: higher starts first. Returns the schedule, or why none.
pub fn run(md: &Model, key: &[u64], mode: Mode, deadline: &Deadline) -> Result<Schedule, Stop> {
    run_keyed(md, key, false, mode, deadline)
}

/// `run` with dynamic keys when `dynamic`: a ready node's key grows with the
/// memory its start would release at that moment (holders whose last pending
/// successor it is), so nodes that free memory go first as soon as they do.
pub fn run_keyed(
    md: &Model,
    key: &[u64],
    dynamic: bool,
    mode: Mode,
    deadline: &Deadline,
) -> Result<Schedule, Stop> {
    let guard = match mode {
        Mode::Guarded(gd) => Some(gd.guard()),
        _ => None,
    };
    let mut p = Pass::new(md, key, guard, None);
    if dynamic && !md.memory_is_loose() {
        p.dyn_key = vec![0; md.g.n_nodes()];
    }
    match mode {
        Mode::Window(k) => p.window = Some(Window::new(md.g, k.max(1), None)),
        Mode::Reserve(peaks) => p.window = Some(Window::new(md.g, u32::MAX, Some(peaks))),
        Mode::HandOver if !md.memory_is_loose() => {
            p.ho = Some(HandOver {
                open: vec![std::collections::BTreeMap::new(); md.n_mem],
                started: vec![false; md.g.n_ops()],
            });
        }
        _ => {}
    }
    if !matches!(mode, Mode::Guarded(_)) {
        // An unguarded pass that cannot end in time stops early (`Stop::Behind`).
        p.pace = Some(Pace::new(md.g.n_nodes(), deadline));
    }
    p.execute(deadline)
}

impl<'m, 'g, 'a> Pass<'m, 'g, 'a> {
    fn new(
        md: &'m Model<'g, 'a>,
        key: &'m [u64],
        guard: Option<guide::Guard<'m>>,
        serial: Option<guide::Recorder<'m>>,
    ) -> Self {
        let g = md.g;
        let n = g.n_nodes();
        let heaps = serial.is_none();
        Pass {
            md,
            deadline: None,
            stopped: None,
            pace: None,
            key,
            state: vec![NOT_STARTED; n],
            // Counted per pass rather than stored: 4 bytes a node less while searching.
            pred_left: (0..n as u32)
                .map(|v| g.intra_preds(v).count() as u32)
                .collect(),
            op_wait: md.op_wait0.clone(),
            ent_wait: md.ent_wait0.clone(),
            held: vec![false; md.ent_wait0.len()],
            opm_left: md.opm.iter().map(|x| x.1).collect(),
            usage: vec![0; md.n_mem],
            start: vec![0; n],
            core: vec![0; n],
            cores: md
                .core_count
                .iter()
                .map(|&count| Cores {
                    count,
                    fresh: 0,
                    released: Vec::new(),
                })
                .collect(),
            running: BinaryHeap::new(),
            ready: if heaps {
                (0..md.core_count.len()).map(|_| Ready::new()).collect()
            } else {
                Vec::new()
            },
            ready_zero: Ready::new(),
            n_started: 0,
            overflow: false,
            guard,
            serial,
            budget: TRY_BUDGET_PER_NODE.saturating_mul(n).saturating_add(10_000),
            tries_left: vec![0; md.core_count.len() + 1],
            parked: BinaryHeap::new(),
            gave_up: false,
            opm_dec: vec![0; md.opm.len()],
            touched_ent: Vec::new(),
            touched_opm: Vec::new(),
            delta_acq: vec![0; md.n_mem],
            delta_rel: vec![0; md.n_mem],
            cores_need: vec![0; md.core_count.len()],
            blocked: Vec::new(),
            short_of: None,
            short_thr: None,
            group_lacked_cores: false,
            mem_wait: (0..md.n_mem).map(|_| BinaryHeap::new()).collect(),
            mem_park: if heaps { vec![0; n] } else { Vec::new() },
            mem_never: Vec::new(),
            park_gen: 0,
            stats: (0, 0),
            window: None,
            dyn_key: Vec::new(),
            blocked_at: None,
            lifted: false,
            ho: None,
        }
    }

    /// The event loop shared by every mode.
    fn execute(&mut self, deadline: &Deadline) -> Result<Schedule, Stop> {
        let g = self.md.g;
        let n = g.n_nodes();
        for op in 0..g.n_ops() as u32 {
            if self.op_wait[op as usize] == 0 {
                for v in g.sources(op) {
                    self.make_ready(v);
                }
            }
        }
        let mut t: u128 = 0;
        let mut events = 0u32;
        self.deadline = Some(deadline.clone());
        loop {
            events = events.wrapping_add(1);
            if events.is_multiple_of(DEADLINE_EVERY)
                && let Some(stop) = self.time_stop()
            {
                return Err(stop);
            }
            self.start_phase(t);
            if let Some(stop) = self.stopped.take() {
                return Err(stop);
            }
            if self.overflow {
                return Err(Stop::Overflow);
            }
            if self.n_started == n && self.running.is_empty() {
                break;
            }
            // Reservation mode and the hand-over reserve: where nothing
            // runs and the reservations admit nothing that can start, they
            // are lifted for one more try at this instant
            // (`reserve_admits`, `handover_fits`); only memory then stops
            // the pass.
            if self.running.is_empty() && !self.lifted && (self.reserving() || self.ho.is_some()) {
                self.lifted = true;
                continue;
            }
            self.lifted = false;
            let Some(&Reverse((next, _))) = self.running.peek() else {
                return Err(Stop::Deadlock(self.deadlock(t)));
            };
            t = next;
            while let Some(&Reverse((e, v))) = self.running.peek() {
                if e != t {
                    break;
                }
                self.running.pop();
                self.finish(v);
            }
        }
        log::trace!(
            "pass stats (guard refusals, memory refusals): {:?}",
            self.stats
        );
        Ok(Schedule {
            choice: g.choice.clone(),
            start: std::mem::take(&mut self.start),
            core: std::mem::take(&mut self.core),
        })
    }

    /// `Stop::Deadline` once the deadline has passed, `Stop::Behind` once a
    /// paced pass cannot end in time at its pace so far (`stop::Pace`).
    fn time_stop(&self) -> Option<Stop> {
        let d = self.deadline.as_ref()?;
        if d.expired() {
            Some(Stop::Deadline)
        } else if self
            .pace
            .as_ref()
            .is_some_and(|p| p.behind(self.n_started, d))
        {
            Some(Stop::Behind)
        } else {
            None
        }
    }

    fn make_ready(&mut self, v: u32) {
        self.state[v as usize] = READY;
        if self.serial.is_some() {
            return; // the serial pass reads its list instead of heaps
        }
        self.push_ready(v);
    }

    /// Puts ready node `v` in its heap under its current key.
    fn push_ready(&mut self, v: u32) {
        let k = self.current_key(v);
        let item = (k, Reverse(v));
        if self.md.g.dur(v) == 0 {
            self.ready_zero.push(item);
        } else {
            self.ready[self.md.g.core[v as usize] as usize].push(item);
        }
    }

    /// The key of `v`; with dynamic keys, scaled up by the share of memory its
    /// start would release now (and remembered, so that older heap entries
    /// of `v` are recognised as stale).
    fn current_key(&mut self, v: u32) -> u64 {
        let base = self.key[v as usize];
        if self.dyn_key.is_empty() {
            return base;
        }
        let rel = self.release_share(v);
        let k = super::priority::key_of(f64::from_bits(base) * (1.0 + 0.5 * rel));
        self.dyn_key[v as usize] = k;
        k
    }

    /// Dynamic keys: after v's release potential grew, a fresh heap entry.
    fn refresh(&mut self, v: u32) {
        if self.dyn_key.is_empty() || self.state[v as usize] != READY {
            return;
        }
        if self.mem_park.get(v as usize).is_some_and(|&p| p != 0) {
            return; // a parked node gets its key when it is woken
        }
        if let Some(w) = &self.window
            && w.next[v as usize] != NONE
        {
            return; // waiting for its op's admission: keyed when admitted
        }
        self.push_ready(v);
    }

    /// What starting ready node `v` now would release, as a share of the
    /// memory sizes (summed over types, at most 2).
    fn release_share(&self, v: u32) -> f64 {
        let md = self.md;
        let g = md.g;
        let mut share = 0.0;
        let is_source = g.is_source(v);
        for e in g.mems(v) {
            let m = e.mem;
            if !md.binding[m as usize] {
                continue;
            }
            let mut rel = 0u128;
            for x in g.intra_preds(v) {
                if let Some(ex) = md.entry(x, m)
                    && self.held[ex]
                    && self.ent_wait[ex] == 1
                {
                    rel += u128::from(g.mems(x)[ex - md.ent_off[x as usize] as usize].amount);
                }
            }
            if is_source {
                for &pa in g.op_preds(g.node_op[v as usize]) {
                    if let Some(k) = md.opm_index(pa, m)
                        && self.opm_left[k] == 1
                    {
                        rel += u128::from(md.opm[k].2);
                    }
                }
            }
            share += rel as f64 / md.caps[m as usize].max(1) as f64;
        }
        share.min(2.0)
    }

    /// Whether this is a memory-reserving pass.
    fn reserving(&self) -> bool {
        self.window.as_ref().is_some_and(|w| w.peaks.is_some())
    }

    fn deadlock(&self, t: u128) -> Deadlock {
        let g = self.md.g;
        let mut ops: Vec<u32> = (0..g.n_nodes() as u32)
            .filter(|&v| {
                let a = self.md.ent_off[v as usize] as usize;
                let b = self.md.ent_off[v as usize + 1] as usize;
                self.held[a..b].iter().any(|&h| h)
            })
            .map(|v| g.node_op[v as usize])
            .collect();
        ops.sort_unstable();
        ops.dedup();
        Deadlock {
            time: t,
            started: self.n_started,
            holding_ops: ops,
            blocked: self.blocked_at,
            gave_up: self.gave_up,
        }
    }

    /// Starts as many ready nodes at `t` as cores, memory and the mode allow.
    fn start_phase(&mut self, t: u128) {
        if self.serial.is_some() {
            return self.serial_phase(t);
        }
        // Failed tries are counted per instant, over all rounds of this loop.
        self.tries_left.iter_mut().for_each(|x| *x = MEMORY_TRIES);
        if self.running.is_empty() && self.guard.is_none() {
            self.wake_all();
        }
        self.admit_waiting();
        loop {
            self.wake_on_memory();
            let mut progress = false;
            if self.guard.is_some() {
                progress |= self.in_order_phase(t);
                self.unpark();
            }
            // Zero-duration nodes first: they free memory and unlock successors now.
            progress |= self.drain_heap(None, t);
            for c in 0..self.ready.len() {
                if self.cores[c].free() == 0 || self.ready[c].is_empty() {
                    continue;
                }
                progress |= self.drain_heap(Some(c), t);
            }
            if !progress || self.stopped.is_some() {
                return;
            }
        }
    }

    /// Tries the ready nodes of one heap in priority order. Returns true if any started.
    fn drain_heap(&mut self, c: Option<usize>, t: u128) -> bool {
        let mut blocked = std::mem::take(&mut self.blocked);
        let mut progress = false;
        let slot = c.unwrap_or(self.ready.len());
        // With nothing running and no guide, a missed candidate would look like
        // a deadlock: try every one (within the pass's budget).
        let exhaustive = self.running.is_empty() && self.guard.is_none();
        loop {
            if let Some(c) = c
                && self.cores[c].free() == 0
            {
                break;
            }
            if !exhaustive && self.tries_left[slot] == 0 {
                break;
            }
            let heap = match c {
                Some(c) => &mut self.ready[c],
                None => &mut self.ready_zero,
            };
            let Some(item) = heap.pop() else { break };
            let v = item.1.0;
            if self.state[v as usize] != READY {
                continue; // started earlier as part of a group
            }
            if !self.dyn_key.is_empty() && self.dyn_key[v as usize] != item.0 {
                continue; // an older entry: v is in the heap under a newer key
            }
            if let Some(w) = &mut self.window {
                let op = self.md.g.node_op[v as usize];
                if w.state[op as usize] == 0 {
                    if w.in_flight < w.limit && self.reserve_admits(op) {
                        self.admit_op(op);
                    } else {
                        let w = self.window.as_mut().expect("window pass");
                        if w.next[v as usize] != NONE {
                            continue; // already waiting (a refreshed entry)
                        }
                        if w.head[op as usize] == NONE {
                            w.queue.push((item.0, Reverse(op)));
                        }
                        w.next[v as usize] = match w.head[op as usize] {
                            NONE => END,
                            h => h,
                        };
                        w.head[op as usize] = v;
                        continue;
                    }
                }
            }
            match self.try_start(&[v], t) {
                Ok(()) => {
                    progress = true;
                    continue;
                }
                Err(Refusal::Guard(k)) => {
                    self.stats.0 += 1;
                    self.parked.push(Reverse((k as u32, v)))
                }
                Err(Refusal::Memory) => {
                    self.stats.1 += 1;
                    let (m, thr) = (self.short_of, self.short_thr);
                    if self.try_groups_for(v, t) {
                        progress = true;
                        continue;
                    }
                    match m {
                        // Short of memory alone and in every group: wait until
                        // enough is released (or v's own start would release more).
                        Some(m) if !self.group_lacked_cores => self.park_memory(v, m, thr),
                        _ => blocked.push(item),
                    }
                }
            }
            if exhaustive {
                if self.budget == 0 {
                    self.gave_up = true;
                    break;
                }
                self.budget -= 1;
                if self.budget.is_multiple_of(TRIES_BETWEEN_LOOKS) {
                    self.stopped = self.time_stop();
                    if self.stopped.is_some() {
                        break;
                    }
                }
            } else {
                self.tries_left[slot] = self.tries_left[slot].saturating_sub(1);
                if self.tries_left[slot] == 0 {
                    break;
                }
            }
        }
        let heap = match c {
            Some(c) => &mut self.ready[c],
            None => &mut self.ready_zero,
        };
        heap.extend(blocked.drain(..));
        self.blocked = blocked;
        progress
    }
}

/// The topological order that follows `key` (highest first among the nodes whose
/// predecessors are all listed): Kahn's algorithm with a max-heap, op edges
/// counted once per op. O((n + e) log n).
pub fn activity_list(g: &NodeGraph, key: &[u64]) -> Vec<u32> {
    let n = g.n_nodes();
    let mut pred_left: Vec<u32> = (0..n as u32)
        .map(|v| g.intra_preds(v).count() as u32)
        .collect();
    let mut op_wait: Vec<u32> = (0..g.n_ops() as u32)
        .map(|b| {
            g.op_preds(b)
                .iter()
                .map(|&a| g.sinks(a).count() as u32)
                .sum()
        })
        .collect();
    let mut heap: BinaryHeap<(u64, Reverse<u32>)> = BinaryHeap::new();
    for op in 0..g.n_ops() as u32 {
        if op_wait[op as usize] == 0 {
            heap.extend(g.sources(op).map(|v| (key[v as usize], Reverse(v))));
        }
    }
    let mut list = Vec::with_capacity(n);
    while let Some((_, Reverse(v))) = heap.pop() {
        list.push(v);
        for s in g.intra_succs(v) {
            pred_left[s as usize] -= 1;
            if pred_left[s as usize] == 0 {
                heap.push((key[s as usize], Reverse(s)));
            }
        }
        if g.is_sink(v) {
            for &b in g.op_succs(g.node_op[v as usize]) {
                op_wait[b as usize] -= 1;
                if op_wait[b as usize] == 0 {
                    heap.extend(g.sources(b).map(|w| (key[w as usize], Reverse(w))));
                }
            }
        }
    }
    debug_assert_eq!(list.len(), n, "the node graph is acyclic");
    list
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::parse_reader;
    use crate::list::priority::{Paths, Rule, keys};
    use crate::schedule::check;

    fn pass(text: &str, mode_serial_guide: bool) -> Result<(Schedule, u128), Stop> {
        let inst = parse_reader(text.as_bytes(), "unit").unwrap();
        let choice: Vec<u32> = (0..inst.graph.n_ops() as u32)
            .map(|o| inst.usable_tilings(o).next().unwrap())
            .collect();
        let g = NodeGraph::new(&inst, choice).unwrap();
        let md = Model::new(&g);
        let key = keys(&g, &Paths::new(&g), Rule::Lrp);
        let deadline = Deadline::after(std::time::Duration::from_secs(10));
        let s = if mode_serial_guide {
            let list = activity_list(&g, &key);
            Guide::new(&md, &list, &deadline).map(|(_, s)| s)?
        } else {
            run(&md, &key, Mode::Parallel, &deadline)?
        };
        assert!(check(&g, &s, 10).is_empty(), "an illegal pass");
        let ms = s.makespan(&g);
        Ok((s, ms))
    }

    /// The hold rule's joint start (problem.md §4.4, the task book's case):
    /// node 1 holds 1024 of 1024 until both successors (512 each) start. Alone
    /// neither fits (1024 + 512); together they release the holder at their
    /// start and fit (512 + 512). With two cores the scheme starts them at one
    /// instant: makespan 5 + 5.
    #[test]
    fn a_joint_start_releases_its_holder() {
        let text = "SetSocInfo([[0,2]],[[0,1024]])
AddOpInfo(1,1,0,[[1,2],[1,3]],[[1,0,5],[2,0,5],[3,0,5]],[[1,0,1024],[2,0,512],[3,0,512]])
GetInferenceScheResult([],[[1,1,1]])";
        for serial in [false, true] {
            let (s, ms) = pass(text, serial).expect("a joint start exists");
            assert_eq!(ms, 10);
            assert_eq!(s.start[1], s.start[2], "the successors start together");
        }
        // One core: the joint start is impossible, every pass must report
        // the memory deadlock (never an illegal schedule).
        let one = text.replace("[[0,2]]", "[[0,1]]");
        assert!(matches!(pass(&one, false), Err(Stop::Deadlock(_))));
        assert!(matches!(pass(&one, true), Err(Stop::Deadlock(_))));
    }

    /// The task book example (problem.md §8): a legal parallel pass, never
    /// below the proven optimum 38.
    #[test]
    fn the_task_book_example_passes_legally() {
        let (_, ms) = pass(include_str!("../../../instances/example1.txt"), false).unwrap();
        assert!(ms >= 38, "{ms}");
        let (_, ms) = pass(include_str!("../../../instances/example1.txt"), true).unwrap();
        assert!(ms >= 38, "{ms}");
    }

    /// A drain that tries every ready node (nothing runs) looks at the clock
    /// as it goes: two ops' first nodes fill memory 2, their second nodes
    /// need one more each (a deadlock), and 5,000 single-node ops wait for
    /// memory. With the deadline already passed the pass stops in the drain
    /// with `Stop::Deadline`, before it has tried them all (which would end
    /// in `Stop::Deadlock`).
    #[test]
    fn an_exhaustive_drain_stops_at_the_deadline() {
        let mut text = String::from(
            "SetSocInfo([[0,100]],[[0,2]])\n\
             AddOpInfo(1,1,0,[[1,2]],[[1,0,1],[2,0,1]],[[1,0,1],[2,0,2]])\n\
             AddOpInfo(2,1,0,[],[[1,0,5]],[[1,0,1]])\n\
             GetInferenceScheResult([],[[1,1,1],[2,1,1]",
        );
        for id in 3..5003 {
            text.push_str(&format!(",[{id},2,1]"));
        }
        text.push_str("])\n");
        let inst = parse_reader(text.as_bytes(), "unit").unwrap();
        let choice: Vec<u32> = (0..inst.graph.n_ops() as u32)
            .map(|o| inst.usable_tilings(o).next().unwrap())
            .collect();
        let g = NodeGraph::new(&inst, choice).unwrap();
        let md = Model::new(&g);
        let key: Vec<u64> = (0..g.n_nodes())
            .map(|v| if g.node_op[v] < 2 { 10 } else { 1 })
            .collect();
        let later = Deadline::after(std::time::Duration::from_secs(60));
        match run_keyed(&md, &key, false, Mode::Parallel, &later) {
            Err(Stop::Deadlock(d)) => assert!(!d.gave_up && d.started == 2, "{d:?}"),
            other => panic!("expected the deadlock, got {other:?}"),
        }
        let passed = Deadline::after(std::time::Duration::ZERO);
        match run_keyed(&md, &key, false, Mode::Parallel, &passed) {
            Err(Stop::Deadline) => {}
            other => panic!("expected the deadline, got {other:?}"),
        }
    }
}
