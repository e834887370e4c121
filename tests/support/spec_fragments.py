"""A few operations of a real spec as a spec of their own: those operations and every component
they reach through `$ref`, nothing else. Tests built from real specs cite the file and the pointers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def fragment(spec: Path, operations: list[tuple[str, str]], **overrides: Any) -> dict[str, Any]:
    """`operations` as (path, method) pairs of `spec`; `overrides` replace top-level keys (servers)."""
    source = json.loads(spec.read_text(encoding="utf-8"))
    paths: dict[str, Any] = {}
    for path, method in operations:
        paths.setdefault(path, {})[method] = source["paths"][path][method]
    return _with_components(source, _document(source, paths), overrides)


def request_fragment(spec: Path, operations: list[tuple[str, str]], **overrides: Any) -> dict[str, Any]:
    """What Prism needs to judge the requests of `operations`, and nothing more: each operation with its
    parameters, request body and security as the spec has them, its responses cut to their status codes
    and descriptions, the spec's top-level `security`, and the components those parts reach through `$ref`.

    Every part kept is the spec's own text (a copy of the value at the same JSON pointer); only the
    responses' `content` and `headers` are left out. Prism judges a request on its parameters, body and
    credentials; its mock answer is thrown away. Left in, the response schemas of a spec like Stripe's
    reach hundreds of cyclic components (its customer answer expands into invoices, subscriptions, ...),
    which Prism dereferences whole and does not load within 100 s."""
    source = json.loads(spec.read_text(encoding="utf-8"))
    paths: dict[str, Any] = {}
    for path, method in operations:
        paths.setdefault(path, {})[method] = request_side(source["paths"][path][method], source)
    document = _document(source, paths)
    if "security" in source:
        document["security"] = source["security"]
    return _with_components(source, document, overrides)


def request_side(operation: dict[str, Any], source: dict[str, Any]) -> dict[str, Any]:
    """`operation` with each response reduced to its description (Prism answers it with no body); a
    response given by `$ref` (#/components/responses/...) gives the description it points at."""
    responses = {}
    for status, response in operation.get("responses", {}).items():
        ref = response.get("$ref", "")
        if ref.startswith("#/components/responses/"):
            response = source["components"]["responses"][ref.rsplit("/", 1)[1]]
        responses[status] = {"description": response.get("description", "")}
    return {**operation, "responses": responses}


def _document(source: dict[str, Any], paths: dict[str, Any]) -> dict[str, Any]:
    return {
        "openapi": source["openapi"],
        "info": source["info"],
        "servers": source.get("servers", []),
        "paths": paths,
        "components": {},
    }


def _with_components(
    source: dict[str, Any], out: dict[str, Any], overrides: dict[str, Any]
) -> dict[str, Any]:
    """`out` with the security schemes of `source` and every component its paths reach through `$ref`."""
    if "securitySchemes" in source.get("components", {}):
        out["components"]["securitySchemes"] = source["components"]["securitySchemes"]
    pending = [out["paths"]]
    seen: set[str] = set()
    while pending:  # bounded: each component is copied once
        node = pending.pop()
        for ref in _refs(node):
            if ref in seen or not ref.startswith("#/components/"):
                continue
            seen.add(ref)
            _, _, kind, name = ref.split("/", 3)
            value = source["components"][kind][name]
            out["components"].setdefault(kind, {})[name] = value
            pending.append(value)
    out.update(overrides)
    return out


def _refs(node: Any) -> list[str]:
    found: list[str] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str):
                found.append(ref)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found
