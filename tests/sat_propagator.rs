//! tmin's propagator interface in its copy of varisat (vendor/varisat/PATCH.md,
//! `Solver::set_propagator`), on a constraint that only the propagator knows:
//! at most `cap` pigeons per hole. The clauses say only "each pigeon in some
//! hole"; the propagator answers every fixpoint with the clauses that a full
//! hole implies (unit: the other pigeons stay out) or that an overfull hole
//! violates (conflict). `cap` 1 gives binary clauses, 2 long ones. With one
//! pigeon too many the answer must be UNSAT; with as many as fit, SAT with a
//! model the constraint accepts; under assumptions, both.

use std::cell::Cell;
use std::rc::Rc;

use varisat::external::{ExternalPropagator, Values};
use varisat::{ExtendFormula, Lit, Solver, Var};

struct Holes {
    pigeons: usize,
    holes: usize,
    cap: usize,
    clauses: Rc<Cell<usize>>,
}

fn x(holes: usize, p: usize, h: usize) -> Lit {
    Var::from_index(p * holes + h).positive()
}

impl ExternalPropagator for Holes {
    fn propagate(&mut self, values: &Values, out: &mut Vec<Vec<Lit>>) {
        for h in 0..self.holes {
            let inside: Vec<usize> = (0..self.pigeons)
                .filter(|&p| values.lit(x(self.holes, p, h)) == Some(true))
                .collect();
            if inside.len() > self.cap {
                // Overfull: the first cap + 1 may not all be in.
                out.push(
                    inside[..=self.cap]
                        .iter()
                        .map(|&p| !x(self.holes, p, h))
                        .collect(),
                );
                self.clauses.set(self.clauses.get() + 1);
                return;
            }
            if inside.len() == self.cap {
                for p in 0..self.pigeons {
                    if values.lit(x(self.holes, p, h)).is_none() {
                        let mut c: Vec<Lit> =
                            inside.iter().map(|&q| !x(self.holes, q, h)).collect();
                        c.push(!x(self.holes, p, h));
                        out.push(c);
                        self.clauses.set(self.clauses.get() + 1);
                    }
                }
            }
        }
    }
}

/// The solver, its pigeon clauses and the propagator; the count of clauses
/// the propagator gave.
fn solver(pigeons: usize, holes: usize, cap: usize) -> (Solver<'static>, Rc<Cell<usize>>) {
    let mut s = Solver::new();
    for p in 0..pigeons {
        let c: Vec<Lit> = (0..holes).map(|h| x(holes, p, h)).collect();
        s.add_clause(&c);
    }
    let clauses = Rc::new(Cell::new(0));
    s.set_propagator(Holes {
        pigeons,
        holes,
        cap,
        clauses: clauses.clone(),
    });
    (s, clauses)
}

fn check_model(s: &Solver, pigeons: usize, holes: usize, cap: usize) {
    let model = s.model().expect("a model");
    let truth = |l: Lit| model.contains(&l);
    for p in 0..pigeons {
        assert!(
            (0..holes).any(|h| truth(x(holes, p, h))),
            "pigeon {p} homeless"
        );
    }
    for h in 0..holes {
        let n = (0..pigeons).filter(|&p| truth(x(holes, p, h))).count();
        assert!(n <= cap, "hole {h} holds {n} > {cap}");
    }
}

#[test]
fn one_pigeon_too_many_is_unsat_and_as_many_as_fit_is_sat() {
    for cap in [1, 2] {
        for holes in [3, 4] {
            let fit = cap * holes;
            let (mut s, used) = solver(fit + 1, holes, cap);
            assert!(!s.solve().unwrap(), "cap {cap}, {holes} holes");
            assert!(used.get() > 0);
            let (mut s, _) = solver(fit, holes, cap);
            assert!(s.solve().unwrap(), "cap {cap}, {holes} holes");
            check_model(&s, fit, holes, cap);
        }
    }
}

/// Assumptions that fill hole 0 with pigeons 0 and 1 (cap 1): UNSAT under
/// them, and the solver stays usable: without them SAT again, and with
/// pigeon 0 alone in hole 0, pigeon 1 elsewhere.
#[test]
fn assumptions_combine_with_the_propagator() {
    let (pigeons, holes, cap) = (3, 3, 1);
    let (mut s, _) = solver(pigeons, holes, cap);
    s.assume(&[x(holes, 0, 0), x(holes, 1, 0)]);
    assert!(!s.solve().unwrap());
    s.assume(&[]);
    assert!(s.solve().unwrap());
    check_model(&s, pigeons, holes, cap);
    s.assume(&[x(holes, 0, 0)]);
    assert!(s.solve().unwrap());
    check_model(&s, pigeons, holes, cap);
    let model = s.model().unwrap();
    assert!(model.contains(&x(holes, 0, 0)));
    assert!(!model.contains(&x(holes, 1, 0)));
}
