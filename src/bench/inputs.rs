//! From the command line's INSTANCES to the set of instance files: files,
//! folders, list files; hashes, duplicates, names and shards.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::{BenchError, Format};
use crate::digest::sha256_file;

/// One instance file of the set.
#[derive(Clone, Debug)]
pub(super) struct Input {
    pub path: PathBuf,
    /// The file name without `.txt` (or `.jsp`): NAME of `schedules/NAME.schedule`.
    pub stem: String,
    pub hash: String,
}

/// Expands the arguments, in order: a folder gives its instance files (sorted;
/// not its subfolders), a list file the paths it names, a file itself.
pub(super) fn expand(args: &[PathBuf], format: Format) -> Result<Vec<PathBuf>, BenchError> {
    let mut out = Vec::new();
    for a in args {
        if a.is_dir() {
            out.extend(dir_files(a, format)?);
        } else if a.is_file() {
            match list_file(a)? {
                Some(paths) => {
                    for p in paths {
                        if p.is_dir() {
                            out.extend(dir_files(&p, format)?);
                        } else {
                            out.push(p);
                        }
                    }
                }
                None => out.push(a.clone()),
            }
        } else {
            return Err(BenchError::Usage(format!(
                "{}: no such file or folder",
                a.display()
            )));
        }
    }
    Ok(out)
}

/// The instance files of a folder: `*.txt`; with `--format jsp`, every file
/// without an extension or ending in `.jsp` or `.txt` (JSPLIB names its files
/// `abz5`, `ft06`; `optima.json` or a README beside them are not job shops).
fn dir_files(dir: &Path, format: Format) -> Result<Vec<PathBuf>, BenchError> {
    let rd = std::fs::read_dir(dir)
        .map_err(|e| BenchError::Usage(format!("{}: cannot list: {e}", dir.display())))?;
    let mut files = Vec::new();
    for entry in rd {
        let entry =
            entry.map_err(|e| BenchError::Usage(format!("{}: cannot list: {e}", dir.display())))?;
        let p = entry.path();
        if !p.is_file() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let ext = p.extension().map(|e| e.to_string_lossy().into_owned());
        let take = match format {
            Format::Txt => ext.as_deref() == Some("txt"),
            Format::Jsp => matches!(ext.as_deref(), None | Some("jsp") | Some("txt")),
        };
        if take && !(format == Format::Txt && starts_like_schedule(&p)) {
            files.push(p);
        }
    }
    files.sort();
    Ok(files)
}

/// A `*.txt` file that begins with `[` holds a schedule, not an instance (the
/// task book ships `example1.schedule.txt` beside `example1.txt`): a folder's
/// schedules are skipped, not reported as unreadable instances.
fn starts_like_schedule(p: &Path) -> bool {
    let mut buf = [0u8; 256];
    let n = std::fs::File::open(p)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut buf))
        .unwrap_or(0);
    let first = buf[..n].iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'[') {
        log::info!("{}: a schedule, not an instance: skipped", p.display());
        return true;
    }
    false
}

/// A list file, one path per line (`#` comments and blank lines skipped;
/// relative paths from the list's folder, else from the current folder), or
/// `None` when the file is an instance: it is a list exactly when every such
/// line names an existing file or folder (an instance's lines never do).
fn list_file(path: &Path) -> Result<Option<Vec<PathBuf>>, BenchError> {
    // A list is small text; an instance may be huge (never read it whole here).
    const LIST_MAX_BYTES: u64 = 16 << 20;
    if std::fs::metadata(path).is_ok_and(|m| m.len() > LIST_MAX_BYTES) {
        return Ok(None);
    }
    let bytes = std::fs::read(path)
        .map_err(|e| BenchError::Usage(format!("{}: cannot read: {e}", path.display())))?;
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Ok(None);
    };
    let base = path.parent().unwrap_or(Path::new(""));
    let mut paths = Vec::new();
    for line in text.lines() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let p = Path::new(l);
        let beside = base.join(p);
        if p.is_relative() && beside.exists() {
            paths.push(beside);
        } else if p.exists() {
            paths.push(p.to_path_buf());
        } else {
            return Ok(None);
        }
    }
    Ok((!paths.is_empty()).then_some(paths))
}

/// Hashes every file and drops repeated content (the same instance twice is
/// solved once; the repeat is named in a warning).
pub(super) fn hash_all(paths: Vec<PathBuf>, format: Format) -> Result<Vec<Input>, BenchError> {
    let mut seen: HashMap<String, PathBuf> = HashMap::new();
    let mut out = Vec::new();
    for p in paths {
        let hash = sha256_file(&p)
            .map_err(|e| BenchError::Input(format!("{}: cannot read: {e}", p.display())))?;
        if let Some(first) = seen.get(&hash) {
            log::warn!(
                "{} has the same content as {}: solved once",
                p.display(),
                first.display()
            );
            continue;
        }
        seen.insert(hash.clone(), p.clone());
        out.push(Input {
            stem: stem(&p, format),
            path: p,
            hash,
        });
    }
    Ok(out)
}

/// NAME: the file name without `.txt` (jsp: without `.jsp` or `.txt`).
pub(super) fn stem(p: &Path, format: Format) -> String {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "instance".into());
    let exts: &[&str] = match format {
        Format::Txt => &[".txt"],
        Format::Jsp => &[".jsp", ".txt"],
    };
    for e in exts {
        if let Some(s) = name.strip_suffix(e)
            && !s.is_empty()
        {
            return s.to_string();
        }
    }
    name
}

/// Schedule names: the stem, unless another instance of the set (different
/// content) has the same stem, or `taken` gives the name to other content;
/// then `stem-` and the first 8 digits of the hash. Decided over the whole set
/// before sharding, so every shard names an instance alike.
pub(super) fn names(inputs: &[Input], taken: &HashMap<String, String>) -> Vec<String> {
    let mut hashes_per_stem: HashMap<&str, HashSet<&str>> = HashMap::new();
    for i in inputs {
        hashes_per_stem
            .entry(i.stem.as_str())
            .or_default()
            .insert(i.hash.as_str());
    }
    inputs
        .iter()
        .map(|i| {
            let clash = hashes_per_stem[i.stem.as_str()].len() > 1
                || taken.get(&i.stem).is_some_and(|h| h != &i.hash);
            if clash {
                format!("{}-{}", i.stem, &i.hash[..8])
            } else {
                i.stem.clone()
            }
        })
        .collect()
}

/// The indices of the k-th (1-based) of n slices: the set sorted by content
/// hash, every n-th from the (k-1)-th. Deterministic, balanced to one
/// instance, and the same whatever the order or place of the files.
pub(super) fn shard(inputs: &[Input], k: usize, n: usize) -> Vec<usize> {
    let mut by_hash: Vec<usize> = (0..inputs.len()).collect();
    by_hash.sort_by(|&a, &b| inputs[a].hash.cmp(&inputs[b].hash));
    let mut mine: Vec<usize> = by_hash
        .into_iter()
        .enumerate()
        .filter(|(rank, _)| rank % n == k - 1)
        .map(|(_, i)| i)
        .collect();
    // Solved in the order given.
    mine.sort_unstable();
    mine
}
