//! Tiling choices refuted before search (models/sat.md §1.2): tilings of an
//! op that no legal schedule can use, and pairs of tilings of two related
//! ops that no legal schedule uses together. The SAT engine proves them
//! (`sat::context`) on small sub-instances; the combinatorial bounds, the
//! tiling-choice relaxation and the SAT encoding then range over what is
//! left. Pure data: which tilings each bound may assume.

use std::sync::Mutex;

use crate::instance::Instance;

/// The tilings every bound and engine ranges over, and the pairs excluded.
#[derive(Clone, Debug, Default)]
pub struct TilingNogoods {
    /// Per op, the candidate tilings left (library indices, a subset of the
    /// undominated usable ones); `None`: nothing was refuted, the engines use
    /// `dominance::candidates_of_every_op`.
    pub cand: Option<Vec<Vec<u32>>>,
    /// `[(op, tiling), (op, tiling)]` (op indices, library tilings) of two
    /// related ops (joined by an op edge, or with a common predecessor or
    /// successor op): no legal schedule selects both.
    pub pairs: Vec<[(u32, u32); 2]>,
    /// Larger combinations `(op, tiling)` no legal schedule selects all of:
    /// op neighbourhoods found without a legal schedule under the
    /// tiling-choice relaxation's choices (models/bounds.md §6).
    pub sets: Vec<Vec<(u32, u32)>>,
    /// `(op, tiling)` refuted one by one (op indices, library tilings;
    /// dominated tilings are not listed).
    pub refuted: Vec<(u32, u32)>,
    /// Seconds spent proving them.
    pub seconds: f64,
}

impl TilingNogoods {
    /// The candidates of every op: what is left after refutation, or the
    /// undominated usable tilings when nothing was refuted.
    pub fn candidates(&self, inst: &Instance) -> Vec<Vec<u32>> {
        match &self.cand {
            Some(c) => c.clone(),
            None => crate::prep::dominance::candidates_of_every_op(inst),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.refuted.is_empty() && self.pairs.is_empty() && self.sets.is_empty()
    }

    /// Every refuted combination of tilings: the pairs, then the sets.
    pub fn combinations(&self) -> impl Iterator<Item = &[(u32, u32)]> {
        self.pairs
            .iter()
            .map(|p| &p[..])
            .chain(self.sets.iter().map(Vec::as_slice))
    }

    /// One line for notes and bound sources.
    pub fn summary(&self) -> String {
        let sets = if self.sets.is_empty() {
            String::new()
        } else {
            format!(" and {} larger tiling combinations", self.sets.len())
        };
        format!(
            "{} tilings and {} tiling pairs{sets} refuted in their ops' neighbourhoods ({:.2} s)",
            self.refuted.len(),
            self.pairs.len(),
            self.seconds
        )
    }
}

/// Refutations made at the levels of the bound during one solve (one
/// instance): `(S, T)`, no schedule of makespan at most `T` uses every
/// tiling of `S`. A level pass that hands its time back leaves those at its
/// level and above here, and the next pass (the portfolio's last, from the
/// bound the first reached) excludes them at once instead of deciding their
/// choices again.
#[derive(Debug, Default)]
pub struct LevelRefutations(Mutex<Vec<LevelRefutation>>);

/// `(S, T)`: no schedule of makespan at most `T` uses every tiling of `S`
/// (`(op, tiling)` pairs).
pub type LevelRefutation = (Vec<(u32, u32)>, u64);

impl LevelRefutations {
    /// Those that still exclude something at `level` and above.
    pub fn from(&self, level: u64) -> Vec<LevelRefutation> {
        let kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        kept.iter().filter(|r| r.1 >= level).cloned().collect()
    }

    /// Whether no refutation is kept.
    pub fn is_empty(&self) -> bool {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).is_empty()
    }

    /// Keeps `refuted` (a pass's, which began from `from`) for the levels
    /// from `level` on.
    pub fn keep(&self, mut refuted: Vec<LevelRefutation>, level: u64) {
        refuted.retain(|r| r.1 >= level);
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = refuted;
    }
}
