"""The first hour with mcpgen, as a new user follows what it prints: the install line that `generate`
prints installs the package it wrote (never a same-named project from the package index) into the
Python mcpgen runs on, and names the server's script by its full path there, so neither needs an
activated venv."""

from __future__ import annotations

import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.support.paths import SPECS
from tests.unit.cli import run_cli

ADS = (SPECS / "ads" / "ads.openapi.yaml", SPECS / "ads" / "mapping.yaml")


PYTHON = shlex.quote(sys.executable)
SCRIPT = shlex.quote(str(Path(sysconfig.get_path("scripts")) / "ads-mcp"))


def _run_it_line(stdout: str) -> str:
    [line] = [line for line in stdout.splitlines() if line.startswith("run it:")]
    return line


def _expected(target: str) -> str:
    return f"run it:  {PYTHON} -m pip install {target} && {SCRIPT}"


def _pip_would_install(target: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """What pip does with `target`, offline: resolves it (building its metadata) and installs nothing."""
    return subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--no-index",
         "--no-build-isolation", "--disable-pip-version-check", target],
        capture_output=True, text=True, cwd=cwd, timeout=120, check=False,
    )  # fmt: skip


def test_the_printed_install_line_names_the_generated_directory(tmp_path: Path) -> None:
    spec, mapping = ADS
    generated = run_cli("generate", spec, "-m", mapping, "-o", "my_server", cwd=tmp_path)
    assert generated.returncode == 0, generated.stderr
    line = _run_it_line(generated.stdout)
    assert line == _expected("./my_server")
    target = shlex.split(line.removeprefix("run it:"))[4]
    installed = _pip_would_install(target, tmp_path)
    assert installed.returncode == 0, installed.stderr
    assert "Would install ads-mcp-" in installed.stdout
    # The line as it used to be: pip looks `my_server` up on the index (here offline, so it fails).
    bare = _pip_would_install("my_server", tmp_path)
    assert bare.returncode != 0 and "No matching distribution found for my_server" in bare.stderr


@pytest.mark.parametrize(
    ("out", "shown"),
    [
        ("../elsewhere/pkg", "../elsewhere/pkg"),
        ("nested/pkg", "./nested/pkg"),
        ("with space", "'./with space'"),
    ],
)
def test_every_relative_out_is_printed_as_a_path(tmp_path: Path, out: str, shown: str) -> None:
    spec, mapping = ADS
    (tmp_path / "cwd").mkdir()
    generated = run_cli("generate", spec, "-m", mapping, "-o", out, cwd=tmp_path / "cwd")
    assert generated.returncode == 0, generated.stderr
    assert _run_it_line(generated.stdout) == _expected(shown)


def test_an_absolute_out_is_printed_as_it_is(tmp_path: Path) -> None:
    spec, mapping = ADS
    generated = run_cli("generate", spec, "-m", mapping, "-o", tmp_path / "pkg")
    assert generated.returncode == 0, generated.stderr
    assert _run_it_line(generated.stdout) == _expected(shlex.quote(str(tmp_path / "pkg")))
