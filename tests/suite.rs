//! The integration tests, compiled as one test binary (`autotests = false`
//! in Cargo.toml): one link of the library and HiGHS instead of one a file,
//! and the tests of every file share the cores instead of running file after
//! file. Each file below is one module and keeps its own name, so
//! `cargo test --test suite corners::` runs the tests of tests/corners.rs.

#[path = "common/mod.rs"]
mod common;

#[path = "aggregate_bound.rs"]
mod aggregate_bound;
#[path = "arguments.rs"]
mod arguments;
#[path = "bench.rs"]
mod bench;
#[path = "bnb.rs"]
mod bnb;
#[path = "cases.rs"]
mod cases;
#[path = "certify.rs"]
mod certify;
#[path = "check_rules.rs"]
mod check_rules;
#[path = "check_usage.rs"]
mod check_usage;
#[path = "choices.rs"]
mod choices;
#[path = "corners.rs"]
mod corners;
#[path = "declared_counts.rs"]
mod declared_counts;
#[path = "energetic.rs"]
mod energetic;
#[path = "faults.rs"]
mod faults;
#[path = "garbled.rs"]
mod garbled;
#[path = "gen_lanes.rs"]
mod gen_lanes;
#[path = "gen_packed.rs"]
mod gen_packed;
#[path = "generate.rs"]
mod generate;
#[path = "highs_smoke.rs"]
mod highs_smoke;
#[path = "import_jsp.rs"]
mod import_jsp;
#[path = "in_turn.rs"]
mod in_turn;
#[path = "list.rs"]
mod list;
#[path = "lns.rs"]
mod lns;
#[path = "local.rs"]
mod local;
#[path = "milp.rs"]
mod milp;
#[path = "parse_errors.rs"]
mod parse_errors;
#[path = "plot.rs"]
mod plot;
#[path = "portfolio.rs"]
mod portfolio;
#[path = "progress.rs"]
mod progress;
#[path = "registry.rs"]
mod registry;
#[path = "rooms.rs"]
mod rooms;
#[path = "sat.rs"]
mod sat;
#[path = "sat_budget.rs"]
mod sat_budget;
#[path = "sat_points.rs"]
mod sat_points;
#[path = "sat_propagator.rs"]
mod sat_propagator;
#[path = "score.rs"]
mod score;
#[path = "serial_search.rs"]
mod serial_search;
#[path = "sgs_modes.rs"]
mod sgs_modes;
#[path = "tmax.rs"]
mod tmax;
#[path = "warm_start.rs"]
mod warm_start;
#[path = "windows.rs"]
mod windows;
#[path = "writes.rs"]
mod writes;
