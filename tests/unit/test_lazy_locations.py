"""A JSON spec's places are looked up in its text only when something reads their line: the build
records thousands of them (one per parameter) and shows few. A place looked up later is the same
value as one looked up at once (equal, same hash, same text), and YAML places are exact at once."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from mcpgen.diagnostics import SourceRef
from mcpgen.load.sources import load_document

SPEC = (
    '{\n  "openapi": "3.0.3",\n  "paths": {\n    "/pets": {\n      "get": {"responses": {}}\n    }\n  }\n}\n'
)


def test_a_json_place_is_found_when_its_line_is_read(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    path.write_text(SPEC, encoding="utf-8")
    document = load_document(path, "spec.json")
    place = document.locate("/paths/~1pets/get")
    assert document._json_index is None  # nothing scanned yet
    assert place.file == "spec.json" and place.pointer == "/paths/~1pets/get"
    expected = SourceRef(file="spec.json", pointer="/paths/~1pets/get", line=5, column=7)
    assert place == expected and hash(place) == hash(expected)
    assert str(place) == "spec.json:5:7" and repr(place) == repr(expected)
    assert dataclasses.replace(place, pointer="/paths") == dataclasses.replace(expected, pointer="/paths")


def test_a_missing_json_place_is_reported_at_its_nearest_parent(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    path.write_text(SPEC, encoding="utf-8")
    place = load_document(path, "spec.json").locate("/paths/~1pets/post")
    assert (place.line, place.column) == (4, 5)  # the path item "/pets"


def test_a_yaml_place_is_exact_at_once(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text("openapi: 3.0.3\npaths:\n  /pets:\n    get: {}\n", encoding="utf-8")
    place = load_document(path, "spec.yaml").locate("/paths/~1pets/get")
    assert place == SourceRef(file="spec.yaml", pointer="/paths/~1pets/get", line=4, column=5)
