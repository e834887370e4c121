"""Which header, which prefix, and no credential where it should not go (rule "credentials"): `mcpgen init`
drafts the word an apiKey on the Authorization header goes after, the server sends it once, a refused
raw key says how to add one, a placeholder from the client configs is never sent, and a credential never
crosses plain http:// to another machine unless the mapping allows it (said at start and at each call).
`mcpgen init` and `generate` run as a user runs them; the server runs over stdio, driven by the official
MCP client, against a recording loopback upstream.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.mcp_client import result_text, stdio_client
from tests.support.venvs import run_mcpgen
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest, Reply

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

OK = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}


def key_spec(description: str, server: str = "https://api.example.com") -> dict[str, Any]:
    """gsmtasks.com.json's tokenAuth scheme (its description: 'Token-based authentication with required
    prefix "Token"'), or sendgrid.com.json's Authorization scheme (no description), on one operation."""
    scheme: dict[str, Any] = {"type": "apiKey", "in": "header", "name": "Authorization"}
    if description:
        scheme["description"] = description
    return {
        "openapi": "3.0.3",
        "info": {"title": "Tasks", "version": "1"},
        "servers": [{"url": server}],
        "components": {"securitySchemes": {"tokenAuth": scheme}},
        "security": [{"tokenAuth": []}],
        "paths": {"/tasks": {"get": {"operationId": "listTasks", "summary": "List tasks", "responses": OK}}},
    }


class Tasks(LoopbackUpstream):
    def __init__(self) -> None:
        super().__init__()
        self.route("GET", "/tasks", self._list)

    def _list(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        if request.headers.get("authorization") != "Token k-41d2a9":
            return Reply(401, {"detail": "Invalid token."}, {"www-authenticate": "Token"})
        return Reply(200, {"tasks": []})


def generated(
    root: Path, spec: dict[str, Any], edit: dict[str, Any] | None = None
) -> tuple[Path, dict[str, Any], str]:
    (root / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    drafted = run_mcpgen("init", root / "spec.json", "-o", root / "mapping.yaml", "--name", "tasks")
    assert drafted.returncode == 0, drafted.stderr
    mapping = yaml.safe_load((root / "mapping.yaml").read_text(encoding="utf-8"))
    if edit:
        mapping["server"]["auth"].update(edit)
        (root / "mapping.yaml").write_text(yaml.safe_dump(mapping), encoding="utf-8")
    done = run_mcpgen("generate", root / "spec.json", "-m", root / "mapping.yaml", "-o", root / "out")
    assert done.returncode == 0, done.stderr
    return root / "out", mapping, done.stderr + done.stdout


async def _call(package: Path, env: dict[str, str], log: Path | None = None) -> Any:
    async with stdio_client(
        [sys.executable, "-m", "tasks_mcp"], {"PYTHONPATH": str(package), **env}, log
    ) as client:
        [tool] = [t.name for t in (await client.list_tools()).tools]
        return await client.call_tool(tool, {"action": "list"})


async def test_the_word_before_the_key_is_drafted_and_sent_once(tmp_path: Path) -> None:
    package, mapping, _ = generated(
        tmp_path, key_spec('Token-based authentication with required prefix "Token"')
    )
    assert mapping["server"]["auth"] == {"type": "api_key", "env": "TASKS_API_KEY", "in": "header",
                                         "name": "Authorization", "prefix": "Token "}  # fmt: skip
    with Tasks() as upstream:
        base = {"TASKS_BASE_URL": upstream.base_url}
        plain = await _call(package, {**base, "TASKS_API_KEY": "k-41d2a9"})
        prefixed = await _call(package, {**base, "TASKS_API_KEY": "Token k-41d2a9"})
        sent = [r.headers["authorization"] for r in upstream.requests]
    assert not plain.is_error and not prefixed.is_error, result_text(plain) + result_text(prefixed)
    assert sent == ["Token k-41d2a9", "Token k-41d2a9"]


async def test_a_refused_raw_key_on_authorization_says_how_to_add_the_word(tmp_path: Path) -> None:
    package, mapping, _ = generated(tmp_path, key_spec(""))
    assert "prefix" not in mapping["server"]["auth"]
    assert "add prefix: 'Bearer '" in (tmp_path / "mapping.yaml").read_text(encoding="utf-8")
    with Tasks() as upstream:
        refused = await _call(package, {"TASKS_BASE_URL": upstream.base_url, "TASKS_API_KEY": "k-41d2a9"})
    text = result_text(refused)
    assert (
        refused.is_error and "sent as the whole Authorization header" in text and "prefix: 'Bearer '" in text
    )
    assert "k-41d2a9" not in text


async def test_bearer_words_in_the_spec_draft_a_bearer_token(tmp_path: Path) -> None:
    # thetvdb.com.json /components/securitySchemes/jwtToken
    _, mapping, _ = generated(tmp_path, key_spec('JWT token prefixed with "Bearer "'))
    assert mapping["server"]["auth"] == {"type": "bearer", "env": "TASKS_TOKEN"}


async def test_a_placeholder_from_the_client_config_is_never_sent(tmp_path: Path) -> None:
    package, _, _ = generated(tmp_path, key_spec('Token-based authentication with required prefix "Token"'))
    with Tasks() as upstream:
        result = await _call(
            package, {"TASKS_BASE_URL": upstream.base_url, "TASKS_API_KEY": "<your TASKS_API_KEY>"}
        )
        assert upstream.requests == []
    text = result_text(result)
    assert result.is_error and "TASKS_API_KEY still holds the placeholder" in text


async def test_no_credential_over_plain_http_to_another_machine(tmp_path: Path) -> None:
    spec = key_spec('prefix "Token"', server="http://api.tasks.example")
    _, mapping, _ = generated(tmp_path, spec)
    # init drafts the https:// address: the credential never goes over plain http
    assert mapping["server"]["base_url"]["default"] == "https://api.tasks.example"
    (tmp_path / "m2").mkdir()
    package, _, said = generated(tmp_path / "m2", spec, edit={})
    mapping["server"]["base_url"]["default"] = "http://api.tasks.example"
    (tmp_path / "m2" / "mapping.yaml").write_text(yaml.safe_dump(mapping), encoding="utf-8")
    done = run_mcpgen("generate", tmp_path / "m2" / "spec.json", "-m", tmp_path / "m2" / "mapping.yaml",
                      "-o", tmp_path / "m2" / "out", "--force")  # fmt: skip
    assert done.returncode == 0 and "M303" in done.stderr + done.stdout, done.stderr
    log = tmp_path / "server.log"
    refused = await _call(tmp_path / "m2" / "out", {"TASKS_API_KEY": "k-41d2a9"}, log)
    text = result_text(refused)
    assert refused.is_error and "was not sent" in text and "allow_insecure: true" in text
    assert "plain http://" in log.read_text(encoding="utf-8")  # said at start too
    mapping["server"]["auth"]["allow_insecure"] = True
    (tmp_path / "m2" / "mapping.yaml").write_text(yaml.safe_dump(mapping), encoding="utf-8")
    done = run_mcpgen("generate", tmp_path / "m2" / "spec.json", "-m", tmp_path / "m2" / "mapping.yaml",
                      "-o", tmp_path / "m2" / "out", "--force")  # fmt: skip
    assert done.returncode == 0 and "M303" not in done.stderr + done.stdout
    allowed = await _call(tmp_path / "m2" / "out", {"TASKS_API_KEY": "k-41d2a9"})
    assert allowed.is_error and "cannot reach the API at http://api.tasks.example" in result_text(allowed)
    assert package.is_dir()
