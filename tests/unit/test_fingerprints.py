"""Operation fingerprints: canonical JSON with references resolved, cycle-safe, order-independent (C1)."""

from __future__ import annotations

import copy
import functools
import json
import math
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgen.build.fingerprints import Canonicalizer, operation_fingerprint, operation_sha256
from mcpgen.load.openapi import Spec, find_operation, load_spec
from mcpgen.load.refs import Located
from mcpgen.pipeline import generate
from mcpgen.render.lockfile import canonical_json

ROOT = Path(__file__).resolve().parents[2]

SPEC: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Trees", "version": "1"},
    "paths": {
        "/trees/{tree_id}": {
            "parameters": [{"name": "tree_id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "get": {
                "operationId": "getTree",
                "summary": "Get a tree",
                "parameters": [{"$ref": "#/components/parameters/depth"}],
                "responses": {
                    "200": {
                        "description": "The tree",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}},
                    }
                },
            },
        },
        "/forests": {
            "post": {
                "operationId": "plantForest",
                "requestBody": {
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Forest"}}},
                },
                "responses": {"201": {"description": "Planted"}},
            }
        },
    },
    "components": {
        "parameters": {
            "depth": {"name": "depth", "in": "query", "schema": {"type": "integer", "minimum": 1}},
        },
        "schemas": {
            # Node -> Node, and Forest -> Grove -> Forest: references that come back round.
            "Node": {"type": "object", "properties": {"child": {"$ref": "#/components/schemas/Node"}}},
            "Forest": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "grove": {"$ref": "#/components/schemas/Grove"}},
            },
            "Grove": {"type": "object", "properties": {"forest": {"$ref": "#/components/schemas/Forest"}}},
        },
    },
}


def load(tmp_path: Path, document: dict[str, Any], name: str = "spec.json") -> Spec:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return load_spec(path)


def sha(spec: Spec, key: str, canon: Canonicalizer | None = None) -> str:
    operation = find_operation(spec, key)
    assert operation is not None
    return operation_sha256(canon or Canonicalizer(spec.resolver), operation)


def test_canonical_text_sorts_keys_and_keeps_references_as_written(tmp_path: Path) -> None:
    spec = load(tmp_path, SPEC)
    operation = find_operation(spec, "getTree")
    assert operation is not None
    text = Canonicalizer(spec.resolver).text(operation.located.child("responses", "200"))
    assert text == (
        '{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Node"}}},"description":"The tree"}'
    )


REFS = st.sampled_from(["#/components/schemas/Node", "#/components/schemas/Grove", "#/nowhere"])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()  # past 64 bits too
    | st.floats()  # NaN and infinity (null), and the small ones orjson spells otherwise
    | st.floats(min_value=-1e-4, max_value=1e-4)
    | st.text()  # lone surrogates
    | st.sampled_from(['{"$ref":"#/components/schemas/Node"}', ',"$ref":"x"', '\\"$ref\\":'])
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=5).filter(lambda key: key != "$ref"), inner, max_size=3)
        | st.builds(lambda ref: {"$ref": ref}, st.integers() | st.lists(inner, max_size=2))  # not a reference
        | st.builds(
            lambda ref, rest: {"$ref": ref, **rest}, REFS, st.dictionaries(st.text(max_size=3), inner)
        )
    ),
    max_leaves=20,
)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _refs_written(value: Any) -> list[str]:
    """Every `$ref` text in the value."""
    if isinstance(value, dict):
        found = [value["$ref"]] if isinstance(value.get("$ref"), str) else []
        return found + [ref for key in sorted(value) for ref in _refs_written(value[key])]
    if isinstance(value, list):
        return [ref for item in value for ref in _refs_written(item)]
    return []


@settings(max_examples=300, derandomize=True, database=None)
@given(VALUES)
def test_canonical_text_is_sorted_compact_json_and_finds_every_reference(value: Any) -> None:
    trees = _trees()
    text, refs = Canonicalizer(trees.resolver).local(Located(trees.document, "", value))
    assert text == json.dumps(_finite(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    reachable = [ref for ref in _refs_written(value) if ref != "#/nowhere"]
    # In any order: a fingerprint takes the definitions reached in sorted order.
    assert sorted(pointer for _, pointer in refs) == sorted(ref.removeprefix("#") for ref in reachable)


@functools.cache
def _trees() -> Spec:
    return load(Path(tempfile.mkdtemp(prefix="trees-")), SPEC)


def test_a_fingerprint_covers_what_its_references_reach(tmp_path: Path) -> None:
    before = load(tmp_path, SPEC, "before.json")
    edited = copy.deepcopy(SPEC)
    edited["components"]["parameters"]["depth"]["schema"]["minimum"] = 0
    after = load(tmp_path, edited, "after.json")
    assert sha(before, "getTree") != sha(after, "getTree")
    assert sha(before, "plantForest") == sha(after, "plantForest")


def test_recursive_schemas_end_and_still_count(tmp_path: Path) -> None:
    before = load(tmp_path, SPEC, "before.json")
    edited = copy.deepcopy(SPEC)
    edited["components"]["schemas"]["Grove"]["description"] = "Trees that grow together."
    after = load(tmp_path, edited, "after.json")
    assert sha(before, "plantForest") != sha(after, "plantForest")  # Forest -> Grove -> Forest
    assert sha(before, "getTree") == sha(after, "getTree")  # Node -> Node, and no Grove


def test_a_fingerprint_does_not_depend_on_what_was_fingerprinted_before(tmp_path: Path) -> None:
    spec = load(tmp_path, SPEC)
    shared = Canonicalizer(spec.resolver)
    # Grove expanded on its own first, then Forest (which contains Grove, which points back at Forest).
    grove = Located(spec.document, "", {"$ref": "#/components/schemas/Grove"})
    shared.text(grove)
    assert sha(spec, "plantForest", shared) == sha(spec, "plantForest")
    assert sha(spec, "getTree", shared) == sha(spec, "getTree")


def test_path_level_parameters_count_and_each_part_has_its_own_fingerprint(tmp_path: Path) -> None:
    before = load(tmp_path, SPEC, "before.json")
    edited = copy.deepcopy(SPEC)
    edited["paths"]["/trees/{tree_id}"]["parameters"][0]["description"] = "The tree's id."
    after = load(tmp_path, edited, "after.json")
    assert sha(before, "getTree") != sha(after, "getTree")

    def parts(spec: Spec) -> dict[str, Any]:
        operation = find_operation(spec, "getTree")
        assert operation is not None
        return dict(operation_fingerprint(Canonicalizer(spec.resolver), spec, operation).parts)

    old, new = parts(before), parts(after)
    assert sorted(old) == [
        "operationId",
        "parameter path.tree_id",
        "parameter query.depth",
        "response 200",
        "summary",
    ]
    assert [label for label in old if old[label] != new[label]] == ["parameter path.tree_id"]
    assert new["parameter path.tree_id"].pointer == "/paths/~1trees~1{tree_id}/parameters/0"
    assert new["parameter query.depth"].pointer == "/components/parameters/depth"


def test_body_properties_are_parts_at_their_place(tmp_path: Path) -> None:
    spec = load(tmp_path, SPEC)
    operation = find_operation(spec, "plantForest")
    assert operation is not None
    parts = dict(operation_fingerprint(Canonicalizer(spec.resolver), spec, operation).parts)
    assert parts["body.name"].pointer == "/components/schemas/Forest/properties/name"
    assert parts["requestBody"].pointer == "/paths/~1forests/post/requestBody"


def test_the_lock_is_canonical_json() -> None:
    result = generate(ROOT / "specs/petstore/petstore.openapi.json", ROOT / "specs/petstore/mapping.yaml")
    (lock,) = [f for f in result.files if f.path == "tools.lock.json"]
    assert lock.content == canonical_json(json.loads(lock.content))
    assert lock.content.endswith("}\n") and lock.content.startswith('{\n  "generator": ')
    data = json.loads(lock.content)
    action = data["tools"][0]["actions"][0]
    assert set(action) == {
        "name",
        "description",
        "method",
        "path",
        "operationId",
        "params",
        "fixed",
        "mapping",
        "operation",
        "deprecated",  # the action's deprecation (a marker or the spec's words), for the diff
        "results",  # the units of the result fields shown by default, for the diff
    }
    assert action["mapping"]["pointer"] == "/tools/2/actions/0"
    assert action["operation"]["pointer"] == "/paths/~1store~1order/post"
    assert len(data["spec_operations"]) == 20  # every operation of the petstore, mapped or not
