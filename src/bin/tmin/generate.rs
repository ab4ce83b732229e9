//! `tmin gen`: the random and the known-optimum (packed) families.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;
use serde_json::json;

use tmin::report;

use crate::io::{Failure, create_output, io_failure};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum GenFamilyArg {
    /// Random library and op graph, memory sized by --tightness; proven feasible.
    Random,
    /// Perfectly packed witness: proven optimum T, any size, memory by --mem-factor.
    Packed,
    /// Memory-packed witness (lanes of memory full at every instant): proven optimum T.
    Lanes,
}

#[derive(clap::Args)]
pub(crate) struct GenArgs {
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
    /// Lanes of each memory type [default: 4]. Lanes only.
    #[arg(long, value_name = "L")]
    lanes: Option<u32>,
    /// Share of ops that take in the next interval of another lane [default:
    /// 0.2]. Lanes only.
    #[arg(long, value_name = "P")]
    joins: Option<f64>,
    /// Each lane is one core of its type, so cores are full at every instant
    /// too (default: a core per lane in all for each type, cores never bind).
    /// Lanes only.
    #[arg(long)]
    bind_cores: bool,
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

/// `tmin gen`: writes the instance (and with --schedule its witness), and
/// with --json a summary.
pub(crate) fn generate(a: GenArgs) -> Result<ExitCode, Failure> {
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
        GenFamily::Lanes(cfg) => gen_lanes(&cfg, out_path, a.schedule.as_deref())?,
    };
    log::info!("generated {summary}");
    if a.json {
        writeln!(std::io::stdout().lock(), "{summary}").map_err(io_failure)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The random family: the instance text and its proven feasible schedule.
pub(crate) fn gen_random(
    cfg: &tmin::generate::GenConfig,
    out_path: Option<&std::path::Path>,
    schedule: Option<&std::path::Path>,
) -> Result<serde_json::Value, Failure> {
    let generated = tmin::generate::generate(cfg).map_err(Failure::Usage)?;
    write_generated(
        &generated.text,
        &generated.instance,
        &generated.witness,
        out_path,
        schedule,
    )?;
    Ok(summary(
        "random",
        cfg.seed,
        &generated.instance,
        &generated.witness,
        report::num(generated.witness_makespan),
        serde_json::Value::Null,
        &generated.mem_sizes,
    ))
}

/// The memory-packed family: the instance text and its optimal witness.
pub(crate) fn gen_lanes(
    cfg: &tmin::generate::LanesConfig,
    out_path: Option<&std::path::Path>,
    schedule: Option<&std::path::Path>,
) -> Result<serde_json::Value, Failure> {
    use tmin::generate::LanesError;
    let generated = tmin::generate::generate_lanes(cfg).map_err(|e| match e {
        LanesError::Config(m) => Failure::Usage(m),
        LanesError::Internal(m) => Failure::Internal(m),
    })?;
    write_generated(
        &generated.text,
        &generated.instance,
        &generated.witness,
        out_path,
        schedule,
    )?;
    Ok(summary(
        "lanes",
        cfg.seed,
        &generated.instance,
        &generated.witness,
        json!(generated.optimum),
        json!(generated.optimum),
        &generated.mem_sizes,
    ))
}

/// Writes a generated instance's text to `out_path` (standard output when
/// `None`) and its witness to `schedule`.
fn write_generated(
    text: &str,
    inst: &tmin::instance::Instance,
    witness: &tmin::schedule::Schedule,
    out_path: Option<&std::path::Path>,
    schedule: Option<&std::path::Path>,
) -> Result<(), Failure> {
    let mut out = create_output(out_path)?;
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(io_failure)?;
    if let Some(p) = schedule {
        write_witness(inst, witness, p)?;
    }
    Ok(())
}

/// Writes a generator's witness schedule of `inst` to `path`.
fn write_witness(
    inst: &tmin::instance::Instance,
    witness: &tmin::schedule::Schedule,
    path: &std::path::Path,
) -> Result<(), Failure> {
    let g = tmin::graph::NodeGraph::new(inst, witness.choice.clone()).map_err(Failure::Internal)?;
    let w = create_output(Some(path))?;
    tmin::schedule::write_schedule(&g, witness, w).map_err(io_failure)
}

/// The summary every family logs and prints with --json.
fn summary(
    family: &str,
    seed: u64,
    inst: &tmin::instance::Instance,
    witness: &tmin::schedule::Schedule,
    witness_makespan: serde_json::Value,
    optimum: serde_json::Value,
    mem_sizes: &[u64],
) -> serde_json::Value {
    json!({
        "family": family,
        "seed": seed,
        "ops": inst.graph.n_ops(),
        "nodes": witness.start.len(),
        "witness_makespan": witness_makespan,
        "optimum": optimum,
        "mem_sizes": mem_sizes,
    })
}

/// The known-optimum family: the text streams out while it is generated into
/// a temporary file next to FILE, renamed only once the witness has passed
/// the checks, so a failed run leaves no partial instance behind. Where FILE
/// exists and is not a regular file (a device, a pipe) the text goes to it
/// directly: a rename would replace the device node itself.
pub(crate) fn gen_packed(
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
        write_witness(&p.witness_instance, &p.witness, path)?;
    }
    Ok(summary(
        "packed",
        cfg.seed,
        &p.witness_instance,
        &p.witness,
        report::num(p.witness_makespan),
        json!(p.optimum),
        &p.mem_sizes,
    ))
}

/// The arguments as the library's `GenOptions` (the `--nodes` and
/// `--cores` texts parsed here), then the family's configuration.
pub(crate) fn gen_config(a: &GenArgs) -> Result<tmin::generate::GenFamily, Failure> {
    use tmin::generate::options::{Family, GenOptions, config};
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
    let cores = match a.cores.as_deref() {
        None => None,
        Some(text) => {
            let parsed: Result<Vec<u32>, _> =
                text.split(',').map(|c| c.trim().parse::<u32>()).collect();
            let Ok(cores) = parsed else {
                return Err(Failure::Usage(format!(
                    "--cores expects a comma-separated list of core counts, got '{text}'"
                )));
            };
            Some(cores)
        }
    };
    let options = GenOptions {
        family: match a.family {
            GenFamilyArg::Random => Family::Random,
            GenFamilyArg::Packed => Family::Packed,
            GenFamilyArg::Lanes => Family::Lanes,
        },
        seed: a.seed,
        ops: a.ops,
        op_types: a.op_types,
        shapes: a.shapes,
        tilings: a.tilings,
        nodes: (nodes_min, nodes_max),
        width: a.width,
        cores,
        mem_types: a.mem_types,
        tightness: a.tightness,
        graphs: a.graphs,
        unusable: a.unusable,
        max_time: a.max_time,
        density: a.density,
        mem_factor: a.mem_factor,
        reach: a.reach,
        interleave: a.interleave,
        lanes: a.lanes,
        joins: a.joins,
        bind_cores: a.bind_cores,
    };
    config(&options).map_err(Failure::Usage)
}
