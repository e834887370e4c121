"""Each user's own upstream token (oauth2_user) against a real authorization server (oidc-provider,
tests/support/oidc.py), through two replicas of the generated server behind a real haproxy, with the
Redis store: `mcpgen init` drafts it from the spec's authorizationCode flow; a caller with no link gets a
URL-mode elicitation (read by the official SDK client as UrlElicitationRequiredError), whose URL a
browser-like client follows through the provider's own sign-in and consent pages back to the server's
callback. Two users (two `server.access` subjects): A links and calls, B's call asks B to link, A's
token never serves B; a restarted replica still has A's link; an expired token is refreshed with a
rotated refresh token, twice; an unlinked link asks again; a replayed or tampered callback
`state` is refused (rule "credentials").
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import jsonschema
import jwt
import pytest
import yaml
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError

from mcpgen.render.deploy import haproxy_config
from tests.support.mcp_client import result_text, stdio_client
from tests.support.oidc import Introspecting, Provider, authorization_server, sign_in
from tests.support.processes import free_port, redis_server, wait_for_port
from tests.support.venvs import run_mcpgen
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest, Reply

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

ISSUER, AUDIENCE = "https://auth.example.com", "https://things-mcp.example.com/mcp"
JWT_SECRET = "test-signing-secret-for-hs256-0123456789"
CLIENT = {"client_id": "things-users", "client_secret": "cs-users-4be1a07c93d2"}
ACCESS_TTL_S = 12


def caller_token(subject: str) -> str:
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": subject, "scope": "", "iat": now, "exp": now + 900}
    return jwt.encode(claims, JWT_SECRET, algorithm="HS256")


def spec(authorization_url: str, token_url: str, api: str) -> dict[str, Any]:
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}
    flow = {"authorizationUrl": authorization_url, "tokenUrl": token_url, "scopes": {"read": "r"}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Things", "version": "1.0.0"},
        "servers": [{"url": api}],
        "components": {
            "securitySchemes": {"oauth": {"type": "oauth2", "flows": {"authorizationCode": flow}}}
        },
        "security": [{"oauth": ["read"]}],
        "paths": {
            "/me/things": {"get": {"operationId": "myThings", "summary": "My things", "responses": ok}}
        },
    }


class MyThings(Introspecting):
    def __init__(self, provider: Provider) -> None:
        super().__init__(provider)
        self.route("GET", "/me/things", lambda r, p: Reply(200, {"owner": self.subjects[-1]}))


@contextmanager
def _process(command: list[str], what: str, port: int, env: dict[str, str], log: Path) -> Iterator[Any]:
    with log.open("ab") as stderr:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr, env=env)
        try:
            wait_for_port(process, port, what)
            yield process
        finally:
            if process.poll() is None:
                process.terminate()
            process.wait(timeout=10)


@asynccontextmanager
async def as_user(url: str, subject: str) -> AsyncIterator[Client]:
    headers = {"authorization": f"Bearer {caller_token(subject)}"}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            yield client


async def my_things(url: str, subject: str) -> Any:
    """The tool's result, or the URL-mode elicitation the server answered with instead."""
    async with as_user(url, subject) as client:
        try:
            return await client.call_tool("things_me_find", {"action": "my_things"})
        except MCPError as exc:
            return UrlElicitationRequiredError.from_error(exc.error)


def _package(
    tmp_path: Path, urls: tuple[str, str], api: str, auth: dict[str, Any] | None = None, info: bool = False
) -> Path:
    """init, then generate, with `auth` added to the drafted server.auth and server_info when `info`."""
    authorization_url, token_url = urls
    (tmp_path / "spec.json").write_text(json.dumps(spec(authorization_url, token_url, api)), encoding="utf-8")
    drafted = run_mcpgen("init", tmp_path / "spec.json", "-o", tmp_path / "mapping.yaml", "--name", "things")
    assert drafted.returncode == 0, drafted.stderr
    mapping = yaml.safe_load((tmp_path / "mapping.yaml").read_text(encoding="utf-8"))
    assert mapping["server"]["auth"] == {
        "type": "oauth2_user",
        "authorization_url": authorization_url,
        "token_url": token_url,
        "scopes": ["read"],
        "client_id_env": "THINGS_CLIENT_ID",
        "client_secret_env": "THINGS_CLIENT_SECRET",
        "env": "THINGS_TOKEN",
    }  # fmt: skip  (env: the token a call with no user, over stdio, uses)
    mapping["server"]["access"] = {"issuer": ISSUER, "audience": AUDIENCE}
    mapping["server"]["auth"] |= auth or {}
    if info:
        mapping["server"]["server_info"] = True
    (tmp_path / "mapping.yaml").write_text(yaml.safe_dump(mapping), encoding="utf-8")
    out = tmp_path / "out"
    done = run_mcpgen("generate", tmp_path / "spec.json", "-m", tmp_path / "mapping.yaml", "-o", out)
    assert done.returncode == 0, done.stderr
    return out


async def test_each_user_links_their_own_account_across_replicas(tmp_path: Path) -> None:
    haproxy = shutil.which("haproxy") or ("/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None)
    if haproxy is None:
        pytest.skip("haproxy is not installed (scripts/test installs it with apt-get when run as root)")
    balancer = free_port()
    public = f"http://127.0.0.1:{balancer}"
    client = {**CLIENT, "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
              "redirect_uris": [f"{public}/oauth/callback"], "scope": "openid read"}  # fmt: skip
    with ExitStack() as stack:
        provider = stack.enter_context(
            authorization_server(tmp_path, [client], ttl={"AccessToken": ACCESS_TTL_S})
        )
        api = stack.enter_context(MyThings(provider))
        package = _package(tmp_path, (provider.authorization_url, provider.token_url), api.base_url)
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(package), "MCP_AUTH_JWT_SECRET": JWT_SECRET,
               "MCP_STORE_URL": stack.enter_context(redis_server(tmp_path)), "MCP_PUBLIC_URL": public,
               "MCP_TOKEN_KEY": "token-key-" + "7" * 40, "THINGS_CLIENT_ID": CLIENT["client_id"],
               "THINGS_CLIENT_SECRET": CLIENT["client_secret"]}  # fmt: skip
        ports = [free_port(), free_port()]
        replica = [
            [sys.executable, "-m", "things_mcp", "--http", "--port", str(port), "--contract-poll-s", "0"]
            for port in ports
        ]
        logs = [tmp_path / "replica0.log", tmp_path / "replica1.log"]
        first = stack.enter_context(_process(replica[0], "replica 0", ports[0], env, logs[0]))
        stack.enter_context(_process(replica[1], "replica 1", ports[1], env, logs[1]))
        config = tmp_path / "haproxy.cfg"
        config.write_text(
            haproxy_config("# test", [f"127.0.0.1:{p}" for p in ports], docker=False, port=balancer)
        )
        stack.enter_context(
            _process([haproxy, "-db", "-f", str(config)], "haproxy", balancer, env, tmp_path / "h.log")
        )
        url = f"{public}/mcp"

        # A: asked to link, links through the provider's own pages, then calls as A.
        asked = await my_things(url, "alice")
        assert isinstance(asked, UrlElicitationRequiredError), asked
        [link] = asked.elicitations
        assert link.mode == "url" and link.url.startswith(provider.authorization_url) and api.requests == []
        callback = sign_in(link.url, login="alice", stop_at=f"{public}/oauth/callback")
        assert callback.status_code == 200 and "linked" in callback.text, callback.text
        # The same callback again (a replay), and one with a tampered state, are refused.
        replayed = httpx.get(str(callback.url), timeout=10)
        assert replayed.status_code == 400 and "already used" in replayed.text
        tampered = httpx.get(str(callback.url).replace("state=", "state=x"), timeout=10)
        assert tampered.status_code == 400 and "not one this server made" in tampered.text
        for _ in range(4):  # both replicas serve A with A's own token
            result = await my_things(url, "alice")
            assert not isinstance(result, UrlElicitationRequiredError) and not result.is_error, result
            assert json.loads(result_text(result))["owner"] == "alice"
        a_tokens = set(api.tokens)

        # B: asked to link, never served with A's token; then links as B.
        sent = len(api.tokens)
        asked_b = await my_things(url, "bob")
        assert isinstance(asked_b, UrlElicitationRequiredError) and len(api.tokens) == sent
        assert asked_b.elicitations[0].url != link.url
        assert (
            sign_in(asked_b.elicitations[0].url, login="bob", stop_at=f"{public}/oauth/callback").status_code
            == 200
        )
        result_b = await my_things(url, "bob")
        assert json.loads(result_text(result_b))["owner"] == "bob"
        assert api.tokens[-1] not in a_tokens
        assert {s for t, s in zip(api.tokens, api.subjects, strict=True) if t in a_tokens} == {"alice"}

        # A restarted replica still has A's link (the store is shared and outlives it).
        first.terminate()
        first.wait(timeout=10)
        stack.enter_context(_process(replica[0], "replica 0 again", ports[0], env, logs[0]))
        for _ in range(2):
            again = await my_things(url, "alice")
            assert json.loads(result_text(again))["owner"] == "alice"

        # Expired twice: each time refreshed, the second with the refresh token the first rotation gave.
        for rounds in (1, 2):
            await anyio.sleep(ACCESS_TTL_S)
            refreshed = await my_things(url, "alice")
            assert json.loads(result_text(refreshed))["owner"] == "alice"
            assert provider.token_requests("refresh_token") >= rounds
        assert provider.stats().get("refresh_token 400", 0) == 0

        # A unlinks (POST /oauth/unlink with A's MCP token): the next call asks again.
        headers = {"authorization": f"Bearer {caller_token('alice')}"}
        assert httpx.get(f"{public}/oauth/link", headers=headers, timeout=10).json() == {"linked": True}
        assert httpx.post(f"{public}/oauth/unlink", headers=headers, timeout=10).json() == {"linked": False}
        assert isinstance(await my_things(url, "alice"), UrlElicitationRequiredError)
        assert (
            httpx.get(f"{public}/oauth/link", timeout=10).status_code == 401
        )  # whose link? no token, no answer
        still_b = await my_things(url, "bob")
        assert json.loads(result_text(still_b))["owner"] == "bob"
    logs_text = "".join(log.read_text(encoding="utf-8") for log in logs)
    assert not any(token in logs_text for token in api.tokens)


# ---- two replicas refreshing one user's rotating token at once; unlinking revokes at the API --------


async def server_info(url: str, subject: str) -> dict[str, Any]:
    """The server_info tool's result for this caller, validated against the outputSchema it lists."""
    async with as_user(url, subject) as client:
        [tool] = [t for t in (await client.list_tools()).tools if t.name.endswith("_server_info")]
        result = await client.call_tool(tool.name, {})
    assert not result.is_error and tool.output_schema is not None, result
    jsonschema.validate(result.structured_content, tool.output_schema)
    info: dict[str, Any] = result.structured_content
    return info


@pytest.mark.parametrize("store", ["redis", "sqlite"])
async def test_replicas_refresh_a_rotating_token_once_and_unlinking_revokes_it(
    tmp_path: Path, store: str
) -> None:
    """oidc-provider rotates refresh tokens and takes a rotated one used again as a replay: it revokes
    the whole grant (the user would be unlinked). Six calls at once, three on each replica, find A's
    token expired: one refresh, every call served with A's new token. Then A unlinks: the mapping's
    revocation_url revokes the grant at the provider, so the token last sent no longer works. A link
    revoked at the provider asks again. server_info's `linked` follows, valid against its outputSchema."""
    ports = [free_port(), free_port()]
    public = f"http://127.0.0.1:{ports[0]}"  # any replica serves the callback: the store is shared
    client = {**CLIENT, "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
              "redirect_uris": [f"{public}/oauth/callback"], "scope": "openid read"}  # fmt: skip
    with ExitStack() as stack:
        provider = stack.enter_context(
            authorization_server(tmp_path, [client], ttl={"AccessToken": ACCESS_TTL_S})
        )
        api = stack.enter_context(MyThings(provider))
        urls = (provider.authorization_url, provider.token_url)
        package = _package(
            tmp_path, urls, api.base_url, {"revocation_url": provider.revocation_url}, info=True
        )
        store_url = (
            stack.enter_context(redis_server(tmp_path)) if store == "redis" else f"sqlite:///{tmp_path}/s.db"
        )
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(package), "MCP_AUTH_JWT_SECRET": JWT_SECRET,
               "MCP_STORE_URL": store_url, "MCP_PUBLIC_URL": public, "MCP_TOKEN_KEY": "token-key-" + "7" * 40,
               "THINGS_CLIENT_ID": CLIENT["client_id"], "THINGS_CLIENT_SECRET": CLIENT["client_secret"]}  # fmt: skip
        logs = [tmp_path / f"replica{n}.log" for n in range(2)]
        for n, port in enumerate(ports):
            command = [
                sys.executable,
                "-m",
                "things_mcp",
                "--http",
                "--port",
                str(port),
                "--contract-poll-s",
                "0",
            ]
            stack.enter_context(_process(command, f"replica {n}", port, env, logs[n]))
        mcp = [f"http://127.0.0.1:{port}/mcp" for port in ports]

        asked = await my_things(mcp[1], "alice")
        assert isinstance(asked, UrlElicitationRequiredError), asked
        signed = sign_in(asked.elicitations[0].url, login="alice", stop_at=f"{public}/oauth/callback")
        assert signed.status_code == 200, signed.text
        assert json.loads(result_text(await my_things(mcp[1], "alice")))["owner"] == "alice"
        assert (await server_info(mcp[0], "alice"))["credentials"][0]["linked"] is True
        assert (await server_info(mcp[0], "bob"))["credentials"][0]["linked"] is False

        await anyio.sleep(ACCESS_TTL_S)
        results: list[Any] = []

        async def call(url: str) -> None:
            results.append(await my_things(url, "alice"))

        async with anyio.create_task_group() as group:
            for url in mcp * 3:
                group.start_soon(call, url)
        unlinked_by_a_clash = [r for r in results if isinstance(r, UrlElicitationRequiredError)]
        assert unlinked_by_a_clash == []  # a second refresh with the rotated token revokes the grant
        assert [json.loads(result_text(r))["owner"] for r in results] == ["alice"] * 6, results
        stats = provider.stats()
        assert (stats.get("refresh_token 200"), stats.get("refresh_token 400")) == (1, None), stats
        assert len(set(api.tokens[-6:])) == 1  # all six with the one new token

        last = api.tokens[-1]
        assert provider.introspect(last)["active"] is True
        headers = {"authorization": f"Bearer {caller_token('alice')}"}
        unlinked = httpx.post(f"http://127.0.0.1:{ports[1]}/oauth/unlink", headers=headers, timeout=10)
        assert unlinked.json() == {"linked": False}
        assert provider.introspect(last)["active"] is False  # revoked at the provider, not only forgotten
        assert (await server_info(mcp[0], "alice"))["credentials"][0]["linked"] is False
        again = await my_things(mcp[0], "alice")
        assert isinstance(again, UrlElicitationRequiredError), again

        # Linked again, then revoked at the API (not here): the API refuses the token, the refresh is
        # refused too (invalid_grant), and the call asks A to link again.
        signed = sign_in(again.elicitations[0].url, login="alice", stop_at=f"{public}/oauth/callback")
        assert signed.status_code == 200, signed.text
        assert json.loads(result_text(await my_things(mcp[0], "alice")))["owner"] == "alice"
        provider.revoke(api.tokens[-1], CLIENT["client_id"], CLIENT["client_secret"])
        assert isinstance(await my_things(mcp[1], "alice"), UrlElicitationRequiredError)
        assert provider.stats().get("refresh_token 400") == 1
    logs_text = "".join(log.read_text(encoding="utf-8") for log in logs)
    assert not any(token in logs_text for token in api.tokens)


# ---- over stdio: no user, the token of the environment --------------------------------------------

ENV_TOKEN = "things-deployment-token-5d1f0c2b9e8a7d6c"
NOWHERE = ("https://auth.things.example.com/authorize", "https://auth.things.example.com/token")


class OneAccount(LoopbackUpstream):
    """An API that takes one account's bearer token and, as some do, names a refused token in its 401."""

    def __init__(self) -> None:
        super().__init__()
        self.route("GET", "/me/things", lambda r, p: Reply(200, {"owner": "the deployment"}))

    def authorize(self, request: RecordedRequest) -> Reply | None:
        header = request.headers.get("authorization", "")
        if header == f"Bearer {ENV_TOKEN}":
            return None
        body = {
            "error": "invalid_token",
            "error_description": f"unknown token {header.removeprefix('Bearer ')}",
        }
        return Reply(401, body, {"www-authenticate": 'Bearer realm="api", error="invalid_token"'})


async def test_a_call_with_no_user_over_stdio_sends_the_token_of_the_environment(tmp_path: Path) -> None:
    """Over stdio a call has no user: the server sends THINGS_TOKEN (drafted by init) as a bearer
    token, never the sign-in; a wrong token is refused naming the variable to fix; a client config's
    placeholder is never sent; unset, the call says to set it. No token in any result or log."""
    with OneAccount() as api:
        package = _package(tmp_path, NOWHERE, api.base_url, info=True)
        log = tmp_path / "stdio.log"
        texts: list[str] = []

        async def session(token: str | None) -> tuple[Any, dict[str, Any]]:
            env = {"PYTHONPATH": str(package), "THINGS_CLIENT_ID": CLIENT["client_id"]}
            env |= {"THINGS_TOKEN": token} if token is not None else {}
            async with stdio_client([sys.executable, "-m", "things_mcp"], env, stderr_file=log) as client:
                tools = {t.name: t for t in (await client.list_tools()).tools}
                result = await client.call_tool("things_me_find", {"action": "my_things"})
                info = await client.call_tool("things_server_info", {})
            texts.extend([result_text(result), result_text(info)])
            jsonschema.validate(info.structured_content, tools["things_server_info"].output_schema)
            return result, info.structured_content

        served, info = await session(ENV_TOKEN)
        assert not served.is_error and json.loads(result_text(served)) == {"owner": "the deployment"}
        assert [r.headers["authorization"] for r in api.requests if r.path == "/me/things"] == [
            f"Bearer {ENV_TOKEN}"
        ]
        by_env = {c["env"]: c for c in info["credentials"]}
        assert by_env["THINGS_TOKEN"]["configured"] is True and by_env["THINGS_TOKEN"]["linked"] is False

        wrong = "things-wrong-token-8c7b6a5d4e3f"
        refused, _ = await session(wrong)
        assert refused.is_error and "THINGS_TOKEN" in result_text(refused), result_text(refused)

        def calls() -> list[RecordedRequest]:
            return [r for r in api.requests if r.path == "/me/things"]

        sent = len(calls())
        placeholder, _ = await session("<your THINGS_TOKEN>")
        assert placeholder.is_error and "THINGS_TOKEN still holds the placeholder" in result_text(placeholder)
        unset, _ = await session(None)
        assert unset.is_error and "set THINGS_TOKEN" in result_text(unset), result_text(unset)
        assert len(calls()) == sent  # neither was sent (server_info probes only the base URL)
    outputs = "\n".join(texts) + log.read_text(encoding="utf-8")
    assert ENV_TOKEN not in outputs and wrong not in outputs
