//! The lazy cuts (models/sat.md §4): cores running too many nodes at once,
//! memory held beyond a size, and the memory triples added up front.

use super::*;

impl<'m, 'a> Encoder<'m, 'a> {
    /// Core types with more than one core (and, under `Orders::Propagated`,
    /// with one): finds instants where more nodes run than there are cores
    /// and forbids those sets of nodes from running together.
    pub(super) fn core_cuts(&mut self, d: &Decoded) -> usize {
        let m = self.m.clone();
        let cores = &m.inst.platform.cores;
        let sel = self.selected(d);
        let mut by_type: Vec<Vec<u32>> = vec![Vec::new(); cores.len()];
        // One-core types too where their orders are left to the propagator
        // (`Orders::Propagated`; the pair clauses forbid every overlap
        // elsewhere).
        let one_core_cut = self.orders == Orders::Propagated;
        for &v in &sel {
            let nd = &m.nodes[v as usize];
            if nd.dur > 0 && (cores[nd.core as usize].count > 1 || one_core_cut) {
                by_type[nd.core as usize].push(v);
            }
        }
        let mut cuts = 0;
        for (c, mut list) in by_type.into_iter().enumerate() {
            let k = cores[c].count as usize;
            if list.len() <= k {
                continue;
            }
            list.sort_by_key(|&v| d.start[v as usize]);
            let mut active: Vec<u32> = Vec::new();
            let mut found = 0;
            for &v in &list {
                let s = d.start[v as usize];
                active.retain(|&u| d.start[u as usize] + m.nodes[u as usize].dur > s);
                active.push(v);
                if active.len() > k && found < 8 {
                    found += 1;
                    // v and k others running at s (those that started last).
                    let mut set: Vec<u32> = active.iter().rev().take(k + 1).copied().collect();
                    set.sort_unstable();
                    self.forbid_running_together(&set, s as i64);
                    cuts += 1;
                }
            }
        }
        self.stats.core_cuts += cuts;
        cuts
    }

    /// Clauses: the nodes of `set` never all run at one instant. Added at every
    /// instant of the common part of their possible run windows, up to a cap around
    /// `t` (each clause is valid on its own).
    pub(super) fn forbid_running_together(&mut self, set: &[u32], t: i64) {
        let m = self.m.clone();
        let mut from = i64::MIN;
        let mut to = i64::MAX;
        for &v in set {
            let x = self.start[v as usize];
            from = from.max(x.lo);
            to = to.min(x.hi + m.nodes[v as usize].dur as i64);
        }
        let from = from.max(t - 128);
        let to = to.min(t + 128);
        let mut lits: Vec<L> = Vec::with_capacity(3 * set.len());
        for u in from..to {
            lits.clear();
            for &v in set {
                let x = self.start[v as usize];
                lits.push(!self.le(x, u));
                lits.push(self.le(x, u - m.nodes[v as usize].dur as i64));
                lits.push(!self.node_sel(v));
            }
            self.clause(&lits);
        }
    }

    /// Memory (problem.md §4.4): finds instants where the holds exceed a size and forbids
    /// those holders from holding together there (with hold literals).
    pub(super) fn memory_cuts(&mut self, d: &Decoded) -> usize {
        let m = self.m.clone();
        let sel = self.selected(d);
        let mut cuts = 0;
        let types = self.mem_types.clone();
        for mt in types {
            let size = m.inst.platform.mems[mt as usize].size;
            // Holds of selected nodes: (from, until, node, amount).
            let mut holds: Vec<(u64, u64, u32, u64)> = Vec::new();
            for &v in &sel {
                let amt = m.demand(v, mt);
                if amt == 0 {
                    continue;
                }
                let s = d.start[v as usize];
                let mut until = s + m.nodes[v as usize].dur;
                self.for_each_mem_succ(v, mt, |y, _| {
                    let ys = m.nodes[y as usize].slot;
                    let chosen = d.slot_of_op[m.slots[ys as usize].op as usize] == ys;
                    if chosen {
                        until = until.max(d.start[y as usize]);
                    }
                });
                if until > s {
                    holds.push((s, until, v, amt));
                }
            }
            if holds.is_empty() {
                continue;
            }
            // Sweep instants where holds begin (the total only rises there).
            let mut begins: Vec<u64> = holds.iter().map(|h| h.0).collect();
            begins.sort_unstable();
            begins.dedup();
            let mut found = 0;
            let mut last_set: Vec<u32> = Vec::new();
            for &t in &begins {
                let mut at: Vec<(u64, u32, u64, u64)> = holds
                    .iter()
                    .filter(|h| h.0 <= t && t < h.1)
                    .map(|h| (h.3, h.2, h.0, h.1))
                    .collect();
                let total: u128 = at.iter().map(|h| u128::from(h.0)).sum();
                if total <= u128::from(size) {
                    continue;
                }
                // A small subset that still exceeds: largest amounts first.
                at.sort_by_key(|h| std::cmp::Reverse(h.0));
                let mut sum: u128 = 0;
                let mut set = Vec::new();
                let (mut from, mut to) = (0u64, u64::MAX);
                for h in &at {
                    sum += u128::from(h.0);
                    set.push(h.1);
                    from = from.max(h.2);
                    to = to.min(h.3);
                    if sum > u128::from(size) {
                        break;
                    }
                }
                set.sort_unstable();
                if set == last_set {
                    continue;
                }
                last_set = set.clone();
                cuts += 1;
                found += 1;
                // Only nodes that run (`p > 0`) hold in every schedule: a
                // zero-duration node's hold is empty when its successors
                // start with it, and the argument needs every hold non-empty.
                if set.len() <= GENERAL_CUT_MAX && set.iter().all(|&x| m.nodes[x as usize].dur > 0)
                {
                    // No instant at all may see every node of `set` hold.
                    self.no_common_hold(&set, mt);
                    if found >= 16 {
                        break;
                    }
                    continue;
                }
                // Every instant of the common hold of `set` in this model is a violation.
                let to = to.min(from + 32);
                for u in from..to {
                    let mut lits = Vec::with_capacity(set.len());
                    for &x in &set {
                        lits.push(L::Lit(!self.hold_lit(x, mt, u as i64)));
                    }
                    self.clause(&lits);
                }
                if found >= 16 {
                    break;
                }
            }
        }
        self.stats.mem_cuts += cuts;
        cuts
    }

    /// Eager memory cuts (models/sat.md §4.2, "Triples up front"): for
    /// every three holders of a memory type that overflow it together while
    /// no two of them do, and whose holds may meet (start windows, holds
    /// stretched to the latest start of a successor demanding the type),
    /// the cut `no_common_hold` that the search would otherwise add lazily,
    /// one decoded schedule at a time. Added after the build, until the
    /// encoding reaches three quarters of its budget (the rest is the
    /// search's) or `until` passes (looked at every 2^14 candidate triples),
    /// or `hard` (the search's deadline, looked at every 8 cuts); nodes of
    /// duration 0 are left to the lazy cuts (their holds may be empty).
    /// Returns the cuts added.
    pub fn memory_triples(&mut self, until: Instant, hard: Instant) -> usize {
        let m = self.m.clone();
        let cap = self.limits.max_bytes / 4 * 3;
        let mut added = 0usize;
        let mut work = 0u64;
        'types: for mt in self.mem_types.clone() {
            let size = u128::from(m.inst.platform.mems[mt as usize].size);
            // (node, amount, earliest start, latest end of its hold)
            let mut users: Vec<(u32, u128, i64, i64)> = Vec::new();
            for v in 0..m.nodes.len() as u32 {
                let amount = u128::from(m.demand(v, mt));
                let dur = m.nodes[v as usize].dur as i64;
                if amount == 0 || dur == 0 {
                    continue;
                }
                let x = self.start[v as usize];
                let mut hi = x.hi + dur;
                for (y, _) in m.mem_succs(v, mt) {
                    hi = hi.max(self.start[y as usize].hi);
                }
                users.push((v, amount, x.lo, hi));
            }
            let meet = |p: (u32, u128, i64, i64), q: (u32, u128, i64, i64)| {
                p.2 < q.3 && q.2 < p.3 && !m.never_together(p.0, q.0)
            };
            let k = users.len();
            for i in 0..k {
                for j in i + 1..k {
                    let (p, q) = (users[i], users[j]);
                    if p.1 + q.1 > size || !meet(p, q) {
                        continue;
                    }
                    for &r in &users[j + 1..] {
                        work += 1;
                        if work.is_multiple_of(1 << 14)
                            && (Instant::now() >= until || self.bytes_estimate() > cap)
                        {
                            break 'types;
                        }
                        if p.1 + q.1 + r.1 <= size
                            || p.1 + r.1 > size
                            || q.1 + r.1 > size
                            || !meet(p, r)
                            || !meet(q, r)
                        {
                            continue;
                        }
                        self.no_common_hold(&[p.0, q.0, r.0], mt);
                        added += 1;
                        // A cut spans the whole horizon (a quarter of a
                        // millisecond on a hundred nodes): the deadline is
                        // looked at after every few, not only every 2^14
                        // candidates as `until` is.
                        if added.is_multiple_of(8)
                            && (Instant::now() >= hard || self.bytes_estimate() > cap)
                        {
                            break 'types;
                        }
                    }
                }
            }
        }
        self.stats.mem_cuts += added;
        added
    }

    /// Calls `f(y, selector of y)` for every node `y` that may be a direct successor
    /// of `x` demanding memory type `mt` (intra-tiling, or a source of a successor
    /// op's candidate tiling when `x` is a sink).
    pub(super) fn for_each_mem_succ(&self, x: u32, mt: TypeIdx, mut f: impl FnMut(u32, L)) {
        for (y, slot) in self.m.mem_succs(x, mt) {
            f(y, slot.map_or(L::T, |s| self.sel[s as usize]));
        }
    }

    /// The cut "the nodes of `set` (whose demands of `mt` exceed its size
    /// together) never all hold `mt` at one instant", for every instant at
    /// once (models/sat.md §4.2): holds are intervals `[s, R)`, and intervals
    /// with no common point have one that ends before another starts (the
    /// earliest end is at most the latest start). So: some node of `set` is
    /// not selected, or for some ordered pair `(a, b)` of it `R_a <= s_b`.
    /// Every node of `set` must have `p > 0` (a non-empty hold in every
    /// schedule).
    pub(super) fn no_common_hold(&mut self, set: &[u32], mt: TypeIdx) {
        let mut lits: Vec<L> = Vec::with_capacity(set.len() * set.len());
        for &x in set {
            let sx = self.node_sel(x);
            if sx != L::T {
                lits.push(!sx);
            }
        }
        for &a in set {
            for &b in set {
                if a != b {
                    let h = self.hold_ends_before(a, b, mt);
                    lits.push(L::Lit(h));
                }
            }
        }
        self.clause(&lits);
    }

    /// A literal implying "x's hold of `mt` ends by y's start": `x` ends by
    /// then, and so does every selected successor of `x` that demands `mt`
    /// start (its release, problem.md §4.4). Created once per (x, y, mt).
    pub(super) fn hold_ends_before(&mut self, x: u32, y: u32, mt: TypeIdx) -> Lit {
        if let Some(&h) = self.hold_before.get(&(x, y, mt)) {
            return h;
        }
        let h = self.new_var();
        let (xx, xy) = (self.start[x as usize], self.start[y as usize]);
        let p = self.m.nodes[x as usize].dur as i64;
        self.le_imp(xy, xx, p, &[L::Lit(!h)]);
        let mut succ: Vec<(u32, L)> = Vec::new();
        self.for_each_mem_succ(x, mt, |z, zs| succ.push((z, zs)));
        for (z, zs) in succ {
            self.le_imp(xy, self.start[z as usize], 0, &[L::Lit(!h), !zs]);
        }
        self.hold_before.insert((x, y, mt), h);
        h
    }

    /// A literal implied by "node x holds memory type mt at instant t":
    /// h <- sel(x) & s_x <= t & s_x > t - p_x, and for each successor y demanding
    /// mt: h <- sel(x) & sel(y) & s_x <= t & s_y > t.
    pub(super) fn hold_lit(&mut self, x: u32, mt: TypeIdx, t: i64) -> Lit {
        if let Some(&h) = self.hold_lits.get(&(x, mt, t)) {
            return h;
        }
        let L::Lit(h) = L::Lit(self.new_var()) else {
            unreachable!()
        };
        let xs = self.start[x as usize];
        let p = self.m.nodes[x as usize].dur as i64;
        let sx = self.node_sel(x);
        if p > 0 {
            self.clause(&[L::Lit(h), !sx, !self.le(xs, t), self.le(xs, t - p)]);
        }
        let mut succ: Vec<(u32, L)> = Vec::new();
        self.for_each_mem_succ(x, mt, |y, ys| succ.push((y, ys)));
        for (y, ys) in succ {
            let yl = self.le(self.start[y as usize], t);
            self.clause(&[L::Lit(h), !sx, !ys, !self.le(xs, t), yl]);
        }
        self.hold_lits.insert((x, mt, t), h);
        h
    }
}
