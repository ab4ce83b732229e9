//! Converters from other scheduling formats into the instance text format.
//!
//! Job shop (OR-Library format): `#` comment lines, then `jobs machines`, then one
//! line per job of `machine duration` pairs. Each machine becomes a core type with
//! one core, each job an op with a single tiling whose subgraph is the job's chain,
//! no memory and no op edges: a job-shop schedule and a schedule of the converted
//! instance are the same thing, so job-shop optima are exact reference values.

use std::fmt::Write as _;
use std::io::Read;

use crate::error::{InputError, InputResult, Pos};

/// A job-shop instance: `jobs[j]` is the list of `(machine, duration)` operations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobShop {
    pub machines: u32,
    pub jobs: Vec<Vec<(u32, u64)>>,
}

/// Reads the OR-Library job-shop format.
pub fn read_jsp<R: Read>(mut src: R, name: &str) -> InputResult<JobShop> {
    let mut bytes = Vec::new();
    src.read_to_end(&mut bytes)
        .map_err(|e| InputError::new(name, Pos::default(), format!("read error: {e}")))?;
    // Non-UTF-8 bytes become U+FFFD, so a garbled file fails on the token that
    // holds them, with its line and column, instead of as a whole-file read error.
    let text = String::from_utf8_lossy(&bytes);
    // Tokens with positions, skipping comment lines.
    let mut tokens: Vec<(&str, Pos)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        let mut col = 1u32;
        for part in line.split_inclusive(char::is_whitespace) {
            let tok = part.trim_end();
            if !tok.is_empty() {
                tokens.push((
                    tok,
                    Pos {
                        line: i as u32 + 1,
                        col,
                    },
                ));
            }
            col += part.chars().count() as u32;
        }
    }
    let end = Pos {
        line: text.lines().count() as u32 + 1,
        col: 1,
    };
    let n_tokens = tokens.len() as u64;
    let mut it = tokens.into_iter();
    let mut next = |what: &str| -> InputResult<(u64, Pos)> {
        match it.next() {
            None => Err(InputError::new(
                name,
                end,
                format!("unexpected end of input: expected {what}"),
            )),
            Some((tok, pos)) => tok.parse::<u64>().map(|v| (v, pos)).map_err(|_| {
                InputError::new(
                    name,
                    pos,
                    format!("expected {what} (an unsigned integer), found '{tok}'"),
                )
            }),
        }
    };
    // Every error below carries the position of the offending token: without it
    // `tmin import` printed `file: message` with no line to look at.
    let (n_jobs, jobs_pos) = next("the number of jobs")?;
    let (n_machines, machines_pos) = next("the number of machines")?;
    if n_jobs > 1_000_000 || n_machines > 254 {
        return Err(InputError::new(
            name,
            if n_jobs > 1_000_000 {
                jobs_pos
            } else {
                machines_pos
            },
            format!(
                "{n_jobs} jobs x {n_machines} machines is beyond what tmin supports (10^6 jobs, 254 machines)"
            ),
        ));
    }
    // Capacity from what the file holds, not from what its header declares
    // (a two-number file "1000000 254" reserved 24 MB before failing).
    let tokens_left = n_tokens.saturating_sub(2);
    let mut jobs = Vec::with_capacity(n_jobs.min(tokens_left / 2 / n_machines.max(1)) as usize);
    for j in 0..n_jobs {
        let mut ops = Vec::with_capacity(n_machines.min(tokens_left / 2) as usize);
        for k in 0..n_machines {
            let (m, m_pos) = next(&format!("the machine of operation {k} of job {j}"))?;
            if m >= n_machines {
                return Err(InputError::new(
                    name,
                    m_pos,
                    format!(
                        "job {j} operation {k} names machine {m}; machines are 0..{}",
                        n_machines - 1
                    ),
                ));
            }
            let (d, _) = next(&format!("the duration of operation {k} of job {j}"))?;
            ops.push((m as u32, d));
        }
        jobs.push(ops);
    }
    // Leftover tokens mean the header and the job lines disagree (a job line with
    // too many pairs, or more job lines than announced): silently dropping them
    // would import a different instance than the file describes.
    if let Some((tok, pos)) = it.next() {
        return Err(InputError::new(
            name,
            pos,
            format!(
                "expected end of input after {n_jobs} jobs of {n_machines} operations, found '{tok}'"
            ),
        ));
    }
    Ok(JobShop {
        machines: n_machines as u32,
        jobs,
    })
}

impl JobShop {
    /// The instance text: machine `m` is core type `m` (one core); job `j` is op
    /// `j + 1` of type `j + 1`, shape 1, tiling 0, nodes `1..=machines` in a chain.
    pub fn to_instance_text(&self) -> String {
        let mut s = String::new();
        s.push_str("SetSocInfo([");
        for m in 0..self.machines {
            if m > 0 {
                s.push(',');
            }
            let _ = write!(s, "[{m},1]");
        }
        s.push_str("],[])\n");
        for (j, ops) in self.jobs.iter().enumerate() {
            let _ = write!(s, "AddOpInfo({},1,0,[", j + 1);
            for k in 1..ops.len() {
                if k > 1 {
                    s.push(',');
                }
                let _ = write!(s, "[{k},{}]", k + 1);
            }
            s.push_str("],[");
            for (k, &(m, d)) in ops.iter().enumerate() {
                if k > 0 {
                    s.push(',');
                }
                let _ = write!(s, "[{},{m},{d}]", k + 1);
            }
            s.push_str("],[])\n");
        }
        s.push_str("GetInferenceScheResult([],[");
        for j in 0..self.jobs.len() {
            if j > 0 {
                s.push(',');
            }
            let _ = write!(s, "[{},{},1]", j + 1, j + 1);
        }
        s.push_str("])\n");
        s
    }
}
