"""The same generated server over streamable HTTP on 127.0.0.1, with the official client, and its Host and
Origin checks (DNS-rebinding protection) seen from raw HTTP requests."""

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


def _post_raw(url: str, **headers: str) -> httpx.Response:
    """tools/list over a real socket with exactly these headers (Host given, else the URL's)."""
    sent = {"accept": "application/json, text/event-stream", **headers}
    return httpx.post(
        url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=sent, timeout=30.0
    )


def _port(url: str) -> int:
    port = httpx.URL(url).port
    assert port is not None
    return port


def test_a_host_name_in_any_case_is_served(http_server: str) -> None:
    """Host names are case-insensitive (RFC 3986 section 3.2.2): LOCALHOST is localhost."""
    port = _port(http_server)
    for host in (f"LOCALHOST:{port}", f"Localhost:{port}", f"LocalHost:{port}", f"127.0.0.1:{port}"):
        response = _post_raw(http_server, host=host)
        assert response.status_code == 200, (host, response.text)
        assert "ads_campaigns_find" in {t["name"] for t in response.json()["result"]["tools"]}


def test_a_foreign_host_in_any_case_is_refused_and_told_what_is_served(http_server: str) -> None:
    port = _port(http_server)
    for host in (
        "EVIL.example.com",
        f"LOCALHOST.evil.example.com:{port}",
        f"localhost:{port}.evil.example.com",
    ):
        response = _post_raw(http_server, host=host)
        assert response.status_code == 421, host
    assert "the server answers to 127.0.0.1 (any port), localhost (any port)" in response.text
    assert "--allowed-host NAME or set MCP_ALLOWED_HOSTS=NAME" in response.text


def test_a_page_on_another_localhost_port_is_refused(http_server: str) -> None:
    """Another program's page on this machine (another port) is not the server's origin: 403, saying which
    origins may call and how to allow another."""
    port = _port(http_server)
    for origin in (
        "http://localhost:9999",
        f"http://localhost:{port + 1}",
        "http://127.0.0.1:9999",
        f"https://localhost:{port}",  # the server speaks http
        "http://localhost",
        "null",  # a file:// or sandboxed page
    ):
        response = _post_raw(http_server, host=f"localhost:{port}", origin=origin)
        assert response.status_code == 403, (origin, response.text)
    refused = _post_raw(http_server, host=f"localhost:{port}", origin="http://localhost:9999")
    assert refused.text.startswith(
        f"Origin http://localhost:9999 may not call this server: only pages from http://127.0.0.1:{port}, "
        f"http://localhost:{port}, http://[::1]:{port} may."
    )
    assert (
        "--allowed-origin http://localhost:9999 or set MCP_ALLOWED_ORIGINS=http://localhost:9999"
        in refused.text
    )


def test_a_page_of_the_servers_own_origin_is_served(http_server: str) -> None:
    port = _port(http_server)
    for origin in (f"http://localhost:{port}", f"http://LOCALHOST:{port}", f"http://127.0.0.1:{port}"):
        response = _post_raw(http_server, host=f"127.0.0.1:{port}", origin=origin)
        assert response.status_code == 200, (origin, response.text)


def test_an_allowed_origin_is_served_and_others_still_refused(
    ads_server: InstalledServer, ads_upstream
) -> None:
    web_client = "http://localhost:6274"  # a browser-based MCP client's page
    command = [*ads_server.command, "--allowed-origin", web_client]
    env = {**server_env(ads_upstream), "MCP_ALLOWED_ORIGINS": "https://app.example.test"}
    with processes.http_server(command, env) as url:
        port = _port(url)
        for origin in (
            web_client,
            "HTTP://LOCALHOST:6274",
            "https://app.example.test",
            f"http://localhost:{port}",
        ):
            assert _post_raw(url, host=f"localhost:{port}", origin=origin).status_code == 200, origin
        for origin in ("http://localhost:6275", "http://app.example.test", "https://app.example.test:8443"):
            assert _post_raw(url, host=f"localhost:{port}", origin=origin).status_code == 403, origin


def test_an_allowed_origin_that_is_no_origin_stops_the_server(
    ads_server: InstalledServer, ads_upstream
) -> None:
    started = subprocess.run(
        [
            *ads_server.command,
            "--http",
            "--port",
            str(processes.free_port()),
            "--allowed-origin",
            "localhost:6274",
        ],
        env={"PATH": "/usr/bin:/bin", **server_env(ads_upstream)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert started.returncode == 1, started.stderr
    assert "allowed origin 'localhost:6274' is not an origin" in started.stderr


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
        ("API.Example.TEST", "HTTPS://api.example.TEST"),  # the same names in another case
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
