//! The choice search at the level of the bound (models/sat.md §10.1):
//! every choice the relaxation puts at the level is asked for a schedule
//! that short; when none has one the level rises.

use super::*;

impl Search<'_, '_> {
    /// Choices decided at the level `L` of the bound (models/sat.md §10.1):
    /// the relaxation proposes choices with every refutation made at `L` or
    /// above excluded; each is asked for a schedule of makespan at most `L`
    /// (one found is optimal: `L` is a proven bound). When the relaxation
    /// has nothing left at `L` and nothing is skipped, no schedule has
    /// makespan `L`: the bound rises, to the least of the relaxation's
    /// value and one above each refutation still excluding.
    pub(super) fn levels(
        &mut self,
        bounds: &Bounds,
        at_levels: &LevelRefutations,
        deadline: &Deadline,
        opts: &ChoiceOptions,
    ) -> Found {
        let s = self;
        let mut level = s.lb;
        // (set, makespan): no schedule of makespan <= it uses all of set;
        // those an earlier pass left first.
        let mut refuted: Vec<LevelRefutation> = at_levels.from(level);
        // Choices undecided at this level.
        let mut skipped: Vec<Vec<u32>> = Vec::new();
        let mut sub_time = s.first_time(opts);
        let mut closed_outright = false;
        let mut optimal = false;
        let patient = |s: &Search| s.patient(opts);
        // The relaxation, enumerated exactly at each level (its MILP where
        // the enumeration runs out), and where the enumeration stands: the
        // level and the last choice it gave.
        let rel = crate::milp::aggregate::relaxation(s.inst, bounds, deadline);
        let mut after: Option<(u64, Vec<u32>)> = None;
        // Proposals at the current level (`Pass::EarlyLevels`).
        let mut at_level: (u64, usize) = (level, 0);
        while !optimal && !deadline.expired() && u128::from(level) < s.ub && patient(s) {
            let active: Vec<&(Vec<(u32, u32)>, u64)> =
                refuted.iter().filter(|r| r.1 >= level).collect();
            let mut excluded: Vec<Vec<(u32, u32)>> = active.iter().map(|r| r.0.clone()).collect();
            excluded.extend(skipped.iter().map(|c| whole_choice(c)));
            let proposal = s.propose(rel.as_ref(), bounds, &excluded, level, &mut after, deadline);
            let (value, choice) = match proposal {
                Proposal::Unsolved => break,
                Proposal::Within(choice) => (level, Some(choice)),
                Proposal::Beyond(value, _) => (value, None),
                Proposal::Exhausted => (u64::MAX, None),
            };
            if value > level {
                if !skipped.is_empty() {
                    // The level closes only once they are decided.
                    sub_time = longer(sub_time, opts);
                    let mut left = Vec::new();
                    for choice in std::mem::take(&mut skipped) {
                        if deadline.expired() || !patient(s) {
                            left.push(choice);
                            continue;
                        }
                        // Every choice must be decided before the bound
                        // rises: over the shared encoding an answer runs to
                        // the deadline (what the solver learns serves the
                        // next choice; boxed answers refuted fewer). With
                        // the window net first, what is left are the hard
                        // ones, which a box leaves open.
                        let time = match (s.shared.is_some(), opts.pass) {
                            (true, Pass::Levels) => deadline.remaining(),
                            _ => sub_time,
                        };
                        match s.decide(&choice, Ask::AtMost(level), time, deadline) {
                            Verdict::Proven => {
                                optimal = true;
                                break;
                            }
                            Verdict::Refuted(set) if set.is_empty() => {
                                closed_outright = true;
                                break;
                            }
                            Verdict::Refuted(set) => refuted.push((set, level)),
                            Verdict::Undecided | Verdict::TooLarge => left.push(choice),
                        }
                    }
                    skipped = left;
                    if std::mem::take(&mut closed_outright) {
                        // No schedule of makespan `level` at all.
                        skipped.clear();
                        level = s.next_level(level);
                        sub_time = s.first_time(opts);
                        continue;
                    }
                    if !skipped.is_empty() && sub_time >= opts.max_sub_time {
                        break; // they stay undecided: the level stays open
                    }
                    continue;
                }
                // Every choice with a relaxed value up to `value - 1` is
                // excluded by a refutation at `level` or above.
                let above = active.iter().map(|r| r.1 + 1).min().unwrap_or(u64::MAX);
                level = s.at_least(value.min(above).max(level + 1));
                log::debug!("choices: level {level} (relaxation {value})");
                sub_time = s.first_time(opts);
                continue;
            }
            let Some(choice) = choice else {
                break;
            };
            if at_level.0 != level {
                at_level = (level, 0);
            }
            at_level.1 += 1;
            if opts.pass == Pass::EarlyLevels && at_level.1 > CHOICES.early_level_choices {
                break;
            }
            s.stats.tried += 1;
            let natural = s.natural_proposed.take().is_some_and(|n| n == choice);
            // The window net first on every choice at the level (a
            // millisecond where it refutes); the encoding decides those it
            // cannot refute once the relaxation has no more at the level,
            // so that a hard one does not hold up the easy ones (one answer
            // over the shared encoding could take the whole phase;
            // results/policy.md).
            match s.net_decision(&choice, level, net_time(sub_time, deadline), deadline) {
                // No schedule of makespan `level` whatever the choice.
                Some(set) if set.is_empty() => {
                    skipped.clear();
                    level = s.next_level(level);
                    sub_time = s.first_time(opts);
                }
                Some(set) => refuted.push((set, level)),
                // The first choice the net leaves at a level, the nearest
                // to the incumbent's, is decided at once on an answer's
                // time: at the optimum's level it is the likeliest to hold
                // a schedule, which then ends the search without the rest
                // of the level's pass; below, it would be decided at the
                // end of the pass anyway. (Deciding the first few, or all,
                // at once was slower from some incumbents and no faster
                // from the others.)
                // Over the shared encoding it gets `ChoicePolicy::first_at_level` answers'
                // time: its interrupted search keeps what it learned, but
                // an undecided first choice sends the pass through the
                // whole level before it is tried again.
                None if skipped.is_empty() => {
                    let time = if s.shared.is_some() {
                        (sub_time * CHOICES.first_at_level).min(opts.max_sub_time.max(sub_time))
                    } else {
                        sub_time
                    };
                    // The natural choice in an encoding of its own (a third
                    // of the nodes: over the shared one its first answer
                    // runs out where alone it is decided in about two
                    // seconds, results/archive/lanes-ab-natural-probe.md),
                    // on a quarter of the time left, at least four first
                    // answers' time of a choice alone, as this thread's CPU
                    // time: the same work on a loaded machine. From some
                    // list schedules it needs more than four answers'
                    // time; undecided, it waits behind the level's other
                    // choices, thousands on lanes-150-m2, each cut short in
                    // turn until the deadline (tests/choices.rs).
                    let v = if natural {
                        let effort = opts.alone_sub_time * CHOICES.first_at_level;
                        let by = deadline.capped_effort(effort.max(deadline.remaining() / 4));
                        s.decide_alone(&choice, Ask::AtMost(level), by.remaining(), &by)
                    } else {
                        s.decide(&choice, Ask::AtMost(level), time, deadline)
                    };
                    match v {
                        Verdict::Proven => optimal = true,
                        Verdict::Refuted(set) if set.is_empty() => {
                            level = s.next_level(level);
                            sub_time = s.first_time(opts);
                        }
                        Verdict::Refuted(set) => refuted.push((set, level)),
                        Verdict::Undecided | Verdict::TooLarge => skipped.push(choice),
                    }
                }
                None => skipped.push(choice),
            }
        }
        s.stats.skipped = skipped.len();
        s.stats.sub_time = sub_time.as_secs_f64();
        if optimal || u128::from(level) >= s.ub {
            return Found::Optimal;
        }
        at_levels.keep(refuted, level);
        Found::Bound(Some(level))
    }
}
