//! What every command shares: failures and their exit codes, reading inputs,
//! writing outputs with every error handled, the time limit.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use tmin::error::InputError;
use tmin::instance::{self, Instance};

pub(crate) enum Failure {
    Input(InputError),
    Usage(String),
    Internal(String),
    /// Writing the result failed (exit 74).
    Output(String),
}

impl From<InputError> for Failure {
    fn from(e: InputError) -> Self {
        Failure::Input(e)
    }
}

pub(crate) fn read_instance(path: &Path) -> Result<Instance, Failure> {
    let inst = instance::parse_file(path)?;
    for w in &inst.warnings {
        log::warn!("{w}");
    }
    Ok(inst)
}

pub(crate) fn open_input(path: &Path) -> Result<(Box<dyn std::io::Read>, String), Failure> {
    let name = path.display().to_string();
    if name == "-" {
        return Ok((Box::new(std::io::stdin().lock()), "<stdin>".to_string()));
    }
    let f = tmin::error::open_file(path)?;
    Ok((Box::new(f), name))
}

pub(crate) fn create_output(path: Option<&Path>) -> Result<Box<dyn Write>, Failure> {
    match path {
        None => Ok(Box::new(std::io::BufWriter::new(std::io::stdout().lock()))),
        Some(p) => {
            let f = std::fs::File::create(p)
                .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", p.display())))?;
            Ok(Box::new(std::io::BufWriter::with_capacity(1 << 20, f)))
        }
    }
}

pub(crate) fn io_failure(e: std::io::Error) -> Failure {
    Failure::Output(e.to_string())
}

/// Writes `text` to stdout and flushes it.
pub(crate) fn print_out(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(io_failure)
}

/// Writes `text` to stderr (the summary when the schedule goes to stdout).
pub(crate) fn print_err(text: &str) -> Result<(), Failure> {
    let mut err = std::io::stderr().lock();
    err.write_all(text.as_bytes())
        .and_then(|_| err.flush())
        .map_err(io_failure)
}

/// The time limit as a Duration (`stop::time_limit`): above ten years it
/// is ten years, i.e. no limit.
pub(crate) fn time_limit(secs: f64) -> Result<Duration, Failure> {
    tmin::stop::time_limit(secs).ok_or_else(|| {
        Failure::Usage(format!(
            "--time-limit expects a non-negative number of seconds, got {secs}"
        ))
    })
}
