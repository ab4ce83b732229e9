//! The window net inside the encoding (models/bounds.md §7, models/sat.md
//! §3.9-3.10): windows as clauses under a makespan, shaving, and the
//! edge-finding and timetable propagators installed in the solver.

use super::*;

impl<'m, 'a> Encoder<'m, 'a> {
    /// From now on, every "makespan <= T" literal brings the windows of the
    /// net at T (propagated; shaved on the share `makespan_le_shaved` gives),
    /// starting with the encoding's own horizon, where they hold
    /// unconditionally.
    pub fn use_windows(&mut self, wn: crate::sat::windows::WindowNet) {
        self.windows = Some((wn, std::time::Duration::ZERO));
        self.window_clauses(self.tmax, L::T);
    }

    /// The node's start as the propagators read it (`None`: never selected).
    pub(super) fn task(&self, v: u32) -> Option<crate::sat::disjunctive::Task> {
        let x = self.start[v as usize];
        let sel = match self.node_sel(v) {
            L::T => None,
            L::F => return None,
            L::Lit(l) => Some(l),
        };
        Some(crate::sat::disjunctive::Task {
            base: x.base,
            lo: x.lo,
            n: (x.ihi - x.ilo) as u32,
            dur: self.m.nodes[v as usize].dur as i64,
            sel,
        })
    }

    /// What the timetable propagator reads (sat/holds.rs): per memory type,
    /// the nodes demanding it with their successors demanding it (the
    /// release rule); per core type with several cores, its nodes of
    /// positive duration, each holding one core while it runs.
    pub(super) fn hold_resources(&self) -> Vec<crate::sat::holds::Resource> {
        use crate::sat::holds::{Holder, Resource};
        let m = &self.m;
        let mut types = vec![];
        for &mt in &self.mem_types {
            let nodes: Vec<(u32, crate::sat::disjunctive::Task)> = (0..m.nodes.len() as u32)
                .filter(|&v| m.demand(v, mt) > 0)
                .filter_map(|v| Some((v, self.task(v)?)))
                .collect();
            let index: std::collections::HashMap<u32, u32> = nodes
                .iter()
                .enumerate()
                .map(|(k, &(v, _))| (v, k as u32))
                .collect();
            let holders = nodes
                .into_iter()
                .map(|(v, start)| {
                    let mut succs = vec![];
                    self.for_each_mem_succ(v, mt, |y, ys| {
                        let sel = match ys {
                            L::F => return,
                            L::T => None,
                            L::Lit(l) => Some(l),
                        };
                        if let Some(&k) = index.get(&y) {
                            succs.push((k, sel));
                        }
                    });
                    Holder {
                        start,
                        demand: m.demand(v, mt),
                        succs,
                    }
                })
                .collect();
            types.push(Resource {
                size: m.inst.platform.mems[mt as usize].size,
                holders,
            });
        }
        for (c, ct) in m.inst.platform.cores.iter().enumerate() {
            if ct.count <= 1 {
                continue;
            }
            let holders = (0..m.nodes.len() as u32)
                .filter(|&v| m.nodes[v as usize].core as usize == c && m.nodes[v as usize].dur > 0)
                .filter_map(|v| {
                    Some(Holder {
                        start: self.task(v)?,
                        demand: 1,
                        succs: vec![],
                    })
                })
                .collect();
            types.push(Resource {
                size: u64::from(ct.count),
                holders,
            });
        }
        types
    }

    /// From now on, the solver learns clauses during its search from the
    /// propagators `want` names: overload and edge finding on one-core types
    /// (sat/disjunctive.rs, models/sat.md §3.9), memory timetabling under
    /// the release rule (sat/holds.rs, §3.10). Only over every instant
    /// (event points would need bounds rounded to points) and not under
    /// `--certify` (those clauses are not in the certified CNF). Returns the
    /// ones installed (those with something to look at).
    pub fn use_propagators(&mut self, want: Lazy) -> Lazy {
        use crate::sat::disjunctive::Disjunctive;
        use crate::sat::holds::Holds;
        let mut got = Lazy::NONE;
        if !self.pts.is_every() {
            return got;
        }
        let mut chain: Vec<Box<dyn varisat::external::ExternalPropagator>> = vec![];
        if want.edge_finding {
            let groups = self.m.one_core_groups();
            let prop = Disjunctive::new(
                groups
                    .into_iter()
                    .map(|list| list.into_iter().filter_map(|v| self.task(v)).collect())
                    .collect(),
            );
            if !prop.is_empty() {
                self.edge_finding = Some(prop.counts.clone());
                got.edge_finding = true;
                chain.push(Box::new(prop));
            }
        }
        if want.holds {
            let types = self.hold_resources();
            let prop = Holds::new(types);
            if !prop.is_empty() {
                self.holds = Some(prop.counts.clone());
                got.holds = true;
                chain.push(Box::new(prop));
            }
        }
        if !chain.is_empty() {
            self.solver.set_propagator(Chain(chain));
        }
        got
    }

    /// The horizon's windows again, shaved for up to `share` (as units).
    pub fn shave_horizon(&mut self, share: std::time::Duration) {
        if let Some(w) = self.windows.as_mut() {
            w.1 = share;
            self.window_clauses(self.tmax, L::T);
        }
        if let Some(w) = self.windows.as_mut() {
            w.1 = std::time::Duration::ZERO;
        }
    }

    /// The window net's destructive bound in `[lo, hi]` (sat/windows.rs),
    /// if the encoding has a net.
    pub fn window_bound(&self, lo: i64, hi: i64, until: Instant) -> Option<i64> {
        self.windows
            .as_ref()
            .map(|(wn, _)| wn.destructive_bound(lo, hi, until))
    }

    /// `makespan_le(t)` with its windows shaved for up to `share` (once: a
    /// literal's windows are added when it is created).
    pub fn makespan_le_shaved(&mut self, t: i64, share: std::time::Duration) -> L {
        let before = self.windows.as_ref().map(|w| w.1);
        if let Some(w) = self.windows.as_mut() {
            w.1 = share;
        }
        let l = self.makespan_le(t);
        if let (Some(w), Some(b)) = (self.windows.as_mut(), before) {
            w.1 = b;
        }
        l
    }

    /// The windows of every schedule with makespan <= `t` as clauses under
    /// `lit` (models/sat.md §3.8): `lit -> start >= est` and `lit -> start <= lst`
    /// for each node they tighten; `lit` is false when a window empties.
    pub(super) fn window_clauses(&mut self, t: i64, lit: L) {
        let Some((wn, share)) = self.windows.take() else {
            return;
        };
        match wn.at(
            t,
            (share > std::time::Duration::ZERO).then(|| {
                (
                    usize::MAX,
                    Stop::at(crate::stop::instant_after(Instant::now(), share)),
                )
            }),
        ) {
            None => {
                self.stats.window_refutations += 1;
                self.clause(&[!lit]);
            }
            Some(w) => {
                let tight: Vec<(u32, i64, i64)> = wn.tightened(&w, t).collect();
                for (v, est, lst) in tight {
                    let x = self.start[v as usize];
                    let sel = self.node_sel(v);
                    self.clause(&[!lit, !sel, !self.le(x, est - 1)]);
                    self.clause(&[!lit, !sel, self.le(x, lst)]);
                }
            }
        }
        self.windows = Some((wn, share));
    }

    /// Windows of one tiling choice (model node, earliest and latest start)
    /// as clauses under a fresh literal, which is returned: it is to be
    /// assumed only with that choice's selectors and the makespan the
    /// windows hold for; left false, the clauses constrain nothing.
    pub fn windows_under_fresh(&mut self, windows: &[(u32, i64, i64)]) -> Lit {
        let a = self.new_var();
        let lit = L::Lit(a);
        for &(v, est, lst) in windows {
            let x = self.start[v as usize];
            let sel = self.node_sel(v);
            self.clause(&[!lit, !sel, !self.le(x, est - 1)]);
            self.clause(&[!lit, !sel, self.le(x, lst)]);
        }
        a
    }
}
