//! Priority rules for the schedule generation scheme. A rule maps each node to a
//! key; higher keys start first. Keys are non-negative `f64` stored as their bit
//! pattern, which orders the same way as the numbers.

use crate::graph::NodeGraph;

/// Static path lengths of a node graph (cores and memory ignored).
pub struct Paths {
    /// Earliest start (longest path from any source, excluding the node).
    pub head: Vec<u64>,
    /// Longest path from the node's start to the end (including its duration).
    pub tail: Vec<u64>,
    pub critical: u64,
}

impl Paths {
    pub fn new(g: &NodeGraph) -> Self {
        let order = g.topo_order();
        let n = g.n_nodes();
        let n_ops = g.n_ops();
        let mut head = vec![0u64; n];
        // Latest sink end per op: sources of successor ops start after it.
        let mut op_end = vec![0u64; n_ops];
        let mut op_ready = vec![0u64; n_ops];
        for &v in &order {
            let vi = v as usize;
            let op = g.node_op[vi] as usize;
            if g.is_source(v) {
                head[vi] = head[vi].max(op_ready[op]);
            }
            let end = head[vi].saturating_add(g.dur(vi as u32));
            for s in g.intra_succs(v) {
                head[s as usize] = head[s as usize].max(end);
            }
            if g.is_sink(v) {
                op_end[op] = op_end[op].max(end);
                for &b in g.op_succs(op as u32) {
                    op_ready[b as usize] = op_ready[b as usize].max(end);
                }
            }
        }
        let mut tail = vec![0u64; n];
        let mut op_src_tail = vec![0u64; n_ops];
        for &v in order.iter().rev() {
            let vi = v as usize;
            let op = g.node_op[vi];
            let mut after = 0u64;
            for s in g.intra_succs(v) {
                after = after.max(tail[s as usize]);
            }
            if g.is_sink(v) {
                for &b in g.op_succs(op) {
                    after = after.max(op_src_tail[b as usize]);
                }
            }
            tail[vi] = after.saturating_add(g.dur(vi as u32));
            if g.is_source(v) {
                op_src_tail[op as usize] = op_src_tail[op as usize].max(tail[vi]);
            }
        }
        let critical = (0..n)
            .map(|v| head[v].saturating_add(tail[v]))
            .max()
            .unwrap_or(0);
        Paths {
            head,
            tail,
            critical,
        }
    }
}

/// The priority rules (`--rule`; the doc of each variant is its help).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Rule {
    /// Longest remaining path (tail), ties by more immediate successors.
    Lrp,
    /// Latest start time `critical - tail`, earliest first; ties by earliest start.
    Lst,
    /// Least slack `critical - head - tail`; ties by tail.
    Slack,
    /// Most immediate successors; ties by tail.
    Mis,
    /// Memory-aware: favour nodes whose start releases held memory and that demand
    /// little, then the longest remaining path.
    Mem,
    /// Dynamic: the longest remaining path, scaled up while the pass runs by
    /// the share of memory the node's start would release at that moment.
    #[default]
    Release,
}

impl Rule {
    pub const ALL: [Rule; 6] = [
        Rule::Lrp,
        Rule::Release,
        Rule::Lst,
        Rule::Slack,
        Rule::Mis,
        Rule::Mem,
    ];
    /// Whether the pass recomputes the key as it runs (`sgs::run_keyed`).
    pub fn is_dynamic(self) -> bool {
        matches!(self, Rule::Release)
    }
    pub fn name(self) -> &'static str {
        match self {
            Rule::Lrp => "lrp",
            Rule::Lst => "lst",
            Rule::Slack => "slack",
            Rule::Mis => "mis",
            Rule::Mem => "mem",
            Rule::Release => "release",
        }
    }
}

/// An order-preserving u64 for a non-negative finite f64.
#[inline]
pub fn key_of(x: f64) -> u64 {
    if x.is_nan() || x <= 0.0 {
        0
    } else {
        x.to_bits()
    }
}

/// Immediate successor count (inter-op successors counted per op edge, not per pair).
fn succ_counts(g: &NodeGraph) -> Vec<f64> {
    let op_src: Vec<usize> = (0..g.n_ops() as u32)
        .map(|b| g.sources(b).count())
        .collect();
    let after_op: Vec<usize> = (0..g.n_ops() as u32)
        .map(|a| g.op_succs(a).iter().map(|&b| op_src[b as usize]).sum())
        .collect();
    (0..g.n_nodes() as u32)
        .map(|v| {
            let mut c = g.intra_succs(v).count();
            if g.is_sink(v) {
                c += after_op[g.node_op[v as usize] as usize];
            }
            c as f64
        })
        .collect()
}

/// Memory score in [-1, 1]: the share of memory that starting `v` may release
/// (its holders' demands split over their same-type successors) minus its own
/// demand, each relative to the type's size.
fn memory_scores(g: &NodeGraph) -> Vec<f64> {
    let caps: Vec<f64> = g
        .inst
        .platform
        .mems
        .iter()
        .map(|m| (m.size as f64).max(1.0))
        .collect();
    let n = g.n_nodes();
    let mut score = vec![0f64; n];
    for v in 0..n as u32 {
        let mut s = 0f64;
        for e in g.mems(v) {
            s -= e.amount as f64 / caps[e.mem as usize];
            for x in g.intra_preds(v) {
                let dx = g.demand(x, e.mem);
                if dx > 0 {
                    let k = g
                        .intra_succs(x)
                        .filter(|&y| g.demand(y, e.mem) > 0)
                        .count()
                        .max(1);
                    s += dx as f64 / caps[e.mem as usize] / k as f64;
                }
            }
        }
        score[v as usize] = s.clamp(-1.0, 1.0);
    }
    score
}

/// Keys of a deterministic rule.
pub fn keys(g: &NodeGraph, p: &Paths, rule: Rule) -> Vec<u64> {
    let n = g.n_nodes();
    let cp = p.critical.max(1) as f64;
    match rule {
        Rule::Lrp => {
            let sc = succ_counts(g);
            (0..n)
                .map(|v| key_of(1.0 + p.tail[v] as f64 + sc[v].min(1e6) / (1e7 * (1.0 + sc[v]))))
                .collect()
        }
        Rule::Lst => (0..n)
            .map(|v| {
                let lst = cp - p.tail[v] as f64;
                key_of(2.0 * cp + 1.0 - lst - p.head[v] as f64 / (cp * 4.0))
            })
            .collect(),
        Rule::Slack => (0..n)
            .map(|v| {
                let slack = (cp - p.head[v] as f64 - p.tail[v] as f64).max(0.0);
                key_of(cp + 1.0 - slack + p.tail[v] as f64 / (cp * 4.0))
            })
            .collect(),
        Rule::Mis => {
            let sc = succ_counts(g);
            (0..n)
                .map(|v| key_of(1.0 + sc[v] + p.tail[v] as f64 / (cp * 2.0)))
                .collect()
        }
        Rule::Release => (0..n).map(|v| key_of(1.0 + p.tail[v] as f64)).collect(),
        Rule::Mem => {
            let ms = memory_scores(g);
            (0..n)
                .map(|v| key_of(1.0 + p.tail[v] as f64 * (1.0 + 0.5 * ms[v])))
                .collect()
        }
    }
}

/// The random generator of the randomised passes (the crate's one SplitMix64).
pub type Rng = crate::rng::SplitMix64;

/// Biased random sampling: each key scaled by a factor in [1 - eps, 1 + eps].
pub fn perturb(base: &[u64], eps: f64, rng: &mut Rng) -> Vec<u64> {
    base.iter()
        .map(|&k| key_of(f64::from_bits(k) * (1.0 + eps * (2.0 * rng.unit() - 1.0))))
        .collect()
}

/// Keys from a schedule's start times: earlier start first (used by the
/// forward-backward improvement). By rank, not by value, so that starts
/// beyond 2^53 (f64 precision) stay apart.
pub fn keys_from_starts(starts: &[u64]) -> Vec<u64> {
    keys_from_starts_then(starts, |_| 0)
}

/// `keys_from_starts` with equal starts ordered by `tie` (smaller first),
/// then by node.
pub fn keys_from_starts_then(starts: &[u64], tie: impl Fn(usize) -> u64) -> Vec<u64> {
    let n = starts.len();
    let mut idx: Vec<u32> = (0..n as u32).collect();
    idx.sort_unstable_by_key(|&v| (starts[v as usize], tie(v as usize), v));
    let mut key = vec![0u64; n];
    for (r, &v) in idx.iter().enumerate() {
        key[v as usize] = key_of((n - r) as f64);
    }
    key
}
