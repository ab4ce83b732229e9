//! The SAT engine's large-neighbourhood searches, over one encoding with
//! assumptions (src/sat/lns.rs) and over time windows (src/sat/lns_windows.rs):
//! every schedule they return passes the validator, is strictly shorter than
//! the one they started from and never below a proven optimum (their UNSAT
//! answers concern neighbourhoods, never the instance); on memory-tight
//! instances where list scheduling stalls, they improve.

use crate::common;
use common::{legal_makespan, list_schedule, memory_tight, weak_list_schedule};
use std::time::Duration;

use tmin::instance::Instance;
use tmin::schedule::Schedule;
use tmin::solve::{SolveOptions, Status};
use tmin::stop::Deadline;

fn lns(inst: &Instance, s: &Schedule, lo: u64, secs: f64) -> Option<Schedule> {
    search(tmin::sat::lns::improve, inst, s, lo, secs)
}

fn windows(inst: &Instance, s: &Schedule, lo: u64, secs: f64) -> Option<Schedule> {
    search(tmin::sat::lns_windows::improve, inst, s, lo, secs)
}

fn search(
    improve: tmin::sat::lns::Improve,
    inst: &Instance,
    s: &Schedule,
    lo: u64,
    secs: f64,
) -> Option<Schedule> {
    let deadline = Deadline::after(Duration::from_secs_f64(secs));
    let budget = tmin::sat::budget_bytes(tmin::solve::DEFAULT_MEMORY_LIMIT_MIB);
    let none = tmin::bounds::nogoods::TilingNogoods::default();
    improve(inst, &none, s, lo, &deadline, 1, budget).0
}

/// Small memory-tight instances whose optimum the SAT engine proves: the
/// search starts from a one-pass list schedule with no bound to stop at, so
/// it tries as hard as it can to go below the optimum, and must not.
#[test]
fn never_below_a_proven_optimum_and_always_legal() {
    let (mut proven, mut improved) = (0, [0, 0]);
    for seed in 1..=24u64 {
        let inst = memory_tight(seed, 5, (2, 4));
        let exact = tmin::pipeline::solve(
            &tmin::sat::engine::SatEngine::default(),
            &inst,
            &SolveOptions {
                time_limit: Duration::from_secs(10),
                ..SolveOptions::default()
            },
        );
        if exact.status != Status::Optimal {
            continue;
        }
        proven += 1;
        let opt = exact.makespan.unwrap();
        let s = weak_list_schedule(&inst);
        let before = legal_makespan(&inst, &s);
        for (i, search) in [lns, windows].into_iter().enumerate() {
            if let Some(better) = search(&inst, &s, 0, 0.5) {
                let after = legal_makespan(&inst, &better);
                assert!(after < before, "seed {seed} ({i}): {before} -> {after}");
                assert!(
                    after >= opt,
                    "seed {seed} ({i}): {after} below the optimum {opt}"
                );
                improved[i] += 1;
            }
        }
    }
    assert!(proven >= 12, "only {proven} optima proven");
    eprintln!("{improved:?} of {proven} list schedules improved (orders, windows)");
}

/// `tmin gen --ops 12 --nodes 4-8 --tilings 3 --tightness 1 --cores 1,2,1
/// --density 0.5 --seed 4` (hard-o12-s4 of the memory-tight set): list
/// scheduling stalls at 131-132 for its whole 20 s; the search, from the
/// list engine's schedule after 2 s, reaches 116-124 (measured 2026-11-25).
/// Before the solver kept its state across a cut-short answer, half of the
/// search's time went to reloading it and the first improvement came after
/// about 2 s on an idle machine, 4-5 s with half a core (a CI run with 5 s
/// here failed once), hence 12 s; now it goes 132 -> 120 in those 12 s.
#[test]
fn improves_where_list_scheduling_stalls() {
    let inst = memory_tight(4, 12, (4, 8));
    let s = list_schedule(&inst, 2000);
    let before = legal_makespan(&inst, &s);
    let lo = tmin::bounds::combinatorial::lower_bounds(&inst).best.value;
    let better = lns(&inst, &s, lo, 12.0).expect("an improvement");
    let after = legal_makespan(&inst, &better);
    assert!(after < before, "{before} -> {after}");
    assert!(after >= u128::from(lo));
}

/// `tmin gen --ops 25 --nodes 4-8 --tilings 3 --tightness 1 --cores 1,2,1
/// --density 0.5 --seed 2` (hard-o25-s2): its whole encoding is over 1 GiB,
/// so only the time-window search applies; from the list engine's schedule
/// after 2 s (229-238) it found 233 in 3 s and 188-197 in 10-20 s
/// (measured 2026-11-25).
#[test]
fn time_windows_improve_where_the_whole_encoding_does_not_fit() {
    let inst = memory_tight(2, 25, (4, 8));
    let s = list_schedule(&inst, 2000);
    let before = legal_makespan(&inst, &s);
    let budget = tmin::sat::budget_bytes(tmin::solve::DEFAULT_MEMORY_LIMIT_MIB);
    assert!(!tmin::sat::lns::whole_fits(&inst, &s, budget));
    let lo = tmin::bounds::combinatorial::lower_bounds(&inst).best.value;
    let better = windows(&inst, &s, lo, 6.0).expect("an improvement");
    let after = legal_makespan(&inst, &better);
    assert!(after < before, "{before} -> {after}");
    assert!(after >= u128::from(lo));
}

/// Where every duration is a multiple of 5 the encoding counts time in
/// units of 5 (models/sat.md §1.3): the windows around the incumbent must
/// too. Four ops of 5 on four cores: from the optimal schedule with one op
/// delayed by 10, the time-window search finds a shorter one (with windows
/// taken in time instead of units, the delayed op's lay beyond every
/// neighbourhood's makespan and none was found).
#[test]
fn time_windows_count_in_the_time_unit() {
    let text = "SetSocInfo([[0,4]],[[0,100]])\n\
                AddOpInfo(1,1,0,[],[[1,0,5]],[[1,0,20]])\n\
                GetInferenceScheResult([],[[1,1,1],[2,1,1],[3,1,1],[4,1,1]])\n";
    let inst = tmin::instance::parse_reader(text.as_bytes(), "t").unwrap();
    let mut s = list_schedule(&inst, 100);
    assert_eq!(legal_makespan(&inst, &s), 5);
    s.start[3] += 10;
    assert_eq!(legal_makespan(&inst, &s), 15);
    let better = windows(&inst, &s, 5, 5.0).expect("an improvement");
    let after = legal_makespan(&inst, &better);
    assert!((5..15).contains(&after), "15 -> {after}");
}
