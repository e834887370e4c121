"""What every lint check shares: a finding, and walking a schema's subschemas with their pointers."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mcpgen.diagnostics import Level
from mcpgen.load.sources import join_pointer


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    rule: str  # 'T4', 'T7', ...
    check: str  # 'name-length', 'openai-strict/required', ...
    level: Level
    tool: str | None
    pointer: str  # into the linted tool list
    message: str


def finding(rule: str, check: str, level: Level, tool: str | None, pointer: str, message: str) -> Finding:
    return Finding(rule=rule, check=check, level=level, tool=tool, pointer=pointer, message=message)


# --- schema walking --------------------------------------------------------------------------------


def walk_schema(schema: Any, pointer: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every subschema with its pointer (properties, items, combinator branches, $defs)."""
    stack = [(pointer, schema)]
    while stack:
        at, node = stack.pop()
        if not isinstance(node, dict):
            continue
        yield at, node
        children: list[tuple[str, Any]] = []
        for key in ("properties", "$defs", "definitions", "patternProperties"):
            if isinstance(node.get(key), dict):
                children += [(join_pointer(at, key, k), v) for k, v in node[key].items()]
        for key in ("items", "additionalProperties", "not", "if", "then", "else", "contains"):
            if isinstance(node.get(key), dict):
                children.append((f"{at}/{key}", node[key]))
        for key in ("oneOf", "anyOf", "allOf", "prefixItems"):
            if isinstance(node.get(key), list):
                children += [(f"{at}/{key}/{i}", v) for i, v in enumerate(node[key])]
        stack.extend(reversed(children))


def schema_depth(schema: Any) -> int:
    """Object levels below a parameter: a scalar or a free-form object is 0, an object of scalars 1,
    and so is a list of such objects (an array adds no level: its items sit where it is, as
    mcpgen/build/schemas.py counts them)."""
    if not isinstance(schema, dict):
        return 0
    if isinstance(schema.get("items"), dict) and schema["items"] and not schema.get("properties"):
        return schema_depth(schema["items"])
    children = [v for v in (schema.get("properties") or {}).values() if isinstance(v, dict)]
    for key in ("oneOf", "anyOf", "allOf"):
        children += [v for v in schema.get(key) or () if isinstance(v, dict)]
    if not children:
        return 0
    return 1 + max(schema_depth(child) for child in children)


def schema_properties(schema: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, value in properties.items():
            if isinstance(value, dict):
                yield name, value


def is_object(node: dict[str, Any]) -> bool:
    type_ = node.get("type")
    return type_ == "object" or (isinstance(type_, list) and "object" in type_) or "properties" in node
