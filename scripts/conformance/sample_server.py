"""Reference tools-only MCP server (mcp SDK 2.3.0, low-level Server) for the conformance suite.

    python scripts/conformance/sample_server.py --http PORT [options]   # streamable HTTP on 127.0.0.1
    python scripts/conformance/sample_server.py                         # stdio

It has ordinary tool names (none of the suite's demo `test_*` tools), and
behaves the way README.md says a generated server must. Options exist only to
measure alternatives (see README.md "Measured variants"):

  --stateful          stateless_http=False (sessions; default: stateless)
  --sse               json_response=False  (SSE response streams; default: JSON)
  --unknown-tool=iserror  unknown tool -> isError result (default: JSON-RPC error -32602)
  --no-header-tool    do not expose the tool with an `x-mcp-header` parameter
  --empty-lists       also declare prompts/resources with empty lists (cache hinted)
  --no-cache-hints    no `cache_hints`
  --no-host-check     transport_security disabled (DNS-rebinding protection off)
  --schema-probe      also expose the suite's `json_schema_2020_12_tool` (listing only) to
                      prove the SDK passes JSON Schema 2020-12 keywords through untouched
"""

from __future__ import annotations

import argparse
import json
import sys

import anyio
import mcp_types as types
from mcp.server.caching import CacheHint
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError

ECHO = {
    "name": "echo",
    "title": "Echo",
    "description": "Echo the given text back.",
    "inputSchema": {
        "type": "object",
        "properties": {"text": {"type": "string", "description": "Text to echo."}},
        "required": ["text"],
        "additionalProperties": False,
    },
    "annotations": {"readOnlyHint": True},
}
# A tool with a parameter mirrored into an `Mcp-Param-Region` header (SEP-2243).
# Only a server exposing such a tool is exercised by
# http-custom-header-server-validation.
LOOKUP = {
    "name": "get_region_status",
    "title": "Region status",
    "description": "Report the status of a region.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "region": {"type": "string", "description": "Region id.", "x-mcp-header": "Region"},
            "verbose": {"type": "boolean"},
        },
        "required": ["region"],
        "additionalProperties": False,
    },
    "annotations": {"readOnlyHint": True},
}

# The schema the suite's json-schema-2020-12 scenario looks for (tools/list only).
SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_PROBE = {
    "name": "json_schema_2020_12_tool",
    "description": "Tool with JSON Schema 2020-12 features",
    "inputSchema": {
        "$schema": SCHEMA_2020_12,
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"},
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": False,
    },
}

_PY_TYPES = {
    "string": str,
    "boolean": bool,
    "integer": int,
    "number": (int, float),
    "object": dict,
    "array": list,
}


def _validate(schema: dict, args: dict) -> str | None:
    """Tiny argument check (a real server uses a JSON-Schema validator)."""
    props = schema.get("properties", {})
    for req in schema.get("required", []):
        if req not in args:
            return f"missing required argument '{req}'"
    for key, val in args.items():
        if key not in props:
            if schema.get("additionalProperties") is False:
                return f"unexpected argument '{key}'"
            continue
        want = props[key].get("type")
        py = _PY_TYPES.get(want)
        if py and (not isinstance(val, py) or (want in ("integer", "number") and isinstance(val, bool))):
            return f"argument '{key}' must be of type {want}"
    return None


def _error_result(msg: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=msg)], is_error=True)


def build_server(opts: argparse.Namespace) -> Server:
    tools = [ECHO] + ([] if opts.no_header_tool else [LOOKUP]) + ([SCHEMA_PROBE] if opts.schema_probe else [])
    by_name = {t["name"]: t for t in tools}

    async def list_tools(ctx, params):
        # Deterministic order (2026-07-28 tools-list-deterministic-order).
        return types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in tools])

    async def call_tool(ctx, params):
        tool = by_name.get(params.name)
        if tool is None:
            if opts.unknown_tool == "rpc":
                raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")
            return _error_result(f"Unknown tool: {params.name}")
        args = params.arguments or {}
        problem = _validate(tool["inputSchema"], args)
        if problem:
            # Input validation errors are tool execution errors (isError), not
            # JSON-RPC errors (spec 2025-11-25, SEP-1303).
            return _error_result(f"Invalid arguments for {params.name}: {problem}")
        if params.name == SCHEMA_PROBE["name"]:
            data = {"accepted": args}
        elif params.name == "echo":
            data = {"text": args["text"]}
        else:
            data = {"region": args["region"], "status": "ok"}
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(data))],
            structured_content=data,
            is_error=False,
        )

    handlers = {"on_list_tools": list_tools, "on_call_tool": call_tool}
    hints = {"tools/list": CacheHint(ttl_ms=60000, scope="public")}
    if opts.empty_lists:

        async def list_prompts(ctx, params):
            return types.ListPromptsResult(prompts=[])

        async def list_resources(ctx, params):
            return types.ListResourcesResult(resources=[])

        async def list_templates(ctx, params):
            return types.ListResourceTemplatesResult(resource_templates=[])

        async def read_resource(ctx, params):
            raise MCPError(
                code=types.INVALID_PARAMS, message="Resource not found", data={"uri": str(params.uri)}
            )

        handlers.update(
            on_list_prompts=list_prompts,
            on_list_resources=list_resources,
            on_list_resource_templates=list_templates,
            on_read_resource=read_resource,
        )
        for m in ("prompts/list", "resources/list", "resources/templates/list", "resources/read"):
            hints[m] = CacheHint(ttl_ms=60000, scope="public")
    return Server(
        "mcpgen-sample",
        version="0.1.0",
        cache_hints=None if opts.no_cache_hints else hints,
        **handlers,
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT/mcp")
    ap.add_argument("--stateful", action="store_true")
    ap.add_argument("--sse", action="store_true")
    ap.add_argument("--unknown-tool", choices=["rpc", "iserror"], default="rpc")
    ap.add_argument("--no-header-tool", action="store_true")
    ap.add_argument("--empty-lists", action="store_true")
    ap.add_argument("--no-cache-hints", action="store_true")
    ap.add_argument("--no-host-check", action="store_true")
    ap.add_argument("--schema-probe", action="store_true")
    opts = ap.parse_args(argv)
    server = build_server(opts)

    if opts.http is None:

        async def run_stdio():
            async with stdio_server() as (r, w):
                await server.run(r, w, server.create_initialization_options())

        anyio.run(run_stdio)
        return

    import uvicorn

    # Same as the SDK's default for host="127.0.0.1", spelled out: Host must be
    # 127.0.0.1/localhost/[::1] (any port) and Origin, when sent, the http://
    # form of one of those; anything else -> 421 (bad Host) / 403 (bad Origin).
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=not opts.no_host_check,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )
    app = server.streamable_http_app(
        host="127.0.0.1",
        stateless_http=not opts.stateful,
        json_response=not opts.sse,
        transport_security=security,
    )
    uvicorn.run(app, host="127.0.0.1", port=opts.http, log_level="warning")


if __name__ == "__main__":
    main(sys.argv[1:])
