"""On-demand discovery (T3): the two meta-tools a server with `discovery: search_tools` lists instead
of its whole catalog. Pure: a ServerSpec in, tool definitions out.

`<name>_search_tools` returns the actions that match a query, each with its own arguments; `<name>_call_tool`
runs one of them by name. tools/list stays stateless and the same for every caller (P1, P2): the
catalog lives in tools.json next to the meta-tools, and the runtime lists only the entries marked
with META_KEY. A client that loads everything still can: the catalog tools remain callable by name.
"""

from __future__ import annotations

from typing import Any

from mcpgen import codes
from mcpgen.diagnostics import Diagnostic, SourceRef, error
from mcpgen.ir import ServerSpec

META_KEY = "dev.mcpgen/discovery"  # in a tool's _meta: 'search' or 'call'
SEARCH_SUFFIX = "search_tools"
CALL_SUFFIX = "call_tool"
SEARCH_LIMIT_DEFAULT = 5
SEARCH_LIMIT_MAX = 10


def meta_tool_names(service: str) -> tuple[str, str]:
    return f"{service}_{SEARCH_SUFFIX}", f"{service}_{CALL_SUFFIX}"


def check_discovery_names(service: str, tool_names: list[str], source: SourceRef) -> list[Diagnostic]:
    """A catalog tool may not take a meta-tool's name."""
    taken = set(meta_tool_names(service)) & set(tool_names)
    return [
        error(
            codes.M213,
            f"tool '{name}' has the name of a discovery meta-tool (server.discovery: search_tools)",
            source,
            hint="rename the tool in the mapping",
        )
        for name in sorted(taken)
    ]


def discovery_tools(server: ServerSpec) -> list[dict[str, Any]]:
    search, call = meta_tool_names(server.name)
    actions = sum(len(t.actions) for t in server.tools)
    names = [t.name for t in server.tools]
    destructive = any(t.hints.destructive for t in server.tools)
    return [
        {
            "name": search,
            "title": "Find tools",
            "description": (
                f"Find the {server.title} tool and action for a task. This server lists only this tool and "
                f"{call}; its {len(names)} tools ({actions} actions) are found here. Give a few words about the "
                "task, for example 'list open issues of a repository'. It does not run anything; run what it "
                f"finds with {call}. Returns up to `limit` matching actions, best first, grouped by tool: each "
                "with what it does and the input schema of its own arguments (not every action's), and how many "
                "matched."
            ),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "description": "Words about the task, e.g. 'create a refund for a charge'.",
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": SEARCH_LIMIT_MAX,
                        "default": SEARCH_LIMIT_DEFAULT,
                        "description": "How many actions to return, e.g. 3.",
                    },
                },
                "required": ["query"],
                "additionalProperties": False,
            },
            "annotations": {"title": "Find tools", "readOnlyHint": True, "openWorldHint": False},
            "_meta": {META_KEY: "search"},
        },
        {
            "name": call,
            "title": "Run a tool",
            "description": (
                f"Run one of the tools {search} found: pass its name and its arguments exactly as its input "
                f"schema says. Use it only with a name and schema {search} returned; do not guess either. The "
                "arguments are checked against that tool's schema first, and a problem comes back as an error "
                "that says what to fix. Returns what the tool returns."
            ),
            "inputSchema": {
                "type": "object",
                "properties": {
                    # No enum of every tool's name: it would be paid in every tools/list, and a name the
                    # catalog lacks is refused with the closest ones (T3 few tools).
                    "tool": {
                        "type": "string",
                        "description": f"The tool's name as {search} returned it, e.g. '{names[0] if names else ''}'.",
                    },
                    "arguments": {
                        "type": "object",
                        "description": 'The tool\'s arguments, e.g. {"action": "list"}. Default: {}.',
                    },
                    "arguments_json": {
                        "type": "string",
                        "description": "The same arguments as JSON text, for clients whose strict mode cannot send "
                        'a free-form object, e.g. \'{"action": "list"}\'. Give this or arguments.',
                    },
                },
                "required": ["tool"],
                "additionalProperties": False,
            },
            "annotations": {
                "title": "Run a tool",
                "readOnlyHint": False,
                "destructiveHint": destructive,
                "idempotentHint": False,
                "openWorldHint": True,
            },
            "_meta": {META_KEY: "call"},
        },
    ]
