//! Seeded random instances with a proven feasible schedule (`tmin gen`).
//! (Being written: see issue 2.)

use crate::instance::Instance;
use crate::schedule::Schedule;

/// Knobs of the generator; see `tmin gen --help`.
#[derive(Clone, Debug, PartialEq)]
pub struct GenConfig {
    pub seed: u64,
    pub ops: u32,
    pub op_types: u32,
    pub shapes: u32,
    pub tilings: u32,
    pub nodes_min: u32,
    pub nodes_max: u32,
    pub width: u32,
    pub cores: Vec<u32>,
    pub mem_types: u32,
    pub tightness: f64,
    pub graphs: u32,
    pub unusable: f64,
    pub max_time: u64,
    pub density: f64,
}

impl GenConfig {
    pub fn validate(&self) -> Result<(), String> {
        Ok(())
    }
}

/// A generated instance, its text, and the generator's own legal schedule.
pub struct Generated {
    pub text: String,
    pub instance: Instance,
    pub witness: Schedule,
    pub witness_makespan: u128,
}

pub fn generate(_cfg: &GenConfig) -> Result<Generated, String> {
    Err("not yet implemented".into())
}
