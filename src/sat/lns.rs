//! Large-neighbourhood search with the SAT engine as the exact sub-solver
//! (models/sat.md §9). One encoding (over every candidate tiling where that
//! fits, see `improve`'s epochs), asked again and again for a schedule
//! shorter than the incumbent under *assumptions*
//! that keep most of the incumbent: the tiling of every op but a few freed
//! ones, and the order of every pair of their nodes that share a one-core
//! type or clash on memory. Start times all stay free (the fixed nodes keep
//! their order, not their instants), so the makespan can shrink anywhere;
//! the freed ops' tilings and places are the solver's to choose. Assumptions
//! leave the clauses alone: learned clauses and lazy cuts carry over from one
//! neighbourhood to the next.
//!
//! An UNSAT answer under assumptions concerns that neighbourhood only: it is
//! never a bound of the instance and never reported as one. Every schedule
//! kept has passed the validator.

use std::time::{Duration, Instant};

use varisat::Lit;

use super::encode::{Answer, Encoder, L, Orders};
use super::model::Model;
use super::{encode_within, to_schedule};
use crate::bounds::nogoods::TilingNogoods;
use crate::graph::NodeGraph;
use crate::instance::Instance;
use crate::rng::SplitMix64;
use crate::schedule::{Schedule, check};
use crate::stop::CpuTimer;
use crate::stop::Deadline;

/// First time a neighbourhood gets; it grows when neighbourhoods run out of
/// time and shrinks when they are settled quickly.
const FIRST_SUB_TIME: Duration = Duration::from_millis(200);
const MIN_SUB_TIME: Duration = Duration::from_millis(30);
const MAX_SUB_TIME: Duration = Duration::from_secs(2);

/// Ops freed at once at most.
const MAX_FREED: usize = 12;

/// Neighbourhoods in a row without a better schedule before the search gives
/// up early.
const GIVE_UP_AFTER: usize = 200;

/// What a search did, for the notes.
#[derive(Clone, Debug, Default)]
pub struct LnsStats {
    /// Neighbourhoods that gave a better schedule, that had none (UNSAT under
    /// their assumptions), that ran out of time.
    pub improved: usize,
    pub exhausted: usize,
    pub timed_out: usize,
    /// The largest number of ops freed at once.
    pub max_freed: usize,
    /// Schedules of the incumbent's makespan taken in its place (the
    /// time-window search's sideways neighbourhoods).
    pub sideways: usize,
    /// Kicks of a stalled chain (the time-window search, `lns_windows`).
    pub kicks: usize,
}

/// The signature both neighbourhood searches share (`improve` here and in
/// `lns_windows`): instance, incumbent, proven bound, deadline, seed, memory
/// budget; a better schedule if one was found, and what the search did.
/// `improve` of `lns` or `lns_windows`: (instance, refuted tiling choices,
/// incumbent, proven bound, deadline, seed, memory budget).
pub type Improve = fn(
    &Instance,
    &TilingNogoods,
    &Schedule,
    u64,
    &Deadline,
    u64,
    u64,
) -> (Option<Schedule>, LnsStats);

/// Whether one encoding over every candidate tiling, for makespans below
/// `incumbent`'s, fits the search's budget: where it does not, each
/// neighbourhood needs an encoding of its own (`lns_windows`).
pub fn whole_fits(inst: &Instance, incumbent: &Schedule, budget: u64) -> bool {
    let Ok(g) = NodeGraph::new(inst, incumbent.choice.clone()) else {
        return false;
    };
    let makespan = incumbent.makespan(&g);
    super::fits_bytes(inst, Some(makespan), budget.min(LNS_BUDGET)).is_ok()
}

/// The incumbent as the encoding sees it: each op's slot and each selected
/// node's start.
pub(super) struct Incumbent {
    pub(super) slot_of_op: Vec<u32>,
    /// Per model node; meaningful for nodes of selected slots.
    pub(super) start: Vec<u64>,
    makespan: u128,
    schedule: Schedule,
}

/// A schedule shorter than `start`, found by neighbourhoods of a few freed ops
/// at a time, until `deadline`, a makespan of `lo` (a proven bound) or
/// `GIVE_UP_AFTER` fruitless neighbourhoods; `None` when nothing better was
/// found.
///
/// The search runs in epochs. An epoch's encoding offers every candidate
/// tiling to a set of ops (all flexible ops when that fits the budget, else a
/// random half, quarter, ... of them) and the incumbent's tiling to the rest;
/// a new epoch (an encoding for the new incumbent's makespan, with a new
/// random set when not all fit) starts after `EPOCH_FRUITLESS` fruitless
/// neighbourhoods in a row, or after the makespan fell by a tenth (a smaller
/// horizon, a smaller encoding).
pub fn improve(
    inst: &Instance,
    ng: &TilingNogoods,
    start: &Schedule,
    lo: u64,
    deadline: &Deadline,
    seed: u64,
    budget: u64,
) -> (Option<Schedule>, LnsStats) {
    let mut stats = LnsStats::default();
    let n_ops = inst.graph.n_ops();
    let all = ng.candidates(inst);
    let flexible: Vec<u32> = (0..n_ops as u32)
        .filter(|&o| all[o as usize].len() > 1)
        .collect();
    let budget = budget.min(LNS_BUDGET);
    let mut rng = SplitMix64::new(seed);
    let mut best = start.clone();
    let mut found = false;
    let mut fruitless = 0usize;
    // The share of the flexible ops an epoch offers every tiling to.
    let mut share = flexible.len();
    while !deadline.expired() && fruitless < GIVE_UP_AFTER {
        let offered: Vec<u32> = pick(&flexible, share, &mut rng);
        let mut is_offered = vec![false; n_ops];
        for &o in &offered {
            is_offered[o as usize] = true;
        }
        let cand = offer(&all, &best, |o| is_offered[o]);
        let mut m = Model::new(inst, &cand);
        m.forbid(ng);
        match epoch(
            &m, &best, lo, deadline, budget, &offered, &mut rng, &mut stats,
        ) {
            Epoch::Encoding => {
                if share == 0 {
                    break; // not even the incumbent's own choice fits
                }
                share /= 2;
            }
            Epoch::Done {
                better,
                fruitless: f,
            } => {
                if let Some(b) = better {
                    best = b;
                    found = true;
                    fruitless = 0;
                } else {
                    fruitless += f;
                }
                if f > 0 && share == flexible.len() && fruitless >= GIVE_UP_AFTER / 2 {
                    break; // every tiling offered, and nothing pays any more
                }
            }
            Epoch::Optimal(b) => {
                best = b;
                found = true;
                break;
            }
        }
    }
    log::debug!("lns: {stats:?}");
    (found.then_some(best), stats)
}

/// How an epoch ended.
enum Epoch {
    /// Its encoding does not fit the budget (or the horizon).
    Encoding,
    /// A better schedule, or none, after this many fruitless
    /// neighbourhoods in a row at its end.
    Done {
        better: Option<Schedule>,
        fruitless: usize,
    },
    /// A schedule at the proven bound.
    Optimal(Schedule),
}

/// Fruitless neighbourhoods in a row that end an epoch.
const EPOCH_FRUITLESS: usize = 40;

/// Most bytes an epoch's encoding may take: small encodings answer faster.
const LNS_BUDGET: u64 = 256 << 20;

/// One epoch over the model `m` (the incumbent's tilings, every candidate of
/// the ops in `offered`).
#[allow(clippy::too_many_arguments)]
fn epoch(
    m: &Model,
    start: &Schedule,
    lo: u64,
    deadline: &Deadline,
    budget: u64,
    offered: &[u32],
    rng: &mut SplitMix64,
    stats: &mut LnsStats,
) -> Epoch {
    let Some(mut inc) = incumbent_of(m, start) else {
        return Epoch::Encoding;
    };
    let g = u128::from(m.g);
    let first = inc.makespan;
    let tmax = inc.makespan.div_ceil(g).saturating_sub(1);
    let lo_units = u128::from(lo).div_ceil(g);
    if tmax < lo_units {
        return Epoch::Optimal(inc.schedule);
    }
    if tmax > u128::from(m.horizon) {
        return Epoch::Encoding;
    }
    let Some(mut enc) = encode_within(
        m,
        tmax as u64,
        budget,
        deadline.end,
        deadline,
        Orders::Clauses,
    ) else {
        return Epoch::Encoding;
    };
    let n_ops = m.op_slots.len();
    let all_ops: Vec<u32> = (0..n_ops as u32).collect();
    let mut improved = false;
    let mut k = 1usize;
    let mut sub_time = FIRST_SUB_TIME;
    let mut fruitless = 0usize;
    while !deadline.expired() && fruitless < EPOCH_FRUITLESS {
        if inc.makespan.div_ceil(g) <= lo_units {
            return Epoch::Optimal(inc.schedule);
        }
        // A new epoch when the makespan fell by a tenth: a smaller encoding.
        if improved && inc.makespan * 10 < first * 9 {
            break;
        }
        // Half the neighbourhoods free ops whose tilings may change, half
        // any ops (their orders).
        let pool = if !offered.is_empty() && rng.below(2) == 0 {
            offered
        } else {
            &all_ops
        };
        let freed = pick(pool, k, rng);
        stats.max_freed = stats.max_freed.max(freed.len());
        let assumptions = assume(&enc, &inc, &freed);
        let t = (inc.makespan.div_ceil(g) - 1) as i64;
        let t0 = Instant::now();
        // An effort of this thread's CPU time (src/stop.rs): the
        // neighbourhoods' sizes adapt to the work they need, not to the load.
        let cpu = CpuTimer::start();
        match enc.decide(t, &assumptions, deadline.stop_after(sub_time)) {
            Answer::Sat(d) => {
                let s = to_schedule(m, &d);
                let Some(ms) = validated(m.inst, &s) else {
                    log::warn!("lns: a model failed the validator; epoch stopped");
                    break;
                };
                log::debug!(
                    "lns: {} -> {ms} with {} ops freed in {:.3} s",
                    inc.makespan,
                    freed.len(),
                    t0.elapsed().as_secs_f64()
                );
                inc = Incumbent {
                    slot_of_op: d.slot_of_op.clone(),
                    start: d.start.clone(),
                    makespan: ms,
                    schedule: s,
                };
                improved = true;
                stats.improved += 1;
                fruitless = 0;
            }
            Answer::Unsat => {
                log::debug!(
                    "lns: exhausted in {:.3} s with {} freed",
                    t0.elapsed().as_secs_f64(),
                    freed.len()
                );
                stats.exhausted += 1;
                fruitless += 1;
                // Settled quickly: larger neighbourhoods are affordable.
                if k < MAX_FREED.min(n_ops) {
                    k += 1;
                }
                if cpu.elapsed() < sub_time / 4 {
                    sub_time = (sub_time * 3 / 4).max(MIN_SUB_TIME);
                }
            }
            Answer::Interrupted => {
                stats.timed_out += 1;
                fruitless += 1;
                k = k.saturating_sub(1).max(1);
                sub_time = (sub_time * 5 / 4).min(MAX_SUB_TIME);
                log::debug!(
                    "lns: timed out after {:.3} s with {} freed",
                    t0.elapsed().as_secs_f64(),
                    freed.len()
                );
            }
            Answer::OverBudget => break,
        }
    }
    Epoch::Done {
        better: improved.then_some(inc.schedule),
        fruitless,
    }
}

/// The incumbent in the model's terms; `None` if some op's tiling has no slot
/// (cannot happen: the incumbent's tilings are candidates).
pub(super) fn incumbent_of(m: &Model, s: &Schedule) -> Option<Incumbent> {
    let g = NodeGraph::new(m.inst, s.choice.clone()).ok()?;
    let makespan = s.makespan(&g);
    let mut slot_of_op = Vec::with_capacity(s.choice.len());
    let mut start = vec![0u64; m.nodes.len()];
    let mut i = 0usize;
    for (o, &t) in s.choice.iter().enumerate() {
        let slot = m.op_slots[o]
            .clone()
            .find(|&sl| m.slots[sl as usize].tiling == t)?;
        let sl = &m.slots[slot as usize];
        for v in sl.first..sl.first + sl.n {
            start[v as usize] = *s.start.get(i)?;
            i += 1;
        }
        slot_of_op.push(slot);
    }
    Some(Incumbent {
        slot_of_op,
        start,
        makespan,
        schedule: s.clone(),
    })
}

/// Assumptions keeping the incumbent but for the ops in `freed`: their
/// tilings, and the order of each pair of nodes of kept ops.
fn assume(enc: &Encoder, inc: &Incumbent, freed: &[u32]) -> Vec<Lit> {
    let m = &enc.m;
    let mut kept = vec![true; inc.slot_of_op.len()];
    for &o in freed {
        kept[o as usize] = false;
    }
    let mut out = Vec::new();
    for (o, &slot) in inc.slot_of_op.iter().enumerate() {
        if kept[o]
            && slot != u32::MAX
            && let L::Lit(l) = enc.sel[slot as usize]
        {
            out.push(l);
        }
    }
    let selected = |v: u32| {
        let op = m.op_of(v) as usize;
        kept[op] && inc.slot_of_op[op] == m.nodes[v as usize].slot
    };
    for &(u, v, lit) in &enc.pairs {
        if selected(u) && selected(v) {
            out.push(if inc.start[u as usize] < inc.start[v as usize] {
                lit
            } else {
                !lit
            });
        }
    }
    out
}

/// Candidate tilings per op for a neighbourhood's model: every candidate
/// (`all`) for the ops `offered`, the incumbent's own tiling for the rest.
pub(super) fn offer(
    all: &[Vec<u32>],
    incumbent: &Schedule,
    offered: impl Fn(usize) -> bool,
) -> Vec<Vec<u32>> {
    (0..all.len())
        .map(|o| {
            let mine = incumbent.choice[o];
            let mut c = if offered(o) {
                all[o].clone()
            } else {
                Vec::new()
            };
            if !c.contains(&mine) {
                c.push(mine);
            }
            c
        })
        .collect()
}

/// The makespan of `s` if it passes the validator.
pub(super) fn validated(inst: &Instance, s: &Schedule) -> Option<u128> {
    let g = NodeGraph::new(inst, s.choice.clone()).ok()?;
    check(&g, s, 1).is_empty().then(|| s.makespan(&g))
}

/// `k` distinct ops of `pool`, at random.
pub(super) fn pick(pool: &[u32], k: usize, rng: &mut SplitMix64) -> Vec<u32> {
    let k = k.min(pool.len());
    let mut p = pool.to_vec();
    for i in 0..k {
        let j = i + rng.below((p.len() - i) as u64) as usize;
        p.swap(i, j);
    }
    p.truncate(k);
    p
}
