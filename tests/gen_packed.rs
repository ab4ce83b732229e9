//! `tmin gen --family packed`: every instance has a proven optimum (its witness is
//! legal, ends at the reported optimum, and `tmin bound` reaches it), every tiling
//! of an op has the same work, `--mem-factor 1.0` sizes the memories at the
//! witness's peak, the text is a pure function of the options, bad options are
//! rejected; and `--family random` still writes the same bytes as before.

use crate::common;

use std::path::PathBuf;

use common::tmin;
use serde_json::Value;
use tmin::generate::{Packed, PackedConfig, generate_packed, memory_peaks};
use tmin::graph::NodeGraph;
use tmin::instance::{Instance, parse_reader};
use tmin::schedule::{self, Schedule};

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gen_packed");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn json(s: &str) -> Value {
    serde_json::from_str(s.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {s}"))
}

/// Library call: the text written and the result.
fn gen_lib(c: &PackedConfig) -> (Vec<u8>, Packed) {
    let mut text = Vec::new();
    let p = generate_packed(c, &mut text).unwrap_or_else(|e| panic!("{c:?}: {e}"));
    assert_eq!(p.text_bytes, text.len() as u64);
    (text, p)
}

fn parse(text: &[u8]) -> Instance {
    let inst = parse_reader(text, "generated").expect("generated text parses");
    assert!(inst.warnings.is_empty(), "{:?}", inst.warnings);
    inst
}

/// The witness, moved onto the full instance (its tilings chosen by id).
fn witness_on(inst: &Instance, p: &Packed) -> Schedule {
    let choice: Vec<u32> = inst
        .graph
        .ops
        .iter()
        .enumerate()
        .map(|(i, o)| {
            inst.library
                .find_tiling(o.group, p.witness_tiling[i])
                .unwrap()
        })
        .collect();
    Schedule {
        choice,
        start: p.witness.start.clone(),
        core: p.witness.core.clone(),
    }
}

fn small(seed: u64) -> PackedConfig {
    PackedConfig {
        seed,
        ops: 30,
        nodes_min: 3,
        nodes_max: 12,
        ..PackedConfig::default()
    }
}

#[test]
fn the_binary_writes_instances_whose_optimum_is_proven() {
    let configs: &[&[&str]] = &[
        &[],
        &["--cores", "1", "--mem-types", "1", "--tilings", "1"],
        &[
            "--cores",
            "5",
            "--graphs",
            "3",
            "--mem-types",
            "3",
            "--mem-factor",
            "1.0",
        ],
        &[
            "--cores",
            "8",
            "--nodes",
            "10-30",
            "--ops",
            "15",
            "--mem-factor",
            "1.5",
        ],
        &[
            "--max-time",
            "1",
            "--cores",
            "3",
            "--nodes",
            "2-5",
            "--density",
            "3",
        ],
        &[
            "--max-time",
            "1000",
            "--tilings",
            "5",
            "--width",
            "1",
            "--density",
            "0",
        ],
        &[
            "--cores",
            "2",
            "--graphs",
            "20",
            "--ops",
            "20",
            "--mem-types",
            "10",
        ],
    ];
    for (i, extra) in configs.iter().enumerate() {
        let inst = scratch(&format!("opt{i}.txt"));
        let sched = scratch(&format!("opt{i}.sched"));
        let seed = (40 + i).to_string();
        let mut args = vec!["gen", "--family", "packed", "--seed", &seed, "--json"];
        args.extend_from_slice(extra);
        let (i_s, s_s) = (inst.to_str().unwrap(), sched.to_str().unwrap());
        args.extend_from_slice(&["-o", i_s, "--schedule", s_s]);
        let (code, out, err) = tmin(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        let summary = json(&out);
        assert_eq!(summary["family"], "packed");
        let optimum = summary["optimum"].as_u64().expect("optimum");
        assert_eq!(summary["witness_makespan"].as_u64(), Some(optimum));

        let (code, out, err) = tmin(&["check", i_s, s_s, "--json"]);
        assert_eq!(code, 0, "{args:?}: witness illegal: {out} {err}");
        let rep = json(&out);
        assert_eq!(rep["legal"], true);
        assert_eq!(rep["makespan"].as_u64(), Some(optimum), "{args:?}");
        assert_eq!(rep["rows"], summary["nodes"]);

        let (code, out, err) = tmin(&["bound", i_s, "--json"]);
        assert_eq!(code, 0, "{err}");
        let b = json(&out);
        assert_eq!(b["lower_bound"].as_u64(), Some(optimum), "{args:?}: {b}");
        let load = b["bounds"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["source"] == "core type 0 load")
            .expect("a core load bound");
        assert_eq!(load["value"].as_u64(), Some(optimum), "{args:?}");

        let (code, out, _) = tmin(&["info", i_s, "--json"]);
        assert_eq!(code, 0);
        let info = json(&out);
        assert!(info.is_object());
    }
}

#[test]
fn library_and_binary_agree_and_the_summary_is_right() {
    let c = small(5);
    let (text, p) = gen_lib(&c);
    let path = scratch("agree.txt");
    let (code, out, err) = tmin(&[
        "gen",
        "--family",
        "packed",
        "--seed",
        "5",
        "--ops",
        "30",
        "--nodes",
        "3-12",
        "--json",
        "-o",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), text);
    let s = json(&out);
    assert_eq!(s["seed"], 5);
    assert_eq!(s["ops"], 30);
    assert_eq!(s["nodes"].as_u64(), Some(p.witness.start.len() as u64));
    assert_eq!(s["optimum"].as_u64(), Some(p.optimum));
    assert_eq!(s["mem_sizes"], serde_json::json!(p.mem_sizes));
    let n = p.witness.start.len();
    assert!((30 * 3..=30 * 12).contains(&n));
    // The platform is as asked: one core type, K cores, M memories of the reported sizes.
    let inst = parse(&text);
    assert_eq!(inst.platform.cores.len(), 1);
    assert_eq!(inst.platform.cores[0].count, c.cores);
    let sizes: Vec<u64> = inst.platform.mems.iter().map(|m| m.size).collect();
    assert_eq!(sizes, p.mem_sizes);
    assert_eq!(inst.graph.n_ops(), 30);
    assert_eq!(inst.library.groups.len(), 30, "every op is its own group");
}

#[test]
fn the_witness_is_perfectly_packed_and_legal_on_the_full_text() {
    for seed in 1..6 {
        let c = PackedConfig {
            graphs: 1 + (seed as u32 % 3),
            cores: 1 + seed as u32,
            ..small(seed)
        };
        let (text, p) = gen_lib(&c);
        let inst = parse(&text);
        let w = witness_on(&inst, &p);
        let g = NodeGraph::new(&inst, w.choice.clone()).unwrap();
        let v = schedule::check(&g, &w, 10);
        assert!(v.is_empty(), "{c:?}: {:?}", v.kept);
        assert_eq!(w.makespan(&g), u128::from(p.optimum));
        // Every core is busy on [0, T) without a gap.
        let mut busy = vec![0u64; c.cores as usize];
        for x in 0..g.n_nodes() {
            busy[w.core[x] as usize] += g.dur(x as u32);
        }
        assert!(
            busy.iter().all(|&b| b == p.optimum),
            "{busy:?} vs {}",
            p.optimum
        );
        // The witness does not always use tiling 0.
        assert!(p.witness_tiling.iter().all(|&t| t < c.tilings));
        if seed == 1 {
            assert!(p.witness_tiling.iter().any(|&t| t != 0));
        }
    }
}

/// Interleaved ops (`--interleave W`): each op's nodes are dealt from a
/// stretch of W ops, so ops span longer than with consecutive runs; the
/// witness stays legal (at memory exactly its peak) and perfectly packed.
#[test]
fn interleaved_ops_keep_the_witness_legal_and_span_longer() {
    // Mean time from an op's first start to its last end in the witness.
    let mean_span = |c: &PackedConfig| {
        let (text, p) = gen_lib(c);
        let inst = parse(&text);
        let wit = witness_on(&inst, &p);
        let g = NodeGraph::new(&inst, wit.choice.clone()).unwrap();
        let v = schedule::check(&g, &wit, 10);
        assert!(v.is_empty(), "{c:?}: {:?}", v.kept);
        assert_eq!(wit.makespan(&g), u128::from(p.optimum));
        let total: u64 = (0..g.n_ops() as u32)
            .map(|op| {
                let r = g.op_nodes(op);
                let first = r.clone().map(|x| wit.start[x as usize]).min().unwrap();
                let last = r.map(|x| wit.start[x as usize] + g.dur(x)).max().unwrap();
                last - first
            })
            .sum();
        total as f64 / g.n_ops() as f64
    };
    for (seed, w) in [(1, 2), (2, 4), (3, 7)] {
        let base = PackedConfig {
            cores: 6,
            mem_factor: 1.0,
            mem_types: 3,
            ..small(seed)
        };
        let dealt = PackedConfig {
            interleave: w,
            ..base.clone()
        };
        let (b, d) = (mean_span(&base), mean_span(&dealt));
        assert!(d > 1.3 * b, "W = {w}: mean op span {d} vs {b} without");
    }
    let bad = PackedConfig {
        interleave: 0,
        ..small(1)
    };
    assert!(bad.validate().is_err());
}

#[test]
fn every_tiling_of_an_op_has_the_same_work() {
    for (seed, tilings, max_time) in [(1, 3, 10), (2, 5, 3), (3, 2, 100), (4, 4, 1)] {
        let c = PackedConfig {
            tilings,
            max_time,
            ..small(seed)
        };
        let (text, p) = gen_lib(&c);
        let inst = parse(&text);
        let lib = &inst.library;
        let mut total = 0u64;
        let mut other_counts = 0;
        for (i, o) in inst.graph.ops.iter().enumerate() {
            let group = &lib.groups[o.group as usize];
            assert_eq!(group.tilings.len(), tilings as usize);
            let work = |t: u32| -> u64 {
                let r = lib.tilings[t as usize].nodes();
                lib.node_dur[r.start as usize..r.end as usize].iter().sum()
            };
            let wt = lib.find_tiling(o.group, p.witness_tiling[i]).unwrap();
            let w = work(wt);
            total += w;
            for &t in &group.tilings {
                let tl = &lib.tilings[t as usize];
                assert!(tl.is_usable());
                assert_eq!(work(t), w, "seed {seed}: op {} tiling {}", o.id, tl.id);
                let r = tl.nodes();
                assert!(
                    lib.node_core[r.start as usize..r.end as usize]
                        .iter()
                        .all(|&x| x == 0)
                );
                assert!(
                    lib.node_dur[r.start as usize..r.end as usize]
                        .iter()
                        .all(|&d| (1..=max_time).contains(&d))
                );
                assert!((c.nodes_min..=c.nodes_max).contains(&tl.n_nodes));
                if t != wt && tl.n_nodes != lib.tilings[wt as usize].n_nodes {
                    other_counts += 1;
                }
            }
        }
        assert_eq!(total, p.optimum * u64::from(c.cores), "seed {seed}");
        if tilings > 1 && max_time > 1 {
            assert!(
                other_counts > 0,
                "seed {seed}: other tilings never differ in size"
            );
        }
    }
}

#[test]
fn mem_factor_sets_the_sizes_from_the_witness_peak() {
    let mut at_peak = 0;
    for seed in 1..5 {
        for factor in [1.0, 1.5] {
            let c = PackedConfig {
                mem_types: 3,
                mem_factor: factor,
                cores: 6,
                ..small(seed)
            };
            let (text, p) = gen_lib(&c);
            // The peak, recomputed on the full text with the hold rule.
            let inst = parse(&text);
            let w = witness_on(&inst, &p);
            let g = NodeGraph::new(&inst, w.choice.clone()).unwrap();
            let mut order: Vec<u32> = (0..g.n_nodes() as u32).collect();
            order.sort_by_key(|&v| w.start[v as usize]);
            assert_eq!(memory_peaks(&g, &w, &order), p.witness_peaks);
            for m in 0..3 {
                let scaled = (factor * p.witness_peaks[m] as f64).ceil() as u64;
                let want = scaled.max(p.max_demand[m]).max(1);
                assert_eq!(p.mem_sizes[m], want, "seed {seed} factor {factor} type {m}");
                if factor == 1.0 && p.witness_peaks[m] >= p.max_demand[m] {
                    assert_eq!(p.mem_sizes[m], p.witness_peaks[m]);
                    at_peak += 1;
                }
            }
            // Largest demand: every tiling stays usable, and it is exact.
            let lib = &inst.library;
            for m in 0..3u8 {
                let most = (0..lib.n_nodes() as u32)
                    .map(|v| lib.demand(v, m))
                    .max()
                    .unwrap();
                assert_eq!(most, p.max_demand[m as usize]);
            }
        }
    }
    assert!(at_peak >= 8, "the memories sit at the witness's peak");
}

#[test]
fn same_seed_same_bytes() {
    let (a, pa) = gen_lib(&small(9));
    let (b, pb) = gen_lib(&small(9));
    assert_eq!(a, b);
    assert_eq!(pa.witness, pb.witness);
    let (c, _) = gen_lib(&small(10));
    assert_ne!(a, c);
    let (d, _) = gen_lib(&PackedConfig {
        mem_factor: 1.3,
        ..small(9)
    });
    assert_ne!(a, d);
    // Through the binary, twice.
    let run = |name: &str| {
        let p = scratch(name);
        let (code, _, err) = tmin(&[
            "gen",
            "--family",
            "packed",
            "--seed",
            "9",
            "--graphs",
            "2",
            "-o",
            p.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        std::fs::read(p).unwrap()
    };
    assert_eq!(run("same1.txt"), run("same2.txt"));
}

#[test]
fn bad_options_exit_2_with_a_message() {
    let cases: &[(&[&str], &str)] = &[
        (&["--mem-factor", "0.9"], "--mem-factor must be >= 1.0"),
        (&["--mem-factor", "NaN"], "--mem-factor must be >= 1.0"),
        (&["--cores", "2,4"], "one core type"),
        (&["--cores", "0"], "--cores must be in 1..=999"),
        (&["--cores", "x"], "--cores expects"),
        (&["--mem-types", "0"], "--mem-types must be in 1..=10"),
        (&["--mem-types", "11"], "--mem-types must be in 1..=10"),
        (&["--nodes", "8-4"], "MIN (8) is larger than MAX (4)"),
        (&["--nodes", "0-4"], "at least 1 node"),
        (&["--nodes", "10000"], "at most 9999 nodes per subgraph"),
        (&["--nodes", "a-b"], "--nodes expects MIN or MIN-MAX"),
        (&["--ops", "3000000", "--nodes", "10"], "at most 20000000"),
        (&["--ops", "0"], "--ops must be at least 1"),
        (
            &["--ops", "1", "--nodes", "2", "--cores", "4"],
            "fewer than --cores 4",
        ),
        (
            &[
                "--ops",
                "3",
                "--nodes",
                "5",
                "--cores",
                "4",
                "--max-time",
                "1",
            ],
            "multiple of --cores 4",
        ),
        (
            &["--graphs", "30"],
            "--graphs (30) cannot exceed the number of ops (20)",
        ),
        (&["--graphs", "0"], "--graphs must be at least 1"),
        (&["--max-time", "0"], "--max-time must be at least 1"),
        (&["--density=-1"], "--density must be a non-negative number"),
        (&["--tilings", "0"], "--tilings must be in 1..=99"),
        (&["--op-types", "100"], "--op-types must be in 1..=99"),
        (&["--width", "0"], "--width must be at least 1"),
        (
            &["--ops", "1000000", "--nodes", "20", "--tilings", "10"],
            "at most 60000000 are supported",
        ),
        (
            &["--tightness", "0.5"],
            "--tightness does not apply to --family packed",
        ),
        (
            &["--shapes", "2"],
            "--shapes does not apply to --family packed",
        ),
        (
            &["--unusable", "0.1"],
            "--unusable does not apply to --family packed",
        ),
        (&["--json"], "needs -o FILE"),
    ];
    let out = scratch("bad.txt");
    let _ = std::fs::remove_file(&out);
    for (extra, want) in cases {
        let mut args = vec!["gen", "--family", "packed"];
        args.extend_from_slice(extra);
        if !extra.contains(&"--json") {
            args.extend_from_slice(&["-o", out.to_str().unwrap()]);
        }
        let (code, stdout, err) = tmin(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: expected '{want}' in: {err}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
        assert!(!out.exists(), "{args:?} left an output file");
    }
    // And the other way round.
    let (code, _, err) = tmin(&["gen", "--mem-factor", "1.2"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--mem-factor does not apply to --family random"),
        "{err}"
    );
    let (code, _, err) = tmin(&["gen", "--family", "dense"]);
    assert_eq!(code, 2);
    assert!(err.contains("packed"), "{err}");
}

/// FNV-1a 64: enough to pin bytes without a dependency.
fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[test]
fn random_family_writes_the_same_bytes_as_before_the_packed_family() {
    // Hashes of `tmin gen` output (instance, witness) taken from the binary built
    // before `--family` existed (commit 883a791).
    let pinned: &[(&[&str], u64, u64)] = &[
        (
            &["--seed", "1"],
            0xba7f_7f5e_de61_8b02,
            0xd7b5_59ef_3002_76e5,
        ),
        (
            &[
                "--seed",
                "7",
                "--ops",
                "40",
                "--graphs",
                "3",
                "--mem-types",
                "3",
                "--tightness",
                "1",
                "--unusable",
                "0.3",
            ],
            0xca58_6e07_085e_9f95,
            0x4008_cc9d_b151_3cd3,
        ),
        (
            &[
                "--seed",
                "3",
                "--cores",
                "1,2",
                "--mem-types",
                "0",
                "--tilings",
                "1",
                "--nodes",
                "1-3",
                "--density",
                "0",
            ],
            0x8081_11f6_772b_a7ed,
            0xcdbf_d7f2_fd25_c96f,
        ),
    ];
    for (i, (extra, text_hash, sched_hash)) in pinned.iter().enumerate() {
        let inst = scratch(&format!("random{i}.txt"));
        let sched = scratch(&format!("random{i}.sched"));
        for family in [None, Some("random")] {
            let mut args = vec!["gen"];
            if let Some(f) = family {
                args.extend_from_slice(&["--family", f]);
            }
            args.extend_from_slice(extra);
            args.extend_from_slice(&[
                "-o",
                inst.to_str().unwrap(),
                "--schedule",
                sched.to_str().unwrap(),
                "--json",
            ]);
            let (code, out, err) = tmin(&args);
            assert_eq!(code, 0, "{args:?}: {err}");
            assert_eq!(fnv(&std::fs::read(&inst).unwrap()), *text_hash, "{args:?}");
            assert_eq!(
                fnv(&std::fs::read(&sched).unwrap()),
                *sched_hash,
                "{args:?}"
            );
            let s = json(&out);
            assert_eq!(s["family"], "random");
            assert!(s["optimum"].is_null());
            assert!(s["witness_makespan"].as_u64().is_some());
            assert!(s["mem_sizes"].is_array());
        }
    }
    // Stdout output (no -o) is the same text.
    let (code, out, _) = tmin(&["gen", "--seed", "1"]);
    assert_eq!(code, 0);
    assert_eq!(fnv(out.as_bytes()), pinned[0].1);
}
