"""The optional `<name>_server_info` diagnostic tool (`server.server_info: true` in the mapping).

It tells an agent, or the person helping it, what this server is and whether it can work: its
version, the API's base URL, which credential environment variables are set (never their values,
E5) and whether the API answers at all. It calls nothing else, so it is read-only and safe to call first.
"""

from __future__ import annotations

from typing import Any

from mcpgen import codes
from mcpgen.diagnostics import Diagnostic, SourceRef, error
from mcpgen.ir import ServerSpec

SUFFIX = "server_info"


def server_info_name(service: str) -> str:
    return f"{service}_{SUFFIX}"


def check_server_info_name(service: str, tool_names: list[str], source: SourceRef) -> list[Diagnostic]:
    name = server_info_name(service)
    if name not in tool_names:
        return []
    return [
        error(
            codes.M222,
            f"tool '{name}' has the name of the server_info tool (server.server_info: true)",
            source,
            hint="rename the tool in the mapping, or leave server_info off",
        )
    ]


OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "server": {"type": "string", "description": "The server's name."},
        "version": {"type": "string", "description": "Version of the server package."},
        "base_url": {"type": "string", "description": "The API's base URL this server calls."},
        "base_url_from": {"type": "string", "description": "Where the base URL comes from."},
        "credentials": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "env": {"type": "string"},
                    "kind": {"type": "string"},
                    "configured": {"type": "boolean"},
                    "linked": {
                        "type": "boolean",
                        "description": "oauth2_user: whether the caller has linked their account at the API.",
                    },
                },
                "required": ["env", "kind", "configured"],
                "additionalProperties": False,
            },
        },
        "upstream": {
            "type": "object",
            "properties": {
                "reachable": {"type": "boolean"},
                "status": {"type": "integer"},
                "problem": {"type": "string"},
            },
            "required": ["reachable"],
        },
    },
    "required": ["server", "version", "base_url", "base_url_from", "credentials", "upstream"],
}


def server_info_tool(server: ServerSpec) -> dict[str, Any]:
    name = server_info_name(server.name)
    per_user = server.auth is not None and server.auth.kind == "oauth2_user"
    # A per-user sign-in also names the token a call with no user takes, and says whether the caller
    # has linked their account.
    envs = (
        (*server.auth.envs, *([server.auth.env] if per_user and server.auth.env else []))
        if server.auth
        else ()
    )
    credential = (
        (
            f"whether {envs[0]} is set (never its value)"
            if len(envs) == 1
            else f"whether {' and '.join(envs)} are set (never their values)"
        )
        if envs
        else "that it sends no credentials"
    )
    linked = ", linked" if per_user else ""
    return {
        "name": name,
        "title": "Server diagnostics",
        "description": (
            f"Check this {server.title} server's setup: its version, the API base URL it calls, {credential}, "
            "and whether the API answers. Use it when other tools report that the API cannot be reached or "
            "refuses the credentials, before asking the user to change the configuration. It does not call "
            "any API operation nor return API data. Returns server, version, base_url, base_url_from, "
            f"credentials (env, kind, configured{linked}) and upstream (reachable, status or problem)."
        ),
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
        "outputSchema": OUTPUT_SCHEMA,
        "annotations": {"title": "Server diagnostics", "readOnlyHint": True, "openWorldHint": True},
    }
