//! `tmin check --usage` (`schedule::usage`) on hand-built schedules whose
//! memory holds, core loads and critical chain are derived by hand in the
//! comments, and through the binary. tests/corners.rs checks the same
//! accounting on every corner case's optimal schedule.

use std::process::Command;

use tmin::instance::parse_reader;
use tmin::schedule::{Chain, Past, Usage, check_reader_with_usage};

fn usage_of(instance: &str, schedule: &str) -> Usage {
    let inst = parse_reader(instance.as_bytes(), "inline.txt").unwrap_or_else(|e| panic!("{e}"));
    let (rep, usage) = check_reader_with_usage(&inst, schedule.as_bytes(), "inline", 20, true)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(rep.is_legal(), "{:?}", rep.violations.kept);
    usage.expect("a legal schedule's usage")
}

/// One core, memory 20. Op 1 (5 units, 10 of memory) runs [0, 5), op 3 (3
/// units, no memory) [5, 8), op 2 (3 units, 10 of memory; op edge 1 -> 2)
/// [8, 11). Op 1 holds until op 2 starts: 10 x 8, op 2 10 x 3, so 110 held
/// against a run area of 10 x 5 + 10 x 3 = 80, peak 10. The core runs
/// 5 + 3 + 3 = 11. Chain: op 2 ends last; its predecessor op 1 ends at 5,
/// it starts at 8: a wait of 3 while op 3 has the one core; op 1 starts at
/// 0: 0 + (5 + 3) + 3 = 11.
const WAITS_FOR_THE_CORE: &str = "SetSocInfo([[0,1]],[[0,20]])
AddOpInfo(1,1,0,[],[[1,0,5]],[[1,0,10]])
AddOpInfo(2,1,0,[],[[1,0,3]],[[1,0,10]])
AddOpInfo(3,1,0,[],[[1,0,3]],[])
GetInferenceScheResult([[1,2]],[[1,1,1],[2,2,1],[3,3,1]])
";

/// Two cores, memory 10. Op 2 (4 units, all 10 of memory) runs [0, 4);
/// op 1 (1 unit, no memory) [0, 1); op 3 (1 unit, 10 of memory; op edge
/// 1 -> 3) [4, 5), when op 2 frees the memory; op 4 (1 unit, no memory;
/// 3 -> 4) [5, 6). Holds end with the runs (op 4 demands no memory): 50
/// held = 50 run, peak 10; cores 1 + 4 + 1 + 1 = 7. Chain: op 4 (no wait),
/// op 3 ready at 1 and started at 4 with one core free all along (only op
/// 2 runs): a wait of 3 for memory; op 1 from 0: 0 + 3 + 3 = 6.
const WAITS_FOR_MEMORY: &str = "SetSocInfo([[0,2]],[[0,10]])
AddOpInfo(1,1,0,[],[[1,0,1]],[])
AddOpInfo(2,1,0,[],[[1,0,4]],[[1,0,10]])
AddOpInfo(3,1,0,[],[[1,0,1]],[[1,0,10]])
AddOpInfo(4,1,0,[],[[1,0,1]],[])
GetInferenceScheResult([[1,3],[3,4]],[[1,1,1],[2,2,1],[3,3,1],[4,4,1]])
";

/// Four cores, memory 100; every node demands 10 of it but op 2's. Op 1:
/// node 1 -> node 2 (2 units each) and node 3 (1 unit); op 2: one node of
/// 10 units; op 3: one node of 1 unit, after ops 1 and 2 (a join). Node 1
/// runs [0, 2), node 2 [4, 6), node 3 [0, 1), op 2 [0, 10), op 3 [12, 13).
/// Node 1 holds until node 2 starts: 2 x 10 past its end, inside its op.
/// Op 1's sinks (nodes 2 and 3) hold until op 3 starts at 12: op 1 ends at
/// A = 6, op 3's other predecessor at J = 10. Node 3 (ends at 1): 5 x 10
/// until its op's last sink, 4 x 10 of join, 2 x 10 of op 3 waiting once
/// ready; node 2 (ends at 6): 0, 40, 20. So past = 20 + 50 + 80 + 40 = 190,
/// run = 10 x (2 + 2 + 1 + 1) = 60, held = 250 (node 1 40, node 2 80,
/// node 3 120, op 3 10).
const HOLDS_PAST_THEIR_ENDS: &str = "SetSocInfo([[0,4]],[[0,100]])
AddOpInfo(1,1,0,[[1,2]],[[1,0,2],[2,0,2],[3,0,1]],[[1,0,10],[2,0,10],[3,0,10]])
AddOpInfo(2,1,0,[],[[1,0,10]],[])
AddOpInfo(3,1,0,[],[[1,0,1]],[[1,0,10]])
GetInferenceScheResult([[1,3],[2,3]],[[1,1,1],[2,2,1],[3,3,1]])
";

#[test]
fn holds_past_their_nodes_ends_by_cause() {
    let u = usage_of(
        HOLDS_PAST_THEIR_ENDS,
        "[[1,0,1,0,0],[1,0,2,4,0],[1,0,3,0,1],[2,0,1,0,2],[3,0,1,12,0]]",
    );
    let m = &u.memory[0];
    assert_eq!((m.held, m.run), (250, 60));
    let want = Past {
        in_op: 20,
        op_sinks: 50,
        join: 80,
        successor_wait: 40,
    };
    assert_eq!(m.past, want);
    assert_eq!(m.run + m.past.total(), m.held);
}

/// One core, memory 8. Op 1: node 1 -> node 2, each 2^63 units and 4 of
/// memory. Node 1 runs [0, 2^63), node 2 [2^63 + 5, 2^64 + 5): node 1 holds
/// until node 2 starts, 4 x 5 past its end inside the op; node 2's hold ends
/// at 2^64 + 5, past every instant a start can name (the validator's sweep
/// never reaches it). Held: 4 x (2^63 + 5) + 4 x 2^63 = 2^66 + 20, run 2^66.
#[test]
fn a_hold_that_ends_after_2_pow_64_counts_in_full() {
    let u = usage_of(
        "SetSocInfo([[0,1]],[[0,8]])
AddOpInfo(1,1,0,[[1,2]],[[1,0,9223372036854775808],[2,0,9223372036854775808]],[[1,0,4],[2,0,4]])
GetInferenceScheResult([],[[1,1,1]])
",
        "[[1,0,1,0,0],[1,0,2,9223372036854775813,0]]",
    );
    let m = &u.memory[0];
    assert_eq!(u.makespan, (1u128 << 64) + 5);
    assert_eq!(
        (m.peak, m.run, m.held),
        (4, 1u128 << 66, (1u128 << 66) + 20)
    );
    assert_eq!(m.past.in_op, 20);
    assert_eq!(m.run + m.past.total(), m.held);
}

#[test]
fn a_wait_for_the_core_and_a_hold_until_the_successor() {
    let u = usage_of(WAITS_FOR_THE_CORE, "[[1,0,1,0,0],[3,0,1,5,0],[2,0,1,8,0]]");
    assert_eq!(u.makespan, 11);
    assert_eq!(
        (u.memory[0].peak, u.memory[0].held, u.memory[0].run),
        (10, 110, 80)
    );
    assert_eq!((u.cores[0].cores, u.cores[0].busy), (1, 11));
    // Op 1 (its op's only sink, op 2's only predecessor) holds 3 past its
    // end while op 2 waits for the core.
    assert_eq!(u.memory[0].past.successor_wait, 30);
    assert_eq!(u.memory[0].past.total(), 30);
    let want = Chain {
        nodes: 2,
        ops: 2,
        start: 0,
        work: 8,
        wait_cores_busy: 3,
        wait_core_free: 0,
    };
    assert_eq!(u.chain, want);
}

#[test]
fn a_wait_for_memory_with_a_core_free() {
    let u = usage_of(
        WAITS_FOR_MEMORY,
        "[[1,0,1,0,0],[2,0,1,0,1],[3,0,1,4,0],[4,0,1,5,0]]",
    );
    assert_eq!(u.makespan, 6);
    assert_eq!(
        (u.memory[0].peak, u.memory[0].held, u.memory[0].run),
        (10, 50, 50)
    );
    assert_eq!(u.cores[0].busy, 7);
    let want = Chain {
        nodes: 3,
        ops: 3,
        start: 0,
        work: 3,
        wait_cores_busy: 0,
        wait_core_free: 3,
    };
    assert_eq!(u.chain, want);
}

fn tmin_check(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tmin"))
        .arg("check")
        .args(args)
        .output()
        .expect("tmin runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The binary: the text lines and the JSON object of the first case; an
/// illegal schedule gets its violations and no usage (exit 1).
#[test]
fn the_cli_prints_usage_of_legal_schedules_only() {
    let dir = std::env::temp_dir().join(format!("tmin-usage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let inst = dir.join("i.txt");
    std::fs::write(&inst, WAITS_FOR_THE_CORE).unwrap();
    let legal = dir.join("legal.schedule");
    std::fs::write(&legal, "[[1,0,1,0,0],[3,0,1,5,0],[2,0,1,8,0]]").unwrap();
    // Op 2 at 4: before op 1 ends (precedence) and on the busy core.
    let illegal = dir.join("illegal.schedule");
    std::fs::write(&illegal, "[[1,0,1,0,0],[3,0,1,5,0],[2,0,1,4,0]]").unwrap();
    let (i, l, x) = (
        inst.to_str().unwrap(),
        legal.to_str().unwrap(),
        illegal.to_str().unwrap(),
    );

    let (code, text) = tmin_check(&["--usage", i, l]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("memory type 0 (size 20): peak 10 (50.0%), held 50.0% of size x makespan, 1.38 x as long as its nodes run"),
        "{text}"
    );
    assert!(
        text.contains("held past its nodes' ends, until: a successor in the op 0%, the op's last sink 0%, the successor op's other predecessors (joins) 0%, the ready successor op starts 100%"),
        "{text}"
    );
    assert!(
        text.contains("core type 0 (1 cores): busy 100.0%"),
        "{text}"
    );
    assert!(
        text.contains("critical chain: 2 nodes of 2 ops from t=0: runs 8, waits 3 with every core of its type busy and 0 with one free"),
        "{text}"
    );

    let (code, json) = tmin_check(&["--usage", "--json", i, l]);
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["usage"]["memory"][0]["held"], 110);
    assert_eq!(v["usage"]["memory"][0]["run"], 80);
    assert_eq!(v["usage"]["memory"][0]["past"]["successor_wait"], 30);
    assert_eq!(v["usage"]["memory"][0]["past"]["join"], 0);
    assert_eq!(v["usage"]["cores"][0]["busy"], 11);
    assert_eq!(v["usage"]["chain"]["wait_cores_busy"], 3);
    assert_eq!(v["usage"]["chain"]["work"], 8);

    let (code, text) = tmin_check(&["--usage", i, x]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.starts_with("illegal:") && !text.contains("critical chain"),
        "{text}"
    );
    let (_, json) = tmin_check(&["--usage", "--json", i, x]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(v.get("usage").is_none(), "{json}");
    let _ = std::fs::remove_dir_all(&dir);
}
