"""A cancelled call reaches the API (P5 timeouts; E4 unknown outcome is not retry): the generated ads
server over streamable HTTP and over stdio, driven by the official client, calling a stand-in Ads API
that holds the request and records when its caller hangs up (tests/upstreams/hangups.py).

Over HTTP a call is cancelled two ways: the client closes the response stream (a raw POST whose
connection is dropped), and the SDK's own cancel (an anyio cancel scope around call_tool, which at
2026-07-28 aborts the POST). Over stdio the SDK sends notifications/cancelled. Either way the
upstream request must be aborted within 1 s (issue 18), a held POST must never be applied, the server
log must say so, and a cancelled apply is an unknown outcome that a second apply never resends.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest
from mcp import Client

from tests.e2e.conftest import TOKEN, InstalledServer
from tests.support import processes
from tests.support.mcp_client import result_text, stdio_client
from tests.upstreams.hangups import Hangup, HangupAdsUpstream

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ABORT_WITHIN_S = 1.0  # issue 18: the upstream request is aborted within 1 s of the cancel
HOLD_S = 12.0  # how long the stand-in holds a request: far longer than any abort may take

GET = ("ads_campaigns_find", {"action": "get", "campaign_id": "cmp_001"}, "GET", "/campaigns/cmp_001")
PAUSE = (
    "ads_campaign_change",
    {"action": "pause", "campaign_id": "cmp_001"},
    "POST",
    "/campaigns/cmp_001/pause",
)
BUDGET_PATH = "/campaigns/cmp_002/budget"


@pytest.fixture(scope="module")
def shared_upstream():
    with HangupAdsUpstream(token=TOKEN) as stand_in:
        yield stand_in


@pytest.fixture
def upstream(shared_upstream: HangupAdsUpstream) -> HangupAdsUpstream:
    """The module's stand-in, with no holds, hang-ups or requests left from an earlier test."""
    shared_upstream.reset()
    return shared_upstream


@pytest.fixture(scope="module")
def env(shared_upstream: HangupAdsUpstream, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    # Previews live in this module's own SQLite file.
    state = tmp_path_factory.mktemp("cancellation-state")
    return {"ADS_BASE_URL": shared_upstream.base_url, "ADS_API_TOKEN": TOKEN, "XDG_STATE_HOME": str(state)}


@pytest.fixture(scope="module")
def http_served(
    ads_server: InstalledServer, env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Path]]:
    """One HTTP server for the module's HTTP tests: its URL and its log."""
    log = tmp_path_factory.mktemp("cancellation-http") / "server.log"
    with processes.http_server(ads_server.command, env, stderr_file=log) as url:
        yield url, log


@asynccontextmanager
async def http_client(url: str) -> AsyncIterator[Client]:
    async with Client(url) as client:
        yield client


async def cancel_when_held(upstream: HangupAdsUpstream, call: Callable[[], Awaitable[Any]]) -> float:
    """Runs `call`, cancels it as soon as the stand-in holds its request; returns when it was cancelled."""
    async with anyio.create_task_group() as group:
        group.start_soon(call)
        arrived = await anyio.to_thread.run_sync(upstream.arrived.wait, HOLD_S)
        assert arrived, "the held request never reached the stand-in"
        cancelled_at = time.monotonic()
        group.cancel_scope.cancel()
    return cancelled_at


async def aborted(upstream: HangupAdsUpstream, cancelled_at: float, method: str, path: str) -> Hangup:
    """The stand-in's record of the hang-up, which came within ABORT_WITHIN_S of the cancel."""
    hangups = await anyio.to_thread.run_sync(upstream.wait_for_hangups, 1, HOLD_S)
    assert [(h.method, h.path) for h in hangups] == [(method, path)], "the upstream request was not aborted"
    [hangup] = hangups
    latency = hangup.at - cancelled_at
    print(f"{method} {path}: upstream aborted {latency * 1000:.0f} ms after the cancel")
    assert latency < ABORT_WITHIN_S
    return hangup


def raw_call(
    url: str, name: str, arguments: dict[str, Any], era: str = "2026-07-28"
) -> Callable[[], Awaitable[Any]]:
    """A tools/call as one POST, made without the SDK: cancelling it closes the connection. At
    2026-07-28 it carries the revision's `_meta` and routing headers; at 2025-11-25 it is the
    handshake era's stateless POST."""
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    headers = {"content-type": "application/json", "mcp-protocol-version": era}
    if era == "2026-07-28":
        params["_meta"] = {types.PROTOCOL_VERSION_META_KEY: era, types.CLIENT_CAPABILITIES_META_KEY: {}}
        headers |= {"accept": "application/json", "mcp-method": "tools/call", "mcp-name": name}
    else:
        headers["accept"] = "application/json, text/event-stream"
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}

    async def post() -> httpx.Response:
        async with httpx.AsyncClient(timeout=HOLD_S * 2) as http:
            return await http.post(url, content=json.dumps(body), headers=headers)

    return post


def logged_cancel(log: Path, since: int, tool: str, action: str | None) -> bool:
    text = log.read_text(encoding="utf-8")[since:] if log.is_file() else ""
    shown = f" action={action}" if action else ""
    return f"{tool}{shown} -> cancelled by the client in " in text


def log_size(log: Path) -> int:
    return len(log.read_text(encoding="utf-8")) if log.is_file() else 0


async def wait_for_log(log: Path, since: int, tool: str, action: str | None) -> bool:
    """The server logs a call when it ends; a cancelled one ends a moment after the hang-up."""
    with anyio.move_on_after(5):
        while not logged_cancel(log, since, tool, action):
            await anyio.sleep(0.05)
    return logged_cancel(log, since, tool, action)


# --- over streamable HTTP --------------------------------------------------------------------


# How a call is cancelled over HTTP: the SDK's own cancel, or a client closing the response stream
# of its POST (at 2026-07-28, and at 2025-11-25 on the handshake era's stateless POST).
HOW = ["sdk_cancel", "closed_stream", "closed_stream_2025"]


def cancelling(
    how: str, client: Client, url: str, name: str, arguments: dict[str, Any]
) -> Callable[[], Awaitable[Any]]:
    if how == "sdk_cancel":
        return lambda: client.call_tool(name, arguments)
    return raw_call(url, name, arguments, era="2025-11-25" if how.endswith("2025") else "2026-07-28")


@pytest.mark.parametrize("call", [GET, PAUSE], ids=["get", "post"])
@pytest.mark.parametrize("how", HOW)
async def test_http_cancel_aborts_the_upstream_request(
    call: tuple[str, dict[str, Any], str, str],
    how: str,
    upstream: HangupAdsUpstream,
    http_served: tuple[str, Path],
) -> None:
    tool, arguments, method, path = call
    url, log = http_served
    since = log_size(log)
    upstream.hold(method, path, HOLD_S)
    async with http_client(url) as client:
        cancelled_at = await cancel_when_held(upstream, cancelling(how, client, url, tool, arguments))
        await aborted(upstream, cancelled_at, method, path)
        assert await wait_for_log(log, since, tool, arguments["action"]), log.read_text(encoding="utf-8")[
            since:
        ]
        upstream.reset()  # no more holds: the server still answers, at once
        after = await client.call_tool(*GET[:2])
    assert not after.is_error, result_text(after)
    assert upstream.campaigns["cmp_001"]["status"] == "active"  # the pause never happened, nor later
    assert [r.method for r in upstream.requests] == ["GET"]  # nothing was sent again


async def test_http_quick_answers_stay_json(
    upstream: HangupAdsUpstream, http_served: tuple[str, Path]
) -> None:
    url, _ = http_served
    response = await raw_call(url, *GET[:2])()
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    assert response.json()["result"]["structuredContent"]["id"] == "cmp_001"


@pytest.mark.parametrize("how", HOW)
async def test_http_cancelled_apply_is_an_unknown_outcome(
    how: str, upstream: HangupAdsUpstream, http_served: tuple[str, Path]
) -> None:
    url, log = http_served
    since = log_size(log)
    async with http_client(url) as client:
        preview = await client.call_tool(
            "ads_budget_change_preview", {"campaign_id": "cmp_002", "new_daily_budget_krw": 420000}
        )
        assert not preview.is_error, result_text(preview)
        apply_args = {"preview_id": preview.structured_content["preview_id"]}
        upstream.hold("PATCH", BUDGET_PATH, HOLD_S)
        cancelled_at = await cancel_when_held(
            upstream, cancelling(how, client, url, "ads_budget_change_apply", apply_args)
        )
        await aborted(upstream, cancelled_at, "PATCH", BUDGET_PATH)
        assert await wait_for_log(log, since, "ads_budget_change_apply", None), log.read_text(
            encoding="utf-8"
        )
        again = await client.call_tool("ads_budget_change_apply", apply_args)
    assert_unknown_outcome(again, upstream)


def assert_unknown_outcome(again: Any, upstream: HangupAdsUpstream) -> None:
    """The second apply of a cancelled one: nothing resent, and the agent is told to check first."""
    text = result_text(again)
    assert again.is_error
    assert "whether the change was made is unknown" in text and "cancelled" in text, text
    assert "Check the current state with" in text, text
    assert [r.method for r in upstream.requests].count("PATCH") == 1  # one upstream request at most
    assert upstream.campaigns["cmp_002"]["daily_budget"] != 420000


# --- the same over stdio ---------------------------------------------------------------------


@pytest.mark.parametrize("call", [GET, PAUSE], ids=["get", "post"])
async def test_stdio_cancel_aborts_the_upstream_request(
    call: tuple[str, dict[str, Any], str, str],
    ads_server: InstalledServer,
    upstream: HangupAdsUpstream,
    env: dict[str, str],
    tmp_path: Path,
) -> None:
    tool, arguments, method, path = call
    upstream.hold(method, path, HOLD_S)
    log = tmp_path / "server.log"
    async with stdio_client(ads_server.command, {"PATH": "/usr/bin:/bin", **env}, stderr_file=log) as client:
        cancelled_at = await cancel_when_held(upstream, lambda: client.call_tool(tool, arguments))
        await aborted(upstream, cancelled_at, method, path)
        assert await wait_for_log(log, 0, tool, arguments["action"]), log.read_text(encoding="utf-8")
    assert upstream.campaigns["cmp_001"]["status"] == "active"


async def test_stdio_cancelled_apply_is_an_unknown_outcome(
    ads_server: InstalledServer, upstream: HangupAdsUpstream, env: dict[str, str], tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    async with stdio_client(ads_server.command, {"PATH": "/usr/bin:/bin", **env}, stderr_file=log) as client:
        preview = await client.call_tool(
            "ads_budget_change_preview", {"campaign_id": "cmp_002", "new_daily_budget_krw": 420000}
        )
        apply_args = {"preview_id": preview.structured_content["preview_id"]}
        upstream.hold("PATCH", BUDGET_PATH, HOLD_S)
        cancelled_at = await cancel_when_held(
            upstream, lambda: client.call_tool("ads_budget_change_apply", apply_args)
        )
        await aborted(upstream, cancelled_at, "PATCH", BUDGET_PATH)
        again = await client.call_tool("ads_budget_change_apply", apply_args)
    assert_unknown_outcome(again, upstream)
