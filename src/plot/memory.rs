//! One panel per memory type: held memory over time under the release rule
//! (from the validator's `memory_profile`), the capacity line and the peak.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{CAPACITY_ALPHA, PlotError, Y_LABELS, drawing};
use crate::graph::NodeGraph;
use crate::schedule::{Schedule, memory_profile};

/// Height of one memory panel, in pixels.
pub const PANEL_HEIGHT: u32 = 200;
/// Profiles with more steps than this are drawn as the maximum per time bin
/// (peak-preserving), so the file stays small at 10^6 nodes.
const MAX_STEPS: usize = 4000;

/// `steps` (value from `t` on) as the maximum over each of `bins` equal bins
/// of `[0, span)`: O(steps + bins), each step fills only the bins it covers.
fn binned_max(steps: &[(f64, f64)], span: f64, bins: usize) -> Vec<f64> {
    let bw = span / bins as f64;
    let mut out = vec![0f64; bins];
    let bin = |t: f64| ((t / bw) as usize).min(bins - 1);
    for (i, &(t, h)) in steps.iter().enumerate() {
        let until = steps.get(i + 1).map_or(span, |s| s.0);
        if until <= t && i + 1 < steps.len() {
            continue;
        }
        let (a, b) = (bin(t), bin((until - bw * 1e-9).max(t)));
        for x in &mut out[a..=b] {
            *x = x.max(h);
        }
    }
    out
}

pub fn draw_memory<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    g: &NodeGraph,
    s: &Schedule,
    m: u32,
    makespan: f64,
) -> Result<(), PlotError> {
    let mem = &g.inst.platform.mems[m as usize];
    let profile = memory_profile(g, s, m as u8);
    let steps: Vec<(f64, f64)> = profile.iter().map(|&(t, h)| (t as f64, h as f64)).collect();
    let (peak_t, peak) = profile.iter().fold(
        (0u128, 0u128),
        |acc, &(t, h)| if h > acc.1 { (t, h) } else { acc },
    );
    let cap = mem.size as f64;
    let top = (cap.max(peak as f64) * 1.12).max(1.0);
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .margin_right(30)
        .x_label_area_size(35)
        .y_label_area_size(Y_LABELS)
        .caption(
            format!(
                "memory type {}: held over time (size {}, peak {peak})",
                mem.id, mem.size
            ),
            ("sans-serif", 14),
        )
        .build_cartesian_2d(0f64..makespan, 0f64..top)
        .map_err(drawing)?;
    chart
        .configure_mesh()
        .label_style(("sans-serif", 12))
        .axis_desc_style(("sans-serif", 12))
        .x_desc("time")
        .y_desc("held")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()
        .map_err(drawing)?;
    let fill = RGBColor(70, 110, 190);
    let points: Vec<(f64, f64)> = if steps.len() > MAX_STEPS {
        let bins = super::gantt::BINS;
        let bw = makespan / bins as f64;
        binned_max(&steps, makespan, bins)
            .into_iter()
            .enumerate()
            .flat_map(|(i, h)| [(i as f64 * bw, h), ((i + 1) as f64 * bw, h)])
            .collect()
    } else {
        // A staircase: each value holds until the next step.
        let mut p = vec![(0.0, 0.0)];
        let mut prev = 0.0;
        for &(t, h) in &steps {
            p.push((t, prev));
            p.push((t, h));
            prev = h;
        }
        p.push((makespan, prev));
        p
    };
    chart
        .draw_series(AreaSeries::new(points, 0.0, fill.mix(0.3)).border_style(fill))
        .map_err(drawing)?;
    // The capacity line: the marker opacity, one per memory type.
    let red = RGBColor(200, 20, 20);
    chart
        .draw_series(LineSeries::new(
            [(0.0, cap), (makespan, cap)],
            red.mix(CAPACITY_ALPHA).stroke_width(2),
        ))
        .map_err(drawing)?;
    let base = area.get_base_pixel();
    let (x, y) = chart.backend_coord(&(makespan, cap));
    area.draw(&Text::new(
        format!("capacity {}", mem.size),
        (x - base.0 - 4, y - base.1 - 8),
        ("sans-serif", 11)
            .into_font()
            .color(&red)
            .pos(Pos::new(HPos::Right, VPos::Center)),
    ))
    .map_err(drawing)?;
    if peak > 0 {
        let (pt, pv) = (peak_t as f64, peak as f64);
        chart
            .draw_series(std::iter::once(Circle::new((pt, pv), 4, BLACK.filled())))
            .map_err(drawing)?;
        let (x, y) = chart.backend_coord(&(pt, pv));
        let right = pt > makespan * 0.7;
        let anchor = if right { HPos::Right } else { HPos::Left };
        area.draw(&Text::new(
            format!("peak {peak} at t={peak_t}"),
            (x - base.0 + if right { -7 } else { 7 }, y - base.1 - 9),
            ("sans-serif", 11)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(anchor, VPos::Center)),
        ))
        .map_err(drawing)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::binned_max;

    #[test]
    fn binned_max_keeps_short_peaks() {
        // A spike of 9 over [2.5, 2.6) inside bin 2 of [0, 10) in 10 bins.
        let steps = [(0.0, 1.0), (2.5, 9.0), (2.6, 1.0), (7.0, 0.0)];
        let b = binned_max(&steps, 10.0, 10);
        assert_eq!(b[2], 9.0);
        assert_eq!(b[1], 1.0);
        assert_eq!(b[3], 1.0);
        assert_eq!(b[6], 1.0);
        assert_eq!(b[7], 0.0);
    }
}
