"""Results as agents read them (R1-R4): concise vs detailed, one paging shape over four upstream styles,
and announced truncation. Generated servers run as stdio subprocesses driven by the official MCP client,
calling real HTTP upstreams on 127.0.0.1."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpgen.lint.tokens import load_counter
from tests.e2e.conftest import InstalledServer, server_env
from tests.support.mcp_client import result_json, result_text, stdio_client
from tests.support.paths import ROOT
from tests.support.venvs import run_mcpgen
from tests.upstreams.pages import BOOK_COUNT, COMMIT_COUNT, EVENT_COUNT, PagesUpstream

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

PAGES = ROOT / "tests" / "fixtures" / "pages"
PAGES_BUDGET = 2000  # max_result_tokens in tests/fixtures/pages/mapping.yaml
TOOL = "pages_catalog_find"


def tokens(data: Any) -> int:
    """JSON characters / 4: the ratio R2 states, on the same measure for both formats."""
    return len(json.dumps(data, ensure_ascii=False)) // 4


def o200k_tokens(text: str) -> int:
    """Real tokens (bpe-openai's o200k_base, the test extra): what the result budget must hold to."""
    import bpe_openai

    return len(bpe_openai.get_encoding("o200k_base").encode(text))


@pytest.fixture(scope="module")
def pages_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pages") / "pages"
    completed = run_mcpgen("generate", PAGES / "pages.openapi.yaml", "-m", PAGES / "mapping.yaml", "-o", out)
    assert completed.returncode == 0, completed.stderr
    return out


@pytest.fixture
def pages_upstream():
    with PagesUpstream() as upstream:
        yield upstream


def pages_client(package: Path, upstream: PagesUpstream):
    env = {"PYTHONPATH": str(package), "PAGES_BASE_URL": upstream.base_url}
    return stdio_client([sys.executable, "-m", "pages_mcp"], env)


# --- R1, R2: response_format ----------------------------------------------------------------------


async def test_concise_is_at_most_half_of_detailed_and_keeps_ids(
    ads_server: InstalledServer, ads_upstream
) -> None:
    async with stdio_client(ads_server.command, server_env(ads_upstream)) as client:
        concise = result_json(await client.call_tool("ads_campaigns_find", {"action": "list"}))
        detailed = result_json(
            await client.call_tool("ads_campaigns_find", {"action": "list", "response_format": "detailed"})
        )
        one = result_json(
            await client.call_tool("ads_campaigns_find", {"action": "get", "campaign_id": "cmp_007"})
        )
        one_detailed = result_json(
            await client.call_tool(
                "ads_campaigns_find",
                {"action": "get", "campaign_id": "cmp_007", "response_format": "detailed"},
            )
        )
    assert [c["id"] for c in concise["items"]] == [c["id"] for c in detailed["items"]]  # the next call's ids
    assert list(concise["items"][0]) == ["id", "name", "status", "daily_budget"]  # readable values, in order
    assert {"owner", "objective", "start_date", "created_at"} <= set(detailed["items"][0])
    for record in (*detailed["items"], one_detailed):  # R1: low-level noise is in no format
        assert not {"uuid", "thumbnail_url_256px", "internal_revision"} & set(record)
    assert one == {k: one_detailed[k] for k in ("id", "name", "status", "daily_budget")}
    assert tokens(concise) * 2 <= tokens(detailed), (tokens(concise), tokens(detailed))  # R2
    assert tokens(one) * 2 <= tokens(one_detailed), (tokens(one), tokens(one_detailed))
    counter, _ = load_counter()  # real o200k_base tokens too (bpe-openai)
    if counter is not None:
        concise_tokens, detailed_tokens = (
            counter.count(json.dumps(d, ensure_ascii=False)) for d in (concise, detailed)
        )
        assert concise_tokens * 2 <= detailed_tokens, (concise_tokens, detailed_tokens)


# --- R3: one paging shape -------------------------------------------------------------------------


async def test_page_per_page_style(ads_server: InstalledServer, ads_upstream) -> None:
    async with stdio_client(ads_server.command, server_env(ads_upstream)) as client:
        last = result_json(await client.call_tool("ads_campaigns_find", {"action": "list", "page": 3}))
    [seen] = ads_upstream.requests
    assert seen.query == {"page": ["3"], "per_page": ["20"]}  # the default limit is sent
    assert [c["id"] for c in last["items"]] == ["cmp_005", "cmp_004", "cmp_003", "cmp_002", "cmp_001"]
    assert last["has_more"] is False and "next_page" not in last and last["total_count"] == 45
    assert "page" not in last and "per_page" not in last and "campaigns" not in last  # one shape only


async def walk(client: Any, arguments: dict[str, Any], key: str, follow: str) -> tuple[list[str], list[dict]]:
    """Follow next_page or next_cursor to the end; every id seen, and every result."""
    ids: list[str] = []
    results: list[dict] = []
    for _ in range(20):  # bounded: a paging bug must fail, not loop
        result = await client.call_tool(TOOL, arguments)
        assert not result.is_error, result_text(result)
        data = result_json(result)
        results.append(data)
        ids += [item[key] for item in data["items"]]
        if not data["has_more"]:
            return ids, results
        arguments = {**arguments, follow.removeprefix("next_"): data[follow]}
    raise AssertionError("paging never ended")


async def test_offset_limit_style_pages_from_one(pages_package: Path, pages_upstream: PagesUpstream) -> None:
    async with pages_client(pages_package, pages_upstream) as client:
        ids, results = await walk(client, {"action": "books", "limit": 10}, "id", "next_page")
    assert ids == [f"bk_{n:03d}" for n in range(1, BOOK_COUNT + 1)]
    assert [r.get("next_page") for r in results] == [*range(2, 11), None]
    assert all(r["total_count"] == BOOK_COUNT for r in results)
    offsets = [r.param("offset") for r in pages_upstream.requests]
    assert offsets == [None, *(str(n) for n in range(10, 100, 10))]  # page becomes the API's offset
    assert {r.param("limit") for r in pages_upstream.requests} == {"10"}


async def test_cursor_in_body_style(pages_package: Path, pages_upstream: PagesUpstream) -> None:
    async with pages_client(pages_package, pages_upstream) as client:
        ids, results = await walk(client, {"action": "events", "limit": 10}, "id", "next_cursor")
    assert ids == [f"ev_{n:02d}" for n in range(1, EVENT_COUNT + 1)]
    assert [r.get("next_cursor") for r in results] == ["pos-10", "pos-20", None]
    assert [(r.param("cursor"), r.param("page_size")) for r in pages_upstream.requests] == [
        (None, "10"),
        ("pos-10", "10"),
        ("pos-20", "10"),
    ]
    assert "meta" not in results[0] and "events" not in results[0]


async def test_link_header_style(pages_package: Path, pages_upstream: PagesUpstream) -> None:
    async with pages_client(pages_package, pages_upstream) as client:
        ids, results = await walk(client, {"action": "commits", "limit": 5}, "sha", "next_cursor")
    assert ids == [f"{n:040x}" for n in range(1, COMMIT_COUNT + 1)]
    assert [r["has_more"] for r in results] == [True, True, False]
    cursor = results[0]["next_cursor"]
    assert "127.0.0.1" not in cursor and "/" not in cursor  # opaque: the server keeps host and path
    seen = pages_upstream.requests
    assert [(r.path, r.param("per_page"), r.param("after")) for r in seen] == [
        ("/commits", "5", None),
        ("/commits", "5", f"{5:040x}"),
        ("/commits", "5", f"{10:040x}"),
    ]


async def test_limits_are_enforced_per_action(pages_package: Path, pages_upstream: PagesUpstream) -> None:
    async with pages_client(pages_package, pages_upstream) as client:
        too_many = await client.call_tool(TOOL, {"action": "events", "limit": 55})
        forged = await client.call_tool(TOOL, {"action": "commits", "cursor": "not a cursor!"})
    # The per-action bound: validation (each action's own schema) or pagination.check_limit names it.
    assert too_many.is_error and (
        "at most 50" in result_text(too_many) or "maximum of 50" in result_text(too_many)
    )
    assert forged.is_error and "not one this server handed out" in result_text(forged)
    assert pages_upstream.requests == []


# --- R4: truncation -------------------------------------------------------------------------------


async def test_a_cut_list_says_what_it_shows_and_the_exact_next_call(
    pages_package: Path, pages_upstream: PagesUpstream
) -> None:
    async with pages_client(pages_package, pages_upstream) as client:
        first = await client.call_tool(TOOL, {"action": "books", "limit": 30, "page": 2})
        data = result_json(first)
        note = data["truncated"]
        rest = await client.call_tool(note["next_call"]["tool"], note["next_call"]["arguments"])
    shown = len(data["items"])
    assert 1 <= shown < 30 and 30 % shown == 0  # whole pages of the smaller size line up with item 31
    assert o200k_tokens(result_text(first)) <= PAGES_BUDGET
    assert [b["id"] for b in data["items"]] == [f"bk_{n:03d}" for n in range(31, 31 + shown)]
    assert note["shown"] == f"items 31-{30 + shown} of {BOOK_COUNT}; this page had 30"
    assert data["has_more"] is True and "next_page" not in data  # a cut list never looks whole
    assert note["next_call"] == {
        "tool": TOOL,
        "arguments": {"action": "books", "limit": shown, "page": 30 // shown + 2},
    }
    following = result_json(rest)["items"]
    assert following[0]["id"] == f"bk_{31 + shown:03d}"  # exactly where the cut list stopped


async def test_a_long_string_is_cut_and_named(pages_package: Path, pages_upstream: PagesUpstream) -> None:
    async with pages_client(pages_package, pages_upstream) as client:
        result = await client.call_tool(TOOL, {"action": "note", "note_id": "n1"})
    data = result_json(result)
    assert not result.is_error and o200k_tokens(result_text(result)) <= PAGES_BUDGET
    assert data["id"] == "n1" and data["body"].endswith("…") and len(data["body"]) < 2000
    assert "body (" in data["truncated"]["strings_cut"] and "characters" in data["truncated"]["strings_cut"]
    assert result.structured_content == data  # R5: the same JSON in both places
