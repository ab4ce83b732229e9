//! Which ops a windowed or reserving pass admits, and the nodes parked
//! until memory or the guide's list lets them start (models/list.md,
//! "Modes").

use super::*;

impl<'m, 'g, 'a> Pass<'m, 'g, 'a> {
    /// Back to their ready heaps: the parked nodes whose wait is over.
    pub(super) fn unpark(&mut self) {
        let q = self.guard.as_mut().expect("guarded pass").next_unstarted();
        while let Some(&Reverse((k, v))) = self.parked.peek() {
            if k as usize >= q {
                break;
            }
            self.parked.pop();
            if self.state[v as usize] == READY {
                self.push_ready(v);
            }
        }
    }

    /// Window mode: when op `op` has ended entirely, the best waiting op is
    /// admitted and its waiting nodes return to the ready heaps.
    pub(super) fn window_op_ended(&mut self, op: u32) {
        let Some(w) = &mut self.window else { return };
        w.ended[op as usize] += 1;
        if w.ended[op as usize] as usize != self.md.g.op_nodes(op).len() {
            return;
        }
        w.state[op as usize] = 2;
        w.in_flight -= 1;
        w.held_by.remove(&op);
        self.admit_waiting();
    }

    /// Admits waiting ops, best key first, while the window (or the
    /// reservation) allows.
    pub(super) fn admit_waiting(&mut self) {
        loop {
            let Some(w) = &mut self.window else { return };
            if w.in_flight >= w.limit {
                return;
            }
            let Some(&(_, Reverse(next))) = w.queue.peek() else {
                return;
            };
            if w.state[next as usize] != 0 || w.head[next as usize] == NONE {
                w.queue.pop();
                continue;
            }
            if !self.reserve_admits(next) {
                return;
            }
            if let Some(w) = &mut self.window {
                w.queue.pop();
            }
            self.admit_op(next);
        }
    }

    /// Reservation mode: whether op `b` may be admitted now (always when no
    /// op is in flight, so that something can run, and where the
    /// reservations are lifted: nothing runs and the ops they admitted
    /// cannot start, so that they would only deadlock the pass).
    pub(super) fn reserve_admits(&self, b: u32) -> bool {
        let Some(w) = &self.window else { return true };
        let Some(peaks) = w.peaks else { return true };
        if w.in_flight == 0 || self.lifted {
            return true;
        }
        let md = self.md;
        let g = md.g;
        let pb = peaks.of(b);
        for m in 0..md.n_mem {
            if !md.binding[m] || pb[m] == 0 {
                continue;
            }
            let mut need = self.usage[m] + pb[m];
            for (&o, held) in &w.held_by {
                need += peaks.of(o)[m].saturating_sub(held[m]);
            }
            // Inter-op holds that b's sources release (b is the last op to
            // start among the successors they wait for).
            let mine = g
                .sources(b)
                .filter(|&v| g.demand(v, m as TypeIdx) > 0)
                .count() as u32;
            if mine > 0 {
                for &a in g.op_preds(b) {
                    if let Some(k) = md.opm_index(a, m as TypeIdx)
                        && self.opm_left[k] == mine
                    {
                        need = need.saturating_sub(u128::from(md.opm[k].2));
                    }
                }
            }
            if need > md.caps[m] {
                return false;
            }
        }
        true
    }

    /// Window mode: admits `op` (if not yet) and returns its waiting nodes to
    /// the ready heaps.
    pub(super) fn admit_op(&mut self, op: u32) {
        let n_mem = self.md.n_mem;
        let Some(w) = &mut self.window else { return };
        w.admit(op, n_mem);
        let mut v = std::mem::replace(&mut w.head[op as usize], NONE);
        while v != NONE && v != END {
            let nv = match &mut self.window {
                Some(w) => std::mem::replace(&mut w.next[v as usize], NONE),
                None => NONE,
            };
            if self.state[v as usize] == READY {
                self.push_ready(v);
            }
            v = nv;
        }
    }

    /// Parks ready node `v`, short of memory type `m`, until the usage of `m`
    /// drops to `thr` (None: until its own start would release more).
    pub(super) fn park_memory(&mut self, v: u32, m: TypeIdx, thr: Option<u128>) {
        self.park_gen = self.park_gen.wrapping_add(1).max(1);
        self.mem_park[v as usize] = self.park_gen;
        match thr {
            Some(thr) => self.mem_wait[m as usize].push((thr, self.park_gen, Reverse(v))),
            None => self.mem_never.push((self.park_gen, v)),
        }
    }

    /// Back to its ready heap: a parked node whose wait may be over.
    pub(super) fn wake(&mut self, v: u32) {
        if self.mem_park.get(v as usize).is_none_or(|&p| p == 0) {
            return;
        }
        self.mem_park[v as usize] = 0;
        if self.state[v as usize] != READY {
            return;
        }
        self.push_ready(v);
    }

    /// Wakes the nodes parked on memory that the current usage admits.
    pub(super) fn wake_on_memory(&mut self) {
        for m in 0..self.mem_wait.len() {
            while let Some(&(thr, tag, Reverse(v))) = self.mem_wait[m].peek() {
                if thr < self.usage[m] {
                    break;
                }
                self.mem_wait[m].pop();
                if self.mem_park[v as usize] == tag {
                    self.wake(v);
                }
            }
        }
    }

    /// Parallel mode with nothing running: every parked node gets another try
    /// (a deadlock is declared only when none can start).
    pub(super) fn wake_all(&mut self) {
        for m in 0..self.mem_wait.len() {
            for (_, tag, Reverse(v)) in std::mem::take(&mut self.mem_wait[m]) {
                if self.mem_park[v as usize] == tag {
                    self.wake(v);
                }
            }
        }
        for (tag, v) in std::mem::take(&mut self.mem_never) {
            if self.mem_park[v as usize] == tag {
                self.wake(v);
            }
        }
    }
}
