//! Time per node of the insertion passes (`list::insertion`), the inner
//! loop of list scheduling's search on memory-tight instances, and of the
//! right shift (`list::justify`) that forward-backward runs after each: the
//! same passes over the same list again and again, so two builds compare on
//! identical work (the search itself runs by the clock, and two runs of it
//! do different work).
//!
//! Run: `cargo bench --bench insertion_pass -- [SECONDS]` (default 3 per
//! row). Prints a markdown table: the outcome (with a digest of the
//! starts), passes made, microseconds a pass and nanoseconds a node, per
//! instance and pass. `scripts/bench-insertion
//! OLD_REV` runs it for two versions at once (results/insertion-pass.md).
//!
//! Instances: the medium tight set's t4 recipe (`tmin gen --ops 220 --nodes
//! 10-30 --graphs 8 --mem-types 3 --cores 4,4,8 --tilings 3 --tightness
//! 0.95 --seed 204`) and the same shape at ten times the ops;
//! the witness's tilings, its start order as the list, the horizon 1/16
//! above its makespan (the search's passes use the best makespan so far
//! and that margin).

use std::time::{Duration, Instant};

use tmin::generate::{GenConfig, generate};
use tmin::graph::NodeGraph;
use tmin::list::insertion::Insertion;
use tmin::list::justify::right_shift;
use tmin::list::sgs::activity_list;
use tmin::stop::Deadline;

fn main() {
    let secs: f64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(3.0);
    println!("| ops | nodes | pass | outcome | passes | us per pass | ns per node |");
    println!("| ---: | ---: | --- | --- | ---: | ---: | ---: |");
    for ops in [220, 2_200] {
        bench_one(ops, secs);
    }
}

fn bench_one(ops: u32, secs: f64) {
    let cfg = GenConfig {
        seed: 204,
        ops,
        nodes_min: 10,
        nodes_max: 30,
        graphs: 8,
        mem_types: 3,
        cores: vec![4, 4, 8],
        tilings: 3,
        tightness: 0.95,
        ..GenConfig::default()
    };
    let generated = generate(&cfg).expect("generator");
    let inst = generated.instance;
    let g = NodeGraph::new(&inst, generated.witness.choice.clone()).expect("graph");
    let nodes = g.n_nodes();
    let keys = tmin::list::priority::keys_from_starts(&generated.witness.start);
    let list = activity_list(&g, &keys);
    let makespan = u64::try_from(generated.witness_makespan).expect("a u64 makespan");
    let horizon = makespan + makespan / 16;
    let Some(ins) = Insertion::new(&g, horizon) else {
        println!("| {ops} | {nodes} | - | no profiles at this horizon | | | |");
        return;
    };
    let forever = Deadline::after(Duration::from_secs(3600));
    // The outcome names a digest of the starts: two builds whose rows
    // share it made the same passes.
    let row = |name: &str, f: &dyn Fn() -> Option<Vec<u64>>| {
        let t = Instant::now();
        let (mut passes, mut done) = (0u64, None);
        while passes == 0 || t.elapsed().as_secs_f64() < secs {
            done = f();
            passes += 1;
        }
        let per = t.elapsed().as_secs_f64() / passes as f64;
        let outcome = match done {
            Some(starts) => format!("complete, starts {:016x}", digest(&starts)),
            None => "failed".to_string(),
        };
        println!(
            "| {ops} | {nodes} | {name} | {outcome} | {passes} | {:.1} | {:.0} |",
            per * 1e6,
            per * 1e9 / nodes as f64
        );
    };
    row("pass", &|| ins.pass(&list, horizon, &forever));
    row("pass_of_starts", &|| {
        ins.pass_of_starts(&list, horizon, &forever)
    });
    // Forward-backward's other half: the right shift of the pass's schedule.
    if let Some(starts) = ins.pass(&list, horizon, &forever) {
        let schedule = ins.schedule(starts);
        row("right_shift", &|| {
            right_shift(&g, &schedule.start, &forever)
        });
    }
}

/// FNV-1a over the starts' bytes.
fn digest(starts: &[u64]) -> u64 {
    starts
        .iter()
        .flat_map(|s| s.to_le_bytes())
        .fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
}
