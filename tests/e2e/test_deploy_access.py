"""The deploy example over streamable HTTP with incoming bearer tokens (P3): JWTs issued for this server,
per-tool scopes deploy:read / deploy:rollback, tools hidden by scope AND refused on every call, and the
caller's token never sent upstream. Real processes and sockets: the installed server, the official MCP
client with a token header, and the Deploy API on 127.0.0.1 recording what it receives."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import httpx2
import jwt
import mcp_types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.e2e.conftest import InstalledServer
from tests.support.mcp_client import result_text, stdio_client, tool_dicts
from tests.support.paths import SPECS
from tests.support.processes import http_server
from tests.support.users import User
from tests.upstreams.deploy import DeployUpstream

pytestmark = [pytest.mark.e2e]

ISSUER = "https://auth.example.com"  # as in specs/deploy/mapping.yaml
AUDIENCE = "https://deploy-mcp.example.com/mcp"
SIGNING_SECRET = "test-signing-secret-for-hs256-0123456789"
DEPLOY_KEY = "server-own-deploy-key-81c2"
READ, ROLLBACK = "deploy:read", "deploy:rollback"


def token(
    scopes: str,
    *,
    audience: str = AUDIENCE,
    secret: str = SIGNING_SECRET,
    lifetime_s: int = 600,
    subject: str = "dana@example.com",
) -> str:
    now = int(time.time())
    claims = {
        "iss": ISSUER,
        "aud": audience,
        "sub": subject,
        "scope": scopes,
        "iat": now,
        "exp": now + lifetime_s,
    }
    return jwt.encode(claims, secret, algorithm="HS256")


@pytest.fixture
def deploy_upstream():
    with DeployUpstream(key=DEPLOY_KEY) as upstream:
        yield upstream


def _env(upstream: DeployUpstream, **extra: str) -> dict[str, str]:
    return {"DEPLOY_BASE_URL": upstream.base_url, "DEPLOY_API_KEY": DEPLOY_KEY, **extra}


@pytest.fixture
def deploy_http(deploy_server: InstalledServer, deploy_upstream: DeployUpstream):
    with http_server(deploy_server.command, _env(deploy_upstream, MCP_AUTH_JWT_SECRET=SIGNING_SECRET)) as url:
        yield url


@asynccontextmanager
async def client_with(url: str, bearer: str, user: User | None = None) -> AsyncIterator[Client]:
    """`user`: the person who answers the server's questions (elicitation), when the client can ask."""
    async with httpx2.AsyncClient(headers={"authorization": f"Bearer {bearer}"}, timeout=60) as http:
        async with Client(streamable_http_client(url, http_client=http), elicitation_callback=user) as client:
            yield client


# The reason is the user's, asked by the server (specs/deploy/mapping.yaml ask_user), not an argument.
REASON = "Checkout errors since the release"
ROLLBACK_ARGS = {"action": "start", "deployment_id": "dep_104", "confirm": "CONFIRM_ROLLBACK"}


@pytest.mark.anyio
async def test_a_read_only_token_does_not_see_rollback_and_is_refused_anyway(
    deploy_http: str, deploy_upstream: DeployUpstream
) -> None:
    caller_token = token(READ)
    async with client_with(deploy_http, caller_token) as client:
        listing = await client.list_tools()
        found = await client.call_tool("deploy_deployments_find", {"action": "list", "service": "checkout"})
        refused = await client.call_tool("deploy_rollback", ROLLBACK_ARGS)
    assert [t.name for t in listing.tools] == ["deploy_deployments_find"]
    assert listing.cache_scope == "private"  # the list depends on the caller's scopes (P2)
    assert not found.is_error and found.structured_content["items"][0]["id"] == "dep_104"
    text = result_text(refused)
    assert (
        refused.is_error
        and "needs the scope deploy:rollback" in text
        and "(needs credentials or permission)" in text
    )
    assert [r.method for r in deploy_upstream.requests] == ["GET"]  # the refused call never left the server
    assert deploy_upstream.deployments["dep_104"]["status"] == "succeeded"


@pytest.mark.anyio
async def test_the_rollback_scope_sees_and_calls_rollback_with_the_servers_own_key(
    deploy_http: str, deploy_upstream: DeployUpstream
) -> None:
    caller_token = token(f"{READ} {ROLLBACK}")
    user = User(mcp_types.ElicitResult(action="accept", content={"reason": REASON}))
    async with client_with(deploy_http, caller_token, user) as client:
        listing = await client.list_tools()
        rolled_back = await client.call_tool("deploy_rollback", ROLLBACK_ARGS)
    assert [t.name for t in listing.tools] == ["deploy_deployments_find", "deploy_rollback"]
    rollback = next(t for t in tool_dicts(listing) if t["name"] == "deploy_rollback")
    assert rollback["annotations"]["destructiveHint"] is True  # S4, from the mapping
    assert not rolled_back.is_error, result_text(rolled_back)
    assert rolled_back.structured_content["version"] == "2.3.0"
    [seen] = deploy_upstream.requests
    assert seen.method == "POST" and seen.path == "/deployments/dep_104/rollback"
    assert seen.json == {"reason": REASON} and len(user.asked) == 1
    assert seen.headers["x-deploy-key"] == DEPLOY_KEY and "authorization" not in seen.headers
    # The caller's token reaches the upstream nowhere: no header, no query, no body (P3).
    assert not any(caller_token in value for value in seen.headers.values())
    assert caller_token.encode() not in seen.body and caller_token not in str(seen.query)


@pytest.mark.parametrize(
    "bearer",
    [
        pytest.param(None, id="no-token"),
        pytest.param(token(READ, audience="https://other-service.example.com"), id="another-audience"),
        pytest.param(token(READ, secret="not-the-issuers-key-0123456789abcdef"), id="bad-signature"),
        pytest.param(token(READ, lifetime_s=-60), id="expired"),
        pytest.param("not-a-jwt", id="garbage"),
    ],
)
def test_requests_without_a_valid_token_for_this_server_are_refused(
    deploy_http: str, deploy_upstream: DeployUpstream, bearer: str | None
) -> None:
    headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28"}
    if bearer is not None:
        headers["authorization"] = f"Bearer {bearer}"
    response = httpx.post(
        deploy_http, headers=headers, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    )
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer ")
    assert deploy_upstream.requests == []


def test_http_without_a_key_to_check_tokens_does_not_start(
    deploy_server: InstalledServer, deploy_upstream: DeployUpstream
) -> None:
    completed = subprocess.run(
        [*deploy_server.command, "--http", "--port", "1"],
        env=_env(deploy_upstream),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode != 0
    assert "MCP_AUTH_JWT_SECRET" in completed.stderr and "MCP_AUTH_JWKS_URL" in completed.stderr


@pytest.mark.anyio
async def test_stdio_serves_its_one_user_every_tool(
    deploy_server: InstalledServer, deploy_upstream: DeployUpstream
) -> None:
    async with stdio_client(deploy_server.command, _env(deploy_upstream)) as client:
        listing = await client.list_tools()
        found: Any = await client.call_tool(
            "deploy_deployments_find", {"action": "get", "deployment_id": "dep_109"}
        )
    assert [t.name for t in listing.tools] == ["deploy_deployments_find", "deploy_rollback"]
    assert found.structured_content["status"] == "failed"


@pytest.mark.anyio
async def test_tokens_signed_with_a_key_from_the_issuers_jwks(
    deploy_server: InstalledServer, deploy_upstream: DeployUpstream, tmp_path
) -> None:
    """MCP_AUTH_JWKS_URL: the issuer publishes its public keys; the server never holds a signing secret."""
    import json

    from cryptography.hazmat.primitives.asymmetric import rsa

    private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public_jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(private_key.public_key()))
    jwks = tmp_path / "jwks.json"
    jwks.write_text(
        json.dumps({"keys": [{**public_jwk, "kid": "issuer-key-1", "use": "sig", "alg": "RS256"}]})
    )
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "dana@example.com", "scope": READ, "exp": now + 600}
    signed = jwt.encode(claims, private_key, algorithm="RS256", headers={"kid": "issuer-key-1"})
    env = _env(deploy_upstream, MCP_AUTH_JWKS_URL=jwks.as_uri())
    with http_server(deploy_server.command, env) as url:
        async with client_with(url, signed) as client:
            listing = await client.list_tools()
        forged = httpx.post(
            url,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
            headers={
                "authorization": f"Bearer {token(READ)}",  # HS256: not the issuer's key
                "accept": "application/json, text/event-stream",
                "mcp-protocol-version": "2026-07-28",
            },
        )
    assert [t.name for t in listing.tools] == ["deploy_deployments_find"]
    assert forged.status_code == 401


@pytest.fixture
def deploy_with_discovery(mcpgen_venv, deploy_server: InstalledServer, tmp_path) -> list[str]:
    """The deploy example with on-demand discovery (T3): tools/list serves only the search and call
    meta-tools. Generated into a temp dir and run from it, with the installed example's dependencies."""
    mapping = tmp_path / "mapping.yaml"
    text = (SPECS / "deploy" / "mapping.yaml").read_text(encoding="utf-8")
    mapping.write_text(text.replace("server:\n", "server:\n  discovery: search_tools\n", 1), encoding="utf-8")
    generated = subprocess.run(
        [
            str(mcpgen_venv.parent / "mcpgen"),
            "generate",
            str(SPECS / "deploy" / "deploy.openapi.yaml"),
            "-m",
            str(mapping),
            "-o",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert generated.returncode == 0, generated.stderr
    return [
        str(mcpgen_venv),
        "-c",
        f"import sys; sys.path.insert(0, {str(tmp_path / 'out')!r}); "
        "from deploy_mcp.server import main; main()",
    ]


@pytest.mark.anyio
async def test_search_shows_only_the_tools_the_token_may_call(
    deploy_with_discovery: list[str], deploy_upstream: DeployUpstream
) -> None:
    env = _env(deploy_upstream, MCP_AUTH_JWT_SECRET=SIGNING_SECRET)
    with http_server(deploy_with_discovery, env) as url:
        async with client_with(url, token(READ)) as client:
            reader = await client.call_tool("deploy_search_tools", {"query": "rollback deployment"})
        async with client_with(url, token(f"{READ} {ROLLBACK}")) as client:
            operator = await client.call_tool("deploy_search_tools", {"query": "rollback deployment"})
    # A search's answer is sent once, as text (its tool declares no outputSchema).
    assert [t["name"] for t in json.loads(reader.content[0].text)["tools"]] == ["deploy_deployments_find"]
    assert "deploy_rollback" in [t["name"] for t in json.loads(operator.content[0].text)["tools"]]
