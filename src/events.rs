//! Progress events: each better schedule and each higher lower bound as a
//! search finds it (`tmin solve --progress FILE|-`, one JSON line an event,
//! `report::event_json`; a library caller's own sink).
//!
//! The sink sees a makespan only when it is below every makespan it saw
//! before, and a bound only when it is above every bound before: the
//! events are monotone whatever order the engines (and their threads) offer
//! them in, since each offer is compared and passed on under one lock. A
//! makespan is offered only for a schedule that passed the validator
//! (`SolveResult::found`, whose results offer themselves with
//! `SolveResult::offer_to`, or `schedule::check` where an engine offers one
//! mid-search), and a bound only once proven. The caller reports the final
//! result itself, after its own checks; its values are never worse than the
//! last events (every event's schedule and bound are kept by the search).

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// One event.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A legal schedule better than every one before.
    Incumbent {
        /// Seconds since the sink was made (the start of the solve).
        seconds: f64,
        makespan: u128,
        /// The engine and its step that found it.
        engine: String,
        step: String,
    },
    /// A proven lower bound above every one before.
    Bound {
        seconds: f64,
        lower_bound: u64,
        source: String,
    },
}

type Sink = dyn Fn(&Event) + Send + Sync;

/// Where events go: nowhere (the default), or a sink shared by every engine
/// and thread of one solve.
#[derive(Clone, Default)]
pub struct Events {
    inner: Option<Arc<Inner>>,
}

struct Inner {
    start: Instant,
    /// The best makespan and the best bound passed on so far.
    best: Mutex<(Option<u128>, Option<u64>)>,
    sink: Box<Sink>,
}

impl Events {
    /// Events to `sink`, timed from now.
    pub fn to(sink: impl Fn(&Event) + Send + Sync + 'static) -> Events {
        Events {
            inner: Some(Arc::new(Inner {
                start: Instant::now(),
                best: Mutex::new((None, None)),
                sink: Box::new(sink),
            })),
        }
    }

    /// Whether anyone listens (offers are free where nobody does).
    pub fn listening(&self) -> bool {
        self.inner.is_some()
    }

    /// Offers a legal schedule's makespan; passed on when it is the best so
    /// far. `step` is asked for only then.
    pub fn incumbent(&self, makespan: u128, engine: &str, step: impl FnOnce() -> String) {
        let Some(inner) = &self.inner else { return };
        let mut best = inner.best.lock().unwrap_or_else(PoisonError::into_inner);
        if best.0.is_some_and(|b| makespan >= b) {
            return;
        }
        best.0 = Some(makespan);
        (inner.sink)(&Event::Incumbent {
            seconds: inner.start.elapsed().as_secs_f64(),
            makespan,
            engine: engine.to_string(),
            step: step(),
        });
    }

    /// Whether a makespan would be passed on now (below every one before).
    pub fn would_take(&self, makespan: u128) -> bool {
        self.inner.as_ref().is_some_and(|inner| {
            let best = inner.best.lock().unwrap_or_else(PoisonError::into_inner);
            best.0.is_none_or(|b| makespan < b)
        })
    }

    /// Offers a proven lower bound; passed on when it is the best so far.
    pub fn bound(&self, lower_bound: u64, source: &str) {
        let Some(inner) = &self.inner else { return };
        let mut best = inner.best.lock().unwrap_or_else(PoisonError::into_inner);
        if best.1.is_some_and(|b| lower_bound <= b) {
            return;
        }
        best.1 = Some(lower_bound);
        (inner.sink)(&Event::Bound {
            seconds: inner.start.elapsed().as_secs_f64(),
            lower_bound,
            source: source.to_string(),
        });
    }

    /// Seconds since the sink was made (0 without one).
    pub fn seconds(&self) -> f64 {
        self.inner
            .as_ref()
            .map_or(0.0, |i| i.start.elapsed().as_secs_f64())
    }
}

impl fmt::Debug for Events {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.listening() {
            "Events(listening)"
        } else {
            "Events(none)"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Offers from several threads at once, in any order: the sink sees
    /// makespans strictly falling and bounds strictly rising, and the best
    /// of each offered.
    #[test]
    fn offers_from_many_threads_reach_the_sink_monotone() {
        let seen: Arc<Mutex<Vec<Event>>> = Arc::default();
        let to = seen.clone();
        let events = Events::to(move |e| to.lock().unwrap().push(e.clone()));
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let events = events.clone();
                s.spawn(move || {
                    let mut rng = crate::rng::SplitMix64::new(t + 1);
                    for _ in 0..2000 {
                        let x = rng.below(1000);
                        events.incumbent(u128::from(1000 + x), "test", || format!("thread {t}"));
                        events.bound(x, "test");
                    }
                });
            }
        });
        let seen = seen.lock().unwrap();
        let ms: Vec<u128> = seen
            .iter()
            .filter_map(|e| match e {
                Event::Incumbent { makespan, .. } => Some(*makespan),
                _ => None,
            })
            .collect();
        let lb: Vec<u64> = seen
            .iter()
            .filter_map(|e| match e {
                Event::Bound { lower_bound, .. } => Some(*lower_bound),
                _ => None,
            })
            .collect();
        assert!(ms.windows(2).all(|w| w[1] < w[0]), "{ms:?}");
        assert!(lb.windows(2).all(|w| w[1] > w[0]), "{lb:?}");
        assert_eq!(ms.last(), Some(&1000));
        assert_eq!(lb.last(), Some(&999));
        assert!(!Events::default().would_take(1));
    }
}
