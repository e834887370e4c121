"""Fingerprints of the inputs each tool comes from, for tools.lock.json and `mcpgen diff` (C1).

An operation's fingerprint is the sha256 of its canonical JSON (sorted keys, no whitespace) with every
`$ref` replaced by what it points to, and with `parameters` holding the effective list (path-level
parameters merged in, as OpenAPI applies them). A reference met again inside its own expansion stays a
`{"$ref": ...}` object, so recursive schemas end. Besides the whole operation, each part a tool change
can come from (a parameter, a body property, a response, the summary) gets its own fingerprint and JSON
pointer, so a diff of two lock files can say where in the spec a change happened without the specs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from .diagnostics import DiagnosticError
from .ir import ActionSpec, Fingerprint, OperationFingerprint, ToolSpec
from .mapping import Mapping
from .openapi import Operation, Spec, find_operation
from .refs import Located, RefResolver
from .sources import join_pointer, split_pointer

_Key = tuple[str, str]  # (document, pointer) of a reference target


class _Text(str):
    """Canonical JSON already made (of a value that lives in another place or document)."""


class Canonicalizer:
    """Canonical JSON of values with references resolved, memoized per reference target.

    A memoized expansion is reused only where none of the references it reached is being expanded
    around it, so the text of a value never depends on what was expanded before it.
    """

    def __init__(self, resolver: RefResolver):
        self._resolver = resolver
        self._memo: dict[_Key, tuple[str, frozenset[_Key]]] = {}

    def text(self, located: Located) -> str:
        return self._expand(located.value, located, frozenset(), set())

    def sha256(self, located: Located) -> str:
        return hashlib.sha256(self.text(located).encode("utf-8")).hexdigest()

    def _expand(self, value: Any, where: Located, stack: frozenset[_Key], reach: set[_Key]) -> str:
        if isinstance(value, _Text):
            return str(value)
        if isinstance(value, dict):
            if isinstance(value.get("$ref"), str):
                return self._expand_ref(value, where, stack, reach)
            members = (
                _string(key) + ":" + self._expand(value[key], where, stack, reach) for key in sorted(value)
            )
            return "{" + ",".join(members) + "}"
        if isinstance(value, list):
            return "[" + ",".join(self._expand(item, where, stack, reach) for item in value) + "]"
        return _scalar(value)

    def _expand_ref(
        self, value: dict[str, Any], where: Located, stack: frozenset[_Key], reach: set[_Key]
    ) -> str:
        try:
            target = self._resolver.follow(Located(where.document, where.pointer, value))
        except DiagnosticError:
            # A dangling reference in a part no tool uses is not this module's to report: it is
            # fingerprinted as written, so fixing it later still shows up as a change.
            return _reference(value["$ref"])
        key = (target.document.display_path, target.pointer)
        reach.add(key)
        if key in stack:
            return _reference(value["$ref"])
        cached = self._memo.get(key)
        if cached is not None and not (cached[1] & stack):
            reach.update(cached[1])
            return cached[0]
        inner: set[_Key] = {key}
        text = self._expand(target.value, target, stack | {key}, inner)
        if not (inner & stack):
            self._memo[key] = (text, frozenset(inner))
        reach.update(inner)
        return text


# What json.dumps(ensure_ascii=False) writes for a string, without its per-call set-up: a 13 MB spec
# has hundreds of thousands of keys and strings.
_string = json.encoder.encode_basestring  # type: ignore[attr-defined]


def _reference(ref: str) -> str:
    return '{"$ref":' + _string(ref) + "}"


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return _string(value)
    if value is None or isinstance(value, bool):
        return "null" if value is None else ("true" if value else "false")
    if isinstance(value, int):
        return int.__repr__(value)
    return json.dumps(value)


def operation_sha256(canon: Canonicalizer, operation: Operation) -> str:
    return canon.sha256(_effective_operation(canon, operation))


def operation_fingerprint(canon: Canonicalizer, spec: Spec, operation: Operation) -> OperationFingerprint:
    return OperationFingerprint(
        pointer=operation.located.pointer,
        sha256=operation_sha256(canon, operation),
        parts=tuple(
            sorted(
                (label, Fingerprint(pointer=located.pointer, sha256=canon.sha256(located)))
                for label, located in operation_parts(spec, operation)
            )
        ),
    )


def spec_operation_fingerprints(canon: Canonicalizer, spec: Spec) -> tuple[tuple[str, str], ...]:
    """Every operation of the spec, so a diff can list the spec changes no tool is built from."""
    return tuple(sorted((op.key, operation_sha256(canon, op)) for op in spec.operations))


def mapping_fingerprint(mapping: Mapping, pointer: str, *, drop: Iterable[str] = ()) -> Fingerprint:
    """A rule of the mapping file as written (`drop`: members fingerprinted on their own)."""
    value = mapping.document.data
    for token in split_pointer(pointer):
        value = value[int(token)] if isinstance(value, list) else value[token]
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if k not in set(drop)}
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return Fingerprint(pointer=pointer, sha256=hashlib.sha256(text.encode("utf-8")).hexdigest())


def fingerprint_tools(
    tools: Iterable[ToolSpec], spec: Spec, mapping: Mapping, canon: Canonicalizer
) -> list[ToolSpec]:
    """The tools with the fingerprints of the spec operations and mapping rules they were built from."""
    return [
        replace(
            tool,
            mapping_fingerprint=mapping_fingerprint(mapping, tool.source.pointer, drop=("actions",)),
            actions=tuple(_fingerprint_action(action, spec, mapping, canon) for action in tool.actions),
        )
        for tool in tools
    ]


def _fingerprint_action(action: ActionSpec, spec: Spec, mapping: Mapping, canon: Canonicalizer) -> ActionSpec:
    operation = find_operation(spec, f"{action.method} {action.path}")
    return replace(
        action,
        operation_fingerprint=operation_fingerprint(canon, spec, operation) if operation else None,
        mapping_fingerprint=mapping_fingerprint(mapping, action.source.pointer),
    )


def _effective_operation(canon: Canonicalizer, operation: Operation) -> Located:
    value = dict(operation.located.value)
    if operation.parameters:
        value["parameters"] = [_Text(canon.text(p)) for p in operation.parameters]
    return Located(operation.located.document, operation.located.pointer, value)


def _deref(spec: Spec, located: Located) -> Located:
    try:
        return spec.resolver.deref(located)
    except DiagnosticError:
        return located  # fingerprinted as written; see Canonicalizer._expand_ref


def operation_parts(spec: Spec, operation: Operation) -> list[tuple[str, Located]]:
    """Labelled parts: 'summary', 'parameter query.state', 'body.title', 'response 200', ...

    A label met twice (a body property in two media types) means its first place, as in the build.
    """
    op = operation.located
    found = [
        (key, op.child(key)) for key in op.value if key not in ("parameters", "requestBody", "responses")
    ]
    found += [(f"parameter {p.value.get('in')}.{p.value.get('name')}", p) for p in operation.parameters]
    if operation.request_body is not None:
        found.append(("requestBody", operation.request_body))
        found += [(f"body.{name}", prop) for name, prop in _body_properties(spec, operation.request_body)]
    responses = op.value.get("responses")
    if isinstance(responses, dict):
        found += [(f"response {code}", _deref(spec, op.child("responses", code))) for code in responses]
    first: dict[str, Located] = {}
    for label, located in found:
        first.setdefault(label, located)
    return list(first.items())


def _body_properties(spec: Spec, body: Located) -> list[tuple[str, Located]]:
    content = body.value.get("content")
    if not isinstance(content, dict):
        return []
    found: list[tuple[str, Located]] = []
    for media, entry in content.items():
        if not (isinstance(entry, dict) and isinstance(entry.get("schema"), dict)):
            continue
        schema = _deref(spec, body.child("content", media, "schema"))
        properties = schema.value.get("properties") if isinstance(schema.value, dict) else None
        if isinstance(properties, dict):
            found += [(name, schema.child("properties", name)) for name in properties]
    return found


def operation_pointer(key: str) -> str:
    """'/paths/~1pet~1{petId}/get' for 'GET /pet/{petId}' (where the operation sits in a plain spec)."""
    method, _, path = key.partition(" ")
    return join_pointer("/paths", path, method.lower())
