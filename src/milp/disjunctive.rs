//! The disjunctive (continuous-time) formulation: start variables, ordering
//! binaries only between nodes that can conflict, cores with one unit as
//! pairwise big-M disjunctions, cores with several units and memory types as
//! resource flows over ordering binaries. The math is in `models/milp.md`.

use std::collections::HashMap;

use super::highs::{Col, Expr, Milp};
use super::model::{Ctx, Formulated, hold_end, longest_paths, point_starts};
use super::net::{Net, Target};
use crate::stop::Deadline;

/// A pair on a one-core type whose order is open: `col = 1` iff u runs before v.
struct Unary {
    u: u32,
    v: u32,
    col: Col,
}

/// One item of a flow-modelled resource.
struct FlowItem {
    v: u32,
    /// Demand divided by the capacity.
    demand: f64,
    /// The hold end column (memory holders with targets); None: S_v + p_v.
    end: Option<Col>,
    /// For holds that may be empty (zero-duration holders): 1 iff not empty.
    nonempty: Option<Col>,
    er: i64,
    ru: i64,
}

/// An arc of the flow network: item i releases before item j acquires.
struct FlowArc {
    i: usize,
    j: usize,
    /// None when the order is implied by precedence or windows.
    order: Option<Col>,
    flow: Col,
}

/// A resource modelled by flows: a core type with several cores (demands 1)
/// or a memory type (demands normalised by the size).
struct FlowRes {
    name: String,
    items: Vec<FlowItem>,
    arcs: Vec<FlowArc>,
    source: Vec<Col>,
    sink: Vec<Col>,
    /// Memory only: aggregation columns (latest start of an op's sources
    /// using this type) and which memory type of the net.
    aggs: Vec<Col>,
    mem: Option<usize>,
    /// Core only: the number of cores.
    cores: Option<u32>,
}

pub(super) struct Disjunctive<'c, 'n, 'g, 'a> {
    ctx: &'c Ctx<'n, 'g, 'a>,
    pub milp: Milp,
    s: Vec<Col>,
    c: Col,
    unary: Vec<Unary>,
    /// Orders on one-core types forced by the windows (u before v) that the
    /// precedence graph does not imply.
    forced: Vec<(u32, u32)>,
    flows: Vec<FlowRes>,
    /// Order of two nodes on a common core type, for linking: (u, v) -> an
    /// expression worth 1 iff u runs before v.
    core_order: HashMap<(u32, u32), Expr>,
}

/// Why no model was built.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum NoModel {
    /// The horizon leaves no schedule (two nodes can be ordered neither way).
    NoSchedule,
    /// The deadline came first: the quadratic parts (pairs of nodes on a
    /// resource) look at the clock once a node (the columns) or every
    /// `PAIRS_BETWEEN_LOOKS` pairs (the rows), since a model over a few
    /// hundred nodes can take seconds to build.
    Deadline,
}

/// Pairs of a resource's rows built between two looks at the clock.
const PAIRS_BETWEEN_LOOKS: usize = 1024;

impl<'c, 'n, 'g, 'a> Disjunctive<'c, 'n, 'g, 'a> {
    pub(super) fn build(
        ctx: &'c Ctx<'n, 'g, 'a>,
        names: bool,
        deadline: &Deadline,
    ) -> Result<Self, NoModel> {
        let mut d = Disjunctive {
            ctx,
            milp: Milp::new(names),
            s: Vec::new(),
            c: Col(0),
            unary: Vec::new(),
            forced: Vec::new(),
            flows: Vec::new(),
            core_order: HashMap::new(),
        };
        d.variables(deadline)?;
        d.constraints(deadline)?;
        d.objective();
        Ok(d)
    }

    fn net(&self) -> &'n Net<'g, 'a> {
        self.ctx.net
    }

    /// Can u end before v starts within the windows (and no path v -> u)?
    fn may_precede(&self, u: u32, v: u32) -> bool {
        let (es, ls, p) = (&self.ctx.es, &self.ctx.ls, &self.net().p);
        es[u as usize] + p[u as usize] <= ls[v as usize] && !self.net().precedes(v, u)
    }
    /// Does u end before v starts in every schedule within the windows?
    fn must_precede(&self, u: u32, v: u32) -> bool {
        let (es, ls, p) = (&self.ctx.es, &self.ctx.ls, &self.net().p);
        self.net().precedes(u, v) || ls[u as usize] + p[u as usize] <= es[v as usize]
    }

    /// Columns: starts, makespan, ordering binaries, hold ends, flows.
    fn variables(&mut self, deadline: &Deadline) -> Result<(), NoModel> {
        let net = self.net();
        let ctx = self.ctx;
        for v in 0..net.n_points as u32 {
            let col = self.milp.col(
                ctx.es[v as usize] as f64,
                ctx.ls[v as usize] as f64,
                false,
                || format!("S_{}", net.label(v)),
            );
            self.s.push(col);
        }
        self.c = self
            .milp
            .col(ctx.lb as f64, ctx.h as f64, true, || "C".to_string());
        for (c, &k) in net.core_count.iter().enumerate() {
            let nodes = net.on_core(c);
            if !ctx.cores_may_bind(&nodes, k) {
                continue;
            }
            if k == 1 {
                self.one_core_orders(&nodes, deadline)?;
            } else {
                self.core_flow(c, k, &nodes, deadline)?;
            }
        }
        for (mi, mt) in net.mems.iter().enumerate() {
            if ctx.memory_may_bind(mt) {
                self.memory_flow(mi, mt, deadline)?;
            }
        }
        Ok(())
    }

    /// A one-core type: an ordering binary per pair whose order the windows
    /// leave open, a constant order where they fix it.
    fn one_core_orders(&mut self, nodes: &[u32], deadline: &Deadline) -> Result<(), NoModel> {
        let net = self.net();
        for (a, &u) in nodes.iter().enumerate() {
            if deadline.expired() {
                return Err(NoModel::Deadline);
            }
            for &v in &nodes[a + 1..] {
                let uv = self.may_precede(u, v);
                let vu = self.may_precede(v, u);
                let (first, second) = match (uv, vu) {
                    (true, true) => {
                        if self.must_precede(u, v) {
                            (u, v)
                        } else if self.must_precede(v, u) {
                            (v, u)
                        } else {
                            let col = self
                                .milp
                                .binary(|| format!("o_{}_{}", net.label(u), net.label(v)));
                            self.unary.push(Unary { u, v, col });
                            self.core_order.insert((u, v), Expr::var(col));
                            let mut rev = Expr::constant(1.0);
                            rev.add(col, -1.0);
                            self.core_order.insert((v, u), rev);
                            continue;
                        }
                    }
                    (true, false) => (u, v),
                    (false, true) => (v, u),
                    (false, false) => return Err(NoModel::NoSchedule),
                };
                if !self.must_precede(first, second) {
                    self.forced.push((first, second));
                }
                self.core_order.insert((first, second), Expr::constant(1.0));
                self.core_order.insert((second, first), Expr::constant(0.0));
            }
        }
        Ok(())
    }

    /// A type of several cores: a flow of `k` units through its nodes.
    fn core_flow(
        &mut self,
        c: usize,
        k: u32,
        nodes: &[u32],
        deadline: &Deadline,
    ) -> Result<(), NoModel> {
        let net = self.net();
        let ctx = self.ctx;
        let type_id = net.g.inst.platform.cores[c].id;
        let items: Vec<FlowItem> = nodes
            .iter()
            .map(|&v| FlowItem {
                v,
                demand: 1.0,
                end: None,
                nonempty: None,
                er: ctx.es[v as usize] + net.p[v as usize],
                ru: ctx.ls[v as usize] + net.p[v as usize],
            })
            .collect();
        let name = format!("core{type_id}");
        let mut res = FlowRes {
            name,
            items,
            arcs: Vec::new(),
            source: Vec::new(),
            sink: Vec::new(),
            aggs: Vec::new(),
            mem: None,
            cores: Some(k),
        };
        self.flow_columns(&mut res, deadline)?;
        for a in &res.arcs {
            let (u, v) = (res.items[a.i].v, res.items[a.j].v);
            let e = match a.order {
                Some(col) => Expr::var(col),
                None => Expr::constant(1.0),
            };
            self.core_order.insert((u, v), e);
        }
        for &u in nodes {
            for &v in nodes {
                if u != v {
                    self.core_order
                        .entry((u, v))
                        .or_insert_with(|| Expr::constant(0.0));
                }
            }
        }
        self.flows.push(res);
        Ok(())
    }

    /// A memory type that may bind: hold-end columns and a flow of its size.
    fn memory_flow(
        &mut self,
        mi: usize,
        mt: &super::net::MemType,
        deadline: &Deadline,
    ) -> Result<(), NoModel> {
        let net = self.net();
        let ctx = self.ctx;
        let mem_id = net.g.inst.platform.mems[mt.m as usize].id;
        let cap = mt.cap as f64;
        let mut aggs = Vec::with_capacity(mt.aggs.len());
        for (ai, ag) in mt.aggs.iter().enumerate() {
            let (lo, hi) = ctx.agg_window(ag);
            aggs.push(self.milp.col(lo as f64, hi as f64, false, || {
                format!("L{mem_id}_{}_{ai}", net.g.inst.graph.ops[ag.op as usize].id)
            }));
        }
        let mut items = Vec::with_capacity(mt.holders.len());
        for (i, hd) in mt.holders.iter().enumerate() {
            let w = ctx.hold_window(mt, i);
            let lab = net.label(hd.v);
            let end = (!hd.targets.is_empty()).then(|| {
                self.milp.col(w.er as f64, w.ru as f64, false, || {
                    format!("R{mem_id}_{lab}")
                })
            });
            let nonempty = (net.p[hd.v as usize] == 0)
                .then(|| self.milp.binary(|| format!("w{mem_id}_{lab}")));
            items.push(FlowItem {
                v: hd.v,
                demand: hd.demand as f64 / cap,
                end,
                nonempty,
                er: w.er,
                ru: w.ru,
            });
        }
        let mut res = FlowRes {
            name: format!("mem{mem_id}"),
            items,
            arcs: Vec::new(),
            source: Vec::new(),
            sink: Vec::new(),
            aggs,
            mem: Some(mi),
            cores: None,
        };
        self.flow_columns(&mut res, deadline)?;
        self.flows.push(res);
        Ok(())
    }

    /// Ordering binaries and flow columns of a flow-modelled resource.
    fn flow_columns(&mut self, res: &mut FlowRes, deadline: &Deadline) -> Result<(), NoModel> {
        let net = self.net();
        let ctx = self.ctx;
        let mt = res.mem.map(|m| &net.mems[m]);
        for i in 0..res.items.len() {
            if deadline.expired() {
                return Err(NoModel::Deadline);
            }
            for j in 0..res.items.len() {
                if i == j {
                    continue;
                }
                let (u, v) = (res.items[i].v, res.items[j].v);
                // Can the hold of i end before j starts?
                if res.items[i].er > ctx.ls[v as usize] || net.precedes(v, u) {
                    continue;
                }
                let implied = res.items[i].ru <= ctx.es[v as usize]
                    || (net.precedes(u, v)
                        && match mt {
                            None => true,
                            Some(mt) => mt.holders[i].targets.iter().all(|&t| {
                                Net::target_nodes(mt, t)
                                    .iter()
                                    .all(|&y| y == v || net.precedes(y, v))
                            }),
                        });
                let (lu, lv) = (net.label(u), net.label(v));
                let order =
                    (!implied).then(|| self.milp.binary(|| format!("z{}_{lu}_{lv}", res.name)));
                let cap = res.items[i].demand.min(res.items[j].demand);
                let flow = self
                    .milp
                    .col(0.0, cap, false, || format!("f{}_{lu}_{lv}", res.name));
                res.arcs.push(FlowArc { i, j, order, flow });
            }
        }
        for it in &res.items {
            let lab = net.label(it.v);
            res.source.push(
                self.milp
                    .col(0.0, it.demand, false, || format!("src{}_{lab}", res.name)),
            );
            res.sink.push(
                self.milp
                    .col(0.0, it.demand, false, || format!("snk{}_{lab}", res.name)),
            );
        }
        Ok(())
    }

    /// Rows: precedence, makespan, disjunctions, flows, holds, valid inequalities.
    fn constraints(&mut self, deadline: &Deadline) -> Result<(), NoModel> {
        let net = self.net();
        let ctx = self.ctx;
        let (es, ls, p) = (&ctx.es, &ctx.ls, &net.p);
        // Precedence (problem.md §4.1), op edges through junctions.
        for u in 0..net.n_points as u32 {
            for &w in &net.succ[u as usize] {
                let mut e = Expr::var(self.s[w as usize]);
                e.add(self.s[u as usize], -1.0);
                self.milp.ge(&e, p[u as usize] as f64, || {
                    format!("prec_{}_{}", net.label(u), net.label(w))
                });
            }
        }
        // Makespan: C >= S_v + p_v + tail_v.
        for v in 0..net.n as u32 {
            let mut e = Expr::var(self.c);
            e.add(self.s[v as usize], -1.0);
            self.milp
                .ge(&e, (p[v as usize] + net.tail[v as usize]) as f64, || {
                    format!("mk_{}", net.label(v))
                });
        }
        // One-core types: big-M disjunctions with the tightest M.
        for k in 0..self.unary.len() {
            let Unary { u, v, col } = self.unary[k];
            let (ui, vi) = (u as usize, v as usize);
            let m1 = (ls[ui] + p[ui] - es[vi]) as f64;
            let mut e = Expr::var(self.s[vi]);
            e.add(self.s[ui], -1.0).add(col, -m1);
            self.milp.ge(&e, p[ui] as f64 - m1, || {
                format!("dis_{}_{}", net.label(u), net.label(v))
            });
            let m2 = (ls[vi] + p[vi] - es[ui]) as f64;
            let mut e = Expr::var(self.s[ui]);
            e.add(self.s[vi], -1.0).add(col, m2);
            self.milp.ge(&e, p[vi] as f64, || {
                format!("dis_{}_{}", net.label(v), net.label(u))
            });
        }
        for k in 0..self.forced.len() {
            let (u, v) = self.forced[k];
            let mut e = Expr::var(self.s[v as usize]);
            e.add(self.s[u as usize], -1.0);
            self.milp.ge(&e, p[u as usize] as f64, || {
                format!("ord_{}_{}", net.label(u), net.label(v))
            });
        }
        self.core_cuts();
        let flows = std::mem::take(&mut self.flows);
        for res in &flows {
            self.flow_rows(res, deadline)?;
        }
        self.flows = flows;
        Ok(())
    }

    /// Per core type and node v: the work ordered before v fits between the
    /// type's least head and S_v; the work ordered after v fits between v's end
    /// and C minus the type's least tail (divided by the core count).
    fn core_cuts(&mut self) {
        let net = self.net();
        let ctx = self.ctx;
        for (c, &k) in net.core_count.iter().enumerate() {
            let nodes = net.on_core(c);
            if !ctx.cores_may_bind(&nodes, k) {
                continue;
            }
            let kf = f64::from(k);
            let min_head = nodes.iter().map(|&v| ctx.es[v as usize]).min().unwrap_or(0);
            let min_tail = nodes
                .iter()
                .map(|&v| net.tail[v as usize])
                .min()
                .unwrap_or(0);
            for &v in &nodes {
                let mut before = Expr::var(self.s[v as usize]);
                let mut after = Expr::var(self.c);
                after.add(self.s[v as usize], -1.0);
                for &u in &nodes {
                    if u == v {
                        continue;
                    }
                    let pu = net.p[u as usize] as f64 / kf;
                    if let Some(e) = self.core_order.get(&(u, v)) {
                        before.add_expr(e, -pu);
                    }
                    if let Some(e) = self.core_order.get(&(v, u)) {
                        after.add_expr(e, -pu);
                    }
                }
                let lab = net.label(v);
                self.milp
                    .ge(&before, min_head as f64, || format!("cutb_{lab}"));
                self.milp
                    .ge(&after, (net.p[v as usize] + min_tail) as f64, || {
                        format!("cuta_{lab}")
                    });
            }
        }
    }

    /// The hold end of item `i` as an expression.
    fn end_expr(&self, it: &FlowItem) -> Expr {
        match it.end {
            Some(col) => Expr::var(col),
            None => {
                let mut e = Expr::var(self.s[it.v as usize]);
                e.add_const(self.net().p[it.v as usize] as f64);
                e
            }
        }
    }

    fn flow_rows(&mut self, res: &FlowRes, deadline: &Deadline) -> Result<(), NoModel> {
        let net = self.net();
        let ctx = self.ctx;
        let nm = &res.name;
        // Hold ends (memory): R >= end, R >= start of each same-type successor.
        if let Some(mi) = res.mem {
            let mt = &net.mems[mi];
            for (ai, ag) in mt.aggs.iter().enumerate() {
                for &y in &ag.sources {
                    let mut e = Expr::var(res.aggs[ai]);
                    e.add(self.s[y as usize], -1.0);
                    self.milp
                        .ge(&e, 0.0, || format!("agg{nm}_{ai}_{}", net.label(y)));
                }
            }
            for (i, it) in res.items.iter().enumerate() {
                let lab = net.label(it.v);
                if let Some(r) = it.end {
                    let mut e = Expr::var(r);
                    e.add(self.s[it.v as usize], -1.0);
                    self.milp.ge(&e, net.p[it.v as usize] as f64, || {
                        format!("hold{nm}_{lab}")
                    });
                    for &t in &mt.holders[i].targets {
                        let other = match t {
                            Target::Node(y) => self.s[y as usize],
                            Target::Agg(a) => res.aggs[a as usize],
                        };
                        let mut e = Expr::var(r);
                        e.add(other, -1.0);
                        self.milp.ge(&e, 0.0, || match t {
                            Target::Node(y) => format!("hold{nm}_{lab}_{}", net.label(y)),
                            Target::Agg(a) => format!("hold{nm}_{lab}_agg{a}"),
                        });
                    }
                }
                if let Some(w) = it.nonempty {
                    // An empty hold ends where it starts.
                    let mut e = self.end_expr(it);
                    e.add(self.s[it.v as usize], -1.0);
                    let big = (it.ru - ctx.es[it.v as usize]) as f64;
                    e.add(w, -big);
                    self.milp.le(&e, 0.0, || format!("empty{nm}_{lab}"));
                }
            }
        }
        // Orders: the hold of i ends before j starts.
        let mut index: HashMap<(usize, usize), usize> = HashMap::new();
        for (k, a) in res.arcs.iter().enumerate() {
            index.insert((a.i, a.j), k);
        }
        for (k, a) in res.arcs.iter().enumerate() {
            if k % PAIRS_BETWEEN_LOOKS == 0 && deadline.expired() {
                return Err(NoModel::Deadline);
            }
            let (it, jt) = (&res.items[a.i], &res.items[a.j]);
            let (lu, lv) = (net.label(it.v), net.label(jt.v));
            if let Some(z) = a.order {
                let big = (it.ru - ctx.es[jt.v as usize]) as f64;
                let mut e = Expr::var(self.s[jt.v as usize]);
                e.add_expr(&self.end_expr(it), -1.0);
                e.add(z, -big);
                self.milp.ge(&e, -big, || format!("ord{nm}_{lu}_{lv}"));
                if a.i < a.j
                    && let Some(&k) = index.get(&(a.j, a.i))
                    && let Some(z2) = res.arcs[k].order
                {
                    let mut e = Expr::var(z);
                    e.add(z2, 1.0);
                    self.milp.le(&e, 1.0, || format!("asym{nm}_{lu}_{lv}"));
                }
                // A memory order implies the core order of the two nodes.
                if res.mem.is_some()
                    && let Some(o) = self.core_order.get(&(it.v, jt.v))
                {
                    let mut e = o.clone();
                    e.add(z, -1.0);
                    self.milp.ge(&e, 0.0, || format!("link{nm}_{lu}_{lv}"));
                }
                let cap = it.demand.min(jt.demand);
                let mut e = Expr::var(a.flow);
                e.add(z, -cap);
                self.milp.le(&e, 0.0, || format!("fz{nm}_{lu}_{lv}"));
            }
        }
        // Conservation: every item receives and passes on its demand.
        let n_items = res.items.len();
        let mut inflow: Vec<Expr> = (0..n_items).map(|i| Expr::var(res.source[i])).collect();
        let mut outflow: Vec<Expr> = (0..n_items).map(|i| Expr::var(res.sink[i])).collect();
        for a in &res.arcs {
            outflow[a.i].add(a.flow, 1.0);
            inflow[a.j].add(a.flow, 1.0);
        }
        for (i, it) in res.items.iter().enumerate() {
            let lab = net.label(it.v);
            for (e, what) in [(&mut inflow[i], "in"), (&mut outflow[i], "out")] {
                match it.nonempty {
                    Some(w) => {
                        e.add(w, -it.demand);
                        self.milp.eq(e, 0.0, || format!("{what}{nm}_{lab}"));
                    }
                    None => {
                        self.milp.eq(e, it.demand, || format!("{what}{nm}_{lab}"));
                    }
                }
            }
        }
        let mut total = Expr::default();
        for &s in &res.source {
            total.add(s, 1.0);
        }
        self.milp.le(&total, 1.0, || format!("cap{nm}"));
        // For core types the flow capacity is the core count; demands are 1.
        if let Some(k) = res.cores {
            let last = self.milp.row_upper.len() - 1;
            self.milp.row_upper[last] = f64::from(k);
        }
        Ok(())
    }

    fn objective(&mut self) {
        self.milp.set_cost(self.c, 1.0);
    }
}

impl Formulated for Disjunctive<'_, '_, '_, '_> {
    fn milp(&self) -> &Milp {
        &self.milp
    }

    fn start(&self, starts: &[i64]) -> Vec<f64> {
        let net = self.net();
        let s = point_starts(net, starts);
        let mut x = vec![0.0; self.milp.n_cols()];
        for v in 0..net.n_points {
            x[self.s[v].0 as usize] = s[v] as f64;
        }
        let mk = (0..net.n).map(|v| s[v] + net.p[v]).max().unwrap_or(0);
        x[self.c.0 as usize] = mk.max(self.ctx.lb) as f64;
        for un in &self.unary {
            let before = s[un.u as usize] + net.p[un.u as usize] <= s[un.v as usize];
            x[un.col.0 as usize] = if before { 1.0 } else { 0.0 };
        }
        for res in &self.flows {
            let ends: Vec<i64> = match res.mem {
                Some(mi) => (0..res.items.len())
                    .map(|i| hold_end(net, &net.mems[mi], i, &s))
                    .collect(),
                None => res
                    .items
                    .iter()
                    .map(|it| s[it.v as usize] + net.p[it.v as usize])
                    .collect(),
            };
            for (i, it) in res.items.iter().enumerate() {
                if let Some(r) = it.end {
                    x[r.0 as usize] = ends[i] as f64;
                }
                if let Some(w) = it.nonempty {
                    x[w.0 as usize] = if ends[i] > s[it.v as usize] { 1.0 } else { 0.0 };
                }
            }
            if let Some(mi) = res.mem {
                for (ai, ag) in net.mems[mi].aggs.iter().enumerate() {
                    let l = ag.sources.iter().map(|&y| s[y as usize]).max().unwrap_or(0);
                    x[res.aggs[ai].0 as usize] = l as f64;
                }
            }
            for a in &res.arcs {
                if let Some(z) = a.order {
                    let v = res.items[a.j].v as usize;
                    x[z.0 as usize] = if ends[a.i] <= s[v] { 1.0 } else { 0.0 };
                }
            }
            // Flows are left at 0: HiGHS fixes the integer values above and
            // solves an LP for the continuous rest.
        }
        x
    }

    fn decode(&self, x: &[f64]) -> Result<Vec<i64>, String> {
        let net = self.net();
        let on = |c: Col| x[c.0 as usize] > 0.5;
        // Time points: starts, then hold ends and aggregations.
        let mut lo: Vec<i64> = self.ctx.es.clone();
        let mut arcs: Vec<(u32, u32, i64)> = Vec::new();
        for u in 0..net.n_points as u32 {
            for &w in &net.succ[u as usize] {
                arcs.push((u, w, net.p[u as usize]));
            }
        }
        for un in &self.unary {
            if on(un.col) {
                arcs.push((un.u, un.v, net.p[un.u as usize]));
            } else {
                arcs.push((un.v, un.u, net.p[un.v as usize]));
            }
        }
        for &(u, v) in &self.forced {
            arcs.push((u, v, net.p[u as usize]));
        }
        for res in &self.flows {
            let mut end_point: Vec<(u32, i64)> = Vec::with_capacity(res.items.len());
            let mut agg_point: Vec<u32> = Vec::new();
            if let Some(mi) = res.mem {
                let mt = &net.mems[mi];
                for ag in &mt.aggs {
                    let a = lo.len() as u32;
                    lo.push(0);
                    for &y in &ag.sources {
                        arcs.push((y, a, 0));
                    }
                    agg_point.push(a);
                }
                for (i, it) in res.items.iter().enumerate() {
                    if it.end.is_some() {
                        let r = lo.len() as u32;
                        lo.push(0);
                        arcs.push((it.v, r, net.p[it.v as usize]));
                        for &t in &mt.holders[i].targets {
                            match t {
                                Target::Node(y) => arcs.push((y, r, 0)),
                                Target::Agg(a) => arcs.push((agg_point[a as usize], r, 0)),
                            }
                        }
                        end_point.push((r, 0));
                    } else {
                        end_point.push((it.v, net.p[it.v as usize]));
                    }
                    if let Some(w) = it.nonempty
                        && !on(w)
                    {
                        let (r, lag) = end_point[i];
                        arcs.push((r, it.v, lag));
                    }
                }
            } else {
                for it in &res.items {
                    end_point.push((it.v, net.p[it.v as usize]));
                }
            }
            for a in &res.arcs {
                if let Some(z) = a.order
                    && on(z)
                {
                    let (r, lag) = end_point[a.i];
                    arcs.push((r, res.items[a.j].v, lag));
                }
            }
        }
        let t = longest_paths(&lo, &arcs)?;
        Ok(t[..net.n].to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::NodeGraph;
    use crate::instance::parse_reader;

    /// Two ops on one type of two cores and one memory: flows on both, so
    /// the build looks at the clock; past the deadline it stops there, and
    /// with time left it builds the model.
    #[test]
    fn the_build_stops_at_the_deadline() {
        let text = "SetSocInfo([[0,2]],[[0,10]])
AddOpInfo(1,1,0,[[1,2]],[[1,0,3],[2,0,2]],[[1,0,6],[2,0,6]])
AddOpInfo(2,1,0,[[1,2]],[[1,0,2],[2,0,4]],[[1,0,6],[2,0,6]])
GetInferenceScheResult([],[[1,1,1],[2,2,1]])
";
        let inst = parse_reader(text.as_bytes(), "two.txt").unwrap();
        let g = NodeGraph::new(&inst, vec![0, 1]).unwrap();
        let net = Net::new(&g).unwrap();
        let ctx = Ctx::new(&net, 40, 0).expect("a horizon of 40 holds a schedule");
        let past = Deadline::after(std::time::Duration::ZERO);
        assert_eq!(
            Disjunctive::build(&ctx, false, &past).err(),
            Some(NoModel::Deadline)
        );
        let far = Deadline::after(std::time::Duration::from_secs(60));
        let Ok(d) = Disjunctive::build(&ctx, false, &far) else {
            panic!("no model with a minute left");
        };
        assert!(!d.flows.is_empty() && d.milp().n_rows() > 0);
    }
}
