"""Build something once per test run, even when pytest-xdist runs the suite on several workers.

A session fixture runs once per worker process; what is costly to build (a virtualenv with mcpgen and the
examples installed) is built by the first worker that asks, under a file lock, in a directory all workers
share, and the others wait for it and reuse it. Without xdist it is an ordinary session-scoped build.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

DONE = ".built"


def run_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory every worker of this run shares: the parent of a worker's own base temp dir
    (`pytest-N/popen-gw0` -> `pytest-N`), or the base temp dir itself without xdist."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def build_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """`<run root>/<name>`, filled by `build(directory)` exactly once per run.

    A build that raises leaves no mark, so the next worker that asks tries again (and fails the same way,
    in its own tests) instead of reusing half a result.
    """
    directory = run_root(tmp_path_factory) / name
    with open(run_root(tmp_path_factory) / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if this process dies
        if not (directory / DONE).is_file():
            shutil.rmtree(directory, ignore_errors=True)  # what a failed build left
            directory.mkdir(parents=True)
            build(directory)
            (directory / DONE).touch()
    return directory
