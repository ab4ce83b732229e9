//! The makespan descent of the SAT search (models/sat.md §6): which probe
//! comes next, how long it may take, and what each answer does to the
//! bounds; when the search hands its time back.

use super::*;

/// The bound probes of the descent (models/sat.md 6): not started, running
/// until an instant, or over (they run at most once).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum BoundPhase {
    NotYet,
    Until(Instant),
    Done,
}

/// How the descent spends its time: when it hands the time back before
/// the deadline (the portfolio's settings; never, by default, when SAT runs
/// alone) and whether it probes bounds from below.
#[derive(Clone, Copy, Debug)]
pub struct Policy {
    /// No probe answered by then: the encoding is too hard to start on.
    pub first_answer_by: Option<Instant>,
    /// A probe below the top undecided: models near the incumbent are hard
    /// for the solver to find, and the tabu search on core orders often
    /// finds them faster (results/policy.md).
    pub hand_back_when_stuck: bool,
    /// A first top probe undecided while the gap is wide starts the bound
    /// probes (models/sat.md §6). They pay where the starting bounds are
    /// weak (memory); where they are strong and the incumbent near the
    /// optimum (job shops after the tabu search) the top probe is the proof,
    /// and interrupting it loses its learned clauses (results/policy.md).
    pub bound_probes: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            first_answer_by: None,
            hand_back_when_stuck: false,
            bound_probes: true,
        }
    }
}

/// What the descent's probes need besides its own state.
pub(super) struct Probing<'x, 'a> {
    pub(super) inst: &'x Instance,
    pub(super) m: &'x Model<'a>,
    pub(super) deadline: &'x Deadline,
    pub(super) policy: Policy,
    pub(super) certify: Option<&'x Certifier>,
    pub(super) g: u64,
    pub(super) lb0: u64,
    pub(super) incumbent: Option<u128>,
    pub(super) budget: u64,
    /// Each better model, offered to the solve's events as found.
    pub(super) progress: crate::solve::Progress,
}

impl Probing<'_, '_> {
    /// Time units as instance time (u128: a unit count times the unit may
    /// pass u64).
    pub(super) fn time(&self, t: u64) -> u128 {
        u128::from(t) * u128::from(self.g)
    }
}

/// After an answer: go on probing, or stop the descent.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Flow {
    Go,
    Stop,
}

/// Bound probes stay in the lower half while the gap is wide (over 2 %):
/// near the optimum they are the hard proof probes, better left to the
/// descent, which keeps its learned clauses.
pub(super) fn wide(lo: u64, hi: u64) -> bool {
    hi >= lo + 2 && (hi - lo) * 50 > hi
}

/// The state of the galloping descent (models/sat.md §6), in time units.
pub(super) struct Descent {
    /// Proven: no schedule below `lo`. Sought: one of makespan <= `hi`.
    pub(super) lo: u64,
    pub(super) hi: u64,
    pub(super) best: Option<Schedule>,
    pub(super) interrupted: bool,
    pub(super) last_unsat: Option<u64>,
    pub(super) step: u64,
    /// Galloping stops after the first probe that runs out of its share:
    /// from then on the descent is one unit at a time (no more lost learned
    /// clauses).
    pub(super) gallop: bool,
    pub(super) last_probe: Duration,
    pub(super) polished: usize,
    /// The bound moved to an event point without a SAT call.
    pub(super) jumped: bool,
    /// Bound probes: when the very first probe (just below the incumbent) is
    /// undecided after its share, the encoding is hard near the top. Probes
    /// then climb from just above the proven bound, each on a short share,
    /// and every UNSAT among them raises the bound and teaches the solver
    /// clauses that help the descent: the result carries a real gap even
    /// when the top is never reached (a memory-tight generated instance of 93
    /// nodes: first probe undecided for 10 s; with bound probes, proven
    /// optimal).
    pub(super) bound_phase: BoundPhase,
    pub(super) bound_inc: u64,
    pub(super) bound_unsat: usize,
    pub(super) over_budget: bool,
    /// Times the encoding was built again below its first horizon.
    pub(super) reencoded: usize,
    pub(super) lo_before: u64,
    /// The first probe gets a share of the time; when it is undecided after
    /// that, the bound probes run before the descent resumes.
    pub(super) first_share_end: Instant,
    /// A probe ran out of time: the window net's shaving is worth its cost
    /// now (its destructive bound, shaved windows per probe).
    pub(super) escalated: bool,
    /// The bound the window net's destructive search proved, if it raised `lo`.
    pub(super) window_lo: Option<u64>,
}

impl Descent {
    pub(super) fn new(lo: u64, hi: u64, deadline: &Deadline) -> Self {
        Descent {
            lo,
            hi,
            best: None,
            interrupted: false,
            last_unsat: None,
            step: 1,
            gallop: true,
            last_probe: Duration::from_millis(40),
            polished: 0,
            jumped: false,
            bound_phase: BoundPhase::NotYet,
            bound_inc: 1,
            bound_unsat: 0,
            over_budget: false,
            reencoded: 0,
            lo_before: lo,
            escalated: false,
            window_lo: None,
            first_share_end: instant_after(
                Instant::now(),
                deadline
                    .remaining()
                    .mul_f64(0.1)
                    .max(Duration::from_secs(1)),
            ),
        }
    }

    /// The search's notes (bound probes, solver statistics) and what the
    /// result needs: the best schedule and the proven bound with its source
    /// (the last UNSAT answer's; over event points, optimal makespans are
    /// points too, models/sat.md 1.6).
    pub(super) fn finish(
        self,
        st: encode::Stats,
        enc_tmax: i64,
        cx: &Probing,
        mut lb_source: String,
        points_note: &str,
        res: &mut SolveResult,
    ) -> Found {
        if self.bound_unsat > 0 {
            res.note(format!(
                "bound probes: {} UNSAT from below, the bound raised from {} to {}",
                self.bound_unsat,
                cx.time(self.lo_before),
                cx.time(self.lo.min(self.hi + 1))
            ));
        }
        res.note(format!(
            "search: {} solver calls, {} makespans refuted by the window net, {} edge-finding clauses ({} overloads), {} timetable clauses ({} overflows), {} core cuts, {} memory cuts, {} models tightened by forward-backward{}{}",
            st.solves,
            st.window_refutations,
            st.ef_conflicts + st.ef_bounds,
            st.ef_conflicts,
            st.hold_conflicts + st.hold_bounds,
            st.hold_conflicts,
            st.core_cuts,
            st.mem_cuts,
            self.polished,
            match self.reencoded {
                0 => String::new(),
                1 => ", encoded again once below its first horizon (the counts are of the last \
                      encoding)"
                    .to_string(),
                n => format!(
                    ", encoded again {n} times below its first horizon (the counts are of the \
                     last encoding)"
                ),
            },
            if self.interrupted {
                ", stopped by the time limit"
            } else {
                ""
            }
        ));
        let by_sat = self
            .last_unsat
            .filter(|&t| self.window_lo.is_none_or(|w| t >= w));
        if let Some(t) = by_sat {
            lb_source = format!(
                "SAT: no schedule with makespan <= {} (UNSAT over all candidate tilings){points_note}",
                cx.time(t)
            );
        } else if let Some(w) = self.window_lo {
            lb_source = windows::refuted(cx.time(w - 1));
        } else if self.jumped {
            lb_source.push_str(points_note);
        }
        // The encoding's horizon (non-negative, at most MAX_TIME).
        let tmax = enc_tmax as u64;
        Found {
            best: self.best,
            lo: self.lo,
            lb_source,
            settled_infeasible: self.last_unsat == Some(tmax)
                && tmax == cx.m.horizon
                && !self.interrupted
                && !self.over_budget,
            tmax,
        }
    }

    /// Whether an undecided first top probe would start the bound probes:
    /// not yet run, allowed by the policy, and the gap wide.
    pub(super) fn bound_phase_may_start(&self, cx: &Probing) -> bool {
        self.bound_phase == BoundPhase::NotYet && cx.policy.bound_probes && wide(self.lo, self.hi)
    }

    /// The first probe that ran out of time: the window net's destructive
    /// bound (models/bounds.md §7; a tenth of the time left, 5 s at most)
    /// raises `lo`, and the horizon's windows are shaved (2 s at most).
    /// Cheap probes never pay for shaving; hard ones get it.
    pub(super) fn escalate(&mut self, enc: &mut Encoder, cx: &Probing) {
        self.escalated = true;
        let t0 = Instant::now();
        let share = cx
            .deadline
            .remaining()
            .mul_f64(DESCENT.window_bound_share)
            .min(DESCENT.window_bound_time);
        let Some(b) = enc.window_bound(self.lo as i64, self.hi as i64, instant_after(t0, share))
        else {
            return;
        };
        let b = b as u64;
        log::info!(
            "sat: window net bound {} in {:.3} s",
            cx.time(b),
            t0.elapsed().as_secs_f64()
        );
        if b > self.lo {
            self.lo = b;
            self.window_lo = Some(b);
        }
        enc.shave_horizon(
            DESCENT
                .window_shave_most
                .min(cx.deadline.remaining().mul_f64(DESCENT.window_shave_share)),
        );
    }

    /// The next makespan to probe (rounded down to a time point) and whether
    /// it is a bound probe; `None` when no point lies in `[lo, t]` (the bound
    /// then jumps to the next point, no optimal makespan being there).
    pub(super) fn next_probe(&mut self, enc: &Encoder) -> Option<(u64, bool)> {
        if !self.gallop {
            self.step = 1;
        }
        let (lo, hi) = (self.lo, self.hi);
        let low = matches!(self.bound_phase, BoundPhase::Until(end) if Instant::now() < end)
            && wide(lo, hi);
        if matches!(self.bound_phase, BoundPhase::Until(_)) && !low {
            self.bound_phase = BoundPhase::Done;
        }
        let t = if low {
            (lo + self.bound_inc - 1).min(lo + (hi - lo) / 2)
        } else {
            hi.saturating_sub(self.step - 1).max(lo)
        };
        // "makespan <= t" is "makespan <= the point at or below t".
        match enc.pts.down(t as i64) {
            p if p >= lo as i64 => Some((p as u64, low)),
            _ => {
                self.lo = enc.pts.up(t as i64 + 1) as u64;
                self.jumped = true;
                None
            }
        }
    }

    /// When the probe at `t` must answer: a bound probe 5 % of the time
    /// left (at least 0.2 s, within its phase); the top probe all of it
    /// (until the first answer: `first_answer_by`, and the first share
    /// while the gap is wide); a galloping probe 10 % of it, at most five
    /// times the last probe's time.
    pub(super) fn probe_stop(&self, t: u64, low: bool, answered: bool, cx: &Probing) -> Instant {
        let deadline = cx.deadline;
        if low {
            let share = deadline
                .remaining()
                .mul_f64(0.05)
                .max(Duration::from_millis(200));
            instant_after(Instant::now(), share)
                .min(match self.bound_phase {
                    BoundPhase::Until(end) => end,
                    _ => deadline.end,
                })
                .min(deadline.end)
        } else if t == self.hi {
            let mut end = deadline.end;
            if !answered {
                if let Some(by) = cx.policy.first_answer_by {
                    end = end.min(by);
                }
                if self.bound_phase_may_start(cx) {
                    end = end.min(self.first_share_end);
                }
            }
            end
        } else {
            let share = deadline
                .remaining()
                .mul_f64(0.1)
                .min(self.last_probe * 5)
                .max(Duration::from_millis(200));
            instant_after(Instant::now(), share).min(deadline.end)
        }
    }

    /// A schedule of makespan <= `t`: kept (polished by the list engine's
    /// forward-backward passes: a model's starts are legal but often loose),
    /// the top moves below it and the step doubles.
    pub(super) fn on_sat(&mut self, d: &Decoded, t: u64, t1: Instant, cx: &Probing) -> Flow {
        let m = cx.m;
        let ms = d.makespan(m);
        log::info!(
            "sat: makespan <= {} SAT: {} in {:.3} s",
            cx.time(t),
            cx.time(ms),
            t1.elapsed().as_secs_f64()
        );
        let mut found = to_schedule(m, d);
        let mut ms = ms;
        // Starts and durations are whole units (`to_schedule`).
        let mut exact = cx.time(ms);
        if let Some(f) = crate::list::polish(cx.inst, &found, cx.lb0, cx.deadline) {
            log::info!(
                "sat: the model polished by forward-backward to {}",
                f.makespan
            );
            ms = ms.min(f.makespan.div_ceil(cx.g));
            exact = u128::from(f.makespan);
            found = f.schedule;
            self.polished += 1;
        }
        cx.progress.offer(cx.inst, &found, exact, "sat", || {
            format!("descent, makespan <= {}", cx.time(t))
        });
        self.best = Some(found);
        if ms == 0 {
            return Flow::Stop;
        }
        self.hi = ms.min(t) - 1;
        self.step = self.step.saturating_mul(2);
        Flow::Go
    }

    /// No schedule of makespan <= `t`: the bound rises above it (certified
    /// with --certify), the answer stays in the solver as a unit, and the
    /// step bisects what is left.
    pub(super) fn on_unsat(
        &mut self,
        enc: &mut Encoder,
        t: u64,
        low: bool,
        t1: Instant,
        cx: &Probing,
        res: &mut SolveResult,
    ) -> Flow {
        log::info!(
            "sat: makespan <= {} UNSAT in {:.3} s",
            cx.time(t),
            t1.elapsed().as_secs_f64()
        );
        self.lo = enc.pts.up(t as i64 + 1) as u64;
        self.last_unsat = Some(t);
        if let Some(c) = cx.certify {
            // Without a schedule, UNSAT at the horizon is the infeasibility
            // proof (models/sat.md 1.4).
            let infeasible = self.best.is_none() && cx.incumbent.is_none() && t == cx.m.horizon;
            let claim = if infeasible {
                format!(
                    "no schedule with makespan <= {} (the horizon, the sum of the \
                     largest candidate durations: so no legal schedule at all)",
                    cx.time(t)
                )
            } else {
                format!("no schedule with makespan <= {}", cx.time(t))
            };
            let probe = Probe {
                tag: format!("T{}", cx.time(t)),
                claim,
                bound: Some(self.lo.saturating_mul(cx.g)),
                infeasible,
            };
            // The certifying solve gets what the search has, less the time to
            // free a second solver of the same size.
            let stop = cx
                .deadline
                .end
                .checked_sub(enc.drop_time())
                .unwrap_or(cx.deadline.end);
            certify_answer(enc, cx.inst, c, probe, stop, res);
        }
        enc.fix_makespan(t as i64, false);
        if low {
            self.bound_unsat += 1;
            self.bound_inc = self.bound_inc.saturating_mul(2);
        }
        self.step = (self.hi.saturating_sub(self.lo) + 1).div_ceil(2).max(1);
        Flow::Go
    }

    /// Whether an encoding that lazy cuts took over the budget is built
    /// again (`DescentPolicy::reencode_share`): the makespans still asked reach at most that
    /// share of its horizon, and more than a second is left.
    pub(super) fn may_reencode(&self, enc: &Encoder, cx: &Probing) -> bool {
        (self.hi as f64) < DESCENT.reencode_share * enc.tmax as f64
            && self.lo <= self.hi
            && cx.deadline.remaining() > Duration::from_secs(1)
    }

    /// Lazy cuts took the encoding over the memory budget: the search stops.
    pub(super) fn on_over_budget(
        &mut self,
        enc: &Encoder,
        cx: &Probing,
        res: &mut SolveResult,
    ) -> Flow {
        self.over_budget = true;
        res.step_aside(
            StepAside::OverMemoryBudget {
                estimated_mib: enc.bytes_estimate() >> 20,
                budget_mib: cx.budget >> 20,
                stage: BudgetStage::LazyCuts,
            },
            format!(
                "lazy cuts took the encoding over the memory budget (about {} MiB, \
                 budget {} MiB; --memory-limit): search stopped",
                enc.bytes_estimate() >> 20,
                cx.budget >> 20
            ),
        );
        Flow::Stop
    }

    /// The probe ran out of its share: at the deadline the search stops; a
    /// first top probe undecided while the gap is wide starts the bound
    /// probes; with no probe answered by `first_answer_by` the search gives
    /// up; an undecided bound probe ends their phase; otherwise the descent
    /// goes on one unit at a time (the solver keeps what it learned).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn on_interrupted(
        &mut self,
        t: u64,
        low: bool,
        answered: bool,
        t1: Instant,
        cx: &Probing,
        res: &mut SolveResult,
    ) -> Flow {
        let deadline = cx.deadline;
        if deadline.expired() {
            self.interrupted = true;
            return Flow::Stop;
        }
        if !answered
            && t == self.hi
            && self.bound_phase_may_start(cx)
            && cx
                .policy
                .first_answer_by
                .is_none_or(|by| Instant::now() < by)
        {
            log::info!(
                "sat: makespan <= {} undecided after {:.3} s: bound probes from below first",
                cx.time(t),
                t1.elapsed().as_secs_f64()
            );
            self.bound_phase = BoundPhase::Until(deadline.at_share(0.25));
            self.bound_inc = ((self.hi - self.lo) / 16).max(1);
            return Flow::Go;
        }
        if !answered
            && cx
                .policy
                .first_answer_by
                .is_some_and(|by| Instant::now() >= by)
        {
            res.hand_back(format!(
                "makespan <= {} undecided after {:.1} s, no probe answered: search given up",
                cx.time(t),
                t1.elapsed().as_secs_f64()
            ));
            self.interrupted = true;
            return Flow::Stop;
        }
        if low {
            log::info!(
                "sat: bound probe makespan <= {} undecided after {:.3} s: back to the top",
                cx.time(t),
                t1.elapsed().as_secs_f64()
            );
            self.bound_phase = BoundPhase::Done;
            return Flow::Go;
        }
        if cx.policy.hand_back_when_stuck {
            res.hand_back(format!(
                "makespan <= {} undecided after {:.1} s: search handed back (models below \
                     the incumbent are hard to find)",
                cx.time(t),
                t1.elapsed().as_secs_f64()
            ));
            self.interrupted = true;
            return Flow::Stop;
        }
        log::info!(
            "sat: makespan <= {} undecided after {:.3} s: descending by one",
            cx.time(t),
            t1.elapsed().as_secs_f64()
        );
        self.gallop = false;
        Flow::Go
    }
}
