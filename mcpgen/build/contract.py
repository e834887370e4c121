"""The served contract: every tools/list entry the generated server has, decided here (P2, S1).

A tool with a preview is served as a pair (`<tool>_preview`, `<tool>_apply`); discovery and
server_info add their meta-tools; a provider profile transforms the schemas. Render, lint, diff and
init all read the served list from here, so there is one answer to "what does the agent see".
"""

from __future__ import annotations

from typing import Any

from mcpgen.build.discovery import discovery_tools
from mcpgen.build.results import PREVIEW_OUTPUT, output_schema
from mcpgen.build.server_info import server_info_tool
from mcpgen.ir import ServerSpec, ToolHints, ToolSpec
from mcpgen.profiles import Profile, apply_profile


def contract(server: ServerSpec, profile: Profile | None = None) -> list[dict[str, Any]]:
    """Every tool definition the server has, in name order (P2); with a profile, its schemas.

    With discovery on, the two meta-tools are among them, and they are all tools/list serves.
    """
    entries = (entry for tool in server.tools for entry in _tool_entries(tool, server.output_schemas))
    tools = sorted(entries, key=lambda t: t["name"])
    if server.server_info:
        tools = sorted([*tools, server_info_tool(server)], key=lambda t: t["name"])
    if server.discovery:
        tools = sorted([*tools, *discovery_tools(server)], key=lambda t: t["name"])
    return apply_profile(tools, profile)[0] if profile is not None else tools


def _tool_entries(tool: ToolSpec, output_schemas: bool = True) -> list[dict[str, Any]]:
    """A tool's tools/list entries: itself, or its preview and apply pair (S1); a tool that reads
    declares the shape of its results, unless the mapping turns output schemas off (R5)."""
    preview = tool.preview
    if preview is None:
        entry = _tool_entry(tool.name, tool.title, tool.description, tool.input_schema, tool.hints)
        output = output_schema(tool.actions) if output_schemas else None
        return [entry if output is None else {**entry, "outputSchema": output}]
    preview_name, apply_name = tool.served_names
    action = tool.actions[0]
    apply_description = (
        f"Make a change previewed with {preview_name} ({action.description.rstrip('.')}), exactly as "
        "previewed. It takes only the preview_id; "
        f"an id is valid for {preview.ttl_minutes} minutes after the preview and only for the caller who made "
        "it. Applying the same id again changes nothing and returns the first result, so after a timeout "
        "call it again with the same id rather than previewing anew. An expired or unknown id is an error: "
        "preview again. Returns the API's answer to the change."
    )
    apply_schema = {
        "type": "object",
        "properties": {
            "preview_id": {
                "type": "string",
                "description": f'The preview_id returned by {preview_name}. Example: "pv.3q2x...".',
            }
        },
        "required": ["preview_id"],
        "additionalProperties": False,
    }
    reads = ToolHints(read_only=True, destructive=False, idempotent=True)
    applies = ToolHints(read_only=False, destructive=tool.hints.destructive, idempotent=True)
    previewing = _tool_entry(
        preview_name, f"{tool.title}: preview", tool.description, tool.input_schema, reads
    )
    return [
        {**previewing, "outputSchema": PREVIEW_OUTPUT} if output_schemas else previewing,
        _tool_entry(apply_name, f"{tool.title}: apply", apply_description, apply_schema, applies),
    ]


def _tool_entry(
    name: str, title: str, description: str, input_schema: dict[str, Any], hints: ToolHints
) -> dict[str, Any]:
    # The title is the tool's own `title` (MCP prefers it to annotations.title): not said twice.
    annotations: dict[str, Any] = {"readOnlyHint": hints.read_only}
    if not hints.read_only:
        annotations["destructiveHint"] = hints.destructive
        annotations["idempotentHint"] = hints.idempotent
    annotations["openWorldHint"] = hints.open_world
    return {
        "name": name,
        "title": title,
        "description": description,
        "inputSchema": input_schema,
        "annotations": annotations,
    }
