//! The tabu search on core orders (src/local.rs): every schedule it returns
//! passes the validator and is strictly better than the one it started from,
//! never below a known optimum; it repairs the list scheduler's orders where
//! many jobs share a machine (ft20: 20 jobs on 5 machines), and on instances
//! where memory binds it keeps only legal schedules.

use crate::common;
use common::{legal_makespan, list_schedule, memory_tight};
use std::time::{Duration, Instant};

use tmin::instance::{Instance, parse_reader};
use tmin::local::Effort;

fn jsp(name: &str) -> Instance {
    let path = format!("{}/tests/data/jsplib/{name}", env!("CARGO_MANIFEST_DIR"));
    let js = tmin::import::read_jsp(std::fs::File::open(&path).unwrap(), &path).unwrap();
    parse_reader(js.to_instance_text().as_bytes(), name).unwrap()
}

#[test]
fn repairs_the_orders_of_rectangular_job_shops() {
    for (name, opt) in [
        ("ft20", 1165u128),
        ("la06", 926),
        ("orb01", 1059),
        ("ft06", 55),
    ] {
        let inst = jsp(name);
        let s = list_schedule(&inst, 30);
        let before = legal_makespan(&inst, &s);
        let until = Instant::now() + Duration::from_secs(3);
        match tmin::local::improve(&inst, &s, 0, until, 1, Effort::LONG) {
            Some(better) => {
                let after = legal_makespan(&inst, &better);
                assert!(
                    after < before && after >= opt,
                    "{name}: {before} -> {after}"
                );
                assert_eq!(better.choice, s.choice, "{name}: tilings are kept");
            }
            // Only where the list schedule is already optimal.
            None => assert_eq!(before, opt, "{name}: no improvement on {before}"),
        }
    }
    // ft20's list schedule is far from the optimum (1269 against 1165 here):
    // the search must close most of that.
    let inst = jsp("ft20");
    let s = list_schedule(&inst, 30);
    let better = tmin::local::improve(
        &inst,
        &s,
        0,
        Instant::now() + Duration::from_secs(3),
        1,
        Effort::LONG,
    )
    .expect("ft20 improves");
    let (b, a) = (legal_makespan(&inst, &s), legal_makespan(&inst, &better));
    assert!(a <= 1165 + (b - 1165) / 2, "ft20: {b} -> {a}");
}

#[test]
fn keeps_only_legal_schedules_where_memory_binds() {
    let mut improved = 0;
    for seed in 1..=12u64 {
        let inst = memory_tight(seed, 12, (4, 8));
        let s = list_schedule(&inst, 30);
        let before = legal_makespan(&inst, &s);
        let until = Instant::now() + Duration::from_millis(300);
        if let Some(better) = tmin::local::improve(&inst, &s, 0, until, seed, Effort::LONG) {
            assert!(legal_makespan(&inst, &better) < before, "seed {seed}");
            improved += 1;
        }
    }
    eprintln!("{improved} of 12 memory-tight schedules improved");
}

/// The neighbourhood moves nodes to and from the ends of critical blocks
/// (N7), not only the swaps at the ends (N5): on abz6 the swaps alone stall
/// at 945 (measured with the long effort: 84,000 iterations), the
/// insertions reach the optimum 943 in about 2,000; on la17 both reach 784. The effort stops at
/// the target (the optimum here), so this runs well under its 5 s.
#[test]
fn block_insertions_reach_optima_the_swaps_miss() {
    for (name, opt) in [("abz6", 943u128), ("la17", 784)] {
        let inst = jsp(name);
        let s = list_schedule(&inst, 30);
        let until = Instant::now() + Duration::from_secs(5);
        let better = tmin::local::improve(&inst, &s, opt as u64, until, 1, Effort::LONG)
            .expect("an improvement");
        assert_eq!(legal_makespan(&inst, &better), opt, "{name}");
    }
}
