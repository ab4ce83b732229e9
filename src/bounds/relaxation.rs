//! The tiling-choice relaxation (models/bounds.md §6) as data, and its
//! exact enumeration within a makespan.
//!
//! For a whole tiling choice `x` (one candidate per op) every schedule's
//! makespan `T` (in time units) satisfies rows of one shape,
//! `scale · T >= sum of the chosen candidates' coefficients + owed · [some
//! chosen candidate has a coefficient]`: each core type's load (scale: its
//! cores), each memory type's area (scale: its size), and a head-and-load
//! row per core type and head level; and the op chain: `T` covers the
//! longest path of heads, the chosen candidates' critical paths and tails.
//! The MILP (milp/aggregate.rs) minimises `T` over every choice at once;
//! `Relaxation::next_within` enumerates the choices within a makespan
//! exactly (integers throughout), which is what the choice enumeration at a
//! level needs (sat/choices.rs): every choice the relaxation puts at or
//! below the level, and no others. Both read the rows built here, so the
//! argument is written once.

use std::time::Instant;

use crate::bounds::Bounds;
use crate::instance::Instance;

/// Head (and tail) thresholds per core type in the head-and-load rows.
const LEVELS: usize = 8;

/// Largest set of candidate tilings a head-and-load row is written for when
/// no op is certain to put a node in it (the MILP needs an indicator and one
/// row per candidate there).
const MAX_OPTIONAL: usize = 400;

/// Largest library (nodes) for the per-node head-and-load rows: they need the
/// intra-tiling heads and tails of every library node (16 bytes each) and a
/// 32-byte record per candidate node; beyond, the relaxation keeps its other
/// rows.
const MAX_ROW_NODES: usize = 2_000_000;

/// `scale · T >= sum of coef over the chosen (op, candidate) in `terms` +
/// owed · [some chosen candidate is in `terms`]`, in time units.
#[derive(Clone, Debug)]
pub struct Row {
    pub scale: u128,
    /// `(op, candidate index, coefficient > 0)`, sorted.
    pub terms: Vec<(u32, u32, u128)>,
    pub owed: u128,
    /// Every choice owes `owed`: some op has all its candidates in `terms`.
    pub certain: bool,
    /// Written divided by its scale in the MILP (memory amounts are large;
    /// HiGHS wants rows near 1).
    pub per_unit: bool,
}

/// The op chain: `S_o >= head_o`, `S_b >= S_a + cp(x_a)` along `edges`,
/// `T >= S_o + cp(x_o) + tail_o` for every op that cannot be empty (units).
#[derive(Clone, Debug)]
pub struct Chain {
    pub head: Vec<u64>,
    pub tail: Vec<u64>,
    /// Ops with a candidate without nodes: with it chosen the op has no
    /// node, so neither its head nor its tail bounds `T` (`a -> empty b ->
    /// c` orders nothing, problem.md §6: `head_b + tail_b` may exceed the
    /// optimum), and it links nothing.
    pub may_be_empty: Vec<bool>,
    /// Per op, per candidate: the tiling's critical path.
    pub cp: Vec<Vec<u64>>,
    /// Op edges between ops that cannot be empty (an empty op links
    /// nothing, problem.md §6), by source: `succ[succ_start[o]..succ_start[o + 1]]`.
    pub succ_start: Vec<u32>,
    pub succ: Vec<u32>,
    /// The ops in a topological order of the op graph.
    pub order: Vec<u32>,
}

impl Chain {
    /// The successors of op `o` along the chain's edges.
    pub fn succs(&self, o: usize) -> &[u32] {
        &self.succ[self.succ_start[o] as usize..self.succ_start[o + 1] as usize]
    }

    /// The longest chain of heads, `cp` (per op) and tails; `start` is a
    /// buffer.
    fn longest(&self, cp: &[u64], start: &mut Vec<u64>) -> u64 {
        start.clear();
        start.extend_from_slice(&self.head);
        let mut best = 0u64;
        for &o in &self.order {
            let o = o as usize;
            if self.may_be_empty[o] {
                continue;
            }
            let end = start[o] + cp[o];
            best = best.max(end + self.tail[o]);
            for &b in self.succs(o) {
                start[b as usize] = start[b as usize].max(end);
            }
        }
        best
    }
}

/// The relaxation of an instance over its candidates.
#[derive(Clone, Debug)]
pub struct Relaxation {
    /// Per op, its candidate tilings (library ids).
    pub cands: Vec<Vec<u32>>,
    /// The time unit (every candidate duration is a multiple).
    pub unit: u64,
    /// Least makespan (units): the combinatorial bounds' best.
    pub least: u64,
    pub rows: Vec<Row>,
    pub chain: Chain,
}

/// What `Relaxation::next_within` finds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// A choice within the makespan (library tiling by op).
    Choice(Vec<u32>),
    /// No further choice is within it.
    Exhausted,
    /// The search ran out of nodes or time.
    Unknown,
}

impl Relaxation {
    /// The rows and the chain of `inst` over `cands` in units of `unit`;
    /// `None` when the deadline `until` passed while they were written.
    pub fn new(
        inst: &Instance,
        bounds: &Bounds,
        cands: Vec<Vec<u32>>,
        unit: u64,
        until: Instant,
    ) -> Option<Relaxation> {
        let lib = &inst.library;
        let n_ops = cands.len();
        let mut rows = Vec::new();
        // Load and area: K_c T >= work_c(x), M_m T >= area_m(x).
        let nc = inst.platform.cores.len();
        let mut work = vec![0u64; nc];
        let mut loads: Vec<Vec<(u32, u32, u128)>> = vec![Vec::new(); nc];
        let mut areas: Vec<Vec<(u32, u32, u128)>> = vec![Vec::new(); inst.platform.mems.len()];
        // Ops with a candidate without nodes: they link nothing in the
        // chain (problem.md §6).
        let mut empties = vec![false; n_ops];
        let mut area = vec![0u128; areas.len()];
        for (o, ts) in cands.iter().enumerate() {
            for (k, &t) in ts.iter().enumerate() {
                lib.core_work(t, &mut work);
                empties[o] |= lib.tilings[t as usize].n_nodes == 0;
                for (c, &w) in work.iter().enumerate() {
                    if w > 0 {
                        loads[c].push((o as u32, k as u32, u128::from(w / unit)));
                    }
                }
                // `unit` divides every candidate's durations, so the area
                // in units is the area divided by it.
                lib.mem_area(t, &mut area);
                for (m, &a) in area.iter().enumerate() {
                    if a > 0 {
                        areas[m].push((o as u32, k as u32, a / u128::from(unit)));
                    }
                }
            }
        }
        for (c, ct) in inst.platform.cores.iter().enumerate() {
            if ct.count > 0 {
                rows.push(Row::plain(
                    u128::from(ct.count),
                    std::mem::take(&mut loads[c]),
                ));
            }
        }
        for (m, mt) in inst.platform.mems.iter().enumerate() {
            if mt.size > 0 {
                let mut r = Row::plain(u128::from(mt.size), std::mem::take(&mut areas[m]));
                r.per_unit = true;
                rows.push(r);
            }
        }
        if lib.n_nodes() <= MAX_ROW_NODES {
            head_load_tail_rows(&mut rows, inst, bounds, &cands, unit, until)?;
        }
        let mut succ_start = vec![0u32];
        let mut succ = Vec::new();
        for a in 0..n_ops {
            if !empties[a] {
                let linked = inst.graph.succs(a as u32).iter();
                succ.extend(linked.filter(|&&b| !empties[b as usize]));
            }
            succ_start.push(succ.len() as u32);
        }
        let chain = Chain {
            head: bounds.op_head.iter().map(|&h| h / unit).collect(),
            tail: bounds.op_tail.iter().map(|&q| q / unit).collect(),
            may_be_empty: empties,
            cp: cands
                .iter()
                .map(|ts| {
                    ts.iter()
                        .map(|&t| lib.tilings[t as usize].critical_path / unit)
                        .collect()
                })
                .collect(),
            succ_start,
            succ,
            order: inst.graph.topo_order(),
        };
        Some(Relaxation {
            cands,
            unit,
            least: bounds.best.value / unit,
            rows,
            chain,
        })
    }

    /// The next choice (library tilings by op) after `after` in the
    /// enumeration's order whose relaxed makespan is at most `cap` (units)
    /// and that holds none of `nogoods` whole (sets of `(op, tiling)`;
    /// combinations with a tiling not a candidate never hold whole). A
    /// depth-first search over the ops with a choice, each partial choice
    /// bounded by its rows and chain with every open op at its least, in
    /// limited-discrepancy order around `prefer` (a choice, library tilings
    /// by op: the incumbent's): first `prefer` itself, then the choices
    /// that differ from it in one op, in two, and so on (a tiling of
    /// `prefer` that is not a candidate prefers nothing). It visits at most
    /// `max_nodes` partial choices and stops at `until` (`Next::Unknown`).
    /// The order depends on the relaxation and `prefer` alone, so passing
    /// the last choice found as `after` (with the same `prefer`) goes on
    /// where the last call stopped.
    pub fn next_within(
        &self,
        cap: u64,
        nogoods: &[&[(u32, u32)]],
        prefer: Option<&[u32]>,
        after: Option<&[u32]>,
        max_nodes: u64,
        until: Instant,
    ) -> Next {
        if cap < self.least {
            return Next::Exhausted;
        }
        let mut e = Enumeration::new(self, cap, nogoods, max_nodes, until);
        let index = |o: usize, t: u32| self.cands[o].iter().position(|&c| c == t);
        if let Some(p) = prefer {
            for o in 0..self.cands.len() {
                e.prefer[o] = p.get(o).and_then(|&t| index(o, t)).unwrap_or(0) as u32;
            }
        }
        // `after` as positions in each op's order, and its discrepancies.
        let after: Option<Vec<u32>> = after.map(|a| {
            e.ops
                .iter()
                .map(|&o| {
                    let k = index(o as usize, a[o as usize]).unwrap_or(0);
                    e.position(o as usize, k as u32)
                })
                .collect()
        });
        let first = after
            .as_ref()
            .map_or(0, |a| a.iter().filter(|&&p| p > 0).count());
        if !e.fixed_fits() {
            return Next::Exhausted;
        }
        for k in first..=e.ops.len() {
            let from = after.as_deref().filter(|_| k == first);
            match e.search(0, from, k) {
                Some(true) => {
                    return Next::Choice(
                        (0..self.cands.len())
                            .map(|o| self.cands[o][e.choice[o] as usize])
                            .collect(),
                    );
                }
                Some(false) => {}
                None => return Next::Unknown,
            }
        }
        Next::Exhausted
    }
}

impl Row {
    /// A row without an owed part.
    fn plain(scale: u128, terms: Vec<(u32, u32, u128)>) -> Row {
        Row {
            scale,
            terms,
            owed: 0,
            certain: false,
            per_unit: false,
        }
    }
}

/// A node of a candidate tiling on one core type: its op, the candidate's
/// index, its head and tail (op's plus intra-tiling) and duration, in units.
#[derive(Clone, Copy)]
struct CandNode {
    op: u32,
    k: u32,
    head: u64,
    tail: u64,
    dur: u64,
}

/// Head-body-tail per core type over the chosen tilings' nodes: a node `v` of
/// op `o` starts at or after `h(v) = head(o) + intra head` and ends by
/// `T - q(v)`, `q(v) = tail(o) + intra tail` (bounds::heads::intra_paths). For a
/// level `h`, the type-`c` nodes with `h(v) >= h` run inside `[h, T - q_min]`,
/// `q_min` the least `q(v)` among the candidates' such nodes:
/// `K_c T >= sum over (o, t) of x(o,t) * (their work in t) + K_c (h + q_min)`,
/// the last term owed when one of these nodes is in the schedule. And the
/// same from tails. Up to `LEVELS` levels each. `None` when the deadline
/// passed while they were written.
fn head_load_tail_rows(
    rows: &mut Vec<Row>,
    inst: &Instance,
    bounds: &Bounds,
    cands: &[Vec<u32>],
    unit: u64,
    until: Instant,
) -> Option<()> {
    let lib = &inst.library;
    let (intra_head, intra_after) = crate::bounds::heads::intra_paths(lib);
    // Per core type: every candidate node (in time units).
    let n_types = inst.platform.cores.len();
    let mut nodes: Vec<Vec<CandNode>> = vec![Vec::new(); n_types];
    for (o, ts) in cands.iter().enumerate() {
        for (k, &tl) in ts.iter().enumerate() {
            for v in lib.tilings[tl as usize].nodes() {
                let vi = v as usize;
                if lib.node_dur[vi] == 0 {
                    continue;
                }
                nodes[lib.node_core[vi] as usize].push(CandNode {
                    op: o as u32,
                    k: k as u32,
                    head: bounds.op_head[o].saturating_add(intra_head[vi]) / unit,
                    tail: bounds.op_tail[o].saturating_add(intra_after[vi]) / unit,
                    dur: lib.node_dur[vi] / unit,
                });
            }
        }
    }
    for (c, ct) in inst.platform.cores.iter().enumerate() {
        if ct.count == 0 || nodes[c].is_empty() {
            continue;
        }
        for from_tails in [false, true] {
            // (first, second): (h, q), or (q, h) from the tails.
            let key = |n: &CandNode| {
                if from_tails {
                    (n.tail, n.head)
                } else {
                    (n.head, n.tail)
                }
            };
            let mut levels: Vec<u64> = nodes[c].iter().map(|n| key(n).0).collect();
            levels.sort_unstable();
            levels.dedup();
            let step = levels.len().div_ceil(LEVELS).max(1);
            for &h in levels.iter().step_by(step) {
                if Instant::now() >= until {
                    return None;
                }
                let mut coef: std::collections::BTreeMap<(u32, u32), u128> = Default::default();
                let mut q_min = u64::MAX;
                for n in nodes[c].iter().filter(|n| key(n).0 >= h) {
                    *coef.entry((n.op, n.k)).or_default() += u128::from(n.dur);
                    q_min = q_min.min(key(n).1);
                }
                if q_min == u64::MAX || h.saturating_add(q_min) == 0 {
                    continue;
                }
                let certain = coef.keys().any(|&(o, _)| {
                    (0..cands[o as usize].len() as u32).all(|k| coef.contains_key(&(o, k)))
                });
                if !certain && coef.len() > MAX_OPTIONAL {
                    continue;
                }
                let scale = u128::from(ct.count);
                rows.push(Row {
                    scale,
                    terms: coef.into_iter().map(|((o, k), w)| (o, k, w)).collect(),
                    owed: scale * u128::from(h.saturating_add(q_min)),
                    certain,
                    per_unit: false,
                });
            }
        }
    }
    Some(())
}

/// The depth-first search of `Relaxation::next_within`.
struct Enumeration<'r> {
    r: &'r Relaxation,
    /// The ops with a choice, in the order they are decided: the widest
    /// spread of their rows' coefficients first (they prune most).
    ops: Vec<u32>,
    /// The candidate index chosen per op (0 for ops not yet decided).
    choice: Vec<u32>,
    /// Per row: `scale · cap`, the chosen part of the sum, how many chosen
    /// candidates have a term, and per depth the least sum of the ops from
    /// there on; per row, per op and candidate, its coefficient.
    room: Vec<u128>,
    sum: Vec<u128>,
    hits: Vec<u32>,
    rest: Vec<Vec<u128>>,
    coef: Vec<Vec<Vec<u128>>>,
    /// Per op: its critical path as chosen, or its least while open.
    cp: Vec<u64>,
    least_cp: Vec<u64>,
    start: Vec<u64>,
    cap: u64,
    /// Per op and candidate, the nogoods holding it; per nogood, its size
    /// and how many of its pairs are chosen.
    watch: Vec<Vec<Vec<u32>>>,
    size: Vec<u32>,
    held: Vec<u32>,
    /// Per op, the candidate index it prefers (searched first).
    prefer: Vec<u32>,
    budget: u64,
    until: Instant,
}

impl<'r> Enumeration<'r> {
    fn new(
        r: &'r Relaxation,
        cap: u64,
        nogoods: &[&[(u32, u32)]],
        budget: u64,
        until: Instant,
    ) -> Enumeration<'r> {
        let n = r.cands.len();
        let coef: Vec<Vec<Vec<u128>>> = r
            .rows
            .iter()
            .map(|row| {
                let mut c: Vec<Vec<u128>> = r.cands.iter().map(|ts| vec![0; ts.len()]).collect();
                for &(o, k, w) in &row.terms {
                    c[o as usize][k as usize] += w;
                }
                c
            })
            .collect();
        let spread = |o: usize| -> f64 {
            coef.iter()
                .zip(&r.rows)
                .map(|(c, row)| {
                    let (lo, hi) = (c[o].iter().min(), c[o].iter().max());
                    (hi.unwrap_or(&0) - lo.unwrap_or(&0)) as f64 / row.scale as f64
                })
                .sum::<f64>()
                + (r.chain.cp[o].iter().max().unwrap_or(&0)
                    - r.chain.cp[o].iter().min().unwrap_or(&0)) as f64
        };
        let mut ops: Vec<u32> = (0..n as u32)
            .filter(|&o| r.cands[o as usize].len() > 1)
            .collect();
        let spreads: Vec<f64> = (0..n).map(spread).collect();
        ops.sort_by(|&a, &b| {
            spreads[b as usize]
                .total_cmp(&spreads[a as usize])
                .then(a.cmp(&b))
        });
        let least_cp: Vec<u64> = r
            .chain
            .cp
            .iter()
            .map(|c| *c.iter().min().unwrap_or(&0))
            .collect();
        // The rows' least sums from each depth on (single-candidate ops are
        // fixed: counted as chosen from the start, `fixed_fits`).
        let rest = coef
            .iter()
            .map(|c| {
                let mut rest = vec![0u128; ops.len() + 1];
                for d in (0..ops.len()).rev() {
                    let o = ops[d] as usize;
                    rest[d] = rest[d + 1] + c[o].iter().min().copied().unwrap_or(0);
                }
                rest
            })
            .collect();
        let mut watch: Vec<Vec<Vec<u32>>> = r
            .cands
            .iter()
            .map(|ts| vec![Vec::new(); ts.len()])
            .collect();
        let mut size = Vec::new();
        'nogoods: for g in nogoods {
            let mut at = Vec::with_capacity(g.len());
            for &(o, t) in g.iter() {
                match r
                    .cands
                    .get(o as usize)
                    .and_then(|ts| ts.iter().position(|&c| c == t))
                {
                    Some(k) => at.push((o as usize, k)),
                    None => continue 'nogoods,
                }
            }
            let id = size.len() as u32;
            size.push(at.len() as u32);
            for (o, k) in at {
                watch[o][k].push(id);
            }
        }
        Enumeration {
            room: r
                .rows
                .iter()
                .map(|row| row.scale.saturating_mul(u128::from(cap)))
                .collect(),
            sum: vec![0; r.rows.len()],
            hits: vec![0; r.rows.len()],
            rest,
            coef,
            cp: least_cp.clone(),
            least_cp,
            start: Vec::new(),
            cap,
            held: vec![0; size.len()],
            watch,
            size,
            choice: vec![0; n],
            prefer: vec![0; n],
            ops,
            r,
            budget,
            until,
        }
    }

    /// Chooses candidate `k` of op `o`; false when a nogood then holds whole
    /// (the choice is made all the same: `undo` takes it back).
    fn choose(&mut self, o: usize, k: usize) -> bool {
        self.choice[o] = k as u32;
        self.cp[o] = self.r.chain.cp[o][k];
        for (i, c) in self.coef.iter().enumerate() {
            if c[o][k] > 0 {
                self.sum[i] += c[o][k];
                self.hits[i] += 1;
            }
        }
        let mut whole = false;
        for &g in &self.watch[o][k] {
            self.held[g as usize] += 1;
            whole |= self.held[g as usize] == self.size[g as usize];
        }
        !whole
    }

    fn undo(&mut self, o: usize, k: usize) {
        self.cp[o] = self.least_cp[o];
        for (i, c) in self.coef.iter().enumerate() {
            if c[o][k] > 0 {
                self.sum[i] -= c[o][k];
                self.hits[i] -= 1;
            }
        }
        for &g in &self.watch[o][k] {
            self.held[g as usize] -= 1;
        }
    }

    /// Whether the chosen part, with the ops from depth `d` on at their
    /// least, stays within the cap.
    fn fits(&mut self, d: usize) -> bool {
        for (i, row) in self.r.rows.iter().enumerate() {
            let owed = if row.certain || self.hits[i] > 0 {
                row.owed
            } else {
                0
            };
            if self.sum[i] + self.rest[i][d] + owed > self.room[i] {
                return false;
            }
        }
        self.r.chain.longest(&self.cp, &mut self.start) <= self.cap
    }

    /// The single-candidate ops chosen; whether they fit.
    fn fixed_fits(&mut self) -> bool {
        let mut ok = true;
        for o in 0..self.r.cands.len() {
            if self.r.cands[o].len() == 1 {
                ok &= self.choose(o, 0);
            }
        }
        ok && self.fits(0)
    }

    /// Candidate index of op `o` at position `p` of its order: the
    /// preferred one first, then the others by index.
    fn at(&self, o: usize, p: u32) -> u32 {
        let pref = self.prefer[o];
        match p {
            0 => pref,
            p if p <= pref => p - 1,
            p => p,
        }
    }

    /// The position of candidate `k` of op `o` in its order (`at`'s inverse).
    fn position(&self, o: usize, k: u32) -> u32 {
        let pref = self.prefer[o];
        if k == pref {
            0
        } else if k < pref {
            k + 1
        } else {
            k
        }
    }

    /// From depth `d` on, with exactly `left` ops still to take another
    /// than their preferred candidate: `Some(true)` with a choice found
    /// (left in `choice`), `Some(false)` when none is, `None` out of
    /// budget. While `after` (positions by depth) is given the search is on
    /// its path and skips it and what comes before it.
    fn search(&mut self, d: usize, after: Option<&[u32]>, left: usize) -> Option<bool> {
        if d == self.ops.len() {
            return Some(after.is_none() && left == 0);
        }
        if left > self.ops.len() - d {
            return Some(false);
        }
        if self.budget == 0 || (self.budget.is_multiple_of(256) && Instant::now() >= self.until) {
            return None;
        }
        self.budget -= 1;
        let o = self.ops[d] as usize;
        let from = after.map_or(0, |a| a[d]);
        for p in from..self.r.cands[o].len() as u32 {
            let off = usize::from(p > 0);
            if off > left {
                break;
            }
            let on_path = after.filter(|_| p == from);
            let k = self.at(o, p) as usize;
            if self.choose(o, k) && self.fits(d + 1) {
                match self.search(d + 1, on_path, left - off) {
                    Some(true) => return Some(true),
                    Some(false) => {}
                    None => return None,
                }
            }
            self.undo(o, k);
        }
        Some(false)
    }
}

impl Relaxation {
    /// The relaxed makespan (units) of a whole choice, given as candidate
    /// indices by op: every row and the chain evaluated whole (the oracle
    /// the enumeration's cuts on partial choices are tested against).
    pub fn value(&self, choice: &[u32]) -> u64 {
        let mut t = self.least;
        for row in &self.rows {
            let mut sum = 0u128;
            let mut any = row.certain;
            for &(o, k, c) in &row.terms {
                if choice[o as usize] == k {
                    sum += c;
                    any = true;
                }
            }
            if any {
                sum += row.owed;
            }
            t = t.max(u64::try_from(sum.div_ceil(row.scale)).unwrap_or(u64::MAX));
        }
        let cp: Vec<u64> = (0..self.cands.len())
            .map(|o| self.chain.cp[o][choice[o] as usize])
            .collect();
        t.max(self.chain.longest(&cp, &mut Vec::new()))
    }

    /// Every whole choice (candidate indices by op), in the odometer's
    /// order: the tests' oracle (there are as many as the product of the
    /// candidate counts).
    pub fn every_choice(&self) -> Vec<Vec<u32>> {
        let mut out = vec![vec![]];
        for ts in &self.cands {
            out = out
                .into_iter()
                .flat_map(|c| {
                    (0..ts.len() as u32).map(move |k| {
                        let mut c = c.clone();
                        c.push(k);
                        c
                    })
                })
                .collect();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(3600)
    }

    /// The relaxation of a small memory-tight instance (six ops of three
    /// tilings: 729 choices at most) with its bounds.
    fn small(seed: u64) -> (Instance, Bounds, Relaxation) {
        let cfg = crate::generate::memory_tight(seed, 6, (2, 5));
        let inst = crate::generate::generate(&cfg).unwrap().instance;
        let bounds = crate::bounds::combinatorial::lower_bounds(&inst);
        let cands = crate::prep::dominance::candidates_of_every_op(&inst);
        let unit = crate::prep::unit::duration_unit(&inst.library, cands.iter().flatten().copied());
        let r = Relaxation::new(&inst, &bounds, cands, unit, far()).unwrap();
        (inst, bounds, r)
    }

    /// The tilings of `choice` (candidate indices) as `(op, tiling)` pairs.
    fn pairs(r: &Relaxation, choice: &[u32]) -> Vec<(u32, u32)> {
        choice
            .iter()
            .enumerate()
            .map(|(o, &k)| (o as u32, r.cands[o][k as usize]))
            .collect()
    }

    /// At every makespan from the least to past the largest value, the
    /// enumeration (resumed from each choice it gives) gives each choice
    /// whose relaxed value is within it once, and no other; with nogoods,
    /// none that holds one whole. The enumeration's partial bounds are
    /// exact pruning only: it agrees with the values of whole choices.
    #[test]
    fn the_enumeration_gives_exactly_the_choices_within_the_makespan() {
        let mut rng = crate::rng::SplitMix64::new(11);
        let mut checked = 0;
        for seed in 1..=8 {
            let (_, _, r) = small(seed);
            let all = r.every_choice();
            let values: Vec<u64> = all.iter().map(|c| r.value(c)).collect();
            let (lo, hi) = (*values.iter().min().unwrap(), *values.iter().max().unwrap());
            // Random nogoods: parts of random choices.
            let mut nogoods: Vec<Vec<(u32, u32)>> = Vec::new();
            for _ in 0..4 {
                let c = &all[rng.below(all.len() as u64) as usize];
                let mut p = pairs(&r, c);
                p.retain(|_| rng.below(2) == 0);
                if !p.is_empty() {
                    nogoods.push(p);
                }
            }
            for with_nogoods in [false, true] {
                let goods: Vec<&[(u32, u32)]> = if with_nogoods {
                    nogoods.iter().map(Vec::as_slice).collect()
                } else {
                    vec![]
                };
                let held = |c: &[u32]| {
                    let p = pairs(&r, c);
                    goods.iter().any(|g| g.iter().all(|x| p.contains(x)))
                };
                for cap in lo.saturating_sub(1)..=hi + 1 {
                    let mut want: Vec<Vec<u32>> = all
                        .iter()
                        .zip(&values)
                        .filter(|&(c, &v)| v <= cap && !held(c))
                        .map(|(c, _)| pairs(&r, c).into_iter().map(|p| p.1).collect())
                        .collect();
                    // Around a random preferred choice (in library tilings),
                    // which comes first when it is one of them.
                    let prefer: Vec<u32> = {
                        let c = &all[rng.below(all.len() as u64) as usize];
                        pairs(&r, c).into_iter().map(|p| p.1).collect()
                    };
                    let mut got: Vec<Vec<u32>> = Vec::new();
                    let mut after: Option<Vec<u32>> = None;
                    loop {
                        let pref = Some(prefer.as_slice());
                        match r.next_within(cap, &goods, pref, after.as_deref(), u64::MAX, far()) {
                            Next::Choice(c) => {
                                got.push(c.clone());
                                after = Some(c);
                            }
                            Next::Exhausted => break,
                            Next::Unknown => panic!("no budget was set"),
                        }
                        assert!(got.len() <= all.len(), "seed {seed}: a choice twice");
                    }
                    if want.contains(&prefer) {
                        assert_eq!(got[0], prefer, "seed {seed}: the preferred choice first");
                    }
                    // Limited discrepancy: the ops that differ from the
                    // preferred choice never decrease along the order.
                    let differ =
                        |c: &Vec<u32>| c.iter().zip(&prefer).filter(|(a, b)| a != b).count();
                    assert!(got.windows(2).all(|w| differ(&w[0]) <= differ(&w[1])));
                    want.sort();
                    got.sort();
                    assert_eq!(
                        got, want,
                        "seed {seed}, makespan {cap}, nogoods {with_nogoods}"
                    );
                    checked += got.len();
                }
            }
        }
        assert!(
            checked > 1000,
            "too few choices within the makespans: {checked}"
        );
    }

    /// Out of nodes, the enumeration says so instead of guessing.
    #[test]
    fn the_enumeration_out_of_nodes_is_unknown() {
        let (_, _, r) = small(1);
        let cap = r.every_choice().iter().map(|c| r.value(c)).max().unwrap();
        let within = |nodes| r.next_within(cap, &[], None, None, nodes, far());
        assert!(matches!(within(u64::MAX), Next::Choice(_)));
        assert_eq!(within(1), Next::Unknown);
    }
}
