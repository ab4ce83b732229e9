//! Resource profiles over time for the serial passes (`insertion`,
//! `justify`): a segment tree per core type and memory type, counted in
//! units of the durations' greatest common divisor.

use crate::graph::NodeGraph;
use crate::instance::Instance;
use crate::stop::{Deadline, Pace};

/// Largest product of the horizon and the number of profiles (core types
/// plus memory types) a pass allocates: 32 bytes a cell, 64 MiB.
pub const MAX_CELLS: u64 = 1 << 21;

/// Placements (nodes of a serial pass's list) between two looks at the
/// deadline.
pub(super) const DEADLINE_EVERY: usize = 4096;

/// Steps of the placements' walks (a step: a search of each profile the
/// node uses, O(log horizon)) a serial pass makes between two looks at the
/// clock. A placement walks the busy stretches of its window one by one, so
/// its cost has no constant bound (where one core is busy in many short
/// stretches, thousands of steps: results/shapes-engines.md); counting
/// steps bounds the time between looks whatever the placements cost.
pub(super) const STEPS_BETWEEN_LOOKS: u64 = 1 << 16;

/// When a serial pass looks at the clock: every `DEADLINE_EVERY` nodes of
/// its list, or once its walks have made `STEPS_BETWEEN_LOOKS` steps since
/// the last look, whichever comes first. With a pace (`Looks::paced`), a
/// look also stops a pass that cannot end in time at its pace so far
/// (`stop::Pace`).
#[derive(Default)]
pub(super) struct Looks {
    /// Steps made by the last look.
    looked: u64,
    pace: Option<Pace>,
}

impl Looks {
    /// Looks for a pass over a list of `n` nodes, to end by `deadline`,
    /// that stops on its pace too.
    pub(super) fn paced(n: usize, deadline: &Deadline) -> Looks {
        Looks {
            looked: 0,
            pace: Some(Pace::new(n, deadline)),
        }
    }

    /// Whether the pass must stop before node `i` of its list, having made
    /// `steps` steps in all: the deadline has passed at a look, or (paced)
    /// the pass cannot end in time.
    pub(super) fn stop(&mut self, i: usize, steps: u64, deadline: &Deadline) -> bool {
        let due =
            i % DEADLINE_EVERY == DEADLINE_EVERY - 1 || steps - self.looked >= STEPS_BETWEEN_LOOKS;
        if !due {
            return false;
        }
        self.looked = steps;
        deadline.expired() || self.pace.as_ref().is_some_and(|p| p.behind(i, deadline))
    }
}

/// Range add and "first or last index above a threshold" over `[0, n)`,
/// values i64; with `with_fit`, also the first window of a given length
/// whose values all stay below a fixed capacity (`first_fit`).
pub(super) struct MaxTree {
    n: usize,
    /// Maximum of the subtree, including this node's own pending add.
    mx: Vec<i64>,
    /// Add applied to the whole subtree (not pushed down).
    add: Vec<i64>,
    /// For `first_fit`: per node, the runs of its cells whose value is below
    /// the node's maximum.
    runs: Option<Runs>,
}

/// Cells under node `i` of a tree over `n` leaves.
#[inline]
fn len_of(n: usize, i: usize) -> u32 {
    (n >> i.ilog2()) as u32
}

/// Node `c`'s (pre, suf, best) runs of cells below `m`, the maximum of its
/// parent without the parent's add: all of it where its own maximum is
/// below `m`.
#[inline]
fn runs_below(mx: &[i64], n: usize, runs: &Runs, c: usize, m: i64) -> (u32, u32, u32) {
    if mx[c] < m {
        let l = len_of(n, c);
        (l, l, l)
    } else {
        (runs.pre[c], runs.suf[c], runs.best[c])
    }
}

/// Per node of a `MaxTree`: the longest run of cells below the node's
/// maximum at its start, at its end, and anywhere. An add on a whole node
/// moves every cell and the maximum alike, so the runs change only where
/// `pull` recomputes them.
struct Runs {
    pre: Vec<u32>,
    suf: Vec<u32>,
    best: Vec<u32>,
}

impl MaxTree {
    pub(super) fn new(n: usize) -> Self {
        let size = n.next_power_of_two().max(1);
        MaxTree {
            n: size,
            mx: vec![0; 2 * size],
            add: vec![0; 2 * size],
            runs: None,
        }
    }

    /// A tree over `cells.len()` cells holding `cells` (0 past them): the
    /// state `new` and a range add of each cell's value on that cell reach
    /// (every leaf's maximum and add its value, an inner node's maximum
    /// the larger child's and its add 0), built bottom-up in time linear
    /// in the cells where the adds of a whole profile would each walk two
    /// paths to the root.
    pub(super) fn from_cells(cells: &[i64]) -> Self {
        let mut t = MaxTree::new(cells.len());
        let n = t.n;
        for (i, &c) in cells.iter().enumerate() {
            t.mx[n + i] = c;
            t.add[n + i] = c;
        }
        for i in (1..n).rev() {
            t.mx[i] = t.mx[2 * i].max(t.mx[2 * i + 1]);
        }
        t
    }

    /// Whether the tree keeps the runs `first_fit` needs (`with_fit`).
    pub(super) fn fits(&self) -> bool {
        self.runs.is_some()
    }

    /// `new` with the runs `first_fit` needs (every cell equal at first:
    /// no run below a maximum).
    pub(super) fn with_fit(n: usize) -> Self {
        let mut t = MaxTree::new(n);
        let cells = t.mx.len();
        t.runs = Some(Runs {
            pre: vec![0; cells],
            suf: vec![0; cells],
            best: vec![0; cells],
        });
        t
    }

    /// The first `p >= t` with every cell of `[p, p + d)` inside the tree
    /// and below `cap`, for `d >= 1` (`with_fit` trees whose values never
    /// exceed `cap`); `None` where there is none.
    pub(super) fn first_fit(&self, t: usize, d: usize, cap: i64) -> Option<usize> {
        let runs = self.runs.as_ref().expect("a tree built with_fit");
        debug_assert!(d >= 1 && self.mx[1] <= cap);
        let mut run = (0usize, 0usize); // (start, length) of the free run so far
        self.fit(runs, 1, 0, self.n, 0, t, d, cap, &mut run)
    }

    /// `first_fit` over node `i` (cells `[nl, nr)`, ancestors' adds `acc`),
    /// nodes left to right, `run` the free run ending where `i` begins.
    #[allow(clippy::too_many_arguments)]
    fn fit(
        &self,
        runs: &Runs,
        i: usize,
        nl: usize,
        nr: usize,
        acc: i64,
        t: usize,
        d: usize,
        cap: i64,
        run: &mut (usize, usize),
    ) -> Option<usize> {
        if nr <= t {
            return None;
        }
        if nl < t {
            // Straddles t (never a leaf): its children in turn.
            let (mid, a) = ((nl + nr) / 2, acc + self.add[i]);
            return self
                .fit(runs, 2 * i, nl, mid, a, t, d, cap, run)
                .or_else(|| self.fit(runs, 2 * i + 1, mid, nr, a, t, d, cap, run));
        }
        let len = nr - nl;
        if self.mx[i] + acc < cap {
            if run.1 == 0 {
                run.0 = nl;
            }
            run.1 += len;
            return (run.1 >= d).then_some(run.0);
        }
        // Its maximum is `cap`: its free cells are those below its maximum.
        let (pre, suf, best) = (
            runs.pre[i] as usize,
            runs.suf[i] as usize,
            runs.best[i] as usize,
        );
        if run.1 + pre >= d {
            return Some(if run.1 > 0 { run.0 } else { nl });
        }
        if best >= d {
            return Some(self.leftmost_run(runs, i, nl, nr, d));
        }
        *run = (nr - suf, suf);
        None
    }

    /// The start of the leftmost run of at least `d` cells below node `i`'s
    /// maximum, where its `best` is at least `d`.
    fn leftmost_run(&self, runs: &Runs, i: usize, nl: usize, nr: usize, d: usize) -> usize {
        let (l, r, mid) = (2 * i, 2 * i + 1, (nl + nr) / 2);
        let m = self.mx[l].max(self.mx[r]);
        let (_, lsuf, lbest) = runs_below(&self.mx, self.n, runs, l, m);
        let (rpre, _, _) = runs_below(&self.mx, self.n, runs, r, m);
        if lbest as usize >= d {
            if self.mx[l] < m {
                nl
            } else {
                self.leftmost_run(runs, l, nl, mid, d)
            }
        } else if (lsuf + rpre) as usize >= d {
            mid - lsuf as usize
        } else {
            // Not the whole right child: it would have joined the left's suffix.
            self.leftmost_run(runs, r, mid, nr, d)
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
        self.pull_paths((l + self.n) >> 1, (r - 1 + self.n) >> 1);
    }

    /// Adds `d` on every cell from `l` on, the cells past those a caller
    /// queries included (`l < n`; nothing otherwise). A hold open until a
    /// pass's horizon is such an add. Every node that covers part of
    /// `[l, n)` exactly is the right sibling of an ancestor of leaf `l`, so
    /// only those ancestors recompute their maximum: half the pulls of
    /// `range_add`, whose right boundary's path is then all inside covered
    /// nodes. Where every add that covers a caller's last cell `c` is one
    /// of these, the cells past `c` hold what `c` holds, so a search over
    /// cells up to `c` descends where it did before.
    pub(super) fn add_from(&mut self, l: usize, d: i64) {
        if l >= self.n {
            return;
        }
        let (mut lo, mut hi) = (l + self.n, 2 * self.n);
        while lo < hi {
            if lo & 1 == 1 {
                self.mx[lo] += d;
                self.add[lo] += d;
                lo += 1;
            }
            lo >>= 1;
            hi >>= 1;
        }
        let a = (l + self.n) >> 1;
        self.pull_paths(a, a);
    }

    /// Recomputes the maximum of node `i` from its children (and, with
    /// `with_fit`, its runs).
    #[inline]
    fn pull(&mut self, i: usize) {
        let m = self.pull_max(i);
        if let Some(runs) = &mut self.runs {
            let (l, r) = (2 * i, 2 * i + 1);
            let (lpre, lsuf, lbest) = runs_below(&self.mx, self.n, runs, l, m);
            let (rpre, rsuf, rbest) = runs_below(&self.mx, self.n, runs, r, m);
            let (ll, rl) = (len_of(self.n, l), len_of(self.n, r));
            runs.pre[i] = if lpre == ll { ll + rpre } else { lpre };
            runs.suf[i] = if rsuf == rl { rl + lsuf } else { rsuf };
            runs.best[i] = lbest.max(rbest).max(lsuf + rpre);
        }
    }

    /// Recomputes the maximum of node `i` from its children; returns the
    /// larger child's.
    #[inline(always)]
    fn pull_max(&mut self, i: usize) -> i64 {
        let m = self.mx[2 * i].max(self.mx[2 * i + 1]);
        self.mx[i] = m + self.add[i];
        m
    }

    /// `pull` on node `a` and its ancestors, and on `b` and its ancestors
    /// below the node where the two paths meet (both `a`). Without runs,
    /// the maximum alone, in a loop of its own that the compiler keeps
    /// tight.
    #[inline]
    fn pull_paths(&mut self, a: usize, b: usize) {
        if self.runs.is_some() {
            self.walk_up(a, b, Self::pull);
        } else {
            self.walk_up(a, b, |t, i| {
                t.pull_max(i);
            });
        }
    }

    #[inline(always)]
    fn walk_up(&mut self, mut a: usize, mut b: usize, mut f: impl FnMut(&mut Self, usize)) {
        while a >= 1 {
            f(self, a);
            if a != b {
                f(self, b);
            }
            a >>= 1;
            b >>= 1;
        }
    }

    /// The last index in `[l, r)` whose value exceeds `thr`.
    pub(super) fn last_above(&self, l: usize, r: usize, thr: i64) -> Option<usize> {
        self.above::<true>(l, r.min(self.n), thr)
    }

    /// The first index in `[l, r)` whose value exceeds `thr`.
    pub(super) fn first_above(&self, l: usize, r: usize, thr: i64) -> Option<usize> {
        self.above::<false>(l, r.min(self.n), thr)
    }

    /// The last (`LAST`) or first index in `[l, r)` whose value exceeds
    /// `thr`: a depth-first search from the root, the later child first
    /// (`LAST`) or the earlier, that skips a node outside the range or
    /// whose maximum (its threshold being `thr` less its ancestors' pending
    /// adds) is at most the threshold, and descends straight to the answer
    /// from the first node inside the range that it does not skip
    /// (`descend`). Written as a loop that moves between siblings and up to
    /// parents (a node's threshold is its child's plus its own add) rather
    /// than as recursion, whose calls and returns took about a third of the
    /// passes' hottest query (models/list.md, "The searches' descent").
    fn above<const LAST: bool>(&self, l: usize, r: usize, thr: i64) -> Option<usize> {
        if l >= r {
            return None;
        }
        // Node `i` over cells `[nl, nl + len)`, its threshold `t`.
        let (mut i, mut nl, mut len, mut t) = (1usize, 0usize, self.n, thr);
        loop {
            if nl < r && l < nl + len && self.mx[i] > t {
                if l <= nl && nl + len <= r {
                    return Some(self.descend::<LAST>(i, nl, nl + len, t));
                }
                // Partly inside the range, so not a leaf: its first child.
                t -= self.add[i];
                len /= 2;
                i *= 2;
                if LAST {
                    i += 1;
                    nl += len;
                }
                continue;
            }
            // Skipped: on to the next node of the search, the sibling of
            // this node if it is the child searched first, else of its
            // nearest ancestor that is.
            loop {
                if i == 1 {
                    return None;
                }
                let first_child = if LAST { i & 1 == 1 } else { i & 1 == 0 };
                if first_child {
                    if LAST {
                        i -= 1;
                        nl -= len;
                    } else {
                        i += 1;
                        nl += len;
                    }
                    break;
                }
                i /= 2;
                t += self.add[i];
                if !LAST {
                    nl -= len;
                }
                len *= 2;
            }
        }
    }

    /// The last (`LAST`) or first cell under node `i` (cells `[nl, nr)`)
    /// whose value exceeds `thr`, where node `i`'s maximum does. Every cell
    /// is in the range, so at each level the later (`LAST`) or earlier child
    /// whose maximum exceeds the threshold holds the answer, and one of them
    /// does (the parent's maximum is the larger child's plus its add): the
    /// descent never comes back up.
    #[inline]
    fn descend<const LAST: bool>(
        &self,
        mut i: usize,
        mut nl: usize,
        mut nr: usize,
        mut thr: i64,
    ) -> usize {
        while nr - nl > 1 {
            let mid = (nl + nr) / 2;
            thr -= self.add[i];
            let late = if LAST {
                self.mx[2 * i + 1] > thr
            } else {
                self.mx[2 * i] <= thr
            };
            if late {
                (i, nl) = (2 * i + 1, mid);
            } else {
                (i, nr) = (2 * i, mid);
            }
        }
        nl
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

/// The largest horizon `cells_fit` accepts (0 where none does): the trees
/// over `P` cells, `P` the largest power of two with `P * profiles` within
/// `MAX_CELLS`, hold every horizon below `P * unit`.
pub(super) fn widest_horizon(unit: u64, profiles: u64) -> u64 {
    let most = MAX_CELLS / profiles.max(1);
    if most == 0 {
        return 0;
    }
    let cells = 1u64 << most.ilog2();
    cells.saturating_mul(unit) - 1
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

    /// The widest horizon fits the cells and one unit more does not, for
    /// units and profile counts that do and do not divide the cells.
    #[test]
    fn the_widest_horizon_is_the_last_that_fits() {
        for unit in [1, 2, 5, 7, 1 << 40] {
            for profiles in [1, 2, 3, 5, 6, 9, 64] {
                let w = widest_horizon(unit, profiles);
                assert!(cells_fit(w, unit, profiles), "{unit} {profiles}");
                assert!(!cells_fit(w + 1, unit, profiles), "{unit} {profiles}");
            }
        }
        assert_eq!(widest_horizon(1, MAX_CELLS + 1), 0);
    }

    /// `first_fit` against a plain array under random range adds that keep
    /// every value within `0..=cap` (a core profile): the first start at or
    /// after `t` of `d` cells all below `cap`.
    #[test]
    fn the_tree_finds_the_first_window_below_a_capacity() {
        let mut rng = crate::rng::SplitMix64::new(11);
        for n in [1usize, 2, 3, 5, 16, 37, 100] {
            for cap in [1i64, 2, 3] {
                let mut t = MaxTree::with_fit(n);
                let size = n.next_power_of_two();
                let mut a = vec![0i64; size];
                for _ in 0..1000 {
                    let (x, y) = (rng.below_mod(n + 1), rng.below_mod(n + 1));
                    let (l, r) = (x.min(y), x.max(y));
                    let up = rng.below_mod(2) == 0;
                    let d = if up { 1 } else { -1 };
                    if (l..r).all(|i| (0..=cap).contains(&(a[i] + d))) {
                        t.range_add(l, r, d);
                        a[l..r].iter_mut().for_each(|v| *v += d);
                    }
                    let from = rng.below_mod(size + 1);
                    let len = 1 + rng.below_mod(size.min(8));
                    let want = (from..=size.saturating_sub(len))
                        .find(|&p| a[p..p + len].iter().all(|&v| v < cap));
                    assert_eq!(
                        t.first_fit(from, len, cap),
                        want,
                        "n {n} cap {cap} {a:?} from {from} len {len}"
                    );
                }
            }
        }
    }

    /// Both searches of the tree against a plain array under random range
    /// adds and adds to the end: the first and the last index above each
    /// threshold in each range. Half the trees start from random cells
    /// (`from_cells`) rather than zeros.
    #[test]
    fn the_tree_finds_the_first_and_last_index_above_a_threshold() {
        let mut rng = crate::rng::SplitMix64::new(7);
        for (n, filled) in [1usize, 2, 3, 5, 16, 37, 100]
            .into_iter()
            .flat_map(|n| [(n, false), (n, true)])
        {
            let mut a = vec![0i64; n];
            if filled {
                a.iter_mut().for_each(|v| *v = rng.below_mod(9) as i64 - 4);
            }
            let mut t = MaxTree::from_cells(&a);
            for _ in 0..1000 {
                // The queries first: the tree as built is checked too.
                let (x, y) = (rng.below_mod(n + 1), rng.below_mod(n + 1));
                let (l, r) = (x.min(y), x.max(y));
                let thr = rng.below_mod(9) as i64 - 4;
                let above = |i: &usize| a[*i] > thr;
                assert_eq!(t.first_above(l, r, thr), (l..r).find(above));
                assert_eq!(t.last_above(l, r, thr), (l..r).rev().find(above));
                let (x, y) = (rng.below_mod(n + 1), rng.below_mod(n + 1));
                let (l, r) = (x.min(y), x.max(y));
                let d = rng.below_mod(9) as i64 - 4;
                if rng.below_mod(3) == 0 {
                    // To the end, the cells past `n` included.
                    t.add_from(l, d);
                    a[l..].iter_mut().for_each(|v| *v += d);
                } else {
                    t.range_add(l, r, d);
                    a[l..r].iter_mut().for_each(|v| *v += d);
                }
            }
        }
    }
}
