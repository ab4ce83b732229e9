//! `tmin gen`: determinism, the witness really is legal, the knobs do what they say,
//! and nonsense configurations are rejected.

use tmin::generate::{GenConfig, Generated, generate};
use tmin::graph::NodeGraph;
use tmin::instance::{Instance, Unusable, parse_reader};
use tmin::schedule::{self, check_reader, write_schedule};

fn cfg(seed: u64) -> GenConfig {
    GenConfig {
        seed,
        ..GenConfig::default()
    }
}

fn gen_ok(c: &GenConfig) -> Generated {
    generate(c).unwrap_or_else(|e| panic!("generate({c:?}) failed: {e}"))
}

/// Parses the generated text afresh and checks the witness against it, both as a
/// `Schedule` and through the schedule text format, as `tmin check` would.
fn assert_witness_legal(c: &GenConfig, g: &Generated) -> Instance {
    let inst = parse_reader(g.text.as_bytes(), "generated").expect("generated text parses");
    assert!(
        inst.ops_without_usable_tiling().is_empty(),
        "{c:?}: an op has no usable tiling"
    );
    let ng = NodeGraph::new(&inst, g.witness.choice.clone()).unwrap();
    assert_eq!(ng.n_nodes(), g.witness.start.len());
    let v = schedule::check(&ng, &g.witness, 10);
    assert!(v.is_empty(), "{c:?}: witness violates {:?}", v.kept);
    assert_eq!(g.witness.makespan(&ng), g.witness_makespan);

    let mut out = Vec::new();
    write_schedule(&ng, &g.witness, &mut out).unwrap();
    let rep = check_reader(&inst, &out[..], "witness", 10).unwrap();
    assert!(rep.is_legal(), "{c:?}: {:?}", rep.violations.kept);
    assert_eq!(rep.makespan, Some(g.witness_makespan));
    assert_eq!(rep.rows, g.witness.start.len());
    drop(ng);
    inst
}

#[test]
fn same_seed_same_text_other_seed_other_text() {
    let a = gen_ok(&cfg(7));
    let b = gen_ok(&cfg(7));
    assert_eq!(a.text, b.text);
    assert_eq!(a.witness, b.witness);
    assert_eq!(a.witness_makespan, b.witness_makespan);
    let c = gen_ok(&cfg(8));
    assert_ne!(a.text, c.text);
    let d = gen_ok(&GenConfig {
        max_time: 11,
        ..cfg(7)
    });
    assert_ne!(a.text, d.text);
}

#[test]
fn witness_is_legal_over_a_grid_of_configs() {
    let mut n = 0;
    for tightness in [0.0, 0.5, 1.0] {
        for unusable in [0.0, 0.5] {
            for graphs in [1, 3] {
                for mem_types in [1, 3] {
                    let c = GenConfig {
                        seed: 100 + n,
                        ops: 30,
                        tightness,
                        unusable,
                        graphs,
                        mem_types,
                        ..GenConfig::default()
                    };
                    n += 1;
                    let g = gen_ok(&c);
                    assert_witness_legal(&c, &g);
                    assert_eq!(g.mem_sizes.len(), mem_types as usize);
                    assert!(g.witness_makespan <= g.serial_makespan);
                    for m in 0..mem_types as usize {
                        // The serial schedule always fits; with tightness 0 so does
                        // the memory-blind greedy one.
                        assert!(g.mem_sizes[m] >= g.serial_peaks[m], "{c:?}");
                        if tightness == 0.0 {
                            assert!(g.mem_sizes[m] >= g.greedy_peaks[m], "{c:?}");
                        }
                    }
                    if tightness == 0.0 {
                        assert_eq!(g.witness_kind, "list schedule", "{c:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn memory_gets_tighter_with_tightness() {
    for seed in 1..4 {
        let sizes: Vec<Vec<u64>> = [0.0, 0.5, 1.0]
            .iter()
            .map(|&tightness| {
                let c = GenConfig {
                    ops: 40,
                    graphs: 2,
                    tightness,
                    ..cfg(seed)
                };
                gen_ok(&c).mem_sizes
            })
            .collect();
        for w in sizes.windows(2) {
            assert!(w[0].iter().zip(&w[1]).all(|(loose, tight)| loose >= tight));
        }
        assert_ne!(sizes[0], sizes[2], "seed {seed}: tightness changes nothing");
    }
}

#[test]
fn tight_memory_binds_the_memory_blind_schedule() {
    // At tightness 1, for some seed, the memory-blind greedy schedule no longer fits:
    // a real scheduler has to take memory into account.
    let binds = (1..10).any(|seed| {
        let g = gen_ok(&GenConfig {
            ops: 40,
            tightness: 1.0,
            ..cfg(seed)
        });
        g.greedy_peaks.iter().zip(&g.mem_sizes).any(|(p, z)| p > z)
    });
    assert!(binds);
}

fn count_unusable(inst: &Instance) -> (usize, usize, usize) {
    let (mut core, mut mem, mut other) = (0, 0, 0);
    for t in &inst.library.tilings {
        match &t.usable {
            Ok(()) => {}
            Err(Unusable::MissingCoreType { .. }) => core += 1,
            Err(Unusable::TooMuchMemory { .. }) => mem += 1,
            Err(_) => other += 1,
        }
    }
    (core, mem, other)
}

#[test]
fn unusable_tilings_have_the_planned_share_and_causes() {
    for (mem_types, unusable, tilings) in [(2, 0.5, 4), (1, 1.0, 3), (0, 0.5, 3), (2, 0.3, 5)] {
        let c = GenConfig {
            ops: 40,
            op_types: 3,
            shapes: 2,
            tilings,
            mem_types,
            unusable,
            ..cfg(5)
        };
        let g = gen_ok(&c);
        let inst = assert_witness_legal(&c, &g);
        let groups = 3 * 2;
        assert_eq!(inst.library.groups.len(), groups);
        assert_eq!(inst.library.tilings.len(), groups * tilings as usize);
        let expected = (unusable * (groups * (tilings as usize - 1)) as f64).round() as usize;
        assert_eq!(c.unusable_count(), expected as u64);
        let (core, mem, other) = count_unusable(&inst);
        assert_eq!(core + mem + other, expected, "{c:?}");
        assert_eq!(other, 0);
        if mem_types == 0 {
            assert_eq!(mem, 0);
        } else {
            // The two causes alternate.
            assert_eq!(core, expected.div_ceil(2), "{c:?}");
            assert_eq!(mem, expected / 2, "{c:?}");
        }
        // Every group keeps a usable tiling, and no witness tiling is unusable.
        for grp in &inst.library.groups {
            assert!(
                grp.tilings
                    .iter()
                    .any(|&t| inst.library.tilings[t as usize].is_usable())
            );
        }
        for &t in &g.witness.choice {
            assert!(inst.library.tilings[t as usize].is_usable());
        }
        // "Too much memory" means exactly one more than the final size.
        for t in &inst.library.tilings {
            if let Err(Unusable::TooMuchMemory { demand, size, .. }) = t.usable {
                assert_eq!(demand, u128::from(size) + 1);
            }
        }
    }
}

#[test]
fn no_unusable_tilings_when_share_is_zero() {
    let c = GenConfig {
        tilings: 5,
        unusable: 0.0,
        ..cfg(3)
    };
    let g = gen_ok(&c);
    assert_eq!(count_unusable(&g.instance), (0, 0, 0));
    assert!(g.instance.warnings.is_empty(), "{:?}", g.instance.warnings);
}

#[test]
fn instance_shape_follows_the_config() {
    let c = GenConfig {
        ops: 300,
        op_types: 5,
        shapes: 3,
        tilings: 2,
        nodes_min: 3,
        nodes_max: 12,
        width: 2,
        cores: vec![1, 3],
        mem_types: 3,
        graphs: 4,
        max_time: 7,
        density: 1.5,
        ..cfg(11)
    };
    let g = gen_ok(&c);
    let inst = assert_witness_legal(&c, &g);
    let p = &inst.platform;
    assert_eq!(
        p.cores.iter().map(|t| (t.id, t.count)).collect::<Vec<_>>(),
        vec![(0, 1), (1, 3)]
    );
    assert_eq!(
        p.mems.iter().map(|m| m.id).collect::<Vec<_>>(),
        vec![0, 1, 2]
    );
    let lib = &inst.library;
    for (ti, t) in lib.tilings.iter().enumerate() {
        assert!((1..=5).contains(&t.op_type));
        assert!([16, 32, 64].contains(&t.shape));
        assert!((3..=12).contains(&t.n_nodes), "tiling {ti}");
        // Layers of at most `width` nodes: the longest-path depth of a node is its layer.
        let mut depth = vec![0usize; t.n_nodes as usize];
        for l in 0..t.n_nodes {
            for &p in lib.preds(t.first_node + l) {
                assert!(p < l, "nodes are numbered layer by layer");
                depth[l as usize] = depth[l as usize].max(depth[p as usize] + 1);
            }
        }
        let mut per_depth = vec![0u32; t.n_nodes as usize];
        for d in depth {
            per_depth[d] += 1;
        }
        assert!(
            per_depth.iter().all(|&k| k <= 2),
            "tiling {ti}: {per_depth:?}"
        );
        for v in t.nodes() {
            assert!((1..=7).contains(&lib.node_dur[v as usize]));
            assert!(lib.mems(v).len() <= 3);
        }
    }
    // Op ids 1..=ops, 4 independent graphs: op edges never cross graphs, and with
    // density >= 1 every op after the first of its graph has a predecessor, so the
    // weakly connected components are exactly the graphs.
    let graph = &inst.graph;
    assert_eq!(graph.n_ops(), 300);
    assert!(
        graph
            .ops
            .iter()
            .enumerate()
            .all(|(i, o)| o.id == i as u32 + 1)
    );
    let mut comp: Vec<usize> = (0..300).collect();
    fn find(c: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while c[r] != r {
            r = c[r];
        }
        c[x] = r;
        r
    }
    for a in 0..300u32 {
        for &b in graph.succs(a) {
            assert_eq!(a % 4, b % 4, "op edge between graphs");
            assert!(a < b);
            let (ra, rb) = (find(&mut comp, a as usize), find(&mut comp, b as usize));
            comp[ra] = rb;
        }
    }
    let roots = (0..300).filter(|&x| find(&mut comp, x) == x).count();
    assert_eq!(roots, 4);
    // About `density` op edges per op (a few duplicates are dropped).
    let per_op = graph.n_edges() as f64 / 300.0;
    assert!((1.2..=1.5).contains(&per_op), "{per_op} op edges per op");
}

#[test]
fn zero_ops_and_single_core_configs_work() {
    let c = GenConfig { ops: 0, ..cfg(1) };
    let g = gen_ok(&c);
    assert_witness_legal(&c, &g);
    assert_eq!(g.witness_makespan, 0);
    assert!(g.text.ends_with("GetInferenceScheResult([],[])\n"));

    let c = GenConfig {
        ops: 10,
        cores: vec![1],
        mem_types: 0,
        density: 0.0,
        tilings: 1,
        nodes_min: 1,
        nodes_max: 1,
        ..cfg(2)
    };
    let g = gen_ok(&c);
    assert_witness_legal(&c, &g);
    assert_eq!(g.instance.graph.n_edges(), 0);
    // One core, one node per op: every schedule is serial.
    let total: u64 = g.witness.start.len() as u64;
    assert_eq!(total, 10);
    assert_eq!(g.witness_makespan, g.serial_makespan);
}

#[test]
#[expect(
    clippy::too_many_lines,
    reason = "a table of rejected configurations, one case each"
)]
fn validate_rejects_nonsense() {
    assert!(GenConfig::default().validate().is_ok());
    let cases: Vec<(GenConfig, &str)> = vec![
        (
            GenConfig {
                op_types: 0,
                ..cfg(1)
            },
            "--op-types",
        ),
        (
            GenConfig {
                op_types: 100,
                ..cfg(1)
            },
            "--op-types",
        ),
        (
            GenConfig {
                shapes: 0,
                ..cfg(1)
            },
            "--shapes",
        ),
        (
            GenConfig {
                tilings: 0,
                ..cfg(1)
            },
            "--tilings",
        ),
        (
            GenConfig {
                nodes_min: 0,
                ..cfg(1)
            },
            "at least 1 node",
        ),
        (
            GenConfig {
                nodes_min: 9,
                nodes_max: 8,
                ..cfg(1)
            },
            "larger than MAX",
        ),
        (
            GenConfig {
                nodes_min: 1,
                nodes_max: 10_000,
                ..cfg(1)
            },
            "nodes per subgraph",
        ),
        (GenConfig { width: 0, ..cfg(1) }, "--width"),
        (
            GenConfig {
                cores: vec![],
                ..cfg(1)
            },
            "--cores",
        ),
        (
            GenConfig {
                cores: vec![2, 0],
                ..cfg(1)
            },
            "core type 1 has 0 cores",
        ),
        (
            GenConfig {
                cores: vec![1000],
                ..cfg(1)
            },
            "1..=999",
        ),
        (
            GenConfig {
                cores: vec![1; 11],
                ..cfg(1)
            },
            "--cores",
        ),
        (
            GenConfig {
                mem_types: 11,
                ..cfg(1)
            },
            "--mem-types",
        ),
        (
            GenConfig {
                tightness: 1.5,
                ..cfg(1)
            },
            "--tightness",
        ),
        (
            GenConfig {
                tightness: -0.1,
                ..cfg(1)
            },
            "--tightness",
        ),
        (
            GenConfig {
                tightness: f64::NAN,
                ..cfg(1)
            },
            "--tightness",
        ),
        (
            GenConfig {
                unusable: 2.0,
                ..cfg(1)
            },
            "--unusable",
        ),
        (
            GenConfig {
                graphs: 0,
                ..cfg(1)
            },
            "--graphs",
        ),
        (
            GenConfig {
                graphs: 21,
                ..cfg(1)
            },
            "--graphs",
        ),
        (
            GenConfig {
                max_time: 0,
                ..cfg(1)
            },
            "--max-time",
        ),
        (
            GenConfig {
                max_time: u64::MAX,
                ..cfg(1)
            },
            "--max-time",
        ),
        (
            GenConfig {
                density: -1.0,
                ..cfg(1)
            },
            "--density",
        ),
        (
            GenConfig {
                density: f64::INFINITY,
                ..cfg(1)
            },
            "--density",
        ),
        (
            GenConfig {
                ops: 10_000_000,
                density: 2.0,
                nodes_min: 1,
                nodes_max: 1,
                ..cfg(1)
            },
            "op edges",
        ),
        (
            GenConfig {
                ops: 3_000_000,
                nodes_min: 1,
                nodes_max: 10,
                density: 1.0,
                ..cfg(1)
            },
            "nodes",
        ),
        (
            GenConfig {
                op_types: 10,
                shapes: 10,
                tilings: 10,
                nodes_min: 1,
                nodes_max: 9999,
                ..cfg(1)
            },
            "op library",
        ),
    ];
    for (c, want) in cases {
        let e = c
            .validate()
            .expect_err(&format!("{c:?} should be rejected"));
        assert!(e.contains(want), "{c:?}: message '{e}' lacks '{want}'");
        // generate() refuses it too, with the same message.
        assert_eq!(generate(&c).err(), Some(e));
    }
    // Edge values that are fine.
    for c in [
        GenConfig {
            ops: 0,
            graphs: 1,
            ..cfg(1)
        },
        GenConfig {
            graphs: 20,
            ..cfg(1)
        },
        GenConfig {
            tightness: 1.0,
            unusable: 1.0,
            density: 0.0,
            ..cfg(1)
        },
        GenConfig {
            cores: vec![999; 10],
            mem_types: 10,
            ..cfg(1)
        },
    ] {
        assert!(c.validate().is_ok(), "{c:?}: {:?}", c.validate());
    }
}

#[test]
fn cli_gen_writes_an_instance_and_a_legal_schedule() {
    let dir = std::env::temp_dir().join(format!("tmin-gen-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let inst = dir.join("i.txt");
    let sched = dir.join("s.txt");
    let exe = env!("CARGO_BIN_EXE_tmin");
    let out = std::process::Command::new(exe)
        .args([
            "gen",
            "--seed",
            "9",
            "--ops",
            "25",
            "--unusable",
            "0.5",
            "--graphs",
            "2",
        ])
        .arg("-o")
        .arg(&inst)
        .arg("--schedule")
        .arg(&sched)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = std::process::Command::new(exe)
        .arg("check")
        .arg(&inst)
        .arg(&sched)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("legal"));
    // The file is the library's text, byte for byte.
    let text = std::fs::read_to_string(&inst).unwrap();
    let g = gen_ok(&GenConfig {
        seed: 9,
        ops: 25,
        unusable: 0.5,
        graphs: 2,
        ..GenConfig::default()
    });
    assert_eq!(text, g.text);
    let bad = std::process::Command::new(exe)
        .args(["gen", "--tightness", "2"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--tightness"));
    std::fs::remove_dir_all(&dir).unwrap();
}
