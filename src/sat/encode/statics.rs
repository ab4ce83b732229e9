//! The static clauses of the encoding (models/sat.md §3): tiling selectors,
//! start windows, precedence inside tilings and along op edges, one-core
//! orders, and the memory pairs that can never hold together.

use super::*;

impl<'m, 'a> Encoder<'m, 'a> {
    /// Selector literals per op: at least one candidate, at most one (pairwise); a
    /// single candidate is the constant true (models/sat.md §3.2); no refuted
    /// combination of candidates all together (§1.2).
    pub(super) fn selectors(&mut self) {
        let m = self.m.clone();
        // Selectors.
        for op in 0..m.op_slots.len() as u32 {
            let r = m.op_slots[op as usize].clone();
            if r.is_empty() {
                continue; // absent op
            }
            if r.len() == 1 {
                self.sel.push(L::T);
            } else {
                let lits: Vec<L> = r.clone().map(|_| L::Lit(self.new_var())).collect();
                self.clause(&lits);
                for i in 0..lits.len() {
                    for j in i + 1..lits.len() {
                        self.clause(&[!lits[i], !lits[j]]);
                    }
                }
                self.sel.extend(lits);
            }
        }
        // Refuted tiling combinations (models/sat.md §1.2).
        for set in &m.nogoods {
            let lits: Vec<L> = set.iter().map(|&s| !self.sel[s as usize]).collect();
            self.clause(&lits);
        }
    }

    /// Order-encoded starts of every node within its window (models/sat.md §2, §3.1).
    pub(super) fn starts(&mut self) {
        let m = self.m.clone();
        let tmax = self.tmax;
        // Starts. A start is at most `max_start` (in units): starts are u64 in
        // time, and only schedules that can be written count (models/sat.md 1.7).
        let max_start = i64::try_from(u64::MAX / m.g).unwrap_or(i64::MAX);
        for v in 0..m.nodes.len() {
            if self.halted() {
                return;
            }
            let nd = &m.nodes[v];
            let lo = nd.head as i64;
            let hi = (tmax - nd.tail as i64 - nd.dur as i64).min(max_start);
            let x = self.new_int(lo, hi);
            self.start.push(x);
            if !self.any_point(lo, hi) {
                let s = self.node_sel(v as u32);
                self.clause(&[!s]);
            }
        }
    }

    /// Intra-tiling precedence (models/sat.md §3.3).
    pub(super) fn intra_precedence(&mut self) {
        let m = self.m.clone();
        // Intra-tiling precedence (unconditional: an unselected tiling can keep
        // every node at its earliest start, which satisfies them).
        for v in 0..m.nodes.len() as u32 {
            if self.halted() {
                return;
            }
            let p = m.nodes[v as usize].dur as i64;
            let succs: Vec<u32> = m.intra_succs(v).collect();
            for w in succs {
                self.le_imp(self.start[w as usize], self.start[v as usize], p, &[]);
            }
        }
    }

    /// Op edges through `F` (end of an op's sinks) and `G` (start of its successor's
    /// sources), at op level (models/sat.md §3.4).
    pub(super) fn op_edges(&mut self) {
        let m = self.m.clone();
        let tmax = self.tmax;
        // Op edges through F (end of op a's sinks) and G (start of op b's sources).
        for op in 0..m.op_slots.len() as u32 {
            let ou = op as usize;
            if self.halted() {
                return;
            }
            if !m.present(op) {
                continue;
            }
            if m.op_succs(op).next().is_some() {
                let (lo, hi) = m.end_window(op, tmax);
                let f = self.new_int(lo, hi);
                self.fend[ou] = Some(f);
                for s in m.op_slots[ou].clone() {
                    let sinks: Vec<u32> = m.sinks(s).collect();
                    for x in sinks {
                        let p = m.nodes[x as usize].dur as i64;
                        let c = !self.sel[s as usize];
                        self.le_imp(f, self.start[x as usize], p, &[c]);
                    }
                }
            }
            if m.op_preds(op).next().is_some() {
                let (lo, hi) = m.start_window(op, tmax);
                let gv = self.new_int(lo, hi);
                self.gstart[ou] = Some(gv);
                for s in m.op_slots[ou].clone() {
                    let sources: Vec<u32> = m.sources(s).collect();
                    for y in sources {
                        let c = !self.sel[s as usize];
                        self.le_imp(self.start[y as usize], gv, 0, &[c]);
                    }
                }
            }
        }
        for a in 0..m.op_slots.len() as u32 {
            let Some(f) = self.fend[a as usize] else {
                continue;
            };
            let succs: Vec<u32> = m.op_succs(a).collect();
            for b in succs {
                let gv = self.gstart[b as usize].expect("G exists for ops with preds");
                self.le_imp(gv, f, 0, &[]);
            }
        }
    }

    /// One-core types: pairwise order literals and transitivity (models/sat.md §3.5).
    pub(super) fn one_core_orders(&mut self) {
        let m = self.m.clone();
        // One-core types: pairwise order literals.
        for list in m.one_core_groups() {
            if self.orders_propagated(&list) {
                continue;
            }
            let n = list.len();
            // before[i][j]: "list[i] ends before list[j] starts" (None: never both selected).
            let mut before: Vec<Vec<Option<L>>> = vec![vec![None; n]; n];
            for i in 0..n {
                if self.halted() {
                    return;
                }
                for j in i + 1..n {
                    let (u, v) = (list[i], list[j]);
                    let (nu, nv) = (&m.nodes[u as usize], &m.nodes[v as usize]);
                    if m.never_together(u, v) {
                        continue;
                    }
                    let (xu, xv) = (self.start[u as usize], self.start[v as usize]);
                    let (pu, pv) = (nu.dur as i64, nv.dur as i64);
                    // Windows that cannot overlap fix the order.
                    let o = if xu.hi + pu <= xv.lo {
                        L::T
                    } else if xv.hi + pv <= xu.lo {
                        L::F
                    } else {
                        let lit = self.new_var();
                        self.pairs.push((u, v, lit));
                        let o = L::Lit(lit);
                        let (su, sv) = (self.node_sel(u), self.node_sel(v));
                        // o: u before v; not o: v before u.
                        self.le_imp(xv, xu, pu, &[!o, !su, !sv]);
                        self.le_imp(xu, xv, pv, &[o, !su, !sv]);
                        o
                    };
                    before[i][j] = Some(o);
                    before[j][i] = Some(!o);
                }
            }
            // Redundant transitivity (no 3-cycles), valid as argued in models/sat.md.
            if n <= 60 {
                for i in 0..n {
                    if self.halted() {
                        return;
                    }
                    for j in i + 1..n {
                        for k in j + 1..n {
                            let (Some(ij), Some(jk), Some(ik)) =
                                (before[i][j], before[j][k], before[i][k])
                            else {
                                continue;
                            };
                            self.clause(&[!ij, !jk, ik]);
                            self.clause(&[ij, jk, !ik]);
                        }
                    }
                }
            }
        }
    }

    /// Whether the one-core type of the nodes `list` gets no pair clauses
    /// (`Orders::Propagated`): the edge-finding propagator covers it (dense
    /// points, `disjunctive::covers` of its nodes that may be selected, as
    /// `use_propagators` gives them).
    pub(super) fn orders_propagated(&self, list: &[u32]) -> bool {
        let n = list.iter().filter(|&&v| self.node_sel(v) != L::F).count();
        self.orders == Orders::Propagated
            && self.pts.is_every()
            && crate::sat::disjunctive::covers(n)
    }

    /// A memory type whose size two nodes' demands exceed together, if any.
    pub(super) fn clash(&self, u: u32, v: u32) -> Option<TypeIdx> {
        let m = &self.m;
        (0..m.inst.platform.mems.len() as TypeIdx).find(|&mt| {
            u128::from(m.demand(u, mt)) + u128::from(m.demand(v, mt))
                > u128::from(m.inst.platform.mems[mt as usize].size)
        })
    }

    /// Clauses `hold_apart` would add for the pair (window sizes times successors).
    pub(super) fn hold_apart_cost(&self, u: u32, v: u32, mt: TypeIdx) -> usize {
        let (xu, xv) = (self.start[u as usize], self.start[v as usize]);
        let (mut nsu, mut nsv) = (0usize, 0usize);
        self.for_each_mem_succ(u, mt, |_, _| nsu += 1);
        self.for_each_mem_succ(v, mt, |_, _| nsv += 1);
        (xv.ihi - xv.ilo + 1) as usize * nsu + (xu.ihi - xu.ilo + 1) as usize * nsv
    }

    /// Two nodes (`p > 0`) whose demands of `mt` exceed its size: their holds
    /// of `mt` cannot share an instant, so under `o` ("u before v") u's hold
    /// ends before v starts (every selected successor of u demanding `mt`
    /// starts no later than v; R = max(end, those starts), problem.md §4.4), and
    /// under `¬o` the reverse. models/sat.md 3.7.
    pub(super) fn hold_apart(&mut self, u: u32, v: u32, mt: TypeIdx, o: L) {
        let (xu, xv) = (self.start[u as usize], self.start[v as usize]);
        let (su, sv) = (self.node_sel(u), self.node_sel(v));
        let mut succ: Vec<(u32, L)> = Vec::new();
        self.for_each_mem_succ(u, mt, |y, ys| succ.push((y, ys)));
        for &(z, sz) in &succ {
            self.le_imp(xv, self.start[z as usize], 0, &[!o, !su, !sv, !sz]);
        }
        succ.clear();
        self.for_each_mem_succ(v, mt, |y, ys| succ.push((y, ys)));
        for &(z, sz) in &succ {
            self.le_imp(xu, self.start[z as usize], 0, &[o, !su, !sv, !sz]);
        }
    }

    /// Redundant memory pairs: two nodes whose demands of one memory type exceed
    /// its size can never run at the same instant (running is part of holding), so
    /// they get the disjunctive pair clauses of one-core types. Skipped for pairs
    /// on one one-core type (already ordered) and when the clause count would pass
    /// `MEMORY_PAIR_CLAUSES`.
    pub(super) fn memory_pairs(&mut self) {
        let m = self.m.clone();
        let cores = &m.inst.platform.cores;
        let n_mem = m.inst.platform.mems.len() as TypeIdx;
        if n_mem == 0 {
            return;
        }
        let mut pairs: Vec<(u32, u32, TypeIdx)> = Vec::new();
        let mut cost: usize = 0;
        let mut hold_cost: usize = 0;
        let users: Vec<u32> = (0..m.nodes.len() as u32)
            .filter(|&v| {
                m.nodes[v as usize].dur > 0
                    && m.inst
                        .library
                        .mems(m.nodes[v as usize].lib)
                        .iter()
                        .any(|d| d.amount > 0)
            })
            .collect();
        for (i, &u) in users.iter().enumerate() {
            if i % 64 == 0 {
                self.check_limits();
                if self.halted() {
                    return;
                }
            }
            for &v in &users[i + 1..] {
                let (nu, nv) = (&m.nodes[u as usize], &m.nodes[v as usize]);
                if m.never_together(u, v) {
                    continue;
                }
                if nu.core == nv.core && cores[nu.core as usize].count == 1 {
                    continue;
                }
                let (xu, xv) = (self.start[u as usize], self.start[v as usize]);
                let (pu, pv) = (nu.dur as i64, nv.dur as i64);
                if xu.hi + pu <= xv.lo || xv.hi + pv <= xu.lo {
                    continue;
                }
                if let Some(mt) = self.clash(u, v) {
                    cost += (xu.ihi - xu.ilo + xv.ihi - xv.ilo + 2) as usize;
                    hold_cost += self.hold_apart_cost(u, v, mt);
                    if cost > MEMORY_PAIR_CLAUSES {
                        log::info!("sat: too many memory pairs; left to lazy cuts");
                        return;
                    }
                    pairs.push((u, v, mt));
                }
            }
        }
        // The hold clauses only when they fit the budget too; the run pairs
        // alone otherwise.
        let holds = cost + hold_cost <= MEMORY_PAIR_CLAUSES;
        if !holds {
            log::info!("sat: memory pairs without their hold clauses (budget)");
        }
        for (u, v, mt) in pairs {
            if self.halted() {
                return;
            }
            let (xu, xv) = (self.start[u as usize], self.start[v as usize]);
            let (pu, pv) = (
                m.nodes[u as usize].dur as i64,
                m.nodes[v as usize].dur as i64,
            );
            let lit = self.new_var();
            self.pairs.push((u, v, lit));
            let o = L::Lit(lit);
            let (su, sv) = (self.node_sel(u), self.node_sel(v));
            self.le_imp(xv, xu, pu, &[!o, !su, !sv]);
            self.le_imp(xu, xv, pv, &[o, !su, !sv]);
            // Holds, not only runs, are disjoint.
            if holds {
                self.hold_apart(u, v, mt, o);
            }
        }
    }
}
