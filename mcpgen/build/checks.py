"""Checks on the mapping against the spec and on the tools built from it, as diagnostics."""

from __future__ import annotations

import re
from collections.abc import Sequence

from mcpgen import codes
from mcpgen.build.schemas import json_type_of
from mcpgen.diagnostics import Diagnostic, SourceRef, error, info, rule_name, warning
from mcpgen.ir import ActionSpec, ParamSpec, ToolSpec
from mcpgen.load.mapping import ActionRule, Mapping, ToolRule, did_you_mean
from mcpgen.load.openapi import Operation, Spec
from mcpgen.names import ARG_NAME_PATTERN, READ_METHODS, hook_names


def check_auth(spec: Spec, mapping: Mapping, base_url: str) -> list[Diagnostic]:
    schemes = spec.security_schemes()
    if mapping.server.auth is not None:
        return _insecure_credentials(mapping, base_url)
    if schemes:
        names = ", ".join(sorted(schemes))
        return [
            info(
                codes.M301,
                f"the spec declares security schemes ({names}) but the mapping sets no server.auth; "
                "the server will send no credentials",
                mapping.server.source,
                hint="add for example:  auth: {type: bearer, env: MYAPI_TOKEN}",
            )
        ]
    return []


def _insecure_credentials(mapping: Mapping, base_url: str) -> list[Diagnostic]:
    """A credential the server would send over plain http:// to another machine: anyone on the way
    reads it (P3 credentials). The server refuses to send it; the build says so first."""
    found: list[Diagnostic] = []
    for auth in (mapping.server.auth, *mapping.server.extra_auth):
        if auth is None or auth.allow_insecure:
            continue
        urls = [
            ("the base URL", base_url),
            ("token_url", auth.token_url),
            ("authorization_url", auth.authorization_url),
        ]
        for what, url in urls:
            if url and insecure_url(url):
                found.append(
                    warning(
                        codes.M303,
                        f"{what} {url} is plain http:// to another machine, so the server will refuse to send "
                        "the credential there",
                        mapping.server.source,
                        hint="use https://, or set allow_insecure: true on server.auth if the network is trusted",
                    )
                )
    return found


_LOOPBACK = re.compile(r"^(localhost|127(\.\d{1,3}){3}|\[::1\])$", re.IGNORECASE)


def insecure_url(url: str) -> bool:
    """Plain http:// to a host other than this machine."""
    scheme, _, rest = url.partition("://")
    host = re.split(r"[/?#]", rest, maxsplit=1)[0].rpartition("@")[2]
    host = host if host.startswith("[") else host.split(":")[0]
    return scheme.lower() == "http" and not _LOOPBACK.match(host)


def check_hook_names(server: str, tools: list[ToolSpec]) -> list[Diagnostic]:
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
                        codes.M213,
                        f"{owner} and {seen[before]} would share the hooks {before}/after_...",
                        action.source,
                        hint="rename one of the two actions",
                    )
                )
            seen.setdefault(before, owner)
    return diagnostics


def unknown_operation(spec: Spec, rule: ActionRule) -> Diagnostic:
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
    return error(codes.M201, what, rule.operation_source, hint=hint)


def check_arg_names(params: list[ParamSpec], operation: Operation) -> list[Diagnostic]:
    diagnostics = []
    seen: dict[str, ParamSpec] = {}
    for param in params:
        if not ARG_NAME_PATTERN.match(param.arg_name):
            diagnostics.append(
                error(codes.M212, f"'{param.arg_name}' is not a valid parameter name", param.source)
            )
        if param.arg_name in seen:
            other = seen[param.arg_name]
            diagnostics.append(
                error(
                    codes.M206,
                    f"{operation.key} has two parameters that would both be called '{param.arg_name}' "
                    f"({other.location}.{other.wire_name} and {param.location}.{param.wire_name})",
                    param.source,
                    hint=f"rename one:  params: {{{param.location}.{param.wire_name}: {{name: ...}}}}",
                )
            )
        seen[param.arg_name] = param
    return diagnostics


def check_shared_params(rule: ToolRule, actions: list[ActionSpec]) -> list[Diagnostic]:
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
                        codes.M207,
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


def read_types_differ(read: ActionSpec, action: ActionSpec) -> list[Diagnostic]:
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
                codes.M243,
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


def check_confirm_name(
    rule: ActionRule, operation: Operation, params: Sequence[ParamSpec]
) -> list[Diagnostic]:
    """confirm_param adds an argument called 'confirm': no parameter of the action may have that name."""
    if not rule.confirm_param or not any(p.arg_name == "confirm" for p in params):
        return []
    return [
        error(
            codes.M233,
            f"{operation.key} has a parameter that would be called 'confirm', the name confirm_param uses",
            rule.source,
            hint="rename that parameter in the action's params",
        )
    ]


def check_preview_read(
    read: ActionSpec, action: ActionSpec, source: SourceRef, marked: frozenset[tuple[str, str]] = frozenset()
) -> list[Diagnostic]:
    """A preview's read (S1) changes nothing: a GET, or an operation the mapping marks read-only where
    it maps it (an RPC-style API reads by POST); and the action's arguments fill every parameter it needs."""
    diagnostics = []
    if read.method not in READ_METHODS and (read.method, read.path) not in marked:
        diagnostics.append(
            error(
                codes.M230,
                f"preview.read of action '{action.name}' is {read.method} {read.path}, which changes state",
                source,
                hint="name a GET operation that returns the thing the action changes; a read sent by "
                "POST qualifies once an action maps it with hints: {read_only: true}",
            )
        )
    given = {p.arg_name for p in action.params}
    for name in read.required_args:
        if name not in given:
            diagnostics.append(
                error(
                    codes.M231,
                    f"preview.read {read.method} {read.path} needs '{name}', which action '{action.name}' does not take",
                    source,
                    hint=f"the read operation's parameters are filled from the action's: {', '.join(sorted(given)) or 'none'}",
                )
            )
    return diagnostics
