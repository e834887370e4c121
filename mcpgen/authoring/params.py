"""An action's parameter renames: units in the name (T5), and the clashes the build would reject
(M205 reserved names, M206 two parameters of one name, M207 one name of two types in a tool, M217 the
server's paging arguments, M233 the confirmation's argument)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from mcpgen.authoring.model import DraftParam
from mcpgen.authoring.operations import OpInfo
from mcpgen.authoring.words import singular

# The build's paging vocabulary: a draft must name parameters the way the build will (M206, M217).
from mcpgen.build.paging import (
    CURSOR_ARG,
    CURSOR_PARAMS,
    LIMIT_ARG,
    LIMIT_PARAMS,
    OFFSET_PARAMS,
    PAGE_ARG,
    PAGE_PARAMS,
)
from mcpgen.build.results import FORMAT_ARG
from mcpgen.build.schemas import json_type_of
from mcpgen.build.units import carries, stated_unit, with_unit
from mcpgen.diagnostics import rule_name
from mcpgen.names import READ_METHODS, RESERVED_ARGS, snake_case

ARG_MAX = 64  # mapping.schema.json: parameter names


def draft_params(info: OpInfo, tool_types: dict[str, str], extra_taken: set[str]) -> list[DraftParam]:
    """Renames for units (T5) and for the clashes the build rejects (M205 reserved, M206, M207, M217,
    M233 the confirmation's own argument)."""
    params = info.params
    wire_counts = Counter(p.wire_name for p in params)
    roles = _paging_roles(info)
    # A paging parameter is called page, limit or cursor once the build pages the list, and keeps its
    # own name otherwise: both names stay free for it, and the other parameters keep off them.
    taken: set[str] = {n for (wire, _), owned in roles.items() for n in (owned, snake_case(wire))}
    owned_names = _server_owned(info, roles)
    out: list[DraftParam] = []
    for param in params:
        base = snake_case(param.wire_name)
        role = roles.get((param.wire_name, param.location))
        own = {role, base} if role else set()
        others = taken - own
        name, why = base, ""
        hint = stated_unit(param.schema, param.description, info.units.get((param.wire_name, param.location)))
        if hint is not None and not carries(name, hint.unit):
            name, why = (
                with_unit(name, hint.unit),
                f"unit in the name ({rule_name('T5')}): the spec says {hint.evidence}",
            )
        if name in RESERVED_ARGS:
            name, why = _owned_by_resource(name, info), f"'{name}' is the tool's own action argument (M205)"
        if name in extra_taken:
            where = "body" if param.location == "body_whole" else param.location
            name, why = (
                f"{where}_{name}",
                f"'{name}' is the argument that confirms an action that cannot be undone (M233)",
            )
        if role is None and name in owned_names:
            where = "body" if param.location == "body_whole" else param.location
            name, why = (
                f"{where}_{name}",
                f"'{name}' is the server's own paging or response_format argument (M217)",
            )
        if name in others:
            where = "body" if param.location == "body_whole" else param.location
            name, why = f"{where}_{name}", f"another parameter of this operation is also '{name}' (M206)"
        type_ = json_type_of(param.schema)
        # An unnamed limit is called 'limit' by the build; page and cursor always are, whatever the draft says.
        seen_as = role if role is not None and (name == base or role != LIMIT_ARG) else name
        if seen_as in tool_types and tool_types[seen_as] != type_ and role in (None, LIMIT_ARG):
            name, why = (
                _typed_name(name, type_, tool_types),
                (
                    f"'{seen_as}' is {tool_types[seen_as]} in another action of this tool, {type_} here; "
                    f"one tool has one flat parameter set ({rule_name('T2')}, M207)"
                ),
            )
        name = _free(name[:ARG_MAX].rstrip("_"), others, type_, tool_types)
        taken.add(name)
        tool_types.setdefault(name, type_)
        if role is not None and name == base:
            tool_types.setdefault(role, type_)
        if name != base:
            out.append(DraftParam(key=_param_key(param, wire_counts), name=name, why=why or "renamed"))
    return out


# The build's names for each paging role, most common first, and what it calls the chosen one.
_ROLES = ((PAGE_PARAMS, PAGE_ARG), (LIMIT_PARAMS, LIMIT_ARG), (CURSOR_PARAMS, CURSOR_ARG))


def _paging_roles(info: OpInfo) -> dict[tuple[str, str], str]:
    """For a read: the query parameters the build may rename for paging, each with its paging name.
    The build picks the first of its candidate names the operation has, as this does."""
    if info.op.method not in READ_METHODS:
        return {}
    query = {p.wire_name for p in info.params if p.location == "query"}
    roles = {}
    for candidates, owned in _ROLES:
        chosen = next((name for name in candidates if name in query), None)
        if chosen is not None:
            roles[(chosen, "query")] = owned
    return roles


def _server_owned(info: OpInfo, roles: dict[tuple[str, str], str]) -> set[str]:
    """The argument names the build may give a read action itself (M217): response_format always, and
    page, limit or cursor where the operation can page that way. Elsewhere those names stay free, so
    Twilio's `Page` is still `page` when nothing pages by it."""
    if info.op.method not in READ_METHODS:
        return set()
    owned = {FORMAT_ARG, *roles.values()}
    query = {p.wire_name for p in info.params if p.location == "query"}
    if any(name in query for name in OFFSET_PARAMS):
        owned.add(PAGE_ARG)  # offset paging: the server takes `page` and computes the offset
    if info.link_paged:
        owned.add(CURSOR_ARG)  # Link-header paging: the server takes `cursor`
    return owned


_TYPE_WORDS = {
    "string": "text",
    "integer": "number",
    "number": "number",
    "boolean": "flag",
    "object": "object",
}


def _owned_by_resource(name: str, info: OpInfo) -> str:
    """A reserved name said of what it belongs to: Zoom's `action` on '/meetings/{meetingId}/recordings'
    is `recording_action`; `<name>_value` when the path names nothing."""
    literal = [s for s in re.split(r"[/#.]", info.op.path) if s and not s.startswith("{")]
    resource = snake_case(singular(literal[-1])) if literal else ""
    return (
        f"{resource}_{name}" if resource and resource != name and resource[0].isalpha() else f"{name}_value"
    )


def _typed_name(name: str, type_: str, tool_types: dict[str, str]) -> str:
    word = "list" if type_.startswith("array") else _TYPE_WORDS.get(type_, "value")
    candidate = f"{name}_{word}"
    counter = 2
    while candidate in tool_types and tool_types[candidate] != type_:
        candidate = f"{name}_{word}_{counter}"
        counter += 1
    return candidate


def _free(name: str, taken: set[str], type_: str, tool_types: dict[str, str]) -> str:
    """`name`, or `name_2`, ... : unused in this operation and not a different type elsewhere in the tool."""
    candidate, counter = name, 2
    while candidate in taken or candidate in RESERVED_ARGS or tool_types.get(candidate, type_) != type_:
        candidate = f"{name[: ARG_MAX - 3]}_{counter}"
        counter += 1
    return candidate


def _param_key(param: Any, wire_counts: Counter[str]) -> str:
    """The mapping key: the wire name, qualified with the location when it would be ambiguous."""
    location = "body" if param.location == "body_whole" else param.location
    if wire_counts[param.wire_name] > 1 or "." in param.wire_name:
        return f"{location}.{param.wire_name}"
    return str(param.wire_name)
