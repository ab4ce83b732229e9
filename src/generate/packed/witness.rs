//! The packed witness: ops cut from lanes of cores filled back to back,
//! op sizes, the op edges a packing allows, interleaved ops.

use super::*;

/// The witness and the op-level draws that every later step reads.
pub(super) struct Witness {
    /// The horizon: every core is busy on `[0, t)`.
    pub(super) t: u64,
    /// First node of each op; `op_base[ops]` is the node count.
    pub(super) op_base: Vec<u32>,
    /// Per node, op by op (`op_base`), each op's nodes in (start, core) order,
    /// which is global (start, core) order unless ops are interleaved;
    /// `sched.start`/`sched.core` hold the rest.
    pub(super) dur: Vec<u64>,
    pub(super) sched: Schedule,
    pub(super) op_type: Vec<u8>,
    /// Tiling id of the witness's subgraph, per op.
    pub(super) kept: Vec<u8>,
    /// Op edges `(a, b)` as op indices, in emission order.
    pub(super) op_edges: Vec<(u32, u32)>,
}

impl Witness {
    pub(super) fn n_ops(&self) -> usize {
        self.op_base.len() - 1
    }
    pub(super) fn n_nodes(&self) -> usize {
        self.dur.len()
    }
    pub(super) fn end(&self, v: usize) -> u64 {
        self.sched.start[v] + self.dur[v]
    }
}

/// Draws one of `r` remaining parts (in `1..=max`) of a remaining total `rest`
/// (`r <= rest <= r * max`): uniform around the remaining mean, inside the interval
/// that keeps the others fillable. The last part takes exactly what is left.
pub(super) fn draw_part(rng: &mut Rng, r: u64, rest: u64, max: u64) -> u64 {
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
pub(super) fn op_sizes(cfg: &PackedConfig) -> Result<Vec<u32>, String> {
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
pub(super) fn draw_op_edges(
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
pub(super) fn build_witness(cfg: &PackedConfig) -> Result<Witness, String> {
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
pub(super) fn interleave(
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
