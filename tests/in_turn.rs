//! The independent graphs (`Instance::independent_graphs`), the instance of
//! some of them (`Instance::restricted_to`), and the list engine's last way
//! to a schedule: each graph scheduled alone, packed in time
//! (`tmin::list::in_turn`).

use std::time::Duration;

use tmin::graph::NodeGraph;
use tmin::instance::{Instance, parse_reader};
use tmin::list::ListOptions;
use tmin::schedule::check;
use tmin::solve::{SolveOptions, Status};
use tmin::stop::Deadline;

/// The ids of ops `ops` (op indices).
fn ids(inst: &Instance, ops: &[u32]) -> Vec<u32> {
    ops.iter().map(|&o| inst.graph.ops[o as usize].id).collect()
}

#[test]
fn independent_graphs_split_the_op_graph() {
    let text = "SetSocInfo([[0,1]],[[0,10]])\n\
        AddOpInfo(1,1,0,[],[[1,0,2]],[[1,0,1]])\n\
        GetInferenceScheResult([[5,9],[7,3],[9,2]],\
        [[5,1,1],[3,1,1],[9,1,1],[7,1,1],[1,1,1],[2,1,1]])\n";
    let inst = parse_reader(text.as_bytes(), "graphs.txt").unwrap();
    let graphs = inst.independent_graphs();
    let by_ids: Vec<Vec<u32>> = graphs.iter().map(|g| ids(&inst, g)).collect();
    assert_eq!(by_ids, vec![vec![5, 9, 2], vec![3, 7], vec![1]]);
    let sub = inst.restricted_to(&graphs[0]);
    assert_eq!(ids(&sub, &[0, 1, 2]), vec![5, 9, 2]);
    let edges: Vec<(u32, u32)> = (0..sub.graph.n_ops() as u32)
        .flat_map(|a| sub.graph.succs(a).iter().map(move |&b| (a, b)))
        .map(|(a, b)| (sub.graph.ops[a as usize].id, sub.graph.ops[b as usize].id))
        .collect();
    assert_eq!(edges, vec![(5, 9), (9, 2)]);
    assert_eq!(sub.graph.index_of(9), Some(1));
    assert_eq!(sub.graph.preds(2), &[1]);
    assert_eq!(inst.restricted_to(&graphs[2]).graph.n_edges(), 0);
}

/// Two graphs of one op each, a chain of two nodes (3 time units each) on
/// two cores, each node holding one unit of memory: with two units both
/// graphs run side by side, with one they run one after the other.
#[test]
fn graphs_are_packed_side_by_side_where_memory_leaves_room() {
    for (size, makespan) in [(2, 6), (1, 12)] {
        let text = format!(
            "SetSocInfo([[0,2]],[[0,{size}]])\n\
             AddOpInfo(1,1,0,[[1,2]],[[1,0,3],[2,0,3]],[[1,0,1],[2,0,1]])\n\
             GetInferenceScheResult([],[[1,1,1],[2,1,1]])\n"
        );
        let inst = parse_reader(text.as_bytes(), "two.txt").unwrap();
        let graphs = inst.independent_graphs();
        assert_eq!(graphs.len(), 2);
        let f = tmin::list::in_turn::schedule(
            &inst,
            &graphs,
            &ListOptions::default(),
            1,
            &Deadline::after(Duration::from_secs(5)),
        )
        .expect("each graph alone has a schedule");
        let g = NodeGraph::new(&inst, f.schedule.choice.clone()).unwrap();
        assert!(check(&g, &f.schedule, 5).is_empty(), "memory {size}");
        assert_eq!(f.makespan, makespan, "memory {size}");
        assert_eq!(f.schedule.makespan(&g), u128::from(makespan));
    }
}

/// 30 copies of the memory-tight instance of tests/serial_search.rs (90
/// graphs, 10,080 nodes, memory shared): every pass over the whole and the
/// searched serial order trap memory; each graph alone is scheduled, and
/// the list engine returns them packed.
#[test]
fn thirty_copies_of_a_memory_tight_instance_get_a_schedule() {
    let path = format!(
        "{}/tests/data/tight-sat-tilings.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let (head, graph) = text.split_once("GetInferenceScheResult(").unwrap();
    let (edges, ops) = graph
        .trim_end()
        .trim_end_matches(')')
        .split_once("],[[")
        .unwrap();
    let pairs = |s: &str| -> Vec<Vec<u32>> {
        s.trim_matches(|c| c == '[' || c == ']')
            .split("],[")
            .map(|p| p.split(',').map(|x| x.trim().parse().unwrap()).collect())
            .collect()
    };
    let (edges, ops) = (pairs(edges), pairs(ops));
    let step = ops.iter().map(|o| o[0]).max().unwrap() + 1;
    let (mut e, mut o) = (Vec::new(), Vec::new());
    for k in 0..30 {
        e.extend(
            edges
                .iter()
                .map(|p| format!("[{},{}]", p[0] + k * step, p[1] + k * step)),
        );
        o.extend(
            ops.iter()
                .map(|p| format!("[{},{},{}]", p[0] + k * step, p[1], p[2])),
        );
    }
    let text = format!(
        "{head}GetInferenceScheResult([{}],[{}])\n",
        e.join(","),
        o.join(",")
    );
    let inst = parse_reader(text.as_bytes(), "copies.txt").unwrap();
    assert_eq!(inst.independent_graphs().len(), 90);
    let opts = SolveOptions {
        time_limit: Duration::from_secs(4),
        ..SolveOptions::default()
    };
    let r = tmin::list::solve(&inst, &opts);
    assert_eq!(r.status, Status::Feasible, "{:?}", r.notes);
    let s = r.schedule.expect("a schedule");
    let g = NodeGraph::new(&inst, s.choice.clone()).unwrap();
    assert!(check(&g, &s, 5).is_empty());
    assert!(
        r.notes
            .iter()
            .any(|n| n.text.contains("independent graphs, each scheduled alone")),
        "{:?}",
        r.notes
    );
}
