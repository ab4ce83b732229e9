//! `tmin score`: the task book's formula on hand-computed cases, T_min and
//! T_max from references, illegal and missing schedules, bad inputs.
//!
//! The task book example (instances/example1.txt): optimum 38 (its critical
//! path bound is 38 too), T_max = 20 + 24 + 9 = 53 (tests/tmax.rs). Shifting
//! every start of its optimal schedule by d keeps it legal (holds shift with
//! the starts) with makespan 38 + d.

use crate::common;
use common::{tmin, tmp_in};

use serde_json::Value;
use tmin::score::score;
use tmin::solve::gap;

const SUITE: &str = "score";
const EX1: &str = "instances/example1.txt";
const EX1_OPT: &str = "instances/example1.schedule.txt";

/// The optimal schedule of example 1 with every start moved `d` later.
fn shifted(d: u64) -> String {
    let rows = [
        (1, 1, 1, 0, 0),
        (1, 1, 2, 5, 0),
        (1, 1, 3, 10, 0),
        (1, 1, 4, 5, 1),
        (2, 0, 1, 15, 0),
        (2, 0, 2, 19, 0),
        (2, 0, 3, 25, 0),
        (2, 0, 4, 19, 1),
        (2, 0, 5, 25, 1),
        (3, 0, 1, 29, 0),
        (3, 0, 2, 33, 0),
        (3, 0, 3, 35, 0),
    ];
    let body: Vec<String> = rows
        .iter()
        .map(|&(o, t, n, s, c)| format!("[{o},{t},{n},{},{c}]", s + d))
        .collect();
    format!("[{}]", body.join(","))
}

fn sched(name: &str, d: u64) -> String {
    tmp_in(SUITE, name, shifted(d).as_bytes())
        .display()
        .to_string()
}

/// One chain of two nodes on one core: T_min = T_max = 7.
const CHAIN: &str = "SetSocInfo([[0,1]],[[0,100]])\n\
AddOpInfo(1,1,0,[[1,2]],[[1,0,3],[2,0,4]],[[1,0,10],[2,0,10]])\n\
GetInferenceScheResult([],[[1,1,1]])\n";

fn json(out: &str) -> Vec<Value> {
    serde_json::from_str::<Value>(out)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
        .as_array()
        .expect("a JSON list")
        .clone()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn formula_by_hand() {
    // 100 * (53 - 41) / (53 - 38) = 80.
    assert!(close(score(41, 38, 53, 0.0, 100.0), 80.0));
    // 10 + 40 * 12/15 = 42.
    assert!(close(score(41, 38, 53, 10.0, 50.0), 42.0));
    assert_eq!(score(38, 38, 53, 0.0, 100.0), 100.0);
    assert_eq!(score(30, 38, 53, 0.0, 100.0), 100.0);
    assert_eq!(score(53, 38, 53, 0.0, 100.0), 0.0);
    assert_eq!(score(90, 38, 53, 5.0, 100.0), 5.0);
    // T_max == T_min: T at T_min is S_max, above it S_base; no division by zero.
    assert_eq!(score(7, 7, 7, 0.0, 100.0), 100.0);
    assert_eq!(score(8, 7, 7, 0.0, 100.0), 0.0);
    assert!(close(gap(40, 30), 0.25));
    assert_eq!(gap(30, 30), 0.0);
}

#[test]
fn cli_scores_legal_schedules_by_the_formula() {
    let s41 = sched("ex1-plus3.schedule", 3);
    let s53 = sched("ex1-plus15.schedule", 15);
    let s60 = sched("ex1-plus22.schedule", 22);
    let (code, out, err) = tmin(&["score", EX1, EX1_OPT, &s41, &s53, &s60, "--json"]);
    assert_eq!(code, 0, "{err}");
    let rows = json(&out);
    assert_eq!(rows.len(), 4);
    let want = [(38, 100.0), (41, 80.0), (53, 0.0), (60, 0.0)];
    for (r, (ms, sc)) in rows.iter().zip(want) {
        assert_eq!(r["makespan"], ms);
        assert_eq!(r["legal"], true);
        assert!(close(r["score"].as_f64().unwrap(), sc), "{r}");
        assert_eq!(r["t_min"], 38);
        assert_eq!(r["t_max"], 53);
        for key in [
            "instance",
            "schedule",
            "legal",
            "makespan",
            "t_min",
            "t_min_kind",
            "t_max",
            "score",
            "violations",
        ] {
            assert!(r.get(key).is_some(), "key {key} missing in {r}");
        }
    }
    // The optimum meets the computed bound, which proves it optimal.
    assert_eq!(rows[0]["t_min_kind"], "optimal");
    assert_eq!(rows[1]["t_min_kind"], "bound");
    // --s-base/--s-max and --t-max.
    let (code, out, _) = tmin(&[
        "score", EX1, &s41, "--s-base", "10", "--s-max", "50", "--json",
    ]);
    assert_eq!(code, 0);
    assert!(close(json(&out)[0]["score"].as_f64().unwrap(), 42.0));
    let (code, out, _) = tmin(&["score", EX1, &s41, "--t-max", "44", "--json"]);
    assert_eq!(code, 0);
    let r = &json(&out)[0];
    assert_eq!(r["t_max"], 44);
    assert!(close(r["score"].as_f64().unwrap(), 50.0)); // 100 * 3/6
}

/// Example 1 with op 1 in its chain tiling 0 (critical path 20, where
/// tiling 1's is 15): the critical path of that choice is 20 + 14 + 9 = 43,
/// and this schedule meets it.
const EX1_CHAIN_TILING: &str = "[[1,0,1,0,0],[1,0,2,5,0],[1,0,3,15,0],\
[2,0,1,20,0],[2,0,2,24,0],[2,0,3,30,0],[2,0,4,24,1],[2,0,5,30,1],\
[3,0,1,34,0],[3,0,2,38,0],[3,0,3,40,0]]";

#[test]
fn the_bound_for_a_schedules_own_tilings_splits_its_gap() {
    // Tiling 0 for op 1: its tilings' bound is their critical path, 43,
    // above T_min = 38, so the whole gap 5/43 is the tilings' and the order
    // loses nothing. Tiling 1 shifted by 3: its tilings' own bound is 38 =
    // T_min, so the order may lose all of 3/41.
    let chain = tmp_in(SUITE, "ex1-chain.schedule", EX1_CHAIN_TILING.as_bytes());
    let chain = chain.display().to_string();
    let s41 = sched("ex1-order-plus3.schedule", 3);
    let (code, out, err) = tmin(&["score", EX1, &chain, &s41, "--json"]);
    assert_eq!(code, 0, "{err}");
    let rows = json(&out);
    assert_eq!(rows[0]["makespan"], 43);
    assert_eq!(rows[0]["t_min"], 38);
    assert_eq!(rows[0]["tilings_bound"], 43);
    assert_eq!(rows[0]["tilings_bound_source"], "critical path");
    assert!(close(rows[0]["gap"].as_f64().unwrap(), 5.0 / 43.0));
    assert!(close(rows[0]["order_gap"].as_f64().unwrap(), 0.0));
    assert_eq!(rows[1]["tilings_bound"], 38);
    assert_eq!(rows[1]["tilings_bound_source"], "T_min");
    assert!(close(rows[1]["order_gap"].as_f64().unwrap(), 3.0 / 41.0));
    // An illegal schedule has none.
    let late = shifted(0).replace("[1,1,1,0,0]", "[1,1,1,1,0]");
    let late = tmp_in(SUITE, "ex1-late.schedule", late.as_bytes());
    let (code, out, _) = tmin(&["score", EX1, &late.display().to_string(), "--json"]);
    assert_eq!(code, 1);
    assert!(json(&out)[0]["tilings_bound"].is_null());
    // The text and CSV forms carry the same values.
    let (code, out, _) = tmin(&["score", EX1, &chain, "--csv"]);
    assert_eq!(code, 0);
    let mut lines = out.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |k: &str| row[head.iter().position(|h| *h == k).unwrap()];
    assert_eq!(col("tilings_bound"), "43");
    assert_eq!(col("order_gap"), "0.000000");
    let (code, out, _) = tmin(&["score", EX1, &s41]);
    assert_eq!(code, 0);
    let line = out.lines().nth(1).unwrap();
    assert!(line.contains(" 38 ") && line.contains("7.32%"), "{out}");
    // The ranking gives each heuristic's mean order gap beside its mean gap.
    let (code, out, _) = tmin(&["score", EX1, &chain]);
    assert_eq!(code, 0);
    assert!(out.contains("mean gap 11.63% (order gap 0.00%)"), "{out}");
}

#[test]
fn single_chain_t_min_equals_t_max() {
    let inst = tmp_in(SUITE, "chain.txt", CHAIN.as_bytes());
    let inst = inst.to_str().unwrap();
    let s = tmp_in(SUITE, "chain-opt.schedule", b"[[1,0,1,0,0],[1,0,2,3,0]]");
    let late = tmp_in(SUITE, "chain-late.schedule", b"[[1,0,1,1,0],[1,0,2,4,0]]");
    let (code, out, err) = tmin(&[
        "score",
        inst,
        s.to_str().unwrap(),
        late.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let rows = json(&out);
    assert_eq!(rows[0]["t_min"], 7);
    assert_eq!(rows[0]["t_max"], 7);
    assert_eq!(rows[0]["score"].as_f64(), Some(100.0));
    assert_eq!(rows[1]["makespan"], 8);
    assert_eq!(rows[1]["score"].as_f64(), Some(0.0));
}

#[test]
fn illegal_schedule_scores_s_base_with_violations() {
    // Op 1 node 2 starts at 3, before node 1 ends at 5.
    let bad = shifted(0).replacen("[1,1,2,5,0]", "[1,1,2,3,0]", 1);
    let bad = tmp_in(SUITE, "ex1-bad.schedule", bad.as_bytes());
    let bad = bad.to_str().unwrap();
    let (code, out, _) = tmin(&["score", EX1, bad, "--s-base", "7", "--json"]);
    assert_eq!(code, 1, "an illegal schedule is a negative verdict");
    let r = &json(&out)[0];
    assert_eq!(r["legal"], false);
    assert_eq!(r["score"].as_f64(), Some(7.0));
    assert_eq!(r["makespan"], Value::Null);
    let v = r["violations"].as_array().unwrap();
    assert!(!v.is_empty());
    assert!(v[0].as_str().unwrap().contains("precedence"), "{v:?}");
    // The text lists the violation under the schedule.
    let (code, out, _) = tmin(&["score", EX1, bad]);
    assert_eq!(code, 1);
    assert!(
        out.contains("ILLEGAL") && out.contains("[precedence]"),
        "{out}"
    );
}

fn base_dir() -> std::path::PathBuf {
    let d = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(SUITE);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A bench folder by hand: example 1 feasible at 40 with bound 36, T_max 60,
/// and a torn last line.
fn bench_dir(name: &str, lines: &[&str], torn: &str) -> String {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(SUITE)
        .join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let mut text = lines.join("\n");
    text.push('\n');
    text.push_str(torn);
    std::fs::write(dir.join("results.jsonl"), text).unwrap();
    dir.display().to_string()
}

fn bench_line(instance: &str, status: &str, makespan: u64, lb: u64, t_max: u64) -> String {
    format!(
        "{{\"instance\":\"{instance}\",\"hash\":\"x\",\"ops\":null,\"nodes_min\":1,\"nodes_max\":1,\
         \"engine\":\"auto\",\"time_limit\":5,\"seed\":1,\"status\":\"{status}\",\"makespan\":{makespan},\
         \"lower_bound\":{lb},\"bound_source\":\"b\",\"gap\":0.1,\"t_max\":{t_max},\"wall_seconds\":0.5,\
         \"version\":\"0.1.0\"}}"
    )
}

#[test]
fn reference_from_a_bench_folder_and_from_a_csv() {
    let l = bench_line(EX1, "feasible", 40, 36, 60);
    let dir = bench_dir("bench-ref", &[&l], "{\"instance\":\"instances/exam");
    let s41 = sched("ex1-plus3-ref.schedule", 3);
    let (code, out, err) = tmin(&["score", EX1, &s41, "--reference", &dir, "--json"]);
    assert_eq!(code, 0, "{err}");
    let r = &json(&out)[0];
    // The reference's bound 36 is below the computed 38: the best bound wins.
    assert_eq!(r["t_min"], 38);
    assert_eq!(r["t_min_kind"], "bound");
    assert!(
        r["t_min_source"].as_str().unwrap().contains("computed"),
        "{r}"
    );
    assert_eq!(r["t_max"], 60);
    assert_eq!(r["t_max_source"], "reference");
    // 100 * (60 - 41) / (60 - 38)
    assert!(close(r["score"].as_f64().unwrap(), 100.0 * 19.0 / 22.0));
    assert!(close(r["gap"].as_f64().unwrap(), 3.0 / 41.0));

    // orb01: optimum 1059, and the bounds tmin computes in a second stay
    // below it (the window net reaches about 1020). A reference bound at the
    // optimum is stronger and is used; a weak one (900) gives way to ours.
    let orb01 = base_dir().join("orb01.txt");
    let (code, _, err) = tmin(&[
        "import",
        "jsp",
        "tests/data/jsplib/orb01",
        "-o",
        orb01.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let orb01_s = base_dir().join("orb01.schedule");
    let (code, _, err) = tmin(&[
        "solve",
        orb01.to_str().unwrap(),
        "--engine",
        "greedy",
        "-o",
        orb01_s.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    for (bound, source) in [(1059u64, "reference"), (900, "computed")] {
        let csv = tmp_in(
            SUITE,
            "orb01-ref.csv",
            format!("instance,t_min\norb01.txt,{bound}\n").as_bytes(),
        );
        let (code, out, err) = tmin(&[
            "score",
            orb01.to_str().unwrap(),
            orb01_s.to_str().unwrap(),
            "--reference",
            csv.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(code, 0, "{err}");
        let r = &json(&out)[0];
        let t_min = r["t_min"].as_u64().unwrap();
        assert!(
            r["t_min_source"].as_str().unwrap().starts_with(source),
            "{r}"
        );
        if source == "reference" {
            assert_eq!(t_min, bound);
        } else {
            assert!(t_min > bound && t_min < 1059, "{r}");
        }
        let (mk, t_max) = (
            r["makespan"].as_f64().unwrap(),
            r["t_max"].as_f64().unwrap(),
        );
        let want = 100.0 * (t_max - mk) / (t_max - t_min as f64);
        assert!(close(r["score"].as_f64().unwrap(), want), "{r}");
    }

    let csv = tmp_in(
        SUITE,
        "ref.csv",
        b"instance,t_min,t_min_kind,t_max\nexample1,38,optimal,50\nother,5,bound,\n",
    );
    let (code, out, err) = tmin(&[
        "score",
        EX1,
        &s41,
        "--reference",
        csv.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let r = &json(&out)[0];
    assert_eq!(r["t_min"], 38);
    assert_eq!(r["t_min_kind"], "optimal");
    assert_eq!(r["t_max"], 50);
    assert!(close(r["score"].as_f64().unwrap(), 75.0)); // 100 * 9/12

    // A legal schedule below a reference's T_min: the reference is wrong.
    let wrong = tmp_in(
        SUITE,
        "wrong.csv",
        b"instance,t_min,t_min_kind\nexample1,40,optimal\n",
    );
    let (code, _, err) = tmin(&[
        "score",
        EX1,
        EX1_OPT,
        "--reference",
        wrong.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("not a lower bound") && err.contains("wrong.csv:2"),
        "{err}"
    );

    // A bad line in the middle of results.jsonl is an error with its line.
    let dir = bench_dir("bench-bad", &["{not json", &l], "");
    let (code, _, err) = tmin(&["score", EX1, &s41, "--reference", &dir]);
    assert_eq!(code, 2);
    assert!(err.contains("results.jsonl:1:"), "{err}");
}

#[test]
fn many_heuristics_with_a_missing_schedule() {
    let chain = tmp_in(SUITE, "chain2.txt", CHAIN.as_bytes());
    let l1 = bench_line(EX1, "optimal", 38, 38, 53);
    let l2 = bench_line(chain.to_str().unwrap(), "optimal", 7, 7, 7);
    let refdir = bench_dir("bench-many", &[&l1, &l2], "");
    let base = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(SUITE);
    let (ha, hb) = (base.join("heur-a"), base.join("heur-b"));
    for h in [&ha, &hb] {
        std::fs::create_dir_all(h).unwrap();
    }
    std::fs::write(ha.join("example1.schedule"), shifted(0)).unwrap();
    std::fs::write(ha.join("chain2.schedule"), "[[1,0,1,0,0],[1,0,2,3,0]]").unwrap();
    std::fs::write(hb.join("example1.schedule"), shifted(3)).unwrap();
    let _ = std::fs::remove_file(hb.join("chain2.schedule"));
    let (ha, hb) = (ha.to_str().unwrap(), hb.to_str().unwrap());
    let (code, out, err) = tmin(&[
        "score",
        "--reference",
        &refdir,
        "--schedules",
        hb,
        ha,
        "--json",
    ]);
    assert_eq!(code, 1, "a missing schedule is a negative verdict: {err}");
    let rows = json(&out);
    assert_eq!(rows.len(), 4);
    let find = |h: &str, inst: &str| {
        rows.iter()
            .find(|r| r["heuristic"] == h && r["instance"].as_str().unwrap().contains(inst))
            .unwrap_or_else(|| panic!("no row {h} {inst}"))
            .clone()
    };
    assert_eq!(find("heur-a", "example1")["score"].as_f64(), Some(100.0));
    assert_eq!(find("heur-a", "chain2")["score"].as_f64(), Some(100.0));
    assert!(close(
        find("heur-b", "example1")["score"].as_f64().unwrap(),
        80.0
    ));
    let miss = find("heur-b", "chain2");
    assert_eq!(miss["score"].as_f64(), Some(0.0));
    assert_eq!(miss["missing"], true);
    assert_eq!(miss["schedule"], Value::Null);
    // Text: heur-a ranks first with 200, heur-b second with 80, one missing.
    let (_, out, _) = tmin(&["score", "--reference", &refdir, "--schedules", hb, ha]);
    let a = out.find("1. heur-a  200.00").expect(&out);
    let b = out.find("2. heur-b  80.00").expect(&out);
    assert!(a < b);
    assert!(out.contains("1 missing"), "{out}");
    // CSV: a header and one line per schedule.
    let (_, out, _) = tmin(&[
        "score",
        "--reference",
        &refdir,
        "--schedules",
        hb,
        ha,
        "--csv",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5);
    assert!(lines[0].starts_with("heuristic,instance,schedule,legal,makespan,t_min"));
}

#[test]
fn bad_inputs_are_clear_errors() {
    // A schedule file that does not exist.
    let (code, _, err) = tmin(&["score", EX1, "no/such.schedule"]);
    assert_eq!(code, 2);
    assert!(err.contains("no/such.schedule"), "{err}");
    // An instance that does not exist.
    let (code, _, err) = tmin(&["score", "no/such.txt", EX1_OPT]);
    assert_eq!(code, 2);
    assert!(err.contains("no/such.txt"), "{err}");
    // The schedule of another instance (ft06's optimum against example 1).
    let (code, out, _) = tmin(&["score", EX1, "tests/data/ft06.opt55.schedule"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("ILLEGAL") && out.contains("is this a schedule of"),
        "{out}"
    );
    // A folder that is not a bench folder.
    let (code, _, err) = tmin(&["score", EX1, EX1_OPT, "--reference", "instances"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a bench folder"), "{err}");
    // --schedules without --reference, and no schedule at all.
    let (code, _, _) = tmin(&["score", "--schedules", "instances"]);
    assert_eq!(code, 2);
    let (code, _, err) = tmin(&["score", EX1]);
    assert_eq!(code, 2);
    assert!(err.contains("no SCHEDULE"), "{err}");
    // A CSV without a t_min column, and a bad number in one.
    let csv = tmp_in(SUITE, "bad1.csv", b"instance,foo\nexample1,3\n");
    let (code, _, err) = tmin(&["score", EX1, EX1_OPT, "--reference", csv.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("t_min"), "{err}");
    // Two different instances of one file name (their hashes differ).
    let l1 = bench_line(EX1, "optimal", 38, 38, 53);
    let l2 = bench_line("elsewhere/example1.txt", "optimal", 40, 40, 53).replace("\"x\"", "\"y\"");
    let dir = bench_dir("bench-clash", &[&l1, &l2], "");
    let (code, _, err) = tmin(&["score", EX1, EX1_OPT, "--reference", &dir]);
    assert_eq!(code, 2);
    assert!(
        err.contains("two different instances are named example1"),
        "{err}"
    );
    // The same content under another path (a moved file) merges.
    let l3 = bench_line("moved/example1.txt", "feasible", 40, 37, 53);
    let dir = bench_dir("bench-moved", &[&l1, &l3], "");
    let (code, out, err) = tmin(&["score", EX1, EX1_OPT, "--reference", &dir, "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)[0]["t_min"], 38);
    let csv = tmp_in(SUITE, "bad2.csv", b"instance,t_min\nexample1,3.5\n");
    let (code, _, err) = tmin(&["score", EX1, EX1_OPT, "--reference", csv.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad2.csv:2"), "{err}");
}

/// A bench folder of job shops (`--format jsp`) is a reference like any
/// other: score reads each instance in the format its bench line names.
#[test]
fn a_bench_folder_of_job_shops_is_a_reference() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("score-jsp");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("run");
    let ft06 = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/jsplib/ft06");
    let (code, _, err) = tmin(&[
        "bench",
        ft06,
        "--format",
        "jsp",
        "--out",
        out.to_str().unwrap(),
        "--time-limit",
        "10",
        "--jobs",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    let schedules = out.join("schedules");
    let (code, stdout, err) = tmin(&[
        "score",
        "--reference",
        out.to_str().unwrap(),
        "--schedules",
        schedules.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let row = &v.as_array().unwrap()[0];
    assert!(
        row["instance"].as_str().unwrap().ends_with("jsplib/ft06"),
        "{row}"
    );
    assert_eq!(row["legal"], true);
    // ft06's optimum is 55; the bench proves it in well under 10 s.
    assert_eq!(row["t_min"], 55);
    assert_eq!(row["t_min_kind"], "optimal");
    assert_eq!(row["makespan"], 55);
}
