//! Timetable reasoning on cumulative resources (models/bounds.md §7, rule 4): a
//! core type of several cores, or a memory type whose holds outlast the runs.
//! Every task has a *compulsory part*, the instants it holds in every
//! placement its window allows; where the compulsory parts of a resource add
//! up to more than its capacity no schedule fits, and a task may not start
//! where its own least hold would meet a part of the profile with too little
//! room left for it.
//!
//! For memory the least hold is what makes the check strong on tight
//! instances: by the release rule (problem.md §4 rule 4) a node holds from its
//! start until its end *and* until every successor demanding the same type
//! has started, so a node `x` whose latest start is `lst_x` holds over
//! `[lst_x, max(ect_x, est_y))` for each such successor `y` whatever the
//! schedule, far more than the run's `[lst_x, ect_x)` when `y` cannot start
//! early.

use super::windows::Windows;

/// Tasks a resource checks placements for at most (the check costs tasks
/// times profile segments); larger ones get the overload check only.
const MAX_PLACEMENTS: usize = 400;

/// A resource of `capacity` per instant and the tasks demanding it.
#[derive(Clone, Debug, Default)]
pub struct Cumulative {
    /// Exact, as the instance says: a capacity or demand cut down to a
    /// smaller type would make the check refute legal schedules.
    pub capacity: u64,
    pub tasks: Vec<u32>,
    /// Per task, its demand, in `1..=capacity`.
    pub demand: Vec<u64>,
    /// Per task, the tasks whose starts its hold lasts until (the successors
    /// demanding the same memory type); empty for a core type.
    pub handover: Vec<Vec<u32>>,
}

impl Cumulative {
    /// Whether some instant could see more demand than the capacity: if not,
    /// the resource never constrains anything.
    pub fn can_overload(&self) -> bool {
        let total: i128 = self.demand.iter().map(|&d| i128::from(d)).sum();
        self.tasks.len() >= 2 && total > i128::from(self.capacity)
    }
}

/// One stretch `[a, b)` of the profile with its height.
#[derive(Clone, Copy, Debug)]
struct Segment {
    a: i64,
    b: i64,
    height: i128,
}

/// The earliest end of the hold of task `i` (index into `c.tasks`) if it
/// starts at `s`: the run, and every handover successor's earliest start.
fn least_release(c: &Cumulative, i: usize, s: i64, dur: &[i64], w: &Windows) -> i64 {
    let v = c.tasks[i] as usize;
    c.handover[i]
        .iter()
        .fold(s + dur[v], |r, &y| r.max(w.est[y as usize]))
}

/// The compulsory part of task `i`: `[lst, least release from est)` when
/// not empty. A start `s <= lst` holds over `[s, R)` with `R` at least the
/// least release from `est <= s`, so it covers `[lst, that)`.
fn compulsory(c: &Cumulative, i: usize, dur: &[i64], w: &Windows) -> Option<(i64, i64)> {
    let v = c.tasks[i] as usize;
    let lst = w.lct[v] - dur[v];
    let end = least_release(c, i, w.est[v], dur, w);
    (lst < end).then_some((lst, end))
}

/// Timetable check and filtering of one cumulative resource: `None` when
/// the compulsory parts overload it or some task has no start left, else
/// whether a window narrowed.
pub fn timetable(c: &Cumulative, dur: &[i64], w: &mut Windows) -> Option<bool> {
    let parts: Vec<Option<(i64, i64)>> = (0..c.tasks.len())
        .map(|i| compulsory(c, i, dur, w))
        .collect();
    let mut events: Vec<(i64, i128)> = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        if let Some((a, b)) = *p {
            events.push((a, i128::from(c.demand[i])));
            events.push((b, -i128::from(c.demand[i])));
        }
    }
    if events.is_empty() {
        return Some(false);
    }
    events.sort_unstable();
    let cap = i128::from(c.capacity);
    let mut profile: Vec<Segment> = Vec::new();
    let mut height = 0i128;
    let mut k = 0;
    while k < events.len() {
        let t = events[k].0;
        while k < events.len() && events[k].0 == t {
            height += events[k].1;
            k += 1;
        }
        if height > cap {
            return None;
        }
        if height > 0 && k < events.len() {
            profile.push(Segment {
                a: t,
                b: events[k].0,
                height,
            });
        }
    }
    if c.tasks.len() > MAX_PLACEMENTS {
        return Some(false);
    }
    let mut changed = false;
    let mut forbidden: Vec<(i64, i64)> = Vec::new();
    for (i, &own) in parts.iter().enumerate() {
        let v = c.tasks[i] as usize;
        let d = i128::from(c.demand[i]);
        let (est, lst) = (w.est[v], w.lct[v] - dur[v]);
        // The hold of a start `s` covers at least `[s, max(s + p, h))`.
        let h = least_release(c, i, i64::MIN / 4, dur, w);
        if dur[v] == 0 && h <= est {
            continue; // holds nothing wherever it starts
        }
        forbidden.clear();
        for seg in &profile {
            let mine = own.is_some_and(|(a, b)| a <= seg.a && seg.b <= b);
            let rest = seg.height - if mine { d } else { 0 };
            if rest + d <= cap {
                continue;
            }
            // Starts `s` whose least hold `[s, max(s + p, h))` meets
            // `[a, b)`: `s < b` and `max(s + p, h) > a`, the hold not empty
            // (for `p = 0`: `s < h`).
            if h > seg.a {
                let b = if dur[v] == 0 { seg.b.min(h) } else { seg.b };
                forbidden.push((i64::MIN / 4, b - 1));
            } else if dur[v] > 0 {
                forbidden.push((seg.a - dur[v] + 1, seg.b - 1));
            }
        }
        if forbidden.is_empty() {
            continue;
        }
        forbidden.sort_unstable();
        let (new_est, new_lst) = allowed_range(&forbidden, est, lst)?;
        if new_est > est || new_lst < lst {
            w.est[v] = new_est;
            w.lct[v] = new_lst + dur[v];
            changed = true;
        }
    }
    Some(changed)
}

/// The least and the greatest integer of `[lo, hi]` outside every interval
/// of `forbidden` (closed, sorted by start); `None` when there is none.
fn allowed_range(forbidden: &[(i64, i64)], lo: i64, hi: i64) -> Option<(i64, i64)> {
    // Merge into disjoint closed intervals.
    let mut merged: Vec<(i64, i64)> = Vec::with_capacity(forbidden.len());
    for &(a, b) in forbidden {
        match merged.last_mut() {
            Some(last) if a <= last.1 + 1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    let mut first = lo;
    for &(a, b) in &merged {
        if a <= first && first <= b {
            first = b + 1;
        }
    }
    let mut last = hi;
    for &(a, b) in merged.iter().rev() {
        if a <= last && last <= b {
            last = a - 1;
        }
    }
    (first <= last).then_some((first, last))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn core(capacity: u64, tasks: Vec<u32>) -> Cumulative {
        let n = tasks.len();
        Cumulative {
            capacity,
            tasks,
            demand: vec![1; n],
            handover: vec![Vec::new(); n],
        }
    }

    /// A memory of `capacity`: per holder, its task, demand and handover.
    fn memory(capacity: u64, holders: &[(u32, u64, &[u32])]) -> Cumulative {
        Cumulative {
            capacity,
            tasks: holders.iter().map(|h| h.0).collect(),
            demand: holders.iter().map(|h| h.1).collect(),
            handover: holders.iter().map(|h| h.2.to_vec()).collect(),
        }
    }

    fn windows(est: &[i64], lct: &[i64]) -> Windows {
        Windows {
            est: est.to_vec(),
            lct: lct.to_vec(),
        }
    }

    #[test]
    fn compulsory_parts_overload_two_cores() {
        // Three tasks of 4 fixed in [0, 4) on two cores.
        let c = core(2, vec![0, 1, 2]);
        let mut w = windows(&[0, 0, 0], &[4, 4, 4]);
        assert_eq!(timetable(&c, &[4, 4, 4], &mut w), None);
        // Two of them fit, and leave the third no room there.
        let mut w = windows(&[0, 0, 0], &[4, 4, 20]);
        assert_eq!(timetable(&c, &[4, 4, 4], &mut w), Some(true));
        assert_eq!(w.est[2], 4);
    }

    #[test]
    fn a_hold_lasts_until_the_successor_starts() {
        // Memory of 10. Task 0 (demand 6, run [0, 2)) hands over to task 1,
        // which cannot start before 8: task 0 holds 6 over [0, 8). Task 2
        // (demand 5, duration 3) must start at 8 or later.
        let dur = [2, 1, 3];
        let c = memory(10, &[(0, 6, &[1]), (2, 5, &[])]);
        let mut w = windows(&[0, 8, 0], &[2, 20, 20]);
        assert_eq!(timetable(&c, &dur, &mut w), Some(true));
        assert_eq!(w.est[2], 8);
        // With the run alone (no handover) task 2 could start at 2.
        let run_only = memory(10, &[(0, 6, &[]), (2, 5, &[])]);
        let mut w = windows(&[0, 8, 0], &[2, 20, 20]);
        assert_eq!(timetable(&run_only, &dur, &mut w), Some(true));
        assert_eq!(w.est[2], 2);
    }

    #[test]
    fn a_task_whose_hold_must_span_a_full_stretch_has_no_start() {
        // Task 1 (demand 6) holds [0, 10) in every placement. Task 0
        // (demand 5, start in [0, 9]) hands over to task 2, which cannot
        // start before 9: wherever it starts, it holds 5 beside the 6 until
        // 9 at least. Its compulsory part is empty, the profile fits: the
        // placements refute it.
        let c = memory(10, &[(0, 5, &[2]), (1, 6, &[])]);
        let mut w = windows(&[0, 0, 9], &[10, 10, 20]);
        assert_eq!(timetable(&c, &[1, 10, 1], &mut w), None);
        // With room up to 12 (and the successor free from 1) it starts
        // after the stretch: at 10.
        let mut w = windows(&[0, 0, 1], &[12, 10, 20]);
        assert_eq!(timetable(&c, &[1, 10, 1], &mut w), Some(true));
        assert_eq!((w.est[0], w.lct[0]), (10, 12));
    }

    #[test]
    fn latest_starts_move_down_past_a_full_stretch() {
        // Two cores busy over [6, 10) by tasks 0 and 1; task 2 (duration 3,
        // window [0, 12)) cannot run across it: it must end by 6.
        let c = core(2, vec![0, 1, 2]);
        let mut w = windows(&[6, 6, 0], &[10, 10, 12]);
        assert_eq!(timetable(&c, &[4, 4, 3], &mut w), Some(true));
        assert_eq!((w.est[2], w.lct[2]), (0, 6));
    }

    #[test]
    fn allowed_range_skips_merged_intervals() {
        assert_eq!(allowed_range(&[(0, 3), (4, 6)], 0, 10), Some((7, 10)));
        assert_eq!(allowed_range(&[(0, 3), (8, 12)], 0, 10), Some((4, 7)));
        assert_eq!(allowed_range(&[(-100, 12)], 0, 10), None);
        assert_eq!(allowed_range(&[(2, 3)], 0, 10), Some((0, 10)));
    }
}
