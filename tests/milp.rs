//! The exact MILP engine (issue 4): known optima, hand-derived memory-release
//! cases, an instance that is infeasible only because of the memory rule, a
//! tiling choice that is not the shortest one, and a cross-check of both
//! formulations (without warm start, so every schedule comes from a MILP
//! solution) against each other and the warm-started engine.
//!
//! No timed assertions: the limits below only stop runaway solves.

use std::time::Duration;

use tmin::generate::{GenConfig, generate};
use tmin::graph::NodeGraph;
use tmin::import::read_jsp;
use tmin::instance::{Instance, parse_reader};
use tmin::milp::{Formulation, MilpOptions, solve_cold};
use tmin::solve::{SolveOptions as Opts, SolveResult as Res};

/// The MILP engine run alone.
fn solve(inst: &tmin::instance::Instance, opts: &Opts, mopts: &MilpOptions) -> Res {
    let engine = tmin::milp::engine::MilpEngine {
        options: mopts.clone(),
    };
    tmin::pipeline::solve(&engine, inst, opts)
}
use tmin::schedule::check;
use tmin::solve::{SolveOptions, SolveResult, Status};

fn parse(text: &str) -> Instance {
    parse_reader(text.as_bytes(), "test").expect("a valid instance")
}

fn opts(secs: u64) -> SolveOptions {
    SolveOptions {
        time_limit: Duration::from_secs(secs),
        ..Default::default()
    }
}

fn model(f: Formulation) -> MilpOptions {
    MilpOptions {
        formulation: f,
        export_dir: None,
    }
}

const FORMS: [Formulation; 3] = [
    Formulation::Auto,
    Formulation::TimeIndexed,
    Formulation::Disjunctive,
];

/// Every schedule is legal and no bound exceeds its makespan.
fn sane(inst: &Instance, r: &SolveResult) {
    assert_eq!(r.internal_error, None, "{:?}", r.notes);
    if let Some(s) = &r.schedule {
        let g = NodeGraph::new(inst, s.choice.clone()).unwrap();
        assert!(check(&g, s, 5).is_empty(), "illegal schedule");
        assert!(u128::from(r.lower_bound) <= r.makespan.unwrap());
    }
}

/// Solves warm with every formulation and cold with both explicit ones;
/// asserts the optimum each time and returns the warm auto result.
fn optimum_everywhere(inst: &Instance, expected: u64) -> SolveResult {
    let mut first = None;
    for f in FORMS {
        for cold in [false, true] {
            if cold && f == Formulation::Auto {
                continue;
            }
            let r = if cold {
                solve_cold(inst, &opts(30), &model(f))
            } else {
                solve(inst, &opts(30), &model(f))
            };
            sane(inst, &r);
            assert_eq!(
                (r.status, r.makespan, r.lower_bound),
                (Status::Optimal, Some(u128::from(expected)), expected),
                "{f:?} cold={cold}: {:?}",
                r.notes
            );
            first.get_or_insert(r);
        }
    }
    first.unwrap()
}

#[test]
fn task_book_example_is_38() {
    let path = format!("{}/instances/example1.txt", env!("CARGO_MANIFEST_DIR"));
    let inst = tmin::instance::parse_file(std::path::Path::new(&path)).unwrap();
    let r = optimum_everywhere(&inst, 38);
    // Op 1 takes its diamond tiling (id 1).
    let s = r.schedule.unwrap();
    assert_eq!(inst.library.tilings[s.choice[0] as usize].id, 1);
}

#[test]
fn ft06_is_55() {
    let jsp = include_str!("data/jsplib/ft06");
    let js = read_jsp(jsp.as_bytes(), "ft06").unwrap();
    let inst = parse(&js.to_instance_text());
    // Warm (auto) and cold disjunctive: the time-indexed model is slower here.
    let r = solve(&inst, &opts(60), &MilpOptions::default());
    sane(&inst, &r);
    assert_eq!(
        (r.status, r.makespan),
        (Status::Optimal, Some(55)),
        "{:?}",
        r.notes
    );
    let r = solve_cold(&inst, &opts(60), &model(Formulation::Disjunctive));
    sane(&inst, &r);
    assert_eq!(
        (r.status, r.makespan),
        (Status::Optimal, Some(55)),
        "{:?}",
        r.notes
    );
}

/// Joint start. Two cores, one memory of 1024. Op 1: node 1 (2 units, holds
/// 1024) precedes nodes 2 (2 units) and 3 (3 units), 512 each. Op 2: node x,
/// 3 units, no memory.
///
/// Nodes 2 and 3 must start at the same instant: if one starts first, node 1
/// still holds 1024 (its other successor has not started) and the total is
/// 1536. They need both cores at once, no earlier than 2. Either x runs
/// first on one core, [0,3), while node 1 runs [0,2) on the other, and 2 and 3
/// start together at 3: node 3 ends at 6; or x runs after them: 2 and 3 start
/// at 2, a core frees at 4, x ends at 7. Optimum 6. Without the joint start
/// (2 at 2, 3 at 3) it would be 5, which is also every combinatorial bound
/// (critical path 5, load 10/2, memory area 4608/1024 -> 5): the engine must
/// prove 6 itself.
const JOINT: &str = "SetSocInfo([[0,2]],[[0,1024]])
AddOpInfo(1,1,0,[[1,2],[1,3]],[[1,0,2],[2,0,2],[3,0,3]],[[1,0,1024],[2,0,512],[3,0,512]])
AddOpInfo(2,1,0,[],[[1,0,3]],[])
GetInferenceScheResult([],[[1,1,1],[2,2,1]])";

#[test]
fn joint_start_case_is_6() {
    let inst = parse(JOINT);
    assert_eq!(
        tmin::bounds::combinatorial::lower_bounds(&inst).best.value,
        5
    );
    let r = optimum_everywhere(&inst, 6);
    let s = r.schedule.unwrap();
    assert_eq!(s.start[1], s.start[2], "nodes 2 and 3 start together");
}

/// Hold extension forces serialisation. Two cores, memory 1000. Op 1: a1 (1
/// unit, 600) precedes a2 (1 unit, 100). Op 2: b (3 units, 500).
///
/// a1 holds 600 from its start until a2 starts (a2 uses the same memory), so
/// at least 1 unit; b holds 500 while it runs, 3 units; 600 + 500 > 1000, so
/// the two holds are disjoint: makespan >= 1 + 3 = 4, reached by a1 [0,1),
/// a2 [1,2), b [1,4). Without memory the optimum is 3 = every combinatorial
/// bound (critical path 3, load 5/2, area 2200/1000).
const HOLD: &str = "SetSocInfo([[0,2]],[[0,1000]])
AddOpInfo(1,1,0,[[1,2]],[[1,0,1],[2,0,1]],[[1,0,600],[2,0,100]])
AddOpInfo(2,1,0,[],[[1,0,3]],[[1,0,500]])
GetInferenceScheResult([],[[1,1,1],[2,2,1]])";

#[test]
fn hold_extension_case_is_4() {
    let inst = parse(HOLD);
    assert_eq!(
        tmin::bounds::combinatorial::lower_bounds(&inst).best.value,
        3
    );
    optimum_everywhere(&inst, 4);
}

/// The hold crosses an op edge. Cores: type 0 x2, type 1 x1; memory 1000.
/// Op 1: a (type 0, 1 unit, 700). Op 2: c (type 1, 1 unit, 100), after op 1,
/// so a holds 700 until c starts. Op 3: d (type 1, 3 units, no memory).
/// Op 4: e (type 0, 3 units, 400): 700 + 400 > 1000, so e's run and a's hold
/// [S_a, max(S_a + 1, S_c)) are disjoint.
///
/// Makespan 4 is impossible: c and d share the type-1 core within [0,4) and c
/// starts at 1 or later (after a). If c runs first, d starts at 2 or later and
/// ends at 5 or later. If d runs first, [0,3), c runs [3,4), so a holds from
/// S_a <= 2 until 3; e (3 units within [0,4)) covers [1,3) and meets that
/// hold. Makespan 5: a [0,1), c [1,2), d [2,5), e [1,4). Optimum 5; every
/// combinatorial bound is at most 4 (type 1: Jackson 4). If a released at its
/// own end, d [0,3), a [0,1), e [1,4), c [3,4) would give 4.
const CROSS: &str = "SetSocInfo([[0,2],[1,1]],[[0,1000]])
AddOpInfo(1,1,0,[],[[1,0,1]],[[1,0,700]])
AddOpInfo(2,1,0,[],[[1,1,1]],[[1,0,100]])
AddOpInfo(3,1,0,[],[[1,1,3]],[])
AddOpInfo(4,1,0,[],[[1,0,3]],[[1,0,400]])
GetInferenceScheResult([[1,2]],[[1,1,1],[2,2,1],[3,3,1],[4,4,1]])";

#[test]
fn hold_across_op_edge_case() {
    let inst = parse(CROSS);
    assert_eq!(
        tmin::bounds::combinatorial::lower_bounds(&inst).best.value,
        4
    );
    optimum_everywhere(&inst, 5);
}

/// The task book's warning: node 1 holds all 1024 of the only memory type and
/// has two successors of 512 each on the single core. They cannot start at
/// the same instant, so whichever starts first finds node 1 still holding
/// 1024: 1536 > 1024. The only tiling is usable but has no legal schedule.
const DEADLOCK: &str = include_str!("data/cases/memory-deadlock.txt");

#[test]
fn memory_deadlock_is_infeasible() {
    let inst = parse(DEADLOCK);
    for f in FORMS {
        for r in [
            solve(&inst, &opts(10), &model(f)),
            solve_cold(&inst, &opts(10), &model(f)),
        ] {
            assert_eq!(r.status, Status::Infeasible, "{f:?}: {:?}", r.notes);
            assert!(r.schedule.is_none());
        }
    }
    // With a second tiling that serialises (a chain), the instance is feasible
    // and the engine must pick it: 5 + 5 + 5 = 15.
    let two = "SetSocInfo([[0,1]],[[0,1024]])
AddOpInfo(1,1,0,[[1,2],[1,3]],[[1,0,5],[2,0,5],[3,0,5]],[[1,0,1024],[2,0,512],[3,0,512]])
AddOpInfo(1,1,1,[[1,2],[2,3]],[[1,0,5],[2,0,5],[3,0,5]],[[1,0,1024],[2,0,512],[3,0,512]])
GetInferenceScheResult([],[[1,1,1]])";
    let inst = parse(two);
    let r = optimum_everywhere(&inst, 15);
    assert_eq!(
        inst.library.tilings[r.schedule.unwrap().choice[0] as usize].id,
        1
    );
}

/// Two tilings for op 1: tiling 0 is one node of 4 units on core type 0 (the
/// shorter critical path), tiling 1 one node of 5 units on core type 1. Op 2
/// is one node of 4 units on type 0. Each type has one core. With tiling 0 both
/// ops share the type-0 core: 8. With tiling 1 they run side by side: 5.
/// Optimum 5, with the longer tiling.
const TILING: &str = "SetSocInfo([[0,1],[1,1]],[[0,100]])
AddOpInfo(1,1,0,[],[[1,0,4]],[[1,0,10]])
AddOpInfo(1,1,1,[],[[1,1,5]],[[1,0,10]])
AddOpInfo(2,1,0,[],[[1,0,4]],[[1,0,10]])
GetInferenceScheResult([],[[1,1,1],[2,2,1]])";

#[test]
fn best_tiling_is_not_the_shortest() {
    let inst = parse(TILING);
    let r = optimum_everywhere(&inst, 5);
    let s = r.schedule.unwrap();
    assert_eq!(inst.library.tilings[s.choice[0] as usize].id, 1);
}

/// Both formulations, cold, agree with each other and with the warm engine
/// on small generated instances (tight and loose memory, several tilings).
#[test]
fn formulations_agree_on_generated_instances() {
    let mut proved = 0;
    for seed in 1..=8u64 {
        let cfg = GenConfig {
            seed,
            ops: 3,
            tilings: 2,
            nodes_min: 2,
            nodes_max: 5,
            tightness: if seed % 2 == 0 { 0.9 } else { 0.3 },
            ..Default::default()
        };
        let inst = generate(&cfg).unwrap().instance;
        let runs = [
            solve(&inst, &opts(20), &MilpOptions::default()),
            solve_cold(&inst, &opts(20), &model(Formulation::TimeIndexed)),
            solve_cold(&inst, &opts(20), &model(Formulation::Disjunctive)),
        ];
        for r in &runs {
            sane(&inst, r);
        }
        // Any bound is below any schedule found.
        let best = runs.iter().filter_map(|r| r.makespan).min().unwrap();
        for r in &runs {
            assert!(
                u128::from(r.lower_bound) <= best,
                "seed {seed}: {:?}",
                r.notes
            );
        }
        let optimal: Vec<u128> = runs
            .iter()
            .filter(|r| r.status == Status::Optimal)
            .map(|r| r.makespan.unwrap())
            .collect();
        if optimal.len() == runs.len() {
            proved += 1;
        }
        assert!(
            optimal.iter().all(|&m| m == best),
            "seed {seed}: {optimal:?}"
        );
    }
    assert!(proved >= 6, "only {proved} of 8 proved by all three");
}

/// Edge cases: an op with an empty tiling (its op edge constrains nothing),
/// zero-duration nodes (they occupy no core; a zero-length hold holds
/// nothing); and durations near 10^18 (the time unit is their gcd, 10^18):
/// node 1 (60) holds until node 2 (60) starts, op 2's node (50) cannot
/// overlap either hold (size 100), so everything runs in sequence:
/// 1 + 3 + 2 = 6 x 10^18.
#[test]
fn zero_durations_empty_tilings_and_huge_times() {
    let zero = "SetSocInfo([[0,1]],[[0,100]])
AddOpInfo(1,1,0,[],[],[])
AddOpInfo(2,1,0,[[1,2]],[[1,0,0],[2,0,0]],[[1,0,60],[2,0,60]])
AddOpInfo(3,1,0,[],[[1,0,0]],[[1,0,50]])
GetInferenceScheResult([[1,2],[2,3]],[[1,1,1],[2,2,1],[3,3,1]])";
    optimum_everywhere(&parse(zero), 0);
    let huge = "SetSocInfo([[0,2]],[[0,100]])
AddOpInfo(1,1,0,[[1,2]],[[1,0,1000000000000000000],[2,0,3000000000000000000]],[[1,0,60],[2,0,60]])
AddOpInfo(2,1,0,[],[[1,0,2000000000000000000]],[[1,0,50]])
GetInferenceScheResult([],[[1,1,1],[2,2,1]])";
    optimum_everywhere(&parse(huge), 6_000_000_000_000_000_000);
}

/// Through the engine interface, as the portfolio calls it: from a shared
/// incumbent (list scheduling's), or from none.
#[test]
fn search_from_a_shared_incumbent() {
    use tmin::engine::{Engine, with_plain_context};
    use tmin::list::engine::ListEngine;
    use tmin::milp::engine::MilpEngine;
    use tmin::stop::Deadline;
    for (text, expected) in [(JOINT, Some(6)), (HOLD, Some(4)), (DEADLOCK, None)] {
        let inst = parse(text);
        let o = opts(20);
        let far = Deadline::after(Duration::from_secs(20));
        with_plain_context(&inst, &o, far, |ctx| {
            let near = ctx.with_deadline(Deadline::after(Duration::from_millis(20)));
            let none = || SolveResult::without_schedule(Status::Unknown, 0, "none", "test");
            let given = [ListEngine::default().search(&near, none()), none()];
            for inc in given {
                let r = MilpEngine::default().search(ctx, inc);
                sane(&inst, &r);
                match expected {
                    Some(m) => assert_eq!((r.status, r.makespan), (Status::Optimal, Some(m))),
                    None => assert_eq!(r.status, Status::Infeasible, "{:?}", r.notes),
                }
            }
        });
    }
}

#[test]
fn export_writes_lp_and_mps() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("milp_export");
    let _ = std::fs::remove_dir_all(&dir);
    let inst = parse(HOLD);
    for f in [Formulation::TimeIndexed, Formulation::Disjunctive] {
        let mo = MilpOptions {
            formulation: f,
            export_dir: Some(dir.clone()),
        };
        let r = solve_cold(&inst, &opts(10), &mo);
        assert_eq!(r.status, Status::Optimal);
    }
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "test-c1-disjunctive.lp",
            "test-c1-disjunctive.mps",
            "test-c1-time-indexed.lp",
            "test-c1-time-indexed.mps"
        ]
    );
    let lp = std::fs::read_to_string(dir.join("test-c1-disjunctive.lp")).unwrap();
    assert!(lp.contains("S_1_1") && lp.contains("C"), "named columns");
    // Rows name their points: node 1 of op 1 holds memory 0 until node 2
    // of op 1 starts (`Net::label` written only where names are kept).
    assert!(lp.contains("holdmem0_1_1_1_2:"), "named rows");
    assert!(lp.contains("fzmem0_2_1_1_2:"), "a pair's row");
}
