//! Certificates of the SAT engine's UNSAT answers (`tmin solve --certify DIR`,
//! checked by `tmin certify-check DIR`; models/sat.md 8).
//!
//! Every UNSAT answer of the search ("no schedule with makespan <= T") raises
//! the lower bound. With a `Certifier`, each one is written as a pair:
//!
//! - `DIR/<name>-T<T>.cnf`: DIMACS, the clause set the incremental solver
//!   answered on: every clause added until the answer (the static encoding and
//!   the lazy cuts) and the probe's assumptions as unit clauses;
//! - `DIR/<name>-T<T>.proof`: varisat's native proof that this clause set is
//!   unsatisfiable, written by a fresh solver that solves it again.
//!
//! The proof comes from a second solve because the search's own solver is
//! incremental: its proof would mix many probes, models and clauses added
//! between them, and checks only against the clauses given before its first
//! solve. The second solve starts from exactly the written CNF, so the pair
//! stands alone: any varisat-checker run (`check`) verifies it without tmin's
//! search. What it certifies is that the CNF is unsatisfiable; that this CNF
//! says "a legal schedule with makespan <= T exists" is the encoding's
//! argument (models/sat.md), which is trusted, not checked.

use std::cell::Cell;
use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

use varisat::checker::{CheckedProofStep, Checker, CheckerData, CheckerError, ProofProcessor};
use varisat::{ExtendFormula, Lit, ProofFormat, Solver};

use crate::certificate::{Certificate, Certifier};

/// Clauses between two looks at the clock while writing or loading a CNF
/// (an `Instant::now()` per 16k clauses: nothing measurable).
const CHECK_EVERY: usize = 1 << 14;

/// The comment line of a certificate's CNF that states what it proves
/// (`check_dir` reports it).
const CLAIM_PREFIX: &str = "c claim: ";

/// Why an UNSAT answer was not certified.
#[derive(Debug)]
pub enum NotCertified {
    /// The deadline (or the portfolio's cancel flag) came first; the partial
    /// files were removed.
    Deadline,
    /// A second solver beside the search's would pass the memory budget.
    Memory { need_mib: u64, budget_mib: u64 },
    /// The files could not be written (the message names the file).
    Io(String),
    /// The fresh solver found the clause set satisfiable: the search's UNSAT
    /// answer was wrong (a solver bug). The bound must not be trusted.
    Satisfiable,
}

impl fmt::Display for NotCertified {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotCertified::Deadline => f.write_str("the time limit came before the proof was done"),
            NotCertified::Memory {
                need_mib,
                budget_mib,
            } => write!(
                f,
                "a second solver for the proof would take the encoding to about {need_mib} MiB, \
                 over the memory budget of {budget_mib} MiB (--memory-limit)"
            ),
            NotCertified::Io(e) => write!(f, "cannot write the certificate: {e}"),
            NotCertified::Satisfiable => f.write_str(
                "a fresh solver found the clause set satisfiable: the UNSAT answer was wrong",
            ),
        }
    }
}

/// The proof sink of the certifying solve: writes to the proof file, and
/// fails once `stop` passed or the cancel flag is set, which is how a varisat
/// search is interrupted (as the search's own sink in encode.rs, which
/// discards the bytes).
struct FileSink {
    out: File,
    stop: Instant,
    cancel: Option<crate::stop::Cancel>,
    /// Set when the sink failed for the deadline (not for the file).
    timed_out: Rc<Cell<bool>>,
}

impl Write for FileSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if Instant::now() >= self.stop
            || self
                .cancel
                .as_ref()
                .is_some_and(crate::stop::Cancel::is_set)
        {
            self.timed_out.set(true);
            return Err(io::Error::other("time limit"));
        }
        self.out.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The clauses of a certificate: `ends` closes each clause of the flat `log`
/// (as the encoder records them), then one unit clause per assumption.
pub(crate) struct Clauses<'a> {
    pub log: &'a [Lit],
    pub ends: &'a [usize],
    pub units: &'a [Lit],
}

impl Clauses<'_> {
    fn count(&self) -> usize {
        self.ends.len() + self.units.len()
    }

    /// Calls `f` on every clause; stops (false) when `f` does.
    fn each(&self, mut f: impl FnMut(usize, &[Lit]) -> bool) -> bool {
        let mut from = 0;
        for (i, &to) in self.ends.iter().enumerate() {
            if !f(i, &self.log[from..to]) {
                return false;
            }
            from = to;
        }
        let n = self.ends.len();
        for (i, u) in self.units.iter().enumerate() {
            if !f(n + i, std::slice::from_ref(u)) {
                return false;
            }
        }
        true
    }

    /// Variables as DIMACS counts them: the largest index used (the parser
    /// checks the header against it exactly).
    fn vars(&self) -> usize {
        let mut n = 0;
        for l in self.log.iter().chain(self.units) {
            n = n.max(l.var().index() + 1);
        }
        n
    }
}

/// Writes `clauses` to `cnf` (DIMACS, `comments` as `c` lines first) and
/// solves them with a fresh varisat solver whose proof goes to `proof`; both
/// stop at `stop` or the cancel flag. Returns the variable and clause counts.
/// On any failure the two files are removed, so a folder holds only complete
/// pairs.
pub(crate) fn certify(
    clauses: &Clauses,
    comments: &[String],
    cnf: &Path,
    proof: &Path,
    stop: Instant,
    cancel: Option<&crate::stop::Cancel>,
) -> Result<(usize, usize), NotCertified> {
    let r = write_and_prove(clauses, comments, cnf, proof, stop, cancel);
    if r.is_err() {
        let _ = fs::remove_file(cnf);
        let _ = fs::remove_file(proof);
    }
    r
}

fn write_and_prove(
    clauses: &Clauses,
    comments: &[String],
    cnf: &Path,
    proof: &Path,
    stop: Instant,
    cancel: Option<&crate::stop::Cancel>,
) -> Result<(usize, usize), NotCertified> {
    let halted = || Instant::now() >= stop || cancel.is_some_and(crate::stop::Cancel::is_set);
    let io_err = |p: &Path, e: io::Error| NotCertified::Io(format!("{}: {e}", p.display()));
    let vars = clauses.vars();
    let n = clauses.count();

    // 1. The CNF.
    let file = File::create(cnf).map_err(|e| io_err(cnf, e))?;
    let mut w = BufWriter::with_capacity(1 << 16, file);
    let mut err: Option<io::Error> = None;
    let mut write_all = |w: &mut BufWriter<File>| -> io::Result<bool> {
        for c in comments {
            writeln!(w, "c {c}")?;
        }
        writeln!(w, "p cnf {vars} {n}")?;
        let mut line = String::new();
        let done = clauses.each(|i, c| {
            if i % CHECK_EVERY == 0 && halted() {
                return false;
            }
            line.clear();
            for l in c {
                line.push_str(&l.to_dimacs().to_string());
                line.push(' ');
            }
            line.push_str("0\n");
            match w.write_all(line.as_bytes()) {
                Ok(()) => true,
                Err(e) => {
                    err = Some(e);
                    false
                }
            }
        });
        w.flush()?;
        Ok(done)
    };
    let done = write_all(&mut w).map_err(|e| io_err(cnf, e))?;
    if let Some(e) = err {
        return Err(io_err(cnf, e));
    }
    if !done {
        return Err(NotCertified::Deadline);
    }
    // Flushed, not synced: an fsync of a large file can block past the
    // deadline, and a certificate is checked from the file anyway.
    drop(w.into_inner().map_err(|e| io_err(cnf, e.into_error()))?);

    // 2. The proof: a fresh solver on exactly these clauses, no assumptions
    //    (they are unit clauses now), its proof written as it searches.
    let out = File::create(proof).map_err(|e| io_err(proof, e))?;
    let timed_out = Rc::new(Cell::new(false));
    let mut solver = Solver::new();
    solver.write_proof(
        FileSink {
            out,
            stop,
            cancel: cancel.cloned(),
            timed_out: timed_out.clone(),
        },
        ProofFormat::Varisat,
    );
    let loaded = clauses.each(|i, c| {
        if i % CHECK_EVERY == 0 && halted() {
            return false;
        }
        solver.add_clause(c);
        true
    });
    if !loaded {
        return Err(NotCertified::Deadline);
    }
    let failed = |e: varisat::solver::SolverError| {
        if timed_out.get() {
            NotCertified::Deadline
        } else {
            io_err(proof, io::Error::other(e.to_string()))
        }
    };
    match solver.solve() {
        Ok(false) => {}
        Ok(true) => return Err(NotCertified::Satisfiable),
        Err(e) => return Err(failed(e)),
    }
    // The end step and the last buffered bytes; without them the checker
    // rejects the proof as incomplete.
    solver.close_proof().map_err(failed)?;
    Ok((vars, n))
}

/// Why a certificate failed its check.
#[derive(Debug)]
pub enum CheckError {
    /// A file is missing or unreadable.
    Io(String),
    /// The CNF is not valid DIMACS (or its header does not match it).
    Cnf(String),
    /// A proof step does not follow, or the proof is truncated or garbled.
    Proof(String),
    /// Every step checks, but the proof never derives the empty clause: it
    /// does not refute the CNF.
    NotRefuted,
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::Io(e) => write!(f, "{e}"),
            CheckError::Cnf(e) => write!(f, "CNF rejected: {e}"),
            CheckError::Proof(e) => write!(f, "proof rejected: {e}"),
            CheckError::NotRefuted => {
                f.write_str("proof rejected: it never derives the empty clause")
            }
        }
    }
}

/// Watches the checked steps for the empty clause: varisat-checker accepts
/// any proof whose steps are valid, refutation or not, so "verified" needs
/// the empty clause among them (derived, or given in the CNF).
struct Refutes(bool);

impl ProofProcessor for Refutes {
    fn process_step(
        &mut self,
        step: &CheckedProofStep,
        _data: CheckerData,
    ) -> Result<(), anyhow::Error> {
        match step {
            CheckedProofStep::AtClause { clause, .. }
            | CheckedProofStep::AddClause { clause, .. }
                if clause.is_empty() =>
            {
                self.0 = true;
            }
            _ => {}
        }
        Ok(())
    }
}

/// Checks that `proof` (varisat's native format) refutes `cnf` (DIMACS), with
/// varisat-checker: `Ok` means the CNF is unsatisfiable.
///
/// varisat-checker 0.2.2 trusts its input's shape: a garbled proof can make
/// it panic (a variable beyond the CNF's; turned into `CheckError::Proof`
/// here) or ask for terabytes (a garbled length), which aborts the process
/// and cannot be caught. `tmin certify-check` therefore checks each pair in
/// a child process under a memory and time limit; call this directly only on
/// files you produced.
pub fn check(cnf: &Path, proof: &Path) -> Result<(), CheckError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_unguarded(cnf, proof)))
        .unwrap_or_else(|p| {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".into());
            Err(CheckError::Proof(format!(
                "the checker failed on it ({msg}): a garbled proof or CNF"
            )))
        })
}

fn check_unguarded(cnf: &Path, proof: &Path) -> Result<(), CheckError> {
    let open = |p: &Path| {
        File::open(p)
            .map(BufReader::new)
            .map_err(|e| CheckError::Io(format!("{}: {e}", p.display())))
    };
    let cnf_in = open(cnf)?;
    let proof_in = open(proof)?;
    let mut refutes = Refutes(false);
    {
        let mut checker = Checker::new();
        checker.add_processor(&mut refutes);
        checker
            .add_dimacs_cnf(cnf_in)
            .map_err(|e| CheckError::Cnf(format!("{}: {e}", cnf.display())))?;
        checker.check_proof(proof_in).map_err(|e| match e {
            CheckerError::IoError { .. } => CheckError::Io(format!("{}: {e}", proof.display())),
            e => CheckError::Proof(e.to_string()),
        })?;
    }
    if refutes.0 {
        Ok(())
    } else {
        Err(CheckError::NotRefuted)
    }
}

/// One certificate pair of a folder and its verdict.
#[derive(Debug)]
pub struct Checked {
    /// The file stem (`<instance>-T<value>`).
    pub name: String,
    pub cnf: PathBuf,
    pub proof: PathBuf,
    /// What the certificate claims (the CNF's `c claim:` line), if stated.
    pub claim: Option<String>,
    pub verdict: Result<(), CheckError>,
}

/// A certificate pair of a folder (either file may be missing).
#[derive(Debug)]
pub struct Pair {
    /// The file stem (`<instance>-T<value>`).
    pub name: String,
    pub cnf: PathBuf,
    pub proof: PathBuf,
    /// What the certificate claims (the CNF's `c claim:` line), if stated.
    pub claim: Option<String>,
}

impl Pair {
    /// The missing file of the pair, if one is.
    pub fn missing(&self) -> Option<CheckError> {
        [&self.cnf, &self.proof]
            .into_iter()
            .find(|p| !p.is_file())
            .map(|p| CheckError::Io(format!("{}: missing", p.display())))
    }
}

/// The certificate pairs of `dir`: each `*.cnf` and `*.proof` stem, in name
/// order.
pub fn pairs(dir: &Path) -> io::Result<Vec<Pair>> {
    let mut stems: Vec<String> = Vec::new();
    for e in fs::read_dir(dir)? {
        let p = e?.path();
        if !p.is_file() {
            continue;
        }
        let ext = p.extension().and_then(|x| x.to_str());
        if matches!(ext, Some("cnf") | Some("proof"))
            && let Some(s) = p.file_stem().and_then(|s| s.to_str())
        {
            stems.push(s.to_string());
        }
    }
    stems.sort();
    stems.dedup();
    Ok(stems
        .into_iter()
        .map(|name| {
            let cnf = dir.join(format!("{name}.cnf"));
            let proof = dir.join(format!("{name}.proof"));
            let claim = read_claim(&cnf);
            Pair {
                name,
                cnf,
                proof,
                claim,
            }
        })
        .collect())
}

/// Checks every certificate of `dir` in this process (`pairs`, then `check`,
/// with its caveat on garbled files): a file of a pair that lacks its
/// partner fails.
pub fn check_dir(dir: &Path) -> io::Result<Vec<Checked>> {
    Ok(pairs(dir)?
        .into_iter()
        .map(|p| {
            let verdict = match p.missing() {
                Some(e) => Err(e),
                None => check(&p.cnf, &p.proof),
            };
            Checked {
                name: p.name,
                cnf: p.cnf,
                proof: p.proof,
                claim: p.claim,
                verdict,
            }
        })
        .collect())
}

/// The `c claim:` line among a CNF's leading comments.
fn read_claim(cnf: &Path) -> Option<String> {
    use std::io::BufRead;
    let f = File::open(cnf).ok()?;
    for line in BufReader::new(f).lines().take(64) {
        let line = line.ok()?;
        if let Some(c) = line.strip_prefix(CLAIM_PREFIX) {
            return Some(c.to_string());
        }
        if !line.starts_with('c') {
            break;
        }
    }
    None
}

/// The comment lines of a certificate's CNF: the instance, the claim (the
/// `c claim:` line `check_dir` reports), and how to check it.
pub(crate) fn comments(instance: &str, claim: &str, proof: &Path) -> Vec<String> {
    vec![
        format!("tmin certificate for instance {instance}"),
        format!("{}{claim}", &CLAIM_PREFIX[2..]),
        format!(
            "unsatisfiable, with the varisat proof {} (check: tmin certify-check DIR)",
            proof
                .file_name()
                .map_or_else(String::new, |f| f.to_string_lossy().into_owned())
        ),
        "trusted, not checked: that this CNF encodes the claim (models/sat.md, What is certified)"
            .into(),
    ]
}

/// What `--certify` achieved for a finished solve.
#[derive(Debug)]
pub struct Conclusion {
    /// The reported lower bound (or the infeasibility) is the claim of a
    /// certificate written.
    pub final_bound_certified: bool,
    pub certificates: Vec<Certificate>,
    /// For the result's notes: which reported claim the certificates
    /// certify, or why nothing was (`NoteKind::Certificate`).
    pub note: crate::solve::Note,
}

/// Compares the certificates written with the result `r`: which reported
/// claim they certify, or why nothing was (a bound from models/bounds.md
/// rather than a SAT answer, a probe that ran out of time).
pub fn conclude(c: &Certifier, r: &crate::solve::SolveResult) -> Conclusion {
    use crate::solve::Status;
    let certificates = c.certificates();
    let files = |x: &Certificate| format!("{} and {}", x.cnf.display(), x.proof.display());
    let by_bound = certificates.iter().filter(|x| x.bound.is_some());
    let pruning = certificates.iter().filter(|x| x.bound.is_none()).count();
    let also = if pruning > 0 {
        format!(
            "; the candidate tilings it is over rest on the {pruning} pruning certificate(s) \
             written too"
        )
    } else {
        String::new()
    };
    let (certified, text) = if r.status == Status::Infeasible {
        // Infeasible either by UNSAT at the horizon, or (pruning only) by an
        // op whose every candidate tiling was proven never schedulable.
        let at_horizon = certificates.iter().find(|x| x.infeasible);
        match at_horizon {
            Some(x) => (
                true,
                format!(
                    "--certify: the infeasibility is certified by {}{also}",
                    files(x)
                ),
            ),
            None if pruning > 0 && by_bound.clone().next().is_none() => (
                true,
                format!(
                    "--certify: the infeasibility rests on the {pruning} pruning certificate(s) \
                     written (tilings never schedulable even alone)"
                ),
            ),
            None => (
                false,
                "--certify: the infeasibility is not certified (it rests on no SAT answer \
                     that was certified)"
                    .to_string(),
            ),
        }
    } else {
        let bound = r.lower_bound;
        let best = by_bound.clone().max_by_key(|x| x.bound);
        match best {
            Some(x) if x.bound >= Some(bound) => (
                true,
                format!(
                    "--certify: the lower bound {bound} is certified by {} ({}){also}",
                    files(x),
                    x.claim
                ),
            ),
            Some(x) => (
                false,
                format!(
                    "--certify: the lower bound {bound} ({}) is not certified; the largest \
                     certified bound is {}",
                    r.bound_source,
                    x.bound.unwrap_or(0)
                ),
            ),
            None if bound == 0 => (
                false,
                "--certify: nothing to certify (lower bound 0)".to_string(),
            ),
            None => (
                false,
                format!(
                    "--certify: nothing certified: the lower bound {bound} ({}) rests on no \
                     SAT answer",
                    r.bound_source
                ),
            ),
        }
    };
    Conclusion {
        final_bound_certified: certified,
        certificates,
        note: crate::solve::Note {
            kind: crate::solve::NoteKind::Certificate { certified },
            text,
        },
    }
}

/// The `certify` object of `tmin solve --json`.
pub fn conclusion_json(dir: &Path, c: &Conclusion) -> serde_json::Value {
    serde_json::json!({
        "dir": dir.display().to_string(),
        "final_bound_certified": c.final_bound_certified,
        "certificates": c.certificates.iter().map(|x| serde_json::json!({
            "claim": x.claim,
            "bound": x.bound,
            "infeasible": x.infeasible,
            "cnf": x.cnf.display().to_string(),
            "proof": x.proof.display().to_string(),
            "vars": x.vars,
            "clauses": x.clauses,
            "seconds": x.seconds,
        })).collect::<Vec<_>>(),
    })
}
