//! Passes of the scheme for one tiling choice: which mode, which keys, and
//! the improvement loops around them (forward-backward, sampling).
//!
//! Where memory cannot bind, every pass is an ordinary parallel pass. Where it
//! can, the searcher first builds a guide from a memory-frugal op order (its
//! serial schedule is the first incumbent, so a schedule exists before any
//! search), then tries parallel passes while they keep succeeding and falls
//! back to passes guarded by the guide, which cannot deadlock. Once a schedule
//! is known, the guide follows the best schedule's own start order: every
//! legal schedule's order is a guide, and one close to a good schedule leaves
//! the guard the most room.

use crate::graph::NodeGraph;
use crate::schedule::Schedule;
use crate::solve::{Deadline, Progress};

use super::Found;
use super::backward;
use super::frugal;
use super::priority::{self, Paths, Rng, Rule, keys, perturb};
use super::sgs::{self, Deadlock, Guide, Mode, Model, Stop};

/// Searches schedules for one tiling choice.
pub struct Searcher<'g, 'a> {
    g: &'g NodeGraph<'a>,
    md: Model<'g, 'a>,
    paths: Option<Paths>,
    guide: Option<Guide>,
    /// What the guide follows (for the notes).
    guide_kind: String,
    /// Both frugal orders ran out of memory serially (tried once).
    no_guide: bool,
    parallel_ok: usize,
    parallel_failed: usize,
    pub best: Option<Found>,
    pub passes: usize,
    /// Passes whose parallel attempt deadlocked on memory.
    pub deadlocks: usize,
    pub last_deadlock: Option<Deadlock>,
    /// A pass was abandoned at the deadline.
    pub timed_out: bool,
}

/// Makespan of a schedule built by the scheme, saturated at u64::MAX (only
/// used to compare schedules; the exact value is the schedule's own).
fn makespan_of(g: &NodeGraph, s: &Schedule) -> u64 {
    u64::try_from(s.makespan(g)).unwrap_or(u64::MAX)
}

impl<'g, 'a> Searcher<'g, 'a> {
    pub fn new(g: &'g NodeGraph<'a>) -> Self {
        Searcher {
            g,
            md: Model::new(g),
            paths: None,
            guide: None,
            guide_kind: String::new(),
            no_guide: false,
            parallel_ok: 0,
            parallel_failed: 0,
            best: None,
            passes: 0,
            deadlocks: 0,
            last_deadlock: None,
            timed_out: false,
        }
    }

    fn rule_keys(&mut self, rule: Rule) -> Vec<u64> {
        let g = self.g;
        let paths = self.paths.get_or_insert_with(|| Paths::new(g));
        keys(g, paths, rule)
    }

    /// Keeps `s` if it is the best so far; returns its makespan.
    fn consider(&mut self, s: Schedule, how: String) -> u64 {
        let ms = makespan_of(self.g, &s);
        if self.best.as_ref().is_none_or(|b| ms < b.makespan) {
            self.best = Some(Found {
                schedule: s,
                makespan: ms,
                how,
            });
        }
        ms
    }

    fn reached(&self, target: u64) -> bool {
        self.best.as_ref().is_some_and(|b| b.makespan <= target)
    }

    /// Ensures a guide exists, building one from the memory-frugal op order
    /// (else the input op order) the first time; its serial schedule is
    /// offered as a schedule. False when neither order fits memory serially
    /// (`last_deadlock` then names the op and memory type) or time ran out.
    pub fn first_schedule(&mut self, deadline: &Deadline) -> bool {
        if self.guide.is_some() {
            return true;
        }
        if self.no_guide {
            return false;
        }
        for kind in ["memory-frugal op order", "input op order"] {
            let ops = if kind.starts_with("memory") {
                frugal::memory_order(self.g, deadline)
            } else {
                Some(frugal::input_order(self.g))
            };
            let Some(ops) = ops else {
                self.timed_out = true;
                return false;
            };
            let list = frugal::node_list(self.g, &ops);
            drop(ops);
            match Guide::new(&self.md, &list, deadline) {
                Ok((gd, s)) => {
                    self.passes += 1;
                    self.consider(s, format!("serial schedule of the {kind}"));
                    self.guide = Some(gd);
                    self.guide_kind = kind.to_string();
                    return true;
                }
                Err(Stop::Deadlock(d)) => {
                    log::debug!("serial pass of the {kind} ran out of memory: {d:?}");
                    self.last_deadlock = Some(d);
                }
                Err(Stop::Deadline) => {
                    self.timed_out = true;
                    return false;
                }
                Err(Stop::Overflow) => break,
            }
        }
        self.no_guide = true;
        false
    }

    /// Follows the best schedule's start order from now on (a guide by
    /// construction, equal starts forming joint groups).
    fn guide_from_best(&mut self, deadline: &Deadline) {
        let Some(best) = &self.best else { return };
        let list = {
            let k = priority::keys_from_starts(&best.schedule.start);
            sgs::activity_list(self.g, &k)
        };
        let how = best.how.clone();
        match Guide::new(&self.md, &list, deadline) {
            Ok((gd, s)) => {
                self.guide = Some(gd);
                self.guide_kind = "best schedule's start order".into();
                self.consider(s, format!("serial order of {how}"));
            }
            Err(Stop::Deadline) => self.timed_out = true,
            Err(e) => log::debug!("the best schedule's start order is not a guide: {e:?}"),
        }
    }

    /// Whether a parallel pass is worth trying: memory cannot bind, or
    /// parallel passes succeed often enough (one in five) to pay for the
    /// deadlocked ones; the first few are always tried.
    fn parallel_worth_it(&self) -> bool {
        self.md.memory_is_loose()
            || self.parallel_failed < 3
            || self.parallel_failed <= 4 * self.parallel_ok
    }

    /// One pass with `key`: parallel when worth it, else (or when it
    /// deadlocks) guarded. Returns its makespan.
    pub fn offer(&mut self, key: &[u64], how: &str, deadline: &Deadline) -> Option<u64> {
        if deadline.expired() {
            return None;
        }
        self.passes += 1;
        if self.parallel_worth_it() {
            match sgs::run(&self.md, key, Mode::Parallel, deadline) {
                Ok(s) => {
                    self.parallel_ok += 1;
                    return Some(self.consider(s, format!("pass {} ({how})", self.passes)));
                }
                Err(Stop::Deadlock(d)) => {
                    log::debug!(
                        "parallel pass ({how}) deadlocked at t={} after {} starts",
                        d.time,
                        d.started
                    );
                    self.parallel_failed += 1;
                    self.deadlocks += 1;
                    self.last_deadlock = Some(d);
                }
                Err(Stop::Deadline) => {
                    self.timed_out = true;
                    return None;
                }
                Err(Stop::Overflow) => return None,
            }
        }
        if !self.first_schedule(deadline) {
            return None;
        }
        let gd = self.guide.as_ref().expect("first_schedule built it");
        let t0 = std::time::Instant::now();
        let res = sgs::run(&self.md, key, Mode::Guarded(gd), deadline);
        log::debug!(
            "guarded pass ({how}) in {:.2} s: {}",
            t0.elapsed().as_secs_f64(),
            match &res {
                Ok(s) => format!("makespan {}", s.makespan(self.g)),
                Err(e) => format!("{e:?}"),
            }
        );
        match res {
            Ok(s) => {
                let how = format!(
                    "pass {} ({how}, guarded by the {})",
                    self.passes, self.guide_kind
                );
                Some(self.consider(s, how))
            }
            Err(Stop::Deadline) => {
                self.timed_out = true;
                None
            }
            Err(e) => {
                // Cannot happen by the guide's argument; not fatal either.
                log::warn!("a guarded pass stopped: {e:?}");
                None
            }
        }
    }

    /// One pass per deterministic rule, each followed by forward-backward when
    /// it improved the best schedule. Where memory can bind, the guide's serial
    /// schedule comes first. The first rule's schedule is improved before the
    /// other rules run: on large graphs, where a pass takes seconds,
    /// forward-backward gains more than another rule.
    pub fn deterministic(&mut self, target: u64, deadline: &Deadline) {
        if !self.md.memory_is_loose() && !self.first_schedule(deadline) && self.timed_out {
            return;
        }
        for rule in Rule::ALL {
            let before = self.best.as_ref().map(|b| b.makespan);
            let k = self.rule_keys(rule);
            self.offer(&k, rule.name(), deadline);
            if self.reached(target) || deadline.expired() {
                return;
            }
            if self.best.is_none() && self.no_guide {
                return; // the tiling choice is the problem, not the order
            }
            if self.best.as_ref().map(|b| b.makespan) < before || before.is_none() {
                self.forward_backward(8, target, deadline);
            }
        }
    }

    /// Up to `rounds` forward-backward improvements of the best schedule.
    pub fn forward_backward(&mut self, rounds: usize, target: u64, deadline: &Deadline) {
        for _ in 0..rounds {
            let Some(best) = &self.best else { return };
            let before = best.makespan;
            let back = backward::backward_keys(self.g, &best.schedule.start);
            let starts = priority::keys_from_starts(&best.schedule.start);
            if !self.md.memory_is_loose() {
                self.guide_from_best(deadline);
            }
            self.offer(&back, "forward-backward", deadline);
            if self.reached(target) || deadline.expired() {
                return;
            }
            // The best schedule's own start order: a left shift of it.
            self.offer(&starts, "start-order compaction", deadline);
            if self.reached(target) || deadline.expired() {
                return;
            }
            // Stop when a round gains less than 0.1 %.
            if self.best.as_ref().is_some_and(|b| b.makespan >= before - before / 1000) {
                return;
            }
        }
    }

    /// Randomised sampling around the rules, with forward-backward on
    /// improvements; stops at the deadline, at `target`, or after `patience`
    /// passes in a row without a better makespan.
    pub fn sample(
        &mut self,
        rng: &mut Rng,
        target: u64,
        deadline: &Deadline,
        patience: usize,
        progress: &Progress,
    ) {
        // Every rule's keys cost 8 bytes a node: keep two rules on huge graphs.
        let rules: &[Rule] = if self.g.n_nodes() > 2_000_000 {
            &Rule::ALL[..2]
        } else {
            &Rule::ALL
        };
        let base: Vec<Vec<u64>> = rules.iter().map(|&r| self.rule_keys(r)).collect();
        let mut stalled = 0;
        while !deadline.expired() && !self.reached(target) && stalled < patience {
            let r = rng.below(base.len());
            let eps = 0.05 + 0.45 * rng.unit();
            let k = perturb(&base[r], eps, rng);
            let before = self.best.as_ref().map(|b| b.makespan);
            self.offer(
                &k,
                &format!("random {} eps {eps:.2}", rules[r].name()),
                deadline,
            );
            progress.tick(|| {
                let best = self.best.as_ref().map_or(0, |b| b.makespan);
                format!(
                    "list: {} passes, best {best}, bound {target}, gap {:.2}%",
                    self.passes,
                    100.0 * (best.saturating_sub(target)) as f64 / best.max(1) as f64
                )
            });
            if self.best.as_ref().map(|b| b.makespan) < before || before.is_none() {
                stalled = 0;
                self.forward_backward(3, target, deadline);
            } else {
                stalled += 1;
            }
        }
    }
}
