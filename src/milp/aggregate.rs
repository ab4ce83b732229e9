//! A lower bound that couples the tiling choices (models/bounds.md §6).
//!
//! The combinatorial bounds take, for each core type separately, every op's
//! least work over its tilings; but the tiling with the least work on one
//! core type may have more on another, or a longer critical path. This small
//! MILP chooses one tiling per op for all of them at once: the makespan `T`
//! must cover every core type's load and every memory type's area under the
//! same choice, the longest op chain under that choice, and a head-and-load
//! bound per core type. Its optimum (HiGHS's dual bound when the time runs
//! out) is a lower bound on every schedule's makespan. The rows are the
//! relaxation's (bounds::relaxation, which also enumerates the choices within
//! a makespan exactly); this module writes and solves them as a MILP.

use std::time::Instant;

use super::highs::{Col, Expr, Milp, Params, RunStatus, run_watched};
use crate::bounds::relaxation::{Next, Relaxation};
use crate::bounds::{Bound, Bounds};
use crate::instance::Instance;
use crate::stop::Deadline;

/// Largest op count the model is built for (rows and columns grow linearly;
/// beyond this the LP alone takes seconds).
pub const MAX_OPS: usize = 20_000;

/// Largest scaled work sum: HiGHS's tolerances must resolve one time unit.
const MAX_SCALED: f64 = 1e9;

/// Least time left for which the model is built at all.
const MIN_TIME: std::time::Duration = std::time::Duration::from_millis(100);

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
    let rel = relaxation(inst, bounds, deadline)?;
    match solve_relaxation(&rel, bounds, &[], None, deadline)? {
        Master::Value(b, choice) => Some((b, choice)),
        Master::Exhausted => None,
    }
}

/// What `solve_relaxation` concludes.
#[derive(Clone, Debug)]
pub enum Master {
    /// The relaxation's bound, and its optimal choice when solved.
    Value(Bound, Option<Vec<u32>>),
    /// No choice is left outside the excluded combinations.
    Exhausted,
}

/// The relaxation of `inst` over its candidates (bounds::relaxation), where
/// the MILP is built for it: ops and scaled work within what HiGHS resolves,
/// every op with a usable tiling, time enough left.
pub fn relaxation(inst: &Instance, bounds: &Bounds, deadline: &Deadline) -> Option<Relaxation> {
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
    let lib = &inst.library;
    let unit = crate::prep::unit::duration_unit(lib, cands.iter().flatten().copied());
    let mut w = vec![0u64; inst.platform.cores.len()];
    let mut most = |t: u32| {
        lib.core_work(t, &mut w);
        w.iter().map(|&x| (x / unit) as f64).sum::<f64>()
    };
    let total: f64 = cands
        .iter()
        .map(|ts| ts.iter().map(|&t| most(t)).fold(0.0, f64::max))
        .sum();
    if total > MAX_SCALED {
        return None;
    }
    Relaxation::new(inst, bounds, cands, unit, deadline.end)
}

/// The MILP over `rel` with the combinations `(op, tiling)` of `excluded`
/// left out (at most `k - 1` of the `k` of each chosen; what the value then
/// bounds is the caller's argument, sat/choices.rs) and, when `cap` (time) is
/// given, the makespan at most it: then the first choice found within it
/// will do (its value is not the least), and `Master::Exhausted` says
/// none is within it.
pub fn solve_relaxation(
    rel: &Relaxation,
    bounds: &Bounds,
    excluded: &[Vec<(u32, u32)>],
    cap: Option<u64>,
    deadline: &Deadline,
) -> Option<Master> {
    let t0 = Instant::now();
    let unit = rel.unit;
    let cands = &rel.cands;
    let (mut m, t_col, x) = model(rel, bounds, excluded);
    if let Some(cap) = cap {
        m.col_upper[t_col.0 as usize] = (cap / unit) as f64;
    }
    let params = Params {
        time_limit: deadline.remaining().as_secs_f64(),
        threads: 1,
        seed: 1,
        // Within a cap the first choice found will do.
        abs_gap: if cap.is_some() { 1e9 } else { 0.999 },
        cancel: deadline.cancel.clone(),
    };
    // Some HiGHS steps, presolve among them, do not look at the clock on
    // the largest models (results/shapes-engines.md): the run is abandoned
    // at the deadline, or at its own limit and `GRACE` where those end
    // sooner (an effort-capped deadline), and no bound comes from it.
    let r = run_watched(&m, None, &params, deadline.end).ok()??;
    let dual = match r.status {
        RunStatus::Optimal | RunStatus::Limit => r.dual_bound.or_else(|| {
            (r.status == RunStatus::Optimal)
                .then(|| r.values.as_ref().map(|x| x[t_col.0 as usize]))
                .flatten()
        })?,
        // Without exclusions or refuted combinations any choice with a
        // large T is feasible; with them, none may be left. An error
        // concludes nothing.
        RunStatus::Infeasible
            if !excluded.is_empty() || cap.is_some() || !bounds.nogoods.is_empty() =>
        {
            return Some(Master::Exhausted);
        }
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

/// Per op, the column of each candidate (`None`: a single candidate).
type ChoiceCols = Vec<Vec<Option<Col>>>;

/// Builds the MILP (models/bounds.md §6) from the relaxation's rows and
/// chain, with the refuted combinations and `excluded` left out; returns it,
/// the column of `T` and the choice columns (`None`: an op's single
/// candidate).
fn model(
    rel: &Relaxation,
    bounds: &Bounds,
    excluded: &[Vec<(u32, u32)>],
) -> (Milp, Col, ChoiceCols) {
    let cands = &rel.cands;
    let n_ops = cands.len();
    let mut m = Milp::new(false);
    let t = m.col(rel.least as f64, f64::INFINITY, true, String::new);
    m.set_cost(t, 1.0);
    // x[o][k]: op o takes its k-th candidate (a constant for single ones).
    let x: ChoiceCols = cands
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
    // `coef` times "op o takes its k-th candidate".
    let add_x = |e: &mut Expr, o: u32, k: u32, coef: f64| match x[o as usize][k as usize] {
        Some(col) => {
            e.add(col, coef);
        }
        None => {
            e.add_const(coef);
        }
    };
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
            add_x(&mut e, op, k as u32, 1.0);
        }
        m.le(&e, combo.len() as f64 - 1.0, String::new);
    }
    // Each row `scale T >= sum + owed [some term chosen]`, with the
    // indicator `y >= x` for each term where no op is certain to have one.
    // Written in a fixed order (the loads and areas, the chains, then the
    // head-and-load rows): HiGHS breaks ties between optimal choices by it
    // and the choice search proposes in it, so another order proposes other
    // choices first (it proved fewer of the memory-tight set).
    let write = |m: &mut Milp, row: &crate::bounds::relaxation::Row| {
        let div = if row.per_unit { row.scale as f64 } else { 1.0 };
        let mut e = Expr::default();
        e.add(t, row.scale as f64 / div);
        for &(o, k, c) in &row.terms {
            add_x(&mut e, o, k, -(c as f64) / div);
        }
        let owed = row.owed as f64 / div;
        if row.owed == 0 || row.certain {
            m.ge(&e, owed, String::new);
        } else {
            let y = m.binary(String::new);
            for &(o, k, _) in &row.terms {
                if let Some(col) = x[o as usize][k as usize] {
                    let mut r = Expr::var(y);
                    r.add(col, -1.0);
                    m.ge(&r, 0.0, String::new);
                }
            }
            e.add(y, -owed);
            m.ge(&e, 0.0, String::new);
        }
    };
    for row in rel.rows.iter().filter(|r| r.owed == 0) {
        write(&mut m, row);
    }
    // Chains: S_o >= head_o; S_b >= S_a + cp(x_a) along the chain's edges;
    // T >= S_o + cp(x_o) + tail_o where o cannot be empty.
    let ch = &rel.chain;
    let s: Vec<Col> = (0..n_ops)
        .map(|o| m.col(ch.head[o] as f64, f64::INFINITY, false, String::new))
        .collect();
    let cp = |o: usize| {
        let mut e = Expr::default();
        for (k, &c) in ch.cp[o].iter().enumerate() {
            add_x(&mut e, o as u32, k as u32, c as f64);
        }
        e
    };
    for o in 0..n_ops {
        let cp = cp(o);
        if !ch.may_be_empty[o] {
            let mut e = Expr::var(t);
            e.add(s[o], -1.0).add_expr(&cp, -1.0);
            m.ge(&e, ch.tail[o] as f64, String::new);
        }
        for &b in ch.succs(o) {
            let mut e = Expr::var(s[b as usize]);
            e.add(s[o], -1.0).add_expr(&cp, -1.0);
            m.ge(&e, 0.0, String::new);
        }
    }
    for row in rel.rows.iter().filter(|r| r.owed > 0) {
        write(&mut m, row);
    }
    (m, t, x)
}

/// What the relaxation proposes at a level (`propose`).
#[derive(Clone, Debug)]
pub enum Proposal {
    /// A choice it puts at or below the level, outside the exclusions.
    Within(Vec<u32>),
    /// None is left there: the least relaxed makespan of what is left
    /// (above the level), with the MILP's bound source where the MILP
    /// computed it.
    Beyond(u64, Option<String>),
    /// No choice is left at any makespan: every one is excluded.
    Exhausted,
    /// Out of time, or the relaxation could not be solved.
    Unsolved,
}

/// Partial choices the enumeration at a level visits in one call before
/// the MILP takes over (a 12-op memory-tight instance needs a few
/// thousand for a whole level).
const ENUMERATION_NODES: u64 = 200_000;

/// The refuted combinations of `bounds` and the `excluded` choices, as the
/// enumeration takes them.
fn nogoods<'b>(bounds: &'b Bounds, excluded: &'b [Vec<(u32, u32)>]) -> Vec<&'b [(u32, u32)]> {
    bounds
        .nogoods
        .combinations()
        .chain(excluded.iter().map(Vec::as_slice))
        .collect()
}

/// `choice` itself where the relaxation puts it at or below `level` (time)
/// outside `excluded` and the refuted combinations of `bounds` (a tiling
/// that is not a candidate taken as the op's first candidate); else a
/// choice the enumeration around it meets within as many steps as there
/// are ops, else `None`. Apart from `propose`'s order: nothing to exclude
/// but what is proposed.
pub fn propose_first(
    rel: &Relaxation,
    bounds: &Bounds,
    excluded: &[Vec<(u32, u32)>],
    level: u64,
    choice: &[u32],
    deadline: &Deadline,
) -> Option<Vec<u32>> {
    match rel.next_within(
        level / rel.unit,
        &nogoods(bounds, excluded),
        Some(choice),
        None,
        choice.len() as u64 + 1,
        deadline.end,
    ) {
        Next::Choice(c) => Some(c),
        Next::Exhausted | Next::Unknown => None,
    }
}

/// Units above an exhausted level the enumeration tries before the MILP
/// computes the relaxation's next value (`propose`).
const ENUMERATED_STEPS: u64 = 4;

/// The next choice the relaxation puts at or below `level` (time) outside
/// `excluded` and the refuted combinations of `bounds`: the exact
/// enumeration (bounds::relaxation) in limited-discrepancy order around
/// `prefer`, resumed from `after` (kept here) at the same level; the MILP
/// within the level where it runs out. When none is left: the first of
/// the next `ENUMERATED_STEPS` units at which the enumeration finds one,
/// else the MILP's least value of what is left. Each choice proposed must
/// be excluded by the next call (the enumeration resumes after it).
pub fn propose(
    rel: Option<&Relaxation>,
    bounds: &Bounds,
    excluded: &[Vec<(u32, u32)>],
    level: u64,
    prefer: Option<&[u32]>,
    after: &mut Option<(u64, Vec<u32>)>,
    deadline: &Deadline,
) -> Proposal {
    // Without the relaxation (beyond the MILP's limits, or no time left
    // to build it) its MILP cannot be solved either.
    let Some(rel) = rel else {
        return Proposal::Unsolved;
    };
    let nogoods = nogoods(bounds, excluded);
    let from = after
        .as_ref()
        .filter(|(l, _)| *l == level)
        .map(|(_, c)| c.as_slice());
    let next = rel.next_within(
        level / rel.unit,
        &nogoods,
        prefer,
        from,
        ENUMERATION_NODES,
        deadline.end,
    );
    let exhausted = match next {
        Next::Choice(c) => {
            *after = Some((level, c.clone()));
            return Proposal::Within(c);
        }
        Next::Exhausted => true,
        Next::Unknown => false,
    };
    if !exhausted {
        match solve_relaxation(rel, bounds, excluded, Some(level), deadline) {
            None => return Proposal::Unsolved,
            Some(Master::Value(_, Some(c))) => return Proposal::Within(c),
            Some(Master::Value(_, None)) => return Proposal::Unsolved,
            Some(Master::Exhausted) => {}
        }
    } else {
        // The next few units by the enumeration: nothing is left at
        // `level`, so the first unit with a choice is the relaxation's
        // value. The MILP's solve grows with the choices excluded (tenths
        // of a second a solve once hundreds are excluded), the
        // enumeration's exhausted levels take milliseconds; the MILP still
        // jumps over wide gaps (long durations).
        let cap = level / rel.unit;
        for up in 1..=ENUMERATED_STEPS {
            let Some(next) = cap.checked_add(up) else {
                break;
            };
            match rel.next_within(
                next,
                &nogoods,
                prefer,
                None,
                ENUMERATION_NODES,
                deadline.end,
            ) {
                Next::Choice(_) => return Proposal::Beyond(next.saturating_mul(rel.unit), None),
                Next::Exhausted => {}
                Next::Unknown => break,
            }
        }
    }
    match solve_relaxation(rel, bounds, excluded, None, deadline) {
        None => Proposal::Unsolved,
        Some(Master::Exhausted) => Proposal::Exhausted,
        // The enumeration is exact: nothing is left at the level even
        // where HiGHS's tolerances put a value there.
        Some(Master::Value(b, _)) => Proposal::Beyond(b.value.max(level + 1), Some(b.source)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(3600)
    }

    /// The relaxation of a small memory-tight instance (six ops of three
    /// tilings: 729 choices at most) with its bounds.
    fn small(seed: u64) -> (Bounds, Relaxation) {
        let cfg = crate::generate::memory_tight(seed, 6, (2, 5));
        let inst = crate::generate::generate(&cfg).unwrap().instance;
        let bounds = crate::bounds::combinatorial::lower_bounds(&inst);
        let dl = Deadline::after(Duration::from_secs(60));
        (bounds.clone(), relaxation(&inst, &bounds, &dl).unwrap())
    }

    /// The MILP reads the same rows: its optimum is the least value of a
    /// whole choice, and within a makespan it finds a choice exactly when
    /// the enumeration does.
    #[test]
    fn the_milp_and_the_enumeration_agree() {
        for seed in 1..=8 {
            let (bounds, r) = small(seed);
            let least = r.every_choice().iter().map(|c| r.value(c)).min().unwrap();
            let dl = Deadline::after(Duration::from_secs(60));
            let Some(Master::Value(b, Some(choice))) =
                solve_relaxation(&r, &bounds, &[], None, &dl)
            else {
                panic!("seed {seed}: the MILP was not solved");
            };
            assert_eq!(b.value, least * r.unit, "seed {seed}");
            let ks: Vec<u32> = (0..r.cands.len())
                .map(|o| r.cands[o].iter().position(|&t| t == choice[o]).unwrap() as u32)
                .collect();
            assert_eq!(r.value(&ks), least, "seed {seed}: its choice");
            for cap in [least - 1, least, least + 3] {
                let milp = solve_relaxation(&r, &bounds, &[], Some(cap * r.unit), &dl);
                let enumerated = r.next_within(cap, &[], None, None, u64::MAX, far());
                assert_eq!(
                    matches!(milp, Some(Master::Value(..))),
                    matches!(enumerated, Next::Choice(_)),
                    "seed {seed}, makespan {cap}"
                );
            }
        }
    }
}
