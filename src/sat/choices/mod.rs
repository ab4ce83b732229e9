//! Choice-driven search (models/sat.md §10): the tiling-choice relaxation
//! (models/bounds.md §6) proposes whole tiling choices, least relaxed
//! makespan first, and the SAT engine decides each: "a schedule of this
//! choice with makespan below the best one?". Where the encoding over every
//! candidate fits, each choice is decided in it under the assumption of its
//! selectors (what the solver learns serves the next choice, and an UNSAT
//! answer names the part of the choice it needed); elsewhere with an
//! encoding of the choice alone, which holds a third of the nodes and a
//! ninth of the node pairs, so it fits where the other does not (the 25-op
//! memory-tight instances).
//!
//! Each choice tried is excluded from the relaxation (at most `k - 1` of its
//! `k` tilings) before the next is proposed. A choice answered UNSAT at
//! `ub - 1` has no schedule below the incumbent `ub`; one left undecided is
//! *skipped* and tried again later with more time. This gives a lower bound
//! as well as schedules: an optimal schedule below the final incumbent uses
//! a choice that was skipped, or one still open to the relaxation, so the
//! optimum is at least the least of the incumbent, the relaxation's last
//! value and the least relaxed value of a skipped choice (the argument in
//! models/sat.md §10). When the relaxation has nothing left below the
//! incumbent and nothing is skipped, the incumbent is optimal.
//!
//! At a level, the window net of each choice (every op fixed, so every
//! node is in it) may refute it in a millisecond before any encoding
//! (`net_decision`); choices it cannot refute wait until the relaxation
//! has no more there (all but the first, decided at once).
//!
//! With `Pass::Levels` (`ChoiceOptions::pass`) each choice is asked instead
//! for a schedule at the level of the proven bound (§10.1): one found there
//! is optimal, and when every choice the relaxation puts at the level is
//! refuted, the bound rises. There the relaxation's choices come from its
//! exact enumeration (bounds::relaxation), nearest to the incumbent's choice
//! first, rather than from one MILP solve each; before them, once a pass
//! at the first level that has it, the natural choice (each op's tiling of
//! the shortest critical path), decided in an encoding of its own.

mod below;
mod levels;

mod decide;

use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

use varisat::Lit;

use super::encode::{Answer, EncodeStop, Encoder, L, Limits, Orders};
use super::lns::validated;
use super::model::Model;
use super::windows::WindowNet;
use super::{encode_within, plan, to_schedule};
use crate::bounds::nogoods::{LevelRefutation, LevelRefutations};
use crate::bounds::relaxation::Relaxation;
use crate::bounds::windows::Windows;
use crate::bounds::{Bound, Bounds};
use crate::instance::Instance;
use crate::milp::aggregate::{Proposal, propose, propose_first};
use crate::sat::policy::CHOICES;
use crate::schedule::Schedule;
use crate::stop::{CpuTimer, Stop};
use crate::stop::{Deadline, instant_after};

/// How the search spends its time.
#[derive(Clone, Debug)]
pub struct ChoiceOptions {
    /// Time an answer of a choice gets at first; doubled each time the
    /// skipped choices are tried again, up to `max_sub_time`.
    pub first_sub_time: Duration,
    pub max_sub_time: Duration,
    /// Skipped choices held before they are tried again (with twice the
    /// time) instead of a new choice: the least relaxed choices are the
    /// likeliest to hold an optimum, and deciding them is what raises the
    /// bound.
    pub max_skipped: usize,
    /// Least time of an answer, and `max_skipped`, where each choice has
    /// an encoding of its own (`shared` off, or the shared encoding does
    /// not fit).
    pub alone_sub_time: Duration,
    pub alone_max_skipped: usize,
    /// Decisions in a row without a better schedule or a refuted choice
    /// after which the search hands the rest of its time back.
    pub patience: usize,
    /// Time without a better schedule or a refuted choice after which the
    /// search hands the rest of its time back (checked between decisions).
    pub idle: Duration,
    /// Decide choices under assumptions in one encoding over every
    /// candidate where it fits (`ChoicePolicy::shared_budget`), else one encoding each.
    pub shared: bool,
    /// Below the incumbent, or at the level of the bound (a destructive
    /// enumeration that raises the bound), early or not.
    pub pass: Pass,
    /// Where each better schedule goes as found (the solve's events).
    pub events: crate::events::Events,
}

impl Default for ChoiceOptions {
    fn default() -> Self {
        ChoiceOptions {
            first_sub_time: Duration::from_millis(250),
            max_sub_time: Duration::from_secs(8),
            max_skipped: 6,
            alone_sub_time: Duration::from_secs(1),
            alone_max_skipped: 3,
            patience: 24,
            idle: Duration::MAX,
            shared: true,
            pass: Pass::Below,
            events: crate::events::Events::default(),
        }
    }
}

/// Which enumeration a choice search runs (models/sat.md §10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// Choices below the incumbent: better schedules, and a bound where
    /// the relaxation runs out.
    Below,
    /// Choices at the bound's level: the bound rises, or a schedule there
    /// is optimal.
    Levels,
    /// The early level pass (before any search below the incumbent): only
    /// where the shared encoding fits; it hands its time back, with the
    /// bound it reached, at a level of more than `ChoicePolicy::early_level_choices`
    /// proposals or with a choice undecided in `max_sub_time`, and the
    /// answers at a level's end are boxed as a choice's alone are (not run
    /// to the deadline).
    EarlyLevels,
}

impl Pass {
    /// Whether choices are asked at the bound's level.
    pub fn at_levels(self) -> bool {
        self != Pass::Below
    }
}

/// What the search did, for the notes.
#[derive(Clone, Debug, Default)]
pub struct ChoiceStats {
    /// Choices proposed by the relaxation and decided.
    pub tried: usize,
    /// Better schedules found (each descent step counts).
    pub improved: usize,
    /// Choices (or parts of them) refuted (UNSAT answers).
    pub refuted: usize,
    /// Choices still undecided at the end.
    pub skipped: usize,
    /// Seconds per choice at the end.
    pub sub_time: f64,
    /// Of the refuted: by the window net alone, before any encoding.
    pub net_refuted: usize,
    /// Whether the search stopped on an encoding beyond the engine.
    pub too_large: bool,
    /// Whether choices were decided in the shared encoding (at first: it
    /// is dropped when lazy cuts fill its budget).
    pub shared: bool,
    /// Answers at a level that went on where the clock had stopped the
    /// choice's last one (its encoding kept, `Search::decide_alone`).
    pub resumed: usize,
}

/// What the search returns.
pub struct Outcome {
    /// A schedule better than the start (validated), if one was found.
    pub schedule: Option<Schedule>,
    /// The bound the enumeration proves, when above the starting one.
    pub bound: Option<Bound>,
    /// Without a start: every tiling choice was refuted at its horizon, so
    /// no legal schedule exists (models/sat.md §10).
    pub infeasible: bool,
    pub stats: ChoiceStats,
}

/// A choice's verdict where it was asked (below the incumbent as it
/// stood, or at most the level: `Ask`).
enum Verdict {
    /// No schedule there uses every tiling of this set: the choice, or the
    /// part of it a refutation needed; empty: no schedule there whatever
    /// the choice (an UNSAT answer of the shared encoding that assumed
    /// nothing of the choice).
    Refuted(Vec<(u32, u32)>),
    /// A schedule at a proven bound: the incumbent is optimal.
    Proven,
    Undecided,
    /// The choice's encoding is beyond the engine (horizon, memory budget):
    /// the others' would be too, and the search stops.
    TooLarge,
}

/// One encoding over every candidate, for makespans below the first
/// incumbent: each choice is decided under the assumption of its selectors,
/// and what the solver learns on one choice serves the next.
struct Shared<'m, 'a> {
    m: &'m Model<'a>,
    enc: Encoder<'m, 'a>,
}

/// The search state shared by every decision.
struct Search<'m, 'a> {
    inst: &'a Instance,
    lb: u64,
    budget: u64,
    /// Best makespan so far (`u128::MAX`: none yet) and its schedule.
    ub: u128,
    best: Option<Schedule>,
    stats: ChoiceStats,
    /// Decisions since the last better schedule or refuted choice.
    fruitless: usize,
    /// When the last better schedule or refuted choice came (or the start).
    progress_at: Instant,
    shared: Option<Shared<'m, 'a>>,
    /// Candidate tilings of each op (refuted ones left out).
    cands: Vec<Vec<u32>>,
    /// The time unit of the candidates (the gcd of their durations): every
    /// legal schedule has one as short whose makespan is a multiple of it
    /// (models/bounds.md §9), so a level refuted whole moves to the next
    /// multiple.
    unit: u64,
    /// The windows in the shared encoding's nodes (`choice_windows`) of the
    /// choices the net left at a level, shaved to their fixpoint there, by
    /// choice: the level and the windows. Kept so that the choice's answer
    /// does not build and shave its net again.
    net_windows: HashMap<Vec<u32>, (u64, Vec<NodeWindow>)>,
    /// The source of the relaxation's last bound: what a bound of the
    /// search rests on when it decided no choice.
    relaxation: Option<String>,
    /// The incumbent's tiling choice: at a level the enumeration tries the
    /// choices near it first (the optimum's choice is often a few ops away
    /// from a good schedule's).
    prefer: Option<Vec<u32>>,
    /// At the levels: the natural choice (each op's tiling of the shortest
    /// critical path, list scheduling's first), proposed once, before the
    /// choices near the incumbent's at the first level where the
    /// relaxation puts it; with the last level it was looked for at (once
    /// a level). Where memory is packed at the bound, the incumbent's
    /// choice (list scheduling's tiling search, judged by its schedules
    /// far above the bound) can be many ops away from the optimum's, which
    /// the fastest tilings may hold.
    natural: Option<(Vec<u32>, Option<u64>)>,
    /// The natural choice as proposed, until it is decided.
    natural_proposed: Option<Vec<u32>>,
    /// Encodings of choices (encoded alone) whose answer at a level the
    /// clock cut short: the next answer there goes on (`decide_alone`).
    kept: Vec<Kept<'a>>,
    /// Where each better schedule goes as found.
    events: crate::events::Events,
}

/// A choice's encoding kept between its answers at one level.
struct Kept<'a> {
    choice: Vec<u32>,
    level: u64,
    enc: Encoder<'a, 'a>,
}

/// A node of the shared encoding and its window: `(node, est, lst)` (units).
type NodeWindow = (u32, i64, i64);

/// The window net of a set of tilings (`Search::net_of`) with its model:
/// its time unit `g`, its horizon (units: some schedule of the model has
/// makespan at most it, if any has, models/sat.md §1.4) and its nodes.
struct SetNet<'a> {
    m: Model<'a>,
    wn: WindowNet,
}

impl SetNet<'_> {
    /// `makespan` (real units) in units of `g`, rounded down: refuting `T`
    /// units refutes every makespan below `g (T + 1)` (models/sat.md §1.3).
    /// At most the horizon: no schedule there means none at all.
    fn units(&self, makespan: u64) -> i64 {
        let horizon = self.m.horizon as i64;
        i64::try_from(makespan / self.m.g).map_or(horizon, |t| t.min(horizon))
    }

    /// Whether the windows of every schedule of makespan at most `makespan`
    /// (real units) empty by propagation alone.
    fn refutes(&self, makespan: u64) -> bool {
        self.wn.at(self.units(makespan), None).is_none()
    }

    /// The windows of every schedule of makespan at most `makespan` (real
    /// units), shaved until `until` (or to their fixpoint before it);
    /// `None` when one empties.
    fn shaved(&self, makespan: u64, until: Stop) -> Option<Windows> {
        self.wn.at(self.units(makespan), Some((usize::MAX, until)))
    }
}

/// The encoding over every candidate (refuted combinations forbidden) for
/// makespans below `ub`, when it fits `budget`; with the memory triples up
/// front when `triples` holds the budget they and the search may take.
fn shared_encoding<'m, 'a>(
    m: &'m Model<'a>,
    ub: u128,
    budget: u64,
    deadline: &Deadline,
    triples: Option<u64>,
) -> Option<Shared<'m, 'a>> {
    if ub == u128::MAX {
        return None;
    }
    let tmax = (ub - 1) / u128::from(m.g);
    if tmax > u128::from(m.horizon) {
        return None;
    }
    // One-core orders left to the edge-finding propagator, as in a choice's
    // own encoding (`encode_alone`): nothing assumes order literals here
    // either (a tenth of the clauses; results/policy.md).
    let mut enc = encode_within(
        m,
        tmax as u64,
        budget,
        deadline.end,
        deadline,
        Orders::Propagated,
    )?;
    // At the levels every choice is refuted but one, and each refutation
    // needed the same memory cuts again and again: the triples up front
    // (one solve a choice instead of up to ten with lazy cuts; models/sat.md
    // §4.2). Below the incumbent, where most answers are schedules, they
    // cost more than they save (results/policy.md).
    if let Some(wider) = triples {
        // Their own room beyond the encoding's `ChoicePolicy::shared_budget`
        // (tens of thousands of triples, over a million clauses: within the
        // encoding's budget only half fit and refutations were no faster;
        // results/policy.md); the
        // encoding itself still has to fit it, so instances whose
        // encoding is far larger are declined as fast as before.
        enc.widen_budget(wider);
        let t0 = Instant::now();
        let n = enc.memory_triples(
            instant_after(t0, CHOICES.triples_time).min(deadline.end),
            deadline.end,
        );
        log::info!(
            "choices: {n} memory triples up front in {:.3} s",
            t0.elapsed().as_secs_f64()
        );
    }
    Some(Shared { m, enc })
}

/// Choices from the relaxation, each decided below the incumbent (or, with
/// a level pass in `opts.pass`, at the level of the bound), until `deadline`; from the
/// incumbent `start` (if any). `bounds` are the proven bounds and refuted
/// choices every engine starts from, `proven` what the solve proved since
/// (the levels start at its bound, with its refutations). Where the
/// encoding over every candidate fits, choices are decided under
/// assumptions in it; else each with an encoding of its own.
pub fn search(
    inst: &Instance,
    bounds: &Bounds,
    proven: Proven,
    start: Option<&Schedule>,
    deadline: &Deadline,
    budget: u64,
    opts: &ChoiceOptions,
) -> Outcome {
    let ub = start.and_then(|s| validated(inst, s)).unwrap_or(u128::MAX);
    let cands = bounds.nogoods.candidates(inst);
    let mut whole = Model::new(inst, &cands);
    whole.forbid(&bounds.nogoods);
    let shared = if opts.shared {
        shared_encoding(
            &whole,
            ub,
            budget.min(CHOICES.shared_budget),
            deadline,
            opts.pass.at_levels().then_some(budget),
        )
    } else {
        None
    };
    let mut s = Search::new(
        inst,
        proven.lb.max(bounds.best.value),
        budget,
        ub,
        start,
        cands,
        &opts.events,
    );
    s.shared = shared;
    if opts.pass.at_levels() {
        s.natural = natural_choice(inst).map(|c| (c, None));
    }
    s.stats.shared = s.shared.is_some();
    if opts.pass == Pass::EarlyLevels && s.shared.is_none() {
        return Outcome {
            schedule: None,
            bound: None,
            infeasible: false,
            stats: s.stats,
        };
    }
    let found = if opts.pass.at_levels() {
        s.levels(bounds, proven.at_levels, deadline, opts)
    } else {
        s.descend(bounds, deadline, opts)
    };
    // The incumbent itself when a decision proved it optimal; without an
    // incumbent ever, "nothing below it" is "nothing at all".
    let infeasible = matches!(found, Found::Optimal) && s.ub == u128::MAX;
    let ub = u64::try_from(s.ub).unwrap_or(u64::MAX);
    let bound = match found {
        Found::Optimal if infeasible => None,
        Found::Optimal => Some(ub),
        Found::Bound(b) => b.map(|b| b.min(ub)),
    };
    let bound = bound.filter(|&b| b > s.lb).map(|value| Bound {
        value,
        source: bound_source(
            value,
            opts.pass.at_levels(),
            &s.stats,
            s.relaxation.as_deref(),
        ),
    });
    Outcome {
        schedule: s.best,
        bound,
        infeasible,
        stats: s.stats,
    }
}

/// The natural choice: each op's tiling of the shortest critical path
/// (list scheduling's first); `None` where an op has no usable tiling.
fn natural_choice(inst: &Instance) -> Option<Vec<u32>> {
    inst.ops_without_usable_tiling().is_empty().then(|| {
        let tl = crate::list::tiling::Tilings::all(inst);
        crate::list::tiling::initial_choice(&tl)
    })
}

/// What deciding the natural choice at a level found (`natural_at_level`).
pub enum NaturalVerdict {
    /// A schedule of makespan at most the level (validated): at a proven
    /// bound, an optimal one.
    Schedule(Schedule),
    /// No schedule of makespan at most the level uses every tiling of the
    /// natural choice: `(op, tiling)` pairs, to keep with the level's
    /// refutations.
    Refuted(Vec<(u32, u32)>),
    /// Undecided in its time, beyond the engine, or no natural choice.
    Open,
}

/// The natural choice (each op's tiling of the shortest critical path)
/// decided alone, as the level passes decide it (`Search::decide_alone`,
/// models/sat.md §10.1), at makespan at most `level`: where
/// memory is packed at the bound, the fastest tilings may be the ones
/// that fill it exactly (the lanes family's witness), and an answer there
/// takes seconds where the searches nearest the incumbent's choice take
/// the whole run. `start` is the incumbent (a schedule is asked for only
/// below it); the answer gets until `deadline`.
pub fn natural_at_level(
    inst: &Instance,
    bounds: &Bounds,
    level: u64,
    start: Option<&Schedule>,
    deadline: &Deadline,
    budget: u64,
    events: &crate::events::Events,
) -> NaturalVerdict {
    let Some(choice) = natural_choice(inst) else {
        return NaturalVerdict::Open;
    };
    let ub = start.and_then(|s| validated(inst, s)).unwrap_or(u128::MAX);
    if u128::from(level) >= ub {
        return NaturalVerdict::Open;
    }
    let cands = bounds.nogoods.candidates(inst);
    if choice.iter().zip(&cands).any(|(t, c)| !c.contains(t)) {
        return NaturalVerdict::Open; // a tiling of it is refuted already
    }
    let mut s = Search::new(inst, level, budget, ub, start, cands, events);
    match s.decide_alone(&choice, Ask::AtMost(level), deadline.remaining(), deadline) {
        Verdict::Proven => s
            .best
            .map_or(NaturalVerdict::Open, NaturalVerdict::Schedule),
        Verdict::Refuted(set) => NaturalVerdict::Refuted(set),
        Verdict::Undecided | Verdict::TooLarge => NaturalVerdict::Open,
    }
}

/// Where a bound of the search comes from: with no choice decided, the
/// relaxation's own value (its source as the relaxation gave it: a bound
/// "from choices, 0 tried" would credit the enumeration with nothing it
/// did); else the enumeration's argument (models/sat.md §10).
fn bound_source(value: u64, levels: bool, stats: &ChoiceStats, relaxation: Option<&str>) -> String {
    match relaxation {
        Some(r) if stats.tried == 0 => r.to_string(),
        _ => format!(
            "tiling choices: each the relaxation puts below {value} has no schedule {} (SAT; \
             {} tried, {} refuted)",
            if levels {
                "that short"
            } else {
                "below the incumbent"
            },
            stats.tried,
            stats.refuted
        ),
    }
}

/// What the solve proved before a search: a lower bound (the levels start
/// there) and the refutations made at the levels.
#[derive(Clone, Copy)]
pub struct Proven<'p> {
    pub lb: u64,
    pub at_levels: &'p LevelRefutations,
}

/// What an enumeration proved.
enum Found {
    /// The incumbent is optimal.
    Optimal,
    /// A lower bound (`None`: none of its own).
    Bound(Option<u64>),
}

impl<'m, 'a> Search<'m, 'a> {
    /// A search from the proven bound `lb` and the incumbent `start` (of
    /// makespan `ub`, validated; `u128::MAX`: none) over the candidate
    /// tilings `cands`, with no shared encoding and no natural choice yet.
    fn new(
        inst: &'a Instance,
        lb: u64,
        budget: u64,
        ub: u128,
        start: Option<&Schedule>,
        cands: Vec<Vec<u32>>,
        events: &crate::events::Events,
    ) -> Self {
        Search {
            inst,
            lb,
            budget,
            ub,
            best: None,
            stats: ChoiceStats::default(),
            fruitless: 0,
            progress_at: Instant::now(),
            shared: None,
            unit: crate::prep::unit::duration_unit(&inst.library, cands.iter().flatten().copied()),
            cands,
            net_windows: HashMap::new(),
            relaxation: None,
            prefer: start.map(|st| st.choice.clone()),
            natural: None,
            natural_proposed: None,
            kept: Vec::new(),
            events: events.clone(),
        }
    }

    /// The least multiple of the unit at or above `t`: where no schedule
    /// is shorter than `t`, none is shorter than that (models/bounds.md §9).
    fn at_least(&self, t: u64) -> u64 {
        t.div_ceil(self.unit).saturating_mul(self.unit)
    }

    /// The level after `level`, refuted whole.
    fn next_level(&self, level: u64) -> u64 {
        self.at_least(level.saturating_add(1))
    }
}

/// A whole choice as `(op, tiling)` pairs.
fn whole_choice(choice: &[u32]) -> Vec<(u32, u32)> {
    choice
        .iter()
        .enumerate()
        .map(|(o, &t)| (o as u32, t))
        .collect()
}

/// The time of the window net's check beside an answer's `time`: half of
/// it, within `ChoicePolicy::net_time` and the deadline.
fn net_time(time: Duration, deadline: &Deadline) -> Duration {
    (time / 2)
        .clamp(CHOICES.net_time.0, CHOICES.net_time.1)
        .min(deadline.remaining())
}

/// The time of the next round of decisions: twice as long (at least 1 ms),
/// at most `max_sub_time`.
fn longer(t: Duration, opts: &ChoiceOptions) -> Duration {
    (t * 2).max(Duration::from_millis(1)).min(opts.max_sub_time)
}

/// What a decision asks of a choice.
#[derive(Clone, Copy, Debug)]
enum Ask {
    /// A schedule below the incumbent, descending while one is found.
    Below,
    /// A schedule of makespan at most this level (time), a proven bound:
    /// one found there is optimal.
    AtMost(u64),
}

impl<'a> Search<'_, 'a> {
    /// The next choice the relaxation puts at or below `level` (time)
    /// outside `excluded` and the refuted combinations
    /// (`aggregate::propose`), nearest to the incumbent's choice first (at
    /// the levels, the natural choice before them, once); a
    /// value the MILP gives names its source for the bound.
    fn propose(
        &mut self,
        rel: Option<&Relaxation>,
        bounds: &Bounds,
        excluded: &[Vec<(u32, u32)>],
        level: u64,
        after: &mut Option<(u64, Vec<u32>)>,
        deadline: &Deadline,
    ) -> Proposal {
        if let (Some((nat, tried)), Some(r)) = (self.natural.as_mut(), rel)
            && *tried != Some(level)
        {
            *tried = Some(level);
            if let Some(c) = propose_first(r, bounds, excluded, level, nat, deadline) {
                self.natural = None;
                self.natural_proposed = Some(c.clone());
                return Proposal::Within(c);
            }
        }
        let p = propose(
            rel,
            bounds,
            excluded,
            level,
            self.prefer.as_deref(),
            after,
            deadline,
        );
        if let Proposal::Beyond(_, Some(source)) = &p {
            self.relaxation = Some(source.clone());
        }
        p
    }

    /// The time of the first answers: `first_sub_time`; for a choice encoded
    /// alone at least `alone_sub_time`, below the incumbent and at the
    /// levels alike. Below the incumbent an answer cut short leaves nothing
    /// behind (the next try builds and searches from scratch; at a level
    /// the encoding is kept and goes on, `decide_alone`, but each round
    /// still costs a build per choice), so the short first
    /// rounds that suit the shared solver only cost time, and the least
    /// relaxed choices, the likeliest to hold a better schedule, should
    /// get their longer tries sooner: the choice that holds an optimum can
    /// need a second or two, which rounds that double from a quarter second
    /// over several choices reach only after seconds of other answers
    /// (results/policy.md).
    /// (Keeping each skipped choice's encoding for its next answer, each
    /// answer restarting the solver, saves the builds but not the search: a
    /// model comes on another path, results/policy.md. Going on without a
    /// restart is what gains, `Encoder::resume`.)
    fn first_time(&self, opts: &ChoiceOptions) -> Duration {
        if self.shared.is_some() {
            opts.first_sub_time
        } else {
            opts.first_sub_time.max(opts.alone_sub_time)
        }
    }

    /// Whether the search goes on: neither `patience` decisions nor `idle`
    /// time since the last better schedule or refuted choice.
    fn patient(&self, opts: &ChoiceOptions) -> bool {
        self.fruitless < opts.patience && self.progress_at.elapsed() < opts.idle
    }

    /// The makespan asked, in units of `g`: below the incumbent, or at most
    /// the level. `None`: not representable.
    fn target(&self, ask: Ask, g: u128) -> Option<u64> {
        let t = match ask {
            Ask::Below => self.ub.checked_sub(1)? / g,
            Ask::AtMost(l) => u128::from(l) / g,
        };
        u64::try_from(t).ok()
    }

    /// After a schedule of makespan `ms` was found: whether the decision
    /// ends there (the incumbent is optimal, or a level was asked).
    fn settled_by(&self, ask: Ask, ms: u128) -> bool {
        ms <= u128::from(self.lb) || matches!(ask, Ask::AtMost(_))
    }
}

#[cfg(test)]
mod tests {
    use super::{ChoiceStats, LevelRefutations, bound_source};

    /// A refutation made at makespan `T` says nothing of the levels above
    /// `T` (a choice without a schedule of makespan `T` may have one of
    /// `T + 1`): the next pass gets those at its level and above only, and
    /// a pass keeps only those at or above the level it reached.
    #[test]
    fn refutations_carry_only_to_the_levels_they_hold_at() {
        let memo = LevelRefutations::default();
        assert!(memo.is_empty());
        let a = vec![(0, 1), (1, 0)];
        let b = vec![(0, 0)];
        memo.keep(vec![(a.clone(), 10), (b.clone(), 12)], 10);
        assert_eq!(memo.from(10), vec![(a.clone(), 10), (b.clone(), 12)]);
        assert_eq!(memo.from(11), vec![(b.clone(), 12)]);
        assert!(memo.from(13).is_empty());
        // A pass that reached 12 keeps what holds from 12 on.
        memo.keep(memo.from(10), 12);
        assert_eq!(memo.from(0), vec![(b, 12)]);
    }

    /// A bound of a search that decided no choice is the relaxation's and
    /// names it (a 25-op instance at 2 s: "tiling choices ... 0 tried, 0
    /// refuted" over the relaxation's dual bound); once choices were
    /// decided, the enumeration's argument with its counts.
    #[test]
    fn a_bound_without_a_decided_choice_is_the_relaxations() {
        let relaxation = "tiling-choice relaxation (MILP, dual bound)";
        let none = ChoiceStats::default();
        assert_eq!(
            bound_source(301, false, &none, Some(relaxation)),
            relaxation
        );
        let some = ChoiceStats {
            tried: 3,
            refuted: 2,
            ..Default::default()
        };
        for levels in [false, true] {
            let s = bound_source(301, levels, &some, Some(relaxation));
            assert!(
                s.starts_with("tiling choices: each the relaxation puts below 301"),
                "{s}"
            );
            assert!(s.contains("3 tried, 2 refuted"), "{s}");
        }
    }
}
