//! Resource profiles over time for the serial passes (`insertion`,
//! `justify`): a segment tree per core type and memory type, counted in
//! units of the durations' greatest common divisor.

use crate::graph::NodeGraph;
use crate::instance::Instance;

/// Largest product of the horizon and the number of profiles (core types
/// plus memory types) a pass allocates: 32 bytes a cell, 64 MiB.
pub const MAX_CELLS: u64 = 1 << 21;

/// Steps of the placements' walks (a step: a search of each profile the
/// node uses, O(log horizon)) a serial pass makes between two looks at the
/// clock. A placement walks the busy stretches of its window one by one, so
/// its cost has no constant bound (where one core is busy in many short
/// stretches, thousands of steps: results/shapes-engines.md); counting
/// steps bounds the time between looks whatever the placements cost.
pub(super) const STEPS_BETWEEN_LOOKS: u64 = 1 << 16;

/// Range add and "first or last index above a threshold" over `[0, n)`,
/// values i64.
pub(super) struct MaxTree {
    n: usize,
    /// Maximum of the subtree, including this node's own pending add.
    mx: Vec<i64>,
    /// Add applied to the whole subtree (not pushed down).
    add: Vec<i64>,
}

impl MaxTree {
    pub(super) fn new(n: usize) -> Self {
        let size = n.next_power_of_two().max(1);
        MaxTree {
            n: size,
            mx: vec![0; 2 * size],
            add: vec![0; 2 * size],
        }
    }

    /// Adds `d` on `[l, r)`, bottom-up: the nodes that cover `[l, r)`
    /// exactly (at most two a level) take `d` into their maximum and their
    /// pending add, then the ancestors of the two boundary leaves recompute
    /// their maximum (every other node's subtree is either inside the range,
    /// below a covering node, or outside it). The same nodes and values as
    /// a top-down descent; no recursion (the passes' hottest loop).
    pub(super) fn range_add(&mut self, l: usize, r: usize, d: i64) {
        let r = r.min(self.n);
        if l >= r {
            return;
        }
        let (mut lo, mut hi) = (l + self.n, r + self.n);
        while lo < hi {
            if lo & 1 == 1 {
                self.mx[lo] += d;
                self.add[lo] += d;
                lo += 1;
            }
            if hi & 1 == 1 {
                hi -= 1;
                self.mx[hi] += d;
                self.add[hi] += d;
            }
            lo >>= 1;
            hi >>= 1;
        }
        // The ancestors of both boundary leaves, level by level: once the
        // two paths meet, one walk.
        let (mut a, mut b) = ((l + self.n) >> 1, (r - 1 + self.n) >> 1);
        while a >= 1 {
            self.pull(a);
            if a != b {
                self.pull(b);
            }
            a >>= 1;
            b >>= 1;
        }
    }

    /// Recomputes the maximum of node `i` from its children.
    #[inline]
    fn pull(&mut self, i: usize) {
        self.mx[i] = self.mx[2 * i].max(self.mx[2 * i + 1]) + self.add[i];
    }

    /// The last index in `[l, r)` whose value exceeds `thr`.
    pub(super) fn last_above(&self, l: usize, r: usize, thr: i64) -> Option<usize> {
        if l >= r {
            return None;
        }
        self.last(1, 0, self.n, l, r.min(self.n), thr)
    }

    fn last(&self, i: usize, nl: usize, nr: usize, l: usize, r: usize, thr: i64) -> Option<usize> {
        if r <= nl || nr <= l || self.mx[i] <= thr {
            return None;
        }
        if nr - nl == 1 {
            return Some(nl);
        }
        let mid = (nl + nr) / 2;
        let t = thr - self.add[i];
        self.last(2 * i + 1, mid, nr, l, r, t)
            .or_else(|| self.last(2 * i, nl, mid, l, r, t))
    }

    /// The first index in `[l, r)` whose value exceeds `thr`.
    pub(super) fn first_above(&self, l: usize, r: usize, thr: i64) -> Option<usize> {
        if l >= r {
            return None;
        }
        self.first(1, 0, self.n, l, r.min(self.n), thr)
    }

    fn first(&self, i: usize, nl: usize, nr: usize, l: usize, r: usize, thr: i64) -> Option<usize> {
        if r <= nl || nr <= l || self.mx[i] <= thr {
            return None;
        }
        if nr - nl == 1 {
            return Some(nl);
        }
        let mid = (nl + nr) / 2;
        let t = thr - self.add[i];
        self.first(2 * i, nl, mid, l, r, t)
            .or_else(|| self.first(2 * i + 1, mid, nr, l, r, t))
    }
}

/// The memory sizes and core counts of `inst` as profile values; `None`
/// where a size is 2^52 or more (a profile's i64 must hold the size plus
/// what a pass reserves beside it).
pub(super) fn sizes_and_cores(inst: &Instance) -> Option<(Vec<i64>, Vec<i64>)> {
    let caps = inst
        .platform
        .mems
        .iter()
        .map(|m| i64::try_from(m.size).ok().filter(|&c| c < 1 << 52))
        .collect::<Option<_>>()?;
    let cores = inst
        .platform
        .cores
        .iter()
        .map(|c| i64::from(c.count))
        .collect();
    Some((caps, cores))
}

/// Whether `profiles` trees over the power of two above `horizon / unit`
/// stay within `MAX_CELLS`.
pub(super) fn cells_fit(horizon: u64, unit: u64, profiles: u64) -> bool {
    (horizon / unit)
        .checked_add(1)
        .and_then(u64::checked_next_power_of_two)
        .and_then(|h| h.checked_mul(profiles))
        .is_some_and(|c| c <= MAX_CELLS)
}

/// The greatest common divisor of `g`'s durations (1 when all are 0): the
/// profiles' time unit. Exact for the passes: every start they choose is a
/// predecessor's end or just past a profile's step, both multiples of it.
pub(super) fn unit_of(g: &NodeGraph) -> u64 {
    (0..g.n_nodes() as u32)
        .map(|v| g.dur(v))
        .fold(0, crate::prep::unit::gcd)
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both searches of the tree against a plain array under random range
    /// adds: the first and the last index above each threshold in each range.
    #[test]
    fn the_tree_finds_the_first_and_last_index_above_a_threshold() {
        let mut rng = crate::rng::SplitMix64::new(7);
        for n in [1usize, 2, 3, 5, 16, 37, 100] {
            let mut t = MaxTree::new(n);
            let mut a = vec![0i64; n];
            for _ in 0..1000 {
                let (x, y) = (rng.below_mod(n + 1), rng.below_mod(n + 1));
                let (l, r) = (x.min(y), x.max(y));
                let d = rng.below_mod(9) as i64 - 4;
                t.range_add(l, r, d);
                a[l..r].iter_mut().for_each(|v| *v += d);
                let (x, y) = (rng.below_mod(n + 1), rng.below_mod(n + 1));
                let (l, r) = (x.min(y), x.max(y));
                let thr = rng.below_mod(9) as i64 - 4;
                let above = |i: &usize| a[*i] > thr;
                assert_eq!(t.first_above(l, r, thr), (l..r).find(above));
                assert_eq!(t.last_above(l, r, thr), (l..r).rev().find(above));
            }
        }
    }
}
