//! The top panel of a schedule's picture: the Gantt chart (one row per used
//! core, grouped by core type, one bar per node coloured by op, the node id on
//! bars wide enough for it), or for large schedules the utilisation of each
//! core type over time in bins.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{BAR_ALPHA, PlotError, Y_LABELS, colour, drawing};
use crate::graph::NodeGraph;
use crate::schedule::Schedule;

/// Height of the utilisation panel, in pixels.
pub const UTIL_HEIGHT: u32 = 320;
/// Bins of the aggregated views: finer than a pixel would not show.
pub(crate) const BINS: usize = 700;
/// At most this many node-id labels: beyond, the file grows and nobody reads them.
const MAX_LABELS: usize = 3000;

/// The used cores as `(dense core type, core id)`, sorted: one row each.
fn rows(g: &NodeGraph, s: &Schedule) -> Vec<(u8, u32)> {
    let mut r: Vec<(u8, u32)> = (0..g.n_nodes()).map(|v| (g.core[v], s.core[v])).collect();
    r.sort_unstable();
    r.dedup();
    r
}

fn row_height(n_rows: usize) -> u32 {
    (900 / n_rows.max(1) as u32).clamp(3, 22)
}

/// Pixel height of the Gantt panel for this schedule: its used cores' rows.
pub fn gantt_height(g: &NodeGraph, s: &Schedule) -> u32 {
    let n = rows(g, s).len().max(1);
    // At least room for the caption and the time axis around a few rows.
    (n as u32 * row_height(n) + 90).max(160)
}

pub fn draw_gantt<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    g: &NodeGraph,
    s: &Schedule,
    makespan: f64,
) -> Result<(), PlotError> {
    let rows = rows(g, s);
    let n_rows = rows.len().max(1);
    let row_of = |v: usize| {
        rows.binary_search(&(g.core[v], s.core[v]))
            .expect("every node's core is a row")
    };
    // Row 0 at the top.
    let y_of = |r: usize| (n_rows - r) as f64;
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .margin_right(30)
        .x_label_area_size(35)
        .y_label_area_size(Y_LABELS)
        .caption(
            format!("Gantt chart: {} nodes on {} cores", g.n_nodes(), rows.len()),
            ("sans-serif", 15),
        )
        .build_cartesian_2d(0f64..makespan, 0f64..n_rows as f64)
        .map_err(drawing)?;
    chart
        .configure_mesh()
        .label_style(("sans-serif", 12))
        .axis_desc_style(("sans-serif", 12))
        .disable_y_mesh()
        .disable_y_axis()
        .x_desc("time")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .draw()
        .map_err(drawing)?;
    // Bars: one rect per node, the marker opacity, the op's colour.
    chart
        .draw_series((0..g.n_nodes()).map(|v| {
            let r = row_of(v);
            let x0 = s.start[v] as f64;
            let x1 = x0 + g.dur(v as u32) as f64;
            let c = colour(g.node_op[v] as usize).mix(BAR_ALPHA);
            Rectangle::new([(x0, y_of(r) - 0.9), (x1, y_of(r) - 0.1)], c.filled())
        }))
        .map_err(drawing)?;
    // Node ids where they fit: pixel width from the chart's own mapping.
    let rh = row_height(n_rows);
    if rh >= 11 {
        let px = |x: f64| chart.backend_coord(&(x, 0.0)).0;
        let mut labels = 0;
        let style = ("sans-serif", 10)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Center));
        let mut texts = Vec::new();
        for v in 0..g.n_nodes() {
            if labels >= MAX_LABELS {
                break;
            }
            let x0 = s.start[v] as f64;
            let x1 = x0 + g.dur(v as u32) as f64;
            // "o{op} n{node}" where it fits, else the node id alone.
            let (op, node) = g.label(v as u32);
            let width = (px(x1) - px(x0)).max(0) as usize;
            let long = format!("o{op} n{node}");
            let id = if width >= 6 * long.len() + 6 {
                long
            } else {
                node.to_string()
            };
            if width >= 6 * id.len() + 6 {
                texts.push(((x0 + x1) / 2.0, y_of(row_of(v)) - 0.5, id));
                labels += 1;
            }
        }
        chart
            .draw_series(
                texts
                    .into_iter()
                    .map(|(x, y, t)| Text::new(t, (x, y), style.clone())),
            )
            .map_err(drawing)?;
    }
    // Row labels and core-type separators, in the label column left of the plot.
    let base = area.get_base_pixel();
    let cores = &g.inst.platform.cores;
    let label_style = ("sans-serif", 11)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Right, VPos::Center));
    let every = (12 / rh.max(1) as usize).max(1);
    for (r, &(ct, id)) in rows.iter().enumerate() {
        let first_of_type = r == 0 || rows[r - 1].0 != ct;
        if first_of_type && r > 0 {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(0.0, y_of(r)), (makespan, y_of(r))],
                    BLACK.stroke_width(1),
                )))
                .map_err(drawing)?;
        }
        if !(first_of_type || r % every == 0) {
            continue;
        }
        let (x, y) = chart.backend_coord(&(0.0, y_of(r) - 0.5));
        let text = if first_of_type {
            format!("type {} core {id}", cores[ct as usize].id)
        } else {
            format!("core {id}")
        };
        area.draw(&Text::new(
            text,
            (x - base.0 - 6, y - base.1),
            label_style.clone(),
        ))
        .map_err(drawing)?;
    }
    Ok(())
}

/// Busy share of each core type's cores per time bin, in [0, 1].
pub fn utilisation(g: &NodeGraph, s: &Schedule, makespan: f64, bins: usize) -> Vec<Vec<f64>> {
    let cores = &g.inst.platform.cores;
    let bw = makespan / bins as f64;
    let mut busy = vec![vec![0f64; bins + 1]; cores.len()];
    // Whole bins covered go through a difference array, so a long node costs
    // O(1): O(n + bins) in all.
    let mut full = vec![vec![0f64; bins + 2]; cores.len()];
    for v in 0..g.n_nodes() {
        let c = g.core[v] as usize;
        let a = s.start[v] as f64 / bw;
        let b = (s.start[v] as f64 + g.dur(v as u32) as f64) / bw;
        let (i0, i1) = ((a as usize).min(bins), (b as usize).min(bins));
        if i0 == i1 {
            busy[c][i0] += b - a;
        } else {
            busy[c][i0] += (i0 + 1) as f64 - a;
            full[c][i0 + 1] += 1.0;
            full[c][i1] -= 1.0;
            busy[c][i1] += b - i1 as f64;
        }
    }
    for c in 0..cores.len() {
        let mut run = 0.0;
        for i in 0..=bins {
            run += full[c][i];
            busy[c][i] += run;
        }
        let n = f64::from(cores[c].count.max(1));
        busy[c].truncate(bins);
        for x in &mut busy[c] {
            *x = (*x / n).clamp(0.0, 1.0);
        }
    }
    busy
}

/// The aggregated top panel: one line per core type, busy share over time.
pub fn draw_utilisation<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    g: &NodeGraph,
    s: &Schedule,
    makespan: f64,
) -> Result<(), PlotError> {
    let util = utilisation(g, s, makespan, BINS);
    let bw = makespan / BINS as f64;
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .margin_right(30)
        .x_label_area_size(35)
        .y_label_area_size(Y_LABELS)
        .caption(
            format!(
                "utilisation per core type ({} nodes, {BINS} time bins)",
                g.n_nodes()
            ),
            ("sans-serif", 15),
        )
        .build_cartesian_2d(0f64..makespan, 0f64..1.05)
        .map_err(drawing)?;
    chart
        .configure_mesh()
        .label_style(("sans-serif", 12))
        .axis_desc_style(("sans-serif", 12))
        .x_desc("time")
        .y_desc("busy share of cores")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{:.0}%", 100.0 * y))
        .draw()
        .map_err(drawing)?;
    for (c, u) in util.iter().enumerate() {
        let ct = &g.inst.platform.cores[c];
        let col = colour(c * 3 + 1);
        chart
            .draw_series(LineSeries::new(
                u.iter()
                    .enumerate()
                    .flat_map(|(i, &x)| [(i as f64 * bw, x), ((i + 1) as f64 * bw, x)]),
                col.stroke_width(2),
            ))
            .map_err(drawing)?
            .label(format!("core type {} ({} cores)", ct.id, ct.count))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], col.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE)
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(drawing)?;
    Ok(())
}
