//! Topological order of a DAG, written once: the parser (which also detects
//! cycles with it), the op graph, each tiling's subgraph and the node graph
//! all order their nodes here.
//!
//! This module sits below `instance` (the parser uses it), so it knows nothing
//! of the problem: a graph is its in-degrees and a successor function.

/// Kahn's algorithm, first in first out. The seeds (nodes of in-degree 0)
/// are `order[from..]` on entry; on return `order[from..]` holds every node
/// reachable from them whose predecessors are all placed, `indeg` (in-degree
/// of every node on entry) consumed. Nodes on or behind a cycle are not placed
/// and keep `indeg > 0`: a caller that needs a full order compares the count
/// placed with the node count. O(nodes + edges).
pub fn kahn_from<'a, F>(indeg: &mut [u32], order: &mut Vec<u32>, from: usize, succs: F)
where
    F: Fn(u32) -> &'a [u32],
{
    let mut head = from;
    while head < order.len() {
        let v = order[head];
        head += 1;
        for &w in succs(v) {
            indeg[w as usize] -= 1;
            if indeg[w as usize] == 0 {
                order.push(w);
            }
        }
    }
}

/// Kahn's order of nodes `0..indeg.len()` (seeds: every node of in-degree 0, in
/// index order). `indeg` is consumed as in [`kahn_from`].
pub fn kahn<'a, F>(indeg: &mut [u32], succs: F) -> Vec<u32>
where
    F: Fn(u32) -> &'a [u32],
{
    let mut order = Vec::with_capacity(indeg.len());
    order.extend((0..indeg.len() as u32).filter(|&v| indeg[v as usize] == 0));
    kahn_from(indeg, &mut order, 0, succs);
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn succ_lists(n: usize, edges: &[(u32, u32)]) -> (Vec<Vec<u32>>, Vec<u32>) {
        let mut s = vec![Vec::new(); n];
        let mut indeg = vec![0u32; n];
        for &(a, b) in edges {
            s[a as usize].push(b);
            indeg[b as usize] += 1;
        }
        (s, indeg)
    }

    #[test]
    fn orders_a_dag_with_every_edge_forward() {
        let edges = [(3, 1), (1, 0), (3, 2), (2, 0), (4, 2)];
        let (s, mut indeg) = succ_lists(5, &edges);
        let order = kahn(&mut indeg, |v| &s[v as usize]);
        assert_eq!(order.len(), 5);
        let pos = |v: u32| order.iter().position(|&x| x == v).unwrap();
        for (a, b) in edges {
            assert!(pos(a) < pos(b), "{a} before {b} in {order:?}");
        }
        // First in first out from the sources in index order.
        assert_eq!(order, vec![3, 4, 1, 2, 0]);
    }

    #[test]
    fn leaves_a_cycle_and_what_lies_behind_it_unplaced() {
        // 0 -> 1 -> 2 -> 1 (cycle), 2 -> 3; 4 alone.
        let (s, mut indeg) = succ_lists(5, &[(0, 1), (1, 2), (2, 1), (2, 3)]);
        let order = kahn(&mut indeg, |v| &s[v as usize]);
        assert_eq!(order, vec![0, 4]);
        assert!(indeg[1] > 0 && indeg[2] > 0 && indeg[3] > 0);
    }
}
