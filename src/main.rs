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
    /// Write a seeded instance with a proven feasible schedule (--family random) or
    /// a proven optimum at any size (--family packed).
    #[command(after_long_help = tmin::generate::FAMILIES_HELP)]
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
            use tmin::generate::{GenFamily, PackedError};
            let spec = gen_config(&a)?;
            let out_path = a.output.as_deref().filter(|p| p.as_os_str() != "-");
            if a.json && out_path.is_none() {
                return Err(Failure::Usage(
                    "--json prints the summary on stdout, so the instance needs -o FILE".into(),
                ));
            }
            let summary = match spec {
                GenFamily::Random(cfg) => {
                    let generated = tmin::generate::generate(&cfg).map_err(Failure::Usage)?;
                    let mut out = create_output(out_path)?;
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
                        tmin::schedule::write_schedule(&g, &generated.witness, w)
                            .map_err(io_failure)?;
                    }
                    json!({
                        "family": "random",
                        "seed": cfg.seed,
                        "ops": generated.instance.graph.n_ops(),
                        "nodes": generated.witness.start.len(),
                        "witness_makespan": report::num(generated.witness_makespan),
                        "optimum": null,
                        "mem_sizes": generated.mem_sizes,
                    })
                }
                GenFamily::Packed(cfg) => {
                    // The text streams out while it is generated: into a temporary
                    // file next to FILE, renamed only once the witness has passed the
                    // checks, so a failed run leaves no partial instance behind.
                    let tmp = out_path.map(|p| {
                        let name = p.file_name().unwrap_or_default().to_string_lossy();
                        p.with_file_name(format!(".{name}.partial-{}", std::process::id()))
                    });
                    let mut out = create_output(tmp.as_deref())?;
                    let result = tmin::generate::generate_packed(&cfg, out.as_mut());
                    drop(out);
                    let p = match result {
                        Ok(p) => p,
                        Err(e) => {
                            if let Some(t) = &tmp {
                                let _ = std::fs::remove_file(t);
                            }
                            return Err(match e {
                                PackedError::Config(m) => Failure::Usage(m),
                                PackedError::Io(e) => io_failure(e),
                                PackedError::Internal(m) => Failure::Internal(m),
                            });
                        }
                    };
                    if let (Some(t), Some(dest)) = (&tmp, out_path) {
                        std::fs::rename(t, dest).map_err(|e| {
                            let _ = std::fs::remove_file(t);
                            Failure::Usage(format!("cannot create {}: {e}", dest.display()))
                        })?;
                    }
                    if let Some(path) = &a.schedule {
                        let g = tmin::graph::NodeGraph::new(
                            &p.witness_instance,
                            p.witness.choice.clone(),
                        )
                        .map_err(Failure::Internal)?;
                        let w = create_output(Some(path))?;
                        tmin::schedule::write_schedule(&g, &p.witness, w).map_err(io_failure)?;
                    }
                    json!({
                        "family": "packed",
                        "seed": cfg.seed,
                        "ops": p.witness_instance.graph.n_ops(),
                        "nodes": p.witness.start.len(),
                        "witness_makespan": report::num(p.witness_makespan),
                        "optimum": p.optimum,
                        "mem_sizes": p.mem_sizes,
                    })
                }
            };
            log::info!("generated {summary}");
            if a.json {
                writeln!(std::io::stdout().lock(), "{summary}").map_err(io_failure)?;
            }
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
            };
            cfg.validate().map_err(Failure::Usage)?;
            Ok(GenFamily::Packed(cfg))
        }
    }
}
