//! `tmin bench`, `bench merge`, `bench plot`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};

use tmin::list::priority::Rule;
use tmin::registry::EngineOptions;

use std::io::Write as _;

use crate::io::{Failure, create_output, io_failure, time_limit};
use crate::plot::plot_failure;
use crate::solve::{engine_choice, engine_names};

pub(crate) const BENCH_HELP: &str = "\
Writes, as it goes, DIR/results.jsonl (one JSON line per finished instance) and
DIR/schedules/NAME.schedule (validated); at the end DIR/results.csv and
DIR/summary.md. Rerun with the same arguments to resume: instances with a
complete line are skipped (by content hash, wherever the file now is).
Exit: 0 all done, 2 bad arguments or unreadable instances (the others are
done), 70 an internal error, 74 the folder cannot be written.";

#[derive(clap::Args)]
pub(crate) struct BenchArgs {
    #[command(subcommand)]
    action: Option<BenchCmd>,
    /// Instance files, folders (their *.txt files; with --format jsp their
    /// job-shop files) and list files (one path a line).
    #[arg(required = true)]
    instances: Vec<PathBuf>,
    /// The results folder (created; its parent must exist).
    #[arg(long, required = true, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Engine, as `tmin solve --engine`.
    #[arg(long, default_value = "auto", value_parser = engine_names())]
    engine: String,
    /// Priority rule of `--engine greedy` (recorded with the engine: a folder
    /// holds one rule).
    #[arg(long, value_enum, default_value_t = Rule::default())]
    rule: Rule,
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
pub(crate) enum BenchCmd {
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
    /// Bench folders side by side as a markdown table (one column a folder,
    /// a reference column of known optima or bounds), with a summary line a
    /// folder. Claims that contradict each other (a bound above another
    /// folder's makespan or a reference optimum, a makespan below the
    /// reference) are listed and give exit 70.
    Compare {
        /// Bench folders (each with results.jsonl).
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Known T_min values, as `tmin score --reference`: a bench folder or a
        /// CSV with the columns instance,t_min[,t_min_kind].
        #[arg(long, value_name = "DIR|FILE.csv")]
        reference: Option<PathBuf>,
        /// The column title of each folder, in order (default: the folder's
        /// name).
        #[arg(long)]
        label: Vec<String>,
        /// Write the page here instead of to standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
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
pub(crate) enum BenchFormat {
    /// The competition text format.
    Txt,
    /// Job shop, OR-Library format (as `tmin import jsp`).
    Jsp,
}

pub(crate) fn bench(a: BenchArgs) -> Result<ExitCode, Failure> {
    use tmin::bench::BenchError;
    let result = match a.action {
        Some(BenchCmd::Merge { dirs, out }) => tmin::bench::merge(&dirs, &out),
        Some(BenchCmd::Compare {
            dirs,
            reference,
            label,
            output,
        }) => return compare(&dirs, reference.as_deref(), &label, output.as_deref()),
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
                    engine: engine_choice(
                        &a.engine,
                        EngineOptions {
                            rule: a.rule,
                            ..EngineOptions::default()
                        },
                    )?,
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

/// `tmin bench compare`: the page to standard output or a file; exit 70 when
/// the folders contradict each other (the page lists how).
fn compare(
    dirs: &[PathBuf],
    reference: Option<&std::path::Path>,
    labels: &[String],
    output: Option<&std::path::Path>,
) -> Result<ExitCode, Failure> {
    use tmin::bench::BenchError;
    let reference = reference
        .map(tmin::score::load_reference)
        .transpose()
        .map_err(Failure::Input)?;
    let page = tmin::bench::compare(dirs, labels, reference.as_ref()).map_err(|e| match e {
        BenchError::Usage(m) | BenchError::Input(m) => Failure::Usage(m),
        BenchError::Internal(m) => Failure::Internal(m),
        BenchError::Output(m) => Failure::Output(m),
    })?;
    let mut out = create_output(output)?;
    out.write_all(page.markdown.as_bytes())
        .and_then(|()| out.flush())
        .map_err(io_failure)?;
    if page.contradictions.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        Err(Failure::Internal(format!(
            "the folders contradict each other (one claim of each pair is false): {}",
            page.contradictions.join("; ")
        )))
    }
}
