"""The CLI run in this process (typer's CliRunner), answering like a subprocess would.

The unit tier calls `mcpgen` through this: the same parsing, output and exit codes as the console
script, without starting an interpreter each time. test_console_script.py runs the real script.
"""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path

from typer.testing import CliRunner

from mcpgen.cli.app import app


def run_cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`mcpgen ARGS` in `cwd`; an exception the CLI did not turn into an exit code is raised here."""
    argv = [str(a) for a in args]
    with contextlib.chdir(cwd) if cwd is not None else contextlib.nullcontext():
        result = CliRunner().invoke(app, argv, prog_name="mcpgen")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(["mcpgen", *argv], result.exit_code, result.stdout, result.stderr)
