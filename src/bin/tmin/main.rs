//! The `tmin` command line: parsing arguments, dispatching, exit codes.
//!
//! Exit codes: 0 success (legal schedule, solution found); 1 a negative verdict
//! (illegal schedule, proven infeasible instance); 2 unreadable input or bad
//! arguments; 3 no verdict (time limit before any schedule, or while reading);
//! 70 internal error (including any panic: the hook below); 74 the output
//! could not be written (disk full, closed pipe, stderr unwritable).
//!
//! Every write to stdout and stderr goes through `Write` with its error
//! handled: `print!`/`eprint!` panic when the stream fails.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};

use bench::{BENCH_HELP, BenchArgs, bench};
use certify::{CERTIFY_HELP, certify_check, limit_address_space};
use check::check_cmd;
use generate::{GenArgs, generate};
use io::{Failure, create_output, io_failure, open_input, print_out, read_instance, time_limit};
use plot::{PlotArgs, plot};
use score::{SCORE_HELP, ScoreArgs, score};
use solve::{SolveArgs, solve};

use tmin::report;

mod bench;
mod certify;
mod check;
mod generate;
mod io;
mod plot;
mod progress;
mod score;
mod solve;

/// Exit code: the output could not be written (sysexits EX_IOERR).
const EXIT_OUTPUT: u8 = 74;

/// Exit code: internal error (sysexits EX_SOFTWARE).
const EXIT_INTERNAL: u8 = 70;

#[derive(Parser)]
#[command(
    name = "tmin",
    version,
    about = "Optimal and bounded schedules for the minimum inference latency problem",
    long_about = "Optimal and bounded schedules for the minimum inference latency problem.\n\n\
Instances use the competition text format (SetSocInfo / AddOpInfo / GetInferenceScheResult);\n\
schedules use its output format [[OpId,Tiling,NodeId,Start,CoreId],...]. '-' reads stdin.\n\n\
Exit codes: 0 success, 1 illegal schedule or infeasible instance, 2 unreadable input\n\
or bad arguments, 3 no verdict within the limits, 70 internal error (please report),\n\
74 cannot write the output (disk full, closed pipe).\n\n\
Environment:\n  \
RUST_LOG=info|debug              progress and engine logs on stderr (default: warnings)\n  \
TMIN_HIGHS_LOG=1                 HiGHS's own log (MILP engine), for debugging\n  \
TMIN_HIGHS_OPTIONS='k=v;...'     extra HiGHS options (MILP engine), for experiments\n  \
TMIN_SAT_POINTS=dense|events     force the SAT engine's time points (diagnosis; same answers)\n  \
TMIN_TEST_PANIC=main|thread      tests only: a deliberate panic, to check the exit-70 path"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Check a schedule against every rule of the problem; print its makespan.
    Check {
        /// Instance file ('-' for stdin).
        instance: PathBuf,
        /// Schedule file ('-' for stdin).
        schedule: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// How many violations to list in detail (all are counted).
        #[arg(long, default_value_t = 20)]
        max_violations: usize,
        /// Also compute the lower bounds (`tmin bound`) and show how far a legal
        /// schedule is from them, and from the bounds for its own tilings (what
        /// its order alone may lose).
        #[arg(long)]
        bound: bool,
        /// Also show where a legal schedule's time goes: each memory type's
        /// peak and how long it is held against how long its nodes run, each
        /// core type's load, and the critical chain's runs and waits
        /// (docs/cli.md, "tmin check").
        #[arg(long)]
        usage: bool,
    },
    /// Find a schedule: makespan, proven lower bound and proof status.
    Solve(SolveArgs),
    /// Compute lower bounds valid for every tiling choice, and which one binds:
    /// the combinatorial bounds, the tiling-choice relaxation (a small MILP) and
    /// the window net (edge finding, timetables and shaving), models/bounds.md.
    Bound {
        instance: PathBuf,
        #[arg(long)]
        json: bool,
        /// Seconds for the relaxation and the window net together (0: combinatorial
        /// bounds only).
        #[arg(long, default_value_t = 5.0, value_name = "SECONDS")]
        time_limit: f64,
    },
    /// Summarise an instance: platform, library, graph size, unusable tilings.
    Info {
        instance: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Write a seeded instance with a proven feasible schedule (--family random) or
    /// a proven optimum at any size (--family packed).
    #[command(after_long_help = tmin::generate::FAMILIES_HELP)]
    Gen(GenArgs),
    /// Solve every instance of a set into a results folder (resumable,
    /// parallel, sliceable with --shard); `tmin bench merge` combines folders.
    #[command(
        args_conflicts_with_subcommands = true,
        subcommand_negates_reqs = true,
        after_long_help = BENCH_HELP
    )]
    Bench(BenchArgs),
    /// Score heuristic schedules: validated makespan against T_min and T_max.
    #[command(after_long_help = SCORE_HELP)]
    Score(ScoreArgs),
    /// Draw a schedule as SVG: a Gantt chart and one memory profile per memory type.
    Plot(PlotArgs),
    /// Check the certificates of `tmin solve --certify DIR`: each CNF with its
    /// varisat proof, by varisat's proof checker (verified: the CNF is
    /// unsatisfiable).
    #[command(after_long_help = CERTIFY_HELP)]
    CertifyCheck {
        /// The folder `--certify` wrote.
        dir: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Seconds each certificate may take to check (the checker runs in a
        /// child process, stopped at this limit: the certificate then fails).
        #[arg(long, value_name = "S", default_value_t = 3600.0)]
        time_limit: f64,
        /// Memory in MiB each check may use (a garbled proof can ask the
        /// checker for terabytes: the certificate then fails).
        #[arg(long, value_name = "MIB", default_value_t = 8192)]
        memory_limit: u64,
    },
    /// One certificate pair, checked in this process (the child process of
    /// `certify-check`): exit 0 verified, 1 rejected (the reason on stdout).
    #[command(hide = true)]
    CertifyCheckOne {
        cnf: PathBuf,
        proof: PathBuf,
        #[arg(long, value_name = "MIB")]
        memory_limit: u64,
    },
    /// Convert an instance from another scheduling format.
    Import {
        #[arg(value_enum)]
        format: ImportFormat,
        /// Input file ('-' for stdin).
        file: PathBuf,
        /// Output file (default: stdout).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum ImportFormat {
    /// Job shop, OR-Library format (as in JSPLIB).
    Jsp,
}

fn main() -> ExitCode {
    // The time limit counts from here: reading and writing are part of it.
    let t0 = Instant::now();
    install_panic_hook();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .format_timestamp(None)
        .init();
    let cli = Cli::parse();
    // For the tests of the hook: a deliberate panic on the main thread or on
    // a worker thread (as an engine thread of the portfolio would).
    match std::env::var("TMIN_TEST_PANIC").as_deref() {
        Ok("main") => panic!("deliberate panic (TMIN_TEST_PANIC=main)"),
        Ok("thread") => {
            let _ =
                std::thread::spawn(|| panic!("deliberate panic (TMIN_TEST_PANIC=thread)")).join();
        }
        _ => {}
    }
    let code = match run(cli, t0) {
        Ok(code) => code,
        Err(Failure::Input(e)) => {
            say(&format!("error: {e}"));
            ExitCode::from(2)
        }
        Err(Failure::Usage(e)) => {
            say(&format!("error: {e}"));
            ExitCode::from(2)
        }
        Err(Failure::Internal(e)) => {
            say(&format!("internal error (please report): {e}"));
            ExitCode::from(EXIT_INTERNAL)
        }
        Err(Failure::Output(e)) => {
            say(&format!("error: cannot write the output: {e}"));
            ExitCode::from(EXIT_OUTPUT)
        }
    };
    log::info!(
        "peak RSS {:.0} MiB",
        tmin::solve::peak_rss_mib().unwrap_or(0.0)
    );
    code
}

/// One line on stderr; a failed write (stderr closed or full) is ignored:
/// there is nowhere left to report it, and the exit code still tells.
pub(crate) fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Any panic, on any thread (a portfolio engine, HiGHS's watcher), ends the
/// process with one line and exit 70: never 101, never a silently dropped thread.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        say(&format!(
            "internal error (please report): panic{at}: {}",
            msg.replace('\n', " ")
        ));
        std::process::exit(i32::from(EXIT_INTERNAL));
    }));
}

fn run(cli: Cli, t0: Instant) -> Result<ExitCode, Failure> {
    match cli.cmd {
        Cmd::Check {
            instance,
            schedule,
            json,
            max_violations,
            bound,
            usage,
        } => check_cmd(&instance, &schedule, json, max_violations, bound, usage),
        Cmd::Solve(a) => solve(a, t0),
        Cmd::CertifyCheck {
            dir,
            json,
            time_limit: limit,
            memory_limit,
        } => {
            let limit = time_limit(limit)?;
            if memory_limit == 0 {
                return Err(Failure::Usage(
                    "--memory-limit must be at least 1 MiB".into(),
                ));
            }
            certify_check(&dir, json, limit, memory_limit)
        }
        Cmd::CertifyCheckOne {
            cnf,
            proof,
            memory_limit,
        } => {
            limit_address_space(memory_limit);
            // A panic of the checker on a garbled file is that file's
            // rejection (`check` catches it), not a tmin bug: no report line.
            std::panic::set_hook(Box::new(|_| {}));
            match tmin::sat::certify::check(&cnf, &proof) {
                Ok(()) => Ok(ExitCode::SUCCESS),
                Err(e) => {
                    print_out(&format!("{e}\n"))?;
                    Ok(ExitCode::from(1))
                }
            }
        }
        Cmd::Bound {
            instance,
            json,
            time_limit,
        } => {
            let inst = read_instance(&instance)?;
            let limit = if time_limit.is_finite() && time_limit > 0.0 {
                std::time::Duration::try_from_secs_f64(time_limit)
                    .unwrap_or(std::time::Duration::MAX)
            } else {
                std::time::Duration::ZERO
            };
            let b = if limit.is_zero() {
                tmin::bounds::combinatorial::lower_bounds(&inst)
            } else {
                tmin::pipeline::bounds::proven_bounds(&inst, limit)
            };
            if json {
                print_out(&format!("{}\n", report::bound_json(&inst, &b)))?;
            } else {
                print_out(&report::bound_text(&inst, &b))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Info { instance, json } => {
            let inst = read_instance(&instance)?;
            if json {
                print_out(&format!("{}\n", report::info_json(&inst)))?;
            } else {
                print_out(&report::info_text(&inst))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Gen(a) => generate(a),
        Cmd::Bench(a) => bench(a),
        Cmd::Score(a) => score(a),
        Cmd::Plot(a) => plot(a),
        Cmd::Import {
            format: ImportFormat::Jsp,
            file,
            output,
        } => {
            let (src, name) = open_input(&file)?;
            let js = tmin::import::read_jsp(src, &name)?;
            let mut out = create_output(output.as_deref())?;
            out.write_all(js.to_instance_text().as_bytes())
                .and_then(|_| out.flush())
                .map_err(io_failure)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
