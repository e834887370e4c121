"""`server.auth` checks beyond the schema (mcpgen/load/mapping_auth.py, mcpgen/build/checks.py): the keys
each type takes and needs (M112), and a credential that would cross plain http to another machine (M303)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpgen.build.checks import insecure_url
from mcpgen.build.server import build_server
from mcpgen.diagnostics import DiagnosticError
from mcpgen.load.mapping import load_mapping
from mcpgen.load.openapi import load_spec

SPEC = """{"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "servers": [{"url": "%s"}],
 "paths": {"/t": {"get": {"operationId": "getT", "responses": {"200": {"description": "ok",
 "content": {"application/json": {"schema": {"type": "object"}}}}}}}}}"""


def _codes(tmp_path: Path, auth: str, server: str = "https://api.example.com") -> list[str]:
    (tmp_path / "s.json").write_text(SPEC % server, encoding="utf-8")
    (tmp_path / "m.yaml").write_text(
        f"mcpgen: 1\nserver:\n  name: t\n  auth: {auth}\ntools:\n  - name: t\n    description: Get t.\n"
        "    actions:\n      - {name: get, operation: getT}\n",
        encoding="utf-8",
    )
    try:
        mapping = load_mapping(tmp_path / "m.yaml")
    except DiagnosticError as exc:
        return [d.code for d in exc.diagnostics]
    built = build_server(load_spec(tmp_path / "s.json"), mapping, spec_file="s.json", mapping_file="m.yaml")
    return [d.code for d in built.diagnostics]


@pytest.mark.parametrize(
    "auth",
    [
        "{type: oauth2_client_credentials, token_url: 'https://a.example/t', client_id_env: ID}",
        "{type: oauth2_user, token_url: 'https://a.example/t', client_id_env: ID}",
        "{type: bearer, env: T, token_url: 'https://a.example/t'}",
        "{type: api_key, env: K, in: query, name: k, prefix: 'Token '}",
        "[{type: bearer, env: T}, {type: oauth2_client_credentials, token_url: 'https://a.example/t', "
        "client_id_env: I, client_secret_env: S}]",
    ],
)
def test_an_auth_with_keys_of_another_type_or_without_its_own_is_located(tmp_path: Path, auth: str) -> None:
    assert "M112" in _codes(tmp_path, auth)


def test_well_formed_oauth_auths_build(tmp_path: Path) -> None:
    cc = "{type: oauth2_client_credentials, token_url: 'https://a.example/t', client_id_env: I, client_secret_env: S}"
    user = "{type: oauth2_user, authorization_url: 'https://a.example/a', token_url: 'https://a.example/t', client_id_env: I}"
    assert _codes(tmp_path, cc) == [] and _codes(tmp_path, user) == []


def test_a_credential_over_plain_http_to_another_machine_is_warned_of_unless_allowed(tmp_path: Path) -> None:
    assert "M303" in _codes(tmp_path, "{type: bearer, env: T}", server="http://api.example.com")
    assert "M303" not in _codes(
        tmp_path, "{type: bearer, env: T, allow_insecure: true}", server="http://api.example.com"
    )
    assert "M303" not in _codes(tmp_path, "{type: bearer, env: T}", server="http://127.0.0.1:8080")
    assert [insecure_url(u) for u in ("http://localhost:1", "http://[::1]/x", "https://a.b", "http://10.0.0.1")] == [
        False, False, False, True]  # fmt: skip
