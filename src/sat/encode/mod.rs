//! The CNF of "is there a schedule of the model with makespan <= T?" and the
//! incremental solve loop with lazy core and memory cuts (models/sat.md).
//!
//! Integers are order-encoded over time points: every integer, or (for long
//! horizons) only the event points, the sums of durations that a left-justified
//! schedule can produce (`Points`, models/sat.md 1.6). For an integer `X` whose
//! domain is the points `p_lo < ... < p_hi`, variable `i` means `X <= p_(lo+i)`;
//! `X <= t` for any `t` is the variable of the largest point `<= t`, false below
//! `p_lo` and true from `p_hi` on. Starts of nodes, and per op the end of its
//! sinks (`F`) and the start of its sources (`G`), are such integers.

mod answers;
mod cuts;
mod statics;
mod windows;

use std::cell::Cell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Instant;

use varisat::solver::SolverError;
use varisat::{ExtendFormula, Lit, Solver, Var};

use super::model::Model;
use crate::instance::TypeIdx;
use crate::stop::Stop;

/// Largest set of holders whose memory cut forbids every common instant at
/// once (`no_common_hold`: one literal per ordered pair); larger sets get
/// a cut per instant.
const GENERAL_CUT_MAX: usize = 3;

/// Most clauses spent on redundant memory pairs.
const MEMORY_PAIR_CLAUSES: usize = 2_000_000;

/// A literal or a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum L {
    T,
    F,
    Lit(Lit),
}

impl std::ops::Not for L {
    type Output = L;
    fn not(self) -> L {
        match self {
            L::T => L::F,
            L::F => L::T,
            L::Lit(l) => L::Lit(!l),
        }
    }
}

/// The time points integers may take: every integer (`None`), or a sorted
/// list of event points that contains 0 and the horizon.
#[derive(Clone, Debug, Default)]
pub struct Points(Option<Vec<i64>>);

impl Points {
    pub fn every() -> Self {
        Points(None)
    }

    /// Points from a sorted, duplicate-free list (from `event_points`).
    pub fn from_sorted(p: Vec<i64>) -> Self {
        debug_assert!(p.windows(2).all(|w| w[0] < w[1]));
        Points(Some(p))
    }

    pub fn is_every(&self) -> bool {
        self.0.is_none()
    }

    /// Index of the largest point `<= t` (-1 if none); the identity when dense.
    #[inline]
    fn idx_le(&self, t: i64) -> i64 {
        match &self.0 {
            None => t,
            Some(p) => p.partition_point(|&x| x <= t) as i64 - 1,
        }
    }

    /// The point at index `i`.
    #[inline]
    fn at(&self, i: i64) -> i64 {
        match &self.0 {
            None => i,
            Some(p) => p[i as usize],
        }
    }

    /// The largest point `<= t` (`t` itself when dense or below every point).
    pub fn down(&self, t: i64) -> i64 {
        let i = self.idx_le(t);
        if i < 0 { t } else { self.at(i) }
    }

    /// The smallest point `>= t` (`t` itself when dense or above every point).
    pub fn up(&self, t: i64) -> i64 {
        match &self.0 {
            None => t,
            Some(p) => p.get(p.partition_point(|&x| x < t)).copied().unwrap_or(t),
        }
    }

    /// How many points lie in `[lo, hi]`.
    pub fn count(&self, lo: i64, hi: i64) -> u128 {
        if hi < lo {
            return 0;
        }
        match &self.0 {
            None => (hi - lo) as u128 + 1,
            Some(_) => (self.idx_le(hi) - self.idx_le(lo - 1)).max(0) as u128,
        }
    }
}

/// Event points up to `tmax` (in time units): 0, `tmax`, and every sum of
/// durations of distinct nodes of the model. In a left-justified schedule every
/// start is 0 or the end of another node, so by induction every start and end
/// is such a sum (models/sat.md 1.6). `None` when there would be more than
/// `cap` points (the encoding would be too large anyway) or, with `for_gain`,
/// when the points are at least half of all instants (nothing to gain).
pub fn event_points(m: &Model, tmax: u64, cap: usize, for_gain: bool) -> Option<Vec<i64>> {
    let tmax = i64::try_from(tmax).ok()?;
    let mut durs: Vec<i64> = m
        .nodes
        .iter()
        .filter_map(|n| i64::try_from(n.dur).ok())
        .filter(|&d| d > 0 && d <= tmax)
        .collect();
    durs.sort_unstable();
    let mut pts: Vec<i64> = vec![0];
    let mut next: Vec<i64> = Vec::new();
    for d in durs {
        // pts merged with pts + d (each node used at most once).
        next.clear();
        let shifted = &pts[..pts.partition_point(|&x| x.saturating_add(d) <= tmax)];
        let (mut i, mut j) = (0, 0);
        while i < pts.len() || j < shifted.len() {
            let x = if j >= shifted.len() || (i < pts.len() && pts[i] <= shifted[j] + d) {
                i += 1;
                pts[i - 1]
            } else {
                j += 1;
                shifted[j - 1] + d
            };
            if next.last() != Some(&x) {
                next.push(x);
            }
        }
        std::mem::swap(&mut pts, &mut next);
        if pts.len() > cap || (for_gain && 2 * pts.len() as u128 > tmax as u128 + 1) {
            return None;
        }
    }
    if pts.last() != Some(&tmax) {
        pts.push(tmax);
    }
    Some(pts)
}

/// An order-encoded integer over the points with indices `ilo ..= ihi`
/// (`lo`, `hi`: those points).
#[derive(Clone, Copy, Debug)]
pub struct IVar {
    base: u32,
    pub lo: i64,
    pub hi: i64,
    ilo: i64,
    ihi: i64,
}

/// The decoded model: a tiling per op (slot index, `u32::MAX` for absent ops)
/// and a start per model node (scaled; meaningful for selected slots only).
#[derive(Clone, Debug)]
pub struct Decoded {
    pub slot_of_op: Vec<u32>,
    pub start: Vec<u64>,
}

impl Decoded {
    pub fn makespan(&self, m: &Model) -> u64 {
        let mut ms = 0;
        for &s in &self.slot_of_op {
            if s == u32::MAX {
                continue;
            }
            let sl = &m.slots[s as usize];
            for v in sl.first..sl.first + sl.n {
                ms = ms.max(self.start[v as usize] + m.nodes[v as usize].dur);
            }
        }
        ms
    }
}

/// Outcome of one decision call.
#[derive(Debug)]
pub enum Answer {
    Sat(Decoded),
    Unsat,
    /// Time limit (or the portfolio's cancel flag): undecided. The solver
    /// stays usable, with the clauses it learned.
    Interrupted,
    /// The lazy cuts took the encoding over its memory budget: undecided, and
    /// the search should stop (the solver stays usable).
    OverBudget,
}

/// Which of the propagators (clauses learned during the search) an
/// encoding uses (`Encoder::use_propagators`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lazy {
    /// Overload and edge finding on one-core types (sat/disjunctive.rs).
    pub edge_finding: bool,
    /// Timetabling of memory (under the release rule) and of core types
    /// with several cores (sat/holds.rs).
    pub holds: bool,
}

impl Lazy {
    pub const ALL: Lazy = Lazy {
        edge_finding: true,
        holds: true,
    };
    pub const NONE: Lazy = Lazy {
        edge_finding: false,
        holds: false,
    };
}

/// Several propagators asked in turn at each fixpoint. Each is asked every
/// time, so each sees which variables changed (a propagator that found a
/// conflict first may see its clause kept and a later one's dropped; later
/// ones keep such types to look at again).
struct Chain(Vec<Box<dyn varisat::external::ExternalPropagator>>);

impl varisat::external::ExternalPropagator for Chain {
    fn propagate(&mut self, values: &varisat::external::Values, out: &mut Vec<Vec<Lit>>) {
        for p in &mut self.0 {
            p.propagate(values, out);
        }
    }
}

/// How the order of two nodes on a one-core type is encoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Orders {
    /// An order literal per pair and its clauses at every instant of the
    /// two windows (models/sat.md §3 item 5), with transitivity.
    #[default]
    Clauses,
    /// Types the edge-finding propagator covers (sat/disjunctive.rs: dense
    /// time points, 2 to `MAX_TASKS` nodes) get no pair clauses: the
    /// propagator's overload check refutes every overlap of two selected
    /// nodes once their starts are known, and a model with an overlap all
    /// the same gets a lazy cut (`core_cuts`), so answers stay exact even
    /// without it (models/sat.md §3 item 5). Only for encodings whose order
    /// literals nothing assumes (the large-neighbourhood search assumes
    /// them, sat/lns.rs): those of the choice search (sat/choices.rs), of a
    /// choice alone and over every candidate.
    Propagated,
}

/// Counters for notes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    pub vars: usize,
    pub clauses: usize,
    pub core_cuts: usize,
    pub mem_cuts: usize,
    pub solves: usize,
    /// Makespans refuted by the window net alone (no solver call needed).
    pub window_refutations: usize,
    /// Clauses learned from the edge-finding propagator (sat/disjunctive.rs):
    /// overloads (conflicts) and raised start bounds.
    pub ef_conflicts: u64,
    pub ef_bounds: u64,
    /// Clauses learned from the memory timetable (sat/holds.rs): overflows
    /// (conflicts) and narrowed windows.
    pub hold_conflicts: u64,
    pub hold_bounds: u64,
    /// Answers that went on where the clock had stopped the last (`resume`).
    pub resumed: usize,
}

/// What the encoding may use while it is built: a memory budget (estimated
/// bytes, `bytes_estimate`) and a deadline, checked every `CHECK_EVERY`
/// clauses (amortised: an `Instant::now()` per 16k clauses).
#[derive(Clone, Debug)]
pub struct Limits {
    pub max_bytes: u64,
    pub deadline: Option<Stop>,
    pub cancel: Option<crate::stop::Cancel>,
}

impl Limits {
    /// No budget, no deadline (tests, tiny probes).
    pub fn none() -> Self {
        Limits {
            max_bytes: u64::MAX,
            deadline: None,
            cancel: None,
        }
    }
}

/// Why an encoding stopped: typed, for the engine's `StepAside`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EncodeStop {
    /// The estimated bytes passed the budget (the estimate at that moment).
    OverBudget { bytes: u64 },
    /// The deadline passed or the cancel flag was set.
    Deadline,
}

const CHECK_EVERY: usize = 1 << 14;

/// Calibrated cost of the encoding in memory (results/sat-budget.md): per
/// clause (varisat's clause storage, watches or binary implication lists, and
/// the encoder's own copy for certificates, vectors at their usual growth slack),
/// per literal, and per variable (varisat's per-variable arrays, two watch lists
/// and two implication lists). The peak of a search also holds learned
/// clauses; the calibration takes them in at the peak RSS of the measured runs.
pub const BYTES_PER_CLAUSE: u64 = 48;
pub const BYTES_PER_LIT: u64 = 24;
pub const BYTES_PER_VAR: u64 = 160;

/// Time to free an encoding of `bytes` (estimated): varisat frees millions of
/// small vectors, measured 0.38-0.61 ms per estimated MiB (results/sat-budget.md);
/// taken as 0.75 ns a byte (0.79 ms per MiB). The build stops early enough to
/// free what it built before the deadline, and the search ends that much
/// before it.
pub fn drop_time(bytes: u64) -> std::time::Duration {
    std::time::Duration::from_nanos(bytes / 4 * 3)
}

/// Estimated bytes of an encoding of this size.
pub fn bytes_for(clauses: u128, lits: u128, vars: u128) -> u128 {
    clauses
        .saturating_mul(u128::from(BYTES_PER_CLAUSE))
        .saturating_add(lits.saturating_mul(u128::from(BYTES_PER_LIT)))
        .saturating_add(vars.saturating_mul(u128::from(BYTES_PER_VAR)))
}

/// A solver whose search stops between two conflicts once the stop (a wall
/// instant, or an effort of the thread's CPU time: src/stop.rs) has passed
/// or `cancel` is set (the portfolio's flag: another engine has
/// finished the job). The hook is tmin's patch of varisat (vendor/varisat):
/// the stopped solver stays usable, so a search cut short keeps what it
/// learned and the next answer needs no reload.
fn fresh_solver(
    stop: &Rc<Cell<Option<Stop>>>,
    cancel: &Option<crate::stop::Cancel>,
) -> Solver<'static> {
    let mut solver = Solver::new();
    let (stop, cancel) = (stop.clone(), cancel.clone());
    solver.set_terminate(move || {
        stop.get().is_some_and(|s| s.passed())
            || cancel.as_ref().is_some_and(crate::stop::Cancel::is_set)
    });
    solver
}

/// The model an encoder reads: borrowed from its builder, or shared with
/// whoever keeps the encoder beyond the builder's scope (a choice's
/// encoding kept between answers, sat/choices.rs). A clone copies a
/// reference or an `Rc`: the steps that add clauses hold one while they
/// borrow the encoder mutably.
#[derive(Clone)]
pub enum ModelRef<'m, 'a> {
    Borrowed(&'m Model<'a>),
    Shared(Rc<Model<'a>>),
}

impl<'a> std::ops::Deref for ModelRef<'_, 'a> {
    type Target = Model<'a>;
    fn deref(&self) -> &Model<'a> {
        match self {
            ModelRef::Borrowed(m) => m,
            ModelRef::Shared(m) => m,
        }
    }
}

impl<'m, 'a> From<&'m Model<'a>> for ModelRef<'m, 'a> {
    fn from(m: &'m Model<'a>) -> Self {
        ModelRef::Borrowed(m)
    }
}

impl<'a> From<Rc<Model<'a>>> for ModelRef<'_, 'a> {
    fn from(m: Rc<Model<'a>>) -> Self {
        ModelRef::Shared(m)
    }
}

pub struct Encoder<'m, 'a> {
    pub m: ModelRef<'m, 'a>,
    solver: Solver<'static>,
    stop: Rc<Cell<Option<Stop>>>,
    cancel: Option<crate::stop::Cancel>,
    n_vars: u32,
    /// The instants integers may take.
    pub pts: Points,
    /// Largest makespan the encoding admits (scaled).
    pub tmax: i64,
    pub start: Vec<IVar>,
    /// Op end (`F`) and op start (`G`) integers, for ops with op edges.
    fend: Vec<Option<IVar>>,
    gstart: Vec<Option<IVar>>,
    /// Selector per slot (`L::T` for ops with one candidate).
    pub sel: Vec<L>,
    /// Per node and memory type: (successor node, its slot's selector) that
    /// extend the hold.
    mem_types: Vec<TypeIdx>,
    makespan_lits: HashMap<i64, L>,
    hold_lits: HashMap<(u32, TypeIdx, i64), Lit>,
    /// `hold_ends_before` literals, per (x, y, memory type).
    hold_before: HashMap<(u32, u32, TypeIdx), Lit>,
    /// True once the clauses alone are unsatisfiable (no assumptions needed).
    root_unsat: bool,
    pub stats: Stats,
    /// Set when the solver failed for good (`decide` answers `Interrupted`).
    broken: bool,
    /// Every clause added, flat (`clause_ends` closes each): what `certify`
    /// writes.
    log: Vec<Lit>,
    clause_ends: Vec<usize>,
    limits: Limits,
    /// Set when a limit stopped the encoding: no clause is added after it.
    halted: Option<EncodeStop>,
    /// Clauses added since the last limit check.
    since_check: usize,
    /// While the static clauses are built, limits stop the build; afterwards
    /// every clause is added (lazy cuts are needed for correct answers) and
    /// `decide` checks the budget itself.
    building: bool,
    /// The last `decide` that answered UNSAT: how many clauses the solver had
    /// then, and its assumptions (what `certify` writes; clauses added after
    /// the answer, such as the unit that records it, are not part of it).
    last_unsat: Option<(usize, Vec<Lit>)>,
    /// The window net (sat/windows.rs) and the time each makespan's windows
    /// may spend shaving; `None` under `--certify` (certified CNFs hold the
    /// encoding's own clauses only).
    windows: Option<(super::windows::WindowNet, std::time::Duration)>,
    /// Every pair order literal: `(u, v, o)` with `o` "u ends before v
    /// starts" when both are selected (one-core types, memory pairs); the
    /// large-neighbourhood search assumes them (sat/lns.rs).
    pub pairs: Vec<(u32, u32, Lit)>,
    /// The edge-finding propagator's clause counts, once installed.
    edge_finding: Option<Rc<Cell<[u64; 2]>>>,
    /// The memory timetable propagator's clause counts, once installed.
    holds: Option<Rc<Cell<[u64; 2]>>>,
    /// The assumptions of the last answer when the clock stopped its search
    /// (`resume`).
    interrupted_with: Option<Vec<Lit>>,
    /// How one-core orders are encoded.
    orders: Orders,
}

/// Estimated bytes of the encoding for `tmax` over `pts` (`bytes_for` of the
/// clause estimate, its literals at `LITS_PER_CLAUSE`, and the order variables
/// of the node windows), to refuse encodings over the memory budget before
/// building them. The build counts the real sizes and stops at the budget.
pub fn estimate_bytes(m: &Model, tmax: u64, pts: &Points) -> u128 {
    let clauses = estimate(m, tmax, pts);
    let all = pts.count(0, i64::try_from(tmax).unwrap_or(i64::MAX));
    let mut vars: u128 = 0;
    for nd in &m.nodes {
        let hi = i128::from(tmax) - i128::from(nd.tail) - i128::from(nd.dur);
        let lo = i128::from(nd.head);
        if hi >= lo {
            vars += pts.count(lo as i64, hi.min(i128::from(i64::MAX)) as i64);
        }
    }
    // F and G integers of ops with op edges.
    vars += 2 * m.op_slots.len() as u128 * all;
    bytes_for(clauses, clauses.saturating_mul(LITS_PER_CLAUSE), vars)
}

/// Average literals per clause of the static encoding (binary order and
/// precedence clauses, ternary ones under selectors, pairs of up to five).
pub const LITS_PER_CLAUSE: u128 = 3;

/// Clause count estimate for `tmax` over `pts`, to refuse instances too large
/// to encode.
pub fn estimate(m: &Model, tmax: u64, pts: &Points) -> u128 {
    let win = |v: usize| -> u128 {
        let nd = &m.nodes[v];
        let hi = i128::from(tmax) - i128::from(nd.tail) - i128::from(nd.dur);
        let lo = i128::from(nd.head);
        if hi < lo {
            1
        } else {
            pts.count(lo as i64, hi.min(i128::from(i64::MAX)) as i64)
                .max(1)
        }
    };
    let t = i64::try_from(tmax).unwrap_or(i64::MAX);
    // Clauses of `le_imp` over an op's F or G: one per point of its window.
    let points = |(lo, hi): (i64, i64)| if hi < lo { 1 } else { pts.count(lo, hi).max(1) };
    let mut total: u128 = 0;
    for v in 0..m.nodes.len() {
        let w = win(v);
        total += w; // order chain
        let succs = m.inst.library.succs(m.nodes[v].lib).len() as u128;
        total += succs * (w + 1);
    }
    for op in 0..m.op_slots.len() as u32 {
        if !m.present(op) {
            continue;
        }
        let ou = op as usize;
        if m.op_succs(op).next().is_some() {
            let sinks: usize = m.op_slots[ou].clone().map(|s| m.sinks(s).count()).sum();
            total += (sinks as u128 + 1) * points(m.end_window(op, t));
        }
        if m.op_preds(op).next().is_some() {
            let sources: usize = m.op_slots[ou].clone().map(|s| m.sources(s).count()).sum();
            let preds = m.op_preds(op).count();
            total += (sources + preds) as u128 * points(m.start_window(op, t));
        }
    }
    // One-core types: pairs of nodes with overlapping windows.
    for list in &m.one_core_groups() {
        let n = list.len() as u128;
        if n > 20_000 {
            return u128::MAX;
        }
        let mean: u128 = list.iter().map(|&v| win(v as usize)).sum::<u128>() / n.max(1);
        total += n * n.saturating_sub(1) * (mean + 1);
    }
    total
}

impl<'m, 'a> Encoder<'m, 'a> {
    /// Builds the static clauses for makespans up to `tmax` (scaled), over
    /// every instant, without limits.
    pub fn new(m: &'m Model<'a>, tmax: u64) -> Self {
        Self::build_within(m, tmax, Points::every(), Limits::none())
            .unwrap_or_else(|_| unreachable!("no limits"))
    }

    /// Builds the static clauses for makespans up to `tmax` (scaled) over the
    /// time points `pts`, within `limits` (memory budget, deadline, cancel
    /// flag; searches are also stopped by the cancel flag). `tmax` and every
    /// head, tail and duration of the model must be at most `MAX_TIME` (the
    /// caller checks `Model::horizon`): the encoding computes in i64.
    pub fn build_within(
        m: impl Into<ModelRef<'m, 'a>>,
        tmax: u64,
        pts: Points,
        limits: Limits,
    ) -> Result<Self, EncodeStop> {
        Self::build_with(m, tmax, pts, limits, Orders::Clauses)
    }

    /// `build_within` with one-core orders encoded as `orders` says.
    pub fn build_with(
        m: impl Into<ModelRef<'m, 'a>>,
        tmax: u64,
        pts: Points,
        limits: Limits,
        orders: Orders,
    ) -> Result<Self, EncodeStop> {
        let m = m.into();
        assert!(tmax <= super::MAX_TIME, "horizon beyond the SAT engine");
        let cancel = limits.cancel.clone();
        let stop = Rc::new(Cell::new(None));
        let solver = fresh_solver(&stop, &cancel);
        let n_mem = m.inst.platform.mems.len() as TypeIdx;
        let mut e = Encoder {
            m: m.clone(),
            solver,
            stop,
            cancel,
            n_vars: 0,
            pts,
            tmax: tmax as i64,
            start: Vec::with_capacity(m.nodes.len()),
            fend: vec![None; m.op_slots.len()],
            gstart: vec![None; m.op_slots.len()],
            sel: Vec::with_capacity(m.slots.len()),
            mem_types: (0..n_mem).collect(),
            makespan_lits: HashMap::new(),
            hold_lits: HashMap::new(),
            hold_before: HashMap::new(),
            root_unsat: false,
            stats: Stats::default(),
            broken: false,
            log: Vec::new(),
            clause_ends: Vec::new(),
            limits,
            halted: None,
            since_check: 0,
            building: true,
            last_unsat: None,
            windows: None,
            pairs: Vec::new(),
            edge_finding: None,
            holds: None,
            interrupted_with: None,
            orders,
        };
        e.check_limits();
        e.build();
        e.building = false;
        match e.halted {
            Some(why) => {
                let (t, mib) = (Instant::now(), e.bytes_estimate() >> 20);
                drop(e);
                log::debug!(
                    "sat: encoder of about {mib} MiB freed in {:.3} s",
                    t.elapsed().as_secs_f64()
                );
                Err(why)
            }
            None => Ok(e),
        }
    }

    /// Estimated bytes of the encoding so far (`bytes_for`).
    pub fn bytes_estimate(&self) -> u64 {
        let b = bytes_for(
            self.stats.clauses as u128,
            self.log.len() as u128,
            self.n_vars as u128,
        );
        u64::try_from(b).unwrap_or(u64::MAX)
    }

    /// Time to free this encoding (`drop_time`).
    pub fn drop_time(&self) -> std::time::Duration {
        drop_time(self.bytes_estimate())
    }

    /// Raises the memory budget to `max_bytes` (never lowers it): room for
    /// clauses added after the build (`memory_triples`, lazy cuts).
    pub fn widen_budget(&mut self, max_bytes: u64) {
        self.limits.max_bytes = self.limits.max_bytes.max(max_bytes);
    }

    /// Whether the memory budget is passed (lazy cuts keep adding clauses
    /// during the search: `decide` stops then).
    pub fn over_budget(&self) -> bool {
        self.bytes_estimate() > self.limits.max_bytes
    }

    /// Checks the budget, the deadline and the cancel flag; sets `halted`.
    fn check_limits(&mut self) {
        self.since_check = 0;
        if self.halted.is_some() || !self.building {
            return;
        }
        let bytes = self.bytes_estimate();
        if bytes > self.limits.max_bytes {
            self.halted = Some(EncodeStop::OverBudget { bytes });
        } else if self
            .limits
            .deadline
            .is_some_and(|d| d.passed_within(drop_time(bytes)))
            || self
                .limits
                .cancel
                .as_ref()
                .is_some_and(crate::stop::Cancel::is_set)
        {
            self.halted = Some(EncodeStop::Deadline);
        }
    }

    /// True once a limit stopped the build (loops return early).
    #[inline]
    fn halted(&self) -> bool {
        self.halted.is_some()
    }

    fn new_var(&mut self) -> Lit {
        let v = Var::from_index(self.n_vars as usize);
        self.n_vars += 1;
        self.since_check += 1;
        self.stats.vars += 1;
        v.positive()
    }

    /// An integer over the points in `[lo, hi]`; when there is none, fixed at
    /// the first point from `lo` (callers make such an integer's node unselectable).
    fn new_int(&mut self, lo: i64, hi: i64) -> IVar {
        let mut ilo = self.pts.idx_le(lo - 1) + 1;
        if !self.pts.is_every() {
            // Past the last point (the horizon): fixed there instead.
            ilo = ilo.min(self.pts.idx_le(self.tmax).max(0));
        }
        let ihi = self.pts.idx_le(hi).max(ilo);
        let base = self.n_vars;
        self.n_vars += (ihi - ilo) as u32;
        self.stats.vars += (ihi - ilo) as usize;
        self.since_check += (ihi - ilo) as usize;
        let x = IVar {
            base,
            lo: self.pts.at(ilo),
            hi: self.pts.at(ihi),
            ilo,
            ihi,
        };
        for i in 0..ihi - ilo - 1 {
            if self.halted() {
                break;
            }
            let a = Var::from_index((base as i64 + i) as usize).positive();
            let b = Var::from_index((base as i64 + i + 1) as usize).positive();
            self.clause(&[L::Lit(!a), L::Lit(b)]);
        }
        x
    }

    /// The literal `X <= t`.
    #[inline]
    pub fn le(&self, x: IVar, t: i64) -> L {
        let i = self.pts.idx_le(t);
        if i < x.ilo {
            L::F
        } else if i >= x.ihi {
            L::T
        } else {
            L::Lit(Var::from_index((x.base as i64 + i - x.ilo) as usize).positive())
        }
    }

    /// Whether some point lies in `[lo, hi]`.
    fn any_point(&self, lo: i64, hi: i64) -> bool {
        self.pts.count(lo, hi) > 0
    }

    /// Adds a clause of literals and constants (satisfied ones are skipped).
    /// After a limit stopped the build, adds nothing.
    pub fn clause(&mut self, lits: &[L]) {
        if self.halted() {
            return;
        }
        if self.building && self.since_check >= CHECK_EVERY {
            self.check_limits();
            if self.halted() {
                return;
            }
        }
        self.since_check += 1;
        let mut out: Vec<Lit> = Vec::with_capacity(lits.len());
        for &l in lits {
            match l {
                L::T => return,
                L::F => {}
                L::Lit(x) => {
                    if out.contains(&!x) {
                        return;
                    }
                    if !out.contains(&x) {
                        out.push(x);
                    }
                }
            }
        }
        if out.is_empty() {
            self.root_unsat = true;
        }
        self.stats.clauses += 1;
        self.solver.add_clause(&out);
        self.log.extend_from_slice(&out);
        self.clause_ends.push(self.log.len());
    }

    /// `B + shift <= A` under `cond` (a disjunction of extra literals):
    /// for every t, `A <= t -> B <= t - shift`.
    fn le_imp(&mut self, a: IVar, b: IVar, shift: i64, cond: &[L]) {
        let mut buf: Vec<L> = Vec::with_capacity(cond.len() + 2);
        // `A <= t` only changes at A's points: the clauses there imply the rest.
        for i in a.ilo..=a.ihi {
            let t = self.pts.at(i);
            let rhs = self.le(b, t - shift);
            if rhs == L::T {
                break;
            }
            buf.clear();
            buf.push(!self.le(a, t));
            buf.push(rhs);
            buf.extend_from_slice(cond);
            self.clause(&buf);
        }
    }

    fn node_sel(&self, v: u32) -> L {
        self.sel[self.m.nodes[v as usize].slot as usize]
    }

    /// The static clauses (models/sat.md §3), family by family; the memory
    /// pairs last. Every family stops when the budget or the deadline halts
    /// the build (checked in `clause`), and so does the build.
    fn build(&mut self) {
        let m = self.m.clone();
        let tmax = self.tmax;
        self.selectors();
        if self.halted() {
            return;
        }
        self.starts();
        if self.halted() {
            return;
        }
        self.intra_precedence();
        if self.halted() {
            return;
        }
        self.op_edges();
        if self.halted() {
            return;
        }
        self.one_core_orders();
        if self.halted() {
            return;
        }
        self.memory_pairs();
        self.check_limits();
        log::info!(
            "sat: encoded {} nodes, {} slots, horizon {} (unit {}): {} vars, {} clauses, {} literals, \
             about {} MiB (budget {} MiB){}; peak RSS {:.0} MiB",
            m.nodes.len(),
            m.slots.len(),
            tmax,
            m.g,
            self.stats.vars,
            self.stats.clauses,
            self.log.len(),
            self.bytes_estimate() >> 20,
            self.limits.max_bytes >> 20,
            if self.halted() { " (stopped)" } else { "" },
            crate::solve::peak_rss_mib().unwrap_or(0.0)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::parse_reader;
    use crate::sat::model::candidates;

    /// Event points are 0, the horizon, and the sums of distinct durations up
    /// to it, computed here by hand for durations 2, 3 and 5.
    #[test]
    fn event_points_are_the_subset_sums_up_to_the_horizon() {
        let text = "SetSocInfo([[0,1]],[[0,100]])
AddOpInfo(1,1,0,[[1,2],[2,3]],[[1,0,2],[2,0,3],[3,0,5]],[])
GetInferenceScheResult([],[[1,1,1]])";
        let inst = parse_reader(text.as_bytes(), "t").unwrap();
        let cand: Vec<Vec<u32>> = (0..inst.graph.n_ops() as u32)
            .map(|o| candidates(&inst, o))
            .collect();
        let m = Model::new(&inst, &cand);
        // Sums: 0, 2, 3, 5 (= 5 and 2 + 3), 7, 8, 10.
        assert_eq!(
            event_points(&m, 10, 100, false),
            Some(vec![0, 2, 3, 5, 7, 8, 10])
        );
        // Up to 7: the sums that fit, and 7 itself.
        assert_eq!(event_points(&m, 7, 100, false), Some(vec![0, 2, 3, 5, 7]));
        // Up to 6: 6 is not a sum, but the horizon is always a point.
        assert_eq!(event_points(&m, 6, 100, false), Some(vec![0, 2, 3, 5, 6]));
        // Over the cap: none.
        assert_eq!(event_points(&m, 10, 3, false), None);
        // With `for_gain`, 7 of 11 instants are points: nothing to gain.
        assert_eq!(event_points(&m, 10, 100, true), None);
    }

    fn far() -> Instant {
        Instant::now() + std::time::Duration::from_secs(60)
    }

    /// Three nodes on three cores, 10, 10 and 11 long (time unit 1), each
    /// holding 40 of a memory of 100: any two fit, all three do not, so two
    /// of them must not meet, and the optimum is 20. With the
    /// triple up front the first solve at 19 is already UNSAT; with lazy
    /// cuts the solver first finds schedules that the cuts then forbid.
    #[test]
    fn a_memory_triple_up_front_saves_the_lazy_rounds() {
        let text = "SetSocInfo([[0,1],[1,1],[2,1]],[[0,100]])
AddOpInfo(1,1,0,[],[[1,0,10]],[[1,0,40]])
AddOpInfo(2,1,0,[],[[1,1,10]],[[1,0,40]])
AddOpInfo(3,1,0,[],[[1,2,11]],[[1,0,40]])
GetInferenceScheResult([],[[1,1,1],[2,2,1],[3,3,1]])";
        let inst = parse_reader(text.as_bytes(), "t").unwrap();
        let cand: Vec<Vec<u32>> = (0..inst.graph.n_ops() as u32)
            .map(|o| candidates(&inst, o))
            .collect();
        let m = Model::new(&inst, &cand);
        assert_eq!(m.g, 1);
        let mut eager = Encoder::new(&m, 30);
        assert_eq!(eager.memory_triples(far(), far()), 1);
        let a = eager.decide(19, &[], far());
        assert!(matches!(a, Answer::Unsat), "{a:?}");
        assert_eq!(eager.stats.solves, 1);
        assert!(matches!(eager.decide(20, &[], far()), Answer::Sat(_)));
        let mut lazy = Encoder::new(&m, 30);
        assert!(matches!(lazy.decide(19, &[], far()), Answer::Unsat));
        assert!(lazy.stats.solves > 1, "lazy cuts needed no round");
    }

    /// The triples change no answer: on small memory-tight instances (three
    /// candidate tilings an op), every makespan from 8 below a list
    /// schedule's up to it gets the same verdict with and without them.
    #[test]
    fn memory_triples_change_no_answer() {
        let mut with_triples = 0;
        for seed in 1..=5u64 {
            let cfg = crate::generate::memory_tight(seed, 5, (2, 4));
            let inst = crate::generate::generate(&cfg).unwrap().instance;
            let opts = crate::solve::SolveOptions {
                time_limit: std::time::Duration::from_millis(100),
                ..Default::default()
            };
            let s = crate::list::solve(&inst, &opts).schedule.unwrap();
            let g = crate::graph::NodeGraph::new(&inst, s.choice.clone()).unwrap();
            let top = s.makespan(&g) as i64;
            let cand: Vec<Vec<u32>> = (0..inst.graph.n_ops() as u32)
                .map(|o| candidates(&inst, o))
                .collect();
            let m = Model::new(&inst, &cand);
            let tmax = (top as u64 / m.g).min(m.horizon);
            let mut verdict = |eager: bool, t: i64| {
                let mut enc = Encoder::new(&m, tmax);
                if eager {
                    with_triples += usize::from(enc.memory_triples(far(), far()) > 0);
                }
                match enc.decide(t, &[], far()) {
                    Answer::Sat(d) => Some(d.makespan(&m) as i64 <= t),
                    Answer::Unsat => None,
                    a => panic!("seed {seed}: {a:?} at {t}"),
                }
            };
            for t in (tmax as i64 - 8).max(0)..=tmax as i64 {
                assert_eq!(
                    verdict(true, t),
                    verdict(false, t),
                    "seed {seed}, makespan {t}"
                );
            }
        }
        assert!(with_triples > 0, "no instance had a memory triple");
    }
}
