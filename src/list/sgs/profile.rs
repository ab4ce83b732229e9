//! The memory profile of a guide's serial schedule, with range updates.
//!
//! A guarded pass (see `guide`) must answer, for one memory type, "what is the
//! largest of `base[k] + extra[k]` over list positions `k` in `[lo, hi)`" and
//! then "add `a` to `extra[k]` for `k` in `[lo, hi)`". A segment tree with
//! range add and range max does both in O(log n).
//!
//! To keep memory small at 10^7 nodes, positions are grouped into blocks of
//! `block` consecutive positions and the tree stores one value per block: the
//! largest `base` in the block. Queries and updates cover every block the range
//! touches, so a block answers for its largest member: the test can only be
//! stricter than the exact one, never looser (a guard that refuses a start it
//! could have allowed costs parallelism, never legality).
//!
//! Not `list::profile::MaxTree`, the insertion passes' tree: that one counts
//! cells of time in i64 (its passes refuse memory sizes of 2^52 or more and
//! keep negative reserves) and finds first fits; this one counts list
//! positions, exact in wrapping u64 for sizes up to 2^64, since the guarded
//! pass is the construction every instance gets.

/// Largest number of blocks per tree: at most 2^17 leaves, about 4 MiB a tree.
const MAX_BLOCKS: usize = 1 << 17;

#[derive(Clone, Debug)]
pub struct Profile {
    /// Positions per block.
    block: usize,
    /// Leaves (power of two).
    size: usize,
    /// `mx[i]`: the largest value in node i's range, including `lz[i]`.
    mx: Vec<u64>,
    /// Pending addition for the whole range of node i (not pushed down).
    lz: Vec<u64>,
}

impl Profile {
    /// An all-zero profile over `n` positions.
    pub fn new(n: usize) -> Self {
        let block = n.div_ceil(MAX_BLOCKS).max(1);
        let blocks = n.div_ceil(block).max(1);
        let size = blocks.next_power_of_two();
        Profile {
            block,
            size,
            mx: vec![0; 2 * size],
            lz: vec![0; 2 * size],
        }
    }

    /// Raises the base value at position `k` to at least `v` (before any `add`:
    /// building is done by the serial pass, leaf by leaf, then `seal`).
    pub fn raise(&mut self, k: usize, v: u64) {
        let i = self.size + k / self.block;
        if self.mx[i] < v {
            self.mx[i] = v;
        }
    }

    /// Computes the inner nodes once every leaf is set.
    pub fn seal(&mut self) {
        for i in (1..self.size).rev() {
            self.mx[i] = self.mx[2 * i].max(self.mx[2 * i + 1]);
        }
    }

    fn blocks(&self, lo: usize, hi: usize) -> (usize, usize) {
        debug_assert!(lo < hi);
        (lo / self.block, (hi - 1) / self.block)
    }

    /// Largest value over positions `[lo, hi)` (`lo < hi`).
    pub fn max(&self, lo: usize, hi: usize) -> u64 {
        let (a, b) = self.blocks(lo, hi);
        self.max_rec(1, 0, self.size - 1, a, b)
    }

    fn max_rec(&self, i: usize, nl: usize, nr: usize, a: usize, b: usize) -> u64 {
        if a <= nl && nr <= b {
            return self.mx[i];
        }
        let mid = (nl + nr) / 2;
        let mut best = 0;
        if a <= mid {
            best = self.max_rec(2 * i, nl, mid, a, b);
        }
        if b > mid {
            best = best.max(self.max_rec(2 * i + 1, mid + 1, nr, a, b));
        }
        best.wrapping_add(self.lz[i])
    }

    /// Adds `v` to every position of `[lo, hi)` (`lo < hi`). The guard adds
    /// only what it checked to stay within a memory size, so no sum exceeds u64.
    pub fn add(&mut self, lo: usize, hi: usize, v: u64) {
        let (a, b) = self.blocks(lo, hi);
        self.add_blocks(a, b, v);
    }

    /// Undoes `add(lo, hi, v)` (the same range splits into the same nodes, so
    /// every partial sum returns to what it was).
    pub fn sub(&mut self, lo: usize, hi: usize, v: u64) {
        let (a, b) = self.blocks(lo, hi);
        self.add_blocks(a, b, v.wrapping_neg());
    }

    /// Subtracts `v` on the blocks that lie wholly inside `[lo, hi)` (none when
    /// the range is empty): a block's value stands for its largest member, so
    /// only blocks whose every member is lowered may be lowered.
    pub fn sub_inner(&mut self, lo: usize, hi: usize, v: u64) {
        if lo >= hi {
            return;
        }
        let a = lo.div_ceil(self.block);
        let b = hi / self.block; // first block not wholly inside
        if a < b {
            self.add_blocks(a, b - 1, v.wrapping_neg());
        }
    }

    /// Adds `v` (wrapping: a subtraction is its two's complement) to blocks
    /// `a..=b`, bottom-up: on the nodes that cover the range exactly (the
    /// left end's right siblings and the right end's left siblings, level by
    /// level), then every ancestor of the two end leaves recomputes its
    /// maximum as the larger child's plus its own pending addition. A descent
    /// from the root covers the same nodes and recomputes their ancestors,
    /// all of them on those two paths; the paths' other nodes recompute to
    /// what they hold. So the tree ends the same, in O(log n) without
    /// recursion.
    fn add_blocks(&mut self, a: usize, b: usize, v: u64) {
        let (mut l, mut r) = (a + self.size, b + self.size + 1);
        while l < r {
            if l & 1 == 1 {
                self.mx[l] = self.mx[l].wrapping_add(v);
                self.lz[l] = self.lz[l].wrapping_add(v);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                self.mx[r] = self.mx[r].wrapping_add(v);
                self.lz[r] = self.lz[r].wrapping_add(v);
            }
            l >>= 1;
            r >>= 1;
        }
        let (mut l, mut r) = ((a + self.size) >> 1, (b + self.size) >> 1);
        while l >= 1 {
            self.mx[l] = self.mx[2 * l]
                .max(self.mx[2 * l + 1])
                .wrapping_add(self.lz[l]);
            if r != l {
                self.mx[r] = self.mx[2 * r]
                    .max(self.mx[2 * r + 1])
                    .wrapping_add(self.lz[r]);
            }
            l >>= 1;
            r >>= 1;
        }
    }

    /// The last position in `[lo, hi)` whose value exceeds `thr` (per block:
    /// the block's last position within the range), if any.
    pub fn last_above(&self, lo: usize, hi: usize, thr: u64) -> Option<usize> {
        let (a, b) = self.blocks(lo, hi);
        let blk = self.last_rec(1, 0, self.size - 1, a, b, 0, thr)?;
        Some((blk * self.block + self.block - 1).min(hi - 1))
    }

    /// `acc`: the pending additions of node i's ancestors (wrapping: a
    /// subtraction is stored as its two's complement). A node's largest
    /// value is `mx[i] + acc`, a true value within u64 (every position's
    /// value is what the guard keeps within a memory size), so the wrapping
    /// sum is exact where a signed reading of `lz` would not be (sizes may
    /// reach 2^64).
    #[allow(clippy::too_many_arguments)]
    fn last_rec(
        &self,
        i: usize,
        nl: usize,
        nr: usize,
        a: usize,
        b: usize,
        acc: u64,
        thr: u64,
    ) -> Option<usize> {
        if nr < a || nl > b || self.mx[i].wrapping_add(acc) <= thr {
            return None;
        }
        if nl == nr {
            return Some(nl);
        }
        let mid = (nl + nr) / 2;
        let acc = acc.wrapping_add(self.lz[i]);
        self.last_rec(2 * i + 1, mid + 1, nr, a, b, acc, thr)
            .or_else(|| self.last_rec(2 * i, nl, mid, a, b, acc, thr))
    }

    /// Bytes held (for the memory figures in the logs).
    pub fn bytes(&self) -> usize {
        16 * self.mx.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a plain array, on random operations (small n: exact blocks).
    #[test]
    fn matches_a_plain_array() {
        let mut rng = crate::rng::SplitMix64::new(7);
        let mut rnd = |m: usize| rng.below_mod(m);
        for n in [1usize, 2, 3, 17, 100] {
            let mut p = Profile::new(n);
            let mut plain: Vec<u64> = (0..n).map(|_| rnd(50) as u64).collect();
            for (k, &v) in plain.iter().enumerate() {
                p.raise(k, v);
            }
            p.seal();
            let mut undo = Vec::new();
            for _ in 0..500 {
                let lo = rnd(n);
                let hi = lo + 1 + rnd(n - lo);
                let op = rnd(3);
                if op == 0 {
                    let v = rnd(10) as u64;
                    p.add(lo, hi, v);
                    plain[lo..hi].iter_mut().for_each(|x| *x += v);
                    undo.push((lo, hi, v));
                } else if op == 1 && !undo.is_empty() {
                    let (lo, hi, v) = undo.swap_remove(rnd(undo.len()));
                    p.sub(lo, hi, v);
                    plain[lo..hi].iter_mut().for_each(|x| *x -= v);
                } else {
                    assert_eq!(p.max(lo, hi), *plain[lo..hi].iter().max().unwrap());
                    let thr = rnd(60) as u64;
                    let last = (lo..hi).rev().find(|&k| plain[k] > thr);
                    assert_eq!(p.last_above(lo, hi, thr), last);
                }
            }
        }
    }

    /// With blocks, a query answers for every position of the blocks it
    /// touches: never below the exact answer.
    #[test]
    fn blocks_answer_for_their_largest_member() {
        let n = 3 * MAX_BLOCKS + 5;
        let mut p = Profile::new(n);
        assert_eq!(p.block, 4);
        p.raise(10, 5); // block 2 = positions 8..12
        p.seal();
        assert_eq!(p.max(0, 8), 0);
        assert_eq!(p.max(0, 9), 5, "position 8 shares its block with 10");
        p.add(21, 22, 1); // block 5 = positions 20..24
        assert_eq!(p.max(23, 24), 1);
        assert_eq!(p.max(24, 40), 0);
    }

    /// Against a plain array with the guard's subtractions too:
    /// `sub_inner` lowers only what the base holds (never below the extra
    /// adds), so a node's own pending addition may be negative (stored as
    /// its two's complement) while every value stays non-negative;
    /// `last_above` must read it as a subtraction.
    #[test]
    fn subtractions_keep_the_last_position_above_exact() {
        let mut rng = crate::rng::SplitMix64::new(11);
        let mut rnd = |m: usize| rng.below_mod(m);
        for n in [5usize, 17, 64, 100, 300] {
            for _round in 0..50 {
                let mut p = Profile::new(n);
                let mut plain: Vec<u64> = (0..n).map(|_| rnd(50) as u64).collect();
                for (k, &v) in plain.iter().enumerate() {
                    p.raise(k, v);
                }
                p.seal();
                let mut base = plain.clone();
                let mut undo = Vec::new();
                for step in 0..400 {
                    let lo = rnd(n);
                    let hi = lo + 1 + rnd(n - lo);
                    match rnd(4) {
                        0 => {
                            let v = rnd(10) as u64;
                            p.add(lo, hi, v);
                            plain[lo..hi].iter_mut().for_each(|x| *x += v);
                            undo.push((lo, hi, v));
                        }
                        1 if !undo.is_empty() => {
                            let (lo, hi, v) = undo.swap_remove(rnd(undo.len()));
                            p.sub(lo, hi, v);
                            plain[lo..hi].iter_mut().for_each(|x| *x -= v);
                        }
                        2 => {
                            let m = *base[lo..hi].iter().min().unwrap();
                            if m > 0 {
                                let v = 1 + rnd(m as usize) as u64;
                                p.sub_inner(lo, hi, v);
                                plain[lo..hi].iter_mut().for_each(|x| *x -= v);
                                base[lo..hi].iter_mut().for_each(|x| *x -= v);
                            }
                        }
                        _ => {
                            assert_eq!(
                                p.max(lo, hi),
                                *plain[lo..hi].iter().max().unwrap(),
                                "n {n} step {step}"
                            );
                            let thr = rnd(80) as u64;
                            let last = (lo..hi).rev().find(|&k| plain[k] > thr);
                            assert_eq!(
                                p.last_above(lo, hi, thr),
                                last,
                                "n {n} step {step} lo {lo} hi {hi} thr {thr}"
                            );
                        }
                    }
                }
            }
        }
    }
}
