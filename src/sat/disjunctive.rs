//! Overload checking and edge finding on one-core types, as clauses learned
//! during the search (models/sat.md §3.9).
//!
//! varisat asks this propagator at every propagation fixpoint
//! (vendor/varisat/PATCH.md). It reads each selected node's start window from
//! the order literals, finds sets of nodes that cannot share their common
//! window on one core (overload) or that a node must follow (edge finding),
//! and answers with the clause that explains the conclusion in the literals it
//! rests on. Each clause follows from the encoding alone (a one-core type runs
//! one node at a time), so it is kept as a learned clause: the pair clauses
//! propagate one pair at a time, these reason over sets.

use std::cell::Cell;
use std::rc::Rc;

use varisat::external::{ExternalPropagator, Values};

use crate::bounds::theta::ThetaLambda;
use crate::bounds::windows::{EdgeFinding, Found};
use varisat::{Lit, Var};

/// Types with more candidate nodes are left to the pair clauses
/// (models/sat.md §3.9: the memory-tight set's one-tiling encodings have
/// about 60 nodes a type, its encodings over every candidate 150 and more).
pub const MAX_TASKS: usize = 128;

/// Whether the propagator takes a one-core type of `tasks` nodes that may
/// be selected (one node has nothing to order; above `MAX_TASKS` the pair
/// clauses do it). The encoder leaves exactly these types' orders to it
/// (`encode::Orders::Propagated`).
pub fn covers(tasks: usize) -> bool {
    (2..=MAX_TASKS).contains(&tasks)
}

/// Types of at most this many selected nodes get the sweep
/// (`bounds::windows::EdgeFinding`, `O(n^2)`), larger ones the Θ-Λ tree
/// (`bounds::theta`, `O(n log n)`). The sweep's raises rest on smaller sets
/// (the first `l` that gives a task's best raise; the tree's, the last),
/// which the solver's learned clauses reuse better; the threshold is
/// measured (results/policy.md).
const SWEEP_TASKS: usize = 64;

const NONE: u32 = u32::MAX;
const SHARED: u32 = u32::MAX - 1;

/// A node on a one-core type: its start `s` in `[lo, lo + n]` is
/// order-encoded by `n` variables from `base` ("`s <= lo + i`").
#[derive(Clone, Copy, Debug)]
pub struct Task {
    pub base: u32,
    pub lo: i64,
    pub n: u32,
    pub dur: i64,
    /// The node's selector (`None`: always selected).
    pub sel: Option<Lit>,
}

impl Task {
    /// The literal "`s <= t`": `Err(false)` below the window, `Err(true)` at
    /// or above its top.
    pub fn le(&self, t: i64) -> Result<Lit, bool> {
        if t < self.lo {
            Err(false)
        } else if t >= self.lo + self.n as i64 {
            Err(true)
        } else {
            Ok(Var::from_index((self.base as i64 + t - self.lo) as usize).positive())
        }
    }

    /// The start window read off the order literals: `est` from the false
    /// prefix, `lst` from the first true one (binary search: the literals
    /// are monotone at a fixpoint, `s <= t` implies `s <= t + 1`).
    pub fn window(&self, values: &Values) -> (i64, i64) {
        let var = |i: u32| Var::from_index((self.base + i) as usize).positive();
        let (mut a, mut b) = (0u32, self.n);
        while a < b {
            let mid = (a + b) / 2;
            if values.lit(var(mid)) == Some(false) {
                a = mid + 1;
            } else {
                b = mid;
            }
        }
        let (mut c, mut d) = (a, self.n);
        while c < d {
            let mid = (c + d) / 2;
            if values.lit(var(mid)) == Some(true) {
                d = mid;
            } else {
                c = mid + 1;
            }
        }
        (self.lo + a as i64, self.lo + c as i64)
    }
}

/// One fact of an explanation, in the mirrored or the plain direction.
#[derive(Clone, Copy)]
enum Fact {
    /// `s >= a` (start no earlier than `a`).
    StartsFrom(usize, i64),
    /// `s + p <= b` (ends by `b`).
    EndsBy(usize, i64),
}

pub struct Disjunctive {
    groups: Vec<Vec<Task>>,
    /// Per variable: the group whose window or selector it is (`NONE`, or
    /// `SHARED`: a selector of several groups, listed in `shared`).
    group_of: Vec<u32>,
    shared: std::collections::HashMap<u32, Vec<u32>>,
    /// Groups whose variables were assigned since they were last looked at.
    dirty: Vec<bool>,
    // Scratch, per group.
    idx: Vec<usize>,
    est: Vec<i64>,
    lct: Vec<i64>,
    dur: Vec<i64>,
    all: Vec<u32>,
    ef: EdgeFinding,
    tree: ThetaLambda,
    /// Per loaded task: its strongest raise.
    best: Vec<Option<Found>>,
    /// Clauses found: conflicts and bounds (shared with the encoder's stats).
    pub counts: Rc<Cell<[u64; 2]>>,
}

impl Disjunctive {
    /// `groups`: the nodes of each one-core type (groups of one node or more
    /// than `MAX_TASKS` are dropped).
    pub fn new(groups: Vec<Vec<Task>>) -> Self {
        let groups: Vec<Vec<Task>> = groups.into_iter().filter(|g| covers(g.len())).collect();
        let mut group_of: Vec<u32> = vec![];
        let mut shared: std::collections::HashMap<u32, Vec<u32>> = Default::default();
        let mut mark = |v: usize, g: u32| {
            if group_of.len() <= v {
                group_of.resize(v + 1, NONE);
            }
            match group_of[v] {
                NONE => group_of[v] = g,
                h if h == g => {}
                SHARED => {
                    let list = shared.entry(v as u32).or_default();
                    if !list.contains(&g) {
                        list.push(g);
                    }
                }
                h => {
                    group_of[v] = SHARED;
                    shared.insert(v as u32, vec![h, g]);
                }
            }
        };
        for (g, tasks) in groups.iter().enumerate() {
            for t in tasks {
                for i in 0..t.n {
                    mark((t.base + i) as usize, g as u32);
                }
                if let Some(s) = t.sel {
                    mark(s.index(), g as u32);
                }
            }
        }
        Disjunctive {
            dirty: vec![true; groups.len()],
            groups,
            group_of,
            shared,
            idx: vec![],
            est: vec![],
            lct: vec![],
            dur: vec![],
            all: vec![],
            ef: EdgeFinding::default(),
            tree: ThetaLambda::default(),
            best: vec![],
            counts: Rc::new(Cell::new([0; 2])),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The group's selected nodes and their windows (`Task::window`).
    fn load(&mut self, g: usize, values: &Values) {
        self.idx.clear();
        self.est.clear();
        self.lct.clear();
        self.dur.clear();
        for (k, t) in self.groups[g].iter().enumerate() {
            if let Some(s) = t.sel
                && values.lit(s) != Some(true)
            {
                continue;
            }
            let (est, lst) = t.window(values);
            self.idx.push(k);
            self.est.push(est);
            self.lct.push(lst + t.dur);
            self.dur.push(t.dur);
        }
    }

    /// Overload checking and edge finding (bounds/windows.rs, the rule of
    /// models/bounds.md §7) on the loaded windows, forwards (`est`/`lct` as
    /// loaded) or mirrored (time reversed; the caller maps facts back).
    /// Returns an overload's facts, or fills `best` with each task's
    /// strongest raise of its start.
    fn sweep(&mut self) -> Option<Vec<Fact>> {
        let Disjunctive {
            ef,
            tree,
            all,
            est,
            lct,
            dur,
            best,
            ..
        } = self;
        let n = est.len();
        all.clear();
        all.extend(0..n as u32);
        best.clear();
        best.resize(n, None);
        let mut overload = None;
        let take = |f: Found| match f {
            Found::Overload { l, a } => overload = Some((l, a)),
            Found::Raise { k, ect, .. } => {
                let b = &mut best[k as usize];
                let stronger = match *b {
                    Some(Found::Raise { ect: e, .. }) => ect > e,
                    _ => true,
                };
                if ect > est[k as usize] && stronger {
                    *b = Some(f);
                }
            }
        };
        // The sweep on small types (it reports every `l`'s raise, the tree
        // one per task: measured on the job shops with the sweep); the tree
        // on larger ones, where the sweep's `O(n^2)` costs too much.
        if n <= SWEEP_TASKS {
            ef.run(all, dur, est, lct, true, take);
        } else {
            tree.run(all, dur, est, lct, take);
        }
        let (l, a) = overload?;
        let mut facts = vec![];
        for t in 0..n {
            if lct[t] <= l && est[t] >= a {
                facts.push(Fact::StartsFrom(t, a));
                facts.push(Fact::EndsBy(t, l));
            }
        }
        Some(facts)
    }

    /// The facts a raise rests on: `k` starts from `min(a, est_k)`; each task
    /// of `Ω(a, l)` starts from `a` (from `a_ect` if in the subset that gives
    /// the completion) and ends by `l`.
    fn raise_facts(&self, f: Found) -> Vec<Fact> {
        let Found::Raise { k, l, a, a_ect, .. } = f else {
            unreachable!("a raise")
        };
        let k = k as usize;
        let mut facts = vec![Fact::StartsFrom(k, a.min(self.est[k]))];
        for t in 0..self.est.len() {
            if t != k && self.lct[t] <= l && self.est[t] >= a {
                let from = if self.est[t] >= a_ect { a_ect } else { a };
                facts.push(Fact::StartsFrom(t, from));
                facts.push(Fact::EndsBy(t, l));
            }
        }
        facts
    }

    /// The clause of `facts` (each negated) and the conclusion, for group `g`;
    /// `mirrored`: facts and conclusion are about reversed time
    /// (`s' = -(s + p)`). `None` when a fact or the conclusion is constant
    /// true (never, for facts read off the literals).
    fn clause(
        &self,
        g: usize,
        facts: &[Fact],
        conclusion: Option<(usize, i64)>,
        mirrored: bool,
    ) -> Option<Vec<Lit>> {
        let tasks = &self.groups[g];
        let mut out = Vec::with_capacity(2 * facts.len() + 2);
        // Literal that must hold in the clause for "not fact".
        let mut push = |r: Result<Lit, bool>| -> Option<()> {
            match r {
                Ok(l) => {
                    if !out.contains(&l) {
                        out.push(l);
                    }
                    Some(())
                }
                Err(false) => Some(()),
                Err(true) => None,
            }
        };
        let neg = |r: Result<Lit, bool>| r.map(|l| !l).map_err(|c| !c);
        let mut sels = vec![];
        for f in facts {
            let (k, lit) = match *f {
                // s >= a: negated, s <= a - 1; mirrored, s + p <= -a.
                Fact::StartsFrom(k, a) => {
                    let t = &tasks[self.idx[k]];
                    (
                        k,
                        if mirrored {
                            neg(t.le(-a - t.dur))
                        } else {
                            t.le(a - 1)
                        },
                    )
                }
                // s + p <= b: negated, not (s <= b - p); mirrored, s >= -b.
                Fact::EndsBy(k, b) => {
                    let t = &tasks[self.idx[k]];
                    (
                        k,
                        if mirrored {
                            t.le(-b - 1)
                        } else {
                            neg(t.le(b - t.dur))
                        },
                    )
                }
            };
            push(lit)?;
            if let Some(s) = tasks[self.idx[k]].sel
                && !sels.contains(&k)
            {
                sels.push(k);
                push(Ok(!s))?;
            }
        }
        if let Some((i, lb)) = conclusion {
            let t = &tasks[self.idx[i]];
            // s >= lb; mirrored, s + p <= -lb.
            let lit = if mirrored {
                t.le(-lb - t.dur)
            } else {
                neg(t.le(lb - 1))
            };
            push(lit)?;
            if let Some(s) = t.sel
                && !sels.contains(&i)
            {
                push(Ok(!s))?;
            }
        }
        Some(out)
    }

    fn count(&self, which: usize) {
        let mut c = self.counts.get();
        c[which] += 1;
        self.counts.set(c);
    }

    fn mirror(&mut self) {
        for k in 0..self.est.len() {
            let (e, l) = (self.est[k], self.lct[k]);
            self.est[k] = -l;
            self.lct[k] = -e;
        }
    }
}

impl ExternalPropagator for Disjunctive {
    fn propagate(&mut self, values: &Values, out: &mut Vec<Vec<Lit>>) {
        // Only groups with a variable assigned since the last look: the
        // others are as they were when last looked at, and what was found
        // then is in clauses already.
        let known = values.changed(|v| match self.group_of.get(v.index()) {
            None | Some(&NONE) => {}
            Some(&SHARED) => {
                for &g in &self.shared[&(v.index() as u32)] {
                    self.dirty[g as usize] = true;
                }
            }
            Some(&g) => self.dirty[g as usize] = true,
        });
        if !known {
            self.dirty.fill(true);
        }
        for g in 0..self.groups.len() {
            if !self.dirty[g] {
                continue;
            }
            self.dirty[g] = false;
            self.load(g, values);
            if self.est.len() < 2 {
                continue;
            }
            for mirrored in [false, true] {
                if mirrored {
                    self.mirror();
                }
                if let Some(facts) = self.sweep() {
                    if let Some(c) = self.clause(g, &facts, None, mirrored) {
                        self.count(0);
                        out.clear();
                        out.push(c);
                        return;
                    }
                    continue;
                }
                for i in 0..self.best.len() {
                    let Some(f @ Found::Raise { ect, .. }) = self.best[i] else {
                        continue;
                    };
                    let facts = self.raise_facts(f);
                    if let Some(c) = self.clause(g, &facts, Some((i, ect)), mirrored) {
                        self.count(1);
                        out.push(c);
                    }
                }
            }
            if !out.is_empty() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use crate::import::read_jsp;
    use crate::instance::{Instance, parse_reader};
    use crate::sat::encode::{Answer, Encoder, Lazy};
    use crate::sat::model::{Model, candidates_of_every_op};

    const EF_ONLY: Lazy = Lazy {
        edge_finding: true,
        holds: false,
    };

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    fn model(inst: &Instance) -> Model<'_> {
        Model::new(inst, &candidates_of_every_op(inst))
    }

    /// Core 0 runs A, B and C, 3 long each; A and B each have a 2-long
    /// successor on a core of its own (`succ`), or a 2-long predecessor
    /// (`!succ`). Core 0's load, 9, is the optimum. At 8 every two of the
    /// three fit in their windows, all three do not (9 units in [0, 8]): the
    /// pair clauses see nothing, the overload check refutes at the root. At
    /// 9, A and B must run within [0, 7] (within [2, 9]): C fits neither
    /// before nor between them (3 + 3 + 3 > 7), so it starts at 6 (runs
    /// first, at 0).
    fn three_on_one_core(succ: bool) {
        let (a, b) = if succ {
            ("[[1,2]],[[1,0,3],[2,1,2]]", "[[1,2]],[[1,0,3],[2,2,2]]")
        } else {
            ("[[1,2]],[[1,1,2],[2,0,3]]", "[[1,2]],[[1,2,2],[2,0,3]]")
        };
        let text = format!(
            "SetSocInfo([[0,1],[1,1],[2,1]],[])
AddOpInfo(1,1,0,{a},[])
AddOpInfo(2,1,0,{b},[])
AddOpInfo(3,1,0,[],[[1,0,3]],[])
GetInferenceScheResult([],[[1,1,1],[2,2,1],[3,3,1]])"
        );
        let inst = parse_reader(text.as_bytes(), "t").unwrap();
        let m = model(&inst);
        assert_eq!(m.g, 1);
        let mut enc = Encoder::new(&m, 20);
        assert!(enc.use_propagators(EF_ONLY).edge_finding);
        let r = enc.decide(8, &[], far());
        assert!(matches!(r, Answer::Unsat), "{r:?}");
        assert!(enc.stats.ef_conflicts > 0, "no overload found");
        // A fresh encoder: the overload clause learned at 8 would place C.
        let mut enc = Encoder::new(&m, 20);
        assert!(enc.use_propagators(EF_ONLY).edge_finding);
        let before = enc.stats.ef_bounds;
        let Answer::Sat(d) = enc.decide(9, &[], far()) else {
            panic!("9 is feasible")
        };
        assert!(
            enc.stats.ef_bounds > before,
            "no bound raised: {:?}",
            enc.stats
        );
        let c = (0..m.nodes.len())
            .find(|&v| m.nodes[v].core == 0 && m.nodes[v].slot == 2)
            .unwrap();
        assert_eq!(d.start[c], if succ { 6 } else { 0 });
    }

    #[test]
    fn overload_refutes_and_edge_finding_places_the_last_node() {
        three_on_one_core(true);
    }

    #[test]
    fn overload_refutes_and_edge_finding_places_the_first_node() {
        three_on_one_core(false);
    }

    /// The clauses remove no schedule and keep every refutation: each makespan
    /// gets the same verdict with and without the propagator, on job shops
    /// (one op per node, at their optimum and one below) and on
    /// memory-tight generated instances (three candidate tilings an op:
    /// selectors in every explanation; near a list schedule's makespan).
    #[test]
    fn edge_finding_changes_no_answer() {
        let verdict = |m: &Model, tmax: u64, t: i64, ef: bool, fired: &mut u64| {
            let mut enc = Encoder::new(m, tmax);
            if ef {
                enc.use_propagators(EF_ONLY);
            }
            let r = match enc.decide(t, &[], far()) {
                Answer::Sat(d) => Some(d.makespan(m) as i64 <= t),
                Answer::Unsat => None,
                a => panic!("{a:?} at {t}"),
            };
            *fired += enc.stats.ef_conflicts + enc.stats.ef_bounds;
            r
        };
        let mut fired = 0;
        for (name, text, opt) in [
            ("ft06", include_str!("../../tests/data/jsplib/ft06"), 55),
            ("la01", include_str!("../../tests/data/jsplib/la01"), 666),
            ("la03", include_str!("../../tests/data/jsplib/la03"), 597),
            ("la04", include_str!("../../tests/data/jsplib/la04"), 590),
        ] {
            let js = read_jsp(text.as_bytes(), name).unwrap();
            let inst = parse_reader(js.to_instance_text().as_bytes(), name).unwrap();
            let m = model(&inst);
            for t in [opt - 1, opt] {
                let want = (t == opt).then_some(true);
                assert_eq!(
                    verdict(&m, opt as u64 + 20, t, true, &mut fired),
                    want,
                    "{name} at {t}"
                );
                assert_eq!(
                    verdict(&m, opt as u64 + 20, t, false, &mut 0),
                    want,
                    "{name} at {t}"
                );
            }
        }
        let on_job_shops = fired;
        assert!(
            on_job_shops > 0,
            "edge finding never fired on the job shops"
        );
        for seed in 1..=5u64 {
            let cfg = crate::generate::memory_tight(seed, 5, (2, 4));
            let inst = crate::generate::generate(&cfg).unwrap().instance;
            let opts = crate::solve::SolveOptions {
                time_limit: Duration::from_millis(100),
                ..Default::default()
            };
            let s = crate::list::solve(&inst, &opts).schedule.unwrap();
            let g = crate::graph::NodeGraph::new(&inst, s.choice.clone()).unwrap();
            let m = model(&inst);
            let tmax = (s.makespan(&g) as u64 / m.g).min(m.horizon);
            for t in (tmax as i64 - 8).max(0)..=tmax as i64 {
                assert_eq!(
                    verdict(&m, tmax, t, true, &mut fired),
                    verdict(&m, tmax, t, false, &mut 0),
                    "seed {seed}, makespan {t}"
                );
            }
        }
        assert!(
            fired > on_job_shops,
            "edge finding never fired on the generated instances"
        );
    }

    /// A two-machine flow shop of 70 jobs (more than `SWEEP_TASKS` on each
    /// machine: the Θ-Λ tree's path): Johnson's rule gives the optimum, the
    /// propagator proves nothing shorter exists, and the optimum is found.
    #[test]
    fn edge_finding_on_a_large_type_proves_the_flow_shop_optimum() {
        let mut rng = crate::rng::SplitMix64::new(3);
        let jobs: Vec<(i64, i64)> = (0..70)
            .map(|_| (1 + rng.below(9) as i64, 1 + rng.below(9) as i64))
            .collect();
        let mut text = String::from("SetSocInfo([[0,1],[1,1]],[])\n");
        for (j, &(a, b)) in jobs.iter().enumerate() {
            text += &format!(
                "AddOpInfo({},1,0,[[1,2]],[[1,0,{a}],[2,1,{b}]],[])\n",
                j + 1
            );
        }
        let ops: Vec<String> = (1..=jobs.len()).map(|j| format!("[{j},{j},1]")).collect();
        text += &format!("GetInferenceScheResult([],[{}])", ops.join(","));
        // Johnson: jobs with a <= b first by a, then the others by b descending.
        let mut order: Vec<(i64, i64)> = jobs.clone();
        order.sort_by_key(|&(a, b)| if a <= b { (0, a) } else { (1, -b) });
        let (mut t1, mut t2) = (0, 0);
        for (a, b) in order {
            t1 += a;
            t2 = t2.max(t1) + b;
        }
        let inst = parse_reader(text.as_bytes(), "f2").unwrap();
        let m = model(&inst);
        assert!(
            m.one_core_groups()
                .iter()
                .all(|g| g.len() > super::SWEEP_TASKS)
        );
        let mut enc = Encoder::new(&m, t2 as u64 + 10);
        assert!(enc.use_propagators(EF_ONLY).edge_finding);
        assert!(matches!(enc.decide(t2 - 1, &[], far()), Answer::Unsat));
        let Answer::Sat(d) = enc.decide(t2, &[], far()) else {
            panic!("Johnson's makespan {t2} is feasible")
        };
        assert_eq!(d.makespan(&m) as i64, t2);
        assert!(enc.stats.ef_conflicts + enc.stats.ef_bounds > 0);
    }
}
