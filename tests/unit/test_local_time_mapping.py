"""`format: local-date-time` (T5 parameter names): a date-time the mapping says may be a local time
read in the zone of the time-zone argument beside it; M245 where there is no such pair. The operation
is Zoom's meeting create (zoom.us.json /paths/~1users~1{userId}~1meetings/post)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpgen import codes
from mcpgen.build.server import build_server
from mcpgen.build.times import LOCAL_OR_OFFSET
from mcpgen.load.mapping import load_mapping
from mcpgen.load.openapi import load_spec
from tests.support.paths import ROOT
from tests.support.spec_fragments import fragment

ZOOM = ROOT / ".cache" / "corpus" / "package" / "api" / "zoom.us.json"
HEAD = """\
mcpgen: 1
server: {name: zoom, base_url: {env: ZOOM_BASE_URL}}
tools:
  - name: meetings_change
    description: Schedule a meeting for a user.
    actions:
      - name: create
        operation: meetingCreate
"""


def _built(tmp_path: Path, params: str, drop_zone: bool = False):  # type: ignore[no-untyped-def]
    spec = fragment(ZOOM, [("/users/{userId}/meetings", "post")])
    schema = spec["paths"]["/users/{userId}/meetings"]["post"]["requestBody"]["content"]["application/json"][
        "schema"
    ]
    schema["properties"]["start_time"]["description"] = "Meeting start time."
    if drop_zone:
        del schema["properties"]["timezone"]
    (tmp_path / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    (tmp_path / "mapping.yaml").write_text(HEAD + f"        params: {params}\n", encoding="utf-8")
    return build_server(
        load_spec(tmp_path / "spec.json"),
        load_mapping(tmp_path / "mapping.yaml"),
        spec_file="s",
        mapping_file="m",
    )


def test_the_mapping_makes_a_date_time_local_beside_its_zone(tmp_path: Path) -> None:
    built = _built(tmp_path, "{start_time: {format: local-date-time}}")
    assert built.server is not None
    [action] = built.server.tools[0].actions
    [start] = [p for p in action.params if p.arg_name == "start_time"]
    assert start.schema["pattern"] == LOCAL_OR_OFFSET and "format" not in start.schema
    assert "with timezone set" in start.schema["description"]


@pytest.mark.parametrize(
    ("params", "drop_zone", "lacking"),
    [
        ("{topic: {format: local-date-time}}", False, "needs a date-time"),
        ("{start_time: {format: local-date-time}}", True, "needs a time-zone argument beside it"),
    ],
)
def test_local_date_time_needs_a_date_time_and_a_zone(
    tmp_path: Path, params: str, drop_zone: bool, lacking: str
) -> None:
    built = _built(tmp_path, params, drop_zone)
    [found] = [d for d in built.diagnostics if d.code == codes.M245]
    assert lacking in found.message and found.source.file.endswith("mapping.yaml")
