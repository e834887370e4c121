"""Install a generated package the way a user would: non-editable, into a fresh virtualenv."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path


def fresh_venv(directory: Path) -> Path:
    """A new virtualenv with pip; returns its python."""
    venv.EnvBuilder(with_pip=True, clear=True).create(directory)
    return directory / "bin" / "python"


def pip_install(python: Path, *targets: str | Path) -> None:
    command = [
        str(python),
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        *map(str, targets),
    ]
    completed = subprocess.run(command, capture_output=True, text=True, env=_pip_env())
    if completed.returncode != 0:
        raise AssertionError(f"pip install failed:\n{completed.stdout}\n{completed.stderr}")


def _pip_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # the fresh venv must not see the test runner's packages
    return env


def run_mcpgen(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real CLI in a subprocess, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "mcpgen", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )
