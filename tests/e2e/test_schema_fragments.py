"""Schemas and serialization as real APIs write them (issue 12 defects 4 and 10, issue 17 defects 5
and 6, the oracle's findings 7-10): real spec fragments (tests/fixtures/schemas/realworld.openapi.json,
each operation's `x-fragment-of` names its source spec and JSON pointer) generated into a package,
run as a stdio subprocess, driven by the official MCP client, calling a loopback upstream on
127.0.0.1 that records every request."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import pytest

from tests.e2e.packages import write_package
from tests.support.mcp_client import result_text, stdio_client, tool_dicts
from tests.support.paths import ROOT
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest, Reply

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

FIXTURE = ROOT / "tests" / "fixtures" / "schemas"
PATHS = (
    ("POST", "/"),
    ("POST", "/CompareStrings"),
    ("POST", "/calendars/{calendarId}/events"),
    ("GET", "/repos/{owner}/{repo}/issues"),
    ("GET", "/user/repos"),
    ("POST", "/v1/device/code"),
    ("GET", "/v1/charges"),
    ("GET", "/search"),
    ("PATCH", "/resources/{Arn}/tags"),
    ("POST", "/jobs"),
)


class FragmentsUpstream(LoopbackUpstream):
    """Answers every fragment's operation with an empty object; the tests read what was sent."""

    def __init__(self) -> None:
        super().__init__()
        for method, pattern in PATHS:
            self.route(method, pattern, lambda request, path: Reply(200, {}))


# Prism judges every request the stand-in receives against the spec it answers for (tests/support/prism.py).
PRISM_SPECS = {FragmentsUpstream: FIXTURE / "realworld.openapi.json"}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("frag") / "frag"
    write_package(FIXTURE / "realworld.openapi.json", FIXTURE / "mapping.yaml", out)
    return out


@pytest.fixture
def upstream() -> Iterator[FragmentsUpstream]:
    with FragmentsUpstream() as running:
        yield running


def _client(package: Path, upstream: FragmentsUpstream) -> Any:
    env = {"PYTHONPATH": str(package), "FRAG_BASE_URL": upstream.base_url}
    return stdio_client([sys.executable, "-m", "frag_mcp"], env)


def _walk(schema: Any) -> Iterator[dict[str, Any]]:
    if isinstance(schema, dict):
        yield schema
        for value in schema.values():
            yield from _walk(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _walk(value)


def _form(request: RecordedRequest) -> list[tuple[str, str]]:
    return parse_qsl(request.body.decode(), keep_blank_values=True)


# Nexmo's `to` items are oneOf EndpointPhoneTo | EndpointSip | ...; EndpointSip requires only `type`, so a
# phone endpoint also fits it and no phone `to` can match exactly one (the spec's oneOf, not the server).
# (Prism then also finds the body fits neither form, for that reason alone.)
@pytest.mark.prism_expects(
    "body.to.0: Request body property to.0 must match exactly one schema in oneOf",
    "body: Request body must have required property 'ncco'",
    "body: Request body must match exactly one schema in oneOf",
)
async def test_a_oneof_body_is_one_flat_set_checked_per_form(
    package: Path, upstream: FragmentsUpstream
) -> None:
    # nexmo.com/voice.json /paths/~1/post/requestBody: oneOf CreateCallRequestNcco |
    # CreateCallRequestAnswerUrl, each an allOf of {required: [ncco]} or {required: [answer_url]} and the base.
    to = [{"type": "phone", "number": "14155550100"}]
    sender = {"type": "phone", "number": "14155550101"}
    async with _client(package, upstream) as client:
        tools = {t["name"]: t for t in tool_dicts(await client.list_tools())}
        neither = await client.call_tool("frag_calls_change", {"action": "create", "to": to, "from": sender})
        both_forms = await client.call_tool(
            "frag_calls_change",
            {"action": "create", "to": to, "from": sender, "answer_url": ["https://example.com/answer"]},
        )
    schema = tools["frag_calls_change"]["inputSchema"]
    assert not any(k in node for node in _walk(schema) for k in ("oneOf", "anyOf", "allOf"))  # T2
    properties = schema["properties"]
    assert {"ncco", "answer_url", "to", "from", "event_url"} <= set(properties)
    assert "Needed in the body form 'With NCCO'" in properties["ncco"]["description"]
    assert "Needed in the body form 'With Answer URL'" in properties["answer_url"]["description"]
    description = tools["frag_calls_change"]["description"]
    assert "'With NCCO' (needs ncco, to, from), 'With Answer URL' (needs answer_url, to, from)" in description
    text = result_text(neither)
    assert neither.is_error and "fit none of them" in text and "'With NCCO' needs ncco, to, from" in text
    assert not both_forms.is_error, result_text(both_forms)
    [sent] = upstream.requests  # the refused call sent nothing
    assert sent.json == {"to": to, "from": sender, "answer_url": ["https://example.com/answer"]}


async def test_an_optional_body_still_needs_its_required_fields(
    package: Path, upstream: FragmentsUpstream
) -> None:
    # apptigent.com.json /paths/~1CompareStrings/post/requestBody: "required": false, and
    # /components/schemas/inputStringComparison requires input, compare, lower, trim.
    async with _client(package, upstream) as client:
        partial = await client.call_tool("frag_strings_compare", {"action": "compare", "input": "Abc"})
        none = await client.call_tool("frag_strings_compare", {"action": "compare"})
    text = result_text(partial)
    assert partial.is_error and "that body needs compare (string), lower" in text
    assert not none.is_error, result_text(none)
    [sent] = upstream.requests
    assert sent.body == b""  # no body at all: the operation allows that


async def test_nested_objects_are_strict_and_keep_their_fields(
    package: Path, upstream: FragmentsUpstream
) -> None:
    # googleapis.com/calendar.json /paths/~1calendars~1{calendarId}~1events/post/requestBody:
    # /components/schemas/Event: start (EventDateTime), attendees (array of EventAttendee),
    # reminders.overrides (array of EventReminder: three levels).
    async with _client(package, upstream) as client:
        tools = {t["name"]: t for t in tool_dicts(await client.list_tools())}
        wrong_case = await client.call_tool(
            "frag_events_change",
            {
                "action": "insert",
                "calendar_id": "primary",
                "start": {"datetime": "2026-11-02T09:00:00+09:00"},
            },
        )
        right = await client.call_tool(
            "frag_events_change",
            {
                "action": "insert",
                "calendar_id": "primary",
                "start": {"dateTime": "2026-11-02T09:00:00+09:00"},
                "attendees": [{"email": "kim@example.com"}],
                "reminders": {"useDefault": False, "overrides": [{"method": "email", "minutes": 30}]},
            },
        )
    properties = tools["frag_events_change"]["inputSchema"]["properties"]
    start = properties["start"]
    assert start["additionalProperties"] is False and "dateTime" in start["properties"]
    attendee = properties["attendees"]["items"]
    assert attendee["additionalProperties"] is False and "email" in attendee["properties"]
    override = properties["reminders"]["properties"]["overrides"]["items"]
    assert {"method", "minutes"} <= set(override["properties"])
    text = result_text(wrong_case)
    assert (
        wrong_case.is_error
        and "start: Additional properties are not allowed ('datetime' was unexpected)" in text
    )
    assert not right.is_error, result_text(right)
    [sent] = upstream.requests
    assert sent.json["start"] == {"dateTime": "2026-11-02T09:00:00+09:00"}
    assert sent.json["reminders"]["overrides"] == [{"method": "email", "minutes": 30}]


async def test_nested_required_fields_are_asked_for(package: Path, upstream: FragmentsUpstream) -> None:
    # rev.ai.json /paths/~1jobs/post/requestBody: custom_vocabularies[] items require `phrases`.
    async with _client(package, upstream) as client:
        tools = {t["name"]: t for t in tool_dicts(await client.list_tools())}
        missing = await client.call_tool(
            "frag_jobs_change",
            {"action": "submit", "media_url": "https://example.com/a.mp3", "custom_vocabularies": [{}]},
        )
    items = tools["frag_jobs_change"]["inputSchema"]["properties"]["custom_vocabularies"]["items"]
    assert items["required"] == ["phrases"] and "phrases" in items["properties"]
    assert missing.is_error and "'phrases' is a required property" in result_text(missing)
    assert upstream.requests == []


async def test_each_action_accepts_its_own_enum(package: Path, upstream: FragmentsUpstream) -> None:
    # github.json /paths/~1repos~1{owner}~1{repo}~1issues/get/parameters (sort: created, updated,
    # comments) and /paths/~1user~1repos/get/parameters (sort: created, updated, pushed, full_name).
    async with _client(package, upstream) as client:
        tools = {t["name"]: t for t in tool_dicts(await client.list_tools())}
        repos = await client.call_tool("frag_github_find", {"action": "repos", "sort": "pushed"})
        issues = await client.call_tool(
            "frag_github_find", {"action": "issues", "owner": "octo", "repo": "hello", "sort": "comments"}
        )
        wrong = await client.call_tool(
            "frag_github_find", {"action": "issues", "owner": "octo", "repo": "hello", "sort": "pushed"}
        )
    sort = tools["frag_github_find"]["inputSchema"]["properties"]["sort"]
    assert sort["enum"] == ["created", "updated", "comments", "pushed", "full_name"]
    assert 'issues: "created", "updated", "comments"; repos: "created"' in sort["description"]
    assert not repos.is_error and not issues.is_error, result_text(repos) + result_text(issues)
    assert wrong.is_error and "'pushed' is not one of ['created', 'updated', 'comments']" in result_text(
        wrong
    )
    assert [r.param("sort") for r in upstream.requests] == ["pushed", "comments"]


# Prism reads an exploded form array (Scopes=a&Scopes=b, OpenAPI's default for a form body) as one string,
# and splits a query array of objects (Box's mdfilters, sent as JSON as Box documents; OpenAPI defines no
# serialization for it) at its commas: both are how Prism decodes, not what the server sent wrong.
@pytest.mark.prism_expects(
    "body.Scopes: Request body property Scopes must be array",
    "query.mdfilters: Request query parameter mdfilters must NOT have more than 1 items",
    "query.mdfilters.",  # each of the comma-cut pieces "must be object"
)
async def test_arrays_and_objects_are_serialized_as_the_spec_says(
    package: Path, upstream: FragmentsUpstream
) -> None:
    # twilio.com/twilio_oauth_v1.json /paths/~1v1~1device~1code/post/requestBody (form; Scopes and
    # Audiences are arrays: form style, exploded); stripe.json /paths/~1v1~1charges/get/parameters
    # (created: style deepObject); box.com.json /paths/~1search/get/parameters (mdfilters: a list of
    # objects, sent as JSON).
    filters = [{"scope": "enterprise", "templateKey": "contract", "filters": {"category": "online"}}]
    async with _client(package, upstream) as client:
        code = await client.call_tool(
            "frag_device_change",
            {"action": "code", "client_sid": "OQ" + "0" * 32, "scopes": ["offline_access", "openid"]},
        )
        charges = await client.call_tool(
            "frag_charges_find", {"action": "list", "created": {"gte": 1700000000}}
        )
        search = await client.call_tool("frag_files_search", {"action": "search", "mdfilters": filters})
    for result in (code, charges, search):
        assert not result.is_error, result_text(result)
    device, listing, found = upstream.requests
    assert device.headers["content-type"] == "application/x-www-form-urlencoded"
    assert _form(device) == [
        ("ClientSid", "OQ" + "0" * 32),
        ("Scopes", "offline_access"),
        ("Scopes", "openid"),
    ]
    assert listing.query["created[gte]"] == ["1700000000"]
    assert json.loads(found.query["mdfilters"][0]) == filters


async def test_ecma_patterns_are_checked_not_crashed_on(package: Path, upstream: FragmentsUpstream) -> None:
    # amazonaws.com/resource-groups.json /components/schemas/TagKey:
    # pattern ^([\p{L}\p{Z}\p{N}_.:/=+\-@]*)$ (ECMA-262 Unicode property classes).
    arn = "arn:aws:resource-groups:us-east-1:123456789012:group/g"
    async with _client(package, upstream) as client:
        good = await client.call_tool(
            "frag_tags_change", {"action": "untag", "arn": arn, "keys": ["Zürich 東京"]}
        )
        bad = await client.call_tool("frag_tags_change", {"action": "untag", "arn": arn, "keys": ["a;b"]})
    assert not good.is_error, result_text(good)
    assert bad.is_error and "keys[0]: 'a;b' does not match" in result_text(bad)
    [sent] = upstream.requests
    assert sent.json == {"Keys": ["Zürich 東京"]}
