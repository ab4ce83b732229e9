//! The modes of the schedule generation scheme on small hand-checked and
//! generated cases: every completed pass is legal, windows hold, deadlines are
//! honoured, and guarded passes never deadlock.

use std::time::{Duration, Instant};

use tmin::generate::{GenConfig, generate};
use tmin::graph::NodeGraph;
use tmin::instance::{Instance, parse_reader};
use tmin::list::priority::{Paths, Rule, keys};
use tmin::list::sgs::{Guide, Mode, Model, Stop, run, run_keyed};
use tmin::list::tiling::OpPeaks;
use tmin::schedule::{Schedule, check};
use tmin::stop::Deadline;

fn forever() -> Deadline {
    Deadline::after(Duration::from_secs(3600))
}

fn parse(text: &str) -> Instance {
    parse_reader(text.as_bytes(), "test").expect("instance parses")
}

fn tight(seed: u64, ops: u32) -> GenConfig {
    GenConfig {
        seed,
        ops,
        tightness: 1.0,
        mem_types: 3,
        graphs: 3,
        ..GenConfig::default()
    }
}

/// Ops in flight at once in a schedule: the largest number of ops whose
/// [first start, last end) intervals overlap.
fn max_ops_in_flight(g: &NodeGraph, s: &Schedule) -> usize {
    let mut events: Vec<(u128, i32)> = Vec::new();
    for op in 0..g.n_ops() as u32 {
        let r = g.op_nodes(op);
        if r.is_empty() {
            continue;
        }
        let first = r
            .clone()
            .map(|v| u128::from(s.start[v as usize]))
            .min()
            .unwrap();
        let last = r
            .map(|v| u128::from(s.start[v as usize]) + u128::from(g.dur(v)))
            .max()
            .unwrap();
        if last > first {
            events.push((first, 1));
            events.push((last, -1));
        }
    }
    events.sort(); // ends (-1) before starts (+1) at equal times
    let (mut cur, mut best) = (0i32, 0i32);
    for (_, d) in events {
        cur += d;
        best = best.max(cur);
    }
    best as usize
}

/// Many independent one-node ops, all ready at 0 on 8 cores: a window of 1
/// runs them one op at a time, a window of 3 at most three at once.
#[test]
fn a_window_blocks_many_ready_ops() {
    let mut ops = String::new();
    for i in 1..=40 {
        if i > 1 {
            ops.push(',');
        }
        ops.push_str(&format!("[{i},1,1]"));
    }
    let inst = parse(&format!(
        "SetSocInfo([[0,8]],[[0,100]])
AddOpInfo(1,1,0,[],[[1,0,3]],[[1,0,1]])
GetInferenceScheResult([],[{ops}])"
    ));
    let g = NodeGraph::new(&inst, vec![0; 40]).unwrap();
    let md = Model::new(&g);
    let key = keys(&g, &Paths::new(&g), Rule::Lrp);
    for (k, makespan) in [(1u32, 120u128), (3, 42), (8, 15)] {
        let s = run(&md, &key, Mode::Window(k), &forever()).unwrap();
        assert!(check(&g, &s, 5).is_empty());
        assert!(max_ops_in_flight(&g, &s) <= k as usize, "window {k}");
        assert_eq!(s.makespan(&g), makespan, "window {k}");
    }
}

/// Every mode, on tight generated instances: a completed pass is legal, a
/// failed one is a deadlock (never a hang, never an illegal schedule), and
/// the guarded pass always completes.
#[test]
fn every_mode_is_legal_or_reports_a_deadlock() {
    let mut completed = 0;
    let mut deadlocked = 0;
    for seed in 1..=10 {
        let gen_ = generate(&tight(seed, 40)).unwrap();
        let inst = parse(&gen_.text);
        let g = NodeGraph::new(&inst, gen_.witness.choice.clone()).unwrap();
        let md = Model::new(&g);
        let paths = Paths::new(&g);
        let peaks = OpPeaks::new(&g);
        let list = tmin::list::sgs::activity_list(
            &g,
            &tmin::list::priority::keys_from_starts(&gen_.witness.start),
        );
        let (guide, _) = Guide::new(&md, &list, &forever()).unwrap();
        for rule in Rule::ALL {
            let k = keys(&g, &paths, rule);
            for mode in [
                Mode::Parallel,
                Mode::HandOver,
                Mode::Window(1),
                Mode::Window(4),
                Mode::Reserve(&peaks),
                Mode::Guarded(&guide),
            ] {
                match run_keyed(&md, &k, rule.is_dynamic(), mode, &forever()) {
                    Ok(s) => {
                        let v = check(&g, &s, 5);
                        assert!(v.is_empty(), "seed {seed} {}: {:?}", rule.name(), v.kept);
                        completed += 1;
                    }
                    Err(Stop::Deadlock(_)) => {
                        assert!(
                            !matches!(mode, Mode::Guarded(_)),
                            "seed {seed} {}: a guarded pass deadlocked",
                            rule.name()
                        );
                        deadlocked += 1;
                    }
                    Err(e) => panic!("seed {seed} {}: {e:?}", rule.name()),
                }
            }
        }
    }
    assert!(
        completed > 0 && deadlocked > 0,
        "{completed} / {deadlocked}"
    );
}

/// A pass given a deadline that has (almost) passed gives up promptly with
/// `Stop::Deadline` instead of finishing a large instance.
#[test]
fn a_pass_given_one_millisecond_honours_it() {
    // Memory that the witness's own order never traps (tightness 0, keys from
    // the witness's starts): the passes below complete when given time, so
    // only the deadline can stop them early, never a deadlock.
    let cfg = GenConfig {
        seed: 5,
        ops: 2000,
        nodes_min: 40,
        nodes_max: 60,
        tightness: 0.0,
        graphs: 10,
        ..GenConfig::default()
    };
    let gen_ = generate(&cfg).unwrap();
    let inst = parse(&gen_.text);
    let g = NodeGraph::new(&inst, gen_.witness.choice.clone()).unwrap();
    assert!(g.n_nodes() > 50_000);
    let md = Model::new(&g);
    let k = tmin::list::priority::keys_from_starts(&gen_.witness.start);
    let list = tmin::list::sgs::activity_list(&g, &k);
    let t = Instant::now();
    assert!(run(&md, &k, Mode::Window(8), &forever()).is_ok());
    assert!(Guide::new(&md, &list, &forever()).is_ok());
    let whole = t.elapsed();
    // The instance must be large enough for 1 ms to cut the passes short.
    assert!(whole > Duration::from_millis(5), "{whole:?}: too small");

    let d = Deadline::after(Duration::from_millis(1));
    let t = Instant::now();
    let r = run(&md, &k, Mode::Window(8), &d);
    assert!(matches!(r, Err(Stop::Deadline)), "{:?}", r.err());
    let r = Guide::new(&md, &list, &d);
    assert!(matches!(r, Err(Stop::Deadline)));
    // Both gave up within a few events of the deadline, not at the end of a
    // pass over 50 000 nodes.
    assert!(
        t.elapsed() < whole / 2 + Duration::from_millis(2),
        "{:?} of {whole:?}",
        t.elapsed()
    );
}

/// The task book's release rule through every mode: node 1 holds all 1024
/// until its successors 2 and 3 (512 each) start, which they can only do
/// together; the joint start is found in every mode.
#[test]
fn the_joint_start_is_found_in_every_mode() {
    let inst = parse(
        "SetSocInfo([[0,2]],[[0,1024]])
AddOpInfo(1,1,0,[[1,2],[1,3]],[[1,0,5],[2,0,5],[3,0,5]],[[1,0,1024],[2,0,512],[3,0,512]])
GetInferenceScheResult([],[[1,1,1]])",
    );
    let g = NodeGraph::new(&inst, vec![0]).unwrap();
    let md = Model::new(&g);
    let k = keys(&g, &Paths::new(&g), Rule::Lrp);
    let peaks = OpPeaks::new(&g);
    let (guide, serial) = Guide::new(&md, &[0, 1, 2], &forever()).unwrap();
    assert_eq!(
        serial.start,
        vec![0, 5, 5],
        "the serial pass starts 2 and 3 jointly"
    );
    for mode in [
        Mode::Parallel,
        Mode::HandOver,
        Mode::Window(1),
        Mode::Reserve(&peaks),
        Mode::Guarded(&guide),
    ] {
        let s = run_keyed(&md, &k, true, mode, &forever()).unwrap();
        assert_eq!(s.start, vec![0, 5, 5]);
        assert!(check(&g, &s, 5).is_empty());
    }
}

/// The memory-reserving mode lifts its reservation where it alone would
/// deadlock the pass. Memory 10; op 1's node `h` (6) holds until op 2's
/// node `b` (6) starts, which releases it; op 3's node `a` (6) has no
/// predecessor. With `h` first, `a` waits for op 1 to end and is then
/// admitted (nothing else is in flight) but cannot start beside `h`'s
/// hold; `b`, which would release it, is refused admission because `a`'s
/// reservation leaves no room for it. Nothing runs, and a reservation
/// kept here deadlocks the pass. Lifted at that instant, `b` starts at 1
/// (6 in use: its 6 for `h`'s) and `a` at 2.
#[test]
fn a_reservation_gives_way_where_it_alone_would_deadlock() {
    let inst = parse(
        "SetSocInfo([[0,4]],[[0,10]])
AddOpInfo(1,1,0,[],[[1,0,1]],[[1,0,6]])
AddOpInfo(2,1,0,[],[[1,0,1]],[[1,0,6]])
AddOpInfo(3,1,0,[],[[1,0,1]],[[1,0,6]])
GetInferenceScheResult([[1,2]],[[1,1,1],[2,2,1],[3,3,1]])",
    );
    let g = NodeGraph::new(&inst, vec![0, 1, 2]).unwrap();
    let md = Model::new(&g);
    let peaks = OpPeaks::new(&g);
    let key = [3, 2, 1];
    let s = run(&md, &key, Mode::Reserve(&peaks), &forever()).expect("no deadlock");
    assert_eq!(s.start, vec![0, 1, 2]);
    assert!(check(&g, &s, 5).is_empty());
}

/// The hand-over reserve (models/list.md, "Hand-over reserve"). Four narrow
/// ops (8 of 32 units each) are ready at 0, each the one predecessor of a
/// wide op (24): the hand-over from a narrow op to its wide successor takes
/// 16 more. A parallel pass that starts all four fills memory with holds
/// none of whose hand-overs fits: a deadlock at 5. With the reserve, a
/// narrow op opens only where 16 stay free beside it: two at 0, and every
/// hand-over fits.
#[test]
fn the_hand_over_reserve_keeps_room_for_a_wide_successor() {
    let inst = parse(
        "SetSocInfo([[0,4]],[[0,32]])
AddOpInfo(1,1,0,[],[[1,0,5]],[[1,0,8]])
AddOpInfo(2,1,0,[],[[1,0,5]],[[1,0,24]])
GetInferenceScheResult([[1,5],[2,6],[3,7],[4,8]],[[1,1,1],[2,1,1],[3,1,1],[4,1,1],[5,2,1],[6,2,1],[7,2,1],[8,2,1]])",
    );
    let g = NodeGraph::new(&inst, vec![0, 0, 0, 0, 1, 1, 1, 1]).unwrap();
    let md = Model::new(&g);
    let key = [8, 7, 6, 5, 4, 3, 2, 1];
    // Greedy, all four narrow ops open at once and no hand-over fits.
    match run(&md, &key, Mode::Parallel, &forever()) {
        Err(Stop::Deadlock(d)) => assert_eq!(d.started, 4, "{d:?}"),
        r => panic!("the parallel pass should deadlock: {r:?}"),
    }
    let s = run(&md, &key, Mode::HandOver, &forever()).expect("no deadlock");
    assert!(check(&g, &s, 5).is_empty());
    let narrow_at_0 = (0..4).filter(|&v| s.start[v] == 0).count();
    assert_eq!(narrow_at_0, 2, "starts {:?}", s.start);
}

/// A node graph is built only from tilings of each op's own group: a tiling
/// of another op type, or an index past the library, is an error, not a
/// graph of other nodes.
#[test]
fn a_tiling_of_another_group_builds_no_graph() {
    let inst = parse(
        "SetSocInfo([[0,4]],[[0,32]])
AddOpInfo(1,1,0,[],[[1,0,5]],[[1,0,8]])
AddOpInfo(2,1,0,[],[[1,0,5]],[[1,0,24]])
GetInferenceScheResult([[1,2]],[[1,1,1],[2,2,1]])",
    );
    assert!(NodeGraph::new(&inst, vec![0, 1]).is_ok());
    let e = NodeGraph::new(&inst, vec![1, 1])
        .err()
        .expect("op 1 has no tiling 1");
    assert!(e.contains("op 1 "), "{e}");
    assert!(NodeGraph::new(&inst, vec![0, 7]).is_err());
}
