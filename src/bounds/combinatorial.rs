//! The combinatorial bounds (models/bounds.md §1-5): critical path, core
//! loads, head-body-tail per core type, Jackson's preemptive bound on
//! one-core types, memory areas, and those loads and areas coupled by the
//! tiling choice (§5a, `coupled`); energetic reasoning (§8) on top.
//!
//! Every quantity here is a minimum over an op's usable tilings, so no choice
//! of tilings can beat it; sums saturate at u64::MAX (saturating a lower
//! bound down keeps it a lower bound only if we never saturate upwards, which
//! a saturating add never does). No loop here advances a clock in u64: a
//! saturated clock would stop advancing (`jackson_preemptive` runs in u128).

use super::heads::{
    Item, div_ceil_u128, head_body_tail, intra_paths, jackson_preemptive, op_heads_tails,
};
use super::nogoods::TilingNogoods;
use super::{Bound, Bounds};
use crate::instance::Instance;

/// Per op, over its usable tilings: minimal critical path, minimal work per core
/// type, minimal memory area per memory type, and whether it can be empty.
struct OpMins {
    cp: Vec<u64>,
    work: Vec<Vec<u64>>,
    area: Vec<Vec<u128>>,
    can_be_empty: Vec<bool>,
}

/// The tilings of `op` a bound ranges over: its usable ones, or, when
/// `cands` is given (what refutation left, models/sat.md §1.2), those.
pub fn tilings_of(inst: &Instance, cands: Option<&[Vec<u32>]>, op: u32) -> Vec<u32> {
    match cands {
        Some(c) => c[op as usize].clone(),
        None => inst.usable_tilings(op).collect(),
    }
}

fn op_minimums(inst: &Instance, cands: Option<&[Vec<u32>]>) -> OpMins {
    let lib = &inst.library;
    let n_ops = inst.graph.n_ops();
    let n_cores = inst.platform.cores.len();
    let n_mems = inst.platform.mems.len();
    let mut cp = vec![0u64; n_ops];
    let mut work = vec![vec![0u64; n_ops]; n_cores];
    let mut area = vec![vec![0u128; n_ops]; n_mems];
    let mut can_be_empty = vec![false; n_ops];
    let mut w = vec![0u64; n_cores];
    let mut a = vec![0u128; n_mems];
    for op in 0..n_ops as u32 {
        let mut first = true;
        for t in tilings_of(inst, cands, op) {
            let tl = &lib.tilings[t as usize];
            lib.core_work(t, &mut w);
            lib.mem_area(t, &mut a);
            let o = op as usize;
            if first {
                cp[o] = tl.critical_path;
                for c in 0..n_cores {
                    work[c][o] = w[c];
                }
                for m in 0..n_mems {
                    area[m][o] = a[m];
                }
                first = false;
            } else {
                cp[o] = cp[o].min(tl.critical_path);
                for c in 0..n_cores {
                    work[c][o] = work[c][o].min(w[c]);
                }
                for m in 0..n_mems {
                    area[m][o] = area[m][o].min(a[m]);
                }
            }
            if tl.n_nodes == 0 {
                can_be_empty[o] = true;
            }
        }
    }
    OpMins {
        cp,
        work,
        area,
        can_be_empty,
    }
}

/// Computes every bound. Instances with an op that has no usable tiling get 0
/// (they are infeasible; that verdict is reported separately).
pub fn lower_bounds(inst: &Instance) -> Bounds {
    lower_bounds_over(inst, None)
}

/// Every combinatorial bound over the given candidates per op (`None`: every
/// usable tiling). Candidates must keep an optimal schedule: the undominated
/// tilings less those no legal schedule uses (models/sat.md §1).
pub fn lower_bounds_over(inst: &Instance, cands: Option<&[Vec<u32>]>) -> Bounds {
    Shared::new(inst).bounds_over(cands, true)
}

/// The bounds of one tiling choice after another (`choice[op]`, a library
/// tiling of each op): the bounds above with each op's candidates cut to
/// its chosen tiling. Each argument holds over any candidates that contain
/// the tilings a schedule uses (models/bounds.md, "One tiling choice"), so
/// no schedule with these tilings ends before them: `tmin check --bound`
/// tells with them how much of a schedule's gap its order can account for,
/// and the list engine's tiling moves skip a choice they rule out.
pub struct ChoiceBounds<'a> {
    shared: Shared<'a>,
}

impl<'a> ChoiceBounds<'a> {
    /// What every choice shares is computed here once.
    pub fn new(inst: &'a Instance) -> Self {
        ChoiceBounds {
            shared: Shared::new(inst),
        }
    }

    /// Every combinatorial bound for `choice`.
    pub fn all(&self, choice: &[u32]) -> Bounds {
        self.shared.bounds_over(Some(&one_each(choice)), true)
    }

    /// The bound for `choice`'s schedules given a bound `instance` of every
    /// schedule (the instance's, or a reference T_min): the higher of that
    /// one and `all`'s best, `instance` on a tie (it names the argument the
    /// caller reports for the instance).
    pub fn at_least(&self, choice: &[u32], instance: Bound) -> Bound {
        let own = self.all(choice).best;
        if own.value > instance.value {
            own
        } else {
            instance
        }
    }

    /// `all` without energetic reasoning: bounds 1-5 only, in time linear
    /// in the choice's tilings and the graph (up to a sort), for a search
    /// that asks for every move it draws (energetic reasoning on small
    /// graphs took 8-150 ms a call).
    pub fn quick(&self, choice: &[u32]) -> Bounds {
        self.shared.bounds_over(Some(&one_each(choice)), false)
    }
}

/// Each op's candidates cut to its chosen tiling.
fn one_each(choice: &[u32]) -> Vec<Vec<u32>> {
    choice.iter().map(|&t| vec![t]).collect()
}

/// What the bounds take from the instance alone, whatever the candidates:
/// the library's intra-tiling paths and the op graph's topological order.
struct Shared<'a> {
    inst: &'a Instance,
    paths: (Vec<u64>, Vec<u64>),
    order: Vec<u32>,
}

impl<'a> Shared<'a> {
    fn new(inst: &'a Instance) -> Self {
        Shared {
            inst,
            paths: intra_paths(&inst.library),
            order: inst.graph.topo_order(),
        }
    }

    /// `lower_bounds_over`, with energetic reasoning (§8) only when
    /// `energetic`: without it every bound here takes time linear in the
    /// candidates and the graph (up to a sort), where energetic reasoning
    /// may take 0.1 s.
    fn bounds_over(&self, cands: Option<&[Vec<u32>]>, energetic: bool) -> Bounds {
        let inst = self.inst;
        let n_ops = inst.graph.n_ops();
        if !inst.ops_without_usable_tiling().is_empty() {
            let b = Bound {
                value: 0,
                source: "none (an op has no usable tiling)".into(),
            };
            return Bounds {
                all: vec![b.clone()],
                best: b,
                op_head: vec![0; n_ops],
                op_tail: vec![0; n_ops],
                nogoods: TilingNogoods::default(),
            };
        }
        let mins = op_minimums(inst, cands);
        let (head, tail) = op_heads_tails(&inst.graph, &self.order, &mins.cp, |o| {
            !mins.can_be_empty[o as usize]
        });
        let mut all = Vec::new();

        // An op that may be empty links nothing, so only the others close a chain.
        let cp = (0..n_ops)
            .filter(|&o| !mins.can_be_empty[o])
            .map(|o| head[o].saturating_add(mins.cp[o]).saturating_add(tail[o]))
            .max()
            .unwrap_or(0);
        all.push(Bound {
            value: cp,
            source: "critical path".into(),
        });

        let items = core_items(inst, cands, &head, &tail, &self.paths);
        for (c, ct) in inst.platform.cores.iter().enumerate() {
            let total: u128 = mins.work[c].iter().map(|&w| u128::from(w)).sum();
            if total == 0 || ct.count == 0 {
                continue;
            }
            let m = u128::from(ct.count);
            all.push(Bound {
                value: div_ceil_u128(total, m),
                source: format!("core type {} load", ct.id),
            });
            all.push(Bound {
                value: head_body_tail(&items[c], m),
                source: format!("core type {} head-body-tail", ct.id),
            });
            if ct.count == 1 {
                all.push(Bound {
                    value: jackson_preemptive(&items[c]),
                    source: format!("core type {} one-machine preemptive (Jackson)", ct.id),
                });
            }
        }

        for (m, mt) in inst.platform.mems.iter().enumerate() {
            let total = mins.area[m].iter().fold(0u128, |s, &a| s.saturating_add(a));
            if total == 0 || mt.size == 0 {
                continue;
            }
            all.push(Bound {
                value: div_ceil_u128(total, u128::from(mt.size)),
                source: format!("memory type {} area", mt.id),
            });
        }

        if let Some(b) = crate::bounds::coupled::bound(inst, cands) {
            all.push(b);
        }

        // Energetic reasoning starts from the best of the others: it only ever
        // raises them (models/bounds.md §8).
        let lo = all.iter().map(|b| b.value).max().unwrap_or(0);
        let res = if energetic {
            crate::bounds::energetic::resources(inst, cands, &head, &tail, &self.paths)
        } else {
            Vec::new()
        };
        if let (v, Some(src)) = crate::bounds::energetic::bound(&res, lo) {
            all.push(Bound {
                value: v,
                source: format!("{src} energetic reasoning"),
            });
        }

        let best = all
            .iter()
            .max_by_key(|b| b.value)
            .cloned()
            .unwrap_or(Bound {
                value: 0,
                source: "empty instance".into(),
            });
        Bounds {
            all,
            best,
            op_head: head,
            op_tail: tail,
            nogoods: TilingNogoods::default(),
        }
    }
}

/// Items per core type. An op with one usable tiling gives one item per node
/// (exact heads and tails); an op with several gives one item per core type with
/// the least work and the smallest head and tail over its tilings.
fn core_items(
    inst: &Instance,
    cands: Option<&[Vec<u32>]>,
    op_head: &[u64],
    op_tail: &[u64],
    (head, after): &(Vec<u64>, Vec<u64>),
) -> Vec<Vec<Item>> {
    let lib = &inst.library;
    let n_cores = inst.platform.cores.len();
    let mut items: Vec<Vec<Item>> = vec![Vec::new(); n_cores];
    let mut agg: Vec<Option<Item>> = vec![None; n_cores];
    let mut per_tiling: Vec<Option<Item>> = vec![None; n_cores];
    for op in 0..inst.graph.n_ops() as u32 {
        let (oh, ot) = (op_head[op as usize], op_tail[op as usize]);
        let tilings = tilings_of(inst, cands, op);
        if tilings.len() == 1 {
            for v in lib.tilings[tilings[0] as usize].nodes() {
                let vi = v as usize;
                let c = lib.node_core[vi] as usize;
                if lib.node_dur[vi] > 0 {
                    items[c].push(Item {
                        head: oh.saturating_add(head[vi]),
                        work: lib.node_dur[vi],
                        tail: ot.saturating_add(after[vi]),
                    });
                }
            }
            continue;
        }
        agg.iter_mut().for_each(|a| *a = None);
        for (k, &t) in tilings.iter().enumerate() {
            per_tiling.iter_mut().for_each(|a| *a = None);
            for v in lib.tilings[t as usize].nodes() {
                let vi = v as usize;
                let c = lib.node_core[vi] as usize;
                let it = per_tiling[c].get_or_insert(Item {
                    head: u64::MAX,
                    work: 0,
                    tail: u64::MAX,
                });
                it.head = it.head.min(head[vi]);
                it.tail = it.tail.min(after[vi]);
                it.work = it.work.saturating_add(lib.node_dur[vi]);
            }
            for c in 0..n_cores {
                // A tiling without work on c makes the op's least work on c zero.
                let cur = per_tiling[c].unwrap_or(Item {
                    head: 0,
                    work: 0,
                    tail: 0,
                });
                agg[c] = Some(match (k, agg[c]) {
                    (0, _) | (_, None) => cur,
                    (_, Some(a)) => Item {
                        head: a.head.min(cur.head),
                        work: a.work.min(cur.work),
                        tail: a.tail.min(cur.tail),
                    },
                });
            }
        }
        for c in 0..n_cores {
            if let Some(a) = agg[c]
                && a.work > 0
            {
                items[c].push(Item {
                    head: oh.saturating_add(a.head),
                    work: a.work,
                    tail: ot.saturating_add(a.tail),
                });
            }
        }
    }
    items
}
