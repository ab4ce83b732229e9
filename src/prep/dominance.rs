//! Tiling dominance: the one rule by which engines drop tilings that cannot
//! do better than another tiling of the same op (models/sat.md §1).
//!
//! Tiling `a` dominates `b` when every schedule using `b` stays legal, with
//! the same starts and cores, after `b` is replaced by `a`: `a` has no node
//! at all (an empty tiling: its nodes, and the op edges through it, vanish,
//! problem.md §6), or `a` and `b` have the same nodes, edges and core types
//! and each node of `a` lasts no longer and demands no more of every memory
//! type. An optimal schedule therefore exists among the undominated tilings.

use crate::instance::{Instance, TypeIdx};

/// The candidate tilings of every op (`candidates`), indexed by op.
pub fn candidates_of_every_op(inst: &Instance) -> Vec<Vec<u32>> {
    (0..inst.graph.n_ops() as u32)
        .map(|o| candidates(inst, o))
        .collect()
}

/// Candidate tilings of `op`: its usable tilings without those dominated by
/// another (models/sat.md §1, "Dominance"; the one rule every engine uses): an empty tiling dominates every tiling;
/// otherwise `a` dominates `b` when both have the same nodes, edges and core
/// types, and each node of `a` lasts no longer and demands no more of every
/// memory type than the same node of `b`. Of identical tilings the first is kept.
pub fn candidates(inst: &Instance, op: u32) -> Vec<u32> {
    let all: Vec<u32> = inst.usable_tilings(op).collect();
    if let Some(&e) = all
        .iter()
        .find(|&&t| inst.library.tilings[t as usize].n_nodes == 0)
    {
        return vec![e];
    }
    let mut keep = Vec::new();
    'outer: for (i, &b) in all.iter().enumerate() {
        for (j, &a) in all.iter().enumerate() {
            if i != j && dominates(inst, a, b) && (j < i || !dominates(inst, b, a)) {
                continue 'outer;
            }
        }
        keep.push(b);
    }
    keep
}

/// Whether tiling `a` dominates tiling `b` (same structure, no worse node by node).
pub fn dominates(inst: &Instance, a: u32, b: u32) -> bool {
    let lib = &inst.library;
    let (ta, tb) = (&lib.tilings[a as usize], &lib.tilings[b as usize]);
    if ta.n_nodes != tb.n_nodes {
        return false;
    }
    let n_mem = inst.platform.mems.len() as TypeIdx;
    for l in 0..ta.n_nodes {
        let (va, vb) = (ta.first_node + l, tb.first_node + l);
        if lib.node_core[va as usize] != lib.node_core[vb as usize]
            || lib.node_dur[va as usize] > lib.node_dur[vb as usize]
            || lib.succs(va) != lib.succs(vb)
        {
            return false;
        }
        for m in 0..n_mem {
            if lib.demand(va, m) > lib.demand(vb, m) {
                return false;
            }
        }
    }
    true
}
