//! `tmin bench`: one solve per instance of a set, resumable, parallel and
//! sliceable across machines; `tmin bench merge`: one table from many runs.
//!
//! A bench folder holds `results.jsonl` (one line per finished instance,
//! appended and synced only after its schedule file is complete),
//! `schedules/NAME.schedule`, and, rewritten at the end, `results.csv` and
//! `summary.md`. An instance is identified by the SHA-256 of its file content
//! and its format; the settings (engine, time limit, seed, threads) are the
//! folder's, so a rerun skips every instance with a complete line, wherever
//! its file now lives.

mod compare;
mod inputs;
mod merge;
mod record;
mod run;
mod store;
mod summary;

pub use run::read_input;

use std::path::PathBuf;
use std::time::Duration;

use crate::registry::EngineChoice;

pub use compare::{Comparison, compare};
pub use merge::merge;
pub use record::Record;
pub use run::run;

/// How the instance files are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The competition text format (`*.txt` in directories).
    Txt,
    /// Job shops in the OR-Library format, through `tmin import jsp`.
    Jsp,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Txt => "txt",
            Format::Jsp => "jsp",
        }
    }
}

/// The settings that, with the content hash, identify a result.
#[derive(Clone, Debug)]
pub struct Settings {
    pub engine: EngineChoice,
    /// `--time-limit` as given (recorded in every line).
    pub time_limit: f64,
    /// The same limit as a duration (capped like `tmin solve`'s).
    pub limit: Duration,
    pub seed: u64,
    pub threads: usize,
}

/// Everything `tmin bench` was asked.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    pub inputs: Vec<PathBuf>,
    pub out: PathBuf,
    pub settings: Settings,
    pub jobs: usize,
    /// `(k, n)`: the k-th (1-based) of n slices.
    pub shard: Option<(usize, usize)>,
    pub format: Format,
}

/// Why a bench or merge failed, by exit code.
#[derive(Debug)]
pub enum BenchError {
    /// Bad arguments (exit 2).
    Usage(String),
    /// Unreadable instances (exit 2): the others were solved and recorded.
    Input(String),
    /// A bug, or runs that disagree (exit 70).
    Internal(String),
    /// The folder could not be written (exit 74).
    Output(String),
}

/// Parses `K/N` with 1 <= K <= N.
pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--shard expects K/N with 1 <= K <= N (e.g. 2/8), got '{s}'");
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let k: usize = k.trim().parse().map_err(|_| bad())?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    if k == 0 || n == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// Creates the output folder (not its parents: a mistyped parent is an
/// argument error, not a tree of new folders) and its `schedules/`.
fn create_out_dir(out: &std::path::Path) -> Result<(), BenchError> {
    if !out.is_dir() {
        let parent = out
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new("."));
        if !parent.is_dir() {
            return Err(BenchError::Usage(format!(
                "--out {}: its parent folder {} does not exist",
                out.display(),
                parent.display()
            )));
        }
        std::fs::create_dir(out).map_err(|e| {
            BenchError::Usage(format!("--out {}: cannot create it: {e}", out.display()))
        })?;
    }
    let sched = out.join("schedules");
    if !sched.is_dir() {
        std::fs::create_dir(&sched)
            .map_err(|e| BenchError::Usage(format!("cannot create {}: {e}", sched.display())))?;
    }
    Ok(())
}

/// Holds the folder's lock file while a run or merge writes it: two writers
/// (say, a Slurm array resubmitted while the first still runs) would
/// interleave their rewrites of results.jsonl. An advisory `flock`: the
/// kernel drops it when the process ends, however it ends, so a killed run
/// never leaves a stale lock behind (`File::try_lock` does the same but needs
/// Rust 1.89; the crate supports 1.88).
fn lock_out_dir(out: &std::path::Path) -> Result<std::fs::File, BenchError> {
    let path = out.join(".lock");
    let f = std::fs::File::create(&path)
        .map_err(|e| BenchError::Output(format!("{}: {e}", path.display())))?;
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: flock only reads the descriptor, which `f` owns and keeps
        // open for the call; no memory is passed.
        let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc != 0 {
            let e = std::io::Error::last_os_error();
            return Err(if e.kind() == std::io::ErrorKind::WouldBlock {
                BenchError::Usage(format!(
                    "{}: another tmin bench is writing this folder",
                    out.display()
                ))
            } else {
                BenchError::Output(format!("{}: cannot lock: {e}", path.display()))
            });
        }
    }
    Ok(f)
}
