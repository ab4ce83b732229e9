//! `tmin check`: every rule of a schedule, with --bound its gap to the
//! proven bounds and to the bounds for its own tilings, with --usage where
//! its time goes.

use std::process::ExitCode;

use tmin::report;
use tmin::schedule::check_reader_with_usage;

use crate::io::{Failure, open_input, print_out, read_instance};

/// `tmin check`: every rule of a schedule, and with --bound the gap to the
/// proven bounds. Exit 0 when legal, 1 when not.
pub(crate) fn check_cmd(
    instance: &std::path::Path,
    schedule: &std::path::Path,
    json: bool,
    max_violations: usize,
    bound: bool,
    usage: bool,
) -> Result<ExitCode, Failure> {
    if instance.as_os_str() == "-" && schedule.as_os_str() == "-" {
        return Err(Failure::Usage(
            "instance and schedule cannot both be read from stdin".into(),
        ));
    }
    let t0 = std::time::Instant::now();
    let inst = read_instance(instance)?;
    let (src, name) = open_input(schedule)?;
    let (rep, use_) = check_reader_with_usage(
        &inst,
        std::io::BufReader::new(src),
        &name,
        max_violations,
        usage,
    )?;
    log::info!("checked in {:.3} s", t0.elapsed().as_secs_f64());
    let bounds = bound
        .then(|| tmin::pipeline::bounds::schedule_bounds(&inst, &rep))
        .flatten();
    if json {
        let v = report::check_json(&inst.name, &name, &rep, bounds.as_ref(), use_.as_ref());
        print_out(&format!("{v}\n"))?;
    } else {
        print_out(&report::check_text(&rep, bounds.as_ref(), use_.as_ref()))?;
    }
    Ok(ExitCode::from(if rep.is_legal() { 0 } else { 1 }))
}
