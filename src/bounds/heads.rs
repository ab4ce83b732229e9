//! Heads and tails (models/bounds.md, "Op heads and tails", §3-4): how
//! early work can start and how long after it the schedule must still run,
//! and the one-resource bounds built on them. The combinatorial bounds and the MILP's per-combination
//! bounds both use these.

use crate::instance::{Library, OpGraph};

/// Work on one core type that cannot start before `head` nor end after
/// `T - tail`, valid for every tiling choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item {
    pub head: u64,
    pub work: u64,
    pub tail: u64,
}

/// Longest op chains before and after each op, in a topological `order` of
/// `graph`: an op adds `cp[op]` (its least critical path) to the chains
/// through it when `links(op)`; an op that may be empty does not connect its
/// neighbours (problem.md §6), so a caller passes `links = false` for it and
/// chains stop there. Sums saturate (a saturated head stays a lower bound
/// only because nothing here saturates upwards).
pub fn op_heads_tails(
    graph: &OpGraph,
    order: &[u32],
    cp: &[u64],
    links: impl Fn(u32) -> bool,
) -> (Vec<u64>, Vec<u64>) {
    let n = graph.n_ops();
    let mut head = vec![0u64; n];
    for &o in order {
        if !links(o) {
            continue;
        }
        let reach = head[o as usize].saturating_add(cp[o as usize]);
        for &b in graph.succs(o) {
            head[b as usize] = head[b as usize].max(reach);
        }
    }
    let mut tail = vec![0u64; n];
    for &o in order.iter().rev() {
        if !links(o) {
            continue;
        }
        let reach = tail[o as usize].saturating_add(cp[o as usize]);
        for &a in graph.preds(o) {
            tail[a as usize] = tail[a as usize].max(reach);
        }
    }
    (head, tail)
}

/// Per library node: longest path to it inside its subgraph, and from its end to
/// the subgraph's end (saturating): a node of an op with head `h` and tail
/// `q` starts at or after `h + head[v]` and ends at or before `T - q - after[v]`.
pub fn intra_paths(lib: &Library) -> (Vec<u64>, Vec<u64>) {
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

/// `ceil(a / b)`, saturated down to u64::MAX (a bound stays a bound).
pub fn div_ceil_u128(a: u128, b: u128) -> u64 {
    u64::try_from(a.div_ceil(b)).unwrap_or(u64::MAX)
}

/// `max over h of  h + ceil(W(h) / m) + min tail(h)`, where `W(h)` is the work of
/// items with head >= h and `min tail(h)` their smallest tail; and symmetrically
/// with heads and tails swapped (models/bounds.md). With every tail 0 it is
/// the head-and-body bound `max over h of h + ceil(W(h) / m)`.
pub fn head_body_tail(items: &[Item], m: u128) -> u64 {
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
    best
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

    /// Head-body-tail on a hand-checked set: two cores, items (head, work,
    /// tail) (0,4,0), (5,2,1), (5,2,3): from h=5, 5 + ceil(4/2) + 1 = 8; from
    /// h=0, 0 + ceil(8/2) + 0 = 4; swapped (tails first), from tail 3:
    /// 3 + ceil(2/2) + 5 = 9, the best.
    #[test]
    fn head_body_tail_by_hand() {
        let it = |head, work, tail| Item { head, work, tail };
        let items = [it(0, 4, 0), it(5, 2, 1), it(5, 2, 3)];
        assert_eq!(head_body_tail(&items, 2), 9);
        // Heads only: max(0 + 4, 5 + 2) = 7.
        let heads = [it(0, 4, 0), it(5, 2, 0), it(5, 2, 0)];
        assert_eq!(head_body_tail(&heads, 2), 7);
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
