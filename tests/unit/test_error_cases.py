"""Every broken mapping in tests/error_cases/mappings gives a located, specific message and exit code 1.

The expected output of each lives in tests/error_cases/expected/<name>.txt;
MCPGEN_UPDATE_SNAPSHOTS=1 rewrites them (review the diff before committing).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from tests.unit.cli import run_cli

CASES = ROOT / "tests" / "error_cases"
SPEC = Path("specs/petstore/petstore.openapi.json")
MAPPINGS = sorted((CASES / "mappings").glob("*.yaml"))
UPDATE = os.environ.get("MCPGEN_UPDATE_SNAPSHOTS") == "1"
LOCATED = re.compile(r"^\S+\.(yaml|json):\d+(:\d+)?: error\[[A-Z]\d{3}\] ", re.MULTILINE)


def test_there_are_enough_kinds_of_mistake() -> None:
    assert len(MAPPINGS) >= 8


@pytest.mark.parametrize("mapping", MAPPINGS, ids=[m.stem for m in MAPPINGS])
def test_broken_mapping_is_reported_with_its_location(mapping: Path) -> None:
    completed = run_cli("validate", SPEC, "--mapping", mapping.relative_to(ROOT), cwd=ROOT)
    assert completed.returncode == 1
    assert "Traceback" not in completed.stderr
    assert LOCATED.search(completed.stderr), completed.stderr
    expected = CASES / "expected" / f"{mapping.stem}.txt"
    if UPDATE:
        expected.write_text(completed.stderr, encoding="utf-8")
    assert expected.is_file(), (
        f"{expected.relative_to(ROOT)} is missing: run with MCPGEN_UPDATE_SNAPSHOTS=1 to write it"
    )
    assert completed.stderr == expected.read_text(encoding="utf-8")


def test_generate_writes_nothing_for_a_broken_mapping(tmp_path: Path) -> None:
    out = tmp_path / "out"
    completed = run_cli(
        "generate", SPEC, "-m", CASES / "mappings" / "unknown_operation_id.yaml", "-o", out, cwd=ROOT
    )
    assert completed.returncode == 1
    assert "did you mean 'getPetById'" in completed.stderr
    assert not out.exists()


def test_network_ref_in_a_spec_is_refused_not_fetched(tmp_path: Path) -> None:
    spec = tmp_path / "remote.openapi.yaml"
    spec.write_text(
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      operationId: getA\n"
        "      parameters:\n        - $ref: 'https://example.com/params.yaml#/Limit'\n"
        "      responses: {'200': {description: ok}}\n"
    )
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(
        "mcpgen: 1\nserver: {name: t}\ntools:\n  - {name: a, description: A., actions: [{name: get, operation: getA}]}\n"
    )
    completed = run_cli("validate", spec, "-m", mapping)
    assert completed.returncode == 1
    assert (
        f"{spec}:8:" in completed.stderr
        and "R001" in completed.stderr
        and "fetches references only from hosts --allow-ref-host names" in completed.stderr
    )


def test_refs_into_another_local_file_are_followed(tmp_path: Path) -> None:
    (tmp_path / "common.yaml").write_text(
        "Limit:\n  name: limit\n  in: query\n  description: Most items to return.\n  schema: {type: integer}\n"
    )
    spec = tmp_path / "api.openapi.yaml"
    spec.write_text(
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      operationId: getA\n"
        "      parameters:\n        - $ref: 'common.yaml#/Limit'\n      responses: {'200': {description: ok}}\n"
    )
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(
        "mcpgen: 1\nserver: {name: t}\ntools:\n  - {name: a, description: A., actions: [{name: get, operation: getA}]}\n"
    )
    out = tmp_path / "out"
    completed = run_cli("generate", spec, "-m", mapping, "-o", out)
    assert completed.returncode == 0, completed.stderr
    assert '"limit"' in (out / "t_mcp" / "tools.json").read_text()


def test_swagger_2_is_read_and_a_swagger_1_named_as_such(tmp_path: Path) -> None:
    spec = tmp_path / "old.json"
    spec.write_text('{"swagger": "2.0", "info": {"title": "t", "version": "1"}, "paths": {}}')
    completed = run_cli("validate", spec, "-m", CASES / "mappings" / "unknown_operation_id.yaml")
    # Converted on load (tests/unit/test_swagger2.py): what fails is the mapping's unknown operation.
    assert completed.returncode == 1 and "S002" not in completed.stderr and "M2" in completed.stderr
    spec.write_text('{"swagger": "1.2", "info": {"title": "t", "version": "1"}, "paths": {}}')
    completed = run_cli("validate", spec, "-m", CASES / "mappings" / "unknown_operation_id.yaml")
    assert completed.returncode == 1 and "only Swagger 2.0, OpenAPI 3.0 and 3.1" in completed.stderr
