"""Hostile text from the agent: patterns, header and cookie values, and values too long to quote
(issue 11, finding 7).

A pattern is the whole value ("dep_1\\n" is not `^dep_[0-9]+$`); a header or cookie value that HTTP
cannot carry as one value is refused as an argument to fix, before any request is built, never
reported as an outcome to check; an error quotes at most a couple of hundred characters of what the
agent sent. Each test runs a generated server as a subprocess against a recording upstream.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.hostile.runtime_servers import (
    SECRET,
    SpecUpstream,
    command,
    environment,
    example_env,
    generate,
    generate_from,
    has_traceback,
)
from tests.support.mcp_client import result_text, stdio_client
from tests.upstreams.ads import AdsUpstream
from tests.upstreams.deploy import DeployUpstream

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

MAX_QUOTED = 200  # the most of one bad value an error may repeat

# A test-only API that takes a header and a cookie from the agent, on a read and on a change.
NOTES_SPEC = """\
openapi: 3.1.0
info: {title: Notes API, version: 1.0.0, description: A test-only API that reads a header and a cookie.}
servers: [{url: "http://127.0.0.1:8095"}]
security: [{apiKey: []}]
paths:
  /notes/{note_id}:
    get:
      operationId: getNote
      summary: Get one note
      parameters:
        - {name: note_id, in: path, required: true, schema: {type: string, example: n_1}}
        - {name: X-Trace-Note, in: header, description: A note for the request log., schema: {type: string, example: checking}}
        - {name: session_hint, in: cookie, description: The session the note belongs to., schema: {type: string, example: s42}}
      responses:
        "200": {description: The note., content: {application/json: {schema: {$ref: "#/components/schemas/Note"}}}}
  /notes:
    post:
      operationId: createNote
      summary: Create a note
      parameters:
        - {name: X-Trace-Note, in: header, description: A note for the request log., schema: {type: string, example: checking}}
        - {name: session_hint, in: cookie, description: The session the note belongs to., schema: {type: string, example: s42}}
      requestBody:
        required: true
        content:
          application/json:
            schema: {type: object, required: [text], properties: {text: {type: string, description: The note., example: hello}}}
      responses:
        "201": {description: The new note., content: {application/json: {schema: {$ref: "#/components/schemas/Note"}}}}
components:
  securitySchemes:
    apiKey: {type: apiKey, in: header, name: X-API-Key}
  schemas:
    Note: {type: object, properties: {id: {type: string}, text: {type: string}}}
"""
NOTES_MAPPING = """\
mcpgen: 1
server:
  name: notes
  title: Notes
  base_url: {env: NOTES_BASE_URL, default: "http://127.0.0.1:8095"}
  auth: {type: api_key, env: NOTES_API_KEY, in: header, name: X-API-Key}
  timeout_s: 5
tools:
  - name: entries
    description: Read a note by its id, or write a new one.
    use_when: you need a note's text, or want to keep a new note
    not_for: deleting notes; this server cannot
    returns: the note record with its id and text
    does_not_return: the request log
    actions:
      - {name: get, operation: getNote}
      - {name: create, operation: createNote}
"""
NOTES_TOOL = "notes_entries"


@pytest.fixture(scope="module")
def notes_package(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    work = tmp_path_factory.mktemp("hostile-notes")
    (work / "notes.openapi.yaml").write_text(NOTES_SPEC, encoding="utf-8")
    (work / "mapping.yaml").write_text(NOTES_MAPPING, encoding="utf-8")
    return generate_from(
        work / "notes.openapi.yaml", work / "mapping.yaml", work / "out"
    ), work / "notes.openapi.yaml"


@pytest.fixture(scope="module")
def deploy_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate("deploy", tmp_path_factory.mktemp("hostile-deploy"))


@pytest.fixture(scope="module")
def ads_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate("ads", tmp_path_factory.mktemp("hostile-text-ads"))


def _fix_the_argument(text: str, argument: str) -> None:
    assert argument in text and "(fix the input)" in text, text
    assert "unknown" not in text and "Do not repeat" not in text, text  # nothing was sent (E4 is not this)
    assert not has_traceback(text) and SECRET not in text


async def test_a_pattern_is_the_whole_value(deploy_package: Path, tmp_path: Path) -> None:
    """Today: "dep_1\\n" passes `^dep_[0-9]+$` (`$` matches before a final newline) and is sent."""
    with DeployUpstream(key=SECRET) as upstream:
        env = example_env("deploy", deploy_package, upstream, tmp_path / "p.db")
        async with stdio_client(command("deploy_mcp"), env) as client:
            refused = [
                await client.call_tool("deploy_deployments_find", arguments)
                for arguments in (
                    {"action": "get", "deployment_id": "dep_104\n"},
                    {"action": "list", "service": "checkout\n"},
                    {"action": "get", "deployment_id": "dep_١٠٤"},  # Arabic-Indic digits are not [0-9]
                )
            ]
            accepted = await client.call_tool(
                "deploy_deployments_find", {"action": "get", "deployment_id": "dep_104"}
            )
        for result, argument in zip(refused, ("deployment_id", "service", "deployment_id"), strict=True):
            assert result.is_error
            _fix_the_argument(result_text(result), argument)
        assert not accepted.is_error, result_text(accepted)
        assert [r.path for r in upstream.requests] == ["/deployments/dep_104"]


COOKIES_REFUSED = [
    "abc; admin=true",
    "a,b",
    "two words",
    "tab\there",
    "nul\x00",
    'quote"d',
    "back\\slash",
    "newline\n",
    "del\x7f",
    "caf\u00e9",
]
HEADERS_REFUSED = [
    "x\r\nX-Injected: 1",
    "line\nbreak",
    "carriage\rreturn",
    "nul\x00byte",
    "bell\x07",
    "del\x7f",
    "caf\u00e9",
    " padded",
]


@pytest.mark.parametrize("action", ["get", "create"])
async def test_header_and_cookie_values_are_checked_before_sending(
    notes_package: tuple[Path, Path], tmp_path: Path, action: str
) -> None:
    """Today: `abc; admin=true` is sent as two cookies, and a CR/LF header value on a POST is refused
    by h11 mid-send and reported as "outcome unknown, do not repeat" though nothing was sent."""
    out, spec = notes_package
    base = {"action": action, **({"note_id": "n_1"} if action == "get" else {"text": "hello"})}
    with SpecUpstream(spec, token_header="x-api-key") as upstream:
        env = environment(out, NOTES_BASE_URL=upstream.base_url, NOTES_API_KEY=SECRET)
        async with stdio_client(command("notes_mcp"), env) as client:
            cookies = [
                await client.call_tool(NOTES_TOOL, {**base, "session_hint": v}) for v in COOKIES_REFUSED
            ]
            headers = [
                await client.call_tool(NOTES_TOOL, {**base, "x_trace_note": v}) for v in HEADERS_REFUSED
            ]
            assert upstream.requests == []
            fine = await client.call_tool(
                NOTES_TOOL,
                {
                    **base,
                    "session_hint": "s42!#$%&'()*+-./:<=>?@[]^_`{|}~",
                    "x_trace_note": "checking, with spaces; and\tpunctuation",
                },
            )
    for result, value in zip(cookies, COOKIES_REFUSED, strict=True):
        assert result.is_error, value
        _fix_the_argument(result_text(result), "session_hint")
    for result, value in zip(headers, HEADERS_REFUSED, strict=True):
        assert result.is_error, value
        _fix_the_argument(result_text(result), "x_trace_note")
    assert not fine.is_error, result_text(fine)
    [sent] = upstream.requests
    assert sent.headers["cookie"] == "session_hint=s42!#$%&'()*+-./:<=>?@[]^_`{|}~"
    assert sent.headers["x-trace-note"] == "checking, with spaces; and\tpunctuation"


def _longest_run(text: str, char: str) -> int:
    return max((len(m) for m in re.findall(f"{re.escape(char)}+", text)), default=0)


async def test_an_error_quotes_only_the_start_of_a_long_value(ads_package: Path, tmp_path: Path) -> None:
    """Today: each of these errors repeats the whole value, up to 1.1 MB in one result."""
    long = "x" * 1_000_000
    with AdsUpstream(token=SECRET) as upstream:
        env = example_env("ads", ads_package, upstream, tmp_path / "p.db")
        async with stdio_client(command("ads_mcp"), env) as client:
            results = [
                await client.call_tool("ads_campaigns_find", arguments)
                for arguments in (
                    {"action": "get", "campaign_id": long},  # fails the pattern
                    {"action": "get", "campaign_id": [long, long]},  # the wrong type
                    {"action": "list", "status": long},  # not in the enum
                    {"action": long},  # no such action
                    {"action": "list", long: 1},  # no such parameter
                    {"action": "get", "campaign_id": "cmp_001", "response_format": {long: long}},
                )
            ]
            results.append(await client.call_tool("ads_budget_change_apply", {"preview_id": "p", long: 1}))
            results.append(
                await client.call_tool(
                    "ads_campaign_change",
                    {
                        "action": "create",
                        "name": "n",
                        "daily_budget_krw": 5000,
                        "objective": "traffic",
                        "start_date": long,
                    },
                )
            )
            many = await client.call_tool(
                "ads_campaigns_find", {"action": "list", **{f"k{i}": i for i in range(5000)}}
            )
        assert upstream.requests == []
    assert many.is_error and "(4990 more problems not shown.)" in result_text(many)
    assert len(result_text(many)) < 2_000
    for result in results:
        text = result_text(result)
        assert result.is_error and "(fix the input)" in text, text[:500]
        assert _longest_run(text, "x") <= MAX_QUOTED, text[:500]
        assert len(text) < 2_000, text[:500]
        assert "characters" in text, text[:500]  # says that the value was cut, and how long it was
