"""Where a spec is not valid OpenAPI, the error points at the exact place (found by the corpus sweep)."""

from __future__ import annotations

import json
from pathlib import Path

from mcpgen.load.openapi import load_spec_or_diagnostics


def test_invalid_schema_keyword_points_into_the_named_schema(tmp_path: Path) -> None:
    # Schema names start with a capital letter, like the union-branch names pydantic puts in its
    # error locations; the pointer must keep the name.
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "paths": {},
        "components": {
            "schemas": {"ExcelStatus": {"type": "object", "examples": {"Example 1": {"value": {}}}}}
        },
    }
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec, indent=1), encoding="utf-8")
    loaded, problems = load_spec_or_diagnostics(path, display_path="spec.json")
    assert problems == [] and loaded is not None  # one schema's problem: only its users fail (S010)
    invalid = list(loaded.invalid)
    assert [(d.code, d.source.pointer if d.source else None) for d in invalid] == [
        ("S003", "/components/schemas/ExcelStatus/examples")
    ]
    assert invalid[0].source is not None and invalid[0].source.line == 12  # the "examples" key
