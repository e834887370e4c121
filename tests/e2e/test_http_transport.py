"""The same generated server over streamable HTTP on 127.0.0.1, with the official client, and its Host check."""

from __future__ import annotations

import httpx
import pytest
from mcp import Client

from tests.e2e.conftest import InstalledServer, server_env
from tests.support import processes

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
