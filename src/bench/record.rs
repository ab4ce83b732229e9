//! One line of results.jsonl: a finished instance, its settings and its result.

use serde_json::{Map, Value, json};

use crate::report::num;

/// A finished instance. The keys are those of `tmin solve --json` where both
/// have them; `engine` is the `--engine` asked for (`engine_used` says which
/// engines ran), `schedule` the schedule file relative to the folder and
/// `schedule_hash` the SHA-256 of its bytes (a file that does not match is
/// never trusted).
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub instance: String,
    pub name: String,
    pub hash: String,
    pub format: String,
    pub ops: Option<u64>,
    pub nodes_min: Option<u64>,
    pub nodes_max: Option<u64>,
    pub engine: String,
    pub engine_used: String,
    pub time_limit: f64,
    pub seed: u64,
    pub threads: u64,
    pub status: String,
    pub makespan: Option<u128>,
    pub lower_bound: u64,
    pub bound_source: String,
    pub gap: Option<f64>,
    pub t_max: Option<u128>,
    pub wall_seconds: f64,
    pub total_seconds: f64,
    pub version: String,
    pub schedule: Option<String>,
    pub schedule_hash: Option<String>,
    /// Merged folders: the runs this line was built from.
    pub merged_from: Vec<String>,
    /// Merged folders: where runs contradict each other.
    pub disagreement: Option<String>,
}

/// The statuses a line may carry.
pub(super) const STATUSES: [&str; 4] = ["optimal", "feasible", "infeasible", "unknown"];

impl Record {
    /// The identity of the instance (content and format).
    pub fn key(&self) -> (String, String) {
        (self.hash.clone(), self.format.clone())
    }

    /// Proven: optimal, or proven infeasible.
    pub fn proven(&self) -> bool {
        self.status == "optimal" || self.status == "infeasible"
    }

    /// Whether the settings are those given (the time limit up to rounding
    /// through JSON).
    pub fn same_settings(&self, engine: &str, time_limit: f64, seed: u64, threads: u64) -> bool {
        self.engine == engine
            && (self.time_limit - time_limit).abs() <= 1e-9 * time_limit.abs().max(1.0)
            && self.seed == seed
            && self.threads == threads
    }

    pub fn settings_text(&self) -> String {
        settings_text(&self.engine, self.time_limit, self.seed, self.threads)
    }

    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "instance": self.instance,
            "name": self.name,
            "hash": self.hash,
            "format": self.format,
            "ops": self.ops,
            "nodes_min": self.nodes_min,
            "nodes_max": self.nodes_max,
            "engine": self.engine,
            "engine_used": self.engine_used,
            "time_limit": self.time_limit,
            "seed": self.seed,
            "threads": self.threads,
            "status": self.status,
            "makespan": self.makespan.map(num),
            "lower_bound": self.lower_bound,
            "bound_source": self.bound_source,
            "gap": self.gap,
            "t_max": self.t_max.map(num),
            "wall_seconds": self.wall_seconds,
            "total_seconds": self.total_seconds,
            "version": self.version,
            "schedule": self.schedule,
            "schedule_hash": self.schedule_hash,
        });
        if !self.merged_from.is_empty() {
            v["merged_from"] = json!(self.merged_from);
        }
        if let Some(d) = &self.disagreement {
            v["disagreement"] = json!(d);
        }
        v
    }

    /// Reads a line back; anything missing, mistyped or inconsistent is an
    /// error (the line is then redone, never trusted).
    pub fn from_json(v: &Value) -> Result<Record, String> {
        let o = v.as_object().ok_or("not a JSON object")?;
        let r = Record {
            instance: string(o, "instance")?,
            name: string(o, "name")?,
            hash: string(o, "hash")?,
            format: string(o, "format")?,
            ops: opt_u64(o, "ops")?,
            nodes_min: opt_u64(o, "nodes_min")?,
            nodes_max: opt_u64(o, "nodes_max")?,
            engine: string(o, "engine")?,
            engine_used: string(o, "engine_used")?,
            time_limit: float(o, "time_limit")?,
            seed: req(opt_u64(o, "seed")?, "seed")?,
            threads: req(opt_u64(o, "threads")?, "threads")?,
            status: string(o, "status")?,
            makespan: opt_u128(o, "makespan")?,
            lower_bound: req(opt_u64(o, "lower_bound")?, "lower_bound")?,
            bound_source: string(o, "bound_source")?,
            gap: match o.get("gap") {
                Some(Value::Null) => None,
                Some(x) => Some(x.as_f64().ok_or("gap: not a number")?),
                None => return Err("gap: missing".into()),
            },
            t_max: opt_u128(o, "t_max")?,
            wall_seconds: float(o, "wall_seconds")?,
            total_seconds: float(o, "total_seconds")?,
            version: string(o, "version")?,
            schedule: opt_string(o, "schedule")?,
            schedule_hash: opt_string(o, "schedule_hash")?,
            merged_from: match o.get("merged_from") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|x| {
                        x.as_str()
                            .map(str::to_string)
                            .ok_or("merged_from: not strings")
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err("merged_from: not a list".into()),
            },
            disagreement: opt_string(o, "disagreement")?,
        };
        r.consistent()?;
        Ok(r)
    }

    /// The claims of a line agree with each other.
    fn consistent(&self) -> Result<(), String> {
        if !STATUSES.contains(&self.status.as_str()) {
            return Err(format!("unknown status '{}'", self.status));
        }
        if self.hash.len() != 64 || !self.hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err("hash: not a SHA-256 in hex".into());
        }
        let has_schedule = matches!(self.status.as_str(), "optimal" | "feasible");
        if has_schedule != self.makespan.is_some()
            || has_schedule != self.schedule.is_some()
            || self.schedule.is_some() != self.schedule_hash.is_some()
        {
            return Err(format!(
                "status {} with makespan {:?} and schedule {:?}",
                self.status, self.makespan, self.schedule
            ));
        }
        if let Some(m) = self.makespan {
            let lb = u128::from(self.lower_bound);
            if lb > m || (lb == m) != (self.status == "optimal") {
                return Err(format!(
                    "status {} with makespan {m} and lower bound {}",
                    self.status, self.lower_bound
                ));
            }
        }
        if let Some(s) = &self.schedule
            && (s.contains("..") || s.starts_with('/'))
        {
            return Err(format!("schedule path '{s}' outside the folder"));
        }
        Ok(())
    }
}

pub(super) fn settings_text(engine: &str, time_limit: f64, seed: u64, threads: u64) -> String {
    format!("engine {engine}, time limit {time_limit} s, seed {seed}, threads {threads}")
}

fn string(o: &Map<String, Value>, k: &str) -> Result<String, String> {
    o.get(k)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("{k}: missing or not a string"))
}

fn opt_string(o: &Map<String, Value>, k: &str) -> Result<Option<String>, String> {
    match o.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("{k}: not a string")),
    }
}

fn float(o: &Map<String, Value>, k: &str) -> Result<f64, String> {
    o.get(k)
        .and_then(Value::as_f64)
        .ok_or_else(|| format!("{k}: missing or not a number"))
}

fn req<T>(x: Option<T>, k: &str) -> Result<T, String> {
    x.ok_or_else(|| format!("{k}: missing"))
}

fn opt_u64(o: &Map<String, Value>, k: &str) -> Result<Option<u64>, String> {
    match o.get(k) {
        None => Err(format!("{k}: missing")),
        Some(Value::Null) => Ok(None),
        Some(x) => x
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("{k}: not an unsigned integer")),
    }
}

/// A time: a number, or a string of digits beyond u64 (`report::num`).
fn opt_u128(o: &Map<String, Value>, k: &str) -> Result<Option<u128>, String> {
    match o.get(k) {
        None => Err(format!("{k}: missing")),
        Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => s
            .parse::<u128>()
            .map(Some)
            .map_err(|_| format!("{k}: not a number")),
        Some(x) => x
            .as_u64()
            .map(|v| Some(u128::from(v)))
            .ok_or_else(|| format!("{k}: not an unsigned integer")),
    }
}
