"""Pure: reading an operation's answer as its spec shows it (the 2xx JSON schema and headers).

Shared by the result plan (results.py: where the records are, which fields each format shows) and
the paging plan (paging.py: where the total, the next cursor and the "more" flag are). Every schema
returned is `Located`, so each decision taken from it can name its JSON pointer.
"""

from __future__ import annotations

from mcpgen.load.openapi import Operation, Spec
from mcpgen.load.refs import Located


def response_schema(spec: Spec, operation: Operation) -> Located | None:
    """The JSON schema of the first 2xx response, dereferenced; None when the spec has none."""
    responses = operation.located.value.get("responses")
    if not isinstance(responses, dict):
        return None
    for status in responses:
        if not str(status).startswith("2"):
            continue
        response = spec.resolver.deref(operation.located.child("responses", status))
        content = response.value.get("content") if isinstance(response.value, dict) else None
        if not isinstance(content, dict):
            return None
        for media, entry in content.items():
            base = media.split(";")[0].strip().lower()
            if (base == "application/json" or base.endswith("+json")) and isinstance(entry, dict):
                if isinstance(entry.get("schema"), dict):
                    return spec.resolver.deref(response.child("content", media, "schema"))
        return None
    return None


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
