//! `tmin solve --progress FILE|-` (src/events.rs, src/bin/tmin/progress.rs):
//! one JSON line an event, makespans only falling and bounds only rising,
//! the last line the result as reported.

use crate::common;

use serde_json::Value;

use common::{tmin, tmp_in};

fn repo(p: &str) -> String {
    format!("{}/{p}", env!("CARGO_MANIFEST_DIR"))
}

/// The events of one file's lines, checked: monotone, the last one the
/// result, every event within what the result reports.
fn checked(lines: &str, summary: &Value) -> Vec<Value> {
    let ev: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let last = ev.last().expect("at least the result");
    assert_eq!(last["event"], "result", "{lines}");
    for k in ["status", "makespan", "lower_bound", "bound_source", "gap"] {
        assert_eq!(last[k], summary[k], "{k}: {lines}");
    }
    assert!(ev[..ev.len() - 1].iter().all(|e| e["event"] != "result"));
    let (mut ms, mut lb, mut t) = (u64::MAX, 0u64, 0f64);
    for e in &ev {
        let s = e["seconds"].as_f64().unwrap();
        assert!(s >= t, "time runs forward: {lines}");
        t = s;
        match e["event"].as_str().unwrap() {
            "incumbent" => {
                let m = e["makespan"].as_u64().unwrap();
                assert!(m < ms, "makespans only fall: {lines}");
                ms = m;
                assert!(e["engine"].is_string());
            }
            "bound" => {
                let b = e["lower_bound"].as_u64().unwrap();
                assert!(b > lb, "bounds only rise: {lines}");
                lb = b;
                assert!(e["source"].is_string());
            }
            _ => {}
        }
    }
    if let Some(m) = summary["makespan"].as_u64() {
        assert_eq!(ms, m, "the last incumbent is the result's: {lines}");
    }
    assert!(lb <= summary["lower_bound"].as_u64().unwrap(), "{lines}");
    ev
}

#[test]
fn events_are_monotone_and_end_with_the_result() {
    // The task book's example (optimum 38) and a memory-tight instance
    // where the schedule improves over several steps of auto.
    let tight = tmp_in("progress", "tight.txt", b"");
    let (code, _, err) = tmin(&[
        "gen",
        "--ops",
        "20",
        "--nodes",
        "8-16",
        "--graphs",
        "3",
        "--mem-types",
        "3",
        "--cores",
        "4,4,8",
        "--tilings",
        "3",
        "--tightness",
        "1.0",
        "--seed",
        "1",
        "-o",
        tight.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    for (inst, engine, limit) in [
        (repo("instances/example1.txt"), "auto", "2"),
        (tight.to_str().unwrap().to_string(), "auto", "4"),
        (tight.to_str().unwrap().to_string(), "list", "2"),
        (tight.to_str().unwrap().to_string(), "sat", "10"),
    ] {
        let file = tmp_in("progress", "events.jsonl", b"");
        let (code, out, err) = tmin(&[
            "solve",
            &inst,
            "--engine",
            engine,
            "--time-limit",
            limit,
            "--json",
            "--progress",
            file.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        let summary: Value = serde_json::from_str(&out).unwrap();
        let lines = std::fs::read_to_string(&file).unwrap();
        let ev = checked(&lines, &summary);
        assert!(
            ev.iter().any(|e| e["event"] == "incumbent"),
            "{engine}: {lines}"
        );
        assert!(
            ev.iter().any(|e| e["event"] == "bound"),
            "{engine}: {lines}"
        );
        if engine == "sat" {
            // The descent's better models as found, not only at its end.
            let end = ev.last().unwrap()["seconds"].as_f64().unwrap();
            assert!(
                ev.iter().any(|e| e["engine"] == "sat"
                    && e["step"].as_str().is_some_and(|s| s.starts_with("descent"))
                    && e["seconds"].as_f64().unwrap() < end - 0.5),
                "{lines}"
            );
        }
        if inst.ends_with("example1.txt") {
            assert_eq!(summary["makespan"], 38);
            assert_eq!(summary["status"], "optimal");
        }
    }
}

#[test]
fn events_on_stdout_come_before_the_summary() {
    let (code, out, err) = tmin(&[
        "solve",
        &repo("instances/example1.txt"),
        "--time-limit",
        "1",
        "--json",
        "--progress",
        "-",
    ]);
    assert_eq!(code, 0, "{err}");
    let (events, summary) = out
        .trim_end()
        .rsplit_once('\n')
        .expect("events, then the summary");
    let summary: Value = serde_json::from_str(summary).unwrap();
    checked(events, &summary);
}

#[test]
fn progress_and_schedule_cannot_share_stdout() {
    let (code, _, err) = tmin(&[
        "solve",
        &repo("instances/example1.txt"),
        "--progress",
        "-",
        "-o",
        "-",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--progress"), "{err}");
}
