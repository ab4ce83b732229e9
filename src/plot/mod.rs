//! SVG pictures of schedules (`tmin plot`) and of bench folders (`tmin
//! bench plot`), drawn with plotters' SVG backend.
//!
//! A schedule's picture is a Gantt chart (one row per core, grouped by core
//! type, one colour per op) above one memory profile per memory type; above
//! `AGGREGATE_ABOVE` nodes (or on request) the Gantt chart gives way to the
//! utilisation of each core type over time, in bins, so the file stays small.
//! Only validated schedules are drawn (the CLI checks first), and the memory
//! profiles come from the validator's own hold computation
//! (`schedule::memory_profile`).
//!
//! Markers for scripts and tests (plotters has no ids or classes): every node
//! bar is a `<rect>` with `opacity="0.875"` (`BAR_ALPHA`) and nothing else
//! uses that opacity; every capacity line is a `<polyline>` with
//! `opacity="0.625"` (`CAPACITY_ALPHA`), one per memory type.

pub mod gantt;
pub mod memory;
pub mod profile;

use std::path::Path;

use plotters::prelude::*;

use crate::graph::NodeGraph;
use crate::schedule::Schedule;

/// Above this many nodes `tmin plot` draws the aggregated view: a Gantt chart
/// of 10^4 bars is still readable, and is about 2 MB of SVG.
pub const AGGREGATE_ABOVE: usize = 10_000;

/// Opacity of node bars: the marker that tells them from every other rect.
pub const BAR_ALPHA: f64 = 0.875;
/// Opacity of capacity lines: their marker.
pub const CAPACITY_ALPHA: f64 = 0.625;

/// Width of every picture, in pixels.
pub(crate) const WIDTH: u32 = 1400;
/// Left label column of the stacked panels: the same for all, so their time
/// axes line up.
pub(crate) const Y_LABELS: u32 = 110;

#[derive(Debug)]
pub enum PlotError {
    /// An input file that cannot be read (exit 2 with file and line).
    Input(crate::error::InputError),
    /// Bad arguments or unusable inputs (exit 2).
    Usage(String),
    /// The SVG could not be written (exit 74).
    Output(String),
    /// Drawing failed: a bug (exit 70).
    Internal(String),
}

/// Drawing into a string fails only on a bug.
pub(crate) fn drawing<E: std::fmt::Debug>(e: E) -> PlotError {
    PlotError::Internal(format!("drawing the SVG failed: {e:?}"))
}

pub struct PlotOptions {
    /// Utilisation per core type instead of one bar per node.
    pub aggregate: bool,
    pub title: String,
}

/// A distinct colour for index `i`: hues spread by the golden ratio, so
/// neighbouring ops differ.
pub(crate) fn colour(i: usize) -> RGBColor {
    let h = (i as f64 * 0.618_033_988_75).fract();
    let (r, g, b) = hsl_to_rgb(h, 0.6, if i.is_multiple_of(2) { 0.55 } else { 0.42 });
    RGBColor(r, g, b)
}

fn hsl_to_rgb(h: f64, s: f64, l: f64) -> (u8, u8, u8) {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = h * 6.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let to = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    (to(r), to(g), to(b))
}

/// Writes `svg` to `out`: creating the file is an argument problem (exit 2),
/// writing it an output failure (exit 74).
pub(crate) fn write_svg(svg: &str, out: &Path) -> Result<(), PlotError> {
    use std::io::Write;
    let mut f = std::fs::File::create(out)
        .map_err(|e| PlotError::Usage(format!("cannot create {}: {e}", out.display())))?;
    f.write_all(svg.as_bytes())
        .and_then(|_| f.flush())
        .map_err(|e| PlotError::Output(format!("{}: {e}", out.display())))
}

/// Draws a validated schedule into `out` (see the module documentation).
pub fn plot_schedule(
    g: &NodeGraph,
    s: &Schedule,
    opts: &PlotOptions,
    out: &Path,
) -> Result<(), PlotError> {
    let svg = schedule_svg(g, s, opts)?;
    write_svg(&svg, out)
}

/// The SVG text of `plot_schedule`.
pub fn schedule_svg(g: &NodeGraph, s: &Schedule, opts: &PlotOptions) -> Result<String, PlotError> {
    let makespan = s.makespan(g).max(1) as f64;
    let n_mems = g.inst.platform.mems.len() as u32;
    let top_h = if opts.aggregate {
        gantt::UTIL_HEIGHT
    } else {
        gantt::gantt_height(g, s)
    };
    let height = 40 + top_h + n_mems * memory::PANEL_HEIGHT;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(drawing)?;
        let root = root
            .titled(&opts.title, ("sans-serif", 18))
            .map_err(drawing)?;
        let (top, bottom) = root.split_vertically(top_h);
        if opts.aggregate {
            gantt::draw_utilisation(&top, g, s, makespan)?;
        } else {
            gantt::draw_gantt(&top, g, s, makespan)?;
        }
        if n_mems > 0 {
            let panels = bottom.split_evenly((n_mems as usize, 1));
            for (m, area) in panels.iter().enumerate() {
                memory::draw_memory(area, g, s, m as u32, makespan)?;
            }
        }
        root.present().map_err(drawing)?;
    }
    Ok(svg)
}
