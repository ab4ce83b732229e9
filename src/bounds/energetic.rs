//! Energetic reasoning (models/bounds.md §8): for a candidate makespan `T`,
//! every node has a window `[r, d)` from heads and tails, and within any
//! interval `[t1, t2)` it must run at least its *minimal intersection*, the
//! smaller overlap of its earliest and its latest placement. Summed over the
//! nodes of one core type (weight 1) or one memory type (weight: its demand,
//! held at least while it runs), the energy cannot exceed the capacity times
//! `t2 - t1`; where it does, no schedule has makespan `<= T`. An op with
//! several usable tilings contributes the least energy over its tilings.
//!
//! The bound is `1 + ` the largest `T` refuted: a refuted `T` refutes every
//! smaller makespan (a schedule of makespan `<= T - 1` is one of makespan
//! `<= T`), whatever the check says about other values.

use crate::instance::Instance;

/// Most parts (nodes over all usable tilings) of one resource the check
/// looks at.
pub const MAX_PARTS: usize = 400;

/// Most makespans tried (each by every resource).
pub const MAX_TRIES: usize = 16;

/// Most part-interval evaluations over the whole search (a check costs
/// `O(parts^3)`): the search is bounded by work, not by the clock, so its
/// value does not depend on the machine. About 0.1 s here.
pub const MAX_WORK: u64 = 60_000_000;

/// One node of one tiling, as the check sees it: earliest start `r` from
/// time 0, least time `q` from its end to the makespan, duration `p`, and
/// its weight on the resource.
#[derive(Clone, Copy, Debug)]
struct Part {
    r: u64,
    q: u64,
    p: u64,
    w: u64,
}

/// The energy of one resource: its capacity per instant and, per op, the
/// parts of each usable tiling (an op with one tiling has one list).
#[derive(Clone, Debug)]
pub struct Resource {
    pub name: String,
    cap: u128,
    ops: Vec<Vec<Vec<Part>>>,
}

/// Resources of the instance (core types, then memory types) with at most
/// `MAX_PARTS` parts each, from op heads and tails valid for every tiling.
/// `head` and `after` are the library's intra-tiling paths (`intra_paths`).
pub fn resources(
    inst: &Instance,
    cands: Option<&[Vec<u32>]>,
    op_head: &[u64],
    op_tail: &[u64],
    (head, after): &(Vec<u64>, Vec<u64>),
) -> Vec<Resource> {
    let lib = &inst.library;
    let mut out = Vec::new();
    let cores = inst.platform.cores.iter().enumerate().map(|(c, ct)| {
        (
            format!("core type {}", ct.id),
            u128::from(ct.count),
            Box::new(move |v: usize| u64::from(lib.node_core[v] as usize == c))
                as Box<dyn Fn(usize) -> u64 + '_>,
        )
    });
    let mems = inst.platform.mems.iter().enumerate().map(|(m, mt)| {
        (
            format!("memory type {}", mt.id),
            u128::from(mt.size),
            Box::new(move |v: usize| {
                lib.mems(v as u32)
                    .iter()
                    .filter(|d| d.mem as usize == m)
                    .map(|d| d.amount)
                    .sum()
            }) as Box<dyn Fn(usize) -> u64 + '_>,
        )
    });
    for (name, cap, weight) in cores.chain(mems) {
        let mut ops = Vec::new();
        let mut parts = 0usize;
        for op in 0..inst.graph.n_ops() as u32 {
            let (oh, ot) = (op_head[op as usize], op_tail[op as usize]);
            let mut alts: Vec<Vec<Part>> = Vec::new();
            for t in crate::bounds::combinatorial::tilings_of(inst, cands, op) {
                let mut alt = Vec::new();
                for v in lib.tilings[t as usize].nodes() {
                    let vi = v as usize;
                    let (w, p) = (weight(vi), lib.node_dur[vi]);
                    if w > 0 && p > 0 {
                        alt.push(Part {
                            r: oh.saturating_add(head[vi]),
                            q: ot.saturating_add(after[vi]),
                            p,
                            w,
                        });
                    }
                }
                alts.push(alt);
            }
            // A tiling with nothing on this resource makes the op's least
            // energy zero: the op adds nothing.
            if alts.is_empty() || alts.iter().any(|a| a.is_empty()) {
                continue;
            }
            parts += alts.iter().map(Vec::len).sum::<usize>();
            if parts > MAX_PARTS {
                break; // too large: not looked at (and not scanned further)
            }
            ops.push(alts);
        }
        if ops.is_empty() || parts > MAX_PARTS || cap == 0 {
            continue;
        }
        out.push(Resource { name, cap, ops });
    }
    out
}

/// The least overlap with `[t1, t2)` of a node of duration `p` that starts
/// within `[r, d - p]`: the overlap of a placement is unimodal in its start,
/// so its least value is at the earliest or the latest start.
fn min_overlap(r: u64, d: u64, p: u64, t1: u64, t2: u64) -> u64 {
    let at = |s: u64| (s + p).min(t2).saturating_sub(s.max(t1));
    at(r).min(at(d - p))
}

impl Resource {
    /// Whether energy proves that no schedule has makespan `<= t`: some
    /// interval needs more than the capacity, or some op has no tiling
    /// whose nodes fit their windows. Each part evaluated costs one unit of
    /// `work`; with none left the check stops, refuting nothing more.
    pub fn refutes(&self, t: u64, work: &mut u64) -> bool {
        // Windows for `t`; an alternative with an empty window is impossible.
        let fits = |a: &Part| a.r.saturating_add(a.p).saturating_add(a.q) <= t;
        // Per op, the tilings possible for `t` (chosen once, not per interval).
        let ops: Vec<Vec<&[Part]>> = self
            .ops
            .iter()
            .map(|alts| {
                alts.iter()
                    .filter(|alt| alt.iter().all(fits))
                    .map(Vec::as_slice)
                    .collect()
            })
            .collect();
        // Interval ends: earliest starts and ends, latest starts and ends
        // (the points where some minimal intersection changes slope).
        let mut starts: Vec<u64> = Vec::new();
        let mut ends: Vec<u64> = Vec::new();
        let mut parts = 0u64;
        for alts in &ops {
            if alts.is_empty() {
                return true;
            }
            for alt in alts {
                for a in alt.iter() {
                    let d = t - a.q;
                    starts.extend([a.r, a.r + a.p, d - a.p]);
                    ends.extend([d, a.r + a.p, d - a.p]);
                    parts += 1;
                }
            }
        }
        starts.sort_unstable();
        starts.dedup();
        ends.sort_unstable();
        ends.dedup();
        for &t1 in &starts {
            for &t2 in ends.iter().filter(|&&e| e > t1) {
                if *work < parts {
                    *work = 0;
                    return false;
                }
                *work -= parts;
                let room = self.cap * u128::from(t2 - t1);
                let mut need: u128 = 0;
                for alts in &ops {
                    let least = alts
                        .iter()
                        .map(|alt| {
                            alt.iter()
                                .map(|a| {
                                    u128::from(a.w)
                                        * u128::from(min_overlap(a.r, t - a.q, a.p, t1, t2))
                                })
                                .sum::<u128>()
                        })
                        .min()
                        .unwrap_or(0);
                    need += least;
                    if need > room {
                        return true;
                    }
                }
            }
        }
        false
    }
}

/// The least makespan at least `lo` that no resource refutes, searched
/// upwards from `lo` (galloping, then bisecting the last step) with at most
/// `MAX_TRIES` makespans tried and `MAX_WORK` work; the value is `lo` or one above a refuted
/// makespan, with the resource that refuted it.
pub fn bound(res: &[Resource], lo: u64) -> (u64, Option<String>) {
    let mut work = MAX_WORK;
    let mut refuted = |t: u64| {
        res.iter()
            .find(|r| r.refutes(t, &mut work))
            .map(|r| r.name.clone())
    };
    let (mut proven, mut source) = (lo, None);
    let mut tries = 0usize;
    let mut step = 1u64;
    // Gallop: lo, lo + 1, lo + 3, lo + 7, ... while refuted.
    let mut hi = None;
    while tries < MAX_TRIES {
        tries += 1;
        let t = proven.saturating_add(step - 1);
        match refuted(t) {
            Some(name) => {
                proven = t.saturating_add(1);
                source = Some(name);
                step = step.saturating_mul(2);
            }
            None => {
                hi = Some(t);
                break;
            }
        }
    }
    // Bisect [proven, hi]: hi is not refuted.
    if let Some(mut hi) = hi {
        while proven < hi && tries < MAX_TRIES {
            tries += 1;
            let mid = proven + (hi - proven) / 2;
            match refuted(mid) {
                Some(name) => {
                    proven = mid.saturating_add(1);
                    source = Some(name);
                }
                None => hi = mid,
            }
        }
    }
    (proven, source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_overlap_is_at_an_end_of_the_window() {
        // Window [0, 10), p = 4, interval [3, 6): earliest [0, 4) overlaps 1,
        // latest [6, 10) overlaps 0.
        assert_eq!(min_overlap(0, 10, 4, 3, 6), 0);
        // Window [2, 7), p = 4: [2, 6) and [3, 7) both cover [3, 6).
        assert_eq!(min_overlap(2, 7, 4, 3, 6), 3);
        // Interval wider than the window: the whole duration.
        assert_eq!(min_overlap(2, 7, 4, 0, 100), 4);
    }
}
