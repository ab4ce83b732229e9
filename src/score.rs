//! `tmin score`: the task book's score of heuristic schedules against T_min
//! (a proven optimum or a proven lower bound) and T_max (`crate::tmax`).
//!
//! Score = S_base + (S_max - S_base) * (T_max - T) / (T_max - T_min), clamped
//! to [S_base, S_max]; T <= T_min gives S_max (also when T_max <= T_min, where
//! the fraction is undefined), T >= T_max gives S_base, and an illegal or
//! missing schedule gives S_base. Every schedule is validated before it is
//! scored. T_min is never something that is not a bound: it comes from a
//! reference (a bench folder or a CSV) or from `engine::proven_bounds`, and a
//! legal schedule below it is an error that names the reference. Each legal
//! schedule also gets the bound for its own tilings (`TilingsBound`), which
//! splits its gap into what its order may lose and what its tilings do.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::bounds::combinatorial::ChoiceBounds;
use crate::error::{InputError, InputResult, Pos};
use crate::instance::Instance;

/// How good T_min is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TminKind {
    /// A proven optimum: some legal schedule has this makespan.
    Optimal,
    /// A proven lower bound: no legal schedule is shorter.
    Bound,
}

impl TminKind {
    pub fn name(self) -> &'static str {
        match self {
            TminKind::Optimal => "optimal",
            TminKind::Bound => "bound",
        }
    }
}

/// One instance's row of a reference, merged over every line that names it.
#[derive(Clone, Debug)]
pub struct RefEntry {
    /// The `instance` column as written (a path for bench folders).
    pub instance: String,
    pub t_min: Option<(u128, TminKind)>,
    pub t_max: Option<u128>,
    /// The `ops` column of a bench folder, to catch a row of another instance.
    pub ops: Option<u64>,
    /// The `hash` column of a bench folder (of the instance's content).
    pub hash: Option<String>,
    /// The bench line says the instance file is a job shop (`"format": "jsp"`).
    pub jsp: bool,
    /// Where the row came from (`file:line`), for messages.
    pub at: String,
}

/// T_min (and maybe T_max) per instance name (file name without `.txt`).
#[derive(Clone, Debug)]
pub struct Reference {
    /// The folder or file given, for messages.
    pub source: PathBuf,
    /// In order of first appearance.
    pub entries: Vec<RefEntry>,
    by_name: HashMap<String, usize>,
}

impl Reference {
    pub fn get(&self, name: &str) -> Option<&RefEntry> {
        self.by_name.get(name).map(|&i| &self.entries[i])
    }
    /// The folder that relative `instance` paths may be relative to.
    pub fn base_dir(&self) -> PathBuf {
        if self.source.is_dir() {
            self.source.clone()
        } else {
            self.source
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default()
        }
    }
}

/// The name schedules are filed under: the instance's file name without `.txt`.
pub fn instance_name(path: &str) -> String {
    let file = Path::new(path)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_string());
    file.strip_suffix(".txt")
        .map(str::to_string)
        .unwrap_or(file)
}

/// The score of makespan `t` (see the module documentation).
pub fn score(t: u128, t_min: u128, t_max: u128, s_base: f64, s_max: f64) -> f64 {
    if t <= t_min {
        return s_max;
    }
    if t >= t_max {
        return s_base;
    }
    // t_min < t < t_max here, so the denominator is positive.
    let frac = (t_max - t) as f64 / (t_max - t_min) as f64;
    (s_base + (s_max - s_base) * frac).clamp(s_base.min(s_max), s_max.max(s_base))
}

fn err(file: &Path, line: usize, msg: impl Into<String>) -> InputError {
    InputError::new(
        &file.display().to_string(),
        Pos {
            line: line as u32,
            col: if line == 0 { 0 } else { 1 },
        },
        msg,
    )
}

/// A time from JSON: a number, a string of digits (beyond u64), or null.
fn json_time(v: Option<&Value>, key: &str) -> Result<Option<u128>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_u64()
            .map(|x| Some(u128::from(x)))
            .ok_or_else(|| format!("`{key}` must be a non-negative integer, got {n}")),
        Some(Value::String(s)) => parse_time(s, key),
        Some(other) => Err(format!(
            "`{key}` must be a number, a string of digits or null, got {other}"
        )),
    }
}

/// A time from text: digits, or empty for none.
fn parse_time(s: &str, key: &str) -> Result<Option<u128>, String> {
    let s = s.trim();
    if s.is_empty() || s == "null" {
        return Ok(None);
    }
    if !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("`{key}` must be a non-negative integer, got '{s}'"));
    }
    s.parse::<u128>()
        .map(Some)
        .map_err(|_| format!("`{key}` is too large: '{s}'"))
}

/// T_min of one bench row: the makespan when proven optimal, else the lower bound.
fn bench_t_min(
    status: &str,
    makespan: Option<u128>,
    lower: Option<u128>,
) -> Result<Option<(u128, TminKind)>, String> {
    if let (Some(ms), Some(lb)) = (makespan, lower)
        && lb > ms
    {
        return Err(format!(
            "lower_bound {lb} is above makespan {ms}: the row contradicts itself"
        ));
    }
    match status {
        "optimal" => match makespan {
            Some(ms) => Ok(Some((ms, TminKind::Optimal))),
            None => Err("status optimal without a makespan".into()),
        },
        "feasible" | "infeasible" | "unknown" => Ok(lower.map(|b| (b, TminKind::Bound))),
        other => Err(format!(
            "unknown status '{other}' (expected optimal, feasible, infeasible or unknown)"
        )),
    }
}

struct Builder {
    source: PathBuf,
    entries: Vec<RefEntry>,
    by_name: HashMap<String, usize>,
}

impl Builder {
    fn new(source: &Path) -> Self {
        Builder {
            source: source.to_path_buf(),
            entries: Vec::new(),
            by_name: HashMap::new(),
        }
    }

    /// Adds one row; rows of the same instance merge: an optimum wins over
    /// bounds, the largest bound wins among bounds, and two rows that
    /// contradict each other (two optima, a bound above an optimum) are an error.
    fn add(&mut self, row: RefEntry) -> Result<(), String> {
        let name = instance_name(&row.instance);
        let Some(&i) = self.by_name.get(&name) else {
            self.by_name.insert(name, self.entries.len());
            self.entries.push(row);
            return Ok(());
        };
        let old = &mut self.entries[i];
        // Schedules are filed by name, so two different instances of one name
        // cannot both be scored; the same instance moved (same content) can.
        let same_content = match (&old.hash, &row.hash) {
            (Some(a), Some(b)) => a == b,
            _ => old.instance == row.instance,
        };
        if !same_content {
            return Err(format!(
                "two different instances are named {name}: {} ({}) and {}; \
                 schedules are filed by name, so give them distinct file names",
                old.instance, old.at, row.instance
            ));
        }
        let merged = match (old.t_min, row.t_min) {
            (None, x) | (x, None) => x,
            (Some((a, TminKind::Optimal)), Some((b, TminKind::Optimal))) if a != b => {
                return Err(format!(
                    "two different optima for {name}: {a} ({}) and {b}",
                    old.at
                ));
            }
            (Some((o, TminKind::Optimal)), Some((b, TminKind::Bound)))
            | (Some((b, TminKind::Bound)), Some((o, TminKind::Optimal))) => {
                if b > o {
                    return Err(format!(
                        "for {name} a lower bound {b} is above the optimum {o} ({})",
                        old.at
                    ));
                }
                Some((o, TminKind::Optimal))
            }
            (Some((a, ka)), Some((b, _))) => Some((a.max(b), ka)),
        };
        old.t_min = merged;
        old.t_max = old.t_max.or(row.t_max);
        old.ops = old.ops.or(row.ops);
        Ok(())
    }

    fn finish(self) -> Reference {
        Reference {
            source: self.source,
            entries: self.entries,
            by_name: self.by_name,
        }
    }
}

/// Reads a reference: a bench folder (`DIR/results.jsonl`, else
/// `DIR/results.csv`) or a CSV file with the columns `instance,t_min` and
/// optionally `t_min_kind` (`optimal` or `bound`, default `bound`) and
/// `t_max`, or the columns of a bench `results.csv` (`status`, `makespan`,
/// `lower_bound`, `t_max`).
pub fn load_reference(path: &Path) -> Result<Reference, InputError> {
    if path.is_dir() {
        let jsonl = path.join("results.jsonl");
        if jsonl.is_file() {
            return load_jsonl(path, &jsonl);
        }
        let csv = path.join("results.csv");
        if csv.is_file() {
            return load_csv(path, &csv);
        }
        return Err(err(
            path,
            0,
            "not a bench folder: it has neither results.jsonl nor results.csv",
        ));
    }
    load_csv(path, path)
}

fn read_text(file: &Path) -> Result<String, InputError> {
    let mut f = crate::error::open_file(file)?;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut f, &mut text)
        .map_err(|e| err(file, 0, format!("cannot read: {e}")))?;
    Ok(text)
}

/// One JSON object a line; a last line that does not parse is a line torn by
/// a killed run and is ignored (the bench redoes it), any other is an error.
fn load_jsonl(dir: &Path, file: &Path) -> Result<Reference, InputError> {
    let text = read_text(file)?;
    let lines: Vec<&str> = text.lines().collect();
    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    let mut b = Builder::new(dir);
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let no = i + 1;
        let v: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(_) if Some(i) == last => {
                log::warn!(
                    "{}:{no}: ignoring a torn last line (a run was interrupted)",
                    file.display()
                );
                continue;
            }
            Err(e) => return Err(err(file, no, format!("not a JSON object: {e}"))),
        };
        let row = (|| -> Result<RefEntry, String> {
            let instance = v
                .get("instance")
                .and_then(Value::as_str)
                .ok_or("missing the string key `instance`")?
                .to_string();
            let status = v
                .get("status")
                .and_then(Value::as_str)
                .ok_or("missing the string key `status`")?;
            let makespan = json_time(v.get("makespan"), "makespan")?;
            let lower = json_time(v.get("lower_bound"), "lower_bound")?;
            Ok(RefEntry {
                instance,
                t_min: bench_t_min(status, makespan, lower)?,
                t_max: json_time(v.get("t_max"), "t_max")?,
                ops: v.get("ops").and_then(Value::as_u64),
                hash: v.get("hash").and_then(Value::as_str).map(str::to_string),
                jsp: v.get("format").and_then(Value::as_str) == Some("jsp"),
                at: format!("{}:{no}", file.display()),
            })
        })()
        .map_err(|m| err(file, no, m))?;
        b.add(row).map_err(|m| err(file, no, m))?;
    }
    Ok(b.finish())
}

/// Splits one CSV record: commas, fields optionally in double quotes with `""`
/// for a quote inside.
fn csv_fields(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    let mut at_start = true;
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    cur.push('"');
                } else {
                    quoted = false;
                }
            } else {
                cur.push(c);
            }
        } else if c == '"' && at_start {
            quoted = true;
            at_start = false;
        } else if c == ',' {
            out.push(std::mem::take(&mut cur));
            at_start = true;
        } else {
            cur.push(c);
            at_start = false;
        }
    }
    if quoted {
        return Err("unterminated quoted field".into());
    }
    out.push(cur);
    Ok(out)
}

fn load_csv(source: &Path, file: &Path) -> Result<Reference, InputError> {
    let text = read_text(file)?;
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((hi, header)) = lines.next() else {
        return Err(err(file, 0, "empty CSV: expected a header line"));
    };
    let cols: Vec<String> = csv_fields(header)
        .map_err(|m| err(file, hi + 1, m))?
        .into_iter()
        .map(|c| c.trim().to_ascii_lowercase())
        .collect();
    let col = |name: &str| cols.iter().position(|c| c == name);
    let Some(c_inst) = col("instance") else {
        return Err(err(file, hi + 1, "the header has no `instance` column"));
    };
    let (c_tmin, c_kind, c_tmax) = (col("t_min"), col("t_min_kind"), col("t_max"));
    let (c_status, c_ms, c_lb) = (col("status"), col("makespan"), col("lower_bound"));
    if c_tmin.is_none() && c_status.is_none() {
        return Err(err(
            file,
            hi + 1,
            "the header needs a `t_min` column (instance,t_min[,t_min_kind][,t_max]) \
             or the columns of a bench results.csv (status, makespan, lower_bound)",
        ));
    }
    let c_ops = col("ops");
    let mut b = Builder::new(source);
    for (i, line) in lines {
        let no = i + 1;
        let row = (|| -> Result<RefEntry, String> {
            let f = csv_fields(line)?;
            if f.len() != cols.len() {
                return Err(format!("{} fields, the header has {}", f.len(), cols.len()));
            }
            let cell = |c: Option<usize>| c.map(|c| f[c].trim()).unwrap_or("");
            let instance = cell(Some(c_inst)).to_string();
            if instance.is_empty() {
                return Err("empty `instance`".into());
            }
            let t_min = if c_tmin.is_some() {
                let kind = match cell(c_kind) {
                    "" | "bound" => TminKind::Bound,
                    "optimal" => TminKind::Optimal,
                    other => {
                        return Err(format!(
                            "`t_min_kind` must be optimal or bound, got '{other}'"
                        ));
                    }
                };
                parse_time(cell(c_tmin), "t_min")?.map(|t| (t, kind))
            } else {
                bench_t_min(
                    cell(c_status),
                    parse_time(cell(c_ms), "makespan")?,
                    parse_time(cell(c_lb), "lower_bound")?,
                )?
            };
            Ok(RefEntry {
                instance,
                t_min,
                t_max: parse_time(cell(c_tmax), "t_max")?,
                ops: cell(c_ops).parse().ok(),
                hash: Some(cell(col("hash")))
                    .filter(|h| !h.is_empty())
                    .map(str::to_string),
                jsp: cell(col("format")) == "jsp",
                at: format!("{}:{no}", file.display()),
            })
        })()
        .map_err(|m| err(file, no, m))?;
        b.add(row).map_err(|m| err(file, no, m))?;
    }
    Ok(b.finish())
}

/// Where T_min and T_max of one instance come from.
#[derive(Clone, Debug)]
pub struct Scale {
    pub t_min: u128,
    pub kind: TminKind,
    /// `reference FILE:LINE` or `computed (SOURCE)`.
    pub t_min_source: String,
    pub t_max: u128,
    pub t_max_source: String,
}

/// Time for a computed T_min (`engine::proven_bounds`: the combinatorial
/// bounds, the tiling-choice relaxation and the window net) when no
/// reference gives one.
const COMPUTED_BOUND_TIME: std::time::Duration = std::time::Duration::from_secs(1);

/// T_min and T_max for `inst`: T_min from the reference row named `name` when
/// it has one, else from a fresh `engine::proven_bounds`; T_max from `t_max_override`,
/// else the reference, else `tmax::t_max`.
pub fn scale_for(
    inst: &Instance,
    name: &str,
    reference: Option<&Reference>,
    t_max_override: Option<u128>,
) -> Result<Scale, String> {
    let row = reference.and_then(|r| r.get(name));
    if let (Some(r), Some(ops)) = (row, row.and_then(|r| r.ops))
        && ops != inst.graph.n_ops() as u64
    {
        return Err(format!(
            "the reference row {} for {name} has {ops} ops, the instance {}: \
             it describes another instance",
            r.at,
            inst.graph.n_ops()
        ));
    }
    let (t_min, kind, t_min_source) = match row.and_then(|r| r.t_min.map(|t| (t, &r.at))) {
        Some(((t, TminKind::Optimal), at)) => (t, TminKind::Optimal, format!("reference {at}")),
        // A reference bound may be weaker than ours (a short run): the best
        // proven bound is the larger of the two.
        Some(((t, TminKind::Bound), at)) => {
            let b = crate::pipeline::bounds::proven_bounds(inst, COMPUTED_BOUND_TIME);
            if u128::from(b.best.value) > t {
                (
                    u128::from(b.best.value),
                    TminKind::Bound,
                    format!("computed ({}), above reference {at}", b.best.source),
                )
            } else {
                (t, TminKind::Bound, format!("reference {at}"))
            }
        }
        None => {
            if let Some(r) = reference {
                log::warn!(
                    "{}: no T_min for {name}; using the computed lower bound",
                    r.source.display()
                );
            }
            let b = crate::pipeline::bounds::proven_bounds(inst, COMPUTED_BOUND_TIME);
            (
                u128::from(b.best.value),
                TminKind::Bound,
                format!("computed ({})", b.best.source),
            )
        }
    };
    let (t_max, t_max_source) = match (t_max_override, row.and_then(|r| r.t_max)) {
        (Some(t), _) => (t, "--t-max".to_string()),
        (None, Some(t)) => (t, "reference".to_string()),
        (None, None) => match crate::tmax::t_max(inst) {
            Some(t) => (t, "computed".to_string()),
            None => {
                return Err(format!(
                    "{name}: an op has no usable tiling, so the instance is infeasible \
                     and has no T_max; give --t-max"
                ));
            }
        },
    };
    Ok(Scale {
        t_min,
        kind,
        t_min_source,
        t_max,
        t_max_source,
    })
}

/// The verdict and score of one schedule.
#[derive(Clone, Debug)]
pub struct Scored {
    /// The heuristic: its folder name, or the schedule file in single mode.
    pub heuristic: String,
    pub instance: String,
    /// The schedule file; `None` when the heuristic has none for this instance.
    pub schedule: Option<String>,
    pub legal: bool,
    /// Legal schedules only.
    pub makespan: Option<u128>,
    pub scale: Scale,
    pub score: f64,
    /// The first violations (or why the file could not be read), empty when legal.
    pub violations: Vec<String>,
    pub violation_count: usize,
    /// Legal schedules only: the lower bound for the schedule's own tilings.
    pub tilings_bound: Option<TilingsBound>,
}

/// The lower bound for one tiling choice (`ChoiceBounds::at_least`: its
/// own, or T_min where that is higher, as T_min bounds every schedule,
/// whatever its tilings): no schedule with these tilings ends before it, so
/// a schedule's makespan above it is at most what its order loses, the rest
/// of its gap being its tilings' or the bounds' (`tmin check --bound`
/// reports the same).
#[derive(Clone, Debug)]
pub struct TilingsBound {
    pub value: u128,
    /// The argument (`core type 1 head-body-tail`) or `T_min`.
    pub source: String,
}

impl Scored {
    pub fn gap(&self) -> Option<f64> {
        self.makespan
            .map(|t| crate::solve::gap(t, self.scale.t_min))
    }

    /// (makespan - bound for its tilings) / makespan: at most what the
    /// schedule's order loses against the best schedule with its tilings.
    pub fn order_gap(&self) -> Option<f64> {
        let b = self.tilings_bound.as_ref()?;
        self.makespan.map(|t| crate::solve::gap(t, b.value))
    }
}

/// Reads, validates and scores one schedule file. A file that is not readable
/// as a schedule, or is not one of `inst` (unknown ops or nodes), is illegal
/// and scores `s_base`; only a file that cannot be opened is an error.
/// A legal makespan below T_min is an error: T_min was not a bound.
#[allow(clippy::too_many_arguments)]
pub fn score_file(
    inst: &Instance,
    instance_label: &str,
    heuristic: &str,
    schedule: &Path,
    scale: &Scale,
    tilings: &ChoiceBounds,
    s_base: f64,
    s_max: f64,
    max_violations: usize,
) -> Result<Scored, ScoreError> {
    let name = schedule.display().to_string();
    let f = crate::error::open_file(schedule).map_err(ScoreError::Input)?;
    let rep =
        crate::schedule::check_reader(inst, std::io::BufReader::new(f), &name, max_violations);
    let at = Scoring {
        instance_label,
        heuristic,
        schedule: &name,
        scale,
        tilings,
        s_base,
        s_max,
    };
    score_report(rep, &at)
}

/// What a verdict is scored against: the instance's scale and the names a
/// row carries.
pub struct Scoring<'a> {
    pub instance_label: &'a str,
    pub heuristic: &'a str,
    /// The schedule's name (its file).
    pub schedule: &'a str,
    pub scale: &'a Scale,
    /// The instance's bounds for one tiling choice (built once an instance).
    pub tilings: &'a ChoiceBounds<'a>,
    pub s_base: f64,
    pub s_max: f64,
}

/// Scores a verdict (`schedule::check_reader`, `check_outcome`): an
/// unreadable or illegal schedule scores `s_base`; a legal makespan below
/// T_min, or below the bound for its own tilings, is an error (that was not
/// a bound).
pub fn score_report(
    rep: InputResult<crate::schedule::Report>,
    at: &Scoring,
) -> Result<Scored, ScoreError> {
    let (scale, name, instance_label) = (at.scale, at.schedule, at.instance_label);
    let base = |legal, makespan, score, violations: Vec<String>, count| Scored {
        heuristic: at.heuristic.to_string(),
        instance: instance_label.to_string(),
        schedule: Some(name.to_string()),
        legal,
        makespan,
        scale: scale.clone(),
        score,
        violations,
        violation_count: count,
        tilings_bound: None,
    };
    let rep = match rep {
        Ok(r) => r,
        Err(e) => {
            return Ok(base(
                false,
                None,
                at.s_base,
                vec![format!("unreadable: {e}")],
                1,
            ));
        }
    };
    if !rep.is_legal() {
        let mut v: Vec<String> = rep.violations.kept.iter().map(|x| x.to_string()).collect();
        if rep.violations.count(crate::schedule::Rule::Structure) > 0 {
            v.push(format!(
                "(structure violations: is this a schedule of {instance_label}?)"
            ));
        }
        return Ok(base(false, None, at.s_base, v, rep.violations.total()));
    }
    let t = rep.makespan.unwrap_or(0);
    if t < scale.t_min {
        return Err(ScoreError::NotABound {
            from_reference: scale.t_min_source.starts_with("reference"),
            message: format!(
                "{name} is a legal schedule of {instance_label} with makespan {t}, below \
             T_min = {} ({}, {}): that T_min is not a lower bound",
                scale.t_min,
                scale.kind.name(),
                scale.t_min_source
            ),
        });
    }
    // A legal schedule's rows form a schedule, so its tilings are known.
    let tilings_bound = rep.choice.as_deref().map(|choice| {
        // A T_min beyond u64 is above every combinatorial bound (u64).
        let Ok(t_min) = u64::try_from(scale.t_min) else {
            return TilingsBound {
                value: scale.t_min,
                source: "T_min".into(),
            };
        };
        let t_min = crate::bounds::Bound {
            value: t_min,
            source: "T_min".into(),
        };
        let b = at.tilings.at_least(choice, t_min);
        TilingsBound {
            value: u128::from(b.value),
            source: b.source,
        }
    });
    if let Some(b) = tilings_bound.as_ref().filter(|b| t < b.value) {
        return Err(ScoreError::NotABound {
            from_reference: false,
            message: format!(
                "{name} is a legal schedule of {instance_label} with makespan {t}, below \
                 the bound {} ({}) for its own tilings: that bound is wrong",
                b.value, b.source
            ),
        });
    }
    let mut row = base(
        true,
        Some(t),
        score(t, scale.t_min, scale.t_max, at.s_base, at.s_max),
        Vec::new(),
        0,
    );
    row.tilings_bound = tilings_bound;
    // A legal schedule that meets a proven bound proves it optimal.
    if t == scale.t_min {
        row.scale.kind = TminKind::Optimal;
    }
    Ok(row)
}

/// The row of a heuristic without a schedule for an instance.
pub fn missing(heuristic: &str, instance_label: &str, scale: &Scale, s_base: f64) -> Scored {
    Scored {
        heuristic: heuristic.to_string(),
        instance: instance_label.to_string(),
        schedule: None,
        legal: false,
        makespan: None,
        scale: scale.clone(),
        score: s_base,
        violations: vec!["missing: no schedule for this instance".into()],
        violation_count: 0,
        tilings_bound: None,
    }
}

#[derive(Debug)]
pub enum ScoreError {
    /// A file that cannot be opened or read.
    Input(InputError),
    /// A legal schedule below T_min: the reference is wrong (bad input), or
    /// a computed bound is (a bug).
    NotABound {
        from_reference: bool,
        message: String,
    },
}

/// Per heuristic: total score, counts and mean gap, best first.
#[derive(Clone, Debug)]
pub struct Standing {
    pub heuristic: String,
    pub total: f64,
    pub scored: usize,
    pub legal: usize,
    pub illegal: usize,
    pub missing: usize,
    /// Over legal schedules.
    pub mean_gap: Option<f64>,
    /// Over legal schedules: the mean of `Scored::order_gap`.
    pub mean_order_gap: Option<f64>,
}

/// The ranking: total score descending, ties by name.
pub fn ranking(rows: &[Scored]) -> Vec<Standing> {
    let mut order: Vec<String> = Vec::new();
    let mut by: HashMap<String, Standing> = HashMap::new();
    // Per heuristic: the sum and count of its gaps, and of its order gaps.
    let mut gaps: HashMap<String, [(f64, usize); 2]> = HashMap::new();
    for r in rows {
        let s = by.entry(r.heuristic.clone()).or_insert_with(|| {
            order.push(r.heuristic.clone());
            Standing {
                heuristic: r.heuristic.clone(),
                total: 0.0,
                scored: 0,
                legal: 0,
                illegal: 0,
                missing: 0,
                mean_gap: None,
                mean_order_gap: None,
            }
        });
        s.total += r.score;
        s.scored += 1;
        if r.legal {
            s.legal += 1;
        } else if r.schedule.is_none() {
            s.missing += 1;
        } else {
            s.illegal += 1;
        }
        let e = gaps.entry(r.heuristic.clone()).or_default();
        for (acc, g) in e.iter_mut().zip([r.gap(), r.order_gap()]) {
            if let Some(g) = g {
                acc.0 += g;
                acc.1 += 1;
            }
        }
    }
    let mut out: Vec<Standing> = order
        .into_iter()
        .map(|h| {
            let mut s = by.remove(&h).expect("every heuristic has a standing");
            let mean = |(sum, n): (f64, usize)| (n > 0).then(|| sum / n as f64);
            if let Some(&[gap, order]) = gaps.get(&h) {
                s.mean_gap = mean(gap);
                s.mean_order_gap = mean(order);
            }
            s
        })
        .collect();
    out.sort_by(|a, b| {
        b.total
            .total_cmp(&a.total)
            .then_with(|| a.heuristic.cmp(&b.heuristic))
    });
    out
}

/// `--json`: one object per schedule.
pub fn to_json(rows: &[Scored]) -> Value {
    use crate::report::num;
    use serde_json::json;
    Value::Array(
        rows.iter()
            .map(|r| {
                json!({
                    "heuristic": r.heuristic,
                    "instance": r.instance,
                    "schedule": r.schedule,
                    "legal": r.legal,
                    "missing": r.schedule.is_none(),
                    "makespan": r.makespan.map(num),
                    "t_min": num(r.scale.t_min),
                    "t_min_kind": r.scale.kind.name(),
                    "t_min_source": r.scale.t_min_source,
                    "t_max": num(r.scale.t_max),
                    "t_max_source": r.scale.t_max_source,
                    "gap": r.gap(),
                    "tilings_bound": r.tilings_bound.as_ref().map(|b| num(b.value)),
                    "tilings_bound_source": r.tilings_bound.as_ref().map(|b| &b.source),
                    "order_gap": r.order_gap(),
                    "score": r.score,
                    "violation_count": r.violation_count,
                    "violations": r.violations,
                })
            })
            .collect(),
    )
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `--csv`: a header and one line per schedule.
pub fn to_csv(rows: &[Scored]) -> String {
    let mut s = String::from(
        "heuristic,instance,schedule,legal,makespan,t_min,t_min_kind,t_max,gap,score,violation_count,tilings_bound,order_gap\n",
    );
    for r in rows {
        let fields = [
            csv_cell(&r.heuristic),
            csv_cell(&r.instance),
            csv_cell(r.schedule.as_deref().unwrap_or("")),
            r.legal.to_string(),
            r.makespan.map(|t| t.to_string()).unwrap_or_default(),
            r.scale.t_min.to_string(),
            r.scale.kind.name().to_string(),
            r.scale.t_max.to_string(),
            r.gap().map(|g| format!("{g:.6}")).unwrap_or_default(),
            format!("{:.4}", r.score),
            r.violation_count.to_string(),
            r.tilings_bound
                .as_ref()
                .map(|b| b.value.to_string())
                .unwrap_or_default(),
            r.order_gap().map(|g| format!("{g:.6}")).unwrap_or_default(),
        ];
        s.push_str(&fields.join(","));
        s.push('\n');
    }
    s
}

/// The human table: one line per schedule (violations below an illegal one),
/// then the ranking.
pub fn to_text(rows: &[Scored], s_max: f64) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let percent = |g: Option<f64>| {
        g.map(|g| format!("{:.2}%", 100.0 * g))
            .unwrap_or("-".into())
    };
    let table: Vec<[String; 10]> = rows
        .iter()
        .map(|r| {
            [
                r.heuristic.clone(),
                instance_name(&r.instance),
                match (r.legal, r.schedule.is_some()) {
                    (true, _) => "legal".into(),
                    (false, true) => "ILLEGAL".into(),
                    (false, false) => "missing".into(),
                },
                r.makespan.map(|t| t.to_string()).unwrap_or("-".into()),
                format!("{} ({})", r.scale.t_min, r.scale.kind.name()),
                r.scale.t_max.to_string(),
                percent(r.gap()),
                r.tilings_bound
                    .as_ref()
                    .map_or("-".into(), |b| b.value.to_string()),
                percent(r.order_gap()),
                format!("{:.2}", r.score),
            ]
        })
        .collect();
    let head = [
        "heuristic",
        "instance",
        "verdict",
        "makespan",
        "T_min",
        "T_max",
        "gap",
        "its tilings' bound",
        "order gap",
        "score",
    ];
    let mut w = head.map(str::len);
    for row in &table {
        for (i, c) in row.iter().enumerate() {
            w[i] = w[i].max(c.len());
        }
    }
    let line = |cells: &[String]| -> String {
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if i < 3 {
                    format!("{c:<width$}", width = w[i])
                } else {
                    format!("{c:>width$}", width = w[i])
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let _ = writeln!(s, "{}", line(&head.map(String::from)));
    for (row, r) in table.iter().zip(rows) {
        let _ = writeln!(s, "{}", line(row));
        if r.schedule.is_some() && !r.legal {
            for v in &r.violations {
                let _ = writeln!(s, "    {v}");
            }
            if r.violation_count > r.violations.len() {
                let _ = writeln!(
                    s,
                    "    ... {} violations in all (`tmin check` lists them)",
                    r.violation_count
                );
            }
        }
    }
    if rows.iter().any(|r| r.tilings_bound.is_some()) {
        let _ = writeln!(
            s,
            "\n(its tilings' bound: no schedule with the same tilings ends before it; order gap: \
             (makespan - that bound) / makespan, at most what the schedule's order loses)"
        );
    }
    let rank = ranking(rows);
    let _ = writeln!(s, "\nranking (total score; at most {s_max} per instance):");
    for (i, st) in rank.iter().enumerate() {
        let _ = writeln!(
            s,
            "{:>3}. {}  {:.2} over {} schedule{} ({} legal, {} illegal, {} missing){}{}",
            i + 1,
            st.heuristic,
            st.total,
            st.scored,
            if st.scored == 1 { "" } else { "s" },
            st.legal,
            st.illegal,
            st.missing,
            st.mean_gap
                .map(|g| format!(", mean gap {:.2}%", 100.0 * g))
                .unwrap_or_default(),
            st.mean_order_gap
                .map(|g| format!(" (order gap {:.2}%)", 100.0 * g))
                .unwrap_or_default()
        );
    }
    s
}
