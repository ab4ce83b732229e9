//! Where `tmin solve --certify DIR` writes its certificates and what it
//! wrote: the store the SAT engine records into and the CLI reports from
//! (models/sat.md §8; writing and checking the certificates is
//! `sat::certify`).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Where `--certify` writes, and what it wrote (shared by the engine threads
/// of one solve: the SAT search records, the CLI reports).
#[derive(Debug)]
pub struct Certifier {
    dir: PathBuf,
    name: String,
    written: Mutex<Vec<Certificate>>,
}

/// One certificate written: a CNF and its proof of unsatisfiability.
#[derive(Clone, Debug)]
pub struct Certificate {
    /// What the unsatisfiability of the CNF means, in the instance's time:
    /// e.g. "no schedule with makespan <= 54".
    pub claim: String,
    /// The lower bound the claim proves (`None` for tiling pruning).
    pub bound: Option<u64>,
    /// The probe was at the horizon (the sum of durations) without any
    /// schedule: UNSAT there proves the instance infeasible.
    pub infeasible: bool,
    pub cnf: PathBuf,
    pub proof: PathBuf,
    pub vars: usize,
    pub clauses: usize,
    /// Writing the CNF and solving it again with the proof written.
    pub seconds: f64,
}

impl Certifier {
    /// Creates `dir` (and its parents) for the certificates of the instance
    /// called `name` (sanitised for file names, see `name_of`).
    pub fn new(dir: &Path, name: &str) -> io::Result<Self> {
        fs::create_dir_all(dir)?;
        if !dir.is_dir() {
            return Err(io::Error::other("not a directory"));
        }
        Ok(Certifier {
            dir: dir.to_path_buf(),
            name: sanitise(name),
            written: Mutex::new(Vec::new()),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The CNF and proof paths of a certificate tagged `tag` (e.g. `T54`).
    pub fn paths(&self, tag: &str) -> (PathBuf, PathBuf) {
        let stem = format!("{}-{}", self.name, sanitise(tag));
        (
            self.dir.join(format!("{stem}.cnf")),
            self.dir.join(format!("{stem}.proof")),
        )
    }

    pub fn record(&self, c: Certificate) {
        // A poisoned lock means a panicking engine thread: the panic is
        // reported (exit 70); the list is still sound to read.
        let mut w = self.written.lock().unwrap_or_else(|p| p.into_inner());
        // The same tag written again (a rebuilt search) replaces the entry.
        w.retain(|x| x.cnf != c.cnf);
        w.push(c);
    }

    /// The certificates written so far, in order.
    pub fn certificates(&self) -> Vec<Certificate> {
        self.written
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

/// The name certificates of the instance at `path` carry: its file name
/// without `.txt`/`.jsp` (`stdin` for `-`).
pub fn name_of(path: &Path) -> String {
    if path.as_os_str() == "-" {
        return "stdin".into();
    }
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| "instance".into());
    let stem = file
        .strip_suffix(".txt")
        .or_else(|| file.strip_suffix(".jsp"))
        .unwrap_or(&file);
    sanitise(stem)
}

/// Keeps letters, digits, `.`, `_` and `-`; anything else becomes `_`, so a
/// name never leaves the folder or needs quoting.
fn sanitise(s: &str) -> String {
    let out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with('.') {
        format!("i{out}")
    } else {
        out
    }
}
