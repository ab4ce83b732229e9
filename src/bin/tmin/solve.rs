//! `tmin solve`: reading within the limit, the engine from the registry, the
//! result and its schedule written, certificates concluded.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use tmin::error::{InputError, InputErrorKind};
use tmin::instance::{self, Instance};
use tmin::list::priority::Rule;
use tmin::milp::Formulation;
use tmin::registry::{EngineChoice, EngineOptions, Registry};
use tmin::report;

use crate::io::{Failure, create_output, io_failure, open_input, print_err, print_out, time_limit};

#[derive(clap::Args)]
pub(crate) struct SolveArgs {
    /// Instance file ('-' for stdin).
    instance: PathBuf,
    #[arg(long, default_value = "auto", value_parser = engine_names())]
    engine: String,
    /// Priority rule of `--engine greedy`.
    #[arg(long, value_enum, default_value_t = Rule::Release)]
    rule: Rule,
    /// Wall-clock limit in seconds for the whole command, reading the instance
    /// and writing the result included: it answers within the limit plus
    /// max(0.5 s, 5 %). When reading alone takes longer, the answer is
    /// `unknown` (exit 3). Above ten years: no limit.
    #[arg(long, default_value_t = 5.0)]
    time_limit: f64,
    /// Memory budget in MiB for the exact engines' models (the SAT encoding,
    /// solver included, is never built beyond it; the other engines take over).
    #[arg(long, value_name = "MIB", default_value_t = tmin::solve::DEFAULT_MEMORY_LIMIT_MIB)]
    memory_limit: u64,
    /// Random seed for randomised passes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// MILP formulation.
    #[arg(long, value_enum, default_value_t = Formulation::Auto)]
    model: Formulation,
    /// Write the MILP models (.lp and .mps) into this directory (created if
    /// missing; checked before solving).
    #[arg(long)]
    export_model: Option<PathBuf>,
    /// Worker threads: `auto` with 2 or more runs two engines side by side (it
    /// uses two threads at most); `milp` gives them to HiGHS; `sat` and
    /// `list` use one.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Write the schedule here ('-' for stdout; the summary then goes to stderr).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Warm start: a legal schedule (output format) to improve on or prove
    /// optimal, e.g. your heuristic's. It is checked first; an illegal one is
    /// rejected with its violations (exit 2).
    #[arg(long, value_name = "SCHEDULE")]
    start: Option<PathBuf>,
    /// Write a certificate for each UNSAT answer of the SAT engine that the
    /// lower bound rests on (sat and auto engines): DIR/<instance>-T<T>.cnf
    /// (DIMACS) and .proof (varisat's proof), checked by `tmin certify-check
    /// DIR`. DIR is created (checked before solving). Off by default: each
    /// certificate costs a second solve and disk.
    #[arg(long, value_name = "DIR")]
    certify: Option<PathBuf>,
    /// Print one JSON object instead of the text summary.
    #[arg(long)]
    json: bool,
    /// Progress as JSON lines, into FILE ('-' for stdout): each better
    /// schedule (`incumbent`: seconds, makespan, engine, step) and each
    /// higher lower bound (`bound`: seconds, lower_bound, source) as the
    /// search finds it, then the `result` (status, makespan, lower_bound,
    /// gap) as reported. Makespans only fall, bounds only rise. (Progress
    /// lines for people go to stderr when it is a terminal.)
    #[arg(long, value_name = "FILE|-")]
    progress: Option<PathBuf>,
    /// No progress lines on stderr.
    #[arg(long)]
    quiet: bool,
}

/// The `--engine` values and their help, from the registry.
pub(crate) fn engine_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        Registry::default()
            .engines()
            .iter()
            .map(|r| clap::builder::PossibleValue::new(r.name).help(r.help)),
    )
}

/// The registry's engine for `--engine` (clap has checked the name).
pub(crate) fn engine_choice(name: &str, options: EngineOptions) -> Result<EngineChoice, Failure> {
    Registry::default()
        .choose(name, options)
        .ok_or_else(|| Failure::Usage(format!("--engine {name}: no such engine")))
}

/// Reads the instance by `end`, hashing its content on the way (the `hash` of
/// `--json`; `None` for stdin, where the bytes are not a file's).
pub(crate) fn read_instance_hashed(
    path: &Path,
    end: Instant,
) -> Result<(Instance, Option<String>), InputError> {
    if path.as_os_str() == "-" {
        return Ok((instance::parse_file_until(path, Some(end))?, None));
    }
    let name = path.display().to_string();
    let mut r = tmin::digest::HashingReader::new(tmin::error::open_file(path)?);
    let inst = instance::parse_reader_until(&mut r, &name, Some(end))?;
    let hash = r.finish().map_err(|e| {
        InputError::new(
            &name,
            tmin::error::Pos::default(),
            format!("read error: {e}"),
        )
    })?;
    Ok((inst, Some(hash)))
}

/// The checks `tmin solve` makes before reading anything, so that a bad
/// argument is exit 2 whatever the engine later does: counts, stdin used
/// twice, the --export-model and --certify folders (made here). Returns the
/// certifier for --certify.
pub(crate) fn solve_arguments(
    a: &SolveArgs,
) -> Result<Option<std::sync::Arc<tmin::certificate::Certifier>>, Failure> {
    if a.threads == 0 {
        return Err(Failure::Usage("--threads must be at least 1".into()));
    }
    if a.memory_limit == 0 {
        return Err(Failure::Usage(
            "--memory-limit must be at least 1 MiB".into(),
        ));
    }
    if a.instance.as_os_str() == "-" && a.start.as_deref().is_some_and(|p| p.as_os_str() == "-") {
        return Err(Failure::Usage(
            "the instance and --start cannot both be read from stdin".into(),
        ));
    }
    // Up front, so a bad directory is an argument error (exit 2) whatever the
    // engine does later (it may never build a model).
    if let Some(dir) = &a.export_model {
        std::fs::create_dir_all(dir).map_err(|e| {
            Failure::Usage(format!(
                "--export-model {}: cannot create the directory: {e}",
                dir.display()
            ))
        })?;
        if !dir.is_dir() {
            return Err(Failure::Usage(format!(
                "--export-model {}: not a directory",
                dir.display()
            )));
        }
        let choice = engine_choice(&a.engine, EngineOptions::default())?;
        if !choice.engine().exports_models() {
            log::warn!(
                "--export-model: only the MILP engine (--engine milp or auto) builds models"
            );
        }
    }
    // Also up front: an uncreatable folder is an argument error, not a
    // certificate silently missing after the solve.
    Ok(match &a.certify {
        Some(dir) => Some(std::sync::Arc::new(
            tmin::certificate::Certifier::new(dir, &tmin::certificate::name_of(&a.instance))
                .map_err(|e| {
                    Failure::Usage(format!(
                        "--certify {}: cannot create the directory: {e}",
                        dir.display()
                    ))
                })?,
        )),
        None => None,
    })
}

/// The time limit passed while the input was read: no verdict, exit 3, with
/// the summary saying where reading stopped.
pub(crate) fn unread(
    a: &SolveArgs,
    e: &InputError,
    engine_name: &str,
    t0: Instant,
    to_stdout: bool,
    events: Option<&crate::progress::EventLog>,
) -> Result<ExitCode, Failure> {
    let mut r = tmin::solve::SolveResult::without_schedule(
        tmin::solve::Status::Unknown,
        0,
        "none (the input was not read)",
        engine_name,
    );
    r.note(e.to_string());
    if let Some(l) = events {
        l.finish(&r);
    }
    let total = t0.elapsed().as_secs_f64();
    let summary = if a.json {
        let run = report::RunInfo {
            hash: None,
            time_limit: a.time_limit,
            seed: a.seed,
        };
        let v = report::solve_json_named(&e.file, None, &r, total, total, &run);
        format!("{v}\n")
    } else {
        report::solve_text(&r, total)
    };
    if to_stdout {
        print_err(&summary)?;
    } else {
        print_out(&summary)?;
    }
    if let Some(e) = events.and_then(|l| l.failure()) {
        return Err(Failure::Output(e));
    }
    Ok(ExitCode::from(3))
}

pub(crate) fn solve(a: SolveArgs, t0: Instant) -> Result<ExitCode, Failure> {
    use std::io::IsTerminal;
    let limit = time_limit(a.time_limit)?;
    let certifier = solve_arguments(&a)?;
    let to_stdout = a.output.as_deref().is_some_and(|p| p.as_os_str() == "-");
    let events = match a.progress.as_deref() {
        Some(p) if p.as_os_str() == "-" && to_stdout => {
            return Err(Failure::Usage(
                "--progress - and -o - both write to stdout: give one of them a file".into(),
            ));
        }
        Some(p) => Some(crate::progress::EventLog::create(p)?),
        None => None,
    };
    // The whole command ends by `end`: reading, solving, writing.
    let end = tmin::stop::instant_after(t0, limit);
    let choice = engine_choice(
        &a.engine,
        EngineOptions {
            milp: tmin::milp::MilpOptions {
                formulation: a.model,
                export_dir: a.export_model.clone(),
            },
            rule: a.rule,
        },
    )?;
    let engine_name = choice.name();
    let read = (|| -> Result<_, InputError> {
        let (inst, hash) = read_instance_hashed(&a.instance, end)?;
        tmin::tmax::start_limit(&inst)?;
        let start = match &a.start {
            Some(p) => Some(read_start(&inst, p, end)?),
            None => None,
        };
        Ok((inst, hash, start))
    })();
    let (inst, hash, start) = match read {
        Ok(x) => x,
        Err(e) if e.kind == InputErrorKind::TimeLimit => {
            return unread(&a, &e, engine_name, t0, to_stdout, events.as_ref());
        }
        Err(e) => return Err(Failure::Input(e)),
    };
    let start = match start {
        Some(Ok(s)) => Some(std::sync::Arc::new(s)),
        Some(Err(f)) => return Err(f),
        None => None,
    };
    for w in &inst.warnings {
        log::warn!("{w}");
    }
    let read_seconds = t0.elapsed().as_secs_f64();
    // The engines get what is left, less the reserve for validating and writing.
    let reserve = tmin::pipeline::output_reserve(inst.max_nodes());
    let engine_limit = tmin::pipeline::engine_budget(&inst, end);
    log::info!(
        "read in {read_seconds:.3} s; engines get {:.3} s ({:.3} s kept for validating and writing)",
        engine_limit.as_secs_f64(),
        reserve.as_secs_f64()
    );
    let opts = tmin::solve::SolveOptions {
        time_limit: engine_limit,
        seed: a.seed,
        threads: a.threads,
        progress: !a.quiet && std::io::stderr().is_terminal(),
        events: events
            .as_ref()
            .map_or_else(Default::default, |l| l.events()),
        start,
        memory_limit_mib: a.memory_limit,
        certify: certifier.clone(),
        cancel: None,
    };
    let engine = choice.engine();
    let mut result = tmin::pipeline::solve(engine.as_ref(), &inst, &opts);
    let conclusion = certifier.as_ref().map(|c| {
        let done = if engine.certifies() {
            tmin::sat::certify::conclude(c, &result)
        } else {
            tmin::sat::certify::Conclusion {
                final_bound_certified: false,
                certificates: Vec::new(),
                note: format!(
                    "--certify: nothing certified: only the SAT engine (--engine sat or auto) \
                     gives UNSAT answers; engine {engine_name} does not"
                )
                .into(),
            }
        };
        result.notes.push(done.note.clone());
        done
    });
    // Decided by the typed field, never by note text.
    if let Some(e) = &result.internal_error {
        return Err(Failure::Internal(e.clone()));
    }
    if let (Some(path), Some(sched)) = (a.output.as_deref(), result.schedule.as_ref()) {
        let g =
            tmin::graph::NodeGraph::new(&inst, sched.choice.clone()).map_err(Failure::Internal)?;
        let w = create_output(if to_stdout { None } else { Some(path) })?;
        tmin::schedule::write_schedule(&g, sched, w).map_err(io_failure)?;
    }
    if let Some(l) = &events {
        l.finish(&result);
    }
    let total = t0.elapsed().as_secs_f64();
    let summary = if a.json {
        let mut v = report::solve_json(
            &inst,
            &result,
            read_seconds,
            total,
            &report::RunInfo {
                hash: hash.as_deref(),
                time_limit: a.time_limit,
                seed: a.seed,
            },
        );
        if let (Some(c), Some(dir)) = (&conclusion, &a.certify) {
            v["certify"] = tmin::sat::certify::conclusion_json(dir, c);
        }
        format!("{v}\n")
    } else {
        report::solve_text(&result, total)
    };
    if to_stdout {
        print_err(&summary)?;
    } else {
        print_out(&summary)?;
    }
    // A file asked for (a certificate, an exported model) and not written:
    // the result stands (reported above), the command did not do all it was
    // asked.
    use tmin::solve::{NoteKind, Status};
    if let Some(e) = events.as_ref().and_then(|l| l.failure()) {
        return Err(Failure::Output(e));
    }
    if let Some(n) = result
        .notes
        .iter()
        .find(|n| n.kind == NoteKind::WriteFailed)
    {
        return Err(Failure::Output(n.text.clone()));
    }
    Ok(ExitCode::from(match result.status {
        Status::Optimal | Status::Feasible => 0,
        Status::Infeasible => 1,
        Status::Unknown => 3,
    }))
}

/// Reads and checks a warm-start schedule: only a legal one is accepted. The
/// outer error is the reading (a time-limit error is no verdict, exit 3); the
/// inner one a rejected schedule (exit 2).
pub(crate) fn read_start(
    inst: &Instance,
    path: &Path,
    end: Instant,
) -> Result<Result<tmin::schedule::Schedule, Failure>, InputError> {
    let (src, name) = match open_input(path) {
        Ok(x) => x,
        Err(Failure::Input(e)) => return Err(e),
        Err(f) => return Ok(Err(f)),
    };
    let read = tmin::schedule::read_schedule_until(
        inst,
        std::io::BufReader::new(src),
        &name,
        5,
        Some(end),
    )?;
    let rejected = |v: &tmin::schedule::Violations| {
        Failure::Usage(format!(
            "--start {name} is not a legal schedule for this instance ({} violations; \
             `tmin check` lists them): {}",
            v.total(),
            v.kept_text()
        ))
    };
    Ok(tmin::schedule::legal_schedule(inst, read, 5).map_err(|v| rejected(&v)))
}
