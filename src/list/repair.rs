//! Feasibility repair of a tiling choice. With tight memory, whether any
//! schedule exists depends on the tilings more than on the order: a tiling
//! whose sinks hold much memory can make every order deadlock, while another
//! tiling of the same op leaves room. When neither the shortest-path nor the
//! memory-lean choice fits memory even one node at a time in a frugal order,
//! this walk changes the tilings of the ops to blame (those holding memory
//! when the serial pass got stuck, and the op it could not start), keeps a
//! change when the serial pass gets at least as far as before (nodes started),
//! and restarts from a random choice when it stalls. Each try is one serial
//! pass (`Searcher::first_schedule`); the engine improves the choice found.

use crate::graph::NodeGraph;
use crate::instance::Instance;
use crate::solve::Progress;
use crate::stop::Deadline;

use super::priority::Rng;
use super::tiling::other_tiling;
use super::{Found, Searcher};

/// Non-improving steps before the walk restarts from a random choice.
const RESTART_AFTER: usize = 40;

/// What the walk did, for the notes.
pub struct Repair {
    pub tries: usize,
    pub restarts: usize,
    pub found: Option<(Vec<u32>, Found)>,
}

/// Outcome of one choice: a schedule, or how far the scheme got and which ops held memory.
enum Outcome {
    Found(Found),
    Stuck { started: usize, holding: Vec<u32> },
}

fn try_choice(inst: &Instance, choice: &[u32], deadline: &Deadline) -> Outcome {
    let Ok(g) = NodeGraph::new(inst, choice.to_vec()) else {
        return Outcome::Stuck {
            started: 0,
            holding: Vec::new(),
        };
    };
    // Feasibility is the question here: the frugal serial schedule answers it
    // in one pass; the caller improves the choice that passes.
    let mut s = Searcher::new(&g);
    s.first_schedule(deadline);
    match s.best {
        Some(f) => Outcome::Found(f),
        None => {
            let (started, holding) = s.last_deadlock.map_or((0, Vec::new()), |d| {
                let mut blame = d.holding_ops;
                blame.extend(d.blocked.map(|(op, _)| op));
                (d.started, blame)
            });
            Outcome::Stuck { started, holding }
        }
    }
}

/// Walks tiling choices from `start` until one can be scheduled or `deadline`.
/// `flexible` are the ops with more than one usable tiling.
pub fn feasible_choice(
    tl: &super::tiling::Tilings,
    start: Vec<u32>,
    flexible: &[u32],
    deadline: &Deadline,
    rng: &mut Rng,
    progress: &Progress,
) -> Repair {
    let inst = tl.inst;
    let mut out = Repair {
        tries: 0,
        restarts: 0,
        found: None,
    };
    if flexible.is_empty() {
        return out;
    }
    let is_flexible = {
        let mut f = vec![false; inst.graph.n_ops()];
        for &op in flexible {
            f[op as usize] = true;
        }
        f
    };
    let groups = {
        let mut g: Vec<u32> = flexible
            .iter()
            .map(|&op| inst.graph.ops[op as usize].group)
            .collect();
        g.sort_unstable();
        g.dedup();
        g.len()
    };
    let group_moves_in_8 = if flexible.len() > 64 * groups { 7 } else { 4 };
    let mut cur = start;
    out.tries = 1;
    let (mut cur_started, mut cur_holding) = match try_choice(inst, &cur, deadline) {
        Outcome::Found(f) => {
            out.found = Some((cur, f));
            return out;
        }
        Outcome::Stuck { started, holding } => (started, holding),
    };
    let mut stalled = 0usize;
    while !deadline.expired() {
        out.tries += 1;
        progress.tick(|| {
            format!(
                "list: no schedule yet, tiling repair try {} ({} restarts)",
                out.tries, out.restarts
            )
        });
        let mut cand = cur.clone();
        let restart = stalled >= RESTART_AFTER;
        if restart {
            out.restarts += 1;
            stalled = 0;
            for &op in flexible {
                let t = cand[op as usize];
                if rng.below_mod(2) == 0 {
                    cand[op as usize] = other_tiling(tl, op, t, rng);
                }
            }
        } else {
            // Blame an op that held memory at the deadlock; any flexible op
            // when none of those has another tiling.
            let blamed: Vec<u32> = cur_holding
                .iter()
                .copied()
                .filter(|&op| is_flexible[op as usize])
                .collect();
            let op = if blamed.is_empty() || rng.below_mod(4) == 0 {
                flexible[rng.below_mod(flexible.len())]
            } else {
                blamed[rng.below_mod(blamed.len())]
            };
            let t = cand[op as usize];
            let t2 = other_tiling(tl, op, t, rng);
            cand[op as usize] = t2;
            // Ops of one (type, shape) share their tilings, and whether a tiling
            // leaves room is mostly its own property: half the moves switch
            // every op of the group that used the same tiling; nearly all when
            // groups are large (one op among thousands rarely matters).
            if rng.below_mod(8) < group_moves_in_8 {
                let group = inst.graph.ops[op as usize].group;
                for &o in flexible {
                    if inst.graph.ops[o as usize].group == group && cand[o as usize] == t {
                        cand[o as usize] = t2;
                    }
                }
            }
        }
        match try_choice(inst, &cand, deadline) {
            Outcome::Found(f) => {
                out.found = Some((cand, f));
                return out;
            }
            Outcome::Stuck { started, holding } => {
                if started > cur_started {
                    stalled = 0;
                } else {
                    stalled += 1;
                }
                // Sideways moves are kept (plateaus are wide); a restart is
                // kept whatever it reached.
                if restart || started >= cur_started {
                    cur = cand;
                    cur_started = started;
                    cur_holding = holding;
                }
            }
        }
    }
    out
}
