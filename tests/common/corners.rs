//! The corner generator: tiny instances that reach every rule and corner of
//! docs/problem.md, kept as plain data so that the brute force
//! (`brute.rs`) reads the instance without tmin's parser, and written as
//! the text tmin reads.
//!
//! Corners drawn: one to three core types with non-contiguous ids, one or
//! several cores each, and sometimes none (problem.md §6: a type with 0
//! cores counts as missing); zero to three memory types; groups of one to
//! three tilings shared by several ops, tiling, node and op ids out of
//! order; empty tilings, and op edges through the ops that use them; zero
//! durations; nodes without memory, with several types, with repeated and
//! zero entries; unusable tilings (a missing core or memory type, a type
//! with no cores, a demand above the size, entries whose sum passes 2^64);
//! one or several graphs (components); memory from slack down to the
//! largest single demand and below it; durations and sizes scaled to
//! within a few bits of 2^64.

use super::Rng;

/// An instance as plain data. Durations are in units of `time_unit` (the
/// text writes `dur * time_unit`); memory amounts and sizes are as written.
#[derive(Clone, Debug)]
pub(crate) struct Corner {
    /// `(core type id, count)`.
    pub cores: Vec<(u32, u32)>,
    /// `(memory type id, size)`.
    pub mems: Vec<(u32, u64)>,
    pub groups: Vec<Group>,
    /// `(op id, group index)`.
    pub ops: Vec<(u32, usize)>,
    /// Op edges as op indices.
    pub op_edges: Vec<(usize, usize)>,
    pub time_unit: u64,
}

/// One `(OpType, Shape)` of the library and its tilings, in file order.
#[derive(Clone, Debug)]
pub(crate) struct Group {
    pub op_type: u32,
    pub shape: u32,
    pub tilings: Vec<Tiling>,
}

#[derive(Clone, Debug)]
pub(crate) struct Tiling {
    pub id: u32,
    pub nodes: Vec<Node>,
    /// Intra-op edges as local node indices.
    pub edges: Vec<(usize, usize)>,
}

#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub id: u32,
    /// Core type id (possibly one the platform lacks).
    pub core: u32,
    /// Duration in units of `Corner::time_unit`.
    pub dur: u64,
    /// Raw entries `(memory type id, amount)`: zeros, repeats and missing
    /// types included.
    pub mem: Vec<(u32, u64)>,
}

/// Largest node count of one tiling choice (the brute force enumerates
/// every start vector).
pub(crate) const MAX_NODES: usize = 6;

/// Most tiling choices of one instance.
pub(crate) const MAX_CHOICES: usize = 27;

/// `k` distinct values of `0..n` in random order.
fn distinct(k: usize, n: u64, rng: &mut Rng) -> Vec<u32> {
    let mut all: Vec<u32> = (0..n as u32).collect();
    for i in (1..all.len()).rev() {
        all.swap(i, rng.index(i + 1));
    }
    all.truncate(k);
    all
}

/// `a` with `percent` % probability, else `b`.
fn pick(rng: &mut Rng, percent: u64, a: u64, b: u64) -> u64 {
    if rng.chance(percent) { a } else { b }
}

/// A random DAG over `n` vertices: each pair ordered by a random
/// permutation, joined with `percent` % probability.
fn dag(n: usize, percent: u64, rng: &mut Rng) -> Vec<(usize, usize)> {
    let perm = distinct(n, n as u64, rng);
    let mut edges = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if rng.chance(percent) {
                edges.push((perm[i] as usize, perm[j] as usize));
            }
        }
    }
    edges
}

impl Corner {
    /// A random corner instance of at most `MAX_NODES` nodes a choice and
    /// `MAX_CHOICES` choices.
    pub(crate) fn random(rng: &mut Rng) -> Corner {
        loop {
            let c = Corner::draw(rng);
            if c.max_nodes() <= MAX_NODES && c.n_choices() <= MAX_CHOICES {
                return c;
            }
        }
    }

    fn draw(rng: &mut Rng) -> Corner {
        let n_cores = 1 + rng.index(3);
        let core_ids = distinct(n_cores, pick(rng, 50, 3, 7), rng);
        let cores: Vec<(u32, u32)> = core_ids
            .iter()
            .map(|&id| {
                let count = if rng.chance(6) {
                    0
                } else {
                    [1, 1, 1, 2, 2, 3][rng.index(6)]
                };
                (id, count)
            })
            .collect();
        let n_mems = [0, 1, 1, 1, 2, 2, 3][rng.index(7)];
        let mem_ids = distinct(n_mems, pick(rng, 50, 3, 7), rng);
        let n_groups = 1 + rng.index(3);
        let kinds = distinct(n_groups, 12, rng);
        let mut groups = Vec::new();
        for k in kinds {
            let n_tilings = 1 + rng.index(3);
            let ids = distinct(n_tilings, pick(rng, 50, 3, 9), rng);
            let tilings = ids
                .into_iter()
                .map(|id| Tiling::random(rng, id, &core_ids, &mem_ids))
                .collect();
            groups.push(Group {
                op_type: k / 3,
                shape: [1, 7, 1024][(k % 3) as usize],
                tilings,
            });
        }
        let n_ops = 1 + rng.index(4);
        let op_ids = distinct(n_ops, pick(rng, 50, 4, 20), rng);
        let mut ops: Vec<(u32, usize)> = op_ids
            .into_iter()
            .map(|id| (id + 1, rng.index(n_groups)))
            .collect();
        let mut op_edges = dag(n_ops, pick(rng, 20, 0, 50), rng);
        // Often an op that may be empty between two others: `a -> empty b
        // -> c` orders nothing (problem.md §6), so a and c may run at once.
        let empty = groups
            .iter()
            .position(|g| g.tilings.iter().any(|t| t.nodes.is_empty()));
        if let Some(e) = empty.filter(|_| n_ops >= 3 && rng.chance(40)) {
            ops[1].1 = e;
            op_edges = vec![(0, 1), (1, 2)];
            op_edges.extend((0..n_ops).flat_map(|a| (a + 1..n_ops).map(move |b| (a, b))));
            // The chain's two edges are kept twice: repeated op edges, which
            // the parser reads as one.
            op_edges.retain(|&(a, b)| (a, b) == (0, 1) || (a, b) == (1, 2) || rng.chance(20));
        }
        let mut c = Corner {
            cores,
            mems: mem_ids.iter().map(|&id| (id, 0)).collect(),
            groups,
            ops,
            op_edges,
            time_unit: 1,
        };
        c.size_memory(rng);
        c.scale(rng);
        c
    }

    /// Memory sizes from the demands: slack, between the largest single
    /// demand and the sum over every node, exactly the largest, or below
    /// it (some tilings become unusable).
    fn size_memory(&mut self, rng: &mut Rng) {
        for k in 0..self.mems.len() {
            let id = self.mems[k].0;
            let mut big = 0u64;
            let mut total = 0u64;
            for n in self.nodes() {
                let d: u64 = n.mem.iter().filter(|e| e.0 == id).map(|e| e.1).sum();
                big = big.max(d);
                total += d;
            }
            let size = match rng.below(100) {
                0..30 => total + 1 + rng.below(4),
                30..70 => big + rng.below(total - big + 1),
                70..85 => big,
                _ => rng.below(big + 1),
            };
            self.mems[k].1 = size;
        }
    }

    /// Scales durations (`time_unit`) and memory (sizes and amounts alike,
    /// which changes no verdict) towards the limits of 64 bits, and
    /// sometimes gives a node two entries whose sum passes 2^64.
    fn scale(&mut self, rng: &mut Rng) {
        let r = rng.below(100);
        if r < 8 {
            self.time_unit = 2 + rng.below(2);
        } else if r < 18 {
            // The whole instance's work stays within 64 bits (tmin's start
            // times, problem.md §6), so the unit is at most 2^64 / work.
            let longest = self.nodes().map(|n| n.dur).max().unwrap_or(0);
            let work = self.work_units().max(longest).max(1);
            self.time_unit = (u64::MAX / work) >> rng.below(3);
        }
        if rng.chance(12) {
            let most = self.mems.iter().map(|m| m.1).max().unwrap_or(0).max(4);
            let k = (u64::MAX / most) >> rng.below(3);
            for m in &mut self.mems {
                m.1 *= k;
            }
            for g in &mut self.groups {
                for t in &mut g.tilings {
                    for n in &mut t.nodes {
                        for e in &mut n.mem {
                            e.1 *= k;
                        }
                    }
                }
            }
        }
        if rng.chance(4) && !self.mems.is_empty() {
            let id = self.mems[rng.index(self.mems.len())].0;
            let gi = rng.index(self.groups.len());
            let ti = rng.index(self.groups[gi].tilings.len());
            let t = &mut self.groups[gi].tilings[ti];
            if !t.nodes.is_empty() {
                let ni = rng.index(t.nodes.len());
                t.nodes[ni].mem.push((id, 1 << 63));
                t.nodes[ni].mem.push((id, 1 << 63));
            }
        }
    }

    fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.groups
            .iter()
            .flat_map(|g| &g.tilings)
            .flat_map(|t| &t.nodes)
    }

    /// Sum over ops of the most work (units) of any of their tilings.
    fn work_units(&self) -> u64 {
        self.ops
            .iter()
            .map(|&(_, g)| {
                self.groups[g]
                    .tilings
                    .iter()
                    .map(|t| t.nodes.iter().map(|n| n.dur).sum::<u64>())
                    .max()
                    .unwrap_or(0)
            })
            .sum()
    }

    fn max_nodes(&self) -> usize {
        self.ops
            .iter()
            .map(|&(_, g)| {
                let ts = &self.groups[g].tilings;
                ts.iter().map(|t| t.nodes.len()).max().unwrap_or(0)
            })
            .sum()
    }

    fn n_choices(&self) -> usize {
        self.ops
            .iter()
            .map(|&(_, g)| self.groups[g].tilings.len())
            .product()
    }

    /// Whether the platform has core type `id` with at least one core.
    pub(crate) fn has_cores(&self, id: u32) -> bool {
        self.cores.iter().any(|&(c, k)| c == id && k > 0)
    }

    /// Size of memory type `id`, if the platform has it.
    pub(crate) fn mem_size(&self, id: u32) -> Option<u64> {
        self.mems.iter().find(|m| m.0 == id).map(|m| m.1)
    }

    /// problem.md §6: a tiling is usable when every node runs on a core
    /// type with cores and every positive demand names a memory type the
    /// platform has, whose size holds the node's total of that type (a zero
    /// amount is no demand).
    pub(crate) fn usable(&self, t: &Tiling) -> bool {
        t.nodes.iter().all(|n| {
            self.has_cores(n.core)
                && n.mem.iter().filter(|e| e.1 > 0).all(|e| {
                    let total: u128 = n
                        .mem
                        .iter()
                        .filter(|x| x.0 == e.0)
                        .map(|x| u128::from(x.1))
                        .sum();
                    self.mem_size(e.0)
                        .is_some_and(|size| total <= u128::from(size))
                })
        })
    }

    /// The instance as tmin reads it (problem.md §1).
    pub(crate) fn text(&self) -> String {
        let list = |items: Vec<String>| format!("[{}]", items.join(","));
        let mut s = format!(
            "SetSocInfo({},{})\n",
            list(
                self.cores
                    .iter()
                    .map(|c| format!("[{},{}]", c.0, c.1))
                    .collect()
            ),
            list(
                self.mems
                    .iter()
                    .map(|m| format!("[{},{}]", m.0, m.1))
                    .collect()
            )
        );
        for g in &self.groups {
            for t in &g.tilings {
                let id = |l: usize| t.nodes[l].id;
                s += &format!(
                    "AddOpInfo({},{},{},{},{},{})\n",
                    g.op_type,
                    g.shape,
                    t.id,
                    list(
                        t.edges
                            .iter()
                            .map(|&(a, b)| format!("[{},{}]", id(a), id(b)))
                            .collect()
                    ),
                    list(
                        t.nodes
                            .iter()
                            .map(|n| format!(
                                "[{},{},{}]",
                                n.id,
                                n.core,
                                u128::from(n.dur) * u128::from(self.time_unit)
                            ))
                            .collect()
                    ),
                    list(
                        t.nodes
                            .iter()
                            .flat_map(|n| n.mem.iter().map(move |e| (n.id, e)))
                            .map(|(v, e)| format!("[{v},{},{}]", e.0, e.1))
                            .collect()
                    ),
                );
            }
        }
        let op = |k: usize| self.ops[k].0;
        s += &format!(
            "GetInferenceScheResult({},{})\n",
            list(
                self.op_edges
                    .iter()
                    .map(|&(a, b)| format!("[{},{}]", op(a), op(b)))
                    .collect()
            ),
            list(
                self.ops
                    .iter()
                    .map(|&(id, g)| format!(
                        "[{id},{},{}]",
                        self.groups[g].op_type, self.groups[g].shape
                    ))
                    .collect()
            )
        );
        s
    }
}

impl Tiling {
    fn random(rng: &mut Rng, id: u32, cores: &[u32], mems: &[u32]) -> Tiling {
        let n = if rng.chance(15) { 0 } else { 1 + rng.index(3) };
        let ids = distinct(n, pick(rng, 50, n as u64, 8), rng);
        let nodes = ids
            .into_iter()
            .map(|id| {
                let core = if rng.chance(4) {
                    7 + rng.below(3) as u32
                } else {
                    cores[rng.index(cores.len())]
                };
                let dur = if rng.chance(12) { 0 } else { 1 + rng.below(3) };
                let mut mem = Vec::new();
                for _ in 0..[0, 1, 1, 2][rng.index(4)] {
                    let m = if mems.is_empty() || rng.chance(4) {
                        7 + rng.below(3) as u32
                    } else {
                        mems[rng.index(mems.len())]
                    };
                    let amount = if rng.chance(10) { 0 } else { 1 + rng.below(4) };
                    mem.push((m, amount));
                }
                Node { id, core, dur, mem }
            })
            .collect();
        Tiling {
            id,
            nodes,
            edges: dag(n, 40, rng),
        }
    }
}

/// Cases a test draws: `TMIN_CORNER_CASES` when set (a larger sweep), else
/// 1,500 (a few seconds a test in CI).
pub(crate) fn cases() -> u64 {
    std::env::var("TMIN_CORNER_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1500)
}
