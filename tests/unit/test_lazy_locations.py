"""A JSON spec's places are looked up in its text only when something reads their line: the build
records thousands of them (one per parameter) and shows few. A place looked up later is the same
value as one looked up at once (equal, same hash, same text), and YAML places are exact at once."""

from __future__ import annotations

import dataclasses
import os
import threading
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


WIDE = (
    '{"info": {"title": "Caf\u00e9 \U0001f600"},\n "paths": {"/caf\u00e9s": {"get": {"summary": "\u00e9\u00e9 \U0001f600",'
    ' "x-\\u00e9t\u00e9": {"deep": [1, {"n\u00e4me": "\U0001f600", "z": 2}]}, "responses": {}}}}}\n'
)
WIDE_POINTERS = [
    "/info/title",
    "/paths/~1caf\u00e9s/get/summary",
    "/paths/~1caf\u00e9s/get/x-\u00e9t\u00e9/deep/1/n\u00e4me",
    "/paths/~1caf\u00e9s/get/x-\u00e9t\u00e9/deep/1/z",
    "/paths/~1caf\u00e9s/get/responses",
    "/paths/~1caf\u00e9s/put",
]


def test_a_place_found_in_the_files_bytes_is_where_the_decoded_text_puts_it(tmp_path: Path) -> None:
    # The file is read by orjson and read again as bytes: names and columns past ASCII are decoded again.
    path = tmp_path / "spec.json"
    path.write_text(WIDE, encoding="utf-8")
    document = load_document(path, "spec.json")
    assert document._raw is None and document._stamp is not None  # nothing kept but its stamp
    lines = WIDE.split("\n")
    for pointer in WIDE_POINTERS:
        place = document.locate(pointer)
        key = pointer.rsplit("/", 1)[-1].replace("~1", "/")
        if pointer.endswith("/put"):
            key = "/caf\u00e9s"
        line = lines[place.line - 1]
        # The column (in characters) points at the member's name as written.
        assert line[place.column - 1 :].startswith(f'"{key}"') or line[place.column - 1 :].startswith(
            '"x-\\u00e9t\u00e9"'
        ), (pointer, place)


def test_a_spec_changed_after_it_was_read_gives_no_line_rather_than_a_wrong_one(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    path.write_text(SPEC, encoding="utf-8")
    document = load_document(path, "spec.json")
    path.write_text("\n\n\n" + SPEC, encoding="utf-8")  # every line moved by three
    place = document.locate("/paths/~1pets/get")
    assert (place.line, place.column) == (None, None) and place.pointer == "/paths/~1pets/get"


def test_a_spec_read_from_a_pipe_keeps_its_bytes_for_its_lines(tmp_path: Path) -> None:
    # `mcpgen generate <(curl ...)`: a pipe cannot be read twice.
    path = tmp_path / "spec.json"
    os.mkfifo(path)
    writer = threading.Thread(target=path.write_text, args=(SPEC,), kwargs={"encoding": "utf-8"})
    writer.start()
    try:
        document = load_document(path, "spec.json")
    finally:
        writer.join(timeout=10)
    assert document._raw is not None and document._stamp is None
    path.unlink()
    assert (document.locate("/paths/~1pets/get").line, document.locate("/paths").line) == (5, 3)
