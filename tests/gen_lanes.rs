//! `tmin gen --family lanes`: the arguments of src/generate/lanes.rs, checked
//! on every shape its options make. The witness is legal and ends at the
//! optimum `T`; it keeps every memory type full at every instant (every hold
//! ends with its node); every tiling of an op has the witness's memory area
//! per type; so `tmin bound` proves `T`. Bad options are refused by name; the
//! text is a pure function of the options.

use crate::common;

use std::path::PathBuf;

use common::tmin;
use serde_json::Value;
use tmin::generate::{LanesConfig, by_start, generate_lanes, memory_peaks};
use tmin::graph::NodeGraph;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gen_lanes");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn json(s: &str) -> Value {
    serde_json::from_str(s.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {s}"))
}

/// Every corner of the family's options, small enough to run them all.
fn shapes() -> Vec<LanesConfig> {
    let mut out = Vec::new();
    let mut seed = 0;
    for mem_types in [1, 2, 3] {
        for (lanes, graphs) in [(1, 1), (3, 1), (5, 3)] {
            for tilings in [1, 2, 4] {
                for (joins, density, bind_cores) in
                    [(0.0, 0.0, false), (0.5, 0.7, true), (1.0, 2.5, false)]
                {
                    for (nodes_min, nodes_max) in [(1, 1), (2, 6)] {
                        seed += 1;
                        out.push(LanesConfig {
                            seed,
                            ops: 12,
                            op_types: 3,
                            tilings,
                            nodes_min,
                            nodes_max,
                            lanes,
                            mem_types,
                            graphs: graphs.min(lanes * mem_types),
                            density,
                            joins,
                            bind_cores,
                        });
                    }
                }
            }
        }
    }
    out
}

#[test]
fn every_shape_is_full_and_its_optimum_is_proven() {
    for cfg in shapes() {
        let g = generate_lanes(&cfg).unwrap_or_else(|e| panic!("{cfg:?}: {e:?}"));
        let inst = &g.instance;
        assert!(inst.warnings.is_empty(), "{:?}", inst.warnings);
        let graph = NodeGraph::new(inst, g.witness.choice.clone()).unwrap();
        assert_eq!(g.witness.makespan(&graph), u128::from(g.optimum), "{cfg:?}");
        // Full at every instant: the peak under the hold rule is the size, and
        // the area is size x T (no instant below the size).
        let peaks = memory_peaks(&graph, &g.witness, &by_start(&g.witness));
        assert_eq!(peaks, g.mem_sizes, "{cfg:?}");
        let lib = &inst.library;
        for (m, &size) in g.mem_sizes.iter().enumerate() {
            let area: u64 = (0..graph.n_nodes() as u32)
                .map(|v| graph.dur(v) * graph.demand(v, m as _))
                .sum();
            assert_eq!(area, size * g.optimum, "{cfg:?}: type {m} is not full");
        }
        // Every tiling of an op has the witness's area of every type.
        for op in &inst.graph.ops {
            let areas = |t: u32| -> Vec<u64> {
                (0..g.mem_sizes.len())
                    .map(|m| {
                        lib.tilings[t as usize]
                            .nodes()
                            .map(|v| lib.node_dur[v as usize] * lib.demand(v, m as _))
                            .sum()
                    })
                    .collect()
            };
            let base = areas(lib.find_tiling(op.group, 0).unwrap());
            for k in 0..cfg.tilings {
                let t = lib.find_tiling(op.group, k).unwrap();
                assert_eq!(areas(t), base, "{cfg:?}: op {} tiling {k}", op.id);
            }
        }
        assert_eq!(inst.graph.n_ops() as u64, inst.graph.ops.len() as u64);
    }
}

/// Through the command line: the witness passes `tmin check` at the optimum
/// and `tmin bound` proves the optimum, on a sample of the shapes.
#[test]
fn the_cli_writes_a_witness_at_a_proven_optimum() {
    for (i, cfg) in shapes().iter().enumerate().step_by(9) {
        let inst = scratch(&format!("s{i}.txt"));
        let wit = scratch(&format!("s{i}.schedule"));
        let mut args = vec![
            "gen".to_string(),
            "--family".into(),
            "lanes".into(),
            "--json".into(),
            "-o".into(),
            inst.display().to_string(),
            "--schedule".into(),
            wit.display().to_string(),
        ];
        for (k, v) in [
            ("--seed", cfg.seed.to_string()),
            ("--ops", cfg.ops.to_string()),
            ("--tilings", cfg.tilings.to_string()),
            ("--nodes", format!("{}-{}", cfg.nodes_min, cfg.nodes_max)),
            ("--lanes", cfg.lanes.to_string()),
            ("--mem-types", cfg.mem_types.to_string()),
            ("--graphs", cfg.graphs.to_string()),
            ("--density", cfg.density.to_string()),
            ("--joins", cfg.joins.to_string()),
        ] {
            args.push(k.into());
            args.push(v);
        }
        if cfg.bind_cores {
            args.push("--bind-cores".into());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = tmin(&args);
        assert_eq!(code, 0, "{err}");
        let summary = json(&out);
        let t = summary["optimum"].as_u64().unwrap();
        assert_eq!(summary["family"], "lanes");
        let i = inst.to_str().unwrap();
        let (code, out, err) = tmin(&["check", i, wit.to_str().unwrap(), "--json"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(json(&out)["makespan"].as_u64(), Some(t));
        let (code, out, err) = tmin(&["bound", i, "--json"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(json(&out)["lower_bound"].as_u64(), Some(t), "{cfg:?}");
        // The same options, the same bytes.
        let first = std::fs::read(&inst).unwrap();
        let (code, _, err) = tmin(&args);
        assert_eq!(code, 0, "{err}");
        assert_eq!(std::fs::read(&inst).unwrap(), first);
    }
}

#[test]
fn options_of_other_families_are_refused_by_name() {
    let out = scratch("refused.txt");
    let o = out.to_str().unwrap();
    for (args, says) in [
        (
            vec!["--family", "lanes", "--cores", "4"],
            "--cores does not apply",
        ),
        (
            vec!["--family", "lanes", "--tightness", "1"],
            "--tightness does not apply",
        ),
        (
            vec!["--family", "lanes", "--mem-factor", "1.0"],
            "--mem-factor does not apply",
        ),
        (
            vec!["--lanes", "3"],
            "--lanes applies to --family lanes only",
        ),
        (
            vec!["--family", "packed", "--bind-cores"],
            "--bind-cores applies",
        ),
        (
            vec!["--family", "lanes", "--tilings", "5"],
            "--tilings must be in 1..=4",
        ),
        (
            vec!["--family", "lanes", "--joins", "1.5"],
            "--joins must be in [0, 1]",
        ),
        (
            vec![
                "--family",
                "lanes",
                "--lanes",
                "2",
                "--mem-types",
                "1",
                "--graphs",
                "3",
            ],
            "--graphs must be in 1..=--lanes x --mem-types (2)",
        ),
        (vec!["--family", "lanes", "--nodes", "5-2"], "--nodes"),
    ] {
        let mut all = vec!["gen", "-o", o];
        all.extend(args.iter().copied());
        let (code, _, err) = tmin(&all);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
