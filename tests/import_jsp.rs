//! `tmin import jsp`: job-shop files become instances whose schedules are job-shop
//! schedules. Fixtures: tests/data/jsplib/ft06 (Fisher and Thompson 6x6, a copy of
//! JSPLIB's ft06) and tests/data/ft06.opt55.schedule, an optimal (makespan 55)
//! schedule derived outside this crate by a branch and bound over active schedules
//! and re-verified below by an independent job-shop check.

use crate::common;

use std::path::PathBuf;

use tmin::import::read_jsp;
use tmin::instance::parse_reader;

const FT06: &str = include_str!("data/jsplib/ft06");
const FT06_OPT: &str = include_str!("data/ft06.opt55.schedule");

fn data(p: &str) -> String {
    format!("{}/tests/data/{p}", env!("CARGO_MANIFEST_DIR"))
}

use common::tmin;

fn tmp(name: &str, contents: &[u8]) -> PathBuf {
    common::tmp_in("import_jsp", name, contents)
}

/// ft06 read naively: `jobs[j][k] = (machine, duration)`.
fn ft06_jobs() -> Vec<Vec<(u32, u64)>> {
    let nums: Vec<u64> = FT06
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(|l| l.split_whitespace().map(|t| t.parse::<u64>().unwrap()))
        .collect();
    assert_eq!(&nums[..2], &[6, 6]);
    (0..6)
        .map(|j| {
            (0..6)
                .map(|k| {
                    let i = 2 + 2 * (6 * j + k);
                    (nums[i] as u32, nums[i + 1])
                })
                .collect()
        })
        .collect()
}

/// Schedule rows `[OpId, Tiling, NodeId, Start, CoreId]`, read naively.
fn rows(text: &str) -> Vec<[u64; 5]> {
    let digits: String = text
        .chars()
        .map(|c| if c.is_ascii_digit() { c } else { ' ' })
        .collect();
    let nums: Vec<u64> = digits
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect();
    nums.chunks(5)
        .map(|c| [c[0], c[1], c[2], c[3], c[4]])
        .collect()
}

fn fmt(rows: &[[u64; 5]]) -> String {
    let parts: Vec<String> = rows
        .iter()
        .map(|r| format!("[{},{},{},{},{}]", r[0], r[1], r[2], r[3], r[4]))
        .collect();
    format!("[{}]\n", parts.join(","))
}

fn imported() -> String {
    let (code, out, err) = tmin(&["import", "jsp", &data("jsplib/ft06")]);
    assert_eq!(code, 0, "{err}");
    out
}

#[test]
fn the_fixture_is_ft06() {
    // Guards the copy against accidental edits: header and first and last job lines
    // as published in JSPLIB.
    assert!(FT06.contains("Fisher and Thompson 6x6"));
    let body: Vec<&str> = FT06.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(body.len(), 7);
    assert_eq!(body[0], "6 6");
    assert_eq!(body[1], "2  1  0  3  1  6  3  7  5  3  4  6");
    assert_eq!(body[6], "1  3  3  3  5  9  0 10  4  4  2  1");
}

#[test]
fn ft06_imports_as_six_chains() {
    let text = imported();
    let i = parse_reader(text.as_bytes(), "ft06.txt").unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(i.warnings.is_empty(), "{:?}", i.warnings);
    // Six machines: core types 0..5, one core each; no memory.
    let cores: Vec<(u32, u32)> = i.platform.cores.iter().map(|c| (c.id, c.count)).collect();
    assert_eq!(cores, (0..6).map(|m| (m, 1)).collect::<Vec<_>>());
    assert!(i.platform.mems.is_empty());
    // Six ops, no op edges, one tiling each.
    assert_eq!(i.graph.n_ops(), 6);
    assert_eq!(i.graph.n_edges(), 0);
    assert_eq!(i.library.tilings.len(), 6);
    let lib = &i.library;
    let jobs = ft06_jobs();
    for (j, op) in i.graph.ops.iter().enumerate() {
        assert_eq!(op.id, j as u32 + 1);
        let ts: Vec<u32> = i.usable_tilings(j as u32).collect();
        assert_eq!(ts.len(), 1);
        let t = &lib.tilings[ts[0] as usize];
        assert_eq!(t.n_nodes, 6);
        // Node k+1 is the job's k-th operation: its machine and duration, a chain.
        for (k, v) in t.nodes().enumerate() {
            assert_eq!(lib.node_id[v as usize], k as u32 + 1);
            let core = lib.node_core[v as usize];
            assert_eq!(i.platform.cores[core as usize].id, jobs[j][k].0);
            assert_eq!(lib.node_dur[v as usize], jobs[j][k].1);
            let want: Vec<u32> = if k < 5 { vec![k as u32 + 1] } else { vec![] };
            assert_eq!(lib.succs(v), &want[..], "job {j} op {k}");
            assert!(lib.mems(v).is_empty());
        }
        // The chain's length is the job's total work.
        let work: u64 = jobs[j].iter().map(|x| x.1).sum();
        assert_eq!(t.critical_path, work);
    }
    // -o writes the same text.
    let out = tmp("ft06.txt", b"");
    let (code, stdout, err) = tmin(&[
        "import",
        "jsp",
        &data("jsplib/ft06"),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text);
}

#[test]
fn the_optimal_fixture_is_a_job_shop_schedule() {
    // Independent of tmin: job order, machine exclusivity and makespan 55.
    let jobs = ft06_jobs();
    let r = rows(FT06_OPT);
    assert_eq!(r.len(), 36);
    let start = |j: usize, k: usize| {
        let x = r
            .iter()
            .find(|x| x[0] == j as u64 + 1 && x[2] == k as u64 + 1)
            .unwrap();
        assert_eq!((x[1], x[4]), (0, 0), "tiling 0, core 0");
        x[3]
    };
    let mut makespan = 0;
    let mut per_machine: Vec<Vec<(u64, u64)>> = vec![Vec::new(); 6];
    for (j, job) in jobs.iter().enumerate() {
        for (k, &(m, d)) in job.iter().enumerate() {
            let s = start(j, k);
            if k > 0 {
                assert!(s >= start(j, k - 1) + job[k - 1].1, "job {j} op {k}");
            }
            per_machine[m as usize].push((s, s + d));
            makespan = makespan.max(s + d);
        }
    }
    for (m, iv) in per_machine.iter_mut().enumerate() {
        iv.sort();
        for w in iv.windows(2) {
            assert!(w[0].1 <= w[1].0, "machine {m}: {w:?}");
        }
    }
    assert_eq!(makespan, 55);
}

#[test]
fn ft06_optimum_checks_legal_at_55() {
    let ip = tmp("ft06_check.txt", imported().as_bytes());
    let (code, out, err) = tmin(&["check", ip.to_str().unwrap(), &data("ft06.opt55.schedule")]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("legal: makespan 55 (36 rows)"), "{out}");
}

#[test]
fn ft06_shifted_one_unit_earlier_is_illegal() {
    let ip = tmp("ft06_shift.txt", imported().as_bytes());
    let mut r = rows(FT06_OPT);
    // Job 1's 2nd operation (machine 0, 3 long) starts at 1, right when its 1st
    // (machine 2, 1 long, at 0) ends. At 0 it breaks that precedence; machine 0 is
    // otherwise idle until 8, so nothing else breaks.
    let row = r.iter_mut().find(|x| x[0] == 1 && x[2] == 2).unwrap();
    assert_eq!(row[3], 1);
    row[3] = 0;
    let sp = tmp("ft06_shift_prec.schedule", fmt(&r).as_bytes());
    let (code, out, _) = tmin(&["check", ip.to_str().unwrap(), sp.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with("illegal: 1 violation (precedence 1)"),
        "{out}"
    );

    // Job 4's 1st operation (machine 1, 5 long) starts at 8, right when job 2's 1st
    // (machine 1, [0,8)) ends. At 7 the two overlap on machine 1's only core; it is
    // a first operation (no predecessor) and job 4's 2nd starts at 13 >= 12.
    let mut r = rows(FT06_OPT);
    let row = r.iter_mut().find(|x| x[0] == 4 && x[2] == 1).unwrap();
    assert_eq!(row[3], 8);
    row[3] = 7;
    let sp = tmp("ft06_shift_core.schedule", fmt(&r).as_bytes());
    let (code, out, _) = tmin(&["check", ip.to_str().unwrap(), sp.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with("illegal: 1 violation (core-overlap 1)"),
        "{out}"
    );
    assert!(
        out.contains("op 2 node 1") && out.contains("op 4 node 1"),
        "{out}"
    );
}

// ---------------------------------------------------------------- import errors

/// `tmin import jsp` on `text`: exit 2, `error: PATH:LINE:COL: ...` with `want`.
#[track_caller]
fn import_rejects(name: &str, text: &[u8], (line, col): (usize, usize), want: &[&str]) {
    let p = tmp(name, text);
    let path = p.to_str().unwrap();
    let (code, out, err) = tmin(&["import", "jsp", path]);
    assert_eq!(code, 2, "{name}: {out}{err}");
    assert!(out.is_empty(), "{name}: {out}");
    let prefix = format!("error: {path}:{line}:{col}: ");
    assert!(
        err.starts_with(&prefix),
        "{name}: want {prefix:?}, got {err:?}"
    );
    for w in want {
        assert!(err.contains(w), "{name}: want {w:?} in {err:?}");
    }
    let e = read_jsp(text, "lib.jsp").expect_err(name);
    assert_eq!(
        (e.pos.line as usize, e.pos.col as usize),
        (line, col),
        "{e}"
    );
}

#[test]
fn malformed_jsp_files() {
    // ft06 lines: 1-4 comments, 5 "6 6", 6-11 the jobs.
    let lines: Vec<&str> = FT06.lines().collect();
    assert_eq!(lines[4], "6 6");
    let with_line = |n: usize, new: &str| {
        let mut l = lines.clone();
        l[n - 1] = new;
        l.join("\n") + "\n"
    };
    // A letter instead of a duration: line 6 "2  1  0  3 ...", 'x' in column 4.
    import_rejects(
        "letter.jsp",
        with_line(6, "2  x  0  3  1  6  3  7  5  3  4  6").as_bytes(),
        (6, 4),
        &["expected the duration of operation 0 of job 0", "'x'"],
    );
    // A negative number.
    import_rejects(
        "negative.jsp",
        with_line(7, "1  8  2  -5  4 10  5 10  0 10  3  4").as_bytes(),
        (7, 10),
        &["duration of operation 1 of job 1", "'-5'"],
    );
    // A machine beyond the 6 announced: line 8, third number.
    import_rejects(
        "machine.jsp",
        with_line(8, "2  5  9  4  5  8  0  9  1  1  4  7").as_bytes(),
        (8, 7),
        &["job 2 operation 1 names machine 9", "0..5"],
    );
    // The last job line missing: the input ends where job 5 should start.
    let cut = lines[..10].join("\n") + "\n";
    import_rejects(
        "short.jsp",
        cut.as_bytes(),
        (11, 1),
        &["unexpected end of input", "machine of operation 0 of job 5"],
    );
    // A job line with one pair too many.
    import_rejects(
        "long.jsp",
        with_line(11, "1  3  3  3  5  9  0 10  4  4  2  1  0  1").as_bytes(),
        (11, 37),
        &["expected end of input", "'0'"],
    );
    // A broken header.
    import_rejects(
        "header.jsp",
        with_line(5, "6 six").as_bytes(),
        (5, 3),
        &["number of machines", "'six'"],
    );
    // Too many machines for tmin's core-type table.
    import_rejects(
        "wide.jsp",
        b"1 300\n",
        (1, 3),
        &["300 machines", "beyond what tmin supports"],
    );
    // Bytes that are not UTF-8 fail where they are, not as an unreadable file.
    let mut garbled = with_line(9, "1  5  0  5  2  5  3  3  4  8  5  9").into_bytes();
    let at = garbled.len() - 3;
    garbled.insert(at, 0xff);
    import_rejects(
        "utf8.jsp",
        &garbled,
        (11, 33),
        &["duration of operation 5 of job 5"],
    );
    // The empty file.
    import_rejects("empty.jsp", b"", (1, 1), &["number of jobs"]);
}

#[test]
fn jsp_comments_blank_lines_and_crlf() {
    let text = "# c\r\n\r\n2 2\r\n# between\r\n0 3 1 2\r\n\r\n1 4 0 1\r\n";
    let js = read_jsp(text.as_bytes(), "t.jsp").unwrap();
    assert_eq!(js.machines, 2);
    assert_eq!(js.jobs, vec![vec![(0, 3), (1, 2)], vec![(1, 4), (0, 1)]]);
    // The instance text parses and describes the same chains.
    let i = parse_reader(js.to_instance_text().as_bytes(), "t.txt").unwrap();
    assert_eq!(i.graph.n_ops(), 2);
    assert_eq!(i.library.node_dur, vec![3, 2, 4, 1]);
}
