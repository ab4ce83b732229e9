//! Streaming reader of the instance text format (problem.md §1) with the input
//! checks of problem.md §6. One pass over the bytes; each `AddOpInfo` line is
//! checked and appended to the flat library as soon as it ends.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::time::Instant;

use super::{
    CoreType, Group, Instance, Library, MemDemand, MemType, NO_CORE, Op, OpGraph, Platform, Tiling,
    Unusable,
};
use crate::error::{InputError, InputResult, Pos};
use crate::text::Lexer;

/// Most core or memory types we accept (dense indices are `u8`, 255 is a marker).
pub(super) const MAX_TYPES: usize = 254;
/// Most cores of one type we accept; the published limit is 999.
pub(super) const MAX_CORES_PER_TYPE: u32 = 1 << 20;

/// Reads an instance from a path, or from stdin when the path is `-`.
pub fn parse_file(path: &Path) -> InputResult<Instance> {
    parse_file_until(path, None)
}

/// As `parse_file`, giving up with `InputErrorKind::TimeLimit` (at the line
/// reached) once `deadline` passes; checked every buffer of input (1 MiB).
pub fn parse_file_until(path: &Path, deadline: Option<Instant>) -> InputResult<Instance> {
    let name = path.display().to_string();
    if name == "-" {
        return parse_reader_until(std::io::stdin().lock(), "<stdin>", deadline);
    }
    let f: File = crate::error::open_file(path)?;
    parse_reader_until(f, &name, deadline)
}

/// Reads an instance from any byte stream; `name` is used in messages.
pub fn parse_reader<R: Read>(r: R, name: &str) -> InputResult<Instance> {
    parse_reader_until(r, name, None)
}

/// As `parse_reader`, with a deadline (`parse_file_until`).
pub fn parse_reader_until<R: Read>(
    r: R,
    name: &str,
    deadline: Option<Instant>,
) -> InputResult<Instance> {
    let mut p = Parser {
        lx: Lexer::new(r, name).with_deadline(deadline),
        platform: None,
        lib: Library::default(),
        graph: None,
        warnings: Vec::new(),
        scratch: Scratch::default(),
    };
    p.lib.succ_off.push(0);
    p.lib.pred_off.push(0);
    p.lib.mem_off.push(0);
    p.run()?;
    let Parser {
        platform,
        lib,
        graph,
        warnings,
        ..
    } = p;
    let mut inst = Instance {
        name: name.to_string(),
        platform: platform.expect("checked in run"),
        library: lib,
        graph: graph.expect("checked in run"),
        warnings,
    };
    for op in inst.ops_without_usable_tiling() {
        let msg = inst.why_no_usable_tiling(op);
        inst.warnings
            .push(format!("{name}: instance is infeasible: {msg}"));
    }
    Ok(inst)
}

/// Per-line buffers, reused across `AddOpInfo` lines.
#[derive(Default)]
struct Scratch {
    edges: Vec<(u32, u32, Pos)>,
    run: Vec<(u32, u32, u64, Pos)>,
    mem: Vec<(u32, u32, u64, Pos)>,
    ids: Vec<(u32, u32)>,
    local_edges: Vec<(u32, u32)>,
    indeg: Vec<u32>,
    order: Vec<u32>,
    /// Targets of `local_edges`, in the same (CSR) order.
    targets: Vec<u32>,
    dist: Vec<u64>,
    mem_sum: Vec<(u32, u32, u128)>,
}

struct Parser<R: Read> {
    lx: Lexer<R>,
    platform: Option<Platform>,
    lib: Library,
    graph: Option<OpGraph>,
    warnings: Vec<String>,
    scratch: Scratch,
}

const CALLS: &str = "a call (SetSocInfo, AddOpInfo or GetInferenceScheResult)";

impl<R: Read> Parser<R> {
    fn run(&mut self) -> InputResult<()> {
        loop {
            if self.lx.peek_token()?.is_none() {
                break;
            }
            if self.graph.is_some() {
                return Err(self.lx.error(
                    "unexpected text after GetInferenceScheResult, which must be the last call",
                ));
            }
            let (name, pos) = self.lx.ident(CALLS)?;
            match name.as_str() {
                "SetSocInfo" => self.soc_info(pos)?,
                "AddOpInfo" => self.op_info(pos)?,
                "GetInferenceScheResult" => self.graph_info(pos)?,
                _ => {
                    return Err(self.lx.error_at(
                        pos,
                        format!("expected {CALLS}, found unknown call '{name}'"),
                    ));
                }
            }
        }
        if self.platform.is_none() {
            return Err(self
                .lx
                .error("unexpected end of input: expected SetSocInfo(...) as the first call"));
        }
        if self.graph.is_none() {
            return Err(self.lx.error(
                "unexpected end of input: expected GetInferenceScheResult(...) as the last call",
            ));
        }
        Ok(())
    }

    fn soc_info(&mut self, pos: Pos) -> InputResult<()> {
        if self.platform.is_some() {
            return Err(self.lx.error_at(
                pos,
                "SetSocInfo appears twice; an instance has one platform",
            ));
        }
        let lx = &mut self.lx;
        lx.expect(b'(', "after SetSocInfo")?;
        let mut cores: Vec<CoreType> = Vec::new();
        lx.list("the core list [[CoreType,CoreNum],...]", |lx| {
            let at = {
                lx.skip_ws()?;
                lx.pos()
            };
            let [id, count] = lx.tuple(
                "the core list",
                [("CoreType", true), ("CoreNum", true)],
            )?;
            let (id, count) = (id as u32, count as u32);
            if cores.iter().any(|c| c.id == id) {
                return Err(lx.error_at(at, format!("core type {id} is listed twice")));
            }
            if cores.len() == MAX_TYPES {
                return Err(lx.error_at(at, format!("more than {MAX_TYPES} core types")));
            }
            if count > MAX_CORES_PER_TYPE {
                return Err(lx.error_at(
                    at,
                    format!(
                        "core type {id} has {count} cores; at most {MAX_CORES_PER_TYPE} are supported (the published limit is 999)"
                    ),
                ));
            }
            cores.push(CoreType { id, count });
            Ok(())
        })?;
        lx.expect(
            b',',
            "between the core list and the memory list of SetSocInfo",
        )?;
        let mut mems: Vec<MemType> = Vec::new();
        lx.list("the memory list [[MemType,MemSize],...]", |lx| {
            let at = {
                lx.skip_ws()?;
                lx.pos()
            };
            let [id, size] =
                lx.tuple("the memory list", [("MemType", true), ("MemSize", false)])?;
            let id = id as u32;
            if mems.iter().any(|m| m.id == id) {
                return Err(lx.error_at(at, format!("memory type {id} is listed twice")));
            }
            if mems.len() == MAX_TYPES {
                return Err(lx.error_at(at, format!("more than {MAX_TYPES} memory types")));
            }
            mems.push(MemType { id, size });
            Ok(())
        })?;
        lx.expect(b')', "to close SetSocInfo")?;
        self.platform = Some(Platform { cores, mems });
        Ok(())
    }

    /// One `AddOpInfo`: a tiling of an (OpType, Shape) group, its subgraph
    /// checked (node ids, edges, acyclic) and stored in the flat library.
    fn op_info(&mut self, pos: Pos) -> InputResult<()> {
        let Some(platform) = self.platform.as_ref() else {
            return Err(self.lx.error_at(
                pos,
                "AddOpInfo before SetSocInfo; SetSocInfo must come first",
            ));
        };
        let s = &mut self.scratch;
        let (op_type, shape, tiling_id) = read_op_lists(&mut self.lx, s)?;
        let e = At {
            file: self.lx.file(),
            call: (op_type, shape, tiling_id),
        };
        let lib = &mut self.lib;
        let g = group_for(lib, (op_type, shape, tiling_id), pos, &e)?;
        let n = s.run.len();
        let first_node = lib.node_id.len();
        if first_node + n >= u32::MAX as usize {
            return Err(e.err(pos, "the library exceeds 4e9 nodes".into()));
        }
        let ids = resolve_ids(s, &e)?;
        local_edges(s, &ids, &e)?;
        let succ_start = order_subgraph(s, n, pos, &e)?;
        let mut usable = node_attributes(platform, lib, s);
        memory_demands(platform, lib, s, &ids, &mut usable, pos, &e)?;
        let pred_cnt = adjacency(lib, s, n, &succ_start, pos, &e)?;
        let (sources, sinks, critical_path) =
            ends_and_critical_path(lib, s, &succ_start, &pred_cnt);
        let id_a = lib.id_index.len() as u32;
        if !ids.dense {
            lib.id_index.extend_from_slice(&s.ids);
        }
        let id_b = lib.id_index.len() as u32;
        if let Err(why) = &usable {
            self.warnings.push(format!(
                "{}:{}: tiling {tiling_id} of op type {op_type}, shape {shape} is unusable and will not be chosen: {why}",
                e.file, pos.line
            ));
        }
        let t = lib.tilings.len() as u32;
        lib.tilings.push(Tiling {
            op_type,
            shape,
            id: tiling_id,
            first_node: first_node as u32,
            n_nodes: n as u32,
            sources,
            sinks,
            critical_path,
            usable,
            pos,
            dense_ids: if ids.dense { Some(ids.base) } else { None },
            id_index: (id_a, id_b),
        });
        lib.groups[g as usize].tilings.push(t);
        Ok(())
    }

    /// `GetInferenceScheResult`: the op graph, its ids resolved and checked
    /// acyclic.
    fn graph_info(&mut self, pos: Pos) -> InputResult<()> {
        if self.platform.is_none() {
            return Err(self.lx.error_at(
                pos,
                "GetInferenceScheResult before SetSocInfo; SetSocInfo must come first",
            ));
        }
        let lx = &mut self.lx;
        let (edges, ops, op_pos) = read_graph_lists(lx, &self.lib)?;
        if ops.len() >= u32::MAX as usize {
            return Err(lx.error_at(pos, "more than 4e9 ops"));
        }
        let id_index = op_id_index(lx, &ops, &op_pos)?;
        let mut pairs = op_pairs(lx, &edges, &id_index)?;
        drop(edges);
        pairs.sort_unstable();
        pairs.dedup();
        let n = ops.len();
        let (succ_off, succ) = csr(n, pairs.iter().map(|&(a, b)| (a, b)));
        let (pred_off, pred) = csr(n, pairs.iter().map(|&(a, b)| (b, a)));
        drop(pairs);
        check_acyclic(lx, pos, &ops, (&succ_off, &succ), &pred_off)?;
        self.graph = Some(OpGraph {
            ops,
            succ_off,
            succ,
            pred_off,
            pred,
            id_index,
            pos,
        });
        Ok(())
    }
}

/// Op edges with positions, ops, and each op's position.
type GraphLists = (Vec<(u32, u32, Pos)>, Vec<Op>, Vec<Pos>);

/// Reads `([[PrevOp,NextOp],...],[[OpId,OpType,Shape],...])`; an op whose
/// (OpType, Shape) has no `AddOpInfo` is an error at its position.
fn read_graph_lists<R: Read>(lx: &mut Lexer<R>, lib: &Library) -> InputResult<GraphLists> {
    lx.expect(b'(', "after GetInferenceScheResult")?;
    let mut edges: Vec<(u32, u32, Pos)> = Vec::new();
    lx.list("the op edges [[PrevOp,NextOp],...]", |lx| {
        lx.skip_ws()?;
        let at = lx.pos();
        let [a, b] = lx.tuple("the op edges", [("PrevOp", true), ("NextOp", true)])?;
        edges.push((a as u32, b as u32, at));
        Ok(())
    })?;
    lx.expect(b',', "after the op edges in GetInferenceScheResult")?;
    let mut ops: Vec<Op> = Vec::new();
    let mut op_pos: Vec<Pos> = Vec::new();
    lx.list("the op list [[OpId,OpType,Shape],...]", |lx| {
        lx.skip_ws()?;
        let at = lx.pos();
        let [id, op_type, shape] = lx.tuple(
            "the op list",
            [("OpId", true), ("OpType", true), ("Shape", true)],
        )?;
        let (id, op_type, shape) = (id as u32, op_type as u32, shape as u32);
        let Some(&group) = lib.group_of.get(&(op_type, shape)) else {
            return Err(lx.error_at(
                at,
                format!(
                    "op {id} has type {op_type} and shape {shape}, for which no AddOpInfo line exists"
                ),
            ));
        };
        ops.push(Op {
            id,
            op_type,
            shape,
            group,
        });
        op_pos.push(at);
        Ok(())
    })?;
    lx.expect(b')', "to close GetInferenceScheResult")?;
    Ok((edges, ops, op_pos))
}

/// `(op id, op index)` sorted by id (`OpGraph::id_index`).
pub(super) fn sorted_ids(ops: &[Op]) -> Vec<(u32, u32)> {
    let mut id_index: Vec<(u32, u32)> = ops
        .iter()
        .enumerate()
        .map(|(i, o)| (o.id, i as u32))
        .collect();
    id_index.sort_unstable();
    id_index
}

/// `(op id, op index)` sorted by id; an id listed twice is an error naming
/// both places.
fn op_id_index<R: Read>(lx: &Lexer<R>, ops: &[Op], op_pos: &[Pos]) -> InputResult<Vec<(u32, u32)>> {
    let id_index = sorted_ids(ops);
    if let Some(w) = id_index.windows(2).find(|w| w[0].0 == w[1].0) {
        let (first, again) = (op_pos[w[0].1 as usize], op_pos[w[1].1 as usize]);
        return Err(lx.error_at(
            again,
            format!(
                "op {} is listed twice (first at line {}, column {})",
                w[0].0, first.line, first.col
            ),
        ));
    }
    Ok(id_index)
}

/// Op edges as index pairs; unknown ids and self-loops are errors.
fn op_pairs<R: Read>(
    lx: &Lexer<R>,
    edges: &[(u32, u32, Pos)],
    id_index: &[(u32, u32)],
) -> InputResult<Vec<(u32, u32)>> {
    let index_of = |id: u32| {
        id_index
            .binary_search_by_key(&id, |&(i, _)| i)
            .ok()
            .map(|k| id_index[k].1)
    };
    let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(edges.len());
    for &(a, b, at) in edges {
        let ia = index_of(a).ok_or_else(|| {
            lx.error_at(
                at,
                format!("op edge [{a},{b}] names op {a}, which the op list does not contain"),
            )
        })?;
        let ib = index_of(b).ok_or_else(|| {
            lx.error_at(
                at,
                format!("op edge [{a},{b}] names op {b}, which the op list does not contain"),
            )
        })?;
        if ia == ib {
            return Err(lx.error_at(
                at,
                format!("op edge [{a},{b}] is a cycle (an op before itself)"),
            ));
        }
        pairs.push((ia, ib));
    }
    Ok(pairs)
}

/// Kahn over ops; leftovers lie on or behind a cycle, which is named.
fn check_acyclic<R: Read>(
    lx: &Lexer<R>,
    pos: Pos,
    ops: &[Op],
    (succ_off, succ): (&[u32], &[u32]),
    pred_off: &[u32],
) -> InputResult<()> {
    let n = ops.len();
    let mut indeg: Vec<u32> = (0..n).map(|i| pred_off[i + 1] - pred_off[i]).collect();
    let queue = crate::dag::kahn(&mut indeg, |v| {
        &succ[succ_off[v as usize] as usize..succ_off[v as usize + 1] as usize]
    });
    if queue.len() < n {
        let edges: Vec<(u32, u32)> = (0..n as u32)
            .flat_map(|a| {
                succ[succ_off[a as usize] as usize..succ_off[a as usize + 1] as usize]
                    .iter()
                    .map(move |&b| (a, b))
            })
            .collect();
        let cycle = find_cycle(&edges, succ_off, &indeg);
        let names: Vec<String> = cycle
            .iter()
            .map(|&i| ops[i as usize].id.to_string())
            .collect();
        return Err(lx.error_at(
            pos,
            format!("the op graph has a cycle: ops {}", names.join(" -> ")),
        ));
    }
    Ok(())
}

/// CSR from `(from, to)` pairs already sorted by `from` or not.
/// Where an `AddOpInfo` error is reported: the file and the call.
struct At<'a> {
    file: &'a str,
    /// The call's OpType, Shape and Tiling (formatted only for an error:
    /// a library may have millions of calls).
    call: (u32, u32, u32),
}

impl At<'_> {
    fn err(&self, at: Pos, msg: String) -> InputError {
        let (op_type, shape, tiling_id) = self.call;
        InputError::new(
            self.file,
            at,
            format!("AddOpInfo({op_type},{shape},{tiling_id},...): {msg}"),
        )
    }
}

/// Reads `(OpType,Shape,Tiling,[edges],[run detail],[memory detail])` into
/// the scratch lists, each entry with its position.
fn read_op_lists<R: Read>(lx: &mut Lexer<R>, s: &mut Scratch) -> InputResult<(u32, u32, u32)> {
    lx.expect(b'(', "after AddOpInfo")?;
    let op_type = lx.u32("OpType")?;
    lx.expect(b',', "after OpType in AddOpInfo")?;
    let shape = lx.u32("Shape")?;
    lx.expect(b',', "after Shape in AddOpInfo")?;
    let tiling_id = lx.u32("Tiling")?;
    lx.expect(b',', "after Tiling in AddOpInfo")?;
    s.edges.clear();
    lx.list("the subgraph edges [[PrevNode,NextNode],...]", |lx| {
        lx.skip_ws()?;
        let at = lx.pos();
        let [a, b] = lx.tuple(
            "the subgraph edges",
            [("PrevNode", true), ("NextNode", true)],
        )?;
        s.edges.push((a as u32, b as u32, at));
        Ok(())
    })?;
    lx.expect(b',', "after the subgraph edges in AddOpInfo")?;
    s.run.clear();
    lx.list("the run detail [[Node,CoreType,ExecTime],...]", |lx| {
        lx.skip_ws()?;
        let at = lx.pos();
        let [n, c, t] = lx.tuple(
            "the run detail",
            [("Node", true), ("CoreType", true), ("ExecTime", false)],
        )?;
        s.run.push((n as u32, c as u32, t, at));
        Ok(())
    })?;
    lx.expect(b',', "after the run detail in AddOpInfo")?;
    s.mem.clear();
    lx.list("the memory detail [[Node,MemType,MemSize],...]", |lx| {
        lx.skip_ws()?;
        let at = lx.pos();
        let [n, m, z] = lx.tuple(
            "the memory detail",
            [("Node", true), ("MemType", true), ("MemSize", false)],
        )?;
        s.mem.push((n as u32, m as u32, z, at));
        Ok(())
    })?;
    lx.expect(b')', "to close AddOpInfo")?;
    Ok((op_type, shape, tiling_id))
}

/// The (OpType, Shape) group the tiling joins (made on first sight); a
/// repeated (OpType, Shape, Tiling) is an error naming the first line.
fn group_for(lib: &mut Library, key: (u32, u32, u32), pos: Pos, e: &At) -> InputResult<u32> {
    let (op_type, shape, tiling_id) = key;
    if let Some(&g) = lib.group_of.get(&(op_type, shape)) {
        if let Some(&t) = lib.groups[g as usize]
            .tilings
            .iter()
            .find(|&&t| lib.tilings[t as usize].id == tiling_id)
        {
            let first = lib.tilings[t as usize].pos.line;
            return Err(e.err(
                pos,
                format!("duplicate (OpType, Shape, Tiling); first defined on line {first}"),
            ));
        }
        return Ok(g);
    }
    let g = lib.groups.len() as u32;
    lib.groups.push(Group {
        op_type,
        shape,
        tilings: Vec::new(),
    });
    lib.group_of.insert((op_type, shape), g);
    Ok(g)
}

/// How the run detail's node ids map to local indices: dense (`base`,
/// `base + 1`, ... in order: no table) or through the sorted `Scratch::ids`.
struct LocalIds {
    dense: bool,
    base: u32,
    n: usize,
}

impl LocalIds {
    fn local(&self, ids: &[(u32, u32)], id: u32) -> Option<u32> {
        if self.dense {
            let l = id.checked_sub(self.base)?;
            ((l as usize) < self.n).then_some(l)
        } else {
            ids.binary_search_by_key(&id, |&(i, _)| i)
                .ok()
                .map(|k| ids[k].1)
        }
    }
}

/// Node ids to local indices; a node listed twice is an error.
fn resolve_ids(s: &mut Scratch, e: &At) -> InputResult<LocalIds> {
    let n = s.run.len();
    let base = s.run.first().map(|r| r.0);
    let dense = base.is_some_and(|b| {
        s.run
            .iter()
            .enumerate()
            .all(|(i, r)| u64::from(r.0) == u64::from(b) + i as u64)
    });
    s.ids.clear();
    if !dense {
        s.ids
            .extend(s.run.iter().enumerate().map(|(i, r)| (r.0, i as u32)));
        s.ids.sort_unstable();
        if let Some(w) = s.ids.windows(2).find(|w| w[0].0 == w[1].0) {
            let at = s.run[w[1].1 as usize].3;
            return Err(e.err(
                at,
                format!("node {} appears twice in the run detail", w[0].0),
            ));
        }
    }
    Ok(LocalIds {
        dense,
        base: base.unwrap_or(0),
        n,
    })
}

/// The subgraph's edges in local indices, sorted and deduplicated.
fn local_edges(s: &mut Scratch, ids: &LocalIds, e: &At) -> InputResult<()> {
    s.local_edges.clear();
    for &(a, b, at) in &s.edges {
        let la = ids.local(&s.ids, a).ok_or_else(|| {
            e.err(
                at,
                format!("edge [{a},{b}] names node {a}, which the run detail does not list"),
            )
        })?;
        let lb = ids.local(&s.ids, b).ok_or_else(|| {
            e.err(
                at,
                format!("edge [{a},{b}] names node {b}, which the run detail does not list"),
            )
        })?;
        if la == lb {
            return Err(e.err(
                at,
                format!("edge [{a},{b}] is a cycle (a node before itself)"),
            ));
        }
        s.local_edges.push((la, lb));
    }
    s.local_edges.sort_unstable();
    s.local_edges.dedup();
    Ok(())
}

/// A topological order of the subgraph into `Scratch::order` (Kahn; a node
/// left over lies on or behind a cycle, which is named). Returns the CSR
/// offsets of each local node's successors in `Scratch::local_edges`.
fn order_subgraph(s: &mut Scratch, n: usize, pos: Pos, e: &At) -> InputResult<Vec<u32>> {
    s.indeg.clear();
    s.indeg.resize(n, 0);
    for &(_, b) in &s.local_edges {
        s.indeg[b as usize] += 1;
    }
    // local_edges is sorted by source.
    let mut succ_start = vec![0u32; n + 1];
    for &(a, _) in &s.local_edges {
        succ_start[a as usize + 1] += 1;
    }
    for i in 0..n {
        succ_start[i + 1] += succ_start[i];
    }
    s.targets.clear();
    s.targets.extend(s.local_edges.iter().map(|&(_, b)| b));
    s.order.clear();
    s.order
        .extend((0..n as u32).filter(|&v| s.indeg[v as usize] == 0));
    let targets = &s.targets;
    crate::dag::kahn_from(&mut s.indeg, &mut s.order, 0, |v| {
        &targets[succ_start[v as usize] as usize..succ_start[v as usize + 1] as usize]
    });
    if s.order.len() < n {
        let cycle = find_cycle(&s.local_edges, &succ_start, &s.indeg);
        let names: Vec<String> = cycle
            .iter()
            .map(|&l| s.run[l as usize].0.to_string())
            .collect();
        return Err(e.err(
            pos,
            format!("the subgraph has a cycle: {}", names.join(" -> ")),
        ));
    }
    Ok(succ_start)
}

/// Node ids, core types and durations into the library; the first reason
/// the tiling cannot be used (a core type missing or without cores), if any.
fn node_attributes(platform: &Platform, lib: &mut Library, s: &Scratch) -> Result<(), Unusable> {
    let mut usable: Result<(), Unusable> = Ok(());
    for &(id, core, dur, _) in &s.run {
        let c = match platform.core_index(core) {
            Some(c) => {
                if platform.cores[c as usize].count == 0 && usable.is_ok() {
                    usable = Err(Unusable::ZeroCores {
                        node: id,
                        core_type: core,
                    });
                }
                c
            }
            None => {
                if usable.is_ok() {
                    usable = Err(Unusable::MissingCoreType {
                        node: id,
                        core_type: core,
                    });
                }
                NO_CORE
            }
        };
        lib.node_id.push(id);
        lib.node_core.push(c);
        lib.node_dur.push(dur);
    }
    usable
}

/// Memory demands: entries summed per (node, type), zeros dropped, stored
/// per node; a missing type or a demand above the size makes the tiling
/// unusable (the first reason is kept).
fn memory_demands(
    platform: &Platform,
    lib: &mut Library,
    s: &mut Scratch,
    ids: &LocalIds,
    usable: &mut Result<(), Unusable>,
    pos: Pos,
    e: &At,
) -> InputResult<()> {
    let n = s.run.len();
    s.mem_sum.clear();
    for &(id, m, size, at) in &s.mem {
        let l = ids.local(&s.ids, id).ok_or_else(|| {
            e.err(
                at,
                format!(
                    "memory entry [{id},{m},{size}] names node {id}, which the run detail does not list"
                ),
            )
        })?;
        if size > 0 {
            s.mem_sum.push((l, m, u128::from(size)));
        }
    }
    s.mem_sum.sort_unstable_by_key(|&(l, m, _)| (l, m));
    let mut k = 0;
    let mut per_node = vec![0u32; n + 1];
    let mem_base = lib.mem.len();
    while k < s.mem_sum.len() {
        let (l, m, mut total) = s.mem_sum[k];
        k += 1;
        while k < s.mem_sum.len() && s.mem_sum[k].0 == l && s.mem_sum[k].1 == m {
            total += s.mem_sum[k].2;
            k += 1;
        }
        let node = s.run[l as usize].0;
        match platform.mem_index(m) {
            None => {
                if usable.is_ok() {
                    *usable = Err(Unusable::MissingMemType { node, mem_type: m });
                }
            }
            Some(mi) => {
                let cap = platform.mems[mi as usize].size;
                if total > u128::from(cap) {
                    if usable.is_ok() {
                        *usable = Err(Unusable::TooMuchMemory {
                            node,
                            mem_type: m,
                            demand: total,
                            size: cap,
                        });
                    }
                } else {
                    per_node[l as usize + 1] += 1;
                    lib.mem.push(MemDemand {
                        mem: mi,
                        amount: total as u64,
                    });
                }
            }
        }
    }
    if lib.mem.len() >= u32::MAX as usize {
        return Err(e.err(pos, "the library exceeds 4e9 memory entries".into()));
    }
    for i in 0..n {
        per_node[i + 1] += per_node[i];
        lib.mem_off
            .push((mem_base + per_node[i + 1] as usize) as u32);
    }
    Ok(())
}

/// Successor and predecessor arrays (global CSR, local indices). Returns the
/// predecessor offsets within the tiling.
fn adjacency(
    lib: &mut Library,
    s: &Scratch,
    n: usize,
    succ_start: &[u32],
    pos: Pos,
    e: &At,
) -> InputResult<Vec<u32>> {
    let succ_base = lib.succ.len();
    if succ_base + s.local_edges.len() >= u32::MAX as usize {
        return Err(e.err(pos, "the library exceeds 4e9 edges".into()));
    }
    lib.succ.extend(s.local_edges.iter().map(|&(_, b)| b));
    for i in 0..n {
        lib.succ_off
            .push((succ_base + succ_start[i + 1] as usize) as u32);
    }
    let mut pred_cnt = vec![0u32; n + 1];
    for &(_, b) in &s.local_edges {
        pred_cnt[b as usize + 1] += 1;
    }
    for i in 0..n {
        pred_cnt[i + 1] += pred_cnt[i];
    }
    let pred_base = lib.pred.len();
    lib.pred.resize(pred_base + s.local_edges.len(), 0);
    let mut fill = pred_cnt.clone();
    for &(a, b) in &s.local_edges {
        lib.pred[pred_base + fill[b as usize] as usize] = a;
        fill[b as usize] += 1;
    }
    for i in 0..n {
        lib.pred_off
            .push((pred_base + pred_cnt[i + 1] as usize) as u32);
    }
    Ok(pred_cnt)
}

/// Sources and sinks (ranges into `Library::ends`) and the critical path.
fn ends_and_critical_path(
    lib: &mut Library,
    s: &mut Scratch,
    succ_start: &[u32],
    pred_cnt: &[u32],
) -> ((u32, u32), (u32, u32), u64) {
    let n = s.run.len();
    let src_a = lib.ends.len() as u32;
    lib.ends
        .extend((0..n as u32).filter(|&v| pred_cnt[v as usize] == pred_cnt[v as usize + 1]));
    let snk_a = lib.ends.len() as u32;
    lib.ends
        .extend((0..n as u32).filter(|&v| succ_start[v as usize] == succ_start[v as usize + 1]));
    let snk_b = lib.ends.len() as u32;
    s.dist.clear();
    s.dist.resize(n, 0);
    let mut critical_path = 0u64;
    for &v in &s.order {
        let v = v as usize;
        let end = s.dist[v].saturating_add(s.run[v].2);
        critical_path = critical_path.max(end);
        for &(_, b) in &s.local_edges[succ_start[v] as usize..succ_start[v + 1] as usize] {
            let d = &mut s.dist[b as usize];
            *d = (*d).max(end);
        }
    }
    ((src_a, snk_a), (snk_a, snk_b), critical_path)
}

pub(super) fn csr(
    n: usize,
    pairs: impl Iterator<Item = (u32, u32)> + Clone,
) -> (Vec<u32>, Vec<u32>) {
    let mut off = vec![0u32; n + 1];
    for (a, _) in pairs.clone() {
        off[a as usize + 1] += 1;
    }
    for i in 0..n {
        off[i + 1] += off[i];
    }
    let mut fill = off.clone();
    let mut out = vec![0u32; off[n] as usize];
    for (a, b) in pairs {
        out[fill[a as usize] as usize] = b;
        fill[a as usize] += 1;
    }
    (off, out)
}

/// After Kahn's algorithm, nodes with `indeg > 0` remain; every such node has a
/// remaining predecessor, so walking predecessors must revisit a node: a cycle.
/// `edges` is sorted by source and indexed by `succ_start`.
fn find_cycle(edges: &[(u32, u32)], succ_start: &[u32], indeg: &[u32]) -> Vec<u32> {
    let n = indeg.len();
    // A remaining predecessor for each remaining node.
    let mut pred = vec![u32::MAX; n];
    for a in 0..n {
        if indeg[a] == 0 {
            continue;
        }
        for &(_, b) in &edges[succ_start[a] as usize..succ_start[a + 1] as usize] {
            if indeg[b as usize] > 0 {
                pred[b as usize] = a as u32;
            }
        }
    }
    let start = (0..n).find(|&v| indeg[v] > 0).expect("a leftover node") as u32;
    let mut seen = vec![u32::MAX; n];
    let mut path = Vec::new();
    let mut v = start;
    while seen[v as usize] == u32::MAX {
        seen[v as usize] = path.len() as u32;
        path.push(v);
        v = pred[v as usize];
    }
    let mut cycle: Vec<u32> = path[seen[v as usize] as usize..].to_vec();
    cycle.reverse();
    cycle.push(cycle[0]);
    cycle
}
