//! The parallel schedule generation scheme with the real memory rule (SPEC 4.4).
//!
//! Time jumps from one completion to the next. At each instant the scheme starts
//! ready nodes in priority order while a core of their type is free and memory
//! allows. A node's memory hold ends only when all its same-type successors have
//! started, so starting a successor may *release* memory: the admission test uses
//! the net change (acquisitions minus the holds that this start releases). When
//! only a joint start of several successors releases a holder (the task book's
//! 1024 -> 512 + 512 case), the scheme starts that group at one instant.
//!
//! Greedy starts can still trap memory: holders whose successors cannot fit. The
//! scheme detects that (nothing running, nothing startable) and reports a
//! deadlock; callers then restart with a narrower op window (fewer ops in
//! flight) or the serial mode, which start fewer holders at once.
//!
//! Inter-op holds are kept at op level: the sinks of op `a` that demand type m
//! all wait for the same set (the m-demanding sources of `a`'s successor ops), so
//! one counter per (op, type) replaces sinks x sources pairs.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::graph::NodeGraph;
use crate::instance::TypeIdx;
use crate::schedule::Schedule;

/// How many ops may be in flight (started, not all nodes ended) at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// No limit: the ordinary parallel scheme.
    Parallel,
    /// At most this many ops in flight.
    Window(u32),
    /// Nodes start in the order of the activity list (the topological order that
    /// follows the keys), each as early as cores and memory allow. If the serial
    /// schedule in that order is legal, this mode cannot deadlock: whenever the
    /// next node waits, the nodes before it end and leave exactly the serial state.
    Ordered,
    /// The activity list one node (or one joint group) at a time.
    Serial,
}

/// Why a pass produced no schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deadlock {
    pub time: u64,
    pub started: usize,
    /// Ops holding memory when the pass got stuck (they are the ones to change).
    pub holding_ops: Vec<u32>,
    /// True when some time overflowed u64 instead.
    pub overflow: bool,
}

/// Static tables for one node graph, shared by every pass over it.
pub struct Model<'g, 'a> {
    pub g: &'g NodeGraph<'a>,
    n_mem: usize,
    caps: Vec<u128>,
    /// First memory entry of each node (entries are `g.mems(v)` in order).
    ent_off: Vec<u32>,
    /// Per entry: number of intra-op successors demanding the same type.
    ent_wait0: Vec<u32>,
    /// Per op: `(type, pending m-sources of successor ops, sum of m-sink demands)`.
    opm_off: Vec<u32>,
    opm: Vec<(TypeIdx, u32, u64)>,
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
        let mut ent_off = Vec::with_capacity(n + 1);
        let mut ent_wait0 = Vec::new();
        ent_off.push(0u32);
        for v in 0..n as u32 {
            for e in g.mems(v) {
                let w = g.intra_succs(v).filter(|&s| g.demand(s, e.mem) > 0).count();
                ent_wait0.push(w as u32);
            }
            ent_off.push(ent_wait0.len() as u32);
        }
        // Per op and type: how many m-demanding sources each op has.
        let mut src_count: Vec<(u32, TypeIdx, u32)> = Vec::new();
        let mut per_op_src: Vec<u32> = vec![0; n_mem];
        let mut opm_off = Vec::with_capacity(n_ops + 1);
        let mut opm = Vec::new();
        let mut src_off = Vec::with_capacity(n_ops + 1);
        for op in 0..n_ops as u32 {
            per_op_src.iter_mut().for_each(|c| *c = 0);
            for v in g.sources(op) {
                for e in g.mems(v) {
                    per_op_src[e.mem as usize] += 1;
                }
            }
            src_off.push(src_count.len() as u32);
            for (m, &c) in per_op_src.iter().enumerate() {
                if c > 0 {
                    src_count.push((op, m as TypeIdx, c));
                }
            }
        }
        src_off.push(src_count.len() as u32);
        let mut sink_sum: Vec<u64> = vec![0; n_mem];
        let mut pending: Vec<u32> = vec![0; n_mem];
        for op in 0..n_ops as u32 {
            opm_off.push(opm.len() as u32);
            sink_sum.iter_mut().for_each(|c| *c = 0);
            for v in g.sinks(op) {
                for e in g.mems(v) {
                    sink_sum[e.mem as usize] = sink_sum[e.mem as usize].saturating_add(e.amount);
                }
            }
            pending.iter_mut().for_each(|c| *c = 0);
            for &b in g.op_succs(op) {
                for &(_, m, c) in
                    &src_count[src_off[b as usize] as usize..src_off[b as usize + 1] as usize]
                {
                    pending[m as usize] += c;
                }
            }
            for m in 0..n_mem {
                if sink_sum[m] > 0 && pending[m] > 0 {
                    opm.push((m as TypeIdx, pending[m], sink_sum[m]));
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
            caps: inst
                .platform
                .mems
                .iter()
                .map(|m| u128::from(m.size))
                .collect(),
            ent_off,
            ent_wait0,
            opm_off,
            opm,
            op_wait0,
            core_count: inst.platform.cores.iter().map(|c| c.count).collect(),
        }
    }

    /// Whether entry `k` of `v` holds anything when `v` starts: a zero-length node
    /// with no same-type successor to wait for holds the empty interval [t, t).
    fn holds_at_start(&self, v: u32, k: usize) -> bool {
        let g = self.g;
        if g.dur[v as usize] > 0 {
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

/// The mutable state of one pass.
struct Pass<'m, 'g, 'a> {
    md: &'m Model<'g, 'a>,
    key: &'m [u64],
    mode: Mode,
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
    free: Vec<Vec<u32>>,
    running: BinaryHeap<Reverse<(u64, u32)>>,
    /// Ready nodes per core type, and zero-duration ones apart (they need no core).
    ready: Vec<BinaryHeap<(u64, Reverse<u32>)>>,
    ready_zero: BinaryHeap<(u64, Reverse<u32>)>,
    op_started: Vec<u32>,
    op_ended: Vec<u32>,
    in_flight: u32,
    n_started: usize,
    /// Activity list and the position of the next node to start (ordered modes).
    list: Vec<u32>,
    next: usize,
    overflow: bool,
    // Scratch for group admission.
    ent_dec: Vec<u32>,
    opm_dec: Vec<u32>,
    touched_ent: Vec<usize>,
    touched_opm: Vec<usize>,
    delta_acq: Vec<u128>,
    delta_rel: Vec<u128>,
    cores_need: Vec<u32>,
    new_ops: Vec<u32>,
}

/// Attempts per instant and core type on memory-blocked nodes before moving on;
/// bounds the work per event when memory is tight and many nodes are ready.
const MEMORY_TRIES: usize = 64;
/// Largest joint group tried.
const MAX_GROUP: usize = 64;

/// Runs one pass. `key[v]`: higher starts first. Returns the schedule, or why none.
pub fn run(md: &Model, key: &[u64], mode: Mode) -> Result<Schedule, Deadlock> {
    let g = md.g;
    let n = g.n_nodes();
    let n_ops = g.n_ops();
    let mut p = Pass {
        md,
        key,
        mode,
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
        free: md
            .core_count
            .iter()
            .map(|&c| (0..c).rev().collect())
            .collect(),
        running: BinaryHeap::new(),
        ready: (0..md.core_count.len())
            .map(|_| BinaryHeap::new())
            .collect(),
        ready_zero: BinaryHeap::new(),
        op_started: vec![0; n_ops],
        op_ended: vec![0; n_ops],
        in_flight: 0,
        n_started: 0,
        list: if matches!(mode, Mode::Ordered | Mode::Serial) {
            activity_list(g, key)
        } else {
            Vec::new()
        },
        next: 0,
        overflow: false,
        ent_dec: vec![0; md.ent_wait0.len()],
        opm_dec: vec![0; md.opm.len()],
        touched_ent: Vec::new(),
        touched_opm: Vec::new(),
        delta_acq: vec![0; md.n_mem],
        delta_rel: vec![0; md.n_mem],
        cores_need: vec![0; md.core_count.len()],
        new_ops: Vec::new(),
    };
    for op in 0..n_ops as u32 {
        if p.op_wait[op as usize] == 0 {
            for v in g.sources(op) {
                p.make_ready(v);
            }
        }
    }
    let mut t: u64 = 0;
    loop {
        p.start_phase(t);
        if p.overflow {
            return Err(p.deadlock(t, true));
        }
        if p.n_started == n && p.running.is_empty() {
            break;
        }
        let Some(&Reverse((next, _))) = p.running.peek() else {
            return Err(p.deadlock(t, false));
        };
        t = next;
        while let Some(&Reverse((e, v))) = p.running.peek() {
            if e != t {
                break;
            }
            p.running.pop();
            p.finish(v);
        }
    }
    Ok(Schedule {
        choice: g.choice.clone(),
        start: p.start,
        core: p.core,
    })
}

impl Pass<'_, '_, '_> {
    fn make_ready(&mut self, v: u32) {
        self.state[v as usize] = READY;
        if !self.list.is_empty() {
            return; // ordered modes read the activity list instead of heaps
        }
        let item = (self.key[v as usize], Reverse(v));
        if self.md.g.dur[v as usize] == 0 {
            self.ready_zero.push(item);
        } else {
            self.ready[self.md.g.core[v as usize] as usize].push(item);
        }
    }

    fn deadlock(&self, t: u64, overflow: bool) -> Deadlock {
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
            overflow,
        }
    }

    /// Starts as many ready nodes at `t` as cores, memory and the mode allow.
    fn start_phase(&mut self, t: u64) {
        if !self.list.is_empty() {
            return self.ordered_phase(t);
        }
        loop {
            let mut progress = false;
            if matches!(self.mode, Mode::Serial) && !self.running.is_empty() {
                return;
            }
            // Zero-duration nodes first: they free memory and unlock successors now.
            progress |= self.drain_heap(None, t);
            for c in 0..self.ready.len() {
                if matches!(self.mode, Mode::Serial) && (progress || !self.running.is_empty()) {
                    break;
                }
                if self.free[c].is_empty() || self.ready[c].is_empty() {
                    continue;
                }
                progress |= self.drain_heap(Some(c), t);
            }
            if !progress {
                return;
            }
        }
    }

    /// Ordered modes: start the next nodes of the activity list while they fit.
    /// A node that fits only together with the nodes after it (a holder whose
    /// same-type successors must start at one instant) starts with them.
    fn ordered_phase(&mut self, t: u64) {
        let serial = matches!(self.mode, Mode::Serial);
        while self.next < self.list.len() {
            if serial && !self.running.is_empty() {
                return;
            }
            let v = self.list[self.next];
            if self.state[v as usize] != READY {
                return;
            }
            if self.try_group(&[v], t) {
                self.next += 1;
                continue;
            }
            let mut started = false;
            let mut end = self.next + 1;
            while end < self.list.len() && end - self.next < MAX_GROUP {
                if self.state[self.list[end] as usize] != READY {
                    break;
                }
                end += 1;
                let group: Vec<u32> = self.list[self.next..end].to_vec();
                if self.try_group(&group, t) {
                    self.next = end;
                    started = true;
                    break;
                }
            }
            if !started {
                return;
            }
        }
    }

    /// Tries the ready nodes of one heap in priority order. Returns true if any started.
    fn drain_heap(&mut self, c: Option<usize>, t: u64) -> bool {
        let mut blocked: Vec<(u64, Reverse<u32>)> = Vec::new();
        let mut progress = false;
        let mut tries = 0;
        // With nothing running, a missed candidate would look like a deadlock: try all.
        let limit = if self.running.is_empty() {
            usize::MAX
        } else {
            MEMORY_TRIES
        };
        loop {
            if let Some(c) = c
                && self.free[c].is_empty()
            {
                break;
            }
            if matches!(self.mode, Mode::Serial) && (progress || !self.running.is_empty()) {
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
            if !self.window_allows(&[v]) {
                blocked.push(item);
                continue;
            }
            if self.try_group(&[v], t) {
                progress = true;
                continue;
            }
            if self.try_groups_for(v, t) {
                progress = true;
                continue;
            }
            blocked.push(item);
            tries += 1;
            if tries >= limit {
                break;
            }
        }
        let heap = match c {
            Some(c) => &mut self.ready[c],
            None => &mut self.ready_zero,
        };
        for it in blocked {
            heap.push(it);
        }
        progress
    }

    fn window_allows(&mut self, set: &[u32]) -> bool {
        let limit = match self.mode {
            Mode::Window(k) => k,
            Mode::Serial | Mode::Ordered | Mode::Parallel => return true,
        };
        self.new_ops.clear();
        for &v in set {
            let op = self.md.g.node_op[v as usize];
            if self.op_started[op as usize] == 0 && !self.new_ops.contains(&op) {
                self.new_ops.push(op);
            }
        }
        self.new_ops.is_empty() || self.in_flight + self.new_ops.len() as u32 <= limit
    }

    /// Memory and cores after starting all of `set` at one instant; starts them if
    /// everything fits. Holds released by these starts count (half-open intervals).
    fn try_group(&mut self, set: &[u32], t: u64) -> bool {
        let md = self.md;
        let g = md.g;
        for c in self.cores_need.iter_mut() {
            *c = 0;
        }
        for m in 0..md.n_mem {
            self.delta_acq[m] = 0;
            self.delta_rel[m] = 0;
        }
        for &v in set {
            if g.dur[v as usize] > 0 {
                self.cores_need[g.core[v as usize] as usize] += 1;
            }
        }
        for (c, &need) in self.cores_need.iter().enumerate() {
            if need as usize > self.free[c].len() {
                return false;
            }
        }
        for &v in set {
            let is_source = g.is_source(v);
            let op = g.node_op[v as usize];
            for (k, e) in g.mems(v).iter().enumerate() {
                let m = e.mem;
                if md.holds_at_start(v, k) {
                    self.delta_acq[m as usize] += u128::from(e.amount);
                }
                for x in g.intra_preds(v) {
                    if let Some(ex) = md.entry(x, m) {
                        if self.ent_dec[ex] == 0 {
                            self.touched_ent.push(ex);
                        }
                        self.ent_dec[ex] += 1;
                        if self.held[ex] && self.ent_wait[ex] == self.ent_dec[ex] {
                            self.delta_rel[m as usize] +=
                                u128::from(g.mems(x)[ex - md.ent_off[x as usize] as usize].amount);
                        }
                    }
                }
                if is_source {
                    for &pa in g.op_preds(op) {
                        if let Some(k) = md.opm_index(pa, m) {
                            if self.opm_dec[k] == 0 {
                                self.touched_opm.push(k);
                            }
                            self.opm_dec[k] += 1;
                            if self.opm_left[k] == self.opm_dec[k] {
                                self.delta_rel[m as usize] += u128::from(md.opm[k].2);
                            }
                        }
                    }
                }
            }
        }
        for &ex in &self.touched_ent {
            self.ent_dec[ex] = 0;
        }
        for &k in &self.touched_opm {
            self.opm_dec[k] = 0;
        }
        self.touched_ent.clear();
        self.touched_opm.clear();
        for m in 0..md.n_mem {
            if self.usage[m] + self.delta_acq[m] > md.caps[m] + self.delta_rel[m] {
                return false;
            }
        }
        for &v in set {
            self.start_node(v, t);
        }
        true
    }

    /// When `v` alone does not fit, tries the joint start of all pending
    /// same-type successors of one of its holders (or of all of them).
    fn try_groups_for(&mut self, v: u32, t: u64) -> bool {
        let md = self.md;
        let g = md.g;
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let op = g.node_op[v as usize];
        for e in g.mems(v) {
            let m = e.mem;
            for x in g.intra_preds(v) {
                if let Some(ex) = md.entry(x, m)
                    && self.held[ex]
                {
                    let grp: Vec<u32> = g
                        .intra_succs(x)
                        .filter(|&s| g.demand(s, m) > 0 && self.state[s as usize] < RUNNING)
                        .collect();
                    groups.push(grp);
                }
            }
            if g.is_source(v) {
                for &pa in g.op_preds(op) {
                    if let Some(k) = md.opm_index(pa, m)
                        && self.opm_left[k] > 0
                        && (self.opm_left[k] as usize) <= MAX_GROUP
                    {
                        let mut grp = Vec::new();
                        for &b in g.op_succs(pa) {
                            grp.extend(g.sources(b).filter(|&s| {
                                g.demand(s, m) > 0 && self.state[s as usize] < RUNNING
                            }));
                        }
                        groups.push(grp);
                    }
                }
            }
        }
        if groups.is_empty() {
            return false;
        }
        groups.retain(|grp| grp.len() > 1 && grp.len() <= MAX_GROUP);
        if groups.len() > 1 {
            let mut all: Vec<u32> = groups.iter().flatten().copied().collect();
            all.sort_unstable();
            all.dedup();
            if all.len() <= MAX_GROUP {
                groups.push(all);
            }
        }
        groups.sort_by_key(|grp| grp.len());
        for grp in groups {
            if grp.iter().all(|&s| self.state[s as usize] == READY)
                && self.window_allows(&grp)
                && self.try_group(&grp, t)
            {
                return true;
            }
        }
        false
    }

    fn start_node(&mut self, v: u32, t: u64) {
        let md = self.md;
        let g = md.g;
        let vi = v as usize;
        let d = g.dur[vi];
        self.state[vi] = RUNNING;
        self.start[vi] = t;
        self.n_started += 1;
        let op = g.node_op[vi];
        if self.op_started[op as usize] == 0 {
            self.in_flight += 1;
        }
        self.op_started[op as usize] += 1;
        if d > 0 {
            let c = g.core[vi] as usize;
            self.core[vi] = self.free[c].pop().expect("checked free core");
        } else {
            self.core[vi] = 0;
        }
        let is_source = g.is_source(v);
        let a = md.ent_off[vi] as usize;
        for (k, e) in g.mems(v).iter().enumerate() {
            let m = e.mem;
            if md.holds_at_start(v, k) {
                self.usage[m as usize] += u128::from(e.amount);
                self.held[a + k] = true;
            }
            // Releases of holders whose last same-type successor is `v`.
            for x in g.intra_preds(v) {
                if let Some(ex) = md.entry(x, m) {
                    self.ent_wait[ex] -= 1;
                    if self.ent_wait[ex] == 0 && self.state[x as usize] == ENDED && self.held[ex] {
                        self.release(x, ex);
                    }
                }
            }
            if is_source {
                for &pa in g.op_preds(op) {
                    if let Some(kk) = md.opm_index(pa, m) {
                        self.opm_left[kk] -= 1;
                        if self.opm_left[kk] == 0 {
                            for x in g.sinks(pa) {
                                if let Some(ex) = md.entry(x, m)
                                    && self.held[ex]
                                    && self.state[x as usize] == ENDED
                                {
                                    self.release(x, ex);
                                }
                            }
                        }
                    }
                }
            }
        }
        match t.checked_add(d) {
            Some(end) => self.running.push(Reverse((end, v))),
            None => {
                // The end does not fit u64: give up this pass honestly.
                self.overflow = true;
                self.running.push(Reverse((u64::MAX, v)));
            }
        }
    }

    fn release(&mut self, x: u32, ex: usize) {
        let amount = self.md.g.mems(x)[ex - self.md.ent_off[x as usize] as usize].amount;
        self.held[ex] = false;
        self.usage[self.md.g.mems(x)[ex - self.md.ent_off[x as usize] as usize].mem as usize] -=
            u128::from(amount);
    }

    fn finish(&mut self, v: u32) {
        let md = self.md;
        let g = md.g;
        let vi = v as usize;
        self.state[vi] = ENDED;
        if g.dur[vi] > 0 {
            let c = g.core[vi] as usize;
            self.free[c].push(self.core[vi]);
        }
        let op = g.node_op[vi];
        self.op_ended[op as usize] += 1;
        if self.op_ended[op as usize] == g.op_nodes(op).len() as u32 {
            self.in_flight -= 1;
        }
        // Holds with nothing left to wait for end with the node.
        let a = md.ent_off[vi] as usize;
        let sink = g.is_sink(v);
        for (k, e) in g.mems(v).iter().enumerate() {
            let ex = a + k;
            if !self.held[ex] {
                continue;
            }
            let waiting = if sink {
                md.opm_index(op, e.mem)
                    .is_some_and(|kk| self.opm_left[kk] > 0)
            } else {
                self.ent_wait[ex] > 0
            };
            if !waiting {
                self.release(v, ex);
            }
        }
        for s in g.intra_succs(v) {
            self.pred_left[s as usize] -= 1;
            if self.pred_left[s as usize] == 0 {
                self.make_ready(s);
            }
        }
        if sink {
            for &b in g.op_succs(op) {
                self.op_wait[b as usize] -= 1;
                if self.op_wait[b as usize] == 0 {
                    for s in g.sources(b) {
                        self.make_ready(s);
                    }
                }
            }
        }
    }
}

/// The topological order that follows `key` (highest first among the nodes whose
/// predecessors are all listed): Kahn's algorithm with a max-heap, op edges
/// counted once per op.
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
