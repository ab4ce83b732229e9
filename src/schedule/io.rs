//! Reading and writing the output format `[[OpId,Tiling,NodeId,Start,CoreId],...]`.
//!
//! Reading resolves each row against the instance as it streams in, so a file of
//! 10^7 rows is held as four flat arrays. Rows that cannot belong to a legal
//! schedule (unknown op, tiling or node, two tilings for one op, a node twice or
//! never) are structural violations, not read errors: the file was readable.

use std::io::{Read, Write};

use super::{Rule, Schedule, Violation, Violations};
use crate::error::InputResult;
use crate::instance::Instance;
use crate::text::{Lexer, push_u64};

/// What a schedule file says about an instance.
pub struct ReadOutcome {
    /// The schedule, when every op and node is accounted for exactly once.
    pub schedule: Option<Schedule>,
    /// Structural violations found while resolving rows.
    pub violations: Violations,
    pub rows: usize,
}

const NONE: u32 = u32::MAX;

/// Reads a schedule for `inst`. Syntax errors are `InputError`s (exit 2);
/// everything else is reported in `ReadOutcome::violations`.
pub fn read_schedule<R: Read>(
    inst: &Instance,
    src: R,
    name: &str,
    limit: usize,
) -> InputResult<ReadOutcome> {
    read_schedule_until(inst, src, name, limit, None)
}

/// The columns of a schedule row, and whether each fits 32 bits.
const COLUMNS: [(&str, bool); 5] = [
    ("OpId", true),
    ("Tiling", true),
    ("NodeId", true),
    ("Start", false),
    ("CoreId", true),
];
const CTX: &str = "the schedule [[OpId,Tiling,NodeId,Start,CoreId],...]";

/// One row `[OpId, Tiling, NodeId, Start, CoreId]` as read.
pub type Row = (u32, u32, u32, u64, u32);

/// As `read_schedule`, giving up with `InputErrorKind::TimeLimit` once
/// `deadline` passes (checked every buffer of input).
pub fn read_schedule_until<R: Read>(
    inst: &Instance,
    src: R,
    name: &str,
    limit: usize,
    deadline: Option<std::time::Instant>,
) -> InputResult<ReadOutcome> {
    let mut lx = Lexer::new(src, name).with_deadline(deadline);
    let mut rows = Resolver::new(inst, limit);
    read_each_row(&mut lx, |row, line| {
        rows.row(row, || {
            format!(
                "line {line}: row [{},{},{},{},{}]",
                row.0, row.1, row.2, row.3, row.4
            )
        })
    })?;
    Ok(rows.finish())
}

/// Resolves rows given one by one (a library caller's, e.g. the Python
/// package's list of tuples) exactly as `read_schedule` resolves a file's:
/// the same structure violations, naming each row by its index from 0.
pub fn schedule_from_rows(inst: &Instance, rows: &[Row], limit: usize) -> ReadOutcome {
    let mut r = Resolver::new(inst, limit);
    for (k, &row) in rows.iter().enumerate() {
        r.row(row, || {
            format!(
                "row {k} [{},{},{},{},{}]",
                row.0, row.1, row.2, row.3, row.4
            )
        });
    }
    r.finish()
}

/// The rows of a schedule text, in order, resolved against nothing: syntax
/// errors are `InputError`s at their line and column, as `read_schedule`'s.
pub fn parse_rows<R: Read>(src: R, name: &str) -> InputResult<Vec<Row>> {
    let mut lx = Lexer::new(src, name);
    let mut rows = Vec::new();
    read_each_row(&mut lx, |row, _| rows.push(row))?;
    Ok(rows)
}

/// Reads `[[OpId,Tiling,NodeId,Start,CoreId],...]` to its end, giving each
/// row and its line to `each`.
fn read_each_row<R: Read>(lx: &mut Lexer<R>, mut each: impl FnMut(Row, u32)) -> InputResult<()> {
    lx.list(CTX, |lx| {
        let line = {
            lx.skip_ws()?;
            lx.pos().line
        };
        let [op, tiling, node, start, core] = lx.tuple("the schedule", COLUMNS)?;
        // The 32-bit columns were read as such (`COLUMNS`).
        each(
            (op as u32, tiling as u32, node as u32, start, core as u32),
            line,
        );
        Ok(())
    })?;
    if let Some(b) = lx.peek_token()? {
        return Err(lx.error(format!(
            "expected end of input after the schedule's closing ']', found {}",
            crate::text::describe(Some(b))
        )));
    }
    Ok(())
}

/// The rows read, column by column (op index, local node, start, core id),
/// and how many there were (rows naming unknown ops, tilings or nodes are
/// counted, reported and not kept).
struct Rows {
    op: Vec<u32>,
    local: Vec<u32>,
    start: Vec<u64>,
    core: Vec<u32>,
    count: usize,
}

/// Rows resolved against an instance as they come: each row's op, tiling
/// (one per op, the first row's) and node; what does not resolve is a
/// structure violation naming the row.
struct Resolver<'a> {
    inst: &'a Instance,
    op_tiling: Vec<u32>,
    r: Rows,
    bad: Violations,
}

impl<'a> Resolver<'a> {
    fn new(inst: &'a Instance, limit: usize) -> Self {
        Resolver {
            inst,
            op_tiling: vec![NONE; inst.graph.n_ops()],
            r: Rows {
                op: Vec::new(),
                local: Vec::new(),
                start: Vec::new(),
                core: Vec::new(),
                count: 0,
            },
            bad: Violations::new(limit),
        }
    }

    /// One row; `at` names it in a violation.
    fn row(&mut self, row: Row, at: impl Fn() -> String) {
        let (op_id, tiling_id, node_id, start, core) = row;
        let (lib, graph) = (&self.inst.library, &self.inst.graph);
        let bad = &mut self.bad;
        self.r.count += 1;
        let Some(op) = graph.index_of(op_id) else {
            bad.push(Violation::new(
                Rule::Structure,
                format!(
                    "{} names op {op_id}, which the instance does not contain",
                    at()
                ),
            ));
            return;
        };
        let o = &graph.ops[op as usize];
        let t = match self.op_tiling[op as usize] {
            NONE => {
                let Some(t) = lib.find_tiling(o.group, tiling_id) else {
                    bad.push(Violation::new(
                        Rule::Structure,
                        format!(
                            "{}: op {op_id} (type {}, shape {}) has no tiling {tiling_id}",
                            at(),
                            o.op_type,
                            o.shape
                        ),
                    ));
                    return;
                };
                if let Err(why) = &lib.tilings[t as usize].usable {
                    bad.push(Violation::new(
                        Rule::Structure,
                        format!(
                            "{}: tiling {tiling_id} of op {op_id} is unusable: {why}",
                            at()
                        ),
                    ));
                }
                self.op_tiling[op as usize] = t;
                t
            }
            t if lib.tilings[t as usize].id != tiling_id => {
                bad.push(Violation::new(
                    Rule::Structure,
                    format!(
                        "{}: op {op_id} already has rows with tiling {}; one op uses one tiling",
                        at(),
                        lib.tilings[t as usize].id
                    ),
                ));
                return;
            }
            t => t,
        };
        let Some(local) = lib.local_of(t, node_id) else {
            bad.push(
                Violation::new(
                    Rule::Structure,
                    format!(
                        "{}: tiling {tiling_id} of op {op_id} has no node {node_id}",
                        at()
                    ),
                )
                .with_nodes(vec![(op_id, node_id)]),
            );
            return;
        };
        self.r.op.push(op);
        self.r.local.push(local);
        self.r.start.push(start);
        self.r.core.push(core);
    }

    /// The schedule the rows make, when they account for every node once.
    fn finish(self) -> ReadOutcome {
        let Resolver {
            inst,
            mut op_tiling,
            r,
            mut bad,
        } = self;
        empty_tilings_for_ops_without_rows(inst, &mut op_tiling, &mut bad);
        // Node index of each op's first node; ops left without a tiling
        // (already reported) take no room.
        let lib = &inst.library;
        let mut base = Vec::with_capacity(op_tiling.len() + 1);
        let mut acc = 0u64;
        for &t in &op_tiling {
            base.push(acc);
            if t != NONE {
                acc += u64::from(lib.tilings[t as usize].n_nodes);
            }
        }
        let rows = r.count;
        if (r.op.len() as u64) < acc {
            // Fewer rows than nodes: incomplete, so no schedule comes out of
            // it and nothing is scattered per node. The rows, sorted by
            // node, give the same violations in the same order, in memory
            // and time that follow the rows (before: a table of every node
            // the chosen tilings declare, 4.3 GB and 277 s for one row per
            // op of 10^5 ops of 10^4 nodes).
            incomplete(inst, &op_tiling, &r.op, &r.local, &mut bad);
            return ReadOutcome {
                schedule: None,
                violations: bad,
                rows,
            };
        }
        let (start, core) = scatter(inst, &op_tiling, &base, acc as usize, r, &mut bad);
        let schedule = bad.is_empty().then_some(Schedule {
            choice: op_tiling,
            start,
            core,
        });
        ReadOutcome {
            schedule,
            violations: bad,
            rows,
        }
    }
}

/// Ops without rows: legal only if the op can pick a tiling without nodes
/// (it then takes it); otherwise a structure violation.
fn empty_tilings_for_ops_without_rows(
    inst: &Instance,
    op_tiling: &mut [u32],
    bad: &mut Violations,
) {
    let lib = &inst.library;
    for (op, t) in op_tiling.iter_mut().enumerate() {
        if *t != NONE {
            continue;
        }
        let o = &inst.graph.ops[op];
        let empty = lib.groups[o.group as usize]
            .tilings
            .iter()
            .copied()
            .find(|&t| lib.tilings[t as usize].n_nodes == 0 && lib.tilings[t as usize].is_usable());
        match empty {
            Some(e) => *t = e,
            None => bad.push(Violation::new(
                Rule::Structure,
                format!("op {} has no rows in the schedule", o.id),
            )),
        }
    }
}

/// Rows scattered to node indices (`base[op]` + local), each node exactly
/// once: a second row for a node and a node without a row are structure
/// violations. Returns starts and core ids per node (`NONE`: no row).
fn scatter(
    inst: &Instance,
    op_tiling: &[u32],
    base: &[u64],
    n: usize,
    r: Rows,
    bad: &mut Violations,
) -> (Vec<u64>, Vec<u32>) {
    let (lib, graph) = (&inst.library, &inst.graph);
    let mut start = vec![0u64; n];
    let mut core = vec![NONE; n];
    for k in 0..r.op.len() {
        let v = (base[r.op[k] as usize] + u64::from(r.local[k])) as usize;
        if core[v] != NONE {
            let o = r.op[k] as usize;
            let node =
                lib.node_id[(lib.tilings[op_tiling[o] as usize].first_node + r.local[k]) as usize];
            bad.push(
                Violation::new(
                    Rule::Structure,
                    format!("op {} node {node} has more than one row", graph.ops[o].id),
                )
                .with_nodes(vec![(graph.ops[o].id, node)]),
            );
            continue;
        }
        start[v] = r.start[k];
        // Core ids equal to NONE are out of range for every core type anyway
        // (at most 2^20 cores); keep them distinguishable from "no row".
        core[v] = r.core[k].min(NONE - 1);
    }
    drop(r);
    for (op, &t) in op_tiling.iter().enumerate() {
        if t == NONE {
            continue;
        }
        let tl = &lib.tilings[t as usize];
        for l in 0..tl.n_nodes {
            if core[(base[op] + u64::from(l)) as usize] == NONE {
                let node = lib.node_id[(tl.first_node + l) as usize];
                bad.push(
                    Violation::new(
                        Rule::Structure,
                        format!(
                            "op {} node {node} (tiling {}) has no row in the schedule",
                            graph.ops[op].id, tl.id
                        ),
                    )
                    .with_nodes(vec![(graph.ops[op].id, node)]),
                );
            }
        }
    }
    (start, core)
}

/// The structural violations of rows that do not cover every node (see
/// `read_schedule_until`): rows naming a node already named, in row order,
/// then nodes without a row, op by op in node order, exactly as the
/// per-node scatter reports them. Once no more detail is kept, an op's
/// missing nodes are counted without visiting them.
fn incomplete(
    inst: &Instance,
    op_tiling: &[u32],
    r_op: &[u32],
    r_local: &[u32],
    bad: &mut Violations,
) {
    let lib = &inst.library;
    let graph = &inst.graph;
    let mut idx: Vec<(u32, u32, u32)> = (0..r_op.len())
        .map(|k| (r_op[k], r_local[k], k as u32))
        .collect();
    idx.sort_unstable();
    // Every row after the first (in row order) of its node is a duplicate.
    let mut dups: Vec<u32> = idx
        .windows(2)
        .filter(|w| (w[0].0, w[0].1) == (w[1].0, w[1].1))
        .map(|w| w[1].2)
        .collect();
    dups.sort_unstable();
    for k in dups {
        let o = r_op[k as usize] as usize;
        let node = lib.node_id
            [(lib.tilings[op_tiling[o] as usize].first_node + r_local[k as usize]) as usize];
        bad.push(
            Violation::new(
                Rule::Structure,
                format!("op {} node {node} has more than one row", graph.ops[o].id),
            )
            .with_nodes(vec![(graph.ops[o].id, node)]),
        );
    }
    idx.dedup_by_key(|x| (x.0, x.1));
    let mut j = 0;
    for (op, &t) in op_tiling.iter().enumerate() {
        let from = j;
        while j < idx.len() && idx[j].0 == op as u32 {
            j += 1;
        }
        if t == NONE {
            continue;
        }
        let mine = &idx[from..j];
        let tl = &lib.tilings[t as usize];
        let mut missing = u64::from(tl.n_nodes) - mine.len() as u64;
        let mut p = 0;
        let mut l = 0;
        while missing > 0 {
            if bad.is_full() {
                bad.count_more(Rule::Structure, missing);
                break;
            }
            while p < mine.len() && mine[p].1 < l {
                p += 1;
            }
            if p < mine.len() && mine[p].1 == l {
                l += 1;
                continue;
            }
            let node = lib.node_id[(tl.first_node + l) as usize];
            bad.push(
                Violation::new(
                    Rule::Structure,
                    format!(
                        "op {} node {node} (tiling {}) has no row in the schedule",
                        graph.ops[op].id, tl.id
                    ),
                )
                .with_nodes(vec![(graph.ops[op].id, node)]),
            );
            missing -= 1;
            l += 1;
        }
    }
}

/// Writes `sched` as one line `[[OpId,Tiling,NodeId,Start,CoreId],...]` plus a newline.
pub fn write_schedule(
    g: &crate::graph::NodeGraph,
    sched: &Schedule,
    w: impl Write,
) -> std::io::Result<()> {
    write_rows(rows_of(g, sched), w)
}

/// Writes rows in the output format, one line plus a newline.
pub fn write_rows(rows: impl IntoIterator<Item = Row>, mut w: impl Write) -> std::io::Result<()> {
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 16);
    buf.push(b'[');
    for (k, row) in rows.into_iter().enumerate() {
        if k > 0 {
            buf.push(b',');
        }
        let (op, tiling, node, start, core) = row;
        buf.push(b'[');
        push_u64(&mut buf, u64::from(op));
        buf.push(b',');
        push_u64(&mut buf, u64::from(tiling));
        buf.push(b',');
        push_u64(&mut buf, u64::from(node));
        buf.push(b',');
        push_u64(&mut buf, start);
        buf.push(b',');
        push_u64(&mut buf, u64::from(core));
        buf.push(b']');
        if buf.len() > (1 << 16) - 128 {
            w.write_all(&buf)?;
            buf.clear();
        }
    }
    buf.extend_from_slice(b"]\n");
    w.write_all(&buf)?;
    w.flush()
}

/// The rows of `sched` in the order `write_schedule` writes them: op by op,
/// each op's nodes in node order.
pub fn rows_of<'a>(
    g: &'a crate::graph::NodeGraph,
    sched: &'a Schedule,
) -> impl Iterator<Item = Row> + 'a {
    (0..g.n_ops() as u32).flat_map(move |op| {
        let op_id = g.inst.graph.ops[op as usize].id;
        let tiling = g.tiling_id(op);
        g.op_nodes(op).map(move |v| {
            (
                op_id,
                tiling,
                g.label(v).1,
                sched.start[v as usize],
                sched.core[v as usize],
            )
        })
    })
}
