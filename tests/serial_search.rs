//! The searched serial order (`src/list/serial_search.rs`, models/list.md
//! "Searched serial orders"): a guide where every greedy order traps memory.

use std::time::Duration;

use tmin::graph::NodeGraph;
use tmin::instance::Instance;
use tmin::list::search::Searcher;
use tmin::list::serial_search::searched_order;
use tmin::list::sgs::{Guide, Model};
use tmin::schedule::check;
use tmin::solve::{SolveOptions, Status};
use tmin::stop::Deadline;

fn forever() -> Deadline {
    Deadline::after(Duration::from_secs(3600))
}

/// The tilings of a SAT engine's schedule (makespan 211) of
/// `tmin gen --ops 32 --nodes 8-16 --graphs 3 --mem-types 3 --cores 4,4,8
/// --tilings 3 --tightness 1.0 --seed 1`, each op fixed to its tiling (an op
/// type of its own): memory holds about three of the largest nodes of a
/// type, and every frugal or fitted order traps it.
fn tight() -> Instance {
    let path = format!(
        "{}/tests/data/tight-sat-tilings.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    tmin::instance::parse_file(std::path::Path::new(&path)).expect("instance parses")
}

fn only_choice(inst: &Instance) -> Vec<u32> {
    (0..inst.graph.n_ops() as u32)
        .map(|o| inst.usable_tilings(o).next().expect("one tiling an op"))
        .collect()
}

#[test]
fn a_searched_order_guides_where_no_greedy_order_fits() {
    let inst = tight();
    let g = NodeGraph::new(&inst, only_choice(&inst)).unwrap();
    // The greedy ways to a guide all trap memory here.
    let mut greedy = Searcher::new(&g);
    assert!(!greedy.first_schedule(&forever()));
    assert!(greedy.best.is_none());
    // The search finds a list, and the scheme's serial pass accepts it.
    let list = searched_order(&g, &forever(), 10_000_000, 1).expect("a serial order");
    let mut sorted = list.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..g.n_nodes() as u32).collect::<Vec<_>>());
    let (_, s) = Guide::new(&Model::new(&g), &list, &forever()).expect("a guide");
    assert!(check(&g, &s, 10).is_empty());
    // The list engine ends with a schedule (it ended with none).
    let opts = SolveOptions {
        time_limit: Duration::from_secs(3),
        ..SolveOptions::default()
    };
    let r = tmin::pipeline::solve(&tmin::list::engine::ListEngine::default(), &inst, &opts);
    assert_eq!(r.status, Status::Feasible, "{:?}", r.notes);
    let s = r.schedule.expect("a schedule");
    let g = NodeGraph::new(&inst, s.choice.clone()).unwrap();
    assert!(check(&g, &s, 10).is_empty());
}
