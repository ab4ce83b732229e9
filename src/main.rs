//! The `tmin` command line: parsing arguments, dispatching, exit codes.
//!
//! Exit codes: 0 success (legal schedule, solution found); 1 a negative verdict
//! (illegal schedule, proven infeasible instance); 2 unreadable input or bad
//! arguments; 3 no verdict (time limit before any schedule); 70 internal error.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use serde_json::json;

use tmin::error::InputError;
use tmin::generate::GenConfig;
use tmin::instance::{self, Instance};
use tmin::report;
use tmin::schedule::check_reader;

#[derive(Parser)]
#[command(
    name = "tmin",
    version,
    about = "Optimal and bounded schedules for the minimum inference latency problem",
    long_about = "Optimal and bounded schedules for the minimum inference latency problem.\n\n\
Instances use the competition text format (SetSocInfo / AddOpInfo / GetInferenceScheResult);\n\
schedules use its output format [[OpId,Tiling,NodeId,Start,CoreId],...]. '-' reads stdin.\n\n\
Exit codes: 0 success, 1 illegal schedule or infeasible instance, 2 unreadable input,\n\
3 no verdict within the limits, 70 internal error. Logging: RUST_LOG=info|debug."
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
    /// Compute lower bounds valid for every tiling choice, and which one binds.
    Bound {
        instance: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Summarise an instance: platform, library, graph size, unusable tilings.
    Info {
        instance: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Write a seeded random instance that provably has a feasible schedule.
    Gen(GenArgs),
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

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Engine {
    /// List scheduling for the incumbent, then the exact engines by size.
    Auto,
    /// Memory-aware list scheduling with tiling search (fast, any size).
    List,
    /// Exact MILP (HiGHS), warm-started by list scheduling.
    Milp,
    /// Exact SAT (varisat), warm-started by list scheduling.
    Sat,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ModelArg {
    /// Choose by horizon and size.
    Auto,
    /// Time-indexed binaries x[v,t].
    TimeIndexed,
    /// Disjunctive, continuous start times.
    Disjunctive,
}

#[derive(clap::Args)]
struct SolveArgs {
    /// Instance file ('-' for stdin).
    instance: PathBuf,
    #[arg(long, value_enum, default_value_t = Engine::Auto)]
    engine: Engine,
    /// Wall-clock limit in seconds for the search (reading and writing excluded).
    #[arg(long, default_value_t = 5.0)]
    time_limit: f64,
    /// Random seed for randomised passes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// MILP formulation.
    #[arg(long, value_enum, default_value_t = ModelArg::Auto)]
    model: ModelArg,
    /// Write the MILP models (.lp and .mps) into this directory.
    #[arg(long)]
    export_model: Option<PathBuf>,
    /// Worker threads (engines are single-threaded unless stated).
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

#[derive(Clone, Copy, ValueEnum)]
enum ImportFormat {
    /// Job shop, OR-Library format (as in JSPLIB).
    Jsp,
}

#[derive(clap::Args)]
struct GenArgs {
    /// Random seed; the same seed and options give the same instance.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of ops in the computation graph.
    #[arg(long, default_value_t = 20)]
    ops: u32,
    /// Number of distinct op types.
    #[arg(long, default_value_t = 4)]
    op_types: u32,
    /// Number of distinct shapes per op type.
    #[arg(long, default_value_t = 2)]
    shapes: u32,
    /// Tilings per (op type, shape).
    #[arg(long, default_value_t = 3)]
    tilings: u32,
    /// Nodes per subgraph, as MIN or MIN-MAX.
    #[arg(long, default_value = "4-8")]
    nodes: String,
    /// Largest number of nodes side by side in a subgraph layer.
    #[arg(long, default_value_t = 3)]
    width: u32,
    /// Core counts per core type, comma separated (one entry per type).
    #[arg(long, default_value = "2,4,4")]
    cores: String,
    /// Number of memory types.
    #[arg(long, default_value_t = 2)]
    mem_types: u32,
    /// Memory tightness in [0,1]: 0 = memory never binds, 1 = as tight as a
    /// memory-frugal serial schedule allows.
    #[arg(long, default_value_t = 0.5)]
    tightness: f64,
    /// Number of independent computation graphs.
    #[arg(long, default_value_t = 1)]
    graphs: u32,
    /// Share of tilings made deliberately unusable (missing core type or too much memory).
    #[arg(long, default_value_t = 0.0)]
    unusable: f64,
    /// Longest node duration (durations are 1..=this).
    #[arg(long, default_value_t = 10)]
    max_time: u64,
    /// Average number of op edges per op (the graph is a random DAG).
    #[arg(long, default_value_t = 1.5)]
    density: f64,
    /// Output file (default: stdout).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Also write the generator's own legal schedule here.
    #[arg(long)]
    schedule: Option<PathBuf>,
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .format_timestamp(None)
        .init();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(Failure::Input(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        Err(Failure::Usage(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        Err(Failure::Internal(e)) => {
            eprintln!("internal error (please report): {e}");
            ExitCode::from(70)
        }
    }
}

enum Failure {
    Input(InputError),
    Usage(String),
    Internal(String),
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
    let f = std::fs::File::open(path)
        .map_err(|e| Failure::Input(InputError::new(&name, Default::default(), e.to_string())))?;
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
    Failure::Usage(format!("write failed: {e}"))
}

fn run(cli: Cli) -> Result<ExitCode, Failure> {
    match cli.cmd {
        Cmd::Check {
            instance,
            schedule,
            json,
            max_violations,
            bound,
        } => {
            if instance.as_os_str() == "-" && schedule.as_os_str() == "-" {
                return Err(Failure::Usage(
                    "instance and schedule cannot both be read from stdin".into(),
                ));
            }
            let t0 = std::time::Instant::now();
            let inst = read_instance(&instance)?;
            let (src, name) = open_input(&schedule)?;
            let rep = check_reader(&inst, std::io::BufReader::new(src), &name, max_violations)?;
            log::info!("checked in {:.3} s", t0.elapsed().as_secs_f64());
            let bounds = (bound && rep.is_legal()).then(|| tmin::bounds::lower_bounds(&inst));
            let b = bounds.as_ref().map(|x| report::CheckBound {
                value: x.best.value,
                source: &x.best.source,
            });
            let mut out = std::io::stdout().lock();
            if json {
                let v = report::check_json(&inst.name, &name, &rep, b.as_ref());
                writeln!(out, "{v}").map_err(io_failure)?;
            } else {
                write!(out, "{}", report::check_text(&rep, b.as_ref())).map_err(io_failure)?;
            }
            Ok(ExitCode::from(if rep.is_legal() { 0 } else { 1 }))
        }
        Cmd::Solve(a) => solve(a),
        Cmd::Bound { instance, json } => {
            let inst = read_instance(&instance)?;
            let b = tmin::bounds::lower_bounds(&inst);
            let mut out = std::io::stdout().lock();
            if json {
                writeln!(out, "{}", report::bound_json(&inst, &b)).map_err(io_failure)?;
            } else {
                write!(out, "{}", report::bound_text(&inst, &b)).map_err(io_failure)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Info { instance, json } => {
            let inst = read_instance(&instance)?;
            let v = report::info_json(&inst);
            let mut out = std::io::stdout().lock();
            if json {
                writeln!(out, "{v}").map_err(io_failure)?;
            } else {
                write!(out, "{}", report::info_text(&inst)).map_err(io_failure)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Gen(a) => {
            let cfg = gen_config(&a)?;
            let generated = tmin::generate::generate(&cfg).map_err(Failure::Usage)?;
            let mut out = create_output(a.output.as_deref())?;
            out.write_all(generated.text.as_bytes())
                .and_then(|_| out.flush())
                .map_err(io_failure)?;
            if let Some(p) = &a.schedule {
                let g = tmin::graph::NodeGraph::new(
                    &generated.instance,
                    generated.witness.choice.clone(),
                )
                .map_err(Failure::Internal)?;
                let w = create_output(Some(p))?;
                tmin::schedule::write_schedule(&g, &generated.witness, w).map_err(io_failure)?;
            }
            let summary = json!({
                "seed": cfg.seed,
                "ops": generated.instance.graph.n_ops(),
                "nodes": generated.witness.start.len(),
                "witness_makespan": report::num(generated.witness_makespan),
            });
            log::info!("generated {summary}");
            Ok(ExitCode::SUCCESS)
        }
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

fn solve(a: SolveArgs) -> Result<ExitCode, Failure> {
    use std::io::IsTerminal;
    if !(a.time_limit.is_finite() && a.time_limit >= 0.0) {
        return Err(Failure::Usage(format!(
            "--time-limit expects a non-negative number of seconds, got {}",
            a.time_limit
        )));
    }
    if a.threads == 0 {
        return Err(Failure::Usage("--threads must be at least 1".into()));
    }
    let t0 = std::time::Instant::now();
    let inst = read_instance(&a.instance)?;
    let start = match &a.start {
        Some(p) => Some(std::sync::Arc::new(read_start(&inst, p)?)),
        None => None,
    };
    let read_seconds = t0.elapsed().as_secs_f64();
    let opts = tmin::solve::SolveOptions {
        time_limit: std::time::Duration::from_secs_f64(a.time_limit),
        seed: a.seed,
        threads: a.threads,
        progress: !a.quiet && (a.progress || std::io::stderr().is_terminal()),
        list_patience: None,
        start,
    };
    let mopts = tmin::milp::MilpOptions {
        formulation: match a.model {
            ModelArg::Auto => tmin::milp::Formulation::Auto,
            ModelArg::TimeIndexed => tmin::milp::Formulation::TimeIndexed,
            ModelArg::Disjunctive => tmin::milp::Formulation::Disjunctive,
        },
        export_dir: a.export_model.clone(),
    };
    let result = match a.engine {
        Engine::Auto => tmin::portfolio::solve(&inst, &opts, &mopts),
        Engine::List => tmin::list::solve(&inst, &opts),
        Engine::Milp => tmin::milp::solve(&inst, &opts, &mopts),
        Engine::Sat => tmin::sat::solve(&inst, &opts),
    };
    if result.notes.iter().any(|n| n.starts_with("internal error")) {
        return Err(Failure::Internal(result.notes.join("; ")));
    }
    let to_stdout = a.output.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if let (Some(path), Some(sched)) = (a.output.as_deref(), result.schedule.as_ref()) {
        let g =
            tmin::graph::NodeGraph::new(&inst, sched.choice.clone()).map_err(Failure::Internal)?;
        let w = create_output(if to_stdout { None } else { Some(path) })?;
        tmin::schedule::write_schedule(&g, sched, w).map_err(io_failure)?;
    }
    let total = t0.elapsed().as_secs_f64();
    let summary = if a.json {
        format!(
            "{}\n",
            report::solve_json(&inst, &result, read_seconds, total)
        )
    } else {
        report::solve_text(&result, total)
    };
    if to_stdout {
        eprint!("{summary}");
    } else {
        print!("{summary}");
    }
    use tmin::solve::Status;
    Ok(ExitCode::from(match result.status {
        Status::Optimal | Status::Feasible => 0,
        Status::Infeasible => 1,
        Status::Unknown => 3,
    }))
}

/// Reads and checks a warm-start schedule: only a legal one is accepted.
fn read_start(inst: &Instance, path: &Path) -> Result<tmin::schedule::Schedule, Failure> {
    let (src, name) = open_input(path)?;
    let read = tmin::schedule::read_schedule(inst, std::io::BufReader::new(src), &name, 5)?;
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
        return Err(rejected(&read.violations));
    };
    let g = tmin::graph::NodeGraph::new(inst, sched.choice.clone())
        .map_err(|e| Failure::Usage(format!("--start {name}: {e}")))?;
    let v = tmin::schedule::check(&g, &sched, 5);
    if !v.is_empty() {
        return Err(rejected(&v));
    }
    Ok(sched)
}

fn gen_config(a: &GenArgs) -> Result<GenConfig, Failure> {
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
    let cores: Result<Vec<u32>, _> = a
        .cores
        .split(',')
        .map(|c| c.trim().parse::<u32>())
        .collect();
    let Ok(cores) = cores else {
        return Err(Failure::Usage(format!(
            "--cores expects a comma-separated list of core counts, got '{}'",
            a.cores
        )));
    };
    let cfg = GenConfig {
        seed: a.seed,
        ops: a.ops,
        op_types: a.op_types,
        shapes: a.shapes,
        tilings: a.tilings,
        nodes_min,
        nodes_max,
        width: a.width,
        cores,
        mem_types: a.mem_types,
        tightness: a.tightness,
        graphs: a.graphs,
        unusable: a.unusable,
        max_time: a.max_time,
        density: a.density,
    };
    cfg.validate().map_err(Failure::Usage)?;
    Ok(cfg)
}
