//! Core loads and memory areas coupled by the tiling choice
//! (models/bounds.md §5a).
//!
//! Bounds 2 and 5 take each op's least work on one core type, or its least
//! area on one memory type, separately: where the tiling with the least
//! work on one type puts it on another, no single type shows it. For any
//! weights `nu >= 0` over the core and memory types (the resources), with
//! `load_r(t)` the work of tiling `t` on core type `r` over its core count
//! (or its area on memory type `r` over the capacity), every schedule with
//! tilings `x` ends at `T >= load_r(x)` on every resource, so
//!
//! ```text
//!     T sum_r nu_r >= sum_o sum_r nu_r load_r(x_o) >= sum_o min_t sum_r nu_r load_r(t)
//! ```
//!
//! (`t` over the op's candidates). Any weights give a bound; the best are
//! the dual of the linear relaxation of the relaxation's load and area rows
//! (§6), found here by cutting planes over a small linear program (one
//! column per resource), in floating point with a margin for its rounding.
//! The MILP of §6 adds the chains and head-and-load rows; this bound needs
//! no solver and runs at every size.

use std::collections::HashMap;

use super::Bound;
use super::combinatorial::tilings_of;
use crate::instance::Instance;

/// Most evaluations of the weights (cuts).
const MAX_EVALUATIONS: usize = 100;

/// Most multiply-adds over the evaluations and the master's pivots: the
/// search stops sooner where the candidates are many.
const MAX_WORK: usize = 100_000_000;

/// The coupled bound over `cands` (`None`: every usable tiling), or `None`
/// where it cannot beat bounds 2 and 5 (no op with two candidates, fewer
/// than two resources with work), where an op has no candidate, or where
/// the candidates are too many to weigh within `MAX_WORK`.
pub fn bound(inst: &Instance, cands: Option<&[Vec<u32>]>) -> Option<Bound> {
    let n_ops = inst.graph.n_ops() as u32;
    let several = |o: u32| match cands {
        Some(c) => c[o as usize].len() > 1,
        None => inst.usable_tilings(o).nth(1).is_some(),
    };
    if !(0..n_ops).any(several) {
        return None;
    }
    let loads = Loads::new(inst, cands)?;
    let (value, nu) = loads.maximise()?;
    let value = loads.certified(value, &nu)?;
    Some(Bound {
        value,
        source: "core loads and memory areas coupled by the tiling choice".into(),
    })
}

/// The load vectors (per resource, in time units) of every op's candidates,
/// ops with the same candidates counted once with their multiplicity, ops
/// with one candidate summed into `fixed`.
struct Loads {
    /// Resources with some load.
    r: usize,
    /// Per group of ops with the same candidates: where its candidates'
    /// loads begin in `vals` (`r` values each, consecutive), how many
    /// candidates it has, and the group's op count.
    groups: Vec<(usize, usize, f64)>,
    /// The groups' loads.
    vals: Vec<f64>,
    /// The loads every choice has (ops with a single candidate).
    fixed: Vec<f64>,
    /// Floating-point roundings on the longest path to the bound, for the
    /// margin (`certified`).
    depth: usize,
}

impl Loads {
    fn new(inst: &Instance, cands: Option<&[Vec<u32>]>) -> Option<Loads> {
        let lib = &inst.library;
        let plat = &inst.platform;
        let (nc, nm) = (plat.cores.len(), plat.mems.len());
        let n_ops = inst.graph.n_ops();
        // Ops with the same candidates, in order of their first op: the
        // usable tilings of an op are its library group's, so without
        // candidates the group decides; with them, the list itself.
        let mut first_op: Vec<u32> = Vec::new();
        let mut mult: Vec<u64> = Vec::new();
        let mut count = |set: &mut u32, op: u32| {
            if *set == u32::MAX {
                *set = first_op.len() as u32;
                first_op.push(op);
                mult.push(0);
            }
            mult[*set as usize] += 1;
        };
        match cands {
            None => {
                let mut set_of = vec![u32::MAX; lib.groups.len()];
                for op in 0..n_ops as u32 {
                    count(&mut set_of[inst.graph.ops[op as usize].group as usize], op);
                }
            }
            Some(c) => {
                let mut set_of: HashMap<&[u32], u32> = HashMap::new();
                for op in 0..n_ops as u32 {
                    count(set_of.entry(&c[op as usize]).or_insert(u32::MAX), op);
                }
            }
        }
        let sets: Vec<Vec<u32>> = first_op
            .iter()
            .map(|&op| tilings_of(inst, cands, op))
            .collect();
        if sets.iter().any(Vec::is_empty) {
            return None;
        }
        // Per library tiling met: its loads (work per core type, saturating
        // down, area per memory type), computed once, `nc + nm` values each.
        let width = nc + nm;
        let mut index = vec![u32::MAX; lib.tilings.len()];
        let mut loads: Vec<u128> = Vec::new();
        let (mut work, mut area) = (vec![0u64; nc], vec![0u128; nm]);
        for &t in sets.iter().flatten() {
            if index[t as usize] == u32::MAX {
                index[t as usize] = (loads.len() / width) as u32;
                lib.core_work(t, &mut work);
                lib.mem_area(t, &mut area);
                loads.extend(work.iter().map(|&w| u128::from(w)));
                loads.extend(area.iter().copied());
            }
        }
        // Resources: core types with cores and memory types with capacity
        // that some candidate loads.
        let caps: Vec<u64> = plat
            .cores
            .iter()
            .map(|c| u64::from(c.count))
            .chain(plat.mems.iter().map(|m| m.size))
            .collect();
        let used: Vec<usize> = (0..width)
            .filter(|&i| caps[i] > 0 && loads.chunks_exact(width).any(|v| v[i] > 0))
            .collect();
        let r = used.len();
        if r < 2 {
            return None;
        }
        let (used, caps) = (&used, &caps);
        let scaled = |t: u32| {
            let v = &loads[index[t as usize] as usize * width..][..width];
            used.iter().map(move |&i| v[i] as f64 / caps[i] as f64)
        };
        let mut fixed = vec![0.0; r];
        let (mut groups, mut vals, mut singles) = (Vec::new(), Vec::new(), 0usize);
        for (ts, &m) in sets.iter().zip(&mult) {
            if ts.len() == 1 {
                for (f, x) in fixed.iter_mut().zip(scaled(ts[0])) {
                    *f += m as f64 * x;
                }
                singles += 1;
            } else {
                groups.push((vals.len(), ts.len(), m as f64));
                for &t in ts {
                    vals.extend(scaled(t));
                }
            }
        }
        let depth = 2 * r + groups.len() + singles + 8;
        Some(Loads {
            r,
            groups,
            vals,
            fixed,
            depth,
        })
    }

    /// `sum_o min_t nu . load(t)` for weights `nu` summing to 1, and its
    /// subgradient: the loads of the minimising choice.
    fn evaluate(&self, nu: &[f64], sub: &mut [f64]) -> f64 {
        let r = self.r;
        sub.copy_from_slice(&self.fixed);
        let mut g = dot(&self.fixed, nu);
        for &(start, count, mult) in &self.groups {
            let vs = &self.vals[start..start + count * r];
            let (mut best, mut at) = (f64::INFINITY, 0);
            for (k, v) in vs.chunks_exact(r).enumerate() {
                let s = dot(v, nu);
                if s < best {
                    best = s;
                    at = k;
                }
            }
            g += mult * best;
            for (u, a) in sub.iter_mut().zip(&vs[at * r..(at + 1) * r]) {
                *u += mult * a;
            }
        }
        g
    }

    /// Cutting planes (Kelley's method): the weights that maximise the
    /// least of the cuts so far (`master`), each evaluation a new cut,
    /// until the master's value (an upper bound on the dual's optimum) and
    /// the best evaluation round up to the same integer, or the
    /// evaluations or the work run out. Returns the best evaluation and its
    /// weights; `None` where even the single resources cost more than
    /// `MAX_WORK`.
    fn maximise(&self) -> Option<(f64, Vec<f64>)> {
        let t0 = std::time::Instant::now();
        let r = self.r;
        let per_eval = self.vals.len() + r;
        let mut work = MAX_WORK.checked_sub(per_eval.checked_mul(r)?)?;
        let mut cuts: Vec<Vec<f64>> = Vec::new();
        let mut best = (f64::NEG_INFINITY, vec![0.0; r]);
        let mut sub = vec![0.0; r];
        let mut evaluate = |nu: Vec<f64>, best: &mut (f64, Vec<f64>), cuts: &mut Vec<Vec<f64>>| {
            let g = self.evaluate(&nu, &mut sub);
            if g > best.0 {
                *best = (g, nu);
            }
            cuts.push(sub.clone());
        };
        // The single resources first: bounds 2 and 5 over these candidates.
        for i in 0..r {
            let mut nu = vec![0.0; r];
            nu[i] = 1.0;
            evaluate(nu, &mut best, &mut cuts);
        }
        let mut ub = f64::INFINITY;
        while cuts.len() < MAX_EVALUATIONS && work >= 2 * per_eval {
            let Some((out, u)) = master(&cuts, &mut work) else {
                break;
            };
            ub = u;
            if best.0.ceil() >= ub * (1.0 - 1e-9) {
                break;
            }
            // In-out (Wentges' smoothing): the weights halfway between the
            // best so far and the master's; where their cut does not cut
            // off the master's weights, those are evaluated too.
            let q: Vec<f64> = best
                .1
                .iter()
                .zip(&out)
                .map(|(b, o)| (b + o) / 2.0)
                .collect();
            evaluate(q, &mut best, &mut cuts);
            work = work.saturating_sub(per_eval);
            if dot(&out, &cuts[cuts.len() - 1]) >= u * (1.0 - 1e-12) {
                evaluate(out, &mut best, &mut cuts);
                work = work.saturating_sub(per_eval);
            }
        }
        log::debug!(
            "coupled loads: {:.3} (dual at most {ub:.3}) after {} cuts over {} resources, {} groups, in {:.3} s",
            best.0,
            cuts.len(),
            r,
            self.groups.len(),
            t0.elapsed().as_secs_f64()
        );
        Some(best)
    }

    /// The bound `g` computed for weights `nu` proves, with a margin for
    /// every rounding on its way (models/bounds.md §5a): an integer at most
    /// the exact `sum_o min_t nu . load(t) / sum nu`.
    fn certified(&self, g: f64, nu: &[f64]) -> Option<u64> {
        let s: f64 = nu.iter().sum();
        if !(g.is_finite() && s > 0.0) {
            return None;
        }
        let margin = 8.0 * self.depth as f64 * f64::EPSILON;
        if margin >= 0.01 {
            return None;
        }
        let x = (g / s * (1.0 - margin)).ceil();
        Some(if x >= u64::MAX as f64 {
            u64::MAX
        } else {
            x as u64
        })
    }
}

/// `a . b`.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Kelley's master: the weights `nu >= 0`, `sum nu <= 1`, maximising
/// `z <= nu . cut` over every cut; returns them scaled to sum 1 and `z`.
/// A small dense simplex (Bland's rule): only a guide, since every
/// evaluated weight vector proves its own bound.
fn master(cuts: &[Vec<f64>], work: &mut usize) -> Option<(Vec<f64>, f64)> {
    let r = cuts.first()?.len();
    let scale = cuts
        .iter()
        .flatten()
        .fold(0.0f64, |a, &b| a.max(b))
        .max(f64::MIN_POSITIVE);
    let m = cuts.len() + 1;
    // Columns: nu (r), z, the slacks (m), the right-hand side.
    let n = r + 1 + m;
    let mut a = vec![vec![0.0; n + 1]; m];
    for (j, cut) in cuts.iter().enumerate() {
        for (i, &u) in cut.iter().enumerate() {
            a[j][i] = -u / scale;
        }
        a[j][r] = 1.0;
        a[j][r + 1 + j] = 1.0;
    }
    a[m - 1][..r].fill(1.0);
    a[m - 1][r + 1 + m - 1] = 1.0;
    a[m - 1][n] = 1.0;
    let mut basis: Vec<usize> = (0..m).map(|j| r + 1 + j).collect();
    // Reduced costs (maximising z) and the objective's value.
    let mut d = vec![0.0; n];
    d[r] = 1.0;
    let mut value = 0.0;
    const TOL: f64 = 1e-12;
    loop {
        *work = work.checked_sub(m * (n + 1))?;
        let Some(e) = (0..n).find(|&j| d[j] > TOL) else {
            let mut nu = vec![0.0; r];
            for (row, &b) in basis.iter().enumerate() {
                if b < r {
                    nu[b] = a[row][n].max(0.0);
                }
            }
            let s: f64 = nu.iter().sum();
            if s <= 0.0 {
                return None;
            }
            nu.iter_mut().for_each(|x| *x /= s);
            return Some((nu, value * scale));
        };
        let mut leave: Option<usize> = None;
        for row in 0..m {
            if a[row][e] > TOL {
                let ratio = a[row][n] / a[row][e];
                let better = match leave {
                    None => true,
                    Some(l) => {
                        let lr = a[l][n] / a[l][e];
                        ratio < lr || (ratio == lr && basis[row] < basis[l])
                    }
                };
                if better {
                    leave = Some(row);
                }
            }
        }
        let l = leave?;
        let p = a[l][e];
        a[l].iter_mut().for_each(|x| *x /= p);
        let pivot = a[l].clone();
        for (row, ar) in a.iter_mut().enumerate() {
            let f = ar[e];
            if row != l && f != 0.0 {
                ar.iter_mut().zip(&pivot).for_each(|(x, y)| *x -= f * y);
            }
        }
        let f = d[e];
        d.iter_mut().zip(&pivot).for_each(|(x, y)| *x -= f * y);
        value += f * pivot[n];
        basis[l] = e;
    }
}
