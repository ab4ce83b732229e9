//! The window net's edge finding (models/bounds.md §7): overload checking
//! and edge finding on one unary resource in
//! `O(n log n)` (Vilím's Θ-Λ tree), with the sets each conclusion rests on:
//! the same conclusions, in the same form (`windows::Found`), as
//! `windows::EdgeFinding`, whose `O(n^2)` sweep costs too much on the
//! SAT engine's larger one-core types (models/sat.md §3.9). The window net,
//! which needs windows only, takes `raises`: Vilím's own rule, no sets.
//!
//! Leaves are the tasks by `est`. A node holds, over the tasks of its
//! leaves that are in Θ (white) or Λ (gray): `p` the total duration of Θ,
//! `ect` the earliest completion of Θ (`max_a a + p(Θ, est >= a)`), and the
//! same with at most one gray task added (`pb`, `ectb`). Tasks go in by
//! decreasing `lct`: with Θ the tasks of `lct <= l`, `ect(Θ) > l` is an
//! overload; then the task of largest `lct` turns gray, and while some gray
//! task with Θ would complete after `l` (`ectb > l`), that task must follow
//! all of Θ: it is raised and leaves the tree.

use super::windows::Found;

const NEG: i64 = i64::MIN / 4;

#[derive(Clone, Copy)]
struct Node {
    p: i64,
    ect: i64,
    pb: i64,
    ectb: i64,
}

const EMPTY: Node = Node {
    p: 0,
    ect: NEG,
    pb: 0,
    ectb: NEG,
};

fn combine(l: Node, r: Node) -> Node {
    Node {
        p: l.p + r.p,
        ect: r.ect.max(l.ect + r.p),
        pb: (l.pb + r.p).max(l.p + r.pb),
        ectb: r.ectb.max(l.ect + r.pb).max(l.ectb + r.p),
    }
}

/// What `ThetaLambda::walk` tells its caller.
enum Step {
    /// Θ (the tasks of `lct <= l`) completes past `l`, from `a` on.
    Overload { l: i64, a: i64 },
    /// Gray task `k` completes with Θ past `l`.
    Gray { k: u32, l: i64 },
}

/// The tree and its buffers, reused between calls.
#[derive(Default)]
pub struct ThetaLambda {
    tree: Vec<Node>,
    size: usize,
    /// Tasks by est (leaf order) and each task's leaf.
    by_est: Vec<u32>,
    leaf: Vec<usize>,
    by_lct: Vec<u32>,
}

impl ThetaLambda {
    fn set(&mut self, leaf: usize, n: Node) {
        let mut v = self.size + leaf;
        self.tree[v] = n;
        while v > 1 {
            v /= 2;
            self.tree[v] = combine(self.tree[2 * v], self.tree[2 * v + 1]);
        }
    }

    /// The leaf whose est starts the chain that gives `ect` of the root
    /// (over Θ).
    fn ect_leaf(&self) -> usize {
        let mut v = 1;
        while v < self.size {
            let (l, r) = (self.tree[2 * v], self.tree[2 * v + 1]);
            if self.tree[v].ect == r.ect {
                v = 2 * v + 1;
            } else {
                debug_assert_eq!(self.tree[v].ect, l.ect + r.p);
                v *= 2;
            }
        }
        v - self.size
    }

    /// The gray leaf responsible for `ectb` of the root.
    fn gray_leaf(&self) -> usize {
        let mut v = 1;
        // Following `ectb` (true) or `pb` (false).
        let mut on_ect = true;
        while v < self.size {
            let (l, r) = (self.tree[2 * v], self.tree[2 * v + 1]);
            let here = self.tree[v];
            if on_ect {
                if here.ectb == r.ectb {
                    v = 2 * v + 1;
                } else if here.ectb == l.ect + r.pb {
                    v = 2 * v + 1;
                    on_ect = false;
                } else {
                    v *= 2;
                }
            } else if here.pb == l.pb + r.p {
                v *= 2;
            } else {
                v = 2 * v + 1;
            }
        }
        v - self.size
    }

    /// Overload and edge finding over `tasks` (indices into `dur`, `est`,
    /// `lct`), forwards (mirror the windows for latest starts). Reports
    /// conclusions to `found` as `EdgeFinding::run` does (an overload stops
    /// the run: returns false), each raise with the least `a` that detects
    /// it and the best completion of the suffixes from `a` on.
    pub fn run(
        &mut self,
        tasks: &[u32],
        dur: &[i64],
        est: &[i64],
        lct: &[i64],
        mut found: impl FnMut(Found),
    ) -> bool {
        self.walk(tasks, dur, est, lct, |t, step| match step {
            Step::Overload { l, a } => found(Found::Overload { l, a }),
            Step::Gray { k, l } => {
                if let Some(f) = t.raise(k, l, dur, est, lct) {
                    found(f);
                }
            }
        })
    }

    /// Edge finding for windows alone (the window net): each gray task `k`
    /// whose completion with Θ passes `l` ends after all of Θ, so its start
    /// rises to `ect(Θ)` (Vilím's rule; at least the raise `run` reports,
    /// which completes only a suffix of Θ, the part its clause names):
    /// `raise(k, ect)` where that moves `est_k`. No set is searched:
    /// `O(n log n)` in all. False on an overload.
    pub fn raises(
        &mut self,
        tasks: &[u32],
        dur: &[i64],
        est: &[i64],
        lct: &[i64],
        mut raise: impl FnMut(u32, i64),
    ) -> bool {
        self.walk(tasks, dur, est, lct, |t, step| {
            if let Step::Gray { k, .. } = step {
                let ect = t.tree[1].ect;
                if ect > est[k as usize] {
                    raise(k, ect);
                }
            }
        })
    }

    /// Tasks into Θ by decreasing `lct`, each turning gray in turn, telling
    /// `on` of an overload (then false) and of each gray task whose
    /// completion with Θ passes Θ's `l` (taken out of the tree first).
    fn walk(
        &mut self,
        tasks: &[u32],
        dur: &[i64],
        est: &[i64],
        lct: &[i64],
        mut on: impl FnMut(&Self, Step),
    ) -> bool {
        let n = tasks.len();
        if n == 0 {
            return true;
        }
        self.size = n.next_power_of_two();
        self.tree.clear();
        self.tree.resize(2 * self.size, EMPTY);
        self.by_est.clear();
        self.by_est.extend_from_slice(tasks);
        self.by_est.sort_unstable_by_key(|&v| est[v as usize]);
        let top = tasks.iter().map(|&v| v as usize).max().unwrap_or(0);
        self.leaf.clear();
        self.leaf.resize(top + 1, usize::MAX);
        for (i, &v) in self.by_est.iter().enumerate() {
            self.leaf[v as usize] = i;
            let (e, p) = (est[v as usize], dur[v as usize]);
            self.tree[self.size + i] = Node {
                p,
                ect: e + p,
                pb: p,
                ectb: e + p,
            };
        }
        for v in (1..self.size).rev() {
            self.tree[v] = combine(self.tree[2 * v], self.tree[2 * v + 1]);
        }
        self.by_lct.clear();
        self.by_lct.extend_from_slice(tasks);
        self.by_lct
            .sort_unstable_by_key(|&v| std::cmp::Reverse(lct[v as usize]));
        // Θ: the white tasks; those of lct above `l` are gray or gone.
        let mut l = lct[self.by_lct[0] as usize];
        for q in 0..n {
            if self.tree[1].ect > l {
                let a = est[self.by_est[self.ect_leaf()] as usize];
                on(self, Step::Overload { l, a });
                return false;
            }
            let Some(&next) = self.by_lct.get(q + 1) else {
                break;
            };
            // The task of largest lct turns gray; Θ's largest lct is now
            // the next one's.
            let j = self.by_lct[q] as usize;
            let (e, p) = (est[j], dur[j]);
            self.set(
                self.leaf[j],
                Node {
                    p: 0,
                    ect: NEG,
                    pb: p,
                    ectb: e + p,
                },
            );
            l = lct[next as usize];
            if self.tree[1].ect > l {
                continue; // an overload, reported above
            }
            // Θ fits by l, so a completion past it uses a gray task.
            while self.tree[1].ectb > l {
                let leaf = self.gray_leaf();
                let k = self.by_est[leaf];
                self.set(leaf, EMPTY);
                on(self, Step::Gray { k, l });
            }
        }
        true
    }

    /// The raise of gray task `k` past the white tasks of `lct <= l` (in the
    /// tree): the least `a` with `min(a, est_k) + p(Ω(a, l)) + p_k > l`,
    /// and the best completion `a' + p(Ω(a', l))` over `a' >= a`. `O(n)`.
    fn raise(&self, k: u32, l: i64, dur: &[i64], est: &[i64], lct: &[i64]) -> Option<Found> {
        let (ek, pk) = (est[k as usize], dur[k as usize]);
        let (mut work, mut best) = (0i64, (NEG, 0i64));
        let mut hit = None;
        let mut i = self.by_est.len();
        while i > 0 {
            // One est at a time: a suffix is whole with all tasks of its est.
            let a = est[self.by_est[i - 1] as usize];
            while i > 0 && est[self.by_est[i - 1] as usize] == a {
                let v = self.by_est[i - 1] as usize;
                if v != k as usize && lct[v] <= l {
                    work += dur[v];
                }
                i -= 1;
            }
            if work == 0 {
                continue;
            }
            if a + work > best.0 {
                best = (a + work, a);
            }
            if a.min(ek) + work + pk > l {
                hit = Some((a, best));
            }
        }
        let (a, (ect, a_ect)) = hit?;
        (ect > ek).then_some(Found::Raise {
            k,
            ect,
            l,
            a,
            a_ect,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bounds::windows::EdgeFinding;
    use crate::rng::SplitMix64;

    /// Whether `f` holds of the windows: an overload's set does not fit; a
    /// raise's set detects and its completion is that of a subset.
    fn holds(f: Found, dur: &[i64], est: &[i64], lct: &[i64]) -> bool {
        let n = dur.len();
        let omega = |a: i64, l: i64, skip: usize| -> i64 {
            (0..n)
                .filter(|&v| v != skip && lct[v] <= l && est[v] >= a)
                .map(|v| dur[v])
                .sum()
        };
        match f {
            Found::Overload { l, a } => a + omega(a, l, usize::MAX) > l,
            Found::Raise {
                k,
                ect,
                l,
                a,
                a_ect,
            } => {
                let k = k as usize;
                lct[k] > l
                    && a.min(est[k]) + omega(a, l, k) + dur[k] > l
                    && a_ect >= a
                    && ect == a_ect + omega(a_ect, l, k)
                    && ect > est[k]
            }
        }
    }

    /// 1 to `max_n` tasks: durations 1-6, earliest starts 0-11, latest
    /// completions up to `slack - 1` past the earliest.
    fn random_windows(
        rng: &mut SplitMix64,
        max_n: u64,
        slack: u64,
    ) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
        let n = 1 + rng.below(max_n) as usize;
        let dur: Vec<i64> = (0..n).map(|_| 1 + rng.below(6) as i64).collect();
        let est: Vec<i64> = (0..n).map(|_| rng.below(12) as i64).collect();
        let lct = (0..n)
            .map(|v| est[v] + dur[v] + rng.below(slack) as i64)
            .collect();
        (dur, est, lct)
    }

    /// The earliest start of task `k` over every schedule of the tasks in
    /// their windows on one machine (`None`: no schedule): each order's
    /// left-shifted schedule, over every order (a few tasks only).
    fn earliest_start(k: usize, dur: &[i64], est: &[i64], lct: &[i64]) -> Option<i64> {
        fn orders(
            rest: &mut Vec<usize>,
            at: i64,
            start_k: Option<i64>,
            k: usize,
            w: (&[i64], &[i64], &[i64]),
            best: &mut Option<i64>,
        ) {
            let (dur, est, lct) = w;
            if rest.is_empty() {
                let s = start_k.expect("k placed");
                *best = Some(best.map_or(s, |b| b.min(s)));
                return;
            }
            for i in 0..rest.len() {
                let v = rest.swap_remove(i);
                let s = at.max(est[v]);
                if s + dur[v] <= lct[v] {
                    let sk = if v == k { Some(s) } else { start_k };
                    orders(rest, s + dur[v], sk, k, w, best);
                }
                rest.push(v);
                let last = rest.len() - 1;
                rest.swap(i, last);
            }
        }
        let mut rest: Vec<usize> = (0..dur.len()).collect();
        let mut best = None;
        orders(&mut rest, i64::MIN, None, k, (dur, est, lct), &mut best);
        best
    }

    /// Vilím's raises (`raises`, the window net's) are sound: no schedule
    /// of the windows starts a raised task before its raise (every order
    /// tried); they are at least the raises `run` reports (the suffix its
    /// clause names completes no later than all the tasks `k` follows); an
    /// overload is reported by both or neither.
    #[test]
    fn vilim_raises_are_sound_and_at_least_the_sets_raises() {
        let mut rng = SplitMix64::new(11);
        let (mut raised, mut stronger) = (0, 0);
        for _ in 0..3000 {
            let (dur, est, lct) = random_windows(&mut rng, 6, 10);
            let n = dur.len();
            let tasks: Vec<u32> = (0..n as u32).collect();
            let mut vilim = vec![None; n];
            let ok = ThetaLambda::default().raises(&tasks, &dur, &est, &lct, |k, e| {
                vilim[k as usize] = Some(e);
            });
            let mut sets = vec![None; n];
            let ok_sets = ThetaLambda::default().run(&tasks, &dur, &est, &lct, |f| {
                if let Found::Raise { k, ect, .. } = f {
                    sets[k as usize] = Some(ect);
                }
            });
            assert_eq!(ok, ok_sets, "dur {dur:?} est {est:?} lct {lct:?}");
            if !ok {
                continue;
            }
            for k in 0..n {
                if let Some(e) = vilim[k] {
                    raised += 1;
                    assert!(e > est[k]);
                    if let Some(s) = earliest_start(k, &dur, &est, &lct) {
                        assert!(
                            s >= e,
                            "task {k} starts at {s} below its raise {e}: dur {dur:?} est {est:?} lct {lct:?}"
                        );
                    }
                }
                if let Some(e) = sets[k] {
                    let v = vilim[k].expect("a raise of the sets' run");
                    assert!(v >= e, "task {k}: {v} below {e}");
                    stronger += usize::from(v > e);
                }
            }
        }
        assert!(raised > 300, "{raised} raises");
        eprintln!("{raised} raises, {stronger} above the sets' run");
    }

    /// On random windows: an overload exactly where the quadratic sweep
    /// finds one; every raise sound; each task raised at least as far as
    /// the sweep raises it, once the tree's raises are applied and it runs
    /// again (to the same fixpoint).
    #[test]
    fn the_tree_finds_what_the_sweep_finds() {
        let mut rng = SplitMix64::new(7);
        let (mut overloads, mut raises) = (0, 0);
        for _ in 0..3000 {
            let (dur, mut est, mut lct) = random_windows(&mut rng, 9, 14);
            let n = dur.len();
            let tasks: Vec<u32> = (0..n as u32).collect();
            // Fixpoints of both, forwards only.
            let fix = |est: &mut Vec<i64>, lct: &Vec<i64>, tree: bool| -> bool {
                loop {
                    let mut raised: Vec<(usize, i64)> = vec![];
                    let ok = if tree {
                        ThetaLambda::default().run(&tasks, &dur, est, lct, |f| {
                            assert!(
                                holds(f, &dur, est, lct),
                                "{f:?} dur {dur:?} est {est:?} lct {lct:?}"
                            );
                            if let Found::Raise { k, ect, .. } = f {
                                raised.push((k as usize, ect));
                            }
                        })
                    } else {
                        EdgeFinding::default().run(&tasks, &dur, est, lct, true, |f| {
                            if let Found::Raise { k, ect, .. } = f {
                                raised.push((k as usize, ect));
                            }
                        })
                    };
                    if !ok {
                        return false;
                    }
                    let mut moved = false;
                    for (k, e) in raised {
                        if e > est[k] {
                            est[k] = e;
                            moved = true;
                        }
                    }
                    if (0..n).any(|v| est[v] + dur[v] > lct[v]) {
                        return false;
                    }
                    if !moved {
                        return true;
                    }
                }
            };
            let (mut e1, mut e2) = (est.clone(), est.clone());
            let ok_tree = fix(&mut e1, &lct, true);
            let ok_sweep = fix(&mut e2, &lct, false);
            assert_eq!(ok_tree, ok_sweep, "dur {dur:?} est {est:?} lct {lct:?}");
            if ok_tree {
                assert_eq!(e1, e2, "dur {dur:?} est {est:?} lct {lct:?}");
                raises += (0..n).filter(|&v| e1[v] > est[v]).count();
            } else {
                overloads += 1;
            }
            est.clear();
            lct.clear();
        }
        assert!(overloads > 100 && raises > 100, "{overloads} {raises}");
    }
}
