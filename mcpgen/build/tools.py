"""One tool from its mapping entry: its actions, the flat parameter set they share (T2) and its schema."""

from __future__ import annotations

from dataclasses import replace

from mcpgen import codes
from mcpgen.build.actions import build_action
from mcpgen.build.checks import check_shared_params
from mcpgen.build.descriptions import (
    confirm_description,
    preview_description,
    tool_description,
    with_values_by_action,
)
from mcpgen.build.hints import marked_reads, tool_hints
from mcpgen.build.paging import merge_limit_properties
from mcpgen.build.previews import preview_input_schema, previewed
from mcpgen.diagnostics import Diagnostic, error, has_errors, rule_name, warning
from mcpgen.ir import ActionSpec, JsonSchema, ToolSpec
from mcpgen.load.mapping import Mapping, ToolRule
from mcpgen.load.mapping_auth import AuthRule
from mcpgen.load.openapi import Spec
from mcpgen.names import TOOL_NAME_COMFORT_LENGTH, python_identifier, tool_name_problem


def build_tool(spec: Spec, mapping: Mapping, rule: ToolRule) -> tuple[ToolSpec | None, list[Diagnostic]]:
    diagnostics: list[Diagnostic] = []
    name = f"{mapping.server.name}_{rule.name}"
    problem = tool_name_problem(name)
    if problem:
        diagnostics.append(
            error(codes.M208, f"{problem} ({rule_name('T4')})", rule.source, hint="shorten the tool name")
        )
    elif len(name) > TOOL_NAME_COMFORT_LENGTH:
        diagnostics.append(
            warning(
                codes.M209,
                f"tool name '{name}' has {len(name)} characters; clients that add a prefix may cut it past "
                f"{TOOL_NAME_COMFORT_LENGTH} ({rule_name('T4')})",
                rule.source,
            )
        )
    actions: list[ActionSpec] = []
    for action_rule in rule.actions:
        action, found = build_action(
            spec, rule, action_rule, _auth_rules(mapping), mapping.server.idempotency_body
        )
        diagnostics += found
        if action is not None:
            actions.append(action)
    diagnostics += check_shared_params(rule, actions)
    actions = _with_own_schemas(actions)
    if len(actions) == 1 and rule.actions[0].preview is not None:
        with_preview, found = previewed(
            spec, rule, actions[0], name, _auth_rules(mapping), marked_reads(spec, mapping)
        )
        diagnostics += found
        actions = [with_preview]
    if has_errors(diagnostics):
        return None, diagnostics
    if actions[0].preview is not None:
        description = preview_description(rule, actions[0], f"{name}_apply")
        input_schema = preview_input_schema(actions[0])
    else:
        properties = _tool_properties(actions)
        description = tool_description(rule, actions, properties)
        input_schema = {
            "type": "object",
            "properties": properties,
            "required": ["action"],
            "additionalProperties": False,
        }
    tool = ToolSpec(
        name=name,
        module_name=python_identifier(rule.name),
        title=rule.title or rule.name.replace("_", " ").capitalize(),
        description=description,
        actions=tuple(actions),
        input_schema=input_schema,
        hints=tool_hints([a.hints for a in actions if a.hints is not None], rule),
        source=rule.source,
        scopes=rule.scopes,
    )
    return tool, diagnostics


def _auth_rules(mapping: Mapping) -> tuple[AuthRule, ...]:
    auth = mapping.server.auth
    return (auth, *mapping.server.extra_auth) if auth is not None else ()


def _tool_properties(actions: list[ActionSpec]) -> dict[str, JsonSchema]:
    action_names = [a.name for a in actions]
    properties: dict[str, JsonSchema] = {
        "action": {
            "type": "string",
            "enum": action_names,
            # The tool description already says what each action does and needs; saying it again here
            # doubled the definition tokens of big servers (T3) without telling the agent anything new.
            "description": "One of the actions the tool description lists.",
        }
    }
    needed: set[str] = set()
    shared = _shared_schemas(actions)
    for action in actions:
        for param in (*action.params, *action.server_params):
            if param.arg_name not in properties:
                properties[param.arg_name] = with_values_by_action(
                    shared[param.arg_name], actions, param.arg_name
                )
            if param.required:
                needed.add(param.arg_name)
    properties = merge_limit_properties(properties, actions)
    confirming = [a for a in actions if a.confirm_value]
    if confirming:
        # Last, so the model fills it after everything else (a reminder, not a protection).
        value = confirming[0].confirm_value or ""  # set: confirming holds those with one
        names = ", ".join(a.name for a in confirming)
        properties["confirm"] = {
            "type": "string",
            "enum": [value],
            "description": confirm_description(value, names, [a.name for a in confirming if a.confirm_user]),
        }
        needed.add("confirm")
    # Which action needs which parameter is in the tool description ("Needs: ..."), once per action;
    # per-parameter "used by"/"required for" lists repeated it (T3). The server still names the
    # parameters an action needs or does not take when a call gets them wrong (T2).
    if len(actions) == 1:
        for arg_name in sorted(needed):
            properties[arg_name] = {
                **properties[arg_name],
                "description": properties[arg_name]["description"] + " Required.",
            }
    return properties


# Keywords that say nothing about which values are accepted.
_PROSE_KEYWORDS = frozenset(("description", "default", "examples", "example", "title"))


def _constraints(schema: JsonSchema) -> JsonSchema:
    out = {k: v for k, v in schema.items() if k not in _PROSE_KEYWORDS}
    if isinstance(out.get("items"), dict):
        out["items"] = _constraints(out["items"])
    return out


def _merged_schema(first: JsonSchema, other: JsonSchema) -> JsonSchema:
    """One flat property for an argument two actions share (T2): what either accepts. Enums are
    joined, constraints that differ are left out (the server checks each action's own)."""
    merged = dict(first)
    for key in set(first) | set(other):
        if key in _PROSE_KEYWORDS:
            continue
        mine, theirs = first.get(key), other.get(key)
        if mine == theirs:
            continue
        if key == "enum" and isinstance(mine, list) and isinstance(theirs, list):
            merged["enum"] = mine + [v for v in theirs if v not in mine]
        elif key == "items" and isinstance(mine, dict) and isinstance(theirs, dict):
            merged["items"] = _merged_schema(mine, theirs)
        elif key == "properties" and isinstance(mine, dict) and isinstance(theirs, dict):
            # Every field either action takes (linqr's `data`: one shape per kind of QR code).
            merged["properties"] = {
                name: _merged_schema(mine[name], theirs[name]) if name in mine and name in theirs else
                (mine[name] if name in mine else theirs[name])  # `{}` (any value) is a schema too
                for name in {**mine, **theirs}
            }  # fmt: skip
        else:
            merged.pop(key, None)
    if "default" in merged and first.get("default") != other.get("default"):
        del merged["default"]  # each action's default is in its line of the description
    return merged


def _shared_schemas(actions: list[ActionSpec]) -> dict[str, JsonSchema]:
    merged: dict[str, JsonSchema] = {}
    for action in actions:
        for param in (*action.params, *action.server_params):
            if param.arg_name in merged:
                merged[param.arg_name] = _merged_schema(merged[param.arg_name], param.schema)
            else:
                merged[param.arg_name] = dict(param.schema)
    return merged


def _with_own_schemas(actions: list[ActionSpec]) -> list[ActionSpec]:
    """An action whose argument accepts less than the tool's flat property checks its own schema
    (GitHub's `sort`: 'created' for issues, 'stars' for repositories)."""
    shared = _shared_schemas(actions)
    out = []
    for action in actions:
        params = tuple(
            replace(p, check_schema=_constraints(p.schema))
            if _constraints(p.schema) != _constraints(shared[p.arg_name])
            else p
            for p in action.params
        )
        out.append(replace(action, params=params) if params != action.params else action)
    return out
