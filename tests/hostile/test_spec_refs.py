"""`$ref`s stay inside the spec's own directory tree and read only regular files of bounded size
(issue 11, finding 2). Percent-encoded JSON pointers resolve, as real specs write them.

Each spec is checked by the real CLI in a subprocess; a refusal is a located exit-1 message naming
the reference and what to do instead, never a traceback, and nothing of the refused file is output.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.support.venvs import run_mcpgen

SECRET = "TOPSECRET-4f9a"
LOCATED = re.compile(r"^\S.*:\d+:\d+: error\[R\d{3}\] ", re.MULTILINE)
MAPPING = (
    "mcpgen: 1\nserver: {name: t}\ntools:\n"
    "  - {name: a, description: Read a. It changes nothing. Returns it., actions: [{name: get, operation: getA}]}\n"
)


def spec_with_ref(directory: Path, ref: str) -> tuple[Path, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    spec = directory / "api.openapi.yaml"
    spec.write_text(
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      operationId: getA\n"
        f"      parameters:\n        - $ref: {json.dumps(ref)}\n"
        "      responses: {'200': {description: ok}}\n",
        encoding="utf-8",
    )
    mapping = directory / "mapping.yaml"
    mapping.write_text(MAPPING, encoding="utf-8")
    return spec, mapping


def write_secret(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    secret = directory / "creds.yaml"
    secret.write_text(
        f"name: leaked\nin: query\ndescription: {SECRET}\nschema: {{type: string}}\n", encoding="utf-8"
    )
    return secret


def assert_refused(completed, spec: Path, ref: str, code: str = "R005") -> None:
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "Traceback" not in completed.stderr
    assert LOCATED.search(completed.stderr), completed.stderr
    assert f"{spec}:8:" in completed.stderr and f"error[{code}]" in completed.stderr
    assert ref in completed.stderr
    assert SECRET not in completed.stdout + completed.stderr


def test_a_ref_that_climbs_out_of_the_spec_directory_is_refused(tmp_path: Path) -> None:
    write_secret(tmp_path / "private")
    spec, mapping = spec_with_ref(tmp_path / "api", "../private/creds.yaml")
    out = tmp_path / "out"

    completed = run_mcpgen("generate", spec, "-m", mapping, "-o", out)

    assert_refused(completed, spec, "../private/creds.yaml")
    assert "--allow-ref-root" in completed.stderr
    assert not out.exists()


def test_an_absolute_ref_is_refused(tmp_path: Path) -> None:
    secret = write_secret(tmp_path / "private")
    spec, mapping = spec_with_ref(tmp_path / "api", str(secret))

    assert_refused(run_mcpgen("validate", spec, "-m", mapping), spec, str(secret))


def test_a_ref_to_etc_passwd_is_refused(tmp_path: Path) -> None:
    spec, mapping = spec_with_ref(tmp_path / "api", "/etc/passwd")

    completed = run_mcpgen("generate", spec, "-m", mapping, "-o", tmp_path / "out")

    assert_refused(completed, spec, "/etc/passwd")
    assert "root:" not in completed.stderr


def test_a_symlink_out_of_the_tree_is_refused(tmp_path: Path) -> None:
    secret = write_secret(tmp_path / "private")
    spec, mapping = spec_with_ref(tmp_path / "api", "common.yaml")
    (tmp_path / "api" / "common.yaml").symlink_to(secret)

    assert_refused(run_mcpgen("validate", spec, "-m", mapping), spec, "common.yaml")


def test_allow_ref_root_lets_a_named_directory_in(tmp_path: Path) -> None:
    write_secret(tmp_path / "shared")
    spec, mapping = spec_with_ref(tmp_path / "api", "../shared/creds.yaml")
    out = tmp_path / "out"

    validated = run_mcpgen("validate", spec, "-m", mapping, "--allow-ref-root", tmp_path / "shared")
    generated = run_mcpgen(
        "generate", spec, "-m", mapping, "-o", out, "--allow-ref-root", tmp_path / "shared"
    )

    assert validated.returncode == 0, validated.stderr
    assert generated.returncode == 0, generated.stderr
    assert SECRET in (out / "t_mcp" / "tools.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("command", ["init", "lint", "diff"])
def test_every_command_that_reads_a_spec_takes_allow_ref_root(tmp_path: Path, command: str) -> None:
    """init, lint and diff refuse the same reference, and let it in with --allow-ref-root DIR."""
    write_secret(tmp_path / "shared")
    spec, mapping = spec_with_ref(tmp_path / "api", "../shared/creds.yaml")
    args = {
        "init": ["init", spec, "-o", tmp_path / "drafted.yaml", "--force"],
        "lint": ["lint", spec, "-m", mapping],
        "diff": ["diff", f"{spec}::{mapping}", f"{spec}::{mapping}"],
    }[command]

    refused = run_mcpgen(*args)
    allowed = run_mcpgen(*args, "--allow-ref-root", tmp_path / "shared")

    assert refused.returncode in (1, 2), (
        refused.stdout + refused.stderr
    )  # diff: 2, an operand cannot be built
    assert "error[R005]" in refused.stderr and "../shared/creds.yaml" in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr and SECRET not in refused.stdout + refused.stderr
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr


def test_a_ref_to_dev_zero_is_refused_at_once(tmp_path: Path) -> None:
    spec, mapping = spec_with_ref(tmp_path / "api", "/dev/zero")

    assert_refused(run_mcpgen("validate", spec, "-m", mapping), spec, "/dev/zero")


def test_a_device_inside_an_allowed_root_is_not_read(tmp_path: Path) -> None:
    spec, mapping = spec_with_ref(tmp_path / "api", "/dev/zero")

    completed = run_mcpgen("validate", spec, "-m", mapping, "--allow-ref-root", "/dev")

    assert_refused(completed, spec, "/dev/zero", code="R004")
    assert "not a regular file" in completed.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_in_the_tree_does_not_hang(tmp_path: Path) -> None:
    spec, mapping = spec_with_ref(tmp_path / "api", "pipe.yaml")
    os.mkfifo(tmp_path / "api" / "pipe.yaml")

    completed = run_mcpgen("validate", spec, "-m", mapping)  # a hang would hit run_mcpgen's timeout

    assert_refused(completed, spec, "pipe.yaml", code="R004")
    assert "not a regular file" in completed.stderr


def test_a_referenced_file_past_the_size_cap_is_not_read(tmp_path: Path) -> None:
    spec, mapping = spec_with_ref(tmp_path / "api", "huge.yaml")
    with open(tmp_path / "api" / "huge.yaml", "wb") as huge:
        huge.truncate(65 * 1024 * 1024)  # sparse: costs no disk

    completed = run_mcpgen("validate", spec, "-m", mapping)

    assert_refused(completed, spec, "huge.yaml", code="R004")
    assert "64 MB" in completed.stderr


def test_percent_encoded_pointer_tokens_resolve(tmp_path: Path) -> None:
    spec = tmp_path / "api.openapi.json"
    item = "/a/{id}"
    spec.write_text(
        json.dumps(
            {
                "openapi": "3.0.3",
                "info": {"title": "t", "version": "1"},
                "paths": {
                    item: {
                        "get": {
                            "operationId": "getA",
                            "parameters": [
                                {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                                {"name": "fields", "in": "query", "schema": {"type": "string"}},
                            ],
                            "responses": {"200": {"description": "ok"}},
                        }
                    },
                    "/b/{id}": {
                        "get": {
                            "operationId": "getB",
                            "parameters": [
                                {"$ref": "#/paths/~1a~1%7Bid%7D/get/parameters/0"},
                                {"$ref": "#/paths/~1a~1%7Bid%7D/get/parameters/1"},
                            ],
                            "responses": {"200": {"description": "ok"}},
                        }
                    },
                },
            }
        ),
        encoding="utf-8",
    )
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(
        "mcpgen: 1\nserver: {name: t}\ntools:\n"
        "  - {name: b, description: Read b. It changes nothing. Returns it., actions: [{name: get, operation: getB}]}\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"

    completed = run_mcpgen("generate", spec, "-m", mapping, "-o", out)

    assert completed.returncode == 0, completed.stderr
    tools = json.loads((out / "t_mcp" / "tools.json").read_text(encoding="utf-8"))
    assert {"id", "fields"} <= set(tools[0]["inputSchema"]["properties"])


def test_a_percent_encoded_file_name_is_decoded_and_still_confined(tmp_path: Path) -> None:
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "my params.yaml").write_text(
        "Limit: {name: limit, in: query, schema: {type: integer}}\n", encoding="utf-8"
    )
    spec, mapping = spec_with_ref(tmp_path / "api", "my%20params.yaml#/Limit")
    escaping, _ = spec_with_ref(tmp_path / "api2", "..%2Fapi%2Fmy%20params.yaml#/Limit")

    assert run_mcpgen("validate", spec, "-m", mapping).returncode == 0
    assert_refused(
        run_mcpgen("validate", escaping, "-m", mapping), escaping, "..%2Fapi%2Fmy%20params.yaml#/Limit"
    )
