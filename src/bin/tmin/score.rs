//! `tmin score`: heuristic schedules validated and scored against T_min and
//! T_max, one instance or a whole study.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use crate::io::{Failure, print_out, read_instance};

pub(crate) const SCORE_HELP: &str = "\
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

Its tilings' bound (legal schedules): the lower bound for the schedule's own
tiling choice (as `tmin check --bound`), or T_min where higher; the order gap
(T - that bound) / T is at most what the schedule's order loses, the rest of
the gap being its tilings' or the bounds'.

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
pub(crate) struct ScoreArgs {
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

pub(crate) fn score(a: ScoreArgs) -> Result<ExitCode, Failure> {
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
pub(crate) fn scored(
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
pub(crate) fn score_study(
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
        let tilings = tmin::bounds::combinatorial::ChoiceBounds::new(&inst);
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
                    &tilings,
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
pub(crate) fn score_instance(
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
    let tilings = tmin::bounds::combinatorial::ChoiceBounds::new(&inst);
    for f in &a.schedule_files {
        let h = f.display().to_string();
        rows.push(scored(sc::score_file(
            &inst,
            &label,
            &h,
            f,
            &scale,
            &tilings,
            a.s_base,
            a.s_max,
            a.max_violations,
        ))?);
    }
    Ok(rows)
}

/// A heuristic folder's name; a bench folder's `schedules` folder is named
/// after its bench folder (`runs/greedy/schedules` is `greedy`).
pub(crate) fn heuristic_name(d: &Path) -> String {
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
pub(crate) fn resolve_instance(p: &str, base: &Path) -> Option<PathBuf> {
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
