"""Which optional runtime modules a package carries: build decides, render copies only those.

Every module of templates/runtime that is not named here is the core, in every package. The core
imports none of these: the rendered server.py imports those the package carries and hands them to
the core in its ServerConfig (templates/runtime/config.py says what each one is for).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from mcpgen.build.times import LOCAL_OR_OFFSET
from mcpgen.ir import ActionSpec, ToolSpec

# Runtime modules only some packages use, each with the features that need it.
OPTIONAL_RUNTIME = {
    "preview": ("previews",),
    "store": (
        "previews",
        "tasks",
        "user_confirm",
        "user_oauth",
    ),  # previews, jobs, user confirmations and users' upstream tokens are recorded there
    "access": ("access",),
    "tasks": ("tasks",),
    "elicitation": ("user_confirm",),
    "conversion": ("units",),  # T5: arguments, results and guards in units of their own
    "currencies": ("units",),  # the ISO 4217 decimals money in the main unit is converted by
    "discovery": ("discovery",),  # T3: the search and call meta-tools
    "info": ("server_info",),  # the '<name>_server_info' diagnostic tool
    "patterns": ("patterns",),  # ECMA-262 patterns in Python's spelling
    "times": ("local_times",),  # date-times that may be local beside their time zone
    # P3: a token the server obtains with OAuth 2.0 (its own client credentials, or each user's grant)
    "oauth_client": ("client_credentials", "user_oauth"),
    "oauth_user": ("user_oauth",),
    "files": ("files",),  # the files multipart and binary request bodies send
    "file_answers": ("file_answers",),  # files the API answers with, returned as MCP content
}


def runtime_left_out(
    tools: Sequence[ToolSpec],
    *,
    access: bool,
    discovery: bool,
    server_info: bool,
    auth_kind: str | None = None,
) -> frozenset[str]:
    """The optional runtime modules a package with these tools (and these server features) leaves out."""
    actions = [*_actions(tools)]
    patterns = {p for t in tools for p in _patterns(_checked_schemas(t))}
    used = {
        "previews": any(t.preview for t in tools),
        "access": access,
        "tasks": any(a.task for a in actions),
        "user_confirm": any(a.confirm_user or a.asked for a in actions),
        "units": any(_has_units(a) for a in actions),
        "discovery": discovery,
        "server_info": server_info,
        "patterns": bool(patterns),
        "local_times": LOCAL_OR_OFFSET in patterns,
        "client_credentials": auth_kind == "oauth2_client_credentials",
        "user_oauth": auth_kind == "oauth2_user",
        "files": any(a.body_encoding in ("multipart", "binary") for a in actions),
        "file_answers": any(a.file_answer for a in actions),
    }
    return frozenset(
        module for module, features in OPTIONAL_RUNTIME.items() if not any(used[f] for f in features)
    )


def _actions(tools: Sequence[ToolSpec]) -> Iterator[ActionSpec]:
    """Every action the server runs: the tools' own, and the reads their previews make."""
    for tool in tools:
        for action in tool.actions:
            yield action
            if action.preview is not None:
                yield action.preview.read


def _has_units(action: ActionSpec) -> bool:
    params = (*action.params, *action.asked)
    guards = action.preview.guards if action.preview is not None else ()
    return (
        any(p.unit is not None for p in params)
        or bool(action.result_units)
        or any(g.unit is not None for g in guards)
    )


def _checked_schemas(tool: ToolSpec) -> Iterator[Any]:
    """The schemas the server validates arguments with: the tool's inputSchema, and each action's own
    schema of a parameter (a narrower one, or an asked parameter's)."""
    yield tool.input_schema
    for action in _actions([tool]):
        for param in (*action.params, *action.asked):
            if param.check_schema is not None:
                yield param.check_schema


def _patterns(schemas: Iterator[Any]) -> Iterator[str]:
    """Every `pattern` keyword's value in these schemas, at any depth (a property named `pattern`
    holds a schema, not a string, and is not one)."""
    pending = list(schemas)
    while pending:  # bounded: each step takes one node of finite JSON
        node = pending.pop()
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                yield node["pattern"]
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
