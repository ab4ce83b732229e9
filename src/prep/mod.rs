//! What every exactness argument rests on, written once and used by the
//! combinatorial bounds and every engine: heads and tails (and the
//! one-resource bounds on them), energetic reasoning, tiling dominance and
//! refuted tiling choices, start windows (edge finding, timetables), the time
//! unit.
//! Topological orders live one layer down, in `dag` (the parser needs them).

pub mod dominance;
pub mod energetic;
pub mod heads;
pub mod nogoods;
pub mod relaxation;
pub mod theta;
pub mod timetable;
pub mod unit;
pub mod windows;
