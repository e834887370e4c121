"""The floor for a tools/call over stdio: a minimal hand-written server on the official SDK's low-level
`Server`, one tool that does what the generated ads server's `get` does (GET /campaigns/{id} on the
upstream through one kept-alive httpx client, the JSON back as structuredContent and its text copy).

    python floor_server.py --upstream URL --token TOKEN

No validation, shaping, truncation, error mapping or logging: whatever the generated server costs per
call above this server is its runtime's own cost (run_all.py's per-call section).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import anyio
import httpx
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TOOL = types.Tool(
    name="get_campaign",
    description="Get one campaign by id.",
    input_schema={
        "type": "object",
        "properties": {"campaign_id": {"type": "string"}},
        "required": ["campaign_id"],
    },
)


def build(http: httpx.AsyncClient) -> Server[Any]:
    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[TOOL])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        campaign_id = (params.arguments or {})["campaign_id"]
        response = await http.get(f"/campaigns/{campaign_id}")
        data = response.json()
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(data, separators=(",", ":")))],
            structured_content=data,
            is_error=response.is_error,
        )

    return Server("floor", on_list_tools=list_tools, on_call_tool=call_tool)


async def main(upstream: str, token: str) -> None:
    async with (
        httpx.AsyncClient(base_url=upstream, headers={"Authorization": f"Bearer {token}"}) as http,
        stdio_server() as (read_stream, write_stream),
    ):
        server = build(http)
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--upstream", required=True)
    p.add_argument("--token", required=True)
    a = p.parse_args()
    anyio.run(main, a.upstream, a.token)
