//! The instance text of a packed witness, streamed piece by piece: the
//! witness's tilings and the others drawn around them.

use super::*;

/// One drawn subgraph (local indices), reused across tilings.
#[derive(Default)]
pub(super) struct Sub {
    pub(super) edges: Vec<(u32, u32)>,
    pub(super) dur: Vec<u64>,
    pub(super) mem: Vec<(u32, u8, u64)>,
    // scratch
    pub(super) cands: Vec<u32>,
    pub(super) picks: Vec<u32>,
    pub(super) layer_start: Vec<u32>,
    pub(super) perm: Vec<u8>,
}

impl Sub {
    pub(super) fn clear(&mut self) {
        self.edges.clear();
        self.dur.clear();
        self.mem.clear();
    }

    /// The witness's subgraph of op `op`: its nodes in start order, edges only from
    /// a node that has ended to one that starts.
    pub(super) fn draw_witness(&mut self, rng: &mut Rng, w: &Witness, op: usize, uniform: bool) {
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
    pub(super) fn other_count(rng: &mut Rng, cfg: &PackedConfig, work: u64, n_witness: u32) -> u64 {
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
    pub(super) fn draw_other(&mut self, rng: &mut Rng, cfg: &PackedConfig, work: u64, n: u64) {
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
    pub(super) fn draw_demands(
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

    pub(super) fn emit(&self, out: &mut Vec<u8>, op_type: u8, shape: u64, tiling: u32) {
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

pub(super) enum Stage {
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
pub(super) struct Emitter<'a> {
    pub(super) cfg: &'a PackedConfig,
    pub(super) w: &'a Witness,
    pub(super) sizes: Vec<u64>,
    pub(super) all_tilings: bool,
    pub(super) stage: Stage,
    pub(super) sub: Sub,
    pub(super) max_demand: Vec<u64>,
    /// Sum of the ops' work (each op counted once).
    pub(super) total_work: u128,
    /// The first tiling whose work differs from its op's (a generator bug).
    pub(super) error: Option<String>,
}

impl<'a> Emitter<'a> {
    pub(super) fn new(
        cfg: &'a PackedConfig,
        w: &'a Witness,
        sizes: Vec<u64>,
        all_tilings: bool,
    ) -> Self {
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
    pub(super) fn next_piece(&mut self, out: &mut Vec<u8>) -> bool {
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
pub(super) struct TextReader<'a> {
    pub(super) em: Emitter<'a>,
    pub(super) buf: Vec<u8>,
    pub(super) at: usize,
}

impl<'a> TextReader<'a> {
    pub(super) fn new(em: Emitter<'a>) -> Self {
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
pub(super) fn put_tuple(out: &mut Vec<u8>, first: &mut bool, vals: &[u64]) {
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
