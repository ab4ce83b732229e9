//! Garbled and truncated inputs: the parsers and the checker return a verdict or
//! an input error, never panic and never hang; the binary exits 0, 1 or 2 (never
//! 101), and its input errors name the file and a line.

use crate::common;

use std::io::Read;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::Rng;
use tmin::instance::parse_reader;
use tmin::schedule::check_reader;

const EX1: &[u8] = include_bytes!("../instances/example1.txt");
const EX1_SCHED: &[u8] = include_bytes!("../instances/example1.schedule.txt");

/// A byte biased towards the format's own alphabet, so mutations reach deep
/// into the parser instead of failing on the first byte.
fn byte(rng: &mut Rng) -> u8 {
    const ALPHABET: &[u8] = b"0123456789[](),, \n\r\t-AGSabz_.";
    match rng.index(4) {
        0 => rng.next() as u8, // anything, including non-UTF-8
        _ => ALPHABET[rng.index(ALPHABET.len())],
    }
}

/// Garbled versions of `base`: truncations every `step` bytes, then random byte
/// flips, insertions and deletions, runs of non-UTF-8 bytes, and the empty input.
fn variants(base: &[u8], step: usize, seed: u64, random: usize) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for cut in (0..base.len()).step_by(step) {
        out.push((format!("truncated at {cut}"), base[..cut].to_vec()));
    }
    let mut rng = Rng(seed);
    for k in 0..random {
        let mut b = base.to_vec();
        let edits = 1 + rng.index(3);
        let mut how = Vec::new();
        for _ in 0..edits {
            let at = rng.index(b.len() + 1);
            match k % 4 {
                // A digit replaced by a digit keeps the syntax: these reach the
                // semantic checks (and sometimes stay valid).
                3 => {
                    let digits: Vec<usize> =
                        (0..b.len()).filter(|&i| b[i].is_ascii_digit()).collect();
                    if !digits.is_empty() {
                        let i = digits[rng.index(digits.len())];
                        b[i] = b'0' + rng.index(10) as u8;
                        how.push(format!("digit@{i}"));
                    }
                }
                0 if at < b.len() => {
                    b[at] = byte(&mut rng);
                    how.push(format!("flip@{at}"));
                }
                1 => {
                    b.insert(at, byte(&mut rng));
                    how.push(format!("insert@{at}"));
                }
                _ if at < b.len() => {
                    b.remove(at);
                    how.push(format!("delete@{at}"));
                }
                _ => {}
            }
        }
        out.push((format!("random #{k}: {}", how.join(" ")), b));
    }
    for k in 0..10 {
        let mut b = base.to_vec();
        let at = rng.index(b.len());
        let junk: &[u8] = [
            &[0xff, 0xfe][..],
            &[0xc3][..],
            &[0x80, 0x80, 0x80][..],
            &[0][..],
            &[0xef, 0xbb, 0xbf][..],
        ][k % 5];
        b.splice(at..at, junk.iter().copied());
        out.push((format!("non-UTF-8 at {at}"), b));
    }
    out.push(("empty".into(), Vec::new()));
    out.push(("BOM only".into(), vec![0xef, 0xbb, 0xbf]));
    out.push(("all 0xff".into(), vec![0xff; 300]));
    out
}

fn tmp(name: &str, contents: &[u8]) -> PathBuf {
    common::tmp_in("garbled", name, contents)
}

/// Runs tmin with a deadline: a hang fails the test instead of stalling it.
fn tmin(args: &[&str]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tmin"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tmin");
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("tmin {args:?} did not finish within 20 s");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    // Outputs are small (a verdict or one error line), so they fit the pipe buffers.
    let mut out = String::new();
    let mut err = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.code().expect("exit code, not a signal"), out, err)
}

/// `err` is `error: PATH:LINE:...` with a line number >= 1.
#[track_caller]
fn assert_input_error(err: &str, path: &str, what: &str) {
    assert!(err.starts_with("error: "), "{what}: {err:?}");
    let prefix = format!("error: {path}:");
    assert!(err.starts_with(&prefix), "{what}: want {prefix:?}: {err:?}");
    let line: String = err[prefix.len()..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    let n: u64 = line
        .parse()
        .unwrap_or_else(|_| panic!("{what}: no line number in {err:?}"));
    assert!(n >= 1, "{what}: {err:?}");
    assert!(!err.contains("panicked"), "{what}: {err}");
}

#[test]
fn garbled_instances_through_the_library() {
    let cases = variants(EX1, 3, 0x9e37_79b9_7f4a_7c15, 150);
    assert!(cases.len() >= 200, "{}", cases.len());
    let inst = parse_reader(EX1, "ex1").unwrap();
    let (mut ok, mut err) = (0, 0);
    for (what, bytes) in &cases {
        let r = catch_unwind(AssertUnwindSafe(|| {
            parse_reader(&bytes[..], "garbled.txt").map(|i| {
                // A garbled instance that still parses must also survive checking.
                check_reader(&i, EX1_SCHED, "ex1.schedule", 20).map(|rep| rep.is_legal())
            })
        }));
        match r {
            Err(_) => panic!(
                "parser or checker panicked on {what}: {:?}",
                String::from_utf8_lossy(bytes)
            ),
            Ok(Ok(Ok(_))) => ok += 1,
            Ok(Ok(Err(e))) => panic!("the example schedule is readable text: {e}"),
            Ok(Err(e)) => {
                err += 1;
                assert_eq!(e.file, "garbled.txt");
                assert!(e.pos.line >= 1, "{what}: {e}");
                assert!(!e.msg.is_empty());
            }
        }
    }
    // Both outcomes must actually occur, or the variants test nothing.
    assert!(ok > 0 && err > 100, "ok {ok}, err {err}");
    // The untouched base is fine.
    assert!(check_reader(&inst, EX1_SCHED, "s", 20).unwrap().is_legal());
}

#[test]
fn garbled_schedules_through_the_library() {
    let inst = parse_reader(EX1, "ex1").unwrap();
    let cases = variants(EX1_SCHED, 2, 0x2545_f491_4f6c_dd1d, 200);
    assert!(cases.len() >= 200);
    let (mut legal, mut illegal, mut unreadable) = (0, 0, 0);
    for (what, bytes) in &cases {
        let r = catch_unwind(AssertUnwindSafe(|| {
            check_reader(&inst, &bytes[..], "garbled.schedule", 20)
        }));
        match r {
            Err(_) => panic!(
                "checker panicked on {what}: {:?}",
                String::from_utf8_lossy(bytes)
            ),
            Ok(Ok(rep)) if rep.is_legal() => legal += 1,
            Ok(Ok(rep)) => {
                illegal += 1;
                assert!(rep.violations.total() >= rep.violations.kept.len());
            }
            Ok(Err(e)) => {
                unreadable += 1;
                assert!(e.pos.line >= 1, "{what}: {e}");
            }
        }
    }
    assert!(
        legal > 0 && illegal > 0 && unreadable > 0,
        "{legal} {illegal} {unreadable}"
    );
}

#[test]
fn garbled_instances_through_the_binary() {
    // A fresh, smaller set: truncations every 40 bytes and 30 random edits.
    let cases = variants(EX1, 40, 0x51_7cc1_b727_220a, 30);
    let sample: Vec<&(String, Vec<u8>)> = cases.iter().collect();
    assert!(sample.len() >= 30, "{}", sample.len());
    let mut codes = [0usize; 3];
    for (k, (what, bytes)) in sample.iter().enumerate() {
        let p = tmp(&format!("inst{k}.txt"), bytes);
        let path = p.to_str().unwrap();
        let (code, out, err) = tmin(&["info", path]);
        match code {
            0 => {
                assert!(out.starts_with("instance"), "{what}: {out}");
                codes[0] += 1;
            }
            2 => {
                assert_input_error(&err, path, what);
                codes[2] += 1;
            }
            c => panic!("{what}: exit {c}\nstdout {out}\nstderr {err}"),
        }
    }
    assert!(codes[0] > 0 && codes[2] > 0, "{codes:?}");
    eprintln!("instance exit codes 0/1/2: {codes:?}");
}

#[test]
fn garbled_schedules_through_the_binary() {
    let ip = tmp("ex1.txt", EX1);
    let cases = variants(EX1_SCHED, 25, 0x0123_4567_89ab_cdef, 30);
    let sample: Vec<&(String, Vec<u8>)> = cases.iter().collect();
    assert!(sample.len() >= 30, "{}", sample.len());
    let mut codes = [0usize; 3];
    for (k, (what, bytes)) in sample.iter().enumerate() {
        let p = tmp(&format!("sched{k}.schedule"), bytes);
        let path = p.to_str().unwrap();
        let (code, out, err) = tmin(&["check", ip.to_str().unwrap(), path]);
        match code {
            0 => assert!(out.starts_with("legal: makespan"), "{what}: {out}"),
            1 => assert!(out.starts_with("illegal: "), "{what}: {out}"),
            2 => assert_input_error(&err, path, what),
            c => panic!("{what}: exit {c}\nstdout {out}\nstderr {err}"),
        }
        codes[code as usize] += 1;
    }
    assert!(codes[1] > 0 && codes[2] > 0, "{codes:?}");
    eprintln!("schedule exit codes 0/1/2: {codes:?}");
}

#[test]
fn pathological_inputs_finish() {
    // Deep or long inputs that a recursive or quadratic parser would choke on.
    let deep = "[".repeat(200_000);
    let long_number = format!("SetSocInfo([[0,{}]],[])", "9".repeat(100_000));
    let long_ident = format!("{}(", "A".repeat(100_000));
    let many_blank = "\n".repeat(200_000);
    let mut nested = String::from("SetSocInfo(");
    nested.push_str(&"[".repeat(50_000));
    for (what, text) in [
        ("deep", deep.as_str()),
        ("long number", long_number.as_str()),
        ("long ident", long_ident.as_str()),
        ("blank lines", many_blank.as_str()),
        ("nested", nested.as_str()),
    ] {
        let t0 = Instant::now();
        let e = parse_reader(text.as_bytes(), "p.txt").expect_err(what);
        assert!(e.pos.line >= 1, "{what}: {e}");
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "{what} took {:?}",
            t0.elapsed()
        );
        let inst = parse_reader(EX1, "ex1").unwrap();
        let e = check_reader(&inst, text.as_bytes(), "p.schedule", 20).expect_err(what);
        assert!(e.pos.line >= 1, "{what}: {e}");
    }
    // The identifier in the message is cut short, not echoed in full.
    let e = parse_reader(long_ident.as_bytes(), "p.txt").unwrap_err();
    assert!(e.msg.len() < 300, "{}", e.msg.len());
}
