//! Performance profiles of bench folders: the share of a folder's instances
//! solved (proven optimal or proven infeasible) by each time (log scale), and the share whose schedule is
//! within each gap of the best lower bound any folder proved for the
//! instance; one curve per folder. Shares are of each folder's own instances.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use plotters::prelude::*;
use serde_json::Value;

use super::{PlotError, colour, drawing, write_svg};
use crate::error::{InputError, Pos};

/// One instance's outcome in one folder.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub name: String,
    /// Solved: proven optimal, or proven infeasible.
    pub proven: bool,
    pub wall_seconds: f64,
    /// (makespan - lower bound) / makespan, as the run reported it; `None`
    /// without a schedule.
    pub gap: Option<f64>,
    pub makespan: Option<f64>,
    pub lower_bound: Option<f64>,
    pub engine: String,
}

/// A folder's outcomes, one per instance.
#[derive(Clone, Debug)]
pub struct Run {
    pub label: String,
    pub outcomes: Vec<Outcome>,
}

fn at(file: &Path, line: usize, msg: impl Into<String>) -> PlotError {
    PlotError::Input(InputError::new(
        &file.display().to_string(),
        Pos {
            line: line as u32,
            col: u32::from(line > 0),
        },
        msg,
    ))
}

fn time_of(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.parse::<f64>().ok(),
        _ => None,
    }
}

/// Reads `DIR/results.jsonl` (a torn last line is ignored). An instance that
/// appears more than once (a rerun) keeps its best line: proven first, then
/// the smaller gap, then the shorter time.
pub fn read_run(dir: &Path) -> Result<Run, PlotError> {
    let file = dir.join("results.jsonl");
    if !file.is_file() {
        return Err(PlotError::Usage(format!(
            "{}: not a bench folder (no results.jsonl)",
            dir.display()
        )));
    }
    let text = std::fs::read_to_string(&file).map_err(|e| at(&file, 0, e.to_string()))?;
    let lines: Vec<&str> = text.lines().collect();
    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    let mut best: HashMap<String, Outcome> = HashMap::new();
    let mut order = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(_) if Some(i) == last => {
                log::warn!("{}:{}: ignoring a torn last line", file.display(), i + 1);
                continue;
            }
            Err(e) => return Err(at(&file, i + 1, format!("not a JSON object: {e}"))),
        };
        let instance = v
            .get("instance")
            .and_then(Value::as_str)
            .ok_or_else(|| at(&file, i + 1, "missing the string key `instance`"))?;
        let status = v
            .get("status")
            .and_then(Value::as_str)
            .ok_or_else(|| at(&file, i + 1, "missing the string key `status`"))?;
        let wall = v
            .get("wall_seconds")
            .and_then(Value::as_f64)
            .filter(|w| w.is_finite() && *w >= 0.0)
            .ok_or_else(|| at(&file, i + 1, "missing a non-negative `wall_seconds`"))?;
        let makespan = time_of(v.get("makespan"));
        let gap = match (v.get("gap").and_then(Value::as_f64), makespan) {
            (Some(g), Some(_)) => Some(g),
            (None, Some(ms)) => time_of(v.get("lower_bound")).map(|lb| {
                if ms > 0.0 {
                    ((ms - lb) / ms).max(0.0)
                } else {
                    0.0
                }
            }),
            (_, None) => None,
        };
        let o = Outcome {
            name: crate::score::instance_name(instance),
            proven: status == "optimal" || status == "infeasible",
            wall_seconds: wall,
            gap: if status == "optimal" { Some(0.0) } else { gap },
            makespan,
            lower_bound: time_of(v.get("lower_bound")),
            engine: v
                .get("engine")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
        };
        let better = |a: &Outcome, b: &Outcome| {
            (a.proven, b.gap.unwrap_or(f64::INFINITY), b.wall_seconds)
                > (b.proven, a.gap.unwrap_or(f64::INFINITY), a.wall_seconds)
        };
        match best.get(&o.name) {
            Some(old) if !better(&o, old) => {}
            Some(_) => {
                best.insert(o.name.clone(), o);
            }
            None => {
                order.push(o.name.clone());
                best.insert(o.name.clone(), o);
            }
        }
    }
    let outcomes: Vec<Outcome> = order.into_iter().filter_map(|n| best.remove(&n)).collect();
    let folder = dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|f| f.to_string_lossy().into_owned()))
        .unwrap_or_else(|| dir.display().to_string());
    let mut engines: Vec<&str> = outcomes.iter().map(|o| o.engine.as_str()).collect();
    engines.sort_unstable();
    engines.dedup();
    let label = match engines.as_slice() {
        [e] if !e.is_empty() && *e != folder => format!("{folder} [{e}]"),
        _ => folder,
    };
    Ok(Run { label, outcomes })
}

/// Staircase points of the share of `values` (sorted) at or below x, from `x0`
/// to `x1`, as a share of `n`.
fn share_curve(values: &[f64], n: usize, x0: f64, x1: f64) -> Vec<(f64, f64)> {
    let mut p = vec![(x0, 0.0)];
    let mut k = 0usize;
    for (i, &x) in values.iter().enumerate() {
        let x = x.max(x0);
        p.push((x, k as f64 / n as f64));
        k = i + 1;
        p.push((x, k as f64 / n as f64));
    }
    p.push((x1, k as f64 / n.max(1) as f64));
    p
}

/// Draws the performance profile of `dirs` into `out`.
pub fn plot_bench(dirs: &[PathBuf], out: &Path) -> Result<(), PlotError> {
    let runs: Vec<Run> = dirs.iter().map(|d| read_run(d)).collect::<Result<_, _>>()?;
    if runs.iter().all(|r| r.outcomes.is_empty()) {
        return Err(PlotError::Usage(
            "the bench folders hold no finished instance".into(),
        ));
    }
    let svg = profile_svg(&runs)?;
    write_svg(&svg, out)
}

/// Each outcome's gap to the best lower bound any run proved for its instance
/// (a common yardstick: a run with a weak bound of its own is not flattered).
/// Bounds are proven, so the best of them is still a bound.
pub fn common_gaps(runs: &[Run]) -> Vec<Vec<Option<f64>>> {
    let mut best: HashMap<&str, f64> = HashMap::new();
    for o in runs.iter().flat_map(|r| &r.outcomes) {
        if let Some(lb) = o.lower_bound {
            let e = best.entry(o.name.as_str()).or_insert(lb);
            *e = e.max(lb);
        }
    }
    runs.iter()
        .map(|r| {
            r.outcomes
                .iter()
                .map(|o| match (o.makespan, best.get(o.name.as_str())) {
                    (Some(ms), Some(&lb)) if ms > 0.0 => Some(((ms - lb) / ms).max(0.0)),
                    (Some(_), _) => o.gap,
                    (None, _) => None,
                })
                .collect()
        })
        .collect()
}

/// The SVG text of `plot_bench`.
pub fn profile_svg(runs: &[Run]) -> Result<String, PlotError> {
    let gaps = common_gaps(runs);
    let times = runs
        .iter()
        .flat_map(|r| r.outcomes.iter().map(|o| o.wall_seconds));
    let (tmin, tmax) = times.fold((f64::INFINITY, 0f64), |(a, b), t| (a.min(t), b.max(t)));
    // Whole decades around the measured times; log scale needs x > 0.
    let x0 = 10f64.powf(tmin.max(1e-3).log10().floor());
    let x1 = 10f64.powf(tmax.max(x0 * 10.0).log10().ceil());
    let max_gap = gaps.iter().flatten().flatten().fold(0f64, |a, &b| a.max(b));
    let g1 = (max_gap * 1.05).clamp(0.05, 1.0);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1000, 860)).into_drawing_area();
        root.fill(&WHITE).map_err(drawing)?;
        let root = root
            .titled("performance profile", ("sans-serif", 20))
            .map_err(drawing)?;
        let panels = root.split_evenly((2, 1));
        let mut time_chart = ChartBuilder::on(&panels[0])
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .caption(
                "share of instances solved (proven optimal or infeasible) by time",
                ("sans-serif", 15),
            )
            .build_cartesian_2d((x0..x1).log_scale(), 0f64..1.02)
            .map_err(drawing)?;
        time_chart
            .configure_mesh()
            .label_style(("sans-serif", 12))
            .axis_desc_style(("sans-serif", 12))
            .x_desc("wall time (s, log scale)")
            .y_desc("share solved")
            .y_label_formatter(&|y| format!("{:.0}%", 100.0 * y))
            .draw()
            .map_err(drawing)?;
        let mut gap_chart = ChartBuilder::on(&panels[1])
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .caption(
                "share of instances within gap x of the best lower bound of all runs",
                ("sans-serif", 15),
            )
            .build_cartesian_2d(0f64..g1, 0f64..1.02)
            .map_err(drawing)?;
        gap_chart
            .configure_mesh()
            .label_style(("sans-serif", 12))
            .axis_desc_style(("sans-serif", 12))
            .x_desc("gap (makespan - best lower bound) / makespan")
            .y_desc("share of instances")
            .x_label_formatter(&|x| format!("{:.0}%", 100.0 * x))
            .y_label_formatter(&|y| format!("{:.0}%", 100.0 * y))
            .draw()
            .map_err(drawing)?;
        for (i, run) in runs.iter().enumerate() {
            let n = run.outcomes.len().max(1);
            let col = colour(i * 2);
            let mut t: Vec<f64> = run
                .outcomes
                .iter()
                .filter(|o| o.proven)
                .map(|o| o.wall_seconds)
                .collect();
            t.sort_by(f64::total_cmp);
            let mut g: Vec<f64> = gaps[i].iter().flatten().copied().collect();
            g.sort_by(f64::total_cmp);
            let label = format!("{} ({} instances)", run.label, run.outcomes.len());
            time_chart
                .draw_series(LineSeries::new(
                    share_curve(&t, n, x0, x1),
                    col.stroke_width(2),
                ))
                .map_err(drawing)?
                .label(label.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], col.stroke_width(2))
                });
            gap_chart
                .draw_series(LineSeries::new(
                    share_curve(&g, n, 0.0, g1),
                    col.stroke_width(2),
                ))
                .map_err(drawing)?
                .label(label)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], col.stroke_width(2))
                });
        }
        time_chart
            .configure_series_labels()
            .background_style(WHITE)
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(drawing)?;
        gap_chart
            .configure_series_labels()
            .background_style(WHITE)
            .border_style(BLACK)
            .position(SeriesLabelPosition::LowerRight)
            .draw()
            .map_err(drawing)?;
        root.present().map_err(drawing)?;
    }
    Ok(svg)
}
