"""tmin: optimal and bounded schedules for the minimum inference latency problem.

The same library as the ``tmin`` command (docs/python.md):

    import tmin
    inst = tmin.Instance.read("instances/example1.txt")
    result = tmin.solve(inst, time_limit=10)
    print(result.status, result.makespan, result.lower_bound)
    print(tmin.check(inst, result.schedule))

Everything is computed by the Rust core (``tmin._tmin``); this file only
names what the package offers.
"""

from tmin._tmin import (
    Bound,
    Generated,
    Graph,
    Instance,
    InternalError,
    ParseError,
    Result,
    Score,
    Status,
    Verdict,
    Violation,
    __version__,
    bound,
    check,
    engines,
    gen,
    plot,
    score,
    solve,
)

__all__ = [
    "Bound",
    "Generated",
    "Graph",
    "Instance",
    "InternalError",
    "ParseError",
    "Result",
    "Score",
    "Status",
    "Verdict",
    "Violation",
    "__version__",
    "bound",
    "check",
    "engines",
    "gen",
    "plot",
    "score",
    "solve",
]
