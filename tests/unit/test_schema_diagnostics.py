"""What the generator says about schemas it cannot pass on whole (issue 17 defects 6 and 9, issue 12
defect 4): located notes for cut nesting, patterns the server cannot check, bodies left untyped, and
an invalid keyword that stops only the operations using it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpgen.authoring.draft import init_mapping
from mcpgen.diagnostics import Level
from mcpgen.load.openapi import load_spec
from mcpgen.pipeline import generate
from tests.support.paths import ROOT

FRAGMENTS = ROOT / "tests" / "fixtures" / "schemas"
CORPUS = ROOT / ".cache" / "corpus" / "package" / "api"
API_VIDEO = CORPUS / "api.video.json"
# api.video.json /components/schemas/video-thumbnail-pick-payload/properties/timecode: "pattern": 0
BAD_POINTER = "/components/schemas/video-thumbnail-pick-payload/properties/timecode/pattern"


def _codes(diagnostics, code: str) -> list:  # noqa: ANN001 - Diagnostic tuples
    return [d for d in diagnostics if d.code == code]


def test_a_cut_is_reported_where_it_happens() -> None:
    # googleapis.com/calendar.json /components/schemas/ConferenceData (inside Event): a fourth level.
    result = generate(FRAGMENTS / "realworld.openapi.json", FRAGMENTS / "mapping.yaml")
    assert result.ok
    cuts = _codes(result.diagnostics, "M241")
    assert cuts and all(d.level == Level.INFO and d.source and d.source.pointer for d in cuts)
    assert any(d.source.pointer == "/components/schemas/ConferenceSolutionKey" for d in cuts)
    events = next(t for t in result.server.tools if t.name == "frag_events_change")
    conference = events.input_schema["properties"]["conference_data"]["properties"]
    key = conference["conferenceSolution"]["properties"]["key"]
    assert key["type"] == "object" and "properties" not in key  # cut, and it says which fields it had
    assert key["description"].endswith("Fields: type.")


def test_a_pattern_the_server_cannot_compile_is_a_located_warning(tmp_path: Path) -> None:
    # amazonaws.com/resource-groups.json /components/schemas/TagKey, with its class negated
    # (\P{L} inside a class has no Python spelling): the server leaves it to the API.
    spec = json.loads((FRAGMENTS / "realworld.openapi.json").read_text(encoding="utf-8"))
    spec["components"]["schemas"]["TagKey"]["pattern"] = r"^[\P{L}x]*$"
    edited = tmp_path / "spec.json"
    edited.write_text(json.dumps(spec), encoding="utf-8")
    result = generate(edited, FRAGMENTS / "mapping.yaml")
    assert result.ok
    [note] = _codes(result.diagnostics, "M240")
    assert note.level == Level.WARNING and note.source.pointer == "/components/schemas/TagKey"
    assert "cannot compile" in note.message and "the API still does" in note.message


def test_a_body_left_untyped_is_a_warning(tmp_path: Path) -> None:
    # Constructed: a oneOf whose second branch says nothing (no type, no fields), so the flat set can
    # say nothing honest but "an object"; the first branch is nexmo.com/voice.json's base.
    spec = json.loads((FRAGMENTS / "realworld.openapi.json").read_text(encoding="utf-8"))
    spec["paths"]["/"]["post"]["requestBody"]["content"]["application/json"]["schema"] = {
        "oneOf": [{"$ref": "#/components/schemas/CreateCallRequestBase"}, {"description": "Anything."}]
    }
    edited = tmp_path / "spec.json"
    edited.write_text(json.dumps(spec), encoding="utf-8")
    result = generate(edited, FRAGMENTS / "mapping.yaml")
    [note] = _codes(result.diagnostics, "M242")
    assert (
        note.level == Level.WARNING
        and note.source.pointer == "/paths/~1/post/requestBody/content/application~1json/schema"
    )
    assert "POST /" in note.message


@pytest.mark.skipif(not API_VIDEO.is_file(), reason="the corpus is fetched by scripts/sweep/sweep.py")
def test_an_invalid_keyword_stops_only_the_operation_using_it(tmp_path: Path) -> None:
    spec = load_spec(API_VIDEO)  # loads: the problem sits inside one schema
    assert [d.source.pointer for d in spec.invalid] == [BAD_POINTER]  # no misleading "$ref: Field required"
    text, draft = init_mapping(spec)
    [left] = [u for u in draft.unmapped if "PATCH /videos/{videoId}/thumbnail" in u.operation]
    assert "S010" in left.reason
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(text, encoding="utf-8")
    result = generate(API_VIDEO, mapping)
    assert result.ok
    [ignored] = _codes(result.diagnostics, "S010")
    assert ignored.level == Level.WARNING and ignored.source.pointer == BAD_POINTER
    assert "no mapped operation uses it" in ignored.message

    mapped = text.replace("tools:\n", "tools:\n  - name: thumbs\n    description: Pick a thumbnail.\n"
                          "    actions:\n      - name: pick\n        operation: PATCH_videos-videoId-thumbnail\n", 1)  # fmt: skip
    mapping.write_text(mapped, encoding="utf-8")
    refused = generate(API_VIDEO, mapping)
    assert not refused.ok
    [used] = _codes(refused.diagnostics, "S010")
    assert used.level == Level.ERROR and used.source.pointer == BAD_POINTER
    assert "PATCH /videos/{videoId}/thumbnail uses it" in used.message
