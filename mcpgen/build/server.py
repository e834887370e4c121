"""Pure: (OpenAPI spec, mapping) -> (ServerSpec, diagnostics). Every decision about the tools is made here."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any, cast

from mcpgen.build.asking import asked_param, asking_note
from mcpgen.build.discovery import check_discovery_names
from mcpgen.build.fingerprints import (
    Canonicalizer,
    fingerprint_tools,
    mapping_fingerprint,
    spec_operation_fingerprints,
)
from mcpgen.build.guidance import with_guidance
from mcpgen.build.hints import action_hints, tool_hints
from mcpgen.build.hosts import with_own_hosts
from mcpgen.build.nested import NestedField, is_nested_key, nested_fields, without_fields
from mcpgen.build.regeneration import PreviousLock, regeneration_diagnostics
from mcpgen.build.request_parts import accept_for, constant, is_credential, is_global, non_json_answers
from mcpgen.build.results import merge_limit_properties, plan_results
from mcpgen.build.runtime_modules import runtime_left_out
from mcpgen.build.schemas import (
    BODY_DEPTH,
    body_variants,
    input_schema,
    json_type_of,
    lean_text,
    short_text,
)
from mcpgen.build.server_info import check_server_info_name
from mcpgen.build.tasks import task_spec
from mcpgen.build.times import with_date_time_format, with_local_times
from mcpgen.build.units import (
    in_agent_units,
    renamed_unit_mismatch,
    to_agent_units,
    unit_description,
    unit_spec,
    with_currency,
    with_result_units,
)
from mcpgen.diagnostics import Diagnostic, Level, SourceRef, error, has_errors, info, rule_name, warning
from mcpgen.ir import (
    AccessSpec,
    ActionSpec,
    AuthSpec,
    BodyEncoding,
    FixedValue,
    GuardSpec,
    JsonSchema,
    ParamLocation,
    ParamSpec,
    PreviewSpec,
    ServerSpec,
    ToolSpec,
    UnitSpec,
    VariantSpec,
)
from mcpgen.load.mapping import (
    UNSET,
    ActionRule,
    AuthRule,
    Mapping,
    ParamRule,
    PreviewRule,
    ToolRule,
    did_you_mean,
)
from mcpgen.load.openapi import Operation, Spec, find_operation, problems_for
from mcpgen.load.refs import Located
from mcpgen.names import (
    ARG_NAME_PATTERN,
    READ_METHODS,
    RESERVED_ARGS,
    TOOL_NAME_COMFORT_LENGTH,
    distribution_name,
    hook_names,
    package_name,
    python_identifier,
    snake_case,
    tool_name_problem,
)
from mcpgen.version import __version__

# Headers OpenAPI says are described elsewhere; never offered as parameters.
_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
_JSON_TYPES = ("application/json",)
_FORM_TYPES = ("application/x-www-form-urlencoded",)
_NUMERIC = ("integer", "number")
_IDEMPOTENCY_KEY = "idempotency-key"
DEFAULT_APPROVAL = (
    "Ask a person who may approve it to review the change and make it themselves, outside this tool."
)


@dataclass(frozen=True, slots=True)
class BuildResult:
    server: ServerSpec | None
    diagnostics: tuple[Diagnostic, ...]


@dataclass(frozen=True, slots=True)
class _OperationParam:
    """A parameter of an operation before the mapping's rules apply."""

    wire_name: str
    location: ParamLocation
    required: bool
    schema: JsonSchema
    description: str
    example: Any
    source: SourceRef
    path: tuple[str, ...] = ()  # a field inside a body object the mapping addressed (nested.py)
    # An optional body's field its schema requires: needed once any body field is given.
    required_with_body: bool = False
    style: str | None = None
    explode: bool | None = None


def build_server(
    spec: Spec,
    mapping: Mapping,
    *,
    spec_file: str,
    mapping_file: str,
    previous: PreviousLock | None = None,
) -> BuildResult:
    """`previous`: the lock of the package generated last (regeneration), for rename hints and
    warnings about operationIds bound to another endpoint."""
    diagnostics: list[Diagnostic] = []
    tools: list[ToolSpec] = []
    used: set[str] = set()
    for tool_rule in mapping.tools:
        tool, found = _build_tool(spec, mapping, tool_rule)
        diagnostics += found
        if tool is not None:
            tools.append(tool)
            used.update(f"{a.method} {a.path}" for a in tool.actions)
    diagnostics = regeneration_diagnostics(diagnostics, spec, mapping, previous)
    tools = with_result_units(tools)  # T5: results in the agent's units, whichever tool returns them
    diagnostics += problems_for(
        spec, [op for op in spec.operations if f"{op.method} {op.path}" in used]
    )  # the spec's invalid parts: an error only where a mapped operation uses one
    diagnostics += _check_auth(spec, mapping)
    diagnostics += _check_hook_names(mapping.server.name, tools)
    if mapping.server.server_info:
        diagnostics += check_server_info_name(
            mapping.server.name, [t.name for t in tools], mapping.server.source
        )
    discovery = mapping.server.discovery == "search_tools"
    if discovery:
        diagnostics += check_discovery_names(
            mapping.server.name, [t.name for t in tools], mapping.server.source
        )
    if has_errors(diagnostics):
        return BuildResult(None, tuple(diagnostics))
    server_rule = mapping.server
    base_url_default = server_rule.base_url_default or _spec_base_url(spec)
    unmapped = tuple(
        f"{op.method} {op.path}" + (f" ({op.operation_id})" if op.operation_id else "")
        for op in spec.operations
        if op.key not in used
    )
    canon = Canonicalizer(spec.resolver)  # C1: what each tool was built from, for tools.lock.json
    tools = fingerprint_tools(with_guidance(tools), spec, mapping, canon)
    tools = with_own_hosts(tools, spec, server_rule.name, base_url_default)
    server = ServerSpec(
        name=server_rule.name,
        package_name=package_name(server_rule.name),
        distribution_name=distribution_name(server_rule.name),
        title=server_rule.title or spec.title or server_rule.name,
        version=server_rule.version,
        description=(server_rule.description or spec.description or spec.title).strip(),
        base_url_env=server_rule.base_url_env or f"{server_rule.name.upper()}_BASE_URL",
        default_base_url=base_url_default,
        auth=_auth(mapping.server.auth),
        extra_auth=tuple(a for a in map(_auth, mapping.server.extra_auth) if a is not None),
        timeout_s=server_rule.timeout_s,
        tools=tuple(sorted(tools, key=lambda t: t.name)),
        spec_file=spec_file,
        mapping_file=mapping_file,
        unmapped_operations=unmapped,
        mcpgen_version=__version__,
        spec_operations=spec_operation_fingerprints(canon, spec),
        mapping_fingerprint=mapping_fingerprint(mapping, "/server"),
        discovery=discovery,
        server_info=server_rule.server_info,
        output_schemas=server_rule.output_schemas,
        max_result_tokens=server_rule.max_result_tokens,
        max_body_bytes=server_rule.max_body_bytes,
        access=_access(mapping),
        idempotency_header=server_rule.idempotency_header,
        headers=server_rule.headers,
        runtime_left_out=runtime_left_out(
            tools,
            access=mapping.server.access is not None,
            discovery=discovery,
            server_info=server_rule.server_info,
        ),
    )
    return BuildResult(server, tuple(diagnostics))


def _confirm_description(value: str, names: str, asked: list[str]) -> str:
    """What the confirm argument is for; with confirm: user it is only the fallback of a client
    that cannot ask the user (P4 ask what the model cannot know), and the description says so."""
    said = f"Write {value} to confirm that you mean it: {names} cannot be undone."
    if not asked:
        return said
    return (
        f"{said} When your client can ask the user (elicitation), the server asks the user to confirm "
        f"{', '.join(asked)} instead and ignores this; otherwise write it only after the user said yes."
    )


def _build_tool(spec: Spec, mapping: Mapping, rule: ToolRule) -> tuple[ToolSpec | None, list[Diagnostic]]:
    diagnostics: list[Diagnostic] = []
    name = f"{mapping.server.name}_{rule.name}"
    problem = tool_name_problem(name)
    if problem:
        diagnostics.append(
            error("M208", f"{problem} ({rule_name('T4')})", rule.source, hint="shorten the tool name")
        )
    elif len(name) > TOOL_NAME_COMFORT_LENGTH:
        diagnostics.append(
            warning(
                "M209",
                f"tool name '{name}' has {len(name)} characters; clients that add a prefix may cut it past "
                f"{TOOL_NAME_COMFORT_LENGTH} ({rule_name('T4')})",
                rule.source,
            )
        )
    actions: list[ActionSpec] = []
    for action_rule in rule.actions:
        action, found = _build_action(
            spec, rule, action_rule, _auth_rules(mapping), mapping.server.idempotency_body
        )
        diagnostics += found
        if action is not None:
            actions.append(action)
    diagnostics += _check_shared_params(rule, actions)
    actions = _with_own_schemas(actions)
    if len(actions) == 1 and rule.actions[0].preview is not None:
        previewed, found = _previewed(spec, rule, actions[0], name, _auth_rules(mapping))
        diagnostics += found
        actions = [previewed]
    if has_errors(diagnostics):
        return None, diagnostics
    if actions[0].preview is not None:
        description = _preview_description(rule, actions[0], f"{name}_apply")
        input_schema = _preview_input_schema(actions[0])
    else:
        properties = _tool_properties(actions)
        description = _tool_description(rule, actions, properties)
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


def _previewed(
    spec: Spec, tool: ToolRule, action: ActionSpec, served_name: str, auths: tuple[AuthRule, ...] = ()
) -> tuple[ActionSpec, list[Diagnostic]]:
    """The action with its preview (S1): the read operation, the values compared, the guard rules (S2)."""
    rule = tool.actions[0]
    preview_rule: PreviewRule = rule.preview  # type: ignore[assignment]
    read_rule = ActionRule(
        # Named as the agent calls it: a failed read says "'<tool>_preview' found nothing ...".
        name=f"{served_name}_preview",
        operation=preview_rule.read,
        description=None,
        params=(),
        source=preview_rule.read_source,
        operation_source=preview_rule.read_source,
    )
    read, diagnostics = _build_action(spec, tool, read_rule, auths)
    if read is None:
        return action, diagnostics
    # The preview compares whole records, so its read has no concise view and no paging (S1). Its
    # parameters are filled from the action's, under the names the mapping gave them (M231).
    read = replace(read, shape=None, paging=None, server_params=(), params=_read_params(read, action))
    diagnostics += _read_types_differ(read, action)
    if read.method not in READ_METHODS:
        diagnostics.append(
            error(
                "M230",
                f"preview.read of action '{action.name}' is {read.method} {read.path}, which changes state",
                preview_rule.read_source,
                hint="name a GET operation that returns the thing the action changes",
            )
        )
    given = {p.arg_name for p in action.params}
    for name in read.required_args:
        if name not in given:
            diagnostics.append(
                error(
                    "M231",
                    f"preview.read {read.method} {read.path} needs '{name}', which action '{action.name}' does not take",
                    preview_rule.read_source,
                    hint=f"the read operation's parameters are filled from the action's: {', '.join(sorted(given)) or 'none'}",
                )
            )
    rules = {r.name or r.wire_name: r for r in rule.params}
    compared: list[tuple[str, str]] = []
    guards: list[GuardSpec] = []
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
                    "M232",
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
    preview = PreviewSpec(
        read=read,
        ttl_minutes=preview_rule.ttl_minutes,
        approval=preview_rule.approval or DEFAULT_APPROVAL,
        compared=tuple(compared),
        guards=tuple(guards),
    )
    return replace(action, preview=preview), diagnostics


def _read_types_differ(read: ActionSpec, action: ActionSpec) -> list[Diagnostic]:
    """A read parameter the spec types other than the action parameter feeding it (hetzner.cloud.json:
    DELETE /volumes/{id} takes `id` as a string, GET /volumes/{id} as an integer): each operation is
    sent the agent's one value, which only a value both types allow fits."""
    feeding = {p.arg_name: p for p in action.params}
    found = []
    for param in read.params:
        source = feeding.get(param.arg_name)
        if source is None or json_type_of(source.schema) == json_type_of(param.schema):
            continue
        found.append(
            warning(
                "M243",
                f"preview.read {read.method} {read.path} types '{param.wire_name}' {json_type_of(param.schema)} "
                f"(at {param.source.pointer or param.source}), and action '{action.name}' types it "
                f"{json_type_of(source.schema)} (at {source.source.pointer or source.source}); the read is sent the "
                "agent's value as the action takes it",
                param.source,
                hint=f"describe '{param.arg_name}' so an agent passes a value both take (an id that is a whole "
                "number fits a string and an integer path parameter alike)",
            )
        )
    return found


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


def _preview_input_schema(action: ActionSpec) -> JsonSchema:
    """The action's parameters without `action`: the preview tool does one thing (S1)."""
    properties = {p.arg_name: dict(p.schema) for p in action.params}
    return {
        "type": "object",
        "properties": properties,
        "required": list(action.required_args),
        "additionalProperties": False,
    }


def _preview_description(rule: ToolRule, action: ActionSpec, apply_name: str) -> str:
    preview: PreviewSpec = action.preview  # type: ignore[assignment]
    # The mapping's own sentences (when not to use it, what it returns) hold for the preview too (T7).
    lines = [
        " ".join([rule.description.strip(), *_sections(rule)]),
        "",
        f"Preview: {_sentence(action.description)}",
    ]
    lines.append(
        "It reads the current state and returns the values before and after the change, and a preview_id "
        f"valid for {preview.ttl_minutes} minutes. Nothing changes until {apply_name} is called with that id."
    )
    for guard in preview.guards:
        lines.append(
            f"A {guard.arg_name} more than {guard.max_increase_pct:g}% above the current value is refused "
            "and needs approval."
        )
    return "\n".join(lines)


def _build_action(
    spec: Spec,
    tool: ToolRule,
    rule: ActionRule,
    auths: tuple[AuthRule, ...] = (),
    idempotency_body: str | None = None,
) -> tuple[ActionSpec | None, list[Diagnostic]]:
    operation = find_operation(spec, rule.operation)
    if operation is None:
        return None, [_unknown_operation(spec, rule)]
    diagnostics: list[Diagnostic] = []
    operation_params, body_encoding, found = _operation_params(spec, operation)
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
    lifted, lifted_found = nested_fields(spec, operation, rule, _body_schema(spec, operation), plain)
    diagnostics += lifted_found
    operation_params = _with_lifted(operation_params, lifted)
    rules_by_param, found = _match_rules(operation, operation_params, rule)
    diagnostics += found
    task, found = task_spec(operation, rule, tool)
    diagnostics += found
    sent = _credentials_sent(auths)
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
        kept, found = _kept_from_agent(spec, sent, param, param_rule, operation)
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
        built, default, found = _param_spec(param, param_rule, operation)
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
        params, fixed, {p.arg_name: r for r in rule.params for p in params if _rule_of(p, r)}
    )
    diagnostics += found
    results = plan_results(spec, operation, rule, params, defaults)  # R1-R3: formats and paging
    diagnostics += results.diagnostics
    params, defaults = list(results.params), list(results.defaults)
    diagnostics += _check_arg_names(params, operation)
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
    variants = _variant_specs(spec, operation, params)
    params = _described_variants(params, variants)
    return (
        ActionSpec(
            name=rule.name,
            description=_action_description(rule, operation),
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


def _kept_from_agent(
    spec: Spec,
    sent: frozenset[tuple[str, str]] | None,
    param: _OperationParam,
    rule: ParamRule | None,
    operation: Operation,
) -> tuple[bool | FixedValue, list[Diagnostic]]:
    """True when the parameter is the agent's to pass; False or the value the server sends when it is
    not (request_parts.py): a credential never is, a spec-global option only when the mapping names it,
    a required value the spec allows one of is sent as it is."""
    # The mapping's auth sends it (ExaVault's 'ev-api-key' header, with no security scheme in the spec):
    # a credential whatever its name, never the agent's (P3 credentials).
    sent_by_auth = sent is not None and (param.wire_name.lower(), param.location) in sent
    if sent_by_auth or is_credential(spec, param.wire_name, param.location, param.description):
        # Quiet when the server's credential covers it, or may (another kind of credential: Slack
        # takes its token as a bearer header too); loud when the mapping tries to keep it.
        quiet = (
            rule.hidden
            if rule is not None
            else sent is None or (param.wire_name.lower(), param.location) in sent
        )
        if quiet or (rule is None and not param.required):
            return False, []
        what = "names it in params" if rule is not None else "sends no credential in it (server.auth)"
        return False, [
            warning(
                "M302",
                f"parameter '{param.wire_name}' ({param.location}) of {operation.key} carries a credential, so it is "
                f"never a tool argument; the mapping {what}",
                rule.source if rule is not None else param.source,
                hint=f"let the server send it: auth: {{type: api_key, in: {param.location}, name: "
                f"{param.wire_name}, env: <VARIABLE>}}",
            )
        ]
    if rule is None and is_global(spec, param.wire_name, param.location):
        return False, []
    value = constant(param.location, param.required, param.schema)
    if rule is None and value is not UNSET:
        return FixedValue(wire_name=param.wire_name, location=param.location, value=value), []
    return True, []


def _auth_rules(mapping: Mapping) -> tuple[AuthRule, ...]:
    auth = mapping.server.auth
    return (auth, *mapping.server.extra_auth) if auth is not None else ()


def _credentials_sent(auths: tuple[AuthRule, ...]) -> frozenset[tuple[str, str]] | None:
    """The (lower-case name, location) pairs the server's own api keys go in; None when it also sends
    another kind of credential (a bearer token, a user and password)."""
    if any(auth.type != "api_key" for auth in auths):
        return None
    return frozenset(((auth.name or "").lower(), auth.location or "header") for auth in auths)


def agent_params(spec: Spec, operation: Operation, params: list[_OperationParam]) -> list[_OperationParam]:
    """The parameters an agent passes when the mapping says nothing about them (what init drafts for)."""
    return [p for p in params if _kept_from_agent(spec, None, p, None, operation)[0] is True]


def _described_variants(params: list[ParamSpec], variants: tuple[VariantSpec, ...]) -> list[ParamSpec]:
    """Each body argument of a oneOf/anyOf body says which form of the body needs or takes it (T2)."""
    if not variants:
        return params
    described = []
    for param in params:
        needing = [v.name for v in variants if param.arg_name in v.required]
        having = [v.name for v in variants if param.arg_name in v.args]
        note = ""
        if needing and len(needing) == len(variants):
            note = " Needed in every form of the body."
        elif needing:
            note = f" Needed in the body form {_quoted_names(needing)}."
        elif having and len(having) < len(variants):
            note = f" Only in the body form {_quoted_names(having)}."
        if note:
            schema = {**param.schema, "description": param.schema.get("description", "") + note}
            param = replace(param, schema=schema)
        described.append(param)
    return described


def _quoted_names(names: list[str]) -> str:
    return " or ".join(f"'{n}'" for n in names)


def _unknown_operation(spec: Spec, rule: ActionRule) -> Diagnostic:
    wanted = rule.operation.strip()
    method, _, path = wanted.partition(" ")
    if path.startswith("/"):
        options = [op.key for op in spec.operations]
        close = did_you_mean(f"{method.upper()} {path}", options)
        what = f"no operation '{method.upper()} {path}' in the spec"
    else:
        options = [op.operation_id for op in spec.operations if op.operation_id]
        close = did_you_mean(wanted, options)
        what = f"no operation with operationId '{wanted}' in the spec"
    hint = f"did you mean {close}?" if close else "run 'mcpgen validate' to list the spec's operations"
    return error("M201", what, rule.operation_source, hint=hint)


def _operation_params(
    spec: Spec, operation: Operation
) -> tuple[list[_OperationParam], BodyEncoding | None, list[Diagnostic]]:
    params: list[_OperationParam] = []
    notes: list[Diagnostic] = []
    for located in operation.parameters:
        raw = located.value
        location = cast(ParamLocation, str(raw.get("in")))  # openapi-pydantic allows OpenAPI's four only
        if location == "header" and str(raw.get("name", "")).lower() in _IGNORED_HEADERS:
            continue
        schema_located = _parameter_schema(located)
        schema = input_schema(schema_located, spec.resolver, notes=notes)
        style, explode = _wire_style(raw)
        if style is None and location == "query" and _has_object_type(schema.get("items") or {}):
            # OpenAPI defines no form serialization for a list of objects; APIs that take one in a
            # query (Box's `mdfilters`) read JSON text.
            style = "json"
        params.append(
            _OperationParam(
                wire_name=str(raw["name"]),
                location=location,
                required=bool(raw.get("required")) or location == "path",
                schema=schema,
                description=str(raw.get("description") or schema.get("description") or ""),
                example=_example(raw, schema_located),
                source=located.source,
                style=style,
                explode=explode,
            )
        )
    body_params, encoding, diagnostics = _body_params(spec, operation)
    return params + body_params, encoding, notes + diagnostics


def _wire_style(raw: dict[str, Any]) -> tuple[str | None, bool | None]:
    """OpenAPI's serialization of a parameter or a form field: `style`/`explode` as the spec states
    them, or 'json' for a parameter whose `content` is JSON (Box's `mdfilters`)."""
    style = raw.get("style") if isinstance(raw.get("style"), str) else None
    explode = raw.get("explode") if isinstance(raw.get("explode"), bool) else None
    content = raw.get("content")
    if style is None and isinstance(content, dict) and any("json" in str(m) for m in content):
        style = "json"
    return style, explode


def _body_schema(spec: Spec, operation: Operation) -> Located | None:
    """The request body's schema in the media type the server sends, for nested fields (nested.py)."""
    body = operation.request_body
    if body is None:
        return None
    media = _pick_media_type(body.value.get("content") or {})
    if media is None:
        return None
    located = body.child("content", media)
    if not isinstance(located.value, dict) or not isinstance(located.value.get("schema"), dict):
        return None
    return spec.resolver.deref(located.child("schema"))


def _with_lifted(params: list[_OperationParam], lifted: list[NestedField]) -> list[_OperationParam]:
    """The operation's parameters with each nested field the mapping names as one of its own, and the
    object it sits in without it (an object left with no field goes)."""
    if not lifted:
        return params
    out: list[_OperationParam] = []
    for param in params:
        paths = [f.path[1:] for f in lifted if param.location == "body" and f.path[0] == param.wire_name]
        if not paths:
            out.append(param)
            continue
        schema = without_fields(param.schema, paths)
        if schema is not None:
            out.append(
                replace(param, schema=schema, required=param.required and schema.get("type") == "object")
            )
        for field in (f for f in lifted if f.path[0] == param.wire_name):
            out.append(
                _OperationParam(
                    wire_name=".".join(field.path),
                    location="body",
                    required=param.required and field.required,
                    schema=field.schema,
                    description=field.description,
                    example=field.example,
                    source=field.source,
                    path=field.path,
                )
            )
    return out


def _rule_of(param: ParamSpec, rule: ParamRule) -> bool:
    return rule.wire_name == param.wire_path and (rule.location in (None, "body") or not param.path)


def operation_params(
    spec: Spec, operation: Operation
) -> tuple[list[_OperationParam], BodyEncoding | None, list[Diagnostic]]:
    """An operation's parameters before any mapping rule applies, exactly as the build sees them.

    `mcpgen init` uses this to name parameters the way the build will, and to foresee its errors
    (errors only: a warning, such as a nested part cut at the depth budget, still builds).
    Credentials, the spec's global options and its one-value parameters are not among them.
    """
    params, encoding, found = _operation_params(spec, operation)
    errors = [d for d in found if d.level >= Level.ERROR]
    return agent_params(spec, operation, params), encoding, errors


def _parameter_schema(located: Located) -> Located | None:
    raw = located.value
    if isinstance(raw.get("schema"), dict):
        return located.child("schema")
    content = raw.get("content")
    if isinstance(content, dict) and content:
        media = next(iter(content))
        if isinstance(content[media], dict) and isinstance(content[media].get("schema"), dict):
            return located.child("content", media, "schema")
    return None


def _body_params(
    spec: Spec, operation: Operation
) -> tuple[list[_OperationParam], BodyEncoding | None, list[Diagnostic]]:
    body = operation.request_body
    if body is None:
        return [], None, []
    content = body.value.get("content") or {}
    media = _pick_media_type(content)
    if media is None:
        kinds = ", ".join(sorted(content)) or "no content"
        return (
            [],
            None,
            [
                error(
                    "M211",
                    f"{operation.key} takes a request body of {kinds}; generated servers send JSON or form bodies only",
                    body.source,
                    hint="map another operation, or leave this one unmapped",
                )
            ],
        )
    encoding: BodyEncoding = "json" if media not in _FORM_TYPES else "form"
    media_located = body.child("content", media)
    if not isinstance(media_located.value, dict) or not isinstance(media_located.value.get("schema"), dict):
        return [], encoding, []
    schema_located = spec.resolver.deref(media_located.child("schema"))
    notes: list[Diagnostic] = _required_read_only(operation, schema_located, spec)
    schema = input_schema(schema_located, spec.resolver, depth=BODY_DEPTH, notes=notes)
    # OpenAPI: `requestBody.required` defaults to false, so the body may be left out; a body that is
    # sent still has the fields its schema requires (the server checks them then: body_requires).
    body_required = bool(body.value.get("required"))
    properties = schema.get("properties")
    field_encoding = media_located.value.get("encoding")
    if _has_object_type(schema) and isinstance(properties, dict) and properties:
        required = set(schema.get("required") or ())
        return (
            [
                _OperationParam(
                    wire_name=name,
                    location="body",
                    required=name in required and body_required,
                    schema=prop,
                    description=lean_text(str(prop.get("description") or ""), 120),
                    example=_property_example(spec, schema_located, name),
                    source=schema_located.source,
                    required_with_body=name in required and not body_required,
                    **_form_style(encoding, field_encoding, name),
                )
                for name, prop in properties.items()
            ],
            encoding,
            notes,
        )
    if _untyped(schema) and _offers_fields(schema_located, spec):
        notes.append(
            warning(
                "M242",
                f"the request body of {operation.key} has no fields or type the tool's schema can show "
                f"({rule_name('T6')}); the agent is told only that it is an object",
                schema_located.source,
                hint="the agent can still pass the body as one object: name its fields in the action's "
                "description so the model knows what to send",
            )
        )
    whole = _OperationParam(
        wire_name="body",
        location="body_whole",
        required=body_required,
        schema=schema,
        description=str(body.value.get("description") or schema.get("description") or "The request body."),
        example=None,
        source=body.source,
    )
    return [whole], encoding, notes


def _required_read_only(operation: Operation, schema: Located, spec: Spec) -> list[Diagnostic]:
    """Fields the request body's schema both requires and marks readOnly: OpenAPI keeps readOnly fields out
    of requests, so the body is sent without them. payments.service.gov.uk/payments.json
    #/components/schemas/CreateCardPaymentRequest requires amount, description, reference and return_url,
    every one readOnly: POST /v1/payments lost them without a word."""
    raw = schema.value
    properties = raw.get("properties") if isinstance(raw, dict) else None
    if not isinstance(properties, dict):
        return []
    dropped = [
        name
        for name in raw.get("required") or ()
        if name in properties
        and isinstance(properties[name], dict)
        and spec.resolver.deref(schema.child("properties", name)).value.get("readOnly") is True
    ]
    if not dropped:
        return []
    return [
        warning(
            "M244",
            f"the request body of {operation.key} requires {', '.join(dropped)}, which its schema marks readOnly; "
            "readOnly fields are never sent in a request, so the tool does not take them and the body goes out "
            "without them",
            spec.resolver.deref(schema.child("properties", dropped[0])).source,
            hint="if the API needs them, the spec's readOnly is wrong: correct it in your copy of the spec; "
            "otherwise leave the action out of the mapping",
        )
    ]


def _has_object_type(schema: JsonSchema) -> bool:
    return schema.get("type") == "object"


def _offers_fields(located: Located, spec: Spec) -> bool:
    """The spec's body schema names fields, itself or in a oneOf/anyOf/allOf branch: an untyped
    body then lost them (an empty `{}` body has nothing to lose)."""
    raw = located.value
    if not isinstance(raw, dict):
        return False
    if raw.get("properties"):
        return True
    for keyword in ("oneOf", "anyOf", "allOf"):
        branches = raw.get(keyword)
        if isinstance(branches, list):
            for index in range(len(branches)):
                branch = spec.resolver.deref(located.child(keyword, index)).value
                if isinstance(branch, dict) and (branch.get("properties") or branch.get("allOf")):
                    return True
    return False


def _untyped(schema: JsonSchema) -> bool:
    """Nothing the agent can read: no type, or an object with no fields and no map of values."""
    if "type" not in schema:
        return True
    return (
        schema.get("type") == "object"
        and not schema.get("properties")
        and not isinstance(schema.get("additionalProperties"), dict)
    )


def _form_style(encoding: BodyEncoding, field_encoding: Any, name: str) -> dict[str, Any]:
    """A form field's `encoding` entry (style/explode); JSON bodies carry structure as it is."""
    if encoding != "form" or not isinstance(field_encoding, dict):
        return {}
    entry = field_encoding.get(name)
    if not isinstance(entry, dict):
        return {}
    style, explode = _wire_style(entry)
    return {"style": style, "explode": explode}


def _variant_specs(spec: Spec, operation: Operation, params: list[ParamSpec]) -> tuple[VariantSpec, ...]:
    """The body's oneOf/anyOf branches in the agent's argument names (T2)."""
    body = operation.request_body
    if body is None:
        return ()
    content = body.value.get("content") or {}
    media = _pick_media_type(content)
    if media is None or not isinstance(content.get(media), dict) or "schema" not in content[media]:
        return ()
    variants = body_variants(body.child("content", media, "schema"), spec.resolver)
    by_wire = {p.wire_name: p.arg_name for p in params if p.location == "body"}
    return tuple(
        VariantSpec(
            name=v.name,
            args=tuple(by_wire[f] for f in v.fields if f in by_wire),
            required=tuple(by_wire[f] for f in v.required if f in by_wire),
        )
        for v in variants
    )


def _pick_media_type(content: dict[str, Any]) -> str | None:
    for media in content:
        base = media.split(";")[0].strip().lower()
        if base in _JSON_TYPES or base.endswith("+json"):
            return media
    for media in content:
        if media.split(";")[0].strip().lower() in _FORM_TYPES:
            return media
    return None


def _example(raw: dict[str, Any], schema_located: Located | None) -> Any:
    if "example" in raw:
        return raw["example"]
    examples = raw.get("examples")
    if isinstance(examples, dict):
        for value in examples.values():
            if isinstance(value, dict) and "value" in value:
                return value["value"]
    if schema_located is not None and isinstance(schema_located.value, dict):
        schema = schema_located.value
        if "example" in schema:
            return schema["example"]
        if isinstance(schema.get("examples"), list) and schema["examples"]:
            return schema["examples"][0]
    return None


def _property_example(spec: Spec, schema_located: Located, name: str) -> Any:
    properties = schema_located.value.get("properties") if isinstance(schema_located.value, dict) else None
    if not isinstance(properties, dict) or name not in properties:
        return None
    prop = spec.resolver.deref(schema_located.child("properties", name))
    return _example({}, prop)


def _match_rules(
    operation: Operation, params: list[_OperationParam], rule: ActionRule
) -> tuple[dict[tuple[str, str], ParamRule], list[Diagnostic]]:
    by_param: dict[tuple[str, str], ParamRule] = {}
    diagnostics: list[Diagnostic] = []
    for param_rule in rule.params:
        matches = [
            p
            for p in params
            if p.wire_name == param_rule.wire_name
            and (param_rule.location is None or _location_matches(p.location, param_rule.location))
        ]
        if not matches and is_nested_key(param_rule):  # nested_fields took it
            continue  # nested.py said what is wrong with it
        if not matches:
            names = [p.wire_name for p in params]
            close = did_you_mean(param_rule.wire_name, names)
            listed = ", ".join(names) or "none"
            diagnostics.append(
                error(
                    "M203",
                    f"'{param_rule.key}' is not a parameter of {operation.key}",
                    param_rule.source,
                    hint=(f"did you mean {close}? " if close else "") + f"its parameters are: {listed}",
                )
            )
        elif len(matches) > 1:
            places = ", ".join(f"{m.location}.{m.wire_name}" for m in matches)
            diagnostics.append(
                error(
                    "M204",
                    f"'{param_rule.key}' names more than one parameter of {operation.key} ({places})",
                    param_rule.source,
                    hint="qualify the key with its location, e.g. 'query.id' or 'body.id'",
                )
            )
        else:
            by_param[(matches[0].wire_name, matches[0].location)] = param_rule
    return by_param, diagnostics


def _location_matches(actual: str, wanted: str) -> bool:
    return actual == wanted or (wanted == "body" and actual == "body_whole")


def _param_spec(
    param: _OperationParam, rule: ParamRule | None, operation: Operation
) -> tuple[ParamSpec, Any, list[Diagnostic]]:
    diagnostics: list[Diagnostic] = []
    unit_rule = rule.unit if rule else None
    arg_name = rule.name if rule and rule.name else snake_case(param.wire_name.replace(".", "_"))
    if unit_rule is not None and not (rule and rule.name) and unit_rule.agent != "major":
        arg_name = f"{arg_name}_{unit_rule.agent}"
    source = rule.source if rule else param.source
    if arg_name in RESERVED_ARGS:
        diagnostics.append(
            error(
                "M205",
                f"parameter '{param.wire_name}' of {operation.key} would be called '{arg_name}', a name every tool "
                "already uses for its action",
                source,
                hint=f"rename it in the mapping:  params: {{{param.wire_name}: {{name: {arg_name}_value}}}}",
            )
        )
    default = rule.default if rule else UNSET
    required = param.required if rule is None or rule.required is None else rule.required
    if default is not UNSET:
        required = False
    mismatch = (
        renamed_unit_mismatch(arg_name, param.wire_name, param.description, rule)
        if rule and rule.name
        else None
    )
    diagnostics += [mismatch] if mismatch else []
    # Every date-time is checked, as the spec allows it: with its offset, or local beside a time zone.
    param = replace(param, schema=with_local_times(with_date_time_format(param.schema, param.description)))
    schema = dict(param.schema)
    schema.pop("description", None)
    unit = None
    if unit_rule is not None:
        unit, found = unit_spec(param.schema, param.wire_name, unit_rule, arg_name)
        diagnostics += found
        if unit is not None:
            schema = in_agent_units(schema, unit)
            param = replace(param, example=to_agent_units(param.example, unit) if unit.factor else None)
    if default is not UNSET:
        schema["default"] = default
    schema["description"] = _param_description(param, rule, arg_name, schema.get("default", UNSET), unit)
    return (
        ParamSpec(
            arg_name=arg_name,
            wire_name=param.path[0] if param.path else param.wire_name,
            location=param.location,
            required=required,
            schema=schema,
            source=source,
            unit=unit,
            path=param.path[1:],
            style=param.style,
            explode=param.explode,
        ),
        default,
        diagnostics,
    )


def _param_description(
    param: _OperationParam, rule: ParamRule | None, arg_name: str, default: Any, unit: UnitSpec | None = None
) -> str:
    """What it is, its unit or time format, an example value and the default (T5, T7)."""
    text = (rule.description if rule and rule.description else None) or lean_text(param.description, 200)
    if not text:
        text = f"The {arg_name.replace('_', ' ')}."
    text = text.rstrip()
    if not text.endswith((".", "!", "?")):
        text += "."
    if unit is not None:
        text = unit_description(text, unit, own_words=bool(rule and rule.description))
    if param.schema.get("format") == "date-time":
        text += f" {DATE_TIME_NOTE}"
    if param.example is not None and "xample" not in text:
        text += f" Example: {_show(param.example)}."
    if default is not UNSET and "efault" not in text:
        text += f" Default: {_show(default)}."
    return text


# T5: absolute times with an offset only; the server refuses anything else (validation.py).
DATE_TIME_NOTE = (
    "An ISO 8601 date-time with a UTC offset, such as 2026-11-01T09:00:00+09:00 or 2026-11-01T00:00:00Z; "
    "relative values such as 'tomorrow' are refused."
)


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _check_arg_names(params: list[ParamSpec], operation: Operation) -> list[Diagnostic]:
    diagnostics = []
    seen: dict[str, ParamSpec] = {}
    for param in params:
        if not ARG_NAME_PATTERN.match(param.arg_name):
            diagnostics.append(
                error("M212", f"'{param.arg_name}' is not a valid parameter name", param.source)
            )
        if param.arg_name in seen:
            other = seen[param.arg_name]
            diagnostics.append(
                error(
                    "M206",
                    f"{operation.key} has two parameters that would both be called '{param.arg_name}' "
                    f"({other.location}.{other.wire_name} and {param.location}.{param.wire_name})",
                    param.source,
                    hint=f"rename one:  params: {{{param.location}.{param.wire_name}: {{name: ...}}}}",
                )
            )
        seen[param.arg_name] = param
    return diagnostics


def _check_shared_params(rule: ToolRule, actions: list[ActionSpec]) -> list[Diagnostic]:
    """T2 flattens all actions' parameters into one set, so a shared name must mean one type."""
    first: dict[str, tuple[ActionSpec, ParamSpec]] = {}
    diagnostics = []
    for action in actions:
        for param in action.params:
            if param.arg_name not in first:
                first[param.arg_name] = (action, param)
                continue
            other_action, other = first[param.arg_name]
            mine, theirs = _meaning(param), _meaning(other)
            if mine != theirs:
                diagnostics.append(
                    error(
                        "M207",
                        f"parameter '{param.arg_name}' of tool '{rule.name}' is {mine} in action "
                        f"'{action.name}' but {theirs} in action '{other_action.name}'",
                        action.source,
                        hint=f"one tool has one flat parameter set ({rule_name('T2')}): rename one of them in "
                        "its action's params",
                    )
                )
    return diagnostics


def _meaning(param: ParamSpec) -> str:
    """What a shared argument must agree on across actions: its type and its unit. Other
    constraints (an enum, a format, a bound) may differ: the flat property takes the union, and the server
    checks each action's own (`_with_own_schemas`)."""
    meaning = json_type_of(param.schema)
    if param.unit is not None:
        meaning += f" in {param.unit.agent} (sent as {param.unit.upstream})"
    return meaning


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
                (mine.get(name) or theirs[name])
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


def _tool_properties(actions: list[ActionSpec]) -> dict[str, JsonSchema]:
    action_names = [a.name for a in actions]
    properties: dict[str, JsonSchema] = {
        "action": {
            "type": "string",
            "enum": action_names,
            # The tool description already says what each action does and needs; saying it again here
            # doubled the definition tokens of big servers (T3) without telling the agent anything new.
            "description": "What to do: one of the actions the tool description lists.",
        }
    }
    needed: set[str] = set()
    shared = _shared_schemas(actions)
    for action in actions:
        for param in (*action.params, *action.server_params):
            if param.arg_name not in properties:
                properties[param.arg_name] = _with_values_by_action(
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
            "description": _confirm_description(value, names, [a.name for a in confirming if a.confirm_user]),
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


def _with_values_by_action(schema: JsonSchema, actions: list[ActionSpec], arg_name: str) -> JsonSchema:
    """A joined enum says which action takes which values (T2, T7)."""
    own = [(a.name, p) for a in actions for p in a.params if p.arg_name == arg_name]
    if all(p.check_schema is None for _, p in own):
        return schema
    listed = [
        (name, values)
        for name, p in own
        if isinstance(values := p.schema.get("enum") or (p.schema.get("items") or {}).get("enum"), list)
    ]
    if not listed:
        return schema
    by_action = "; ".join(f"{name}: {', '.join(_show(v) for v in values)}" for name, values in listed)
    description = str(schema.get("description", "")).rstrip()
    return {**schema, "description": f"{description} Values by action: {by_action}.".lstrip()}


def _action_description(rule: ActionRule, operation: Operation) -> str:
    if rule.description:
        return rule.description
    if operation.summary:
        return _sentence(operation.summary)
    if operation.description:
        return _first_sentence(short_text(operation.description, 200))
    return f"Calls {operation.key}."


# The description's sections a mapping may write (T7), and how each is introduced.
_SECTIONS = (
    ("use_when", "Use it when"),
    ("not_for", "Not for"),
    ("returns", "Returns"),
    ("does_not_return", "Does not return"),
)


def _tool_description(rule: ToolRule, actions: list[ActionSpec], properties: dict[str, JsonSchema]) -> str:
    """The mapping's text and sections, then each action with what it needs and its defaults (T7).

    Every generated sentence is a plain statement: no capitals for emphasis, nothing a model would
    over-trigger on.
    """
    text = " ".join([rule.description.strip(), *_sections(rule), *filter(None, [asking_note(actions)])])
    if not rule.list_actions:
        return text
    lines = [text, "", "Actions:"]
    for action in actions:
        needs = f" Needs: {', '.join(action.required_args)}." if action.required_args else ""
        if action.body_requires:
            needs += f" With any body argument, also needs: {', '.join(action.body_requires)}."
        if action.variants:
            forms = ", ".join(
                f"'{v.name}'" + (f" (needs {', '.join(v.required)})" if v.required else "")
                for v in action.variants
            )
            needs += f" Its body takes one of these forms: {forms}."
        lines.append(
            f"- {action.name}: {_sentence(action.description)}{needs}{_defaults_note(action, properties)}"
        )
    return "\n".join(lines)


def _sections(rule: ToolRule) -> list[str]:
    sentences = []
    for key, lead in _SECTIONS:
        value = getattr(rule, key)
        if value:
            first, rest = value[0], value[1:]
            starts_with_lead = value.lower().startswith(lead.lower())
            sentences.append(_sentence(value if starts_with_lead else f"{lead} {first.lower()}{rest}"))
    return sentences


def _defaults_note(action: ActionSpec, properties: dict[str, JsonSchema]) -> str:
    """The values an action uses when the agent leaves them out (the mapping's and the spec's), less
    those its parameter's schema already states: a tool has one flat parameter set, so a default is
    said here only where this action's differs (T3, T7)."""
    defaults = dict(action.defaults)
    for param in action.params:
        if "default" in param.schema:
            defaults.setdefault(param.arg_name, param.schema["default"])
    defaults = {
        name: value
        for name, value in defaults.items()
        if "default" not in properties.get(name, {}) or properties[name]["default"] != value
    }
    if not defaults:
        return ""
    return " Defaults: " + ", ".join(f"{name} {_show(value)}" for name, value in defaults.items()) + "."


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text if text.endswith((".", "!", "?")) else text + "."


def _first_sentence(text: str) -> str:
    text = _sentence(text)
    for end in (". ", "! ", "? "):
        if end in text:
            return text[: text.index(end) + 1]
    return text


def _access(mapping: Mapping) -> AccessSpec | None:
    rule = mapping.server.access
    if rule is None:
        return None
    return AccessSpec(issuer=rule.issuer, audience=rule.audience, scopes=rule.scopes)


def _auth(rule: AuthRule | None) -> AuthSpec | None:
    if rule is None:
        return None
    return AuthSpec(kind=rule.type, env=rule.env, location=rule.location, param_name=rule.name)  # type: ignore[arg-type]


def _check_auth(spec: Spec, mapping: Mapping) -> list[Diagnostic]:
    schemes = spec.security_schemes()
    if schemes and mapping.server.auth is None:
        names = ", ".join(sorted(schemes))
        return [
            info(
                "M301",
                f"the spec declares security schemes ({names}) but the mapping sets no server.auth; "
                "the server will send no credentials",
                mapping.server.source,
                hint="add for example:  auth: {type: bearer, env: MYAPI_TOKEN}",
            )
        ]
    return []


def _check_hook_names(server: str, tools: list[ToolSpec]) -> list[Diagnostic]:
    """Names with double underscores can still meet: tool 'a' action 'b__c', tool 'a__b' action 'c'."""
    seen: dict[str, str] = {}
    diagnostics = []
    for tool in tools:
        for action in tool.actions:
            before, _ = hook_names(server, tool.name, action.name)
            owner = f"{tool.name} action '{action.name}'"
            if before in seen:
                diagnostics.append(
                    error(
                        "M213",
                        f"{owner} and {seen[before]} would share the hooks {before}/after_...",
                        action.source,
                        hint="rename one of the two actions",
                    )
                )
            seen.setdefault(before, owner)
    return diagnostics


def _spec_base_url(spec: Spec) -> str:
    for url in spec.servers:
        if url.startswith(("http://", "https://")) and "{" not in url:
            return url
    return ""
