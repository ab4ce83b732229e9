//! The SAT encoding is bounded and interruptible (issue 10, fault 5): a memory
//! budget (`--memory-limit`, `SolveOptions::memory_limit_mib`) refuses an
//! encoding estimated far over it before building, and the build counts what
//! it adds and stops at the budget; the build also stops at the deadline. Each
//! outcome is typed (`SolveResult::stepped_aside`), the incumbent is kept, and
//! the portfolio moves on to the MILP and list scheduling.

use std::time::{Duration, Instant};

use tmin::import::read_jsp;
use tmin::instance::{Instance, parse_reader};
use tmin::sat::encode::{EncodeStop, Encoder, Limits, Points};
use tmin::sat::model::{Model, candidates};
use tmin::solve::{BudgetStage, NoteKind, SolveOptions, SolveResult, Status, StepAside};
use tmin::stop::Deadline;

fn jsp(name: &str) -> Instance {
    let p = format!("{}/tests/data/jsplib/{name}", env!("CARGO_MANIFEST_DIR"));
    let js = read_jsp(std::fs::File::open(p).unwrap(), name).unwrap();
    parse_reader(js.to_instance_text().as_bytes(), name).unwrap()
}

fn model(inst: &Instance) -> Model<'_> {
    let cand: Vec<Vec<u32>> = (0..inst.graph.n_ops() as u32)
        .map(|o| candidates(inst, o))
        .collect();
    Model::new(inst, &cand)
}

/// A list-scheduling incumbent, as the engines start from.
fn incumbent(inst: &Instance) -> SolveResult {
    let opts = SolveOptions {
        time_limit: Duration::from_millis(200),
        ..SolveOptions::default()
    };
    let r = tmin::pipeline::solve(&tmin::list::engine::ListEngine::default(), inst, &opts);
    assert_eq!(r.status, Status::Feasible, "{:?}", r.notes);
    r
}

#[test]
fn the_build_stops_at_the_budget_and_at_the_deadline() {
    let inst = jsp("la16");
    let m = model(&inst);
    let tmax = 1000;
    // Unlimited: the reference size.
    let full = Encoder::new(&m, tmax);
    let bytes = full.bytes_estimate();
    assert!(bytes > 8 << 20, "{bytes}");
    drop(full);
    let limits = Limits {
        max_bytes: bytes / 2,
        ..Limits::none()
    };
    match Encoder::build_within(&m, tmax, Points::every(), limits) {
        Err(EncodeStop::OverBudget { bytes: at }) => {
            assert!(at > bytes / 2 && at < bytes, "{at} of {bytes}")
        }
        Err(e) => panic!("{e:?}"),
        Ok(_) => panic!("built over the budget"),
    }
    let limits = Limits {
        deadline: Some(Instant::now().into()),
        ..Limits::none()
    };
    assert!(matches!(
        Encoder::build_within(&m, tmax, Points::every(), limits),
        Err(EncodeStop::Deadline)
    ));
    let flag = tmin::stop::Cancel::new();
    flag.set();
    let limits = Limits {
        cancel: Some(flag),
        ..Limits::none()
    };
    assert!(matches!(
        Encoder::build_within(&m, tmax, Points::every(), limits),
        Err(EncodeStop::Deadline)
    ));
}

/// la16 below its list incumbent: estimated and counted sizes both a few tens
/// of MiB (results/sat-budget.md).
#[test]
fn over_the_budget_the_sat_engine_steps_aside_with_the_incumbent() {
    let inst = jsp("la16");
    let bounds = tmin::bounds::combinatorial::lower_bounds(&inst);
    let deadline = Deadline::after(Duration::from_secs(60));
    let inc = incumbent(&inst);
    let before = inc.makespan;

    // Estimated far over 1 MiB: refused before building.
    let r = tmin::sat::search(
        &inst,
        &deadline,
        &bounds,
        inc.clone(),
        Default::default(),
        1,
    );
    assert!(
        matches!(
            r.stepped_aside,
            Some(StepAside::OverMemoryBudget {
                budget_mib: 1,
                stage: BudgetStage::Estimate,
                ..
            })
        ),
        "{:?}",
        r.stepped_aside
    );
    assert_eq!(r.makespan, before);
    assert_eq!(r.status, Status::Feasible);
    assert_eq!(r.internal_error, None);
    assert!(
        r.has_note(|k| *k == NoteKind::SteppedAside),
        "{:?}",
        r.notes
    );
    assert!(tmin::sat::fits(&inst, inc.makespan, 1).is_err());

    // Estimated within twice the budget, counted over it: the build stops.
    let m = model(&inst);
    let tmax = (inc.makespan.unwrap() - 1) as u64;
    let full = Encoder::new(&m, tmax).bytes_estimate();
    let budget_mib = (full >> 20) * 3 / 4;
    let r = tmin::sat::search(
        &inst,
        &deadline,
        &bounds,
        inc.clone(),
        Default::default(),
        budget_mib,
    );
    assert!(
        matches!(
            r.stepped_aside,
            Some(StepAside::OverMemoryBudget {
                stage: BudgetStage::Build,
                ..
            })
        ),
        "budget {budget_mib} MiB of {} MiB: {:?}",
        full >> 20,
        r.notes
    );
    assert_eq!(r.makespan, before);

    // The deadline during the build.
    let past = Deadline::after(Duration::ZERO);
    let r = tmin::sat::search(&inst, &past, &bounds, inc, Default::default(), 512);
    assert_eq!(
        r.stepped_aside,
        Some(StepAside::DeadlineDuringEncoding),
        "{:?}",
        r.notes
    );
    assert_eq!(r.makespan, before);
}

#[test]
fn the_portfolio_moves_on_when_sat_steps_aside() {
    let inst = jsp("la16");
    let inc = incumbent(&inst);
    let m = model(&inst);
    let tmax = (inc.makespan.unwrap() - 1) as u64;
    let full = Encoder::new(&m, tmax).bytes_estimate();
    // Over the budget once built, within twice it as estimated: auto picks
    // SAT, whose build stops; the MILP and list scheduling take the time.
    let opts = SolveOptions {
        time_limit: Duration::from_secs(3),
        memory_limit_mib: (full >> 20) * 3 / 4,
        ..SolveOptions::default()
    };
    let r = tmin::portfolio::solve(&inst, &opts, &tmin::milp::MilpOptions::default());
    assert_eq!(r.internal_error, None, "{:?}", r.notes);
    assert!(r.makespan.is_some());
    if r.status != Status::Optimal {
        assert!(
            r.has_note(|k| *k == NoteKind::SteppedAside),
            "{:?}",
            r.notes
        );
        assert!(r.engine.contains("milp"), "{}", r.engine);
    }
    // A budget the estimate is far over: auto sends it to the MILP up front.
    let opts = SolveOptions {
        time_limit: Duration::from_secs(2),
        memory_limit_mib: 1,
        ..SolveOptions::default()
    };
    let r = tmin::portfolio::solve(&inst, &opts, &tmin::milp::MilpOptions::default());
    assert_eq!(r.internal_error, None, "{:?}", r.notes);
    assert!(r.makespan.is_some());
    if r.status != Status::Optimal {
        assert!(r.engine.contains("milp"), "{}: {:?}", r.engine, r.notes);
    }
}

#[test]
fn memory_limit_on_the_command_line() {
    let inst = format!("{}/tests/data/jsplib/la16", env!("CARGO_MANIFEST_DIR"));
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sat_budget");
    std::fs::create_dir_all(&dir).unwrap();
    let txt = dir.join("la16.txt");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tmin"))
        .args(["import", "jsp", &inst, "-o", txt.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let run = |extra: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tmin"))
            .args([
                "solve",
                txt.to_str().unwrap(),
                "--engine",
                "sat",
                "--time-limit",
                "2",
            ])
            .args(extra)
            .output()
            .unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, err) = run(&["--memory-limit", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("memory budget of 1 MiB"), "{out}");
    let (code, _, err) = run(&["--memory-limit", "0"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&["--memory-limit", "lots"]);
    assert_eq!(code, 2, "{err}");
}

/// A model too large for the budget is not built at all (its size is known
/// from the candidate nodes alone, and building it cannot be interrupted);
/// `--engine sat` then gives the time left to list scheduling, so the answer
/// carries a legal schedule instead of the short incumbent step's nothing.
#[test]
fn a_model_over_the_budget_is_not_built_and_list_scheduling_gets_the_time() {
    let cfg = tmin::generate::GenConfig {
        seed: 3,
        ops: 600,
        nodes_min: 30,
        nodes_max: 70,
        tilings: 2,
        ..Default::default()
    };
    let inst = tmin::generate::generate(&cfg).unwrap().instance;
    let cand_nodes: u64 = (0..inst.graph.n_ops() as u32)
        .flat_map(|o| candidates(&inst, o))
        .map(|t| u64::from(inst.library.tilings[t as usize].n_nodes))
        .sum();
    // Over 1 MiB at tens of bytes a node; the encoding would be far larger.
    assert!(cand_nodes > 30_000, "{cand_nodes}");
    let opts = SolveOptions {
        time_limit: Duration::from_secs(3),
        memory_limit_mib: 1,
        ..SolveOptions::default()
    };
    let r = tmin::pipeline::solve(&tmin::sat::engine::SatEngine::default(), &inst, &opts);
    assert!(
        matches!(
            r.stepped_aside,
            Some(StepAside::OverMemoryBudget {
                budget_mib: 1,
                stage: BudgetStage::Model,
                ..
            })
        ),
        "{:?}",
        r.notes
    );
    assert!(
        r.has_note(|k| *k == NoteKind::ListForTheRest),
        "{:?}",
        r.notes
    );
    let s = r
        .schedule
        .as_ref()
        .expect("a schedule from list scheduling");
    let g = tmin::graph::NodeGraph::new(&inst, s.choice.clone()).unwrap();
    let v = tmin::schedule::check(&g, s, 10);
    assert!(v.is_empty(), "{v:?}");
    assert!(matches!(r.status, Status::Feasible | Status::Optimal));
    assert_eq!(r.internal_error, None);
}

/// Lazy cuts that take the encoding over the budget after the descent has
/// gone far below its first horizon: the encoding is built again for the
/// makespans still asked (their windows are much narrower) and the search
/// goes on, where it used to stop (models/sat.md §7). The incumbent is a
/// list schedule delayed by three times its makespan (delaying every node
/// alike keeps a schedule legal), so the first horizon is four times what
/// the first models need; the budget is an eighth above the first encoding
/// (one tiling per op: no tiling is pruned, so the search encodes this model).
/// The list schedule is one greedy pass (deterministic): with the list
/// engine's 200 ms search, a loaded machine once gave a schedule whose
/// first SAT model, polished, met the bound, and the search never needed
/// a second encoding. The search is certified (`--certify`): elsewhere the
/// timetable propagator (models/sat.md §3.10) leaves no model for a lazy
/// cut, and under it (as over event points) the cuts are what keeps
/// memory.
#[test]
fn lazy_cuts_over_the_budget_far_below_the_first_horizon_encode_again() {
    let cfg = tmin::generate::GenConfig {
        tilings: 1,
        ..tmin::generate::memory_tight(4, 12, (4, 8))
    };
    let inst = tmin::generate::generate(&cfg).unwrap().instance;
    let bounds = tmin::bounds::combinatorial::lower_bounds(&inst);
    let mut inc = tmin::list::greedy(
        &inst,
        &Deadline::after(Duration::from_secs(5)),
        &bounds,
        tmin::list::priority::Rule::Release,
    );
    let mut late = inc.schedule.take().unwrap();
    let g = tmin::graph::NodeGraph::new(&inst, late.choice.clone()).unwrap();
    let ms = late.makespan(&g) as u64;
    for s in &mut late.start {
        *s += 3 * ms;
    }
    let inc = SolveResult::found(&inst, late, 0, "none", "test").unwrap();
    assert_eq!(inc.makespan, Some(u128::from(4 * ms)));
    let m = model(&inst);
    let first = Encoder::new(&m, 4 * ms - 1).bytes_estimate();
    let budget_mib = (first + first / 8).div_ceil(1 << 20);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("budget-encode-again");
    let _ = std::fs::remove_dir_all(&dir);
    let certifier = tmin::certificate::Certifier::new(&dir, "again").unwrap();
    let r = tmin::sat::search_certified(
        &inst,
        &Deadline::after(Duration::from_secs(8)),
        &bounds,
        inc,
        Default::default(),
        budget_mib,
        tmin::sat::Outputs {
            certify: Some(&certifier),
            events: &Default::default(),
        },
    );
    assert_eq!(r.internal_error, None, "{:?}", r.notes);
    assert_eq!(
        r.stepped_aside, None,
        "budget {budget_mib} MiB: {:?}",
        r.notes
    );
    let best = r.makespan.unwrap();
    assert!(
        best < u128::from(ms) + u128::from(ms) / 2,
        "{best} (list {ms})"
    );
    assert!(
        r.notes.iter().any(|n| n.text.contains("encoded again")),
        "{:?}",
        r.notes
    );
}
