//! `tmin bench` and `tmin bench merge`: resume after a kill, shards merged
//! equal one run, moved files skipped, corrupted schedules redone, runs that
//! disagree, bad arguments. Tiny instances; the tests run one at a time (the
//! machine has two cores and each bench runs up to two solves).

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;
use tmin::digest::sha256_hex;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("bench")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `tmin gen` instances in `dir`: (seed, ops) each.
fn gen_set(dir: &Path, specs: &[(u64, u32)]) {
    std::fs::create_dir_all(dir).unwrap();
    for &(seed, ops) in specs {
        let out = dir.join(format!("g{seed}.txt"));
        let (code, _, err) = common::tmin(&[
            "gen",
            "--seed",
            &seed.to_string(),
            "--ops",
            &ops.to_string(),
            "-o",
            s(&out),
        ]);
        assert_eq!(code, 0, "{err}");
    }
}

/// Runs `tmin bench` with the solve log on: (exit code, stdout, stderr,
/// number of instances it solved).
fn bench(args: &[&str]) -> (i32, String, String, usize) {
    let mut all = vec!["bench"];
    all.extend_from_slice(args);
    let (code, out, err) = common::tmin_env(&all, &[("RUST_LOG", "tmin::bench=debug")]);
    let solved = err.lines().filter(|l| l.contains("] solving ")).count();
    (code, out, err, solved)
}

/// The complete lines of a folder's results.jsonl.
fn lines(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("results.jsonl")).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
}

/// Per content hash: (status, lower bound, makespan).
fn table(dir: &Path) -> BTreeMap<String, (String, u64, Option<u64>)> {
    lines(dir)
        .iter()
        .map(|v| {
            (
                v["hash"].as_str().unwrap().to_string(),
                (
                    v["status"].as_str().unwrap().to_string(),
                    v["lower_bound"].as_u64().unwrap(),
                    v["makespan"].as_u64(),
                ),
            )
        })
        .collect()
}

/// Every schedule of a folder passes `tmin check` with the makespan its line says.
fn assert_schedules_legal(dir: &Path) {
    for v in lines(dir) {
        let Some(rel) = v["schedule"].as_str() else {
            continue;
        };
        let mut inst = PathBuf::from(v["instance"].as_str().unwrap());
        if v["format"] == "jsp" {
            let imported = dir.join("imported.txt");
            let (code, _, err) = common::tmin(&["import", "jsp", s(&inst), "-o", s(&imported)]);
            assert_eq!(code, 0, "{err}");
            inst = imported;
        }
        let (code, out, err) = common::tmin(&["check", s(&inst), s(&dir.join(rel)), "--json"]);
        assert_eq!(code, 0, "{rel}: {out} {err}");
        let c: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(c["makespan"], v["makespan"], "{rel}");
    }
}

#[test]
fn resume_after_sigkill_solves_each_instance_once() {
    let _g = serial();
    let d = scratch("resume");
    let set = d.join("set");
    // Instances where list scheduling leaves a gap run to the limit: the run
    // takes seconds, so the kill lands mid-run.
    let specs: Vec<(u64, u32)> = (2..10).map(|s| (s, 40)).collect();
    gen_set(&set, &specs);
    let out = d.join("out");
    let args = [
        "bench",
        s(&set),
        "--out",
        s(&out),
        "--engine",
        "list",
        "--time-limit",
        "0.6",
        "--jobs",
        "1",
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_tmin"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    // Kill once the first line is there.
    while lines(&out).is_empty() {
        assert!(t0.elapsed() < Duration::from_secs(20), "no line after 20 s");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it could be killed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // A second run into the same folder meanwhile is refused (the lock).
    let (code, _, err, solved) = bench(&args[1..]);
    assert_eq!((code, solved), (2, 0), "{err}");
    assert!(err.contains("another tmin bench is writing"), "{err}");
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run ended before it could be killed"
    );
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let before = lines(&out);
    assert!(
        !before.is_empty() && before.len() < specs.len(),
        "killed mid-run: {} of {} lines",
        before.len(),
        specs.len()
    );
    // A torn line, as a crash in the middle of a write leaves it.
    let jsonl = out.join("results.jsonl");
    let mut text = std::fs::read_to_string(&jsonl).unwrap();
    let first = text.lines().next().unwrap().to_string();
    text.push_str(&first[..first.len() / 2]);
    std::fs::write(&jsonl, text).unwrap();

    // And a temporary schedule file, as a kill during its write leaves it.
    let stale = out.join("schedules/.g9.schedule.tmp-1-0");
    std::fs::write(&stale, "[[1,0,1,").unwrap();

    let (code, _, err, solved) = bench(&args[1..]);
    assert_eq!(code, 0, "{err}");
    assert!(!stale.exists(), "stale temporary removed");
    assert_eq!(
        solved,
        specs.len() - before.len(),
        "only the instances without a complete line are solved: {err}"
    );
    assert!(
        err.contains("torn or not JSON"),
        "the torn line is named: {err}"
    );
    let after = lines(&out);
    assert_eq!(after.len(), specs.len(), "one line per instance");
    let hashes: BTreeSet<&str> = after.iter().map(|v| v["hash"].as_str().unwrap()).collect();
    assert_eq!(hashes.len(), specs.len(), "every instance once");
    // The lines from before the kill are kept as they were.
    for b in &before {
        assert!(after.contains(b), "kept: {b}");
    }
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert_eq!(csv.lines().count(), specs.len() + 1);
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    for (seed, _) in &specs {
        assert_eq!(
            summary.matches(&format!("| g{seed} |")).count(),
            1,
            "{summary}"
        );
    }
    assert_schedules_legal(&out);
    // Once more: nothing left to do.
    let (code, _, err, solved) = bench(&args[1..]);
    assert_eq!((code, solved), (0, 0), "{err}");
}

#[test]
fn two_shards_merged_equal_one_run() {
    let _g = serial();
    let d = scratch("shards");
    let set = d.join("set");
    gen_set(&set, &[(1, 6), (2, 6), (3, 8), (4, 8), (5, 10)]);
    // A job shop through a list file, too.
    let list = d.join("list");
    std::fs::write(
        &list,
        format!(
            "# one path a line\n{}\n",
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/data/jsplib/ft06")
                .display()
        ),
    )
    .unwrap();
    let common_args = ["--time-limit", "3", "--jobs", "2"];
    let run = |out: &Path, extra: &[&str]| {
        let mut a = vec![s(&set), "--out", s(out)];
        a.extend_from_slice(&common_args);
        a.extend_from_slice(extra);
        let (code, _, err, _) = bench(&a);
        assert_eq!(code, 0, "{err}");
        let mut a = vec![s(&list), "--format", "jsp", "--out"];
        let jsp_out = out.with_extension("jsp");
        a.push(s(&jsp_out));
        a.extend_from_slice(&common_args);
        a.extend_from_slice(extra);
        let (code, _, err, _) = bench(&a);
        assert_eq!(code, 0, "{err}");
    };
    let whole = d.join("whole");
    run(&whole, &[]);
    let (k1, k2) = (d.join("k1"), d.join("k2"));
    run(&k1, &["--shard", "1/2"]);
    run(&k2, &["--shard", "2/2"]);
    let ft06 = lines(&whole.with_extension("jsp"));
    assert_eq!(ft06.len(), 1);
    assert_eq!(ft06[0]["status"], "optimal");
    assert_eq!(ft06[0]["makespan"], 55);

    // The shards are disjoint and cover the set.
    let (t1, t2) = (table(&k1), table(&k2));
    assert!(!t1.is_empty() && !t2.is_empty());
    assert!(t1.keys().all(|h| !t2.contains_key(h)));
    assert_eq!(t1.len() + t2.len(), 5);

    let merged = d.join("merged");
    let (code, out, err) = common::tmin(&[
        "bench",
        "merge",
        s(&k1),
        s(&k2),
        s(&k1.with_extension("jsp")),
        s(&k2.with_extension("jsp")),
        "--out",
        s(&merged),
    ]);
    assert_eq!(code, 0, "{out} {err}");
    let one = d.join("one");
    let (code, _, err) = common::tmin(&[
        "bench",
        "merge",
        s(&whole),
        s(&whole.with_extension("jsp")),
        "--out",
        s(&one),
    ]);
    assert_eq!(code, 0, "{err}");
    let (tm, tw) = (table(&merged), table(&one));
    assert_eq!(tm.len(), 6);
    assert_eq!(tm.keys().collect::<Vec<_>>(), tw.keys().collect::<Vec<_>>());
    for (h, w) in &tw {
        let m = &tm[h];
        assert_eq!(m.0, w.0, "status of {h}");
        if w.0 == "optimal" {
            assert_eq!(m, w, "proven results agree for {h}");
        }
    }
    assert!(tw.values().filter(|w| w.0 == "optimal").count() >= 4);
    assert_schedules_legal(&merged);
}

#[test]
fn a_moved_file_is_skipped_and_a_corrupted_schedule_redone() {
    let _g = serial();
    let d = scratch("moved");
    let set = d.join("set");
    gen_set(&set, &[(11, 6), (12, 6), (13, 6)]);
    let out = d.join("out");
    let args = |dir: &Path| {
        vec![
            s(dir).to_string(),
            "--out".into(),
            s(&out).to_string(),
            "--time-limit".into(),
            "2".into(),
            "--jobs".into(),
            "1".into(),
        ]
    };
    let run = |dir: &Path| {
        let a = args(dir);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        bench(&a)
    };
    let (code, _, err, solved) = run(&set);
    assert_eq!((code, solved), (0, 3), "{err}");
    let first = table(&out);

    // Moved: the same content elsewhere is not solved again; the line follows it.
    let moved = d.join("moved-set");
    std::fs::rename(&set, &moved).unwrap();
    let (code, _, err, solved) = run(&moved);
    assert_eq!((code, solved), (0, 0), "{err}");
    assert_eq!(table(&out), first);
    assert!(
        lines(&out)
            .iter()
            .all(|v| v["instance"].as_str().unwrap().contains("moved-set"))
    );

    // A schedule cut in half is not trusted: that instance alone is redone.
    let sched = out.join("schedules/g12.schedule");
    let text = std::fs::read_to_string(&sched).unwrap();
    std::fs::write(&sched, &text[..text.len() / 2]).unwrap();
    let (code, _, err, solved) = run(&moved);
    assert_eq!((code, solved), (0, 1), "{err}");
    assert!(
        err.contains("g12.schedule does not match its line"),
        "{err}"
    );
    assert!(err.contains("solving") && err.contains("g12.txt"), "{err}");
    assert_eq!(table(&out), first);
    assert_schedules_legal(&out);

    // A missing schedule too.
    std::fs::remove_file(out.join("schedules/g11.schedule")).unwrap();
    let (code, _, err, solved) = run(&moved);
    assert_eq!((code, solved), (0, 1), "{err}");
    assert_schedules_legal(&out);
}

#[test]
fn merge_refuses_a_bound_above_a_legal_schedule() {
    let _g = serial();
    let d = scratch("disagree");
    let set = d.join("set");
    gen_set(&set, &[(21, 6)]);
    let a = d.join("a");
    let (code, _, err, _) = bench(&[s(&set), "--out", s(&a), "--time-limit", "2"]);
    assert_eq!(code, 0, "{err}");
    let line = lines(&a).remove(0);
    let m = line["makespan"].as_u64().unwrap();
    // Run b claims a bound above a's legal makespan (as a buggy engine would).
    let b = d.join("b");
    std::fs::create_dir_all(b.join("schedules")).unwrap();
    let mut bad = line.clone();
    bad["status"] = "unknown".into();
    bad["makespan"] = Value::Null;
    bad["gap"] = Value::Null;
    bad["schedule"] = Value::Null;
    bad["schedule_hash"] = Value::Null;
    bad["lower_bound"] = (m + 5).into();
    std::fs::write(b.join("results.jsonl"), format!("{bad}\n")).unwrap();
    let merged = d.join("m");
    let (code, _, err) = common::tmin(&["bench", "merge", s(&a), s(&b), "--out", s(&merged)]);
    assert_eq!(code, 70, "{err}");
    assert!(
        err.contains(s(&a)) && err.contains(s(&b)) && err.contains(&format!("{}", m + 5)),
        "both runs named: {err}"
    );
    // What is written keeps only bounds that are bounds.
    let v = lines(&merged).remove(0);
    assert_eq!(v["makespan"].as_u64(), Some(m));
    assert!(v["lower_bound"].as_u64().unwrap() <= m);
    assert!(v["disagreement"].is_string());
    let summary = std::fs::read_to_string(merged.join("summary.md")).unwrap();
    assert!(summary.contains("Disagreement"), "{summary}");

    // Two proofs of optimality for different makespans: run c claims its
    // schedule (a's, every start one later: still legal) optimal at m + 1.
    assert_eq!(line["status"], "optimal", "seed 21 is proven in 2 s");
    let c = d.join("c");
    std::fs::create_dir_all(c.join("schedules")).unwrap();
    let rows: Value = serde_json::from_str(
        &std::fs::read_to_string(a.join(line["schedule"].as_str().unwrap())).unwrap(),
    )
    .unwrap();
    let shifted: Vec<Value> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r[3] = (r[3].as_u64().unwrap() + 1).into();
            r
        })
        .collect();
    let text = format!("{}\n", Value::from(shifted));
    std::fs::write(c.join("schedules/g21.schedule"), &text).unwrap();
    let mut other = line.clone();
    other["makespan"] = (m + 1).into();
    other["lower_bound"] = (m + 1).into();
    other["schedule_hash"] = sha256_hex(text.as_bytes()).into();
    std::fs::write(c.join("results.jsonl"), format!("{other}\n")).unwrap();
    let (code, _, err) = common::tmin(&["bench", "merge", s(&a), s(&c), "--out", s(&d.join("m2"))]);
    assert_eq!(code, 70, "{err}");
    assert!(err.contains(&format!("optimal {m} in {}", s(&a))), "{err}");
    assert!(
        err.contains(&format!("optimal {} in {}", m + 1, s(&c))),
        "{err}"
    );

    // The instance file gone: said so, the schedule is left out.
    std::fs::remove_dir_all(&set).unwrap();
    let (code, _, err) = common::tmin(&["bench", "merge", s(&a), "--out", s(&d.join("m3"))]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("the instance file is gone"), "{err}");
    let v = lines(&d.join("m3")).remove(0);
    assert_eq!(v["status"], "unknown");
    assert_eq!(v["lower_bound"], line["lower_bound"]);
}

#[test]
fn bad_arguments_are_named_never_a_panic() {
    let _g = serial();
    let d = scratch("badargs");
    let set = d.join("set");
    gen_set(&set, &[(31, 4)]);
    let empty = d.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = d.join("out");
    let (no_parent, missing) = (d.join("no/such/dir"), d.join("missing.txt"));
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![s(&set), "--out", s(&out), "--shard", "3/2"],
            "--shard expects K/N",
        ),
        (
            vec![s(&set), "--out", s(&out), "--shard", "0/2"],
            "--shard expects K/N",
        ),
        (
            vec![s(&set), "--out", s(&out), "--shard", "x"],
            "--shard expects K/N",
        ),
        (vec![s(&set), "--out", s(&no_parent)], "does not exist"),
        (vec![s(&empty), "--out", s(&out)], "no instances found"),
        (vec!["--out", s(&out)], "INSTANCES"),
        (
            vec![s(&missing), "--out", s(&out)],
            "no such file or folder",
        ),
        (vec![s(&set), "--out", s(&out), "--jobs", "0"], "--jobs"),
        (
            vec![s(&set), "--out", s(&out), "--time-limit=-1"],
            "--time-limit",
        ),
    ];
    for (args, want) in cases {
        let (code, _, err, solved) = bench(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panic") && !err.contains("internal"), "{err}");
        assert_eq!(solved, 0);
    }
    // An unreadable instance is named with its line; the others are done.
    let broken = set.join("broken.txt");
    std::fs::write(&broken, "SetSocInfo([[0,1]],[])\nAddOpInfo(oops)\n").unwrap();
    let (code, _, err, _) = bench(&[s(&set), "--out", s(&out), "--time-limit", "1"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("broken.txt:2:"), "{err}");
    assert_eq!(lines(&out).len(), 1);
    // Other settings in the same folder: refused, with the way out.
    let (code, _, err, _) = bench(&[s(&set), "--out", s(&out), "--seed", "7"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("other settings") && err.contains("merge"),
        "{err}"
    );
    // merge of something that is not a bench folder.
    let (code, _, err) = common::tmin(&["bench", "merge", s(&empty), "--out", s(&out)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a bench folder"), "{err}");
}

#[test]
fn solve_json_carries_the_bench_keys() {
    let _g = serial();
    let inst = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/example1.txt");
    let (code, out, err) = common::tmin(&[
        "solve",
        s(&inst),
        "--json",
        "--time-limit",
        "2",
        "--seed",
        "3",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    for k in [
        "instance",
        "hash",
        "ops",
        "nodes_min",
        "nodes_max",
        "engine",
        "time_limit",
        "seed",
        "status",
        "makespan",
        "lower_bound",
        "bound_source",
        "gap",
        "t_max",
        "wall_seconds",
        "version",
    ] {
        assert!(v.get(k).is_some(), "key {k} in {v}");
    }
    assert_eq!(v["seed"], 3);
    assert_eq!(v["time_limit"], 2.0);
    assert_eq!(v["makespan"], 38);
    assert_eq!(v["t_max"], 53);
    assert_eq!(v["nodes_min"], 11);
    // The hash is the file's SHA-256, as in a bench line of the same file.
    let d = scratch("solvejson");
    let (code, _, err, _) = bench(&[s(&inst), "--out", s(&d.join("o")), "--time-limit", "1"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(lines(&d.join("o"))[0]["hash"], v["hash"]);
    assert_eq!(v["hash"].as_str().unwrap().len(), 64);
}

#[test]
fn compare_puts_folders_side_by_side_and_refuses_contradictions() {
    let _g = serial();
    let d = scratch("compare");
    let set = d.join("set");
    gen_set(&set, &[(21, 6), (22, 5)]);
    let a = d.join("auto");
    let (code, _, err, _) = bench(&[s(&set), "--out", s(&a), "--time-limit", "2"]);
    assert_eq!(code, 0, "{err}");
    // A second setting: one greedy pass of another rule, recorded with it.
    let g = d.join("lrp");
    let args = [
        s(&set),
        "--out",
        s(&g),
        "--engine",
        "greedy",
        "--rule",
        "lrp",
    ];
    let (code, _, err, _) = bench(&args);
    assert_eq!(code, 0, "{err}");
    assert!(lines(&g).iter().all(|l| l["engine"] == "greedy --rule lrp"));
    // The same folder with another rule is another setting: refused.
    let (code, _, err, _) = bench(&[s(&set), "--out", s(&g), "--engine", "greedy"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("other settings"), "{err}");

    let by_name = |dir: &Path| -> BTreeMap<String, (String, u64, Option<u64>)> {
        let names = lines(dir)
            .into_iter()
            .map(|l| (l["hash"].clone(), l["name"].clone()));
        let names: BTreeMap<String, String> = names
            .map(|(h, n)| (h.as_str().unwrap().into(), n.as_str().unwrap().into()))
            .collect();
        table(dir)
            .into_iter()
            .map(|(h, row)| (names[&h].clone(), row))
            .collect()
    };
    let auto = by_name(&a);
    let opt = &auto["g21"];
    let reference = d.join("ref.csv");
    let write_ref = |t: u64| {
        let text = format!("instance,t_min,t_min_kind\ng21,{t},optimal\n");
        std::fs::write(&reference, text).unwrap();
    };
    assert_eq!(opt.0, "optimal", "seed 21 is proven in 2 s");
    let m = opt.2.unwrap();
    write_ref(m);
    let page = d.join("page.md");
    let (code, out, err) = common::tmin(&[
        "bench",
        "compare",
        s(&a),
        s(&g),
        "--reference",
        s(&reference),
        "-o",
        s(&page),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.is_empty(), "the page goes to the file: {out}");
    let text = std::fs::read_to_string(&page).unwrap();
    assert!(
        text.contains("| instance | reference | auto | lrp |"),
        "{text}"
    );
    assert!(
        text.contains(&format!("| g21 | {m} | **{m}** / {m} /")),
        "{text}"
    );
    for (name, (_, lb, ms)) in by_name(&g) {
        let cell = format!("{} / {lb} /", ms.map_or("-".into(), |v| v.to_string()));
        assert!(text.contains(&cell), "{name}: {cell} in {text}");
    }
    assert!(text.contains("- auto: 2 of 2 proven"), "{text}");

    // A reference optimum below a proven bound, then above a legal
    // makespan: each a contradiction, named, exit 70.
    for (t, claim) in [
        (
            m - 1,
            format!(
                "auto's lower bound {m} is above the reference optimum {}",
                m - 1
            ),
        ),
        (
            m + 1,
            format!(
                "auto's makespan {m} is below the reference's proven optimal {}",
                m + 1
            ),
        ),
    ] {
        write_ref(t);
        let (code, out, err) =
            common::tmin(&["bench", "compare", s(&a), "--reference", s(&reference)]);
        assert_eq!(code, 70, "{err}");
        assert!(
            out.contains("INCONSISTENT") && out.contains(&claim),
            "{out}"
        );
        assert!(err.contains(&claim), "{err}");
    }
    // Another folder's bound above this one's makespan.
    let b = d.join("b");
    std::fs::create_dir_all(b.join("schedules")).unwrap();
    let mut bad = lines(&a).into_iter().find(|l| l["name"] == "g21").unwrap();
    bad["status"] = "unknown".into();
    bad["makespan"] = Value::Null;
    bad["gap"] = Value::Null;
    bad["schedule"] = Value::Null;
    bad["schedule_hash"] = Value::Null;
    bad["lower_bound"] = (m + 3).into();
    std::fs::write(b.join("results.jsonl"), format!("{bad}\n")).unwrap();
    let (code, out, err) = common::tmin(&["bench", "compare", s(&a), s(&b)]);
    assert_eq!(code, 70, "{err}");
    let claim = format!(
        "g21: b's lower bound {} is above auto's legal makespan {m}",
        m + 3
    );
    assert!(out.contains(&claim) && err.contains(&claim), "{out}\n{err}");
    assert!(out.contains("| g22 |") && out.contains("missing"), "{out}");
    // Labels: one a folder, or none.
    let (code, _, err) = common::tmin(&["bench", "compare", s(&a), s(&b), "--label", "x"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--label given 1 times for 2 folders"), "{err}");
}
