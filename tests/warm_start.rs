//! Warm starts: `tmin solve --start SCHEDULE` (a user's schedule as the first
//! incumbent, checked before use) and `list::polish` (forward-backward passes
//! that tighten a given legal schedule, as the SAT engine does with its models).

use crate::common;

use common::{tmin, tmp_in};
use tmin::graph::NodeGraph;
use tmin::instance::parse_reader;
use tmin::schedule::{check, read_schedule};
use tmin::stop::Deadline;

const FT06: &str = include_str!("data/jsplib/ft06");
const FT06_OPT: &str = include_str!("data/ft06.opt55.schedule");

/// The imported instance, one file per caller: tests run in parallel, and a
/// shared file was truncated by one test while another solved it.
fn ft06_instance_file(caller: &str) -> String {
    let jsp = tmp_in("warm_start", &format!("ft06-{caller}.jsp"), FT06.as_bytes());
    let out = tmp_in("warm_start", &format!("ft06-{caller}.txt"), b"");
    let (code, _, err) = tmin(&[
        "import",
        "jsp",
        jsp.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    out.to_str().unwrap().to_string()
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn a_legal_start_is_the_first_incumbent() {
    let inst = ft06_instance_file("legal");
    let start = tmp_in("warm_start", "opt55.schedule", FT06_OPT.as_bytes());
    let start = start.to_str().unwrap();
    // List scheduling with no time finds 58 or worse on ft06 by itself; with
    // the optimal schedule as its start it returns 55.
    let (code, out, err) = tmin(&[
        "solve",
        &inst,
        "--engine",
        "list",
        "--time-limit",
        "0",
        "--json",
        "--start",
        start,
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["makespan"], 55, "{v}");
    assert!(out.contains("warm start: makespan 55"), "{v}");
    // The SAT engine then has only the proof left: UNSAT at 54.
    let (code, out, err) = tmin(&[
        "solve",
        &inst,
        "--engine",
        "sat",
        "--time-limit",
        "30",
        "--json",
        "--start",
        start,
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(
        (&v["status"], &v["makespan"], &v["lower_bound"]),
        (&"optimal".into(), &55.into(), &55.into()),
        "{v}"
    );
}

#[test]
fn an_illegal_start_is_rejected_with_its_violation() {
    let inst = ft06_instance_file("illegal");
    // Job 1's second node moved to time 0, while its first node (from 0) runs.
    let bad = FT06_OPT.replacen("[1,0,2,1,0]", "[1,0,2,0,0]", 1);
    assert_ne!(bad, FT06_OPT);
    let start = tmp_in("warm_start", "bad.schedule", bad.as_bytes());
    let (code, out, err) = tmin(&[
        "solve",
        &inst,
        "--engine",
        "list",
        "--start",
        start.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("not a legal schedule"), "{err}");
    assert!(err.contains("precedence"), "{err}");
    assert!(
        out.is_empty(),
        "nothing is solved from an illegal start: {out}"
    );
    // A schedule naming an op the instance lacks is bad input too.
    let other = tmp_in("warm_start", "other.schedule", b"[[99,0,1,0,0]]");
    let (code, _, err) = tmin(&["solve", &inst, "--start", other.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("other.schedule"), "{err}");
}

#[test]
fn polish_tightens_a_loose_legal_schedule() {
    let text = tmin::import::read_jsp(FT06.as_bytes(), "ft06")
        .unwrap()
        .to_instance_text();
    let inst = parse_reader(text.as_bytes(), "ft06").unwrap();
    let read = read_schedule(&inst, FT06_OPT.as_bytes(), "opt", 5).unwrap();
    let mut s = read.schedule.expect("the fixture is complete");
    // Legal but loose: every start delayed, job 1 by 100 more than the others.
    let g = NodeGraph::new(&inst, s.choice.clone()).unwrap();
    for v in 0..g.n_nodes() {
        s.start[v] += if v < 6 { 1100 } else { 1000 };
    }
    assert!(check(&g, &s, 5).is_empty(), "the loose schedule is legal");
    let loose = s.makespan(&g) as u64;
    let deadline = Deadline::after(std::time::Duration::from_secs(5));
    let f = tmin::list::polish(&inst, &s, 55, &deadline).expect("an improvement");
    assert!(
        f.makespan < loose && f.makespan >= 55,
        "{} vs {loose}",
        f.makespan
    );
    assert!(
        check(&g, &f.schedule, 5).is_empty(),
        "the polished schedule is legal"
    );
    assert_eq!(f.schedule.makespan(&g) as u64, f.makespan);
}
