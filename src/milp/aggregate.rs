//! A lower bound that couples the tiling choices (models/bounds.md §7).
//!
//! The combinatorial bounds take, for each core type separately, every op's
//! least work over its tilings; but the tiling with the least work on one
//! core type may have more on another, or a longer critical path. This small
//! MILP chooses one tiling per op for all of them at once: the makespan `T`
//! must cover every core type's load and every memory type's area under the
//! same choice, the longest op chain under that choice, and a head-and-load
//! bound per core type. Its optimum (HiGHS's dual bound when the time runs
//! out) is a lower bound on every schedule's makespan.

use std::time::Instant;

use super::highs::{Col, Expr, Milp, Params, RunStatus, run};
use crate::bounds::{Bound, Bounds};
use crate::instance::Instance;
use crate::solve::Deadline;

/// Largest op count the model is built for (rows and columns grow linearly;
/// beyond this the LP alone takes seconds).
pub const MAX_OPS: usize = 20_000;

/// Largest scaled work sum: HiGHS's tolerances must resolve one time unit.
const MAX_SCALED: f64 = 1e9;

/// Largest library (nodes) for the per-node head-and-load rows: they need the
/// intra-tiling heads and tails of every library node (16 bytes each) and a
/// 32-byte record per candidate node; beyond, the model keeps its other rows.
const MAX_ROW_NODES: usize = 2_000_000;

/// Least time left for which the model is built at all.
const MIN_TIME: std::time::Duration = std::time::Duration::from_millis(100);

/// Head (and tail) thresholds per core type in the head-and-load rows.
const LEVELS: usize = 8;

/// Largest set of candidate tilings a head-and-load row with an indicator
/// (`y >= x` for each) is written for.
const MAX_OPTIONAL: usize = 400;

/// Per op and candidate tiling: work per core type, area per memory type,
/// critical path (in time units).
struct Cand {
    work: Vec<f64>,
    area: Vec<f64>,
    cp: f64,
}

/// The bound, or `None` when the model is not built (too large, durations
/// beyond the solver's precision) or HiGHS settles nothing by the deadline.
pub fn bound(inst: &Instance, bounds: &Bounds, deadline: &Deadline) -> Option<Bound> {
    solve(inst, bounds, deadline).map(|(b, _)| b)
}

/// `bound`, with the relaxation's optimal tiling choice (library tilings by
/// op) when HiGHS solved it to optimality.
pub fn solve(
    inst: &Instance,
    bounds: &Bounds,
    deadline: &Deadline,
) -> Option<(Bound, Option<Vec<u32>>)> {
    match solve_without(inst, bounds, &[], deadline)? {
        Master::Value(b, choice) => Some((b, choice)),
        Master::Exhausted => None,
    }
}

/// What `solve_without` concludes.
#[derive(Clone, Debug)]
pub enum Master {
    /// The relaxation's bound, and its optimal choice when solved.
    Value(Bound, Option<Vec<u32>>),
    /// No choice is left outside the excluded combinations.
    Exhausted,
}

/// `solve` with further combinations `(op, tiling)` excluded (at most `k - 1`
/// of the `k` of each chosen): the choice search's tried choices
/// (sat/choices.rs). What the value bounds then is the caller's argument.
pub fn solve_without(
    inst: &Instance,
    bounds: &Bounds,
    excluded: &[Vec<(u32, u32)>],
    deadline: &Deadline,
) -> Option<Master> {
    let t0 = Instant::now();
    let n_ops = inst.graph.n_ops();
    // Building the model is not interruptible (HiGHS is): too little time
    // left for it, nothing is built.
    if n_ops == 0
        || n_ops > MAX_OPS
        || deadline.remaining() < MIN_TIME
        || !inst.ops_without_usable_tiling().is_empty()
    {
        return None;
    }
    let cands = bounds.nogoods.candidates(inst);
    let unit = crate::prep::unit::duration_unit(&inst.library, cands.iter().flatten().copied());
    let per_op = op_candidates(inst, &cands, unit);
    let total: f64 = per_op
        .iter()
        .map(|cs| {
            cs.iter()
                .map(|c| c.work.iter().sum::<f64>())
                .fold(0.0, f64::max)
        })
        .sum();
    if total > MAX_SCALED {
        return None;
    }
    let (m, t_col, x) = model(inst, bounds, excluded, &per_op, &cands, unit, deadline)?;
    let params = Params {
        time_limit: deadline.remaining().as_secs_f64(),
        threads: 1,
        seed: 1,
        abs_gap: 0.999,
        cancel: deadline.cancel.clone(),
    };
    let r = run(&m, None, &params).ok()?;
    let dual = match r.status {
        RunStatus::Optimal | RunStatus::Limit => r.dual_bound.or_else(|| {
            (r.status == RunStatus::Optimal)
                .then(|| r.values.as_ref().map(|x| x[t_col.0 as usize]))
                .flatten()
        })?,
        // Without exclusions any choice with a large T is feasible; with
        // them, none may be left. An error concludes nothing.
        RunStatus::Infeasible if !excluded.is_empty() => return Some(Master::Exhausted),
        _ => return None,
    };
    // T is integral: the bound rounds up, less a tolerance for HiGHS's
    // feasibility and optimality tolerances (relative 1e-6 of the value).
    let scaled = (dual - 1e-6 * dual.abs().max(1.0)).ceil().max(0.0);
    let value = (scaled as u64).saturating_mul(unit);
    log::info!(
        "aggregate bound {value} ({:?}, {:.2} s)",
        r.status,
        t0.elapsed().as_secs_f64()
    );
    let choice = (r.status == RunStatus::Optimal)
        .then(|| {
            let vals = r.values.as_ref()?;
            x.iter()
                .enumerate()
                .map(|(o, cols)| {
                    cols.iter()
                        .position(|c| c.is_none_or(|c| vals[c.0 as usize] > 0.5))
                        .map(|k| cands[o][k])
                })
                .collect::<Option<Vec<u32>>>()
        })
        .flatten();
    let b = Bound {
        value,
        source: format!(
            "tiling-choice relaxation (MILP{}{})",
            if r.status == RunStatus::Optimal {
                ", solved"
            } else {
                ", dual bound"
            },
            if bounds.nogoods.is_empty() {
                ""
            } else {
                ", refuted tiling choices left out"
            }
        ),
    };
    Some(Master::Value(b, choice))
}

fn op_candidates(inst: &Instance, cands: &[Vec<u32>], unit: u64) -> Vec<Vec<Cand>> {
    let lib = &inst.library;
    let (nc, nm) = (inst.platform.cores.len(), inst.platform.mems.len());
    let u = unit as f64;
    let mut w = vec![0u64; nc];
    cands
        .iter()
        .map(|ts| {
            ts.iter()
                .map(|&t| {
                    let tl = &lib.tilings[t as usize];
                    // `unit` divides every duration here (it is their gcd):
                    // the integer sum in units is exact, as a float too.
                    lib.core_work(t, &mut w);
                    let work = w.iter().map(|&x| (x / unit) as f64).collect();
                    let mut area = vec![0.0; nm];
                    for v in tl.nodes() {
                        let d = lib.node_dur[v as usize] as f64 / u;
                        for md in lib.mems(v) {
                            area[md.mem as usize] += md.amount as f64 * d;
                        }
                    }
                    Cand {
                        work,
                        area,
                        cp: tl.critical_path as f64 / u,
                    }
                })
                .collect()
        })
        .collect()
}

/// Per op, the column of each candidate (`None`: a single candidate).
type ChoiceCols = Vec<Vec<Option<Col>>>;

/// Builds the MILP (models/bounds.md §6); returns it, the column of `T` and
/// the choice columns (`None`: an op's single candidate).
fn model(
    inst: &Instance,
    bounds: &Bounds,
    excluded: &[Vec<(u32, u32)>],
    per_op: &[Vec<Cand>],
    cands: &[Vec<u32>],
    unit: u64,
    deadline: &Deadline,
) -> Option<(Milp, Col, ChoiceCols)> {
    let n_ops = per_op.len();
    let mut m = Milp::new(false);
    let lb = (bounds.best.value / unit) as f64;
    let t = m.col(lb, f64::INFINITY, true, String::new);
    m.set_cost(t, 1.0);
    // x[o][k]: op o takes its k-th candidate (a constant for single ones).
    let x: ChoiceCols = per_op
        .iter()
        .map(|cs| {
            if cs.len() == 1 {
                vec![None]
            } else {
                let cols: Vec<Option<Col>> =
                    cs.iter().map(|_| Some(m.binary(String::new))).collect();
                let mut one = Expr::default();
                for c in cols.iter().flatten() {
                    one.add(*c, 1.0);
                }
                m.eq(&one, 1.0, String::new);
                cols
            }
        })
        .collect();
    // Refuted combinations (models/sat.md §1.2): at most k - 1 of their k
    // tilings, a single candidate counting as the constant 1; one with a
    // tiling no longer a candidate cannot be chosen whole anyway.
    let combos = bounds
        .nogoods
        .combinations()
        .chain(excluded.iter().map(Vec::as_slice));
    'combos: for combo in combos {
        let mut e = Expr::default();
        for &(op, t) in combo {
            let o = op as usize;
            let Some(k) = cands[o].iter().position(|&c| c == t) else {
                continue 'combos;
            };
            match x[o][k] {
                Some(col) => {
                    e.add(col, 1.0);
                }
                None => {
                    e.add_const(1.0);
                }
            }
        }
        m.le(&e, combo.len() as f64 - 1.0, String::new);
    }
    // `sum over the op's choice of f(candidate)`, as an expression.
    let chosen = |o: usize, f: &dyn Fn(&Cand) -> f64| -> Expr {
        let mut e = Expr::default();
        for (k, c) in per_op[o].iter().enumerate() {
            match x[o][k] {
                Some(col) => {
                    e.add(col, f(c));
                }
                None => {
                    e.add_const(f(c));
                }
            }
        }
        e
    };
    // Load and area: K_c T >= work_c(x), M_m T >= area_m(x).
    for (c, ct) in inst.platform.cores.iter().enumerate() {
        if ct.count == 0 {
            continue;
        }
        let mut e = Expr::default();
        e.add(t, ct.count as f64);
        for o in 0..n_ops {
            e.add_expr(&chosen(o, &|cd| cd.work[c]), -1.0);
        }
        m.ge(&e, 0.0, String::new);
    }
    for (mi, mt) in inst.platform.mems.iter().enumerate() {
        if mt.size == 0 {
            continue;
        }
        // Divided by the size: amounts may be large, HiGHS wants rows near 1.
        let size = mt.size as f64;
        let mut e = Expr::default();
        e.add(t, 1.0);
        for o in 0..n_ops {
            e.add_expr(&chosen(o, &|cd| cd.area[mi] / size), -1.0);
        }
        m.ge(&e, 0.0, String::new);
    }
    // Chains: S_o >= head_o; S_b >= S_a + cp(x_a) along op edges between ops
    // that cannot be empty (an empty op links nothing, problem.md §6);
    // T >= S_o + cp(x_o) + tail_o.
    let empty = |o: usize| {
        per_op[o]
            .iter()
            .any(|c| c.work.iter().all(|&w| w == 0.0) && c.cp == 0.0)
    };
    let s: Vec<Col> = (0..n_ops)
        .map(|o| {
            m.col(
                (bounds.op_head[o] / unit) as f64,
                f64::INFINITY,
                false,
                String::new,
            )
        })
        .collect();
    for o in 0..n_ops {
        let cp = chosen(o, &|cd| cd.cp);
        let mut e = Expr::var(t);
        e.add(s[o], -1.0).add_expr(&cp, -1.0);
        m.ge(&e, (bounds.op_tail[o] / unit) as f64, String::new);
        if empty(o) {
            continue;
        }
        for &b in inst.graph.succs(o as u32) {
            if empty(b as usize) {
                continue;
            }
            let mut e = Expr::var(s[b as usize]);
            e.add(s[o], -1.0).add_expr(&cp, -1.0);
            m.ge(&e, 0.0, String::new);
        }
    }
    if inst.library.n_nodes() <= MAX_ROW_NODES
        && !head_load_tail_rows(&mut m, t, inst, bounds, &x, cands, unit, deadline)
    {
        return None;
    }
    Some((m, t, x))
}

/// A node of a candidate tiling on one core type: its op, the candidate's
/// index, its head and tail (op's plus intra-tiling) and duration, in units.
#[derive(Clone, Copy)]
struct CandNode {
    op: u32,
    k: u32,
    head: u64,
    tail: u64,
    dur: f64,
}

/// Head-body-tail per core type over the chosen tilings' nodes: a node `v` of
/// op `o` starts at or after `h(v) = head(o) + intra head` and ends by
/// `T - q(v)`, `q(v) = tail(o) + intra tail` (prep::heads::intra_paths). For a
/// level `h`, the type-`c` nodes with `h(v) >= h` run inside `[h, T - q_min]`,
/// `q_min` the least `q(v)` among the candidates' such nodes:
/// `K_c (T - h - q_min) >= sum over (o, t) of x(o,t) * (their work in t)`.
/// And the same from tails. Up to `LEVELS` levels each. False when the
/// deadline passed while they were written.
#[allow(clippy::too_many_arguments)]
fn head_load_tail_rows(
    m: &mut Milp,
    t: Col,
    inst: &Instance,
    bounds: &Bounds,
    x: &[Vec<Option<Col>>],
    cands: &[Vec<u32>],
    unit: u64,
    deadline: &Deadline,
) -> bool {
    let lib = &inst.library;
    let (intra_head, intra_after) = crate::prep::heads::intra_paths(lib);
    // Per core type: (op, candidate index, h(v), q(v), duration) of every
    // candidate node (in time units).
    let n_types = inst.platform.cores.len();
    let mut nodes: Vec<Vec<CandNode>> = vec![Vec::new(); n_types];
    for (o, ts) in cands.iter().enumerate() {
        for (k, &tl) in ts.iter().enumerate() {
            for v in lib.tilings[tl as usize].nodes() {
                let vi = v as usize;
                if lib.node_dur[vi] == 0 {
                    continue;
                }
                let h = bounds.op_head[o].saturating_add(intra_head[vi]) / unit;
                let q = bounds.op_tail[o].saturating_add(intra_after[vi]) / unit;
                let d = (lib.node_dur[vi] / unit) as f64;
                nodes[lib.node_core[vi] as usize].push(CandNode {
                    op: o as u32,
                    k: k as u32,
                    head: h,
                    tail: q,
                    dur: d,
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
                if deadline.expired() {
                    return false;
                }
                let mut coef: std::collections::HashMap<(u32, u32), f64> = Default::default();
                let mut q_min = u64::MAX;
                for n in nodes[c].iter().filter(|n| key(n).0 >= h) {
                    *coef.entry((n.op, n.k)).or_default() += n.dur;
                    q_min = q_min.min(key(n).1);
                }
                if q_min == u64::MAX || h.saturating_add(q_min) == 0 {
                    continue;
                }
                let mut keys: Vec<(u32, u32)> = coef.keys().copied().collect();
                keys.sort_unstable();
                // `h + q_min` is owed only when one of these nodes is in the
                // schedule: certain when every candidate of some op has one;
                // otherwise through `y`, 1 when any of them is chosen.
                let certain = keys.iter().any(|&(o, _)| {
                    (0..x[o as usize].len() as u32).all(|k| coef.contains_key(&(o, k)))
                });
                if !certain && keys.len() > MAX_OPTIONAL {
                    continue;
                }
                let mut e = Expr::default();
                e.add(t, ct.count as f64);
                for &(o, k) in &keys {
                    let w = coef[&(o, k)];
                    match x[o as usize][k as usize] {
                        Some(col) => {
                            e.add(col, -w);
                        }
                        None => {
                            e.add_const(-w);
                        }
                    }
                }
                let owed = ct.count as f64 * h.saturating_add(q_min) as f64;
                if certain {
                    m.ge(&e, owed, String::new);
                } else {
                    let y = m.binary(String::new);
                    for &(o, k) in &keys {
                        if let Some(col) = x[o as usize][k as usize] {
                            let mut r = Expr::var(y);
                            r.add(col, -1.0);
                            m.ge(&r, 0.0, String::new);
                        }
                    }
                    e.add(y, -owed);
                    m.ge(&e, 0.0, String::new);
                }
            }
        }
    }
    true
}
