"""What tools.lock.json records of each action besides its schemas (C1): whether the spec marks the
operation or a parameter deprecated, the unit of each parameter and shown result field (T5), and the
types of the result fields the default format shows (R1). `mcpgen diff` of two lock files compares
these, so a reviewer of the lock's pull request sees what a comparison of the two specs would.

Deprecation markers: `deprecated: true`; the vendor spellings (`x-deprecated`, `x-is-deprecated`,
`x-release-status` / `x-stability-level` / `x-lifecycle` ... saying deprecated, `x-sunset`, ...); the
mapping's `server.deprecation_markers`; and, weaker, words in the summary or description
("Deprecated: use ...", "This endpoint is deprecated").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from mcpgen.build.fingerprints import operation_parts
from mcpgen.build.units import named_unit, value_unit
from mcpgen.diagnostics import DiagnosticError
from mcpgen.ir import ActionSpec, ContractFacts, Deprecation, FieldFacts, ParamFacts, ParamSpec, ToolSpec
from mcpgen.load.mapping import Mapping
from mcpgen.load.openapi import Operation, Spec, find_operation
from mcpgen.load.refs import Located
from mcpgen.load.sources import join_pointer

# Keys that mark deprecation by being there (unless false or null).
_PRESENCE_MARKERS = (
    "deprecated",
    "x-deprecated",
    "x-is-deprecated",
    "x-deprecation",
    "x-deprecation-date",
    "x-deprecated-since",
    "x-sunset",
    "x-sunset-date",
)
# Keys whose value names a stage of life; these stages are deprecation.
_STAGE_MARKERS = (
    "x-release-status",
    "x-stability-level",
    "x-stability",
    "x-lifecycle",
    "x-lifecycle-stage",
    "x-api-status",
    "x-status",
    "x-maturity",
)
_DEPRECATED_STAGES = frozenset({"deprecated", "deprecating", "sunset", "sunsetting", "retired", "retiring"})
# Words that say so: a weaker signal than a marker (a sentence may speak of another thing). A text that
# opens with "Deprecated", a summary with "Deprecated:", or "this endpoint is deprecated" anywhere.
_SAID_FIRST = re.compile(r"^\W*deprecated\b", re.IGNORECASE)
_SAID_COLON = re.compile(r"\bdeprecated:", re.IGNORECASE)
_SAID_THIS = re.compile(
    r"\bthis (?:endpoint|operation|method|api|call|route|resource|parameter|field|property) "
    r"(?:is|has been|was|will be) (?:now )?deprecated\b",
    re.IGNORECASE,
)


def with_contract_facts(tools: Iterable[ToolSpec], spec: Spec, mapping: Mapping) -> list[ToolSpec]:
    markers = mapping.server.deprecation_markers
    return [
        replace(tool, actions=tuple(_with_facts(action, spec, markers) for action in tool.actions))
        for tool in tools
    ]


def _with_facts(action: ActionSpec, spec: Spec, markers: tuple[str, ...]) -> ActionSpec:
    operation = find_operation(spec, f"{action.method} {action.path}")
    if operation is None:
        return action
    parts = dict(operation_parts(spec, operation))
    facts = ContractFacts(
        deprecated=deprecation(operation.located, markers, texts=("summary", "description")),
        params=tuple(_param_facts(p, parts, spec, markers) for p in action.params),
        results=_result_facts(action, spec, operation),
    )
    return replace(action, facts=facts)


def deprecation(
    located: Located, markers: tuple[str, ...] = (), texts: tuple[str, ...] = ("description",)
) -> Deprecation | None:
    """The marker that says this operation, parameter or schema is deprecated; words last."""
    value = located.value
    if not isinstance(value, dict):
        return None
    for key in (*_PRESENCE_MARKERS, *markers):
        marked = value.get(key)
        if marked is not None and marked is not False and marked != "false":
            return Deprecation(marker=f"{key}: {_shown(marked)}", pointer=join_pointer(located.pointer, key))
    for key in _STAGE_MARKERS:
        stage = value.get(key)
        if isinstance(stage, str) and stage.strip().lower() in _DEPRECATED_STAGES:
            return Deprecation(marker=f"{key}: {stage}", pointer=join_pointer(located.pointer, key))
    for key in texts:
        text = value.get(key)
        found = _said(text, colon=key == "summary") if isinstance(text, str) else None
        if found:
            pointer = join_pointer(located.pointer, key)
            return Deprecation(marker=f"{key} says '{found.group(0).strip()}'", pointer=pointer, said=True)
    return None


def _said(text: str, *, colon: bool) -> re.Match[str] | None:
    return (
        _SAID_FIRST.search(text) or (_SAID_COLON.search(text) if colon else None) or _SAID_THIS.search(text)
    )


def _shown(value: Any) -> str:
    if value is True:
        return "true"
    text = str(value) if not isinstance(value, (dict, list)) else "..."
    return text if len(text) <= 40 else text[:37] + "..."


def _param_facts(
    param: ParamSpec, parts: dict[str, Located], spec: Spec, markers: tuple[str, ...]
) -> ParamFacts:
    body = param.location == "body"
    label = f"body.{param.wire_name}" if body else f"parameter {param.location}.{param.wire_name}"
    located = parts.get(label) if not param.path else None
    found = None
    if located is not None:
        own = _deref(spec, located) or located
        found = deprecation(own, markers)
        schema = own.value.get("schema") if not body and isinstance(own.value, dict) else None
        inner = _deref(spec, own.child("schema")) if isinstance(schema, dict) else None
        found = found or (deprecation(inner, markers) if inner is not None else None)
    unit = named_unit(param.unit.agent) if param.unit is not None else None
    unit = unit or value_unit(param.arg_name, param.schema, str(param.schema.get("description") or ""))
    return ParamFacts(arg=param.arg_name, deprecated=found, unit=unit)


def _deref(spec: Spec, located: Located) -> Located | None:
    if not isinstance(located.value, dict):
        return None
    try:
        return spec.resolver.deref(located)
    except DiagnosticError:
        return None


def _result_facts(action: ActionSpec, spec: Spec, operation: Operation) -> tuple[FieldFacts, ...]:
    """The types and units of the top-level record fields the default format shows (reads only)."""
    shape = action.shape
    if shape is None:
        return ()
    record = _record_schema(spec, operation, shape.items, shape.record)
    if record is None:
        return ()
    fields = _fields(spec, record)
    if shape.concise:
        shown = list(dict.fromkeys(path.split(".")[0] for path in shape.concise))
    else:
        shown = [name for name in fields if name not in set(shape.drop)]
    facts = []
    for name in shown:
        field = fields.get(name)
        if field is None or not isinstance(field.value, dict):
            continue
        facts.append(
            FieldFacts(
                name=name,
                types=_types(field.value),
                unit=value_unit(name, field.value, str(field.value.get("description") or "")),
            )
        )
    return tuple(facts)


def _types(schema: dict[str, Any]) -> tuple[str, ...]:
    written = schema.get("type")
    types = [written] if isinstance(written, str) else written if isinstance(written, list) else []
    if schema.get("nullable") is True and types:
        types = [*types, "null"]
    return tuple(sorted({str(t) for t in types}))


def _record_schema(spec: Spec, operation: Operation, items: str | None, record: str | None) -> Located | None:
    """One record of the first 2xx JSON answer, at the places the build's result shape names."""
    body = _answer_schema(spec, operation)
    if body is None:
        return None
    if items is not None:
        for key in [k for k in items.split(".") if k]:
            body = _fields(spec, body).get(key) if body is not None else None
        body = _deref(spec, body.child("items")) if body is not None and "items" in body.value else None
    for key in [k for k in (record or "").split(".") if k]:
        body = _fields(spec, body).get(key) if body is not None else None
    return body


def _answer_schema(spec: Spec, operation: Operation) -> Located | None:
    responses = operation.located.value.get("responses")
    for status in responses if isinstance(responses, dict) else ():
        if not str(status).startswith("2"):
            continue
        response = _deref(spec, operation.located.child("responses", status))
        content = response.value.get("content") if response is not None else None
        for media, entry in content.items() if isinstance(content, dict) else ():
            base = str(media).split(";")[0].strip().lower()
            if (base == "application/json" or base.endswith("+json")) and isinstance(entry, dict):
                if response is not None and isinstance(entry.get("schema"), dict):
                    return _deref(spec, response.child("content", media, "schema"))
        return None
    return None


def _fields(spec: Spec, schema: Located) -> dict[str, Located]:
    """An object schema's properties, dereferenced, `allOf` parts merged."""
    found: dict[str, Located] = {}
    value = schema.value
    if not isinstance(value, dict):
        return found
    for index, part in enumerate(value.get("allOf") or ()):
        inner = _deref(spec, schema.child("allOf", index)) if isinstance(part, dict) else None
        if inner is not None:
            found.update(_fields(spec, inner))
    for name in value.get("properties") or {}:
        field = _deref(spec, schema.child("properties", name))
        if field is not None:
            found[name] = field
    return found
