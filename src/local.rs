//! Tabu search on the core sequences of a schedule (models/list.md §"Local
//! search"): the tiling choice and each node's core are kept, the order of the
//! nodes on each core changes. A schedule is the earliest one of its sequences
//! (longest paths over the node graph's edges plus each core's order), and a
//! move swaps two adjacent nodes at either end of a *block* of the critical
//! path (consecutive critical nodes on one core): the N5 neighbourhood of
//! Nowicki and Smutnicki, the one that can shorten the critical path at all.
//! It is the incumbent step's second half: list scheduling builds a
//! schedule, this search repairs its orders where many nodes share a core
//! (job shops with many jobs per machine). Memory is not modelled by the
//! sequences: on instances with memory demands every new best goes through
//! the validator before it is kept, and every schedule returned has passed it.

use std::time::Instant;

use crate::graph::NodeGraph;
use crate::instance::Instance;
use crate::rng::SplitMix64;
use crate::schedule::{Schedule, check};

/// Edges the search materialises at most (sinks x sources of op edges).
const MAX_EDGES: usize = 4_000_000;
/// Largest node graph searched: a move costs a longest-path pass over all of
/// it, and a few hundred moves a second are needed to get anywhere (larger
/// graphs are the list engine's alone).
const MAX_NODES: usize = 200_000;
/// How long the search keeps going without a new best.
#[derive(Clone, Copy, Debug)]
pub struct Effort {
    /// Iterations without a new best before a restart from the best, perturbed.
    pub restart_after: usize,
    /// Restarts in a row without a new best before the search gives up.
    pub give_up_after: usize,
    /// The share of the time left it may take, and at most this long.
    pub time_share: f64,
    pub max_time: std::time::Duration,
}

impl Effort {
    /// The incumbent step's: about two thousand iterations past the last
    /// new best (job shops of 100 nodes: 20-50 ms), so that instances an
    /// exact engine settles in a fraction of a second do not wait for it.
    pub const QUICK: Effort = Effort {
        restart_after: 600,
        give_up_after: 3,
        time_share: 0.05,
        max_time: std::time::Duration::from_secs(3),
    };
    /// When the exact search found nothing to start from: tens of thousands
    /// of iterations (job shops of 100 operations need that many to reach
    /// their optima; results/policy.md).
    pub const LONG: Effort = Effort {
        restart_after: 3000,
        give_up_after: 20,
        time_share: 0.2,
        max_time: std::time::Duration::from_secs(10),
    };

    /// The time a search may take with `left` to the deadline.
    pub fn budget(&self, left: std::time::Duration) -> std::time::Duration {
        left.mul_f64(self.time_share).min(self.max_time)
    }
}

const NONE: u32 = u32::MAX;

/// Core sequences as successor and predecessor links.
type Orders = (Vec<u32>, Vec<u32>);

/// The node graph's edges and the core sequences of one tiling choice.
struct Seqs {
    dur: Vec<u64>,
    succ_start: Vec<u32>,
    succ: Vec<u32>,
    indeg: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    /// Scratch for evaluations.
    head: Vec<u64>,
    tail: Vec<u64>,
    order: Vec<u32>,
    /// In-degrees left while a topological order is built (reused: an
    /// evaluation per move, tens of thousands a second).
    left: Vec<u32>,
}

impl Seqs {
    fn new(g: &NodeGraph, s: &Schedule) -> Option<Seqs> {
        let n = g.n_nodes();
        let mut succ_start = vec![0u32; n + 1];
        let mut succ = Vec::new();
        let mut indeg = vec![0u32; n];
        for v in 0..n as u32 {
            g.for_each_succ(v, |w| {
                succ.push(w);
                indeg[w as usize] += 1;
            });
            if succ.len() > MAX_EDGES {
                return None;
            }
            succ_start[v as usize + 1] = succ.len() as u32;
        }
        let dur: Vec<u64> = (0..n as u32).map(|v| g.dur(v)).collect();
        // Each core's nodes of positive duration in start order.
        let mut on: Vec<(u32, u32, u64, u32)> = (0..n as u32)
            .filter(|&v| dur[v as usize] > 0)
            .map(|v| {
                (
                    u32::from(g.core[v as usize]),
                    s.core[v as usize],
                    s.start[v as usize],
                    v,
                )
            })
            .collect();
        on.sort_unstable();
        let (mut next, mut prev) = (vec![NONE; n], vec![NONE; n]);
        for w in on.windows(2) {
            if (w[0].0, w[0].1) == (w[1].0, w[1].1) {
                next[w[0].3 as usize] = w[1].3;
                prev[w[1].3 as usize] = w[0].3;
            }
        }
        Some(Seqs {
            dur,
            succ_start,
            succ,
            indeg,
            next,
            prev,
            head: vec![0; n],
            tail: vec![0; n],
            order: Vec::with_capacity(n),
            left: vec![0; n],
        })
    }

    fn succs(&self, v: u32) -> &[u32] {
        &self.succ[self.succ_start[v as usize] as usize..self.succ_start[v as usize + 1] as usize]
    }

    /// Heads (earliest starts) in a topological order of edges plus
    /// sequences; `None` on a cycle. Tails too when `tails`. Kahn's order
    /// is built here with the heads rather than by `dag::kahn`: a node's
    /// core successor is not in the successor lists, and this runs once per
    /// move evaluated.
    fn evaluate(&mut self, tails: bool) -> Option<u64> {
        let n = self.dur.len();
        let mut indeg = std::mem::take(&mut self.left);
        indeg.copy_from_slice(&self.indeg);
        for (d, &p) in indeg.iter_mut().zip(&self.prev) {
            if p != NONE {
                *d += 1;
            }
        }
        self.order.clear();
        self.order
            .extend((0..n as u32).filter(|&v| indeg[v as usize] == 0));
        self.head.fill(0);
        let mut i = 0;
        let mut mk = 0u64;
        while i < self.order.len() {
            let v = self.order[i] as usize;
            i += 1;
            let e = self.head[v].saturating_add(self.dur[v]);
            mk = mk.max(e);
            let nx = self.next[v];
            for k in self.succ_start[v]..self.succ_start[v + 1] {
                let w = self.succ[k as usize] as usize;
                self.head[w] = self.head[w].max(e);
                indeg[w] -= 1;
                if indeg[w] == 0 {
                    self.order.push(w as u32);
                }
            }
            if nx != NONE {
                let w = nx as usize;
                self.head[w] = self.head[w].max(e);
                indeg[w] -= 1;
                if indeg[w] == 0 {
                    self.order.push(nx);
                }
            }
        }
        self.left = indeg;
        if self.order.len() < n {
            return None;
        }
        if tails {
            for k in (0..n).rev() {
                let v = self.order[k] as usize;
                let mut q = 0u64;
                for &w in self.succs(v as u32) {
                    q = q.max(self.tail[w as usize].saturating_add(self.dur[w as usize]));
                }
                if self.next[v] != NONE {
                    let w = self.next[v] as usize;
                    q = q.max(self.tail[w].saturating_add(self.dur[w]));
                }
                self.tail[v] = q;
            }
        }
        Some(mk)
    }

    /// Rewrites a contiguous stretch `old` of one core's sequence (in its
    /// current order) as `new` (the same nodes), keeping its neighbours.
    fn rearrange(&mut self, old: &[u32], new: &[u32]) {
        let (a, b) = (
            self.prev[old[0] as usize],
            self.next[old[old.len() - 1] as usize],
        );
        let mut p = a;
        for &v in new {
            self.prev[v as usize] = p;
            if p != NONE {
                self.next[p as usize] = v;
            }
            p = v;
        }
        self.next[p as usize] = b;
        if b != NONE {
            self.prev[b as usize] = p;
        }
    }

    fn apply(&mut self, m: &Move) {
        let new = m.new_order();
        self.rearrange(&m.seg, &new);
    }

    fn undo(&mut self, m: &Move) {
        let new = m.new_order();
        self.rearrange(&new, &m.seg);
    }

    /// The moves on the critical path through the heads and tails just
    /// evaluated (N7, Zhang et al. 2007, which contains N5): the path is cut
    /// into blocks of consecutive nodes on one core; each block's first and
    /// last nodes move into the block and to its other end, and each inner
    /// node moves to the block's start and to its end. Moves inside a block
    /// that leave its ends in place cannot shorten the path and are left
    /// out; the first block's start and the last block's end are kept where
    /// a move could only lengthen the path (N5's rule for swaps).
    fn moves(&self, mk: u64) -> Vec<Move> {
        let n = self.dur.len();
        let crit = |v: usize| self.head[v] + self.dur[v] + self.tail[v] == mk;
        // Walk one critical path from a critical first node, preferring the
        // core successor (blocks are what the moves need).
        let Some(mut v) = (0..n).find(|&v| self.head[v] == 0 && crit(v) && self.dur[v] > 0) else {
            return Vec::new();
        };
        let mut blocks: Vec<Vec<u32>> = vec![vec![v as u32]];
        loop {
            let e = self.head[v] + self.dur[v];
            let nx = self.next[v];
            let on_core = nx != NONE && self.head[nx as usize] == e && crit(nx as usize);
            let w = if on_core {
                Some(nx as usize)
            } else {
                self.succs(v as u32)
                    .iter()
                    .map(|&w| w as usize)
                    .find(|&w| self.head[w] == e && crit(w))
            };
            let Some(w) = w else { break };
            if on_core {
                blocks.last_mut().expect("one block").push(w as u32);
            } else {
                blocks.push(vec![w as u32]);
            }
            v = w;
        }
        let last = blocks.len() - 1;
        let mut out = Vec::new();
        for (i, b) in blocks.iter().enumerate() {
            let k = b.len() - 1;
            if k == 0 {
                continue;
            }
            let (first_fixed, last_fixed) = (i == 0, i == last);
            if last_fixed && first_fixed && k == 1 {
                continue; // one block of two: no move shortens the path
            }
            // The first node into the block (after b[j]); the last node
            // before b[j]. j = 1 and j = k - 1 are N5's swaps.
            if !first_fixed {
                for j in 1..=k {
                    // To the end of the last block (but the swap of its
                    // first two) changes the path's end: left out.
                    if j == k && last_fixed && k > 1 {
                        break;
                    }
                    out.push(Move {
                        seg: b[..=j].to_vec(),
                        forward: true,
                    });
                }
            }
            if !last_fixed {
                for j in (0..k).rev() {
                    // j = 0 with k = 1 is the swap the loop above has
                    // unless the block is the first; with k > 1 it moves
                    // the last node to the block's start (not the first
                    // block's: the path's start stays).
                    if j == 0 && (first_fixed != (k == 1)) {
                        break;
                    }
                    out.push(Move {
                        seg: b[j..].to_vec(),
                        forward: false,
                    });
                }
            }
            // Inner nodes to the block's start and to its end.
            for j in 1..k {
                if !first_fixed {
                    out.push(Move {
                        seg: b[..=j].to_vec(),
                        forward: false,
                    });
                }
                if !last_fixed {
                    out.push(Move {
                        seg: b[j..].to_vec(),
                        forward: true,
                    });
                }
            }
        }
        out
    }
}

/// One node moved across a contiguous stretch `seg` of its core's sequence
/// (`seg` in its current order): the first node to the stretch's end
/// (`forward`), or the last node to its start.
#[derive(Clone, Debug)]
struct Move {
    seg: Vec<u32>,
    forward: bool,
}

impl Move {
    fn moved(&self) -> u32 {
        if self.forward {
            self.seg[0]
        } else {
            self.seg[self.seg.len() - 1]
        }
    }

    /// The nodes the moved one jumps over.
    fn jumped(&self) -> &[u32] {
        if self.forward {
            &self.seg[1..]
        } else {
            &self.seg[..self.seg.len() - 1]
        }
    }

    fn new_order(&self) -> Vec<u32> {
        let m = self.moved();
        let rest = self.jumped();
        if self.forward {
            rest.iter().copied().chain([m]).collect()
        } else {
            [m].into_iter().chain(rest.iter().copied()).collect()
        }
    }

    /// The orders "x before y" the move creates.
    fn created(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let m = self.moved();
        let fw = self.forward;
        self.jumped()
            .iter()
            .map(move |&j| if fw { (j, m) } else { (m, j) })
    }
}

/// A better schedule than `s` (same tilings and cores), found by tabu search
/// until `until`, a makespan of `target` (a lower bound) or the end of
/// `effort`, that passed the validator; `None` when none was found.
pub fn improve(
    inst: &Instance,
    s: &Schedule,
    target: u64,
    until: Instant,
    seed: u64,
    effort: Effort,
) -> Option<Schedule> {
    if s.start.len() > MAX_NODES {
        return None;
    }
    let g = NodeGraph::new(inst, s.choice.clone()).ok()?;
    let mut q = Seqs::new(&g, s)?;
    let uses_memory = (0..g.n_nodes() as u32).any(|v| g.mems(v).iter().any(|d| d.amount > 0));
    let start_mk = u64::try_from(s.makespan(&g)).ok()?;
    let mut cur = q.evaluate(true)?;
    // The best sequences found (core successors, predecessors) and their makespan.
    let mut best_mk = start_mk;
    let mut best: Option<Orders> = None;
    let mut tabu: std::collections::HashMap<(u32, u32), usize> = std::collections::HashMap::new();
    let mut rng = SplitMix64::new(seed);
    let (mut it, mut since_best, mut stale) = (0usize, 0usize, 0usize);
    while Instant::now() < until && stale < effort.give_up_after {
        it += 1;
        since_best += 1;
        let moves = q.moves(cur);
        let mut pick: Option<(u64, usize)> = None;
        for (k, mv) in moves.iter().enumerate() {
            if Instant::now() >= until {
                break;
            }
            q.apply(mv);
            let val = q.evaluate(false);
            q.undo(mv);
            let Some(val) = val else { continue };
            // Restoring an order a recent move reversed is tabu unless it
            // beats the best.
            let is_tabu = mv
                .created()
                .any(|p| tabu.get(&p).is_some_and(|&till| till > it));
            if (is_tabu && val >= best_mk) || pick.is_some_and(|(b, _)| b <= val) {
                continue;
            }
            pick = Some((val, k));
        }
        let Some(k) = pick.map(|(_, k)| k).or((!moves.is_empty()).then_some(0)) else {
            break; // no critical block: the critical path is a chain of edges
        };
        let mv = &moves[k];
        q.apply(mv);
        let tenure = it + 8 + rng.below(8) as usize;
        for (x, y) in mv.created() {
            // "y before x" was reversed: restoring it is tabu for a while.
            tabu.insert((y, x), tenure);
        }
        match q.evaluate(true) {
            Some(mk) => cur = mk,
            None => {
                q.undo(mv);
                cur = q.evaluate(true)?;
                continue;
            }
        }
        if cur < best_mk && (!uses_memory || legal(&g, &q, s)) {
            best_mk = cur;
            best = Some((q.next.clone(), q.prev.clone()));
            log::debug!("local: {best_mk} at iteration {it}");
            since_best = 0;
            stale = 0;
            if best_mk <= target {
                break;
            }
        }
        if since_best > effort.restart_after {
            // Restart from the best, a few random critical swaps away.
            if let Some((nx, pv)) = &best {
                q.next.clone_from(nx);
                q.prev.clone_from(pv);
            }
            cur = q.evaluate(true)?;
            for _ in 0..1 + rng.below(3) {
                let ms = q.moves(cur);
                if ms.is_empty() {
                    break;
                }
                let mv = &ms[rng.below(ms.len() as u64) as usize];
                q.apply(mv);
                cur = match q.evaluate(true) {
                    Some(mk) => mk,
                    None => {
                        q.undo(mv);
                        q.evaluate(true)?
                    }
                };
            }
            tabu.clear();
            since_best = 0;
            stale += 1;
        }
    }
    log::debug!("local: {it} iterations, {start_mk} -> {best_mk}");
    let (nx, pv) = best?;
    q.next = nx;
    q.prev = pv;
    q.evaluate(false)?;
    let out = schedule_of(&q, s);
    check(&g, &out, 1).is_empty().then_some(out)
}

fn schedule_of(q: &Seqs, s: &Schedule) -> Schedule {
    Schedule {
        choice: s.choice.clone(),
        start: q.head.clone(),
        core: s.core.clone(),
    }
}

/// Whether the earliest schedule of the current sequences passes the validator.
fn legal(g: &NodeGraph, q: &Seqs, s: &Schedule) -> bool {
    check(g, &schedule_of(q, s), 1).is_empty()
}
