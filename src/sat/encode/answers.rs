//! Asking the encoding: a makespan bound, a decision under assumptions or
//! resumed, certificates, and decoding a model into starts (models/sat.md
//! §6, §8).

use super::*;

impl<'m, 'a> Encoder<'m, 'a> {
    /// The literal "makespan <= t" (created on first use).
    pub fn makespan_le(&mut self, t: i64) -> L {
        if t >= self.tmax {
            return L::T;
        }
        if let Some(&l) = self.makespan_lits.get(&t) {
            return l;
        }
        let lit = L::Lit(self.new_var());
        for v in 0..self.m.nodes.len() {
            let nd = &self.m.nodes[v];
            let bound = t - nd.tail as i64 - nd.dur as i64;
            let c = [
                !lit,
                !self.sel[nd.slot as usize],
                self.le(self.start[v], bound),
            ];
            self.clause(&c);
        }
        self.window_clauses(t, lit);
        self.makespan_lits.insert(t, lit);
        lit
    }

    /// Adds the unit "makespan <= t" for good (a schedule with makespan <= t is known,
    /// so only better ones are of interest) or its negation (proven impossible).
    pub fn fix_makespan(&mut self, t: i64, holds: bool) {
        let l = self.makespan_le(t);
        self.clause(&[if holds { l } else { !l }]);
    }

    /// Decides "makespan <= t" under extra assumptions, with lazy cuts, until a
    /// model passes every rule, the formula is unsatisfiable, or `stop` passes
    /// (an instant, or a `Stop` with an effort of CPU time).
    pub fn decide(&mut self, t: i64, extra: &[Lit], stop: impl Into<Stop>) -> Answer {
        self.answer(t, extra, stop.into(), false)
    }

    /// `decide(t, &[], stop)`, except that where the last answer was cut
    /// short by the clock under the same assumptions, the search goes on
    /// where it stopped: no restart, so two answers of `a` and `b` seconds
    /// search as one of `a + b` would (varisat is deterministic), where a
    /// fresh `decide` would first retrace the trail it had.
    pub fn resume(&mut self, t: i64, stop: impl Into<Stop>) -> Answer {
        self.answer(t, &[], stop.into(), true)
    }

    /// `decide` and `resume`.
    pub(super) fn answer(&mut self, t: i64, extra: &[Lit], stop: Stop, resume: bool) -> Answer {
        if self.broken {
            return Answer::Interrupted;
        }
        let ml = self.makespan_le(t);
        let mut assumptions: Vec<Lit> = extra.to_vec();
        match ml {
            L::F => return Answer::Unsat,
            L::Lit(l) => assumptions.push(l),
            L::T => {}
        }
        self.last_unsat = None;
        loop {
            if self.root_unsat {
                self.last_unsat = Some((self.clause_ends.len(), assumptions));
                return Answer::Unsat;
            }
            if stop.passed()
                || self
                    .cancel
                    .as_ref()
                    .is_some_and(crate::stop::Cancel::is_set)
            {
                return Answer::Interrupted;
            }
            self.stop.set(Some(stop));
            // The solver still holds the interrupted answer's assumptions
            // (nothing but this call sets them); `solve` continues from its
            // trail (vendor/varisat/PATCH.md; a clause added in between
            // will have restarted it from the root, as always).
            let goes_on =
                resume && self.interrupted_with.as_deref() == Some(assumptions.as_slice());
            self.interrupted_with = None;
            if goes_on {
                self.stats.resumed += 1;
            } else {
                self.solver.assume(&assumptions);
            }
            self.stats.solves += 1;
            let r = self.solver.solve();
            if let Some(c) = &self.edge_finding {
                [self.stats.ef_conflicts, self.stats.ef_bounds] = c.get();
            }
            if let Some(c) = &self.holds {
                [self.stats.hold_conflicts, self.stats.hold_bounds] = c.get();
            }
            match r {
                Err(SolverError::Interrupted) => {
                    self.interrupted_with = Some(assumptions);
                    return Answer::Interrupted;
                }
                Err(e) => {
                    // No proof writer or processor is installed, so no
                    // other error is expected; should one come, the solver
                    // is unusable and every later answer is undecided.
                    log::warn!("sat: solver failed: {e}");
                    self.broken = true;
                    return Answer::Interrupted;
                }
                Ok(false) => {
                    self.last_unsat = Some((self.clause_ends.len(), assumptions));
                    return Answer::Unsat;
                }
                Ok(true) => {}
            }
            let d = self.decode();
            let cuts = self.core_cuts(&d) + self.memory_cuts(&d);
            if cuts == 0 {
                return Answer::Sat(d);
            }
            if self.over_budget() {
                return Answer::OverBudget;
            }
        }
    }

    /// The certificate of the last UNSAT answer of `decide` (`--certify`,
    /// sat/certify.rs): the clauses the solver had at that answer, the
    /// answer's assumptions as unit clauses, written to `cnf`, and a fresh
    /// solver's varisat proof of their unsatisfiability to `proof`, by `stop`.
    /// The second solver is counted against the memory budget first.
    /// Returns the variable and clause counts.
    pub fn certify(
        &self,
        comments: &[String],
        cnf: &std::path::Path,
        proof: &std::path::Path,
        stop: Instant,
    ) -> Result<(usize, usize), crate::sat::certify::NotCertified> {
        use crate::sat::certify::{Clauses, NotCertified, certify};
        let Some((n, assumptions)) = &self.last_unsat else {
            unreachable!("certify is called after an UNSAT answer of decide")
        };
        // The fresh solver holds about what the search's does (the encoder's
        // own copy of the clauses is in the estimate once more: a margin).
        let bytes = self.bytes_estimate();
        if bytes.saturating_mul(2) > self.limits.max_bytes {
            return Err(NotCertified::Memory {
                need_mib: bytes.saturating_mul(2) >> 20,
                budget_mib: self.limits.max_bytes >> 20,
            });
        }
        let end = if *n == 0 { 0 } else { self.clause_ends[n - 1] };
        let clauses = Clauses {
            log: &self.log[..end],
            ends: &self.clause_ends[..*n],
            units: assumptions,
        };
        certify(&clauses, comments, cnf, proof, stop, self.cancel.as_ref())
    }

    /// After an UNSAT answer of `decide` under assumptions: the assumptions
    /// the refutation used (a subset; empty when it needed none, or when
    /// the formula is unsatisfiable without them).
    pub fn failed_assumptions(&self) -> Vec<Lit> {
        self.solver
            .failed_core()
            .map(|c| c.to_vec())
            .unwrap_or_default()
    }

    /// Whether the formula without assumptions is known unsatisfiable.
    pub fn is_root_unsat(&self) -> bool {
        self.root_unsat
    }

    pub(super) fn decode(&self) -> Decoded {
        let model = self.solver.model().expect("a model after SAT");
        let mut val = vec![false; self.n_vars as usize];
        for l in model {
            if l.var().index() < val.len() {
                val[l.var().index()] = l.is_positive();
            }
        }
        let is_true = |l: L| match l {
            L::T => true,
            L::F => false,
            L::Lit(x) => val[x.var().index()] == x.is_positive(),
        };
        let m = self.m.clone();
        let mut slot_of_op = vec![u32::MAX; m.op_slots.len()];
        for (op, r) in m.op_slots.iter().enumerate() {
            if let Some(s) = r.clone().find(|&s| is_true(self.sel[s as usize])) {
                slot_of_op[op] = s;
            }
        }
        let start = self
            .start
            .iter()
            .map(|&x| {
                let mut i = x.ilo;
                while i < x.ihi && !is_true(self.le(x, self.pts.at(i))) {
                    i += 1;
                }
                self.pts.at(i) as u64
            })
            .collect();
        Decoded { slot_of_op, start }
    }

    /// Selected nodes of a decoded model.
    pub(super) fn selected(&self, d: &Decoded) -> Vec<u32> {
        let mut out = Vec::new();
        for &s in &d.slot_of_op {
            if s != u32::MAX {
                let sl = &self.m.slots[s as usize];
                out.extend(sl.first..sl.first + sl.n);
            }
        }
        out
    }
}
