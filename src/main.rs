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
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand, ValueEnum};
use serde_json::json;

use tmin::error::{InputError, InputErrorKind};
use tmin::generate::GenConfig;
use tmin::instance::{self, Instance};
use tmin::list::priority::Rule;
use tmin::milp::Formulation;
use tmin::registry::{EngineChoice, EngineOptions, Registry};
use tmin::report;
use tmin::schedule::check_reader;

/// Exit code: the output could not be written (sysexits EX_IOERR).
const EXIT_OUTPUT: u8 = 74;
/// Exit code: internal error (sysexits EX_SOFTWARE).
const EXIT_INTERNAL: u8 = 70;

/// Time limits beyond this (about ten years) mean "no limit".
const NO_LIMIT_SECS: f64 = 10.0 * 365.25 * 86_400.0;

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
        /// schedule is from them.
        #[arg(long)]
        bound: bool,
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

#[derive(clap::Args)]
struct SolveArgs {
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
    /// Progress lines on stderr (default: only when stderr is a terminal).
    #[arg(long, overrides_with = "quiet")]
    progress: bool,
    /// No progress lines.
    #[arg(long)]
    quiet: bool,
}

const BENCH_HELP: &str = "\
Writes, as it goes, DIR/results.jsonl (one JSON line per finished instance) and
DIR/schedules/NAME.schedule (validated); at the end DIR/results.csv and
DIR/summary.md. Rerun with the same arguments to resume: instances with a
complete line are skipped (by content hash, wherever the file now is).
Exit: 0 all done, 2 bad arguments or unreadable instances (the others are
done), 70 an internal error, 74 the folder cannot be written.";

#[derive(clap::Args)]
struct BenchArgs {
    #[command(subcommand)]
    action: Option<BenchCmd>,
    /// Instance files, folders (their *.txt files; with --format jsp their
    /// job-shop files) and list files (one path a line).
    #[arg(required = true)]
    instances: Vec<PathBuf>,
    /// The results folder (created; its parent must exist).
    #[arg(long, required = true, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Engine, as `tmin solve --engine` (greedy: its default rule, release).
    #[arg(long, default_value = "auto", value_parser = engine_names())]
    engine: String,
    /// Seconds per instance, reading and writing included (as `tmin solve`).
    #[arg(long, default_value_t = 5.0)]
    time_limit: f64,
    /// Solves at a time [default: the number of cores].
    #[arg(long)]
    jobs: Option<usize>,
    /// Threads of each solve.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Random seed of every solve.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Only the K-th of N slices of the set (by content hash: the same slice
    /// whatever the order or place of the files).
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// How to read the instance files.
    #[arg(long, value_enum, default_value_t = BenchFormat::Txt)]
    format: BenchFormat,
}

#[derive(Subcommand)]
enum BenchCmd {
    /// Combine bench folders (shards, earlier runs): per instance the largest
    /// proven lower bound and the best schedule, re-validated. Runs that
    /// contradict each other are marked and give exit 70.
    Merge {
        /// Bench folders.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// The merged folder (may be one of the inputs).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Performance profile of bench folders as SVG: one curve per folder.
    Plot {
        /// Bench folders (each with results.jsonl).
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Output SVG file.
        #[arg(short, long)]
        output: PathBuf,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BenchFormat {
    /// The competition text format.
    Txt,
    /// Job shop, OR-Library format (as `tmin import jsp`).
    Jsp,
}

const SCORE_HELP: &str = "\
Score = S_base + (S_max - S_base) * (T_max - T) / (T_max - T_min), clamped to
[S_base, S_max], where T is the schedule's makespan. T <= T_min scores S_max
(also when T_max <= T_min); T >= T_max scores S_base; an illegal, unreadable or
missing schedule scores S_base (default 0), with its first violations listed.

T_min: the proven optimum, else the best proven lower bound (flagged `optimal`
or `bound`): from --reference when it has the instance (a reference bound below
the computed one gives way to it), else computed as by
`tmin bound`. A legal schedule below T_min is an error (exit 2): the reference
is wrong.

T_max: --t-max, else the reference's t_max, else the sum over every op of the
total node duration of its slowest usable tiling. It guarantees that the
optimum is at most T_max whenever the instance has a legal schedule (a legal
schedule with every stretch where nothing runs removed stays legal and ends by
the sum of its durations, models/bounds.md §9); it is not a bound on any
heuristic, and not itself a legal schedule.

References: a bench folder (DIR/results.jsonl: status optimal gives the
makespan as T_min, otherwise lower_bound; a torn last line is ignored), its
results.csv, or any CSV with a header and the columns instance,t_min and
optionally t_min_kind (optimal|bound, default bound) and t_max. Rows match
instances by file name without .txt.

With --schedules HDIR...: every instance of the reference is scored for every
heuristic folder HDIR, which holds NAME.schedule per instance (NAME = the
instance file name without .txt); a missing one scores S_base and is listed
as missing.

Gap = (T - T_min) / T, as `tmin solve` reports it.
Exit: 0 every schedule legal, 1 some illegal or missing, 2 bad input.";

#[derive(clap::Args)]
struct ScoreArgs {
    /// Instance file (not with --schedules).
    instance: Option<PathBuf>,
    /// Schedule files of INSTANCE, one score each.
    #[arg(value_name = "SCHEDULE")]
    schedule_files: Vec<PathBuf>,
    /// T_min (and T_max) values: a bench folder or a CSV file (see below).
    #[arg(long, value_name = "DIR|FILE.csv")]
    reference: Option<PathBuf>,
    /// Heuristic folders, each with NAME.schedule per instance of --reference.
    #[arg(long = "schedules", value_name = "HDIR", num_args = 1.., requires = "reference")]
    heuristic_dirs: Vec<PathBuf>,
    /// Use this T_max (an organiser's value) instead of the computed one.
    #[arg(long, value_name = "N")]
    t_max: Option<u128>,
    /// Score of a schedule at T_max or beyond, and of an illegal or missing one.
    #[arg(long, default_value_t = 0.0)]
    s_base: f64,
    /// Score of a schedule at T_min.
    #[arg(long, default_value_t = 100.0)]
    s_max: f64,
    /// Print a JSON list, one object per schedule.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print CSV, one line per schedule.
    #[arg(long)]
    csv: bool,
    /// Violations listed per illegal schedule.
    #[arg(long, default_value_t = 5)]
    max_violations: usize,
}

#[derive(clap::Args)]
struct PlotArgs {
    /// Instance file.
    instance: PathBuf,
    /// Schedule file (validated first).
    schedule: PathBuf,
    /// Output SVG file.
    #[arg(short, long)]
    output: PathBuf,
    /// The aggregated view (utilisation per core type and memory per type over
    /// time) whatever the size; it is used anyway above --aggregate-above nodes.
    #[arg(long)]
    aggregate: bool,
    /// Node count above which the aggregated view replaces the Gantt chart.
    #[arg(long, default_value_t = tmin::plot::AGGREGATE_ABOVE)]
    aggregate_above: usize,
    /// Draw an illegal schedule anyway (its violations are printed).
    #[arg(long)]
    allow_illegal: bool,
    /// Title of the picture [default: INSTANCE / SCHEDULE].
    #[arg(long)]
    title: Option<String>,
}

#[derive(Clone, Copy, ValueEnum)]
enum ImportFormat {
    /// Job shop, OR-Library format (as in JSPLIB).
    Jsp,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum GenFamilyArg {
    /// Random library and op graph, memory sized by --tightness; proven feasible.
    Random,
    /// Perfectly packed witness: proven optimum T, any size, memory by --mem-factor.
    Packed,
}

#[derive(clap::Args)]
struct GenArgs {
    /// Instance family (see the end of this help).
    #[arg(long, value_enum, default_value_t = GenFamilyArg::Random)]
    family: GenFamilyArg,
    /// Random seed; the same seed and options give the same instance.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of ops in the computation graph (packed: the instance has about
    /// ops x mean op size nodes).
    #[arg(long, default_value_t = 20)]
    ops: u32,
    /// Number of distinct op types.
    #[arg(long, default_value_t = 4)]
    op_types: u32,
    /// Number of distinct shapes per op type [default: 2]. Random only (packed:
    /// every op is its own group, its shape is its op id).
    #[arg(long)]
    shapes: Option<u32>,
    /// Tilings per (op type, shape); packed: per op, all of the same total work.
    #[arg(long, default_value_t = 3)]
    tilings: u32,
    /// Nodes per subgraph, as MIN or MIN-MAX (packed: of every tiling of every op).
    #[arg(long, default_value = "4-8")]
    nodes: String,
    /// Largest number of nodes side by side in a subgraph layer (packed: in the
    /// tilings other than the witness's).
    #[arg(long, default_value_t = 3)]
    width: u32,
    /// Random: core counts per core type, comma separated (one entry per type)
    /// [default: 2,4,4]. Packed: one count K, the cores of its one core type
    /// [default: 4].
    #[arg(long)]
    cores: Option<String>,
    /// Number of memory types (packed: 1..=10).
    #[arg(long, default_value_t = 2)]
    mem_types: u32,
    /// Memory tightness in [0,1]: 0 = memory never binds, 1 = as tight as a
    /// memory-frugal serial schedule allows [default: 0.5]. Random only.
    #[arg(long)]
    tightness: Option<f64>,
    /// Number of independent computation graphs (packed: op i belongs to graph
    /// i mod this).
    #[arg(long, default_value_t = 1)]
    graphs: u32,
    /// Share of tilings made deliberately unusable (missing core type or too much
    /// memory) [default: 0]. Random only.
    #[arg(long)]
    unusable: Option<f64>,
    /// Longest node duration (durations are 1..=this).
    #[arg(long, default_value_t = 10)]
    max_time: u64,
    /// Average number of op edges per op (the graph is a random DAG; packed: only
    /// edges the witness's time order allows).
    #[arg(long, default_value_t = 1.5)]
    density: f64,
    /// Memory size per type = ceil(F x the witness's peak), at least the largest
    /// single-node demand; F >= 1.0, 1.0 = exactly the peak [default: 1.2].
    /// Packed only.
    #[arg(long, value_name = "F")]
    mem_factor: Option<f64>,
    /// Op edges reach back uniformly over the last R ended ops of their graph
    /// (long-lived holds: the shape that traps greedy schedulers) instead of
    /// mostly the last 4. Packed only.
    #[arg(long, value_name = "R")]
    reach: Option<u32>,
    /// Deal the witness's nodes of every W consecutive ops at random among them,
    /// so each op spans W times as long and its holds overlap other ops' (1 =
    /// consecutive runs) [default: 1]. Packed only.
    #[arg(long, value_name = "W")]
    interleave: Option<u32>,
    /// Output file (default: stdout; '-' is stdout too).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Also write the generator's own legal schedule (packed: an optimal one) here.
    #[arg(long)]
    schedule: Option<PathBuf>,
    /// Print one JSON object on stdout: {"family", "seed", "ops", "nodes",
    /// "witness_makespan", "optimum" (packed; null for random), "mem_sizes"}.
    /// Needs -o FILE.
    #[arg(long)]
    json: bool,
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
fn say(line: &str) {
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

enum Failure {
    Input(InputError),
    Usage(String),
    Internal(String),
    /// Writing the result failed (exit 74).
    Output(String),
}

impl From<InputError> for Failure {
    fn from(e: InputError) -> Self {
        Failure::Input(e)
    }
}

fn read_instance(path: &Path) -> Result<Instance, Failure> {
    let inst = instance::parse_file(path)?;
    for w in &inst.warnings {
        log::warn!("{w}");
    }
    Ok(inst)
}

fn open_input(path: &Path) -> Result<(Box<dyn std::io::Read>, String), Failure> {
    let name = path.display().to_string();
    if name == "-" {
        return Ok((Box::new(std::io::stdin().lock()), "<stdin>".to_string()));
    }
    let f = tmin::error::open_file(path)?;
    Ok((Box::new(f), name))
}

fn create_output(path: Option<&Path>) -> Result<Box<dyn Write>, Failure> {
    match path {
        None => Ok(Box::new(std::io::BufWriter::new(std::io::stdout().lock()))),
        Some(p) => {
            let f = std::fs::File::create(p)
                .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", p.display())))?;
            Ok(Box::new(std::io::BufWriter::with_capacity(1 << 20, f)))
        }
    }
}

fn io_failure(e: std::io::Error) -> Failure {
    Failure::Output(e.to_string())
}

/// Writes `text` to stdout and flushes it.
fn print_out(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(io_failure)
}

/// Writes `text` to stderr (the summary when the schedule goes to stdout).
fn print_err(text: &str) -> Result<(), Failure> {
    let mut err = std::io::stderr().lock();
    err.write_all(text.as_bytes())
        .and_then(|_| err.flush())
        .map_err(io_failure)
}

fn run(cli: Cli, t0: Instant) -> Result<ExitCode, Failure> {
    match cli.cmd {
        Cmd::Check {
            instance,
            schedule,
            json,
            max_violations,
            bound,
        } => check_cmd(&instance, &schedule, json, max_violations, bound),
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

/// `tmin check`: every rule of a schedule, and with --bound the gap to the
/// proven bounds. Exit 0 when legal, 1 when not.
fn check_cmd(
    instance: &std::path::Path,
    schedule: &std::path::Path,
    json: bool,
    max_violations: usize,
    bound: bool,
) -> Result<ExitCode, Failure> {
    if instance.as_os_str() == "-" && schedule.as_os_str() == "-" {
        return Err(Failure::Usage(
            "instance and schedule cannot both be read from stdin".into(),
        ));
    }
    let t0 = std::time::Instant::now();
    let inst = read_instance(instance)?;
    let (src, name) = open_input(schedule)?;
    let rep = check_reader(&inst, std::io::BufReader::new(src), &name, max_violations)?;
    log::info!("checked in {:.3} s", t0.elapsed().as_secs_f64());
    // The same bounds as `tmin bound` (the relaxation on at most 2 s).
    let bounds = (bound && rep.is_legal())
        .then(|| tmin::pipeline::bounds::proven_bounds(&inst, std::time::Duration::from_secs(2)));
    let b = bounds.as_ref().map(|x| report::CheckBound {
        value: x.best.value,
        source: &x.best.source,
    });
    if json {
        let v = report::check_json(&inst.name, &name, &rep, b.as_ref());
        print_out(&format!("{v}\n"))?;
    } else {
        print_out(&report::check_text(&rep, b.as_ref()))?;
    }
    Ok(ExitCode::from(if rep.is_legal() { 0 } else { 1 }))
}

/// `tmin gen`: writes the instance (and with --schedule its witness), and
/// with --json a summary.
fn generate(a: GenArgs) -> Result<ExitCode, Failure> {
    use tmin::generate::GenFamily;
    let spec = gen_config(&a)?;
    let out_path = a.output.as_deref().filter(|p| p.as_os_str() != "-");
    if a.json && out_path.is_none() {
        return Err(Failure::Usage(
            "--json prints the summary on stdout, so the instance needs -o FILE".into(),
        ));
    }
    let summary = match spec {
        GenFamily::Random(cfg) => gen_random(&cfg, out_path, a.schedule.as_deref())?,
        GenFamily::Packed(cfg) => gen_packed(&cfg, out_path, a.schedule.as_deref())?,
    };
    log::info!("generated {summary}");
    if a.json {
        writeln!(std::io::stdout().lock(), "{summary}").map_err(io_failure)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The random family: the instance text and its proven feasible schedule.
fn gen_random(
    cfg: &tmin::generate::GenConfig,
    out_path: Option<&std::path::Path>,
    schedule: Option<&std::path::Path>,
) -> Result<serde_json::Value, Failure> {
    let generated = tmin::generate::generate(cfg).map_err(Failure::Usage)?;
    let mut out = create_output(out_path)?;
    out.write_all(generated.text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(io_failure)?;
    if let Some(p) = schedule {
        let g = tmin::graph::NodeGraph::new(&generated.instance, generated.witness.choice.clone())
            .map_err(Failure::Internal)?;
        let w = create_output(Some(p))?;
        tmin::schedule::write_schedule(&g, &generated.witness, w).map_err(io_failure)?;
    }
    Ok(json!({
        "family": "random",
        "seed": cfg.seed,
        "ops": generated.instance.graph.n_ops(),
        "nodes": generated.witness.start.len(),
        "witness_makespan": report::num(generated.witness_makespan),
        "optimum": null,
        "mem_sizes": generated.mem_sizes,
    }))
}

/// The known-optimum family: the text streams out while it is generated into
/// a temporary file next to FILE, renamed only once the witness has passed
/// the checks, so a failed run leaves no partial instance behind. Where FILE
/// exists and is not a regular file (a device, a pipe) the text goes to it
/// directly: a rename would replace the device node itself.
fn gen_packed(
    cfg: &tmin::generate::PackedConfig,
    out_path: Option<&std::path::Path>,
    schedule: Option<&std::path::Path>,
) -> Result<serde_json::Value, Failure> {
    use tmin::generate::PackedError;
    let special = out_path.is_some_and(|p| std::fs::metadata(p).is_ok_and(|m| !m.is_file()));
    let tmp = out_path.map(|p| {
        if special {
            return p.to_path_buf();
        }
        let name = p.file_name().unwrap_or_default().to_string_lossy();
        p.with_file_name(format!(".{name}.partial-{}", std::process::id()))
    });
    let mut out = create_output(tmp.as_deref())?;
    let result = tmin::generate::generate_packed(cfg, out.as_mut());
    drop(out);
    let p = match result {
        Ok(p) => p,
        Err(e) => {
            if let Some(t) = tmp.as_ref().filter(|_| !special) {
                let _ = std::fs::remove_file(t);
            }
            return Err(match e {
                PackedError::Config(m) => Failure::Usage(m),
                PackedError::Io(e) => io_failure(e),
                PackedError::Internal(m) => Failure::Internal(m),
            });
        }
    };
    if let (Some(t), Some(dest)) = (tmp.as_ref().filter(|_| !special), out_path) {
        std::fs::rename(t, dest).map_err(|e| {
            let _ = std::fs::remove_file(t);
            Failure::Usage(format!("cannot create {}: {e}", dest.display()))
        })?;
    }
    if let Some(path) = schedule {
        let g = tmin::graph::NodeGraph::new(&p.witness_instance, p.witness.choice.clone())
            .map_err(Failure::Internal)?;
        let w = create_output(Some(path))?;
        tmin::schedule::write_schedule(&g, &p.witness, w).map_err(io_failure)?;
    }
    Ok(json!({
        "family": "packed",
        "seed": cfg.seed,
        "ops": p.witness_instance.graph.n_ops(),
        "nodes": p.witness.start.len(),
        "witness_makespan": report::num(p.witness_makespan),
        "optimum": p.optimum,
        "mem_sizes": p.mem_sizes,
    }))
}

fn plot_failure(e: tmin::plot::PlotError) -> Failure {
    use tmin::plot::PlotError;
    match e {
        PlotError::Input(e) => Failure::Input(e),
        PlotError::Usage(m) => Failure::Usage(m),
        PlotError::Output(m) => Failure::Output(m),
        PlotError::Internal(m) => Failure::Internal(m),
    }
}

fn score(a: ScoreArgs) -> Result<ExitCode, Failure> {
    use tmin::score as sc;
    if !(a.s_base.is_finite() && a.s_max.is_finite() && a.s_base <= a.s_max) {
        return Err(Failure::Usage(format!(
            "--s-base and --s-max must be finite with s-base <= s-max, got {} and {}",
            a.s_base, a.s_max
        )));
    }
    let reference = match &a.reference {
        Some(p) => Some(sc::load_reference(p)?),
        None => None,
    };
    let rows = if a.heuristic_dirs.is_empty() {
        score_instance(&a, reference.as_ref())?
    } else {
        score_study(&a, reference)?
    };
    let out = if a.json {
        format!("{}\n", sc::to_json(&rows))
    } else if a.csv {
        sc::to_csv(&rows)
    } else {
        sc::to_text(&rows, a.s_max)
    };
    print_out(&out)?;
    Ok(ExitCode::from(if rows.iter().all(|r| r.legal) {
        0
    } else {
        1
    }))
}

/// A score, or why not: bad input, or (a computed bound above a legal
/// makespan) our bug.
fn scored(
    r: Result<tmin::score::Scored, tmin::score::ScoreError>,
) -> Result<tmin::score::Scored, Failure> {
    use tmin::score::ScoreError;
    r.map_err(|e| match e {
        ScoreError::Input(e) => Failure::Input(e),
        // From a reference: bad input. From a computed bound: our bug.
        ScoreError::NotABound {
            from_reference: true,
            message,
        } => Failure::Usage(message),
        ScoreError::NotABound { message, .. } => Failure::Internal(message),
    })
}

/// `tmin score --reference DIR --schedules HDIR...`: every instance of the
/// reference, every heuristic folder (a missing schedule scores s_base).
fn score_study(
    a: &ScoreArgs,
    reference: Option<tmin::score::Reference>,
) -> Result<Vec<tmin::score::Scored>, Failure> {
    use tmin::score as sc;
    let mut rows = Vec::new();
    if a.instance.is_some() || !a.schedule_files.is_empty() {
        return Err(Failure::Usage(
            "--schedules scores every instance of --reference: give no INSTANCE or SCHEDULE".into(),
        ));
    }
    if a.t_max.is_some() {
        return Err(Failure::Usage(
            "--t-max is one instance's value; with --schedules give t_max in the reference CSV"
                .into(),
        ));
    }
    for d in &a.heuristic_dirs {
        if !d.is_dir() {
            return Err(Failure::Usage(format!(
                "--schedules {}: not a directory",
                d.display()
            )));
        }
    }
    let reference = reference.expect("clap requires --reference with --schedules");
    if reference.entries.is_empty() {
        return Err(Failure::Usage(format!(
            "{}: the reference lists no instance",
            reference.source.display()
        )));
    }
    let base = reference.base_dir();
    for e in &reference.entries {
        let path = resolve_instance(&e.instance, &base).ok_or_else(|| {
            Failure::Usage(format!(
                "{}: instance {} not found (looked in the working directory and in {})",
                e.at,
                e.instance,
                base.display()
            ))
        })?;
        let inst = if e.jsp {
            let end = tmin::stop::far_future(Instant::now());
            tmin::bench::read_input(&path, tmin::bench::Format::Jsp, end)?.0
        } else {
            read_instance(&path)?
        };
        let name = sc::instance_name(&e.instance);
        let label = path.display().to_string();
        let scale = sc::scale_for(&inst, &name, Some(&reference), None).map_err(Failure::Usage)?;
        for d in &a.heuristic_dirs {
            let h = heuristic_name(d);
            let file = d.join(format!("{name}.schedule"));
            if file.exists() {
                rows.push(scored(sc::score_file(
                    &inst,
                    &label,
                    &h,
                    &file,
                    &scale,
                    a.s_base,
                    a.s_max,
                    a.max_violations,
                ))?);
            } else {
                rows.push(sc::missing(&h, &label, &scale, a.s_base));
            }
        }
    }
    Ok(rows)
}

/// `tmin score INSTANCE SCHEDULE...`: each schedule of one instance.
fn score_instance(
    a: &ScoreArgs,
    reference: Option<&tmin::score::Reference>,
) -> Result<Vec<tmin::score::Scored>, Failure> {
    use tmin::score as sc;
    let mut rows = Vec::new();
    let Some(instance) = &a.instance else {
        return Err(Failure::Usage(
            "give INSTANCE SCHEDULE..., or --reference DIR --schedules HDIR...".into(),
        ));
    };
    if a.schedule_files.is_empty() {
        return Err(Failure::Usage(
            "no SCHEDULE given: tmin score INSTANCE SCHEDULE...".into(),
        ));
    }
    if instance.as_os_str() == "-" || a.schedule_files.iter().any(|p| p.as_os_str() == "-") {
        return Err(Failure::Usage(
            "tmin score reads files, not stdin ('-')".into(),
        ));
    }
    let inst = read_instance(instance)?;
    let label = instance.display().to_string();
    let name = sc::instance_name(&label);
    let scale = sc::scale_for(&inst, &name, reference, a.t_max).map_err(Failure::Usage)?;
    for f in &a.schedule_files {
        let h = f.display().to_string();
        rows.push(scored(sc::score_file(
            &inst,
            &label,
            &h,
            f,
            &scale,
            a.s_base,
            a.s_max,
            a.max_violations,
        ))?);
    }
    Ok(rows)
}

/// A heuristic folder's name; a bench folder's `schedules` folder is named
/// after its bench folder (`runs/greedy/schedules` is `greedy`).
fn heuristic_name(d: &Path) -> String {
    let full = d.canonicalize().unwrap_or_else(|_| d.to_path_buf());
    let name = |p: &Path| p.file_name().map(|f| f.to_string_lossy().into_owned());
    match name(&full) {
        Some(n) if n == "schedules" => full.parent().and_then(name).unwrap_or(n),
        Some(n) => n,
        None => d.display().to_string(),
    }
}

/// An instance path from a reference: as written (relative to the working
/// directory), else relative to the reference's folder or its parent.
fn resolve_instance(p: &str, base: &Path) -> Option<PathBuf> {
    let direct = PathBuf::from(p);
    if direct.is_file() {
        return Some(direct);
    }
    if direct.is_absolute() {
        return None;
    }
    [
        base.join(p),
        base.parent().map(|b| b.join(p)).unwrap_or_default(),
    ]
    .into_iter()
    .find(|c| c.is_file())
}

fn plot(a: PlotArgs) -> Result<ExitCode, Failure> {
    if a.instance.as_os_str() == "-" && a.schedule.as_os_str() == "-" {
        return Err(Failure::Usage(
            "instance and schedule cannot both be read from stdin".into(),
        ));
    }
    let inst = read_instance(&a.instance)?;
    let (src, name) = open_input(&a.schedule)?;
    let read = tmin::schedule::read_schedule(&inst, std::io::BufReader::new(src), &name, 10)?;
    let listing = |v: &tmin::schedule::Violations| {
        v.kept
            .iter()
            .map(|x| format!("  {x}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let Some(sched) = read.schedule else {
        return Err(Failure::Usage(format!(
            "{name} does not form a complete schedule of {} ({} violations), nothing to draw:\n{}",
            a.instance.display(),
            read.violations.total(),
            listing(&read.violations)
        )));
    };
    let g = tmin::graph::NodeGraph::new(&inst, sched.choice.clone())
        .map_err(|e| Failure::Usage(format!("{name}: {e}")))?;
    let v = tmin::schedule::check(&g, &sched, 10);
    if !v.is_empty() {
        let msg = format!(
            "{name} is not a legal schedule ({} violations):\n{}",
            v.total(),
            listing(&v)
        );
        if !a.allow_illegal {
            return Err(Failure::Usage(format!(
                "{msg}\n(--allow-illegal draws it anyway)"
            )));
        }
        say(&format!("warning: {msg}"));
    }
    let opts = tmin::plot::PlotOptions {
        aggregate: a.aggregate || g.n_nodes() > a.aggregate_above,
        title: a
            .title
            .clone()
            .unwrap_or_else(|| format!("{} / {}", a.instance.display(), a.schedule.display())),
    };
    tmin::plot::plot_schedule(&g, &sched, &opts, &a.output).map_err(plot_failure)?;
    Ok(ExitCode::SUCCESS)
}

/// The time limit as a Duration: above ten years (or beyond what a Duration
/// holds, e.g. 1e30) it is ten years, i.e. no limit.
fn time_limit(secs: f64) -> Result<Duration, Failure> {
    if !(secs.is_finite() && secs >= 0.0) {
        return Err(Failure::Usage(format!(
            "--time-limit expects a non-negative number of seconds, got {secs}"
        )));
    }
    let capped = secs.min(NO_LIMIT_SECS);
    Ok(Duration::try_from_secs_f64(capped).unwrap_or(Duration::from_secs(NO_LIMIT_SECS as u64)))
}

fn bench(a: BenchArgs) -> Result<ExitCode, Failure> {
    use tmin::bench::BenchError;
    let result = match a.action {
        Some(BenchCmd::Merge { dirs, out }) => tmin::bench::merge(&dirs, &out),
        Some(BenchCmd::Plot { dirs, output }) => {
            tmin::plot::profile::plot_bench(&dirs, &output).map_err(plot_failure)?;
            return Ok(ExitCode::SUCCESS);
        }
        None => {
            let shard = a
                .shard
                .as_deref()
                .map(tmin::bench::parse_shard)
                .transpose()
                .map_err(Failure::Usage)?;
            let cfg = tmin::bench::BenchConfig {
                inputs: a.instances,
                out: a
                    .out
                    .ok_or_else(|| Failure::Usage("--out DIR is required".into()))?,
                settings: tmin::bench::Settings {
                    engine: engine_choice(&a.engine, EngineOptions::default())?,
                    time_limit: a.time_limit,
                    limit: time_limit(a.time_limit)?,
                    seed: a.seed,
                    threads: a.threads,
                },
                jobs: a
                    .jobs
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
                shard,
                format: match a.format {
                    BenchFormat::Txt => tmin::bench::Format::Txt,
                    BenchFormat::Jsp => tmin::bench::Format::Jsp,
                },
            };
            tmin::bench::run(&cfg)
        }
    };
    match result {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(BenchError::Usage(m) | BenchError::Input(m)) => Err(Failure::Usage(m)),
        Err(BenchError::Internal(m)) => Err(Failure::Internal(m)),
        Err(BenchError::Output(m)) => Err(Failure::Output(m)),
    }
}

/// The `--engine` values and their help, from the registry.
fn engine_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        Registry::default()
            .engines()
            .iter()
            .map(|r| clap::builder::PossibleValue::new(r.name).help(r.help)),
    )
}

/// The registry's engine for `--engine` (clap has checked the name).
fn engine_choice(name: &str, options: EngineOptions) -> Result<EngineChoice, Failure> {
    Registry::default()
        .choose(name, options)
        .ok_or_else(|| Failure::Usage(format!("--engine {name}: no such engine")))
}

/// Reads the instance by `end`, hashing its content on the way (the `hash` of
/// `--json`; `None` for stdin, where the bytes are not a file's).
fn read_instance_hashed(
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
fn solve_arguments(
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
fn unread(
    a: &SolveArgs,
    e: &InputError,
    engine_name: &str,
    t0: Instant,
    to_stdout: bool,
) -> Result<ExitCode, Failure> {
    let mut r = tmin::solve::SolveResult::without_schedule(
        tmin::solve::Status::Unknown,
        0,
        "none (the input was not read)",
        engine_name,
    );
    r.note(e.to_string());
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
    Ok(ExitCode::from(3))
}

fn solve(a: SolveArgs, t0: Instant) -> Result<ExitCode, Failure> {
    use std::io::IsTerminal;
    let limit = time_limit(a.time_limit)?;
    let certifier = solve_arguments(&a)?;
    let to_stdout = a.output.as_deref().is_some_and(|p| p.as_os_str() == "-");
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
            return unread(&a, &e, engine_name, t0, to_stdout);
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
        progress: !a.quiet && (a.progress || std::io::stderr().is_terminal()),
        start,
        memory_limit_mib: a.memory_limit,
        certify: certifier.clone(),
    };
    let engine = choice.engine();
    let mut result = tmin::pipeline::solve(engine.as_ref(), &inst, &opts);
    let conclusion = certifier.as_ref().map(|c| {
        if engine.certifies() {
            tmin::sat::certify::conclude(c, &mut result)
        } else {
            result.note(format!(
                "--certify: nothing certified: only the SAT engine (--engine sat or auto) \
                 gives UNSAT answers; engine {engine_name} does not"
            ));
            tmin::sat::certify::Conclusion {
                final_bound_certified: false,
                certificates: Vec::new(),
            }
        }
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

const CERTIFY_HELP: &str = "\
Each DIR/NAME.cnf is checked with DIR/NAME.proof by varisat's proof checker:
'verified' means the proof derives the empty clause from the CNF, so the CNF is
unsatisfiable, and the claim in its 'c claim:' line holds as far as the
encoding is trusted (models/sat.md, What is certified). A file without its
partner, a CNF that is not DIMACS, a proof step that does not follow, a
truncated proof or one that never derives the empty clause: 'FAILED', with
the reason. Each pair is checked in a child process under --time-limit and
--memory-limit: the checker trusts its input's shape, and a garbled proof can
make it panic or ask for terabytes; that certificate then fails.

Exit codes: 0 every certificate verified, 1 some failed, 2 DIR unreadable or
without certificates.";

/// `tmin certify-check DIR`: every certificate pair of DIR, each checked in
/// a child process (`certify-check-one`) under `limit` and `memory_mib`:
/// varisat's checker can panic, abort on a huge allocation or run long on a
/// garbled proof, and any of these must end as that certificate's failure,
/// not as this command's crash.
fn certify_check(
    dir: &Path,
    json: bool,
    limit: Duration,
    memory_mib: u64,
) -> Result<ExitCode, Failure> {
    let pairs = tmin::sat::certify::pairs(dir).map_err(|e| {
        Failure::Usage(format!("{}: cannot read the directory: {e}", dir.display()))
    })?;
    if pairs.is_empty() {
        return Err(Failure::Usage(format!(
            "{}: no certificates (NAME.cnf with NAME.proof) to check",
            dir.display()
        )));
    }
    let exe = std::env::current_exe()
        .map_err(|e| Failure::Internal(format!("cannot find the tmin executable: {e}")))?;
    let verdicts: Vec<Result<(), String>> = pairs
        .iter()
        .map(|p| match p.missing() {
            Some(e) => Err(e.to_string()),
            None => check_in_child(&exe, &p.cnf, &p.proof, limit, memory_mib),
        })
        .collect();
    let failed = verdicts.iter().filter(|v| v.is_err()).count();
    let out = if json {
        let rows: Vec<_> = pairs
            .iter()
            .zip(&verdicts)
            .map(|(p, v)| {
                json!({
                    "name": p.name,
                    "cnf": p.cnf.display().to_string(),
                    "proof": p.proof.display().to_string(),
                    "claim": p.claim,
                    "verified": v.is_ok(),
                    "error": v.as_ref().err(),
                })
            })
            .collect();
        format!(
            "{}\n",
            json!({"dir": dir.display().to_string(), "verified": pairs.len() - failed,
                   "failed": failed, "certificates": rows})
        )
    } else {
        let mut s = String::new();
        for (p, v) in pairs.iter().zip(&verdicts) {
            match v {
                Ok(()) => s.push_str(&format!(
                    "verified  {}  {}\n",
                    p.name,
                    p.claim.as_deref().unwrap_or("(no claim line)")
                )),
                Err(e) => s.push_str(&format!("FAILED    {}  {e}\n", p.name)),
            }
        }
        s.push_str(&format!(
            "{} of {} certificates verified\n",
            pairs.len() - failed,
            pairs.len()
        ));
        s
    };
    print_out(&out)?;
    Ok(ExitCode::from(if failed == 0 { 0 } else { 1 }))
}

/// Runs `tmin certify-check-one CNF PROOF` and reads its verdict: exit 0
/// verified, 1 rejected (its stdout says why); anything else (a panic's exit
/// 70, an abort, the time limit) is a failure of the check on this pair.
fn check_in_child(
    exe: &Path,
    cnf: &Path,
    proof: &Path,
    limit: Duration,
    memory_mib: u64,
) -> Result<(), String> {
    use std::process::{Command, Stdio};
    let mut child = Command::new(exe)
        .arg("certify-check-one")
        .arg(cnf)
        .arg(proof)
        .arg("--memory-limit")
        .arg(memory_mib.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start the checker: {e}"))?;
    let end = tmin::stop::instant_after(Instant::now(), limit);
    // Polled: std has no wait with a timeout. The pipes carry one line
    // (stdout) or a panic's report (stderr), far below a pipe's buffer.
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if Instant::now() >= end => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "not checked within {} s (--time-limit)",
                    limit.as_secs_f64()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("cannot wait for the checker: {e}")),
        }
    };
    let mut out = String::new();
    let mut err = String::new();
    use std::io::Read;
    if let Some(mut o) = child.stdout.take() {
        let _ = o.read_to_string(&mut out);
    }
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    match status.code() {
        Some(0) => Ok(()),
        Some(1) => Err(out.trim().to_string()),
        code => {
            let last = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            Err(format!(
                "the checker failed on it ({}{}{}): a garbled proof or CNF, or one beyond \
                 --memory-limit",
                code.map_or("killed by a signal".to_string(), |c| format!("exit {c}")),
                if last.is_empty() { "" } else { ": " },
                last.trim()
            ))
        }
    }
}

/// Caps this process's address space at `mib` MiB (Unix; elsewhere
/// nothing), so that a huge allocation fails at once instead of exhausting
/// the machine.
fn limit_address_space(mib: u64) {
    #[cfg(unix)]
    {
        let bytes = mib.saturating_mul(1 << 20);
        let lim = libc::rlimit {
            rlim_cur: bytes as libc::rlim_t,
            rlim_max: bytes as libc::rlim_t,
        };
        // SAFETY: setrlimit reads the struct only; a failure leaves the
        // limit as it was (the check then runs without the cap).
        let _ = unsafe { libc::setrlimit(libc::RLIMIT_AS, &lim) };
    }
    #[cfg(not(unix))]
    let _ = mib;
}

/// Reads and checks a warm-start schedule: only a legal one is accepted. The
/// outer error is the reading (a time-limit error is no verdict, exit 3); the
/// inner one a rejected schedule (exit 2).
fn read_start(
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
            v.kept
                .iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        ))
    };
    let Some(sched) = read.schedule.filter(|_| read.violations.is_empty()) else {
        return Ok(Err(rejected(&read.violations)));
    };
    let g = match tmin::graph::NodeGraph::new(inst, sched.choice.clone()) {
        Ok(g) => g,
        Err(e) => return Ok(Err(Failure::Usage(format!("--start {name}: {e}")))),
    };
    let v = tmin::schedule::check(&g, &sched, 5);
    if !v.is_empty() {
        return Ok(Err(rejected(&v)));
    }
    Ok(Ok(sched))
}

fn gen_config(a: &GenArgs) -> Result<tmin::generate::GenFamily, Failure> {
    use tmin::generate::{GenFamily, PackedConfig};
    let (nmin, nmax) = match a.nodes.split_once('-') {
        Some((x, y)) => (x.trim().parse::<u32>(), y.trim().parse::<u32>()),
        None => (a.nodes.trim().parse::<u32>(), a.nodes.trim().parse::<u32>()),
    };
    let (Ok(nodes_min), Ok(nodes_max)) = (nmin, nmax) else {
        return Err(Failure::Usage(format!(
            "--nodes expects MIN or MIN-MAX (unsigned integers), got '{}'",
            a.nodes
        )));
    };
    let cores_text = a.cores.as_deref().unwrap_or(match a.family {
        GenFamilyArg::Random => "2,4,4",
        GenFamilyArg::Packed => "4",
    });
    let cores: Result<Vec<u32>, _> = cores_text
        .split(',')
        .map(|c| c.trim().parse::<u32>())
        .collect();
    let Ok(cores) = cores else {
        return Err(Failure::Usage(format!(
            "--cores expects a comma-separated list of core counts, got '{cores_text}'"
        )));
    };
    let not_for = |option: &str, family: &str, instead: &str| {
        Failure::Usage(format!(
            "{option} does not apply to --family {family}{instead}"
        ))
    };
    match a.family {
        GenFamilyArg::Random => {
            if a.reach.is_some() {
                return Err(not_for("--reach", "random", ""));
            }
            if a.interleave.is_some() {
                return Err(not_for("--interleave", "random", ""));
            }
            if a.mem_factor.is_some() {
                return Err(not_for(
                    "--mem-factor",
                    "random",
                    " (it sizes the memories of --family packed; use --tightness)",
                ));
            }
            let d = GenConfig::default();
            let cfg = GenConfig {
                seed: a.seed,
                ops: a.ops,
                op_types: a.op_types,
                shapes: a.shapes.unwrap_or(d.shapes),
                tilings: a.tilings,
                nodes_min,
                nodes_max,
                width: a.width,
                cores,
                mem_types: a.mem_types,
                tightness: a.tightness.unwrap_or(d.tightness),
                graphs: a.graphs,
                unusable: a.unusable.unwrap_or(d.unusable),
                max_time: a.max_time,
                density: a.density,
            };
            cfg.validate().map_err(Failure::Usage)?;
            Ok(GenFamily::Random(cfg))
        }
        GenFamilyArg::Packed => {
            if a.shapes.is_some() {
                return Err(not_for(
                    "--shapes",
                    "packed",
                    " (every op is its own group; its shape is its op id)",
                ));
            }
            if a.tightness.is_some() {
                return Err(not_for("--tightness", "packed", "; use --mem-factor"));
            }
            if a.unusable.is_some() {
                return Err(not_for(
                    "--unusable",
                    "packed",
                    " (every tiling is usable: they all share the op's work)",
                ));
            }
            let &[cores] = cores.as_slice() else {
                return Err(Failure::Usage(format!(
                    "--cores: --family packed has one core type; give a single core count K \
                     (e.g. --cores 8), got '{cores_text}'"
                )));
            };
            let cfg = PackedConfig {
                seed: a.seed,
                ops: a.ops,
                op_types: a.op_types,
                tilings: a.tilings,
                nodes_min,
                nodes_max,
                width: a.width,
                cores,
                mem_types: a.mem_types,
                mem_factor: a.mem_factor.unwrap_or(PackedConfig::default().mem_factor),
                graphs: a.graphs,
                max_time: a.max_time,
                density: a.density,
                reach: a.reach,
                interleave: a.interleave.unwrap_or(1),
            };
            cfg.validate().map_err(Failure::Usage)?;
            Ok(GenFamily::Packed(cfg))
        }
    }
}
