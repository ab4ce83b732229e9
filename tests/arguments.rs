//! Every written argument the code relies on, checked on the corners of
//! docs/problem.md (tests/common/corners.rs) and on schedules with tied
//! starts: compaction (models/bounds.md §9: T_max, the latest start, the SAT
//! horizon), the time unit (§9, models/sat.md §1.3), dominance (models/sat.md
//! §1.1), and the list engine's guides (models/list.md, src/list/sgs/guide.rs:
//! a legal schedule's start order is a guide, and guarded passes never
//! deadlock). Each check fails when its argument is false on a case.
//! `TMIN_CORNER_CASES=N` draws N cases a test (default 1,500), as
//! tests/corners.rs does.

use crate::common;
use common::Rng;
use common::brute;
use common::corners::{Corner, cases};

use tmin::graph::NodeGraph;
use tmin::instance::{Instance, parse_reader};
use tmin::schedule::{Schedule, check};

/// How many of the cases must reach a check, given how many reach it out of
/// the default 1,500: each test asserts that its argument was exercised.
fn enough(of_1500: u64) -> usize {
    (of_1500 * cases() / 1500) as usize
}

fn parse(text: &str) -> Instance {
    parse_reader(text.as_bytes(), "inline.txt").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// A corner case with a legal schedule: the instance and the brute force's
/// optimal schedule (ties and all), or `None` where there is none.
fn optimal_case(seed: u64) -> Option<(Corner, Instance, Schedule)> {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let c = Corner::random(&mut rng);
    let b = brute::solve(&c);
    b.optimum?;
    let inst = parse(&c.text());
    let text = b.schedule_text();
    let read = tmin::schedule::read_schedule(&inst, text.as_bytes(), "brute", 5).unwrap();
    let s = read.schedule.expect("a whole schedule");
    Some((c, inst, s))
}

fn assert_legal(g: &NodeGraph, s: &Schedule, what: &str) {
    let v = check(g, s, 5);
    assert!(v.is_empty(), "{what}: {:?}", v.kept);
}

/// `[start, end)` of every node running for a positive time, merged.
fn busy(g: &NodeGraph, s: &Schedule) -> Vec<(u128, u128)> {
    let mut runs: Vec<(u128, u128)> = (0..g.n_nodes())
        .filter(|&v| g.dur(v as u32) > 0)
        .map(|v| {
            let a = u128::from(s.start[v]);
            (a, a + u128::from(g.dur(v as u32)))
        })
        .collect();
    runs.sort_unstable();
    let mut merged: Vec<(u128, u128)> = Vec::new();
    for (a, b) in runs {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    merged
}

/// Compaction (models/bounds.md §9): `f(t) = t - |idle ∩ [0, t)|`, idle
/// the instants where no node of positive duration runs, which is the busy
/// time before `t`; every start `s` becomes `f(s)`, cores kept.
fn compact(g: &NodeGraph, s: &Schedule) -> Schedule {
    let merged = busy(g, s);
    let f = |t: u128| -> u128 {
        merged
            .iter()
            .filter(|&&(a, _)| a < t)
            .map(|&(a, b)| b.min(t) - a)
            .sum()
    };
    Schedule {
        choice: s.choice.clone(),
        start: s
            .start
            .iter()
            .map(|&x| u64::try_from(f(u128::from(x))).unwrap())
            .collect(),
        core: s.core.clone(),
    }
}

/// `s` with a gap of `k` inserted at `cut`, an instant no run crosses:
/// every start at or after it moves `k` later (legal: the holds that end
/// at a start after the cut last longer, over a stretch where the others
/// are as they were just before the cut, or fewer); `None` where a start
/// would pass 2^64 - 1 (starts near the limit leave no room for a gap).
fn with_gap(s: &Schedule, cut: u64, k: u64) -> Option<Schedule> {
    Some(Schedule {
        choice: s.choice.clone(),
        start: s
            .start
            .iter()
            .map(|&x| if x >= cut { x.checked_add(k) } else { Some(x) })
            .collect::<Option<_>>()?,
        core: s.core.clone(),
    })
}

/// The instants no run crosses (`s < t < end` for no node): gaps go there.
fn cuts(g: &NodeGraph, s: &Schedule) -> Vec<u64> {
    let mut out: Vec<u64> = s
        .start
        .iter()
        .copied()
        .filter(|&t| {
            (0..g.n_nodes()).all(|v| {
                let a = s.start[v];
                let e = u128::from(a) + u128::from(g.dur(v as u32));
                !(a < t && u128::from(t) < e)
            })
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Compaction keeps a legal schedule legal and ends it by the sum of its
/// durations (so by T_max), every start by `tmax::latest_start`: on the
/// brute force's optima (tied starts, zero durations, memory at its
/// tightest) with gaps inserted, and on list schedules of memory-tight
/// instances.
#[test]
fn compaction_keeps_schedules_legal_within_the_sum_of_durations() {
    let (mut checked, mut shrunk) = (0, 0);
    for seed in 1..=cases() {
        let Some((c, inst, s)) = optimal_case(seed) else {
            continue;
        };
        let g = NodeGraph::new(&inst, s.choice.clone()).unwrap();
        let mut rng = Rng(seed | 1);
        let cs = cuts(&g, &s);
        if cs.is_empty() {
            continue; // no node at all: every op empty
        }
        let cut = cs[rng.index(cs.len())];
        let Some(gapped) = with_gap(&s, cut, (1 + rng.below(3)) * c.time_unit.min(1 << 40)) else {
            continue;
        };
        let what = format!("seed {seed}\n{}", c.text());
        assert_legal(&g, &gapped, &format!("gap at {cut}, {what}"));
        compacted_within(&inst, &g, &gapped, &what);
        checked += 1;
        shrunk += usize::from(gapped.makespan(&g) > s.makespan(&g));
    }
    for seed in 1..=20 {
        let inst = common::memory_tight(seed, 4 + (seed % 5) as u32, (2, 6));
        let s = common::list_schedule(&inst, 50);
        let g = NodeGraph::new(&inst, s.choice.clone()).unwrap();
        compacted_within(&inst, &g, &s, &format!("memory-tight seed {seed}"));
        checked += 1;
    }
    assert!(
        checked > enough(500) && shrunk > enough(100),
        "{checked} {shrunk}"
    );
}

/// Compacts `s` and checks what models/bounds.md §9 says of the result.
fn compacted_within(inst: &Instance, g: &NodeGraph, s: &Schedule, what: &str) {
    let c = compact(g, s);
    assert_legal(g, &c, &format!("compacted, {what}"));
    let work: u128 = (0..g.n_nodes() as u32).map(|v| u128::from(g.dur(v))).sum();
    assert!(c.makespan(g) <= work, "{what}");
    assert!(c.makespan(g) <= s.makespan(g), "{what}");
    assert!(work <= tmin::tmax::t_max(inst).unwrap(), "{what}");
    let latest = tmin::tmax::latest_start(inst);
    assert!(c.start.iter().all(|&x| u128::from(x) <= latest), "{what}");
    // Some node runs at every instant before the makespan.
    let b = busy(g, &c);
    let covered: u128 = b.iter().map(|&(a, e)| e - a).sum();
    assert_eq!(
        covered,
        c.makespan(g).min(b.last().map_or(0, |x| x.1)),
        "{what}"
    );
}

/// Why models/bounds.md §9 does not run a schedule's nodes one at a time in
/// start order: with tied starts that run can break memory. Memory 2: `x`
/// (2, time 0-1) hands over to `y` (1) at 1, `z` (1) also starts at 1. Legal
/// as scheduled; run one at a time with `z` before `y`, `x` still holds when
/// `z` starts: 3 > 2.
#[test]
fn a_serial_run_in_start_order_is_not_always_legal() {
    let inst = parse(
        "SetSocInfo([[0,3]],[[0,2]])
AddOpInfo(1,1,0,[[1,2]],[[1,0,1],[2,0,1]],[[1,0,2],[2,0,1]])
AddOpInfo(2,1,0,[],[[1,0,1]],[[1,0,1]])
GetInferenceScheResult([],[[1,1,1],[2,2,1]])",
    );
    let g = NodeGraph::new(&inst, vec![0, 1]).unwrap();
    // Nodes: 0 = x, 1 = y (op 1), 2 = z (op 2).
    let legal = Schedule {
        choice: vec![0, 1],
        start: vec![0, 1, 1],
        core: vec![0, 0, 1],
    };
    assert_legal(&g, &legal, "as scheduled");
    let serial = Schedule {
        choice: vec![0, 1],
        start: vec![0, 2, 1],
        core: vec![0, 0, 0],
    };
    assert!(
        !check(&g, &serial, 5).is_empty(),
        "z before y, one at a time"
    );
}

/// The time unit (models/bounds.md §9, models/sat.md §1.3): with every
/// duration a multiple of `g`, the least makespan over all integer starts
/// equals the least over starts in multiples of `g`.
#[test]
fn starts_in_multiples_of_the_unit_lose_no_optimum() {
    let mut compared = 0;
    for seed in 1..=cases() * 4 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut c = Corner::random(&mut rng);
        if brute::choices(&c).len() > 4
            || c.groups
                .iter()
                .flat_map(|g| &g.tilings)
                .any(|t| t.nodes.len() > 2)
        {
            continue;
        }
        c.time_unit = 2 + rng.below(2);
        let units = brute::solve(&c).optimum;
        // The same instance with the unit folded into the durations.
        let mut raw = c.clone();
        for g in &mut raw.groups {
            for t in &mut g.tilings {
                for n in &mut t.nodes {
                    n.dur *= c.time_unit;
                }
            }
        }
        raw.time_unit = 1;
        assert_eq!(
            brute::solve(&raw).optimum,
            units,
            "seed {seed}\n{}",
            c.text()
        );
        compared += usize::from(units.is_some());
    }
    assert!(compared > enough(200), "{compared}");
}

/// Dominance (models/sat.md §1.1, prep::dominance): the optimum over the
/// candidate tilings is the optimum over every usable tiling, and every
/// choice with a dominated tiling does no better than with its dominator.
#[test]
fn dominated_tilings_lose_no_optimum() {
    let (mut compared, mut dominated) = (0, 0);
    for seed in 1..=cases() {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let c = Corner::random(&mut rng);
        let b = brute::solve(&c);
        let inst = parse(&c.text());
        let cands = tmin::prep::dominance::candidates_of_every_op(&inst);
        // Candidates as tiling indices of each op's group.
        let index = |o: usize, t: u32| {
            let id = inst.library.tilings[t as usize].id;
            c.groups[c.ops[o].1]
                .tilings
                .iter()
                .position(|x| x.id == id)
                .unwrap()
        };
        let cand_idx: Vec<Vec<usize>> = cands
            .iter()
            .enumerate()
            .map(|(o, ts)| ts.iter().map(|&t| index(o, t)).collect())
            .collect();
        let over_cands = b
            .choices
            .iter()
            .filter(|(ch, _)| ch.iter().enumerate().all(|(o, t)| cand_idx[o].contains(t)))
            .filter_map(|(_, ms)| *ms)
            .min();
        assert_eq!(over_cands, b.optimum, "seed {seed}\n{}", c.text());
        compared += 1;
        dominated += usize::from(cand_idx.iter().zip(&c.ops).any(|(ts, op)| {
            ts.len()
                < c.groups[op.1]
                    .tilings
                    .iter()
                    .filter(|t| c.usable(t))
                    .count()
        }));
    }
    assert!(
        compared > enough(1000) && dominated > enough(100),
        "{compared} {dominated}"
    );
}

/// The list engine's guides (src/list/sgs/guide.rs, models/list.md): the
/// start order of a legal schedule is a guide (its serial schedule is
/// legal) unless a node of zero duration starts at the same instant as one
/// of its successors (the serial pass starts no such chain at once), and a
/// pass guarded by a guide never deadlocks and stays legal, whatever its
/// priority rule. On the brute force's optima: tied starts, zero durations,
/// handovers at one instant, memory at its tightest.
#[test]
fn guides_from_legal_schedules_never_deadlock() {
    use tmin::list::priority::{Paths, Rule, keys, keys_from_starts};
    use tmin::list::sgs::{Guide, Mode, Model, activity_list, run};
    let forever = tmin::stop::Deadline::after(std::time::Duration::from_secs(3600));
    let (mut guided, mut chains) = (0, 0);
    for seed in 1..=cases() {
        let Some((c, inst, s)) = optimal_case(seed) else {
            continue;
        };
        let g = NodeGraph::new(&inst, s.choice.clone()).unwrap();
        let md = Model::new(&g);
        let list = activity_list(&g, &keys_from_starts(&s.start));
        let what = format!("seed {seed}\n{}\n{:?}", c.text(), s.start);
        let chain_at_once = (0..g.n_nodes() as u32).any(|v| {
            let mut tied = false;
            g.for_each_succ(v, |w| tied |= s.start[w as usize] == s.start[v as usize]);
            g.dur(v) == 0 && tied
        });
        let (guide, serial) = match Guide::new(&md, &list, &forever) {
            Ok(x) => x,
            Err(_) if chain_at_once => {
                chains += 1;
                continue;
            }
            Err(e) => panic!("{what}: not a guide: {e:?}"),
        };
        assert_legal(&g, &serial, &format!("serial, {what}"));
        let paths = Paths::new(&g);
        for rule in Rule::ALL {
            let k = keys(&g, &paths, rule);
            let p = run(&md, &k, Mode::Guarded(&guide), &forever)
                .unwrap_or_else(|e| panic!("{} deadlocked: {e:?}, {what}", rule.name()));
            assert_legal(&g, &p, &format!("guarded {}, {what}", rule.name()));
        }
        guided += 1;
    }
    eprintln!("{guided} guides, {chains} zero-duration chains at one instant not guides");
    assert!(guided > enough(500), "{guided}");
}
