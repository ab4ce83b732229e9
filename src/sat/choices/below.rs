//! The choice search below the incumbent (models/sat.md §10): choices
//! from the relaxation, least first, each decided below the incumbent; the
//! bound is the least of the incumbent, the relaxation over what is left
//! and the choices still skipped.

use super::*;

impl Search<'_, '_> {
    /// Choices decided below the incumbent (models/sat.md §10): the bound
    /// is the least of the incumbent, the relaxation over the choices not
    /// tried and the least relaxed value of a choice still skipped.
    pub(super) fn descend(
        &mut self,
        bounds: &Bounds,
        deadline: &Deadline,
        opts: &ChoiceOptions,
    ) -> Found {
        let s = self;
        let mut tried: Vec<Vec<(u32, u32)>> = Vec::new();
        // (relaxed value, choice) of each skipped choice.
        let mut skipped: Vec<(u64, Vec<u32>)> = Vec::new();
        let mut sub_time = s.first_time(opts);
        let mut proven = false;
        let patient = |s: &Search| s.patient(opts);
        // The relaxation, enumerated exactly (its MILP where the
        // enumeration runs out), the level it stands at and its last choice.
        // Every choice not yet tried has a relaxed value of at least the
        // level, or the level is still the proven bound it starts at.
        let rel = crate::milp::aggregate::relaxation(s.inst, bounds, deadline);
        let mut level = s.lb;
        let mut after: Option<(u64, Vec<u32>)> = None;
        // Every choice is excluded: each was refuted below the incumbent
        // (or by a refutation before the search), or is skipped.
        let mut nothing_left = false;
        while !proven && !deadline.expired() && s.ub > u128::from(s.lb) && patient(s) {
            let exhausted = nothing_left || u128::from(level) >= s.ub;
            let max_skipped = if s.shared.is_some() {
                opts.max_skipped
            } else {
                opts.alone_max_skipped
            };
            if exhausted || skipped.len() >= max_skipped {
                if skipped.is_empty() {
                    // Nothing below the incumbent is left: it is optimal,
                    // or, without one, no schedule exists.
                    proven |= nothing_left;
                    break;
                }
                sub_time = longer(sub_time, opts);
                let mut left = Vec::new();
                for (v, choice) in std::mem::take(&mut skipped) {
                    if proven || deadline.expired() || s.ub <= u128::from(v) || !patient(s) {
                        // Out of time or patience, or no longer below the
                        // incumbent: such a choice needs no decision (its
                        // relaxed value bounds it).
                        if u128::from(v) < s.ub {
                            left.push((v, choice));
                        }
                        continue;
                    }
                    match s.decide(&choice, Ask::Below, sub_time, deadline) {
                        Verdict::Refuted(set) if set.is_empty() => proven = true,
                        Verdict::Refuted(set) => tried.push(set),
                        Verdict::Proven => proven = true,
                        Verdict::Undecided => left.push((v, choice)),
                        Verdict::TooLarge => {
                            s.stats.too_large = true;
                            left.push((v, choice));
                        }
                    }
                }
                skipped = left;
                if s.stats.too_large {
                    break;
                }
                continue;
            }
            // The least relaxed choice not tried: one within `level` from
            // the relaxation's exact enumeration, else the relaxation's
            // value over what is left becomes the level (`propose`, as at
            // the levels of the bound); the proposals' MILP solves can cost
            // more than the SAT answers they propose (results/policy.md).
            // Unsolved (no time left,
            // an error): the last value still bounds the choices not tried,
            // a superset of those left.
            let (value, choice) =
                match s.propose(rel.as_ref(), bounds, &tried, level, &mut after, deadline) {
                    Proposal::Unsolved => break,
                    Proposal::Within(choice) => (level, choice),
                    Proposal::Beyond(value, _) => {
                        level = s.at_least(value);
                        continue;
                    }
                    Proposal::Exhausted => {
                        nothing_left = true;
                        continue;
                    }
                };
            s.stats.tried += 1;
            tried.push(whole_choice(&choice));
            // No window net here: below the incumbent the shared encoding's
            // refutations come fast and keep few tilings (its failed
            // assumptions), and each excludes many choices; the net's keep
            // most of the choice, so each excludes little.
            match s.decide(&choice, Ask::Below, sub_time, deadline) {
                Verdict::Refuted(set) if set.is_empty() => proven = true,
                // A refutation that needed only part of the choice excludes
                // every choice with that part (below the incumbent, which
                // only falls: for the rest of the search).
                Verdict::Refuted(set) => {
                    if set.len() < choice.len() {
                        tried.push(set);
                    }
                }
                Verdict::Proven => proven = true,
                Verdict::Undecided => skipped.push((value, choice)),
                Verdict::TooLarge => {
                    skipped.push((value, choice));
                    s.stats.too_large = true;
                    break;
                }
            }
        }
        s.stats.skipped = skipped.len();
        s.stats.sub_time = sub_time.as_secs_f64();
        if proven {
            return Found::Optimal;
        }
        // At the starting level (nothing proposed) this is the proven
        // bound itself, which raises nothing.
        let least_skipped = skipped.iter().map(|&(v, _)| v).min().unwrap_or(u64::MAX);
        Found::Bound(Some(level.min(least_skipped)))
    }
}
