"""Pure: (OpenAPI spec, mapping) -> (ServerSpec, diagnostics). Every decision about the tools is made in
mcpgen/build; this module assembles the server from the tools (tools.py) and the server-wide checks (checks.py)."""

from __future__ import annotations

from dataclasses import dataclass

from mcpgen.build.checks import check_auth, check_hook_names
from mcpgen.build.contract_facts import with_contract_facts
from mcpgen.build.discovery import check_discovery_names
from mcpgen.build.failures import server_errors, with_failures
from mcpgen.build.fingerprints import (
    Canonicalizer,
    fingerprint_tools,
    mapping_fingerprint,
    spec_operation_fingerprints,
)
from mcpgen.build.guidance import with_guidance
from mcpgen.build.hosts import with_own_hosts
from mcpgen.build.regeneration import PreviousLock, regeneration_diagnostics
from mcpgen.build.result_units import with_result_units
from mcpgen.build.runtime_modules import runtime_left_out
from mcpgen.build.server_info import check_server_info_name
from mcpgen.build.tools import build_tool
from mcpgen.diagnostics import Diagnostic, has_errors
from mcpgen.ir import AccessSpec, AuthSpec, ServerSpec, ToolSpec
from mcpgen.load.mapping import Mapping, ToolRule
from mcpgen.load.mapping_auth import AuthRule
from mcpgen.load.openapi import Spec, problems_for
from mcpgen.names import distribution_name, package_name
from mcpgen.version import __version__


@dataclass(frozen=True, slots=True)
class BuildResult:
    server: ServerSpec | None
    diagnostics: tuple[Diagnostic, ...]


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
    tools, used, diagnostics = _checked_tools(spec, mapping, previous)
    if has_errors(diagnostics):
        return BuildResult(None, tuple(diagnostics))
    discovery = mapping.server.discovery == "search_tools"
    server_rule = mapping.server
    base_url_default = server_rule.base_url_default or _spec_base_url(spec)
    canon = Canonicalizer(spec.resolver)  # C1: what each tool was built from, for tools.lock.json
    tools = with_contract_facts(fingerprint_tools(with_guidance(tools), spec, mapping, canon), spec, mapping)
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
        unmapped_operations=_unmapped(spec, used),
        mcpgen_version=__version__,
        spec_operations=spec_operation_fingerprints(canon, spec),
        mapping_fingerprint=mapping_fingerprint(mapping, "/server"),
        discovery=discovery,
        server_info=server_rule.server_info,
        output_schemas=server_rule.output_schemas,
        max_result_tokens=server_rule.max_result_tokens,
        max_body_bytes=server_rule.max_body_bytes,
        files_read=server_rule.files_read,
        access=_access(mapping),
        idempotency_header=server_rule.idempotency_header,
        headers=server_rule.headers,
        errors=server_errors(mapping),
        runtime_left_out=runtime_left_out(
            tools,
            access=mapping.server.access is not None,
            discovery=discovery,
            server_info=server_rule.server_info,
            auth_kind=server_rule.auth.type if server_rule.auth else None,
        ),
    )
    return BuildResult(server, tuple(diagnostics))


def check_build(spec: Spec, mapping: Mapping) -> tuple[Diagnostic, ...]:
    """What `build_server` reports, without assembling the server: every diagnostic comes from the
    tools and the server-wide checks; what follows them (fingerprints, contract facts, hosts) only
    annotates tools that built. For `mcpgen init`, which checks that the draft it wrote builds."""
    return tuple(_checked_tools(spec, mapping, None)[2])


def _checked_tools(
    spec: Spec, mapping: Mapping, previous: PreviousLock | None
) -> tuple[list[ToolSpec], set[str], list[Diagnostic]]:
    """The tools built from the mapping, the operations they use ('METHOD /path'), and every
    diagnostic of the build."""
    diagnostics: list[Diagnostic] = []
    built: list[tuple[ToolRule, ToolSpec]] = []
    used: set[str] = set()
    for tool_rule in mapping.tools:
        tool, found = build_tool(spec, mapping, tool_rule)
        diagnostics += found
        if tool is not None:
            built.append((tool_rule, tool))
            used.update(f"{a.method} {a.path}" for a in tool.actions)
    diagnostics = regeneration_diagnostics(diagnostics, spec, mapping, previous)
    # T5: results in the agent's units where they share the converted parameter's schema
    tools, found = with_result_units(spec, built)
    diagnostics += found
    tools, found = with_failures(tools, spec, mapping)  # E2, E3: failures inside a 2xx answer; error codes
    diagnostics += found
    diagnostics += problems_for(
        spec, [op for op in spec.operations if f"{op.method} {op.path}" in used]
    )  # the spec's invalid parts: an error only where a mapped operation uses one
    diagnostics += check_auth(spec, mapping, mapping.server.base_url_default or _spec_base_url(spec))
    diagnostics += _check_server_names(mapping, tools)
    return tools, used, diagnostics


def _check_server_names(mapping: Mapping, tools: list[ToolSpec]) -> list[Diagnostic]:
    """Names the server adds of its own (hooks, the server-info tool, the discovery meta-tools) that
    a mapped tool would take."""
    rule = mapping.server
    names = [t.name for t in tools]
    found = check_hook_names(rule.name, tools)
    if rule.server_info:
        found += check_server_info_name(rule.name, names, rule.source)
    if rule.discovery == "search_tools":
        found += check_discovery_names(rule.name, names, rule.source)
    return found


def _unmapped(spec: Spec, used: set[str]) -> tuple[str, ...]:
    """'METHOD /path (operationId)' of every operation no action maps, for the report."""
    return tuple(
        f"{op.method} {op.path}" + (f" ({op.operation_id})" if op.operation_id else "")
        for op in spec.operations
        if op.key not in used
    )


def _access(mapping: Mapping) -> AccessSpec | None:
    rule = mapping.server.access
    if rule is None:
        return None
    return AccessSpec(issuer=rule.issuer, audience=rule.audience, scopes=rule.scopes)


def _auth(rule: AuthRule | None) -> AuthSpec | None:
    if rule is None:
        return None
    return AuthSpec(
        kind=rule.type,  # type: ignore[arg-type]
        env=rule.env,
        location=rule.location,  # type: ignore[arg-type]
        param_name=rule.name,
        prefix=rule.prefix,
        token_url=rule.token_url,
        authorization_url=rule.authorization_url,
        revocation_url=rule.revocation_url,
        scopes=rule.scopes,
        client_id_env=rule.client_id_env,
        client_secret_env=rule.client_secret_env,
        allow_insecure=rule.allow_insecure,
    )


def _spec_base_url(spec: Spec) -> str:
    for url in spec.servers:
        if url.startswith(("http://", "https://")) and "{" not in url:
            return url
    return ""
