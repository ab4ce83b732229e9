//! What both formulations share: the horizon and time windows, the MIP start
//! from a schedule, and turning scaled start times into a `Schedule`.

use super::highs::Milp;
use super::net::{Agg, MemType, Net, Target};
use crate::schedule::Schedule;

/// A formulation of one tiling choice under one horizon.
pub(super) trait Formulated {
    fn milp(&self) -> &Milp;
    /// A full column vector from scaled start times of the real nodes (a legal
    /// schedule within the horizon).
    fn start(&self, starts: &[i64]) -> Vec<f64>;
    /// Scaled start times of the real nodes from a solution.
    fn decode(&self, x: &[f64]) -> Result<Vec<i64>, String>;
}

/// Time windows for horizon `h` (scaled): every schedule of the tiling choice
/// with makespan <= h starts point v within `[es[v], ls[v]]`.
pub(super) struct Ctx<'n, 'g, 'a> {
    pub net: &'n Net<'g, 'a>,
    pub h: i64,
    /// Lower bound on the makespan (scaled).
    pub lb: i64,
    pub es: Vec<i64>,
    pub ls: Vec<i64>,
}

/// Earliest and latest end of a holder's hold.
#[derive(Clone, Copy, Debug)]
pub(super) struct HoldWindow {
    pub er: i64,
    pub ru: i64,
}

/// Largest node count of a one-core type, or holder count of a memory type,
/// whose pairs window propagation examines.
const MAX_PAIR_NODES: usize = 400;

/// The node sets of one-core types (2 to `MAX_PAIR_NODES` nodes).
fn unary_sets(net: &Net) -> Vec<Vec<u32>> {
    let mut unary: Vec<Vec<u32>> = Vec::new();
    for (c, &k) in net.core_count.iter().enumerate() {
        let nodes = net.on_core(c);
        if k == 1 && nodes.len() > 1 && nodes.len() <= MAX_PAIR_NODES {
            unary.push(nodes);
        }
    }
    unary
}

/// Per memory type (up to `MAX_PAIR_NODES` holders), the holder pairs that
/// cannot hold at once (both run, demands above the size together).
fn clashing_pairs(net: &Net) -> Vec<(usize, Vec<(usize, usize)>)> {
    let mut mem_pairs: Vec<(usize, Vec<(usize, usize)>)> = Vec::new();
    for (mi, mt) in net.mems.iter().enumerate() {
        if mt.holders.len() > MAX_PAIR_NODES {
            continue;
        }
        let mut pairs = Vec::new();
        for i in 0..mt.holders.len() {
            for j in i + 1..mt.holders.len() {
                let (a, b) = (&mt.holders[i], &mt.holders[j]);
                // Zero-duration holders may hold nothing: no rule.
                if net.p[a.v as usize] > 0
                    && net.p[b.v as usize] > 0
                    && u128::from(a.demand) + u128::from(b.demand) > u128::from(mt.cap)
                {
                    pairs.push((i, j));
                }
            }
        }
        if !pairs.is_empty() {
            mem_pairs.push((mi, pairs));
        }
    }
    mem_pairs
}

impl<'n, 'g, 'a> Ctx<'n, 'g, 'a> {
    /// None when no schedule fits the horizon (an empty window).
    pub(super) fn new(net: &'n Net<'g, 'a>, h: i64, lb: i64) -> Option<Self> {
        let es = net.head.clone();
        let ls = net.latest(h);
        if lb > h || (0..net.n_points).any(|v| es[v] > ls[v]) {
            return None;
        }
        let mut ctx = Ctx { net, h, lb, es, ls };
        ctx.propagate().then_some(ctx)
    }

    /// Tightens the windows to a fixpoint: precedence both ways, and pairs
    /// that cannot overlap (two nodes of a one-core type; two holds of one
    /// memory type whose demands exceed its size together) and can be ordered
    /// one way only. False when some pair can be ordered neither way or a
    /// window empties: no schedule fits the horizon. Sound: every rule only
    /// removes start times that no schedule within the horizon uses.
    fn propagate(&mut self) -> bool {
        let net = self.net;
        let unary = unary_sets(net);
        let mem_pairs = clashing_pairs(net);
        for _round in 0..100 {
            let mut changed = self.precedence_round();
            if (0..net.n_points).any(|v| self.es[v] > self.ls[v]) {
                return false;
            }
            match self.unary_pairs_round(&unary) {
                None => return false,
                Some(c) => changed |= c,
            }
            for nodes in &unary {
                match self.edge_finding(nodes) {
                    None => return false,
                    Some(c) => changed |= c,
                }
            }
            match self.memory_pairs_round(&mem_pairs) {
                None => return false,
                Some(c) => changed |= c,
            }
            if (0..net.n_points).any(|v| self.es[v] > self.ls[v]) {
                return false;
            }
            if !changed {
                break;
            }
        }
        true
    }

    /// Heads forward and tails backward along the network's arcs; whether a
    /// window moved.
    fn precedence_round(&mut self) -> bool {
        let net = self.net;
        let mut changed = false;
        for &v in &net.topo {
            let v = v as usize;
            for &u in &net.pred[v] {
                let x = self.es[u as usize] + net.p[u as usize];
                if x > self.es[v] {
                    self.es[v] = x;
                    changed = true;
                }
            }
        }
        for &v in net.topo.iter().rev() {
            let v = v as usize;
            for &w in &net.succ[v] {
                let x = self.ls[w as usize] - net.p[v];
                if x < self.ls[v] {
                    self.ls[v] = x;
                    changed = true;
                }
            }
        }
        changed
    }

    /// Pairs on a one-core type that fit one order only get it; `None` when
    /// a pair fits neither; otherwise whether a window moved.
    fn unary_pairs_round(&mut self, unary: &[Vec<u32>]) -> Option<bool> {
        let net = self.net;
        let mut changed = false;
        for nodes in unary {
            for (a, &u) in nodes.iter().enumerate() {
                for &v in &nodes[a + 1..] {
                    if net.precedes(u, v) || net.precedes(v, u) {
                        continue;
                    }
                    let (ui, vi) = (u as usize, v as usize);
                    let uv = self.es[ui] + net.p[ui] <= self.ls[vi];
                    let vu = self.es[vi] + net.p[vi] <= self.ls[ui];
                    let (f, s) = match (uv, vu) {
                        (false, false) => return None,
                        (true, true) => continue,
                        (true, false) => (ui, vi),
                        (false, true) => (vi, ui),
                    };
                    if self.es[f] + net.p[f] > self.es[s] {
                        self.es[s] = self.es[f] + net.p[f];
                        changed = true;
                    }
                    if self.ls[s] - net.p[f] < self.ls[f] {
                        self.ls[f] = self.ls[s] - net.p[f];
                        changed = true;
                    }
                }
            }
        }
        Some(changed)
    }

    /// Holder pairs whose demands exceed a size together: their holds in one
    /// order only; `None` when neither fits; otherwise whether a window moved.
    fn memory_pairs_round(&mut self, mem_pairs: &[(usize, Vec<(usize, usize)>)]) -> Option<bool> {
        let net = self.net;
        let mut changed = false;
        for (mi, pairs) in mem_pairs {
            let mt = &net.mems[*mi];
            for &(i, j) in pairs {
                let (wi, wj) = (self.hold_window(mt, i), self.hold_window(mt, j));
                let (vi, vj) = (mt.holders[i].v as usize, mt.holders[j].v as usize);
                let ij = wi.er <= self.ls[vj];
                let ji = wj.er <= self.ls[vi];
                let (f, fw, s) = match (ij, ji) {
                    (false, false) => return None,
                    (true, true) => continue,
                    (true, false) => (i, wi, vj),
                    (false, true) => (j, wj, vi),
                };
                // The hold of f ends before s starts.
                if fw.er > self.es[s] {
                    self.es[s] = fw.er;
                    changed = true;
                }
                let hf = &mt.holders[f];
                let vf = hf.v as usize;
                if self.ls[s] - net.p[vf] < self.ls[vf] {
                    self.ls[vf] = self.ls[s] - net.p[vf];
                    changed = true;
                }
                for &t in &hf.targets {
                    for y in Net::target_nodes(mt, t) {
                        if self.ls[s] < self.ls[y as usize] {
                            self.ls[y as usize] = self.ls[s];
                            changed = true;
                        }
                    }
                }
            }
        }
        Some(changed)
    }

    /// Edge finding on one one-core type (Carlier and Pinson 1989), over task
    /// intervals: for `a` an earliest start and `b` a latest end of its nodes,
    /// `O` = the nodes with `es >= a` and `ls + p <= b`, `P` their work. If
    /// `a + P > b` no schedule fits. A node `i` outside `O` with
    /// `min(a, es_i) + P + p_i > b` must run after all of `O`
    /// (`es_i >= a + P`); with `a + P + p_i > max(b, ls_i + p_i)` before all of
    /// `O` (`ls_i <= b - P - p_i`). None: no schedule; else whether a window
    /// changed.
    fn edge_finding(&mut self, nodes: &[u32]) -> Option<bool> {
        if nodes.len() > 100 {
            return Some(false);
        }
        let p = &self.net.p;
        let mut changed = false;
        let mut starts: Vec<i64> = nodes.iter().map(|&v| self.es[v as usize]).collect();
        let mut ends: Vec<i64> = nodes
            .iter()
            .map(|&v| self.ls[v as usize] + p[v as usize])
            .collect();
        starts.sort_unstable();
        starts.dedup();
        ends.sort_unstable();
        ends.dedup();
        let mut inside = vec![false; nodes.len()];
        for &a in &starts {
            for &b in &ends {
                if b <= a {
                    continue;
                }
                let mut work = 0i64;
                let mut any = false;
                for (k, &v) in nodes.iter().enumerate() {
                    let v = v as usize;
                    inside[k] = self.es[v] >= a && self.ls[v] + p[v] <= b;
                    if inside[k] {
                        work += p[v];
                        any = true;
                    }
                }
                if !any {
                    continue;
                }
                if a + work > b {
                    return None;
                }
                for (k, &v) in nodes.iter().enumerate() {
                    if inside[k] {
                        continue;
                    }
                    let v = v as usize;
                    if a.min(self.es[v]) + work + p[v] > b && a + work > self.es[v] {
                        self.es[v] = a + work;
                        changed = true;
                    }
                    if a + work + p[v] > b.max(self.ls[v] + p[v]) && b - work - p[v] < self.ls[v] {
                        self.ls[v] = b - work - p[v];
                        changed = true;
                    }
                    if self.es[v] > self.ls[v] {
                        return None;
                    }
                }
            }
        }
        Some(changed)
    }

    /// Window of an aggregation's latest source start (`Agg`): from the
    /// latest of its sources' earliest starts (before it some source has
    /// not started) to the latest of their latest starts (by then every
    /// source has).
    pub(super) fn agg_window(&self, ag: &Agg) -> (i64, i64) {
        let latest = |w: &[i64]| ag.sources.iter().map(|&y| w[y as usize]).max().unwrap_or(0);
        (latest(&self.es), latest(&self.ls))
    }

    /// Window of the end of the hold of `mt.holders[i]`.
    pub(super) fn hold_window(&self, mt: &MemType, i: usize) -> HoldWindow {
        let hd = &mt.holders[i];
        let v = hd.v as usize;
        let p = self.net.p[v];
        let mut er = self.es[v] + p;
        let mut ru = self.ls[v] + p;
        for &t in &hd.targets {
            for y in Net::target_nodes(mt, t) {
                er = er.max(self.es[y as usize]);
                ru = ru.max(self.ls[y as usize]);
            }
        }
        HoldWindow { er, ru }
    }

    /// True when memory type `mt` may exceed its size at some instant: the
    /// holds' widest windows overlap by more than the capacity somewhere.
    pub(super) fn memory_may_bind(&self, mt: &MemType) -> bool {
        let mut ev: Vec<(i64, i128)> = Vec::with_capacity(2 * mt.holders.len());
        for (i, hd) in mt.holders.iter().enumerate() {
            let w = self.hold_window(mt, i);
            let s = self.es[hd.v as usize];
            if w.ru > s {
                ev.push((s, i128::from(hd.demand)));
                ev.push((w.ru, -i128::from(hd.demand)));
            }
        }
        // Releases before acquisitions at one instant (half-open intervals).
        ev.sort_unstable_by_key(|e| (e.0, e.1 > 0));
        let mut load: i128 = 0;
        for (_, d) in ev {
            load += d;
            if load > i128::from(mt.cap) {
                return true;
            }
        }
        false
    }

    /// True when core type `c` (nodes `nodes`) may run more than its cores at
    /// once within the windows.
    pub(super) fn cores_may_bind(&self, nodes: &[u32], k: u32) -> bool {
        if nodes.len() <= k as usize {
            return false;
        }
        let mut ev: Vec<(i64, i32)> = Vec::with_capacity(2 * nodes.len());
        for &v in nodes {
            let v = v as usize;
            ev.push((self.es[v], 1));
            ev.push((self.ls[v] + self.net.p[v], -1));
        }
        ev.sort_unstable();
        let mut load = 0i32;
        for (_, d) in ev {
            load += d;
            if load > k as i32 {
                return true;
            }
        }
        false
    }
}

/// Starts of all points (junctions at the latest end of their predecessors)
/// from the real nodes' starts.
pub(super) fn point_starts(net: &Net, starts: &[i64]) -> Vec<i64> {
    let mut s = vec![0i64; net.n_points];
    s[..net.n].copy_from_slice(&starts[..net.n]);
    for &v in &net.topo {
        let v = v as usize;
        if v >= net.n {
            s[v] = net.pred[v]
                .iter()
                .map(|&u| s[u as usize] + net.p[u as usize])
                .max()
                .unwrap_or(0);
        }
    }
    s
}

/// The actual end of a hold (problem.md §4.4) under point starts `s`.
pub(super) fn hold_end(net: &Net, mt: &MemType, i: usize, s: &[i64]) -> i64 {
    let hd = &mt.holders[i];
    let v = hd.v as usize;
    let mut r = s[v] + net.p[v];
    for &t in &hd.targets {
        match t {
            Target::Node(y) => r = r.max(s[y as usize]),
            Target::Agg(a) => {
                for &y in &mt.aggs[a as usize].sources {
                    r = r.max(s[y as usize]);
                }
            }
        }
    }
    r
}

/// Scaled starts to a schedule: unscale, then core ids by interval
/// partitioning (`schedule::assign_cores`; the model guarantees at most
/// CoreNum nodes of a type run at once).
pub(super) fn to_schedule(net: &Net, starts: &[i64]) -> Result<Schedule, String> {
    let g = net.g;
    let n = net.n;
    let mut start = Vec::with_capacity(n);
    for &s in &starts[..n] {
        let s = u64::try_from(s).map_err(|_| format!("negative start {s}"))?;
        start.push(
            s.checked_mul(net.scale)
                .ok_or_else(|| "start beyond u64".to_string())?,
        );
    }
    let core = crate::schedule::assign_cores(
        &start,
        |v| g.dur(v as u32),
        |v| g.core[v] as usize,
        &net.core_count,
    )
    .map_err(|e| e.to_string())?;
    Ok(Schedule {
        choice: g.choice.clone(),
        start,
        core,
    })
}

/// Earliest times over difference constraints `t[to] >= t[from] + w`, from
/// lower bounds `lo` (Bellman-Ford; fails on a positive cycle).
pub(super) fn longest_paths(lo: &[i64], arcs: &[(u32, u32, i64)]) -> Result<Vec<i64>, String> {
    let mut t = lo.to_vec();
    for _ in 0..=t.len() {
        let mut changed = false;
        for &(a, b, w) in arcs {
            let x = t[a as usize] + w;
            if x > t[b as usize] {
                t[b as usize] = x;
                changed = true;
            }
        }
        if !changed {
            return Ok(t);
        }
    }
    Err("the selected orderings contain a positive cycle".into())
}
