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

mod emit;
mod witness;

use emit::*;
use witness::*;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::io::{self, Read, Write};

use super::{MAX_NODES_PER_SUBGRAPH, MAX_TILINGS, Rng, demand_scale, memory_peaks};
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
        super::check_op_types(self.op_types)?;
        if self.tilings == 0 || self.tilings > MAX_TILINGS {
            return bad(format!(
                "--tilings must be in 1..={MAX_TILINGS}, got {}",
                self.tilings
            ));
        }
        super::check_nodes(self.nodes_min, self.nodes_max, MAX_NODES_PER_SUBGRAPH)?;
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
        super::check_op_graph(
            self.ops,
            self.graphs,
            self.max_time,
            self.density,
            self.nodes_max,
        )?;
        let most_nodes = u64::from(self.ops) * u64::from(self.nodes_max);
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

const CHUNK: usize = 8192;

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
