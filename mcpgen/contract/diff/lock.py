"""Reading a lock file (tools.lock.json): its tools, their actions, properties and parameters."""

from __future__ import annotations

from typing import Any


def lock_tools(lock: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in lock.get("tools", [])}


def tool_actions(tool: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {a["name"]: a for a in tool.get("actions", [])}


def tool_properties(tool: dict[str, Any]) -> dict[str, dict[str, Any]]:
    properties = tool.get("inputSchema", {}).get("properties", {})
    # The action enum is the actions list seen from the schema; actions are compared as actions.
    return {name: schema for name, schema in properties.items() if name != "action"}


def op_key(action: dict[str, Any]) -> str:
    return f"{action.get('method')} {action.get('path')}"


def action_params(action: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["arg"]: p for p in action.get("params", [])}
