//! The SAT encoding over event points (sums of durations, models/sat.md 1.6)
//! against the encoding over every instant (itself checked against brute force
//! in tests/sat.rs): on random small instances with sparse durations, memory
//! that binds and types with one or two cores, both must reach the same verdict.
//! `TMIN_SAT_POINTS` forces one encoding or the other.

mod common;

use common::{tmin_env, tmp_in};

/// A small random instance: 2-4 ops, 1-2 tilings of 1-4 nodes each, durations
/// from {4, 9, 15, 22} (their sums leave gaps), random intra-op edges, one
/// memory type sized between the largest demand and the total.
fn sparse(seed: u64) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut rnd = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    const DURS: [u64; 4] = [4, 9, 15, 22];
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
                run.push(format!("[{v},{},{}]", rnd(2), DURS[rnd(4) as usize]));
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

fn solve(file: &str, points: &str) -> serde_json::Value {
    let (code, out, err) = tmin_env(
        &[
            "solve",
            file,
            "--engine",
            "sat",
            "--time-limit",
            "20",
            "--json",
        ],
        &[("TMIN_SAT_POINTS", points)],
    );
    assert!(code == 0 || code == 1, "exit {code}: {err}");
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn event_points_and_every_instant_agree() {
    let (mut optimal, mut infeasible, mut compressed) = (0, 0, 0);
    for seed in 1..=200u64 {
        let text = sparse(seed);
        let f = tmp_in("sat_points", &format!("s{seed}.txt"), text.as_bytes());
        let f = f.to_str().unwrap();
        let dense = solve(f, "dense");
        let events = solve(f, "events");
        let ctx = format!("seed {seed}\n{text}\ndense: {dense}\nevents: {events}");
        assert_eq!(dense["status"], events["status"], "{ctx}");
        assert_eq!(dense["makespan"], events["makespan"], "{ctx}");
        match dense["status"].as_str() {
            Some("optimal") => optimal += 1,
            Some("infeasible") => infeasible += 1,
            s => panic!("no verdict ({s:?}): {ctx}"),
        }
        // The encoding note says, typed, whether time was compressed.
        let over_events = |v: &serde_json::Value| {
            v["notes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n["kind"] == "encoding" && n["event_points"] == true)
        };
        if over_events(&events) {
            compressed += 1;
        }
        assert!(!over_events(&dense), "{ctx}");
    }
    eprintln!("{optimal} optimal, {infeasible} infeasible, {compressed} over event points");
    assert!(optimal >= 100 && compressed >= 50, "{optimal} {compressed}");
}
