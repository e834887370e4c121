"""Hostile mapping files: each is a located exit-1 message, never a traceback (issue 11, finding 8).

Recursive aliases, alias bombs (billion laughs), NUL bytes, invalid UTF-8, oversized files, and
values that pass a `^...$` pattern only because Python's `$` also matches before a final newline.
The CLI runs in a subprocess under an address-space limit, so an alias bomb that is expanded fails
the test with a MemoryError instead of eating the machine.
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import SPECS

SPEC = SPECS / "petstore" / "petstore.openapi.json"
MEMORY_LIMIT = 1536 * 1024 * 1024
LOCATED = re.compile(
    r"^(?P<file>\S.*):(?P<line>\d+):(?P<column>\d+): error\[(?P<code>[A-Z]\d{3})\] ", re.MULTILINE
)

VALID = """\
mcpgen: 1
server:
  name: petstore
  version: 0.1.0
tools:
  - name: pets_find
    description: Find pets by id. Use it to read a pet. It changes nothing. Returns the pet.
    actions:
      - name: get
        operation: getPetById
"""


def limited_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def validate(mapping: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpgen", "validate", str(SPEC), "-m", str(mapping)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limited_memory,
    )


def refused_at(completed: subprocess.CompletedProcess[str], mapping: Path) -> re.Match[str]:
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "Traceback" not in completed.stderr and "Error:" not in completed.stderr, completed.stderr
    found = LOCATED.search(completed.stderr)
    assert found and found["file"] == str(mapping), completed.stderr
    return found


def write(tmp_path: Path, content: str | bytes) -> Path:
    mapping = tmp_path / "mapping.yaml"
    if isinstance(content, bytes):
        mapping.write_bytes(content)
    else:
        mapping.write_text(content, encoding="utf-8")
    return mapping


def test_a_valid_mapping_passes(tmp_path: Path) -> None:
    completed = validate(write(tmp_path, VALID))
    assert completed.returncode == 0, completed.stderr


def test_a_recursive_alias_is_refused(tmp_path: Path) -> None:
    mapping = write(tmp_path, VALID + "x-loop: &loop [1, *loop]\n")

    found = refused_at(validate(mapping), mapping)

    assert found["code"] == "F009" and found["line"] == "11"
    assert "refers to itself" in validate(mapping).stderr


def test_a_billion_laughs_mapping_is_refused(tmp_path: Path) -> None:
    bomb = ["x-a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        bomb.append(f"x-{name}: &{name} [" + ", ".join([f"*{previous}"] * 10) + "]")
    mapping = write(tmp_path, VALID + "\n".join(bomb) + "\n")

    completed = validate(mapping)

    found = refused_at(completed, mapping)
    assert found["code"] == "F009"
    assert "aliases" in completed.stderr


def test_a_nul_byte_is_located(tmp_path: Path) -> None:
    mapping = write(tmp_path, VALID.replace("Find pets", "Find\x00pets").encode())

    completed = validate(mapping)

    found = refused_at(completed, mapping)
    assert (found["line"], found["column"]) == ("7", "22")
    assert "U+0000" in completed.stderr


def test_invalid_utf8_is_located(tmp_path: Path) -> None:
    mapping = write(tmp_path, VALID.encode().replace(b"Find pets", b"Find \xff\xfe pets"))

    completed = validate(mapping)

    found = refused_at(completed, mapping)
    assert (found["code"], found["line"], found["column"]) == ("F008", "7", "23")
    assert "UTF-8" in completed.stderr and "0xff" in completed.stderr


def test_a_mapping_past_eight_megabytes_is_not_read(tmp_path: Path) -> None:
    # 8 MB, not 1: `mcpgen init` on a 10,000-operation spec drafts about 2.5 MB, which must load.
    mapping = write(tmp_path, VALID + "# padding\n" * 900_000)

    completed = validate(mapping)

    assert completed.returncode == 1 and "Traceback" not in completed.stderr
    assert f"{mapping}: error[F006]" in completed.stderr and "8 MB" in completed.stderr


@pytest.mark.parametrize(
    "old,new,pointer",
    [
        ("version: 0.1.0", 'version: "0.1.0\\n"', "/server/version"),
        ("name: pets_find", 'name: "pets_find\\n"', "/tools/0/name"),
        ("name: get", 'name: "get\\n"', "/tools/0/actions/0/name"),
        ("name: petstore", 'name: "petstore\\n"', "/server/name"),
    ],
    ids=["version", "tool", "action", "server"],
)
def test_a_final_newline_does_not_slip_past_a_pattern(
    tmp_path: Path, old: str, new: str, pointer: str
) -> None:
    mapping = write(tmp_path, VALID.replace(old, new))

    completed = validate(mapping)

    found = refused_at(completed, mapping)
    assert found["code"] == "M103" and pointer in completed.stderr
