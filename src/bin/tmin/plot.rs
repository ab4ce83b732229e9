//! `tmin plot`: a schedule as SVG.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::io::{Failure, open_input, read_instance};
use crate::say;

#[derive(clap::Args)]
pub(crate) struct PlotArgs {
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

pub(crate) fn plot_failure(e: tmin::plot::PlotError) -> Failure {
    use tmin::plot::PlotError;
    match e {
        PlotError::Input(e) => Failure::Input(e),
        PlotError::Usage(m) => Failure::Usage(m),
        PlotError::Output(m) => Failure::Output(m),
        PlotError::Internal(m) => Failure::Internal(m),
    }
}

pub(crate) fn plot(a: PlotArgs) -> Result<ExitCode, Failure> {
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
