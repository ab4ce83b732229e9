//! Large-neighbourhood search over *time windows* (models/sat.md §9.2): each
//! neighbourhood is a small encoding of its own, in which every node may
//! start only within `delta` of its start in the incumbent, and a few ops
//! (of a band of time, or of a critical chain) may change tiling. Where the assumption-based search
//! (`lns.rs`) needs the whole encoding (every pair of nodes that may share a
//! core or clash on memory, over the whole horizon), this one holds only the
//! pairs whose narrowed windows meet, each over a window of about
//! `2 delta`: a 190-node memory-tight instance whose full encoding takes
//! over 1 GiB gives neighbourhoods of a few MiB, built in milliseconds.
//!
//! Each node moves at most `delta` either way, so the makespan can fall by up
//! to `delta` in one step, and every order between nodes less than `2 delta`
//! apart is the solver's to choose. `delta` grows when neighbourhoods are
//! settled quickly with no answer and shrinks when they run out of time.
//!
//! An UNSAT answer concerns the neighbourhood only (`Model::narrow`): it is
//! never a bound of the instance and never reported as one. Every schedule
//! kept has passed the validator.

use std::time::{Duration, Instant};

use varisat::Lit;

use super::encode::{Answer, L, Orders};
use super::lns::{Incumbent, LnsStats, incumbent_of, offer, pick, validated};
use super::model::Model;
use super::{encode_within, to_schedule};
use crate::bounds::nogoods::TilingNogoods;
use crate::instance::Instance;
use crate::rng::SplitMix64;
use crate::schedule::Schedule;
use crate::stop::CpuTimer;
use crate::stop::{Deadline, instant_after};

/// Time a neighbourhood gets at first; it grows when neighbourhoods run out
/// of time and shrinks when they are settled quickly.
const FIRST_SUB_TIME: Duration = Duration::from_millis(300);
const MIN_SUB_TIME: Duration = Duration::from_millis(50);
const MAX_SUB_TIME: Duration = Duration::from_secs(3);

/// Ops freed at once (offered every candidate tiling), at most.
const MAX_FREED: usize = 3;

/// Neighbourhoods in a row without a better schedule after which the chain
/// is kicked (`kick`), its sizes (window width and time) starting again; it
/// stops where no kick is found.
const GIVE_UP_AFTER: usize = 60;

/// The time of each neighbourhood after the `k`-th stall: `2^min(k,
/// MAX_DOUBLINGS)` times the first.
const MAX_DOUBLINGS: u32 = 2;

/// Every this many fruitless neighbourhoods in a row, one *sideways*: any
/// schedule of the incumbent's makespan in the neighbourhood replaces it.
const SIDEWAYS_EVERY: usize = 4;

/// Most bytes one neighbourhood's encoding may take.
const BUDGET: u64 = 128 << 20;

/// Least time left for a kick: below it only the sizes start again. A kick
/// needs time to recover what it gives up: with half of this, short runs
/// were kicked near their end and ended worse (results/policy.md).
const KICK_MIN_LEFT: Duration = Duration::from_secs(10);

/// Ops a kick moves off their tiling; how far above the chain's makespan
/// its schedule may end (per mille), at first: doubled every second try,
/// up to `KICK_SLACK_PM.1`; its windows' half-width (per mille of the
/// makespan); the time of one try. One op and a few per cent found a way
/// out of most stalls in a fraction of a second; more ops and wider
/// windows found nothing in many seconds (results/policy.md).
const KICK_OPS: usize = 1;
const KICK_SLACK_PM: (u128, u128) = (30, 120);
const KICK_DELTA_PM: u64 = 50;
const KICK_TIME: Duration = Duration::from_secs(1);

/// Kicks tried in a row (each a neighbourhood of its own) before the
/// chain stops for good.
const KICK_TRIES: u32 = 8;

/// A schedule shorter than `start` found by time-window neighbourhoods, until
/// `deadline`, the proven bound `lo`, or a stall (`GIVE_UP_AFTER` fruitless
/// ones in a row) that no kick leaves.
pub fn improve(
    inst: &Instance,
    ng: &TilingNogoods,
    start: &Schedule,
    lo: u64,
    deadline: &Deadline,
    seed: u64,
    budget: u64,
) -> (Option<Schedule>, LnsStats) {
    let all = ng.candidates(inst);
    // Read again only when the incumbent changes.
    let Some(view) = View::of(inst, &all, start) else {
        return (None, LnsStats::default());
    };
    let start_ms = view.makespan;
    let mut chain = Chain {
        inst,
        ng,
        kickable: all.iter().any(|c| c.len() > 1),
        all,
        budget: budget.min(BUDGET),
        // A stream of its own: not the assumption-based search's choices again.
        rng: SplitMix64::stream(seed, 2),
        best: start.clone(),
        overall: None,
        view,
        fruitless: 0,
        sub_time: FIRST_SUB_TIME,
        delta_pm: 30,
        step: 1,
        stalls: 0,
        stats: LnsStats::default(),
    };
    while !deadline.expired() {
        // Fruitless in a row: a local optimum of these neighbourhoods
        // (kicked, the chain leaves it and descends further), or sizes gone
        // astray (quick UNSAT answers at narrow windows shrink the time per
        // neighbourhood to its least and the wider ones keep running out
        // of it). A kick, and the sizes start again, with more time.
        let go = if chain.fruitless >= GIVE_UP_AFTER {
            chain.after_stall(deadline)
        } else {
            chain.neighbourhood(lo, deadline)
        };
        if !go {
            break;
        }
    }
    let stats = chain.stats;
    log::debug!("lns windows: {stats:?}");
    // The chain's schedule, or the best before a kick where that was
    // shorter; kept only when shorter than the start.
    let cur = validated(inst, &chain.best).unwrap_or(u128::MAX);
    let (ms, sched) = match chain.overall {
        Some((ms, s)) if ms < cur => (ms, s),
        _ => (cur, chain.best),
    };
    ((ms < start_ms).then_some(sched), stats)
}

/// One chain of time-window neighbourhoods (`improve`): its schedule
/// (`best`: a kick may take it above the best one found, which `overall`
/// keeps) and the sizes it adapts.
struct Chain<'i> {
    inst: &'i Instance,
    ng: &'i TilingNogoods,
    all: Vec<Vec<u32>>,
    /// Some op has a tiling choice to kick (not in job shops).
    kickable: bool,
    budget: u64,
    rng: SplitMix64,
    best: Schedule,
    overall: Option<(u128, Schedule)>,
    view: View,
    fruitless: usize,
    sub_time: Duration,
    /// Window half-width as a share of the makespan (in 1/1000).
    delta_pm: u64,
    /// How far below the incumbent a neighbourhood aims (time): doubled
    /// after each success (successes come one unit at a time), back to the
    /// least step after a failure.
    step: u128,
    /// Stalls so far (`GIVE_UP_AFTER`), each followed by a kick or, near
    /// the end, by the sizes alone starting again.
    stalls: u32,
    stats: LnsStats,
}

impl Chain<'_> {
    /// After a stall: the sizes start again, with more time, and the best
    /// schedule so far is kicked where time and tiling choices allow.
    /// Whether the chain goes on.
    fn after_stall(&mut self, deadline: &Deadline) -> bool {
        self.stalls += 1;
        self.fruitless = 0;
        self.delta_pm = 30;
        self.step = 1;
        self.sub_time =
            (FIRST_SUB_TIME * 2u32.pow(self.stalls.min(MAX_DOUBLINGS))).min(MAX_SUB_TIME);
        if deadline.remaining() < KICK_MIN_LEFT || !self.kickable {
            // Too little time to descend again from a kick, or no op with a
            // tiling choice to kick (job shops): the sizes alone start again.
            return true;
        }
        // Kicked is the best schedule so far: the chain's, or the one
        // before the last kick where that was shorter.
        if let Some((ms, s)) = self.overall.take()
            && ms < self.view.makespan
        {
            self.best = s;
            let Some(v) = View::of(self.inst, &self.all, &self.best) else {
                return false;
            };
            self.view = v;
        }
        self.overall = Some((self.view.makespan, self.best.clone()));
        let kicked = kick(
            self.inst,
            self.ng,
            &self.all,
            &self.best,
            &self.view,
            deadline,
            &mut self.rng,
            self.budget,
        );
        let Some(kicked) = kicked else {
            return false;
        };
        self.stats.kicks += 1;
        self.best = kicked;
        let Some(v) = View::of(self.inst, &self.all, &self.best) else {
            return false;
        };
        self.view = v;
        true
    }

    /// One neighbourhood of the chain's schedule, and what its answer does
    /// to the sizes. Whether the chain goes on.
    fn neighbourhood(&mut self, lo: u64, deadline: &Deadline) -> bool {
        let inst = self.inst;
        let makespan = self.view.makespan;
        if makespan <= u128::from(lo) {
            return false;
        }
        let freed = choose_freed(&self.view, &self.all, &mut self.rng);
        let cand = offer(&self.all, &self.best, |o| freed.contains(&(o as u32)));
        let mut m = Model::new(inst, &cand);
        m.forbid(self.ng);
        let Some(inc) = incumbent_of(&m, &self.best) else {
            return false;
        };
        let g = u128::from(m.g);
        // Where neighbourhoods around the incumbent keep failing (windows
        // of `delta` hold nothing shorter, wider ones run out of time), a
        // sideways neighbourhood asks for the incumbent's makespan: the
        // solver's answer is another schedule of it (the incumbent itself
        // is in the neighbourhood), and the windows of the next
        // neighbourhoods move with it. (Within the model's horizon only,
        // like any other neighbourhood.)
        let sideways = self.fruitless > 0
            && self.fruitless.is_multiple_of(SIDEWAYS_EVERY)
            && makespan / g <= u128::from(m.horizon);
        // Makespans up to `step` below the incumbent's (never below the
        // proven bound), or up to it when sideways.
        let tmax = if sideways {
            makespan / g
        } else {
            (makespan.saturating_sub(self.step) / g).max(u128::from(lo).div_ceil(g))
        };
        if (!sideways && tmax * g >= makespan) || tmax > u128::from(m.horizon) {
            return false;
        }
        let tmax = tmax as u64;
        let delta = (tmax * self.delta_pm / 1000).max(1);
        narrow_around(&mut m, &inc, &self.view.op_span, tmax, delta);
        let t0 = Instant::now();
        // An effort of this thread's CPU time, the build's and the answer's
        // (src/stop.rs): the windows adapt to the work they need, not to
        // the load.
        let cpu = CpuTimer::start();
        let end = deadline.stop_after(self.sub_time);
        let Some(mut enc) = encode_within(&m, tmax, self.budget, end, deadline, Orders::Clauses)
        else {
            // Over the budget (or out of time while building): narrower.
            self.delta_pm = (self.delta_pm * 3 / 4).max(1);
            self.fruitless += 1;
            return true;
        };
        self.stats.max_freed = self.stats.max_freed.max(freed.len());
        let built = t0.elapsed();
        let answer = enc.decide(tmax as i64, &[], end);
        log::debug!(
            "lns windows: built in {:.3} s, {:?}",
            built.as_secs_f64(),
            enc.stats
        );
        match answer {
            Answer::Sat(d) => {
                let s = to_schedule(&m, &d);
                let Some(ms) = validated(inst, &s) else {
                    log::warn!("lns windows: a model failed the validator; search stopped");
                    return false;
                };
                log::debug!(
                    "lns windows: {makespan} -> {ms} (delta {delta}, {} freed{}) in {:.3} s",
                    freed.len(),
                    if sideways { ", sideways" } else { "" },
                    t0.elapsed().as_secs_f64()
                );
                if ms > makespan {
                    log::warn!("lns windows: an answer above its makespan; search stopped");
                    return false;
                }
                self.best = s;
                if ms < makespan {
                    self.stats.improved += 1;
                    self.fruitless = 0;
                    self.step = (self.step * 2).min(u128::from(delta) * g);
                } else {
                    self.stats.sideways += 1;
                    self.fruitless += 1;
                }
                let Some(v) = View::of(inst, &self.all, &self.best) else {
                    return false;
                };
                self.view = v;
            }
            // A longer step that failed says nothing about `delta`: the next
            // neighbourhood asks for one unit again.
            Answer::Unsat => {
                self.stats.exhausted += 1;
                self.fruitless += 1;
                if self.step > 1 {
                    self.step = 1;
                    return true;
                }
                log::debug!(
                    "lns windows: none within delta {delta} ({} freed) in {:.3} s",
                    freed.len(),
                    t0.elapsed().as_secs_f64()
                );
                self.delta_pm = (self.delta_pm * 5 / 4 + 1).min(500);
                if cpu.elapsed() < self.sub_time / 4 {
                    self.sub_time = (self.sub_time * 3 / 4).max(MIN_SUB_TIME);
                }
            }
            Answer::Interrupted | Answer::OverBudget => {
                self.stats.timed_out += 1;
                self.fruitless += 1;
                if self.step > 1 {
                    self.step = 1;
                    return true;
                }
                log::debug!(
                    "lns windows: delta {delta} ({} freed) out of time after {:.3} s",
                    freed.len(),
                    t0.elapsed().as_secs_f64()
                );
                self.delta_pm = (self.delta_pm * 4 / 5).max(1);
                self.sub_time = (self.sub_time * 5 / 4).min(MAX_SUB_TIME);
            }
        }
        true
    }
}

/// A kick (`KICK_MIN_LEFT`): a neighbourhood of the chain's schedule in
/// which `KICK_OPS` flexible ops (relievers of the saturated core types
/// where there are, else any) must leave their tiling, with windows of
/// `KICK_DELTA_PM` of the makespan and makespans up to a slack above the
/// chain's (`KICK_SLACK_PM`). Its answer (the solver's, at the top of that
/// slack as a rule) has other tilings than the local optimum the chain
/// could not leave, and the chain descends from it. `None` when
/// `KICK_TRIES` neighbourhoods in a row give none (out of time, none there,
/// over the budget) or time runs short.
#[allow(clippy::too_many_arguments)]
fn kick(
    inst: &Instance,
    ng: &TilingNogoods,
    all: &[Vec<u32>],
    best: &Schedule,
    view: &View,
    deadline: &Deadline,
    rng: &mut SplitMix64,
    budget: u64,
) -> Option<Schedule> {
    let flexible: Vec<u32> = (0..all.len() as u32)
        .filter(|&o| all[o as usize].len() > 1)
        .collect();
    let pool = if view.relievers.is_empty() {
        &flexible
    } else {
        &view.relievers
    };
    for i in 0..KICK_TRIES {
        if deadline.remaining() < KICK_MIN_LEFT / 2 {
            return None;
        }
        let freed = pick(pool, KICK_OPS, rng);
        if freed.is_empty() {
            return None;
        }
        let cand = offer(all, best, |o| freed.contains(&(o as u32)));
        let mut m = Model::new(inst, &cand);
        m.forbid(ng);
        let inc = incumbent_of(&m, best)?;
        let g = u128::from(m.g);
        let slack = (KICK_SLACK_PM.0 << (i / 2)).min(KICK_SLACK_PM.1);
        let tmax = (view.makespan + view.makespan * slack / 1000) / g;
        let tmax = tmax.min(u128::from(m.horizon)) as u64;
        let delta = (tmax * KICK_DELTA_PM / 1000).max(1);
        narrow_around(&mut m, &inc, &view.op_span, tmax, delta);
        let end = instant_after(Instant::now(), KICK_TIME).min(deadline.end);
        let Some(mut enc) = encode_within(&m, tmax, budget, end, deadline, Orders::Clauses) else {
            continue;
        };
        // Off their tilings: each freed op's own selector assumed false.
        let off: Vec<Lit> = freed
            .iter()
            .filter_map(|&o| match enc.sel[inc.slot_of_op[o as usize] as usize] {
                L::Lit(l) => Some(!l),
                _ => None,
            })
            .collect();
        if let Answer::Sat(d) = enc.decide(tmax as i64, &off, end) {
            let s = to_schedule(&m, &d);
            let ms = validated(inst, &s);
            log::debug!(
                "lns windows: kick {} -> {ms:?} ({} ops off their tilings)",
                view.makespan,
                off.len()
            );
            // A schedule the validator rejects is never kept.
            return ms.is_some().then_some(s);
        }
    }
    None
}

/// Narrows `m` to the neighbourhood: a node of an op's incumbent tiling
/// within `delta` of its incumbent start, a node of another tiling (of a
/// freed op) within `delta` of the op's incumbent span (model units).
fn narrow_around(m: &mut Model, inc: &Incumbent, op_span: &Spans, tmax: u64, delta: u64) {
    let span = |op: usize| match op_span[op] {
        Some((s, e)) => (s / m.g, e.div_ceil(m.g)),
        None => (0, tmax),
    };
    let wins: Vec<(u64, u64)> = (0..m.nodes.len() as u32)
        .map(|v| {
            let op = m.op_of(v) as usize;
            let (s, e) = if m.nodes[v as usize].slot == inc.slot_of_op[op] {
                // The incumbent's starts are in time, the windows in units
                // of `g` (models/sat.md §1.3).
                let s = inc.start[v as usize];
                (s / m.g, s.div_ceil(m.g))
            } else {
                span(op)
            };
            (s.saturating_sub(delta), e.saturating_add(delta))
        })
        .collect();
    m.narrow(tmax, |v| wins[v as usize]);
}

/// Up to `MAX_FREED` ops with a tiling choice, to be offered every candidate,
/// in one of three kinds of neighbourhood drawn at random: consecutive ops of
/// a critical chain (only their tilings, or orders that `delta` already
/// opens, can shorten it where its nodes follow each other without a gap);
/// ops that could take work off the saturated core types (where a core type
/// is busy almost the whole makespan, no order helps, only a tiling with less
/// work on it); ops whose incumbent span meets a random
/// band of 15 % of the makespan. Without a saturated core type (job shops:
/// no tiling choice), chain or band, half the time each.
fn choose_freed(view: &View, all: &[Vec<u32>], rng: &mut SplitMix64) -> Vec<u32> {
    let flexible = |o: &u32| all[*o as usize].len() > 1;
    let makespan = view.makespan;
    let kinds = if view.relievers.is_empty() { 2 } else { 3 };
    let kind = rng.below_mod(kinds);
    if kind == 0 {
        let chain: Vec<u32> = view
            .critical_chain(rng)
            .into_iter()
            .filter(flexible)
            .collect();
        let i = rng.below_mod(chain.len().max(1));
        return chain.into_iter().skip(i).take(MAX_FREED).collect();
    }
    if kind == 2 {
        return pick(&view.relievers, MAX_FREED, rng);
    }
    let band_len = (makespan * 150 / 1000).max(1);
    let centre = u128::from(rng.below(u64::try_from(makespan).unwrap_or(u64::MAX)));
    let (b0, b1) = (centre.saturating_sub(band_len / 2), centre + band_len / 2);
    let in_band: Vec<u32> = (0..all.len() as u32)
        .filter(flexible)
        .filter(|&o| {
            view.op_span[o as usize].is_some_and(|(s, e)| u128::from(s) < b1 && u128::from(e) > b0)
        })
        .collect();
    pick(&in_band, MAX_FREED, rng)
}

/// Each op's span `(first start, last end)` in time (`None` for an op
/// without nodes).
type Spans = Vec<Option<(u64, u64)>>;

/// The incumbent as the neighbourhoods read it, built once per incumbent.
struct View {
    makespan: u128,
    op_span: Spans,
    /// `(op, start, end)` per node of the schedule.
    nodes: Vec<(u32, u64, u64)>,
    /// Nodes (indices into `nodes`) by their end.
    ends_at: std::collections::HashMap<u64, Vec<usize>>,
    /// Ops with a candidate tiling that has less work than theirs on the
    /// saturated core types (see `choose_freed`).
    relievers: Vec<u32>,
}

/// A core type is saturated when its cores are busy at least this share of
/// the makespan, and within `SATURATION_SPREAD` of the busiest type.
const SATURATION: f64 = 0.9;
const SATURATION_SPREAD: f64 = 0.02;

impl View {
    fn of(inst: &Instance, all: &[Vec<u32>], s: &Schedule) -> Option<View> {
        let g = crate::graph::NodeGraph::new(inst, s.choice.clone()).ok()?;
        let lib = &inst.library;
        let makespan = s.makespan(&g);
        let mut op_span = Vec::with_capacity(s.choice.len());
        let mut nodes = Vec::with_capacity(s.start.len());
        for (o, &t) in s.choice.iter().enumerate() {
            let mut span: Option<(u64, u64)> = None;
            for v in lib.tilings[t as usize].nodes() {
                let st = *s.start.get(nodes.len())?;
                let en = st.saturating_add(lib.node_dur[v as usize]);
                span = Some(match span {
                    None => (st, en),
                    Some((a, b)) => (a.min(st), b.max(en)),
                });
                nodes.push((o as u32, st, en));
            }
            op_span.push(span);
        }
        let mut ends_at: std::collections::HashMap<u64, Vec<usize>> = Default::default();
        for (k, n) in nodes.iter().enumerate() {
            ends_at.entry(n.2).or_default().push(k);
        }
        Some(View {
            makespan,
            op_span,
            nodes,
            ends_at,
            relievers: relievers(inst, all, &s.choice, makespan),
        })
    }

    /// The ops along a critical chain, distinct, from its end backwards:
    /// from a node that ends last, repeatedly a node (at random among ties)
    /// that ends exactly when the current one starts, until none does (a
    /// gap, or time 0). Where memory releases or core waits set a start, the
    /// chain stops there.
    fn critical_chain(&self, rng: &mut SplitMix64) -> Vec<u32> {
        let nodes = &self.nodes;
        let Some(last) = nodes.iter().map(|n| n.2).max() else {
            return Vec::new();
        };
        let mut ops: Vec<u32> = Vec::new();
        let mut at = last;
        let mut cur: Option<usize> = None;
        // Every step moves to a strictly earlier end, or ends the walk.
        for _ in 0..nodes.len() {
            let Some(c) = self.ends_at.get(&at).filter(|c| !c.is_empty()) else {
                break;
            };
            let k = c[rng.below_mod(c.len())];
            if !ops.contains(&nodes[k].0) {
                ops.push(nodes[k].0);
            }
            if nodes[k].1 >= at || cur == Some(k) {
                break; // a node of duration 0: no earlier end to move to
            }
            cur = Some(k);
            at = nodes[k].1;
        }
        ops.reverse();
        ops
    }
}

/// The flexible ops that have a candidate tiling with less work than their
/// chosen one on the saturated core types together.
fn relievers(inst: &Instance, all: &[Vec<u32>], choice: &[u32], makespan: u128) -> Vec<u32> {
    let lib = &inst.library;
    let cores = &inst.platform.cores;
    let mut busy = vec![0u128; cores.len()];
    let mut w = vec![0u64; cores.len()];
    for &t in choice {
        lib.core_work(t, &mut w);
        busy.iter_mut()
            .zip(&w)
            .for_each(|(b, &x)| *b += u128::from(x));
    }
    if makespan == 0 {
        return Vec::new();
    }
    let share: Vec<f64> = busy
        .iter()
        .zip(cores)
        .map(|(&b, c)| b as f64 / (makespan as f64 * f64::from(c.count.max(1))))
        .collect();
    let top = share.iter().copied().fold(0.0, f64::max);
    let saturated: Vec<usize> = (0..cores.len())
        .filter(|&c| share[c] >= SATURATION && share[c] >= top - SATURATION_SPREAD)
        .collect();
    if saturated.is_empty() {
        return Vec::new();
    }
    let on_saturated = |w: &[u64]| saturated.iter().map(|&c| u128::from(w[c])).sum::<u128>();
    (0..all.len())
        .filter(|&o| all[o].len() > 1)
        .filter(|&o| {
            lib.core_work(choice[o], &mut w);
            let mine = on_saturated(&w);
            all[o].iter().any(|&t| {
                lib.core_work(t, &mut w);
                on_saturated(&w) < mine
            })
        })
        .map(|o| o as u32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::encode::{Answer, Encoder};
    use super::super::model::Model;
    use crate::graph::NodeGraph;

    /// Op 1 may run on core type 0 (10 long) or otherwise (`alt`); op 2 runs
    /// 5 on type 0. With op 1 on type 0 in a schedule of 15, type 0 is busy
    /// all along: op 1 relieves it exactly when its other tiling has less
    /// work there; op 2, without a choice, never does.
    fn relievers_of(alt: &str) -> Vec<u32> {
        let text = format!(
            "SetSocInfo([[0,1],[1,1]],[[0,100]])\n\
             AddOpInfo(1,1,0,[],[[1,0,10]],[])\n\
             AddOpInfo(1,1,1,[],{alt},[])\n\
             AddOpInfo(2,1,0,[],[[1,0,5]],[])\n\
             GetInferenceScheResult([[1,2]],[[1,1,1],[2,2,1]])\n"
        );
        let inst = crate::instance::parse_reader(text.as_bytes(), "t").unwrap();
        let lib = &inst.library;
        let index = |op_type: u32, id: u32| {
            (0..lib.tilings.len() as u32)
                .find(|&t| {
                    let tl = &lib.tilings[t as usize];
                    tl.op_type == op_type && tl.id == id
                })
                .unwrap()
        };
        let all = vec![vec![index(1, 0), index(1, 1)], vec![index(2, 0)]];
        let choice = [index(1, 0), index(2, 0)];
        super::relievers(&inst, &all, &choice, 15)
    }

    #[test]
    fn relievers_are_the_ops_that_can_take_work_off_a_saturated_core_type() {
        // Op 1's other tiling runs on type 1: it relieves type 0.
        assert_eq!(relievers_of("[[1,1,12]]"), vec![0]);
        // Less work on type 0 (8 of 10), some on type 1: still a reliever.
        assert_eq!(relievers_of("[[1,0,8],[2,1,3]]"), vec![0]);
        // As much on type 0, and more elsewhere: no relief anywhere.
        assert_eq!(relievers_of("[[1,0,10],[2,1,1]]"), Vec::<u32>::new());
    }

    /// A kick moves `KICK_OPS` ops off their tilings and keeps the
    /// makespan within its slack: four ops in a chain, each running 5 on
    /// the one core of type 0 or of type 1 (neither tiling dominates), so
    /// every choice has a schedule of 20, the start's makespan.
    #[test]
    fn a_kick_changes_the_tilings_of_its_ops_within_its_slack() {
        let text = "SetSocInfo([[0,1],[1,1]],[[0,100]])\n\
                    AddOpInfo(1,1,0,[],[[1,0,5]],[[1,0,10]])\n\
                    AddOpInfo(1,1,1,[],[[1,1,5]],[[1,0,10]])\n\
                    GetInferenceScheResult([[1,2],[2,3],[3,4]],\
                    [[1,1,1],[2,1,1],[3,1,1],[4,1,1]])\n";
        let inst = crate::instance::parse_reader(text.as_bytes(), "t").unwrap();
        let opts = crate::solve::SolveOptions {
            time_limit: std::time::Duration::from_millis(200),
            ..Default::default()
        };
        let start = crate::list::solve(&inst, &opts).schedule.unwrap();
        let ng = crate::bounds::nogoods::TilingNogoods::default();
        let all = ng.candidates(&inst);
        assert!(all.iter().all(|c| c.len() == 2));
        let view = super::View::of(&inst, &all, &start).unwrap();
        assert_eq!(view.makespan, 20);
        let deadline = crate::stop::Deadline::after(std::time::Duration::from_secs(60));
        for seed in 1..=4 {
            let mut rng = crate::rng::SplitMix64::stream(seed, 0);
            let kicked = super::kick(
                &inst,
                &ng,
                &all,
                &start,
                &view,
                &deadline,
                &mut rng,
                64 << 20,
            )
            .expect("a schedule with other tilings of makespan 20 exists");
            assert_eq!(super::validated(&inst, &kicked), Some(20));
            let moved = (0..4)
                .filter(|&o| kicked.choice[o] != start.choice[o])
                .count();
            assert_eq!(moved, super::KICK_OPS, "seed {seed}");
        }
    }

    /// Narrowed to the instants of a legal schedule, the model holds that
    /// schedule and nothing shorter: windows of width zero keep every node at
    /// its start, with the op windows (`end_window`, `start_window`) following.
    #[test]
    fn a_schedule_narrowed_to_its_own_starts_is_the_only_answer() {
        for seed in 1..=6u64 {
            let cfg = crate::generate::memory_tight(seed, 8, (3, 6));
            let inst = crate::generate::generate(&cfg).unwrap().instance;
            let opts = crate::solve::SolveOptions {
                time_limit: std::time::Duration::from_millis(200),
                ..Default::default()
            };
            let s = crate::list::solve(&inst, &opts).schedule.unwrap();
            let ms = s.makespan(&NodeGraph::new(&inst, s.choice.clone()).unwrap());
            let cand: Vec<Vec<u32>> = s.choice.iter().map(|&t| vec![t]).collect();
            let mut m = Model::new(&inst, &cand);
            let g = u128::from(m.g);
            let starts: Vec<u64> = s.start.iter().map(|&x| x / m.g).collect();
            let tmax = (ms / g) as u64;
            m.narrow(tmax, |v| (starts[v as usize], starts[v as usize]));
            let mut enc = Encoder::new(&m, tmax);
            let far = std::time::Instant::now() + std::time::Duration::from_secs(30);
            match enc.decide(tmax as i64, &[], far) {
                Answer::Sat(d) => {
                    assert_eq!(
                        d.start.iter().map(|&x| x * m.g).collect::<Vec<_>>(),
                        s.start
                    )
                }
                _ => panic!("seed {seed}: the schedule itself was lost"),
            }
            assert!(
                matches!(enc.decide(tmax as i64 - 1, &[], far), Answer::Unsat),
                "seed {seed}: shorter than a schedule whose starts are fixed"
            );
        }
    }
}
