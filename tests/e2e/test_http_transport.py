"""The same generated server over streamable HTTP on 127.0.0.1, with the official client, and its Host check."""

from __future__ import annotations

import subprocess

import httpx
import pytest
from mcp import Client

from tests.e2e.conftest import TOKEN, InstalledServer, server_env
from tests.support import processes
from tests.upstreams.ads import AdsUpstream

pytestmark = [pytest.mark.e2e]


@pytest.fixture
def http_server(ads_server: InstalledServer, ads_upstream):
    with processes.http_server(ads_server.command, server_env(ads_upstream)) as url:
        yield url


@pytest.mark.anyio
async def test_http_lists_and_calls(http_server: str, ads_upstream) -> None:
    async with Client(http_server) as client:
        assert client.protocol_version == "2026-07-28"  # P1: the stateless revision
        listing = await client.list_tools()
        result = await client.call_tool("ads_campaigns_find", {"action": "get", "campaign_id": "cmp_010"})
    assert [t.name for t in listing.tools] == [
        "ads_budget_change_apply",
        "ads_budget_change_preview",
        "ads_campaign_change",
        "ads_campaigns_find",
        "ads_reports",
    ]
    assert result.structured_content["id"] == "cmp_010"


def test_http_refuses_a_foreign_host_header(http_server: str) -> None:
    response = httpx.post(
        http_server,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"host": "evil.example.com", "accept": "application/json, text/event-stream"},
    )
    assert response.status_code == 421


BALANCER_NAME = "api.example.test"  # the name a load balancer in front is reached by (issue 16)
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


def _list_tools_as(url: str, host: str, **headers: str) -> httpx.Response:
    """tools/list over a real socket to `url`, the Host header saying `host` (as a balancer forwards it)."""
    sent = {"host": host, "accept": "application/json, text/event-stream", **headers}
    return httpx.post(url, json=LIST_TOOLS, headers=sent, timeout=30.0)


def test_a_balancers_name_is_refused_by_default(http_server: str) -> None:
    for host in (BALANCER_NAME, f"{BALANCER_NAME}:8000"):
        assert _list_tools_as(http_server, host).status_code == 421, host


@pytest.fixture(scope="module")
def balanced_server(ads_server: InstalledServer):
    """Started as a container behind a balancer would be: the name from the flag and another from the env.
    One server for the module: the tests only list tools."""
    command = [*ads_server.command, "--allowed-host", BALANCER_NAME]
    with AdsUpstream(token=TOKEN) as upstream:
        env = {**server_env(upstream), "MCP_ALLOWED_HOSTS": "mcp.internal.test, other.example.test:8443"}
        with processes.http_server(command, env) as url:
            yield url


@pytest.mark.parametrize(
    "host, origin",
    [
        (BALANCER_NAME, None),  # a balancer on port 80/443 sends the bare name
        (f"{BALANCER_NAME}:8443", f"https://{BALANCER_NAME}:8443"),
        ("mcp.internal.test", "http://mcp.internal.test"),  # from MCP_ALLOWED_HOSTS
        ("other.example.test:8443", None),
    ],
)
def test_an_allowed_host_is_served(balanced_server: str, host: str, origin: str | None) -> None:
    response = _list_tools_as(balanced_server, host, **({"origin": origin} if origin else {}))
    assert response.status_code == 200, response.text
    assert "ads_campaigns_find" in {t["name"] for t in response.json()["result"]["tools"]}


@pytest.mark.parametrize(
    "host, origin",
    [
        ("evil.example.com", None),  # the default stays strict for every other name
        (f"{BALANCER_NAME}.evil.example.com", None),
        ("other.example.test:9000", None),  # that name was allowed on port 8443 only
        (BALANCER_NAME, "https://evil.example.com"),  # a foreign page's Origin
    ],
)
def test_only_the_allowed_hosts_are_added(balanced_server: str, host: str, origin: str | None) -> None:
    response = _list_tools_as(balanced_server, host, **({"origin": origin} if origin else {}))
    assert response.status_code in (421, 403), (host, origin, response.status_code)


def test_an_allowed_host_that_is_no_host_name_stops_the_server(
    ads_server: InstalledServer, ads_upstream
) -> None:
    bad = "https://api.example.test/mcp"
    started = subprocess.run(
        [*ads_server.command, "--http", "--port", str(processes.free_port()), "--allowed-host", bad],
        env={"PATH": "/usr/bin:/bin", **server_env(ads_upstream)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert started.returncode == 1, started.stderr
    assert "allowed host 'https://api.example.test/mcp' is not a host name" in started.stderr
    assert "without a scheme, path or wildcard" in started.stderr
