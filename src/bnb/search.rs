//! The depth-first search for a schedule of makespan at most `T`
//! (models/bnb.md §2-§4): starts in time order, each instant's starts as a
//! set (include or exclude each node in a fixed order), an op's tiling
//! chosen when it becomes ready, and four prunes: a node must start by
//! `T - tail`; the memory not used by running nodes (of each type) and the
//! core time left idle (of each core type) over `[0, t)` may not exceed
//! what `T` leaves beside the least area and work the ops can bring; and a
//! state recorded as a dead end fails again.
//!
//! Every change to the state goes through one trail, so backtracking is an
//! undo to a mark; the search itself is a loop over an explicit stack.

use super::problem::Problem;
use crate::stop::Deadline;

const NONE: u64 = u64::MAX;

/// At most this many dead ends are kept a search (about 16 bytes each and
/// 8 a type).
const MEMO_CAP: usize = 1 << 19;

/// Where each part of the state lives in the cell array.
struct Layout {
    n_mem: usize,
    n_core: usize,
    held: usize,
    /// Demand of the running nodes per type: memory held by nodes that
    /// have ended (waiting for successors) is charged like free memory.
    busy: usize,
    waste: usize,
    area_lb: usize,
    used: usize,
    idle: usize,
    work_lb: usize,
    choice: usize,
    op_preds_left: usize,
    op_sinks_left: usize,
    start: usize,
    preds_left: usize,
    excl: usize,
    pending: usize,
    run: usize,
    ready: usize,
    ready_pos: usize,
    rops: usize,
    rops_pos: usize,
    len: usize,
}

const T: usize = 0;
const EPOCH: usize = 1;
const TODO: usize = 2;
const RUN_LEN: usize = 3;
const READY_LEN: usize = 4;
const ROPS_LEN: usize = 5;
/// The Zobrist key of the started nodes (each with its end while it
/// runs) and the chosen tilings: with the time, what the future depends on.
const KEY: usize = 6;
const SCALARS: usize = 7;

/// A 64-bit mix (splitmix64's finaliser) of two words.
fn mix(a: u64, b: u64) -> u64 {
    let mut z = a
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(b)
        .wrapping_add(0x632B_E59B_D9B4_E019);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The key's term of node `v` running until `end`, or ended (`NONE`).
fn node_term(v: u32, end: u64) -> u64 {
    mix(u64::from(v) << 1, end)
}

fn choice_term(o: u32, k: u32) -> u64 {
    mix((u64::from(o) << 1) | 1, u64::from(k))
}

impl Layout {
    fn new(p: &Problem) -> Layout {
        let n_mem = p.inst.platform.mems.len();
        let n_core = p.inst.platform.cores.len();
        let n_ops = p.cands.len();
        let n = p.n_nodes();
        let slots = p.pending0.len();
        let mut at = SCALARS;
        let mut take = |k: usize| {
            let a = at;
            at += k;
            a
        };
        let held = take(2 * n_mem);
        let busy = take(2 * n_mem);
        let waste = take(n_mem);
        let area_lb = take(n_mem);
        let used = take(n_core);
        let idle = take(n_core);
        let work_lb = take(n_core);
        let choice = take(n_ops);
        let op_preds_left = take(n_ops);
        let op_sinks_left = take(n_ops);
        let start = take(n);
        let preds_left = take(n);
        let excl = take(n);
        let pending = take(slots);
        let run = take(n);
        let ready = take(n);
        let ready_pos = take(n);
        let rops = take(n_ops);
        let rops_pos = take(n_ops);
        Layout {
            n_mem,
            n_core,
            held,
            busy,
            waste,
            area_lb,
            used,
            idle,
            work_lb,
            choice,
            op_preds_left,
            op_sinks_left,
            start,
            preds_left,
            excl,
            pending,
            run,
            ready,
            ready_pos,
            rops,
            rops_pos,
            len: at,
        }
    }
}

/// What one branch does.
#[derive(Clone, Copy, Debug)]
enum Alt {
    /// Op `o` takes its candidate `k`.
    Choose(u32, u32),
    /// Node `v` starts now; the nodes before it in the frame's list are
    /// excluded from this instant.
    Start(u32),
    /// Nothing more starts at this instant.
    Advance,
}

struct Frame {
    mark: usize,
    alts: Vec<Alt>,
    next: usize,
    /// At the first state of an instant: its key and charges, recorded as
    /// a dead end when every branch failed.
    memo: Option<(u64, Vec<u64>)>,
}

/// How a search ended.
pub enum Outcome {
    /// Starts per candidate node and the candidate index per op (void ops
    /// 0), of makespan at most the target.
    Found { start: Vec<u64>, choice: Vec<u32> },
    /// Every branch was pruned: no schedule in the searched class (the
    /// search is not complete, models/bnb.md §5: this proves nothing).
    Exhausted,
    /// The deadline or the branch budget came first.
    Stopped,
}

/// The search state: cells and their trail.
pub struct Search<'p, 'a> {
    p: &'p Problem<'a>,
    lay: Layout,
    cells: Vec<u64>,
    trail: Vec<(u32, u64)>,
    target: u128,
    /// Budgets: `M_m * T` and `K_c * T`.
    mem_cap_area: Vec<u128>,
    core_cap_work: Vec<u128>,
    /// Branches applied so far.
    pub branches: u64,
    /// Scratch for candidate lists.
    scratch: Vec<(u128, u128, u64)>,
    /// Dead ends: the first states of instants whose every branch failed,
    /// by key, with the charges they had (a later state with the same key
    /// and no smaller charge fails too).
    dead: std::collections::HashMap<u64, u32>,
    /// The charges of the dead ends, one word a memory type and a core
    /// type each, at the index `dead` maps to (one allocation, cheap to
    /// drop).
    dead_charges: Vec<u64>,
    /// States pruned through `dead`.
    pub memo_hits: u64,
    /// The latest instant any branch reached.
    pub deepest: u64,
    /// Perturbs the order of the branches (restarts after the first run).
    noise: Option<crate::rng::SplitMix64>,
    /// Scratch of `releasable`: successors seen per hold slot, and the
    /// slots touched with their owners.
    slot_seen: Vec<u32>,
    touched: Vec<(u32, u32)>,
    preds_scratch: Vec<u32>,
    /// Start branches by demand (largest first, then tail) instead of by
    /// tail (then demand).
    by_demand: bool,
}

impl<'p, 'a> Search<'p, 'a> {
    /// A search for a schedule of makespan at most `target` (at most
    /// `u64::MAX`, so every end is a representable start).
    pub fn new(p: &'p Problem<'a>, target: u64) -> Search<'p, 'a> {
        let lay = Layout::new(p);
        let inst = p.inst;
        let target = u128::from(target);
        let mem_cap_area = inst
            .platform
            .mems
            .iter()
            .map(|m| u128::from(m.size) * target)
            .collect();
        let core_cap_work = inst
            .platform
            .cores
            .iter()
            .map(|c| u128::from(c.count) * target)
            .collect();
        let mut s = Search {
            p,
            cells: vec![0; lay.len],
            lay,
            trail: Vec::new(),
            target,
            mem_cap_area,
            core_cap_work,
            branches: 0,
            scratch: Vec::new(),
            dead: std::collections::HashMap::new(),
            dead_charges: Vec::new(),
            memo_hits: 0,
            deepest: 0,
            noise: None,
            by_demand: false,
            slot_seen: Vec::new(),
            touched: Vec::new(),
            preds_scratch: Vec::new(),
        };
        s.init();
        s
    }

    pub fn problem(&self) -> &'p Problem<'a> {
        self.p
    }

    pub fn target(&self) -> u64 {
        self.target as u64
    }

    pub fn dead_ends(&self) -> usize {
        self.dead.len()
    }

    #[inline]
    fn get(&self, i: usize) -> u64 {
        self.cells[i]
    }

    /// A 128-bit amount kept in cells `2k` (low word) and `2k + 1` of a
    /// region: held and busy amounts pass 2^64 between the starts of an
    /// instant (a start may count on releases still to come, §2.3).
    #[inline]
    fn get2(&self, region: usize, k: usize) -> u128 {
        u128::from(self.cells[region + 2 * k]) | (u128::from(self.cells[region + 2 * k + 1]) << 64)
    }

    #[inline]
    fn set2(&mut self, region: usize, k: usize, v: u128) {
        self.set(region + 2 * k, v as u64);
        self.set(region + 2 * k + 1, (v >> 64) as u64);
    }

    #[inline]
    fn set(&mut self, i: usize, v: u64) {
        let old = self.cells[i];
        if old != v {
            self.trail.push((i as u32, old));
            self.cells[i] = v;
        }
    }

    fn undo(&mut self, mark: usize) {
        while self.trail.len() > mark {
            let (i, old) = self.trail.pop().unwrap();
            self.cells[i as usize] = old;
        }
    }

    fn init(&mut self) {
        let p = self.p;
        let l = &self.lay;
        let mut todo = 0u64;
        for o in 0..p.cands.len() {
            self.cells[l.choice + o] = NONE;
            if p.void[o] {
                continue;
            }
            todo += 1;
            self.cells[l.op_preds_left + o] = p.opreds[o].len() as u64;
        }
        let sat = |x: u128| u64::try_from(x).unwrap_or(u64::MAX);
        for (m, &a) in p.total_least_area.iter().enumerate() {
            self.cells[l.area_lb + m] = sat(a);
        }
        for (c, &w) in p.total_least_work.iter().enumerate() {
            self.cells[l.work_lb + c] = sat(w);
        }
        self.cells[TODO] = todo;
        for v in 0..p.n_nodes() {
            self.cells[l.start + v] = NONE;
            self.cells[l.preds_left + v] = p.preds(v as u32).count() as u64;
            self.cells[l.excl + v] = NONE;
        }
        for (i, &k) in p.pending0.iter().enumerate() {
            self.cells[l.pending + i] = u64::from(k);
        }
        self.cells[EPOCH] = 0;
        for o in 0..p.cands.len() {
            if !p.void[o] && p.opreds[o].is_empty() {
                self.push_rop(o as u32);
            }
        }
        self.trail.clear();
    }

    /// Appends `x` to the list at `items` (length in cell `len`, positions
    /// plus one at `pos`, 0 for absent).
    fn push_to(&mut self, items: usize, pos: usize, len: usize, x: u32) {
        let n = self.get(len);
        self.set(items + n as usize, u64::from(x));
        self.set(pos + x as usize, n + 1);
        self.set(len, n + 1);
    }

    /// Removes `x` from that list (the last item takes its place).
    fn remove_from(&mut self, items: usize, pos: usize, len: usize, x: u32) {
        let i = (self.get(pos + x as usize) - 1) as usize;
        let n = self.get(len) as usize;
        let last = self.get(items + n - 1);
        self.set(items + i, last);
        self.set(pos + last as usize, i as u64 + 1);
        self.set(pos + x as usize, 0);
        self.set(len, n as u64 - 1);
    }

    fn push_ready(&mut self, v: u32) {
        self.push_to(self.lay.ready, self.lay.ready_pos, READY_LEN, v);
    }

    fn remove_ready(&mut self, v: u32) {
        self.remove_from(self.lay.ready, self.lay.ready_pos, READY_LEN, v);
    }

    fn push_rop(&mut self, o: u32) {
        self.push_to(self.lay.rops, self.lay.rops_pos, ROPS_LEN, o);
    }

    fn remove_rop(&mut self, o: u32) {
        self.remove_from(self.lay.rops, self.lay.rops_pos, ROPS_LEN, o);
    }

    fn release(&mut self, v: u32, slot: usize) {
        let lib = &self.p.inst.library;
        let d = lib.mems(self.p.c_lib[v as usize])[slot - self.p.hold_off[v as usize] as usize];
        let (region, m) = (self.lay.held, usize::from(d.mem));
        let h = self.get2(region, m);
        self.set2(region, m, h - u128::from(d.amount));
    }

    /// One fewer successor holds `x`'s slot open; released at zero when `x`
    /// has ended.
    fn count_down(&mut self, x: u32, slot: usize, by: u64) {
        let i = self.lay.pending + slot;
        let k = self.get(i) - by;
        self.set(i, k);
        if k == 0 && self.ended(x) {
            self.release(x, slot);
        }
    }

    fn ended(&self, x: u32) -> bool {
        let s = self.get(self.lay.start + x as usize);
        s != NONE && u128::from(s) + u128::from(self.p.dur(x)) <= u128::from(self.get(T))
    }

    /// Op `o` takes candidate `k`: its sources become ready, the holds of
    /// its predecessors' sinks learn how many of its sources take them over.
    /// `false` when the least area or work of the choices made no longer
    /// fits under the target with what is already charged.
    fn choose(&mut self, o: u32, k: u32) -> bool {
        let p = self.p;
        let lib = &p.inst.library;
        let l = &self.lay;
        let (n_mem, n_core) = (l.n_mem, l.n_core);
        self.set(self.lay.choice + o as usize, u64::from(k));
        let key = self.get(KEY) ^ choice_term(o, k);
        self.set(KEY, key);
        self.remove_rop(o);
        let (oi, ki) = (o as usize, k as usize);
        for m in 0..n_mem {
            let extra = p.area[oi][ki][m] - p.least_area[oi][m];
            let (lb, charge) = (self.lay.area_lb + m, self.lay.waste + m);
            if !self.add_within(lb, extra, charge, self.mem_cap_area[m]) {
                return false;
            }
        }
        for c in 0..n_core {
            let extra = p.work[oi][ki][c] - p.least_work[oi][c];
            let (lb, charge) = (self.lay.work_lb + c, self.lay.idle + c);
            if !self.add_within(lb, extra, charge, self.core_cap_work[c]) {
                return false;
            }
        }
        let sinks = p.ends(o, k, true).count() as u64;
        self.set(self.lay.op_sinks_left + oi, sinks);
        let n_nodes = u64::from(p.cbase[oi][ki + 1] - p.cbase[oi][ki]);
        let todo = self.get(TODO);
        self.set(TODO, todo - 1 + n_nodes);
        for s in p.ends(o, k, false) {
            self.push_ready(s);
        }
        // Each predecessor's sinks counted this op as one successor per
        // type some candidate's source demands; now the true count.
        for m in 0..n_mem {
            if !p.unit[oi][m] {
                continue;
            }
            let takers = p
                .ends(o, k, false)
                .filter(|&s| lib.demand(p.c_lib[s as usize], m as u8) > 0)
                .count() as u64;
            for &a in &p.opreds[oi] {
                let ka = self.get(self.lay.choice + a as usize) as u32;
                for x in p.ends(a, ka, true) {
                    if let Some(slot) = self.slot_of(x, m as u8) {
                        if takers == 0 {
                            self.count_down(x, slot, 1);
                        } else if takers > 1 {
                            let i = self.lay.pending + slot;
                            let c = self.get(i);
                            self.set(i, c + takers - 1);
                        }
                    }
                }
            }
        }
        true
    }

    /// Adds `amount` to cell `cell` (a charge, or a least area or work;
    /// kept saturated at 2^64 - 1, which only weakens the prune); `false`
    /// when with cell `other` (the least area or work, or the charge) it
    /// passes `cap`, the capacity up to the target (models/bnb.md §3.2-3).
    fn add_within(&mut self, cell: usize, amount: u128, other: usize, cap: u128) -> bool {
        let v = u128::from(self.get(cell)) + amount;
        self.set(cell, u64::try_from(v).unwrap_or(u64::MAX));
        v + u128::from(self.get(other)) <= cap
    }

    fn slot_of(&self, v: u32, m: u8) -> Option<usize> {
        let lib = &self.p.inst.library;
        let base = self.p.hold_off[v as usize] as usize;
        lib.mems(self.p.c_lib[v as usize])
            .iter()
            .position(|d| d.mem == m)
            .map(|i| base + i)
    }

    /// Whether `v` may start at the current instant: a free core, and for
    /// each type it demands, the held total plus its demand within the size,
    /// what its own start releases (holders whose last pending successor it
    /// is) and what joint starts could release (`joint`: holders with two
    /// or more pending successors, all of which may still start now). The
    /// instant's final set is checked exactly when time advances.
    fn fits(&self, v: u32, joint: &[u128]) -> bool {
        let p = self.p;
        let c = usize::from(p.core(v));
        if p.dur(v) > 0 && self.get(self.lay.used + c) >= u64::from(p.inst.platform.cores[c].count)
        {
            return false;
        }
        let lib = &p.inst.library;
        lib.mems(p.c_lib[v as usize]).iter().all(|d| {
            let m = usize::from(d.mem);
            let mut free = u128::from(p.inst.platform.mems[m].size) + joint[m];
            self.for_each_pred(v, |x| {
                if let Some(slot) = self.slot_of(x, d.mem)
                    && self.get(self.lay.pending + slot) == 1
                {
                    free += u128::from(
                        lib.mems(p.c_lib[x as usize])[slot - p.hold_off[x as usize] as usize]
                            .amount,
                    );
                }
            });
            self.get2(self.lay.held, m) + u128::from(d.amount) <= free
        })
    }

    /// Per memory type, the amounts of the holders that the nodes that may
    /// still start at this instant would release if they all started: all
    /// of them, and those with two or more pending successors.
    fn releasable(&mut self, epoch: u64) -> (Vec<u128>, Vec<u128>) {
        let p = self.p;
        let lib = &p.inst.library;
        let mut seen = std::mem::take(&mut self.slot_seen);
        let mut touched = std::mem::take(&mut self.touched);
        seen.resize(p.pending0.len(), 0);
        touched.clear();
        for i in 0..self.get(READY_LEN) as usize {
            let v = self.get(self.lay.ready + i) as u32;
            if self.get(self.lay.excl + v as usize) == epoch {
                continue;
            }
            self.for_each_pred(v, |x| {
                for d in lib.mems(p.c_lib[v as usize]) {
                    if let Some(slot) = self.slot_of(x, d.mem) {
                        if seen[slot] == 0 {
                            touched.push((slot as u32, x));
                        }
                        seen[slot] += 1;
                    }
                }
            });
        }
        let mut all = vec![0u128; self.lay.n_mem];
        let mut joint = vec![0u128; self.lay.n_mem];
        for &(slot, x) in &touched {
            let slot = slot as usize;
            let pending = self.get(self.lay.pending + slot);
            if pending == u64::from(seen[slot]) {
                let d = lib.mems(p.c_lib[x as usize])[slot - p.hold_off[x as usize] as usize];
                all[usize::from(d.mem)] += u128::from(d.amount);
                if pending >= 2 {
                    joint[usize::from(d.mem)] += u128::from(d.amount);
                }
            }
            seen[slot] = 0;
        }
        self.slot_seen = seen;
        self.touched = touched;
        (all, joint)
    }

    /// The node-graph predecessors of `v`: intra-op, or for a source the
    /// sinks of its op's predecessors.
    fn for_each_pred(&self, v: u32, mut f: impl FnMut(u32)) {
        let p = self.p;
        let mut any = false;
        for x in p.preds(v) {
            any = true;
            f(x);
        }
        if !any {
            for &a in &p.opreds[p.c_op[v as usize] as usize] {
                let ka = self.get(self.lay.choice + a as usize) as u32;
                for x in p.ends(a, ka, true) {
                    f(x);
                }
            }
        }
    }

    fn start(&mut self, v: u32) {
        let p = self.p;
        let lib = &p.inst.library;
        let t = self.get(T);
        self.set(self.lay.start + v as usize, t);
        self.remove_ready(v);
        let todo = self.get(TODO);
        self.set(TODO, todo - 1);
        let end = t + p.dur(v);
        let mems = lib.mems(p.c_lib[v as usize]);
        for d in mems {
            let (region, m) = (self.lay.held, usize::from(d.mem));
            let h = self.get2(region, m);
            self.set2(region, m, h + u128::from(d.amount));
        }
        let mut preds = std::mem::take(&mut self.preds_scratch);
        preds.clear();
        self.for_each_pred(v, |x| preds.push(x));
        for &x in &preds {
            for d in mems {
                if let Some(slot) = self.slot_of(x, d.mem) {
                    self.count_down(x, slot, 1);
                }
            }
        }
        self.preds_scratch = preds;
        let key = self.get(KEY) ^ node_term(v, if p.dur(v) == 0 { NONE } else { end });
        self.set(KEY, key);
        if p.dur(v) == 0 {
            self.finish(v);
        } else {
            for d in mems {
                let (region, m) = (self.lay.busy, usize::from(d.mem));
                let b = self.get2(region, m);
                self.set2(region, m, b + u128::from(d.amount));
            }
            let c = self.lay.used + usize::from(p.core(v));
            let u = self.get(c);
            self.set(c, u + 1);
            let n = self.get(RUN_LEN);
            self.set(self.lay.run + n as usize, u64::from(v));
            self.set(RUN_LEN, n + 1);
        }
    }

    /// `v` ends now: its holds without waiting successors are released, its
    /// successors may become ready.
    fn finish(&mut self, v: u32) {
        let p = self.p;
        for slot in p.hold_off[v as usize] as usize..p.hold_off[v as usize + 1] as usize {
            if self.get(self.lay.pending + slot) == 0 {
                self.release(v, slot);
            }
        }
        let mut sink = true;
        for s in p.succs(v) {
            sink = false;
            let i = self.lay.preds_left + s as usize;
            let k = self.get(i) - 1;
            self.set(i, k);
            if k == 0 {
                self.push_ready(s);
            }
        }
        if sink {
            let o = p.c_op[v as usize] as usize;
            let i = self.lay.op_sinks_left + o;
            let k = self.get(i) - 1;
            self.set(i, k);
            if k == 0 {
                for &b in &p.osuccs[o] {
                    let j = self.lay.op_preds_left + b as usize;
                    let k = self.get(j) - 1;
                    self.set(j, k);
                    if k == 0 {
                        self.push_rop(b);
                    }
                }
            }
        }
    }

    /// To the next end: the free memory and idle cores of `[t, t')` are
    /// charged; `false` when a budget is exceeded or a ready node can no
    /// longer meet the target.
    fn advance(&mut self) -> bool {
        let p = self.p;
        // The instant's starts as a set: within every size (problem.md §4.4).
        if (0..self.lay.n_mem)
            .any(|m| self.get2(self.lay.held, m) > u128::from(p.inst.platform.mems[m].size))
        {
            return false;
        }
        let t = self.get(T);
        let n = self.get(RUN_LEN) as usize;
        let next = (0..n)
            .map(|i| {
                let v = self.get(self.lay.run + i) as u32;
                self.get(self.lay.start + v as usize) + p.dur(v)
            })
            .min()
            .expect("advance with nodes running");
        let span = u128::from(next - t);
        for m in 0..self.lay.n_mem {
            let free = u128::from(p.inst.platform.mems[m].size) - self.get2(self.lay.busy, m);
            let (charge, lb) = (self.lay.waste + m, self.lay.area_lb + m);
            if !self.add_within(charge, free * span, lb, self.mem_cap_area[m]) {
                return false;
            }
        }
        for c in 0..self.lay.n_core {
            let idle = u128::from(p.inst.platform.cores[c].count)
                - u128::from(self.get(self.lay.used + c));
            let (charge, lb) = (self.lay.idle + c, self.lay.work_lb + c);
            if !self.add_within(charge, idle * span, lb, self.core_cap_work[c]) {
                return false;
            }
        }
        self.set(T, next);
        if next > self.deepest {
            self.deepest = next;
        }
        let epoch = self.get(EPOCH);
        self.set(EPOCH, epoch + 1);
        let mut i = 0;
        while i < self.get(RUN_LEN) as usize {
            let v = self.get(self.lay.run + i) as u32;
            if self.get(self.lay.start + v as usize) + p.dur(v) == next {
                let len = self.get(RUN_LEN) as usize;
                let last = self.get(self.lay.run + len - 1);
                self.set(self.lay.run + i, last);
                self.set(RUN_LEN, len as u64 - 1);
                let c = self.lay.used + usize::from(p.core(v));
                let u = self.get(c);
                self.set(c, u - 1);
                for d in p.inst.library.mems(p.c_lib[v as usize]) {
                    let (region, m) = (self.lay.busy, usize::from(d.mem));
                    let b = self.get2(region, m);
                    self.set2(region, m, b - u128::from(d.amount));
                }
                let key = self.get(KEY) ^ node_term(v, next) ^ node_term(v, NONE);
                self.set(KEY, key);
                self.finish(v);
            } else {
                i += 1;
            }
        }
        let now = u128::from(next);
        let late = (0..self.get(READY_LEN) as usize).any(|i| {
            let v = self.get(self.lay.ready + i) as usize;
            now + p.tail[v] > self.target
        }) || (0..self.get(ROPS_LEN) as usize).any(|i| {
            let o = self.get(self.lay.rops + i) as usize;
            now + p.optail[o] > self.target
        });
        !late
    }

    /// The branches of the current state, best first.
    fn alternatives(&mut self) -> Vec<Alt> {
        let p = self.p;
        if self.get(ROPS_LEN) > 0 {
            let o = (0..self.get(ROPS_LEN) as usize)
                .map(|i| self.get(self.lay.rops + i) as u32)
                .min()
                .unwrap();
            let mut ks: Vec<u32> = (0..p.cands[o as usize].len() as u32).collect();
            ks.sort_by_key(|&k| self.source_tail(o, k));
            // Perturbed runs put another candidate first now and then (3 %
            // of the choices): a shuffle of every op's order strays from
            // the quickest tilings too often (results/policy.md).
            if let Some(rng) = self.noise.as_mut()
                && ks.len() > 1
                && rng.chance(0.03)
            {
                let i = 1 + rng.below_mod(ks.len() - 1);
                ks.swap(0, i);
            }
            return ks.into_iter().map(|k| Alt::Choose(o, k)).collect();
        }
        let t = u128::from(self.get(T));
        let epoch = self.get(EPOCH);
        let (releasable, joint) = self.releasable(epoch);
        let over = (0..self.lay.n_mem).any(|m| {
            self.get2(self.lay.held, m) > u128::from(p.inst.platform.mems[m].size) + releasable[m]
        });
        if over {
            // Above a size that no start left at this instant can bring back.
            return Vec::new();
        }
        let mut c = std::mem::take(&mut self.scratch);
        c.clear();
        let by_demand = self.by_demand;
        for i in 0..self.get(READY_LEN) as usize {
            let v = self.get(self.lay.ready + i) as u32;
            if self.get(self.lay.excl + v as usize) == epoch
                || t + p.tail[v as usize] > self.target
                || !self.fits(v, &joint)
            {
                continue;
            }
            c.push(self.keyed(
                p.tail[v as usize],
                self.demand_of(v),
                u64::from(v),
                by_demand,
            ));
        }
        c.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        let mut alts: Vec<Alt> = c.iter().map(|&(_, _, v)| Alt::Start(v as u32)).collect();
        self.scratch = c;
        if self.get(RUN_LEN) > 0 {
            alts.push(Alt::Advance);
        }
        alts
    }

    /// The sort key of a start branch (largest first): by tail then demand,
    /// or by demand then tail; perturbed in perturbed runs.
    fn keyed(&mut self, tail: u128, demand: u128, tag: u64, by_demand: bool) -> (u128, u128, u64) {
        let (mut key, second) = if by_demand {
            (demand, tail)
        } else {
            (tail, demand)
        };
        if let Some(rng) = self.noise.as_mut() {
            key = (key as f64 * (1.0 + 0.5 * rng.unit())) as u128;
        }
        (key, second, tag)
    }

    /// The summed demands of candidate node `v`.
    fn demand_of(&self, v: u32) -> u128 {
        let lib = &self.p.inst.library;
        lib.mems(self.p.c_lib[v as usize])
            .iter()
            .map(|d| u128::from(d.amount))
            .sum()
    }

    /// The longest tail of a source of candidate `k` of op `o`.
    fn source_tail(&self, o: u32, k: u32) -> u128 {
        let p = self.p;
        p.ends(o, k, false)
            .map(|s| p.tail[s as usize])
            .max()
            .unwrap_or(0)
    }

    /// Applies branch `i` of `alts`; `false` when it is pruned at once.
    fn apply(&mut self, alts: &[Alt], i: usize) -> bool {
        self.branches += 1;

        match alts[i] {
            Alt::Choose(o, k) => self.choose(o, k),
            Alt::Start(v) => {
                let epoch = self.get(EPOCH);
                for a in &alts[..i] {
                    if let Alt::Start(u) = *a {
                        self.set(self.lay.excl + u as usize, epoch);
                    }
                }
                self.start(v);
                true
            }
            Alt::Advance => self.advance(),
        }
    }

    /// Searches until a schedule is found, every branch is pruned, the
    /// deadline passes or `max_branches` more branches were applied. A
    /// later run starts again from the root, keeping the dead ends.
    pub fn run(
        &mut self,
        deadline: &Deadline,
        max_branches: u64,
        seed: Option<u64>,
        by_demand: bool,
    ) -> Outcome {
        self.undo(0);
        self.noise = seed.map(crate::rng::SplitMix64::new);
        self.by_demand = by_demand;
        let until = self.branches.saturating_add(max_branches);
        let mut stack: Vec<Frame> = Vec::new();
        let mut fresh = true;
        let mut instant_start = true;
        loop {
            if fresh {
                if self.get(TODO) == 0 && self.get(RUN_LEN) == 0 {
                    return self.found();
                }
                let memo = if instant_start {
                    let key = self.get(KEY) ^ mix(u64::MAX, self.get(T));
                    let charges = self.charges();
                    if self
                        .dead_at(key)
                        .is_some_and(|d| d.iter().zip(&charges).all(|(a, b)| a <= b))
                    {
                        self.memo_hits += 1;
                        None
                    } else {
                        Some(Some((key, charges)))
                    }
                } else {
                    Some(None)
                };
                if let Some(memo) = memo {
                    let alts = if self.get(TODO) == 0 {
                        // Everything started: the rest only ends.
                        vec![Alt::Advance]
                    } else {
                        self.alternatives()
                    };
                    stack.push(Frame {
                        mark: self.trail.len(),
                        alts,
                        next: 0,
                        memo,
                    });
                }
            }
            if self.branches & 255 == 0 && (self.branches >= until || deadline.expired()) {
                return Outcome::Stopped;
            }
            let Some(top) = stack.last_mut() else {
                return Outcome::Exhausted;
            };
            let mark = top.mark;
            if top.next >= top.alts.len() {
                if let Some((key, charges)) = stack.pop().and_then(|f| f.memo) {
                    self.record_dead(key, &charges);
                }
                fresh = false;
                continue;
            }
            let i = top.next;
            top.next += 1;
            let alts = std::mem::take(&mut top.alts);
            self.undo(mark);
            let ok = self.apply(&alts, i);
            instant_start = matches!(alts[i], Alt::Advance);
            stack.last_mut().unwrap().alts = alts;
            fresh = ok;
            if !ok {
                self.undo(mark);
            }
        }
    }

    /// The charges of the dead end recorded under `key`.
    fn dead_at(&self, key: u64) -> Option<&[u64]> {
        let w = self.lay.n_mem + self.lay.n_core;
        self.dead
            .get(&key)
            .map(|&i| &self.dead_charges[i as usize * w..(i as usize + 1) * w])
    }

    /// Records a dead end (replacing one under the same key that it
    /// dominates; at most `MEMO_CAP`).
    fn record_dead(&mut self, key: u64, charges: &[u64]) {
        let w = self.lay.n_mem + self.lay.n_core;
        match self.dead.get(&key) {
            Some(&i) => {
                let at = i as usize * w;
                let old = &mut self.dead_charges[at..at + w];
                if charges.iter().zip(old.iter()).all(|(a, b)| a <= b) {
                    old.copy_from_slice(charges);
                }
            }
            None if self.dead.len() < MEMO_CAP => {
                let i = self.dead.len() as u32;
                self.dead_charges.extend_from_slice(charges);
                self.dead.insert(key, i);
            }
            None => {}
        }
    }

    /// The free memory and idle core time charged so far, per type.
    fn charges(&self) -> Vec<u64> {
        let l = &self.lay;
        (0..l.n_mem)
            .map(|m| self.cells[l.waste + m])
            .chain((0..l.n_core).map(|c| self.cells[l.idle + c]))
            .collect()
    }

    fn found(&self) -> Outcome {
        let p = self.p;
        let start = (0..p.n_nodes())
            .map(|v| self.get(self.lay.start + v))
            .collect();
        let choice = (0..p.cands.len())
            .map(|o| {
                let k = self.get(self.lay.choice + o);
                if k == NONE { 0 } else { k as u32 }
            })
            .collect();
        Outcome::Found { start, choice }
    }
}
