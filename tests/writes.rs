//! Every write checked: each command that writes a file or a folder says so
//! and fails when it cannot: exit 2 where the path is a bad argument (a
//! missing folder, a file where a folder is needed), exit 74 where the
//! writing itself fails (a full disk: /dev/full), never exit 0 with nothing
//! written, never a crash.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::tmin;

fn repo(p: &str) -> String {
    format!("{}/{p}", env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("writes");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    let _ = std::fs::remove_dir_all(&p);
    let _ = std::fs::remove_file(&p);
    p
}

/// A regular file, for paths that need a folder there.
fn a_file() -> PathBuf {
    let p = scratch("a-file");
    std::fs::write(&p, "x").unwrap();
    p
}

#[track_caller]
fn fails(args: &[&str], code: i32, names: &str) {
    let (got, out, err) = tmin(args);
    assert_eq!(got, code, "{args:?}: {out}\n{err}");
    assert!(
        err.contains(names),
        "{args:?}: the message names {names}: {err}"
    );
}

const EX1: &str = "instances/example1.txt";
const EX1_SCHEDULE: &str = "instances/example1.schedule.txt";

#[test]
fn files_in_a_missing_folder_are_bad_arguments() {
    let (inst, sched) = (repo(EX1), repo(EX1_SCHEDULE));
    let jsp = repo("tests/data/jsplib/abz5");
    let missing = "/nonexistent-tmin-folder/out";
    fails(&["solve", &inst, "-o", missing], 2, missing);
    fails(&["solve", &inst, "--progress", missing], 2, missing);
    fails(&["gen", "-o", missing], 2, "/nonexistent-tmin-folder");
    let g = scratch("gen.txt");
    fails(
        &["gen", "-o", g.to_str().unwrap(), "--schedule", missing],
        2,
        missing,
    );
    fails(
        &["gen", "--family", "packed", "-o", missing],
        2,
        "/nonexistent-tmin-folder",
    );
    fails(&["plot", &inst, &sched, "-o", missing], 2, missing);
    fails(&["import", "jsp", &jsp, "-o", missing], 2, missing);
    fails(
        &["gen", "--family", "lanes", "-o", missing],
        2,
        "/nonexistent-tmin-folder",
    );
}

#[test]
fn folders_where_a_file_is_are_bad_arguments() {
    let inst = repo(EX1);
    let f = a_file();
    let under = f.join("sub");
    let under = under.to_str().unwrap();
    fails(
        &["bench", "--out", under, &inst, "--time-limit", "1"],
        2,
        under,
    );
    fails(&["solve", &inst, "--certify", under], 2, under);
    fails(
        &["solve", &inst, "--engine", "milp", "--export-model", under],
        2,
        under,
    );
    let done = scratch("bench-done");
    let (code, _, err) = tmin(&[
        "bench",
        "--out",
        done.to_str().unwrap(),
        &inst,
        "--time-limit",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    fails(
        &["bench", "merge", "--out", under, done.to_str().unwrap()],
        2,
        under,
    );
    fails(
        &["bench", "plot", done.to_str().unwrap(), "-o", under],
        2,
        under,
    );
    fails(
        &["bench", "compare", done.to_str().unwrap(), "-o", under],
        2,
        under,
    );
}

/// Runs `sh -c script` with `$TMIN` set: the exit code and stderr.
fn sh(script: &str) -> (i32, String) {
    let out = Command::new("sh")
        .args(["-c", script])
        .env("TMIN", env!("CARGO_BIN_EXE_tmin"))
        .output()
        .expect("run sh");
    (
        out.status.code().expect("exit code"),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_full_disk_is_exit_74() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let (inst, sched) = (repo(EX1), repo(EX1_SCHEDULE));
    let jsp = repo("tests/data/jsplib/abz5");
    let full = "/dev/full";
    for args in [
        vec!["solve", &inst, "-o", full],
        vec!["solve", &inst, "--progress", full],
        vec!["gen", "-o", full],
        vec!["gen", "--family", "packed", "--ops", "20", "-o", full],
        vec!["gen", "--family", "lanes", "--ops", "20", "-o", full],
        vec!["plot", &inst, &sched, "-o", full],
        vec!["import", "jsp", &jsp, "-o", full],
    ] {
        let (code, _, err) = tmin(&args);
        assert_eq!(code, 74, "{args:?}: {err}");
    }
    let g = scratch("gen-full.txt");
    let (code, _, err) = tmin(&["gen", "-o", g.to_str().unwrap(), "--schedule", full]);
    assert_eq!(code, 74, "{err}");
    // What goes to stdout: the score table in every format, an imported
    // instance, a bench summary line.
    let bench = scratch("bench-stdout");
    for script in [
        format!("\"$TMIN\" score {inst} {sched} > /dev/full"),
        format!("\"$TMIN\" score {inst} {sched} --csv > /dev/full"),
        format!("\"$TMIN\" score {inst} {sched} --json > /dev/full"),
        format!("\"$TMIN\" import jsp {jsp} > /dev/full"),
        format!(
            "\"$TMIN\" bench --out {} {inst} --time-limit 1 > /dev/full",
            bench.display()
        ),
        format!(
            "\"$TMIN\" bench --out {b} {inst} --time-limit 1 > /dev/null && \
             \"$TMIN\" bench compare {b} > /dev/full",
            b = bench.display()
        ),
    ] {
        let (code, err) = sh(&script);
        assert_eq!(code, 74, "{script}: {err}");
    }
    // Written into, never replaced (a rename of a finished temporary file
    // onto the path once replaced the device node with a regular file).
    use std::os::unix::fs::FileTypeExt;
    let kind = std::fs::metadata(full).unwrap().file_type();
    assert!(kind.is_char_device(), "/dev/full is no longer a device");
}

/// A certificate or an exported model that cannot be written: the result
/// is reported, then exit 74 naming the file (HiGHS, handed a path it
/// cannot open, used to crash the process).
#[test]
fn certificates_and_models_that_cannot_be_written_are_exit_74() {
    // Every duration is 2; five nodes that each hold 600 of 1000 run one
    // after another: optimum 10, proven by an UNSAT answer at 8, whose
    // certificate is `unit-T8.cnf` (tests/certify.rs).
    let unit = scratch("unit.txt");
    std::fs::write(
        &unit,
        "SetSocInfo([[0,1],[1,1]],[[0,1000]])
AddOpInfo(1,1,0,[[1,2],[2,3]],[[1,0,2],[2,1,2],[3,0,2]],[[1,0,600],[2,0,600],[3,0,600]])
AddOpInfo(2,1,0,[[1,2]],[[1,1,2],[2,0,2]],[[1,0,600],[2,0,600]])
GetInferenceScheResult([],[[1,1,1],[2,2,1]])",
    )
    .unwrap();
    let dir = scratch("certs");
    std::fs::create_dir_all(dir.join("unit-T8.cnf")).unwrap();
    let (code, out, err) = tmin(&[
        "solve",
        unit.to_str().unwrap(),
        "--engine",
        "sat",
        "--certify",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 74, "{out}\n{err}");
    assert!(out.contains("status       optimal"), "{out}");
    assert!(err.contains("unit-T8.cnf"), "{err}");

    // A generated instance whose MILP is built (tmin gen --ops 6 --nodes
    // 3-5 --tightness 0.1 --seed 5): its first model's file is a folder.
    let g = scratch("g5.txt");
    let (code, _, err) = tmin(&[
        "gen",
        "--ops",
        "6",
        "--nodes",
        "3-5",
        "--tightness",
        "0.1",
        "--seed",
        "5",
        "-o",
        g.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let models = scratch("models");
    std::fs::create_dir_all(models.join("g5-c1-time-indexed.lp")).unwrap();
    let (code, _, err) = tmin(&[
        "solve",
        g.to_str().unwrap(),
        "--engine",
        "milp",
        "--time-limit",
        "3",
        "--export-model",
        models.to_str().unwrap(),
    ]);
    assert_eq!(code, 74, "{err}");
    assert!(err.contains("g5-c1-time-indexed.lp"), "{err}");
    // The others were written, and no partial file is left.
    assert!(models.join("g5-c1-time-indexed.mps").is_file());
    let partial = std::fs::read_dir(&models)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(".partial")
        })
        .count();
    assert_eq!(partial, 0);
}
