"""A partial list never looks whole (R3 pagination, R4 truncation is announced): paging of real APIs,
each from a fragment of its spec (tests/fixtures/paging/paging.openapi.yaml names the spec and JSON
pointer of each), walked to the end by the official MCP client over stdio against a stand-in that
pages as the real API does (tests/upstreams/paging.py). Every result validates against the tool's
outputSchema, and every list result says has_more."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.support.mcp_client import result_json, result_text, stdio_client, tool_dicts
from tests.support.paths import ROOT
from tests.support.venvs import run_mcpgen
from tests.upstreams.paging import (
    COMMIT_COUNT,
    CONTACT_COUNT,
    LINODE_COUNT,
    TRANSACTION_COUNT,
    UPDATE_PAGES,
    USER_COUNT,
    VIDEO_COUNT,
    WORKFLOW_COUNT,
    PagingUpstream,
)

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

PAGING = ROOT / "tests" / "fixtures" / "paging"
TOOL = "paging_records_find"
PLAID_DATES = {"start_date": "2024-01-01", "end_date": "2024-01-31"}
# Prism judges every request the stand-in receives against the spec it answers for (tests/support/prism.py).
PRISM_SPECS = {PagingUpstream: PAGING / "paging.openapi.yaml"}


@pytest.fixture(scope="module")
def paging_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("paging") / "paging"
    completed = run_mcpgen(
        "generate", PAGING / "paging.openapi.yaml", "-m", PAGING / "mapping.yaml", "-o", out
    )
    assert completed.returncode == 0, completed.stderr
    return out


@pytest.fixture
def upstream():
    with PagingUpstream() as server:
        yield server


def client_for(package: Path, upstream: PagingUpstream):
    env = {
        "PYTHONPATH": str(package),
        "PAGING_BASE_URL": upstream.base_url,
        "PAGING_ACCESS_TOKEN": "access-sandbox-1",
    }
    return stdio_client([sys.executable, "-m", "paging_mcp"], env)


async def walk(client: Any, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """Every result up to the last page, following next_page or next_cursor; each one checked against
    the outputSchema, with has_more always said and true only beside the call that gets the rest."""
    [tool] = [t for t in tool_dicts(await client.list_tools()) if t["name"] == TOOL]
    results: list[dict[str, Any]] = []
    for _ in range(20):  # bounded: a paging bug must fail, not loop
        result = await client.call_tool(TOOL, arguments)
        assert not result.is_error, result_text(result)
        data = result_json(result)
        jsonschema.validate(data, tool["outputSchema"])
        assert "has_more" in data, data  # a list never leaves it out
        results.append(data)
        if data["has_more"] is True and "next_cursor" in data:
            arguments = {**arguments, "cursor": data["next_cursor"]}
        elif data["has_more"] is True:
            arguments = {**arguments, "page": data["next_page"]}
        else:
            assert data["has_more"] is False, data  # nothing here leaves the end unknown
            return results
    raise AssertionError("paging never ended")


async def test_an_offset_inside_the_body_pages_a_search_sent_by_post(
    paging_package: Path, upstream: PagingUpstream
) -> None:
    """plaid.com.json /paths/~1transactions~1get/post: `options.count` and `options.offset` in the body
    (pagination: {offset: options.offset, limit: options.count}) used to be refused (M216); the first
    10 of 23 came back as {"items": [...]} with no has_more, and total_transactions dropped."""
    async with client_for(paging_package, upstream) as client:
        results = await walk(client, {"action": "transactions", "limit": 10, **PLAID_DATES})
    assert [t["transaction_id"] for r in results for t in r["items"]] == [
        f"tx_{n:02d}" for n in range(1, TRANSACTION_COUNT + 1)
    ]
    assert [(r["has_more"], r.get("next_page"), r["total_count"]) for r in results] == [
        (True, 2, 23), (True, 3, 23), (False, None, 23),
    ]  # fmt: skip
    # The offset goes where the API reads it, inside `options`, beside the count; never in the URL.
    assert [(r.query, r.json["options"]) for r in upstream.requests] == [
        ({}, {"count": 10}),
        ({}, {"count": 10, "offset": 10}),
        ({}, {"count": 10, "offset": 20}),
    ]
    # The accounts beside the transactions are a list of records too: concise keeps them.
    assert [a["account_id"] for a in results[0]["accounts"]] == ["acc_1", "acc_2"]
    assert "total_transactions" not in results[0] and "transactions" not in results[0]


async def test_a_sync_answer_keeps_every_list_of_records(
    paging_package: Path, upstream: PagingUpstream
) -> None:
    """plaid.com.json /paths/~1transactions~1sync/post: `added`, `modified` and `removed`
    (TransactionsSyncResponse); `response: {items: added}` used to leave the other two out of
    concise. The cursor and count travel in the body."""
    async with client_for(paging_package, upstream) as client:
        results = await walk(client, {"action": "transaction_updates", "limit": 5})
    assert [(len(r["items"]), len(r["modified"]), len(r["removed"])) for r in results] == list(UPDATE_PAGES)
    assert [r["has_more"] for r in results] == [True, True, False]
    assert [r.json.get("cursor") for r in upstream.requests] == [None, "sync-1", "sync-2"]
    assert {r.json["count"] for r in upstream.requests} == {5}
    assert results[0]["removed"][0] == {"transaction_id": "tx_old_0_0"}


async def test_next_page_token_is_the_cursor_it_names(paging_package: Path, upstream: PagingUpstream) -> None:
    """zoom.us.json /paths/~1chat~1users~1me~1contacts/get: the `next_page_token` query parameter takes
    back the body's `next_page_token`; page 2 used to be unreachable ("this API takes no page or
    cursor"). The last page's token is "", which ends the list."""
    async with client_for(paging_package, upstream) as client:
        results = await walk(client, {"action": "contacts", "limit": 10})
    assert [c["id"] for r in results for c in r["items"]] == [
        f"c{n:02d}" for n in range(1, CONTACT_COUNT + 1)
    ]
    assert [r.get("next_cursor") for r in results] == ["ct-10", "ct-20", None]
    assert [r.param("next_page_token") for r in upstream.requests] == [None, "ct-10", "ct-20"]
    assert all("rest" not in r for r in results)


async def test_totals_are_read_by_their_names(paging_package: Path, upstream: PagingUpstream) -> None:
    """A total under any name is said as total_count: Zoom's total_records beside a next_page_token
    (zoom.us.json /paths/~1users/get), Linode's `results` (/components/schemas/PaginationEnvelope),
    api.video's pagination.itemsTotal (/components/schemas/pagination), gitea's X-Total header
    (/components/responses/CommitList); page counts (page_count, pagesTotal, X-PageCount) are not."""
    async with client_for(paging_package, upstream) as client:
        users = await walk(client, {"action": "users", "limit": 3})
        linodes = await walk(client, {"action": "linodes", "limit": 25})
        videos = await walk(client, {"action": "videos", "limit": 5})
        commits = await walk(client, {"action": "commits", "owner": "o", "repo": "r", "limit": 4})
    for results, count in (
        (users, USER_COUNT),
        (linodes, LINODE_COUNT),
        (videos, VIDEO_COUNT),
        (commits, COMMIT_COUNT),
    ):
        assert {r["total_count"] for r in results} == {count}
        assert sum(len(r["items"]) for r in results) == count
        assert [r["has_more"] for r in results] == [True] * (len(results) - 1) + [False]
    assert [len(r["items"]) for r in linodes] == [25, 25, 10]
    assert [r.param("page") for r in upstream.requests if r.path == "/linode/instances"] == [None, "2", "3"]
    assert all("pagination" not in r for r in videos)  # folded into the one shape


async def test_a_full_last_page_whose_next_page_is_null_ends_the_list(
    paging_package: Path, upstream: PagingUpstream
) -> None:
    """zuora.com.json /paths/~1workflows/get: pagination.next_page is null on the last page; a last page
    as full as the limit used to say has_more: true and send the agent to an empty page."""
    async with client_for(paging_package, upstream) as client:
        results = await walk(client, {"action": "workflows", "limit": 10})
    assert [len(r["items"]) for r in results] == [10, 10]
    assert sum(len(r["items"]) for r in results) == WORKFLOW_COUNT
    assert [(r["has_more"], r.get("next_page")) for r in results] == [(True, 2), (False, None)]
    assert len(upstream.requests) == 2  # no third call for a page that is not there


async def test_a_next_link_the_spec_does_not_show_keeps_the_list_from_looking_whole(
    paging_package: Path, upstream: PagingUpstream
) -> None:
    """azure.com/storage.json /paths/~1providers~1Microsoft.Storage~1operations/get takes no page or
    cursor, and its OperationListResult declares only `value`; Azure answers 5 of 7 with a nextLink.
    That answer used to come back as has_more: false, a partial list looking whole."""
    async with client_for(paging_package, upstream) as client:
        [tool] = [t for t in tool_dicts(await client.list_tools()) if t["name"] == TOOL]
        result = await client.call_tool(TOOL, {"action": "storage_operations", "api_version": "2019-04-01"})
    assert not result.is_error, result_text(result)
    data = result_json(result)
    jsonschema.validate(data, tool["outputSchema"])
    assert len(data["items"]) == 5
    assert data["has_more"] is None and "'nextLink'" in data["rest"], data
    assert "next_page" not in data and "next_cursor" not in data  # no call is promised that cannot be made
    assert [r.param("$skiptoken") for r in upstream.requests] == [None]
