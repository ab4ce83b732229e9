//! Reporting at the edge: human text and JSON for verdicts and summaries.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::bounds::{Bound, Bounds, ScheduleBounds};
use crate::instance::Instance;
use crate::schedule::{Report, Rule, Usage};
use crate::solve::SolveResult;

/// How a time or amount beyond u64 goes into JSON: `Digits`, a string of its
/// exact digits (the CLI's JSON, which many readers parse into doubles), or
/// `Exact`, a JSON number that keeps every digit (for the Python package,
/// whose ints hold it). The choice is by the value's type, never by its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wide {
    Digits,
    Exact,
}

/// A JSON number for a u128 time: a number when it fits u64, else as `Wide`
/// says.
pub fn num_as(v: u128, wide: Wide) -> Value {
    match (u64::try_from(v), wide) {
        (Ok(x), _) => json!(x),
        (Err(_), Wide::Digits) => json!(v.to_string()),
        (Err(_), Wide::Exact) => {
            Value::Number(serde_json::Number::from_u128(v).expect("arbitrary precision"))
        }
    }
}

/// `num_as(v, Wide::Digits)`: the CLI's JSON.
pub fn num(v: u128) -> Value {
    num_as(v, Wide::Digits)
}

fn counts_json(rep: &Report) -> Value {
    let mut m = serde_json::Map::new();
    for r in Rule::ALL {
        m.insert(r.name().to_string(), json!(rep.violations.count(r)));
    }
    Value::Object(m)
}

/// The machine-readable verdict of `tmin check`, with `bound` a legal
/// schedule's distance to the proven bounds (`tmin check --bound`) and
/// `usage` where its time goes (`tmin check --usage`).
pub fn check_json(
    instance: &str,
    schedule: &str,
    rep: &Report,
    bound: Option<&ScheduleBounds>,
    usage: Option<&Usage>,
) -> Value {
    let violations: Vec<Value> = rep
        .violations
        .kept
        .iter()
        .map(|v| {
            let mut o = json!({
                "rule": v.rule.name(),
                "message": v.message,
                "nodes": v.nodes.iter().map(|&(o, n)| json!([o, n])).collect::<Vec<_>>(),
            });
            if let Some(t) = v.time {
                o["time"] = num(t);
            }
            if let Some((held, size)) = v.amount {
                o["held"] = num(held);
                o["size"] = json!(size);
            }
            o
        })
        .collect();
    let mut v = json!({
        "instance": instance,
        "schedule": schedule,
        "legal": rep.is_legal(),
        "makespan": rep.makespan.map(num),
        "rows": rep.rows,
        "violation_count": rep.violations.total(),
        "counts": counts_json(rep),
        "violations": violations,
    });
    if let (Some(b), Some(ms)) = (bound, rep.makespan.filter(|_| rep.is_legal())) {
        v["lower_bound"] = json!(b.instance.value);
        v["bound_source"] = json!(b.instance.source);
        v["gap"] = json!(crate::solve::gap(ms, u128::from(b.instance.value)));
        // true: proven optimal; false: not known (the bound may be weak).
        v["meets_bound"] = json!(ms == u128::from(b.instance.value));
        v["tilings_lower_bound"] = json!(b.tilings.value);
        v["tilings_bound_source"] = json!(b.tilings.source);
        v["tilings_gap"] = json!(crate::solve::gap(ms, u128::from(b.tilings.value)));
    }
    if let Some(u) = usage {
        v["usage"] = usage_json(u, Wide::Digits);
    }
    v
}

/// The `"usage"` object of `check_json` (also `tmin.check(usage=True)`).
pub fn usage_json(u: &Usage, wide: Wide) -> Value {
    let num = |v| num_as(v, wide);
    let memory: Vec<Value> = u
        .memory
        .iter()
        .map(|m| {
            let p = &m.past;
            json!({"type": m.id, "size": m.size, "peak": num(m.peak),
                   "held": num(m.held), "run": num(m.run),
                   "past": {"in_op": num(p.in_op), "op_sinks": num(p.op_sinks),
                            "join": num(p.join), "successor_wait": num(p.successor_wait)}})
        })
        .collect();
    let cores: Vec<Value> = u
        .cores
        .iter()
        .map(|c| json!({"type": c.id, "cores": c.cores, "busy": num(c.busy)}))
        .collect();
    let c = &u.chain;
    json!({
        "memory": memory,
        "cores": cores,
        "chain": {
            "nodes": c.nodes, "ops": c.ops, "start": num(c.start), "work": num(c.work),
            "wait_cores_busy": num(c.wait_cores_busy), "wait_core_free": num(c.wait_core_free),
        },
    })
}

/// `usage` as lines of text (`tmin check --usage`).
fn usage_text(s: &mut String, u: &Usage) {
    // A share of `part` in `whole`, in per cent (0 for an empty whole).
    let pc = |part: u128, whole: u128| {
        if whole == 0 {
            0.0
        } else {
            100.0 * part as f64 / whole as f64
        }
    };
    let ms = u.makespan;
    for m in &u.memory {
        let whole = u128::from(m.size) * ms;
        let _ = write!(
            s,
            "memory type {} (size {}): peak {} ({:.1}%), held {:.1}% of size x makespan",
            m.id,
            m.size,
            m.peak,
            pc(m.peak, u128::from(m.size)),
            pc(m.held, whole),
        );
        let _ = if m.run > 0 {
            writeln!(
                s,
                ", {:.2} x as long as its nodes run",
                m.held as f64 / m.run as f64
            )
        } else {
            writeln!(s)
        };
        let p = &m.past;
        let past = p.total();
        if past > 0 {
            let _ = writeln!(
                s,
                "  held past its nodes' ends, until: a successor in the op {:.0}%, the op's last sink {:.0}%, the successor op's other predecessors (joins) {:.0}%, the ready successor op starts {:.0}%",
                pc(p.in_op, past),
                pc(p.op_sinks, past),
                pc(p.join, past),
                pc(p.successor_wait, past)
            );
        }
    }
    for c in &u.cores {
        let _ = writeln!(
            s,
            "core type {} ({} cores): busy {:.1}% of cores x makespan",
            c.id,
            c.cores,
            pc(c.busy, u128::from(c.cores) * ms)
        );
    }
    let c = &u.chain;
    let _ = writeln!(
        s,
        "critical chain: {} nodes of {} ops from t={}: runs {}, waits {} with every core of its type busy and {} with one free (memory or order)",
        c.nodes, c.ops, c.start, c.work, c.wait_cores_busy, c.wait_core_free
    );
}

/// The human verdict of `tmin check` (with `bound` and `usage` as in
/// `check_json`).
pub fn check_text(rep: &Report, bound: Option<&ScheduleBounds>, usage: Option<&Usage>) -> String {
    let mut s = String::new();
    if rep.is_legal() {
        let ms = rep.makespan.unwrap_or(0);
        let _ = writeln!(s, "legal: makespan {ms} ({} rows)", rep.rows);
        if let Some(b) = bound {
            let lines = [
                (
                    "lower bound",
                    &b.instance,
                    "the schedule is proven optimal",
                    "for a proof or a better schedule: tmin solve INSTANCE --start SCHEDULE",
                ),
                (
                    "with these tilings: lower bound",
                    &b.tilings,
                    "the schedule is optimal for its tilings",
                    "its order's part; the rest is its tilings' or the bound's",
                ),
            ];
            for (what, Bound { value, source }, met, why) in lines {
                let v = u128::from(*value);
                let _ = if ms == v {
                    writeln!(s, "{what} {value} ({source}): {met}")
                } else {
                    let gap = 100.0 * crate::solve::gap(ms, v);
                    writeln!(
                        s,
                        "{what} {value} ({source}): gap at most {gap:.2}% ({why})"
                    )
                };
            }
        }
        if let Some(u) = usage {
            usage_text(&mut s, u);
        }
        return s;
    }
    let total = rep.violations.total();
    let parts: Vec<String> = Rule::ALL
        .iter()
        .filter(|&&r| rep.violations.count(r) > 0)
        .map(|&r| format!("{} {}", r.name(), rep.violations.count(r)))
        .collect();
    let _ = writeln!(
        s,
        "illegal: {total} violation{} ({})",
        if total == 1 { "" } else { "s" },
        parts.join(", ")
    );
    for v in &rep.violations.kept {
        let _ = writeln!(s, "  {v}");
    }
    let shown = rep.violations.kept.len();
    if total > shown {
        let _ = writeln!(s, "  ... and {} more", total - shown);
    }
    if rep.makespan.is_none() {
        let _ = writeln!(
            s,
            "  (timing rules not checked: the rows do not form a complete schedule)"
        );
    }
    s
}

/// Sizes of an instance, as `tmin info` reports them.
pub fn info_json(inst: &Instance) -> Value {
    let lib = &inst.library;
    let g = &inst.graph;
    let usable = lib.tilings.iter().filter(|t| t.is_usable()).count();
    let (mut min_nodes, mut max_nodes) = (0u64, 0u64);
    for op in 0..g.n_ops() as u32 {
        let sizes = inst
            .usable_tilings(op)
            .map(|t| u64::from(lib.tilings[t as usize].n_nodes));
        let (lo, hi) = sizes.fold((u64::MAX, 0), |(lo, hi), n| (lo.min(n), hi.max(n)));
        if lo != u64::MAX {
            min_nodes += lo;
            max_nodes += hi;
        }
    }
    let infeasible: Vec<u32> = inst
        .ops_without_usable_tiling()
        .iter()
        .map(|&o| g.ops[o as usize].id)
        .collect();
    json!({
        "instance": inst.name,
        "core_types": inst.platform.cores.iter().map(|c| json!([c.id, c.count])).collect::<Vec<_>>(),
        "mem_types": inst.platform.mems.iter().map(|m| json!([m.id, m.size])).collect::<Vec<_>>(),
        "groups": lib.groups.len(),
        "tilings": lib.tilings.len(),
        "usable_tilings": usable,
        "library_nodes": lib.n_nodes(),
        "ops": g.n_ops(),
        "op_edges": g.n_edges(),
        "graph_nodes_min": min_nodes,
        "graph_nodes_max": max_nodes,
        "ops_without_usable_tiling": infeasible,
        "warnings": inst.warnings,
    })
}

pub fn info_text(inst: &Instance) -> String {
    let v = info_json(inst);
    let mut s = String::new();
    let _ = writeln!(s, "instance      {}", inst.name);
    let cores: Vec<String> = inst
        .platform
        .cores
        .iter()
        .map(|c| format!("type {} x{}", c.id, c.count))
        .collect();
    let mems: Vec<String> = inst
        .platform
        .mems
        .iter()
        .map(|m| format!("type {} size {}", m.id, m.size))
        .collect();
    let _ = writeln!(s, "cores         {}", cores.join(", "));
    let _ = writeln!(s, "memories      {}", mems.join(", "));
    let _ = writeln!(
        s,
        "library       {} (type, shape) groups, {} tilings ({} usable), {} nodes",
        v["groups"], v["tilings"], v["usable_tilings"], v["library_nodes"]
    );
    let _ = writeln!(
        s,
        "graph         {} ops, {} op edges, {}..{} nodes depending on tilings",
        v["ops"], v["op_edges"], v["graph_nodes_min"], v["graph_nodes_max"]
    );
    let bad = inst.ops_without_usable_tiling();
    if !bad.is_empty() {
        let _ = writeln!(
            s,
            "infeasible    {} op(s) without a usable tiling, e.g. {}",
            bad.len(),
            inst.why_no_usable_tiling(bad[0])
        );
    }
    s
}

/// The crate version, in every `tmin solve --json` object and bench line.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// What a solve was asked for and what it read, beyond the result: the keys
/// `tmin solve --json` shares with the lines of `tmin bench`.
pub struct RunInfo<'a> {
    /// SHA-256 of the instance file's content (`None`: not read to the end).
    pub hash: Option<&'a str>,
    /// `--time-limit` as given, in seconds.
    pub time_limit: f64,
    pub seed: u64,
}

/// One line of `tmin solve --progress`: a better schedule or a higher bound.
pub fn event_json(e: &crate::events::Event, wide: Wide) -> Value {
    use crate::events::Event;
    match e {
        Event::Incumbent {
            seconds,
            makespan,
            engine,
            step,
        } => json!({
            "event": "incumbent",
            "seconds": seconds,
            "makespan": num_as(*makespan, wide),
            "engine": engine,
            "step": if step.is_empty() { Value::Null } else { json!(step) },
        }),
        Event::Bound {
            seconds,
            lower_bound,
            source,
        } => json!({
            "event": "bound",
            "seconds": seconds,
            "lower_bound": lower_bound,
            "source": source,
        }),
    }
}

/// The last line of `tmin solve --progress`: the result as reported.
pub fn result_event_json(r: &SolveResult, seconds: f64, wide: Wide) -> Value {
    json!({
        "event": "result",
        "seconds": seconds,
        "status": r.status.name(),
        "makespan": r.makespan.map(|m| num_as(m, wide)),
        "lower_bound": r.lower_bound,
        "bound_source": r.bound_source,
        "gap": r.gap(),
        "engine": r.engine,
    })
}

/// The JSON object of `tmin solve --json`.
pub fn solve_json(
    inst: &Instance,
    r: &SolveResult,
    read_seconds: f64,
    total_seconds: f64,
    run: &RunInfo,
) -> Value {
    let mut v = solve_json_named(
        &inst.name,
        Some(inst.graph.n_ops()),
        r,
        read_seconds,
        total_seconds,
        run,
    );
    let range = crate::tmax::node_range(inst);
    v["nodes_min"] = json!(range.map(|x| x.0));
    v["nodes_max"] = json!(range.map(|x| x.1));
    v["t_max"] = json!(crate::tmax::t_max(inst).map(num));
    v
}

/// As `solve_json`, when the instance was not (completely) read: its name and,
/// if known, its op count; the sizes and T_max are null. Makespans beyond u64
/// are strings of their exact digits (`num`), as in `tmin check --json`.
pub fn solve_json_named(
    name: &str,
    ops: Option<usize>,
    r: &SolveResult,
    read_seconds: f64,
    total_seconds: f64,
    run: &RunInfo,
) -> Value {
    json!({
        "instance": name,
        "hash": run.hash,
        "ops": ops,
        "nodes": r.schedule.as_ref().map(|s| s.start.len()),
        "nodes_min": null,
        "nodes_max": null,
        "time_limit": run.time_limit,
        "seed": run.seed,
        "status": r.status.name(),
        "makespan": r.makespan.map(num),
        "lower_bound": r.lower_bound,
        "bound_source": r.bound_source,
        "gap": r.gap(),
        "t_max": null,
        "engine": r.engine,
        "wall_seconds": r.wall_seconds,
        "read_seconds": read_seconds,
        "total_seconds": total_seconds,
        "version": VERSION,
        "stepped_aside": r.stepped_aside.as_ref().map(|w| w.to_string()),
        "notes": r.notes.iter().map(note_json).collect::<Vec<_>>(),
    })
}

/// A note in JSON: its kind, its text, and the data its kind carries.
fn note_json(n: &crate::solve::Note) -> Value {
    use crate::solve::NoteKind as K;
    let mut v = json!({"kind": n.kind.name(), "text": n.text});
    match &n.kind {
        K::Encoding {
            clauses,
            event_points,
        } => {
            v["clauses"] = json!(clauses);
            v["event_points"] = json!(event_points);
        }
        K::Unschedulable { op, tiling, proven } => {
            v["op"] = json!(op);
            v["tiling"] = json!(tiling);
            v["proven"] = json!(proven);
        }
        K::NoTilingForOp { op } => v["op"] = json!(op),
        K::Certificate { certified } => v["certified"] = json!(certified),
        _ => {}
    }
    v
}

/// The text summary of `tmin solve`.
pub fn solve_text(r: &SolveResult, total_seconds: f64) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "status       {}", r.status);
    match r.makespan {
        Some(m) => {
            let _ = writeln!(s, "makespan     {m}");
        }
        None => {
            let _ = writeln!(s, "makespan     none");
        }
    }
    let _ = writeln!(s, "lower bound  {} ({})", r.lower_bound, r.bound_source);
    if let Some(gap) = r.gap() {
        let _ = writeln!(s, "gap          {:.2}%", gap * 100.0);
    }
    let _ = writeln!(s, "engine       {}", r.engine);
    let _ = writeln!(
        s,
        "time         {:.3} s search, {:.3} s total",
        r.wall_seconds, total_seconds
    );
    for n in &r.notes {
        let _ = writeln!(s, "note         {n}");
    }
    s
}

/// The JSON object of `tmin bound --json`.
pub fn bound_json(inst: &Instance, b: &Bounds) -> Value {
    json!({
        "instance": inst.name,
        "lower_bound": b.best.value,
        "binds": b.best.source,
        "bounds": b.all.iter().map(|x| json!({"source": x.source, "value": x.value})).collect::<Vec<_>>(),
        "refuted": refuted_json(inst, &b.nogoods),
    })
}

/// Refuted tiling choices (models/sat.md §1.2) by op and tiling id:
/// `{"tilings": [[op, tiling], ...], "pairs": [[op, tiling, op, tiling], ...],
/// "sets": [[[op, tiling], ...], ...]}`.
fn refuted_json(inst: &Instance, ng: &crate::bounds::nogoods::TilingNogoods) -> Value {
    let id = |(op, t): (u32, u32)| {
        (
            inst.graph.ops[op as usize].id,
            inst.library.tilings[t as usize].id,
        )
    };
    json!({
        "tilings": ng.refuted.iter().map(|&x| { let (o, t) = id(x); json!([o, t]) }).collect::<Vec<_>>(),
        "pairs": ng.pairs.iter().map(|&[a, b]| {
            let ((oa, ta), (ob, tb)) = (id(a), id(b));
            json!([oa, ta, ob, tb])
        }).collect::<Vec<_>>(),
        "sets": ng.sets.iter().map(|s| {
            s.iter().map(|&x| { let (o, t) = id(x); json!([o, t]) }).collect::<Vec<_>>()
        }).collect::<Vec<_>>(),
    })
}

pub fn bound_text(inst: &Instance, b: &Bounds) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "lower bound  {} ({})", b.best.value, b.best.source);
    for x in &b.all {
        let _ = writeln!(s, "  {:>20}  {}", x.value, x.source);
    }
    if !b.nogoods.is_empty() {
        let _ = writeln!(s, "refuted      {}", b.nogoods.summary());
    }
    if !inst.ops_without_usable_tiling().is_empty() {
        let _ = writeln!(s, "the instance is infeasible: an op has no usable tiling");
    }
    s
}
