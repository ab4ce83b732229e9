//! The SAT model's window net (bounds::windows, models/bounds.md §7): the
//! nodes every schedule has (ops with one candidate tiling), their edges, and
//! the unary resources among them. It gives the search a destructive lower
//! bound before the first probe and, per probed makespan, windows the encoder
//! adds as clauses under "makespan <= T" (models/sat.md §3.8).

use std::time::Instant;

use super::model::Model;
use crate::bounds::Bound;
use crate::bounds::nogoods::TilingNogoods;
use crate::bounds::timetable::Cumulative;
use crate::bounds::windows::{Net, Windows};
use crate::instance::Instance;
use crate::stop::Stop;
use crate::stop::{Deadline, instant_after};

/// Candidate nodes the bound builds a model for at most (the model takes
/// tens of bytes a node and is not interruptible).
const MAX_BOUND_NODES: u64 = 1_000_000;

/// The window net's destructive bound for `inst` on its own (the incumbent
/// step, `tmin bound`): the least makespan whose windows survive edge
/// finding and shaving, above the proven bound `lo`, by `deadline`; `None`
/// when it proves nothing more. With `below` (a legal makespan) the search
/// stops short of it: that makespan needs no refuting, and the bound stays
/// at most the optimum's largest multiple of the time unit below it.
/// It ranges over the tilings `ng` leaves (models/sat.md §1.2).
pub fn bound(
    inst: &Instance,
    ng: &TilingNogoods,
    lo: u64,
    below: Option<u128>,
    deadline: &Deadline,
) -> Option<Bound> {
    let n_ops = inst.graph.n_ops() as u32;
    if n_ops == 0 || !inst.ops_without_usable_tiling().is_empty() || deadline.expired() {
        return None;
    }
    let cands = ng.candidates(inst);
    let nodes: u64 = cands
        .iter()
        .flatten()
        .map(|&t| u64::from(inst.library.tilings[t as usize].n_nodes))
        .sum();
    if nodes > MAX_BOUND_NODES {
        return None;
    }
    let m = Model::new(inst, &cands);
    if m.horizon == 0 || m.horizon > super::MAX_TIME {
        return None;
    }
    let wn = WindowNet::new(&m)?;
    let lo = lo.div_ceil(m.g);
    // Some optimal schedule has every time a multiple of g (sat.md §1.3), so
    // with a legal makespan `ms` the optimum is at most g * floor(ms / g):
    // refuting up to floor(ms / g) - 1 units settles it.
    let cap = below.map_or(u128::from(m.horizon), |ms| ms / u128::from(m.g));
    let hi = cap.min(u128::from(m.horizon)) as u64;
    if lo >= hi {
        return None;
    }
    let b = wn.destructive_bound(lo as i64, hi as i64 - 1, deadline.end) as u64;
    (b > lo).then(|| Bound {
        value: b.saturating_mul(m.g),
        source: refuted(u128::from(b - 1) * u128::from(m.g)),
    })
}

/// The source of a bound the window net proved by refuting makespan `t`.
pub fn refuted(t: u128) -> String {
    format!(
        "window net (edge finding, timetables, shaving): no schedule with makespan <= {t} (models/bounds.md §7)"
    )
}

/// Net tasks of more than this many nodes are not shaved (each shaving step
/// propagates the whole net); they still propagate.
const MAX_SHAVE_TASKS: usize = 4000;

pub struct WindowNet {
    net: Net,
    /// Net task -> model node (`None`: an op's end, a zero-duration hub that
    /// links its sinks to the sources of its successor ops).
    node: Vec<Option<u32>>,
    head: Vec<i64>,
    tail: Vec<i64>,
}

impl WindowNet {
    /// The net of `m`'s mandatory nodes; `None` when it has no resource that
    /// can overload (then it knows nothing the heads and tails do not).
    pub fn new(m: &Model) -> Option<WindowNet> {
        let mandatory =
            |op: u32| m.fixed(op) && m.slots[m.op_slots[op as usize].start as usize].n > 0;
        let mut task_of = vec![u32::MAX; m.nodes.len()];
        let (mut dur, mut node, mut head, mut tail) = (vec![], vec![], vec![], vec![]);
        for (v, nd) in m.nodes.iter().enumerate() {
            if mandatory(m.slots[nd.slot as usize].op) {
                task_of[v] = dur.len() as u32;
                dur.push(nd.dur as i64);
                node.push(Some(v as u32));
                head.push(nd.head as i64);
                tail.push(nd.tail as i64);
            }
        }
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for v in 0..m.nodes.len() as u32 {
            if task_of[v as usize] != u32::MAX {
                edges.extend(
                    m.intra_succs(v)
                        .map(|w| (task_of[v as usize], task_of[w as usize])),
                );
            }
        }
        for a in 0..m.op_slots.len() as u32 {
            if !m.present(a) || !mandatory(a) {
                continue;
            }
            let succs: Vec<u32> = m.op_succs(a).filter(|&b| mandatory(b)).collect();
            if succs.is_empty() {
                continue;
            }
            let hub = dur.len() as u32;
            dur.push(0);
            node.push(None);
            head.push(0);
            tail.push(0);
            let sa = m.op_slots[a as usize].start;
            edges.extend(m.sinks(sa).map(|x| (task_of[x as usize], hub)));
            for b in succs {
                let sb = m.op_slots[b as usize].start;
                edges.extend(m.sources(sb).map(|z| (hub, task_of[z as usize])));
            }
        }
        let net =
            Net::new(dur, &edges, resources(m, &task_of))?.with_cumulative(cumulative(m, &task_of));
        net.has_resources().then_some(WindowNet {
            net,
            node,
            head,
            tail,
        })
    }

    /// Windows of every schedule of makespan `<= t` (scaled), shaved (at
    /// most `rounds` rounds, until `until`) when asked; `None` proves there
    /// is no such schedule.
    pub fn at(&self, t: i64, shave: Option<(usize, Stop)>) -> Option<Windows> {
        let mut w = Windows {
            est: self.head.clone(),
            lct: self.tail.iter().map(|&q| t - q).collect(),
        };
        let ok = match shave {
            Some((rounds, until)) if self.net.len() <= MAX_SHAVE_TASKS => {
                self.net.shave(&mut w, rounds, until)
            }
            _ => self.net.propagate(&mut w),
        };
        ok.then_some(w)
    }

    /// (model node, earliest start, latest start) of every node the windows
    /// tighten beyond its static head and tail at `t`.
    pub fn tightened<'w>(
        &'w self,
        w: &'w Windows,
        t: i64,
    ) -> impl Iterator<Item = (u32, i64, i64)> + 'w {
        (0..self.net.len()).filter_map(move |i| {
            let v = self.node[i]?;
            let lst = w.lct[i] - self.net.dur[i];
            let static_lst = t - self.tail[i] - self.net.dur[i];
            (w.est[i] > self.head[i] || lst < static_lst).then_some((v, w.est[i], lst))
        })
    }

    /// The least `T` in `[lo, hi]` whose windows do not empty, or `hi + 1`;
    /// stops at `until` with the least value proven so far. No schedule of
    /// makespan `<= T` means none below it either. Deepening: a binary
    /// search with propagation alone (cheap), then with one round of shaving,
    /// two, four, and to a fixpoint, each galloping up from the last bound
    /// (the bound is usually a little above; shaving far above it only costs)
    /// and bisecting its last step. A short `until` gets the cheap bounds.
    pub fn destructive_bound(&self, lo: i64, hi: i64, until: Instant) -> i64 {
        let mut a = lo;
        for rounds in [0, 1, 2, 4, usize::MAX] {
            if a > hi || Instant::now() >= until {
                break;
            }
            let survives = |t: i64| {
                let shave = (rounds > 0).then(|| {
                    // The probe's share of what is left: a few probes in all.
                    let share = until.saturating_duration_since(Instant::now()) / 4;
                    (rounds, Stop::at(instant_after(Instant::now(), share)))
                });
                self.at(t, shave).is_some()
            };
            // [a, b): the bound lies here; b survives (or is hi + 1).
            let mut b = hi + 1;
            let mut step = 1;
            while a <= hi && Instant::now() < until {
                let t = (a + step - 1).min(hi);
                if survives(t) {
                    b = t;
                    break;
                }
                a = t + 1;
                step *= 2;
            }
            while a < b && Instant::now() < until {
                let t = a + (b - a) / 2;
                if survives(t) {
                    b = t;
                } else {
                    a = t + 1;
                }
            }
        }
        a
    }
}

/// Unary resources of the mandatory nodes: each one-core type, and per memory
/// type the nodes demanding more than half of it (two of them never run at
/// one instant: a hold covers at least the run, problem.md §4.4).
fn resources(m: &Model, task_of: &[u32]) -> Vec<Vec<u32>> {
    let p = &m.inst.platform;
    let mut by_core: Vec<Vec<u32>> = vec![Vec::new(); p.cores.len()];
    let mut by_mem: Vec<Vec<u32>> = vec![Vec::new(); p.mems.len()];
    for (v, nd) in m.nodes.iter().enumerate() {
        let t = task_of[v];
        if t == u32::MAX || nd.dur == 0 {
            continue;
        }
        if p.cores[nd.core as usize].count == 1 {
            by_core[nd.core as usize].push(t);
        }
        for (mt, list) in by_mem.iter_mut().enumerate() {
            let d = u128::from(m.demand(v as u32, mt as _));
            if 2 * d > u128::from(p.mems[mt].size) {
                list.push(t);
            }
        }
    }
    by_core.into_iter().chain(by_mem).collect()
}

/// Cumulative resources of the mandatory nodes: each core type of several
/// cores (demand 1 over the run), and each memory type (its demand over the
/// hold, which lasts until every successor demanding the type has started:
/// problem.md §4 rule 4, the intra-op successors and, from a sink, the
/// sources of the successor ops).
fn cumulative(m: &Model, task_of: &[u32]) -> Vec<Cumulative> {
    let p = &m.inst.platform;
    let mut by_core: Vec<Cumulative> = p
        .cores
        .iter()
        .map(|c| Cumulative {
            capacity: u64::from(c.count),
            ..Cumulative::default()
        })
        .collect();
    let mut by_mem: Vec<Cumulative> = p
        .mems
        .iter()
        .map(|mt| Cumulative {
            capacity: mt.size,
            ..Cumulative::default()
        })
        .collect();
    for (v, nd) in m.nodes.iter().enumerate() {
        let t = task_of[v];
        if t == u32::MAX {
            continue;
        }
        let c = &mut by_core[nd.core as usize];
        if c.capacity > 1 && nd.dur > 0 {
            c.tasks.push(t);
            c.demand.push(1);
            c.handover.push(Vec::new());
        }
        for (mt, c) in by_mem.iter_mut().enumerate() {
            let d = m.demand(v as u32, mt as _);
            if d == 0 {
                continue;
            }
            // Only the mandatory successors (tasks of the net): those of
            // ops with a single candidate.
            let handover: Vec<u32> = m
                .mem_succs(v as u32, mt as _)
                .map(|(y, _)| task_of[y as usize])
                .filter(|&t| t != u32::MAX)
                .collect();
            if nd.dur == 0 && handover.is_empty() {
                continue; // holds nothing
            }
            c.tasks.push(t);
            // A demand above the size is refused before any engine runs;
            // the cap keeps the check exact either way (it then overloads).
            c.demand.push(d.min(c.capacity.saturating_add(1)));
            c.handover.push(handover);
        }
    }
    by_core.into_iter().chain(by_mem).collect()
}
