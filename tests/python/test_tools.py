"""info, gen, score and plot agree with their commands."""

import json
import subprocess

import pytest

import tmin


def test_info_is_the_cli_info(cli, root):
    path = root / "instances" / "example2.txt"
    inst = tmin.Instance.read(path)
    want = json.loads(subprocess.run([cli, "info", str(path), "--json"],
                                     capture_output=True, text=True, check=True).stdout)
    assert inst.info() == want
    assert inst.core_types == [tuple(x) for x in want["core_types"]]
    assert inst.mem_types == [tuple(x) for x in want["mem_types"]]
    assert (inst.ops, inst.nodes_min, inst.nodes_max) == (
        want["ops"], want["graph_nodes_min"], want["graph_nodes_max"])


@pytest.mark.parametrize("family,options,flags", [
    ("random", {"ops": 10, "tightness": 0.7}, ["--ops", "10", "--tightness", "0.7"]),
    ("packed", {"ops": 10, "cores": [3], "mem_factor": 1.0},
     ["--ops", "10", "--cores", "3", "--mem-factor", "1.0"]),
    ("lanes", {"ops": 10, "lanes": 3, "bind_cores": True},
     ["--ops", "10", "--lanes", "3", "--bind-cores"]),
])
def test_gen_writes_what_tmin_gen_writes(cli, tmp_path, family, options, flags):
    g = tmin.gen(family, seed=4, **options)
    out, witness = tmp_path / "i.txt", tmp_path / "w.txt"
    subprocess.run([cli, "gen", "--family", family, "--seed", "4", *flags, "-o", str(out),
                    "--schedule", str(witness)], check=True)
    assert g.text == out.read_text()
    v = tmin.check(g.instance, witness)
    assert v.legal and v.makespan == g.witness_makespan
    assert tmin.check(g.instance, g.witness).legal
    assert g.instance.info()["ops"] == g.instance.ops
    if family == "random":
        assert g.optimum is None
    else:
        assert g.optimum == g.witness_makespan


def test_graph_follows_the_chosen_tilings(root):
    inst = tmin.Instance.read(root / "instances" / "example1.txt")
    assert inst.op_ids == [1, 2, 3]
    for op in inst.op_ids:
        for t in inst.usable_tilings(op):
            g = inst.graph({op: t})
            assert g.tilings[op] == t
            assert all(n[1] == g.tilings[n[0]] for n in g.nodes)
            assert sum(len(s) for s in g.succs) == sum(len(p) for p in g.preds)
            for v, ss in enumerate(g.succs):
                assert all(v in g.preds[w] for w in ss)
    with pytest.raises(ValueError):
        inst.graph({1: 99})


def test_score_agrees_with_tmin_score(cli, root, tmp_path):
    path = root / "instances" / "example1.txt"
    inst = tmin.Instance.read(path)
    sched = root / "instances" / "example1.schedule.txt"
    want = json.loads(subprocess.run([cli, "score", str(path), str(sched), "--json"],
                                     capture_output=True, text=True, check=True).stdout)[0]
    got = tmin.score(inst, sched)
    assert (got.legal, got.makespan, got.t_min, got.t_max) == (
        want["legal"], want["makespan"], want["t_min"], want["t_max"])
    assert got.score == pytest.approx(want["score"])
    assert (got.tilings_bound, got.tilings_bound_source) == (
        want["tilings_bound"], want["tilings_bound_source"])
    assert got.order_gap == pytest.approx(want["order_gap"])
    # Op 1 in its chain tiling: no schedule with these tilings ends before
    # their critical path, 20 + 14 + 9 = 43, which this one meets.
    chain = ("[[1,0,1,0,0],[1,0,2,5,0],[1,0,3,15,0],[2,0,1,20,0],[2,0,2,24,0],"
             "[2,0,3,30,0],[2,0,4,24,1],[2,0,5,30,1],[3,0,1,34,0],[3,0,2,38,0],[3,0,3,40,0]]")
    c = tmin.score(inst, chain)
    assert (c.makespan, c.t_min, c.tilings_bound, c.order_gap) == (43, 38, 43, 0.0)
    assert c.gap == pytest.approx(5 / 43)
    ref = tmp_path / "ref.csv"
    ref.write_text("instance,t_min,t_min_kind\nexample1,38,optimal\n")
    s = tmin.score(inst, sched, reference=ref)
    assert s.t_min_kind == "optimal" and s.t_min_source.startswith("reference")
    ref.write_text("instance,t_min,t_min_kind\nexample1,40,optimal\n")
    with pytest.raises(ValueError, match="not a lower bound"):
        tmin.score(inst, sched, reference=ref)
    late = sched.read_text().replace("[1,1,1,0,0]", "[1,1,1,1,0]")
    bad = tmin.score(inst, late)
    assert not bad.legal and bad.score == 0.0 and bad.violation_count > 0
    assert bad.tilings_bound is None and bad.order_gap is None


def test_plot_draws_a_legal_schedule_and_refuses_an_illegal_one(root):
    inst = tmin.Instance.read(root / "instances" / "example1.txt")
    r = tmin.solve(inst, engine="list", time_limit=1)
    svg = tmin.plot(inst, r, title="example 1")
    assert svg.startswith("<svg") and "example 1" in svg and svg.rstrip().endswith("</svg>")
    assert tmin.plot(inst, r, aggregate=True).startswith("<svg")
    late = r.schedule_text().replace("[1,1,1,0,0]", "[1,1,1,1,0]")
    with pytest.raises(ValueError, match="not a legal schedule"):
        tmin.plot(inst, late)
