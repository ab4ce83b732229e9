//! Core ids from start times, by interval partitioning: the exact engines
//! decide starts (at most CoreNum nodes of a type run at any instant) and
//! leave core ids to this one function.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// More nodes of one core type run at once than it has cores (an engine bug:
/// the caller reports it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoreShortage {
    /// Dense core type index.
    pub core_type: usize,
    /// When the first node that found no free core starts.
    pub at: u64,
}

impl std::fmt::Display for CoreShortage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "more nodes than cores of type index {} run at time {}",
            self.core_type, self.at
        )
    }
}

/// A core id for each node: nodes in start order (ties by index) take the
/// lowest-numbered core that became free, else the next never-used one, so
/// memory and time grow with the cores used, not with the declared counts
/// (up to 2^20 a type). `counts[c]` is the number of cores of type `c`; nodes
/// of duration 0 occupy no core and get id 0. Optimal for interval graphs: when
/// at most `counts[c]` nodes of type `c` overlap at every instant, every node
/// gets a core.
pub fn assign_cores(
    start: &[u64],
    dur: impl Fn(usize) -> u64,
    core_type: impl Fn(usize) -> usize,
    counts: &[u32],
) -> Result<Vec<u32>, CoreShortage> {
    let n = start.len();
    let mut core = vec![0u32; n];
    let mut order: Vec<u32> = (0..n as u32).filter(|&v| dur(v as usize) > 0).collect();
    order.sort_unstable_by_key(|&v| (start[v as usize], v));
    let n_types = counts.len();
    let mut busy: Vec<BinaryHeap<Reverse<(u128, u32)>>> = vec![BinaryHeap::new(); n_types];
    let mut free: Vec<BinaryHeap<Reverse<u32>>> = vec![BinaryHeap::new(); n_types];
    let mut fresh: Vec<u32> = vec![0; n_types];
    for v in order {
        let vi = v as usize;
        let c = core_type(vi);
        let s = u128::from(start[vi]);
        while let Some(&Reverse((e, k))) = busy[c].peek() {
            if e > s {
                break;
            }
            busy[c].pop();
            free[c].push(Reverse(k));
        }
        let k = match free[c].pop() {
            Some(Reverse(k)) => k,
            None if fresh[c] < counts[c] => {
                fresh[c] += 1;
                fresh[c] - 1
            }
            None => {
                return Err(CoreShortage {
                    core_type: c,
                    at: start[vi],
                });
            }
        };
        core[vi] = k;
        busy[c].push(Reverse((s + u128::from(dur(vi)), k)));
    }
    Ok(core)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_freed_cores_and_reports_a_shortage() {
        // One type, two cores: [0,3) [0,2) [2,5) [3,4): the third takes the
        // core freed at 2, the fourth the one freed at 3.
        let start = [0, 0, 2, 3];
        let dur = [3, 2, 3, 1];
        let core = assign_cores(&start, |v| dur[v], |_| 0, &[2]).unwrap();
        assert_eq!(core, vec![0, 1, 1, 0]);
        // One core only: the second node overlaps the first.
        let e = assign_cores(&start, |v| dur[v], |_| 0, &[1]).unwrap_err();
        assert_eq!(
            e,
            CoreShortage {
                core_type: 0,
                at: 0
            }
        );
        // Zero durations need no core.
        assert_eq!(
            assign_cores(&[5, 5], |_| 0, |_| 0, &[0]).unwrap(),
            vec![0, 0]
        );
    }
}
