//! Memory-packed instances with a known optimum (`tmin gen --family lanes`).
//!
//! Where `--family packed` fills the cores, this family fills the memory: a
//! witness keeps every memory type full at every instant, and every hold of
//! the witness ends when its node does, so the hold rule costs it nothing.
//!
//! # The witness
//!
//! Each of the `M` memory types is cut into `L` *lanes* of random heights
//! (multiples of `2^(K-1)` times 2, `K` the tilings an op); its size `C_m`
//! is the sum of its lanes' heights. Every lane is filled back to back over
//! `[0, T)` with *intervals* on a 5-unit grid, 5-40 units long (the last one
//! cut to end at `T`). An interval is a node that demands its lane's height
//! of the lane's memory type while it runs. A lane's intervals are cut into
//! runs of `MIN..=MAX` consecutive intervals; each run is an op, a chain of
//! its nodes. A share `--joins` of the ops also take in the interval of
//! another lane (of the same graph) that starts exactly when the op's chain
//! ends, as the chain's successor: that lane's run then starts one interval
//! later. Every op has one source (its chain's first node) and one sink (its
//! last chain node or the node it took in). Op edges go only from an op whose
//! sink ends at `t` to an op whose source starts at `t` (same graph), about
//! `--density` an op where such pairs exist. Lane `l` belongs to graph
//! `l mod --graphs`; ops are numbered by their source's start.
//!
//! Cores: two core types, lane `l` runs on type `l mod 2`. By default each
//! type has as many cores as there are lanes in all, so cores never bind;
//! with `--bind-cores` each lane is one core of its type, so the cores are
//! full at every instant too.
//!
//! Tiling `k` (`0..K`) of an op is the witness's subgraph with every height
//! divided by `2^k` and every duration multiplied by `2^k`: the same memory
//! area node by node. The witness uses tiling 0.
//!
//! # Why the witness is legal
//!
//! Precedence: a chain's next node starts when its predecessor ends (same
//! lane, back to back); a taken-in node starts when the chain ends; an op
//! edge joins a sink that ends at `t` to a source that starts at `t`. Cores:
//! a lane runs one interval at a time, on its own core. Memory (problem.md
//! §4.4): a node holds from its start until it has ended and its successors
//! demanding the same type have started; every successor of a node starts
//! exactly when it ends (chain, taken-in node, or op edge: all at `t`), so
//! every hold is `[start, end)` and the amount held of type `m` at an
//! instant is the sum of the heights of the lanes of `m`, `C_m`. The
//! generator does not rest on this argument alone: the witness is run
//! through the validator of `tmin check` before the instance is returned.
//!
//! # Why the optimum is `T`
//!
//! In any legal schedule a node holds its amount at least while it runs, so
//! the area `sum_v d(v, m) p_v` of the chosen tilings fits under `C_m` over
//! `[0, makespan)`: `makespan >= area_m / C_m`. Every tiling of an op has the
//! same area per memory type as the witness's (heights halved, durations
//! doubled), so for every choice `area_m = C_m T` and `makespan >= T`; the
//! witness reaches `T`. `tmin bound` finds this as the memory-area bound.

use std::collections::HashMap;

use super::Rng;
use crate::graph::NodeGraph;
use crate::instance::{Instance, parse_reader};
use crate::schedule::{self, Schedule};
use crate::text::push_u64;

/// Most tilings an op (durations grow by `2^k`).
pub const MAX_LANE_TILINGS: u32 = 4;
/// Most lanes in all (memory types times lanes a type).
pub const MAX_LANES: u32 = 500;
/// Most intervals in all.
pub const MAX_LANE_NODES: u64 = 20_000_000;
/// The grid of interval ends, and the shortest and longest interval.
const GRID: u64 = 5;
const LONGEST: u64 = 8; // grid steps

/// Knobs of the lanes family; see `tmin gen --help`.
#[derive(Clone, Debug, PartialEq)]
pub struct LanesConfig {
    pub seed: u64,
    /// About this many ops (before joins merge none away: runs are ops).
    pub ops: u32,
    pub op_types: u32,
    pub tilings: u32,
    /// Intervals a run (an op's chain).
    pub nodes_min: u32,
    pub nodes_max: u32,
    /// Lanes of each memory type.
    pub lanes: u32,
    pub mem_types: u32,
    pub graphs: u32,
    /// Op edges an op, where the witness allows them.
    pub density: f64,
    /// Share of ops that take in the next interval of another lane.
    pub joins: f64,
    /// Each lane one core (cores full as well) instead of spare cores.
    pub bind_cores: bool,
}

impl Default for LanesConfig {
    fn default() -> Self {
        LanesConfig {
            seed: 1,
            ops: 20,
            op_types: 4,
            tilings: 2,
            nodes_min: 4,
            nodes_max: 8,
            lanes: 4,
            mem_types: 1,
            graphs: 1,
            density: 1.5,
            joins: 0.2,
            bind_cores: false,
        }
    }
}

impl LanesConfig {
    pub fn validate(&self) -> Result<(), String> {
        if self.ops == 0 {
            return Err("--ops must be at least 1".into());
        }
        super::check_op_types(self.op_types)?;
        if self.tilings == 0 || self.tilings > MAX_LANE_TILINGS {
            return Err(format!(
                "--tilings must be in 1..={MAX_LANE_TILINGS} for --family lanes (tiling k \
                 doubles durations k times), got {}",
                self.tilings
            ));
        }
        // A run and the interval it may take in are one subgraph.
        super::check_nodes(
            self.nodes_min,
            self.nodes_max,
            super::MAX_NODES_PER_SUBGRAPH - 1,
        )?;
        if self.mem_types == 0 || self.mem_types > super::packed::MAX_MEM_TYPES {
            return Err(format!(
                "--mem-types must be in 1..={} for --family lanes, got {}",
                super::packed::MAX_MEM_TYPES,
                self.mem_types
            ));
        }
        if self.lanes == 0 || self.lanes * self.mem_types > MAX_LANES {
            return Err(format!(
                "--lanes must be at least 1, with --lanes x --mem-types at most {MAX_LANES}, \
                 got {} x {}",
                self.lanes, self.mem_types
            ));
        }
        if self.graphs == 0 || self.graphs > self.lanes * self.mem_types {
            return Err(format!(
                "--graphs must be in 1..=--lanes x --mem-types ({}) for --family lanes (lane l \
                 belongs to graph l mod --graphs), got {}",
                self.lanes * self.mem_types,
                self.graphs
            ));
        }
        if !(self.density >= 0.0 && self.density.is_finite()) {
            return Err(format!("--density must be >= 0, got {}", self.density));
        }
        if !(0.0..=1.0).contains(&self.joins) {
            return Err(format!("--joins must be in [0, 1], got {}", self.joins));
        }
        let nodes = u64::from(self.ops) * u64::from(self.nodes_max);
        if nodes > MAX_LANE_NODES {
            return Err(format!(
                "--ops x MAX nodes is {nodes}; --family lanes makes at most {MAX_LANE_NODES}"
            ));
        }
        Ok(())
    }

    fn n_lanes(&self) -> usize {
        (self.lanes * self.mem_types) as usize
    }
}

/// Why no lanes instance was made.
#[derive(Debug)]
pub enum LanesError {
    /// The options do not describe an instance (exit 2).
    Config(String),
    /// A generator bug: the witness failed its checks (exit 70).
    Internal(String),
}

/// A generated lanes instance: its text, the parsed instance, the witness
/// (checked) and the optimum `T`.
pub struct LanesGenerated {
    pub text: String,
    pub instance: Instance,
    pub witness: Schedule,
    pub optimum: u64,
    pub mem_sizes: Vec<u64>,
}

/// One op: a run of one lane's intervals, maybe with a taken-in interval.
struct Op {
    lane: usize,
    /// First and one past the last interval of the run in its lane.
    first: usize,
    end: usize,
    /// `(lane, interval)` taken in after the chain.
    join: Option<(usize, usize)>,
}

/// The lanes of the witness: heights, and each lane's interval starts (the
/// last entry `T`).
struct Lanes {
    height: Vec<u64>,
    mem: Vec<u32>,
    bounds: Vec<Vec<u64>>,
}

impl Lanes {
    fn draw(cfg: &LanesConfig, rng: &mut Rng, horizon: u64) -> Lanes {
        let unit = 2u64 << (cfg.tilings - 1);
        let n = cfg.n_lanes();
        let height = (0..n).map(|_| unit * rng.range(1, 6)).collect();
        let mem = (0..n).map(|l| l as u32 % cfg.mem_types).collect();
        let bounds = (0..n)
            .map(|_| {
                let mut b = vec![0];
                let mut at = 0;
                while at < horizon {
                    at = (at + GRID * rng.range(1, LONGEST)).min(horizon);
                    b.push(at);
                }
                b
            })
            .collect();
        Lanes {
            height,
            mem,
            bounds,
        }
    }
    fn start(&self, lane: usize, i: usize) -> u64 {
        self.bounds[lane][i]
    }
    fn end(&self, lane: usize, i: usize) -> u64 {
        self.bounds[lane][i + 1]
    }
    fn intervals(&self, lane: usize) -> usize {
        self.bounds[lane].len() - 1
    }
}

/// Cuts every lane into runs, then lets a share of them take in the next
/// interval of another lane of their graph.
fn cut_runs(cfg: &LanesConfig, lanes: &Lanes, rng: &mut Rng) -> Vec<Op> {
    let graph = |l: usize| l % cfg.graphs as usize;
    let mut ops = Vec::new();
    for lane in 0..lanes.height.len() {
        let mut i = 0;
        while i < lanes.intervals(lane) {
            let len = rng.range(u64::from(cfg.nodes_min), u64::from(cfg.nodes_max)) as usize;
            let end = (i + len).min(lanes.intervals(lane));
            ops.push(Op {
                lane,
                first: i,
                end,
                join: None,
            });
            i = end;
        }
    }
    // Runs of two or more intervals may give up their first to a join.
    let mut firsts: HashMap<u64, Vec<usize>> = HashMap::new();
    for (k, op) in ops.iter().enumerate() {
        if op.end - op.first >= 2 {
            firsts
                .entry(lanes.start(op.lane, op.first))
                .or_default()
                .push(k);
        }
    }
    for k in 0..ops.len() {
        if !rng.chance(cfg.joins) {
            continue;
        }
        let t = lanes.end(ops[k].lane, ops[k].end - 1);
        let Some(cands) = firsts.get_mut(&t) else {
            continue;
        };
        let lane = ops[k].lane;
        let ok: Vec<usize> = (0..cands.len())
            .filter(|&c| {
                let o = &ops[cands[c]];
                o.lane != lane && graph(o.lane) == graph(lane) && o.end - o.first >= 2
            })
            .collect();
        if ok.is_empty() {
            continue;
        }
        let c = ok[rng.below(ok.len() as u64) as usize];
        let giver = cands.swap_remove(c);
        let (gl, gi) = (ops[giver].lane, ops[giver].first);
        ops[giver].first += 1;
        ops[k].join = Some((gl, gi));
    }
    ops
}

/// The op's nodes in id order: `(lane, interval)`.
fn nodes_of(op: &Op) -> impl Iterator<Item = (usize, usize)> + '_ {
    (op.first..op.end).map(|i| (op.lane, i)).chain(op.join)
}

/// Generates the instance of `cfg` with its checked witness.
pub fn generate_lanes(cfg: &LanesConfig) -> Result<LanesGenerated, LanesError> {
    cfg.validate().map_err(LanesError::Config)?;
    build(cfg).map_err(LanesError::Internal)
}

/// The instance of a valid configuration; an error is a generator bug.
fn build(cfg: &LanesConfig) -> Result<LanesGenerated, String> {
    let mut rng = Rng::stream(cfg.seed, 11);
    let mean_run = (f64::from(cfg.nodes_min) + f64::from(cfg.nodes_max)) / 2.0;
    let mean_interval = GRID as f64 * (1 + LONGEST) as f64 / 2.0;
    let per_lane = f64::from(cfg.ops) * mean_run * mean_interval / cfg.n_lanes() as f64;
    let horizon = ((per_lane / GRID as f64).ceil() as u64).max(1) * GRID;
    let lanes = Lanes::draw(cfg, &mut rng, horizon);
    let mut ops = cut_runs(cfg, &lanes, &mut rng);
    ops.retain(|o| o.end > o.first);
    ops.sort_by_key(|o| (lanes.start(o.lane, o.first), o.lane));
    let source = |o: &Op| lanes.start(o.lane, o.first);
    let sink_end = |o: &Op| match o.join {
        Some((l, i)) => lanes.end(l, i),
        None => lanes.end(o.lane, o.end - 1),
    };
    let graph = |o: &Op| o.lane % cfg.graphs as usize;
    // Op edges: sink ends at t -> source starts at t, same graph.
    let mut ending: HashMap<(u64, usize), Vec<usize>> = HashMap::new();
    for (k, o) in ops.iter().enumerate() {
        ending.entry((sink_end(o), graph(o))).or_default().push(k);
    }
    let mut op_edges = Vec::new();
    for (k, o) in ops.iter().enumerate() {
        let Some(cands) = ending.get(&(source(o), graph(o))) else {
            continue;
        };
        let want = cfg.density.floor() as usize + usize::from(rng.chance(cfg.density.fract()));
        let mut picks: Vec<usize> = Vec::new();
        for _ in 0..want.min(cands.len()) * 2 {
            let a = cands[rng.below(cands.len() as u64) as usize];
            if a != k && !picks.contains(&a) && picks.len() < want {
                picks.push(a);
            }
        }
        op_edges.extend(picks.into_iter().map(|a| (a, k)));
    }
    let sizes: Vec<u64> = (0..cfg.mem_types)
        .map(|m| {
            (0..lanes.height.len())
                .filter(|&l| lanes.mem[l] == m)
                .map(|l| lanes.height[l])
                .sum()
        })
        .collect();
    let core_of = |l: usize| -> (u32, u32) {
        let ty = (l % 2) as u32;
        if cfg.bind_cores {
            (ty, (l / 2) as u32)
        } else {
            (ty, l as u32)
        }
    };
    let cores: Vec<u32> = (0..2u32)
        .map(|ty| {
            let of_type = (0..cfg.n_lanes()).filter(|l| l % 2 == ty as usize).count();
            if cfg.bind_cores {
                of_type.max(1) as u32
            } else {
                cfg.n_lanes() as u32
            }
        })
        .collect();
    let text = emit(cfg, &lanes, &ops, &op_edges, &sizes, &cores, &mut rng);
    let inst = parse_reader(&text[..], "<lanes>")
        .map_err(|e| format!("internal error: the lanes text does not parse: {e}"))?;
    // The witness: tiling 0 of each op, each node at its interval.
    let choice = inst
        .graph
        .ops
        .iter()
        .map(|o| {
            inst.library
                .find_tiling(o.group, 0)
                .ok_or_else(|| format!("internal error: op {} has no tiling 0", o.id))
        })
        .collect::<Result<Vec<u32>, String>>()?;
    let g = NodeGraph::new(&inst, choice.clone())?;
    let mut start = vec![0; g.n_nodes()];
    let mut core = vec![0; g.n_nodes()];
    for (v, (s, c)) in start.iter_mut().zip(core.iter_mut()).enumerate() {
        let (op_id, node_id) = g.label(v as u32);
        let op = &ops[op_id as usize - 1];
        let (lane, i) = nodes_of(op)
            .nth(node_id as usize - 1)
            .ok_or("internal error: a node the lanes text does not have")?;
        *s = lanes.start(lane, i);
        *c = core_of(lane).1;
    }
    let witness = Schedule {
        choice,
        start,
        core,
    };
    let violations = schedule::check(&g, &witness, 20);
    if !violations.is_empty() {
        let list: Vec<String> = violations.kept.iter().map(|v| v.to_string()).collect();
        return Err(format!(
            "internal error: the lanes witness breaks {} rule(s): {}",
            violations.total(),
            list.join("; ")
        ));
    }
    let makespan = witness.makespan(&g);
    if makespan != u128::from(horizon) {
        return Err(format!(
            "internal error: the lanes witness ends at {makespan}, not at T = {horizon}"
        ));
    }
    drop(g);
    Ok(LanesGenerated {
        text: String::from_utf8(text).expect("the generator writes ASCII"),
        instance: inst,
        witness,
        optimum: horizon,
        mem_sizes: sizes,
    })
}

/// The instance text: the platform, every op's tilings, the op graph.
fn emit(
    cfg: &LanesConfig,
    lanes: &Lanes,
    ops: &[Op],
    op_edges: &[(usize, usize)],
    sizes: &[u64],
    cores: &[u32],
    rng: &mut Rng,
) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(b"SetSocInfo(");
    put_list(
        &mut out,
        cores
            .iter()
            .enumerate()
            .map(|(t, &k)| [t as u64, u64::from(k)]),
    );
    out.push(b',');
    put_list(
        &mut out,
        sizes.iter().enumerate().map(|(m, &c)| [m as u64, c]),
    );
    out.extend_from_slice(b")\n");
    let op_type: Vec<u64> = ops
        .iter()
        .map(|_| 1 + rng.below(u64::from(cfg.op_types)))
        .collect();
    for (k, op) in ops.iter().enumerate() {
        let n = nodes_of(op).count() as u64;
        for t in 0..cfg.tilings {
            out.extend_from_slice(b"AddOpInfo(");
            for x in [op_type[k], k as u64 + 1, u64::from(t)] {
                push_u64(&mut out, x);
                out.push(b',');
            }
            put_list(&mut out, (1..n).map(|i| [i, i + 1]));
            out.push(b',');
            put_list(
                &mut out,
                nodes_of(op).enumerate().map(|(i, (l, j))| {
                    let dur = (lanes.end(l, j) - lanes.start(l, j)) << t;
                    [i as u64 + 1, (l % 2) as u64, dur]
                }),
            );
            out.push(b',');
            put_list(
                &mut out,
                nodes_of(op).enumerate().map(|(i, (l, _))| {
                    [i as u64 + 1, u64::from(lanes.mem[l]), lanes.height[l] >> t]
                }),
            );
            out.extend_from_slice(b")\n");
        }
    }
    out.extend_from_slice(b"GetInferenceScheResult(");
    put_list(
        &mut out,
        op_edges.iter().map(|&(a, b)| [a as u64 + 1, b as u64 + 1]),
    );
    out.push(b',');
    put_list(
        &mut out,
        (0..ops.len()).map(|k| [k as u64 + 1, op_type[k], k as u64 + 1]),
    );
    out.extend_from_slice(b")\n");
    out
}

/// Appends `[row,row,...]`, each row a tuple as `super::put_tuple` writes it.
fn put_list<const N: usize>(out: &mut Vec<u8>, rows: impl Iterator<Item = [u64; N]>) {
    out.push(b'[');
    let mut first = true;
    for row in rows {
        super::put_tuple(out, &mut first, &row);
    }
    out.push(b']');
}
