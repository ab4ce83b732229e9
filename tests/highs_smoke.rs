//! The HiGHS build path works: a 2-variable MILP solved through good_lp.

use good_lp::{Solution, SolverModel, constraint, default_solver, variable, variables};

#[test]
fn two_variable_milp_through_good_lp_and_highs() {
    // max 3x + 2y  s.t.  x + y <= 4.5,  x <= 2.5,  x, y integer >= 0.
    // The LP optimum (2.5, 2) is fractional; the integer optimum is x=2, y=2 (10).
    let mut vars = variables!();
    let x = vars.add(variable().integer().min(0));
    let y = vars.add(variable().integer().min(0));
    let sol = vars
        .maximise(3 * x + 2 * y)
        .using(default_solver)
        .with(constraint!(x + y <= 4.5))
        .with(constraint!(x <= 2.5))
        .solve()
        .expect("HiGHS solves a tiny MILP");
    assert_eq!(sol.value(x).round() as i64, 2);
    assert_eq!(sol.value(y).round() as i64, 2);
    assert!((sol.eval(3 * x + 2 * y) - 10.0).abs() < 1e-6);
}
