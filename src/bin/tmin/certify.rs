//! `tmin certify-check`: each certificate pair checked in a child process
//! within time and memory limits.

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::io::{Failure, print_out};

pub(crate) const CERTIFY_HELP: &str = "\
Each DIR/NAME.cnf is checked with DIR/NAME.proof by varisat's proof checker:
'verified' means the proof derives the empty clause from the CNF, so the CNF is
unsatisfiable, and the claim in its 'c claim:' line holds as far as the
encoding is trusted (models/sat.md, What is certified). A file without its
partner, a CNF that is not DIMACS, a proof step that does not follow, a
truncated proof or one that never derives the empty clause: 'FAILED', with
the reason. Each pair is checked in a child process under --time-limit and
--memory-limit: the checker trusts its input's shape, and a garbled proof can
make it panic or ask for terabytes; that certificate then fails.

Exit codes: 0 every certificate verified, 1 some failed, 2 DIR unreadable or
without certificates.";

/// `tmin certify-check DIR`: every certificate pair of DIR, each checked in
/// a child process (`certify-check-one`) under `limit` and `memory_mib`:
/// varisat's checker can panic, abort on a huge allocation or run long on a
/// garbled proof, and any of these must end as that certificate's failure,
/// not as this command's crash.
pub(crate) fn certify_check(
    dir: &Path,
    json: bool,
    limit: Duration,
    memory_mib: u64,
) -> Result<ExitCode, Failure> {
    let pairs = tmin::sat::certify::pairs(dir).map_err(|e| {
        Failure::Usage(format!("{}: cannot read the directory: {e}", dir.display()))
    })?;
    if pairs.is_empty() {
        return Err(Failure::Usage(format!(
            "{}: no certificates (NAME.cnf with NAME.proof) to check",
            dir.display()
        )));
    }
    let exe = std::env::current_exe()
        .map_err(|e| Failure::Internal(format!("cannot find the tmin executable: {e}")))?;
    let verdicts: Vec<Result<(), String>> = pairs
        .iter()
        .map(|p| match p.missing() {
            Some(e) => Err(e.to_string()),
            None => check_in_child(&exe, &p.cnf, &p.proof, limit, memory_mib),
        })
        .collect();
    let failed = verdicts.iter().filter(|v| v.is_err()).count();
    let out = if json {
        let rows: Vec<_> = pairs
            .iter()
            .zip(&verdicts)
            .map(|(p, v)| {
                json!({
                    "name": p.name,
                    "cnf": p.cnf.display().to_string(),
                    "proof": p.proof.display().to_string(),
                    "claim": p.claim,
                    "verified": v.is_ok(),
                    "error": v.as_ref().err(),
                })
            })
            .collect();
        format!(
            "{}\n",
            json!({"dir": dir.display().to_string(), "verified": pairs.len() - failed,
                   "failed": failed, "certificates": rows})
        )
    } else {
        let mut s = String::new();
        for (p, v) in pairs.iter().zip(&verdicts) {
            match v {
                Ok(()) => s.push_str(&format!(
                    "verified  {}  {}\n",
                    p.name,
                    p.claim.as_deref().unwrap_or("(no claim line)")
                )),
                Err(e) => s.push_str(&format!("FAILED    {}  {e}\n", p.name)),
            }
        }
        s.push_str(&format!(
            "{} of {} certificates verified\n",
            pairs.len() - failed,
            pairs.len()
        ));
        s
    };
    print_out(&out)?;
    Ok(ExitCode::from(if failed == 0 { 0 } else { 1 }))
}

/// Runs `tmin certify-check-one CNF PROOF` and reads its verdict: exit 0
/// verified, 1 rejected (its stdout says why); anything else (a panic's exit
/// 70, an abort, the time limit) is a failure of the check on this pair.
pub(crate) fn check_in_child(
    exe: &Path,
    cnf: &Path,
    proof: &Path,
    limit: Duration,
    memory_mib: u64,
) -> Result<(), String> {
    use std::process::{Command, Stdio};
    let mut child = Command::new(exe)
        .arg("certify-check-one")
        .arg(cnf)
        .arg(proof)
        .arg("--memory-limit")
        .arg(memory_mib.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start the checker: {e}"))?;
    let end = tmin::stop::instant_after(Instant::now(), limit);
    // Polled: std has no wait with a timeout. The pipes carry one line
    // (stdout) or a panic's report (stderr), far below a pipe's buffer.
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if Instant::now() >= end => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "not checked within {} s (--time-limit)",
                    limit.as_secs_f64()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("cannot wait for the checker: {e}")),
        }
    };
    let mut out = String::new();
    let mut err = String::new();
    use std::io::Read;
    if let Some(mut o) = child.stdout.take() {
        let _ = o.read_to_string(&mut out);
    }
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    match status.code() {
        Some(0) => Ok(()),
        Some(1) => Err(out.trim().to_string()),
        code => {
            let last = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            Err(format!(
                "the checker failed on it ({}{}{}): a garbled proof or CNF, or one beyond \
                 --memory-limit",
                code.map_or("killed by a signal".to_string(), |c| format!("exit {c}")),
                if last.is_empty() { "" } else { ": " },
                last.trim()
            ))
        }
    }
}

/// Caps this process's address space at `mib` MiB (Unix; elsewhere
/// nothing), so that a huge allocation fails at once instead of exhausting
/// the machine.
pub(crate) fn limit_address_space(mib: u64) {
    #[cfg(unix)]
    {
        let bytes = mib.saturating_mul(1 << 20);
        let lim = libc::rlimit {
            rlim_cur: bytes as libc::rlim_t,
            rlim_max: bytes as libc::rlim_t,
        };
        // SAFETY: setrlimit reads the struct only; a failure leaves the
        // limit as it was (the check then runs without the cap).
        let _ = unsafe { libc::setrlimit(libc::RLIMIT_AS, &lim) };
    }
    #[cfg(not(unix))]
    let _ = mib;
}
