//! Certificates of the SAT engine's UNSAT answers (issue 12, point 4): the
//! optimum of ft06 and the bounds of small memory-bound instances proven with
//! a proof that varisat's checker accepts, and rejected once the CNF or the
//! proof is tampered with; the task book example, whose bound is proven
//! without any UNSAT answer, says that nothing was certified; the CLI writes
//! and checks the same files.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use common::tmin;
use tmin::certificate::Certifier;
use tmin::import::read_jsp;
use tmin::instance::{Instance, parse_reader};
use tmin::sat::certify::{CheckError, check, check_dir, conclude};
use tmin::solve::{NoteKind, SolveOptions, SolveResult, Status};

fn inst(text: &str, name: &str) -> Instance {
    parse_reader(text.as_bytes(), name).unwrap_or_else(|e| panic!("{e}"))
}

fn ft06() -> Instance {
    let js = read_jsp(include_str!("data/jsplib/ft06").as_bytes(), "ft06").unwrap();
    inst(&js.to_instance_text(), "ft06")
}

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("certify")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Solves with `engine` ("sat" or "auto") and certificates into `dir`.
fn solve_certified(
    i: &Instance,
    dir: &Path,
    name: &str,
    engine: &str,
) -> (SolveResult, Arc<Certifier>) {
    let c = Arc::new(Certifier::new(dir, name).unwrap());
    let opts = SolveOptions {
        time_limit: Duration::from_secs(60),
        certify: Some(c.clone()),
        ..SolveOptions::default()
    };
    let r = match engine {
        "sat" => tmin::pipeline::solve(&tmin::sat::engine::SatEngine::default(), i, &opts),
        _ => tmin::portfolio::solve(i, &opts, &Default::default()),
    };
    assert!(r.internal_error.is_none(), "{:?}", r.notes);
    (r, c)
}

/// Rewrites a DIMACS file without the clause lines `drop` picks (counted from
/// 0 among the clauses), with a header that matches what is left, so that
/// the CNF parses and only the proof can reject it.
fn without_clauses(src: &Path, dst: &Path, drop: impl Fn(usize, usize) -> bool) {
    let text = std::fs::read_to_string(src).unwrap();
    let clauses: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('c') && !l.starts_with('p'))
        .collect();
    let n = clauses.len();
    let kept: Vec<&str> = clauses
        .iter()
        .enumerate()
        .filter(|&(i, _)| !drop(i, n))
        .map(|(_, l)| *l)
        .collect();
    let vars = kept
        .iter()
        .flat_map(|l| l.split_whitespace())
        .map(|x| x.parse::<i64>().unwrap().unsigned_abs())
        .max()
        .unwrap_or(0);
    let mut out = format!("p cnf {vars} {}\n", kept.len());
    for l in kept {
        out.push_str(l);
        out.push('\n');
    }
    std::fs::write(dst, out).unwrap();
}

#[test]
fn ft06_optimum_55_is_certified_by_a_checked_proof() {
    let dir = scratch("ft06");
    let i = ft06();
    let (mut r, c) = solve_certified(&i, &dir, "ft06", "sat");
    assert_eq!(r.status, Status::Optimal, "{:?}", r.notes);
    assert_eq!(r.makespan, Some(55));
    assert_eq!(r.lower_bound, 55);
    let done = conclude(&c, &r);
    r.notes.push(done.note.clone());
    assert!(done.final_bound_certified, "{:?}", r.notes);
    // The last UNSAT answer is the optimality proof: makespan <= 54.
    let last = done.certificates.last().expect("a certificate");
    assert_eq!(last.bound, Some(55));
    assert_eq!(last.claim, "no schedule with makespan <= 54");
    assert_eq!(last.cnf, dir.join("ft06-T54.cnf"));
    assert_eq!(last.proof, dir.join("ft06-T54.proof"));
    // Every certificate written checks, alone and through the folder.
    for x in &done.certificates {
        check(&x.cnf, &x.proof).unwrap_or_else(|e| panic!("{}: {e}", x.cnf.display()));
    }
    let checked = check_dir(&dir).unwrap();
    assert_eq!(checked.len(), done.certificates.len());
    assert!(checked.iter().all(|x| x.verdict.is_ok()));
    assert!(
        checked
            .iter()
            .any(|x| x.claim.as_deref() == Some("no schedule with makespan <= 54"))
    );
    assert!(
        r.has_note(|k| *k == NoteKind::Certificate { certified: true }),
        "{:?}",
        r.notes
    );

    // Tampering. When the incumbent was above 55, the encoding admits 55 and
    // the assumption "makespan <= 54" is the CNF's last clause, a unit:
    // without it the CNF is satisfiable, and no proof may pass. (When the
    // incumbent step already found 55, the encoding's own horizon is 54 and
    // there is no assumption to remove.)
    let bad = scratch("ft06-tampered");
    let text = std::fs::read_to_string(&last.cnf).unwrap();
    let unit = text.lines().last().unwrap();
    if unit.split_whitespace().count() == 2 {
        let cnf = bad.join("no-assumption.cnf");
        without_clauses(&last.cnf, &cnf, |i, n| i == n - 1);
        let e = check(&cnf, &last.proof).expect_err("a CNF without its assumption");
        assert!(
            matches!(e, CheckError::Proof(_) | CheckError::NotRefuted),
            "{e}"
        );
    }
    // Single clauses removed, one in 97: a clause the refutation does not
    // need may go (what is left is still unsatisfiable), but the proof's
    // steps name the clauses they use, so some removals must be caught.
    let n = text.lines().filter(|l| !l.starts_with(['c', 'p'])).count();
    let mut caught = 0;
    for k in (0..n).step_by(97) {
        let cnf = bad.join(format!("without-{k}.cnf"));
        without_clauses(&last.cnf, &cnf, |i, _| i == k);
        match check(&cnf, &last.proof) {
            Ok(()) => {}
            Err(CheckError::Proof(_) | CheckError::NotRefuted) => caught += 1,
            Err(e) => panic!("clause {k}: {e}"),
        }
    }
    assert!(caught > 0, "no removal of {} caught", n.div_ceil(97));
    // A truncated proof: half of it, and all but its last byte.
    let bytes = std::fs::read(&last.proof).unwrap();
    for keep in [bytes.len() / 2, bytes.len() - 1] {
        let p = bad.join(format!("truncated-{keep}.proof"));
        std::fs::write(&p, &bytes[..keep]).unwrap();
        let e = check(&last.cnf, &p).expect_err("a truncated proof");
        assert!(matches!(e, CheckError::Proof(_)), "{keep} bytes: {e}");
    }
    // The folder check reports a missing partner as a failure.
    std::fs::copy(&last.cnf, bad.join("alone.cnf")).unwrap();
    let checked = check_dir(&bad).unwrap();
    let alone = checked.iter().find(|x| x.name == "alone").unwrap();
    assert!(matches!(alone.verdict, Err(CheckError::Io(_))));
}

/// The task book example: list scheduling meets the lower bound (38), so no
/// UNSAT answer is involved and nothing is certified, which the note says.
#[test]
fn example1_bound_rests_on_no_sat_answer() {
    let dir = scratch("example1");
    let i = inst(include_str!("../instances/example1.txt"), "example1.txt");
    for engine in ["auto", "sat"] {
        let (mut r, c) = solve_certified(&i, &dir, "example1", engine);
        assert_eq!(r.status, Status::Optimal, "{:?}", r.notes);
        assert_eq!(r.makespan, Some(38));
        let done = conclude(&c, &r);
        r.notes.push(done.note.clone());
        assert!(done.certificates.is_empty());
        assert!(!done.final_bound_certified);
        assert!(
            r.has_note(|k| *k == NoteKind::Certificate { certified: false }),
            "{engine}: {:?}",
            r.notes
        );
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}

/// The clause count of the static encoding, from the engine's typed note.
fn static_clauses(r: &SolveResult) -> usize {
    r.notes
        .iter()
        .find_map(|n| match n.kind {
            NoteKind::Encoding { clauses, .. } => Some(clauses as usize),
            _ => None,
        })
        .expect("an encoding note")
}

/// Every duration is 2, so the time unit is 2: the probe "<= 4 units" is
/// "makespan <= 8", and its UNSAT answer proves 10 (models/sat.md 1.3).
/// Every node holds 600 of a memory of 1000 until its successor starts, so
/// the five nodes run one after another: 10, against a critical path of 6.
#[test]
fn time_unit_instance_is_certified_in_the_instance_time() {
    let dir = scratch("unit");
    let i = inst(
        "SetSocInfo([[0,1],[1,1]],[[0,1000]])
AddOpInfo(1,1,0,[[1,2],[2,3]],[[1,0,2],[2,1,2],[3,0,2]],[[1,0,600],[2,0,600],[3,0,600]])
AddOpInfo(2,1,0,[[1,2]],[[1,1,2],[2,0,2]],[[1,0,600],[2,0,600]])
GetInferenceScheResult([],[[1,1,1],[2,2,1]])",
        "unit.txt",
    );
    let (mut r, c) = solve_certified(&i, &dir, "unit", "sat");
    assert_eq!(r.status, Status::Optimal, "{:?}", r.notes);
    assert_eq!(r.makespan, Some(10));
    let done = conclude(&c, &r);
    r.notes.push(done.note.clone());
    assert!(done.final_bound_certified, "{:?}", r.notes);
    let last = done.certificates.last().unwrap();
    assert_eq!(last.claim, "no schedule with makespan <= 8");
    assert_eq!(last.bound, Some(10));
    assert_eq!(last.cnf, dir.join("unit-T8.cnf"));
    check(&last.cnf, &last.proof).unwrap();
}

/// A generated memory-bound instance (`tmin gen --ops 6 --nodes 3-5
/// --tightness 0.1 --seed 5`, 2026-11-24: optimum 54, the bound from SAT,
/// with over a hundred lazy memory cuts and core cuts): the CNF written
/// holds the cuts added before the answer (more clauses than the static
/// encoding), and its proof checks.
#[test]
fn generated_memory_bound_instance_with_lazy_cuts_is_certified() {
    let dir = scratch("generated");
    let cfg = tmin::generate::GenConfig {
        seed: 5,
        ops: 6,
        nodes_min: 3,
        nodes_max: 5,
        tightness: 0.1,
        ..Default::default()
    };
    let g = tmin::generate::generate(&cfg).unwrap();
    let (mut r, c) = solve_certified(&g.instance, &dir, "gen", "sat");
    assert_eq!(r.status, Status::Optimal, "{:?}", r.notes);
    assert!(r.bound_source.starts_with("SAT"), "{}", r.bound_source);
    let done = conclude(&c, &r);
    r.notes.push(done.note.clone());
    assert!(done.final_bound_certified, "{:?}", r.notes);
    let last = done.certificates.last().unwrap();
    assert_eq!(last.bound, Some(r.lower_bound));
    // The static clauses, the cuts, and the assumption unit.
    assert!(
        last.clauses > static_clauses(&r) + 1,
        "{} clauses written, {} static: {:?}",
        last.clauses,
        static_clauses(&r),
        r.notes
    );
    for x in &done.certificates {
        check(&x.cnf, &x.proof).unwrap_or_else(|e| panic!("{}: {e}", x.cnf.display()));
    }
}

/// Infeasible by UNSAT at the horizon: three one-node ops on one core, op 1
/// (500 of a memory of 1000) holds until both its successors (600 each)
/// have started, and they cannot start together: 1100 > 1000 whichever
/// starts first. List scheduling finds nothing; the SAT probe at the horizon
/// (3) is UNSAT once memory cuts are added; its certificate is the
/// infeasibility proof.
#[test]
fn infeasibility_at_the_horizon_is_certified() {
    let dir = scratch("infeasible");
    let i = inst(
        "SetSocInfo([[0,1]],[[0,1000]])
AddOpInfo(1,1,0,[],[[1,0,1]],[[1,0,500]])
AddOpInfo(2,1,0,[],[[1,0,1]],[[1,0,600]])
GetInferenceScheResult([[1,2],[1,3]],[[1,1,1],[2,2,1],[3,2,1]])",
        "infeasible.txt",
    );
    for engine in ["sat", "auto"] {
        let (mut r, c) = solve_certified(&i, &dir, "infeasible", engine);
        assert_eq!(r.status, Status::Infeasible, "{:?}", r.notes);
        let done = conclude(&c, &r);
        r.notes.push(done.note.clone());
        assert!(done.final_bound_certified, "{:?}", r.notes);
        let x = done.certificates.iter().find(|x| x.infeasible).unwrap();
        assert_eq!(x.cnf, dir.join("infeasible-T3.cnf"));
        assert!(x.clauses > static_clauses(&r), "{:?}", r.notes);
        check(&x.cnf, &x.proof).unwrap();
    }
}

/// The certifying solve honours its stop time like the search: a stop in
/// the past ends it at once, with no file left behind.
#[test]
fn certifying_stops_at_the_deadline_and_leaves_no_files() {
    use tmin::sat::certify::NotCertified;
    use tmin::sat::encode::{Answer, Encoder};
    use tmin::sat::model::{Model, candidates};
    let dir = scratch("deadline");
    let i = ft06();
    let cand: Vec<Vec<u32>> = (0..i.graph.n_ops() as u32)
        .map(|o| candidates(&i, o))
        .collect();
    let m = Model::new(&i, &cand);
    let mut enc = Encoder::new(&m, 60);
    let far = std::time::Instant::now() + Duration::from_secs(60);
    assert!(matches!(enc.decide(54, &[], far), Answer::Unsat));
    let (cnf, proof) = (dir.join("x.cnf"), dir.join("x.proof"));
    let past = std::time::Instant::now();
    match enc.certify(&[], &cnf, &proof, past) {
        Err(NotCertified::Deadline) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    // With time, the same answer is certified.
    enc.certify(&[], &cnf, &proof, far).unwrap();
    check(&cnf, &proof).unwrap();
}

/// Tilings pruned as never schedulable rest on UNSAT answers too: each gets
/// its own certificate (tests/sat.rs derives this instance: tiling 0 of op 7
/// can never release its first node's memory; tiling 1 is a chain of 18).
#[test]
fn pruned_tilings_are_certified() {
    let dir = scratch("pruned");
    let i = inst(
        include_str!("data/cases/memory-deadlock-escape.txt"),
        "pruned.txt",
    );
    let bounds = tmin::bounds::combinatorial::lower_bounds(&i);
    let none = SolveResult::without_schedule(Status::Unknown, 0, "none", "list");
    let deadline = tmin::stop::Deadline::after(Duration::from_secs(60));
    let c = Certifier::new(&dir, "pruned").unwrap();
    let mut r = tmin::sat::search_certified(
        &i,
        &deadline,
        &bounds,
        none,
        tmin::sat::Policy::default(),
        tmin::solve::DEFAULT_MEMORY_LIMIT_MIB,
        tmin::sat::Outputs {
            certify: Some(&c),
            events: &Default::default(),
        },
    );
    assert_eq!(r.makespan, Some(18), "{:?}", r.notes);
    let done = conclude(&c, &r);
    r.notes.push(done.note.clone());
    let pruned = done
        .certificates
        .iter()
        .find(|x| x.bound.is_none())
        .expect("a pruning certificate");
    assert_eq!(pruned.cnf, dir.join("pruned-op7-tiling0-alone.cnf"));
    for x in &done.certificates {
        check(&x.cnf, &x.proof).unwrap_or_else(|e| panic!("{}: {e}", x.cnf.display()));
    }
}

/// Infeasible by pruning alone (tests/sat.rs, NEVER_RELEASES: the only
/// tiling of op 1 never releases its first node's memory): the pruning
/// certificate is the whole proof.
#[test]
fn infeasibility_by_pruning_is_certified() {
    let dir = scratch("never");
    let i = inst(include_str!("data/cases/memory-deadlock.txt"), "never.txt");
    let (mut r, c) = solve_certified(&i, &dir, "never", "sat");
    assert_eq!(r.status, Status::Infeasible, "{:?}", r.notes);
    let done = conclude(&c, &r);
    r.notes.push(done.note.clone());
    assert!(done.final_bound_certified, "{:?}", r.notes);
    assert_eq!(done.certificates.len(), 1);
    assert_eq!(
        done.certificates[0].cnf,
        dir.join("never-op1-tiling0-alone.cnf")
    );
    check(&done.certificates[0].cnf, &done.certificates[0].proof).unwrap();
}

#[test]
fn cli_writes_lists_and_checks_certificates() {
    let dir = scratch("cli");
    let ft = dir.join("ft06.txt");
    let (code, _, err) = tmin(&[
        "import",
        "jsp",
        "tests/data/jsplib/ft06",
        "-o",
        ft.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let certs = dir.join("certs");
    let (code, out, err) = tmin(&[
        "solve",
        ft.to_str().unwrap(),
        "--engine",
        "sat",
        "--time-limit",
        "60",
        "--certify",
        certs.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["status"], "optimal");
    assert_eq!(v["certify"]["final_bound_certified"], true, "{out}");
    let list = v["certify"]["certificates"].as_array().unwrap();
    let last = list.last().unwrap();
    assert_eq!(last["bound"], 55);
    assert!(last["cnf"].as_str().unwrap().ends_with("ft06-T54.cnf"));

    let (code, out, err) = tmin(&["certify-check", certs.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("verified  ft06-T54  no schedule with makespan <= 54"),
        "{out}"
    );
    assert!(out.contains(&format!(
        "{} of {} certificates verified",
        list.len(),
        list.len()
    )));

    // A truncated proof: exit 1, named.
    let p = certs.join("ft06-T54.proof");
    let bytes = std::fs::read(&p).unwrap();
    std::fs::write(&p, &bytes[..bytes.len() / 2]).unwrap();
    let (code, out, _) = tmin(&["certify-check", certs.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAILED    ft06-T54  proof rejected"), "{out}");

    // Garbled proofs (bytes overwritten, inserted, cut out, replaced by
    // noise): varisat's checker may reject them, panic on them or ask for
    // terabytes; each is one certificate's failure, never a crash of the
    // command (exit 1, not 70 or a signal).
    let good = bytes.clone();
    let garbled = scratch("cli-garbled");
    std::fs::copy(certs.join("ft06-T54.cnf"), garbled.join("g.cnf")).unwrap();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for k in 0..12 {
        let mut b = good.clone();
        match k % 4 {
            0 => {
                for _ in 0..3 {
                    let i = next(b.len());
                    b[i] = next(256) as u8;
                }
            }
            1 => {
                let i = next(b.len());
                let noise: Vec<u8> = (0..16).map(|_| next(256) as u8).collect();
                b.splice(i..i, noise);
            }
            2 => {
                let (i, j) = (next(b.len()), next(b.len()));
                b.drain(i.min(j)..i.max(j));
            }
            _ => b = (0..1000).map(|_| next(256) as u8).collect(),
        }
        std::fs::write(garbled.join("g.proof"), &b).unwrap();
        let (code, out, err) = tmin(&[
            "certify-check",
            garbled.to_str().unwrap(),
            "--memory-limit",
            "256",
            "--time-limit",
            "30",
        ]);
        assert!(
            code == 1 || code == 0,
            "garble {k}: exit {code}: {out}{err}"
        );
        if code == 1 {
            assert!(out.starts_with("FAILED    g  "), "garble {k}: {out}");
        }
    }

    // Seven bytes whose length field asks varisat's proof parser for 10 TB:
    // the checker's process aborts; the command reports that certificate.
    std::fs::write(
        garbled.join("g.proof"),
        [0x21, 0x20, 0x02, 0xb2, 0xfa, 0x94, 0x91],
    )
    .unwrap();
    let (code, out, err) = tmin(&[
        "certify-check",
        garbled.to_str().unwrap(),
        "--memory-limit",
        "256",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.starts_with("FAILED    g  the checker failed on it"),
        "{out}"
    );

    // No certificates, or no folder: exit 2.
    let empty = scratch("cli-empty");
    assert_eq!(tmin(&["certify-check", empty.to_str().unwrap()]).0, 2);
    assert_eq!(tmin(&["certify-check", "no/such/dir"]).0, 2);

    // An uncreatable folder is an argument error before any solving.
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let under = file.join("certs");
    let (code, _, err) = tmin(&[
        "solve",
        ft.to_str().unwrap(),
        "--certify",
        under.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--certify"), "{err}");

    // Other engines: a note that nothing was certified.
    let (code, out, err) = tmin(&[
        "solve",
        ft.to_str().unwrap(),
        "--engine",
        "list",
        "--time-limit",
        "1",
        "--certify",
        certs.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("--certify: nothing certified: only the SAT engine"),
        "{out}"
    );
}
