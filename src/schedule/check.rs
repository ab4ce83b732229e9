//! The validator: every rule of problem.md §4, in O(n log n) sweeps that never
//! loop over time units (times go up to 10^18 and beyond).
//!
//! Every schedule the tool prints goes through `check` first.

use std::fmt;
use std::io::Read;

use super::{Schedule, Usage, end, read_schedule};
use crate::error::InputResult;
use crate::graph::NodeGraph;
use crate::instance::{Instance, TypeIdx};

/// Which rule a violation breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// Rows do not describe one tiling per op and each of its nodes once.
    Structure,
    /// A core id outside `0..CoreNum` of the node's core type.
    CoreId,
    /// problem.md §4.1: a node starts before a predecessor ends.
    Precedence,
    /// problem.md §4.3: two nodes overlap on one core.
    Core,
    /// problem.md §4.4: held memory exceeds a memory type's size.
    Memory,
}

impl Rule {
    pub const ALL: [Rule; 5] = [
        Rule::Structure,
        Rule::CoreId,
        Rule::Precedence,
        Rule::Core,
        Rule::Memory,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Rule::Structure => "structure",
            Rule::CoreId => "core-id",
            Rule::Precedence => "precedence",
            Rule::Core => "core-overlap",
            Rule::Memory => "memory",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One broken rule, with the nodes `(OpId, NodeId)`, instant and amounts involved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub rule: Rule,
    pub message: String,
    pub nodes: Vec<(u32, u32)>,
    pub time: Option<u128>,
    /// `(held, size)` for memory violations.
    pub amount: Option<(u128, u64)>,
}

impl Violation {
    pub fn new(rule: Rule, message: String) -> Self {
        Violation {
            rule,
            message,
            nodes: Vec::new(),
            time: None,
            amount: None,
        }
    }
    pub fn with_nodes(mut self, nodes: Vec<(u32, u32)>) -> Self {
        self.nodes = nodes;
        self
    }
    pub fn at(mut self, t: u128) -> Self {
        self.time = Some(t);
        self
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.rule, self.message)
    }
}

/// Collects violations: keeps the first `limit`, counts all, per rule.
#[derive(Clone, Debug)]
pub struct Violations {
    pub kept: Vec<Violation>,
    pub counts: [usize; 5],
    limit: usize,
}

impl Violations {
    pub fn new(limit: usize) -> Self {
        Violations {
            kept: Vec::new(),
            counts: [0; 5],
            limit,
        }
    }
    pub fn push(&mut self, v: Violation) {
        self.counts[v.rule as usize] += 1;
        if self.kept.len() < self.limit {
            self.kept.push(v);
        }
    }
    /// True when no more violations are kept in detail (only counted).
    pub(crate) fn is_full(&self) -> bool {
        self.kept.len() >= self.limit
    }
    /// Counts `n` more violations of `rule` without detail.
    pub(crate) fn count_more(&mut self, rule: Rule, n: u64) {
        self.counts[rule as usize] += usize::try_from(n).unwrap_or(usize::MAX);
    }
    /// Counts one more violation without building its message (past the limit).
    fn wants_detail(&mut self, rule: Rule) -> bool {
        if self.kept.len() < self.limit {
            true
        } else {
            self.counts[rule as usize] += 1;
            false
        }
    }
    pub fn total(&self) -> usize {
        self.counts.iter().sum()
    }
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }
    pub fn count(&self, rule: Rule) -> usize {
        self.counts[rule as usize]
    }
    /// The kept violations on one line, `; ` between them (a rejected
    /// warm start's message).
    pub fn kept_text(&self) -> String {
        self.kept
            .iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The verdict on a schedule.
#[derive(Clone, Debug)]
pub struct Report {
    pub violations: Violations,
    /// Latest end; `None` when the rows did not form a complete schedule.
    pub makespan: Option<u128>,
    pub rows: usize,
    /// Each op's library tiling, when the rows form a schedule.
    pub choice: Option<Vec<u32>>,
}

impl Report {
    pub fn is_legal(&self) -> bool {
        self.violations.is_empty()
    }
}

/// Reads a schedule file for `inst` and checks it. Unreadable text is an `InputError`.
pub fn check_reader<R: Read>(
    inst: &Instance,
    src: R,
    name: &str,
    limit: usize,
) -> InputResult<Report> {
    Ok(check_reader_with_usage(inst, src, name, limit, false)?.0)
}

/// The verdict on rows already resolved (`read_schedule`,
/// `schedule_from_rows`): their structure violations, or every rule of
/// the schedule they make.
pub fn check_outcome(inst: &Instance, read: super::ReadOutcome, limit: usize) -> Report {
    check_outcome_with_usage(inst, read, limit, false).0
}

/// `check_reader`, and with `usage` where the schedule is legal, its
/// `Usage` (`tmin check --usage`).
pub fn check_reader_with_usage<R: Read>(
    inst: &Instance,
    src: R,
    name: &str,
    limit: usize,
    usage: bool,
) -> InputResult<(Report, Option<Usage>)> {
    Ok(check_outcome_with_usage(
        inst,
        read_schedule(inst, src, name, limit)?,
        limit,
        usage,
    ))
}

/// `check_outcome`, and with `usage` where the schedule is legal, its
/// `Usage`.
pub fn check_outcome_with_usage(
    inst: &Instance,
    read: super::ReadOutcome,
    limit: usize,
    usage: bool,
) -> (Report, Option<Usage>) {
    let rows = read.rows;
    match verdict(inst, read) {
        Ok((sched, g)) => {
            let violations = check(&g, &sched, limit);
            let used = (usage && violations.is_empty()).then(|| super::usage::usage(&g, &sched));
            let rep = Report {
                violations,
                makespan: Some(sched.makespan(&g)),
                rows,
                choice: Some(sched.choice),
            };
            (rep, used)
        }
        Err(violations) => {
            let rep = Report {
                violations,
                makespan: None,
                rows,
                choice: None,
            };
            (rep, None)
        }
    }
}

/// The schedule resolved rows make, when it is legal (a warm start must
/// be); otherwise the violations, as `check_outcome` finds them.
pub fn legal_schedule(
    inst: &Instance,
    read: super::ReadOutcome,
    limit: usize,
) -> Result<Schedule, Violations> {
    let (sched, g) = verdict(inst, read)?;
    let v = check(&g, &sched, limit);
    if v.is_empty() { Ok(sched) } else { Err(v) }
}

/// The complete schedule and its node graph, or the structure violations
/// that leave none.
fn verdict(
    inst: &Instance,
    read: super::ReadOutcome,
) -> Result<(Schedule, NodeGraph<'_>), Violations> {
    let Some(sched) = read.schedule.filter(|_| read.violations.is_empty()) else {
        return Err(read.violations);
    };
    match NodeGraph::new(inst, sched.choice.clone()) {
        Ok(g) => Ok((sched, g)),
        Err(e) => {
            let mut v = read.violations;
            v.push(Violation::new(Rule::Structure, e));
            Err(v)
        }
    }
}

/// Checks a complete schedule against problem.md §4 (core ids, precedence, cores, memory).
pub fn check(g: &NodeGraph, s: &Schedule, limit: usize) -> Violations {
    assert_eq!(
        s.choice, g.choice,
        "schedule and graph use the same tilings"
    );
    let mut out = Violations::new(limit);
    check_core_ids(g, s, &mut out);
    check_precedence(g, s, &mut out);
    let order = by_start(g, s);
    if out.count(Rule::CoreId) == 0 {
        check_cores(g, s, &order, &mut out);
    }
    check_memory(g, s, &order, &mut out);
    out
}

fn node_name(g: &NodeGraph, v: u32) -> String {
    let (o, n) = g.label(v);
    format!("op {o} node {n}")
}

fn check_core_ids(g: &NodeGraph, s: &Schedule, out: &mut Violations) {
    let cores = &g.inst.platform.cores;
    for v in 0..g.n_nodes() as u32 {
        let c = g.core[v as usize];
        let id = s.core[v as usize];
        // Nodes on missing core types cannot appear: their tilings are unusable.
        let count = cores.get(c as usize).map_or(0, |t| t.count);
        if id >= count && out.wants_detail(Rule::CoreId) {
            let ct = cores.get(c as usize).map_or(u32::MAX, |t| t.id);
            out.push(
                Violation::new(
                    Rule::CoreId,
                    format!(
                        "{} uses core {id} of core type {ct}, which has cores 0..{}",
                        node_name(g, v),
                        count.saturating_sub(1)
                    ),
                )
                .with_nodes(vec![g.label(v)]),
            );
        }
    }
}

fn check_precedence(g: &NodeGraph, s: &Schedule, out: &mut Violations) {
    let end_of = |v: u32| end(s.start[v as usize], g.dur(v));
    let edge_violation = |out: &mut Violations, u: u32, v: u32, kind: &str| {
        if out.wants_detail(Rule::Precedence) {
            out.push(
                Violation::new(
                    Rule::Precedence,
                    format!(
                        "{} ends at {} but its {kind} successor {} starts at {}",
                        node_name(g, u),
                        end_of(u),
                        node_name(g, v),
                        s.start[v as usize]
                    ),
                )
                .with_nodes(vec![g.label(u), g.label(v)])
                .at(u128::from(s.start[v as usize])),
            );
        }
    };
    for u in 0..g.n_nodes() as u32 {
        let e = end_of(u);
        for v in g.intra_succs(u) {
            if u128::from(s.start[v as usize]) < e {
                edge_violation(out, u, v, "intra-op");
            }
        }
    }
    // Op edges: the latest sink end of `a` against the earliest source start of `b`,
    // so each op edge costs O(1) after one pass over sinks and sources.
    let n_ops = g.n_ops() as u32;
    let mut last_sink: Vec<Option<u32>> = vec![None; n_ops as usize];
    let mut first_source: Vec<Option<u32>> = vec![None; n_ops as usize];
    for op in 0..n_ops {
        last_sink[op as usize] = g.sinks(op).max_by_key(|&v| end_of(v));
        first_source[op as usize] = g.sources(op).min_by_key(|&v| s.start[v as usize]);
    }
    for a in 0..n_ops {
        let Some(u) = last_sink[a as usize] else {
            continue;
        };
        for &b in g.op_succs(a) {
            if let Some(v) = first_source[b as usize]
                && u128::from(s.start[v as usize]) < end_of(u)
            {
                edge_violation(out, u, v, "inter-op");
            }
        }
    }
}

/// Nodes sorted by start time (ties by index). Sorting `(start, node)` pairs is
/// faster than sorting indices by a looked-up key; the pairs are dropped at once.
fn by_start(g: &NodeGraph, s: &Schedule) -> Vec<u32> {
    let mut pairs: Vec<(u64, u32)> = (0..g.n_nodes() as u32)
        .map(|v| (s.start[v as usize], v))
        .collect();
    pairs.sort_unstable();
    pairs.into_iter().map(|(_, v)| v).collect()
}

/// Dense slots for the cores the schedule uses: `slot(v)` indexes a table of
/// at most one entry per used core. The flat table over every declared core
/// (`Platform::core_offsets`) is used only while it is no larger than a few
/// entries per node: an instance may declare 254 types of 2^20 cores and use
/// two of them (before: 48 bytes per declared core, 3.1 GiB for one row).
struct CoreSlots {
    /// Flat: `offsets[type] + core id`.
    offsets: Option<Vec<usize>>,
    /// Otherwise: slot per node (nodes of zero duration get none).
    per_node: Vec<u32>,
    n_slots: usize,
}

impl CoreSlots {
    fn new(g: &NodeGraph, s: &Schedule) -> Self {
        let declared: u64 = g
            .inst
            .platform
            .cores
            .iter()
            .map(|c| u64::from(c.count))
            .sum();
        if declared <= 4 * g.n_nodes() as u64 + 1024 {
            let offsets = g.inst.platform.core_offsets();
            let n_slots = offsets[offsets.len() - 1];
            return CoreSlots {
                offsets: Some(offsets),
                per_node: Vec::new(),
                n_slots,
            };
        }
        // (core type, core id, node) sorted; equal keys share a slot.
        let mut keys: Vec<(u64, u32)> = (0..g.n_nodes() as u32)
            .filter(|&v| g.dur(v) > 0)
            .map(|v| {
                let key = (u64::from(g.core[v as usize]) << 32) | u64::from(s.core[v as usize]);
                (key, v)
            })
            .collect();
        keys.sort_unstable();
        let mut per_node = vec![u32::MAX; g.n_nodes()];
        let mut n_slots = 0usize;
        for (i, &(key, v)) in keys.iter().enumerate() {
            if i > 0 && keys[i - 1].0 != key {
                n_slots += 1;
            }
            per_node[v as usize] = n_slots as u32;
        }
        if !keys.is_empty() {
            n_slots += 1;
        }
        CoreSlots {
            offsets: None,
            per_node,
            n_slots,
        }
    }

    #[inline]
    fn slot(&self, g: &NodeGraph, s: &Schedule, v: u32) -> usize {
        match &self.offsets {
            Some(off) => off[g.core[v as usize] as usize] + s.core[v as usize] as usize,
            None => self.per_node[v as usize] as usize,
        }
    }
}

fn check_cores(g: &NodeGraph, s: &Schedule, order: &[u32], out: &mut Violations) {
    let slots = CoreSlots::new(g, s);
    // Sweep every core's intervals in start order: an overlap exists exactly when
    // a node starts before the latest end seen so far on its core. Zero-length
    // nodes occupy nothing.
    let mut latest: Vec<Option<(u128, u32)>> = vec![None; slots.n_slots];
    for &v in order {
        if g.dur(v) == 0 {
            continue;
        }
        let start = s.start[v as usize];
        let slot = slots.slot(g, s, v);
        let e = end(start, g.dur(v));
        match latest[slot] {
            Some((le, u)) if u128::from(start) < le => {
                if out.wants_detail(Rule::Core) {
                    let ct = g.inst.platform.cores[g.core[v as usize] as usize].id;
                    out.push(
                        Violation::new(
                            Rule::Core,
                            format!(
                                "{} [{}, {}) and {} [{}, {}) overlap on core {} of core type {ct}",
                                node_name(g, u),
                                s.start[u as usize],
                                le,
                                node_name(g, v),
                                start,
                                e,
                                s.core[v as usize]
                            ),
                        )
                        .with_nodes(vec![g.label(u), g.label(v)])
                        .at(u128::from(start)),
                    );
                }
                if e > le {
                    latest[slot] = Some((e, v));
                }
            }
            _ => latest[slot] = Some((e, v)),
        }
    }
}

fn check_memory(g: &NodeGraph, s: &Schedule, order: &[u32], out: &mut Violations) {
    for m in 0..g.inst.platform.mems.len() as TypeIdx {
        let holds = Holds::new(g, s, m);
        sweep_memory(g, s, m, order, &holds, out);
    }
}

/// The holds of one memory type: node `v` holds `demand(v, m)` over
/// `[start(v), R)` with `R = max(end, max start of direct successors that demand
/// m)` (problem.md §4.4). Only what the sweep needs is stored: the release list.
struct Holds {
    m: TypeIdx,
    /// Per op: the latest start of a successor op's source that demands m (the
    /// sinks of the op hold until then).
    succ_latest: Vec<Option<u64>>,
    /// `(R, node)` sorted, for holds with `R > start` and `R < 2^64`; a hold
    /// that ends after every representable instant never releases within the sweep.
    releases: Vec<(u64, u32)>,
}

impl Holds {
    fn new(g: &NodeGraph, s: &Schedule, m: TypeIdx) -> Self {
        let n_ops = g.n_ops();
        let src_latest = sources_latest(g, s, m);
        let succ_latest: Vec<Option<u64>> = (0..n_ops as u32)
            .map(|a| {
                g.op_succs(a)
                    .iter()
                    .filter_map(|&b| src_latest[b as usize])
                    .max()
            })
            .collect();
        drop(src_latest);
        let mut h = Holds {
            m,
            succ_latest,
            releases: Vec::new(),
        };
        for v in 0..g.n_nodes() as u32 {
            if g.demand(v, m) == 0 {
                continue;
            }
            let until = h.until(g, s, v);
            if until > u128::from(s.start[v as usize])
                && let Ok(r) = u64::try_from(until)
            {
                h.releases.push((r, v));
            }
        }
        h.releases.sort_unstable();
        h
    }

    /// `R(v, m)` for a node that demands m.
    fn until(&self, g: &NodeGraph, s: &Schedule, v: u32) -> u128 {
        let mut until = end(s.start[v as usize], g.dur(v));
        for w in g.intra_succs(v) {
            if g.demand(w, self.m) > 0 {
                until = until.max(u128::from(s.start[w as usize]));
            }
        }
        if g.is_sink(v)
            && let Some(t) = self.succ_latest[g.node_op[v as usize] as usize]
        {
            until = until.max(u128::from(t));
        }
        until
    }
}

/// Per op, the latest start of its sources that demand type `m` (`None`
/// where none does): the sinks of its predecessor ops hold `m` until then.
pub(super) fn sources_latest(g: &NodeGraph, s: &Schedule, m: TypeIdx) -> Vec<Option<u64>> {
    (0..g.n_ops() as u32)
        .map(|op| {
            g.sources(op)
                .filter(|&v| g.demand(v, m) > 0)
                .map(|v| s.start[v as usize])
                .max()
        })
        .collect()
}

/// Held memory of dense type `m` over time under the release rule of SPEC 4.4,
/// as steps `(t, held from t on)` in increasing `t` (one point per instant where
/// the total changes; releases at `t` count before acquisitions at `t`, as in
/// the validator). Built from the validator's own `Holds`, so a plot shows
/// exactly what `check` measured. Holds released at or after 2^64 (the
/// validator's sweep never reaches them: every start is below) end after the
/// sweep, in release order, so the last step is 0 at the latest release.
pub fn memory_profile(g: &NodeGraph, s: &Schedule, m: TypeIdx) -> Vec<(u128, u128)> {
    let holds = Holds::new(g, s, m);
    let mut late: Vec<(u128, u64)> = Vec::new();
    let mut acq: Vec<(u64, u64)> = (0..g.n_nodes() as u32)
        .filter_map(|v| {
            let d = g.demand(v, m);
            let from = s.start[v as usize];
            if d == 0 {
                return None;
            }
            let until = holds.until(g, s, v);
            if until > u128::from(u64::MAX) {
                late.push((until, d));
            }
            (g.dur(v) > 0 || until > u128::from(from)).then_some((from, d))
        })
        .collect();
    acq.sort_unstable();
    late.sort_unstable();
    let rel = &holds.releases;
    let (mut i, mut j) = (0, 0);
    let mut held: u128 = 0;
    let mut out: Vec<(u128, u128)> = Vec::new();
    let mut step = |t: u128, held: u128| match out.last_mut() {
        Some(last) if last.1 == held => {}
        Some(last) if last.0 == t => last.1 = held,
        _ => out.push((t, held)),
    };
    while i < acq.len() || j < rel.len() {
        let t = match (acq.get(i), rel.get(j)) {
            (Some(a), Some(r)) => a.0.min(r.0),
            (Some(a), None) => a.0,
            (None, Some(r)) => r.0,
            (None, None) => break,
        };
        while j < rel.len() && rel[j].0 == t {
            held -= u128::from(g.demand(rel[j].1, m));
            j += 1;
        }
        while i < acq.len() && acq[i].0 == t {
            held += u128::from(acq[i].1);
            i += 1;
        }
        step(u128::from(t), held);
    }
    for (t, d) in late {
        held -= u128::from(d);
        step(t, held);
    }
    out
}

/// Sweeps the holds of type `m` in time order. Holds are half-open, so at one
/// instant releases count before acquisitions (the task book's example: a node
/// that ends at t frees its memory for successors starting at t).
fn sweep_memory(
    g: &NodeGraph,
    s: &Schedule,
    m: TypeIdx,
    order: &[u32],
    holds: &Holds,
    out: &mut Violations,
) {
    let size = g.inst.platform.mems[m as usize].size;
    let mem_id = g.inst.platform.mems[m as usize].id;
    let release = &holds.releases;
    // Acquisitions: nodes in start order that demand m and hold a non-empty interval.
    let mut acquire = order.iter().copied().filter_map(|v| {
        let d = g.demand(v, m);
        let from = s.start[v as usize];
        (d > 0 && (g.dur(v) > 0 || holds.until(g, s, v) > u128::from(from))).then_some((from, d))
    });
    let mut next = acquire.next();
    let mut j = 0;
    let mut held: u128 = 0;
    let mut over = false;
    let mut peaks: Vec<(u128, u128)> = Vec::new();
    while let Some((t, _)) = next {
        while j < release.len() && release[j].0 < t {
            held -= u128::from(g.demand(release[j].1, m));
            j += 1;
        }
        // Releases alone (strictly before t) may have ended an interval over the
        // size: without this reset, a later excursion reached with no acquisition
        // in between at or under the size was merged into the earlier one and not
        // counted. Releases at exactly t do not end it when acquisitions at t keep
        // the total over: then the excursion continues through t.
        if held <= u128::from(size) {
            over = false;
        }
        while j < release.len() && release[j].0 == t {
            held -= u128::from(g.demand(release[j].1, m));
            j += 1;
        }
        while let Some((from, d)) = next
            && from == t
        {
            held += u128::from(d);
            next = acquire.next();
        }
        if held > u128::from(size) {
            // One violation per maximal interval over the size, at its first instant.
            if !over {
                out.counts[Rule::Memory as usize] += 1;
                if out.kept.len() + peaks.len() < out.limit {
                    peaks.push((u128::from(t), held));
                }
                over = true;
            }
        } else {
            over = false;
        }
    }
    for (t, amount) in peaks {
        // Holders at t: a linear scan, done only for the reported violations.
        let holders: Vec<(u32, u128)> = (0..g.n_nodes() as u32)
            .filter(|&v| g.demand(v, m) > 0 && u128::from(s.start[v as usize]) <= t)
            .map(|v| (v, holds.until(g, s, v)))
            .filter(|&(_, until)| t < until)
            .collect();
        let mut names: Vec<String> = holders
            .iter()
            .take(8)
            .map(|&(v, until)| {
                let ended = end(s.start[v as usize], g.dur(v));
                let why = if until > ended {
                    " (waiting for a successor to start)"
                } else {
                    ""
                };
                format!(
                    "{} holds {} [{}, {until}){why}",
                    node_name(g, v),
                    g.demand(v, m),
                    s.start[v as usize],
                )
            })
            .collect();
        if holders.len() > 8 {
            names.push(format!("and {} more", holders.len() - 8));
        }
        let mut v = Violation::new(
            Rule::Memory,
            format!(
                "memory type {mem_id} holds {amount} > size {size} at time {t}: {}",
                names.join("; ")
            ),
        )
        .with_nodes(holders.iter().take(100).map(|&(v, _)| g.label(v)).collect())
        .at(t);
        v.amount = Some((amount, size));
        // Counted already in the sweep; keep the detail without counting twice.
        out.kept.push(v);
    }
}
