//! Time per node of one pass of the schedule generation scheme, per mode,
//! over instance sizes: the O(n log n) claim of `list::sgs` measured.
//!
//! Run: `cargo bench --bench sgs_modes -- [SIZES...]` (default 10^4 10^5 10^6;
//! add 10000000 for 10^7, about 2 GB and several minutes). Prints a markdown
//! table; `scripts/bench-sgs` saves it in results/sgs-modes.md.
//!
//! Instances: `tmin gen --ops N/50 --nodes 20-80 --tilings 2 --graphs 10
//! --mem-types 3 --cores 8,16,4 --max-time 1000 --tightness T`, with T = 0.0
//! (memory binds; with the keys of the generator's witness, its memory-blind
//! greedy schedule, which fits, the unguarded passes complete) and T = 1.0
//! (the unguarded passes deadlock; their time is then per node started).

use std::time::{Duration, Instant};

use tmin::generate::{GenConfig, generate};
use tmin::graph::NodeGraph;
use tmin::list::sgs::{Guide, Mode, Model, Stop, activity_list, run, run_keyed};
use tmin::list::tiling::OpPeaks;
use tmin::stop::Deadline;

fn main() {
    let sizes: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![10_000, 100_000, 1_000_000]
    } else {
        sizes
    };
    println!(
        "| nodes | tightness | mode | seconds | nodes started | ns per node started | outcome |"
    );
    println!("| ---: | ---: | --- | ---: | ---: | ---: | --- |");
    for &n in &sizes {
        for tightness in [0.0, 1.0] {
            bench_one(n, tightness);
        }
    }
}

fn bench_one(n: u64, tightness: f64) {
    let cfg = GenConfig {
        seed: 3,
        ops: (n / 50) as u32,
        op_types: 20,
        shapes: 4,
        tilings: 2,
        nodes_min: 20,
        nodes_max: 80,
        width: 8,
        cores: vec![8, 16, 4],
        mem_types: 3,
        tightness,
        graphs: 10,
        max_time: 1000,
        density: 1.1,
        ..GenConfig::default()
    };
    let generated = generate(&cfg).expect("generator");
    let inst = generated.instance;
    let g = NodeGraph::new(&inst, generated.witness.choice.clone()).expect("graph");
    let nodes = g.n_nodes();
    let md = Model::new(&g);
    // Keys: the witness's start order (with T = 0 the witness is the
    // memory-blind greedy schedule, which fits, so these keys complete).
    let lrp = tmin::list::priority::keys_from_starts(&generated.witness.start);
    let release = lrp.clone();
    let forever = Deadline::after(Duration::from_secs(3600));
    let row = |mode: &str, secs: f64, started: usize, outcome: String| {
        println!(
            "| {nodes} | {tightness} | {mode} | {secs:.3} | {started} | {:.0} | {outcome} |",
            secs * 1e9 / started.max(1) as f64
        );
    };
    let report = |mode: &str, f: &dyn Fn() -> Result<tmin::schedule::Schedule, Stop>| {
        let t = Instant::now();
        let res = f();
        let secs = t.elapsed().as_secs_f64();
        match res {
            Ok(_) => row(mode, secs, nodes, "complete".into()),
            Err(Stop::Deadlock(d)) => row(mode, secs, d.started, "deadlocked".into()),
            Err(e) => row(mode, secs, 0, format!("{e:?}")),
        }
    };
    report("parallel", &|| run(&md, &lrp, Mode::Parallel, &forever));
    report("parallel, dynamic release keys", &|| {
        run_keyed(&md, &release, true, Mode::Parallel, &forever)
    });
    report("window 8", &|| run(&md, &lrp, Mode::Window(8), &forever));
    report("window 2", &|| run(&md, &lrp, Mode::Window(2), &forever));
    let peaks = OpPeaks::new(&g);
    report("memory-reserving", &|| {
        run(&md, &lrp, Mode::Reserve(&peaks), &forever)
    });
    // A guide from the witness's start order (always serially legal).
    let list = activity_list(
        &g,
        &tmin::list::priority::keys_from_starts(&generated.witness.start),
    );
    let t = Instant::now();
    let guide = Guide::new(&md, &list, &forever);
    let secs = t.elapsed().as_secs_f64();
    drop(list);
    match guide {
        Ok((guide, _serial)) => {
            row("serial (guide build)", secs, nodes, "complete".into());
            report("guarded", &|| {
                run(&md, &lrp, Mode::Guarded(&guide), &forever)
            });
        }
        Err(e) => row("serial (guide build)", secs, 0, format!("{e:?}")),
    }
}
