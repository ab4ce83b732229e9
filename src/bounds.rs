//! Lower bounds on the optimal makespan, valid for every tiling choice.
//!
//! The proofs are in `models/bounds.md`. Every quantity here is a minimum over an
//! op's usable tilings, so no choice of tilings can beat it; sums saturate at
//! u64::MAX (saturating a lower bound down keeps it a lower bound only if we never
//! saturate upwards, which a saturating add never does). No loop here advances
//! a clock in u64: a saturated clock would stop advancing (`jackson_preemptive`
//! runs in u128).

use crate::instance::Instance;

/// One named lower bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    pub value: u64,
    /// Which argument, e.g. "critical path", "core type 2 load".
    pub source: String,
}

/// All bounds computed for an instance, and the best one.
#[derive(Clone, Debug)]
pub struct Bounds {
    pub all: Vec<Bound>,
    pub best: Bound,
    /// Per op: longest chain of ops that must run before it (sum of minimal
    /// critical paths), and after it.
    pub op_head: Vec<u64>,
    pub op_tail: Vec<u64>,
}

/// Per op, over its usable tilings: minimal critical path, minimal work per core
/// type, minimal memory area per memory type, and whether it can be empty.
struct OpMins {
    cp: Vec<u64>,
    work: Vec<Vec<u64>>,
    area: Vec<Vec<u128>>,
    can_be_empty: Vec<bool>,
}

fn op_minimums(inst: &Instance) -> OpMins {
    let lib = &inst.library;
    let n_ops = inst.graph.n_ops();
    let n_cores = inst.platform.cores.len();
    let n_mems = inst.platform.mems.len();
    let mut cp = vec![0u64; n_ops];
    let mut work = vec![vec![0u64; n_ops]; n_cores];
    let mut area = vec![vec![0u128; n_ops]; n_mems];
    let mut can_be_empty = vec![false; n_ops];
    let mut w = vec![0u64; n_cores];
    let mut a = vec![0u128; n_mems];
    for op in 0..n_ops as u32 {
        let mut first = true;
        for t in inst.usable_tilings(op) {
            let tl = &lib.tilings[t as usize];
            w.iter_mut().for_each(|x| *x = 0);
            a.iter_mut().for_each(|x| *x = 0);
            for v in tl.nodes() {
                let d = lib.node_dur[v as usize];
                let c = lib.node_core[v as usize] as usize;
                w[c] = w[c].saturating_add(d);
                for m in lib.mems(v) {
                    a[m.mem as usize] += u128::from(m.amount) * u128::from(d);
                }
            }
            let o = op as usize;
            if first {
                cp[o] = tl.critical_path;
                for c in 0..n_cores {
                    work[c][o] = w[c];
                }
                for m in 0..n_mems {
                    area[m][o] = a[m];
                }
                first = false;
            } else {
                cp[o] = cp[o].min(tl.critical_path);
                for c in 0..n_cores {
                    work[c][o] = work[c][o].min(w[c]);
                }
                for m in 0..n_mems {
                    area[m][o] = area[m][o].min(a[m]);
                }
            }
            if tl.n_nodes == 0 {
                can_be_empty[o] = true;
            }
        }
    }
    OpMins {
        cp,
        work,
        area,
        can_be_empty,
    }
}

/// Longest op chains before and after each op. An op that may be empty does not
/// connect its neighbours (problem.md §6), so chains stop there.
fn heads_tails(inst: &Instance, mins: &OpMins) -> (Vec<u64>, Vec<u64>) {
    let g = &inst.graph;
    let n = g.n_ops();
    let mut indeg: Vec<u32> = (0..n as u32).map(|o| g.preds(o).len() as u32).collect();
    let mut order: Vec<u32> = (0..n as u32).filter(|&o| indeg[o as usize] == 0).collect();
    let mut h = 0;
    while h < order.len() {
        let o = order[h];
        h += 1;
        for &b in g.succs(o) {
            indeg[b as usize] -= 1;
            if indeg[b as usize] == 0 {
                order.push(b);
            }
        }
    }
    let mut head = vec![0u64; n];
    for &o in &order {
        if mins.can_be_empty[o as usize] {
            continue;
        }
        let reach = head[o as usize].saturating_add(mins.cp[o as usize]);
        for &b in g.succs(o) {
            head[b as usize] = head[b as usize].max(reach);
        }
    }
    let mut tail = vec![0u64; n];
    for &o in order.iter().rev() {
        if mins.can_be_empty[o as usize] {
            continue;
        }
        let reach = tail[o as usize].saturating_add(mins.cp[o as usize]);
        for &a in g.preds(o) {
            tail[a as usize] = tail[a as usize].max(reach);
        }
    }
    (head, tail)
}

fn div_ceil_u128(a: u128, b: u128) -> u64 {
    u64::try_from(a.div_ceil(b)).unwrap_or(u64::MAX)
}

/// Computes every bound. Instances with an op that has no usable tiling get 0
/// (they are infeasible; that verdict is reported separately).
pub fn lower_bounds(inst: &Instance) -> Bounds {
    let n_ops = inst.graph.n_ops();
    if !inst.ops_without_usable_tiling().is_empty() {
        let b = Bound {
            value: 0,
            source: "none (an op has no usable tiling)".into(),
        };
        return Bounds {
            all: vec![b.clone()],
            best: b,
            op_head: vec![0; n_ops],
            op_tail: vec![0; n_ops],
        };
    }
    let mins = op_minimums(inst);
    let (head, tail) = heads_tails(inst, &mins);
    let mut all = Vec::new();

    // An op that may be empty links nothing, so only the others close a chain.
    let cp = (0..n_ops)
        .filter(|&o| !mins.can_be_empty[o])
        .map(|o| head[o].saturating_add(mins.cp[o]).saturating_add(tail[o]))
        .max()
        .unwrap_or(0);
    all.push(Bound {
        value: cp,
        source: "critical path".into(),
    });

    let items = core_items(inst, &head, &tail);
    for (c, ct) in inst.platform.cores.iter().enumerate() {
        let total: u128 = mins.work[c].iter().map(|&w| u128::from(w)).sum();
        if total == 0 || ct.count == 0 {
            continue;
        }
        let m = u128::from(ct.count);
        all.push(Bound {
            value: div_ceil_u128(total, m),
            source: format!("core type {} load", ct.id),
        });
        all.push(head_body_tail(
            &items[c],
            m,
            &format!("core type {}", ct.id),
        ));
        if ct.count == 1 {
            all.push(Bound {
                value: jackson_preemptive(&items[c]),
                source: format!("core type {} one-machine preemptive (Jackson)", ct.id),
            });
        }
    }

    for (m, mt) in inst.platform.mems.iter().enumerate() {
        let total: u128 = mins.area[m].iter().sum();
        if total == 0 || mt.size == 0 {
            continue;
        }
        all.push(Bound {
            value: div_ceil_u128(total, u128::from(mt.size)),
            source: format!("memory type {} area", mt.id),
        });
    }

    let best = all
        .iter()
        .max_by_key(|b| b.value)
        .cloned()
        .unwrap_or(Bound {
            value: 0,
            source: "empty instance".into(),
        });
    Bounds {
        all,
        best,
        op_head: head,
        op_tail: tail,
    }
}

/// Work on one core type that cannot start before `head` nor end after
/// `T - tail`, valid for every tiling choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item {
    pub head: u64,
    pub work: u64,
    pub tail: u64,
}

/// Per library node: longest path to it inside its subgraph, and from its end to
/// the subgraph's end.
fn intra_paths(inst: &Instance) -> (Vec<u64>, Vec<u64>) {
    let lib = &inst.library;
    let n = lib.n_nodes();
    let mut head = vec![0u64; n];
    let mut after = vec![0u64; n];
    let mut indeg: Vec<u32> = Vec::new();
    let mut order: Vec<u32> = Vec::new();
    for (ti, tl) in lib.tilings.iter().enumerate() {
        let base = tl.first_node;
        lib.topo_order(ti as u32, &mut order, &mut indeg);
        for &l in &order {
            let v = (base + l) as usize;
            let end = head[v].saturating_add(lib.node_dur[v]);
            for &s in lib.succs(base + l) {
                let w = (base + s) as usize;
                head[w] = head[w].max(end);
            }
        }
        for &l in order.iter().rev() {
            let v = (base + l) as usize;
            let mut a = 0u64;
            for &s in lib.succs(base + l) {
                let w = (base + s) as usize;
                a = a.max(after[w].saturating_add(lib.node_dur[w]));
            }
            after[v] = a;
        }
    }
    (head, after)
}

/// Items per core type. An op with one usable tiling gives one item per node
/// (exact heads and tails); an op with several gives one item per core type with
/// the least work and the smallest head and tail over its tilings.
fn core_items(inst: &Instance, op_head: &[u64], op_tail: &[u64]) -> Vec<Vec<Item>> {
    let lib = &inst.library;
    let n_cores = inst.platform.cores.len();
    let (head, after) = intra_paths(inst);
    let mut items: Vec<Vec<Item>> = vec![Vec::new(); n_cores];
    let mut agg: Vec<Option<Item>> = vec![None; n_cores];
    let mut per_tiling: Vec<Option<Item>> = vec![None; n_cores];
    for op in 0..inst.graph.n_ops() as u32 {
        let (oh, ot) = (op_head[op as usize], op_tail[op as usize]);
        let tilings: Vec<u32> = inst.usable_tilings(op).collect();
        if tilings.len() == 1 {
            for v in lib.tilings[tilings[0] as usize].nodes() {
                let vi = v as usize;
                let c = lib.node_core[vi] as usize;
                if lib.node_dur[vi] > 0 {
                    items[c].push(Item {
                        head: oh.saturating_add(head[vi]),
                        work: lib.node_dur[vi],
                        tail: ot.saturating_add(after[vi]),
                    });
                }
            }
            continue;
        }
        agg.iter_mut().for_each(|a| *a = None);
        for (k, &t) in tilings.iter().enumerate() {
            per_tiling.iter_mut().for_each(|a| *a = None);
            for v in lib.tilings[t as usize].nodes() {
                let vi = v as usize;
                let c = lib.node_core[vi] as usize;
                let it = per_tiling[c].get_or_insert(Item {
                    head: u64::MAX,
                    work: 0,
                    tail: u64::MAX,
                });
                it.head = it.head.min(head[vi]);
                it.tail = it.tail.min(after[vi]);
                it.work = it.work.saturating_add(lib.node_dur[vi]);
            }
            for c in 0..n_cores {
                // A tiling without work on c makes the op's least work on c zero.
                let cur = per_tiling[c].unwrap_or(Item {
                    head: 0,
                    work: 0,
                    tail: 0,
                });
                agg[c] = Some(match (k, agg[c]) {
                    (0, _) | (_, None) => cur,
                    (_, Some(a)) => Item {
                        head: a.head.min(cur.head),
                        work: a.work.min(cur.work),
                        tail: a.tail.min(cur.tail),
                    },
                });
            }
        }
        for c in 0..n_cores {
            if let Some(a) = agg[c]
                && a.work > 0
            {
                items[c].push(Item {
                    head: oh.saturating_add(a.head),
                    work: a.work,
                    tail: ot.saturating_add(a.tail),
                });
            }
        }
    }
    items
}

/// `max over h of  h + ceil(W(h) / m) + min tail(h)`, where `W(h)` is the work of
/// items with head >= h and `min tail(h)` their smallest tail; and symmetrically
/// with heads and tails swapped.
fn head_body_tail(items: &[Item], m: u128, what: &str) -> Bound {
    let mut best = 0u64;
    let mut sorted: Vec<(u64, u64, u64)> = Vec::with_capacity(items.len());
    for flip in [false, true] {
        sorted.clear();
        sorted.extend(items.iter().map(|it| {
            if flip {
                (it.tail, it.head, it.work)
            } else {
                (it.head, it.tail, it.work)
            }
        }));
        sorted.sort_unstable_by_key(|x| std::cmp::Reverse(x.0));
        let mut w: u128 = 0;
        let mut min_second = u64::MAX;
        for (i, &(h, q, wk)) in sorted.iter().enumerate() {
            w += u128::from(wk);
            min_second = min_second.min(q);
            let last_of_level = i + 1 == sorted.len() || sorted[i + 1].0 != h;
            if last_of_level {
                let v = h
                    .saturating_add(div_ceil_u128(w, m))
                    .saturating_add(min_second);
                best = best.max(v);
            }
        }
    }
    Bound {
        value: best,
        source: format!("{what} head-body-tail"),
    }
}

/// Jackson's preemptive schedule for one machine with heads and tails: the
/// optimal value of the preemptive relaxation, hence a lower bound. At each
/// moment the released item with the largest tail runs.
///
/// Time is u128: the work of one core type may reach 2^64 and beyond (two
/// nodes of 2^63). In u64 the clock saturated at u64::MAX, every step then ran
/// for 0 and the item was pushed back forever. Every step here runs for at
/// least 1 (the next release lies strictly after `t`), so the loop ends after
/// at most two steps per item; the result saturates down to u64::MAX, which
/// keeps it a lower bound.
pub fn jackson_preemptive(items: &[Item]) -> u64 {
    use std::collections::BinaryHeap;
    let mut by_head: Vec<&Item> = items.iter().collect();
    by_head.sort_unstable_by_key(|it| it.head);
    let mut ready: BinaryHeap<(u64, u128)> = BinaryHeap::new(); // (tail, remaining work)
    let mut t = 0u128;
    let mut i = 0;
    let mut best = 0u128;
    while i < by_head.len() || !ready.is_empty() {
        if ready.is_empty() && t < u128::from(by_head[i].head) {
            t = u128::from(by_head[i].head);
        }
        while i < by_head.len() && u128::from(by_head[i].head) <= t {
            ready.push((by_head[i].tail, u128::from(by_head[i].work)));
            i += 1;
        }
        let (q, rem) = ready.pop().expect("an item is ready");
        // Strictly after t when it exists: every item released by t is ready.
        let run = match by_head.get(i) {
            Some(next) => rem.min(u128::from(next.head) - t),
            None => rem,
        };
        t += run;
        if run < rem {
            ready.push((q, rem - run));
        } else {
            best = best.max(t + u128::from(q));
        }
    }
    u64::try_from(best).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The preemptive one-machine optimum with heads and tails equals the
    /// largest `min head + total work + min tail` over subsets of the items
    /// (Carlier's bound, tight for the preemptive relaxation): checked against
    /// every subset on small random sets.
    #[test]
    fn jackson_equals_the_best_subset_bound() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for _ in 0..300 {
            let n = 1 + rnd(7) as usize;
            let items: Vec<Item> = (0..n)
                .map(|_| Item {
                    head: rnd(20),
                    work: 1 + rnd(9),
                    tail: rnd(20),
                })
                .collect();
            let mut best = 0u64;
            for mask in 1u32..(1 << n) {
                let s: Vec<&Item> = (0..n)
                    .filter(|i| mask >> i & 1 == 1)
                    .map(|i| &items[i])
                    .collect();
                let head = s.iter().map(|it| it.head).min().unwrap();
                let tail = s.iter().map(|it| it.tail).min().unwrap();
                let work: u64 = s.iter().map(|it| it.work).sum();
                best = best.max(head + work + tail);
            }
            assert_eq!(jackson_preemptive(&items), best, "{items:?}");
        }
    }

    /// Work beyond u64 on one machine: the clock does not saturate and stall
    /// (the hang the fuzzing found); the bound saturates down to u64::MAX.
    #[test]
    fn work_beyond_u64_ends_and_saturates() {
        let half = 1u64 << 63;
        let items = [
            Item {
                head: 0,
                work: half,
                tail: 0,
            },
            Item {
                head: 0,
                work: half,
                tail: 0,
            },
        ];
        assert_eq!(jackson_preemptive(&items), u64::MAX);
    }
}
