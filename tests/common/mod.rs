//! Helpers shared by the integration tests that drive the `tmin` binary.

pub(crate) mod brute;
pub(crate) mod corners;

use std::path::PathBuf;
use std::process::Command;

/// Writes `contents` to a file named `name` in this suite's scratch directory.
pub(crate) fn tmp_in(suite: &str, name: &str, contents: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(suite);
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p
}

/// Runs `tmin` with `args`: (exit code, stdout, stderr).
pub(crate) fn tmin(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tmin"))
        .args(args)
        .output()
        .expect("run tmin");
    (
        out.status.code().expect("exit code, not a signal"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// As `tmin`, with extra environment variables.
pub(crate) fn tmin_env(args: &[&str], envs: &[(&str, &str)]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tmin"))
        .args(args)
        .envs(envs.iter().copied())
        .output()
        .expect("run tmin");
    (
        out.status.code().expect("exit code, not a signal"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The tests' one random generator (xorshift64): the same seed gives the same
/// cases on every machine, so a failure names a reproducible case.
pub(crate) struct Rng(pub u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform-ish in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// An index in `0..n` (`n > 0`).
    pub(crate) fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }
    /// True with about `percent` % probability.
    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A node as (op index, local index).
pub(crate) type TinyNode = (usize, usize);
/// An edge of the derived node graph: from, to, and whether it is inter-op.
pub(crate) type TinyEdge = (TinyNode, TinyNode, bool);

/// The tests' one tiny-instance generator: a random instance in plain data
/// (1-4 ops of one tiling of 1-5 nodes, two core types, two memory types sized
/// so that every tiling is usable and memory may bind), written out as text
/// for the parser; a naive checker reads the same data (tests/check_rules.rs).
pub(crate) struct Tiny {
    pub cores: Vec<u32>,    // cores per core type 0, 1, ...
    pub mem_size: Vec<u64>, // size per memory type 0, 1, ...
    pub ops: Vec<TinyOp>,   // op ids 1, 2, ...
    pub op_edges: Vec<(usize, usize)>,
}
pub(crate) struct TinyOp {
    pub dur: Vec<u64>,
    pub core: Vec<u32>,
    pub edges: Vec<(usize, usize)>,  // local indices, i < j
    pub mem: Vec<(usize, u32, u64)>, // raw entries: node, type, size (0 allowed, repeats allowed)
}

impl Tiny {
    /// Durations 0..=3 (zero durations included).
    pub(crate) fn random(rng: &mut Rng) -> Tiny {
        Tiny::random_with(rng, &[0, 1, 2, 3])
    }

    /// Durations drawn from `durations` (e.g. sparse ones whose sums leave
    /// gaps, for event points).
    pub(crate) fn random_with(rng: &mut Rng, durations: &[u64]) -> Tiny {
        let cores = vec![1 + rng.below(3) as u32, 1 + rng.below(2) as u32];
        // Demands sum to at most 2 x 4 per node and type, so every tiling is usable.
        let mem_size = vec![8 + rng.below(3), 8 + rng.below(3)];
        let n_ops = 1 + rng.below(4) as usize;
        let ops = (0..n_ops)
            .map(|_| {
                let n = 1 + rng.below(5) as usize;
                let mut edges = vec![];
                for i in 0..n {
                    for j in i + 1..n {
                        if rng.chance(40) {
                            edges.push((i, j));
                        }
                    }
                }
                let mut mem = vec![];
                for v in 0..n {
                    for _ in 0..1 + rng.below(2) {
                        mem.push((v, rng.below(2) as u32, rng.below(5)));
                    }
                }
                TinyOp {
                    dur: (0..n)
                        .map(|_| durations[rng.below(durations.len() as u64) as usize])
                        .collect(),
                    core: (0..n).map(|_| rng.below(2) as u32).collect(),
                    edges,
                    mem,
                }
            })
            .collect();
        let mut op_edges = vec![];
        for a in 0..n_ops {
            for b in a + 1..n_ops {
                if rng.chance(50) {
                    op_edges.push((a, b));
                }
            }
        }
        Tiny {
            cores,
            mem_size,
            ops,
            op_edges,
        }
    }

    pub(crate) fn text(&self) -> String {
        let cores: Vec<String> = self
            .cores
            .iter()
            .enumerate()
            .map(|(k, c)| format!("[{k},{c}]"))
            .collect();
        let mems: Vec<String> = self
            .mem_size
            .iter()
            .enumerate()
            .map(|(k, s)| format!("[{k},{s}]"))
            .collect();
        let mut s = format!("SetSocInfo([{}],[{}])\n", cores.join(","), mems.join(","));
        for (o, op) in self.ops.iter().enumerate() {
            let e: Vec<String> = op
                .edges
                .iter()
                .map(|&(a, b)| format!("[{},{}]", a + 1, b + 1))
                .collect();
            let r: Vec<String> = (0..op.dur.len())
                .map(|v| format!("[{},{},{}]", v + 1, op.core[v], op.dur[v]))
                .collect();
            let m: Vec<String> = op
                .mem
                .iter()
                .map(|&(v, t, z)| format!("[{},{t},{z}]", v + 1))
                .collect();
            s += &format!(
                "AddOpInfo({},1,0,[{}],[{}],[{}])\n",
                o + 1,
                e.join(","),
                r.join(","),
                m.join(",")
            );
        }
        let e: Vec<String> = self
            .op_edges
            .iter()
            .map(|&(a, b)| format!("[{},{}]", a + 1, b + 1))
            .collect();
        let o: Vec<String> = (1..=self.ops.len())
            .map(|k| format!("[{k},{k},1]"))
            .collect();
        s += &format!(
            "GetInferenceScheResult([{}],[{}])\n",
            e.join(","),
            o.join(",")
        );
        s
    }

    /// All nodes as (op, local), and every edge of the derived node graph (problem.md §3).
    pub(crate) fn node_edges(&self) -> (Vec<TinyNode>, Vec<TinyEdge>) {
        let nodes: Vec<(usize, usize)> = self
            .ops
            .iter()
            .enumerate()
            .flat_map(|(o, op)| (0..op.dur.len()).map(move |v| (o, v)))
            .collect();
        let mut edges = vec![];
        for (o, op) in self.ops.iter().enumerate() {
            for &(a, b) in &op.edges {
                edges.push(((o, a), (o, b), false));
            }
        }
        for &(a, b) in &self.op_edges {
            let (oa, ob) = (&self.ops[a], &self.ops[b]);
            for u in (0..oa.dur.len()).filter(|&u| oa.edges.iter().all(|e| e.0 != u)) {
                for v in (0..ob.dur.len()).filter(|&v| ob.edges.iter().all(|e| e.1 != v)) {
                    edges.push(((a, u), (b, v), true));
                }
            }
        }
        (nodes, edges)
    }

    pub(crate) fn demand(&self, (o, v): (usize, usize), m: u32) -> u64 {
        self.ops[o]
            .mem
            .iter()
            .filter(|e| e.0 == v && e.1 == m)
            .map(|e| e.2)
            .sum()
    }
}

/// The memory-tight family of instances/sets/memtight.set
/// (`tmin::generate::memory_tight`).
pub(crate) fn memory_tight(seed: u64, ops: u32, nodes: (u32, u32)) -> tmin::instance::Instance {
    let cfg = tmin::generate::memory_tight(seed, ops, nodes);
    tmin::generate::generate(&cfg).unwrap().instance
}

/// lanes.set's lanes-150-m2 (`tmin gen --family lanes --seed 3 --ops 40
/// --nodes 2-6 --lanes 3 --mem-types 2 --tilings 2 --density 0.5`): 169
/// nodes, two memory types full at every instant of the witness, whose
/// tilings are the natural ones; optimum 600, the area bound.
pub(crate) fn lanes_150_m2() -> tmin::generate::LanesGenerated {
    tmin::generate::generate_lanes(&tmin::generate::LanesConfig {
        seed: 3,
        ops: 40,
        nodes_min: 2,
        nodes_max: 6,
        lanes: 3,
        mem_types: 2,
        tilings: 2,
        density: 0.5,
        ..tmin::generate::LanesConfig::default()
    })
    .expect("a lanes instance")
}

/// A list schedule of `inst` within `ms` milliseconds (the incumbent the
/// engines start from).
pub(crate) fn list_schedule(inst: &tmin::instance::Instance, ms: u64) -> tmin::schedule::Schedule {
    let opts = tmin::solve::SolveOptions {
        time_limit: std::time::Duration::from_millis(ms),
        ..tmin::solve::SolveOptions::default()
    };
    tmin::pipeline::solve(&tmin::list::engine::ListEngine::default(), inst, &opts)
        .schedule
        .expect("a list schedule")
}

/// A weak list schedule of `inst` (something for a search to improve): the
/// first found within 1 ms, or 4, 16, 64 ms where a loaded machine gave the
/// list engine no pass within the shorter limit (seen with 1 ms alone, four
/// tests at once on two cores).
pub(crate) fn weak_list_schedule(inst: &tmin::instance::Instance) -> tmin::schedule::Schedule {
    for ms in [1, 4, 16] {
        let opts = tmin::solve::SolveOptions {
            time_limit: std::time::Duration::from_millis(ms),
            ..tmin::solve::SolveOptions::default()
        };
        if let Some(s) =
            tmin::pipeline::solve(&tmin::list::engine::ListEngine::default(), inst, &opts).schedule
        {
            return s;
        }
    }
    list_schedule(inst, 64)
}

/// The makespan of `s`, asserting first that it passes the validator.
pub(crate) fn legal_makespan(
    inst: &tmin::instance::Instance,
    s: &tmin::schedule::Schedule,
) -> u128 {
    let g = tmin::graph::NodeGraph::new(inst, s.choice.clone()).unwrap();
    assert!(
        tmin::schedule::check(&g, s, 5).is_empty(),
        "an illegal schedule"
    );
    s.makespan(&g)
}

/// The SAT engine's optimum of `inst` within 10 s, if it proves one.
pub(crate) fn sat_optimum(inst: &tmin::instance::Instance) -> Option<u128> {
    let opts = tmin::solve::SolveOptions {
        time_limit: std::time::Duration::from_secs(10),
        ..tmin::solve::SolveOptions::default()
    };
    let r = tmin::pipeline::solve(&tmin::sat::engine::SatEngine::default(), inst, &opts);
    (r.status == tmin::solve::Status::Optimal).then(|| r.makespan.unwrap())
}
