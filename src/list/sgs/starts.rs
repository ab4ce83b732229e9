//! Starting nodes under the hold rule (problem.md §4.4): whether cores and
//! memory allow a set to start at one instant (the holds its starts
//! release count), joint groups that release a holder, and the memory
//! accounting of starts, releases and ends.

use super::*;

impl<'m, 'g, 'a> Pass<'m, 'g, 'a> {
    /// Starts all of `set` at `t` if cores, memory and the guard allow it.
    /// Holds released by these starts count (half-open intervals).
    pub(super) fn try_set(&mut self, set: &[u32], t: u128) -> bool {
        self.try_start(set, t).is_ok()
    }

    /// As `try_set`, saying why not. The guard is asked first: its refusal
    /// lasts until the list advances, so the caller can park the node.
    pub(super) fn try_start(&mut self, set: &[u32], t: u128) -> Result<(), Refusal> {
        if let Some(w) = &self.window
            && w.in_flight + w.new_ops(self.md.g, set) > w.limit
        {
            self.short_of = None;
            return Err(Refusal::Memory);
        }
        if let Some(guard) = &mut self.guard {
            guard.check(self.md, set).map_err(Refusal::Guard)?;
        }
        if !self.fits(set) {
            return Err(Refusal::Memory);
        }
        if let Some(guard) = &mut self.guard {
            guard.commit(self.md);
        }
        for &v in set {
            self.start_node(v, t);
        }
        if let Some(s) = &mut self.serial {
            s.record(set, &self.usage);
        }
        Ok(())
    }

    /// Whether cores and memory allow starting all of `set` at one instant.
    pub(super) fn fits(&mut self, set: &[u32]) -> bool {
        let md = self.md;
        let g = md.g;
        self.cores_need.iter_mut().for_each(|c| *c = 0);
        for &v in set {
            if g.dur(v) > 0 {
                self.cores_need[g.core[v as usize] as usize] += 1;
            }
        }
        self.short_of = None;
        for (c, &need) in self.cores_need.iter().enumerate() {
            if need as usize > self.cores[c].free() {
                return false;
            }
        }
        if md.memory_is_loose() {
            return true;
        }
        self.delta_acq.iter_mut().for_each(|x| *x = 0);
        self.delta_rel.iter_mut().for_each(|x| *x = 0);
        for &v in set {
            let is_source = g.is_source(v);
            let op = g.node_op[v as usize];
            for (k, e) in g.mems(v).iter().enumerate() {
                let m = e.mem;
                if !md.binding[m as usize] {
                    continue;
                }
                if md.holds_at_start(v, k) {
                    self.delta_acq[m as usize] += u128::from(e.amount);
                }
                for x in g.intra_preds(v) {
                    if let Some(ex) = md.entry(x, m) {
                        // How many of the set's members wait on entry ex (a
                        // short list: a set is one node or a joint group).
                        let dec = match self.touched_ent.iter_mut().find(|(e, _)| *e == ex) {
                            Some((_, c)) => {
                                *c += 1;
                                *c
                            }
                            None => {
                                self.touched_ent.push((ex, 1));
                                1
                            }
                        };
                        if self.held[ex] && self.ent_wait[ex] == dec {
                            self.delta_rel[m as usize] +=
                                u128::from(g.mems(x)[ex - md.ent_off[x as usize] as usize].amount);
                        }
                    }
                }
                if is_source {
                    for &pa in g.op_preds(op) {
                        if let Some(k) = md.opm_index(pa, m) {
                            if self.opm_dec[k] == 0 {
                                self.touched_opm.push(k);
                            }
                            self.opm_dec[k] += 1;
                            if self.opm_left[k] == self.opm_dec[k] {
                                self.delta_rel[m as usize] += u128::from(md.opm[k].2);
                            }
                        }
                    }
                }
            }
        }
        for &k in &self.touched_opm {
            self.opm_dec[k] = 0;
        }
        self.touched_ent.clear();
        self.touched_opm.clear();
        for m in 0..md.n_mem {
            if self.usage[m] + self.delta_acq[m] > md.caps[m] + self.delta_rel[m] {
                self.short_of = Some(m as TypeIdx);
                // The most memory in use with which this set fits.
                self.short_thr = (md.caps[m] + self.delta_rel[m]).checked_sub(self.delta_acq[m]);
                return false;
            }
        }
        self.handover_fits(set)
    }

    /// The hand-over reserve (`HandOver`): a set that opens an op and
    /// releases nothing fits only where every binding type keeps room for
    /// the largest hand-over need of the ops started and of its own ops.
    /// Lifted where nothing runs and nothing could start under it
    /// (`execute`): there it could only stop the pass.
    fn handover_fits(&mut self, set: &[u32]) -> bool {
        let md = self.md;
        let g = md.g;
        let Some(ho) = &self.ho else { return true };
        if self.lifted || self.delta_rel.iter().any(|&r| r > 0) {
            return true;
        }
        let opens = |v: u32| g.is_source(v) && !ho.started[g.node_op[v as usize] as usize];
        if !set.iter().any(|&v| opens(v)) {
            return true;
        }
        for m in 0..md.n_mem {
            if !md.binding[m] {
                continue;
            }
            let own = set
                .iter()
                .filter_map(|&v| md.opm_index(g.node_op[v as usize], m as TypeIdx))
                .map(|k| md.opm_need[k])
                .max()
                .unwrap_or(0);
            let reserve = u128::from(ho.largest(m).max(own));
            if reserve > 0 && self.usage[m] + self.delta_acq[m] + reserve > md.caps[m] {
                self.short_of = Some(m as TypeIdx);
                self.short_thr = md.caps[m].checked_sub(reserve + self.delta_acq[m]);
                return false;
            }
        }
        true
    }

    /// When `v` alone does not fit, tries the joint start of all pending
    /// same-type successors of one of its holders (or of all of them).
    pub(super) fn try_groups_for(&mut self, v: u32, t: u128) -> bool {
        let md = self.md;
        let g = md.g;
        self.group_lacked_cores = false;
        if md.memory_is_loose() {
            return false;
        }
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let op = g.node_op[v as usize];
        for e in g.mems(v) {
            let m = e.mem;
            if !md.binding[m as usize] {
                continue;
            }
            for x in g.intra_preds(v) {
                if let Some(ex) = md.entry(x, m)
                    && self.held[ex]
                    && (self.ent_wait[ex] as usize) <= MAX_GROUP
                {
                    let grp: Vec<u32> = g
                        .intra_succs(x)
                        .filter(|&s| g.demand(s, m) > 0 && self.state[s as usize] < RUNNING)
                        .collect();
                    groups.push(grp);
                }
            }
            if g.is_source(v) {
                for &pa in g.op_preds(op) {
                    if let Some(k) = md.opm_index(pa, m)
                        && self.opm_left[k] > 0
                        && (self.opm_left[k] as usize) <= MAX_GROUP
                    {
                        let mut grp = Vec::new();
                        for &b in g.op_succs(pa) {
                            grp.extend(g.sources(b).filter(|&s| {
                                g.demand(s, m) > 0 && self.state[s as usize] < RUNNING
                            }));
                        }
                        groups.push(grp);
                    }
                }
            }
        }
        groups.retain(|grp| grp.len() > 1 && grp.len() <= MAX_GROUP);
        if groups.is_empty() {
            return false;
        }
        if groups.len() > 1 {
            let mut all: Vec<u32> = groups.iter().flatten().copied().collect();
            all.sort_unstable();
            all.dedup();
            if all.len() <= MAX_GROUP {
                groups.push(all);
            }
        }
        groups.sort_by_key(|grp| grp.len());
        for grp in groups {
            if grp.iter().all(|&s| self.state[s as usize] == READY) {
                if self.try_set(&grp, t) {
                    return true;
                }
                if self.short_of.is_none() {
                    self.group_lacked_cores = true;
                }
            }
        }
        false
    }

    pub(super) fn start_node(&mut self, v: u32, t: u128) {
        let md = self.md;
        let g = md.g;
        let vi = v as usize;
        let d = g.dur(vi as u32);
        self.state[vi] = RUNNING;
        let Ok(t64) = u64::try_from(t) else {
            // The start does not fit the output format: give up this pass honestly.
            self.overflow = true;
            self.running.push(Reverse((t, v)));
            return;
        };
        self.start[vi] = t64;
        self.n_started += 1;
        let op = g.node_op[vi];
        if self.window.is_some() {
            self.admit_op(op);
        }
        if let Some(ho) = &mut self.ho
            && !std::mem::replace(&mut ho.started[op as usize], true)
        {
            for k in md.opm_off[op as usize] as usize..md.opm_off[op as usize + 1] as usize {
                if md.opm_need[k] > 0 {
                    ho.add(md.opm[k].0 as usize, md.opm_need[k]);
                }
            }
        }
        if d > 0 {
            let c = g.core[vi] as usize;
            self.core[vi] = self.cores[c].take();
        } else {
            self.core[vi] = 0;
        }
        if let Some(guard) = &mut self.guard {
            guard.started(v);
        }
        let is_source = g.is_source(v);
        let a = md.ent_off[vi] as usize;
        for (k, e) in g.mems(v).iter().enumerate() {
            let m = e.mem;
            if md.holds_at_start(v, k) {
                self.usage[m as usize] += u128::from(e.amount);
                self.held[a + k] = true;
                if let Some(h) = self.window.as_mut().and_then(|w| w.held_by.get_mut(&op)) {
                    h[m as usize] += u128::from(e.amount);
                }
            }
            // Releases of holders whose last same-type successor is `v`.
            for x in g.intra_preds(v) {
                if let Some(ex) = md.entry(x, m) {
                    self.ent_wait[ex] -= 1;
                    if self.ent_wait[ex] == 0 && self.state[x as usize] == ENDED && self.held[ex] {
                        self.release(x, ex);
                    } else if self.ent_wait[ex] == 1 && self.held[ex] && !self.mem_park.is_empty() {
                        // The last pending successor now releases x: worth a try.
                        for y in g.intra_succs(x) {
                            if g.demand(y, m) > 0 {
                                if self.mem_park[y as usize] != 0 {
                                    self.wake(y);
                                } else {
                                    self.refresh(y);
                                }
                            }
                        }
                    }
                }
            }
            if is_source {
                for &pa in g.op_preds(op) {
                    if let Some(kk) = md.opm_index(pa, m) {
                        self.opm_left[kk] -= 1;
                        if self.opm_left[kk] == 1 && !self.mem_park.is_empty() {
                            for &b in g.op_succs(pa) {
                                for y in g.sources(b) {
                                    if g.demand(y, m) > 0 {
                                        if self.mem_park[y as usize] != 0 {
                                            self.wake(y);
                                        } else {
                                            self.refresh(y);
                                        }
                                    }
                                }
                            }
                        }
                        if self.opm_left[kk] == 0 {
                            // Handed over: pa's need on m is met.
                            if let Some(ho) = &mut self.ho
                                && md.opm_need[kk] > 0
                            {
                                ho.remove(m as usize, md.opm_need[kk]);
                            }
                            for x in g.sinks(pa) {
                                if let Some(ex) = md.entry(x, m)
                                    && self.held[ex]
                                    && self.state[x as usize] == ENDED
                                {
                                    self.release(x, ex);
                                }
                            }
                        }
                    }
                }
            }
        }
        self.running.push(Reverse((t + u128::from(d), v)));
    }

    pub(super) fn release(&mut self, x: u32, ex: usize) {
        let e = self.md.g.mems(x)[ex - self.md.ent_off[x as usize] as usize];
        self.held[ex] = false;
        self.usage[e.mem as usize] -= u128::from(e.amount);
        if let Some(h) = self.window.as_mut().and_then(|w| {
            let op = self.md.g.node_op[x as usize];
            w.held_by.get_mut(&op)
        }) {
            h[e.mem as usize] -= u128::from(e.amount);
        }
        if let Some(guard) = &mut self.guard {
            guard.released(self.md, x, e.mem as usize, e.amount);
        }
    }

    pub(super) fn finish(&mut self, v: u32) {
        let md = self.md;
        let g = md.g;
        let vi = v as usize;
        self.state[vi] = ENDED;
        if g.dur(vi as u32) > 0 {
            let c = g.core[vi] as usize;
            self.cores[c].released.push(self.core[vi]);
        }
        let op = g.node_op[vi];
        self.window_op_ended(op);
        // Holds with nothing left to wait for end with the node.
        let a = md.ent_off[vi] as usize;
        let sink = g.is_sink(v);
        for (k, e) in g.mems(v).iter().enumerate() {
            let ex = a + k;
            if !self.held[ex] {
                continue;
            }
            let waiting = self.ent_wait[ex] > 0
                || (sink
                    && md
                        .opm_index(op, e.mem)
                        .is_some_and(|kk| self.opm_left[kk] > 0));
            if !waiting {
                self.release(v, ex);
            }
        }
        for s in g.intra_succs(v) {
            self.pred_left[s as usize] -= 1;
            if self.pred_left[s as usize] == 0 {
                self.make_ready(s);
            }
        }
        if sink {
            for &b in g.op_succs(op) {
                self.op_wait[b as usize] -= 1;
                if self.op_wait[b as usize] == 0 {
                    for s in g.sources(b) {
                        self.make_ready(s);
                    }
                }
            }
        }
    }
}
