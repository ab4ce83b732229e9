"""Shared paths for the Python package's tests (run by scripts/test-python)."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def cli():
    """The `tmin` command built from the same tree (cargo build --release)."""
    path = pathlib.Path(os.environ.get("TMIN_BIN", ROOT / "target" / "release" / "tmin"))
    if not path.exists():
        subprocess.run(["cargo", "build", "--release", "--bin", "tmin"], cwd=ROOT, check=True)
    return str(path)
