//! `tmin bench`: plans the set (what is already done, this shard's slice),
//! solves the rest `--jobs` at a time, and appends each line as it finishes.

use std::collections::HashMap;
use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use super::inputs::{self, Input};
use super::record::{Record, settings_text};
use super::store::{self, Appender};
use super::{BenchConfig, BenchError, Format, Settings, create_out_dir, lock_out_dir, summary};
use crate::error::{InputError, InputErrorKind, Pos};
use crate::instance::{Instance, parse_reader_until};
use crate::report::VERSION;
use crate::solve::{SolveOptions, Status};

/// Why one instance has no line.
enum ItemFailure {
    /// Unreadable instance file (the run goes on; exit 2 at the end).
    Input(String),
    /// An engine bug (the run goes on; exit 70 at the end).
    Internal(String),
    /// The folder cannot be written: the run stops (exit 74).
    Output(String),
}

impl ItemFailure {
    /// The line printed for it on stderr.
    fn line(&self) -> String {
        match self {
            ItemFailure::Input(m) => format!("error: {m}"),
            ItemFailure::Internal(m) => format!("internal error (please report): {m}"),
            ItemFailure::Output(m) => format!("error: cannot write: {m}"),
        }
    }
}

/// Runs the bench: see the module `bench`.
pub fn run(cfg: &BenchConfig) -> Result<(), BenchError> {
    let s = &cfg.settings;
    if cfg.jobs == 0 {
        return Err(BenchError::Usage("--jobs must be at least 1".into()));
    }
    if s.threads == 0 {
        return Err(BenchError::Usage("--threads must be at least 1".into()));
    }
    let files = instance_files(cfg)?;
    create_out_dir(&cfg.out)?;
    let _lock = lock_out_dir(&cfg.out)?;
    store::remove_stale_temporaries(&cfg.out);
    store::remove_stale_temporaries(&cfg.out.join("schedules"));
    let out_err = |e: std::io::Error| BenchError::Output(format!("{}: {e}", cfg.out.display()));
    let loaded = store::load(&cfg.out).map_err(out_err)?;
    for d in &loaded.dropped {
        log::warn!("{d}");
    }
    same_settings(cfg, &loaded.records)?;
    let all = inputs::hash_all(files, cfg.format)?;
    let taken: HashMap<String, String> = loaded
        .records
        .iter()
        .map(|r| (r.name.clone(), r.hash.clone()))
        .collect();
    let names = inputs::names(&all, &taken);
    let mine = match cfg.shard {
        Some((k, n)) => inputs::shard(&all, k, n),
        None => (0..all.len()).collect(),
    };
    let mut records = loaded.records;
    let (todo, mut proven) = done_before(&mut records, &all, &mine, cfg.format);
    // Torn and untrusted lines go; moved files get their new path.
    store::rewrite(&cfg.out, &records).map_err(out_err)?;
    log::info!(
        "{} instances in this slice, {} done before, {} to solve",
        mine.len(),
        mine.len() - todo.len(),
        todo.len()
    );

    let bar = progress_bar(mine.len(), mine.len() - todo.len(), proven);
    let mut app = Appender::open(&cfg.out).map_err(out_err)?;
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let mut failures: Vec<ItemFailure> = Vec::new();
    let mut write_error: Option<std::io::Error> = None;
    let (tx, rx) = mpsc::channel::<Result<Record, ItemFailure>>();
    std::thread::scope(|sc| {
        for _ in 0..cfg.jobs.min(todo.len()) {
            let tx = tx.clone();
            let (next, stop, todo, all, names) = (&next, &stop, &todo, &all, &names);
            let (dir, format) = (&cfg.out, cfg.format);
            sc.spawn(move || {
                loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let t = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = todo.get(t) else { break };
                    log::debug!("solving {}", all[i].path.display());
                    let r = solve_one(&all[i], &names[i], format, s, dir);
                    if tx.send(r).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // The one writer of results.jsonl: lines never interleave.
        for r in rx {
            match r {
                Ok(rec) => {
                    if write_error.is_some() {
                        continue;
                    }
                    if let Err(e) = app.append(&rec) {
                        write_error = Some(e);
                        stop.store(true, Ordering::Relaxed);
                        continue;
                    }
                    proven += usize::from(rec.proven());
                    bar.inc(1);
                    bar.set_message(format!("proven {proven}"));
                    records.push(rec);
                }
                Err(f) => {
                    let line = f.line();
                    if matches!(f, ItemFailure::Output(_)) {
                        stop.store(true, Ordering::Relaxed);
                    }
                    bar.suspend(|| {
                        let _ = writeln!(std::io::stderr(), "{line}");
                    });
                    bar.inc(1);
                    failures.push(f);
                }
            }
        }
    });
    bar.finish_and_clear();
    if let Some(e) = write_error {
        return Err(out_err(e));
    }
    if let Some(ItemFailure::Output(m)) = failures
        .iter()
        .find(|f| matches!(f, ItemFailure::Output(_)))
    {
        return Err(BenchError::Output(m.clone()));
    }
    summary::write(&cfg.out, &records).map_err(out_err)?;
    report_done(cfg, mine.len(), proven, &failures)
}

/// A results folder holds one setting: records made otherwise are a usage
/// error (another --out, then `tmin bench merge`).
fn same_settings(cfg: &BenchConfig, records: &[Record]) -> Result<(), BenchError> {
    let s = &cfg.settings;
    let threads = s.threads as u64;
    if let Some(r) = records
        .iter()
        .find(|r| !r.same_settings(&s.engine.setting(), s.time_limit, s.seed, threads))
    {
        return Err(BenchError::Usage(format!(
            "{} holds results with other settings ({}; this run: {}): give another --out \
             and combine the folders with `tmin bench merge`",
            cfg.out.display(),
            r.settings_text(),
            settings_text(&s.engine.setting(), s.time_limit, s.seed, threads)
        )));
    }
    Ok(())
}

/// Which instances of this slice still need solving, and how many of those
/// done before were proven. A record done before under another path takes
/// the file's current path.
fn done_before(
    records: &mut [Record],
    all: &[inputs::Input],
    mine: &[usize],
    format: Format,
) -> (Vec<usize>, usize) {
    let index: HashMap<(String, String), usize> = records
        .iter()
        .enumerate()
        .map(|(j, r)| (r.key(), j))
        .collect();
    let fmt = format.name().to_string();
    let mut todo = Vec::new();
    let mut proven = 0usize;
    for &i in mine {
        match index.get(&(all[i].hash.clone(), fmt.clone())) {
            Some(&j) => {
                // Done before, maybe under another path: the line follows the file.
                records[j].instance = all[i].path.display().to_string();
                proven += usize::from(records[j].proven());
            }
            None => todo.push(i),
        }
    }
    (todo, proven)
}

/// The instance files the arguments name (folders expanded); none is a
/// usage error saying where it looked.
fn instance_files(cfg: &BenchConfig) -> Result<Vec<std::path::PathBuf>, BenchError> {
    let files = inputs::expand(&cfg.inputs, cfg.format)?;
    if files.is_empty() {
        let args: Vec<String> = cfg.inputs.iter().map(|p| p.display().to_string()).collect();
        return Err(BenchError::Usage(format!(
            "no instances found in {} (a folder gives its {} files; a list file names one path a line)",
            if args.is_empty() {
                "the arguments (none given)".to_string()
            } else {
                args.join(", ")
            },
            match cfg.format {
                Format::Txt => "*.txt",
                Format::Jsp => "job-shop (no extension, .jsp, .txt)",
            }
        )));
    }
    Ok(files)
}

/// The closing line on stdout, and the run's verdict from its failures:
/// internal errors first (exit 70), then unreadable instances.
fn report_done(
    cfg: &BenchConfig,
    mine: usize,
    proven: usize,
    failures: &[ItemFailure],
) -> Result<(), BenchError> {
    let mine_done = mine - failures.len();
    let line = format!(
        "{} of {} instances done ({} proven); {}\n",
        mine_done,
        mine,
        proven,
        cfg.out.join("summary.md").display()
    );
    std::io::stdout()
        .write_all(line.as_bytes())
        .map_err(|e| BenchError::Output(e.to_string()))?;
    let count = |pred: fn(&ItemFailure) -> bool| failures.iter().filter(|f| pred(f)).count();
    let internal = count(|f| matches!(f, ItemFailure::Internal(_)));
    let input = count(|f| matches!(f, ItemFailure::Input(_)));
    if internal > 0 {
        return Err(BenchError::Internal(format!(
            "{internal} instance(s) hit an internal error (named above); rerun to retry them"
        )));
    }
    if input > 0 {
        return Err(BenchError::Input(format!(
            "{input} instance(s) could not be read (named above); the others are in {}",
            cfg.out.display()
        )));
    }
    Ok(())
}

/// done/total, elapsed, ETA and proofs so far; hidden when stderr is not a
/// terminal (logs and scripts get no control characters).
fn progress_bar(total: usize, done: usize, proven: usize) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:30} {pos}/{len} elapsed {elapsed} ETA {eta} {msg}",
    ) {
        bar.set_style(style);
    }
    bar.set_position(done as u64);
    bar.set_message(format!("proven {proven}"));
    bar.enable_steady_tick(std::time::Duration::from_secs(1));
    bar
}

/// Reads an instance in `format` by `end`, hashing the bytes it reads.
pub fn read_input(
    path: &Path,
    format: Format,
    end: Instant,
) -> Result<(Instance, String), InputError> {
    let name = path.display().to_string();
    let read_err =
        |e: std::io::Error| InputError::new(&name, Pos::default(), format!("read error: {e}"));
    let file = crate::error::open_file(path)?;
    match format {
        Format::Txt => {
            let mut r = crate::digest::HashingReader::new(file);
            let inst = parse_reader_until(&mut r, &name, Some(end))?;
            Ok((inst, r.finish().map_err(read_err)?))
        }
        Format::Jsp => {
            let mut bytes = Vec::new();
            let mut file = file;
            file.read_to_end(&mut bytes).map_err(read_err)?;
            let hash = crate::digest::sha256_hex(&bytes);
            let js = crate::import::read_jsp(&bytes[..], &name)?;
            let text = js.to_instance_text();
            Ok((parse_reader_until(text.as_bytes(), &name, Some(end))?, hash))
        }
    }
}

/// One instance, as `tmin solve` would do it: the limit covers reading,
/// solving, validating and writing the schedule.
fn solve_one(
    input: &Input,
    name: &str,
    format: Format,
    s: &Settings,
    dir: &Path,
) -> Result<Record, ItemFailure> {
    let t0 = Instant::now();
    let end = crate::stop::instant_after(t0, s.limit);
    let mut rec = Record {
        instance: input.path.display().to_string(),
        name: name.to_string(),
        hash: input.hash.clone(),
        format: format.name().to_string(),
        ops: None,
        nodes_min: None,
        nodes_max: None,
        engine: s.engine.setting(),
        engine_used: s.engine.setting(),
        time_limit: s.time_limit,
        seed: s.seed,
        threads: s.threads as u64,
        status: Status::Unknown.name().to_string(),
        makespan: None,
        lower_bound: 0,
        bound_source: "none (the input was not read)".into(),
        gap: None,
        t_max: None,
        wall_seconds: 0.0,
        total_seconds: 0.0,
        version: VERSION.to_string(),
        schedule: None,
        schedule_hash: None,
        merged_from: Vec::new(),
        disagreement: None,
    };
    let inst = match read_input(&input.path, format, end) {
        Ok((inst, hash)) => {
            if hash != input.hash {
                log::warn!(
                    "{}: the content changed while the bench ran; recorded under its new hash",
                    input.path.display()
                );
                rec.hash = hash;
            }
            inst
        }
        Err(e) if e.kind == InputErrorKind::TimeLimit => {
            // No verdict within the limit: a complete line all the same.
            log::warn!("{e}");
            rec.total_seconds = t0.elapsed().as_secs_f64();
            return Ok(rec);
        }
        Err(e) => return Err(ItemFailure::Input(e.to_string())),
    };
    crate::tmax::start_limit(&inst).map_err(|e| ItemFailure::Input(e.to_string()))?;
    for w in &inst.warnings {
        log::warn!("{w}");
    }
    let opts = SolveOptions {
        time_limit: crate::pipeline::engine_budget(&inst, end),
        seed: s.seed,
        threads: s.threads,
        progress: false,
        events: Default::default(),
        start: None,
        memory_limit_mib: crate::solve::DEFAULT_MEMORY_LIMIT_MIB,
        certify: None,
        cancel: None,
    };
    let result = crate::registry::run(&inst, &s.engine, &opts);
    if let Some(e) = &result.internal_error {
        return Err(ItemFailure::Internal(format!(
            "{}: {e}",
            input.path.display()
        )));
    }
    if let Some(sched) = &result.schedule {
        // The schedule passed the validator in `SolveResult::found`.
        let g = crate::graph::NodeGraph::new(&inst, sched.choice.clone())
            .map_err(|e| ItemFailure::Internal(format!("{}: {e}", input.path.display())))?;
        let mut buf = Vec::new();
        crate::schedule::write_schedule(&g, sched, &mut buf)
            .map_err(|e| ItemFailure::Internal(e.to_string()))?;
        let path = store::schedule_path(dir, name);
        store::write_atomic(&path, &buf)
            .map_err(|e| ItemFailure::Output(format!("{}: {e}", path.display())))?;
        rec.schedule = Some(store::schedule_rel(name));
        rec.schedule_hash = Some(crate::digest::sha256_hex(&buf));
    }
    let range = crate::tmax::node_range(&inst);
    rec.ops = Some(inst.graph.n_ops() as u64);
    rec.nodes_min = range.map(|x| x.0);
    rec.nodes_max = range.map(|x| x.1);
    rec.t_max = crate::tmax::t_max(&inst);
    rec.engine_used = result.engine.clone();
    rec.status = result.status.name().to_string();
    rec.makespan = result.makespan;
    rec.lower_bound = result.lower_bound;
    rec.bound_source = result.bound_source.clone();
    rec.gap = result.gap();
    rec.wall_seconds = result.wall_seconds;
    rec.total_seconds = t0.elapsed().as_secs_f64();
    Ok(rec)
}
