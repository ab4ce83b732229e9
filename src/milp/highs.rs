//! A small MILP container and its hand-over to HiGHS through `highs-sys`.
//!
//! good_lp's HiGHS backend cannot read the MIP dual bound after a time limit nor
//! write the model to a file, and builds every row through a hash map; the
//! models here are built as sparse rows and passed to HiGHS in one call
//! (`Highs_passMip`, row-wise). Options, the MIP start (`Highs_setSolution`),
//! the dual bound (`mip_dual_bound`) and the export (`Highs_writeModel`) use the
//! C API directly.

use std::ffi::{CString, c_void};
use std::path::Path;

use highs_sys as hs;

/// A column index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Col(pub u32);

/// A linear expression: terms and a constant.
#[derive(Clone, Debug, Default)]
pub struct Expr {
    pub terms: Vec<(Col, f64)>,
    pub constant: f64,
}

impl Expr {
    pub fn constant(c: f64) -> Self {
        Expr {
            terms: Vec::new(),
            constant: c,
        }
    }
    pub fn var(c: Col) -> Self {
        Expr {
            terms: vec![(c, 1.0)],
            constant: 0.0,
        }
    }
    pub fn add(&mut self, c: Col, coef: f64) -> &mut Self {
        self.terms.push((c, coef));
        self
    }
    pub fn add_const(&mut self, k: f64) -> &mut Self {
        self.constant += k;
        self
    }
    /// `self += k * other`.
    pub fn add_expr(&mut self, other: &Expr, k: f64) -> &mut Self {
        self.terms
            .extend(other.terms.iter().map(|&(c, a)| (c, a * k)));
        self.constant += other.constant * k;
        self
    }
}

/// A minimisation MILP as sparse rows.
#[derive(Clone, Debug, Default)]
pub struct Milp {
    pub col_lower: Vec<f64>,
    pub col_upper: Vec<f64>,
    pub col_cost: Vec<f64>,
    pub integer: Vec<bool>,
    pub row_lower: Vec<f64>,
    pub row_upper: Vec<f64>,
    pub row_start: Vec<usize>,
    pub row_index: Vec<u32>,
    pub row_value: Vec<f64>,
    /// Set when a row without columns cannot hold: the model is infeasible.
    pub infeasible: bool,
    /// Names are kept only when the model is to be exported.
    pub keep_names: bool,
    pub col_names: Vec<String>,
    pub row_names: Vec<String>,
    scratch: Vec<(Col, f64)>,
}

impl Milp {
    pub fn new(keep_names: bool) -> Self {
        Milp {
            keep_names,
            row_start: vec![0],
            ..Default::default()
        }
    }
    pub fn n_cols(&self) -> usize {
        self.col_lower.len()
    }
    pub fn n_rows(&self) -> usize {
        self.row_lower.len()
    }
    pub fn n_integer(&self) -> usize {
        self.integer.iter().filter(|&&b| b).count()
    }
    pub fn n_nonzeros(&self) -> usize {
        self.row_value.len()
    }

    /// Adds a column; `name` is called only when names are kept.
    pub fn col(
        &mut self,
        lower: f64,
        upper: f64,
        integer: bool,
        name: impl FnOnce() -> String,
    ) -> Col {
        let c = Col(self.col_lower.len() as u32);
        self.col_lower.push(lower);
        self.col_upper.push(upper);
        self.col_cost.push(0.0);
        self.integer.push(integer);
        if self.keep_names {
            self.col_names.push(name());
        }
        c
    }
    pub fn binary(&mut self, name: impl FnOnce() -> String) -> Col {
        self.col(0.0, 1.0, true, name)
    }
    pub fn set_cost(&mut self, c: Col, cost: f64) {
        self.col_cost[c.0 as usize] = cost;
    }

    /// Adds `lower <= expr <= upper` (the expression's constant moves to the
    /// bounds; repeated columns are summed). A row without terms is checked
    /// instead: when it cannot hold, the model is marked infeasible.
    pub fn row(
        &mut self,
        lower: f64,
        expr: &Expr,
        upper: f64,
        name: impl FnOnce() -> String,
    ) -> bool {
        let lo = lower - expr.constant;
        let hi = upper - expr.constant;
        self.scratch.clear();
        self.scratch.extend_from_slice(&expr.terms);
        self.scratch.sort_unstable_by_key(|t| t.0);
        let mut merged: Vec<(Col, f64)> = Vec::with_capacity(self.scratch.len());
        for &(c, a) in &self.scratch {
            match merged.last_mut() {
                Some(last) if last.0 == c => last.1 += a,
                _ => merged.push((c, a)),
            }
        }
        merged.retain(|t| t.1 != 0.0);
        if merged.is_empty() {
            let ok = lo <= 1e-12 * lo.abs().max(1.0) && hi >= -1e-12 * hi.abs().max(1.0);
            self.infeasible |= !ok;
            return ok;
        }
        for (c, a) in merged {
            self.row_index.push(c.0);
            self.row_value.push(a);
        }
        self.row_start.push(self.row_index.len());
        self.row_lower.push(lo);
        self.row_upper.push(hi);
        if self.keep_names {
            self.row_names.push(name());
        }
        true
    }
    /// `expr >= rhs`.
    pub fn ge(&mut self, expr: &Expr, rhs: f64, name: impl FnOnce() -> String) -> bool {
        self.row(rhs, expr, f64::INFINITY, name)
    }
    /// `expr <= rhs`.
    pub fn le(&mut self, expr: &Expr, rhs: f64, name: impl FnOnce() -> String) -> bool {
        self.row(f64::NEG_INFINITY, expr, rhs, name)
    }
    /// `expr == rhs`.
    pub fn eq(&mut self, expr: &Expr, rhs: f64, name: impl FnOnce() -> String) -> bool {
        self.row(rhs, expr, rhs, name)
    }

    /// Largest violation of a bound or row by `x` (integrality included).
    pub fn violation(&self, x: &[f64]) -> f64 {
        let mut worst: f64 = 0.0;
        for (j, &v) in x.iter().enumerate() {
            worst = worst.max(self.col_lower[j] - v).max(v - self.col_upper[j]);
            if self.integer[j] {
                worst = worst.max((v - v.round()).abs());
            }
        }
        for r in 0..self.n_rows() {
            let a = self.row_start[r];
            let b = self.row_start[r + 1];
            let act: f64 = (a..b)
                .map(|k| self.row_value[k] * x[self.row_index[k] as usize])
                .sum();
            worst = worst
                .max(self.row_lower[r] - act)
                .max(act - self.row_upper[r]);
        }
        worst
    }
}

/// How a HiGHS run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunStatus {
    Optimal,
    Infeasible,
    /// Time limit or another limit: the solution (if any) and the dual bound hold.
    Limit,
    /// Anything else (solver error, unknown): nothing is concluded.
    Error(i32),
}

/// What a run returns.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub status: RunStatus,
    /// Column values of the best solution found, if any.
    pub values: Option<Vec<f64>>,
    /// HiGHS's MIP dual bound, when finite.
    pub dual_bound: Option<f64>,
    pub seconds: f64,
}

/// Solver parameters.
#[derive(Clone, Debug)]
pub struct Params {
    pub time_limit: f64,
    pub threads: usize,
    pub seed: u64,
    /// Stop once primal - dual < this (objective units).
    pub abs_gap: f64,
    /// Abandon the run when this is set (another engine finished the job).
    pub cancel: Option<crate::stop::Cancel>,
}

struct Handle(*mut c_void);

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: the pointer came from Highs_create and is destroyed once.
        unsafe { hs::Highs_destroy(self.0) }
    }
}

fn cstr(s: &str) -> CString {
    CString::new(s.replace('\0', "")).expect("no interior NUL")
}

impl Handle {
    fn set_bool(&self, k: &str, v: bool) -> Result<(), String> {
        let key = cstr(k);
        // SAFETY: valid handle and NUL-terminated key.
        let st = unsafe { hs::Highs_setBoolOptionValue(self.0, key.as_ptr(), v as hs::HighsInt) };
        check(st, k)
    }
    fn set_int(&self, k: &str, v: i64) -> Result<(), String> {
        let key = cstr(k);
        let v = hs::HighsInt::try_from(v).unwrap_or(hs::HighsInt::MAX);
        // SAFETY: as above.
        let st = unsafe { hs::Highs_setIntOptionValue(self.0, key.as_ptr(), v) };
        check(st, k)
    }
    fn set_double(&self, k: &str, v: f64) -> Result<(), String> {
        let key = cstr(k);
        // SAFETY: as above.
        let st = unsafe { hs::Highs_setDoubleOptionValue(self.0, key.as_ptr(), v) };
        check(st, k)
    }
    fn set_string(&self, k: &str, v: &str) -> Result<(), String> {
        let key = cstr(k);
        let val = cstr(v);
        // SAFETY: as above.
        let st = unsafe { hs::Highs_setStringOptionValue(self.0, key.as_ptr(), val.as_ptr()) };
        check(st, k)
    }
    fn double_info(&self, k: &str) -> Option<f64> {
        let key = cstr(k);
        let mut v = f64::NAN;
        // SAFETY: valid handle, key and out-pointer.
        let st = unsafe { hs::Highs_getDoubleInfoValue(self.0, key.as_ptr(), &mut v) };
        (st == hs::STATUS_OK).then_some(v)
    }
    fn int_info(&self, k: &str) -> Option<i64> {
        let key = cstr(k);
        let mut v: hs::HighsInt = 0;
        // SAFETY: valid handle, key and out-pointer.
        let st = unsafe { hs::Highs_getIntInfoValue(self.0, key.as_ptr(), &mut v) };
        (st == hs::STATUS_OK).then_some(i64::from(v))
    }
}

fn check(st: hs::HighsInt, what: &str) -> Result<(), String> {
    if st == hs::STATUS_ERROR {
        Err(format!("HiGHS rejected {what}"))
    } else {
        Ok(())
    }
}

fn int(n: usize, what: &str) -> Result<hs::HighsInt, String> {
    hs::HighsInt::try_from(n).map_err(|_| format!("{what} too large for HiGHS ({n})"))
}

fn load(m: &Milp) -> Result<Handle, String> {
    // SAFETY: Highs_create returns a fresh instance (never null in practice).
    let h = Handle(unsafe { hs::Highs_create() });
    if h.0.is_null() {
        return Err("HiGHS could not be created".into());
    }
    // TMIN_HIGHS_LOG=1 shows HiGHS's own log (on stdout), for debugging.
    let verbose = std::env::var_os("TMIN_HIGHS_LOG").is_some();
    h.set_bool("output_flag", verbose)?;
    h.set_bool("log_to_console", verbose)?;
    let starts: Vec<hs::HighsInt> = m.row_start[..m.n_rows()]
        .iter()
        .map(|&s| int(s, "nonzeros"))
        .collect::<Result<_, _>>()?;
    let index: Vec<hs::HighsInt> = m.row_index.iter().map(|&c| c as hs::HighsInt).collect();
    let integrality: Vec<hs::HighsInt> = m
        .integer
        .iter()
        .map(|&b| {
            if b {
                hs::VAR_TYPE_INTEGER
            } else {
                hs::VAR_TYPE_CONTINUOUS
            }
        })
        .collect();
    // SAFETY: every array has the length HiGHS is told; they outlive the call
    // (HiGHS copies them).
    let st = unsafe {
        hs::Highs_passMip(
            h.0,
            int(m.n_cols(), "columns")?,
            int(m.n_rows(), "rows")?,
            int(m.n_nonzeros(), "nonzeros")?,
            hs::MATRIX_FORMAT_ROW_WISE,
            hs::OBJECTIVE_SENSE_MINIMIZE,
            0.0,
            m.col_cost.as_ptr(),
            m.col_lower.as_ptr(),
            m.col_upper.as_ptr(),
            m.row_lower.as_ptr(),
            m.row_upper.as_ptr(),
            starts.as_ptr(),
            index.as_ptr(),
            m.row_value.as_ptr(),
            integrality.as_ptr(),
        )
    };
    check(st, "the model (Highs_passMip)")?;
    if m.keep_names {
        for (j, n) in m.col_names.iter().enumerate() {
            let c = cstr(n);
            // SAFETY: valid handle, index in range, NUL-terminated name.
            unsafe { hs::Highs_passColName(h.0, j as hs::HighsInt, c.as_ptr()) };
        }
        for (r, n) in m.row_names.iter().enumerate() {
            let c = cstr(n);
            // SAFETY: as above.
            unsafe { hs::Highs_passRowName(h.0, r as hs::HighsInt, c.as_ptr()) };
        }
    }
    Ok(h)
}

/// Writes the model to `path`; HiGHS picks the format from the extension
/// (`.lp` or `.mps`).
///
/// HiGHS is handed a file just created here (a fresh name beside `path`,
/// with its extension, which picks the format): given a path it cannot
/// open (a directory, say) it crashes the process. The file is renamed to
/// `path` once written, so a failed write leaves no partial model.
pub fn write_model(m: &Milp, path: &Path) -> Result<(), String> {
    let h = load(m)?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = path.with_file_name(format!(".partial-{}-{name}", std::process::id()));
    let fail = |what: &str, e: std::io::Error| format!("{what} {}: {e}", path.display());
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        // A rename would replace it (a folder, a device node).
        return Err(format!(
            "cannot write {}: not a regular file",
            path.display()
        ));
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(|e| fail("cannot create", e))?;
    let p = cstr(&tmp.to_string_lossy());
    // SAFETY: valid handle and NUL-terminated name of a file that exists
    // and is writable.
    let st = unsafe { hs::Highs_writeModel(h.0, p.as_ptr()) };
    let written = check(st, &format!("writing {}", path.display())).and_then(|()| {
        match std::fs::metadata(&tmp) {
            Ok(md) if md.len() > 0 => Ok(()),
            Ok(_) => Err(format!("writing {}: nothing was written", path.display())),
            Err(e) => Err(fail("cannot write", e)),
        }
    });
    let renamed =
        written.and_then(|()| std::fs::rename(&tmp, path).map_err(|e| fail("cannot write", e)));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    renamed
}

/// Solves `m`, optionally from a start (a full column vector; HiGHS completes
/// or repairs it by fixing its integer values and solving an LP when it is not
/// feasible as given).
pub fn run(m: &Milp, start: Option<&[f64]>, params: &Params) -> Result<RunResult, String> {
    let t0 = std::time::Instant::now();
    if m.infeasible {
        // A row without columns that cannot hold (e.g. a refuted
        // combination of single candidates): HiGHS never sees it.
        return Ok(RunResult {
            status: RunStatus::Infeasible,
            values: None,
            dual_bound: None,
            seconds: 0.0,
        });
    }
    let h = load(m)?;
    h.set_int("threads", params.threads.max(1) as i64)?;
    if params.threads <= 1 {
        h.set_string("parallel", "off")?;
    }
    h.set_double("time_limit", params.time_limit.max(0.0))?;
    h.set_double("mip_rel_gap", 0.0)?;
    h.set_double("mip_abs_gap", params.abs_gap)?;
    h.set_int("random_seed", (params.seed % 2_147_483_647) as i64)?;
    // TMIN_HIGHS_OPTIONS="name=value;..." passes HiGHS options through (for
    // experiments; unknown names or values are reported and skipped).
    if let Ok(extra) = std::env::var("TMIN_HIGHS_OPTIONS") {
        for kv in extra.split(';').filter(|s| !s.trim().is_empty()) {
            let Some((k, v)) = kv.split_once('=') else {
                log::warn!("TMIN_HIGHS_OPTIONS: '{kv}' is not name=value");
                continue;
            };
            let (k, v) = (k.trim(), v.trim());
            let ok = if let Ok(i) = v.parse::<i64>() {
                h.set_int(k, i).or_else(|_| h.set_double(k, i as f64))
            } else if let Ok(f) = v.parse::<f64>() {
                h.set_double(k, f)
            } else if let Ok(b) = v.parse::<bool>() {
                h.set_bool(k, b)
            } else {
                h.set_string(k, v)
            };
            if let Err(e) = ok {
                log::warn!("TMIN_HIGHS_OPTIONS: {e}");
            }
        }
    }
    if let Some(x) = start {
        if x.len() != m.n_cols() {
            return Err("start of the wrong length".into());
        }
        // SAFETY: `x` has one value per column; null pointers for the rest.
        let st = unsafe {
            hs::Highs_setSolution(
                h.0,
                x.as_ptr(),
                std::ptr::null(),
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        if st == hs::STATUS_ERROR {
            log::warn!("HiGHS refused the MIP start");
        }
    }
    // SAFETY: valid handle.
    let st = unsafe { hs::Highs_run(h.0) };
    // SAFETY: valid handle.
    let ms = unsafe { hs::Highs_getModelStatus(h.0) };
    let status = if st == hs::STATUS_ERROR {
        RunStatus::Error(ms)
    } else {
        match ms {
            hs::MODEL_STATUS_OPTIMAL => RunStatus::Optimal,
            hs::MODEL_STATUS_INFEASIBLE => RunStatus::Infeasible,
            hs::MODEL_STATUS_REACHED_TIME_LIMIT
            | hs::MODEL_STATUS_REACHED_ITERATION_LIMIT
            | hs::MODEL_STATUS_REACHED_SOLUTION_LIMIT
            | hs::MODEL_STATUS_REACHED_INTERRUPT
            | hs::MODEL_STATUS_REACHED_MEMORY_LIMIT
            | hs::MODEL_STATUS_OBJECTIVE_BOUND
            | hs::MODEL_STATUS_OBJECTIVE_TARGET => RunStatus::Limit,
            other => RunStatus::Error(other),
        }
    };
    let has_solution = h.int_info("primal_solution_status") == Some(2);
    let values = if has_solution {
        let mut x = vec![0.0; m.n_cols()];
        // SAFETY: `x` has one slot per column; the other outputs are not requested.
        let st = unsafe {
            hs::Highs_getSolution(
                h.0,
                x.as_mut_ptr(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        (st != hs::STATUS_ERROR).then_some(x)
    } else {
        None
    };
    let dual_bound = h.double_info("mip_dual_bound").filter(|d| d.is_finite());
    Ok(RunResult {
        status,
        values,
        dual_bound,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// How long past its time limit a run may go before it is abandoned.
pub const GRACE: f64 = 1.0;

/// When a run started now with `params` is past its limit and `GRACE`.
/// Never panics: a limit too large for a Duration (or NaN) waits "forever".
fn grace_end(params: &Params) -> std::time::Instant {
    let wait = std::time::Duration::try_from_secs_f64(params.time_limit.max(0.0) + GRACE)
        .unwrap_or(std::time::Duration::MAX);
    crate::stop::instant_after(std::time::Instant::now(), wait)
}

/// `run` on its own thread, abandoned (`Ok(None)`) at the caller's
/// `deadline`, `GRACE` past its own limit where that comes first (a run may
/// overrun a budget shorter than the deadline by `GRACE`, never the
/// deadline), or when `params.cancel` is set: some HiGHS steps (the root
/// mod-k cut separator, seen taking 60 s on a 10 000-row model; presolve on
/// the largest models) do not check the clock. An abandoned run keeps its
/// thread until HiGHS returns (the process may exit before); the caller
/// should start no further run.
pub fn run_watched(
    m: &Milp,
    start: Option<Vec<f64>>,
    params: &Params,
    deadline: std::time::Instant,
) -> Result<Option<RunResult>, String> {
    let until = deadline.min(grace_end(params));
    let (tx, rx) = std::sync::mpsc::channel();
    let model = m.clone();
    let p = params.clone();
    std::thread::Builder::new()
        .name("highs".into())
        .spawn(move || {
            let r = run(&model, start.as_deref(), &p);
            let _ = tx.send(r);
        })
        .map_err(|e| format!("cannot start a HiGHS thread: {e}"))?;
    // Poll so that a cancel flag is seen within 50 ms.
    loop {
        let now = std::time::Instant::now();
        if now >= until {
            return Ok(None);
        }
        match rx.recv_timeout((until - now).min(std::time::Duration::from_millis(50))) {
            Ok(r) => return r.map(Some),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                let cancelled = params
                    .cancel
                    .as_ref()
                    .is_some_and(crate::stop::Cancel::is_set);
                if cancelled {
                    return Ok(None);
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err("the HiGHS thread ended without a result".into());
            }
        }
    }
}
