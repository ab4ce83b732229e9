//! Helpers shared by the integration tests that drive the `tmin` binary.
#![allow(dead_code)] // each test crate uses its own subset

use std::path::PathBuf;
use std::process::Command;

/// Writes `contents` to a file named `name` in this suite's scratch directory.
pub fn tmp_in(suite: &str, name: &str, contents: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(suite);
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p
}

/// Runs `tmin` with `args`: (exit code, stdout, stderr).
pub fn tmin(args: &[&str]) -> (i32, String, String) {
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
pub fn tmin_env(args: &[&str], envs: &[(&str, &str)]) -> (i32, String, String) {
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
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform-ish in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// An index in `0..n` (`n > 0`).
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }
    /// True with about `percent` % probability.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// The tests' one tiny-instance generator: 2-4 ops, 1-2 tilings of 1-4 nodes
/// each, durations drawn from `durations`, random intra-op edges, a chain of
/// op edges, core types 0 (1-2 cores) and 1 (one core), one memory type sized
/// between the largest demand and the total (so memory may bind).
pub fn tiny_instance(rng: &mut Rng, durations: &[u64]) -> String {
    let mut rnd = |n: u64| rng.below(n);
    let cores0 = 1 + rnd(2);
    let n_ops = 2 + rnd(3);
    let mut lines = Vec::new();
    let mut demands: Vec<u64> = vec![1];
    for op in 1..=n_ops {
        for t in 0..1 + rnd(2) {
            let n = 1 + rnd(4);
            let mut edges = Vec::new();
            for a in 1..=n {
                for b in a + 1..=n {
                    if rnd(10) < 4 {
                        edges.push(format!("[{a},{b}]"));
                    }
                }
            }
            let mut run = Vec::new();
            let mut mem = Vec::new();
            for v in 1..=n {
                run.push(format!(
                    "[{v},{},{}]",
                    rnd(2),
                    durations[rnd(durations.len() as u64) as usize]
                ));
                if rnd(10) < 7 {
                    let d = 1 + rnd(6);
                    demands.push(d);
                    mem.push(format!("[{v},0,{d}]"));
                }
            }
            lines.push(format!(
                "AddOpInfo({op},1,{t},[{}],[{}],[{}])",
                edges.join(","),
                run.join(","),
                mem.join(",")
            ));
        }
    }
    let big = *demands.iter().max().unwrap();
    let total: u64 = demands.iter().sum();
    let size = big + rnd(total.saturating_sub(big).max(1));
    let op_edges: Vec<String> = (2..=n_ops)
        .filter(|_| rnd(2) == 0)
        .map(|b| format!("[{},{b}]", b - 1))
        .collect();
    let ops: Vec<String> = (1..=n_ops).map(|o| format!("[{o},{o},1]")).collect();
    format!(
        "SetSocInfo([[0,{cores0}],[1,1]],[[0,{size}]])\n{}\nGetInferenceScheResult([{}],[{}])\n",
        lines.join("\n"),
        op_edges.join(","),
        ops.join(",")
    )
}
