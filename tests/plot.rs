//! `tmin plot` and `tmin bench plot`: valid SVG, one bar per node, one
//! capacity line per memory type, the aggregated view at 2 x 10^4 nodes, and
//! illegal schedules refused.
//!
//! Markers (src/plot/mod.rs): node bars are the `<rect>`s with
//! `opacity="0.875"`, capacity lines the `<polyline>`s with `opacity="0.625"`.

use crate::common;
use common::{tmin, tmp_in};

use std::path::PathBuf;

const SUITE: &str = "plot";
const EX1: &str = "instances/example1.txt";
const EX1_OPT: &str = "instances/example1.schedule.txt";

fn out_path(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(SUITE);
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    let _ = std::fs::remove_file(&p);
    p
}

/// Minimal well-formedness: one `<svg>` root, every element closed in order.
fn assert_valid_svg(svg: &str) {
    let t = svg.trim();
    assert!(t.starts_with("<svg"), "does not start with <svg");
    assert!(t.ends_with("</svg>"), "does not end with </svg>");
    let mut stack: Vec<String> = Vec::new();
    let mut rest = t;
    let mut roots = 0;
    while let Some(i) = rest.find('<') {
        let j = rest[i..].find('>').expect("unclosed tag") + i;
        let tag = &rest[i + 1..j];
        rest = &rest[j + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.trim()),
                "mismatched </{name}>"
            );
            continue;
        }
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        let name: String = tag
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != '/')
            .collect();
        if stack.is_empty() {
            roots += 1;
        }
        if !tag.ends_with('/') {
            stack.push(name);
        }
    }
    assert!(stack.is_empty(), "unclosed elements: {stack:?}");
    assert_eq!(roots, 1, "one root element");
}

fn count(svg: &str, element: &str, marker: &str) -> usize {
    svg.split('<')
        .filter(|e| e.starts_with(element) && e.contains(marker))
        .count()
}

fn bars(svg: &str) -> usize {
    count(svg, "rect ", "opacity=\"0.875\"")
}

fn capacity_lines(svg: &str) -> usize {
    count(svg, "polyline ", "opacity=\"0.625\"")
}

#[test]
fn example_gantt_has_one_bar_per_node_and_one_capacity_line_per_memory() {
    let out = out_path("example1.svg");
    let (code, _, err) = tmin(&["plot", EX1, EX1_OPT, "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(&out).unwrap();
    assert_valid_svg(&svg);
    // 4 + 5 + 3 nodes; 3 memory types.
    assert_eq!(bars(&svg), 12);
    assert_eq!(capacity_lines(&svg), 3);
    for size in ["capacity 10240", "capacity 40960"] {
        assert!(svg.contains(size), "{size}");
    }
    // Memory type 0 at t = 19: op 2 nodes 2 and 4 start and each holds 1024,
    // op 2 node 1 releases its 1024 at 19 (its successors start): 2048, the peak.
    assert!(svg.contains("peak 2048 at t=19"));
    // Node labels ("o{op} n{node}") on bars wide enough for them.
    assert!(svg.contains("o1 n1"), "node labels");
}

#[test]
fn another_schedule_gives_other_bars() {
    // The same instance, a schedule with op 1 on its other tiling (3 nodes):
    // 3 + 5 + 3 = 11 bars, so the count follows the schedule, not the instance.
    let s = tmp_in(
        SUITE,
        "ex1-t0.schedule",
        b"[[1,0,1,0,0],[1,0,2,5,0],[1,0,3,15,0],[2,0,1,20,0],[2,0,2,24,0],[2,0,3,30,0],\
          [2,0,4,24,1],[2,0,5,30,1],[3,0,1,34,0],[3,0,2,38,0],[3,0,3,40,0]]",
    );
    let out = out_path("ex1-t0.svg");
    let (code, _, err) = tmin(&[
        "plot",
        EX1,
        s.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(&out).unwrap();
    assert_valid_svg(&svg);
    assert_eq!(bars(&svg), 11);
    // --aggregate: no bars, the capacity lines stay.
    let (code, _, err) = tmin(&[
        "plot",
        EX1,
        s.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--aggregate",
    ]);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(&out).unwrap();
    assert_valid_svg(&svg);
    assert_eq!(bars(&svg), 0);
    assert_eq!(capacity_lines(&svg), 3);
    assert!(svg.contains("utilisation per core type"));
}

#[test]
fn illegal_schedule_is_refused_unless_allowed() {
    let bad = std::fs::read_to_string(EX1_OPT)
        .unwrap()
        .replacen("[1,1,2,5,0]", "[1,1,2,3,0]", 1);
    let bad = tmp_in(SUITE, "ex1-bad.schedule", bad.as_bytes());
    let out = out_path("bad.svg");
    let args = [
        "plot",
        EX1,
        bad.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    let (code, _, err) = tmin(&args);
    assert_eq!(code, 2);
    assert!(
        err.contains("not a legal schedule") && err.contains("precedence"),
        "{err}"
    );
    assert!(!out.exists(), "nothing written for a refused schedule");
    let mut allowed = args.to_vec();
    allowed.push("--allow-illegal");
    let (code, _, err) = tmin(&allowed);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning"), "{err}");
    assert_valid_svg(&std::fs::read_to_string(&out).unwrap());
    // Missing schedule file, and an output folder that does not exist.
    let (code, _, err) = tmin(&["plot", EX1, "no/such.schedule", "-o", "x.svg"]);
    assert_eq!(code, 2);
    assert!(err.contains("no/such.schedule"), "{err}");
    let (code, _, err) = tmin(&["plot", EX1, EX1_OPT, "-o", "no/such/dir/x.svg"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot create"), "{err}");
}

#[test]
fn twenty_thousand_nodes_give_the_aggregated_view_and_a_small_file() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(SUITE);
    std::fs::create_dir_all(&dir).unwrap();
    let inst = dir.join("g20k.txt");
    let sched = dir.join("g20k.schedule");
    let (code, out, err) = tmin(&[
        "gen",
        "--ops",
        "2800",
        "--nodes",
        "6-8",
        "--seed",
        "5",
        "--mem-types",
        "2",
        "-o",
        inst.to_str().unwrap(),
        "--schedule",
        sched.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let nodes = serde_json::from_str::<serde_json::Value>(&out).unwrap()["nodes"]
        .as_u64()
        .unwrap();
    assert!(nodes > 10_000, "{nodes} nodes");
    let svg_path = out_path("g20k.svg");
    let (code, _, err) = tmin(&[
        "plot",
        inst.to_str().unwrap(),
        sched.to_str().unwrap(),
        "-o",
        svg_path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert_valid_svg(&svg);
    assert_eq!(bars(&svg), 0, "no per-node bars above the threshold");
    assert_eq!(capacity_lines(&svg), 2);
    assert!(svg.contains("utilisation per core type"));
    assert!(svg.len() < 1_000_000, "{} bytes", svg.len());
    // The threshold is an option: the full Gantt chart on request.
    let (code, _, err) = tmin(&[
        "plot",
        inst.to_str().unwrap(),
        sched.to_str().unwrap(),
        "-o",
        svg_path.to_str().unwrap(),
        "--aggregate-above",
        "100000",
    ]);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert_eq!(bars(&svg) as u64, nodes);
}

fn bench_folder(name: &str, lines: &[String]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(SUITE)
        .join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let mut text = lines.join("\n");
    // A torn last line, as a killed bench leaves it.
    text.push_str("\n{\"instance\":\"x");
    std::fs::write(dir.join("results.jsonl"), text).unwrap();
    dir
}

fn line(inst: &str, engine: &str, status: &str, ms: Option<u64>, lb: u64, wall: f64) -> String {
    let ms = ms.map_or("null".to_string(), |m| m.to_string());
    format!(
        "{{\"instance\":\"{inst}.txt\",\"hash\":\"h\",\"ops\":3,\"nodes_min\":1,\"nodes_max\":2,\
         \"engine\":\"{engine}\",\"time_limit\":10,\"seed\":1,\"status\":\"{status}\",\
         \"makespan\":{ms},\"lower_bound\":{lb},\"bound_source\":\"b\",\"gap\":null,\
         \"t_max\":100,\"wall_seconds\":{wall},\"version\":\"0.1.0\"}}"
    )
}

#[test]
fn plot_bench_draws_one_curve_per_folder() {
    let a = bench_folder(
        "run-sat",
        &[
            line("i1", "sat", "optimal", Some(10), 10, 0.02),
            line("i2", "sat", "optimal", Some(20), 20, 1.5),
            line("i3", "sat", "feasible", Some(40), 30, 10.0),
        ],
    );
    let b = bench_folder(
        "run-list",
        &[
            line("i1", "list", "optimal", Some(10), 10, 0.01),
            line("i2", "list", "feasible", Some(22), 20, 10.0),
            line("i3", "list", "unknown", None, 30, 10.0),
        ],
    );
    let out = out_path("profile.svg");
    let (code, _, err) = tmin(&[
        "bench",
        "plot",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(&out).unwrap();
    assert_valid_svg(&svg);
    for label in [
        "run-sat [sat] (3 instances)",
        "run-list [list] (3 instances)",
    ] {
        // Once per panel's legend.
        assert_eq!(svg.matches(label).count(), 2, "{label}");
    }
    assert!(svg.contains("solved (proven optimal or infeasible) by time"));
    // A folder without results.jsonl, and a bad line that is not the last.
    let (code, _, err) = tmin(&["bench", "plot", "instances", "-o", out.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("not a bench folder"), "{err}");
    let bad = bench_folder(
        "run-bad",
        &[
            "{oops".to_string(),
            line("i1", "sat", "optimal", Some(1), 1, 0.1),
        ],
    );
    let (code, _, err) = tmin(&[
        "bench",
        "plot",
        bad.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("results.jsonl:1:"), "{err}");
}

#[test]
fn share_curves_follow_the_rows() {
    // The library reads what the CLI draws: run-sat proves 2 of 3, the gaps
    // are 0, 0 and (40 - 30) / 40.
    let a = bench_folder(
        "run-lib",
        &[
            line("i1", "sat", "optimal", Some(10), 10, 0.02),
            line("i2", "sat", "optimal", Some(20), 20, 1.5),
            line("i3", "sat", "feasible", Some(40), 30, 10.0),
            // A rerun of i3 that proved it: the better line is kept.
            line("i3", "sat", "optimal", Some(35), 35, 12.0),
        ],
    );
    let run = tmin::plot::profile::read_run(&a).unwrap();
    assert_eq!(run.outcomes.len(), 3);
    let i3 = run.outcomes.iter().find(|o| o.name == "i3").unwrap();
    assert!(i3.proven && i3.wall_seconds == 12.0);
    let b = bench_folder(
        "run-lib2",
        &[line("i3", "sat", "feasible", Some(40), 30, 10.0)],
    );
    let run_b = tmin::plot::profile::read_run(&b).unwrap();
    assert_eq!(run_b.outcomes[0].gap, Some(0.25));
    // Gaps are drawn against the best bound of all runs: another run proved
    // 35 for i3, so 40 is (40 - 35) / 40 from it, and that run's 50 is 0.3.
    let c = bench_folder(
        "run-lib3",
        &[line("i3", "list", "feasible", Some(50), 35, 1.0)],
    );
    let run_c = tmin::plot::profile::read_run(&c).unwrap();
    let g = tmin::plot::profile::common_gaps(&[run_b, run_c]);
    assert_eq!(g[0], vec![Some(0.125)]);
    assert_eq!(g[1], vec![Some(0.3)]);
}

#[test]
fn memory_profile_agrees_with_the_validator() {
    use tmin::graph::NodeGraph;
    use tmin::schedule::{Rule, check, memory_profile, read_schedule};
    // Example 1 with memory type 0 shrunk to 1500: the optimal schedule holds
    // 2048 of it over [19, 25), which the validator reports and the profile
    // (what `tmin plot` draws) shows at the same instant.
    let text = std::fs::read_to_string(EX1)
        .unwrap()
        .replacen("[0,10240]", "[0,1500]", 1);
    let inst = tmin::instance::parse_reader(text.as_bytes(), "shrunk").unwrap();
    let sched_text = std::fs::read_to_string(EX1_OPT).unwrap();
    let read = read_schedule(&inst, sched_text.as_bytes(), "opt", 10).unwrap();
    let s = read.schedule.unwrap();
    let g = NodeGraph::new(&inst, s.choice.clone()).unwrap();
    let v = check(&g, &s, 10);
    assert_eq!(v.count(Rule::Memory), 1);
    let m = &v.kept.iter().find(|x| x.rule == Rule::Memory).unwrap();
    assert_eq!(m.time, Some(19));
    assert_eq!(m.amount, Some((2048, 1500)));
    let p = memory_profile(&g, &s, 0);
    let at = |t: u128| {
        p.iter()
            .take_while(|&&(x, _)| x <= t)
            .last()
            .map_or(0, |x| x.1)
    };
    assert_eq!(at(19), 2048);
    assert_eq!(at(18), 1024);
    assert_eq!(at(25), 0);
    assert_eq!(p.iter().map(|x| x.1).max(), Some(2048));
    // The picture of the shrunk instance is refused (illegal on memory).
    let inst_path = tmp_in(SUITE, "shrunk.txt", text.as_bytes());
    let out = out_path("shrunk.svg");
    let (code, _, err) = tmin(&[
        "plot",
        inst_path.to_str().unwrap(),
        EX1_OPT,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("[memory]"), "{err}");
}
