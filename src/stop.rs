//! When a step of a search stops: at an instant of the wall clock (the time
//! limit, or a share of it), or once the calling thread has used an amount
//! of CPU time of its own (the effort the step is given), whichever comes
//! first.
//!
//! Why CPU time for efforts: the engines decide what to do next from how a
//! step ended (a choice refuted, or left undecided and tried again later; a
//! tiling refuted before the search, or not). On a loaded machine a step
//! given one second of the wall clock gets half a second of work, ends
//! undecided where it would have answered, and the search takes another
//! path (results/policy.md: three times as long to the proof under a 2x
//! load). Given
//! one second of its thread's CPU time, the step does the same work on a
//! quiet and a busy machine; only the time limit, which is the user's
//! promise, stays on the wall clock.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A flag that ends a search early, shared by the threads that watch it:
/// set by its owner (the portfolio once one engine has settled the
/// instance; a library caller, such as Ctrl-C in Python), and counted as
/// set whenever the flag it was made from (`child`) is set. So a caller's
/// flag reaches every engine, whatever flags the portfolio makes below it.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<CancelNode>);

#[derive(Debug, Default)]
struct CancelNode {
    flag: AtomicBool,
    parent: Option<Cancel>,
}

impl Cancel {
    /// A flag of its own, not set.
    pub fn new() -> Cancel {
        Cancel::default()
    }
    /// Sets this flag (and so every flag made from it).
    pub fn set(&self) {
        self.0.flag.store(true, Ordering::Relaxed);
    }
    /// Whether this flag or one it was made from is set.
    pub fn is_set(&self) -> bool {
        let mut c = self;
        loop {
            if c.0.flag.load(Ordering::Relaxed) {
                return true;
            }
            match &c.0.parent {
                Some(p) => c = p,
                None => return false,
            }
        }
    }
    /// A new flag, set by its own `set` or by this one's.
    pub fn child(&self) -> Cancel {
        Cancel(Arc::new(CancelNode {
            flag: AtomicBool::new(false),
            parent: Some(self.clone()),
        }))
    }
}

/// CPU time the calling thread has used, `None` where the platform does
/// not measure it (efforts then fall back to the wall clock).
pub fn thread_cpu() -> Option<Duration> {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec; the call writes only it.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        if rc == 0 && ts.tv_sec >= 0 && ts.tv_nsec >= 0 {
            return Some(Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32));
        }
        None
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// A stop: the wall-clock instant, and optionally the thread CPU time (as
/// `thread_cpu` reads it) at which the step ends. A `Stop` belongs to the
/// thread that made it (another thread's CPU clock is another clock).
#[derive(Clone, Copy, Debug)]
pub struct Stop {
    wall: Instant,
    cpu: Option<Duration>,
}

impl Stop {
    /// At the instant `wall` only.
    pub fn at(wall: Instant) -> Stop {
        Stop { wall, cpu: None }
    }

    /// At `wall`, or once the thread's CPU time reaches `cpu`.
    pub fn new(wall: Instant, cpu: Option<Duration>) -> Stop {
        Stop { wall, cpu }
    }

    /// The same stop, ending once the thread's CPU time reaches `cpu` at
    /// the latest.
    pub fn with_effort_end(self, cpu: Duration) -> Stop {
        Stop {
            cpu: Some(self.cpu.map_or(cpu, |c| c.min(cpu))),
            ..self
        }
    }

    /// After `effort` of this thread's CPU time from now, and at `wall` at
    /// the latest. Without a thread clock: `effort` of the wall clock.
    pub fn after(effort: Duration, wall: Instant) -> Stop {
        match thread_cpu() {
            Some(now) => Stop {
                wall,
                cpu: now.checked_add(effort),
            },
            None => Stop::at(wall.min(instant_after(Instant::now(), effort))),
        }
    }

    /// Whether the stop has come.
    pub fn passed(&self) -> bool {
        self.passed_within(Duration::ZERO)
    }

    /// Whether the stop comes within `margin` of the wall clock (a step
    /// that must end by then, e.g. to free its memory) or the effort is
    /// spent.
    pub fn passed_within(&self, margin: Duration) -> bool {
        instant_after(Instant::now(), margin) >= self.wall
            || self
                .cpu
                .is_some_and(|c| thread_cpu().is_none_or(|now| now >= c))
    }
}

impl From<Instant> for Stop {
    fn from(wall: Instant) -> Stop {
        Stop::at(wall)
    }
}

/// CPU time of this thread since a start, for reports of how much effort a
/// step took (the wall clock where the thread clock is missing).
#[derive(Clone, Copy, Debug)]
pub struct CpuTimer {
    cpu: Option<Duration>,
    wall: Instant,
}

impl CpuTimer {
    pub fn start() -> CpuTimer {
        CpuTimer {
            cpu: thread_cpu(),
            wall: Instant::now(),
        }
    }

    /// CPU time used since the start.
    pub fn elapsed(&self) -> Duration {
        match (self.cpu, thread_cpu()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => self.wall.elapsed(),
        }
    }
}

/// The pace of a pass over a list of `n` items (the nodes of a schedule
/// pass), for a stop earlier than the deadline: once the pass has had a
/// fair try (`PACE_PATIENCE` of the time it had when it began, and at least
/// `PACE_AFTER`), with `done` items done, the rest at its pace so far (time
/// per item) would take more than `PACE_MARGIN` times the time the deadline
/// leaves. Such a pass ends in time only if its pace quickens that much;
/// stopped, it leaves the time to what comes after it. The passes that
/// stall are the ones that fail: where memory keeps nodes waiting, an
/// insertion pass spends its steps early in its list (retries of waiting
/// nodes) and ends on its step budget, and a parallel pass drains its ready
/// nodes again and again before it deadlocks. A pass that completes may
/// begin slowly too (a memory-reserving pass over hundreds of thousands of
/// ready nodes made 0.1 % of its starts in its first quarter second and the
/// rest in 0.6 s), hence the fair try before the pace is judged
/// (results/policy.md, "Passes that cannot end in time").
#[derive(Clone, Debug)]
pub struct Pace {
    began: Instant,
    /// When the pace is judged from.
    fair: Duration,
    n: usize,
}

/// See `Pace`.
const PACE_MARGIN: f64 = 4.0;
/// See `Pace`.
const PACE_PATIENCE: f64 = 0.25;
/// See `Pace`.
const PACE_AFTER: Duration = Duration::from_millis(100);

impl Pace {
    /// A pass over `n` items beginning now, to end by `deadline`.
    pub fn new(n: usize, deadline: &Deadline) -> Pace {
        Pace {
            began: Instant::now(),
            fair: deadline.remaining().mul_f64(PACE_PATIENCE).max(PACE_AFTER),
            n,
        }
    }

    /// Whether the pass, `done` items into its list, cannot end before
    /// `deadline` at its pace so far (`PACE_MARGIN`); logged when it cannot.
    pub fn behind(&self, done: usize, deadline: &Deadline) -> bool {
        let spent = self.began.elapsed();
        if spent < self.fair || done == 0 {
            return false;
        }
        let rest = spent.as_secs_f64() * self.n.saturating_sub(done) as f64 / done as f64;
        let left = deadline.remaining().as_secs_f64();
        let behind = rest > PACE_MARGIN * left;
        if behind {
            log::debug!(
                "a pass stopped behind its pace: {done} of {} after {:.2} s, the rest would take {rest:.1} s with {left:.1} s left",
                self.n,
                spent.as_secs_f64()
            );
        }
        behind
    }
}

/// A wall-clock deadline, optionally cut short by a shared cancel flag (the
/// portfolio stops the other engines once one has a proof) and by an effort
/// of the thread's CPU time (`capped_effort`).
#[derive(Clone, Debug)]
pub struct Deadline {
    pub start: Instant,
    pub end: Instant,
    pub cancel: Option<Cancel>,
    /// The thread CPU time (`thread_cpu`) at which the deadline ends
    /// too: set by `capped_effort` on the thread that then uses it (another
    /// thread's CPU clock is another clock).
    pub effort_end: Option<Duration>,
}

/// Time limits beyond this (about ten years) mean "no limit".
pub const NO_LIMIT_SECS: f64 = 10.0 * 365.25 * 86_400.0;

/// A time limit in seconds as a Duration (`--time-limit`, Python's
/// `time_limit=`): `None` unless finite and non-negative; above ten years
/// (or beyond what a Duration holds, e.g. 1e30) it is ten years, i.e. no
/// limit.
pub fn time_limit(secs: f64) -> Option<Duration> {
    if !(secs.is_finite() && secs >= 0.0) {
        return None;
    }
    let capped = secs.min(NO_LIMIT_SECS);
    Some(Duration::try_from_secs_f64(capped).unwrap_or(Duration::from_secs(NO_LIMIT_SECS as u64)))
}

/// The instant `d` after `from`, or a far-future instant when `from + d` is not
/// representable (`Instant + Duration` panics on overflow): a time limit of
/// 10^19 s means no limit, not a crash.
pub fn instant_after(from: Instant, d: Duration) -> Instant {
    from.checked_add(d).unwrap_or_else(|| far_future(from))
}

/// An instant decades after `from` (as far as the platform represents, at
/// least a day): "no deadline" for code that needs an `Instant`.
pub fn far_future(from: Instant) -> Instant {
    for secs in [1u64 << 30, 1 << 25, 1 << 20, 1 << 16] {
        if let Some(t) = from.checked_add(Duration::from_secs(secs)) {
            return t;
        }
    }
    from
}

impl Deadline {
    /// `d` from now; saturates to a far-future instant (never panics).
    pub fn after(d: Duration) -> Self {
        let start = Instant::now();
        Deadline {
            start,
            end: instant_after(start, d),
            cancel: None,
            effort_end: None,
        }
    }
    /// An absolute end.
    pub fn until(end: Instant) -> Self {
        Deadline {
            start: Instant::now(),
            end,
            cancel: None,
            effort_end: None,
        }
    }
    /// The same deadline, also ending when `cancel` is set.
    pub fn with_cancel(&self, cancel: Option<Cancel>) -> Deadline {
        Deadline {
            cancel,
            ..self.clone()
        }
    }
    /// The same deadline, also ending when the returned flag is set (and
    /// still when this deadline's own flag is).
    pub fn cancellable(&self) -> (Deadline, Cancel) {
        let flag = self.cancel.as_ref().map_or_else(Cancel::new, Cancel::child);
        (self.with_cancel(Some(flag.clone())), flag)
    }
    pub fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(Cancel::is_set)
    }
    pub fn expired(&self) -> bool {
        self.cancelled() || self.stop().passed()
    }
    /// Time left: of the wall clock, and at most the effort left.
    pub fn remaining(&self) -> Duration {
        if self.cancelled() {
            return Duration::ZERO;
        }
        let wall = self.end.saturating_duration_since(Instant::now());
        match self.effort_left() {
            Some(e) => wall.min(e),
            None => wall,
        }
    }
    /// The effort left, where the deadline has one (zero without a thread
    /// clock: `capped_effort` then capped the wall clock instead).
    fn effort_left(&self) -> Option<Duration> {
        let end = self.effort_end?;
        Some(thread_cpu().map_or(Duration::ZERO, |now| end.saturating_sub(now)))
    }
    /// The deadline as a `Stop` (its wall end and effort end).
    pub fn stop(&self) -> Stop {
        Stop::new(self.end, self.effort_end)
    }
    /// A step's stop: `effort` of this thread's CPU time from now, within
    /// this deadline (its wall end and its own effort end).
    pub fn stop_after(&self, effort: Duration) -> Stop {
        let s = Stop::after(effort, self.end);
        match self.effort_end {
            Some(e) => s.with_effort_end(e),
            None => s,
        }
    }
    pub fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }
    /// The share `frac` of the remaining time, as a deadline (never later than
    /// this one; never panics, whatever `frac`).
    pub fn share(&self, frac: f64) -> Deadline {
        let now = Instant::now();
        let frac = if frac.is_nan() {
            0.0
        } else {
            frac.clamp(0.0, 1.0)
        };
        Deadline {
            start: now,
            end: instant_after(now, self.remaining().mul_f64(frac)).min(self.end),
            cancel: self.cancel.clone(),
            effort_end: self.effort_end,
        }
    }
    /// The instant `frac` of the remaining time from now (at most `end`).
    pub fn at_share(&self, frac: f64) -> Instant {
        self.share(frac).end
    }
    /// The same deadline, ending at most `d` from now.
    pub fn capped(&self, d: Duration) -> Deadline {
        Deadline {
            end: self.end.min(instant_after(Instant::now(), d)),
            ..self.clone()
        }
    }
    /// The same deadline, ending at the latest once this thread has used
    /// `d` of CPU time from now (the same work on a loaded machine;
    /// the wall end still holds). For the thread that calls it.
    pub fn capped_effort(&self, d: Duration) -> Deadline {
        match thread_cpu() {
            Some(now) => {
                let e = now.saturating_add(d);
                Deadline {
                    effort_end: Some(self.effort_end.map_or(e, |x| x.min(e))),
                    ..self.clone()
                }
            }
            None => self.capped(d),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spin_until(stop: &Stop) -> u64 {
        let mut n = 0u64;
        while !stop.passed() {
            n = n.wrapping_add(std::hint::black_box(1));
        }
        n
    }

    #[test]
    fn an_effort_stops_after_the_threads_own_time() {
        let cpu = CpuTimer::start();
        let stop = Stop::after(
            Duration::from_millis(30),
            instant_after(Instant::now(), Duration::from_secs(60)),
        );
        spin_until(&stop);
        let used = cpu.elapsed();
        assert!(used >= Duration::from_millis(30), "{used:?}");
    }

    /// `Pace`: not judged before its fair try (a quarter of the second its
    /// deadline left when it began); past it, a pass one item into a
    /// thousand would need 300 s more and is behind, one nine tenths
    /// through 0.04 s and is not (each side far from the margin, whatever
    /// the machine's load).
    #[test]
    fn a_pass_is_behind_its_pace_only_after_a_fair_try() {
        let pace = Pace::new(1000, &Deadline::after(Duration::from_secs(1)));
        // Judged against a later deadline: 10 s left, whatever the sleep.
        let d = Deadline::after(Duration::from_secs(10));
        assert!(!pace.behind(1, &d), "judged before its fair try");
        std::thread::sleep(Duration::from_millis(300));
        assert!(pace.behind(1, &d), "one item in 0.3 s, 999 to go");
        assert!(!pace.behind(900, &d), "900 items in 0.3 s, 100 to go");
        assert!(!pace.behind(0, &d), "no pace yet");
    }

    /// A caller's flag reaches a deadline made cancellable below it (as the
    /// portfolio does); the inner flag ends only its own deadline.
    #[test]
    fn a_callers_flag_ends_every_cancellable_deadline_below_it() {
        let outer = Cancel::new();
        let d = Deadline::after(Duration::from_secs(60)).with_cancel(Some(outer.clone()));
        let (inner_d, inner) = d.cancellable();
        let (sibling_d, _) = d.cancellable();
        assert!(!inner_d.expired() && !d.expired());
        inner.set();
        assert!(inner_d.expired() && inner_d.remaining() == Duration::ZERO);
        assert!(!d.expired() && !sibling_d.expired() && !outer.is_set());
        outer.set();
        assert!(d.expired() && sibling_d.expired() && inner_d.expired());
        // Without a caller's flag, a cancellable deadline has its own only.
        let (alone, flag) = Deadline::after(Duration::from_secs(60)).cancellable();
        assert!(!alone.expired());
        flag.set();
        assert!(alone.expired());
    }

    #[test]
    fn sleeping_uses_no_effort() {
        // A sleeping thread uses no CPU: an effort outlasts a sleep longer
        // than itself, where a wall-clock stop would have passed.
        if thread_cpu().is_none() {
            return;
        }
        let stop = Stop::after(
            Duration::from_millis(50),
            instant_after(Instant::now(), Duration::from_secs(60)),
        );
        std::thread::sleep(Duration::from_millis(120));
        assert!(!stop.passed());
    }

    #[test]
    fn a_deadline_capped_by_an_effort_ends_with_it_not_with_a_sleep() {
        use crate::stop::Deadline;
        if thread_cpu().is_none() {
            return;
        }
        let d = Deadline::after(Duration::from_secs(60)).capped_effort(Duration::from_millis(40));
        // Sleeping uses none of the effort: still open, and most of it left.
        std::thread::sleep(Duration::from_millis(100));
        assert!(!d.expired());
        assert!(
            d.remaining() > Duration::from_millis(20),
            "{:?}",
            d.remaining()
        );
        // A step's stop within it ends with the deadline's effort, even
        // when the step asked for more.
        let step = d.stop_after(Duration::from_secs(3600));
        let cpu = CpuTimer::start();
        spin_until(&step);
        assert!(d.expired());
        assert!(cpu.elapsed() < Duration::from_secs(10));
        // A share keeps the effort cap.
        assert!(d.share(0.5).expired());
    }

    #[test]
    fn the_wall_instant_stops_an_effort_too() {
        let stop = Stop::after(Duration::from_secs(3600), Instant::now());
        assert!(stop.passed());
        assert!(Stop::at(Instant::now()).passed());
    }
}
