//! The memory a serial order holds as it is built, node by node: the state
//! the fitted orders (`frugal::fitted_order`) and the searched ones
//! (`serial_search`) judge their moves against.
//!
//! Serially (each node starts when the one before it ends, nothing else
//! runs) a placed node `u` holds its demand of type `m` exactly while some
//! successor demanding `m` is unplaced: problem.md §4.4 holds it until its
//! last such successor starts, and with none it is freed at its end, before
//! the next node starts. So the state is, per node and type, the unplaced
//! successors demanding that type (`pending`), per node its unplaced
//! predecessors, and per type the amount held. Zero demands are not stored
//! (the reader drops them: problem.md §6, they extend no hold), so every
//! memory entry of a node is a demand.
//!
//! A *joint start* of ready nodes (no edge among them) starts them at one
//! instant: a holder whose every pending successor of a type is among them
//! no longer counts at that instant (half-open holds), so the group needs,
//! per type, what is held less those releases plus its own demands.
//! Placing the group's nodes one after the other leaves the same state as
//! placing them at once (a release depends only on which successors are
//! placed), and `unplace` is the exact reverse of `place`.

use crate::graph::NodeGraph;

/// One holder's cell in a joint start: `cell = holder * n_mem + m`, the
/// holder's demand of `m`, and how many of its pending successors
/// demanding `m` the group holds.
#[derive(Clone, Copy, Debug)]
pub(super) struct HandOver {
    pub(super) cell: usize,
    pub(super) mem: usize,
    pub(super) demand: u64,
    pub(super) taken: u32,
}

pub(super) struct SerialMemory<'g, 'a> {
    g: &'g NodeGraph<'a>,
    n_mem: usize,
    caps: Vec<u128>,
    cores: Vec<u64>,
    /// `pending[v * n_mem + m]`: unplaced successors of `v` demanding `m`.
    pending: Vec<u32>,
    npred: Vec<u32>,
    placed: Vec<bool>,
    held: Vec<u128>,
    /// Scratch: a release per type.
    freed: Vec<u128>,
}

impl<'g, 'a> SerialMemory<'g, 'a> {
    /// The empty list's state.
    pub(super) fn new(g: &'g NodeGraph<'a>) -> Self {
        let n = g.n_nodes();
        let n_mem = g.inst.platform.mems.len();
        let mut pending = vec![0; n * n_mem];
        let mut npred = vec![0; n];
        for v in 0..n as u32 {
            g.for_each_succ(v, |z| {
                npred[z as usize] += 1;
                for e in g.mems(z) {
                    pending[v as usize * n_mem + e.mem as usize] += 1;
                }
            });
        }
        SerialMemory {
            g,
            n_mem,
            caps: g.inst.platform.mem_sizes(),
            cores: g
                .inst
                .platform
                .cores
                .iter()
                .map(|c| u64::from(c.count))
                .collect(),
            pending,
            npred,
            placed: vec![false; n],
            held: vec![0; n_mem],
            freed: vec![0; n_mem],
        }
    }

    pub(super) fn graph(&self) -> &'g NodeGraph<'a> {
        self.g
    }

    pub(super) fn n_mem(&self) -> usize {
        self.n_mem
    }

    pub(super) fn caps(&self) -> &[u128] {
        &self.caps
    }

    pub(super) fn held(&self) -> &[u128] {
        &self.held
    }

    pub(super) fn is_placed(&self, v: u32) -> bool {
        self.placed[v as usize]
    }

    /// Unplaced predecessors of `v`.
    pub(super) fn npred(&self, v: u32) -> u32 {
        self.npred[v as usize]
    }

    /// Unplaced successors of `v` demanding `m`.
    pub(super) fn pending(&self, v: u32, m: usize) -> u32 {
        self.pending[v as usize * self.n_mem + m]
    }

    /// The pending count of a holder's cell (`HandOver::cell`).
    pub(super) fn pending_cell(&self, cell: usize) -> u32 {
        self.pending[cell]
    }

    /// What starting `v` releases, per type: the demand of each predecessor
    /// for which `v` is the last unplaced successor demanding that type.
    fn release_of(&mut self, v: u32) -> &[u128] {
        let g = self.g;
        let n_mem = self.n_mem;
        self.freed.fill(0);
        g.for_each_pred(v, |u| {
            for e in g.mems(v) {
                let m = e.mem as usize;
                if self.pending[u as usize * n_mem + m] == 1 {
                    self.freed[m] += u128::from(g.demand(u, e.mem));
                }
            }
        });
        &self.freed
    }

    /// Whether `v` (ready) alone fits now: beside the holds open, after
    /// those its start releases.
    pub(super) fn fits_alone(&mut self, v: u32) -> bool {
        self.release_of(v);
        self.g.mems(v).iter().all(|d| self.fits_after_release(d))
    }

    /// The types `v` (ready) lacks room of to start alone now.
    pub(super) fn lacks(&mut self, v: u32) -> Vec<usize> {
        self.release_of(v);
        self.g
            .mems(v)
            .iter()
            .filter(|d| !self.fits_after_release(d))
            .map(|d| d.mem as usize)
            .collect()
    }

    /// Whether demand `d` fits beside the holds open less `freed`.
    fn fits_after_release(&self, d: &crate::instance::MemDemand) -> bool {
        let m = d.mem as usize;
        self.held[m] - self.freed[m] + u128::from(d.amount) <= self.caps[m]
    }

    /// The joint start that releases `u`'s hold of type `m` at once (`of`
    /// = `Some(m)`: every unplaced successor of `u` demanding `m`), or all
    /// of `u`'s holds (`None`: every unplaced successor), sorted, into
    /// `group`; false where one of them is not ready. The fitted orders
    /// (`frugal::joint_start`) try the first, the searched ones
    /// (`serial_search`) both, so the exhaustive search decides a list
    /// wherever a fitted order finds one.
    pub(super) fn release_group(
        &self,
        u: u32,
        of: Option<crate::instance::TypeIdx>,
        group: &mut Vec<u32>,
    ) -> bool {
        let g = self.g;
        group.clear();
        let mut whole = true;
        g.for_each_succ(u, |z| {
            if !self.placed[z as usize] && of.is_none_or(|m| g.mems(z).iter().any(|e| e.mem == m)) {
                whole &= self.npred[z as usize] == 0;
                group.push(z);
            }
        });
        group.sort_unstable();
        group.dedup();
        whole
    }

    /// The holders' cells a joint start of `set` (ready nodes) counts
    /// down (those of predecessors demanding the type: the others hold
    /// nothing), each with how many of its pending successors `set` holds.
    pub(super) fn hand_overs(&self, set: &[u32]) -> Vec<HandOver> {
        let g = self.g;
        let mut cells: Vec<HandOver> = Vec::new();
        for &v in set {
            g.for_each_pred(v, |u| {
                for e in g.mems(v) {
                    // A predecessor without a demand of the type holds none.
                    let demand = g.demand(u, e.mem);
                    if demand > 0 {
                        cells.push(HandOver {
                            cell: u as usize * self.n_mem + e.mem as usize,
                            mem: e.mem as usize,
                            demand,
                            taken: 1,
                        });
                    }
                }
            });
        }
        // Few entries (one node, or a group with few holders): merged by a
        // scan, cheaper than a sort; many: sorted, O(k log k).
        let mut out: Vec<HandOver> = Vec::with_capacity(cells.len());
        if cells.len() <= 64 {
            for h in cells {
                match out.iter_mut().find(|o| o.cell == h.cell) {
                    Some(o) => o.taken += 1,
                    None => out.push(h),
                }
            }
        } else {
            cells.sort_unstable_by_key(|h| h.cell);
            for run in cells.chunk_by(|a, b| a.cell == b.cell) {
                out.push(HandOver {
                    taken: run.len() as u32,
                    ..run[0]
                });
            }
        }
        out
    }

    /// Whether `set` (ready nodes, `hand_overs` its hand-overs) may start
    /// jointly now: within the cores of each type, and per type what is
    /// held, less the holds whose every pending successor is in `set`,
    /// plus `set`'s demands, within the size.
    pub(super) fn fits_jointly(&self, set: &[u32], hand_overs: &[HandOver]) -> bool {
        let g = self.g;
        let mut per_core = vec![0u64; self.cores.len()];
        for &v in set {
            let c = usize::from(g.core[v as usize]);
            per_core[c] += 1;
            if per_core[c] > self.cores[c] {
                return false;
            }
        }
        let mut need = self.held.clone();
        for h in hand_overs {
            if self.pending[h.cell] == h.taken {
                need[h.mem] -= u128::from(h.demand);
            }
        }
        for &v in set {
            for e in g.mems(v) {
                need[e.mem as usize] += u128::from(e.amount);
            }
        }
        (0..self.n_mem).all(|m| need[m] <= self.caps[m])
    }

    /// Places `v` (ready; alone or as one node of a joint start),
    /// calling `enabled` on each successor it makes ready.
    pub(super) fn place(&mut self, v: u32, mut enabled: impl FnMut(u32)) {
        let g = self.g;
        let n_mem = self.n_mem;
        self.release_of(v);
        for m in 0..n_mem {
            self.held[m] -= self.freed[m];
        }
        g.for_each_pred(v, |u| {
            for e in g.mems(v) {
                self.pending[u as usize * n_mem + e.mem as usize] -= 1;
            }
        });
        for e in g.mems(v) {
            if self.pending[v as usize * n_mem + e.mem as usize] > 0 {
                self.held[e.mem as usize] += u128::from(e.amount);
            }
        }
        self.placed[v as usize] = true;
        g.for_each_succ(v, |z| {
            self.npred[z as usize] -= 1;
            if self.npred[z as usize] == 0 {
                enabled(z);
            }
        });
    }

    /// Undoes `place(v)`, `v` the last node placed, calling `disabled` on
    /// each successor that was ready.
    pub(super) fn unplace(&mut self, v: u32, mut disabled: impl FnMut(u32)) {
        let g = self.g;
        let n_mem = self.n_mem;
        g.for_each_succ(v, |z| {
            if self.npred[z as usize] == 0 {
                disabled(z);
            }
            self.npred[z as usize] += 1;
        });
        self.placed[v as usize] = false;
        for e in g.mems(v) {
            if self.pending[v as usize * n_mem + e.mem as usize] > 0 {
                self.held[e.mem as usize] -= u128::from(e.amount);
            }
        }
        g.for_each_pred(v, |u| {
            for e in g.mems(v) {
                self.pending[u as usize * n_mem + e.mem as usize] += 1;
            }
        });
        self.release_of(v);
        for m in 0..n_mem {
            self.held[m] += self.freed[m];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Node 1 (5 of memory 0) precedes node 2 of the same op. Where node
    /// 2's entry for memory 0 is 0, it is no demand (problem.md §6): node
    /// 1's hold ends at its end, so nothing is held once it is placed;
    /// where it is 3, node 1 holds 5 until node 2 starts. `unplace` restores
    /// each state exactly.
    #[test]
    fn a_zero_entry_extends_no_hold_and_unplace_reverses_place() {
        for (second, held_after_first) in [(0, 0), (3, 5)] {
            let text = format!(
                "SetSocInfo([[0,1]],[[0,10]])\n\
                 AddOpInfo(1,1,0,[[1,2]],[[1,0,1],[2,0,1]],[[1,0,5],[2,0,{second}]])\n\
                 GetInferenceScheResult([],[[1,1,1]])\n"
            );
            let inst = crate::instance::parse_reader(text.as_bytes(), "f.txt").expect("parses");
            let g = NodeGraph::new(&inst, vec![0]).expect("a graph");
            let mut s = SerialMemory::new(&g);
            assert!(s.fits_alone(0));
            let mut enabled = Vec::new();
            s.place(0, |z| enabled.push(z));
            assert_eq!(enabled, vec![1]);
            assert_eq!(s.held(), &[held_after_first][..], "second demand {second}");
            assert!(s.fits_alone(1));
            s.place(1, |_| {});
            assert_eq!(s.held(), &[0][..]);
            s.unplace(1, |_| {});
            assert_eq!(s.held(), &[held_after_first][..]);
            let mut disabled = Vec::new();
            s.unplace(0, |z| disabled.push(z));
            assert_eq!(disabled, vec![1]);
            assert_eq!(s.held(), &[0][..]);
            assert_eq!(s.pending(0, 0), u32::from(second > 0));
        }
    }
}
