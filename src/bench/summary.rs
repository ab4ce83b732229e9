//! results.csv and summary.md: the folder's lines as a table, with counts.

use std::fmt::Write as _;
use std::path::Path;

use super::record::Record;
use super::store::write_atomic;

/// The CSV columns, in order: the line's keys.
const COLUMNS: [&str; 24] = [
    "name",
    "instance",
    "hash",
    "format",
    "ops",
    "nodes_min",
    "nodes_max",
    "engine",
    "engine_used",
    "time_limit",
    "seed",
    "threads",
    "status",
    "makespan",
    "lower_bound",
    "bound_source",
    "gap",
    "t_max",
    "wall_seconds",
    "total_seconds",
    "version",
    "schedule",
    "schedule_hash",
    "disagreement",
];

/// Writes results.csv and summary.md for these lines (sorted by name).
pub(super) fn write(dir: &Path, records: &[Record]) -> std::io::Result<()> {
    let mut rs: Vec<&Record> = records.iter().collect();
    rs.sort_by(|a, b| a.name.cmp(&b.name).then(a.hash.cmp(&b.hash)));
    write_atomic(&dir.join("results.csv"), csv(&rs).as_bytes())?;
    write_atomic(&dir.join("summary.md"), markdown(&rs).as_bytes())
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv(rs: &[&Record]) -> String {
    let mut out = COLUMNS.join(",");
    out.push('\n');
    for r in rs {
        let v = r.to_json();
        let cells: Vec<String> = COLUMNS
            .iter()
            .map(|k| match &v[*k] {
                serde_json::Value::Null => String::new(),
                serde_json::Value::String(s) => csv_field(s),
                x => csv_field(&x.to_string()),
            })
            .collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

/// The median of some values (the mean of the middle two for an even count).
pub(super) fn median(mut xs: Vec<f64>) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    Some(if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    })
}

fn markdown(rs: &[&Record]) -> String {
    let count = |st: &str| rs.iter().filter(|r| r.status == st).count();
    let (opt, feas, inf, unk) = (
        count("optimal"),
        count("feasible"),
        count("infeasible"),
        count("unknown"),
    );
    let med_gap = median(rs.iter().filter_map(|r| r.gap).collect());
    let med_open_gap = median(
        rs.iter()
            .filter(|r| r.status == "feasible")
            .filter_map(|r| r.gap)
            .collect(),
    );
    let med_time = median(rs.iter().map(|r| r.total_seconds).collect());
    let mut settings: Vec<String> = rs.iter().map(|r| r.settings_text()).collect();
    settings.sort();
    settings.dedup();
    let mut s = String::new();
    let _ = writeln!(s, "# tmin bench summary\n");
    let _ = writeln!(
        s,
        "Settings: {}.\n",
        if settings.is_empty() {
            "none (no results)".to_string()
        } else {
            settings.join("; ")
        }
    );
    let _ = writeln!(s, "| count | value |\n| --- | --- |");
    let _ = writeln!(s, "| instances | {} |", rs.len());
    let _ = writeln!(
        s,
        "| proven (optimal or infeasible) | {} ({opt} optimal, {inf} infeasible) |",
        opt + inf
    );
    let _ = writeln!(
        s,
        "| with a schedule | {} ({feas} with a gap) |",
        opt + feas
    );
    let _ = writeln!(s, "| unknown (no schedule, no proof) | {unk} |");
    let _ = writeln!(
        s,
        "| median gap (instances with a schedule) | {} |",
        med_gap.map_or("-".into(), |g| format!("{:.2} %", 100.0 * g))
    );
    let _ = writeln!(
        s,
        "| median gap where not proven | {} |",
        med_open_gap.map_or("-".into(), |g| format!("{:.2} %", 100.0 * g))
    );
    let _ = writeln!(
        s,
        "| median time per instance (total_seconds) | {} |",
        med_time.map_or("-".into(), |t| format!("{t:.2} s"))
    );
    let disputed: Vec<&&Record> = rs.iter().filter(|r| r.disagreement.is_some()).collect();
    if !disputed.is_empty() {
        let _ = writeln!(s, "| disagreements between runs | {} |", disputed.len());
    }
    let _ = writeln!(
        s,
        "\n| instance | ops | nodes | status | makespan | lower bound | gap | T_max | time (s) |\n\
         | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |"
    );
    let opt_num = |x: Option<u128>| x.map_or("-".to_string(), |v| v.to_string());
    for r in rs {
        let nodes = match (r.nodes_min, r.nodes_max) {
            (Some(a), Some(b)) if a == b => a.to_string(),
            (Some(a), Some(b)) => format!("{a}-{b}"),
            _ => "-".into(),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {nodes} | {}{} | {} | {} | {} | {} | {:.2} |",
            r.name,
            r.ops.map_or("-".into(), |x| x.to_string()),
            r.status,
            if r.disagreement.is_some() {
                " (disputed)"
            } else {
                ""
            },
            opt_num(r.makespan),
            r.lower_bound,
            r.gap.map_or("-".into(), |g| format!("{:.2} %", 100.0 * g)),
            opt_num(r.t_max),
            r.total_seconds
        );
    }
    for r in disputed {
        let _ = writeln!(
            s,
            "\nDisagreement on {}: {}",
            r.name,
            r.disagreement.as_deref().unwrap_or("")
        );
    }
    s
}
