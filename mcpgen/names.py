"""Names and method classes made in one place: tool names (T4), argument names (T5), Python
identifiers, and which HTTP methods read or repeat safely (S4)."""

from __future__ import annotations

import keyword
import re

# Anthropic's rule, stricter than MCP's SEP-986 (no dots, at most 64) (T4).
TOOL_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
TOOL_NAME_COMFORT_LENGTH = 50  # leaves room for a client prefix such as 'mcp_<server>_'
ARG_NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")

# HTTP methods that only read (readOnlyHint, result shaping) and those safe to repeat (idempotentHint,
# and the rendered `Action(idempotent=True)` the runtime reads: it states no method set of its own).
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
IDEMPOTENT_METHODS = READ_METHODS | {"PUT", "DELETE"}

# Arguments every tool owns; an API parameter cannot take these names.
RESERVED_ARGS = frozenset({"action"})


def tool_name_problem(name: str) -> str | None:
    if not TOOL_NAME_PATTERN.match(name):
        return f"tool name '{name}' must match {TOOL_NAME_PATTERN.pattern}"
    return None


def snake_case(text: str) -> str:
    """'per-page' -> 'per_page', 'X-Request-ID' -> 'x_request_id', 'createdAt' -> 'created_at'."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text)
    cleaned = re.sub(r"[^0-9a-zA-Z]+", "_", spaced).strip("_").lower()
    if not cleaned:
        return "value"
    if not cleaned[0].isalpha():
        cleaned = f"p_{cleaned}"
    return cleaned


def python_identifier(text: str) -> str:
    name = snake_case(text)
    return f"{name}_" if keyword.iskeyword(name) else name


def package_name(service: str) -> str:
    return f"{python_identifier(service)}_mcp"


def distribution_name(service: str) -> str:
    return package_name(service).replace("_", "-")


def hook_names(server: str, tool: str, action: str) -> tuple[str, str]:
    """('before_pets_find__get', 'after_pets_find__get') for action 'get' of tool 'petstore_pets_find'.

    Two underscores mark where the tool ends: tool 'admin_teams' action 'list' and tool 'admin'
    action 'teams_list' both exist in real mappings. The generated runtime (`_runtime/hooks.py`)
    derives the same names; keep the two in step.
    """
    stem = f"{tool.removeprefix(server + '_')}__{action}"
    return f"before_{stem}", f"after_{stem}"
