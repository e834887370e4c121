"""The installed `mcpgen` console script, in a real process: the rest of the unit tier calls the same
app in-process (tests/unit/cli.py), so this is where the entry point, stdout/stderr and exit codes of
a real run are proven."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mcpgen.version import __version__
from tests.support.paths import ROOT, SPECS

SCRIPT = Path(sys.executable).parent / "mcpgen"


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    assert SCRIPT.is_file(), f"{SCRIPT} is missing: install mcpgen into this venv (pip install -e .)"
    return subprocess.run(
        [str(SCRIPT), *map(str, args)], capture_output=True, text=True, cwd=ROOT, timeout=120, check=False
    )


def test_console_script_generates_and_reports_errors_on_stderr(tmp_path: Path) -> None:
    assert _run("--version").stdout == f"mcpgen {__version__}\n"
    spec, mapping = SPECS / "petstore" / "petstore.openapi.json", SPECS / "petstore" / "mapping.yaml"
    out = tmp_path / "petstore"
    generated = _run("generate", spec, "-m", mapping, "-o", out)
    assert generated.returncode == 0, generated.stderr
    assert f"generated petstore_mcp in {out}" in generated.stdout
    broken = ROOT / "tests" / "error_cases" / "mappings" / "unknown_operation_id.yaml"
    failed = _run("validate", spec, "-m", broken)
    assert failed.returncode == 1 and failed.stdout == ""
    assert "error[" in failed.stderr and "Traceback" not in failed.stderr
