"""tools.lock.json: the tool contract and where each part of it came from, as canonical JSON (C1).

Per tool it holds what tools/list serves (name, title, description, inputSchema, annotations). Per
action it holds the operation it calls, the agent-visible parameters, the pointers of the mapping rule
and the spec operation, and their fingerprints (see `fingerprints.py`). `spec_operations` fingerprints
every operation of the spec, mapped or not. Reviewers read its diff in pull requests; `mcpgen diff`
reads two of them and explains the difference.
"""

from __future__ import annotations

from typing import Any

from mcpgen.ir import (
    ActionSpec,
    ContractFacts,
    Deprecation,
    Fingerprint,
    OperationFingerprint,
    ParamFacts,
    ParamSpec,
    ServerSpec,
    UnitSpec,
)
from mcpgen.jsontext import as_text, indented_json, written_json

LOCK_FILE = "tools.lock.json"
LOCK_VERSION = 1


def lock_document(server: ServerSpec, contract: list[dict[str, Any]]) -> dict[str, Any]:
    """`contract` is every tool definition as tools.json holds it (a provider profile applied, the
    discovery meta-tools included); the meta-tools come from no action or rule of their own."""
    specs = {name: tool for tool in server.tools for name in tool.served_names}
    tools = []
    for entry in contract:
        tool = specs.get(entry["name"])
        tools.append(
            {
                **entry,
                "actions": [_action(action) for action in tool.actions] if tool else [],
                "mapping": _fingerprint(tool.mapping_fingerprint) if tool else None,
            }
        )
    return {
        "lock_version": LOCK_VERSION,
        "generator": f"mcpgen {server.mcpgen_version}",
        "server": {
            "name": server.name,
            "package": server.package_name,
            "version": server.version,
            "title": server.title,
            "instructions": server.description,  # sent to every client: agent-visible text too
            "mapping": _fingerprint(server.mapping_fingerprint),
        },
        "inputs": {"spec": server.spec_file, "mapping": server.mapping_file}
        | ({"spec_url": server.spec_url[0], "spec_sha256": server.spec_url[1]} if server.spec_url else {}),
        "spec_operations": dict(server.spec_operations),
        "tools": tools,
    }


def lock_json(server: ServerSpec, contract: list[dict[str, Any]]) -> str:
    # The document is let go as soon as it is written, before its text is made (`written_json`).
    return as_text(written_json(lock_document(server, contract), sort_keys=True, newline=True))


def canonical_json(value: Any) -> str:
    """Sorted keys, two-space indent, a trailing newline: one spelling for one value."""
    return indented_json(value, sort_keys=True, newline=True)


def _action(action: ActionSpec) -> dict[str, Any]:
    facts = action.facts or ContractFacts()
    params = {p.arg: p for p in facts.params}
    return {
        "name": action.name,
        "description": action.description,
        "method": action.method,
        "path": action.path,
        "operationId": action.operation_id,
        "params": [_param(p, params.get(p.arg_name)) for p in action.params]
        # confirm_param: required from the agent, never sent upstream.
        + (
            [{"arg": "confirm", "wire": None, "in": "none", "required": True}] if action.confirm_value else []
        ),
        "fixed": [{"wire": f.wire_name, "in": f.location, "value": f.value} for f in action.fixed],
        "mapping": _fingerprint(action.mapping_fingerprint),
        "operation": _operation(action.operation_fingerprint),
        # Recorded on every action (null when the spec says nothing), so a lock without the key is
        # one written before deprecations were recorded.
        "deprecated": _deprecation(facts.deprecated),
        "results": {
            f.name: {"type": list(f.types)} | ({"measured_in": f.unit} if f.unit else {})
            for f in facts.results
        },
    }


def _param(param: ParamSpec, facts: ParamFacts | None) -> dict[str, Any]:
    """A parameter the action sends: its names and place; the conversion of its unit and the unit it
    is in; its deprecation; and, when it accepts less than the tool's flat property, the schema the
    server checks it with for this action (T2)."""
    entry: dict[str, Any] = {
        "arg": param.arg_name,
        "wire": param.wire_name,
        "in": param.location,
        "required": param.required,
    }
    if param.unit is not None:
        entry["unit"] = _unit(param.unit)
    if facts is not None and facts.unit:
        entry["measured_in"] = facts.unit
    if facts is not None and facts.deprecated is not None:
        entry["deprecated"] = _deprecation(facts.deprecated)
    if param.check_schema is not None:
        entry["schema"] = param.check_schema
    return entry


def _deprecation(deprecation: Deprecation | None) -> dict[str, Any] | None:
    if deprecation is None:
        return None
    return {"marker": deprecation.marker, "pointer": deprecation.pointer, "said": deprecation.said}


def _unit(unit: UnitSpec) -> dict[str, Any]:
    """The agent's unit and the factor to the API's: `mcpgen diff` flags a change as behaviour (T5)."""
    return {"agent": unit.agent, "upstream": unit.upstream, "factor": unit.factor}


def _fingerprint(fingerprint: Fingerprint | None) -> dict[str, str] | None:
    if fingerprint is None:
        return None
    return {"pointer": fingerprint.pointer, "sha256": fingerprint.sha256}


def _operation(fingerprint: OperationFingerprint | None) -> dict[str, Any] | None:
    if fingerprint is None:
        return None
    return {
        "pointer": fingerprint.pointer,
        "sha256": fingerprint.sha256,
        "parts": {label: _fingerprint(part) for label, part in fingerprint.parts},
    }
