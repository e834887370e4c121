"""One action from its mapping entry and the operation it calls: parameters, fixed values, defaults, results."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mcpgen.build.asking import asked_param
from mcpgen.build.checks import check_arg_names, unknown_operation
from mcpgen.build.descriptions import action_description, described_variants
from mcpgen.build.hints import action_hints
from mcpgen.build.nested import nested_fields
from mcpgen.build.parameters import (
    body_schema,
    credentials_sent,
    kept_from_agent,
    match_rules,
    param_spec,
    rule_of,
    spec_params,
    variant_specs,
    with_lifted,
)
from mcpgen.build.request_parts import accept_for, non_json_answers
from mcpgen.build.results import plan_results
from mcpgen.build.tasks import task_spec
from mcpgen.build.units import with_currency
from mcpgen.diagnostics import Diagnostic, error, has_errors, warning
from mcpgen.ir import ActionSpec, FixedValue, ParamSpec
from mcpgen.load.mapping import UNSET, ActionRule, AuthRule, ToolRule
from mcpgen.load.openapi import Spec, find_operation

_IDEMPOTENCY_KEY = "idempotency-key"


def build_action(
    spec: Spec,
    tool: ToolRule,
    rule: ActionRule,
    auths: tuple[AuthRule, ...] = (),
    idempotency_body: str | None = None,
) -> tuple[ActionSpec | None, list[Diagnostic]]:
    operation = find_operation(spec, rule.operation)
    if operation is None:
        return None, [unknown_operation(spec, rule)]
    diagnostics: list[Diagnostic] = []
    operation_params, body_encoding, found = spec_params(spec, operation)
    # An idempotency key the spec declares is the server's to send (E4), not a question for the agent.
    idempotency = [
        p for p in operation_params if p.location == "header" and p.wire_name.lower() == _IDEMPOTENCY_KEY
    ]
    keyed_body = [p for p in operation_params if p.location == "body" and p.wire_name == idempotency_body]
    operation_params = [p for p in operation_params if p not in idempotency and p not in keyed_body]
    # These point into the spec; say which mapping entry led there.
    diagnostics += [
        replace(d, hint="; ".join(filter(None, [d.hint, f"mapped by action '{rule.name}' at {rule.source}"])))
        for d in found
    ]
    # A body field whose own name has a dot ('Integration.Timeout', Twilio) is that field, not a path.
    plain = frozenset(p.wire_name for p in operation_params)
    lifted, lifted_found = nested_fields(spec, operation, rule, body_schema(spec, operation), plain)
    diagnostics += lifted_found
    operation_params = with_lifted(operation_params, lifted)
    rules_by_param, found = match_rules(operation, operation_params, rule)
    diagnostics += found
    task, found = task_spec(operation, rule, tool)
    diagnostics += found
    sent = credentials_sent(auths)
    unreadable = non_json_answers(spec, operation)
    if unreadable:
        diagnostics.append(
            warning(
                "M218",
                f"{operation.key} answers {', '.join(unreadable[:3])} only; the server reads JSON answers, so "
                f"action '{rule.name}' will report every success as an answer it cannot read",
                rule.operation_source,
                hint="leave this operation to a client that handles files, or map another one",
            )
        )
    params: list[ParamSpec] = []
    fixed: list[FixedValue] = []
    defaults: list[tuple[str, Any]] = []
    with_body: set[str] = set()
    asked: list[ParamSpec] = []
    for param in operation_params:
        param_rule = rules_by_param.get((param.wire_name, param.location))
        if param_rule is not None and param_rule.fixed is not UNSET:
            fixed.append(
                FixedValue(
                    wire_name=param.path[0] if param.path else param.wire_name,
                    location=param.location,
                    value=param_rule.fixed,
                    path=param.path[1:],
                )
            )
            continue
        kept, found = kept_from_agent(spec, sent, param, param_rule, operation)
        diagnostics += found
        if isinstance(kept, FixedValue):
            fixed.append(kept)
        if kept is not True:
            continue
        if param_rule is not None and param_rule.hidden:
            if param.required:
                diagnostics.append(
                    error(
                        "M210",
                        f"parameter '{param.wire_name}' is required by {operation.key} and cannot be hidden",
                        param_rule.source,
                        hint="use 'fixed: <value>' to always send a value instead",
                    )
                )
            continue
        built, default, found = param_spec(param, param_rule, operation)
        diagnostics += found
        if param_rule is not None and param_rule.ask_user:  # the user's to give, not the agent's (P4)
            asked_one, found = asked_param(built, param_rule, rule, operation.key)
            diagnostics += found
            asked += [asked_one] if asked_one is not None else []
            continue
        params.append(built)
        if param.required_with_body and not built.required and default is UNSET:
            with_body.add(built.arg_name)
        if default is not UNSET:
            defaults.append((built.arg_name, default))
    params, found = with_currency(
        params, fixed, {p.arg_name: r for r in rule.params for p in params if rule_of(p, r)}
    )
    diagnostics += found
    results = plan_results(spec, operation, rule, params, defaults)  # R1-R3: formats and paging
    diagnostics += results.diagnostics
    params, defaults = list(results.params), list(results.defaults)
    diagnostics += check_arg_names(params, operation)
    if rule.confirm_param and any(p.arg_name == "confirm" for p in params):
        diagnostics.append(
            error(
                "M233",
                f"{operation.key} has a parameter that would be called 'confirm', the name confirm_param uses",
                rule.source,
                hint="rename that parameter in the action's params",
            )
        )
    if has_errors(diagnostics):
        return None, diagnostics
    variants = variant_specs(spec, operation, params)
    params = described_variants(params, variants)
    return (
        ActionSpec(
            name=rule.name,
            description=action_description(rule, operation),
            method=operation.method,
            path=operation.path,
            operation_id=operation.operation_id,
            params=tuple(params),
            fixed=tuple(fixed),
            defaults=tuple(defaults),
            body_encoding=body_encoding,
            source=rule.source,
            operation_source=operation.source,
            shape=results.shape,
            paging=results.paging,
            server_params=results.server_params,
            confirm_value=rule.confirm_param
            or (f"CONFIRM_{rule.name.upper()}" if rule.confirm_user else None),
            confirm_user=rule.confirm_user,
            asked=tuple(asked),
            idempotency_header=idempotency[0].wire_name if idempotency else None,
            idempotency_body=keyed_body[0].wire_name if keyed_body else None,
            hints=action_hints(operation.method, rule),
            accept=accept_for(spec, operation),
            body_requires=tuple(p.arg_name for p in params if p.arg_name in with_body),
            variants=variants,
            result_fields=results.result_fields,
            task=task,
        ),
        diagnostics,
    )
