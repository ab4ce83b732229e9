#!/usr/bin/env python3
"""CP-SAT (OR-Tools) model of tmin's problem, for side-by-side benchmarks only.

This is a peer to measure tmin against (scripts/bench-cpsat), never a part of tmin:
it needs `ortools` from PyPI, which the benchmark script installs into a venv.

Usage: cpsat_model.py INSTANCE --time-limit S [--workers 1] [--out SCHEDULE] [--fixed START]
Prints one JSON line: status (optimal|feasible|infeasible|unknown), makespan,
lower_bound, seconds, and writes the best schedule (problem.md section 5) to --out,
so that `tmin check` can validate it. With --fixed START (a legal schedule), every
op keeps START's tiling and the search starts from START (a complete hint): whether
CP-SAT improves the order of a given tiling choice, and its bound for that choice.

       cpsat_model.py --bench LIST DIR --time-limit S [--workers 1]
Solves every instance of a `tmin bench` list file into DIR in `tmin bench`'s
folder format (results.jsonl, schedules/NAME.schedule), so that `tmin bench
merge` validates its schedules and `tmin bench compare` sets it beside tmin.

The model (problem.md sections 2-4), with y[o,k] "op o uses tiling k":
- each node of a candidate tiling is an interval [s, s + p) present iff y[o,k];
- intra-tiling edges: s_w >= s_u + p_u if y; op edges through op-level variables
  F_a >= end of every selected sink of a, G_b <= start of every selected source
  of b, F_a <= G_b (an empty tiling constrains nothing, problem.md section 6);
- cores: per core type a cumulative of capacity CoreNum (unit demands on identical
  cores: interval colouring turns any such profile into core ids);
- memory: node x with d(x,m) > 0 holds d over [s_x, R_x) with R_x >= end(x) and
  R_x >= start of each selected direct successor that demands m (cross-op: through
  S[b,m] >= start of each selected source of b demanding m). Only lower bounds on
  R are stated: a larger R only holds memory longer, so any solution stays legal
  with R at its least value, the rule's R, and optima agree.
"""
import argparse
import ast
import heapq
import json
import re
import sys
import time

from ortools.sat.python import cp_model

CALL = re.compile(r"^\s*(\w+)\s*\((.*)\)\s*$", re.S)


def parse(path):
    soc, lib, graph = None, {}, None
    for line in open(path):
        if not line.strip():
            continue
        m = CALL.match(line)
        if not m:
            raise SystemExit(f"{path}: cannot read line: {line[:80]!r}")
        name, args = m.group(1), ast.literal_eval("[" + m.group(2) + "]")
        if name == "SetSocInfo":
            soc = ({c: n for c, n in args[0]}, {t: s for t, s in args[1]})
        elif name == "AddOpInfo":
            op_type, shape, tiling, edges, nodes, mems = args
            lib.setdefault((op_type, shape), []).append((tiling, edges, nodes, mems))
        elif name == "GetInferenceScheResult":
            graph = args
    return soc, lib, graph


class Tiling:
    def __init__(self, tid, edges, nodes, mems, cores, mem_size):
        self.id = tid
        self.nodes = [n for n, _, _ in nodes]
        self.core = {n: c for n, c, _ in nodes}
        self.p = {n: t for n, _, t in nodes}
        self.edges = [(a, b) for a, b in edges]
        self.dem = {}
        for n, t, d in mems:
            if d > 0:
                self.dem.setdefault(n, {}).setdefault(t, 0)
                self.dem[n][t] += d
        has_pred = {b for _, b in self.edges}
        has_succ = {a for a, _ in self.edges}
        self.sources = [n for n in self.nodes if n not in has_pred]
        self.sinks = [n for n in self.nodes if n not in has_succ]
        self.usable = all(cores.get(self.core[n], 0) > 0 for n in self.nodes) and all(
            t in mem_size and d <= mem_size[t] for n in self.dem for t, d in self.dem[n].items()
        )
        self.total = sum(self.p.values())


def build(soc, lib, graph, fixed=None):
    """The model; with `fixed` (op -> tiling id, from a schedule's rows) only
    those tilings, and an op without rows keeps an empty tiling."""
    cores, mem = soc
    op_edges, ops = graph
    m = cp_model.CpModel()
    tilings = {}
    for oid, ot, sh in ops:
        cands = [Tiling(*e, cores, mem) for e in lib.get((ot, sh), [])]
        cands = [t for t in cands if t.usable]
        if fixed is not None:
            cands = [t for t in cands if (t.id == fixed[oid] if oid in fixed else not t.nodes)][:1]
        if not cands:
            return None
        tilings[oid] = cands
    horizon = sum(max(t.total for t in ts) for ts in tilings.values())
    y, s, iv = {}, {}, {}
    by_core = {}
    mk = m.NewIntVar(0, horizon, "mk")
    holds = {}  # mem type -> [(start, R, demand, presence)]
    R, size_of = {}, {}
    for oid, ts in tilings.items():
        lits = []
        for t in ts:
            lit = m.NewBoolVar(f"y{oid}_{t.id}")
            y[oid, t.id] = lit
            lits.append(lit)
            for n in t.nodes:
                p = t.p[n]
                sv = m.NewIntVar(0, horizon, "")
                s[oid, t.id, n] = sv
                itv = m.NewOptionalFixedSizeIntervalVar(sv, p, lit, "")
                iv[oid, t.id, n] = itv
                if p > 0:
                    by_core.setdefault(t.core[n], []).append(itv)
                m.Add(mk >= sv + p).OnlyEnforceIf(lit)
                for mt, d in t.dem.get(n, {}).items():
                    r = m.NewIntVar(0, horizon, "")
                    R[oid, t.id, n, mt] = r
                    m.Add(r >= sv + p)
                    size = m.NewIntVar(0, horizon, "")
                    size_of[oid, t.id, n, mt] = size
                    h = m.NewOptionalIntervalVar(sv, size, r, lit, "")
                    holds.setdefault(mt, []).append((h, d))
            for a, b in t.edges:
                m.Add(s[oid, t.id, b] >= s[oid, t.id, a] + t.p[a]).OnlyEnforceIf(lit)
                for mt in t.dem.get(a, {}):
                    if mt in t.dem.get(b, {}):
                        m.Add(R[oid, t.id, a, mt] >= s[oid, t.id, b]).OnlyEnforceIf(lit)
        m.AddExactlyOne(lits)
    F, G, S = {}, {}, {}
    for a, b in op_edges:
        if a not in F:
            F[a] = m.NewIntVar(0, horizon, "")
            for t in tilings[a]:
                for x in t.sinks:
                    m.Add(F[a] >= s[a, t.id, x] + t.p[x]).OnlyEnforceIf(y[a, t.id])
        if b not in G:
            G[b] = m.NewIntVar(0, horizon, "")
            for t in tilings[b]:
                for z in t.sources:
                    m.Add(G[b] <= s[b, t.id, z]).OnlyEnforceIf(y[b, t.id])
        m.Add(F[a] <= G[b])
        for t in tilings[a]:
            for x in t.sinks:
                for mt in t.dem.get(x, {}):
                    if (b, mt) not in S:
                        S[b, mt] = m.NewIntVar(0, horizon, "")
                        for u in tilings[b]:
                            for z in u.sources:
                                if mt in u.dem.get(z, {}):
                                    m.Add(S[b, mt] >= s[b, u.id, z]).OnlyEnforceIf(y[b, u.id])
                    m.Add(R[a, t.id, x, mt] >= S[b, mt]).OnlyEnforceIf(y[a, t.id])
    for c, ivs in by_core.items():
        if cores[c] == 1:
            m.AddNoOverlap(ivs)
        else:
            m.AddCumulative(ivs, [1] * len(ivs), cores[c])
    for mt, hs in holds.items():
        m.AddCumulative([h for h, _ in hs], [d for _, d in hs], mem[mt])
    m.Minimize(mk)
    aux = dict(R=R, size=size_of, F=F, G=G, S=S, op_edges=op_edges)
    return m, tilings, y, s, mk, aux


def hint_start(m, tilings, y, s, mk, aux, start):
    """A complete hint: `start` ((op, node) -> start, one tiling an op) and every
    auxiliary variable at its least value under it (R: the release rule's)."""
    T = {oid: ts[0] for oid, ts in tilings.items()}
    end = {(o, n): start[o, n] + T[o].p[n] for o, t in T.items() for n in t.nodes}
    for (o, _, n), v in s.items():
        m.AddHint(v, start[o, n])
    for v in y.values():
        m.AddHint(v, 1)
    S = {}
    for (b, mt), v in aux["S"].items():
        S[b, mt] = max([start[b, z] for z in T[b].sources if mt in T[b].dem.get(z, {})], default=0)
        m.AddHint(v, S[b, mt])
    for a, v in aux["F"].items():
        m.AddHint(v, max([end[a, x] for x in T[a].sinks], default=0))
    for b, v in aux["G"].items():
        m.AddHint(v, min([start[b, z] for z in T[b].sources], default=0))
    succ = {}
    for a, b in aux["op_edges"]:
        succ.setdefault(a, []).append(b)
    for (o, tid, n, mt), v in aux["R"].items():
        t = T[o]
        r = end[o, n]
        for a, b in t.edges:
            if a == n and mt in t.dem.get(b, {}):
                r = max(r, start[o, b])
        if n in t.sinks:
            r = max([r] + [S[b, mt] for b in succ.get(o, []) if (b, mt) in S])
        m.AddHint(v, r)
        m.AddHint(aux["size"][o, tid, n, mt], r - start[o, n])
    m.AddHint(mk, max(end.values(), default=0))


def schedule_rows(solver, tilings, y, s, cores):
    rows, runs = [], {}
    for oid, ts in tilings.items():
        t = next(t for t in ts if solver.Value(y[oid, t.id]))
        for n in t.nodes:
            st = solver.Value(s[oid, t.id, n])
            rows.append([oid, t.id, n, st, 0])
            if t.p[n] > 0:
                runs.setdefault(t.core[n], []).append((st, st + t.p[n], len(rows) - 1))
    for c, rs in runs.items():
        free = list(range(cores[c]))
        busy = []  # (end, core)
        for st, en, i in sorted(rs):
            while busy and busy[0][0] <= st:
                heapq.heappush(free, heapq.heappop(busy)[1])
            core = heapq.heappop(free)
            rows[i][4] = core
            heapq.heappush(busy, (en, core))
    return rows


def solve(instance, time_limit, workers, out_path, fixed_path=None):
    """Solves one instance; returns the JSON summary (and writes the schedule)."""
    t0 = time.time()
    soc, lib, graph = parse(instance)
    fixed, start = None, None
    if fixed_path:
        rows = json.loads(open(fixed_path).read().replace("\n", ""))
        fixed = {op: tid for op, tid, _, _, _ in rows}
        start = {(op, n): st for op, _, n, st, _ in rows}
    built = build(soc, lib, graph, fixed)
    if built is None:
        return dict(status="infeasible", makespan=None, lower_bound=None, seconds=time.time() - t0)
    m, tilings, y, s, mk, aux = built
    if start is not None:
        hint_start(m, tilings, y, s, mk, aux, start)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.1, time_limit - (time.time() - t0))
    solver.parameters.num_workers = workers
    st = solver.Solve(m)
    name = {cp_model.OPTIMAL: "optimal", cp_model.FEASIBLE: "feasible", cp_model.INFEASIBLE: "infeasible"}.get(
        st, "unknown"
    )
    out = dict(status=name, makespan=None, lower_bound=None, seconds=round(time.time() - t0, 3))
    if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        out["makespan"] = int(solver.ObjectiveValue())
        out["lower_bound"] = int(round(solver.BestObjectiveBound()))
        if out_path:
            rows = schedule_rows(solver, tilings, y, s, soc[0])
            with open(out_path, "w") as f:
                f.write(json.dumps(rows, separators=(",", ":")) + "\n")
    elif st == cp_model.UNKNOWN:
        out["lower_bound"] = int(round(solver.BestObjectiveBound()))
    return out


def bench(list_file, folder, time_limit, workers):
    """`tmin bench`'s folder for CP-SAT: one results.jsonl line an instance."""
    import hashlib
    import os

    base = os.path.dirname(list_file)
    os.makedirs(os.path.join(folder, "schedules"), exist_ok=True)
    with open(os.path.join(folder, "results.jsonl"), "w") as res:
        for line in open(list_file):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            path = line if os.path.isabs(line) else os.path.join(base, line)
            name = os.path.basename(path)[: -len(".txt")] if path.endswith(".txt") else os.path.basename(path)
            rel = f"schedules/{name}.schedule"
            sched = os.path.join(folder, rel)
            r = solve(path, time_limit, workers, sched)
            ms, lb = r["makespan"], r["lower_bound"] or 0
            status = r["status"]
            if ms is not None and lb >= ms:
                status, lb = "optimal", ms
            elif status == "optimal":
                status = "feasible"
            digest = None
            if ms is not None:
                digest = hashlib.sha256(open(sched, "rb").read()).hexdigest()
            rec = dict(
                instance=path, name=name, hash=hashlib.sha256(open(path, "rb").read()).hexdigest(),
                format="txt", ops=None, nodes_min=None, nodes_max=None, engine="cpsat",
                engine_used="cpsat", time_limit=time_limit, seed=1, threads=workers, status=status,
                makespan=ms, lower_bound=lb, bound_source="CP-SAT",
                gap=None if ms in (None, 0) else (ms - lb) / ms, t_max=None,
                wall_seconds=r["seconds"], total_seconds=r["seconds"], version="ortools",
                schedule=rel if ms is not None else None, schedule_hash=digest,
            )
            res.write(json.dumps(rec) + "\n")
            res.flush()
            print(f"{name}: {status} {ms} / {lb}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("instance", nargs="?")
    ap.add_argument("--time-limit", type=float, default=60)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out")
    ap.add_argument("--bench", nargs=2, metavar=("LIST", "DIR"))
    ap.add_argument("--fixed", metavar="START", help="keep START's tilings and start from it")
    a = ap.parse_args()
    if a.bench:
        bench(a.bench[0], a.bench[1], a.time_limit, a.workers)
    elif a.instance:
        print(json.dumps(solve(a.instance, a.time_limit, a.workers, a.out, a.fixed)))
        sys.stdout.flush()
    else:
        ap.error("an INSTANCE or --bench LIST DIR")


if __name__ == "__main__":
    main()
