"""The capabilities a generated server declares are exactly what it implements (issue 14.3): the official
client's `server/discover` (2026-07-28) and `initialize` (the 2025-11-25 handshake) results, then each
declared list answered and each undeclared method refused. No resources.subscribe (the revision moved
subscriptions to `subscriptions/listen`, where only tool list changes are honoured), and nothing uses
Roots, Sampling or Logging, which the revision deprecates: a client offering them is never asked.

The installed ads example over stdio; its tools read specs/ads/ads.openapi.yaml
#/paths/~1campaigns~1{campaign_id}/get (getCampaign).
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.stdio import stdio_client as sdk_stdio_client
from mcp.shared.exceptions import MCPError

from tests.e2e.conftest import InstalledServer, server_env
from tests.upstreams.ads import AdsUpstream

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

# What the server implements: tools (whose list changes reach a subscriptions/listen stream under
# 2026-07-28), and prompts and resources lists that are served empty and never change.
DECLARED = {
    "2026-07-28": {
        "tools": {"listChanged": True},
        "prompts": {"listChanged": False},
        "resources": {"subscribe": False, "listChanged": False},
    },
    # The handshake era has no subscriptions/listen stream on a stateless stdio connection.
    "2025-11-25": {
        "tools": {"listChanged": False},
        "prompts": {"listChanged": False},
        "resources": {"subscribe": False, "listChanged": False},
    },
}


class Offered:
    """A client's roots, sampling and logging callbacks, counting how often the server used them."""

    def __init__(self) -> None:
        self.used: list[str] = []

    async def roots(self, context: Any) -> types.ListRootsResult:
        self.used.append("roots")
        return types.ListRootsResult(roots=[])

    async def sampling(self, context: Any, params: Any) -> types.CreateMessageResult:
        self.used.append("sampling")
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="no"), model="none"
        )

    async def logging(self, params: Any) -> None:
        self.used.append("logging")


@pytest.mark.parametrize("mode, version", [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
async def test_declared_capabilities_are_exactly_what_is_implemented(
    ads_server: InstalledServer, ads_upstream: AdsUpstream, mode: str, version: str
) -> None:
    offered = Offered()
    params = StdioServerParameters(
        command=ads_server.command[0], args=ads_server.command[1:], env=server_env(ads_upstream)
    )
    async with Client(
        sdk_stdio_client(params, errlog=sys.stderr),
        mode=mode,  # type: ignore[arg-type]
        read_timeout_seconds=60,
        list_roots_callback=offered.roots,
        sampling_callback=offered.sampling,
        logging_callback=offered.logging,
    ) as client:
        assert client.protocol_version == version
        declared = client.server_capabilities.model_dump(by_alias=True, exclude_none=True)
        assert declared == DECLARED[version]
        # Each declared capability answers.
        tools = await client.list_tools()
        assert [t.name for t in tools.tools][:1] == ["ads_budget_change_apply"]
        assert (await client.list_prompts()).prompts == []
        assert (await client.list_resources()).resources == []
        assert (await client.list_resource_templates()).resource_templates == []
        found = await client.call_tool("ads_campaigns_find", {"action": "get", "campaign_id": "cmp_009"})
        assert not found.is_error and found.structured_content["id"] == "cmp_009"
        # What is not declared is not there: no subscribe, logging or completions behind the client's back.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the SDK warns that these are deprecated in 2026-07-28
            refused = [
                await _method_not_found(client.subscribe_resource("file:///campaigns")),
                await _method_not_found(client.set_logging_level("info")),
                await _method_not_found(
                    client.complete(
                        ref={"type": "ref/prompt", "name": "x"}, argument={"name": "a", "value": "b"}
                    )
                ),
            ]
    assert refused == [True, True, True]
    assert offered.used == []  # the server never asked for roots nor sampling, nor logged to the client


async def _method_not_found(call: Any) -> bool:
    try:
        await call
    except MCPError as error:
        return error.code == types.METHOD_NOT_FOUND
    return False
