//! Seeded random instances with a proven feasible schedule (`tmin gen`).
//!
//! Two families: `random` (this module: a random op library and op graph, memory
//! sized between a serial and a greedy schedule) and `packed` ([`packed`]: instances
//! whose optimum is known by construction). The rest of this doc is about `random`.
//!
//! What is drawn: a platform (core types `0..` with the given counts, memory types
//! `0..`), an op library with one `AddOpInfo` per (op type `1..`, shape `16, 32, ...`,
//! tiling `0..`), each a layered DAG of at most `width` nodes per layer, and an op
//! graph of `ops` ops (ids `1..=ops`) split into `graphs` independent DAGs with about
//! `density` local op edges per op. Separate SplitMix64 streams per part make the
//! text a pure function of the configuration.
//!
//! # Why every generated instance is feasible
//!
//! The text is emitted twice from the same random streams; only the memory sizes in
//! `SetSocInfo` (and the deliberately oversized demands of "too much memory" tilings,
//! which are `size + 1`) differ between the two passes.
//!
//! 1. Pass 1 gives every memory type a huge size. The instance is parsed, and each op
//!    takes the tiling its group keeps usable. Two schedules are built on the node
//!    graph: a *serial* one (one node at a time, each on core 0 of its type, each
//!    starting at the previous end, in a topological order that runs one graph after
//!    the other, ops in index order, nodes layer by layer) and a *greedy* list
//!    schedule that ignores memory.
//! 2. For both, the peak held amount of every memory type is computed with exactly
//!    the hold rule of problem.md §4.4 (`[start, R)`, `R = max(end, latest start of a direct
//!    successor demanding the type)`, releases before acquisitions at equal times).
//! 3. Each size becomes `serial + round(max(0, greedy - serial) * (1 - tightness))`,
//!    and at least the largest single-node demand of any tiling meant to be usable.
//!    So the serial schedule always fits, and with tightness 0 the greedy one does.
//! 4. The serial schedule is precedence- and core-legal by construction (one node at
//!    a time, in a topological order) and memory-legal by (3). A faster witness is
//!    used when its peaks fit the sizes too: the greedy schedule, else a list schedule
//!    that keeps the serial order (on all cores, then on one per type). The serial
//!    schedule is the fallback that always fits.
//! 5. Pass 2 re-emits the text with the final sizes and parses it again. The chosen
//!    tilings' nodes, edges and demands are unchanged, so are the witness's holds.
//!    The witness is then run through [`crate::schedule::check`], the validator of
//!    `tmin check`; any violation is a generator bug and is returned as an error
//!    instead of an instance. So the argument above is also checked, every time: no
//!    instance leaves `generate` without a legal schedule.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::graph::NodeGraph;
use crate::instance::{Instance, parse_reader};
use crate::rng::SplitMix64 as Rng;
use crate::schedule::{self, Schedule};
use crate::text::push_u64;

pub mod lanes;
pub mod options;
pub mod packed;

pub use lanes::{LanesConfig, LanesError, LanesGenerated, generate_lanes};
pub use packed::{Packed, PackedConfig, PackedError, generate_packed};

/// The families, as `tmin gen --help` explains them (after the options).
pub const FAMILIES_HELP: &str = "\
Families:

  random (default)  A random op library ((op type, shape) groups of --tilings layered
      DAGs on the --cores core types) and a random op graph; memory sized by
      --tightness between a memory-frugal serial schedule and a greedy one. Proven
      feasible: a witness schedule passes the validator. Optimum unknown.
      Not for random: --mem-factor.

  packed  Instances whose optimum T is known by construction, at any size
      (10^4..10^7 nodes). One core type with K cores (--cores K), --mem-types M >= 1.
      The witness runs every core back to back from 0 to T (no idle time;
      durations 1..=--max-time). Its nodes, in start order, are cut into --ops ops
      of --nodes MIN-MAX nodes; op i is its own group (op type 1..=--op-types, shape
      = op id) and belongs to graph i mod --graphs. Edges follow the witness's
      time order (intra-op x -> y only when x ends before y starts; op edges a -> b,
      about --density per op, only when a has ended when b starts). Every one of
      the --tilings tilings of an op has the same total work (a different node
      count, durations and layered DAG of at most --width per layer; the witness
      uses a random one), so the core load bound ceil(work / K) = T holds for every
      tiling choice and the witness reaches it: T is the optimum (`tmin bound`
      reports it as \"core type 0 load\"). Memory sizes are ceil(--mem-factor x the
      witness's peak under the hold rule), at least the largest single demand.
      Not for packed: --shapes, --tightness, --unusable.

  lanes  Memory-packed instances whose optimum T is known by construction: the
      witness keeps every memory type full at every instant and every hold ends
      with its node. Each of --mem-types M types is cut into --lanes L lanes of
      random heights (its size is their sum); each lane is filled back to back over
      [0, T) with intervals of 5-40 units on a 5-unit grid, each a node demanding
      its lane's height; runs of --nodes MIN-MAX consecutive intervals are the ops
      (chains); a share --joins of the ops also take in the interval of another
      lane that starts when they end. Op edges (about --density per op) only from
      an op whose sink ends at t to one whose source starts at t; lane l belongs to
      graph l mod --graphs. Two core types (lane l on type l mod 2), with a core
      per lane in all (cores never bind) or, with --bind-cores, one core per lane
      of its type (cores full too). Tiling k of an op (--tilings K <= 4) divides
      every height by 2^k and multiplies every duration by 2^k: the same memory
      area, so the memory-area bound is T for every tiling choice, and the
      witness (tiling 0) reaches it. T grows with --ops x nodes / lanes.
      Not for lanes: --shapes, --tightness, --unusable, --cores, --mem-factor,
      --reach, --interleave (and --width, --max-time play no part).

All families write the instance (-o), the witness (--schedule), and log the
summary (RUST_LOG=info); --json prints it on stdout:
  {\"family\", \"seed\", \"ops\", \"nodes\", \"witness_makespan\", \"optimum\", \"mem_sizes\"}
(\"optimum\" is null for random).";

/// The configuration of one generator family (`tmin gen --family`).
#[derive(Clone, Debug, PartialEq)]
pub enum GenFamily {
    Random(GenConfig),
    Packed(PackedConfig),
    Lanes(LanesConfig),
}

/// Most nodes per subgraph (published limit: fewer than 10^4).
pub const MAX_NODES_PER_SUBGRAPH: u32 = 9_999;
/// Bound on `ops * nodes_max`, the largest node graph a configuration can produce.
pub const MAX_GRAPH_NODES: u64 = 20_000_000;
/// Bound on `op_types * shapes * tilings * nodes_max`, the largest op library.
pub const MAX_LIBRARY_NODES: u64 = 5_000_000;
/// Bound on `ops * density`, the expected number of op edges.
pub const MAX_OP_EDGES: f64 = 1e7;
/// Most op types and most tilings per (type, shape) (published limits: fewer than 100).
pub const MAX_OP_TYPES: u32 = 99;
pub const MAX_TILINGS: u32 = 99;
/// Shapes are the powers of two `16, 32, ...`; this many fit a `u32`.
pub const MAX_SHAPES: u32 = 28;
/// Memory size of pass 1: larger than any demand or peak the generator can produce.
const HUGE_MEMORY: u64 = 1_000_000_000_000_000;

/// Knobs of the generator; see `tmin gen --help`.
#[derive(Clone, Debug, PartialEq)]
pub struct GenConfig {
    pub seed: u64,
    pub ops: u32,
    pub op_types: u32,
    pub shapes: u32,
    pub tilings: u32,
    pub nodes_min: u32,
    pub nodes_max: u32,
    pub width: u32,
    pub cores: Vec<u32>,
    pub mem_types: u32,
    pub tightness: f64,
    pub graphs: u32,
    pub unusable: f64,
    pub max_time: u64,
    pub density: f64,
}

impl Default for GenConfig {
    /// The defaults of `tmin gen`.
    fn default() -> Self {
        GenConfig {
            seed: 1,
            ops: 20,
            op_types: 4,
            shapes: 2,
            tilings: 3,
            nodes_min: 4,
            nodes_max: 8,
            width: 3,
            cores: vec![2, 4, 4],
            mem_types: 2,
            tightness: 0.5,
            graphs: 1,
            unusable: 0.0,
            max_time: 10,
            density: 1.5,
        }
    }
}

impl GenConfig {
    /// Every argument in range, or the message naming the flag: the library's,
    /// the platform's, then the sizes'.
    pub fn validate(&self) -> Result<(), String> {
        self.validate_library()?;
        self.validate_platform()?;
        self.validate_sizes()
    }

    /// --op-types, --shapes, --tilings, --nodes, --width.
    fn validate_library(&self) -> Result<(), String> {
        let bad = |msg: String| Err(msg);
        check_op_types(self.op_types)?;
        if self.shapes == 0 || self.shapes > MAX_SHAPES {
            return bad(format!(
                "--shapes must be in 1..={MAX_SHAPES} (shapes are the powers of two 16, 32, ...), got {}",
                self.shapes
            ));
        }
        if self.tilings == 0 || self.tilings > MAX_TILINGS {
            return bad(format!(
                "--tilings must be in 1..={MAX_TILINGS}, got {}",
                self.tilings
            ));
        }
        check_nodes(self.nodes_min, self.nodes_max, MAX_NODES_PER_SUBGRAPH)?;
        if self.width == 0 {
            return bad("--width must be at least 1".into());
        }
        Ok(())
    }

    /// --cores, --mem-types, --tightness, --unusable.
    fn validate_platform(&self) -> Result<(), String> {
        let bad = |msg: String| Err(msg);
        if self.cores.is_empty() {
            return bad("--cores needs at least one core type".into());
        }
        if self.cores.len() > 10 {
            return bad(format!(
                "--cores lists {} core types; the published limit is 10",
                self.cores.len()
            ));
        }
        if let Some((t, &c)) = self
            .cores
            .iter()
            .enumerate()
            .find(|&(_, &c)| !(1..=999).contains(&c))
        {
            return bad(format!(
                "--cores: core type {t} has {c} cores; each count must be in 1..=999"
            ));
        }
        if self.mem_types > 10 {
            return bad(format!(
                "--mem-types must be at most 10 (the published limit), got {}",
                self.mem_types
            ));
        }
        if !(0.0..=1.0).contains(&self.tightness) {
            return bad(format!(
                "--tightness must be in [0, 1], got {}",
                self.tightness
            ));
        }
        if !(0.0..=1.0).contains(&self.unusable) {
            return bad(format!(
                "--unusable must be in [0, 1], got {}",
                self.unusable
            ));
        }
        Ok(())
    }

    /// --graphs, --max-time, --density, and the sizes they reach together.
    fn validate_sizes(&self) -> Result<(), String> {
        let bad = |msg: String| Err(msg);
        check_op_graph(
            self.ops,
            self.graphs,
            self.max_time,
            self.density,
            self.nodes_max,
        )?;
        let graph_nodes = u64::from(self.ops) * u64::from(self.nodes_max);
        let lib_nodes = u64::from(self.op_types)
            * u64::from(self.shapes)
            * u64::from(self.tilings)
            * u64::from(self.nodes_max);
        if lib_nodes > MAX_LIBRARY_NODES {
            return bad(format!(
                "the op library ({} types x {} shapes x {} tilings x up to {} nodes) can reach {lib_nodes} nodes; at most {MAX_LIBRARY_NODES} are supported",
                self.op_types, self.shapes, self.tilings, self.nodes_max
            ));
        }
        // The serial witness runs every node one after the other: its makespan must fit u64.
        let serial_bound = u128::from(graph_nodes.max(1)) * u128::from(self.max_time);
        if serial_bound > u128::from(u64::MAX / 2) {
            return bad(format!(
                "--max-time {} is too large for {graph_nodes} nodes: the sum of all durations must stay below 9.2e18",
                self.max_time
            ));
        }
        Ok(())
    }

    /// Number of (op type, shape) groups of the library.
    pub fn groups(&self) -> u64 {
        u64::from(self.op_types) * u64::from(self.shapes)
    }

    /// How many tilings are made unusable: the share `unusable` of the tilings other
    /// than the one kept usable in every group, rounded to nearest.
    pub fn unusable_count(&self) -> u64 {
        let others = self.groups() * u64::from(self.tilings.saturating_sub(1));
        (self.unusable * others as f64).round() as u64
    }

    /// The shape value of shape index `s` (`16 << s`).
    pub fn shape_value(s: u32) -> u32 {
        16u32 << s
    }
}

/// A generated instance, its text, and the generator's own legal schedule.
pub struct Generated {
    pub text: String,
    pub instance: Instance,
    pub witness: Schedule,
    pub witness_makespan: u128,
    /// Final size of each memory type (ids `0..mem_types`).
    pub mem_sizes: Vec<u64>,
    /// Per memory type: peak of the serial schedule and of the memory-blind greedy one.
    pub serial_peaks: Vec<u64>,
    pub greedy_peaks: Vec<u64>,
    /// Makespan of the serial schedule (the witness is never slower) and which
    /// schedule became the witness (`"list schedule"` is the memory-blind greedy one).
    pub serial_makespan: u128,
    pub witness_kind: String,
}

/// `--op-types` in `1..=MAX_OP_TYPES` (every family).
fn check_op_types(op_types: u32) -> Result<(), String> {
    if op_types == 0 || op_types > MAX_OP_TYPES {
        return Err(format!(
            "--op-types must be in 1..={MAX_OP_TYPES}, got {op_types}"
        ));
    }
    Ok(())
}

/// `--nodes MIN-MAX` with `1 <= MIN <= MAX <= most` (every family; `most`
/// is below the published limit of 10^4 nodes per subgraph).
fn check_nodes(min: u32, max: u32, most: u32) -> Result<(), String> {
    if min == 0 {
        return Err("--nodes: every subgraph needs at least 1 node".into());
    }
    if min > max {
        return Err(format!("--nodes: MIN ({min}) is larger than MAX ({max})"));
    }
    if max > most {
        return Err(format!(
            "--nodes: at most {most} nodes per subgraph (the published limit is < 10^4), got {max}"
        ));
    }
    Ok(())
}

/// The op graph's knobs every family with `--graphs`, `--max-time` and
/// `--density` shares: at least one graph and at most one an op, durations
/// of at least 1, a finite density >= 0 within `MAX_OP_EDGES` op edges, and
/// at most `MAX_GRAPH_NODES` nodes (`--ops` times `--nodes`' MAX).
fn check_op_graph(
    ops: u32,
    graphs: u32,
    max_time: u64,
    density: f64,
    nodes_max: u32,
) -> Result<(), String> {
    if graphs == 0 {
        return Err("--graphs must be at least 1".into());
    }
    if graphs > ops.max(1) {
        return Err(format!(
            "--graphs ({graphs}) cannot exceed the number of ops ({ops})"
        ));
    }
    if max_time == 0 {
        return Err("--max-time must be at least 1".into());
    }
    if !(density >= 0.0 && density.is_finite()) {
        return Err(format!(
            "--density must be a non-negative number, got {density}"
        ));
    }
    let edges = f64::from(ops) * density;
    if edges > MAX_OP_EDGES {
        return Err(format!(
            "--ops {ops} with --density {density} asks for about {edges:.0} op edges; at most {MAX_OP_EDGES:.0} are supported"
        ));
    }
    let most_nodes = u64::from(ops) * u64::from(nodes_max);
    if most_nodes > MAX_GRAPH_NODES {
        return Err(format!(
            "--ops {ops} times up to {nodes_max} nodes per subgraph can reach {most_nodes} nodes; at most {MAX_GRAPH_NODES} are supported"
        ));
    }
    Ok(())
}

/// Random streams, one per part of the instance, so that parts do not shift each other.
const STREAM_PLAN: u64 = 1;
const STREAM_LIBRARY: u64 = 2;
const STREAM_OP_EDGES: u64 = 3;
const STREAM_OP_LIST: u64 = 4;

/// Appends `[a,b,...]`.
#[inline]
fn put_tuple(out: &mut Vec<u8>, first: &mut bool, vals: &[u64]) {
    if !*first {
        out.push(b',');
    }
    *first = false;
    out.push(b'[');
    for (i, &v) in vals.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_u64(out, v);
    }
    out.push(b']');
}

const USABLE: u8 = 0;
const MISSING_CORE: u8 = 1;
const TOO_MUCH_MEMORY: u8 = 2;

/// Which tilings are usable: per group one kept tiling, and a chosen share of the
/// others made unusable, alternating between the two causes.
struct Plan {
    /// Per library tiling `group * tilings + k`.
    status: Vec<u8>,
    /// Per group: the tiling id kept usable (the witness uses it).
    kept: Vec<u32>,
}

fn make_plan(cfg: &GenConfig) -> Plan {
    let mut rng = Rng::stream(cfg.seed, STREAM_PLAN);
    let t = cfg.tilings as usize;
    let groups = cfg.groups() as usize;
    let kept: Vec<u32> = (0..groups)
        .map(|_| rng.below(u64::from(cfg.tilings)) as u32)
        .collect();
    let mut status = vec![USABLE; groups * t];
    let mut others: Vec<u32> = (0..groups)
        .flat_map(|g| {
            let k = kept[g] as usize;
            (0..t)
                .filter(move |&j| j != k)
                .map(move |j| (g * t + j) as u32)
        })
        .collect();
    let count = cfg.unusable_count() as usize;
    for i in 0..count.min(others.len()) {
        let j = i + rng.below((others.len() - i) as u64) as usize;
        others.swap(i, j);
        status[others[i] as usize] = if i % 2 == 1 && cfg.mem_types > 0 {
            TOO_MUCH_MEMORY
        } else {
            MISSING_CORE
        };
    }
    Plan { status, kept }
}

fn emit_soc(cfg: &GenConfig, sizes: &[u64], out: &mut Vec<u8>) {
    out.extend_from_slice(b"SetSocInfo([");
    let mut first = true;
    for (t, &c) in cfg.cores.iter().enumerate() {
        put_tuple(out, &mut first, &[t as u64, u64::from(c)]);
    }
    out.extend_from_slice(b"],[");
    let mut first = true;
    for (m, &s) in sizes.iter().enumerate() {
        put_tuple(out, &mut first, &[m as u64, s]);
    }
    out.extend_from_slice(b"])\n");
}

/// Largest random demand of memory type `m`.
fn demand_scale(m: usize) -> u64 {
    256 << (2 * (m % 3))
}

/// Emits every `AddOpInfo` line. The random draws never depend on `sizes`, so both
/// passes describe the same subgraphs; `sizes` only sets the oversized demands of
/// "too much memory" tilings (`size + 1`; 1 in pass 1). Returns, per memory type,
/// the largest single-node demand among the tilings meant to be usable.
fn emit_library(
    cfg: &GenConfig,
    plan: &Plan,
    sizes: Option<&[u64]>,
    out: &mut Vec<u8>,
) -> Vec<u64> {
    let mut rng = Rng::stream(cfg.seed, STREAM_LIBRARY);
    let n_mem = cfg.mem_types as usize;
    let n_core = cfg.cores.len() as u64;
    let mut max_demand = vec![0u64; n_mem];
    let mut layer_start: Vec<u32> = Vec::new();
    let mut preds: Vec<u32> = Vec::new();
    let mut perm: Vec<usize> = Vec::with_capacity(n_mem);
    let mut idx = 0usize;
    for op_type in 1..=cfg.op_types {
        for s in 0..cfg.shapes {
            for k in 0..cfg.tilings {
                let status = plan.status[idx];
                idx += 1;
                let n = rng.range(u64::from(cfg.nodes_min), u64::from(cfg.nodes_max)) as u32;
                let bad_node = rng.below(u64::from(n)) as u32;
                let bad_mem = if n_mem > 0 {
                    rng.below(n_mem as u64) as usize
                } else {
                    0
                };
                out.extend_from_slice(b"AddOpInfo(");
                push_u64(out, u64::from(op_type));
                out.push(b',');
                push_u64(out, u64::from(GenConfig::shape_value(s)));
                out.push(b',');
                push_u64(out, u64::from(k));
                out.extend_from_slice(b",[");

                // Layers of at most `width` nodes; every node of layer L > 0 has a
                // predecessor in layer L - 1, some have more, a few have skip edges.
                layer_start.clear();
                let mut placed = 0u32;
                while placed < n {
                    layer_start.push(placed);
                    placed += 1 + rng.below(u64::from(cfg.width.min(n - placed))) as u32;
                }
                layer_start.push(n);
                let mut first = true;
                for l in 1..layer_start.len() - 1 {
                    let (a, b) = (layer_start[l - 1], layer_start[l]);
                    let size = u64::from(b - a);
                    for v in layer_start[l]..layer_start[l + 1] {
                        preds.clear();
                        preds.push(a + rng.below(size) as u32);
                        let extra = rng.below(size.min(3));
                        for _ in 0..extra {
                            let p = a + rng.below(size) as u32;
                            if !preds.contains(&p) {
                                preds.push(p);
                            }
                        }
                        if l >= 2 && rng.chance(0.1) {
                            preds.push(rng.below(u64::from(a)) as u32);
                        }
                        for &p in &preds {
                            put_tuple(out, &mut first, &[u64::from(p) + 1, u64::from(v) + 1]);
                        }
                    }
                }
                out.extend_from_slice(b"],[");

                let mut first = true;
                for v in 0..n {
                    let mut core = rng.below(n_core);
                    let dur = rng.range(1, cfg.max_time);
                    if status == MISSING_CORE && v == bad_node {
                        core = n_core + 7;
                    }
                    put_tuple(out, &mut first, &[u64::from(v) + 1, core, dur]);
                }
                out.extend_from_slice(b"],[");

                let mut first = true;
                for v in 0..n {
                    let cnt = rng.below(n_mem as u64 + 1) as usize;
                    perm.clear();
                    perm.extend(0..n_mem);
                    let over_here = status == TOO_MUCH_MEMORY && v == bad_node;
                    let over = match sizes {
                        Some(z) if over_here => z[bad_mem] + 1,
                        _ => 1,
                    };
                    let mut over_done = false;
                    for i in 0..cnt {
                        let j = i + rng.below((n_mem - i) as u64) as usize;
                        perm.swap(i, j);
                        let m = perm[i];
                        let mut size = rng.range(1, demand_scale(m));
                        if over_here && m == bad_mem {
                            size = over;
                            over_done = true;
                        }
                        if status == USABLE {
                            max_demand[m] = max_demand[m].max(size);
                        }
                        put_tuple(out, &mut first, &[u64::from(v) + 1, m as u64, size]);
                    }
                    if over_here && !over_done {
                        put_tuple(out, &mut first, &[u64::from(v) + 1, bad_mem as u64, over]);
                    }
                }
                out.extend_from_slice(b"])\n");
            }
        }
    }
    max_demand
}

/// Emits `GetInferenceScheResult(edges, ops)`. Op `i` (id `i + 1`) belongs to graph
/// `i % graphs`; within a graph, ops only take predecessors earlier in index order,
/// mostly among the last 4 ops of the graph, sometimes among the last 32 (like the
/// skip connections of real networks). Edges stay local, so that a memory-frugal
/// order exists and tightness means something.
fn emit_op_graph(cfg: &GenConfig, out: &mut Vec<u8>) {
    let mut rng = Rng::stream(cfg.seed, STREAM_OP_EDGES);
    let graphs = u64::from(cfg.graphs);
    let whole = cfg.density.floor();
    let frac = cfg.density - whole;
    let whole = whole as u64;
    let mut preds: Vec<u64> = Vec::new();
    out.extend_from_slice(b"GetInferenceScheResult([");
    let mut first = true;
    for i in 0..u64::from(cfg.ops) {
        let (g, p) = (i % graphs, i / graphs);
        if p == 0 {
            continue;
        }
        let k = (whole + u64::from(rng.chance(frac))).min(p);
        preds.clear();
        for _ in 0..k {
            for _attempt in 0..4 {
                let window = if rng.chance(0.8) { 4 } else { 32 };
                let q = p - 1 - rng.below(p.min(window));
                if !preds.contains(&q) {
                    preds.push(q);
                    break;
                }
            }
        }
        for &q in &preds {
            put_tuple(out, &mut first, &[g + q * graphs + 1, i + 1]);
        }
    }
    out.extend_from_slice(b"],[");
    let mut rng = Rng::stream(cfg.seed, STREAM_OP_LIST);
    let mut first = true;
    for i in 0..u64::from(cfg.ops) {
        let t = 1 + rng.below(u64::from(cfg.op_types));
        let s = rng.below(u64::from(cfg.shapes)) as u32;
        put_tuple(
            out,
            &mut first,
            &[i + 1, t, u64::from(GenConfig::shape_value(s))],
        );
    }
    out.extend_from_slice(b"])\n");
}

/// Pass-1 or pass-2 text: platform with `sizes`, library, then the op graph. The op
/// graph is drawn afresh each time (same streams, same bytes) rather than kept, so
/// that only one copy of a large op list is alive at a time.
fn emit_text(cfg: &GenConfig, plan: &Plan, sizes: &[u64], pass2: bool) -> (Vec<u8>, Vec<u64>) {
    let mut text = Vec::with_capacity(1 << 16);
    emit_soc(cfg, sizes, &mut text);
    let max_demand = emit_library(cfg, plan, pass2.then_some(sizes), &mut text);
    emit_op_graph(cfg, &mut text);
    (text, max_demand)
}

/// The kept tiling of each op's group.
fn witness_choice(inst: &Instance, cfg: &GenConfig, plan: &Plan) -> Result<Vec<u32>, String> {
    let lib = &inst.library;
    inst.graph
        .ops
        .iter()
        .map(|o| {
            let s = o.shape.trailing_zeros() - 4;
            let group = (o.op_type - 1) as usize * cfg.shapes as usize + s as usize;
            let kept = plan.kept[group];
            let t = lib
                .find_tiling(o.group, kept)
                .ok_or_else(|| format!("internal error: op {} has no tiling {kept}", o.id))?;
            if !lib.tilings[t as usize].is_usable() {
                return Err(format!(
                    "internal error: tiling {kept} of op {} is unusable",
                    o.id
                ));
            }
            Ok(t)
        })
        .collect()
}

/// The generator's own topological order, meant to keep little memory alive: one
/// graph after the other, each graph's ops in index order (op edges only go from
/// lower to higher index), each op's nodes in id order (layer by layer).
fn serial_order(g: &NodeGraph, graphs: u32) -> Vec<u32> {
    let graphs = graphs as usize;
    let mut order = Vec::with_capacity(g.n_nodes());
    for first in 0..graphs.min(g.n_ops()) {
        for op in (first..g.n_ops()).step_by(graphs) {
            order.extend(g.op_nodes(op as u32));
        }
    }
    debug_assert_eq!(order.len(), g.n_nodes());
    order
}

/// One node at a time in `order`, each on core 0 of its type.
pub fn serial_schedule(g: &NodeGraph, order: &[u32]) -> Schedule {
    let n = g.n_nodes();
    let mut start = vec![0u64; n];
    let mut now = 0u64;
    for &v in order {
        start[v as usize] = now;
        now += g.dur(v);
    }
    Schedule {
        choice: g.choice.clone(),
        start,
        core: vec![0; n],
    }
}

/// Memory-blind list scheduling: in `order` (topological), each node starts as soon
/// as its predecessors have ended and one of the first `cores[type]` cores of its
/// type is free. When `monotone`, no node starts before the previous node of
/// `order`, so only neighbours in the order run side by side and the memory held
/// stays close to that of the serial schedule in the same order.
pub fn list_schedule(g: &NodeGraph, order: &[u32], cores: &[u32], monotone: bool) -> Schedule {
    let n = g.n_nodes();
    let mut start = vec![0u64; n];
    let mut core = vec![0u32; n];
    let mut free: Vec<BinaryHeap<Reverse<(u64, u32)>>> = cores
        .iter()
        .map(|&k| (0..k).map(|c| Reverse((0u64, c))).collect())
        .collect();
    // Latest end among the sinks of each op seen so far; all of them precede any
    // source of a successor op in a topological order.
    let mut sink_end = vec![0u64; g.n_ops()];
    let mut last_start = 0u64;
    for &v in order {
        let vi = v as usize;
        let op = g.node_op[vi];
        let mut ready = 0u64;
        for p in g.intra_preds(v) {
            ready = ready.max(start[p as usize] + g.dur(p));
        }
        if g.is_source(v) {
            for &a in g.op_preds(op) {
                ready = ready.max(sink_end[a as usize]);
            }
        }
        if monotone {
            ready = ready.max(last_start);
        }
        let heap = &mut free[g.core[vi] as usize];
        let Reverse((at, c)) = heap.pop().expect("every core type has a core");
        let s = ready.max(at);
        last_start = s;
        heap.push(Reverse((s + g.dur(vi as u32), c)));
        start[vi] = s;
        core[vi] = c;
        if g.is_sink(v) {
            let e = s + g.dur(vi as u32);
            let se = &mut sink_end[op as usize];
            *se = (*se).max(e);
        }
    }
    Schedule {
        choice: g.choice.clone(),
        start,
        core,
    }
}

/// Node indices sorted by start time.
pub fn by_start(s: &Schedule) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..s.start.len() as u32).collect();
    idx.sort_unstable_by_key(|&v| s.start[v as usize]);
    idx
}

/// Peak held amount of every memory type under the hold rule of problem.md §4.4, exactly
/// as `schedule::check` counts it: node `x` holds its demand on `[start, R)` with
/// `R = max(end, latest start of a direct successor demanding the type)`; empty
/// holds count nothing; releases at `t` come before acquisitions at `t`.
/// `order` lists the nodes by nondecreasing start.
pub fn memory_peaks(g: &NodeGraph, s: &Schedule, order: &[u32]) -> Vec<u64> {
    let n_mem = g.inst.platform.mems.len();
    let mut peaks = vec![0u64; n_mem];
    // Latest start among each op's sources demanding the type (0 when none: any
    // start is <= the end it is compared with).
    let mut src_latest = vec![0u64; g.n_ops()];
    let mut heap: BinaryHeap<Reverse<(u64, u64)>> = BinaryHeap::new();
    for (m, peak) in peaks.iter_mut().enumerate() {
        let m = m as u8;
        for op in 0..g.n_ops() as u32 {
            src_latest[op as usize] = g
                .sources(op)
                .filter(|&v| g.demand(v, m) > 0)
                .map(|v| s.start[v as usize])
                .max()
                .unwrap_or(0);
        }
        heap.clear();
        let mut held = 0u64;
        for &v in order {
            let d = g.demand(v, m);
            if d == 0 {
                continue;
            }
            let t = s.start[v as usize];
            let mut r = t + g.dur(v);
            for w in g.intra_succs(v) {
                if g.demand(w, m) > 0 {
                    r = r.max(s.start[w as usize]);
                }
            }
            if g.is_sink(v) {
                for &b in g.op_succs(g.node_op[v as usize]) {
                    r = r.max(src_latest[b as usize]);
                }
            }
            while let Some(&Reverse((until, amount))) = heap.peek() {
                if until > t {
                    break;
                }
                held -= amount;
                heap.pop();
            }
            if r > t {
                held += d;
                heap.push(Reverse((r, d)));
                *peak = (*peak).max(held);
            }
        }
    }
    peaks
}

fn fits(peaks: &[u64], sizes: &[u64]) -> bool {
    peaks.iter().zip(sizes).all(|(p, z)| p <= z)
}

fn parse(text: &[u8], pass: u32) -> Result<Instance, String> {
    parse_reader(text, &format!("<generated instance, pass {pass}>"))
        .map_err(|e| format!("internal error: the generated text does not parse: {e}"))
}

/// The memory-tight family of instances/sets/memtight.set: `tmin gen --ops OPS
/// --nodes A-B --tilings 3 --tightness 1 --cores 1,2,1 --density 0.5 --seed
/// SEED` (its hard-oO-sS instances have nodes 4-8). One definition for the
/// tests that use the family.
pub fn memory_tight(seed: u64, ops: u32, nodes: (u32, u32)) -> GenConfig {
    GenConfig {
        seed,
        ops,
        nodes_min: nodes.0,
        nodes_max: nodes.1,
        tilings: 3,
        cores: vec![1, 2, 1],
        tightness: 1.0,
        density: 0.5,
        ..GenConfig::default()
    }
}

/// Generates the instance of `cfg` with a checked witness schedule. Errors are
/// invalid configurations (the message of [`GenConfig::validate`]) or, never
/// expected, internal errors naming what went wrong.
pub fn generate(cfg: &GenConfig) -> Result<Generated, String> {
    cfg.validate()?;
    let clock = std::time::Instant::now();
    let lap = |what: &str| log::debug!("gen: {what} at {:.2?}", clock.elapsed());
    let n_mem = cfg.mem_types as usize;
    let plan = make_plan(cfg);

    // Pass 1: memory never binds; build the schedules and measure their peaks.
    let (text, max_demand) = emit_text(cfg, &plan, &vec![HUGE_MEMORY; n_mem], false);
    lap("pass-1 text");
    let inst = parse(&text, 1)?;
    drop(text);
    lap("pass-1 parse");
    let choice = witness_choice(&inst, cfg, &plan)?;
    let g = NodeGraph::new(&inst, choice.clone())?;

    let order = serial_order(&g, cfg.graphs);
    let serial = serial_schedule(&g, &order);
    let serial_peaks = memory_peaks(&g, &serial, &order);
    lap("serial schedule and peaks");

    let topo = g.topo_order();
    let greedy = list_schedule(&g, &topo, &cfg.cores, false);
    let greedy_peaks = memory_peaks(&g, &greedy, &by_start(&greedy));
    drop(topo);
    lap("greedy schedule and peaks");
    log::debug!(
        "gen: serial makespan {}, peaks {serial_peaks:?}; greedy makespan {}, peaks {greedy_peaks:?}",
        serial.makespan(&g),
        greedy.makespan(&g)
    );

    let sizes: Vec<u64> = (0..n_mem)
        .map(|m| {
            let (lo, hi) = (serial_peaks[m], greedy_peaks[m]);
            let slack = (hi.saturating_sub(lo) as f64 * (1.0 - cfg.tightness)).round() as u64;
            (lo + slack).max(max_demand[m]).max(1)
        })
        .collect();

    // The witness: the greedy schedule if it fits; else a list schedule that keeps
    // the serial order (starts never decrease along it), on all cores, then on one
    // core per type; else the serial schedule, which always fits.
    let mut witness: Option<(Schedule, String)> = None;
    if fits(&greedy_peaks, &sizes) {
        witness = Some((greedy, "list schedule".to_string()));
    } else {
        drop(greedy);
        let ones = vec![1; cfg.cores.len()];
        for cores in [&cfg.cores, &ones] {
            let s = list_schedule(&g, &order, cores, true);
            if fits(&memory_peaks(&g, &s, &order), &sizes) {
                witness = Some((s, format!("order-keeping list schedule on cores {cores:?}")));
                break;
            }
        }
    }
    drop(order);
    lap("witness candidates");
    let serial_makespan = serial.makespan(&g);
    let (witness, witness_kind) = witness.unwrap_or((serial, "serial".to_string()));
    drop(g);
    drop(inst);

    // Pass 2: the final sizes. The chosen tilings are unchanged, so is the witness.
    let (text, _) = emit_text(cfg, &plan, &sizes, true);
    lap("pass-2 text");
    let inst = parse(&text, 2)?;
    lap("pass-2 parse");
    let unusable = inst
        .library
        .tilings
        .iter()
        .filter(|t| !t.is_usable())
        .count() as u64;
    if unusable != cfg.unusable_count() {
        return Err(format!(
            "internal error: {unusable} unusable tilings, {} planned",
            cfg.unusable_count()
        ));
    }
    if let Some(&op) = inst.ops_without_usable_tiling().first() {
        return Err(format!("internal error: {}", inst.why_no_usable_tiling(op)));
    }
    let g = NodeGraph::new(&inst, choice)?;
    let violations = schedule::check(&g, &witness, 20);
    if !violations.is_empty() {
        let list: Vec<String> = violations.kept.iter().map(|v| v.to_string()).collect();
        return Err(format!(
            "internal error: the generator's {witness_kind} witness breaks {} rule(s): {}",
            violations.total(),
            list.join("; ")
        ));
    }
    let witness_makespan = witness.makespan(&g);
    drop(g);
    lap("check");
    log::debug!("gen: sizes {sizes:?}, witness {witness_kind}, makespan {witness_makespan}");
    let text = String::from_utf8(text).expect("the generator writes ASCII");
    Ok(Generated {
        text,
        instance: inst,
        witness,
        witness_makespan,
        mem_sizes: sizes,
        serial_peaks,
        greedy_peaks,
        serial_makespan,
        witness_kind,
    })
}
