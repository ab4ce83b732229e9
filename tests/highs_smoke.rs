//! The HiGHS build path works: a 2-variable MILP through tmin's own modelling
//! layer (`milp::highs`, rows built sparse and passed to HiGHS in one call).

use tmin::milp::highs::{Expr, Milp, Params, RunStatus, run};

#[test]
fn two_variable_milp_through_highs() {
    // max 3x + 2y  s.t.  x + y <= 4.5,  x <= 2.5,  x, y integer >= 0,
    // written as min -3x - 2y. The LP optimum (2.5, 2) is fractional; the
    // integer optimum is x=2, y=2 (10), which HiGHS must reach by branching.
    let mut m = Milp::new(false);
    let x = m.col(0.0, f64::INFINITY, true, String::new);
    let y = m.col(0.0, f64::INFINITY, true, String::new);
    m.set_cost(x, -3.0);
    m.set_cost(y, -2.0);
    let mut sum = Expr::var(x);
    sum.add(y, 1.0);
    assert!(m.le(&sum, 4.5, String::new));
    assert!(m.le(&Expr::var(x), 2.5, String::new));
    let params = Params {
        time_limit: 10.0,
        threads: 1,
        seed: 1,
        abs_gap: 1e-9,
        cancel: None,
    };
    let r = run(&m, None, &params).expect("HiGHS solves a tiny MILP");
    assert_eq!(r.status, RunStatus::Optimal);
    let v = r.values.expect("an optimal run has values");
    assert_eq!(v[0].round() as i64, 2);
    assert_eq!(v[1].round() as i64, 2);
    assert!((3.0 * v[0] + 2.0 * v[1] - 10.0).abs() < 1e-6);
    assert!(m.violation(&v) < 1e-9);
}
