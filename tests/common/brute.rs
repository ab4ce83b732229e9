//! A brute force over the plain data of `corners.rs`, independent of
//! tmin's parser, node graph and validator: every tiling choice over the
//! usable tilings (problem.md §6), every start vector in time units up to
//! the sum of the choice's durations, each judged by the rules of
//! problem.md §4 written out again here.
//!
//! Why starts in units and up to the sum of durations suffice
//! (models/bounds.md §9, time maps): every legal schedule maps to one whose
//! starts are multiples of the unit (the gcd of the durations) and to one
//! without an instant where no node runs, neither later. Both arguments are
//! themselves checked (tests/corners.rs: the brute force in units of 1 on
//! instances with a larger unit, and compaction of legal schedules).

use super::corners::Corner;

/// One tiling choice as a flat graph (units of time).
struct Flat {
    /// Per node: `(op index, local index)`.
    label: Vec<(usize, usize)>,
    dur: Vec<u64>,
    /// Core type index into `Corner::cores`.
    core: Vec<usize>,
    /// Per memory type index (`Corner::mems`), per node: the demand
    /// (entries of that type added up; zero entries are no demand).
    demand: Vec<Vec<u128>>,
    succ: Vec<Vec<usize>>,
    pred: Vec<Vec<usize>>,
    order: Vec<usize>,
    /// Cores per core type index, size per memory type index.
    cores: Vec<usize>,
    sizes: Vec<u128>,
}

/// What the brute force finds.
#[derive(Clone, Debug)]
pub(crate) struct Brute {
    /// The least makespan (time), `None` when no choice has a legal
    /// schedule (or some op has no usable tiling).
    pub optimum: Option<u128>,
    /// Per tiling choice (tiling indices into each op's group, usable ones
    /// only): its least makespan.
    pub choices: Vec<(Vec<usize>, Option<u128>)>,
    /// An optimal schedule as `[op id, tiling id, node id, start, core]`.
    pub rows: Vec<[u128; 5]>,
}

impl Brute {
    /// The optimal schedule in the output format (problem.md §5).
    pub(crate) fn schedule_text(&self) -> String {
        let rows: Vec<String> = self
            .rows
            .iter()
            .map(|r| format!("[{},{},{},{},{}]", r[0], r[1], r[2], r[3], r[4]))
            .collect();
        format!("[{}]\n", rows.join(","))
    }
}

/// Every choice of usable tilings (indices into each op's group).
pub(crate) fn choices(c: &Corner) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new()];
    for &(_, g) in &c.ops {
        let usable: Vec<usize> = (0..c.groups[g].tilings.len())
            .filter(|&t| c.usable(&c.groups[g].tilings[t]))
            .collect();
        out = out
            .into_iter()
            .flat_map(|pre| {
                usable.iter().map(move |&t| {
                    let mut x = pre.clone();
                    x.push(t);
                    x
                })
            })
            .collect();
    }
    out
}

/// The least makespan over every choice and every start vector.
pub(crate) fn solve(c: &Corner) -> Brute {
    let mut best: Option<(u64, Vec<[u128; 5]>)> = None;
    let mut per_choice = Vec::new();
    for choice in choices(c) {
        let f = flatten(c, &choice);
        let found = least(&f);
        per_choice.push((
            choice.clone(),
            found
                .as_ref()
                .map(|(ms, _)| u128::from(*ms) * u128::from(c.time_unit)),
        ));
        if let Some((ms, starts)) = found
            && best.as_ref().is_none_or(|b| ms < b.0)
        {
            best = Some((ms, rows(c, &choice, &f, &starts)));
        }
    }
    Brute {
        optimum: best
            .as_ref()
            .map(|b| u128::from(b.0) * u128::from(c.time_unit)),
        choices: per_choice,
        rows: best.map(|b| b.1).unwrap_or_default(),
    }
}

/// problem.md §3: the chosen tilings' nodes, their edges, and for every op
/// edge `a -> b` an edge from each sink of `a` to each source of `b` (an
/// empty tiling has neither, so edges through it constrain nothing).
fn flatten(c: &Corner, choice: &[usize]) -> Flat {
    let mut f = Flat {
        label: Vec::new(),
        dur: Vec::new(),
        core: Vec::new(),
        demand: vec![Vec::new(); c.mems.len()],
        succ: Vec::new(),
        pred: Vec::new(),
        order: Vec::new(),
        cores: c.cores.iter().map(|k| k.1 as usize).collect(),
        sizes: c.mems.iter().map(|m| u128::from(m.1)).collect(),
    };
    let mut base = Vec::new();
    for (o, &(_, g)) in c.ops.iter().enumerate() {
        base.push(f.dur.len());
        let t = &c.groups[g].tilings[choice[o]];
        for (l, n) in t.nodes.iter().enumerate() {
            f.label.push((o, l));
            f.dur.push(n.dur);
            f.core
                .push(c.cores.iter().position(|x| x.0 == n.core).unwrap());
            for (m, &(id, _)) in c.mems.iter().enumerate() {
                let d = n.mem.iter().filter(|e| e.0 == id).map(|e| u128::from(e.1));
                f.demand[m].push(d.sum());
            }
        }
    }
    let n = f.dur.len();
    f.succ = vec![Vec::new(); n];
    f.pred = vec![Vec::new(); n];
    let mut edge = |a: usize, b: usize| {
        f.succ[a].push(b);
        f.pred[b].push(a);
    };
    for (o, &(_, g)) in c.ops.iter().enumerate() {
        for &(a, b) in &c.groups[g].tilings[choice[o]].edges {
            edge(base[o] + a, base[o] + b);
        }
    }
    for &(a, b) in &c.op_edges {
        let (ta, tb) = (
            &c.groups[c.ops[a].1].tilings[choice[a]],
            &c.groups[c.ops[b].1].tilings[choice[b]],
        );
        for u in (0..ta.nodes.len()).filter(|&u| ta.edges.iter().all(|e| e.0 != u)) {
            for v in (0..tb.nodes.len()).filter(|&v| tb.edges.iter().all(|e| e.1 != v)) {
                edge(base[a] + u, base[b] + v);
            }
        }
    }
    // Kahn's order.
    let mut indeg: Vec<usize> = f.pred.iter().map(Vec::len).collect();
    let mut ready: Vec<usize> = (0..n).filter(|&v| indeg[v] == 0).collect();
    while let Some(v) = ready.pop() {
        f.order.push(v);
        for &w in &f.succ[v] {
            indeg[w] -= 1;
            if indeg[w] == 0 {
                ready.push(w);
            }
        }
    }
    assert_eq!(f.order.len(), n, "the node graph is acyclic");
    f
}

/// The least makespan (units) of `f` and its starts, `None` when no start
/// vector is legal.
fn least(f: &Flat) -> Option<(u64, Vec<u64>)> {
    let horizon: u64 = f.dur.iter().sum();
    let mut start = vec![u64::MAX; f.dur.len()];
    let mut best = None;
    dfs(f, 0, horizon, &mut start, &mut best);
    best
}

fn dfs(f: &Flat, k: usize, horizon: u64, start: &mut [u64], best: &mut Option<(u64, Vec<u64>)>) {
    if k == f.order.len() {
        let ms = (0..start.len())
            .map(|v| start[v] + f.dur[v])
            .max()
            .unwrap_or(0);
        if best.as_ref().is_none_or(|b| ms < b.0) {
            *best = Some((ms, start.to_vec()));
        }
        return;
    }
    let v = f.order[k];
    let ready = f.pred[v]
        .iter()
        .map(|&u| start[u] + f.dur[u])
        .max()
        .unwrap_or(0);
    let mut last = horizon - f.dur[v];
    if let Some((b, _)) = best {
        // Only strictly better schedules are of interest.
        if *b <= f.dur[v] {
            return;
        }
        last = last.min(*b - 1 - f.dur[v]);
    }
    for s in ready..=last {
        start[v] = s;
        if cores_fit(f, start, v) && memory_fits(f, start) {
            dfs(f, k + 1, horizon, start, best);
        }
    }
    start[v] = u64::MAX;
}

/// Rule 3: at every instant of `v`'s run, the placed nodes of its core
/// type running then (durations above 0) number at most its cores
/// (interval graphs: then core ids exist, given by `rows`).
fn cores_fit(f: &Flat, start: &[u64], v: usize) -> bool {
    if f.dur[v] == 0 {
        return true;
    }
    let placed = |u: usize| start[u] != u64::MAX && f.dur[u] > 0 && f.core[u] == f.core[v];
    let runs = |u: usize, t: u64| start[u] <= t && t < start[u] + f.dur[u];
    let (s, e) = (start[v], start[v] + f.dur[v]);
    let instants = (0..start.len())
        .filter(|&u| placed(u) && start[u] > s && start[u] < e)
        .map(|u| start[u])
        .chain([s]);
    let cap = f.cores[f.core[v]];
    instants.into_iter().all(|t| {
        (0..start.len())
            .filter(|&u| placed(u) && runs(u, t))
            .count()
            <= cap
    })
}

/// Rule 4 over the placed nodes: `x` holds `d(x, m)` over `[start(x),
/// R)`, `R` the latest of its end and its placed successors' starts that
/// demand `m`. Holds only grow as more successors are placed, so an
/// overflow here is an overflow of every completion.
fn memory_fits(f: &Flat, start: &[u64]) -> bool {
    let placed = |u: usize| start[u] != u64::MAX;
    f.demand.iter().enumerate().all(|(m, d)| {
        let holds: Vec<(u64, u64, u128)> = (0..start.len())
            .filter(|&x| placed(x) && d[x] > 0)
            .map(|x| {
                let r = f.succ[x]
                    .iter()
                    .filter(|&&y| placed(y) && d[y] > 0)
                    .map(|&y| start[y])
                    .fold(start[x] + f.dur[x], u64::max);
                (start[x], r, d[x])
            })
            .collect();
        holds.iter().all(|&(t, _, _)| {
            let held: u128 = holds
                .iter()
                .filter(|h| h.0 <= t && t < h.1)
                .map(|h| h.2)
                .sum();
            held <= f.sizes[m]
        })
    })
}

/// The rows of a schedule of `f` with `starts` (units): core ids by
/// interval colouring in start order.
fn rows(c: &Corner, choice: &[usize], f: &Flat, starts: &[u64]) -> Vec<[u128; 5]> {
    let mut by_start: Vec<usize> = (0..starts.len()).collect();
    by_start.sort_by_key(|&v| starts[v]);
    let mut free_at: Vec<Vec<u64>> = c.cores.iter().map(|k| vec![0; k.1 as usize]).collect();
    let mut core = vec![0usize; starts.len()];
    for v in by_start {
        if f.dur[v] == 0 {
            continue;
        }
        let lanes = &mut free_at[f.core[v]];
        let k = lanes.iter().position(|&e| e <= starts[v]).unwrap();
        lanes[k] = starts[v] + f.dur[v];
        core[v] = k;
    }
    let unit = u128::from(c.time_unit);
    (0..starts.len())
        .map(|v| {
            let (o, l) = f.label[v];
            let t = &c.groups[c.ops[o].1].tilings[choice[o]];
            [
                u128::from(c.ops[o].0),
                u128::from(t.id),
                u128::from(t.nodes[l].id),
                u128::from(starts[v]) * unit,
                core[v] as u128,
            ]
        })
        .collect()
}
