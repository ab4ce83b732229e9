//! Input errors of the instance format (problem.md §1 and §6): each is exit 2 with
//! `error: FILE:LINE:COL: message`, never a panic; unusable tilings are warnings.
//!
//! Expected lines and columns are found in the test's own input text (`at`), so
//! they do not come from the code under test.

use crate::common;

use std::path::PathBuf;

use tmin::instance::{Instance, Unusable, parse_reader};
use tmin::schedule::check_reader;

const EX1: &str = include_str!("../instances/example1.txt");
const EX1_SCHED: &str = include_str!("../instances/example1.schedule.txt");

/// A small valid instance: ops 1 -> 2.
const L1: &str = "SetSocInfo([[0,2],[1,1]],[[0,100]])";
const L2: &str = "AddOpInfo(1,1,0,[[1,2]],[[1,0,5],[2,1,5]],[[1,0,10]])";
const L3: &str = "AddOpInfo(2,1,0,[],[[1,0,3]],[])";
const L4: &str = "GetInferenceScheResult([[1,2]],[[1,1,1],[2,2,1]])";

use common::{Rng, tmin};

fn tmp(name: &str, contents: &[u8]) -> PathBuf {
    common::tmp_in("parse_errors", name, contents)
}

/// 1-based (line, column) of the `nth` (0-based) occurrence of `needle` in `text`.
fn at(text: &str, needle: &str, nth: usize) -> (usize, usize) {
    let off = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("{needle:?} #{nth} not in the input"))
        .0;
    let before = &text[..off];
    let line = before.matches('\n').count() + 1;
    let col = off - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

/// Runs `tmin info` on `text` and checks: exit 2, one `error: FILE:LINE:COL: ...`
/// line containing every piece of `want`. Also checks the library parser agrees.
#[track_caller]
fn rejects(name: &str, text: &str, (line, col): (usize, usize), want: &[&str]) -> String {
    let p = tmp(name, text.as_bytes());
    let path = p.to_str().unwrap();
    let (code, out, err) = tmin(&["info", path]);
    assert_eq!(code, 2, "{name}: stdout {out}\nstderr {err}");
    assert!(out.is_empty(), "{name}: nothing on stdout: {out}");
    let prefix = format!("error: {path}:{line}:{col}: ");
    assert!(
        err.starts_with(&prefix),
        "{name}: want {prefix:?}, got {err:?}"
    );
    for w in want {
        assert!(err.contains(w), "{name}: want {w:?} in {err:?}");
    }
    assert!(!err.contains("panicked"), "{err}");
    let e = parse_reader(text.as_bytes(), "lib.txt").expect_err(name);
    assert_eq!(
        (e.pos.line as usize, e.pos.col as usize),
        (line, col),
        "{e}"
    );
    assert_eq!(e.file, "lib.txt");
    err
}

fn lines(ls: &[&str]) -> String {
    let mut s = ls.join("\n");
    s.push('\n');
    s
}

#[test]
fn the_base_instance_is_valid() {
    // The variants below each break one thing in this instance.
    let i = parse_reader(lines(&[L1, L2, L3, L4]).as_bytes(), "x").unwrap();
    assert_eq!(i.graph.n_ops(), 2);
    assert_eq!(i.library.tilings.len(), 2);
    assert!(i.warnings.is_empty());
    let p = tmp("base.txt", lines(&[L1, L2, L3, L4]).as_bytes());
    let (code, out, _) = tmin(&["info", p.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(!out.contains("infeasible"), "{out}");
}

#[test]
fn duplicate_tiling_line() {
    let dup = "AddOpInfo(1,1,0,[],[[1,0,1]],[])";
    let t = lines(&[L1, L2, dup, L3, L4]);
    rejects(
        "dup.txt",
        &t,
        (3, 1),
        &[
            "AddOpInfo(1,1,0,...)",
            "duplicate (OpType, Shape, Tiling)",
            "line 2",
        ],
    );
    // Same OpType and Shape with another tiling id is fine.
    let ok = lines(&[L1, L2, &dup.replace("(1,1,0,", "(1,1,1,"), L3, L4]);
    assert_eq!(
        parse_reader(ok.as_bytes(), "x")
            .unwrap()
            .library
            .tilings
            .len(),
        3
    );
}

#[test]
fn edge_node_missing_from_run_detail() {
    let l2 = "AddOpInfo(1,1,0,[[1,2],[2,3]],[[1,0,5],[2,1,5]],[[1,0,10]])";
    let t = lines(&[L1, l2, L3, L4]);
    rejects(
        "edge_node.txt",
        &t,
        at(&t, "[2,3]", 0),
        &["edge [2,3] names node 3", "run detail"],
    );
    // The first node of an edge too.
    let l2 = "AddOpInfo(1,1,0,[[1,2],[7,2]],[[1,0,5],[2,1,5]],[[1,0,10]])";
    let t = lines(&[L1, l2, L3, L4]);
    rejects("edge_node7.txt", &t, at(&t, "[7,2]", 0), &["names node 7"]);
}

#[test]
fn memory_node_missing_from_run_detail() {
    let l2 = "AddOpInfo(1,1,0,[[1,2]],[[1,0,5],[2,1,5]],[[1,0,10],[5,0,1]])";
    let t = lines(&[L1, l2, L3, L4]);
    rejects(
        "mem_node.txt",
        &t,
        at(&t, "[5,0,1]", 0),
        &["memory entry [5,0,1] names node 5", "run detail"],
    );
}

#[test]
fn node_twice_in_run_detail() {
    let l2 = "AddOpInfo(1,1,0,[[1,2]],[[1,0,5],[2,1,5],[1,0,2]],[[1,0,10]])";
    let t = lines(&[L1, l2, L3, L4]);
    rejects(
        "twice.txt",
        &t,
        at(&t, "[1,0,2]", 0),
        &["node 1 appears twice in the run detail"],
    );
    // Non-consecutive ids, repeated later.
    let l2 = "AddOpInfo(1,1,0,[],[[10,0,5],[30,1,5],[20,0,1],[30,0,1]],[])";
    let t = lines(&[L1, l2, L3, L4]);
    rejects(
        "twice30.txt",
        &t,
        at(&t, "[30,0,1]", 0),
        &["node 30 appears twice"],
    );
}

/// The `a -> b -> ... -> a` list after `marker` in `msg`, as numbers.
fn cycle_in(msg: &str, marker: &str) -> Vec<u32> {
    let rest = &msg[msg.find(marker).expect(marker) + marker.len()..];
    rest.lines()
        .next()
        .unwrap()
        .split("->")
        .map(|x| x.trim().parse().unwrap())
        .collect()
}

#[track_caller]
fn assert_cycle(cycle: &[u32], edges: &[(u32, u32)], len: usize) {
    assert_eq!(cycle.len(), len + 1, "{cycle:?}");
    assert_eq!(cycle.first(), cycle.last(), "{cycle:?} is closed");
    for w in cycle.windows(2) {
        assert!(
            edges.contains(&(w[0], w[1])),
            "{cycle:?}: {w:?} is not an edge"
        );
    }
}

#[test]
fn subgraph_cycle() {
    let l2 = "AddOpInfo(1,1,0,[[1,2],[2,3],[3,1]],[[1,0,5],[2,1,5],[3,0,1]],[])";
    let t = lines(&[L1, l2, L3, L4]);
    let err = rejects("cycle3.txt", &t, (2, 1), &["the subgraph has a cycle: "]);
    assert_cycle(&cycle_in(&err, "cycle: "), &[(1, 2), (2, 3), (3, 1)], 3);
    // A cycle 2 -> 3 -> 4 -> 2 behind node 1, among non-consecutive ids, plus an
    // innocent node 9: the message lists only the cycle.
    let l2 = "AddOpInfo(1,1,0,[[1,2],[2,3],[3,4],[4,2],[1,9]],[[1,0,1],[2,0,1],[3,0,1],[4,0,1],[9,0,1]],[])";
    let t = lines(&[L1, l2, L3, L4]);
    let err = rejects(
        "cycle_tail.txt",
        &t,
        (2, 1),
        &["the subgraph has a cycle: "],
    );
    assert_cycle(&cycle_in(&err, "cycle: "), &[(2, 3), (3, 4), (4, 2)], 3);
    // A node before itself.
    let l2 = "AddOpInfo(1,1,0,[[1,2],[2,2]],[[1,0,5],[2,1,5]],[])";
    let t = lines(&[L1, l2, L3, L4]);
    rejects(
        "selfloop.txt",
        &t,
        at(&t, "[2,2]", 0),
        &["edge [2,2] is a cycle"],
    );
}

#[test]
fn op_graph_cycle() {
    let l4 = "GetInferenceScheResult([[1,2],[2,3],[3,2]],[[1,1,1],[2,2,1],[3,2,1]])";
    let t = lines(&[L1, L2, L3, l4]);
    let err = rejects(
        "opcycle.txt",
        &t,
        (4, 1),
        &["the op graph has a cycle: ops "],
    );
    assert_cycle(&cycle_in(&err, "ops "), &[(1, 2), (2, 3), (3, 2)], 2);
    // An op before itself.
    let l4 = "GetInferenceScheResult([[1,2],[1,1]],[[1,1,1],[2,2,1]])";
    let t = lines(&[L1, L2, L3, l4]);
    rejects(
        "opself.txt",
        &t,
        at(&t, "[1,1]],[[1,1,1]", 0),
        &["op edge [1,1] is a cycle"],
    );
}

#[test]
fn op_edge_names_unknown_op() {
    let l4 = "GetInferenceScheResult([[1,2],[2,9]],[[1,1,1],[2,2,1]])";
    let t = lines(&[L1, L2, L3, l4]);
    rejects(
        "opedge.txt",
        &t,
        at(&t, "[2,9]", 0),
        &["op edge [2,9] names op 9", "op list does not contain"],
    );
}

#[test]
fn op_without_library_entry() {
    // Type 2 exists with shape 1 only; shape 5 has no AddOpInfo line.
    let l4 = "GetInferenceScheResult([[1,2]],[[1,1,1],[2,2,1],[3,2,5]])";
    let t = lines(&[L1, L2, L3, l4]);
    rejects(
        "nolib.txt",
        &t,
        at(&t, "[3,2,5]", 0),
        &["op 3 has type 2 and shape 5", "no AddOpInfo line"],
    );
}

#[test]
fn duplicate_op_id() {
    let l4 = "GetInferenceScheResult([[1,2]],[[1,1,1],[2,2,1],[1,2,1]])";
    let t = lines(&[L1, L2, L3, l4]);
    let (fl, fc) = at(&t, "[1,1,1]", 0);
    rejects(
        "dupop.txt",
        &t,
        at(&t, "[1,2,1]", 0),
        &[
            "op 1 is listed twice",
            &format!("first at line {fl}, column {fc}"),
        ],
    );
}

#[test]
fn missing_set_soc_info() {
    let t = lines(&[L2, L3, L4]);
    rejects("nosoc.txt", &t, (1, 1), &["AddOpInfo before SetSocInfo"]);
    let t = lines(&[L4]);
    rejects(
        "nosoc2.txt",
        &t,
        (1, 1),
        &["GetInferenceScheResult before SetSocInfo"],
    );
    rejects("empty.txt", "", (1, 1), &["end of input", "SetSocInfo"]);
    rejects(
        "blank.txt",
        "\n\n  \n",
        (4, 1),
        &["end of input", "SetSocInfo"],
    );
    // Twice is an error too.
    let t = lines(&[L1, L2, L1, L3, L4]);
    rejects("soc2.txt", &t, (3, 1), &["SetSocInfo appears twice"]);
}

#[test]
fn missing_get_inference_sche_result() {
    let t = lines(&[L1, L2, L3]);
    rejects(
        "nograph.txt",
        &t,
        (4, 1),
        &["end of input", "GetInferenceScheResult"],
    );
    // Cut inside the call: the message says what was expected there.
    let t = format!("{L1}\n{L2}\n{L3}\nGetInferenceScheResult([[1,2]],[[1,1,1],");
    rejects("cut.txt", &t, (4, 41), &["end of input", "the op list"]);
}

#[test]
fn text_after_get_inference_sche_result() {
    let t = lines(&[L1, L2, L3, L4, "AddOpInfo(3,1,0,[],[[1,0,3]],[])"]);
    rejects("after.txt", &t, (5, 1), &["after GetInferenceScheResult"]);
    let t = format!("{L1}\n{L2}\n{L3}\n{L4} x\n");
    rejects(
        "after2.txt",
        &t,
        (4, L4.len() + 2),
        &["after GetInferenceScheResult"],
    );
}

#[test]
fn unknown_call() {
    let t = lines(&[L1, "AddOpInfos(2,1,0,[],[[1,0,3]],[])", L4]);
    rejects("unknown.txt", &t, (2, 1), &["unknown call 'AddOpInfos'"]);
    let t = lines(&["setsocinfo([[0,1]],[])", L2, L3, L4]);
    rejects("lower.txt", &t, (1, 1), &["unknown call 'setsocinfo'"]);
    let t = lines(&[L1, "  42", L4]);
    rejects("number.txt", &t, (2, 3), &["expected a call", "'4'"]);
}

#[test]
fn numbers_too_large() {
    // ExecTime is u64: 2^64 does not fit.
    let l3 = "AddOpInfo(2,1,0,[],[[1,0,18446744073709551616]],[])";
    let t = lines(&[L1, L2, l3, L4]);
    rejects(
        "u64.txt",
        &t,
        at(&t, "18446744073709551616", 0),
        &["ExecTime does not fit in 64 bits"],
    );
    // 2^64 - 1 does.
    let l3 = "AddOpInfo(2,1,0,[],[[1,0,18446744073709551615]],[])";
    let i = parse_reader(lines(&[L1, L2, l3, L4]).as_bytes(), "x").unwrap();
    assert_eq!(i.library.node_dur[2], u64::MAX);
    // MemSize is u64 too.
    let l1 = "SetSocInfo([[0,2],[1,1]],[[0,99999999999999999999]])";
    let t = lines(&[l1, L2, L3, L4]);
    rejects(
        "mem64.txt",
        &t,
        at(&t, "99999999999999999999", 0),
        &["MemSize does not fit in 64 bits"],
    );
    // CoreType, Node, OpId... are u32: 2^32 does not fit.
    let l1 = "SetSocInfo([[4294967296,2],[1,1]],[[0,100]])";
    let t = lines(&[l1, L2, L3, L4]);
    rejects(
        "u32.txt",
        &t,
        at(&t, "4294967296", 0),
        &["CoreType 4294967296 does not fit in 32 bits"],
    );
    let l4 = "GetInferenceScheResult([[1,2]],[[1,1,1],[2,2,1],[4294967297,1,1]])";
    let t = lines(&[L1, L2, L3, l4]);
    rejects(
        "opid.txt",
        &t,
        at(&t, "4294967297", 0),
        &["OpId 4294967297 does not fit in 32 bits"],
    );
    // u32::MAX itself is fine as an op id.
    let l4 = "GetInferenceScheResult([[1,2]],[[1,1,1],[2,2,1],[4294967295,1,1]])";
    parse_reader(lines(&[L1, L2, L3, l4]).as_bytes(), "x").unwrap();
}

#[test]
fn negative_numbers() {
    let l3 = "AddOpInfo(2,1,0,[],[[1,0,-3]],[])";
    let t = lines(&[L1, L2, l3, L4]);
    rejects(
        "neg.txt",
        &t,
        at(&t, "-3", 0),
        &["expected ExecTime", "negative number"],
    );
    let l1 = "SetSocInfo([[0,-2],[1,1]],[[0,100]])";
    let t = lines(&[l1, L2, L3, L4]);
    rejects(
        "neg2.txt",
        &t,
        at(&t, "-2", 0),
        &["CoreNum", "negative number"],
    );
}

#[test]
fn other_syntax_errors() {
    // A run-detail entry with two numbers.
    let l3 = "AddOpInfo(2,1,0,[],[[1,0]],[])";
    let t = lines(&[L1, L2, l3, L4]);
    rejects(
        "short.txt",
        &t,
        at(&t, "]],[])", 0),
        &["expected ','", "3 numbers"],
    );
    // A missing closing parenthesis, at the next line's start.
    let l3 = "AddOpInfo(2,1,0,[],[[1,0,3]],[]";
    let t = lines(&[L1, L2, l3, L4]);
    rejects(
        "paren.txt",
        &t,
        (4, 1),
        &["expected ')'", "AddOpInfo", "'G'"],
    );
    // A letter inside a number.
    let l3 = "AddOpInfo(2,1,0,[],[[1,0,3x]],[])";
    let t = lines(&[L1, L2, l3, L4]);
    rejects("letter.txt", &t, at(&t, "x", 0), &["inside the number"]);
    // A non-ASCII byte where a number belongs.
    let t = format!("{L1}\n{L2}\nAddOpInfo(2,1,0,[],[[1,0,\u{e9}]],[])\n{L4}\n");
    rejects("utf8.txt", &t, at(&t, "\u{e9}", 0), &["byte 0xc3"]);
}

// ---------------------------------------------------------------- unusable tilings: warnings

fn parse_ok(text: &str) -> Instance {
    parse_reader(text.as_bytes(), "w.txt").unwrap_or_else(|e| panic!("{e}"))
}

/// An instance whose op 2 (type 2, shape 1) has tiling 0 as given and, when
/// `with_good`, a usable tiling 1. Platform: core types 0 (2 cores), 1 (1 core),
/// 2 (0 cores); memory 0 of 100.
fn unusable_case(tiling0: &str, with_good: bool) -> String {
    let l1 = "SetSocInfo([[0,2],[1,1],[2,0]],[[0,100]])";
    let good = "AddOpInfo(2,1,1,[],[[1,0,3]],[[1,0,100]])";
    let mut ls = vec![l1, L2, tiling0];
    if with_good {
        ls.push(good);
    }
    ls.push(L4);
    lines(&ls)
}

#[track_caller]
fn assert_unusable(text: &str, check: impl Fn(&Unusable) -> bool) {
    let i = parse_ok(text);
    // Library tilings: op 1's, then op 2's tiling 0 (index 1), then tiling 1.
    let t = &i.library.tilings[1];
    assert_eq!((t.op_type, t.id), (2, 0));
    match &t.usable {
        Err(u) => assert!(check(u), "{u:?}"),
        Ok(()) => panic!("tiling 0 of op type 2 should be unusable"),
    }
    assert!(
        i.warnings
            .iter()
            .any(|w| w.contains("tiling 0 of op type 2") && w.contains("unusable")),
        "{:?}",
        i.warnings
    );
    assert!(i.library.tilings[0].is_usable());
}

/// What an unusable case expects of `Tiling::usable`.
type UnusableCheck = Box<dyn Fn(&Unusable) -> bool>;

#[test]
fn unusable_tilings_are_warnings() {
    let cases: Vec<(&str, &str, UnusableCheck)> = vec![
        (
            "missing core type",
            "AddOpInfo(2,1,0,[],[[1,5,3]],[])",
            Box::new(|u| {
                matches!(
                    u,
                    Unusable::MissingCoreType {
                        node: 1,
                        core_type: 5
                    }
                )
            }),
        ),
        (
            "CoreNum 0",
            "AddOpInfo(2,1,0,[],[[1,2,3]],[])",
            Box::new(|u| {
                matches!(
                    u,
                    Unusable::ZeroCores {
                        node: 1,
                        core_type: 2
                    }
                )
            }),
        ),
        (
            "missing memory type",
            "AddOpInfo(2,1,0,[],[[1,0,3]],[[1,3,10]])",
            Box::new(|u| {
                matches!(
                    u,
                    Unusable::MissingMemType {
                        node: 1,
                        mem_type: 3
                    }
                )
            }),
        ),
        (
            "demand over capacity",
            "AddOpInfo(2,1,0,[],[[1,0,3]],[[1,0,101]])",
            Box::new(|u| {
                matches!(
                    u,
                    Unusable::TooMuchMemory {
                        node: 1,
                        mem_type: 0,
                        demand: 101,
                        size: 100
                    }
                )
            }),
        ),
        (
            "summed entries over capacity",
            "AddOpInfo(2,1,0,[],[[1,0,3]],[[1,0,60],[1,0,41]])",
            Box::new(|u| {
                matches!(
                    u,
                    Unusable::TooMuchMemory {
                        node: 1,
                        demand: 101,
                        ..
                    }
                )
            }),
        ),
        (
            "summed entries beyond u64",
            "AddOpInfo(2,1,0,[],[[1,0,3]],[[1,0,18446744073709551615],[1,0,18446744073709551615]])",
            Box::new(|u| {
                matches!(u, Unusable::TooMuchMemory { demand, .. }
                    if *demand == 2 * u128::from(u64::MAX))
            }),
        ),
    ];
    for (k, (what, tiling0, check)) in cases.iter().enumerate() {
        // With a usable alternative: the instance is fine, the op is feasible.
        let text = unusable_case(tiling0, true);
        assert_unusable(&text, check);
        let i = parse_ok(&text);
        assert!(i.ops_without_usable_tiling().is_empty(), "{what}");
        let p = tmp(&format!("unusable{k}.txt"), text.as_bytes());
        let (code, out, err) = tmin(&["info", p.to_str().unwrap()]);
        assert_eq!(code, 0, "{what}: {err}");
        assert!(!out.contains("infeasible"), "{what}: {out}");

        // Alone: the instance parses but op 2 has no usable tiling.
        let text = unusable_case(tiling0, false);
        assert_unusable(&text, check);
        let i = parse_ok(&text);
        assert_eq!(i.ops_without_usable_tiling(), vec![1], "{what}");
        assert!(
            i.warnings
                .iter()
                .any(|w| w.contains("infeasible") && w.contains("op 2")),
            "{what}: {:?}",
            i.warnings
        );
        let p = tmp(&format!("infeasible{k}.txt"), text.as_bytes());
        let (code, out, err) = tmin(&["info", p.to_str().unwrap()]);
        assert_ne!(code, 2, "{what}: a warning, not an input error: {err}");
        assert!(!err.contains("panicked"), "{err}");
        let line = out
            .lines()
            .find(|l| l.starts_with("infeasible"))
            .unwrap_or_else(|| panic!("{what}: {out}"));
        assert!(line.contains("op 2 (type 2, shape 1)"), "{what}: {line}");
        let (_, out, _) = tmin(&["info", "--json", p.to_str().unwrap()]);
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(v["ops_without_usable_tiling"], serde_json::json!([2]));
        assert_eq!(v["usable_tilings"], 1);
    }
}

#[test]
fn zero_size_entries_do_not_make_a_tiling_unusable() {
    // A 0 entry for a memory type SetSocInfo lacks is ignored (problem.md §6).
    let text = unusable_case("AddOpInfo(2,1,0,[],[[1,0,3]],[[1,7,0]])", false);
    let i = parse_ok(&text);
    assert!(i.library.tilings[1].is_usable());
    assert!(i.warnings.is_empty(), "{:?}", i.warnings);
    assert!(i.library.mems(i.library.tilings[1].first_node).is_empty());
}

// ---------------------------------------------------------------- whitespace

/// A small fixed-seed xorshift generator (no dependency, reproducible).
/// `text` with random whitespace (spaces, tabs, LF, CRLF, blank lines) inserted at
/// every token boundary with probability 1/2, and its own line breaks as CRLF.
fn reformat(text: &str, seed: u64) -> String {
    const WS: [&str; 6] = [" ", "\t", "\n", "\r\n", "  \r\n\r\n\t", "\n\n"];
    let mut rng = Rng(seed);
    let b: Vec<char> = text.chars().collect();
    let mut out = String::from(WS[rng.below(6) as usize]);
    for (k, &c) in b.iter().enumerate() {
        if c == '\n' {
            out.push_str("\r\n");
        } else {
            out.push(c);
        }
        let next = b.get(k + 1).copied().unwrap_or(' ');
        let word = |x: char| x.is_ascii_alphanumeric() || x == '_';
        if !(word(c) && word(next)) && rng.below(2) == 0 {
            out.push_str(WS[rng.below(6) as usize]);
        }
    }
    out.push_str(WS[rng.below(6) as usize]);
    out
}

/// What the parser read, in a comparable form.
fn summary(i: &Instance) -> String {
    let lib = &i.library;
    let mut s = format!(
        "{:?} {:?} ops {:?} edges {:?}\n",
        i.platform.cores, i.platform.mems, i.graph.ops, i.graph.succ
    );
    for (k, t) in lib.tilings.iter().enumerate() {
        s += &format!(
            "tiling {k}: {} {} {} usable {:?}\n",
            t.op_type, t.shape, t.id, t.usable
        );
        for v in t.nodes() {
            s += &format!(
                "  node {} core {} dur {} succ {:?} mem {:?}\n",
                lib.node_id[v as usize],
                lib.node_core[v as usize],
                lib.node_dur[v as usize],
                lib.succs(v),
                lib.mems(v)
            );
        }
    }
    s
}

#[test]
fn whitespace_blank_lines_and_crlf_are_tolerated() {
    let base = parse_ok(EX1);
    // The reformatter must actually change things for the test to mean anything.
    let r = reformat(EX1, 1);
    assert!(r.contains("\r\n") && r.contains('\t') && r.len() > EX1.len() + 50);
    for seed in 1..=20u64 {
        let text = reformat(EX1, seed);
        let i = parse_reader(text.as_bytes(), "ws.txt")
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(summary(&i), summary(&base), "seed {seed}");
        // The same schedule, reformatted too, gets the same verdict: legal at 38.
        let sched = reformat(EX1_SCHED, seed + 1000);
        let rep = check_reader(&i, sched.as_bytes(), "ws.schedule", 20)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{sched}"));
        assert!(rep.is_legal(), "seed {seed}: {:?}", rep.violations.kept);
        assert_eq!(rep.makespan, Some(38));
    }
    // Through the binary once.
    let ip = tmp("ws.txt", reformat(EX1, 77).as_bytes());
    let sp = tmp("ws.schedule", reformat(EX1_SCHED, 78).as_bytes());
    let (code, out, err) = tmin(&["check", ip.to_str().unwrap(), sp.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("legal: makespan 38"), "{out}");
}

#[test]
fn error_lines_count_crlf_once() {
    // With CRLF line ends, the error on the 4th line is still reported on line 4.
    let l4 = "GetInferenceScheResult([[1,2]],[[1,1,1],[2,2,1],[3,2,5]])";
    let t = lines(&[L1, L2, L3, l4]).replace('\n', "\r\n");
    rejects(
        "crlf.txt",
        &t,
        (4, l4.find("[3,2,5]").unwrap() + 1),
        &["op 3"],
    );
}

/// A list where something else stands: located at that token, naming the
/// list it expected (the message is built only on this path), and a list
/// whose entries are not separated.
#[test]
fn a_list_that_does_not_open_or_continue() {
    let l2 = "AddOpInfo(1,1,0,[[1,2]],7,[[1,0,10]])";
    let t = lines(&[L1, l2, L3, L4]);
    rejects(
        "no_list.txt",
        &t,
        at(&t, "7,[[1,0,10]]", 0),
        &["expected '[' to open the run detail", "found '7'"],
    );
    let l2 = "AddOpInfo(1,1,0,[[1,2]],[[1,0,5] [2,1,5]],[[1,0,10]])";
    let t = lines(&[L1, l2, L3, L4]);
    rejects(
        "no_comma.txt",
        &t,
        at(&t, "[2,1,5]", 0),
        &["expected ',' or ']' in the run detail", "found '['"],
    );
}
