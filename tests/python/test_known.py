"""Known optima and bounds through the Python package."""

import pytest

import tmin


def test_the_task_book_example_is_proven_optimal_at_38(root):
    inst = tmin.Instance.read(root / "instances" / "example1.txt")
    r = tmin.solve(inst, time_limit=20)
    assert r.status == tmin.Status.OPTIMAL and str(r.status) == "optimal"
    assert (r.makespan, r.lower_bound, r.gap) == (38, 38, 0.0)
    assert tmin.check(inst, r).makespan == 38


def test_ft06_is_proven_optimal_at_55(root):
    inst = tmin.Instance.read_jsp(root / "tests" / "data" / "jsplib" / "ft06")
    assert (inst.ops, len(inst.core_types)) == (6, 6)  # a job an op, a machine a core type
    r = tmin.solve(inst, time_limit=30)
    assert (r.status, r.makespan, r.lower_bound) == (tmin.Status.OPTIMAL, 55, 55)


def test_each_engine_gives_a_legal_schedule_no_better_than_the_optimum(root):
    inst = tmin.Instance.read(root / "instances" / "example1.txt")
    names = [name for name, _ in tmin.engines()]
    assert {"auto", "list", "sat", "milp", "greedy"} <= set(names)
    for name in names:
        r = tmin.solve(inst, engine=name, time_limit=5)
        assert r.lower_bound <= 38, name
        if r.schedule is not None:
            assert tmin.check(inst, r.schedule).legal, name
            assert r.makespan >= 38, name


def test_known_optimum_families_have_their_optimum_as_witness_and_bound():
    for family, options in (("packed", {"cores": [2]}), ("lanes", {})):
        g = tmin.gen(family, seed=3, ops=8, **options)
        v = tmin.check(g.instance, g.witness)
        assert v.legal and v.makespan == g.witness_makespan == g.optimum, family
        b = tmin.bound(g.instance, time_limit=1)
        assert b.value <= g.optimum and (b.source, b.value) in b.bounds
        r = tmin.solve(g.instance, time_limit=2, start=g.witness)
        assert r.makespan == g.optimum and r.lower_bound <= g.optimum


def test_a_warm_start_is_checked_first(root):
    inst = tmin.Instance.read(root / "instances" / "example1.txt")
    good = (root / "instances" / "example1.schedule.txt").read_text()
    r = tmin.solve(inst, engine="list", time_limit=1, start=good)
    assert r.makespan <= tmin.check(inst, good).makespan
    with pytest.raises(TypeError):
        tmin.solve(inst, start=3.5)
    # Node 1 of op 1 a unit later ends after node 2 starts.
    late = good.replace("[1,1,1,0,0]", "[1,1,1,1,0]")
    with pytest.raises(ValueError, match="not a legal schedule"):
        tmin.solve(inst, start=late)
