"""The package's surface: stubs that match the module, no runtime dependency,
the worked example."""

import ast
import inspect
import pathlib
import subprocess
import sys

import tmin
import tmin._tmin as core

STUB = pathlib.Path(tmin.__file__).with_name("_tmin.pyi")


def stub_tree():
    return ast.parse(STUB.read_text())


def test_every_public_name_is_in_the_stub_and_exported():
    tree = stub_tree()
    stubbed = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    public = {n for n in dir(core) if not n.startswith("_")}
    assert stubbed == public
    assert set(tmin.__all__) == public | {"__version__"}


def test_the_stubs_parameters_are_the_functions():
    for node in stub_tree().body:
        if isinstance(node, ast.FunctionDef):
            args = node.args
            names = [a.arg for a in args.args] + [a.arg for a in args.kwonlyargs]
            real = list(inspect.signature(getattr(core, node.name)).parameters)
            assert names == real, node.name


def test_the_stubs_members_are_the_classes():
    for node in stub_tree().body:
        if isinstance(node, ast.ClassDef) and node.name not in ("ParseError", "InternalError"):
            cls = getattr(core, node.name)
            for item in node.body:
                name = getattr(item, "name", None) or getattr(
                    getattr(item, "target", None), "id", None)
                if name and not name.startswith("__"):
                    assert hasattr(cls, name), f"{node.name}.{name}"


def test_importing_tmin_loads_nothing_outside_the_standard_library():
    code = (
        "import sys; before = set(sys.modules); import tmin; "
        "print('\\n'.join(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    stdlib = set(sys.stdlib_module_names)
    foreign = [m for m in out.stdout.split() if m.split(".")[0] not in stdlib | {"tmin"}]
    assert foreign == []


def test_the_worked_example_runs_checks_and_draws(root, tmp_path):
    out = subprocess.run([sys.executable, str(root / "examples" / "heuristic.py"), str(tmp_path)],
                         capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["instance", "makespan", "T_min", "score"]
    rows = [line.split() for line in lines[1:-1]]
    assert len(rows) == 7
    for r in rows:
        if r[1] != "-":
            assert int(r[1]) >= int(r[2])  # a legal makespan is never below T_min
    assert (tmp_path / "gantt.svg").read_text().startswith("<svg")
