//! Facts every engine and bound shares, one layer below them: tiling
//! dominance (models/sat.md §1.1) and the time unit (models/bounds.md §9).
//! Topological orders live one layer down, in `dag` (the parser needs them).

pub mod dominance;
pub mod unit;
