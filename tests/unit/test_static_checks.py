"""Lint, format and types of the whole tree, and of the packages mcpgen generates.

- `ruff check .` and `ruff format --check .` (pyproject's [tool.ruff]);
- mypy, strict (pyproject's [tool.mypy]), on mcpgen/ at its Python; on templates/runtime as a package
  of its own at the oldest Python a generated package declares; and on the golden packages in
  generated/, which are also compiled.

Every part is strict: a new finding anywhere fails now.
"""

from __future__ import annotations

import py_compile
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import mypy.api
import pytest

from tests.support.paths import GENERATED, ROOT

RUFF = Path(sys.executable).parent / "ruff"
RUNTIME = ROOT / "templates" / "runtime"
GOLDEN = sorted(p.parent for p in GENERATED.glob("*/*/server.py"))
# `ruff format --check` names each file "Would reformat: PATH" (older ruff) or in a " --> PATH:L:C" header.
_UNFORMATTED = re.compile(r"^(?:Would reformat: (\S+)|\s*--> ([^:\s]+):\d+:\d+)$", re.MULTILINE)
_ERROR_LINE = re.compile(r"^(?P<path>[^:\s]+\.py):\d+: error: ", re.MULTILINE)


def _oldest_generated_python() -> str:
    """'3.10' from the generated pyproject's `requires-python = ">=3.10"`."""
    template = (ROOT / "templates" / "package" / "pyproject.toml.jinja").read_text(encoding="utf-8")
    found = re.search(r'^requires-python = ">=(\d+\.\d+)"$', template, re.MULTILINE)
    assert found, "the generated pyproject no longer states requires-python as >=X.Y"
    return found.group(1)


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(RUFF), *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def _mypy(*args: str) -> tuple[int, str]:
    """mypy in this process, with pyproject's configuration, from the top of the repository."""
    out, err, status = mypy.api.run(["--config-file", str(ROOT / "pyproject.toml"), *args])
    assert status in (0, 1), f"mypy could not run:\n{out}{err}"
    return status, out


def _files_with_errors(output: str) -> set[str]:
    return {m["path"] for m in _ERROR_LINE.finditer(output)}


@pytest.fixture(scope="module", autouse=True)
def _at_the_top() -> Iterator[None]:
    """mypy resolves the configuration's `files` and its cache from the working directory."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        yield


# --- ruff -----------------------------------------------------------------------------------------


def test_ruff_check_passes_on_the_whole_tree() -> None:
    checked = _ruff("check", ".")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _unformatted() -> list[str]:
    checked = _ruff("format", "--check", ".")
    assert checked.returncode in (0, 1), checked.stderr
    return sorted({old or new for old, new in _UNFORMATTED.findall(checked.stdout)})


def test_ruff_format_passes_on_the_whole_tree() -> None:
    assert _unformatted() == [], "run `ruff format .`"


# --- mypy: mcpgen ---------------------------------------------------------------------------------


def test_mypy_passes_on_mcpgen() -> None:
    status, output = _mypy()  # pyproject: files = ["mcpgen"], python_version = 3.11, strict
    assert status == 0, output


# --- mypy: the runtime, and the golden packages -----------------------------------------------------


def test_mypy_passes_on_the_runtime_at_the_oldest_python_a_package_declares() -> None:
    status, output = _mypy("--python-version", _oldest_generated_python(), str(RUNTIME.relative_to(ROOT)))
    assert status == 0, output


@pytest.fixture(scope="module")
def golden_types() -> tuple[int, str]:
    assert GOLDEN, "generated/ holds no package"
    return _mypy("--python-version", _oldest_generated_python(), *(str(p.relative_to(ROOT)) for p in GOLDEN))


def test_mypy_finds_nothing_in_what_render_writes(golden_types: tuple[int, str]) -> None:
    """server.py, tools/*.py, hooks.py: everything but the runtime copied verbatim."""
    _, output = golden_types
    assert [p for p in _files_with_errors(output) if "/_runtime/" not in p] == [], output


def test_mypy_passes_on_the_golden_packages(golden_types: tuple[int, str]) -> None:
    status, output = golden_types
    assert status == 0, output


def test_the_golden_packages_compile(tmp_path: Path) -> None:
    sources = [p for package in GOLDEN for p in sorted(package.rglob("*.py"))]
    assert sources
    for index, source in enumerate(sources):
        # Bytecode goes to tmp_path: generated/ must hold only what mcpgen writes.
        py_compile.compile(str(source), cfile=str(tmp_path / f"{index}.pyc"), doraise=True)
