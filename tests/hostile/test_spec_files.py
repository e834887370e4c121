"""Hostile spec files: too big, too deep, self-referring aliases, text that cannot be written back out
(issue 11, findings 2 and 8). Each is a located exit-1 message, never a traceback or a hang."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.venvs import run_mcpgen

LOCATED = re.compile(
    r"^(?P<file>\S.*):(?P<line>\d+):(?P<column>\d+): error\[(?P<code>[A-Z]\d{3})\] ", re.MULTILINE
)
MAPPING = (
    "mcpgen: 1\nserver: {name: t}\ntools:\n"
    "  - {name: a, description: Read a. It changes nothing. Returns it., actions: [{name: get, operation: getA}]}\n"
)


def spec_document(description: object = "ok") -> dict:
    return {
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1", "description": description},
        "paths": {"/a": {"get": {"operationId": "getA", "responses": {"200": {"description": "ok"}}}}},
    }


def check(tmp_path: Path, spec: Path) -> subprocess.CompletedProcess[str]:
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(MAPPING, encoding="utf-8")
    return run_mcpgen("generate", spec, "-m", mapping, "-o", tmp_path / "out")


def refused(completed: subprocess.CompletedProcess[str]) -> str:
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "Traceback" not in completed.stderr, completed.stderr
    return completed.stderr


def test_a_spec_past_64_megabytes_is_not_read(tmp_path: Path) -> None:
    spec = tmp_path / "huge.openapi.json"
    with open(spec, "wb") as huge:
        huge.truncate(65 * 1024 * 1024)

    stderr = refused(check(tmp_path, spec))

    assert f"{spec}: error[F006]" in stderr and "64 MB" in stderr
    assert not (tmp_path / "out").exists()


def test_a_lone_surrogate_is_located_not_a_crash_on_write(tmp_path: Path) -> None:
    spec = tmp_path / "api.openapi.json"
    text = json.dumps(spec_document("before \\ud800 after"), indent=1).replace("\\\\ud800", "\\ud800")
    spec.write_text(text, encoding="utf-8")

    stderr = refused(check(tmp_path, spec))

    found = LOCATED.search(stderr)
    assert found and found["code"] == "F010" and "/info/description" in stderr, stderr
    assert found["line"] == "6"  # the line of "description" in the indented JSON


def test_a_deeply_nested_spec_is_refused(tmp_path: Path) -> None:
    spec = tmp_path / "deep.openapi.json"
    deep = "{}"
    for _ in range(2000):
        deep = '{"x": ' + deep + "}"
    spec.write_text(json.dumps(spec_document()).replace('"ok"}}}}}', '"ok"}}}}, "x-deep": ' + deep + "}", 1))

    stderr = refused(check(tmp_path, spec))

    assert "error[F011]" in stderr and "nested" in stderr


def test_a_moderately_deep_spec_is_refused_before_it_breaks_later_stages(tmp_path: Path) -> None:
    schema: dict = {"type": "string"}
    for _ in range(400):
        schema = {"type": "object", "properties": {"x": schema}}
    document = spec_document()
    document["paths"]["/a"]["get"]["parameters"] = [{"name": "q", "in": "query", "schema": schema}]
    spec = tmp_path / "deep.openapi.json"
    spec.write_text(json.dumps(document), encoding="utf-8")

    stderr = refused(check(tmp_path, spec))

    found = LOCATED.search(stderr)
    assert found and found["code"] == "F011", stderr


def test_a_recursive_alias_in_a_yaml_spec_is_located(tmp_path: Path) -> None:
    spec = tmp_path / "api.openapi.yaml"
    spec.write_text(
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\nx-loop: &loop {again: *loop}\n"
        "paths:\n  /a:\n    get:\n      operationId: getA\n      responses: {'200': {description: ok}}\n",
        encoding="utf-8",
    )

    stderr = refused(check(tmp_path, spec))

    found = LOCATED.search(stderr)
    assert found and found["code"] == "F009" and found["line"] == "3", stderr


def test_a_control_character_in_a_yaml_spec_is_located(tmp_path: Path) -> None:
    spec = tmp_path / "api.openapi.yaml"
    spec.write_bytes(
        b"openapi: 3.0.3\ninfo: {title: \"t\x1b[2J\", version: '1'}\n"
        b"paths:\n  /a:\n    get:\n      operationId: getA\n      responses: {'200': {description: ok}}\n"
    )

    stderr = refused(check(tmp_path, spec))

    found = LOCATED.search(stderr)
    assert found and (found["line"], found["column"]) == ("2", "17"), stderr
    assert "U+001B" in stderr


def test_init_refuses_the_same_files(tmp_path: Path) -> None:
    spec = tmp_path / "api.openapi.json"
    spec.write_text(json.dumps(spec_document("x \\ud800")).replace("\\\\ud800", "\\ud800"), encoding="utf-8")

    completed = subprocess.run(
        [sys.executable, "-m", "mcpgen", "init", str(spec), "-o", str(tmp_path / "m.yaml")],
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert "error[F010]" in refused(completed)
    assert not (tmp_path / "m.yaml").exists()


@pytest.mark.parametrize(
    "info,code,column",
    [
        ('{title: t, version: "1", description: !!binary aGVsbG8=}', "F004", 45),
        ('{title: t, version: "1", x-n: .nan}', "F012", 32),
        ('&i {title: t, version: "1", <<: *i}', "F009", 35),
        ('{title: t, version: "1", x-n: ' + "9" * 5000 + "}", "F004", 37),
    ],
    ids=["binary-tag", "nan", "merge-into-itself", "five-thousand-digits"],
)
def test_yaml_values_no_generated_file_can_hold_are_located(
    tmp_path: Path, info: str, code: str, column: int
) -> None:
    spec = tmp_path / "api.openapi.yaml"
    spec.write_text(f"openapi: 3.0.3\ninfo: {info}\npaths: {{}}\n", encoding="utf-8")

    stderr = refused(check(tmp_path, spec))

    found = LOCATED.search(stderr)
    assert found and (found["code"], found["line"], found["column"]) == (code, "2", str(column)), stderr
