//! Memory timetabling under the release rule, as clauses learned during the
//! search (models/sat.md §3.10); core types with several cores are
//! timetabled alike (each node holds one core while it runs).
//!
//! A selected node `x` demanding `d` of memory type `m` holds it over
//! `[s_x, R_x)`, `R_x = max(e_x, s_y for each selected y in succ_m(x))`
//! (problem.md §4 rule 4). Under the current partial assignment it surely
//! holds over its *compulsory part* `[lst_x, max(est_x + p_x, est_y ...))`:
//! it has started by `lst_x`, and it runs until `est_x + p_x` at least and
//! waits for each selected successor until that one's `est` at least. The
//! compulsory parts give a profile of memory surely held; this propagator
//! reads it at every fixpoint where a variable of the type changed and
//! learns
//!
//! - a conflict where the profile exceeds the type's size at an instant;
//! - for a node `z` that would overflow the profile where it runs or waits
//!   when started at its `est`: a later start;
//! - for a node `z` that has surely started before such an instant: an end
//!   before it, and each selected successor started by it (the release it
//!   waits for); a successor whose tiling is still open and that cannot
//!   start by then, unselected.
//!
//! Each is one clause, the cut of models/sat.md §4.2 at one instant `t`
//! with every hold written in the literals it rests on: for each node `x`
//! of a set whose demands exceed the size,
//!
//! ```text
//! ¬sel_x ∨ ¬(s_x <= t) ∨ (s_x <= t - p_x)            (x runs at t), or
//! ¬sel_x ∨ ¬(s_x <= t) ∨ ¬sel_y ∨ (s_y <= t)         (x waits for y at t).
//! ```
//!
//! Either conjunction implies that `x` holds at `t` in any legal schedule, so
//! not all of the set's can be true: every clause holds in every legal
//! schedule (within the encoding's windows), and is kept as a learned clause.

use std::cell::Cell;
use std::rc::Rc;

use varisat::Lit;
use varisat::external::{ExternalPropagator, Values};

use super::disjunctive::Task;

/// A node demanding the type: its start and selector, its demand and the
/// successors whose starts its hold lasts until.
#[derive(Clone, Debug)]
pub struct Holder {
    pub start: Task,
    pub demand: u64,
    /// Indices (into the type's holders) of the successors that demand the
    /// type, with their selectors (`None`: selected whenever this node is).
    pub succs: Vec<(u32, Option<Lit>)>,
}

/// The holders of one memory type and its size; or the nodes of a core
/// type with several cores, each holding 1 while it runs (no successors),
/// and the number of cores: at every instant at most that many run, which
/// is all the cores ask (models/sat.md §4.1).
#[derive(Clone, Debug)]
pub struct Resource {
    pub size: u64,
    pub holders: Vec<Holder>,
}

/// A holder's state as read at a fixpoint.
#[derive(Clone, Copy, Default)]
struct Read {
    /// Selected (true), unselected (false) or open.
    sel: Option<bool>,
    est: i64,
    lst: i64,
}

pub struct Holds {
    types: Vec<Resource>,
    /// The holders that read each variable, as (type, holder): for order
    /// literals, by ranges `(base, n, first)` sorted by base (a node's
    /// range, read by `at[first..]` up to the next range's first); for
    /// selectors, by variable. Compact: a list per variable would cost an
    /// allocation for each of millions of order literals.
    ranges: Vec<(u32, u32, u32)>,
    at: Vec<(u32, u32)>,
    sel_readers: std::collections::HashMap<u32, Vec<(u32, u32)>>,
    dirty: Vec<bool>,
    /// Per type and holder: what was read at the last look, and whether a
    /// variable it rests on changed since (assigned or undone).
    read: Vec<Vec<Read>>,
    stale: Vec<Vec<bool>>,
    /// Per type: the stale holders, listed once each.
    stale_list: Vec<Vec<u32>>,
    /// Per type and holder: its compulsory part `[a, b)` as last read
    /// (empty when `a >= b`: unselected or open, or no sure hold).
    comp: Vec<Vec<(i64, i64)>>,
    /// Per type and holder: the holders whose successor it is.
    preds: Vec<Vec<Vec<u32>>>,
    /// Per type: the profile of surely held memory, `(from, level)`, the
    /// level until the next step's `from`.
    steps: Vec<Vec<(i64, u128)>>,
    /// Per type: every holder must be looked at (the first look, or the
    /// last one's clauses may have been dropped).
    full: Vec<bool>,
    // Scratch.
    affected: Vec<bool>,
    affected_list: Vec<u32>,
    events: Vec<(i64, i128)>,
    /// Clauses found: conflicts and narrowed windows (shared with the
    /// encoder's stats).
    pub counts: Rc<Cell<[u64; 2]>>,
}

impl Holds {
    /// `types`: the holders of each memory type (types whose holders all fit
    /// together are dropped: their profile never overflows).
    pub fn new(types: Vec<Resource>) -> Self {
        let types: Vec<Resource> = types
            .into_iter()
            .filter(|t| {
                let total: u128 = t.holders.iter().map(|h| u128::from(h.demand)).sum();
                t.holders.len() > 1 && total > u128::from(t.size)
            })
            .collect();
        // Each node's order literals: one range, read by the holders of
        // every type the node is in.
        let mut by_base: std::collections::BTreeMap<u32, (u32, Vec<(u32, u32)>)> =
            Default::default();
        let mut sel_readers: std::collections::HashMap<u32, Vec<(u32, u32)>> = Default::default();
        for (g, t) in types.iter().enumerate() {
            for (k, h) in t.holders.iter().enumerate() {
                let at = (g as u32, k as u32);
                if h.start.n > 0 {
                    by_base
                        .entry(h.start.base)
                        .or_insert((h.start.n, vec![]))
                        .1
                        .push(at);
                }
                if let Some(s) = h.start.sel {
                    sel_readers.entry(s.index() as u32).or_default().push(at);
                }
            }
        }
        let mut ranges = Vec::with_capacity(by_base.len());
        let mut at = vec![];
        for (base, (n, list)) in by_base {
            ranges.push((base, n, at.len() as u32));
            at.extend(list);
        }
        let preds = types
            .iter()
            .map(|t| {
                let mut p = vec![vec![]; t.holders.len()];
                for (k, h) in t.holders.iter().enumerate() {
                    for &(y, _) in &h.succs {
                        p[y as usize].push(k as u32);
                    }
                }
                p
            })
            .collect();
        Holds {
            dirty: vec![true; types.len()],
            read: types
                .iter()
                .map(|t| vec![Read::default(); t.holders.len()])
                .collect(),
            stale: types.iter().map(|t| vec![true; t.holders.len()]).collect(),
            stale_list: types
                .iter()
                .map(|t| (0..t.holders.len() as u32).collect())
                .collect(),
            comp: types
                .iter()
                .map(|t| vec![(0, 0); t.holders.len()])
                .collect(),
            preds,
            steps: vec![vec![]; types.len()],
            full: vec![true; types.len()],
            types,
            ranges,
            at,
            sel_readers,
            affected: vec![],
            affected_list: vec![],
            events: vec![],
            counts: Rc::new(Cell::new([0; 2])),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    fn count(&self, which: usize) {
        let mut c = self.counts.get();
        c[which] += 1;
        self.counts.set(c);
    }

    /// Reads the holders of type `g` whose variables changed, and where a
    /// compulsory part changed, the profile again. Marks `affected` the
    /// holders whose reading, or a successor's, changed; returns the span of
    /// instants where the profile may have changed (empty: none).
    fn load(&mut self, g: usize, values: &Values) -> (i64, i64) {
        let holders = &self.types[g].holders;
        let read = &mut self.read[g];
        let affected = &mut self.affected;
        affected.clear();
        affected.resize(holders.len(), false);
        let list = &mut self.affected_list;
        list.clear();
        for k in self.stale_list[g].drain(..) {
            let k = k as usize;
            self.stale[g][k] = false;
            let h = &holders[k];
            let t = &h.start;
            let sel = match t.sel {
                None => Some(true),
                Some(s) => values.lit(s),
            };
            let (est, lst) = t.window(values);
            let old = read[k];
            if (old.sel, old.est, old.lst) != (sel, est, lst) {
                read[k].sel = sel;
                read[k].est = est;
                read[k].lst = lst;
                for q in std::iter::once(k as u32).chain(self.preds[g][k].iter().copied()) {
                    if !std::mem::replace(&mut affected[q as usize], true) {
                        list.push(q);
                    }
                }
            }
        }
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        for &k in list.iter() {
            let k = k as usize;
            let h = &holders[k];
            let r = read[k];
            let mut end = r.lst;
            if r.sel == Some(true) {
                end = end.max(least_release(h, read, k));
            }
            let old = self.comp[g][k];
            if old != (r.lst, end) {
                for (a, b) in [old, (r.lst, end)] {
                    if a < b {
                        lo = lo.min(a);
                        hi = hi.max(b);
                    }
                }
                self.comp[g][k] = (r.lst, end);
            }
        }
        if lo < hi || self.full[g] {
            self.events.clear();
            for (k, h) in holders.iter().enumerate() {
                let (a, b) = self.comp[g][k];
                if a < b {
                    self.events.push((a, i128::from(h.demand)));
                    self.events.push((b, -i128::from(h.demand)));
                }
            }
            self.events.sort_unstable();
            let steps = &mut self.steps[g];
            steps.clear();
            // Exact: demands near 2^64 add up beyond 64 bits.
            let mut level: i128 = 0;
            let mut i = 0;
            while i < self.events.len() {
                let t = self.events[i].0;
                while i < self.events.len() && self.events[i].0 == t {
                    level += self.events[i].1;
                    i += 1;
                }
                steps.push((t, level as u128));
            }
        }
        (lo, hi)
    }

    /// The first (`last`: the last) instant of `[a, b)` where the profile is
    /// above `limit`.
    fn over(&self, g: usize, a: i64, b: i64, limit: u64, last: bool) -> Option<i64> {
        if a >= b {
            return None;
        }
        let steps = &self.steps[g];
        // Steps that start before b and whose span reaches past a.
        let first = steps.partition_point(|s| s.0 <= a).saturating_sub(1);
        let end = steps.partition_point(|s| s.0 < b);
        let mut found = None;
        for i in first..end {
            let (from, level) = steps[i];
            let to = steps.get(i + 1).map_or(i64::MAX, |s| s.0);
            let (lo, hi) = (from.max(a), to.min(b));
            if lo < hi && level > u128::from(limit) {
                if !last {
                    return Some(lo);
                }
                found = Some(hi - 1);
            }
        }
        found
    }

    /// Appends to `out` the literals of "node `k` holds at `t`", negated, as
    /// its least hold from `est` shows it (`k` is selected, `t` lies at or
    /// after its `est` and before its least release): it runs at `t`, or
    /// waits for a selected successor whose `est` is past `t`.
    fn explain_hold(&self, g: usize, k: usize, t: i64, out: &mut Vec<Lit>) {
        let h = &self.types[g].holders[k];
        let read = &self.read[g];
        let waits_for = (t >= read[k].est + h.start.dur).then(|| {
            *h.succs
                .iter()
                .find(|&&(y, _)| read[y as usize].sel == Some(true) && read[y as usize].est > t)
                .expect("a hold past the run waits for a successor")
        });
        self.push_hold(g, k, t, waits_for, out);
    }

    /// Appends to `out` the negation of "node `k` holds at `t`" as the
    /// clause writes it: started by `t`, and running at `t` (`waits_for`
    /// `None`: a start after `t - p`) or waiting for successor `y` (`y`
    /// selected and started after `t`).
    fn push_hold(
        &self,
        g: usize,
        k: usize,
        t: i64,
        waits_for: Option<(u32, Option<Lit>)>,
        out: &mut Vec<Lit>,
    ) {
        let h = &self.types[g].holders[k];
        push_not_started_by(h, t, out);
        match waits_for {
            None => push_le(&h.start, t - h.start.dur, out),
            Some((y, ysel)) => {
                if let Some(s) = ysel {
                    out.push(!s);
                }
                push_le(&self.types[g].holders[y as usize].start, t, out);
            }
        }
    }

    /// The clause "not all of the holders at `t` but `skip`, largest first
    /// until they exceed `room`, hold at `t`", with `tail` (the conclusion's
    /// literals) appended.
    fn cut(&self, g: usize, t: i64, room: u64, skip: Option<usize>, tail: &[Lit]) -> Vec<Lit> {
        let read = &self.read[g];
        let mut at: Vec<(u64, usize)> = (0..read.len())
            .filter(|&k| Some(k) != skip)
            .filter(|&k| {
                let (a, b) = self.comp[g][k];
                a <= t && t < b
            })
            .map(|k| (self.types[g].holders[k].demand, k))
            .collect();
        at.sort_unstable_by(|a, b| b.cmp(a));
        let mut out = vec![];
        let mut sum: u128 = 0;
        for (d, k) in at {
            self.explain_hold(g, k, t, &mut out);
            sum += u128::from(d);
            if sum > u128::from(room) {
                break;
            }
        }
        debug_assert!(sum > u128::from(room));
        out.extend_from_slice(tail);
        out.sort_unstable_by_key(|l| l.code());
        out.dedup();
        out
    }

    /// Pushes the clause when it is unit or false under `values` (it
    /// propagates now), counting it as a conflict or a narrowed window.
    fn emit(&self, c: Vec<Lit>, values: &Values, out: &mut Vec<Vec<Lit>>) -> bool {
        let mut open = 0;
        for &l in &c {
            match values.lit(l) {
                Some(true) => return false,
                None => open += 1,
                Some(false) => {}
            }
        }
        if open > 1 {
            return false;
        }
        self.count(if open == 0 { 0 } else { 1 });
        out.push(c);
        true
    }

    /// Looks at type `g`: a conflict, or the windows it narrows. Returns
    /// whether a clause was pushed.
    fn check(&mut self, g: usize, values: &Values, out: &mut Vec<Vec<Lit>>) -> bool {
        let (lo, hi) = self.load(g, values);
        let full = self.full[g];
        let size = self.types[g].size;
        // Overflow of the profile itself (where it changed).
        if (full || lo < hi)
            && let Some(&(t, _)) = self.steps[g].iter().find(|s| s.1 > u128::from(size))
        {
            let c = self.cut(g, t, size, None, &[]);
            self.full[g] = true;
            return self.emit(c, values, out);
        }
        let read = &self.read[g];
        let mut found: Vec<Vec<Lit>> = vec![];
        for (z, h) in self.types[g].holders.iter().enumerate() {
            let r = read[z];
            if r.sel != Some(true) {
                continue;
            }
            let p = h.start.dur;
            // Started by lst, z holds at most until its run ends or a
            // successor that may be selected starts.
            let mut latest = r.lst + p;
            for &(y, _) in &h.succs {
                let ry = read[y as usize];
                if ry.sel != Some(false) {
                    latest = latest.max(ry.lst);
                }
            }
            // Only where something changed since the last look: z's own
            // reading (or a successor's), or the profile over the instants
            // z's hold may cover (`[est, latest)`, which holds both searches
            // below). The rest was looked at then, and what it gave is in
            // clauses.
            if !full && !self.affected[z] && (latest <= lo || r.est >= hi) {
                continue;
            }
            let d = h.demand;
            if d > size {
                continue; // never selectable; the encoding says so
            }
            let limit = size - d;
            // Outside its own compulsory part (`comp`) z is not in the
            // profile. Started at est, z holds until its least release: a
            // later start if that overflows before lst.
            let until = least_release(h, read, z);
            if let Some(t) = self.over(g, r.est, until.min(r.lst), limit, true) {
                let mut tail = vec![];
                self.explain_hold(g, z, t, &mut tail);
                found.push(self.cut(g, t, limit, Some(z), &tail));
            }
            // Started by lst: past its compulsory part, z must have ended
            // and released before an overflow.
            let comp = self.comp[g][z];
            let Some(t) = self.over(g, comp.1.max(r.lst), latest, limit, false) else {
                continue;
            };
            let mut reasons = vec![];
            if p > 0 && t < r.lst + p {
                reasons.push(None);
            }
            for &y in &h.succs {
                let ry = read[y.0 as usize];
                if ry.sel != Some(false) && ry.lst > t {
                    reasons.push(Some(y));
                }
            }
            for waits_for in reasons {
                let mut tail = vec![];
                self.push_hold(g, z, t, waits_for, &mut tail);
                found.push(self.cut(g, t, limit, Some(z), &tail));
            }
        }
        let mut any = false;
        for c in found {
            any |= self.emit(c, values, out);
        }
        self.full[g] = any;
        any
    }
}

/// The least release of selected holder `k` as read: it runs until `est +
/// p` at least, and waits for each selected successor until that one's
/// `est` at least. (A successor's selector is its own, or within the
/// tiling this node's: read with it.)
fn least_release(h: &Holder, read: &[Read], k: usize) -> i64 {
    let mut end = read[k].est + h.start.dur;
    for &(y, _) in &h.succs {
        let ry = read[y as usize];
        if ry.sel == Some(true) {
            end = end.max(ry.est);
        }
    }
    end
}

/// `¬sel ∨ ¬(s <= t)`: the negation of "selected and started by `t`".
fn push_not_started_by(h: &Holder, t: i64, out: &mut Vec<Lit>) {
    if let Some(s) = h.start.sel {
        out.push(!s);
    }
    if let Ok(l) = h.start.le(t) {
        out.push(!l);
    }
    // `Err(true)` (t at or past the window's top): started by t always, the
    // literal is false and left out; `Err(false)`: never, but then the
    // caller would not ask.
}

/// `s <= t`, left out when constant false.
fn push_le(t: &Task, at: i64, out: &mut Vec<Lit>) {
    match t.le(at) {
        Ok(l) => out.push(l),
        Err(false) => {}
        // Constant true: a literal that is always true. Callers never ask
        // (the fact it negates was read off the literals).
        Err(true) => unreachable!("s <= {at} holds for every start in the window"),
    }
}

impl ExternalPropagator for Holds {
    fn propagate(&mut self, values: &Values, out: &mut Vec<Vec<Lit>>) {
        let Holds {
            ranges,
            at,
            sel_readers,
            stale,
            stale_list,
            dirty,
            ..
        } = self;
        let mut mark = |list: &[(u32, u32)]| {
            for &(g, k) in list {
                if !std::mem::replace(&mut stale[g as usize][k as usize], true) {
                    stale_list[g as usize].push(k);
                }
                dirty[g as usize] = true;
            }
        };
        let mut touch = |v: varisat::Var| {
            let v = v.index() as u32;
            let i = ranges.partition_point(|r| r.0 <= v);
            if i > 0 {
                let (base, n, first) = ranges[i - 1];
                if v < base + n {
                    let end = ranges.get(i).map_or(at.len(), |r| r.2 as usize);
                    mark(&at[first as usize..end]);
                    return;
                }
            }
            if let Some(list) = sel_readers.get(&v) {
                mark(list);
            }
        };
        let known = values.changed(&mut touch) && values.undone(&mut touch);
        if !known {
            self.dirty.fill(true);
            for (g, s) in self.stale.iter_mut().enumerate() {
                s.fill(true);
                self.stale_list[g] = (0..s.len() as u32).collect();
            }
        }
        for g in 0..self.types.len() {
            if !self.dirty[g] {
                continue;
            }
            // A type that gave clauses stays dirty: it is looked at again
            // once they are in (a conflict elsewhere may drop them).
            if !self.check(g, values, out) {
                self.dirty[g] = false;
            } else {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use crate::instance::{Instance, parse_reader};
    use crate::sat::encode::{Answer, Encoder, Lazy};
    use crate::sat::model::{Model, candidates_of_every_op};

    const HOLDS_ONLY: Lazy = Lazy {
        edge_finding: false,
        holds: true,
    };

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    fn model(inst: &Instance) -> Model<'_> {
        Model::new(inst, &candidates_of_every_op(inst))
    }

    /// Memory of size 9; `a` (1 long) precedes `b` (1 long) and `e` (3
    /// long, no memory); `d` (4 long, no memory) precedes `b`; `c` (3 long)
    /// and `f` (6 long) are on their own. `a`, `b`, `c` and `f` demand 4
    /// each: any two fit, no three do, so the pair clauses say nothing.
    /// Under the release rule `a` holds until `b` starts, at 4 or later; at
    /// makespan 6 `f` runs over `[0, 6)`, so `c` must miss `a`'s hold and
    /// `b`'s run, which cover `[s_a, 5)` at least, with `s_a <= 1` (for `e`):
    /// no room. At 7, `c` runs first and `a` then. Were holds only the
    /// runs, 5 would do (`c` beside `e`).
    const RELEASE: &str = "SetSocInfo([[0,1],[1,1],[2,1],[3,1],[4,1]],[[0,9]])
AddOpInfo(1,1,0,[],[[1,0,1]],[[1,0,4]])
AddOpInfo(2,1,0,[],[[1,0,1]],[[1,0,4]])
AddOpInfo(3,1,0,[],[[1,1,3]],[[1,0,4]])
AddOpInfo(4,1,0,[],[[1,2,4]],[])
AddOpInfo(5,1,0,[],[[1,3,3]],[])
AddOpInfo(6,1,0,[],[[1,4,6]],[[1,0,4]])
GetInferenceScheResult([[1,2],[4,2],[1,5]],[[1,1,1],[2,2,1],[3,3,1],[4,4,1],[5,5,1],[6,6,1]])";

    /// The timetable alone refutes 6, before any model is decoded (no lazy
    /// memory cut), and the model at 7 needs no cut either.
    #[test]
    fn the_timetable_refutes_what_only_the_release_rule_forbids() {
        let inst = parse_reader(RELEASE.as_bytes(), "t").unwrap();
        let m = model(&inst);
        for lazy in [HOLDS_ONLY, Lazy::NONE] {
            let mut enc = Encoder::new(&m, 12);
            assert_eq!(enc.use_propagators(lazy), lazy);
            assert!(
                matches!(enc.decide(6, &[], far()), Answer::Unsat),
                "{lazy:?}"
            );
            if lazy.holds {
                let st = enc.stats;
                assert!(st.hold_conflicts + st.hold_bounds > 0, "{st:?}");
                assert_eq!(enc.stats.mem_cuts, 0, "{:?}", enc.stats);
            } else {
                assert!(enc.stats.mem_cuts > 0, "{:?}", enc.stats);
            }
            let mut enc = Encoder::new(&m, 12);
            enc.use_propagators(lazy);
            let Answer::Sat(d) = enc.decide(7, &[], far()) else {
                panic!("7 is feasible ({lazy:?})")
            };
            assert_eq!(d.makespan(&m), 7);
            if lazy.holds {
                assert_eq!(enc.stats.mem_cuts, 0, "{:?}", enc.stats);
            }
        }
    }

    /// The clauses remove no schedule and keep every refutation: on
    /// memory-tight generated instances (three candidate tilings an op, a
    /// core type of two cores), each makespan near a list schedule's gets
    /// the same verdict with and without the propagator; with it, no model
    /// ever needs a lazy core or memory cut (at a full assignment the
    /// compulsory parts are the holds).
    #[test]
    fn the_timetable_changes_no_answer() {
        let mut fired = 0;
        for seed in 1..=6u64 {
            let cfg = crate::generate::memory_tight(seed, 6, (2, 5));
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
                let mut verdicts = vec![];
                for lazy in [HOLDS_ONLY, Lazy::NONE] {
                    let mut enc = Encoder::new(&m, tmax);
                    enc.use_propagators(lazy);
                    verdicts.push(match enc.decide(t, &[], far()) {
                        Answer::Sat(d) => Some(d.makespan(&m) as i64 <= t),
                        Answer::Unsat => None,
                        a => panic!("{a:?} at {t}"),
                    });
                    if lazy.holds {
                        fired += enc.stats.hold_conflicts + enc.stats.hold_bounds;
                        assert_eq!(
                            (enc.stats.mem_cuts, enc.stats.core_cuts),
                            (0, 0),
                            "seed {seed}, makespan {t}"
                        );
                    }
                }
                assert_eq!(verdicts[0], verdicts[1], "seed {seed}, makespan {t}");
            }
        }
        assert!(fired > 0, "the timetable never fired");
    }
}
