"""Fingerprints of the inputs each tool comes from, for tools.lock.json and `mcpgen diff` (C1).

A fingerprint covers a value and everything it references: it is the sha256 of the value's canonical
JSON (sorted keys, no whitespace, `$ref`s as written) together with, for every definition reachable
through its references, the definition's place and the sha256 of its own canonical JSON. That is the
value with its references resolved, bundled rather than inlined: any change to anything it reaches
changes it, recursive schemas need no special case, and the cost grows with the number of definitions
reached, not with the paths to them (inlining Stripe's mutually recursive schemas never ends).

An operation's value is its object with `parameters` holding the effective list (path-level parameters
merged in, as OpenAPI applies them). Besides the whole operation, each part a tool change can come
from (a parameter, a body property, a response, the summary) gets its own fingerprint and JSON
pointer, so a diff of two lock files can say where in the spec a change happened without the specs.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import orjson

from mcpgen.diagnostics import DiagnosticError
from mcpgen.ir import ActionSpec, Fingerprint, OperationFingerprint, ToolSpec
from mcpgen.load.mapping import Mapping
from mcpgen.load.openapi import Operation, Spec, find_operation
from mcpgen.load.refs import Located, RefResolver
from mcpgen.load.sources import join_pointer, split_pointer

_Key = tuple[str, str]  # (document, pointer) of a reference target; "" is the spec's own file


class Canonicalizer:
    """Canonical JSON and bundle fingerprints; each definition's text and references are made once."""

    def __init__(self, resolver: RefResolver):
        self._resolver = resolver
        # Each definition's member of a bundle ("place":sha256 of its text) and its references.
        self._definitions: dict[_Key, tuple[str, tuple[_Key, ...]]] = {}
        # direct references -> the bundle's members of every definition they reach, joined
        self._closures: dict[frozenset[_Key], str] = {}
        self._targets: dict[tuple[str, str], Located | None] = {}  # (document, $ref as written) -> target
        self._by_key: dict[_Key, Located] = {}
        # local() by (document, value) identity: a parameter is written inside its operation and again
        # as a part of its own. The value is kept beside its text, so its id cannot be reused.
        self._locals: dict[tuple[int, int], tuple[Any, str, tuple[_Key, ...]]] = {}
        self._operations: dict[str, str] = {}  # operation_sha256 by operation key

    def text(self, located: Located) -> str:
        """The value's own canonical JSON, references left as written."""
        return self.local(located)[0]

    def local(self, located: Located) -> tuple[str, list[_Key]]:
        """The value's own canonical JSON and the definitions it references directly."""
        text, refs = self._made(located, keep=True)
        return text, list(refs)

    def _made(self, located: Located, *, keep: bool) -> tuple[str, tuple[_Key, ...]]:
        """`local`'s text and references; `keep`: remember them for the next time the value is asked
        for. A text asked for once (a definition, which only its digest stands for, or an operation with
        its parameters merged in) is not kept: on GitHub's spec those texts held some 20 MB."""
        memo = (id(located.document), id(located.value))
        found = self._locals.get(memo)
        if found is not None:
            return found[1], found[2]
        refs: list[_Key] = []
        text = self._write(located.value, located, refs)
        if keep:
            self._locals[memo] = (located.value, text, tuple(refs))
        return text, tuple(refs)

    def sha256(self, *roots: Located) -> str:
        """The roots' texts, then each reachable definition's place and digest, in sorted order."""
        return self._sha256(roots, keep=True)

    def _sha256(self, roots: tuple[Located, ...], *, keep: bool) -> str:
        texts: list[str] = []
        direct: list[_Key] = []
        for root in roots:
            text, refs = self._made(root, keep=keep)
            texts.append(text)
            direct += refs
        bundle = "[" + ",".join(texts) + "],{" + self._bundled(direct) + "}"
        return hashlib.sha256(bundle.encode("utf-8")).hexdigest()

    def _bundled(self, direct: list[_Key]) -> str:
        """The members of every definition reachable from these, in sorted order. Many parts reach the
        same ones (GitHub's operations share their error responses and their records; a Stripe part
        reaches a hundred definitions), so each set of direct references is followed and joined once."""
        memo = frozenset(direct)
        found = self._closures.get(memo)
        if found is None:
            reached: set[_Key] = set()
            pending = list(direct)
            while pending:
                key = pending.pop()
                if key not in reached:
                    reached.add(key)
                    pending += self._definition(key)[1]
            found = self._closures[memo] = ",".join(self._definition(key)[0] for key in sorted(reached))
        return found

    def _definition(self, key: _Key) -> tuple[str, tuple[_Key, ...]]:
        """The definition's member of a bundle (its place, then the sha256 of its text) and its references."""
        found = self._definitions.get(key)
        if found is None:
            text, refs = self._made(self._by_key[key], keep=False)
            document, pointer = key
            digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
            found = (f"{_string(f'{document}#{pointer}')}:{digest}", refs)
            self._definitions[key] = found
        return found

    def _write(self, value: Any, where: Located, refs: list[_Key]) -> str:
        if isinstance(value, dict) and isinstance(value.get("parameters"), _Parameters):
            return self._write_operation(value, where, refs)
        text = _canonical_json(value)
        if text is None:
            return self._write_python(value, where, refs)
        if '"$ref":"' in text:
            for match in _REF.finditer(text):
                target = self._target(json.loads(match[1]), where)
                if target is not None:
                    refs.append(self._key(target))
        return text

    def _write_operation(self, value: dict[str, Any], where: Located, refs: list[_Key]) -> str:
        """An operation whose parameters were written where they live: their texts are placed between
        the members before and after `"parameters"` in sorted order, each side written as above."""
        parameters: _Parameters = value["parameters"]
        before = self._write({k: v for k, v in value.items() if k < "parameters"}, where, refs)
        for made in parameters:
            refs += made.refs
        after = self._write({k: v for k, v in value.items() if k > "parameters"}, where, refs)
        members = [before[1:-1], '"parameters":[' + ",".join(parameters) + "]", after[1:-1]]
        return "{" + ",".join(m for m in members if m) + "}"

    def _write_python(self, value: Any, where: Located, refs: list[_Key]) -> str:
        """The canonical text of what orjson does not write as json.dumps would, one value at a time."""
        if isinstance(value, _Text):
            refs += value.refs
            return str(value)
        if isinstance(value, dict):
            ref = value.get("$ref")
            if isinstance(ref, str):
                target = self._target(ref, where)
                if target is not None:
                    refs.append(self._key(target))
            members = (
                _string(key) + ":" + self._write_python(value[key], where, refs) for key in sorted(value)
            )
            return "{" + ",".join(members) + "}"
        if isinstance(value, list):
            return "[" + ",".join(self._write_python(item, where, refs) for item in value) + "]"
        return _scalar(value)

    def _target(self, ref: str, where: Located) -> Located | None:
        memo = (where.document.display_path, ref)
        if memo not in self._targets:
            try:
                target = self._resolver.follow(Located(where.document, where.pointer, {"$ref": ref}))
            except DiagnosticError:
                # A dangling reference in a part no tool uses is not this module's to report: it is
                # fingerprinted as written, so fixing it later still shows up as a change.
                target = None
            self._targets[memo] = target
            if target is not None:
                self._by_key.setdefault(self._key(target), target)
        return self._targets[memo]

    def _key(self, located: Located) -> _Key:
        # The spec's own file is "", so a copy of it under another name fingerprints the same.
        document = located.document
        return ("" if document is self._resolver.root else document.display_path), located.pointer


class _Text(str):
    """Canonical JSON already made (of a value from another place), with the references it holds."""

    refs: tuple[_Key, ...] = ()


class _Parameters(list[_Text]):
    """An operation's effective parameters, each written where it lives."""


# A `$ref` member with a text value, in canonical JSON. Inside a JSON string every `"` is escaped, so a
# `"` right after `{` or `,` is a real one, and a string that ends there cannot be followed by `$`: the
# match is a key "$ref", and its value is the whole string after the colon.
_REF = re.compile(r'[{,]"\$ref":("(?:[^"\\]|\\.)*")')

# orjson spells a float below 1e-4 otherwise than json.dumps (`0.00001`, `1e-7` for `1e-05`, `1e-07`);
# a text that may hold one is written by the Python path. Seen inside a string it costs only time.
_SMALL_FLOAT = re.compile(r"0\.0000|[0-9]e-[0-9](?![0-9])")
_SMALL_FLOAT_CLUES = ("0.0000", "e-5", "e-6", "e-7", "e-8", "e-9")  # substring searches go first: cheaper


def _canonical_json(value: Any) -> str | None:
    """json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False) by orjson, or None
    where it may differ (NaN and infinity aside, which orjson writes as null: they are not JSON)."""
    try:
        text = orjson.dumps(value, option=_ORJSON_OPTIONS).decode("utf-8")
    except orjson.JSONEncodeError:
        return None  # a key that is not text, an integer past 64 bits, a lone surrogate, deep nesting
    if any(clue in text for clue in _SMALL_FLOAT_CLUES) and _SMALL_FLOAT.search(text):
        return None
    return text


_ORJSON_OPTIONS = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_SUBCLASS  # a _Text is written by the Python path, with its references
)


# What json.dumps(ensure_ascii=False) writes for a string, without its per-call set-up: a 13 MB spec
# has hundreds of thousands of keys and strings.
_string = json.encoder.encode_basestring


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return _string(value)
    if value is None or isinstance(value, bool):
        return "null" if value is None else ("true" if value else "false")
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float) and not math.isfinite(value):
        return "null"  # as orjson writes NaN and infinity, which JSON has no spelling for
    return json.dumps(value)


def operation_sha256(canon: Canonicalizer, operation: Operation) -> str:
    # Every operation is fingerprinted for `spec_operations`, and a mapped one again for its action.
    key = f"{id(operation.located.document)} {operation.key}"
    found = canon._operations.get(key)
    if found is None:
        found = canon._operations[key] = canon._sha256((_effective_operation(canon, operation),), keep=False)
    return found


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
        value["parameters"] = _Parameters(_parameter_text(canon, p) for p in operation.parameters)
    return Located(operation.located.document, operation.located.pointer, value)


def _parameter_text(canon: Canonicalizer, parameter: Located) -> _Text:
    # A parameter may live in another document: its references resolve from there.
    text, refs = canon.local(parameter)
    made = _Text(text)
    made.refs = tuple(refs)
    return made


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
