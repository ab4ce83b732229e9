//! Every bound source, every proof and every verdict of tmin against a brute
//! force, on tiny instances drawn from every corner of docs/problem.md
//! (tests/common/corners.rs: empty tilings and op edges through them,
//! several graphs, unusable tilings, zero durations and amounts, several
//! memory types, one and many cores, memory at and below the largest
//! demand, durations and sizes near 2^64). The brute force
//! (tests/common/brute.rs) reads the generator's plain data, not tmin's
//! parser.
//!
//! Each bound source is checked on its own: a bound above the optimum fails
//! whatever its source. And each source must be tight (equal to the
//! optimum) on some case, so a source raised by one unit would fail here:
//! the mutation check, for every source at once.
//!
//! `TMIN_CORNER_CASES=N` runs N cases per test instead of the default (a
//! larger sweep: `TMIN_CORNER_CASES=20000 cargo test --release --test
//! suite corners::`).

use crate::common;
use common::Rng;
use common::brute::{self, Brute};
use common::corners::{Corner, cases};

use std::collections::BTreeMap;
use std::time::Duration;

use tmin::bounds::Bound;
use tmin::instance::{Instance, parse_reader};
use tmin::solve::{SolveOptions, Status};
use tmin::stop::Deadline;

/// One drawn case: the plain data, its text, tmin's reading, the brute force.
struct Case {
    seed: u64,
    corner: Corner,
    text: String,
    inst: Instance,
    brute: Brute,
}

impl Case {
    fn new(seed: u64) -> Case {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let corner = Corner::random(&mut rng);
        let text = corner.text();
        let inst = parse_reader(text.as_bytes(), "corner.txt")
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        let brute = brute::solve(&corner);
        Case {
            seed,
            corner,
            text,
            inst,
            brute,
        }
    }

    /// Fails, naming the case, when `bound` passes the optimum.
    #[track_caller]
    fn at_most_optimum(&self, what: &str, value: u128) {
        if let Some(opt) = self.brute.optimum {
            assert!(
                value <= opt,
                "seed {}: {what} {value} above the optimum {opt}\n{}",
                self.seed,
                self.text
            );
        }
    }

    /// The corner tiling index of library tiling `t` of op `o`.
    fn tiling_index(&self, o: u32, t: u32) -> usize {
        let id = self.inst.library.tilings[t as usize].id;
        let g = self.corner.ops[o as usize].1;
        self.corner.groups[g]
            .tilings
            .iter()
            .position(|x| x.id == id)
            .unwrap()
    }

    /// Whether some legal schedule uses every `(op, library tiling)` of `set`.
    fn legal_with(&self, set: &[(u32, u32)]) -> bool {
        self.brute.choices.iter().any(|(c, ms)| {
            ms.is_some()
                && set
                    .iter()
                    .all(|&(o, t)| c[o as usize] == self.tiling_index(o, t))
        })
    }
}

/// A bound source's name without its numbers and details ("core type #
/// load", "window net (edge finding, timetables, shaving)").
fn kind(source: &str) -> String {
    let mut out = String::new();
    let mut digits = false;
    for ch in source.split(':').next().unwrap_or_default().chars() {
        if ch.is_ascii_digit() {
            if !digits {
                out.push('#');
            }
            digits = true;
        } else {
            digits = false;
            out.push(ch);
        }
    }
    out
}

/// Per bound source: cases seen with an optimum, and cases where the bound
/// equals it.
#[derive(Default)]
struct Tightness(BTreeMap<String, (usize, usize)>);

impl Tightness {
    fn record(&mut self, case: &Case, b: &Bound) {
        case.at_most_optimum(&b.source, u128::from(b.value));
        if let Some(opt) = case.brute.optimum {
            self.record_at(case, b, opt, "the optimum");
        }
    }

    /// `record` against `least`, the least makespan of `what`.
    #[track_caller]
    fn record_at(&mut self, case: &Case, b: &Bound, least: u128, what: &str) {
        let v = u128::from(b.value);
        assert!(
            v <= least,
            "seed {}: {} {v} above {what} {least}\n{}",
            case.seed,
            b.source,
            case.text
        );
        let e = self.0.entry(kind(&b.source)).or_default();
        e.0 += 1;
        e.1 += usize::from(v == least);
    }

    /// Every source in `want` was seen and was tight at least once: a
    /// source raised by one unit fails `record` on that case.
    #[track_caller]
    fn assert_tight(&self, want: &[&str]) {
        eprintln!("{:#?}", self.0);
        for w in want {
            let (seen, tight) = self.0.get(*w).copied().unwrap_or_default();
            assert!(
                tight > 0,
                "source {w:?}: {seen} cases, never tight: a bound raised by one would pass; {:#?}",
                self.0
            );
        }
    }
}

#[test]
fn the_parser_and_the_validator_agree_with_the_plain_data() {
    let (mut infeasible, mut unusable, mut empty, mut scaled) = (0, 0, 0, 0);
    for seed in 1..=cases() {
        let c = Case::new(seed);
        for (o, &(_, g)) in c.corner.ops.iter().enumerate() {
            let mut mine: Vec<u32> = c.corner.groups[g]
                .tilings
                .iter()
                .filter(|t| c.corner.usable(t))
                .map(|t| t.id)
                .collect();
            let mut theirs: Vec<u32> = c
                .inst
                .usable_tilings(o as u32)
                .map(|t| c.inst.library.tilings[t as usize].id)
                .collect();
            mine.sort_unstable();
            theirs.sort_unstable();
            assert_eq!(
                mine, theirs,
                "seed {seed}: usable tilings of op {o}\n{}",
                c.text
            );
            unusable += usize::from(mine.len() < c.corner.groups[g].tilings.len());
            empty += usize::from(
                c.corner.groups[g]
                    .tilings
                    .iter()
                    .any(|t| t.nodes.is_empty()),
            );
        }
        scaled += usize::from(c.corner.time_unit > 1);
        match c.brute.optimum {
            None => infeasible += 1,
            Some(opt) => {
                let sched = c.brute.schedule_text();
                let rep = tmin::schedule::check_reader(&c.inst, sched.as_bytes(), "brute", 10)
                    .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
                assert!(
                    rep.is_legal(),
                    "seed {seed}: the validator rejects the brute force's optimum {sched}: {:?}\n{}",
                    rep.violations.kept,
                    c.text
                );
                assert_eq!(rep.makespan, Some(opt), "seed {seed}");
            }
        }
    }
    eprintln!(
        "{infeasible} infeasible, {unusable} ops with unusable tilings, {empty} with empty ones, {scaled} scaled"
    );
    assert!(infeasible > 0 && unusable > 0 && empty > 0 && scaled > 0);
}

/// The combinatorial bounds' sources (models/bounds.md §1-5).
const COMBINATORIAL: &[&str] = &[
    "critical path",
    "core type # load",
    "core type # head-body-tail",
    "core type # one-machine preemptive (Jackson)",
    "memory type # area",
];

/// The coupled bound's source (models/bounds.md §5a): computed where some
/// op has a choice, so never for one tiling choice.
const COUPLED: &str = "core loads and memory areas coupled by the tiling choice";

#[test]
fn combinatorial_bounds_never_pass_the_optimum() {
    let mut tight = Tightness::default();
    for seed in 1..=cases() {
        let c = Case::new(seed);
        for b in &tmin::bounds::combinatorial::lower_bounds(&c.inst).all {
            tight.record(&c, b);
        }
    }
    tight.assert_tight(COMBINATORIAL);
    tight.assert_tight(&[COUPLED]);
}

/// `tmin check --usage` on the brute force's optimal schedule of every case
/// that has one: each memory type's held amount is the sum over its nodes
/// of demand times `R(x, m) - start(x)` with `R` as problem.md §4 rule 4
/// defines it (recomputed here node by node, not by the validator's
/// sweep), at least the run area and at most size x makespan, the peak at
/// most the size; each core type's load at most cores x makespan; and the
/// critical chain's start, runs and waits add up to the makespan. Some case
/// has a hold beyond its node's run and some chain a wait.
#[test]
fn usage_accounts_for_every_optimal_brute_schedule() {
    let (mut longer_holds, mut waits) = (0, 0);
    // Cases whose optimal schedule holds past node ends for each cause.
    let mut causes = [0usize; 4];
    for seed in 1..=cases() {
        let c = Case::new(seed);
        let Some(opt) = c.brute.optimum else { continue };
        let sched = c.brute.schedule_text();
        let (rep, usage) =
            tmin::schedule::check_reader_with_usage(&c.inst, sched.as_bytes(), "brute", 10, true)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert!(rep.is_legal(), "seed {seed}");
        let u = usage.unwrap_or_else(|| panic!("seed {seed}: no usage of a legal schedule"));
        assert_eq!(u.makespan, opt, "seed {seed}");
        let choice = rep.choice.clone().expect("a legal schedule has tilings");
        let g = tmin::graph::NodeGraph::new(&c.inst, choice).expect("its node graph");
        let read = tmin::schedule::read_schedule(&c.inst, sched.as_bytes(), "brute", 10)
            .expect("read")
            .schedule
            .expect("a schedule");
        let start = |v: u32| u128::from(read.start[v as usize]);
        let end = |v: u32| start(v) + u128::from(g.dur(v));
        for (m, mu) in u.memory.iter().enumerate() {
            let m = m as tmin::instance::TypeIdx;
            let mut held = 0u128;
            for v in 0..g.n_nodes() as u32 {
                let d = u128::from(g.demand(v, m));
                if d == 0 {
                    continue;
                }
                let mut r = end(v);
                g.for_each_succ(v, |y| {
                    if g.demand(y, m) > 0 {
                        r = r.max(start(y));
                    }
                });
                held += d * (r - start(v));
                longer_holds += usize::from(r > end(v));
            }
            assert_eq!(
                mu.held, held,
                "seed {seed}: memory type {}\n{}",
                mu.id, c.text
            );
            assert!(mu.run <= mu.held, "seed {seed}");
            assert_eq!(
                mu.run + mu.past.total(),
                mu.held,
                "seed {seed}: {:?}",
                mu.past
            );
            let p = &mu.past;
            for (k, part) in [p.in_op, p.op_sinks, p.join, p.successor_wait]
                .into_iter()
                .enumerate()
            {
                causes[k] += usize::from(part > 0);
            }
            assert!(mu.held <= u128::from(mu.size) * opt, "seed {seed}");
            assert!(mu.peak <= u128::from(mu.size), "seed {seed}");
        }
        for cu in &u.cores {
            assert!(cu.busy <= u128::from(cu.cores) * opt, "seed {seed}");
        }
        let ch = &u.chain;
        assert_eq!(
            ch.start + ch.work + ch.wait_cores_busy + ch.wait_core_free,
            opt,
            "seed {seed}: {ch:?}\n{}",
            c.text
        );
        waits += usize::from(ch.wait_cores_busy + ch.wait_core_free > 0);
    }
    eprintln!(
        "{longer_holds} holds beyond their run, {waits} chains with a wait, causes {causes:?}"
    );
    assert!(longer_holds > 0 && waits > 0);
    assert!(causes.iter().all(|&k| k > 0), "{causes:?}");
}

/// The bounds for one tiling choice (`tmin check --bound`'s "with these
/// tilings") against the brute force's least makespan with that choice,
/// on every choice of every case that has a legal schedule: never above
/// it, and each source equal to it on some choice.
#[test]
fn the_bounds_of_one_tiling_choice_never_pass_its_least_makespan() {
    let (mut tight, mut choices, mut above) = (Tightness::default(), 0usize, 0usize);
    for seed in 1..=cases() {
        let c = Case::new(seed);
        let every = tmin::bounds::combinatorial::lower_bounds(&c.inst)
            .best
            .value;
        let bounds = tmin::bounds::combinatorial::ChoiceBounds::new(&c.inst);
        for (picked, least) in &c.brute.choices {
            let Some(least) = *least else { continue };
            // The library tiling of each op that the brute force's index names.
            let choice: Vec<u32> = (0..c.inst.graph.n_ops() as u32)
                .map(|o| {
                    c.inst
                        .usable_tilings(o)
                        .find(|&t| c.tiling_index(o, t) == picked[o as usize])
                        .unwrap()
                })
                .collect();
            choices += 1;
            let what = format!("the least makespan of choice {choice:?}");
            let own = bounds.all(&choice);
            for b in &own.all {
                tight.record_at(&c, b, least, &what);
            }
            // The quick variant: the same bounds, energetic reasoning left out.
            let quick = bounds.quick(&choice);
            let plain: Vec<&Bound> = own
                .all
                .iter()
                .filter(|b| !b.source.ends_with("energetic reasoning"))
                .collect();
            assert_eq!(quick.all.iter().collect::<Vec<_>>(), plain, "seed {seed}");
            above += usize::from(own.best.value > every);
        }
    }
    // The choice's own bound is what the instance's cannot see: above it
    // on some choices (a choice's bound taken over every tiling fails here).
    eprintln!("{choices} choices, {above} with a bound above the instance's");
    assert!(choices > 0 && above > 0, "{choices} {above}");
    tight.assert_tight(COMBINATORIAL);
}

/// The time every search step below gets on a tiny case (they end far
/// sooner; the limit only guards a hang).
const STEP: Duration = Duration::from_secs(5);

const MIB: u64 = tmin::solve::DEFAULT_MEMORY_LIMIT_MIB;

#[test]
fn refuted_choices_are_in_no_legal_schedule() {
    let (mut tilings, mut pairs, mut sets, mut tight) = (0, 0, 0, Tightness::default());
    for seed in 1..=cases() {
        let c = Case::new(seed);
        let mut bounds = tmin::bounds::combinatorial::lower_bounds(&c.inst);
        let deadline = Deadline::after(STEP);
        tmin::pipeline::bounds::refute_choices(&c.inst, &mut bounds, &deadline, MIB);
        if let Some(b) =
            tmin::pipeline::bounds::tiling_choice_bound(&c.inst, &mut bounds, &deadline, Some(MIB))
        {
            tight.record(&c, &b);
        }
        let ng = &bounds.nogoods;
        for &(o, t) in &ng.refuted {
            tilings += 1;
            assert!(
                !c.legal_with(&[(o, t)]),
                "seed {seed}: refuted op {o} tiling {t}\n{}",
                c.text
            );
        }
        for p in &ng.pairs {
            pairs += 1;
            assert!(
                !c.legal_with(p),
                "seed {seed}: refuted pair {p:?}\n{}",
                c.text
            );
        }
        for s in &ng.sets {
            sets += 1;
            assert!(
                !c.legal_with(s),
                "seed {seed}: refuted set {s:?}\n{}",
                c.text
            );
        }
        // The bounds over what refutation left.
        if let Some(cand) = &ng.cand {
            for b in &tmin::bounds::combinatorial::lower_bounds_over(&c.inst, Some(cand)).all {
                tight.record(&c, b);
            }
        }
    }
    eprintln!("{tilings} tilings, {pairs} pairs, {sets} sets refuted");
    assert!(tilings > 0 && pairs > 0, "{tilings} {pairs} {sets}");
    tight.assert_tight(&["tiling-choice relaxation (MILP, solved)"]);
}

#[test]
fn the_relaxation_and_its_enumeration_never_pass_the_optimum() {
    let mut tight = Tightness::default();
    let (mut enumerated, mut below) = (0, 0);
    for seed in 1..=cases() {
        let c = Case::new(seed);
        let bounds = tmin::bounds::combinatorial::lower_bounds(&c.inst);
        let deadline = Deadline::after(STEP);
        if let Some(b) = tmin::milp::aggregate::bound(&c.inst, &bounds, &deadline) {
            tight.record(&c, &b);
        }
        // The enumeration at the optimum's level finds a choice (the
        // optimal schedule's, or one dominating it); below the relaxation's
        // least value it finds none.
        let (Some(rel), Some(opt)) = (
            tmin::milp::aggregate::relaxation(&c.inst, &bounds, &deadline),
            c.brute.optimum,
        ) else {
            continue;
        };
        let level = u64::try_from(opt / u128::from(rel.unit)).unwrap();
        let next = rel.next_within(level, &[], None, None, 1 << 22, deadline.end);
        assert!(
            matches!(next, tmin::bounds::relaxation::Next::Choice(_)),
            "seed {seed}: no choice at the optimum's level {level} (units of {}): {next:?}\n{}",
            rel.unit,
            c.text
        );
        enumerated += 1;
        // The least level with a choice is a bound too.
        let least = (0..=level)
            .find(|&l| {
                matches!(
                    rel.next_within(l, &[], None, None, 1 << 22, deadline.end),
                    tmin::bounds::relaxation::Next::Choice(_)
                )
            })
            .unwrap();
        below += usize::from(least < level);
        tight.record(
            &c,
            &Bound {
                value: least * rel.unit,
                source: "relaxation enumeration".into(),
            },
        );
    }
    eprintln!("{enumerated} enumerated, {below} below the optimum");
    tight.assert_tight(&[
        "tiling-choice relaxation (MILP, solved)",
        "relaxation enumeration",
    ]);
}

#[test]
fn the_window_net_never_passes_the_optimum() {
    let mut tight = Tightness::default();
    for seed in 1..=cases() {
        let c = Case::new(seed);
        let bounds = tmin::bounds::combinatorial::lower_bounds(&c.inst);
        let deadline = Deadline::after(STEP);
        if let Some(b) =
            tmin::sat::windows::bound(&c.inst, &bounds.nogoods, bounds.best.value, None, &deadline)
        {
            tight.record(&c, &b);
        }
        // And what `tmin bound` reports, every source of it.
        for b in &tmin::pipeline::bounds::proven_bounds(&c.inst, STEP).all {
            tight.record(&c, b);
        }
    }
    tight.assert_tight(&["window net (edge finding, timetables, shaving)"]);
}

/// Every engine: its schedule legal (checked where it is made), its bound
/// at most the optimum, `optimal` only at the optimum, `infeasible` only
/// where the brute force finds no schedule. In three tests, so that the
/// harness runs the two long ones (list scheduling, the others) side by
/// side.
#[test]
fn the_exact_engines_tell_the_truth() {
    engines_tell_the_truth(
        &["auto", "sat"],
        &["auto engine's bound", "sat engine's bound"],
        // The exact engines settle every tiny case.
        &["auto", "sat"],
    );
}

#[test]
fn list_scheduling_tells_the_truth() {
    engines_tell_the_truth(&["list"], &["list engine's bound"], &[]);
}

#[test]
fn the_other_engines_tell_the_truth() {
    engines_tell_the_truth(&["milp", "greedy", "bnb"], &["milp engine's bound"], &[]);
}

/// `engines` on every case: the truth of each answer; each of `tight` (a
/// bound's source) meets the optimum on some case; each of `settle`
/// proves every case optimal or infeasible.
fn engines_tell_the_truth(engines: &[&str], tight_sources: &[&str], settle: &[&str]) {
    use tmin::registry::EngineChoice;
    let engines: Vec<EngineChoice> = engines
        .iter()
        .map(|e| EngineChoice::builtin(e).unwrap())
        .collect();
    let mut tight = Tightness::default();
    let mut proven: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for seed in 1..=cases() / 3 {
        let c = Case::new(seed);
        for e in &engines {
            let opts = SolveOptions {
                time_limit: STEP,
                ..SolveOptions::default()
            };
            let r = tmin::registry::run(&c.inst, e, &opts);
            let what = format!("seed {seed}, {}: {r:?}\n{}", e.name(), c.text);
            assert!(r.internal_error.is_none(), "{what}");
            tight.record(
                &c,
                &Bound {
                    value: r.lower_bound,
                    source: format!("{} engine's bound", e.name()),
                },
            );
            if let Some(ms) = r.makespan {
                let opt = c
                    .brute
                    .optimum
                    .expect("a schedule where brute force finds none");
                assert!(ms >= opt, "{what}");
            }
            let p = proven.entry(e.name()).or_default();
            match r.status {
                Status::Optimal => {
                    assert_eq!(r.makespan, c.brute.optimum, "{what}");
                    p.0 += 1;
                }
                Status::Infeasible => {
                    assert_eq!(c.brute.optimum, None, "{what}");
                    p.1 += 1;
                }
                _ => {}
            }
        }
    }
    eprintln!("optimal, infeasible proven: {proven:?}");
    tight.assert_tight(tight_sources);
    let cases = (cases() / 3) as usize;
    for e in settle {
        let (o, i) = proven[e];
        assert_eq!(o + i, cases, "{e} left cases open");
    }
}

/// The depth-first search over start times (models/bnb.md): at one below
/// the optimum it finds nothing (every schedule it builds is legal, and its
/// makespan meets the target), and at the optimum it never fails on every
/// branch where none of models/bnb.md §5's exceptions applies (no node of
/// duration 0, and each op's candidates agree on which memory types their
/// sources demand): a prune (tails, charges, dead ends) or a branching rule
/// that cut a legal schedule away would make it fail there.
#[test]
fn the_packing_search_never_passes_the_optimum_and_reaches_it() {
    use tmin::bnb::{Problem, Search, attempt};
    let far = Deadline::after(Duration::from_secs(3600));
    let (mut plain, mut found, mut exhausted) = (0, 0, 0);
    for seed in 1..=cases() / 2 {
        let c = Case::new(seed);
        let Some(opt) = c.brute.optimum.and_then(|o| u64::try_from(o).ok()) else {
            continue;
        };
        let p = Problem::new(&c.inst);
        let what = format!("seed {seed}: optimum {opt}\n{}", c.text);
        if opt > 0 {
            let mut below = Search::new(&p, opt - 1);
            let a = attempt(&mut below, &far, 20_000, None, false);
            assert!(a.schedule.is_none(), "a schedule below the optimum: {what}");
        }
        let mut at = Search::new(&p, opt);
        let a = attempt(&mut at, &far, 200_000, None, false);
        exhausted += usize::from(a.exhausted);
        if let Some(s) = a.schedule {
            found += 1;
            let r = tmin::solve::SolveResult::found(&c.inst, s, 0, "none", "bnb")
                .unwrap_or_else(|e| panic!("{}: {what}", e.message));
            assert!(r.makespan <= Some(u128::from(opt)), "{what}");
        }
        if p.is_plain() {
            plain += 1;
            assert!(!a.exhausted, "every branch failed at the optimum: {what}");
        }
    }
    eprintln!("found at the optimum {found}, exhausted {exhausted}, plain {plain}");
    assert!(
        plain > cases() as usize / 10,
        "too few plain cases: {plain}"
    );
}

/// Every list the serial-order search returns, on every choice of usable
/// tilings, is a guide: a topological list the scheme's serial pass runs to
/// a legal schedule (models/list.md, "Searched serial orders": the search's
/// state is the serial schedule's); so is every fitted order, its joint
/// starts and backjumps included (models/list.md, "Interleaved ops"); and
/// never backtracking over a state that holds nothing loses no list (the floor lemma): the exhaustive search with
/// floors finds a list exactly where the one without does. On the corner
/// instances and on tiny memory-tight ones (three memory types, memory at a
/// serial schedule's peak, where holds of several types overlap).
#[test]
fn a_searched_serial_order_is_a_guide() {
    let mut n = SerialCounts::default();
    for seed in 1..=cases() / 2 {
        let c = Case::new(seed);
        let what = format!("seed {seed}\n{}", c.text);
        serial_orders(&c.inst, seed, c.brute.optimum.is_some(), &what, &mut n);
    }
    for seed in 1..=cases() / 50 {
        let inst = common::memory_tight(seed, 4, (2, 4));
        serial_orders(
            &inst,
            seed,
            true,
            &format!("memory-tight seed {seed}"),
            &mut n,
        );
    }
    eprintln!(
        "searched serial orders: {} of {} choices ({} have one); fitted orders: {}",
        n.found, n.tried, n.exist, n.fitted
    );
    assert!(n.found > n.tried / 2, "found {} of {}", n.found, n.tried);
}

/// Every tiling choice of `inst` (usable tilings); `None` when an op has none.
fn every_choice(inst: &Instance) -> Option<Vec<Vec<u32>>> {
    let per_op: Vec<Vec<u32>> = (0..inst.graph.n_ops() as u32)
        .map(|o| inst.usable_tilings(o).collect())
        .collect();
    if per_op.iter().any(|t| t.is_empty()) {
        return None;
    }
    let mut choices: Vec<Vec<u32>> = vec![Vec::new()];
    for ts in &per_op {
        choices = choices
            .into_iter()
            .flat_map(|pre| {
                ts.iter().map(move |&t| {
                    let mut x = pre.clone();
                    x.push(t);
                    x
                })
            })
            .collect();
    }
    Some(choices)
}

#[derive(Default)]
struct SerialCounts {
    tried: usize,
    found: usize,
    exist: usize,
    fitted: usize,
}

/// `a_searched_serial_order_is_a_guide` on every tiling choice of `inst`;
/// `feasible`: whether the instance has a legal schedule.
fn serial_orders(inst: &Instance, seed: u64, feasible: bool, what: &str, n: &mut SerialCounts) {
    use tmin::graph::NodeGraph;
    use tmin::list::frugal::{blind_rank, fitted_order};
    use tmin::list::serial_search::{exhaustive, searched_order};
    let far = Deadline::after(Duration::from_secs(3600));
    let Some(choices) = every_choice(inst) else {
        return;
    };
    for choice in choices {
        let g = NodeGraph::new(inst, choice).unwrap();
        let what = format!("choice {:?}, {what}", g.choice);
        n.tried += 1;
        let all = exhaustive(&g, false, &far);
        assert_eq!(
            exhaustive(&g, true, &far).is_some(),
            all.is_some(),
            "{what}"
        );
        n.exist += usize::from(all.is_some());
        // The fitted orders (single and joint starts) on the input order
        // and on the memory-blind schedule's.
        let input: Vec<u32> = (0..g.n_nodes() as u32).collect();
        for rank in [input, blind_rank(&g, 1)] {
            if let Some(list) = fitted_order(&g, &rank, &far) {
                n.fitted += 1;
                a_serial_guide(
                    &g,
                    &list,
                    all.is_some() && feasible,
                    &format!("fitted, {what}"),
                );
            }
        }
        let Some(list) = searched_order(&g, &far, 20_000, seed) else {
            continue;
        };
        n.found += 1;
        a_serial_guide(&g, &list, all.is_some() && feasible, &what);
    }
}

/// `list` orders every node of `g` once and the scheme's serial pass runs
/// it into a legal schedule; `exists`: whether a legal serial list exists
/// (none may be found otherwise).
fn a_serial_guide(g: &tmin::graph::NodeGraph, list: &[u32], exists: bool, what: &str) {
    use tmin::list::sgs::{Guide, Model};
    let far = Deadline::after(Duration::from_secs(3600));
    assert!(exists, "a list where none exists: {what}");
    let mut sorted = list.to_vec();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        (0..g.n_nodes() as u32).collect::<Vec<_>>(),
        "{what}"
    );
    let (_, s) = Guide::new(&Model::new(g), list, &far)
        .unwrap_or_else(|e| panic!("not a guide ({e:?}): {what}"));
    let v = tmin::schedule::check(g, &s, 5);
    assert!(v.is_empty(), "illegal serial schedule {:?}: {what}", v.kept);
}

#[test]
fn the_choice_levels_never_pass_the_optimum() {
    use tmin::bounds::nogoods::LevelRefutations;
    use tmin::sat::choices::{ChoiceOptions, Pass, Proven, search};
    let mut tight = Tightness::default();
    for seed in 1..=cases() {
        let t0 = std::time::Instant::now();
        let c = Case::new(seed);
        if c.brute.optimum.is_none() {
            continue; // the levels would rise to the time limit
        }
        let bounds = tmin::pipeline::bounds::proven_bounds(&c.inst, STEP);
        let at_levels = LevelRefutations::default();
        for pass in [Pass::Levels, Pass::Below] {
            let opts = ChoiceOptions {
                pass,
                ..ChoiceOptions::default()
            };
            let out = search(
                &c.inst,
                &bounds,
                Proven {
                    lb: bounds.best.value,
                    at_levels: &at_levels,
                },
                None,
                &Deadline::after(STEP),
                256 << 20,
                &opts,
            );
            if let Some(b) = &out.bound {
                tight.record(&c, b);
            }
            if let Some(s) = &out.schedule {
                let g = tmin::graph::NodeGraph::new(&c.inst, s.choice.clone()).unwrap();
                assert!(tmin::schedule::check(&g, s, 5).is_empty(), "seed {seed}");
                let opt = c
                    .brute
                    .optimum
                    .expect("a schedule where brute force finds none");
                assert!(s.makespan(&g) >= opt, "seed {seed}");
            }
        }
        if t0.elapsed().as_secs_f64() > 0.5 {
            eprintln!(
                "slow seed {seed}: {:.2} s\n{}",
                t0.elapsed().as_secs_f64(),
                c.text
            );
        }
    }
    tight.assert_tight(&["tiling choices"]);
}

/// The insertion scheme (`src/list/insertion.rs`) on every tiling choice of
/// the corner instances and of tiny memory-tight ones: every schedule it
/// completes is legal (the validator) and never below the brute-force
/// optimum, from serial guides and from random topological lists alike; and
/// from a guide (a list whose serial schedule is legal) it completes on all
/// but the rare joint starts it does not form. With a horizon shorter than
/// some lists need, a pass ends within it or fails.
#[test]
fn the_insertion_scheme_places_legally() {
    let mut n = InsertionCounts::default();
    each_case_and_tight(|inst, seed, optimum, what| {
        insertion_passes(inst, seed, optimum, what, &mut n)
    });
    eprintln!(
        "insertion passes: {} of {} guides, {} of {} random lists completed ({} at half the horizon)",
        n.guide_done, n.guides, n.random_done, n.random, n.short_done
    );
    assert!(n.guides > 0 && n.random_done > 0);
    // Some short-horizon passes complete and some fail: both sides tested.
    assert!(n.short_done > 0 && n.short_done < n.random_done);
    assert!(
        n.guide_done * 10 >= n.guides * 9,
        "{} of {} guides",
        n.guide_done,
        n.guides
    );
}

/// Calls `f` with each corner case (half the sweep: instance, seed,
/// brute-force optimum, name) and with tiny memory-tight instances (a
/// fiftieth, no optimum).
fn each_case_and_tight(mut f: impl FnMut(&Instance, u64, Option<u128>, &str)) {
    for seed in 1..=cases() / 2 {
        let c = Case::new(seed);
        f(
            &c.inst,
            seed,
            c.brute.optimum,
            &format!("seed {seed}\n{}", c.text),
        );
    }
    for seed in 1..=cases() / 50 {
        let inst = common::memory_tight(seed, 4, (2, 4));
        f(&inst, seed, None, &format!("memory-tight seed {seed}"));
    }
}

#[derive(Default)]
struct InsertionCounts {
    guides: usize,
    guide_done: usize,
    random: usize,
    random_done: usize,
    short_done: usize,
}

fn insertion_passes(
    inst: &Instance,
    seed: u64,
    optimum: Option<u128>,
    what: &str,
    n: &mut InsertionCounts,
) {
    use tmin::list::serial_search::searched_order;
    use tmin::list::sgs::activity_list;
    use tmin::list::sgs::{Guide, Model};
    let far = Deadline::after(Duration::from_secs(3600));
    let mut rng = tmin::rng::SplitMix64::new(seed);
    each_insertion_scheme(inst, what, |g, ins, total, what| {
        let horizon = total.max(1);
        let check = |start: Vec<u64>, kind: &str, horizon: u64| {
            let s = ins.schedule(start);
            let v = tmin::schedule::check(g, &s, 5);
            assert!(
                v.is_empty(),
                "illegal insertion schedule ({kind}) {:?}: {what}",
                v.kept
            );
            let ms = s.makespan(g);
            assert!(
                ms <= u128::from(horizon),
                "{kind}: {ms} past the horizon {horizon}: {what}"
            );
            if let Some(opt) = optimum {
                assert!(ms >= opt, "{kind}: {ms} below the optimum {opt}: {what}");
            }
        };
        if let Some(list) = searched_order(g, &far, 20_000, seed) {
            let (gd, _) = Guide::new(&Model::new(g), &list, &far).expect("a guide");
            n.guides += 1;
            if let Some(start) = ins.pass(gd.list(), horizon, &far) {
                n.guide_done += 1;
                check(start, "guide", horizon);
            }
        }
        for _ in 0..3 {
            let keys: Vec<u64> = (0..g.n_nodes()).map(|_| rng.next_u64()).collect();
            let list = activity_list(g, &keys);
            n.random += 1;
            if let Some(start) = ins.pass(&list, horizon, &far) {
                n.random_done += 1;
                check(start, "random list", horizon);
            }
            // A horizon shorter than some passes need (the search's horizon
            // below the best makespan, models/list.md): a pass that needs
            // more fails instead of placing a node past it.
            let short = (total / 2).max(1);
            if let Some(start) = ins.pass(&list, short, &far) {
                n.short_done += 1;
                check(start, "random list, short horizon", short);
            }
        }
    });
}

/// Calls `f` with the node graph, the insertion scheme over the total of
/// the durations, that total and the case's name, for every tiling choice
/// of `inst` whose passes fit the cells.
fn each_insertion_scheme(
    inst: &Instance,
    what: &str,
    mut f: impl FnMut(&tmin::graph::NodeGraph, &tmin::list::insertion::Insertion, u64, &str),
) {
    let Some(choices) = every_choice(inst) else {
        return;
    };
    for choice in choices {
        let g = tmin::graph::NodeGraph::new(inst, choice).unwrap();
        let what = format!("choice {:?}, {what}", g.choice);
        let total: u64 = (0..g.n_nodes() as u32).map(|v| g.dur(v)).sum();
        let horizon = total.max(1);
        let Some(ins) = tmin::list::insertion::Insertion::new(&g, horizon) else {
            continue;
        };
        if ins.fits(horizon) {
            f(&g, &ins, total, &what);
        }
    }
}

/// The independent graphs, each scheduled alone by the list engine and
/// packed in time (`tmin::list::in_turn`), form a legal schedule of the
/// whole, never shorter than the optimum, on every case with several
/// graphs where each graph alone was scheduled; and the packing overlaps
/// graphs where memory and cores leave room (on some case the graphs'
/// spans add up to more than the makespan).
#[test]
fn graphs_packed_in_time_are_legal() {
    let (mut packed, mut overlapped) = (0, 0);
    for seed in 1..=cases() / 5 {
        let c = Case::new(seed);
        let graphs = c.inst.independent_graphs();
        if graphs.len() < 2 || !c.inst.ops_without_usable_tiling().is_empty() {
            continue;
        }
        let lopts = tmin::list::ListOptions::default();
        let Ok(f) =
            tmin::list::in_turn::schedule(&c.inst, &graphs, &lopts, seed, &Deadline::after(STEP))
        else {
            continue;
        };
        let what = format!("seed {seed}: {f:?}\n{}", c.text);
        let g = tmin::graph::NodeGraph::new(&c.inst, f.schedule.choice.clone()).unwrap();
        assert!(
            tmin::schedule::check(&g, &f.schedule, 5).is_empty(),
            "{what}"
        );
        let ms = f.schedule.makespan(&g);
        assert_eq!(ms, u128::from(f.makespan), "{what}");
        assert!(ms >= c.brute.optimum.expect("feasible"), "{what}");
        // The graphs' spans (first start to last end) add up to more than
        // the makespan only where two overlap.
        let spans: u128 = graphs
            .iter()
            .map(|ops| {
                let nodes = ops.iter().flat_map(|&o| g.op_nodes(o));
                let first = nodes.clone().map(|v| f.schedule.start[v as usize]).min();
                let last = nodes
                    .map(|v| tmin::schedule::end(f.schedule.start[v as usize], g.dur(v)))
                    .max();
                last.zip(first).map_or(0, |(l, s)| l - u128::from(s))
            })
            .sum();
        packed += 1;
        if ms < spans {
            overlapped += 1;
        }
    }
    assert!(packed >= 20, "{packed} cases packed");
    assert!(overlapped > 0, "no case overlapped two graphs");
}

/// Right justification under the hold rule (`src/list/justify.rs`) on every
/// tiling choice of the corner instances and of tiny memory-tight ones,
/// from the legal schedules of insertion passes: the shifted schedule is
/// legal (the validator), no node starts earlier and the makespan does not
/// grow; and the insertion pass of its start order, where it completes, is
/// legal and never below the brute-force optimum. Nodes move on some
/// choices, and on some a move is held back by the memory a predecessor's
/// longer hold would take (without that check the validator fails here).
#[test]
fn right_justification_keeps_schedules_legal() {
    let mut n = JustifyCounts::default();
    each_case_and_tight(|inst, seed, optimum, what| {
        right_shifts(inst, seed, optimum, what, &mut n)
    });
    eprintln!(
        "right justification: {} schedules, {} with a node moved, {} passes after it ({} shorter)",
        n.shifted, n.moved, n.passes, n.shorter
    );
    assert!(n.shifted > 0 && n.moved > 0 && n.moved < n.shifted);
    assert!(n.passes > 0 && n.shorter > 0);
}

#[derive(Default)]
struct JustifyCounts {
    shifted: usize,
    moved: usize,
    passes: usize,
    shorter: usize,
}

fn right_shifts(
    inst: &Instance,
    seed: u64,
    optimum: Option<u128>,
    what: &str,
    n: &mut JustifyCounts,
) {
    use tmin::list::justify::right_shift;
    use tmin::list::priority::keys_from_starts_then;
    use tmin::list::sgs::activity_list;
    let far = Deadline::after(Duration::from_secs(3600));
    let mut rng = tmin::rng::SplitMix64::new(seed ^ 0x6a75_7374);
    each_insertion_scheme(inst, what, |g, ins, total, what| {
        let horizon = total.max(1);
        for _ in 0..3 {
            let keys: Vec<u64> = (0..g.n_nodes()).map(|_| rng.next_u64()).collect();
            let Some(start) = ins.pass(&activity_list(g, &keys), horizon, &far) else {
                continue;
            };
            let before = ins.schedule(start.clone()).makespan(g);
            let shifted = right_shift(g, &start, &far).expect("fits the cells");
            n.shifted += 1;
            let s = ins.schedule(shifted.clone());
            let v = tmin::schedule::check(g, &s, 5);
            assert!(v.is_empty(), "illegal right shift {:?}: {what}", v.kept);
            assert!(
                s.makespan(g) <= before,
                "the shift grew the makespan: {what}"
            );
            assert!(
                shifted.iter().zip(&start).all(|(a, b)| a >= b),
                "a node started earlier: {what}"
            );
            if shifted != start {
                n.moved += 1;
            }
            let keys = keys_from_starts_then(&shifted, |v| start[v]);
            if let Some(again) = ins.pass(&activity_list(g, &keys), horizon, &far) {
                n.passes += 1;
                let s = ins.schedule(again);
                let v = tmin::schedule::check(g, &s, 5);
                assert!(
                    v.is_empty(),
                    "illegal pass after the shift {:?}: {what}",
                    v.kept
                );
                let ms = s.makespan(g);
                if let Some(opt) = optimum {
                    assert!(ms >= opt, "{ms} below the optimum {opt}: {what}");
                }
                if ms < before {
                    n.shorter += 1;
                }
            }
        }
    });
}
