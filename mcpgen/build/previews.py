"""A previewed change (S1): the read that shows the current state, the values compared, the guards (S2)."""

from __future__ import annotations

import re
from dataclasses import replace

from mcpgen import codes
from mcpgen.build.actions import build_action
from mcpgen.build.checks import check_preview_read, read_types_differ
from mcpgen.build.parameters import spec_params
from mcpgen.build.schemas import json_type_of
from mcpgen.diagnostics import Diagnostic, error
from mcpgen.ir import ActionSpec, GuardSpec, JsonSchema, ParamSpec, PreviewSpec
from mcpgen.load.mapping import ActionRule, ParamRule, PreviewRule, ToolRule
from mcpgen.load.mapping_auth import AuthRule
from mcpgen.load.openapi import Spec, find_operation

DEFAULT_APPROVAL = (
    "Ask a person who may approve it to review the change and make it themselves, outside this tool."
)


_NUMERIC = ("integer", "number")


def previewed(
    spec: Spec,
    tool: ToolRule,
    action: ActionSpec,
    served_name: str,
    auths: tuple[AuthRule, ...] = (),
    marked_reads: frozenset[tuple[str, str]] = frozenset(),
) -> tuple[ActionSpec, list[Diagnostic]]:
    """The action with its preview (S1): the read operation, the values compared, the guard rules (S2)."""
    rule = tool.actions[0]
    preview_rule: PreviewRule = rule.preview  # type: ignore[assignment]
    read_rule = ActionRule(
        # Named as the agent calls it: a failed read says "'<tool>_preview' found nothing ...".
        name=f"{served_name}_preview",
        operation=preview_rule.read,
        description=None,
        params=_shared_env(spec, preview_rule.read, rule),
        source=preview_rule.read_source,
        operation_source=preview_rule.read_source,
    )
    read, diagnostics = build_action(spec, tool, read_rule, auths)
    if read is None:
        return action, diagnostics
    # The preview compares whole records, so its read has no concise view and no paging (S1). Its
    # parameters are filled from the action's, under the names the mapping gave them (M231).
    read = replace(read, shape=None, paging=None, server_params=(), params=_read_params(read, action))
    diagnostics += read_types_differ(read, action)
    diagnostics += check_preview_read(read, action, preview_rule.read_source, marked_reads)
    compared, guards, found = _compared_and_guarded(rule, action)
    diagnostics += found
    preview = PreviewSpec(
        read=read,
        ttl_minutes=preview_rule.ttl_minutes,
        approval=preview_rule.approval or DEFAULT_APPROVAL,
        compared=tuple(compared),
        guards=tuple(guards),
    )
    return replace(action, preview=preview), diagnostics


def _shared_env(spec: Spec, read: str, rule: ActionRule) -> tuple[ParamRule, ...]:
    """The action's parameters sent from the environment that the read takes too (a per-deployment
    access token in both bodies): the read sends the same value (P3 credentials)."""
    operation = find_operation(spec, read)
    if operation is None:
        return ()
    names = {p.wire_name for p in spec_params(spec, operation)[0]}
    return tuple(r for r in rule.params if r.env and r.wire_name in names)


def _compared_and_guarded(
    rule: ActionRule, action: ActionSpec
) -> tuple[list[tuple[str, str]], list[GuardSpec], list[Diagnostic]]:
    """The arguments whose value the preview shows beside the current one (with the record's field it
    reads that from), and the guards on those the mapping limits (S2)."""
    rules = {r.name or r.wire_name: r for r in rule.params}
    compared: list[tuple[str, str]] = []
    guards: list[GuardSpec] = []
    diagnostics: list[Diagnostic] = []
    for param in action.params:
        param_rule = rules.get(param.arg_name) or next(
            (r for r in rule.params if r.wire_name == param.wire_path), None
        )
        current = (param_rule.current if param_rule else None) or param.wire_path
        if _is_idempotency_key(param.wire_name):
            pass  # a new key per request, never a change to the record (S1)
        elif param.location in ("body", "query") or (param_rule and param_rule.current):
            compared.append((param.arg_name, current))
        if param_rule is None or param_rule.max_increase_pct is None:
            continue
        if json_type_of(param.schema) not in _NUMERIC:
            diagnostics.append(
                error(
                    codes.M232,
                    f"max_increase_pct needs a number, but '{param.arg_name}' is {json_type_of(param.schema)}",
                    param_rule.source,
                    hint="put the guard on a numeric parameter, e.g. a budget or a quantity",
                )
            )
            continue
        guards.append(
            GuardSpec(
                arg_name=param.arg_name,
                current_field=current,
                max_increase_pct=param_rule.max_increase_pct,
                unit=param.unit,
            )
        )
    return compared, guards, diagnostics


def _read_params(read: ActionSpec, action: ActionSpec) -> tuple[ParamSpec, ...]:
    """The preview read's parameters, each renamed to the action parameter that feeds it: the same
    wire name at the same place, or for a path the identifier at the same position of a path the
    read's path begins (`GET /customers/{id}` under `POST /customers/{customer}`). It takes the
    action's unit too, since the value comes in the agent's unit."""
    feeds = {(p.location, p.wire_name): p for p in action.params}
    read_path = _path_params(read.path)
    action_path = _path_params(action.path)
    same_shape = _path_shape(action.path)[: len(_path_shape(read.path))] == _path_shape(read.path)
    by_position = dict(zip(read_path, action_path, strict=False)) if same_shape else {}
    action_path_params = {p.wire_name: p for p in action.params if p.location == "path"}
    renamed = []
    for param in read.params:
        source = feeds.get((param.location, param.wire_name))
        if source is None and param.location == "path":
            source = action_path_params.get(by_position.get(param.wire_name, ""))
        renamed.append(replace(param, arg_name=source.arg_name, unit=source.unit) if source else param)
    return tuple(renamed)


def _path_params(path: str) -> list[str]:
    return re.findall(r"\{([^{}]+)\}", path)


def _path_shape(path: str) -> list[str]:
    """`/customers/{customer}` -> ['customers', '{}']: a path with its identifiers' names left out."""
    return [re.sub(r"\{[^{}]+\}", "{}", part) for part in path.split("/") if part]


def _is_idempotency_key(wire_name: str) -> bool:
    return re.sub(r"[^a-z]", "", wire_name.lower()) == "idempotencykey"


def preview_input_schema(action: ActionSpec) -> JsonSchema:
    """The action's parameters without `action`: the preview tool does one thing (S1)."""
    properties = {p.arg_name: dict(p.schema) for p in action.params}
    return {
        "type": "object",
        "properties": properties,
        "required": list(action.required_args),
        "additionalProperties": False,
    }
