"""Paths that are not a readable file are located diagnostics, never tracebacks: a `$ref` to a
directory or holding a NUL character, and a directory given as the spec, the mapping, a `--ignore`
list or a `mcpgen diff` operand that holds no lock file.

Each case runs the CLI (typer's runner: the same parsing, output and exit codes as the console
script); an exception the CLI did not turn into an exit code would be raised by `run_cli`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.hostile.test_spec_refs import spec_with_ref
from tests.unit.cli import run_cli

LOCATED = re.compile(r"^\S.*: error\[[A-Z]\d{3}\] ", re.MULTILINE)


def assert_located(completed, place: str, words: str, code: int = 1) -> str:
    """`code`: 1 for validate, lint and generate; `mcpgen diff` exits 2 when an input cannot be read."""
    text = completed.stdout + completed.stderr
    assert completed.returncode == code, text
    assert "Traceback" not in text
    assert LOCATED.search(text), text
    assert place in text and words in text, text
    return text


@pytest.mark.parametrize("ref", ["schemas", "schemas#/Pet", "./schemas/"])
def test_a_ref_to_a_directory_is_located(tmp_path: Path, ref: str) -> None:
    spec, mapping = spec_with_ref(tmp_path, ref)
    (tmp_path / "schemas").mkdir()
    text = assert_located(run_cli("validate", spec, "-m", mapping), f"{spec}:8:", "it is a directory")
    assert "error[R004]" in text and "not of the directory holding it" in text


@pytest.mark.parametrize("ref", ["a\x00b.yaml", "a%00b.yaml#/X"])
def test_a_ref_holding_a_nul_character_is_located(tmp_path: Path, ref: str) -> None:
    spec, mapping = spec_with_ref(tmp_path, ref)
    text = assert_located(run_cli("validate", spec, "-m", mapping), f"{spec}:8:", "NUL character")
    assert "error[R004]" in text


def valid_inputs(directory: Path) -> tuple[Path, Path]:
    spec, mapping = spec_with_ref(directory, "param.yaml")
    (directory / "param.yaml").write_text("{name: q, in: query, schema: {type: string}}\n", encoding="utf-8")
    return spec, mapping


@pytest.mark.parametrize("command", ["validate", "lint", "generate"])
def test_a_directory_as_the_spec_or_the_mapping_is_located(tmp_path: Path, command: str) -> None:
    spec, mapping = valid_inputs(tmp_path)
    folder = tmp_path / "folder"
    folder.mkdir()
    extra = ["-o", tmp_path / "out"] if command == "generate" else []
    assert_located(run_cli(command, folder, "-m", mapping, *extra), "folder", "it is a directory")
    assert_located(run_cli(command, spec, "-m", folder, *extra), "folder", "it is a directory")
    assert not (tmp_path / "out").exists()


def test_a_directory_as_a_diff_operand_or_ignore_list_is_located(tmp_path: Path) -> None:
    spec, mapping = valid_inputs(tmp_path)
    assert run_cli("diff", f"{spec}::{mapping}", f"{spec}::{mapping}").returncode == 0
    folder = tmp_path / "folder"
    folder.mkdir()
    pair = f"{spec.name}::{mapping.name}"
    text = assert_located(
        run_cli("diff", "folder", pair, cwd=tmp_path), "folder", "without a tools.lock.json", code=2
    )
    assert "generated package" in text
    assert_located(
        run_cli("diff", f"folder::{mapping.name}", pair, cwd=tmp_path), "folder", "directory", code=2
    )
    assert_located(
        run_cli("diff", pair, pair, "--ignore", "folder", cwd=tmp_path), "folder", "it is a directory", code=2
    )
    (folder / "tools.lock.json").mkdir()
    assert_located(
        run_cli("diff", "folder", pair, cwd=tmp_path), "folder", "a directory, not a tools.lock.json", code=2
    )
