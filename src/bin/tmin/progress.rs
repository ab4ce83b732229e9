//! `tmin solve --progress FILE|-`: the solve's events as JSON lines, each
//! written and flushed as it comes (a reader following the file sees it at
//! once), then the result. A write that fails is kept and reported after the
//! result (exit 74), never silently dropped; the search goes on meanwhile.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use tmin::events::Events;
use tmin::report;
use tmin::solve::SolveResult;

use crate::io::Failure;

pub(crate) struct EventLog {
    shared: Arc<Shared>,
    events: Events,
}

struct Shared {
    /// The destination, for messages.
    name: String,
    out: Mutex<Box<dyn Write + Send>>,
    /// The first failed write.
    failed: Mutex<Option<String>>,
}

impl Shared {
    fn line(&self, text: &str) {
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        let w = out
            .write_all(text.as_bytes())
            .and_then(|_| out.write_all(b"\n"))
            .and_then(|_| out.flush());
        if let Err(e) = w {
            let mut f = self.failed.lock().unwrap_or_else(PoisonError::into_inner);
            f.get_or_insert_with(|| format!("--progress {}: {e}", self.name));
        }
    }
}

impl EventLog {
    /// The log into `path` ('-': stdout), created now: a path that cannot
    /// be created is a usage error (exit 2), before any solving.
    pub(crate) fn create(path: &Path) -> Result<EventLog, Failure> {
        let (name, out): (String, Box<dyn Write + Send>) = if path.as_os_str() == "-" {
            ("stdout".into(), Box::new(std::io::stdout()))
        } else {
            let f = std::fs::File::create(path)
                .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", path.display())))?;
            (path.display().to_string(), Box::new(f))
        };
        let shared = Arc::new(Shared {
            name,
            out: Mutex::new(out),
            failed: Mutex::new(None),
        });
        let to = shared.clone();
        let events =
            Events::to(move |e| to.line(&report::event_json(e, report::Wide::Digits).to_string()));
        Ok(EventLog { shared, events })
    }

    /// The sink the engines offer to.
    pub(crate) fn events(&self) -> Events {
        self.events.clone()
    }

    /// The last line: the result as reported.
    pub(crate) fn finish(&self, r: &SolveResult) {
        let v = report::result_event_json(r, self.events.seconds(), report::Wide::Digits);
        self.shared.line(&v.to_string());
    }

    /// The first write that failed, if any.
    pub(crate) fn failure(&self) -> Option<String> {
        self.shared
            .failed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}
