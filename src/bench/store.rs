//! The folder on disk: durable writes, and reading results.jsonl back without
//! trusting a torn line or a schedule that is not the one its line names.
//!
//! Order of writes for one instance: the schedule goes to a temporary file,
//! is synced and renamed into place (and the folder synced); only then is the
//! line appended and synced. After a crash at any point, either the line is
//! complete and its schedule is there with the hash it names, or the instance
//! has no complete line and is solved again.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::BenchError;
use super::record::Record;
use crate::digest::sha256_file;

pub(super) const JSONL: &str = "results.jsonl";

/// Writes `bytes` to `path` so that `path` is either the old file or the
/// whole new one: a temporary file in the same folder, synced, renamed, and
/// the folder synced so the rename survives a power loss.
pub(super) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}{TMP_MARK}{}-{n}", std::process::id()));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)?;
        sync_dir(dir)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// In the name of a temporary file of `write_atomic`.
const TMP_MARK: &str = ".tmp-";

/// Removes the temporary files a killed run left in `dir` (only while the
/// folder's lock is held: no other writer has any in flight).
pub(super) fn remove_stale_temporaries(dir: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') && name.contains(TMP_MARK) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Syncs a folder's entries (renames, new files). Some file systems refuse to
/// sync a folder; that is no reason to stop a run.
fn sync_dir(dir: &Path) -> io::Result<()> {
    match File::open(dir).and_then(|d| d.sync_all()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => Ok(()),
        Err(e) if e.raw_os_error() == Some(22) => Ok(()), // EINVAL: not supported
        Err(e) => Err(e),
    }
}

/// The complete, trusted lines of a folder, and what was dropped and why.
pub(super) struct Loaded {
    pub records: Vec<Record>,
    pub dropped: Vec<String>,
}

/// Reads `dir/results.jsonl`: every line that parses, is consistent, and
/// whose schedule file (if any) has the hash it names. Later lines for the
/// same instance replace earlier ones.
pub(super) fn load(dir: &Path) -> io::Result<Loaded> {
    let path = dir.join(JSONL);
    let text = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    let text = String::from_utf8_lossy(&text);
    let mut records: Vec<Record> = Vec::new();
    let mut at: HashMap<(String, String), usize> = HashMap::new();
    let mut dropped = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let where_ = format!("{}:{}", path.display(), i + 1);
        let rec = serde_json::from_str::<serde_json::Value>(line)
            .map_err(|e| format!("torn or not JSON ({e})"))
            .and_then(|v| Record::from_json(&v));
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                dropped.push(format!("{where_}: {e}: not trusted, redone"));
                continue;
            }
        };
        if let Err(e) = check_schedule(dir, &rec) {
            dropped.push(format!("{where_} ({}): {e}: redone", rec.name));
            continue;
        }
        match at.get(&rec.key()) {
            Some(&j) => records[j] = rec,
            None => {
                at.insert(rec.key(), records.len());
                records.push(rec);
            }
        }
    }
    Ok(Loaded { records, dropped })
}

/// The trusted lines of an existing bench folder given as input to `what`
/// (`merge`, `comparison`): a path without results.jsonl or an unreadable
/// one is a usage error; the lines `load` drops are logged as left out.
pub(super) fn input_folder(dir: &Path, what: &str) -> Result<Vec<Record>, BenchError> {
    if !dir.join(JSONL).is_file() {
        return Err(BenchError::Usage(format!(
            "{}: not a bench folder (no {JSONL})",
            dir.display()
        )));
    }
    let loaded = load(dir).map_err(|e| BenchError::Usage(format!("{}: {e}", dir.display())))?;
    for msg in &loaded.dropped {
        log::warn!("{msg}: left out of the {what}");
    }
    Ok(loaded.records)
}

/// The schedule file a line names exists and has the hash the line names.
pub(super) fn check_schedule(dir: &Path, rec: &Record) -> Result<(), String> {
    let (Some(rel), Some(want)) = (&rec.schedule, &rec.schedule_hash) else {
        return Ok(());
    };
    let path = dir.join(rel);
    match sha256_file(&path) {
        Ok(h) if &h == want => Ok(()),
        Ok(_) => Err(format!(
            "{} does not match its line (changed or incomplete)",
            path.display()
        )),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// Replaces results.jsonl by exactly these lines (atomically).
pub(super) fn rewrite(dir: &Path, records: &[Record]) -> io::Result<()> {
    let mut text = String::new();
    for r in records {
        text.push_str(&r.to_json().to_string());
        text.push('\n');
    }
    write_atomic(&dir.join(JSONL), text.as_bytes())
}

/// Appends lines to results.jsonl, each synced before the next instance is
/// counted as done. Only the run's one writer (the main thread) holds it.
pub(super) struct Appender {
    file: File,
}

impl Appender {
    pub(super) fn open(dir: &Path) -> io::Result<Appender> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(JSONL))?;
        Ok(Appender { file })
    }
    /// One line, written with one call and synced.
    pub(super) fn append(&mut self, rec: &Record) -> io::Result<()> {
        let mut line = rec.to_json().to_string();
        line.push('\n');
        self.file.write_all(line.as_bytes())?;
        self.file.sync_data()
    }
}

/// `schedules/NAME.schedule`, relative to the folder (as lines record it).
pub(super) fn schedule_rel(name: &str) -> String {
    format!("schedules/{name}.schedule")
}

pub(super) fn schedule_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(schedule_rel(name))
}
