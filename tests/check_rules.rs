//! The schedule validator, rule by rule (problem.md §4), through the library API
//! and, where exit codes and printed verdicts matter, through the `tmin` binary.
//!
//! Every expected verdict below is derived by hand in a comment next to the test;
//! none is computed by the code under test.

use crate::common;

use std::path::PathBuf;

use tmin::graph::NodeGraph;
use tmin::instance::{Instance, parse_reader};
use tmin::schedule::{Report, Rule, Schedule, check, check_reader};

const EX1: &str = include_str!("../instances/example1.txt");
const EX1_SCHED: &str = include_str!("../instances/example1.schedule.txt");

// ---------------------------------------------------------------- helpers

fn inst(text: &str) -> Instance {
    parse_reader(text.as_bytes(), "inline.txt").unwrap_or_else(|e| panic!("{e}"))
}

fn verdict(inst: &Instance, sched: &str) -> Report {
    check_reader(inst, sched.as_bytes(), "inline.schedule", 100).unwrap_or_else(|e| panic!("{e}"))
}

/// Asserts that `rep` breaks exactly `want` (rule, count) pairs and nothing else.
#[track_caller]
fn assert_counts(rep: &Report, want: &[(Rule, usize)]) {
    for r in Rule::ALL {
        let n = want.iter().find(|w| w.0 == r).map_or(0, |w| w.1);
        assert_eq!(
            rep.violations.count(r),
            n,
            "count of rule {r}; violations: {:#?}",
            rep.violations.kept
        );
    }
    let total: usize = want.iter().map(|w| w.1).sum();
    assert_eq!(rep.violations.total(), total);
    assert_eq!(rep.is_legal(), total == 0);
}

#[track_caller]
fn assert_legal(rep: &Report, makespan: u128) {
    assert_counts(rep, &[]);
    assert_eq!(rep.makespan, Some(makespan));
}

/// The rows of a schedule text, as `[OpId, Tiling, NodeId, Start, CoreId]`.
/// A deliberately naive reader, independent of the crate's own.
fn rows(text: &str) -> Vec<[u64; 5]> {
    let digits: String = text
        .chars()
        .map(|c| if c.is_ascii_digit() { c } else { ' ' })
        .collect();
    let nums: Vec<u64> = digits
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect();
    assert_eq!(nums.len() % 5, 0);
    nums.chunks(5)
        .map(|c| [c[0], c[1], c[2], c[3], c[4]])
        .collect()
}

fn fmt(rows: &[[u64; 5]]) -> String {
    let parts: Vec<String> = rows
        .iter()
        .map(|r| format!("[{},{},{},{},{}]", r[0], r[1], r[2], r[3], r[4]))
        .collect();
    format!("[{}]", parts.join(","))
}

const START: usize = 3;
const CORE: usize = 4;

/// Example 1's schedule with field `field` of row (op, node) set to `value`.
fn ex1_with(changes: &[(u64, u64, usize, u64)]) -> String {
    let mut r = rows(EX1_SCHED);
    for &(op, node, field, value) in changes {
        let row = r
            .iter_mut()
            .find(|x| x[0] == op && x[2] == node)
            .expect("row exists");
        row[field] = value;
    }
    fmt(&r)
}

use common::{Rng, Tiny, tmin};

fn tmp(name: &str, contents: &[u8]) -> PathBuf {
    common::tmp_in("check_rules", name, contents)
}

fn repo(p: &str) -> String {
    format!("{}/{p}", env!("CARGO_MANIFEST_DIR"))
}

// ---------------------------------------------------------------- the bundled examples

#[test]
fn example1_is_legal_at_38_cli() {
    let (code, out, err) = tmin(&[
        "check",
        &repo("instances/example1.txt"),
        &repo("instances/example1.schedule.txt"),
    ]);
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    assert!(out.starts_with("legal: makespan 38"), "{out}");

    let (code, out, _) = tmin(&[
        "check",
        "--json",
        &repo("instances/example1.txt"),
        &repo("instances/example1.schedule.txt"),
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(v["legal"], true);
    assert_eq!(v["makespan"], 38);
    assert_eq!(v["violation_count"], 0);
    assert_eq!(v["rows"], 12);
    assert_eq!(v["violations"].as_array().unwrap().len(), 0);
}

#[test]
fn check_bound_tells_the_order_from_the_tilings() {
    // One op, two tilings of one node each: 10 and 30 time units. The
    // instance's bound is 10 (the fast tiling's critical path); with the
    // slow tiling no schedule ends before 30. Its schedule at 0 ends at 30:
    // optimal for its tilings, 20 above the instance's bound. Started at
    // 5 it ends at 35: 5 of the 35 are its order's.
    let text = "SetSocInfo([[0,1]],[[0,100]])\n\
                AddOpInfo(1,1,0,[],[[1,0,10]],[[1,0,50]])\n\
                AddOpInfo(1,1,1,[],[[1,0,30]],[[1,0,5]])\n\
                GetInferenceScheResult([],[[1,1,1]])\n";
    let i = tmp("two-tilings.txt", text.as_bytes());
    let i = i.to_str().unwrap();
    let s = tmp("slow.schedule", b"[[1,1,1,0,0]]");
    let (code, out, err) = tmin(&["check", "--bound", i, s.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // (Several bounds tie at each value; which source is named is not the point.)
    assert!(out.contains("\nlower bound 10 ("), "{out}");
    assert!(
        out.contains("with these tilings: lower bound 30 (")
            && out.contains("the schedule is optimal for its tilings"),
        "{out}"
    );
    let s = tmp("slow-late.schedule", b"[[1,1,1,5,0]]");
    let (code, out, _) = tmin(&["check", "--bound", "--json", i, s.to_str().unwrap()]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        (
            v["makespan"].as_u64(),
            v["lower_bound"].as_u64(),
            v["tilings_lower_bound"].as_u64()
        ),
        (Some(35), Some(10), Some(30))
    );
    assert!(
        v["tilings_bound_source"]
            .as_str()
            .is_some_and(|x| !x.is_empty())
    );
    let gap = v["tilings_gap"].as_f64().unwrap();
    assert!((gap - 5.0 / 35.0).abs() < 1e-9, "{gap}");
    // The fast tiling: both bounds are 10.
    let s = tmp("fast.schedule", b"[[1,0,1,0,0]]");
    let (_, out, _) = tmin(&["check", "--bound", "--json", i, s.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["tilings_lower_bound"].as_u64(), Some(10));
}

#[test]
fn check_bound_shows_the_distance_to_the_lower_bound() {
    // The example's critical-path bound is 38: its 38 schedule is proven optimal.
    let (code, out, err) = tmin(&[
        "check",
        "--bound",
        &repo("instances/example1.txt"),
        &repo("instances/example1.schedule.txt"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("lower bound 38") && out.contains("proven optimal"),
        "{out}"
    );
    // A legal but slow schedule: every start of the 38 schedule delayed by 100.
    let late: String = {
        let i = inst(EX1);
        let read = tmin::schedule::read_schedule(&i, EX1_SCHED.as_bytes(), "s", 5).unwrap();
        let mut s = read.schedule.unwrap();
        s.start.iter_mut().for_each(|t| *t += 100);
        let g = NodeGraph::new(&i, s.choice.clone()).unwrap();
        let mut buf = Vec::new();
        tmin::schedule::write_schedule(&g, &s, &mut buf).unwrap();
        String::from_utf8(buf).unwrap()
    };
    let f = tmp("late.schedule", late.as_bytes());
    let f = f.to_str().unwrap();
    let (code, out, _) = tmin(&[
        "check",
        "--bound",
        "--json",
        &repo("instances/example1.txt"),
        f,
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        (v["makespan"].as_u64(), v["lower_bound"].as_u64()),
        (Some(138), Some(38))
    );
    assert_eq!(v["meets_bound"], false);
    let gap = v["gap"].as_f64().unwrap();
    assert!((gap - 100.0 / 138.0).abs() < 1e-9, "{gap}");
    // Without --bound the fields are absent (the bound costs a pass over the graph).
    let (_, out, _) = tmin(&["check", "--json", &repo("instances/example1.txt"), f]);
    assert!(!out.contains("lower_bound"), "{out}");
}

#[test]
fn example1_is_legal_at_38_library() {
    // problem.md §8: tiling 1 of op 1 (diamond), op 3 node 3 ends at 35 + 3 = 38.
    let i = inst(EX1);
    assert_legal(&verdict(&i, EX1_SCHED), 38);
}

#[test]
fn example2_rejected_naming_op_4() {
    let (code, out, err) = tmin(&[
        "check",
        &repo("instances/example2.txt"),
        &repo("instances/example2.schedule.txt"),
    ]);
    assert_eq!(code, 1, "stdout: {out}\nstderr: {err}");
    assert!(out.starts_with("illegal:"), "{out}");
    assert!(out.contains("op 4"), "{out}");

    let i = inst(include_str!("../instances/example2.txt"));
    let rep = verdict(&i, include_str!("../instances/example2.schedule.txt"));
    // Only structure can be judged: the rows do not form a complete schedule.
    assert!(rep.violations.count(Rule::Structure) > 0);
    assert_eq!(
        rep.violations.total(),
        rep.violations.count(Rule::Structure)
    );
    assert_eq!(rep.makespan, None);
    // The three rows of op 4 each name an op that does not exist.
    let op4 = rep
        .violations
        .kept
        .iter()
        .filter(|v| v.rule == Rule::Structure && v.message.contains("names op 4"))
        .count();
    assert_eq!(op4, 3, "{:#?}", rep.violations.kept);
}

// ---------------------------------------------------------------- one mutation per rule

#[test]
fn precedence_intra_op() {
    // Op 1 node 2 (tiling 1) starts at 4 instead of 5; its only predecessor, node 1,
    // runs [0,5). It then runs [4,9) on core 0 of type 1, where nothing else runs
    // before 19, and still ends before its successor node 3 starts at 10.
    let i = inst(EX1);
    let rep = verdict(&i, &ex1_with(&[(1, 2, START, 4)]));
    assert_counts(&rep, &[(Rule::Precedence, 1)]);
    let v = &rep.violations.kept[0];
    assert!(v.message.contains("intra-op"), "{}", v.message);
    assert_eq!(v.nodes, vec![(1, 1), (1, 2)]);
    assert_eq!(v.time, Some(4));
}

#[test]
fn precedence_inter_op() {
    // Op 2 node 1 (its only source) starts at 14; op 1's only sink, node 3, ends
    // at 15. Node 1 runs [14,18) on type 0 core 0 (free then) and ends before its
    // successors start at 19.
    let i = inst(EX1);
    let rep = verdict(&i, &ex1_with(&[(2, 1, START, 14)]));
    assert_counts(&rep, &[(Rule::Precedence, 1)]);
    let v = &rep.violations.kept[0];
    assert!(v.message.contains("inter-op"), "{}", v.message);
    assert_eq!(v.nodes, vec![(1, 3), (2, 1)]);
}

#[test]
fn core_touching_intervals_are_legal() {
    // Op 1 node 4 (type 2, [5,10)) moved from core 1 to core 0 of type 2, where
    // op 1 node 3 runs [10,15): half-open intervals that touch do not overlap.
    let i = inst(EX1);
    assert_legal(&verdict(&i, &ex1_with(&[(1, 4, CORE, 0)])), 38);
}

#[test]
fn core_overlap_in_example1() {
    // Op 1 node 4 moved to core 0 of type 2 and to start 6: [6,11) overlaps node 3
    // [10,15) on that core, and node 4 -> node 3 is an edge, so precedence breaks
    // too (11 > 10). Node 1 -> node 4 still holds (5 <= 6).
    let i = inst(EX1);
    let rep = verdict(&i, &ex1_with(&[(1, 4, CORE, 0), (1, 4, START, 6)]));
    assert_counts(&rep, &[(Rule::Precedence, 1), (Rule::Core, 1)]);
    let v = rep
        .violations
        .kept
        .iter()
        .find(|v| v.rule == Rule::Core)
        .unwrap();
    assert_eq!(v.time, Some(10));
    let mut nodes = v.nodes.clone();
    nodes.sort();
    assert_eq!(nodes, vec![(1, 3), (1, 4)]);
}

/// One core type (id 3) with 2 cores; one op of four independent nodes: 1 and 2 of
/// length 5, 3 and 4 of length 0. No memory.
const CORES: &str = "SetSocInfo([[3,2]],[])
AddOpInfo(1,1,0,[],[[1,3,5],[2,3,5],[3,3,0],[4,3,0]],[])
GetInferenceScheResult([],[[1,1,1]])";

#[test]
fn core_rules_small() {
    let i = inst(CORES);
    let s = |a: [u64; 2], b: [u64; 2], c: [u64; 2], d: [u64; 2]| {
        format!(
            "[[1,0,1,{},{}],[1,0,2,{},{}],[1,0,3,{},{}],[1,0,4,{},{}]]",
            a[0], a[1], b[0], b[1], c[0], c[1], d[0], d[1]
        )
    };
    // [0,5) and [3,8) on core 0: one overlap.
    let rep = verdict(&i, &s([0, 0], [3, 0], [20, 0], [20, 1]));
    assert_counts(&rep, &[(Rule::Core, 1)]);
    assert_eq!(rep.violations.kept[0].time, Some(3));
    // [0,5) and [5,10) on core 0: touching, legal.
    assert_legal(&verdict(&i, &s([0, 0], [5, 0], [2, 1], [9, 1])), 10);
    // Zero-length nodes at instants inside [0,5) on the same core, and both at
    // the same instant as each other: they occupy nothing.
    assert_legal(&verdict(&i, &s([0, 0], [5, 0], [2, 0], [2, 0])), 10);
    // ... and at the very start instant of node 1, and at its end.
    assert_legal(&verdict(&i, &s([0, 0], [5, 0], [0, 0], [5, 0])), 10);
    // The same two long nodes on different cores: legal.
    assert_legal(&verdict(&i, &s([0, 0], [0, 1], [0, 0], [0, 1])), 5);
    // Core 2 does not exist (type 3 has cores 0 and 1): one core-id violation.
    let rep = verdict(&i, &s([0, 0], [5, 2], [0, 0], [0, 0]));
    assert_counts(&rep, &[(Rule::CoreId, 1)]);
    assert!(rep.violations.kept[0].message.contains("core type 3"));
    assert_eq!(rep.violations.kept[0].nodes, vec![(1, 2)]);
    // Even a zero-length node must name an existing core.
    let rep = verdict(&i, &s([0, 0], [5, 0], [0, 7], [0, 0]));
    assert_counts(&rep, &[(Rule::CoreId, 1)]);
}

#[test]
fn core_id_out_of_range_in_example1() {
    // Op 1 node 1 runs on type 0, which has 2 cores (0 and 1): core 2 is out of range.
    let i = inst(EX1);
    let rep = verdict(&i, &ex1_with(&[(1, 1, CORE, 2)]));
    assert_counts(&rep, &[(Rule::CoreId, 1)]);
    assert_eq!(rep.violations.kept[0].nodes, vec![(1, 1)]);
    // The largest core id the format allows is out of range too, not a crash.
    let rep = verdict(&i, &ex1_with(&[(1, 1, CORE, u64::from(u32::MAX))]));
    assert_counts(&rep, &[(Rule::CoreId, 1)]);
}

#[test]
fn memory_over_capacity_in_example1() {
    // Example 1 with memory type 0 shrunk from 10240 to 1024 (every demand there is
    // 1024, so all tilings stay usable). Type-0 holds under the legal schedule:
    //   op1: n1 [0,5) (succ n2 uses type 0, starts 5), n2 [5,10) (succ n3, 10),
    //        n3 [10,15) (sink; op 2's source n1 uses type 0, starts 15)
    //   op2: n1 [15,19) (succs n2, n4 use type 0, start 19),
    //        n2 [19,25) (succ n3 uses only type 1), n4 [19,25) (succ n5 type 1 only)
    //   op3: n1 [29,33) (succ n2 uses type 0, starts 33), n2 [33,35), n3 [35,38)
    // Only at 19..25 do two holds overlap: 2048 > 1024, one violation at 19.
    let small = EX1.replace("[[0,10240],", "[[0,1024],");
    assert_ne!(small, EX1);
    let i = inst(&small);
    assert!(i.warnings.is_empty(), "{:?}", i.warnings);
    let rep = verdict(&i, EX1_SCHED);
    assert_counts(&rep, &[(Rule::Memory, 1)]);
    let v = &rep.violations.kept[0];
    assert_eq!(v.time, Some(19));
    assert_eq!(v.amount, Some((2048, 1024)));
    let mut nodes = v.nodes.clone();
    nodes.sort();
    assert_eq!(nodes, vec![(2, 2), (2, 4)]);
    assert!(v.message.contains("memory type 0"), "{}", v.message);

    // At exactly 2048 the same schedule is legal: the limit is inclusive.
    let fits = EX1.replace("[[0,10240],", "[[0,2048],");
    assert_legal(&verdict(&inst(&fits), EX1_SCHED), 38);
}

// ---------------------------------------------------------------- structure

#[test]
fn structure_unknown_op() {
    let i = inst(EX1);
    let mut r = rows(EX1_SCHED);
    r.push([9, 0, 1, 0, 0]);
    let rep = verdict(&i, &fmt(&r));
    assert_counts(&rep, &[(Rule::Structure, 1)]);
    assert!(rep.violations.kept[0].message.contains("op 9"));
    assert_eq!(rep.makespan, None);
}

#[test]
fn structure_unknown_tiling() {
    // The first row of op 3 names tiling 7: that row is rejected, so op 3 takes
    // tiling 0 from its next rows and its node 1 then has no row: 2 violations.
    let i = inst(EX1);
    let rep = verdict(&i, &ex1_with(&[(3, 1, 1, 7)]));
    assert_counts(&rep, &[(Rule::Structure, 2)]);
    let msgs: Vec<&str> = rep
        .violations
        .kept
        .iter()
        .map(|v| v.message.as_str())
        .collect();
    assert!(msgs.iter().any(|m| m.contains("no tiling 7")), "{msgs:?}");
    assert!(
        msgs.iter()
            .any(|m| m.contains("op 3 node 1") && m.contains("no row")),
        "{msgs:?}"
    );
}

#[test]
fn structure_unknown_node() {
    let i = inst(EX1);
    let mut r = rows(EX1_SCHED);
    r.push([3, 0, 9, 40, 0]);
    let rep = verdict(&i, &fmt(&r));
    assert_counts(&rep, &[(Rule::Structure, 1)]);
    assert!(rep.violations.kept[0].message.contains("no node 9"));
    assert_eq!(rep.violations.kept[0].nodes, vec![(3, 9)]);
}

#[test]
fn structure_duplicate_row() {
    // The same node twice, even at the same time and core, is one violation.
    let i = inst(EX1);
    let mut r = rows(EX1_SCHED);
    r.push([2, 0, 3, 25, 0]);
    let rep = verdict(&i, &fmt(&r));
    assert_counts(&rep, &[(Rule::Structure, 1)]);
    assert!(rep.violations.kept[0].message.contains("more than one row"));
    assert_eq!(rep.violations.kept[0].nodes, vec![(2, 3)]);
}

#[test]
fn structure_missing_row_and_missing_op() {
    let i = inst(EX1);
    let r: Vec<[u64; 5]> = rows(EX1_SCHED)
        .into_iter()
        .filter(|x| !(x[0] == 2 && x[2] == 5))
        .collect();
    let rep = verdict(&i, &fmt(&r));
    assert_counts(&rep, &[(Rule::Structure, 1)]);
    assert!(rep.violations.kept[0].message.contains("op 2 node 5"));
    assert_eq!(rep.violations.kept[0].nodes, vec![(2, 5)]);

    // No rows at all for op 3 (which has no empty tiling): one violation for the op.
    let r: Vec<[u64; 5]> = rows(EX1_SCHED).into_iter().filter(|x| x[0] != 3).collect();
    let rep = verdict(&i, &fmt(&r));
    assert_counts(&rep, &[(Rule::Structure, 1)]);
    assert!(rep.violations.kept[0].message.contains("op 3"));
    // The empty schedule: three ops without rows.
    let rep = verdict(&i, "[]");
    assert_counts(&rep, &[(Rule::Structure, 3)]);
}

#[test]
fn structure_two_tilings_for_one_op() {
    // Op 1 uses tiling 1, but its node-3 row says tiling 0: that row is rejected
    // (one op, one tiling) and node 3 of tiling 1 then has no row: 2 violations.
    let i = inst(EX1);
    let rep = verdict(&i, &ex1_with(&[(1, 3, 1, 0)]));
    assert_counts(&rep, &[(Rule::Structure, 2)]);
    assert!(
        rep.violations
            .kept
            .iter()
            .any(|v| v.message.contains("one op uses one tiling")),
        "{:#?}",
        rep.violations.kept
    );
}

#[test]
fn structure_unusable_tiling_used() {
    // A second tiling for op 3's (type 1, shape 256) runs its only node on core
    // type 7, which SetSocInfo lacks: unusable. A schedule that picks it anyway
    // is rejected once, for that tiling; its rows are otherwise complete.
    let text = EX1.replace(
        "GetInferenceScheResult",
        "AddOpInfo(1,256,1,[],[[1,7,4]],[])\nGetInferenceScheResult",
    );
    let i = inst(&text);
    assert_eq!(i.warnings.len(), 1, "{:?}", i.warnings);
    let mut r: Vec<[u64; 5]> = rows(EX1_SCHED).into_iter().filter(|x| x[0] != 3).collect();
    r.push([3, 1, 1, 29, 0]);
    let rep = verdict(&i, &fmt(&r));
    assert_counts(&rep, &[(Rule::Structure, 1)]);
    assert!(rep.violations.kept[0].message.contains("unusable"));
    assert_eq!(rep.makespan, None);
}

#[test]
fn empty_tiling_op_needs_no_rows() {
    // problem.md §6: an op whose tiling has no nodes adds nothing, and a schedule may
    // leave it out. Op 2 of this instance has only an empty tiling, and the op
    // edges 1 -> 2 -> 3 through it order nothing: op 3 may start before op 1 ends.
    let text = "SetSocInfo([[0,1]],[])
AddOpInfo(1,1,0,[],[[1,0,5]],[])
AddOpInfo(2,1,4,[],[],[])
GetInferenceScheResult([[1,2],[2,3]],[[1,1,1],[2,2,1],[3,1,1]])";
    let i = inst(text);
    // op 1 [0,5), op 3 [5,10) on the one core: legal at 10.
    assert_legal(&verdict(&i, "[[1,0,1,0,0],[3,0,1,5,0]]"), 10);
    // op 3 first, op 1 after it: still legal, nothing orders 1 before 3.
    assert_legal(&verdict(&i, "[[3,0,1,0,0],[1,0,1,5,0]]"), 10);
}

// ---------------------------------------------------------------- memory release (problem.md §4.4)

/// (a), (b): one core type with 3 cores, one memory type of 1024. Node 1 holds 1024
/// for 5; its successors 2 and 3 need 512 each for 5; node 4 is unrelated and needs
/// `N4` for 1.
fn release_instance(n4: u64) -> Instance {
    inst(&format!(
        "SetSocInfo([[0,3]],[[0,1024]])
AddOpInfo(1,1,0,[[1,2],[1,3]],[[1,0,5],[2,0,5],[3,0,5],[4,0,1]],[[1,0,1024],[2,0,512],[3,0,512],[4,0,{n4}]])
GetInferenceScheResult([],[[1,1,1]])"
    ))
}

/// Rows for the single op 1 (tiling 0): `(node, start, core)`.
fn op1(rows: &[(u32, u64, u32)]) -> String {
    let parts: Vec<String> = rows
        .iter()
        .map(|&(n, s, c)| format!("[1,0,{n},{s},{c}]"))
        .collect();
    format!("[{}]", parts.join(","))
}

#[test]
fn memory_a_task_book_case() {
    // Node 1 holds [0, max(5, 5, 5)) = [0,5). At 5 it counts as released, and
    // nodes 2 and 3 take 512 + 512 = 1024 <= 1024. Node 4 runs alone at 10.
    let i = release_instance(512);
    let rep = verdict(&i, &op1(&[(1, 0, 0), (2, 5, 0), (3, 5, 1), (4, 10, 2)]));
    assert_legal(&rep, 11);
}

#[test]
fn memory_b_hold_extended_to_late_successor() {
    let i = release_instance(512);
    // b1: node 3 starts at 7. Node 1 holds [0, max(5,5,7)) = [0,7), so during
    // [5,7) node 1 (1024) and node 2 (512) are held together: 1536 > 1024 from 5.
    // At 7 node 1 releases and node 3 takes 512: 1024 again. One violation at 5.
    let rep = verdict(&i, &op1(&[(1, 0, 0), (2, 5, 0), (3, 7, 1), (4, 20, 2)]));
    assert_counts(&rep, &[(Rule::Memory, 1)]);
    let v = &rep.violations.kept[0];
    assert_eq!(v.time, Some(5));
    assert_eq!(v.amount, Some((1536, 1024)));
    let mut nodes = v.nodes.clone();
    nodes.sort();
    assert_eq!(nodes, vec![(1, 1), (1, 2)]);
    assert!(
        v.message.contains("waiting for a successor"),
        "{}",
        v.message
    );

    // b2: both successors start at 8, and the unrelated node 4 runs [6,7). Node 1
    // ended at 5 but holds [0,8): at 6 it is 1024 + 512 = 1536 > 1024. (Freed at its
    // end, node 1 would leave room for node 4: this is the rule's extension.)
    let rep = verdict(&i, &op1(&[(1, 0, 0), (2, 8, 0), (3, 8, 1), (4, 6, 2)]));
    assert_counts(&rep, &[(Rule::Memory, 1)]);
    let v = &rep.violations.kept[0];
    assert_eq!(v.time, Some(6));
    assert_eq!(v.amount, Some((1536, 1024)));
    let mut nodes = v.nodes.clone();
    nodes.sort();
    assert_eq!(nodes, vec![(1, 1), (1, 4)]);

    // b3: the same with node 4 at [8,9) instead: node 1 released at 8, and then
    // 512 + 512 + 512 = 1536 > 1024 at 8 (nodes 2, 3, 4).
    let rep = verdict(&i, &op1(&[(1, 0, 0), (2, 8, 0), (3, 8, 1), (4, 8, 2)]));
    assert_counts(&rep, &[(Rule::Memory, 1)]);
    assert_eq!(rep.violations.kept[0].amount, Some((1536, 1024)));
    assert_eq!(rep.violations.kept[0].time, Some(8));
    // b4: node 4 at [13,14), after nodes 2 and 3 end at 13 (neither has a
    // successor, so they free at their ends): legal, makespan 14.
    let rep = verdict(&i, &op1(&[(1, 0, 0), (2, 8, 0), (3, 8, 1), (4, 13, 2)]));
    assert_legal(&rep, 14);
}

#[test]
fn memory_c_successor_of_another_type_does_not_extend() {
    // Node 3 now uses memory type 1 (512 of 512) instead of type 0. Node 1's type-0
    // hold is [0, max(5, start(2) = 5)) = [0,5); node 3 starting at 7 does not count
    // because it does not demand type 0. Type 0: [0,5) 1024, [5,10) 512; node 4 (512)
    // at [6,7) brings it to 1024 <= 1024. Type 1: node 3 [7,12) 512 <= 512. Legal, 12.
    let i = inst(
        "SetSocInfo([[0,3]],[[0,1024],[1,512]])
AddOpInfo(1,1,0,[[1,2],[1,3]],[[1,0,5],[2,0,5],[3,0,5],[4,0,1]],[[1,0,1024],[2,0,512],[3,1,512],[4,0,512]])
GetInferenceScheResult([],[[1,1,1]])",
    );
    let rep = verdict(&i, &op1(&[(1, 0, 0), (2, 5, 0), (3, 7, 1), (4, 6, 2)]));
    assert_legal(&rep, 12);
    // Control: node 2 late instead (it does use type 0) extends the hold to 7:
    // at 6, node 1 (1024) + node 4 (512) = 1536 > 1024.
    let rep = verdict(&i, &op1(&[(1, 0, 0), (2, 7, 0), (3, 5, 1), (4, 6, 2)]));
    assert_counts(&rep, &[(Rule::Memory, 1)]);
    assert_eq!(rep.violations.kept[0].time, Some(6));
    assert_eq!(rep.violations.kept[0].amount, Some((1536, 1024)));
}

/// (d): 4 cores of type 0; memory types 0 and 1, 1000 each.
/// Op 1 (type 1, "A"): chain 1 -> 2; A.1 type-0 600 for 5, A.2 type-0 400 for 1.
/// Op 2 (type 2, "B"): sources 1 and 2 -> sink 3; B.1 type-0 400, B.2 type-1 400,
/// B.3 type-1 100, each for 2.
/// Op 3 (type 3, "C"): one node, type-0 700 for 1. Op edge 1 -> 2.
const INTER_OP: &str = "SetSocInfo([[0,4]],[[0,1000],[1,1000]])
AddOpInfo(1,1,0,[[1,2]],[[1,0,5],[2,0,1]],[[1,0,600],[2,0,400]])
AddOpInfo(2,1,0,[[1,3],[2,3]],[[1,0,2],[2,0,2],[3,0,2]],[[1,0,400],[2,1,400],[3,1,100]])
AddOpInfo(3,1,0,[],[[1,0,1]],[[1,0,700]])
GetInferenceScheResult([[1,2]],[[1,1,1],[2,2,1],[3,3,1]])";

#[test]
fn memory_d_inter_op_hold() {
    let i = inst(INTER_OP);
    // S1: A.1 [0,5) c0, A.2 [5,6) c0, B.2 [6,8) c1, B.1 [10,12) c0, B.3 [12,14) c0,
    // C.1 [8,9) c2. A.2 is A's sink; of B's sources only B.1 demands type 0, and it
    // starts at 10, so A.2 holds 400 of type 0 over [5,10). At 8, C.1 adds 700:
    // 1100 > 1000. Type 1: B.2 [6,12) (until B.3, which uses type 1, starts) 400,
    // then B.3 100: fine. One violation, at 8, 1100 held.
    let s1 = "[[1,0,1,0,0],[1,0,2,5,0],[2,0,2,6,1],[2,0,1,10,0],[2,0,3,12,0],[3,0,1,8,2]]";
    let rep = verdict(&i, s1);
    assert_counts(&rep, &[(Rule::Memory, 1)]);
    let v = &rep.violations.kept[0];
    assert_eq!(v.time, Some(8));
    assert_eq!(v.amount, Some((1100, 1000)));
    let mut nodes = v.nodes.clone();
    nodes.sort();
    assert_eq!(nodes, vec![(1, 2), (3, 1)]);

    // S2: B.1 first at [6,8), B.2 late at [10,12), B.3 [12,14). A.2's type-0 hold
    // ends when B.1 starts: [5,6). B.2 starting at 10 does not extend it (it demands
    // only type 1). B.1's only successor B.3 uses type 1, so B.1 frees type 0 at 8.
    // C.1 at [8,9): 700 alone. Legal, makespan 14.
    let s2 = "[[1,0,1,0,0],[1,0,2,5,0],[2,0,1,6,0],[2,0,2,10,1],[2,0,3,12,0],[3,0,1,8,2]]";
    assert_legal(&verdict(&i, s2), 14);

    // S3: as S2 but C.1 at [7,8): B.1 400 + C.1 700 = 1100 > 1000 at 7.
    let s3 = "[[1,0,1,0,0],[1,0,2,5,0],[2,0,1,6,0],[2,0,2,10,1],[2,0,3,12,0],[3,0,1,7,2]]";
    let rep = verdict(&i, s3);
    assert_counts(&rep, &[(Rule::Memory, 1)]);
    assert_eq!(rep.violations.kept[0].time, Some(7));
    assert_eq!(rep.violations.kept[0].amount, Some((1100, 1000)));

    // S4: a different instance where A.2 uses type 1 instead of type 0 (400). A.1 is
    // not a sink, so B's sources never extend it; its only successor A.2 does not
    // demand type 0, so A.1 frees type 0 at its end, 5. With S1's B timings and C.1
    // at [5,6): type 0 holds A.1 [0,5), C.1 [5,6) 700, B.1 [10,12) 400; type 1 holds
    // A.2 [5,6) (until B.2, a type-1 source of B, starts at 6), B.2 [6,12), B.3
    // [12,14). Legal, makespan 14. (Extending A.1 to B.1's start would hold 1300.)
    let i4 = inst(&INTER_OP.replace("[2,0,400]]", "[2,1,400]]"));
    let s4 = "[[1,0,1,0,0],[1,0,2,5,0],[2,0,2,6,1],[2,0,1,10,0],[2,0,3,12,0],[3,0,1,5,2]]";
    assert_legal(&verdict(&i4, s4), 14);
    // Control: C.1 at [4,5) overlaps A.1: 600 + 700 = 1300 > 1000 at 4.
    let s4 = "[[1,0,1,0,0],[1,0,2,5,0],[2,0,2,6,1],[2,0,1,10,0],[2,0,3,12,0],[3,0,1,4,2]]";
    let rep = verdict(&i4, s4);
    assert_counts(&rep, &[(Rule::Memory, 1)]);
    assert_eq!(rep.violations.kept[0].time, Some(4));
    assert_eq!(rep.violations.kept[0].amount, Some((1300, 1000)));
}

#[test]
fn memory_e_zero_entries_are_ignored() {
    // Node 1 (1024 of type 0) -> node 2, whose only type-0 entry is 0. Node 3 needs
    // 1024 of type 0; node 4 has a 0 entry of type 0, and one of memory type 9,
    // which SetSocInfo lacks (ignored too, so the tiling stays usable).
    // Schedule: 1 [0,5) c0, 2 [8,9) c0, 3 [6,7) c1, 4 [6,7) c2.
    // Node 2 does not demand type 0, so node 1 frees at 5; at 6 only node 3 holds:
    // 1024 <= 1024. Legal, makespan 9. (Were the 0 entry a demand, node 1 would hold
    // to 8 and 2048 would be held at 6.)
    let i = inst(
        "SetSocInfo([[0,3]],[[0,1024]])
AddOpInfo(1,1,0,[[1,2]],[[1,0,5],[2,0,1],[3,0,1],[4,0,1]],[[1,0,1024],[2,0,0],[3,0,1024],[4,0,0],[4,9,0]])
GetInferenceScheResult([],[[1,1,1]])",
    );
    assert!(i.warnings.is_empty(), "{:?}", i.warnings);
    assert!(i.library.tilings[0].is_usable());
    let rep = verdict(&i, &op1(&[(1, 0, 0), (2, 8, 0), (3, 6, 1), (4, 6, 2)]));
    assert_legal(&rep, 9);
    // Control: with node 2 demanding 1 of type 0, node 1 holds [0,8) and at 6
    // 1024 + 1024 = 2048 > 1024.
    let i = inst(
        "SetSocInfo([[0,3]],[[0,1024]])
AddOpInfo(1,1,0,[[1,2]],[[1,0,5],[2,0,1],[3,0,1],[4,0,1]],[[1,0,1024],[2,0,0],[2,0,1],[3,0,1024],[4,0,0]])
GetInferenceScheResult([],[[1,1,1]])",
    );
    let rep = verdict(&i, &op1(&[(1, 0, 0), (2, 8, 0), (3, 6, 1), (4, 6, 2)]));
    assert_counts(&rep, &[(Rule::Memory, 1)]);
    assert_eq!(rep.violations.kept[0].time, Some(6));
    assert_eq!(rep.violations.kept[0].amount, Some((2048, 1024)));
}

#[test]
fn memory_f_zero_duration_node() {
    // Node 1 lasts 0 and holds 1024 of type 0; its one successor, node 3, uses only
    // type 1. Node 2 (unrelated) holds 1024 of type 0 over [3,4). Node 1 at 3:
    // R = max(3, no type-0 successor) = 3, so [3,3) is empty: 1024 held. Legal.
    let text = "SetSocInfo([[0,3]],[[0,1024],[1,10]])
AddOpInfo(1,1,0,[[1,3]],[[1,0,0],[2,0,1],[3,0,1]],[[1,0,1024],[2,0,1024],[3,1,10]])
GetInferenceScheResult([],[[1,1,1]])";
    let i = inst(text);
    assert_legal(&verdict(&i, &op1(&[(1, 3, 0), (2, 3, 1), (3, 10, 0)])), 11);
    // With node 3 demanding type 0 as well, node 1 holds [3,10): at 3 with node 2,
    // 2048 > 1024.
    let text = text.replace("[3,1,10]]", "[3,0,10]]");
    let i = inst(&text);
    let rep = verdict(&i, &op1(&[(1, 3, 0), (2, 3, 1), (3, 10, 0)]));
    assert_counts(&rep, &[(Rule::Memory, 1)]);
    assert_eq!(rep.violations.kept[0].time, Some(3));
    assert_eq!(rep.violations.kept[0].amount, Some((2048, 1024)));
}

#[test]
fn memory_g_entries_add_up() {
    // Node 1: 600 + 500 = 1100 of type 0; node 2: 600 + 301 = 901. Size 2000.
    // Both over [0,1): 2001 > 2000. (Taking one entry per node would give at most
    // 1200 and pass.) Node 2 at [1,2) instead: legal, makespan 2.
    let i = inst(
        "SetSocInfo([[0,2]],[[0,2000]])
AddOpInfo(1,1,0,[],[[1,0,1],[2,0,1]],[[1,0,600],[2,0,600],[1,0,500],[2,0,301]])
GetInferenceScheResult([],[[1,1,1]])",
    );
    let rep = verdict(&i, &op1(&[(1, 0, 0), (2, 0, 1)]));
    assert_counts(&rep, &[(Rule::Memory, 1)]);
    assert_eq!(rep.violations.kept[0].time, Some(0));
    assert_eq!(rep.violations.kept[0].amount, Some((2001, 2000)));
    assert_legal(&verdict(&i, &op1(&[(1, 0, 0), (2, 1, 1)])), 2);
}

#[test]
fn memory_separate_excursions_are_counted_separately() {
    // Three unrelated nodes on three cores, size 1024: A 1024 over [0,10), B 600 over
    // [2,4), C 600 over [6,8). Held: 1624 on [2,4), 1024 on [4,6), 1624 on [6,8).
    // Two maximal intervals over the size, separated by a stretch where only a
    // release happened: two violations, at 2 and at 6.
    let i = inst(
        "SetSocInfo([[0,3]],[[0,1024]])
AddOpInfo(1,1,0,[],[[1,0,10],[2,0,2],[3,0,2]],[[1,0,1024],[2,0,600],[3,0,600]])
GetInferenceScheResult([],[[1,1,1]])",
    );
    let rep = verdict(&i, &op1(&[(1, 0, 0), (2, 2, 1), (3, 6, 2)]));
    assert_counts(&rep, &[(Rule::Memory, 2)]);
    let times: Vec<Option<u128>> = rep.violations.kept.iter().map(|v| v.time).collect();
    assert_eq!(times, vec![Some(2), Some(6)]);
    // C starting at 4, as B ends: still one interval [2,6) (1624 throughout).
    let rep = verdict(&i, &op1(&[(1, 0, 0), (2, 2, 1), (3, 4, 2)]));
    assert_counts(&rep, &[(Rule::Memory, 1)]);
}

// ---------------------------------------------------------------- huge times

const HUGE: &str = "SetSocInfo([[0,2]],[])
AddOpInfo(1,1,0,[[1,2]],[[1,0,20],[2,0,5]],[])
AddOpInfo(2,1,0,[],[[1,0,18446744073709551615]],[])
GetInferenceScheResult([],[[1,1,1],[2,2,1]])";

#[test]
fn huge_times_do_not_wrap() {
    let i = inst(HUGE);
    let max = u64::MAX;
    // Op 1 node 1 [2^64-10, 2^64+10) -> node 2 at 2^64-1: 2^64+10 > 2^64-1, a
    // precedence violation (with wrapping, the end would be 9 and it would pass).
    // Op 2 node 1 lasts 2^64-1 from 0 on core 1: ends at 2^64-1, just as node 2
    // starts there on the same core: touching, no overlap.
    let s = format!(
        "[[1,0,1,{},0],[1,0,2,{max},1],[2,0,1,0,1]]",
        max - 9 // 2^64 - 10
    );
    let rep = verdict(&i, &s);
    assert_counts(&rep, &[(Rule::Precedence, 1)]);
    // Makespan: node 1 ends at 2^64 + 10 (node 2 at 2^64 + 4, op 2 at 2^64 - 1).
    let two64: u128 = 1 << 64;
    assert_eq!(rep.makespan, Some(two64 + 10));

    // Legal: op 1 node 1 at 2^64-25 (ends 2^64-5), node 2 at 2^64-5 (ends 2^64),
    // both on core 0; op 2 node 1 on core 1 from 2 (ends 2^64+1).
    let s = format!("[[1,0,1,{},0],[1,0,2,{},0],[2,0,1,2,1]]", max - 24, max - 4);
    assert_legal(&verdict(&i, &s), two64 + 1);

    // Overlap near the top: op 2 node 1 from 2 runs to 2^64+1, and op 1 node 2
    // [2^64-5, 2^64) on the same core overlaps it. With wrapping its end would be 1.
    let s = format!("[[1,0,1,{},0],[1,0,2,{},1],[2,0,1,2,1]]", max - 24, max - 4);
    let rep = verdict(&i, &s);
    assert_counts(&rep, &[(Rule::Core, 1)]);
    assert_eq!(rep.violations.kept[0].time, Some(u128::from(max - 4)));
}

#[test]
fn huge_times_cli() {
    let inst_p = tmp("huge.txt", HUGE.as_bytes());
    let max = u64::MAX;
    let sched = format!("[[1,0,1,{},0],[1,0,2,{},0],[2,0,1,2,1]]", max - 24, max - 4);
    let sched_p = tmp("huge.schedule", sched.as_bytes());
    let (code, out, err) = tmin(&["check", inst_p.to_str().unwrap(), sched_p.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    // 2^64 + 1, printed exactly.
    assert!(
        out.starts_with("legal: makespan 18446744073709551617"),
        "{out}"
    );
    let (code, out, _) = tmin(&[
        "check",
        "--json",
        inst_p.to_str().unwrap(),
        sched_p.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["legal"], true);
    // Beyond u64, the makespan is a decimal string (JSON numbers lose precision).
    assert_eq!(v["makespan"], "18446744073709551617");
}

#[test]
fn huge_memory_holds_do_not_wrap() {
    // Node 1 (mem 10 of 10) -> node 2 (mem 10): node 1 runs [2^64-10, 2^64+10),
    // node 2 starts at 2^64-1 (precedence broken, which is fine here). Node 1 holds
    // [2^64-10, 2^64+10) and node 2 from 2^64-1: 20 > 10 at 2^64-1. A memory
    // violation; wrapping the end to 9 would drop node 1's hold and miss it.
    let i = inst(
        "SetSocInfo([[0,2]],[[0,10]])
AddOpInfo(1,1,0,[[1,2]],[[1,0,20],[2,0,5]],[[1,0,10],[2,0,10]])
GetInferenceScheResult([],[[1,1,1]])",
    );
    let max = u64::MAX;
    let rep = verdict(&i, &format!("[[1,0,1,{},0],[1,0,2,{max},1]]", max - 9));
    assert_counts(&rep, &[(Rule::Precedence, 1), (Rule::Memory, 1)]);
    let m = rep
        .violations
        .kept
        .iter()
        .find(|v| v.rule == Rule::Memory)
        .unwrap();
    assert_eq!(m.time, Some(u128::from(max)));
    assert_eq!(m.amount, Some((20, 10)));
}

// ---------------------------------------------------------------- JSON and listing limits

/// A 51-node chain (1 -> 2 -> ... -> 51) on 60 cores of one type, each node 1 long.
fn chain_instance(n: u32) -> String {
    let edges: Vec<String> = (1..n).map(|k| format!("[{k},{}]", k + 1)).collect();
    let run: Vec<String> = (1..=n).map(|k| format!("[{k},0,1]")).collect();
    format!(
        "SetSocInfo([[0,60]],[])\nAddOpInfo(1,1,0,[{}],[{}],[])\nGetInferenceScheResult([],[[1,1,1]])\n",
        edges.join(","),
        run.join(",")
    )
}

#[test]
fn fifty_violations_listed_twenty() {
    // Every node at 0 on its own core: each of the 50 edges k -> k+1 is broken
    // (node k ends at 1 > 0), nothing else is.
    let text = chain_instance(51);
    let sched = {
        let r: Vec<String> = (1..=51).map(|k| format!("[1,0,{k},0,{}]", k - 1)).collect();
        format!("[{}]", r.join(","))
    };
    let i = inst(&text);
    let rep = check_reader(&i, sched.as_bytes(), "s", 20).unwrap();
    assert_counts(&rep, &[(Rule::Precedence, 50)]);
    assert_eq!(rep.violations.kept.len(), 20);
    let rep = check_reader(&i, sched.as_bytes(), "s", 1000).unwrap();
    assert_eq!(rep.violations.kept.len(), 50);

    let ip = tmp("chain51.txt", text.as_bytes());
    let sp = tmp("chain51.schedule", sched.as_bytes());
    let (code, out, _) = tmin(&["check", ip.to_str().unwrap(), sp.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        out.starts_with("illegal: 50 violations (precedence 50)"),
        "{out}"
    );
    let listed = out.lines().filter(|l| l.contains("[precedence]")).count();
    assert_eq!(listed, 20, "{out}");
    assert!(out.contains("and 30 more"), "{out}");

    let (code, out, _) = tmin(&[
        "check",
        "--json",
        ip.to_str().unwrap(),
        sp.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["legal"], false);
    assert_eq!(v["makespan"], 1);
    assert_eq!(v["violation_count"], 50);
    assert_eq!(v["counts"]["precedence"], 50);
    for r in ["structure", "core-id", "core-overlap", "memory"] {
        assert_eq!(v["counts"][r], 0, "{r}");
    }
    let vs = v["violations"].as_array().unwrap();
    assert_eq!(vs.len(), 20);
    for x in vs {
        assert_eq!(x["rule"], "precedence");
        assert!(x["message"].as_str().unwrap().contains("ends at 1"));
        let nodes = x["nodes"].as_array().unwrap();
        assert_eq!(nodes.len(), 2);
        // [op, node] pairs: node k and its successor k + 1, both of op 1.
        let a = &nodes[0];
        let b = &nodes[1];
        assert_eq!(a[0], 1);
        assert_eq!(b[0], 1);
        assert_eq!(b[1].as_u64().unwrap(), a[1].as_u64().unwrap() + 1);
    }

    // --max-violations changes the listing, not the count.
    let (_, out, _) = tmin(&[
        "check",
        "--max-violations",
        "5",
        ip.to_str().unwrap(),
        sp.to_str().unwrap(),
    ]);
    assert!(out.starts_with("illegal: 50 violations"), "{out}");
    assert!(out.contains("and 45 more"), "{out}");
}

#[test]
fn json_fields_for_an_illegal_memory_schedule() {
    let small = EX1.replace("[[0,10240],", "[[0,1024],");
    let ip = tmp("ex1small.txt", small.as_bytes());
    let (code, out, _) = tmin(&[
        "check",
        "--json",
        ip.to_str().unwrap(),
        &repo("instances/example1.schedule.txt"),
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["legal"], false);
    assert_eq!(v["makespan"], 38);
    assert_eq!(v["violation_count"], 1);
    assert_eq!(v["counts"]["memory"], 1);
    let x = &v["violations"][0];
    assert_eq!(x["rule"], "memory");
    assert_eq!(x["time"], 19);
    assert_eq!(x["held"], 2048);
    assert_eq!(x["size"], 1024);
    assert!(x["message"].is_string());
    let mut nodes: Vec<(u64, u64)> = x["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap()))
        .collect();
    nodes.sort();
    assert_eq!(nodes, vec![(2, 2), (2, 4)]);
}

#[test]
fn structure_json_has_null_makespan() {
    let (code, out, _) = tmin(&[
        "check",
        "--json",
        &repo("instances/example2.txt"),
        &repo("instances/example2.schedule.txt"),
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["legal"], false);
    assert!(v["makespan"].is_null());
    assert_eq!(v["counts"]["structure"], v["violation_count"]);
    assert!(
        v["violations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["message"].as_str().unwrap().contains("op 4"))
    );
}

// ---------------------------------------------------------------- the in-memory API

#[test]
fn check_on_a_built_schedule() {
    // The library entry point without the text reader: example 1 with op 1 on
    // tiling 1 (library index 1), ops 2 and 3 on their only tilings (2 and 3).
    let i = inst(EX1);
    let g = NodeGraph::new(&i, vec![1, 3, 2]).unwrap();
    assert_eq!(g.n_nodes(), 4 + 5 + 3);
    // Nodes are numbered op by op in run-detail order; start/core per node,
    // copied from the legal example schedule.
    let starts = [0, 5, 10, 5, 15, 19, 25, 19, 25, 29, 33, 35];
    let cores = [0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0];
    let s = Schedule {
        choice: vec![1, 3, 2],
        start: starts.to_vec(),
        core: cores.to_vec(),
    };
    assert!(check(&g, &s, 10).is_empty());
    assert_eq!(s.makespan(&g), 38);
    // Every node 1 later: still legal (all constraints are shift-invariant), 39.
    let later = Schedule {
        start: starts.iter().map(|x| x + 1).collect(),
        ..s.clone()
    };
    assert!(check(&g, &later, 10).is_empty());
    assert_eq!(later.makespan(&g), 39);
    // Op 3 node 3 (the last node) at 34: its predecessor node 2 ends at 35.
    let mut bad = s.clone();
    bad.start[11] = 34;
    let v = check(&g, &bad, 10);
    assert_eq!(v.count(Rule::Precedence), 1);
    assert_eq!(v.total(), 1);
}

// ---------------------------------------------------------------- against a naive checker

/// The verdict of a direct reading of problem.md §4 for `start`/`core` per (op, local):
/// (precedence count in the checker's units: one per broken intra-op edge, one per
/// op edge with any broken sink -> source pair; whether cores overlap; the number of
/// maximal time intervals over a memory size, per type, summed).
fn naive(t: &Tiny, start: &[Vec<u64>], core: &[Vec<u32>]) -> (usize, bool, usize) {
    let (nodes, edges) = t.node_edges();
    let end = |(o, v): (usize, usize)| start[o][v] + t.ops[o].dur[v];
    let st = |(o, v): (usize, usize)| start[o][v];
    let intra = edges.iter().filter(|e| !e.2 && st(e.1) < end(e.0)).count();
    let inter = t
        .op_edges
        .iter()
        .filter(|&&(a, b)| {
            edges
                .iter()
                .any(|e| e.2 && e.0.0 == a && e.1.0 == b && st(e.1) < end(e.0))
        })
        .count();
    let mut overlap = false;
    for (i, &x) in nodes.iter().enumerate() {
        for &y in &nodes[i + 1..] {
            let same =
                t.ops[x.0].core[x.1] == t.ops[y.0].core[y.1] && core[x.0][x.1] == core[y.0][y.1];
            let (dx, dy) = (t.ops[x.0].dur[x.1], t.ops[y.0].dur[y.1]);
            if same && dx > 0 && dy > 0 && st(x) < end(y) && st(y) < end(x) {
                overlap = true;
            }
        }
    }
    let horizon = nodes.iter().map(|&x| end(x)).max().unwrap_or(0) + 20;
    let mut excursions = 0;
    for m in 0..t.mem_size.len() as u32 {
        let release = |x: (usize, usize)| {
            edges
                .iter()
                .filter(|e| e.0 == x && t.demand(e.1, m) > 0)
                .map(|e| st(e.1))
                .fold(end(x), u64::max)
        };
        let mut was_over = false;
        for time in 0..horizon {
            let held: u64 = nodes
                .iter()
                .filter(|&&x| st(x) <= time && time < release(x))
                .map(|&x| t.demand(x, m))
                .sum();
            let over = held > t.mem_size[m as usize];
            if over && !was_over {
                excursions += 1;
            }
            was_over = over;
        }
    }
    (intra + inter, overlap, excursions)
}

#[test]
fn random_schedules_agree_with_a_naive_checker() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let (mut legal, mut mem_bad, mut prec_bad, mut core_bad) = (0, 0, 0, 0);
    let mut multi = 0;
    for case in 0..600 {
        let t = Tiny::random(&mut rng);
        let text = t.text();
        let i = inst(&text);
        // A list schedule in op order with random delays and cores, then a few
        // random nudges so that every rule gets broken now and then.
        let mut start: Vec<Vec<u64>> = t.ops.iter().map(|o| vec![0; o.dur.len()]).collect();
        let mut core: Vec<Vec<u32>> = t
            .ops
            .iter()
            .map(|o| {
                o.core
                    .iter()
                    .map(|&c| rng.below(u64::from(t.cores[c as usize])) as u32)
                    .collect()
            })
            .collect();
        let (_, edges) = t.node_edges();
        for o in 0..t.ops.len() {
            for v in 0..t.ops[o].dur.len() {
                let ready = edges
                    .iter()
                    .filter(|e| e.1 == (o, v))
                    .map(|e| start[e.0.0][e.0.1] + t.ops[e.0.0].dur[e.0.1])
                    .max()
                    .unwrap_or(0);
                start[o][v] = ready + rng.below(4);
            }
        }
        for _ in 0..rng.below(3) {
            let o = rng.below(t.ops.len() as u64) as usize;
            let v = rng.below(t.ops[o].dur.len() as u64) as usize;
            start[o][v] = start[o][v].saturating_sub(rng.below(3)) + rng.below(3);
            core[o][v] = 0;
        }
        let mut rows = vec![];
        for (o, op) in t.ops.iter().enumerate() {
            for v in 0..op.dur.len() {
                rows.push(format!(
                    "[{},0,{},{},{}]",
                    o + 1,
                    v + 1,
                    start[o][v],
                    core[o][v]
                ));
            }
        }
        let sched = format!("[{}]", rows.join(","));
        let rep = verdict(&i, &sched);
        let (prec, overlap, excursions) = naive(&t, &start, &core);
        let ctx = || format!("case {case}\n{text}{sched}\n{:#?}", rep.violations.kept);
        assert_eq!(rep.violations.count(Rule::Structure), 0, "{}", ctx());
        assert_eq!(rep.violations.count(Rule::CoreId), 0, "{}", ctx());
        assert_eq!(rep.violations.count(Rule::Precedence), prec, "{}", ctx());
        assert_eq!(rep.violations.count(Rule::Core) > 0, overlap, "{}", ctx());
        assert_eq!(rep.violations.count(Rule::Memory), excursions, "{}", ctx());
        let makespan = t
            .ops
            .iter()
            .enumerate()
            .flat_map(|(o, op)| (0..op.dur.len()).map(move |v| (o, v)))
            .map(|(o, v)| start[o][v] + t.ops[o].dur[v])
            .max()
            .unwrap_or(0);
        assert_eq!(rep.makespan, Some(u128::from(makespan)), "{}", ctx());
        legal += usize::from(rep.is_legal());
        mem_bad += usize::from(excursions > 0);
        multi += usize::from(excursions > 1);
        prec_bad += usize::from(prec > 0);
        core_bad += usize::from(overlap);
    }
    eprintln!(
        "legal {legal}, memory {mem_bad} ({multi} with several excursions), precedence {prec_bad}, cores {core_bad}"
    );
    // Each verdict must occur often enough for the comparison to mean something.
    assert!(
        legal > 40 && mem_bad > 40 && multi > 10 && prec_bad > 40 && core_bad > 40,
        "legal {legal}, memory {mem_bad}, precedence {prec_bad}, cores {core_bad}"
    );
}
