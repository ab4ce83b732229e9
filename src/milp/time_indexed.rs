//! The time-indexed formulation in step form: X[v,t] = 1 iff node v has started
//! by time t (t over v's window). Precedence, cores and memory are rows per
//! time unit; memory holds follow problem.md §4.4 through hold indicators. The math is
//! in `models/milp.md`.

use super::highs::{Col, Expr, Milp};
use super::model::{Ctx, Formulated, hold_end, point_starts};
use super::net::{Label, Net, Target};

pub(super) struct TimeIndexed<'c, 'n, 'g, 'a> {
    ctx: &'c Ctx<'n, 'g, 'a>,
    pub milp: Milp,
    /// X[v][t - es[v]] for t in es[v]..ls[v] (started by t); binary for real
    /// nodes, continuous for junctions.
    x: Vec<Vec<Col>>,
    c: Col,
    /// Per memory type modelled: hold indicators per holder with targets
    /// (h[i][t - es[v]] for t in es[v]..ru), and per aggregation "every source
    /// using the type has started by t" (z[a][t - lo]).
    mem: Vec<MemCols>,
}

struct MemCols {
    mi: usize,
    hold: Vec<Option<Vec<Col>>>,
    agg: Vec<(i64, Vec<Col>)>,
}

/// Binaries the formulation would need for horizon windows `ctx`.
pub(super) fn size_estimate(ctx: &Ctx) -> u64 {
    (0..ctx.net.n)
        .map(|v| (ctx.ls[v] - ctx.es[v]).max(0) as u64)
        .sum()
}

impl<'c, 'n, 'g, 'a> TimeIndexed<'c, 'n, 'g, 'a> {
    pub(super) fn build(ctx: &'c Ctx<'n, 'g, 'a>, names: bool) -> Self {
        let mut m = TimeIndexed {
            ctx,
            milp: Milp::new(names),
            x: Vec::new(),
            c: Col(0),
            mem: Vec::new(),
        };
        m.variables();
        m.constraints();
        m.objective();
        m
    }

    fn net(&self) -> &'n Net<'g, 'a> {
        self.ctx.net
    }

    fn label(&self, v: u32) -> Label<'n, 'g, 'a> {
        self.net().label(v)
    }

    /// "v has started by t" as an expression (0 before the window, 1 after).
    fn started(&self, v: u32, t: i64) -> Expr {
        let vi = v as usize;
        if t < self.ctx.es[vi] {
            Expr::constant(0.0)
        } else if t >= self.ctx.ls[vi] {
            Expr::constant(1.0)
        } else {
            Expr::var(self.x[vi][(t - self.ctx.es[vi]) as usize])
        }
    }

    /// "v runs at t" = started(t) - started(t - p).
    fn running(&self, v: u32, t: i64) -> Expr {
        let mut e = self.started(v, t);
        e.add_expr(&self.started(v, t - self.net().p[v as usize]), -1.0);
        e
    }

    /// Start columns, the makespan, hold indicators and aggregations.
    fn variables(&mut self) {
        let net = self.net();
        let ctx = self.ctx;
        for v in 0..net.n_points as u32 {
            let vi = v as usize;
            let real = vi < net.n;
            let lab = self.label(v);
            let cols: Vec<Col> = (ctx.es[vi]..ctx.ls[vi])
                .map(|t| {
                    let name = || format!("X_{lab}_{t}");
                    if real {
                        self.milp.binary(name)
                    } else {
                        self.milp.col(0.0, 1.0, false, name)
                    }
                })
                .collect();
            self.x.push(cols);
        }
        self.c = self
            .milp
            .col(ctx.lb as f64, ctx.h as f64, true, || "C".to_string());
        for (mi, mt) in net.mems.iter().enumerate() {
            if !ctx.memory_may_bind(mt) {
                continue;
            }
            let mem_id = net.g.inst.platform.mems[mt.m as usize].id;
            let mut hold = Vec::with_capacity(mt.holders.len());
            for (i, hd) in mt.holders.iter().enumerate() {
                if hd.targets.is_empty() {
                    hold.push(None);
                    continue;
                }
                let w = ctx.hold_window(mt, i);
                let lab = self.label(hd.v);
                let cols = (ctx.es[hd.v as usize]..w.ru)
                    .map(|t| {
                        self.milp
                            .col(0.0, 1.0, false, || format!("H{mem_id}_{lab}_{t}"))
                    })
                    .collect();
                hold.push(Some(cols));
            }
            let mut agg = Vec::with_capacity(mt.aggs.len());
            for (ai, ag) in mt.aggs.iter().enumerate() {
                let (lo, hi) = ctx.agg_window(ag);
                let cols = (lo..hi)
                    .map(|t| {
                        self.milp
                            .col(0.0, 1.0, false, || format!("Z{mem_id}_{ai}_{t}"))
                    })
                    .collect();
                agg.push((lo, cols));
            }
            self.mem.push(MemCols { mi, hold, agg });
        }
    }

    /// "every source of aggregation a has started by t".
    fn all_started(&self, mc: &MemCols, a: usize, t: i64) -> Expr {
        let (lo, cols) = &mc.agg[a];
        if t < *lo {
            Expr::constant(0.0)
        } else if t >= lo + cols.len() as i64 {
            Expr::constant(1.0)
        } else {
            Expr::var(cols[(t - lo) as usize])
        }
    }

    /// Rows: step monotonicity, precedence, cores, memory, makespan.
    fn constraints(&mut self) {
        let net = self.net();
        let ctx = self.ctx;
        for v in 0..net.n_points {
            for k in 1..self.x[v].len() {
                let mut e = Expr::var(self.x[v][k]);
                e.add(self.x[v][k - 1], -1.0);
                let lab = self.label(v as u32);
                self.milp.ge(&e, 0.0, || format!("step_{lab}_{k}"));
            }
        }
        // Precedence u -> w: started(w, t) <= started(u, t - p_u).
        for u in 0..net.n_points as u32 {
            let pu = net.p[u as usize];
            for &w in &net.succ[u as usize] {
                // From ls_u + p_u on, u has surely started: no row needed.
                let end = ctx.ls[w as usize].min(ctx.ls[u as usize] + pu);
                for t in ctx.es[w as usize]..end {
                    let mut e = self.started(u, t - pu);
                    e.add_expr(&self.started(w, t), -1.0);
                    let (lu, lw) = (self.label(u), self.label(w));
                    self.milp.ge(&e, 0.0, || format!("prec_{lu}_{lw}_{t}"));
                }
            }
        }
        // Cores: at most CoreNum nodes of a type run in each time unit.
        for (c, &k) in net.core_count.iter().enumerate() {
            let nodes = net.on_core(c);
            if !ctx.cores_may_bind(&nodes, k) {
                continue;
            }
            let type_id = net.g.inst.platform.cores[c].id;
            for t in 0..ctx.h {
                let mut e = Expr::default();
                let mut count = 0;
                for &v in &nodes {
                    let vi = v as usize;
                    if ctx.es[vi] <= t && t < ctx.ls[vi] + net.p[vi] {
                        e.add_expr(&self.running(v, t), 1.0);
                        count += 1;
                    }
                }
                if count > k {
                    self.milp
                        .le(&e, f64::from(k), || format!("core{type_id}_{t}"));
                }
            }
        }
        // Memory: holds per problem.md §4.4, summed per type within the size.
        let mem = std::mem::take(&mut self.mem);
        for mc in &mem {
            self.memory_rows(mc);
        }
        self.mem = mem;
        // Makespan: C >= S_v + p_v + tail_v, with S_v = ls_v - sum_t X[v,t].
        for v in 0..net.n {
            let mut e = Expr::var(self.c);
            for &x in &self.x[v] {
                e.add(x, 1.0);
            }
            let lab = self.label(v as u32);
            self.milp
                .ge(&e, (ctx.ls[v] + net.p[v] + net.tail[v]) as f64, || {
                    format!("mk_{lab}")
                });
        }
    }

    fn memory_rows(&mut self, mc: &MemCols) {
        let net = self.net();
        let ctx = self.ctx;
        let mt = &net.mems[mc.mi];
        let mem_id = net.g.inst.platform.mems[mt.m as usize].id;
        // Aggregations: Z[a,t] <= started(y, t) for every source y.
        for (ai, ag) in mt.aggs.iter().enumerate() {
            let (lo, n) = (mc.agg[ai].0, mc.agg[ai].1.len() as i64);
            for t in lo..lo + n {
                for &y in &ag.sources {
                    let mut e = self.started(y, t);
                    e.add_expr(&self.all_started(mc, ai, t), -1.0);
                    let ly = self.label(y);
                    self.milp
                        .ge(&e, 0.0, || format!("Zdef{mem_id}_{ai}_{ly}_{t}"));
                }
            }
        }
        // Hold indicators: H >= running, H >= started(v) - started(target).
        for (i, hd) in mt.holders.iter().enumerate() {
            let Some(cols) = &mc.hold[i] else { continue };
            let v = hd.v;
            let es = ctx.es[v as usize];
            for (k, &h) in cols.iter().enumerate() {
                let t = es + k as i64;
                let lab = self.label(v);
                let mut e = Expr::var(h);
                e.add_expr(&self.running(v, t), -1.0);
                self.milp.ge(&e, 0.0, || format!("Hrun{mem_id}_{lab}_{t}"));
                for (j, &tg) in hd.targets.iter().enumerate() {
                    let later = match tg {
                        Target::Node(y) => self.started(y, t),
                        Target::Agg(a) => self.all_started(mc, a as usize, t),
                    };
                    let mut e = Expr::var(h);
                    e.add_expr(&self.started(v, t), -1.0);
                    e.add_expr(&later, 1.0);
                    self.milp
                        .ge(&e, 0.0, || format!("Hsucc{mem_id}_{lab}_{j}_{t}"));
                }
            }
        }
        // Capacity at each time unit.
        let cap = mt.cap as f64;
        let mut windows: Vec<(i64, i64)> = Vec::with_capacity(mt.holders.len());
        for (i, hd) in mt.holders.iter().enumerate() {
            windows.push((ctx.es[hd.v as usize], ctx.hold_window(mt, i).ru));
        }
        for t in 0..ctx.h {
            let mut e = Expr::default();
            let mut total: u128 = 0;
            for (i, hd) in mt.holders.iter().enumerate() {
                let (a, b) = windows[i];
                if t < a || t >= b {
                    continue;
                }
                total += u128::from(hd.demand);
                let d = hd.demand as f64 / cap;
                match &mc.hold[i] {
                    Some(cols) => {
                        e.add(cols[(t - a) as usize], d);
                    }
                    None => {
                        e.add_expr(&self.running(hd.v, t), d);
                    }
                }
            }
            if total > u128::from(mt.cap) {
                self.milp.le(&e, 1.0, || format!("mem{mem_id}_{t}"));
            }
        }
    }

    fn objective(&mut self) {
        self.milp.set_cost(self.c, 1.0);
    }
}

impl Formulated for TimeIndexed<'_, '_, '_, '_> {
    fn milp(&self) -> &Milp {
        &self.milp
    }

    fn start(&self, starts: &[i64]) -> Vec<f64> {
        let net = self.net();
        let ctx = self.ctx;
        let s = point_starts(net, starts);
        let mut x = vec![0.0; self.milp.n_cols()];
        for (v, cols) in self.x.iter().enumerate() {
            for (k, c) in cols.iter().enumerate() {
                let t = ctx.es[v] + k as i64;
                x[c.0 as usize] = if s[v] <= t { 1.0 } else { 0.0 };
            }
        }
        let mk = (0..net.n).map(|v| s[v] + net.p[v]).max().unwrap_or(0);
        x[self.c.0 as usize] = mk.max(ctx.lb) as f64;
        for mc in &self.mem {
            let mt = &net.mems[mc.mi];
            for (ai, ag) in mt.aggs.iter().enumerate() {
                let l = ag.sources.iter().map(|&y| s[y as usize]).max().unwrap_or(0);
                let (lo, cols) = &mc.agg[ai];
                for (k, c) in cols.iter().enumerate() {
                    x[c.0 as usize] = if l <= lo + k as i64 { 1.0 } else { 0.0 };
                }
            }
            for (i, hd) in mt.holders.iter().enumerate() {
                let Some(cols) = &mc.hold[i] else { continue };
                let r = hold_end(net, mt, i, &s);
                let sv = s[hd.v as usize];
                for (k, c) in cols.iter().enumerate() {
                    let t = ctx.es[hd.v as usize] + k as i64;
                    x[c.0 as usize] = if sv <= t && t < r { 1.0 } else { 0.0 };
                }
            }
        }
        x
    }

    fn decode(&self, x: &[f64]) -> Result<Vec<i64>, String> {
        let net = self.net();
        Ok((0..net.n)
            .map(|v| {
                let zeros = self.x[v]
                    .iter()
                    .take_while(|c| x[c.0 as usize] < 0.5)
                    .count();
                self.ctx.es[v] + zeros as i64
            })
            .collect())
    }
}
