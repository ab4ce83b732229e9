//! Every exact engine on the shared case set (tests/data/cases/README.md gives
//! each expectation and why): the proven answer, a validated schedule, and a
//! list-scheduling schedule that is legal and no better than the optimum.

use std::time::Duration;

use tmin::graph::NodeGraph;
use tmin::instance::{Instance, parse_reader};
use tmin::pipeline::solve;
use tmin::registry::EngineChoice;
use tmin::schedule::check;
use tmin::solve::{SolveOptions, SolveResult, Status};

/// `Some(optimum)` or `None` for infeasible.
fn cases() -> Vec<(&'static str, Instance, Option<u128>)> {
    let parse = |name: &str, text: &str| parse_reader(text.as_bytes(), name).unwrap();
    let ft06 = {
        let js = tmin::import::read_jsp(&include_bytes!("data/jsplib/ft06")[..], "ft06").unwrap();
        parse("ft06", &js.to_instance_text())
    };
    vec![
        (
            "task book example",
            parse("example1", include_str!("../instances/example1.txt")),
            Some(38),
        ),
        ("ft06", ft06, Some(55)),
        (
            "memory deadlock",
            parse(
                "memory-deadlock",
                include_str!("data/cases/memory-deadlock.txt"),
            ),
            None,
        ),
        (
            "a deadlock only a tiling repair escapes",
            parse(
                "tiling-repair",
                include_str!("data/cases/tiling-repair.txt"),
            ),
            Some(6),
        ),
        (
            "memory deadlock with an escape tiling",
            parse(
                "memory-deadlock-escape",
                include_str!("data/cases/memory-deadlock-escape.txt"),
            ),
            Some(18),
        ),
    ]
}

fn opts() -> SolveOptions {
    SolveOptions {
        time_limit: Duration::from_secs(20),
        ..SolveOptions::default()
    }
}

fn assert_proven(engine: &str, case: &str, inst: &Instance, r: &SolveResult, want: Option<u128>) {
    match want {
        Some(opt) => {
            assert_eq!(
                r.status,
                Status::Optimal,
                "{engine} on {case}: {:?}",
                r.notes
            );
            assert_eq!(r.makespan, Some(opt), "{engine} on {case}");
            let s = r
                .schedule
                .as_ref()
                .expect("an optimal result has a schedule");
            let g = NodeGraph::new(inst, s.choice.clone()).unwrap();
            let v = check(&g, s, 10);
            assert!(v.is_empty(), "{engine} on {case}: {v:?}");
            assert_eq!(s.makespan(&g), opt);
        }
        None => {
            assert_eq!(
                r.status,
                Status::Infeasible,
                "{engine} on {case}: {:?}",
                r.notes
            );
            assert!(r.schedule.is_none());
        }
    }
}

/// Through the one engine interface and its registry (the `--engine`
/// values): a new exact engine is added to this list and nothing else.
#[test]
fn every_exact_engine_proves_every_case() {
    for (case, inst, want) in cases() {
        for choice in [
            EngineChoice::builtin("sat").unwrap(),
            EngineChoice::builtin("milp").unwrap(),
            EngineChoice::builtin("auto").unwrap(),
        ] {
            let engine = choice.engine();
            let r = solve(engine.as_ref(), &inst, &opts());
            assert_proven(choice.name(), case, &inst, &r, want);
        }
    }
}

#[test]
fn list_scheduling_is_legal_and_never_below_the_optimum() {
    for (case, inst, want) in cases() {
        let list = EngineChoice::builtin("list").unwrap().engine();
        let r = solve(
            list.as_ref(),
            &inst,
            &SolveOptions {
                time_limit: Duration::from_secs(2),
                ..SolveOptions::default()
            },
        );
        match (want, &r.schedule) {
            (Some(opt), Some(s)) => {
                let g = NodeGraph::new(&inst, s.choice.clone()).unwrap();
                assert!(check(&g, s, 10).is_empty(), "list on {case}");
                assert!(s.makespan(&g) >= opt, "list on {case} beat the optimum");
                assert!(
                    u128::from(r.lower_bound) <= opt,
                    "list on {case}: bound above the optimum"
                );
            }
            (Some(_), None) => panic!("list on {case}: no schedule: {:?}", r.notes),
            // Infeasible: no schedule can exist, and none may be claimed.
            (None, s) => assert!(s.is_none(), "list on {case} claims a schedule"),
        }
    }
}
