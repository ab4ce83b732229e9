"""Type stubs of tmin's Rust core (`tmin._tmin`); `tmin` re-exports all of it.

tests/python/test_stubs.py checks that every name and parameter here is the
module's own.
"""

import os
from typing import Any, Callable, ClassVar, Optional, Sequence, Union

__version__: str

Row = tuple[int, int, int, int, int]
"""One schedule row: (op id, tiling id, node id, start, core id within its type)."""

ScheduleLike = Union[str, os.PathLike[str], Sequence[Sequence[int]], "Result"]
"""A schedule: the output format's text, a file, rows, or a solve's Result."""

class ParseError(ValueError):
    """Text that does not follow the instance or schedule format."""

    file: str
    line: int
    """From 1; 0 when the file could not be opened."""
    column: int
    message: str

class InternalError(RuntimeError):
    """A bug in tmin: please report it with the input."""

class Status:
    """The proof status of a solve; str() gives its name in lower case."""

    OPTIMAL: ClassVar["Status"]
    """A schedule whose makespan equals a proven lower bound."""
    FEASIBLE: ClassVar["Status"]
    """A legal schedule, not proven optimal."""
    INFEASIBLE: ClassVar["Status"]
    """Proven: no legal schedule exists."""
    UNKNOWN: ClassVar["Status"]
    """No schedule and no proof within the limit."""

class Instance:
    """A problem instance: platform, op library, computation graph."""

    @staticmethod
    def read(path: Union[str, os.PathLike[str]]) -> "Instance": ...
    @staticmethod
    def parse(text: str, name: str = "<string>") -> "Instance": ...
    @staticmethod
    def read_jsp(path: Union[str, os.PathLike[str]]) -> "Instance":
        """A job shop in the OR-Library format, as `tmin import jsp` converts it."""
    @property
    def name(self) -> str: ...
    @property
    def core_types(self) -> list[tuple[int, int]]:
        """(core type id, core count) per core type."""
    @property
    def mem_types(self) -> list[tuple[int, int]]:
        """(memory type id, size) per memory type."""
    @property
    def ops(self) -> int: ...
    @property
    def op_edges(self) -> int: ...
    @property
    def tilings(self) -> int: ...
    @property
    def nodes_min(self) -> int: ...
    @property
    def nodes_max(self) -> int: ...
    @property
    def warnings(self) -> list[str]: ...
    @property
    def op_ids(self) -> list[int]: ...
    def usable_tilings(self, op: int) -> list[int]:
        """Usable tiling ids of the op with id `op`."""
    def graph(self, tilings: Optional[dict[int, int]] = None) -> "Graph":
        """The node graph of one tiling per op ({op id: tiling id}; others: first usable)."""
    def info(self) -> dict[str, Any]:
        """What `tmin info --json` shows."""

class Graph:
    """The node graph of one tiling choice; node v is nodes[v] = (op, tiling, node id)."""

    @property
    def tilings(self) -> dict[int, int]: ...
    @property
    def nodes(self) -> list[tuple[int, int, int]]: ...
    @property
    def durations(self) -> list[int]: ...
    @property
    def core_types(self) -> list[int]: ...
    @property
    def memory(self) -> list[list[tuple[int, int]]]:
        """(memory type id, amount) each node holds."""
    @property
    def succs(self) -> list[list[int]]: ...
    @property
    def preds(self) -> list[list[int]]: ...
    @property
    def cores(self) -> dict[int, int]:
        """{core type id: core count}."""
    @property
    def mem_sizes(self) -> dict[int, int]:
        """{memory type id: size}."""
    def __len__(self) -> int: ...

class Violation:
    """One broken rule of a schedule."""

    @property
    def kind(self) -> str:
        """structure, core-id, precedence, core-overlap or memory."""
    @property
    def message(self) -> str: ...
    @property
    def nodes(self) -> list[tuple[int, int]]:
        """(op id, node id) of the nodes involved."""
    @property
    def rows(self) -> list[int]:
        """Indices (from 0) of the schedule rows naming those nodes."""
    @property
    def time(self) -> Optional[int]: ...

class Verdict:
    """The validator's verdict; true when the schedule is legal."""

    @property
    def legal(self) -> bool: ...
    @property
    def makespan(self) -> Optional[int]: ...
    @property
    def violations(self) -> list[Violation]: ...
    @property
    def violation_count(self) -> int: ...
    @property
    def rows(self) -> int: ...
    @property
    def counts(self) -> dict[str, int]: ...
    @property
    def lower_bound(self) -> Optional[int]: ...
    @property
    def bound_source(self) -> Optional[str]: ...
    @property
    def gap(self) -> Optional[float]: ...
    @property
    def tilings_lower_bound(self) -> Optional[int]: ...
    @property
    def tilings_bound_source(self) -> Optional[str]: ...
    @property
    def tilings_gap(self) -> Optional[float]: ...
    @property
    def usage(self) -> Optional[dict[str, Any]]:
        """With usage=True, of a legal schedule: `tmin check --usage --json`'s "usage"."""
    def __bool__(self) -> bool: ...

class Bound:
    """Proven lower bounds, valid for every tiling choice."""

    @property
    def value(self) -> int: ...
    @property
    def source(self) -> str: ...
    @property
    def bounds(self) -> list[tuple[str, int]]: ...

class Result:
    """What a solve found."""

    @property
    def status(self) -> Status: ...
    @property
    def makespan(self) -> Optional[int]: ...
    @property
    def lower_bound(self) -> int: ...
    @property
    def bound_source(self) -> str: ...
    @property
    def gap(self) -> Optional[float]: ...
    @property
    def engine(self) -> str: ...
    @property
    def seconds(self) -> float: ...
    @property
    def notes(self) -> list[str]: ...
    @property
    def interrupted(self) -> bool: ...
    @property
    def schedule(self) -> Optional[list[Row]]: ...
    def schedule_text(self) -> Optional[str]: ...

class Score:
    """A schedule's score between T_min and T_max."""

    @property
    def legal(self) -> bool: ...
    @property
    def makespan(self) -> Optional[int]: ...
    @property
    def score(self) -> float: ...
    @property
    def t_min(self) -> int: ...
    @property
    def t_min_kind(self) -> str: ...
    @property
    def t_min_source(self) -> str: ...
    @property
    def t_max(self) -> int: ...
    @property
    def t_max_source(self) -> str: ...
    @property
    def gap(self) -> Optional[float]: ...
    @property
    def tilings_bound(self) -> Optional[int]: ...
    @property
    def tilings_bound_source(self) -> Optional[str]: ...
    @property
    def order_gap(self) -> Optional[float]: ...
    @property
    def violations(self) -> list[str]: ...
    @property
    def violation_count(self) -> int: ...

class Generated:
    """A generated instance and its witness schedule."""

    @property
    def family(self) -> str: ...
    @property
    def seed(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def witness(self) -> list[Row]: ...
    @property
    def witness_makespan(self) -> int: ...
    @property
    def optimum(self) -> Optional[int]: ...
    @property
    def mem_sizes(self) -> list[int]: ...
    @property
    def instance(self) -> Instance: ...

def check(
    instance: Instance,
    schedule: ScheduleLike,
    max_violations: int = 20,
    bound: bool = False,
    usage: bool = False,
) -> Verdict: ...
def bound(instance: Instance, time_limit: float = 5.0) -> Bound: ...
def engines() -> list[tuple[str, str]]: ...
def solve(
    instance: Instance,
    engine: str = "auto",
    time_limit: float = 5.0,
    threads: int = 1,
    seed: int = 1,
    start: Optional[ScheduleLike] = None,
    memory_limit: int = 512,
    on_progress: Optional[Callable[[dict[str, Any]], object]] = None,
    rule: str = "release",
) -> Result: ...
def score(
    instance: Instance,
    schedule: ScheduleLike,
    reference: Optional[Union[str, os.PathLike[str]]] = None,
    t_max: Optional[int] = None,
    s_base: float = 0.0,
    s_max: float = 100.0,
    max_violations: int = 5,
) -> Score: ...
def gen(
    family: str = "random",
    *,
    seed: int = 1,
    ops: int = 20,
    op_types: int = 4,
    shapes: Optional[int] = None,
    tilings: int = 3,
    nodes: tuple[int, int] = (4, 8),
    width: int = 3,
    cores: Optional[Sequence[int]] = None,
    mem_types: int = 2,
    tightness: Optional[float] = None,
    graphs: int = 1,
    unusable: Optional[float] = None,
    max_time: int = 10,
    density: float = 1.5,
    mem_factor: Optional[float] = None,
    reach: Optional[int] = None,
    interleave: Optional[int] = None,
    lanes: Optional[int] = None,
    joins: Optional[float] = None,
    bind_cores: bool = False,
) -> Generated: ...
def plot(
    instance: Instance, schedule: ScheduleLike, title: Optional[str] = None, aggregate: bool = False
) -> str: ...
