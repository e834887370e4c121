"""Pure: reading an operation's answer as its spec shows it (the 2xx JSON schema and headers).

Shared by the result plan (results.py: where the records are, which fields each format shows) and
the paging plan (paging.py: where the total, the next cursor and the "more" flag are). Every schema
returned is `Located`, so each decision taken from it can name its JSON pointer.
"""

from __future__ import annotations

from mcpgen.build.request_parts import non_json_answers
from mcpgen.load.openapi import Operation, Spec
from mcpgen.load.refs import Located

# Media types a generated server reads as JSON, best first: it decodes every success body as JSON
# whatever its type (templates/runtime/upstream.py), so `*/*` (Spring's default), `text/json`,
# `application/vnd.api+json` and `application/json; charset=utf-8` all describe its answers.
_JSON_BASES = ("application/json", "text/json", "application/x-json", "text/x-json")
_ANY_MEDIA = ("*/*", "application/*")


def json_rank(media: str) -> int | None:
    """How surely an answer of this media type is JSON: 0 application/json, 1 a JSON type of another
    name (`application/hal+json`, `text/json`), 2 a wildcard; None for a type that is not JSON."""
    base = media.split(";")[0].strip().lower()
    if base == "application/json":
        return 0
    if base in _JSON_BASES or base.endswith(("+json", "/json", "-json")):
        return 1
    return 2 if base in _ANY_MEDIA else None


# Answers that do not end: a server reads an answer to its end, so a stream of events would only time out.
_STREAMS = frozenset({"text/event-stream", "multipart/x-mixed-replace"})
_ANY_FILE = "application/octet-stream"


def stream_answers(spec: Spec, operation: Operation) -> list[str]:
    """The media types of the operation's success answers when every one is a stream (server-sent
    events): the one kind of answer a generated server cannot read. [] otherwise."""
    types = non_json_answers(spec, operation)
    return types if types and all(t in _STREAMS for t in types) else []


def file_answer(spec: Spec, operation: Operation) -> str | None:
    """The media type of the file the operation answers instead of JSON (a PDF, a PNG, a CSV export):
    the one concrete type it declares, else application/octet-stream (several types, `image/*`, a
    binary `*/*`: the answer's own Content-Type says which). None when it answers JSON or a stream.
    apisetu.gov.in/cisce.json POST /hscer/certificate: application/pdf."""
    types = [t for t in non_json_answers(spec, operation) if t not in _STREAMS]
    if not types:
        return None
    concrete = len(types) == 1 and "*" not in types[0]
    return types[0] if concrete else _ANY_FILE


def response_schema(spec: Spec, operation: Operation) -> Located | None:
    """The JSON schema of the first 2xx response, dereferenced, from its most surely JSON media type;
    None when the spec has none."""
    response = _success_response(spec, operation)
    content = response.value.get("content") if response is not None else None
    if response is None or not isinstance(content, dict):
        return None
    readable = sorted(
        (rank, index, str(media))
        for index, (media, entry) in enumerate(content.items())
        if (rank := json_rank(str(media))) is not None
        and isinstance(entry, dict)
        and isinstance(entry.get("schema"), dict)
    )
    if not readable:
        return None
    return spec.resolver.deref(response.child("content", readable[0][2], "schema"))


def _success_response(spec: Spec, operation: Operation) -> Located | None:
    """The first 2xx response of the operation, dereferenced."""
    responses = operation.located.value.get("responses")
    for status in responses if isinstance(responses, dict) else ():
        if str(status).startswith("2"):
            response = spec.resolver.deref(operation.located.child("responses", status))
            return response if isinstance(response.value, dict) else None
    return None


def media_types(spec: Spec, operation: Operation) -> list[str]:
    response = _success_response(spec, operation)
    content = response.value.get("content") if response is not None else None
    return [str(m) for m in content] if isinstance(content, dict) else []


def response_headers(spec: Spec, operation: Operation) -> dict[str, Located]:
    """The headers the 2xx responses declare, by name, each dereferenced (gitea's X-Total, Link)."""
    found: dict[str, Located] = {}
    responses = operation.located.value.get("responses")
    for status in responses if isinstance(responses, dict) else ():
        if not str(status).startswith("2"):
            continue
        response = spec.resolver.deref(operation.located.child("responses", status))
        headers = response.value.get("headers") if isinstance(response.value, dict) else None
        for name in headers if isinstance(headers, dict) else ():
            found.setdefault(str(name), spec.resolver.deref(response.child("headers", name)))
    return found


def declares_link_header(spec: Spec, operation: Operation) -> bool:
    return any(name.lower() == "link" for name in response_headers(spec, operation))


def properties(spec: Spec, schema: Located | None) -> dict[str, Located]:
    """An object schema's properties, each dereferenced; `allOf` parts merged."""
    if schema is None:
        return {}
    schema = spec.resolver.deref(schema)
    value = schema.value
    if not isinstance(value, dict):
        return {}
    found: dict[str, Located] = {}
    for index, part in enumerate(value.get("allOf") or ()):
        if isinstance(part, dict):
            found.update(properties(spec, schema.child("allOf", index)))
    for name in value.get("properties") or {}:
        found[name] = spec.resolver.deref(schema.child("properties", name))
    return found


def is_list(schema: Located | None) -> bool:
    return (
        schema is not None
        and isinstance(schema.value, dict)
        and (schema.value.get("type") == "array" or isinstance(schema.value.get("items"), dict))
    )


def list_items(spec: Spec, schema: Located) -> Located | None:
    return spec.resolver.deref(schema.child("items")) if isinstance(schema.value.get("items"), dict) else None


def at(spec: Spec, schema: Located | None, path: str) -> Located | None:
    """The schema of the field at a dotted path, or None when a step is not a property."""
    node = schema
    for key in path.split("."):
        node = properties(spec, node).get(key)
        if node is None:
            return None
    return node


def items_are_records(spec: Spec, schema: Located) -> bool:
    """A list whose items are objects: records, not tags or ids."""
    items = list_items(spec, schema)
    if items is None or not isinstance(items.value, dict):
        return False
    value = items.value
    return (
        value.get("type") == "object"
        or "properties" in value
        or any(isinstance(value.get(k), list) for k in ("allOf", "oneOf", "anyOf"))
    )


def json_types(schema: Located | None) -> set[str]:
    """The JSON types a schema allows ('integer', 'string', ...); empty when it names none."""
    value = schema.value if schema is not None and isinstance(schema.value, dict) else {}
    kind = value.get("type")
    if isinstance(kind, str):
        return {kind}
    return {t for t in kind if isinstance(t, str)} if isinstance(kind, list) else set()
