//! A serial order found by search: a guide where no greedy order fits.
//!
//! A guide (`sgs::guide`) needs a topological list whose serial schedule is
//! legal under the hold rule. The frugal op orders and the fitted
//! memory-blind orders (`frugal.rs`) are greedy: one wrong step traps memory
//! (holders whose successors can no longer fit) and they give up. Some
//! tiling choices that the SAT engine schedules well have no greedy guide at
//! all, so list scheduling finds no schedule for them and its tiling search
//! cannot value them (models/list.md, "Searched serial orders").
//!
//! This search builds the list one *move* at a time: one ready node, or the
//! joint start of every unplaced successor of a holder (when all are ready),
//! which releases the holder at once, or of those demanding one type (the
//! fitted orders' joint starts, which release that type's hold); a move is
//! legal when, serially, its nodes fit beside the holds still open (after
//! the holds it releases) and the cores of each type suffice for it. Moves
//! that release at least what they keep (the holds they open, less the
//! share of each holder's release they bring: a holder of `d` with `p`
//! pending successors credits `d / p` to each) come first, then the most
//! recently enabled (depth first: an op started is finished before the next
//! opens). On a dead end (no legal move) it backtracks; states whose every
//! move failed are remembered by a Zobrist key of the placed set (the holds
//! are a function of it), and runs restart with Luby budgets and noise in
//! the depth-first order.
//!
//! The state (`serial_memory::SerialMemory`, which the fitted orders of
//! `frugal.rs` build on too) is exactly the serial schedule's (problem.md
//! §4.4: a node holds from its start until its last same-type successor
//! starts; serially, with none it ends before the next starts), so the
//! scheme's serial pass accepts
//! a list it returns (tests/corners.rs runs it on every list found for the
//! corner instances, zero durations included); the caller runs it through
//! `Guide::new`, which stays the judge.

use std::cmp::Reverse;
use std::collections::{BTreeSet, HashSet};

use super::serial_memory::SerialMemory;
use crate::graph::NodeGraph;
use crate::rng::SplitMix64;
use crate::stop::Deadline;

/// Ready nodes scanned per step (the most recently enabled first).
const SCAN: usize = 64;
/// Moves tried per state before it counts as a dead end.
const BRANCHES: usize = 3;
/// Largest joint move (the serial pass tries groups of at most 64).
const MAX_GROUP: usize = 64;
/// Steps of the first run; run `r` gets `BASE * luby(r)`.
const BASE: u64 = 200;
/// Noise of the depth-first order in runs after the first: up to this many
/// moves of enabling age.
const NOISE: f64 = 50.0;
/// Steps between two looks at the clock (a step scans up to `SCAN` ready
/// nodes and their holders' groups).
const LOOK_EVERY: u64 = 64;
/// Most dead ends remembered (8 bytes each, about 16 MiB in all): past it,
/// new ones are forgotten, which only costs repeated work.
const MAX_DEAD: usize = 1 << 21;

/// The list of a serial order that fits memory, found by search; `None` when
/// `deadline` passes or `max_steps` steps find none.
/// Each step is O(SCAN * (preds + succs) * types).
pub fn searched_order(
    g: &NodeGraph,
    deadline: &Deadline,
    max_steps: u64,
    seed: u64,
) -> Option<Vec<u32>> {
    let mut s = State::new(g, seed);
    let mut rng = SplitMix64::new(seed);
    let mut spent = 0u64;
    let mut run = 0u64;
    while spent < max_steps && !deadline.expired() {
        let noise = if run == 0 { 0.0 } else { NOISE };
        let budget = (BASE * crate::rng::luby(run + 1)).min(max_steps - spent);
        let r = s.run(budget, noise, &mut rng, deadline);
        spent += s.steps;
        run += 1;
        match r {
            Ok(list) => {
                log::debug!("searched serial order: found after {spent} steps in {run} runs");
                return Some(list);
            }
            Err(true) => {}
            Err(false) => break,
        }
    }
    log::debug!(
        "searched serial order: none in {spent} steps ({} runs, {} dead ends, {} of {} nodes below the floor)",
        run,
        s.dead.len(),
        s.applied[..s.floor].iter().map(Vec::len).sum::<usize>(),
        g.n_nodes()
    );
    None
}

/// Every legal serial list's existence, decided by trying every move of
/// every state (no budget; for tiny graphs): with `floors`, never
/// backtracking over a state that holds nothing, as `searched_order` does.
/// The two agree where the floor lemma holds (models/list.md, "Searched
/// serial orders"; tests/corners.rs). `None` also when `deadline` passes.
pub fn exhaustive(g: &NodeGraph, floors: bool, deadline: &Deadline) -> Option<Vec<u32>> {
    let mut s = State::new(g, 0);
    s.rules = Rules {
        branches: usize::MAX,
        scan: usize::MAX,
        floors,
    };
    s.run(u64::MAX, 0.0, &mut SplitMix64::new(0), deadline).ok()
}

/// How the search branches.
struct Rules {
    /// Moves tried a state.
    branches: usize,
    /// Ready nodes scanned a state.
    scan: usize,
    /// Whether a state that holds nothing becomes the floor.
    floors: bool,
}

/// One move: the nodes placed together.
type Move = Vec<u32>;

struct State<'g, 'a> {
    g: &'g NodeGraph<'a>,
    /// The placed nodes' holds (`serial_memory`).
    mem: SerialMemory<'g, 'a>,
    /// Ready nodes by enabling time, latest first.
    ready: BTreeSet<(Reverse<u64>, u32)>,
    enabled_at: Vec<u64>,
    clock: u64,
    out: Vec<u32>,
    key: u64,
    zobrist: Vec<u64>,
    dead: HashSet<u64>,
    steps: u64,
    /// The moves applied, and per state along them its moves left to try.
    applied: Vec<Move>,
    stack: Vec<(Vec<Cand>, usize)>,
    /// Moves below which the search never backtracks (`run`).
    floor: usize,
    rules: Rules,
}

/// A legal move with its order key (smaller first).
struct Cand {
    key: (bool, f64),
    nodes: Move,
}

impl<'g, 'a> State<'g, 'a> {
    /// The empty list's state.
    fn new(g: &'g NodeGraph<'a>, seed: u64) -> Self {
        let n = g.n_nodes();
        let mut rng = SplitMix64::new(seed ^ 0x005e_71a1);
        let mem = SerialMemory::new(g);
        let ready = (0..n as u32)
            .filter(|&v| mem.npred(v) == 0)
            .map(|v| (Reverse(0), v))
            .collect();
        State {
            g,
            mem,
            ready,
            enabled_at: vec![0; n],
            clock: 0,
            out: Vec::with_capacity(n),
            key: 0,
            zobrist: (0..n).map(|_| rng.next_u64()).collect(),
            dead: HashSet::new(),
            steps: 0,
            applied: Vec::new(),
            stack: Vec::new(),
            floor: 0,
            rules: Rules {
                branches: BRANCHES,
                scan: SCAN,
                floors: true,
            },
        }
    }

    /// Depth-first search with at most `budget` steps from the last state
    /// that holds nothing (the *floor*; the empty list at first): the list,
    /// `Err(true)` when the budget or the deadline ran out, `Err(false)`
    /// when every move from the floor failed.
    ///
    /// A floor is never backtracked over: where some legal serial list
    /// exists, one begins with the floor's list (the rest of any legal list,
    /// restricted to the unplaced nodes, stays legal: nothing placed holds
    /// anything; models/list.md, "Searched serial orders", the floor lemma,
    /// checked against the exhaustive search in tests/corners.rs).
    fn run(
        &mut self,
        budget: u64,
        noise: f64,
        rng: &mut SplitMix64,
        deadline: &Deadline,
    ) -> Result<Vec<u32>, bool> {
        while self.applied.len() > self.floor {
            let m = self.applied.pop().expect("above the floor");
            self.unplace(&m);
        }
        self.stack.truncate(self.floor);
        let c = self.moves(noise, rng);
        self.stack.push((c, 0));
        self.steps = 0;
        let n = self.g.n_nodes();
        while self.out.len() < n {
            self.steps += 1;
            if self.steps > budget || (self.steps.is_multiple_of(LOOK_EVERY) && deadline.expired())
            {
                return Err(true);
            }
            let (cands, next) = self.stack.last_mut().expect("the floor's frame stays");
            if *next >= cands.len() || self.dead.contains(&self.key) {
                if self.dead.len() < MAX_DEAD {
                    self.dead.insert(self.key);
                }
                if self.applied.len() == self.floor {
                    return Err(false);
                }
                self.stack.pop();
                let m = self.applied.pop().expect("above the floor");
                self.unplace(&m);
                continue;
            }
            let m = std::mem::take(&mut cands[*next].nodes);
            *next += 1;
            self.place(&m);
            self.applied.push(m);
            if self.rules.floors && self.mem.held().iter().all(|&h| h == 0) {
                self.floor = self.applied.len();
                log::trace!("floor at {} nodes, step {}", self.out.len(), self.steps);
                self.stack.clear();
                self.stack.resize_with(self.floor, || (Vec::new(), 0));
            }
            let c = self.moves(noise, rng);
            self.stack.push((c, 0));
        }
        Ok(self.out.clone())
    }

    /// The legal moves of the state, best first, at most `BRANCHES`.
    fn moves(&mut self, noise: f64, rng: &mut SplitMix64) -> Vec<Cand> {
        let g = self.g;
        let mut c: Vec<Cand> = Vec::new();
        let scanned: Vec<u32> = self
            .ready
            .iter()
            .take(self.rules.scan)
            .map(|&(_, v)| v)
            .collect();
        let mut seen: HashSet<u32> = HashSet::new();
        // Groups judged this step (a group may come from several holders).
        let mut judged: HashSet<Vec<u32>> = HashSet::new();
        let mut seen_types: HashSet<(u32, crate::instance::TypeIdx)> = HashSet::new();
        for &v in &scanned {
            if let Some(key) = self.judge(&[v], noise, rng) {
                c.push(Cand {
                    key,
                    nodes: vec![v],
                });
            }
            // Joint starts that release a holder `u` of `v` at once, each
            // when all its nodes are ready (`SerialMemory::release_group`):
            // every unplaced successor of `u` (formed once per holder), and
            // per type `v` demands, those demanding it (the fitted orders'
            // joint starts: formed also where a successor that does not
            // demand the type is not ready yet).
            let mut groups: Vec<Vec<u32>> = Vec::new();
            g.for_each_pred(v, |u| {
                let mut group = Vec::new();
                if seen.insert(u)
                    && self.mem.release_group(u, None, &mut group)
                    && (2..=MAX_GROUP).contains(&group.len())
                {
                    groups.push(group);
                }
                for e in g.mems(v) {
                    let p = self.mem.pending(u, e.mem as usize) as usize;
                    let mut group = Vec::new();
                    if (2..=MAX_GROUP).contains(&p)
                        && seen_types.insert((u, e.mem))
                        && self.mem.release_group(u, Some(e.mem), &mut group)
                    {
                        groups.push(group);
                    }
                }
            });
            for group in groups {
                if judged.insert(group.clone())
                    && let Some(key) = self.judge(&group, noise, rng)
                {
                    c.push(Cand { key, nodes: group });
                }
            }
        }
        c.sort_by(|a, b| a.key.0.cmp(&b.key.0).then(a.key.1.total_cmp(&b.key.1)));
        c.truncate(self.rules.branches);
        c
    }

    /// Whether `set` may start jointly now (serially: nothing else runs),
    /// and its order key: (it keeps more than it releases, age).
    fn judge(&self, set: &[u32], noise: f64, rng: &mut SplitMix64) -> Option<(bool, f64)> {
        let g = self.g;
        let n_mem = self.mem.n_mem();
        let hand_overs = self.mem.hand_overs(set);
        if !self.mem.fits_jointly(set, &hand_overs) {
            return None;
        }
        // A holder of `d` with `p` pending successors credits `d / p` to
        // each that `set` holds.
        let mut credit = vec![0f64; n_mem];
        for h in &hand_overs {
            let p = self.mem.pending_cell(h.cell);
            credit[h.mem] += h.demand as f64 * f64::from(h.taken) / f64::from(p.max(1));
        }
        let mut keep = vec![0f64; n_mem];
        for &v in set {
            for e in g.mems(v) {
                let m = e.mem as usize;
                if self.mem.pending(v, m) > 0 {
                    keep[m] += e.amount as f64;
                }
            }
        }
        let caps = self.mem.caps();
        let net: f64 = (0..n_mem)
            .map(|m| (keep[m] - credit[m]) / (caps[m] as f64).max(1.0))
            .sum();
        let newest = set
            .iter()
            .map(|&v| self.enabled_at[v as usize])
            .max()
            .unwrap_or(0);
        let age = (self.clock - newest) as f64 + noise * rng.unit();
        Some((net > 1e-12, age))
    }

    /// Places `set` jointly (after `judge` accepted it), one node after
    /// the other (`SerialMemory`: the same state).
    fn place(&mut self, set: &[u32]) {
        self.clock += 1;
        let clock = self.clock;
        for &v in set {
            self.ready
                .remove(&(Reverse(self.enabled_at[v as usize]), v));
            self.out.push(v);
            self.key ^= self.zobrist[v as usize];
            let (ready, enabled_at) = (&mut self.ready, &mut self.enabled_at);
            self.mem.place(v, |z| {
                enabled_at[z as usize] = clock;
                ready.insert((Reverse(clock), z));
            });
        }
    }

    /// Undoes `place(set)` (the last move).
    fn unplace(&mut self, set: &[u32]) {
        for &v in set.iter().rev() {
            let (ready, enabled_at) = (&mut self.ready, &self.enabled_at);
            self.mem.unplace(v, |z| {
                ready.remove(&(Reverse(enabled_at[z as usize]), z));
            });
            self.out.pop();
            self.key ^= self.zobrist[v as usize];
            self.ready.insert((Reverse(self.enabled_at[v as usize]), v));
        }
        self.clock -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Node 1 holds all of memory 0 (4) until its successors demanding it,
    /// 2 (2) and 3 (1), start; its third successor 4 demands only memory
    /// 1 and waits for 2 as well. Neither 2 nor 3 fits alone beside the
    /// hold and the group of all of 1's successors is never ready at once,
    /// so the only list starts 2 and 3 together (releasing node 1's hold:
    /// 3 of 4), as a fitted order does; the exhaustive search, the searched
    /// order and the scheme's serial pass agree.
    #[test]
    fn a_hold_released_by_the_successors_of_its_type_alone_is_a_move() {
        let text = "SetSocInfo([[0,2]],[[0,4],[1,10]])\n\
             AddOpInfo(1,1,0,[[1,2],[1,3],[1,4],[2,4]],\
             [[1,0,1],[2,0,1],[3,0,1],[4,0,1]],[[1,0,4],[2,0,2],[3,0,1],[4,1,1]])\n\
             GetInferenceScheResult([],[[1,1,1]])\n";
        let inst = crate::instance::parse_reader(text.as_bytes(), "f.txt").expect("parses");
        let g = NodeGraph::new(&inst, vec![0]).expect("a graph");
        let far = Deadline::after(std::time::Duration::from_secs(60));
        let input: Vec<u32> = (0..4).collect();
        let lists = [
            super::super::frugal::fitted_order(&g, &input, &far).expect("fitted"),
            exhaustive(&g, false, &far).expect("exhaustive"),
            exhaustive(&g, true, &far).expect("exhaustive with floors"),
            searched_order(&g, &far, 1000, 1).expect("searched"),
        ];
        let model = super::super::sgs::Model::new(&g);
        for list in lists {
            let (_, s) = super::super::sgs::Guide::new(&model, &list, &far).expect("a guide");
            assert!(crate::schedule::check(&g, &s, 5).is_empty());
            assert_eq!(s.start[1], s.start[2], "the two start together");
        }
    }
}
