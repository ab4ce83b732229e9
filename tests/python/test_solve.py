"""Solving from Python: progress events, Ctrl-C, the GIL."""

import _thread
import threading
import time

import pytest

import tmin


def tight():
    """A memory-tight instance auto does not settle in a minute (tight-small's o48s2 shape)."""
    return tmin.gen(
        "random", seed=2, ops=48, nodes=(8, 16), graphs=3, mem_types=3,
        cores=[4, 4, 8], tightness=1.0,
    ).instance


def test_progress_events_are_monotone_and_end_with_the_result():
    inst = tight()
    events = []
    r = tmin.solve(inst, time_limit=4, on_progress=events.append)
    kinds = [e["event"] for e in events]
    assert kinds[-1] == "result" and "result" not in kinds[:-1]
    assert "incumbent" in kinds and "bound" in kinds
    makespans = [e["makespan"] for e in events if e["event"] == "incumbent"]
    bounds = [e["lower_bound"] for e in events if e["event"] == "bound"]
    assert makespans == sorted(makespans, reverse=True) and len(set(makespans)) == len(makespans)
    assert bounds == sorted(bounds) and len(set(bounds)) == len(bounds)
    seconds = [e["seconds"] for e in events]
    assert seconds == sorted(seconds)
    last = events[-1]
    assert (last["status"], last["makespan"], last["lower_bound"], last["gap"]) == (
        str(r.status), r.makespan, r.lower_bound, r.gap,
    )
    assert makespans[-1] >= r.makespan and bounds[-1] <= r.lower_bound
    assert not r.interrupted


def test_ctrl_c_returns_the_best_schedule_found_so_far():
    # Ctrl-C half a second after the first schedule is offered (when that is
    # depends on the machine: about 2 s of bounds come first at this limit).
    inst = tight()
    timers = []

    def on_progress(event):
        if event["event"] == "incumbent" and not timers:
            timers.append((time.monotonic(), threading.Timer(0.5, _thread.interrupt_main)))
            timers[0][1].start()

    t0 = time.monotonic()
    r = tmin.solve(inst, time_limit=120, on_progress=on_progress)
    done = time.monotonic()
    (first, timer), = timers
    timer.join()
    assert r.interrupted and done - first < 2.5 and done - t0 < 60, (first - t0, done - t0)
    assert r.schedule is not None and tmin.check(inst, r).legal
    assert tmin.check(inst, r).makespan == r.makespan >= r.lower_bound
    assert r.status in (tmin.Status.FEASIBLE, tmin.Status.OPTIMAL)
    assert "interrupted" in r.notes[-1]


def test_an_exception_in_on_progress_stops_the_solve_and_is_raised():
    inst = tight()

    def stop(event):
        if event["event"] == "incumbent":
            raise RuntimeError("enough")

    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="enough"):
        tmin.solve(inst, time_limit=120, on_progress=stop)
    assert time.monotonic() - t0 < 10


def test_ctrl_c_while_on_progress_runs_is_ctrl_c():
    inst = tight()

    def interrupted(event):
        if event["event"] == "incumbent":
            raise KeyboardInterrupt

    t0 = time.monotonic()
    r = tmin.solve(inst, time_limit=120, on_progress=interrupted)
    assert r.interrupted and time.monotonic() - t0 < 10
    assert tmin.check(inst, r).legal


def test_the_gil_is_released_while_the_engines_run():
    inst = tight()
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.01)

    t = threading.Thread(target=count)
    t.start()
    r = tmin.solve(inst, time_limit=1.5, threads=2)
    done.set()
    t.join()
    assert r.schedule is not None
    assert len(ticks) > 50, len(ticks)


def test_the_time_limit_is_kept():
    inst = tight()
    t0 = time.monotonic()
    tmin.solve(inst, time_limit=2)
    assert time.monotonic() - t0 < 2.5


def test_makespans_beyond_64_bits_are_exact_ints(root):
    inst = tmin.Instance.read(root / "tests" / "data" / "makespan-beyond-u64.txt")
    events = []
    r = tmin.solve(inst, time_limit=2, on_progress=events.append)
    assert r.makespan == 2 * (2**64 - 1)
    assert tmin.check(inst, r).makespan == r.makespan
    assert [e["makespan"] for e in events if "makespan" in e][-1] == r.makespan
    assert all(isinstance(e.get("makespan", 0), int) for e in events)
    assert tmin.check(inst, r.schedule_text()).makespan == r.makespan
