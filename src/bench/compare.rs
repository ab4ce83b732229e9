//! `tmin bench compare DIR...`: bench folders side by side, one column per
//! folder (two versions, two engines, tmin and a peer that writes the same
//! folder format), with a reference column of known optima or bounds.
//!
//! The folders check each other: no folder's proven lower bound may exceed
//! another folder's makespan (a legal schedule, validated when it was
//! written) or a reference optimum, no makespan may fall below a reference
//! T_min, and an instance proven infeasible may have no schedule anywhere.
//! Any such contradiction is listed in the page and makes the comparison an
//! error: one of the two claims is false.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use super::record::Record;
use super::summary::median;
use super::{BenchError, store};
use crate::score::{Reference, TminKind};

/// One folder's lines, under its label.
struct Column {
    label: String,
    records: Vec<Record>,
}

/// The page, and the contradictions it lists.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// Markdown: the table, one row per instance, then one summary line per
    /// folder.
    pub markdown: String,
    /// Claims of two folders (or a folder and the reference) that cannot
    /// both hold.
    pub contradictions: Vec<String>,
}

/// Compares the bench folders `dirs`, labelled by `labels` (default: each
/// folder's name), against `reference` when given.
pub fn compare(
    dirs: &[PathBuf],
    labels: &[String],
    reference: Option<&Reference>,
) -> Result<Comparison, BenchError> {
    if dirs.is_empty() {
        return Err(BenchError::Usage(
            "bench compare needs at least one bench folder".into(),
        ));
    }
    if !labels.is_empty() && labels.len() != dirs.len() {
        return Err(BenchError::Usage(format!(
            "--label given {} times for {} folders: give one a folder or none",
            labels.len(),
            dirs.len()
        )));
    }
    let mut columns = Vec::new();
    for (i, d) in dirs.iter().enumerate() {
        let records = store::input_folder(d, "comparison")?;
        let label = labels.get(i).cloned().unwrap_or_else(|| {
            d.file_name()
                .map_or_else(|| d.display().to_string(), |f| f.to_string_lossy().into())
        });
        columns.push(Column { label, records });
    }
    Ok(build(&columns, reference))
}

/// The instances in order of first appearance (by content and format), with
/// each column's line for it.
fn rows(columns: &[Column]) -> Vec<(String, Vec<Option<&Record>>)> {
    let mut order: Vec<(String, Vec<Option<&Record>>)> = Vec::new();
    let mut at: HashMap<(String, String), usize> = HashMap::new();
    for (c, col) in columns.iter().enumerate() {
        for r in &col.records {
            let i = *at.entry(r.key()).or_insert_with(|| {
                order.push((r.name.clone(), vec![None; columns.len()]));
                order.len() - 1
            });
            order[i].1[c] = Some(r);
        }
    }
    order
}

/// What cannot all hold among one instance's lines and its reference.
fn contradictions(
    name: &str,
    cells: &[Option<&Record>],
    columns: &[Column],
    reference: Option<(u128, TminKind)>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (a, ra) in cells.iter().enumerate() {
        let Some(ra) = ra else { continue };
        let la = &columns[a].label;
        for (b, rb) in cells.iter().enumerate() {
            let Some(rb) = rb else { continue };
            let lb = &columns[b].label;
            if let Some(ms) = rb.makespan {
                if u128::from(ra.lower_bound) > ms {
                    out.push(format!(
                        "{name}: {la}'s lower bound {} is above {lb}'s legal makespan {ms}",
                        ra.lower_bound
                    ));
                }
                if ra.status == "infeasible" {
                    out.push(format!(
                        "{name}: {la} proved it infeasible, {lb} has a schedule ({ms})"
                    ));
                }
            }
        }
        if let Some((t, kind)) = reference {
            if kind == TminKind::Optimal && u128::from(ra.lower_bound) > t {
                out.push(format!(
                    "{name}: {la}'s lower bound {} is above the reference optimum {t}",
                    ra.lower_bound
                ));
            }
            if let Some(ms) = ra.makespan.filter(|&ms| ms < t) {
                out.push(format!(
                    "{name}: {la}'s makespan {ms} is below the reference's proven {} {t}",
                    kind.name()
                ));
            }
        }
    }
    out
}

fn cell(r: Option<&Record>) -> String {
    let Some(r) = r else {
        return "missing".into();
    };
    let ms = r.makespan.map_or("-".into(), |m| m.to_string());
    match r.status.as_str() {
        "optimal" => format!("**{ms}** / {} / {:.1}", r.lower_bound, r.total_seconds),
        "infeasible" => format!("**infeasible** / {:.1}", r.total_seconds),
        _ => format!("{ms} / {} / {:.1}", r.lower_bound, r.total_seconds),
    }
}

fn percent(x: Option<f64>) -> String {
    x.map_or("-".into(), |g| format!("{:.2} %", 100.0 * g))
}

/// The table and its summary.
fn build(columns: &[Column], reference: Option<&Reference>) -> Comparison {
    let rows = rows(columns);
    let mut s = String::new();
    let refs: Vec<Option<(u128, TminKind)>> = rows
        .iter()
        .map(|(name, _)| reference.and_then(|r| r.get(name)).and_then(|e| e.t_min))
        .collect();
    let has_ref = refs.iter().any(Option::is_some);
    let _ = write!(s, "| instance |");
    if has_ref {
        let _ = write!(s, " reference |");
    }
    for c in columns {
        let _ = write!(s, " {} |", c.label);
    }
    let _ = write!(s, "\n| --- |");
    if has_ref {
        let _ = write!(s, " ---: |");
    }
    let _ = writeln!(s, "{}", " --- |".repeat(columns.len()));
    let mut contra = Vec::new();
    for ((name, cells), reference) in rows.iter().zip(&refs) {
        contra.extend(contradictions(name, cells, columns, *reference));
        let _ = write!(s, "| {name} |");
        if has_ref {
            let r = reference.map_or("-".into(), |(t, k)| match k {
                TminKind::Optimal => t.to_string(),
                TminKind::Bound => format!(">= {t}"),
            });
            let _ = write!(s, " {r} |");
        }
        for c in cells {
            let _ = write!(s, " {} |", cell(*c));
        }
        s.push('\n');
    }
    let _ = writeln!(
        s,
        "\nCells: makespan / lower bound / seconds (the whole solve); bold: proven \
         optimal (or infeasible); `-`: no schedule; missing: not in that folder."
    );
    summary(&mut s, columns, &rows, &refs);
    if !contra.is_empty() {
        let _ = writeln!(s, "\n**INCONSISTENT** ({} claims):\n", contra.len());
        for c in &contra {
            let _ = writeln!(s, "- {c}");
        }
    }
    Comparison {
        markdown: s,
        contradictions: contra,
    }
}

/// One line per column: proofs, schedules, the best makespan, gaps, time.
fn summary(
    s: &mut String,
    columns: &[Column],
    rows: &[(String, Vec<Option<&Record>>)],
    refs: &[Option<(u128, TminKind)>],
) {
    let n = rows.len();
    // The best makespan and the best bound of any column, per instance.
    let best: Vec<Option<u128>> = rows
        .iter()
        .map(|(_, cells)| cells.iter().flatten().filter_map(|r| r.makespan).min())
        .collect();
    let all_scheduled: Vec<bool> = rows
        .iter()
        .map(|(_, cells)| {
            cells
                .iter()
                .all(|r| r.is_some_and(|r| r.makespan.is_some()))
        })
        .collect();
    let common = all_scheduled.iter().filter(|&&a| a).count();
    let _ = writeln!(s);
    for (c, col) in columns.iter().enumerate() {
        let mine: Vec<Option<&Record>> = rows.iter().map(|(_, cells)| cells[c]).collect();
        let proven = mine.iter().flatten().filter(|r| r.proven()).count();
        let scheduled = mine
            .iter()
            .flatten()
            .filter(|r| r.makespan.is_some())
            .count();
        let at_best = mine
            .iter()
            .zip(&best)
            .filter(|(r, b)| r.and_then(|r| r.makespan).is_some_and(|m| Some(m) == **b))
            .count();
        let gap = median(mine.iter().flatten().filter_map(|r| r.gap).collect());
        let sum: u128 = mine
            .iter()
            .zip(&all_scheduled)
            .filter(|(_, a)| **a)
            .filter_map(|(r, _)| r.and_then(|r| r.makespan))
            .sum();
        let seconds = mine.iter().flatten().fold(0.0, |s, r| s + r.total_seconds);
        let at_ref = mine
            .iter()
            .zip(refs)
            .filter(|(r, t)| {
                matches!((r.and_then(|r| r.makespan), t), (Some(m), Some((t, TminKind::Optimal))) if m == *t)
            })
            .count();
        let _ = write!(
            s,
            "- {}: {proven} of {n} proven; {scheduled} with a schedule, {at_best} at the best \
             makespan of any column",
            col.label
        );
        if refs.iter().any(Option::is_some) {
            let _ = write!(s, ", {at_ref} at the reference optimum");
        }
        let _ = write!(s, "; median gap {}", percent(gap));
        if common > 0 && columns.len() > 1 {
            let _ = write!(
                s,
                "; sum of makespans {sum} over the {common} instances every column scheduled"
            );
        } else if common > 0 {
            let _ = write!(s, "; sum of makespans {sum}");
        }
        let _ = writeln!(s, "; {seconds:.1} s in all.");
    }
}
