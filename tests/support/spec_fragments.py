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
    out: dict[str, Any] = {
        "openapi": source["openapi"],
        "info": source["info"],
        "servers": source.get("servers", []),
        "paths": paths,
        "components": {},
    }
    if "securitySchemes" in source.get("components", {}):
        out["components"]["securitySchemes"] = source["components"]["securitySchemes"]
    pending = [paths]
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
