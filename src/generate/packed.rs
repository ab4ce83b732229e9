//! Known-optimum instances (`tmin gen --family packed`).
//!
//! The platform has one core type (id 0) with `K` cores and `M >= 1` memory types.
//! The generator first draws a *perfectly packed* witness schedule, then builds an
//! instance around it whose optimum is exactly the witness's makespan `T`.
//!
//! # The witness
//!
//! Op `i` (id `i + 1`) gets a node count `n_i` in `MIN..=MAX`; `N = sum n_i`. Core
//! `k` runs `N / K` nodes (the first `N mod K` cores one more) back to back from 0
//! to `T = round(N (1 + max_time) / (2K))` (clamped so that every core can fill
//! exactly `T` with durations in `1..=max_time`). The durations of a core are drawn
//! one by one, each uniform around the remaining mean and inside the interval that
//! keeps the rest fillable, so the last one lands exactly on `T`. All nodes are
//! sorted by (start, core); consecutive runs of `n_i` nodes form the ops, so an op
//! spans a time window across several cores, like an op running tiles in parallel.
//! Op `i` belongs to graph `i % graphs` and is its own (OpType, Shape) group: op
//! type `1..=op_types`, shape = its op id.
//!
//! Edges follow the witness's time order, so the witness is precedence-legal by
//! construction:
//! - intra-op edge `x -> y` only when `end(x) <= start(y)` (mostly the previous node
//!   on the same core, plus a few recent earlier nodes of the op);
//! - op edge `a -> b` (same graph, `a` earlier) only when the latest end of any node
//!   of `a` is `<=` the start of `b`'s first node. Every sink of `a` ends by the
//!   former, every source of `b` starts no earlier than the latter (it is the op's
//!   earliest node), so every derived sink-to-source edge holds.
//!
//! # Why the optimum is exactly `T`
//!
//! Every tiling of op `i` runs only on core type 0 and has the same total work
//! `W_i` (the sum of its durations): the witness's tiling has `W_i` by definition;
//! every other tiling gets another node count (when `MIN..=MAX` and `1..=max_time`
//! allow one) and another random composition of the same `W_i`. So for *every*
//! tiling choice the total work is `W = sum W_i = K * T` (each of the `K` cores is
//! busy on `[0, T)` in the witness, without idle time). Each node occupies one of
//! the `K` cores for its whole duration and a core runs one node at a time, so
//! every schedule of every tiling choice has a makespan of at least
//! `ceil(W / K) = T`: the core-type load bound, which `tmin bound` reports as
//! "core type 0 load". The witness reaches `T` and is legal (next section), so `T`
//! is the optimum. (Memory only removes schedules, and the witness survives it.)
//!
//! # Why the witness is legal, and how that is checked
//!
//! Cores: each core's nodes are back to back, one at a time. Precedence: above.
//! Memory: the *witness instance* (the platform with huge memory sizes, the op
//! graph, and only the witness's tiling of each op) is emitted as text and parsed.
//! The witness's peak held amount per memory type is computed on it with exactly
//! the hold rule of problem.md §4.4 ([`super::memory_peaks`]). Each size becomes
//! `ceil(mem_factor * peak)`, and at least the largest single-node demand of any
//! tiling (so every tiling stays usable), so the witness fits. The parsed witness
//! instance gets the final sizes and the witness is run through
//! [`crate::schedule::check`], the validator of `tmin check`; its makespan must be
//! `T`. Only then is the full text emitted: `SetSocInfo` with the final sizes, then
//! per op every tiling, the witness's byte for byte as in the checked text (every
//! tiling is drawn from its own random streams `(op, tiling)`, one for the subgraph
//! and one for the demands), then the same op graph. While emitting, the work of
//! every tiling is compared with its op's, and the total with `K * T`. Any failure
//! is a generator bug and is returned as an error: no instance leaves
//! `generate_packed` without a legal witness of makespan `T` and equal work per
//! tiling. The full text is not parsed again here: at 10^7 nodes and 3 tilings it
//! is about 1 GB, three times the witness instance, and the tilings the witness
//! does not use play no part in its legality; `tests/gen_packed.rs` parses and
//! checks whole outputs with `tmin check` and `tmin bound`.
//!
//! The text is never held whole: it is produced piece by piece, parsed as a stream
//! (pass 1) or written out as it comes (pass 2). What stays in memory is the witness
//! (start, duration, core per node) and the parsed witness instance.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::io::{self, Read, Write};

use super::{
    MAX_GRAPH_NODES, MAX_NODES_PER_SUBGRAPH, MAX_OP_EDGES, MAX_OP_TYPES, MAX_TILINGS, Rng,
    demand_scale, memory_peaks,
};
use crate::graph::NodeGraph;
use crate::instance::{Instance, parse_reader};
use crate::schedule::{self, Schedule};
use crate::text::push_u64;

/// Most memory types (published limit).
pub const MAX_MEM_TYPES: u32 = 10;
/// Most cores of the one core type (published limit: fewer than 1000).
pub const MAX_CORES: u32 = 999;
/// Bound on `ops * tilings * nodes_max`, the largest op library (every op is its
/// own group here, so the library grows with the instance).
pub const MAX_LIBRARY_NODES: u64 = 60_000_000;
/// Memory size of pass 1: larger than any peak the generator can produce.
const HUGE_MEMORY: u64 = 1_000_000_000_000_000;
/// Published limits, only warned about (the generator goes beyond them on request).
const PUBLISHED_MAX_NODES: u64 = 10_000_000;
const PUBLISHED_MAX_OPS_PER_GRAPH: u64 = 100_000;

/// Knobs of the packed family; see `tmin gen --help`.
#[derive(Clone, Debug, PartialEq)]
pub struct PackedConfig {
    pub seed: u64,
    pub ops: u32,
    pub op_types: u32,
    pub tilings: u32,
    pub nodes_min: u32,
    pub nodes_max: u32,
    /// Largest layer of the non-witness tilings' layered DAGs.
    pub width: u32,
    /// Cores of the one core type.
    pub cores: u32,
    pub mem_types: u32,
    /// Memory size = `ceil(mem_factor * witness peak)` (and at least the largest demand).
    pub mem_factor: f64,
    pub graphs: u32,
    pub max_time: u64,
    pub density: f64,
    /// How far back op edges reach: `None` keeps them local (mostly among the
    /// last 4 ended ops of the graph, some among the last 32); `Some(r)` draws
    /// them uniformly among the last `r` ended ops, so sinks hold their memory
    /// for long (the shape that traps greedy schedulers).
    pub reach: Option<u32>,
    /// Ops that share one stretch of the witness: 1 cuts the witness's nodes
    /// (in start order) into consecutive runs, one per op; `w > 1` deals the
    /// nodes of `w` consecutive runs at random among their `w` ops, so each op
    /// spans `w` times as long and its intra-op holds overlap other ops'.
    pub interleave: u32,
}

impl Default for PackedConfig {
    /// The defaults of `tmin gen --family packed`.
    fn default() -> Self {
        PackedConfig {
            seed: 1,
            ops: 20,
            op_types: 4,
            tilings: 3,
            nodes_min: 4,
            nodes_max: 8,
            width: 3,
            cores: 4,
            mem_types: 2,
            mem_factor: 1.2,
            graphs: 1,
            max_time: 10,
            density: 1.5,
            reach: None,
            interleave: 1,
        }
    }
}

impl PackedConfig {
    pub fn validate(&self) -> Result<(), String> {
        let bad = |msg: String| Err(msg);
        if self.ops == 0 {
            return bad("--ops must be at least 1".into());
        }
        if self.op_types == 0 || self.op_types > MAX_OP_TYPES {
            return bad(format!(
                "--op-types must be in 1..={MAX_OP_TYPES}, got {}",
                self.op_types
            ));
        }
        if self.tilings == 0 || self.tilings > MAX_TILINGS {
            return bad(format!(
                "--tilings must be in 1..={MAX_TILINGS}, got {}",
                self.tilings
            ));
        }
        if self.nodes_min == 0 {
            return bad("--nodes: every subgraph needs at least 1 node".into());
        }
        if self.nodes_min > self.nodes_max {
            return bad(format!(
                "--nodes: MIN ({}) is larger than MAX ({})",
                self.nodes_min, self.nodes_max
            ));
        }
        if self.nodes_max > MAX_NODES_PER_SUBGRAPH {
            return bad(format!(
                "--nodes: at most {MAX_NODES_PER_SUBGRAPH} nodes per subgraph (the published limit is < 10^4), got {}",
                self.nodes_max
            ));
        }
        if self.width == 0 {
            return bad("--width must be at least 1".into());
        }
        if !(1..=MAX_CORES).contains(&self.cores) {
            return bad(format!(
                "--cores must be in 1..={MAX_CORES} for the packed family, got {}",
                self.cores
            ));
        }
        if self.mem_types == 0 || self.mem_types > MAX_MEM_TYPES {
            return bad(format!(
                "--mem-types must be in 1..={MAX_MEM_TYPES} for the packed family (memory is what makes it hard), got {}",
                self.mem_types
            ));
        }
        if !(self.mem_factor >= 1.0 && self.mem_factor.is_finite()) {
            return bad(format!(
                "--mem-factor must be >= 1.0 (1.0 = exactly the witness's peak), got {}",
                self.mem_factor
            ));
        }
        if self.interleave == 0 || self.interleave > self.ops {
            return bad(format!(
                "--interleave must be in 1..=--ops ({}), got {}",
                self.ops, self.interleave
            ));
        }
        if self.graphs == 0 {
            return bad("--graphs must be at least 1".into());
        }
        if self.graphs > self.ops {
            return bad(format!(
                "--graphs ({}) cannot exceed the number of ops ({})",
                self.graphs, self.ops
            ));
        }
        if self.max_time == 0 {
            return bad("--max-time must be at least 1".into());
        }
        if !(self.density >= 0.0 && self.density.is_finite()) {
            return bad(format!(
                "--density must be a non-negative number, got {}",
                self.density
            ));
        }
        if f64::from(self.ops) * self.density > MAX_OP_EDGES {
            return bad(format!(
                "--ops {} with --density {} asks for about {:.0} op edges; at most {MAX_OP_EDGES:.0} are supported",
                self.ops,
                self.density,
                f64::from(self.ops) * self.density
            ));
        }
        let most_nodes = u64::from(self.ops) * u64::from(self.nodes_max);
        if most_nodes > MAX_GRAPH_NODES {
            return bad(format!(
                "--ops {} times up to {} nodes per op can reach {most_nodes} nodes; at most {MAX_GRAPH_NODES} are supported",
                self.ops, self.nodes_max
            ));
        }
        let least_nodes = u64::from(self.ops) * u64::from(self.nodes_min);
        if least_nodes < u64::from(self.cores) {
            return bad(format!(
                "--ops {} with at least {} nodes per op can give only {least_nodes} nodes, fewer than --cores {}: \
                 every core must be busy from 0 to the optimum",
                self.ops, self.nodes_min, self.cores
            ));
        }
        let lib_nodes = most_nodes * u64::from(self.tilings);
        if lib_nodes > MAX_LIBRARY_NODES {
            return bad(format!(
                "the op library (--ops {} x --tilings {} x up to {} nodes; every op is its own group) can reach {lib_nodes} nodes; at most {MAX_LIBRARY_NODES} are supported",
                self.ops, self.tilings, self.nodes_max
            ));
        }
        // The horizon is about N * max_time / K; keep every time far from u64::MAX.
        if u128::from(most_nodes) * u128::from(self.max_time) > u128::from(u64::MAX / 2) {
            return bad(format!(
                "--max-time {} is too large for {most_nodes} nodes: the sum of all durations must stay below 9.2e18",
                self.max_time
            ));
        }
        Ok(())
    }
}

/// Why `generate_packed` failed.
#[derive(Debug)]
pub enum PackedError {
    /// A configuration that cannot be generated (the message says why).
    Config(String),
    /// Writing the text failed.
    Io(io::Error),
    /// A generator bug (never expected).
    Internal(String),
}

impl fmt::Display for PackedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PackedError::Config(m) => write!(f, "{m}"),
            PackedError::Io(e) => write!(f, "write failed: {e}"),
            PackedError::Internal(m) => write!(f, "internal error: {m}"),
        }
    }
}

/// A generated packed instance: its witness, the proven optimum, and the witness
/// instance the witness was checked against.
pub struct Packed {
    /// The instance restricted to the witness's tilings: the final platform (sizes
    /// included), the op graph, and per op only the tiling the witness uses (same
    /// op ids, tiling ids and node ids as the text written). Enough to write or
    /// re-check the witness; the full instance is the text written to `out`.
    pub witness_instance: Instance,
    /// The perfectly packed schedule (choice = indices into `witness_instance`).
    pub witness: Schedule,
    /// Tiling id (as in the text) the witness uses for each op.
    pub witness_tiling: Vec<u32>,
    /// The optimum `T`: every core busy on `[0, T)` in the witness; the core-type
    /// load bound equals `T` for every tiling choice.
    pub optimum: u64,
    pub witness_makespan: u128,
    /// Final size of each memory type (ids `0..mem_types`).
    pub mem_sizes: Vec<u64>,
    /// The witness's peak held amount per memory type (hold rule of problem.md §4.4).
    pub witness_peaks: Vec<u64>,
    /// Largest single-node demand per memory type over every tiling.
    pub max_demand: Vec<u64>,
    /// Bytes of instance text written.
    pub text_bytes: u64,
}

/// Random streams of this family (disjoint from the random family's 1..=4).
const STREAM_SIZES: u64 = 101;
const STREAM_OPS: u64 = 102;
const STREAM_OP_EDGES: u64 = 103;
const STREAM_INTERLEAVE: u64 = 104;
const STREAM_CORE: u64 = 1 << 20; // + core index
const STREAM_TILING: u64 = 1 << 32; // + op * 128 + tiling: the subgraph
const STREAM_DEMANDS: u64 = 1 << 33; // + op * 128 + tiling: its memory demands

/// The witness and the op-level draws that every later step reads.
struct Witness {
    /// The horizon: every core is busy on `[0, t)`.
    t: u64,
    /// First node of each op; `op_base[ops]` is the node count.
    op_base: Vec<u32>,
    /// Per node, op by op (`op_base`), each op's nodes in (start, core) order,
    /// which is global (start, core) order unless ops are interleaved;
    /// `sched.start`/`sched.core` hold the rest.
    dur: Vec<u64>,
    sched: Schedule,
    op_type: Vec<u8>,
    /// Tiling id of the witness's subgraph, per op.
    kept: Vec<u8>,
    /// Op edges `(a, b)` as op indices, in emission order.
    op_edges: Vec<(u32, u32)>,
}

impl Witness {
    fn n_ops(&self) -> usize {
        self.op_base.len() - 1
    }
    fn n_nodes(&self) -> usize {
        self.dur.len()
    }
    fn end(&self, v: usize) -> u64 {
        self.sched.start[v] + self.dur[v]
    }
}

/// Draws one of `r` remaining parts (in `1..=max`) of a remaining total `rest`
/// (`r <= rest <= r * max`): uniform around the remaining mean, inside the interval
/// that keeps the others fillable. The last part takes exactly what is left.
fn draw_part(rng: &mut Rng, r: u64, rest: u64, max: u64) -> u64 {
    debug_assert!(r >= 1 && r <= rest && u128::from(rest) <= u128::from(r) * u128::from(max));
    if r == 1 {
        return rest;
    }
    let others = r - 1;
    let lo_f = u128::from(rest)
        .saturating_sub(u128::from(others) * u128::from(max))
        .max(1) as u64;
    let hi_f = max.min(rest - others);
    let a = rest / r;
    let h = (a - 1).min(max - a);
    let lo = lo_f.max(a - h);
    let hi = hi_f.min(a.saturating_add(1).saturating_add(h));
    rng.range(lo, hi)
}

/// Node count per op, adjusted (only when every duration is 1) so that the nodes
/// split evenly over the cores.
fn op_sizes(cfg: &PackedConfig) -> Result<Vec<u32>, String> {
    let mut rng = Rng::stream(cfg.seed, STREAM_SIZES);
    let mut sizes: Vec<u32> = (0..cfg.ops)
        .map(|_| rng.range(u64::from(cfg.nodes_min), u64::from(cfg.nodes_max)) as u32)
        .collect();
    let k = u64::from(cfg.cores);
    let n: u64 = sizes.iter().map(|&s| u64::from(s)).sum();
    if cfg.max_time == 1 && !n.is_multiple_of(k) {
        // Every duration is 1: each core needs exactly T nodes.
        let (remove, add) = (n % k, k - n % k);
        let room_down: u64 = sizes.iter().map(|&s| u64::from(s - cfg.nodes_min)).sum();
        let room_up: u64 = sizes.iter().map(|&s| u64::from(cfg.nodes_max - s)).sum();
        if room_down >= remove {
            let mut left = remove;
            for s in sizes.iter_mut().rev() {
                let d = u64::from(*s - cfg.nodes_min).min(left);
                *s -= d as u32;
                left -= d;
            }
        } else if room_up >= add {
            let mut left = add;
            for s in sizes.iter_mut().rev() {
                let d = u64::from(cfg.nodes_max - *s).min(left);
                *s += d as u32;
                left -= d;
            }
        } else {
            return Err(format!(
                "--max-time 1 makes every duration 1, so the node count must be a multiple of --cores {}; \
                 --ops {} with --nodes {}-{} cannot give one",
                cfg.cores, cfg.ops, cfg.nodes_min, cfg.nodes_max
            ));
        }
    }
    Ok(sizes)
}

/// Op edges: a -> b (same graph, a earlier) only when a has ended everywhere
/// by the time b's first node starts, so the witness keeps every edge; about
/// `density` per op, among the recently ended ops of the graph (or among the
/// last `reach` with --reach).
fn draw_op_edges(
    cfg: &PackedConfig,
    op_base: &[u32],
    start: &[u64],
    dur: &[u64],
) -> Vec<(u32, u32)> {
    let n_ops = op_base.len() - 1;
    let first_start: Vec<u64> = (0..n_ops).map(|o| start[op_base[o] as usize]).collect();
    let last_end: Vec<u64> = (0..n_ops)
        .map(|o| {
            (op_base[o] as usize..op_base[o + 1] as usize)
                .map(|v| start[v] + dur[v])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut rng = Rng::stream(cfg.seed, STREAM_OP_EDGES);
    let graphs = cfg.graphs as usize;
    let whole = cfg.density.floor();
    let frac = cfg.density - whole;
    let whole = whole as usize;
    let mut op_edges = Vec::with_capacity((n_ops as f64 * cfg.density) as usize + 1);
    let mut cands: Vec<usize> = Vec::with_capacity(32);
    let mut picks: Vec<usize> = Vec::new();
    for (b, &b_start) in first_start.iter().enumerate() {
        let p = b / graphs;
        if p == 0 {
            continue;
        }
        let want = whole + usize::from(rng.chance(frac));
        // Recent ops of the graph that have ended: back until `keep` are found,
        // `keep + 32` past the first one found, or 4096 + `keep` (many cores,
        // small ops: the most recent ops are still running).
        let keep = cfg.reach.map_or(32, |r| r.max(1) as usize);
        cands.clear();
        let mut first_found = None;
        for d in 1..=p.min(4096 + keep) {
            if first_found.is_some_and(|f| d > f + keep + 32) {
                break;
            }
            let a = b - d * graphs;
            if last_end[a] <= b_start {
                first_found.get_or_insert(d);
                cands.push(a);
                if cands.len() == keep {
                    break;
                }
            }
        }
        picks.clear();
        for _ in 0..want.min(cands.len()) {
            for _attempt in 0..4 {
                let window = match cfg.reach {
                    Some(_) => cands.len(),
                    None if rng.chance(0.8) => 4,
                    None => 32,
                };
                let q = cands[rng.below(cands.len().min(window) as u64) as usize];
                if !picks.contains(&q) {
                    picks.push(q);
                    break;
                }
            }
        }
        picks.sort_unstable();
        op_edges.extend(picks.iter().map(|&a| (a as u32, b as u32)));
    }
    op_edges
}

/// Draws the packed schedule, the ops over it, and the op edges.
fn build_witness(cfg: &PackedConfig) -> Result<Witness, String> {
    let sizes = op_sizes(cfg)?;
    let mut op_base = Vec::with_capacity(sizes.len() + 1);
    let mut acc = 0u32;
    for &s in &sizes {
        op_base.push(acc);
        acc += s;
    }
    op_base.push(acc);
    drop(sizes);
    let n = u64::from(acc);
    let k = u64::from(cfg.cores);
    let max = cfg.max_time;

    // Horizon: about N / K mean durations, within what every core can fill exactly.
    let (c_lo, c_hi) = (n / k, n.div_ceil(k));
    let target = (u128::from(n) * u128::from(1 + max) + u128::from(k)) / (2 * u128::from(k));
    let t_hi = u128::from(c_lo) * u128::from(max);
    let t = target.min(t_hi).max(u128::from(c_hi)) as u64;
    if u128::from(t) > t_hi || c_lo == 0 {
        return Err(format!(
            "cannot fill {k} cores with {n} nodes of durations 1..={max} to one common end"
        ));
    }

    // Merge the K cores' back-to-back sequences by (start, core).
    let mut rngs: Vec<Rng> = (0..k)
        .map(|c| Rng::stream(cfg.seed, STREAM_CORE + c))
        .collect();
    let mut left: Vec<u64> = (0..k).map(|c| c_lo + u64::from(c < n % k)).collect();
    let mut rest: Vec<u64> = vec![t; k as usize];
    let mut heap: BinaryHeap<Reverse<(u64, u32)>> =
        (0..k as u32).map(|c| Reverse((0, c))).collect();
    let mut start = Vec::with_capacity(n as usize);
    let mut dur = Vec::with_capacity(n as usize);
    let mut core = Vec::with_capacity(n as usize);
    while let Some(Reverse((s, c))) = heap.pop() {
        let ci = c as usize;
        let d = draw_part(&mut rngs[ci], left[ci], rest[ci], max);
        left[ci] -= 1;
        rest[ci] -= d;
        start.push(s);
        dur.push(d);
        core.push(c);
        if left[ci] > 0 {
            heap.push(Reverse((s + d, c)));
        }
    }
    if start.len() as u64 != n || rest.iter().any(|&r| r != 0) {
        return Err("internal error: the cores do not all end at the horizon".into());
    }
    if cfg.interleave > 1 {
        let mut rng = Rng::stream(cfg.seed, STREAM_INTERLEAVE);
        interleave(
            &op_base,
            cfg.interleave as usize,
            &mut rng,
            &mut start,
            &mut dur,
            &mut core,
        );
    }

    let n_ops = op_base.len() - 1;
    let mut rng = Rng::stream(cfg.seed, STREAM_OPS);
    let mut op_type = Vec::with_capacity(n_ops);
    let mut kept = Vec::with_capacity(n_ops);
    for _ in 0..n_ops {
        op_type.push(1 + rng.below(u64::from(cfg.op_types)) as u8);
        kept.push(rng.below(u64::from(cfg.tilings)) as u8);
    }

    let op_edges = draw_op_edges(cfg, &op_base, &start, &dur);

    Ok(Witness {
        t,
        op_base,
        dur,
        sched: Schedule {
            choice: Vec::new(),
            start,
            core,
        },
        op_type,
        kept,
        op_edges,
    })
}

/// Deals the nodes of every `w` consecutive ops (a contiguous stretch of the
/// witness in start order) at random among those ops, each keeping its size,
/// then stores each op's nodes contiguously again, in start order. Everything
/// after this step reads an op's nodes as `op_base[o]..op_base[o + 1]` in start
/// order and its first node as its earliest, which both still hold; the cores'
/// sequences are untouched, so the witness stays perfectly packed.
fn interleave(
    op_base: &[u32],
    w: usize,
    rng: &mut Rng,
    start: &mut [u64],
    dur: &mut [u64],
    core: &mut [u32],
) {
    let n_ops = op_base.len() - 1;
    let mut owner: Vec<u32> = Vec::new();
    let mut order: Vec<u32> = Vec::new();
    let mut scratch: Vec<(u64, u64, u32)> = Vec::new();
    for b0 in (0..n_ops).step_by(w) {
        let b1 = (b0 + w).min(n_ops);
        let (lo, hi) = (op_base[b0] as usize, op_base[b1] as usize);
        let mut quota: Vec<u64> = (b0..b1)
            .map(|o| u64::from(op_base[o + 1] - op_base[o]))
            .collect();
        let mut left = (hi - lo) as u64;
        owner.clear();
        for _ in lo..hi {
            // An op with probability proportional to the nodes it still takes.
            let mut r = rng.below(left);
            let mut j = 0;
            while r >= quota[j] {
                r -= quota[j];
                j += 1;
            }
            quota[j] -= 1;
            left -= 1;
            owner.push(j as u32);
        }
        // Stable by owner: each op's nodes stay in start order.
        order.clear();
        order.extend(0..(hi - lo) as u32);
        order.sort_by_key(|&i| owner[i as usize]);
        scratch.clear();
        scratch.extend((lo..hi).map(|v| (start[v], dur[v], core[v])));
        for (k, &i) in order.iter().enumerate() {
            let (s, d, c) = scratch[i as usize];
            (start[lo + k], dur[lo + k], core[lo + k]) = (s, d, c);
        }
    }
}

/// One drawn subgraph (local indices), reused across tilings.
#[derive(Default)]
struct Sub {
    edges: Vec<(u32, u32)>,
    dur: Vec<u64>,
    mem: Vec<(u32, u8, u64)>,
    // scratch
    cands: Vec<u32>,
    picks: Vec<u32>,
    layer_start: Vec<u32>,
    perm: Vec<u8>,
}

impl Sub {
    fn clear(&mut self) {
        self.edges.clear();
        self.dur.clear();
        self.mem.clear();
    }

    /// The witness's subgraph of op `op`: its nodes in start order, edges only from
    /// a node that has ended to one that starts.
    fn draw_witness(&mut self, rng: &mut Rng, w: &Witness, op: usize, uniform: bool) {
        let base = w.op_base[op] as usize;
        let n = w.op_base[op + 1] as usize - base;
        self.dur.extend_from_slice(&w.dur[base..base + n]);
        for j in 0..n {
            let v = base + j;
            let s = w.sched.start[v];
            self.cands.clear();
            let mut same_core = None;
            // Back over at most 48 earlier nodes of the op, until 16 candidates and
            // the previous node on the same core (it ends exactly at `s`) are found.
            for jj in (j.saturating_sub(48)..j).rev() {
                let x = base + jj;
                if w.end(x) <= s {
                    if same_core.is_none() && w.sched.core[x] == w.sched.core[v] {
                        same_core = Some(jj as u32);
                    }
                    self.cands.push(jj as u32);
                    if self.cands.len() >= 16 && same_core.is_some() {
                        break;
                    }
                }
            }
            if self.cands.is_empty() {
                continue;
            }
            let want = (1 + rng.below(3) as usize).min(self.cands.len());
            self.picks.clear();
            // With `--reach`, edges cross cores as freely as ops do.
            if let Some(p) = same_core
                && !uniform
                && rng.chance(0.85)
            {
                self.picks.push(p);
            }
            let mut attempts = 0;
            while self.picks.len() < want && attempts < 8 {
                attempts += 1;
                let window = if !uniform && rng.chance(0.9) {
                    6
                } else {
                    self.cands.len()
                };
                let q = self.cands[rng.below(self.cands.len().min(window) as u64) as usize];
                if !self.picks.contains(&q) {
                    self.picks.push(q);
                }
            }
            self.edges.extend(self.picks.iter().map(|&p| (p, j as u32)));
        }
    }

    /// Node count of another tiling of `work`: in `MIN..=MAX`, each duration in
    /// `1..=max_time`, and different from the witness's when the range allows.
    fn other_count(rng: &mut Rng, cfg: &PackedConfig, work: u64, n_witness: u32) -> u64 {
        let lo = u64::from(cfg.nodes_min).max(work.div_ceil(cfg.max_time));
        let hi = u64::from(cfg.nodes_max).min(work);
        if hi > lo {
            let x = rng.range(lo, hi - 1);
            if x >= u64::from(n_witness) { x + 1 } else { x }
        } else {
            lo
        }
    }

    /// Another tiling of the same work with `n` nodes (from [`Sub::other_count`]):
    /// a random composition of `work`, a random layered DAG.
    fn draw_other(&mut self, rng: &mut Rng, cfg: &PackedConfig, work: u64, n: u64) {
        let mut rest = work;
        for r in (1..=n).rev() {
            let d = draw_part(rng, r, rest, cfg.max_time);
            rest -= d;
            self.dur.push(d);
        }
        let n = n as u32;
        // Layers of at most `width` nodes; every node of layer L > 0 has a
        // predecessor in layer L - 1, some have more, a few have skip edges.
        self.layer_start.clear();
        let mut placed = 0u32;
        while placed < n {
            self.layer_start.push(placed);
            placed += 1 + rng.below(u64::from(cfg.width.min(n - placed))) as u32;
        }
        self.layer_start.push(n);
        for l in 1..self.layer_start.len() - 1 {
            let (a, b) = (self.layer_start[l - 1], self.layer_start[l]);
            let size = u64::from(b - a);
            for v in self.layer_start[l]..self.layer_start[l + 1] {
                self.picks.clear();
                self.picks.push(a + rng.below(size) as u32);
                for _ in 0..rng.below(size.min(3)) {
                    let p = a + rng.below(size) as u32;
                    if !self.picks.contains(&p) {
                        self.picks.push(p);
                    }
                }
                if l >= 2 && rng.chance(0.1) {
                    self.picks.push(rng.below(u64::from(a)) as u32);
                }
                self.edges.extend(self.picks.iter().map(|&p| (p, v)));
            }
        }
    }

    /// Each node demands 0-2 distinct memory types, sizes `1..=demand_scale(m)`.
    fn draw_demands(
        &mut self,
        rng: &mut Rng,
        n: u64,
        n_mem: usize,
        max_demand: &mut [u64],
        heavy: bool,
    ) {
        let most = n_mem.min(2) as u64;
        for v in 0..n as u32 {
            let cnt = rng.below(most + 1) as usize;
            self.perm.clear();
            self.perm.extend(0..n_mem as u8);
            for i in 0..cnt {
                let j = i + rng.below((n_mem - i) as u64) as usize;
                self.perm.swap(i, j);
                let m = self.perm[i];
                let mut size = rng.range(1, demand_scale(m as usize));
                // Heavy tails: a few large tensors dominate what is held.
                if heavy && rng.chance(0.05) {
                    size *= 64;
                }
                max_demand[m as usize] = max_demand[m as usize].max(size);
                self.mem.push((v, m, size));
            }
        }
    }

    fn emit(&self, out: &mut Vec<u8>, op_type: u8, shape: u64, tiling: u32) {
        out.extend_from_slice(b"AddOpInfo(");
        push_u64(out, u64::from(op_type));
        out.push(b',');
        push_u64(out, shape);
        out.push(b',');
        push_u64(out, u64::from(tiling));
        out.extend_from_slice(b",[");
        let mut first = true;
        for &(a, b) in &self.edges {
            put_tuple(out, &mut first, &[u64::from(a) + 1, u64::from(b) + 1]);
        }
        out.extend_from_slice(b"],[");
        let mut first = true;
        for (v, &d) in self.dur.iter().enumerate() {
            put_tuple(out, &mut first, &[v as u64 + 1, 0, d]);
        }
        out.extend_from_slice(b"],[");
        let mut first = true;
        for &(v, m, z) in &self.mem {
            put_tuple(out, &mut first, &[u64::from(v) + 1, u64::from(m), z]);
        }
        out.extend_from_slice(b"])\n");
    }
}

enum Stage {
    Soc,
    Op(usize),
    Edges(usize),
    OpList(usize),
    Done,
}

/// Produces the instance text in pieces. Every tiling of op `i` is drawn from its
/// own streams `(op, tiling)`, so both passes draw the same subgraphs; pass 1
/// (`all_tilings == false`) emits only the witness's tiling and draws only the node
/// counts and demands of the others, to learn the largest demand.
struct Emitter<'a> {
    cfg: &'a PackedConfig,
    w: &'a Witness,
    sizes: Vec<u64>,
    all_tilings: bool,
    stage: Stage,
    sub: Sub,
    max_demand: Vec<u64>,
    /// Sum of the ops' work (each op counted once).
    total_work: u128,
    /// The first tiling whose work differs from its op's (a generator bug).
    error: Option<String>,
}

const CHUNK: usize = 8192;

impl<'a> Emitter<'a> {
    fn new(cfg: &'a PackedConfig, w: &'a Witness, sizes: Vec<u64>, all_tilings: bool) -> Self {
        Emitter {
            cfg,
            w,
            sizes,
            all_tilings,
            stage: Stage::Soc,
            sub: Sub::default(),
            max_demand: vec![0; cfg.mem_types as usize],
            total_work: 0,
            error: None,
        }
    }

    /// Appends the next piece; false when the text is complete.
    fn next_piece(&mut self, out: &mut Vec<u8>) -> bool {
        let w = self.w;
        match self.stage {
            Stage::Soc => {
                out.extend_from_slice(b"SetSocInfo([[0,");
                push_u64(out, u64::from(self.cfg.cores));
                out.extend_from_slice(b"]],[");
                let mut first = true;
                for (m, &z) in self.sizes.iter().enumerate() {
                    put_tuple(out, &mut first, &[m as u64, z]);
                }
                out.extend_from_slice(b"])\n");
                self.stage = Stage::Op(0);
            }
            Stage::Op(op) => {
                let n_mem = self.cfg.mem_types as usize;
                let base = w.op_base[op] as usize;
                let n_witness = w.op_base[op + 1] - w.op_base[op];
                let work: u64 = w.dur[base..base + n_witness as usize].iter().sum();
                let kept = u32::from(w.kept[op]);
                self.total_work += u128::from(work);
                for k in 0..self.cfg.tilings {
                    let stream = op as u64 * 128 + u64::from(k);
                    let mut rng = Rng::stream(self.cfg.seed, STREAM_TILING + stream);
                    let mut demand_rng = Rng::stream(self.cfg.seed, STREAM_DEMANDS + stream);
                    let emit = self.all_tilings || k == kept;
                    self.sub.clear();
                    let n = if k == kept {
                        u64::from(n_witness)
                    } else {
                        Sub::other_count(&mut rng, self.cfg, work, n_witness)
                    };
                    // Pass 1 needs only the other tilings' demands (separate streams).
                    if emit {
                        if k == kept {
                            self.sub
                                .draw_witness(&mut rng, w, op, self.cfg.reach.is_some());
                        } else {
                            self.sub.draw_other(&mut rng, self.cfg, work, n);
                        }
                        let tw: u64 = self.sub.dur.iter().sum();
                        if (tw != work || self.sub.dur.len() as u64 != n) && self.error.is_none() {
                            self.error = Some(format!(
                                "tiling {k} of op {} has work {tw}, the witness's has {work}",
                                op + 1
                            ));
                        }
                    }
                    self.sub.draw_demands(
                        &mut demand_rng,
                        n,
                        n_mem,
                        &mut self.max_demand,
                        self.cfg.reach.is_some(),
                    );
                    if emit {
                        self.sub.emit(out, w.op_type[op], op as u64 + 1, k);
                    }
                }
                self.stage = if op + 1 < w.n_ops() {
                    Stage::Op(op + 1)
                } else {
                    Stage::Edges(0)
                };
            }
            Stage::Edges(at) => {
                if at == 0 {
                    out.extend_from_slice(b"GetInferenceScheResult([");
                }
                let end = (at + CHUNK).min(w.op_edges.len());
                let mut first = at == 0;
                for &(a, b) in &w.op_edges[at..end] {
                    put_tuple(out, &mut first, &[u64::from(a) + 1, u64::from(b) + 1]);
                }
                if end == w.op_edges.len() {
                    out.extend_from_slice(b"],[");
                    self.stage = Stage::OpList(0);
                } else {
                    self.stage = Stage::Edges(end);
                }
            }
            Stage::OpList(at) => {
                let end = (at + CHUNK).min(w.n_ops());
                let mut first = at == 0;
                for op in at..end {
                    let id = op as u64 + 1;
                    put_tuple(out, &mut first, &[id, u64::from(w.op_type[op]), id]);
                }
                if end == w.n_ops() {
                    out.extend_from_slice(b"])\n");
                    self.stage = Stage::Done;
                } else {
                    self.stage = Stage::OpList(end);
                }
            }
            Stage::Done => return false,
        }
        true
    }
}

/// The emitter as a byte stream for the parser.
struct TextReader<'a> {
    em: Emitter<'a>,
    buf: Vec<u8>,
    at: usize,
}

impl<'a> TextReader<'a> {
    fn new(em: Emitter<'a>) -> Self {
        TextReader {
            em,
            buf: Vec::with_capacity(1 << 17),
            at: 0,
        }
    }
}

impl Read for TextReader<'_> {
    fn read(&mut self, dst: &mut [u8]) -> io::Result<usize> {
        if self.at == self.buf.len() {
            self.buf.clear();
            self.at = 0;
            while self.buf.len() < 1 << 16 && self.em.next_piece(&mut self.buf) {}
            if self.buf.is_empty() {
                return Ok(0);
            }
        }
        let n = dst.len().min(self.buf.len() - self.at);
        dst[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Appends `,[a,b,...]` (no comma for the first entry of a list): the same bytes
/// as [`super::put_tuple`], built on the stack and appended in one copy, since the
/// text of a large instance is a billion bytes of such tuples.
#[inline]
fn put_tuple(out: &mut Vec<u8>, first: &mut bool, vals: &[u64]) {
    debug_assert!(vals.len() <= 4);
    let mut buf = [0u8; 96];
    let mut end = buf.len();
    buf[end - 1] = b']';
    end -= 1;
    for (i, &v) in vals.iter().enumerate().rev() {
        let mut v = v;
        loop {
            end -= 1;
            buf[end] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        end -= 1;
        buf[end] = if i == 0 { b'[' } else { b',' };
    }
    if !*first {
        end -= 1;
        buf[end] = b',';
    }
    *first = false;
    out.extend_from_slice(&buf[end..]);
}

fn internal(msg: impl Into<String>) -> PackedError {
    PackedError::Internal(msg.into())
}

/// Checks that `g` (the witness's tilings) has exactly the witness's nodes.
fn same_nodes(g: &NodeGraph, w: &Witness) -> Result<(), PackedError> {
    if g.n_nodes() != w.n_nodes()
        || g.op_base != w.op_base
        || (0..g.n_nodes()).any(|v| g.dur(v as u32) != w.dur[v])
    {
        return Err(internal(
            "the parsed witness tilings do not match the drawn witness",
        ));
    }
    Ok(())
}

/// Sets the final memory sizes on the witness instance and checks the
/// witness against them: every rule, the makespan exactly the horizon, the
/// tilings named as drawn. Returns the makespan and the tiling ids.
fn check_witness(
    inst: &mut Instance,
    w: &Witness,
    mem_sizes: &[u64],
) -> Result<(u128, Vec<u32>), PackedError> {
    let n_ops = w.n_ops();
    // The final sizes: every demand of the witness instance still fits (they are at
    // least the largest demand of any tiling), so its tilings stay usable.
    for (m, z) in inst.platform.mems.iter_mut().enumerate() {
        z.size = mem_sizes[m];
    }
    if let Some(d) = inst
        .library
        .mem
        .iter()
        .find(|d| d.amount > mem_sizes[d.mem as usize])
    {
        return Err(internal(format!(
            "a demand of {} exceeds the size {} of memory type {}",
            d.amount, mem_sizes[d.mem as usize], d.mem
        )));
    }
    let g = NodeGraph::new(inst, w.sched.choice.clone()).map_err(internal)?;
    let violations = schedule::check(&g, &w.sched, 20);
    if !violations.is_empty() {
        let list: Vec<String> = violations.kept.iter().map(|v| v.to_string()).collect();
        return Err(internal(format!(
            "the packed witness breaks {} rule(s): {}",
            violations.total(),
            list.join("; ")
        )));
    }
    let witness_makespan = w.sched.makespan(&g);
    if witness_makespan != u128::from(w.t) {
        return Err(internal(format!(
            "the witness ends at {witness_makespan}, not at the horizon {}",
            w.t
        )));
    }
    let witness_tiling: Vec<u32> = (0..n_ops as u32).map(|o| g.tiling_id(o)).collect();
    if witness_tiling
        .iter()
        .zip(&w.kept)
        .any(|(&a, &b)| a != u32::from(b))
    {
        return Err(internal("the witness instance names other tilings"));
    }
    Ok((witness_makespan, witness_tiling))
}

/// Pass 2: the final text with every tiling, streamed to `out`; the emitter
/// checks that each tiling has its op's work and that the works fill the
/// cores up to the horizon. Returns the bytes written.
fn write_final_text(
    cfg: &PackedConfig,
    w: &Witness,
    mem_sizes: &[u64],
    max_demand: &[u64],
    out: &mut dyn Write,
) -> Result<u64, PackedError> {
    let mut em = Emitter::new(cfg, w, mem_sizes.to_vec(), true);
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 17);
    let mut text_bytes = 0u64;
    loop {
        let more = em.next_piece(&mut buf);
        if buf.len() >= 1 << 16 || !more {
            out.write_all(&buf).map_err(PackedError::Io)?;
            text_bytes += buf.len() as u64;
            buf.clear();
        }
        if !more {
            break;
        }
    }
    out.flush().map_err(PackedError::Io)?;
    if let Some(e) = em.error.take() {
        return Err(internal(e));
    }
    if em.max_demand != *max_demand {
        return Err(internal("the two passes drew different demands"));
    }
    if em.total_work != u128::from(w.t) * u128::from(cfg.cores) {
        return Err(internal(format!(
            "total work {} is not {} cores x horizon {}",
            em.total_work, cfg.cores, w.t
        )));
    }
    Ok(text_bytes)
}

/// Generates the packed instance of `cfg` and writes its text to `out`. The witness
/// is checked by `schedule::check` against the parsed witness instance (see the
/// module doc) and its makespan is the proven optimum.
pub fn generate_packed(cfg: &PackedConfig, out: &mut dyn Write) -> Result<Packed, PackedError> {
    cfg.validate().map_err(PackedError::Config)?;
    let clock = std::time::Instant::now();
    let lap = |what: &str| log::debug!("gen packed: {what} at {:.2?}", clock.elapsed());
    let n_mem = cfg.mem_types as usize;

    let mut w = build_witness(cfg).map_err(PackedError::Config)?;
    let n = w.n_nodes();
    let n_ops = w.n_ops();
    lap("witness");
    if n as u64 >= PUBLISHED_MAX_NODES {
        log::warn!("{n} nodes: beyond the published limit (total nodes < 10^7)");
    }
    let per_graph = (n_ops as u64).div_ceil(u64::from(cfg.graphs));
    if per_graph >= PUBLISHED_MAX_OPS_PER_GRAPH {
        log::warn!("up to {per_graph} ops per graph: beyond the published limit (< 10^5)");
    }

    // Pass 1: the witness instance (huge memories, only the witness's tilings),
    // parsed from its text; the largest demand of every tiling on the way.
    let (mut inst, max_demand) = {
        let mut rd = TextReader::new(Emitter::new(cfg, &w, vec![HUGE_MEMORY; n_mem], false));
        let inst = parse_reader(&mut rd, "<generated packed witness instance>")
            .map_err(|e| internal(format!("the witness text does not parse: {e}")))?;
        (inst, rd.em.max_demand)
    };
    lap("pass 1: witness text and parse");
    let choice: Vec<u32> = inst
        .graph
        .ops
        .iter()
        .map(|o| inst.library.groups[o.group as usize].tilings[0])
        .collect();
    let g = NodeGraph::new(&inst, choice).map_err(internal)?;
    same_nodes(&g, &w)?;
    w.sched.choice = g.choice.clone();
    // Nodes are in start order unless ops were interleaved (then per op).
    let order: Vec<u32> = if cfg.interleave > 1 {
        super::by_start(&w.sched)
    } else {
        (0..n as u32).collect()
    };
    let witness_peaks = memory_peaks(&g, &w.sched, &order);
    drop(order);
    drop(g);
    lap("witness peaks");

    let mem_sizes: Vec<u64> = (0..n_mem)
        .map(|m| {
            let scaled = (cfg.mem_factor * witness_peaks[m] as f64).ceil() as u64;
            scaled.max(witness_peaks[m]).max(max_demand[m]).max(1)
        })
        .collect();
    log::debug!(
        "gen packed: peaks {witness_peaks:?}, largest demands {max_demand:?}, sizes {mem_sizes:?}"
    );

    let (witness_makespan, witness_tiling) = check_witness(&mut inst, &w, &mem_sizes)?;
    lap("check");

    let text_bytes = write_final_text(cfg, &w, &mem_sizes, &max_demand, out)?;
    lap("pass 2: text written");
    Ok(Packed {
        witness_instance: inst,
        witness: w.sched,
        witness_tiling,
        optimum: w.t,
        witness_makespan,
        mem_sizes,
        witness_peaks,
        max_demand,
        text_bytes,
    })
}
