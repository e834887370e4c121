"""The spec walk of `mcpgen diff` skips the pairs below which nothing changed, and still finds every
change a part reaches, through cycles of definitions that reach each other (C1: a change that breaks
an agent is never invisible)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from mcpgen.build.fingerprints import Canonicalizer, operation_parts
from mcpgen.contract.diff.model import InputChange
from mcpgen.contract.diff.walk import PairKey, Walk
from mcpgen.load.openapi import Spec, find_operation, load_spec


def _spec(schemas: dict[str, Any]) -> dict[str, Any]:
    def answering(name: str) -> dict[str, Any]:
        content = {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}}
        return {
            "get": {
                "operationId": f"get{name}",
                "responses": {"200": {"description": "ok", "content": content}},
            }
        }

    return {
        "openapi": "3.1.0",
        "info": {"title": "cycles", "version": "1"},
        "paths": {f"/{name.lower()}": answering(name) for name in schemas},
        "components": {"schemas": schemas},
    }


# A reaches B and B reaches A; C reaches A; D reaches nothing that changes.
SCHEMAS: dict[str, Any] = {
    "A": {
        "type": "object",
        "properties": {
            "b": {"$ref": "#/components/schemas/B"},
            "name": {"type": "string", "description": "x"},
        },
    },
    "B": {
        "type": "object",
        "properties": {"a": {"$ref": "#/components/schemas/A"}, "id": {"type": "integer"}},
    },
    "C": {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/A"}}},
    "D": {
        "type": "object",
        "properties": {"d": {"$ref": "#/components/schemas/D"}, "n": {"type": "integer"}},
    },
}


def _load(tmp_path: Path, name: str, document: dict[str, Any]) -> Spec:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return load_spec(path)


def _walk(tmp_path: Path) -> Walk:
    changed = copy.deepcopy(SCHEMAS)
    changed["A"]["properties"]["name"]["description"] = "y"
    old, new = _load(tmp_path, "old", _spec(SCHEMAS)), _load(tmp_path, "new", _spec(changed))
    return Walk(old, new, Canonicalizer(old.resolver), Canonicalizer(new.resolver))


def _response(walk: Walk, name: str) -> tuple[Any, Any]:
    key = f"GET /{name.lower()}"
    old_op, new_op = find_operation(walk.old_spec, key), find_operation(walk.new_spec, key)
    assert old_op is not None and new_op is not None
    old_parts = dict(operation_parts(walk.old_spec, old_op))
    new_parts = dict(operation_parts(walk.new_spec, new_op))
    return old_parts["response 200"], new_parts["response 200"]


def _every_change_below(walk: Walk, root: PairKey) -> list[InputChange]:
    """The walk's nodes read without skipping anything: what `compare` must find."""
    found: list[InputChange] = []
    seen: set[PairKey] = set()

    def collect(key: PairKey) -> None:
        seen.add(key)
        for item in walk.nodes[key][0]:
            if isinstance(item, InputChange):
                found.append(item)
            elif item not in seen:
                collect(item)

    collect(root)
    return found


def test_a_change_inside_a_cycle_is_found_from_every_entry_into_it(tmp_path: Path) -> None:
    walk = _walk(tmp_path)
    # B first: the cycle is settled from B, then met again from A and from C.
    for name in ("B", "A", "C"):
        found = walk.compare(*_response(walk, name))
        assert [(c.change, c.pointer, c.detail) for c in found] == [
            ("changed", "/components/schemas/A/properties/name/description", '"x" -> "y"')
        ], name


def test_what_compare_skips_holds_no_change(tmp_path: Path) -> None:
    walk = _walk(tmp_path)
    for name in ("D", "C", "A", "B"):
        found = walk.compare(*_response(walk, name))
        root = walk._node(*_response(walk, name))
        assert found == _every_change_below(walk, root), name
    assert walk.clean, "the unchanged pairs (D's cycle, the ids) are skipped"
    for key in walk.clean:
        assert _every_change_below(walk, key) == []
