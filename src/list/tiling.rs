//! Tiling choices: the starting points of the engine and what makes a tiling
//! memory-lean.

use crate::graph::NodeGraph;
use crate::instance::Instance;

/// The initial tiling per op: the shortest critical path, then the least work,
/// then the leanest memory.
pub fn initial_choice(tl: &Tilings) -> Vec<u32> {
    let peaks = serial_peaks(tl.inst);
    choose_by(tl, |inst, t| {
        let tl = &inst.library.tilings[t as usize];
        let work: u128 = tl
            .nodes()
            .map(|v| u128::from(inst.library.node_dur[v as usize]))
            .sum();
        (u128::from(tl.critical_path), work, peaks[t as usize])
    })
}

/// A memory-lean tiling per op: the smallest serial memory peak relative to the
/// sizes, then the shortest critical path.
pub fn lean_choice(tl: &Tilings) -> Vec<u32> {
    let peaks = serial_peaks(tl.inst);
    choose_by(tl, |inst, t| {
        let tl = &inst.library.tilings[t as usize];
        (peaks[t as usize], u128::from(tl.critical_path), 0)
    })
}

/// Per tiling: the peak memory, in millionths of the memory type's size (the
/// largest over types), when its subgraph runs alone, one node at a time in
/// topological order, under the hold rule; sinks hold to the end (their
/// successors are in other ops). This is what an op adds to the memory in use
/// when ops run one after another.
pub fn serial_peaks(inst: &Instance) -> Vec<u128> {
    let sizes: Vec<u128> = inst
        .platform
        .mems
        .iter()
        .map(|m| u128::from(m.size.max(1)))
        .collect();
    serial_peak_table(inst)
        .into_iter()
        .map(|peaks| match peaks {
            None => u128::MAX,
            Some(p) => p
                .iter()
                .zip(&sizes)
                .map(|(&x, &s)| x * 1_000_000 / s)
                .max()
                .unwrap_or(0),
        })
        .collect()
}

/// Per tiling (None when unusable): the peak held amount per memory type when
/// its subgraph runs alone, serially, in topological order (see `serial_peaks`).
pub fn serial_peak_table(inst: &Instance) -> Vec<Option<Vec<u128>>> {
    let n_mem = inst.platform.mems.len();
    let mut scratch = PeakScratch::default();
    let mut peak = vec![0u128; n_mem];
    inst.library
        .tilings
        .iter()
        .enumerate()
        .map(|(ti, tl)| {
            tl.is_usable().then(|| {
                tiling_peak(inst, ti as u32, &mut scratch, &mut peak);
                peak.clone()
            })
        })
        .collect()
}

/// Scratch space of `tiling_peak`.
#[derive(Default)]
pub struct PeakScratch {
    indeg: Vec<u32>,
    order: Vec<u32>,
    waiting: Vec<u32>,
    held: Vec<u128>,
}

/// The serial peak of tiling `t` per memory type, into `peak`. O(nodes + edges).
pub fn tiling_peak(inst: &Instance, t: u32, sc: &mut PeakScratch, peak: &mut [u128]) {
    let lib = &inst.library;
    let n_mem = peak.len();
    let tl = &lib.tilings[t as usize];
    let base = tl.first_node;
    let n = tl.n_nodes as usize;
    lib.topo_order(t, &mut sc.order, &mut sc.indeg);
    // waiting[l * n_mem + m]: same-type successors of l not yet started.
    sc.waiting.clear();
    sc.waiting.resize(n * n_mem, 0);
    for l in 0..n as u32 {
        for e in lib.mems(base + l) {
            sc.waiting[l as usize * n_mem + e.mem as usize] = lib
                .succs(base + l)
                .iter()
                .filter(|&&s| lib.demand(base + s, e.mem) > 0)
                .count() as u32;
        }
    }
    sc.held.clear();
    sc.held.resize(n_mem, 0);
    peak.iter_mut().for_each(|x| *x = 0);
    for &l in &sc.order {
        let v = base + l;
        // At v's start, holders whose last same-type successor is v release
        // (half-open intervals), then v acquires.
        for e in lib.mems(v) {
            for &p in lib.preds(v) {
                let k = p as usize * n_mem + e.mem as usize;
                if lib.demand(base + p, e.mem) > 0 {
                    sc.waiting[k] -= 1;
                    if sc.waiting[k] == 0 {
                        sc.held[e.mem as usize] -= u128::from(lib.demand(base + p, e.mem));
                    }
                }
            }
        }
        for e in lib.mems(v) {
            sc.held[e.mem as usize] += u128::from(e.amount);
        }
        for (p, &h) in peak.iter_mut().zip(&sc.held) {
            *p = (*p).max(h);
        }
        let sink = lib.succs(v).is_empty();
        for e in lib.mems(v) {
            if !sink && sc.waiting[l as usize * n_mem + e.mem as usize] == 0 {
                sc.held[e.mem as usize] -= u128::from(e.amount);
            }
        }
    }
}

/// The serial peak of every op's chosen tiling, computed once per distinct
/// tiling (ops of one group share them): O(n) for a node graph of n nodes.
pub struct OpPeaks {
    n_mem: usize,
    slot: Vec<u32>,
    peaks: Vec<u128>,
}

impl OpPeaks {
    pub fn new(g: &crate::graph::NodeGraph) -> Self {
        let n_mem = g.inst.platform.mems.len();
        let mut slot_of: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
        let mut peaks: Vec<u128> = Vec::new();
        let mut sc = PeakScratch::default();
        let mut buf = vec![0u128; n_mem];
        let slot = g
            .choice
            .iter()
            .map(|&t| {
                let next = slot_of.len() as u32;
                *slot_of.entry(t).or_insert_with(|| {
                    tiling_peak(g.inst, t, &mut sc, &mut buf);
                    peaks.extend_from_slice(&buf);
                    next
                })
            })
            .collect();
        OpPeaks { n_mem, slot, peaks }
    }
    /// Peak of op `op`'s tiling, per memory type.
    #[inline]
    pub fn of(&self, op: u32) -> &[u128] {
        let s = self.slot[op as usize] as usize * self.n_mem;
        &self.peaks[s..s + self.n_mem]
    }
}

/// The tilings the list engine may choose: the usable ones, less those an
/// exact engine proved never schedulable (a mask over library tilings; the
/// instance itself is never copied).
#[derive(Clone, Copy)]
pub struct Tilings<'a> {
    pub inst: &'a Instance,
    excluded: Option<&'a [bool]>,
}

impl<'a> Tilings<'a> {
    /// Every usable tiling.
    pub fn all(inst: &'a Instance) -> Self {
        Tilings {
            inst,
            excluded: None,
        }
    }
    /// The usable tilings not marked in `excluded` (indexed by library tiling).
    pub fn without(inst: &'a Instance, excluded: Option<&'a [bool]>) -> Self {
        Tilings { inst, excluded }
    }
    /// The tilings of `op` that may be chosen.
    pub fn of(&self, op: u32) -> impl Iterator<Item = u32> + 'a {
        let excluded = self.excluded;
        self.inst
            .usable_tilings(op)
            .filter(move |&t| excluded.is_none_or(|x| !x[t as usize]))
    }
    /// Ops left with no tiling to choose.
    pub fn ops_without(&self) -> Vec<u32> {
        (0..self.inst.graph.n_ops() as u32)
            .filter(|&op| self.of(op).next().is_none())
            .collect()
    }
}

fn choose_by<K: Ord>(tl: &Tilings, key: impl Fn(&Instance, u32) -> K) -> Vec<u32> {
    (0..tl.inst.graph.n_ops() as u32)
        .map(|op| {
            tl.of(op)
                .min_by_key(|&t| key(tl.inst, t))
                .expect("callers check that every op has a tiling to choose")
        })
        .collect()
}

/// Ops with more than one tiling to choose.
pub fn flexible_ops(tl: &Tilings) -> Vec<u32> {
    (0..tl.inst.graph.n_ops() as u32)
        .filter(|&op| tl.of(op).nth(1).is_some())
        .collect()
}

/// A tiling of `op` other than `current`, uniformly at random (`current`
/// itself when there is none).
pub fn other_tiling(tl: &Tilings, op: u32, current: u32, rng: &mut super::priority::Rng) -> u32 {
    let options: Vec<u32> = tl.of(op).filter(|&t| t != current).collect();
    if options.is_empty() {
        current
    } else {
        options[rng.below_mod(options.len())]
    }
}

/// Whether memory is the bottleneck of a node graph: its area bound (per
/// memory type, the memory-time of its nodes over the size) is at least its
/// load bound (per core type, the work over the cores). O(n).
pub fn memory_is_bottleneck(g: &NodeGraph) -> bool {
    let platform = &g.inst.platform;
    let (area, work) = g.areas_and_loads();
    let ratio = |x: u128, per: u64| x as f64 / per.max(1) as f64;
    let memory = area
        .iter()
        .zip(&platform.mems)
        .map(|(&a, m)| ratio(a, m.size))
        .fold(0.0, f64::max);
    let cores = work
        .iter()
        .zip(&platform.cores)
        .map(|(&w, c)| ratio(w, u64::from(c.count)))
        .fold(0.0, f64::max);
    memory > 0.0 && memory >= cores
}
