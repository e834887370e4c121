"""One action from its mapping entry and the operation it calls: parameters, fixed values, defaults, results."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from mcpgen import codes
from mcpgen.build.answers import file_answer, stream_answers
from mcpgen.build.asking import asked_param
from mcpgen.build.checks import check_arg_names, check_confirm_name, unknown_operation
from mcpgen.build.descriptions import action_description, described_variants
from mcpgen.build.hints import action_hints
from mcpgen.build.nested import nested_fields
from mcpgen.build.parameters import (
    OperationParam,
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
from mcpgen.build.request_parts import accept_for
from mcpgen.build.results import ResultPlan, plan_results
from mcpgen.build.tasks import task_spec
from mcpgen.build.times import allows_local, with_local_arguments
from mcpgen.build.units import with_currency
from mcpgen.diagnostics import Diagnostic, error, has_errors, warning
from mcpgen.ir import ActionSpec, BodyEncoding, FixedValue, ParamSpec, TaskSpec
from mcpgen.load.mapping import UNSET, ActionRule, ParamRule, ToolRule
from mcpgen.load.mapping_auth import AuthRule
from mcpgen.load.openapi import Operation, Spec, find_operation

_IDEMPOTENCY_KEY = "idempotency-key"


@dataclass(frozen=True, slots=True)
class _Inputs:
    """The operation's parameters an action's mapping rules apply to, and the idempotency key the
    server sends itself (E4): a header the spec declares, or the body field the mapping names."""

    params: list[OperationParam]
    body_encoding: BodyEncoding | None
    idempotency_header: str | None
    idempotency_body: str | None


@dataclass(frozen=True, slots=True)
class _Arguments:
    """Where an action's parameters went: the agent's arguments (with their defaults, and those needed
    once any body field is given), the values the server sends itself, and those the user is asked."""

    params: list[ParamSpec] = field(default_factory=list)
    fixed: list[FixedValue] = field(default_factory=list)
    defaults: list[tuple[str, Any]] = field(default_factory=list)
    with_body: set[str] = field(default_factory=set)
    asked: list[ParamSpec] = field(default_factory=list)


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
    inputs, diagnostics = _inputs(spec, operation, rule, idempotency_body)
    rules_by_param, found = match_rules(operation, inputs.params, rule)
    diagnostics += found
    task, found = task_spec(operation, rule, tool)
    diagnostics += found
    diagnostics += _unreadable_answers(spec, operation, rule)
    args, found = _arguments(spec, operation, rule, inputs.params, rules_by_param, auths)
    diagnostics += found
    params, found = with_currency(
        args.params, args.fixed, {p.arg_name: r for r in rule.params for p in args.params if rule_of(p, r)}
    )
    diagnostics += found
    params, found = with_local_arguments(
        params,
        {p.arg_name: r for r in rule.params if r.local_time for p in params if rule_of(p, r)},
        frozenset(
            p.wire_name
            for p in inputs.params
            if allows_local(f"{p.schema.get('description')} {p.description}")
        ),
        operation.key,
    )
    diagnostics += found
    results = plan_results(spec, operation, rule, params, args.defaults)  # R1-R3: formats and paging
    diagnostics += results.diagnostics
    diagnostics += check_arg_names(list(results.params), operation)
    diagnostics += check_confirm_name(rule, operation, results.params)
    if has_errors(diagnostics):
        return None, diagnostics
    return _action_spec(spec, operation, rule, inputs, args, results, task), diagnostics


def _inputs(
    spec: Spec, operation: Operation, rule: ActionRule, idempotency_body: str | None
) -> tuple[_Inputs, list[Diagnostic]]:
    """The operation's parameters, less the idempotency key, with each nested body field the mapping
    names as one of its own (nested.py)."""
    operation_params, body_encoding, found = spec_params(spec, operation)
    # An idempotency key the spec declares is the server's to send (E4), not a question for the agent.
    idempotency = [
        p for p in operation_params if p.location == "header" and p.wire_name.lower() == _IDEMPOTENCY_KEY
    ]
    keyed_body = [p for p in operation_params if p.location == "body" and p.wire_name == idempotency_body]
    operation_params = [p for p in operation_params if p not in idempotency and p not in keyed_body]
    # These point into the spec; say which mapping entry led there.
    diagnostics = [
        replace(d, hint="; ".join(filter(None, [d.hint, f"mapped by action '{rule.name}' at {rule.source}"])))
        for d in found
    ]
    # A body field whose own name has a dot ('Integration.Timeout', Twilio) is that field, not a path.
    plain = frozenset(p.wire_name for p in operation_params)
    lifted, lifted_found = nested_fields(spec, operation, rule, body_schema(spec, operation), plain)
    diagnostics += lifted_found
    inputs = _Inputs(
        params=with_lifted(operation_params, lifted),
        body_encoding=body_encoding,
        idempotency_header=idempotency[0].wire_name if idempotency else None,
        idempotency_body=keyed_body[0].wire_name if keyed_body else None,
    )
    return inputs, diagnostics


def _unreadable_answers(spec: Spec, operation: Operation, rule: ActionRule) -> list[Diagnostic]:
    """A stream of events is the one answer a server cannot read: it reads each answer to its end (a
    file it returns as one: file_answer)."""
    unreadable = stream_answers(spec, operation)
    if not unreadable:
        return []
    return [
        warning(
            codes.M218,
            f"{operation.key} answers {', '.join(unreadable[:3])} only, a stream that does not end; the server "
            f"reads each answer to its end, so action '{rule.name}' will report every call as timed out",
            rule.operation_source,
            hint="leave this operation to a client that follows event streams, or map another one",
        )
    ]


def _arguments(
    spec: Spec,
    operation: Operation,
    rule: ActionRule,
    operation_params: list[OperationParam],
    rules_by_param: dict[tuple[str, str], ParamRule],
    auths: tuple[AuthRule, ...],
) -> tuple[_Arguments, list[Diagnostic]]:
    """Each parameter of the operation placed: sent by the server, asked of the user, or the agent's."""
    args = _Arguments()
    diagnostics: list[Diagnostic] = []
    sent = credentials_sent(auths)
    in_body = {(a.name or "").lower(): a.env for a in auths if a.location == "body"}
    for param in operation_params:
        param_rule = rules_by_param.get((param.wire_name, param.location))
        env = param_rule.env if param_rule is not None and param_rule.env else None
        if env is None and param.location == "body" and not param.path:
            env = in_body.get(param.wire_name.lower())
        if env is not None:  # the server's environment holds it (P3 credentials)
            args.fixed.append(_from_env(param, env))
            continue
        left, value, found = _left_to_server(spec, sent, param, param_rule, operation)
        diagnostics += found
        if value is not None:
            args.fixed.append(value)
        if left:
            continue
        built, default, found = param_spec(param, param_rule, operation)
        diagnostics += found
        if param_rule is not None and param_rule.ask_user:  # the user's to give, not the agent's (P4)
            asked_one, found = asked_param(built, param_rule, rule, operation.key)
            diagnostics += found
            args.asked.extend([asked_one] if asked_one is not None else [])
            continue
        args.params.append(built)
        if param.required_with_body and not built.required and default is UNSET:
            args.with_body.add(built.arg_name)
        if default is not UNSET:
            args.defaults.append((built.arg_name, default))
    return args, diagnostics


def _from_env(param: OperationParam, env: str) -> FixedValue:
    wire = param.path[0] if param.path else param.wire_name
    return FixedValue(wire_name=wire, location=param.location, value=None, path=param.path[1:], env=env)


def _left_to_server(
    spec: Spec,
    sent: frozenset[tuple[str, str]] | None,
    param: OperationParam,
    param_rule: ParamRule | None,
    operation: Operation,
) -> tuple[bool, FixedValue | None, list[Diagnostic]]:
    """Whether the parameter is not the agent's to pass, with the value the server sends in it if any:
    the mapping's fixed value, a credential, a spec-global option or a one-value parameter
    (kept_from_agent), or one the mapping hides (which a required parameter cannot be)."""
    if param_rule is not None and param_rule.fixed is not UNSET:
        fixed = FixedValue(
            wire_name=param.path[0] if param.path else param.wire_name,
            location=param.location,
            value=param_rule.fixed,
            path=param.path[1:],
        )
        return True, fixed, []
    kept, found = kept_from_agent(spec, sent, param, param_rule, operation)
    if kept is not True:
        return True, kept if isinstance(kept, FixedValue) else None, found
    if param_rule is None or not param_rule.hidden:
        return False, None, found
    if param.required:
        found.append(
            error(
                codes.M210,
                f"parameter '{param.wire_name}' is required by {operation.key} and cannot be hidden",
                param_rule.source,
                hint="use 'fixed: <value>' to always send a value instead",
            )
        )
    return True, None, found


def _action_spec(
    spec: Spec,
    operation: Operation,
    rule: ActionRule,
    inputs: _Inputs,
    args: _Arguments,
    results: ResultPlan,
    task: TaskSpec | None,
) -> ActionSpec:
    params = list(results.params)
    variants = variant_specs(spec, operation, params)
    params = described_variants(params, variants)
    return ActionSpec(
        name=rule.name,
        description=action_description(rule, operation),
        method=operation.method,
        path=operation.path,
        operation_id=operation.operation_id,
        params=tuple(params),
        fixed=tuple(args.fixed),
        defaults=tuple(results.defaults),
        body_encoding=inputs.body_encoding,
        source=rule.source,
        operation_source=operation.source,
        shape=results.shape,
        paging=results.paging,
        server_params=results.server_params,
        confirm_value=rule.confirm_param or (f"CONFIRM_{rule.name.upper()}" if rule.confirm_user else None),
        confirm_user=rule.confirm_user,
        asked=tuple(args.asked),
        idempotency_header=inputs.idempotency_header,
        idempotency_body=inputs.idempotency_body,
        hints=action_hints(operation.method, rule),
        accept=accept_for(spec, operation),
        body_requires=tuple(p.arg_name for p in params if p.arg_name in args.with_body),
        body_required=inputs.body_encoding == "json"
        and operation.request_body is not None
        and operation.request_body.value.get("required") is True,
        variants=variants,
        result_fields=results.result_fields,
        task=task,
        file_answer=file_answer(spec, operation),
    )
