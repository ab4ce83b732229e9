//! The engine registry (src/registry.rs): a new engine is one type
//! implementing `Engine` and one registration line, and `--engine` offers
//! exactly what the registry holds.

use crate::common;

use tmin::engine::{Context, Engine, IncumbentShare};
use tmin::registry::{EngineOptions, Registration, Registry};
use tmin::solve::{SolveOptions, SolveResult, Status};

/// A test engine: it keeps whatever the incumbent step (list scheduling on
/// a tenth of the time) found, and searches nothing itself.
struct KeepIncumbent;

impl Engine for KeepIncumbent {
    fn name(&self) -> &'static str {
        "keep"
    }
    fn search(&self, _ctx: &Context, incumbent: SolveResult) -> SolveResult {
        incumbent
    }
    fn incumbent_share(&self) -> Option<IncumbentShare> {
        Some(IncumbentShare {
            seconds: |limit, _| limit * 0.1,
            patience: None,
        })
    }
}

#[test]
fn a_new_engine_is_one_registration_line() {
    #[rustfmt::skip]
    let registry = Registry::default().with(Registration { name: "keep", help: "keeps the incumbent", make: |_| Box::new(KeepIncumbent) });
    let choice = registry.choose("keep", EngineOptions::default()).unwrap();
    let inst = tmin::instance::parse_file(std::path::Path::new("instances/example1.txt")).unwrap();
    let opts = SolveOptions {
        time_limit: std::time::Duration::from_secs(1),
        ..SolveOptions::default()
    };
    let r = tmin::registry::run(&inst, &choice, &opts);
    assert_eq!(r.engine, "keep");
    // The task book example: list scheduling finds the optimum 38, which
    // meets the critical path.
    assert_eq!(r.makespan, Some(38));
    assert_eq!(r.status, Status::Optimal);
    // The built-in engines are still there, and an unknown name is none.
    assert!(registry.choose("sat", EngineOptions::default()).is_some());
    assert!(registry.choose("nope", EngineOptions::default()).is_none());
}

#[test]
fn engine_values_and_their_help_come_from_the_registry() {
    let (code, out, err) = common::tmin(&["solve", "--help"]);
    assert_eq!(code, 0, "{err}");
    for r in Registry::default().engines() {
        assert!(
            out.contains(&format!("- {}:", r.name)) && out.contains(r.help),
            "{}: {out}",
            r.name
        );
    }
    let (code, _, err) = common::tmin(&["solve", "instances/example1.txt", "--engine", "nope"]);
    assert_eq!(code, 2, "{err}");
    for r in Registry::default().engines() {
        assert!(err.contains(r.name), "{err}");
    }
}
