//! Deciding one tiling choice (models/sat.md §10): by the window net with
//! every op fixed, under assumptions in the shared encoding, or over an
//! encoding of the choice alone kept between answers at a level.

use super::*;

impl<'a> Search<'_, 'a> {
    /// Decides `choice` as `ask` says within `time` an answer: over the
    /// shared encoding where there is one, else over an encoding of the
    /// choice alone. `Refuted` with an empty set: no schedule at all where
    /// the choice was asked (the shared encoding needed no assumption).
    /// Each decision is one debug line (`RUST_LOG=tmin::sat::choices=debug`):
    /// what was asked, its time and verdict, the incumbent before and after.
    pub(super) fn decide(
        &mut self,
        choice: &[u32],
        ask: Ask,
        time: Duration,
        deadline: &Deadline,
    ) -> Verdict {
        let t0 = Instant::now();
        let cpu = CpuTimer::start();
        let before = self.ub;
        let v = self.decide_once(choice, ask, time, deadline);
        // The choice itself (library tilings by op), to decide it again
        // outside the search (`RUST_LOG=tmin::sat::choices=trace`).
        log::trace!("choices: the choice {choice:?}");
        log::debug!(
            "choices: {ask:?} in {:.2} s of {:.2} (CPU; {:.2} s wall): {}, incumbent {} -> {}",
            cpu.elapsed().as_secs_f64(),
            time.as_secs_f64(),
            t0.elapsed().as_secs_f64(),
            match &v {
                Verdict::Refuted(set) => format!("refuted ({} tilings)", set.len()),
                Verdict::Proven => "proven".to_string(),
                Verdict::Undecided => "undecided".to_string(),
                Verdict::TooLarge => "too large".to_string(),
            },
            before,
            self.ub
        );
        v
    }

    /// `decide` itself.
    pub(super) fn decide_once(
        &mut self,
        choice: &[u32],
        ask: Ask,
        time: Duration,
        deadline: &Deadline,
    ) -> Verdict {
        self.fruitless += 1;
        if self.shared.is_some() {
            self.decide_shared(choice, ask, time, deadline)
        } else {
            self.decide_alone(choice, ask, time, deadline)
        }
    }

    /// A schedule of a model: validated, polished by forward-backward (a
    /// model's starts are legal but often loose), kept as the incumbent.
    /// Returns its makespan; `None` when the validator rejects it (an
    /// encoding bug: the schedule is dropped, never output).
    pub(super) fn on_schedule(
        &mut self,
        mut sched: Schedule,
        time: Duration,
        deadline: &Deadline,
    ) -> Option<u128> {
        let Some(mut ms) = validated(self.inst, &sched) else {
            log::warn!("choices: a model failed the validator; choice skipped");
            return None;
        };
        // The polish gets at most an answer's time.
        let polish_by = deadline.capped(time);
        if let Some(f) = crate::list::polish(self.inst, &sched, self.lb, &polish_by)
            && let Some(p) = validated(self.inst, &f.schedule)
            && p < ms
        {
            sched = f.schedule;
            ms = p;
        }
        log::debug!("choices: a schedule of makespan {ms}");
        // Validated above (`validated`).
        self.events
            .incumbent(ms, "sat", || "choice search".to_string());
        self.prefer = Some(sched.choice.clone());
        self.ub = ms;
        self.best = Some(sched);
        self.stats.improved += 1;
        self.fruitless = 0;
        self.progress_at = Instant::now();
        Some(ms)
    }

    /// `choice` as the set a refutation of it names: its ops with a tiling
    /// choice (the others have nothing to exclude).
    pub(super) fn choice_set(&self, choice: &[u32]) -> Vec<(u32, u32)> {
        whole_choice(choice)
            .into_iter()
            .filter(|&(op, _)| self.cands[op as usize].len() > 1)
            .collect()
    }

    /// The window net's windows of `choice` (every op fixed) at `level`,
    /// shaved until `until`, added to the shared encoding as clauses under
    /// a fresh literal: `Some(Ok(it))`; `Some(Err(()))` when a window empties
    /// (no schedule of the choice within the level); `None` without a net,
    /// with the level past the choice's horizon, or when the choice's time
    /// unit is not the encoding's.
    pub(super) fn choice_windows(
        &mut self,
        choice: &[u32],
        level: u64,
        until: Stop,
    ) -> Option<Result<Lit, ()>> {
        let windows = match self.net_windows.remove(choice) {
            Some((at, windows)) if at == level => windows,
            _ => {
                let net = self.net_of(&self.choice_set(choice))?;
                let Some(w) = net.shaved(level, until) else {
                    return Some(Err(()));
                };
                self.in_shared(&net, &w, level)?
            }
        };
        let sh = self.shared.as_mut()?;
        Some(Ok(sh.enc.windows_under_fresh(&windows)))
    }

    /// A choice's windows `w` at `level` (its net's nodes) as windows of the
    /// shared encoding's nodes: `None` without a shared encoding, with the
    /// level past the choice's horizon, or when the choice's time unit is
    /// not the encoding's.
    pub(super) fn in_shared(
        &self,
        net: &SetNet,
        w: &Windows,
        level: u64,
    ) -> Option<Vec<NodeWindow>> {
        let sh = self.shared.as_ref()?;
        if net.m.g != sh.m.g || level / net.m.g > net.m.horizon {
            return None;
        }
        let cm = &net.m;
        let mut windows = Vec::new();
        for (v, est, lst) in net.wn.tightened(w, net.units(level)) {
            let slot = &cm.slots[cm.nodes[v as usize].slot as usize];
            let there = sh.m.op_slots[slot.op as usize]
                .clone()
                .find(|&s| sh.m.slots[s as usize].tiling == slot.tiling)?;
            windows.push((sh.m.slots[there as usize].first + v - slot.first, est, lst));
        }
        Some(windows)
    }

    /// The refutation of `set` (a subset of a choice) where it was asked.
    pub(super) fn refuted(&mut self, set: Vec<(u32, u32)>) -> Verdict {
        self.count_refutation(set.len());
        Verdict::Refuted(set)
    }

    /// A refutation of a set of `len` tilings counts as progress.
    pub(super) fn count_refutation(&mut self, len: usize) {
        self.stats.refuted += 1;
        self.fruitless = 0;
        self.progress_at = Instant::now();
        log::debug!("choices: a set of {len} tilings refuted");
    }

    /// The window net (models/bounds.md §7) of the model in which the ops of
    /// `set` have its tilings and every other op its candidates (the net
    /// holds only the nodes certain to exist): `None` when it has no unary
    /// resource or the model is beyond its time range.
    pub(super) fn net_of(&self, set: &[(u32, u32)]) -> Option<SetNet<'a>> {
        let mut cand = self.cands.clone();
        for &(op, t) in set {
            cand[op as usize] = vec![t];
        }
        let m = Model::new(self.inst, &cand);
        if m.horizon == 0 || m.horizon > crate::sat::MAX_TIME {
            return None;
        }
        Some(SetNet {
            wn: WindowNet::new(&m)?,
            m,
        })
    }

    /// A decision by the window net alone at `level`, before any encoding
    /// (every op fixed, every node of the choice is in the net: it refutes
    /// most choices at a level by propagation alone in under a millisecond,
    /// where SAT takes about a second; results/policy.md). A choice refuted
    /// by propagation is shrunk by deletion (an op
    /// is freed when the windows stay empty without it; ops with one
    /// candidate are free at once), one refuted by shaving is kept whole:
    /// the set refuted at `level`. `None`: the net refutes nothing, the
    /// encoding decides. Takes at most about `time` (to check, or to
    /// shrink). (The net's destructive bound on the set, which would let one
    /// refutation exclude it at the levels above too, costs more of the
    /// net's time than it saves: the relaxation proposes again in a few
    /// milliseconds; results/policy.md.)
    pub(super) fn net_decision(
        &mut self,
        choice: &[u32],
        level: u64,
        time: Duration,
        deadline: &Deadline,
    ) -> Option<Vec<(u32, u32)>> {
        let t0 = Instant::now();
        let mut set = self.choice_set(choice);
        let net = self.net_of(&set)?;
        // A refutation by propagation alone is shrunk (each try costs
        // about a millisecond); one that needed shaving keeps the whole
        // choice: shrinking it kept nearly every tiling of the choice at a
        // large cost a choice, and the enumeration proved its optimum
        // sooner without it.
        if !net.refutes(level) {
            let until = deadline.stop_after(time);
            if let Some(w) = net.shaved(level, until) {
                // Shaved to its fixpoint: the windows the choice's answer
                // would compute again (up to 0.4 s) are kept for it.
                if !until.passed()
                    && let Some(windows) = self.in_shared(&net, &w, level)
                {
                    self.net_windows.retain(|_, (at, _)| *at == level);
                    self.net_windows.insert(choice.to_vec(), (level, windows));
                }
                return None;
            }
        } else {
            let shrink_until = deadline.stop_after(time);
            let mut i = 0;
            while i < set.len() && !shrink_until.passed() {
                let mut without = set.clone();
                without.remove(i);
                match self.net_of(&without) {
                    Some(n) if n.refutes(level) => set = without,
                    _ => i += 1,
                }
            }
        }
        self.stats.net_refuted += 1;
        log::debug!(
            "choices: the window net refuted a choice in {:.3} s ({} tilings kept)",
            t0.elapsed().as_secs_f64(),
            set.len()
        );
        self.count_refutation(set.len());
        Some(set)
    }

    /// `decide` over the shared encoding (every candidate), under the
    /// assumption of the choice's selectors. UNSAT: the selectors the
    /// refutation used (varisat's failed assumptions) are refuted together,
    /// a subset of the choice; none at all means no schedule below the
    /// incumbent whatever the choice.
    pub(super) fn decide_shared(
        &mut self,
        choice: &[u32],
        ask: Ask,
        time: Duration,
        deadline: &Deadline,
    ) -> Verdict {
        let sh = self.shared.as_mut().expect("shared encoding");
        let m = sh.m;
        let g = u128::from(m.g);
        // The choice's selectors (ops with one candidate have none).
        let mut assume: Vec<Lit> = Vec::new();
        let mut tiling_of: HashMap<Lit, (u32, u32)> = HashMap::new();
        for (op, &t) in choice.iter().enumerate() {
            for slot in m.op_slots[op].clone() {
                if m.slots[slot as usize].tiling == t
                    && let L::Lit(l) = sh.enc.sel[slot as usize]
                {
                    assume.push(l);
                    tiling_of.insert(l, (op as u32, t));
                }
            }
        }
        // At a level, the choice's own windows (its window net, every op
        // fixed: the timetables see every node) under a literal of their
        // own, assumed with it.
        let mut windows = None;
        if let Ask::AtMost(level) = ask {
            let until = deadline.stop_after(CHOICES.net_time.1);
            match self.choice_windows(choice, level, until) {
                Some(Ok(a)) => {
                    assume.push(a);
                    windows = Some(a);
                }
                Some(Err(())) => {
                    self.stats.net_refuted += 1;
                    let set = self.choice_set(choice);
                    return self.refuted(set);
                }
                None => {}
            }
        }
        // Each answer gets `time` of this thread's CPU (src/stop.rs: the
        // same work on a loaded machine), within the deadline.
        let mut stop = deadline.stop_after(time);
        loop {
            let Some(t) = self.target(ask, g).and_then(|t| i64::try_from(t).ok()) else {
                return Verdict::TooLarge;
            };
            let sh = self.shared.as_mut().expect("shared encoding");
            match sh.enc.decide(t, &assume, stop) {
                Answer::Sat(d) => {
                    let sched = to_schedule(m, &d);
                    let Some(ms) = self.on_schedule(sched, time, deadline) else {
                        return Verdict::Undecided;
                    };
                    if self.settled_by(ask, ms) {
                        return Verdict::Proven;
                    }
                    stop = deadline.stop_after(time);
                }
                Answer::Unsat => {
                    let core = sh.enc.failed_assumptions();
                    // The windows hold for the whole choice only: a core
                    // that used them refutes the whole choice.
                    let set: Vec<(u32, u32)> = if windows.is_some_and(|a| core.contains(&a)) {
                        self.choice_set(choice)
                    } else {
                        core.iter()
                            .filter_map(|l| tiling_of.get(l).copied())
                            .collect()
                    };
                    return self.refuted(set);
                }
                Answer::Interrupted => {
                    // The solver stays usable (with what it learned); past
                    // the deadline it is dropped.
                    if sh.enc.is_root_unsat() || deadline.expired() {
                        self.shared = None;
                    }
                    return Verdict::Undecided;
                }
                Answer::OverBudget => {
                    // Lazy cuts filled the budget: choices alone from now on.
                    self.shared = None;
                    return Verdict::Undecided;
                }
            }
        }
    }

    /// `decide` over an encoding of the choice alone (every op fixed).
    ///
    /// At a level, an answer the clock cuts short keeps its encoding
    /// (`keep`), and the choice's next answer there goes on where it
    /// stopped (`Encoder::resume`, no restart): varisat is deterministic, so
    /// a fresh encoding would first retrace the search it had (the same
    /// clauses, the same decisions), and each round's doubled time would
    /// buy half its length (on paired runs of the memory-tight set, about
    /// three times as many proofs at short limits). Below the
    /// incumbent the makespan asked falls between answers, and keeping the
    /// encoding there (a restart under the new makespan) was no better: 14
    /// of 24 against 15.
    pub(super) fn decide_alone(
        &mut self,
        choice: &[u32],
        ask: Ask,
        time: Duration,
        deadline: &Deadline,
    ) -> Verdict {
        let level = match ask {
            Ask::AtMost(l) => Some(l),
            Ask::Below => None,
        };
        // Each answer gets `time` (the first one its build too): a choice
        // that keeps giving better schedules keeps its warm solver. Below
        // the incumbent an answer cut short loses its work, so `time` is an
        // effort of this thread's CPU (src/stop.rs); at a level it goes on
        // where it stopped, and the rounds are slices of the wall clock: a
        // loaded machine then goes round the choices in finer slices, where
        // efforts would leave the level's first round unfinished
        // (results/policy.md).
        // (A deadline that ends at a CPU time, `Deadline::capped_effort`,
        // ends the slices there too.)
        let slice = |time: Duration| match level {
            Some(_) => deadline.capped(time).stop(),
            None => deadline.stop_after(time),
        };
        let mut stop = slice(time);
        // Kept encodings serve their level only.
        self.kept.retain(|k| Some(k.level) == level);
        let kept = self.kept.iter().position(|k| k.choice == choice);
        let (mut enc, mut tmax) = match kept {
            Some(i) => {
                self.stats.resumed += 1;
                let enc = self.kept.remove(i).enc;
                let tmax = enc.tmax as u64;
                (enc, tmax)
            }
            None => match self.encode_alone(choice, ask, stop, deadline) {
                Ok(built) => built,
                Err(v) => return v,
            },
        };
        let g = u128::from(enc.m.g);
        loop {
            match enc.resume(tmax as i64, stop) {
                Answer::Sat(d) => {
                    let sched = to_schedule(&enc.m, &d);
                    let Some(ms) = self.on_schedule(sched, time, deadline) else {
                        return Verdict::Undecided;
                    };
                    if self.settled_by(ask, ms) {
                        return Verdict::Proven;
                    }
                    stop = slice(time);
                    // A model's makespan is at most `tmax` units: the next
                    // probe is lower.
                    match self.target(ask, g) {
                        Some(t) => tmax = t.min(tmax.saturating_sub(1)),
                        None => return Verdict::Undecided,
                    }
                }
                Answer::Unsat => return self.refuted(whole_choice(choice)),
                Answer::Interrupted => {
                    if let Some(level) = level {
                        self.keep(Kept {
                            choice: choice.to_vec(),
                            level,
                            enc,
                        });
                    }
                    return Verdict::Undecided;
                }
                Answer::OverBudget => return Verdict::Undecided,
            }
        }
    }

    /// The encoding of `choice` alone for `ask` (its makespan in units),
    /// built by `end` within the memory budget less the kept encodings'
    /// (all of it once they are dropped). `Err`: the verdict without one.
    pub(super) fn encode_alone(
        &mut self,
        choice: &[u32],
        ask: Ask,
        end: Stop,
        deadline: &Deadline,
    ) -> Result<(Encoder<'a, 'a>, u64), Verdict> {
        let cand: Vec<Vec<u32>> = choice.iter().map(|&t| vec![t]).collect();
        let m = Rc::new(Model::new(self.inst, &cand));
        // The makespan asked (below no incumbent: the choice's own horizon,
        // which holds some schedule if it has one, models/sat.md §1.4).
        let top = if self.ub == u128::MAX && matches!(ask, Ask::Below) {
            Some(m.horizon)
        } else {
            self.target(ask, u128::from(m.g))
        };
        let Some(tmax) = top else {
            return Err(Verdict::TooLarge);
        };
        if tmax > crate::sat::MAX_TIME || m.horizon > crate::sat::MAX_TIME {
            return Err(Verdict::TooLarge);
        }
        let Ok(pts) = plan(&m, u128::from(tmax), self.budget) else {
            return Err(Verdict::TooLarge);
        };
        let mut enc = loop {
            let limits = Limits {
                max_bytes: self.budget.saturating_sub(self.kept_bytes()),
                deadline: Some(end),
                cancel: deadline.cancel.clone(),
            };
            // One-core orders left to the edge-finding propagator
            // (models/sat.md §3 item 5): nothing assumes order literals
            // here, and the pair clauses were 91 % of the encoding and half
            // of the solver's time (answers about twice as fast without).
            match Encoder::build_with(Rc::clone(&m), tmax, pts.clone(), limits, Orders::Propagated)
            {
                Ok(enc) => break enc,
                // Over what the kept ones leave: they go, and the build
                // gets the whole budget.
                Err(EncodeStop::OverBudget { .. }) if !self.kept.is_empty() => {
                    self.kept.clear();
                }
                Err(EncodeStop::OverBudget { .. }) => return Err(Verdict::TooLarge),
                Err(EncodeStop::Deadline) => return Err(Verdict::Undecided),
            }
        };
        // Every node of the choice is certain: the window net holds them
        // all, and its windows under each makespan asked are clauses
        // (models/sat.md §3.8).
        if let Some(wn) = WindowNet::new(&m) {
            enc.use_windows(wn);
        }
        enc.use_propagators(crate::sat::encode::Lazy::ALL);
        Ok((enc, tmax))
    }

    /// Keeps `k` for the next answer at its level while the kept ones hold
    /// at most half the memory budget, so that the level's other choices
    /// still get the other half. Those kept first stay: each round goes over
    /// the level's choices in the same order, so dropping the oldest for a
    /// newer one would drop each before its next turn (results/policy.md).
    pub(super) fn keep(&mut self, k: Kept<'a>) {
        if self.kept_bytes() + k.enc.bytes_estimate() <= self.budget / 2 {
            self.kept.push(k);
        }
    }

    /// Bytes of the kept encodings (`Encoder::bytes_estimate`).
    pub(super) fn kept_bytes(&self) -> u64 {
        self.kept.iter().map(|k| k.enc.bytes_estimate()).sum()
    }
}
