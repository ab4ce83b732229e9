//! tmin's patch: an external propagator, asked whenever unit propagation has
//! reached a fixpoint without conflict (lazy clause generation).
//!
//! The propagator reads the current values of user literals and answers with
//! clauses over user literals. Each must be implied by the formula (a
//! consequence of the problem the clauses encode, not of the current
//! assignment): they are added as learned clauses and may be deleted later
//! like any learned clause. A clause that the assignment makes unit assigns
//! its last literal (reason: the clause); one that it falsifies is a conflict,
//! analysed as any other. Not for use with proofs: the clauses are not
//! derivable by resolution from the formula, so a proof would not check.
use partial_ref::{partial, PartialRef};

use varisat_formula::{Lit, Var};

use crate::{
    clause::{assess::select_tier, db, ClauseHeader},
    context::{parts::*, Context},
    glue::compute_glue,
    prop::{backtrack, enqueue_assignment, Assignment, Conflict, Reason},
    variables::Variables,
};

/// Reads the current value of user literals, and which changed.
pub struct Values<'x> {
    variables: &'x Variables,
    assignment: &'x Assignment,
    /// Assignments made since the propagator last looked (`None`: unknown).
    changed: Option<&'x [Lit]>,
    /// Assignments it saw that a backtrack undid since.
    undone: &'x [Lit],
}

impl<'x> Values<'x> {
    /// The literal's value: `None` while unassigned.
    #[inline]
    pub fn lit(&self, lit: Lit) -> Option<bool> {
        let global = self.variables.global_from_user().get(lit.var())?;
        let value = match self.variables.solver_from_global().get(global) {
            Some(solver) => self.assignment.var_value(solver),
            // Removed from the solver: fixed by a unit clause, or unused.
            None => self.variables.var_data_global(global).unit,
        };
        value.map(|v| v ^ lit.is_negative())
    }

    /// Calls `f` with each user variable assigned since the propagator's last
    /// call (unassigned ones in between are not reported: a variable's value
    /// may since have been undone, which only widens what the propagator
    /// saw). Returns false, calling nothing, when that is not known (the
    /// first call, or the root's units were removed since): then anything
    /// may have changed.
    pub fn changed(&self, mut f: impl FnMut(Var)) -> bool {
        let Some(lits) = self.changed else {
            return false;
        };
        for &lit in lits {
            if let Some(user) = self
                .variables
                .global_from_solver()
                .get(lit.var())
                .and_then(|g| self.variables.user_from_global().get(g))
            {
                f(user);
            }
        }
        true
    }

    /// Calls `f` with each user variable that was assigned when the
    /// propagator last looked and that a backtrack has unassigned since
    /// (some may be assigned again: `changed` reports those too). Returns
    /// false, calling nothing, when `changed` does.
    pub fn undone(&self, mut f: impl FnMut(Var)) -> bool {
        if self.changed.is_none() {
            return false;
        }
        for &lit in self.undone {
            if let Some(user) = self
                .variables
                .global_from_solver()
                .get(lit.var())
                .and_then(|g| self.variables.user_from_global().get(g))
            {
                f(user);
            }
        }
        true
    }
}

/// A propagator asked at every propagation fixpoint (see the module).
pub trait ExternalPropagator {
    /// Push clauses (user literals) implied by the formula that the current
    /// assignment falsifies or makes unit; push nothing when there are none.
    fn propagate(&mut self, values: &Values, out: &mut Vec<Vec<Lit>>);
}

/// The propagator and its clause buffer, kept by the solver.
pub struct Hook<'a> {
    pub prop: Box<dyn ExternalPropagator + 'a>,
    pub out: Vec<Vec<Lit>>,
}

/// What adding the propagator's clauses did.
pub enum External {
    /// No clause: the search decides next.
    Nothing,
    /// Literals were assigned: propagate again.
    Assigned,
    /// A clause is falsified (after backtracking to its highest level).
    Conflict(Conflict),
}

/// Asks the propagator and adds its clauses.
pub fn external_step(
    mut ctx: partial!(
        Context,
        mut AssignmentP,
        mut BinaryClausesP,
        mut ClauseAllocP,
        mut ClauseDbP,
        mut ImplGraphP,
        mut TmpFlagsP,
        mut TrailP,
        mut VsidsP,
        mut WatchlistsP,
        VariablesP,
    ),
    hook: &mut Hook,
) -> External {
    let Hook { prop, out } = hook;
    out.clear();
    {
        let trail = ctx.part(TrailP);
        let len = trail.trail().len();
        let values = Values {
            variables: ctx.part(VariablesP),
            assignment: ctx.part(AssignmentP),
            changed: trail.low_water.map(|w| &trail.trail()[w.min(len)..]),
            undone: &trail.undone,
        };
        prop.propagate(&values, out);
    }
    let trail = ctx.part_mut(TrailP);
    trail.low_water = Some(trail.trail().len());
    trail.undone.clear();
    let mut result = External::Nothing;
    let mut lits: Vec<Lit> = vec![];
    'clauses: for user_clause in out.iter() {
        // To solver literals; literals fixed at the root are dropped when
        // false, and a clause with a true one is skipped.
        lits.clear();
        for &user in user_clause {
            let variables = ctx.part(VariablesP);
            let global = match variables.global_from_user().get(user.var()) {
                Some(g) => g,
                None => continue 'clauses,
            };
            match variables.solver_from_global().get(global) {
                Some(solver) => lits.push(user.map_var(|_| solver)),
                None => match variables.var_data_global(global).unit {
                    Some(v) if v ^ user.is_negative() => continue 'clauses,
                    Some(_) => {}
                    None => continue 'clauses,
                },
            }
        }
        lits.sort_unstable_by_key(|l| l.code());
        lits.dedup();
        if lits.windows(2).any(|w| w[0].var() == w[1].var()) {
            continue; // tautology
        }
        let assignment = ctx.part(AssignmentP);
        if lits.iter().any(|&l| assignment.lit_is_true(l)) {
            continue;
        }
        let unassigned = lits.iter().filter(|&&l| assignment.lit_is_unk(l)).count();
        // Order: unassigned literals first, then false ones by decreasing
        // level (the watches must be the two literals that become free first).
        {
            let graph = ctx.part(ImplGraphP);
            let assignment = ctx.part(AssignmentP);
            lits.sort_by_key(|&l| {
                if assignment.lit_is_unk(l) {
                    (0, 0)
                } else {
                    (1, usize::MAX - graph.level(l.var()))
                }
            });
        }
        if lits.is_empty() {
            // Every literal is false at the root: the formula is
            // unsatisfiable. A conflict at level 0 is analysed into the empty
            // clause without looking at its literals.
            if ctx.part(AssignmentP).assignment().is_empty() {
                continue;
            }
            backtrack(ctx.borrow(), 0);
            let any = Lit::from_index(0, true);
            return External::Conflict(Conflict::Binary([any, any]));
        }
        if lits.len() == 1 {
            // A unit clause: it holds at the root.
            let l = lits[0];
            let at_root = ctx.part(AssignmentP).lit_is_false(l)
                && ctx.part(ImplGraphP).level(l.var()) == 0;
            backtrack(ctx.borrow(), 0);
            if at_root {
                // False at the root: the formula is unsatisfiable.
                return External::Conflict(Conflict::Binary([l, l]));
            }
            enqueue_assignment(ctx.borrow(), l, Reason::Unit);
            return External::Assigned;
        }
        match unassigned {
            0 => {
                let level = ctx.part(ImplGraphP).level(lits[0].var());
                backtrack(ctx.borrow(), level);
                let conflict = add(ctx.borrow(), &lits, false);
                return External::Conflict(conflict);
            }
            1 => {
                let reason = match add(ctx.borrow(), &lits, true) {
                    Conflict::Binary([_, other]) => Reason::Binary([other]),
                    Conflict::Long(cref) => Reason::Long(cref),
                };
                enqueue_assignment(ctx.borrow(), lits[0], reason);
                result = External::Assigned;
            }
            _ => {
                add(ctx.borrow(), &lits, false);
            }
        }
    }
    result
}

/// Adds a clause of at least two literals (the first two are watched) as a
/// learned clause; returns it in the form of a conflict.
fn add(
    mut ctx: partial!(
        Context,
        mut BinaryClausesP,
        mut ClauseAllocP,
        mut ClauseDbP,
        mut TmpFlagsP,
        mut WatchlistsP,
        ImplGraphP,
    ),
    lits: &[Lit],
    unit: bool,
) -> Conflict {
    if lits.len() == 2 {
        ctx.part_mut(BinaryClausesP)
            .add_binary_clause([lits[0], lits[1]]);
        return Conflict::Binary([lits[0], lits[1]]);
    }
    let glue = if unit {
        compute_glue(ctx.borrow(), &lits[1..])
    } else {
        compute_glue(ctx.borrow(), lits)
    }
    .max(1);
    let mut header = ClauseHeader::new();
    header.set_glue(glue);
    header.set_tier(select_tier(glue));
    Conflict::Long(db::add_clause(ctx.borrow(), header, lits))
}
