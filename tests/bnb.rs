//! The depth-first search over start times (models/bnb.md) on cases whose
//! optimum is known: the memory-packed family by construction, the task
//! book example, and the hold rule's joint release by hand. Its prunes and
//! branching against a brute force are in tests/corners.rs.

use std::time::Duration;

use tmin::bnb::{Problem, Search, attempt};
use tmin::generate::{LanesConfig, generate_lanes};
use tmin::instance::{Instance, parse_reader};
use tmin::schedule::Schedule;
use tmin::solve::SolveResult;
use tmin::stop::Deadline;

fn parse(text: &str) -> Instance {
    parse_reader(text.as_bytes(), "case.txt").unwrap()
}

/// Restarts at `target` as the engine makes them (first run unperturbed,
/// then perturbed runs alternating the two orders, budgets doubling) until
/// a schedule or `rounds` runs; the schedule validated.
fn search(inst: &Instance, target: u64, rounds: u64) -> Option<(Schedule, u128)> {
    let p = Problem::new(inst);
    let mut s = Search::new(&p, target);
    let far = Deadline::after(Duration::from_secs(3600));
    for round in 0..rounds {
        let seed = (round > 0).then_some(round);
        let a = attempt(&mut s, &far, 1 << (12 + round.min(8)), seed, round % 2 == 1);
        if let Some(sched) = a.schedule {
            let r = SolveResult::found(inst, sched, 0, "none", "bnb")
                .unwrap_or_else(|e| panic!("illegal: {}", e.message));
            let ms = r.makespan.unwrap();
            assert!(
                ms <= u128::from(target),
                "makespan {ms} above the target {target}"
            );
            return Some((r.schedule.unwrap(), ms));
        }
        if a.exhausted {
            return None;
        }
    }
    None
}

/// Memory-packed instances (every memory type full at every instant of
/// the witness, so nothing may ever be left free at the optimum): the
/// search finds the optimum, where a memory charge counted one unit too
/// high, or a tail one unit too long, would fail every branch; and it
/// finds nothing one below.
#[test]
fn it_packs_memory_packed_instances_at_their_optimum() {
    let mut shapes = Vec::new();
    for seed in 1..=6 {
        for (mem_types, bind_cores, tilings) in [(1, false, 2), (1, true, 2), (2, false, 1)] {
            shapes.push(LanesConfig {
                seed,
                ops: 8,
                nodes_min: 2,
                nodes_max: 4,
                lanes: 3,
                mem_types,
                tilings,
                bind_cores,
                density: 0.5,
                joins: 0.3,
                ..LanesConfig::default()
            });
        }
    }
    for cfg in &shapes {
        let g = generate_lanes(cfg).unwrap();
        let found = search(&g.instance, g.optimum, 14);
        let (_, ms) = found.unwrap_or_else(|| panic!("no packing at {}: {cfg:?}", g.optimum));
        assert_eq!(ms, u128::from(g.optimum), "{cfg:?}");
        assert!(
            search(&g.instance, g.optimum - 1, 3).is_none(),
            "below the optimum: {cfg:?}"
        );
        let p = Problem::new(&g.instance);
        assert!(
            (p.memory_packing(g.optimum) - 1.0).abs() < 1e-12,
            "{cfg:?}: packed {}",
            p.memory_packing(g.optimum)
        );
    }
}

/// The task book example at its optimum, 38.
#[test]
fn it_finds_the_task_book_optimum() {
    let inst = parse(include_str!("../instances/example1.txt"));
    let (_, ms) = search(&inst, 38, 14).expect("no schedule at 38");
    assert_eq!(ms, 38);
    assert!(search(&inst, 37, 6).is_none());
}

/// A node holding all of a memory type hands it to two successors that
/// need half each: neither fits alone while the other has not started
/// (the holder waits for both), so only their joint start at the holder's
/// end reaches the optimum 20 (models/bnb.md §2.3; problem.md §4.4).
#[test]
fn successors_start_together_to_release_their_holder() {
    let text = "SetSocInfo([[0,2]],[[0,1024]])\n\
        AddOpInfo(1,1,0,[],[[1,0,10]],[[1,0,1024]])\n\
        AddOpInfo(2,1,0,[],[[1,0,10]],[[1,0,512]])\n\
        GetInferenceScheResult([[1,2],[1,3]],[[1,1,1],[2,2,1],[3,2,1]])\n";
    let inst = parse(text);
    let (s, ms) = search(&inst, 20, 2).expect("the joint start was not found");
    assert_eq!(ms, 20);
    assert_eq!(s.start, vec![0, 10, 10]);
}

/// Where memory is far from packed the measure says so (the portfolio
/// then leaves the search out): the task book example at its optimum.
#[test]
fn the_packing_measure_tells_packed_from_slack() {
    let inst = parse(include_str!("../instances/example1.txt"));
    let p = Problem::new(&inst);
    let packed = p.memory_packing(38);
    assert!(packed > 0.0 && packed < 0.9, "{packed}");
}
