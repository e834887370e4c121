"""Local time with a zone (T5 parameter names): Zoom's meeting `start_time` is "local time and GMT ...
To set time using a specific timezone, use yyyy-MM-ddTHH:mm:ss format and specify the timezone ID in
the timezone field" (zoom.us.json /paths/~1users~1{userId}~1meetings/post, MeetingCreate). The server
takes a local time when `timezone` is given, refuses one without it (the error names the field), and
keeps a readable message for a value that is neither. A spec that says nothing gets the same from the
mapping's `format: local-date-time`. Through the official MCP client and a recording stand-in.

Prism judges the requests with an offset; the spec's schema says `format: date-time` while its text
allows a local time, so Prism (which reads only the schema) cannot judge those: a stand-in of its own.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.mcp_client import result_text, stdio_client
from tests.support.paths import ROOT
from tests.support.spec_fragments import fragment, request_fragment
from tests.support.venvs import run_mcpgen
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest, Reply

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

ZOOM = ROOT / ".cache" / "corpus" / "package" / "api" / "zoom.us.json"
OPERATIONS = [("/users/{userId}/meetings", "post")]
MAPPING = """\
mcpgen: 1
server:
  name: zoom
  base_url: {env: ZOOM_BASE_URL}
  auth: {type: bearer, env: ZOOM_TOKEN}
tools:
  - name: meetings_change
    description: Schedule a meeting for a user.
    actions:
      - name: create
        operation: meetingCreate
"""


def silent_spec() -> dict[str, Any]:
    """The same operation with start_time's description cut to its first sentence: the spec no
    longer says a local time is allowed, so the mapping says it (`format: local-date-time`)."""
    spec = fragment(ZOOM, OPERATIONS)
    body = spec["paths"]["/users/{userId}/meetings"]["post"]["requestBody"]["content"]["application/json"]
    body["schema"]["properties"]["start_time"]["description"] = "Meeting start time."
    return spec


class ZoomMeetings(LoopbackUpstream):
    def __init__(self) -> None:
        super().__init__()
        self.route("POST", "/users/{userId}/meetings", self.create)

    def create(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        body = request.json or {}
        return Reply(201, {"id": 85746065, "topic": body.get("topic"), "start_time": body.get("start_time"),
                           "timezone": body.get("timezone")})  # fmt: skip


class Meetings(ZoomMeetings):
    """Receives the times with an offset: Prism judges them."""


class LocalMeetings(ZoomMeetings):
    """Receives the local times: judged by what Zoom's text allows, not by Prism (see above)."""


PRISM_SPECS = {Meetings: lambda: request_fragment(ZOOM, OPERATIONS)}


def generate(root: Path, spec: dict[str, Any], mapping: str) -> Path:
    (root / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    (root / "mapping.yaml").write_text(mapping, encoding="utf-8")
    completed = run_mcpgen("generate", root / "spec.json", "-m", root / "mapping.yaml", "-o", root / "out")
    assert completed.returncode == 0, completed.stderr
    return root / "out"


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    marked = MAPPING + "        params: {start_time: {format: local-date-time}}\n"
    return {
        "spec": generate(tmp_path_factory.mktemp("zoom"), fragment(ZOOM, OPERATIONS), MAPPING),
        "mapping": generate(tmp_path_factory.mktemp("silent"), silent_spec(), marked),
    }


async def create(package: Path, upstream: LoopbackUpstream, calls: list[dict[str, Any]]) -> list[Any]:
    env = {"PYTHONPATH": str(package), "ZOOM_BASE_URL": upstream.base_url, "ZOOM_TOKEN": "t"}
    async with stdio_client([sys.executable, "-m", "zoom_mcp"], env) as client:
        return [
            await client.call_tool("zoom_meetings_change", {"action": "create", "user_id": "me", **call})
            for call in calls
        ]


@pytest.mark.parametrize("source", ["spec", "mapping"])
async def test_a_local_time_is_taken_beside_its_time_zone(packages: dict[str, Path], source: str) -> None:
    with LocalMeetings() as upstream:
        local, alone, unknown_zone = await create(
            packages[source],
            upstream,
            [
                {"topic": "Standup", "start_time": "2026-11-01T09:00:00", "timezone": "Asia/Seoul"},
                {"topic": "Standup", "start_time": "2026-11-01T09:00:00"},
                {"topic": "Standup", "start_time": "2026-11-01T09:00:00", "timezone": "Mars/Olympus"},
            ],
        )
        requests = list(upstream.requests)
    assert not local.is_error, result_text(local)
    assert [r.json["start_time"] for r in requests] == ["2026-11-01T09:00:00"]  # sent as given
    assert alone.is_error and "timezone must name its time zone" in result_text(alone)
    assert unknown_zone.is_error and "not an IANA time-zone name" in result_text(unknown_zone)


async def test_an_offset_time_and_a_readable_refusal(packages: dict[str, Path]) -> None:
    with Meetings() as upstream:
        offset, wrong = await create(
            packages["spec"],
            upstream,
            [
                {"topic": "Standup", "start_time": "2026-11-01T00:00:00Z"},
                {"topic": "Standup", "start_time": "tomorrow 9am", "timezone": "Asia/Seoul"},
            ],
        )
        requests = list(upstream.requests)
    assert not offset.is_error, result_text(offset)
    assert [r.json["start_time"] for r in requests] == ["2026-11-01T00:00:00Z"]
    text = result_text(wrong)
    assert wrong.is_error and "is not an ISO 8601 date-time" in text and "local time" in text
    assert "\\d{4}" not in text  # the pattern is not shown
