"""Lint a tool list against one client's or provider's profile (mcpgen/profiles/catalog.py): each
finding is a documented rejection or limit of that target, so a clean lint means the target takes the
list. Schema findings cite T6, names T4, tool counts T3."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mcpgen.build.discovery import META_KEY
from mcpgen.diagnostics import Level
from mcpgen.lint.schema_walk import Finding, finding, is_object, schema_properties, walk_schema
from mcpgen.lint.tokens import definition_text
from mcpgen.profiles import PROFILES, Profile, apply_profile

_LEVEL = {"error": Level.ERROR, "warning": Level.WARNING}
# What counts as a type: JSON Schema's enum, const and $ref say one; Gemini's schema needs `type` itself.
_TYPE_GIVEN = {"type-list": ("type", "enum", "const", "anyOf", "$ref"), "keyword": ("type", "anyOf")}


def lint_profile(name: str | None, schema: dict[str, Any], pointer: str, profile: Profile) -> list[Finding]:
    check = profile.name
    found = [
        finding("T6", f"{check}/root", Level.ERROR, name, f"{pointer}/{keyword}",
                f"{profile.name} does not accept '{keyword}' at the top of inputSchema")
        for keyword in sorted(k for k in schema if k in profile.root_forbidden)
    ]  # fmt: skip
    for node_pointer, node in walk_schema(schema, pointer):
        found += _keywords(name, node_pointer, node, profile)
        found += _shape(name, node_pointer, node, profile, root=node_pointer == pointer)
    found += _limits(name, schema, pointer, profile)
    return found


def _keywords(name: str | None, at: str, node: dict[str, Any], profile: Profile) -> list[Finding]:
    check = f"{profile.name}/keyword"
    found = []
    rejected = [k for k in node if k in profile.removed or k in profile.forbidden]
    if profile.inline_refs:
        rejected += [k for k in ("$ref", "$defs", "definitions") if k in node]
    if profile.objects == "drop" and "additionalProperties" in node:
        rejected.append("additionalProperties")
    if profile.const_as_enum and "const" in node:
        rejected.append("const")
    for keyword in sorted(set(rejected)):
        instead = (
            "; state it in the description instead (the server still checks it)"
            if keyword in profile.removed
            else ""
        )
        found.append(
            finding("T6", check, Level.ERROR, name, f"{at}/{keyword}",
                    f"{profile.name} does not accept '{keyword}'{instead}")
        )  # fmt: skip
    min_items = node.get("minItems")
    if profile.max_min_items is not None and isinstance(min_items, int) and min_items > profile.max_min_items:
        found.append(
            finding("T6", check, Level.ERROR, name, f"{at}/minItems",
                    f"{profile.name} accepts minItems 0 or {profile.max_min_items} only, not {min_items}")
        )  # fmt: skip
    fmt = node.get("format")
    if isinstance(fmt, str) and profile.formats is not None and fmt not in profile.formats:
        found.append(
            finding("T6", f"{profile.name}/format", Level.ERROR, name, f"{at}/format",
                    f"{profile.name} does not accept format '{fmt}'")
        )  # fmt: skip
    enum = node.get("enum")
    if profile.string_enums and isinstance(enum, list) and any(not isinstance(v, str) for v in enum):
        found.append(
            finding("T6", check, Level.ERROR, name, f"{at}/enum",
                    f"{profile.name} takes enum values on strings only (and no null in them)")
        )  # fmt: skip
    return found


def _shape(name: str | None, at: str, node: dict[str, Any], profile: Profile, *, root: bool) -> list[Finding]:
    check = profile.name
    found = []

    def add(kind: str, message: str) -> None:
        found.append(finding("T6", f"{check}/{kind}", Level.ERROR, name, at, message))

    type_ = node.get("type")
    if profile.nullable == "keyword" and isinstance(type_, list):
        add("type", f"{profile.name} takes one type a schema (null as 'nullable: true'), not {type_}")
    if is_object(node):
        if profile.objects == "close" and node.get("additionalProperties") is not False:
            add(
                "additional-properties", f"{profile.name} needs 'additionalProperties: false' on every object"
            )
        if profile.all_required:
            missing = [p for p in node.get("properties") or {} if p not in (node.get("required") or ())]
            if missing:
                add(
                    "required",
                    f"{profile.name} needs every property in 'required' (optional ones nullable, "
                    f'type [..., "null"]); not listed: {", ".join(missing[:8])}'
                    + (" ..." if len(missing) > 8 else ""),
                )
        if profile.object_properties and not root and not node.get("properties"):
            add(
                "properties",
                f"{profile.name} needs the properties of every object listed (should be non-empty)",
            )
    elif profile.typed and not any(k in node for k in _TYPE_GIVEN[profile.nullable]):
        add("type", f"{profile.name} needs a type on every schema")
    if profile.array_items and type_ == "array" and "items" not in node:
        add("items", f"{profile.name} needs 'items' on every array (items: missing field)")
    return found


def _limits(name: str | None, schema: dict[str, Any], pointer: str, profile: Profile) -> list[Finding]:
    check = f"{profile.name}/limits"
    found = []
    top = dict(schema_properties(schema))
    required = set(schema.get("required") or ())
    optional = [p for p in top if p not in required]
    unions = [p for p, s in top.items() if isinstance(s.get("type"), list) or "anyOf" in s]
    for limit, count, what in (
        (profile.max_optional_params, len(optional), "optional parameters"),
        (profile.max_union_params, len(unions), "parameters with a type list or anyOf"),
    ):
        if limit is not None and count > limit:
            found.append(
                finding("T6", check, Level.WARNING, name, pointer,
                        f"{count} {what}; {profile.name} allows {limit} in one request across all strict tools, "
                        "so this tool cannot be sent with strict: true")
            )  # fmt: skip
    nodes = list(walk_schema(schema, pointer))
    depth = max((p.count("/properties/") for p, _ in nodes), default=0)
    properties = sum(len(n.get("properties") or {}) for _, n in nodes)
    enum_values = sum(len(n["enum"]) for _, n in nodes if isinstance(n.get("enum"), list))
    chars = sum(len(k) for _, n in nodes for k in n.get("properties") or {}) + sum(
        len(str(v)) for _, n in nodes if isinstance(n.get("enum"), list) for v in n["enum"]
    )
    for limit, count, what in (
        (profile.max_depth, depth, "levels of nesting"),
        (profile.max_properties, properties, "properties"),
        (profile.max_enum_values, enum_values, "enum values"),
        (profile.max_schema_chars, chars, "characters of property names and enum values"),
    ):
        if limit is not None and count > limit:
            found.append(
                finding(
                    "T6",
                    check,
                    Level.ERROR,
                    name,
                    pointer,
                    f"{count:,} {what}; {profile.name} allows {limit:,}",
                )
            )
    return found


# --- the whole list: names with the client's prefix, and how many tools ----------------------------


def served(tools: list[Any]) -> list[tuple[int, dict[str, Any]]]:
    """The tools a client loads up front: with mcpgen's discovery, only the meta-tools (the rest are
    called through them by name, never listed); otherwise all of them."""
    listed = [(i, t) for i, t in enumerate(tools) if isinstance(t, dict)]
    meta = [(i, t) for i, t in listed if META_KEY in (t.get("_meta") or {})]
    return meta or listed


def server_name_of(tools: list[Any]) -> str | None:
    """The name a client's configuration most likely gives the server: the tools' shared prefix
    before the first '_' (mcpgen names every tool '<server>_...')."""
    names: list[str] = [n for t in tools if isinstance(t, dict) and isinstance(n := t.get("name"), str)]
    prefixes = {n.split("_", 1)[0] for n in names if "_" in n}
    return prefixes.pop() if len(prefixes) == 1 and all("_" in n for n in names) else None


def lint_profile_surface(tools: list[Any], profile: Profile, server_name: str | None) -> list[Finding]:
    server = server_name or server_name_of(tools)
    pattern = re.compile(profile.name_pattern)
    found = []
    loaded = served(tools)
    for index, tool in enumerate(tools):
        name = tool.get("name") if isinstance(tool, dict) else None
        if isinstance(name, str) and not pattern.match(name):
            found.append(
                finding("T4", f"{profile.name}/name", Level.ERROR, name, f"/{index}/name",
                        f"'{name}' does not match {profile.name_pattern}, which {profile.name} requires of a tool name")
            )  # fmt: skip
    for rule in profile.names:
        if "{server}" in rule.prefix and server is None:
            continue
        prefix = rule.prefix.replace("{server}", server or "")
        budget = rule.max_length - len(prefix)
        for index, tool in loaded:
            name = tool.get("name")
            if isinstance(name, str) and len(name) > budget:
                what = "refuses" if rule.level == "error" else "shortens"
                found.append(
                    finding("T4", f"{profile.name}/name-length", _LEVEL[rule.level], name, f"/{index}/name",
                            f"'{prefix}{name}' has {len(prefix) + len(name)} characters; {profile.title} {what} "
                            f"names past {rule.max_length}: rename the tool to at most {budget} characters "
                            "(the mapping's tool name) or give the server a shorter name in the client's configuration")
                )  # fmt: skip
    if profile.max_tools is not None and len(loaded) > profile.max_tools:
        found.append(
            finding("T3", f"{profile.name}/limits", _LEVEL[profile.max_tools_level], None, "",
                    f"{len(loaded)} tools listed; {profile.title} takes at most {profile.max_tools} in one request: "
                    "turn on discovery (tools/list then serves two meta-tools) or split the server")
        )  # fmt: skip
    return found


def tokens_by_profile(tools: list[Any], count: Callable[[str], int]) -> tuple[tuple[str, int], ...]:
    """For every profile: the tokens of what a client loads up front (the listed tools) once the
    profile's transform is applied to `tools`."""
    figures = []
    for name, profile in PROFILES.items():
        transformed, _ = apply_profile(tools, profile)
        figures.append((name, count(definition_text([t for _, t in served(transformed)]))))
    return tuple(figures)
