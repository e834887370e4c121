"""OAuth 2.0 client credentials against a real authorization server (oidc-provider, tests/support/oidc.py):
`mcpgen init` drafts `oauth2_client_credentials` from the spec's clientCredentials flow, and the generated
server, over stdio and driven by the official MCP client, obtains its own token, keeps it until shortly
before it expires, makes one token request for 50 concurrent calls at a cold cache, gets a new token once
when the API answers 401 invalid_token (the token was revoked at the provider), and never shows or logs
the token or the client secret (rules "credentials", "no internals").
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml

from tests.support.mcp_client import result_text, stdio_client
from tests.support.oidc import Introspecting, Provider, authorization_server
from tests.support.venvs import run_mcpgen
from tests.upstreams.recording import Reply

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

CLIENT = {"client_id": "things-server", "client_secret": "cs-8f2e4c1d9a7b6e5f"}
TOKEN_TTL_S = 20  # renewed 2 s before it expires (a tenth of its lifetime)


def spec(token_url: str, api: str) -> dict[str, Any]:
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {
        "type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}}}}}  # fmt: skip
    return {
        "openapi": "3.0.3",
        "info": {"title": "Things", "version": "1.0.0"},
        "servers": [{"url": api}],
        "components": {"securitySchemes": {"oauth": {"type": "oauth2", "flows": {
            "clientCredentials": {"tokenUrl": token_url, "scopes": {"read": "read things", "write": "x"}}}}}},
        "security": [{"oauth": ["read"]}],
        "paths": {"/things/{thing_id}": {"get": {"operationId": "getThing", "summary": "Get a thing",
            "parameters": [{"name": "thing_id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": ok}}},
    }  # fmt: skip


class Things(Introspecting):
    def __init__(self, provider: Provider) -> None:
        super().__init__(provider)
        self.route(
            "GET", "/things/{thing_id}", lambda r, p: Reply(200, {"id": p["thing_id"], "name": "a thing"})
        )


async def test_client_credentials_token_is_shared_cached_renewed_and_never_shown(tmp_path: Path) -> None:
    client = {**CLIENT, "grant_types": ["client_credentials"], "redirect_uris": [], "response_types": [],
              "scope": "read write"}  # fmt: skip
    with (
        authorization_server(tmp_path, [client], ttl={"ClientCredentials": TOKEN_TTL_S}) as provider,
        Things(provider) as api,
    ):
        (tmp_path / "spec.json").write_text(
            json.dumps(spec(provider.token_url, api.base_url)), encoding="utf-8"
        )
        drafted = run_mcpgen(
            "init", tmp_path / "spec.json", "-o", tmp_path / "mapping.yaml", "--name", "things"
        )
        assert drafted.returncode == 0, drafted.stderr
        draft = (tmp_path / "mapping.yaml").read_text(encoding="utf-8")
        assert "securitySchemes.oauth: oauth2 clientCredentials" in draft
        auth = yaml.safe_load(draft)["server"]["auth"]
        assert auth == {"type": "oauth2_client_credentials", "token_url": provider.token_url, "scopes": ["read"],
                        "client_id_env": "THINGS_CLIENT_ID", "client_secret_env": "THINGS_CLIENT_SECRET"}  # fmt: skip
        out = tmp_path / "out"
        generated = run_mcpgen("generate", tmp_path / "spec.json", "-m", tmp_path / "mapping.yaml", "-o", out)
        assert generated.returncode == 0, generated.stderr
        env = {"PYTHONPATH": str(out), "THINGS_CLIENT_ID": CLIENT["client_id"],
               "THINGS_CLIENT_SECRET": CLIENT["client_secret"]}  # fmt: skip
        log = tmp_path / "server.log"
        texts: list[str] = []
        async with stdio_client([sys.executable, "-m", "things_mcp"], env, stderr_file=log) as session:
            [tool] = [t.name for t in (await session.list_tools()).tools]

            async def call(n: int) -> None:
                result = await session.call_tool(tool, {"action": "get", "thing_id": f"t{n}"})
                texts.append(result_text(result))
                assert not result.is_error, result_text(result)

            cold = time.monotonic()
            async with anyio.create_task_group() as group:  # 50 calls at a cold cache
                for n in range(50):
                    group.start_soon(call, n)
            assert provider.token_requests("client_credentials") == 1
            assert len(set(api.tokens)) == 1 and len(api.tokens) == 50
            await call(50)  # cached
            assert provider.token_requests("client_credentials") == 1

            # Past the renewal point, before expiry: a new token, and the API never refused the old one.
            await anyio.sleep(cold + TOKEN_TTL_S - 0.5 - time.monotonic())
            sent = len(api.tokens)
            await call(51)
            assert provider.token_requests("client_credentials") == 2
            assert len(api.tokens) == sent + 1 and api.tokens[-1] != api.tokens[0]

            provider.revoke(api.tokens[-1], CLIENT["client_id"], CLIENT["client_secret"])
            started = len(api.tokens)
            await call(52)  # 401 invalid_token, one new token, the same request again
            assert provider.token_requests("client_credentials") == 3
            assert len(api.tokens) == started + 2 and api.tokens[-1] != api.tokens[-2]
            await call(53)
            assert provider.token_requests("client_credentials") == 3
        tokens = set(api.tokens)
    assert len(tokens) == 3
    _assert_no_secret(tokens | {CLIENT["client_secret"]}, texts, log, out)


def _assert_no_secret(secrets: set[str], texts: list[str], log: Path, package: Path) -> None:
    """No token nor client secret in any result, in the server's log, or in any generated file."""
    outputs = {"results": "\n".join(texts), "log": log.read_text(encoding="utf-8")}
    outputs |= {
        str(p): p.read_text(encoding="utf-8", errors="replace") for p in package.rglob("*") if p.is_file()
    }
    assert "obtained an access token" in outputs["log"]
    leaks = [(where, secret[:6]) for where, text in outputs.items() for secret in secrets if secret in text]
    assert leaks == []
    assert (package / "tools.lock.json").is_file()


async def test_a_refused_client_says_which_variables_and_the_secret_stays_out(tmp_path: Path) -> None:
    client = {**CLIENT, "grant_types": ["client_credentials"], "redirect_uris": [], "response_types": [],
              "scope": "read"}  # fmt: skip
    with authorization_server(tmp_path, [client]) as provider, Things(provider) as api:
        (tmp_path / "spec.json").write_text(
            json.dumps(spec(provider.token_url, api.base_url)), encoding="utf-8"
        )
        assert (
            run_mcpgen(
                "init", tmp_path / "spec.json", "-o", tmp_path / "m.yaml", "--name", "things"
            ).returncode
            == 0
        )
        out = tmp_path / "out"
        assert (
            run_mcpgen("generate", tmp_path / "spec.json", "-m", tmp_path / "m.yaml", "-o", out).returncode
            == 0
        )
        wrong = "cs-wrong-0b9d7e"
        env = {"PYTHONPATH": str(out), "THINGS_CLIENT_ID": CLIENT["client_id"], "THINGS_CLIENT_SECRET": wrong}
        async with stdio_client([sys.executable, "-m", "things_mcp"], env) as session:
            [tool] = [t.name for t in (await session.list_tools()).tools]
            refused = await session.call_tool(tool, {"action": "get", "thing_id": "t1"})
        unset_env = {"PYTHONPATH": str(out), "THINGS_CLIENT_ID": "<your THINGS_CLIENT_ID>"}
        async with stdio_client([sys.executable, "-m", "things_mcp"], unset_env) as session:
            placeholder = await session.call_tool(tool, {"action": "get", "thing_id": "t1"})
        assert api.requests == []  # no call without a token
    text = result_text(refused)
    assert refused.is_error and "refused this server's credentials" in text and "invalid_client" in text
    assert "THINGS_CLIENT_SECRET" in text and wrong not in text
    said = result_text(placeholder)
    assert placeholder.is_error and "THINGS_CLIENT_ID still holds the placeholder" in said, said
