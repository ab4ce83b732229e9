//! `tmin bench`, `bench merge`, `bench plot`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};

use tmin::registry::EngineOptions;

use crate::io::{Failure, time_limit};
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
