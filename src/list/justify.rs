//! Right justification under the hold rule: the backward half of
//! forward-backward improvement where memory can bind.
//!
//! A serial pass places each node as early as the profiles allow, so a node
//! whose same-type successors must wait starts long before them and holds
//! its memory all that time (problem.md §4.4): in list schedules of the
//! medium tight instances the memory held is two to four times what the
//! running nodes need (results/tight-sides.md). Moving
//! such a node later shortens its hold and leaves memory free where a later
//! pass can use it.
//!
//! `right_shift` takes a legal schedule and visits its nodes latest start
//! first, moving each to the latest start that keeps the schedule legal:
//!
//! - no later than each successor's start minus its duration, and its end
//!   no later than the makespan;
//! - a free core of its type over its new run;
//! - for each type it demands with no same-type successor, its amount beside
//!   the profile over its new run (its hold moves with it);
//! - for each type it demands with a same-type successor, nothing: its hold
//!   `[start, R)` only shrinks from the left (R is the successors' business);
//! - for each predecessor whose hold of a type it demands would now end at
//!   its new start (it was that hold's last same-type successor), the
//!   extension `[R_old, start)` beside the profile, together with the other
//!   predecessors' extensions.
//!
//! Every move keeps the profiles equal to what the schedule holds and within
//! the sizes, and every edge forward, so the result is a legal schedule of
//! the same or a shorter makespan in which no node starts earlier than
//! before (models/list.md, "Right justification under the hold rule"). The
//! caller's insertion pass of its start order then places each node as
//! early as it fits again (a legal schedule's start order leaves room for
//! every node, `insertion.rs`), now into the memory the shifted holds left
//! free.
//!
//! Cost: O(n log H) tree operations plus, for every node moved, its
//! predecessors' slots; with one segment tree of H leaves per core and
//! memory type, where `MAX_CELLS` bounds them.

use crate::graph::NodeGraph;
use crate::stop::Deadline;

use super::profile::{Looks, MaxTree, cells_fit, sizes_and_cores, unit_of};

/// `start` (a legal schedule of `g`) right-justified as above: the new
/// starts, each at least the old one, every end at most the old makespan.
/// `None` where the profiles would not fit `MAX_CELLS`, a size or amount is
/// 2^52 or more, or `deadline` passes (looked at every `DEADLINE_EVERY`
/// nodes or `STEPS_BETWEEN_LOOKS` steps of the moves' walks).
pub fn right_shift(g: &NodeGraph, start: &[u64], deadline: &Deadline) -> Option<Vec<u64>> {
    let mut sh = Shift::new(g, start)?;
    // Latest start first; among equal starts, later in a topological order
    // first (a successor of a node of duration 0 may start with it).
    let n = g.n_nodes();
    let mut topo_pos = vec![0u32; n];
    for (i, v) in g.topo_order().into_iter().enumerate() {
        topo_pos[v as usize] = i as u32;
    }
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_unstable_by_key(|&v| std::cmp::Reverse((sh.s[v as usize], topo_pos[v as usize])));
    let mut looks = Looks::default();
    for (i, &v) in order.iter().enumerate() {
        if looks.stop(i, sh.steps, deadline) {
            return None;
        }
        sh.move_late(v);
    }
    Some(sh.s.into_iter().map(|x| x * sh.unit).collect())
}

/// One of the right shift's profiles: a core type's or a memory type's.
#[derive(Clone, Copy)]
enum Profile {
    Core(usize),
    Mem(usize),
}

/// The schedule being shifted, in units, with its profiles.
struct Shift<'g, 'a> {
    g: &'g NodeGraph<'a>,
    unit: u64,
    /// The makespan in units.
    end_all: u64,
    caps: Vec<i64>,
    cores: Vec<i64>,
    /// Starts in units.
    s: Vec<u64>,
    /// Per node, the first of its slots (one per type it demands with an
    /// amount above 0); `slot[n]` is the count.
    slot: Vec<usize>,
    /// Per slot: its type and amount.
    slot_mem: Vec<(usize, i64)>,
    /// Per slot, the latest start of a same-type successor (0: none): the
    /// hold of slot k of v ends at max(end(v), succ_start[k]).
    succ_start: Vec<u64>,
    core: Vec<MaxTree>,
    mem: Vec<MaxTree>,
    /// Scratch: the predecessors' holds a move may extend (end, amount).
    ext: Vec<(u64, i64)>,
    /// Steps of the moves' walks so far (`profile::Looks`).
    steps: u64,
}

impl<'g, 'a> Shift<'g, 'a> {
    fn new(g: &'g NodeGraph<'a>, start: &[u64]) -> Option<Self> {
        let n = g.n_nodes();
        let inst = g.inst;
        if start.len() != n {
            return None;
        }
        // Units that divide every duration and every start: the moves land
        // on ends and starts of other nodes, multiples of it.
        let unit = start
            .iter()
            .fold(unit_of(g), |u, &x| crate::prep::unit::gcd(u, x));
        let (n_mem, n_core) = (inst.platform.mems.len(), inst.platform.cores.len());
        let makespan = (0..n as u32)
            .map(|v| start[v as usize].checked_add(g.dur(v)))
            .try_fold(0, |m, e| e.map(|e| m.max(e)))?;
        if !cells_fit(makespan, unit, (n_core + n_mem) as u64) {
            return None;
        }
        let (caps, cores) = sizes_and_cores(inst)?;
        let mut slot = Vec::with_capacity(n + 1);
        let mut slot_mem: Vec<(usize, i64)> = Vec::new();
        for v in 0..n as u32 {
            slot.push(slot_mem.len());
            for e in g.mems(v) {
                if e.amount > 0 {
                    let a = i64::try_from(e.amount).ok().filter(|&a| a < 1 << 52)?;
                    slot_mem.push((e.mem as usize, a));
                }
            }
        }
        slot.push(slot_mem.len());
        let end_all = makespan / unit;
        let leaves = end_all as usize + 1;
        let mut sh = Shift {
            g,
            unit,
            end_all,
            caps,
            cores,
            s: start.iter().map(|&x| x / unit).collect(),
            succ_start: vec![0; slot_mem.len()],
            slot,
            slot_mem,
            core: Vec::new(),
            mem: Vec::new(),
            ext: Vec::new(),
            steps: 0,
        };
        sh.succ_start = sh.successors_starts();
        sh.build_profiles(leaves);
        Some(sh)
    }

    fn dur(&self, v: u32) -> u64 {
        self.g.dur(v) / self.unit
    }

    fn slots(&self, v: u32) -> std::ops::Range<usize> {
        self.slot[v as usize]..self.slot[v as usize + 1]
    }

    fn slot_of(&self, v: u32, m: usize) -> Option<usize> {
        self.slots(v).find(|&k| self.slot_mem[k].0 == m)
    }

    fn hold_end(&self, v: u32, k: usize) -> u64 {
        (self.s[v as usize] + self.dur(v)).max(self.succ_start[k])
    }

    /// Per slot, the latest start of a same-type successor (sinks through
    /// their successor ops' sources, counted once per op and type).
    fn successors_starts(&self) -> Vec<u64> {
        let (g, n_mem) = (self.g, self.caps.len());
        let mut src_latest = vec![0u64; g.n_ops() * n_mem];
        for op in 0..g.n_ops() as u32 {
            for w in g.sources(op) {
                for k in self.slots(w) {
                    let e = &mut src_latest[op as usize * n_mem + self.slot_mem[k].0];
                    *e = (*e).max(self.s[w as usize]);
                }
            }
        }
        let mut out = vec![0u64; self.slot_mem.len()];
        for v in 0..g.n_nodes() as u32 {
            for k in self.slots(v) {
                let m = self.slot_mem[k].0;
                let mut r = 0;
                for w in g.intra_succs(v) {
                    if self.slot_of(w, m).is_some() {
                        r = r.max(self.s[w as usize]);
                    }
                }
                if g.is_sink(v) {
                    for &b in g.op_succs(g.node_op[v as usize]) {
                        r = r.max(src_latest[b as usize * n_mem + m]);
                    }
                }
                out[k] = r;
            }
        }
        out
    }

    /// What `v` uses at its start: its run on its core type over
    /// `[s, s + d)` (where `d > 0`), amount 1, and each hold on its memory
    /// type over `[s, hold end)`, the slot's amount; `f(profile, l, r,
    /// amount)`. The profiles' one statement of which intervals a node
    /// takes (`build_profiles`, `profile_add`).
    fn for_each_use(&self, v: u32, mut f: impl FnMut(Profile, usize, usize, i64)) {
        let (sv, d) = (self.s[v as usize] as usize, self.dur(v) as usize);
        if d > 0 {
            f(
                Profile::Core(usize::from(self.g.core[v as usize])),
                sv,
                sv + d,
                1,
            );
        }
        for k in self.slots(v) {
            let (m, a) = self.slot_mem[k];
            f(Profile::Mem(m), sv, self.hold_end(v, k) as usize, a);
        }
    }

    /// The profiles of every node's run and holds (what `profile_add` of
    /// each node would leave): per profile, the changes at each instant,
    /// summed into the cells and built bottom-up (`MaxTree::from_cells`),
    /// in time linear in the nodes and the cells.
    fn build_profiles(&mut self, leaves: usize) {
        let mut core = vec![vec![0i64; leaves + 1]; self.cores.len()];
        let mut mem = vec![vec![0i64; leaves + 1]; self.caps.len()];
        for v in 0..self.g.n_nodes() as u32 {
            self.for_each_use(v, |p, l, r, a| {
                let steps = match p {
                    Profile::Core(c) => &mut core[c],
                    Profile::Mem(m) => &mut mem[m],
                };
                steps[l] += a;
                steps[r] -= a;
            });
        }
        let tree = |mut steps: Vec<i64>| {
            for i in 1..steps.len() {
                steps[i] += steps[i - 1];
            }
            MaxTree::from_cells(&steps[..leaves])
        };
        self.core = core.into_iter().map(tree).collect();
        self.mem = mem.into_iter().map(tree).collect();
    }

    /// Adds (`sign` 1) or takes off (-1) `v`'s run and holds. (The trees
    /// are taken out of `self` while `for_each_use` reads it: a move of
    /// two vectors, no allocation.)
    fn profile_add(&mut self, v: u32, sign: i64) {
        let (mut core, mut mem) = (
            std::mem::take(&mut self.core),
            std::mem::take(&mut self.mem),
        );
        self.for_each_use(v, |p, l, r, a| {
            let tree = match p {
                Profile::Core(c) => &mut core[c],
                Profile::Mem(m) => &mut mem[m],
            };
            tree.range_add(l, r, sign * a);
        });
        (self.core, self.mem) = (core, mem);
    }

    /// Moves `v` to the latest start the conditions of the module allow
    /// (where none is later, it stays), keeping the profiles exact.
    fn move_late(&mut self, v: u32) {
        let g = self.g;
        let (d, s0) = (self.dur(v), self.s[v as usize]);
        let mut latest = self.end_all - d;
        g.for_each_succ(v, |w| latest = latest.min(self.s[w as usize] - d));
        if latest <= s0 {
            return;
        }
        // Off the profiles while its new start is chosen.
        self.profile_add(v, -1);
        let bound = self.extension_bound(v, latest);
        let new = self.latest_fit(v, s0, bound);
        self.s[v as usize] = new;
        self.profile_add(v, 1);
        if new > s0 {
            // The predecessors' holds it now ends, extended to its start.
            for kv in self.slots(v) {
                let m = self.slot_mem[kv].0;
                let mut grown: Vec<(usize, u64, u64, i64)> = Vec::new();
                g.for_each_pred(v, |p| {
                    if let Some(k) = self.slot_of(p, m) {
                        let before = self.hold_end(p, k);
                        let after = before.max(new);
                        grown.push((k, before, after, self.slot_mem[k].1));
                    }
                });
                for (k, before, after, a) in grown {
                    self.succ_start[k] = self.succ_start[k].max(new);
                    self.mem[m].range_add(before as usize, after as usize, a);
                }
            }
        }
    }

    /// Condition 3: the latest start, at most `bound`, up to which the
    /// extensions of `v`'s same-type predecessors' holds fit together: per
    /// type, the first instant where the profile and the extensions begun
    /// by then exceed the size (a start past it would hold it).
    fn extension_bound(&mut self, v: u32, mut bound: u64) -> u64 {
        let g = self.g;
        let mut ext = std::mem::take(&mut self.ext);
        for kv in self.slots(v) {
            let m = self.slot_mem[kv].0;
            ext.clear();
            g.for_each_pred(v, |p| {
                if let Some(k) = self.slot_of(p, m) {
                    let e = self.hold_end(p, k);
                    if e < bound {
                        ext.push((e, self.slot_mem[k].1));
                    }
                }
            });
            ext.sort_unstable();
            let mut sum = 0;
            for j in 0..ext.len() {
                sum += ext[j].1;
                let to = ext.get(j + 1).map_or(bound, |x| x.0.min(bound));
                let over =
                    self.mem[m].first_above(ext[j].0 as usize, to as usize, self.caps[m] - sum);
                if let Some(t) = over {
                    bound = bound.min(t as u64);
                    break;
                }
            }
        }
        self.ext = ext;
        bound
    }

    /// Conditions 1 and 2: the latest start in `(s0, bound]` with a free
    /// core and room for the holds that move with `v` (those with no
    /// same-type successor after its end), jumping below the last instant
    /// that refuses each; `s0` where there is none.
    fn latest_fit(&mut self, v: u32, s0: u64, bound: u64) -> u64 {
        let d = self.dur(v);
        let ct = self.g.core[v as usize] as usize;
        let mut t = bound;
        while t > s0 {
            self.steps += 1;
            let (l, r) = (t as usize, (t + d) as usize);
            let mut bad = if d > 0 {
                self.core[ct].last_above(l, r, self.cores[ct] - 1)
            } else {
                None
            };
            for k in self.slots(v) {
                let (m, a) = self.slot_mem[k];
                if self.succ_start[k] <= t + d {
                    bad = bad.max(self.mem[m].last_above(l, r, self.caps[m] - a));
                }
            }
            match bad.and_then(|b| (b as u64).checked_sub(d)) {
                None if bad.is_none() => return t,
                Some(x) if x < t => t = x,
                _ => return s0,
            }
        }
        s0
    }
}
