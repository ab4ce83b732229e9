"""tmin.check against `tmin check`, rule by rule, and the rows a violation names."""

import json
import random
import subprocess

import pytest

import tmin

PAIRS = [
    ("instances/example1.txt", "instances/example1.schedule.txt"),
    ("instances/example2.txt", "instances/example2.schedule.txt"),
    ("tests/data/empty-op-between.txt", "tests/data/empty-op-between.schedule"),
    ("tests/data/many-core-types.txt", "tests/data/many-core-types.schedule"),
    ("tests/data/wide-tilings.txt", "tests/data/wide-tilings.one-row-per-op.schedule"),
    ("tests/data/work-2pow64.txt", "tests/data/work-2pow64.schedule"),
    ("tests/data/held-2pow64.txt", "tests/data/held-2pow64.schedule"),
]


def cli_check(cli, instance, schedule):
    out = subprocess.run(
        [cli, "check", str(instance), str(schedule), "--json"], capture_output=True, text=True
    )
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


def agree(cli, inst, instance_path, schedule_path):
    """The verdict from a file, from its text and from its rows agrees with the CLI's."""
    want = cli_check(cli, instance_path, schedule_path)
    text = schedule_path.read_text()
    for given in (schedule_path, text):
        got = tmin.check(inst, given)
        assert got.legal == want["legal"] and bool(got) == want["legal"]
        makespan = want["makespan"]
        assert got.makespan == (int(makespan) if makespan is not None else None)
        assert got.violation_count == want["violation_count"]
        assert got.counts == want["counts"]
        assert got.rows == want["rows"]
        assert [(v.kind, v.message, [list(n) for n in v.nodes]) for v in got.violations] == [
            (v["rule"], v["message"], v["nodes"]) for v in want["violations"]
        ]
    return want


@pytest.mark.parametrize("instance,schedule", PAIRS)
def test_bundled_schedules_agree_with_the_cli(cli, root, instance, schedule):
    inst = tmin.Instance.read(root / instance)
    agree(cli, inst, root / instance, root / schedule)


@pytest.mark.parametrize("instance,schedule", PAIRS)
def test_bounds_agree_with_the_cli(cli, root, instance, schedule):
    """check(bound=True) gives a legal schedule the bounds `tmin check --bound` gives it."""
    inst = tmin.Instance.read(root / instance)
    out = subprocess.run(
        [cli, "check", str(root / instance), str(root / schedule), "--json", "--bound"],
        capture_output=True,
        text=True,
    )
    want = json.loads(out.stdout)
    got = tmin.check(inst, root / schedule, bound=True)
    assert got.legal == want["legal"]
    if not got.legal:
        # An illegal schedule has no distance to a bound, here as there.
        assert got.lower_bound is None and got.tilings_gap is None and "lower_bound" not in want
        return
    assert (got.lower_bound, got.bound_source) == (want["lower_bound"], want["bound_source"])
    assert (got.tilings_lower_bound, got.tilings_bound_source) == (
        want["tilings_lower_bound"],
        want["tilings_bound_source"],
    )
    assert got.gap == pytest.approx(want["gap"]) and got.tilings_gap == pytest.approx(
        want["tilings_gap"]
    )
    assert got.lower_bound <= got.tilings_lower_bound <= got.makespan
    plain = tmin.check(inst, root / schedule)
    assert plain.lower_bound is None and plain.tilings_gap is None


@pytest.mark.parametrize("instance,schedule", PAIRS)
def test_usage_agrees_with_the_cli(cli, root, instance, schedule):
    """check(usage=True) gives a legal schedule `tmin check --usage --json`'s usage, from a
    file, its text and its rows; an illegal one none, here as there."""
    out = subprocess.run(
        [cli, "check", str(root / instance), str(root / schedule), "--json", "--usage"],
        capture_output=True,
        text=True,
    )
    want = json.loads(out.stdout)

    def exact(x):
        # The JSON writes amounts at or above 2^64 as strings of their
        # digits; Python gets them as ints.
        if isinstance(x, dict):
            return {k: exact(v) for k, v in x.items()}
        if isinstance(x, list):
            return [exact(v) for v in x]
        return int(x) if isinstance(x, str) and x.isdigit() else x

    inst = tmin.Instance.read(root / instance)
    text = (root / schedule).read_text()
    for given in (root / schedule, text, json.loads(text) if text.lstrip().startswith("[") else text):
        got = tmin.check(inst, given, usage=True)
        assert got.usage == exact(want.get("usage"))
    assert tmin.check(inst, root / schedule).usage is None


def test_usage_counts_a_hold_until_the_successor_and_a_wait_for_the_core():
    # One core, memory 20: op 1 (5 units, 10 of memory) at 0, op 3 (3 units,
    # no memory) at 5, op 2 (3 units, 10 of memory; edge 1 -> 2) at 8. Op 1
    # holds until op 2 starts: 10 x 8 + 10 x 3 = 110 held against 80 run;
    # the chain (op 1, op 2) runs 8 and waits 3 for the busy core.
    text = (
        "SetSocInfo([[0,1]],[[0,20]])\n"
        "AddOpInfo(1,1,0,[],[[1,0,5]],[[1,0,10]])\n"
        "AddOpInfo(2,1,0,[],[[1,0,3]],[[1,0,10]])\n"
        "AddOpInfo(3,1,0,[],[[1,0,3]],[])\n"
        "GetInferenceScheResult([[1,2]],[[1,1,1],[2,2,1],[3,3,1]])\n"
    )
    inst = tmin.Instance.parse(text, "hold")
    u = tmin.check(inst, [(1, 0, 1, 0, 0), (3, 0, 1, 5, 0), (2, 0, 1, 8, 0)], usage=True).usage
    # Op 1 is its op's last sink and op 2's only predecessor: its 3 past
    # its end are op 2's wait once ready.
    past = {"in_op": 0, "op_sinks": 0, "join": 0, "successor_wait": 30}
    assert u["memory"] == [{"type": 0, "size": 20, "peak": 10, "held": 110, "run": 80, "past": past}]
    assert u["cores"] == [{"type": 0, "cores": 1, "busy": 11}]
    assert u["chain"] == {
        "nodes": 2,
        "ops": 2,
        "start": 0,
        "work": 8,
        "wait_cores_busy": 3,
        "wait_core_free": 0,
    }


def test_bounds_split_the_order_from_the_tilings():
    # One op, two one-node tilings of 10 and 30 units: the instance's bound
    # is 10; no schedule with the slow tiling ends before 30. Started at 5
    # it ends at 35, 5 of them its order's.
    text = (
        "SetSocInfo([[0,1]],[[0,100]])\n"
        "AddOpInfo(1,1,0,[],[[1,0,10]],[[1,0,50]])\n"
        "AddOpInfo(1,1,1,[],[[1,0,30]],[[1,0,5]])\n"
        "GetInferenceScheResult([],[[1,1,1]])\n"
    )
    inst = tmin.Instance.parse(text, "two-tilings")
    v = tmin.check(inst, [(1, 1, 1, 5, 0)], bound=True)
    assert (v.makespan, v.lower_bound, v.tilings_lower_bound) == (35, 10, 30)
    assert v.tilings_gap == pytest.approx(5 / 35) and v.gap == pytest.approx(25 / 35)
    fast = tmin.check(inst, [(1, 0, 1, 0, 0)], bound=True)
    assert (fast.lower_bound, fast.tilings_lower_bound, fast.gap) == (10, 10, 0.0)
    # An illegal schedule (a node on a core that does not exist) has none.
    bad = tmin.check(inst, [(1, 0, 1, 0, 7)], bound=True)
    assert not bad and bad.lower_bound is None and bad.gap is None


def mutations(rows, rng):
    """Broken copies of legal rows, one kind of fault each."""
    k = rng.randrange(len(rows))
    op, t, node, start, core = rows[k]
    yield "start later", rows[:k] + [(op, t, node, start + rng.randint(1, 7), core)] + rows[k + 1:]
    yield "start earlier", rows[:k] + [(op, t, node, max(0, start - 3), core)] + rows[k + 1:]
    yield "core id out of range", rows[:k] + [(op, t, node, start, core + 1000)] + rows[k + 1:]
    yield "all on core 0", [(o, tt, n, s, 0) for o, tt, n, s, _ in rows]
    yield "a row twice", rows + [rows[k]]
    yield "a row missing", rows[:k] + rows[k + 1:]
    yield "an unknown op", rows + [(10**6, 0, 1, 0, 0)]
    yield "all at once", [(o, tt, n, 0, c) for o, tt, n, _, c in rows]


def test_broken_schedules_agree_with_the_cli_and_name_their_rows(cli, root, tmp_path):
    rng = random.Random(7)
    seen = set()
    for seed in (1, 2, 3):
        g = tmin.gen("random", seed=seed, ops=8, tightness=0.8)
        path = tmp_path / f"g{seed}.txt"
        path.write_text(g.text)
        inst = tmin.Instance.read(path)
        for what, rows in mutations(list(g.witness), rng):
            sched = tmp_path / "s.txt"
            sched.write_text("[" + ",".join("[%d,%d,%d,%d,%d]" % r for r in rows) + "]")
            want = agree(cli, inst, path, sched)
            got = tmin.check(inst, rows)
            assert (got.legal, got.violation_count, got.counts) == (
                want["legal"],
                want["violation_count"],
                want["counts"],
            ), what
            seen.update(k for k, n in got.counts.items() if n)
            for v in got.violations:
                # Every row named holds one of the violation's nodes, and
                # every row holding one is named.
                assert v.rows == [i for i, r in enumerate(rows) if (r[0], r[2]) in v.nodes]
    assert {"structure", "core-id", "precedence", "core-overlap"} <= seen


def test_a_memory_violation_names_its_type_and_holders(root):
    # One memory type of size 10; two one-node ops demanding 6 each, side by side.
    text = (
        "SetSocInfo([[0,2]],[[0,10]])\n"
        "AddOpInfo(1,1,0,[],[[1,0,5]],[[1,0,6]])\n"
        "GetInferenceScheResult([],[[1,1,1],[2,1,1]])\n"
    )
    inst = tmin.Instance.parse(text, "two")
    v = tmin.check(inst, [(1, 0, 1, 0, 0), (2, 0, 1, 0, 1)])
    assert not v and v.counts["memory"] >= 1
    m = next(x for x in v.violations if x.kind == "memory")
    assert sorted(m.nodes) == [(1, 1), (2, 1)] and sorted(m.rows) == [0, 1] and m.time == 0
    assert tmin.check(inst, [(1, 0, 1, 0, 0), (2, 0, 1, 5, 1)]).makespan == 10


def test_rows_may_be_lists_and_a_bad_row_is_a_type_error(root):
    inst = tmin.Instance.read(root / "instances" / "example1.txt")
    rows = tmin.solve(inst, engine="list", time_limit=1).schedule
    assert tmin.check(inst, [list(r) for r in rows]).legal
    with pytest.raises(ValueError, match="row 0 has 4 numbers"):
        tmin.check(inst, [[1, 1, 1, 0]])
    with pytest.raises(OverflowError):
        tmin.check(inst, [[1, 1, 1, 0, 2**40]])
    with pytest.raises(TypeError):
        tmin.check(inst, 42)
