//! `tmin bench merge DIR... --out DIR`: one table from shard folders and
//! earlier runs. Per instance (by content hash and format): the largest
//! proven lower bound and the best schedule, each schedule re-validated
//! against the instance file; runs that contradict each other are marked and
//! end the merge with exit 70, naming both.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::inputs::{self, Input};
use super::record::Record;
use super::run::read_input;
use super::{BenchError, Format, create_out_dir, lock_out_dir, store, summary};
use crate::instance::Instance;
use crate::schedule::Schedule;

/// One line of one run.
struct Claim {
    run: usize,
    rec: Record,
}

/// Merges the folders `dirs` into `out` (which may be one of them).
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<(), BenchError> {
    if dirs.is_empty() {
        return Err(BenchError::Usage(
            "bench merge needs at least one bench folder".into(),
        ));
    }
    let mut groups: Vec<Vec<Claim>> = Vec::new();
    let mut at: HashMap<(String, String), usize> = HashMap::new();
    for (run, d) in dirs.iter().enumerate() {
        for rec in store::input_folder(d, "merge")? {
            let g = *at.entry(rec.key()).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push(Claim { run, rec });
        }
    }
    let mut merged: Vec<(Record, Option<(Instance, Schedule)>)> = Vec::new();
    let mut disagreements: Vec<String> = Vec::new();
    for claims in groups {
        let (rec, kept, dis) = merge_one(&claims, dirs);
        if let Some(d) = dis {
            disagreements.push(format!("{} ({}): {d}", rec.name, rec.instance));
        }
        merged.push((rec, kept));
    }
    // Names over the merged set (two runs may have used one name for two contents).
    let as_inputs: Vec<Input> = merged
        .iter()
        .map(|(r, _)| Input {
            path: PathBuf::from(&r.instance),
            stem: r.name.clone(),
            hash: r.hash.clone(),
        })
        .collect();
    let names = inputs::names(&as_inputs, &HashMap::new());

    create_out_dir(out)?;
    let _lock = lock_out_dir(out)?;
    store::remove_stale_temporaries(out);
    store::remove_stale_temporaries(&out.join("schedules"));
    let out_err = |e: std::io::Error| BenchError::Output(format!("{}: {e}", out.display()));
    let mut records = Vec::with_capacity(merged.len());
    for ((mut rec, kept), name) in merged.into_iter().zip(names) {
        rec.name = name;
        rec.schedule = None;
        rec.schedule_hash = None;
        if let Some((inst, sched)) = kept {
            let g = crate::graph::NodeGraph::new(&inst, sched.choice.clone())
                .map_err(BenchError::Internal)?;
            let mut buf = Vec::new();
            crate::schedule::write_schedule(&g, &sched, &mut buf).map_err(out_err)?;
            store::write_atomic(&store::schedule_path(out, &rec.name), &buf).map_err(out_err)?;
            rec.schedule = Some(store::schedule_rel(&rec.name));
            rec.schedule_hash = Some(crate::digest::sha256_hex(&buf));
        }
        records.push(rec);
    }
    store::rewrite(out, &records).map_err(out_err)?;
    summary::write(out, &records).map_err(out_err)?;
    let proven = records.iter().filter(|r| r.proven()).count();
    let line = format!(
        "merged {} folder(s): {} instances ({} proven); {}\n",
        dirs.len(),
        records.len(),
        proven,
        out.join("summary.md").display()
    );
    std::io::stdout()
        .write_all(line.as_bytes())
        .map_err(|e| BenchError::Output(e.to_string()))?;
    if !disagreements.is_empty() {
        return Err(BenchError::Internal(format!(
            "runs disagree (a bug in one of them; marked in summary.md): {}",
            disagreements.join("; ")
        )));
    }
    Ok(())
}

/// Finds the instance file of a group: a path some line names whose content
/// still has the hash.
fn find_instance(claims: &[Claim]) -> Option<(PathBuf, Instance)> {
    let mut tried: Vec<&str> = Vec::new();
    for c in claims {
        if tried.contains(&c.rec.instance.as_str()) {
            continue;
        }
        tried.push(&c.rec.instance);
        let p = PathBuf::from(&c.rec.instance);
        let format = if c.rec.format == "jsp" {
            Format::Jsp
        } else {
            Format::Txt
        };
        let far = crate::stop::far_future(std::time::Instant::now());
        if let Ok((inst, hash)) = read_input(&p, format, far)
            && hash == c.rec.hash
        {
            return Some((p, inst));
        }
    }
    None
}

/// Re-validates a line's schedule: it must be legal for the instance and
/// have the makespan the line says.
fn revalidate(inst: &Instance, dir: &Path, rec: &Record) -> Result<(Schedule, u128), String> {
    let rel = rec.schedule.as_deref().ok_or("no schedule")?;
    let path = dir.join(rel);
    let name = path.display().to_string();
    let f = std::fs::File::open(&path).map_err(|e| format!("{name}: {e}"))?;
    let read = crate::schedule::read_schedule(inst, std::io::BufReader::new(f), &name, 3)
        .map_err(|e| e.to_string())?;
    let sched = match read.schedule {
        Some(s) if read.violations.is_empty() => s,
        _ => return Err(format!("{name}: not a complete schedule")),
    };
    let g = crate::graph::NodeGraph::new(inst, sched.choice.clone())
        .map_err(|e| format!("{name}: {e}"))?;
    let v = crate::schedule::check(&g, &sched, 3);
    if !v.is_empty() {
        let first: Vec<String> = v.kept.iter().map(|x| x.to_string()).collect();
        return Err(format!("{name}: illegal: {}", first.join("; ")));
    }
    let m = sched.makespan(&g);
    if Some(m) != rec.makespan {
        return Err(format!(
            "{name}: makespan {m}, its line says {:?}",
            rec.makespan
        ));
    }
    Ok((sched, m))
}

/// The claims' schedules re-validated against the instance file (those that
/// fail are left out, with a warning); without the file, none.
fn validated(
    claims: &[Claim],
    dirs: &[PathBuf],
    found: Option<&(PathBuf, Instance)>,
) -> Vec<(usize, u128, Schedule)> {
    let run_name = |run: usize| dirs[run].display().to_string();
    let mut valid: Vec<(usize, u128, Schedule)> = Vec::new();
    match found {
        Some((_, inst)) => {
            for (i, c) in claims.iter().enumerate() {
                if c.rec.schedule.is_none() {
                    continue;
                }
                match revalidate(inst, &dirs[c.run], &c.rec) {
                    Ok((s, m)) => valid.push((i, m, s)),
                    Err(e) => log::warn!("{e}: left out of the merge"),
                }
            }
        }
        None => {
            let with: Vec<String> = claims
                .iter()
                .filter(|c| c.rec.schedule.is_some())
                .map(|c| run_name(c.run))
                .collect();
            log::warn!(
                "{} (hash {}): the instance file is gone or changed; {}its lower bound is kept",
                claims[0].rec.instance,
                &claims[0].rec.hash[..12],
                if with.is_empty() {
                    String::new()
                } else {
                    format!(
                        "the schedules of {} cannot be re-validated and are left out; ",
                        with.join(", ")
                    )
                }
            );
        }
    }
    valid
}

/// What the runs disagree on: two optima, a bound above a validated
/// makespan, infeasible beside a legal schedule.
fn disagreements(
    claims: &[Claim],
    dirs: &[PathBuf],
    best: Option<&(usize, u128, Schedule)>,
) -> Vec<String> {
    let run_name = |run: usize| dirs[run].display().to_string();
    let mut dis: Vec<String> = Vec::new();
    // Two proofs of optimality for different makespans.
    let optimal: Vec<&Claim> = claims
        .iter()
        .filter(|c| c.rec.status == "optimal")
        .collect();
    for (a, b) in optimal.iter().zip(optimal.iter().skip(1)) {
        if a.rec.makespan != b.rec.makespan {
            dis.push(format!(
                "optimal {} in {} but optimal {} in {}",
                a.rec.makespan.unwrap_or(0),
                run_name(a.run),
                b.rec.makespan.unwrap_or(0),
                run_name(b.run)
            ));
        }
    }
    if let Some((bi, bm, _)) = best {
        let b = &claims[*bi];
        for c in claims {
            if u128::from(c.rec.lower_bound) > *bm {
                dis.push(format!(
                    "lower bound {} ({}) in {} above the validated makespan {bm} in {}",
                    c.rec.lower_bound,
                    c.rec.bound_source,
                    run_name(c.run),
                    run_name(b.run)
                ));
            }
            if c.rec.status == "infeasible" {
                dis.push(format!(
                    "infeasible in {} but a legal schedule (makespan {bm}) in {}",
                    run_name(c.run),
                    run_name(b.run)
                ));
            }
        }
    }
    dis
}

/// One instance's merged line, the schedule to keep, and a disagreement.
fn merge_one(
    claims: &[Claim],
    dirs: &[PathBuf],
) -> (Record, Option<(Instance, Schedule)>, Option<String>) {
    let run_name = |run: usize| dirs[run].display().to_string();
    let found = find_instance(claims);
    // Validated schedules: (claim index, makespan, schedule).
    let valid = validated(claims, dirs, found.as_ref());
    let best = valid.iter().min_by_key(|(i, m, _)| (*m, *i));
    let dis = disagreements(claims, dirs, best);
    // The largest bound that is a bound: never one above a legal schedule.
    let cap = best.map(|(_, m, _)| *m);
    let bound = claims
        .iter()
        .filter(|c| cap.is_none_or(|m| u128::from(c.rec.lower_bound) <= m))
        .max_by_key(|c| c.rec.lower_bound);
    let base = best
        .map(|(i, _, _)| &claims[*i])
        .or(bound)
        .unwrap_or(&claims[0]);
    let mut rec = base.rec.clone();
    if let Some((p, inst)) = &found {
        rec.instance = p.display().to_string();
        let range = crate::tmax::node_range(inst);
        rec.ops = Some(inst.graph.n_ops() as u64);
        rec.nodes_min = range.map(|x| x.0);
        rec.nodes_max = range.map(|x| x.1);
        rec.t_max = crate::tmax::t_max(inst);
    }
    match bound {
        Some(c) => {
            rec.lower_bound = c.rec.lower_bound;
            rec.bound_source = c.rec.bound_source.clone();
        }
        None => {
            rec.lower_bound = 0;
            rec.bound_source = "none".into();
        }
    }
    rec.makespan = best.map(|(_, m, _)| *m);
    rec.gap = rec
        .makespan
        .map(|m| crate::solve::gap(m, u128::from(rec.lower_bound)));
    rec.status = match rec.makespan {
        Some(m) if m == u128::from(rec.lower_bound) => "optimal",
        Some(_) => "feasible",
        None if claims.iter().any(|c| c.rec.status == "infeasible") => "infeasible",
        None => "unknown",
    }
    .to_string();
    let mut runs: Vec<String> = claims.iter().map(|c| run_name(c.run)).collect();
    runs.dedup();
    rec.merged_from = runs;
    rec.disagreement = (!dis.is_empty()).then(|| dis.join("; "));
    let kept = match (found, best) {
        (Some((_, inst)), Some((_, _, s))) => Some((inst, s.clone())),
        _ => None,
    };
    let d = rec.disagreement.clone();
    (rec, kept, d)
}
