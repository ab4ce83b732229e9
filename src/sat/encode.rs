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

use std::cell::Cell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
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
    pub cancel: Option<Arc<AtomicBool>>,
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
    cancel: &Option<Arc<AtomicBool>>,
) -> Solver<'static> {
    let mut solver = Solver::new();
    let (stop, cancel) = (stop.clone(), cancel.clone());
    solver.set_terminate(move || {
        stop.get().is_some_and(|s| s.passed())
            || cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed))
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
    cancel: Option<Arc<AtomicBool>>,
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
                .is_some_and(|c| c.load(Ordering::Relaxed))
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

    /// Selector literals per op: at least one candidate, at most one (pairwise); a
    /// single candidate is the constant true (models/sat.md §3.2); no refuted
    /// combination of candidates all together (§1.2).
    fn selectors(&mut self) {
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
    fn starts(&mut self) {
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
    fn intra_precedence(&mut self) {
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
    fn op_edges(&mut self) {
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
    fn one_core_orders(&mut self) {
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
    fn orders_propagated(&self, list: &[u32]) -> bool {
        let n = list.iter().filter(|&&v| self.node_sel(v) != L::F).count();
        self.orders == Orders::Propagated && self.pts.is_every() && super::disjunctive::covers(n)
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

    /// A memory type whose size two nodes' demands exceed together, if any.
    fn clash(&self, u: u32, v: u32) -> Option<TypeIdx> {
        let m = &self.m;
        (0..m.inst.platform.mems.len() as TypeIdx).find(|&mt| {
            u128::from(m.demand(u, mt)) + u128::from(m.demand(v, mt))
                > u128::from(m.inst.platform.mems[mt as usize].size)
        })
    }

    /// Clauses `hold_apart` would add for the pair (window sizes times successors).
    fn hold_apart_cost(&self, u: u32, v: u32, mt: TypeIdx) -> usize {
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
    fn hold_apart(&mut self, u: u32, v: u32, mt: TypeIdx, o: L) {
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
    fn memory_pairs(&mut self) {
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

    /// From now on, every "makespan <= T" literal brings the windows of the
    /// net at T (propagated; shaved on the share `makespan_le_shaved` gives),
    /// starting with the encoding's own horizon, where they hold
    /// unconditionally.
    pub fn use_windows(&mut self, wn: super::windows::WindowNet) {
        self.windows = Some((wn, std::time::Duration::ZERO));
        self.window_clauses(self.tmax, L::T);
    }

    /// The node's start as the propagators read it (`None`: never selected).
    fn task(&self, v: u32) -> Option<super::disjunctive::Task> {
        let x = self.start[v as usize];
        let sel = match self.node_sel(v) {
            L::T => None,
            L::F => return None,
            L::Lit(l) => Some(l),
        };
        Some(super::disjunctive::Task {
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
    fn hold_resources(&self) -> Vec<super::holds::Resource> {
        use super::holds::{Holder, Resource};
        let m = &self.m;
        let mut types = vec![];
        for &mt in &self.mem_types {
            let nodes: Vec<(u32, super::disjunctive::Task)> = (0..m.nodes.len() as u32)
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
        use super::disjunctive::Disjunctive;
        use super::holds::Holds;
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
    fn window_clauses(&mut self, t: i64, lit: L) {
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
    fn answer(&mut self, t: i64, extra: &[Lit], stop: Stop, resume: bool) -> Answer {
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
                    .is_some_and(|c| c.load(Ordering::Relaxed))
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
    ) -> Result<(usize, usize), super::certify::NotCertified> {
        use super::certify::{Clauses, NotCertified, certify};
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

    fn decode(&self) -> Decoded {
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
    fn selected(&self, d: &Decoded) -> Vec<u32> {
        let mut out = Vec::new();
        for &s in &d.slot_of_op {
            if s != u32::MAX {
                let sl = &self.m.slots[s as usize];
                out.extend(sl.first..sl.first + sl.n);
            }
        }
        out
    }

    /// Core types with more than one core (and, under `Orders::Propagated`,
    /// with one): finds instants where more nodes run than there are cores
    /// and forbids those sets of nodes from running together.
    fn core_cuts(&mut self, d: &Decoded) -> usize {
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
    fn forbid_running_together(&mut self, set: &[u32], t: i64) {
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
    fn memory_cuts(&mut self, d: &Decoded) -> usize {
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
    /// search's) or `until` passes; nodes of duration 0 are left to the lazy
    /// cuts (their holds may be empty). Returns the cuts added.
    pub fn memory_triples(&mut self, until: Instant) -> usize {
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
                        if added.is_multiple_of(256) && self.bytes_estimate() > cap {
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
    fn for_each_mem_succ(&self, x: u32, mt: TypeIdx, mut f: impl FnMut(u32, L)) {
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
    fn no_common_hold(&mut self, set: &[u32], mt: TypeIdx) {
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
    fn hold_ends_before(&mut self, x: u32, y: u32, mt: TypeIdx) -> Lit {
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
    fn hold_lit(&mut self, x: u32, mt: TypeIdx, t: i64) -> Lit {
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
        assert_eq!(eager.memory_triples(far()), 1);
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
                    with_triples += usize::from(enc.memory_triples(far()) > 0);
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
