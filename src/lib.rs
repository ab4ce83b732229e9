//! tmin: optimal and bounded schedules for the minimum inference latency problem.
//!
//! Layers, from data to reporting: `instance` (pure data and its parser), `graph`
//! (one expansion to a flat node graph), `schedule` (the one schedule type, its
//! text format and validator), then the tools built on them.

pub mod bench;
pub mod bnb;
pub mod bounds;
pub mod certificate;
pub mod dag;
pub mod digest;
pub mod engine;
pub mod error;
pub mod events;
pub mod generate;
pub mod graph;
pub mod import;
pub mod instance;
pub mod list;
pub mod local;
pub mod milp;
pub mod pipeline;
pub mod plot;
pub mod portfolio;
pub mod prep;
#[cfg(feature = "python")]
pub mod python;
pub mod registry;
pub mod report;
pub mod rng;
pub mod sat;
pub mod schedule;
pub mod score;
pub mod solve;
pub mod stop;
pub mod text;
pub mod tmax;
