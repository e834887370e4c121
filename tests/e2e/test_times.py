"""Times as the spec allows them (issue 17 defect 7), on Google Calendar's events: a local time plus an
IANA time-zone name where the API takes one, an offset where it insists on one, every date-time
parameter checked (top-level date-range parameters too), and descriptions cut only between sentences.

# .cache/corpus/package/api/googleapis.com/calendar.json: /paths/~1calendars~1{calendarId}~1events/get
# (timeMin, timeMax: "Must be an RFC3339 timestamp with mandatory time zone offset") and .../post;
# /components/schemas/EventDateTime/properties/dateTime ("A time zone offset is required unless a time
# zone is explicitly specified in timeZone.").
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.packages import write_package
from tests.support.mcp_client import result_text, stdio_client, tool_dicts
from tests.support.paths import ROOT
from tests.upstreams.realspecs import CalendarUpstream

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

REAL = ROOT / "tests" / "fixtures" / "realspecs"
SPEC, MAPPING = REAL / "google-calendar-events.json", REAL / "calendar.mapping.yaml"
# Prism judges every request the stand-in receives against the same fragment.
PRISM_SPECS = {CalendarUpstream: SPEC}


@pytest.fixture(scope="module")
def calendar_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("calendar") / "calendar"
    write_package(SPEC, MAPPING, out)
    return out


def serving(package: Path, base_url: str) -> tuple[list[str], dict[str, str]]:
    env = {"PYTHONPATH": str(package), "CALENDAR_BASE_URL": base_url, "CALENDAR_TOKEN": "cal-test-token"}
    return [sys.executable, "-m", "calendar_mcp"], env


def insert(start: dict[str, Any], end: dict[str, Any]) -> dict[str, Any]:
    return {"action": "insert", "calendar_id": "primary", "summary": "Standup", "start": start, "end": end}


LOCAL = {"dateTime": "2026-11-02T09:00:00", "timeZone": "Asia/Seoul"}
LOCAL_END = {"dateTime": "2026-11-02T09:15:00", "timeZone": "Asia/Seoul"}


# A local time with its timeZone, which the spec's prose allows and the API takes, Prism flags as breaking
# `format: date-time` (RFC 3339 wants an offset): the schema keyword and the sentence beside it
# (/components/schemas/EventDateTime/properties/dateTime) disagree, and this server follows the sentence.
@pytest.mark.prism_expects(
    'body.start.dateTime: Request body property start.dateTime must match format "date-time"',
    'body.end.dateTime: Request body property end.dateTime must match format "date-time"',
)
async def test_a_local_time_with_its_time_zone_name_is_sent_as_the_api_allows(calendar_package: Path) -> None:
    with CalendarUpstream() as calendar:
        command, env = serving(calendar_package, calendar.base_url)
        async with stdio_client(command, env) as client:
            local = await client.call_tool("calendar_events", insert(LOCAL, LOCAL_END))
            offset = await client.call_tool(
                "calendar_events",
                insert({"dateTime": "2026-11-02T09:00:00+09:00"}, {"dateTime": "2026-11-02T09:15:00+09:00"}),
            )
    assert not local.is_error, result_text(local)
    assert not offset.is_error, result_text(offset)
    first, second = calendar.requests
    assert (first.json["start"], first.json["end"]) == (LOCAL, LOCAL_END)
    assert second.json["start"] == {"dateTime": "2026-11-02T09:00:00+09:00"}


@pytest.mark.parametrize(
    ("start", "said"),
    [
        ({"dateTime": "2026-11-02T09:00:00"}, "is a local time, so timeZone must name its time zone"),
        ({"dateTime": "2026-11-02T09:00:00", "timeZone": "Mars/Olympus"}, "'Mars/Olympus' is not an IANA"),
        ({"dateTime": "2026-02-30T09:00:00", "timeZone": "Asia/Seoul"}, "is not a real date and clock time"),
        ({"dateTime": "tomorrow 9am", "timeZone": "Asia/Seoul"}, "tomorrow 9am"),
    ],
    ids=["local-without-zone", "unknown-zone", "no-such-day", "relative"],
)
async def test_a_time_the_api_cannot_place_is_refused_before_any_request(
    calendar_package: Path, start: dict[str, Any], said: str
) -> None:
    with CalendarUpstream() as calendar:
        command, env = serving(calendar_package, calendar.base_url)
        async with stdio_client(command, env) as client:
            result = await client.call_tool("calendar_events", insert(start, LOCAL_END))
    assert result.is_error
    assert said in result_text(result)
    assert calendar.requests == []


@pytest.mark.parametrize("value", ["2026-11-01T00:00:00", "2026-11-01", "tomorrow"])
async def test_top_level_date_range_parameters_are_checked(calendar_package: Path, value: str) -> None:
    """timeMin has no `format` in the spec, only "Must be an RFC3339 timestamp with mandatory time zone
    offset": it is checked as a date-time with an offset, as the spec says."""
    with CalendarUpstream() as calendar:
        command, env = serving(calendar_package, calendar.base_url)
        async with stdio_client(command, env) as client:
            refused = await client.call_tool(
                "calendar_events", {"action": "list", "calendar_id": "primary", "time_min": value}
            )
            sent = await client.call_tool(
                "calendar_events",
                {"action": "list", "calendar_id": "primary", "time_min": "2026-11-01T00:00:00+09:00"},
            )
    assert refused.is_error and "time_min" in result_text(refused)
    assert not sent.is_error, result_text(sent)
    [request] = calendar.requests
    assert request.param("timeMin") == "2026-11-01T00:00:00+09:00"


async def test_descriptions_keep_the_sentence_that_states_the_rule(calendar_package: Path) -> None:
    with CalendarUpstream() as calendar:
        command, env = serving(calendar_package, calendar.base_url)
        async with stdio_client(command, env) as client:
            [tool] = tool_dicts(await client.list_tools())
    properties = tool["inputSchema"]["properties"]
    date_time = properties["start"]["properties"]["dateTime"]["description"]
    assert (
        "A time zone offset is required unless a time zone is explicitly specified in timeZone." in date_time
    )
    assert (
        "Must be an RFC3339 timestamp with mandatory time zone offset"
        in properties["time_min"]["description"]
    )
    for prop in (properties["start"]["properties"]["timeZone"], properties["time_min"], properties["start"]):
        assert prop["description"].endswith((".", ".)", '."')), prop["description"]  # never mid-sentence
